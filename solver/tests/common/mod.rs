//! Hand-written test models: a tiny dense second-order forward-mode AD type (`Hd<N>`) and an
//! `NlpModel` over it with dense Jacobian/Hessian patterns, plus the problem set; and
//! [`log_capture`] for the tests that read the solver's log.
#![allow(
    dead_code,
    clippy::needless_range_loop,
    clippy::suspicious_arithmetic_impl
)]

pub mod log_capture;

use simdnlp_modeling::{NlpMeta, NlpModel};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Value, gradient and Hessian of a scalar function of `N` variables.
#[derive(Clone, Copy, Debug)]
pub struct Hd<const N: usize> {
    pub v: f64,
    pub g: [f64; N],
    pub h: [[f64; N]; N],
}

impl<const N: usize> Hd<N> {
    pub fn cst(v: f64) -> Self {
        Self {
            v,
            g: [0.0; N],
            h: [[0.0; N]; N],
        }
    }
    pub fn var(v: f64, i: usize) -> Self {
        let mut s = Self::cst(v);
        s.g[i] = 1.0;
        s
    }
    /// Chain rule for a univariate function with value `f0`, derivatives `f1`, `f2`.
    fn chain(self, f0: f64, f1: f64, f2: f64) -> Self {
        let mut r = Self::cst(f0);
        for i in 0..N {
            r.g[i] = f1 * self.g[i];
            for j in 0..N {
                r.h[i][j] = f1 * self.h[i][j] + f2 * self.g[i] * self.g[j];
            }
        }
        r
    }
    pub fn powi(self, k: i32) -> Self {
        let v = self.v;
        let kf = k as f64;
        self.chain(
            v.powi(k),
            kf * v.powi(k - 1),
            kf * (kf - 1.0) * v.powi(k - 2),
        )
    }
    pub fn sq(self) -> Self {
        self * self
    }
    pub fn exp(self) -> Self {
        let e = self.v.exp();
        self.chain(e, e, e)
    }
    pub fn ln(self) -> Self {
        let v = self.v;
        self.chain(v.ln(), 1.0 / v, -1.0 / (v * v))
    }
    pub fn sqrt(self) -> Self {
        let s = self.v.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.v))
    }
    pub fn sin(self) -> Self {
        let (s, c) = self.v.sin_cos();
        self.chain(s, c, -s)
    }
    pub fn cos(self) -> Self {
        let (s, c) = self.v.sin_cos();
        self.chain(c, -s, -c)
    }
    pub fn recip(self) -> Self {
        let v = self.v;
        self.chain(1.0 / v, -1.0 / (v * v), 2.0 / (v * v * v))
    }
}

impl<const N: usize> Add for Hd<N> {
    type Output = Self;
    fn add(mut self, o: Self) -> Self {
        self.v += o.v;
        for i in 0..N {
            self.g[i] += o.g[i];
            for j in 0..N {
                self.h[i][j] += o.h[i][j];
            }
        }
        self
    }
}
impl<const N: usize> Neg for Hd<N> {
    type Output = Self;
    fn neg(self) -> Self {
        self * -1.0
    }
}
impl<const N: usize> Sub for Hd<N> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        self + (-o)
    }
}
impl<const N: usize> Mul for Hd<N> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        let mut r = Self::cst(self.v * o.v);
        for i in 0..N {
            r.g[i] = self.v * o.g[i] + o.v * self.g[i];
            for j in 0..N {
                r.h[i][j] = self.v * o.h[i][j]
                    + o.v * self.h[i][j]
                    + self.g[i] * o.g[j]
                    + o.g[i] * self.g[j];
            }
        }
        r
    }
}
impl<const N: usize> Div for Hd<N> {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        self * o.recip()
    }
}
impl<const N: usize> Add<f64> for Hd<N> {
    type Output = Self;
    fn add(mut self, o: f64) -> Self {
        self.v += o;
        self
    }
}
impl<const N: usize> Sub<f64> for Hd<N> {
    type Output = Self;
    fn sub(mut self, o: f64) -> Self {
        self.v -= o;
        self
    }
}
impl<const N: usize> Mul<f64> for Hd<N> {
    type Output = Self;
    fn mul(mut self, o: f64) -> Self {
        self.v *= o;
        for i in 0..N {
            self.g[i] *= o;
            for j in 0..N {
                self.h[i][j] *= o;
            }
        }
        self
    }
}
impl<const N: usize> Div<f64> for Hd<N> {
    type Output = Self;
    fn div(self, o: f64) -> Self {
        self * (1.0 / o)
    }
}
impl<const N: usize> Add<Hd<N>> for f64 {
    type Output = Hd<N>;
    fn add(self, o: Hd<N>) -> Hd<N> {
        o + self
    }
}
impl<const N: usize> Sub<Hd<N>> for f64 {
    type Output = Hd<N>;
    fn sub(self, o: Hd<N>) -> Hd<N> {
        (-o) + self
    }
}
impl<const N: usize> Mul<Hd<N>> for f64 {
    type Output = Hd<N>;
    fn mul(self, o: Hd<N>) -> Hd<N> {
        o * self
    }
}

