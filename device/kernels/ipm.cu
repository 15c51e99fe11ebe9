// The interior-point kernels of the device seam, in CUDA C: one kernel per kernel method of
// the `Device` trait (device/src/lib.rs), run by the `Emu` device (g++ on the host) and,
// unchanged, by the CUDA device (NVRTC).
//
// Rules (GPU.md section 3), so that g++ runs exactly the code a GPU runs:
// - vectors are `double`, index lists `int` (the device refuses larger indices), lengths
//   `long long`;
// - grid-stride loops, so any launch geometry gives the same result;
// - no atomics, no shared memory, no warp intrinsics (a test greps this file);
// - NaN and signed zeros follow the `Cpu` reference device (device/src/cpu.rs) exactly:
//   where it uses `f64::min`/`f64::max` (a NaN operand is ignored) the kernels call
//   `sn_min`/`sn_max` below (libm's and CUDA's fmin/fmax ignore NaN too, but leave the
//   sign of an equal pair of zeros unspecified; Rust orders -0 below +0); where it
//   propagates NaN the comparisons are spelled out.
//
// Reductions are deterministic: pass one splits the n items into `slots` interleaved
// slots (slot s takes items s, s + slots, s + 2 slots, ... in that order) and writes one
// partial per slot; pass two (`sn_finish_*`, one thread) combines the partials in slot
// order. `slots` is chosen by the host from n alone, so the result never depends on the
// launch geometry. With one slot a sum is the sequential sum of the `Cpu` device, bit for
// bit; min/max-type reductions are exact for any slot count.

#ifndef SIMDNLP_IPM_KERNELS
#define SIMDNLP_IPM_KERNELS

// ------------------------------------------------------------------ helpers
// NVRTC has no <math.h> macros: NaN (positive, quiet, as Rust's `f64::NAN`) and infinity
// from their bits with CUDA's `__longlong_as_double` (the emulator's shim defines it).
#define SN_NAN __longlong_as_double(0x7ff8000000000000LL)
#define SN_INFINITY __longlong_as_double(0x7ff0000000000000LL)

__device__ static inline long long sn_first() {
  return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ static inline long long sn_stride() {
  return (long long)blockDim.x * gridDim.x;
}

// `f64::max`: a NaN operand is ignored; +0 is above -0.
__device__ static inline double sn_max(double a, double b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}

// `f64::min`: a NaN operand is ignored; -0 is below +0.
__device__ static inline double sn_min(double a, double b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

// `max` that propagates NaN (the `Cpu` device's `nan_max`).
__device__ static inline double sn_nan_max(double a, double b) {
  if (a != a || b != b) return SN_NAN;
  return sn_max(a, b);
}

// ------------------------------------------------------------------ BLAS-1, element-wise

extern "C" __global__ void sn_fill(long long n, double* v, double a) {
  for (long long i = sn_first(); i < n; i += sn_stride()) v[i] = a;
}

extern "C" __global__ void sn_copy(long long n, double* dst, const double* src) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[i] = src[i];
}

extern "C" __global__ void sn_axpy(long long n, double a, const double* x, double* y) {
  for (long long i = sn_first(); i < n; i += sn_stride()) y[i] += a * x[i];
}

extern "C" __global__ void sn_axpby(long long n, double a, const double* x, double b,
                                    double* y) {
  for (long long i = sn_first(); i < n; i += sn_stride()) y[i] = a * x[i] + b * y[i];
}

extern "C" __global__ void sn_scale(long long n, double a, double* v) {
  for (long long i = sn_first(); i < n; i += sn_stride()) v[i] *= a;
}

extern "C" __global__ void sn_shift(long long n, double* v, double a) {
  for (long long i = sn_first(); i < n; i += sn_stride()) v[i] += a;
}

extern "C" __global__ void sn_mul(long long n, double* dst, const double* x,
                                  const double* y) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[i] = x[i] * y[i];
}

extern "C" __global__ void sn_div(long long n, double* dst, const double* x,
                                  const double* y) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[i] = x[i] / y[i];
}

