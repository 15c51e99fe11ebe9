//! Return statuses, results and errors of a solve.

use crate::drive::IterationRecord;
use crate::size::ProblemSize;
use crate::violations::Violation;
use serde::{Deserialize, Serialize};

/// How a solve ended (Ipopt's `ApplicationReturnStatus` set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Status {
    /// The scaled and absolute tolerances were met: a local optimum.
    SolveSucceeded,
    /// Only the "acceptable" tolerances were met for `acceptable_iter` iterations in a row.
    SolvedToAcceptableLevel,
    /// The restoration phase converged to a point that minimizes the constraint violation
    /// but is not feasible: the problem is (locally) infeasible.
    InfeasibleProblemDetected,
    /// The search direction became tiny while the iterate is not optimal.
    SearchDirectionBecomesTooSmall,
    /// `‖x‖∞` exceeded `diverging_iterates_tol`: the problem is probably unbounded.
    DivergingIterates,
    /// `max_iter` iterations were done.
    MaximumIterationsExceeded,
    /// `max_wall_time` seconds passed.
    MaximumCpuTimeExceeded,
    /// The restoration phase could not find a point acceptable to the filter.
    RestorationFailed,
    /// The KKT system could not be factorized even with the largest regularization.
    ErrorInStepComputation,
    /// A callback returned NaN/∞ at a point where the method cannot back off (the start).
    InvalidNumberDetected,
    /// The problem has more equality constraints than free variables.
    NotEnoughDegreesOfFreedom,
    /// The intermediate callback returned [`std::ops::ControlFlow::Break`] or the
    /// [`crate::CancelToken`] was cancelled; the result holds the last accepted iterate.
    UserRequestedStop,
}

impl Status {
    /// `true` for [`Status::SolveSucceeded`] and [`Status::SolvedToAcceptableLevel`].
    pub fn is_success(self) -> bool {
        matches!(
            self,
            Status::SolveSucceeded | Status::SolvedToAcceptableLevel
        )
    }
}

/// Wall-clock time spent per phase of a solve, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Model callbacks (objective, gradient, constraints, Jacobian, Hessian).
    pub callbacks: f64,
    /// KKT assembly, numeric factorization (inertia corrections included) and the symbolic
    /// analyses the solve performed (the first solve of a structure; the restoration
    /// problem's).
    pub factorization: f64,
    /// Of `factorization`: the symbolic analysis of the KKT pattern when the solve
    /// performed one — creating the KKT backend (host-side analysis, factorization library
    /// setup) and, on `device = cuda`, cuDSS's analysis phase (reordering and symbolic
    /// factorization at the first factorization); with the restoration problem's, made
    /// at the first restoration phase of a structure.
    #[serde(default)]
    pub analysis: f64,
    /// Triangular solves and iterative refinement.
    pub solves: f64,
    /// Everything else (vector kernels, line search logic, logging).
    pub rest: f64,
    /// Total wall time of the solve.
    pub total: f64,
}

