//! Sparse matrix types: fixed-structure COO patterns, CSC patterns and matrices, the
//! COO → CSC duplicate-summing map, and the symmetric (lower-triangle) matrix-vector product.
//!
//! All indices are zero-based `usize`. Structures are validated once at construction and
//! every failure is a typed [`LinalgError`] naming the input and the offending index.

use crate::LinalgError;

/// A fixed COO (coordinate) sparsity structure: entry `k` sits at `(rows[k], cols[k])`.
///
/// Duplicates are allowed; every consumer in this crate sums them. The values live outside
/// the pattern (one `&[f64]` of length [`CooPattern::nnz`] in the same order), so a pattern
/// is built once and refilled many times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CooPattern {
    nrows: usize,
    ncols: usize,
    rows: Vec<usize>,
    cols: Vec<usize>,
}

impl CooPattern {
    /// Validates and stores a COO structure of an `nrows × ncols` matrix.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when `rows.len() != cols.len()`,
    /// [`LinalgError::IndexOutOfRange`] for the first entry outside the matrix.
    pub fn new(
        nrows: usize,
        ncols: usize,
        rows: Vec<usize>,
        cols: Vec<usize>,
    ) -> Result<Self, LinalgError> {
        check_coo("COO pattern", nrows, ncols, &rows, &cols)?;
        Ok(Self {
            nrows,
            ncols,
            rows,
            cols,
        })
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Number of stored entries (duplicates counted separately).
    pub fn nnz(&self) -> usize {
        self.rows.len()
    }

    /// Row index of each entry.
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// Column index of each entry.
    pub fn cols(&self) -> &[usize] {
        &self.cols
    }

    /// Builds the CSC pattern of this matrix (duplicates merged, rows sorted in each column)
    /// and the map from COO entries to CSC positions.
    pub fn to_csc(&self) -> CooToCsc {
        let (col_ptr, row_idx, map) =
            csc_map_from_coo(self.nrows, self.ncols, &self.rows, &self.cols);
        CooToCsc {
            pattern: CscPattern {
                nrows: self.nrows,
                ncols: self.ncols,
                col_ptr,
                row_idx,
            },
            map,
        }
    }
}

/// The map from a COO pattern to its merged CSC pattern: COO entry `k` is added into CSC
/// position `map()[k]`.
#[derive(Clone, Debug)]
pub struct CooToCsc {
    pattern: CscPattern,
    map: Vec<usize>,
}

impl CooToCsc {
    /// The merged CSC pattern.
    pub fn pattern(&self) -> &CscPattern {
        &self.pattern
    }

    /// CSC position of each COO entry.
    pub fn map(&self) -> &[usize] {
        &self.map
    }

    /// Sums COO values (in COO entry order) into CSC values `out` (length
    /// `pattern().nnz()`), overwriting `out`. Allocates nothing.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when `coo_vals` or `out` have the wrong length.
    pub fn scatter(&self, coo_vals: &[f64], out: &mut [f64]) -> Result<(), LinalgError> {
        check_len("COO values", self.map.len(), coo_vals.len())?;
        check_len("CSC values (out)", self.pattern.nnz(), out.len())?;
        out.fill(0.0);
        for (&pos, &v) in self.map.iter().zip(coo_vals) {
            out[pos] += v;
        }
        Ok(())
    }
}

/// A compressed sparse column structure: the row indices of column `j` are
/// `row_idx[col_ptr[j]..col_ptr[j + 1]]`, strictly increasing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CscPattern {
    nrows: usize,
    ncols: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
}

impl CscPattern {
    /// Validates and stores a CSC structure.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when `col_ptr.len() != ncols + 1` or
    /// `row_idx.len() != col_ptr[ncols]`, [`LinalgError::InvalidPattern`] for decreasing
    /// column pointers or unsorted/duplicate rows, [`LinalgError::IndexOutOfRange`] for a row
    /// index `>= nrows`.
    pub fn new(
        nrows: usize,
        ncols: usize,
        col_ptr: Vec<usize>,
        row_idx: Vec<usize>,
    ) -> Result<Self, LinalgError> {
        check_csc("CSC pattern", nrows, ncols, &col_ptr, &row_idx, false)?;
        Ok(Self {
            nrows,
            ncols,
            col_ptr,
            row_idx,
        })
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// Column pointers (length `ncols + 1`).
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }

