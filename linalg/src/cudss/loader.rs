//! Finding and opening the cuDSS library: `SIMDNLP_CUDSS_LIB` (a path) first, then the usual
//! sonames; the version it reports picks the ABI ([`super::abi`]).

use std::ffi::{OsStr, OsString, c_int};
use std::path::PathBuf;
use std::sync::Arc;

use super::abi::{self, AbiFamily, CudssVersion, Enums, Functions};
use super::{CudssError, ENV_ALLOW_NEWER, ENV_LIBRARY, ENV_THREADING_LAYER};

/// The file name of cuDSS's prebuilt threading layer for GNU OpenMP (shipped beside
/// `libcudss.so.0` in the pip package `nvidia-cudss-cu13`).
pub const THREADING_LAYER_SONAME: &str = "libcudss_mtlayer_gomp.so.0";

/// Where cuDSS's threading layer is looked for when the library was opened as `library`:
/// `env` (the value of `SIMDNLP_CUDSS_MTLAYER`) when set and non-empty, else
/// [`THREADING_LAYER_SONAME`] in `library`'s directory when `library` is a path, else the
/// bare name (searched like any shared library).
pub fn threading_layer_path(library: &str, env: Option<OsString>) -> PathBuf {
    if let Some(path) = env.filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    match std::path::Path::new(library).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(THREADING_LAYER_SONAME),
        _ => PathBuf::from(THREADING_LAYER_SONAME),
    }
}

/// The sonames tried after `SIMDNLP_CUDSS_LIB`, in order: cuDSS 0.7 ships `libcudss.so.0`,
/// 0.8/1.0 `libcudss.so.1`; `libcudss.so` is the development symlink.
pub const DEFAULT_SONAMES: [&str; 3] = ["libcudss.so.0", "libcudss.so.1", "libcudss.so"];

/// Where to look for cuDSS and which ABIs to accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// A library file tried first (from `SIMDNLP_CUDSS_LIB`); a bare name is searched the way
    /// the dynamic loader searches (`LD_LIBRARY_PATH`, the ld cache).
    pub path: Option<PathBuf>,
    /// Names tried after `path`, in order (default [`DEFAULT_SONAMES`]).
    pub sonames: Vec<String>,
    /// Accept the 0.8.x / 1.0.x ABIs (from `SIMDNLP_CUDSS_ALLOW_NEWER=1`).
    pub allow_newer: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            path: None,
            sonames: DEFAULT_SONAMES.iter().map(|s| (*s).to_owned()).collect(),
            allow_newer: false,
        }
    }
}

impl LoadOptions {
    /// Options from the process environment (`SIMDNLP_CUDSS_LIB`,
    /// `SIMDNLP_CUDSS_ALLOW_NEWER`).
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// Options from an environment given as a lookup function (testable without touching
    /// the process environment). An empty `SIMDNLP_CUDSS_LIB` counts as unset; only
    /// `SIMDNLP_CUDSS_ALLOW_NEWER=1` enables the newer ABIs.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Self {
        let path = lookup(ENV_LIBRARY)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        let allow_newer = lookup(ENV_ALLOW_NEWER).is_some_and(|v| v == OsStr::new("1"));
        Self {
            path,
            allow_newer,
            ..Self::default()
        }
    }

    /// The names that [`CudssLibrary::load`] tries, in order.
    pub fn candidates(&self) -> Vec<OsString> {
        self.path
            .iter()
            .map(|p| p.clone().into_os_string())
            .chain(self.sonames.iter().map(OsString::from))
            .collect()
    }
}

/// An opened cuDSS library: its version, ABI family and resolved functions.
///
/// Shared (`Arc`) by every [`super::CudssSolver`] created from it, which keeps the library
/// loaded while any solver lives.
pub struct CudssLibrary {
    functions: Functions,
    family: AbiFamily,
    version: CudssVersion,
    name: String,
    /// Declared last: the function pointers above are only valid while this is loaded.
    _library: libloading::Library,
}

impl std::fmt::Debug for CudssLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudssLibrary")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

impl CudssLibrary {
    /// Loads cuDSS as the environment says ([`LoadOptions::from_env`]).
    pub fn load_from_env() -> Result<Arc<Self>, CudssError> {
        Self::load(&LoadOptions::from_env())
    }

