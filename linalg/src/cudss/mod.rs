//! NVIDIA cuDSS sparse factorizations through FFI (feature `cuda`), on raw device pointers.
//!
//! cuDSS is loaded at run time (`dlopen`), so this module builds, and is tested against a
//! stand-in library (`tests/cudss_stub.rs`), on machines without CUDA. No CUDA wrapper crate
//! appears here: device memory is passed as raw `u64` addresses and the stream as a raw
//! `cudaStream_t` (`*mut c_void`); whoever owns the buffers (the device layer) keeps them
//! alive and on the same CUDA context.
//!
//! Layout (one job per module):
//! - [`loader`]: finds and opens the library ([`CudssLibrary`], [`LoadOptions`]):
//!   `SIMDNLP_CUDSS_LIB` (a path) first, then the sonames `libcudss.so.0`, `libcudss.so.1`,
//!   `libcudss.so`; a typed error naming every candidate tried when all fail.
//! - [`abi`]: the function-pointer table and the enum values of each supported ABI,
//!   dispatched on the version `cudssGetProperty` reports ([`CudssVersion`], [`AbiFamily`]).
//!   cuDSS 0.7.x is enabled; 0.8.x and 1.0.x only with `SIMDNLP_CUDSS_ALLOW_NEWER=1` until
//!   they are checked on a device.
//! - [`solver`]: [`CudssSolver`], one symmetric factorization (LDLᵀ by default, or Cholesky)
//!   shaped like the factorization seam: analyze once, factorize (status + inertia), solve in
//!   place.
//! - [`device`]: [`CudssOnCuda`], the [`crate::DeviceFactorization`] on the `Cuda` device
//!   of `simdnlp-device` (pattern, values and right-hand sides as device vectors).
//!
//! Every cuDSS call that returns a non-zero `cudssStatus_t` becomes
//! [`CudssError::Status`], naming the call (and the phase for `cudssExecute`).
//!
//! Checked without a GPU by `tests/cudss_stub.rs` (a g++-built stand-in `libcudss` that logs
//! every call's arguments): arity, argument order, enum values per version, call sequence,
//! verdict, errors. Only a device can check that real cuDSS computes what these calls ask
//! (GPU.md §7 stage 4: residuals against faer, inertia against eigenvalues, `INFO` on an
//! indefinite matrix under Cholesky, refactorization after a value change).
//!
//! # Use
//!
//! ```no_run
//! use simdnlp_linalg::FactorStatus;
//! use simdnlp_linalg::cudss::{CudssError, CudssLibrary, CudssOptions, CudssSolver, DeviceCsc};
//!
//! # fn device_buffers() -> (*mut std::ffi::c_void, u64, u64, u64, u64) { unimplemented!() }
//! # fn main() -> Result<(), CudssError> {
//! // A stream and device buffers from the device layer: i32 column pointers and row indices
//! // of the lower triangle of a 3x3 matrix with 5 entries, its f64 values, one f64 vector.
//! let (stream, col_ptr, row_idx, values, rhs) = device_buffers();
//! let library = CudssLibrary::load_from_env()?;
//! // SAFETY: `stream` is a live stream of the current context; the buffers are device
//! // allocations of the sizes given, alive as long as the solver.
//! unsafe {
//!     let mut solver = CudssSolver::new(library, stream, CudssOptions::default())?;
//!     solver.analyze(DeviceCsc { n: 3, nnz: 5, col_ptr, row_idx, values })?;
//!     if solver.factorize(values)? == FactorStatus::Success {
//!         let inertia = solver.inertia().expect("LDLᵀ reports the inertia");
//!         assert_eq!(inertia.positive + inertia.negative + inertia.zero, 3);
//!         solver.solve_in_place(rhs)?; // rhs now holds the solution (on the stream)
//!     }
//! }
//! # Ok(())
//! # }
//! ```

pub mod abi;
pub mod device;
pub mod loader;
pub mod solver;

pub use abi::{AbiFamily, CudssVersion};
pub use device::CudssOnCuda;
pub use loader::{
    CudssLibrary, DEFAULT_SONAMES, LoadOptions, THREADING_LAYER_SONAME, threading_layer_path,
};
pub use solver::{
    CudssFactorization, CudssOptions, CudssReordering, CudssSolver, DeviceCsc, DevicePtr, RawStream,
};

/// Environment variable naming the cuDSS library file to load before the usual sonames.
pub const ENV_LIBRARY: &str = "SIMDNLP_CUDSS_LIB";

