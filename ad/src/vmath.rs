//! Lane-parallel `exp`, `sin`, `cos` and `sin`+`cos` in `f64`, shared by the interpreter and
//! the JIT-compiled programs.
//!
//! # Method
//!
//! Each function is one straight-line kernel per lane, written without per-lane branches so
//! that LLVM turns [`LANES`] of them into vector instructions:
//!
//! - range reduction by Cody–Waite: the nearest integer `n` of `x / ln 2` (or `x / (π/2)`)
//!   comes from adding and subtracting `1.5 · 2⁵²` (round to nearest, no `round()` call), and
//!   `x - n c` is computed with the constant `c` split into parts whose products with `n`
//!   are exact, the remainder kept as a double-double `hi + lo` (`sin`/`cos` up to 1608:
//!   `π/2` in three 53-bit parts, the first product exact in a fused multiply-add, `lo`
//!   from the exact error of `hi` in two more; 5 operations after `n` where the two-sum
//!   form took 12, session 27: see `trig_reduce`);
//! - a polynomial on the reduced argument, fitted to the function (Chebyshev interpolation
//!   in 60-digit arithmetic, coefficients rounded to doubles: fewer terms than the Taylor
//!   series for the same error; `|r| ≤ ln 2 / 2`: terms to `r¹²`; `|r| ≤ π/4`: to `r¹³`
//!   for `sin`, `r¹⁴` for `cos`), error below about 2⁻⁵⁵ relative, evaluated by Horner for
//!   the leading terms and Estrin's scheme for the tail (short dependency chains), the
//!   leading terms added last in double-double;
//! - `exp`: the result scaled by `2ⁿ` built from its bits (exact: only normal results take
//!   this path); `sin`+`cos`: both polynomials, the quadrant `n mod 4` selects and flips
//!   signs with bit masks; `sin` or `cos` alone: one polynomial per lane, its coefficients,
//!   multiplier and leading terms picked by the quadrant's parity (a lane select, no
//!   branch), the same IEEE operations as the lane's side of `sin`+`cos`, so bitwise its
//!   result (the argument is in `sin_or_cos_kernel`'s docs), about 11 % faster per point
//!   (session 26; the speed does not depend on how the lanes' quadrants mix). One point
//!   alone (the one-point functions, the slices' remainders) still takes both polynomials:
//!   in scalar code the picks become a branch on the parity.
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

const INV_LN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
/// `ln 2` to 32 bits (`n · LN2_HI` is exact for `|n| < 2²¹`)
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// `ln 2 - LN2_HI` to 53 bits
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
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
/// `P(r) ≈ (eʳ − 1 − r) / r²` on `|r| ≤ ln 2 / 2`, degree 10 (`P(0) = 1/2`).
const EXP_P: [f64; 11] = [
    f64::from_bits(0x3fe0_0000_0000_0000),
    f64::from_bits(0x3fc5_5555_5555_5557),
    f64::from_bits(0x3fa5_5555_5555_5556),
    f64::from_bits(0x3f81_1111_1111_00df),
    f64::from_bits(0x3f56_c16c_16c1_62d6),
    f64::from_bits(0x3f2a_01a0_1abe_6323),
    f64::from_bits(0x3efa_01a0_1a6d_7831),
    f64::from_bits(0x3ec7_1de0_2374_84cd),
    f64::from_bits(0x3e92_7e4d_b67a_c2b0),
    f64::from_bits(0x3e5a_f4dd_da1c_08cd),
    f64::from_bits(0x3e21_f72f_c83b_cbc7),
];

/// `a + b` as the rounded sum and its exact error (Knuth's two-sum; no ordering needed).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `e^x` for `x` in `[EXP_MIN, EXP_MAX]`.
#[inline(always)]
fn exp_kernel(x: f64) -> f64 {
    let t = x.mul_add(INV_LN2, MAGIC);
    let n = t - MAGIC;
    let ni = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    // r = x - n ln 2 as r + c: hi is exact, r rounds hi - lo, c is its rounding error
    let hi = (-n).mul_add(LN2_HI, x);
    let lo = n * LN2_LO;
    let r = hi - lo;
    let c = (hi - r) - lo;
    // p = P(r) ≈ (eʳ − 1 − r)/r²: Horner for the three leading terms, Estrin's scheme for
    // the rest (shorter dependency chains; the tail is below 1/100 of the result)
    let [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10] = EXP_P;
    let r2 = r * r;
    let r4 = r2 * r2;
    let tail = p10
        .mul_add(r, p9)
        .mul_add(r2, p8.mul_add(r, p7))
        .mul_add(r4, p6.mul_add(r, p5).mul_add(r2, p4.mul_add(r, p3)));
    let p = r.mul_add(r.mul_add(r.mul_add(tail, p2), p1), p0);
    // e^(r + c) ≈ (1 + r) + (r² p + c) with 1 + r in double-double
    let one_r = 1.0 + r;
    let one_r_err = (1.0 - one_r) + r;
    let e = one_r + (one_r_err + r2.mul_add(p, c));
    let scale = f64::from_bits((ni.wrapping_add(1023) as u64) << 52);
    e * scale
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

/// Whether `exp_kernel` covers `x` (false for NaN; `&`, not `&&`: no branch).
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

/// `e^x` for an `x` outside `exp_kernel`'s range (NaN, overflow, subnormal results,
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
        for l in 0..N {
            if !exp_fast(x[l]) {
                out[l] = exp_outside(x[l]);
            }
        }
    }
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
        for l in 0..N {
            if !trig_short(x[l]) {
                let (s, c) = sin_cos_wide(x[l]);
                out[l] = if COS { c } else { s };
            }
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
            map_slice(dst, src, |s, d| $kernel(s, d), |s, d| $kernel(s, d));
        }

        /// # Safety
        ///
        /// The CPU has AVX-512F and FMA.
        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        #[target_feature(enable = "avx512f,fma")]
        unsafe fn $avx512(dst: &mut [f64], src: &[f64]) {
            map_slice(dst, src, |s, d| $kernel(s, d), |s, d| $kernel(s, d));
        }
    };
}

