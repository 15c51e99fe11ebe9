//! The lane functions against the platform libm (at most 1 ulp apart over dense sweeps,
//! random arguments and the special values) and against each other (bitwise: one point,
//! `LANES` points, slices, the AVX2 and baseline copies, the JIT entry points).

use super::*;
use proptest::prelude::*;

/// The distance in ulps between `a` and `b` (0 for two NaNs, `u64::MAX` for a NaN and a
/// number).
fn ulps(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    // doubles in order as integers (−0 and +0 next to each other, one apart)
    let ord = |v: f64| {
        let b = v.to_bits() as i64;
        if b < 0 { i64::MIN - b } else { b }
    };
    ord(a).abs_diff(ord(b))
}

/// The largest ulp distance of `ours` from `libm` over `xs`, and where.
fn worst(xs: impl Iterator<Item = f64>, ours: fn(f64) -> f64, libm: fn(f64) -> f64) -> (u64, f64) {
    let mut w = (0, f64::NAN);
    for x in xs {
        let d = ulps(ours(x), libm(x));
        if d > w.0 {
            w = (d, x);
        }
    }
    w
}

fn libm_exp(x: f64) -> f64 {
    x.exp()
}
fn libm_sin(x: f64) -> f64 {
    x.sin()
}
fn libm_cos(x: f64) -> f64 {
    x.cos()
}

/// `n` evenly spaced points over `[lo, hi]`.
fn sweep(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..=n).map(move |k| lo + (hi - lo) * (k as f64 / n as f64))
}

/// Special and boundary arguments of every function.
fn specials() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::EPSILON,
        TRIG_TINY,
        -TRIG_TINY,
        TRIG_TINY * (1.0 - f64::EPSILON),
        1.0,
        -1.0,
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        EXP_MIN,
        EXP_MAX,
        -745.2,
        -745.1,
        -708.4,
        -708.3,
        709.7,
        709.8,
        710.0,
        1e300,
        -1e300,
        TRIG_MAX,
        -TRIG_MAX,
        TRIG_MAX * (1.0 + f64::EPSILON),
        TRIG_SHORT_MAX,
        -TRIG_SHORT_MAX,
        TRIG_SHORT_MAX * (1.0 + f64::EPSILON),
        1e6,
        1e22,
        -1e22,
        std::f64::consts::FRAC_PI_4,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
    ];
    // around ±ln 2 / 2 · k and the fast-path limits, a few ulps either side
    let mut around = Vec::new();
    for &c in &v {
        if c.is_finite() && c != 0.0 {
            for d in 1..4u64 {
                around.push(f64::from_bits(c.to_bits().wrapping_add(d)));
                around.extend(c.to_bits().checked_sub(d).map(f64::from_bits));
            }
        }
    }
    v.extend(around);
    v
}

/// Knuth's MMIX linear congruential generator from `seed`: each call returns the next state.
fn lcg(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state
    }
}

/// The top 53 bits of `bits` as a double in `[0, 1)`.
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// Doubles nearest to `k π/2` (and a few ulps either side) for `k` up to the reduction
/// limit: the arguments whose reduced value cancels most.
fn near_multiples_of_half_pi() -> Vec<f64> {
    let mut ks: Vec<u64> = (1..2000).collect();
    let mut k = 2000u64;
    while k < 600_000 {
        ks.push(k);
        k = k * 9 / 8 + 7;
    }
    // the largest k inside the fast path and a spread of pseudo-random ones
    ks.extend([524_287, 524_288, 524_200, 300_007, 99_991, 65_536, 65_535]);
    let mut next = lcg(0x9e37_79b9_7f4a_7c15);
    for _ in 0..2000 {
        ks.push((next() >> 33) % 524_000 + 1);
    }
    let mut v = Vec::new();
    for k in ks {
        let x = k as f64 * std::f64::consts::FRAC_PI_2;
        for d in -3i64..=3 {
            let x = f64::from_bits((x.to_bits() as i64 + d) as u64);
            v.push(x);
            v.push(-x);
        }
    }
    v
}

#[test]
fn exp_within_one_ulp_of_libm() {
    let mut points: Vec<f64> = sweep(-708.0, 709.0, 200_000).collect();
    points.extend(sweep(-1.0, 1.0, 100_000));
    points.extend(sweep(-1e-6, 1e-6, 10_000));
    points.extend(sweep(-746.0, -700.0, 10_000));
    points.extend(sweep(700.0, 711.0, 10_000));
    points.extend(specials());
    // the reduction's half-way points (m + 1/2)·ln 2/16, where |r| is largest and n may
    // round either way, a few doubles either side (every m over the fast path)
    for m in -16_343..16_367 {
        let x = (f64::from(m) + 0.5) * (std::f64::consts::LN_2 / 16.0);
        for d in -2i64..=2 {
            points.push(f64::from_bits((x.to_bits() as i64 + d) as u64));
        }
    }
    let (d, at) = worst(points.into_iter(), exp, libm_exp);
    assert!(d <= 1, "exp: {d} ulps at {at:e}");
}

