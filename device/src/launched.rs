//! The [`Device`] kernel methods of a device whose kernels are launched through the
//! `cuLaunchKernel` ABI ([`KernelRuntime`]): the emulated device ([`crate::Emu`]) and the
//! CUDA device share every argument list here, so both run [`crate::IPM_KERNELS`] with
//! exactly the same parameters, grids and reduction geometry.
//!
//! A device implements [`LaunchOps`] (its interior-point kernels, the failure record, the
//! reduction scratch and the caller-bug checks of its index lists) and forwards its
//! [`Device`] kernel methods here with [`launched_kernel_methods!`].
//!
//! Reductions run in two or three passes: pass one writes one partial per slot (a number
//! of slots that depends on the length alone: one up to [`SLOT_ITEMS`] entries, at most
//! [`MAX_SLOTS`]); past [`FINISH_SLOTS`] slots, pass two combines strided groups of them
//! into [`FINISH_SLOTS`] partials; the finish combines the last partials in slot order into
//! one result entry, which is the only number that crosses to the host. The geometry is a
//! function of the length alone, so the result's bits are too (on every device that runs
//! these kernels).

use crate::{DeviceError, KernelArg, KernelId, KernelRuntime, ModuleId, Segments};

/// A reduction gives each slot at least this many items (fewer items: one slot, so the
/// sum is sequential).
pub(crate) const SLOT_ITEMS: usize = 32;
/// Most slots of a reduction's first pass.
pub(crate) const MAX_SLOTS: usize = 4096;
/// Most partials the finish combines in one thread; a first pass with more slots gets a
/// second pass down to this many (one GPU thread reading partials in a dependent chain is
/// slow: about 35 ns per partial on an H100, 150 µs for 4096).
pub(crate) const FINISH_SLOTS: usize = 64;
/// Index of the result entry in a device's reduction scratch: after the [`MAX_SLOTS`]
/// partials of pass one and the [`FINISH_SLOTS`] partials of pass two.
pub(crate) const RESULT_ENTRY: usize = MAX_SLOTS + FINISH_SLOTS;
/// Entries of a device's reduction scratch: the partials of both passes, then the result.
pub(crate) const SCRATCH_LEN: usize = RESULT_ENTRY + 1;

/// Number of slots of a reduction over `n` items (a function of `n` alone).
pub(crate) fn slots(n: usize) -> usize {
    n.div_ceil(SLOT_ITEMS).clamp(1, MAX_SLOTS)
}

/// The sum of no terms: `-0`, as Rust's `Sum` (and the `Cpu` device) gives.
const EMPTY_SUM: f64 = -0.0;

/// Bytes per `f64` entry (device address arithmetic for sub-ranges).
const F64_BYTES: u64 = 8;

/// The kernels of [`crate::IPM_KERNELS`], looked up once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IpmKernels {
    fill: KernelId,
    copy: KernelId,
    axpy: KernelId,
    axpby: KernelId,
    scale: KernelId,
    shift: KernelId,
    mul: KernelId,
    div: KernelId,
    recip: KernelId,
    gather: KernelId,
    scatter: KernelId,
    scatter_add: KernelId,
    gather_slack: KernelId,
    bound_dual_step: KernelId,
    push_into_bounds: KernelId,
    clamp_below: KernelId,
    resto_elastic: KernelId,
    prox_weight: KernelId,
    safeguard_bound_mult: KernelId,
    safe_slack: KernelId,
    dot: KernelId,
    sum: KernelId,
    norm_1: KernelId,
    sum_ln: KernelId,
    norm_inf: KernelId,
    max_step: KernelId,
    compl_inf: KernelId,
    min_product: KernelId,
    max_rel_step: KernelId,
    combine_nan_max: KernelId,
    combine_max: KernelId,
    combine_min: KernelId,
    finish_sum: KernelId,
    finish_nan_max: KernelId,
    finish_max: KernelId,
    finish_min: KernelId,
    seg_sum: KernelId,
    seg_spmv: KernelId,
    seg_pair_sum: KernelId,
}

impl IpmKernels {
    /// Ids that name no kernel, for a device under construction (never launched: the
    /// device is returned only after [`IpmKernels::look_up`] replaced them).
    pub(crate) fn placeholder() -> Self {
        let k = KernelId(usize::MAX);
        Self {
            fill: k,
            copy: k,
            axpy: k,
            axpby: k,
            scale: k,
            shift: k,
            mul: k,
            div: k,
            recip: k,
            gather: k,
            scatter: k,
            scatter_add: k,
            gather_slack: k,
            bound_dual_step: k,
            push_into_bounds: k,
            clamp_below: k,
            resto_elastic: k,
            prox_weight: k,
            safeguard_bound_mult: k,
            safe_slack: k,
            dot: k,
            sum: k,
            norm_1: k,
            sum_ln: k,
            norm_inf: k,
            max_step: k,
            compl_inf: k,
            min_product: k,
            max_rel_step: k,
            combine_nan_max: k,
            combine_max: k,
            combine_min: k,
            finish_sum: k,
            finish_nan_max: k,
            finish_max: k,
            finish_min: k,
            seg_sum: k,
            seg_spmv: k,
            seg_pair_sum: k,
        }
    }

