//! The CUDA device: the CUDA C kernels of the GPU path compiled by NVRTC and launched on
//! one stream of an NVIDIA GPU through the CUDA driver API (cudarc, loaded dynamically).
//!
//! [`Cuda::new`] first checks that the driver library (`libcuda.so.1`) can be loaded —
//! cudarc's dynamic loading panics on a missing library, so without a driver the device
//! is [`DeviceError::Unavailable`] naming `LD_LIBRARY_PATH` — then opens the device's
//! primary context and one stream, loads NVRTC ([`Nvrtc`]) and compiles the
//! interior-point kernels ([`crate::IPM_KERNELS`]) for the device's virtual architecture
//! (`compute_XY` from its compute capability) with `--fmad=false`.
//!
//! - Buffers are device memory allocated stream-ordered on the device's stream (setup
//!   only); a zero-length vector allocates nothing (its address is `0`).
//! - [`KernelRuntime::load_module`] compiles a module with NVRTC, loads its PTX with
//!   `cuModuleLoadData` and caches it by a hash of the source (the source text is compared
//!   too). The parameter sizes of each kernel are read from its PTX `.entry` and checked
//!   at every launch against the [`KernelArg`] list (a pointer and a `long long` both
//!   take 8 bytes, so only the sizes can be checked).
//! - Launches go through the raw `cuLaunchKernel` (`kernelParams` packed on the stack; the
//!   safe launch builder of cudarc allocates per launch) over a one-dimensional grid of
//!   [`BLOCK`] threads per block: the geometry of [`crate::Emu`], whose [`Device`]
//!   methods are the same code (`launched.rs`), so the results of the two devices agree
//!   bitwise wherever the kernels' arithmetic does (`--fmad=false`).
//! - Reductions run the same two passes as on [`crate::Emu`]; only the final scalar is
//!   copied to the host.
//! - Kernels run asynchronously: a refused launch inside a [`Device`] method and an
//!   error the stream reports are returned by [`Device::synchronize`] (the first one).
//!   Transfers to and from the host synchronize the stream.
//!
//! ```no_run
//! use simdnlp_device::{Cuda, Device};
//!
//! let cuda = Cuda::new(0)?; // needs libcuda, a GPU and libnvrtc
//! let x = cuda.vector_from_host(&[1.0, -2.0, 3.0])?;
//! assert_eq!(cuda.norm_inf(&x), 3.0);
//! # Ok::<(), simdnlp_device::DeviceError>(())
//! ```

use crate::allocations;
use crate::emu::{kernel_names, source_hash};
use crate::fault;
use crate::kernel_cache::{KernelCache, ModuleBuild};
use crate::launched::{IpmKernels, LaunchOps, RESULT_ENTRY, SCRATCH_LEN, launched_kernel_methods};
use crate::transfers::{self, TransferCount};
use crate::{
    BLOCK, Device, DeviceError, IPM_KERNELS, KernelArg, KernelId, KernelRuntime, MAX_KERNEL_ARGS,
    ModuleId, Nvrtc, Segments,
};
use cudarc::driver::{CudaContext, CudaStream, DriverError, result, sys};
use std::collections::HashMap;
use std::ffi::{CString, c_void};

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

const NAME: &str = "cuda";

/// Bytes of one `f64` entry.
const F64_BYTES: usize = 8;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn unavailable(reason: String) -> DeviceError {
    DeviceError::Unavailable {
        device: NAME,
        reason,
    }
}

fn transfer(bytes: usize, e: DriverError) -> DeviceError {
    DeviceError::Transfer {
        device: NAME,
        bytes,
        reason: e.to_string(),
    }
}

/// Whether the CUDA driver library can be loaded (cudarc panics on any driver call when
/// it cannot).
pub fn driver_present() -> bool {
    // SAFETY: only tries to `dlopen` the driver library by its usual names; opening it
    // runs the driver's initialisers, which is what using the device does anyway.
    unsafe { sys::is_culib_present() }
}

/// What [`Cuda::new`] found out about the device (the first stage of `gpu-check`).
#[derive(Clone, Debug, PartialEq)]
pub struct CudaInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// The device's name (e.g. `NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// Device memory in bytes.
    pub total_memory: usize,
    /// The driver's CUDA version as `cuDriverGetVersion` reports it (`13000` = 13.0).
    pub driver_version: i32,
    /// NVRTC's version `(major, minor)`.
    pub nvrtc_version: (i32, i32),
    /// The NVRTC library that was loaded.
    pub nvrtc_library: String,
    /// The virtual architecture kernels are compiled for (`compute_XY`).
    pub arch: String,
}

