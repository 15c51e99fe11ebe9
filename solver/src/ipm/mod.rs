//! The interior-point algorithm (Wächter & Biegler 2006), written against [`Backend`].
//!
//! Nothing in this module reads or writes a vector element: every vector operation is a
//! backend kernel, so the same code runs wherever the backend keeps its vectors. The only
//! host traffic beyond scalars is at setup, at the first restoration phase of a solve
//! (the restoration problem's index maps and bounds, and its backend unless an earlier
//! solve of the same structure made it; kept for the later phases, which start from
//! device vectors) and at the end (reading the solution). Device vectors are allocated at
//! setup and at the first restoration phase of a solve only (the inner run's storage is
//! kept for the later phases, and with the restoration backend for the next solve of the
//! same structure).
//!
//! One file per component of Ipopt's algorithm:
//! - this file: the state ([`Ipm`]), its construction, the main loop with the
//!   termination tests, and the measures of the current iterate;
//! - `vectors`: the primal-dual vectors of a point, a step and a trial point;
//! - `storage`: what a run allocates, handed from run to run (restoration phases);
//! - `bounds`: the layout's bound data on the device;
//! - `initialize`: the starting point (Ipopt's `DefaultIterateInitializer`);
//! - `barrier`: the barrier-parameter update (`MonotoneMuUpdate`, `AdaptiveMuUpdate`);
//! - `step`: the search direction with inertia correction (`PDPerturbationHandler`);
//! - `filter`: the filter and the acceptance test of a trial point (`FilterLSAcceptor`);
//! - `line_search`: backtracking with second-order corrections and the tiny-step test
//!   (`BacktrackingLineSearch`);
//! - `watchdog`: the watchdog procedure around the line search;
//! - `restoration`: the ℓ1 feasibility-restoration phase (`RestoMinC_1Nrm`);
//! - `violation`: the NLP constraint violation of the termination tests
//!   (`curr_nlp_constraint_violation`);
//! - `log`: the iteration line and the iteration record.

mod barrier;
mod bounds;
mod filter;
mod initialize;
mod line_search;
mod log;
mod restoration;
mod step;
mod storage;
mod vectors;
mod violation;
mod watchdog;

use crate::backend::Backend;
use crate::drive::Driver;
use crate::evaluate::DeviceNlp;
use crate::evaluation::PhaseTimes;
use crate::layout::Layout;
use crate::options::{MuStrategy, Options};
use crate::result::{CallbackCounts, SolverError, Status};
use std::time::Instant;

use bounds::LayoutOnDevice;
use filter::Filter;
pub(crate) use initialize::{Start, Values};
use line_search::LineSearchOutcome;
use log::LastStep;
pub(crate) use restoration::KeptRestoration;
use restoration::Restoration;
use step::Perturbation;
use storage::RunStorage;
use vectors::{Correction, Direction, Iterate, Slacks, Trial, Work};
use violation::ViolationWork;
use watchdog::Watchdog;

/// How `run` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// A final status.
    Done(Status),
    /// (Restoration phase only) the outer problem accepted the current iterate.
    RestorationAccepted,
}

/// Restoration-phase exit test: given the restoration iterate, does the original problem
/// accept it?
pub(crate) type Hook<'h, V> = &'h mut dyn FnMut(&V) -> bool;

/// The (scaled) problem a run solves: the model on its device and its layout.
pub(crate) struct Problem<'a, D: simdnlp_device::Device> {
    /// The device the model is evaluated on (the restoration problem is built on it).
    pub device: &'a D,
    /// The model, evaluated on the device's vectors.
    pub model: &'a dyn DeviceNlp<D>,
    /// How the model's rows and bounds map onto `w = (x, s)`.
    pub layout: &'a Layout,
    /// Signed objective scaling of `model` relative to the user's objective.
    pub obj_scale: f64,
}

/// The factors that convert the scaled problem's measures back to the user's units.
pub(crate) struct Unscaling<'u> {
    /// Per component of `w` (length `nw`): scaled dual infeasibility to user units.
    pub dual: &'u [f64],
    /// Per row (length `m`): scaled residual to user units.
    pub viol: &'u [f64],
}