    /// Row indices (length `nnz`), sorted within each column.
    pub fn row_idx(&self) -> &[usize] {
        &self.row_idx
    }
}

/// A CSC matrix: a [`CscPattern`] plus one value per stored entry.
#[derive(Clone, Debug, PartialEq)]
pub struct CscMatrix {
    pattern: CscPattern,
    values: Vec<f64>,
}

impl CscMatrix {
    /// Pairs a pattern with its values.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when `values.len() != pattern.nnz()`.
    pub fn new(pattern: CscPattern, values: Vec<f64>) -> Result<Self, LinalgError> {
        check_len("CSC values", pattern.nnz(), values.len())?;
        Ok(Self { pattern, values })
    }

    /// The structure.
    pub fn pattern(&self) -> &CscPattern {
        &self.pattern
    }

    /// The values, in `row_idx` order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Mutable values (the structure stays fixed).
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// `y = A x` for the general (unsymmetric) matrix.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when `x.len() != ncols` or `y.len() != nrows`.
    pub fn matvec(&self, x: &[f64], y: &mut [f64]) -> Result<(), LinalgError> {
        check_len("matvec x", self.pattern.ncols, x.len())?;
        check_len("matvec y", self.pattern.nrows, y.len())?;
        y.fill(0.0);
        for (j, &xj) in x.iter().enumerate() {
            let range = self.pattern.col_ptr[j]..self.pattern.col_ptr[j + 1];
            for (&i, &v) in self.pattern.row_idx[range.clone()]
                .iter()
                .zip(&self.values[range])
            {
                y[i] += v * xj;
            }
        }
        Ok(())
    }
}

/// `y = A x` where `A` is symmetric and given by its lower triangle in CSC form
/// (`col_ptr` length `n + 1`, `row_idx[k] >= column`). Off-diagonal entries are applied to
/// both triangles; duplicate entries would be summed. Allocates nothing.
///
/// # Errors
/// [`LinalgError::LengthMismatch`] for inconsistent lengths, [`LinalgError::IndexOutOfRange`]
/// for a row index `>= n`.
pub fn sym_lower_matvec(
    col_ptr: &[usize],
    row_idx: &[usize],
    values: &[f64],
    x: &[f64],
    y: &mut [f64],
) -> Result<(), LinalgError> {
    let n = col_ptr.len().saturating_sub(1);
    check_len("sym matvec col_ptr", x.len() + 1, col_ptr.len())?;
    check_len("sym matvec y", n, y.len())?;
    check_len("sym matvec values", row_idx.len(), values.len())?;
    check_len("sym matvec row_idx", col_ptr[n], row_idx.len())?;
    // Both of length `n` to the compiler too: after the `i >= n` check below, `x[i]` and
    // `y[i]` need no bounds checks of their own.
    let (x, y) = (&x[..n], &mut y[..n]);
    y.fill(0.0);
    for j in 0..n {
        let (start, end) = (col_ptr[j], col_ptr[j + 1]);
        if start > end || end > row_idx.len() {
            return Err(LinalgError::InvalidPattern {
                what: "sym matvec".into(),
                col: j,
                detail: format!("column pointers {start}..{end} are not a valid range"),
            });
        }
        let xj = x[j];
        let mut acc = 0.0;
        for (&i, &v) in row_idx[start..end].iter().zip(&values[start..end]) {
            if i >= n {
                return Err(LinalgError::IndexOutOfRange {
                    what: "sym matvec".into(),
                    row: i,
                    col: j,
                    nrows: n,
                    ncols: n,
                });
            }
            y[i] += v * xj;
            if i != j {
                acc += v * x[i];
            }
        }
        y[j] += acc;
    }
    Ok(())
}

/// Returns `Err(LengthMismatch)` when `expected != got`.
pub(crate) fn check_len(what: &str, expected: usize, got: usize) -> Result<(), LinalgError> {
    if expected != got {
        return Err(LinalgError::LengthMismatch {
            what: what.to_string(),
            expected,
            got,
        });
    }
    Ok(())
}

