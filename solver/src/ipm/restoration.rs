//! The feasibility-restoration phase (Ipopt's `RestoMinC_1Nrm`): the ℓ1 restoration
//! problem solved by an inner run of the same method until the outer filter accepts its
//! point.

use super::bounds::LayoutOnDevice;
use super::initialize::{Start, Values};
use super::storage::RunStorage;
use super::vectors::{Iterate, Lengths};
use super::{Exit, Ipm, Problem, Unscaling};
use crate::backend::Backend;
use crate::drive::Driver;
use crate::evaluate::DeviceNlp;
use crate::evaluation::PhaseTimes;
use crate::layout::Layout;
use crate::models::{RestoOnDevice, RestorationBounds, RestorationStart};
use crate::options::{MuStrategy, Options, RestorationRules};
use crate::result::{CallbackCounts, SolverError, Status};
use simdnlp_device::Device as _;
use std::time::Instant;

/// What the restoration phases of one solve share, made at the first phase: the
/// restoration problem on the device, its layout, options and KKT backend (the symbolic
/// analysis of its KKT pattern: a cuDSS handle and analysis on a GPU, faer's symbolic
/// factorization on the host), the inner run's storage (its layout on the device and
/// every vector of its state), the index maps between the two problems, and the vectors
/// a phase starts from. A later phase allocates nothing.
pub(super) struct Restoration<'a, B: Backend> {
    /// The restoration problem on the device.
    model: RestoOnDevice<'a, B::Device>,
    /// Its layout.
    layout: Layout,
    /// Its options.
    options: Options,
    /// Its KKT backend.
    pub backend: B,
    /// What the inner run allocates (the restoration layout on the device and the
    /// vectors of its state); `None` while a phase runs: the inner solver holds it.
    storage: Option<RunStorage<B>>,
    /// Outer `w` position -> restoration `w` position (`(x, s)` -> `(x, p, n, s)`).
    map_w: B::Index,
    /// Outer lower-bound-list position -> restoration lower-bound-list position.
    map_l: B::Index,
    /// Outer upper-bound-list position -> restoration upper-bound-list position.
    map_u: B::Index,
    /// Restoration `w` position of each outer lower-bound-list entry.
    lower_pos: B::Index,
    /// Restoration `w` position of each outer upper-bound-list entry.
    upper_pos: B::Index,
    /// Start point (full length over the restoration `w`).
    w0: B::Vector,
    /// Start lower-bound multipliers (full length over the restoration `w`).
    zl0: B::Vector,
    /// Start upper-bound multipliers (full length over the restoration `w`).
    zu0: B::Vector,
    /// Start constraint multipliers (zeros).
    y0: B::Vector,
    /// Start of the elastic variables `p`.
    p0: B::Vector,
    /// Start of the elastic variables `n`.
    n0: B::Vector,
    /// A scratch of length `m`.
    scratch_m: B::Vector,
    /// The outer lower-bound multipliers with those of `x` capped at ρ (bound-list length).
    zl_c: B::Vector,
    /// The outer upper-bound multipliers with those of `x` capped at ρ (bound-list length).
    zu_c: B::Vector,
    /// The `x` part of `zl_c`.
    zl_x: B::Vector,
    /// The `x` part of `zu_c`.
    zu_x: B::Vector,
    /// The backend's counters when this solve took it (a backend kept from an earlier
    /// solve has counted that solve's work).
    counts_before: CallbackCounts,
    /// The backend's per-phase times when this solve took it.
    times_before: PhaseTimes,
    /// The backend's analysis seconds when this solve took it.
    analysis_before: f64,
    /// Variables of the outer problem.
    n: usize,
    /// Rows of the outer problem.
    m: usize,
    /// Slacks of the outer problem.
    ns: usize,
}

