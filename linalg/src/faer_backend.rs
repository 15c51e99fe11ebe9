//! faer backends for [`SymmetricSolver`]: Cholesky [`FaerLlt`], LDLᵀ without pivoting
//! [`FaerLdlt`], and intranode Bunch–Kaufman LBLᵀ [`FaerLblt`].
//!
//! All three share one core built on `faer::sparse::linalg::cholesky`:
//! - [`SymmetricSolver::analyze`] validates the lower-triangle CSC pattern, computes the
//!   fill-reducing ordering chosen with `set_ordering` (AMD by default; METIS nested
//!   dissection, or for [`FillOrdering::Auto`] both, keeping the one whose symbolic
//!   factorization predicts fewer flops) and the symbolic factorization (faer chooses simplicial or
//!   supernodal by a flop-ratio heuristic; [`FaerLblt`] forces supernodal), and allocates
//!   **once** the factor storage and a workspace (`MemBuffer`) large enough for both the
//!   numeric factorization and a one-right-hand-side solve. It also builds the pattern of
//!   the permuted matrix `P A Pᵀ` once, with a map from each input entry to its place there,
//!   and analyzes that pattern with the identity ordering: each factorization then scatters
//!   the values instead of letting faer permute the whole matrix again (same factor, bit
//!   for bit), and each solve applies `P` and `Pᵀ` to the right-hand sides itself.
//! - With a deferred [`FillMethod::Auto`] (`set_deferred_ordering(k)`, the solver's
//!   setting), the analysis installs AMD's and, when `Auto` would try nested dissection,
//!   computes that candidate (METIS, its symbolic analysis, its factor storage) on a
//!   background thread; the first `k` factorizations use AMD and the next one joins the
//!   thread and switches everything derived from the ordering (permutation, value map,
//!   permuted pattern, symbolic factorization, storage, workspace) when `Auto` keeps nested
//!   dissection. The switch point is a count, so the results never depend on timing.
//! - [`SymmetricSolver::factorize`] and [`SymmetricSolver::solve_in_place`] then allocate
//!   nothing. [`SymmetricSolver::solve_many_in_place`] grows the workspace only the first
//!   time it sees more right-hand sides than it was sized for.
//!
//! Inertia:
//! - [`FaerLlt`]: success means positive definite, inertia `(n, 0, 0)`; a non-positive pivot
//!   gives [`FactorStatus::NotPositiveDefinite`].
//! - [`FaerLdlt`]: the signs of the pivots `D` (Sylvester's law of inertia; the AMD
//!   permutation does not change the inertia).
//! - [`FaerLblt`]: the eigenvalue signs of each 1×1 / 2×2 block of the block-diagonal factor.
//!
//! A pivot (or 2×2-block eigenvalue) `d` counts as **zero** when
//! `|d| <= zero_pivot_tol * max|A_ij|`. The default `zero_pivot_tol` is
//! [`DEFAULT_ZERO_PIVOT_TOL`] `= 0`: only exact zeros count. A positive tolerance relative to
//! `max|A_ij|` misclassifies genuine pivots of interior-point KKT matrices, whose barrier
//! diagonal `Σ` grows to 1e10 and beyond while constraint pivots stay of the size of `δc`
//! or `J²/Σ`; an inertia-based rule (too few negative pivots) and refinement accuracy are
//! the better singularity tests there. Set a tolerance (e.g. `1e-14`) with
//! `set_zero_pivot_tol` for well-scaled matrices. When any pivot is zero the status is
//! [`FactorStatus::Singular`] and [`SymmetricSolver::inertia`] still reports the counts
//! (including `zero`); solving with such a factorization is allowed but meaningless. When
//! faer's LDLᵀ meets an *exact* zero (or non-finite) pivot it stops: the status is
//! `Singular` and the inertia is unavailable (`None`; [`SymmetricSolver::stopped_by_growth`]
//! tells a pivot lost to element growth along the order from a zero of the matrix), unless a
//! zero-pivot perturbation is set ([`FaerLdlt::set_zero_pivot_perturbation`]): then an
//! exact zero pivot is replaced by
//! `+perturbation · max|A_ij|` (static pivoting) and counted positive, the factor is that of
//! a slightly perturbed matrix, and iterative refinement against the true matrix recovers
//! the solution. Non-finite factor values from LBLᵀ also give `Singular` with no inertia.
//!
//! Note on LDLᵀ without pivoting for KKT matrices `[[H, Jᵀ], [J, -δc I]]`: with `δc = 0` the
//! AMD ordering may eliminate a constraint row before any of its variables, which is an exact
//! zero pivot (→ `Singular`); intranode LBLᵀ cannot pivot it away either when the
//! constraint sits alone in its supernode. Two remedies: a small `δc > 0` (quasi-definite
//! matrices are factorizable in every ordering), or the KKT-aware ordering
//! [`FillOrdering::KktMatched`] (set with `set_ordering` before `analyze`), which eliminates
//! each constraint after a matched variable at essentially AMD's fill.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::lblt::factor::LbltParams;
use faer::linalg::cholesky::ldlt::factor::{LdltError, LdltParams, LdltRegularization};
use faer::linalg::cholesky::llt::factor::{LltParams, LltRegularization};
use faer::perm::PermRef;
use faer::prelude::Reborrow;
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, IntranodeLbltRef, LdltRef, LltRef, SymbolicCholesky,
    SymbolicCholeskyRaw, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side, Spec};

use crate::ordering::{
    FillMethod, FillOrdering, auto_keeps_nested_dissection, auto_tries_nested_dissection,
    best_candidate, candidate_methods, candidate_ordering, invert,
};
use crate::sparse::{check_csc, check_len};
use crate::{FactorStatus, Inertia, LinalgError, SymmetricSolver};

/// Default relative zero-pivot tolerance (`0`: only exact zeros count; see the module
/// documentation): a pivot `d` is zero when `|d| <= zero_pivot_tol * max|A_ij|`.
pub const DEFAULT_ZERO_PIVOT_TOL: f64 = 0.0;

pub use simdnlp_device::Parallelism;

/// Default of the factorization size below which a parallel solver factorizes and solves
/// sequentially: predicted flops of one numeric factorization (the measure of
/// `predicted_flops`, `Σ_j c_j²`). faer's parallelism is only within the dense kernels of one
/// supernode at a time (its supernodal loop and the triangular solves run the supernodes in
/// order), with a rayon dispatch per kernel (per column in the intranode Bunch–Kaufman
/// LBLᵀ): on small matrices that dispatch is the whole cost (two threads made whole solves
/// up to 13× slower where they fall back to LBLᵀ). The bound is ten times the largest KKT
/// matrix of issue 16's large set; above it the caller's choice applies (on the 2-core test
/// machine two threads were still 1.1–1.3× slower up to 3e10, idle or not; more cores were
/// not measured; bench-suites/README.md, issue 16, session 23).
pub const DEFAULT_PARALLEL_MIN_FLOPS: f64 = 3e9;

/// faer's parallelism for `par` (its `threads`; the callbacks' `min_batch` does not apply).
fn faer_par(par: Parallelism) -> Par {
    match par {
        Parallelism::Rayon { threads, .. } => Par::rayon(threads),
        _ => Par::Seq,
    }
}

/// Optional dynamic regularization of the LDLᵀ pivots (faer's `LdltRegularization`); off by
/// default. With `signs = Some(s)` (one entry per row of the original, unpermuted matrix,
/// `+1`, `-1` or `0`), a pivot whose sign is wrong or whose magnitude is `<= epsilon` is
/// replaced by `±delta`; with `signs = None` only pivots with `|d| <= epsilon` are replaced
/// (keeping their sign). The reported inertia is that of the regularized factorization.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicRegularization {
    /// Expected pivot sign per row (length `n`), or `None`.
    pub signs: Option<Vec<i8>>,
    /// Threshold below which a pivot is replaced (absolute).
    pub epsilon: f64,
    /// Replacement magnitude (absolute, `> 0`).
    pub delta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Llt,
    Ldlt,
    Lblt,
}

