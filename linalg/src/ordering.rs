//! Fill-reducing orderings for the faer backends.
//!
//! Two base methods compute a fill-reducing permutation of a symmetric pattern:
//!
//! - [`FillMethod::Amd`] (default): faer's approximate minimum degree.
//! - [`FillMethod::NestedDissection`]: METIS's multilevel nested dissection
//!   (`METIS_NodeND`, METIS 5 built from the sources vendored by the `metis-sys` crate) on
//!   the graph of the off-diagonal pattern. It cuts the fill of 2-D / 3-D grid-like
//!   patterns (PDE discretizations such as COPS `bearing`), where minimum degree is far from
//!   optimal, and gives the supernodal factorization larger dense blocks.
//! - [`FillMethod::Auto`]: AMD first; when its symbolic factorization predicts at least
//!   [`AUTO_MIN_FLOPS_PER_ROW`] flops per row, nested dissection too, kept when it predicts
//!   at most [`AUTO_MAX_FLOP_RATIO`] of AMD's flops. The analysis then costs one METIS call
//!   and a second symbolic factorization, which the faer backends can run on a background
//!   thread beside their first [`AUTO_DEFERRED_FACTORIZATIONS`] factorizations (on AMD).
//!
//! [`FillOrdering::Amd`], [`FillOrdering::NestedDissection`] and [`FillOrdering::Auto`]
//! apply a method to the whole pattern. For KKT matrices `[[H, Jᵀ], [J, −δc I]]` with
//! `δc = 0` such an ordering can eliminate a constraint row before any of its variables —
//! an exact zero pivot for LDLᵀ without pivoting, and for intranode LBLᵀ too when the
//! constraint sits alone in its supernode.
//!
//! Two KKT-aware orderings avoid that structurally. Both first match every constraint row
//! `c >= n_primal` to a distinct variable `v < n_primal` it touches (maximum bipartite
//! matching on the pattern of `J`: a cheap-assignment pass, then MC21-style depth-first
//! augmenting paths), and then guarantee that every constraint is eliminated **after** its
//! matched variable:
//!
//! - [`FillOrdering::KktMatched`] (recommended) and [`FillOrdering::KktMatchedWith`]: the
//!   base method (AMD, or the one named) on the whole pattern; the matching prefers, for
//!   each constraint, the neighbour the base ordering eliminates first; a constraint that
//!   the base ordering placed before its matched variable is delayed to right after it. The
//!   fill is essentially the base ordering's (measured: within 1% of AMD's on 2D-grid KKT
//!   systems).
//! - [`FillOrdering::KktPaired`]: each matched pair `(v, c)` is compressed into one node, AMD
//!   runs on the compressed graph and each pair is eliminated as `v` immediately followed by
//!   `c` (the approach of compressed orderings for augmented systems). More fill (measured
//!   1.4–2× AMD's), but the pair is adjacent, which lets LBLᵀ pivot on the 2×2 block when
//!   the pair shares a supernode.
//!
//! Why this works: every leading block of the reordered matrix has its constraints matched
//! to distinct earlier variables, so with `H + Σx` positive definite and `J` of full rank
//! generically, every leading block is nonsingular and every LDLᵀ pivot is nonzero
//! (variables positive, constraints negative). The guarantee is structural: a tiny matched
//! entry of `J` gives a tiny pivot and some element growth (use iterative refinement).
//! Constraints that cannot be matched (structurally rank-deficient `J`) are left where the
//! base ordering puts them. A variable with a zero diagonal in `H + Σx` can still give a
//! zero pivot, unless it is declared (`FaerLdlt::set_zero_diagonal`): then
//! [`kkt_zero_diagonal_reorder`] places it after a constraint that gives it a nonzero pivot
//! where it can at a bounded cost in fill (else regularize).

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::SymbolicSparseColMatRef;
use faer::sparse::linalg::amd;

use metis_sys::idx_t;

use crate::LinalgError;
use crate::sparse::{check_csc, csc_map_from_coo};

/// A base fill-reducing method (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FillMethod {
    /// faer's approximate minimum degree (the default).
    #[default]
    Amd,
    /// METIS nested dissection (`METIS_NodeND`).
    NestedDissection,
    /// AMD, or nested dissection when AMD's factorization is expensive and nested
    /// dissection predicts clearly fewer flops ([`AUTO_MIN_FLOPS_PER_ROW`],
    /// [`AUTO_MAX_FLOP_RATIO`]).
    Auto,
}

/// Which fill-reducing ordering the faer backends compute at analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FillOrdering {
    /// faer's AMD on the whole pattern (the default).
    #[default]
    Amd,
    /// METIS nested dissection on the whole pattern.
    NestedDissection,
    /// AMD or nested dissection on the whole pattern, chosen by the predicted
    /// factorization flops ([`FillMethod::Auto`]).
    Auto,
    /// AMD, then every constraint delayed to after its matched variable (see the module
    /// docs). Indices `0..n_primal` are variables, `n_primal..n` constraints. The same as
    /// [`FillOrdering::KktMatchedWith`] with [`FillMethod::Amd`].
    KktMatched {
        /// Number of primal variables (leading block size).
        n_primal: usize,
    },
    /// [`FillOrdering::KktMatched`] on top of the given base method: the base ordering of
    /// the whole pattern, then every constraint delayed to after its matched variable.
    /// With [`FillMethod::Auto`] the base is chosen by the predicted flops of both matched
    /// orderings (see [`FillMethod::Auto`]).
    KktMatchedWith {
        /// Number of primal variables (leading block size).
        n_primal: usize,
        /// Base fill-reducing method.
        method: FillMethod,
    },
    /// AMD on the graph where each constraint is merged with its matched variable; each pair
    /// is eliminated as variable then constraint (see the module docs).
    KktPaired {
        /// Number of primal variables (leading block size).
        n_primal: usize,
    },
}

impl FillOrdering {
    /// The ordering that applies `method` to the whole pattern.
    pub fn of_method(method: FillMethod) -> Self {
        match method {
            FillMethod::Amd => FillOrdering::Amd,
            FillMethod::NestedDissection => FillOrdering::NestedDissection,
            FillMethod::Auto => FillOrdering::Auto,
        }
    }

    /// The KKT-matched ordering ([`FillOrdering::KktMatchedWith`]) on top of `method`.
    pub fn kkt_matched(n_primal: usize, method: FillMethod) -> Self {
        FillOrdering::KktMatchedWith { n_primal, method }
    }
}

