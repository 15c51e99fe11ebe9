//! The emulated CUDA device against the `Cpu` reference: every kernel of `kernels/ipm.cu`
//! on seeded random inputs with NaN, ±∞, ±0 and empty vectors (bitwise for element-wise,
//! min/max-type and segmented kernels and for sums of at most 32 entries; longer plain sums
//! within the rounding of two summation orders, see `assert_sum`), the launch ABI and its
//! typed errors.
//!
//! g++ is required (CI installs it); `SIMDNLP_SKIP_GXX=1` skips these tests on a machine
//! without it.

use simdnlp_device::{
    BLOCK, Cpu, Device, DeviceError, Emu, HostBuffers, IPM_KERNELS, KernelArg, KernelRuntime,
    SegmentPlan,
};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The shared device (compiled once per test process), or `None` when g++ is missing and
/// `SIMDNLP_SKIP_GXX` is set.
fn emu() -> Option<&'static Emu> {
    static EMU: OnceLock<Option<Emu>> = OnceLock::new();
    EMU.get_or_init(|| match Emu::new() {
        Ok(emu) => Some(emu),
        Err(e @ DeviceError::Unavailable { .. }) => {
            // g++ is required (CI installs it); set SIMDNLP_SKIP_GXX=1 to skip on a
            // machine without it
            assert!(
                std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                "g++ is required for this test: {e}"
            );
            eprintln!("g++ not available ({e}); skipping the Emu tests");
            None
        }
        Err(e) => panic!("the interior-point kernels do not compile: {e}"),
    })
    .as_ref()
}

/// SplitMix64: a seeded generator, so every failure is reproducible from its case number.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Mostly uniform in `[-10, 10)`; with probability `special` one of NaN, ±∞, ±0, a
    /// tiny or a huge number.
    fn value(&mut self, special: f64) -> f64 {
        if self.unit() < special {
            [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                1e-300,
                -1e150,
                1e150,
            ][self.below(8)]
        } else {
            20.0 * self.unit() - 10.0
        }
    }
    /// Positive values (slacks, multipliers) with the same specials.
    fn positive(&mut self, special: f64) -> f64 {
        let v = self.value(special);
        if v.is_nan() { v } else { v.abs() + 1e-3 }
    }
    fn vector(&mut self, n: usize, special: f64) -> Vec<f64> {
        (0..n).map(|_| self.value(special)).collect()
    }
    fn positives(&mut self, n: usize, special: f64) -> Vec<f64> {
        (0..n).map(|_| self.positive(special)).collect()
    }
    /// `n` indices below `limit` (`limit > 0` when `n > 0`).
    fn indices(&mut self, n: usize, limit: usize) -> Vec<usize> {
        (0..n).map(|_| self.below(limit)).collect()
    }
    /// `n` distinct indices below `limit >= n`.
    fn distinct(&mut self, n: usize, limit: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..limit).collect();
        for i in 0..n {
            let j = i + self.below(limit - i);
            all.swap(i, j);
        }
        all.truncate(n);
        all
    }
}

/// The kernels whose `Cpu` twin uses `f64::min`/`f64::max` on values that can be `±0`
/// (see [`same_but_zero_sign`]).
const MIN_MAX: [&str; 7] = [
    "safeguard_bound_mult",
    "safeguard_bound_mult change",
    "safe_slack",
    "clamp_below",
    "push_into_bounds",
    "min_product",
    "max_step",
];

/// Same bits, or both NaN (the NaN payload is not part of the contract).
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// As [`same`], but `+0` equals `-0`: for results that went through `f64::min`/`f64::max`,
/// which leave the sign of an equal pair of zeros unspecified (it changes with the
/// machine code rustc emits); the kernels fix it (`sn_min`/`sn_max`).
fn same_but_zero_sign(a: f64, b: f64) -> bool {
    same(a, b) || (a == 0.0 && b == 0.0)
}

#[track_caller]
fn assert_same(what: &str, case: &str, cpu: f64, emu: f64) {
    let equal = if MIN_MAX.contains(&what) {
        same_but_zero_sign(cpu, emu)
    } else {
        same(cpu, emu)
    };
    assert!(
        equal,
        "{what} ({case}): cpu {cpu:e} ({:#x}) != emu {emu:e} ({:#x})",
        cpu.to_bits(),
        emu.to_bits()
    );
}

#[track_caller]
fn assert_same_vec(what: &str, case: &str, cpu: &[f64], emu: &[f64]) {
    assert_eq!(cpu.len(), emu.len(), "{what} ({case}): lengths");
    let min_max = MIN_MAX.contains(&what);
    for (i, (c, e)) in cpu.iter().zip(emu).enumerate() {
        assert!(
            if min_max {
                same_but_zero_sign(*c, *e)
            } else {
                same(*c, *e)
            },
            "{what} ({case}): entry {i}: cpu {c:e} ({:#x}) != emu {e:e} ({:#x})",
            c.to_bits(),
            e.to_bits()
        );
    }
}

/// Largest `|cpu − emu| / Σ|terms|` seen by [`assert_sum`] (as `f64` bits), reported by
/// the random test.
static WORST_SUM: AtomicU64 = AtomicU64::new(0);

