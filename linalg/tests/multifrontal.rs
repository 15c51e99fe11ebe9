//! The multifrontal LDLᵀ with delayed pivots against dense references: inertia against
//! dense eigenvalues, solve residuals, KKT matrices where LDLᵀ without pivoting stops at an
//! exact zero pivot, singular matrices, refactorization, and random small matrices.

mod common;

use common::*;
use proptest::prelude::{Strategy, any, prop_assume, proptest};
use proptest::test_runner::Config as ProptestConfig;
use simdnlp_linalg::multifrontal::{
    Amalgamation, DEFAULT_PIVOT_THRESHOLD, DEFAULT_SCALING_SPREAD, DEFAULT_SCALING_SWEEPS,
    PANEL_WIDTH,
};
use simdnlp_linalg::{
    FactorStatus, FaerLdlt, FillMethod, FillOrdering, Inertia, LinalgError, MultifrontalLdlt,
    Parallelism, SymAssembly, SymmetricSolver,
};

/// Analyzes and factorizes `a` with `solver`; checks the inertia against the dense
/// eigenvalues (zero below `1e-10 · max|λ|`) and the backward error of one and of three
/// right-hand sides. Returns the status.
fn check(solver: &mut MultifrontalLdlt, a: &SymCoo, rng: &mut Rng, what: &str) -> FactorStatus {
    let (asm, vals) = a.to_csc();
    solver
        .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
        .unwrap();
    let status = solver.factorize(&vals).unwrap();
    let expected = dense_inertia(&a.dense(), 1e-10);
    assert_eq!(solver.inertia(), Some(expected), "{what}: inertia");
    if expected.zero > 0 {
        return status;
    }
    assert_eq!(status, FactorStatus::Success, "{what}: status");
    let n = asm.n();
    let b = random_vec(rng, n);
    let mut x = b.clone();
    solver.solve_in_place(&mut x).unwrap();
    let err = backward_error(&asm, &vals, &x, &b);
    assert!(err < 1e-11, "{what}: backward error {err:e}");
    let bs = random_vec(rng, 3 * n);
    let mut xs = bs.clone();
    solver.solve_many_in_place(&mut xs, 3).unwrap();
    for k in 0..3 {
        let r = k * n..(k + 1) * n;
        let err = backward_error(&asm, &vals, &xs[r.clone()], &bs[r]);
        assert!(err < 1e-11, "{what}: rhs {k} backward error {err:e}");
    }
    status
}

/// KKT matrix `[[H + Σ, Jᵀ], [J, −δc I]]` whose variables `i % 3 == 0` are free without
/// curvature (zero diagonal, no Hessian entries); the others have a positive diagonal and
/// random couplings among themselves. Every constraint touches its own variable (each free
/// variable is the own variable of one constraint) and `per_row` random others.
fn kkt_with_free_variables(rng: &mut Rng, n: usize, m: usize, per_row: usize, dc: f64) -> SymCoo {
    let curved = |i: usize| i % 3 != 0;
    let mut a = SymCoo::new(n + m);
    for j in 0..n {
        a.push(j, j, if curved(j) { 1.0 + rng.uniform() } else { 0.0 });
        for _ in 0..2 {
            let i = rng.below(n);
            if i != j && curved(i) && curved(j) {
                a.push(i, j, 0.3 * rng.sym());
            }
        }
    }
    // Constraint c's own variable: the free ones first (each in some constraint, else the
    // matrix would be singular), then the others.
    let free = n.div_ceil(3);
    assert!(m >= free, "every free variable needs a constraint");
    for c in 0..m {
        let own = if c < free { 3 * c } else { c % n };
        a.push(n + c, own, 1.0 + rng.uniform());
        for _ in 0..per_row {
            a.push(n + c, rng.below(n), rng.sym());
        }
        a.push(n + c, n + c, -dc);
    }
    a
}