/// Validates a COO structure (equal lengths, indices in range).
pub(crate) fn check_coo(
    what: &str,
    nrows: usize,
    ncols: usize,
    rows: &[usize],
    cols: &[usize],
) -> Result<(), LinalgError> {
    check_len(&format!("{what}: cols vs rows"), rows.len(), cols.len())?;
    for (&r, &c) in rows.iter().zip(cols) {
        if r >= nrows || c >= ncols {
            return Err(LinalgError::IndexOutOfRange {
                what: what.to_string(),
                row: r,
                col: c,
                nrows,
                ncols,
            });
        }
    }
    Ok(())
}

/// Validates a CSC structure; with `lower_only`, also requires `row >= col` for every entry.
pub(crate) fn check_csc(
    what: &str,
    nrows: usize,
    ncols: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    lower_only: bool,
) -> Result<(), LinalgError> {
    check_len(&format!("{what}: col_ptr"), ncols + 1, col_ptr.len())?;
    if col_ptr[0] != 0 {
        return Err(LinalgError::InvalidPattern {
            what: what.to_string(),
            col: 0,
            detail: format!("col_ptr[0] = {} (must be 0)", col_ptr[0]),
        });
    }
    check_len(&format!("{what}: row_idx"), col_ptr[ncols], row_idx.len())?;
    for j in 0..ncols {
        let (start, end) = (col_ptr[j], col_ptr[j + 1]);
        if start > end {
            return Err(LinalgError::InvalidPattern {
                what: what.to_string(),
                col: j,
                detail: format!("col_ptr decreases ({start} > {end})"),
            });
        }
        let mut prev: Option<usize> = None;
        for &i in &row_idx[start..end] {
            if i >= nrows {
                return Err(LinalgError::IndexOutOfRange {
                    what: what.to_string(),
                    row: i,
                    col: j,
                    nrows,
                    ncols,
                });
            }
            if lower_only && i < j {
                return Err(LinalgError::InvalidPattern {
                    what: what.to_string(),
                    col: j,
                    detail: format!("row {i} is above the diagonal (lower triangle expected)"),
                });
            }
            if let Some(p) = prev.filter(|&p| i <= p) {
                return Err(LinalgError::InvalidPattern {
                    what: what.to_string(),
                    col: j,
                    detail: format!("row indices not strictly increasing ({p} then {i})"),
                });
            }
            prev = Some(i);
        }
    }
    Ok(())
}

/// Builds a CSC pattern from (already validated) COO coordinates: the entries are bucketed
/// by column (one counting-sort pass), each column's entries sorted by row and duplicates
/// merged. Returns `(col_ptr, row_idx, map)` where COO entry `k` lands in position
/// `map[k]`. O(nnz + ncols) plus the sorting of each column's entries (insertion sort for
/// the short columns of sparse matrices).
pub(crate) fn csc_map_from_coo(
    nrows: usize,
    ncols: usize,
    rows: &[usize],
    cols: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    debug_assert!(rows.iter().all(|&r| r < nrows));
    csc_map_merged(ncols, rows, cols, false)
}

/// [`csc_map_from_coo`] for the lower triangle of a symmetric `n × n` matrix (every entry
/// has `rows[k] >= cols[k]`, already validated) with every diagonal entry `(j, j)` present
/// (first in its column) even when no entry touches it.
pub(crate) fn lower_csc_map_with_diagonal(
    n: usize,
    rows: &[usize],
    cols: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    debug_assert!(rows.iter().zip(cols).all(|(&r, &c)| r >= c && r < n));
    csc_map_merged(n, rows, cols, true)
}

/// The merged CSC pattern and map of [`csc_map_from_coo`]; with `diagonal`, each column `j`
/// starts with row `j` (the caller guarantees no row above it).
fn csc_map_merged(
    ncols: usize,
    rows: &[usize],
    cols: &[usize],
    diagonal: bool,
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let nnz = rows.len();
    // Bucket (row, entry) by column, entries in input order.
    let mut col_start = vec![0usize; ncols + 1];
    for &c in cols {
        col_start[c + 1] += 1;
    }
    for j in 0..ncols {
        col_start[j + 1] += col_start[j];
    }
    let mut by_col = vec![(0usize, 0usize); nnz];
    {
        let mut next = col_start[..ncols].to_vec();
        for (k, (&r, &c)) in rows.iter().zip(cols).enumerate() {
            by_col[next[c]] = (r, k);
            next[c] += 1;
        }
    }
    // Sort each column by row, merge duplicates.
    let mut col_ptr = vec![0usize; ncols + 1];
    let mut row_idx = Vec::with_capacity(nnz + if diagonal { ncols } else { 0 });
    let mut map = vec![0usize; nnz];
    for j in 0..ncols {
        let entries = &mut by_col[col_start[j]..col_start[j + 1]];
        entries.sort_unstable();
        let mut last_row = usize::MAX;
        if diagonal {
            row_idx.push(j);
            last_row = j;
        }
        for &(r, k) in entries.iter() {
            if r != last_row {
                row_idx.push(r);
                last_row = r;
            }
            map[k] = row_idx.len() - 1;
        }
        col_ptr[j + 1] = row_idx.len();
    }
    row_idx.shrink_to_fit();
    (col_ptr, row_idx, map)
}

