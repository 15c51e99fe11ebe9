//! The cuDSS C ABI: the function-pointer table we call through, and the enum values of each
//! supported version, chosen from the version `cudssGetProperty` reports.
//!
//! Sources: the cuDSS 0.7.1 header (`include/cudss.h`, `cudss_data_types.h`) as summarized in
//! `GPU.md` §4, cross-checked with CUDSS.jl's generated `libcudss.jl` for 0.7 and 0.8 and the
//! cuDSS 0.8.0 / 1.0.0 migration guides. What changes between the families we know:
//!
//! | item | 0.7.x | 0.8.x, 1.0.x |
//! | --- | --- | --- |
//! | `cudssMatrixCreateCsr` | 13 arguments | `offsetType` added before `indexType` (14) |
//! | config `PIVOT_TYPE / PIVOT_THRESHOLD / PIVOT_EPSILON / HOST_NTHREADS / ND_NLEVELS / DETERMINISTIC_MODE` | 8 / 9 / 10 / 15 / 18 / 25 | 7 / 8 / 9 / 14 / 17 / 24 (`USE_MATCHING` removed) |
//! | pivot `NONE` | 2 (`COL 0, ROW 1, NONE 2`) | 1 (`AUTO 0, NONE 1, ...`) |
//! | status | `SUCCESS 0 … INTERNAL_ERROR 6` | `+ IR_FAILED 7` |
//!
//! Unchanged in all three: phases (`ANALYSIS 3, FACTORIZATION 4, REFACTORIZATION 8, SOLVE
//! 1008`), matrix types (`SYMMETRIC 1, SPD 3`), views (`UPPER 2`), `BASE_ZERO 0`,
//! `LAYOUT_COL_MAJOR 0`, data types (`R_64F 1, R_32I 10`; named `cudssDataType_t` in 0.8,
//! `cudaDataType_t` again in 1.0, same values) and the data parameters we use (`INFO 0,
//! NPIVOTS 2, INERTIA 3, USER_PERM 9`; 0.7.1's header). The 0.8/1.0 values were read from
//! bindings and documentation, not from a run: that is why those families need
//! `SIMDNLP_CUDSS_ALLOW_NEWER=1`.

use std::ffi::{c_char, c_int, c_void};
use std::fmt;

use super::CudssError;

/// `cudssHandle_t` (opaque pointer).
pub(crate) type RawHandle = *mut c_void;
/// `cudssConfig_t` (opaque pointer).
pub(crate) type RawConfig = *mut c_void;
/// `cudssData_t` (opaque pointer).
pub(crate) type RawData = *mut c_void;
/// `cudssMatrix_t` (opaque pointer).
pub(crate) type RawMatrix = *mut c_void;
/// `cudssStatus_t` (a C enum, passed as `int`).
pub(crate) type StatusCode = c_int;

/// `libraryPropertyType` values (CUDA `library_types.h`) accepted by `cudssGetProperty`.
pub(crate) const PROPERTY_MAJOR: c_int = 0;
/// See [`PROPERTY_MAJOR`].
pub(crate) const PROPERTY_MINOR: c_int = 1;
/// See [`PROPERTY_MAJOR`].
pub(crate) const PROPERTY_PATCH: c_int = 2;

/// Version of a loaded cuDSS library, as `cudssGetProperty` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudssVersion {
    /// Major version.
    pub major: i32,
    /// Minor version.
    pub minor: i32,
    /// Patch level.
    pub patch: i32,
}

impl fmt::Display for CudssVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The ABI families this build can call, one per set of prototypes and enum values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AbiFamily {
    /// cuDSS 0.7.x (the one we ship against; enabled by default).
    V0_7,
    /// cuDSS 0.8.x (needs `SIMDNLP_CUDSS_ALLOW_NEWER=1`).
    V0_8,
    /// cuDSS 1.0.x (needs `SIMDNLP_CUDSS_ALLOW_NEWER=1`).
    V1_0,
}

impl AbiFamily {
    /// The family of `version`, or `None` when this build does not know its ABI.
    pub fn of(version: CudssVersion) -> Option<Self> {
        match (version.major, version.minor) {
            (0, 7) => Some(Self::V0_7),
            (0, 8) => Some(Self::V0_8),
            (1, 0) => Some(Self::V1_0),
            _ => None,
        }
    }

    /// Whether the family is used without `SIMDNLP_CUDSS_ALLOW_NEWER=1`.
    pub fn enabled_by_default(self) -> bool {
        self == Self::V0_7
    }