/// What a solve keeps of its restoration phases for the next solve of the same structure
/// with the same backend options: the restoration problem's KKT backend (with its symbolic
/// analysis) and the inner run's storage, with what decides whether that storage fits the
/// next solve's restoration problem (its bound lists, slack rows, lengths and watchdog
/// option: bounds that become finite or infinite change them).
pub(crate) struct KeptRestoration<B: Backend> {
    /// The restoration problem's KKT backend.
    backend: B,
    /// The inner run's storage (`None` when the last phase did not finish).
    storage: Option<RunStorage<B>>,
    /// The restoration layout's lower-bound list the storage was allocated for.
    lower_idx: Vec<usize>,
    /// The restoration layout's upper-bound list the storage was allocated for.
    upper_idx: Vec<usize>,
    /// The restoration layout's rows with a slack the storage was allocated for.
    slack_rows: Vec<usize>,
    /// The lengths of that layout.
    lengths: Lengths,
    /// The watchdog option of that restoration run (its vectors are allocated only when
    /// it is on).
    watchdog: bool,
}

impl<B: Backend> KeptRestoration<B> {
    /// The kept storage when it fits `layout` and `options` (a restoration problem of the
    /// same structure), else `None`; the backend either way.
    fn split(self, layout: &Layout, options: &Options) -> (B, Option<RunStorage<B>>) {
        let fits = self.lengths == Lengths::of(layout)
            && self.watchdog == options.watchdog
            && self.lower_idx == layout.lower_idx
            && self.upper_idx == layout.upper_idx
            && self.slack_rows == layout.slack_rows;
        (self.backend, self.storage.filter(|_| fits))
    }
}

/// The rules a restoration phase follows (`Options::restoration_rules`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct RestorationRuleSet {
    /// The phase ends only when θ = `‖c‖_1` fell too (`resto_require_theta_reduction`).
    require_theta_reduction: bool,
    /// Ipopt's Newton update of the bound multipliers at the end of a phase
    /// (`resto_bound_mult_newton`).
    bound_mult_newton: bool,
    /// θ_max factor of the restoration problem's filter (`resto_theta_max_fact`).
    theta_max_fact: f64,
    /// The proximity weight is `√μ_R` instead of the main phase's `√μ`
    /// (`resto_proximity_at_resto_mu`).
    proximity_at_resto_mu: bool,
}

impl RestorationRuleSet {
    /// Ipopt's rules (`MinC_1NrmRestorationPhase`, `RestoConvergenceCheck`,
    /// `RestoIpoptNLP`, `resto.theta_max_fact`).
    const IPOPT: Self = Self {
        require_theta_reduction: false,
        bound_mult_newton: true,
        theta_max_fact: 1e8,
        proximity_at_resto_mu: true,
    };

    /// The rules `options` ask for, `exact_inertia` telling whether the KKT
    /// factorization's inertia is exact (for [`RestorationRules::Auto`]).
    pub(super) fn of(options: &Options, exact_inertia: bool) -> Self {
        match options.restoration_rules {
            RestorationRules::Ipopt => Self::IPOPT,
            RestorationRules::Auto if exact_inertia => Self::IPOPT,
            _ => Self {
                require_theta_reduction: options.resto_require_theta_reduction,
                bound_mult_newton: options.resto_bound_mult_newton,
                theta_max_fact: options.resto_theta_max_fact,
                proximity_at_resto_mu: options.resto_proximity_at_resto_mu,
            },
        }
    }
}

impl<'a, B: Backend> Ipm<'a, B> {
    /// The restoration rules in force now (they follow the factorization with
    /// `restoration_rules = auto`).
    fn restoration_rules(&self) -> RestorationRuleSet {
        RestorationRuleSet::of(self.options, self.backend.kkt_exact_inertia())
    }