    /// The kernels of module `m` (compiled from [`crate::IPM_KERNELS`]).
    ///
    /// # Errors
    /// [`DeviceError::UnknownKernel`] when one is missing.
    pub(crate) fn look_up<R: KernelRuntime>(device: &R, m: ModuleId) -> Result<Self, DeviceError> {
        let k = |name: &str| device.kernel(m, name);
        Ok(Self {
            fill: k("sn_fill")?,
            copy: k("sn_copy")?,
            axpy: k("sn_axpy")?,
            axpby: k("sn_axpby")?,
            scale: k("sn_scale")?,
            shift: k("sn_shift")?,
            mul: k("sn_mul")?,
            div: k("sn_div")?,
            recip: k("sn_recip")?,
            gather: k("sn_gather")?,
            scatter: k("sn_scatter")?,
            scatter_add: k("sn_scatter_add")?,
            gather_slack: k("sn_gather_slack")?,
            bound_dual_step: k("sn_bound_dual_step")?,
            push_into_bounds: k("sn_push_into_bounds")?,
            clamp_below: k("sn_clamp_below")?,
            resto_elastic: k("sn_resto_elastic")?,
            prox_weight: k("sn_prox_weight")?,
            safeguard_bound_mult: k("sn_safeguard_bound_mult")?,
            safe_slack: k("sn_safe_slack")?,
            dot: k("sn_dot_part")?,
            sum: k("sn_sum_part")?,
            norm_1: k("sn_norm_1_part")?,
            sum_ln: k("sn_sum_ln_part")?,
            norm_inf: k("sn_norm_inf_part")?,
            max_step: k("sn_max_step_part")?,
            compl_inf: k("sn_compl_inf_part")?,
            min_product: k("sn_min_product_part")?,
            max_rel_step: k("sn_max_rel_step_part")?,
            combine_nan_max: k("sn_combine_nan_max")?,
            combine_max: k("sn_combine_max")?,
            combine_min: k("sn_combine_min")?,
            finish_sum: k("sn_finish_sum")?,
            finish_nan_max: k("sn_finish_nan_max")?,
            finish_max: k("sn_finish_max")?,
            finish_min: k("sn_finish_min")?,
            seg_sum: k("sn_seg_sum")?,
            seg_spmv: k("sn_seg_spmv")?,
            seg_pair_sum: k("sn_seg_pair_sum")?,
        })
    }
}

/// What a launching device provides to the shared kernel methods.
pub(crate) trait LaunchOps: KernelRuntime {
    /// The device's interior-point kernels.
    fn ipm(&self) -> &IpmKernels;
    /// Remember `error` as the first kernel failure since the last synchronize (a later
    /// one is dropped).
    fn record(&self, error: DeviceError);
    /// Panic (a caller bug, as `Cpu`'s slice indexing panics) unless the first `count`
    /// entries of `idx` exist and are below `limit`.
    fn check_indices(&self, what: &str, idx: &Self::Index, count: usize, limit: usize);
    /// Panic unless `seg` may be run over `targets` targets: one segment start per target
    /// plus one, starting at 0, non-decreasing, ending within `entry` (and `partner` when
    /// `partners`). Returns the number of items (the last segment start).
    fn check_plan(
        &self,
        what: &str,
        seg: &Segments<Self::Index>,
        targets: usize,
        partners: bool,
    ) -> usize;
    /// Run `passes` with exclusive use of the reduction scratch, whose device address it
    /// gets: [`MAX_SLOTS`] partials, [`FINISH_SLOTS`] partials, then the result entry
    /// (index [`RESULT_ENTRY`]). Returns the result entry
    /// (copied to the host) when `passes` returns `true`, else NaN (a failure to read it
    /// back is recorded and gives NaN too).
    fn with_reduction_scratch(&self, passes: impl FnOnce(u64) -> bool) -> f64;
}

/// Panic (a caller bug, as on `Cpu`) unless all lengths equal `n`.
#[track_caller]
fn same_len<R: LaunchOps>(r: &R, what: &str, n: usize, lens: &[usize]) {
    assert!(
        lens.iter().all(|&l| l == n),
        "{} {what}: vector lengths {lens:?} differ from {n}",
        r.name()
    );
}

fn p<R: LaunchOps>(r: &R, v: &R::Vector) -> KernelArg {
    KernelArg::Ptr(r.vector_ptr(v))
}
fn pm<R: LaunchOps>(r: &R, v: &mut R::Vector) -> KernelArg {
    KernelArg::Ptr(r.vector_ptr_mut(v))
}
fn pi<R: LaunchOps>(r: &R, v: &R::Index) -> KernelArg {
    KernelArg::Ptr(r.index_ptr(v))
}
fn len(n: usize) -> KernelArg {
    KernelArg::I64(n as i64)
}

/// Launch one kernel from a [`Device`] method (nothing for zero threads); a refused launch
/// is recorded for [`Device::synchronize`]. Returns whether it was launched.
///
/// # Safety
/// As [`KernelRuntime::launch`].
unsafe fn run<R: LaunchOps>(r: &R, kernel: KernelId, threads: usize, args: &[KernelArg]) -> bool {
    if threads == 0 {
        return true;
    }
    // SAFETY: forwarded from the caller.
    match unsafe { r.launch(kernel, threads, args) } {
        Ok(()) => true,
        Err(e) => {
            r.record(e);
            false
        }
    }
}