/// The two-pass counting sort (by row, then stable by column) that [`csc_map_from_coo`]
/// replaced, kept as the reference its tests compare against.
#[cfg(test)]
fn csc_map_reference(
    nrows: usize,
    ncols: usize,
    rows: &[usize],
    cols: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let nnz = rows.len();
    let mut row_start = vec![0usize; nrows + 1];
    for &r in rows {
        row_start[r + 1] += 1;
    }
    for i in 0..nrows {
        row_start[i + 1] += row_start[i];
    }
    let mut by_row = vec![0usize; nnz];
    let mut next = row_start.clone();
    for (k, &r) in rows.iter().enumerate() {
        by_row[next[r]] = k;
        next[r] += 1;
    }
    let mut col_start = vec![0usize; ncols + 1];
    for &c in cols {
        col_start[c + 1] += 1;
    }
    for j in 0..ncols {
        col_start[j + 1] += col_start[j];
    }
    let mut sorted = vec![0usize; nnz];
    let mut next = col_start.clone();
    for &k in &by_row {
        sorted[next[cols[k]]] = k;
        next[cols[k]] += 1;
    }
    let mut col_ptr = vec![0usize; ncols + 1];
    let mut row_idx = Vec::new();
    let mut map = vec![0usize; nnz];
    for j in 0..ncols {
        let mut last_row = usize::MAX;
        for &k in &sorted[col_start[j]..col_start[j + 1]] {
            if rows[k] != last_row {
                row_idx.push(rows[k]);
                last_row = rows[k];
            }
            map[k] = row_idx.len() - 1;
        }
        col_ptr[j + 1] = row_idx.len();
    }
    (col_ptr, row_idx, map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Random COO entries of an `nrows × ncols` matrix (duplicates likely).
    fn coo() -> impl Strategy<Value = (usize, usize, Vec<(usize, usize)>)> {
        (1usize..40, 1usize..40).prop_flat_map(|(nr, nc)| {
            (
                Just(nr),
                Just(nc),
                proptest::collection::vec((0..nr, 0..nc), 0..300),
            )
        })
    }

    proptest! {
        #[test]
        fn coo_to_csc_map_equals_the_two_pass_counting_sort((nr, nc, e) in coo()) {
            let rows: Vec<usize> = e.iter().map(|p| p.0).collect();
            let cols: Vec<usize> = e.iter().map(|p| p.1).collect();
            prop_assert_eq!(
                csc_map_from_coo(nr, nc, &rows, &cols),
                csc_map_reference(nr, nc, &rows, &cols)
            );
        }

        #[test]
        fn lower_map_with_diagonal_equals_appending_the_diagonal(
            (n, _, e) in (1usize..40).prop_flat_map(|n| (
                Just(n),
                Just(n),
                proptest::collection::vec((0..n, 0..n), 0..300),
            ))
        ) {
            // Lower-triangle entries (mirrored), the diagonal appended for the reference.
            let rows: Vec<usize> = e.iter().map(|&(r, c)| r.max(c)).collect();
            let cols: Vec<usize> = e.iter().map(|&(r, c)| r.min(c)).collect();
            let (rp, ri, mut rm) = csc_map_reference(
                n,
                n,
                &[&rows[..], &(0..n).collect::<Vec<_>>()].concat(),
                &[&cols[..], &(0..n).collect::<Vec<_>>()].concat(),
            );
            rm.truncate(rows.len());
            prop_assert_eq!(lower_csc_map_with_diagonal(n, &rows, &cols), (rp, ri, rm));
        }
    }
}
