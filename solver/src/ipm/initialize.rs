//! The starting point (Ipopt's `DefaultIterateInitializer` and `WarmStartIterateInitializer`):
//! the primal point pushed into its bounds, the bound multipliers, and the least-squares
//! constraint multipliers.

use super::Ipm;
use crate::backend::{Backend, KktStatus};
use crate::options::MuStrategy;
use crate::result::SolverError;
use simdnlp_device::Device as _;

/// Values of a start vector: host data (uploaded by the initialization) or a vector
/// already on the device (copied there, no host traffic).
pub(crate) enum Values<'s, V> {
    /// Host data.
    Host(Vec<f64>),
    /// A device vector of the same backend.
    Device(&'s V),
}

/// How the iterate is initialized (in the scaled problem's units).
pub(crate) struct Start<'s, V> {
    /// Primal point `w = (x, s)`, length `nw`; the slack part is ignored when
    /// `compute_slacks` is set (slacks start at `c(x)`).
    pub w: Values<'s, V>,
    /// Start slacks at the constraint values instead of `w`'s slack part.
    pub compute_slacks: bool,
    /// Constraint multipliers (`None`: least-squares estimate).
    pub y: Option<Values<'s, V>>,
    /// Lower-bound multipliers over `w` (full length; `None`: `bound_mult_init_val`).
    pub zl: Option<Values<'s, V>>,
    /// Upper-bound multipliers over `w` (full length; `None`: `bound_mult_init_val`).
    pub zu: Option<Values<'s, V>>,
    /// Lower bound applied to given bound multipliers.
    pub z_min: f64,
    /// Initial barrier parameter.
    pub mu: f64,
    /// `bound_push` / `bound_frac` for variables.
    pub push: (f64, f64),
    /// `bound_push` / `bound_frac` for slacks.
    pub slack_push: (f64, f64),
}

impl<B: Backend> Ipm<'_, B> {
    /// Set up the starting iterate. Returns `false` when the model cannot be evaluated
    /// at the start (NaN/∞).
    pub(super) fn initialize(&mut self, start: &Start<'_, B::Vector>) -> Result<bool, SolverError> {
        let (n, ns) = (self.layout.n, self.layout.ns);
        let options = self.options;
        self.mu = start.mu;
        self.tau = options.tau_min.max(1.0 - self.mu);
        self.iter = 0;
        self.filter.clear();
        self.filter.reset_heuristic();
        self.perturbation = Default::default();
        self.acceptable_count = 0;
        self.force_mu_decrease = false;
        self.tiny_last = false;
        self.watchdog.reset();
        self.adaptive = options.mu_strategy == MuStrategy::AdaptiveLoqo;
        // Per-component push (work.w) and frac (work.frac) vectors; the slack parts through
        // the direction's Δw, free until the first step.
        let backend = &*self.backend;
        let (push, frac, part) = (&mut self.work.w, &mut self.work.frac, &mut self.direction.w);
        backend.fill(push, start.push.0);
        backend.fill(part, start.slack_push.0);
        backend.device().copy_range(push, n, part, n, ns);
        backend.fill(frac, start.push.1);
        backend.fill(part, start.slack_push.1);
        backend.device().copy_range(frac, n, part, n, ns);
        let w = &mut self.iterate.w;
        match &start.w {
            Values::Host(v) => self.backend.copy_from_host(w, v)?,
            Values::Device(v) => self.backend.copy(w, v),
        }
        let bounds = &self.bounds;
        if start.compute_slacks {
            self.backend.push_into_bounds(
                w,
                &bounds.lower_full,
                &bounds.upper_full,
                &self.work.w,
                &self.work.frac,
            );
            self.backend.set_slacks_from_cons(self.model, w);
        }
        self.backend.push_into_bounds(
            w,
            &bounds.lower_full,
            &bounds.upper_full,
            &self.work.w,
            &self.work.frac,
        );
        let backend = &*self.backend;
        bounds.slacks(backend, w, &mut self.iterate.slacks);
        // Bound multipliers.
        let given = [
            (&start.zl, &bounds.lower_idx),
            (&start.zu, &bounds.upper_idx),
        ];
        let targets = [&mut self.iterate.zl, &mut self.iterate.zu];
        for ((values, idx), z) in given.into_iter().zip(targets) {
            match values {
                Some(values) => {
                    let src = match values {
                        Values::Host(v) => {
                            backend.copy_from_host(&mut self.work.w, v)?;
                            &self.work.w
                        }
                        Values::Device(v) => *v,
                    };
                    backend.gather(z, src, idx);
                    backend.clamp_below(z, start.z_min);
                }
                None => backend.fill(z, options.bound_mult_init_val),
            }
        }
        if !self.eval_point() {
            return Ok(false);
        }
        match &start.y {
            Some(Values::Host(y)) => self.backend.copy_from_host(&mut self.iterate.y, y)?,
            Some(Values::Device(y)) => self.backend.copy(&mut self.iterate.y, y),
            None => self.least_squares_y()?,
        }
        let theta0 = self.backend.norm_1(&self.residual);
        self.filter.set_bounds(theta0, options);
        Ok(true)
    }

    /// Least-squares constraint multipliers: solve `[[I, Jᵀ], [J, 0]] (d, y) = (−(∇f − z_L + z_U), 0)`;
    /// discarded (y = 0) when `‖y‖∞ > constr_mult_init_max`.
    fn least_squares_y(&mut self) -> Result<(), SolverError> {
        self.backend.fill(&mut self.iterate.y, 0.0);
        if self.layout.m == 0 || self.options.constr_mult_init_max <= 0.0 {
            return Ok(());
        }
        self.backend.fill(&mut self.sigma, 1.0);
        self.backend.kkt_reset_quality();
        let mut status = self.backend.kkt_factorize(&self.sigma, 0.0, 0.0, false)?;
        if status != KktStatus::Correct {
            let growth = status == KktStatus::Singular && self.backend.kkt_stopped_by_growth();
            status = self.backend.kkt_factorize(&self.sigma, 0.0, 1e-8, false)?;
            if growth && status == KktStatus::Correct {
                // the same growth would stop the iterations' factorizations without δ_c
                self.perturbation.note_growth_stop();
            }
        }
        if status != KktStatus::Correct {
            return Ok(());
        }
        let backend = &mut *self.backend;
        let iterate = &mut self.iterate;
        backend.copy(&mut self.rhs_w, &self.grad_f);
        backend.scatter_add(-1.0, &iterate.zl, &self.bounds.lower_idx, &mut self.rhs_w);
        backend.scatter_add(1.0, &iterate.zu, &self.bounds.upper_idx, &mut self.rhs_w);
        backend.scale(-1.0, &mut self.rhs_w);
        backend.fill(&mut self.rhs_y, 0.0);
        let direction = &mut self.direction;
        let _ = backend.kkt_solve(&self.rhs_w, &self.rhs_y, &mut direction.w, &mut direction.y)?;
        let ny = backend.norm_inf(&direction.y);
        if ny.is_finite() && ny <= self.options.constr_mult_init_max {
            backend.copy(&mut iterate.y, &direction.y);
        }
        Ok(())
    }
}