/// Device memory owned by one vector, index list or word buffer; `ptr == 0` (no
/// allocation) when it has no bytes. Freed stream-ordered on drop.
struct Buffer {
    ptr: sys::CUdeviceptr,
    bytes: usize,
    stream: Arc<CudaStream>,
}

impl Buffer {
    /// `bytes` of uninitialised device memory (none for 0 bytes).
    fn alloc(
        stream: &Arc<CudaStream>,
        bytes: usize,
        what: &'static str,
    ) -> Result<Self, DeviceError> {
        let oom = || DeviceError::OutOfMemory {
            device: NAME,
            bytes,
            what,
        };
        let ptr = if bytes == 0 {
            0
        } else {
            stream.context().bind_to_thread().map_err(|_| oom())?;
            // SAFETY: the stream is live (held by `stream`); the memory is only used on
            // this stream (every launch and copy of the device is) and written before it
            // is read (`zeros` clears it, uploads fill it).
            unsafe { result::malloc_async(stream.cu_stream(), bytes) }.map_err(|_| oom())?
        };
        Ok(Self {
            ptr,
            bytes,
            stream: stream.clone(),
        })
    }

    /// Copy `src` (exactly `self.bytes` bytes) to the buffer and wait for the copy.
    fn upload<T: Copy>(&mut self, src: &[T]) -> Result<(), DeviceError> {
        debug_assert_eq!(std::mem::size_of_val(src), self.bytes);
        if self.bytes == 0 {
            return Ok(());
        }
        let bytes = self.bytes;
        self.stream
            .context()
            .bind_to_thread()
            .map_err(|e| transfer(bytes, e))?;
        // SAFETY: the buffer holds `bytes` bytes, `src` as many; the stream is synchronized
        // below, before `src` can be dropped or changed.
        unsafe { result::memcpy_htod_async(self.ptr, src, self.stream.cu_stream()) }
            .map_err(|e| transfer(bytes, e))?;
        self.stream.synchronize().map_err(|e| transfer(bytes, e))
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.ptr != 0 && self.stream.context().bind_to_thread().is_ok() {
            // SAFETY: `ptr` was allocated on this stream and is freed once; later work on
            // the stream cannot use it (its owner is gone). A failure leaks the memory.
            let _ = unsafe { result::free_async(self.ptr, self.stream.cu_stream()) };
        }
    }
}

/// A vector of `f64` in device memory.
pub struct CudaVector {
    buffer: Buffer,
    len: usize,
}

impl std::fmt::Debug for CudaVector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaVector")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// A list of `i32` indices in device memory, with what the host checks of the kernel
/// methods need to know about it (computed at upload, so no check reads device memory).
pub struct CudaIndex {
    buffer: Buffer,
    len: usize,
    /// One more than the largest entry (`0` for an empty list).
    bound: usize,
    /// The last entry when the list starts at 0 and never decreases (a segment plan's
    /// `ptr`), else `None`.
    partition_end: Option<usize>,
}

impl std::fmt::Debug for CudaIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaIndex")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// A buffer of 64-bit words in device memory (tables of device addresses, `long long`
/// data).
pub struct CudaWords {
    buffer: Buffer,
    len: usize,
}

impl std::fmt::Debug for CudaWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaWords")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// A driver handle (module or function). The driver API is thread-safe and every use
/// makes the device's context current first.
#[derive(Clone, Copy)]
struct Handle<T>(T);
// SAFETY: CUDA driver handles are plain identifiers that the driver lets any thread use
// (the context is made current on the calling thread before each use).
unsafe impl<T> Send for Handle<T> {}
// SAFETY: as for `Send`: the handles are never dereferenced on the host.
unsafe impl<T> Sync for Handle<T> {}

/// A kernel of a loaded module.
#[derive(Clone, Copy)]
struct Kernel {
    function: Handle<sys::CUfunction>,
    /// Parameter sizes in bytes from the PTX, `params` of them.
    sizes: [u8; MAX_KERNEL_ARGS],
    params: usize,
}

