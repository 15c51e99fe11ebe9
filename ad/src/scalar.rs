//! The floating-point scalar types the evaluators run in.

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