/// A plain sum: bitwise for at most 32 terms (one slot: the sequential sum of `Cpu`);
/// longer sums add the same terms in another order, so they may differ by the rounding
/// of both orders: within the worst-case bound of recursive summation, twice,
/// `(n − 1) ε Σ|terms|`. (A fixed `1e-15` relative is not attainable: the sequential
/// sum's own error is up to `(n − 1) ε/2 Σ|terms|`.)
#[track_caller]
fn assert_sum(what: &str, case: &str, cpu: f64, emu: f64, terms: impl Iterator<Item = f64>) {
    let terms: Vec<f64> = terms.collect();
    if terms.len() <= 32 {
        return assert_same(what, case, cpu, emu);
    }
    let scale: f64 = terms.iter().map(|t| t.abs()).sum();
    if same(cpu, emu) {
        return;
    }
    let diff = (cpu - emu).abs();
    let bound = (terms.len() - 1) as f64 * f64::EPSILON * scale;
    assert!(
        diff <= bound,
        "{what} ({case}): cpu {cpu:e} vs emu {emu:e}, difference {diff:e} above {bound:e}"
    );
    let rel = diff / scale;
    WORST_SUM.fetch_max(rel.to_bits(), Ordering::Relaxed);
}

const SIZES: [usize; 12] = [0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 5000];
/// Seeds per size; each runs every kernel once.
const CASES: u64 = 30;

