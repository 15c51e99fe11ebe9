//! Finite-difference derivative checker for any [`NlpModel`] (Ipopt's `derivative_test`).
//!
//! [`check_derivatives`] compares, at a point near the model's start, the model's exact
//! derivatives with finite differences of the lower-order callbacks:
//!
//! - first order: the gradient `∇f` against differences of `obj`, and the Jacobian (every
//!   `jac_structure` entry, duplicates summed) against differences of `cons`;
//! - second order: the Hessian of the Lagrangian `σ ∇²f + Σ y_i ∇²c_i` (`hess_coord`, lower
//!   triangle, duplicates summed) with a random weight `σ ∈ [0.5, 1.5)` and random
//!   multipliers `y ∈ [-1, 1)` (fixed seed) against differences of the Lagrangian's gradient
//!   `σ ∇f + J(x)ᵀ y` (with `J` from `jac_coord`, so check first order before second).
//!
//! Every column `j` is differenced once: `e_j` is perturbed by
//! `h_j = perturbation · max(1, |x_j|)` (forward differences by default, as Ipopt; central
//! differences with [`DifferenceScheme::Central`]). An entry `(analytic a, difference d)`
//! has the relative error `|a − d| / max(1, |d|)` and fails when that exceeds the tolerance
//! (a NaN or infinite value always fails) **and** `|a − d|` exceeds the round-off the
//! difference itself carries, `10 ε (|φ₊| + |φ₋|) / width` for the differenced values
//! `φ₊`, `φ₋` (unlike Ipopt, which reports such entries: on badly scaled models, say a
//! Lagrangian gradient of 1e13 next to a Hessian entry of 0.1, no finite difference can
//! resolve the entry, and flagging it would hide real errors). Entries outside the sparsity structure are
//! analytic zeros: they are compared too (and fail, marked `v~` in the log, when the
//! difference is not ~0), so a missing structure entry is found.
//!
//! # Point
//! With `point_perturbation_radius` `r > 0` (Ipopt's default 10) every variable is drawn
//! uniformly from `[max(lvar, x0 − r), min(uvar, x0 + r)]`, so symmetric starts do not
//! hide errors; with `r = 0` the check runs at `x0` itself (projected into the bounds).
//!
//! # Cost
//! `nvar` evaluations of `obj`, `cons` (first order) and `grad` + `jac_coord` (second
//! order), two of each with central differences: a test for small and medium instances.
//!
//! # Example
//! ```
//! use simdnlp_modeling::{NlpMeta, NlpModel};
//! use simdnlp_solver::{DerivativeCheckOptions, check_derivatives};
//!
//! /// min x0² x1 with a wrong Hessian entry (∂²f/∂x0² is 2 x1, written as x1).
//! struct Wrong(NlpMeta<f64>);
//! impl NlpModel for Wrong {
//!     fn meta(&self) -> &NlpMeta<f64> { &self.0 }
//!     fn obj(&self, x: &[f64]) -> f64 { x[0] * x[0] * x[1] }
//!     fn grad(&self, x: &[f64], g: &mut [f64]) {
//!         g[0] = 2.0 * x[0] * x[1];
//!         g[1] = x[0] * x[0];
//!     }
//!     fn cons(&self, _x: &[f64], _c: &mut [f64]) {}
//!     fn jac_structure(&self, _r: &mut [usize], _c: &mut [usize]) {}
//!     fn jac_coord(&self, _x: &[f64], _v: &mut [f64]) {}
//!     fn hess_structure(&self, r: &mut [usize], c: &mut [usize]) {
//!         r.copy_from_slice(&[0, 1]);
//!         c.copy_from_slice(&[0, 0]);
//!     }
//!     fn hess_coord(&self, x: &[f64], _y: &[f64], w: f64, v: &mut [f64]) {
//!         v.copy_from_slice(&[w * x[1], w * 2.0 * x[0]]);
//!     }
//!     fn jprod(&self, _x: &[f64], _v: &[f64], _jv: &mut [f64]) {}
//!     fn jtprod(&self, _x: &[f64], _v: &[f64], jtv: &mut [f64]) { jtv.fill(0.0); }
//!     fn hprod(&self, x: &[f64], _y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
//!         hv[0] = w * (x[1] * v[0] + 2.0 * x[0] * v[1]);
//!         hv[1] = w * 2.0 * x[0] * v[0];
//!     }
//! }
//!
//! let mut meta = NlpMeta::new(2, 0);
//! meta.nnzh = 2;
//! meta.x0 = vec![1.0, 2.0];
//! let report = check_derivatives(&Wrong(meta), &DerivativeCheckOptions::default())?;
//! assert_eq!(report.failed(), 1);
//! let worst = &report.worst[0];
//! assert_eq!((worst.row, worst.col), (0, 0));
//! println!("{report}"); // Ipopt-style lines, `*  lag_hess [0, 0] = ... ~ ... [...]`
//! # Ok::<(), simdnlp_solver::SolverError>(())
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use simdnlp_modeling::{MetaError, NlpModel};

