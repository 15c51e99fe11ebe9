//! Nested dissection (METIS), AMD on its own (the host ordering cuDSS can be given) and the
//! `Auto` choice: permutations, KKT solves with the
//! KKT-matched ordering on a nested-dissection base, fill against AMD on a 2-D grid, the
//! placement of zero-diagonal variables on a chain-like optimal-control KKT matrix, and
//! typed errors.

mod common;

use common::*;
use simdnlp_linalg::ordering::{
    AUTO_MAX_FLOP_RATIO, AUTO_MIN_FLOPS_PER_ROW, amd_ordering, kkt_matched_ordering,
    kkt_matched_ordering_on, kkt_zero_diagonal_reorder, nested_dissection_ordering,
};
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    FactorStatus, FaerLblt, FaerLdlt, FaerLlt, FillMethod, FillOrdering, Inertia, LinalgError,
    Parallelism, RefineOptions, RefineWork, SymmetricSolver, iterative_refinement,
};

fn is_perm(fwd: &[usize], n: usize) -> bool {
    let mut s = fwd.to_vec();
    s.sort_unstable();
    s == (0..n).collect::<Vec<_>>()
}

/// 5-point Laplacian of a `k × k` grid (SPD: diagonal 4 + a small shift).
fn grid_laplacian(k: usize) -> SymCoo {
    let mut a = SymCoo::new(k * k);
    for i in 0..k {
        for j in 0..k {
            let p = i * k + j;
            a.push(p, p, 4.01);
            if j + 1 < k {
                a.push(p + 1, p, -1.0);
            }
            if i + 1 < k {
                a.push(p + k, p, -1.0);
            }
        }
    }
    a
}

/// KKT matrix `[[L + I, Jᵀ], [J, 0]]` on a `k × k` grid: `L` the grid Laplacian over the
/// variables, one constraint per interior `2 × 2` cell of every other row (it touches the
/// cell's four variables), `δc = 0`: the shape of a discretized PDE-constrained problem.
fn grid_kkt(rng: &mut Rng, k: usize) -> (SymCoo, usize, usize) {
    let lap = grid_laplacian(k);
    let n = k * k;
    let cells: Vec<(usize, usize)> = (0..k - 1)
        .step_by(2)
        .flat_map(|i| (0..k - 1).map(move |j| (i, j)))
        .collect();
    let m = cells.len();
    let mut a = SymCoo::new(n + m);
    for t in 0..lap.vals.len() {
        a.push(lap.rows[t], lap.cols[t], lap.vals[t]);
    }
    for (c, &(i, j)) in cells.iter().enumerate() {
        for p in [
            i * k + j,
            i * k + j + 1,
            (i + 1) * k + j,
            (i + 1) * k + j + 1,
        ] {
            a.push(n + c, p, 0.5 + rng.uniform());
        }
        a.push(n + c, n + c, 0.0);
    }
    (a, n, m)
}

/// Relative residual `‖K x − b‖∞ / ‖b‖∞` after a solve and iterative refinement.
fn solve_residual(solver: &mut dyn SymmetricSolver, a: &SymCoo, rng: &mut Rng) -> f64 {
    let (asm, vals) = a.to_csc();
    let n = asm.n();
    let b = random_vec(rng, n);
    let mut x = b.clone();
    solver.solve_in_place(&mut x).unwrap();
    let mut work = RefineWork::new(n);
    let mut mv = |x: &[f64], y: &mut [f64]| {
        sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).unwrap()
    };
    let opts = RefineOptions::default();
    iterative_refinement(solver, &mut mv, &b, &mut x, &mut work, &opts).unwrap();
    let mut kx = vec![0.0; n];
    sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, &x, &mut kx).unwrap();
    let r = kx
        .iter()
        .zip(&b)
        .fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
    r / b.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

