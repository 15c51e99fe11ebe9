//! A multifrontal LDLᵀ with threshold pivoting and **delayed pivots**: [`MultifrontalLdlt`].
//!
//! The faer backends ([`crate::FaerLdlt`], [`crate::FaerLblt`]) pivot at most inside one
//! supernode, on an ordering fixed at analysis. When a pivot of that ordering is (close to)
//! zero, LDLᵀ stops or grows and its inertia cannot be trusted. This solver factorizes like
//! MA57/MUMPS: a pivot that fails the threshold test is passed on (**delayed**) to the
//! parent front, where more of the matrix is summed and a stable 1×1 or 2×2 pivot exists.
//!
//! # Analysis ([`SymmetricSolver::analyze`])
//! The lower-triangle CSC pattern is validated, a fill-reducing ordering is computed with
//! the same [`FillOrdering`] machinery as the faer backends (`set_ordering`; the
//! interior-point solver uses [`FillOrdering::kkt_matched`]) and postordered by its
//! elimination tree. Column counts of `L` come from the row subtrees of the etree; columns
//! are grouped into fundamental supernodes, and a child supernode is merged into its parent
//! when the merge adds few explicit zeros (relaxed amalgamation): the child whose columns
//! end where the parent's begin by [`RELAX_ALWAYS`] / [`RELAX_ZERO_FRACTION`], the other
//! children by [`Amalgamation`] ([`MultifrontalLdlt::set_amalgamation`]; by default only
//! when no zero is stored). The columns are then renumbered so that each merged front's
//! columns are contiguous (fronts in a postorder of the amalgamated tree, each front's
//! columns in their previous order: still a topological order of the elimination tree,
//! with the same fill). Each supernode is one **front**; its row
//! pattern is the union of its columns' entries and its children's patterns, and its
//! parent in the **assembly tree** is the front holding the first row of that pattern.
//!
//! # Factorization ([`SymmetricSolver::factorize`])
//! Fronts are processed in a postorder of the assembly tree with a stack of contribution
//! blocks. A front's index list is: the columns its children delayed, its own columns (both
//! *fully summed*, `k` of them), then its row pattern (`m` indices in all). Its dense
//! `m × m` matrix is assembled from the original entries of its own columns and the
//! children's contribution blocks (extend-add), at positions computed once at analysis
//! (each entry's row in its front, each front's rows in its parent, counted without
//! delays) and shifted at each factorization by the number of delayed columns, which come
//! first: no map from global indices to front positions is built per front. Then the
//! fully summed columns are eliminated by panels ([`PANEL_WIDTH`] pivots): a column is
//! brought up to date (all `m` rows) when the pivot search reaches it, the columns it has
//! not reached receive a panel's pivots as one faer matrix product, LAPACK `sytrf`-style.
//! Each pivot is chosen among the remaining fully summed columns:
//! - a **1×1 pivot** `d = a_jj` when `|d| ≥ u · max_{i≠j} |a_ij|` (the threshold `u`,
//!   default [`DEFAULT_PIVOT_THRESHOLD`] `= 0.01`, [`MultifrontalLdlt::set_pivot_threshold`]),
//!   which bounds the entries of `L` by `1/u`;
//! - else a **2×2 pivot** `D = [[a_jj, a_jr], [a_jr, a_rr]]` with `r` the fully summed
//!   row of largest `|a_rj|`, when (Duff–Reid) `|D⁻¹| · (γ_j, γ_r)ᵀ ≤ (1/u, 1/u)ᵀ`
//!   componentwise, `γ` the largest other entries of columns `j` and `r`;
//! - a fully summed column that is zero in every remaining row is a **zero pivot** (the
//!   matrix is singular: its Schur complement has a zero row);
//! - when no column passes, the remaining fully summed columns are **delayed**: they become
//!   part of the contribution block and fully summed columns of the parent front. At a root
//!   of the assembly tree everything must be eliminated: the candidate with the largest
//!   `|d| / max|a_ij|` ratio (or Duff–Reid ratio for 2×2) is taken whatever its value.
//!
//! The contribution block `C −= L₂₁ D L₂₁ᵀ` is one faer matrix product (lower triangle).
//!
//! **Scaling.** Before each factorization the matrix is equilibrated symmetrically (Ruiz's
//! ∞-norm iteration, at most [`DEFAULT_SCALING_SWEEPS`] sweeps,
//! [`MultifrontalLdlt::set_scaling_sweeps`]): `S A S` with `S` diagonal and positive, whose
//! rows have largest entries close to 1. It stops as soon as every row's largest entry is
//! within a factor [`DEFAULT_SCALING_SPREAD`] of 1
//! ([`MultifrontalLdlt::set_scaling_spread`]; 3–5 sweeps on PGLIB KKT matrices): the
//! threshold test needs comparable rows, not exactly equilibrated ones, and each sweep is
//! a pass over the matrix. The inertia is that of `A` (congruence), and the solves apply
//! `S` on both sides. Without it the threshold test compares entries of rows
//! of very different scales: late in an interior-point solve a constraint next to
//! variables with barrier diagonals of 1e10 has a pivot of 1e−10 against entries of 1,
//! fails every test and is delayed up to the root (measured on COPS glider: fronts of
//! hundreds of columns where the analysis predicted 25).
//!
//! Inertia (Sylvester): signs of the 1×1 pivots and of the two eigenvalues of each 2×2 pivot;
//! a pivot `|d| ≤ zero_pivot_tol · max|A_ij|` (default tolerance 0: only exact zeros) counts
//! as zero and makes the status [`FactorStatus::Singular`] (the inertia is still reported).
//! A non-finite pivot makes the status `Singular` with no inertia (as the faer backends do).
//!
//! # Solves
//! Forward substitution front by front (unit `L`), each front's pivots then divided by
//! their block of `D` (1×1 and 2×2; a zero pivot is solved as zero) while they are in
//! cache, backward substitution in reverse front order, with the fill permutation applied
//! around it and the pivot permutations kept as each front's final index list.
//!
//! # Memory, cost
//! The factor (the front being factorized is assembled at its end, so that its block of `L`
//! stays in place), the index lists and the contribution-block stack (packed lower
//! triangles) are buffers kept across factorizations: a factorization with the same delays
//! as an earlier one (or fewer) allocates nothing. Delays make fronts larger than
//! analyzed, so these buffers may grow (amortized, once per new maximum). The cost is that
//! of a supernodal LDLᵀ (`Σ_j c_j²` flops, `c_j` the column counts), plus the pivot search
//! (`O(m)` per tested column), plus the delays' extra rows. Inside a panel the updates are
//! matrix–vector products (`m × PANEL_WIDTH` per column at most); the rest of a front's
//! work is matrix products (plain loops below 16 384 multiply-adds). Columns
//! that fail the tests stay in the panel and are updated pivot by pivot, so many delays in
//! one front cost as unblocked elimination does.

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{BlockStructure, matmul as tri_matmul};
use faer::{Accum, MatMut, MatRef, Par, Side};

use crate::faer_backend::{
    check_non_negative, count, pair_eigenvalues, permute_pattern, scatter_finite,
};
use crate::ordering::{
    FillMethod, FillOrdering, amd_ordering, best_candidate, candidate_ordering, count_flops,
    etree_and_column_counts, etree_postorder, invert,
};
use crate::sparse::{check_csc, check_len};
use crate::{FactorStatus, Inertia, LinalgError, SymmetricSolver};

/// Default threshold `u` of the pivot tests (the entries of `L` stay below `1/u`).
pub const DEFAULT_PIVOT_THRESHOLD: f64 = 0.01;

/// Default number of symmetric Ruiz equilibration sweeps before each factorization.
pub const DEFAULT_SCALING_SWEEPS: usize = 10;

/// Default spread of the equilibration: it stops early once every nonzero row's largest
/// entry lies in `[1 / spread, spread]` ([`MultifrontalLdlt::set_scaling_spread`]).
pub const DEFAULT_SCALING_SPREAD: f64 = 4.0;

/// A supernode is always merged into its parent, when its columns end where the parent's
/// begin, while the merged front has at most this many columns.
pub const RELAX_ALWAYS: usize = 16;

/// Beyond [`RELAX_ALWAYS`] columns, a merge with the contiguous parent is kept while the
/// explicit zeros it stores are at most this fraction of the merged front's entries.
pub const RELAX_ZERO_FRACTION: f64 = 0.05;

/// Pivots of a front eliminated before they are applied, as one matrix product, to the
/// fully summed columns the pivot search has not reached yet (the panel width of the
/// blocked elimination).
pub const PANEL_WIDTH: usize = 32;

/// Matrix–vector products with at most this many entries run as plain loops (faer's
/// dispatch costs more on small ones).
const SMALL_PRODUCT: usize = 2048;

/// Matrix products `rows × cols × inner` up to this size (rows · cols · inner) run as
/// plain column updates (faer's dispatch costs more on small ones; PGLIB fronts are
/// mostly small).
const SMALL_UPDATE: usize = 16384;

/// Fronts up to this order are zeroed whole before their assembly (one `memset`); larger
/// ones only in their lower triangle (one per column), the part that is read.
const ZERO_WHOLE_FRONT: usize = 48;

const NONE: usize = usize::MAX;

/// One contribution block waiting on the stack for its parent front.
#[derive(Clone, Copy, Debug)]
struct Contribution {
    /// Offset of its values: the lower triangle of a `rows × rows` matrix, packed by
    /// columns (column `b` holds rows `b..rows`).
    val_off: usize,
    /// Offset of the global (permuted) indices of its `delayed` columns (its other rows are
    /// the row pattern of `front`).
    idx_off: usize,
    rows: usize,
    delayed: usize,
    /// The front it comes from (its rows after the delayed columns are that front's row
    /// pattern, whose positions in the parent are [`Fronts::parent_rel`]).
    front: usize,
}

/// Where one factorized front's data lies.
#[derive(Clone, Copy, Debug, Default)]
struct FrontFactor {
    /// Offset of its `m × npiv` block of `L` (column-major; `L(i, q)` for `i > q` used).
    l_off: usize,
    /// Offset of its `m` global indices (after pivoting) in `index_store`.
    idx_off: usize,
    /// First pivot (global pivot number) of this front.
    piv_off: usize,
    m: usize,
    npiv: usize,
}

