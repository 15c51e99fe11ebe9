//! CUDA C emitter: each program as one `__global__` kernel, one thread per data point.
//!
//! Kernel signature (with `T` = `double` or `float`):
//!
//! ```c
//! extern "C" __global__ void NAME(long long len,
//!     const T* x, long long nx, const T* theta, long long ntheta,
//!     const T* const* reals, const long long* const* ints,
//!     const T* weights, T* out, T* values);
//! ```
//!
//! Thread `k = blockIdx.x * blockDim.x + threadIdx.x` evaluates data point `k < len` and
//! writes the same layout as the CPU evaluators: `out[k*step + s]`, `values[k]` (gradient
//! kernels, skipped when `values` is null), Hessian entries scaled by `weights[k]`. Data are
//! columns (`reals[c][k]`, `ints[c][k]`); positions outside `x`/`theta` read NaN, as on the
//! CPU. Transcendental functions are evaluated in `double` and rounded to `T`.
//!
//! The output starts with a prelude of `__device__` helpers guarded by
//! `SIMDNLP_PRELUDE`, so several kernels can be concatenated into one translation unit.

use crate::ops::{BinOp, UnOp};
use crate::pattern::Pattern;
use crate::program::{Ar, Fk, IOp, ISrc, Ins, Program, Src, U1};
use crate::scalar::Scalar;
use std::fmt::Write;

/// Whether the emitted C's `sn_exp(x)` computes `exp` on the crate's own path: the same
/// IEEE operations as the CPU evaluators (C's `fma` for each fused step), so bitwise the
/// CPU's result; elsewhere (`x` outside `[−708, 709]` or NaN) both call their libm, which
/// may differ in the last bit.
pub fn exp_on_own_path(x: f64) -> bool {
    crate::vmath::exp_on_own_path(x)
}

/// Whether the emitted C's `sn_sin(x)`/`sn_cos(x)` are on the crate's own path (`|x| ≤
/// 823 549`), as [`exp_on_own_path`].
pub fn trig_on_own_path(x: f64) -> bool {
    crate::vmath::trig_on_own_path(x)
}

/// Which callback a kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Callback {
    /// `out[k] = f(point k)`.
    Value,
    /// `out[k*nslots + s] = ∂f/∂slot_s`, `values[k] = f` when `values` is not null.
    Gradient,
    /// `out[k*nhess + h] = weights[k] ∂²f/∂a∂b`.
    Hessian,
}