/// Shared state of the three faer backends.
struct Core {
    kind: Kind,
    par: Parallelism,
    /// Predicted flops below which the factorization and solves run sequentially even when
    /// `par` is parallel.
    parallel_min_flops: f64,
    /// The parallelism the last analysis chose (`par` or sequential, by
    /// `parallel_min_flops`): the workspace is sized for it, so it stays until the next
    /// analysis.
    par_in_use: Parallelism,
    zero_pivot_tol: f64,
    ordering: FillOrdering,
    /// Variables with a structurally zero diagonal, for the KKT-matched orderings (see
    /// [`crate::ordering::kkt_zero_diagonal_reorder`]).
    zero_diagonal: Vec<usize>,
    /// Numeric factorizations that a [`FillOrdering`] on [`FillMethod::Auto`] runs on AMD
    /// while nested dissection is computed on a background thread (`0`: both at analysis;
    /// see [`crate::ordering::AUTO_DEFERRED_FACTORIZATIONS`]).
    deferred_factorizations: usize,
    /// The nested-dissection candidate being computed beside the first factorizations.
    deferred: Option<DeferredCandidate>,
    /// Base method of the ordering in use ([`FillMethod::Auto`] resolved).
    method_used: Option<FillMethod>,
    /// Predicted flops of one numeric factorization (see [`predicted_flops`]).
    flops: f64,
    n: usize,
    /// Stored entries of the input pattern (the length `factorize` expects).
    input_nnz: usize,
    /// Pattern of `P A Pᵀ` in the triangle faer's numeric factorization reads (lower for
    /// supernodal, upper for simplicial), built once at analysis.
    permuted: Option<SymbolicSparseColMat<usize>>,
    /// `value_map[k]`: position in `permuted_values` of the input entry `k`.
    value_map: Vec<usize>,
    /// Values of `P A Pᵀ`, scattered from the input at each factorization.
    permuted_values: Vec<f64>,
    /// Fill-reducing permutation (`fill_fwd[new] = old`) and its inverse.
    fill_fwd: Vec<usize>,
    fill_inv: Vec<usize>,
    /// Symbolic factorization of `P A Pᵀ` without a permutation of its own.
    symbolic: Option<SymbolicCholesky<usize>>,
    l_values: Vec<f64>,
    subdiag: Vec<f64>,
    /// Bunch–Kaufman pivot permutation of LBLᵀ (within supernodes, of `P A Pᵀ`).
    pivot_fwd: Vec<usize>,
    pivot_inv: Vec<usize>,
    /// Permuted right-hand sides (`n · rhs_capacity`).
    rhs_permuted: Vec<f64>,
    /// Dynamic-regularization signs in the permuted order.
    signs_permuted: Vec<i8>,
    mem: MemBuffer,
    /// Number of right-hand sides the solve part of `mem` is sized for.
    rhs_capacity: usize,
    factor_req: StackReq,
    analyzed: bool,
    factored: bool,
    inertia: Option<Inertia>,
    dyn_reg: Option<DynamicRegularization>,
    /// LDLᵀ only: exact zero pivots of the rows `0..static_pivot_rows` become
    /// `+zero_pivot_perturbation · max|A_ij|` (`0`: off, an exact zero pivot stops the
    /// factorization); ignored while `dyn_reg` is set.
    zero_pivot_perturbation: f64,
    /// Rows (of the input order) whose exact zero pivots static pivoting may replace.
    static_pivot_rows: usize,
    /// A factorization since the last analysis met an exact zero pivot in a static row:
    /// later ones use static pivoting from their start.
    static_pivoting_started: bool,
    /// Pivots of the last LDLᵀ factorization replaced by the zero-pivot perturbation.
    perturbed_pivots: usize,
    /// Where the last LDLᵀ factorization stopped at a zero or non-finite pivot: its
    /// position (permuted order) and the matrix's `max|A_ij|`, for
    /// [`Core::zero_pivot_row`] and [`Core::stopped_by_growth`] (`None`: it did not stop).
    stop: Option<(usize, f64)>,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("kind", &self.kind)
            .field("par", &self.par)
            .field("n", &self.n)
            .field("analyzed", &self.symbolic.is_some())
            .field("factored", &self.factored)
            .field("inertia", &self.inertia)
            .finish()
    }
}

fn backend_err(ctx: &str, e: impl std::fmt::Debug) -> LinalgError {
    LinalgError::Backend(format!("{ctx}: {e:?}"))
}

fn alloc(req: StackReq) -> Result<MemBuffer, LinalgError> {
    MemBuffer::try_new(req).map_err(|e| backend_err("workspace allocation", e))
}

/// Scatters the input `values` of a factorization to their places `value_map[k]` in
/// `out` and returns their largest magnitude; a NaN or infinite entry is
/// [`LinalgError::InvalidValue`] naming the first such entry (nothing is scattered then).
///
/// Two passes: a branch-free one over the contiguous `values` (largest magnitude and
/// finiteness, four independent lanes so that it vectorizes), then the scatter alone. The
/// largest magnitude is exact in any order, so the result equals that of a single checked
/// pass.
pub(crate) fn scatter_finite(
    values: &[f64],
    value_map: &[usize],
    out: &mut [f64],
) -> Result<f64, LinalgError> {
    const LANES: usize = 4;
    let mut lane_max = [0.0f64; LANES];
    let mut lane_finite = [true; LANES];
    let chunks = values.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        for ((m, ok), &v) in lane_max.iter_mut().zip(&mut lane_finite).zip(chunk) {
            let a = v.abs();
            // `a < ∞` is false for both infinities and NaN.
            *ok &= a < f64::INFINITY;
            *m = if a > *m { a } else { *m };
        }
    }
    for ((m, ok), &v) in lane_max.iter_mut().zip(&mut lane_finite).zip(tail) {
        let a = v.abs();
        *ok &= a < f64::INFINITY;
        *m = if a > *m { a } else { *m };
    }
    if lane_finite.contains(&false) {
        let bad = values.iter().copied().find(|v| !v.is_finite());
        return Err(LinalgError::InvalidValue {
            what: "factorize values".into(),
            value: bad.unwrap_or(f64::NAN),
            detail: "matrix entries must be finite".into(),
        });
    }
    for (&v, &at) in values.iter().zip(value_map) {
        out[at] = v;
    }
    Ok(lane_max.into_iter().fold(0.0, f64::max))
}

/// Classifies a value as positive / negative / zero into `inertia` (branch-free: the
/// pivot signs of a KKT matrix alternate unpredictably; NaN counts as negative).
pub(crate) fn count(inertia: &mut Inertia, d: f64, tol: f64) {
    let zero = d.abs() <= tol;
    let positive = !zero && d > 0.0;
    inertia.zero += usize::from(zero);
    inertia.positive += usize::from(positive);
    inertia.negative += usize::from(!zero && !positive);
}

/// The eigenvalues of `[[a, b], [b, c]]`, the larger in magnitude first. The smaller one
/// is `det / big`: the textbook `mean − rad` loses it entirely to cancellation when the
/// diagonal entries differ by many orders of magnitude (a barrier diagonal of 1e12 paired
/// with a constraint's −1e−9), which would count a nonzero eigenvalue as zero.
pub(crate) fn pair_eigenvalues(a: f64, b: f64, c: f64) -> (f64, f64) {
    let mean = 0.5 * (a + c);
    let rad = (0.5 * (a - c)).hypot(b);
    let big = if mean >= 0.0 { mean + rad } else { mean - rad };
    let det = a * c - b * b;
    if big == 0.0 {
        (0.0, 0.0)
    } else {
        (big, det / big)
    }
}

impl Core {
    fn new(kind: Kind, par: Parallelism) -> Self {
        Self {
            kind,
            par,
            parallel_min_flops: DEFAULT_PARALLEL_MIN_FLOPS,
            par_in_use: Parallelism::Sequential,
            zero_pivot_tol: DEFAULT_ZERO_PIVOT_TOL,
            ordering: FillOrdering::Amd,
            zero_diagonal: Vec::new(),
            deferred_factorizations: 0,
            deferred: None,
            method_used: None,
            flops: 0.0,
            n: 0,
            input_nnz: 0,
            permuted: None,
            value_map: Vec::new(),
            permuted_values: Vec::new(),
            fill_fwd: Vec::new(),
            fill_inv: Vec::new(),
            symbolic: None,
            l_values: Vec::new(),
            subdiag: Vec::new(),
            pivot_fwd: Vec::new(),
            pivot_inv: Vec::new(),
            rhs_permuted: Vec::new(),
            signs_permuted: Vec::new(),
            mem: MemBuffer::new(StackReq::EMPTY),
            rhs_capacity: 0,
            factor_req: StackReq::EMPTY,
            analyzed: false,
            factored: false,
            inertia: None,
            dyn_reg: None,
            zero_pivot_perturbation: 0.0,
            static_pivot_rows: 0,
            static_pivoting_started: false,
            perturbed_pivots: 0,
            stop: None,
        }
    }

    fn analyze(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), LinalgError> {
        check_csc("analyze", n, n, col_ptr, row_idx, true)?;
        // A candidate still computed for the previous pattern is waited for and dropped.
        self.deferred = None;
        self.analyzed = false;
        self.factored = false;
        self.inertia = None;
        self.stop = None;
        self.symbolic = None;
        self.permuted = None;
        self.method_used = None;
        self.static_pivoting_started = false;
        self.flops = 0.0;
        self.par_in_use = Parallelism::Sequential;
        self.n = n;
        self.input_nnz = row_idx.len();
        if n == 0 {
            self.analyzed = true;
            return Ok(());
        }
        let settings = AnalysisSettings {
            kind: self.kind,
            par: self.par,
            parallel_min_flops: self.parallel_min_flops,
        };
        // One candidate ordering, or for `Auto` AMD and then, when AMD's factorization is
        // expensive, nested dissection, kept when it predicts clearly fewer flops: both
        // here, or with a deferred `Auto` nested dissection on a background thread while
        // the first factorizations use AMD (see `DeferredCandidate`).
        let ordering = self.ordering;
        let zero_diagonal = &self.zero_diagonal;
        let methods = candidate_methods(ordering);
        let mut deferred = None;
        let (method, flops, first) = match methods[..] {
            [first_method, second_method] if self.deferred_factorizations > 0 => {
                let (flops, first) = analyze_candidate(
                    settings.kind,
                    ordering,
                    first_method,
                    n,
                    col_ptr,
                    row_idx,
                    zero_diagonal,
                )?;
                if auto_tries_nested_dissection(flops, n) {
                    let (col_ptr, row_idx) = (col_ptr.to_vec(), row_idx.to_vec());
                    let zero_diagonal = zero_diagonal.clone();
                    deferred = Some(DeferredCandidate::spawn(
                        self.deferred_factorizations,
                        flops,
                        move || {
                            let (flops, candidate) = analyze_candidate(
                                settings.kind,
                                ordering,
                                second_method,
                                n,
                                &col_ptr,
                                &row_idx,
                                &zero_diagonal,
                            )?;
                            prepare(
                                settings,
                                n,
                                &col_ptr,
                                &row_idx,
                                second_method,
                                flops,
                                candidate,
                            )
                        },
                    )?);
                }
                (first_method, flops, first)
            }
            _ => best_candidate(ordering, n, |method| {
                analyze_candidate(
                    settings.kind,
                    ordering,
                    method,
                    n,
                    col_ptr,
                    row_idx,
                    zero_diagonal,
                )
            })?,
        };
        let prepared = prepare(settings, n, col_ptr, row_idx, method, flops, first)?;
        self.install(prepared);
        self.deferred = deferred;
        self.analyzed = true;
        Ok(())
    }