    /// Opens the first candidate of `options` that the dynamic loader accepts, asks its
    /// version and resolves the functions of its ABI family.
    ///
    /// Errors: [`CudssError::Load`] naming every candidate tried (with the loader's reason)
    /// when none opens; [`CudssError::MissingSymbol`], [`CudssError::UnsupportedVersion`] or
    /// [`CudssError::NewerVersionDisabled`] for the first library that opens (later
    /// candidates are not tried then: a wrong library found first is reported, not hidden).
    pub fn load(options: &LoadOptions) -> Result<Arc<Self>, CudssError> {
        let mut tried = Vec::new();
        for candidate in options.candidates() {
            let name = candidate.to_string_lossy().into_owned();
            // SAFETY: opening a shared library runs its initializers; cuDSS's (and any
            // library a user names in SIMDNLP_CUDSS_LIB) are ordinary C/C++ static
            // constructors with no preconditions on our side.
            match unsafe { libloading::Library::new(&candidate) } {
                Ok(library) => return Self::from_library(library, name, options.allow_newer),
                Err(e) => tried.push((name, e.to_string())),
            }
        }
        Err(CudssError::Load { tried })
    }

    fn from_library(
        library: libloading::Library,
        name: String,
        allow_newer: bool,
    ) -> Result<Arc<Self>, CudssError> {
        let get_property = abi::resolve_get_property(&library, &name)?;
        let query = |property: c_int, what: &'static str| -> Result<i32, CudssError> {
            let mut value: c_int = -1;
            // SAFETY: `get_property` is `cudssGetProperty` of this library (still loaded);
            // `value` is a valid `int` to write.
            let status = unsafe { get_property(property, &mut value) };
            if status != 0 {
                return Err(CudssError::Status {
                    call: what,
                    status,
                    // The version (hence the enum) is unknown yet; 0..=6 agree everywhere.
                    name: AbiFamily::V0_7.enums().status_name(status),
                });
            }
            Ok(value)
        };
        let version = CudssVersion {
            major: query(abi::PROPERTY_MAJOR, "cudssGetProperty(MAJOR_VERSION)")?,
            minor: query(abi::PROPERTY_MINOR, "cudssGetProperty(MINOR_VERSION)")?,
            patch: query(abi::PROPERTY_PATCH, "cudssGetProperty(PATCH_LEVEL)")?,
        };
        let family = AbiFamily::select(version, allow_newer, &name)?;
        let functions = Functions::resolve(&library, &name, family)?;
        Ok(Arc::new(Self {
            functions,
            family,
            version,
            name,
            _library: library,
        }))
    }

    /// The version the library reports.
    pub fn version(&self) -> CudssVersion {
        self.version
    }

    /// The ABI family in use.
    pub fn family(&self) -> AbiFamily {
        self.family
    }

    /// The name or path the library was opened by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where this library's threading layer is looked for ([`threading_layer_path`] with
    /// the process environment).
    pub fn threading_layer(&self) -> PathBuf {
        threading_layer_path(&self.name, std::env::var_os(ENV_THREADING_LAYER))
    }

    pub(crate) fn functions(&self) -> &Functions {
        &self.functions
    }

    pub(crate) fn enums(&self) -> &'static Enums {
        self.family.enums()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_lookup() {
        let none = LoadOptions::from_lookup(|_| None);
        assert_eq!(none, LoadOptions::default());
        assert_eq!(
            none.candidates(),
            ["libcudss.so.0", "libcudss.so.1", "libcudss.so"].map(OsString::from)
        );
        let set = LoadOptions::from_lookup(|name| match name {
            "SIMDNLP_CUDSS_LIB" => Some("/opt/cudss/libcudss.so.0".into()),
            "SIMDNLP_CUDSS_ALLOW_NEWER" => Some("1".into()),
            _ => None,
        });
        assert_eq!(set.path, Some(PathBuf::from("/opt/cudss/libcudss.so.0")));
        assert!(set.allow_newer);
        assert_eq!(
            set.candidates()[0],
            OsString::from("/opt/cudss/libcudss.so.0")
        );
        assert_eq!(set.candidates().len(), 4);
        // Only "1" enables; an empty path counts as unset.
        let other = LoadOptions::from_lookup(|name| match name {
            "SIMDNLP_CUDSS_LIB" => Some("".into()),
            "SIMDNLP_CUDSS_ALLOW_NEWER" => Some("yes".into()),
            _ => None,
        });
        assert_eq!(other, LoadOptions::default());
    }

    #[test]
    fn threading_layer_beside_the_library_or_from_the_environment() {
        assert_eq!(
            threading_layer_path("/opt/cudss/lib/libcudss.so.0", None),
            PathBuf::from("/opt/cudss/lib/libcudss_mtlayer_gomp.so.0")
        );
        assert_eq!(
            threading_layer_path("libcudss.so.0", None),
            PathBuf::from("libcudss_mtlayer_gomp.so.0")
        );
        assert_eq!(
            threading_layer_path("libcudss.so.0", Some("/x/mt.so".into())),
            PathBuf::from("/x/mt.so")
        );
        // an empty variable counts as unset
        assert_eq!(
            threading_layer_path("/a/libcudss.so.0", Some("".into())),
            PathBuf::from("/a/libcudss_mtlayer_gomp.so.0")
        );
    }
}