/// The symbolic structure of the fronts (assembly tree), fixed at analysis.
#[derive(Clone, Debug, Default)]
struct Fronts {
    /// Front `s` owns the columns `begin[s]..begin[s + 1]` (of the permuted matrix).
    begin: Vec<usize>,
    /// Row pattern (below its columns, sorted) of front `s`: `rows[rows_ptr[s]..rows_ptr[s + 1]]`.
    rows_ptr: Vec<usize>,
    rows: Vec<usize>,
    /// Number of children of each front in the assembly tree.
    n_children: Vec<usize>,
    /// Whether the front is a root of the assembly tree.
    is_root: Vec<bool>,
    /// Fronts in a postorder of the assembly tree.
    order: Vec<usize>,
    /// Per entry of the permuted lower triangle (`a_idx`): the position of its row in the
    /// index list of the front owning its column, counted as if no column were delayed
    /// (own columns, then the row pattern). A factorization adds the front's delayed
    /// columns, which come first: the assembly needs no global-to-front map.
    a_rel: Vec<usize>,
    /// Per entry of `rows` (front `s`'s row pattern): its position in the index list of
    /// the parent front, counted as if no column were delayed. In the parent the child's
    /// contribution rows after its delayed columns land at that position plus the
    /// parent's delayed columns.
    parent_rel: Vec<usize>,
}

/// Sparse symmetric indefinite `LDLᵀ` (1×1 and 2×2 pivots), multifrontal, with threshold
/// pivoting inside each front and delayed pivots passed to the parent front: an inertia
/// that can be trusted where LDLᵀ without pivoting meets zero or tiny pivots. See the
/// [module documentation](self).
#[derive(Debug)]
pub struct MultifrontalLdlt {
    ordering: FillOrdering,
    amalgamation: Amalgamation,
    threshold: f64,
    zero_pivot_tol: f64,
    par: Par,
    method_used: Option<FillMethod>,
    flops: f64,
    n: usize,
    input_nnz: usize,
    analyzed: bool,
    factored: bool,
    inertia: Option<Inertia>,
    /// Fill-reducing permutation (`fill_fwd[new] = old`) and its inverse.
    fill_fwd: Vec<usize>,
    fill_inv: Vec<usize>,
    /// Lower triangle of `P A Pᵀ` (CSC, rows unsorted), values scattered per factorization.
    a_ptr: Vec<usize>,
    a_idx: Vec<usize>,
    a_val: Vec<f64>,
    value_map: Vec<usize>,
    fronts: Fronts,
    // --- numeric workspace (kept across factorizations) ---
    /// The front's global indices.
    front_idx: Vec<usize>,
    /// Positions in the current front of one child contribution block's indices.
    cb_pos: Vec<usize>,
    /// The contribution blocks' values (`cb_vals[..cb_len]`; entries beyond are stale).
    cb_vals: Vec<f64>,
    cb_len: usize,
    cb_idx: Vec<usize>,
    cb_stack: Vec<Contribution>,
    /// `L₂₁ D` of the current front (for the contribution-block product).
    ld: Vec<f64>,
    /// Pivot-search flags of the current front's fully summed columns.
    failed: Vec<bool>,
    // --- the factor ---
    factors: Vec<FrontFactor>,
    /// The stored blocks of `L` (`l_store[..l_len]`), then the front being factorized;
    /// entries beyond it are stale values of earlier fronts.
    l_store: Vec<f64>,
    l_len: usize,
    /// Whether every stored entry of `L` is finite (checked front by front).
    l_finite: bool,
    index_store: Vec<usize>,
    /// Per pivot (global pivot number): diagonal of `D`, off-diagonal of a 2×2 block
    /// starting at that pivot, and whether one starts there.
    d_diag: Vec<f64>,
    d_off: Vec<f64>,
    d_pair: Vec<bool>,
    delayed: usize,
    largest_front: usize,
    /// Symmetric equilibration: number of Ruiz sweeps per factorization (0: off).
    scaling_sweeps: usize,
    /// Scaling factors of the last factorization (permuted order): the factorized matrix
    /// is `S P A Pᵀ S`, `S = diag(scale)`.
    scale: Vec<f64>,
    /// Per row during the equilibration: the sweep's factor and the row's largest entry.
    ruiz: Vec<[f64; 2]>,
    /// Equilibration stops once every row's largest entry is within this factor of 1.
    scaling_spread: f64,
    /// Sweeps the last equilibration took (the last one only measures when the row
    /// maxima were already within the spread).
    sweeps_used: usize,
    rhs_work: Vec<f64>,
    /// One front's entries of the right-hand side during a solve.
    solve_local: Vec<f64>,
}

impl Default for MultifrontalLdlt {
    fn default() -> Self {
        Self::new()
    }
}

impl MultifrontalLdlt {
    /// A new, not yet analyzed solver (AMD ordering, threshold [`DEFAULT_PIVOT_THRESHOLD`],
    /// only exact zeros counted as zero pivots, sequential).
    pub fn new() -> Self {
        Self {
            ordering: FillOrdering::Amd,
            amalgamation: Amalgamation::default(),
            threshold: DEFAULT_PIVOT_THRESHOLD,
            zero_pivot_tol: 0.0,
            par: Par::Seq,
            method_used: None,
            flops: 0.0,
            n: 0,
            input_nnz: 0,
            analyzed: false,
            factored: false,
            inertia: None,
            fill_fwd: Vec::new(),
            fill_inv: Vec::new(),
            a_ptr: Vec::new(),
            a_idx: Vec::new(),
            a_val: Vec::new(),
            value_map: Vec::new(),
            fronts: Fronts::default(),
            front_idx: Vec::new(),
            cb_pos: Vec::new(),
            cb_vals: Vec::new(),
            cb_len: 0,
            cb_idx: Vec::new(),
            cb_stack: Vec::new(),
            ld: Vec::new(),
            failed: Vec::new(),
            factors: Vec::new(),
            l_store: Vec::new(),
            l_len: 0,
            l_finite: true,
            index_store: Vec::new(),
            d_diag: Vec::new(),
            d_off: Vec::new(),
            d_pair: Vec::new(),
            delayed: 0,
            largest_front: 0,
            scaling_sweeps: DEFAULT_SCALING_SWEEPS,
            scale: Vec::new(),
            ruiz: Vec::new(),
            scaling_spread: DEFAULT_SCALING_SPREAD,
            sweeps_used: 0,
            rhs_work: Vec::new(),
            solve_local: Vec::new(),
        }
    }

    /// Chooses the fill-reducing ordering of the next [`SymmetricSolver::analyze`] (default
    /// [`FillOrdering::Amd`]).
    pub fn set_ordering(&mut self, ordering: FillOrdering) {
        self.ordering = ordering;
    }

    /// The ordering the next analysis will use.
    pub fn ordering(&self) -> FillOrdering {
        self.ordering
    }

    /// Sets the thresholds of the relaxed amalgamation of children not contiguous with
    /// their parent at the next [`SymmetricSolver::analyze`] (default
    /// [`Amalgamation::default`]: only merges that store no explicit zero): fewer, larger
    /// fronts cost less per front and more in explicit zeros and delayed pivots.
    ///
    /// # Errors
    /// [`LinalgError::InvalidValue`] when the zero fraction is not finite or outside
    /// `[0, 1]`.
    pub fn set_amalgamation(&mut self, relax: Amalgamation) -> Result<(), LinalgError> {
        check_non_negative("amalgamation zero fraction", relax.zero_fraction)?;
        if relax.zero_fraction > 1.0 {
            return Err(LinalgError::InvalidValue {
                what: "amalgamation zero fraction".into(),
                value: relax.zero_fraction,
                detail: "must be at most 1".into(),
            });
        }
        self.amalgamation = relax;
        Ok(())
    }

    /// The amalgamation thresholds the next analysis will use.
    pub fn amalgamation(&self) -> Amalgamation {
        self.amalgamation
    }

    /// Sets the pivot threshold `u` (`0 ≤ u ≤ 1`; see the module documentation): larger is
    /// more stable, with more delayed pivots. Takes effect at the next factorization.
    ///
    /// # Errors
    /// [`LinalgError::InvalidValue`] when `u` is not finite or outside `[0, 1]`.
    pub fn set_pivot_threshold(&mut self, u: f64) -> Result<(), LinalgError> {
        check_non_negative("pivot threshold", u)?;
        if u > 1.0 {
            return Err(LinalgError::InvalidValue {
                what: "pivot threshold".into(),
                value: u,
                detail: "must be at most 1".into(),
            });
        }
        self.threshold = u;
        Ok(())
    }

    /// The pivot threshold `u`.
    pub fn pivot_threshold(&self) -> f64 {
        self.threshold
    }

    /// Sets the number of symmetric equilibration sweeps before each factorization
    /// (default [`DEFAULT_SCALING_SWEEPS`]; 0 turns scaling off). See the module
    /// documentation.
    pub fn set_scaling_sweeps(&mut self, sweeps: usize) {
        self.scaling_sweeps = sweeps;
    }

    /// Equilibration sweeps the last factorization took (each one pass over the values; 0
    /// with scaling off). See [`MultifrontalLdlt::set_scaling_spread`].
    pub fn scaling_sweeps_used(&self) -> usize {
        self.sweeps_used
    }

    /// Sets the spread `s ≥ 1` at which the equilibration stops early (default
    /// [`DEFAULT_SCALING_SPREAD`]): once every nonzero row's largest entry lies in
    /// `[1/s, s]`. Smaller is closer to equilibrated, with more sweeps (each one pass over
    /// the matrix); 1 runs all of them. Takes effect at the next factorization.
    ///
    /// # Errors
    /// [`LinalgError::InvalidValue`] when `s` is not finite or below 1.
    pub fn set_scaling_spread(&mut self, spread: f64) -> Result<(), LinalgError> {
        if !(spread.is_finite() && spread >= 1.0) {
            return Err(LinalgError::InvalidValue {
                what: "scaling spread".into(),
                value: spread,
                detail: "must be finite and at least 1".into(),
            });
        }
        self.scaling_spread = spread;
        Ok(())
    }

