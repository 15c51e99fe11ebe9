//! Sparse symmetric linear algebra for simdnlp: COO/CSC types, assembly maps, symmetric
//! factorizations with inertia on faer, and condensed KKT products.
//!
//! Layout of the crate:
//! - [`sparse`]: fixed-structure COO patterns (validated), CSC patterns/matrices, and a
//!   symmetric lower-triangle matrix-vector product.
//! - [`assembly`]: [`assembly::KktBuilder`] / [`assembly::SymAssembly`], the map from several
//!   COO value sources (Hessian, Jacobian, diagonals) to one lower-triangle CSC matrix, computed
//!   once per structure; each numeric refill is one pass over the values.
//! - [`condensed`]: [`condensed::CondensedKkt`], the pattern and O(nnz) numeric update of
//!   `K = W + Σx + Jᵀ D J`.
//! - [`faer_backend`]: [`FaerLlt`], [`FaerLdlt`], [`FaerLblt`] implementing
//!   [`SymmetricSolver`] on faer's sparse Cholesky machinery.
//! - [`multifrontal`]: [`MultifrontalLdlt`], a multifrontal LDLᵀ with threshold pivoting
//!   (1×1 and 2×2 pivots) and delayed pivots across fronts: an inertia that can be
//!   trusted where LDLᵀ without pivoting meets zero or tiny pivots.
//! - [`ordering`]: fill-reducing orderings (AMD, METIS nested dissection, or the one that
//!   predicts fewer flops), including a KKT-aware matched ordering that makes
//!   `[[H, Jᵀ], [J, 0]]` factorizable by LDLᵀ without pivoting.
//! - [`refine`]: the iterative-refinement driver (Ipopt's stopping rule, GMRES steps) on top
//!   of any [`SymmetricSolver`] or any [`RefineSystem`], and over any vectors
//!   ([`KrylovSystem`], e.g. device vectors with only scalars coming back).
//! - [`device_factor`]: the factorization seam over a device's vectors
//!   ([`DeviceFactorization`]): faer on the host behind it ([`HostFactorization`]), or cuDSS
//!   on the GPU.
//! - `cudss` (feature `cuda`): NVIDIA cuDSS factorizations on device memory, loaded at run
//!   time (`dlopen`), version-dispatched ABI, shaped like the factorization seam.
//!
//! # Typical use in an interior-point iteration
//!
//! ```
//! use simdnlp_linalg::sparse::sym_lower_matvec;
//! use simdnlp_linalg::{
//!     FactorStatus, FaerLdlt, FillOrdering, Inertia, KktBuilder, Parallelism, RefineOptions,
//!     RefineWork, SymmetricSolver, iterative_refinement,
//! };
//!
//! # fn main() -> Result<(), simdnlp_linalg::LinalgError> {
//! // n = 2 variables, m = 1 constraint: [[H + Σx, Jᵀ], [J, -δc]].
//! let (n, m) = (2, 1);
//! let mut kkt = KktBuilder::new(n + m);
//! let h = kkt.block(&[0, 1, 1], &[0, 0, 1], 0, 0)?; // lower triangle of H
//! let j = kkt.block(&[0, 0], &[0, 1], n, 0)?; // J placed below H
//! let sigma = kkt.diagonal(0, n)?; // Σx + δw
//! let dc = kkt.diagonal(n, m)?; // -δc
//! let asm = kkt.build(); // structure fixed from here on
//!
//! let mut solver = FaerLdlt::new(Parallelism::Sequential);
//! // Zero (2,2) block: order every constraint after a matched variable.
//! solver.set_ordering(FillOrdering::KktMatched { n_primal: n });
//! solver.analyze(asm.n(), asm.col_ptr(), asm.row_idx())?;
//!
//! // Each iteration: refill values (one pass), factorize, check inertia, solve + refine.
//! let mut vals = vec![0.0; asm.nnz()];
//! let (hv, jv, sv, dv) = ([2.0, 0.5, 1.0], [1.0, 1.0], [0.1, 0.1], [0.0]);
//! assert_eq!((h.index(), j.index(), sigma.index(), dc.index()), (0, 1, 2, 3));
//! asm.assemble(&[&hv, &jv, &sv, &dv], &mut vals)?;
//! assert_eq!(solver.factorize(&vals)?, FactorStatus::Success);
//! assert_eq!(solver.inertia(), Some(Inertia { positive: n, negative: m, zero: 0 }));
//!
//! let rhs = [1.0, 2.0, 3.0];
//! let mut sol = [0.0; 3];
//! let mut work = RefineWork::new(n + m);
//! let mut matvec = |x: &[f64], y: &mut [f64]| {
//!     sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).expect("lengths match")
//! };
//! let stats = iterative_refinement(
//!     &mut solver, &mut matvec, &rhs, &mut sol, &mut work, &RefineOptions::default(),
//! )?;
//! assert!(stats.converged);
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

