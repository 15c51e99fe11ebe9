//! The barrier-parameter update: Ipopt's `MonotoneMuUpdate` (Fiacco–McCormick: decrease μ
//! once the barrier problem is solved to `κ_ε μ`) and `AdaptiveMuUpdate` (the LOQO rule).

use super::Ipm;
use crate::backend::Backend;
use crate::result::Status;

/// The optimality measures of the current iterate that the monotone update tests.
#[derive(Clone, Copy, Debug)]
pub(super) struct Optimality {
    /// Scaled dual infeasibility `‖∇L‖∞ / s_d`.
    pub dual: f64,
    /// Constraint violation `‖r‖∞`.
    pub primal: f64,
    /// The complementarity's scaling factor `s_c`.
    pub compl_scale: f64,
    /// The iterate is at the acceptable level.
    pub acceptable: bool,
}

impl<B: Backend> Ipm<'_, B> {
    /// Update μ (adaptive or monotone, as the state says). `Some(status)` ends the run: a
    /// forced decrease found μ at its floor.
    pub(super) fn update_barrier(&mut self, optimality: Optimality) -> Option<Status> {
        if self.adaptive {
            self.adaptive_mu(self.adaptive_mu_floor());
            return None;
        }
        let options = self.options;
        let mu_floor = self.monotone_mu_floor();
        loop {
            let emu = optimality
                .dual
                .max(optimality.primal)
                .max(self.compl(self.mu) / optimality.compl_scale);
            if emu > options.barrier_tol_factor * self.mu && !self.force_mu_decrease {
                return None;
            }
            let forced = self.force_mu_decrease;
            self.force_mu_decrease = false;
            let new_mu = mu_floor.max(
                (options.mu_linear_decrease_factor * self.mu)
                    .min(self.mu.powf(options.mu_superlinear_decrease_power)),
            );
            if new_mu >= self.mu {
                if forced {
                    return Some(if optimality.acceptable {
                        Status::SolvedToAcceptableLevel
                    } else {
                        Status::SearchDirectionBecomesTooSmall
                    });
                }
                return None;
            }
            self.set_mu(new_mu);
        }
    }

    /// The complementarity tolerance in the scaled problem's units: `compl_inf_tol` is a
    /// bound on the unscaled complementarity, and the scaled one is `|s_f|` times it.
    fn scaled_compl_inf_tol(&self) -> f64 {
        self.options.compl_inf_tol * self.obj_scale.abs()
    }

    /// Smallest μ of the monotone update, Ipopt's `min(tol, s_f·compl_inf_tol)/(κ_ε + 1)`:
    /// μ must be able to fall below the unscaled complementarity tolerance even when the
    /// objective is scaled down by the gradient-based scaling (a 1e12 objective scaled
    /// by 1e-8 needs μ near 1e-13). `mu_min` bounds only the adaptive update, as in Ipopt.
    fn monotone_mu_floor(&self) -> f64 {
        self.options.tol.min(self.scaled_compl_inf_tol()) / (self.options.barrier_tol_factor + 1.0)
    }

    /// Smallest μ of the adaptive (LOQO) update: `mu_min`, lowered to
    /// `min(tol, s_f·compl_inf_tol)/2` when that is smaller (Ipopt's default for `mu_min`).
    fn adaptive_mu_floor(&self) -> f64 {
        self.options
            .mu_min
            .min(0.5 * self.options.tol.min(self.scaled_compl_inf_tol()))
    }

    /// A new barrier problem: μ, `τ = max(τ_min, 1 − μ)`, and an empty filter.
    fn set_mu(&mut self, mu: f64) {
        self.mu = mu;
        self.tau = self.options.tau_min.max(1.0 - mu);
        self.filter.clear();
    }

    /// LOQO rule `μ = σ · avg(s∘z)` with `σ = 0.1 · min(0.05 (1 − ξ)/ξ, 2)³`; switches to
    /// monotone mode for good once the step size collapses (a restoration or tiny steps).
    fn adaptive_mu(&mut self, mu_floor: f64) {
        let backend = &*self.backend;
        let (nl, nu) = (self.layout.lower_idx.len(), self.layout.upper_idx.len());
        if nl + nu == 0 {
            return;
        }
        let (slacks, iterate) = (&self.iterate.slacks, &self.iterate);
        let avg = (backend.dot(&slacks.lower, &iterate.zl)
            + backend.dot(&slacks.upper, &iterate.zu))
            / (nl + nu) as f64;
        let minp = backend
            .min_product(&slacks.lower, &iterate.zl)
            .min(backend.min_product(&slacks.upper, &iterate.zu));
        let xi = (minp / avg).clamp(1e-300, 1.0);
        let sigma = 0.1 * (0.05 * (1.0 - xi) / xi).min(2.0).powi(3);
        let new_mu = (sigma * avg).clamp(mu_floor, 1e5);
        if new_mu.is_finite() && new_mu != self.mu {
            self.set_mu(new_mu);
        }
    }
}