    /// Makes `prepared` the analysis the factorizations and solves use. The buffers whose
    /// size only depends on the pattern (`n`, the stored entries) are reused when they fit,
    /// so that switching to a deferred candidate allocates nothing here.
    fn install(&mut self, prepared: PreparedAnalysis) {
        let PreparedAnalysis {
            method,
            flops,
            par_in_use,
            fill_fwd,
            fill_inv,
            symbolic,
            permuted,
            value_map,
            factor_req,
            mem,
            l_values,
        } = prepared;
        let n = self.n;
        self.method_used = Some(method);
        self.flops = flops;
        self.par_in_use = par_in_use;
        (self.fill_fwd, self.fill_inv) = (fill_fwd, fill_inv);
        self.factor_req = factor_req;
        self.mem = mem;
        self.rhs_capacity = 1;
        self.rhs_permuted.resize(n, 0.0);
        self.signs_permuted.resize(n, 0);
        self.permuted_values.resize(self.input_nnz, 0.0);
        self.value_map = value_map;
        self.l_values = l_values;
        if self.kind == Kind::Lblt {
            self.subdiag.resize(n, 0.0);
            self.pivot_fwd.clear();
            self.pivot_fwd.extend(0..n);
            self.pivot_inv.clear();
            self.pivot_inv.extend(0..n);
        }
        self.symbolic = Some(symbolic);
        self.permuted = Some(permuted);
    }

    /// Counts a numeric factorization against a deferred candidate and, at its fixed
    /// switch point, joins it and installs it when [`FillMethod::Auto`]'s rule keeps it.
    ///
    /// # Errors
    /// The candidate's own error (METIS's [`LinalgError::Ordering`], a failed symbolic
    /// factorization or workspace allocation), or [`LinalgError::Backend`] when its thread
    /// panicked. The factorizations go on with the current analysis afterwards.
    fn switch_if_due(&mut self) -> Result<(), LinalgError> {
        match self.deferred.as_mut() {
            None => return Ok(()),
            Some(deferred) if deferred.factorizations_left > 0 => {
                deferred.factorizations_left -= 1;
                return Ok(());
            }
            Some(_) => {}
        }
        let Some(deferred) = self.deferred.take() else {
            return Ok(());
        };
        let current_flops = deferred.current_flops;
        let prepared = deferred.join()?;
        if auto_keeps_nested_dissection(prepared.flops, current_flops) {
            self.install(prepared);
        }
        Ok(())
    }

    /// The triangle of `permuted` that faer's numeric factorization reads directly.
    fn permuted_side(symbolic: &SymbolicCholesky<usize>) -> Side {
        match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(_) => Side::Upper,
            SymbolicCholeskyRaw::Supernodal(_) => Side::Lower,
        }
    }

    fn factorize(&mut self, values: &[f64]) -> Result<FactorStatus, LinalgError> {
        self.factored = false;
        self.inertia = None;
        self.perturbed_pivots = 0;
        self.stop = None;
        if !self.analyzed {
            return Err(LinalgError::InvalidState(
                "factorize called before analyze".into(),
            ));
        }
        self.switch_if_due()?;
        if self.n == 0 {
            check_len("factorize values", 0, values.len())?;
            self.factored = true;
            self.inertia = Some(Inertia::default());
            return Ok(FactorStatus::Success);
        }
        let (Some(symbolic), Some(permuted)) = (self.symbolic.as_ref(), self.permuted.as_ref())
        else {
            return Err(LinalgError::InvalidState(
                "factorize called before analyze".into(),
            ));
        };
        check_len("factorize values", self.input_nnz, values.len())?;
        let scale = scatter_finite(values, &self.value_map, &mut self.permuted_values)?;
        let tol = self.zero_pivot_tol * scale;
        let side = Self::permuted_side(symbolic);
        let a = SparseColMatRef::new(permuted.rb(), &self.permuted_values);
        let par = faer_par(self.par_in_use);
        let stack = MemStack::new(&mut self.mem);
        match effective_kind(self.kind, symbolic) {
            Kind::Llt => {
                let res = symbolic.factorize_numeric_llt::<f64>(
                    &mut self.l_values,
                    a,
                    side,
                    LltRegularization::default(),
                    par,
                    stack,
                    Spec::<LltParams, f64>::default(),
                );
                match res {
                    Ok(_) => {
                        self.factored = true;
                        self.inertia = Some(Inertia {
                            positive: self.n,
                            negative: 0,
                            zero: 0,
                        });
                        Ok(FactorStatus::Success)
                    }
                    // The only numeric failure is a non-positive pivot.
                    Err(_) => Ok(FactorStatus::NotPositiveDefinite),
                }
            }
            Kind::Ldlt => {
                if let Some(DynamicRegularization { signs: Some(s), .. }) = &self.dyn_reg {
                    check_len("dynamic regularization signs", self.n, s.len())?;
                }
                let signs = match &self.dyn_reg {
                    Some(DynamicRegularization { signs: Some(s), .. }) => {
                        // faer permutes the signs only when it permutes the matrix itself.
                        for (p, &old) in self.signs_permuted.iter_mut().zip(&self.fill_fwd) {
                            *p = s[old];
                        }
                        Some(&self.signs_permuted[..])
                    }
                    _ => None,
                };
                // The static pivot value, when static pivoting may be used for this matrix.
                let static_pivot =
                    (self.dyn_reg.is_none() && self.zero_pivot_perturbation > 0.0 && scale > 0.0)
                        .then_some(self.zero_pivot_perturbation * scale);
                let rows = self.static_pivot_rows;
                // Static pivoting starts once a factorization met an exact zero pivot in a
                // static row: until then faer stops at the first exact zero, which is cheap
                // when it is a constraint's (a rank-deficient J: the status is `Singular`
                // either way, and a factorization run to its end would be wasted).
                let mut with_static = self.static_pivoting_started;
                loop {
                    let reg = match (&self.dyn_reg, static_pivot) {
                        (Some(r), _) => LdltRegularization {
                            dynamic_regularization_signs: signs,
                            dynamic_regularization_delta: r.delta,
                            dynamic_regularization_epsilon: r.epsilon,
                        },
                        // Static pivoting: only exact zeros (and subnormals) are replaced,
                        // by a positive pivot of the matrix's scale; other pivots keep their
                        // value and sign, so the inertia still shows negative curvature.
                        (None, Some(delta)) if with_static => LdltRegularization {
                            dynamic_regularization_signs: None,
                            dynamic_regularization_delta: delta,
                            dynamic_regularization_epsilon: f64::MIN_POSITIVE,
                        },
                        (None, _) => LdltRegularization::default(),
                    };
                    let res = symbolic.factorize_numeric_ldlt::<f64>(
                        &mut self.l_values,
                        a,
                        side,
                        reg,
                        par,
                        &mut *stack,
                        Spec::<LdltParams, f64>::default(),
                    );
                    match res {
                        Ok(_) => break,
                        // an exact zero pivot of a static row: again, with static
                        // pivoting from now on
                        Err(LdltError::ZeroPivot { index })
                            if !with_static
                                && static_pivot.is_some()
                                && self
                                    .fill_fwd
                                    .get(zero_pivot_position(symbolic, index))
                                    .is_some_and(|&row| row < rows) =>
                        {
                            with_static = true;
                            self.static_pivoting_started = true;
                        }
                        Err(LdltError::ZeroPivot { index }) => {
                            self.stop = Some((zero_pivot_position(symbolic, index), scale));
                            return Ok(FactorStatus::Singular);
                        }
                    }
                }
                let static_pivot = static_pivot.filter(|_| with_static);
                // A computed pivot equal to the static pivot value is (all but certainly)
                // a replaced one; one outside the rows static pivoting may touch makes the
                // factorization singular, as faer's stop at that exact zero would have.
                let (mut replaced, mut outside) = (0, false);
                let fill_fwd = &self.fill_fwd;
                let inertia = ldlt_inertia(symbolic, &self.l_values, tol, |col, d| {
                    if Some(d) == static_pivot {
                        replaced += 1;
                        outside |= fill_fwd[col] >= rows;
                    }
                });
                if outside {
                    return Ok(FactorStatus::Singular);
                }
                self.perturbed_pivots = replaced;
                self.finish(inertia)
            }
            Kind::Lblt => {
                // faer writes a column's subdiagonal entry only when it eliminates the
                // column (not when nothing is left below its pivot), and reads it as "a
                // 2×2 block starts here" when nonzero: entries left from an earlier
                // factorization would pair columns into phantom blocks, in the inertia and
                // in the solves.
                self.subdiag.fill(0.0);
                let _ = symbolic.factorize_numeric_intranode_lblt::<f64>(
                    &mut self.l_values,
                    &mut self.subdiag,
                    &mut self.pivot_fwd,
                    &mut self.pivot_inv,
                    a,
                    side,
                    par,
                    stack,
                    Spec::<LbltParams, f64>::default(),
                );
                let inertia = lblt_inertia(symbolic, &self.l_values, &self.subdiag, tol);
                self.finish(inertia)
            }
        }
    }

    /// Row (input order) of the zero or non-finite pivot at which the last LDLᵀ
    /// factorization stopped (`None`: it did not stop at one).
    fn zero_pivot_row(&self) -> Option<usize> {
        self.stop
            .and_then(|(position, _)| self.fill_fwd.get(position).copied())
    }

    /// Whether the last LDLᵀ factorization stopped at a pivot lost to element growth
    /// ([`FailedPivot::lost_to_growth`]). Computed on demand from the factor that the stop
    /// left (on the simplicial path a pass over the columns of `L` before the stop), so
    /// that stops nobody asks about cost nothing.
    fn stopped_by_growth(&self) -> bool {
        let (Some((position, scale)), Some(symbolic), Some(permuted)) =
            (self.stop, self.symbolic.as_ref(), self.permuted.as_ref())
        else {
            return false;
        };
        failed_pivot(
            symbolic,
            &self.l_values,
            permuted.rb(),
            &self.permuted_values,
            position,
        )
        .is_some_and(|p| p.lost_to_growth(scale))
    }

    /// Records the inertia (or its absence when the factor is non-finite) and the status.
    fn finish(&mut self, inertia: Option<Inertia>) -> Result<FactorStatus, LinalgError> {
        match inertia {
            None => Ok(FactorStatus::Singular),
            Some(i) => {
                self.inertia = Some(i);
                self.factored = true;
                Ok(if i.zero > 0 {
                    FactorStatus::Singular
                } else {
                    FactorStatus::Success
                })
            }
        }
    }

    fn ensure_rhs_capacity(&mut self, nrhs: usize) -> Result<(), LinalgError> {
        if nrhs <= self.rhs_capacity {
            return Ok(());
        }
        if let Some(symbolic) = &self.symbolic {
            let req = symbolic.solve_in_place_scratch::<f64>(nrhs, faer_par(self.par_in_use));
            self.mem = alloc(self.factor_req.or(req))?;
        }
        self.rhs_permuted.resize(self.n * nrhs, 0.0);
        self.rhs_capacity = nrhs;
        Ok(())
    }

    fn solve(&mut self, rhs: &mut [f64], nrhs: usize) -> Result<(), LinalgError> {
        if !self.factored {
            return Err(LinalgError::InvalidState(
                "solve called without a successful factorization".into(),
            ));
        }
        check_len("solve rhs (n * nrhs)", self.n * nrhs, rhs.len())?;
        if self.n == 0 || nrhs == 0 {
            return Ok(());
        }
        self.ensure_rhs_capacity(nrhs)?;
        let Some(symbolic) = self.symbolic.as_ref() else {
            return Err(LinalgError::InvalidState(
                "solve called before analyze".into(),
            ));
        };
        let n = self.n;
        // x = P b (column by column), solve with the factor of P A Pᵀ, b = Pᵀ x; the same
        // permutations faer applies when the symbolic factorization carries the ordering.
        let permuted = &mut self.rhs_permuted[..n * nrhs];
        for (x, b) in permuted.chunks_exact_mut(n).zip(rhs.chunks_exact(n)) {
            for (xi, &old) in x.iter_mut().zip(&self.fill_fwd) {
                *xi = b[old];
            }
        }
        let par = faer_par(self.par_in_use);
        let stack = MemStack::new(&mut self.mem);
        let x = MatMut::from_column_major_slice_mut(permuted, n, nrhs);
        match effective_kind(self.kind, symbolic) {
            Kind::Llt => LltRef::new(symbolic, &self.l_values).solve_in_place_with_conj(
                Conj::No,
                x,
                par,
                stack,
            ),
            Kind::Ldlt => LdltRef::new(symbolic, &self.l_values).solve_in_place_with_conj(
                Conj::No,
                x,
                par,
                stack,
            ),
            Kind::Lblt => {
                let perm = PermRef::new_checked(&self.pivot_fwd, &self.pivot_inv, n);
                IntranodeLbltRef::new(symbolic, &self.l_values, &self.subdiag, perm)
                    .solve_in_place_with_conj(Conj::No, x, par, stack)
            }
        }
        for (b, x) in rhs
            .chunks_exact_mut(n)
            .zip(self.rhs_permuted.chunks_exact(n))
        {
            for (bi, &new) in b.iter_mut().zip(&self.fill_inv) {
                *bi = x[new];
            }
        }
        Ok(())
    }
}