use crate::options::{Options, PrintLevel};
use crate::result::SolverError;

/// Which derivatives the checker compares (Ipopt's `derivative_test`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum DerivativeTest {
    /// No check (the default).
    #[default]
    None,
    /// Gradient and Jacobian.
    FirstOrder,
    /// Gradient, Jacobian and the Hessian of the Lagrangian.
    SecondOrder,
    /// The Hessian of the Lagrangian only.
    OnlySecondOrder,
}

impl DerivativeTest {
    /// Whether the gradient and Jacobian are checked.
    pub fn first_order(self) -> bool {
        matches!(
            self,
            DerivativeTest::FirstOrder | DerivativeTest::SecondOrder
        )
    }

    /// Whether the Hessian of the Lagrangian is checked.
    pub fn second_order(self) -> bool {
        matches!(
            self,
            DerivativeTest::SecondOrder | DerivativeTest::OnlySecondOrder
        )
    }
}

/// How a column is differenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DifferenceScheme {
    /// `(φ(x + h e_j) − φ(x)) / h` (Ipopt's; one evaluation per column). The default.
    #[default]
    Forward,
    /// `(φ(x + h e_j) − φ(x − h e_j)) / 2h`: second-order accurate, two evaluations per
    /// column; use with a larger perturbation (~1e-6) for models with large values.
    Central,
}

/// Settings of [`check_derivatives`]. [`DerivativeCheckOptions::default`] has Ipopt's
/// defaults and checks first and second derivatives; [`DerivativeCheckOptions::from`] an
/// [`Options`] takes the `derivative_test*` and `point_perturbation_radius` options.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivativeCheckOptions {
    /// Which derivatives are compared. Default [`DerivativeTest::SecondOrder`].
    pub test: DerivativeTest,
    /// Relative error above which an entry fails (`derivative_test_tol`). Default 1e-4.
    pub tol: f64,
    /// Relative step `h_j = perturbation · max(1, |x_j|)`
    /// (`derivative_test_perturbation`). Default 1e-8.
    pub perturbation: f64,
    /// Whether the report keeps (and the log prints) every compared entry, not only the
    /// worst ones (`derivative_test_print_all`). Default `false`.
    pub print_all: bool,
    /// Radius of the random point around `x0`; `0` checks at `x0`
    /// (`point_perturbation_radius`). Default 10.
    pub point_perturbation_radius: f64,
    /// Forward (Ipopt's) or central differences. Default [`DifferenceScheme::Forward`].
    pub scheme: DifferenceScheme,
    /// How many of the worst entries the report keeps (when not `print_all`). Default 10.
    pub max_reported: usize,
    /// Seed of the random point, `σ` and `y`. Default 1.
    pub seed: u64,
    /// Check at most this many columns (variables), evenly spread: every `k`-th column
    /// with `k = ⌈nvar / max_columns⌉`, each against every row. Default `usize::MAX` (all
    /// columns, as Ipopt); a smaller value bounds the cost on large models.
    pub max_columns: usize,
}

impl Default for DerivativeCheckOptions {
    fn default() -> Self {
        Self {
            test: DerivativeTest::SecondOrder,
            tol: 1e-4,
            perturbation: 1e-8,
            print_all: false,
            point_perturbation_radius: 10.0,
            scheme: DifferenceScheme::Forward,
            max_reported: 10,
            seed: 1,
            max_columns: usize::MAX,
        }
    }
}

