//! The interior-point algorithm (Wächter & Biegler 2006), written against [`Backend`].
//!
//! Nothing in this module reads or writes a vector element: every vector operation is a
//! backend kernel, so the same code runs wherever the backend keeps its vectors. The only
//! host traffic beyond scalars is at setup, at the first restoration phase of a solve
//! (the restoration problem's index maps and bounds, and its backend unless an earlier
//! solve of the same structure made it; kept for the later phases, which start from
//! device vectors) and at the end (reading the solution).

use crate::backend::{Backend, KktStatus};
use crate::drive::{Driver, IterationRecord};
use crate::evaluate::DeviceNlp;
use crate::evaluation::PhaseTimes;
use crate::layout::Layout;
use crate::models::RestoOnDevice;
use crate::options::{MuStrategy, Options, PrintLevel};
use crate::result::{CallbackCounts, SolverError, Status};
use simdnlp_device::Device as _;
use std::time::Instant;

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

/// The iterate a filter line search starts from: its constraint violation `θ`, its
/// barrier objective `φ`, and the slope `∇φᵀd` of the barrier objective along the step.
#[derive(Clone, Copy, Debug)]
struct StepReference {
    theta: f64,
    phi: f64,
    slope: f64,
}

enum Acc {
    Accept { f_type: bool },
    Reject,
    RejectFilter,
}

enum Ls {
    Accepted {
        alpha: f64,
        alpha_z: f64,
        trials: usize,
        tiny: bool,
    },
    Restoration {
        trials: usize,
    },
}

/// The layout's bound data and the unscaling vectors on the device: built from the host
/// [`Layout`] once per problem (the original problem's at setup, the restoration
/// problem's at the first restoration phase of a solve, then kept for later phases).
pub(crate) struct LayoutOnDevice<B: Backend> {
    li: B::Index,
    ui: B::Index,
    lo_v: B::Vector,
    up_v: B::Vector,
    damp_l: B::Vector,
    damp_u: B::Vector,
    lo_full: B::Vector,
    up_full: B::Vector,
    dual_unscale: B::Vector,
    viol_unscale: B::Vector,
}

impl<B: Backend> LayoutOnDevice<B> {
    /// The slacks of `w` to its finite bounds: `lower = w[li] − lo`, `upper = up − w[ui]`.
    fn slacks(&self, be: &B, w: &B::Vector, lower: &mut B::Vector, upper: &mut B::Vector) {
        be.gather_slack(lower, w, &self.li, &self.lo_v, 1.0);
        be.gather_slack(upper, w, &self.ui, &self.up_v, -1.0);
    }

    /// Upload `lay`'s bound lists, bounds and damping weights; `dual_unscale` (length
    /// `nw`) and `viol_unscale` (length `m`) convert scaled dual infeasibility and
    /// residuals back to user units.
    pub(crate) fn new(
        be: &B,
        lay: &Layout,
        dual_unscale: &[f64],
        viol_unscale: &[f64],
    ) -> Result<Self, SolverError> {
        let lo_c: Vec<f64> = lay.lower_idx.iter().map(|&i| lay.lo[i]).collect();
        let up_c: Vec<f64> = lay.upper_idx.iter().map(|&i| lay.up[i]).collect();
        Ok(Self {
            li: be.index_from_host(&lay.lower_idx)?,
            ui: be.index_from_host(&lay.upper_idx)?,
            lo_v: be.vector_from_host(&lo_c)?,
            up_v: be.vector_from_host(&up_c)?,
            damp_l: be.vector_from_host(&lay.damp_l)?,
            damp_u: be.vector_from_host(&lay.damp_u)?,
            lo_full: be.vector_from_host(&lay.lo)?,
            up_full: be.vector_from_host(&lay.up)?,
            dual_unscale: be.vector_from_host(dual_unscale)?,
            viol_unscale: be.vector_from_host(viol_unscale)?,
        })
    }
}

/// Interior-point state on one backend for one (scaled) model.
pub(crate) struct Ipm<'a, B: Backend> {
    be: &'a mut B,
    /// The device of `be` (the restoration problem is built on it).
    device: &'a B::Device,
    model: &'a dyn DeviceNlp<B::Device>,
    lay: &'a Layout,
    o: &'a Options,
    /// Signed objective scaling of `model` relative to the user's objective.
    obj_scale: f64,
    /// Label printed in the log (`""` or `"r"` for restoration).
    tag: &'static str,
    t0: Instant,

    /// The layout's bound data and unscaling vectors on the device.
    bounds: LayoutOnDevice<B>,

    /// Current iterate.
    pub w: B::Vector,
    pub y: B::Vector,
    pub zl: B::Vector,
    pub zu: B::Vector,
    sl: B::Vector,
    su: B::Vector,
    f: f64,
    /// Objective at the previous iterate (acceptable-level objective change test).
    f_prev: f64,
    gf: B::Vector,
    r: B::Vector,
    glag: B::Vector,
    gphi: B::Vector,

    wt: B::Vector,
    slt: B::Vector,
    sut: B::Vector,
    rt: B::Vector,
    ft: f64,

    dw: B::Vector,
    dy: B::Vector,
    dzl: B::Vector,
    dzu: B::Vector,
    dsl: B::Vector,
    dsu: B::Vector,
    sigma: B::Vector,
    rw: B::Vector,
    ry: B::Vector,
    tl: B::Vector,
    tu: B::Vector,
    tw: B::Vector,
    tm: B::Vector,
    rsoc: B::Vector,
    dw2: B::Vector,
    dy2: B::Vector,

    // watchdog (vectors allocated only when the option is on)
    wd_w: B::Vector,
    wd_y: B::Vector,
    wd_zl: B::Vector,
    wd_zu: B::Vector,
    wd_dw: B::Vector,
    wd_dy: B::Vector,
    wd_dzl: B::Vector,
    wd_dzu: B::Vector,
    /// (θ, φ, ∇φᵀd, μ) at the stored watchdog point.
    wd_ref: (f64, f64, f64, f64),
    wd_shortened: usize,
    wd_active: bool,
    wd_trials: usize,

    /// Barrier parameter.
    pub mu: f64,
    tau: f64,
    theta_max: f64,
    theta_min: f64,
    filter: Vec<(f64, f64)>,
    delta_w_last: f64,
    /// Consecutive iterations whose KKT matrix was singular without δ_c.
    degen_iters: usize,
    /// The Jacobian is treated as rank deficient: every factorization carries
    /// δ_c = δ̄_c μ^κ_c from its first attempt (Ipopt's `jac_degenerate`).
    jac_degenerate: bool,
    /// Iterations done (restoration iterations included).
    pub iter: usize,
    /// Added to `iter` in the iteration records (restoration phases number their
    /// iterations after the outer iteration that entered them).
    iter_offset: usize,
    /// Iteration limit of this run.
    pub max_iter: usize,
    acceptable_count: usize,
    filter_reject_count: usize,
    filter_resets: usize,
    force_mu_decrease: bool,
    /// The last step was tiny and its multiplier step below `tiny_step_y_tol` (Ipopt's
    /// `tiny_step_last_iteration`): one more tiny step forces a μ decrease, or ends the
    /// run when μ is at its floor.
    tiny_last: bool,
    /// `‖Δy‖∞ < tiny_step_y_tol` for the current direction.
    tiny_y: bool,
    adaptive: bool,
    /// Unscaled measures at the last evaluated iterate.
    pub dual_inf_u: f64,
    pub constr_viol_u: f64,
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
    /// A restoration-problem backend from an earlier solve of the same structure and
    /// backend options, used instead of making one.
    resto_spare: Option<B>,
    // log state
    last_alpha: (f64, f64),
    last_ls: usize,
    last_reg: f64,
    last_dnorm: f64,
}

/// `lg(rg)` column: log10 of the regularization, `-` when none (no allocation).
struct Lg(f64);

impl std::fmt::Display for Lg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 > 0.0 {
            write!(f, "{:5.1}", self.0.log10())
        } else {
            f.write_str("    -")
        }
    }
}