/// Objective of a test problem.
pub type ObjFn<const N: usize> = fn(&[Hd<N>; N]) -> Hd<N>;
/// Constraints of a test problem (writes `m` values).
pub type ConFn<const N: usize> = fn(&[Hd<N>; N], &mut Vec<Hd<N>>);

/// A dense test model over `Hd<N>` (allocates in callbacks: test code only).
pub struct AdModel<const N: usize> {
    pub meta: NlpMeta<f64>,
    pub obj: ObjFn<N>,
    pub cons: ConFn<N>,
    /// Extra parameter some problems read (e.g. to shift a target in warm-start tests).
    pub p: f64,
}

/// Lower and upper bounds, in that order (of the variables or of the constraint rows).
pub struct Bounds<V>(pub V, pub V);

impl<const N: usize> AdModel<N> {
    /// The model `name` with start `x0`, variable bounds `lvar ≤ x ≤ uvar`, constraint
    /// bounds `lcon ≤ c(x) ≤ ucon` (one row per entry), objective `obj` and constraints
    /// `cons`.
    pub fn new(
        name: &str,
        x0: [f64; N],
        Bounds(lvar, uvar): Bounds<[f64; N]>,
        Bounds(lcon, ucon): Bounds<Vec<f64>>,
        obj: ObjFn<N>,
        cons: ConFn<N>,
    ) -> Self {
        let m = lcon.len();
        let mut meta = NlpMeta::new(N, m);
        meta.nnzj = N * m;
        meta.nnzh = N * (N + 1) / 2;
        meta.x0 = x0.to_vec();
        meta.lvar = lvar.to_vec();
        meta.uvar = uvar.to_vec();
        meta.lcon = lcon;
        meta.ucon = ucon;
        meta.name = name.to_string();
        Self {
            meta,
            obj,
            cons,
            p: 0.0,
        }
    }
    fn vars(x: &[f64]) -> [Hd<N>; N] {
        std::array::from_fn(|i| Hd::var(x[i], i))
    }
    fn con_vals(&self, x: &[f64]) -> Vec<Hd<N>> {
        let mut c = Vec::with_capacity(self.meta.ncon);
        (self.cons)(&Self::vars(x), &mut c);
        assert_eq!(
            c.len(),
            self.meta.ncon,
            "constraint count of {}",
            self.meta.name
        );
        c
    }
    /// Dense Lagrangian Hessian (full, row-major).
    fn lag_hess(&self, x: &[f64], y: &[f64], w: f64) -> [[f64; N]; N] {
        let f = (self.obj)(&Self::vars(x));
        let mut h = [[0.0; N]; N];
        for i in 0..N {
            for j in 0..N {
                h[i][j] = w * f.h[i][j];
            }
        }
        for (cj, yj) in self.con_vals(x).iter().zip(y) {
            for i in 0..N {
                for j in 0..N {
                    h[i][j] += yj * cj.h[i][j];
                }
            }
        }
        h
    }
}