/// How pass two of a reduction combines the partials.
#[derive(Clone, Copy)]
enum Finish {
    Sum,
    NanMax,
    Max,
    Min,
}

/// A reduction over `n` items: pass one (`kernel`, with the arguments
/// `args(slots, partials)`) writes one partial per slot, pass two (past [`FINISH_SLOTS`]
/// slots) combines strided groups of them, the finish combines the rest in order.
///
/// # Safety
/// `args` must be the argument list of `kernel` with live buffers of `n` entries (the
/// partials pointer and slot count are those passed to `args`).
unsafe fn reduce<R: LaunchOps, const N: usize>(
    r: &R,
    n: usize,
    kernel: KernelId,
    finish: Finish,
    args: impl FnOnce(i64, u64) -> [KernelArg; N],
) -> f64 {
    let slots = slots(n);
    let ipm = r.ipm();
    // pass two's kernel (strided groups, the finish's operation) and the finish
    let (combine, finish) = match finish {
        Finish::Sum => (ipm.sum, ipm.finish_sum),
        Finish::NanMax => (ipm.combine_nan_max, ipm.finish_nan_max),
        Finish::Max => (ipm.combine_max, ipm.finish_max),
        Finish::Min => (ipm.combine_min, ipm.finish_min),
    };
    r.with_reduction_scratch(|part| {
        let stage = part + MAX_SLOTS as u64 * F64_BYTES;
        let out = part + RESULT_ENTRY as u64 * F64_BYTES;
        let (last, count) = if slots > FINISH_SLOTS {
            (stage, FINISH_SLOTS)
        } else {
            (part, slots)
        };
        // SAFETY: the caller guarantees the first pass's arguments; `part` holds
        // `MAX_SLOTS >= slots` partials, `stage` the `FINISH_SLOTS` after them and `out` is
        // the result entry, all in the scratch, which nothing else uses meanwhile.
        unsafe {
            run(r, kernel, slots, &args(slots as i64, part))
                && (slots <= FINISH_SLOTS
                    || run(
                        r,
                        combine,
                        FINISH_SLOTS,
                        &[
                            KernelArg::I64(slots as i64),
                            KernelArg::I64(FINISH_SLOTS as i64),
                            KernelArg::Ptr(part),
                            KernelArg::Ptr(stage),
                        ],
                    ))
                && run(
                    r,
                    finish,
                    1,
                    &[
                        KernelArg::I64(count as i64),
                        KernelArg::Ptr(last),
                        KernelArg::Ptr(out),
                    ],
                )
        }
    })
}