/// Interior-point state on one backend for one (scaled) model.
pub(crate) struct Ipm<'a, B: Backend> {
    backend: &'a mut B,
    /// The device of `backend` (the restoration problem is built on it).
    device: &'a B::Device,
    model: &'a dyn DeviceNlp<B::Device>,
    layout: &'a Layout,
    options: &'a Options,
    /// Signed objective scaling of `model` relative to the user's objective.
    obj_scale: f64,
    /// Label printed in the log (`""` or `"r"` for restoration).
    tag: &'static str,
    /// When the run (for a restoration phase: the outer run) started.
    started: Instant,

    /// The layout's bound data and unscaling vectors on the device.
    bounds: LayoutOnDevice<B>,

    /// Current iterate.
    pub iterate: Iterate<B::Vector>,
    /// Objective at the current iterate.
    objective: f64,
    /// Objective at the previous iterate (acceptable-level objective change test).
    objective_prev: f64,
    /// `∇f` at the current iterate (length `nw`).
    grad_f: B::Vector,
    /// Constraint residual `c(x) − s` (or `c(x) − b`) at the current iterate (length `m`).
    residual: B::Vector,
    /// Gradient of the Lagrangian (length `nw`).
    grad_lagrangian: B::Vector,
    /// Gradient of the barrier function `∇φ` (length `nw`).
    grad_barrier: B::Vector,

    /// The line search's trial point.
    trial: Trial<B::Vector>,
    /// The search direction.
    direction: Direction<B::Vector>,
    /// `Σ = P_L (z_L / s_L) + P_U (z_U / s_U)` (length `nw`).
    sigma: B::Vector,
    /// Right-hand side of the primal rows of the KKT system, `−(∇φ + Jᵀ y)` (length `nw`).
    rhs_w: B::Vector,
    /// Right-hand side of the constraint rows of the KKT system, `−r` (length `m`).
    rhs_y: B::Vector,
    /// The second-order correction's right-hand side and step.
    correction: Correction<B::Vector>,
    /// Work vectors whose values live within one method.
    work: Work<B::Vector>,
    /// The watchdog's stored point and state.
    watchdog: Watchdog<B::Vector>,

    /// Barrier parameter.
    pub mu: f64,
    /// Fraction-to-the-boundary parameter `τ = max(τ_min, 1 − μ)`.
    tau: f64,
    /// The filter and its bounds on the constraint violation.
    filter: Filter,
    /// Inertia-correction state.
    perturbation: Perturbation,
    /// Iterations done (restoration iterations included).
    pub iter: usize,
    /// Added to `iter` in the iteration records (restoration phases number their
    /// iterations after the outer iteration that entered them).
    iter_offset: usize,
    /// Iteration limit of this run.
    pub max_iter: usize,
    /// Consecutive iterations at the acceptable level.
    acceptable_count: usize,
    /// Decrease μ at the next barrier update even if the barrier problem is not solved.
    force_mu_decrease: bool,
    /// The last step was tiny and its multiplier step below `tiny_step_y_tol` (Ipopt's
    /// `tiny_step_last_iteration`): one more tiny step forces a μ decrease, or ends the
    /// run when μ is at its floor.
    tiny_last: bool,
    /// `‖Δy‖∞ < tiny_step_y_tol` for the current direction.
    tiny_y: bool,
    /// The adaptive μ update is on (until the step size collapses).
    adaptive: bool,
    /// Unscaled dual infeasibility at the last evaluated iterate.
    pub dual_inf_u: f64,
    /// Unscaled NLP constraint violation at the last evaluated iterate (Ipopt's
    /// `unscaled_curr_nlp_constraint_violation`: equality rows' residuals and the rows with
    /// a slack outside the slack's relaxed bounds, the slack residual `c − s` not counted),
    /// the quantity `constr_viol_tol` bounds.
    pub constr_viol_u: f64,
    /// Unscaled ∞-norm of the residual `r` (`c − s` included) at the last evaluated
    /// iterate: the log's and the iteration record's `inf_pr`.
    pub residual_u: f64,
    /// Unscaled complementarity at the last evaluated iterate.
    pub compl_u: f64,
    /// Number of restoration phases entered.
    pub restorations: usize,
    /// Counts from restoration phases (their own backends).
    pub resto_counts: CallbackCounts,
    /// Times (callbacks, factorization, solves) from restoration phases.
    pub resto_times: PhaseTimes,
    /// KKT backends made for the restoration problem (each with a symbolic analysis of
    /// its KKT pattern): at most one per solve, kept across its restoration phases.
    pub resto_backends: usize,
    /// Seconds spent making the restoration problem's KKT backend (its symbolic analysis
    /// on the host), and in an analysis inside its factorizations (cuDSS's).
    pub resto_analysis: f64,
    /// Seconds spent making the restoration problem's KKT backend (0 without a
    /// restoration phase).
    pub resto_setup: f64,
    /// The restoration problem and its backend, from the first restoration phase on.
    resto: Option<Restoration<'a, B>>,
    /// A restoration-problem backend (and inner-run storage) from an earlier solve of the
    /// same structure and backend options, used instead of making them.
    resto_spare: Option<KeptRestoration<B>>,
    /// What the iteration line reports of the last step.
    last_step: LastStep,
}