impl<const N: usize> NlpModel for AdModel<N> {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn obj(&self, x: &[f64]) -> f64 {
        (self.obj)(&Self::vars(x)).v
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        g.copy_from_slice(&(self.obj)(&Self::vars(x)).g);
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        for (o, v) in c.iter_mut().zip(self.con_vals(x)) {
            *o = v.v;
        }
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        for j in 0..self.meta.ncon {
            for i in 0..N {
                rows[j * N + i] = j;
                cols[j * N + i] = i;
            }
        }
    }
    fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
        for (j, c) in self.con_vals(x).iter().enumerate() {
            vals[j * N..(j + 1) * N].copy_from_slice(&c.g);
        }
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let mut k = 0;
        for i in 0..N {
            for j in 0..=i {
                rows[k] = i;
                cols[k] = j;
                k += 1;
            }
        }
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, vals: &mut [f64]) {
        let h = self.lag_hess(x, y, w);
        let mut k = 0;
        for i in 0..N {
            for j in 0..=i {
                vals[k] = h[i][j];
                k += 1;
            }
        }
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        for (o, c) in jv.iter_mut().zip(self.con_vals(x)) {
            *o = c.g.iter().zip(v).map(|(a, b)| a * b).sum();
        }
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        jtv.iter_mut().for_each(|a| *a = 0.0);
        for (c, vj) in self.con_vals(x).iter().zip(v) {
            for i in 0..N {
                jtv[i] += c.g[i] * vj;
            }
        }
    }
    fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
        let h = self.lag_hess(x, y, w);
        for i in 0..N {
            hv[i] = (0..N).map(|j| h[i][j] * v[j]).sum();
        }
    }
}

pub const INF: f64 = f64::INFINITY;

/// A test problem with its published optimum.
pub struct Case<const N: usize> {
    pub model: AdModel<N>,
    pub f_opt: f64,
    pub x_opt: Option<[f64; N]>,
}

pub fn hs6() -> Case<2> {
    let model = AdModel::new(
        "hs6",
        [-1.2, 1.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.0], vec![0.0]),
        |x| (1.0 - x[0]).sq(),
        |x, c| c.push((x[1] - x[0].sq()) * 10.0),
    );
    Case {
        model,
        f_opt: 0.0,
        x_opt: Some([1.0, 1.0]),
    }
}

pub fn hs7() -> Case<2> {
    let model = AdModel::new(
        "hs7",
        [2.0, 2.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.0], vec![0.0]),
        |x| (x[0].sq() + 1.0).ln() - x[1],
        |x, c| c.push((x[0].sq() + 1.0).sq() + x[1].sq() - 4.0),
    );
    Case {
        model,
        f_opt: -(3.0f64.sqrt()),
        x_opt: Some([0.0, 3.0f64.sqrt()]),
    }
}

pub fn hs14() -> Case<2> {
    let model = AdModel::new(
        "hs14",
        [2.0, 2.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.0, 0.0], vec![0.0, INF]),
        |x| (x[0] - 2.0).sq() + (x[1] - 1.0).sq(),
        |x, c| {
            c.push(x[0] - x[1] * 2.0 + 1.0);
            c.push(1.0 - x[0].sq() / 4.0 - x[1].sq());
        },
    );
    let s7 = 7.0f64.sqrt();
    Case {
        model,
        f_opt: 9.0 - 2.875 * s7,
        x_opt: Some([0.5 * (s7 - 1.0), 0.25 * (s7 + 1.0)]),
    }
}

pub fn hs15() -> Case<2> {
    let model = AdModel::new(
        "hs15",
        [-2.0, 1.0],
        Bounds([-INF; 2], [0.5, INF]),
        Bounds(vec![0.0, 0.0], vec![INF, INF]),
        |x| (x[1] - x[0].sq()).sq() * 100.0 + (1.0 - x[0]).sq(),
        |x, c| {
            c.push(x[0] * x[1] - 1.0);
            c.push(x[0] + x[1].sq());
        },
    );
    Case {
        model,
        f_opt: 306.5,
        x_opt: Some([0.5, 2.0]),
    }
}