slice_fn!(
    /// `dst[l] = e^src[l]` (over the shorter of the two).
    exp_slice, exp_slice_avx2, exp_slice_avx512, exp_slice_base, exp_n
);
slice_fn!(
    /// `dst[l] = sin src[l]` (over the shorter of the two).
    sin_slice, sin_slice_avx2, sin_slice_avx512, sin_slice_base, sin_n
);
slice_fn!(
    /// `dst[l] = cos src[l]` (over the shorter of the two).
    cos_slice, cos_slice_avx2, cos_slice_avx512, cos_slice_base, cos_n
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

macro_rules! jit_fn {
    ($(#[$m:meta])* $base:ident, $avx2:ident, $avx2_inner:ident, $avx512:ident, $avx512_inner:ident, |$x:ident, $out:ident| $body:expr) => {
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
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, $out: &mut Slot,
        ) {
            let $x = points([p0, p1, p2, p3]);
            $body
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
            p0: Pair, p1: Pair, p2: Pair, p3: Pair, $out: &mut Slot,
        ) {
            let $x = points([p0, p1, p2, p3]);
            $body
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

// the entry points take the arguments as four pairs or eight parameters
const _: () = assert!(LANES == 8);

jit_fn!(
    /// `out[0][l] = e^x[l]`.
    jit_exp, jit_exp_avx2, jit_exp_avx2_inner, jit_exp_avx512, jit_exp_avx512_inner, |x, out| exp_n(&x, &mut out[0])
);
jit_fn!(
    /// `out[0][l] = sin x[l]`.
    jit_sin, jit_sin_avx2, jit_sin_avx2_inner, jit_sin_avx512, jit_sin_avx512_inner, |x, out| sin_n(&x, &mut out[0])
);
jit_fn!(
    /// `out[0][l] = cos x[l]`.
    jit_cos, jit_cos_avx2, jit_cos_avx2_inner, jit_cos_avx512, jit_cos_avx512_inner, |x, out| cos_n(&x, &mut out[0])
);
jit_fn!(
    /// `out[0][l], out[1][l] = sin x[l], cos x[l]`.
    jit_sin_cos, jit_sin_cos_avx2, jit_sin_cos_avx2_inner, jit_sin_cos_avx512, jit_sin_cos_avx512_inner, |x, out| {
        let [sin, cos] = out;
        sin_cos_n(&x, sin, cos)
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

    /// Runs the entry point [`LaneFn::address`] gives on `x` (for tests).
    #[cfg(test)]
    fn call(self, x: [f64; LANES], slot: &mut Slot) {
        // SAFETY: `address` is the address of an `Entry` (see there).
        let f = unsafe { std::mem::transmute::<usize, Entry>(self.address()) };
        run_entry(f, x, slot)
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

/// The same functions in C for the CUDA emitter (`sn_exp`, `sn_sin`, `sn_cos`): the
/// operations of the kernels above in the same order, each `mul_add` as C's `fma` (one
/// rounding: CUDA's double `fma`, glibc's on the emulated device), with the libm fallback as
/// a branch, so a C compiler that rounds every other operation (no contraction into fused
/// multiply-adds: NVRTC `--fmad=false`, g++ `-ffp-contract=off` for the emulated device)
/// computes bitwise the same results.
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
__device__ inline double sn_exp(double x) {{
  if (!(x >= {exp_min} && x <= {exp_max})) return exp(x);
  double t = fma(x, {inv_ln2}, {magic});
  double n = t - {magic};
  long long ni = sn_bits(t) - sn_bits({magic});
  double hi = fma(-n, {ln2_hi}, x);
  double lo = n * {ln2_lo};
  double r = hi - lo;
  double c = (hi - r) - lo;
  double r2 = r * r;
  double r4 = r2 * r2;
  double tail = fma(fma(fma({p10}, r, {p9}), r2, fma({p8}, r, {p7})), r4, fma(fma({p6}, r, {p5}), r2, fma({p4}, r, {p3})));
  double p = fma(r, fma(r, fma(r, tail, {p2}), {p1}), {p0});
  double one_r = 1.0 + r;
  double one_r_err = (1.0 - one_r) + r;
  double e = one_r + (one_r_err + fma(r2, p, c));
  return e * sn_from_bits((ni + 1023) << 52);
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
        inv_ln2 = c(INV_LN2),
        magic = c(MAGIC),
        ln2_hi = c(LN2_HI),
        ln2_lo = c(LN2_LO),
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
        p0 = c(EXP_P[0]),
        p1 = c(EXP_P[1]),
        p2 = c(EXP_P[2]),
        p3 = c(EXP_P[3]),
        p4 = c(EXP_P[4]),
        p5 = c(EXP_P[5]),
        p6 = c(EXP_P[6]),
        p7 = c(EXP_P[7]),
        p8 = c(EXP_P[8]),
        p9 = c(EXP_P[9]),
        p10 = c(EXP_P[10]),
    )
}

#[cfg(test)]
mod tests;