/// Environment variable naming cuDSS's threading layer (`libcudss_mtlayer_gomp.so.0`) for
/// the multi-threaded mode ([`CudssOptions::host_threads`]); by default the file of that name
/// beside the loaded cuDSS library, or the bare name when cuDSS was found by soname.
pub const ENV_THREADING_LAYER: &str = "SIMDNLP_CUDSS_MTLAYER";

/// Environment variable that, set to `1`, enables the cuDSS 0.8.x / 1.0.x ABIs (their enum
/// values were read from bindings, not checked on a device yet).
pub const ENV_ALLOW_NEWER: &str = "SIMDNLP_CUDSS_ALLOW_NEWER";

/// Errors of the cuDSS layer, each with the context needed to act on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CudssError {
    /// No candidate library could be opened.
    #[error(
        "cannot load cuDSS: tried {}; set {ENV_LIBRARY} to the path of libcudss.so.0 (cuDSS 0.7, \
         pip package nvidia-cudss-cu13==0.7.1.4) or add its directory, and that of \
         libcublas.so.13 which it needs, to LD_LIBRARY_PATH",
        .tried.iter().map(|(name, why)| format!("`{name}` ({why})")).collect::<Vec<_>>().join(", ")
    )]
    Load {
        /// Each candidate tried, in order, with the loader's reason for refusing it.
        tried: Vec<(String, String)>,
    },
    /// The library opened but lacks a symbol we call (not cuDSS, or a different ABI).
    #[error("`{library}` has no symbol `{symbol}` ({detail}): is it cuDSS?")]
    MissingSymbol {
        /// The library that was opened.
        library: String,
        /// The missing function.
        symbol: &'static str,
        /// The loader's message.
        detail: String,
    },
    /// The library reports a version whose ABI this build does not know.
    #[error(
        "`{library}` is cuDSS {version}; supported: 0.7.x (and 0.8.x, 1.0.x with \
         {ENV_ALLOW_NEWER}=1)"
    )]
    UnsupportedVersion {
        /// The library that was opened.
        library: String,
        /// The version it reports.
        version: CudssVersion,
    },
    /// The library is a newer cuDSS whose ABI is known but not yet enabled by default.
    #[error(
        "`{library}` is cuDSS {version}, whose ABI is not yet checked on a device; set \
         {ENV_ALLOW_NEWER}=1 to use it anyway, or point {ENV_LIBRARY} at cuDSS 0.7.x"
    )]
    NewerVersionDisabled {
        /// The library that was opened.
        library: String,
        /// The version it reports.
        version: CudssVersion,
    },
    /// A cuDSS call returned a non-zero status.
    #[error("{call} failed with cuDSS status {status} ({name})")]
    Status {
        /// The call, e.g. `cudssMatrixCreateCsr` or `cudssExecute(FACTORIZATION)`.
        call: &'static str,
        /// The `cudssStatus_t` value.
        status: i32,
        /// Its name in the loaded version's enum (`UNKNOWN` if outside it).
        name: &'static str,
    },
    /// The multi-threaded mode was asked for ([`CudssOptions::host_threads`]) but its
    /// threading layer could not be set.
    #[error(
        "cuDSS's multi-threaded mode needs its threading layer `{layer}`: {detail}; set \
         {ENV_THREADING_LAYER} to the path of libcudss_mtlayer_gomp.so.0 (in the same pip \
         package as libcudss.so.0; it needs libgomp.so.1), or leave the host threads at 0"
    )]
    ThreadingLayer {
        /// The threading-layer library given to `cudssSetThreadingLayer`.
        layer: String,
        /// What failed (the missing symbol, or the call's status).
        detail: String,
    },
    /// A dimension does not fit the 32-bit indices handed to cuDSS.
    #[error("{what} = {value} does not fit the 32-bit indices used with cuDSS (max {max})")]
    IndexOverflow {
        /// Which dimension.
        what: &'static str,
        /// Its value.
        value: usize,
        /// The largest accepted value.
        max: usize,
    },
    /// An argument is unusable (a null device pointer where data is needed, ...).
    #[error("{what}: {detail}")]
    InvalidArgument {
        /// Which argument.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// A call came out of order (factorize before analyze, solve without a factorization).
    #[error("{0}")]
    InvalidState(&'static str),
    /// cuDSS reported an inertia that cannot be the inertia of an `n × n` matrix.
    #[error(
        "cuDSS reported inertia ({positive} positive, {negative} negative) for a {n}x{n} matrix"
    )]
    InvalidInertia {
        /// Positive count reported.
        positive: i64,
        /// Negative count reported.
        negative: i64,
        /// Matrix dimension.
        n: usize,
    },
}