/// faer's AMD on a (validated) lower-triangle pattern; returns `(perm, perm_inv)` with
/// `perm[new] = old`.
fn amd_order(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
) -> Result<(Vec<usize>, Vec<usize>), LinalgError> {
    let mut perm = vec![0usize; n];
    let mut perm_inv = vec![0usize; n];
    let pattern = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
    let mut mem = MemBuffer::try_new(amd::order_scratch::<usize>(n, row_idx.len()))
        .map_err(|e| LinalgError::Backend(format!("AMD workspace: {e:?}")))?;
    amd::order(
        &mut perm,
        &mut perm_inv,
        pattern,
        amd::Control::default(),
        MemStack::new(&mut mem),
    )
    .map_err(|e| LinalgError::Backend(format!("AMD ordering: {e:?}")))?;
    Ok((perm, perm_inv))
}

/// faer's approximate minimum degree ordering of an `n × n` symmetric pattern
/// (lower-triangle CSC: sorted row indices, every row `>=` its column, diagonal optional).
/// Returns `perm_fwd` with `perm_fwd[new] = old` (the form cuDSS's `CUDSS_DATA_USER_PERM`
/// takes).
///
/// # Errors
/// [`LinalgError::InvalidPattern`] / [`LinalgError::IndexOutOfRange`] for a malformed
/// pattern; [`LinalgError::Backend`] when faer's AMD fails (out of memory / index overflow).
pub fn amd_ordering(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
) -> Result<Vec<usize>, LinalgError> {
    check_csc("AMD pattern", n, n, col_ptr, row_idx, true)?;
    Ok(amd_order(n, col_ptr, row_idx)?.0)
}

/// Maximum matching of constraints (rows `>= n_primal`) to variables (`< n_primal`) in the
/// lower-triangle pattern. With `priority` (one value per index), constraints are
/// cheap-assigned in increasing priority, each to its free neighbour of smallest priority;
/// without, in index order to the first free neighbour. Returns `mate[c - n_primal]`.
fn match_constraints(
    n: usize,
    n_primal: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    priority: Option<&[usize]>,
) -> Vec<Option<usize>> {
    let m = n - n_primal;
    // Adjacency constraint → variables (from lower-triangle entries (c, v), c >= n_primal > v).
    let mut deg = vec![0usize; m + 1];
    for v in 0..n_primal {
        for &i in &row_idx[col_ptr[v]..col_ptr[v + 1]] {
            if i >= n_primal {
                deg[i - n_primal + 1] += 1;
            }
        }
    }
    for c in 0..m {
        deg[c + 1] += deg[c];
    }
    let adj_ptr = deg;
    let mut adj = vec![0usize; adj_ptr[m]];
    let mut next = adj_ptr.clone();
    for v in 0..n_primal {
        for &i in &row_idx[col_ptr[v]..col_ptr[v + 1]] {
            if i >= n_primal {
                let c = i - n_primal;
                adj[next[c]] = v;
                next[c] += 1;
            }
        }
    }
    let mut mate_c: Vec<Option<usize>> = vec![None; m];
    let mut mate_v: Vec<Option<usize>> = vec![None; n_primal];
    // Cheap assignment pass.
    let mut order: Vec<usize> = (0..m).collect();
    if let Some(p) = priority {
        order.sort_unstable_by_key(|&c| p[n_primal + c]);
    }
    for &c in &order {
        let mut best: Option<usize> = None;
        for &v in &adj[adj_ptr[c]..adj_ptr[c + 1]] {
            if mate_v[v].is_none() {
                match priority {
                    None => {
                        best = Some(v);
                        break;
                    }
                    Some(p) => {
                        if best.is_none_or(|b| p[v] < p[b]) {
                            best = Some(v);
                        }
                    }
                }
            }
        }
        if let Some(v) = best {
            mate_v[v] = Some(c);
            mate_c[c] = Some(v);
        }
    }
    // Augmenting paths (iterative DFS) for the rest.
    let mut visited = vec![usize::MAX; n_primal];
    let mut lookahead = adj_ptr[..m].to_vec();
    let mut stack: Vec<(usize, usize)> = Vec::new(); // (constraint, next adjacency position)
    for root in 0..m {
        if mate_c[root].is_some() {
            continue;
        }
        stack.clear();
        stack.push((root, adj_ptr[root]));
        let mut found: Option<usize> = None;
        'dfs: while let Some(&mut (c, ref mut pos)) = stack.last_mut() {
            // Look-ahead: a free neighbour ends the path.
            while lookahead[c] < adj_ptr[c + 1] {
                let v = adj[lookahead[c]];
                lookahead[c] += 1;
                if mate_v[v].is_none() && visited[v] != root {
                    visited[v] = root;
                    found = Some(v);
                    break 'dfs;
                }
            }
            // Otherwise descend through a matched neighbour not yet visited in this search.
            while *pos < adj_ptr[c + 1] {
                let v = adj[*pos];
                *pos += 1;
                if visited[v] != root {
                    visited[v] = root;
                    if let Some(c2) = mate_v[v] {
                        stack.push((c2, adj_ptr[c2]));
                        continue 'dfs;
                    }
                }
            }
            stack.pop();
        }
        if let Some(mut v) = found {
            // Flip the path: the constraints on the stack, deepest first. Each constraint on
            // the stack reached the next one through the variable at `pos - 1`.
            while let Some((c, _)) = stack.pop() {
                let prev = mate_c[c];
                mate_c[c] = Some(v);
                mate_v[v] = Some(c);
                match prev {
                    Some(p) => v = p,
                    None => break,
                }
            }
        }
    }
    mate_c
}

fn check_n_primal(n: usize, n_primal: usize) -> Result<(), LinalgError> {
    if n_primal > n {
        return Err(LinalgError::InvalidValue {
            what: "KKT ordering n_primal".into(),
            value: n_primal as f64,
            detail: format!("exceeds the matrix dimension {n}"),
        });
    }
    Ok(())
}

/// Computes the [`FillOrdering::KktMatched`] ordering of an `n × n` symmetric pattern
/// (lower-triangle CSC, validated by the caller). Returns `perm_fwd` with
/// `perm_fwd[new] = old`.
///
/// # Errors
/// [`LinalgError::InvalidValue`] when `n_primal > n`; [`LinalgError::Backend`] when faer's
/// AMD fails (out of memory / index overflow).
pub fn kkt_matched_ordering(
    n: usize,
    n_primal: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
) -> Result<Vec<usize>, LinalgError> {
    check_n_primal(n, n_primal)?;
    let (_, pos) = amd_order(n, col_ptr, row_idx)?;
    Ok(kkt_matched_from_positions(
        n, n_primal, col_ptr, row_idx, &pos,
    ))
}

