//! The device seam of simdnlp: where vectors live and how they are combined.
//!
//! The interior-point method never reads or writes a vector element itself. Every vector
//! operation it needs is a method of [`Device`]: allocation and transfers (setup only),
//! BLAS-1, element-wise kernels, reductions, the interior-point kernels and a few
//! segmented sparse kernels (assembly and matrix-vector products over host-built
//! [`SegmentPlan`]s). A device port is then one implementation of this trait, and the
//! algorithm above it does not change.
//!
//! Devices:
//! - [`Cpu`]: `Vec<f64>` vectors and plain Rust loops. It is the **reference**: every other
//!   device must reproduce its results bitwise for element-wise kernels, `min`/`max`
//!   reductions and the segmented kernels (which fix their summation order), and to about
//!   `1e-15` relative for the plain sums (`dot`, `norm_1`, `sum`, `sum_ln`).
//! - [`Emu`]: the CUDA C kernels of the GPU path ([`IPM_KERNELS`]) compiled by g++ at run
//!   time and launched on the host through the `cuLaunchKernel` parameter ABI of
//!   [`KernelRuntime`]; its buffers are host memory.
//! - `Cuda` (feature `cuda`): the same kernels compiled by [`Nvrtc`] and launched on an
//!   NVIDIA GPU through the CUDA driver (cudarc, loaded at run time: the feature builds
//!   without CUDA, and without a driver `Cuda::new` is a typed
//!   [`DeviceError::Unavailable`]). Its [`Device`] methods are the very code of [`Emu`]'s.
//! - [`Nvrtc`] is not a device but the compile step of `Cuda`: NVIDIA's run-time
//!   compiler, loaded dynamically, turns the same CUDA C modules into PTX.
//!
//! # Errors and synchronization
//! Allocation and host transfers return [`DeviceError`] (a failed allocation says how many
//! bytes were requested). Kernels do not return errors: on a real device they run
//! asynchronously, so a failure is only known later. A device records the first kernel
//! failure of each thread and reports it from that thread's next [`Device::synchronize`],
//! which the solver calls at the end of every iteration (so a solve hears of its own
//! failures, not of those of another solve sharing the device); until then a failed reduction returns NaN, which the algorithm already
//! treats as a rejected point. [`Cpu`] kernels cannot fail.
//!
//! # Lengths
//! Lengths are the caller's responsibility (the solver allocates every vector from its
//! layout). A kernel given vectors of mismatched lengths is a bug in the caller;
//! implementations may panic (the CPU device does, through slice indexing) or, on a
//! device, read garbage. Where a kernel documents a *prefix* (e.g. the model variables are
//! the first `n` entries of a longer vector), longer vectors are allowed.
//!
//! # NaN and ∞
//! Each method states what NaN does to it. The rules are those of the CPU device, where
//! `f64::min`/`f64::max` *ignore* a NaN operand and explicit checks propagate it; device
//! code must spell the same comparisons out (CUDA's `fmin`/`fmax` drop NaN as well, but
//! `a < b ? a : b` does not).
//!
//! # Example
//! ```
//! use simdnlp_device::{Cpu, Device};
//!
//! let cpu = Cpu;
//! let x = cpu.vector_from_host(&[1.0, -2.0, 3.0])?;
//! let mut y = cpu.zeros(3)?;
//! cpu.axpy(2.0, &x, &mut y); // y = 2x
//! assert_eq!(cpu.norm_inf(&y), 6.0);
//! let mut host = [0.0; 3];
//! cpu.to_host(&y, &mut host)?;
//! assert_eq!(host, [2.0, -4.0, 6.0]);
//! # Ok::<(), simdnlp_device::DeviceError>(())
//! ```

#![deny(missing_docs)]

mod allocations;
mod cpu;
#[cfg(feature = "cuda")]
mod cuda;
mod emu;
mod error;
mod fault;
mod kernel;
mod kernel_cache;
mod launched;
mod nvrtc;
mod parallelism;
mod segments;
mod transfers;

