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
//!   are exact, the remainder kept as a double-double `hi + lo`;
//! - a Taylor polynomial on the reduced argument (`|r| ≤ ln 2 / 2`: terms to `r¹³`;
//!   `|r| ≤ π/4`: to `r¹⁷` for `sin`, `r¹⁶` for `cos`), truncation error below 10⁻¹⁷
//!   relative, evaluated by Horner for the leading terms and Estrin's scheme for the tail
//!   (short dependency chains), the leading terms added last in double-double;
//! - `exp`: the result scaled by `2ⁿ` built from its bits (exact: only normal results take
//!   this path); `sin`/`cos`: both kernels every time, the quadrant `n mod 4` selects and
//!   flips signs with bit masks.
//!
//! Inputs the fast path does not cover — NaN, ±∞, `exp` arguments outside `[-708, 709]`
//! (overflow, subnormal results, underflow), `|x| > 823 549 ≈ 2¹⁹ π/2` for `sin`/`cos` —
//! are found by a lane mask; only when one lane has one, those lanes (and only those) are
//! recomputed with the platform's libm (`f64::exp`, `f64::sin`, `f64::cos`). `sin(±0)` and
//! tiny arguments (`|x| < 2⁻²⁷`) return `x` (and `cos` 1) by a lane select.
//!
//! # Accuracy and reproducibility
//!
//! Results are within 1 ulp of the platform libm (which is within about half an ulp of the
//! exact value): the tests sweep each domain densely and at random, including subnormals,
//! ±0, NaN, ±∞ and the doubles nearest to multiples of π/2 up to the reduction limit, and
//! measure the largest difference (`exp`, `sin`, `cos`: 1 ulp; most results are equal).
//!
//! No fused multiply-add is used (Rust never contracts `a * b + c`), every lane runs the same
//! IEEE operations whatever the vector width, so the one-point functions ([`exp`], [`sin`],
//! [`cos`], [`sin_cos`]), the [`LANES`]-point functions, the slice functions and their AVX2
//! and AVX-512F copies (x86-64, chosen once at run time; the AVX-512F copies only with a
//! compiler that accepts that target feature, Rust 1.89 or newer: `cfg(vmath_avx512)`,
//! set by `build.rs`) are bitwise identical — on every machine.

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
/// largest `|x|` of the `sin`/`cos` fast path (`≈ 2¹⁹ π/2`, so `|n| ≤ 2¹⁹`)
const TRIG_MAX: f64 = 823_549.0;
/// below this `sin x = x` and `cos x = 1` after rounding
const TRIG_TINY: f64 = 7.450580596923828e-9; // 2⁻²⁷

// 1/k! (k! is exact in f64 for k ≤ 18, so each quotient is correctly rounded)
const F2: f64 = 1.0 / 2.0;
const F3: f64 = 1.0 / 6.0;
const F4: f64 = 1.0 / 24.0;
const F5: f64 = 1.0 / 120.0;
const F6: f64 = 1.0 / 720.0;
const F7: f64 = 1.0 / 5040.0;
const F8: f64 = 1.0 / 40320.0;
const F9: f64 = 1.0 / 362880.0;
const F10: f64 = 1.0 / 3628800.0;
const F11: f64 = 1.0 / 39916800.0;
const F12: f64 = 1.0 / 479001600.0;
const F13: f64 = 1.0 / 6227020800.0;
const F14: f64 = 1.0 / 87178291200.0;
const F15: f64 = 1.0 / 1307674368000.0;
const F16: f64 = 1.0 / 20922789888000.0;
const F17: f64 = 1.0 / 355687428096000.0;

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
    let t = x * INV_LN2 + MAGIC;
    let n = t - MAGIC;
    let ni = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    // r = x - n ln 2 as r + c: hi is exact, r rounds hi - lo, c is its rounding error
    let hi = x - n * LN2_HI;
    let lo = n * LN2_LO;
    let r = hi - lo;
    let c = (hi - r) - lo;
    // p = Σ r^(k-2)/k!: Horner for the three leading terms, Estrin's scheme for the rest
    // (shorter dependency chains; the tail is below 1/100 of the result)
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let tail = ((F5 + F6 * r) + (F7 + F8 * r) * r2)
        + ((F9 + F10 * r) + (F11 + F12 * r) * r2) * r4
        + F13 * r8;
    let p = F2 + r * (F3 + r * (F4 + r * tail));
    // e^(r + c) ≈ (1 + r) + (r² p + c) with 1 + r in double-double
    let one_r = 1.0 + r;
    let one_r_err = (1.0 - one_r) + r;
    let e = one_r + (one_r_err + (r2 * p + c));
    let scale = f64::from_bits((ni.wrapping_add(1023) as u64) << 52);
    e * scale
}