/// The KKT-matched ordering on top of any base ordering `base_fwd` (`base_fwd[new] = old`,
/// e.g. from [`nested_dissection_ordering`]): the matching prefers, for each constraint,
/// the variable `base_fwd` eliminates first, and a constraint placed before its matched
/// variable is delayed to right after it. Returns `perm_fwd` with `perm_fwd[new] = old`.
/// The pattern is lower-triangle CSC, validated by the caller.
///
/// # Errors
/// [`LinalgError::InvalidValue`] when `n_primal > n`; [`LinalgError::LengthMismatch`] when
/// `base_fwd` does not have length `n`; [`LinalgError::InvalidPattern`] when it is not a
/// permutation of `0..n`.
pub fn kkt_matched_ordering_on(
    n: usize,
    n_primal: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    base_fwd: &[usize],
) -> Result<Vec<usize>, LinalgError> {
    check_n_primal(n, n_primal)?;
    let pos = checked_base_ordering(base_fwd, n, "KKT-matched base ordering")?;
    Ok(kkt_matched_from_positions(
        n, n_primal, col_ptr, row_idx, &pos,
    ))
}

/// The KKT-matched ordering given the base elimination position `pos[old]` of every index.
fn kkt_matched_from_positions(
    n: usize,
    n_primal: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    pos: &[usize],
) -> Vec<usize> {
    let mate = match_constraints(n, n_primal, col_ptr, row_idx, Some(pos));
    // The keys are distinct numbers below 2n (even keys because `pos` is a permutation, odd
    // ones because the matching is one-to-one), so placing each index in a slot per key and
    // reading the slots in order sorts them.
    const EMPTY: usize = usize::MAX;
    let mut slot = vec![EMPTY; 2 * n];
    for i in 0..n {
        slot[matched_key(i, n_primal, &mate, pos)] = i;
    }
    slot.retain(|&i| i != EMPTY);
    slot
}

/// The KKT-matched sort key of index `i`: `2·pos[i]`, or `2·pos[mate] + 1` for a constraint
/// the base ordering placed before its matched variable `mate` (so that it follows it).
fn matched_key(i: usize, n_primal: usize, mate: &[Option<usize>], pos: &[usize]) -> usize {
    match i.checked_sub(n_primal).and_then(|c| mate[c]) {
        Some(v) => (2 * pos[i]).max(2 * pos[v] + 1),
        None => 2 * pos[i],
    }
}

/// Largest number of rows one augmenting-path search of [`kkt_zero_diagonal_reorder`]
/// visits before it gives up on the index for now (it is retried when a neighbour joins
/// the eliminated set, and at the end with an unbounded search): keeps the analysis about
/// linear in the pattern size.
const ZERO_DIAGONAL_SEARCH_ROWS: usize = 64;

/// Bound on the rows the final unbounded searches of [`kkt_zero_diagonal_reorder`] visit,
/// per index and adjacency entry of the pattern, before it gives up.
const ZERO_DIAGONAL_FINAL_WORK: usize = 8;

/// The KKT-matched orderings keep [`kkt_zero_diagonal_reorder`]'s ordering only when it
/// predicts at most this multiple of the base ordering's factorization flops: nonzero
/// pivots at `δ_w = 0` save factorizations (the inertia correction's), not worth a
/// factorization several times as expensive. Measured (`kkt_ordering --zero-diagonal`,
/// ratio of predicted flops): COPS chain:20000 2.47, glider:80 2.36, steering:400 3.48
/// (kept); robot:150 22.5 (not kept).
pub const ZERO_DIAGONAL_MAX_FLOP_RATIO: f64 = 4.0;

/// [`kkt_zero_diagonal_reorder`] of `fwd`, kept when it predicts at most
/// [`ZERO_DIAGONAL_MAX_FLOP_RATIO`] of `fwd`'s flops and postordered (see
/// [`etree_postorder`]); `fwd` otherwise.
fn zero_diagonal_placement(
    n: usize,
    n_primal: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    zero_diagonal: &[usize],
    fwd: Vec<usize>,
) -> Result<Vec<usize>, LinalgError> {
    let placed = kkt_zero_diagonal_reorder(n, n_primal, col_ptr, row_idx, zero_diagonal, &fwd)?;
    if placed == fwd {
        return Ok(fwd);
    }
    let (base, new) = (
        ordering_flops(n, col_ptr, row_idx, &fwd),
        ordering_flops(n, col_ptr, row_idx, &placed),
    );
    Ok(if new <= ZERO_DIAGONAL_MAX_FLOP_RATIO * base {
        etree_postorder(n, col_ptr, row_idx, &placed)
    } else {
        fwd
    })
}

/// Reorders a KKT-matched ordering `fwd` (`fwd[new] = old`) of an `n × n` KKT pattern
/// (lower-triangle CSC, validated by the caller; `0..n_primal` variables, the rest
/// constraints at `δc = 0`) so that no LDLᵀ pivot is structurally zero when the variables
/// in `zero_diagonal` have a structurally zero diagonal (no Hessian diagonal entry, no
/// bound: `W_ii + Σ_i = 0` at `δ_w = 0`) and every other variable a nonzero one.
///
/// The pivot of an index is nonzero for generic values exactly when the leading block of
/// the indices eliminated up to it is structurally nonsingular: its bipartite graph (an
/// edge per stored off-diagonal entry, a loop per nonzero diagonal) has a perfect matching.
/// The KKT-matched ordering guarantees that only when every variable has a nonzero
/// diagonal. Here the indices are taken in the order of `fwd`, the matching of the leading
/// block is extended by one augmenting path per index, and an index without one (a
/// zero-diagonal variable none of whose constraints is eliminated yet, or a constraint whose
/// only variables are such) waits until a neighbour joins. A zero-diagonal variable `v`
/// thus follows a constraint `c` whose other variables carry the matching (for the
/// simplest path `u, c, v` with `D_u > 0`: `c`'s pivot is `−J_cu²/D_u < 0` and `v`'s
/// `+J_cv² D_u/J_cu² > 0` when `H_uv = 0`) — every pivot nonzero, the inertia of the matrix
/// read off LDLᵀ at `δ_w = 0`. Each search visits at most `ZERO_DIAGONAL_SEARCH_ROWS` (64)
/// rows; indices still waiting at the end go last, in the order of `fwd`, and when one of
/// them has no path even then (a structurally zero pivot in every order of this kind)
/// `fwd` is returned unchanged, as it is without flagged variables.
///
/// # Errors
/// [`LinalgError::InvalidValue`] when `n_primal > n` or a flagged index is not a variable;
/// [`LinalgError::LengthMismatch`] / [`LinalgError::InvalidPattern`] when `fwd` is not a
/// permutation of `0..n`.
pub fn kkt_zero_diagonal_reorder(
    n: usize,
    n_primal: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    zero_diagonal: &[usize],
    fwd: &[usize],
) -> Result<Vec<usize>, LinalgError> {
    check_n_primal(n, n_primal)?;
    checked_base_ordering(fwd, n, "KKT zero-diagonal base ordering")?;
    let mut self_pivot: Vec<bool> = (0..n).map(|i| i < n_primal).collect();
    for &v in zero_diagonal {
        if v >= n_primal {
            return Err(LinalgError::InvalidValue {
                what: "zero-diagonal variable".into(),
                value: v as f64,
                detail: format!("not a variable index (n_primal = {n_primal})"),
            });
        }
        self_pivot[v] = false;
    }
    if zero_diagonal.is_empty() {
        return Ok(fwd.to_vec());
    }
    let mut prefix = PrefixMatching::new(n, n_primal, col_ptr, row_idx, self_pivot);
    let mut out = Vec::with_capacity(n);
    let mut pending = vec![false; n];
    let mut woken: Vec<usize> = Vec::new();
    for &x in fwd {
        if !prefix.try_add(x, ZERO_DIAGONAL_SEARCH_ROWS) {
            pending[x] = true;
            continue;
        }
        out.push(x);
        // Waiting neighbours of every index that joins get another try.
        woken.push(x);
        while let Some(j) = woken.pop() {
            for k in prefix.adj_ptr[j]..prefix.adj_ptr[j + 1] {
                let y = prefix.adj[k];
                if pending[y] && prefix.try_add(y, ZERO_DIAGONAL_SEARCH_ROWS) {
                    pending[y] = false;
                    out.push(y);
                    woken.push(y);
                }
            }
        }
    }
    // The indices still waiting go last, each with an unbounded search; one without a path
    // would be a zero pivot anyway: then the base ordering, whose fill is lower (and also
    // when these searches visit more than `ZERO_DIAGONAL_FINAL_WORK` rows per entry).
    let work_bound = prefix.visits + ZERO_DIAGONAL_FINAL_WORK * (n + prefix.adj.len());
    for &x in fwd {
        if pending[x] {
            if !prefix.try_add(x, usize::MAX) || prefix.visits > work_bound {
                return Ok(fwd.to_vec());
            }
            out.push(x);
        }
    }
    Ok(out)
}

