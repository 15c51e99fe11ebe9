//! [`CudssSolver`]: one sparse symmetric factorization by cuDSS on device memory, shaped like
//! the factorization seam (analyze once, factorize → status + inertia, solve in place).
//!
//! The matrix is our lower-triangle CSC pattern (`col_ptr`, `row_idx`, both `i32` on the
//! device) handed to cuDSS as the CSR of the **upper** triangle — the transpose of a lower
//! CSC is an upper CSR with the same arrays: `rowStart = col_ptr`, `colIndices = row_idx`,
//! `CUDSS_MVIEW_UPPER` (MadNLP passes its lower CSC the same way, view `'U'`). Right-hand
//! side and solution are dense `n × 1` matrices (`ld = n`) created without values and pointed
//! at the caller's vector on each solve (in place: `x` and `b` share the buffer, as MadNLP does
//! when cuDSS's own refinement is off, which it is here).
//!
//! Phases: `ANALYSIS` once per pattern; the first numeric factorization is `FACTORIZATION`,
//! later ones `REFACTORIZATION` (with `INFO` reset to 0 first, as the cuDSS documentation
//! asks after a failed Cholesky); `SOLVE` per right-hand side.
//!
//! Verdict ([`CudssSolver::factorize`] and [`CudssSolver::inertia`]), as GPU.md §3 says:
//! - Cholesky (`CUDSS_MTYPE_SPD`): `INFO == 0` → [`FactorStatus::Success`] with inertia
//!   `(n, 0, 0)`; `INFO != 0` → [`FactorStatus::NotPositiveDefinite`] (the solver's "wrong
//!   inertia"), no inertia.
//! - LDLᵀ (`CUDSS_MTYPE_SYMMETRIC`, the default, as in MadNLP): `INFO == 0` → the inertia
//!   from `CUDSS_DATA_INERTIA` (`positive, negative`; `zero = n − positive − negative`),
//!   status `Success`, or [`FactorStatus::Singular`] when `zero > 0`; `INFO != 0` →
//!   `Singular` with no inertia. The caller compares the inertia with the one it needs
//!   (`(n, 0, 0)` for the condensed KKT matrix). MadNLP notes cuDSS's inertia is not always
//!   right and static pivot perturbation may hide indefiniteness: the solver's refinement
//!   residual stays the final arbiter (check on a device: GPU.md §7 stage 4).
//!
//! `cudssDataGet(INFO)` synchronizes the stream, so [`CudssSolver::factorize`] returns after
//! the factorization has run; [`CudssSolver::solve_in_place`] is asynchronous on the stream.

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use super::CudssError;
use super::abi::{AbiFamily, CreateCsrFn, RawConfig, RawData, RawHandle, RawMatrix, StatusCode};
use super::loader::CudssLibrary;
use crate::{FactorStatus, Inertia};

/// A device address (what `cuMemAlloc` returns, `CUdeviceptr`). `0` is the null pointer.
pub type DevicePtr = u64;

/// A raw `cudaStream_t` / `CUstream` (null is the legacy default stream).
pub type RawStream = *mut c_void;

/// Which factorization cuDSS computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CudssFactorization {
    /// LDLᵀ of a symmetric matrix (`CUDSS_MTYPE_SYMMETRIC`), reporting the inertia. MadNLP's
    /// default for the condensed KKT matrix ("Cholesky can lead to undefined behavior").
    #[default]
    Ldlt,
    /// Cholesky LLᵀ of a symmetric positive definite matrix (`CUDSS_MTYPE_SPD`); a failure
    /// (`INFO != 0`) means "not positive definite".
    Cholesky,
}

/// The fill-reducing reordering of cuDSS's analysis (`CUDSS_CONFIG_REORDERING_ALG`, a
/// `cudssAlgType_t`). cuDSS 0.7 documents `DEFAULT` (nested dissection, METIS-based) and
/// `ALG_1` to `ALG_3` for the reordering (COLAMD-based, COLAMD-based with a special
/// factorization, AMD-based per NVIDIA's documentation; which one is fastest depends on
/// the matrix: measure on the device).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CudssReordering {
    /// `CUDSS_ALG_DEFAULT` (0): cuDSS's default; the configuration is left untouched.
    #[default]
    Default,
    /// `CUDSS_ALG_1` (1).
    Alg1,
    /// `CUDSS_ALG_2` (2).
    Alg2,
    /// `CUDSS_ALG_3` (3).
    Alg3,
}

impl CudssReordering {
    /// The `cudssAlgType_t` value (the same in cuDSS 0.7, 0.8 and 1.0).
    pub fn alg_type(self) -> c_int {
        match self {
            Self::Default => 0,
            Self::Alg1 => 1,
            Self::Alg2 => 2,
            Self::Alg3 => 3,
        }
    }
}