extern "C" __global__ void sn_recip(long long n, double* dst, double a, const double* x) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[i] = a / x[i];
}

extern "C" __global__ void sn_gather(long long n, double* dst, const double* src,
                                     const int* idx) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[i] = src[idx[i]];
}

extern "C" __global__ void sn_scatter(long long n, double* dst, const int* idx,
                                      const double* src) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[idx[i]] = src[i];
}

// Indices are unique, so threads never write the same entry (no atomics needed).
extern "C" __global__ void sn_scatter_add(long long n, double a, const double* src,
                                          const int* idx, double* dst) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[idx[i]] += a * src[i];
}

extern "C" __global__ void sn_gather_slack(long long n, double* dst, const double* src,
                                           const int* idx, const double* off, double sign) {
  for (long long i = sn_first(); i < n; i += sn_stride()) dst[i] = sign * (src[idx[i]] - off[i]);
}

// ------------------------------------------------------------------ interior-point kernels

extern "C" __global__ void sn_bound_dual_step(long long n, double* dz, const double* z,
                                              const double* s, const double* ds, double mu) {
  for (long long i = sn_first(); i < n; i += sn_stride()) {
    dz[i] = (mu - z[i] * ds[i]) / s[i] - z[i];
  }
}

extern "C" __global__ void sn_push_into_bounds(long long n, double* w, const double* lo,
                                               const double* up, const double* push,
                                               const double* frac) {
  for (long long i = sn_first(); i < n; i += sn_stride()) {
    double l = lo[i], u = up[i];
    double gap = u - l;
    double v = w[i];
    if (isfinite(l)) {
      double p = push[i] * sn_max(fabs(l), 1.0);
      if (isfinite(u)) p = sn_min(p, frac[i] * gap);
      v = sn_max(v, l + p);
    }
    if (isfinite(u)) {
      double p = push[i] * sn_max(fabs(u), 1.0);
      if (isfinite(l)) p = sn_min(p, frac[i] * gap);
      v = sn_min(v, u - p);
    }
    if (isfinite(l) && isfinite(u) && !(v > l && v < u)) v = l + 0.5 * gap;
    w[i] = v;
  }
}

extern "C" __global__ void sn_clamp_below(long long n, double* z, double a) {
  for (long long i = sn_first(); i < n; i += sn_stride()) z[i] = sn_max(z[i], a);
}

// ------------------------------------------------------------------ restoration phase

// The positive root v of v^2 - 2 a v - mu r / (2 rho) = 0 with a = (mu - rho r) / (2 rho),
// evaluated without cancellation for either sign of a, at least sqrt(f64::MIN_POSITIVE)
// (= 2^-511, from its bits).
__device__ static inline double sn_resto_root(double r, double mu, double rho) {
  double a = (mu - rho * r) / (2.0 * rho);
  double c = mu * r / (2.0 * rho);
  double d = sqrt(sn_max(a * a + c, 0.0));
  double v = a >= 0.0 ? a + d : c / (d - a);
  return sn_max(v, __longlong_as_double(0x2000000000000000LL));
}

// Start of the elastic variables of the l1 restoration problem from the residual r:
// n_j = root(r_j), p_j = root(-r_j).
extern "C" __global__ void sn_resto_elastic(long long m, const double* r, double mu,
                                            double rho, double* p, double* n) {
  for (long long j = sn_first(); j < m; j += sn_stride()) {
    double rj = r[j];
    n[j] = sn_resto_root(rj, mu, rho);
    p[j] = sn_resto_root(-rj, mu, rho);
  }
}

// Proximity weights of the restoration objective: d2_i = (1 / max(|x_i|, 1))^2.
extern "C" __global__ void sn_prox_weight(long long n, const double* x, double* d2) {
  for (long long i = sn_first(); i < n; i += sn_stride()) {
    double v = 1.0 / sn_max(fabs(x[i]), 1.0);
    d2[i] = v * v;
  }
}