    /// Does the original problem accept the restoration iterate `wr` (mapped through
    /// `map_w`)? Leaves the mapped point in the trial point.
    ///
    /// The phase ends at a point that (1) lowers θ = `‖c‖_1` to at most `κ · θ_R`,
    /// (2) lowers the largest violation `‖c‖_∞` to at most
    /// `max(κ · ‖c_R‖_∞, min(tol, constr_viol_tol))` (Ipopt's `RestoConvergenceCheck`
    /// measures its reduction this way), and (3) is accepted by the original filter (θ
    /// with the barrier function φ, below θ_max); κ = `required_infeasibility_reduction`,
    /// `θ_R` and `c_R` at the point where the phase began (`at_entry`, of the scaled
    /// problem).
    ///
    /// Why (2): near a point of local infeasibility the main phase can stall at a
    /// stationary point of the violation (the Newton steps lower `‖c‖_2`), where the ℓ1
    /// restoration problem still lowers the *sum* of the violations by moving them onto
    /// fewer rows, so that their largest entry grows. With (1) alone such a phase ends
    /// after a few iterations at a point from which the main phase returns to the stall,
    /// and the solve cycles until `max_iter` (congested PEGASE cases: `‖c‖_∞` 0.047 →
    /// 0.17 at each phase). With (2) the phase goes on until it lowers both measures or
    /// converges to a minimizer of the infeasibility, which ends the solve with
    /// [`Status::InfeasibleProblemDetected`] (Ipopt's "restoration phase converged to a
    /// point of local infeasibility"). (1) is on by default
    /// (`resto_require_theta_reduction`): Ipopt's rule without it takes more iterations
    /// on the RTE cases of PGLIB with LDLᵀ's inertia, but fewer with exact inertia
    /// together with Ipopt's other restoration rules (`bench-suites/README.md`).
    fn resto_accepts(
        &mut self,
        wr: &B::Vector,
        map_w: &B::Index,
        at_entry: ViolationAtEntry,
    ) -> bool {
        let backend = &mut *self.backend;
        let trial = &mut self.trial;
        backend.gather(&mut trial.w, wr, map_w);
        self.bounds.slacks(backend, &trial.w, &mut trial.slacks);
        trial.objective = backend.eval_obj(self.model, &trial.w);
        backend.eval_residual(self.model, &trial.w, &mut trial.residual);
        let theta_trial = self.backend.norm_1(&self.trial.residual);
        let viol_trial = self.backend.norm_inf(&self.trial.residual);
        let phi_trial = self.barrier(self.trial.objective, &self.trial.slacks);
        let options = self.options;
        let rules = self.restoration_rules();
        let kappa = options.required_infeasibility_reduction;
        let viol_max = (kappa * at_entry.viol).max(options.tol.min(options.constr_viol_tol));
        tracing::debug!(
            theta_trial,
            viol_trial,
            phi_trial,
            theta_entry = at_entry.theta,
            viol_max,
            filter = self.filter.accepts(theta_trial, phi_trial),
            "restoration exit test"
        );
        theta_trial.is_finite()
            && phi_trial.is_finite()
            && theta_trial <= self.filter.theta_max
            && (!rules.require_theta_reduction || theta_trial <= kappa * at_entry.theta)
            && viol_trial <= viol_max
            && self.filter.accepts(theta_trial, phi_trial)
    }

    /// Ipopt's bound-multiplier update when a restoration phase ends
    /// (`MinC_1NrmRestorationPhase::ComputeBoundMultiplierStep`): the phase's whole change
    /// of the bound slacks, `Δs = s(trial) − s`, counts as one primal Newton step, the
    /// multipliers take the matching complementarity step `Δz = (μ − z Δs)/s − z` with
    /// the fraction-to-the-boundary rule. Uses the direction's storage; call before
    /// [`Ipm::take_trial`] (the accepted point is the trial point).
    fn bound_mult_newton_update(&mut self) {
        let backend = &*self.backend;
        let (iterate, trial, direction) = (&mut self.iterate, &self.trial, &mut self.direction);
        let steps = &mut direction.slacks;
        backend.copy(&mut steps.lower, &trial.slacks.lower);
        backend.axpy(-1.0, &iterate.slacks.lower, &mut steps.lower);
        backend.copy(&mut steps.upper, &trial.slacks.upper);
        backend.axpy(-1.0, &iterate.slacks.upper, &mut steps.upper);
        let (slacks, mu) = (&iterate.slacks, self.mu);
        backend.bound_dual_step(
            &mut direction.zl,
            &iterate.zl,
            &slacks.lower,
            &steps.lower,
            mu,
        );
        backend.bound_dual_step(
            &mut direction.zu,
            &iterate.zu,
            &slacks.upper,
            &steps.upper,
            mu,
        );
        let alpha = self.max_dual_step();
        let backend = &*self.backend;
        let (iterate, direction) = (&mut self.iterate, &self.direction);
        backend.axpy(alpha, &direction.zl, &mut iterate.zl);
        backend.axpy(alpha, &direction.zu, &mut iterate.zu);
        tracing::debug!(alpha, "bound multipliers after restoration: Newton step");
    }

