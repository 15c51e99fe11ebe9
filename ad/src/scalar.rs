//! The floating-point scalar types the evaluators run in.

use crate::vmath;
use std::fmt::Debug;

/// A real scalar the compiled programs evaluate in (`f64` or `f32`).
///
/// Constants of a pattern are stored in `f64` and converted once, at compile time, with
/// [`Scalar::from_f64`]. User functions are called in `f64` (the argument is widened with
/// [`Scalar::to_f64`] and the result narrowed back).
pub trait Scalar: num_traits::Float + Send + Sync + Debug + Default + 'static {
    /// Converts an `f64` to this type (rounding to nearest for `f32`).
    fn from_f64(v: f64) -> Self;
    /// Converts this value to `f64` (exact for `f32` and `f64`).
    fn to_f64(self) -> f64;
    /// The C type name used by the CUDA emitter (`"double"` or `"float"`).
    const C_TYPE: &'static str;

    /// `e^self` as the CPU evaluators compute it: for `f64` the crate's lane-parallel
    /// implementation (within 1 ulp of the platform libm, bitwise the same in the
    /// interpreter and the JIT whatever the vector width), otherwise the libm `exp`.
    fn eval_exp(self) -> Self {
        self.exp()
    }
    /// `sin self` as the CPU evaluators compute it (see [`Scalar::eval_exp`]).
    fn eval_sin(self) -> Self {
        self.sin()
    }
    /// `cos self` as the CPU evaluators compute it (see [`Scalar::eval_exp`]).
    fn eval_cos(self) -> Self {
        self.cos()
    }
    /// `dst[l] = src[l].eval_exp()` over the shorter of the two slices.
    fn lanes_exp(dst: &mut [Self], src: &[Self]) {
        for (o, &v) in dst.iter_mut().zip(src) {
            *o = v.eval_exp();
        }
    }
    /// `dst[l] = src[l].eval_sin()` over the shorter of the two slices.
    fn lanes_sin(dst: &mut [Self], src: &[Self]) {
        for (o, &v) in dst.iter_mut().zip(src) {
            *o = v.eval_sin();
        }
    }
    /// `dst[l] = src[l].eval_cos()` over the shorter of the two slices.
    fn lanes_cos(dst: &mut [Self], src: &[Self]) {
        for (o, &v) in dst.iter_mut().zip(src) {
            *o = v.eval_cos();
        }
    }
}

impl Scalar for f64 {
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    const C_TYPE: &'static str = "double";
    #[inline]
    fn eval_exp(self) -> Self {
        vmath::exp(self)
    }
    #[inline]
    fn eval_sin(self) -> Self {
        vmath::sin(self)
    }
    #[inline]
    fn eval_cos(self) -> Self {
        vmath::cos(self)
    }
    fn lanes_exp(dst: &mut [Self], src: &[Self]) {
        vmath::exp_slice(dst, src)
    }
    fn lanes_sin(dst: &mut [Self], src: &[Self]) {
        vmath::sin_slice(dst, src)
    }
    fn lanes_cos(dst: &mut [Self], src: &[Self]) {
        vmath::cos_slice(dst, src)
    }
}

impl Scalar for f32 {
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    const C_TYPE: &'static str = "float";
}
