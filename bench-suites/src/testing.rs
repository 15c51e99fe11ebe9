//! Test support shared by the suites' tests: a deterministic RNG, one
//! finite-difference checker for every callback of an [`NlpModel<f64>`], and
//! [`pglib_case_or_skip`] for tests of PGLIB-OPF cases that are not in the repository.
//!
//! [`check_derivatives`] checks, at a random point near the model's start `x0`:
//!
//! - the COO structures: Jacobian entries inside `ncon × nvar`, Hessian entries inside
//!   `nvar × nvar` and in the lower triangle (`col <= row`);
//! - that `obj`, `grad`, `cons`, `jac_coord` and `hess_coord` return finite values there;
//! - the gradient against central differences of `obj`;
//! - the Jacobian (`jac_coord`, duplicates summed) against central differences of `cons`;
//! - the Hessian of the Lagrangian `σ f(x) + yᵀ c(x)` (`hess_coord` with random `y` and
//!   weight `σ`, lower triangle, duplicates summed, mirrored) against central differences
//!   of its gradient `σ ∇f(x) + J(x)ᵀ y`, with `J(x)` from `jac_coord`;
//! - `jprod`, `jtprod` and `hprod` against the products computed from the COO matrices.
//!
//! The derivatives are checked along directions: every unit direction `e_j` (column `j`
//! of the Jacobian and Hessian, entry `j` of the gradient) when the model has at most
//! [`FdOptions::full_upto`] variables, plus [`FdOptions::random_directions`] random
//! directions for every model (each catches a wrong entry with probability one, so large
//! models are still covered).
//!
//! # Steps and tolerance
//!
//! Central differences `(φ(x + h d) − φ(x − h d)) / 2h`. Along `e_j` the step is
//! `h = step · max(1, |x_j|)`; a random direction has entries
//! `d_i = max(1, |x_i|) · u_i` with `u_i` uniform in `[-1, 1)` and the step is `h = step`
//! (so every coordinate moves by at most `step · max(1, |x_i|)` either way).
//!
//! An analytic value `a` passes against its reference `r` (the finite difference, or for
//! the products the value computed from the COO matrix) when
//!
//! ```text
//! |a − r| <= rtol · (1 + max(|a|, S))
//! ```
//!
//! where `S = 0` with [`ToleranceScale::Entry`] (a relative test per entry) and, with
//! [`ToleranceScale::Vector`], `S` is the largest `|a|` of the vector the entry belongs to
//! (the whole gradient; one Jacobian or Hessian column; one directional derivative; one
//! product), which forgives round-off in small entries next to large ones. `rtol` is
//! [`FdOptions::rtol`] for derivatives and [`FdOptions::product_rtol`] for products. A NaN
//! or infinite value on either side always fails.
//!
//! Failures `panic!` (this is test code): the message names the model, the derivative,
//! the row/column (or direction) index, the analytic and reference values, the error and
//! the tolerance.
//!
//! Users check their models with the solver's checker, `simdnlp_solver::check_derivatives`
//! (Ipopt's `derivative_test`: a report of the worst entries with block names; the test
//! `tests/derivative_check.rs` runs it on every registered small instance). This one is the
//! stricter test support: it also checks the COO structures and the matrix-free products,
//! covers models too large for one difference per column with random directions, and
//! needs no solver (it builds without the `solver` feature).

use std::path::PathBuf;

use simdnlp_modeling::NlpModel;

use crate::opf::{BUNDLED_CASES, PglibDirs, short_name};

