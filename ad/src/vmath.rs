//! Lane-parallel `exp`, `sin`, `cos` and `sin`+`cos` in `f64`, shared by the interpreter and
//! the JIT-compiled programs.
//!
//! # Method
//!
//! Each function is one straight-line kernel per lane, written without per-lane branches so
//! that LLVM turns [`LANES`] of them into vector instructions:
//!
//! - range reduction by Cody–Waite: the nearest integer `n` of `x / (ln 2/16)` (or
//!   `x / (π/2)`) comes from adding and subtracting `1.5 · 2⁵²` (round to nearest, no
//!   `round()` call), and `x - n c` is computed with the constant `c` split into parts whose
//!   products with `n` are exact, the remainder kept as a double-double `hi + lo` (`sin`,
//!   `cos`; `exp`'s is one double, below). `sin`/`cos` up to 1608 split `π/2` in three
//!   53-bit parts: the first product exact in a fused multiply-add, `lo` from the exact
//!   error of `hi` in two more (5 operations after `n` where the two-sum form took 12,
//!   session 27: see `trig_reduce`);
//! - a polynomial on the reduced argument, fitted to the function (Chebyshev interpolation
//!   in 60-digit arithmetic, coefficients rounded to doubles: fewer terms than the Taylor
//!   series for the same error; `|r| ≤ ln 2 / 32`: terms to `r⁷`; `|r| ≤ π/4`: to `r¹³`
//!   for `sin`, `r¹⁴` for `cos`), error below about 2⁻⁵⁵ relative, evaluated by Horner for
//!   the leading terms and Estrin's scheme for the tail (short dependency chains), the
//!   leading terms added last in double-double;
//! - `exp`: a table of `2^(j/16)` (below); `sin`+`cos`: both polynomials, the quadrant
//!   `n mod 4` selects and flips signs with bit masks; `sin` or `cos` alone: one polynomial per
//!   lane, its coefficients, multiplier and leading terms picked by the quadrant's parity (a
//!   lane select, no branch), the same IEEE operations as the lane's side of `sin`+`cos`, so
//!   bitwise its result (the argument is in `sin_or_cos_kernel`'s docs), about 11 % faster per
//!   point (session 26; the speed does not depend on how the lanes' quadrants mix). One point
//!   alone (the one-point functions, the slices' remainders) still takes both polynomials: in
//!   scalar code the picks become a branch on the parity. The AVX-512F and AVX2 copies
//!   (entry points and slices; `sin_or_cos_lanes_avx512!`, `sin_or_cos_lanes_avx2!`, session
//!   28) branch once per call on the lanes' parities: where every lane reads the same side
//!   (smooth data: neighbouring points in one quadrant), that side runs alone, without picks
//!   and without the other side's operands, bitwise the same (AVX-512 `sin` entry 0.91 →
//!   0.67–0.70 ns per point in `lane_timings` on such calls; calls that mix the readings keep
//!   the picks, at the same speed as before within a few per cent; uniform calls whose
//!   parity changes at random from call to call mispredict the branch: 1.5–1.6 ns). They are
//!   written with intrinsics: LLVM's vectorizer did not form the branch well from the
//!   generic code (see the AVX-512F macro). The baseline copies keep the picks. Before
//!   that branch, a call whose lanes all have `|x| ≤ TRIG_SMALL_MAX` (just below π/4, so
//!   `n = 0`) skips the reduction, bitwise the same (session 28, lead; also `sin_cos`'s
//!   AVX-512F and AVX2 entry points, `sin_cos_lanes_avx512!`): small angles and angle
//!   differences are common.
//!
//! `exp` is table-driven (session 27): `x = (16k + j)·ln 2/16 + r` with `|r| ≤ ln 2/32`,
//! `e^x = 2ᵏ · 2^(j/16) · eʳ`. Each of the 16 entries is `2^(j/16) = hi_j·(1 + tail_j)`, two
//! words ([`EXP_TAIL`], [`EXP_HIGH`]; generated in 60-digit arithmetic by
//! `ad/scripts/exp_table.py`, checked by a test); `s = 2ᵏ·hi_j` is one integer add of the
//! reduction's bits to the entry's (exact: only normal results take this path), and
//! `e^x ≈ s + s·(r + (tail_j + r²Q(r)))` with `Q` of degree 5 ends in one fused multiply-add
//! (error before that rounding below 2⁻⁵⁷·², so about 0.55 ulp at most; 0.49 % of the results 1
//! ulp from glibc over `[-708, 709]`, 1.53 % with the degree-10 polynomial on `|r| ≤ ln 2/2`
//! before). With AVX-512 that is 19 packed operations per 8 points, the range compares included
//! (30 before), two of them `vpermt2q` that look the table up (each word's 16 entries in two
//! `zmm` registers); the AVX2 copies look it up by four `vpermd` and three blends per word and
//! four lanes. LLVM's vectorizer forms neither lookup (it loads and inserts lane by lane:
//! slower than the old polynomial), so the AVX2 and AVX-512F copies of the 8-lane `exp` are
//! written with intrinsics (`exp_lanes_avx2!`, `exp_lanes_avx512!`): the same IEEE operations
//! as `exp_n`, which the baseline copies, the one-point function and the slices' remainders run
//! (the table by loads). Per point (`lane_timings`): the AVX-512 lane function 0.75–0.82 →
//! 0.50–0.55 ns, the slice 0.47–0.48 → 0.31–0.32, one point 3.8 → 2.8–2.9; the AVX2 entry point
//! 1.21–1.24 → 1.29–1.32 (the lookup costs more than the shorter polynomial saves there).
//!
//! Inputs the fast path does not cover — NaN, ±∞, `exp` arguments outside `[-708, 709]`
//! (overflow, subnormal results, underflow), `|x| > 1608 ≈ 1024 π/2` for `sin`/`cos` —
//! are found by a lane mask; only when one lane has one, those lanes (and only those) are
//! recomputed one by one: `sin`/`cos` up to `823 549 ≈ 2¹⁹ π/2` with the same kernel and a
//! longer (full) reduction, the rest with the platform's libm (`f64::exp`, `f64::sin`,
//! `f64::cos`). `sin(±0)` and tiny arguments (`|x| < 2⁻²⁷`) return `x` (and `cos` 1) by a
//! lane select.
//!
//! # Accuracy and reproducibility
//!
//! Results are within 1 ulp of the platform libm (which is within about half an ulp of the
//! exact value): the tests sweep each domain densely and at random, including subnormals,
//! ±0, NaN, ±∞ and the doubles nearest to multiples of π/2 up to the reduction limit, and
//! measure the largest difference (`exp`, `sin`, `cos`: 1 ulp; most results are equal).
//!
//! Every lane runs the same IEEE operations whatever the vector width, among them fused
//! multiply-adds written out as `f64::mul_add` (the reductions' `x·(1/c) + MAGIC` and `x - n·c`,
//! every Horner and Estrin step, the final `M·P + B` of each result; session 26, about 25 %
//! faster `exp`, 11–19 % faster `sin`/`cos`): IEEE 754's `fusedMultiplyAdd`, `a·b + c`
//! rounded once, which every implementation computes to the same bits. Nothing else is
//! fused (Rust never contracts `a * b + c` on its own). So the one-point functions
//! ([`exp`], [`sin`], [`cos`], [`sin_cos`]), the [`LANES`]-point functions, the slice
//! functions and the JIT's entry points are bitwise identical — on every machine:
//!
//! - x86-64: the AVX2 and AVX-512F copies (slices and entry points) are compiled with
//!   `target_feature(enable = "avx2,fma")` / `"avx512f,fma"` (packed `vfmadd…pd`) and
//!   chosen once at run time only when the CPU has FMA too; the one-point functions have an
//!   FMA copy (`enable = "fma"`, scalar `vfmadd…sd`) chosen per call by the cached feature
//!   test (the AVX-512F copies only with a compiler that accepts that target feature, Rust
//!   1.89 or newer: `cfg(vmath_avx512)`, set by `build.rs`). The baseline copies, taken on
//!   x86-64 CPUs without FMA (those predate 2013: Intel before Haswell, AMD before
//!   Piledriver), call the correctly rounded `fma` (compiler-builtins' libm: the
//!   instruction where the CPU has it, software otherwise) for every fused operation: the
//!   same bits, about 5–10× slower (`lane_timings`' baseline rows: the `exp` slice 25 ns per
//!   point against 2.5 for the unfused SSE2 code before).
//! - aarch64 (and other targets whose baseline has a fused multiply-add): `mul_add` is one
//!   instruction in every copy; targets without one call libm's `fma` (same bits).
//! - the device: [`c_source`] writes C's `fma()` at the same places (CUDA's `fma` is the
//!   correctly rounded double instruction, glibc's `fma` for the emulated device), so the
//!   device's `exp`/`sin`/`cos` stay bitwise the CPU's.

/// Points per call of the lane functions (and per iteration of the JIT-compiled loops).
pub(crate) const LANES: usize = 8;

/// `1.5 · 2⁵²`: `(v + MAGIC) - MAGIC` rounds `v` (|v| < 2⁵¹) to the nearest integer, and the
/// low bits of `v + MAGIC` are that integer in two's complement.
const MAGIC: f64 = 6755399441055744.0;

/// `16 / ln 2` (`EXP_TABLE_LEN / ln 2`)
const N_OVER_LN2: f64 = f64::from_bits(0x4037_1547_652b_82fe);
/// `ln 2 / 16` rounded to a double: `x - n·LN2_OVER_N_HI` is exact for every `x` of the fast
/// path (the exact product's ulp is 2⁻⁵⁷ or finer, the difference below 2⁻⁵)
const LN2_OVER_N_HI: f64 = f64::from_bits(0x3fa6_2e42_fefa_39ef);
/// `ln 2 / 16 - LN2_OVER_N_HI` rounded to a double
const LN2_OVER_N_LO: f64 = f64::from_bits(0x3c3a_bc9e_3b39_803f);
/// log₂ of [`EXP_TABLE_LEN`]
const EXP_TABLE_BITS: u32 = 4;
/// entries of `exp`'s table ([`EXP_TAIL`], [`EXP_HIGH`]): `exp` reduces to
/// `|r| ≤ ln 2 / 32`; 16 entries are two AVX-512 registers per word, so the AVX-512 copies
/// look them up with one two-register permute each (`vpermt2q`), no gather
const EXP_TABLE_LEN: u64 = 1 << EXP_TABLE_BITS;
/// smallest argument of `exp`'s fast path (`e⁻⁷⁰⁸` is normal; `2ⁿ` stays normal)
const EXP_MIN: f64 = -708.0;
/// largest argument of `exp`'s fast path (`e⁷⁰⁹ · 2⁻ⁿ ≤ √2`, `n ≤ 1023`)
const EXP_MAX: f64 = 709.0;

const TWO_OVER_PI: f64 = f64::from_bits(0x3fe4_5f30_6dc9_c883);
/// `π/2` to 33 bits, then the next 33 bits twice, then 53 bits (`n · PIO2_{1,2,3}` are exact
/// for `|n| < 2²⁰`)
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
const PIO2_3: f64 = f64::from_bits(0x3ba3_198a_2e00_0000);
const PIO2_4: f64 = f64::from_bits(0x397b_839a_2520_49c1);
/// `π/2` in three doubles for the short reduction: `HALF_PI_HI` rounded to 53 bits, then
/// the next 53 bits twice (`π/2 − HALF_PI_HI − HALF_PI_MID − HALF_PI_LO` is about 2⁻¹⁶¹)
const HALF_PI_HI: f64 = f64::from_bits(0x3ff9_21fb_5444_2d18);
const HALF_PI_MID: f64 = f64::from_bits(0x3c91_a626_3314_5c07);
const HALF_PI_LO: f64 = f64::from_bits(0xb91f_1976_b7ed_8fbc);
/// largest `|x|` of the `sin`/`cos` fast path (`≈ 2¹⁹ π/2`, so `|n| ≤ 2¹⁹`)
const TRIG_MAX: f64 = 823_549.0;
/// largest `|x|` of the short reduction (`≈ 1024 π/2`, so `|n| ≤ 1024`); larger arguments up
/// to [`TRIG_MAX`] take the full one, lane by lane
const TRIG_SHORT_MAX: f64 = 1608.0;
/// below this `sin x = x` and `cos x = 1` after rounding
const TRIG_TINY: f64 = 7.450580596923828e-9; // 2⁻²⁷
/// largest `|x|` of the AVX-512F and AVX2 copies' small-argument path (just below π/4):
/// `|x|·2/π ≤ 0.49975 < 1/2`, so the reduction's `n` is 0 in every lane and the call can
/// skip it (`sin_or_cos_lanes_avx512!`)
const TRIG_SMALL_MAX: f64 = 0.785;

// Polynomial coefficients: the minimax-like fits (Chebyshev interpolation in 60-digit
// arithmetic, rounded to doubles) of the functions named below; the error of each rounded
// polynomial, weighted by its share of the result, is below 2⁻⁵⁵ relative (well inside
// the 1-ulp bound the tests check against libm).

/// `S(z) ≈ (sin r − r) / r³` on `z = r² ≤ (π/4)²`, degree 5 (`S(0) = −1/6`).
const SIN_S: [f64; 6] = [
    f64::from_bits(0xbfc5_5555_5555_5555),
    f64::from_bits(0x3f81_1111_1111_0bb2),
    f64::from_bits(0xbf2a_01a0_19e8_3aa2),
    f64::from_bits(0x3ec7_1de3_7968_9090),
    f64::from_bits(0xbe5a_e600_b01a_40cc),
    f64::from_bits(0x3de5_e0b1_995f_429a),
];
/// `C(z) ≈ (cos r − 1 + z/2) / z²` on `z = r² ≤ (π/4)²`, degree 5 (`C(0) = 1/24`).
const COS_C: [f64; 6] = [
    f64::from_bits(0x3fa5_5555_5555_5555),
    f64::from_bits(0xbf56_c16c_16c1_6967),
    f64::from_bits(0x3efa_01a0_19f4_eafa),
    f64::from_bits(0xbe92_7e4f_a17d_9864),
    f64::from_bits(0x3e21_eeb6_8e8b_2372),
    f64::from_bits(0xbda9_07da_304c_e77b),
];
/// `Q(r) ≈ (eʳ − 1 − r) / r²` on `|r| ≤ ln 2 / 32`, degree 5 (`Q(0) = 1/2`; the error of
/// the rounded `r²Q(r)` is below 2⁻⁶⁴ relative to `eʳ`). Generated with the table by
/// `ad/scripts/exp_table.py`.
const EXP_Q: [f64; 6] = [
    f64::from_bits(0x3fe0_0000_0000_0001),
    f64::from_bits(0x3fc5_5555_5555_5556),
    f64::from_bits(0x3fa5_5555_554e_9468),
    f64::from_bits(0x3f81_1111_110e_10a8),
    f64::from_bits(0x3f56_c17e_d4cc_4834),
    f64::from_bits(0x3f2a_01b0_c2ed_ab7c),
];

