//! The backtracking filter line search (Ipopt's `BacktrackingLineSearch`): trial points
//! along the step with the fraction-to-the-boundary rule, the tiny-step test,
//! second-order corrections, and taking the accepted step.

use super::Ipm;
use super::filter::{Acceptance, StepReference};
use super::vectors::Slacks;
use crate::backend::Backend;
use crate::result::SolverError;

/// Largest (scaled, ℓ1) constraint violation at which a step can count as tiny (Ipopt's
/// constant in `DetectTinyStep`).
const TINY_STEP_MAX_VIOLATION: f64 = 1e-4;

/// How a line search ended.
pub(super) enum LineSearchOutcome {
    /// A trial point was accepted.
    Accepted {
        /// Primal step size.
        alpha: f64,
        /// Bound-multiplier step size.
        alpha_z: f64,
        /// Trial points evaluated.
        trials: usize,
        /// The step was tiny (accepted without line search).
        tiny: bool,
    },
    /// No step size down to α_min was accepted: the restoration phase follows.
    Restoration {
        /// Trial points evaluated.
        trials: usize,
    },
}

impl<B: Backend> Ipm<'_, B> {
    /// The largest primal step along the bound-slack step `steps` that keeps the fraction
    /// `τ` of every bound slack (fraction-to-the-boundary rule).
    pub(super) fn max_primal_step(&self, steps: &Slacks<B::Vector>) -> f64 {
        let backend = &*self.backend;
        backend
            .max_step(&self.iterate.slacks.lower, &steps.lower, self.tau)
            .min(backend.max_step(&self.iterate.slacks.upper, &steps.upper, self.tau))
    }

    /// The largest bound-multiplier step along the direction that keeps the fraction `τ`
    /// of every bound multiplier.
    pub(super) fn max_dual_step(&self) -> f64 {
        let backend = &*self.backend;
        let (iterate, direction) = (&self.iterate, &self.direction);
        backend
            .max_step(&iterate.zl, &direction.zl, self.tau)
            .min(backend.max_step(&iterate.zu, &direction.zu, self.tau))
    }

    /// Evaluate the trial point `w + α Δw` (with the second-order correction's step when
    /// `use_correction`): θ and φ, or `None` when the model returned NaN/∞ (or a slack
    /// left the interior).
    pub(super) fn trial(&mut self, alpha: f64, use_correction: bool) -> Option<(f64, f64)> {
        let backend = &mut *self.backend;
        let trial = &mut self.trial;
        let step = if use_correction {
            &self.correction.step.w
        } else {
            &self.direction.w
        };
        backend.copy(&mut trial.w, &self.iterate.w);
        backend.axpy(alpha, step, &mut trial.w);
        self.bounds.slacks(backend, &trial.w, &mut trial.slacks);
        // The fraction-to-boundary rule keeps the exact slacks positive; a computed slack
        // below ε·min(1, μ) is round-off next to a large bound. As Ipopt, replace it by
        // the centred value μ/z (at least ε·min(1, μ)): clamping to ε·min(1, μ) alone
        // leaves s·z ≪ μ and Σ = z/s near 1e30, which stalls the iteration (seen on
        // case1354_pegase at μ ≈ 2.5e-9).
        let smin = f64::EPSILON * self.mu.min(1.0);
        let adjusted = backend.safe_slack(&mut trial.slacks.lower, &self.iterate.zl, smin, self.mu)
            + backend.safe_slack(&mut trial.slacks.upper, &self.iterate.zu, smin, self.mu);
        if adjusted > 0 {
            tracing::debug!(adjusted, "slacks too small, using mu/z");
        }
        trial.objective = backend.eval_obj(self.model, &trial.w);
        if !trial.objective.is_finite() {
            return None;
        }
        backend.eval_residual(self.model, &trial.w, &mut trial.residual);
        let theta = self.backend.norm_1(&self.trial.residual);
        let phi = self.barrier(self.trial.objective, &self.trial.slacks);
        (theta.is_finite() && phi.is_finite()).then_some((theta, phi))
    }

    /// The filter's verdict on a trial point `(θ, φ)` reached with step `alpha`.
    fn verdict(&self, trial: (f64, f64), alpha: f64, reference: StepReference) -> Acceptance {
        self.filter.verdict(trial, alpha, reference, self.options)
    }

    /// Backtracking from the largest step (from `α_max · alpha_red_factor` when
    /// `skip_full`, after a failed watchdog) down to α_min, from the current iterate with
    /// violation `theta` and barrier objective `phi`.
    pub(super) fn line_search(
        &mut self,
        theta: f64,
        phi: f64,
        skip_full: bool,
    ) -> Result<LineSearchOutcome, SolverError> {
        let options = self.options;
        let alpha_max = self.max_primal_step(&self.direction.slacks);
        let alpha_z = self.max_dual_step();
        let backend = &*self.backend;
        let gd = backend.dot(&self.grad_barrier, &self.direction.w);
        self.last_step.step_norm = backend.norm_inf(&self.direction.w);
        // Tiny step (Ipopt's test): every component of Δw below `tiny_step_tol` relative to
        // 1 + |w|, at a point whose (scaled, ℓ1) constraint violation is at most 1e-4 (a tiny
        // step far from feasibility is a stationary point of the infeasibility, not the
        // end of the run): accept the full step without line search. `tiny_y` compares
        // the (scaled) multiplier step with `tiny_step_y_tol` in absolute terms.
        self.tiny_y = backend.norm_inf(&self.direction.y) < options.tiny_step_y_tol;
        if !skip_full
            && theta <= TINY_STEP_MAX_VIOLATION
            && backend.max_rel_step(&self.direction.w, &self.iterate.w) < options.tiny_step_tol
            && self.trial(alpha_max, false).is_some()
        {
            return Ok(LineSearchOutcome::Accepted {
                alpha: alpha_max,
                alpha_z,
                trials: 1,
                tiny: true,
            });
        }
        let alpha_min = {
            let gt = options.gamma_theta;
            let v = if gd < 0.0 {
                let a = gt.min(options.gamma_phi * theta / -gd);
                if theta <= self.filter.theta_min {
                    a.min(options.delta * theta.powf(options.s_theta) / (-gd).powf(options.s_phi))
                } else {
                    a
                }
            } else {
                gt
            };
            (options.alpha_min_frac * v).max(f64::EPSILON * 1e-2)
        };
        let mut alpha = if skip_full {
            alpha_max * options.alpha_red_factor
        } else {
            alpha_max
        };
        let reference = StepReference {
            theta,
            phi,
            slope: gd,
        };
        let mut trials = usize::from(skip_full);
        let mut rejected_by_filter = false;
        loop {
            trials += 1;
            let tried = self.trial(alpha, false);
            tracing::trace!(
                alpha,
                ?tried,
                theta,
                phi,
                gd,
                alpha_min,
                "line-search trial"
            );
            if let Some(theta_phi) = tried {
                match self.verdict(theta_phi, alpha, reference) {
                    Acceptance::Accept { f_type } => {
                        if !f_type {
                            self.filter.augment(theta, phi, options);
                        }
                        self.filter.after_line_search(rejected_by_filter, options);
                        return Ok(LineSearchOutcome::Accepted {
                            alpha,
                            alpha_z,
                            trials,
                            tiny: false,
                        });
                    }
                    Acceptance::RejectFilter => rejected_by_filter = true,
                    Acceptance::Reject => {}
                }
                // Second-order correction on the first trial when θ did not decrease.
                let theta_trial = theta_phi.0;
                if trials == 1 && options.max_soc > 0 && theta_trial >= theta {
                    if let Some((a, az, f_type)) =
                        self.second_order_correction(alpha, theta_trial, reference)?
                    {
                        if !f_type {
                            self.filter.augment(theta, phi, options);
                        }
                        self.filter.after_line_search(rejected_by_filter, options);
                        return Ok(LineSearchOutcome::Accepted {
                            alpha: a,
                            alpha_z: az,
                            trials: trials + 1,
                            tiny: false,
                        });
                    }
                }
            }
            alpha *= options.alpha_red_factor;
            if alpha < alpha_min {
                self.filter.after_line_search(rejected_by_filter, options);
                return Ok(LineSearchOutcome::Restoration { trials });
            }
        }
    }

    /// Second-order corrections after the first trial point (step `alpha0`, violation
    /// `theta_trial`) was rejected. On success the corrected direction replaces the
    /// search direction and `(α, α_z, f_type)` is returned.
    fn second_order_correction(
        &mut self,
        alpha0: f64,
        theta_trial: f64,
        reference: StepReference,
    ) -> Result<Option<(f64, f64, bool)>, SolverError> {
        let options = self.options;
        let mut alpha_soc = alpha0;
        let mut theta_old = theta_trial;
        let backend = &mut *self.backend;
        let correction = &mut self.correction;
        // c_soc = α r + r(trial)
        backend.copy(&mut correction.constraints, &self.residual);
        backend.axpby(
            1.0,
            &self.trial.residual,
            alpha_soc,
            &mut correction.constraints,
        );
        for _ in 0..options.max_soc {
            let backend = &mut *self.backend;
            let correction = &mut self.correction;
            backend.copy(&mut self.work.m, &correction.constraints);
            backend.scale(-1.0, &mut self.work.m);
            let step = &mut correction.step;
            let _ = backend.kkt_solve(&self.rhs_w, &self.work.m, &mut step.w, &mut step.y)?;
            self.bounds.slack_steps(backend, &step.w, &mut step.slacks);
            alpha_soc = self.max_primal_step(&self.correction.step.slacks);
            let Some(theta_phi) = self.trial(alpha_soc, true) else {
                return Ok(None);
            };
            match self.verdict(theta_phi, alpha_soc, reference) {
                Acceptance::Accept { f_type } => {
                    let backend = &*self.backend;
                    backend.copy(&mut self.direction.w, &self.correction.step.w);
                    backend.copy(&mut self.direction.y, &self.correction.step.y);
                    self.bound_steps();
                    let az = self.max_dual_step();
                    tracing::debug!(alpha_soc, "second-order correction accepted");
                    return Ok(Some((alpha_soc, az, f_type)));
                }
                Acceptance::Reject | Acceptance::RejectFilter => {}
            }
            let theta_soc = theta_phi.0;
            if theta_soc > options.kappa_soc * theta_old {
                break;
            }
            theta_old = theta_soc;
            let backend = &*self.backend;
            backend.axpby(
                1.0,
                &self.trial.residual,
                alpha_soc,
                &mut self.correction.constraints,
            );
        }
        Ok(None)
    }

    /// Take the step: the trial point becomes the iterate; multipliers move.
    pub(super) fn accept(&mut self, alpha: f64, alpha_z: f64) {
        self.take_trial();
        let backend = &*self.backend;
        let (iterate, direction) = (&mut self.iterate, &self.direction);
        backend.axpy(alpha, &direction.y, &mut iterate.y);
        backend.axpy(alpha_z, &direction.zl, &mut iterate.zl);
        backend.axpy(alpha_z, &direction.zu, &mut iterate.zu);
        self.safeguard_bound_multipliers();
        self.last_step.alpha_dual = alpha_z;
        self.last_step.alpha_primal = alpha;
    }

    /// Ipopt's safeguard `z ← clamp(z, μ/(κ_Σ s), κ_Σ μ/s)` of both bound multipliers.
    pub(super) fn safeguard_bound_multipliers(&mut self) {
        let backend = &*self.backend;
        let iterate = &mut self.iterate;
        let kappa = self.options.kappa_sigma;
        let slacks = &iterate.slacks;
        backend.safeguard_bound_mult(&mut iterate.zl, &slacks.lower, self.mu, kappa);
        backend.safeguard_bound_mult(&mut iterate.zu, &slacks.upper, self.mu, kappa);
    }
}