/// Writes `message` (one line) straight to the process's stderr, where `cargo test` shows
/// it even for a passing test (the test harness captures only `print!`/`eprint!`).
pub fn say_skipped(message: &str) {
    use std::io::Write;
    // nothing to do if stderr is closed
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// The path of PGLIB-OPF case `name` for test `test`, or `None` after printing (to stderr,
/// with [`say_skipped`]) that the test skipped the case because its file is not found. Only cases outside
/// [`BUNDLED_CASES`] may be skipped: a bundled case that cannot be found is a broken
/// checkout, and this panics with the reason.
///
/// CI runs with the complete library beside the checkout, so the skipped cases run there;
/// a fresh clone runs the bundled ones.
pub fn pglib_case_or_skip(test: &str, name: &str) -> Option<PathBuf> {
    let found = PglibDirs::locate(None).and_then(|dirs| dirs.case_path(name));
    match found {
        Ok(path) => Some(path),
        Err(e) if !BUNDLED_CASES.contains(&short_name(name)) => {
            say_skipped(&format!("{test}: skipped PGLIB-OPF case {name}: {e}"));
            None
        }
        Err(e) => panic!("{test}: bundled PGLIB-OPF case {name} not found: {e}"),
    }
}

/// Deterministic pseudo-random numbers uniform in `[-1, 1)` (a 64-bit linear
/// congruential generator; the same seed gives the same sequence on every platform).
#[derive(Clone, Debug)]
pub struct Lcg(u64);

impl Lcg {
    const A: u64 = 6364136223846793005;
    const C: u64 = 1442695040888963407;

    /// A generator whose sequence is determined by `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(Self::A).wrapping_add(Self::C))
    }

    /// The next number, uniform in `[-1, 1)` on a grid of spacing `2⁻⁵²`.
    // an endless stream of plain f64 reads better than an `Iterator<Item = f64>` here
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(Self::A).wrapping_add(Self::C);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    /// `len` numbers from [`Lcg::next`].
    pub fn vec(&mut self, len: usize) -> Vec<f64> {
        (0..len).map(|_| self.next()).collect()
    }
}

/// What the error of one entry is measured against (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToleranceScale {
    /// `|a − r| <= rtol · (1 + |a|)`: relative per entry.
    Entry,
    /// `|a − r| <= rtol · (1 + max(|a|, S))` with `S` the largest `|a|` of the vector the
    /// entry belongs to (gradient, Jacobian/Hessian column, directional derivative, product).
    Vector,
}

/// Options of [`check_derivatives`]; [`FdOptions::default`] gives the documented values.
#[derive(Clone, Debug)]
pub struct FdOptions {
    /// Seed of the [`Lcg`] that draws the point, `y`, the directions and the product
    /// vectors. Default 1.
    pub seed: u64,
    /// The point is `x_i = x0_i + (perturbation + relative_perturbation · |x0_i|) · u_i`,
    /// `u_i` uniform in `[-1, 1)`, so that symmetric starts do not hide errors.
    /// Default 0.1.
    pub perturbation: f64,
    /// See [`FdOptions::perturbation`]. Default 0.
    pub relative_perturbation: f64,
    /// Weight `σ` of the objective in the Lagrangian. Default 0.7 (the multipliers `y`
    /// are uniform in `[-1, 1)`).
    pub obj_weight: f64,
    /// Relative finite-difference step (see the [module docs](self)). Default 1e-6.
    pub step: f64,
    /// Tolerance of the gradient, Jacobian and Hessian checks. Default 2e-6.
    pub rtol: f64,
    /// Tolerance of `jprod`, `jtprod`, `hprod` against the COO matrices. Default 1e-12.
    pub product_rtol: f64,
    /// How an entry's error is scaled. Default [`ToleranceScale::Entry`].
    pub scale: ToleranceScale,
    /// Every unit direction is checked when `nvar <= full_upto`; larger models get the
    /// random directions only. Default 1000.
    pub full_upto: usize,
    /// Number of random directions checked for every model. Default 3.
    pub random_directions: usize,
}

impl Default for FdOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            perturbation: 0.1,
            relative_perturbation: 0.0,
            obj_weight: 0.7,
            step: 1e-6,
            rtol: 2e-6,
            product_rtol: 1e-12,
            scale: ToleranceScale::Entry,
            full_upto: 1000,
            random_directions: 3,
        }
    }
}