/// `(sin x, cos x)` for `|x| ≤ TRIG_MAX`.
#[inline(always)]
fn sin_cos_kernel(x: f64) -> (f64, f64) {
    let t = x * TWO_OVER_PI + MAGIC;
    let n = t - MAGIC;
    let quadrant = t.to_bits() & 3;
    // x - n π/2 as hi + lo: n·PIO2_1..3 are exact, x - n·PIO2_1 is exact (Sterbenz)
    let a = x - n * PIO2_1;
    let (s1, e1) = two_sum(a, -(n * PIO2_2));
    let (s2, e2) = two_sum(s1, -(n * PIO2_3));
    let tail = (e1 + e2) - n * PIO2_4;
    let hi = s2 + tail;
    let lo = tail - (hi - s2);
    let z = hi * hi;
    // sin(hi + lo) ≈ hi + hi z S(z) + lo (1 - z/2)
    // S(z) = Σ (-1)^k z^(k-1)/(2k+1)!, C(z) = Σ (-1)^k z^(k-2)/(2k)!: Horner for the
    // leading terms, Estrin's scheme for the tails
    let z2 = z * z;
    let z4 = z2 * z2;
    let s_tail = ((-F7 + F9 * z) + (-F11 + F13 * z) * z2) + (-F15 + F17 * z) * z4;
    let s_poly = -F3 + z * (F5 + z * s_tail);
    let sin_r = hi + ((hi * z) * s_poly + lo * (1.0 - 0.5 * z));
    // cos(hi + lo) ≈ (1 - z/2) + z² C(z) - hi lo, with 1 - z/2 in double-double
    let c_tail = ((F8 + -F10 * z) + (F12 + -F14 * z) * z2) + F16 * z4;
    let c_poly = F4 + z * (-F6 + z * c_tail);
    let half_z = 0.5 * z;
    let w = 1.0 - half_z;
    let cos_r = w + (((1.0 - w) - half_z) + (z2 * c_poly - hi * lo));
    // quadrant q: sin x = (sin r, cos r, -sin r, -cos r)[q], cos x = sin(x + π/2);
    // selects and sign flips as bit masks (no per-lane branch)
    let swap = 0u64.wrapping_sub(quadrant & 1);
    let (sin_bits, cos_bits) = (sin_r.to_bits(), cos_r.to_bits());
    let sin_x = (sin_bits & !swap) | (cos_bits & swap);
    let cos_x = (cos_bits & !swap) | (sin_bits & swap);
    let sin_x = sin_x ^ ((quadrant & 2) << 62);
    let cos_x = cos_x ^ ((quadrant.wrapping_add(1) & 2) << 62);
    let tiny = 0u64.wrapping_sub(u64::from(x.abs() < TRIG_TINY));
    (
        f64::from_bits((sin_x & !tiny) | (x.to_bits() & tiny)),
        f64::from_bits((cos_x & !tiny) | (1f64.to_bits() & tiny)),
    )
}

/// Whether `exp_kernel` covers `x` (false for NaN; `&`, not `&&`: no branch).
#[inline(always)]
#[allow(clippy::manual_range_contains)] // `contains` short-circuits: a branch per lane
fn exp_fast(x: f64) -> bool {
    (x >= EXP_MIN) & (x <= EXP_MAX)
}

/// Whether `sin_cos_kernel` covers `x` (false for NaN and ±∞).
#[inline(always)]
fn trig_fast(x: f64) -> bool {
    x.abs() <= TRIG_MAX
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
                out[l] = x[l].exp();
            }
        }
    }
}

/// `(sin x, cos x)` lane by lane.
#[inline(always)]
fn sin_cos_n<const N: usize>(x: &[f64; N], sin: &mut [f64; N], cos: &mut [f64; N]) {
    let mut special = false;
    for l in 0..N {
        let fast = trig_fast(x[l]);
        special |= !fast;
        (sin[l], cos[l]) = sin_cos_kernel(if fast { x[l] } else { 0.0 });
    }
    if special {
        for l in 0..N {
            if !trig_fast(x[l]) {
                (sin[l], cos[l]) = x[l].sin_cos();
            }
        }
    }
}

/// `sin x` lane by lane (the `sin` of [`sin_cos_n`], bitwise).
#[inline(always)]
fn sin_n<const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    let mut cos = [0.0; N];
    sin_cos_n(x, out, &mut cos);
}

/// `cos x` lane by lane (the `cos` of [`sin_cos_n`], bitwise).
#[inline(always)]
fn cos_n<const N: usize>(x: &[f64; N], out: &mut [f64; N]) {
    let mut sin = [0.0; N];
    sin_cos_n(x, &mut sin, out);
}