/// The [`Device`] kernel methods of a [`LaunchOps`] device, forwarded to this module's
/// functions (use inside `impl Device for X`).
macro_rules! launched_kernel_methods {
    () => {
        fn fill(&self, v: &mut Self::Vector, a: f64) {
            $crate::launched::fill(self, v, a)
        }
        fn copy(&self, dst: &mut Self::Vector, src: &Self::Vector) {
            $crate::launched::copy(self, dst, src)
        }
        fn copy_range(
            &self,
            dst: &mut Self::Vector,
            dst_start: usize,
            src: &Self::Vector,
            src_start: usize,
            len: usize,
        ) {
            $crate::launched::copy_range(self, dst, dst_start, src, src_start, len)
        }
        fn axpy(&self, a: f64, x: &Self::Vector, y: &mut Self::Vector) {
            $crate::launched::axpy(self, a, x, y)
        }
        fn axpby(&self, a: f64, x: &Self::Vector, b: f64, y: &mut Self::Vector) {
            $crate::launched::axpby(self, a, x, b, y)
        }
        fn scale(&self, a: f64, v: &mut Self::Vector) {
            $crate::launched::scale(self, a, v)
        }
        fn shift(&self, v: &mut Self::Vector, a: f64) {
            $crate::launched::shift(self, v, a)
        }
        fn dot(&self, x: &Self::Vector, y: &Self::Vector) -> f64 {
            $crate::launched::dot(self, x, y)
        }
        fn sum(&self, v: &Self::Vector) -> f64 {
            $crate::launched::sum(self, v)
        }
        fn norm_inf(&self, v: &Self::Vector) -> f64 {
            $crate::launched::norm_inf(self, v)
        }
        fn norm_1(&self, v: &Self::Vector) -> f64 {
            $crate::launched::norm_1(self, v)
        }
        fn mul(&self, dst: &mut Self::Vector, x: &Self::Vector, y: &Self::Vector) {
            $crate::launched::mul(self, dst, x, y)
        }
        fn div(&self, dst: &mut Self::Vector, x: &Self::Vector, y: &Self::Vector) {
            $crate::launched::div(self, dst, x, y)
        }
        fn recip(&self, dst: &mut Self::Vector, a: f64, x: &Self::Vector) {
            $crate::launched::recip(self, dst, a, x)
        }
        fn gather(&self, dst: &mut Self::Vector, src: &Self::Vector, idx: &Self::Index) {
            $crate::launched::gather(self, dst, src, idx)
        }
        fn scatter(&self, dst: &mut Self::Vector, idx: &Self::Index, src: &Self::Vector) {
            $crate::launched::scatter(self, dst, idx, src)
        }
        fn scatter_add(
            &self,
            a: f64,
            src: &Self::Vector,
            idx: &Self::Index,
            dst: &mut Self::Vector,
        ) {
            $crate::launched::scatter_add(self, a, src, idx, dst)
        }
        fn gather_slack(
            &self,
            dst: &mut Self::Vector,
            src: &Self::Vector,
            idx: &Self::Index,
            off: &Self::Vector,
            sign: f64,
        ) {
            $crate::launched::gather_slack(self, dst, src, idx, off, sign)
        }
        fn sum_ln(&self, x: &Self::Vector) -> f64 {
            $crate::launched::sum_ln(self, x)
        }
        fn max_step(&self, x: &Self::Vector, dx: &Self::Vector, tau: f64) -> f64 {
            $crate::launched::max_step(self, x, dx, tau)
        }
        fn bound_dual_step(
            &self,
            dz: &mut Self::Vector,
            z: &Self::Vector,
            s: &Self::Vector,
            ds: &Self::Vector,
            mu: f64,
        ) {
            $crate::launched::bound_dual_step(self, dz, z, s, ds, mu)
        }
        fn compl_inf(&self, s: &Self::Vector, z: &Self::Vector, mu: f64) -> f64 {
            $crate::launched::compl_inf(self, s, z, mu)
        }
        fn min_product(&self, s: &Self::Vector, z: &Self::Vector) -> f64 {
            $crate::launched::min_product(self, s, z)
        }
        fn safeguard_bound_mult(
            &self,
            z: &mut Self::Vector,
            s: &Self::Vector,
            mu: f64,
            kappa: f64,
        ) -> f64 {
            $crate::launched::safeguard_bound_mult(self, z, s, mu, kappa)
        }
        fn push_into_bounds(
            &self,
            w: &mut Self::Vector,
            lo: &Self::Vector,
            up: &Self::Vector,
            push: &Self::Vector,
            frac: &Self::Vector,
        ) {
            $crate::launched::push_into_bounds(self, w, lo, up, push, frac)
        }
        fn clamp_below(&self, z: &mut Self::Vector, a: f64) {
            $crate::launched::clamp_below(self, z, a)
        }
        fn resto_elastic(
            &self,
            r: &Self::Vector,
            mu: f64,
            rho: f64,
            p: &mut Self::Vector,
            n: &mut Self::Vector,
        ) {
            $crate::launched::resto_elastic(self, r, mu, rho, p, n)
        }
        fn prox_weight(&self, x: &Self::Vector, d2: &mut Self::Vector) {
            $crate::launched::prox_weight(self, x, d2)
        }
        fn safe_slack(&self, s: &mut Self::Vector, z: &Self::Vector, s_min: f64, mu: f64) -> usize {
            $crate::launched::safe_slack(self, s, z, s_min, mu)
        }
        fn max_rel_step(&self, dx: &Self::Vector, x: &Self::Vector) -> f64 {
            $crate::launched::max_rel_step(self, dx, x)
        }
        fn seg_sum(
            &self,
            a: f64,
            src: &Self::Vector,
            seg: &$crate::Segments<Self::Index>,
            b: f64,
            dst: &mut Self::Vector,
        ) {
            $crate::launched::seg_sum(self, a, src, seg, b, dst)
        }
        fn seg_spmv(
            &self,
            a: f64,
            vals: &Self::Vector,
            seg: &$crate::Segments<Self::Index>,
            x: &Self::Vector,
            b: f64,
            y: &mut Self::Vector,
        ) {
            $crate::launched::seg_spmv(self, a, vals, seg, x, b, y)
        }
        fn seg_pair_sum(
            &self,
            d: &Self::Vector,
            rows: &Self::Index,
            vals: &Self::Vector,
            seg: &$crate::Segments<Self::Index>,
            dst: &mut Self::Vector,
        ) {
            $crate::launched::seg_pair_sum(self, d, rows, vals, seg, dst)
        }
    };
}
pub(crate) use launched_kernel_methods;

// ---------------------------------------------------------------- the kernel methods
// Each checks lengths (and, through `LaunchOps`, indices and plans) before its launch:
// kernels may read or write memory a caller's bug would put out of range.