    /// Sets the relative zero-pivot tolerance: a pivot (or 2×2 eigenvalue) `d` counts as
    /// zero when `|d| ≤ tol · max|A_ij|` (default 0: only exact zeros).
    ///
    /// # Errors
    /// [`LinalgError::InvalidValue`] when `tol` is negative or not finite.
    pub fn set_zero_pivot_tol(&mut self, tol: f64) -> Result<(), LinalgError> {
        check_non_negative("zero pivot tolerance", tol)?;
        self.zero_pivot_tol = tol;
        Ok(())
    }

    /// Uses `threads` threads in the dense products of large fronts (1: sequential).
    pub fn set_threads(&mut self, threads: usize) {
        self.par = if threads <= 1 {
            Par::Seq
        } else {
            Par::rayon(threads)
        };
    }

    /// Base method of the ordering the last analysis used (`None` before analysis).
    pub fn fill_method(&self) -> Option<FillMethod> {
        self.method_used
    }

    /// Predicted flops of a factorization without delays (`Σ_j c_j²` over the columns of
    /// `L` as analyzed, amalgamation zeros not counted); 0 before analysis.
    pub fn predicted_flops(&self) -> f64 {
        self.flops
    }

    /// Number of fronts (supernodes after amalgamation) of the last analysis.
    pub fn front_count(&self) -> usize {
        self.fronts.order.len()
    }

    /// Order `m` of the largest front of the last factorization (delayed columns included).
    pub fn largest_front(&self) -> usize {
        self.largest_front
    }

    /// Stored values of the factor `L` of the last factorization (dense front blocks).
    pub fn factor_len(&self) -> usize {
        self.l_len
    }

    fn analyze_impl(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), LinalgError> {
        check_csc("analyze", n, n, col_ptr, row_idx, true)?;
        self.analyzed = false;
        self.factored = false;
        self.inertia = None;
        self.method_used = None;
        self.flops = 0.0;
        self.n = n;
        self.input_nnz = row_idx.len();
        // Candidate orderings (two for `Auto`), each postordered; keep the cheaper one.
        let ordering = self.ordering;
        let (method, flops, analysis) = best_candidate(ordering, n, |method| {
            let fwd = match candidate_ordering(ordering, method, n, col_ptr, row_idx, &[])? {
                Some(fwd) => fwd,
                None => amd_ordering(n, col_ptr, row_idx)?,
            };
            let fwd = etree_postorder(n, col_ptr, row_idx, &fwd);
            let (parent, counts) = etree_and_column_counts(n, col_ptr, row_idx, &fwd);
            let flops = count_flops(&counts);
            // the kept candidate's etree and column counts build its fronts below
            Ok((flops, (fwd, parent, counts)))
        })?;
        let (fwd, parent, counts) = analysis;
        self.method_used = Some(method);
        self.flops = flops;
        // Amalgamation renumbers the columns (each front's contiguous).
        let fronts = amalgamate(n, &parent, &counts, self.amalgamation);
        self.fill_fwd = fronts.perm.iter().map(|&j| fwd[j]).collect();
        self.fill_inv = invert(&self.fill_fwd);
        let (a_ptr, a_idx, value_map) =
            permute_pattern(n, col_ptr, row_idx, &self.fill_inv, Side::Lower);
        self.fronts = build_fronts(n, &a_ptr, &a_idx, fronts.begin);
        self.a_val = vec![0.0; a_idx.len()];
        self.a_ptr = a_ptr;
        self.a_idx = a_idx;
        self.value_map = value_map;
        self.d_diag = vec![0.0; n];
        self.d_off = vec![0.0; n];
        self.d_pair = vec![false; n];
        self.rhs_work = vec![0.0; n];
        self.scale = vec![1.0; n];
        self.ruiz = vec![[1.0, 0.0]; n];
        self.factors = Vec::with_capacity(self.fronts.order.len());
        // Buffers sized for a factorization without delays.
        let (mut l_len, mut idx_len, mut max_m) = (0usize, 0usize, 0usize);
        for s in 0..self.fronts.order.len() {
            let w = self.fronts.begin[s + 1] - self.fronts.begin[s];
            let m = w + self.fronts.rows_ptr[s + 1] - self.fronts.rows_ptr[s];
            l_len += m * w;
            idx_len += m;
            max_m = max_m.max(m);
        }
        // The front being factorized lies after the stored blocks of `L`.
        self.l_store = vec![0.0; l_len + max_m * max_m];
        self.l_len = 0;
        self.index_store = Vec::with_capacity(idx_len);
        self.front_idx = Vec::with_capacity(max_m);
        self.cb_pos = Vec::with_capacity(max_m);
        self.ld = Vec::with_capacity((max_m * max_m).max((max_m + 1) * (PANEL_WIDTH + 1)));
        self.failed = Vec::with_capacity(max_m);
        self.solve_local = Vec::with_capacity(max_m);
        self.analyzed = true;
        Ok(())
    }

    fn factorize_impl(&mut self, values: &[f64]) -> Result<FactorStatus, LinalgError> {
        self.factored = false;
        self.inertia = None;
        self.delayed = 0;
        self.largest_front = 0;
        if !self.analyzed {
            return Err(LinalgError::InvalidState(
                "factorize called before analyze".into(),
            ));
        }
        check_len("factorize values", self.input_nnz, values.len())?;
        let scale = scatter_finite(values, &self.value_map, &mut self.a_val)?;
        self.equilibrate();
        self.factors.clear();
        self.l_finite = true;
        self.l_len = 0;
        self.index_store.clear();
        self.cb_len = 0;
        self.cb_idx.clear();
        self.cb_stack.clear();
        let mut piv_off = 0usize;
        for oi in 0..self.fronts.order.len() {
            let s = self.fronts.order[oi];
            piv_off += self.factor_front(s, piv_off);
        }
        if piv_off != self.n || !self.cb_stack.is_empty() {
            return Err(LinalgError::InvalidState(format!(
                "multifrontal factorization eliminated {piv_off} of {} pivots",
                self.n
            )));
        }
        // Inertia from D (the scaled matrix has the same inertia: S A S is congruent to A).
        // The zero tolerance is relative to the largest scaled entry (one more pass over
        // the values, skipped with the default tolerance 0: then only exact zeros count).
        let scale = if self.zero_pivot_tol == 0.0 {
            0.0
        } else if self.scaling_sweeps > 0 {
            self.a_val.iter().fold(0.0f64, |m, v| m.max(v.abs()))
        } else {
            scale
        };
        let tol = self.zero_pivot_tol * scale;
        let mut inertia = Inertia::default();
        let mut q = 0;
        while q < self.n {
            let a = self.d_diag[q];
            if self.d_pair[q] {
                let (b, c) = (self.d_off[q], self.d_diag[q + 1]);
                if !(a.is_finite() && b.is_finite() && c.is_finite()) {
                    return Ok(FactorStatus::Singular);
                }
                let (big, small) = pair_eigenvalues(a, b, c);
                count(&mut inertia, big, tol);
                count(&mut inertia, small, tol);
                q += 2;
            } else {
                if !a.is_finite() {
                    return Ok(FactorStatus::Singular);
                }
                count(&mut inertia, a, tol);
                q += 1;
            }
        }
        if !self.l_finite {
            return Ok(FactorStatus::Singular);
        }
        self.inertia = Some(inertia);
        self.factored = true;
        Ok(if inertia.zero > 0 {
            FactorStatus::Singular
        } else {
            FactorStatus::Success
        })
    }

    /// Symmetric Ruiz equilibration of the permuted values in place: up to
    /// `scaling_sweeps` times, every row and column `i` is divided by the square root of
    /// its largest entry, so that all rows end with largest entries close to 1. The
    /// threshold pivot test then compares entries of comparable rows: without it, a
    /// constraint row next to variables with a barrier diagonal of 1e10 has pivots of 1e−10
    /// against entries of 1, fails every test and is delayed up to the root.
    ///
    /// It stops as soon as every nonzero row's largest entry lies within the spread
    /// ([`MultifrontalLdlt::set_scaling_spread`]) of 1: the test only needs comparable
    /// rows, not exactly equilibrated ones. The sweeps taken are
    /// [`MultifrontalLdlt::scaling_sweeps_used`].
    #[inline(never)]
    fn equilibrate(&mut self) {
        self.scale.fill(1.0);
        self.sweeps_used = 0;
        if self.scaling_sweeps == 0 {
            return;
        }
        // One pass per sweep: it applies the previous sweep's factors (none in the first)
        // and takes the row maxima of the result. When those are within the spread the
        // values are left as they are; else new factors are taken, applied by the next pass
        // (or, after the last sweep, by a last pass). `ruiz[i]` = (factor, row maximum):
        // one cache line per random access.
        let spread = self.scaling_spread;
        let ruiz = &mut self.ruiz;
        let mut pending = false;
        for _ in 0..self.scaling_sweeps {
            for r in ruiz.iter_mut() {
                r[1] = 0.0;
            }
            for j in 0..self.n {
                let (lo, hi) = (self.a_ptr[j], self.a_ptr[j + 1]);
                let vals = &mut self.a_val[lo..hi];
                let rows = &self.a_idx[lo..hi];
                let mut col_max = ruiz[j][1];
                // The values are finite (checked when scattered) and the factors finite
                // and positive, so no maximum meets a NaN: one comparison each
                // (`f64::max`'s NaN handling costs a dependent chain of instructions).
                if pending {
                    let fj = ruiz[j][0];
                    for (v, &i) in vals.iter_mut().zip(rows) {
                        let ri = &mut ruiz[i];
                        *v *= ri[0] * fj;
                        let a = v.abs();
                        ri[1] = larger(ri[1], a);
                        col_max = larger(col_max, a);
                    }
                } else {
                    for (&v, &i) in vals.iter().zip(rows) {
                        let a = v.abs();
                        let ri = &mut ruiz[i];
                        ri[1] = larger(ri[1], a);
                        col_max = larger(col_max, a);
                    }
                }
                ruiz[j][1] = larger(ruiz[j][1], col_max);
            }
            self.sweeps_used += 1;
            let scaled = |r: f64| r > 0.0 && r.is_finite();
            if ruiz
                .iter()
                .all(|r| !scaled(r[1]) || (r[1] * spread >= 1.0 && r[1] <= spread))
            {
                return;
            }
            for (r, s) in ruiz.iter_mut().zip(&mut self.scale) {
                r[0] = if scaled(r[1]) { 1.0 / r[1].sqrt() } else { 1.0 };
                *s *= r[0];
            }
            pending = true;
        }
        for j in 0..self.n {
            let fj = ruiz[j][0];
            for e in self.a_ptr[j]..self.a_ptr[j + 1] {
                self.a_val[e] *= ruiz[self.a_idx[e]][0] * fj;
            }
        }
    }

