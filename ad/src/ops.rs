//! The registered functions: built-in unary and binary operations and user functions.

use crate::scalar::Scalar;
use std::f64::consts::{LN_2, LN_10, PI};
use std::fmt;
use std::sync::Arc;

macro_rules! unary_table {
    ($( $(#[$m:meta])* $V:ident => $name:literal, |$v:ident| $e:expr, $c:literal; )*) => {
        /// Built-in univariate functions.
        ///
        /// Includes the internal derivative functions `Cosc` (first derivative of `sinc`),
        /// `SincD2` (second derivative of `sinc`) and, with feature `special`, `Trigamma`
        /// and `Tetragamma`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Un { $( $(#[$m])* $V, )* }

        impl Un {
            /// All built-in univariate functions.
            pub const ALL: &'static [Un] = &[$(Un::$V),*];

            /// The function's name as printed (`"exp"`, `"sinpi"`, ...).
            pub fn name(self) -> &'static str {
                match self { $( Un::$V => $name, )* }
            }

            /// Evaluates the function at one point.
            #[inline(always)]
            pub fn eval<T: Scalar>(self, arg: T) -> T {
                match self { $( Un::$V => { let $v = arg; $e } )* }
            }

            /// Applies the function lane by lane: `dst[l] = f(src[l])`.
            #[inline]
            pub(crate) fn lanes<T: Scalar>(self, dst: &mut [T], src: &[T]) {
                match self {
                    // the lane-parallel implementations ([`Scalar::lanes_exp`], ...)
                    Un::Exp => return T::lanes_exp(dst, src),
                    Un::Sin => return T::lanes_sin(dst, src),
                    Un::Cos => return T::lanes_cos(dst, src),
                    _ => {}
                }
                match self { $( Un::$V => {
                    for (o, &arg) in dst.iter_mut().zip(src) { let $v = arg; *o = $e; }
                } )* }
            }

            /// The function as a plain C-ABI symbol in `f64`, called by the JIT-compiled
            /// programs: it runs the same expression as [`Un::eval`] and the interpreter, so
            /// both evaluators give bit-identical results.
            pub(crate) fn c_fn(self) -> extern "C" fn(f64) -> f64 {
                match self { $( Un::$V => {
                    extern "C" fn call(arg: f64) -> f64 { Un::$V.eval::<f64>(arg) }
                    call
                } )* }
            }

            /// C expression of the function applied to the C expression `a` (in `double`).
            pub(crate) fn c_template(self) -> &'static str {
                match self { $( Un::$V => $c, )* }
            }
        }
    };
}

#[inline(always)]
fn k<T: Scalar>(c: f64) -> T {
    T::from_f64(c)
}

#[inline(always)]
fn via<T: Scalar>(v: T, f: fn(f64) -> f64) -> T {
    T::from_f64(f(Scalar::to_f64(v)))
}

const DEG: f64 = PI / 180.0;

