//! Errors of model building and of model accessors.

use simdnlp_ad::AdError;

/// Why a model could not be built, or an accessor call was rejected.
///
/// Every variant names the block or pattern involved and, where it applies, the data
/// point and the index, so the message alone locates the mistake.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A position used by a pattern lies outside the block it indexes (checked per data
    /// point and per dimension, so an index can never alias into the next row or block).
    #[error("{0}")]
    IndexOutOfRange(Box<OutOfRange>),
    /// A position could not be represented (integer overflow, or an affine position with
    /// more columns than `MAX_IDX_TERMS`).
    #[error(
        "pattern `{pattern}`: invalid position for {kind} block `{block}` (integer overflow or too many columns)"
    )]
    InvalidIndex {
        /// The pattern.
        pattern: String,
        /// Kind of the indexed block.
        kind: &'static str,
        /// The indexed block.
        block: String,
    },
    /// A pattern references a block that belongs to another model builder.
    #[error("pattern `{pattern}` uses a {kind} block (#{id}) that does not belong to this model")]
    ForeignBlock {
        /// The pattern.
        pattern: String,
        /// Kind of the referenced block.
        kind: &'static str,
        /// The block's id.
        id: u32,
    },
    /// A handle passed to a model accessor does not belong to this model.
    #[error("{kind} block `{block}` does not belong to this model")]
    ForeignHandle {
        /// Kind of the block.
        kind: &'static str,
        /// The handle's block name.
        block: String,
    },
    /// A list of values has the wrong length for the block.
    #[error("{what} of block `{block}`: expected {expected} values, got {got}")]
    LengthMismatch {
        /// The block (or `x`, `y`, … for flat vectors).
        block: String,
        /// Which attribute (`start`, `lower`, `lcon`, `parameter values`, `solution`, …).
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// A NaN (or, for starts and parameters, an infinite) value.
    #[error("{what} of block `{block}` at index {at} is {value}")]
    NotANumber {
        /// The block.
        block: String,
        /// Which attribute.
        what: &'static str,
        /// Index of the element in the block's own indices (`[3]`, `[2, 5]`).
        at: String,
        /// The value.
        value: f64,
    },
    /// A lower bound above its upper bound.
    #[error("block `{block}` at index {at}: {what} lower bound {lower} > upper bound {upper}")]
    InvertedBounds {
        /// The block.
        block: String,
        /// `variable` or `constraint`.
        what: &'static str,
        /// Index of the element.
        at: String,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
    /// An index set that is not valid (a negative count, a bound outside `i64`), or a
    /// data source that could not be read.
    #[error("{what}: {reason}")]
    BadShape {
        /// The block or pattern.
        what: String,
        /// Why.
        reason: String,
    },
    /// Two blocks with the same name.
    #[error("two blocks are named `{name}`")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// Objective patterns were declared with both senses.
    #[error("objective patterns ask for both minimization and maximization")]
    ConflictingSense,
    /// The AD compiler rejected a pattern.
    #[error("pattern `{pattern}`: {source}")]
    Compile {
        /// The pattern.
        pattern: String,
        /// The compiler's error.
        source: AdError,
    },
    /// A block name lookup failed.
    #[error("no {kind} block is named `{name}`")]
    NotFound {
        /// Kind of block looked for.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A block looked up by name has another number of dimensions than asked for.
    #[error("block `{name}` has {actual} dimensions, {asked} were asked for")]
    DimensionMismatch {
        /// The block.
        name: String,
        /// Its dimension count.
        actual: usize,
        /// The requested dimension count.
        asked: usize,
    },
    /// A pattern indexes a block with the wrong number of positions.
    #[error(
        "pattern `{pattern}`: {kind} block `{block}` has {expected} dimensions, indexed with {got}"
    )]
    WrongArity {
        /// The pattern.
        pattern: String,
        /// Kind of the block.
        kind: &'static str,
        /// The block.
        block: String,
        /// Its dimension count.
        expected: usize,
        /// Number of positions given.
        got: usize,
    },
    /// A block, or the model's running total of variables, parameters or constraint rows,
    /// has more elements than a position can address (positions are `i64`, so at most
    /// [`crate::shape::MAX_ELEMENTS`]).
    #[error("{what}: {elements} elements, more than the {limit} a model can address", limit = crate::shape::MAX_ELEMENTS)]
    TooLarge {
        /// What overflowed (`variables of the model after block `x3``, ...).
        what: String,
        /// The element count it would have had (saturated at `u64::MAX`).
        elements: u64,
    },
    /// A user function called by a pattern has no CUDA body, so the model's kernels cannot
    /// be emitted for a device (register one with `UnaryFn::with_cuda`).
    #[error("user function `{function}` has no CUDA body (register one with `with_cuda`)")]
    MissingCudaBody {
        /// The emitted name of the function (`user_<name>_<derivative order>`).
        function: String,
    },
    /// A device operation of [`crate::device::DeviceModel`] failed.
    #[error("{0}")]
    Device(Box<simdnlp_device::DeviceError>),
    /// A model-sized buffer could not be allocated.
    #[error("cannot allocate {bytes} bytes for {what}")]
    OutOfMemory {
        /// What the buffer is for (`variable bounds (nvar = 1000000000000)`, ...).
        what: String,
        /// The bytes requested (saturated at `u64::MAX`, beyond any 64-bit address space).
        bytes: u64,
    },
    /// A real data field read by a pattern is NaN or infinite.
    #[error("{0}")]
    NonFiniteData(Box<NonFiniteDatum>),
    /// A constraint row that depends on no variable has a value outside its bounds: no
    /// `x` satisfies it.
    #[error(
        "row {at} of constraint block `{block}` depends on no variable and its value {value} lies outside [{lower}, {upper}]"
    )]
    InfeasibleConstantRow {
        /// The constraint block.
        block: String,
        /// The row in the block's own indices (`[3]`, `[2, 5]`).
        at: String,
        /// The row's (constant) value at build time.
        value: f64,
        /// Its lower bound.
        lower: f64,
        /// Its upper bound.
        upper: f64,
    },
}

/// Details of [`ModelError::IndexOutOfRange`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "pattern `{pattern}`, data point {point} ({point_desc}): index {index} of dimension {dim} of {kind} block `{block}` is outside {range} (written `{written}`)"
)]
pub struct OutOfRange {
    /// The pattern.
    pub pattern: String,
    /// The data point (0-based position in the data source).
    pub point: usize,
    /// The data point's fields, printed (`i = 201`).
    pub point_desc: String,
    /// `variable`, `parameter`, `constraint` (augmentation rows) or `expression`.
    pub kind: &'static str,
    /// The indexed block.
    pub block: String,
    /// The dimension (0-based).
    pub dim: usize,
    /// The offending index value.
    pub index: i64,
    /// The valid range of that dimension.
    pub range: String,
    /// The index expression as written.
    pub written: String,
}

/// Details of [`ModelError::NonFiniteData`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("pattern `{pattern}`, data point {point} ({point_desc}): data field `{field}` is {value}")]
pub struct NonFiniteDatum {
    /// The pattern (for a constraint pattern, its constraint block's name).
    pub pattern: String,
    /// The data point (0-based position in the data source).
    pub point: usize,
    /// The data point's fields, printed (`d.0 = 2, d.1 = NaN`).
    pub point_desc: String,
    /// The field's name (`d.1`, `d.pd`).
    pub field: String,
    /// The value.
    pub value: f64,
}
