//! The backend seam for sparse symmetric factorizations.
//!
//! The interior-point solver talks to linear solvers only through [`SymmetricSolver`]; no
//! faer (or cuDSS) type appears in its signature, so a GPU backend implements the same trait.

use crate::LinalgError;

/// Number of positive, negative and zero eigenvalues of a symmetric matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Inertia {
    /// Count of positive eigenvalues.
    pub positive: usize,
    /// Count of negative eigenvalues.
    pub negative: usize,
    /// Count of zero eigenvalues (numerically singular pivots).
    pub zero: usize,
}

/// Outcome of a numeric factorization that did not fail for structural reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactorStatus {
    /// Factorization succeeded; [`SymmetricSolver::inertia`] is meaningful when the
    /// backend provides inertia.
    Success,
    /// A Cholesky-type backend met a non-positive pivot: the matrix is not positive
    /// definite. The interior-point method treats this as "wrong inertia".
    NotPositiveDefinite,
    /// The matrix is numerically singular (a zero pivot where the method cannot continue).
    ///
    /// The faer backends also return this when the factorization completed but some pivot
    /// is zero within their zero-pivot tolerance; [`SymmetricSolver::inertia`] then still
    /// reports the counts (with `zero > 0`), and `None` when the factorization stopped.
    Singular,
}

/// A sparse symmetric direct solver: analyze once, factorize many times, solve many times.
///
/// Matrices are given as the **lower triangle** of a symmetric matrix in compressed sparse
/// column form (`col_ptr` of length `n + 1`, `row_idx` sorted within each column, every
/// `row_idx[k] >= col`). Values passed to [`SymmetricSolver::factorize`] follow the order of
/// `row_idx` in [`SymmetricSolver::analyze`].
pub trait SymmetricSolver: Send {
    /// Symbolic analysis (fill-reducing ordering, symbolic factorization) of the pattern.
    /// Called once per structure; later factorizations reuse it.
    fn analyze(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), LinalgError>;

    /// Numeric factorization of the analyzed pattern with these values.
    fn factorize(&mut self, values: &[f64]) -> Result<FactorStatus, LinalgError>;

    /// Solve `A x = b` in place (`rhs` holds `b` on entry, `x` on exit) with the last
    /// successful factorization.
    fn solve_in_place(&mut self, rhs: &mut [f64]) -> Result<(), LinalgError>;

    /// Solve for `nrhs` right-hand sides stored column-major in `rhs` (`n * nrhs` values).
    fn solve_many_in_place(&mut self, rhs: &mut [f64], nrhs: usize) -> Result<(), LinalgError> {
        let n = rhs.len() / nrhs.max(1);
        for col in rhs.chunks_exact_mut(n.max(1)).take(nrhs) {
            self.solve_in_place(col)?;
        }
        Ok(())
    }

    /// Whether [`SymmetricSolver::inertia`] returns counts for this backend.
    fn provides_inertia(&self) -> bool;

    /// Inertia of the last successful factorization, when the backend provides it.
    fn inertia(&self) -> Option<Inertia>;

    /// Number of exact zero pivots of the last factorization that static pivoting replaced
    /// by a small positive value (counted in the inertia as positive; the factor is that
    /// of a perturbed matrix, to be solved with iterative refinement). `0` for backends
    /// without static pivoting (the default).
    fn perturbed_pivots(&self) -> usize {
        0
    }

    /// The row (in the order of the analyzed matrix) of the exact zero pivot at which the
    /// last factorization stopped with [`FactorStatus::Singular`], for a backend that
    /// factorizes in a static order and stops there (LDLᵀ without pivoting); `None` when
    /// it did not stop at an exact zero pivot or the backend does not tell (the default).
    /// For a KKT matrix `[[H, Jᵀ], [J, −δc I]]` a row of the primal block means a variable
    /// without curvature eliminated before any of its constraints, which says nothing about
    /// the singularity of the matrix itself; a constraint row, a rank-deficient `J`. The
    /// stop may also be at a pivot lost to element growth (see
    /// [`SymmetricSolver::stopped_by_growth`]).
    fn zero_pivot_row(&self) -> Option<usize> {
        None
    }

    /// Whether the pivot at which the last factorization stopped with
    /// [`FactorStatus::Singular`] (see [`SymmetricSolver::zero_pivot_row`]) was lost to
    /// element growth along a static elimination order rather than a zero of the matrix's
    /// scale: it overflowed, or it cancelled to an exact zero among update terms beyond
    /// `max|A_ij| / ε` (its true value is below their round-off). The leading block of the
    /// ordered matrix is then numerically singular, not necessarily the matrix (a chain of
    /// constraints each eliminated after its variable with the small Jacobian entry: LV
    /// rosenbrock's `[[H, Jᵀ], [J, 0]]`, whose pivots grow ~135-fold per constraint and
    /// overflow after ~145 of them). `false` when it stopped at a zero among terms of the
    /// matrix's scale, did not stop, or the backend does not tell (the default).
    fn stopped_by_growth(&self) -> bool {
        false
    }

    /// Delayed pivots of the last factorization, for a backend that passes fully summed
    /// columns failing its pivot test on to a later front (a multifrontal LDLᵀ with
    /// threshold pivoting): the number of times a column was passed on. `0` for backends
    /// without delayed pivots (the default).
    fn delayed_pivots(&self) -> usize {
        0
    }
}