/// `a·b` as the rounded product and its exact error (one fused multiply-add).
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// The square of the double-double `hi + lo`, renormalized (relative error about 2⁻¹⁰⁴).
fn dd_square((hi, lo): (f64, f64)) -> (f64, f64) {
    let (p, e) = two_prod(hi, hi);
    let e = (2.0 * hi).mul_add(lo, e);
    let s = p + e;
    (s, e - (s - p))
}

/// Each entry of `exp`'s table is `2^(j/16)`: `hi·(1 + tail)` (`hi` from `EXP_HIGH[j]` plus
/// `j << 48`) raised to the 16th power in double-double (four squarings) is `2ʲ` to 2⁻⁹⁰
/// relative (a wrong last bit of `hi` is off by 2⁻⁴⁸; the table is `hi·(1 + tail)` to
/// 2⁻¹⁰⁷, the squarings add about 2⁻¹⁰⁰), `hi` is the double nearest to `2^(j/16)`
/// (`|tail|` at most half its ulp) and in `[1, 2)`.
#[test]
fn exp_table_is_two_to_the_j_over_16() {
    for j in 0..EXP_TABLE_LEN as usize {
        let hi = f64::from_bits(EXP_HIGH[j].wrapping_add((j as u64) << (52 - EXP_TABLE_BITS)));
        let tail = f64::from_bits(EXP_TAIL[j]);
        assert!((1.0..2.0).contains(&hi), "entry {j}: hi {hi:e}");
        assert!(tail.abs() <= f64::EPSILON / 2.0, "entry {j}: tail {tail:e}");
        let mut dd = two_prod(hi, tail);
        let s = hi + dd.0;
        dd = (s, dd.1 + (dd.0 - (s - hi)));
        for _ in 0..EXP_TABLE_BITS {
            dd = dd_square(dd);
        }
        let want = 2f64.powi(j as i32);
        let rel = ((dd.0 - want) + dd.1).abs() / want;
        assert!(
            rel < 2f64.powi(-90),
            "entry {j}: (hi (1 + tail))^16 off by {rel:e}"
        );
    }
}

#[test]
fn sin_cos_within_one_ulp_of_libm() {
    let mut points: Vec<f64> = sweep(-10.0, 10.0, 200_000).collect();
    points.extend(sweep(-1e-3, 1e-3, 10_000));
    points.extend(sweep(-1000.0, 1000.0, 50_000));
    points.extend(sweep(TRIG_SHORT_MAX - 20.0, TRIG_SHORT_MAX + 20.0, 20_000));
    points.extend(sweep(-TRIG_MAX * 1.01, TRIG_MAX * 1.01, 50_000));
    points.extend(specials());
    points.extend(near_multiples_of_half_pi());
    for (name, ours, libm) in [
        ("sin", sin as fn(f64) -> f64, libm_sin as fn(f64) -> f64),
        ("cos", cos, libm_cos),
    ] {
        let (d, at) = worst(points.iter().copied(), ours, libm);
        assert!(d <= 1, "{name}: {d} ulps at {at:e} ({at:?})");
    }
}

/// The short reduction's test points: the doubles nearest to `k π/2` up to
/// `TRIG_SHORT_MAX` (where `x − nπ/2` cancels most) and a sweep of the short range.
fn short_range_points() -> Vec<f64> {
    let mut points: Vec<f64> = near_multiples_of_half_pi()
        .into_iter()
        .filter(|x| x.abs() <= TRIG_SHORT_MAX)
        .collect();
    points.extend(sweep(-TRIG_SHORT_MAX, TRIG_SHORT_MAX, 100_000));
    points
}

/// The short reduction (`|x| ≤ TRIG_SHORT_MAX`) against the full one at
/// [`short_range_points`] (the doubles nearest to `k π/2` are its worst case);
/// both within 1 ulp of each other, and at `29 π/2`, the nearest double to a multiple of
/// π/2 in the range, within 1 ulp of libm.
#[test]
fn short_reduction_matches_the_full_one() {
    let points = short_range_points();
    assert!(points.len() > 100_000);
    for &x in &points {
        let (s, c) = sin_cos_kernel::<true>(x);
        let (sf, cf) = sin_cos_kernel::<false>(x);
        assert!(ulps(s, sf) <= 1 && ulps(c, cf) <= 1, "at {x:e}");
    }
    let x = 29.0 * std::f64::consts::FRAC_PI_2;
    for d in -2i64..=2 {
        let x = f64::from_bits((x.to_bits() as i64 + d) as u64);
        assert!(
            ulps(sin(x), x.sin()) <= 1 && ulps(cos(x), x.cos()) <= 1,
            "at {x:e}"
        );
    }
}

