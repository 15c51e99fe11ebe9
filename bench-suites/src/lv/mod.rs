//! The Lukšan–Vlček suite (18 equality-constrained problems, no bounds, minimize), as
//! modeling-layer builders (`spec/bench-problems.md`, "Lukšan–Vlček").
//!
//! Each problem is written in pattern form: one pattern per algebraic form over an index
//! range or a list of row offsets, never one pattern per scalar term; boundary rows that
//! differ in form are single-point patterns. The size parameter is `N` (the paper's sizes
//! are [`LV_SIZES`]); `n = N` variables except `broyden_banded` (`n = 2N`).
//!
//! Notes on the reading of the spec:
//! - `|·|⁷/3` (broyden_tridiagonal, broyden_banded) is `(|·|⁷)/3`, as the reference
//!   implementation parses `abs(·)^7/3`, not `|·|^{7/3}`.
//! - The chained HS46 rows use the index sets crossed as in the reference: the form
//!   `x_{l+2} + x_{l+3}⁴x_{l+4}² − 2` runs over `L2 = {2,4,…}`, the other over `L1`.
//!
//! Every builder is generic over the scalar type ([`generic`]); the functions at this
//! level are the `f64` instances, and [`build`] / [`build_generic`] dispatch by name.
//!
//! ```
//! use simdnlp_bench::lv;
//! use simdnlp_modeling::NlpModel;
//! let m = lv::build("rosenbrock", 20)?;
//! assert_eq!((m.meta().nvar, m.meta().ncon), (20, 18));
//! let m = lv::build("broyden_banded", 20)?;
//! assert_eq!((m.meta().nvar, m.meta().ncon), (40, 29));
//! # Ok::<(), lv::LvError>(())
//! ```

mod chained_hs;
mod problems;
mod register;

pub use register::{register, register_handcoded};

use simdnlp_modeling::{Model, ModelError, Scalar};

/// The generic builders: `generic::rosenbrock::<f32>(n)` etc.
pub mod generic {
    pub use super::chained_hs::{
        chained_hs46, chained_hs47, chained_hs48, chained_hs49, chained_hs50, chained_hs51,
        chained_hs52, chained_hs53, four_wide_nc, three_wide_nc,
    };
    pub use super::problems::{
        augmented_lagrangian, broyden_banded, broyden_tridiagonal, chained_powell, cragg_levy,
        generalized_brown, modified_brown, rosenbrock, trigo_tridiagonal, wood,
    };
}

/// The paper's sizes: `N` for the small, medium and large instances.
pub const LV_SIZES: [usize; 3] = [20, 2000, 200_000];

/// Why [`build`] could not build a problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LvError {
    /// The name is not one of [`LV_PROBLEMS`].
    #[error("no Lukšan–Vlček problem named {name:?} (known: {})", LV_PROBLEMS.join(", "))]
    UnknownProblem {
        /// The name asked for.
        name: String,
    },
    /// The modeling layer rejected the model (e.g. `N` too small for the boundary rows).
    #[error("Lukšan–Vlček {name} at N = {n}: {source}")]
    Model {
        /// The problem.
        name: String,
        /// The size parameter.
        n: usize,
        /// The modeling layer's error.
        source: ModelError,
    },
}

macro_rules! lv_suite {
    ($($name:ident),* $(,)?) => {
        /// The names of the 18 problems, in the spec's order.
        pub const LV_PROBLEMS: &[&str] = &[$(stringify!($name)),*];

        $(
            #[doc = concat!("`", stringify!($name), "` at size `N = n` in `f64` (see [`generic::", stringify!($name), "`]).")]
            pub fn $name(n: usize) -> Result<Model, ModelError> {
                generic::$name::<f64>(n)
            }
        )*

        /// Builds the problem `name` (one of [`LV_PROBLEMS`]) at size `N = n` with scalar
        /// type `T`.
        pub fn build_generic<T: Scalar>(name: &str, n: usize) -> Result<Model<T>, LvError> {
            let built = match name {
                $(stringify!($name) => generic::$name::<T>(n),)*
                _ => return Err(LvError::UnknownProblem { name: name.to_string() }),
            };
            built.map_err(|source| LvError::Model { name: name.to_string(), n, source })
        }
    };
}

lv_suite!(
    rosenbrock,
    wood,
    chained_powell,
    cragg_levy,
    broyden_tridiagonal,
    broyden_banded,
    trigo_tridiagonal,
    augmented_lagrangian,
    modified_brown,
    generalized_brown,
    chained_hs46,
    chained_hs47,
    chained_hs48,
    chained_hs49,
    chained_hs50,
    chained_hs51,
    chained_hs52,
    chained_hs53,
);

/// Builds the problem `name` (one of [`LV_PROBLEMS`]) at size `N = n` in `f64`.
pub fn build(name: &str, n: usize) -> Result<Model, LvError> {
    build_generic::<f64>(name, n)
}
