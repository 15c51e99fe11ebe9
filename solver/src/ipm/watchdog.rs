//! The watchdog procedure around the line search (Ipopt's `BacktrackingLineSearch` with
//! `watchdog_shortened_iter_trigger`): after a run of shortened steps, take full steps
//! without the filter test for a few iterations, and go back if none of them is good.

use super::Ipm;
use super::filter::{Acceptance, StepReference};
use super::line_search::LineSearchOutcome;
use super::vectors::{Direction, Iterate, Lengths};
use crate::backend::Backend;
use crate::result::SolverError;

/// The watchdog's stored point, its direction and reference values, and its counters.
pub(super) struct Watchdog<V> {
    /// The iterate stored when the watchdog was activated.
    iterate: Iterate<V>,
    /// Its search direction.
    direction: Direction<V>,
    /// `(θ, φ, ∇φᵀd)` at the stored iterate.
    reference: StepReference,
    /// μ at the stored iterate (a change of μ ends the watch).
    mu: f64,
    /// Successive shortened steps (accepted after more than one trial).
    shortened: usize,
    /// The watchdog is watching (taking full steps).
    active: bool,
    /// Watchdog trial steps taken since activation.
    trials: usize,
}

impl<V> Watchdog<V> {
    /// An inactive watchdog whose stored vectors have `lengths` (every length zero when
    /// the option is off: they are never used).
    pub fn new<B: Backend<Vector = V>>(backend: &B, lengths: Lengths) -> Result<Self, SolverError> {
        Ok(Self {
            iterate: Iterate::zeros(backend, lengths)?,
            direction: Direction::zeros(backend, lengths)?,
            reference: StepReference::default(),
            mu: 0.0,
            shortened: 0,
            active: false,
            trials: 0,
        })
    }

    /// As [`Watchdog::new`] made it, without allocating: the stored vectors zero and
    /// every counter and reference value reset (a run that reuses an earlier run's
    /// watchdog starts from the same state as a new one).
    pub fn zero<B: Backend<Vector = V>>(&mut self, backend: &B) {
        self.iterate.zero(backend);
        self.direction.zero(backend);
        self.reference = StepReference::default();
        self.mu = 0.0;
        self.shortened = 0;
        self.active = false;
        self.trials = 0;
    }

    /// Inactive, no shortened steps counted (a new run).
    pub fn reset(&mut self) {
        self.shortened = 0;
        self.active = false;
    }
}

impl<B: Backend> Ipm<'_, B> {
    /// Watchdog procedure around [`Ipm::line_search`]: after
    /// `watchdog_shortened_iter_trigger` successive shortened steps, store the iterate and
    /// take up to `watchdog_trial_iter_max` full steps without the filter test; if none of
    /// them is acceptable to the stored point, go back to it and backtrack as usual.
    pub(super) fn watchdog_line_search(
        &mut self,
        theta: f64,
        phi: f64,
    ) -> Result<LineSearchOutcome, SolverError> {
        let options = self.options;
        if self.watchdog.active && self.mu != self.watchdog.mu {
            self.watchdog.active = false; // the barrier problem changed: stop watching
        }
        if !self.watchdog.active
            && self.watchdog.shortened >= options.watchdog_shortened_iter_trigger
        {
            let backend = &*self.backend;
            let watchdog = &mut self.watchdog;
            watchdog.iterate.copy_from(backend, &self.iterate);
            watchdog.direction.copy_from(backend, &self.direction);
            let gd = backend.dot(&self.grad_barrier, &self.direction.w);
            watchdog.reference = StepReference {
                theta,
                phi,
                slope: gd,
            };
            watchdog.mu = self.mu;
            watchdog.active = true;
            watchdog.trials = 0;
            watchdog.shortened = 0;
            tracing::debug!("watchdog activated");
        }
        if !self.watchdog.active {
            let outcome = self.line_search(theta, phi, false)?;
            match outcome {
                LineSearchOutcome::Accepted { trials, .. } if trials > 1 => {
                    self.watchdog.shortened += 1
                }
                _ => self.watchdog.shortened = 0,
            }
            return Ok(outcome);
        }
        // Watchdog trial: the full step, judged against the stored point.
        let alpha_max = self.max_primal_step(&self.direction.slacks);
        let alpha_z = self.max_dual_step();
        self.last_step.step_norm = self.backend.norm_inf(&self.direction.w);
        let reference = self.watchdog.reference;
        let full_step = LineSearchOutcome::Accepted {
            alpha: alpha_max,
            alpha_z,
            trials: 1,
            tiny: false,
        };
        if let Some(theta_phi) = self.trial(alpha_max, false) {
            match self
                .filter
                .verdict(theta_phi, alpha_max, reference, options)
            {
                Acceptance::Accept { f_type } => {
                    if !f_type {
                        self.filter.augment(reference.theta, reference.phi, options);
                    }
                    self.watchdog.active = false;
                    return Ok(full_step);
                }
                Acceptance::Reject | Acceptance::RejectFilter => {}
            }
            // up to `watchdog_trial_iter_max` watchdog steps, as Ipopt (which gives up
            // when its counter exceeds the maximum)
            self.watchdog.trials += 1;
            if self.watchdog.trials <= options.watchdog_trial_iter_max {
                return Ok(full_step);
            }
        }
        // Give up: back to the stored point and its direction, then backtrack.
        tracing::debug!("watchdog failed, returning to the stored iterate");
        self.watchdog.active = false;
        let backend = &*self.backend;
        self.iterate.copy_from(backend, &self.watchdog.iterate);
        self.direction.copy_from(backend, &self.watchdog.direction);
        self.bounds
            .slacks(backend, &self.iterate.w, &mut self.iterate.slacks);
        if !self.eval_point() {
            return Ok(LineSearchOutcome::Restoration { trials: 0 });
        }
        self.compute_grad_barrier();
        let phi = self.barrier(self.objective, &self.iterate.slacks);
        self.line_search(reference.theta, phi, true)
    }
}