unary_table! {
    /// `-a`
    Neg => "-", |v| -v, "(-(A))";
    /// `e^a`
    Exp => "exp", |v| v.eval_exp(), "sn_exp(A)";
    /// `2^a`
    Exp2 => "exp2", |v| v.exp2(), "exp2(A)";
    /// `10^a`
    Exp10 => "exp10", |v| k::<T>(10.0).powf(v), "pow(10.0, A)";
    /// `e^a - 1`
    Expm1 => "expm1", |v| v.exp_m1(), "expm1(A)";
    /// natural logarithm
    Log => "log", |v| v.ln(), "log(A)";
    /// base-2 logarithm
    Log2 => "log2", |v| v.log2(), "log2(A)";
    /// base-10 logarithm
    Log10 => "log10", |v| v.log10(), "log10(A)";
    /// `log(1 + a)`
    Log1p => "log1p", |v| v.ln_1p(), "log1p(A)";
    /// square root
    Sqrt => "sqrt", |v| v.sqrt(), "sqrt(A)";
    /// cube root
    Cbrt => "cbrt", |v| v.cbrt(), "cbrt(A)";
    /// sine
    Sin => "sin", |v| v.eval_sin(), "sn_sin(A)";
    /// cosine
    Cos => "cos", |v| v.eval_cos(), "sn_cos(A)";
    /// tangent
    Tan => "tan", |v| v.tan(), "tan(A)";
    /// cosecant `1/sin`
    Csc => "csc", |v| v.eval_sin().recip(), "(1.0/sn_sin(A))";
    /// secant `1/cos`
    Sec => "sec", |v| v.eval_cos().recip(), "(1.0/sn_cos(A))";
    /// cotangent `1/tan`
    Cot => "cot", |v| v.tan().recip(), "(1.0/tan(A))";
    /// arcsine
    Asin => "asin", |v| v.asin(), "asin(A)";
    /// arccosine
    Acos => "acos", |v| v.acos(), "acos(A)";
    /// arctangent
    Atan => "atan", |v| v.atan(), "atan(A)";
    /// arccotangent `atan(1/a)`
    Acot => "acot", |v| v.recip().atan(), "atan(1.0/(A))";
    /// sine of an angle in degrees
    Sind => "sind", |v| (v * k::<T>(DEG)).eval_sin(), "sn_sin((A)*sn_deg)";
    /// cosine in degrees
    Cosd => "cosd", |v| (v * k::<T>(DEG)).eval_cos(), "sn_cos((A)*sn_deg)";
    /// tangent in degrees
    Tand => "tand", |v| (v * k::<T>(DEG)).tan(), "tan((A)*sn_deg)";
    /// cosecant in degrees
    Cscd => "cscd", |v| (v * k::<T>(DEG)).eval_sin().recip(), "(1.0/sn_sin((A)*sn_deg))";
    /// secant in degrees
    Secd => "secd", |v| (v * k::<T>(DEG)).eval_cos().recip(), "(1.0/sn_cos((A)*sn_deg))";
    /// cotangent in degrees
    Cotd => "cotd", |v| (v * k::<T>(DEG)).tan().recip(), "(1.0/tan((A)*sn_deg))";
    /// arctangent in degrees
    Atand => "atand", |v| v.atan() * k::<T>(180.0 / PI), "(atan(A)*sn_rad)";
    /// arccotangent in degrees
    Acotd => "acotd", |v| v.recip().atan() * k::<T>(180.0 / PI), "(atan(1.0/(A))*sn_rad)";
    /// `sin(π a)`, exact at integers
    Sinpi => "sinpi", |v| via(v, sinpi), "sn_sinpi(A)";
    /// `cos(π a)`, exact at half-integers
    Cospi => "cospi", |v| via(v, cospi), "sn_cospi(A)";
    /// normalized sinc `sin(π a)/(π a)`, 1 at 0
    Sinc => "sinc", |v| via(v, sinc), "sn_sinc(A)";
    /// hyperbolic sine
    Sinh => "sinh", |v| v.sinh(), "sinh(A)";
    /// hyperbolic cosine
    Cosh => "cosh", |v| v.cosh(), "cosh(A)";
    /// hyperbolic tangent
    Tanh => "tanh", |v| v.tanh(), "tanh(A)";
    /// hyperbolic cosecant
    Csch => "csch", |v| v.sinh().recip(), "(1.0/sinh(A))";
    /// hyperbolic secant
    Sech => "sech", |v| v.cosh().recip(), "(1.0/cosh(A))";
    /// hyperbolic cotangent
    Coth => "coth", |v| v.tanh().recip(), "(1.0/tanh(A))";
    /// inverse hyperbolic sine
    Asinh => "asinh", |v| v.asinh(), "asinh(A)";
    /// inverse hyperbolic cosine
    Acosh => "acosh", |v| v.acosh(), "acosh(A)";
    /// inverse hyperbolic tangent
    Atanh => "atanh", |v| v.atanh(), "atanh(A)";
    /// inverse hyperbolic cotangent `atanh(1/a)`
    Acoth => "acoth", |v| v.recip().atanh(), "atanh(1.0/(A))";
    /// absolute value (derivative `sign`)
    Abs => "abs", |v| v.abs(), "fabs(A)";
    /// square `a*a`
    Abs2 => "abs2", |v| v * v, "((A)*(A))";
    /// reciprocal `1/a`
    Inv => "inv", |v| v.recip(), "(1.0/(A))";
    /// sign: -1, 0 or 1 (derivative 0)
    Sign => "sign", |v| sign(v), "sn_sign(A)";
    /// floor (derivative 0)
    Floor => "floor", |v| v.floor(), "floor(A)";
    /// ceiling (derivative 0)
    Ceil => "ceil", |v| v.ceil(), "ceil(A)";
    /// degrees to radians
    Deg2rad => "deg2rad", |v| v * k::<T>(DEG), "((A)*sn_deg)";
    /// radians to degrees
    Rad2deg => "rad2deg", |v| v * k::<T>(180.0 / PI), "((A)*sn_rad)";
    /// internal: first derivative of `sinc`
    Cosc => "cosc", |v| via(v, cosc), "sn_cosc(A)";
    /// internal: second derivative of `sinc`
    SincD2 => "sinc''", |v| via(v, sinc_d2), "sn_sinc_d2(A)";
    /// error function (feature `special`)
    Erf => "erf", |v| via(v, special_fns::erf), "erf(A)";
    /// complementary error function (feature `special`)
    Erfc => "erfc", |v| via(v, special_fns::erfc), "erfc(A)";
    /// gamma function (feature `special`)
    Gamma => "gamma", |v| via(v, special_fns::gamma), "tgamma(A)";
    /// log of the absolute value of the gamma function (feature `special`)
    Lgamma => "lgamma", |v| via(v, special_fns::lgamma), "lgamma(A)";
    /// digamma `ψ = Γ'/Γ` (feature `special`)
    Digamma => "digamma", |v| via(v, special_fns::digamma), "sn_digamma(A)";
    /// internal: trigamma `ψ'` (feature `special`)
    Trigamma => "trigamma", |v| via(v, special_fns::trigamma), "sn_trigamma(A)";
    /// internal: tetragamma `ψ''` (feature `special`)
    Tetragamma => "tetragamma", |v| via(v, special_fns::tetragamma), "sn_tetragamma(A)";
}

