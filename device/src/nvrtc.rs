//! NVIDIA's run-time CUDA compiler (NVRTC), loaded dynamically: the compile step of the
//! `Cuda` device, usable on any machine that has `libnvrtc` (no GPU or driver needed).
//!
//! [`Nvrtc::load`] finds the library through `SIMDNLP_NVRTC_LIB` (a path to
//! `libnvrtc.so.*`), then the usual sonames on the dynamic loader's path
//! (`LD_LIBRARY_PATH`). When the library is given by path, NVRTC's builtins library
//! (`libnvrtc-builtins.so.*`, which NVRTC opens by name at its first compile) is loaded
//! from the same directory first, so a pip-installed NVRTC works without `LD_LIBRARY_PATH`.
//!
//! [`Nvrtc::compile`] turns one module source (the IPM kernels [`crate::IPM_KERNELS`] or
//! a model's emitted pattern kernels) into PTX. The options are those of the GPU path:
//! `--fmad=false`, so that a device computes each `a*b + c` with two roundings exactly as
//! the CPU does (the emitted `exp`/`sin`/`cos` call `fma()` where the CPU's lane functions
//! fuse too: one rounding on both), and a virtual architecture (`compute_90` for H100/H200
//! by default).
//!
//! ```no_run
//! use simdnlp_device::{IPM_KERNELS, Nvrtc};
//!
//! let nvrtc = Nvrtc::load()?; // needs libnvrtc
//! let ptx = nvrtc.compile(IPM_KERNELS, "ipm.cu", "compute_90")?;
//! println!("NVRTC {:?}: {} kernels, {} bytes of PTX", nvrtc.version(), ptx.entries(), ptx.text.len());
//! # Ok::<(), simdnlp_device::DeviceError>(())
//! ```

use crate::error::DeviceError;
use crate::kernel_cache::{CacheKey, KernelCache};
use std::ffi::{CStr, CString, OsString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

/// Environment variable naming the NVRTC library file (`…/libnvrtc.so.13`).
pub const NVRTC_LIB_ENV: &str = "SIMDNLP_NVRTC_LIB";

/// Sonames tried after [`NVRTC_LIB_ENV`], newest first.
const SONAMES: [&str; 3] = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];

/// Device name in errors: NVRTC compiles for the CUDA device.
const NAME: &str = "cuda";

/// `nvrtcProgram` (an opaque handle).
type Program = *mut c_void;
type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
type CreateFn = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> c_int;
type TextFn = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut Program) -> c_int;
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;

/// The NVRTC functions the compile step calls, resolved from one loaded library.
struct Functions {
    version: VersionFn,
    create: CreateFn,
    compile: CompileFn,
    log_size: SizeFn,
    log: TextFn,
    ptx_size: SizeFn,
    ptx: TextFn,
    destroy: DestroyFn,
    error_string: ErrorStringFn,
}

/// A loaded NVRTC library.
pub struct Nvrtc {
    functions: Functions,
    version: (i32, i32),
    name: String,
    /// Declared after `functions`, which are valid only while this stays loaded.
    _library: libloading::Library,
    /// The builtins library loaded beside it (kept loaded as long as NVRTC may use it).
    _builtins: Option<libloading::Library>,
}

impl std::fmt::Debug for Nvrtc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvrtc")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// PTX of one compiled module.
#[derive(Clone, Debug, PartialEq)]
pub struct Ptx {
    /// The PTX text (without the trailing NUL).
    pub text: String,
    /// NVRTC's log (warnings; empty when there were none).
    pub log: String,
}

impl Ptx {
    /// Number of kernels (`.entry` directives) in the PTX.
    pub fn entries(&self) -> usize {
        self.text.matches(".entry ").count()
    }

