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
use std::borrow::BorrowMut;

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

/// A symmetric positive definite linear operator `A` on host slices for
/// [`conjugate_gradient`] (in the hybrid condensed KKT form: the Schur complement
/// `Jₑ K_γ⁻¹ Jₑᵀ + δ I`, one solve with the Cholesky factor of `K_γ` per product).
pub trait SpdOperator {
    /// Error of a product (a failed solve inside it).
    type Error: From<LinalgError>;
    /// `out = A x` (`x` and `out` of the operator's dimension; `out` is overwritten).
    ///
    /// # Errors
    /// Whatever the product reports.
    fn apply(&mut self, x: &[f64], out: &mut [f64]) -> Result<(), Self::Error>;
}

/// A symmetric positive definite operator `A` with the vector operations conjugate
/// gradients need, over any vector type (host slices, device vectors): what
/// [`conjugate_gradient_on`] runs on. The reductions ([`CgSystem::dot`]) are the only
/// values the iteration reads back.
pub trait CgSystem {
    /// The vectors (`[f64]` on the host, a device vector on a device).
    type Vector: ?Sized;
    /// Error of a product (a failed solve inside it).
    type Error: From<LinalgError>;
    /// Number of entries of `v`.
    fn len(&self, v: &Self::Vector) -> usize;
    /// `out = A x` (`out` is overwritten).
    ///
    /// # Errors
    /// Whatever the product reports.
    fn apply(&mut self, x: &Self::Vector, out: &mut Self::Vector) -> Result<(), Self::Error>;
    /// `xᵀ y`.
    fn dot(&mut self, x: &Self::Vector, y: &Self::Vector) -> f64;
    /// `y_i = a x_i + y_i`.
    fn axpy(&mut self, a: f64, x: &Self::Vector, y: &mut Self::Vector);
    /// `y_i = x_i + b y_i`.
    fn xpby(&mut self, x: &Self::Vector, b: f64, y: &mut Self::Vector);
    /// `dst = src`.
    fn copy(&mut self, dst: &mut Self::Vector, src: &Self::Vector);
    /// `v_i = 0`.
    fn zero(&mut self, v: &mut Self::Vector);
    /// Called once per iteration after the update `x += step · p`, where `p` is the vector
    /// of that iteration's [`CgSystem::apply`] (the last product made): a system can update
    /// a quantity linear in `x` from what its product computed, e.g. `K⁻¹ Jᵀ x` from the
    /// `K⁻¹ Jᵀ p` it solved for, without solving for `x` at the end. With
    /// [`CgOptions::zero_start`] the steps sum to the returned `x`. Default: nothing.
    fn stepped(&mut self, step: f64) {
        let _ = step;
    }
}

/// Stopping rules of [`conjugate_gradient`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CgOptions {
    /// Stop when `‖b − A x‖₂ ≤ relative_tol · ‖b‖₂`.
    pub relative_tol: f64,
    /// Most iterations (products with `A`).
    pub max_iterations: usize,
    /// The initial iterate `x` is zero: the initial residual is `b` itself, without the
    /// product `A x` (and `x` is not read).
    pub zero_start: bool,
}

/// What [`conjugate_gradient`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CgStats {
    /// Iterations taken (each one product with `A`).
    pub iterations: usize,
    /// The residual reached `relative_tol · ‖b‖₂`.
    pub converged: bool,
    /// A search direction `p` had `pᵀ A p ≤ 0` or a non-finite value: `A` is not
    /// positive definite in floating point (singular, or a failed solve); `x` is the last
    /// iterate before it.
    pub breakdown: bool,
    /// Final `‖b − A x‖₂ / ‖b‖₂` (`0` when `b = 0`), from the recurrence.
    pub relative_residual: f64,
}

/// Vectors of [`conjugate_gradient`] (host `Vec<f64>`, the default) or
/// [`conjugate_gradient_on`] (any vector type `V`) for one dimension, allocated once: the
/// solve itself allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct CgWork<V = Vec<f64>> {
    n: usize,
    r: V,
    p: V,
    ap: V,
}

impl CgWork<Vec<f64>> {
    /// Host work vectors for operators of dimension `n`.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            r: vec![0.0; n],
            p: vec![0.0; n],
            ap: vec![0.0; n],
        }
    }
}

impl<V> CgWork<V> {
    /// Work vectors for operators of dimension `n`, made by `alloc(n)` (e.g. device
    /// vectors).
    ///
    /// # Errors
    /// The first error of `alloc`.
    pub fn with_vectors<E>(
        n: usize,
        mut alloc: impl FnMut(usize) -> Result<V, E>,
    ) -> Result<Self, E> {
        Ok(Self {
            n,
            r: alloc(n)?,
            p: alloc(n)?,
            ap: alloc(n)?,
        })
    }