/// Settings of a [`CudssSolver`]; the defaults leave cuDSS's own defaults in place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CudssOptions {
    /// The factorization (default LDLᵀ).
    pub factorization: CudssFactorization,
    /// `false` sets `CUDSS_CONFIG_PIVOT_TYPE` to `CUDSS_PIVOT_NONE` (MadNLP's
    /// `cudss_pivoting = false`); `true` (default) leaves cuDSS's default pivoting.
    pub pivoting: bool,
    /// `CUDSS_CONFIG_PIVOT_THRESHOLD` (relative threshold deciding when a diagonal entry is
    /// pivoted), left at cuDSS's default when `None`. Finite and `>= 0`.
    pub pivot_threshold: Option<f64>,
    /// `CUDSS_CONFIG_PIVOT_EPSILON` (absolute value replacing tiny pivots: static pivot
    /// perturbation), left at cuDSS's default when `None`. Finite and `>= 0`.
    pub pivot_epsilon: Option<f64>,
    /// The fill-reducing ordering: `None` (default) lets cuDSS's analysis reorder (its
    /// METIS-based nested dissection, on the host); `Some(method)` computes `method`'s
    /// ordering on the host when a pattern is analyzed ([`crate::ordering::amd_ordering`],
    /// [`crate::ordering::nested_dissection_ordering`]; `Auto` is AMD here) and gives it to
    /// cuDSS ([`CudssSolver::set_user_permutation`]). Used by [`super::CudssOnCuda`].
    pub host_ordering: Option<crate::ordering::FillMethod>,
    /// `CUDSS_CONFIG_REORDERING_ALG` of the analysis (default: cuDSS's own, left unset).
    pub reordering: CudssReordering,
    /// Host threads of cuDSS's multi-threaded mode: `0` (default) leaves cuDSS
    /// single-threaded on the host; `k ≥ 1` loads its threading layer
    /// ([`super::CudssLibrary::threading_layer`], `cudssSetThreadingLayer`) and sets
    /// `CUDSS_CONFIG_HOST_NTHREADS` to `k`, so the host part of the analysis (the default
    /// reordering) runs on `k` threads.
    pub host_threads: u32,
    /// `true` sets `CUDSS_CONFIG_DETERMINISTIC_MODE` to 1: bitwise the same factors and
    /// solutions from run to run (cuDSS's default allows run-to-run differences in the
    /// summation order); `false` (default) leaves it unset. Refused with cuDSS 0.7.x
    /// ([`CudssError::InvalidArgument`]): on an H100 its solves never returned.
    pub deterministic: bool,
    /// `CUDSS_CONFIG_ND_NLEVELS`: the number of nested-dissection levels of cuDSS's default
    /// reordering (fewer levels: a cheaper analysis and fewer, larger supernodes at the top
    /// of the elimination tree); `None` (default) leaves cuDSS's own choice. `≥ 1`.
    pub nd_levels: Option<u32>,
}

impl Default for CudssOptions {
    fn default() -> Self {
        Self {
            factorization: CudssFactorization::Ldlt,
            pivoting: true,
            pivot_threshold: None,
            pivot_epsilon: None,
            host_ordering: None,
            reordering: CudssReordering::Default,
            host_threads: 0,
            deterministic: false,
            nd_levels: None,
        }
    }
}

/// The lower triangle of a symmetric `n × n` matrix in compressed sparse column form, in
/// device memory: `col_ptr` (`n + 1` `i32`), `row_idx` (`nnz` `i32`, sorted within each
/// column, every `row_idx[k] >= column`), `values` (`nnz` `f64`, in `row_idx` order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceCsc {
    /// Matrix dimension.
    pub n: usize,
    /// Number of stored entries (lower triangle, diagonal included).
    pub nnz: usize,
    /// Device address of the `n + 1` column pointers (`i32`).
    pub col_ptr: DevicePtr,
    /// Device address of the `nnz` row indices (`i32`).
    pub row_idx: DevicePtr,
    /// Device address of the `nnz` values (`f64`) used by the analysis; factorizations may
    /// pass another buffer of the same layout.
    pub values: DevicePtr,
}

/// One cuDSS factorization: handle, configuration, solver data and the three matrix
/// descriptors (`A`, solution, right-hand side), destroyed in reverse order on drop.
///
/// The solver is not tied to a host thread, but every call must run on a thread where the
/// CUDA context of its stream is current (cudarc: `CudaContext::bind_to_thread`).
pub struct CudssSolver {
    library: Arc<CudssLibrary>,
    options: CudssOptions,
    handle: RawHandle,
    config: RawConfig,
    data: RawData,
    matrix: RawMatrix,
    solution: RawMatrix,
    rhs: RawMatrix,
    n: usize,
    nnz: usize,
    analyzed: bool,
    /// The next numeric factorization is the first on this analysis (`FACTORIZATION`).
    fresh: bool,
    /// The last factorization succeeded: solving is allowed.
    factored: bool,
    bound_values: DevicePtr,
    bound_rhs: DevicePtr,
    inertia: Option<Inertia>,
    /// The fill-reducing permutation given to the next analyses (`CUDSS_DATA_USER_PERM`,
    /// `perm[new] = old`), instead of cuDSS's own reordering.
    user_permutation: Option<Vec<i32>>,
}

