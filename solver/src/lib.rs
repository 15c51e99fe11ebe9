//! Primal-dual interior-point filter line-search solver (Ipopt's method, Wächter & Biegler
//! 2006) for [`simdnlp_modeling::NlpModel`]s.
//!
//! - [`solve`] solves a model once on the device `Options::device` names; [`Solver`] owns a
//!   model and re-solves it after its parameters, bounds or start changed, reusing the
//!   symbolic analysis and warm-starting. `Solver<M, D = Cpu>` runs on the device `D`
//!   ([`SolverDevice`]: `Cpu`, `Emu`, with feature `cuda` `Cuda`), an instance the caller
//!   may open and share ([`Solver::on_device`]).
//! - [`solve_with`] and [`Solver::solve_with`] are driven by [`Hooks`]: an intermediate
//!   callback that sees an [`IterationRecord`] per iteration and may stop the solve, and a
//!   [`CancelToken`] another thread may cancel (both end with
//!   [`Status::UserRequestedStop`]); the option `keep_history` keeps the records.
//! - [`Options`] has Ipopt's option names and defaults; [`SolveResult`] is serializable,
//!   with the problem's [`ProblemSize`] and, after a failure, the most violated rows and
//!   bounds ([`Violation`]).
//! - The algorithm (module `ipm`) is written against the [`backend::Backend`] trait
//!   (vectors, kernels, model evaluation, KKT system) and never touches vector elements;
//!   [`host_kkt::HostKktBackend`] implements it over a `simdnlp-device` device whose
//!   vectors are host memory, with the KKT system on faer (through `simdnlp-linalg`). The
//!   option `device` picks the device: `cpu` (the default) or `emu`, the CUDA C kernels of
//!   the GPU path compiled by g++ and run on the host.
//! - The model is evaluated on the device's vectors through [`evaluate::DeviceNlp`]: any
//!   [`simdnlp_modeling::NlpModel`] by its callbacks on the vectors' host slices
//!   ([`evaluate::HostNlp`], no copies); on `emu`, a pattern-based
//!   [`simdnlp_modeling::Model`] by its emitted CUDA C kernels ([`evaluate::KernelNlp`]).
//!   Scaling, fixed variables and the restoration problem are device-side wrappers
//!   ([`models`]).
//!
//! # Example
//! ```
//! use simdnlp_modeling::{NlpMeta, NlpModel};
//! use simdnlp_solver::{Options, PrintLevel, Status, solve};
//!
//! /// min (x0 − 1)² + (x1 − 2)²  s.t.  x0 + x1 ≤ 1
//! struct Small(NlpMeta<f64>);
//! impl NlpModel for Small {
//!     fn meta(&self) -> &NlpMeta<f64> { &self.0 }
//!     fn obj(&self, x: &[f64]) -> f64 { (x[0] - 1.0).powi(2) + (x[1] - 2.0).powi(2) }
//!     fn grad(&self, x: &[f64], g: &mut [f64]) {
//!         g[0] = 2.0 * (x[0] - 1.0);
//!         g[1] = 2.0 * (x[1] - 2.0);
//!     }
//!     fn cons(&self, x: &[f64], c: &mut [f64]) { c[0] = x[0] + x[1]; }
//!     fn jac_structure(&self, r: &mut [usize], c: &mut [usize]) {
//!         r.copy_from_slice(&[0, 0]);
//!         c.copy_from_slice(&[0, 1]);
//!     }
//!     fn jac_coord(&self, _x: &[f64], v: &mut [f64]) { v.copy_from_slice(&[1.0, 1.0]); }
//!     fn hess_structure(&self, r: &mut [usize], c: &mut [usize]) {
//!         r.copy_from_slice(&[0, 1]);
//!         c.copy_from_slice(&[0, 1]);
//!     }
//!     fn hess_coord(&self, _x: &[f64], _y: &[f64], w: f64, v: &mut [f64]) {
//!         v.copy_from_slice(&[2.0 * w, 2.0 * w]);
//!     }
//!     fn jprod(&self, _x: &[f64], v: &[f64], jv: &mut [f64]) { jv[0] = v[0] + v[1]; }
//!     fn jtprod(&self, _x: &[f64], v: &[f64], jtv: &mut [f64]) { jtv.fill(v[0]); }
//!     fn hprod(&self, _x: &[f64], _y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
//!         hv[0] = 2.0 * w * v[0];
//!         hv[1] = 2.0 * w * v[1];
//!     }
//! }
//!
//! let mut meta = NlpMeta::new(2, 1);
//! meta.nnzj = 2;
//! meta.nnzh = 2;
//! meta.lcon = vec![f64::NEG_INFINITY];
//! meta.ucon = vec![1.0];
//! let options = Options { print_level: PrintLevel::None, ..Options::default() };
//! let result = solve(&Small(meta), &options)?;
//! assert_eq!(result.status, Status::SolveSucceeded);
//! assert!((result.x[0] - 0.0).abs() < 1e-7 && (result.x[1] - 1.0).abs() < 1e-7);
//! assert!((result.y[0] - 2.0).abs() < 1e-6); // ∇f + Jᵀy = 0 at the solution
//! # Ok::<(), simdnlp_solver::SolverError>(())
//! ```
//!
//! # Method
//! `min f(x) s.t. g_L ≤ g(x) ≤ g_U, x_L ≤ x ≤ x_U` is solved in the form
//! `min f(x) s.t. r(x, s) = 0, bounds on (x, s)`: inequality rows get a slack `s`, equality
//! rows keep `c(x) − b = 0`. Each iteration:
//! 1. optimality test on the scaled error (`tol`, `s_max`) **and** the unscaled absolute
//!    tolerances (`dual_inf_tol`, `constr_viol_tol`, `compl_inf_tol`); acceptable level;
//! 2. barrier update: monotone Fiacco–McCormick (`μ ← max(μ_floor, min(κ_μ μ, μ^θ_μ))`
//!    while the barrier error is below `κ_ε μ`) or LOQO's adaptive rule; the
//!    fraction-to-boundary parameter `τ = max(τ_min, 1 − μ)` is computed from the **new** μ;
//! 3. Newton step on the primal-dual system with Ipopt's inertia correction (δ_w, δ_c) on
//!    the augmented system, or with "Cholesky failed ⇒ wrong inertia" on the condensed one.
//!    Because the default LDLᵀ does not pivot, three of Ipopt's safeguards matter: δ_c is
//!    added after a second wrong inertia at δ_c = 0 and kept from the first attempt once
//!    three consecutive iterations needed it (degenerate Jacobian); a solve that stays
//!    inaccurate after refinement is redone once with Bunch–Kaufman LBLᵀ (kept only where
//!    it confirms the inertia), then with growing δ_c; and trial slacks that round to zero
//!    next to a large bound become `max(ε·min(1, μ), μ/z)` (safe slacks);
//! 4. filter line search with the switching condition (`s_φ`, `s_θ`, `δ` are options),
//!    Armijo on the barrier function φ **including the κ_d damping term** of one-sided
//!    bounds, second-order corrections, the filter-reset heuristic, tiny-step handling and
//!    an optional watchdog; NaN/∞ from a callback at a trial point only shortens the step;
//! 5. when the step size falls below α_min, the ℓ1 feasibility-restoration problem
//!    ([`models::RestoOnDevice`]) is solved by the same machinery until a point lowers both
//!    θ and the largest violation `‖c‖_∞` by `required_infeasibility_reduction` and the
//!    original filter accepts it (Ipopt's rules for the phase — `‖c‖_∞` only, ζ = √μ_R,
//!    the Newton update of the bound multipliers — are the `resto_*` options; its KKT
//!    backend and symbolic analysis are made at the first phase and kept for the later
//!    ones and for re-solves); if it converges to an
//!    infeasible stationary point the problem is reported
//!    [`Status::InfeasibleProblemDetected`].
//!
//! Initialization follows Ipopt: `bound_push`/`bound_frac`, slacks at `g(x0)`, least-squares
//! multipliers (dropped above `constr_mult_init_max`), `z0 = 1`, gradient-based NLP scaling
//! ([`models::ScaledOnDevice`]) and relative bound relaxation (`bound_relax_factor`). Fixed
//! variables are removed and held at their value as parameters
//! ([`models::FixedOnDevice`], Ipopt's `fixed_variable_treatment make_parameter`; with
//! `relax_bounds` they are relaxed to a tiny interior instead) and returned at exactly
//! their value with Ipopt's `make_parameter` bound multipliers: `z_L − z_U` is the
//! Lagrangian gradient's component, at most one of them nonzero.
//!
//! # Allocation
//! Setup allocates every vector and workspace once; iterations allocate nothing (checked by
//! a test with a counting allocator). Entering the restoration phase builds the restoration
//! problem and its KKT analysis, which allocates (once per restoration phase).
//!
//! # Logging
//! Through `tracing`: one Ipopt-style line per iteration at `INFO` (`iter objective inf_pr
//! inf_du lg(mu) ||d|| lg(rg) alpha_du alpha_pr ls`, restoration iterations tagged `r`) and
//! a final summary; details (inertia corrections, SOC, restoration) at `DEBUG`, each KKT
//! factorization at `TRACE`. [`PrintLevel`] limits it (default: the iteration lines and the
//! summary). A program that installed no `tracing` subscriber gets the log as plain lines
//! on stderr; one that did (`tracing_subscriber::fmt().init()`, say) gets it there, with
//! its own filtering and format. `print_level: PrintLevel::None` silences the solver.