#[test]
fn nested_dissection_is_a_permutation() {
    let mut rng = Rng::new(7);
    for &(n, m) in &[(1, 0), (10, 4), (300, 120)] {
        let a = random_kkt(&mut rng, n, m, 3, 0.0);
        let (asm, _) = a.to_csc();
        let nn = asm.n();
        let fwd = nested_dissection_ordering(nn, asm.col_ptr(), asm.row_idx()).unwrap();
        assert_eq!(fwd.len(), nn);
        assert!(is_perm(&fwd, nn), "n={nn}");
        let matched = kkt_matched_ordering_on(nn, n, asm.col_ptr(), asm.row_idx(), &fwd).unwrap();
        assert!(is_perm(&matched, nn), "n={nn}");
    }
    // No off-diagonal entries (diagonal only, or nothing at all): the identity.
    assert_eq!(
        nested_dissection_ordering(3, &[0, 1, 2, 3], &[0, 1, 2]).unwrap(),
        vec![0, 1, 2]
    );
    assert!(nested_dissection_ordering(0, &[0], &[]).unwrap().is_empty());
}

/// The arrow matrix (variable 0 coupled to every other): minimum degree eliminates the hub
/// last (no fill), and the result is `perm[new] = old`.
#[test]
fn amd_ordering_puts_the_hub_of_an_arrow_last() {
    let n = 6;
    let mut col_ptr = vec![0, n];
    let mut row_idx: Vec<usize> = (0..n).collect();
    for j in 1..n {
        row_idx.push(j);
        col_ptr.push(col_ptr[j] + 1);
    }
    let fwd = amd_ordering(n, &col_ptr, &row_idx).unwrap();
    assert!(is_perm(&fwd, n), "{fwd:?}");
    assert_eq!(fwd[n - 1], 0, "{fwd:?}");
    assert!(amd_ordering(0, &[0], &[]).unwrap().is_empty());
    assert!(
        amd_ordering(2, &[0, 1], &[0]).is_err(),
        "a malformed pattern is an error"
    );
}

#[test]
fn kkt_matched_nested_dissection_solves_grid_kkt() {
    // δc = 0: every constraint must come after a matched variable for LDLᵀ without
    // pivoting; the nested-dissection base keeps that guarantee.
    let mut rng = Rng::new(11);
    let (a, n, m) = grid_kkt(&mut rng, 24);
    let expected = Inertia {
        positive: n,
        negative: m,
        zero: 0,
    };
    let (asm, vals) = a.to_csc();
    for method in [FillMethod::NestedDissection, FillMethod::Auto] {
        let ord = FillOrdering::kkt_matched(n, method);
        let mut solvers: Vec<(&str, Box<dyn SymmetricSolver>)> = vec![
            ("ldlt", {
                let mut s = FaerLdlt::new(Parallelism::Sequential);
                s.set_ordering(ord);
                Box::new(s)
            }),
            ("lblt", {
                let mut s = FaerLblt::new(Parallelism::Sequential);
                s.set_ordering(ord);
                Box::new(s)
            }),
        ];
        for (name, s) in &mut solvers {
            s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
            assert_eq!(s.factorize(&vals).unwrap(), FactorStatus::Success, "{name}");
            assert_eq!(s.inertia(), Some(expected), "{name} {method:?}");
            let res = solve_residual(s.as_mut(), &a, &mut rng);
            assert!(res < 1e-12, "{name} {method:?}: residual {res:e}");
        }
    }
    // The random KKT systems of the other tests too.
    let a = random_kkt(&mut rng, 400, 150, 3, 0.0);
    let (asm, vals) = a.to_csc();
    let mut s = FaerLdlt::new(Parallelism::Sequential);
    s.set_ordering(FillOrdering::kkt_matched(400, FillMethod::NestedDissection));
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(s.factorize(&vals).unwrap(), FactorStatus::Success);
    assert_eq!(s.fill_method(), Some(FillMethod::NestedDissection));
    let res = solve_residual(&mut s, &a, &mut rng);
    assert!(res < 1e-12, "random KKT: residual {res:e}");
}

type Analysis = (usize, f64, Option<FillMethod>);

fn check_auto_rule(n: usize, amd: Analysis, nd: Analysis, auto: Analysis) {
    let pick_nd = amd.1 >= AUTO_MIN_FLOPS_PER_ROW * n as f64 && nd.1 <= AUTO_MAX_FLOP_RATIO * amd.1;
    let expected = if pick_nd { nd } else { amd };
    assert_eq!(auto, expected, "amd {amd:?} nd {nd:?}");
}