struct Module {
    source: String,
    kernels: HashMap<String, KernelId>,
    handle: Handle<sys::CUmodule>,
}

/// Modules and kernels loaded so far (append-only), with how each module was built.
#[derive(Default)]
struct Registry {
    modules: Vec<Module>,
    kernels: Vec<Kernel>,
    kernel_names: Vec<String>,
    by_hash: HashMap<u64, Vec<ModuleId>>,
    builds: Vec<ModuleBuild>,
}

/// The CUDA device (see the module documentation).
pub struct Cuda {
    info: CudaInfo,
    nvrtc: Nvrtc,
    /// The on-disk PTX cache.
    cache: KernelCache,
    registry: Mutex<Registry>,
    ipm: IpmKernels,
    /// Reduction scratch: the partials of both passes and the result, used under
    /// `scratch_lock`.
    scratch: Buffer,
    scratch_lock: Mutex<()>,
    /// First failure of a launch per thread since that thread's last synchronize.
    failure: fault::FailureSlots,
    /// [`Device::transferred_bytes`].
    transferred: TransferCount,
    /// Declared after every buffer and module (they are freed on it first).
    stream: Arc<CudaStream>,
    ctx: Arc<CudaContext>,
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cuda")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Cuda {
    /// The CUDA device `ordinal` with NVRTC found by [`Nvrtc::load`] and the on-disk PTX
    /// cache of the environment ([`KernelCache::from_env`]); compiles the interior-point
    /// kernels (or reads their PTX from the cache).
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] when the driver library (`libcuda.so.1`) cannot be
    /// loaded (the message names `LD_LIBRARY_PATH`), the driver finds no such device, or
    /// NVRTC is missing; [`DeviceError::Compile`] when the kernels do not compile or
    /// load.
    pub fn new(ordinal: usize) -> Result<Self, DeviceError> {
        Self::with_cache(ordinal, KernelCache::from_env())
    }

    /// [`Cuda::new`] with an explicit PTX cache.
    ///
    /// # Errors
    /// As [`Cuda::new`].
    pub fn with_cache(ordinal: usize, cache: KernelCache) -> Result<Self, DeviceError> {
        if !driver_present() {
            return Err(unavailable(
                "the CUDA driver library libcuda.so.1 cannot be loaded: install the NVIDIA \
                 driver or add the directory holding libcuda.so.1 to LD_LIBRARY_PATH \
                 (`ldconfig -p | grep libcuda` finds it)"
                    .into(),
            ));
        }
        let driver = |what: &str, e: DriverError| unavailable(format!("{what}: {e}"));
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| driver(&format!("cannot open CUDA device {ordinal}"), e))?;
        let compute_capability = ctx
            .compute_capability()
            .map_err(|e| driver("compute capability", e))?;
        let name = ctx.name().map_err(|e| driver("device name", e))?;
        let total_memory = ctx.total_mem().map_err(|e| driver("device memory", e))?;
        let mut driver_version = 0;
        // SAFETY: writes one `int`; the driver library is loaded (checked above).
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(|e| driver("driver version", e))?;
        let stream = ctx.new_stream().map_err(|e| driver("stream", e))?;
        let nvrtc = Nvrtc::load()?;
        let info = CudaInfo {
            ordinal,
            name,
            compute_capability,
            total_memory,
            driver_version,
            nvrtc_version: nvrtc.version(),
            nvrtc_library: nvrtc.library().to_string(),
            arch: format!("compute_{}{}", compute_capability.0, compute_capability.1),
        };
        let scratch = Buffer::alloc(&stream, SCRATCH_LEN * F64_BYTES, "reduction partials")?;
        // `ipm` is filled in after the module is loaded; the placeholder is never launched
        let mut cuda = Self {
            info,
            nvrtc,
            cache,
            registry: Mutex::new(Registry::default()),
            ipm: IpmKernels::placeholder(),
            scratch,
            scratch_lock: Mutex::new(()),
            failure: fault::FailureSlots::default(),
            transferred: TransferCount::default(),
            stream,
            ctx,
        };
        let module = cuda.load_module(IPM_KERNELS)?;
        cuda.ipm = IpmKernels::look_up(&cuda, module)?;
        Ok(cuda)
    }

    /// What was found out about the device when it was opened.
    pub fn info(&self) -> &CudaInfo {
        &self.info
    }

    /// NVRTC compile time of each module loaded so far (or the time to read its PTX from
    /// the on-disk cache), in load order (the interior-point kernels first).
    pub fn compile_times(&self) -> Vec<Duration> {
        lock(&self.registry).builds.iter().map(|b| b.time).collect()
    }

    /// How each module loaded so far was built (NVRTC, or PTX from the on-disk cache) and
    /// how long that took, in load order (the interior-point kernels first). The driver's
    /// PTX-to-machine-code step at module load is not included (the driver caches it
    /// itself, in `~/.nv/ComputeCache`).
    pub fn module_builds(&self) -> Vec<ModuleBuild> {
        lock(&self.registry).builds.clone()
    }

    /// The on-disk PTX cache this device uses.
    pub fn cache(&self) -> &KernelCache {
        &self.cache
    }

    /// The raw `CUstream` every launch and copy of this device is queued on, as the
    /// `cudaStream_t` a CUDA library such as cuDSS takes (the runtime and driver stream
    /// handles are the same object). It stays valid as long as the device; work a library
    /// queues on it is ordered with the device's kernels. Call [`Cuda::make_current`] on
    /// the calling thread before handing it to a library.
    pub fn raw_stream(&self) -> *mut std::ffi::c_void {
        self.stream.cu_stream().cast()
    }

    /// Make the device's (primary) context current on the calling thread, as libraries
    /// that use the CUDA runtime on the device's buffers need.
    ///
    /// # Errors
    /// [`DeviceError::Launch`] naming the driver's error.
    pub fn make_current(&self) -> Result<(), DeviceError> {
        self.bind()
            .map_err(|e| self.launch_error("(make context current)", e.to_string()))
    }

    /// Adds `bytes` to [`Device::transferred_bytes`].
    fn count(&self, bytes: usize) {
        self.transferred.add(bytes);
    }

    fn bind(&self) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()
    }

    fn launch_error(&self, kernel: &str, reason: String) -> DeviceError {
        DeviceError::Launch {
            device: NAME,
            kernel: kernel.to_string(),
            reason,
        }
    }

    /// Wait for the stream; its error (a kernel that failed asynchronously) as a typed
    /// error.
    fn wait(&self) -> Result<(), DeviceError> {
        self.bind()
            .and_then(|()| self.stream.synchronize())
            .map_err(|e| self.launch_error("(queued kernels)", e.to_string()))
    }
}