/// Every kernel method of `Device` on `Cpu` and `Emu`, one random case.
fn compare_all(emu: &Emu, n: usize, seed: u64) {
    let cpu = Cpu;
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ n as u64);
    let special = [0.0, 0.002, 0.05, 0.3][(seed % 4) as usize];
    let case = format!("n = {n}, seed = {seed}, special = {special}");
    let case = case.as_str();
    let a = rng.value(special / 4.0);
    let b = if seed % 5 == 0 {
        0.0
    } else {
        rng.value(special / 4.0)
    };
    let x = rng.vector(n, special);
    let y = rng.vector(n, special);
    let sp = rng.positives(n, special);
    let zp = rng.positives(n, special);

    // ------------------------------------------------------------ BLAS-1, element-wise
    let mut c = y.clone();
    let mut e = y.clone();
    cpu.fill(&mut c, a);
    emu.fill(&mut e, a);
    assert_same_vec("fill", case, &c, &e);
    cpu.copy(&mut c, &x);
    emu.copy(&mut e, &x);
    assert_same_vec("copy", case, &c, &e);
    if n > 0 {
        let (ds, ss) = (rng.below(n), rng.below(n));
        let len = rng.below(n - ds.max(ss) + 1);
        let (mut c, mut e) = (y.clone(), y.clone());
        cpu.copy_range(&mut c, ds, &x, ss, len);
        emu.copy_range(&mut e, ds, &x, ss, len);
        assert_same_vec("copy_range", case, &c, &e);
    }
    let (mut c, mut e) = (y.clone(), y.clone());
    cpu.axpy(a, &x, &mut c);
    emu.axpy(a, &x, &mut e);
    assert_same_vec("axpy", case, &c, &e);
    let (mut c, mut e) = (y.clone(), y.clone());
    cpu.axpby(a, &x, b, &mut c);
    emu.axpby(a, &x, b, &mut e);
    assert_same_vec("axpby", case, &c, &e);
    let (mut c, mut e) = (y.clone(), y.clone());
    cpu.scale(a, &mut c);
    emu.scale(a, &mut e);
    assert_same_vec("scale", case, &c, &e);
    let (mut c, mut e) = (y.clone(), y.clone());
    cpu.shift(&mut c, a);
    emu.shift(&mut e, a);
    assert_same_vec("shift", case, &c, &e);
    let (mut c, mut e) = (vec![0.0; n], vec![0.0; n]);
    cpu.mul(&mut c, &x, &y);
    emu.mul(&mut e, &x, &y);
    assert_same_vec("mul", case, &c, &e);
    cpu.div(&mut c, &x, &y);
    emu.div(&mut e, &x, &y);
    assert_same_vec("div", case, &c, &e);
    cpu.recip(&mut c, a, &x);
    emu.recip(&mut e, a, &x);
    assert_same_vec("recip", case, &c, &e);

    // ------------------------------------------------------------ indexed kernels
    let m = n + rng.below(4);
    let src = rng.vector(m, special);
    let off = rng.vector(n, special);
    let gather_idx = rng.indices(n, m.max(1));
    let scatter_idx = rng.distinct(n, m);
    let (gc, ge) = (
        cpu.index_from_host(&gather_idx).unwrap(),
        emu.index_from_host(&gather_idx).unwrap(),
    );
    let (sc, se) = (
        cpu.index_from_host(&scatter_idx).unwrap(),
        emu.index_from_host(&scatter_idx).unwrap(),
    );
    let (mut c, mut e) = (vec![0.0; n], vec![0.0; n]);
    cpu.gather(&mut c, &src, &gc);
    emu.gather(&mut e, &src, &ge);
    assert_same_vec("gather", case, &c, &e);
    let sign = if seed % 2 == 0 { 1.0 } else { -1.0 };
    cpu.gather_slack(&mut c, &src, &gc, &off, sign);
    emu.gather_slack(&mut e, &src, &ge, &off, sign);
    assert_same_vec("gather_slack", case, &c, &e);
    let (mut c, mut e) = (src.clone(), src.clone());
    cpu.scatter(&mut c, &sc, &x);
    emu.scatter(&mut e, &se, &x);
    assert_same_vec("scatter", case, &c, &e);
    cpu.scatter_add(a, &y, &sc, &mut c);
    emu.scatter_add(a, &y, &se, &mut e);
    assert_same_vec("scatter_add", case, &c, &e);

    // ------------------------------------------------------------ reductions
    assert_sum(
        "dot",
        case,
        cpu.dot(&x, &y),
        emu.dot(&x, &y),
        x.iter().zip(&y).map(|(a, b)| a * b),
    );
    assert_sum("sum", case, cpu.sum(&x), emu.sum(&x), x.iter().copied());
    assert_sum(
        "norm_1",
        case,
        cpu.norm_1(&x),
        emu.norm_1(&x),
        x.iter().map(|v| v.abs()),
    );
    assert_sum(
        "sum_ln",
        case,
        cpu.sum_ln(&sp),
        emu.sum_ln(&sp),
        sp.iter().map(|v| if *v > 0.0 { v.ln() } else { f64::NAN }),
    );
    // sum_ln with non-positive entries (NaN terms)
    assert_sum(
        "sum_ln (signed)",
        case,
        cpu.sum_ln(&x),
        emu.sum_ln(&x),
        x.iter().map(|v| if *v > 0.0 { v.ln() } else { f64::NAN }),
    );
    assert_same("norm_inf", case, cpu.norm_inf(&x), emu.norm_inf(&x));
    let tau = 0.99;
    assert_same(
        "max_step",
        case,
        cpu.max_step(&sp, &y, tau),
        emu.max_step(&sp, &y, tau),
    );
    let mu = rng.positive(special / 4.0);
    assert_same(
        "compl_inf",
        case,
        cpu.compl_inf(&sp, &zp, mu),
        emu.compl_inf(&sp, &zp, mu),
    );
    assert_same(
        "min_product",
        case,
        cpu.min_product(&x, &y),
        emu.min_product(&x, &y),
    );
    assert_same(
        "max_rel_step",
        case,
        cpu.max_rel_step(&x, &y),
        emu.max_rel_step(&x, &y),
    );

    // ------------------------------------------------------------ interior-point kernels
    let (mut c, mut e) = (vec![0.0; n], vec![0.0; n]);
    cpu.bound_dual_step(&mut c, &zp, &sp, &x, mu);
    emu.bound_dual_step(&mut e, &zp, &sp, &x, mu);
    assert_same_vec("bound_dual_step", case, &c, &e);
    let kappa = 1e10;
    let (mut c, mut e) = (x.clone(), x.clone());
    let change_c = cpu.safeguard_bound_mult(&mut c, &sp, mu, kappa);
    let change_e = emu.safeguard_bound_mult(&mut e, &sp, mu, kappa);
    assert_same_vec("safeguard_bound_mult", case, &c, &e);
    assert_same("safeguard_bound_mult change", case, change_c, change_e);
    let s_min = 1.0;
    let (mut c, mut e) = (x.clone(), x.clone());
    let count_c = cpu.safe_slack(&mut c, &y, s_min, mu);
    let count_e = emu.safe_slack(&mut e, &y, s_min, mu);
    assert_same_vec("safe_slack", case, &c, &e);
    assert_eq!(count_c, count_e, "safe_slack count ({case})");
    let (mut c, mut e) = (y.clone(), y.clone());
    cpu.clamp_below(&mut c, a);
    emu.clamp_below(&mut e, a);
    assert_same_vec("clamp_below", case, &c, &e);
    // restoration start: residuals with the specials, positive μ and ρ
    let rho = rng.positive(0.0) * 100.0;
    let (mut pc, mut nc) = (vec![0.0; n], vec![0.0; n]);
    let (mut pe, mut ne) = (vec![1.0; n], vec![1.0; n]);
    cpu.resto_elastic(&x, mu, rho, &mut pc, &mut nc);
    emu.resto_elastic(&x, mu, rho, &mut pe, &mut ne);
    assert_same_vec("resto_elastic p", case, &pc, &pe);
    assert_same_vec("resto_elastic n", case, &nc, &ne);
    let (mut c, mut e) = (vec![0.0; n], vec![1.0; n]);
    cpu.prox_weight(&x, &mut c);
    emu.prox_weight(&x, &mut e);
    assert_same_vec("prox_weight", case, &c, &e);
    // bounds: a mix of finite, infinite and crossed/tiny boxes
    let lo: Vec<f64> = (0..n)
        .map(|_| match rng.below(4) {
            0 => f64::NEG_INFINITY,
            _ => rng.value(special),
        })
        .collect();
    let up: Vec<f64> = lo
        .iter()
        .map(|&l| match rng.below(5) {
            0 => f64::INFINITY,
            1 => l + 1e-12,
            2 => l,
            _ => l + 10.0 * rng.unit(),
        })
        .collect();
    let push: Vec<f64> = (0..n).map(|_| 1e-2 * rng.unit()).collect();
    let frac: Vec<f64> = (0..n).map(|_| 1e-2 * rng.unit()).collect();
    let (mut c, mut e) = (x.clone(), x.clone());
    cpu.push_into_bounds(&mut c, &lo, &up, &push, &frac);
    emu.push_into_bounds(&mut e, &lo, &up, &push, &frac);
    assert_same_vec("push_into_bounds", case, &c, &e);

    // ------------------------------------------------------------ segmented kernels
    let targets = n;
    let items = if targets == 0 {
        0
    } else {
        rng.below(3 * n + 1)
    };
    let nvals = n + 1 + rng.below(3);
    let vals = rng.vector(nvals, special);
    let target = rng.indices(items, targets.max(1));
    let entry = rng.indices(items, nvals);
    let partner_x = rng.indices(items, m.max(1));
    let plan = SegmentPlan::new(targets, &target, &entry, &partner_x).unwrap();
    let (segc, sege) = (cpu.segments(&plan).unwrap(), emu.segments(&plan).unwrap());
    let xs = if m == 0 { vec![0.0] } else { src.clone() };
    let (mut c, mut e) = if b == 0.0 {
        // b = 0 must not read the old values
        (vec![f64::NAN; n], vec![f64::NAN; n])
    } else {
        (y.clone(), y.clone())
    };
    cpu.seg_sum(a, &vals, &segc, b, &mut c);
    emu.seg_sum(a, &vals, &sege, b, &mut e);
    assert_same_vec("seg_sum", case, &c, &e);
    let (mut c, mut e) = if b == 0.0 {
        (vec![f64::NAN; n], vec![f64::NAN; n])
    } else {
        (y.clone(), y.clone())
    };
    cpu.seg_spmv(a, &vals, &segc, &xs, b, &mut c);
    emu.seg_spmv(a, &vals, &sege, &xs, b, &mut e);
    assert_same_vec("seg_spmv", case, &c, &e);
    let nrows = 1 + rng.below(n + 1);
    let rows = rng.indices(nvals, nrows);
    let d = rng.vector(nrows, special);
    let partner_v = rng.indices(items, nvals);
    let pair_plan = SegmentPlan::new(targets, &target, &entry, &partner_v).unwrap();
    let (pc, pe) = (
        cpu.segments(&pair_plan).unwrap(),
        emu.segments(&pair_plan).unwrap(),
    );
    let (rc, re) = (
        cpu.index_from_host(&rows).unwrap(),
        emu.index_from_host(&rows).unwrap(),
    );
    let (mut c, mut e) = (y.clone(), y.clone());
    cpu.seg_pair_sum(&d, &rc, &vals, &pc, &mut c);
    emu.seg_pair_sum(&d, &re, &vals, &pe, &mut e);
    assert_same_vec("seg_pair_sum", case, &c, &e);

    emu.synchronize().expect("no kernel failed");
}