/// A perfect matching of the bipartite graph of a growing leading block of a KKT pattern
/// (rows and columns the indices eliminated so far; see [`PrefixMatching::new`] for the
/// edges), extended one index at a time by augmenting paths.
struct PrefixMatching {
    /// Symmetric adjacency of the matching graph (CSR; an index with `self_pivot` lists
    /// itself).
    adj_ptr: Vec<usize>,
    adj: Vec<usize>,
    /// The index has a structurally nonzero diagonal.
    self_pivot: Vec<bool>,
    /// The index belongs to the leading block.
    in_prefix: Vec<bool>,
    /// Column matched to each row of the leading block.
    row_mate: Vec<usize>,
    /// Row matched to each column of the leading block.
    col_mate: Vec<usize>,
    /// Search number that last visited each row.
    stamp: Vec<usize>,
    search: usize,
    /// Rows visited by all searches so far (a work measure).
    visits: usize,
    /// Depth-first search stack: (row, next adjacency position).
    stack: Vec<(usize, usize)>,
}

impl PrefixMatching {
    /// The matching graph of a KKT pattern: an edge per entry of `J` (between a variable
    /// `< n_primal` and a constraint), a loop per index with `self_pivot`. Entries of `H`
    /// off the diagonal are left out: a pivot that needs one to be nonzero may vanish with
    /// its value (a bilinear term at a point where it is zero).
    fn new(
        n: usize,
        n_primal: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        self_pivot: Vec<bool>,
    ) -> Self {
        let coupling = |i: usize, j: usize| (i < n_primal) != (j < n_primal);
        let mut adj_ptr = vec![0usize; n + 1];
        for j in 0..n {
            adj_ptr[j + 1] += usize::from(self_pivot[j]);
            for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
                if coupling(i, j) {
                    adj_ptr[i + 1] += 1;
                    adj_ptr[j + 1] += 1;
                }
            }
        }
        for k in 0..n {
            adj_ptr[k + 1] += adj_ptr[k];
        }
        let mut adj = vec![0usize; adj_ptr[n]];
        let mut next = adj_ptr[..n].to_vec();
        for j in 0..n {
            if self_pivot[j] {
                adj[next[j]] = j;
                next[j] += 1;
            }
            for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
                if coupling(i, j) {
                    adj[next[i]] = j;
                    next[i] += 1;
                    adj[next[j]] = i;
                    next[j] += 1;
                }
            }
        }
        Self {
            adj_ptr,
            adj,
            self_pivot,
            in_prefix: vec![false; n],
            row_mate: vec![usize::MAX; n],
            col_mate: vec![usize::MAX; n],
            stamp: vec![0; n],
            search: 0,
            visits: 0,
            stack: Vec::new(),
        }
    }

    /// Adds `x` to the leading block when the matching extends to it (an augmenting path
    /// from row `x` to column `x` through at most `max_rows` rows); returns whether it did.
    fn try_add(&mut self, x: usize, max_rows: usize) -> bool {
        if self.self_pivot[x] {
            self.in_prefix[x] = true;
            self.row_mate[x] = x;
            self.col_mate[x] = x;
            return true;
        }
        self.search += 1;
        let search = self.search;
        self.stamp[x] = search;
        self.stack.clear();
        self.stack.push((x, self.adj_ptr[x]));
        let mut visited = 1usize;
        let mut found = false;
        'dfs: while let Some(&mut (r, ref mut pos)) = self.stack.last_mut() {
            // Look-ahead: a row of the block adjacent to `x` ends the path at column `x`.
            if r != x
                && *pos == self.adj_ptr[r]
                && self.adj[self.adj_ptr[r]..self.adj_ptr[r + 1]].contains(&x)
            {
                found = true;
                break 'dfs;
            }
            while *pos < self.adj_ptr[r + 1] {
                let y = self.adj[*pos];
                *pos += 1;
                if !self.in_prefix[y] {
                    continue;
                }
                let r2 = self.col_mate[y];
                if self.stamp[r2] != search && visited < max_rows {
                    self.stamp[r2] = search;
                    visited += 1;
                    self.visits += 1;
                    self.stack.push((r2, self.adj_ptr[r2]));
                    continue 'dfs;
                }
            }
            self.stack.pop();
        }
        if !found {
            return false;
        }
        // Flip the path: the last row takes column `x`, each earlier row the column through
        // which the search left it (`adj[pos - 1]`).
        self.in_prefix[x] = true;
        let mut col = x;
        while let Some((r, _)) = self.stack.pop() {
            self.row_mate[r] = col;
            self.col_mate[col] = r;
            if let Some(&(_, prev_pos)) = self.stack.last() {
                col = self.adj[prev_pos - 1];
            }
        }
        true
    }
}

/// Inverse of a base ordering `fwd` given to a public ordering function, checking that it
/// has length `n` ([`LinalgError::LengthMismatch`]) and is a permutation of `0..n`
/// ([`LinalgError::InvalidPattern`]); `what` names it in the error.
fn checked_base_ordering(fwd: &[usize], n: usize, what: &str) -> Result<Vec<usize>, LinalgError> {
    if fwd.len() != n {
        return Err(LinalgError::LengthMismatch {
            what: what.into(),
            expected: n,
            got: fwd.len(),
        });
    }
    checked_inverse(fwd, what)
}