impl Cuda {
    /// Load a module from PTX text (`cuModuleLoadData`: the driver compiles it for the
    /// device).
    fn load_ptx(&self, ptx: &crate::Ptx) -> Result<Handle<sys::CUmodule>, DeviceError> {
        let load_error = |log: String| DeviceError::Compile { device: NAME, log };
        let image = CString::new(ptx.text.as_str())
            .map_err(|_| load_error("the PTX contains a NUL byte".into()))?;
        self.bind()
            .map_err(|e| load_error(format!("cannot bind the context: {e}")))?;
        // SAFETY: `image` is a NUL-terminated PTX text that outlives the call; the context
        // is current.
        let module = unsafe { result::module::load_data(image.as_ptr().cast::<c_void>()) }
            .map_err(|e| {
                load_error(format!(
                    "cuModuleLoadData: {e} (PTX for {})",
                    self.info.arch
                ))
            })?;
        Ok(Handle(module))
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        if self.bind().is_ok() {
            let _ = self.stream.synchronize();
            for module in &lock(&self.registry).modules {
                // SAFETY: the module was loaded by this device and is unloaded once, after
                // the stream finished every kernel of it.
                let _ = unsafe { result::module::unload(module.handle.0) };
            }
        }
    }
}

fn arg_size(arg: &KernelArg) -> u8 {
    match arg {
        KernelArg::Ptr(_) | KernelArg::I64(_) | KernelArg::F64(_) => 8,
        KernelArg::I32(_) => 4,
    }
}

impl KernelRuntime for Cuda {
    type Words = CudaWords;