// `2^(j/16) = hi_j·(1 + tail_j)` for `j = 0..16` (to 2⁻¹⁰⁷ relative): `hi_j` the double
// nearest to `2^(j/16)`, `tail_j` the double nearest to `(2^(j/16) − hi_j) / hi_j` (below
// 2⁻⁵³). Generated (60-digit arithmetic) by `ad/scripts/exp_table.py`;
// `exp_table_is_two_to_the_j_over_16` checks it.

/// The bits of `tail_j`.
static EXP_TAIL: [u64; EXP_TABLE_LEN as usize] = [
    0x0000_0000_0000_0000,
    0x3c97_9aa6_5d83_7b6d,
    0xbc80_1b15_eaa5_9348,
    0x3c96_8efd_e3a8_a894,
    0x3c83_4d75_4db0_abb6,
    0x3c85_9f48_a72a_4c6d,
    0x3c76_90ce_bb7a_afb0,
    0x3c90_63e1_e21c_5409,
    0xbc93_b3ef_bf5e_2228,
    0xbc7b_32dc_b94d_a51d,
    0x3c8d_b72f_c1f0_eab4,
    0x3c71_affc_2b91_ce27,
    0x3c8c_1a77_92cb_3387,
    0x3c73_6eae_30af_0cb3,
    0x3c74_a385_a63d_07a7,
    0xbc8f_f712_8fd3_91f0,
];
/// The bits of `hi_j` minus `j << 48`: adding the reduction's `n << 48` (`n = 16k + j`)
/// gives the bits of `2ᵏ·hi_j` with one integer add (`k` in the exponent field, `j << 48`
/// cancelled).
static EXP_HIGH: [u64; EXP_TABLE_LEN as usize] = [
    0x3ff0_0000_0000_0000,
    0x3fef_b558_6cf9_890f,
    0x3fef_72b8_3c7d_517b,
    0x3fef_387a_6e75_6238,
    0x3fef_06fe_0a31_b715,
    0x3fee_dea6_4c12_3422,
    0x3fee_bfda_d536_2a27,
    0x3fee_ab07_dd48_5429,
    0x3fee_a09e_667f_3bcd,
    0x3fee_a114_73eb_0187,
    0x3fee_ace5_422a_a0db,
    0x3fee_c491_82a3_f090,
    0x3fee_e89f_995a_d3ad,
    0x3fef_199b_dd85_529c,
    0x3fef_5818_dcfb_a487,
    0x3fef_a4af_a2a4_90da,
];

/// `a + b` as the rounded sum and its exact error (Knuth's two-sum; no ordering needed).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `exp`'s reduction for `x` in `[EXP_MIN, EXP_MAX]`: `x = n·ln 2/16 + r` with `n = 16k + j`
/// the integer nearest to `x·16/ln 2` and `|r| ≤ ln 2/32` (up to rounding); returns `r` and
/// the bits of `x·16/ln 2 + MAGIC` (their low bits are `n` in two's complement, so `j` is
/// the low four).
#[inline(always)]
fn exp_reduce(x: f64) -> (f64, u64) {
    let t = x.mul_add(N_OVER_LN2, MAGIC);
    let n = t - MAGIC;
    // the first step is exact, the second rounds once (relative error of r below 2⁻⁵⁴)
    let r = (-n).mul_add(LN2_OVER_N_LO, (-n).mul_add(LN2_OVER_N_HI, x));
    (r, t.to_bits())
}

/// The index of `exp`'s table entry for the reduction's bits `t_bits`: `j = n mod 16`.
#[inline(always)]
fn exp_index(t_bits: u64) -> usize {
    (t_bits & (EXP_TABLE_LEN - 1)) as usize
}

/// `e^x` from [`exp_reduce`]'s `r` and `t_bits` and the table entry `j`'s bits `tail`
/// (`EXP_TAIL[j]`) and `high` (`EXP_HIGH[j]`).
///
/// `e^x = 2ᵏ·hi_j·(1 + tail_j)·eʳ ≈ s + s·v` with `s = 2ᵏ·hi_j` (from the bits, exact: only
/// normal results take this path) and `v = r + (tail_j + r²Q(r))`, one fused multiply-add at
/// the end. Dropped or rounded before that final rounding, relative to `e^x`: the term
/// `tail_j·(eʳ − 1)` and the rounding of `v` (each below 2⁻⁵⁸·⁵), the rounding of `r`
/// (2⁻⁵⁹·⁵), `Q`'s fit (2⁻⁶⁴): below 2⁻⁵⁷·², so at most about 0.555 ulp from `e^x`.
#[inline(always)]
fn exp_finish(r: f64, t_bits: u64, tail: u64, high: u64) -> f64 {
    // n << 48 is k << 52 plus j << 48, which `high` has subtracted (wrapping: the high bits
    // of t and the sign of n shift out of the word)
    let scale = f64::from_bits(high.wrapping_add(t_bits << (52 - EXP_TABLE_BITS)));
    // Q(r) = (q0 + q1·r) + r²·((q2 + q3·r) + r²·(q4 + q5·r)): short chains
    let [q0, q1, q2, q3, q4, q5] = EXP_Q;
    let r2 = r * r;
    let q = q5
        .mul_add(r, q4)
        .mul_add(r2, q3.mul_add(r, q2))
        .mul_add(r2, q1.mul_add(r, q0));
    let v = r + r2.mul_add(q, f64::from_bits(tail));
    scale.mul_add(v, scale)
}

/// The reduced argument of `x` and its quadrant: `x - n π/2` as `hi + lo` (`|hi| ≤ π/4`
/// up to rounding) and `n mod 4`, for `|x| ≤ TRIG_SHORT_MAX` (`SHORT`) or `|x| ≤ TRIG_MAX`.
///
/// The short reduction (`|n| ≤ 1024`; session 27, 5 floating-point operations after `n`
/// where the two-sum form took 12) splits π/2 into three 53-bit doubles:
///
/// - `a = x − n·HALF_PI_HI` (one fused multiply-add) is exact: for `n ≠ 0`, `|x| > π/4`, so
///   `x` and `n·HALF_PI_HI` are multiples of 2⁻⁵³, and `|a| < 1` needs at most 53 bits;
/// - `hi = a − p` with `p = n·HALF_PI_MID` rounded (`|p| < 2⁻⁴³`), and `a − hi` is exact:
///   where `|a| ≥ |p|` by Dekker's fast two-sum; else `a` (a multiple of 2⁻⁵³) is a
///   multiple of `ulp(p)` (at most 2⁻⁹⁶), so are `hi` and `hi − a`, and `|hi − a|` stays
///   below twice `p`'s binade;
/// - `lo = fma(−n, HALF_PI_LO, fma(−n, HALF_PI_MID, a − hi))`: the inner step is the exact
///   error of `hi` against `a − n·HALF_PI_MID` (not just `a − p`), rounded once, and the
///   outer adds the third part of π/2.
///
/// So `hi + lo` is off by two roundings of terms below `ulp(hi)/2 + 2⁻⁹⁷` and by
/// `n·(π/2 − HALF_PI_HI − HALF_PI_MID − HALF_PI_LO)` (2⁻¹⁵¹): at most about 2⁻¹⁰⁵·|hi| +
/// 2⁻¹⁴⁸ absolute, 2⁻⁸⁷ relative where `x − nπ/2` is smallest (no double `|x| ≤
/// TRIG_SHORT_MAX` is nearer than 2⁻⁶⁰·⁴⁹ to a multiple of π/2, the nearest being at
/// `29 π/2`). Simulated in IEEE doubles (exact fused multiply-adds) against 100-digit values
/// at the doubles nearest to every `k π/2`, `k ≤ 1100` (three either side) and 40 000 random
/// points: the exactness of both steps holds at every point, relative error at most
/// 2⁻⁹⁵·⁶ (at `29 π/2`; the two-sum form before reached 2⁻⁵⁶·⁶). `lo` is not normalized
/// against `hi`: `|lo| ≤ 2⁻⁵³|hi| + 2⁻⁹⁶`, so `|lo|` exceeds `ulp(hi)` only where `|hi| <
/// 2⁻⁴³` (at `29 π/2`, `|lo| = 2⁻⁴²·⁴|hi|`), where the kernels' `z = hi²` terms are below
/// 2⁻⁸⁶ of their results; `lo` itself enters only in first-order terms (`lo·w`, `−hi·lo`).
///
/// The full reduction (`|n| < 2²⁰`, lane by lane out of line) keeps the 33-bit split:
/// `n·PIO2_1..3` are exact, `x - n·PIO2_1` is exact (Sterbenz), and `hi + lo` comes from two
/// two-sums with `n·PIO2_2` and `n·PIO2_3` plus the `n·PIO2_4` tail and a fast two-sum
/// (relative error below 2⁻⁹⁵ in the same kind of simulation). The steps `x·(2/π) + MAGIC`,
/// `x - n·PIO2_1` and the tail's `- n·PIO2_4` are fused multiply-adds.
#[inline(always)]
fn trig_reduce<const SHORT: bool>(x: f64) -> (f64, f64, u64) {
    let t = x.mul_add(TWO_OVER_PI, MAGIC);
    let n = t - MAGIC;
    let quadrant = t.to_bits() & 3;
    let (hi, lo) = if SHORT {
        let a = (-n).mul_add(HALF_PI_HI, x);
        let hi = a - n * HALF_PI_MID;
        let lo = (-n).mul_add(HALF_PI_LO, (-n).mul_add(HALF_PI_MID, a - hi));
        (hi, lo)
    } else {
        let a = (-n).mul_add(PIO2_1, x);
        let (s1, e1) = two_sum(a, -(n * PIO2_2));
        let (s2, e2) = two_sum(s1, -(n * PIO2_3));
        let tail = (-n).mul_add(PIO2_4, e1 + e2);
        let hi = s2 + tail;
        (hi, tail - (hi - s2))
    };
    (hi, lo, quadrant)
}

/// `S(z)` or `C(z)` (`SIN_S` or `COS_C` as `k`) at `z` with `z2 = z²`: Horner for the
/// leading terms, Estrin's scheme for the tail.
#[inline(always)]
fn trig_poly(k: [f64; 6], z: f64, z2: f64) -> f64 {
    let [k0, k1, k2, k3, k4, k5] = k;
    let tail = k5.mul_add(z, k4).mul_add(z2, k3.mul_add(z, k2));
    z.mul_add(z.mul_add(tail, k1), k0)
}

/// The result of `sin`/`cos` at `x` from the bits `v` of the kernel's result: `tiny_value`
/// (`x` for `sin`, 1 for `cos`) where `|x| < TRIG_TINY`, else `v` (a bit mask, no branch).
#[inline(always)]
fn trig_finish(x: f64, v: u64, tiny_value: f64) -> f64 {
    let tiny = 0u64.wrapping_sub(u64::from(x.abs() < TRIG_TINY));
    f64::from_bits((v & !tiny) | (tiny_value.to_bits() & tiny))
}

/// `(sin x, cos x)` for `|x| ≤ TRIG_SHORT_MAX` (`SHORT`) or `|x| ≤ TRIG_MAX`: both
/// polynomials, the quadrant selects (reduction: [`trig_reduce`]).
#[inline(always)]
fn sin_cos_kernel<const SHORT: bool>(x: f64) -> (f64, f64) {
    let (hi, lo, quadrant) = trig_reduce::<SHORT>(x);
    let z = hi * hi;
    // sin(hi + lo) ≈ hi + hi z S(z) + lo (1 - z/2)
    // S(z) ≈ (sin r − r)/r³, C(z) ≈ (cos r − 1 + z/2)/z² (`SIN_S`, `COS_C`)
    let z2 = z * z;
    let s_poly = trig_poly(SIN_S, z, z2);
    let sin_r = hi + (hi * z).mul_add(s_poly, lo * (1.0 - 0.5 * z));
    // cos(hi + lo) ≈ (1 - z/2) + z² C(z) - hi lo, with 1 - z/2 in double-double
    let c_poly = trig_poly(COS_C, z, z2);
    let half_z = 0.5 * z;
    let w = 1.0 - half_z;
    let cos_r = w + (((1.0 - w) - half_z) + z2.mul_add(c_poly, -(hi * lo)));
    // quadrant q: sin x = (sin r, cos r, -sin r, -cos r)[q], cos x = sin(x + π/2);
    // selects and sign flips as bit masks (no per-lane branch)
    let swap = 0u64.wrapping_sub(quadrant & 1);
    let (sin_bits, cos_bits) = (sin_r.to_bits(), cos_r.to_bits());
    let sin_x = (sin_bits & !swap) | (cos_bits & swap);
    let cos_x = (cos_bits & !swap) | (sin_bits & swap);
    let sin_x = sin_x ^ ((quadrant & 2) << 62);
    let cos_x = cos_x ^ ((quadrant.wrapping_add(1) & 2) << 62);
    (trig_finish(x, sin_x, x), trig_finish(x, cos_x, 1.0))
}

