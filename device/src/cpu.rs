//! The CPU device: `Vec<f64>` vectors and plain loops. It is the reference implementation
//! every other device is tested against (see the crate documentation).

use crate::allocations;
use crate::{Device, DeviceError, HostBuffers, Segments};

/// The CPU device. Kernels are sequential loops; they cannot fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cpu;

const NAME: &str = "cpu";

/// Lanes of [`nan_max_of`]: independent running maxima the compiler can keep in vector
/// registers.
const MAX_LANES: usize = 8;

/// The largest of `f(a_i, b_i)` over the pairs of `a` and `b` (equal lengths), starting
/// from 0, and NaN when any value is NaN (a NaN-propagating fold of `f64::max`), with
/// the same result (a maximum is exact in any order), computed in [`MAX_LANES`]
/// independent lanes: the sequential fold waits on every comparison, which made the
/// solver's ∞-norms of Hessian-sized vectors a few percent of a solve (rosenbrock:200000).
fn nan_max_of(a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let (a_lanes, b_lanes) = (a.chunks_exact(MAX_LANES), b.chunks_exact(MAX_LANES));
    let (a_rest, b_rest) = (a_lanes.remainder(), b_lanes.remainder());
    let mut max = [0.0f64; MAX_LANES];
    let mut nan = [false; MAX_LANES];
    for (x, y) in a_lanes.zip(b_lanes) {
        for (lane, (&xl, &yl)) in x.iter().zip(y).enumerate() {
            let v = f(xl, yl);
            nan[lane] |= v.is_nan();
            max[lane] = if v > max[lane] { v } else { max[lane] };
        }
    }
    let mut result = 0.0f64;
    let mut any_nan = nan.iter().any(|&n| n);
    for (&x, &y) in a_rest.iter().zip(b_rest) {
        let v = f(x, y);
        any_nan |= v.is_nan();
        result = if v > result { v } else { result };
    }
    for lane_max in max {
        result = if lane_max > result { lane_max } else { result };
    }
    if any_nan { f64::NAN } else { result }
}

/// A zero-filled `Vec` of `n` entries, or a typed error instead of an abort when the
/// allocator refuses.
fn try_zeroed<T: Clone + Default>(n: usize, what: &'static str) -> Result<Vec<T>, DeviceError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| DeviceError::OutOfMemory {
            device: NAME,
            bytes: n.saturating_mul(std::mem::size_of::<T>()),
            what,
        })?;
    v.resize(n, T::default());
    Ok(v)
}

/// A copy of `src` in a new vector, written once (no zeroing first); a typed error when the
/// allocation fails.
fn try_copied<T: Copy>(src: &[T], what: &'static str) -> Result<Vec<T>, DeviceError> {
    let mut v = Vec::new();
    v.try_reserve_exact(src.len())
        .map_err(|_| DeviceError::OutOfMemory {
            device: NAME,
            bytes: std::mem::size_of_val(src),
            what,
        })?;
    v.extend_from_slice(src);
    Ok(v)
}

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), DeviceError> {
    if expected == got {
        Ok(())
    } else {
        Err(DeviceError::LengthMismatch {
            device: NAME,
            what,
            expected,
            got,
        })
    }
}

/// Start value of a segmented accumulation: `b·y`, or `0` without reading `y` when `b = 0`.
fn seg_start(b: f64, y: f64) -> f64 {
    if b == 0.0 { 0.0 } else { b * y }
}

impl Device for Cpu {
    type Vector = Vec<f64>;
    type Index = Vec<usize>;

