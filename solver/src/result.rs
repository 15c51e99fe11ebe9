//! Return statuses, results and errors of a solve.

use serde::{Deserialize, Serialize};

/// How a solve ended (Ipopt's `ApplicationReturnStatus` set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// analysis when the solve performed one (the first solve of a structure).
    pub factorization: f64,
    /// Triangular solves and iterative refinement.
    pub solves: f64,
    /// Everything else (vector kernels, line search logic, logging).
    pub rest: f64,
    /// Total wall time of the solve.
    pub total: f64,
}

/// Number of callback evaluations of a solve (restoration phase included).
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
    /// Numeric factorizations of the KKT matrix.
    pub factorizations: usize,
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
    /// Callback and factorization counts.
    pub counts: CallbackCounts,
}

/// Errors that prevent a solve from starting (bad model data, bad options, linear-algebra
/// setup failures). Numerical trouble during the iterations is a [`Status`], not an error.
#[derive(Debug, thiserror::Error)]
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
    Linalg(#[from] simdnlp_linalg::LinalgError),
    /// The device failed (allocation, transfer, kernel).
    #[error("device: {0}")]
    Device(#[from] simdnlp_device::DeviceError),
}