    /// Assembles, partially factorizes and stores front `s` (its pivots numbered from
    /// `piv_off`), pushing its contribution block. Returns its number of pivots.
    #[inline(never)]
    fn factor_front(&mut self, s: usize, piv_off: usize) -> usize {
        // The front is assembled at the end of the factor's storage: its first columns
        // become its block of `L` there without a copy.
        let l_off = self.l_len;
        let shape = self.assemble_front(s);
        let FrontShape { m, k } = shape;
        let is_root = self.fronts.is_root[s];
        self.failed.clear();
        self.failed.resize(k, false);
        // Workspace only (every entry is written before it is read).
        let work_len = (k + 1) * (PANEL_WIDTH + 1);
        if self.ld.len() < work_len {
            self.ld.resize(work_len, 0.0);
        }
        let piv = PivotOutput {
            failed: &mut self.failed,
            diag: &mut self.d_diag[piv_off..],
            off: &mut self.d_off[piv_off..],
            pair: &mut self.d_pair[piv_off..],
            work: &mut self.ld,
        };
        let npiv = partial_factor(
            &mut self.l_store[l_off..l_off + m * m],
            shape,
            &mut self.front_idx,
            PivotRule {
                threshold: self.threshold,
                force: is_root,
                par: self.par,
            },
            piv,
        );
        let cb_at = self.store_front(s, shape, npiv, piv_off, l_off);
        self.update_contribution(shape, npiv, piv_off, l_off, cb_at);
        npiv
    }

    /// Builds front `s`: its index list (the children's delayed columns, its own columns,
    /// its row pattern), its dense matrix (after the stored blocks of `L` in `l_store`)
    /// from the original entries and the children's contribution blocks (popped from the
    /// stack), the fully summed block stored in both triangles. Returns its shape.
    ///
    /// The positions come from the analysis ([`Fronts::a_rel`], [`Fronts::parent_rel`])
    /// shifted by the number `nd` of delayed columns, which come first: a child's delayed
    /// columns at their place in that list, its other rows at their analyzed position
    /// plus `nd`. Only the lower triangle is zeroed (the upper one of the fully summed
    /// columns is written by the symmetrization; that of the others is never read).
    #[inline(never)]
    fn assemble_front(&mut self, s: usize) -> FrontShape {
        let fr = &self.fronts;
        let (c0, c1) = (fr.begin[s], fr.begin[s + 1]);
        let rows = &fr.rows[fr.rows_ptr[s]..fr.rows_ptr[s + 1]];
        let n_children = fr.n_children[s];
        let children = self.cb_stack.len() - n_children;
        // Index list: delayed columns of the children, own columns, row pattern.
        self.front_idx.clear();
        for cb in &self.cb_stack[children..] {
            self.front_idx
                .extend_from_slice(&self.cb_idx[cb.idx_off..cb.idx_off + cb.delayed]);
        }
        let nd = self.front_idx.len();
        self.delayed += nd;
        self.front_idx.extend(c0..c1);
        let k = self.front_idx.len();
        self.front_idx.extend_from_slice(rows);
        let m = self.front_idx.len();
        self.largest_front = self.largest_front.max(m);
        // An m × m matrix after the stored blocks of `L` (within the length reserved at
        // analysis unless delays made the front larger), its lower triangle zeroed.
        let l_off = self.l_len;
        if self.l_store.len() < l_off + m * m {
            self.l_store.resize(l_off + m * m, 0.0);
        }
        let f = &mut self.l_store[l_off..l_off + m * m];
        if m <= ZERO_WHOLE_FRONT {
            f.fill(0.0);
        } else {
            for c in 0..m {
                f[c * m + c..(c + 1) * m].fill(0.0);
            }
        }
        // Original entries of the own columns: rows at or after their column in the
        // front's order (own columns, then the sorted row pattern), the lower triangle.
        for j in c0..c1 {
            let pj = nd + j - c0;
            let col = &mut f[pj * m..(pj + 1) * m];
            let (lo, hi) = (self.a_ptr[j], self.a_ptr[j + 1]);
            for (&rel, &v) in fr.a_rel[lo..hi].iter().zip(&self.a_val[lo..hi]) {
                debug_assert!(nd + rel >= pj);
                col[nd + rel] += v;
            }
        }
        // Extend-add of the children's contribution blocks, then pop them.
        let mut delayed_at = 0;
        for cb in &self.cb_stack[children..] {
            let r = cb.rows;
            let child_rows = &fr.parent_rel[fr.rows_ptr[cb.front]..fr.rows_ptr[cb.front + 1]];
            debug_assert_eq!(cb.delayed + child_rows.len(), r);
            self.cb_pos.clear();
            self.cb_pos.extend(delayed_at..delayed_at + cb.delayed);
            self.cb_pos.extend(child_rows.iter().map(|&rel| nd + rel));
            delayed_at += cb.delayed;
            // Packed lower triangle: column `b` holds rows `b..r`. The child's delayed
            // columns go anywhere among the fully summed ones (either triangle); after
            // them, the child's rows keep their order in this front (own columns, then
            // the sorted row pattern), so `a ≥ b` lands in the lower triangle.
            let mut at = cb.val_off;
            for (b, &pb) in self.cb_pos.iter().enumerate() {
                let col = &self.cb_vals[at..at + r - b];
                at += r - b;
                if b < cb.delayed {
                    for (&pa, &v) in self.cb_pos[b..].iter().zip(col) {
                        f[pa.min(pb) * m + pa.max(pb)] += v;
                    }
                } else {
                    let dst = &mut f[pb * m..(pb + 1) * m];
                    for (&pa, &v) in self.cb_pos[b..].iter().zip(col) {
                        debug_assert!(pa >= pb);
                        dst[pa] += v;
                    }
                }
            }
        }
        if let Some(first) = self.cb_stack.get(children).copied() {
            self.cb_len = first.val_off;
            self.cb_idx.truncate(first.idx_off);
            self.cb_stack.truncate(children);
        }
        // Fully summed block symmetric (both triangles) for the pivot search.
        for c in 0..k {
            for r in c + 1..k {
                f[r * m + c] = f[c * m + r];
            }
        }
        FrontShape { m, k }
    }

    /// The contribution block of the front just factorized, `C −= L₂₁ D L₂₁ᵀ` (rows and
    /// columns `k..m`, lower triangle), written packed into `cb_vals` from `cb_at` (the
    /// room [`Self::store_front`] reserved; `None` for a root, which has no such rows).
    /// Small products run column by column straight into `cb_vals` (the first update of
    /// a column reads the front and writes the packed copy: no separate copy), larger ones
    /// as one faer product in the front, then copied.
    #[inline(never)]
    fn update_contribution(
        &mut self,
        shape: FrontShape,
        npiv: usize,
        piv_off: usize,
        l_off: usize,
        cb_at: Option<usize>,
    ) {
        let FrontShape { m, k } = shape;
        let r2 = m - k;
        let Some(mut at) = cb_at else {
            debug_assert_eq!(r2, 0, "a root front has no contribution rows");
            return;
        };
        let f = &mut self.l_store[l_off..l_off + m * m];
        if self.ld.len() < r2 * npiv {
            self.ld.resize(r2 * npiv, 0.0);
        }
        // L₂₁ D (r2 × npiv, column-major).
        let mut q = 0;
        while q < npiv {
            let l1 = &f[q * m + k..q * m + m];
            if self.d_pair[piv_off + q] {
                let (a, b, c) = (
                    self.d_diag[piv_off + q],
                    self.d_off[piv_off + q],
                    self.d_diag[piv_off + q + 1],
                );
                let l2 = &f[(q + 1) * m + k..(q + 1) * m + m];
                let (w1, w2) = self.ld[q * r2..(q + 2) * r2].split_at_mut(r2);
                for i in 0..r2 {
                    w1[i] = a * l1[i] + b * l2[i];
                    w2[i] = b * l1[i] + c * l2[i];
                }
                q += 2;
            } else {
                let d = self.d_diag[piv_off + q];
                for (w, &l) in self.ld[q * r2..(q + 1) * r2].iter_mut().zip(l1) {
                    *w = d * l;
                }
                q += 1;
            }
        }
        let (left, right) = f.split_at_mut(k * m);
        if r2 * r2 * npiv <= SMALL_UPDATE {
            // Column by column: C(c.., c) −= Σ_q L₂₁(c.., q) · (L₂₁ D)(c, q), the pivots
            // in order (the same operations as in place).
            for c in 0..r2 {
                let src = &right[c * m + k + c..(c + 1) * m];
                let dst = &mut self.cb_vals[at..at + r2 - c];
                at += r2 - c;
                let mut copied = false;
                for q in 0..npiv {
                    let w = self.ld[q * r2 + c];
                    if w != 0.0 {
                        let lq = &left[q * m + k + c..(q + 1) * m];
                        if copied {
                            for (x, &l) in dst.iter_mut().zip(lq) {
                                *x -= w * l;
                            }
                        } else {
                            for ((x, &a), &l) in dst.iter_mut().zip(src).zip(lq) {
                                *x = a - w * l;
                            }
                            copied = true;
                        }
                    }
                }
                if !copied {
                    dst.copy_from_slice(src);
                }
            }
            return;
        }
        let l21 = MatRef::from_column_major_slice_with_stride(&left[k..], r2, npiv, m);
        let ld = MatRef::from_column_major_slice(&self.ld[..r2 * npiv], r2, npiv);
        let c = MatMut::from_column_major_slice_with_stride_mut(&mut right[k..], r2, r2, m);
        tri_matmul(
            c,
            BlockStructure::TriangularLower,
            Accum::Add,
            l21,
            BlockStructure::Rectangular,
            ld.transpose(),
            BlockStructure::Rectangular,
            -1.0,
            self.par,
        );
        for c in 0..r2 {
            self.cb_vals[at..at + r2 - c].copy_from_slice(&right[c * m + k + c..(c + 1) * m]);
            at += r2 - c;
        }
    }