    /// Picks the family of `version`, refusing unknown versions and, unless `allow_newer`,
    /// the families not yet checked on a device. `library` names the file in the error.
    pub fn select(
        version: CudssVersion,
        allow_newer: bool,
        library: &str,
    ) -> Result<Self, CudssError> {
        match Self::of(version) {
            None => Err(CudssError::UnsupportedVersion {
                library: library.to_owned(),
                version,
            }),
            Some(family) if !family.enabled_by_default() && !allow_newer => {
                Err(CudssError::NewerVersionDisabled {
                    library: library.to_owned(),
                    version,
                })
            }
            Some(family) => Ok(family),
        }
    }

    /// Whether `cudssMatrixCreateCsr` takes the `offsetType` argument (0.8 and later).
    pub fn csr_has_offset_type(self) -> bool {
        self != Self::V0_7
    }

    pub(crate) fn enums(self) -> &'static Enums {
        match self {
            Self::V0_7 => &ENUMS_0_7,
            Self::V0_8 | Self::V1_0 => &ENUMS_0_8,
        }
    }
}

/// The enum values we pass to (or read from) cuDSS, for one ABI family.
#[derive(Debug)]
pub(crate) struct Enums {
    pub phase_analysis: c_int,
    pub phase_factorization: c_int,
    pub phase_refactorization: c_int,
    pub phase_solve: c_int,
    pub mtype_symmetric: c_int,
    pub mtype_spd: c_int,
    pub mview_upper: c_int,
    pub base_zero: c_int,
    pub layout_col_major: c_int,
    pub type_r_64f: c_int,
    pub type_r_32i: c_int,
    pub data_info: c_int,
    pub data_npivots: c_int,
    pub data_inertia: c_int,
    pub data_user_perm: c_int,
    pub config_reordering_alg: c_int,
    pub config_pivot_type: c_int,
    pub config_pivot_threshold: c_int,
    pub config_pivot_epsilon: c_int,
    pub config_host_nthreads: c_int,
    pub config_deterministic_mode: c_int,
    pub config_nd_nlevels: c_int,
    pub pivot_none: c_int,
    /// `cudssStatus_t` names indexed by value.
    pub status_names: &'static [&'static str],
}

const STATUS_NAMES_0_7: &[&str] = &[
    "SUCCESS",
    "NOT_INITIALIZED",
    "ALLOC_FAILED",
    "INVALID_VALUE",
    "NOT_SUPPORTED",
    "EXECUTION_FAILED",
    "INTERNAL_ERROR",
];

const STATUS_NAMES_0_8: &[&str] = &[
    "SUCCESS",
    "NOT_INITIALIZED",
    "ALLOC_FAILED",
    "INVALID_VALUE",
    "NOT_SUPPORTED",
    "EXECUTION_FAILED",
    "INTERNAL_ERROR",
    "IR_FAILED",
];

static ENUMS_0_7: Enums = Enums {
    phase_analysis: 3,
    phase_factorization: 4,
    phase_refactorization: 8,
    phase_solve: 1008,
    mtype_symmetric: 1,
    mtype_spd: 3,
    mview_upper: 2,
    base_zero: 0,
    layout_col_major: 0,
    type_r_64f: 1,
    type_r_32i: 10,
    data_info: 0,
    data_npivots: 2,
    data_inertia: 3,
    data_user_perm: 9,
    config_reordering_alg: 0,
    config_pivot_type: 8,
    config_pivot_threshold: 9,
    config_pivot_epsilon: 10,
    // cudss.h of 0.7.1 (the pip wheel's include/): the 16th `cudssConfigParam_t` value
    config_host_nthreads: 15,
    // the 26th and last value of 0.7.1's `cudssConfigParam_t`
    config_deterministic_mode: 25,
    // the 19th value of 0.7.1's `cudssConfigParam_t` (after PIVOT_EPSILON_ALG 17)
    config_nd_nlevels: 18,
    pivot_none: 2,
    status_names: STATUS_NAMES_0_7,
};

static ENUMS_0_8: Enums = Enums {
    config_pivot_type: 7,
    config_pivot_threshold: 8,
    config_pivot_epsilon: 9,
    // one less than 0.7's, like every value after the removed `USE_MATCHING`
    config_host_nthreads: 14,
    config_deterministic_mode: 24,
    config_nd_nlevels: 17,
    pivot_none: 1,
    status_names: STATUS_NAMES_0_8,
    ..ENUMS_0_7
};

