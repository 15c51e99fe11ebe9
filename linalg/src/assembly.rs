//! KKT assembly: several COO value sources → one symmetric lower-triangle CSC matrix.
//!
//! The structure is registered once with a [`KktBuilder`]: each call to
//! [`KktBuilder::block`] or [`KktBuilder::diagonal`] declares one *source* (e.g. the
//! Hessian of the Lagrangian, the constraint Jacobian placed below it, the barrier diagonal
//! Σx, the regularization diagonals δw/δc) and returns its [`SourceId`]. [`KktBuilder::build`]
//! computes, once, the merged lower-triangle CSC pattern and the position of every source
//! entry in it. Each numeric refill ([`SymAssembly::assemble`]) is then a single pass over
//! the source values with no allocation.
//!
//! Conventions:
//! - A block entry `(r, c)` of a source placed at `(row_offset, col_offset)` lands at global
//!   `(r + row_offset, c + col_offset)`. An entry above the diagonal (global row < column)
//!   is mirrored to the lower triangle, i.e. it is stored at `(column, row)`. Give each
//!   off-diagonal pair **once** (either triangle): giving both `(i, j)` and `(j, i)` sums them.
//! - Duplicate entries (within a source or across sources) are summed.
//! - Every diagonal entry `(i, i)` is present in the pattern even when no source touches it
//!   (value 0), so a backend or a caller can always add regularization on the diagonal.
//!
//! Example: the Ipopt KKT matrix `[[W + Σx + δw I, Jᵀ], [J, -δc I]]` with `n` variables and
//! `m` constraints is `KktBuilder::new(n + m)` with `block(w_rows, w_cols, 0, 0)`,
//! `block(j_rows, j_cols, n, 0)`, `diagonal(0, n)` (Σx + δw) and `diagonal(n, m)` (-δc).

use crate::LinalgError;
use crate::sparse::{check_len, lower_csc_map_with_diagonal};

/// Identifies one value source registered with a [`KktBuilder`]; sources are numbered
/// `0, 1, 2, …` in registration order, which is also the order
/// [`SymAssembly::assemble`] expects their value slices in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub usize);

impl SourceId {
    /// The zero-based index of this source (its position in the `sources` argument of
    /// [`SymAssembly::assemble`]).
    pub fn index(self) -> usize {
        self.0
    }
}

/// Collects the structure of a symmetric `n × n` matrix from several sources.
/// See the [module documentation](self) for the conventions.
#[derive(Clone, Debug)]
pub struct KktBuilder {
    n: usize,
    /// Global lower-triangle row of every registered entry (all sources concatenated).
    rows: Vec<usize>,
    /// Global lower-triangle column of every registered entry.
    cols: Vec<usize>,
    /// `source_start[s]..source_start[s + 1]` are the entries of source `s`.
    source_start: Vec<usize>,
}

impl KktBuilder {
    /// Starts an empty `n × n` symmetric structure.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            rows: Vec::new(),
            cols: Vec::new(),
            source_start: vec![0],
        }
    }

    /// Dimension of the matrix.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of sources registered so far.
    pub fn n_sources(&self) -> usize {
        self.source_start.len() - 1
    }

    /// Registers a COO block: its entry `k` is placed at global
    /// `(rows[k] + row_offset, cols[k] + col_offset)`; entries above the diagonal are
    /// mirrored to the lower triangle; duplicates allowed (summed). Its values, passed to
    /// [`SymAssembly::assemble`], have length `rows.len()` in the same order.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when `rows.len() != cols.len()`;
    /// [`LinalgError::IndexOutOfRange`] (global indices, `what` names the source number) when
    /// an entry lands outside `n × n`. On error the builder is unchanged.
    pub fn block(
        &mut self,
        rows: &[usize],
        cols: &[usize],
        row_offset: usize,
        col_offset: usize,
    ) -> Result<SourceId, LinalgError> {
        let id = self.n_sources();
        check_len(
            &format!("KKT source {id}: cols vs rows"),
            rows.len(),
            cols.len(),
        )?;
        for (&r, &c) in rows.iter().zip(cols) {
            let (gr, gc) = (r.saturating_add(row_offset), c.saturating_add(col_offset));
            if gr >= self.n || gc >= self.n {
                return Err(LinalgError::IndexOutOfRange {
                    what: format!(
                        "KKT source {id} (block at offset ({row_offset}, {col_offset}), \
                         local entry ({r}, {c}))"
                    ),
                    row: gr,
                    col: gc,
                    nrows: self.n,
                    ncols: self.n,
                });
            }
        }
        self.rows.reserve(rows.len());
        self.cols.reserve(rows.len());
        for (&r, &c) in rows.iter().zip(cols) {
            let (gr, gc) = (r + row_offset, c + col_offset);
            self.rows.push(gr.max(gc));
            self.cols.push(gr.min(gc));
        }
        self.source_start.push(self.rows.len());
        Ok(SourceId(id))
    }

    /// Registers the diagonal entries `(start + k, start + k)` for `k in 0..len`; its values
    /// have length `len`.
    ///
    /// # Errors
    /// [`LinalgError::IndexOutOfRange`] when `start + len > n`.
    pub fn diagonal(&mut self, start: usize, len: usize) -> Result<SourceId, LinalgError> {
        let id = self.n_sources();
        let end = start.saturating_add(len);
        if end > self.n {
            return Err(LinalgError::IndexOutOfRange {
                what: format!("KKT source {id} (diagonal {start}..{end})"),
                row: end - 1,
                col: end - 1,
                nrows: self.n,
                ncols: self.n,
            });
        }
        self.rows.extend(start..end);
        self.cols.extend(start..end);
        self.source_start.push(self.rows.len());
        Ok(SourceId(id))
    }

    /// Computes the merged lower-triangle CSC pattern (with the full diagonal) and the
    /// position of every source entry in it. O(total entries + n) plus sorting each
    /// column's entries by row.
    pub fn build(self) -> SymAssembly {
        let n = self.n;
        // The full diagonal is always structurally present (first in each column).
        let (col_ptr, row_idx, map) = lower_csc_map_with_diagonal(n, &self.rows, &self.cols);
        let diag_pos = (0..n).map(|j| col_ptr[j]).collect();
        SymAssembly {
            n,
            col_ptr,
            row_idx,
            map,
            source_start: self.source_start,
            diag_pos,
        }
    }
}