/// Inverse of `fwd`, checking that it is a permutation of `0..fwd.len()`.
fn checked_inverse(fwd: &[usize], what: &str) -> Result<Vec<usize>, LinalgError> {
    let n = fwd.len();
    let mut inv = vec![usize::MAX; n];
    for (new, &old) in fwd.iter().enumerate() {
        if old >= n || inv[old] != usize::MAX {
            return Err(LinalgError::InvalidPattern {
                what: what.into(),
                col: new,
                detail: format!("entry {old} is out of range or repeated: not a permutation"),
            });
        }
        inv[old] = new;
    }
    Ok(inv)
}

/// Serializes calls into METIS (see [`nested_dissection_ordering`]).
static METIS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Maps a METIS status code to `Ok` or a typed error naming the call.
fn metis_status(call: &str, status: std::os::raw::c_int) -> Result<(), LinalgError> {
    let detail = match status {
        metis_sys::rstatus_et_METIS_OK => return Ok(()),
        metis_sys::rstatus_et_METIS_ERROR_INPUT => "METIS_ERROR_INPUT (invalid input graph)",
        metis_sys::rstatus_et_METIS_ERROR_MEMORY => "METIS_ERROR_MEMORY (out of memory)",
        metis_sys::rstatus_et_METIS_ERROR => "METIS_ERROR (unspecified METIS error)",
        other => {
            return Err(LinalgError::Ordering {
                method: "nested dissection".into(),
                detail: format!("{call} returned the unknown status {other}"),
            });
        }
    };
    Err(LinalgError::Ordering {
        method: "nested dissection".into(),
        detail: format!("{call} failed: {detail}"),
    })
}

/// Computes the [`FillOrdering::NestedDissection`] ordering (METIS `METIS_NodeND` with its
/// default options) of an `n × n` symmetric pattern given as its lower triangle in CSC
/// form (sorted row indices, diagonal entries optional and ignored). Returns `perm_fwd`
/// with `perm_fwd[new] = old`. A pattern without off-diagonal entries gets the identity
/// (no fill whatever the order). Calls into METIS are serialized process-wide (its random
/// generator is global state), so the result is deterministic.
///
/// # Errors
/// [`LinalgError::InvalidPattern`] / [`LinalgError::IndexOutOfRange`] for a malformed
/// pattern; [`LinalgError::Ordering`] when the graph exceeds METIS's 32-bit indices
/// (`n` or twice the off-diagonal entries above `i32::MAX`), when METIS reports an error
/// status (invalid input, out of memory) or returns something that is not a permutation.
pub fn nested_dissection_ordering(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
) -> Result<Vec<usize>, LinalgError> {
    check_csc("nested dissection pattern", n, n, col_ptr, row_idx, true)?;
    // Adjacency of the undirected graph (both directions, no self loops) in METIS's CSR.
    let mut xadj = vec![0usize; n + 1];
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            if i != j {
                xadj[i + 1] += 1;
                xadj[j + 1] += 1;
            }
        }
    }
    for k in 0..n {
        xadj[k + 1] += xadj[k];
    }
    let n_adj = xadj[n];
    if n_adj == 0 {
        return Ok((0..n).collect());
    }
    let limit = idx_t::MAX as usize;
    if n > limit || n_adj > limit {
        return Err(LinalgError::Ordering {
            method: "nested dissection".into(),
            detail: format!(
                "graph with {n} vertices and {n_adj} adjacency entries exceeds METIS's \
                 32-bit indices (at most {limit})"
            ),
        });
    }
    let to_idx = |k: usize| k as idx_t; // in range: checked against `limit` above
    let mut next = xadj[..n].to_vec();
    let mut adjncy: Vec<idx_t> = vec![0; n_adj];
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            if i != j {
                adjncy[next[j]] = to_idx(i);
                next[j] += 1;
                adjncy[next[i]] = to_idx(j);
                next[i] += 1;
            }
        }
    }
    drop(next);
    let mut xadj: Vec<idx_t> = xadj.into_iter().map(to_idx).collect();
    let mut options: [idx_t; metis_sys::METIS_NOPTIONS as usize] =
        [0; metis_sys::METIS_NOPTIONS as usize];
    // SAFETY: `options` has METIS_NOPTIONS entries, the length METIS_SetDefaultOptions
    // writes.
    let status = unsafe { metis_sys::METIS_SetDefaultOptions(options.as_mut_ptr()) };
    metis_status("METIS_SetDefaultOptions", status)?;
    options[metis_sys::moptions_et_METIS_OPTION_NUMBERING as usize] = 0;
    let mut nvtxs = to_idx(n);
    let mut perm: Vec<idx_t> = vec![0; n];
    let mut iperm: Vec<idx_t> = vec![0; n];
    // METIS seeds and draws from GKlib's random generator, whose state is a process-wide
    // static: concurrent calls would race on it (and give thread-dependent orderings).
    // One call at a time keeps METIS sound and its orderings reproducible. A poisoned lock
    // only means another call panicked; the guarded state is METIS's, reset at each call.
    let _serial = METIS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: `xadj` has n + 1 entries and `adjncy` xadj[n] entries (a symmetric adjacency
    // without self loops, every index in 0..n, all within idx_t as checked above);
    // `perm` and `iperm` have n entries each, `options` METIS_NOPTIONS entries; the null
    // `vwgt` means unit vertex weights. METIS only reads the graph and options and writes
    // `perm`/`iperm`, and keeps no pointer after returning; `METIS_LOCK` is held, so no
    // other call shares its global random state.
    let status = unsafe {
        metis_sys::METIS_NodeND(
            &mut nvtxs,
            xadj.as_mut_ptr(),
            adjncy.as_mut_ptr(),
            std::ptr::null_mut(),
            options.as_mut_ptr(),
            perm.as_mut_ptr(),
            iperm.as_mut_ptr(),
        )
    };
    metis_status("METIS_NodeND", status)?;
    // METIS: row `new` of the permuted matrix is row `perm[new]` of the original.
    let fwd: Vec<usize> = perm
        .into_iter()
        .map(|p| usize::try_from(p).unwrap_or(usize::MAX))
        .collect();
    checked_inverse(&fwd, "METIS_NodeND permutation").map_err(|e| LinalgError::Ordering {
        method: "nested dissection".into(),
        detail: format!("METIS returned an invalid permutation ({e})"),
    })?;
    Ok(fwd)
}