    /// Stores the factorized front at `l_off` of `l_store` (keeps its `m × npiv` block of
    /// `L` there and its index list after pivoting) and pushes its contribution block
    /// (positions `npiv..m`, the delayed columns first) unless front `s` is a root: its
    /// delayed columns are copied, the room for its other columns (`k..m`) is reserved
    /// for [`Self::update_contribution`], which writes them there. Returns where in
    /// `cb_vals` that room begins (`None` for a root).
    #[inline(never)]
    fn store_front(
        &mut self,
        s: usize,
        shape: FrontShape,
        npiv: usize,
        piv_off: usize,
        l_off: usize,
    ) -> Option<usize> {
        let FrontShape { m, k } = shape;
        let is_root = self.fronts.is_root[s];
        let f = &self.l_store[l_off..l_off + m * m];
        self.factors.push(FrontFactor {
            l_off,
            idx_off: self.index_store.len(),
            piv_off,
            m,
            npiv,
        });
        // Checked while the block is in cache (not one more pass over the whole factor).
        self.l_finite &= f[..npiv * m].iter().all(|v| v.is_finite());
        self.index_store.extend_from_slice(&self.front_idx);
        // Push the contribution block: the rows/cols npiv..m (delayed columns first).
        let rows_out = m - npiv;
        // Keep the block of L (the first npiv columns).
        self.l_len = l_off + npiv * m;
        if rows_out == 0 || is_root {
            return None;
        }
        let val_off = self.cb_len;
        self.cb_stack.push(Contribution {
            val_off,
            idx_off: self.cb_idx.len(),
            rows: rows_out,
            delayed: k - npiv,
            front: s,
        });
        // Packed lower triangle (column `c` from its diagonal down).
        self.cb_len += rows_out * (rows_out + 1) / 2;
        if self.cb_vals.len() < self.cb_len {
            self.cb_vals.resize(self.cb_len, 0.0);
        }
        let mut at = val_off;
        for c in npiv..k {
            self.cb_vals[at..at + m - c].copy_from_slice(&f[c * m + c..c * m + m]);
            at += m - c;
        }
        // Only the delayed columns' indices: the rows after them are the front's row
        // pattern, known to the parent from the analysis.
        self.cb_idx.extend_from_slice(&self.front_idx[npiv..k]);
        Some(at)
    }

    fn solve_one(&mut self, rhs: &mut [f64]) {
        let y = &mut self.rhs_work;
        for ((yi, &old), &s) in y.iter_mut().zip(&self.fill_fwd).zip(&self.scale) {
            *yi = rhs[old] * s;
        }
        // Forward: L z = P b, front by front on a gathered dense copy of its entries.
        let local = &mut self.solve_local;
        for fr in &self.factors {
            let idx = &self.index_store[fr.idx_off..fr.idx_off + fr.m];
            local.clear();
            local.extend(idx.iter().map(|&g| y[g]));
            for q in 0..fr.npiv {
                let yq = local[q];
                if yq == 0.0 {
                    continue;
                }
                let col = &self.l_store[fr.l_off + q * fr.m..fr.l_off + (q + 1) * fr.m];
                for (v, &l) in local[q + 1..].iter_mut().zip(&col[q + 1..]) {
                    *v -= l * yq;
                }
            }
            // Block diagonal, D w = z, on this front's pivots: their entries of z are final
            // here (later fronts only update the rows after them).
            let mut q = 0;
            while q < fr.npiv {
                let g = fr.piv_off + q;
                if self.d_pair[g] {
                    let (a, b, c) = (self.d_diag[g], self.d_off[g], self.d_diag[g + 1]);
                    let det = a * c - b * b;
                    let (y1, y2) = (local[q], local[q + 1]);
                    if det != 0.0 {
                        local[q] = (c * y1 - b * y2) / det;
                        local[q + 1] = (a * y2 - b * y1) / det;
                    } else {
                        local[q] = 0.0;
                        local[q + 1] = 0.0;
                    }
                    q += 2;
                } else {
                    let d = self.d_diag[g];
                    local[q] = if d != 0.0 { local[q] / d } else { 0.0 };
                    q += 1;
                }
            }
            for (&g, &v) in idx.iter().zip(local.iter()) {
                y[g] = v;
            }
        }
        // Backward: Lᵀ x = w.
        for fr in self.factors.iter().rev() {
            let idx = &self.index_store[fr.idx_off..fr.idx_off + fr.m];
            local.clear();
            local.extend(idx.iter().map(|&g| y[g]));
            for q in (0..fr.npiv).rev() {
                let col = &self.l_store[fr.l_off + q * fr.m..fr.l_off + (q + 1) * fr.m];
                local[q] -= dot(&local[q + 1..], &col[q + 1..]);
            }
            for (&g, &v) in idx[..fr.npiv].iter().zip(local.iter()) {
                y[g] = v;
            }
        }
        for (ri, &new) in rhs.iter_mut().zip(&self.fill_inv) {
            *ri = y[new] * self.scale[new];
        }
    }
}

/// Where [`partial_factor`] writes the pivots of one front.
struct PivotOutput<'a> {
    /// Workspace of at least `k` flags.
    failed: &'a mut [bool],
    diag: &'a mut [f64],
    off: &'a mut [f64],
    pair: &'a mut [bool],
    /// Workspace of at least `(k + 1) · (PANEL_WIDTH + 1)` values (the panel's `L D`).
    work: &'a mut Vec<f64>,
}

/// Order `m` and number of fully summed columns `k` of a front.
#[derive(Clone, Copy, Debug)]
struct FrontShape {
    m: usize,
    k: usize,
}

/// The pivot tests of one front.
#[derive(Clone, Copy, Debug)]
struct PivotRule {
    /// Threshold `u` of the 1×1 and 2×2 tests.
    threshold: f64,
    /// Eliminate every fully summed column (a root front): when no candidate passes the
    /// tests, the one closest to passing is taken.
    force: bool,
    /// Parallelism of the panel products.
    par: Par,
}

/// A pivot candidate: 1×1 at column `j`, or 2×2 of columns `j` and `r`.
#[derive(Clone, Copy, Debug)]
enum Pivot {
    One(usize),
    Two(usize, usize),
}

/// Symmetric swap of front positions `p < k` and `j < k`: rows of the fully summed columns,
/// whole columns, and the index list.
fn swap_positions(f: &mut [f64], shape: FrontShape, idx: &mut [usize], p: usize, j: usize) {
    if p == j {
        return;
    }
    let m = shape.m;
    for c in 0..shape.k {
        f.swap(c * m + p, c * m + j);
    }
    let (lo, hi) = (p.min(j), p.max(j));
    let (a, b) = f.split_at_mut(hi * m);
    a[lo * m..lo * m + m].swap_with_slice(&mut b[..m]);
    idx.swap(p, j);
}

/// What the pivot tests need of one column `j` (rows `from..m`, the diagonal excluded).
#[derive(Clone, Copy, Debug)]
struct ColumnScan {
    /// The fully summed row (`< k`) with the largest entry, the 2×2 partner.
    partner: Option<usize>,
    /// `|f(partner, j)|` (0 without a partner).
    partner_abs: f64,
    /// Largest `|f(i, j)|` over the rows other than `partner`.
    max_without_partner: f64,
}

/// One pass over column `j` of the front from row `from`.
fn scan_column(f: &[f64], shape: FrontShape, from: usize, j: usize) -> ColumnScan {
    let FrontShape { m, k } = shape;
    let col = &f[j * m..j * m + m];
    let (mut best, mut best_at, mut second) = (0.0f64, None, 0.0f64);
    for (i, &v) in col[..k].iter().enumerate().skip(from) {
        let a = v.abs();
        if i == j {
            continue;
        }
        if a > best {
            second = best;
            best = a;
            best_at = Some(i);
        } else if a > second {
            second = a;
        }
    }
    let rest = abs_max(&col[k.max(from)..]);
    ColumnScan {
        partner: best_at,
        partner_abs: best,
        max_without_partner: second.max(rest),
    }
}

/// Largest `|v_i|` (0 for an empty slice; NaN entries are ignored, as by `f64::max`), in
/// four independent lanes so that it vectorizes. Every maximum is one comparison
/// (`f64::max`'s NaN handling costs a dependent chain of several instructions per entry).
fn abs_max(v: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let chunks = v.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = larger(*a, x.abs());
        }
    }
    let lanes = larger(larger(acc[0], acc[1]), larger(acc[2], acc[3]));
    rest.iter().fold(lanes, |m, &x| larger(m, x.abs()))
}

/// The larger of `a` and `x` in one comparison: `x` when `x > a`, else `a` (so a NaN `x`
/// is ignored, as by `f64::max`; unlike it, a NaN `a` is kept).
#[inline(always)]
fn larger(a: f64, x: f64) -> f64 {
    if x > a { x } else { a }
}

/// `Σ a_i b_i` of two slices of equal length, in four independent lanes (a sequential
/// sum waits on each addition's latency and does not vectorize).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((s, &xa), &yb) in acc.iter_mut().zip(x).zip(y) {
            *s += xa * yb;
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Largest `|f(i, c)|` over rows `i` in `from..m` other than `c` and `skip` (both at or
/// after `from`, distinct): [`abs_max`] of the three runs between them.
fn max_excluding(f: &[f64], m: usize, from: usize, c: usize, skip: usize) -> f64 {
    debug_assert!(c >= from && skip >= from && c != skip);
    let col = &f[c * m..c * m + m];
    let (lo, hi) = (c.min(skip), c.max(skip));
    abs_max(&col[from..lo])
        .max(abs_max(&col[lo + 1..hi]))
        .max(abs_max(&col[hi + 1..]))
}

/// The blocked partial elimination of one front's fully summed columns (`sytrf`-style).
///
/// The fully summed positions `0..k` are split into: `0..p` eliminated; the **panel**
/// `p..pe`, columns that are candidates of the pivot search and kept up to date (every
/// pivot updates them, right-looking); and `pe..k`, columns not yet looked at, which miss
/// the updates of the pivots `p0..p` (the pivots since the last [`Self::flush`]). A column
/// enters the panel when the search reaches it ([`Self::bring_in`]: one matrix–vector
/// product with those pivots); after [`PANEL_WIDTH`] pivots the columns `pe..k` receive
/// them as one matrix product. The contribution block (positions `k..m`) receives all
/// pivots at the end, in [`MultifrontalLdlt::factor_front`].
struct Elimination<'a> {
    /// The dense front (`m × m`, column-major).
    f: &'a mut [f64],
    shape: FrontShape,
    /// The front's global indices, permuted with the pivots.
    idx: &'a mut [usize],
    out: PivotOutput<'a>,
    rule: PivotRule,
    /// First pivot not yet applied to the columns `pe..k`.
    p0: usize,
    /// Number of pivots so far (the next pivot's position).
    p: usize,
    /// End of the panel.
    pe: usize,
}

