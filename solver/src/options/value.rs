//! Typed option values: their kinds, their valid ranges, parsing from text and rendering
//! back to text (`render(parse(s))` parses to the same value).

use std::fmt;

use super::{
    CudssKind, CudssReorderingKind, DeviceKind, FixedVariableTreatment, InertiaConfirmation,
    KktKind, LinearSolverKind, MuStrategy, OrderingKind, PrintLevel, RestorationRules,
};
use crate::derivative_check::DerivativeTest;

/// The type of an option's value, as [`crate::Options::set`] parses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionKind {
    /// A finite real number (`f64`; `1e-8`, `0.5`, `100`). NaN and ±∞ are rejected: like
    /// Ipopt, "no limit" is written `1e20`.
    Real,
    /// A non-negative integer (`usize`).
    Integer,
    /// `yes` / `no` (Ipopt's spelling) or `true` / `false`, any case.
    Bool,
    /// One of the listed words, any case.
    Choice(&'static [&'static str]),
}

impl fmt::Display for OptionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionKind::Real => f.write_str("a finite real number"),
            OptionKind::Integer => f.write_str("a non-negative integer"),
            OptionKind::Bool => f.write_str("yes or no"),
            OptionKind::Choice(words) => {
                f.write_str("one of ")?;
                for (k, w) in words.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "`{w}`")?;
                }
                Ok(())
            }
        }
    }
}

/// One end of a [`ValidRange`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// No bound on this side.
    Unbounded,
    /// The end itself is excluded (`<`).
    Exclusive(f64),
    /// The end itself is included (`<=`).
    Inclusive(f64),
}

/// The documented valid range of a numeric option, `lower ⋚ x ⋚ upper`; for booleans and
/// choices it is [`ValidRange::ANY`]. Every real option must also be finite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValidRange {
    /// Lower end.
    pub lower: Bound,
    /// Upper end.
    pub upper: Bound,
}

impl ValidRange {
    /// No restriction beyond the option's [`OptionKind`].
    pub const ANY: ValidRange = ValidRange {
        lower: Bound::Unbounded,
        upper: Bound::Unbounded,
    };

    /// Whether `x` lies in the range (NaN never does).
    pub fn contains(&self, x: f64) -> bool {
        let above = match self.lower {
            Bound::Unbounded => !x.is_nan(),
            Bound::Exclusive(l) => x > l,
            Bound::Inclusive(l) => x >= l,
        };
        let below = match self.upper {
            Bound::Unbounded => !x.is_nan(),
            Bound::Exclusive(u) => x < u,
            Bound::Inclusive(u) => x <= u,
        };
        above && below
    }
}

impl fmt::Display for ValidRange {
    /// `x > 0`, `0 < x <= 0.5`, `x >= 1` or `any`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.lower, self.upper) {
            (Bound::Unbounded, Bound::Unbounded) => f.write_str("any"),
            (lower, upper) => {
                match lower {
                    Bound::Unbounded => {}
                    Bound::Exclusive(l) => write!(f, "{l} < ")?,
                    Bound::Inclusive(l) => write!(f, "{l} <= ")?,
                }
                f.write_str("x")?;
                match upper {
                    Bound::Unbounded => {}
                    Bound::Exclusive(u) => write!(f, " < {u}")?,
                    Bound::Inclusive(u) => write!(f, " <= {u}")?,
                }
                Ok(())
            }
        }
    }
}

/// A value type an option can have: parsed from text, rendered back to text, and (for
/// numbers) compared against its [`ValidRange`].
pub(crate) trait OptionValue: Sized {
    /// The kind reported in the option table and in errors.
    const KIND: OptionKind;
    /// Parses `text` (already trimmed); `None` when it is not of this kind.
    fn parse_text(text: &str) -> Option<Self>;
    /// The value as text that [`OptionValue::parse_text`] reads back to the same value.
    fn render(&self) -> String;
    /// The value as a number for the range check (`None`: not numeric, always in range).
    fn as_number(&self) -> Option<f64>;
}

impl OptionValue for f64 {
    const KIND: OptionKind = OptionKind::Real;
    fn parse_text(text: &str) -> Option<Self> {
        text.parse::<f64>().ok().filter(|v| v.is_finite())
    }
    fn render(&self) -> String {
        // `{:?}` is the shortest text that reads back to the same f64 (`1e-8`, `0.1`).
        format!("{self:?}")
    }
    fn as_number(&self) -> Option<f64> {
        Some(*self)
    }
}

impl OptionValue for usize {
    const KIND: OptionKind = OptionKind::Integer;
    fn parse_text(text: &str) -> Option<Self> {
        text.parse::<usize>().ok()
    }
    fn render(&self) -> String {
        self.to_string()
    }
    fn as_number(&self) -> Option<f64> {
        // exact up to 2^53, and every range bound is small, so comparisons stay right
        Some(*self as f64)
    }
}

impl OptionValue for bool {
    const KIND: OptionKind = OptionKind::Bool;
    fn parse_text(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "yes" | "true" => Some(true),
            "no" | "false" => Some(false),
            _ => None,
        }
    }
    fn render(&self) -> String {
        if *self { "yes" } else { "no" }.to_string()
    }
    fn as_number(&self) -> Option<f64> {
        None
    }
}

/// Implements [`OptionValue`] for an option enum from its `(word, variant)` list; the first
/// word of a variant is the one [`OptionValue::render`] writes.
macro_rules! choice_value {
    ($ty:ty, [$($word:literal => $variant:path),+ $(,)?]) => {
        impl OptionValue for $ty {
            const KIND: OptionKind = OptionKind::Choice(&[$($word),+]);
            fn parse_text(text: &str) -> Option<Self> {
                let lower = text.to_ascii_lowercase();
                $(if lower == $word {
                    return Some($variant);
                })+
                None
            }
            fn render(&self) -> String {
                match self {
                    $($variant => $word,)+
                }
                .to_string()
            }
            fn as_number(&self) -> Option<f64> {
                None
            }
        }
    };
}