impl Un {
    /// Whether this function is available in this build (the special functions need the
    /// cargo feature `special`).
    pub fn available(self) -> bool {
        !matches!(
            self,
            Un::Erf
                | Un::Erfc
                | Un::Gamma
                | Un::Lgamma
                | Un::Digamma
                | Un::Trigamma
                | Un::Tetragamma
        ) || cfg!(feature = "special")
    }

    /// Whether the function is internal (a derivative of a public function, not a method of
    /// `Expr`).
    pub fn internal(self) -> bool {
        matches!(self, Un::Cosc | Un::SincD2 | Un::Trigamma | Un::Tetragamma)
    }
}

/// `sign(v)`: -1, 0 (keeping the sign of zero) or 1; NaN stays NaN.
#[inline(always)]
fn sign<T: Scalar>(v: T) -> T {
    if v > T::zero() {
        T::one()
    } else if v < T::zero() {
        -T::one()
    } else {
        v
    }
}

/// `sin(π x)` with exact argument reduction (exactly 0 at integers).
pub(crate) fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x % 2.0;
    if r > 1.0 {
        r -= 2.0;
    } else if r < -1.0 {
        r += 2.0;
    }
    if r > 0.5 {
        r = 1.0 - r;
    } else if r < -0.5 {
        r = -1.0 - r;
    }
    if r == 0.0 {
        return 0.0f64.copysign(x);
    }
    (PI * r).sin()
}

/// `cos(π x)` with exact argument reduction (exactly 0 at half-integers).
pub(crate) fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x.abs() % 2.0;
    if r > 1.0 {
        r = 2.0 - r;
    }
    if r < 0.25 {
        (PI * r).cos()
    } else {
        (PI * (0.5 - r)).sin()
    }
}

/// Normalized sinc, `sin(π x)/(π x)`, 1 at 0.
pub(crate) fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        return 1.0;
    }
    if x.is_infinite() {
        return 0.0;
    }
    if x.abs() < 0.2 {
        // Taylor series in z = πx: Σ (-1)^k z^{2k}/(2k+1)!
        let z2 = (PI * x) * (PI * x);
        let (mut term, mut s) = (1.0, 1.0);
        for kk in 1..12 {
            let k2 = 2.0 * kk as f64;
            term *= -z2 / (k2 * (k2 + 1.0));
            s += term;
        }
        return s;
    }
    sinpi(x) / (PI * x)
}