    fn load_module(&self, source: &str) -> Result<ModuleId, DeviceError> {
        let hash = source_hash(source);
        let mut registry = lock(&self.registry);
        if let Some(ids) = registry.by_hash.get(&hash) {
            if let Some(&id) = ids
                .iter()
                .find(|id| registry.modules[id.0].source == source)
            {
                return Ok(id);
            }
        }
        let id = ModuleId(registry.modules.len());
        let file = format!("module{}.cu", id.0);
        let started = Instant::now();
        let (mut ptx, from_disk) =
            self.nvrtc
                .compile_cached(source, &file, &self.info.arch, &self.cache)?;
        let build = ModuleBuild {
            time: started.elapsed(),
            from_disk,
        };
        let load_error = |log: String| DeviceError::Compile { device: NAME, log };
        let module = match self.load_ptx(&ptx) {
            Ok(module) => module,
            Err(e) if from_disk => {
                // a cached PTX the driver refuses (e.g. written for another driver): recompile
                tracing::warn!("kernel cache: the driver refused cached PTX ({e}); compiling");
                ptx = self.nvrtc.compile(source, &file, &self.info.arch)?;
                self.load_ptx(&ptx)?
            }
            Err(e) => return Err(e),
        };
        let mut kernels = HashMap::new();
        let mut found = Vec::new();
        for name in kernel_names(source) {
            let sizes = ptx.param_sizes(&name).ok_or_else(|| {
                load_error(format!("kernel `{name}` has no parameter list in the PTX"))
            })?;
            if sizes.len() > MAX_KERNEL_ARGS {
                return Err(load_error(format!(
                    "kernel `{name}` takes {} parameters; at most {MAX_KERNEL_ARGS} are supported",
                    sizes.len()
                )));
            }
            let c_name = CString::new(name.as_str())
                .map_err(|_| load_error(format!("kernel name `{name}` contains a NUL byte")))?;
            // SAFETY: `module` was loaded above and is not unloaded before the device drops.
            let function = unsafe { result::module::get_function(module.0, c_name) }
                .map_err(|e| load_error(format!("kernel `{name}`: {e}")))?;
            let mut fixed = [0u8; MAX_KERNEL_ARGS];
            fixed[..sizes.len()].copy_from_slice(&sizes);
            found.push((
                name,
                Kernel {
                    function: Handle(function),
                    sizes: fixed,
                    params: sizes.len(),
                },
            ));
        }
        for (name, kernel) in found {
            let kid = KernelId(registry.kernels.len());
            registry.kernels.push(kernel);
            registry.kernel_names.push(name.clone());
            kernels.insert(name, kid);
        }
        registry.modules.push(Module {
            source: source.to_string(),
            kernels,
            handle: module,
        });
        registry.builds.push(build);
        registry.by_hash.entry(hash).or_default().push(id);
        Ok(id)
    }

    fn kernel(&self, module: ModuleId, name: &str) -> Result<KernelId, DeviceError> {
        lock(&self.registry)
            .modules
            .get(module.0)
            .and_then(|m| m.kernels.get(name).copied())
            .ok_or_else(|| DeviceError::UnknownKernel {
                device: NAME,
                kernel: name.to_string(),
            })
    }