impl<'a, B: Backend> Ipm<'a, B> {
    /// Allocate the state for `problem` on `backend`; `unscaling` converts scaled dual
    /// infeasibility and residuals back to user units.
    pub fn new(
        backend: &'a mut B,
        problem: Problem<'a, B::Device>,
        options: &'a Options,
        unscaling: Unscaling<'_>,
        tag: &'static str,
    ) -> Result<Self, SolverError> {
        let on_device = LayoutOnDevice::new(backend, problem.layout, unscaling)?;
        let storage = RunStorage::allocate(backend, problem.layout, options, on_device)?;
        Ok(Self::with_storage(backend, problem, options, storage, tag))
    }

    /// [`Ipm::new`] on storage already allocated for `problem.layout` and `options` (and
    /// reset, or new); [`Ipm::into_storage`] gives it back. Allocates nothing.
    fn with_storage(
        backend: &'a mut B,
        problem: Problem<'a, B::Device>,
        options: &'a Options,
        storage: RunStorage<B>,
        tag: &'static str,
    ) -> Self {
        let RunStorage {
            bounds,
            iterate,
            grad_f,
            residual,
            grad_lagrangian,
            grad_barrier,
            trial,
            direction,
            sigma,
            rhs_w,
            rhs_y,
            correction,
            work,
            watchdog,
            filter,
        } = storage;
        Self {
            bounds,
            iterate,
            objective: 0.0,
            objective_prev: 0.0,
            grad_f,
            residual,
            grad_lagrangian,
            grad_barrier,
            trial,
            direction,
            sigma,
            rhs_w,
            rhs_y,
            correction,
            work,
            watchdog,
            mu: options.mu_init,
            tau: 0.99,
            filter,
            perturbation: Perturbation::default(),
            iter: 0,
            iter_offset: 0,
            max_iter: options.max_iter,
            acceptable_count: 0,
            force_mu_decrease: false,
            tiny_last: false,
            tiny_y: false,
            adaptive: options.mu_strategy == MuStrategy::AdaptiveLoqo,
            dual_inf_u: f64::INFINITY,
            constr_viol_u: f64::INFINITY,
            residual_u: f64::INFINITY,
            compl_u: f64::INFINITY,
            restorations: 0,
            resto_counts: CallbackCounts::default(),
            resto_times: PhaseTimes::default(),
            resto_backends: 0,
            resto_analysis: 0.0,
            resto_setup: 0.0,
            resto: None,
            resto_spare: None,
            last_step: LastStep::default(),
            backend,
            device: problem.device,
            model: problem.model,
            layout: problem.layout,
            options,
            obj_scale: problem.obj_scale,
            tag,
            started: Instant::now(),
        }
    }

    /// What the run allocated, back from a finished run (for the next run on the same
    /// problem, after [`RunStorage::reset`]).
    fn into_storage(self) -> RunStorage<B> {
        RunStorage {
            bounds: self.bounds,
            iterate: self.iterate,
            grad_f: self.grad_f,
            residual: self.residual,
            grad_lagrangian: self.grad_lagrangian,
            grad_barrier: self.grad_barrier,
            trial: self.trial,
            direction: self.direction,
            sigma: self.sigma,
            rhs_w: self.rhs_w,
            rhs_y: self.rhs_y,
            correction: self.correction,
            work: self.work,
            watchdog: self.watchdog,
            filter: self.filter,
        }
    }

