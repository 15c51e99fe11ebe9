//! Column-oriented data of a pattern's data points.

/// The data points of one pattern, stored as columns.
///
/// `reals[c][k]` is real field `c` of data point `k`; `ints[c][k]` is integer field `c`.
/// Every column must have at least `len` entries (the modeling layer owns the storage and
/// guarantees this; evaluators read only the first `len` entries).
#[derive(Clone, Copy, Debug)]
pub struct DataView<'a, T> {
    /// Number of data points.
    pub len: usize,
    /// Real-valued columns.
    pub reals: &'a [&'a [T]],
    /// Integer-valued columns (indices, counts).
    pub ints: &'a [&'a [i64]],
}

impl<'a, T> DataView<'a, T> {
    /// A view with `len` data points and the given columns.
    pub fn new(len: usize, reals: &'a [&'a [T]], ints: &'a [&'a [i64]]) -> Self {
        DataView { len, reals, ints }
    }

    /// A view with `len` data points and no columns (patterns that use no data).
    pub fn empty(len: usize) -> Self {
        DataView {
            len,
            reals: &[],
            ints: &[],
        }
    }

    /// Integer field `col` of point `k`, or `None` when the column or row does not exist.
    #[inline]
    pub fn int(&self, col: u32, k: usize) -> Option<i64> {
        self.ints.get(col as usize).and_then(|c| c.get(k)).copied()
    }
}

impl<T: Copy> DataView<'_, T> {
    /// Real field `col` of point `k`, or `None` when the column or row does not exist.
    #[inline]
    pub fn real(&self, col: u32, k: usize) -> Option<T> {
        self.reals.get(col as usize).and_then(|c| c.get(k)).copied()
    }
}