impl Elimination<'_> {
    /// Row `c` of `D Lᵀ` restricted to the pivots `p0..p` (`dst[q − p0]`, `q` in `p0..p`):
    /// the weights of the pivots' updates of column `c`.
    fn dl_row(&self, c: usize, dst: &mut [f64]) {
        let m = self.shape.m;
        let mut q = self.p0;
        while q < self.p {
            let l1 = self.f[q * m + c];
            if self.out.pair[q] {
                let l2 = self.f[(q + 1) * m + c];
                let (a, b, d) = (self.out.diag[q], self.out.off[q], self.out.diag[q + 1]);
                dst[q - self.p0] = a * l1 + b * l2;
                dst[q + 1 - self.p0] = b * l1 + d * l2;
                q += 2;
            } else {
                dst[q - self.p0] = self.out.diag[q] * l1;
                q += 1;
            }
        }
    }

    /// Moves the not yet looked-at column `c ≥ pe` to position `pe`, brings it up to date
    /// (rows `p..m`) with the pivots `p0..p`, and makes it part of the panel. Returns its
    /// new position.
    fn bring_in(&mut self, c: usize) -> usize {
        let (t, p, p0, m) = (self.pe, self.p, self.p0, self.shape.m);
        swap_positions(self.f, self.shape, self.idx, t, c);
        self.out.failed[t] = false;
        self.pe += 1;
        let np = p - p0;
        if np == 0 {
            return t;
        }
        let mut w = std::mem::take(self.out.work);
        self.dl_row(t, &mut w[..np]);
        let (left, right) = self.f.split_at_mut(t * m);
        let col = &mut right[p..m];
        if np * (m - p) <= SMALL_PRODUCT {
            for (q, &wq) in w[..np].iter().enumerate() {
                if wq != 0.0 {
                    let lq = &left[(p0 + q) * m + p..(p0 + q + 1) * m];
                    for (ci, &li) in col.iter_mut().zip(lq) {
                        *ci -= wq * li;
                    }
                }
            }
        } else {
            let l = MatRef::from_column_major_slice_with_stride(&left[p0 * m + p..], m - p, np, m);
            matmul(
                MatMut::from_column_major_slice_mut(col, m - p, 1),
                Accum::Add,
                l,
                MatRef::from_column_major_slice(&w[..np], np, 1),
                -1.0,
                Par::Seq,
            );
        }
        *self.out.work = w;
        t
    }

    /// Applies the pivots `p0..p` to the columns `pe..k` (rows `p..m`): one matrix product.
    fn flush(&mut self) {
        let (p, p0, pe, m, k) = (self.p, self.p0, self.pe, self.shape.m, self.shape.k);
        let (np, nc) = (p - p0, k - pe);
        self.p0 = p;
        if np == 0 || nc == 0 {
            return;
        }
        // W = rows pe..k of L D (nc × np, column-major).
        let mut w = std::mem::take(self.out.work);
        let mut q = p0;
        while q < p {
            let l1 = &self.f[q * m + pe..q * m + k];
            let w1 = (q - p0) * nc;
            if self.out.pair[q] {
                let l2 = &self.f[(q + 1) * m + pe..(q + 1) * m + k];
                let (a, b, d) = (self.out.diag[q], self.out.off[q], self.out.diag[q + 1]);
                let (c1, c2) = w[w1..w1 + 2 * nc].split_at_mut(nc);
                for i in 0..nc {
                    c1[i] = a * l1[i] + b * l2[i];
                    c2[i] = b * l1[i] + d * l2[i];
                }
                q += 2;
            } else {
                let d = self.out.diag[q];
                for (wi, &li) in w[w1..w1 + nc].iter_mut().zip(l1) {
                    *wi = d * li;
                }
                q += 1;
            }
        }
        let (left, right) = self.f.split_at_mut(pe * m);
        if (m - p) * nc * np <= SMALL_UPDATE {
            for c in 0..nc {
                let col = &mut right[c * m + p..(c + 1) * m];
                for q in 0..np {
                    let wq = w[q * nc + c];
                    if wq != 0.0 {
                        let lq = &left[(p0 + q) * m + p..(p0 + q + 1) * m];
                        for (x, &l) in col.iter_mut().zip(lq) {
                            *x -= wq * l;
                        }
                    }
                }
            }
            *self.out.work = w;
            return;
        }
        matmul(
            MatMut::from_column_major_slice_with_stride_mut(&mut right[p..], m - p, nc, m),
            Accum::Add,
            MatRef::from_column_major_slice_with_stride(&left[p0 * m + p..], m - p, np, m),
            MatRef::from_column_major_slice(&w[..nc * np], nc, np).transpose(),
            -1.0,
            self.rule.par,
        );
        *self.out.work = w;
    }

    /// Tests the panel column `j` at the current step: `Ok(pivot)` when a 1×1 or 2×2
    /// pivot with it passes the threshold `u` (or it is a zero column), else
    /// `Err((ratio, pivot))`, its best candidate and how close it came (`|d| / max`, or the
    /// Duff–Reid ratio). A 2×2 partner outside the panel is brought into it.
    fn test(&mut self, j: usize) -> Result<Pivot, (f64, Pivot)> {
        let (m, p, u) = (self.shape.m, self.p, self.rule.threshold);
        let d = self.f[j * m + j];
        // The common case first: a diagonal pivot that passes needs only the column's
        // largest off-diagonal entry (a branch-free pass); the 2×2 partner is searched
        // only when it fails.
        // A zero diagonal (a KKT constraint) fails the 1×1 test: its column is scanned
        // for the 2×2 partner at once (the same maximum, one pass fewer).
        let col = &self.f[j * m..(j + 1) * m];
        let (max, scan) = if d == 0.0 {
            let scan = scan_column(self.f, self.shape, p, j);
            (scan.partner_abs.max(scan.max_without_partner), Some(scan))
        } else {
            (abs_max(&col[p..j]).max(abs_max(&col[j + 1..])), None)
        };
        if max == 0.0 {
            // A zero column: d itself (a zero pivot when d == 0, which is exact).
            return Ok(Pivot::One(j));
        }
        // |d| / max ≥ u without the division on the common path.
        if d != 0.0 && d.abs() >= u * max {
            return Ok(Pivot::One(j));
        }
        let ratio1 = d.abs() / max;
        let scan = scan.unwrap_or_else(|| scan_column(self.f, self.shape, p, j));
        let one = (ratio1, Pivot::One(j));
        let Some(r) = scan.partner else {
            return Err(one);
        };
        let r = if r >= self.pe { self.bring_in(r) } else { r };
        let f = &*self.f;
        let (a, b, c) = (d, f[j * m + r], f[r * m + r]);
        let det = a * c - b * b;
        if det == 0.0 || !det.is_finite() {
            return Err(one);
        }
        let gj = scan.max_without_partner;
        let gr = max_excluding(f, m, p, r, j);
        let worst = (c.abs() * gj + b.abs() * gr).max(b.abs() * gj + a.abs() * gr);
        let ratio2 = if worst == 0.0 {
            f64::INFINITY
        } else {
            det.abs() / worst
        };
        if ratio2 >= u {
            Ok(Pivot::Two(j, r))
        } else if ratio2 > ratio1 {
            Err((ratio2, Pivot::Two(j, r)))
        } else {
            Err(one)
        }
    }

    /// The pivot search: the first candidate passing the threshold, else (at a root) the
    /// best one, else `None` (the remaining columns are delayed). The panel's columns
    /// that failed and have not changed since are skipped, then the columns after the
    /// panel are brought in one by one; when that finds nothing, every column is tested
    /// again before giving up.
    fn search(&mut self) -> Option<Pivot> {
        let k = self.shape.k;
        let mut full = false;
        loop {
            let mut best: Option<(f64, Pivot)> = None;
            let mut chosen = None;
            let mut skipped = false;
            let mut j = self.p;
            loop {
                if j == self.pe {
                    if j == k {
                        break;
                    }
                    self.bring_in(j);
                }
                if self.out.failed[j] && !full {
                    skipped = true;
                    j += 1;
                    continue;
                }
                match self.test(j) {
                    Ok(pv) => {
                        chosen = Some(pv);
                        break;
                    }
                    Err((ratio, pv)) => {
                        self.out.failed[j] = true;
                        if best.is_none_or(|(b, _)| ratio > b) {
                            best = Some((ratio, pv));
                        }
                    }
                }
                j += 1;
            }
            if chosen.is_some() || !skipped {
                return match (chosen, self.rule.force, best) {
                    (Some(pv), _, _) => Some(pv),
                    (None, true, Some((_, pv))) => Some(pv),
                    (None, true, None) => Some(Pivot::One(self.p)),
                    (None, false, _) => None,
                };
            }
            full = true;
        }
    }

    /// Eliminates the 1×1 pivot at panel position `j`: moved to position `p`, its column
    /// scaled into `L`, the rest of the panel updated.
    fn eliminate_one(&mut self, j: usize) {
        let (p, pe, m) = (self.p, self.pe, self.shape.m);
        swap_positions(self.f, self.shape, self.idx, p, j);
        self.out.failed.swap(p, j);
        let d = self.f[p * m + p];
        self.out.diag[p] = d;
        self.out.off[p] = 0.0;
        self.out.pair[p] = false;
        let (done, rest) = self.f.split_at_mut((p + 1) * m);
        let w = &mut done[p * m..];
        if d == 0.0 {
            w[p + 1..].fill(0.0);
        } else {
            for j2 in p + 1..pe {
                let wj = w[j2];
                if wj != 0.0 {
                    self.out.failed[j2] = false;
                    let x = wj / d;
                    let col = &mut rest[(j2 - p - 1) * m..(j2 - p) * m];
                    for (ci, &wi) in col[p + 1..].iter_mut().zip(&w[p + 1..]) {
                        *ci -= x * wi;
                    }
                }
            }
            let inv = 1.0 / d;
            for v in &mut w[p + 1..] {
                *v *= inv;
            }
        }
        self.p += 1;
    }

    /// Eliminates the 2×2 pivot of panel positions `j` and `r`: moved to positions `p`
    /// and `p + 1`, their columns turned into `L` (`L(p + 1, p) = 0`), the rest of the panel
    /// updated.
    fn eliminate_two(&mut self, j: usize, r: usize) {
        let (p, pe, m) = (self.p, self.pe, self.shape.m);
        swap_positions(self.f, self.shape, self.idx, p, j);
        self.out.failed.swap(p, j);
        let r = if r == p { j } else { r };
        swap_positions(self.f, self.shape, self.idx, p + 1, r);
        self.out.failed.swap(p + 1, r);
        let f = &mut *self.f;
        let (a, b, c) = (f[p * m + p], f[p * m + p + 1], f[(p + 1) * m + p + 1]);
        let det = a * c - b * b;
        self.out.diag[p] = a;
        self.out.off[p] = b;
        self.out.pair[p] = true;
        self.out.diag[p + 1] = c;
        self.out.off[p + 1] = 0.0;
        self.out.pair[p + 1] = false;
        let (done, rest) = f.split_at_mut((p + 2) * m);
        let (w1, w2) = done[p * m..].split_at_mut(m);
        for j2 in p + 2..pe {
            let (v1, v2) = (w1[j2], w2[j2]);
            if v1 == 0.0 && v2 == 0.0 {
                continue;
            }
            self.out.failed[j2] = false;
            let x1 = (c * v1 - b * v2) / det;
            let x2 = (a * v2 - b * v1) / det;
            let col = &mut rest[(j2 - p - 2) * m..(j2 - p - 1) * m];
            for ((ci, &a1), &a2) in col[p + 2..].iter_mut().zip(&w1[p + 2..]).zip(&w2[p + 2..]) {
                *ci -= x1 * a1 + x2 * a2;
            }
        }
        for i in p + 2..m {
            let (v1, v2) = (w1[i], w2[i]);
            w1[i] = (c * v1 - b * v2) / det;
            w2[i] = (a * v2 - b * v1) / det;
        }
        w1[p + 1] = 0.0;
        self.p += 2;
    }
}