pub fn hs21() -> Case<2> {
    let model = AdModel::new(
        "hs21",
        [-1.0, -1.0],
        Bounds([2.0, -50.0], [50.0, 50.0]),
        Bounds(vec![0.0], vec![INF]),
        |x| x[0].sq() * 0.01 + x[1].sq() - 100.0,
        |x, c| c.push(x[0] * 10.0 - x[1] - 10.0),
    );
    Case {
        model,
        f_opt: -99.96,
        x_opt: Some([2.0, 0.0]),
    }
}

pub fn hs35() -> Case<3> {
    let model = AdModel::new(
        "hs35",
        [0.5; 3],
        Bounds([0.0; 3], [INF; 3]),
        Bounds(vec![0.0], vec![INF]),
        |x| {
            9.0 - x[0] * 8.0 - x[1] * 6.0 - x[2] * 4.0
                + x[0].sq() * 2.0
                + x[1].sq() * 2.0
                + x[2].sq()
                + x[0] * x[1] * 2.0
                + x[0] * x[2] * 2.0
        },
        |x, c| c.push(3.0 - x[0] - x[1] - x[2] * 2.0),
    );
    Case {
        model,
        f_opt: 1.0 / 9.0,
        x_opt: Some([4.0 / 3.0, 7.0 / 9.0, 4.0 / 9.0]),
    }
}

pub fn hs36() -> Case<3> {
    let model = AdModel::new(
        "hs36",
        [10.0; 3],
        Bounds([0.0; 3], [20.0, 11.0, 42.0]),
        Bounds(vec![0.0], vec![INF]),
        |x| -(x[0] * x[1] * x[2]),
        |x, c| c.push(72.0 - x[0] - x[1] * 2.0 - x[2] * 2.0),
    );
    Case {
        model,
        f_opt: -3300.0,
        x_opt: Some([20.0, 11.0, 15.0]),
    }
}

pub fn hs39() -> Case<4> {
    let model = AdModel::new(
        "hs39",
        [2.0; 4],
        Bounds([-INF; 4], [INF; 4]),
        Bounds(vec![0.0, 0.0], vec![0.0, 0.0]),
        |x| -x[0],
        |x, c| {
            c.push(x[1] - x[0].powi(3) - x[2].sq());
            c.push(x[0].sq() - x[1] - x[3].sq());
        },
    );
    Case {
        model,
        f_opt: -1.0,
        x_opt: Some([1.0, 1.0, 0.0, 0.0]),
    }
}

pub fn hs71() -> Case<4> {
    let model = AdModel::new(
        "hs71",
        [1.0, 5.0, 5.0, 1.0],
        Bounds([1.0; 4], [5.0; 4]),
        Bounds(vec![25.0, 40.0], vec![INF, 40.0]),
        |x| x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2],
        |x, c| {
            c.push(x[0] * x[1] * x[2] * x[3]);
            c.push(x[0].sq() + x[1].sq() + x[2].sq() + x[3].sq());
        },
    );
    Case {
        model,
        f_opt: 17.014017289,
        x_opt: Some([1.0, 4.742999640, 3.821149978, 1.379408294]),
    }
}

pub fn hs76() -> Case<4> {
    let model = AdModel::new(
        "hs76",
        [0.5; 4],
        Bounds([0.0; 4], [INF; 4]),
        Bounds(vec![0.0; 3], vec![INF; 3]),
        |x| {
            x[0].sq() + x[1].sq() * 0.5 + x[2].sq() + x[3].sq() * 0.5 - x[0] * x[2] + x[2] * x[3]
                - x[0]
                - x[1] * 3.0
                + x[2]
                - x[3]
        },
        |x, c| {
            c.push(5.0 - x[0] - x[1] * 2.0 - x[2] - x[3]);
            c.push(4.0 - x[0] * 3.0 - x[1] - x[2] * 2.0 + x[3]);
            c.push(x[1] + x[2] * 4.0 - 1.5);
        },
    );
    Case {
        model,
        f_opt: -4.681818181818,
        x_opt: Some([3.0 / 11.0, 23.0 / 11.0, 0.0, 6.0 / 11.0]),
    }
}