/// `sin x` (`COS` false) or `cos x` (`COS` true) for `|x| ≤ TRIG_SHORT_MAX`, bitwise the
/// result of [`sin_cos_kernel::<true>`], with one polynomial per lane.
///
/// `cos x = sin(x + π/2)`: with `q = n + COS (mod 4)`, the lane reads `cos r` when `q` is
/// odd, `sin r` when even, and flips the sign when `q & 2`. Both readings are written as
/// `L + (A + fma(M, P, lo·F))` and each lane picks its operands (bit masks, no branch):
///
/// | | `L` | `A` | `M` | `P` | `F` |
/// |---|---|---|---|---|---|
/// | `sin r` | `hi` | `-0` | `hi·z` | `S(z)` | `w = 1 - z/2` |
/// | `cos r` | `w` | `(1 - w) - z/2` | `z²` | `C(z)` | `-hi` |
///
/// The operations are those of [`sin_cos_kernel`] on the lane's side: `S` and `C` share
/// [`trig_poly`] (the coefficients picked); `1.0 - 0.5 * z` there is `w` here (the same two
/// operations); `-0 + v = v` for every `v` in round-to-nearest (`-0 + +0 = +0`,
/// `-0 + -0 = -0`, nonzero and NaN `v` unchanged), so `A` adds nothing on the `sin r` side;
/// and `fma(z², C, lo·(-hi))` is `fma(z², C, -(hi·lo))` (the rounded product is odd in each
/// factor and commutative).
///
/// The AVX-512F and AVX2 copies run the same operations as intrinsics
/// (`sin_or_cos_lanes_avx512!`, `sin_or_cos_lanes_avx2!`), and where all lanes of a call
/// read one side, that side alone (the picks constant: the `sin r` side drops `-0 + v`,
/// which is `v`).
#[inline(always)]
fn sin_or_cos_kernel<const COS: bool>(x: f64) -> f64 {
    let (hi, lo, quadrant) = trig_reduce::<true>(x);
    let q = quadrant.wrapping_add(u64::from(COS));
    // a select, not bit masks: one masked blend per pick with AVX-512 (`vblendmpd`), one
    // `vblendvpd` with AVX2, where the masks take three logic operations
    let reads_cos = q & 1 != 0;
    let pick = |s: f64, c: f64| if reads_cos { c } else { s };
    let z = hi * hi;
    let z2 = z * z;
    let k = std::array::from_fn(|i| pick(SIN_S[i], COS_C[i]));
    let poly = trig_poly(k, z, z2);
    let half_z = 0.5 * z;
    let w = 1.0 - half_z;
    let lead = pick(hi, w);
    let head_err = pick(-0.0, (1.0 - w) - half_z);
    let scale = pick(hi * z, z2);
    let lo_factor = pick(w, -hi);
    let r = lead + (head_err + scale.mul_add(poly, lo * lo_factor));
    let v = r.to_bits() ^ ((q & 2) << 62);
    trig_finish(x, v, if COS { 1.0 } else { x })
}

/// Whether `exp`'s fast path ([`exp_reduce`], [`exp_finish`]) covers `x` (false for NaN;
/// `&`, not `&&`: no branch).
#[inline(always)]
#[allow(clippy::manual_range_contains)] // `contains` short-circuits: a branch per lane
fn exp_fast(x: f64) -> bool {
    (x >= EXP_MIN) & (x <= EXP_MAX)
}

/// Whether `sin_cos_kernel::<false>` covers `x` (false for NaN and ±∞).
#[inline(always)]
fn trig_fast(x: f64) -> bool {
    x.abs() <= TRIG_MAX
}

/// Whether `sin_cos_kernel::<true>` covers `x` (false for NaN and ±∞).
#[inline(always)]
fn trig_short(x: f64) -> bool {
    x.abs() <= TRIG_SHORT_MAX
}

/// `(sin x, cos x)` for an `x` outside the short reduction's range: the full reduction, or
/// libm outside `TRIG_MAX`, NaN and ±∞ (one lane; out of line, the lane loops stay short).
/// Called from every copy, so it picks its own FMA copy on x86-64 (else each fused step
/// would be a libm call on CPUs that have FMA).
#[cold]
#[inline(never)]
fn sin_cos_wide(x: f64) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just above), the only requirement of calling a
        // function compiled with `target_feature(enable = "fma")`.
        return unsafe { sin_cos_wide_fma(x) };
    }
    sin_cos_wide_kernel(x)
}

/// [`sin_cos_wide`]'s work (inlined into its two copies).
#[inline(always)]
fn sin_cos_wide_kernel(x: f64) -> (f64, f64) {
    if trig_fast(x) {
        sin_cos_kernel::<false>(x)
    } else {
        x.sin_cos()
    }
}

/// [`sin_cos_wide`] compiled with FMA.
///
/// # Safety
///
/// The CPU has FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn sin_cos_wide_fma(x: f64) -> (f64, f64) {
    sin_cos_wide_kernel(x)
}

/// `e^x` for an `x` outside the fast path's range (NaN, overflow, subnormal results,
/// underflow): libm's (one lane; out of line, like [`sin_cos_wide`]). Out of line also
/// keeps LLVM's loop vectorizer off the slices' chunk loop: `f64::exp` inline is an
/// intrinsic it widens, and with the fused kernels it then vectorized across chunks (eight
/// chunks' lane `l` by gathers and scatters, every special lane's fallback a scalarized
/// call) instead of across the lanes: 4–5 ns per point for the AVX-512 `exp` slice against
/// 0.5 with this opaque call.
#[cold]
#[inline(never)]
fn exp_outside(x: f64) -> f64 {
    x.exp()
}

/// `e^x` for `x` in `[EXP_MIN, EXP_MAX]` ([`exp_reduce`], the table by loads, [`exp_finish`]).
#[inline(always)]
fn exp_kernel(x: f64) -> f64 {
    let (r, t_bits) = exp_reduce(x);
    let j = exp_index(t_bits);
    exp_finish(r, t_bits, EXP_TAIL[j], EXP_HIGH[j])
}

/// `e^x` lane by lane.
#[inline(always)]
fn exp_n<const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    let mut special = false;
    for l in 0..N {
        let fast = exp_fast(x[l]);
        special |= !fast;
        out[l] = exp_kernel(if fast { x[l] } else { 0.0 });
    }
    if special {
        exp_special(x, out);
    }
}

/// The lanes of `x` outside `exp`'s fast path: [`exp_outside`] (the rest of `exp_n`).
#[inline(always)]
fn exp_special<const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    for l in 0..N {
        if !exp_fast(x[l]) {
            out[l] = exp_outside(x[l]);
        }
    }
}

/// `e^x` for the [`LANES`] points `x: &[f64; LANES]` into `out: &mut [f64; LANES]` in the
/// AVX-512F copies, bitwise [`exp_n`]: the same IEEE operations written as AVX-512F
/// intrinsics (`fma(-n, c, x)` as `fnmadd(n, c, x)`, the same rounding of the same exact
/// value), so that the table lookups are two-register permutes (`vpermt2q`: each 16-word
/// table in two `zmm` registers, the index's low four bits) and not eight loads and inserts
/// (LLVM's vectorizer does not form those). A macro, expanded in the functions compiled
/// with `target_feature(enable = "avx512f,fma")` (where the intrinsics are safe to call): a
/// function with that attribute cannot be `inline(always)`, and LLVM did not inline one
/// into the JIT's entry point (a call, the points through the stack).
#[cfg(all(target_arch = "x86_64", vmath_avx512))]
macro_rules! exp_lanes_avx512 {
    ($x:expr, $out:expr) => {{
        let (x, out): (&[f64; LANES], &mut [f64; LANES]) = ($x, $out);
        // the AVX-512F intrinsics are stable since Rust 1.89, the only compilers that build
        // this (`cfg(vmath_avx512)`, set by `build.rs`)
        #[allow(clippy::incompatible_msrv)]
        let (e, fast) = {
            use std::arch::x86_64::{
                __m512d, __m512i, _CMP_GE_OQ, _CMP_LE_OQ, _mm512_add_epi64, _mm512_add_pd,
                _mm512_castpd_si512, _mm512_castsi512_pd, _mm512_cmp_pd_mask, _mm512_fmadd_pd,
                _mm512_fnmadd_pd, _mm512_maskz_mov_pd, _mm512_mul_pd, _mm512_permutex2var_epi64,
                _mm512_set1_pd, _mm512_slli_epi64, _mm512_sub_pd,
            };
            let c = |v: f64| _mm512_set1_pd(v);
            // SAFETY (the transmutes): `__m512d` and `__m512i` are 64 bytes, eight lanes in memory
            // order (lane 0 first), as `[f64; 8]` and `[u64; 8]`; `[u64; 16]` is two of them; every
            // bit pattern is valid for each.
            let xv = unsafe { std::mem::transmute::<[f64; LANES], __m512d>(*x) };
            let [tail_lo, tail_hi] =
                unsafe { std::mem::transmute::<[u64; 16], [__m512i; 2]>(EXP_TAIL) };
            let [high_lo, high_hi] =
                unsafe { std::mem::transmute::<[u64; 16], [__m512i; 2]>(EXP_HIGH) };
            // exp_fast: both comparisons false for NaN; other lanes computed at +0 (`exp_n`)
            let fast = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(xv, c(EXP_MIN))
                & _mm512_cmp_pd_mask::<_CMP_LE_OQ>(xv, c(EXP_MAX));
            let xf = _mm512_maskz_mov_pd(fast, xv);
            // exp_reduce
            let t = _mm512_fmadd_pd(xf, c(N_OVER_LN2), c(MAGIC));
            let n = _mm512_sub_pd(t, c(MAGIC));
            let r = _mm512_fnmadd_pd(
                n,
                c(LN2_OVER_N_LO),
                _mm512_fnmadd_pd(n, c(LN2_OVER_N_HI), xf),
            );
            let t_bits = _mm512_castpd_si512(t);
            // the table: vpermt2q reads the low four bits of each index (`exp_index`)
            let tail = _mm512_castsi512_pd(_mm512_permutex2var_epi64(tail_lo, t_bits, tail_hi));
            let high = _mm512_permutex2var_epi64(high_lo, t_bits, high_hi);
            // exp_finish
            let scale = _mm512_castsi512_pd(_mm512_add_epi64(
                high,
                _mm512_slli_epi64::<{ 52 - EXP_TABLE_BITS }>(t_bits),
            ));
            let [q0, q1, q2, q3, q4, q5] = EXP_Q.map(c);
            let r2 = _mm512_mul_pd(r, r);
            let q = _mm512_fmadd_pd(
                _mm512_fmadd_pd(_mm512_fmadd_pd(q5, r, q4), r2, _mm512_fmadd_pd(q3, r, q2)),
                r2,
                _mm512_fmadd_pd(q1, r, q0),
            );
            let v = _mm512_add_pd(r, _mm512_fmadd_pd(r2, q, tail));
            let e = _mm512_fmadd_pd(scale, v, scale);
            // SAFETY: as above
            (
                unsafe { std::mem::transmute::<__m512d, [f64; LANES]>(e) },
                fast,
            )
        };
        *out = e;
        if fast != 0xff {
            exp_special(x, out);
        }
    }};
}

/// `e^x` for the [`LANES`] points `x: &[f64; LANES]` into `out: &mut [f64; LANES]` in the
/// AVX2 copies, bitwise [`exp_n`]: as [`exp_lanes_avx512`] in two four-lane halves, each
/// table in four `ymm` registers, looked up by four in-register permutes and three blends
/// (LLVM's eight loads and inserts made the AVX2 entry point 1.8 ns per point against 1.2
/// with the degree-10 polynomial before; these lookups 1.3, AVX2's gathers, `vpgatherqq`,
/// the same on Zen 4, but they are slow on Intel CPUs since the Downfall microcode).
#[cfg(target_arch = "x86_64")]
macro_rules! exp_lanes_avx2 {
    ($x:expr, $out:expr) => {{
        let (x, out): (&[f64; LANES], &mut [f64; LANES]) = ($x, $out);
        // SAFETY: the intrinsics need AVX2 and FMA, which every function that expands this
        // macro is compiled with (`target_feature(enable = "avx2,fma")`; Rust before 1.86
        // declares them unsafe, later ones safe there); the transmutes: `__m256d` and
        // `__m256i` are 32 bytes, four `f64` or `u64` lanes in memory order (lane 0 first), so
        // two of them are `[f64; 8]` and four are `[u64; 16]`; every bit pattern is valid for
        // each.
        let (e, all_fast) = unsafe {
            use std::arch::x86_64::{
                __m256d, __m256i, _CMP_GE_OQ, _CMP_LE_OQ, _mm256_add_epi32, _mm256_add_epi64,
                _mm256_add_pd, _mm256_and_pd, _mm256_blendv_pd, _mm256_castpd_si256,
                _mm256_castsi256_pd, _mm256_cmp_pd, _mm256_fmadd_pd, _mm256_fnmadd_pd,
                _mm256_movemask_pd, _mm256_mul_pd, _mm256_permutevar8x32_epi32, _mm256_set_epi32,
                _mm256_set1_pd, _mm256_shuffle_epi32, _mm256_slli_epi64, _mm256_sub_pd,
            };
            let c = |v: f64| _mm256_set1_pd(v);
            let halves = std::mem::transmute::<[f64; LANES], [__m256d; 2]>(*x);
            let tails = std::mem::transmute::<[u64; 16], [__m256i; 4]>(EXP_TAIL);
            let highs = std::mem::transmute::<[u64; 16], [__m256i; 4]>(EXP_HIGH);
            let mut all_fast = true;
            let mut e = halves;
            // a loop, not `halves.map(..)`: LLVM kept that closure out of line (a call per half)
            for (e, &xv) in e.iter_mut().zip(&halves) {
                let fast = _mm256_and_pd(
                    _mm256_cmp_pd::<_CMP_GE_OQ>(xv, c(EXP_MIN)),
                    _mm256_cmp_pd::<_CMP_LE_OQ>(xv, c(EXP_MAX)),
                );
                all_fast &= _mm256_movemask_pd(fast) == 0xf;
                let xf = _mm256_and_pd(fast, xv);
                let t = _mm256_fmadd_pd(xf, c(N_OVER_LN2), c(MAGIC));
                let n = _mm256_sub_pd(t, c(MAGIC));
                let r = _mm256_fnmadd_pd(
                    n,
                    c(LN2_OVER_N_LO),
                    _mm256_fnmadd_pd(n, c(LN2_OVER_N_HI), xf),
                );
                let t_bits = _mm256_castpd_si256(t);
                // the table (j = n mod 16): the words 4i..4i+4 in the i-th register, the word
                // j mod 4 picked from each by `vpermd` (dwords 2(j mod 4) and 2(j mod 4) + 1: the
                // low three bits of 2j, and of 2j + 1 in the lane's high dword), then the register
                // by j's bits 2 and 3 (blends on the sign bit, where the shifts put those bits)
                let two_j = _mm256_slli_epi64::<1>(t_bits);
                let dwords = _mm256_add_epi32(
                    _mm256_shuffle_epi32::<0b1010_0000>(two_j),
                    _mm256_set_epi32(1, 0, 1, 0, 1, 0, 1, 0),
                );
                let bit2 = _mm256_castsi256_pd(_mm256_slli_epi64::<61>(t_bits));
                let bit3 = _mm256_castsi256_pd(_mm256_slli_epi64::<60>(t_bits));
                let lookup = |table: [__m256i; 4]| {
                    let [w0, w1, w2, w3] =
                        table.map(|w| _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(w, dwords)));
                    _mm256_castpd_si256(_mm256_blendv_pd(
                        _mm256_blendv_pd(w0, w1, bit2),
                        _mm256_blendv_pd(w2, w3, bit2),
                        bit3,
                    ))
                };
                let (tail, high) = (lookup(tails), lookup(highs));
                let scale = _mm256_castsi256_pd(_mm256_add_epi64(
                    high,
                    _mm256_slli_epi64::<{ 52 - EXP_TABLE_BITS as i32 }>(t_bits),
                ));
                let [q0, q1, q2, q3, q4, q5] = EXP_Q.map(c);
                let r2 = _mm256_mul_pd(r, r);
                let q = _mm256_fmadd_pd(
                    _mm256_fmadd_pd(_mm256_fmadd_pd(q5, r, q4), r2, _mm256_fmadd_pd(q3, r, q2)),
                    r2,
                    _mm256_fmadd_pd(q1, r, q0),
                );
                let v = _mm256_add_pd(r, _mm256_fmadd_pd(r2, q, _mm256_castsi256_pd(tail)));
                *e = _mm256_fmadd_pd(scale, v, scale);
            }
            (
                std::mem::transmute::<[__m256d; 2], [f64; LANES]>(e),
                all_fast,
            )
        };
        *out = e;
        if !all_fast {
            exp_special(x, out);
        }
    }};
}

