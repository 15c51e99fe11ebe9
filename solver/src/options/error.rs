//! [`OptionError`]: what is wrong with an option name, value, combination or options file.

use std::fmt;
use std::path::PathBuf;

use super::value::{OptionKind, ValidRange};

/// Why an option could not be set, or why a set of options is invalid. Every variant names
/// the option (and, for files, where it was read); an unknown name carries the closest
/// valid names.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    /// No option has this name.
    #[error("unknown option `{name}`{}", DidYouMean(suggestions))]
    UnknownOption {
        /// The name as given.
        name: String,
        /// The closest valid names, best first (possibly empty).
        suggestions: Vec<&'static str>,
    },
    /// The value text is not of the option's type.
    #[error("option `{name}`: {value:?} is not {kind}")]
    WrongType {
        /// The option.
        name: &'static str,
        /// The value text as given.
        value: String,
        /// The type the option expects.
        kind: OptionKind,
    },
    /// The value is of the right type but outside the option's documented range.
    #[error("option `{name}` = {value} is outside its valid range {range}")]
    OutOfRange {
        /// The option.
        name: &'static str,
        /// The value (as text).
        value: String,
        /// The valid range.
        range: ValidRange,
    },
    /// Two options that must satisfy a relation do not.
    #[error("option `{name}` = {value} conflicts with `{other}` = {other_value}: {rule}")]
    Conflict {
        /// The first option.
        name: &'static str,
        /// Its value (as text).
        value: String,
        /// The second option.
        other: &'static str,
        /// Its value (as text).
        other_value: String,
        /// The relation that must hold.
        rule: &'static str,
    },
    /// An option in a file (or text) was rejected.
    #[error("{origin}:{line}: {error}")]
    InFile {
        /// File path or other origin of the text.
        origin: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the option.
        error: Box<OptionError>,
    },
    /// A line of an Ipopt-format options file is not `name value`.
    #[error("{origin}:{line}: expected `name value`, found {text:?}")]
    Syntax {
        /// File path or other origin of the text.
        origin: String,
        /// 1-based line number.
        line: usize,
        /// The line without its comment.
        text: String,
    },
    /// A TOML options file does not parse, or a key holds a table, array or date.
    #[error("{origin}:{line}: {message}")]
    Toml {
        /// File path or other origin of the text.
        origin: String,
        /// 1-based line number (0 when the parser gives no position).
        line: usize,
        /// The TOML parser's message, or which key holds what.
        message: String,
    },
    /// An options file could not be read.
    #[error("cannot read options file {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
}

impl OptionError {
    /// The option this error is about, when it is about one.
    pub fn option_name(&self) -> Option<&str> {
        match self {
            OptionError::UnknownOption { name, .. } => Some(name),
            OptionError::WrongType { name, .. }
            | OptionError::OutOfRange { name, .. }
            | OptionError::Conflict { name, .. } => Some(name),
            OptionError::InFile { error, .. } => error.option_name(),
            OptionError::Syntax { .. } | OptionError::Toml { .. } | OptionError::Io { .. } => None,
        }
    }
}

/// `"; did you mean `a`, `b` or `c`?"` (nothing when there are no suggestions).
struct DidYouMean<'a>(&'a [&'static str]);

impl fmt::Display for DidYouMean<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some((last, first)) = self.0.split_last() else {
            return Ok(());
        };
        f.write_str("; did you mean ")?;
        for (k, name) in first.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{name}`")?;
        }
        if !first.is_empty() {
            f.write_str(" or ")?;
        }
        write!(f, "`{last}`?")
    }
}
