//! The `simdnlp-bench` harness: instance registry ([`registry`]), the paper's callback
//! timing protocol ([`timing`], [`stats`]), the solver seam ([`solve`]), records, tables
//! and plots ([`report`], [`plot`]), the command line ([`cli`]) and the device
//! verification of the `gpu-check` binary ([`gpu_check`]).

pub mod cli;
pub mod gpu_check;
pub mod gpu_cudss;
pub mod gpu_solve;
pub mod interrupt;
pub mod kernels;
pub mod plot;
pub mod registry;
pub mod report;
pub mod solve;
pub mod stats;
pub mod timing;

use std::path::PathBuf;

pub use interrupt::Interrupt;
pub use registry::{
    DynModel, Instance, InstanceSpec, ModelSource, ModelSourceSel, ParamKind, Problem, Registry,
    SizeClass, SizeParam, SizeSel, SizeSpec, Suite,
};
pub use report::{CallbackRecord, ClassSummary, SolveRecord};
pub use solve::{
    DeviceChoice, FnSolver, KktChoice, LinearSolverChoice, SolveBackend, SolveCounts, SolveOutcome,
    SolveSettings, SolveTimes,
};
pub use stats::{COMPOSITE_WEIGHTS, CallbackWeights, SGM_SHIFT_S, composite, sgm};
pub use timing::{TimingConfig, time_callbacks, time_per_call};

/// Errors of the harness.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// OPF data could not be read.
    #[error(transparent)]
    Opf(#[from] crate::opf::MatpowerError),
    /// `--instance` names no registered problem of the suite.
    #[error("suite {suite}: no instance {name:?} (available: {available})")]
    UnknownInstance {
        /// The suite.
        suite: Suite,
        /// The name given.
        name: String,
        /// Registered names.
        available: String,
    },
    /// The size given does not fit the problem.
    #[error("instance {instance:?}: bad size: {why}")]
    BadSize {
        /// The instance as given.
        instance: String,
        /// What is wrong.
        why: String,
    },
    /// The suite has no problems for the chosen backend.
    #[error("suite {suite}, backend {backend}: no instances ({why})")]
    NoInstances {
        /// The suite.
        suite: Suite,
        /// The backend selection.
        backend: String,
        /// Why.
        why: String,
    },
    /// A model could not be built.
    #[error("instance {instance}: cannot build model: {msg}")]
    Model {
        /// The instance label.
        instance: String,
        /// The builder's message.
        msg: String,
    },
    /// Solve mode without a solver.
    #[error(
        "solve mode is not wired yet: simdnlp_solver does not expose solve(&model, &options); \
         see harness::solve::default_solver"
    )]
    SolverNotWired,
    /// The solver rejected the solver options (unknown name, bad value, options file).
    #[error("solver options: {0}")]
    SolverOptions(String),
    /// A device or kernel compiler is not available, or compiling failed.
    #[error(transparent)]
    Device(#[from] simdnlp_device::DeviceError),
    /// A command-line value is out of range.
    #[error("invalid argument: {0}")]
    Arg(String),
    /// Writing an output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Plotting failed.
    #[error("plot {path}: {msg}")]
    Plot {
        /// The plot file.
        path: PathBuf,
        /// What went wrong.
        msg: String,
    },
}