impl<'a, B: Backend> Ipm<'a, B> {
    /// Allocate the state. `dual_unscale` (length `nw`) and `viol_unscale` (length `m`)
    /// convert scaled dual infeasibility and residuals back to user units.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        be: &'a mut B,
        device: &'a B::Device,
        model: &'a dyn DeviceNlp<B::Device>,
        lay: &'a Layout,
        o: &'a Options,
        obj_scale: f64,
        dual_unscale: &[f64],
        viol_unscale: &[f64],
        tag: &'static str,
    ) -> Result<Self, SolverError> {
        let on_device = LayoutOnDevice::new(be, lay, dual_unscale, viol_unscale)?;
        Self::with_layout(be, device, model, lay, o, obj_scale, on_device, tag)
    }

    /// [`Ipm::new`] with the layout already on the device (`on_device` was built from
    /// `lay`); [`Ipm::into_layout`] gives it back.
    #[allow(clippy::too_many_arguments)]
    fn with_layout(
        be: &'a mut B,
        device: &'a B::Device,
        model: &'a dyn DeviceNlp<B::Device>,
        lay: &'a Layout,
        o: &'a Options,
        obj_scale: f64,
        on_device: LayoutOnDevice<B>,
        tag: &'static str,
    ) -> Result<Self, SolverError> {
        let (nw, m) = (lay.nw(), lay.m);
        let (nl, nu) = (lay.lower_idx.len(), lay.upper_idx.len());
        let z = |n: usize| be.zeros(n);
        let (w, gf, glag, gphi, wt, dw, sigma, rw, tw, dw2) = (
            z(nw)?,
            z(nw)?,
            z(nw)?,
            z(nw)?,
            z(nw)?,
            z(nw)?,
            z(nw)?,
            z(nw)?,
            z(nw)?,
            z(nw)?,
        );
        let (y, r, rt, dy, ry, tm, rsoc, dy2) =
            (z(m)?, z(m)?, z(m)?, z(m)?, z(m)?, z(m)?, z(m)?, z(m)?);
        let (zl, sl, slt, dzl, dsl, tl) = (z(nl)?, z(nl)?, z(nl)?, z(nl)?, z(nl)?, z(nl)?);
        let (zu, su, sut, dzu, dsu, tu) = (z(nu)?, z(nu)?, z(nu)?, z(nu)?, z(nu)?, z(nu)?);
        let wd = |k: usize| if o.watchdog { be.zeros(k) } else { be.zeros(0) };
        let (wd_w, wd_dw, wd_y, wd_dy) = (wd(nw)?, wd(nw)?, wd(m)?, wd(m)?);
        let (wd_zl, wd_dzl, wd_zu, wd_dzu) = (wd(nl)?, wd(nl)?, wd(nu)?, wd(nu)?);
        Ok(Self {
            bounds: on_device,
            w,
            y,
            zl,
            zu,
            sl,
            su,
            f: 0.0,
            f_prev: 0.0,
            gf,
            r,
            glag,
            gphi,
            wt,
            slt,
            sut,
            rt,
            ft: 0.0,
            dw,
            dy,
            dzl,
            dzu,
            dsl,
            dsu,
            sigma,
            rw,
            ry,
            tl,
            tu,
            tw,
            tm,
            rsoc,
            dw2,
            dy2,
            wd_w,
            wd_y,
            wd_zl,
            wd_zu,
            wd_dw,
            wd_dy,
            wd_dzl,
            wd_dzu,
            wd_ref: (0.0, 0.0, 0.0, 0.0),
            wd_shortened: 0,
            wd_active: false,
            wd_trials: 0,
            mu: o.mu_init,
            tau: 0.99,
            theta_max: 0.0,
            theta_min: 0.0,
            filter: Vec::with_capacity(o.max_iter.clamp(16, 100_000) + 16),
            delta_w_last: 0.0,
            degen_iters: 0,
            jac_degenerate: false,
            iter: 0,
            iter_offset: 0,
            max_iter: o.max_iter,
            acceptable_count: 0,
            filter_reject_count: 0,
            filter_resets: 0,
            force_mu_decrease: false,
            tiny_last: false,
            tiny_y: false,
            adaptive: o.mu_strategy == MuStrategy::AdaptiveLoqo,
            dual_inf_u: f64::INFINITY,
            constr_viol_u: f64::INFINITY,
            compl_u: f64::INFINITY,
            restorations: 0,
            resto_counts: CallbackCounts::default(),
            resto_times: PhaseTimes::default(),
            resto_backends: 0,
            resto_analysis: 0.0,
            resto_setup: 0.0,
            resto: None,
            resto_spare: None,
            last_alpha: (0.0, 0.0),
            last_ls: 0,
            last_reg: 0.0,
            last_dnorm: 0.0,
            be,
            device,
            model,
            lay,
            o,
            obj_scale,
            tag,
            t0: Instant::now(),
        })
    }

    /// The layout on the device, back from a finished run (for the next run on the same
    /// problem).
    fn into_layout(self) -> LayoutOnDevice<B> {
        self.bounds
    }

    /// Give the solve a restoration-problem backend kept from an earlier solve of the
    /// same structure with the same backend options (see [`Ipm::take_restoration_backend`]):
    /// its first restoration phase uses it instead of making one.
    pub fn adopt_restoration_backend(&mut self, be: Option<B>) {
        self.resto_spare = be;
    }

    /// The restoration problem's backend after the run (the one it made or adopted), to
    /// keep for the next solve of the same structure.
    pub fn take_restoration_backend(&mut self) -> Option<B> {
        self.resto
            .take()
            .map(|r| r.be)
            .or_else(|| self.resto_spare.take())
    }

    /// Objective of the current iterate in the user's units.
    pub fn objective_unscaled(&self) -> f64 {
        self.f / self.obj_scale
    }

    /// Access to the backend (for reading results).
    pub fn backend(&self) -> &B {
        self.be
    }

    // ------------------------------------------------------------------ evaluation helpers

    /// Barrier function φ with the κ_d damping of one-sided bounds.
    fn barrier(&self, f: f64, sl: &B::Vector, su: &B::Vector) -> f64 {
        let be = &*self.be;
        let ln = be.sum_ln(sl) + be.sum_ln(su);
        let damp = be.dot(&self.bounds.damp_l, sl) + be.dot(&self.bounds.damp_u, su);
        f - self.mu * ln + self.o.kappa_d * self.mu * damp
    }

    /// Gradient of the Lagrangian `∇f + Jᵀy − P_L z_L + P_U z_U` into `glag`.
    fn compute_glag(&mut self) {
        let be = &*self.be;
        be.copy(&mut self.glag, &self.gf);
        be.jt_mul(1.0, &self.y, 1.0, &mut self.glag);
        be.scatter_add(-1.0, &self.zl, &self.bounds.li, &mut self.glag);
        be.scatter_add(1.0, &self.zu, &self.bounds.ui, &mut self.glag);
    }

    /// Barrier gradient `∇φ` into `gphi`.
    fn compute_gphi(&mut self) {
        let be = &*self.be;
        let mu = self.mu;
        be.copy(&mut self.gphi, &self.gf);
        be.recip(&mut self.tl, mu, &self.sl);
        be.scatter_add(-1.0, &self.tl, &self.bounds.li, &mut self.gphi);
        be.recip(&mut self.tu, mu, &self.su);
        be.scatter_add(1.0, &self.tu, &self.bounds.ui, &mut self.gphi);
        let kd = self.o.kappa_d * mu;
        be.scatter_add(kd, &self.bounds.damp_l, &self.bounds.li, &mut self.gphi);
        be.scatter_add(-kd, &self.bounds.damp_u, &self.bounds.ui, &mut self.gphi);
    }

    /// Evaluate f, ∇f, r, J at the current `w` (after initialization or a restoration).
    fn eval_point(&mut self) -> bool {
        self.f = self.be.eval_obj(self.model, &self.w);
        self.be.eval_residual(self.model, &self.w, &mut self.r);
        self.be.eval_grad(self.model, &self.w, &mut self.gf);
        let jac_ok = self.be.eval_jac(self.model, &self.w);
        let be = &*self.be;
        jac_ok
            && self.f.is_finite()
            && be.norm_inf(&self.r).is_finite()
            && be.norm_inf(&self.gf).is_finite()
    }

    fn compl(&self, mu: f64) -> f64 {
        let be = &*self.be;
        be.compl_inf(&self.sl, &self.zl, mu)
            .max(be.compl_inf(&self.su, &self.zu, mu))
    }

    fn scaling_factors(&self) -> (f64, f64) {
        let be = &*self.be;
        let (m, nl, nu) = (
            self.lay.m,
            self.lay.lower_idx.len(),
            self.lay.upper_idx.len(),
        );
        let smax = self.o.s_max;
        let zn = be.norm_1(&self.zl) + be.norm_1(&self.zu);
        let sd = if m + nl + nu > 0 {
            smax.max((be.norm_1(&self.y) + zn) / (m + nl + nu) as f64) / smax
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

    // ------------------------------------------------------------------ initialization

    /// Set up the starting iterate. Returns `false` when the model cannot be evaluated
    /// at the start (NaN/∞).
    fn initialize(&mut self, st: &Start<'_, B::Vector>) -> Result<bool, SolverError> {
        let (n, ns) = (self.lay.n, self.lay.ns);
        self.mu = st.mu;
        self.tau = self.o.tau_min.max(1.0 - self.mu);
        self.iter = 0;
        self.filter.clear();
        self.delta_w_last = 0.0;
        self.degen_iters = 0;
        self.jac_degenerate = false;
        self.acceptable_count = 0;
        self.filter_reject_count = 0;
        self.filter_resets = 0;
        self.force_mu_decrease = false;
        self.tiny_last = false;
        self.wd_shortened = 0;
        self.wd_active = false;
        self.adaptive = self.o.mu_strategy == MuStrategy::AdaptiveLoqo;
        // Per-component push/frac vectors (tw: push, dw2: frac; the slack parts through
        // dw, free until the first step).
        let be = &*self.be;
        be.fill(&mut self.tw, st.push.0);
        be.fill(&mut self.dw, st.slack_push.0);
        be.device().copy_range(&mut self.tw, n, &self.dw, n, ns);
        be.fill(&mut self.dw2, st.push.1);
        be.fill(&mut self.dw, st.slack_push.1);
        be.device().copy_range(&mut self.dw2, n, &self.dw, n, ns);
        match &st.w {
            Values::Host(v) => self.be.copy_from_host(&mut self.w, v)?,
            Values::Device(v) => self.be.copy(&mut self.w, v),
        }
        if st.compute_slacks {
            self.be.push_into_bounds(
                &mut self.w,
                &self.bounds.lo_full,
                &self.bounds.up_full,
                &self.tw,
                &self.dw2,
            );
            self.be.set_slacks_from_cons(self.model, &mut self.w);
        }
        self.be.push_into_bounds(
            &mut self.w,
            &self.bounds.lo_full,
            &self.bounds.up_full,
            &self.tw,
            &self.dw2,
        );
        let be = &*self.be;
        self.bounds.slacks(be, &self.w, &mut self.sl, &mut self.su);
        // Bound multipliers.
        match &st.zl {
            Some(z) => {
                let src = match z {
                    Values::Host(v) => {
                        self.be.copy_from_host(&mut self.tw, v)?;
                        &self.tw
                    }
                    Values::Device(v) => *v,
                };
                self.be.gather(&mut self.zl, src, &self.bounds.li);
                self.be.clamp_below(&mut self.zl, st.z_min);
            }
            None => self.be.fill(&mut self.zl, self.o.bound_mult_init_val),
        }
        match &st.zu {
            Some(z) => {
                let src = match z {
                    Values::Host(v) => {
                        self.be.copy_from_host(&mut self.tw, v)?;
                        &self.tw
                    }
                    Values::Device(v) => *v,
                };
                self.be.gather(&mut self.zu, src, &self.bounds.ui);
                self.be.clamp_below(&mut self.zu, st.z_min);
            }
            None => self.be.fill(&mut self.zu, self.o.bound_mult_init_val),
        }
        if !self.eval_point() {
            return Ok(false);
        }
        match &st.y {
            Some(Values::Host(y)) => self.be.copy_from_host(&mut self.y, y)?,
            Some(Values::Device(y)) => self.be.copy(&mut self.y, y),
            None => self.least_squares_y()?,
        }
        let theta0 = self.be.norm_1(&self.r);
        self.theta_max = self.o.theta_max_fact * theta0.max(1.0);
        self.theta_min = self.o.theta_min_fact * theta0.max(1.0);
        Ok(true)
    }

    /// Least-squares constraint multipliers: solve `[[I, Jᵀ], [J, 0]] (d, y) = (−(∇f − z_L + z_U), 0)`;
    /// discarded (y = 0) when `‖y‖∞ > constr_mult_init_max`.
    fn least_squares_y(&mut self) -> Result<(), SolverError> {
        self.be.fill(&mut self.y, 0.0);
        if self.lay.m == 0 || self.o.constr_mult_init_max <= 0.0 {
            return Ok(());
        }
        self.be.fill(&mut self.sigma, 1.0);
        self.be.kkt_reset_quality();
        let mut st = self.be.kkt_factorize(&self.sigma, 0.0, 0.0, false)?;
        if st != KktStatus::Correct {
            st = self.be.kkt_factorize(&self.sigma, 0.0, 1e-8, false)?;
        }
        if st != KktStatus::Correct {
            return Ok(());
        }
        let be = &mut *self.be;
        be.copy(&mut self.rw, &self.gf);
        be.scatter_add(-1.0, &self.zl, &self.bounds.li, &mut self.rw);
        be.scatter_add(1.0, &self.zu, &self.bounds.ui, &mut self.rw);
        be.scale(-1.0, &mut self.rw);
        be.fill(&mut self.ry, 0.0);
        let _ = be.kkt_solve(&self.rw, &self.ry, &mut self.dw, &mut self.dy)?;
        let ny = be.norm_inf(&self.dy);
        if ny.is_finite() && ny <= self.o.constr_mult_init_max {
            be.copy(&mut self.y, &self.dy);
        }
        Ok(())
    }

    // ------------------------------------------------------------------ main loop

    /// Run the method from `st`. `hook` is the restoration-phase exit test (`None` for
    /// the original problem); `driver` sees every iteration and may stop the run.
    pub fn run(
        &mut self,
        st: &Start<'_, B::Vector>,
        mut hook: Option<Hook<'_, B::Vector>>,
        driver: &mut Driver<'_, '_>,
    ) -> Result<Exit, SolverError> {
        if !self.initialize(st)? {
            return Ok(Exit::Done(Status::InvalidNumberDetected));
        }
        let o = self.o;
        if self.o.print_level >= PrintLevel::Iterations && self.tag.is_empty() {
            tracing::info!(
                "iter    objective    inf_pr   inf_du lg(mu)  ||d||  lg(rg) alpha_du alpha_pr  ls"
            );
        }
        loop {
            // ---- optimality measures at the current iterate
            self.compute_glag();
            let be = &*self.be;
            let dual = be.norm_inf(&self.glag);
            let primal = be.norm_inf(&self.r);
            let compl0 = self.compl(0.0);
            let (sd, sc) = self.scaling_factors();
            let e0 = (dual / sd).max(primal).max(compl0 / sc);
            be.mul(&mut self.tw, &self.glag, &self.bounds.dual_unscale);
            self.dual_inf_u = be.norm_inf(&self.tw);
            be.mul(&mut self.tm, &self.r, &self.bounds.viol_unscale);
            self.constr_viol_u = be.norm_inf(&self.tm);
            self.compl_u = compl0 / self.obj_scale.abs();
            // a kernel failure since the last iteration (a failed reduction reads NaN
            // meanwhile) ends the solve with the device's error, once per iteration
            self.be.synchronize()?;
            self.log_iter(dual);
            if driver.observe(&self.record(dual)) {
                return Ok(Exit::Done(Status::UserRequestedStop));
            }
            if !e0.is_finite() {
                return Ok(Exit::Done(Status::InvalidNumberDetected));
            }
            if e0 <= o.tol
                && self.dual_inf_u <= o.dual_inf_tol
                && self.constr_viol_u <= o.constr_viol_tol
                && self.compl_u <= o.compl_inf_tol
            {
                return Ok(Exit::Done(Status::SolveSucceeded));
            }
            let obj_change = (self.f - self.f_prev).abs() / self.f.abs().max(1.0);
            self.f_prev = self.f;
            let acceptable = e0 <= o.acceptable_tol
                && self.dual_inf_u <= o.acceptable_dual_inf_tol
                && self.constr_viol_u <= o.acceptable_constr_viol_tol
                && self.compl_u <= o.acceptable_compl_inf_tol
                && (self.iter == 0 || obj_change <= o.acceptable_obj_change_tol);
            self.acceptable_count = if acceptable {
                self.acceptable_count + 1
            } else {
                0
            };
            if o.acceptable_iter > 0 && self.acceptable_count >= o.acceptable_iter {
                return Ok(Exit::Done(Status::SolvedToAcceptableLevel));
            }
            if self.iter >= self.max_iter {
                return Ok(Exit::Done(Status::MaximumIterationsExceeded));
            }
            if self.t0.elapsed().as_secs_f64() > o.max_wall_time {
                return Ok(Exit::Done(Status::MaximumCpuTimeExceeded));
            }
            if self.be.norm_inf(&self.w) > o.diverging_iterates_tol {
                return Ok(Exit::Done(Status::DivergingIterates));
            }

            // ---- barrier parameter update
            if self.adaptive {
                self.adaptive_mu(self.adaptive_mu_floor());
            } else {
                let mu_floor = self.monotone_mu_floor();
                loop {
                    let emu = (dual / sd).max(primal).max(self.compl(self.mu) / sc);
                    if emu > o.barrier_tol_factor * self.mu && !self.force_mu_decrease {
                        break;
                    }
                    let forced = self.force_mu_decrease;
                    self.force_mu_decrease = false;
                    let new_mu = mu_floor.max(
                        (o.mu_linear_decrease_factor * self.mu)
                            .min(self.mu.powf(o.mu_superlinear_decrease_power)),
                    );
                    if new_mu >= self.mu {
                        if forced {
                            return Ok(Exit::Done(if acceptable {
                                Status::SolvedToAcceptableLevel
                            } else {
                                Status::SearchDirectionBecomesTooSmall
                            }));
                        }
                        break;
                    }
                    self.set_mu(new_mu);
                }
            }
            let phi = self.barrier(self.f, &self.sl, &self.su);

            // ---- search direction
            if !self.be.eval_hess(self.model, &self.w, &self.y, 1.0) {
                return Ok(Exit::Done(Status::InvalidNumberDetected));
            }
            if !self.search_direction()? {
                return Ok(Exit::Done(Status::ErrorInStepComputation));
            }

            // ---- line search
            let theta = self.be.norm_1(&self.r);
            let outcome = if o.watchdog {
                self.watchdog_line_search(theta, phi)?
            } else {
                self.line_search(theta, phi, false)?
            };
            match outcome {
                Ls::Accepted {
                    alpha,
                    alpha_z,
                    trials,
                    tiny,
                } => {
                    self.accept(alpha, alpha_z);
                    self.last_ls = trials;
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
                Ls::Restoration { trials } => {
                    self.last_ls = trials;
                    self.tiny_last = false;
                    self.adaptive = false; // adaptive μ failed: monotone from here on
                    if hook.is_some() || !o.restoration {
                        return Ok(Exit::Done(Status::RestorationFailed));
                    }
                    if primal <= 1e-2 * o.tol {
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
                if h(&self.w) {
                    return Ok(Exit::RestorationAccepted);
                }
            }
        }
    }

    /// The complementarity tolerance in the scaled problem's units: `compl_inf_tol` is a
    /// bound on the unscaled complementarity, and the scaled one is `|s_f|` times it.
    fn scaled_compl_inf_tol(&self) -> f64 {
        self.o.compl_inf_tol * self.obj_scale.abs()
    }

    /// Smallest μ of the monotone update, Ipopt's `min(tol, s_f·compl_inf_tol)/(κ_ε + 1)`:
    /// μ must be able to fall below the unscaled complementarity tolerance even when the
    /// objective is scaled down by the gradient-based scaling (a 1e12 objective scaled
    /// by 1e-8 needs μ near 1e-13). `mu_min` bounds only the adaptive update, as in Ipopt.
    fn monotone_mu_floor(&self) -> f64 {
        self.o.tol.min(self.scaled_compl_inf_tol()) / (self.o.barrier_tol_factor + 1.0)
    }

    /// Smallest μ of the adaptive (LOQO) update: `mu_min`, lowered to
    /// `min(tol, s_f·compl_inf_tol)/2` when that is smaller (Ipopt's default for `mu_min`).
    fn adaptive_mu_floor(&self) -> f64 {
        self.o
            .mu_min
            .min(0.5 * self.o.tol.min(self.scaled_compl_inf_tol()))
    }

    fn set_mu(&mut self, mu: f64) {
        self.mu = mu;
        self.tau = self.o.tau_min.max(1.0 - mu);
        self.filter.clear();
    }

    /// LOQO rule `μ = σ · avg(s∘z)` with `σ = 0.1 · min(0.05 (1 − ξ)/ξ, 2)³`; switches to
    /// monotone mode for good once the step size collapses (a restoration or tiny steps).
    fn adaptive_mu(&mut self, mu_floor: f64) {
        let be = &*self.be;
        let (nl, nu) = (self.lay.lower_idx.len(), self.lay.upper_idx.len());
        if nl + nu == 0 {
            return;
        }
        let avg = (be.dot(&self.sl, &self.zl) + be.dot(&self.su, &self.zu)) / (nl + nu) as f64;
        let minp = be
            .min_product(&self.sl, &self.zl)
            .min(be.min_product(&self.su, &self.zu));
        let xi = (minp / avg).clamp(1e-300, 1.0);
        let sigma = 0.1 * (0.05 * (1.0 - xi) / xi).min(2.0).powi(3);
        let new_mu = (sigma * avg).clamp(mu_floor, 1e5);
        if new_mu.is_finite() && new_mu != self.mu {
            self.set_mu(new_mu);
        }
    }

    // ------------------------------------------------------------------ step computation

    /// Assemble, factorize with inertia correction and solve the primal-dual system.
    /// Returns `false` when no regularization gives the right inertia.
    fn search_direction(&mut self) -> Result<bool, SolverError> {
        let be = &mut *self.be;
        // Σ = P_L (z_L / s_L) + P_U (z_U / s_U)
        be.fill(&mut self.sigma, 0.0);
        be.div(&mut self.tl, &self.zl, &self.sl);
        be.scatter_add(1.0, &self.tl, &self.bounds.li, &mut self.sigma);
        be.div(&mut self.tu, &self.zu, &self.su);
        be.scatter_add(1.0, &self.tu, &self.bounds.ui, &mut self.sigma);
        self.compute_gphi();
        let be = &mut *self.be;
        // rw = −(∇φ + Jᵀ y), ry = −r
        be.copy(&mut self.rw, &self.gphi);
        be.jt_mul(1.0, &self.y, 1.0, &mut self.rw);
        be.scale(-1.0, &mut self.rw);
        be.copy(&mut self.ry, &self.r);
        be.scale(-1.0, &mut self.ry);
        let reg = self.jacobian_regularization();
        let mut min_dc = 0.0;
        let mut attempt = 0;
        self.be.kkt_reset_quality();
        loop {
            if !self.factorize_with_correction(min_dc)? {
                return Ok(false);
            }
            let be = &mut *self.be;
            let accurate = be.kkt_solve(&self.rw, &self.ry, &mut self.dw, &mut self.dy)?;
            let finite = be.norm_inf(&self.dw).is_finite() && be.norm_inf(&self.dy).is_finite();
            if accurate && finite {
                break;
            }
            // Inaccurate: first a more stable factorization of the same matrix (Ipopt's
            // IncreaseQuality), then regularize the constraint block, more each time.
            if be.kkt_increase_quality()? {
                tracing::debug!("inaccurate KKT solve, factorizing with pivoting");
                continue;
            }
            if attempt == 2 {
                if !finite {
                    return Ok(false);
                }
                break;
            }
            attempt += 1;
            min_dc = if min_dc == 0.0 {
                reg.max(1e-12)
            } else {
                min_dc * 100.0
            };
            tracing::debug!(min_dc, "inaccurate KKT solve, regularizing");
        }
        self.bound_steps();
        Ok(true)
    }

    /// `ds_L, ds_U, dz_L, dz_U` from `dw`.
    fn bound_steps(&mut self) {
        let be = &*self.be;
        be.gather(&mut self.dsl, &self.dw, &self.bounds.li);
        be.gather(&mut self.dsu, &self.dw, &self.bounds.ui);
        be.scale(-1.0, &mut self.dsu);
        be.bound_dual_step(&mut self.dzl, &self.zl, &self.sl, &self.dsl, self.mu);
        be.bound_dual_step(&mut self.dzu, &self.zu, &self.su, &self.dsu, self.mu);
    }

    /// Ipopt's inertia correction (Algorithm IC of the paper), with Ipopt's degenerate-
    /// Jacobian heuristic: once [`DEGEN_ITERS_MAX`] consecutive iterations needed δ_c > 0
    /// to get a nonsingular matrix, δ_c is applied from the first attempt on. Without it,
    /// LDLᵀ without pivoting meets the near-zero pivots of a rank-deficient Jacobian at
    /// δ_c = 0, counts them with random signs and drives δ_w up to 1e17 (seen on
    /// case1803_snem).
    fn factorize_with_correction(&mut self, min_dc: f64) -> Result<bool, SolverError> {
        let o = self.o;
        let reg = self.jacobian_regularization();
        let mut dc = if self.jac_degenerate {
            min_dc.max(reg)
        } else {
            min_dc
        };
        let mut st = self.be.kkt_factorize(&self.sigma, 0.0, dc, true)?;
        let mut needed_dc = false;
        if st == KktStatus::Singular && dc == 0.0 {
            dc = reg;
            needed_dc = true;
            st = self.be.kkt_factorize(&self.sigma, 0.0, dc, true)?;
        }
        if st == KktStatus::Correct {
            self.note_degeneracy(needed_dc);
            self.last_reg = 0.0;
            return Ok(true);
        }
        let mut dw = if self.delta_w_last == 0.0 {
            o.first_hessian_perturbation
        } else {
            o.min_hessian_perturbation
                .max(o.perturb_dec_fact * self.delta_w_last)
        };
        let mut wrong_without_dc = 0;
        loop {
            st = self.be.kkt_factorize(&self.sigma, dw, dc, true)?;
            if st == KktStatus::Singular && dc == 0.0 {
                dc = reg;
                needed_dc = true;
                continue;
            }
            if st == KktStatus::WrongInertia && dc == 0.0 {
                // With δ_c = 0 a rank-deficient Jacobian leaves near-zero pivots whose signs
                // are round-off, so no δ_w fixes the count (case1803_snem: one to three
                // extra negative eigenvalues up to δ_w = 1e19). After the second wrong count
                // add δ_c: it makes the constraint block definite at a negligible cost.
                wrong_without_dc += 1;
                if wrong_without_dc >= 2 {
                    dc = reg;
                    needed_dc = true;
                    continue;
                }
            }
            if st == KktStatus::Correct {
                self.note_degeneracy(needed_dc);
                self.delta_w_last = dw;
                self.last_reg = dw;
                tracing::debug!(delta_w = dw, delta_c = dc, "inertia correction");
                return Ok(true);
            }
            dw *= if self.delta_w_last == 0.0 {
                o.perturb_inc_fact_first
            } else {
                o.perturb_inc_fact
            };
            if dw > o.max_hessian_perturbation {
                return Ok(false);
            }
        }
    }

    /// δ_c = δ̄_c μ^κ_c, the constraint-block regularization at the current μ.
    fn jacobian_regularization(&self) -> f64 {
        self.o.jacobian_regularization_value * self.mu.powf(self.o.jacobian_regularization_exponent)
    }

    /// Count consecutive iterations that needed δ_c; switch to "always δ_c" after
    /// [`DEGEN_ITERS_MAX`] of them.
    fn note_degeneracy(&mut self, needed_dc: bool) {
        if self.jac_degenerate {
            return;
        }
        self.degen_iters = if needed_dc { self.degen_iters + 1 } else { 0 };
        if self.degen_iters >= DEGEN_ITERS_MAX {
            self.jac_degenerate = true;
            tracing::debug!("Jacobian treated as rank deficient: δ_c always on");
        }
    }

    // ------------------------------------------------------------------ line search

    /// Evaluate the trial point `w + α d`: θ and φ, or `None` when the model returned
    /// NaN/∞ (or a slack left the interior).
    fn trial(&mut self, alpha: f64, use_soc: bool) -> Option<(f64, f64)> {
        let be = &mut *self.be;
        be.copy(&mut self.wt, &self.w);
        be.axpy(
            alpha,
            if use_soc { &self.dw2 } else { &self.dw },
            &mut self.wt,
        );
        self.bounds
            .slacks(be, &self.wt, &mut self.slt, &mut self.sut);
        // The fraction-to-boundary rule keeps the exact slacks positive; a computed slack
        // below ε·min(1, μ) is round-off next to a large bound. As Ipopt, replace it by
        // the centred value μ/z (at least ε·min(1, μ)): clamping to ε·min(1, μ) alone
        // leaves s·z ≪ μ and Σ = z/s near 1e30, which stalls the iteration (seen on
        // case1354_pegase at μ ≈ 2.5e-9).
        let smin = f64::EPSILON * self.mu.min(1.0);
        let adjusted = be.safe_slack(&mut self.slt, &self.zl, smin, self.mu)
            + be.safe_slack(&mut self.sut, &self.zu, smin, self.mu);
        if adjusted > 0 {
            tracing::debug!(adjusted, "slacks too small, using mu/z");
        }
        self.ft = be.eval_obj(self.model, &self.wt);
        if !self.ft.is_finite() {
            return None;
        }
        be.eval_residual(self.model, &self.wt, &mut self.rt);
        let theta = self.be.norm_1(&self.rt);
        let phi = self.barrier(self.ft, &self.slt, &self.sut);
        (theta.is_finite() && phi.is_finite()).then_some((theta, phi))
    }

    fn filter_accepts(&self, theta: f64, phi: f64) -> bool {
        !self.filter.iter().any(|&(tf, pf)| theta >= tf && phi >= pf)
    }

    /// The filter line search's verdict on a trial point with constraint violation `tt`
    /// and barrier objective `pt`, reached with step `alpha` from `reference`.
    fn acceptable(&self, tt: f64, pt: f64, alpha: f64, reference: StepReference) -> Acc {
        let StepReference {
            theta,
            phi,
            slope: gd,
        } = reference;
        let o = self.o;
        if tt > self.theta_max {
            return Acc::Reject;
        }
        if pt > phi && (pt - phi).log10() > 5.0 + phi.abs().max(1.0).log10() {
            return Acc::Reject;
        }
        let switching = gd < 0.0 && alpha * (-gd).powf(o.s_phi) > o.delta * theta.powf(o.s_theta);
        let f_type = theta <= self.theta_min && switching;
        let tol = 10.0 * f64::EPSILON * phi.abs().max(1.0);
        if f_type {
            if pt - (phi + o.eta_phi * alpha * gd) > tol {
                return Acc::Reject;
            }
        } else if !(tt <= (1.0 - o.gamma_theta) * theta || pt - (phi - o.gamma_phi * theta) <= tol)
        {
            return Acc::Reject;
        }
        if !self.filter_accepts(tt, pt) {
            return Acc::RejectFilter;
        }
        Acc::Accept { f_type }
    }

    fn augment_filter(&mut self, theta: f64, phi: f64) {
        let o = self.o;
        let (tf, pf) = ((1.0 - o.gamma_theta) * theta, phi - o.gamma_phi * theta);
        // drop entries the new one dominates
        self.filter.retain(|&(t, p)| !(t >= tf && p >= pf));
        self.filter.push((tf, pf));
    }

    /// Watchdog procedure around [`Ipm::line_search`]: after
    /// `watchdog_shortened_iter_trigger` successive shortened steps, store the iterate and
    /// take up to `watchdog_trial_iter_max` full steps without the filter test; if none of
    /// them is acceptable to the stored point, go back to it and backtrack as usual.
    fn watchdog_line_search(&mut self, theta: f64, phi: f64) -> Result<Ls, SolverError> {
        let o = self.o;
        if self.wd_active && self.mu != self.wd_ref.3 {
            self.wd_active = false; // the barrier problem changed: stop watching
        }
        if !self.wd_active && self.wd_shortened >= o.watchdog_shortened_iter_trigger {
            let be = &*self.be;
            be.copy(&mut self.wd_w, &self.w);
            be.copy(&mut self.wd_y, &self.y);
            be.copy(&mut self.wd_zl, &self.zl);
            be.copy(&mut self.wd_zu, &self.zu);
            be.copy(&mut self.wd_dw, &self.dw);
            be.copy(&mut self.wd_dy, &self.dy);
            be.copy(&mut self.wd_dzl, &self.dzl);
            be.copy(&mut self.wd_dzu, &self.dzu);
            let gd = be.dot(&self.gphi, &self.dw);
            self.wd_ref = (theta, phi, gd, self.mu);
            self.wd_active = true;
            self.wd_trials = 0;
            self.wd_shortened = 0;
            tracing::debug!("watchdog activated");
        }
        if !self.wd_active {
            let ls = self.line_search(theta, phi, false)?;
            match ls {
                Ls::Accepted { trials, .. } if trials > 1 => self.wd_shortened += 1,
                _ => self.wd_shortened = 0,
            }
            return Ok(ls);
        }
        // Watchdog trial: the full step, judged against the stored point.
        let be = &*self.be;
        let alpha_max = be
            .max_step(&self.sl, &self.dsl, self.tau)
            .min(be.max_step(&self.su, &self.dsu, self.tau));
        let alpha_z = be
            .max_step(&self.zl, &self.dzl, self.tau)
            .min(be.max_step(&self.zu, &self.dzu, self.tau));
        self.last_dnorm = be.norm_inf(&self.dw);
        let (t_ref, p_ref, gd_ref, _) = self.wd_ref;
        if let Some((tt, pt)) = self.trial(alpha_max, false) {
            match self.acceptable(
                tt,
                pt,
                alpha_max,
                StepReference {
                    theta: t_ref,
                    phi: p_ref,
                    slope: gd_ref,
                },
            ) {
                Acc::Accept { f_type } => {
                    if !f_type {
                        self.augment_filter(t_ref, p_ref);
                    }
                    self.wd_active = false;
                    return Ok(Ls::Accepted {
                        alpha: alpha_max,
                        alpha_z,
                        trials: 1,
                        tiny: false,
                    });
                }
                Acc::Reject | Acc::RejectFilter => {}
            }
            self.wd_trials += 1;
            if self.wd_trials < o.watchdog_trial_iter_max {
                return Ok(Ls::Accepted {
                    alpha: alpha_max,
                    alpha_z,
                    trials: 1,
                    tiny: false,
                });
            }
        }
        // Give up: back to the stored point and its direction, then backtrack.
        tracing::debug!("watchdog failed, returning to the stored iterate");
        self.wd_active = false;
        let be = &*self.be;
        be.copy(&mut self.w, &self.wd_w);
        be.copy(&mut self.y, &self.wd_y);
        be.copy(&mut self.zl, &self.wd_zl);
        be.copy(&mut self.zu, &self.wd_zu);
        be.copy(&mut self.dw, &self.wd_dw);
        be.copy(&mut self.dy, &self.wd_dy);
        be.copy(&mut self.dzl, &self.wd_dzl);
        be.copy(&mut self.dzu, &self.wd_dzu);
        self.bounds.slacks(be, &self.w, &mut self.sl, &mut self.su);
        be.gather(&mut self.dsl, &self.dw, &self.bounds.li);
        be.gather(&mut self.dsu, &self.dw, &self.bounds.ui);
        be.scale(-1.0, &mut self.dsu);
        if !self.eval_point() {
            return Ok(Ls::Restoration { trials: 0 });
        }
        self.compute_gphi();
        let phi = self.barrier(self.f, &self.sl, &self.su);
        self.line_search(t_ref, phi, true)
    }

    fn line_search(&mut self, theta: f64, phi: f64, skip_full: bool) -> Result<Ls, SolverError> {
        let o = self.o;
        let be = &*self.be;
        let alpha_max = be
            .max_step(&self.sl, &self.dsl, self.tau)
            .min(be.max_step(&self.su, &self.dsu, self.tau));
        let alpha_z = be
            .max_step(&self.zl, &self.dzl, self.tau)
            .min(be.max_step(&self.zu, &self.dzu, self.tau));
        let gd = be.dot(&self.gphi, &self.dw);
        self.last_dnorm = be.norm_inf(&self.dw);
        // Tiny step (Ipopt's test): every component of Δw below `tiny_step_tol` relative to
        // 1 + |w|, at a point whose (scaled, ℓ1) constraint violation is at most 1e-4 (a tiny
        // step far from feasibility is a stationary point of the infeasibility, not the
        // end of the run): accept the full step without line search. `tiny_y` compares
        // the (scaled) multiplier step with `tiny_step_y_tol` in absolute terms.
        self.tiny_y = be.norm_inf(&self.dy) < o.tiny_step_y_tol;
        if !skip_full
            && theta <= TINY_STEP_MAX_VIOLATION
            && be.max_rel_step(&self.dw, &self.w) < o.tiny_step_tol
            && self.trial(alpha_max, false).is_some()
        {
            {
                return Ok(Ls::Accepted {
                    alpha: alpha_max,
                    alpha_z,
                    trials: 1,
                    tiny: true,
                });
            }
        }
        let alpha_min = {
            let gt = o.gamma_theta;
            let v = if gd < 0.0 {
                let a = gt.min(o.gamma_phi * theta / -gd);
                if theta <= self.theta_min {
                    a.min(o.delta * theta.powf(o.s_theta) / (-gd).powf(o.s_phi))
                } else {
                    a
                }
            } else {
                gt
            };
            (o.alpha_min_frac * v).max(f64::EPSILON * 1e-2)
        };
        let mut alpha = if skip_full {
            alpha_max * o.alpha_red_factor
        } else {
            alpha_max
        };
        let mut trials = usize::from(skip_full);
        let mut rejected_by_filter = false;
        loop {
            trials += 1;
            let tr = self.trial(alpha, false);
            tracing::trace!(alpha, ?tr, theta, phi, gd, alpha_min, "line-search trial");
            if let Some((tt, pt)) = tr {
                match self.acceptable(
                    tt,
                    pt,
                    alpha,
                    StepReference {
                        theta,
                        phi,
                        slope: gd,
                    },
                ) {
                    Acc::Accept { f_type } => {
                        if !f_type {
                            self.augment_filter(theta, phi);
                        }
                        self.after_ls(rejected_by_filter);
                        return Ok(Ls::Accepted {
                            alpha,
                            alpha_z,
                            trials,
                            tiny: false,
                        });
                    }
                    Acc::RejectFilter => rejected_by_filter = true,
                    Acc::Reject => {}
                }
                // Second-order correction on the first trial when θ did not decrease.
                if trials == 1 && o.max_soc > 0 && tt >= theta {
                    if let Some((a, az, f_type)) = self.soc(alpha, tt, theta, phi, gd)? {
                        if !f_type {
                            self.augment_filter(theta, phi);
                        }
                        self.after_ls(rejected_by_filter);
                        return Ok(Ls::Accepted {
                            alpha: a,
                            alpha_z: az,
                            trials: trials + 1,
                            tiny: false,
                        });
                    }
                }
            }
            alpha *= o.alpha_red_factor;
            if alpha < alpha_min {
                self.after_ls(rejected_by_filter);
                return Ok(Ls::Restoration { trials });
            }
        }
    }

    /// Filter reset heuristic bookkeeping.
    fn after_ls(&mut self, rejected_by_filter: bool) {
        if rejected_by_filter {
            self.filter_reject_count += 1;
            if self.filter_reject_count >= self.o.filter_reset_trigger
                && self.filter_resets < self.o.max_filter_resets
            {
                self.filter.clear();
                self.filter_resets += 1;
                self.filter_reject_count = 0;
                tracing::debug!(resets = self.filter_resets, "filter reset");
            }
        } else {
            self.filter_reject_count = 0;
        }
    }

    /// Second-order corrections. On success the corrected direction replaces `dw`/`dy`
    /// and `(α, α_z, f_type)` is returned.
    fn soc(
        &mut self,
        alpha0: f64,
        theta_t: f64,
        theta: f64,
        phi: f64,
        gd: f64,
    ) -> Result<Option<(f64, f64, bool)>, SolverError> {
        let o = self.o;
        let mut alpha_soc = alpha0;
        let mut theta_old = theta_t;
        let be = &mut *self.be;
        // c_soc = α r + r(trial)
        be.copy(&mut self.rsoc, &self.r);
        be.axpby(1.0, &self.rt, alpha_soc, &mut self.rsoc);
        for _ in 0..o.max_soc {
            let be = &mut *self.be;
            be.copy(&mut self.tm, &self.rsoc);
            be.scale(-1.0, &mut self.tm);
            let _ = be.kkt_solve(&self.rw, &self.tm, &mut self.dw2, &mut self.dy2)?;
            be.gather(&mut self.tl, &self.dw2, &self.bounds.li);
            be.gather(&mut self.tu, &self.dw2, &self.bounds.ui);
            be.scale(-1.0, &mut self.tu);
            alpha_soc = be
                .max_step(&self.sl, &self.tl, self.tau)
                .min(be.max_step(&self.su, &self.tu, self.tau));
            let Some((ts, ps)) = self.trial(alpha_soc, true) else {
                return Ok(None);
            };
            match self.acceptable(
                ts,
                ps,
                alpha_soc,
                StepReference {
                    theta,
                    phi,
                    slope: gd,
                },
            ) {
                Acc::Accept { f_type } => {
                    let be = &*self.be;
                    be.copy(&mut self.dw, &self.dw2);
                    be.copy(&mut self.dy, &self.dy2);
                    self.bound_steps();
                    let be = &*self.be;
                    let az = be
                        .max_step(&self.zl, &self.dzl, self.tau)
                        .min(be.max_step(&self.zu, &self.dzu, self.tau));
                    tracing::debug!(alpha_soc, "second-order correction accepted");
                    return Ok(Some((alpha_soc, az, f_type)));
                }
                Acc::Reject | Acc::RejectFilter => {}
            }
            if ts > o.kappa_soc * theta_old {
                break;
            }
            theta_old = ts;
            let be = &*self.be;
            be.axpby(1.0, &self.rt, alpha_soc, &mut self.rsoc);
        }
        Ok(None)
    }

    /// Take the step: the trial point becomes the iterate; multipliers move.
    fn accept(&mut self, alpha: f64, alpha_z: f64) {
        std::mem::swap(&mut self.w, &mut self.wt);
        std::mem::swap(&mut self.sl, &mut self.slt);
        std::mem::swap(&mut self.su, &mut self.sut);
        std::mem::swap(&mut self.r, &mut self.rt);
        self.f = self.ft;
        let be = &*self.be;
        be.axpy(alpha, &self.dy, &mut self.y);
        be.axpy(alpha_z, &self.dzl, &mut self.zl);
        be.axpy(alpha_z, &self.dzu, &mut self.zu);
        be.safeguard_bound_mult(&mut self.zl, &self.sl, self.mu, self.o.kappa_sigma);
        be.safeguard_bound_mult(&mut self.zu, &self.su, self.mu, self.o.kappa_sigma);
        self.last_alpha = (alpha_z, alpha);
    }

    // ------------------------------------------------------------------ logging

    /// One Ipopt-style line: `inf_pr` is the unscaled constraint violation, `inf_du` the
    /// scaled dual infeasibility (as Ipopt prints them).
    fn log_iter(&self, dual_scaled: f64) {
        if self.o.print_level < PrintLevel::Iterations {
            return;
        }
        tracing::info!(
            "{:4}{:1} {:13.7e} {:8.2e} {:8.2e} {:5.1} {:8.2e} {} {:8.2e} {:8.2e} {:3}",
            self.iter,
            self.tag,
            self.objective_unscaled(),
            self.constr_viol_u,
            dual_scaled,
            self.mu.log10(),
            self.last_dnorm,
            Lg(self.last_reg),
            self.last_alpha.0,
            self.last_alpha.1,
            self.last_ls
        );
    }

    /// The record of the current iteration (`dual_scaled`: the log's `inf_du`).
    fn record(&self, dual_scaled: f64) -> IterationRecord {
        IterationRecord {
            iter: self.iter_offset + self.iter,
            objective: self.objective_unscaled(),
            inf_pr: self.constr_viol_u,
            inf_du: dual_scaled,
            mu: self.mu,
            step_norm: self.last_dnorm,
            regularization: self.last_reg,
            alpha_du: self.last_alpha.0,
            alpha_pr: self.last_alpha.1,
            ls_trials: self.last_ls,
            elapsed: self.t0.elapsed().as_secs_f64(),
            restoration: !self.tag.is_empty(),
        }
    }

    // ------------------------------------------------------------------ restoration

    /// Does the original problem accept the restoration iterate `wr` (mapped through
    /// `map_w`)? Leaves the mapped point in the trial vectors.
    fn resto_accepts(&mut self, wr: &B::Vector, map_w: &B::Index, theta_r: f64) -> bool {
        let be = &mut *self.be;
        be.gather(&mut self.wt, wr, map_w);
        self.bounds
            .slacks(be, &self.wt, &mut self.slt, &mut self.sut);
        self.ft = be.eval_obj(self.model, &self.wt);
        be.eval_residual(self.model, &self.wt, &mut self.rt);
        let tt = self.be.norm_1(&self.rt);
        let pt = self.barrier(self.ft, &self.slt, &self.sut);
        tt.is_finite()
            && pt.is_finite()
            && tt <= self.theta_max
            && tt <= self.o.required_infeasibility_reduction * theta_r
            && self.filter_accepts(tt, pt)
    }

    /// The restoration problem of this solve with its backend ([`Restoration`]): made at
    /// the first restoration phase, then the kept one. `None` when the restoration problem
    /// cannot be mapped onto this one (another number of slacks): the phase fails.
    fn restoration_problem(&mut self) -> Result<Option<Restoration<'a, B>>, SolverError> {
        if let Some(kept) = self.resto.take() {
            return Ok(Some(kept));
        }
        let o = self.o;
        let lay = self.lay;
        let (n, m, nw, ns) = (lay.n, lay.m, lay.nw(), lay.ns);
        let rho = o.resto_penalty_parameter;
        let mut lcon = lay.rhs.clone();
        let mut ucon = lay.rhs.clone();
        for (k, &j) in lay.slack_rows.iter().enumerate() {
            lcon[j] = lay.lo[n + k];
            ucon[j] = lay.up[n + k];
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
            &zeros_n,
            &lay.lo[..n],
            &lay.up[..n],
            &lcon,
            &ucon,
            &zeros_m,
            &zeros_m,
        )?;
        let mut ro = o.clone();
        ro.restoration = false;
        ro.nlp_scaling = false;
        ro.bound_relax_factor = 0.0;
        ro.mu_strategy = MuStrategy::Monotone;
        // The restoration problem has its own filter; its θ bounds use the defaults.
        let defaults = Options::default();
        ro.theta_max_fact = defaults.theta_max_fact;
        ro.theta_min_fact = defaults.theta_min_fact;
        let rlay = Layout::new(resto.meta(), &ro);
        if rlay.ns != ns {
            return Ok(None);
        }
        let rnw = rlay.nw();
        // outer w -> restoration w = (x, p, n, s)
        let map_w: Vec<usize> = (0..nw).map(|i| if i < n { i } else { i + 2 * m }).collect();
        // outer lower/upper list positions -> inner lower/upper list positions
        let mut inv = vec![usize::MAX; rnw];
        for (k, &i) in rlay.lower_idx.iter().enumerate() {
            inv[i] = k;
        }
        let map_l: Vec<usize> = lay.lower_idx.iter().map(|&i| inv[map_w[i]]).collect();
        inv.iter_mut().for_each(|v| *v = usize::MAX);
        for (k, &i) in rlay.upper_idx.iter().enumerate() {
            inv[i] = k;
        }
        let map_u: Vec<usize> = lay.upper_idx.iter().map(|&i| inv[map_w[i]]).collect();
        if map_l.iter().chain(&map_u).any(|&k| k == usize::MAX) {
            return Ok(None);
        }
        let lower_pos: Vec<usize> = lay.lower_idx.iter().map(|&i| map_w[i]).collect();
        let upper_pos: Vec<usize> = lay.upper_idx.iter().map(|&i| map_w[i]).collect();
        let be = match self.resto_spare.take() {
            Some(mut kept) => {
                // same structure and options: only the right-hand sides may differ
                kept.set_rhs(&rlay.rhs);
                kept
            }
            None => {
                let t_analysis = Instant::now();
                let made = self.be.for_model(&resto, &rlay, &ro)?;
                self.resto_backends += 1;
                self.resto_setup = t_analysis.elapsed().as_secs_f64();
                made
            }
        };
        let (counts_before, times_before) = be.counters();
        let analysis_before = be.analysis_seconds();
        let on_device = LayoutOnDevice::new(&be, &rlay, &vec![1.0; rnw], &vec![1.0; m])?;
        // the bound lists are sorted: the entries of x come first
        let lower_x = lay.lower_idx.partition_point(|&i| i < n);
        let upper_x = lay.upper_idx.partition_point(|&i| i < n);
        let (nl, nu) = (lay.lower_idx.len(), lay.upper_idx.len());
        let z = |len: usize| be.zeros(len);
        Ok(Some(Restoration {
            map_w: be.index_from_host(&map_w)?,
            map_l: be.index_from_host(&map_l)?,
            map_u: be.index_from_host(&map_u)?,
            lower_pos: be.index_from_host(&lower_pos)?,
            upper_pos: be.index_from_host(&upper_pos)?,
            w0: z(rnw)?,
            zl0: z(rnw)?,
            zu0: z(rnw)?,
            y0: z(m)?,
            p0: z(m)?,
            n0: z(m)?,
            scratch_m: z(m)?,
            zl_c: z(nl)?,
            zu_c: z(nu)?,
            zl_x: z(lower_x)?,
            zu_x: z(upper_x)?,
            on_device: Some(on_device),
            counts_before,
            times_before,
            analysis_before,
            model: resto,
            lay: rlay,
            opts: ro,
            be,
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
    /// pattern) and its layout on the device are made at the first phase and kept for the
    /// later ones; each phase starts from device vectors built by kernels from the current
    /// iterate (no vector crosses to the host).
    fn restoration(
        &mut self,
        theta: f64,
        phi: f64,
        driver: &mut Driver<'_, '_>,
    ) -> Result<Option<Status>, SolverError> {
        let o = self.o;
        if self.lay.m == 0 {
            return Ok(Some(Status::RestorationFailed));
        }
        tracing::debug!(theta, "entering restoration phase");
        self.augment_filter(theta, phi);
        self.restorations += 1;
        let bytes_at_entry = self.device.transferred_bytes_on_this_thread();
        let first = self.resto.is_none();
        let Some(mut rs) = self.restoration_problem()? else {
            return Ok(Some(Status::RestorationFailed));
        };
        let rho = o.resto_penalty_parameter;
        let mu_r = self.mu.max(self.be.norm_inf(&self.r));
        rs.start(
            &*self.be, &self.w, &self.r, &self.zl, &self.zu, self.mu, mu_r, rho,
        );
        let start = Start {
            w: Values::Device(&rs.w0),
            compute_slacks: false,
            y: Some(Values::Device(&rs.y0)),
            zl: Some(Values::Device(&rs.zl0)),
            zu: Some(Values::Device(&rs.zu0)),
            z_min: 1e-20,
            mu: mu_r,
            push: (0.0, 0.0),
            slack_push: (0.0, 0.0),
        };
        let Some(on_device) = rs.on_device.take() else {
            return Err(SolverError::Linalg(
                simdnlp_linalg::LinalgError::InvalidState(
                    "restoration layout missing on the device".into(),
                ),
            ));
        };
        let theta_r = theta;
        let device = self.device;
        let mut inner = Ipm::with_layout(
            &mut rs.be, device, &rs.model, &rs.lay, &rs.opts, 1.0, on_device, "r",
        )?;
        let bytes = self.device.transferred_bytes_on_this_thread() - bytes_at_entry;
        tracing::debug!(
            phase = self.restorations,
            first,
            bytes,
            "restoration phase set up (host-device bytes: at the first phase of a solve the \
             restoration problem's set-up, else scalars only)"
        );
        inner.max_iter = self.max_iter.saturating_sub(self.iter);
        inner.t0 = self.t0;
        inner.iter_offset = self.iter_offset + self.iter + 1;
        let map_w = &rs.map_w;
        let mut hook = |wr: &B::Vector| self.resto_accepts(wr, map_w, theta_r);
        let exit = inner.run(&start, Some(&mut hook), driver)?;
        let inner_iter = inner.iter;
        // move the inner multipliers out before dropping the inner solver
        let be_out = &*self.be;
        let mut zl_new = be_out.zeros(0)?;
        let mut zu_new = be_out.zeros(0)?;
        std::mem::swap(&mut zl_new, &mut inner.zl);
        std::mem::swap(&mut zu_new, &mut inner.zu);
        let wr_final = std::mem::replace(&mut inner.w, be_out.zeros(0)?);
        rs.on_device = Some(inner.into_layout());
        // one backend for every phase: its counters hold all of them (since this solve
        // took it)
        let (cnt, times) = rs.be.counters();
        self.resto_counts = cnt.since(&rs.counts_before);
        self.resto_times = times.since(&rs.times_before);
        self.resto_analysis = self.resto_setup + rs.be.analysis_seconds() - rs.analysis_before;
        self.iter += inner_iter;
        tracing::debug!(?exit, inner_iter, "restoration phase finished");
        let outcome = match exit {
            Exit::RestorationAccepted => {
                std::mem::swap(&mut self.w, &mut self.wt);
                std::mem::swap(&mut self.sl, &mut self.slt);
                std::mem::swap(&mut self.su, &mut self.sut);
                std::mem::swap(&mut self.r, &mut self.rt);
                self.f = self.ft;
                let be = &*self.be;
                be.fill(&mut self.y, 0.0);
                be.gather(&mut self.zl, &zl_new, &rs.map_l);
                be.gather(&mut self.zu, &zu_new, &rs.map_u);
                // Ipopt's bound_mult_reset_threshold (1000): large restoration bound
                // multipliers are reset to 1.
                if be.norm_inf(&self.zl).max(be.norm_inf(&self.zu)) > 1e3 {
                    be.fill(&mut self.zl, 1.0);
                    be.fill(&mut self.zu, 1.0);
                }
                be.safeguard_bound_mult(&mut self.zl, &self.sl, self.mu, o.kappa_sigma);
                be.safeguard_bound_mult(&mut self.zu, &self.su, self.mu, o.kappa_sigma);
                self.last_alpha = (1.0, 1.0);
                None
            }
            Exit::Done(Status::SolveSucceeded | Status::SolvedToAcceptableLevel) => {
                // Converged to a minimizer of the infeasibility: feasible or not?
                let be = &mut *self.be;
                be.gather(&mut self.wt, &wr_final, &rs.map_w);
                be.eval_residual(self.model, &self.wt, &mut self.rt);
                be.mul(&mut self.tm, &self.rt, &self.bounds.viol_unscale);
                let viol = be.norm_inf(&self.tm);
                Some(if viol > o.constr_viol_tol {
                    Status::InfeasibleProblemDetected
                } else {
                    Status::RestorationFailed
                })
            }
            Exit::Done(
                s @ (Status::MaximumIterationsExceeded
                | Status::MaximumCpuTimeExceeded
                | Status::UserRequestedStop),
            ) => Some(s),
            Exit::Done(_) => Some(Status::RestorationFailed),
        };
        self.resto = Some(rs);
        Ok(outcome)
    }
}

/// What the restoration phases of one solve share, made at the first phase: the
/// restoration problem on the device, its layout, options and KKT backend (the symbolic
/// analysis of its KKT pattern: a cuDSS handle and analysis on a GPU, faer's symbolic
/// factorization on the host), its layout on the device, the index maps between the two
/// problems, and the vectors a phase starts from.
struct Restoration<'a, B: Backend> {
    model: RestoOnDevice<'a, B::Device>,
    lay: Layout,
    opts: Options,
    be: B,
    /// The restoration layout on the device (`None` while a phase runs: the inner
    /// solver holds it).
    on_device: Option<LayoutOnDevice<B>>,
    /// Outer `w` position -> restoration `w` position (`(x, s)` -> `(x, p, n, s)`).
    map_w: B::Index,
    /// Outer bound-list position -> restoration bound-list position.
    map_l: B::Index,
    map_u: B::Index,
    /// Restoration `w` position of each outer bound-list entry.
    lower_pos: B::Index,
    upper_pos: B::Index,
    /// Start point and multipliers (full length over the restoration `w`, `y0` zeros).
    w0: B::Vector,
    zl0: B::Vector,
    zu0: B::Vector,
    y0: B::Vector,
    /// Start of the elastic variables `(p, n)`, and a scratch of length `m`.
    p0: B::Vector,
    n0: B::Vector,
    scratch_m: B::Vector,
    /// The outer bound multipliers with those of `x` capped at ρ (bound-list length), and
    /// their `x` part.
    zl_c: B::Vector,
    zu_c: B::Vector,
    zl_x: B::Vector,
    zu_x: B::Vector,
    /// The backend's counters, per-phase times and analysis seconds when this solve took
    /// it (a backend kept from an earlier solve has counted that solve's work).
    counts_before: CallbackCounts,
    times_before: PhaseTimes,
    analysis_before: f64,
    /// Sizes of the outer problem: variables, rows, slacks.
    n: usize,
    m: usize,
    ns: usize,
}

impl<B: Backend> Restoration<'_, B> {
    /// Build a phase's start on the device from the outer iterate `(w, r, z_L, z_U)`: the
    /// problem re-centred at `x` (weights, `ζ = √μ`), `(p, n)` from the residual
    /// ([`simdnlp_device::Device::resto_elastic`] with `μ_R`), `w0 = (x, p, n, s)`, the
    /// outer bound multipliers (those of `x` capped at `ρ`) with `μ_R/p`, `μ_R/n` for the
    /// bounds of `p, n`. Kernels only, no host traffic.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        be: &B,
        w: &B::Vector,
        r: &B::Vector,
        zl: &B::Vector,
        zu: &B::Vector,
        mu: f64,
        mu_r: f64,
        rho: f64,
    ) {
        let (n, m, ns) = (self.n, self.m, self.ns);
        let d = be.device();
        self.model.restart(w, mu);
        d.resto_elastic(r, mu_r, rho, &mut self.p0, &mut self.n0);
        d.copy_range(&mut self.w0, 0, w, 0, n);
        d.copy_range(&mut self.w0, n, &self.p0, 0, m);
        d.copy_range(&mut self.w0, n + m, &self.n0, 0, m);
        d.copy_range(&mut self.w0, n + 2 * m, w, n, ns);
        cap_x_part(be, zl, &mut self.zl_c, &mut self.zl_x, rho);
        d.fill(&mut self.zl0, 0.0);
        d.scatter(&mut self.zl0, &self.lower_pos, &self.zl_c);
        d.recip(&mut self.scratch_m, mu_r, &self.p0);
        d.copy_range(&mut self.zl0, n, &self.scratch_m, 0, m);
        d.recip(&mut self.scratch_m, mu_r, &self.n0);
        d.copy_range(&mut self.zl0, n + m, &self.scratch_m, 0, m);
        cap_x_part(be, zu, &mut self.zu_c, &mut self.zu_x, rho);
        d.fill(&mut self.zu0, 0.0);
        d.scatter(&mut self.zu0, &self.upper_pos, &self.zu_c);
    }
}

/// `out = z` with its first `len(x_part)` entries (those of `x`) replaced by
/// `min(z_i, ρ)`, computed as `−max(−z_i, −ρ)` (exact: negation does not round).
fn cap_x_part<B: Backend>(
    be: &B,
    z: &B::Vector,
    out: &mut B::Vector,
    x_part: &mut B::Vector,
    rho: f64,
) {
    let d = be.device();
    let len = d.len(x_part);
    d.copy(out, z);
    d.copy_range(x_part, 0, out, 0, len);
    d.scale(-1.0, x_part);
    d.clamp_below(x_part, -rho);
    d.scale(-1.0, x_part);
    d.copy_range(out, 0, x_part, 0, len);
}

/// Largest (scaled, ℓ1) constraint violation at which a step can count as tiny (Ipopt's
/// constant in `DetectTinyStep`).
const TINY_STEP_MAX_VIOLATION: f64 = 1e-4;

/// Consecutive iterations needing δ_c after which the Jacobian counts as degenerate
/// (Ipopt's `degen_iters_max`).
const DEGEN_ITERS_MAX: usize = 3;

/// `a += b` for counts.
pub(crate) fn add_counts(a: &mut CallbackCounts, b: &CallbackCounts) {
    *a += *b;
}