impl Enums {
    /// The name of a `cudssStatus_t` value in this family (`UNKNOWN` outside the enum).
    pub fn status_name(&self, status: StatusCode) -> &'static str {
        usize::try_from(status)
            .ok()
            .and_then(|k| self.status_names.get(k))
            .copied()
            .unwrap_or("UNKNOWN")
    }
}

/// `cudssGetProperty(libraryPropertyType, int*)`; identical in every version.
pub(crate) type GetPropertyFn = unsafe extern "C" fn(c_int, *mut c_int) -> StatusCode;

/// `cudssMatrixCreateCsr` of 0.7: `(matrix*, nrows, ncols, nnz, rowStart, rowEnd, colIndices,
/// values, indexType, valueType, mtype, mview, indexBase)`.
pub(crate) type CreateCsr07Fn = unsafe extern "C" fn(
    *mut RawMatrix,
    i64,
    i64,
    i64,
    *mut c_void,
    *mut c_void,
    *mut c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
) -> StatusCode;

/// `cudssMatrixCreateCsr` of 0.8 and 1.0: as 0.7 with `offsetType` before `indexType`.
pub(crate) type CreateCsr08Fn = unsafe extern "C" fn(
    *mut RawMatrix,
    i64,
    i64,
    i64,
    *mut c_void,
    *mut c_void,
    *mut c_void,
    *mut c_void,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
) -> StatusCode;

/// The two shapes of `cudssMatrixCreateCsr`.
#[derive(Clone, Copy)]
pub(crate) enum CreateCsrFn {
    /// 13 arguments (0.7).
    V0_7(CreateCsr07Fn),
    /// 14 arguments, `offsetType` added (0.8, 1.0).
    V0_8(CreateCsr08Fn),
}

/// Every cuDSS function we call, resolved once per library.
#[derive(Clone, Copy)]
pub(crate) struct Functions {
    pub create: unsafe extern "C" fn(*mut RawHandle) -> StatusCode,
    pub destroy: unsafe extern "C" fn(RawHandle) -> StatusCode,
    pub set_stream: unsafe extern "C" fn(RawHandle, *mut c_void) -> StatusCode,
    pub config_create: unsafe extern "C" fn(*mut RawConfig) -> StatusCode,
    pub config_destroy: unsafe extern "C" fn(RawConfig) -> StatusCode,
    pub config_set: unsafe extern "C" fn(RawConfig, c_int, *mut c_void, usize) -> StatusCode,
    pub data_create: unsafe extern "C" fn(RawHandle, *mut RawData) -> StatusCode,
    pub data_destroy: unsafe extern "C" fn(RawHandle, RawData) -> StatusCode,
    pub data_get: unsafe extern "C" fn(
        RawHandle,
        RawData,
        c_int,
        *mut c_void,
        usize,
        *mut usize,
    ) -> StatusCode,
    pub data_set: unsafe extern "C" fn(RawHandle, RawData, c_int, *mut c_void, usize) -> StatusCode,
    pub matrix_create_csr: CreateCsrFn,
    pub matrix_create_dn: unsafe extern "C" fn(
        *mut RawMatrix,
        i64,
        i64,
        i64,
        *mut c_void,
        c_int,
        c_int,
    ) -> StatusCode,
    pub matrix_set_values: unsafe extern "C" fn(RawMatrix, *mut c_void) -> StatusCode,
    pub matrix_destroy: unsafe extern "C" fn(RawMatrix) -> StatusCode,
    pub execute: unsafe extern "C" fn(
        RawHandle,
        c_int,
        RawConfig,
        RawData,
        RawMatrix,
        RawMatrix,
        RawMatrix,
    ) -> StatusCode,
    /// `cudssSetThreadingLayer(handle, const char* thrLibFileName)` (cuDSS 0.5 and later):
    /// optional, only needed for the multi-threaded mode (`None` when the library lacks it).
    pub set_threading_layer: Option<unsafe extern "C" fn(RawHandle, *const c_char) -> StatusCode>,
}