impl From<&Options> for DerivativeCheckOptions {
    fn from(o: &Options) -> Self {
        Self {
            test: o.derivative_test,
            tol: o.derivative_test_tol,
            perturbation: o.derivative_test_perturbation,
            print_all: o.derivative_test_print_all,
            point_perturbation_radius: o.point_perturbation_radius,
            ..Self::default()
        }
    }
}

/// Which derivative an entry belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum DerivativeKind {
    /// `∇f`: `row` is 0, `col` the variable.
    Gradient,
    /// The constraint Jacobian: `row` the constraint, `col` the variable.
    Jacobian,
    /// The Hessian of the Lagrangian, lower triangle (`row >= col`, both variables).
    Hessian,
}

impl DerivativeKind {
    /// Ipopt's name of the derivative in the log (`grad_f`, `jac_g`, `lag_hess`).
    pub fn log_name(self) -> &'static str {
        match self {
            DerivativeKind::Gradient => "grad_f",
            DerivativeKind::Jacobian => "jac_g",
            DerivativeKind::Hessian => "lag_hess",
        }
    }
}

/// One compared derivative entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DerivativeEntry {
    /// Which derivative.
    pub kind: DerivativeKind,
    /// Row: 0 for the gradient, the constraint for the Jacobian, a variable for the
    /// Hessian.
    pub row: usize,
    /// Column: a variable.
    pub col: usize,
    /// The model's value (0 outside the sparsity structure).
    pub analytic: f64,
    /// The finite difference.
    pub finite_difference: f64,
    /// `|analytic − finite_difference| / max(1, |finite_difference|)` (∞ when either is
    /// not finite).
    pub relative_error: f64,
    /// The round-off the finite difference may carry:
    /// `10 ε (|φ(x + h e_j)| + |φ(x − h e_j)|) / width` (`φ(x)` for forward differences);
    /// an entry whose absolute error is within it does not fail.
    pub round_off: f64,
    /// Whether the entry is in the model's sparsity structure.
    pub in_structure: bool,
    /// Whether the entry fails: its relative error exceeds the tolerance and its absolute
    /// error exceeds the round-off of the difference.
    pub failed: bool,
    /// The block of the row (constraint block for the Jacobian, variable block for the
    /// Hessian) and the position in it, when the model names blocks
    /// ([`NlpModel::con_block`], [`NlpModel::var_block`]).
    /// Written as [`simdnlp_modeling::BlockPosition`] displays it: `name[i, j]`.
    pub row_block: Option<String>,
    /// The variable block of the column and the position in it, as `row_block`.
    pub col_block: Option<String>,
}

/// Compared and failed entries of one derivative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryCounts {
    /// Entries compared (structure entries, and every entry the difference found nonzero
    /// outside the structure).
    pub checked: usize,
    /// Entries whose relative error exceeds the tolerance.
    pub failed: usize,
}

/// The outcome of [`check_derivatives`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DerivativeReport {
    /// The model's name ([`simdnlp_modeling::NlpMeta::name`]).
    pub model: String,
    /// Which derivatives were compared.
    pub test: DerivativeTest,
    /// The tolerance the entries were judged by.
    pub tol: f64,
    /// The point of the check (length `nvar`).
    pub x: Vec<f64>,
    /// Gradient counts.
    pub gradient: EntryCounts,
    /// Jacobian counts.
    pub jacobian: EntryCounts,
    /// Hessian counts.
    pub hessian: EntryCounts,
    /// The entries with the largest relative errors, worst first: at most
    /// `max_reported`, or every compared entry with `print_all` (then in the order
    /// checked: gradient, Jacobian, Hessian, by column).
    pub worst: Vec<DerivativeEntry>,
}

impl DerivativeReport {
    /// Number of entries compared.
    pub fn checked(&self) -> usize {
        self.gradient.checked + self.jacobian.checked + self.hessian.checked
    }

    /// Number of entries whose relative error exceeds the tolerance.
    pub fn failed(&self) -> usize {
        self.gradient.failed + self.jacobian.failed + self.hessian.failed
    }

    /// `true` when no entry failed.
    pub fn passed(&self) -> bool {
        self.failed() == 0
    }
}

/// Deterministic numbers uniform in `[0, 1)` (64-bit linear congruential generator).
struct Uniform(u64);