#[test]
fn every_kernel_matches_the_cpu_device() {
    let Some(emu) = emu() else { return };
    let start = Instant::now();
    for n in SIZES {
        for seed in 0..CASES {
            compare_all(emu, n, seed);
        }
    }
    // past 4096 slots of 32 entries: the slot count is capped, slots take more entries
    for seed in 0..4 {
        compare_all(emu, 140_000, seed);
    }
    eprintln!(
        "{} random cases of every kernel in {:.2?}; largest sum difference {:e} of Σ|terms|",
        SIZES.len() as u64 * CASES + 4,
        start.elapsed(),
        f64::from_bits(WORST_SUM.load(Ordering::Relaxed))
    );
}

#[test]
fn reductions_of_empty_vectors_and_nan_rules() {
    let Some(d) = emu() else { return };
    let e: Vec<f64> = d.zeros(0).unwrap();
    assert_eq!(d.norm_inf(&e), 0.0);
    assert_eq!(d.norm_1(&e), 0.0);
    assert_eq!(d.dot(&e, &e), 0.0);
    assert_eq!(d.sum(&e), 0.0);
    assert_eq!(d.sum_ln(&e), 0.0);
    assert_eq!(d.max_step(&e, &e, 0.99), 1.0);
    assert_eq!(d.min_product(&e, &e), f64::INFINITY);
    assert_eq!(d.compl_inf(&e, &e, 1.0), 0.0);
    assert_eq!(d.max_rel_step(&e, &e), 0.0);
    let mut z = e.clone();
    assert_eq!(d.safeguard_bound_mult(&mut z, &e, 1.0, 10.0), 0.0);
    assert_eq!(d.safe_slack(&mut z, &e, 1.0, 1.0), 0);
    // a NaN far into a long vector (another slot than the first) still propagates
    let mut v = vec![1.0; 10_000];
    v[7777] = f64::NAN;
    assert!(d.norm_inf(&v).is_nan());
    assert!(d.sum(&v).is_nan());
    assert_eq!(d.min_product(&v, &vec![1.0; 10_000]), 1.0);
    // -0 sums stay -0, as Rust's `Sum`
    assert!(d.sum(&vec![-0.0; 3]).is_sign_negative());
    assert!(d.synchronize().is_ok());
}

#[test]
fn host_buffers_and_transfers() {
    let Some(d) = emu() else { return };
    let mut v = d.vector_from_host(&[1.0, 2.0]).unwrap();
    d.host_mut(&mut v)[1] = 5.0;
    assert_eq!(d.host(&v), &[1.0, 5.0]);
    let mut out = [0.0; 3];
    assert!(matches!(
        d.to_host(&v, &mut out),
        Err(DeviceError::LengthMismatch {
            expected: 2,
            got: 3,
            ..
        })
    ));
    assert_eq!(d.vector_ptr(&d.zeros(0).unwrap()), 0);
    assert_eq!(d.name(), "emu");
    // device indices are i32
    let too_large = i32::MAX as usize + 1;
    assert!(matches!(
        d.index_from_host(&[0, too_large]),
        Err(DeviceError::IndexTooLarge { index, .. }) if index == too_large
    ));
    assert_eq!(
        d.index_from_host(&[i32::MAX as usize]).unwrap(),
        vec![i32::MAX]
    );
}

