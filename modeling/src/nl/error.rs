//! Errors of `.nl` import: malformed files (with the line or byte offset and the field) and
//! well-formed features the modeling layer cannot represent (with the feature and the row).

use crate::error::ModelError;
use std::fmt;

/// Where in a `.nl` file something was read: a line of a text (`g`) file or of the header,
/// or a byte offset in the binary (`b`) segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// 1-based line number (text files and the header of binary files).
    Line(usize),
    /// 0-based byte offset (the segments of a binary file).
    Byte(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(l) => write!(f, "line {l}"),
            Location::Byte(b) => write!(f, "byte {b}"),
        }
    }
}

/// A row, objective or defined variable of the file, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Item {
    /// Constraint row `index` (0-based, `.nl` order) and its name from the `.row` file.
    Constraint {
        /// 0-based row in the file.
        index: usize,
        /// The `.row` name, when the file is present.
        name: Option<String>,
    },
    /// Objective `index`.
    Objective {
        /// 0-based objective in the file.
        index: usize,
        /// The `.row` name (objective names follow the constraint names).
        name: Option<String>,
    },
    /// Variable `index`.
    Variable {
        /// 0-based variable in the file.
        index: usize,
        /// The `.col` name, when the file is present.
        name: Option<String>,
    },
    /// Defined variable (common expression) `index` (its `V` segment number minus `n_var`).
    Defined {
        /// 0-based common expression.
        index: usize,
    },
    /// Logical constraint `index` (`L` segment).
    Logical {
        /// 0-based logical constraint.
        index: usize,
    },
    /// The file as a whole (header counts).
    File,
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named = |f: &mut fmt::Formatter<'_>, what: &str, i: usize, n: &Option<String>| match n {
            Some(n) => write!(f, "{what} {i} `{n}`"),
            None => write!(f, "{what} {i}"),
        };
        match self {
            Item::Constraint { index, name } => named(f, "constraint", *index, name),
            Item::Objective { index, name } => named(f, "objective", *index, name),
            Item::Variable { index, name } => named(f, "variable", *index, name),
            Item::Defined { index } => write!(f, "defined variable {index}"),
            Item::Logical { index } => write!(f, "logical constraint {index}"),
            Item::File => f.write_str("the problem"),
        }
    }
}

/// Why a `.nl` file could not be read or imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NlError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file is not a well-formed `.nl` file: `field` could not be read at `at`.
    #[error("{at}: {field}: {reason}")]
    Malformed {
        /// Line (text) or byte offset (binary) of the offending token.
        at: Location,
        /// What was being read (`number of variables`, `opcode`, `bound type of row 3`, …).
        field: String,
        /// What was wrong (`expected an integer, found "x"`, `unexpected end of file`, …).
        reason: String,
    },
    /// A well-formed construct the modeling layer cannot represent (integer variables,
    /// complementarity, logical constraints, imported functions, string or counting
    /// operators).
    #[error("{item}: {feature} is not supported{}", at.map(|a| format!(" ({a})")).unwrap_or_default())]
    Unsupported {
        /// The feature (`integer variables`, `complementarity`, `imported function "f"`, …).
        feature: String,
        /// The row, objective or variable that uses it.
        item: Item,
        /// Where in the file, when known.
        at: Option<Location>,
    },
    /// The modeling layer rejected the imported model (reported with the `.nl` context).
    #[error("building the imported model: {0}")]
    Model(#[from] ModelError),
}

impl NlError {
    /// A malformed-file error.
    pub(crate) fn malformed(
        at: Location,
        field: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        NlError::Malformed {
            at,
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The location of a malformed-file or unsupported-feature error.
    pub fn location(&self) -> Option<Location> {
        match self {
            NlError::Malformed { at, .. } => Some(*at),
            NlError::Unsupported { at, .. } => *at,
            _ => None,
        }
    }
}
