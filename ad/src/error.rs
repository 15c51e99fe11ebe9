//! Errors of expression construction and pattern compilation.

/// Why a pattern could not be compiled or evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AdError {
    /// A derivative of higher order than the function provides was requested (user
    /// functions carry first and second derivatives only).
    #[error("function `{function}`: derivative of order {order} is not available (node {node})")]
    MissingDerivative {
        /// Name of the function.
        function: String,
        /// Requested derivative order (1, 2 or 3).
        order: u8,
        /// Node of the pattern graph (printed) where it was needed.
        node: String,
    },
    /// An index expression has a constant divisor of zero.
    #[error("index expression `{index}` divides by the constant zero")]
    IndexDivisionByZero {
        /// The offending index expression (printed with the default namer).
        index: String,
    },
    /// The data view lacks a column the pattern reads, or the column is too short.
    #[error("{kind} data column {col} is missing or shorter than {len} points (has {have:?})")]
    MissingColumn {
        /// `"real"` or `"integer"`.
        kind: &'static str,
        /// Column number.
        col: u32,
        /// Number of data points required.
        len: usize,
        /// Rows present, `None` when the column is missing.
        have: Option<usize>,
    },
    /// The pattern is too large for the program format (more than `u32::MAX` nodes).
    #[error("pattern too large: {what}")]
    TooLarge {
        /// Which limit was exceeded.
        what: String,
    },
}