/// The kernel source follows GPU.md §3: no atomics, shared memory or warp intrinsics (so
/// the emulator runs the code a GPU runs) and no libm fmin/fmax (their sign of an equal
/// pair of zeros is unspecified; the kernels use `sn_min`/`sn_max`).
#[test]
fn kernel_source_avoids_what_the_emulator_cannot_run() {
    // the code without its `//` comments (which name what is banned)
    let code: String = IPM_KERNELS
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!code.contains("/*"), "use // comments in kernels/ipm.cu");
    for banned in [
        "atomic",
        "__shared__",
        "__syncthreads",
        "__syncwarp",
        "__shfl",
        "__ballot",
        "__any_sync",
        "__all_sync",
        "warpSize",
        "fmin(",
        "fmax(",
    ] {
        assert!(!code.contains(banned), "kernels/ipm.cu uses `{banned}`");
    }
    // every kernel is extern "C" __global__ void
    let globals = code.matches("__global__").count();
    assert_eq!(
        globals,
        code.matches("extern \"C\" __global__ void ").count()
    );
    assert!(globals >= 30);
}

#[test]
fn launches_through_the_kernel_params_abi() {
    let Some(d) = emu() else { return };
    let src = r#"
extern "C" __global__ void twice_plus(long long n, double* v, int k, double c) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) v[i] = 2.0 * v[i] + k + c;
}
extern "C" __global__ void geometry(long long n, long long* out) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 1000000 + blockDim.x * 1000 + gridDim.x;
}
"#;
    let m = d.load_module(src).unwrap();
    assert_eq!(
        d.load_module(src).unwrap(),
        m,
        "modules are cached by source"
    );
    assert_eq!(
        d.load_module(IPM_KERNELS).unwrap(),
        d.load_module(IPM_KERNELS).unwrap()
    );
    let k = d.kernel(m, "twice_plus").unwrap();
    let mut v = d.vector_from_host(&[1.0, 2.0, 3.0]).unwrap();
    let ptr = v.as_mut_ptr() as u64;
    // SAFETY: `v` has 3 entries and the arguments match the signature.
    unsafe {
        d.launch(
            k,
            3,
            &[
                KernelArg::I64(3),
                KernelArg::Ptr(ptr),
                KernelArg::I32(-1),
                KernelArg::F64(0.5),
            ],
        )
    }
    .unwrap();
    assert_eq!(v, vec![1.5, 3.5, 5.5]);
    // one thread runs the whole grid-stride loop
    // SAFETY: as above.
    unsafe {
        d.launch(
            k,
            1,
            &[
                KernelArg::I64(3),
                KernelArg::Ptr(ptr),
                KernelArg::I32(0),
                KernelArg::F64(0.0),
            ],
        )
    }
    .unwrap();
    assert_eq!(v, vec![3.0, 7.0, 11.0]);
    // the grid: blocks of BLOCK threads
    let g = d.kernel(m, "geometry").unwrap();
    let n = BLOCK + 3;
    let mut out = vec![0i64; n];
    // SAFETY: `out` has `n` entries of `long long`.
    unsafe {
        d.launch(
            g,
            n,
            &[
                KernelArg::I64(n as i64),
                KernelArg::Ptr(out.as_mut_ptr() as u64),
            ],
        )
    }
    .unwrap();
    for (i, o) in out.iter().enumerate() {
        assert_eq!(*o, i as i64 * 1_000_000 + BLOCK as i64 * 1000 + 2);
    }
}

/// Reductions depend on the length only: the first pass gives the same partials for any
/// number of threads.
#[test]
fn reductions_do_not_depend_on_the_launch_geometry() {
    let Some(d) = emu() else { return };
    let m = d.load_module(IPM_KERNELS).unwrap();
    let k = d.kernel(m, "sn_dot_part").unwrap();
    let mut rng = Rng(7);
    let n = 3000;
    let (x, y) = (rng.vector(n, 0.0), rng.vector(n, 0.0));
    let slots = 94;
    let mut reference: Option<Vec<f64>> = None;
    for threads in [1, 5, 94, 256, 257, 5000] {
        let mut part = vec![f64::NAN; slots];
        // SAFETY: x and y have n entries, part has `slots`.
        unsafe {
            d.launch(
                k,
                threads,
                &[
                    KernelArg::I64(n as i64),
                    KernelArg::I64(slots as i64),
                    KernelArg::Ptr(x.as_ptr() as u64),
                    KernelArg::Ptr(y.as_ptr() as u64),
                    KernelArg::Ptr(part.as_mut_ptr() as u64),
                ],
            )
        }
        .unwrap();
        match &reference {
            None => reference = Some(part),
            Some(r) => assert_same_vec("partials", &format!("{threads} threads"), r, &part),
        }
    }
}