/// The settings of [`Core`] an analysis depends on (copied, so that a candidate can be
/// prepared on another thread).
#[derive(Clone, Copy, Debug)]
struct AnalysisSettings {
    kind: Kind,
    par: Parallelism,
    parallel_min_flops: f64,
}

/// Workspace of one numeric factorization of `kind` on `symbolic` with `par`.
fn factor_scratch(kind: Kind, par: Par, symbolic: &SymbolicCholesky<usize>) -> StackReq {
    match kind {
        Kind::Llt => {
            symbolic.factorize_numeric_llt_scratch::<f64>(par, Spec::<LltParams, f64>::default())
        }
        Kind::Ldlt => {
            symbolic.factorize_numeric_ldlt_scratch::<f64>(par, Spec::<LdltParams, f64>::default())
        }
        Kind::Lblt => symbolic.factorize_numeric_intranode_lblt_scratch::<f64>(
            par,
            Spec::<LbltParams, f64>::default(),
        ),
    }
}

/// faer's supernodal threshold of the analyses of `kind`.
fn supernodal_threshold(kind: Kind) -> SupernodalThreshold {
    if kind == Kind::Lblt {
        // Intranode Bunch–Kaufman pivoting only exists on the supernodal path. faer's
        // FORCE_SUPERNODAL (0.0) still picks simplicial when the flop count is zero (e.g. a
        // diagonal matrix), a negative ratio forces it always.
        FORCE_SUPERNODAL
    } else {
        SupernodalThreshold::AUTO
    }
}

/// The first-pass analysis of one candidate `method` of `ordering` (see
/// [`candidate_ordering`]): the fill-reducing ordering and faer's choice of supernodal or
/// simplicial, exactly as faer makes them for the input pattern. Returns its predicted
/// flops and the candidate.
fn analyze_candidate(
    kind: Kind,
    ordering: FillOrdering,
    method: FillMethod,
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    zero_diagonal: &[usize],
) -> Result<(f64, Candidate), LinalgError> {
    let threshold = supernodal_threshold(kind);
    let custom = candidate_ordering(ordering, method, n, col_ptr, row_idx, zero_diagonal)?;
    let candidate = match custom {
        None => {
            let pattern = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
            let params = CholeskySymbolicParams {
                supernodal_flop_ratio_threshold: threshold,
                ..Default::default()
            };
            Candidate::FaerAmd(
                factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Amd, params)
                    .map_err(|e| backend_err("symbolic factorization", e))?,
            )
        }
        Some(fwd) => {
            Candidate::Permuted(PermutedAnalysis::new(n, col_ptr, row_idx, fwd, threshold)?)
        }
    };
    Ok((predicted_flops(candidate.symbolic()), candidate))
}

/// The second pass of an analysis: the symbolic factorization of the permuted pattern
/// `P A Pᵀ` with the identity ordering (faer's analysis reads the upper triangle), so that
/// each numeric factorization only scatters values instead of permuting the matrix again
/// (a custom ordering's candidate already is that analysis; faer's own AMD is redone), the
/// pattern the numeric factorization reads with the map of the input entries to it, and
/// the factor storage and workspace. `flops` are the candidate's predicted flops.
fn prepare(
    settings: AnalysisSettings,
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    method: FillMethod,
    flops: f64,
    candidate: Candidate,
) -> Result<PreparedAnalysis, LinalgError> {
    let par_in_use = if flops >= settings.parallel_min_flops {
        settings.par
    } else {
        Parallelism::Sequential
    };
    let analysis = match candidate {
        Candidate::Permuted(analysis) => analysis,
        Candidate::FaerAmd(first) => {
            let supernodal = matches!(first.raw(), SymbolicCholeskyRaw::Supernodal(_));
            let (fwd, inv) = match first.perm() {
                Some(perm) => {
                    let (fwd, inv) = perm.arrays();
                    (fwd.to_vec(), inv.to_vec())
                }
                None => ((0..n).collect(), (0..n).collect()),
            };
            drop(first);
            PermutedAnalysis::with_inverse(
                n,
                col_ptr,
                row_idx,
                fwd,
                inv,
                if supernodal {
                    FORCE_SUPERNODAL
                } else {
                    SupernodalThreshold(f64::INFINITY)
                },
            )?
        }
    };
    let PermutedAnalysis {
        fwd,
        inv,
        symbolic,
        upper,
        upper_map,
    } = analysis;
    let supernodal = matches!(symbolic.raw(), SymbolicCholeskyRaw::Supernodal(_));
    let (permuted, value_map) = if supernodal {
        drop((upper, upper_map));
        let (lo_ptr, lo_idx, lo_map) = permute_pattern(n, col_ptr, row_idx, &inv, Side::Lower);
        (
            SymbolicSparseColMat::new_unsorted_checked(n, n, lo_ptr, None, lo_idx),
            lo_map,
        )
    } else {
        (upper, upper_map)
    };
    let par = faer_par(par_in_use);
    let factor_req = factor_scratch(settings.kind, par, &symbolic);
    let solve_req = symbolic.solve_in_place_scratch::<f64>(1, par);
    let mem = alloc(factor_req.or(solve_req))?;
    let l_values = vec![0.0; symbolic.len_val()];
    Ok(PreparedAnalysis {
        method,
        flops,
        par_in_use,
        fill_fwd: fwd,
        fill_inv: inv,
        symbolic,
        permuted,
        value_map,
        factor_req,
        mem,
        l_values,
    })
}

/// An analysis ready to be installed in [`Core`] (see [`prepare`]).
struct PreparedAnalysis {
    /// Base method of its ordering.
    method: FillMethod,
    /// Predicted flops of one numeric factorization.
    flops: f64,
    /// Parallelism of its factorizations and solves (by `parallel_min_flops`).
    par_in_use: Parallelism,
    /// Fill-reducing permutation (`fill_fwd[new] = old`) and its inverse.
    fill_fwd: Vec<usize>,
    fill_inv: Vec<usize>,
    /// Symbolic factorization of `P A Pᵀ` without a permutation of its own.
    symbolic: SymbolicCholesky<usize>,
    /// Pattern of `P A Pᵀ` in the triangle the numeric factorization reads.
    permuted: SymbolicSparseColMat<usize>,
    /// Position in `permuted` of each input entry.
    value_map: Vec<usize>,
    /// Workspace of one numeric factorization.
    factor_req: StackReq,
    /// Workspace of a factorization or a one-right-hand-side solve.
    mem: MemBuffer,
    /// Factor storage.
    l_values: Vec<f64>,
}

