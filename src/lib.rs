//! simdnlp: large structured nonlinear optimization in Rust.
//!
//! A model is a handful of *patterns* (one expression over a data iterator), compiled once
//! into straight-line derivative programs, and solved by an interior-point method.

pub use simdnlp_ad as ad;
pub use simdnlp_linalg as linalg;
pub use simdnlp_modeling as modeling;
pub use simdnlp_solver as solver;

pub use simdnlp_modeling::{NlpMeta, NlpModel};