impl Uniform {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(6364136223846793005).wrapping_add(1))
    }
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A COO matrix as columns: for column `j`, the `(row, summed value)` pairs of
/// `entries[starts[j]..starts[j + 1]]`, rows ascending and distinct.
struct Columns {
    starts: Vec<usize>,
    entries: Vec<(usize, f64)>,
}

impl Columns {
    /// From COO triplets (duplicates summed); `symmetric` adds the mirror `(c, r)` of every
    /// off-diagonal entry.
    fn from_coo(
        ncols: usize,
        rows: &[usize],
        cols: &[usize],
        vals: &[f64],
        symmetric: bool,
    ) -> Self {
        let mut triplets: Vec<(usize, usize, f64)> = Vec::with_capacity(2 * rows.len());
        for k in 0..rows.len() {
            triplets.push((cols[k], rows[k], vals[k]));
            if symmetric && rows[k] != cols[k] {
                triplets.push((rows[k], cols[k], vals[k]));
            }
        }
        triplets.sort_by_key(|&(c, r, _)| (c, r));
        let mut starts = vec![0; ncols + 1];
        let mut entries: Vec<(usize, f64)> = Vec::with_capacity(triplets.len());
        let mut last = None;
        for (c, r, v) in triplets {
            if last == Some((c, r)) {
                if let Some(e) = entries.last_mut() {
                    e.1 += v;
                }
            } else {
                entries.push((r, v));
                starts[c + 1] += 1;
                last = Some((c, r));
            }
        }
        for j in 0..ncols {
            starts[j + 1] += starts[j];
        }
        Self { starts, entries }
    }

    fn column(&self, j: usize) -> &[(usize, f64)] {
        &self.entries[self.starts[j]..self.starts[j + 1]]
    }
}

/// A finite difference `(φ₊ − φ₋) / width` and the round-off it may carry.
#[derive(Clone, Copy)]
struct Difference {
    value: f64,
    round_off: f64,
}

impl Difference {
    /// Rounding in `φ₊` and `φ₋` (at most [`ROUND_OFF_ULPS`] units in the last place of
    /// each), divided by the width.
    fn new(plus: f64, minus: f64, width: f64) -> Self {
        Self {
            value: (plus - minus) / width,
            round_off: ROUND_OFF_ULPS * f64::EPSILON * (plus.abs() + minus.abs()) / width,
        }
    }
}

/// How many units in the last place of a function value the round-off estimate of a
/// difference allows (evaluations that sum terms round more than once).
const ROUND_OFF_ULPS: f64 = 10.0;

/// Collects compared entries: counts per kind, and the worst (or all) entries.
struct Collector {
    tol: f64,
    keep: usize,
    keep_all: bool,
    counts: [EntryCounts; 3],
    entries: Vec<DerivativeEntry>,
}

impl Collector {
    fn add(
        &mut self,
        kind: DerivativeKind,
        row: usize,
        col: usize,
        analytic: f64,
        difference: Difference,
        in_structure: bool,
    ) {
        let Difference {
            value: fd,
            round_off,
        } = difference;
        let relative_error = if analytic.is_finite() && fd.is_finite() {
            (analytic - fd).abs() / fd.abs().max(1.0)
        } else {
            f64::INFINITY
        };
        // outside the structure only a nonzero difference is an entry
        if !in_structure && relative_error == 0.0 {
            return;
        }
        // false for a NaN error or round-off, so such an entry fails
        let within_round_off = (analytic - fd).abs() <= round_off;
        let failed = relative_error > self.tol && !within_round_off;
        let counts = &mut self.counts[kind as usize];
        counts.checked += 1;
        counts.failed += usize::from(failed);
        if !self.keep_all && self.keep == 0 {
            return;
        }
        self.entries.push(DerivativeEntry {
            kind,
            row,
            col,
            analytic,
            finite_difference: fd,
            relative_error,
            round_off,
            in_structure,
            failed,
            row_block: None,
            col_block: None,
        });
        if !self.keep_all && self.entries.len() >= 4 * self.keep.max(16) {
            self.keep_worst();
        }
    }