/// Computes the [`FillOrdering::KktPaired`] ordering (see [`kkt_matched_ordering`] for the
/// conventions and errors).
///
/// # Errors
/// As [`kkt_matched_ordering`].
pub fn kkt_paired_ordering(
    n: usize,
    n_primal: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
) -> Result<Vec<usize>, LinalgError> {
    check_n_primal(n, n_primal)?;
    let mate = match_constraints(n, n_primal, col_ptr, row_idx, None);
    // Node id of every index: variables keep their own node; a matched constraint joins its
    // variable's node; unmatched constraints get new nodes.
    let mut node: Vec<usize> = (0..n).collect();
    let mut n_nodes = n_primal;
    for (c, mv) in mate.iter().enumerate() {
        node[n_primal + c] = match mv {
            Some(v) => *v,
            None => {
                n_nodes += 1;
                n_nodes - 1
            }
        };
    }
    // Compressed lower-triangle pattern (off-diagonal edges only; AMD ignores the diagonal).
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            let (a, b) = (node[i], node[j]);
            if a != b {
                rows.push(a.max(b));
                cols.push(a.min(b));
            }
        }
    }
    let (cptr, ridx, _) = csc_map_from_coo(n_nodes, n_nodes, &rows, &cols);
    drop((rows, cols));
    let (perm, _) = amd_order(n_nodes, &cptr, &ridx)?;
    // Members of every node: the variable first, then its constraint.
    let mut constraint_of_var = vec![usize::MAX; n_primal];
    let mut lone_constraint = vec![usize::MAX; n_nodes];
    for (c, mv) in mate.iter().enumerate() {
        match mv {
            Some(v) => constraint_of_var[*v] = n_primal + c,
            None => lone_constraint[node[n_primal + c]] = n_primal + c,
        }
    }
    let mut fwd = Vec::with_capacity(n);
    for &k in &perm {
        if k < n_primal {
            fwd.push(k);
            if constraint_of_var[k] != usize::MAX {
                fwd.push(constraint_of_var[k]);
            }
        } else {
            fwd.push(lone_constraint[k]);
        }
    }
    Ok(fwd)
}

/// [`FillMethod::Auto`] tries nested dissection only when AMD's predicted factorization
/// flops per row reach this: below it the factorization is cheap and METIS (measured about
/// 5 µs per row) would cost more than it can save (rosenbrock:200000 KKT: 10 flops per
/// row, METIS 1.5 s against a 0.02 s factorization).
pub const AUTO_MIN_FLOPS_PER_ROW: f64 = 300.0;

/// [`FillMethod::Auto`] keeps nested dissection only when its predicted flops are at most
/// this fraction of AMD's: faer's supernodal factorization runs METIS orderings at a lower
/// flop rate than AMD's (measured on KKT systems of the large benchmark set: case4661_sdet
/// 0.85 of AMD's flops but slower solves; case9591_goc 0.56, case10000_goc 0.67,
/// bearing:320x320 0.58 and faster solves).
pub const AUTO_MAX_FLOP_RATIO: f64 = 0.75;

/// Numeric factorizations that run on AMD's analysis while nested dissection is computed
/// on a background thread, for the faer backends with a deferred [`FillMethod::Auto`]
/// (`set_deferred_ordering`): the first `AUTO_DEFERRED_FACTORIZATIONS` factorizations after
/// the analysis use AMD; the next one joins the thread (waiting for it if needed), applies
/// the keep rule of [`FillMethod::Auto`] and factorizes with nested dissection from then on
/// if it is kept. A fixed count, never "when the thread is ready", so that the iterates do
/// not depend on timing. The solver's augmented and condensed systems use it: METIS costs
/// 0.3–1 s of the large set's 2–10 s solves (bench-suites/README.md, session 26), the
/// factorizations use one core, and 4 factorizations (2–4 interior-point iterations) on AMD
/// cover most of METIS's time where it runs.
pub const AUTO_DEFERRED_FACTORIZATIONS: usize = 4;

/// Whether [`FillMethod::Auto`] tries nested dissection after AMD predicted `amd_flops`
/// for an `n`-row factorization (at least [`AUTO_MIN_FLOPS_PER_ROW`] flops per row).
pub(crate) fn auto_tries_nested_dissection(amd_flops: f64, n: usize) -> bool {
    amd_flops >= AUTO_MIN_FLOPS_PER_ROW * n as f64
}

/// Whether [`FillMethod::Auto`] keeps nested dissection predicting `nd_flops` against AMD's
/// `amd_flops` (at most [`AUTO_MAX_FLOP_RATIO`] of them).
pub(crate) fn auto_keeps_nested_dissection(nd_flops: f64, amd_flops: f64) -> bool {
    nd_flops <= AUTO_MAX_FLOP_RATIO * amd_flops
}

/// The candidate ordering an analysis keeps: `analyze` computes each method of
/// [`candidate_methods`] in turn and returns its predicted factorization flops with its
/// analysis. For [`FillMethod::Auto`] nested dissection is tried only when AMD predicts at
/// least [`AUTO_MIN_FLOPS_PER_ROW`] flops per row, and kept when it predicts at most
/// [`AUTO_MAX_FLOP_RATIO`] of AMD's flops. Returns the method, its flops and its analysis.
pub(crate) fn best_candidate<T>(
    ordering: FillOrdering,
    n: usize,
    mut analyze: impl FnMut(FillMethod) -> Result<(f64, T), LinalgError>,
) -> Result<(FillMethod, f64, T), LinalgError> {
    let methods = candidate_methods(ordering);
    let auto = methods.len() > 1;
    let mut best: Option<(FillMethod, f64, T)> = None;
    for method in methods {
        if best
            .as_ref()
            .is_some_and(|(_, f, _)| !auto_tries_nested_dissection(*f, n))
        {
            break;
        }
        let (flops, analysis) = analyze(method)?;
        let keep = match &best {
            None => true,
            Some((_, f, _)) if auto => auto_keeps_nested_dissection(flops, *f),
            Some((_, f, _)) => flops < *f,
        };
        if keep {
            best = Some((method, flops, analysis));
        }
    }
    best.ok_or_else(|| LinalgError::InvalidState("no candidate fill-reducing ordering".into()))
}

/// The base methods `ordering` tries, in order (AMD first for [`FillMethod::Auto`]).
pub(crate) fn candidate_methods(ordering: FillOrdering) -> Vec<FillMethod> {
    let method = match ordering {
        FillOrdering::Amd | FillOrdering::KktMatched { .. } | FillOrdering::KktPaired { .. } => {
            FillMethod::Amd
        }
        FillOrdering::NestedDissection => FillMethod::NestedDissection,
        FillOrdering::Auto => FillMethod::Auto,
        FillOrdering::KktMatchedWith { method, .. } => method,
    };
    match method {
        FillMethod::Auto => vec![FillMethod::Amd, FillMethod::NestedDissection],
        other => vec![other],
    }
}