/// `(sin x, cos x)` lane by lane.
#[inline(always)]
fn sin_cos_n<const N: usize>(x: &[f64; N], sin: &mut [f64; N], cos: &mut [f64; N]) {
    let mut wide = false;
    for l in 0..N {
        let short = trig_short(x[l]);
        wide |= !short;
        (sin[l], cos[l]) = sin_cos_kernel::<true>(if short { x[l] } else { 0.0 });
    }
    if wide {
        for l in 0..N {
            if !trig_short(x[l]) {
                (sin[l], cos[l]) = sin_cos_wide(x[l]);
            }
        }
    }
}

/// `sin x` (`COS` false) or `cos x` (`COS` true) lane by lane, one polynomial per lane
/// (bitwise the `sin` or `cos` of [`sin_cos_n`]).
#[inline(always)]
fn sin_or_cos_n<const COS: bool, const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    if N == 1 {
        // one point (the one-point functions, the slices' remainders): in scalar code LLVM
        // turns the picks into a branch on the parity, mispredicted when the quadrants vary
        // at random (+18 % per point); both polynomials have no such branch
        let mut other = [0.0; N];
        if COS {
            sin_cos_n(x, &mut other, out);
        } else {
            sin_cos_n(x, out, &mut other);
        }
        return;
    }
    let mut wide = false;
    for l in 0..N {
        let short = trig_short(x[l]);
        wide |= !short;
        out[l] = sin_or_cos_kernel::<COS>(if short { x[l] } else { 0.0 });
    }
    if wide {
        sin_or_cos_wide_lanes::<COS, N>(x, out);
    }
}

/// The lanes of `x` outside the short range: [`sin_cos_wide`]'s `sin` or `cos` (the rest of
/// [`sin_or_cos_n`]).
#[inline(always)]
fn sin_or_cos_wide_lanes<const COS: bool, const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    for l in 0..N {
        if !trig_short(x[l]) {
            let (s, c) = sin_cos_wide(x[l]);
            out[l] = if COS { c } else { s };
        }
    }
}

/// `sin x` lane by lane (the `sin` of [`sin_cos_n`], bitwise).
#[inline(always)]
fn sin_n<const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    sin_or_cos_n::<false, N>(x, out);
}

/// `cos x` lane by lane (the `cos` of [`sin_cos_n`], bitwise).
#[inline(always)]
fn cos_n<const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    sin_or_cos_n::<true, N>(x, out);
}

/// The `READ` of a call whose lanes all read `sin r` (the quadrant's parity, `q = n + COS`,
/// even in every lane): `sin_or_cos_lanes_avx512!`, `sin_or_cos_lanes_avx2!`.
#[cfg(target_arch = "x86_64")]
const READ_SIN: u8 = 0;
/// The `READ` of a call whose lanes all read `cos r` (`q` odd in every lane).
#[cfg(target_arch = "x86_64")]
const READ_COS: u8 = 1;
/// The `READ` of a call whose lanes mix the readings: each lane picks by its own `q`.
#[cfg(target_arch = "x86_64")]
const READ_PER_LANE: u8 = 2;

/// Whether every lane of the `__m512d` has `|x| ≤ TRIG_SMALL_MAX` (false for NaN): the test
/// of the small-argument path ([`trig_small_avx512`]). Expanded where AVX-512F is enabled.
#[cfg(all(target_arch = "x86_64", vmath_avx512))]
macro_rules! trig_all_small_avx512 {
    ($x:expr) => {{
        use std::arch::x86_64::{_CMP_LE_OQ, _mm512_abs_pd, _mm512_cmp_pd_mask, _mm512_set1_pd};
        let bound = _mm512_set1_pd(TRIG_SMALL_MAX);
        _mm512_cmp_pd_mask::<_CMP_LE_OQ>(_mm512_abs_pd($x), bound) == 0xff
    }};
}

/// [`trig_all_small_avx512`] for the two `__m256d` halves of eight points (AVX2 copies;
/// inside an `unsafe` block for compilers before 1.86).
#[cfg(target_arch = "x86_64")]
macro_rules! trig_all_small_avx2 {
    ($halves:expr) => {{
        use std::arch::x86_64::{
            _CMP_LE_OQ, _mm256_and_pd, _mm256_castsi256_pd, _mm256_cmp_pd, _mm256_movemask_pd,
            _mm256_set1_epi64x, _mm256_set1_pd,
        };
        let halves: [std::arch::x86_64::__m256d; 2] = $halves;
        let (bound, magnitude) = (
            _mm256_set1_pd(TRIG_SMALL_MAX),
            _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX)),
        );
        halves.iter().all(|&h| {
            let small = _mm256_cmp_pd::<_CMP_LE_OQ>(_mm256_and_pd(h, magnitude), bound);
            _mm256_movemask_pd(small) == 0xf
        })
    }};
}

/// `(sin x, cos x)` of an `__m512d` whose lanes all have `|x| ≤ TRIG_SMALL_MAX`: the
/// small-argument path of `sin_or_cos_lanes_avx512!` and `sin_cos_lanes_avx512!` (without
/// the reduction: `n = 0`; why the bits are the kernel's is in the first one's docs), the
/// tiny select included. A caller that reads one side leaves the other's operations to the
/// compiler to drop (they are pure). Expanded where AVX-512F is enabled.
#[cfg(all(target_arch = "x86_64", vmath_avx512))]
macro_rules! trig_small_avx512 {
    ($x:expr) => {{
        use std::arch::x86_64::{
            __m512d, _CMP_LT_OQ, _mm512_abs_pd, _mm512_add_pd, _mm512_cmp_pd_mask, _mm512_fmadd_pd,
            _mm512_mask_blend_pd, _mm512_mul_pd, _mm512_set1_pd, _mm512_sub_pd,
        };
        let x: __m512d = $x;
        let c = |v: f64| _mm512_set1_pd(v);
        let z = _mm512_mul_pd(x, x);
        let z2 = _mm512_mul_pd(z, z);
        // trig_poly
        let poly = |[k0, k1, k2, k3, k4, k5]: [__m512d; 6]| {
            let tail = _mm512_fmadd_pd(_mm512_fmadd_pd(k5, z, k4), z2, _mm512_fmadd_pd(k3, z, k2));
            _mm512_fmadd_pd(z, _mm512_fmadd_pd(z, tail, k1), k0)
        };
        // sin r: x + (x·z)·S(z)
        let sin_r = _mm512_add_pd(x, _mm512_mul_pd(_mm512_mul_pd(x, z), poly(SIN_S.map(c))));
        // cos r: w + (((1 − w) − z/2) + z² C(z))
        let half_z = _mm512_mul_pd(c(0.5), z);
        let w = _mm512_sub_pd(c(1.0), half_z);
        let cos_r = _mm512_add_pd(
            w,
            _mm512_add_pd(
                _mm512_sub_pd(_mm512_sub_pd(c(1.0), w), half_z),
                _mm512_mul_pd(z2, poly(COS_C.map(c))),
            ),
        );
        // trig_finish: `x` (sin) and 1 (cos) where |x| < TRIG_TINY
        let tiny = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(_mm512_abs_pd(x), c(TRIG_TINY));
        (
            _mm512_mask_blend_pd(tiny, sin_r, x),
            _mm512_mask_blend_pd(tiny, cos_r, c(1.0)),
        )
    }};
}

/// [`trig_small_avx512`] for an `__m256d` (four lanes), in the AVX2 copies (expanded where
/// AVX2 and FMA are enabled, inside an `unsafe` block for compilers before 1.86).
#[cfg(target_arch = "x86_64")]
macro_rules! trig_small_avx2 {
    ($x:expr) => {{
        use std::arch::x86_64::{
            __m256d, _CMP_LT_OQ, _mm256_add_pd, _mm256_and_pd, _mm256_blendv_pd,
            _mm256_castsi256_pd, _mm256_cmp_pd, _mm256_fmadd_pd, _mm256_mul_pd, _mm256_set1_epi64x,
            _mm256_set1_pd, _mm256_sub_pd,
        };
        let x: __m256d = $x;
        let c = |v: f64| _mm256_set1_pd(v);
        let z = _mm256_mul_pd(x, x);
        let z2 = _mm256_mul_pd(z, z);
        // trig_poly
        let poly = |[k0, k1, k2, k3, k4, k5]: [__m256d; 6]| {
            let tail = _mm256_fmadd_pd(_mm256_fmadd_pd(k5, z, k4), z2, _mm256_fmadd_pd(k3, z, k2));
            _mm256_fmadd_pd(z, _mm256_fmadd_pd(z, tail, k1), k0)
        };
        // sin r: x + (x·z)·S(z)
        let sin_r = _mm256_add_pd(x, _mm256_mul_pd(_mm256_mul_pd(x, z), poly(SIN_S.map(c))));
        // cos r: w + (((1 − w) − z/2) + z² C(z))
        let half_z = _mm256_mul_pd(c(0.5), z);
        let w = _mm256_sub_pd(c(1.0), half_z);
        let cos_r = _mm256_add_pd(
            w,
            _mm256_add_pd(
                _mm256_sub_pd(_mm256_sub_pd(c(1.0), w), half_z),
                _mm256_mul_pd(z2, poly(COS_C.map(c))),
            ),
        );
        // trig_finish: `x` (sin) and 1 (cos) where |x| < TRIG_TINY
        let abs_x = _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX)));
        let tiny = _mm256_cmp_pd::<_CMP_LT_OQ>(abs_x, c(TRIG_TINY));
        (
            _mm256_blendv_pd(sin_r, x, tiny),
            _mm256_blendv_pd(cos_r, c(1.0), tiny),
        )
    }};
}