    /// The restoration problem of this solve with its backend ([`Restoration`]): made at
    /// the first restoration phase, then the kept one. `None` when the restoration problem
    /// cannot be mapped onto this one (another number of slacks): the phase fails.
    fn restoration_problem(&mut self) -> Result<Option<Restoration<'a, B>>, SolverError> {
        if let Some(kept) = self.resto.take() {
            return Ok(Some(kept));
        }
        let options = self.options;
        let layout = self.layout;
        let (n, m, nw, ns) = (layout.n, layout.m, layout.nw(), layout.ns);
        let rho = options.resto_penalty_parameter;
        let mut lcon = layout.rhs.clone();
        let mut ucon = layout.rhs.clone();
        for (k, &j) in layout.slack_rows.iter().enumerate() {
            lcon[j] = layout.lo[n + k];
            ucon[j] = layout.up[n + k];
        }
        let model: &'a dyn DeviceNlp<B::Device> = self.model;
        let device: &'a B::Device = self.device;
        // centred at x = 0 with p = n = 0 here; every phase re-centres it on the device
        // (`Restoration::start`)
        let (zeros_n, zeros_m) = (vec![0.0; n], vec![0.0; m]);
        let resto = RestoOnDevice::new(
            device,
            model,
            rho,
            self.mu,
            RestorationStart {
                x_ref: &zeros_n,
                p0: &zeros_m,
                n0: &zeros_m,
            },
            RestorationBounds {
                lvar: &layout.lo[..n],
                uvar: &layout.up[..n],
                lcon: &lcon,
                ucon: &ucon,
            },
        )?;
        let mut resto_options = options.clone();
        resto_options.restoration = false;
        resto_options.nlp_scaling = false;
        resto_options.bound_relax_factor = 0.0;
        resto_options.mu_strategy = MuStrategy::Monotone;
        // The restoration problem has its own filter: θ_max from the restoration rules
        // (`resto_theta_max_fact`, set again at each phase),
        // θ_min from the default factor.
        let defaults = Options::default();
        resto_options.theta_max_fact = options.resto_theta_max_fact;
        resto_options.theta_min_fact = defaults.theta_min_fact;
        let resto_layout = Layout::new(resto.meta(), &resto_options);
        if resto_layout.ns != ns {
            return Ok(None);
        }
        let rnw = resto_layout.nw();
        // outer w -> restoration w = (x, p, n, s)
        let map_w: Vec<usize> = (0..nw).map(|i| if i < n { i } else { i + 2 * m }).collect();
        // outer lower/upper list positions -> inner lower/upper list positions
        let mut inv = vec![usize::MAX; rnw];
        for (k, &i) in resto_layout.lower_idx.iter().enumerate() {
            inv[i] = k;
        }
        let map_l: Vec<usize> = layout.lower_idx.iter().map(|&i| inv[map_w[i]]).collect();
        inv.iter_mut().for_each(|v| *v = usize::MAX);
        for (k, &i) in resto_layout.upper_idx.iter().enumerate() {
            inv[i] = k;
        }
        let map_u: Vec<usize> = layout.upper_idx.iter().map(|&i| inv[map_w[i]]).collect();
        if map_l.iter().chain(&map_u).any(|&k| k == usize::MAX) {
            return Ok(None);
        }
        let lower_pos: Vec<usize> = layout.lower_idx.iter().map(|&i| map_w[i]).collect();
        let upper_pos: Vec<usize> = layout.upper_idx.iter().map(|&i| map_w[i]).collect();
        let (backend, kept_storage) = match self.resto_spare.take() {
            Some(kept) => {
                let (mut backend, storage) = kept.split(&resto_layout, &resto_options);
                // same structure and options: only the right-hand sides may differ
                backend.set_rhs(&resto_layout.rhs);
                (backend, storage)
            }
            None => {
                let t_analysis = Instant::now();
                let made = self
                    .backend
                    .for_model(&resto, &resto_layout, &resto_options)?;
                self.resto_backends += 1;
                self.resto_setup = t_analysis.elapsed().as_secs_f64();
                (made, None)
            }
        };
        let (counts_before, times_before) = backend.counters();
        let analysis_before = backend.analysis_seconds();
        let unscaling = Unscaling {
            dual: &vec![1.0; rnw],
            viol: &vec![1.0; m],
        };
        let storage = match kept_storage {
            Some(mut kept) => {
                // an earlier solve's storage: this solve's bounds, in place
                kept.bounds.refill(&backend, &resto_layout, unscaling)?;
                kept
            }
            None => {
                let on_device = LayoutOnDevice::new(&backend, &resto_layout, unscaling)?;
                RunStorage::allocate(&backend, &resto_layout, &resto_options, on_device)?
            }
        };
        // the bound lists are sorted: the entries of x come first
        let lower_x = layout.lower_idx.partition_point(|&i| i < n);
        let upper_x = layout.upper_idx.partition_point(|&i| i < n);
        let (nl, nu) = (layout.lower_idx.len(), layout.upper_idx.len());
        let zeros = |len: usize| backend.zeros(len);
        Ok(Some(Restoration {
            map_w: backend.index_from_host(&map_w)?,
            map_l: backend.index_from_host(&map_l)?,
            map_u: backend.index_from_host(&map_u)?,
            lower_pos: backend.index_from_host(&lower_pos)?,
            upper_pos: backend.index_from_host(&upper_pos)?,
            w0: zeros(rnw)?,
            zl0: zeros(rnw)?,
            zu0: zeros(rnw)?,
            y0: zeros(m)?,
            p0: zeros(m)?,
            n0: zeros(m)?,
            scratch_m: zeros(m)?,
            zl_c: zeros(nl)?,
            zu_c: zeros(nu)?,
            zl_x: zeros(lower_x)?,
            zu_x: zeros(upper_x)?,
            storage: Some(storage),
            counts_before,
            times_before,
            analysis_before,
            model: resto,
            layout: resto_layout,
            options: resto_options,
            backend,
            n,
            m,
            ns,
        }))
    }

    /// Feasibility restoration phase: solve Ipopt's ℓ1 restoration problem with the same
    /// machinery until the original filter accepts a point. `None`: the iterate was
    /// replaced by an acceptable point; `Some(status)`: the solve ends.
    ///
    /// The restoration problem, its KKT backend (with the symbolic analysis of its KKT
    /// pattern) and the inner run's storage (its layout on the device and every vector of
    /// its state) are made at the first phase (the backend and the storage unless an
    /// earlier solve of the same structure kept them: [`KeptRestoration`]) and kept for the
    /// later ones, which allocate nothing: the storage is reset in place and each phase
    /// starts from device vectors built by kernels from the current iterate (no vector
    /// crosses to the host).
    pub(super) fn restoration(
        &mut self,
        theta: f64,
        phi: f64,
        driver: &mut Driver<'_, '_>,
    ) -> Result<Option<Status>, SolverError> {
        let options = self.options;
        if self.layout.m == 0 {
            return Ok(Some(Status::RestorationFailed));
        }
        tracing::debug!(theta, "entering restoration phase");
        self.filter.augment(theta, phi, options);
        self.restorations += 1;
        let bytes_at_entry = self.device.transferred_bytes_on_this_thread();
        let allocations_at_entry = self.device.allocations_on_this_thread();
        let first = self.resto.is_none();
        let Some(mut resto) = self.restoration_problem()? else {
            return Ok(Some(Status::RestorationFailed));
        };
        let rho = options.resto_penalty_parameter;
        let rules = self.restoration_rules();
        resto.options.theta_max_fact = rules.theta_max_fact;
        // the violation where the phase begins (`resto_accepts`)
        let at_entry = ViolationAtEntry {
            theta,
            viol: self.backend.norm_inf(&self.residual),
        };
        let mu_r = self.mu.max(at_entry.viol);
        tracing::debug!(mu_r, viol = at_entry.viol, "restoration barrier parameter");
        // ζ = √μ of the proximity term: the main phase's μ, or (Ipopt's
        // `RestoIpoptNLP::Eta`) the restoration phase's own μ_R at its start
        let mu_proximity = if rules.proximity_at_resto_mu {
            mu_r
        } else {
            self.mu
        };
        resto.start(
            &*self.backend,
            &self.iterate,
            &self.residual,
            mu_proximity,
            mu_r,
            rho,
        );
        let start = Start {
            w: Values::Device(&resto.w0),
            compute_slacks: false,
            y: Some(Values::Device(&resto.y0)),
            zl: Some(Values::Device(&resto.zl0)),
            zu: Some(Values::Device(&resto.zu0)),
            z_min: 1e-20,
            mu: mu_r,
            push: (0.0, 0.0),
            slack_push: (0.0, 0.0),
        };
        let Some(mut storage) = resto.storage.take() else {
            return Err(SolverError::Linalg(
                simdnlp_linalg::LinalgError::InvalidState(
                    "restoration storage missing on the device".into(),
                ),
            ));
        };
        // the last phase's vectors, back to their state at allocation (kernels only)
        storage.reset(&resto.backend);
        let problem = Problem {
            device: self.device,
            model: &resto.model,
            layout: &resto.layout,
            obj_scale: 1.0,
        };
        let mut inner =
            Ipm::with_storage(&mut resto.backend, problem, &resto.options, storage, "r");
        let bytes = self.device.transferred_bytes_on_this_thread() - bytes_at_entry;
        tracing::debug!(
            phase = self.restorations,
            first,
            bytes,
            "restoration phase set up (host-device bytes: at the first phase of a solve the \
             restoration problem's set-up, else scalars only)"
        );
        inner.max_iter = self.max_iter.saturating_sub(self.iter);
        inner.started = self.started;
        inner.iter_offset = self.iter_offset + self.iter + 1;
        let map_w = &resto.map_w;
        let mut hook = |wr: &B::Vector| self.resto_accepts(wr, map_w, at_entry);
        let exit = inner.run(&start, Some(&mut hook), driver)?;
        let inner_iter = inner.iter;
        // the inner point stays in the storage, kept for the next phase
        let storage = inner.into_storage();
        let inner_final = &storage.iterate;
        // one backend for every phase: its counters hold all of them (since this solve
        // took it)
        let (counts, times) = resto.backend.counters();
        self.resto_counts = counts.since(&resto.counts_before);
        self.resto_times = times.since(&resto.times_before);
        self.resto_analysis =
            self.resto_setup + resto.backend.analysis_seconds() - resto.analysis_before;
        self.iter += inner_iter;
        let allocations = self.device.allocations_on_this_thread() - allocations_at_entry;
        tracing::debug!(
            ?exit,
            inner_iter,
            allocations,
            "restoration phase finished (device allocations: at the first phase of a \
             solve the restoration problem's set-up, else none)"
        );
        let outcome = match exit {
            Exit::RestorationAccepted => {
                if rules.bound_mult_newton {
                    self.bound_mult_newton_update();
                    self.take_trial();
                } else {
                    self.take_trial();
                    let backend = &*self.backend;
                    let iterate = &mut self.iterate;
                    backend.gather(&mut iterate.zl, &inner_final.zl, &resto.map_l);
                    backend.gather(&mut iterate.zu, &inner_final.zu, &resto.map_u);
                }
                let backend = &*self.backend;
                let iterate = &mut self.iterate;
                backend.fill(&mut iterate.y, 0.0);
                // Ipopt's bound_mult_reset_threshold (1000): large restoration bound
                // multipliers are reset to 1.
                if backend
                    .norm_inf(&iterate.zl)
                    .max(backend.norm_inf(&iterate.zu))
                    > 1e3
                {
                    backend.fill(&mut iterate.zl, 1.0);
                    backend.fill(&mut iterate.zu, 1.0);
                }
                self.safeguard_bound_multipliers();
                self.last_step.alpha_dual = 1.0;
                self.last_step.alpha_primal = 1.0;
                None
            }
            Exit::Done(Status::SolveSucceeded | Status::SolvedToAcceptableLevel) => {
                // Converged to a minimizer of the infeasibility: feasible or not?
                let backend = &mut *self.backend;
                let trial = &mut self.trial;
                backend.gather(&mut trial.w, &inner_final.w, &resto.map_w);
                backend.eval_residual(self.model, &trial.w, &mut trial.residual);
                backend.mul(&mut self.work.m, &trial.residual, &self.bounds.viol_unscale);
                let viol = backend.norm_inf(&self.work.m);
                Some(if viol > options.constr_viol_tol {
                    Status::InfeasibleProblemDetected
                } else {
                    Status::RestorationFailed
                })
            }
            Exit::Done(
                status @ (Status::MaximumIterationsExceeded
                | Status::MaximumCpuTimeExceeded
                | Status::UserRequestedStop),
            ) => Some(status),
            Exit::Done(_) => Some(Status::RestorationFailed),
        };
        resto.storage = Some(storage);
        self.resto = Some(resto);
        Ok(outcome)
    }
}