/// 7-point Laplacian of a `g × g × g` grid.
fn grid3_laplacian(g: usize) -> SymCoo {
    let mut a = SymCoo::new(g * g * g);
    for i in 0..g {
        for j in 0..g {
            for l in 0..g {
                let k = (i * g + j) * g + l;
                a.push(k, k, 6.01);
                if i + 1 < g {
                    a.push(k + g * g, k, -1.0);
                }
                if j + 1 < g {
                    a.push(k + g, k, -1.0);
                }
                if l + 1 < g {
                    a.push(k + 1, k, -1.0);
                }
            }
        }
    }
    a
}

#[test]
fn nested_dissection_cuts_grid_fill_and_auto_keeps_the_cheaper() {
    let k = 150;
    let a = grid_laplacian(k);
    let (asm, vals) = a.to_csc();
    let mut rng = Rng::new(5);
    let mut fill = Vec::new();
    for ord in [
        FillOrdering::Amd,
        FillOrdering::NestedDissection,
        FillOrdering::Auto,
    ] {
        let mut s = FaerLlt::new(Parallelism::Sequential);
        s.set_ordering(ord);
        s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        assert_eq!(s.factorize(&vals).unwrap(), FactorStatus::Success);
        let res = solve_residual(&mut s, &a, &mut rng);
        assert!(res < 1e-12, "{ord:?}: residual {res:e}");
        fill.push((s.factor_nnz(), s.predicted_flops(), s.fill_method()));
    }
    let (amd, nd, auto) = (fill[0], fill[1], fill[2]);
    assert_eq!(amd.2, Some(FillMethod::Amd));
    assert_eq!(nd.2, Some(FillMethod::NestedDissection));
    assert!(
        nd.0 < amd.0,
        "nnz(L): nested dissection {} vs AMD {}",
        nd.0,
        amd.0
    );
    assert!(nd.1 < amd.1, "flops: {} vs {}", nd.1, amd.1);
    // Auto follows its rule: nested dissection when AMD's factorization is expensive and
    // nested dissection predicts clearly fewer flops, else AMD.
    check_auto_rule(k * k, amd, nd, auto);
    // On a 3-D grid nested dissection wins clearly: Auto keeps it.
    let g = 22;
    let (asm, _) = grid3_laplacian(g).to_csc();
    let mut runs = Vec::new();
    for ord in [
        FillOrdering::Amd,
        FillOrdering::NestedDissection,
        FillOrdering::Auto,
    ] {
        let mut s = FaerLlt::new(Parallelism::Sequential);
        s.set_ordering(ord);
        s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        runs.push((s.factor_nnz(), s.predicted_flops(), s.fill_method()));
    }
    check_auto_rule(g * g * g, runs[0], runs[1], runs[2]);
    assert_eq!(runs[2].2, Some(FillMethod::NestedDissection), "{runs:?}");
    // A path graph has no fill with AMD: Auto keeps AMD without calling METIS.
    let path = {
        let mut p = SymCoo::new(50);
        for i in 0..50 {
            p.push(i, i, 3.0);
            if i + 1 < 50 {
                p.push(i + 1, i, -1.0);
            }
        }
        p
    };
    let (asm, _) = path.to_csc();
    let mut s = FaerLlt::new(Parallelism::Sequential);
    s.set_ordering(FillOrdering::Auto);
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(s.fill_method(), Some(FillMethod::Amd));
}

