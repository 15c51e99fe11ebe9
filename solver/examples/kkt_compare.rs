//! Compare the KKT formulations / factorizations on a scalable sparse problem:
//! a trapezoidal-rule optimal control problem
//!
//! ```text
//! min  Σ_k ((s_k − 0.5)² + 0.1 u_k²)
//! s.t. s_{k+1} − s_k − h/2 (g(s_k, u_k) + g(s_{k+1}, u_{k+1})) = 0,  g(s, u) = s − s³ + u
//!      s_k + u_k ≤ 1.2,   −1 ≤ u_k ≤ 1,   s_k ≥ −2,   s_0 = 1 (fixed variable)
//! ```
//!
//! Run: `cargo run -p simdnlp-solver --example kkt_compare -- 20000 [--log]`
//! (`--log` prints the Ipopt-style iteration log of each solve through `tracing`).

#![allow(clippy::needless_range_loop)]

use simdnlp_modeling::{NlpMeta, NlpModel};
use simdnlp_solver::{KktKind, LinearSolverKind, Options, PrintLevel, solve};

struct Control {
    n_int: usize,
    h: f64,
    meta: NlpMeta<f64>,
}

impl Control {
    fn new(n_int: usize) -> Self {
        let nv = 2 * (n_int + 1);
        let m = n_int + (n_int + 1);
        let mut meta = NlpMeta::new(nv, m);
        meta.nnzj = 4 * n_int + 2 * (n_int + 1);
        meta.nnzh = nv;
        for k in 0..=n_int {
            meta.x0[k] = 1.0;
            meta.lvar[k] = -2.0;
            meta.lvar[n_int + 1 + k] = -1.0;
            meta.uvar[n_int + 1 + k] = 1.0;
        }
        meta.lvar[0] = 1.0;
        meta.uvar[0] = 1.0;
        for j in n_int..m {
            meta.lcon[j] = f64::NEG_INFINITY;
            meta.ucon[j] = 1.2;
        }
        meta.name = format!("control({n_int})");
        Self {
            n_int,
            h: 1.0 / n_int as f64,
            meta,
        }
    }
    fn s(&self, x: &[f64], k: usize) -> f64 {
        x[k]
    }
    fn u(&self, x: &[f64], k: usize) -> f64 {
        x[self.n_int + 1 + k]
    }
}

fn g(s: f64, u: f64) -> f64 {
    s - s * s * s + u
}

