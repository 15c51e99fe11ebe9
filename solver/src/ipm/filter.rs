//! The filter and the acceptance test of a trial point (Ipopt's `FilterLSAcceptor`): the
//! switching condition, the Armijo condition on the barrier objective for f-type steps,
//! sufficient decrease of θ or φ otherwise, and the filter itself with its reset
//! heuristic.

use crate::options::Options;

/// The iterate a filter line search starts from: its constraint violation `θ`, its
/// barrier objective `φ`, and the slope `∇φᵀd` of the barrier objective along the step.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StepReference {
    /// Constraint violation `θ = ‖r‖₁`.
    pub theta: f64,
    /// Barrier objective `φ`.
    pub phi: f64,
    /// Slope `∇φᵀd` of the barrier objective along the step.
    pub slope: f64,
}

/// The filter line search's verdict on a trial point.
pub(super) enum Acceptance {
    /// Accepted; `f_type`: by the Armijo condition of an f-type step (the filter is not
    /// augmented).
    Accept {
        /// The step was an f-type step.
        f_type: bool,
    },
    /// Rejected by the sufficient-decrease conditions (or θ above θ_max).
    Reject,
    /// Rejected by the filter itself.
    RejectFilter,
}

/// The filter: pairs `(θ, φ)` a trial point must not be dominated by, with the bounds
/// `θ_max`, `θ_min` of the barrier problem's start and the reset heuristic's counters.
pub(super) struct Filter {
    /// The margins `((1 − γ_θ) θ, φ − γ_φ θ)` of the entries.
    entries: Vec<(f64, f64)>,
    /// Trial points above this violation are rejected.
    pub theta_max: f64,
    /// Below this violation a step may be f-type.
    pub theta_min: f64,
    /// Successive line searches with a trial point rejected by the filter.
    reject_count: usize,
    /// Filter resets so far.
    resets: usize,
}

impl Filter {
    /// An empty filter with room for `capacity` entries (no allocation until then).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Vec::with_capacity(capacity),
            theta_max: 0.0,
            theta_min: 0.0,
            reject_count: 0,
            resets: 0,
        }
    }

    /// As [`Filter::with_capacity`] made it, keeping the room for the entries (a run
    /// that reuses the filter of an earlier run starts from the same state as a new one).
    pub fn reset(&mut self) {
        self.entries.clear();
        self.theta_max = 0.0;
        self.theta_min = 0.0;
        self.reject_count = 0;
        self.resets = 0;
    }

    /// Remove every entry (a new barrier problem).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Restart the reset heuristic's counters (a new run).
    pub fn reset_heuristic(&mut self) {
        self.reject_count = 0;
        self.resets = 0;
    }

    /// `θ_max`, `θ_min` from the violation `theta0` at the start.
    pub fn set_bounds(&mut self, theta0: f64, options: &Options) {
        self.theta_max = options.theta_max_fact * theta0.max(1.0);
        self.theta_min = options.theta_min_fact * theta0.max(1.0);
    }

    /// No entry dominates `(theta, phi)`.
    pub fn accepts(&self, theta: f64, phi: f64) -> bool {
        !self
            .entries
            .iter()
            .any(|&(tf, pf)| theta >= tf && phi >= pf)
    }

    /// The verdict on a trial point with constraint violation `theta_trial` and barrier
    /// objective `phi_trial`, reached with step `alpha` from `reference`.
    pub fn verdict(
        &self,
        (theta_trial, phi_trial): (f64, f64),
        alpha: f64,
        reference: StepReference,
        options: &Options,
    ) -> Acceptance {
        let StepReference {
            theta,
            phi,
            slope: gd,
        } = reference;
        if theta_trial > self.theta_max {
            return Acceptance::Reject;
        }
        if phi_trial > phi && (phi_trial - phi).log10() > 5.0 + phi.abs().max(1.0).log10() {
            return Acceptance::Reject;
        }
        let switching = gd < 0.0
            && alpha * (-gd).powf(options.s_phi) > options.delta * theta.powf(options.s_theta);
        let f_type = theta <= self.theta_min && switching;
        let tol = 10.0 * f64::EPSILON * phi.abs().max(1.0);
        if f_type {
            if phi_trial - (phi + options.eta_phi * alpha * gd) > tol {
                return Acceptance::Reject;
            }
        } else if !(theta_trial <= (1.0 - options.gamma_theta) * theta
            || phi_trial - (phi - options.gamma_phi * theta) <= tol)
        {
            return Acceptance::Reject;
        }
        if !self.accepts(theta_trial, phi_trial) {
            return Acceptance::RejectFilter;
        }
        Acceptance::Accept { f_type }
    }

    /// Add the margins of `(theta, phi)` and drop the entries they dominate.
    pub fn augment(&mut self, theta: f64, phi: f64, options: &Options) {
        let (tf, pf) = (
            (1.0 - options.gamma_theta) * theta,
            phi - options.gamma_phi * theta,
        );
        self.entries.retain(|&(t, p)| !(t >= tf && p >= pf));
        self.entries.push((tf, pf));
    }

    /// The reset heuristic after a line search: after `filter_reset_trigger` successive
    /// line searches with a filter rejection, empty the filter (at most
    /// `max_filter_resets` times).
    pub fn after_line_search(&mut self, rejected_by_filter: bool, options: &Options) {
        if rejected_by_filter {
            self.reject_count += 1;
            if self.reject_count >= options.filter_reset_trigger
                && self.resets < options.max_filter_resets
            {
                self.entries.clear();
                self.resets += 1;
                self.reject_count = 0;
                tracing::debug!(resets = self.resets, "filter reset");
            }
        } else {
            self.reject_count = 0;
        }
    }
}