// Element-wise safeguard fused with the largest change (per slot, NaN ignored).
extern "C" __global__ void sn_safeguard_bound_mult(long long n, long long slots, double* z,
                                                   const double* s, double mu, double kappa,
                                                   double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double dmax = 0.0;
    for (long long i = k; i < n; i += slots) {
      double lo = mu / (kappa * s[i]);
      double hi = kappa * mu / s[i];
      double nz = sn_min(sn_max(z[i], lo), hi);
      dmax = sn_max(dmax, fabs(nz - z[i]));
      z[i] = nz;
    }
    part[k] = dmax;
  }
}

// Safe slacks fused with the count of corrected entries (per slot, as a double).
extern "C" __global__ void sn_safe_slack(long long n, long long slots, double* s,
                                         const double* z, double s_min, double mu,
                                         double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double count = 0.0;
    for (long long i = k; i < n; i += slots) {
      if (s[i] < s_min) {
        count += 1.0;
        double centred = mu / z[i];
        s[i] = isfinite(centred) ? sn_max(centred, s_min) : s_min;
      }
    }
    part[k] = count;
  }
}

// ------------------------------------------------------------------ reductions, pass one
// Sums start at -0 as Rust's `Sum` does (so a sum of -0 entries stays -0).

extern "C" __global__ void sn_dot_part(long long n, long long slots, const double* x,
                                       const double* y, double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double acc = -0.0;
    for (long long i = k; i < n; i += slots) acc += x[i] * y[i];
    part[k] = acc;
  }
}

extern "C" __global__ void sn_sum_part(long long n, long long slots, const double* v,
                                       double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double acc = -0.0;
    for (long long i = k; i < n; i += slots) acc += v[i];
    part[k] = acc;
  }
}

extern "C" __global__ void sn_norm_1_part(long long n, long long slots, const double* v,
                                          double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double acc = -0.0;
    for (long long i = k; i < n; i += slots) acc += fabs(v[i]);
    part[k] = acc;
  }
}

// An entry that is not > 0 (zero, negative, NaN) contributes NaN.
extern "C" __global__ void sn_sum_ln_part(long long n, long long slots, const double* x,
                                          double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double acc = -0.0;
    for (long long i = k; i < n; i += slots) acc += x[i] > 0.0 ? log(x[i]) : SN_NAN;
    part[k] = acc;
  }
}

extern "C" __global__ void sn_norm_inf_part(long long n, long long slots, const double* v,
                                            double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double m = 0.0;
    for (long long i = k; i < n; i += slots) m = sn_nan_max(m, fabs(v[i]));
    part[k] = m;
  }
}

// Entries with dx not < 0 (NaN included) are skipped; a NaN ratio is ignored.
extern "C" __global__ void sn_max_step_part(long long n, long long slots, const double* x,
                                            const double* dx, double tau, double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double a = 1.0;
    for (long long i = k; i < n; i += slots) {
      if (dx[i] < 0.0) a = sn_min(a, -tau * x[i] / dx[i]);
    }
    part[k] = a;
  }
}

extern "C" __global__ void sn_compl_inf_part(long long n, long long slots, const double* s,
                                             const double* z, double mu, double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double m = 0.0;
    for (long long i = k; i < n; i += slots) m = sn_nan_max(m, fabs(s[i] * z[i] - mu));
    part[k] = m;
  }
}

extern "C" __global__ void sn_min_product_part(long long n, long long slots, const double* s,
                                               const double* z, double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double m = SN_INFINITY;
    for (long long i = k; i < n; i += slots) m = sn_min(m, s[i] * z[i]);
    part[k] = m;
  }
}

extern "C" __global__ void sn_max_rel_step_part(long long n, long long slots,
                                                const double* dx, const double* x,
                                                double* part) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double m = 0.0;
    for (long long i = k; i < n; i += slots) {
      m = sn_nan_max(m, fabs(dx[i]) / (1.0 + fabs(x[i])));
    }
    part[k] = m;
  }
}

