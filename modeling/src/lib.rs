//! Modeling layer of simdnlp: variable and parameter blocks, objective and constraint
//! patterns over data iterators, and the solver-facing [`NlpModel`] trait.
//!
//! A model is a few *patterns*, each one expression written once over a data iterator
//! (ranges, products of ranges, slices of tuples or of `#[derive(DataRow)]` structs,
//! nested iterators). The pattern's closure is called once with a symbolic data point;
//! nothing is unrolled per data point, and the expression is compiled once into
//! derivative programs by [`simdnlp_ad`].
//!
//! ```
//! use simdnlp_modeling::{ModelBuilder, NlpModel};
//!
//! let nh = 4;
//! let mut m = ModelBuilder::new();
//! let h = m.var(0..=nh).lower(1.0).start(1.0).named("h");
//! let v = m.var(0..=nh).start_with(|i| i as f64 / nh as f64).named("v");
//! let dt = m.var(1).lower(0.0).start(0.1).named("dt");
//! m.maximize((), |_| h.at(nh));
//! let alt = m
//!     .constraint(1..=nh, |i| -h.at(i) + h.at(i - 1) + 0.5 * dt.at(0) * (v.at(i) + v.at(i - 1)))
//!     .named("alt");
//! let mf = m.param([0.6]).named("mf");
//! m.constraint((), |_| h.at(0) - mf.at(0)).named("h0");
//! let mut model = m.build()?;
//! assert_eq!((model.meta().nvar, model.meta().ncon), (11, 5));
//! model.set_value(&mf, 0.7)?; // no rebuild
//! let y = model.multipliers(&alt, &vec![0.0; 5])?; // ndarray in the block's shape
//! assert_eq!(y.len(), 4);
//! println!("{model}"); // the model as mathematics
//! # Ok::<(), simdnlp_modeling::ModelError>(())
//! ```

#![warn(missing_docs)]

pub mod access;
mod alloc;
mod block;
pub mod builder;
mod compile;
pub mod data;
pub mod device;
mod display;
pub mod error;
pub mod index;
pub mod model;
pub mod nl;
pub mod nlp;
pub mod shape;
pub mod values;

pub use access::PatternInfo;
pub use builder::{BlockKind, Con, ExprBlock, ModelBuilder, Param, PatternHandle, Sense, Var};
pub use data::{
    ColumnAlloc, ColumnWriter, Columns, DataRow, DataSource, Field, Nested, field_name, nested,
};
pub use device::{DeviceModel, cuda_module_source};
pub use error::{ModelError, NonFiniteDatum, OutOfRange};
pub use index::{Dat, Idx, IndexArg, IntoIdx, IntoIndex};
pub use model::{
    Evaluator, Model, Parallelism, default_evaluator, default_fusion, default_threads,
    set_default_evaluator, set_default_fusion, set_default_threads,
};
pub use ndarray::{Ix0, Ix1, Ix2, Ix3, IxDyn};
pub use nlp::{BlockPosition, MetaError, NlpMeta, NlpModel};
pub use shape::{At, AtIdx, DYNAMIC, Dims, IntoShape, Shape};
pub use simdnlp_ad::{Expr, Index, JitStats, PatternGroup, Scalar, jit_stats};
pub use simdnlp_modeling_derive::DataRow;
pub use values::Values;
