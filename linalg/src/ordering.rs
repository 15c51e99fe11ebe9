//! Fill-reducing orderings for the faer backends.
//!
//! [`FillOrdering::Amd`] (default) is faer's approximate minimum degree on the whole
//! pattern. For KKT matrices `[[H, Jᵀ], [J, −δc I]]` with `δc = 0` it can eliminate a
//! constraint row before any of its variables — an exact zero pivot for LDLᵀ without
//! pivoting, and for intranode LBLᵀ too when the constraint sits alone in its supernode.
//!
//! Two KKT-aware orderings avoid that structurally. Both first match every constraint row
//! `c >= n_primal` to a distinct variable `v < n_primal` it touches (maximum bipartite
//! matching on the pattern of `J`: a cheap-assignment pass, then MC21-style depth-first
//! augmenting paths), and then guarantee that every constraint is eliminated **after** its
//! matched variable:
//!
//! - [`FillOrdering::KktMatched`] (recommended): plain AMD on the whole pattern; the
//!   matching prefers, for each constraint, the neighbour AMD eliminates first; a constraint
//!   that AMD placed before its matched variable is delayed to right after it. The fill is
//!   essentially AMD's (measured: within 1% on 2D-grid KKT systems).
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
//! Constraints that cannot be matched (structurally rank-deficient `J`) are left where AMD
//! puts them. A variable with a zero diagonal in `H + Σx` can still give a zero pivot (then
//! regularize).

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::SymbolicSparseColMatRef;
use faer::sparse::linalg::amd;

use crate::LinalgError;
use crate::sparse::csc_map_from_coo;

/// Which fill-reducing ordering the faer backends compute at analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FillOrdering {
    /// faer's AMD on the whole pattern (the default).
    #[default]
    Amd,
    /// AMD, then every constraint delayed to after its matched variable (see the module
    /// docs). Indices `0..n_primal` are variables, `n_primal..n` constraints.
    KktMatched {
        /// Number of primal variables (leading block size).
        n_primal: usize,
    },
    /// AMD on the graph where each constraint is merged with its matched variable; each pair
    /// is eliminated as variable then constraint (see the module docs).
    KktPaired {
        /// Number of primal variables (leading block size).
        n_primal: usize,
    },
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
    let mate = match_constraints(n, n_primal, col_ptr, row_idx, Some(&pos));
    // Sort key 2·pos, or 2·pos(mate) + 1 for a constraint AMD placed before its mate (odd
    // keys are unique because the matching is one-to-one).
    let mut keyed: Vec<(usize, usize)> = (0..n)
        .map(|i| {
            let key = match i.checked_sub(n_primal).and_then(|c| mate[c]) {
                Some(v) => (2 * pos[i]).max(2 * pos[v] + 1),
                None => 2 * pos[i],
            };
            (key, i)
        })
        .collect();
    keyed.sort_unstable();
    Ok(keyed.into_iter().map(|(_, i)| i).collect())
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