/// Compares analytic values with their references under the options' rule.
struct Judge<'a> {
    name: &'a str,
    scale: ToleranceScale,
}

impl Judge<'_> {
    /// Panics at the first entry of `analytic` that is not within `rtol` of `reference`;
    /// `what` names the derivative, `at(i)` the index of entry `i`.
    fn vectors(
        &self,
        what: &'static str,
        at: &dyn Fn(usize) -> String,
        analytic: &[f64],
        reference: &[f64],
        rtol: f64,
    ) {
        let s = match self.scale {
            ToleranceScale::Entry => 0.0,
            ToleranceScale::Vector => analytic.iter().fold(0.0f64, |s, v| s.max(v.abs())),
        };
        assert_eq!(
            analytic.len(),
            reference.len(),
            "{}: {what}: lengths",
            self.name
        );
        for (i, (&a, &r)) in analytic.iter().zip(reference).enumerate() {
            let err = (a - r).abs();
            let tol = rtol * (1.0 + a.abs().max(s));
            assert!(
                a.is_finite() && r.is_finite() && err <= tol,
                "{}: {what}{}: analytic {a:e} vs {} {r:e} (error {err:e} > tolerance {tol:e} = \
                 {rtol:e} · (1 + max(|analytic|, {s:e})))",
                self.name,
                at(i),
                if what.ends_with("prod") {
                    "from COO"
                } else {
                    "finite difference"
                },
            );
        }
    }
}

/// Panics unless every value is finite.
fn all_finite(name: &str, what: &str, v: &[f64]) {
    if let Some(i) = v.iter().position(|v| !v.is_finite()) {
        panic!("{name}: {what}[{i}] = {} is not finite", v[i]);
    }
}