/// One deferred-`Auto` solver (`deferred` factorizations on AMD) against the references
/// analyzed at analysis time: `amd` (AMD alone) and `auto` (`Auto` keeping nested
/// dissection). Returns every solution of the deferred solver.
fn deferred_run<S: SymmetricSolver>(
    new: &dyn Fn(FillMethod, usize) -> S,
    fill_method: &dyn Fn(&S) -> Option<FillMethod>,
    (asm, vals): (&simdnlp_linalg::SymAssembly, &[f64]),
    deferred: usize,
) -> Vec<Vec<f64>> {
    let n = asm.n();
    let analyzed = |method, deferred| {
        let mut s = new(method, deferred);
        s.analyze(n, asm.col_ptr(), asm.row_idx()).unwrap();
        s
    };
    // The matrix of the k-th factorization and its solution.
    let values = |k: usize| -> Vec<f64> { vals.iter().map(|v| v * (1.0 + k as f64)).collect() };
    let rhs: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 3.0).collect();
    let solve = |s: &mut S, k: usize| {
        assert_eq!(s.factorize(&values(k)).unwrap(), FactorStatus::Success);
        let mut x = rhs.clone();
        s.solve_in_place(&mut x).unwrap();
        x
    };
    let (mut amd, mut auto) = (analyzed(FillMethod::Amd, 0), analyzed(FillMethod::Auto, 0));
    assert_eq!(fill_method(&auto), Some(FillMethod::NestedDissection));
    let mut s = analyzed(FillMethod::Auto, deferred);
    let mut solutions = Vec::new();
    for k in 0..deferred + 3 {
        let x = solve(&mut s, k);
        // Bit for bit the reference's factorization: AMD's before the switch, nested
        // dissection's from the (deferred + 1)-th factorization on.
        let (method, reference) = if k < deferred {
            (FillMethod::Amd, solve(&mut amd, k))
        } else {
            (FillMethod::NestedDissection, solve(&mut auto, k))
        };
        assert_eq!(fill_method(&s), Some(method), "factorization {k}");
        assert_eq!(x, reference, "factorization {k}");
        solutions.push(x);
    }
    solutions
}

#[test]
fn deferred_auto_switches_to_nested_dissection_at_a_fixed_factorization() {
    // A 3-D grid, where Auto keeps nested dissection.
    let a = grid3_laplacian(12);
    let (asm, vals) = a.to_csc();
    let n = asm.n();
    let matrix = (&asm, &vals[..]);
    for deferred in [1, 3] {
        let llt = |method, deferred| {
            let mut s = FaerLlt::new(Parallelism::Sequential);
            s.set_ordering(FillOrdering::of_method(method));
            s.set_deferred_ordering(deferred);
            s
        };
        let first = deferred_run(&llt, &|s: &FaerLlt| s.fill_method(), matrix, deferred);
        // Deterministic: a second deferred solve equals the first bit for bit.
        let second = deferred_run(&llt, &|s: &FaerLlt| s.fill_method(), matrix, deferred);
        assert_eq!(first, second);
        // The KKT-matched ordering of LDLᵀ and LBLᵀ (no constraints: the grid as primal
        // block).
        let ldlt = |method, deferred| {
            let mut s = FaerLdlt::new(Parallelism::Sequential);
            s.set_ordering(FillOrdering::kkt_matched(n, method));
            s.set_deferred_ordering(deferred);
            s
        };
        deferred_run(&ldlt, &|s: &FaerLdlt| s.fill_method(), matrix, deferred);
        let lblt = |method, deferred| {
            let mut s = FaerLblt::new(Parallelism::Sequential);
            s.set_ordering(FillOrdering::kkt_matched(n, method));
            s.set_deferred_ordering(deferred);
            s
        };
        deferred_run(&lblt, &|s: &FaerLblt| s.fill_method(), matrix, deferred);
    }
    // On a 2-D grid the deferred solver ends on the ordering Auto chooses at analysis,
    // whichever it is.
    let a = grid_laplacian(30);
    let (asm, vals) = a.to_csc();
    let mut sync = FaerLlt::new(Parallelism::Sequential);
    sync.set_ordering(FillOrdering::Auto);
    sync.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    let mut s = FaerLlt::new(Parallelism::Sequential);
    s.set_ordering(FillOrdering::Auto);
    s.set_deferred_ordering(1);
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    for _ in 0..3 {
        assert_eq!(s.factorize(&vals).unwrap(), FactorStatus::Success);
    }
    assert_eq!(s.fill_method(), sync.fill_method());
    assert_eq!(s.predicted_flops(), sync.predicted_flops());
}