/// The short reduction's `hi + lo` against the full reduction's (whose relative error is
/// below 2⁻⁹⁵) at the doubles nearest to `k π/2` up to the short range's end (where
/// `x − nπ/2` cancels most: `|x − nπ/2|` down to 2⁻⁶⁰·⁵ at `29 π/2`) and over a sweep of the
/// short range: the same quadrant, and `hi + lo` within 2⁻⁹⁰ relative (simulated against
/// 100-digit values: 2⁻⁹⁵·⁶ at worst; the two-sum form before session 27 reached 2⁻⁵⁶·⁶).
/// `hi − hf` is exact (both near `x − nπ/2`, Sterbenz), so the difference is computed to
/// about 2⁻⁵³ of itself.
#[test]
fn short_reduction_is_within_2_pow_minus_90_of_the_full_one() {
    let mut points = short_range_points();
    points.extend(sweep(-2.0, 2.0, 10_000));
    let bound = 2f64.powi(-90);
    let mut worst = 0.0f64;
    for &x in &points {
        let (hi, lo, q) = trig_reduce::<true>(x);
        let (hf, lf, qf) = trig_reduce::<false>(x);
        assert_eq!(q, qf, "quadrant at {x:e}");
        let diff = (hi - hf) + (lo - lf);
        assert!(
            diff.abs() <= bound * hf.abs(),
            "at {x:e} ({x:?}): hi {hi:e} lo {lo:e}, full {hf:e} {lf:e}"
        );
        if hf != 0.0 {
            worst = worst.max(diff.abs() / hf.abs());
        }
    }
    assert!(worst < bound);
}

#[test]
fn special_values() {
    assert_eq!(exp(0.0), 1.0);
    assert_eq!(exp(-0.0), 1.0);
    assert_eq!(exp(f64::INFINITY), f64::INFINITY);
    assert_eq!(exp(f64::NEG_INFINITY), 0.0);
    assert_eq!(exp(1000.0), f64::INFINITY);
    assert_eq!(exp(-1000.0), 0.0);
    assert!(exp(f64::NAN).is_nan());
    assert_eq!(exp(-740.0), (-740.0f64).exp()); // subnormal result
    for x in [
        0.0,
        -0.0,
        1e-300,
        -1e-300,
        f64::from_bits(1),
        -f64::from_bits(1),
    ] {
        assert_eq!(sin(x).to_bits(), x.to_bits(), "sin({x:e})");
        assert_eq!(cos(x), 1.0, "cos({x:e})");
    }
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(sin(x).is_nan() && cos(x).is_nan(), "sin/cos({x})");
    }
    assert_eq!(sin(1e22), 1e22f64.sin());
    assert_eq!(cos(1e22), 1e22f64.cos());
}