/// First derivative of `sinc`: `(cos(πx) - sinc(x))/x`, 0 at 0.
pub(crate) fn cosc(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    if x.abs() < 0.2 {
        // π Σ_{k≥1} (-1)^k 2k z^{2k-1}/(2k+1)!
        let z = PI * x;
        let z2 = z * z;
        let mut term = 1.0; // z^{2k-2}/(2k+1)! * (-1)^{k-1} running factor
        let mut s = 0.0;
        for kk in 1..12 {
            let k2 = 2.0 * kk as f64;
            if kk == 1 {
                term = -1.0 / 6.0;
            } else {
                term *= -z2 / (k2 * (k2 + 1.0));
            }
            s += term * k2;
        }
        return PI * z * s;
    }
    (cospi(x) - sinc(x)) / x
}

/// Second derivative of `sinc`: `(-π sin(πx) - 2 cosc(x))/x`, `-π²/3` at 0.
pub(crate) fn sinc_d2(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.0;
    }
    if x.abs() < 0.2 {
        // π² Σ_{k≥1} (-1)^k 2k(2k-1) z^{2k-2}/(2k+1)!
        let z = PI * x;
        let z2 = z * z;
        let mut term = 0.0;
        let mut s = 0.0;
        for kk in 1..12 {
            let k2 = 2.0 * kk as f64;
            if kk == 1 {
                term = -1.0 / 6.0;
            } else {
                term *= -z2 / (k2 * (k2 + 1.0));
            }
            s += term * k2 * (k2 - 1.0);
        }
        return PI * PI * s;
    }
    (-PI * sinpi(x) - 2.0 * cosc(x)) / x
}

#[cfg(feature = "special")]
mod special_fns {
    use special::{Error, Gamma};
    pub fn erf(x: f64) -> f64 {
        Error::error(x)
    }
    pub fn erfc(x: f64) -> f64 {
        Error::compl_error(x)
    }
    pub fn gamma(x: f64) -> f64 {
        Gamma::gamma(x)
    }
    pub fn lgamma(x: f64) -> f64 {
        Gamma::ln_gamma(x).0
    }
    /// `ψ(x)`. For `x <= 0` by reflection, `ψ(x) = ψ(1 - x) - π cot(πx)` (NaN at the poles
    /// and at `-∞`): the `special` crate recurses `ψ(x) = ψ(x + 1) - 1/x` up to `x > 8`,
    /// which overflows the stack for large negative `x`.
    pub fn digamma(x: f64) -> f64 {
        if x <= 0.0 {
            if x == x.floor() {
                return f64::NAN;
            }
            let pi = std::f64::consts::PI;
            return Gamma::digamma(1.0 - x) - pi / (pi * x).tan();
        }
        Gamma::digamma(x)
    }
    pub fn trigamma(x: f64) -> f64 {
        Gamma::trigamma(&x)
    }
    /// `ψ''(x)` (the `special` crate stops at trigamma): reflection for `x <= 0`,
    /// recurrence `ψ''(x) = ψ''(x+1) - 2/x³` up to `x >= 10`, then the asymptotic series
    /// `-1/x² - 1/x³ - Σ B_{2k} (2k+1)/x^{2k+2}`.
    pub fn tetragamma(x: f64) -> f64 {
        use std::f64::consts::PI;
        if x.is_nan() {
            return f64::NAN;
        }
        if x <= 0.0 {
            if x == x.floor() {
                return f64::NAN;
            }
            // ψ''(1-x) - ψ''(x) = π d²/dx² cot(πx)... reflection: ψ''(x) = ψ''(1-x) - 2π³ cot(πx) csc²(πx)
            let s = (PI * x).sin();
            let c = (PI * x).cos();
            return tetragamma(1.0 - x) - 2.0 * PI * PI * PI * c / (s * s * s);
        }
        let mut x = x;
        let mut acc = 0.0;
        while x < 10.0 {
            acc -= 2.0 / (x * x * x);
            x += 1.0;
        }
        let t = 1.0 / x;
        let t2 = t * t;
        // Bernoulli numbers B2..B12 times (2k+1)
        let b = [
            1.0 / 6.0,
            -1.0 / 30.0,
            1.0 / 42.0,
            -1.0 / 30.0,
            5.0 / 66.0,
            -691.0 / 2730.0,
        ];
        let mut series = 0.0;
        let mut p = t2 * t2; // 1/x^4
        for (kk, bk) in b.iter().enumerate() {
            let k2 = 2.0 * (kk as f64 + 1.0);
            series += bk * (k2 + 1.0) * p;
            p *= t2;
        }
        acc - t2 - t2 * t - series
    }
}

