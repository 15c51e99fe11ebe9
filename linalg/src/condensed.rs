//! Condensed KKT products for the lifted (condensed-space) interior-point system:
//! `K = W + Σx + Jᵀ D J`.
//!
//! - `W` is the `n × n` Hessian of the Lagrangian given in COO form (lower triangle; entries
//!   above the diagonal are mirrored to the lower triangle, duplicates summed — give each
//!   off-diagonal pair once).
//! - `Σx` is a diagonal of length `n`.
//! - `J` is the `m × n` constraint Jacobian in COO form (duplicates summed), `D` a diagonal
//!   of length `m`.
//!
//! The lower-triangle CSC pattern of `K` (diagonal always present) and the list of products
//! contributing to each entry are computed **once** by [`CondensedKkt::new`]. Each numeric
//! update ([`CondensedKkt::assemble`]) is one pass over `W`, `Σx` and the precomputed
//! Jacobian entry pairs — O(nnz(W) + n + Σᵢ nnzᵢ(J)²), no allocation. For row `i` of `J`
//! with entries `a`, `b` (columns `p = col(a) >= q = col(b)`), `d[i]·J_a·J_b` is added to
//! `K[p, q]`; with duplicates every ordered pair with `col(a) >= col(b)` is listed, so the
//! result is exactly `Σᵢ d[i] (Σ_{col(a)=p} J_a)(Σ_{col(b)=q} J_b)`.

use crate::LinalgError;
use crate::sparse::{check_coo, check_len, csc_map_from_coo};

/// Pattern and numeric-update plan of `K = W + Σx + Jᵀ D J` (lower-triangle CSC).
#[derive(Clone, Debug)]
pub struct CondensedKkt {
    n: usize,
    m: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// Position in `out` of each Hessian entry.
    hess_pos: Vec<usize>,
    /// Position in `out` of each diagonal entry `(i, i)`.
    diag_pos: Vec<usize>,
    /// Pairs of Jacobian row `i` are `pair_ptr[i]..pair_ptr[i + 1]`.
    pair_ptr: Vec<usize>,
    /// First Jacobian entry (index into `jac_vals`) of each pair.
    pair_a: Vec<usize>,
    /// Second Jacobian entry of each pair.
    pair_b: Vec<usize>,
    /// Position in `out` of each pair's product.
    pair_pos: Vec<usize>,
    jac_nnz: usize,
}

impl CondensedKkt {
    /// Computes the pattern of `K = W + Σx + Jᵀ D J` once.
    ///
    /// `hess_rows`/`hess_cols`: COO of `W` (`n × n`); `jac_rows`/`jac_cols`: COO of `J`
    /// (`m × n`).
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when a rows/cols pair differs in length;
    /// [`LinalgError::IndexOutOfRange`] for an entry outside its matrix (`what` says which).
    pub fn new(
        n: usize,
        m: usize,
        hess_rows: &[usize],
        hess_cols: &[usize],
        jac_rows: &[usize],
        jac_cols: &[usize],
    ) -> Result<Self, LinalgError> {
        check_coo("condensed KKT: Hessian W", n, n, hess_rows, hess_cols)?;
        check_coo("condensed KKT: Jacobian J", m, n, jac_rows, jac_cols)?;
        // Group Jacobian entries by row (counting sort, stable).
        let mut row_start = vec![0usize; m + 1];
        for &r in jac_rows {
            row_start[r + 1] += 1;
        }
        for i in 0..m {
            row_start[i + 1] += row_start[i];
        }
        let mut by_row = vec![0usize; jac_rows.len()];
        {
            let mut next = row_start.clone();
            for (k, &r) in jac_rows.iter().enumerate() {
                by_row[next[r]] = k;
                next[r] += 1;
            }
        }
        // Enumerate ordered pairs (a, b) with col(a) >= col(b) in each row.
        let mut pair_ptr = Vec::with_capacity(m + 1);
        pair_ptr.push(0);
        let mut pair_a = Vec::new();
        let mut pair_b = Vec::new();
        for i in 0..m {
            let entries = &by_row[row_start[i]..row_start[i + 1]];
            for &a in entries {
                for &b in entries {
                    if jac_cols[a] >= jac_cols[b] {
                        pair_a.push(a);
                        pair_b.push(b);
                    }
                }
            }
            pair_ptr.push(pair_a.len());
        }
        // All contributions as lower-triangle coordinates: W, diagonal, pairs.
        let total = hess_rows.len() + n + pair_a.len();
        let mut rows = Vec::with_capacity(total);
        let mut cols = Vec::with_capacity(total);
        for (&r, &c) in hess_rows.iter().zip(hess_cols) {
            rows.push(r.max(c));
            cols.push(r.min(c));
        }
        rows.extend(0..n);
        cols.extend(0..n);
        for (&a, &b) in pair_a.iter().zip(&pair_b) {
            rows.push(jac_cols[a]);
            cols.push(jac_cols[b]);
        }
        let (col_ptr, row_idx, map) = csc_map_from_coo(n, n, &rows, &cols);
        let nh = hess_rows.len();
        let hess_pos = map[..nh].to_vec();
        let diag_pos = map[nh..nh + n].to_vec();
        let pair_pos = map[nh + n..].to_vec();
        Ok(Self {
            n,
            m,
            col_ptr,
            row_idx,
            hess_pos,
            diag_pos,
            pair_ptr,
            pair_a,
            pair_b,
            pair_pos,
            jac_nnz: jac_rows.len(),
        })
    }