/// Number of callback evaluations and of KKT linear-algebra operations of a solve
/// (restoration phase included).
///
/// The KKT counts say where the factorization and solve time of
/// [`Timings::factorization`] and [`Timings::solves`] goes. Each breakdown field counts a
/// subset of its total; what is left over is the ordinary work of an iteration:
/// `factorizations − factorizations_inertia − factorizations_accuracy −
/// factorizations_pivoting` is one factorization per search direction (one per
/// interior-point iteration, plus one for the least-squares multipliers at the start),
/// and `solves − solves_refinement − solves_soc` is one right-hand side per search
/// direction (plus one for the least-squares multipliers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallbackCounts {
    /// Objective evaluations.
    pub obj: usize,
    /// Gradient evaluations.
    pub grad: usize,
    /// Constraint evaluations.
    pub cons: usize,
    /// Jacobian evaluations.
    pub jac: usize,
    /// Hessian evaluations.
    pub hess: usize,
    /// Numeric factorizations of the KKT matrix (every cause; the breakdown follows).
    pub factorizations: usize,
    /// Of [`CallbackCounts::factorizations`]: repeats within one step because the
    /// inertia was wrong or the matrix singular (Ipopt's inertia correction: δ_w and δ_c
    /// attempts; for the least-squares multipliers, the repeat with δ_c = 1e-8).
    #[serde(default)]
    pub factorizations_inertia: usize,
    /// Of [`CallbackCounts::factorizations`]: repeats after a solve stayed inaccurate
    /// (refinement ended with a residual ratio above `1e-5`), regularized by a larger
    /// δ_c (the inertia-correction repeats that follow count in
    /// `factorizations_inertia`).
    #[serde(default)]
    pub factorizations_accuracy: usize,
    /// Of [`CallbackCounts::factorizations`]: Bunch–Kaufman LBLᵀ re-factorizations after
    /// an inaccurate LDLᵀ solve (Ipopt's `IncreaseQuality`), with the LDLᵀ repeat when
    /// LBLᵀ's inertia is rejected, the paired LBLᵀ repeats (`paired_repeats`) and the
    /// multifrontal inertia confirmations (`inertia_confirmations`).
    #[serde(default)]
    pub factorizations_pivoting: usize,
    /// Switches of a KKT backend from LDLᵀ without pivoting to the paired LBLᵀ
    /// (`linear_solver = lblt_paired`) for the rest of its solves, after LDLᵀ
    /// factorizations at δ_w = 0 stopped at an exact zero pivot of a variable (one without
    /// curvature eliminated before its constraints) in two steps in a row: at most one for
    /// the problem and one for the restoration problem. The switching factorization also
    /// counts in `paired_repeats`. Also counted here: switches to the multifrontal LDLᵀ
    /// after `confirmation_switch` steps in a row whose inertia it had to confirm.
    #[serde(default)]
    pub pivoting_switches: usize,
    /// Factorizations repeated with the paired LBLᵀ after LDLᵀ without pivoting stopped
    /// at an exact zero pivot of a variable without curvature at δ_w = 0 (the paired LBLᵀ
    /// then serves the rest of that step; from the second such step in a row, every later
    /// one: `pivoting_switches`). Also counted in `factorizations_pivoting`.
    #[serde(default)]
    pub paired_repeats: usize,
    /// Factorizations repeated with the multifrontal LDLᵀ (threshold pivoting) after LDLᵀ
    /// without pivoting reported the wrong inertia (or, with `inertia_confirmation =
    /// multifrontal_singular`, a singular matrix) at δ_w = 0 (`inertia_confirmation`).
    /// Also counted in `factorizations_pivoting`.
    #[serde(default)]
    pub inertia_confirmations: usize,
    /// Of [`CallbackCounts::inertia_confirmations`]: those whose inertia was correct, so
    /// that the step was computed with the multifrontal factor at δ_w = 0.
    #[serde(default)]
    pub inertia_confirmed: usize,
    /// Triangular solves with a KKT factor (one forward and one backward substitution
    /// each; every solve of the condensed form is one), refinement included.
    #[serde(default)]
    pub solves: usize,
    /// Of [`CallbackCounts::solves`]: iterative-refinement corrections.
    #[serde(default)]
    pub solves_refinement: usize,
    /// Of [`CallbackCounts::solves`]: right-hand sides solved with a factorization that
    /// already gave a search direction (second-order corrections of the line search),
    /// refinement of these excluded (it counts in `solves_refinement`).
    #[serde(default)]
    pub solves_soc: usize,
    /// Symbolic analyses of a KKT pattern made during the solve (each with a KKT backend:
    /// on a GPU a cuDSS analysis, on the host faer's symbolic factorization): one for the
    /// problem when the solve made its backend (`0` on a re-solve that reused the previous
    /// one), plus one for the restoration problem when a restoration phase was entered
    /// and no earlier solve of the same structure had made its backend (made at the first
    /// phase, kept for the later ones and for the next solves, as the problem's).
    #[serde(default)]
    pub analyses: usize,
    /// Delayed pivots summed over the KKT factorizations (`linear_solver = multifrontal`:
    /// fully summed columns that failed the threshold pivot test and were passed on to
    /// the parent front, once per front they were passed from; `0` for the other
    /// factorizations).
    #[serde(default)]
    pub delayed_pivots: usize,
    /// Conjugate-gradient iterations on the Schur complement of the equality rows
    /// (`kkt = hybrid`; each one solve with the Cholesky factor of `K_γ`, not counted in
    /// `solves`); `0` for the other formulations.
    #[serde(default)]
    pub cg_iterations: usize,
}

