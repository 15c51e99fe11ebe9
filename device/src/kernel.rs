//! Kernel modules and launches: the seam under a device whose kernels are compiled from
//! source at run time (the emulated CUDA device with g++, the CUDA device with NVRTC).
//!
//! The parameter list of a launch is the `cuLaunchKernel` `kernelParams` ABI: one pointer
//! per kernel parameter, each pointing at the parameter's value. [`KernelArg`] holds the
//! values; an implementation packs pointers to them into a fixed array of at most
//! [`MAX_KERNEL_ARGS`] entries on the stack, so a launch allocates nothing.

use crate::{Device, DeviceError};

/// Largest number of parameters a kernel may take.
pub const MAX_KERNEL_ARGS: usize = 16;

/// A compiled module, as returned by [`KernelRuntime::load_module`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleId(pub usize);

/// A kernel of a loaded module, as returned by [`KernelRuntime::kernel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelId(pub usize);

/// One kernel parameter value (C types: `T*` as a raw address, `long long`, `int`,
/// `double`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelArg {
    /// A device address (`T*`), from [`KernelRuntime::vector_ptr`] or
    /// [`KernelRuntime::index_ptr`]; `0` is the null pointer.
    Ptr(u64),
    /// `long long`.
    I64(i64),
    /// `int`.
    I32(i32),
    /// `double`.
    F64(f64),
}

/// Compile sources into modules, look kernels up and launch them.
pub trait KernelRuntime: Device {
    /// A buffer of 64-bit words in device memory, for kernel parameters that are neither
    /// `f64` vectors nor index lists: tables of device addresses (a `T* const*` parameter
    /// such as the data columns of an emitted pattern kernel, filled with
    /// [`KernelRuntime::vector_ptr`] values) and `long long` data (stored as the two's
    /// complement bits, `i as u64`).
    type Words;

    /// Compile `source` (CUDA C) into a module, or return the module already compiled from
    /// the same source (cached by a hash of the source text).
    ///
    /// # Errors
    /// [`DeviceError::Compile`] with the compiler's log, [`DeviceError::Unavailable`] when
    /// the compiler is missing.
    fn load_module(&self, source: &str) -> Result<ModuleId, DeviceError>;
    /// Look up a kernel (an `extern "C" __global__` function) of a loaded module.
    ///
    /// # Errors
    /// [`DeviceError::UnknownKernel`].
    fn kernel(&self, module: ModuleId, name: &str) -> Result<KernelId, DeviceError>;
    /// Launch `kernel` over `threads` threads (one-dimensional grid; the implementation
    /// chooses the block size) with the parameters `args`. May return before the kernel
    /// finished; failures that surface later are reported by [`Device::synchronize`].
    ///
    /// # Errors
    /// [`DeviceError::Launch`] when the launch is refused (too many arguments included).
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list in number, order and C type, and every
    /// [`KernelArg::Ptr`] must be the address of a live buffer of this device that is at
    /// least as long as the kernel reads or writes for `threads` threads.
    unsafe fn launch(
        &self,
        kernel: KernelId,
        threads: usize,
        args: &[KernelArg],
    ) -> Result<(), DeviceError>;
    /// A word buffer holding a copy of host data (setup only).
    ///
    /// # Errors
    /// [`DeviceError::OutOfMemory`] or a transfer failure.
    fn words_from_host(&self, words: &[u64]) -> Result<Self::Words, DeviceError>;
    /// Number of words of a word buffer.
    fn words_len(&self, words: &Self::Words) -> usize;
    /// Device address of a word buffer's first entry (`0` for an empty buffer).
    fn words_ptr(&self, words: &Self::Words) -> u64;
    /// Device address of a vector's first entry, for a kernel that **writes** the vector
    /// (`0` for an empty vector). Same address as [`KernelRuntime::vector_ptr`]; taking
    /// the vector mutably lets a host-memory device derive a pointer that may be written
    /// through.
    fn vector_ptr_mut(&self, v: &mut Self::Vector) -> u64 {
        self.vector_ptr(v)
    }
    /// Device address of a vector's first entry (`0` for an empty vector).
    fn vector_ptr(&self, v: &Self::Vector) -> u64;
    /// Device address of an index list's first entry (`0` for an empty list).
    fn index_ptr(&self, idx: &Self::Index) -> u64;
}