/// The permutation (`perm_fwd`, or `None` for faer's own AMD) of `ordering` on the base
/// `method` (one of [`candidate_methods`]). For the KKT-matched orderings, variables listed
/// in `zero_diagonal` (structurally zero diagonal, see [`kkt_zero_diagonal_reorder`]) are
/// placed after a constraint that gives them a nonzero pivot; other orderings ignore it.
pub(crate) fn candidate_ordering(
    ordering: FillOrdering,
    method: FillMethod,
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    zero_diagonal: &[usize],
) -> Result<Option<Vec<usize>>, LinalgError> {
    let n_primal = match ordering {
        FillOrdering::Amd | FillOrdering::NestedDissection | FillOrdering::Auto => None,
        FillOrdering::KktMatched { n_primal } | FillOrdering::KktMatchedWith { n_primal, .. } => {
            Some(n_primal)
        }
        FillOrdering::KktPaired { n_primal } => {
            return Ok(Some(kkt_paired_ordering(n, n_primal, col_ptr, row_idx)?));
        }
    };
    // AMD comes postordered from faer (and the KKT-matched delays move few constraints);
    // METIS's orderings, and any ordering the zero-diagonal placement changed, are
    // postordered here.
    Ok(match (method, n_primal) {
        (FillMethod::Amd, None) => None,
        (FillMethod::Amd, Some(np)) => {
            let fwd = kkt_matched_ordering(n, np, col_ptr, row_idx)?;
            Some(zero_diagonal_placement(
                n,
                np,
                col_ptr,
                row_idx,
                zero_diagonal,
                fwd,
            )?)
        }
        (_, None) => {
            let nd = nested_dissection_ordering(n, col_ptr, row_idx)?;
            Some(etree_postorder(n, col_ptr, row_idx, &nd))
        }
        (_, Some(np)) => {
            let base = nested_dissection_ordering(n, col_ptr, row_idx)?;
            let fwd = kkt_matched_ordering_on(n, np, col_ptr, row_idx, &base)?;
            let fwd = zero_diagonal_placement(n, np, col_ptr, row_idx, zero_diagonal, fwd)?;
            Some(etree_postorder(n, col_ptr, row_idx, &fwd))
        }
    })
}

/// Reorders `fwd` (`fwd[new] = old`) by a postorder of the elimination tree of the
/// permuted pattern: an equivalent ordering (the same fill and flops) in which every
/// subtree is contiguous, so that faer's supernode detection, which takes a custom ordering
/// as it is, finds the fundamental supernodes (faer postorders only its own AMD). Children
/// keep their relative order. Every node stays after its etree descendants, which keeps
/// the KKT-matched guarantee: a constraint eliminated after an adjacent (matched) variable
/// is an etree ancestor of it.
pub(crate) fn etree_postorder(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    fwd: &[usize],
) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let inv = invert(fwd);
    let (ptr, lower) = earlier_neighbours(n, col_ptr, row_idx, &inv);
    let parent = elimination_tree(n, &ptr, &lower);
    drop((ptr, lower));
    // Children lists (increasing order), then an iterative depth-first postorder.
    let mut head = vec![NONE; n];
    let mut sibling = vec![NONE; n];
    for k in (0..n).rev() {
        if parent[k] != NONE {
            sibling[k] = head[parent[k]];
            head[parent[k]] = k;
        }
    }
    let mut post = Vec::with_capacity(n);
    let mut stack = Vec::new();
    for root in (0..n).filter(|&k| parent[k] == NONE) {
        stack.push(root);
        while let Some(&top) = stack.last() {
            let child = head[top];
            if child != NONE {
                head[top] = sibling[child];
                stack.push(child);
            } else {
                stack.pop();
                post.push(top);
            }
        }
    }
    post.into_iter().map(|k| fwd[k]).collect()
}

/// For every index `k` of the permuted pattern (`inv[old] = new`, `A` given by its lower
/// triangle), its neighbours `i < k`: CSR arrays `(ptr, lower)` with the neighbours of `k`
/// in `lower[ptr[k]..ptr[k + 1]]` (the strict upper triangle of `P A Pᵀ` by columns).
pub(crate) fn earlier_neighbours(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    inv: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let mut ptr = vec![0usize; n + 1];
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            if i != j {
                ptr[inv[i].max(inv[j]) + 1] += 1;
            }
        }
    }
    for k in 0..n {
        ptr[k + 1] += ptr[k];
    }
    let mut lower = vec![0usize; ptr[n]];
    let mut next = ptr[..n].to_vec();
    for j in 0..n {
        for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
            if i != j {
                let (a, b) = (inv[i], inv[j]);
                let hi = a.max(b);
                lower[next[hi]] = a.min(b);
                next[hi] += 1;
            }
        }
    }
    (ptr, lower)
}

/// The elimination tree of a pattern given by [`earlier_neighbours`]: `parent[k]` is the
/// etree parent of `k` (always `> k`), `usize::MAX` for a root (Liu's algorithm with path
/// compression).
pub(crate) fn elimination_tree(n: usize, ptr: &[usize], lower: &[usize]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut parent = vec![NONE; n];
    let mut ancestor = vec![NONE; n];
    for k in 0..n {
        for &i in &lower[ptr[k]..ptr[k + 1]] {
            let mut r = i;
            while ancestor[r] != NONE && ancestor[r] != k {
                let up = ancestor[r];
                ancestor[r] = k;
                r = up;
            }
            if ancestor[r] == NONE {
                ancestor[r] = k;
                parent[r] = k;
            }
        }
    }
    parent
}

/// Column counts of `L` (diagonal included) from the row subtrees of the etree.
fn column_counts(n: usize, ptr: &[usize], lower: &[usize], parent: &[usize]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut counts = vec![1usize; n];
    let mut mark = vec![NONE; n];
    for k in 0..n {
        mark[k] = k;
        for &i in &lower[ptr[k]..ptr[k + 1]] {
            let mut j = i;
            while j != NONE && mark[j] != k {
                counts[j] += 1;
                mark[j] = k;
                j = parent[j];
            }
        }
    }
    counts
}

/// The elimination tree (`parent`) and the column counts of `L` (diagonal included) of the
/// pattern in the ordering `fwd` (`fwd[new] = old`).
pub(crate) fn etree_and_column_counts(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    fwd: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let inv = invert(fwd);
    let (ptr, lower) = earlier_neighbours(n, col_ptr, row_idx, &inv);
    let parent = elimination_tree(n, &ptr, &lower);
    let counts = column_counts(n, &ptr, &lower, &parent);
    (parent, counts)
}

/// Predicted flops `Σ_j c_j²` of a factorization whose columns of `L` have `counts`
/// entries.
pub(crate) fn count_flops(counts: &[usize]) -> f64 {
    counts.iter().map(|&c| (c as f64) * (c as f64)).sum()
}

/// Predicted flops of the factorization of the pattern in the ordering `fwd`.
fn ordering_flops(n: usize, col_ptr: &[usize], row_idx: &[usize], fwd: &[usize]) -> f64 {
    count_flops(&etree_and_column_counts(n, col_ptr, row_idx, fwd).1)
}