impl CallbackCounts {
    /// The counts accumulated from `earlier` to `self` (`self − earlier`, field by field;
    /// `earlier` must be a snapshot of the same counters taken before `self`).
    pub fn since(&self, earlier: &CallbackCounts) -> CallbackCounts {
        CallbackCounts {
            obj: self.obj - earlier.obj,
            grad: self.grad - earlier.grad,
            cons: self.cons - earlier.cons,
            jac: self.jac - earlier.jac,
            hess: self.hess - earlier.hess,
            factorizations: self.factorizations - earlier.factorizations,
            factorizations_inertia: self.factorizations_inertia - earlier.factorizations_inertia,
            factorizations_accuracy: self.factorizations_accuracy - earlier.factorizations_accuracy,
            factorizations_pivoting: self.factorizations_pivoting - earlier.factorizations_pivoting,
            pivoting_switches: self.pivoting_switches - earlier.pivoting_switches,
            paired_repeats: self.paired_repeats - earlier.paired_repeats,
            inertia_confirmations: self.inertia_confirmations - earlier.inertia_confirmations,
            inertia_confirmed: self.inertia_confirmed - earlier.inertia_confirmed,
            solves: self.solves - earlier.solves,
            solves_refinement: self.solves_refinement - earlier.solves_refinement,
            solves_soc: self.solves_soc - earlier.solves_soc,
            analyses: self.analyses.saturating_sub(earlier.analyses),
            delayed_pivots: self.delayed_pivots - earlier.delayed_pivots,
            cg_iterations: self.cg_iterations - earlier.cg_iterations,
        }
    }
}

impl std::ops::AddAssign for CallbackCounts {
    fn add_assign(&mut self, other: CallbackCounts) {
        self.obj += other.obj;
        self.grad += other.grad;
        self.cons += other.cons;
        self.jac += other.jac;
        self.hess += other.hess;
        self.factorizations += other.factorizations;
        self.factorizations_inertia += other.factorizations_inertia;
        self.factorizations_accuracy += other.factorizations_accuracy;
        self.factorizations_pivoting += other.factorizations_pivoting;
        self.pivoting_switches += other.pivoting_switches;
        self.paired_repeats += other.paired_repeats;
        self.inertia_confirmations += other.inertia_confirmations;
        self.inertia_confirmed += other.inertia_confirmed;
        self.solves += other.solves;
        self.solves_refinement += other.solves_refinement;
        self.solves_soc += other.solves_soc;
        self.analyses += other.analyses;
        self.delayed_pivots += other.delayed_pivots;
        self.cg_iterations += other.cg_iterations;
    }
}

/// Result of a solve, in the user's (unscaled) units.
///
/// Multiplier convention (Ipopt's): at a solution of a minimization,
/// `∇f(x) + J(x)ᵀ y − z_L + z_U = 0`, with `z_L, z_U ≥ 0`. For a maximization the same
/// holds for `−f`, i.e. `−∇f(x) + J(x)ᵀ y − z_L + z_U = 0`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolveResult {
    /// How the solve ended.
    pub status: Status,
    /// Objective `f(x)` (not negated for maximization).
    pub objective: f64,
    /// Primal solution, length `nvar`.
    pub x: Vec<f64>,
    /// Constraint multipliers, length `ncon`.
    pub y: Vec<f64>,
    /// Lower-bound multipliers, length `nvar` (zero for variables without lower bound).
    pub z_l: Vec<f64>,
    /// Upper-bound multipliers, length `nvar` (zero for variables without upper bound).
    pub z_u: Vec<f64>,
    /// Constraint values `c(x)`, length `ncon`.
    pub constraints: Vec<f64>,
    /// Number of iterations (restoration iterations included).
    pub iterations: usize,
    /// Number of feasibility-restoration phases entered.
    pub restorations: usize,
    /// Unscaled ∞-norm of the constraint violation at `x`.
    pub constr_viol: f64,
    /// Unscaled ∞-norm of the dual infeasibility at the returned point.
    pub dual_inf: f64,
    /// Final barrier parameter.
    pub mu: f64,
    /// Time breakdown in seconds.
    pub timings: Timings,
    /// Callback counts and KKT factorization/solve counts with their breakdown.
    pub counts: CallbackCounts,
    /// One record per iteration when the option `keep_history` is on (empty otherwise),
    /// restoration iterations included, numbered without gaps: `iterations + 1` records
    /// (iterate 0 to the last), one more when a restoration phase ends the solve (its
    /// last iterate has a record too).
    #[serde(default)]
    pub history: Vec<IterationRecord>,
    /// Variables, rows and nonzeros by kind (the log's header).
    #[serde(default)]
    pub size: ProblemSize,
    /// For a solve that did not succeed ([`Status::is_success`] false): the rows and
    /// variable bounds violated by more than `constr_viol_tol` at `x`, largest first, at
    /// most [`crate::MAX_VIOLATIONS`], named by block for models that have blocks
    /// (`simdnlp_modeling::Model`). Empty after a success.
    #[serde(default)]
    pub violations: Vec<Violation>,
    /// Bytes copied between host and device during the iterations (restoration included;
    /// the start point's upload too, not the setup): the solving thread's
    /// `simdnlp_device::Device::transferred_bytes_on_this_thread` over the run, so other
    /// solves on the same process-wide device at the same time are not counted. `0` on the
    /// CPU, whose vectors are host memory.
    #[serde(default)]
    pub bytes_transferred: u64,
    /// Bytes copied between host and device per iteration, from the first iteration to
    /// the last (the start point's upload and the initialization before the first
    /// iteration are not counted; a restoration phase's set-up within the iterations is):
    /// on `cuda` the reductions' 8-byte results and the objective values, on `emu` also
    /// the host factorization's copies of `K` and the right-hand sides. `0` on the CPU and
    /// for a solve of fewer than two iterations.
    #[serde(default)]
    pub bytes_per_iteration: f64,
}