#[cfg(not(feature = "special"))]
mod special_fns {
    //! Without feature `special` these functions cannot be constructed (`Expr` has no
    //! methods for them); the evaluators return NaN if they ever meet one.
    pub fn erf(_: f64) -> f64 {
        f64::NAN
    }
    pub fn erfc(_: f64) -> f64 {
        f64::NAN
    }
    pub fn gamma(_: f64) -> f64 {
        f64::NAN
    }
    pub fn lgamma(_: f64) -> f64 {
        f64::NAN
    }
    pub fn digamma(_: f64) -> f64 {
        f64::NAN
    }
    pub fn trigamma(_: f64) -> f64 {
        f64::NAN
    }
    pub fn tetragamma(_: f64) -> f64 {
        f64::NAN
    }
}

/// Built-in bivariate functions (`Ge`/`Gt` are the internal step functions used by the
/// derivatives of `max` and `min`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bin {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `a ^ b` (real exponent)
    Pow,
    /// `atan2(a, b)` (angle of the point `(b, a)`)
    Atan2,
    /// `hypot(a, b) = sqrt(a² + b²)` without overflow
    Hypot,
    /// `max(a, b)` (derivative: 1 for `a` where `a >= b`)
    Max,
    /// `min(a, b)` (derivative: 1 for `a` where `a <= b`)
    Min,
    /// internal: 1 if `a >= b` else 0
    Ge,
    /// internal: 1 if `a > b` else 0
    Gt,
}

impl Bin {
    /// All built-in bivariate functions.
    pub const ALL: &'static [Bin] = &[
        Bin::Add,
        Bin::Sub,
        Bin::Mul,
        Bin::Div,
        Bin::Pow,
        Bin::Atan2,
        Bin::Hypot,
        Bin::Max,
        Bin::Min,
        Bin::Ge,
        Bin::Gt,
    ];

    /// Name as printed.
    pub fn name(self) -> &'static str {
        match self {
            Bin::Add => "+",
            Bin::Sub => "-",
            Bin::Mul => "*",
            Bin::Div => "/",
            Bin::Pow => "^",
            Bin::Atan2 => "atan2",
            Bin::Hypot => "hypot",
            Bin::Max => "max",
            Bin::Min => "min",
            Bin::Ge => "ge",
            Bin::Gt => "gt",
        }
    }

    /// Evaluates at one point.
    #[inline(always)]
    pub fn eval<T: Scalar>(self, a: T, b: T) -> T {
        match self {
            Bin::Add => a + b,
            Bin::Sub => a - b,
            Bin::Mul => a * b,
            Bin::Div => a / b,
            Bin::Pow => a.powf(b),
            Bin::Atan2 => a.atan2(b),
            Bin::Hypot => a.hypot(b),
            Bin::Max => {
                if a >= b || b.is_nan() {
                    a
                } else {
                    b
                }
            }
            Bin::Min => {
                if a <= b || b.is_nan() {
                    a
                } else {
                    b
                }
            }
            Bin::Ge => {
                if a >= b {
                    T::one()
                } else {
                    T::zero()
                }
            }
            Bin::Gt => {
                if a > b {
                    T::one()
                } else {
                    T::zero()
                }
            }
        }
    }

    /// C expression with operands `A` and `B`.
    pub(crate) fn c_template(self) -> &'static str {
        match self {
            Bin::Add => "((A) + (B))",
            Bin::Sub => "((A) - (B))",
            Bin::Mul => "((A) * (B))",
            Bin::Div => "((A) / (B))",
            Bin::Pow => "pow(A, B)",
            Bin::Atan2 => "atan2(A, B)",
            Bin::Hypot => "hypot(A, B)",
            Bin::Max => "sn_max(A, B)",
            Bin::Min => "sn_min(A, B)",
            Bin::Ge => "((A) >= (B) ? 1.0 : 0.0)",
            Bin::Gt => "((A) > (B) ? 1.0 : 0.0)",
        }
    }
}

