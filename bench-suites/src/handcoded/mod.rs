//! Hand-written [`simdnlp_modeling::NlpModel`]s with hand-derived derivatives: the
//! baseline against which the modeling layer's abstraction cost is measured.

pub mod acopf;
mod coo;
pub mod rosenbrock;

pub use acopf::AcopfModel;
pub use rosenbrock::{RosenbrockModel, RosenbrockSizeError};