pub use cpu::Cpu;
#[cfg(feature = "cuda")]
pub use cuda::{Cuda, CudaIndex, CudaInfo, CudaVector, CudaWords, driver_present};
pub use emu::{BLOCK, COMPILER_ENV, Emu, IPM_KERNELS};
pub use error::DeviceError;
pub use fault::{
    INJECTED_FAILURE, clear_launch_failure_on_this_thread, fail_launch_on_this_thread,
    launches_on_this_thread,
};
pub use kernel::{KernelArg, KernelId, KernelRuntime, MAX_KERNEL_ARGS, ModuleId};
pub use kernel_cache::{CacheKey, KERNEL_CACHE_ENV, KernelCache, ModuleBuild};
pub use nvrtc::{NVRTC_LIB_ENV, Nvrtc, Ptx};
pub use parallelism::Parallelism;
pub use segments::{SegmentPlan, Segments};

/// Vectors of `f64`, index lists and the kernels of the interior-point method on one
/// device. See the crate documentation for the rules on errors, lengths and NaN.
pub trait Device {
    /// A dense vector of `f64` in device memory.
    type Vector;
    /// A list of indices in device memory (gathers, scatters, segment plans).
    type Index;

    /// Short name of the device for logs and errors (`"cpu"`, `"emu"`, `"cuda"`).
    fn name(&self) -> &'static str;

    // ------------------------------------------------------------ allocation and transfers
    /// A vector of `n` zeros.
    ///
    /// # Errors
    /// [`DeviceError::OutOfMemory`] with the number of bytes requested.
    fn zeros(&self, n: usize) -> Result<Self::Vector, DeviceError>;
    /// A vector holding a copy of host data.
    ///
    /// # Errors
    /// [`DeviceError::OutOfMemory`] or a transfer failure.
    fn vector_from_host(&self, v: &[f64]) -> Result<Self::Vector, DeviceError>;
    /// An index list holding a copy of host data.
    ///
    /// # Errors
    /// [`DeviceError::OutOfMemory`], a transfer failure, or
    /// [`DeviceError::IndexTooLarge`] when the device's index type cannot hold an entry.
    fn index_from_host(&self, idx: &[usize]) -> Result<Self::Index, DeviceError>;
    /// Copy a vector to host memory (synchronizes with queued kernels).
    ///
    /// # Errors
    /// [`DeviceError::LengthMismatch`] when `out.len()` differs from the vector's length,
    /// or a transfer failure (including a kernel failure reported at this sync).
    fn to_host(&self, v: &Self::Vector, out: &mut [f64]) -> Result<(), DeviceError>;
    /// Overwrite a vector with host data.
    ///
    /// # Errors
    /// [`DeviceError::LengthMismatch`] when `src.len()` differs from the vector's length,
    /// or a transfer failure.
    fn copy_from_host(&self, v: &mut Self::Vector, src: &[f64]) -> Result<(), DeviceError>;
    /// Number of entries of a vector.
    fn len(&self, v: &Self::Vector) -> usize;
    /// Number of entries of an index list.
    fn index_len(&self, idx: &Self::Index) -> usize;
    /// Bytes copied between the host and the device since the device was created:
    /// uploads ([`Device::vector_from_host`], [`Device::index_from_host`],
    /// [`Device::copy_from_host`], kernel data), downloads ([`Device::to_host`]) and the
    /// 8-byte result of every reduction. `0` on [`Cpu`], whose vectors are host memory
    /// (the default). A process-wide device counts every solve that uses it; see
    /// [`Device::transferred_bytes_on_this_thread`] for one solve's share.
    fn transferred_bytes(&self) -> u64 {
        0
    }
    /// Bytes the calling thread copied between the host and the devices of this process
    /// since the thread started (the same transfers as [`Device::transferred_bytes`]).
    /// A solve issues its copies and reductions from its own thread, so the difference of
    /// two readings around it is that solve's traffic even while other threads use the
    /// same device. `0` on [`Cpu`] (the default).
    fn transferred_bytes_on_this_thread(&self) -> u64 {
        0
    }
    /// Vectors and index lists the calling thread allocated on the devices of this crate
    /// since the thread started: every [`Device::zeros`], [`Device::vector_from_host`] and
    /// [`Device::index_from_host`] of [`Cpu`], [`Emu`] and `Cuda` counts one (a zero-length
    /// one too). The difference of two readings around a stretch of a solve is the
    /// number of allocations it made: the solver allocates at set-up and not while it
    /// iterates. A device implemented outside this crate counts only what it allocates
    /// through this crate's devices.
    fn allocations_on_this_thread(&self) -> u64 {
        allocations::on_this_thread()
    }
    /// Wait for every queued kernel and report the first kernel failure since the last
    /// call (see the crate documentation). Always `Ok` on [`Cpu`].
    ///
    /// # Errors
    /// The first [`DeviceError`] a kernel hit since the previous call.
    fn synchronize(&self) -> Result<(), DeviceError>;