impl std::fmt::Debug for CudssSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudssSolver")
            .field("library", &self.library)
            .field("options", &self.options)
            .field("n", &self.n)
            .field("nnz", &self.nnz)
            .field("analyzed", &self.analyzed)
            .field("factored", &self.factored)
            .field("inertia", &self.inertia)
            .finish_non_exhaustive()
    }
}

// SAFETY: the cuDSS objects behind the raw pointers are owned by this value alone (never
// shared or aliased) and cuDSS does not tie them to the creating host thread, only to a CUDA
// context, which the caller makes current on whichever thread uses the solver (documented on
// the type). `&mut self` on every call that touches them rules out concurrent use.
unsafe impl Send for CudssSolver {}

/// A configuration value and its C type (`int` or `double`).
#[derive(Clone, Copy)]
enum ConfigValue {
    Int(c_int),
    Real(f64),
}

fn check_option(what: &'static str, value: Option<f64>) -> Result<(), CudssError> {
    match value {
        Some(v) if !(v.is_finite() && v >= 0.0) => Err(CudssError::InvalidArgument {
            what,
            detail: format!("{v} is not a finite value >= 0"),
        }),
        _ => Ok(()),
    }
}

fn fits_i32(what: &'static str, value: usize) -> Result<i64, CudssError> {
    let max = i32::MAX as usize;
    if value > max {
        return Err(CudssError::IndexOverflow { what, value, max });
    }
    Ok(value as i64)
}

/// Reads `INFO` (and the raw `INERTIA` pair) into the verdict described in the module
/// documentation.
fn verdict(
    factorization: CudssFactorization,
    n: usize,
    info: c_int,
    raw_inertia: Option<[i32; 2]>,
) -> Result<(FactorStatus, Option<Inertia>), CudssError> {
    if info != 0 {
        let status = match factorization {
            CudssFactorization::Cholesky => FactorStatus::NotPositiveDefinite,
            CudssFactorization::Ldlt => FactorStatus::Singular,
        };
        return Ok((status, None));
    }
    let Some([positive, negative]) = raw_inertia else {
        return Ok((
            FactorStatus::Success,
            Some(Inertia {
                positive: n,
                negative: 0,
                zero: 0,
            }),
        ));
    };
    let bad = || CudssError::InvalidInertia {
        positive: positive.into(),
        negative: negative.into(),
        n,
    };
    let positive = usize::try_from(positive).map_err(|_| bad())?;
    let negative = usize::try_from(negative).map_err(|_| bad())?;
    let zero = n
        .checked_sub(positive)
        .and_then(|rest| rest.checked_sub(negative))
        .ok_or_else(bad)?;
    let inertia = Inertia {
        positive,
        negative,
        zero,
    };
    let status = if zero > 0 {
        FactorStatus::Singular
    } else {
        FactorStatus::Success
    };
    Ok((status, Some(inertia)))
}