/// The nested-dissection candidate of a deferred [`FillMethod::Auto`], prepared on a
/// background thread (METIS, the symbolic factorization, the factor storage) while the
/// first numeric factorizations use AMD's analysis. It switches at a fixed count of
/// factorizations, so the iterates never depend on when the thread finishes; the thread
/// never outlives its solver: dropping the candidate (a new analysis, the solver dropped)
/// waits for it.
struct DeferredCandidate {
    /// Numeric factorizations still to run on the current analysis before the join.
    factorizations_left: usize,
    /// Predicted flops of the current (AMD) analysis, which the keep rule compares with.
    current_flops: f64,
    /// The thread (`None` once joined).
    thread: Option<std::thread::JoinHandle<Result<PreparedAnalysis, LinalgError>>>,
}

impl DeferredCandidate {
    /// Starts `job` on a background thread; the join comes after `factorizations` numeric
    /// factorizations on the current analysis (of `current_flops` predicted flops).
    ///
    /// # Errors
    /// [`LinalgError::Backend`] when the thread cannot be started.
    fn spawn(
        factorizations: usize,
        current_flops: f64,
        job: impl FnOnce() -> Result<PreparedAnalysis, LinalgError> + Send + 'static,
    ) -> Result<Self, LinalgError> {
        let thread = std::thread::Builder::new()
            .name("simdnlp-ordering".into())
            .spawn(job)
            .map_err(|e| backend_err("background ordering thread", e))?;
        Ok(Self {
            factorizations_left: factorizations,
            current_flops,
            thread: Some(thread),
        })
    }

    /// Waits for the candidate.
    ///
    /// # Errors
    /// The job's error, or [`LinalgError::Backend`] when its thread panicked.
    fn join(mut self) -> Result<PreparedAnalysis, LinalgError> {
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(LinalgError::Backend(
                "background ordering thread panicked".into(),
            )),
            None => Err(LinalgError::InvalidState(
                "background ordering already joined".into(),
            )),
        }
    }
}

impl Drop for DeferredCandidate {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            // Its result (or panic) is of no use any more; only its end matters.
            let _ = thread.join();
        }
    }
}

/// One candidate analysis of [`analyze_candidate`] (an analysis's first pass).
enum Candidate {
    /// faer's own AMD: the symbolic factorization carries faer's permutation and is redone
    /// on the permuted pattern for the numeric factorizations.
    FaerAmd(SymbolicCholesky<usize>),
    /// A custom ordering, analyzed directly on the permuted pattern (the final analysis
    /// when it is kept).
    Permuted(PermutedAnalysis),
}

impl Candidate {
    fn symbolic(&self) -> &SymbolicCholesky<usize> {
        match self {
            Candidate::FaerAmd(symbolic) => symbolic,
            Candidate::Permuted(analysis) => &analysis.symbolic,
        }
    }
}

/// The symbolic factorization of `P A Pᵀ` for a fill-reducing permutation `P`, computed by
/// faer with the identity ordering on the upper triangle of the permuted pattern (the
/// numeric factorizations then only scatter values). For a custom permutation this is the
/// same analysis faer makes with `SymmetricOrdering::Custom`: the supernodal/simplicial
/// choice depends only on the column counts of the permuted pattern, the structure only on
/// that pattern.
struct PermutedAnalysis {
    /// `fwd[new] = old`.
    fwd: Vec<usize>,
    /// `inv[old] = new`.
    inv: Vec<usize>,
    symbolic: SymbolicCholesky<usize>,
    /// The upper triangle of `P A Pᵀ` ([`permute_pattern`] order).
    upper: SymbolicSparseColMat<usize>,
    /// Position in `upper` of each input (lower-triangle) entry.
    upper_map: Vec<usize>,
}

impl PermutedAnalysis {
    /// Analyzes `P A Pᵀ` (`A` by its lower triangle) for `fwd` with faer's supernodal
    /// `threshold`.
    fn new(
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        fwd: Vec<usize>,
        threshold: SupernodalThreshold,
    ) -> Result<Self, LinalgError> {
        let inv = invert(&fwd);
        Self::with_inverse(n, col_ptr, row_idx, fwd, inv, threshold)
    }

    /// [`PermutedAnalysis::new`] with the inverse permutation given.
    fn with_inverse(
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        fwd: Vec<usize>,
        inv: Vec<usize>,
        threshold: SupernodalThreshold,
    ) -> Result<Self, LinalgError> {
        let (up_ptr, up_idx, upper_map) = permute_pattern(n, col_ptr, row_idx, &inv, Side::Upper);
        let upper = SymbolicSparseColMat::new_unsorted_checked(n, n, up_ptr, None, up_idx);
        let params = CholeskySymbolicParams {
            supernodal_flop_ratio_threshold: threshold,
            ..Default::default()
        };
        let symbolic = factorize_symbolic_cholesky(
            upper.rb(),
            Side::Upper,
            SymmetricOrdering::Identity,
            params,
        )
        .map_err(|e| backend_err("symbolic factorization", e))?;
        Ok(Self {
            fwd,
            inv,
            symbolic,
            upper,
            upper_map,
        })
    }
}

/// Forces faer's supernodal path (see the analysis: a negative flop ratio always passes).
const FORCE_SUPERNODAL: SupernodalThreshold = SupernodalThreshold(-1.0);

/// One triangle (`side`) of the pattern of `P A Pᵀ`, where `A` is given by its lower
/// triangle (`col_ptr`, `row_idx`) and `inv[old] = new`. Returns the CSC arrays and, for
/// each input entry, its position in them. The entries of each column come in the order
/// faer's `permute_self_adjoint_to_unsorted` gives them (input columns in order, then
/// their entries in order): the simplicial factorization's update order follows it, so
/// this keeps the factor identical to faer's own permuting path bit for bit.
pub(crate) fn permute_pattern(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    inv: &[usize],
    side: Side,
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let nnz = row_idx.len();
    // (row, col) of every entry of the permuted triangle.
    let place = |k: usize, c: usize| {
        let (a, b) = (inv[row_idx[k]], inv[c]);
        match side {
            Side::Lower => (a.max(b), a.min(b)),
            Side::Upper => (a.min(b), a.max(b)),
        }
    };
    let mut new_ptr = vec![0usize; n + 1];
    for c in 0..n {
        for k in col_ptr[c]..col_ptr[c + 1] {
            new_ptr[place(k, c).1 + 1] += 1;
        }
    }
    for j in 0..n {
        new_ptr[j + 1] += new_ptr[j];
    }
    let mut new_idx = vec![0usize; nnz];
    let mut map = vec![0usize; nnz];
    let mut next = new_ptr.clone();
    for c in 0..n {
        let entries = col_ptr[c]..col_ptr[c + 1];
        for (k, at) in entries.clone().zip(&mut map[entries]) {
            let (i, j) = place(k, c);
            new_idx[next[j]] = i;
            *at = next[j];
            next[j] += 1;
        }
    }
    (new_ptr, new_idx, map)
}

/// The numeric method actually used: LBLᵀ on a simplicial structure (which the forced
/// supernodal analysis should never produce) falls back to LDLᵀ, as faer itself does.
fn effective_kind(kind: Kind, symbolic: &SymbolicCholesky<usize>) -> Kind {
    match (kind, symbolic.raw()) {
        (Kind::Lblt, SymbolicCholeskyRaw::Simplicial(_)) => Kind::Ldlt,
        (k, _) => k,
    }
}

/// Predicted floating-point operations of one numeric factorization: `Σ_j c_j²` over the
/// columns of `L`, `c_j` the entries of column `j` (diagonal included). For a supernode of
/// `w` columns and `r` rows below it, column `k` has `w − k + r` entries.
fn predicted_flops(symbolic: &SymbolicCholesky<usize>) -> f64 {
    let sum_squares = |x: f64| x * (x + 1.0) * (2.0 * x + 1.0) / 6.0;
    match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => s
            .col_ptr()
            .windows(2)
            .map(|w| {
                let c = (w[1] - w[0]) as f64;
                c * c
            })
            .sum(),
        SymbolicCholeskyRaw::Supernodal(s) => {
            let (begin, end) = (s.supernode_begin(), s.supernode_end());
            let rows = s.col_ptr_for_row_idx();
            (0..s.n_supernodes())
                .map(|sn| {
                    let w = (end[sn] - begin[sn]) as f64;
                    let r = (rows[sn + 1] - rows[sn]) as f64;
                    sum_squares(w + r) - sum_squares(r)
                })
                .sum()
        }
    }
}

/// The position (0-based, in the permuted matrix) of the pivot that faer's LDLᵀ reported
/// as `ZeroPivot { index }`: faer 0.24 numbers it from 1 on the simplicial path and from 0
/// on the supernodal one.
fn zero_pivot_position(symbolic: &SymbolicCholesky<usize>, index: usize) -> usize {
    match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(_) => index.saturating_sub(1),
        SymbolicCholeskyRaw::Supernodal(_) => index,
    }
}