/// Inverse of a permutation given as `fwd[new] = old`.
pub(crate) fn invert(fwd: &[usize]) -> Vec<usize> {
    let mut inv = vec![0usize; fwd.len()];
    for (new, &old) in fwd.iter().enumerate() {
        inv[old] = new;
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn lower(n: usize, entries: &[(usize, usize)]) -> (Vec<usize>, Vec<usize>) {
        let rows: Vec<usize> = entries.iter().map(|e| e.0.max(e.1)).chain(0..n).collect();
        let cols: Vec<usize> = entries.iter().map(|e| e.0.min(e.1)).chain(0..n).collect();
        let (cp, ri, _) = csc_map_from_coo(n, n, &rows, &cols);
        (cp, ri)
    }

    fn is_perm(fwd: &[usize], n: usize) -> bool {
        let mut s = fwd.to_vec();
        s.sort_unstable();
        s == (0..n).collect::<Vec<_>>()
    }

    #[test]
    fn matching_needs_augmenting_path() {
        // Variables 0,1; constraints 2 (touches 0 and 1), 3 (touches 0 only). Greedy gives
        // 2→0, then 3 needs the augmenting path 3→0, 2→1.
        let (cp, ri) = lower(4, &[(2, 0), (2, 1), (3, 0)]);
        let mate = match_constraints(4, 2, &cp, &ri, None);
        assert_eq!(mate, vec![Some(1), Some(0)]);
        let inv = invert(&kkt_paired_ordering(4, 2, &cp, &ri).unwrap());
        assert!(inv[3] == inv[0] + 1);
        assert!(inv[2] == inv[1] + 1);
        let fwd = kkt_matched_ordering(4, 2, &cp, &ri).unwrap();
        assert!(is_perm(&fwd, 4));
        let inv = invert(&fwd);
        assert!(inv[3] > inv[0] && inv[2] > inv[1]);
    }

    #[test]
    fn unmatched_constraint_kept() {
        // Two constraints on one variable: one stays unmatched.
        let (cp, ri) = lower(3, &[(1, 0), (2, 0)]);
        assert!(is_perm(&kkt_paired_ordering(3, 1, &cp, &ri).unwrap(), 3));
        assert!(is_perm(&kkt_matched_ordering(3, 1, &cp, &ri).unwrap(), 3));
    }

    #[test]
    fn no_constraints_or_no_variables() {
        let (cp, ri) = lower(3, &[(1, 0), (2, 1)]);
        for np in [0, 3] {
            assert!(is_perm(&kkt_matched_ordering(3, np, &cp, &ri).unwrap(), 3));
            assert!(is_perm(&kkt_paired_ordering(3, np, &cp, &ri).unwrap(), 3));
        }
        assert!(kkt_matched_ordering(0, 0, &[0], &[]).unwrap().is_empty());
    }

    #[test]
    fn etree_postorder_makes_subtrees_contiguous() {
        // Star-of-paths: 0-4, 1-3, 2-4, 3-4 eliminated in the order 0, 1, 2, 3, 4: etree
        // parent(0) = 4, parent(1) = 3, parent(2) = 4, parent(3) = 4. Postorder: 0, 2, 1,
        // 3, 4 (children of 4 in increasing order, the subtree {1, 3} contiguous).
        let (cp, ri) = lower(5, &[(4, 0), (3, 1), (4, 2), (4, 3)]);
        let fwd: Vec<usize> = (0..5).collect();
        assert_eq!(etree_postorder(5, &cp, &ri, &fwd), vec![0, 2, 1, 3, 4]);
        // Through a permutation: the same tree under relabelling.
        let fwd = vec![4, 3, 2, 1, 0]; // new k is old 4 - k
        let (cp, ri) = lower(5, &[(4, 0), (3, 0), (2, 1), (1, 0)]);
        // new indices: old 0 = new 4; edges new (0,4), (1,4), (2,3), (3,4): parent(0) = 4,
        // parent(1) = 4, parent(2) = 3, parent(3) = 4 → postorder new 0, 1, 2, 3, 4.
        assert_eq!(etree_postorder(5, &cp, &ri, &fwd), fwd);
        // A forest (no edges): unchanged.
        let (cp, ri) = lower(3, &[]);
        assert_eq!(etree_postorder(3, &cp, &ri, &[2, 0, 1]), vec![2, 0, 1]);
    }

    #[test]
    fn metis_status_codes_are_typed_errors() {
        assert!(metis_status("METIS_NodeND", metis_sys::rstatus_et_METIS_OK).is_ok());
        for (code, text) in [
            (metis_sys::rstatus_et_METIS_ERROR_INPUT, "METIS_ERROR_INPUT"),
            (
                metis_sys::rstatus_et_METIS_ERROR_MEMORY,
                "METIS_ERROR_MEMORY",
            ),
            (metis_sys::rstatus_et_METIS_ERROR, "METIS_ERROR"),
            (17, "unknown status 17"),
        ] {
            match metis_status("METIS_NodeND", code) {
                Err(LinalgError::Ordering { detail, .. }) => {
                    assert!(detail.contains(text), "{detail}")
                }
                other => panic!("status {code}: {other:?}"),
            }
        }
    }

    /// The KKT-matched ordering as a sort of `(key, index)` pairs, as it was computed before
    /// the keys were placed in slots: the reference of the test below.
    fn kkt_matched_by_sorting(
        n: usize,
        n_primal: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        pos: &[usize],
    ) -> Vec<usize> {
        let mate = match_constraints(n, n_primal, col_ptr, row_idx, Some(pos));
        let mut keyed: Vec<(usize, usize)> = (0..n)
            .map(|i| (matched_key(i, n_primal, &mate, pos), i))
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, i)| i).collect()
    }

    proptest::proptest! {
        #[test]
        fn kkt_matched_slots_equal_the_sorted_keys(
            (n, n_primal, entries, base) in (1usize..40).prop_flat_map(|n| (
                proptest::strategy::Just(n),
                0..=n,
                proptest::collection::vec((0..n, 0..n), 0..120),
                proptest::strategy::Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
            ))
        ) {
            let (cp, ri) = lower(n, &entries);
            let pos = invert(&base);
            proptest::prop_assert_eq!(
                kkt_matched_from_positions(n, n_primal, &cp, &ri, &pos),
                kkt_matched_by_sorting(n, n_primal, &cp, &ri, &pos)
            );
        }
    }

    #[test]
    fn n_primal_too_large() {
        let (cp, ri) = lower(2, &[]);
        assert!(matches!(
            kkt_matched_ordering(2, 3, &cp, &ri),
            Err(LinalgError::InvalidValue { .. })
        ));
        assert!(matches!(
            kkt_paired_ordering(2, 3, &cp, &ri),
            Err(LinalgError::InvalidValue { .. })
        ));
    }
}