choice_value!(
    DeviceKind,
    ["cpu" => DeviceKind::Cpu, "emu" => DeviceKind::Emu, "cuda" => DeviceKind::Cuda]
);
choice_value!(KktKind, [
    "augmented" => KktKind::Augmented,
    "condensed" => KktKind::Condensed,
    "hybrid" => KktKind::Hybrid,
]);
choice_value!(LinearSolverKind, [
    "ldlt" => LinearSolverKind::Ldlt,
    "lblt" => LinearSolverKind::Lblt,
    "lblt_paired" => LinearSolverKind::LbltPaired,
    "multifrontal" => LinearSolverKind::Multifrontal,
]);
choice_value!(InertiaConfirmation, [
    "none" => InertiaConfirmation::None,
    "multifrontal" => InertiaConfirmation::Multifrontal,
    "multifrontal_singular" => InertiaConfirmation::MultifrontalSingular,
    "multifrontal_selective" => InertiaConfirmation::MultifrontalSelective,
    "multifrontal_before_delta_w" => InertiaConfirmation::MultifrontalBeforeDeltaW,
]);
choice_value!(RestorationRules, [
    "auto" => RestorationRules::Auto,
    "options" => RestorationRules::Options,
    "ipopt" => RestorationRules::Ipopt,
]);
choice_value!(CudssKind, ["ldlt" => CudssKind::Ldlt, "cholesky" => CudssKind::Cholesky]);
choice_value!(CudssReorderingKind, [
    "default" => CudssReorderingKind::Default,
    "alg1" => CudssReorderingKind::Alg1,
    "alg2" => CudssReorderingKind::Alg2,
    "alg3" => CudssReorderingKind::Alg3,
    "host_amd" => CudssReorderingKind::HostAmd,
    "host_nd" => CudssReorderingKind::HostNd,
]);
choice_value!(OrderingKind, [
    "amd" => OrderingKind::Amd,
    "nd" => OrderingKind::NestedDissection,
    "auto" => OrderingKind::Auto,
]);
choice_value!(FixedVariableTreatment, [
    "make_parameter" => FixedVariableTreatment::MakeParameter,
    "relax_bounds" => FixedVariableTreatment::RelaxBounds,
]);
choice_value!(DerivativeTest, [
    "none" => DerivativeTest::None,
    "first-order" => DerivativeTest::FirstOrder,
    "second-order" => DerivativeTest::SecondOrder,
    "only-second-order" => DerivativeTest::OnlySecondOrder,
]);
choice_value!(MuStrategy, [
    "monotone" => MuStrategy::Monotone,
    "adaptive" => MuStrategy::AdaptiveLoqo,
]);

impl OptionValue for PrintLevel {
    const KIND: OptionKind =
        OptionKind::Choice(&["none", "summary", "iterations", "debug", "0..=12"]);
    /// A word, or Ipopt's integer level: `0` none, `1`–`2` summary, `3`–`5` iterations
    /// (Ipopt's default is 5), `6`–`12` debug.
    fn parse_text(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "none" => Some(PrintLevel::None),
            "summary" => Some(PrintLevel::Summary),
            "iterations" => Some(PrintLevel::Iterations),
            "debug" => Some(PrintLevel::Debug),
            number => match number.parse::<u32>().ok()? {
                0 => Some(PrintLevel::None),
                1..=2 => Some(PrintLevel::Summary),
                3..=5 => Some(PrintLevel::Iterations),
                6..=12 => Some(PrintLevel::Debug),
                _ => None,
            },
        }
    }
    fn render(&self) -> String {
        match self {
            PrintLevel::None => "none",
            PrintLevel::Summary => "summary",
            PrintLevel::Iterations => "iterations",
            PrintLevel::Debug => "debug",
        }
        .to_string()
    }
    fn as_number(&self) -> Option<f64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_print_and_check() {
        let r = ValidRange {
            lower: Bound::Exclusive(0.0),
            upper: Bound::Inclusive(0.5),
        };
        assert_eq!(r.to_string(), "0 < x <= 0.5");
        assert!(r.contains(0.5) && !r.contains(0.0) && !r.contains(f64::NAN));
        assert_eq!(ValidRange::ANY.to_string(), "any");
        assert!(!ValidRange::ANY.contains(f64::NAN));
    }

    #[test]
    fn values_round_trip_through_text() {
        for v in [1e-8, 0.1, 1.0 / 3.0, 10.0 * f64::EPSILON, 1e20, -2.5] {
            assert_eq!(f64::parse_text(&v.render()), Some(v));
        }
        assert_eq!(f64::parse_text("nan"), None);
        assert_eq!(f64::parse_text("inf"), None);
        assert_eq!(usize::parse_text("-1"), None);
        assert_eq!(bool::parse_text("Yes"), Some(true));
        assert_eq!(
            MuStrategy::parse_text("ADAPTIVE"),
            Some(MuStrategy::AdaptiveLoqo)
        );
        assert_eq!(MuStrategy::AdaptiveLoqo.render(), "adaptive");
        assert_eq!(PrintLevel::parse_text("5"), Some(PrintLevel::Iterations));
        assert_eq!(PrintLevel::parse_text("13"), None);
        assert_eq!(
            OptionKind::Choice(&["ldlt", "lblt"]).to_string(),
            "one of `ldlt`, `lblt`"
        );
    }
}
