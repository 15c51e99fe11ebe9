//! Ipopt-style iterative refinement on top of any [`SymmetricSolver`].
//!
//! What is implemented (mirrors Ipopt's `PDFullSpaceSolver`):
//!
//! - Residual `r = b − A x`, computed with the caller's `matvec` (so the caller decides
//!   which matrix the residual refers to, e.g. the unregularized KKT matrix while the factor
//!   includes a regularization).
//! - Residual ratio (Ipopt's `ComputeResidualRatio`):
//!   `ratio = ‖r‖∞ / (min(‖x‖∞, max_cond · ‖b‖∞) + ‖b‖∞)` with `max_cond = 1e6`
//!   ([`RefineOptions::max_cond`]); when `‖b‖∞ + ‖r‖∞ = 0` the ratio is `‖r‖∞` (= 0).
//!   No matrix norm enters (as in Ipopt).
//! - Loop: while `steps < min_steps` or `ratio > residual_ratio_max`: solve `A δ = r` with
//!   the factorization, `x += δ`, recompute the residual and ratio, `steps += 1`. Stop after
//!   `max_steps`, or — once `steps >= min_steps` — when the ratio did not improve, i.e.
//!   `ratio > residual_improvement_factor · ratio_before_step` (the step is kept if it
//!   improved at all, otherwise the previous `x` is restored).
//! - Outcome: [`RefineStats::converged`] when the final ratio is `<= residual_ratio_max`;
//!   [`RefineStats::suspect_singular`] when it is still `> residual_ratio_singular`
//!   (Ipopt then treats the matrix as singular and increases the regularization).
//!
//! Defaults ([`RefineOptions::default`]) are Ipopt's: `residual_ratio_max = 1e-10`,
//! `residual_ratio_singular = 1e-5`, `min_steps = 1`, `max_steps = 10`,
//! `residual_improvement_factor = 1 − 1e-9`.
//!
//! The loop allocates nothing; the vectors live in a caller-owned [`RefineWork`].

use crate::sparse::check_len;
use crate::{LinalgError, SymmetricSolver};

/// Stopping rules of [`iterative_refinement`] (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefineOptions {
    /// Target residual ratio (Ipopt `residual_ratio_max`, default `1e-10`).
    pub residual_ratio_max: f64,
    /// Ratio above which the solve is flagged as suspect / singular (Ipopt
    /// `residual_ratio_singular`, default `1e-5`).
    pub residual_ratio_singular: f64,
    /// Minimum number of refinement steps (Ipopt `min_refinement_steps`, default 1).
    pub min_steps: usize,
    /// Maximum number of refinement steps (Ipopt `max_refinement_steps`, default 10).
    pub max_steps: usize,
    /// A step must reduce the ratio below this factor times the previous ratio, otherwise
    /// refinement stops (Ipopt `residual_improvement_factor`, default `1 − 1e-9`).
    pub residual_improvement_factor: f64,
    /// Safeguard cap on `‖x‖∞` relative to `‖b‖∞` in the ratio's denominator (Ipopt uses
    /// `1e6`).
    pub max_cond: f64,
}

impl Default for RefineOptions {
    fn default() -> Self {
        Self {
            residual_ratio_max: 1e-10,
            residual_ratio_singular: 1e-5,
            min_steps: 1,
            max_steps: 10,
            residual_improvement_factor: 1.0 - 1e-9,
            max_cond: 1e6,
        }
    }
}

/// What [`iterative_refinement`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefineStats {
    /// Refinement steps taken (solves after the initial one).
    pub steps: usize,
    /// Residual ratio of the initial solution.
    pub initial_ratio: f64,
    /// Residual ratio of the returned solution.
    pub final_ratio: f64,
    /// `final_ratio <= residual_ratio_max`.
    pub converged: bool,
    /// `final_ratio > residual_ratio_singular`: the solve is not trustworthy (Ipopt treats
    /// this like a singular matrix).
    pub suspect_singular: bool,
}

/// Workspace of [`iterative_refinement`]: the residual/correction vector and a backup of the
/// solution, each of length `n`. Create once per dimension; reuse for every solve.
#[derive(Clone, Debug)]
pub struct RefineWork {
    residual: Vec<f64>,
    ax: Vec<f64>,
    backup: Vec<f64>,
}

impl RefineWork {
    /// Workspace for systems of dimension `n`.
    pub fn new(n: usize) -> Self {
        Self {
            residual: vec![0.0; n],
            ax: vec![0.0; n],
            backup: vec![0.0; n],
        }
    }

    /// The dimension this workspace is sized for.
    pub fn n(&self) -> usize {
        self.residual.len()
    }