impl CudssSolver {
    /// Creates the handle (bound to `stream`), the configuration (from `options`) and the
    /// solver data. Nothing is analyzed yet.
    ///
    /// # Safety
    /// `stream` must be null or a live CUDA stream of the context current on this thread,
    /// and stay alive as long as the solver.
    pub unsafe fn new(
        library: Arc<CudssLibrary>,
        stream: RawStream,
        options: CudssOptions,
    ) -> Result<Self, CudssError> {
        check_option("CudssOptions::pivot_threshold", options.pivot_threshold)?;
        check_option("CudssOptions::pivot_epsilon", options.pivot_epsilon)?;
        if options.deterministic && library.family() == AbiFamily::V0_7 {
            return Err(CudssError::InvalidArgument {
                what: "CudssOptions::deterministic",
                detail: format!(
                    "cuDSS {}'s deterministic mode is refused: on an H100 a solve with it \
                     never returned (catmix:200, 0.3 s without it, was stopped after 20 s; \
                     with and without the multi-threaded mode; bench-suites/results, runs 11 \
                     and 12)",
                    library.version()
                ),
            });
        }
        let mut solver = Self {
            library,
            options,
            handle: ptr::null_mut(),
            config: ptr::null_mut(),
            data: ptr::null_mut(),
            matrix: ptr::null_mut(),
            solution: ptr::null_mut(),
            rhs: ptr::null_mut(),
            n: 0,
            nnz: 0,
            analyzed: false,
            fresh: true,
            factored: false,
            bound_values: 0,
            bound_rhs: 0,
            inertia: None,
            user_permutation: None,
        };
        // From here on an early return drops `solver`, which destroys what was created.
        let f = *solver.library.functions();
        let enums = solver.library.enums();
        // SAFETY (every FFI call in this function): the function pointers come from the
        // loaded library with the prototypes of its ABI family (abi.rs); out-parameters are
        // fields of `solver`; handle/config are the objects just created; `stream` is valid
        // by this function's contract.
        unsafe {
            let status = (f.create)(&mut solver.handle);
            solver.check("cudssCreate", status)?;
            let status = (f.set_stream)(solver.handle, stream);
            solver.check("cudssSetStream", status)?;
            if options.host_threads > 0 {
                solver.set_threading_layer()?;
            }
            let status = (f.config_create)(&mut solver.config);
            solver.check("cudssConfigCreate", status)?;
            let host_threads = c_int::try_from(options.host_threads).unwrap_or(c_int::MAX);
            let settings = [
                (options.reordering != CudssReordering::Default).then_some((
                    "cudssConfigSet(REORDERING_ALG)",
                    enums.config_reordering_alg,
                    ConfigValue::Int(options.reordering.alg_type()),
                )),
                options.nd_levels.map(|levels| {
                    (
                        "cudssConfigSet(ND_NLEVELS)",
                        enums.config_nd_nlevels,
                        ConfigValue::Int(c_int::try_from(levels).unwrap_or(c_int::MAX)),
                    )
                }),
                (!options.pivoting).then_some((
                    "cudssConfigSet(PIVOT_TYPE)",
                    enums.config_pivot_type,
                    ConfigValue::Int(enums.pivot_none),
                )),
                options.pivot_threshold.map(|v| {
                    (
                        "cudssConfigSet(PIVOT_THRESHOLD)",
                        enums.config_pivot_threshold,
                        ConfigValue::Real(v),
                    )
                }),
                options.pivot_epsilon.map(|v| {
                    (
                        "cudssConfigSet(PIVOT_EPSILON)",
                        enums.config_pivot_epsilon,
                        ConfigValue::Real(v),
                    )
                }),
                (host_threads > 0).then_some((
                    "cudssConfigSet(HOST_NTHREADS)",
                    enums.config_host_nthreads,
                    ConfigValue::Int(host_threads),
                )),
                options.deterministic.then_some((
                    "cudssConfigSet(DETERMINISTIC_MODE)",
                    enums.config_deterministic_mode,
                    ConfigValue::Int(1),
                )),
            ];
            for (call, param, value) in settings.into_iter().flatten() {
                solver.set_config(call, param, value)?;
            }
            let status = (f.data_create)(solver.handle, &mut solver.data);
            solver.check("cudssDataCreate", status)?;
        }
        Ok(solver)
    }

    /// Loads cuDSS's threading layer into the handle (`cudssSetThreadingLayer`).
    fn set_threading_layer(&mut self) -> Result<(), CudssError> {
        let layer = self.library.threading_layer();
        let layer_name = layer.to_string_lossy().into_owned();
        let failed = |detail: String| CudssError::ThreadingLayer {
            layer: layer_name.clone(),
            detail,
        };
        let Some(set) = self.library.functions().set_threading_layer else {
            return Err(failed(format!(
                "`{}` has no symbol `cudssSetThreadingLayer` (cuDSS 0.5 or later has it)",
                self.library.name()
            )));
        };
        let c_layer = std::ffi::CString::new(layer.as_os_str().as_encoded_bytes())
            .map_err(|_| failed("the path contains a NUL byte".into()))?;
        // SAFETY: `set` is `cudssSetThreadingLayer(cudssHandle_t, const char*)` of the loaded
        // library; `self.handle` is the live handle created by `new`; `c_layer` is a
        // NUL-terminated string that outlives the call (cuDSS copies or opens it at once).
        let status = unsafe { set(self.handle, c_layer.as_ptr()) };
        if status != 0 {
            return Err(failed(format!(
                "cudssSetThreadingLayer failed with cuDSS status {status} ({})",
                self.library.enums().status_name(status)
            )));
        }
        Ok(())
    }