/// `e^x` (bitwise the lane functions' result for this point).
pub(crate) fn exp(x: f64) -> f64 {
    let mut out = [0.0];
    exp_n(&[x], &mut out);
    out[0]
}

/// `sin x` (bitwise the lane functions' result for this point).
pub(crate) fn sin(x: f64) -> f64 {
    let mut out = [0.0];
    sin_n(&[x], &mut out);
    out[0]
}

/// `cos x` (bitwise the lane functions' result for this point).
pub(crate) fn cos(x: f64) -> f64 {
    let mut out = [0.0];
    cos_n(&[x], &mut out);
    out[0]
}

/// `(sin x, cos x)` (bitwise [`sin`] and [`cos`]).
pub(crate) fn sin_cos(x: f64) -> (f64, f64) {
    let (mut s, mut c) = ([0.0], [0.0]);
    sin_cos_n(&[x], &mut s, &mut c);
    (s[0], c[0])
}

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
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F (checked just above), the only requirement
                // of calling a function compiled with `target_feature(enable = "avx512f")`.
                unsafe { $avx512(dst, src) };
                return;
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above), the only requirement of
                // calling a function compiled with `target_feature(enable = "avx2")`.
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
        /// The CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx2(dst: &mut [f64], src: &[f64]) {
            map_slice(dst, src, |s, d| $kernel(s, d), |s, d| $kernel(s, d));
        }

        /// # Safety
        ///
        /// The CPU has AVX-512F.
        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        #[target_feature(enable = "avx512f")]
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

