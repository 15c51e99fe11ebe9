//! Expression graphs, registered functions and the coloring-free sparse AD pattern compiler
//! of simdnlp. See `CONTRACT.md` in this crate for the public API the modeling layer uses.
//!
//! # Overview
//!
//! - [`Expr`]: symbolic values built by operator overloading (`+ - * /`, powers, every
//!   registered function as a method), simplified exactly at construction.
//! - [`Pattern::compile`]: once per pattern, hash-conses the expression into a DAG, finds the
//!   unique variable references (first-order slots) and the structurally nonzero
//!   lower-triangle pairs (second-order slots), differentiates symbolically (reverse mode
//!   for the gradient; reverse-over-reverse for the Hessian by default), and lowers value,
//!   gradient and Hessian to straight-line register programs with common subexpressions
//!   computed once.
//! - The CPU batch interpreter runs each program over [`LANES`] data points at a time
//!   (structure-of-arrays registers, one tight loop per instruction), optionally split
//!   across rayon's pool ([`Parallelism`]); it allocates nothing after the [`Workspace`] is
//!   made.
//! - [`cuda::emit`] prints the same programs as CUDA C kernels, one thread per data point.
//!
//! # Design notes
//!
//! - Derivatives are symbolic: reverse mode over the hash-consed DAG builds the gradient
//!   entries as expressions (with the same exact simplification rules), and the Hessian
//!   entries are reverse mode again on each gradient entry (reverse-over-reverse). Shared
//!   work across value, gradient and Hessian is merged by hash-consing all outputs of a
//!   program into one DAG before lowering. Affine subexpressions have constant partials, so
//!   their second derivatives fold to zero and get neither a slot nor an instruction.
//! - Reverse-over-reverse is the default because it produced slightly smaller programs than
//!   forward-over-reverse on the patterns measured (AC branch flow: 32 vs 33 Hessian
//!   instructions; a 6-variable transcendental mix: 62 vs 65) with equal or faster compile
//!   times; both are available through [`Pattern::compile_with`] and agree to rounding.
//! - The interpreter fuses a single-use arithmetic node into its arithmetic consumer
//!   (superinstructions whose intermediate stays in CPU registers; bit-identical results),
//!   turns gathers of consecutive positions into zero-copy views of `x`, and writes outputs
//!   point-major once per batch.

mod data;
mod error;
mod eval;
mod expr;
mod graph;
mod group;
mod index;
mod jit;
mod ops;
mod pattern;
mod print;
mod program;
mod scalar;
mod scatter;
mod vmath;

pub mod cuda;

pub use data::DataView;
pub use error::AdError;
pub use eval::{EvalInputs, Evaluator, LANES, Parallelism, Workspace};
pub use expr::{Expr, Leaves, ParamRef, VarRef, funcs};
pub use group::{GroupHessian, MemberWeights, PatternGroup};
pub use index::Index;
pub use jit::{JitStats, jit_stats};
pub use ops::{Bin, BinPart, BinaryF64, BinaryFn, Un, UnaryF64, UnaryFn};
pub use pattern::{IndexBounds, Pattern, ProgramStats, STACK_COLUMNS, SecondOrder};
pub use print::{DefaultNamer, Namer};
pub use scalar::Scalar;
pub use scatter::ScatterPlan;