/// A univariate function in `f64`.
pub type UnaryF64 = Arc<dyn Fn(f64) -> f64 + Send + Sync>;
/// A bivariate function in `f64`.
pub type BinaryF64 = Arc<dyn Fn(f64, f64) -> f64 + Send + Sync>;

pub(crate) struct UnaryInner {
    pub name: String,
    /// f, f', f''
    pub f: [UnaryF64; 3],
    /// optional CUDA C expressions of f, f', f'' in terms of `A`
    pub cuda: Option<[String; 3]>,
}

/// A user-registered univariate function with its first and second derivatives.
///
/// Cheap to clone; two handles are the same function iff they come from the same `new`.
/// Evaluation happens in `f64`.
#[derive(Clone)]
pub struct UnaryFn(pub(crate) Arc<UnaryInner>);

impl UnaryFn {
    /// Registers `f` with derivatives `df` and `d2f` (plain functions or non-capturing
    /// closures).
    pub fn new(name: &str, f: fn(f64) -> f64, df: fn(f64) -> f64, d2f: fn(f64) -> f64) -> Self {
        Self::new_dyn(name, Arc::new(f), Arc::new(df), Arc::new(d2f))
    }

    /// Registers capturing closures.
    pub fn new_dyn(name: &str, f: UnaryF64, df: UnaryF64, d2f: UnaryF64) -> Self {
        UnaryFn(Arc::new(UnaryInner {
            name: name.to_string(),
            f: [f, df, d2f],
            cuda: None,
        }))
    }

    /// Adds CUDA C expressions for `f`, `f'`, `f''` written in terms of the argument `A`
    /// (a `double`), e.g. `"A*A*A"`. Without them the emitter calls device functions
    /// `user_<name>_0/1/2(A)` that the user must supply.
    pub fn with_cuda(self, f: &str, df: &str, d2f: &str) -> Self {
        let inner = &self.0;
        UnaryFn(Arc::new(UnaryInner {
            name: inner.name.clone(),
            f: inner.f.clone(),
            cuda: Some([f.to_string(), df.to_string(), d2f.to_string()]),
        }))
    }

    /// The registered name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Derivative `order` (0, 1 or 2) at `v`.
    pub fn eval(&self, order: u8, v: f64) -> f64 {
        (self.0.f[order as usize])(v)
    }
}

impl fmt::Debug for UnaryFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UnaryFn({})", self.0.name)
    }
}

pub(crate) struct BinaryInner {
    pub name: String,
    /// f, ∂a, ∂b, ∂aa, ∂ab, ∂bb
    pub f: [BinaryF64; 6],
    pub cuda: Option<[String; 6]>,
}

/// A user-registered bivariate function with its first and second partial derivatives.
#[derive(Clone)]
pub struct BinaryFn(pub(crate) Arc<BinaryInner>);

/// Which partial derivative of a bivariate user function a node evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinPart {
    /// the function itself
    F = 0,
    /// ∂f/∂a
    A = 1,
    /// ∂f/∂b
    B = 2,
    /// ∂²f/∂a²
    AA = 3,
    /// ∂²f/∂a∂b
    AB = 4,
    /// ∂²f/∂b²
    BB = 5,
}

impl BinaryFn {
    /// Registers `f` with its partials `[∂a, ∂b]` and `[∂aa, ∂ab, ∂bb]`.
    pub fn new(
        name: &str,
        f: fn(f64, f64) -> f64,
        d: [fn(f64, f64) -> f64; 2],
        d2: [fn(f64, f64) -> f64; 3],
    ) -> Self {
        Self::new_dyn(
            name,
            Arc::new(f),
            [Arc::new(d[0]), Arc::new(d[1])],
            [Arc::new(d2[0]), Arc::new(d2[1]), Arc::new(d2[2])],
        )
    }