/// Errors that prevent a solve from starting (bad model data, bad options, linear-algebra
/// setup failures). Numerical trouble during the iterations is a [`Status`], not an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SolverError {
    /// The model's meta data break their invariants (lengths, bounds, start).
    #[error(transparent)]
    BadMeta(#[from] simdnlp_modeling::MetaError),
    /// A sparsity index is outside the matrix or a Hessian entry is above the diagonal.
    #[error("model {what} entry {entry}: index ({row}, {col}) invalid for {nrows}x{ncols}")]
    BadStructure {
        /// `jacobian` or `hessian`.
        what: &'static str,
        /// COO entry number.
        entry: usize,
        /// Row index.
        row: usize,
        /// Column index.
        col: usize,
        /// Number of rows.
        nrows: usize,
        /// Number of columns.
        ncols: usize,
    },
    /// An option is outside its valid range, or two options contradict each other.
    #[error(transparent)]
    BadOption(#[from] crate::options::OptionError),
    /// The linear-algebra layer failed during setup (analysis).
    #[error("linear algebra: {0}")]
    Linalg(simdnlp_linalg::LinalgError),
    /// The device failed (allocation, transfer, kernel).
    #[error(transparent)]
    Device(#[from] simdnlp_device::DeviceError),
    /// A model could not be evaluated on the device: building its kernels failed (a user
    /// function without a CUDA body, a compile error). A device failure met while
    /// evaluating the model (allocation, transfer, a kernel launch: the model's or one the
    /// iteration queued before it) is [`SolverError::Device`] instead.
    #[error("model on the device: {0}")]
    DeviceModel(simdnlp_modeling::ModelError),
    /// The option `device` does not name the device of the [`crate::Solver`] (a
    /// `Solver<M, D>` runs on `D`; the free functions [`crate::solve`] and
    /// [`crate::solve_with`] pick the device from the option).
    #[error(
        "option `device` = {options:?} but this solver runs on {solver:?}: set `device` to \
         the solver's device, or make the solver with `Solver::on_device`"
    )]
    DeviceMismatch {
        /// The device the options name.
        options: crate::options::DeviceKind,
        /// The device of the solver.
        solver: crate::options::DeviceKind,
    },
}

impl From<simdnlp_linalg::LinalgError> for SolverError {
    /// [`SolverError::Device`] for a device failure the factorization met (a kernel
    /// failure is reported where the device synchronizes, not where it happened), else
    /// [`SolverError::Linalg`].
    fn from(error: simdnlp_linalg::LinalgError) -> Self {
        match error {
            simdnlp_linalg::LinalgError::Device { source, .. } => Self::Device(source),
            other => Self::Linalg(other),
        }
    }
}

impl From<simdnlp_modeling::ModelError> for SolverError {
    /// [`SolverError::Device`] for a device failure the model met, else
    /// [`SolverError::DeviceModel`].
    fn from(error: simdnlp_modeling::ModelError) -> Self {
        match error {
            simdnlp_modeling::ModelError::Device(device) => Self::Device(*device),
            other => Self::DeviceModel(other),
        }
    }
}