    /// Gives cuDSS a fill-reducing permutation (`perm[new] = old`, e.g. from
    /// [`crate::ordering::amd_ordering`]) for the next analyses (`CUDSS_DATA_USER_PERM`):
    /// its own reordering (METIS-based nested dissection on the host, most of the analysis
    /// time) is then skipped. `None` returns to cuDSS's reordering.
    ///
    /// Errors: [`CudssError::InvalidArgument`] when `perm` is not a permutation of
    /// `0..perm.len()` (its length is checked against `n` at [`CudssSolver::analyze`]);
    /// [`CudssError::IndexOverflow`] above `i32::MAX` entries.
    pub fn set_user_permutation(&mut self, perm: Option<&[usize]>) -> Result<(), CudssError> {
        let Some(perm) = perm else {
            self.user_permutation = None;
            return Ok(());
        };
        fits_i32("user permutation length", perm.len())?;
        let mut seen = vec![false; perm.len()];
        for (new, &old) in perm.iter().enumerate() {
            if old >= perm.len() || std::mem::replace(&mut seen[old], true) {
                return Err(CudssError::InvalidArgument {
                    what: "CudssSolver::set_user_permutation",
                    detail: format!(
                        "entry {new} is {old}: not a permutation of 0..{}",
                        perm.len()
                    ),
                });
            }
        }
        self.user_permutation = Some(perm.iter().map(|&old| old as i32).collect());
        Ok(())
    }