pub(crate) fn fill<R: LaunchOps>(r: &R, v: &mut R::Vector, a: f64) {
    // SAFETY: `v` has `r.len(v)` entries, one per thread.
    unsafe {
        run(
            r,
            r.ipm().fill,
            r.len(v),
            &[len(r.len(v)), pm(r, v), KernelArg::F64(a)],
        )
    };
}
pub(crate) fn copy<R: LaunchOps>(r: &R, dst: &mut R::Vector, src: &R::Vector) {
    same_len(r, "copy", r.len(dst), &[r.len(src)]);
    // SAFETY: both vectors have `r.len(dst)` entries.
    unsafe {
        run(
            r,
            r.ipm().copy,
            r.len(dst),
            &[len(r.len(dst)), pm(r, dst), p(r, src)],
        )
    };
}
pub(crate) fn copy_range<R: LaunchOps>(
    r: &R,
    dst: &mut R::Vector,
    dst_start: usize,
    src: &R::Vector,
    src_start: usize,
    n: usize,
) {
    let in_bounds =
        |start: usize, total: usize| start.checked_add(n).is_some_and(|end| end <= total);
    assert!(
        in_bounds(dst_start, r.len(dst)) && in_bounds(src_start, r.len(src)),
        "{} copy_range: {n} entries from {src_start} (of {}) to {dst_start} (of {})",
        r.name(),
        r.len(src),
        r.len(dst)
    );
    if n == 0 {
        return;
    }
    let d = r.vector_ptr_mut(dst) + dst_start as u64 * F64_BYTES;
    let s = r.vector_ptr(src) + src_start as u64 * F64_BYTES;
    // SAFETY: both sub-ranges have `n` entries inside their vectors (checked above).
    unsafe {
        run(
            r,
            r.ipm().copy,
            n,
            &[len(n), KernelArg::Ptr(d), KernelArg::Ptr(s)],
        )
    };
}
pub(crate) fn axpy<R: LaunchOps>(r: &R, a: f64, x: &R::Vector, y: &mut R::Vector) {
    same_len(r, "axpy", r.len(y), &[r.len(x)]);
    // SAFETY: both vectors have `r.len(y)` entries.
    unsafe {
        run(
            r,
            r.ipm().axpy,
            r.len(y),
            &[len(r.len(y)), KernelArg::F64(a), p(r, x), pm(r, y)],
        )
    };
}
pub(crate) fn axpby<R: LaunchOps>(r: &R, a: f64, x: &R::Vector, b: f64, y: &mut R::Vector) {
    same_len(r, "axpby", r.len(y), &[r.len(x)]);
    // SAFETY: both vectors have `r.len(y)` entries.
    unsafe {
        run(
            r,
            r.ipm().axpby,
            r.len(y),
            &[
                len(r.len(y)),
                KernelArg::F64(a),
                p(r, x),
                KernelArg::F64(b),
                pm(r, y),
            ],
        )
    };
}
pub(crate) fn scale<R: LaunchOps>(r: &R, a: f64, v: &mut R::Vector) {
    // SAFETY: `v` has `r.len(v)` entries.
    unsafe {
        run(
            r,
            r.ipm().scale,
            r.len(v),
            &[len(r.len(v)), KernelArg::F64(a), pm(r, v)],
        )
    };
}
pub(crate) fn shift<R: LaunchOps>(r: &R, v: &mut R::Vector, a: f64) {
    // SAFETY: `v` has `r.len(v)` entries.
    unsafe {
        run(
            r,
            r.ipm().shift,
            r.len(v),
            &[len(r.len(v)), pm(r, v), KernelArg::F64(a)],
        )
    };
}
pub(crate) fn dot<R: LaunchOps>(r: &R, x: &R::Vector, y: &R::Vector) -> f64 {
    same_len(r, "dot", r.len(x), &[r.len(y)]);
    let n = r.len(x);
    if n == 0 {
        return EMPTY_SUM;
    }
    // SAFETY: both vectors have `n` entries.
    unsafe {
        reduce(r, n, r.ipm().dot, Finish::Sum, |s, part| {
            [
                len(n),
                KernelArg::I64(s),
                p(r, x),
                p(r, y),
                KernelArg::Ptr(part),
            ]
        })
    }
}
pub(crate) fn sum<R: LaunchOps>(r: &R, v: &R::Vector) -> f64 {
    let n = r.len(v);
    if n == 0 {
        return EMPTY_SUM;
    }
    // SAFETY: `v` has `n` entries.
    unsafe {
        reduce(r, n, r.ipm().sum, Finish::Sum, |s, part| {
            [len(n), KernelArg::I64(s), p(r, v), KernelArg::Ptr(part)]
        })
    }
}
pub(crate) fn norm_inf<R: LaunchOps>(r: &R, v: &R::Vector) -> f64 {
    let n = r.len(v);
    if n == 0 {
        return 0.0;
    }
    // SAFETY: `v` has `n` entries.
    unsafe {
        reduce(r, n, r.ipm().norm_inf, Finish::NanMax, |s, part| {
            [len(n), KernelArg::I64(s), p(r, v), KernelArg::Ptr(part)]
        })
    }
}
pub(crate) fn norm_1<R: LaunchOps>(r: &R, v: &R::Vector) -> f64 {
    let n = r.len(v);
    if n == 0 {
        return EMPTY_SUM;
    }
    // SAFETY: `v` has `n` entries.
    unsafe {
        reduce(r, n, r.ipm().norm_1, Finish::Sum, |s, part| {
            [len(n), KernelArg::I64(s), p(r, v), KernelArg::Ptr(part)]
        })
    }
}

