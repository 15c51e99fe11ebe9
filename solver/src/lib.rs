//! Primal-dual interior-point filter line-search solver (Ipopt's method, Wächter & Biegler
//! 2006) for [`simdnlp_modeling::NlpModel`]s.
//!
//! - [`solve`] solves a model once; [`Solver`] owns a model and re-solves it after its
//!   parameters, bounds or start changed, reusing the symbolic analysis and warm-starting.
//! - [`Options`] has Ipopt's option names and defaults; [`SolveResult`] is serializable.
//! - The algorithm ([`ipm`]) is written against the [`backend::Backend`] trait (vectors,
//!   kernels, model evaluation, KKT system) and never touches vector elements;
//!   [`cpu::CpuBackend`] implements it on the CPU with faer.
//!
//! Logging goes through `tracing` (target `simdnlp_solver`): one Ipopt-style line per
//! iteration at `INFO` and a final summary; install a subscriber to see it.

#![deny(missing_docs)]
#![allow(clippy::needless_range_loop)]

pub mod backend;
pub mod cpu;
mod ipm;
pub mod layout;
pub mod models;
pub mod options;
pub mod result;
mod solve;

pub use options::{KktKind, LinearSolverKind, MuStrategy, Options, PrintLevel};
pub use result::{CallbackCounts, SolveResult, SolverError, Status, Timings};
pub use solve::{Solver, solve};