#[test]
fn random_indefinite_matrices_inertia_and_residuals() {
    let mut rng = Rng::new(17);
    for &(n, per_col) in &[(1, 0), (2, 1), (10, 2), (60, 3), (300, 3), (800, 2)] {
        for zero_diag in [false, true] {
            // Diagonal of both signs; with `zero_diag` every third diagonal is exactly zero.
            let a = random_sym(&mut rng, n, per_col, |j| {
                if zero_diag && j % 3 == 0 {
                    0.0
                } else if j % 2 == 0 {
                    0.5 + j as f64 / n as f64
                } else {
                    -0.5 - j as f64 / n as f64
                }
            });
            for sweeps in [0, DEFAULT_SCALING_SWEEPS] {
                let mut s = MultifrontalLdlt::new();
                s.set_scaling_sweeps(sweeps);
                let what = format!("n={n} zero_diag={zero_diag} sweeps={sweeps}");
                check(&mut s, &a, &mut rng, &what);
            }
        }
    }
}

#[test]
fn orderings_give_the_same_inertia() {
    let mut rng = Rng::new(5);
    let (n, m) = (120, 50);
    let a = kkt_with_free_variables(&mut rng, n, m, 2, 0.0);
    for ord in [
        FillOrdering::Amd,
        FillOrdering::NestedDissection,
        FillOrdering::Auto,
        FillOrdering::KktMatched { n_primal: n },
        FillOrdering::kkt_matched(n, FillMethod::NestedDissection),
        FillOrdering::KktPaired { n_primal: n },
    ] {
        let mut s = MultifrontalLdlt::new();
        s.set_ordering(ord);
        check(&mut s, &a, &mut rng, &format!("{ord:?}"));
    }
}

/// Where LDLᵀ without pivoting stops at an exact zero pivot (a free variable without
/// curvature eliminated before its constraints, on the KKT-matched ordering; a constraint
/// eliminated before its variables, on plain AMD), the multifrontal LDLᵀ delays the pivot
/// and gets the exact inertia.
#[test]
fn kkt_zero_pivots_of_ldlt_are_delayed() {
    let mut rng = Rng::new(3);
    let (mut ldlt_stops, mut delayed) = (0, 0);
    for trial in 0..6 {
        let (n, m) = (90 + 10 * trial, 40 + 5 * trial);
        let a = kkt_with_free_variables(&mut rng, n, m, 2, 0.0);
        let (asm, vals) = a.to_csc();
        for ord in [FillOrdering::KktMatched { n_primal: n }, FillOrdering::Amd] {
            let mut faer = FaerLdlt::new(Parallelism::Sequential);
            faer.set_ordering(ord);
            faer.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
            let faer_status = faer.factorize(&vals).unwrap();
            let mut s = MultifrontalLdlt::new();
            s.set_ordering(ord);
            let status = check(&mut s, &a, &mut rng, &format!("trial {trial} {ord:?}"));
            if faer_status == FactorStatus::Singular && faer.inertia().is_none() {
                ldlt_stops += 1;
                assert_eq!(status, FactorStatus::Success);
                assert!(s.delayed_pivots() > 0, "trial {trial}: no delays");
                delayed += 1;
            }
        }
    }
    assert!(
        ldlt_stops >= 6,
        "LDLᵀ without pivoting stopped only {ldlt_stops} times"
    );
    assert_eq!(delayed, ldlt_stops);
}

/// A tiny example spelled out: `[[0, 1], [1, 0]]` ordered as given needs a 2×2 pivot; in a
/// chain whose first front holds only the zero, the zero is delayed.
#[test]
fn zero_diagonal_chain_is_delayed_to_the_parent() {
    // x0 — x1 — x2 chain, A = [[0, 1, 0], [1, 2, 1], [0, 1, -1]]: eliminating 0 first is
    // an exact zero pivot; the inertia is that of the dense matrix.
    let mut a = SymCoo::new(3);
    a.push(0, 0, 0.0);
    a.push(1, 0, 1.0);
    a.push(1, 1, 2.0);
    a.push(2, 1, 1.0);
    a.push(2, 2, -1.0);
    let mut rng = Rng::new(1);
    let mut s = MultifrontalLdlt::new();
    check(&mut s, &a, &mut rng, "chain");
    let mut swap = SymCoo::new(2);
    swap.push(1, 0, 1.0);
    swap.push(0, 0, 0.0);
    swap.push(1, 1, 0.0);
    check(&mut s, &swap, &mut rng, "2x2");
    assert_eq!(
        s.inertia(),
        Some(Inertia {
            positive: 1,
            negative: 1,
            zero: 0
        })
    );
}

