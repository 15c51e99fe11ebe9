//! simdnlp: large structured nonlinear optimization in Rust.
//!
//! A model is a handful of *patterns*: one expression written once over a data iterator.
//! Each pattern is compiled once into straight-line derivative programs. The resulting
//! model is solved by an interior-point method (Ipopt's filter line search) whose linear
//! algebra runs on faer.
//!
//! ```
//! use simdnlp::prelude::*;
//!
//! // Rosenbrock chain: min Σ 100(x_{i-1}² − x_i)² + (x_{i-1} − 1)²
//! let n: i64 = 10;
//! let mut m = ModelBuilder::new();
//! let x = m.var(1..=n).start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 }).named("x");
//! m.minimize(2..=n, |i| 100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2));
//! let model = m.build()?;
//!
//! let result = simdnlp::solve(&model, &Options::default())?;
//! assert!(result.status.is_success());
//! let xs = result.solution(&model, &x)?; // an ndarray shaped like the block
//! assert_eq!(xs.len(), n as usize);
//! // from this start the method finds the chain's second local minimum (x₁ ≈ −0.993)
//! assert!((result.objective - 3.98658).abs() < 1e-4);
//! # Ok::<(), simdnlp::Error>(())
//! ```
//!
//! The crates behind the facade: [`ad`] (expression graphs, pattern compiler, evaluators),
//! [`modeling`] (builder, `Model`, the [`NlpModel`] trait), [`linalg`] (KKT assembly and
//! factorizations with inertia), [`solver`] (the interior-point method), [`device`] (the
//! devices a [`Solver`] runs on: `Cpu`, `Emu`, with feature `cuda` `Cuda`).

pub mod ampl;

pub use simdnlp_ad as ad;
pub use simdnlp_device as device;
pub use simdnlp_linalg as linalg;
pub use simdnlp_modeling as modeling;
pub use simdnlp_solver as solver;

pub use simdnlp_modeling::{Model, ModelBuilder, ModelError, NlpMeta, NlpModel};
pub use simdnlp_solver::{
    CancelToken, DerivativeCheckOptions, DerivativeReport, DerivativeTest, Hooks, IterationRecord,
    OptionError, Options, PrintLevel, SolveResult, Solver, SolverDevice, SolverError, Status,
    check_derivatives, solve, solve_with,
};

pub use ndarray;

/// The README's examples, compiled and run as doc-tests (`cargo test --doc`), so that the
/// README cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

use ndarray::Array;
use simdnlp_modeling::{Con, Dims, Var};

/// Everything a typical model-and-solve program needs, in one `use`: the builder and
/// block handles, `#[derive(DataRow)]` (it works through this path with no attribute), the
/// solver entry points, its options' enums, and [`BlockResults`].
pub mod prelude {
    pub use crate::{BlockResults, Error};
    pub use simdnlp_ad::{Expr, Index};
    pub use simdnlp_modeling::{
        Con, DataRow, Model, ModelBuilder, ModelError, NlpMeta, NlpModel, Param, Var,
    };
    pub use simdnlp_solver::{
        CancelToken, DeviceKind, FixedVariableTreatment, Hooks, IterationRecord, KktKind,
        LinearSolverKind, MuStrategy, OptionError, Options, PrintLevel, SolveResult, Solver,
        SolverError, Status, solve, solve_with,
    };
}

/// Any error of building or solving a model, so `?` works across both steps.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The model could not be built or a model accessor got bad input.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The solver could not start (bad options, inconsistent model data, ...).
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// An option could not be set by name or read from an options file.
    #[error(transparent)]
    Option(#[from] OptionError),
}

/// Block-shaped views of a [`SolveResult`]: the solution, bound multipliers, constraint
/// values and multipliers of one variable or constraint block, as `ndarray` arrays shaped
/// like the block.
///
/// The `model` argument is the model that was solved; it checks that the handle belongs to
/// it and gives the block's offset and shape.
pub trait BlockResults {
    /// Primal values of variable block `var`.
    fn solution<D: Dims>(
        &self,
        model: &Model,
        var: &Var<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError>;
    /// Constraint multipliers of constraint block `con` (Ipopt's sign convention, see
    /// [`SolveResult`]).
    fn multipliers<D: Dims>(
        &self,
        model: &Model,
        con: &Con<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError>;
    /// Values `c(x)` of constraint block `con`'s rows at the solution (compare with the
    /// block's bounds).
    fn constraint_values<D: Dims>(
        &self,
        model: &Model,
        con: &Con<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError>;
    /// Lower-bound multipliers `z_L` of variable block `var`.
    fn multipliers_lower<D: Dims>(
        &self,
        model: &Model,
        var: &Var<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError>;
    /// Upper-bound multipliers `z_U` of variable block `var`.
    fn multipliers_upper<D: Dims>(
        &self,
        model: &Model,
        var: &Var<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError>;
}

impl BlockResults for SolveResult {
    fn solution<D: Dims>(
        &self,
        model: &Model,
        var: &Var<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError> {
        model.solution(var, &self.x)
    }

    fn multipliers<D: Dims>(
        &self,
        model: &Model,
        con: &Con<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError> {
        model.multipliers(con, &self.y)
    }

    fn constraint_values<D: Dims>(
        &self,
        model: &Model,
        con: &Con<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError> {
        model.constraint_values(con, &self.constraints)
    }

    fn multipliers_lower<D: Dims>(
        &self,
        model: &Model,
        var: &Var<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError> {
        model.multipliers_lower(var, &self.z_l)
    }

    fn multipliers_upper<D: Dims>(
        &self,
        model: &Model,
        var: &Var<D>,
    ) -> Result<Array<f64, D::Nd>, ModelError> {
        model.multipliers_upper(var, &self.z_u)
    }
}
