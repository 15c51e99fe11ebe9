//! Modeling layer of simdnlp: variable and parameter blocks, objective and constraint
//! patterns over data iterators, and the solver-facing [`NlpModel`] trait.

pub mod nlp;

pub use nlp::{NlpMeta, NlpModel, Real};