#[test]
fn singular_matrices_count_zero_eigenvalues() {
    let mut rng = Rng::new(9);
    // A variable without any entry (zero row and column).
    let mut a = random_sym(&mut rng, 40, 2, |j| if j % 2 == 0 { 1.0 } else { -1.0 });
    let mut z = SymCoo::new(41);
    for k in 0..a.vals.len() {
        z.push(a.rows[k], a.cols[k], a.vals[k]);
    }
    z.push(40, 40, 0.0);
    let mut s = MultifrontalLdlt::new();
    let status = check(&mut s, &z, &mut rng, "zero row");
    assert_eq!(status, FactorStatus::Singular);
    assert_eq!(s.inertia().unwrap().zero, 1);
    // Two identical constraint rows and δc = 0: rank-deficient J (zero counted with a
    // relative tolerance, since the cancellation need not be exact).
    let (n, m) = (30, 10);
    a = random_kkt(&mut rng, n, m, 2, 0.0);
    let mut dup = SymCoo::new(n + m + 1);
    for k in 0..a.vals.len() {
        dup.push(a.rows[k], a.cols[k], a.vals[k]);
        if a.rows[k] == n && a.cols[k] < n {
            dup.push(n + m, a.cols[k], a.vals[k]);
        }
    }
    dup.push(n + m, n + m, 0.0);
    s.set_zero_pivot_tol(1e-12).unwrap();
    let status = check(&mut s, &dup, &mut rng, "duplicate constraint");
    assert_eq!(status, FactorStatus::Singular);
    assert_eq!(s.inertia().unwrap().zero, 1);
}

#[test]
fn refactorization_with_other_values_on_the_same_pattern() {
    let mut rng = Rng::new(21);
    let (n, m) = (150, 60);
    let a = kkt_with_free_variables(&mut rng, n, m, 3, 0.0);
    let (asm, _) = a.to_csc();
    let mut s = MultifrontalLdlt::new();
    s.set_ordering(FillOrdering::KktMatched { n_primal: n });
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    for round in 0..4 {
        // New values on the same pattern: scaled randomly, δc alternating 0 / 1e-8.
        let mut b = a.clone();
        for (k, v) in b.vals.iter_mut().enumerate() {
            if b.rows[k] == b.cols[k] && b.rows[k] >= n {
                *v = if round % 2 == 0 { 0.0 } else { -1e-8 };
            } else {
                *v *= 0.5 + rng.uniform();
            }
        }
        let (_, vals) = b.to_csc();
        let status = s.factorize(&vals).unwrap();
        assert_eq!(status, FactorStatus::Success, "round {round}");
        assert_eq!(s.inertia(), Some(dense_inertia(&b.dense(), 1e-10)));
        let rhs = random_vec(&mut rng, n + m);
        let mut x = rhs.clone();
        s.solve_in_place(&mut x).unwrap();
        let err = backward_error(&asm, &vals, &x, &rhs);
        assert!(err < 1e-11, "round {round}: backward error {err:e}");
    }
}

#[test]
fn pivot_threshold_is_validated_and_used() {
    let mut s = MultifrontalLdlt::new();
    assert_eq!(s.pivot_threshold(), DEFAULT_PIVOT_THRESHOLD);
    assert!(matches!(
        s.set_pivot_threshold(1.5),
        Err(LinalgError::InvalidValue { .. })
    ));
    assert!(matches!(
        s.set_pivot_threshold(f64::NAN),
        Err(LinalgError::InvalidValue { .. })
    ));
    let mut rng = Rng::new(33);
    let a = kkt_with_free_variables(&mut rng, 100, 45, 2, 0.0);
    for u in [0.0, 0.1, 0.5, 1.0] {
        s.set_pivot_threshold(u).unwrap();
        check(&mut s, &a, &mut rng, &format!("u = {u}"));
    }
}

