//! Nested dissection (METIS), AMD on its own (the host ordering cuDSS can be given) and the
//! `Auto` choice: permutations, KKT solves with the
//! KKT-matched ordering on a nested-dissection base, fill against AMD on a 2-D grid, and
//! typed errors.

mod common;

use common::*;
use simdnlp_linalg::ordering::{
    AUTO_MAX_FLOP_RATIO, AUTO_MIN_FLOPS_PER_ROW, amd_ordering, kkt_matched_ordering_on,
    nested_dissection_ordering,
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