    /// Symbolic analysis (reordering + symbolic factorization) of `matrix`'s pattern.
    ///
    /// Called once per pattern; calling it again analyzes a new pattern (the previous
    /// descriptors and factors are released first). A zero-size matrix makes no cuDSS call.
    ///
    /// Errors: [`CudssError::IndexOverflow`] when `n` or `nnz` exceeds `i32::MAX` (before
    /// any cuDSS call), [`CudssError::InvalidArgument`] for a null pointer or an `nnz` no
    /// lower triangle can hold, [`CudssError::Status`] for a failed call.
    ///
    /// # Safety
    /// `matrix`'s pointers must be device allocations of the stated sizes and types on the
    /// solver's context, kept alive (and the pattern unchanged) until the solver is dropped or
    /// analyzes another pattern; `values` must hold finite values.
    pub unsafe fn analyze(&mut self, matrix: DeviceCsc) -> Result<(), CudssError> {
        let n = fits_i32("matrix dimension n", matrix.n)?;
        let nnz = fits_i32("number of stored entries nnz", matrix.nnz)?;
        let capacity = matrix.n.saturating_mul(matrix.n.saturating_add(1)) / 2;
        if matrix.nnz > capacity {
            return Err(CudssError::InvalidArgument {
                what: "DeviceCsc::nnz",
                detail: format!(
                    "{} entries cannot fit the lower triangle of a {}x{} matrix",
                    matrix.nnz, matrix.n, matrix.n
                ),
            });
        }
        let null = |what: &'static str| CudssError::InvalidArgument {
            what,
            detail: "null device pointer".into(),
        };
        if matrix.n > 0 && matrix.col_ptr == 0 {
            return Err(null("DeviceCsc::col_ptr"));
        }
        if matrix.nnz > 0 && matrix.row_idx == 0 {
            return Err(null("DeviceCsc::row_idx"));
        }
        if matrix.nnz > 0 && matrix.values == 0 {
            return Err(null("DeviceCsc::values"));
        }
        if let Some(perm) = self
            .user_permutation
            .as_ref()
            .filter(|perm| perm.len() != matrix.n)
        {
            return Err(CudssError::InvalidArgument {
                what: "CudssSolver::set_user_permutation",
                detail: format!(
                    "a permutation of length {} for a {}x{} matrix",
                    perm.len(),
                    matrix.n,
                    matrix.n
                ),
            });
        }
        // A pattern analyzed (or attempted) before leaves factors in the solver data: start
        // the new pattern on fresh data.
        let had_system = self.analyzed || !self.matrix.is_null();
        self.release_system()?;
        if had_system {
            self.renew_data()?;
        }
        self.analyzed = false;
        self.factored = false;
        self.inertia = None;
        self.n = matrix.n;
        self.nnz = matrix.nnz;
        if matrix.n == 0 {
            self.analyzed = true;
            return Ok(());
        }
        let f = *self.library.functions();
        let enums = self.library.enums();
        let mtype = match self.options.factorization {
            CudssFactorization::Ldlt => enums.mtype_symmetric,
            CudssFactorization::Cholesky => enums.mtype_spd,
        };
        let as_ptr = |address: DevicePtr| address as usize as *mut c_void;
        // SAFETY (every FFI call below): function pointers of the loaded library with its
        // family's prototypes (CreateCsr resolved per family); out-parameters are fields of
        // `self`; device pointers are valid by this function's contract (cuDSS only records
        // them here and reads them on the stream); handle/config/data are live.
        unsafe {
            let status = match f.matrix_create_csr {
                CreateCsrFn::V0_7(create) => create(
                    &mut self.matrix,
                    n,
                    n,
                    nnz,
                    as_ptr(matrix.col_ptr),
                    ptr::null_mut(),
                    as_ptr(matrix.row_idx),
                    as_ptr(matrix.values),
                    enums.type_r_32i,
                    enums.type_r_64f,
                    mtype,
                    enums.mview_upper,
                    enums.base_zero,
                ),
                CreateCsrFn::V0_8(create) => create(
                    &mut self.matrix,
                    n,
                    n,
                    nnz,
                    as_ptr(matrix.col_ptr),
                    ptr::null_mut(),
                    as_ptr(matrix.row_idx),
                    as_ptr(matrix.values),
                    enums.type_r_32i,
                    enums.type_r_32i,
                    enums.type_r_64f,
                    mtype,
                    enums.mview_upper,
                    enums.base_zero,
                ),
            };
            self.check("cudssMatrixCreateCsr", status)?;
            self.bound_values = matrix.values;
            for (slot, call) in [
                (&raw mut self.solution, "cudssMatrixCreateDn(solution)"),
                (&raw mut self.rhs, "cudssMatrixCreateDn(rhs)"),
            ] {
                let status = (f.matrix_create_dn)(
                    slot,
                    n,
                    1,
                    n,
                    ptr::null_mut(),
                    enums.type_r_64f,
                    enums.layout_col_major,
                );
                self.check(call, status)?;
            }
            if let Some(perm) = self.user_permutation.as_mut() {
                // cuDSS copies the `n` host `int`s (its "memory ownership" rules), so the
                // buffer need not outlive this call
                let (pointer, bytes) = (perm.as_mut_ptr().cast(), size_of_val(perm.as_slice()));
                let status =
                    (f.data_set)(self.handle, self.data, enums.data_user_perm, pointer, bytes);
                self.check("cudssDataSet(USER_PERM)", status)?;
            }
            let status = (f.execute)(
                self.handle,
                enums.phase_analysis,
                self.config,
                self.data,
                self.matrix,
                self.solution,
                self.rhs,
            );
            self.check("cudssExecute(ANALYSIS)", status)?;
        }
        self.analyzed = true;
        self.fresh = true;
        self.bound_rhs = 0;
        Ok(())
    }

    /// Numeric factorization with the values at `values` (same layout as the analyzed
    /// pattern; may be another buffer than the one given to [`CudssSolver::analyze`]).
    ///
    /// Returns the verdict of the module documentation; [`CudssSolver::inertia`] then
    /// reports the counts. A cuDSS call failing is an error, an unsuccessful factorization is
    /// not (it is a status).
    ///
    /// # Safety
    /// `values` must be a device allocation of `nnz` finite `f64` on the solver's context,
    /// alive until the solver is dropped or analyzes another pattern (cuDSS keeps the pointer
    /// for later solves).
    pub unsafe fn factorize(&mut self, values: DevicePtr) -> Result<FactorStatus, CudssError> {
        if !self.analyzed {
            return Err(CudssError::InvalidState(
                "CudssSolver::factorize called before analyze",
            ));
        }
        self.factored = false;
        self.inertia = None;
        if self.n == 0 {
            self.inertia = Some(Inertia::default());
            self.factored = true;
            return Ok(FactorStatus::Success);
        }
        if values == 0 && self.nnz > 0 {
            return Err(CudssError::InvalidArgument {
                what: "CudssSolver::factorize values",
                detail: "null device pointer".into(),
            });
        }
        let f = *self.library.functions();
        let enums = self.library.enums();
        let mut info: c_int = 0;
        let mut raw_inertia = [0i32; 2];
        let mut written: usize = 0;
        let wants_inertia = self.options.factorization == CudssFactorization::Ldlt;
        // SAFETY (every FFI call below): function pointers of the loaded library with its
        // family's prototypes; `values` is valid by this function's contract; the matrix
        // descriptors and handle/config/data are live (analyzed); `info`, `raw_inertia` and
        // `written` are locals of the sizes passed (INFO is an `int`, INERTIA two values of
        // the `i32` index type).
        unsafe {
            if values != self.bound_values {
                let status = (f.matrix_set_values)(self.matrix, values as usize as *mut c_void);
                self.check("cudssMatrixSetValues(A)", status)?;
                self.bound_values = values;
            }
            let (phase, call) = if self.fresh {
                (enums.phase_factorization, "cudssExecute(FACTORIZATION)")
            } else {
                let status = (f.data_set)(
                    self.handle,
                    self.data,
                    enums.data_info,
                    (&raw mut info).cast(),
                    size_of::<c_int>(),
                );
                self.check("cudssDataSet(INFO)", status)?;
                (enums.phase_refactorization, "cudssExecute(REFACTORIZATION)")
            };
            let status = (f.execute)(
                self.handle,
                phase,
                self.config,
                self.data,
                self.matrix,
                self.solution,
                self.rhs,
            );
            self.check(call, status)?;
            self.fresh = false;
            let status = (f.data_get)(
                self.handle,
                self.data,
                enums.data_info,
                (&raw mut info).cast(),
                size_of::<c_int>(),
                &mut written,
            );
            self.check("cudssDataGet(INFO)", status)?;
            if wants_inertia && info == 0 {
                let status = (f.data_get)(
                    self.handle,
                    self.data,
                    enums.data_inertia,
                    raw_inertia.as_mut_ptr().cast(),
                    size_of::<[i32; 2]>(),
                    &mut written,
                );
                self.check("cudssDataGet(INERTIA)", status)?;
            }
        }
        let (status, inertia) = verdict(
            self.options.factorization,
            self.n,
            info,
            wants_inertia.then_some(raw_inertia),
        )?;
        self.inertia = inertia;
        self.factored = status == FactorStatus::Success;
        Ok(status)
    }

    /// Inertia of the last factorization: `(n, 0, 0)` after a successful Cholesky, cuDSS's
    /// counts after an LDLᵀ with `INFO == 0`, `None` otherwise.
    pub fn inertia(&self) -> Option<Inertia> {
        self.inertia
    }

    /// Solves `A x = b` in place: `rhs` holds `b` on entry and `x` once the stream has run
    /// the solve (the call is asynchronous on the solver's stream).
    ///
    /// Errors: [`CudssError::InvalidState`] unless the last factorization succeeded.
    ///
    /// # Safety
    /// `rhs` must be a device allocation of `n` `f64` on the solver's context, alive until
    /// the stream has finished the solve; no other work may use it meanwhile.
    pub unsafe fn solve_in_place(&mut self, rhs: DevicePtr) -> Result<(), CudssError> {
        if !self.factored {
            return Err(CudssError::InvalidState(
                "CudssSolver::solve_in_place needs a successful factorization first",
            ));
        }
        if self.n == 0 {
            return Ok(());
        }
        if rhs == 0 {
            return Err(CudssError::InvalidArgument {
                what: "CudssSolver::solve_in_place rhs",
                detail: "null device pointer".into(),
            });
        }
        let f = *self.library.functions();
        let enums = self.library.enums();
        // SAFETY (every FFI call below): function pointers of the loaded library with its
        // family's prototypes; descriptors and handle/config/data are live; `rhs` is valid by
        // this function's contract and is both the right-hand side and the solution.
        unsafe {
            if rhs != self.bound_rhs {
                let address = rhs as usize as *mut c_void;
                let status = (f.matrix_set_values)(self.rhs, address);
                self.check("cudssMatrixSetValues(rhs)", status)?;
                let status = (f.matrix_set_values)(self.solution, address);
                self.check("cudssMatrixSetValues(solution)", status)?;
                self.bound_rhs = rhs;
            }
            let status = (f.execute)(
                self.handle,
                enums.phase_solve,
                self.config,
                self.data,
                self.matrix,
                self.solution,
                self.rhs,
            );
            self.check("cudssExecute(SOLVE)", status)?;
        }
        Ok(())
    }

    /// Number of pivots cuDSS perturbed or swapped in the last factorization
    /// (`CUDSS_DATA_NPIVOTS`; GPU.md §8: static pivot perturbation may hide indefiniteness).
    pub fn pivot_count(&self) -> Result<i64, CudssError> {
        if !self.analyzed || (self.fresh && self.n > 0) {
            return Err(CudssError::InvalidState(
                "CudssSolver::pivot_count called before factorize",
            ));
        }
        if self.n == 0 {
            return Ok(0);
        }
        let f = self.library.functions();
        let enums = self.library.enums();
        let mut count: i32 = 0;
        let mut written: usize = 0;
        // SAFETY: `cudssDataGet` of the loaded library; handle/data are live; `count` is an
        // `i32` (the index type) and `written` a `size_t`, both locals.
        let status = unsafe {
            (f.data_get)(
                self.handle,
                self.data,
                enums.data_npivots,
                (&raw mut count).cast(),
                size_of::<i32>(),
                &mut written,
            )
        };
        self.check("cudssDataGet(NPIVOTS)", status)?;
        Ok(count.into())
    }

    /// Dimension of the analyzed matrix (0 before [`CudssSolver::analyze`]).
    pub fn n(&self) -> usize {
        self.n
    }

    /// The settings this solver was created with.
    pub fn options(&self) -> &CudssOptions {
        &self.options
    }

    /// The library this solver calls.
    pub fn library(&self) -> &Arc<CudssLibrary> {
        &self.library
    }

    /// `cudssConfigSet(config, param, &value, sizeof value)`.
    fn set_config(
        &self,
        call: &'static str,
        param: c_int,
        value: ConfigValue,
    ) -> Result<(), CudssError> {
        let config_set = self.library.functions().config_set;
        // SAFETY (both calls): `cudssConfigSet` of the loaded library on this solver's live
        // config; the value pointer addresses a local of exactly the size passed, which
        // cuDSS copies.
        let status = match value {
            ConfigValue::Int(mut v) => unsafe {
                config_set(self.config, param, (&raw mut v).cast(), size_of::<c_int>())
            },
            ConfigValue::Real(mut v) => unsafe {
                config_set(self.config, param, (&raw mut v).cast(), size_of::<f64>())
            },
        };
        self.check(call, status)
    }

    fn check(&self, call: &'static str, status: StatusCode) -> Result<(), CudssError> {
        if status == 0 {
            Ok(())
        } else {
            Err(CudssError::Status {
                call,
                status,
                name: self.library.enums().status_name(status),
            })
        }
    }

    /// Destroys the matrix descriptors (solution, right-hand side, then `A`); returns the
    /// first failure after trying all three.
    fn release_system(&mut self) -> Result<(), CudssError> {
        let destroy = self.library.functions().matrix_destroy;
        let mut result = Ok(());
        for (slot, call) in [
            (&mut self.rhs, "cudssMatrixDestroy(rhs)"),
            (&mut self.solution, "cudssMatrixDestroy(solution)"),
            (&mut self.matrix, "cudssMatrixDestroy(A)"),
        ] {
            if slot.is_null() {
                continue;
            }
            // SAFETY: `*slot` was created by `cudssMatrixCreate*` of this library and is
            // destroyed once (nulled right after).
            let status = unsafe { destroy(*slot) };
            *slot = ptr::null_mut();
            if status != 0 && result.is_ok() {
                result = Err(CudssError::Status {
                    call,
                    status,
                    name: self.library.enums().status_name(status),
                });
            }
        }
        result
    }

    /// Replaces the solver data by a fresh one (for a new pattern).
    fn renew_data(&mut self) -> Result<(), CudssError> {
        let f = *self.library.functions();
        // SAFETY: handle and data are live objects of this library; the old data is
        // destroyed once and its slot nulled before the new one is written into it.
        unsafe {
            if !self.data.is_null() {
                let status = (f.data_destroy)(self.handle, self.data);
                self.data = ptr::null_mut();
                self.check("cudssDataDestroy", status)?;
            }
            let status = (f.data_create)(self.handle, &mut self.data);
            self.check("cudssDataCreate", status)?;
        }
        Ok(())
    }
}