    // ------------------------------------------------------------ BLAS-1
    /// `v_i = a`.
    fn fill(&self, v: &mut Self::Vector, a: f64);
    /// `dst = src` (same length).
    fn copy(&self, dst: &mut Self::Vector, src: &Self::Vector);
    /// `dst[dst_start + i] = src[src_start + i]` for `i < len` (sub-range copy; both
    /// ranges must lie inside their vectors).
    fn copy_range(
        &self,
        dst: &mut Self::Vector,
        dst_start: usize,
        src: &Self::Vector,
        src_start: usize,
        len: usize,
    );
    /// `y_i = a x_i + y_i`.
    fn axpy(&self, a: f64, x: &Self::Vector, y: &mut Self::Vector);
    /// `y_i = a x_i + b y_i` (computed as `a·x_i + b·y_i`, so `b = 0` still reads `y`:
    /// a NaN in `y` stays NaN).
    fn axpby(&self, a: f64, x: &Self::Vector, b: f64, y: &mut Self::Vector);
    /// `v_i = a v_i`.
    fn scale(&self, a: f64, v: &mut Self::Vector);
    /// `v_i = v_i + a`.
    fn shift(&self, v: &mut Self::Vector, a: f64);
    /// `xᵀy`, summed in index order (NaN propagates; 0 for empty vectors).
    fn dot(&self, x: &Self::Vector, y: &Self::Vector) -> f64;
    /// `Σ v_i`, summed in index order (NaN propagates; 0 for an empty vector).
    fn sum(&self, v: &Self::Vector) -> f64;
    /// `max |v_i|`: NaN if any entry is NaN; 0 for an empty vector.
    fn norm_inf(&self, v: &Self::Vector) -> f64;
    /// `Σ |v_i|`, summed in index order (NaN propagates).
    fn norm_1(&self, v: &Self::Vector) -> f64;

    // ------------------------------------------------------------ element-wise kernels
    /// `dst_i = x_i y_i`.
    fn mul(&self, dst: &mut Self::Vector, x: &Self::Vector, y: &Self::Vector);
    /// `dst_i = x_i / y_i`.
    fn div(&self, dst: &mut Self::Vector, x: &Self::Vector, y: &Self::Vector);
    /// `dst_i = a / x_i`.
    fn recip(&self, dst: &mut Self::Vector, a: f64, x: &Self::Vector);
    /// `dst_i = src[idx_i]` (`dst` has the length of `idx`).
    fn gather(&self, dst: &mut Self::Vector, src: &Self::Vector, idx: &Self::Index);
    /// `dst[idx_i] = src_i` (`src` has the length of `idx`; indices unique).
    fn scatter(&self, dst: &mut Self::Vector, idx: &Self::Index, src: &Self::Vector);
    /// `dst[idx_i] += a src_i` (indices unique, so the order does not matter).
    fn scatter_add(&self, a: f64, src: &Self::Vector, idx: &Self::Index, dst: &mut Self::Vector);
    /// `dst_i = sign · (src[idx_i] − off_i)`: bound slacks `w − l` (`sign = 1`) and
    /// `u − w` (`sign = −1`).
    fn gather_slack(
        &self,
        dst: &mut Self::Vector,
        src: &Self::Vector,
        idx: &Self::Index,
        off: &Self::Vector,
        sign: f64,
    );

