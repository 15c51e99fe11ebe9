//! Sparse symmetric linear algebra for simdnlp: COO/CSC types, assembly maps, symmetric
//! factorizations with inertia on faer, and condensed KKT products.

pub mod symmetric;

pub use symmetric::{FactorStatus, Inertia, SymmetricSolver};

/// Errors of the linear-algebra layer, with enough context to find the bad input.
#[derive(Debug, thiserror::Error)]
pub enum LinalgError {
    /// A structural index is outside the matrix.
    #[error("{what}: index ({row}, {col}) outside a {nrows}x{ncols} matrix")]
    IndexOutOfRange {
        /// Which input the index came from.
        what: String,
        /// Row index.
        row: usize,
        /// Column index.
        col: usize,
        /// Number of rows.
        nrows: usize,
        /// Number of columns.
        ncols: usize,
    },
    /// Two arrays that must agree in length do not.
    #[error("{what}: expected length {expected}, got {got}")]
    LengthMismatch {
        /// Which input.
        what: String,
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// An operation that needs an earlier step (analysis, factorization) was called first.
    #[error("{0}")]
    InvalidState(String),
    /// The backend failed for a reason it reports.
    #[error("backend failure: {0}")]
    Backend(String),
}