pub fn hs118() -> Case<15> {
    let mut lvar = [0.0; 15];
    let mut uvar = [0.0; 15];
    lvar[0] = 8.0;
    uvar[0] = 21.0;
    lvar[1] = 43.0;
    uvar[1] = 57.0;
    lvar[2] = 3.0;
    uvar[2] = 16.0;
    for k in 1..5 {
        uvar[3 * k] = 90.0;
        uvar[3 * k + 1] = 120.0;
        uvar[3 * k + 2] = 60.0;
    }
    let mut x0 = [0.0; 15];
    for k in 0..5 {
        x0[3 * k] = 20.0;
        x0[3 * k + 1] = 55.0;
        x0[3 * k + 2] = 15.0;
    }
    x0[1] = 55.0;
    let mut lcon = Vec::new();
    let mut ucon = Vec::new();
    for _ in 1..5 {
        lcon.extend([0.0, 0.0, 0.0]);
        ucon.extend([13.0, 14.0, 13.0]);
    }
    lcon.extend([0.0; 5]);
    ucon.extend([INF; 5]);
    let model = AdModel::new(
        "hs118",
        x0,
        Bounds(lvar, uvar),
        Bounds(lcon, ucon),
        |x| {
            let mut f = Hd::cst(0.0);
            for k in 0..5 {
                f = f
                    + x[3 * k] * 2.3
                    + x[3 * k].sq() * 0.0001
                    + x[3 * k + 1] * 1.7
                    + x[3 * k + 1].sq() * 0.0001
                    + x[3 * k + 2] * 2.2
                    + x[3 * k + 2].sq() * 0.00015;
            }
            f
        },
        |x, c| {
            for j in 1..5 {
                c.push(x[3 * j] - x[3 * j - 3] + 7.0);
                c.push(x[3 * j + 1] - x[3 * j - 2] + 7.0);
                c.push(x[3 * j + 2] - x[3 * j - 1] + 7.0);
            }
            c.push(x[0] + x[1] + x[2] - 60.0);
            c.push(x[3] + x[4] + x[5] - 50.0);
            c.push(x[6] + x[7] + x[8] - 70.0);
            c.push(x[9] + x[10] + x[11] - 85.0);
            c.push(x[12] + x[13] + x[14] - 100.0);
        },
    );
    Case {
        model,
        f_opt: 664.82045,
        x_opt: None,
    }
}

/// min (x1 − 1)² + (x2 − 2)² + x3² s.t. x1 + x2 + x3 = 1 three times (once scaled by 2):
/// a rank-one Jacobian with a consistent right-hand side; the solution is
/// (1/3, 4/3, −2/3).
pub fn duplicated_rows() -> AdModel<3> {
    AdModel::new(
        "duplicated rows",
        [0.0; 3],
        Bounds([-INF; 3], [INF; 3]),
        Bounds(vec![1.0, 1.0, 2.0], vec![1.0, 1.0, 2.0]),
        |x| (x[0] - 1.0).sq() + (x[1] - 2.0).sq() + x[2].sq(),
        |x, c| {
            c.push(x[0] + x[1] + x[2]);
            c.push(x[0] + x[1] + x[2]);
            c.push((x[0] + x[1] + x[2]) * 2.0);
        },
    )
}