/// `sin x` (`$cos` false) or `cos x` (`$cos` true) for the [`LANES`] points
/// `x: &[f64; LANES]` into `out: &mut [f64; LANES]` in the AVX-512F copies, bitwise
/// [`sin_or_cos_n`] (session 28): the same IEEE operations as
/// [`sin_or_cos_kernel`] written as AVX-512F intrinsics, with one branch per call on the
/// lanes' readings. Where every lane reads `sin r` (its `q = n + COS` even) or every lane reads
/// `cos r`, that side alone runs, its coefficients constants: no picks, and none of the other
/// side's operands (`hi·z`, `(1 − w) − z/2`, `−hi`, the masked coefficient broadcasts). Mixed
/// calls pick per lane as the kernel does (masked blends). Each operation equals the picked
/// one of the kernel: `fma(−n, c, v)` is `fnmadd(n, c, v)` (the same rounding of the same exact
/// value), `−hi` a sign flip, and on the `sin r` side the kernel's `−0 + v` is `v` (see
/// [`sin_or_cos_kernel`]), so it is left out. The parity test is a shift and a `vptestmq` of
/// the reduction's bits, then two compares of the mask: 73 instructions per call before, now
/// 59 (`sin r`), 64 (`cos r`) or 77 (mixed) in the `sin` entry point. Mixed calls run as
/// fast as before; where each call is uniform but its parity changes at random from call to
/// call, the branch mispredicts about every other call (1.5–1.6 against 0.9 ns per point
/// in `lane_timings`; a parity alternating call by call is predicted). LLVM's vectorizer did
/// not form this from generic code with the branch (it split the lanes into 4 + 2 + 1 + 1,
/// or reduced the lanes' tests in another lane order than the kernels', each path then
/// rebuilding the points: more operations per call than the picks).
///
/// Before that, a call whose lanes all have `|x| ≤ TRIG_SMALL_MAX` (small angles and angle
/// differences: common) skips the reduction. There the kernel's steps are exact with
/// `n = +0` (`t` rounds to `MAGIC`, whose low bits are 0, so `q = COS` and no sign flip):
/// `a = fma(−0, HALF_PI_HI, x) = x`, `hi = x − (+0) = x`, `a − hi = +0`, and `lo = fma(−0, ·,
/// fma(−0, ·, +0)) = +0`. The `sin r` side is then `x + fma(x·z, S(z), +0·w)` and the `cos r`
/// side `w + (((1 − w) − z/2) + fma(z², C(z), +0·(−x)))`; the small path computes
/// `x + (x·z)·S(z)` and `w + (((1 − w) − z/2) + z²·C(z))`. A fused multiply-add with a zero
/// addend is the rounded product wherever that product is not zero, which holds for every
/// `|x| ≥ TRIG_TINY` (`|x|³ ≥ 2⁻⁸¹`, `x⁴ ≥ 2⁻¹⁰⁸`: normal, and `S`, `C` are far from 0); the
/// lanes below `TRIG_TINY` take the tiny select's value (`x` or 1) on both paths, and NaN
/// fails the `|x|` test. So the bits are the kernel's. The path is about half the
/// instructions of a one-reading call (no reduction, sign or `lo` terms).
///
/// A macro, as [`exp_lanes_avx512`].
#[cfg(all(target_arch = "x86_64", vmath_avx512))]
macro_rules! sin_or_cos_lanes_avx512 {
    ($cos:expr, $x:expr, $out:expr) => {{
        const COS: bool = $cos;
        let (x, out): (&[f64; LANES], &mut [f64; LANES]) = ($x, $out);
        // the AVX-512F intrinsics are stable since Rust 1.89, the only compilers that build
        // this (`cfg(vmath_avx512)`, set by `build.rs`)
        #[allow(clippy::incompatible_msrv)]
        let (v, short) = {
            use std::arch::x86_64::{
                __m512d, _CMP_LE_OQ, _CMP_LT_OQ, _mm512_abs_pd, _mm512_add_epi64, _mm512_add_pd,
                _mm512_and_si512, _mm512_castpd_si512, _mm512_castsi512_pd, _mm512_cmp_pd_mask,
                _mm512_fmadd_pd, _mm512_fnmadd_pd, _mm512_mask_blend_pd, _mm512_maskz_mov_pd,
                _mm512_mul_pd, _mm512_set1_epi64, _mm512_set1_pd, _mm512_slli_epi64, _mm512_sub_pd,
                _mm512_test_epi64_mask, _mm512_xor_si512,
            };
            let c = |v: f64| _mm512_set1_pd(v);
            let neg = |v: __m512d| {
                _mm512_castsi512_pd(_mm512_xor_si512(
                    _mm512_castpd_si512(v),
                    _mm512_set1_epi64(i64::MIN),
                ))
            };
            // SAFETY: `__m512d` is 64 bytes, eight lanes in memory order (lane 0 first), as
            // `[f64; 8]`; every bit pattern is valid for each.
            let xv = unsafe { std::mem::transmute::<[f64; LANES], __m512d>(*x) };
            // every lane in [−TRIG_SMALL_MAX, TRIG_SMALL_MAX] (n = 0): no reduction
            if trig_all_small_avx512!(xv) {
                let (sin_x, cos_x) = trig_small_avx512!(xv);
                let v = if COS { cos_x } else { sin_x };
                // SAFETY: as above; every lane is in the short range
                (
                    unsafe { std::mem::transmute::<__m512d, [f64; LANES]>(v) },
                    0xff,
                )
            } else {
                // trig_short (false for NaN); the other lanes computed at +0 (`sin_or_cos_n`)
                let short = _mm512_cmp_pd_mask::<_CMP_LE_OQ>(_mm512_abs_pd(xv), c(TRIG_SHORT_MAX));
                let x = _mm512_maskz_mov_pd(short, xv);
                // trig_reduce::<true>
                let t = _mm512_fmadd_pd(x, c(TWO_OVER_PI), c(MAGIC));
                let n = _mm512_sub_pd(t, c(MAGIC));
                let a = _mm512_fnmadd_pd(n, c(HALF_PI_HI), x);
                let hi = _mm512_sub_pd(a, _mm512_mul_pd(n, c(HALF_PI_MID)));
                let lo = _mm512_fnmadd_pd(
                    n,
                    c(HALF_PI_LO),
                    _mm512_fnmadd_pd(n, c(HALF_PI_MID), _mm512_sub_pd(a, hi)),
                );
                let q = _mm512_add_epi64(_mm512_castpd_si512(t), _mm512_set1_epi64(i64::from(COS)));
                let reads_cos = _mm512_test_epi64_mask(q, _mm512_set1_epi64(1));
                let z = _mm512_mul_pd(hi, hi);
                let z2 = _mm512_mul_pd(z, z);
                // trig_poly
                let poly = |[k0, k1, k2, k3, k4, k5]: [__m512d; 6]| {
                    let tail =
                        _mm512_fmadd_pd(_mm512_fmadd_pd(k5, z, k4), z2, _mm512_fmadd_pd(k3, z, k2));
                    _mm512_fmadd_pd(z, _mm512_fmadd_pd(z, tail, k1), k0)
                };
                let half_z = _mm512_mul_pd(c(0.5), z);
                let w = _mm512_sub_pd(c(1.0), half_z);
                let r = match reads_cos {
                    // every lane sin r: hi + fma(hi·z, S(z), lo·w)
                    0 => _mm512_add_pd(
                        hi,
                        _mm512_fmadd_pd(
                            _mm512_mul_pd(hi, z),
                            poly(SIN_S.map(c)),
                            _mm512_mul_pd(lo, w),
                        ),
                    ),
                    // every lane cos r: w + (((1 − w) − z/2) + fma(z², C(z), lo·(−hi)))
                    0xff => _mm512_add_pd(
                        w,
                        _mm512_add_pd(
                            _mm512_sub_pd(_mm512_sub_pd(c(1.0), w), half_z),
                            _mm512_fmadd_pd(z2, poly(COS_C.map(c)), _mm512_mul_pd(lo, neg(hi))),
                        ),
                    ),
                    // the kernel's picks, lane by lane
                    _ => {
                        let pick = |s: __m512d, c: __m512d| _mm512_mask_blend_pd(reads_cos, s, c);
                        let k = std::array::from_fn(|i| pick(c(SIN_S[i]), c(COS_C[i])));
                        let lead = pick(hi, w);
                        let head_err =
                            pick(c(-0.0), _mm512_sub_pd(_mm512_sub_pd(c(1.0), w), half_z));
                        let scale = pick(_mm512_mul_pd(hi, z), z2);
                        let lo_factor = pick(w, neg(hi));
                        _mm512_add_pd(
                            lead,
                            _mm512_add_pd(
                                head_err,
                                _mm512_fmadd_pd(scale, poly(k), _mm512_mul_pd(lo, lo_factor)),
                            ),
                        )
                    }
                };
                // the sign: r ^ ((q & 2) << 62)
                let sign = _mm512_slli_epi64::<62>(_mm512_and_si512(q, _mm512_set1_epi64(2)));
                let v = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(r), sign));
                // trig_finish: `x` (sin) or 1 (cos) where |x| < TRIG_TINY
                let tiny = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(_mm512_abs_pd(x), c(TRIG_TINY));
                let v = _mm512_mask_blend_pd(tiny, v, if COS { c(1.0) } else { x });
                // SAFETY: as above
                (
                    unsafe { std::mem::transmute::<__m512d, [f64; LANES]>(v) },
                    short,
                )
            }
        };
        *out = v;
        if short != 0xff {
            sin_or_cos_wide_lanes::<COS, LANES>(x, out);
        }
    }};
}

/// `sin x` (`$cos` false) or `cos x` (`$cos` true) for the [`LANES`] points
/// `x: &[f64; LANES]` into `out: &mut [f64; LANES]` in the AVX2 copies, bitwise
/// [`sin_or_cos_n`]: `sin_or_cos_lanes_avx512!` in two four-lane halves, both reduced before
/// the one branch per call (the readings of all eight lanes from two `vmovmskpd`), the
/// per-lane picks as `vblendvpd` on the reduction's low bit moved to the sign; the
/// small-argument path (all eight `|x| ≤ TRIG_SMALL_MAX`) as there, on both halves.
#[cfg(target_arch = "x86_64")]
macro_rules! sin_or_cos_lanes_avx2 {
    ($cos:expr, $x:expr, $out:expr) => {{
        const COS: bool = $cos;
        let (x, out): (&[f64; LANES], &mut [f64; LANES]) = ($x, $out);
        // SAFETY: the intrinsics need AVX2 and FMA, which every function that expands this
        // macro is compiled with (`target_feature(enable = "avx2,fma")`; Rust before 1.86
        // declares them unsafe, later ones safe there); the transmutes: `__m256d` is 32 bytes,
        // four `f64` lanes in memory order (lane 0 first), so two of them are `[f64; 8]`;
        // every bit pattern is valid for each.
        let (v, all_short) = unsafe {
            use std::arch::x86_64::{
                __m256d, __m256i, _CMP_LE_OQ, _CMP_LT_OQ, _mm256_add_epi64, _mm256_add_pd,
                _mm256_and_pd, _mm256_and_si256, _mm256_blendv_pd, _mm256_castpd_si256,
                _mm256_castsi256_pd, _mm256_cmp_pd, _mm256_fmadd_pd, _mm256_fnmadd_pd,
                _mm256_movemask_pd, _mm256_mul_pd, _mm256_set1_epi64x, _mm256_set1_pd,
                _mm256_slli_epi64, _mm256_sub_pd, _mm256_xor_pd, _mm256_xor_si256,
            };
            let c = |v: f64| _mm256_set1_pd(v);
            let abs =
                |v: __m256d| _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX)));
            let neg = |v: __m256d| _mm256_xor_pd(v, c(-0.0));
            let halves = std::mem::transmute::<[f64; LANES], [__m256d; 2]>(*x);
            // every lane in [−TRIG_SMALL_MAX, TRIG_SMALL_MAX] (n = 0): no reduction
            if trig_all_small_avx2!(halves) {
                let mut v = halves;
                for v in &mut v {
                    let (sin_x, cos_x) = trig_small_avx2!(*v);
                    *v = if COS { cos_x } else { sin_x };
                }
                (std::mem::transmute::<[__m256d; 2], [f64; LANES]>(v), true)
            } else {
                // per half: the points (the short range's, else +0), hi, lo and q
                let mut reduced: [(__m256d, __m256d, __m256d, __m256i); 2] =
                    [(c(0.0), c(0.0), c(0.0), _mm256_set1_epi64x(0)); 2];
                let (mut short_lanes, mut cos_lanes) = (0, 0);
                // loops, not `map(..)`: LLVM kept such closures out of line (`exp_lanes_avx2`)
                for (h, (r, &xv)) in reduced.iter_mut().zip(&halves).enumerate() {
                    // trig_short (false for NaN); the other lanes computed at +0 (`sin_or_cos_n`)
                    let short = _mm256_cmp_pd::<_CMP_LE_OQ>(abs(xv), c(TRIG_SHORT_MAX));
                    short_lanes |= _mm256_movemask_pd(short) << (4 * h);
                    let x = _mm256_and_pd(short, xv);
                    // trig_reduce::<true>
                    let t = _mm256_fmadd_pd(x, c(TWO_OVER_PI), c(MAGIC));
                    let n = _mm256_sub_pd(t, c(MAGIC));
                    let a = _mm256_fnmadd_pd(n, c(HALF_PI_HI), x);
                    let hi = _mm256_sub_pd(a, _mm256_mul_pd(n, c(HALF_PI_MID)));
                    let lo = _mm256_fnmadd_pd(
                        n,
                        c(HALF_PI_LO),
                        _mm256_fnmadd_pd(n, c(HALF_PI_MID), _mm256_sub_pd(a, hi)),
                    );
                    let q = _mm256_add_epi64(
                        _mm256_castpd_si256(t),
                        _mm256_set1_epi64x(i64::from(COS)),
                    );
                    // reads cos r where q is odd: that bit in the sign
                    let odd = _mm256_castsi256_pd(_mm256_slli_epi64::<63>(q));
                    cos_lanes |= _mm256_movemask_pd(odd) << (4 * h);
                    *r = (x, hi, lo, q);
                }
                // the rest of `sin_or_cos_kernel`: `READ_SIN` or `READ_COS` that side alone,
                // `READ_PER_LANE` its picks
                let finish = |(x, hi, lo, q): (__m256d, __m256d, __m256d, __m256i), read: u8| {
                    let z = _mm256_mul_pd(hi, hi);
                    let z2 = _mm256_mul_pd(z, z);
                    // trig_poly
                    let poly = |[k0, k1, k2, k3, k4, k5]: [__m256d; 6]| {
                        let tail = _mm256_fmadd_pd(
                            _mm256_fmadd_pd(k5, z, k4),
                            z2,
                            _mm256_fmadd_pd(k3, z, k2),
                        );
                        _mm256_fmadd_pd(z, _mm256_fmadd_pd(z, tail, k1), k0)
                    };
                    let half_z = _mm256_mul_pd(c(0.5), z);
                    let w = _mm256_sub_pd(c(1.0), half_z);
                    let r = match read {
                        // sin r: hi + fma(hi·z, S(z), lo·w)
                        READ_SIN => _mm256_add_pd(
                            hi,
                            _mm256_fmadd_pd(
                                _mm256_mul_pd(hi, z),
                                poly(SIN_S.map(c)),
                                _mm256_mul_pd(lo, w),
                            ),
                        ),
                        // cos r: w + (((1 − w) − z/2) + fma(z², C(z), lo·(−hi)))
                        READ_COS => _mm256_add_pd(
                            w,
                            _mm256_add_pd(
                                _mm256_sub_pd(_mm256_sub_pd(c(1.0), w), half_z),
                                _mm256_fmadd_pd(z2, poly(COS_C.map(c)), _mm256_mul_pd(lo, neg(hi))),
                            ),
                        ),
                        // the kernel's picks, lane by lane
                        _ => {
                            let odd = _mm256_castsi256_pd(_mm256_slli_epi64::<63>(q));
                            let pick = |s: __m256d, c: __m256d| _mm256_blendv_pd(s, c, odd);
                            let k = std::array::from_fn(|i| pick(c(SIN_S[i]), c(COS_C[i])));
                            let lead = pick(hi, w);
                            let head_err =
                                pick(c(-0.0), _mm256_sub_pd(_mm256_sub_pd(c(1.0), w), half_z));
                            let scale = pick(_mm256_mul_pd(hi, z), z2);
                            let lo_factor = pick(w, neg(hi));
                            _mm256_add_pd(
                                lead,
                                _mm256_add_pd(
                                    head_err,
                                    _mm256_fmadd_pd(scale, poly(k), _mm256_mul_pd(lo, lo_factor)),
                                ),
                            )
                        }
                    };
                    // the sign: r ^ ((q & 2) << 62)
                    let sign = _mm256_slli_epi64::<62>(_mm256_and_si256(q, _mm256_set1_epi64x(2)));
                    let v = _mm256_castsi256_pd(_mm256_xor_si256(_mm256_castpd_si256(r), sign));
                    // trig_finish: `x` (sin) or 1 (cos) where |x| < TRIG_TINY
                    let tiny = _mm256_cmp_pd::<_CMP_LT_OQ>(abs(x), c(TRIG_TINY));
                    _mm256_blendv_pd(v, if COS { c(1.0) } else { x }, tiny)
                };
                let read = match cos_lanes {
                    0 => READ_SIN,
                    0xff => READ_COS,
                    _ => READ_PER_LANE,
                };
                let mut v = halves;
                match read {
                    READ_SIN => {
                        for (v, &r) in v.iter_mut().zip(&reduced) {
                            *v = finish(r, READ_SIN);
                        }
                    }
                    READ_COS => {
                        for (v, &r) in v.iter_mut().zip(&reduced) {
                            *v = finish(r, READ_COS);
                        }
                    }
                    _ => {
                        for (v, &r) in v.iter_mut().zip(&reduced) {
                            *v = finish(r, READ_PER_LANE);
                        }
                    }
                }
                (
                    std::mem::transmute::<[__m256d; 2], [f64; LANES]>(v),
                    short_lanes == 0xff,
                )
            }
        };
        *out = v;
        if !all_short {
            sin_or_cos_wide_lanes::<COS, LANES>(x, out);
        }
    }};
}

