//! The macro that turns the one option table in `options.rs` into the [`crate::Options`]
//! struct, its `Default`, the [`crate::options::OPTIONS`] list, and the by-name accessors
//! (`set`, `get`) and range checks — so name, type, default, range and doc are written once.

/// `valid_range!((0 < x <= 0.5))` → the [`super::ValidRange`] of that inequality. The
/// forms: `(any)`, `(x > a)`, `(x >= a)`, `(x < b)`, `(x <= b)`, `(a < x < b)`,
/// `(a <= x < b)`, `(a < x <= b)`, `(a <= x <= b)` with literal `a`, `b`.
macro_rules! valid_range {
    ((any)) => {
        $crate::options::ValidRange::ANY
    };
    ((x > $lo:literal)) => {
        valid_range!(@ Exclusive($lo), Unbounded)
    };
    ((x >= $lo:literal)) => {
        valid_range!(@ Inclusive($lo), Unbounded)
    };
    (($lo:literal < x < $hi:literal)) => {
        valid_range!(@ Exclusive($lo), Exclusive($hi))
    };
    (($lo:literal <= x < $hi:literal)) => {
        valid_range!(@ Inclusive($lo), Exclusive($hi))
    };
    (($lo:literal < x <= $hi:literal)) => {
        valid_range!(@ Exclusive($lo), Inclusive($hi))
    };
    (($lo:literal <= x <= $hi:literal)) => {
        valid_range!(@ Inclusive($lo), Inclusive($hi))
    };
    (@ $lower:ident $(($lo:literal))?, $upper:ident $(($hi:literal))?) => {
        $crate::options::ValidRange {
            lower: $crate::options::Bound::$lower $(($lo as f64))?,
            upper: $crate::options::Bound::$upper $(($hi as f64))?,
        }
    };
}

/// Defines the options from rows `/// doc` `name: Type = default, (range);`.
macro_rules! options_table {
    (
        $(#[$struct_attr:meta])*
        pub struct Options {
            $(
                $(#[doc = $doc:literal])*
                $name:ident : $ty:ty = $default:expr, $range:tt;
            )*
        }
    ) => {
        $(#[$struct_attr])*
        pub struct Options {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!(
                    "Default `", stringify!($default), "`, valid range `",
                    stringify!($range), "`."
                )]
                pub $name: $ty,
            )*
        }

        impl Default for Options {
            fn default() -> Self {
                Self {
                    $($name: $default,)*
                }
            }
        }

        /// Every option, in declaration order: name, documentation, type and valid range
        /// (the defaults are [`Options::default`]; [`Options::get`] renders them).
        pub static OPTIONS: &[OptionInfo] = &[
            $(OptionInfo {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),*),
                kind: <$ty as $crate::options::value::OptionValue>::KIND,
                range: valid_range!($range),
            },)*
        ];

        impl Options {
            /// Parses `value` for the option `name` and range-checks it (`Ok(None)`: no
            /// option is called `name`). `self` is unchanged on error.
            fn set_known(&mut self, name: &str, value: &str) -> Result<Option<()>, OptionError> {
                match name {
                    $(stringify!($name) => {
                        self.$name = parse_checked::<$ty>(
                            stringify!($name),
                            value,
                            valid_range!($range),
                        )?;
                        Ok(Some(()))
                    })*
                    _ => Ok(None),
                }
            }

            /// The value of option `name` as text that [`Options::set`] accepts
            /// (`None` when no option has that name).
            pub fn get(&self, name: &str) -> Option<String> {
                use $crate::options::value::OptionValue;
                match name {
                    $(stringify!($name) => Some(self.$name.render()),)*
                    _ => None,
                }
            }

            /// Checks every option against its own valid range.
            fn check_ranges(&self) -> Result<(), OptionError> {
                $(check_range(stringify!($name), &self.$name, valid_range!($range))?;)*
                Ok(())
            }
        }
    };
}

pub(crate) use {options_table, valid_range};