/// x1² + x2² ≤ 1 and x1 + x2 ≥ 3 with objective x1² + x2: infeasible (the largest x1 + x2
/// on the disk is √2), so a solve enters the restoration phase and fails in it.
pub fn infeasible_disk() -> AdModel<2> {
    AdModel::new(
        "infeasible",
        [0.0, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![-INF, 3.0], vec![1.0, INF]),
        |x| x[0].sq() + x[1],
        |x, c| {
            c.push(x[0].sq() + x[1].sq());
            c.push(x[0] + x[1]);
        },
    )
}

/// min x² + y² s.t. x + y = 0 and 2(x + y) = 2 on the box [−5, 5]²: infeasible, with
/// the two measures of the violation least at different points. With u = x + y the rows
/// are c = (u, 2u − 2): `‖c‖_2` is least at u = 0.8 (c = (0.8, −0.4): `‖c‖_1` = 1.2,
/// `‖c‖_∞` = 0.8), where the main phase's Newton steps stall, and `‖c‖_1` is least at
/// u = 1 (c = (1, 0): `‖c‖_1` = 1, `‖c‖_∞` = 1), which the ℓ1 restoration problem moves
/// towards: a 17 % lower θ with a larger largest violation.
pub fn parallel_rows_infeasible() -> AdModel<2> {
    AdModel::new(
        "parallel rows",
        [0.5, 0.0],
        Bounds([-5.0; 2], [5.0; 2]),
        Bounds(vec![0.0, 2.0], vec![0.0, 2.0]),
        |x| x[0].sq() + x[1].sq(),
        |x, c| {
            c.push(x[0] + x[1]);
            c.push((x[0] + x[1]) * 2.0);
        },
    )
}

/// min (x1 − 10)² + x2² − 0.01 ln(3 − x1) s.t. x1 − 2 x2 = 0: f is NaN for x1 ≥ 3 (log of
/// a negative number), and the first Newton step lands near 10, so the line search meets a
/// NaN trial point.
pub fn nan_trial() -> AdModel<2> {
    AdModel::new(
        "nan trial",
        [0.0, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.0], vec![0.0]),
        |x| (x[0] - 10.0).sq() + x[1].sq() - (3.0 - x[0]).ln() * 0.01,
        |x, c| c.push(x[0] - x[1] * 2.0),
    )
}

pub fn rosenbrock() -> Case<2> {
    let model = AdModel::new(
        "rosenbrock",
        [-1.2, 1.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![], vec![]),
        |x| (x[1] - x[0].sq()).sq() * 100.0 + (1.0 - x[0]).sq(),
        |_, _| {},
    );
    Case {
        model,
        f_opt: 0.0,
        x_opt: Some([1.0, 1.0]),
    }
}

pub fn hs23() -> Case<2> {
    let model = AdModel::new(
        "hs23",
        [3.0, 1.0],
        Bounds([-50.0; 2], [50.0; 2]),
        Bounds(vec![0.0; 5], vec![INF; 5]),
        |x| x[0].sq() + x[1].sq(),
        |x, c| {
            c.push(x[0] + x[1] - 1.0);
            c.push(x[0].sq() + x[1].sq() - 1.0);
            c.push(x[0].sq() * 9.0 + x[1].sq() - 9.0);
            c.push(x[0].sq() - x[1]);
            c.push(x[1].sq() - x[0]);
        },
    );
    Case {
        model,
        f_opt: 2.0,
        x_opt: Some([1.0, 1.0]),
    }
}

pub fn hs43() -> Case<4> {
    let model = AdModel::new(
        "hs43",
        [0.0; 4],
        Bounds([-INF; 4], [INF; 4]),
        Bounds(vec![0.0; 3], vec![INF; 3]),
        |x| {
            x[0].sq() + x[1].sq() + x[2].sq() * 2.0 + x[3].sq()
                - x[0] * 5.0
                - x[1] * 5.0
                - x[2] * 21.0
                + x[3] * 7.0
        },
        |x, c| {
            c.push(8.0 - x[0].sq() - x[1].sq() - x[2].sq() - x[3].sq() - x[0] + x[1] - x[2] + x[3]);
            c.push(10.0 - x[0].sq() - x[1].sq() * 2.0 - x[2].sq() - x[3].sq() * 2.0 + x[0] + x[3]);
            c.push(5.0 - x[0].sq() * 2.0 - x[1].sq() - x[2].sq() - x[0] * 2.0 + x[1] + x[3]);
        },
    );
    Case {
        model,
        f_opt: -44.0,
        x_opt: Some([0.0, 1.0, 2.0, -1.0]),
    }
}