#[test]
fn nested_dissection_typed_errors() {
    // Malformed patterns.
    assert!(matches!(
        nested_dissection_ordering(2, &[0, 2, 3], &[0, 2, 1]),
        Err(LinalgError::IndexOutOfRange { row: 2, .. })
    ));
    assert!(matches!(
        nested_dissection_ordering(2, &[0, 2], &[0, 1]),
        Err(LinalgError::LengthMismatch { .. })
    ));
    // A base ordering that is not a permutation.
    let (cp, ri) = (vec![0, 2, 3], vec![0, 1, 1]);
    assert!(matches!(
        kkt_matched_ordering_on(2, 1, &cp, &ri, &[0, 0]),
        Err(LinalgError::InvalidPattern { .. })
    ));
    assert!(matches!(
        kkt_matched_ordering_on(2, 1, &cp, &ri, &[0]),
        Err(LinalgError::LengthMismatch { .. })
    ));
    // n_primal beyond the dimension, at analysis.
    let mut s = FaerLdlt::default();
    s.set_ordering(FillOrdering::kkt_matched(5, FillMethod::NestedDissection));
    assert!(matches!(
        s.analyze(2, &cp, &ri),
        Err(LinalgError::InvalidValue { .. })
    ));
    assert_eq!(s.fill_method(), None);
}

/// KKT matrix of a discretized optimal-control problem shaped like COPS `chain` (`k`
/// intervals), at `δ_w = δc = 0`: a control `u_i` with curvature (diagonal `1 + r`) and two
/// states `x_i`, `z_i` with none (no Hessian diagonal, no bound: flagged zero-diagonal), a
/// bilinear Hessian entry `x_i u_i`; trapezoidal dynamics `x_{i+1} − x_i − h/2 (u_i +
/// u_{i+1})` and `z_{i+1} − z_i − h/2 (x_i g_i + x_{i+1} g_{i+1})` with `g` depending on `u`,
/// boundary rows `x_0`, `x_k`, `z_0`. Variables `u` (`0..=k`), `x`, `z`; then the
/// constraints. Returns the matrix, `n_primal` and the zero-diagonal variables.
fn chain_kkt(rng: &mut Rng, k: usize) -> (SymCoo, usize, Vec<usize>) {
    let np = 3 * (k + 1);
    let (u, x, z) = (
        |i: usize| i,
        |i: usize| k + 1 + i,
        |i: usize| 2 * (k + 1) + i,
    );
    let m = 2 * k + 3;
    let mut a = SymCoo::new(np + m);
    for i in 0..=k {
        a.push(u(i), u(i), 1.0 + rng.uniform());
        a.push(x(i), u(i), 0.5 * rng.sym());
    }
    let h = 1.0 / k as f64;
    let mut c = np;
    for i in 0..k {
        a.push(c, x(i + 1), 1.0);
        a.push(c, x(i), -1.0);
        a.push(c, u(i), -0.5 * h);
        a.push(c, u(i + 1), -0.5 * h);
        c += 1;
        a.push(c, z(i + 1), 1.0);
        a.push(c, z(i), -1.0);
        a.push(c, x(i), -0.5 * h * (1.0 + rng.uniform()));
        a.push(c, x(i + 1), -0.5 * h * (1.0 + rng.uniform()));
        a.push(c, u(i), h * rng.sym());
        a.push(c, u(i + 1), h * rng.sym());
        c += 1;
    }
    for v in [x(0), x(k), z(0)] {
        a.push(c, v, 1.0);
        c += 1;
    }
    // The constraint diagonal at δc = 0, stored (as the solver's assembly does).
    for r in np..np + m {
        a.push(r, r, 0.0);
    }
    let zero: Vec<usize> = (k + 1..np).collect();
    (a, np, zero)
}

/// Pivots of dense LDLᵀ without pivoting of `P A Pᵀ` (`fwd[new] = old`).
fn dense_ldlt_pivots(a: &SymCoo, fwd: &[usize]) -> Vec<f64> {
    let d = a.dense();
    let n = a.n;
    let mut p = faer::Mat::<f64>::from_fn(n, n, |i, j| d[(fwd[i], fwd[j])]);
    let mut pivots = Vec::with_capacity(n);
    for k in 0..n {
        let piv = p[(k, k)];
        pivots.push(piv);
        if piv == 0.0 {
            continue;
        }
        for j in k + 1..n {
            let l = p[(j, k)] / piv;
            if l != 0.0 {
                for i in k + 1..n {
                    p[(i, j)] -= l * p[(i, k)];
                }
            }
        }
    }
    pivots
}