pub mod assembly;
pub mod condensed;
pub mod condensed_device;
#[cfg(feature = "cuda")]
pub mod cudss;
pub mod device_factor;
pub mod faer_backend;
pub mod multifrontal;
pub mod ordering;
pub mod refine;
pub mod sparse;
pub mod symmetric;

pub use assembly::{KktBuilder, SourceId, SymAssembly};
pub use condensed::CondensedKkt;
pub use condensed_device::{CondensedValues, DeviceCondensedKkt};
pub use device_factor::{DeviceFactorization, HostFactorization};
pub use faer_backend::{
    DEFAULT_PARALLEL_MIN_FLOPS, DynamicRegularization, FaerLblt, FaerLdlt, FaerLlt, Parallelism,
};
pub use multifrontal::MultifrontalLdlt;
pub use ordering::{FillMethod, FillOrdering};
pub use refine::{
    KrylovSystem, KrylovWork, RefineOptions, RefineStats, RefineSystem, RefineWork,
    iterative_refinement, refine_krylov, refine_solution, refine_system,
};
pub use sparse::{CooPattern, CscMatrix, CscPattern};
pub use symmetric::{FactorStatus, Inertia, SymmetricSolver};

/// Errors of the linear-algebra layer, with enough context to find the bad input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
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
    /// The device under a [`DeviceFactorization`] failed (a transfer, an allocation, or a
    /// kernel failure reported at the transfer that synchronized with it).
    #[error("{step}: {source}")]
    Device {
        /// What the factorization was doing when the failure was reported.
        step: &'static str,
        /// The device's error.
        #[source]
        source: simdnlp_device::DeviceError,
    },
    /// A compressed sparse column pattern is malformed (column pointers not monotone, row
    /// indices unsorted / duplicated within a column, or an entry above the diagonal where
    /// only the lower triangle is allowed).
    #[error("{what}: invalid CSC pattern in column {col}: {detail}")]
    InvalidPattern {
        /// Which input.
        what: String,
        /// The column where the problem was found.
        col: usize,
        /// What is wrong.
        detail: String,
    },
    /// A fill-reducing ordering could not be computed (e.g. METIS reported an error status,
    /// or the graph exceeds its 32-bit indices).
    #[error("{method} ordering: {detail}")]
    Ordering {
        /// Which ordering method failed (`nested dissection`).
        method: String,
        /// What went wrong.
        detail: String,
    },
    /// A numeric input (value, tolerance, option) is not acceptable.
    #[error("{what}: invalid value {value}: {detail}")]
    InvalidValue {
        /// Which input.
        what: String,
        /// The offending value.
        value: f64,
        /// Why it is rejected.
        detail: String,
    },
    /// A cuDSS call failed (feature `cuda`).
    #[cfg(feature = "cuda")]
    #[error("cuDSS: {0}")]
    Cudss(#[from] cudss::CudssError),
}