/// `(sin x, cos x)` for the [`LANES`] points `x: &[f64; LANES]` into `sin`, `cos: &mut [f64;
/// LANES]` in the AVX-512F copies, bitwise [`sin_cos_n`]: where every lane has `|x| ≤
/// TRIG_SMALL_MAX`, both sides without the reduction, as `sin_or_cos_lanes_avx512!`'s
/// small-argument path (with `n = +0` the kernel's `lo·(1 − z/2)` and `−(hi·lo)` are zeros,
/// the quadrant swaps and flips nothing); other calls run [`sin_cos_n`].
#[cfg(all(target_arch = "x86_64", vmath_avx512))]
macro_rules! sin_cos_lanes_avx512 {
    ($x:expr, $sin:expr, $cos:expr) => {{
        let (x, sin, cos): (&[f64; LANES], &mut [f64; LANES], &mut [f64; LANES]) = ($x, $sin, $cos);
        // the AVX-512F intrinsics are stable since Rust 1.89, the only compilers that build
        // this (`cfg(vmath_avx512)`, set by `build.rs`)
        #[allow(clippy::incompatible_msrv)]
        let small = {
            use std::arch::x86_64::__m512d;
            // SAFETY: `__m512d` is 64 bytes, eight lanes in memory order (lane 0 first), as
            // `[f64; 8]`; every bit pattern is valid for each.
            let xv = unsafe { std::mem::transmute::<[f64; LANES], __m512d>(*x) };
            let small = trig_all_small_avx512!(xv);
            if small {
                let (sin_x, cos_x) = trig_small_avx512!(xv);
                // SAFETY: as above
                unsafe {
                    *sin = std::mem::transmute::<__m512d, [f64; LANES]>(sin_x);
                    *cos = std::mem::transmute::<__m512d, [f64; LANES]>(cos_x);
                }
            }
            small
        };
        if !small {
            sin_cos_n(x, sin, cos);
        }
    }};
}

/// `(sin x, cos x)` for the [`LANES`] points in the AVX2 copies, bitwise [`sin_cos_n`]: the
/// small-argument path of [`sin_cos_lanes_avx512`] in two four-lane halves, else
/// [`sin_cos_n`].
#[cfg(target_arch = "x86_64")]
macro_rules! sin_cos_lanes_avx2 {
    ($x:expr, $sin:expr, $cos:expr) => {{
        let (x, sin, cos): (&[f64; LANES], &mut [f64; LANES], &mut [f64; LANES]) = ($x, $sin, $cos);
        // SAFETY: the intrinsics need AVX2 and FMA, which every function that expands this
        // macro is compiled with (`target_feature(enable = "avx2,fma")`; Rust before 1.86
        // declares them unsafe, later ones safe there); the transmutes: `__m256d` is 32 bytes,
        // four `f64` lanes in memory order (lane 0 first), so two of them are `[f64; 8]`;
        // every bit pattern is valid for each.
        let small = unsafe {
            use std::arch::x86_64::__m256d;
            let halves = std::mem::transmute::<[f64; LANES], [__m256d; 2]>(*x);
            let small = trig_all_small_avx2!(halves);
            if small {
                let (mut sin_x, mut cos_x) = (halves, halves);
                // loops, not `map(..)`: LLVM kept such closures out of line (`exp_lanes_avx2`)
                for h in 0..2 {
                    (sin_x[h], cos_x[h]) = trig_small_avx2!(halves[h]);
                }
                *sin = std::mem::transmute::<[__m256d; 2], [f64; LANES]>(sin_x);
                *cos = std::mem::transmute::<[__m256d; 2], [f64; LANES]>(cos_x);
            }
            small
        };
        if !small {
            sin_cos_n(x, sin, cos);
        }
    }};
}

/// Whether this CPU has AVX2 and FMA (the AVX2 copies' requirement).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Whether this CPU has AVX-512F and FMA (the AVX-512F copies' requirement).
#[cfg(all(target_arch = "x86_64", vmath_avx512))]
#[inline(always)]
fn has_avx512_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma")
}