/// Looks up `name` in `library` as a value of type `T`.
///
/// # Safety
/// `T` must be the function-pointer type of the symbol's C prototype in the loaded version.
unsafe fn symbol<T: Copy>(
    library: &libloading::Library,
    path: &str,
    name: &'static str,
) -> Result<T, CudssError> {
    let mut cname = Vec::with_capacity(name.len() + 1);
    cname.extend_from_slice(name.as_bytes());
    cname.push(0);
    // SAFETY: the caller guarantees that `T` is the symbol's prototype; the pointer is copied
    // out of the `Symbol` and only used while the `Library` lives (`CudssLibrary` owns both).
    match unsafe { library.get::<T>(&cname) } {
        Ok(found) => Ok(*found),
        Err(e) => Err(CudssError::MissingSymbol {
            library: path.to_owned(),
            symbol: name,
            detail: e.to_string(),
        }),
    }
}

/// Resolves `cudssGetProperty`, the only call made before the version is known.
pub(crate) fn resolve_get_property(
    library: &libloading::Library,
    path: &str,
) -> Result<GetPropertyFn, CudssError> {
    // SAFETY: `cudssGetProperty(libraryPropertyType, int*) -> cudssStatus_t` in every version.
    unsafe { symbol(library, path, "cudssGetProperty") }
}

impl Functions {
    /// Resolves every function with the prototypes of `family`.
    pub(crate) fn resolve(
        library: &libloading::Library,
        path: &str,
        family: AbiFamily,
    ) -> Result<Self, CudssError> {
        // SAFETY (every `symbol` call below): each type is the prototype of that function in
        // `family` (GPU.md §4 and the table at the top of this module); only
        // `cudssMatrixCreateCsr` differs between families and is resolved per family.
        unsafe {
            let matrix_create_csr = if family.csr_has_offset_type() {
                CreateCsrFn::V0_8(symbol(library, path, "cudssMatrixCreateCsr")?)
            } else {
                CreateCsrFn::V0_7(symbol(library, path, "cudssMatrixCreateCsr")?)
            };
            Ok(Self {
                create: symbol(library, path, "cudssCreate")?,
                destroy: symbol(library, path, "cudssDestroy")?,
                set_stream: symbol(library, path, "cudssSetStream")?,
                config_create: symbol(library, path, "cudssConfigCreate")?,
                config_destroy: symbol(library, path, "cudssConfigDestroy")?,
                config_set: symbol(library, path, "cudssConfigSet")?,
                data_create: symbol(library, path, "cudssDataCreate")?,
                data_destroy: symbol(library, path, "cudssDataDestroy")?,
                data_get: symbol(library, path, "cudssDataGet")?,
                data_set: symbol(library, path, "cudssDataSet")?,
                matrix_create_csr,
                matrix_create_dn: symbol(library, path, "cudssMatrixCreateDn")?,
                matrix_set_values: symbol(library, path, "cudssMatrixSetValues")?,
                matrix_destroy: symbol(library, path, "cudssMatrixDestroy")?,
                execute: symbol(library, path, "cudssExecute")?,
                set_threading_layer: symbol(library, path, "cudssSetThreadingLayer").ok(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: i32, minor: i32, patch: i32) -> CudssVersion {
        CudssVersion {
            major,
            minor,
            patch,
        }
    }

    #[test]
    fn families_and_switch() {
        assert_eq!(
            AbiFamily::select(v(0, 7, 1), false, "x").unwrap(),
            AbiFamily::V0_7
        );
        assert_eq!(
            AbiFamily::select(v(0, 7, 0), false, "x").unwrap(),
            AbiFamily::V0_7
        );
        for (newer, family) in [(v(0, 8, 0), AbiFamily::V0_8), (v(1, 0, 0), AbiFamily::V1_0)] {
            assert!(matches!(
                AbiFamily::select(newer, false, "x"),
                Err(CudssError::NewerVersionDisabled { .. })
            ));
            assert_eq!(AbiFamily::select(newer, true, "x").unwrap(), family);
        }
        for unknown in [v(0, 6, 0), v(0, 9, 0), v(1, 1, 0), v(2, 0, 0)] {
            assert!(matches!(
                AbiFamily::select(unknown, true, "x"),
                Err(CudssError::UnsupportedVersion { .. })
            ));
        }
    }

    #[test]
    fn status_names_per_family() {
        let old = AbiFamily::V0_7.enums();
        let new = AbiFamily::V0_8.enums();
        assert_eq!(old.status_name(0), "SUCCESS");
        assert_eq!(old.status_name(5), "EXECUTION_FAILED");
        assert_eq!(old.status_name(7), "UNKNOWN");
        assert_eq!(new.status_name(7), "IR_FAILED");
        assert_eq!(new.status_name(-1), "UNKNOWN");
    }
}