/// One point (the dispatched and the baseline copies), `LANES` points (each lane alone and
/// mixed with special lanes), slices (every copy this CPU runs), and the JIT entry points
/// agree bitwise: the copies compiled with FMA (hardware `vfmadd`) and without (libm's
/// correctly rounded `fma`) compute the same fused operations.
fn check_bitwise(xs: &[f64]) {
    let one = |f: fn(f64) -> f64| xs.iter().map(|&x| f(x).to_bits()).collect::<Vec<_>>();
    let (e1, s1, c1) = (one(exp), one(sin), one(cos));
    for (k, &x) in xs.iter().enumerate() {
        let (s, c) = sin_cos(x);
        assert_eq!((s.to_bits(), c.to_bits()), (s1[k], c1[k]), "sin_cos({x:e})");
        // the one-point baseline copies (libm's `fma` on x86-64) agree with the dispatched
        let (s, c) = sin_cos_one_base(x);
        assert_eq!(
            (s.to_bits(), c.to_bits()),
            (s1[k], c1[k]),
            "base sin_cos({x:e})"
        );
        assert_eq!(exp_one_base(x).to_bits(), e1[k], "base exp({x:e})");
        assert_eq!(sin_one_base(x).to_bits(), s1[k], "base sin({x:e})");
        assert_eq!(cos_one_base(x).to_bits(), c1[k], "base cos({x:e})");
        if !trig_short(x) {
            // the wide path's baseline copy (the dispatched one runs above)
            let (s, c) = sin_cos_wide_kernel(x);
            assert_eq!(
                (s.to_bits(), c.to_bits()),
                (s1[k], c1[k]),
                "wide sin_cos({x:e})"
            );
        }
    }
    type SliceFn = fn(&mut [f64], &[f64]);
    let mut fns: Vec<(&str, SliceFn, SliceFn, SliceFn)> = vec![(
        "dispatch",
        exp_slice as SliceFn,
        sin_slice as SliceFn,
        cos_slice as SliceFn,
    )];
    fns.push(("base", exp_slice_base, sin_slice_base, cos_slice_base));
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        fn e(d: &mut [f64], s: &[f64]) {
            // SAFETY: AVX2 and FMA were detected by the caller.
            unsafe { exp_slice_avx2(d, s) }
        }
        fn si(d: &mut [f64], s: &[f64]) {
            // SAFETY: AVX2 and FMA were detected by the caller.
            unsafe { sin_slice_avx2(d, s) }
        }
        fn co(d: &mut [f64], s: &[f64]) {
            // SAFETY: AVX2 and FMA were detected by the caller.
            unsafe { cos_slice_avx2(d, s) }
        }
        fns.push(("avx2", e, si, co));
    }
    #[cfg(all(target_arch = "x86_64", vmath_avx512))]
    if has_avx512_fma() {
        fn e(d: &mut [f64], s: &[f64]) {
            // SAFETY: AVX-512F and FMA were detected by the caller.
            unsafe { exp_slice_avx512(d, s) }
        }
        fn si(d: &mut [f64], s: &[f64]) {
            // SAFETY: AVX-512F and FMA were detected by the caller.
            unsafe { sin_slice_avx512(d, s) }
        }
        fn co(d: &mut [f64], s: &[f64]) {
            // SAFETY: AVX-512F and FMA were detected by the caller.
            unsafe { cos_slice_avx512(d, s) }
        }
        fns.push(("avx512", e, si, co));
    }
    for (name, fe, fs, fc) in fns {
        for (what, f, want) in [("exp", fe, &e1), ("sin", fs, &s1), ("cos", fc, &c1)] {
            let mut out = vec![0.0; xs.len()];
            f(&mut out, xs);
            let got: Vec<u64> = out.iter().map(|v| v.to_bits()).collect();
            assert_eq!(&got, want, "{name} {what}");
        }
    }
    // the JIT entry points (the dispatched one and every copy this CPU runs), LANES at a
    // time (the last chunk padded)
    for chunk in xs.chunks(LANES) {
        let mut input = [0.5; LANES];
        input[..chunk.len()].copy_from_slice(chunk);
        for f in [LaneFn::Exp, LaneFn::Sin, LaneFn::Cos, LaneFn::SinCos] {
            let mut slots = vec![("dispatch", [[0.0; LANES]; 2])];
            f.call(input, &mut slots[0].1);
            for (name, entry) in f.entries() {
                let mut slot = [[0.0; LANES]; 2];
                run_entry(entry, input, &mut slot);
                slots.push((name, slot));
            }
            for (name, slot) in &slots {
                for (l, &x) in chunk.iter().enumerate() {
                    let want = match f {
                        LaneFn::Exp => vec![exp(x)],
                        LaneFn::Sin => vec![sin(x)],
                        LaneFn::Cos => vec![cos(x)],
                        LaneFn::SinCos => vec![sin(x), cos(x)],
                    };
                    let got: Vec<f64> = slot.iter().take(want.len()).map(|h| h[l]).collect();
                    let (w, g): (Vec<u64>, Vec<u64>) = (
                        want.iter().map(|v| v.to_bits()).collect(),
                        got.iter().map(|v| v.to_bits()).collect(),
                    );
                    assert_eq!(g, w, "{f:?} {name} lane {l} at {x:e}");
                }
            }
        }
    }
}

#[test]
fn all_forms_bitwise_equal() {
    let mut xs = specials();
    xs.extend(sweep(-20.0, 20.0, 997));
    xs.extend(sweep(-750.0, 750.0, 301));
    // odd length: the slices have a remainder
    if xs.len() % LANES == 0 {
        xs.push(0.3);
    }
    check_bitwise(&xs);
}

/// `sin` and `cos` alone (one polynomial per lane, picked by the quadrant) against the `sin`
/// and `cos` of the two-polynomial kernel, bitwise: `LANES` points at a time (neighbouring
/// lanes in different quadrants as well as the same), over every quadrant densely, ±0,
/// tiny and subnormal arguments, the doubles nearest to `k π/2`, random arguments in the
/// short range and beyond it, NaN and ±∞.
#[test]
fn sin_and_cos_alone_match_the_two_polynomial_kernel() {
    let mut xs: Vec<f64> = sweep(-8.0, 8.0, 40_000).collect();
    xs.extend(sweep(-TRIG_SHORT_MAX - 10.0, TRIG_SHORT_MAX + 10.0, 20_000));
    xs.extend(sweep(-3.0 * TRIG_TINY, 3.0 * TRIG_TINY, 2_000));
    xs.extend(specials());
    xs.extend(near_multiples_of_half_pi());
    // a quarter period apart: every chunk of eight mixes the quadrants' parity
    xs.extend((0..8_000).map(|k| 0.3 + (k as f64) * std::f64::consts::FRAC_PI_2));
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut bits = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for scale in [1.0, 10.0, 1_000.0, 2_000.0, 1e6] {
        xs.extend((0..4_000).map(|_| scale * (2.0 * unit(bits()) - 1.0)));
    }
    // any double (all exponents, NaNs with payloads)
    xs.extend((0..4_000).map(|_| f64::from_bits(bits())));
    for chunk in xs.chunks(LANES) {
        let mut x = [0.5; LANES];
        x[..chunk.len()].copy_from_slice(chunk);
        let (mut s2, mut c2) = ([0.0; LANES], [0.0; LANES]);
        sin_cos_n(&x, &mut s2, &mut c2);
        let (mut s1, mut c1) = ([0.0; LANES], [0.0; LANES]);
        sin_n(&x, &mut s1);
        cos_n(&x, &mut c1);
        for l in 0..LANES {
            assert_eq!(s1[l].to_bits(), s2[l].to_bits(), "sin({:e})", x[l]);
            assert_eq!(c1[l].to_bits(), c2[l].to_bits(), "cos({:e})", x[l]);
            let (s, c) = sin_cos_kernel::<true>(x[l]);
            if trig_short(x[l]) {
                assert_eq!(s1[l].to_bits(), s.to_bits(), "kernel sin({:e})", x[l]);
                assert_eq!(c1[l].to_bits(), c.to_bits(), "kernel cos({:e})", x[l]);
            }
        }
    }
}