    /// Parameter sizes in bytes of kernel `kernel`, read from its `.entry` declaration
    /// (`.param .u64` → 8, `.param .u32` → 4, ...), or `None` when the PTX has no such
    /// kernel. The CUDA device checks each launch's arguments against them.
    pub fn param_sizes(&self, kernel: &str) -> Option<Vec<u8>> {
        let entry = format!(".entry {kernel}(");
        let start = self.text.find(&entry)? + entry.len();
        let end = start + self.text[start..].find(')')?;
        let mut sizes = Vec::new();
        for decl in self.text[start..end].split(',') {
            // the first type word: `.u64`, `.s32`, `.f64`, `.b8`, ...
            let Some(ty) = decl.split_whitespace().find(|w| {
                [".u", ".s", ".f", ".b"]
                    .iter()
                    .any(|p| w.starts_with(p) && w[2..].bytes().all(|b| b.is_ascii_digit()))
                    && w.len() > 2
            }) else {
                continue;
            };
            let bits: u32 = ty[2..].parse().ok()?;
            sizes.push(u8::try_from(bits / 8).ok()?);
        }
        Some(sizes)
    }
}

fn unavailable(reason: String) -> DeviceError {
    DeviceError::Unavailable {
        device: NAME,
        reason,
    }
}

impl Nvrtc {
    /// Loads NVRTC from `$SIMDNLP_NVRTC_LIB` when set, else by soname from the loader's
    /// path.
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] naming every candidate tried with the loader's reason,
    /// and how to point at the library (`SIMDNLP_NVRTC_LIB` or `LD_LIBRARY_PATH`).
    pub fn load() -> Result<Self, DeviceError> {
        match std::env::var_os(NVRTC_LIB_ENV) {
            Some(path) if !path.is_empty() => Self::open(Path::new(&path)),
            _ => Self::open_candidates(SONAMES.iter().map(OsString::from).collect()),
        }
    }

    /// Loads NVRTC from the library file `path` (its builtins library from the same
    /// directory first, when there is one).
    ///
    /// # Errors
    /// As [`Nvrtc::load`].
    pub fn open(path: &Path) -> Result<Self, DeviceError> {
        let builtins = builtins_beside(path).and_then(|b| load_global(&b));
        let mut nvrtc = Self::open_candidates(vec![path.as_os_str().to_os_string()])?;
        nvrtc._builtins = builtins;
        Ok(nvrtc)
    }

    fn open_candidates(candidates: Vec<OsString>) -> Result<Self, DeviceError> {
        let mut tried = Vec::new();
        for candidate in candidates {
            let name = candidate.to_string_lossy().into_owned();
            // SAFETY: opening NVRTC runs its static initialisers (ordinary C++
            // constructors with no preconditions on our side).
            match unsafe { libloading::Library::new(&candidate) } {
                Ok(library) => return Self::from_library(library, name),
                Err(e) => tried.push(format!("{name}: {e}")),
            }
        }
        Err(unavailable(format!(
            "NVRTC not found (tried {}); set {NVRTC_LIB_ENV} to the path of libnvrtc.so.* \
             or add its directory to LD_LIBRARY_PATH (NVRTC 13.0 without a GPU: `pip install \
             nvidia-cuda-nvrtc==13.0.*`)",
            tried.join("; ")
        )))
    }

    fn from_library(library: libloading::Library, name: String) -> Result<Self, DeviceError> {
        fn get<T: Copy>(
            library: &libloading::Library,
            name: &str,
            symbol: &'static str,
        ) -> Result<T, DeviceError> {
            // SAFETY: each `T` below is the C prototype of `symbol` in NVRTC's `nvrtc.h`
            // (stable since CUDA 7); the pointer is used only while `library` is loaded
            // (the `Nvrtc` keeps it).
            unsafe { library.get::<T>(symbol.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| unavailable(format!("{name} has no {symbol}: {e}")))
        }
        let functions = Functions {
            version: get(&library, &name, "nvrtcVersion")?,
            create: get(&library, &name, "nvrtcCreateProgram")?,
            compile: get(&library, &name, "nvrtcCompileProgram")?,
            log_size: get(&library, &name, "nvrtcGetProgramLogSize")?,
            log: get(&library, &name, "nvrtcGetProgramLog")?,
            ptx_size: get(&library, &name, "nvrtcGetPTXSize")?,
            ptx: get(&library, &name, "nvrtcGetPTX")?,
            destroy: get(&library, &name, "nvrtcDestroyProgram")?,
            error_string: get(&library, &name, "nvrtcGetErrorString")?,
        };
        let (mut major, mut minor) = (0, 0);
        // SAFETY: `nvrtcVersion` writes two ints.
        let status = unsafe { (functions.version)(&mut major, &mut minor) };
        if status != 0 {
            return Err(unavailable(format!(
                "{name}: nvrtcVersion returned status {status}"
            )));
        }
        Ok(Self {
            functions,
            version: (major, minor),
            name,
            _library: library,
            _builtins: None,
        })
    }

    /// NVRTC's version `(major, minor)`, e.g. `(13, 0)`.
    pub fn version(&self) -> (i32, i32) {
        self.version
    }

    /// The library that was loaded (path or soname).
    pub fn library(&self) -> &str {
        &self.name
    }

    /// Compiles one module `source` (named `file` in messages) to PTX for the virtual
    /// architecture `arch` (e.g. `compute_90`), with `--fmad=false`.
    ///
    /// # Errors
    /// [`DeviceError::Compile`] with NVRTC's log when the source does not compile, or the
    /// NVRTC status and its name when a call fails; a source or name containing a NUL
    /// byte is a compile error too.
    pub fn compile(&self, source: &str, file: &str, arch: &str) -> Result<Ptx, DeviceError> {
        let compile_error = |log: String| DeviceError::Compile { device: NAME, log };
        let c = |text: &str, what: &str| {
            CString::new(text).map_err(|_| compile_error(format!("{what} contains a NUL byte")))
        };
        let source = c(source, "the source")?;
        let file_c = c(file, "the file name")?;
        let [arch_option, fmad] = options(arch);
        let options = [c(&arch_option, "the architecture")?, c(&fmad, "an option")?];
        let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let mut program = ProgramGuard {
            program: std::ptr::null_mut(),
            destroy: self.functions.destroy,
        };
        // SAFETY: the strings are NUL-terminated and outlive the call; no headers.
        let status = unsafe {
            (self.functions.create)(
                &mut program.program,
                source.as_ptr(),
                file_c.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        self.check(status, "nvrtcCreateProgram", file)?;
        // SAFETY: `program` was created above; the option strings outlive the call.
        let status = unsafe {
            (self.functions.compile)(
                program.program,
                c_int::try_from(option_ptrs.len()).unwrap_or(0),
                option_ptrs.as_ptr(),
            )
        };
        let log = self.text(
            program.program,
            self.functions.log_size,
            self.functions.log,
            "log",
        )?;
        if status != 0 {
            return Err(compile_error(format!(
                "NVRTC {}.{} on {file} ({}): {}",
                self.version.0,
                self.version.1,
                self.status_name(status),
                log.trim_end()
            )));
        }
        let text = self.text(
            program.program,
            self.functions.ptx_size,
            self.functions.ptx,
            "PTX",
        )?;
        Ok(Ptx { text, log })
    }

    /// [`Nvrtc::compile`] through the on-disk cache: the PTX of an entry with the same
    /// source, NVRTC version, architecture and options when `cache` has one (its `log` is
    /// then empty), else a compile whose PTX is stored in `cache`. Also returns whether the
    /// PTX came from the cache.
    ///
    /// # Errors
    /// As [`Nvrtc::compile`] (the cache itself never fails: see [`KernelCache`]).
    pub fn compile_cached(
        &self,
        source: &str,
        file: &str,
        arch: &str,
        cache: &KernelCache,
    ) -> Result<(Ptx, bool), DeviceError> {
        let key = self.cache_key(source, arch);
        if let Some(bytes) = cache.load(&key, CACHE_KIND) {
            match String::from_utf8(bytes) {
                Ok(text) => {
                    return Ok((
                        Ptx {
                            text,
                            log: String::new(),
                        },
                        true,
                    ));
                }
                Err(_) => tracing::warn!(
                    "kernel cache: entry {} is not PTX text; compiling instead",
                    key.as_str()
                ),
            }
        }
        let ptx = self.compile(source, file, arch)?;
        cache.store(&key, CACHE_KIND, ptx.text.as_bytes());
        Ok((ptx, false))
    }

    /// The cache key of `source` compiled by this NVRTC for `arch`.
    pub fn cache_key(&self, source: &str, arch: &str) -> CacheKey {
        let version = format!("{}.{}", self.version.0, self.version.1);
        CacheKey::of(&[
            b"simdnlp-nvrtc/1",
            version.as_bytes(),
            options(arch).join(" ").as_bytes(),
            source.as_bytes(),
        ])
    }

    /// Reads a text of `program` through a size call and a copy call (log or PTX).
    fn text(
        &self,
        program: Program,
        size_fn: SizeFn,
        text_fn: TextFn,
        what: &'static str,
    ) -> Result<String, DeviceError> {
        let mut size = 0usize;
        // SAFETY: `program` is a live program; `size` is a valid `size_t` to write.
        let status = unsafe { size_fn(program, &mut size) };
        self.check(status, what, "the program")?;
        let mut buffer = vec![0u8; size.max(1)];
        // SAFETY: NVRTC writes `size` bytes (NUL included) into a buffer of that size.
        let status = unsafe { text_fn(program, buffer.as_mut_ptr().cast()) };
        self.check(status, what, "the program")?;
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
        buffer.truncate(end);
        Ok(String::from_utf8_lossy(&buffer).into_owned())
    }

    fn status_name(&self, status: c_int) -> String {
        // SAFETY: `nvrtcGetErrorString` returns a static NUL-terminated string (or null).
        let name = unsafe { (self.functions.error_string)(status) };
        if name.is_null() {
            format!("status {status}")
        } else {
            // SAFETY: non-null, static and NUL-terminated per NVRTC's documentation.
            let text = unsafe { CStr::from_ptr(name) }.to_string_lossy();
            format!("{text} ({status})")
        }
    }

    fn check(&self, status: c_int, call: &str, file: &str) -> Result<(), DeviceError> {
        if status == 0 {
            Ok(())
        } else {
            Err(DeviceError::Compile {
                device: NAME,
                log: format!("{call} on {file}: {}", self.status_name(status)),
            })
        }
    }
}

/// Kind (file extension) of NVRTC's cache entries.
const CACHE_KIND: &str = "ptx";

/// NVRTC's options for the virtual architecture `arch`.
fn options(arch: &str) -> [String; 2] {
    [
        format!("--gpu-architecture={arch}"),
        "--fmad=false".to_string(),
    ]
}

/// Loads `library` with its symbols global, so that NVRTC's own
/// `dlopen("libnvrtc-builtins.so.*")` finds it already loaded (`None` when it does not load:
/// NVRTC then searches the loader's path itself).
#[cfg(unix)]
fn load_global(library: &Path) -> Option<libloading::Library> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading NVRTC's builtins library runs its static initialisers, which have no
    // preconditions.
    unsafe { Library::open(Some(library), RTLD_NOW | RTLD_GLOBAL) }
        .ok()
        .map(libloading::Library::from)
}

/// Elsewhere the builtins are found by the loader's search.
#[cfg(not(unix))]
fn load_global(_library: &Path) -> Option<libloading::Library> {
    None
}

/// Destroys an NVRTC program when dropped (also on the error paths).
struct ProgramGuard {
    program: Program,
    destroy: DestroyFn,
}

impl Drop for ProgramGuard {
    fn drop(&mut self) {
        if !self.program.is_null() {
            // SAFETY: `program` was created by nvrtcCreateProgram and is destroyed once.
            unsafe {
                (self.destroy)(&mut self.program);
            }
        }
    }
}

/// NVRTC's builtins library in the directory of `library` (`libnvrtc-builtins.so.*`, the
/// longest name first so that `…so.13.0` wins over a `…so.13` link), if there is one.
fn builtins_beside(library: &Path) -> Option<PathBuf> {
    let dir = library.parent()?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc-builtins.so"))
        })
        .collect();
    found.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
    found.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::Ptx;

    #[test]
    fn parameter_sizes_are_read_from_the_entry() {
        let ptx = Ptx {
            text: "// .globl\tsn_axpy\n.visible .entry sn_axpy(\n\t.param .u64 sn_axpy_param_0,\n\
                   \t.param .f64 sn_axpy_param_1,\n\t.param .u32 sn_axpy_param_2,\n\
                   \t.param .u64 .ptr .shared .align 1 sn_axpy_param_3\n)\n{\n}\n\
                   .visible .entry sn_none()\n{\n}\n"
                .into(),
            log: String::new(),
        };
        assert_eq!(ptx.param_sizes("sn_axpy"), Some(vec![8, 8, 4, 8]));
        assert_eq!(ptx.param_sizes("sn_none"), Some(vec![]));
        assert_eq!(ptx.param_sizes("sn_ax"), None);
    }
}