    fn keep_worst(&mut self) {
        self.entries.sort_by(|a, b| {
            (b.failed, b.relative_error)
                .partial_cmp(&(a.failed, a.relative_error))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        self.entries.truncate(self.keep);
    }
}

/// Checks the derivatives of `model` against finite differences as described in the
/// [module docs](self), at a random point near the start (`point_perturbation_radius`)
/// with a random objective weight and random multipliers, and reports the worst entries,
/// with block names when the model has them. `opts.test == DerivativeTest::None`
/// compares nothing.
///
/// # Errors
/// [`SolverError::BadMeta`] when the model's meta data break their invariants,
/// [`SolverError::BadStructure`] when a Jacobian entry is outside `ncon × nvar` or a
/// Hessian entry outside the lower triangle of `nvar × nvar`.
pub fn check_derivatives(
    model: &dyn NlpModel,
    opts: &DerivativeCheckOptions,
) -> Result<DerivativeReport, SolverError> {
    let meta = model.meta();
    meta.validate()?;
    let mut rng = Uniform::new(opts.seed);
    let radius = opts.point_perturbation_radius;
    let x: Vec<f64> = (0..meta.nvar)
        .map(|i| {
            let (l, u, x0) = (meta.lvar[i], meta.uvar[i], meta.x0[i]);
            let (lo, hi) = (l.max(x0 - radius), u.min(x0 + radius));
            let at = if radius > 0.0 && lo <= hi {
                lo + rng.next() * (hi - lo)
            } else {
                x0
            };
            at.max(l).min(u)
        })
        .collect();
    let obj_weight = 0.5 + rng.next();
    let y: Vec<f64> = (0..meta.ncon).map(|_| 2.0 * rng.next() - 1.0).collect();
    check_derivatives_at(model, &x, &y, obj_weight, opts)
}

/// [`check_derivatives`] at a given point `x` (length `nvar`), with given multipliers `y`
/// (length `ncon`) and objective weight in the Lagrangian; `opts.point_perturbation_radius`
/// and `opts.seed` are not used.
///
/// # Errors
/// [`SolverError::BadMeta`] when `x` or `y` has the wrong length (`what` is `x` or `y`),
/// [`SolverError::BadStructure`] as for [`check_derivatives`].
pub fn check_derivatives_at(
    model: &dyn NlpModel,
    x: &[f64],
    y: &[f64],
    obj_weight: f64,
    opts: &DerivativeCheckOptions,
) -> Result<DerivativeReport, SolverError> {
    let meta = model.meta();
    let (n, m) = (meta.nvar, meta.ncon);
    for (what, expected, got) in [("x", n, x.len()), ("y", m, y.len())] {
        if expected != got {
            return Err(MetaError::BadLength {
                what,
                expected,
                got,
            }
            .into());
        }
    }
    let (mut jr, mut jc) = (vec![0; meta.nnzj], vec![0; meta.nnzj]);
    model.jac_structure(&mut jr, &mut jc);
    check_structure("jacobian", &jr, &jc, (m, n), |_, _| true)?;
    let (mut hr, mut hc) = (vec![0; meta.nnzh], vec![0; meta.nnzh]);
    model.hess_structure(&mut hr, &mut hc);
    check_structure("hessian", &hr, &hc, (n, n), |r, c| c <= r)?;
    let sigma = obj_weight;
    let mut out = Collector {
        tol: opts.tol,
        keep: opts.max_reported,
        keep_all: opts.print_all,
        counts: [EntryCounts::default(); 3],
        entries: Vec::new(),
    };

    // σ ∇f + J(at)ᵀ y
    let mut jv = vec![0.0; meta.nnzj];
    let mut lag_grad = |at: &[f64], g: &mut [f64]| {
        model.grad(at, g);
        g.iter_mut().for_each(|v| *v *= sigma);
        model.jac_coord(at, &mut jv);
        for k in 0..jv.len() {
            g[jc[k]] += jv[k] * y[jr[k]];
        }
    };
    let step = |j: usize| opts.perturbation * x[j].abs().max(1.0);
    let stride = n.div_ceil(opts.max_columns.max(1)).max(1);
    let central = opts.scheme == DifferenceScheme::Central;
    let mut xp = x.to_vec();

    if opts.test.first_order() {
        let mut g = vec![0.0; n];
        model.grad(x, &mut g);
        let mut vals = vec![0.0; meta.nnzj];
        model.jac_coord(x, &mut vals);
        let jac = Columns::from_coo(n, &jr, &jc, &vals, false);
        let f0 = model.obj(x);
        let mut c0 = vec![0.0; m];
        model.cons(x, &mut c0);
        let (mut cp, mut cm) = (vec![0.0; m], vec![0.0; m]);
        let mut in_column = vec![false; m];
        for j in (0..n).step_by(stride) {
            let h = step(j);
            xp[j] = x[j] + h;
            let fp = model.obj(&xp);
            model.cons(&xp, &mut cp);
            let (fm, width) = if central {
                xp[j] = x[j] - h;
                model.cons(&xp, &mut cm);
                (model.obj(&xp), 2.0 * h)
            } else {
                cm.copy_from_slice(&c0);
                (f0, h)
            };
            xp[j] = x[j];
            let fd = |i: usize| Difference::new(cp[i], cm[i], width);
            out.add(
                DerivativeKind::Gradient,
                0,
                j,
                g[j],
                Difference::new(fp, fm, width),
                true,
            );
            for &(i, a) in jac.column(j) {
                in_column[i] = true;
                out.add(DerivativeKind::Jacobian, i, j, a, fd(i), true);
            }
            for i in 0..m {
                if !in_column[i] {
                    out.add(DerivativeKind::Jacobian, i, j, 0.0, fd(i), false);
                }
            }
            for &(i, _) in jac.column(j) {
                in_column[i] = false;
            }
        }
    }

    if opts.test.second_order() {
        let mut vals = vec![0.0; meta.nnzh];
        model.hess_coord(x, y, sigma, &mut vals);
        let hess = Columns::from_coo(n, &hr, &hc, &vals, true);
        let mut g0 = vec![0.0; n];
        lag_grad(x, &mut g0);
        let (mut gp, mut gm) = (vec![0.0; n], vec![0.0; n]);
        let mut in_column = vec![false; n];
        for j in (0..n).step_by(stride) {
            let h = step(j);
            xp[j] = x[j] + h;
            lag_grad(&xp, &mut gp);
            let width = if central {
                xp[j] = x[j] - h;
                lag_grad(&xp, &mut gm);
                2.0 * h
            } else {
                gm.copy_from_slice(&g0);
                h
            };
            xp[j] = x[j];
            let fd = |i: usize| Difference::new(gp[i], gm[i], width);
            // the lower triangle of column j: rows i >= j
            for &(i, a) in hess.column(j) {
                in_column[i] = true;
                if i >= j {
                    out.add(DerivativeKind::Hessian, i, j, a, fd(i), true);
                }
            }
            for i in j..n {
                if !in_column[i] {
                    out.add(DerivativeKind::Hessian, i, j, 0.0, fd(i), false);
                }
            }
            for &(i, _) in hess.column(j) {
                in_column[i] = false;
            }
        }
    }

    if !out.keep_all {
        out.keep_worst();
    }
    let owned = |b: Option<simdnlp_modeling::BlockPosition>| b.map(|p| p.to_string());
    for e in &mut out.entries {
        e.row_block = match e.kind {
            DerivativeKind::Gradient => None,
            DerivativeKind::Jacobian => owned(model.con_block(e.row)),
            DerivativeKind::Hessian => owned(model.var_block(e.row)),
        };
        e.col_block = owned(model.var_block(e.col));
    }
    let [gradient, jacobian, hessian] = out.counts;
    Ok(DerivativeReport {
        model: meta.name.clone(),
        test: opts.test,
        tol: opts.tol,
        x: x.to_vec(),
        gradient,
        jacobian,
        hessian,
        worst: out.entries,
    })
}

/// `Err(BadStructure)` at the first COO entry outside `shape` or failing `keep(row, col)`.
fn check_structure(
    what: &'static str,
    rows: &[usize],
    cols: &[usize],
    (nrows, ncols): (usize, usize),
    keep: impl Fn(usize, usize) -> bool,
) -> Result<(), SolverError> {
    for (entry, (&row, &col)) in rows.iter().zip(cols).enumerate() {
        if row >= nrows || col >= ncols || !keep(row, col) {
            return Err(SolverError::BadStructure {
                what,
                entry,
                row,
                col,
                nrows,
                ncols,
            });
        }
    }
    Ok(())
}

/// `name[k]` of a block position, `-` without one.
struct BlockAt<'a>(&'a Option<String>);

impl fmt::Display for BlockAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(position) => f.write_str(position),
            None => f.write_str("-"),
        }
    }
}