impl Drop for CudssSolver {
    /// Destroys descriptors, data, configuration, then the handle (each only if created).
    /// Failures cannot be reported from `drop` and are ignored.
    fn drop(&mut self) {
        let _ = self.release_system();
        let f = *self.library.functions();
        // SAFETY: each object was created by this library, is destroyed once, children
        // before the handle they belong to (data needs the handle to be destroyed).
        unsafe {
            if !self.data.is_null() && !self.handle.is_null() {
                (f.data_destroy)(self.handle, self.data);
            }
            if !self.config.is_null() {
                (f.config_destroy)(self.config);
            }
            if !self.handle.is_null() {
                (f.destroy)(self.handle);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_verdict() {
        let ok = verdict(CudssFactorization::Cholesky, 4, 0, None).unwrap();
        assert_eq!(ok.0, FactorStatus::Success);
        assert_eq!(
            ok.1,
            Some(Inertia {
                positive: 4,
                negative: 0,
                zero: 0
            })
        );
        let bad = verdict(CudssFactorization::Cholesky, 4, 3, None).unwrap();
        assert_eq!(bad, (FactorStatus::NotPositiveDefinite, None));
    }

    #[test]
    fn ldlt_verdict() {
        let (status, inertia) = verdict(CudssFactorization::Ldlt, 5, 0, Some([3, 2])).unwrap();
        assert_eq!(status, FactorStatus::Success);
        assert_eq!(
            inertia,
            Some(Inertia {
                positive: 3,
                negative: 2,
                zero: 0
            })
        );
        let (status, inertia) = verdict(CudssFactorization::Ldlt, 5, 0, Some([3, 1])).unwrap();
        assert_eq!(status, FactorStatus::Singular);
        assert_eq!(inertia.unwrap().zero, 1);
        assert_eq!(
            verdict(CudssFactorization::Ldlt, 5, 7, Some([0, 0])).unwrap(),
            (FactorStatus::Singular, None)
        );
        for impossible in [[4, 2], [-1, 0], [0, -3]] {
            assert!(matches!(
                verdict(CudssFactorization::Ldlt, 5, 0, Some(impossible)),
                Err(CudssError::InvalidInertia { .. })
            ));
        }
    }
}