pub(crate) fn mul<R: LaunchOps>(r: &R, dst: &mut R::Vector, x: &R::Vector, y: &R::Vector) {
    same_len(r, "mul", r.len(dst), &[r.len(x), r.len(y)]);
    // SAFETY: the three vectors have `r.len(dst)` entries.
    unsafe {
        run(
            r,
            r.ipm().mul,
            r.len(dst),
            &[len(r.len(dst)), pm(r, dst), p(r, x), p(r, y)],
        )
    };
}
pub(crate) fn div<R: LaunchOps>(r: &R, dst: &mut R::Vector, x: &R::Vector, y: &R::Vector) {
    same_len(r, "div", r.len(dst), &[r.len(x), r.len(y)]);
    // SAFETY: the three vectors have `r.len(dst)` entries.
    unsafe {
        run(
            r,
            r.ipm().div,
            r.len(dst),
            &[len(r.len(dst)), pm(r, dst), p(r, x), p(r, y)],
        )
    };
}
pub(crate) fn recip<R: LaunchOps>(r: &R, dst: &mut R::Vector, a: f64, x: &R::Vector) {
    same_len(r, "recip", r.len(dst), &[r.len(x)]);
    // SAFETY: both vectors have `r.len(dst)` entries.
    unsafe {
        run(
            r,
            r.ipm().recip,
            r.len(dst),
            &[len(r.len(dst)), pm(r, dst), KernelArg::F64(a), p(r, x)],
        )
    };
}
pub(crate) fn gather<R: LaunchOps>(r: &R, dst: &mut R::Vector, src: &R::Vector, idx: &R::Index) {
    same_len(r, "gather", r.len(dst), &[r.index_len(idx)]);
    r.check_indices("gather", idx, r.index_len(idx), r.len(src));
    // SAFETY: `dst` and `idx` have `r.len(dst)` entries; every index is inside `src`.
    unsafe {
        run(
            r,
            r.ipm().gather,
            r.len(dst),
            &[len(r.len(dst)), pm(r, dst), p(r, src), pi(r, idx)],
        )
    };
}
pub(crate) fn scatter<R: LaunchOps>(r: &R, dst: &mut R::Vector, idx: &R::Index, src: &R::Vector) {
    same_len(r, "scatter", r.len(src), &[r.index_len(idx)]);
    r.check_indices("scatter", idx, r.index_len(idx), r.len(dst));
    // SAFETY: `src` and `idx` have `r.len(src)` entries; every index is inside `dst`.
    unsafe {
        run(
            r,
            r.ipm().scatter,
            r.len(src),
            &[len(r.len(src)), pm(r, dst), pi(r, idx), p(r, src)],
        )
    };
}
pub(crate) fn scatter_add<R: LaunchOps>(
    r: &R,
    a: f64,
    src: &R::Vector,
    idx: &R::Index,
    dst: &mut R::Vector,
) {
    same_len(r, "scatter_add", r.len(src), &[r.index_len(idx)]);
    r.check_indices("scatter_add", idx, r.index_len(idx), r.len(dst));
    // SAFETY: `src` and `idx` have `r.len(src)` entries; every index is inside `dst`
    // (the kernel runs its threads one after the other, so even a repeated index
    // cannot race).
    unsafe {
        run(
            r,
            r.ipm().scatter_add,
            r.len(src),
            &[
                len(r.len(src)),
                KernelArg::F64(a),
                p(r, src),
                pi(r, idx),
                pm(r, dst),
            ],
        )
    };
}
pub(crate) fn gather_slack<R: LaunchOps>(
    r: &R,
    dst: &mut R::Vector,
    src: &R::Vector,
    idx: &R::Index,
    off: &R::Vector,
    sign: f64,
) {
    same_len(
        r,
        "gather_slack",
        r.len(dst),
        &[r.index_len(idx), r.len(off)],
    );
    r.check_indices("gather_slack", idx, r.index_len(idx), r.len(src));
    // SAFETY: `dst`, `idx` and `off` have `r.len(dst)` entries; every index is inside
    // `src`.
    unsafe {
        run(
            r,
            r.ipm().gather_slack,
            r.len(dst),
            &[
                len(r.len(dst)),
                pm(r, dst),
                p(r, src),
                pi(r, idx),
                p(r, off),
                KernelArg::F64(sign),
            ],
        )
    };
}

