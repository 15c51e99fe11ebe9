//! The iteration log: Ipopt's iteration line and the [`IterationRecord`] of each
//! iteration.

use super::Ipm;
use crate::backend::Backend;
use crate::drive::IterationRecord;
use crate::options::PrintLevel;

/// What the iteration line reports of the last step.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LastStep {
    /// Step size of the bound multipliers (`alpha_du`).
    pub alpha_dual: f64,
    /// Primal step size (`alpha_pr`).
    pub alpha_primal: f64,
    /// Line-search trials (`ls`).
    pub trials: usize,
    /// δ_w of the inertia correction (`lg(rg)`; 0: none).
    pub regularization: f64,
    /// `‖Δw‖∞` (`||d||`).
    pub step_norm: f64,
}

/// A number printed as its log10 with one decimal (the `lg(rg)` column), `-` when it is
/// not positive (no allocation).
struct LogNumber(f64);

impl std::fmt::Display for LogNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 > 0.0 {
            write!(f, "{:5.1}", self.0.log10())
        } else {
            f.write_str("    -")
        }
    }
}

impl<B: Backend> Ipm<'_, B> {
    /// The header of the iteration lines (printed by the outer run only).
    pub(super) fn log_header(&self) {
        if self.options.print_level >= PrintLevel::Iterations && self.tag.is_empty() {
            tracing::info!(
                "iter    objective    inf_pr   inf_du lg(mu)  ||d||  lg(rg) alpha_du alpha_pr  ls"
            );
        }
    }

    /// One Ipopt-style line: `inf_pr` is the unscaled ∞-norm of the residual (`c − s` of
    /// the rows with a slack included), `inf_du` the scaled dual infeasibility.
    pub(super) fn log_iter(&self, dual_scaled: f64) {
        if self.options.print_level < PrintLevel::Iterations {
            return;
        }
        let last = &self.last_step;
        tracing::info!(
            "{:4}{:1} {:13.7e} {:8.2e} {:8.2e} {:5.1} {:8.2e} {} {:8.2e} {:8.2e} {:3}",
            self.iter,
            self.tag,
            self.objective_unscaled(),
            self.residual_u,
            dual_scaled,
            self.mu.log10(),
            last.step_norm,
            LogNumber(last.regularization),
            last.alpha_dual,
            last.alpha_primal,
            last.trials
        );
    }

    /// The record of the current iteration (`dual_scaled`: the log's `inf_du`).
    pub(super) fn record(&self, dual_scaled: f64) -> IterationRecord {
        let last = &self.last_step;
        IterationRecord {
            iter: self.iter_offset + self.iter,
            objective: self.objective_unscaled(),
            inf_pr: self.residual_u,
            inf_du: dual_scaled,
            mu: self.mu,
            step_norm: last.step_norm,
            regularization: last.regularization,
            alpha_du: last.alpha_dual,
            alpha_pr: last.alpha_primal,
            ls_trials: last.trials,
            elapsed: self.started.elapsed().as_secs_f64(),
            restoration: !self.tag.is_empty(),
        }
    }
}