macro_rules! jit_fn {
    ($(#[$m:meta])* $base:ident, $avx2:ident, $avx2_inner:ident, $avx512:ident, $avx512_inner:ident, |$x:ident, $out:ident| $body:expr) => {
        $(#[$m])*
        extern "C" fn $base(
            a0: f64, a1: f64, a2: f64, a3: f64, a4: f64, a5: f64, a6: f64, a7: f64,
            out: *mut Slot,
        ) {
            // SAFETY: the generated code passes its own 8-aligned stack slot of
            // `2 * LANES` doubles (a `Slot`), not aliased during the call.
            let $out = unsafe { &mut *out };
            let $x = [a0, a1, a2, a3, a4, a5, a6, a7];
            $body
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        // the arguments one by one (in registers, assembled here): an array argument would
        // be stored lane by lane by the caller and loaded as one vector (a store-forwarding
        // stall); `extern "C"`: the eight arguments in the floating-point argument
        // registers, as the entry point got them
        unsafe extern "C" fn $avx2_inner(
            a0: f64, a1: f64, a2: f64, a3: f64, a4: f64, a5: f64, a6: f64, a7: f64,
            $out: &mut Slot,
        ) {
            let $x = [a0, a1, a2, a3, a4, a5, a6, a7];
            $body
        }

        #[cfg(target_arch = "x86_64")]
        extern "C" fn $avx2(
            a0: f64, a1: f64, a2: f64, a3: f64, a4: f64, a5: f64, a6: f64, a7: f64,
            out: *mut Slot,
        ) {
            // SAFETY: as in the baseline entry point; the JIT takes this address only when
            // the CPU has AVX2 (`LaneFn::address`), the requirement of calling `$avx2_inner`.
            unsafe { $avx2_inner(a0, a1, a2, a3, a4, a5, a6, a7, &mut *out) }
        }

        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        #[target_feature(enable = "avx512f")]
        // as `$avx2_inner`
        unsafe extern "C" fn $avx512_inner(
            a0: f64, a1: f64, a2: f64, a3: f64, a4: f64, a5: f64, a6: f64, a7: f64,
            $out: &mut Slot,
        ) {
            let $x = [a0, a1, a2, a3, a4, a5, a6, a7];
            $body
        }

        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        extern "C" fn $avx512(
            a0: f64, a1: f64, a2: f64, a3: f64, a4: f64, a5: f64, a6: f64, a7: f64,
            out: *mut Slot,
        ) {
            // SAFETY: as in the baseline entry point; the JIT takes this address only when
            // the CPU has AVX-512F (`LaneFn::address`), the requirement of calling
            // `$avx512_inner`.
            unsafe { $avx512_inner(a0, a1, a2, a3, a4, a5, a6, a7, &mut *out) }
        }
    };
}

/// The stack slot the JIT passes for the results (the `cos` of [`LaneFn::SinCos`] in the
/// second half); the `LANES` arguments come in registers (eight `f64` parameters: the
/// floating-point argument registers of the x86-64 System V convention).
pub(crate) type Slot = [[f64; LANES]; 2];

/// The C-ABI signature of the lane functions' entry points.
type Entry = extern "C" fn(f64, f64, f64, f64, f64, f64, f64, f64, *mut Slot);

// the entry points take the arguments as eight parameters
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

/// A lane function the JIT calls as `f(x0, .., x7, slot)`, the results in the
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
        if std::arch::is_x86_feature_detected!("avx512f") {
            let avx512: Entry = match self {
                LaneFn::Exp => jit_exp_avx512,
                LaneFn::Sin => jit_sin_avx512,
                LaneFn::Cos => jit_cos_avx512,
                LaneFn::SinCos => jit_sin_cos_avx512,
            };
            return avx512 as usize;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
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
        f(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], slot)
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
        if std::arch::is_x86_feature_detected!("avx2") {
            let f = pick([jit_exp_avx2, jit_sin_avx2, jit_cos_avx2, jit_sin_cos_avx2]);
            v.push(("avx2", f));
        }
        #[cfg(all(target_arch = "x86_64", vmath_avx512))]
        if std::arch::is_x86_feature_detected!("avx512f") {
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
/// operations of the kernels above in the same order, with the libm fallback as a branch,
/// so a C compiler that rounds every operation (no contraction into fused multiply-adds:
/// g++ `-ffp-contract=off` for the emulated device) computes bitwise the same results.
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
  double t = x * {inv_ln2} + {magic};
  double n = t - {magic};
  long long ni = sn_bits(t) - sn_bits({magic});
  double hi = x - n * {ln2_hi};
  double lo = n * {ln2_lo};
  double r = hi - lo;
  double c = (hi - r) - lo;
  double r2 = r * r;
  double r4 = r2 * r2;
  double r8 = r4 * r4;
  double tail = (({f5} + {f6} * r) + ({f7} + {f8} * r) * r2)
      + (({f9} + {f10} * r) + ({f11} + {f12} * r) * r2) * r4
      + {f13} * r8;
  double p = {f2} + r * ({f3} + r * ({f4} + r * tail));
  double one_r = 1.0 + r;
  double one_r_err = (1.0 - one_r) + r;
  double e = one_r + (one_r_err + (r2 * p + c));
  return e * sn_from_bits((ni + 1023) << 52);
}}
__device__ inline void sn_sincos_kernel(double x, double* s, double* c) {{
  double t = x * {two_over_pi} + {magic};
  double n = t - {magic};
  long long q = sn_bits(t) & 3;
  double a = x - n * {pio2_1};
  double b1 = -(n * {pio2_2});
  double s1 = a + b1;
  double bb1 = s1 - a;
  double e1 = (a - (s1 - bb1)) + (b1 - bb1);
  double b2 = -(n * {pio2_3});
  double s2 = s1 + b2;
  double bb2 = s2 - s1;
  double e2 = (s1 - (s2 - bb2)) + (b2 - bb2);
  double tail = (e1 + e2) - n * {pio2_4};
  double hi = s2 + tail;
  double lo = tail - (hi - s2);
  double z = hi * hi;
  double z2 = z * z;
  double z4 = z2 * z2;
  double s_tail = (({mf7} + {f9} * z) + ({mf11} + {f13} * z) * z2) + ({mf15} + {f17} * z) * z4;
  double sp = {mf3} + z * ({f5} + z * s_tail);
  double sin_r = hi + ((hi * z) * sp + lo * (1.0 - 0.5 * z));
  double c_tail = (({f8} + {mf10} * z) + ({f12} + {mf14} * z) * z2) + {f16} * z4;
  double cp = {f4} + z * ({mf6} + z * c_tail);
  double half_z = 0.5 * z;
  double w = 1.0 - half_z;
  double cos_r = w + (((1.0 - w) - half_z) + (z2 * cp - hi * lo));
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
        trig_max = c(TRIG_MAX),
        trig_tiny = c(TRIG_TINY),
        f2 = c(F2),
        f3 = c(F3),
        mf3 = c(-F3),
        f4 = c(F4),
        f5 = c(F5),
        f6 = c(F6),
        mf6 = c(-F6),
        f7 = c(F7),
        mf7 = c(-F7),
        f8 = c(F8),
        f9 = c(F9),
        f10 = c(F10),
        mf10 = c(-F10),
        f11 = c(F11),
        mf11 = c(-F11),
        f12 = c(F12),
        f13 = c(F13),
        mf14 = c(-F14),
        mf15 = c(-F15),
        f16 = c(F16),
        f17 = c(F17),
    )
}

#[cfg(test)]
mod tests;