pub fn hs113() -> Case<10> {
    let model = AdModel::new(
        "hs113",
        [2.0, 3.0, 5.0, 5.0, 1.0, 2.0, 7.0, 3.0, 6.0, 10.0],
        Bounds([-INF; 10], [INF; 10]),
        Bounds(vec![0.0; 8], vec![INF; 8]),
        |x| {
            x[0].sq() + x[1].sq() + x[0] * x[1] - x[0] * 14.0 - x[1] * 16.0
                + (x[2] - 10.0).sq()
                + (x[3] - 5.0).sq() * 4.0
                + (x[4] - 3.0).sq()
                + (x[5] - 1.0).sq() * 2.0
                + x[6].sq() * 5.0
                + (x[7] - 11.0).sq() * 7.0
                + (x[8] - 10.0).sq() * 2.0
                + (x[9] - 7.0).sq()
                + 45.0
        },
        |x, c| {
            c.push(105.0 - x[0] * 4.0 - x[1] * 5.0 + x[6] * 3.0 - x[7] * 9.0);
            c.push(x[0] * -10.0 + x[1] * 8.0 + x[6] * 17.0 - x[7] * 2.0);
            c.push(x[0] * 8.0 - x[1] * 2.0 - x[8] * 5.0 + x[9] * 2.0 + 12.0);
            c.push(
                (x[0] - 2.0).sq() * -3.0 - (x[1] - 3.0).sq() * 4.0 - x[2].sq() * 2.0
                    + x[3] * 7.0
                    + 120.0,
            );
            c.push(x[0].sq() * -5.0 - x[1] * 8.0 - (x[2] - 6.0).sq() + x[3] * 2.0 + 40.0);
            c.push(
                (x[0] - 8.0).sq() * -0.5 - (x[1] - 4.0).sq() * 2.0 - x[4].sq() * 3.0 + x[5] + 30.0,
            );
            c.push(
                -x[0].sq() - (x[1] - 2.0).sq() * 2.0 + x[0] * x[1] * 2.0 - x[4] * 14.0 + x[5] * 6.0,
            );
            c.push(x[0] * 3.0 - x[1] * 6.0 - (x[8] - 8.0).sq() * 12.0 + x[9] * 7.0);
        },
    );
    Case {
        model,
        f_opt: 24.3062091,
        x_opt: None,
    }
}

pub fn hs106() -> Case<8> {
    let model = AdModel::new(
        "hs106",
        [5000.0, 5000.0, 5000.0, 200.0, 350.0, 150.0, 225.0, 425.0],
        Bounds(
            [100.0, 1000.0, 1000.0, 10.0, 10.0, 10.0, 10.0, 10.0],
            [
                10000.0, 10000.0, 10000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0,
            ],
        ),
        Bounds(vec![0.0; 6], vec![INF; 6]),
        |x| x[0] + x[1] + x[2],
        |x, c| {
            c.push(1.0 - (x[3] + x[5]) * 0.0025);
            c.push(1.0 - (x[4] + x[6] - x[3]) * 0.0025);
            c.push(1.0 - (x[7] - x[4]) * 0.01);
            c.push(x[0] * x[5] - x[3] * 833.33252 - x[0] * 100.0 + 83333.333);
            c.push(x[1] * x[6] - x[4] * 1250.0 - x[1] * x[3] + x[3] * 1250.0);
            c.push(x[2] * x[7] - 1250000.0 - x[2] * x[4] + x[4] * 2500.0);
        },
    );
    Case {
        model,
        f_opt: 7049.24802,
        x_opt: None,
    }
}