    fn name(&self) -> &'static str {
        NAME
    }

    fn zeros(&self, n: usize) -> Result<Vec<f64>, DeviceError> {
        let out = try_zeroed(n, "vector")?;
        allocations::count();
        Ok(out)
    }
    fn vector_from_host(&self, v: &[f64]) -> Result<Vec<f64>, DeviceError> {
        let out = try_copied(v, "vector")?;
        allocations::count();
        Ok(out)
    }
    fn index_from_host(&self, idx: &[usize]) -> Result<Vec<usize>, DeviceError> {
        let out = try_copied(idx, "index list")?;
        allocations::count();
        Ok(out)
    }
    fn to_host(&self, v: &Vec<f64>, out: &mut [f64]) -> Result<(), DeviceError> {
        check_len("to_host", v.len(), out.len())?;
        out.copy_from_slice(v);
        Ok(())
    }
    fn copy_from_host(&self, v: &mut Vec<f64>, src: &[f64]) -> Result<(), DeviceError> {
        check_len("copy_from_host", v.len(), src.len())?;
        v.copy_from_slice(src);
        Ok(())
    }
    fn len(&self, v: &Vec<f64>) -> usize {
        v.len()
    }
    fn index_len(&self, idx: &Vec<usize>) -> usize {
        idx.len()
    }
    fn synchronize(&self) -> Result<(), DeviceError> {
        Ok(())
    }

    fn fill(&self, v: &mut Vec<f64>, a: f64) {
        v.iter_mut().for_each(|x| *x = a);
    }
    fn copy(&self, dst: &mut Vec<f64>, src: &Vec<f64>) {
        dst.copy_from_slice(src);
    }
    fn copy_range(
        &self,
        dst: &mut Vec<f64>,
        dst_start: usize,
        src: &Vec<f64>,
        src_start: usize,
        len: usize,
    ) {
        dst[dst_start..dst_start + len].copy_from_slice(&src[src_start..src_start + len]);
    }
    fn axpy(&self, a: f64, x: &Vec<f64>, y: &mut Vec<f64>) {
        debug_assert_eq!(x.len(), y.len());
        y.iter_mut().zip(x).for_each(|(yi, xi)| *yi += a * xi);
    }
    fn axpby(&self, a: f64, x: &Vec<f64>, b: f64, y: &mut Vec<f64>) {
        debug_assert_eq!(x.len(), y.len());
        y.iter_mut()
            .zip(x)
            .for_each(|(yi, xi)| *yi = a * xi + b * *yi);
    }
    fn scale(&self, a: f64, v: &mut Vec<f64>) {
        v.iter_mut().for_each(|x| *x *= a);
    }
    fn shift(&self, v: &mut Vec<f64>, a: f64) {
        v.iter_mut().for_each(|x| *x += a);
    }
    fn dot(&self, x: &Vec<f64>, y: &Vec<f64>) -> f64 {
        debug_assert_eq!(x.len(), y.len());
        x.iter().zip(y).map(|(a, b)| a * b).sum()
    }
    fn sum(&self, v: &Vec<f64>) -> f64 {
        v.iter().sum()
    }
    fn norm_inf(&self, v: &Vec<f64>) -> f64 {
        nan_max_of(v, v, |x, _| x.abs())
    }
    fn norm_1(&self, v: &Vec<f64>) -> f64 {
        v.iter().map(|x| x.abs()).sum()
    }

    fn mul(&self, dst: &mut Vec<f64>, x: &Vec<f64>, y: &Vec<f64>) {
        debug_assert!(dst.len() == x.len() && x.len() == y.len());
        for ((d, a), b) in dst.iter_mut().zip(x).zip(y) {
            *d = a * b;
        }
    }
    fn div(&self, dst: &mut Vec<f64>, x: &Vec<f64>, y: &Vec<f64>) {
        debug_assert!(dst.len() == x.len() && x.len() == y.len());
        for ((d, a), b) in dst.iter_mut().zip(x).zip(y) {
            *d = a / b;
        }
    }
    fn recip(&self, dst: &mut Vec<f64>, a: f64, x: &Vec<f64>) {
        debug_assert_eq!(dst.len(), x.len());
        dst.iter_mut().zip(x).for_each(|(d, v)| *d = a / v);
    }
    fn gather(&self, dst: &mut Vec<f64>, src: &Vec<f64>, idx: &Vec<usize>) {
        debug_assert_eq!(dst.len(), idx.len());
        dst.iter_mut().zip(idx).for_each(|(d, &i)| *d = src[i]);
    }
    fn scatter(&self, dst: &mut Vec<f64>, idx: &Vec<usize>, src: &Vec<f64>) {
        debug_assert_eq!(src.len(), idx.len());
        src.iter().zip(idx).for_each(|(s, &i)| dst[i] = *s);
    }
    fn scatter_add(&self, a: f64, src: &Vec<f64>, idx: &Vec<usize>, dst: &mut Vec<f64>) {
        debug_assert_eq!(src.len(), idx.len());
        src.iter().zip(idx).for_each(|(s, &i)| dst[i] += a * s);
    }
    fn gather_slack(
        &self,
        dst: &mut Vec<f64>,
        src: &Vec<f64>,
        idx: &Vec<usize>,
        off: &Vec<f64>,
        sign: f64,
    ) {
        debug_assert!(dst.len() == idx.len() && idx.len() == off.len());
        for ((d, &i), o) in dst.iter_mut().zip(idx).zip(off) {
            *d = sign * (src[i] - o);
        }
    }

    fn sum_ln(&self, x: &Vec<f64>) -> f64 {
        x.iter()
            .map(|v| if *v > 0.0 { v.ln() } else { f64::NAN })
            .sum()
    }
    fn max_step(&self, x: &Vec<f64>, dx: &Vec<f64>, tau: f64) -> f64 {
        debug_assert_eq!(x.len(), dx.len());
        let mut a: f64 = 1.0;
        for (xi, di) in x.iter().zip(dx) {
            if *di < 0.0 {
                a = a.min(-tau * xi / di);
            }
        }
        a
    }
    fn bound_dual_step(
        &self,
        dz: &mut Vec<f64>,
        z: &Vec<f64>,
        s: &Vec<f64>,
        ds: &Vec<f64>,
        mu: f64,
    ) {
        debug_assert!(dz.len() == z.len() && z.len() == s.len() && s.len() == ds.len());
        for (((d, zi), si), dsi) in dz.iter_mut().zip(z).zip(s).zip(ds) {
            *d = (mu - zi * dsi) / si - zi;
        }
    }
    fn compl_inf(&self, s: &Vec<f64>, z: &Vec<f64>, mu: f64) -> f64 {
        debug_assert_eq!(s.len(), z.len());
        nan_max_of(s, z, |a, b| (a * b - mu).abs())
    }
    fn min_product(&self, s: &Vec<f64>, z: &Vec<f64>) -> f64 {
        debug_assert_eq!(s.len(), z.len());
        s.iter()
            .zip(z)
            .fold(f64::INFINITY, |m, (a, b)| m.min(a * b))
    }
    fn safeguard_bound_mult(&self, z: &mut Vec<f64>, s: &Vec<f64>, mu: f64, kappa: f64) -> f64 {
        debug_assert_eq!(z.len(), s.len());
        let mut dmax: f64 = 0.0;
        for (zi, si) in z.iter_mut().zip(s) {
            let lo = mu / (kappa * si);
            let hi = kappa * mu / si;
            let nz = zi.max(lo).min(hi);
            dmax = dmax.max((nz - *zi).abs());
            *zi = nz;
        }
        dmax
    }
    fn push_into_bounds(
        &self,
        w: &mut Vec<f64>,
        lo: &Vec<f64>,
        up: &Vec<f64>,
        push: &Vec<f64>,
        frac: &Vec<f64>,
    ) {
        debug_assert!(
            w.len() == lo.len()
                && lo.len() == up.len()
                && up.len() == push.len()
                && push.len() == frac.len()
        );
        for i in 0..w.len() {
            let (l, u) = (lo[i], up[i]);
            let gap = u - l;
            let mut v = w[i];
            if l.is_finite() {
                let mut p = push[i] * l.abs().max(1.0);
                if u.is_finite() {
                    p = p.min(frac[i] * gap);
                }
                v = v.max(l + p);
            }
            if u.is_finite() {
                let mut p = push[i] * u.abs().max(1.0);
                if l.is_finite() {
                    p = p.min(frac[i] * gap);
                }
                v = v.min(u - p);
            }
            if l.is_finite() && u.is_finite() && !(v > l && v < u) {
                v = l + 0.5 * gap;
            }
            w[i] = v;
        }
    }
    fn clamp_below(&self, z: &mut Vec<f64>, a: f64) {
        z.iter_mut().for_each(|v| *v = v.max(a));
    }
    fn resto_elastic(&self, r: &Vec<f64>, mu: f64, rho: f64, p: &mut Vec<f64>, n: &mut Vec<f64>) {
        debug_assert!(r.len() == p.len() && r.len() == n.len());
        for ((rj, pj), nj) in r.iter().zip(p.iter_mut()).zip(n.iter_mut()) {
            *nj = resto_root(*rj, mu, rho);
            *pj = resto_root(-rj, mu, rho);
        }
    }
    fn prox_weight(&self, x: &Vec<f64>, d2: &mut Vec<f64>) {
        debug_assert_eq!(x.len(), d2.len());
        for (xi, di) in x.iter().zip(d2.iter_mut()) {
            let v = 1.0 / xi.abs().max(1.0);
            *di = v * v;
        }
    }
    fn safe_slack(&self, s: &mut Vec<f64>, z: &Vec<f64>, s_min: f64, mu: f64) -> usize {
        debug_assert_eq!(s.len(), z.len());
        let mut count = 0;
        for (si, &zi) in s.iter_mut().zip(z) {
            if *si < s_min {
                count += 1;
                let centred = mu / zi;
                // z > 0 always; a NaN/∞ ratio falls back to s_min
                *si = if centred.is_finite() {
                    centred.max(s_min)
                } else {
                    s_min
                };
            }
        }
        count
    }
    fn max_rel_step(&self, dx: &Vec<f64>, x: &Vec<f64>) -> f64 {
        debug_assert_eq!(dx.len(), x.len());
        nan_max_of(dx, x, |d, v| d.abs() / (1.0 + v.abs()))
    }

    fn seg_sum(
        &self,
        a: f64,
        src: &Vec<f64>,
        seg: &Segments<Vec<usize>>,
        b: f64,
        dst: &mut Vec<f64>,
    ) {
        debug_assert_eq!(dst.len(), seg.targets);
        for (t, d) in dst.iter_mut().enumerate() {
            let mut acc = seg_start(b, *d);
            for &k in &seg.entry[seg.ptr[t]..seg.ptr[t + 1]] {
                acc += a * src[k];
            }
            *d = acc;
        }
    }
    fn seg_spmv(
        &self,
        a: f64,
        vals: &Vec<f64>,
        seg: &Segments<Vec<usize>>,
        x: &Vec<f64>,
        b: f64,
        y: &mut Vec<f64>,
    ) {
        debug_assert_eq!(y.len(), seg.targets);
        for (t, yt) in y.iter_mut().enumerate() {
            let range = seg.ptr[t]..seg.ptr[t + 1];
            let mut acc = seg_start(b, *yt);
            for (&k, &p) in seg.entry[range.clone()].iter().zip(&seg.partner[range]) {
                acc += a * vals[k] * x[p];
            }
            *yt = acc;
        }
    }
    fn seg_pair_sum(
        &self,
        d: &Vec<f64>,
        rows: &Vec<usize>,
        vals: &Vec<f64>,
        seg: &Segments<Vec<usize>>,
        dst: &mut Vec<f64>,
    ) {
        debug_assert_eq!(dst.len(), seg.targets);
        for (t, out) in dst.iter_mut().enumerate() {
            let range = seg.ptr[t]..seg.ptr[t + 1];
            let mut acc = *out;
            for (&ka, &kb) in seg.entry[range.clone()].iter().zip(&seg.partner[range]) {
                acc += d[rows[ka]] * vals[ka] * vals[kb];
            }
            *out = acc;
        }
    }
}

impl HostBuffers for Cpu {
    fn host<'v>(&self, v: &'v Vec<f64>) -> &'v [f64] {
        v
    }
    fn host_mut<'v>(&self, v: &'v mut Vec<f64>) -> &'v mut [f64] {
        v
    }
}

/// The positive root `v` of `v² − 2a v − μ r/(2ρ) = 0` with `a = (μ − ρ r)/(2ρ)`, evaluated
/// without cancellation for either sign of `a`, at least `√f64::MIN_POSITIVE` (the
/// reference of `sn_resto_root` in `kernels/ipm.cu`).
fn resto_root(r: f64, mu: f64, rho: f64) -> f64 {
    let a = (mu - rho * r) / (2.0 * rho);
    let c = mu * r / (2.0 * rho);
    let d = (a * a + c).max(0.0).sqrt();
    let v = if a >= 0.0 { a + d } else { c / (d - a) };
    v.max(f64::MIN_POSITIVE.sqrt())
}