    // ------------------------------------------------------------ interior-point kernels
    /// `Σ ln x_i` in index order; an entry that is not `> 0` (zero, negative or NaN)
    /// contributes NaN. `+∞` entries give `+∞`.
    fn sum_ln(&self, x: &Self::Vector) -> f64;
    /// Fraction-to-boundary: the largest `α ∈ (0, 1]` with `x + α dx ≥ (1 − τ) x`, i.e.
    /// `min(1, min over dx_i < 0 of −τ x_i / dx_i)`. Entries with `dx_i` not `< 0` (NaN
    /// included) are skipped; a NaN ratio is ignored (`f64::min`).
    fn max_step(&self, x: &Self::Vector, dx: &Self::Vector, tau: f64) -> f64;
    /// Bound-multiplier step from the primal slack step:
    /// `dz_i = (μ − z_i ds_i) / s_i − z_i`.
    fn bound_dual_step(
        &self,
        dz: &mut Self::Vector,
        z: &Self::Vector,
        s: &Self::Vector,
        ds: &Self::Vector,
        mu: f64,
    );
    /// `max |s_i z_i − μ|` (NaN propagates; 0 for empty vectors).
    fn compl_inf(&self, s: &Self::Vector, z: &Self::Vector, mu: f64) -> f64;
    /// `min s_i z_i` (+∞ for empty vectors; a NaN product is ignored, `f64::min`).
    fn min_product(&self, s: &Self::Vector, z: &Self::Vector) -> f64;
    /// Safeguard `z_i ← min(max(z_i, μ/(κ s_i)), κ μ/s_i)` (`f64::max`/`min`: a NaN `z_i`
    /// becomes the bound); returns the largest change `|z_new − z_old|` (NaN ignored).
    fn safeguard_bound_mult(
        &self,
        z: &mut Self::Vector,
        s: &Self::Vector,
        mu: f64,
        kappa: f64,
    ) -> f64;
    /// Move `w` strictly inside `[lo, up]` (full-length bound vectors with ±∞) by Ipopt's
    /// `bound_push`/`bound_frac` rule, per component:
    /// `p_L = push · max(1, |lo|)`, shortened to `frac · (up − lo)` when `up` is finite,
    /// `w ← max(w, lo + p_L)` when `lo` is finite; then the same for the upper side with
    /// `w ← min(w, up − p_U)`; when both bounds are finite and the result is not strictly
    /// inside, `w ← lo + (up − lo)/2`. `push`/`frac` are per-component vectors.
    fn push_into_bounds(
        &self,
        w: &mut Self::Vector,
        lo: &Self::Vector,
        up: &Self::Vector,
        push: &Self::Vector,
        frac: &Self::Vector,
    );
    /// `z_i ← max(z_i, a)` (`f64::max`: a NaN `z_i` becomes `a`).
    fn clamp_below(&self, z: &mut Self::Vector, a: f64);
    /// Start of the elastic variables `(p, n)` of the ℓ1 restoration problem from the
    /// constraint residual `r` (all three of length `m`): `n_j = a + √(a² + μ r_j/(2ρ))`
    /// with `a = (μ − ρ r_j)/(2ρ)`, the positive root of `v² − 2a v − μ r_j/(2ρ) = 0`
    /// (Ipopt's formula, evaluated without cancellation for either sign of `a`), `p_j` the
    /// same at `−r_j`; both at least `√f64::MIN_POSITIVE` (`2⁻⁵¹¹`), so `p − n = r` up to
    /// rounding. `μ > 0` is the restoration phase's barrier parameter, `ρ > 0` its
    /// penalty.
    fn resto_elastic(
        &self,
        r: &Self::Vector,
        mu: f64,
        rho: f64,
        p: &mut Self::Vector,
        n: &mut Self::Vector,
    );
    /// Proximity weights of the restoration objective: `d2_i = (1 / max(|x_i|, 1))²`
    /// (same length).
    fn prox_weight(&self, x: &Self::Vector, d2: &mut Self::Vector);
    /// Safe bound slacks (Ipopt's `CalculateSafeSlack`): where `s_i < s_min` (round-off
    /// next to a large bound), `s_i ← max(s_min, μ / z_i)`, or `s_min` when `μ / z_i` is not
    /// finite. Returns how many slacks were corrected. A NaN `s_i` is left alone.
    fn safe_slack(&self, s: &mut Self::Vector, z: &Self::Vector, s_min: f64, mu: f64) -> usize;
    /// `max_i |dx_i| / (1 + |x_i|)` (the tiny-step measure; NaN propagates, 0 when empty).
    fn max_rel_step(&self, dx: &Self::Vector, x: &Self::Vector) -> f64;