/// `sin`, `cos` and `sin_cos` of calls whose lanes all read the same side (`q = n + COS` of one
/// parity in every lane: the AVX-512F copies then run that side alone, without picks) and of calls
/// that mix the readings (picked per lane), against the one-point functions (two
/// polynomials), bitwise: every JIT entry point this CPU runs and the dispatched slices, on
/// the same `x` in both kinds of call. Each `x` of a sweep over the short range and past it,
/// the doubles nearest to `k π/2`, tiny arguments, ±0, ±∞ and NaN goes into a call
/// `[x, −x, …]` (one parity in every lane where `x` is in the short range: `n` and `−n`), the
/// same call with one lane special (∞ or NaN, computed at +0 and fixed up), a call with
/// `0.3` (`n = 0`) and `1.9` (`n = 1`) between the copies of `x` (mixed), and two calls with
/// `x` in one half and a point of the other parity in the other (mixed; the AVX2 copies
/// reduce in halves). Where `|x| ≤ TRIG_SMALL_MAX` the first call and the halves with `0.3`
/// take the small-argument path (no reduction): a dense sweep of ±0.8 and the doubles next
/// to that bound.
#[test]
fn uniform_and_mixed_calls_agree_bitwise() {
    let mut xs: Vec<f64> = sweep(-TRIG_SHORT_MAX - 20.0, TRIG_SHORT_MAX + 20.0, 6_000).collect();
    xs.extend(sweep(-8.0, 8.0, 3_000));
    // the small-argument path (every lane `|x| ≤ TRIG_SMALL_MAX`) and its edge
    xs.extend(sweep(-0.8, 0.8, 4_000));
    for edge in [TRIG_SMALL_MAX, -TRIG_SMALL_MAX] {
        let bits = edge.to_bits();
        xs.extend([bits - 1, bits, bits + 1].map(f64::from_bits));
    }
    xs.extend(sweep(-3.0 * TRIG_TINY, 3.0 * TRIG_TINY, 200));
    xs.extend(specials());
    xs.extend(
        near_multiples_of_half_pi()
            .into_iter()
            .filter(|x| x.abs() < 2_000.0),
    );
    let mut calls: Vec<f64> = Vec::new();
    // per function (sin, cos): uniform calls of each reading, to check that both were hit
    let mut uniform = [[0usize; 2]; 2];
    let mut small_calls = 0;
    for &x in &xs {
        let same = [x, -x, x, -x, -x, x, -x, x];
        small_calls += usize::from(x.abs() <= TRIG_SMALL_MAX);
        if trig_short(x) {
            let (_, _, quadrant) = trig_reduce::<true>(x);
            for (f, cos) in [(0, 0), (1, 1)] {
                uniform[f][((quadrant + cos) & 1) as usize] += 1;
            }
        }
        let mut special = same;
        special[3] = if x.to_bits() & 1 == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        };
        let mixed = [x, 0.3, -x, 1.9, x, 1.9, -x, 0.3];
        // the other parity in one half (the AVX2 copies test each half's lanes)
        let (_, _, quadrant) = trig_reduce::<true>(if trig_short(x) { x } else { 0.0 });
        let y = if quadrant & 1 == 0 { 1.9 } else { 0.3 };
        let halves = [x, -x, x, -x, y, -y, y, -y];
        let halves_swapped = [y, -y, y, -y, x, -x, x, -x];
        calls.extend(
            same.into_iter()
                .chain(special)
                .chain(mixed)
                .chain(halves)
                .chain(halves_swapped),
        );
    }
    assert!(
        uniform.iter().flatten().all(|&k| k > 1_000),
        "uniform calls per function and reading: {uniform:?}"
    );
    assert!(
        small_calls > 3_000,
        "calls with every lane small: {small_calls}"
    );
    let want = |f: fn(f64) -> f64| calls.iter().map(|&x| f(x).to_bits()).collect::<Vec<_>>();
    let (want_sin, want_cos) = (want(sin), want(cos));
    // (function, its outputs' expected bits: `sin_cos` writes `cos` second)
    let checks = [
        (LaneFn::Sin, vec![&want_sin]),
        (LaneFn::Cos, vec![&want_cos]),
        (LaneFn::SinCos, vec![&want_sin, &want_cos]),
    ];
    for (f, wants) in checks {
        for (name, entry) in f.entries() {
            for (k, chunk) in calls.chunks_exact(LANES).enumerate() {
                let mut slot = [[0.0; LANES]; 2];
                run_entry(entry, chunk.try_into().unwrap(), &mut slot);
                for (output, want) in wants.iter().enumerate() {
                    for l in 0..LANES {
                        assert_eq!(
                            slot[output][l].to_bits(),
                            want[k * LANES + l],
                            "{f:?} {name} output {output} lane {l} of {chunk:?}"
                        );
                    }
                }
            }
        }
    }
    for (name, g, want) in [
        ("sin", sin_slice as fn(&mut [f64], &[f64]), &want_sin),
        ("cos", cos_slice, &want_cos),
    ] {
        let mut out = vec![0.0; calls.len()];
        g(&mut out, &calls);
        for (k, (v, w)) in out.iter().zip(want.iter()).enumerate() {
            assert_eq!(v.to_bits(), *w, "{name} slice at {:e}", calls[k]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_arguments(xs in prop::collection::vec(
        prop_oneof![
            -800.0..800.0f64,
            -1e7..1e7f64,
            -4.0..4.0f64,
            any::<f64>(),
            prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
        ],
        1..40,
    )) {
        for &x in &xs {
            prop_assert!(ulps(exp(x), x.exp()) <= 1, "exp({:e})", x);
            prop_assert!(ulps(sin(x), x.sin()) <= 1, "sin({:e})", x);
            prop_assert!(ulps(cos(x), x.cos()) <= 1, "cos({:e})", x);
        }
        check_bitwise(&xs);
    }
}

/// The largest differences from libm over long sweeps (for the report; run with
/// `cargo test --release -p simdnlp-ad --lib vmath::tests::ulp_report -- --ignored --nocapture`).
#[test]
#[ignore]
fn ulp_report() {
    let n = 20_000_000;
    let report = |name: &str, xs: Vec<f64>, ours: fn(f64) -> f64, libm: fn(f64) -> f64| {
        let mut hist = [0usize; 3];
        let mut w = (0u64, 0.0);
        for &x in &xs {
            let d = ulps(ours(x), libm(x));
            hist[(d as usize).min(2)] += 1;
            if d > w.0 {
                w = (d, x);
            }
        }
        println!(
            "{name}: {} points, max {} ulp (at {:e}); 0 ulp {}, 1 ulp {}, >1 ulp {}",
            xs.len(),
            w.0,
            w.1,
            hist[0],
            hist[1],
            hist[2]
        );
    };
    report("exp", sweep(-708.0, 709.0, n).collect(), exp, libm_exp);
    report("exp |x|<1", sweep(-1.0, 1.0, n).collect(), exp, libm_exp);
    let mut trig: Vec<f64> = sweep(-10.0, 10.0, n).collect();
    trig.extend(near_multiples_of_half_pi());
    report("sin", trig.clone(), sin, libm_sin);
    report("cos", trig, cos, libm_cos);
    let wide: Vec<f64> = sweep(-TRIG_MAX, TRIG_MAX, n).collect();
    report("sin wide", wide.clone(), sin, libm_sin);
    report("cos wide", wide, cos, libm_cos);
}

/// Timings of the JIT entry points (independent calls, and a chain where each call's
/// arguments depend on the previous results) and of libm, in ns per point
/// (`cargo test --release -p simdnlp-ad --lib vmath::tests::lane_timings -- --ignored --nocapture`).
#[test]
#[ignore = "a timing report, not a check"]
fn lane_timings() {
    use std::hint::black_box;
    use std::time::Instant;
    let n = 200_000;
    let xs: Vec<f64> = (0..n).map(|k| -1.2 + 2.4 * (k as f64 / n as f64)).collect();
    // `sin`/`cos` by the quadrants of each call's lanes: a slow sweep (almost every call in
    // one quadrant), every call mixed (neighbouring lanes a quadrant apart), and random
    // arguments in [-10, 10] (each lane's quadrant at random)
    let mixed: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(k, &x)| x + (k % 2) as f64 * std::f64::consts::FRAC_PI_2)
        .collect();
    let mut next = lcg(0x9e37_79b9_7f4a_7c15);
    let random: Vec<f64> = (0..n).map(|_| -10.0 + 20.0 * unit(next())).collect();
    // every call's lanes in one quadrant, its parity alternating from call to call (as in
    // rosenbrock's cons: `sin` of two arguments per row), or at random (the worst case of
    // the AVX2 and AVX-512F copies' branch on the parity): points in [-0.7, 0.7] (n = 0) or
    // [0.9, 2.2] (n = 1)
    let one_quadrant = |odd: bool, u: f64| if odd { 0.9 + 1.3 * u } else { -0.7 + 1.4 * u };
    let alternating: Vec<f64> = (0..n)
        .map(|k| one_quadrant((k / LANES) % 2 == 1, unit(next())))
        .collect();
    let mut call_parity = false;
    let calls_at_random: Vec<f64> = (0..n)
        .map(|k| {
            let u = next();
            if k % LANES == 0 {
                call_parity = u >> 63 == 1;
            }
            one_quadrant(call_parity, unit(u))
        })
        .collect();
    let mut runs = vec![(LaneFn::Exp, "uniform", &xs)];
    for f in [LaneFn::Sin, LaneFn::Cos, LaneFn::SinCos] {
        runs.extend([
            (f, "uniform", &xs),
            (f, "mixed", &mixed),
            (f, "random", &random),
        ]);
        if f != LaneFn::SinCos {
            runs.extend([
                (f, "alternating", &alternating),
                (f, "uniform, parity at random", &calls_at_random),
            ]);
        }
    }
    for (f, data, xs) in runs {
        let mut best = (f64::INFINITY, f64::INFINITY);
        for _ in 0..5 {
            let mut slot = [[0.0; LANES]; 2];
            let t = Instant::now();
            let mut acc = 0.0;
            for c in xs.chunks_exact(LANES) {
                let mut a = [0.0; LANES];
                a.copy_from_slice(c);
                f.call(black_box(a), &mut slot);
                acc += slot[0][0];
            }
            black_box(acc);
            best.0 = best.0.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
            let t = Instant::now();
            let mut prev = 0.0;
            for c in xs.chunks_exact(LANES) {
                let d = prev * 1e-30;
                let mut a = [0.0; LANES];
                for (a, &c) in a.iter_mut().zip(c) {
                    *a = c + d;
                }
                f.call(a, &mut slot);
                prev = slot[0][LANES - 1];
            }
            black_box(prev);
            best.1 = best.1.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        }
        eprintln!(
            "{f:?} {data}: independent {:.2} ns/point, chained {:.2} ns/point",
            best.0, best.1
        );
    }
    // every `exp`, `sin` and `cos` entry point this CPU runs (the dispatched one is timed
    // above), independent calls
    let mut entry_runs = vec![(LaneFn::Exp, "uniform", &xs)];
    for f in [LaneFn::Sin, LaneFn::Cos] {
        entry_runs.extend([
            (f, "uniform", &xs),
            (f, "mixed", &mixed),
            (f, "random", &random),
            (f, "alternating", &alternating),
            (f, "uniform, parity at random", &calls_at_random),
        ]);
    }
    for (f, data, xs) in entry_runs {
        for (name, entry) in f.entries() {
            if name == "base" && f != LaneFn::Exp {
                continue;
            }
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let mut slot = [[0.0; LANES]; 2];
                let t = Instant::now();
                let mut acc = 0.0;
                for c in xs.chunks_exact(LANES) {
                    let mut a = [0.0; LANES];
                    a.copy_from_slice(c);
                    run_entry(entry, black_box(a), &mut slot);
                    acc += slot[0][0];
                }
                black_box(acc);
                best = best.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
            }
            eprintln!("{f:?} entry {name} {data}: independent {best:.2} ns/point");
        }
    }
    // the one-point functions (the JIT's remainder points, `Scalar for f64`)
    fn sin_plus_cos(x: f64) -> f64 {
        let (s, c) = sin_cos(x);
        s + c
    }
    for (name, g) in [
        ("exp", exp as fn(f64) -> f64),
        ("sin", sin),
        ("cos", cos),
        ("sin_cos", sin_plus_cos),
    ] {
        for (data, xs) in [("uniform", &xs), ("mixed", &mixed), ("random", &random)] {
            if name == "exp" && data != "uniform" {
                continue;
            }
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let t = Instant::now();
                let mut acc = 0.0;
                for &x in xs.iter() {
                    acc += g(black_box(x));
                }
                black_box(acc);
                best = best.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
            }
            eprintln!("one-point {name} {data}: {best:.2} ns/point");
        }
    }
    let mut out = vec![0.0; n];
    // the dispatched slices, and the baseline copies (x86-64 without FMA: SSE2, each fused
    // step a call of libm's `fma`)
    for (name, g) in [
        ("exp", exp_slice as fn(&mut [f64], &[f64])),
        ("sin", sin_slice),
        ("exp baseline", exp_slice_base),
        ("sin baseline", sin_slice_base),
    ] {
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t = Instant::now();
            g(&mut out, black_box(&xs));
            black_box(&out);
            best = best.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        }
        eprintln!("{name} slice: {best:.2} ns/point");
    }
    let mut best = [f64::INFINITY; 3];
    for _ in 0..5 {
        for (i, g) in [f64::exp, f64::sin, f64::cos].into_iter().enumerate() {
            let t = Instant::now();
            let mut acc = 0.0;
            for &x in &xs {
                acc += g(black_box(x));
            }
            black_box(acc);
            best[i] = best[i].min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        }
    }
    eprintln!(
        "libm exp {:.2}, sin {:.2}, cos {:.2} ns/point",
        best[0], best[1], best[2]
    );
}