impl<B: Backend> Restoration<'_, B> {
    /// What the next solve of the same structure keeps of this one: the backend and the
    /// inner run's storage.
    pub(super) fn into_kept(self) -> KeptRestoration<B> {
        KeptRestoration {
            lengths: Lengths::of(&self.layout),
            watchdog: self.options.watchdog,
            lower_idx: self.layout.lower_idx,
            upper_idx: self.layout.upper_idx,
            slack_rows: self.layout.slack_rows,
            backend: self.backend,
            storage: self.storage,
        }
    }

    /// Build a phase's start on the device from the outer iterate `outer` with residual
    /// `residual`: the problem re-centred at `x` (weights, `ζ = √mu`), `(p, n)` from the
    /// residual ([`simdnlp_device::Device::resto_elastic`] with `μ_R`), `w0 = (x, p, n, s)`,
    /// the outer bound multipliers (those of `x` capped at `ρ`) with `μ_R/p`, `μ_R/n` for
    /// the bounds of `p, n`. Kernels only, no host traffic.
    fn start(
        &mut self,
        backend: &B,
        outer: &Iterate<B::Vector>,
        residual: &B::Vector,
        mu: f64,
        mu_r: f64,
        rho: f64,
    ) {
        let (n, m, ns) = (self.n, self.m, self.ns);
        let w = &outer.w;
        let device = backend.device();
        self.model.restart(w, mu);
        device.resto_elastic(residual, mu_r, rho, &mut self.p0, &mut self.n0);
        device.copy_range(&mut self.w0, 0, w, 0, n);
        device.copy_range(&mut self.w0, n, &self.p0, 0, m);
        device.copy_range(&mut self.w0, n + m, &self.n0, 0, m);
        device.copy_range(&mut self.w0, n + 2 * m, w, n, ns);
        cap_x_part(backend, &outer.zl, &mut self.zl_c, &mut self.zl_x, rho);
        device.fill(&mut self.zl0, 0.0);
        device.scatter(&mut self.zl0, &self.lower_pos, &self.zl_c);
        device.recip(&mut self.scratch_m, mu_r, &self.p0);
        device.copy_range(&mut self.zl0, n, &self.scratch_m, 0, m);
        device.recip(&mut self.scratch_m, mu_r, &self.n0);
        device.copy_range(&mut self.zl0, n + m, &self.scratch_m, 0, m);
        cap_x_part(backend, &outer.zu, &mut self.zu_c, &mut self.zu_x, rho);
        device.fill(&mut self.zu0, 0.0);
        device.scatter(&mut self.zu0, &self.upper_pos, &self.zu_c);
    }
}

/// The constraint violation of the original problem where a restoration phase began
/// (scaled problem), against which [`Ipm::resto_accepts`] measures its reduction.
#[derive(Clone, Copy, Debug)]
struct ViolationAtEntry {
    /// θ = `‖c‖_1`.
    theta: f64,
    /// The largest violation `‖c‖_∞`.
    viol: f64,
}

/// `out = z` with its first `len(x_part)` entries (those of `x`) replaced by
/// `min(z_i, ρ)`, computed as `−max(−z_i, −ρ)` (exact: negation does not round).
fn cap_x_part<B: Backend>(
    backend: &B,
    z: &B::Vector,
    out: &mut B::Vector,
    x_part: &mut B::Vector,
    rho: f64,
) {
    let device = backend.device();
    let len = device.len(x_part);
    device.copy(out, z);
    device.copy_range(x_part, 0, out, 0, len);
    device.scale(-1.0, x_part);
    device.clamp_below(x_part, -rho);
    device.scale(-1.0, x_part);
    device.copy_range(out, 0, x_part, 0, len);
}