#[test]
fn errors_and_empty_matrix() {
    let mut s = MultifrontalLdlt::new();
    assert!(matches!(
        s.factorize(&[]),
        Err(LinalgError::InvalidState(_))
    ));
    s.analyze(0, &[0], &[]).unwrap();
    assert_eq!(s.factorize(&[]).unwrap(), FactorStatus::Success);
    assert_eq!(s.inertia(), Some(Inertia::default()));
    // Upper-triangle entry.
    assert!(s.analyze(2, &[0, 1, 2], &[1, 0]).is_err());
    s.analyze(2, &[0, 2, 3], &[0, 1, 1]).unwrap();
    assert!(matches!(
        s.factorize(&[1.0, 2.0]),
        Err(LinalgError::LengthMismatch { .. })
    ));
    assert!(matches!(
        s.factorize(&[1.0, f64::NAN, 1.0]),
        Err(LinalgError::InvalidValue { .. })
    ));
    let mut rhs = [1.0; 3];
    assert!(s.solve_in_place(&mut rhs).is_err());
}

/// A random small symmetric matrix: `n`, density and values from the strategy, with some
/// exactly zero diagonals.
fn small_matrix() -> impl Strategy<Value = SymCoo> {
    (1usize..14, any::<u64>(), 0.1f64..0.9).prop_map(|(n, seed, density)| {
        let mut rng = Rng::new(seed);
        let mut a = SymCoo::new(n);
        for j in 0..n {
            let d = if rng.uniform() < 0.4 { 0.0 } else { rng.sym() };
            a.push(j, j, d);
            for i in j + 1..n {
                if rng.uniform() < density {
                    a.push(i, j, rng.sym());
                }
            }
        }
        a
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn small_random_matrices(a in small_matrix(), kkt in any::<bool>()) {
        let dense = a.dense();
        let ev = dense.self_adjoint_eigenvalues(faer::Side::Lower).unwrap();
        let max = ev.iter().fold(0.0f64, |m, &x| m.max(x.abs()));
        let min = ev.iter().fold(f64::INFINITY, |m, &x| m.min(x.abs()));
        // Near-singular matrices have no well-defined numerical inertia.
        prop_assume!(max > 0.0 && min > 1e-6 * max);
        let mut s = MultifrontalLdlt::new();
        if kkt {
            s.set_ordering(FillOrdering::KktMatched { n_primal: a.n.div_ceil(2) });
        }
        let mut rng = Rng::new(1);
        check(&mut s, &a, &mut rng, "proptest");
    }
}

/// KKT matrices with the barrier diagonal spread over many orders of magnitude (as late in
/// an interior-point solve) and `H + Σ` positive definite: the inertia is `(n, m, 0)` by
/// construction, whatever the scaling.
#[test]
fn badly_scaled_kkt_matrices_keep_the_kkt_inertia() {
    let mut rng = Rng::new(77);
    for trial in 0..20 {
        let (n, m) = (60 + 7 * trial, 25 + 3 * trial);
        let a = badly_scaled_kkt(&mut rng, n, m, trial % 2 == 1);
        let (asm, vals) = a.to_csc();
        let mut s = MultifrontalLdlt::new();
        // Half of them without equilibration: the inertia must not depend on it.
        s.set_scaling_sweeps(if trial % 4 < 2 {
            0
        } else {
            DEFAULT_SCALING_SWEEPS
        });
        if trial % 3 == 0 {
            s.set_ordering(FillOrdering::KktMatched { n_primal: n });
        }
        s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        let status = s.factorize(&vals).unwrap();
        assert_eq!(status, FactorStatus::Success, "trial {trial}");
        assert_kkt_inertia_and_solve(
            &mut s,
            &asm,
            &vals,
            (n, m),
            &mut rng,
            &format!("trial {trial}"),
        );
    }
}

/// A random KKT matrix (`n` primal, `m` constraint rows) whose `H` diagonal carries barrier
/// terms Σ from 1e-8 to 1e12 and, when `tiny_constraint_diagonal`, whose constraint
/// diagonal is −1e-9.
fn badly_scaled_kkt(rng: &mut Rng, n: usize, m: usize, tiny_constraint_diagonal: bool) -> SymCoo {
    let mut a = random_kkt(rng, n, m, 2, 0.0);
    for (k, v) in a.vals.iter_mut().enumerate() {
        if a.rows[k] == a.cols[k] && a.rows[k] < n {
            // Σ between 1e-8 and 1e12 on a diagonally dominant H.
            *v += 10f64.powf(-8.0 + 20.0 * rng.uniform());
        }
        if a.rows[k] == a.cols[k] && a.rows[k] >= n && tiny_constraint_diagonal {
            *v = -1e-9;
        }
    }
    a
}

/// The last factorization of `s` has the KKT inertia `(n, m, 0)` and solves a random
/// right-hand side to a backward error below 1e-10.
fn assert_kkt_inertia_and_solve(
    s: &mut MultifrontalLdlt,
    asm: &SymAssembly,
    vals: &[f64],
    (n, m): (usize, usize),
    rng: &mut Rng,
    what: &str,
) {
    assert_eq!(
        s.inertia(),
        Some(Inertia {
            positive: n,
            negative: m,
            zero: 0
        }),
        "{what}"
    );
    let b = random_vec(rng, n + m);
    let mut x = b.clone();
    s.solve_in_place(&mut x).unwrap();
    let err = backward_error(asm, vals, &x, &b);
    assert!(err < 1e-10, "{what}: backward error {err:e}");
}

/// `blocks` dense symmetric blocks of order `w` (wider than the elimination panel), each
/// coupled to all of `border` shared variables: every block is one front with more than
/// [`PANEL_WIDTH`] fully summed columns. Every third diagonal of a block is exactly zero
/// and every fifth tiny, so that 1×1 pivots fail, 2×2 pivots are taken and columns are
/// delayed across panel boundaries; columns in `zero_cols` (within each block) are explicit
/// zeros (a singular matrix with exact zero pivots).
fn wide_fronts(
    rng: &mut Rng,
    blocks: usize,
    w: usize,
    border: usize,
    zero_cols: &[usize],
) -> SymCoo {
    let n = blocks * w + border;
    let mut a = SymCoo::new(n);
    let zero = |j: usize| zero_cols.contains(&(j % w));
    for b in 0..blocks {
        for jl in 0..w {
            let j = b * w + jl;
            let d = match jl % 15 {
                _ if zero(j) => 0.0,
                x if x % 3 == 0 => 0.0,
                x if x % 5 == 0 => 1e-9 * rng.sym(),
                _ => rng.sym(),
            };
            a.push(j, j, d);
            for il in jl + 1..w {
                let i = b * w + il;
                let v = if zero(i) || zero(j) { 0.0 } else { rng.sym() };
                a.push(i, j, v);
            }
            for t in 0..border {
                let v = if zero(j) { 0.0 } else { rng.sym() };
                a.push(blocks * w + t, j, v);
            }
        }
    }
    for t in 0..border {
        a.push(blocks * w + t, blocks * w + t, 1.0 + rng.uniform());
    }
    a
}

/// Fronts wider than the elimination panel ([`PANEL_WIDTH`] pivots): 2×2 pivots and
/// delayed columns across panel boundaries, a delayed column that a later panel takes,
/// and exact zero pivots inside a wide front, against the dense inertia and residuals.
#[test]
fn fronts_wider_than_the_panel() {
    let mut rng = Rng::new(41);
    for (blocks, w, border) in [
        (1, 3 * PANEL_WIDTH + 5, 0),
        (3, 2 * PANEL_WIDTH + 7, 6),
        (4, PANEL_WIDTH + 1, 3),
    ] {
        for u in [1e-8, DEFAULT_PIVOT_THRESHOLD, 0.5] {
            let a = wide_fronts(&mut rng, blocks, w, border, &[]);
            let mut s = MultifrontalLdlt::new();
            s.set_pivot_threshold(u).unwrap();
            let what = format!("blocks={blocks} w={w} border={border} u={u}");
            let status = check(&mut s, &a, &mut rng, &what);
            assert_eq!(status, FactorStatus::Success, "{what}");
            assert!(s.largest_front() > PANEL_WIDTH, "{what}: fronts too small");
            if u == 0.5 && border > 0 {
                assert!(s.delayed_pivots() > 0, "{what}: no delays");
            }
        }
    }
    // Exact zero columns at both sides of a panel boundary: singular, counted exactly.
    let zero_cols = [3, PANEL_WIDTH - 1, PANEL_WIDTH, PANEL_WIDTH + 2];
    let a = wide_fronts(&mut rng, 2, 2 * PANEL_WIDTH + 3, 4, &zero_cols);
    let mut s = MultifrontalLdlt::new();
    let status = check(&mut s, &a, &mut rng, "zero columns");
    assert_eq!(status, FactorStatus::Singular);
    assert_eq!(s.inertia().unwrap().zero, 2 * zero_cols.len());
}

/// The equilibration stops once the row maxima are within the spread
/// ([`DEFAULT_SCALING_SPREAD`]) of 1: after one measuring sweep on a matrix already
/// equilibrated, after a few on a badly scaled one (fewer than the cap), and the inertia
/// and the residual stay exact; a cap of one or three sweeps, or spread 1 (every sweep),
/// gives the same inertia. Spreads below 1 are rejected.
#[test]
fn equilibration_stops_early_with_the_exact_inertia() {
    let mut rng = Rng::new(91);
    // Row maxima 1 already (a unit diagonal dominating entries of at most 0.5): one sweep.
    let a = random_sym(&mut rng, 200, 3, |j| if j % 2 == 0 { 1.0 } else { -1.0 });
    let mut b = a.clone();
    for (k, v) in b.vals.iter_mut().enumerate() {
        if b.rows[k] != b.cols[k] {
            *v *= 0.5 / 1.5;
        }
    }
    let mut s = MultifrontalLdlt::new();
    check(&mut s, &b, &mut rng, "equilibrated");
    assert_eq!(s.scaling_sweeps_used(), 1);
    // Barrier diagonals from 1e-8 to 1e12 and constraint diagonals −1e−9.
    let (n, m) = (150, 60);
    let (asm, vals) = badly_scaled_kkt(&mut rng, n, m, true).to_csc();
    for (sweeps, spread) in [
        (1, DEFAULT_SCALING_SPREAD),
        (3, DEFAULT_SCALING_SPREAD),
        (DEFAULT_SCALING_SWEEPS, DEFAULT_SCALING_SPREAD),
        (DEFAULT_SCALING_SWEEPS, 1.0),
    ] {
        let mut s = MultifrontalLdlt::new();
        s.set_scaling_sweeps(sweeps);
        s.set_scaling_spread(spread).unwrap();
        s.set_ordering(FillOrdering::KktMatched { n_primal: n });
        s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        assert_eq!(s.factorize(&vals).unwrap(), FactorStatus::Success);
        let used = s.scaling_sweeps_used();
        assert!(used >= 1 && used <= sweeps, "{sweeps}: {used} sweeps");
        if spread > 1.0 && sweeps == DEFAULT_SCALING_SWEEPS {
            assert!(used < sweeps, "no early stop: {used} sweeps");
        }
        assert_kkt_inertia_and_solve(
            &mut s,
            &asm,
            &vals,
            (n, m),
            &mut rng,
            &format!("{sweeps} sweeps"),
        );
    }
    let mut s = MultifrontalLdlt::new();
    for bad in [0.5, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            s.set_scaling_spread(bad),
            Err(LinalgError::InvalidValue { .. })
        ));
    }
}