#![deny(missing_docs)]
#![allow(clippy::needless_range_loop)]

pub mod backend;
pub mod derivative_check;
pub mod device_kkt;
pub mod drive;
pub mod evaluate;
pub mod evaluation;
mod fixed;
pub mod host_kkt;
mod hybrid_kkt;
mod ipm;
pub mod layout;
pub mod models;
pub mod options;
pub mod result;
pub mod size;
mod solve;
mod solver_device;
mod stderr_log;
mod summary;
pub mod violations;

pub use derivative_check::{
    DerivativeCheckOptions, DerivativeReport, DerivativeTest, check_derivatives,
};
pub use drive::{CancelToken, Hooks, IterationCallback, IterationRecord};
pub use options::{
    CudssKind, CudssReorderingKind, DeviceKind, FixedVariableTreatment, InertiaConfirmation,
    KktKind, LinearSolverKind, MuStrategy, OPTIONS, OptionError, OptionInfo, OptionKind, Options,
    OrderingKind, PrintLevel, RestorationRules, ValidRange,
};
pub use result::{CallbackCounts, SolveResult, SolverError, Status, Timings};
pub use size::ProblemSize;
pub use solve::{DevicePreparation, Solver, prepare_device, solve, solve_with};
pub use solver_device::SolverDevice;
pub use violations::{MAX_VIOLATIONS, Violation, ViolationKind};