    /// Give the solve what an earlier solve of the same structure with the same backend
    /// options kept of its restoration phases (see [`Ipm::take_restoration`]): its first
    /// restoration phase uses that backend instead of making one, and that storage when
    /// it fits.
    pub fn adopt_restoration(&mut self, kept: Option<KeptRestoration<B>>) {
        self.resto_spare = kept;
    }

    /// The restoration problem's backend and inner-run storage after the run (made or
    /// adopted), to keep for the next solve of the same structure.
    pub fn take_restoration(&mut self) -> Option<KeptRestoration<B>> {
        self.resto
            .take()
            .map(Restoration::into_kept)
            .or_else(|| self.resto_spare.take())
    }

    /// Objective of the current iterate in the user's units.
    pub fn objective_unscaled(&self) -> f64 {
        self.objective / self.obj_scale
    }

    /// Access to the backend (for reading results).
    pub fn backend(&self) -> &B {
        self.backend
    }

    // ------------------------------------------------------------------ measures

    /// Barrier function φ with the κ_d damping of one-sided bounds.
    fn barrier(&self, objective: f64, slacks: &Slacks<B::Vector>) -> f64 {
        let backend = &*self.backend;
        let ln = backend.sum_ln(&slacks.lower) + backend.sum_ln(&slacks.upper);
        let damp = backend.dot(&self.bounds.damp_lower, &slacks.lower)
            + backend.dot(&self.bounds.damp_upper, &slacks.upper);
        objective - self.mu * ln + self.options.kappa_d * self.mu * damp
    }

    /// Gradient of the Lagrangian `∇f + Jᵀy − P_L z_L + P_U z_U` into `grad_lagrangian`.
    fn compute_grad_lagrangian(&mut self) {
        let backend = &*self.backend;
        let iterate = &self.iterate;
        backend.copy(&mut self.grad_lagrangian, &self.grad_f);
        backend.jt_mul(1.0, &iterate.y, 1.0, &mut self.grad_lagrangian);
        backend.scatter_add(
            -1.0,
            &iterate.zl,
            &self.bounds.lower_idx,
            &mut self.grad_lagrangian,
        );
        backend.scatter_add(
            1.0,
            &iterate.zu,
            &self.bounds.upper_idx,
            &mut self.grad_lagrangian,
        );
    }

    /// Barrier gradient `∇φ` into `grad_barrier`.
    fn compute_grad_barrier(&mut self) {
        let backend = &*self.backend;
        let mu = self.mu;
        let (work, bounds) = (&mut self.work, &self.bounds);
        backend.copy(&mut self.grad_barrier, &self.grad_f);
        backend.recip(&mut work.per_bound.lower, mu, &self.iterate.slacks.lower);
        backend.scatter_add(
            -1.0,
            &work.per_bound.lower,
            &bounds.lower_idx,
            &mut self.grad_barrier,
        );
        backend.recip(&mut work.per_bound.upper, mu, &self.iterate.slacks.upper);
        backend.scatter_add(
            1.0,
            &work.per_bound.upper,
            &bounds.upper_idx,
            &mut self.grad_barrier,
        );
        let kd = self.options.kappa_d * mu;
        backend.scatter_add(
            kd,
            &bounds.damp_lower,
            &bounds.lower_idx,
            &mut self.grad_barrier,
        );
        backend.scatter_add(
            -kd,
            &bounds.damp_upper,
            &bounds.upper_idx,
            &mut self.grad_barrier,
        );
    }

    /// Evaluate f, ∇f, r, J at the current `w` (after initialization or a restoration).
    fn eval_point(&mut self) -> bool {
        let w = &self.iterate.w;
        self.objective = self.backend.eval_obj(self.model, w);
        self.backend
            .eval_residual(self.model, w, &mut self.residual);
        self.backend.eval_grad(self.model, w, &mut self.grad_f);
        let jac_ok = self.backend.eval_jac(self.model, w);
        let backend = &*self.backend;
        jac_ok
            && self.objective.is_finite()
            && backend.norm_inf(&self.residual).is_finite()
            && backend.norm_inf(&self.grad_f).is_finite()
    }

    /// Complementarity `max |s∘z − μ|` over both bound lists.
    fn compl(&self, mu: f64) -> f64 {
        let backend = &*self.backend;
        let (slacks, iterate) = (&self.iterate.slacks, &self.iterate);
        backend
            .compl_inf(&slacks.lower, &iterate.zl, mu)
            .max(backend.compl_inf(&slacks.upper, &iterate.zu, mu))
    }