/// Contribution blocks are stored as packed lower triangles and the fronts are zeroed
/// only where they are read: several children delaying columns into one parent, then
/// refactorizations of the same pattern with values giving fewer and more delays (the
/// buffers keep the previous front's values where they are not zeroed) must each match
/// a fresh solver's inertia and give exact residuals.
#[test]
fn delays_across_children_and_refactorization_reuse_the_buffers() {
    let mut rng = Rng::new(63);
    // Blocks (children) of zero-diagonal pairs coupled to a shared border (their parent):
    // with u = 0.5 most of their columns are delayed to the border's front.
    let a = wide_fronts(&mut rng, 6, 9, 5, &[]);
    let (asm, _) = a.to_csc();
    let mut s = MultifrontalLdlt::new();
    s.set_pivot_threshold(0.5).unwrap();
    check(&mut s, &a, &mut rng, "children delaying");
    let delays = s.delayed_pivots();
    assert!(delays > 0, "no delays");
    for round in 0..6 {
        // Values rescaled (δ on every diagonal of alternating sign and size): the delays
        // change from round to round on the same pattern.
        let mut b = a.clone();
        for (k, v) in b.vals.iter_mut().enumerate() {
            if b.rows[k] == b.cols[k] {
                *v += if round % 2 == 0 { 3.0 } else { 1e-6 } * rng.sym();
            } else {
                *v *= 0.5 + rng.uniform();
            }
        }
        let (_, bvals) = b.to_csc();
        s.factorize(&bvals).unwrap();
        let mut fresh = MultifrontalLdlt::new();
        fresh.set_pivot_threshold(0.5).unwrap();
        fresh
            .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
            .unwrap();
        fresh.factorize(&bvals).unwrap();
        let expected = dense_inertia(&b.dense(), 1e-10);
        assert_eq!(s.inertia(), Some(expected), "round {round}");
        assert_eq!(fresh.inertia(), Some(expected), "round {round}");
        assert_eq!(s.delayed_pivots(), fresh.delayed_pivots(), "round {round}");
        if expected.zero == 0 {
            let rhs = random_vec(&mut rng, asm.n());
            let (mut x, mut y) = (rhs.clone(), rhs.clone());
            s.solve_in_place(&mut x).unwrap();
            fresh.solve_in_place(&mut y).unwrap();
            assert_eq!(x, y, "round {round}: reused buffers change the solve");
            let err = backward_error(&asm, &bvals, &x, &rhs);
            assert!(err < 1e-11, "round {round}: backward error {err:e}");
        }
    }
}