macro_rules! one_point_fn {
    ($(#[$m:meta])* $name:ident, $fma:ident, $base:ident, $ty:ty, |$x:ident| $body:expr) => {
        $(#[$m])*
        pub(crate) fn $name($x: f64) -> $ty {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has FMA (checked just above), the only requirement of
                // calling a function compiled with `target_feature(enable = "fma")`.
                return unsafe { $fma($x) };
            }
            $base($x)
        }

        /// The baseline copy (x86-64 without FMA: `mul_add` is libm's `fma`; elsewhere the
        /// target's own fused multiply-add).
        fn $base($x: f64) -> $ty {
            $body
        }

        /// # Safety
        ///
        /// The CPU has FMA.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "fma")]
        unsafe fn $fma($x: f64) -> $ty {
            $body
        }
    };
}

one_point_fn!(
    /// `e^x` (bitwise the lane functions' result for this point).
    exp, exp_one_fma, exp_one_base, f64, |x| {
        let mut out = [0.0];
        exp_n(&[x], &mut out);
        out[0]
    }
);
one_point_fn!(
    /// `sin x` (bitwise the lane functions' result for this point).
    sin, sin_one_fma, sin_one_base, f64, |x| {
        let mut out = [0.0];
        sin_n(&[x], &mut out);
        out[0]
    }
);
one_point_fn!(
    /// `cos x` (bitwise the lane functions' result for this point).
    cos, cos_one_fma, cos_one_base, f64, |x| {
        let mut out = [0.0];
        cos_n(&[x], &mut out);
        out[0]
    }
);
one_point_fn!(
    /// `(sin x, cos x)` (bitwise [`sin`] and [`cos`]).
    sin_cos, sin_cos_one_fma, sin_cos_one_base, (f64, f64), |x| {
        let (mut s, mut c) = ([0.0], [0.0]);
        sin_cos_n(&[x], &mut s, &mut c);
        (s[0], c[0])
    }
);

/// Applies a [`LANES`]-point function over a slice, the remainder one point at a time.
#[inline(always)]
fn map_slice(
    dst: &mut [f64],
    src: &[f64],
    lanes: impl Fn(&[f64; LANES], &mut [f64; LANES]),
    one: impl Fn(&[f64; 1], &mut [f64; 1]),
) {
    let n = dst.len().min(src.len());
    let (dst, src) = (&mut dst[..n], &src[..n]);
    let mut d = dst.chunks_exact_mut(LANES);
    let mut s = src.chunks_exact(LANES);
    for (d, s) in (&mut d).zip(&mut s) {
        if let (Ok(d), Ok(s)) = (
            <&mut [f64; LANES]>::try_from(d),
            <&[f64; LANES]>::try_from(s),
        ) {
            lanes(s, d);
        }
    }
    for (d, &s) in d.into_remainder().iter_mut().zip(s.remainder()) {
        let mut o = [0.0];
        one(&[s], &mut o);
        *d = o[0];
    }
}

macro_rules! slice_fn {
    ($(#[$m:meta])* $name:ident, $avx2:ident, $avx512:ident, $base:ident, $kernel:ident) => {
        slice_fn!(
            $(#[$m])* $name, $avx2, $avx512, $base, $kernel,
            |s, d| $kernel(s, d), |s, d| $kernel(s, d)
        );
    };
    // `$avx2_lanes`, `$avx512_lanes`: the AVX2 and AVX-512F copies' `LANES`-point
    // functions, when they are not `$kernel`
    (
        $(#[$m:meta])* $name:ident, $avx2:ident, $avx512:ident, $base:ident, $kernel:ident,
        |$s2:ident, $d2:ident| $avx2_lanes:expr, |$s:ident, $d:ident| $avx512_lanes:expr
    ) => {
        $(#[$m])*
        pub(crate) fn $name(dst: &mut [f64], src: &[f64]) {
            #[cfg(all(target_arch = "x86_64", vmath_avx512))]
            if has_avx512_fma() {
                // SAFETY: the CPU has AVX-512F and FMA (checked just above), the only
                // requirement of calling a function compiled with
                // `target_feature(enable = "avx512f,fma")`.
                unsafe { $avx512(dst, src) };
                return;
            }
            #[cfg(target_arch = "x86_64")]
            if has_avx2_fma() {
                // SAFETY: the CPU has AVX2 and FMA (checked just above), the only requirement
                // of calling a function compiled with `target_feature(enable = "avx2,fma")`.
                unsafe { $avx2(dst, src) };
                return;
            }
            $base(dst, src);
        }

        fn $base(dst: &mut [f64], src: &[f64]) {
            map_slice(dst, src, |s, d| $kernel(s, d), |s, d| $kernel(s, d));
        }

        /// # Safety
        ///
        /// The CPU has AVX2 and FMA.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $avx2(dst: &mut [f64], src: &[f64]) {
            map_slice(dst, src, |$s2, $d2| $avx2_lanes, |s, d| $kernel(s, d));
        }

        /// # Safety
        ///
        /// The CPU has AVX-512F and FMA.
        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        #[target_feature(enable = "avx512f,fma")]
        unsafe fn $avx512(dst: &mut [f64], src: &[f64]) {
            map_slice(dst, src, |$s, $d| $avx512_lanes, |s, d| $kernel(s, d));
        }
    };
}

slice_fn!(
    /// `dst[l] = e^src[l]` (over the shorter of the two).
    exp_slice, exp_slice_avx2, exp_slice_avx512, exp_slice_base, exp_n,
    |s, d| exp_lanes_avx2!(s, d), |s, d| exp_lanes_avx512!(s, d)
);
slice_fn!(
    /// `dst[l] = sin src[l]` (over the shorter of the two).
    sin_slice, sin_slice_avx2, sin_slice_avx512, sin_slice_base, sin_n,
    |s, d| sin_or_cos_lanes_avx2!(false, s, d), |s, d| sin_or_cos_lanes_avx512!(false, s, d)
);
slice_fn!(
    /// `dst[l] = cos src[l]` (over the shorter of the two).
    cos_slice, cos_slice_avx2, cos_slice_avx512, cos_slice_base, cos_n,
    |s, d| sin_or_cos_lanes_avx2!(true, s, d), |s, d| sin_or_cos_lanes_avx512!(true, s, d)
);

// ---- the JIT's entry points: `LANES` points in place in a stack slot ------------------------

/// Whether the entry points take their [`LANES`] points as four two-lane vectors ([`Pair`]:
/// pair `q` holds lanes `2q` and `2q + 1`, in `xmm0`–`xmm3` under the System V convention
/// of x86-64, which the entry points there declare with `extern "sysv64"` on every x86-64
/// OS) rather than as eight `f64` (elsewhere, `extern "C"`).
pub(crate) const PAIR_ARGUMENTS: bool = cfg!(target_arch = "x86_64");

/// Two points of a lane-function call (lane 0: the lower one), one SSE2 register.
#[cfg(target_arch = "x86_64")]
pub(crate) type Pair = std::arch::x86_64::__m128d;

/// The [`LANES`] points of four [`Pair`]s, in lane order.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn points(pairs: [Pair; LANES / 2]) -> [f64; LANES] {
    // SAFETY: `__m128d` is 16 bytes holding two `f64` (lane 0 first in memory), so four of
    // them are the eight lanes in order; every bit pattern is a valid `f64`.
    unsafe { std::mem::transmute::<[Pair; LANES / 2], [f64; LANES]>(pairs) }
}

/// The [`LANES`]-point entry points of one lane function: the baseline copy, and the AVX2
/// and AVX-512F copies (an entry point and the `target_feature` function it calls); the
/// JIT calls one per block of points, or the 16-point one of `jit_fn_two_blocks!` for both
/// blocks of its wide loop where a body makes two calls or more per block.
macro_rules! jit_fn {
    ($(#[$m:meta])* $base:ident, $avx2:ident, $avx2_inner:ident, $avx512:ident, $avx512_inner:ident, |$x:ident, $out:ident| $body:expr) => {
        jit_fn!(
            $(#[$m])* $base, $avx2, $avx2_inner, $avx512, $avx512_inner,
            |$x, $out| $body, |$x, $out| $body, |$x, $out| $body
        );
    };
    // the second and third bodies: the AVX2 and AVX-512F copies', when they differ
    (
        $(#[$m:meta])* $base:ident, $avx2:ident, $avx2_inner:ident, $avx512:ident, $avx512_inner:ident,
        |$x:ident, $out:ident| $body:expr, |$x2:ident, $out2:ident| $body2:expr,
        |$x5:ident, $out5:ident| $body5:expr
    ) => {
        $(#[$m])*
        #[cfg(target_arch = "x86_64")]
        #[allow(improper_ctypes_definitions)] // see `Entry`
        extern "sysv64" fn $base(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, out: *mut Slot,
        ) -> *mut Slot {
            // SAFETY: the generated code passes its own 16-aligned stack slot of
            // `2 * LANES` doubles (a `Slot`), not aliased during the call.
            let $out = unsafe { &mut *out };
            let $x = points([p0, p1, p2, p3]);
            $body;
            out
        }

        $(#[$m])*
        #[cfg(not(target_arch = "x86_64"))]
        extern "C" fn $base(
            a0: f64, a1: f64, a2: f64, a3: f64, a4: f64, a5: f64, a6: f64, a7: f64,
            out: *mut Slot,
        ) -> *mut Slot {
            // SAFETY: the generated code passes its own 16-aligned stack slot of
            // `2 * LANES` doubles (a `Slot`), not aliased during the call.
            let $out = unsafe { &mut *out };
            let $x = [a0, a1, a2, a3, a4, a5, a6, a7];
            $body;
            out
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        // the pairs one by one (in registers, joined here): an array argument would be
        // stored by the caller and loaded as one vector (a store-forwarding stall);
        // `extern "sysv64"`: the four pairs in `xmm0`–`xmm3`, as the entry point got them
        #[allow(improper_ctypes_definitions)] // see `Entry`
        unsafe extern "sysv64" fn $avx2_inner(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, $out2: &mut Slot,
        ) {
            let $x2 = points([p0, p1, p2, p3]);
            $body2
        }

        #[cfg(target_arch = "x86_64")]
        #[allow(improper_ctypes_definitions)] // see `Entry`
        extern "sysv64" fn $avx2(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, out: *mut Slot,
        ) -> *mut Slot {
            // SAFETY: as in the baseline entry point; the JIT takes this address only when
            // the CPU has AVX2 and FMA (`LaneFn::address`), the requirement of calling
            // `$avx2_inner`.
            unsafe { $avx2_inner(p0, p1, p2, p3, &mut *out) };
            out
        }

        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        #[target_feature(enable = "avx512f,fma")]
        // as `$avx2_inner`
        #[allow(improper_ctypes_definitions)] // see `Entry`
        unsafe extern "sysv64" fn $avx512_inner(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, $out5: &mut Slot,
        ) {
            let $x5 = points([p0, p1, p2, p3]);
            $body5
        }

        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        #[allow(improper_ctypes_definitions)] // see `Entry`
        extern "sysv64" fn $avx512(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, out: *mut Slot,
        ) -> *mut Slot {
            // SAFETY: as in the baseline entry point; the JIT takes this address only when
            // the CPU has AVX-512F and FMA (`LaneFn::address`), the requirement of calling
            // `$avx512_inner`.
            unsafe { $avx512_inner(p0, p1, p2, p3, &mut *out) };
            out
        }
    };
}

/// The stack slot the JIT passes for the results (the `cos` of [`LaneFn::SinCos`] in the
/// second half; 16-byte aligned in the JIT, which reads it back as two-lane vectors); the
/// `LANES` arguments come in registers ([`PAIR_ARGUMENTS`]).
pub(crate) type Slot = [[f64; LANES]; 2];

/// The signature of the lane functions' entry points: four [`Pair`]s in `xmm0`–`xmm3`
/// (x86-64, System V on every OS), the [`Slot`] for the results, which they return (the
/// JIT's loads of the results depend on the returned pointer, so they stay after the call).
///
/// `__m128d` is a 16-byte SSE2 vector (SSE2 is part of every x86-64 target), which
/// `extern "sysv64"` passes in an `xmm` register, as System V does for C's `__m128d` and
/// Cranelift for an `F64X2` parameter; `improper_ctypes_definitions` sees only a struct
/// without `repr(C)`.
#[cfg(target_arch = "x86_64")]
#[allow(improper_ctypes_definitions)]
type Entry = extern "sysv64" fn(Pair, Pair, Pair, Pair, *mut Slot) -> *mut Slot;

/// The C-ABI signature of the lane functions' entry points: eight `f64` in registers, the
/// [`Slot`] for the results, which they return (see the x86-64 `Entry`).
#[cfg(not(target_arch = "x86_64"))]
type Entry = extern "C" fn(f64, f64, f64, f64, f64, f64, f64, f64, *mut Slot) -> *mut Slot;

/// Runs the entry point `f` on the points `x` (for tests).
#[cfg(test)]
fn run_entry(f: Entry, x: [f64; LANES], slot: &mut Slot) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the inverse of `points` (16 bytes per pair, lanes in order; every bit
        // pattern is a valid `__m128d`).
        let [p0, p1, p2, p3] = unsafe { std::mem::transmute::<[f64; LANES], [Pair; 4]>(x) };
        f(p0, p1, p2, p3, slot);
    }
    #[cfg(not(target_arch = "x86_64"))]
    f(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], slot);
}

/// Runs the 16-point entry point `f` on the points `x` (for tests).
#[cfg(all(test, target_arch = "x86_64"))]
fn run_entry_two_blocks(f: EntryTwoBlocks, x: [f64; 2 * LANES], slot: &mut SlotTwoBlocks) {
    // SAFETY: the inverse of `points_two_blocks` (16 bytes per pair, lanes in order; every
    // bit pattern is a valid `__m128d`).
    let [p0, p1, p2, p3, p4, p5, p6, p7] =
        unsafe { std::mem::transmute::<[f64; 2 * LANES], [Pair; LANES]>(x) };
    f(p0, p1, p2, p3, p4, p5, p6, p7, slot);
}

// the entry points take the arguments as four pairs or eight parameters
const _: () = assert!(LANES == 8);

jit_fn!(
    /// `out[0][l] = e^x[l]`.
    jit_exp, jit_exp_avx2, jit_exp_avx2_inner, jit_exp_avx512, jit_exp_avx512_inner, |x, out| exp_n(&x, &mut out[0]),
    |x, out| exp_lanes_avx2!(&x, &mut out[0]), |x, out| exp_lanes_avx512!(&x, &mut out[0])
);
jit_fn!(
    /// `out[0][l] = sin x[l]`.
    jit_sin, jit_sin_avx2, jit_sin_avx2_inner, jit_sin_avx512, jit_sin_avx512_inner, |x, out| sin_n(&x, &mut out[0]),
    |x, out| sin_or_cos_lanes_avx2!(false, &x, &mut out[0]), |x, out| sin_or_cos_lanes_avx512!(false, &x, &mut out[0])
);
jit_fn!(
    /// `out[0][l] = cos x[l]`.
    jit_cos, jit_cos_avx2, jit_cos_avx2_inner, jit_cos_avx512, jit_cos_avx512_inner, |x, out| cos_n(&x, &mut out[0]),
    |x, out| sin_or_cos_lanes_avx2!(true, &x, &mut out[0]), |x, out| sin_or_cos_lanes_avx512!(true, &x, &mut out[0])
);
jit_fn!(
    /// `out[0][l], out[1][l] = sin x[l], cos x[l]`.
    jit_sin_cos, jit_sin_cos_avx2, jit_sin_cos_avx2_inner, jit_sin_cos_avx512, jit_sin_cos_avx512_inner, |x, out| {
        let [sin, cos] = out;
        sin_cos_n(&x, sin, cos)
    },
    |x, out| {
        let [sin, cos] = out;
        sin_cos_lanes_avx2!(&x, sin, cos)
    },
    |x, out| {
        let [sin, cos] = out;
        sin_cos_lanes_avx512!(&x, sin, cos)
    }
);

// ---- the 16-point entry points: both blocks of the JIT's wide loop in one call ----------

/// The stack slot of a call of a 16-point entry point ([`LaneFn::address_two_blocks`]): per
/// output (the `cos` of [`LaneFn::SinCos`] second), block 0's [`LANES`] points, then block
/// 1's; 16-byte aligned in the JIT, which reads it back as two-lane vectors.
#[cfg(target_arch = "x86_64")]
pub(crate) type SlotTwoBlocks = [[f64; 2 * LANES]; 2];

/// The `2 * LANES` points of eight [`Pair`]s, in lane order (block 0's, then block 1's).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn points_two_blocks(pairs: [Pair; LANES]) -> [f64; 2 * LANES] {
    // SAFETY: as in `points`: eight pairs are the sixteen lanes in order.
    unsafe { std::mem::transmute::<[Pair; LANES], [f64; 2 * LANES]>(pairs) }
}

/// The two blocks of [`LANES`] points of `x` (the first `LANES`, the last `LANES`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn blocks_of(x: &[f64; 2 * LANES]) -> (&[f64; LANES], &[f64; LANES]) {
    let (a, b) = x.split_at(LANES);
    match (a.try_into(), b.try_into()) {
        (Ok(a), Ok(b)) => (a, b),
        // `split_at(LANES)` of `2 * LANES` entries: two halves of `LANES`
        _ => unreachable!(),
    }
}

/// The two blocks of [`LANES`] results of `out` (as [`blocks_of`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn blocks_of_mut(out: &mut [f64; 2 * LANES]) -> (&mut [f64; LANES], &mut [f64; LANES]) {
    let (a, b) = out.split_at_mut(LANES);
    match (a.try_into(), b.try_into()) {
        (Ok(a), Ok(b)) => (a, b),
        _ => unreachable!(),
    }
}

/// The 16-point entry points of one lane function (x86-64 only, [`TWO_BLOCK_ENTRIES`]):
/// as [`jit_fn`]'s, with the `2 * LANES` points of both blocks of the JIT's wide loop as
/// eight [`Pair`]s in `xmm0`–`xmm7` (System V's eight vector argument registers; block 0's
/// four first) and a [`SlotTwoBlocks`]. The bodies call the `*_n` functions with N = 16
/// (`exp`'s AVX2 and AVX-512F copies: their 8-lane macros once per block), so each point's
/// result is bitwise the 8-point entry point's; one call for both blocks halves the calls
/// (and the spills around them) and lets the kernel interleave two 8-lane chains (−8 to
/// −18 % per point against two 8-point calls, `two_block_entry_timings`).
#[cfg(target_arch = "x86_64")]
macro_rules! jit_fn_two_blocks {
    (
        $(#[$m:meta])* $base:ident, $avx2:ident, $avx2_inner:ident, $avx512:ident, $avx512_inner:ident,
        |$x:ident, $out:ident| $body:expr, |$x2:ident, $out2:ident| $body2:expr,
        |$x5:ident, $out5:ident| $body5:expr
    ) => {
        $(#[$m])*
        #[allow(improper_ctypes_definitions, clippy::too_many_arguments)] // see `Entry`
        extern "sysv64" fn $base(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, p4: Pair, p5: Pair, p6: Pair, p7: Pair,
            out: *mut SlotTwoBlocks,
        ) -> *mut SlotTwoBlocks {
            // SAFETY: the generated code passes its own 16-aligned stack slot of
            // `4 * LANES` doubles (a `SlotTwoBlocks`), not aliased during the call.
            let $out = unsafe { &mut *out };
            let $x = points_two_blocks([p0, p1, p2, p3, p4, p5, p6, p7]);
            $body;
            out
        }

        #[target_feature(enable = "avx2,fma")]
        // as in `jit_fn`'s inner functions: the pairs one by one, in registers
        #[allow(improper_ctypes_definitions, clippy::too_many_arguments)] // see `Entry`
        unsafe extern "sysv64" fn $avx2_inner(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, p4: Pair, p5: Pair, p6: Pair, p7: Pair,
            $out2: &mut SlotTwoBlocks,
        ) {
            let $x2 = points_two_blocks([p0, p1, p2, p3, p4, p5, p6, p7]);
            $body2
        }

        #[allow(improper_ctypes_definitions, clippy::too_many_arguments)] // see `Entry`
        extern "sysv64" fn $avx2(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, p4: Pair, p5: Pair, p6: Pair, p7: Pair,
            out: *mut SlotTwoBlocks,
        ) -> *mut SlotTwoBlocks {
            // SAFETY: as in the baseline entry point; the JIT takes this address only when
            // the CPU has AVX2 and FMA (`LaneFn::address_two_blocks`), the requirement of
            // calling `$avx2_inner`.
            unsafe { $avx2_inner(p0, p1, p2, p3, p4, p5, p6, p7, &mut *out) };
            out
        }

        #[cfg(vmath_avx512)]
        #[target_feature(enable = "avx512f,fma")]
        // as `$avx2_inner`
        #[allow(improper_ctypes_definitions, clippy::too_many_arguments)] // see `Entry`
        unsafe extern "sysv64" fn $avx512_inner(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, p4: Pair, p5: Pair, p6: Pair, p7: Pair,
            $out5: &mut SlotTwoBlocks,
        ) {
            let $x5 = points_two_blocks([p0, p1, p2, p3, p4, p5, p6, p7]);
            $body5
        }

        #[cfg(vmath_avx512)]
        #[allow(improper_ctypes_definitions, clippy::too_many_arguments)] // see `Entry`
        extern "sysv64" fn $avx512(
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, p4: Pair, p5: Pair, p6: Pair, p7: Pair,
            out: *mut SlotTwoBlocks,
        ) -> *mut SlotTwoBlocks {
            // SAFETY: as in the baseline entry point; the JIT takes this address only when
            // the CPU has AVX-512F and FMA (`LaneFn::address_two_blocks`), the requirement
            // of calling `$avx512_inner`.
            unsafe { $avx512_inner(p0, p1, p2, p3, p4, p5, p6, p7, &mut *out) };
            out
        }
    };
}

/// Whether the lane functions have 16-point entry points ([`LaneFn::address_two_blocks`]):
/// on x86-64, where the eight [`Pair`]s of two blocks fit System V's eight vector argument
/// registers (elsewhere the JIT calls the 8-point entry point once per block).
pub(crate) const TWO_BLOCK_ENTRIES: bool = cfg!(target_arch = "x86_64");

/// The signature of the 16-point entry points: eight [`Pair`]s in `xmm0`–`xmm7` (block 0's
/// four, then block 1's), the [`SlotTwoBlocks`] for the results, which they return.
#[cfg(target_arch = "x86_64")]
#[allow(improper_ctypes_definitions)]
type EntryTwoBlocks = extern "sysv64" fn(
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
    Pair,
    *mut SlotTwoBlocks,
) -> *mut SlotTwoBlocks;

#[cfg(target_arch = "x86_64")]
jit_fn_two_blocks!(
    /// `out[0][l] = e^x[l]` for 16 points (each block as `jit_exp`'s `LANES`).
    jit_exp16, jit_exp16_avx2, jit_exp16_avx2_inner, jit_exp16_avx512, jit_exp16_avx512_inner,
    |x, out| exp_n(&x, &mut out[0]),
    |x, out| {
        let ((x0, x1), (o0, o1)) = (blocks_of(&x), blocks_of_mut(&mut out[0]));
        exp_lanes_avx2!(x0, o0);
        exp_lanes_avx2!(x1, o1);
    },
    |x, out| {
        let ((x0, x1), (o0, o1)) = (blocks_of(&x), blocks_of_mut(&mut out[0]));
        exp_lanes_avx512!(x0, o0);
        exp_lanes_avx512!(x1, o1);
    }
);
#[cfg(target_arch = "x86_64")]
jit_fn_two_blocks!(
    /// `out[0][l] = sin x[l]` for 16 points (each block as `jit_sin`'s `LANES`).
    jit_sin16, jit_sin16_avx2, jit_sin16_avx2_inner, jit_sin16_avx512, jit_sin16_avx512_inner,
    |x, out| sin_n(&x, &mut out[0]),
    |x, out| {
        let ((x0, x1), (o0, o1)) = (blocks_of(&x), blocks_of_mut(&mut out[0]));
        sin_or_cos_lanes_avx2!(false, x0, o0);
        sin_or_cos_lanes_avx2!(false, x1, o1);
    },
    |x, out| {
        let ((x0, x1), (o0, o1)) = (blocks_of(&x), blocks_of_mut(&mut out[0]));
        sin_or_cos_lanes_avx512!(false, x0, o0);
        sin_or_cos_lanes_avx512!(false, x1, o1);
    }
);
#[cfg(target_arch = "x86_64")]
jit_fn_two_blocks!(
    /// `out[0][l] = cos x[l]` for 16 points (each block as `jit_cos`'s `LANES`).
    jit_cos16, jit_cos16_avx2, jit_cos16_avx2_inner, jit_cos16_avx512, jit_cos16_avx512_inner,
    |x, out| cos_n(&x, &mut out[0]),
    |x, out| {
        let ((x0, x1), (o0, o1)) = (blocks_of(&x), blocks_of_mut(&mut out[0]));
        sin_or_cos_lanes_avx2!(true, x0, o0);
        sin_or_cos_lanes_avx2!(true, x1, o1);
    },
    |x, out| {
        let ((x0, x1), (o0, o1)) = (blocks_of(&x), blocks_of_mut(&mut out[0]));
        sin_or_cos_lanes_avx512!(true, x0, o0);
        sin_or_cos_lanes_avx512!(true, x1, o1);
    }
);
#[cfg(target_arch = "x86_64")]
jit_fn_two_blocks!(
    /// `out[0][l], out[1][l] = sin x[l], cos x[l]` for 16 points.
    jit_sin_cos16, jit_sin_cos16_avx2, jit_sin_cos16_avx2_inner, jit_sin_cos16_avx512,
    jit_sin_cos16_avx512_inner,
    |x, out| {
        let [sin, cos] = out;
        sin_cos_n(&x, sin, cos)
    },
    |x, out| {
        let [sin, cos] = out;
        let ((x0, x1), (s0, s1), (c0, c1)) = (blocks_of(&x), blocks_of_mut(sin), blocks_of_mut(cos));
        sin_cos_lanes_avx2!(x0, s0, c0);
        sin_cos_lanes_avx2!(x1, s1, c1);
    },
    |x, out| {
        let [sin, cos] = out;
        let ((x0, x1), (s0, s1), (c0, c1)) = (blocks_of(&x), blocks_of_mut(sin), blocks_of_mut(cos));
        sin_cos_lanes_avx512!(x0, s0, c0);
        sin_cos_lanes_avx512!(x1, s1, c1);
    }
);

/// A lane function the JIT calls as `f(x01, x23, x45, x67, slot)` (or `f(x0, .., x7, slot)`,
/// [`PAIR_ARGUMENTS`]), the results in the
/// [`Slot`] (`cos` of [`LaneFn::SinCos`] in its second half).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LaneFn {
    Exp,
    Sin,
    Cos,
    SinCos,
}

impl LaneFn {
    /// The address of the C-ABI entry point for this CPU.
    pub(crate) fn address(self) -> usize {
        let base: Entry = match self {
            LaneFn::Exp => jit_exp,
            LaneFn::Sin => jit_sin,
            LaneFn::Cos => jit_cos,
            LaneFn::SinCos => jit_sin_cos,
        };
        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        if has_avx512_fma() {
            let avx512: Entry = match self {
                LaneFn::Exp => jit_exp_avx512,
                LaneFn::Sin => jit_sin_avx512,
                LaneFn::Cos => jit_cos_avx512,
                LaneFn::SinCos => jit_sin_cos_avx512,
            };
            return avx512 as usize;
        }
        #[cfg(target_arch = "x86_64")]
        if has_avx2_fma() {
            let avx2: Entry = match self {
                LaneFn::Exp => jit_exp_avx2,
                LaneFn::Sin => jit_sin_avx2,
                LaneFn::Cos => jit_cos_avx2,
                LaneFn::SinCos => jit_sin_cos_avx2,
            };
            return avx2 as usize;
        }
        base as usize
    }

    /// The address of the 16-point entry point for this CPU ([`EntryTwoBlocks`]: both
    /// blocks of the JIT's wide loop in one call; per point bitwise the results of
    /// [`LaneFn::address`]'s entry point), where the lane functions have them
    /// ([`TWO_BLOCK_ENTRIES`]).
    pub(crate) fn address_two_blocks(self) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        {
            let base: EntryTwoBlocks = match self {
                LaneFn::Exp => jit_exp16,
                LaneFn::Sin => jit_sin16,
                LaneFn::Cos => jit_cos16,
                LaneFn::SinCos => jit_sin_cos16,
            };
            #[cfg(vmath_avx512)]
            if has_avx512_fma() {
                let avx512: EntryTwoBlocks = match self {
                    LaneFn::Exp => jit_exp16_avx512,
                    LaneFn::Sin => jit_sin16_avx512,
                    LaneFn::Cos => jit_cos16_avx512,
                    LaneFn::SinCos => jit_sin_cos16_avx512,
                };
                return Some(avx512 as usize);
            }
            if has_avx2_fma() {
                let avx2: EntryTwoBlocks = match self {
                    LaneFn::Exp => jit_exp16_avx2,
                    LaneFn::Sin => jit_sin16_avx2,
                    LaneFn::Cos => jit_cos16_avx2,
                    LaneFn::SinCos => jit_sin_cos16_avx2,
                };
                return Some(avx2 as usize);
            }
            Some(base as usize)
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// Runs the entry point [`LaneFn::address`] gives on `x` (for tests).
    #[cfg(test)]
    fn call(self, x: [f64; LANES], slot: &mut Slot) {
        // SAFETY: `address` is the address of an `Entry` (see there).
        let f = unsafe { std::mem::transmute::<usize, Entry>(self.address()) };
        run_entry(f, x, slot)
    }

    /// Every 16-point entry point of this function that this CPU can run, by name (for
    /// tests: per point bitwise the 8-point entry points' results).
    #[cfg(all(test, target_arch = "x86_64"))]
    fn entries_two_blocks(self) -> Vec<(&'static str, EntryTwoBlocks)> {
        let pick = |fs: [EntryTwoBlocks; 4]| match self {
            LaneFn::Exp => fs[0],
            LaneFn::Sin => fs[1],
            LaneFn::Cos => fs[2],
            LaneFn::SinCos => fs[3],
        };
        let mut v: Vec<(&'static str, EntryTwoBlocks)> = vec![(
            "base",
            pick([jit_exp16, jit_sin16, jit_cos16, jit_sin_cos16]),
        )];
        if has_avx2_fma() {
            let f = pick([
                jit_exp16_avx2,
                jit_sin16_avx2,
                jit_cos16_avx2,
                jit_sin_cos16_avx2,
            ]);
            v.push(("avx2", f));
        }
        #[cfg(vmath_avx512)]
        if has_avx512_fma() {
            let f = pick([
                jit_exp16_avx512,
                jit_sin16_avx512,
                jit_cos16_avx512,
                jit_sin_cos16_avx512,
            ]);
            v.push(("avx512", f));
        }
        if let Some(address) = self.address_two_blocks() {
            // SAFETY: `address_two_blocks` gives the address of an `EntryTwoBlocks`.
            let f = unsafe { std::mem::transmute::<usize, EntryTwoBlocks>(address) };
            v.push(("dispatch", f));
        }
        v
    }

    /// Every entry point of this function that this CPU can run, by name (for tests:
    /// the copies must agree bitwise).
    #[cfg(test)]
    fn entries(self) -> Vec<(&'static str, Entry)> {
        let pick = |fs: [Entry; 4]| match self {
            LaneFn::Exp => fs[0],
            LaneFn::Sin => fs[1],
            LaneFn::Cos => fs[2],
            LaneFn::SinCos => fs[3],
        };
        let mut v: Vec<(&'static str, Entry)> =
            vec![("base", pick([jit_exp, jit_sin, jit_cos, jit_sin_cos]))];
        #[cfg(target_arch = "x86_64")]
        if has_avx2_fma() {
            let f = pick([jit_exp_avx2, jit_sin_avx2, jit_cos_avx2, jit_sin_cos_avx2]);
            v.push(("avx2", f));
        }
        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        if has_avx512_fma() {
            let f = pick([
                jit_exp_avx512,
                jit_sin_avx512,
                jit_cos_avx512,
                jit_sin_cos_avx512,
            ]);
            v.push(("avx512", f));
        }
        v
    }
}

/// `exp`'s table as C arrays (`sn_exp_tail`, `sn_exp_high`: [`EXP_TAIL`], [`EXP_HIGH`] as
/// hex bit patterns), for [`c_source`].
fn exp_table_c() -> String {
    let mut s = String::new();
    for (name, words) in [("sn_exp_tail", &EXP_TAIL), ("sn_exp_high", &EXP_HIGH)] {
        s.push_str(&format!(
            "__device__ const unsigned long long {name}[{EXP_TABLE_LEN}] = {{"
        ));
        for (i, w) in words.iter().enumerate() {
            let sep = if i % 4 == 0 { "\n  " } else { " " };
            s.push_str(&format!("{sep}0x{w:016x}ULL,"));
        }
        s.push_str("\n};\n");
    }
    s
}

/// Whether `exp(x)` takes the crate's own path (the IEEE operations the CPU and the
/// emitted C share, so the same bits on both), not the libm fallback.
pub(crate) fn exp_on_own_path(x: f64) -> bool {
    (EXP_MIN..=EXP_MAX).contains(&x)
}

/// Whether `sin(x)` and `cos(x)` take the crate's own path, as [`exp_on_own_path`].
pub(crate) fn trig_on_own_path(x: f64) -> bool {
    x.abs() <= TRIG_MAX
}

/// The same functions in C for the CUDA emitter (`sn_exp`, `sn_sin`, `sn_cos`): the
/// operations of the kernels above in the same order, each `mul_add` as C's `fma` (one
/// rounding: CUDA's double `fma`, glibc's on the emulated device), with the libm fallback as
/// a branch, so a C compiler that rounds every other operation (no contraction into fused
/// multiply-adds: NVRTC `--fmad=false`, g++ `-ffp-contract=off` for the emulated device)
/// computes bitwise the same results.
/// `sn_exp` reads its table from two `__device__ const unsigned long long` arrays
/// (`sn_exp_tail`, `sn_exp_high`: the bits of [`EXP_TAIL`] and [`EXP_HIGH`]).
/// `sn_sin` and `sn_cos` keep the two-polynomial kernel (the compiler drops the unused
/// half): the CPU's one-polynomial `sin`/`cos` are bitwise its results, so the device needs
/// no copy of them.
pub(crate) fn c_source() -> String {
    // constants as shortest round-trip decimals (C parses them to the same doubles)
    let c = |v: f64| format!("({v:e})");
    format!(
        r#"#ifndef SIMDNLP_VMATH
#define SIMDNLP_VMATH
__device__ inline long long sn_bits(double x) {{ union {{ double d; long long i; }} u; u.d = x; return u.i; }}
__device__ inline double sn_from_bits(long long i) {{ union {{ double d; long long i; }} u; u.i = i; return u.d; }}
{exp_table}__device__ inline double sn_exp(double x) {{
  if (!(x >= {exp_min} && x <= {exp_max})) return exp(x);
  double t = fma(x, {n_over_ln2}, {magic});
  double n = t - {magic};
  double r = fma(-n, {ln2_over_n_lo}, fma(-n, {ln2_over_n_hi}, x));
  unsigned long long tb = (unsigned long long)sn_bits(t);
  unsigned long long j = tb & {table_mask}ULL;
  double scale = sn_from_bits((long long)(sn_exp_high[j] + (tb << {table_shift})));
  double r2 = r * r;
  double q = fma(fma(fma({q5}, r, {q4}), r2, fma({q3}, r, {q2})), r2, fma({q1}, r, {q0}));
  double v = r + fma(r2, q, sn_from_bits((long long)sn_exp_tail[j]));
  return fma(scale, v, scale);
}}
__device__ inline void sn_sincos_kernel(double x, double* s, double* c) {{
  double t = fma(x, {two_over_pi}, {magic});
  double n = t - {magic};
  long long q = sn_bits(t) & 3;
  double hi, lo;
  if (fabs(x) <= {trig_short_max}) {{
    double a = fma(-n, {half_pi_hi}, x);
    hi = a - n * {half_pi_mid};
    lo = fma(-n, {half_pi_lo}, fma(-n, {half_pi_mid}, a - hi));
  }} else {{
    double a = fma(-n, {pio2_1}, x);
    double b1 = -(n * {pio2_2});
    double s1 = a + b1;
    double bb1 = s1 - a;
    double e1 = (a - (s1 - bb1)) + (b1 - bb1);
    double b2 = -(n * {pio2_3});
    double s2 = s1 + b2;
    double bb2 = s2 - s1;
    double e2 = (s1 - (s2 - bb2)) + (b2 - bb2);
    double tail = fma(-n, {pio2_4}, e1 + e2);
    hi = s2 + tail;
    lo = tail - (hi - s2);
  }}
  double z = hi * hi;
  double z2 = z * z;
  double s_tail = fma(fma({s5}, z, {s4}), z2, fma({s3}, z, {s2}));
  double sp = fma(z, fma(z, s_tail, {s1}), {s0});
  double sin_r = hi + fma(hi * z, sp, lo * (1.0 - 0.5 * z));
  double c_tail = fma(fma({c5}, z, {c4}), z2, fma({c3}, z, {c2}));
  double cp = fma(z, fma(z, c_tail, {c1}), {c0});
  double half_z = 0.5 * z;
  double w = 1.0 - half_z;
  double cos_r = w + (((1.0 - w) - half_z) + fma(z2, cp, -(hi * lo)));
  double sx = (q & 1) ? cos_r : sin_r;
  double cx = (q & 1) ? sin_r : cos_r;
  *s = (q & 2) ? -sx : sx;
  *c = ((q + 1) & 2) ? -cx : cx;
}}
__device__ inline double sn_sin(double x) {{
  if (!(fabs(x) <= {trig_max})) return sin(x);
  if (fabs(x) < {trig_tiny}) return x;
  double s, c;
  sn_sincos_kernel(x, &s, &c);
  return s;
}}
__device__ inline double sn_cos(double x) {{
  if (!(fabs(x) <= {trig_max})) return cos(x);
  if (fabs(x) < {trig_tiny}) return 1.0;
  double s, c;
  sn_sincos_kernel(x, &s, &c);
  return c;
}}
#endif
"#,
        exp_min = c(EXP_MIN),
        exp_max = c(EXP_MAX),
        n_over_ln2 = c(N_OVER_LN2),
        magic = c(MAGIC),
        ln2_over_n_hi = c(LN2_OVER_N_HI),
        ln2_over_n_lo = c(LN2_OVER_N_LO),
        exp_table = exp_table_c(),
        table_mask = EXP_TABLE_LEN - 1,
        table_shift = 52 - EXP_TABLE_BITS,
        two_over_pi = c(TWO_OVER_PI),
        pio2_1 = c(PIO2_1),
        pio2_2 = c(PIO2_2),
        pio2_3 = c(PIO2_3),
        pio2_4 = c(PIO2_4),
        half_pi_hi = c(HALF_PI_HI),
        half_pi_mid = c(HALF_PI_MID),
        half_pi_lo = c(HALF_PI_LO),
        trig_max = c(TRIG_MAX),
        trig_short_max = c(TRIG_SHORT_MAX),
        trig_tiny = c(TRIG_TINY),
        s0 = c(SIN_S[0]),
        s1 = c(SIN_S[1]),
        s2 = c(SIN_S[2]),
        s3 = c(SIN_S[3]),
        s4 = c(SIN_S[4]),
        s5 = c(SIN_S[5]),
        c0 = c(COS_C[0]),
        c1 = c(COS_C[1]),
        c2 = c(COS_C[2]),
        c3 = c(COS_C[3]),
        c4 = c(COS_C[4]),
        c5 = c(COS_C[5]),
        q0 = c(EXP_Q[0]),
        q1 = c(EXP_Q[1]),
        q2 = c(EXP_Q[2]),
        q3 = c(EXP_Q[3]),
        q4 = c(EXP_Q[4]),
        q5 = c(EXP_Q[5]),
    )
}

#[cfg(test)]
mod tests;