/// Partial `LDLᵀ` with threshold pivoting of the `k` fully summed columns of the dense
/// front `f` (`m × m`, column-major; the fully summed columns hold all `m` rows, the rest
/// its lower triangle) with the pivot tests of `rule`, blocked by panels of
/// [`PANEL_WIDTH`] pivots ([`Elimination`]). Returns the number of pivots; the columns
/// after them (up to `k`) are delayed. On return the pivot columns hold `L` (unit diagonal
/// implied, `L(q + 1, q) = 0` for a 2×2 block), the delayed columns are up to date, and
/// `idx` holds the front's indices in pivot order.
#[inline(never)]
fn partial_factor(
    f: &mut [f64],
    shape: FrontShape,
    idx: &mut [usize],
    rule: PivotRule,
    out: PivotOutput<'_>,
) -> usize {
    out.failed[..shape.k].fill(false);
    let mut e = Elimination {
        f,
        shape,
        idx,
        out,
        rule,
        p0: 0,
        p: 0,
        pe: 0,
    };
    while e.p < shape.k {
        if e.p - e.p0 >= PANEL_WIDTH {
            e.flush();
        }
        match e.search() {
            Some(Pivot::One(j)) => e.eliminate_one(j),
            Some(Pivot::Two(j, r)) => e.eliminate_two(j, r),
            None => break,
        }
    }
    // The search reaches every column before it gives up: nothing is left stale.
    e.flush();
    e.p
}

/// Thresholds of the relaxed amalgamation of a child supernode whose columns are **not**
/// contiguous with its parent's (see [`MultifrontalLdlt::set_amalgamation`]); the child
/// that ends where its parent begins (a chain of the elimination tree) is merged by the
/// [`RELAX_ALWAYS`] / [`RELAX_ZERO_FRACTION`] rule.
///
/// The default merges such a child only when that stores no explicit zero: on the PEGASE
/// KKT matrices (case2869_pegase, case8387_pegase) looser thresholds give fewer fronts
/// (`always_columns = 16`: 15 317 → 9 856 on case2869) but mostly more delayed pivots
/// (3 268 → 4 213) and slower factorizations (about 1.3–1.5×); on the GOC ones they cut
/// the delays by 2–3× at about the same time (`bench-suites/README.md`, session 20).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Amalgamation {
    /// Such a child is always merged while the merged front has at most this many columns.
    pub always_columns: usize,
    /// Beyond `always_columns`, a merge is kept while the explicit zeros of the merged
    /// front are at most this fraction (in `[0, 1]`) of its entries.
    pub zero_fraction: f64,
}

impl Default for Amalgamation {
    fn default() -> Self {
        Self {
            always_columns: 0,
            zero_fraction: 0.0,
        }
    }
}

/// The columns of each front after amalgamation, in a new elimination order.
struct Amalgamated {
    /// `perm[new] = old`: the columns of each front made contiguous, fronts in a postorder
    /// of the amalgamated tree, each front's columns in their old (topological) order.
    perm: Vec<usize>,
    /// Front `s` owns the new columns `begin[s]..begin[s + 1]`.
    begin: Vec<usize>,
}

/// Fundamental supernodes of a postordered etree `parent` with column counts `counts`,
/// then relaxed amalgamation: a supernode (with the children already merged into it) is
/// merged into its parent supernode when the merged front stays within the chain rule
/// ([`RELAX_ALWAYS`] / [`RELAX_ZERO_FRACTION`]) for the child whose columns end where the
/// parent's begin, within `relax` for the others. The amalgamated tree's fronts are renumbered in
/// postorder so that each front's columns are contiguous; the new order is still a
/// topological order of the etree (children before parents), so the fill is unchanged.
fn amalgamate(n: usize, parent: &[usize], counts: &[usize], relax: Amalgamation) -> Amalgamated {
    let mut n_child_col = vec![0usize; n];
    for &p in parent {
        if p != NONE {
            n_child_col[p] += 1;
        }
    }
    // Fundamental supernodes: j joins j − 1 when it is j − 1's parent and only child, and
    // their columns nest (count[j − 1] = count[j] + 1).
    let mut begin = Vec::new();
    for j in 0..n {
        let joins =
            j > 0 && parent[j - 1] == j && n_child_col[j] == 1 && counts[j - 1] == counts[j] + 1;
        if !joins {
            begin.push(j);
        }
    }
    begin.push(n);
    let nsn = begin.len() - 1;
    let mut col_sn = vec![0usize; n];
    for s in 0..nsn {
        col_sn[begin[s]..begin[s + 1]].fill(s);
    }
    // The supernodal tree (a postorder: children before parents), children listed per
    // parent.
    let sn_parent: Vec<usize> = (0..nsn)
        .map(|s| match parent[begin[s + 1] - 1] {
            NONE => NONE,
            p => col_sn[p],
        })
        .collect();
    let mut kids_ptr = vec![0usize; nsn + 1];
    for &p in &sn_parent {
        if p != NONE {
            kids_ptr[p + 1] += 1;
        }
    }
    for s in 0..nsn {
        kids_ptr[s + 1] += kids_ptr[s];
    }
    let mut kids = vec![0usize; kids_ptr[nsn]];
    let mut fill = kids_ptr[..nsn].to_vec();
    for (s, &p) in sn_parent.iter().enumerate() {
        if p != NONE {
            kids[fill[p]] = s;
            fill[p] += 1;
        }
    }
    // Per supernode: columns (its own and those merged into it), rows below its last
    // column, explicit zeros stored by the merges so far.
    let mut width: Vec<f64> = (0..nsn).map(|s| (begin[s + 1] - begin[s]) as f64).collect();
    let below: Vec<f64> = (0..nsn)
        .map(|s| (counts[begin[s + 1] - 1] - 1) as f64)
        .collect();
    let mut zeros = vec![0f64; nsn];
    let mut merged_into = vec![NONE; nsn];
    // Parents after their children: every child is final when its parent is visited.
    // First the child whose columns end where the parent's begin (the last one in the
    // postorder: a chain of the etree) with the [`RELAX_ALWAYS`] / [`RELAX_ZERO_FRACTION`]
    // rule, then the other children with `relax`, those whose rows cover most of the
    // parent's (fewest new zeros) first.
    for p in 0..nsn {
        let children = &mut kids[kids_ptr[p]..kids_ptr[p + 1]];
        let Some((&mut chain, others)) = children.split_last_mut() else {
            continue;
        };
        others.sort_unstable_by(|&a, &b| below[b].total_cmp(&below[a]));
        let contiguous = Amalgamation {
            always_columns: RELAX_ALWAYS,
            zero_fraction: RELAX_ZERO_FRACTION,
        };
        for (c, rule) in
            std::iter::once((chain, contiguous)).chain(others.iter().map(|&c| (c, relax)))
        {
            // A child's rows lie in the parent's columns and rows: merging stores zeros
            // in its columns for the parent's columns and rows it lacks.
            let extra = width[c] * (width[p] + below[p] - below[c]) + zeros[c] + zeros[p];
            let w = width[c] + width[p];
            let total = w * (w + 1.0) / 2.0 + w * below[p];
            if w <= rule.always_columns as f64 || extra <= rule.zero_fraction * total {
                merged_into[c] = p;
                width[p] = w;
                zeros[p] = extra;
            }
        }
    }
    // Fronts: the supernodes not merged, numbered in increasing order (a postorder of the
    // amalgamated tree: a front's subtree is a contiguous range of supernodes ending at
    // it). Merged supernodes belong to their parent's front (visited first, from the top).
    let mut front_of = vec![NONE; nsn];
    let mut nf = 0;
    for s in 0..nsn {
        if merged_into[s] == NONE {
            front_of[s] = nf;
            nf += 1;
        }
    }
    for s in (0..nsn).rev() {
        if merged_into[s] != NONE {
            front_of[s] = front_of[merged_into[s]];
        }
    }
    let mut fr_begin = vec![0usize; nf + 1];
    for s in 0..nsn {
        fr_begin[front_of[s] + 1] += begin[s + 1] - begin[s];
    }
    for f in 0..nf {
        fr_begin[f + 1] += fr_begin[f];
    }
    let mut at = fr_begin[..nf].to_vec();
    let mut perm = vec![0usize; n];
    for s in 0..nsn {
        let f = front_of[s];
        for j in begin[s]..begin[s + 1] {
            perm[at[f]] = j;
            at[f] += 1;
        }
    }
    Amalgamated {
        perm,
        begin: fr_begin,
    }
}