/// The pivot at `position` (permuted order) where faer's LDLᵀ stopped with `ZeroPivot`:
/// an exact zero, or a non-finite value when element growth along the static order
/// overflowed (tiny pivots followed by huge multipliers; the matrix itself need not be
/// singular). The supernodal path leaves the pivot in its diagonal block (its terms are
/// not known there); the simplicial one does not store it, but it has written the failing
/// row `k` of `L`, so the pivot is recomputed as `d_k = a_kk − Σ_j l_kj² d_j` with its
/// largest term (the terms in another order: an exact zero may come out as a round-off
/// residue, an overflow stays non-finite). `None` when `position` is outside the factor.
fn failed_pivot(
    symbolic: &SymbolicCholesky<usize>,
    l_values: &[f64],
    permuted: SymbolicSparseColMatRef<'_, usize>,
    permuted_values: &[f64],
    position: usize,
) -> Option<FailedPivot> {
    match symbolic.raw() {
        SymbolicCholeskyRaw::Supernodal(s) => {
            let sn = s.supernode_end().partition_point(|&end| end <= position);
            let begin = *s.supernode_begin().get(sn)?;
            let (ncols, vals) = supernode_block(s, l_values, sn);
            let nrows = vals.len() / ncols.max(1);
            let j = position - begin;
            vals.get(j * nrows + j).map(|&value| FailedPivot {
                value,
                largest_term: 0.0,
            })
        }
        SymbolicCholeskyRaw::Simplicial(s) => {
            // the simplicial path factorizes the upper triangle: column k holds rows <= k
            let (a_ptr, a_idx) = (permuted.col_ptr(), permuted.row_idx());
            let column = *a_ptr.get(position)?..*a_ptr.get(position + 1)?;
            let mut d = column
                .into_iter()
                .find(|&p| a_idx[p] == position)
                .map_or(0.0, |p| permuted_values[p]);
            let mut largest_term = d.abs();
            let (l_ptr, l_idx) = (s.col_ptr(), s.row_idx());
            for j in 0..position {
                let column = l_ptr[j]..l_ptr[j + 1];
                let d_j = l_values[l_ptr[j]];
                if let Some(p) = column.skip(1).find(|&p| l_idx[p] == position) {
                    let term = l_values[p] * l_values[p] * d_j;
                    largest_term = largest_term.max(term.abs());
                    d -= term;
                }
            }
            Some(FailedPivot {
                value: d,
                largest_term,
            })
        }
    }
}

/// The pivot at which faer's LDLᵀ stopped, see [`failed_pivot`].
#[derive(Clone, Copy, Debug)]
struct FailedPivot {
    /// Its value (exact zero or non-finite as faer met it; recomputed on the simplicial
    /// path, where a zero may come out as a round-off residue).
    value: f64,
    /// The largest magnitude among `a_kk` and the update terms `l_kj² d_j` it was summed
    /// from (simplicial path; `0` where they are not known).
    largest_term: f64,
}

impl FailedPivot {
    /// Whether the pivot was lost to element growth rather than being a zero of the
    /// matrix's scale: it overflowed, or it cancelled to zero among terms beyond
    /// `scale / ε` (`scale = max|A_ij|`), so that its true value is below their round-off.
    fn lost_to_growth(self, scale: f64) -> bool {
        !self.value.is_finite() || self.largest_term > scale / f64::EPSILON
    }
}

/// Iterates the diagonal `D` of an LDLᵀ factor (simplicial: first entry of each column of
/// L; supernodal: diagonal of each supernode's dense diagonal block), giving each pivot
/// with its column (in the permuted order) to `each_pivot`.
fn ldlt_inertia(
    symbolic: &SymbolicCholesky<usize>,
    l_values: &[f64],
    tol: f64,
    mut each_pivot: impl FnMut(usize, f64),
) -> Option<Inertia> {
    let mut inertia = Inertia::default();
    let mut visit = |col: usize, d: f64| -> bool {
        if !d.is_finite() {
            return false;
        }
        each_pivot(col, d);
        count(&mut inertia, d, tol);
        true
    };
    match symbolic.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => {
            let col_ptr = s.col_ptr();
            for j in 0..s.nrows() {
                if !visit(j, l_values[col_ptr[j]]) {
                    return None;
                }
            }
        }
        SymbolicCholeskyRaw::Supernodal(s) => {
            for sn in 0..s.n_supernodes() {
                let (ncols, vals) = supernode_block(s, l_values, sn);
                let nrows = vals.len() / ncols.max(1);
                let begin = s.supernode_begin()[sn];
                for j in 0..ncols {
                    if !visit(begin + j, vals[j * nrows + j]) {
                        return None;
                    }
                }
            }
        }
    }
    Some(inertia)
}

/// `Ok` for a finite `value >= 0`; otherwise [`LinalgError::InvalidValue`] naming `what`.
pub(crate) fn check_non_negative(what: &str, value: f64) -> Result<(), LinalgError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(LinalgError::InvalidValue {
            what: what.into(),
            value,
            detail: "must be finite and >= 0".into(),
        })
    }
}

/// Number of columns and column-major values of supernode `sn`.
fn supernode_block<'a>(
    s: &faer::sparse::linalg::cholesky::supernodal::SymbolicSupernodalCholesky<usize>,
    l_values: &'a [f64],
    sn: usize,
) -> (usize, &'a [f64]) {
    let ncols = s.supernode_end()[sn] - s.supernode_begin()[sn];
    let ptr = s.col_ptr_for_val();
    (ncols, &l_values[ptr[sn]..ptr[sn + 1]])
}

/// Inertia of the block-diagonal factor of an intranode LBLᵀ: 1×1 pivots by sign, 2×2
/// blocks `[[a, b], [b, c]]` (`b = subdiag[j] != 0`) by the signs of their two eigenvalues
/// `(a + c)/2 ± sqrt(((a − c)/2)² + b²)`.
fn lblt_inertia(
    symbolic: &SymbolicCholesky<usize>,
    l_values: &[f64],
    subdiag: &[f64],
    tol: f64,
) -> Option<Inertia> {
    let SymbolicCholeskyRaw::Supernodal(s) = symbolic.raw() else {
        // The analysis forces the supernodal path for LBLT.
        return None;
    };
    let mut inertia = Inertia::default();
    for sn in 0..s.n_supernodes() {
        let start = s.supernode_begin()[sn];
        let (ncols, vals) = supernode_block(s, l_values, sn);
        let nrows = vals.len() / ncols.max(1);
        let mut j = 0;
        while j < ncols {
            let a = vals[j * nrows + j];
            let b = subdiag[start + j];
            if b == 0.0 || j + 1 == ncols {
                if !a.is_finite() {
                    return None;
                }
                count(&mut inertia, a, tol);
                j += 1;
            } else {
                let c = vals[(j + 1) * nrows + (j + 1)];
                if !(a.is_finite() && b.is_finite() && c.is_finite()) {
                    return None;
                }
                let (big, small) = pair_eigenvalues(a, b, c);
                count(&mut inertia, big, tol);
                count(&mut inertia, small, tol);
                j += 2;
            }
        }
    }
    Some(inertia)
}