/// The 16-point entry points (the JIT's call for both blocks of its wide loop; every copy
/// this CPU runs, and the dispatched one) against the 8-point dispatched entry point on
/// each block alone, bitwise: block 0's points in the slot's first `LANES` lanes of each
/// output, block 1's in the next (a swap of the blocks, or one block's results in both,
/// fails), over the special values and dense sweeps, blocks of the same and of different
/// kinds of arguments side by side (NaN, ±∞, outside `exp`'s fast range, beyond the short
/// trigonometric reduction).
#[cfg(target_arch = "x86_64")]
#[test]
fn two_block_entries_match_one_block_entries() {
    let mut xs = specials();
    xs.extend(sweep(-20.0, 20.0, 397));
    xs.extend(sweep(-750.0, 750.0, 101));
    let mut next = lcg(0x16);
    xs.extend((0..200).map(|_| 1e6 * (unit(next()) - 0.5)));
    // each two neighbouring blocks of LANES points, in both orders
    let blocks: Vec<&[f64]> = xs.chunks(LANES).collect();
    let windows = blocks.windows(2).flat_map(|w| [(w[0], w[1]), (w[1], w[0])]);
    for (a, b) in windows {
        let mut input = [0.5; 2 * LANES];
        input[..a.len()].copy_from_slice(a);
        input[LANES..LANES + b.len()].copy_from_slice(b);
        let (block0, block1) = blocks_of(&input);
        for f in [LaneFn::Exp, LaneFn::Sin, LaneFn::Cos, LaneFn::SinCos] {
            let mut want = [[[0.0; LANES]; 2]; 2];
            f.call(*block0, &mut want[0]);
            f.call(*block1, &mut want[1]);
            let outputs = if f == LaneFn::SinCos { 2 } else { 1 };
            for (name, entry) in f.entries_two_blocks() {
                let mut slot = [[f64::NAN; 2 * LANES]; 2];
                run_entry_two_blocks(entry, input, &mut slot);
                for (o, slot_output) in slot.iter().enumerate().take(outputs) {
                    for (h, want) in want.iter().enumerate() {
                        for l in 0..LANES {
                            assert_eq!(
                                slot_output[h * LANES + l].to_bits(),
                                want[o][l].to_bits(),
                                "{f:?} {name} output {o} block {h} lane {l} at {:e}",
                                input[h * LANES + l]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Timings of the 16-point entry points against two calls of the 8-point ones for the same
/// points (ns per point, best of 5, independent calls, the dispatched copies); run with
/// `cargo test --release -p simdnlp-ad --lib two_block_entry_timings -- --ignored --nocapture`.
#[cfg(target_arch = "x86_64")]
#[test]
#[ignore = "a timing, not a check"]
fn two_block_entry_timings() {
    use std::hint::black_box;
    use std::time::Instant;
    let n = 200_000;
    let xs: Vec<f64> = (0..n).map(|k| -1.2 + 2.4 * (k as f64 / n as f64)).collect();
    let mut next = lcg(0x9e37_79b9_7f4a_7c15);
    let random: Vec<f64> = (0..n).map(|_| -10.0 + 20.0 * unit(next())).collect();
    for f in [LaneFn::Exp, LaneFn::Sin, LaneFn::Cos, LaneFn::SinCos] {
        for (data, xs) in [("uniform", &xs), ("random", &random)] {
            let Some((_, entry)) = f.entries_two_blocks().pop() else {
                return;
            };
            let mut best = (f64::INFINITY, f64::INFINITY);
            for _ in 0..5 {
                let mut slot = [[0.0; LANES]; 2];
                let t = Instant::now();
                let mut acc = 0.0;
                for c in xs.chunks_exact(2 * LANES) {
                    let mut a = [0.0; LANES];
                    a.copy_from_slice(&c[..LANES]);
                    f.call(black_box(a), &mut slot);
                    acc += slot[0][0];
                    a.copy_from_slice(&c[LANES..]);
                    f.call(black_box(a), &mut slot);
                    acc += slot[0][0];
                }
                black_box(acc);
                best.0 = best.0.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
                let mut slot = [[0.0; 2 * LANES]; 2];
                let t = Instant::now();
                let mut acc = 0.0;
                for c in xs.chunks_exact(2 * LANES) {
                    let mut a = [0.0; 2 * LANES];
                    a.copy_from_slice(c);
                    run_entry_two_blocks(entry, black_box(a), &mut slot);
                    acc += slot[0][0];
                }
                black_box(acc);
                best.1 = best.1.min(t.elapsed().as_secs_f64() * 1e9 / n as f64);
            }
            eprintln!(
                "{f:?} {data}: two 8-point calls {:.2} ns/point, one 16-point call {:.2} ns/point",
                best.0, best.1
            );
        }
    }
}