/// Row patterns of the fronts owning the columns `fr_begin[s]..fr_begin[s + 1]` (contiguous,
/// in a topological order of the etree) of the lower-triangle pattern (`a_ptr`, `a_idx`),
/// and the assembly tree.
fn build_fronts(n: usize, a_ptr: &[usize], a_idx: &[usize], fr_begin: Vec<usize>) -> Fronts {
    let nf = fr_begin.len() - 1;
    let mut col_sn = vec![0usize; n];
    for s in 0..nf {
        col_sn[fr_begin[s]..fr_begin[s + 1]].fill(s);
    }
    // Row patterns (children first), assembly-tree parents.
    let mut mark = vec![NONE; n];
    let mut rows_ptr = vec![0usize];
    let mut rows: Vec<usize> = Vec::new();
    let mut fr_parent = vec![NONE; nf];
    let mut head = vec![NONE; nf];
    let mut next = vec![NONE; nf];
    for s in 0..nf {
        let (c0, c1) = (fr_begin[s], fr_begin[s + 1]);
        let start = rows.len();
        for j in c0..c1 {
            for &i in &a_idx[a_ptr[j]..a_ptr[j + 1]] {
                if i >= c1 && mark[i] != s {
                    mark[i] = s;
                    rows.push(i);
                }
            }
        }
        let mut child = head[s];
        while child != NONE {
            for t in rows_ptr[child]..rows_ptr[child + 1] {
                let i = rows[t];
                if i >= c1 && mark[i] != s {
                    mark[i] = s;
                    rows.push(i);
                }
            }
            child = next[child];
        }
        rows[start..].sort_unstable();
        rows_ptr.push(rows.len());
        if let Some(&r) = rows.get(start) {
            let p = col_sn[r];
            fr_parent[s] = p;
            next[s] = head[p];
            head[p] = s;
        }
    }
    // Postorder of the assembly tree (children in increasing order).
    let mut n_children = vec![0usize; nf];
    for &p in &fr_parent {
        if p != NONE {
            n_children[p] += 1;
        }
    }
    let mut kids_ptr = vec![0usize; nf + 1];
    for s in 0..nf {
        kids_ptr[s + 1] = kids_ptr[s] + n_children[s];
    }
    let mut kids = vec![0usize; kids_ptr[nf]];
    let mut fill = kids_ptr[..nf].to_vec();
    for (s, &p) in fr_parent.iter().enumerate() {
        if p != NONE {
            kids[fill[p]] = s;
            fill[p] += 1;
        }
    }
    let mut order = Vec::with_capacity(nf);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in (0..nf).filter(|&s| fr_parent[s] == NONE) {
        stack.push((root, kids_ptr[root]));
        while let Some(top) = stack.last_mut() {
            let (s, at) = *top;
            if at < kids_ptr[s + 1] {
                top.1 += 1;
                stack.push((kids[at], kids_ptr[kids[at]]));
            } else {
                stack.pop();
                order.push(s);
            }
        }
    }
    // Positions without delays: of each entry's row in its column's front, of each front's
    // rows in its parent (children are numbered before their parent, so `local` holds the
    // parent's positions when its children are visited).
    let mut local = vec![NONE; n];
    let mut a_rel = vec![NONE; a_idx.len()];
    let mut parent_rel = vec![NONE; rows.len()];
    for s in 0..nf {
        let (c0, c1) = (fr_begin[s], fr_begin[s + 1]);
        for (rel, at) in local[c0..c1].iter_mut().enumerate() {
            *at = rel;
        }
        for (t, &i) in rows[rows_ptr[s]..rows_ptr[s + 1]].iter().enumerate() {
            local[i] = c1 - c0 + t;
        }
        for j in c0..c1 {
            for e in a_ptr[j]..a_ptr[j + 1] {
                a_rel[e] = local[a_idx[e]];
            }
        }
        let mut child = head[s];
        while child != NONE {
            for t in rows_ptr[child]..rows_ptr[child + 1] {
                parent_rel[t] = local[rows[t]];
            }
            child = next[child];
        }
    }
    Fronts {
        begin: fr_begin,
        rows_ptr,
        rows,
        n_children,
        is_root: fr_parent.iter().map(|&p| p == NONE).collect(),
        order,
        a_rel,
        parent_rel,
    }
}

impl SymmetricSolver for MultifrontalLdlt {
    fn analyze(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), LinalgError> {
        self.analyze_impl(n, col_ptr, row_idx)
    }

    fn factorize(&mut self, values: &[f64]) -> Result<FactorStatus, LinalgError> {
        self.factorize_impl(values)
    }

    fn solve_in_place(&mut self, rhs: &mut [f64]) -> Result<(), LinalgError> {
        self.solve_many_in_place(rhs, 1)
    }

    fn solve_many_in_place(&mut self, rhs: &mut [f64], nrhs: usize) -> Result<(), LinalgError> {
        if !self.factored {
            return Err(LinalgError::InvalidState(
                "solve called without a successful factorization".into(),
            ));
        }
        check_len("solve rhs (n * nrhs)", self.n * nrhs, rhs.len())?;
        if self.n == 0 {
            return Ok(());
        }
        for col in rhs.chunks_exact_mut(self.n) {
            self.solve_one(col);
        }
        Ok(())
    }

    fn provides_inertia(&self) -> bool {
        true
    }

    fn inertia(&self) -> Option<Inertia> {
        self.inertia
    }

    fn delayed_pivots(&self) -> usize {
        self.delayed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random sparse symmetric pattern (lower CSC, diagonal included) from a simple
    /// linear congruential generator: `extra` off-diagonal entries per column.
    fn random_pattern(n: usize, extra: usize, seed: u64) -> (Vec<usize>, Vec<usize>) {
        let mut state = seed;
        let mut next = move |bound: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % bound
        };
        let mut cols: Vec<Vec<usize>> = (0..n).map(|j| vec![j]).collect();
        for j in 0..n {
            for _ in 0..extra {
                let i = next(n);
                let (i, j) = (i.max(j), i.min(j));
                cols[j].push(i);
            }
        }
        let mut ptr = vec![0];
        let mut idx = Vec::new();
        for col in &mut cols {
            col.sort_unstable();
            col.dedup();
            idx.extend_from_slice(col);
            ptr.push(idx.len());
        }
        (ptr, idx)
    }

    /// The positions precomputed at analysis (`a_rel`, `parent_rel`) against those of a
    /// global map built per front on the fly (the front's index list without delays: own
    /// columns, then the row pattern), for several patterns and amalgamation settings.
    #[test]
    fn precomputed_positions_match_a_global_map() {
        for (seed, n, extra) in [(1u64, 60usize, 2usize), (2, 300, 3), (3, 500, 1)] {
            let (ptr, idx) = random_pattern(n, extra, seed);
            for relax in [
                Amalgamation::default(),
                Amalgamation {
                    always_columns: 8,
                    zero_fraction: 0.2,
                },
            ] {
                let mut s = MultifrontalLdlt::new();
                s.set_amalgamation(relax).unwrap();
                s.analyze(n, &ptr, &idx).unwrap();
                let fr = &s.fronts;
                let nf = fr.begin.len() - 1;
                let mut pos = vec![NONE; n];
                let mut parent = vec![NONE; nf];
                let mut checked_rows = 0;
                for f in 0..nf {
                    let (c0, c1) = (fr.begin[f], fr.begin[f + 1]);
                    let rows = &fr.rows[fr.rows_ptr[f]..fr.rows_ptr[f + 1]];
                    for (p, g) in (c0..c1).chain(rows.iter().copied()).enumerate() {
                        pos[g] = p;
                    }
                    for j in c0..c1 {
                        for e in s.a_ptr[j]..s.a_ptr[j + 1] {
                            assert_eq!(fr.a_rel[e], pos[s.a_idx[e]], "entry {e}");
                            assert!(fr.a_rel[e] >= j - c0, "entry {e} above its column");
                        }
                    }
                    // Each child (whose first row lies in this front) against this map.
                    for (c, parent_of_c) in parent[..f].iter_mut().enumerate() {
                        let child_rows = &fr.rows[fr.rows_ptr[c]..fr.rows_ptr[c + 1]];
                        if child_rows.first().is_some_and(|&r| (c0..c1).contains(&r)) {
                            *parent_of_c = f;
                            for (t, &g) in child_rows.iter().enumerate() {
                                assert_eq!(fr.parent_rel[fr.rows_ptr[c] + t], pos[g]);
                                checked_rows += 1;
                            }
                        }
                    }
                }
                // Every front's rows were checked against its parent, and the roots are
                // the fronts without rows.
                for (f, &parent_of_f) in parent.iter().enumerate() {
                    let has_rows = fr.rows_ptr[f + 1] > fr.rows_ptr[f];
                    assert_eq!(parent_of_f != NONE, has_rows, "front {f}");
                    assert_eq!(fr.is_root[f], !has_rows, "front {f}");
                }
                assert_eq!(checked_rows, fr.rows.len());
                assert!(nf > 1 && checked_rows > 0, "a trivial assembly tree");
            }
        }
    }
}