// ------------------------------------------------------------------ reductions, pass two
// Past FINISH_SLOTS (64) partials, thread k of pass two combines partials k, k + slots, …
// (strided, as pass one reads entries) into one of `slots` second-level partials, with the
// operation and starting value of the finish below (`sn_sum_part` for sums). One thread
// reading thousands of partials in a dependent chain took about 35 ns per partial on an H100.

extern "C" __global__ void sn_combine_nan_max(long long n, long long slots, const double* part,
                                              double* out) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double m = 0.0;
    for (long long i = k; i < n; i += slots) m = sn_nan_max(m, part[i]);
    out[k] = m;
  }
}

extern "C" __global__ void sn_combine_max(long long n, long long slots, const double* part,
                                          double* out) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double m = 0.0;
    for (long long i = k; i < n; i += slots) m = sn_max(m, part[i]);
    out[k] = m;
  }
}

extern "C" __global__ void sn_combine_min(long long n, long long slots, const double* part,
                                          double* out) {
  for (long long k = sn_first(); k < slots; k += sn_stride()) {
    double m = SN_INFINITY;
    for (long long i = k; i < n; i += slots) m = sn_min(m, part[i]);
    out[k] = m;
  }
}

// ------------------------------------------------------------------ reductions, finish
// One thread combines at most FINISH_SLOTS partials in slot order into out[0].

extern "C" __global__ void sn_finish_sum(long long slots, const double* part, double* out) {
  if (sn_first() != 0) return;
  double acc = -0.0;
  for (long long k = 0; k < slots; ++k) acc += part[k];
  out[0] = acc;
}

extern "C" __global__ void sn_finish_nan_max(long long slots, const double* part,
                                             double* out) {
  if (sn_first() != 0) return;
  double m = 0.0;
  for (long long k = 0; k < slots; ++k) m = sn_nan_max(m, part[k]);
  out[0] = m;
}

extern "C" __global__ void sn_finish_max(long long slots, const double* part, double* out) {
  if (sn_first() != 0) return;
  double m = 0.0;
  for (long long k = 0; k < slots; ++k) m = sn_max(m, part[k]);
  out[0] = m;
}

extern "C" __global__ void sn_finish_min(long long slots, const double* part, double* out) {
  if (sn_first() != 0) return;
  double m = SN_INFINITY;
  for (long long k = 0; k < slots; ++k) m = sn_min(m, part[k]);
  out[0] = m;
}

// ------------------------------------------------------------------ segmented kernels
// One thread per target; items of a target are summed in plan order (bitwise as `Cpu`).

extern "C" __global__ void sn_seg_sum(long long targets, double a, const double* src,
                                      const int* ptr, const int* entry, double b,
                                      double* dst) {
  for (long long t = sn_first(); t < targets; t += sn_stride()) {
    double acc = b == 0.0 ? 0.0 : b * dst[t];
    for (int e = ptr[t]; e < ptr[t + 1]; ++e) acc += a * src[entry[e]];
    dst[t] = acc;
  }
}

extern "C" __global__ void sn_seg_spmv(long long targets, double a, const double* vals,
                                       const int* ptr, const int* entry, const int* partner,
                                       const double* x, double b, double* y) {
  for (long long t = sn_first(); t < targets; t += sn_stride()) {
    double acc = b == 0.0 ? 0.0 : b * y[t];
    for (int e = ptr[t]; e < ptr[t + 1]; ++e) acc += a * vals[entry[e]] * x[partner[e]];
    y[t] = acc;
  }
}

extern "C" __global__ void sn_seg_pair_sum(long long targets, const double* d,
                                           const int* rows, const double* vals,
                                           const int* ptr, const int* entry,
                                           const int* partner, double* dst) {
  for (long long t = sn_first(); t < targets; t += sn_stride()) {
    double acc = dst[t];
    for (int e = ptr[t]; e < ptr[t + 1]; ++e) {
      acc += d[rows[entry[e]]] * vals[entry[e]] * vals[partner[e]];
    }
    dst[t] = acc;
  }
}

#endif  // SIMDNLP_IPM_KERNELS