    // ------------------------------------------------------------ segmented sparse kernels
    /// Segmented sum over a [`Segments`] plan with `T` targets:
    /// `dst[t] = acc` where `acc` starts at `b · dst[t]` (at `0` when `b == 0`, without
    /// reading `dst[t]`) and adds `a · src[entry[e]]` for `e` in `ptr[t]..ptr[t + 1]`, in
    /// that order. Used to assemble matrix values and to sum shared outputs
    /// deterministically (no atomics).
    fn seg_sum(
        &self,
        a: f64,
        src: &Self::Vector,
        seg: &Segments<Self::Index>,
        b: f64,
        dst: &mut Self::Vector,
    );
    /// Segmented sparse product: `y[t] = acc` where `acc` starts at `b · y[t]` (at `0` when
    /// `b == 0`, without reading `y[t]`) and adds `(a · vals[entry[e]]) · x[partner[e]]` for
    /// `e` in `ptr[t]..ptr[t + 1]`, in that order. With the plan of a COO matrix by rows
    /// (partner = column) this is `y = a A x + b y`; by columns, `y = a Aᵀ x + b y`.
    fn seg_spmv(
        &self,
        a: f64,
        vals: &Self::Vector,
        seg: &Segments<Self::Index>,
        x: &Self::Vector,
        b: f64,
        y: &mut Self::Vector,
    );
    /// Segmented pair products (the `Jᵀ D J` part of a condensed matrix):
    /// `dst[t] += (d[rows[entry[e]]] · vals[entry[e]]) · vals[partner[e]]` for `e` in
    /// `ptr[t]..ptr[t + 1]`, in that order (accumulated into `dst[t]` left to right).
    fn seg_pair_sum(
        &self,
        d: &Self::Vector,
        rows: &Self::Index,
        vals: &Self::Vector,
        seg: &Segments<Self::Index>,
        dst: &mut Self::Vector,
    );

    /// Upload a host-built segment plan.
    ///
    /// # Errors
    /// As [`Device::index_from_host`].
    fn segments(&self, plan: &SegmentPlan) -> Result<Segments<Self::Index>, DeviceError> {
        Ok(Segments {
            ptr: self.index_from_host(&plan.ptr)?,
            entry: self.index_from_host(&plan.entry)?,
            partner: self.index_from_host(&plan.partner)?,
            targets: plan.targets(),
        })
    }
}

/// A device whose buffers are ordinary host memory ([`Cpu`], and the emulated CUDA device):
/// host code such as a CPU sparse factorization can work on its vectors in place.
pub trait HostBuffers: Device {
    /// The entries of a vector (after [`Device::synchronize`] on an asynchronous device).
    fn host<'v>(&self, v: &'v Self::Vector) -> &'v [f64];
    /// The entries of a vector, writable.
    fn host_mut<'v>(&self, v: &'v mut Self::Vector) -> &'v mut [f64];
}