    /// Registers capturing closures.
    pub fn new_dyn(name: &str, f: BinaryF64, d: [BinaryF64; 2], d2: [BinaryF64; 3]) -> Self {
        let [da, db] = d;
        let [daa, dab, dbb] = d2;
        BinaryFn(Arc::new(BinaryInner {
            name: name.to_string(),
            f: [f, da, db, daa, dab, dbb],
            cuda: None,
        }))
    }

    /// Adds CUDA C expressions (in terms of `A` and `B`) for `[f, ∂a, ∂b, ∂aa, ∂ab, ∂bb]`.
    pub fn with_cuda(self, exprs: [&str; 6]) -> Self {
        let inner = &self.0;
        BinaryFn(Arc::new(BinaryInner {
            name: inner.name.clone(),
            f: inner.f.clone(),
            cuda: Some(exprs.map(|s| s.to_string())),
        }))
    }

    /// The registered name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Evaluates the given part at `(a, b)`.
    pub fn eval(&self, part: BinPart, a: f64, b: f64) -> f64 {
        (self.0.f[part as usize])(a, b)
    }
}

impl fmt::Debug for BinaryFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BinaryFn({})", self.0.name)
    }
}

/// A unary operation of the expression graph.
#[derive(Clone, Debug)]
pub(crate) enum UnOp {
    B(Un),
    Powi(i32),
    Powf(f64),
    User(UnaryFn, u8),
}

/// A binary operation of the expression graph.
#[derive(Clone, Debug)]
pub(crate) enum BinOp {
    B(Bin),
    User(BinaryFn, BinPart),
}

/// Hashable identity of a unary operation (user functions by pointer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UKey {
    B(Un),
    Powi(i32),
    Powf(u64),
    User(usize, u8),
}

/// Hashable identity of a binary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BKey {
    B(Bin),
    User(usize, BinPart),
}

impl UnOp {
    pub(crate) fn key(&self) -> UKey {
        match self {
            UnOp::B(u) => UKey::B(*u),
            UnOp::Powi(n) => UKey::Powi(*n),
            UnOp::Powf(p) => UKey::Powf(p.to_bits()),
            UnOp::User(f, o) => UKey::User(Arc::as_ptr(&f.0) as *const u8 as usize, *o),
        }
    }

    /// Evaluates in f64 (constant folding).
    pub(crate) fn eval_f64(&self, v: f64) -> f64 {
        match self {
            UnOp::B(u) => u.eval(v),
            UnOp::Powi(n) => v.powi(*n),
            UnOp::Powf(p) => v.powf(*p),
            UnOp::User(f, o) => f.eval(*o, v),
        }
    }

    pub(crate) fn name(&self) -> String {
        match self {
            UnOp::B(u) => u.name().to_string(),
            UnOp::Powi(n) => format!("^{n}"),
            UnOp::Powf(p) => format!("^{p}"),
            UnOp::User(f, 0) => f.name().to_string(),
            UnOp::User(f, o) => format!("{}{}", f.name(), "'".repeat(*o as usize)),
        }
    }
}

impl BinOp {
    pub(crate) fn key(&self) -> BKey {
        match self {
            BinOp::B(b) => BKey::B(*b),
            BinOp::User(f, p) => BKey::User(Arc::as_ptr(&f.0) as *const u8 as usize, *p),
        }
    }

    pub(crate) fn eval_f64(&self, a: f64, b: f64) -> f64 {
        match self {
            BinOp::B(op) => op.eval(a, b),
            BinOp::User(f, p) => f.eval(*p, a, b),
        }
    }

    pub(crate) fn name(&self) -> String {
        match self {
            BinOp::B(b) => b.name().to_string(),
            BinOp::User(f, BinPart::F) => f.name().to_string(),
            BinOp::User(f, p) => format!("{}_{:?}", f.name(), p),
        }
    }
}

/// `ln 2` and `ln 10` re-exported for the derivative rules.
pub(crate) const LN2: f64 = LN_2;
pub(crate) const LN10: f64 = LN_10;