/// Checks every derivative callback of `m` against central finite differences and the
/// matrix-free products against the COO matrices, as described in the [module
/// docs](self); panics with a message naming `name` on the first failure.
pub fn check_derivatives(name: &str, m: &dyn NlpModel<f64>, opts: &FdOptions) {
    let meta = m.meta();
    let (n, nc) = (meta.nvar, meta.ncon);
    assert_eq!(meta.x0.len(), n, "{name}: x0 has {} entries", meta.x0.len());
    let judge = Judge {
        name,
        scale: opts.scale,
    };
    let mut rng = Lcg::new(opts.seed);
    let x: Vec<f64> = meta
        .x0
        .iter()
        .map(|&v| v + (opts.perturbation + opts.relative_perturbation * v.abs()) * rng.next())
        .collect();
    let y = rng.vec(nc);
    let sigma = opts.obj_weight;

    // values at x
    let f = m.obj(&x);
    all_finite(name, "obj", &[f]);
    let mut g = vec![0.0; n];
    m.grad(&x, &mut g);
    all_finite(name, "grad", &g);
    let mut c = vec![0.0; nc];
    m.cons(&x, &mut c);
    all_finite(name, "cons", &c);

    // COO matrices
    let (mut jr, mut jc, mut jv) = (vec![0; meta.nnzj], vec![0; meta.nnzj], vec![0.0; meta.nnzj]);
    m.jac_structure(&mut jr, &mut jc);
    for k in 0..jr.len() {
        assert!(
            jr[k] < nc && jc[k] < n,
            "{name}: Jacobian entry {k} at ({}, {}) outside {nc} × {n}",
            jr[k],
            jc[k]
        );
    }
    m.jac_coord(&x, &mut jv);
    all_finite(name, "jac_coord", &jv);
    let (mut hr, mut hc, mut hv) = (vec![0; meta.nnzh], vec![0; meta.nnzh], vec![0.0; meta.nnzh]);
    m.hess_structure(&mut hr, &mut hc);
    for k in 0..hr.len() {
        assert!(
            hr[k] < n && hc[k] <= hr[k],
            "{name}: Hessian entry {k} at ({}, {}) not in the lower triangle of {n} × {n}",
            hr[k],
            hc[k]
        );
    }
    m.hess_coord(&x, &y, sigma, &mut hv);
    all_finite(name, "hess_coord", &hv);

    let jac_times = |d: &[f64]| {
        let mut out = vec![0.0; nc];
        for k in 0..jv.len() {
            out[jr[k]] += jv[k] * d[jc[k]];
        }
        out
    };
    let jac_t_times = |w: &[f64]| {
        let mut out = vec![0.0; n];
        for k in 0..jv.len() {
            out[jc[k]] += jv[k] * w[jr[k]];
        }
        out
    };
    let hess_times = |d: &[f64]| {
        let mut out = vec![0.0; n];
        for k in 0..hv.len() {
            out[hr[k]] += hv[k] * d[hc[k]];
            if hr[k] != hc[k] {
                out[hc[k]] += hv[k] * d[hr[k]];
            }
        }
        out
    };
    // σ ∇f + Jᵀy, with J from jac_coord at that point
    let lag_grad = |xx: &[f64]| {
        let mut out = vec![0.0; n];
        m.grad(xx, &mut out);
        out.iter_mut().for_each(|v| *v *= sigma);
        let mut vals = vec![0.0; jv.len()];
        m.jac_coord(xx, &mut vals);
        for k in 0..vals.len() {
            out[jc[k]] += vals[k] * y[jr[k]];
        }
        out
    };
    // central differences of obj, cons and lag_grad along d with step h
    let differences = |d: &[f64], h: f64| {
        let xp: Vec<f64> = x.iter().zip(d).map(|(a, b)| a + h * b).collect();
        let xm: Vec<f64> = x.iter().zip(d).map(|(a, b)| a - h * b).collect();
        let fd_obj = (m.obj(&xp) - m.obj(&xm)) / (2.0 * h);
        let (mut cp, mut cm) = (vec![0.0; nc], vec![0.0; nc]);
        m.cons(&xp, &mut cp);
        m.cons(&xm, &mut cm);
        let fd_cons: Vec<f64> = cp
            .iter()
            .zip(&cm)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect();
        let (gp, gm) = (lag_grad(&xp), lag_grad(&xm));
        let fd_lag: Vec<f64> = gp
            .iter()
            .zip(&gm)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect();
        (fd_obj, fd_cons, fd_lag)
    };

    // every unit direction
    if n <= opts.full_upto {
        let mut fd_grad = vec![0.0; n];
        let mut e = vec![0.0; n];
        for j in 0..n {
            e[j] = 1.0;
            let (fd_obj, fd_cons, fd_lag) = differences(&e, opts.step * x[j].abs().max(1.0));
            fd_grad[j] = fd_obj;
            judge.vectors(
                "Jacobian",
                &|i| format!("[row {i}, col {j}]"),
                &jac_times(&e),
                &fd_cons,
                opts.rtol,
            );
            judge.vectors(
                "Hessian",
                &|i| format!("[row {i}, col {j}]"),
                &hess_times(&e),
                &fd_lag,
                opts.rtol,
            );
            e[j] = 0.0;
        }
        judge.vectors("gradient", &|i| format!("[{i}]"), &g, &fd_grad, opts.rtol);
    }

    // random directions
    for k in 0..opts.random_directions {
        let d: Vec<f64> = x.iter().map(|v| v.abs().max(1.0) * rng.next()).collect();
        let (fd_obj, fd_cons, fd_lag) = differences(&d, opts.step);
        let gd: f64 = g.iter().zip(&d).map(|(a, b)| a * b).sum();
        judge.vectors(
            "gradient·d",
            &|_| format!(" (random direction {k})"),
            &[gd],
            &[fd_obj],
            opts.rtol,
        );
        judge.vectors(
            "Jacobian·d",
            &|i| format!("[row {i}] (random direction {k})"),
            &jac_times(&d),
            &fd_cons,
            opts.rtol,
        );
        judge.vectors(
            "Hessian·d",
            &|i| format!("[row {i}] (random direction {k})"),
            &hess_times(&d),
            &fd_lag,
            opts.rtol,
        );
    }

    // matrix-free products against the COO matrices
    let v = rng.vec(n);
    let w = rng.vec(nc);
    let mut out = vec![0.0; nc];
    m.jprod(&x, &v, &mut out);
    judge.vectors(
        "jprod",
        &|i| format!("[{i}]"),
        &out,
        &jac_times(&v),
        opts.product_rtol,
    );
    let mut out = vec![0.0; n];
    m.jtprod(&x, &w, &mut out);
    judge.vectors(
        "jtprod",
        &|i| format!("[{i}]"),
        &out,
        &jac_t_times(&w),
        opts.product_rtol,
    );
    m.hprod(&x, &y, sigma, &v, &mut out);
    judge.vectors(
        "hprod",
        &|i| format!("[{i}]"),
        &out,
        &hess_times(&v),
        opts.product_rtol,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdnlp_modeling::NlpMeta;

    /// `f = x₀² x₁ + sin x₁`, `c = (x₀ x₁, x₀ + e^{x₁})`, with duplicate COO entries; `bug`
    /// names one callback whose first output is off by 1e-3.
    struct Tiny {
        meta: NlpMeta,
        bug: &'static str,
    }

    impl Tiny {
        fn new(bug: &'static str) -> Self {
            let mut meta = NlpMeta::new(2, 2);
            meta.nnzj = 5;
            meta.nnzh = 4;
            meta.x0 = vec![0.5, -0.3];
            Self { meta, bug }
        }
        fn off(&self, what: &str, out: &mut [f64]) {
            if self.bug == what {
                out[0] += 1e-3;
            }
        }
    }

    impl NlpModel for Tiny {
        fn meta(&self) -> &NlpMeta {
            &self.meta
        }
        fn obj(&self, x: &[f64]) -> f64 {
            x[0] * x[0] * x[1] + x[1].sin()
        }
        fn grad(&self, x: &[f64], g: &mut [f64]) {
            g[0] = 2.0 * x[0] * x[1];
            g[1] = x[0] * x[0] + x[1].cos();
            self.off("grad", g);
        }
        fn cons(&self, x: &[f64], c: &mut [f64]) {
            c[0] = x[0] * x[1];
            c[1] = x[0] + x[1].exp();
        }
        fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
            rows.copy_from_slice(&[0, 0, 0, 1, 1]);
            cols.copy_from_slice(&[0, 0, 1, 0, 1]);
            if self.bug == "jac_structure" {
                rows[0] = 2;
            }
        }
        fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
            vals.copy_from_slice(&[x[1] / 2.0, x[1] / 2.0, x[0], 1.0, x[1].exp()]);
            self.off("jac_coord", vals);
        }
        fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
            rows.copy_from_slice(&[0, 1, 1, 1]);
            cols.copy_from_slice(&[0, 0, 0, 1]);
            if self.bug == "hess_structure" {
                (rows[1], cols[1]) = (0, 1);
            }
        }
        fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, vals: &mut [f64]) {
            vals.copy_from_slice(&[
                2.0 * w * x[1],
                2.0 * w * x[0],
                y[0],
                -w * x[1].sin() + y[1] * x[1].exp(),
            ]);
            self.off("hess_coord", vals);
        }
        fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
            jv[0] = x[1] * v[0] + x[0] * v[1];
            jv[1] = v[0] + x[1].exp() * v[1];
            self.off("jprod", jv);
        }
        fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
            jtv[0] = x[1] * v[0] + v[1];
            jtv[1] = x[0] * v[0] + x[1].exp() * v[1];
            self.off("jtprod", jtv);
        }
        fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
            let off = 2.0 * w * x[0] + y[0];
            hv[0] = 2.0 * w * x[1] * v[0] + off * v[1];
            hv[1] = off * v[0] + (-w * x[1].sin() + y[1] * x[1].exp()) * v[1];
            self.off("hprod", hv);
        }
    }

    #[test]
    fn lcg_is_deterministic_and_in_range() {
        let (a, b) = (Lcg::new(5).vec(1000), Lcg::new(5).vec(1000));
        assert_eq!(a, b);
        assert!(a.iter().all(|v| (-1.0..1.0).contains(v)));
        assert_ne!(a, Lcg::new(6).vec(1000));
    }

    #[test]
    fn correct_model_passes_in_both_modes() {
        for scale in [ToleranceScale::Entry, ToleranceScale::Vector] {
            for full_upto in [0, 2] {
                let opts = FdOptions {
                    scale,
                    full_upto,
                    ..FdOptions::default()
                };
                check_derivatives("tiny", &Tiny::new(""), &opts);
            }
        }
    }

    /// Every seeded bug is caught, with unit directions and with random directions only.
    #[test]
    fn every_wrong_callback_fails() {
        let cases = [
            ("grad", "tiny: gradient"),
            ("jac_coord", "tiny: Jacobian"),
            ("hess_coord", "tiny: Hessian"),
            ("jprod", "tiny: jprod[0]"),
            ("jtprod", "tiny: jtprod[0]"),
            ("hprod", "tiny: hprod[0]"),
            ("jac_structure", "tiny: Jacobian entry 0 at (2, 0) outside"),
            (
                "hess_structure",
                "tiny: Hessian entry 1 at (0, 1) not in the lower triangle",
            ),
        ];
        for (bug, want) in cases {
            for full_upto in [0, 2] {
                let opts = FdOptions {
                    full_upto,
                    ..FdOptions::default()
                };
                let err =
                    std::panic::catch_unwind(|| check_derivatives("tiny", &Tiny::new(bug), &opts))
                        .expect_err(bug);
                let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
                assert!(msg.starts_with(want), "{bug}: {msg}");
            }
        }
    }

    #[test]
    fn failure_names_row_column_and_values() {
        let opts = FdOptions::default();
        let err =
            std::panic::catch_unwind(|| check_derivatives("tiny", &Tiny::new("hess_coord"), &opts))
                .unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(
            msg.starts_with("tiny: Hessian[row 0, col 0]: analytic "),
            "{msg}"
        );
        assert!(msg.contains("vs finite difference"), "{msg}");
    }

    #[test]
    fn nan_fails() {
        struct NanGrad(Tiny);
        impl NlpModel for NanGrad {
            fn meta(&self) -> &NlpMeta {
                self.0.meta()
            }
            fn obj(&self, x: &[f64]) -> f64 {
                self.0.obj(x)
            }
            fn grad(&self, x: &[f64], g: &mut [f64]) {
                self.0.grad(x, g);
                g[1] = f64::NAN;
            }
            fn cons(&self, x: &[f64], c: &mut [f64]) {
                self.0.cons(x, c)
            }
            fn jac_structure(&self, r: &mut [usize], c: &mut [usize]) {
                self.0.jac_structure(r, c)
            }
            fn jac_coord(&self, x: &[f64], v: &mut [f64]) {
                self.0.jac_coord(x, v)
            }
            fn hess_structure(&self, r: &mut [usize], c: &mut [usize]) {
                self.0.hess_structure(r, c)
            }
            fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, v: &mut [f64]) {
                self.0.hess_coord(x, y, w, v)
            }
            fn jprod(&self, x: &[f64], v: &[f64], o: &mut [f64]) {
                self.0.jprod(x, v, o)
            }
            fn jtprod(&self, x: &[f64], v: &[f64], o: &mut [f64]) {
                self.0.jtprod(x, v, o)
            }
            fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], o: &mut [f64]) {
                self.0.hprod(x, y, w, v, o)
            }
        }
        let err = std::panic::catch_unwind(|| {
            check_derivatives("tiny", &NanGrad(Tiny::new("")), &FdOptions::default())
        })
        .unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert_eq!(msg, "tiny: grad[1] = NaN is not finite");
    }
}