    /// The last residual `b − A x` computed (for the returned `x`).
    pub fn residual(&self) -> &[f64] {
        &self.residual
    }
}

fn amax(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// Computes `work.residual = rhs − A sol` and returns the residual ratio.
fn residual_ratio(
    matvec: &mut dyn FnMut(&[f64], &mut [f64]),
    rhs: &[f64],
    sol: &[f64],
    work: &mut RefineWork,
    max_cond: f64,
) -> f64 {
    matvec(sol, &mut work.ax);
    for ((r, &b), &ax) in work.residual.iter_mut().zip(rhs).zip(&work.ax) {
        *r = b - ax;
    }
    let nrm_res = amax(&work.residual);
    let nrm_rhs = amax(rhs);
    let nrm_sol = amax(sol);
    if nrm_rhs + nrm_res == 0.0 {
        return nrm_res;
    }
    let ratio = nrm_res / (nrm_sol.min(max_cond * nrm_rhs) + nrm_rhs);
    // A NaN ratio (non-finite solution) must never look converged.
    if ratio.is_nan() { f64::INFINITY } else { ratio }
}

fn check_options(opts: &RefineOptions) -> Result<(), LinalgError> {
    for (what, v) in [
        ("residual_ratio_max", opts.residual_ratio_max),
        ("residual_ratio_singular", opts.residual_ratio_singular),
        (
            "residual_improvement_factor",
            opts.residual_improvement_factor,
        ),
        ("max_cond", opts.max_cond),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(LinalgError::InvalidValue {
                what: format!("refine option {what}"),
                value: v,
                detail: "must be finite and >= 0".into(),
            });
        }
    }
    Ok(())
}

/// Solves `A sol = rhs` with the solver's current factorization and refines the solution
/// (see the module documentation for the exact rules). `matvec(x, y)` must write `y = A x`
/// (length `n` each). `sol` is overwritten (its input value is ignored).
///
/// # Errors
/// [`LinalgError::LengthMismatch`] when `rhs`, `sol` or `work` disagree in length;
/// [`LinalgError::InvalidValue`] for a bad option; any error of the solver's solve
/// (e.g. [`LinalgError::InvalidState`] without a factorization).
pub fn iterative_refinement(
    solver: &mut dyn SymmetricSolver,
    matvec: &mut dyn FnMut(&[f64], &mut [f64]),
    rhs: &[f64],
    sol: &mut [f64],
    work: &mut RefineWork,
    opts: &RefineOptions,
) -> Result<RefineStats, LinalgError> {
    check_len("refinement: sol", rhs.len(), sol.len())?;
    sol.copy_from_slice(rhs);
    solver.solve_in_place(sol)?;
    refine_solution(solver, matvec, rhs, sol, work, opts)
}

/// Like [`iterative_refinement`], but starts from the solution already in `sol` (e.g. a
/// solve the caller did itself) instead of solving first.
///
/// # Errors
/// As [`iterative_refinement`].
pub fn refine_solution(
    solver: &mut dyn SymmetricSolver,
    matvec: &mut dyn FnMut(&[f64], &mut [f64]),
    rhs: &[f64],
    sol: &mut [f64],
    work: &mut RefineWork,
    opts: &RefineOptions,
) -> Result<RefineStats, LinalgError> {
    check_options(opts)?;
    check_len("refinement: sol", rhs.len(), sol.len())?;
    check_len("refinement: work", rhs.len(), work.n())?;
    let mut ratio = residual_ratio(matvec, rhs, sol, work, opts.max_cond);
    let initial_ratio = ratio;
    let mut steps = 0;
    while steps < opts.max_steps && (steps < opts.min_steps || ratio > opts.residual_ratio_max) {
        work.backup.copy_from_slice(sol);
        // Correction: A δ = r, x += δ.
        solver.solve_in_place(&mut work.residual)?;
        for (x, d) in sol.iter_mut().zip(&work.residual) {
            *x += d;
        }
        steps += 1;
        let old = ratio;
        ratio = residual_ratio(matvec, rhs, sol, work, opts.max_cond);
        if steps >= opts.min_steps && ratio > opts.residual_improvement_factor * old {
            if ratio > old {
                // The step made things worse: restore and recompute the residual.
                sol.copy_from_slice(&work.backup);
                ratio = residual_ratio(matvec, rhs, sol, work, opts.max_cond);
            }
            break;
        }
    }
    Ok(RefineStats {
        steps,
        initial_ratio,
        final_ratio: ratio,
        converged: ratio <= opts.residual_ratio_max,
        suspect_singular: ratio > opts.residual_ratio_singular,
    })
}