#[test]
fn refused_launches_are_typed_errors() {
    let Some(d) = emu() else { return };
    let m = d.load_module(IPM_KERNELS).unwrap();
    assert!(matches!(
        d.kernel(m, "sn_no_such_kernel"),
        Err(DeviceError::UnknownKernel { kernel, .. }) if kernel == "sn_no_such_kernel"
    ));
    let fill = d.kernel(m, "sn_fill").unwrap();
    let mut v = vec![0.0; 4];
    let ptr = v.as_mut_ptr() as u64;
    // SAFETY (all three): refused before the kernel runs.
    let few = unsafe { d.launch(fill, 4, &[KernelArg::I64(4), KernelArg::Ptr(ptr)]) };
    assert!(
        matches!(&few, Err(DeviceError::Launch { kernel, reason, .. })
            if kernel == "sn_fill" && reason.contains("2 arguments given, the kernel takes 3")),
        "{few:?}"
    );
    let wrong = unsafe {
        d.launch(
            fill,
            4,
            &[KernelArg::I64(4), KernelArg::F64(1.0), KernelArg::F64(1.0)],
        )
    };
    assert!(
        matches!(&wrong, Err(DeviceError::Launch { reason, .. }) if reason.contains("argument 1")),
        "{wrong:?}"
    );
    let narrow = unsafe {
        d.launch(
            fill,
            4,
            &[KernelArg::I32(4), KernelArg::Ptr(ptr), KernelArg::F64(1.0)],
        )
    };
    assert!(matches!(narrow, Err(DeviceError::Launch { .. })));
    assert_eq!(v, vec![0.0; 4]);
    assert!(matches!(
        d.kernel(simdnlp_device::ModuleId(999), "sn_fill"),
        Err(DeviceError::UnknownKernel { .. })
    ));
}

#[test]
fn compile_errors_carry_the_log() {
    let Some(d) = emu() else { return };
    let bad = "extern \"C\" __global__ void broken(long long n) { undeclared_name(n); }\n";
    match d.load_module(bad) {
        Err(DeviceError::Compile { log, .. }) => {
            assert!(log.contains("undeclared_name"), "{log}")
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    // more parameters than a launch can pass
    let params: Vec<String> = (0..17).map(|i| format!("double a{i}")).collect();
    let wide = format!(
        "extern \"C\" __global__ void wide({}) {{}}\n",
        params.join(", ")
    );
    match d.load_module(&wide) {
        Err(DeviceError::Compile { log, .. }) => assert!(log.contains("17 parameters"), "{log}"),
        other => panic!("expected a compile error, got {other:?}"),
    }
}

/// A kernel in the shape the CUDA C emitter of `simdnlp-ad` writes (`__device__`
/// helpers, `__restrict__`, early `return`, pointer-to-pointer columns) loads and runs.
#[test]
fn emitter_shaped_kernels_run() {
    let Some(d) = emu() else { return };
    let src = r#"
__device__ static inline double sq(double v) { return v * v; }
extern "C" __global__ void k_value(long long len, const double* __restrict__ x,
    long long nx, const double* const* reals, const long long* const* ints,
    double* __restrict__ out) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= len) return;
  long long j = ints[0][k];
  out[k] = (j < nx ? sq(x[j]) : NAN) + reals[0][k];
}
"#;
    let m = d.load_module(src).unwrap();
    let k = d.kernel(m, "k_value").unwrap();
    let x = [1.0, 2.0, 3.0];
    let col = [0.5, 0.25, 0.125, 1.0];
    let idx: [i64; 4] = [2, 0, 1, 7];
    let reals = [col.as_ptr()];
    let ints = [idx.as_ptr()];
    let mut out = [0.0f64; 4];
    // SAFETY: every column has 4 entries, `x` has 3 and `ints` are checked against it.
    unsafe {
        d.launch(
            k,
            4,
            &[
                KernelArg::I64(4),
                KernelArg::Ptr(x.as_ptr() as u64),
                KernelArg::I64(3),
                KernelArg::Ptr(reals.as_ptr() as u64),
                KernelArg::Ptr(ints.as_ptr() as u64),
                KernelArg::Ptr(out.as_mut_ptr() as u64),
            ],
        )
    }
    .unwrap();
    assert_eq!(&out[..3], &[9.5, 1.25, 4.125]);
    assert!(out[3].is_nan());
}

#[test]
fn a_missing_compiler_is_unavailable() {
    match Emu::with_compiler("/nonexistent/simdnlp-no-such-g++") {
        Err(DeviceError::Unavailable { device, reason }) => {
            assert_eq!(device, "emu");
            assert!(reason.contains("simdnlp-no-such-g++"), "{reason}");
        }
        other => panic!("expected Unavailable, got {:?}", other.map(|_| ())),
    }
}

/// A fresh device compiles the kernels (timed here: every test process using `Emu` pays
/// it once) and leaves no files behind once the library is loaded (a device in a `static`
/// is never dropped).
#[test]
fn a_device_cleans_up_its_directory() {
    if emu().is_none() {
        return;
    }
    let start = Instant::now();
    let fresh = Emu::new().unwrap();
    eprintln!(
        "Emu::new compiled the interior-point kernels in {:.2?}",
        start.elapsed()
    );
    // the loaded module runs without its files
    assert_eq!(fresh.norm_inf(&vec![1.0, -3.0]), 3.0);
    assert!(matches!(
        fresh.load_module("not C++"),
        Err(DeviceError::Compile { .. })
    ));
    let keep = std::env::var_os("SIMDNLP_EMU_KEEP").is_some();
    for m in 0..2 {
        let dir = fresh.module_dir(simdnlp_device::ModuleId(m));
        assert_eq!(dir.exists(), keep, "{}", dir.display());
    }
}