pub(crate) fn sum_ln<R: LaunchOps>(r: &R, x: &R::Vector) -> f64 {
    let n = r.len(x);
    if n == 0 {
        return EMPTY_SUM;
    }
    // SAFETY: `x` has `n` entries.
    unsafe {
        reduce(r, n, r.ipm().sum_ln, Finish::Sum, |s, part| {
            [len(n), KernelArg::I64(s), p(r, x), KernelArg::Ptr(part)]
        })
    }
}
pub(crate) fn max_step<R: LaunchOps>(r: &R, x: &R::Vector, dx: &R::Vector, tau: f64) -> f64 {
    same_len(r, "max_step", r.len(x), &[r.len(dx)]);
    let n = r.len(x);
    if n == 0 {
        return 1.0;
    }
    // SAFETY: both vectors have `n` entries.
    unsafe {
        reduce(r, n, r.ipm().max_step, Finish::Min, |s, part| {
            [
                len(n),
                KernelArg::I64(s),
                p(r, x),
                p(r, dx),
                KernelArg::F64(tau),
                KernelArg::Ptr(part),
            ]
        })
    }
}
pub(crate) fn bound_dual_step<R: LaunchOps>(
    r: &R,
    dz: &mut R::Vector,
    z: &R::Vector,
    s: &R::Vector,
    ds: &R::Vector,
    mu: f64,
) {
    same_len(
        r,
        "bound_dual_step",
        r.len(dz),
        &[r.len(z), r.len(s), r.len(ds)],
    );
    // SAFETY: the four vectors have `r.len(dz)` entries.
    unsafe {
        run(
            r,
            r.ipm().bound_dual_step,
            r.len(dz),
            &[
                len(r.len(dz)),
                pm(r, dz),
                p(r, z),
                p(r, s),
                p(r, ds),
                KernelArg::F64(mu),
            ],
        )
    };
}
pub(crate) fn compl_inf<R: LaunchOps>(r: &R, s: &R::Vector, z: &R::Vector, mu: f64) -> f64 {
    same_len(r, "compl_inf", r.len(s), &[r.len(z)]);
    let n = r.len(s);
    if n == 0 {
        return 0.0;
    }
    // SAFETY: both vectors have `n` entries.
    unsafe {
        reduce(r, n, r.ipm().compl_inf, Finish::NanMax, |k, part| {
            [
                len(n),
                KernelArg::I64(k),
                p(r, s),
                p(r, z),
                KernelArg::F64(mu),
                KernelArg::Ptr(part),
            ]
        })
    }
}
pub(crate) fn min_product<R: LaunchOps>(r: &R, s: &R::Vector, z: &R::Vector) -> f64 {
    same_len(r, "min_product", r.len(s), &[r.len(z)]);
    let n = r.len(s);
    if n == 0 {
        return f64::INFINITY;
    }
    // SAFETY: both vectors have `n` entries.
    unsafe {
        reduce(r, n, r.ipm().min_product, Finish::Min, |k, part| {
            [
                len(n),
                KernelArg::I64(k),
                p(r, s),
                p(r, z),
                KernelArg::Ptr(part),
            ]
        })
    }
}
pub(crate) fn safeguard_bound_mult<R: LaunchOps>(
    r: &R,
    z: &mut R::Vector,
    s: &R::Vector,
    mu: f64,
    kappa: f64,
) -> f64 {
    same_len(r, "safeguard_bound_mult", r.len(z), &[r.len(s)]);
    let n = r.len(z);
    if n == 0 {
        return 0.0;
    }
    let zp = pm(r, z);
    // SAFETY: both vectors have `n` entries; `z` is written only by the kernel.
    unsafe {
        reduce(
            r,
            n,
            r.ipm().safeguard_bound_mult,
            Finish::Max,
            |k, part| {
                [
                    len(n),
                    KernelArg::I64(k),
                    zp,
                    p(r, s),
                    KernelArg::F64(mu),
                    KernelArg::F64(kappa),
                    KernelArg::Ptr(part),
                ]
            },
        )
    }
}
pub(crate) fn push_into_bounds<R: LaunchOps>(
    r: &R,
    w: &mut R::Vector,
    lo: &R::Vector,
    up: &R::Vector,
    push: &R::Vector,
    frac: &R::Vector,
) {
    same_len(
        r,
        "push_into_bounds",
        r.len(w),
        &[r.len(lo), r.len(up), r.len(push), r.len(frac)],
    );
    // SAFETY: the five vectors have `r.len(w)` entries.
    unsafe {
        run(
            r,
            r.ipm().push_into_bounds,
            r.len(w),
            &[
                len(r.len(w)),
                pm(r, w),
                p(r, lo),
                p(r, up),
                p(r, push),
                p(r, frac),
            ],
        )
    };
}
pub(crate) fn clamp_below<R: LaunchOps>(r: &R, z: &mut R::Vector, a: f64) {
    // SAFETY: `z` has `r.len(z)` entries.
    unsafe {
        run(
            r,
            r.ipm().clamp_below,
            r.len(z),
            &[len(r.len(z)), pm(r, z), KernelArg::F64(a)],
        )
    };
}
pub(crate) fn resto_elastic<R: LaunchOps>(
    r: &R,
    res: &R::Vector,
    mu: f64,
    rho: f64,
    p_out: &mut R::Vector,
    n_out: &mut R::Vector,
) {
    let m = r.len(res);
    same_len(r, "resto_elastic", m, &[r.len(p_out), r.len(n_out)]);
    // SAFETY: the three vectors have `m` entries.
    unsafe {
        run(
            r,
            r.ipm().resto_elastic,
            m,
            &[
                len(m),
                p(r, res),
                KernelArg::F64(mu),
                KernelArg::F64(rho),
                pm(r, p_out),
                pm(r, n_out),
            ],
        )
    };
}
pub(crate) fn prox_weight<R: LaunchOps>(r: &R, x: &R::Vector, d2: &mut R::Vector) {
    let n = r.len(x);
    same_len(r, "prox_weight", n, &[r.len(d2)]);
    // SAFETY: both vectors have `n` entries.
    unsafe { run(r, r.ipm().prox_weight, n, &[len(n), p(r, x), pm(r, d2)]) };
}
pub(crate) fn safe_slack<R: LaunchOps>(
    r: &R,
    s: &mut R::Vector,
    z: &R::Vector,
    s_min: f64,
    mu: f64,
) -> usize {
    same_len(r, "safe_slack", r.len(s), &[r.len(z)]);
    let n = r.len(s);
    if n == 0 {
        return 0;
    }
    let sp = pm(r, s);
    // SAFETY: both vectors have `n` entries; `s` is written only by the kernel.
    let count = unsafe {
        reduce(r, n, r.ipm().safe_slack, Finish::Sum, |k, part| {
            [
                len(n),
                KernelArg::I64(k),
                sp,
                p(r, z),
                KernelArg::F64(s_min),
                KernelArg::F64(mu),
                KernelArg::Ptr(part),
            ]
        })
    };
    // an exact count (at most n < 2^53); NaN after a failed launch counts 0
    if count.is_nan() { 0 } else { count as usize }
}
pub(crate) fn max_rel_step<R: LaunchOps>(r: &R, dx: &R::Vector, x: &R::Vector) -> f64 {
    same_len(r, "max_rel_step", r.len(dx), &[r.len(x)]);
    let n = r.len(dx);
    if n == 0 {
        return 0.0;
    }
    // SAFETY: both vectors have `n` entries.
    unsafe {
        reduce(r, n, r.ipm().max_rel_step, Finish::NanMax, |k, part| {
            [
                len(n),
                KernelArg::I64(k),
                p(r, dx),
                p(r, x),
                KernelArg::Ptr(part),
            ]
        })
    }
}