impl NlpModel for Control {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn obj(&self, x: &[f64]) -> f64 {
        (0..=self.n_int)
            .map(|k| {
                let (s, u) = (self.s(x, k), self.u(x, k));
                (s - 0.5).powi(2) + 0.1 * u * u
            })
            .sum()
    }
    fn grad(&self, x: &[f64], gr: &mut [f64]) {
        for k in 0..=self.n_int {
            gr[k] = 2.0 * (self.s(x, k) - 0.5);
            gr[self.n_int + 1 + k] = 0.2 * self.u(x, k);
        }
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        let n = self.n_int;
        for k in 0..n {
            let (s0, u0, s1, u1) = (
                self.s(x, k),
                self.u(x, k),
                self.s(x, k + 1),
                self.u(x, k + 1),
            );
            c[k] = s1 - s0 - 0.5 * self.h * (g(s0, u0) + g(s1, u1));
        }
        for k in 0..=n {
            c[n + k] = self.s(x, k) + self.u(x, k);
        }
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let n = self.n_int;
        let mut e = 0;
        for k in 0..n {
            for col in [k, k + 1, n + 1 + k, n + 2 + k] {
                rows[e] = k;
                cols[e] = col;
                e += 1;
            }
        }
        for k in 0..=n {
            for col in [k, n + 1 + k] {
                rows[e] = n + k;
                cols[e] = col;
                e += 1;
            }
        }
    }
    fn jac_coord(&self, x: &[f64], v: &mut [f64]) {
        let n = self.n_int;
        let hh = 0.5 * self.h;
        let mut e = 0;
        for k in 0..n {
            let (s0, s1) = (self.s(x, k), self.s(x, k + 1));
            v[e] = -1.0 - hh * (1.0 - 3.0 * s0 * s0);
            v[e + 1] = 1.0 - hh * (1.0 - 3.0 * s1 * s1);
            v[e + 2] = -hh;
            v[e + 3] = -hh;
            e += 4;
        }
        for _ in 0..=n {
            v[e] = 1.0;
            v[e + 1] = 1.0;
            e += 2;
        }
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        for i in 0..self.meta.nvar {
            rows[i] = i;
            cols[i] = i;
        }
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, v: &mut [f64]) {
        let n = self.n_int;
        let h = self.h;
        for k in 0..=n {
            // d²/ds² of −h/2 g(s) is 3 h s; row k−1 and row k touch s_k
            let mut yk = 0.0;
            if k < n {
                yk += y[k];
            }
            if k > 0 {
                yk += y[k - 1];
            }
            v[k] = 2.0 * w + 3.0 * h * self.s(x, k) * yk;
            v[n + 1 + k] = 0.2 * w;
        }
    }
    fn jprod(&self, x: &[f64], p: &[f64], jv: &mut [f64]) {
        let mut r = vec![0; self.meta.nnzj];
        let mut c = vec![0; self.meta.nnzj];
        let mut v = vec![0.0; self.meta.nnzj];
        self.jac_structure(&mut r, &mut c);
        self.jac_coord(x, &mut v);
        jv.iter_mut().for_each(|a| *a = 0.0);
        for e in 0..v.len() {
            jv[r[e]] += v[e] * p[c[e]];
        }
    }
    fn jtprod(&self, x: &[f64], p: &[f64], jtv: &mut [f64]) {
        let mut r = vec![0; self.meta.nnzj];
        let mut c = vec![0; self.meta.nnzj];
        let mut v = vec![0.0; self.meta.nnzj];
        self.jac_structure(&mut r, &mut c);
        self.jac_coord(x, &mut v);
        jtv.iter_mut().for_each(|a| *a = 0.0);
        for e in 0..v.len() {
            jtv[c[e]] += v[e] * p[r[e]];
        }
    }
    fn hprod(&self, x: &[f64], y: &[f64], w: f64, p: &[f64], hv: &mut [f64]) {
        let mut d = vec![0.0; self.meta.nvar];
        self.hess_coord(x, y, w, &mut d);
        for i in 0..d.len() {
            hv[i] = d[i] * p[i];
        }
    }
}

fn main() {
    let n_int: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let log = std::env::args().any(|a| a == "--log");
    if log {
        tracing_subscriber::fmt()
            .with_target(false)
            .without_time()
            .init();
    }
    let print_level = if log {
        PrintLevel::Iterations
    } else {
        PrintLevel::None
    };
    let model = Control::new(n_int);
    println!(
        "{}: {} variables, {} constraints, {} Jacobian nonzeros",
        model.meta.name, model.meta.nvar, model.meta.ncon, model.meta.nnzj
    );
    println!(
        "{:<22} {:>10} {:>5} {:>18} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "kkt", "status", "iter", "objective", "total s", "callb s", "fact s", "solve s", "rest s"
    );
    let settings = [
        ("augmented LDLT", KktKind::Augmented, LinearSolverKind::Ldlt),
        ("augmented LBLT", KktKind::Augmented, LinearSolverKind::Lblt),
        ("condensed LLT", KktKind::Condensed, LinearSolverKind::Ldlt),
    ];
    for (name, kkt, ls) in settings {
        let o = Options {
            kkt,
            linear_solver: ls,
            print_level,
            ..Options::default()
        };
        match solve(&model, &o) {
            Ok(r) => println!(
                "{:<22} {:>10} {:>5} {:>18.10e} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
                name,
                format!("{:?}", r.status)
                    .chars()
                    .take(10)
                    .collect::<String>(),
                r.iterations,
                r.objective,
                r.timings.total,
                r.timings.callbacks,
                r.timings.factorization,
                r.timings.solves,
                r.timings.rest
            ),
            Err(e) => println!("{name:<22} error: {e}"),
        }
    }
}