    /// The NLP constraint violation per row at the current iterate into
    /// `work.row_violation` ([`violation::nlp_violation`]; uses `work.per_slack`).
    fn compute_row_violation(&mut self) {
        let work = &mut self.work;
        violation::nlp_violation(
            self.backend.device(),
            &self.bounds.slack_rows,
            &self.iterate.w,
            &self.residual,
            ViolationWork {
                below: &mut work.per_slack.lower,
                above: &mut work.per_slack.upper,
            },
            &mut work.row_violation,
        );
    }

    /// Ipopt's scaling factors `(s_d, s_c)` of the dual infeasibility and the
    /// complementarity in the optimality error.
    fn scaling_factors(&self) -> (f64, f64) {
        let backend = &*self.backend;
        let (m, nl, nu) = (
            self.layout.m,
            self.layout.lower_idx.len(),
            self.layout.upper_idx.len(),
        );
        let smax = self.options.s_max;
        let zn = backend.norm_1(&self.iterate.zl) + backend.norm_1(&self.iterate.zu);
        let sd = if m + nl + nu > 0 {
            smax.max((backend.norm_1(&self.iterate.y) + zn) / (m + nl + nu) as f64) / smax
        } else {
            1.0
        };
        let sc = if nl + nu > 0 {
            smax.max(zn / (nl + nu) as f64) / smax
        } else {
            1.0
        };
        (sd, sc)
    }

    /// The trial point becomes the current primal point (its vectors are swapped in; the
    /// old ones become the next trial's storage).
    fn take_trial(&mut self) {
        std::mem::swap(&mut self.iterate.w, &mut self.trial.w);
        std::mem::swap(&mut self.iterate.slacks, &mut self.trial.slacks);
        std::mem::swap(&mut self.residual, &mut self.trial.residual);
        self.objective = self.trial.objective;
    }

    // ------------------------------------------------------------------ main loop