const PRELUDE: &str = r#"#ifndef SIMDNLP_PRELUDE
#define SIMDNLP_PRELUDE
#define sn_deg (3.141592653589793 / 180.0)
#define sn_rad (180.0 / 3.141592653589793)
#define SN_PI 3.141592653589793
__device__ inline double sn_nan() { return 0.0 / 0.0; }
__device__ inline double sn_inf() { return 1.0 / 0.0; }
__device__ inline double sn_sinpi(double x) {
  if (!(x - x == 0.0)) return sn_nan();
  double r = fmod(x, 2.0);
  if (r > 1.0) r -= 2.0; else if (r < -1.0) r += 2.0;
  if (r > 0.5) r = 1.0 - r; else if (r < -0.5) r = -1.0 - r;
  if (r == 0.0) return copysign(0.0, x);
  return sin(SN_PI * r);
}
__device__ inline double sn_cospi(double x) {
  if (!(x - x == 0.0)) return sn_nan();
  double r = fmod(fabs(x), 2.0);
  if (r > 1.0) r = 2.0 - r;
  return r < 0.25 ? cos(SN_PI * r) : sin(SN_PI * (0.5 - r));
}
__device__ inline double sn_sinc(double x) {
  if (x == 0.0) return 1.0;
  if (x - x != 0.0 && x == x) return 0.0;
  if (fabs(x) < 0.2) {
    double z2 = (SN_PI * x) * (SN_PI * x), term = 1.0, s = 1.0;
    for (int k = 1; k < 12; ++k) { double k2 = 2.0 * k; term *= -z2 / (k2 * (k2 + 1.0)); s += term; }
    return s;
  }
  return sn_sinpi(x) / (SN_PI * x);
}
__device__ inline double sn_cosc(double x) {
  if (x - x != 0.0 && x == x) return 0.0;
  if (fabs(x) < 0.2) {
    double z = SN_PI * x, z2 = z * z, term = 0.0, s = 0.0;
    for (int k = 1; k < 12; ++k) { double k2 = 2.0 * k; if (k == 1) term = -1.0 / 6.0; else term *= -z2 / (k2 * (k2 + 1.0)); s += term * k2; }
    return SN_PI * z * s;
  }
  return (sn_cospi(x) - sn_sinc(x)) / x;
}
__device__ inline double sn_sinc_d2(double x) {
  if (x - x != 0.0 && x == x) return 0.0;
  if (fabs(x) < 0.2) {
    double z = SN_PI * x, z2 = z * z, term = 0.0, s = 0.0;
    for (int k = 1; k < 12; ++k) { double k2 = 2.0 * k; if (k == 1) term = -1.0 / 6.0; else term *= -z2 / (k2 * (k2 + 1.0)); s += term * k2 * (k2 - 1.0); }
    return SN_PI * SN_PI * s;
  }
  return (-SN_PI * sn_sinpi(x) - 2.0 * sn_cosc(x)) / x;
}
__device__ inline double sn_sign(double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : v); }
__device__ inline double sn_max(double a, double b) { return (a >= b || b != b) ? a : b; }
__device__ inline double sn_min(double a, double b) { return (a <= b || b != b) ? a : b; }
__device__ inline double sn_powi(double a, int n) {
  int recip = n < 0; double r = 1.0;
  for (;;) { if (n & 1) r *= a; n /= 2; if (n == 0) break; a *= a; }
  return recip ? 1.0 / r : r;
}
__device__ inline float sn_powif(float a, int n) {
  int recip = n < 0; float r = 1.0f;
  for (;;) { if (n & 1) r *= a; n /= 2; if (n == 0) break; a *= a; }
  return recip ? 1.0f / r : r;
}
__device__ inline long long sn_fdiv(long long a, long long b) {
  if (b == 0) return (long long)(-9223372036854775807LL - 1);
  long long q = a / b;
  return ((a % b != 0) && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ inline long long sn_frem(long long a, long long b) {
  if (b == 0) return (long long)(-9223372036854775807LL - 1);
  long long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ inline double sn_digamma(double x) {
  if (x <= 0.0 && x == floor(x)) return sn_nan();
  if (x < 0.0) return sn_digamma(1.0 - x) - SN_PI / tan(SN_PI * x);
  double acc = 0.0;
  while (x < 10.0) { acc -= 1.0 / x; x += 1.0; }
  double t2 = 1.0 / (x * x);
  return acc + log(x) - 0.5 / x - t2 * (1.0/12 - t2 * (1.0/120 - t2 * (1.0/252 - t2 * (1.0/240 - t2 * (1.0/132)))));
}
__device__ inline double sn_trigamma(double x) {
  if (x <= 0.0 && x == floor(x)) return sn_nan();
  if (x < 0.0) { double s = sin(SN_PI * x); return -sn_trigamma(1.0 - x) + SN_PI * SN_PI / (s * s); }
  double acc = 0.0;
  while (x < 10.0) { acc += 1.0 / (x * x); x += 1.0; }
  double t = 1.0 / x, t2 = t * t;
  return acc + t + 0.5 * t2 + t * t2 * (1.0/6 - t2 * (1.0/30 - t2 * (1.0/42 - t2 * (1.0/30 - t2 * (5.0/66)))));
}
__device__ inline double sn_tetragamma(double x) {
  if (x <= 0.0 && x == floor(x)) return sn_nan();
  if (x < 0.0) { double s = sin(SN_PI * x), c = cos(SN_PI * x); return sn_tetragamma(1.0 - x) - 2.0 * SN_PI * SN_PI * SN_PI * c / (s * s * s); }
  double acc = 0.0;
  while (x < 10.0) { acc -= 2.0 / (x * x * x); x += 1.0; }
  double t = 1.0 / x, t2 = t * t;
  const double b[6] = {1.0/6, -1.0/30, 1.0/42, -1.0/30, 5.0/66, -691.0/2730};
  double series = 0.0, p = t2 * t2;
  for (int k = 0; k < 6; ++k) { double k2 = 2.0 * (k + 1); series += b[k] * (k2 + 1.0) * p; p *= t2; }
  return acc - t2 - t2 * t - series;
}
#endif
"#;

fn lit(c: f64) -> String {
    if c.is_nan() {
        "sn_nan()".to_string()
    } else if c.is_infinite() {
        if c > 0.0 {
            "sn_inf()".to_string()
        } else {
            "(-sn_inf())".to_string()
        }
    } else {
        let s = format!("{c:?}");
        if s.contains('.') || s.contains('e') {
            format!("({s})")
        } else {
            format!("({s}.0)")
        }
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn isrc(s: ISrc) -> String {
    match s {
        ISrc::F(c) => format!("ints[{c}][k]"),
        ISrc::R(r) => format!("i{r}"),
        ISrc::C(c) => format!("({c}LL)"),
    }
}

fn pos(idx: ISrc, off: i64) -> String {
    if off == 0 {
        isrc(idx)
    } else {
        format!("({} + ({off}LL))", isrc(idx))
    }
}

fn src<T: Scalar>(s: &Src<T>) -> String {
    match s {
        Src::R(r) => format!("r{r}"),
        Src::C(c) => lit(Scalar::to_f64(*c)),
    }
}

fn user_fns<T: Scalar>(p: &Program<T>, out: &mut String, seen: &mut Vec<String>) {
    for ins in &p.ins {
        match ins {
            Ins::Un {
                op: UnOp::User(f, _),
                ..
            } => {
                let name = sanitize(f.name());
                if let Some(bodies) = &f.0.cuda {
                    for (o, body) in bodies.iter().enumerate() {
                        let fname = format!("user_{name}_{o}");
                        if !seen.contains(&fname) {
                            let _ = writeln!(
                                out,
                                "#ifndef SN_{fname}\n#define SN_{fname}\n__device__ inline double {fname}(double A) {{ return {body}; }}\n#endif"
                            );
                            seen.push(fname);
                        }
                    }
                }
            }
            Ins::Bin {
                op: BinOp::User(f, _),
                ..
            } => {
                let name = sanitize(f.name());
                if let Some(bodies) = &f.0.cuda {
                    for (o, body) in bodies.iter().enumerate() {
                        let fname = format!("user_{name}_{o}");
                        if !seen.contains(&fname) {
                            let _ = writeln!(
                                out,
                                "#ifndef SN_{fname}\n#define SN_{fname}\n__device__ inline double {fname}(double A, double B) {{ return {body}; }}\n#endif"
                            );
                            seen.push(fname);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Emits the prelude plus one kernel named `name` computing `cb` for `pattern`.
///
/// User functions registered with CUDA bodies ([`crate::UnaryFn::with_cuda`]) become
/// `__device__` functions `user_<name>_<order>`; without bodies the kernel calls those
/// names and the caller must define them before this source.
pub fn emit<T: Scalar>(pattern: &Pattern<T>, cb: Callback, name: &str) -> String {
    let [pv, pg, ph] = pattern.programs();
    let p = match cb {
        Callback::Value => pv,
        Callback::Gradient => pg,
        Callback::Hessian => ph,
    };
    let ty = T::C_TYPE;
    let mut s = String::from(PRELUDE);
    s.push_str(&crate::vmath::c_source());
    let mut seen = Vec::new();
    user_fns(p, &mut s, &mut seen);
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void {name}(long long len, const {ty}* __restrict__ x, long long nx, \
         const {ty}* __restrict__ theta, long long ntheta, const {ty}* const* reals, \
         const long long* const* ints, const {ty}* __restrict__ weights, {ty}* __restrict__ out, \
         {ty}* __restrict__ values) {{"
    );
    s.push_str("  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n  if (k >= len) return;\n");
    s.push_str("  (void)x; (void)nx; (void)theta; (void)ntheta; (void)reals; (void)ints; (void)weights; (void)values;\n");
    if p.niregs > 0 {
        let regs: Vec<String> = (0..p.niregs).map(|i| format!("i{i}")).collect();
        let _ = writeln!(s, "  long long {};", regs.join(", "));
    }
    if p.nregs > 0 {
        let regs: Vec<String> = (0..p.nregs).map(|i| format!("r{i}")).collect();
        let _ = writeln!(s, "  {ty} {};", regs.join(", "));
    }
    for ii in &p.iins {
        let (a, b) = (isrc(ii.a), isrc(ii.b));
        let e = match ii.op {
            IOp::Add => format!("(long long)((unsigned long long){a} + (unsigned long long){b})"),
            IOp::Sub => format!("(long long)((unsigned long long){a} - (unsigned long long){b})"),
            IOp::Mul => format!("(long long)((unsigned long long){a} * (unsigned long long){b})"),
            IOp::FloorDiv => format!("sn_fdiv({a}, {b})"),
            IOp::Rem => format!("sn_frem({a}, {b})"),
        };
        let _ = writeln!(s, "  i{} = {e};", ii.dst);
    }
    for (r, c) in &p.consts {
        let _ = writeln!(s, "  r{r} = ({ty}){};", lit(Scalar::to_f64(*c)));
    }
    let step = p.step;
    for ins in &p.ins {
        match ins {
            Ins::X { dst, idx, off } => {
                let j = pos(*idx, *off);
                let _ = writeln!(
                    s,
                    "  {{ long long j = {j}; r{dst} = (j >= 0 && j < nx) ? x[j] : ({ty})sn_nan(); }}"
                );
            }
            Ins::P { dst, idx, off } => {
                let j = pos(*idx, *off);
                let _ = writeln!(
                    s,
                    "  {{ long long j = {j}; r{dst} = (j >= 0 && j < ntheta) ? theta[j] : ({ty})sn_nan(); }}"
                );
            }
            Ins::D { dst, col } => {
                let _ = writeln!(s, "  r{dst} = reals[{col}][k];");
            }
            Ins::I { dst, idx, off } => {
                let _ = writeln!(s, "  r{dst} = ({ty})(double)({});", pos(*idx, *off));
            }
            Ins::Fill { dst, c } => {
                let _ = writeln!(s, "  r{dst} = ({ty}){};", lit(Scalar::to_f64(*c)));
            }
            Ins::Un { op, dst, a } => {
                let av = format!("(double)r{a}");
                let e = match op {
                    UnOp::B(crate::ops::Un::Neg) => format!("-r{a}"),
                    UnOp::B(crate::ops::Un::Abs2) => format!("r{a} * r{a}"),
                    UnOp::B(crate::ops::Un::Inv) => format!("({ty})1.0 / r{a}"),
                    UnOp::B(u) => u.c_template().replace('A', &av),
                    UnOp::Powi(n) if ty == "float" => format!("sn_powif(r{a}, {n})"),
                    UnOp::Powi(n) => format!("sn_powi(r{a}, {n})"),
                    UnOp::Powf(pw) => format!("pow({av}, {})", lit(*pw)),
                    UnOp::User(f, o) => format!("user_{}_{o}({av})", sanitize(f.name())),
                };
                let _ = writeln!(s, "  r{dst} = ({ty})({e});");
            }
            Ins::Bin { op, dst, a, b } => {
                let (sa, sb) = (src(a), src(b));
                let e = match op {
                    BinOp::B(crate::ops::Bin::Add) => format!("{sa} + {sb}"),
                    BinOp::B(crate::ops::Bin::Sub) => format!("{sa} - {sb}"),
                    BinOp::B(crate::ops::Bin::Mul) => format!("{sa} * {sb}"),
                    BinOp::B(crate::ops::Bin::Div) => format!("{sa} / {sb}"),
                    BinOp::B(bop) => bop
                        .c_template()
                        .replace('A', &format!("(double){sa}"))
                        .replace('B', &format!("(double){sb}")),
                    BinOp::User(f, part) => {
                        format!(
                            "user_{}_{}((double){sa}, (double){sb})",
                            sanitize(f.name()),
                            *part as u8
                        )
                    }
                };
                // constants are double literals: round them to T first, as the CPU does
                let e = if ty == "float" {
                    let ca = match a {
                        Src::C(_) => format!("(float){sa}"),
                        _ => sa.clone(),
                    };
                    let cb2 = match b {
                        Src::C(_) => format!("(float){sb}"),
                        _ => sb.clone(),
                    };
                    match op {
                        BinOp::B(crate::ops::Bin::Add) => format!("{ca} + {cb2}"),
                        BinOp::B(crate::ops::Bin::Sub) => format!("{ca} - {cb2}"),
                        BinOp::B(crate::ops::Bin::Mul) => format!("{ca} * {cb2}"),
                        BinOp::B(crate::ops::Bin::Div) => format!("{ca} / {cb2}"),
                        _ => e,
                    }
                } else {
                    e
                };
                let _ = writeln!(s, "  r{dst} = ({ty})({e});");
            }
            Ins::Fused { kind, dst, a, b, c } => {
                let ar = |op: Ar, x: &str, y: &str| -> String {
                    let o = match op {
                        Ar::Add => "+",
                        Ar::Sub => "-",
                        Ar::Mul => "*",
                        Ar::Div => "/",
                    };
                    format!("({x} {o} {y})")
                };
                let un = |op: U1, x: &str| -> String {
                    match op {
                        U1::Abs2 => format!("({x} * {x})"),
                        U1::Neg => format!("(-{x})"),
                    }
                };
                // the intermediate is rounded to T, as in the interpreter
                let (ra, rb, rc) = (format!("r{a}"), format!("r{b}"), format!("r{c}"));
                let t = match kind {
                    Fk::BB(f, _, _) | Fk::BU(f, _) => ar(*f, &ra, &rb),
                    Fk::UB(u, _, _) | Fk::UU(u, _) => un(*u, &ra),
                };
                let _ = writeln!(s, "  {{ {ty} t = ({ty}){t};");
                let e = match kind {
                    Fk::BB(_, g, true) | Fk::UB(_, g, true) => ar(*g, "t", &rc),
                    Fk::BB(_, g, false) | Fk::UB(_, g, false) => ar(*g, &rc, "t"),
                    Fk::BU(_, u) | Fk::UU(_, u) => un(*u, "t"),
                };
                let _ = writeln!(s, "    r{dst} = ({ty}){e}; }}");
            }
            Ins::Value { src: v } => {
                let v = match v {
                    Src::R(r) => format!("r{r}"),
                    Src::C(c) => format!("({ty}){}", lit(Scalar::to_f64(*c))),
                };
                let _ = writeln!(s, "  if (values) values[k] = {v};");
            }
        }
    }
    for (slot, r) in p.out_regs.iter().enumerate() {
        if cb == Callback::Hessian {
            let _ = writeln!(s, "  out[k * {step}LL + {slot}] = weights[k] * r{r};");
        } else {
            let _ = writeln!(s, "  out[k * {step}LL + {slot}] = r{r};");
        }
    }
    s.push_str("}\n");
    s
}