/// The merged structure of a symmetric matrix (lower triangle, CSC, rows sorted within each
/// column, diagonal always present and first in its column) and the map from source entries
/// to value positions. Built by [`KktBuilder::build`].
#[derive(Clone, Debug)]
pub struct SymAssembly {
    n: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    map: Vec<usize>,
    source_start: Vec<usize>,
    diag_pos: Vec<usize>,
}

impl SymAssembly {
    /// Dimension of the matrix.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of stored lower-triangle entries (after merging duplicates).
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// Column pointers (length `n + 1`).
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }

    /// Row indices (length `nnz`), sorted within each column, all `>=` the column.
    pub fn row_idx(&self) -> &[usize] {
        &self.row_idx
    }

    /// Number of registered sources.
    pub fn n_sources(&self) -> usize {
        self.source_start.len() - 1
    }

    /// Number of values source `id` expects.
    pub fn source_len(&self, id: SourceId) -> usize {
        match (self.source_start.get(id.0), self.source_start.get(id.0 + 1)) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        }
    }

    /// Value position (index into `row_idx`/`out`) of the diagonal entry `(i, i)`, for
    /// `i < n`. Useful to add a regularization directly into assembled values.
    pub fn diag_positions(&self) -> &[usize] {
        &self.diag_pos
    }

    /// Positions in the value array of each entry of source `id` (same order as the source's
    /// values). Empty for an unknown id.
    pub fn source_positions(&self, id: SourceId) -> &[usize] {
        match (self.source_start.get(id.0), self.source_start.get(id.0 + 1)) {
            (Some(&a), Some(&b)) => &self.map[a..b],
            _ => &[],
        }
    }

    /// One pass over the sources' values (in [`SourceId`] order, each of its source's
    /// length), summing duplicates into `out` (length [`SymAssembly::nnz`]; overwritten,
    /// entries no source touches become 0). Allocates nothing.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when the number of sources, a source's length or
    /// `out.len()` is wrong (nothing is written then).
    pub fn assemble(&self, sources: &[&[f64]], out: &mut [f64]) -> Result<(), LinalgError> {
        check_len(
            "assemble: number of sources",
            self.n_sources(),
            sources.len(),
        )?;
        for (s, vals) in sources.iter().enumerate() {
            let expected = self.source_start[s + 1] - self.source_start[s];
            if vals.len() != expected {
                return Err(LinalgError::LengthMismatch {
                    what: format!("assemble: values of source {s}"),
                    expected,
                    got: vals.len(),
                });
            }
        }
        check_len("assemble: out", self.nnz(), out.len())?;
        out.fill(0.0);
        for (s, vals) in sources.iter().enumerate() {
            let map = &self.map[self.source_start[s]..self.source_start[s + 1]];
            for (&pos, &v) in map.iter().zip(vals.iter()) {
                out[pos] += v;
            }
        }
        Ok(())
    }
}