    /// The dimension the vectors were made for.
    pub fn n(&self) -> usize {
        self.n
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// An [`SpdOperator`] on host slices as a [`CgSystem`].
struct HostCg<'o, O: ?Sized>(&'o mut O);

impl<O: SpdOperator + ?Sized> CgSystem for HostCg<'_, O> {
    type Vector = [f64];
    type Error = O::Error;
    fn len(&self, v: &[f64]) -> usize {
        v.len()
    }
    fn apply(&mut self, x: &[f64], out: &mut [f64]) -> Result<(), O::Error> {
        self.0.apply(x, out)
    }
    fn dot(&mut self, x: &[f64], y: &[f64]) -> f64 {
        dot(x, y)
    }
    fn axpy(&mut self, a: f64, x: &[f64], y: &mut [f64]) {
        for (yi, &xi) in y.iter_mut().zip(x) {
            *yi += a * xi;
        }
    }
    fn xpby(&mut self, x: &[f64], b: f64, y: &mut [f64]) {
        for (yi, &xi) in y.iter_mut().zip(x) {
            *yi = xi + b * *yi;
        }
    }
    fn copy(&mut self, dst: &mut [f64], src: &[f64]) {
        dst.copy_from_slice(src);
    }
    fn zero(&mut self, v: &mut [f64]) {
        v.fill(0.0);
    }
}

/// Conjugate gradients (Hestenes–Stiefel, no preconditioner) on `A x = b` from the initial
/// iterate `x` (overwritten with the solution), on host slices: [`conjugate_gradient_on`]
/// for an [`SpdOperator`]. No allocation.
///
/// # Errors
/// [`LinalgError::LengthMismatch`] when `b`, `x` and `work` differ in length; the
/// operator's own errors.
pub fn conjugate_gradient<O: SpdOperator + ?Sized>(
    op: &mut O,
    b: &[f64],
    x: &mut [f64],
    work: &mut CgWork,
    opts: &CgOptions,
) -> Result<CgStats, O::Error> {
    conjugate_gradient_on(&mut HostCg(op), b, x, work, opts)
}

/// Conjugate gradients (Hestenes–Stiefel, no preconditioner) on `A x = b` from the initial
/// iterate `x` (overwritten with the solution), over the vectors of `system`. Stops at
/// [`CgOptions::relative_tol`], after [`CgOptions::max_iterations`], or at a breakdown
/// (`pᵀ A p ≤ 0` or not finite: see [`CgStats::breakdown`]). Reads back two scalars per
/// iteration (`pᵀ A p` and `rᵀ r`) and two before the first (`bᵀ b`, `rᵀ r`). No
/// allocation.
///
/// # Errors
/// [`LinalgError::LengthMismatch`] when `b`, `x` and `work` differ in length; the
/// system's own errors.
pub fn conjugate_gradient_on<S, V>(
    system: &mut S,
    b: &S::Vector,
    x: &mut S::Vector,
    work: &mut CgWork<V>,
    opts: &CgOptions,
) -> Result<CgStats, S::Error>
where
    S: CgSystem + ?Sized,
    V: BorrowMut<S::Vector>,
{
    let n = work.n();
    check_len("conjugate gradient: b", n, system.len(b))?;
    check_len("conjugate gradient: x", n, system.len(x))?;
    let (r, p, ap) = (
        work.r.borrow_mut(),
        work.p.borrow_mut(),
        work.ap.borrow_mut(),
    );
    check_len("conjugate gradient: work", n, system.len(r))?;
    let b_norm = system.dot(b, b).sqrt();
    let mut stats = CgStats::default();
    if b_norm == 0.0 {
        system.zero(x);
        stats.converged = true;
        return Ok(stats);
    }
    // r = b − A x
    system.copy(r, b);
    if opts.zero_start {
        system.zero(x);
    } else {
        system.apply(x, ap)?;
        system.axpy(-1.0, ap, r);
    }
    system.copy(p, r);
    let mut rr = system.dot(r, r);
    let target = opts.relative_tol * b_norm;
    stats.relative_residual = rr.sqrt() / b_norm;
    while rr.sqrt() > target {
        if stats.iterations >= opts.max_iterations {
            return Ok(stats);
        }
        system.apply(p, ap)?;
        stats.iterations += 1;
        let pap = system.dot(p, ap);
        if !(pap > 0.0 && pap.is_finite()) {
            stats.breakdown = true;
            return Ok(stats);
        }
        let step = rr / pap;
        system.axpy(step, p, x);
        system.stepped(step);
        system.axpy(-step, ap, r);
        let rr_next = system.dot(r, r);
        let beta = rr_next / rr;
        rr = rr_next;
        // p = r + β p
        system.xpby(r, beta, p);
        stats.relative_residual = rr.sqrt() / b_norm;
    }
    stats.converged = true;
    Ok(stats)
}