    /// Run the method from `start`. `hook` is the restoration-phase exit test (`None` for
    /// the original problem); `driver` sees every iteration and may stop the run.
    pub fn run(
        &mut self,
        start: &Start<'_, B::Vector>,
        mut hook: Option<Hook<'_, B::Vector>>,
        driver: &mut Driver<'_, '_>,
    ) -> Result<Exit, SolverError> {
        if !self.initialize(start)? {
            return Ok(Exit::Done(Status::InvalidNumberDetected));
        }
        let options = self.options;
        self.log_header();
        loop {
            // ---- optimality measures at the current iterate (Ipopt's: the overall error
            // `curr_nlp_error` and the `*_tol` tests measure the NLP constraint violation,
            // without the slack residual; the μ update's barrier error the residual `r`)
            self.compute_grad_lagrangian();
            self.compute_row_violation();
            let backend = &*self.backend;
            let dual = backend.norm_inf(&self.grad_lagrangian);
            let primal = backend.norm_inf(&self.residual);
            let viol = backend.norm_inf(&self.work.row_violation);
            let compl0 = self.compl(0.0);
            let (sd, sc) = self.scaling_factors();
            let e0 = (dual / sd).max(viol).max(compl0 / sc);
            backend.mul(
                &mut self.work.w,
                &self.grad_lagrangian,
                &self.bounds.dual_unscale,
            );
            self.dual_inf_u = backend.norm_inf(&self.work.w);
            backend.mul(&mut self.work.m, &self.residual, &self.bounds.viol_unscale);
            self.residual_u = backend.norm_inf(&self.work.m);
            backend.mul(
                &mut self.work.m,
                &self.work.row_violation,
                &self.bounds.viol_unscale,
            );
            self.constr_viol_u = backend.norm_inf(&self.work.m);
            self.compl_u = compl0 / self.obj_scale.abs();
            // a kernel failure since the last iteration (a failed reduction reads NaN
            // meanwhile) ends the solve with the device's error, once per iteration
            self.backend.synchronize()?;
            self.log_iter(dual);
            if driver.observe(&self.record(dual)) {
                return Ok(Exit::Done(Status::UserRequestedStop));
            }
            if !e0.is_finite() || !primal.is_finite() {
                return Ok(Exit::Done(Status::InvalidNumberDetected));
            }
            if e0 <= options.tol
                && self.dual_inf_u <= options.dual_inf_tol
                && self.constr_viol_u <= options.constr_viol_tol
                && self.compl_u <= options.compl_inf_tol
            {
                return Ok(Exit::Done(Status::SolveSucceeded));
            }
            let obj_change =
                (self.objective - self.objective_prev).abs() / self.objective.abs().max(1.0);
            self.objective_prev = self.objective;
            let acceptable = e0 <= options.acceptable_tol
                && self.dual_inf_u <= options.acceptable_dual_inf_tol
                && self.constr_viol_u <= options.acceptable_constr_viol_tol
                && self.compl_u <= options.acceptable_compl_inf_tol
                && (self.iter == 0 || obj_change <= options.acceptable_obj_change_tol);
            self.acceptable_count = if acceptable {
                self.acceptable_count + 1
            } else {
                0
            };
            if options.acceptable_iter > 0 && self.acceptable_count >= options.acceptable_iter {
                return Ok(Exit::Done(Status::SolvedToAcceptableLevel));
            }
            if self.iter >= self.max_iter {
                return Ok(Exit::Done(Status::MaximumIterationsExceeded));
            }
            if self.started.elapsed().as_secs_f64() > options.max_wall_time {
                return Ok(Exit::Done(Status::MaximumCpuTimeExceeded));
            }
            if self.backend.norm_inf(&self.iterate.w) > options.diverging_iterates_tol {
                return Ok(Exit::Done(Status::DivergingIterates));
            }

            // ---- barrier parameter update
            let optimality = barrier::Optimality {
                dual: dual / sd,
                primal,
                compl_scale: sc,
                acceptable,
            };
            if let Some(status) = self.update_barrier(optimality) {
                return Ok(Exit::Done(status));
            }
            let phi = self.barrier(self.objective, &self.iterate.slacks);

            // ---- search direction
            if !self
                .backend
                .eval_hess(self.model, &self.iterate.w, &self.iterate.y, 1.0)
            {
                return Ok(Exit::Done(Status::InvalidNumberDetected));
            }
            if !self.search_direction()? {
                return Ok(Exit::Done(Status::ErrorInStepComputation));
            }

            // ---- line search
            let theta = self.backend.norm_1(&self.residual);
            let outcome = if options.watchdog {
                self.watchdog_line_search(theta, phi)?
            } else {
                self.line_search(theta, phi, false)?
            };
            match outcome {
                LineSearchOutcome::Accepted {
                    alpha,
                    alpha_z,
                    trials,
                    tiny,
                } => {
                    self.accept(alpha, alpha_z);
                    self.last_step.trials = trials;
                    // Ipopt's tiny-step rule: a tiny step right after a tiny step with a
                    // small multiplier step forces μ down (and ends the run at the μ floor)
                    if tiny && self.tiny_last {
                        self.force_mu_decrease = true;
                        self.adaptive = false; // adaptive μ stalls: monotone from here on
                    }
                    self.tiny_last = tiny && self.tiny_y;
                    if !self.eval_point() {
                        return Ok(Exit::Done(Status::InvalidNumberDetected));
                    }
                }
                LineSearchOutcome::Restoration { trials } => {
                    self.last_step.trials = trials;
                    self.tiny_last = false;
                    self.adaptive = false; // adaptive μ failed: monotone from here on
                    if hook.is_some() || !options.restoration {
                        return Ok(Exit::Done(Status::RestorationFailed));
                    }
                    if primal <= 1e-2 * options.tol {
                        // Restoration at an (almost) feasible point cannot help (Ipopt
                        // gives up the same way).
                        return Ok(Exit::Done(if self.acceptable_count > 0 {
                            Status::SolvedToAcceptableLevel
                        } else {
                            Status::RestorationFailed
                        }));
                    }
                    match self.restoration(theta, phi, driver)? {
                        None => {
                            if !self.eval_point() {
                                return Ok(Exit::Done(Status::InvalidNumberDetected));
                            }
                        }
                        Some(status) => return Ok(Exit::Done(status)),
                    }
                }
            }
            self.iter += 1;
            if let Some(h) = hook.as_mut() {
                if h(&self.iterate.w) {
                    return Ok(Exit::RestorationAccepted);
                }
            }
        }
    }
}