/// A star: `leaves` columns each coupled only to the centre (the last column), diagonals of
/// both signs, one leaf with a zero diagonal (delayed when alone in its front). Each leaf
/// is a child of the centre in the elimination tree; at most one is contiguous with it.
fn star(leaves: usize) -> SymCoo {
    let mut a = SymCoo::new(leaves + 1);
    for j in 0..leaves {
        let d = if j == 2 {
            0.0
        } else if j % 2 == 0 {
            1.0 + j as f64
        } else {
            -1.0 - j as f64
        };
        a.push(j, j, d);
        a.push(leaves, j, 0.5 + 0.1 * j as f64);
    }
    a.push(leaves, leaves, 0.25);
    a
}

#[test]
fn non_contiguous_children_are_merged_within_the_budget() {
    let mut rng = Rng::new(71);
    let a = star(6);
    let fronts = |relax: Option<Amalgamation>, rng: &mut Rng| {
        let mut s = MultifrontalLdlt::new();
        if let Some(relax) = relax {
            s.set_amalgamation(relax).unwrap();
        }
        check(&mut s, &a, rng, &format!("star {relax:?}"));
        s.front_count()
    };
    // Default: merging a leaf stores zeros (the centre's columns it lacks): refused.
    let default = fronts(None, &mut rng);
    assert!(default >= 5, "default merged the leaves: {default} fronts");
    // Small fronts always merged, or any zeros accepted: one front.
    let always = Amalgamation {
        always_columns: 16,
        zero_fraction: 0.0,
    };
    assert_eq!(fronts(Some(always), &mut rng), 1);
    let any_zeros = Amalgamation {
        always_columns: 0,
        zero_fraction: 1.0,
    };
    assert_eq!(fronts(Some(any_zeros), &mut rng), 1);
    // A budget in between: some leaves merged, the rest refused.
    let some = Amalgamation {
        always_columns: 0,
        zero_fraction: 0.3,
    };
    let between = fronts(Some(some), &mut rng);
    assert!(1 < between && between < default, "{between} fronts");
}