macro_rules! backend {
    ($(#[$meta:meta])* $name:ident, $kind:expr) => {
        $(#[$meta])*
        #[derive(Debug)]
        pub struct $name {
            core: Core,
        }

        impl $name {
            /// A new, not yet analyzed solver with the given parallelism.
            pub fn new(par: Parallelism) -> Self {
                Self { core: Core::new($kind, par) }
            }

            /// The parallelism asked for (see [`Self::parallelism_in_use`] for the one the
            /// last analysis chose).
            pub fn parallelism(&self) -> Parallelism {
                self.core.par
            }

            /// Changes the parallelism. Call before [`SymmetricSolver::analyze`]: the
            /// workspace size depends on it, so the change takes effect at the next analysis.
            pub fn set_parallelism(&mut self, par: Parallelism) {
                self.core.par = par;
            }

            /// The parallelism of the factorizations and solves since the last analysis (or
            /// the switch of [`Self::set_deferred_ordering`]): [`Self::parallelism`] when
            /// its predicted flops
            /// ([`Self::predicted_flops`]) reach [`Self::parallel_min_flops`], else
            /// [`Parallelism::Sequential`] (also before analysis).
            pub fn parallelism_in_use(&self) -> Parallelism {
                self.core.par_in_use
            }

            /// Predicted flops of one factorization below which a parallel solver runs
            /// sequentially (default [`DEFAULT_PARALLEL_MIN_FLOPS`]).
            pub fn parallel_min_flops(&self) -> f64 {
                self.core.parallel_min_flops
            }

            /// Sets the size bound of [`Self::parallelism_in_use`] (predicted flops of one
            /// factorization; `0` always uses [`Self::parallelism`]). Takes effect at the
            /// next [`SymmetricSolver::analyze`].
            ///
            /// # Errors
            /// [`LinalgError::InvalidValue`] when `flops` is negative or not finite.
            pub fn set_parallel_min_flops(&mut self, flops: f64) -> Result<(), LinalgError> {
                check_non_negative("parallel min flops", flops)?;
                self.core.parallel_min_flops = flops;
                Ok(())
            }

            /// Sets the relative zero-pivot tolerance (see the module documentation).
            ///
            /// # Errors
            /// [`LinalgError::InvalidValue`] when `tol` is negative or not finite.
            pub fn set_zero_pivot_tol(&mut self, tol: f64) -> Result<(), LinalgError> {
                check_non_negative("zero pivot tolerance", tol)?;
                self.core.zero_pivot_tol = tol;
                Ok(())
            }

            /// Chooses the fill-reducing ordering used by the next
            /// [`SymmetricSolver::analyze`] (default [`FillOrdering::Amd`]); see
            /// [`crate::ordering`] for nested dissection, [`FillOrdering::Auto`] and
            /// [`FillOrdering::KktMatched`], which makes KKT matrices with a zero (2,2) block
            /// factorizable without pivoting.
            pub fn set_ordering(&mut self, ordering: FillOrdering) {
                self.core.ordering = ordering;
            }

            /// Declares the variables (indices `< n_primal` of a KKT-matched ordering) whose
            /// diagonal is structurally zero (no Hessian diagonal entry, no bound), used by
            /// the next [`SymmetricSolver::analyze`] with [`FillOrdering::KktMatched`] or
            /// [`FillOrdering::KktMatchedWith`]: each is eliminated after a constraint that
            /// gives it a nonzero pivot (see
            /// [`crate::ordering::kkt_zero_diagonal_reorder`]). Empty by default (the
            /// KKT-matched ordering as it is); other orderings ignore it.
            pub fn set_zero_diagonal(&mut self, variables: &[usize]) {
                self.core.zero_diagonal.clear();
                self.core.zero_diagonal.extend_from_slice(variables);
            }

            /// Defers the nested-dissection candidate of an ordering on
            /// [`FillMethod::Auto`] (from the next [`SymmetricSolver::analyze`]): when AMD's
            /// analysis predicts enough flops for `Auto` to try nested dissection, METIS
            /// and its symbolic analysis run on a background thread while the first
            /// `factorizations` numeric factorizations use AMD's analysis; the next
            /// factorization waits for the thread, applies `Auto`'s keep rule and uses
            /// nested dissection from then on if it is kept ([`Self::fill_method`] reports
            /// the switch). The count is fixed, so results never depend on timing; an error
            /// of the background ordering is returned by that factorization. `0` (the
            /// default) computes both candidates at analysis. The solver uses
            /// [`crate::ordering::AUTO_DEFERRED_FACTORIZATIONS`].
            pub fn set_deferred_ordering(&mut self, factorizations: usize) {
                self.core.deferred_factorizations = factorizations;
            }

            /// The ordering the next analysis will use.
            pub fn ordering(&self) -> FillOrdering {
                self.core.ordering
            }

            /// Whether the last analysis chose faer's supernodal path (`None` before
            /// analysis or for `n == 0`).
            pub fn is_supernodal(&self) -> Option<bool> {
                self.core
                    .symbolic
                    .as_ref()
                    .map(|s| matches!(s.raw(), SymbolicCholeskyRaw::Supernodal(_)))
            }

            /// Base method of the fill-reducing ordering in use ([`FillMethod::Auto`]
            /// resolved to the method it kept, AMD until the switch with
            /// [`Self::set_deferred_ordering`]; `None` before analysis or for `n == 0`).
            pub fn fill_method(&self) -> Option<FillMethod> {
                self.core.method_used
            }

            /// Predicted floating-point operations of one numeric factorization with the
            /// ordering in use (`Σ_j c_j²`, `c_j` the entries of column `j` of `L`; the
            /// measure [`FillMethod::Auto`] compares); 0 before analysis.
            pub fn predicted_flops(&self) -> f64 {
                self.core.flops
            }

            /// Number of stored values of the factor (fill-in measure); 0 before analysis.
            pub fn factor_nnz(&self) -> usize {
                self.core.l_values.len()
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new(Parallelism::Sequential)
            }
        }

        impl SymmetricSolver for $name {
            fn analyze(
                &mut self,
                n: usize,
                col_ptr: &[usize],
                row_idx: &[usize],
            ) -> Result<(), LinalgError> {
                self.core.analyze(n, col_ptr, row_idx)
            }

            fn factorize(&mut self, values: &[f64]) -> Result<FactorStatus, LinalgError> {
                self.core.factorize(values)
            }

            fn solve_in_place(&mut self, rhs: &mut [f64]) -> Result<(), LinalgError> {
                self.core.solve(rhs, 1)
            }

            fn solve_many_in_place(
                &mut self,
                rhs: &mut [f64],
                nrhs: usize,
            ) -> Result<(), LinalgError> {
                self.core.solve(rhs, nrhs)
            }

            fn provides_inertia(&self) -> bool {
                true
            }

            fn inertia(&self) -> Option<Inertia> {
                self.core.inertia
            }

            fn perturbed_pivots(&self) -> usize {
                self.core.perturbed_pivots
            }

            fn zero_pivot_row(&self) -> Option<usize> {
                self.core.zero_pivot_row()
            }

            fn stopped_by_growth(&self) -> bool {
                self.core.stopped_by_growth()
            }
        }
    };
}

backend!(
    /// Sparse Cholesky `LLᵀ` (faer chooses the supernodal or simplicial path). A matrix that
    /// is not numerically positive definite gives [`FactorStatus::NotPositiveDefinite`];
    /// success implies inertia `(n, 0, 0)`.
    FaerLlt,
    Kind::Llt
);

backend!(
    /// Sparse `LDLᵀ` without pivoting (AMD ordering, faer chooses supernodal or simplicial);
    /// inertia from the signs of `D`. Optional dynamic regularization via
    /// [`FaerLdlt::set_dynamic_regularization`] (off by default).
    FaerLdlt,
    Kind::Ldlt
);

backend!(
    /// Sparse `LBLᵀ` with Bunch–Kaufman pivoting inside each supernode (the supernodal path
    /// is forced); inertia from the 1×1 / 2×2 blocks of `B`. Pivoting never crosses
    /// supernode boundaries, so a zero pivot in a one-column supernode is still possible.
    FaerLblt,
    Kind::Lblt
);

impl FaerLdlt {
    /// Enables (`Some`) or disables (`None`, the default) faer's dynamic regularization of
    /// the LDLᵀ pivots, see [`DynamicRegularization`].
    ///
    /// # Errors
    /// [`LinalgError::InvalidValue`] for a negative/non-finite `epsilon` or `delta`;
    /// [`LinalgError::LengthMismatch`] when `signs` does not match the analyzed dimension
    /// (checked at the next factorization otherwise).
    pub fn set_dynamic_regularization(
        &mut self,
        reg: Option<DynamicRegularization>,
    ) -> Result<(), LinalgError> {
        if let Some(r) = &reg {
            check_non_negative("dynamic regularization epsilon", r.epsilon)?;
            check_non_negative("dynamic regularization delta", r.delta)?;
            if let Some(s) = r.signs.as_ref().filter(|_| self.core.symbolic.is_some()) {
                check_len("dynamic regularization signs", self.core.n, s.len())?;
            }
        }
        self.core.dyn_reg = reg;
        Ok(())
    }

    /// Static pivoting of exact zero pivots of the rows `0..rows` (input order): with
    /// `relative > 0` such a pivot (exact zero or subnormal) is replaced by
    /// `relative · max|A_ij|` and counted positive instead of stopping the factorization
    /// with [`FactorStatus::Singular`]; `0` (the default) turns it off. An exact zero pivot
    /// of a row `>= rows` still makes the factorization `Singular` (no inertia). The factor
    /// is that of `A + Σ_k δ e_k e_kᵀ` over the replaced pivots `k` (their number is
    /// [`SymmetricSolver::perturbed_pivots`]): solve with iterative refinement against `A`.
    /// Meant for KKT matrices `[[H, Jᵀ], [J, −δc I]]` with `rows` = the primal block:
    /// a variable without curvature (zero diagonal, e.g. a free variable that enters
    /// linearly) eliminated before its constraints is an exact zero pivot, yet
    /// `[[0, a], [a, 0]]` in that order perturbed to `[[δ, a], [a, 0]]` keeps the inertia
    /// `(1, 1)`; a constraint's exact zero pivot (a rank-deficient `J`) stays singular.
    /// Factorizations run without it (faer stops at the first exact zero, cheaply) until
    /// one meets an exact zero pivot of a row `< rows`: that one is repeated with static
    /// pivoting, and so are all later ones until the next analysis. Ignored while a
    /// [`DynamicRegularization`] is set.
    ///
    /// # Errors
    /// [`LinalgError::InvalidValue`] for a negative or non-finite `relative`.
    pub fn set_zero_pivot_perturbation(
        &mut self,
        relative: f64,
        rows: usize,
    ) -> Result<(), LinalgError> {
        check_non_negative("zero pivot perturbation", relative)?;
        self.core.zero_pivot_perturbation = relative;
        self.core.static_pivot_rows = rows;
        self.core.static_pivoting_started = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::lower_csc_map_with_diagonal;
    use crate::{Inertia, LinalgError};
    use proptest::prelude::*;

    /// Deterministic pseudo-random values of many magnitudes and both signs, with zeros of
    /// both signs sprinkled in.
    fn mixed_values(len: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..len)
            .map(|k| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
                let exponent = ((state >> 3) % 40) as i32 - 20;
                let sign = if state & 1 == 0 { 1.0 } else { -1.0 };
                match k % 11 {
                    3 => 0.0,
                    7 => -0.0,
                    _ => sign * unit * 10f64.powi(exponent),
                }
            })
            .collect()
    }

    /// The single checked pass the two-pass `scatter_finite` replaced.
    fn scatter_reference(values: &[f64], map: &[usize], out: &mut [f64]) -> Option<f64> {
        let mut scale = 0.0f64;
        for (&v, &at) in values.iter().zip(map) {
            if !v.is_finite() {
                return None;
            }
            scale = scale.max(v.abs());
            out[at] = v;
        }
        Some(scale)
    }

    /// Same scattered values (bit for bit) and the same scale as the single checked pass,
    /// for every length around the lane width and a shuffled map.
    #[test]
    fn scatter_finite_matches_the_single_pass() {
        for len in (0..20).chain([257, 1000]) {
            let values = mixed_values(len, len as u64 + 1);
            let map: Vec<usize> = (0..len).map(|k| (k * 7 + 3) % len.max(1)).collect();
            let map: Vec<usize> = if len % 7 == 0 {
                (0..len).rev().collect()
            } else {
                map
            };
            let (mut ours, mut reference) = (vec![9.0; len], vec![9.0; len]);
            let scale = scatter_finite(&values, &map, &mut ours).unwrap();
            let expected = scatter_reference(&values, &map, &mut reference).unwrap();
            assert_eq!(scale.to_bits(), expected.to_bits(), "len {len}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours), bits(&reference), "len {len}");
        }
    }

    /// A NaN or infinite entry anywhere (in a full lane or in the tail) is an error naming
    /// the first such entry, and nothing is scattered.
    #[test]
    fn scatter_finite_reports_the_first_non_finite_entry() {
        for len in [1, 3, 4, 5, 9, 16] {
            for bad_at in 0..len {
                for (first, second) in [
                    (f64::NAN, f64::INFINITY),
                    (f64::NEG_INFINITY, f64::NAN),
                    (f64::INFINITY, 1.0),
                ] {
                    let mut values = mixed_values(len, 7);
                    values[bad_at] = first;
                    if bad_at + 1 < len {
                        values[bad_at + 1] = second;
                    }
                    let map: Vec<usize> = (0..len).collect();
                    let mut out = vec![5.0; len];
                    match scatter_finite(&values, &map, &mut out) {
                        Err(LinalgError::InvalidValue { value, .. }) => {
                            assert_eq!(value.to_bits(), first.to_bits(), "len {len} at {bad_at}");
                        }
                        other => panic!("len {len} at {bad_at}: {other:?}"),
                    }
                    assert!(out.iter().all(|&x| x == 5.0), "scattered before the check");
                }
            }
        }
    }

    /// The branch-free classification agrees with the plain comparisons.
    #[test]
    fn count_classifies_as_the_comparisons_do() {
        let tol = 1e-8;
        let mut values = mixed_values(200, 3);
        values.extend([
            0.0,
            -0.0,
            tol,
            -tol,
            2.0 * tol,
            -2.0 * tol,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ]);
        for tol in [0.0, tol] {
            for &d in &values {
                let mut ours = Inertia::default();
                count(&mut ours, d, tol);
                let expected = if d.abs() <= tol {
                    (0, 0, 1)
                } else if d > 0.0 {
                    (1, 0, 0)
                } else {
                    (0, 1, 0)
                };
                assert_eq!((ours.positive, ours.negative, ours.zero), expected, "{d}");
            }
        }
    }

    /// The structure arrays of a symbolic factorization (simplicial or supernodal).
    fn structure(symbolic: &SymbolicCholesky<usize>) -> (bool, Vec<Vec<usize>>) {
        match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(s) => {
                (false, vec![s.col_ptr().to_vec(), s.row_idx().to_vec()])
            }
            SymbolicCholeskyRaw::Supernodal(s) => (
                true,
                vec![
                    s.supernode_begin().to_vec(),
                    s.supernode_end().to_vec(),
                    s.col_ptr_for_row_idx().to_vec(),
                    s.col_ptr_for_val().to_vec(),
                    s.row_idx().to_vec(),
                ],
            ),
        }
    }

    proptest! {
        /// The analysis of a custom ordering made on the permuted pattern (which the first
        /// pass now keeps as the final analysis) is faer's analysis with
        /// `SymmetricOrdering::Custom`: the same supernodal/simplicial choice, structure and
        /// predicted flops, for faer's automatic threshold and the forced supernodal one.
        #[test]
        fn permuted_analysis_equals_faers_custom_ordering(
            (n, entries, fwd) in (1usize..60).prop_flat_map(|n| (
                Just(n),
                proptest::collection::vec((0..n, 0..n), 0..400),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
            ))
        ) {
            let rows: Vec<usize> = entries.iter().map(|&(r, c)| r.max(c)).collect();
            let cols: Vec<usize> = entries.iter().map(|&(r, c)| r.min(c)).collect();
            let (cp, ri, _) = lower_csc_map_with_diagonal(n, &rows, &cols);
            let pattern = SymbolicSparseColMatRef::new_checked(n, n, &cp, None, &ri);
            let inv = invert(&fwd);
            for threshold in [SupernodalThreshold::AUTO, FORCE_SUPERNODAL] {
                let params = CholeskySymbolicParams {
                    supernodal_flop_ratio_threshold: threshold,
                    ..Default::default()
                };
                let faers = factorize_symbolic_cholesky(
                    pattern,
                    Side::Lower,
                    SymmetricOrdering::Custom(PermRef::new_checked(&fwd, &inv, n)),
                    params,
                )
                .unwrap();
                let ours = PermutedAnalysis::new(n, &cp, &ri, fwd.clone(), threshold).unwrap();
                prop_assert_eq!(structure(&ours.symbolic), structure(&faers));
                prop_assert_eq!(
                    predicted_flops(&ours.symbolic).to_bits(),
                    predicted_flops(&faers).to_bits()
                );
                prop_assert_eq!(&ours.inv, &inv);
            }
        }
    }

    /// A core analyzed on a tridiagonal SPD matrix of order 6 (AMD), with its values.
    fn analyzed_tridiagonal(kind: Kind) -> (Core, Vec<f64>) {
        let n = 6;
        let (mut col_ptr, mut row_idx, mut values) = (vec![0], Vec::new(), Vec::new());
        for j in 0..n {
            row_idx.push(j);
            values.push(4.0);
            if j + 1 < n {
                row_idx.push(j + 1);
                values.push(-1.0);
            }
            col_ptr.push(row_idx.len());
        }
        let mut core = Core::new(kind, Parallelism::Sequential);
        core.analyze(n, &col_ptr, &row_idx).unwrap();
        (core, values)
    }

    #[test]
    fn deferred_candidate_errors_surface_at_the_switch() {
        let (mut core, values) = analyzed_tridiagonal(Kind::Ldlt);
        // A failing background ordering: the factorizations before the switch point run,
        // the one at it returns the ordering's typed error, and later ones go on with the
        // current analysis.
        core.deferred = Some(
            DeferredCandidate::spawn(1, core.flops, || {
                Err(LinalgError::Ordering {
                    method: "nested dissection".into(),
                    detail: "METIS_ERROR_MEMORY".into(),
                })
            })
            .unwrap(),
        );
        assert_eq!(core.factorize(&values).unwrap(), FactorStatus::Success);
        match core.factorize(&values) {
            Err(LinalgError::Ordering { detail, .. }) => assert_eq!(detail, "METIS_ERROR_MEMORY"),
            other => panic!("{other:?}"),
        }
        assert!(core.deferred.is_none());
        assert_eq!(core.factorize(&values).unwrap(), FactorStatus::Success);
        assert_eq!(core.method_used, Some(FillMethod::Amd));
        // A panicking one: a typed backend error, not a panic of the caller.
        core.deferred = Some(
            DeferredCandidate::spawn(0, core.flops, || panic!("injected ordering panic")).unwrap(),
        );
        assert!(matches!(
            core.factorize(&values),
            Err(LinalgError::Backend(detail)) if detail.contains("panicked")
        ));
        assert_eq!(core.factorize(&values).unwrap(), FactorStatus::Success);
    }

    #[test]
    fn deferred_candidate_thread_ends_with_its_solver() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        // Dropping the solver, or analyzing again, waits for a candidate still running: no
        // thread outlives its solver or its pattern.
        for reanalyze in [false, true] {
            let (mut core, _) = analyzed_tridiagonal(Kind::Llt);
            let finished = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&finished);
            core.deferred = Some(
                DeferredCandidate::spawn(3, core.flops, move || {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    flag.store(true, Ordering::SeqCst);
                    Err(LinalgError::InvalidState("never joined".into()))
                })
                .unwrap(),
            );
            if reanalyze {
                core.analyze(1, &[0, 1], &[0]).unwrap();
                assert!(core.deferred.is_none());
            } else {
                drop(core);
            }
            assert!(finished.load(Ordering::SeqCst), "reanalyze {reanalyze}");
        }
    }

    /// A 2×2 pivot whose diagonal entries differ by 21 orders of magnitude: the small
    /// eigenvalue (≈ −1e−9) survives, where `mean − rad` rounds it to exactly zero.
    #[test]
    fn pair_eigenvalues_keep_the_small_one() {
        let (a, b, c): (f64, f64, f64) = (1e12, 1.0, -1e-9);
        let mean = 0.5 * (a + c);
        let rad = (0.5 * (a - c)).hypot(b);
        assert_eq!(mean - rad, 0.0, "the textbook formula loses it");
        let (big, small) = pair_eigenvalues(a, b, c);
        assert_eq!(big, 1e12);
        let exact = -1e-9 - 1e-12;
        assert!(
            (small - exact).abs() <= 1e-12 * exact.abs(),
            "{small} vs {exact}"
        );
        // both signs and the zero determinant
        assert_eq!(pair_eigenvalues(-3.0, 0.0, 2.0), (-3.0, 2.0));
        assert_eq!(pair_eigenvalues(1.0, 1.0, 1.0), (2.0, 0.0));
        assert_eq!(pair_eigenvalues(0.0, 0.0, 0.0), (0.0, 0.0));
    }

    /// A stop is growth's when the pivot is non-finite or cancelled among terms beyond
    /// `max|A_ij| / ε` (its zero is round-off); a zero among terms of the matrix's scale,
    /// or one whose terms are unknown (supernodal path: `0`), is a zero.
    #[test]
    fn pivots_lost_to_growth() {
        let pivot = |value, largest_term| FailedPivot {
            value,
            largest_term,
        };
        assert!(pivot(f64::INFINITY, 0.0).lost_to_growth(1.0));
        assert!(pivot(f64::NAN, 0.0).lost_to_growth(1.0));
        assert!(pivot(0.0, 2f64.powi(70)).lost_to_growth(1.0));
        assert!(pivot(-3.0e5, 2f64.powi(70)).lost_to_growth(1.0));
        assert!(!pivot(0.0, 2f64.powi(70)).lost_to_growth(1e6));
        assert!(!pivot(0.0, 1.0).lost_to_growth(1.0));
        assert!(!pivot(0.0, 0.0).lost_to_growth(1.0));
    }
}