impl fmt::Display for DerivativeEntry {
    /// One Ipopt-style line: `*` for a failed entry (`v~` for one outside the sparsity
    /// structure, blank for a passing one), the derivative and its `[row, col]`, the
    /// analytic value `~` the finite difference, `[relative error]`, and the blocks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = match (self.failed, self.in_structure) {
            (true, false) => "v~",
            (true, true) => "* ",
            (false, _) => "  ",
        };
        let at = match self.kind {
            DerivativeKind::Gradient => format!("[{}]", self.col),
            _ => format!("[{}, {}]", self.row, self.col),
        };
        write!(
            f,
            "{mark} {:<8} {at:>14} = {:>23.16e} ~ {:>23.16e}  [{:>9.3e}]",
            self.kind.log_name(),
            self.analytic,
            self.finite_difference,
            self.relative_error
        )?;
        match self.kind {
            DerivativeKind::Gradient if self.col_block.is_some() => {
                write!(f, "  ({})", BlockAt(&self.col_block))
            }
            DerivativeKind::Gradient => Ok(()),
            _ if self.row_block.is_some() || self.col_block.is_some() => write!(
                f,
                "  ({}, {})",
                BlockAt(&self.row_block),
                BlockAt(&self.col_block)
            ),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for DerivativeReport {
    /// The Ipopt-style check: a header line, one line per reported entry, and the summary
    /// `Derivative checker detected N error(s) in M compared entries.` (or `No errors
    /// detected by derivative checker.`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match (self.test.first_order(), self.test.second_order()) {
            (true, true) => "first and second derivatives",
            (true, false) => "first derivatives",
            (false, true) => "second derivatives",
            (false, false) => "no derivatives",
        };
        writeln!(
            f,
            "Derivative checker for {what} of `{}` (tolerance {:e}, {} entries shown):",
            self.model,
            self.tol,
            self.worst.len()
        )?;
        for entry in &self.worst {
            writeln!(f, "{entry}")?;
        }
        if self.passed() {
            write!(
                f,
                "No errors detected by derivative checker ({} entries compared).",
                self.checked()
            )
        } else {
            write!(
                f,
                "Derivative checker detected {} error(s) in {} compared entries \
                 (gradient {}/{}, Jacobian {}/{}, Hessian {}/{}).",
                self.failed(),
                self.checked(),
                self.gradient.failed,
                self.gradient.checked,
                self.jacobian.failed,
                self.jacobian.checked,
                self.hessian.failed,
                self.hessian.checked
            )
        }
    }
}