#[test]
fn amalgamated_kkt_fronts_keep_the_exact_inertia() {
    let mut rng = Rng::new(72);
    for (n, m) in [(30, 12), (240, 100)] {
        let a = kkt_with_free_variables(&mut rng, n, m, 2, 0.0);
        let mut counts = Vec::new();
        for (always_columns, zero_fraction) in [(0, 0.0), (4, 0.1), (16, 0.0), (64, 0.5), (0, 1.0)]
        {
            let relax = Amalgamation {
                always_columns,
                zero_fraction,
            };
            for ordering in [FillOrdering::Amd, FillOrdering::KktMatched { n_primal: n }] {
                let mut s = MultifrontalLdlt::new();
                s.set_ordering(ordering);
                s.set_amalgamation(relax).unwrap();
                assert_eq!(s.amalgamation(), relax);
                let what = format!("n={n} {relax:?} {ordering:?}");
                assert_eq!(check(&mut s, &a, &mut rng, &what), FactorStatus::Success);
                counts.push(s.front_count());
            }
        }
        // Looser budgets give fewer fronts (same ordering).
        assert!(counts[0] > counts[4], "{counts:?}");
        assert!(counts[1] > counts[5], "{counts:?}");
        assert!(counts[8] <= counts[6], "{counts:?}");
    }
}