#[test]
fn zero_diagonal_variables_follow_a_constraint_that_gives_them_a_pivot() {
    let mut rng = Rng::new(24);
    let (a, np, zero) = chain_kkt(&mut rng, 12);
    let n = a.n;
    let (asm, vals) = a.to_csc();
    let (cp, ri) = (asm.col_ptr(), asm.row_idx());
    let eig = dense_inertia(&a.dense(), 1e-12);
    assert_eq!(eig.zero, 0, "the test matrix is nonsingular");
    // The KKT-matched ordering alone eliminates a state before any of its constraints: an
    // exact zero pivot.
    let matched = kkt_matched_ordering(n, np, cp, ri).unwrap();
    assert!(common::inertia_of(&dense_ldlt_pivots(&a, &matched), 1e-12).zero > 0);
    // With the zero-diagonal variables placed: a permutation, every flagged variable after
    // one of its constraints, no zero pivot and the inertia of the matrix.
    let fwd = kkt_zero_diagonal_reorder(n, np, cp, ri, &zero, &matched).unwrap();
    assert!(is_perm(&fwd, n));
    let mut pos = vec![0; n];
    for (new, &old) in fwd.iter().enumerate() {
        pos[old] = new;
    }
    for &v in &zero {
        let after_a_constraint = (0..a.vals.len()).any(|t| {
            let (r, c) = (a.rows[t], a.cols[t]);
            c == v && r >= np && pos[r] < pos[v]
        });
        assert!(
            after_a_constraint,
            "variable {v} precedes all its constraints"
        );
    }
    assert_eq!(common::inertia_of(&dense_ldlt_pivots(&a, &fwd), 1e-12), eig);
    // Nothing flagged: the ordering as it was.
    assert_eq!(
        kkt_zero_diagonal_reorder(n, np, cp, ri, &[], &matched).unwrap(),
        matched
    );
    // Through FaerLdlt, on both base methods: LDLᵀ at δ = 0 singular without the flags,
    // the inertia of the matrix with them.
    for method in [FillMethod::Amd, FillMethod::NestedDissection] {
        let mut s = FaerLdlt::new(Parallelism::Sequential);
        s.set_zero_pivot_tol(0.0).unwrap();
        s.set_ordering(FillOrdering::kkt_matched(np, method));
        s.analyze(n, cp, ri).unwrap();
        assert_eq!(s.factorize(&vals).unwrap(), FactorStatus::Singular);
        s.set_zero_diagonal(&zero);
        s.analyze(n, cp, ri).unwrap();
        assert_eq!(
            s.factorize(&vals).unwrap(),
            FactorStatus::Success,
            "{method:?}"
        );
        assert_eq!(s.inertia(), Some(eig), "{method:?}");
        let res = solve_residual(&mut s, &a, &mut rng);
        assert!(res < 1e-10, "{method:?}: residual {res:e}");
    }
}

#[test]
fn zero_diagonal_reorder_typed_errors() {
    let (cp, ri) = (vec![0, 2, 3], vec![0, 1, 1]);
    assert!(matches!(
        kkt_zero_diagonal_reorder(2, 1, &cp, &ri, &[1], &[0, 1]),
        Err(LinalgError::InvalidValue { .. })
    ));
    assert!(matches!(
        kkt_zero_diagonal_reorder(2, 1, &cp, &ri, &[0], &[0]),
        Err(LinalgError::LengthMismatch { .. })
    ));
    assert!(matches!(
        kkt_zero_diagonal_reorder(2, 1, &cp, &ri, &[0], &[1, 1]),
        Err(LinalgError::InvalidPattern { .. })
    ));
    assert!(matches!(
        kkt_zero_diagonal_reorder(2, 3, &cp, &ri, &[0], &[0, 1]),
        Err(LinalgError::InvalidValue { .. })
    ));
}