    unsafe fn launch(
        &self,
        kernel: KernelId,
        threads: usize,
        args: &[KernelArg],
    ) -> Result<(), DeviceError> {
        let k = {
            let registry = lock(&self.registry);
            let Some(k) = registry.kernels.get(kernel.0).copied() else {
                return Err(DeviceError::UnknownKernel {
                    device: NAME,
                    kernel: format!("#{}", kernel.0),
                });
            };
            let refuse =
                |reason: String| self.launch_error(&registry.kernel_names[kernel.0], reason);
            if args.len() != k.params {
                return Err(refuse(format!(
                    "{} arguments given, the kernel takes {}",
                    args.len(),
                    k.params
                )));
            }
            for (i, arg) in args.iter().enumerate() {
                if arg_size(arg) != k.sizes[i] {
                    return Err(refuse(format!(
                        "argument {i} is {arg:?}, the kernel takes {} bytes",
                        k.sizes[i]
                    )));
                }
            }
            if threads.div_ceil(BLOCK) > i32::MAX as usize {
                return Err(refuse(format!("{threads} threads exceed the grid limit")));
            }
            if threads > 0 && fault::launch_is_refused() {
                return Err(refuse(fault::INJECTED_FAILURE.to_owned()));
            }
            k
        };
        if threads == 0 {
            return Ok(());
        }
        // the `cuLaunchKernel` ABI: one pointer per parameter, pointing at its value
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_KERNEL_ARGS];
        for (p, arg) in params.iter_mut().zip(args) {
            *p = match arg {
                KernelArg::Ptr(v) => v as *const u64 as *mut c_void,
                KernelArg::I64(v) => v as *const i64 as *mut c_void,
                KernelArg::I32(v) => v as *const i32 as *mut c_void,
                KernelArg::F64(v) => v as *const f64 as *mut c_void,
            };
        }
        let name = || lock(&self.registry).kernel_names[kernel.0].clone();
        self.bind()
            .map_err(|e| self.launch_error(&name(), e.to_string()))?;
        let grid = u32::try_from(threads.div_ceil(BLOCK)).unwrap_or(u32::MAX);
        // SAFETY: the function belongs to a module kept loaded until the device drops; the
        // parameter pointers point at values in `args` of the sizes the kernel's PTX
        // declares (checked above), which the driver copies before returning; the caller
        // guarantees that the addresses inside are live buffers of this device large
        // enough for `threads` threads; the stream is the device's own.
        unsafe {
            result::launch_kernel(
                k.function.0,
                (grid, 1, 1),
                (BLOCK as u32, 1, 1),
                0,
                self.stream.cu_stream(),
                &mut params[..args.len()],
            )
        }
        .map_err(|e| self.launch_error(&name(), e.to_string()))
    }

    fn words_from_host(&self, words: &[u64]) -> Result<CudaWords, DeviceError> {
        let mut buffer = Buffer::alloc(&self.stream, words.len() * 8, "word buffer")?;
        buffer.upload(words)?;
        self.count(buffer.bytes);
        Ok(CudaWords {
            buffer,
            len: words.len(),
        })
    }

    fn words_len(&self, words: &CudaWords) -> usize {
        words.len
    }

    fn words_ptr(&self, words: &CudaWords) -> u64 {
        words.buffer.ptr
    }

    fn vector_ptr(&self, v: &CudaVector) -> u64 {
        v.buffer.ptr
    }

    fn index_ptr(&self, idx: &CudaIndex) -> u64 {
        idx.buffer.ptr
    }
}

impl LaunchOps for Cuda {
    fn ipm(&self) -> &IpmKernels {
        &self.ipm
    }

    fn record(&self, error: DeviceError) {
        self.failure.record(error);
    }

    #[track_caller]
    fn check_indices(&self, what: &str, idx: &CudaIndex, count: usize, limit: usize) {
        assert!(
            count <= idx.len,
            "cuda {what}: {count} indices used of a list of {}",
            idx.len
        );
        // the bound of the whole list (a prefix may be smaller; plans use whole lists)
        assert!(
            count == 0 || idx.bound <= limit,
            "cuda {what}: index {} out of range for length {limit}",
            idx.bound.saturating_sub(1)
        );
    }

    #[track_caller]
    fn check_plan(
        &self,
        what: &str,
        seg: &Segments<CudaIndex>,
        targets: usize,
        partners: bool,
    ) -> usize {
        assert!(
            seg.ptr.len == targets + 1,
            "cuda {what}: plan has {} segment starts for {targets} targets",
            seg.ptr.len
        );
        let items = if partners {
            seg.entry.len.min(seg.partner.len)
        } else {
            seg.entry.len
        };
        match seg.ptr.partition_end {
            Some(last) if last <= items => last,
            _ => panic!("cuda {what}: segment starts are not a partition of the {items} items"),
        }
    }

    fn with_reduction_scratch(&self, passes: impl FnOnce(u64) -> bool) -> f64 {
        let _scratch = lock(&self.scratch_lock);
        if !passes(self.scratch.ptr) {
            return f64::NAN;
        }
        let mut result = [f64::NAN];
        self.count(F64_BYTES);
        let src = self.scratch.ptr + (RESULT_ENTRY * F64_BYTES) as u64;
        let read = self.bind().and_then(|()| {
            // SAFETY: `src` is the result entry of the scratch buffer (8 bytes inside it);
            // the stream is synchronized before `result` is read or dropped.
            unsafe { result::memcpy_dtoh_async(&mut result, src, self.stream.cu_stream()) }?;
            self.stream.synchronize()
        });
        match read {
            Ok(()) => result[0],
            Err(e) => {
                self.record(transfer(F64_BYTES, e));
                f64::NAN
            }
        }
    }
}