/// Caller bugs panic (as on `Cpu`) instead of reading outside a buffer.
#[test]
#[should_panic(expected = "out of range")]
fn an_index_outside_the_source_panics() {
    let Some(d) = emu() else {
        panic!("out of range (skipped: no g++)")
    };
    let idx = d.index_from_host(&[0, 3]).unwrap();
    let mut dst = vec![0.0; 2];
    d.gather(&mut dst, &vec![1.0; 3], &idx);
}

#[test]
#[should_panic(expected = "differ")]
fn mismatched_lengths_panic() {
    let Some(d) = emu() else {
        panic!("differ (skipped: no g++)")
    };
    let mut y = vec![0.0; 3];
    d.axpy(1.0, &vec![1.0; 2], &mut y);
}

/// Several threads on one device: launches are serialized, results stay exact.
#[test]
fn threads_share_one_device() {
    let Some(d) = emu() else { return };
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            scope.spawn(move || {
                let mut rng = Rng(100 + t);
                for _ in 0..50 {
                    let n = 257 + rng.below(2000);
                    let (x, y) = (rng.vector(n, 0.0), rng.vector(n, 0.0));
                    let (mut c, mut e) = (y.clone(), y.clone());
                    Cpu.axpy(1.5, &x, &mut c);
                    d.axpy(1.5, &x, &mut e);
                    assert_same_vec("axpy", "threads", &c, &e);
                    assert_same("norm_inf", "threads", Cpu.norm_inf(&x), d.norm_inf(&x));
                }
            });
        }
    });
}

/// The same source compiles for a GPU: NVRTC (`libnvrtc`, found through `SIMDNLP_NVRTC`
/// or the loader's search path) turns `kernels/ipm.cu` into PTX with one entry per kernel
/// and no atomics or shared memory. Opt-in: without libnvrtc (CI has none) the test says
/// so and checks nothing.
#[test]
fn ipm_kernels_compile_with_nvrtc() {
    use std::ffi::{CString, c_char, c_int, c_void};
    type Create = unsafe extern "C" fn(
        *mut *mut c_void,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int;
    type Compile = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
    type Size = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
    type Get = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
    type Destroy = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

    let candidates: Vec<std::ffi::OsString> = match std::env::var_os("SIMDNLP_NVRTC") {
        Some(path) => vec![path],
        None => ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
            .map(Into::into)
            .to_vec(),
    };
    // SAFETY: libnvrtc's initialisers only set up the library itself.
    let Some(lib) = candidates
        .iter()
        .find_map(|c| unsafe { libloading::Library::new(c) }.ok())
    else {
        eprintln!("libnvrtc not found (set SIMDNLP_NVRTC to its path); NVRTC check skipped");
        return;
    };
    // SAFETY: the NVRTC C API, with the prototypes of nvrtc.h; every buffer passed is as
    // long as NVRTC said (log and PTX sizes include the terminating zero).
    let (status, log, ptx) = unsafe {
        let create = *lib.get::<Create>(b"nvrtcCreateProgram\0").unwrap();
        let compile = *lib.get::<Compile>(b"nvrtcCompileProgram\0").unwrap();
        let log_size = *lib.get::<Size>(b"nvrtcGetProgramLogSize\0").unwrap();
        let get_log = *lib.get::<Get>(b"nvrtcGetProgramLog\0").unwrap();
        let ptx_size = *lib.get::<Size>(b"nvrtcGetPTXSize\0").unwrap();
        let get_ptx = *lib.get::<Get>(b"nvrtcGetPTX\0").unwrap();
        let destroy = *lib.get::<Destroy>(b"nvrtcDestroyProgram\0").unwrap();
        let source = CString::new(IPM_KERNELS).unwrap();
        let mut prog = std::ptr::null_mut();
        assert_eq!(
            create(
                &mut prog,
                source.as_ptr(),
                c"ipm.cu".as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null()
            ),
            0
        );
        let options = [
            c"--gpu-architecture=compute_90".as_ptr(),
            c"--fmad=false".as_ptr(),
        ];
        let status = compile(prog, options.len() as c_int, options.as_ptr());
        let text = |size: Size, get: Get| {
            let mut n = 0usize;
            assert_eq!(size(prog, &mut n), 0);
            let mut buf = vec![0u8; n.max(1)];
            assert_eq!(get(prog, buf.as_mut_ptr().cast()), 0);
            String::from_utf8_lossy(&buf[..n.saturating_sub(1)]).into_owned()
        };
        let log = text(log_size, get_log);
        let ptx = if status == 0 {
            text(ptx_size, get_ptx)
        } else {
            String::new()
        };
        destroy(&mut prog);
        (status, log, ptx)
    };
    assert_eq!(status, 0, "NVRTC rejected kernels/ipm.cu:\n{log}");
    let kernels = IPM_KERNELS.matches("extern \"C\" __global__ void ").count();
    assert_eq!(
        ptx.matches(".entry ").count(),
        kernels,
        "one PTX entry per kernel"
    );
    assert!(!ptx.contains("atom."), "atomics in the PTX");
    assert!(!ptx.contains(".shared"), "shared memory in the PTX");
}

#[test]
fn word_buffers_carry_column_tables_and_long_long_data() {
    let Some(d) = emu() else { return };
    let src = r#"
extern "C" __global__ void gather_columns(long long n, const double* const* cols,
    const long long* const* ints, double* out) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = cols[0][k] + cols[1][k] * (double)ints[0][k];
}
"#;
    let m = d.load_module(src).unwrap();
    let k = d.kernel(m, "gather_columns").unwrap();
    let a = d.vector_from_host(&[1.0, 2.0, 3.0]).unwrap();
    let b = d.vector_from_host(&[10.0, 20.0, 30.0]).unwrap();
    let table = d
        .words_from_host(&[d.vector_ptr(&a), d.vector_ptr(&b)])
        .unwrap();
    let ints = d.words_from_host(&[(-1i64) as u64, 0, 5]).unwrap();
    let int_table = d.words_from_host(&[d.words_ptr(&ints)]).unwrap();
    assert_eq!(d.words_len(&table), 2);
    let empty = d.words_from_host(&[]).unwrap();
    assert_eq!((d.words_len(&empty), d.words_ptr(&empty)), (0, 0));
    let mut out = d.zeros(3).unwrap();
    // SAFETY: both tables point at live buffers of 3 entries; `out` has 3 entries.
    unsafe {
        d.launch(
            k,
            3,
            &[
                KernelArg::I64(3),
                KernelArg::Ptr(d.words_ptr(&table)),
                KernelArg::Ptr(d.words_ptr(&int_table)),
                KernelArg::Ptr(out.as_mut_ptr() as u64),
            ],
        )
    }
    .unwrap();
    let mut host = [0.0; 3];
    d.to_host(&out, &mut host).unwrap();
    assert_eq!(host, [1.0 - 10.0, 2.0, 3.0 + 150.0]);
    assert_eq!(d.vector_ptr_mut(&mut out), d.vector_ptr(&out));
    let mut none = d.zeros(0).unwrap();
    assert_eq!(d.vector_ptr_mut(&mut none), 0);
}