pub(crate) fn seg_sum<R: LaunchOps>(
    r: &R,
    a: f64,
    src: &R::Vector,
    seg: &Segments<R::Index>,
    b: f64,
    dst: &mut R::Vector,
) {
    let t = r.len(dst);
    same_len(r, "seg_sum", seg.targets, &[t]);
    let items = r.check_plan("seg_sum", seg, t, false);
    r.check_indices("seg_sum entries", &seg.entry, items, r.len(src));
    // SAFETY: the plan was checked: `ptr` has `t + 1` non-decreasing entries up to
    // the checked items, whose entries are inside `src`; `dst` has `t` entries.
    unsafe {
        run(
            r,
            r.ipm().seg_sum,
            t,
            &[
                len(t),
                KernelArg::F64(a),
                p(r, src),
                pi(r, &seg.ptr),
                pi(r, &seg.entry),
                KernelArg::F64(b),
                pm(r, dst),
            ],
        )
    };
}
pub(crate) fn seg_spmv<R: LaunchOps>(
    r: &R,
    a: f64,
    vals: &R::Vector,
    seg: &Segments<R::Index>,
    x: &R::Vector,
    b: f64,
    y: &mut R::Vector,
) {
    let t = r.len(y);
    same_len(r, "seg_spmv", seg.targets, &[t]);
    let items = r.check_plan("seg_spmv", seg, t, true);
    r.check_indices("seg_spmv entries", &seg.entry, items, r.len(vals));
    r.check_indices("seg_spmv partners", &seg.partner, items, r.len(x));
    // SAFETY: the plan was checked: `ptr` has `t + 1` non-decreasing entries up to
    // the checked items, whose entries are inside `vals` and partners inside `x`;
    // `y` has `t` entries.
    unsafe {
        run(
            r,
            r.ipm().seg_spmv,
            t,
            &[
                len(t),
                KernelArg::F64(a),
                p(r, vals),
                pi(r, &seg.ptr),
                pi(r, &seg.entry),
                pi(r, &seg.partner),
                p(r, x),
                KernelArg::F64(b),
                pm(r, y),
            ],
        )
    };
}
pub(crate) fn seg_pair_sum<R: LaunchOps>(
    r: &R,
    d: &R::Vector,
    rows: &R::Index,
    vals: &R::Vector,
    seg: &Segments<R::Index>,
    dst: &mut R::Vector,
) {
    let t = r.len(dst);
    same_len(r, "seg_pair_sum", seg.targets, &[t]);
    let items = r.check_plan("seg_pair_sum", seg, t, true);
    r.check_indices("seg_pair_sum entries", &seg.entry, items, r.len(vals));
    r.check_indices("seg_pair_sum partners", &seg.partner, items, r.len(vals));
    r.check_indices("seg_pair_sum rows", rows, r.index_len(rows), r.len(d));
    assert!(
        r.index_len(rows) >= r.len(vals),
        "{} seg_pair_sum: {} rows for {} values",
        r.name(),
        r.index_len(rows),
        r.len(vals)
    );
    // SAFETY: the plan was checked: entries and partners are inside `vals`, `rows`
    // covers every value and its rows are inside `d`; `dst` has `t` entries.
    unsafe {
        run(
            r,
            r.ipm().seg_pair_sum,
            t,
            &[
                len(t),
                p(r, d),
                pi(r, rows),
                p(r, vals),
                pi(r, &seg.ptr),
                pi(r, &seg.entry),
                pi(r, &seg.partner),
                pm(r, dst),
            ],
        )
    };
}