#[test]
fn amalgamation_thresholds_are_validated() {
    let mut s = MultifrontalLdlt::new();
    for bad in [-0.1, 1.5, f64::NAN, f64::INFINITY] {
        let relax = Amalgamation {
            always_columns: 0,
            zero_fraction: bad,
        };
        assert!(
            matches!(
                s.set_amalgamation(relax),
                Err(LinalgError::InvalidValue { .. })
            ),
            "{bad}"
        );
    }
    assert_eq!(s.amalgamation(), Amalgamation::default());
}

/// The front positions are precomputed at analysis for fronts without delayed columns and
/// shifted by the delays of each factorization: the same pattern factorized with values
/// giving no delays, then many (several children delaying into their parent, next to
/// children that delay nothing), then none again must match a fresh solver bitwise each
/// time, the dense inertia, and give the first solution again at the end.
#[test]
fn delays_that_come_and_go_between_factorizations_shift_the_positions() {
    let mut rng = Rng::new(71);
    // Blocks of 7 columns (children) coupled to a border of 4 (their parent).
    let a = wide_fronts(&mut rng, 8, 7, 4, &[]);
    let (asm, _) = a.to_csc();
    let n = asm.n();
    // No delays: every diagonal made dominant.
    let mut calm = a.clone();
    for (k, v) in calm.vals.iter_mut().enumerate() {
        if calm.rows[k] == calm.cols[k] {
            *v = 50.0 + (k % 5) as f64;
        }
    }
    // Delays: in the even blocks the diagonals zeroed and the couplings inside the block
    // made tiny (neither 1×1 nor 2×2 pivots pass against the border entries: their
    // columns wait for the border's front), the odd blocks keep dominant diagonals.
    let mut stormy = calm.clone();
    let even = |j: usize| j < 8 * 7 && (j / 7) % 2 == 0;
    for (k, v) in stormy.vals.iter_mut().enumerate() {
        let (i, j) = (stormy.rows[k], stormy.cols[k]);
        if i == j && even(j) {
            *v = 0.0;
        } else if even(i) && even(j) && i / 7 == j / 7 {
            *v *= 1e-6;
        }
    }
    let mut s = MultifrontalLdlt::new();
    s.set_pivot_threshold(0.1).unwrap();
    s.analyze(n, asm.col_ptr(), asm.row_idx()).unwrap();
    let rhs = random_vec(&mut rng, n);
    let mut first: Option<Vec<f64>> = None;
    let mut delays_seen = Vec::new();
    for (round, m) in [&calm, &stormy, &calm, &stormy, &calm]
        .into_iter()
        .enumerate()
    {
        let (_, vals) = m.to_csc();
        s.factorize(&vals).unwrap();
        let mut fresh = MultifrontalLdlt::new();
        fresh.set_pivot_threshold(0.1).unwrap();
        fresh.analyze(n, asm.col_ptr(), asm.row_idx()).unwrap();
        fresh.factorize(&vals).unwrap();
        let expected = dense_inertia(&m.dense(), 1e-10);
        assert_eq!(s.inertia(), Some(expected), "round {round}");
        assert_eq!(fresh.inertia(), Some(expected), "round {round}");
        assert_eq!(s.delayed_pivots(), fresh.delayed_pivots(), "round {round}");
        delays_seen.push(s.delayed_pivots());
        let (mut x, mut y) = (rhs.clone(), rhs.clone());
        s.solve_in_place(&mut x).unwrap();
        fresh.solve_in_place(&mut y).unwrap();
        assert_eq!(
            x, y,
            "round {round}: reused solver differs from a fresh one"
        );
        let err = backward_error(&asm, &vals, &x, &rhs);
        assert!(err < 1e-11, "round {round}: backward error {err:e}");
        if round % 2 == 0 {
            match &first {
                None => first = Some(x),
                Some(f) => assert_eq!(&x, f, "round {round}: not the first solution"),
            }
        }
    }
    assert_eq!(delays_seen[0], 0, "the calm values delay nothing");
    assert!(delays_seen[1] > 0, "the stormy values delay nothing");
    assert_eq!(delays_seen[0], delays_seen[2]);
    assert_eq!(delays_seen[1], delays_seen[3]);
}