/// The on-disk module cache on the emulated device: a miss compiles and stores, a hit
/// loads the stored library (no compiler run), a corrupt entry is recompiled and
/// repaired, and a disabled cache neither reads nor writes.
#[test]
fn modules_are_cached_on_disk() {
    use simdnlp_device::{KernelCache, ModuleBuild};
    if emu().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("simdnlp-emu-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = KernelCache::at(&dir);
    let src = r#"
extern "C" __global__ void add_k(long long n, double* v, double k) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) v[i] += k;
}
"#;
    let run = |d: &Emu| {
        let m = d.load_module(src).unwrap();
        let k = d.kernel(m, "add_k").unwrap();
        let mut v = d.vector_from_host(&[1.0, 2.0]).unwrap();
        let ptr = v.as_mut_ptr() as u64;
        // SAFETY: `v` has 2 entries and the arguments match the signature.
        unsafe {
            d.launch(
                k,
                2,
                &[KernelArg::I64(2), KernelArg::Ptr(ptr), KernelArg::F64(0.5)],
            )
        }
        .unwrap();
        assert_eq!(v, [1.5, 2.5]);
    };
    let from_disk = |d: &Emu| {
        d.module_builds()
            .iter()
            .map(|b: &ModuleBuild| b.from_disk)
            .collect::<Vec<_>>()
    };
    // miss: both modules compiled and stored (one entry each)
    let first = Emu::with_cache("g++", cache.clone()).unwrap();
    assert_eq!(first.cache(), &cache);
    run(&first);
    assert_eq!(from_disk(&first), [false, false]);
    let entries = || {
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
    };
    assert_eq!(entries().len(), 2, "{:?}", entries());
    // hit: both from disk, and the kernels run
    let second = Emu::with_cache("g++", cache.clone()).unwrap();
    run(&second);
    assert_eq!(from_disk(&second), [true, true]);
    // a corrupt entry (the small module's, the smaller file): a warning and a recompile
    // that repairs it
    let small = entries()
        .into_iter()
        .min_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let mut bytes = std::fs::read(&small).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&small, &bytes).unwrap();
    let third = Emu::with_cache("g++", cache.clone()).unwrap();
    run(&third);
    assert_eq!(from_disk(&third), [true, false]);
    run(&second); // in-process: the module loaded before stays
    let fourth = Emu::with_cache("g++", cache.clone()).unwrap();
    run(&fourth);
    assert_eq!(from_disk(&fourth), [true, true]);
    // disabled: compiled, nothing read or written
    std::fs::remove_dir_all(&dir).unwrap();
    let off = Emu::with_cache("g++", KernelCache::disabled()).unwrap();
    run(&off);
    assert_eq!(from_disk(&off), [false, false]);
    assert!(!dir.exists());
    // a compiler that cannot be run: unavailable (the cache is not consulted)
    assert!(matches!(
        Emu::with_cache("/nonexistent/simdnlp-no-such-g++", cache),
        Err(DeviceError::Unavailable { .. })
    ));
}

/// Every allocation (`zeros`, `vector_from_host`, `index_from_host`) counts one on the
/// calling thread, as on the CPU device; kernels and transfers into existing vectors none.
#[test]
fn allocations_are_counted_per_thread() {
    let Some(d) = emu() else { return };
    let before = d.allocations_on_this_thread();
    let mut x = d.zeros(4).unwrap();
    let y = d.vector_from_host(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    let _idx = d.index_from_host(&[0, 2]).unwrap();
    assert_eq!(d.allocations_on_this_thread() - before, 3);
    d.axpy(1.0, &y, &mut x);
    d.copy_from_host(&mut x, &[0.0; 4]).unwrap();
    let mut host = [0.0; 4];
    d.to_host(&y, &mut host).unwrap();
    assert_eq!(d.norm_inf(&x), 0.0);
    assert_eq!(d.allocations_on_this_thread() - before, 3);
}