    /// Dimension `n` of `K`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of rows `m` of `J`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Column pointers of the lower-triangle CSC pattern of `K` (length `n + 1`).
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }

    /// Row indices (sorted within each column, diagonal first).
    pub fn row_idx(&self) -> &[usize] {
        &self.row_idx
    }

    /// Number of stored lower-triangle entries of `K`.
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// Position in the value array of each diagonal entry `(i, i)`.
    pub fn diag_positions(&self) -> &[usize] {
        &self.diag_pos
    }

    /// Position in the value array of each Hessian entry (in the COO order given to
    /// [`CondensedKkt::new`]).
    pub fn hessian_positions(&self) -> &[usize] {
        &self.hess_pos
    }

    /// The Jacobian entry pairs of `Jᵀ D J`, row by row: first entries, second entries
    /// and the position in the value array each product adds to (`d[row]·J_a·J_b`).
    pub fn pairs(&self) -> (&[usize], &[usize], &[usize]) {
        (&self.pair_a, &self.pair_b, &self.pair_pos)
    }

    /// Number of Jacobian entries the pattern was built from.
    pub fn jac_nnz(&self) -> usize {
        self.jac_nnz
    }

    /// Number of Jacobian entry products evaluated per [`CondensedKkt::assemble`] (the cost
    /// of the `Jᵀ D J` part).
    pub fn n_products(&self) -> usize {
        self.pair_a.len()
    }

    /// Numeric update: writes the values of `K = W + Σx + Jᵀ D J` (in `row_idx` order) into
    /// `out` (length [`CondensedKkt::nnz`], overwritten). O(nnz), no allocation.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when an input has the wrong length (nothing written).
    pub fn assemble(
        &self,
        hess_vals: &[f64],
        sigma_x: &[f64],
        jac_vals: &[f64],
        d: &[f64],
        out: &mut [f64],
    ) -> Result<(), LinalgError> {
        check_len(
            "condensed assemble: hess_vals",
            self.hess_pos.len(),
            hess_vals.len(),
        )?;
        check_len("condensed assemble: sigma_x", self.n, sigma_x.len())?;
        check_len("condensed assemble: jac_vals", self.jac_nnz, jac_vals.len())?;
        check_len("condensed assemble: d", self.m, d.len())?;
        check_len("condensed assemble: out", self.nnz(), out.len())?;
        out.fill(0.0);
        for (&pos, &v) in self.hess_pos.iter().zip(hess_vals) {
            out[pos] += v;
        }
        for (&pos, &v) in self.diag_pos.iter().zip(sigma_x) {
            out[pos] += v;
        }
        for (i, &di) in d.iter().enumerate() {
            let range = self.pair_ptr[i]..self.pair_ptr[i + 1];
            for ((&a, &b), &pos) in self.pair_a[range.clone()]
                .iter()
                .zip(&self.pair_b[range.clone()])
                .zip(&self.pair_pos[range])
            {
                out[pos] += di * jac_vals[a] * jac_vals[b];
            }
        }
        Ok(())
    }
}