/// Runs the check `o.derivative_test` asks for (nothing for `none`, nor with print level
/// `none`) on the user's model before a solve and logs the report at `INFO`, one line
/// each.
pub(crate) fn log_before_solve(model: &dyn NlpModel, o: &Options) {
    if o.derivative_test == DerivativeTest::None {
        return;
    }
    if o.print_level < PrintLevel::Summary {
        return;
    }
    match check_derivatives(model, &DerivativeCheckOptions::from(o)) {
        Ok(report) => report
            .to_string()
            .lines()
            .for_each(|line| tracing::info!("{line}")),
        // the solve reports the same error
        Err(e) => tracing::info!("derivative checker not run: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_sum_duplicates_and_mirror() {
        let c = Columns::from_coo(3, &[1, 1, 2, 0], &[0, 0, 1, 0], &[1.0, 2.0, 5.0, 7.0], true);
        assert_eq!(c.column(0), &[(0, 7.0), (1, 3.0)]);
        assert_eq!(c.column(1), &[(0, 3.0), (2, 5.0)]);
        assert_eq!(c.column(2), &[(1, 5.0)]);
        let c = Columns::from_coo(2, &[1, 0], &[1, 1], &[1.0, 2.0], false);
        assert_eq!(c.column(0), &[]);
        assert_eq!(c.column(1), &[(0, 2.0), (1, 1.0)]);
    }

    #[test]
    fn uniform_numbers_are_in_range_and_repeatable() {
        let draw = |seed| {
            let mut u = Uniform::new(seed);
            (0..1000).map(|_| u.next()).collect::<Vec<_>>()
        };
        let a = draw(3);
        assert_eq!(a, draw(3));
        assert!(a.iter().all(|v| (0.0..1.0).contains(v)));
        assert_ne!(a, draw(4));
    }
}