impl Device for Cuda {
    type Vector = CudaVector;
    type Index = CudaIndex;

    fn name(&self) -> &'static str {
        NAME
    }

    fn zeros(&self, n: usize) -> Result<CudaVector, DeviceError> {
        let bytes = n.checked_mul(F64_BYTES).ok_or(DeviceError::OutOfMemory {
            device: NAME,
            bytes: usize::MAX,
            what: "vector",
        })?;
        let buffer = Buffer::alloc(&self.stream, bytes, "vector")?;
        if bytes > 0 {
            self.bind().map_err(|e| transfer(bytes, e))?;
            // SAFETY: the buffer holds `bytes` bytes; the memset is ordered on the
            // device's stream before any later use.
            unsafe { result::memset_d8_async(buffer.ptr, 0, bytes, self.stream.cu_stream()) }
                .map_err(|e| transfer(bytes, e))?;
        }
        allocations::count();
        Ok(CudaVector { buffer, len: n })
    }

    fn vector_from_host(&self, v: &[f64]) -> Result<CudaVector, DeviceError> {
        let mut buffer = Buffer::alloc(&self.stream, std::mem::size_of_val(v), "vector")?;
        buffer.upload(v)?;
        self.count(buffer.bytes);
        allocations::count();
        Ok(CudaVector {
            buffer,
            len: v.len(),
        })
    }

    fn index_from_host(&self, idx: &[usize]) -> Result<CudaIndex, DeviceError> {
        let mut host = Vec::new();
        host.try_reserve_exact(idx.len())
            .map_err(|_| DeviceError::OutOfMemory {
                device: NAME,
                bytes: idx.len().saturating_mul(4),
                what: "index list",
            })?;
        for &i in idx {
            host.push(i32::try_from(i).map_err(|_| DeviceError::IndexTooLarge {
                device: NAME,
                index: i,
                max: i32::MAX as usize,
            })?);
        }
        let bound = idx.iter().max().map_or(0, |&m| m + 1);
        let partition_end = (idx.first() == Some(&0) && idx.windows(2).all(|w| w[0] <= w[1]))
            .then(|| idx[idx.len() - 1]);
        let mut buffer = Buffer::alloc(&self.stream, host.len() * 4, "index list")?;
        buffer.upload(&host)?;
        self.count(buffer.bytes);
        allocations::count();
        Ok(CudaIndex {
            buffer,
            len: idx.len(),
            bound,
            partition_end,
        })
    }

    fn to_host(&self, v: &CudaVector, out: &mut [f64]) -> Result<(), DeviceError> {
        if v.len != out.len() {
            return Err(DeviceError::LengthMismatch {
                device: NAME,
                what: "to_host",
                expected: v.len,
                got: out.len(),
            });
        }
        self.synchronize()?;
        if v.len == 0 {
            return Ok(());
        }
        let bytes = v.buffer.bytes;
        self.bind().map_err(|e| transfer(bytes, e))?;
        // SAFETY: the vector holds `out.len()` entries; the stream is synchronized before
        // `out` is used.
        unsafe { result::memcpy_dtoh_async(out, v.buffer.ptr, self.stream.cu_stream()) }
            .map_err(|e| transfer(bytes, e))?;
        self.count(bytes);
        self.stream.synchronize().map_err(|e| transfer(bytes, e))
    }

    fn copy_from_host(&self, v: &mut CudaVector, src: &[f64]) -> Result<(), DeviceError> {
        if v.len != src.len() {
            return Err(DeviceError::LengthMismatch {
                device: NAME,
                what: "copy_from_host",
                expected: v.len,
                got: src.len(),
            });
        }
        self.count(v.buffer.bytes);
        v.buffer.upload(src)
    }

    fn transferred_bytes(&self) -> u64 {
        self.transferred.total()
    }
    fn transferred_bytes_on_this_thread(&self) -> u64 {
        transfers::on_this_thread()
    }

    fn len(&self, v: &CudaVector) -> usize {
        v.len
    }

    fn index_len(&self, idx: &CudaIndex) -> usize {
        idx.len
    }

    fn synchronize(&self) -> Result<(), DeviceError> {
        let waited = self.wait();
        match self.failure.take() {
            Some(e) => Err(e),
            None => waited,
        }
    }

    launched_kernel_methods!();
}
