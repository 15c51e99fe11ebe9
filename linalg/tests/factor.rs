//! Factorization backends against dense references: solutions, inertia vs dense eigenvalues,
//! Cholesky failure, refactorization without re-analysis.

mod common;

use common::*;
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    DEFAULT_PARALLEL_MIN_FLOPS, FactorStatus, FaerLblt, FaerLdlt, FaerLlt, FillOrdering, Inertia,
    LinalgError, Parallelism, RefineOptions, RefineWork, SymmetricSolver, iterative_refinement,
};

fn backends() -> Vec<(&'static str, Box<dyn SymmetricSolver>)> {
    vec![
        ("llt", Box::new(FaerLlt::new(Parallelism::Sequential))),
        ("ldlt", Box::new(FaerLdlt::new(Parallelism::Sequential))),
        ("lblt", Box::new(FaerLblt::new(Parallelism::Sequential))),
    ]
}

/// Factorizes, checks status and inertia against the dense eigenvalues, then solves two
/// right-hand sides (single and many) to backward error 1e-10.
fn check_solver(name: &str, solver: &mut dyn SymmetricSolver, a: &SymCoo, rng: &mut Rng) {
    let (asm, vals) = a.to_csc();
    solver
        .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
        .unwrap();
    let status = solver.factorize(&vals).unwrap();
    assert_eq!(status, FactorStatus::Success, "{name}: status");
    let expected = dense_inertia(&a.dense(), 1e-10);
    assert_eq!(solver.inertia(), Some(expected), "{name}: inertia");
    let n = asm.n();
    let b = random_vec(rng, n);
    let mut x = b.clone();
    solver.solve_in_place(&mut x).unwrap();
    let err = backward_error(&asm, &vals, &x, &b);
    assert!(err < 1e-10, "{name}: backward error {err:e}");
    // Three right-hand sides at once.
    let bs: Vec<f64> = random_vec(rng, 3 * n);
    let mut xs = bs.clone();
    solver.solve_many_in_place(&mut xs, 3).unwrap();
    for k in 0..3 {
        let r = k * n..(k + 1) * n;
        let err = backward_error(&asm, &vals, &xs[r.clone()], &bs[r]);
        assert!(err < 1e-10, "{name}: rhs {k} backward error {err:e}");
    }
}

/// Like `check_solver` (minus the inertia, which the caller checks) for factorizations
/// without pivoting whose structural ordering can allow some element growth: the unrefined
/// backward error must be below 1e-8, and Ipopt-style iterative refinement brings it below
/// 1e-10.
fn check_solver_refined(name: &str, solver: &mut dyn SymmetricSolver, a: &SymCoo, rng: &mut Rng) {
    let (asm, vals) = a.to_csc();
    solver
        .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
        .unwrap();
    assert_eq!(
        solver.factorize(&vals).unwrap(),
        FactorStatus::Success,
        "{name}: status"
    );
    let n = asm.n();
    let b = random_vec(rng, n);
    let mut x = b.clone();
    solver.solve_in_place(&mut x).unwrap();
    let raw = backward_error(&asm, &vals, &x, &b);
    assert!(raw < 1e-8, "{name}: unrefined backward error {raw:e}");
    let mut work = RefineWork::new(n);
    let mut mv = |x: &[f64], y: &mut [f64]| {
        sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).unwrap()
    };
    let stats = iterative_refinement(
        solver,
        &mut mv,
        &b,
        &mut x,
        &mut work,
        &RefineOptions::default(),
    )
    .unwrap();
    let err = backward_error(&asm, &vals, &x, &b);
    assert!(
        err < 1e-10,
        "{name}: refined backward error {err:e} ({stats:?})"
    );
}

#[test]
fn spd_all_backends_small_and_medium() {
    let mut rng = Rng::new(1);
    for &(n, per_col) in &[(1, 0), (5, 2), (60, 3), (400, 4)] {
        let a = random_spd(&mut rng, n, per_col);
        for (name, mut s) in backends() {
            check_solver(name, s.as_mut(), &a, &mut rng);
            assert_eq!(
                s.inertia(),
                Some(Inertia {
                    positive: n,
                    negative: 0,
                    zero: 0
                })
            );
        }
    }
}

#[test]
fn spd_large_supernodal_path() {
    // A 3D Laplacian-like SPD matrix (n = 1728): enough fill that faer picks the
    // supernodal path for LLT/LDLT.
    let mut rng = Rng::new(2);
    let g = 12;
    let n = g * g * g;
    let mut a = SymCoo::new(n);
    for i in 0..g {
        for j in 0..g {
            for l in 0..g {
                let k = (i * g + j) * g + l;
                a.push(k, k, 6.0 + 0.1 * rng.uniform());
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
    let mut llt = FaerLlt::new(Parallelism::Sequential);
    check_solver("llt", &mut llt, &a, &mut rng);
    assert_eq!(llt.is_supernodal(), Some(true));
    let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
    check_solver("ldlt", &mut ldlt, &a, &mut rng);
    assert_eq!(ldlt.is_supernodal(), Some(true));
    let mut lblt = FaerLblt::new(Parallelism::Sequential);
    check_solver("lblt", &mut lblt, &a, &mut rng);
    assert_eq!(lblt.is_supernodal(), Some(true));
}

#[test]
fn quasi_definite_kkt_ldlt_and_lblt() {
    let mut rng = Rng::new(3);
    for &(n, m) in &[(10, 4), (120, 50), (300, 200)] {
        let a = random_kkt(&mut rng, n, m, 3, 1e-4);
        let expected = Inertia {
            positive: n,
            negative: m,
            zero: 0,
        };
        assert_eq!(dense_inertia(&a.dense(), 1e-10), expected);
        let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
        check_solver("ldlt", &mut ldlt, &a, &mut rng);
        if n == 10 {
            // Small: the simplicial D extraction on an indefinite matrix.
            assert_eq!(ldlt.is_supernodal(), Some(false));
        }
        let mut lblt = FaerLblt::new(Parallelism::Sequential);
        check_solver("lblt", &mut lblt, &a, &mut rng);
        // Cholesky must refuse it.
        let (asm, vals) = a.to_csc();
        let mut llt = FaerLlt::new(Parallelism::Sequential);
        llt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        assert_eq!(
            llt.factorize(&vals).unwrap(),
            FactorStatus::NotPositiveDefinite
        );
        assert_eq!(llt.inertia(), None);
    }
}

#[test]
fn quasi_definite_kkt_large() {
    let mut rng = Rng::new(4);
    let (n, m) = (1500, 600);
    let a = random_kkt(&mut rng, n, m, 4, 1e-3);
    let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
    check_solver("ldlt", &mut ldlt, &a, &mut rng);
    assert_eq!(
        ldlt.inertia(),
        Some(Inertia {
            positive: n,
            negative: m,
            zero: 0
        })
    );
    // This one exercises the supernodal D extraction on an indefinite matrix.
    assert_eq!(ldlt.is_supernodal(), Some(true));
    let mut lblt = FaerLblt::new(Parallelism::Sequential);
    check_solver("lblt", &mut lblt, &a, &mut rng);
}

#[test]
fn indefinite_hessian_kkt() {
    // H with mixed-sign diagonal (indefinite) coupled to J: inertia is not (n, m, 0).
    let mut rng = Rng::new(5);
    for &(n, m) in &[(30, 10), (200, 80)] {
        let h = random_sym(&mut rng, n, 2, |j| if j % 3 == 0 { -3.0 } else { 3.0 });
        let mut a = SymCoo::new(n + m);
        for k in 0..h.vals.len() {
            a.push(h.rows[k], h.cols[k], h.vals[k]);
        }
        for i in 0..m {
            a.push(n + i, i % n, 1.0 + rng.uniform());
            a.push(n + i, rng.below(n), rng.sym());
            a.push(n + i, n + i, -1e-2);
        }
        let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
        check_solver("ldlt", &mut ldlt, &a, &mut rng);
        let mut lblt = FaerLblt::new(Parallelism::Sequential);
        check_solver("lblt", &mut lblt, &a, &mut rng);
        let neg = ldlt.inertia().unwrap().negative;
        assert!(
            neg > m,
            "indefinite H should add negative eigenvalues ({neg} <= {m})"
        );
    }
}

#[test]
fn lblt_handles_zero_diagonal_2x2_blocks() {
    // [[0, 1], [1, 0]] blocks need a 2x2 pivot: LDLT without pivoting hits an exact zero
    // pivot, LBLT factorizes (the supernode holds the whole 2x2 block).
    let mut a = SymCoo::new(6);
    for b in 0..3 {
        a.push(2 * b + 1, 2 * b, 1.0 + b as f64);
        a.push(2 * b, 2 * b, 0.0);
        a.push(2 * b + 1, 2 * b + 1, 0.0);
    }
    a.push(2, 0, 0.25);
    a.push(5, 1, 0.5);
    let (asm, vals) = a.to_csc();
    let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
    ldlt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Singular);
    assert_eq!(ldlt.inertia(), None);
    let mut rng = Rng::new(6);
    let mut lblt = FaerLblt::new(Parallelism::Sequential);
    check_solver("lblt", &mut lblt, &a, &mut rng);
    assert_eq!(
        lblt.inertia(),
        Some(Inertia {
            positive: 3,
            negative: 3,
            zero: 0
        })
    );
}

/// A refactorization that needs no 2×2 pivot after one that used them must read no stale
/// 2×2 block: same inertia (against the dense eigenvalues) and same solution bits as a
/// fresh factorization. faer's Bunch–Kaufman step leaves the subdiagonal entry of a column
/// unwritten when the column has nothing left to eliminate (no nonzero below its pivot),
/// and until the block-diagonal factor's subdiagonal was cleared before each
/// factorization the reused solver paired such columns into phantom 2×2 blocks, in its
/// inertia and in its solves (case1354_pegase's KKT matrix after a factorization with
/// small Σ: 18 486 positive eigenvalues counted where there are 17 165).
#[test]
fn lblt_refactorization_after_2x2_pivots_matches_fresh() {
    // [[0, b], [b, 0]] blocks need 2×2 pivots; the same pattern holding a positive
    // diagonal matrix (off-diagonal values 0) needs none and has nothing to eliminate.
    let pattern = |diagonal: f64, off_diagonal: f64| {
        let mut a = SymCoo::new(8);
        for k in 0..4 {
            a.push(2 * k + 1, 2 * k, off_diagonal * (1.0 + k as f64));
            a.push(2 * k, 2 * k, diagonal * (1.0 + k as f64));
            a.push(2 * k + 1, 2 * k + 1, diagonal);
        }
        for (i, j, v) in [(2, 0, 0.25), (5, 1, 0.5), (7, 4, 0.125), (6, 3, 0.75)] {
            a.push(i, j, off_diagonal * v);
        }
        a
    };
    let (saddle, dominant) = (pattern(0.0, 1.0), pattern(10.0, 0.0));
    let (asm, saddle_vals) = saddle.to_csc();
    let (_, dominant_vals) = dominant.to_csc();
    let mut reused = FaerLblt::new(Parallelism::Sequential);
    reused
        .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
        .unwrap();
    assert_eq!(
        reused.factorize(&saddle_vals).unwrap(),
        FactorStatus::Success
    );
    assert_eq!(
        reused.inertia(),
        Some(dense_inertia(&saddle.dense(), 1e-10))
    );
    let mut fresh = FaerLblt::new(Parallelism::Sequential);
    fresh
        .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
        .unwrap();
    for (name, vals, dense) in [
        ("dominant", &dominant_vals, dominant.dense()),
        ("saddle again", &saddle_vals, saddle.dense()),
    ] {
        assert_eq!(
            reused.factorize(vals).unwrap(),
            FactorStatus::Success,
            "{name}"
        );
        assert_eq!(
            fresh.factorize(vals).unwrap(),
            FactorStatus::Success,
            "{name}"
        );
        assert_eq!(
            reused.inertia(),
            Some(dense_inertia(&dense, 1e-10)),
            "{name}"
        );
        assert_eq!(reused.inertia(), fresh.inertia(), "{name}");
        let b: Vec<f64> = (0..asm.n()).map(|i| 1.0 + i as f64).collect();
        let (mut x1, mut x2) = (b.clone(), b.clone());
        reused.solve_in_place(&mut x1).unwrap();
        fresh.solve_in_place(&mut x2).unwrap();
        for (u, v) in x1.iter().zip(&x2) {
            assert_eq!(u.to_bits(), v.to_bits(), "{name}: refactorization differs");
        }
        assert!(backward_error(&asm, vals, &x1, &b) < 1e-12, "{name}");
    }
}

#[test]
fn singular_matrix_reports_zero_pivot() {
    // diag(2, 1, -1) plus a rank-one block [[1, 1], [1, 1]] (eigenvalues 0 and 2).
    let mut a = SymCoo::new(5);
    a.push(0, 0, 2.0);
    a.push(1, 1, 1.0);
    a.push(2, 2, -1.0);
    a.push(3, 3, 1.0);
    a.push(4, 3, 1.0);
    a.push(4, 4, 1.0);
    let expected = dense_inertia(&a.dense(), 1e-10);
    assert_eq!(
        expected,
        Inertia {
            positive: 3,
            negative: 1,
            zero: 1
        }
    );
    let (asm, vals) = a.to_csc();
    for (name, mut s) in backends().into_iter().skip(1) {
        s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        assert_eq!(
            s.factorize(&vals).unwrap(),
            FactorStatus::Singular,
            "{name}"
        );
        // The zero pivot is exact here, so LDLT stops (no inertia); LBLT reports it.
        if let Some(i) = s.inertia() {
            assert_eq!(i, expected, "{name}");
        }
    }
}

#[test]
fn near_singular_counts_zero_with_tolerance() {
    // [[1, 1], [1, 1 + 1e-17·…]]: second pivot ~1e-16 relative → counted as zero.
    let mut a = SymCoo::new(2);
    a.push(0, 0, 1.0);
    a.push(1, 0, 1.0);
    a.push(1, 1, 1.0 + 1e-15);
    let (asm, vals) = a.to_csc();
    let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
    ldlt.set_zero_pivot_tol(1e-12).unwrap();
    ldlt.analyze(2, asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Singular);
    assert_eq!(
        ldlt.inertia(),
        Some(Inertia {
            positive: 1,
            negative: 0,
            zero: 1
        })
    );
    ldlt.set_zero_pivot_tol(0.0).unwrap();
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Success);
    assert_eq!(
        ldlt.inertia(),
        Some(Inertia {
            positive: 2,
            negative: 0,
            zero: 0
        })
    );
}

#[test]
fn cholesky_fails_on_indefinite_and_semidefinite() {
    let mut rng = Rng::new(7);
    let mut a = random_spd(&mut rng, 50, 3);
    a.push(17, 17, -1e3);
    let (asm, vals) = a.to_csc();
    let mut llt = FaerLlt::new(Parallelism::Sequential);
    llt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(
        llt.factorize(&vals).unwrap(),
        FactorStatus::NotPositiveDefinite
    );
    assert!(matches!(
        llt.solve_in_place(&mut vec![0.0; 50]),
        Err(LinalgError::InvalidState(_))
    ));
    // Semidefinite: exact zero pivot.
    let mut z = SymCoo::new(3);
    z.push(0, 0, 1.0);
    z.push(1, 1, 0.0);
    z.push(2, 2, 1.0);
    let (asm, vals) = z.to_csc();
    llt.analyze(3, asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(
        llt.factorize(&vals).unwrap(),
        FactorStatus::NotPositiveDefinite
    );
}

#[test]
fn refactorization_matches_fresh_factorization() {
    let mut rng = Rng::new(8);
    let (n, m) = (200, 70);
    let a = random_kkt(&mut rng, n, m, 3, 1e-3);
    let (asm, vals) = a.to_csc();
    let b = random_vec(&mut rng, n + m);
    for (name, make) in [
        (
            "ldlt",
            (|| Box::new(FaerLdlt::default()) as Box<dyn SymmetricSolver>) as fn() -> _,
        ),
        ("lblt", || Box::new(FaerLblt::default())),
    ] {
        let mut reused = make();
        reused
            .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
            .unwrap();
        assert_eq!(reused.factorize(&vals).unwrap(), FactorStatus::Success);
        for round in 0..3 {
            // Change the values (same structure): scale and shift.
            let new_vals: Vec<f64> = vals
                .iter()
                .map(|v| v * (1.0 + 0.3 * round as f64) + 0.01 * rng.sym())
                .collect();
            let mut fresh = make();
            fresh
                .analyze(asm.n(), asm.col_ptr(), asm.row_idx())
                .unwrap();
            let s1 = reused.factorize(&new_vals).unwrap();
            let s2 = fresh.factorize(&new_vals).unwrap();
            assert_eq!(s1, s2, "{name}");
            assert_eq!(reused.inertia(), fresh.inertia(), "{name}");
            let mut x1 = b.clone();
            let mut x2 = b.clone();
            reused.solve_in_place(&mut x1).unwrap();
            fresh.solve_in_place(&mut x2).unwrap();
            for (u, v) in x1.iter().zip(&x2) {
                assert_eq!(u.to_bits(), v.to_bits(), "{name}: refactorization differs");
            }
        }
    }
}

#[test]
fn rayon_parallelism_gives_valid_results() {
    // The size bound off (0 flops): these small matrices take faer's parallel path.
    let mut rng = Rng::new(9);
    let a = random_kkt(&mut rng, 400, 150, 3, 1e-3);
    let mut ldlt = FaerLdlt::new(Parallelism::rayon_threads(2));
    ldlt.set_parallel_min_flops(0.0).unwrap();
    check_solver("ldlt rayon", &mut ldlt, &a, &mut rng);
    assert_eq!(ldlt.parallelism_in_use(), Parallelism::rayon_threads(2));
    let mut lblt = FaerLblt::new(Parallelism::rayon_threads(0));
    lblt.set_parallel_min_flops(0.0).unwrap();
    check_solver("lblt rayon", &mut lblt, &a, &mut rng);
    assert_eq!(lblt.parallelism_in_use(), Parallelism::rayon_threads(0));
    let spd = random_spd(&mut rng, 300, 3);
    let mut llt = FaerLlt::new(Parallelism::rayon_threads(2));
    llt.set_parallel_min_flops(0.0).unwrap();
    check_solver("llt rayon", &mut llt, &spd, &mut rng);
    assert_eq!(llt.parallelism_in_use(), Parallelism::rayon_threads(2));
}

#[test]
fn small_factorizations_run_sequentially_under_a_parallel_setting() {
    // Below DEFAULT_PARALLEL_MIN_FLOPS a parallel solver factorizes and solves sequentially
    // (faer's per-supernode thread dispatch costs more than it saves there); the bound
    // decides at each analysis.
    let mut rng = Rng::new(11);
    let a = random_kkt(&mut rng, 200, 80, 3, 1e-3);
    let (asm, _) = a.to_csc();
    let mut ldlt = FaerLdlt::new(Parallelism::rayon_threads(2));
    assert_eq!(ldlt.parallel_min_flops(), DEFAULT_PARALLEL_MIN_FLOPS);
    assert_eq!(ldlt.parallelism_in_use(), Parallelism::Sequential);
    ldlt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert!(ldlt.predicted_flops() < DEFAULT_PARALLEL_MIN_FLOPS);
    assert_eq!(ldlt.parallelism(), Parallelism::rayon_threads(2));
    assert_eq!(ldlt.parallelism_in_use(), Parallelism::Sequential);
    check_solver("ldlt below the bound", &mut ldlt, &a, &mut rng);
    // A bound at the matrix's own predicted flops: parallel from the next analysis on.
    ldlt.set_parallel_min_flops(ldlt.predicted_flops()).unwrap();
    assert_eq!(ldlt.parallelism_in_use(), Parallelism::Sequential);
    ldlt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(ldlt.parallelism_in_use(), Parallelism::rayon_threads(2));
    check_solver("ldlt at the bound", &mut ldlt, &a, &mut rng);
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            ldlt.set_parallel_min_flops(bad),
            Err(LinalgError::InvalidValue { .. })
        ));
    }
    // A sequential solver stays sequential whatever the bound.
    let mut seq = FaerLblt::new(Parallelism::Sequential);
    seq.set_parallel_min_flops(0.0).unwrap();
    seq.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(seq.parallelism_in_use(), Parallelism::Sequential);
}

#[test]
fn dynamic_regularization_fixes_wrong_signs() {
    // KKT with zero (2,2) block: with expected signs (+ for x, - for constraints) and a
    // delta, faer replaces bad pivots; inertia then is (n, m, 0).
    let mut rng = Rng::new(10);
    let (n, m) = (40, 15);
    let a = random_kkt(&mut rng, n, m, 2, 0.0);
    let (asm, vals) = a.to_csc();
    let mut ldlt = FaerLdlt::default();
    ldlt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    let signs: Vec<i8> = (0..n + m).map(|i| if i < n { 1 } else { -1 }).collect();
    ldlt.set_dynamic_regularization(Some(simdnlp_linalg::faer_backend::DynamicRegularization {
        signs: Some(signs),
        epsilon: 1e-12,
        delta: 1e-8,
    }))
    .unwrap();
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Success);
    assert_eq!(
        ldlt.inertia(),
        Some(Inertia {
            positive: n,
            negative: m,
            zero: 0
        })
    );
}

#[test]
fn solver_errors_are_typed() {
    let mut s = FaerLdlt::default();
    // factorize before analyze
    assert!(matches!(
        s.factorize(&[1.0]),
        Err(LinalgError::InvalidState(_))
    ));
    // solve before factorize
    s.analyze(2, &[0, 2, 3], &[0, 1, 1]).unwrap();
    assert!(matches!(
        s.solve_in_place(&mut [1.0, 2.0]),
        Err(LinalgError::InvalidState(_))
    ));
    // wrong value length
    assert!(matches!(
        s.factorize(&[1.0, 2.0]),
        Err(LinalgError::LengthMismatch {
            expected: 3,
            got: 2,
            ..
        })
    ));
    // non-finite value
    assert!(matches!(
        s.factorize(&[1.0, f64::NAN, 1.0]),
        Err(LinalgError::InvalidValue { .. })
    ));
    assert_eq!(
        s.factorize(&[2.0, 1.0, 2.0]).unwrap(),
        FactorStatus::Success
    );
    // wrong rhs length
    assert!(matches!(
        s.solve_in_place(&mut [1.0, 2.0, 3.0]),
        Err(LinalgError::LengthMismatch { .. })
    ));
    // pattern errors at analyze
    assert!(matches!(
        s.analyze(2, &[0, 2, 3], &[0, 2, 1]),
        Err(LinalgError::IndexOutOfRange { row: 2, .. })
    ));
    assert!(matches!(
        s.analyze(2, &[0, 1, 2], &[1, 0]),
        Err(LinalgError::InvalidPattern { col: 1, .. })
    ));
    assert!(matches!(
        s.analyze(2, &[0, 2, 3], &[1, 0, 1]),
        Err(LinalgError::InvalidPattern { col: 0, .. })
    ));
    assert!(matches!(
        s.analyze(2, &[0, 2], &[0, 1]),
        Err(LinalgError::LengthMismatch { .. })
    ));
    assert!(matches!(
        s.set_zero_pivot_tol(-1.0),
        Err(LinalgError::InvalidValue { .. })
    ));
}

#[test]
fn empty_matrix() {
    for (_, mut s) in backends() {
        s.analyze(0, &[0], &[]).unwrap();
        assert_eq!(s.factorize(&[]).unwrap(), FactorStatus::Success);
        assert_eq!(s.inertia(), Some(Inertia::default()));
        s.solve_in_place(&mut []).unwrap();
    }
}

#[test]
fn kkt_matched_ordering_handles_zero_constraint_block() {
    // δc = 0: AMD puts some constraint first (exact zero pivot → Singular) while the
    // KKT-matched ordering factorizes with LDLT (no pivoting) and LBLT.
    let mut rng = Rng::new(41);
    for &(n, m) in &[(10, 4), (200, 80), (1200, 500)] {
        let a = random_kkt(&mut rng, n, m, 3, 0.0);
        let (asm, vals) = a.to_csc();
        let mut amd = FaerLdlt::default();
        amd.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        assert_eq!(
            amd.factorize(&vals).unwrap(),
            FactorStatus::Singular,
            "n={n}"
        );
        let expected = Inertia {
            positive: n,
            negative: m,
            zero: 0,
        };
        if n <= 200 {
            assert_eq!(dense_inertia(&a.dense(), 1e-10), expected);
        }
        for ord in [
            FillOrdering::KktMatched { n_primal: n },
            FillOrdering::KktPaired { n_primal: n },
        ] {
            let mut ldlt = FaerLdlt::default();
            ldlt.set_ordering(ord);
            assert_eq!(ldlt.ordering(), ord);
            check_solver_refined(&format!("ldlt {ord:?}"), &mut ldlt, &a, &mut rng);
            assert_eq!(ldlt.inertia(), Some(expected));
            let mut lblt = FaerLblt::default();
            lblt.set_ordering(ord);
            check_solver_refined(&format!("lblt {ord:?}"), &mut lblt, &a, &mut rng);
            assert_eq!(lblt.inertia(), Some(expected));
        }
    }
}

#[test]
fn kkt_matched_ordering_rank_deficient_jacobian() {
    // Two identical constraint rows: the KKT matrix is singular (one zero eigenvalue).
    let mut rng = Rng::new(42);
    let n = 30;
    let h = random_spd(&mut rng, n, 2);
    let mut a = SymCoo::new(n + 3);
    for k in 0..h.vals.len() {
        a.push(h.rows[k], h.cols[k], h.vals[k]);
    }
    for (r, c, v) in [
        (0, 3, 1.0),
        (0, 7, 2.0),
        (1, 3, 1.0),
        (1, 7, 2.0),
        (2, 11, 1.5),
    ] {
        a.push(n + r, c, v);
    }
    for r in 0..3 {
        a.push(n + r, n + r, 0.0);
    }
    let expected = dense_inertia(&a.dense(), 1e-10);
    assert_eq!(
        expected,
        Inertia {
            positive: n,
            negative: 2,
            zero: 1
        }
    );
    let (asm, vals) = a.to_csc();
    let mut ldlt = FaerLdlt::default();
    ldlt.set_ordering(FillOrdering::KktMatched { n_primal: n });
    // A rounding-level pivot must count as zero whatever its sign: use a tolerance.
    ldlt.set_zero_pivot_tol(1e-14).unwrap();
    ldlt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Singular);
    if let Some(i) = ldlt.inertia() {
        assert_eq!(i, expected);
    }
    // An invalid n_primal is a typed error at analysis.
    ldlt.set_ordering(FillOrdering::KktMatched { n_primal: n + 10 });
    assert!(matches!(
        ldlt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()),
        Err(LinalgError::InvalidValue { .. })
    ));
}

/// `[[0, a], [a, 0]]` (a variable without curvature and its constraint) in KKT-matched
/// order: the variable's pivot is an exact zero. Without static pivoting LDLᵀ stops
/// (singular); with it the pivot becomes `δ = 1e-8 · max|A_ij|`, the inertia is the
/// matrix's `(1, 1)` and one refinement step recovers the solution. A zero pivot of a
/// constraint row (outside the static rows) stays singular.
#[test]
fn zero_pivot_perturbation_replaces_primal_zero_pivots_only() {
    let a = 2.0;
    // lower triangle of [[0, a], [a, 0]] with both diagonals stored
    let (col_ptr, row_idx, vals) = (vec![0, 2, 3], vec![0, 1, 1], vec![0.0, a, 0.0]);
    let analyzed = |perturbation: f64, rows: usize| {
        let mut ldlt = FaerLdlt::default();
        ldlt.set_ordering(FillOrdering::KktMatched { n_primal: 1 });
        ldlt.set_zero_pivot_perturbation(perturbation, rows)
            .unwrap();
        ldlt.analyze(2, &col_ptr, &row_idx).unwrap();
        ldlt
    };
    let mut plain = analyzed(0.0, 1);
    assert_eq!(plain.factorize(&vals).unwrap(), FactorStatus::Singular);
    assert_eq!(plain.perturbed_pivots(), 0);
    // it stopped at the variable's row (input order)
    assert_eq!(plain.zero_pivot_row(), Some(0));

    let mut ldlt = analyzed(1e-8, 1);
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Success);
    assert_eq!(ldlt.perturbed_pivots(), 1);
    assert_eq!(ldlt.zero_pivot_row(), None);
    // from now on every factorization starts with static pivoting
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Success);
    assert_eq!(ldlt.perturbed_pivots(), 1);
    assert_eq!(
        ldlt.inertia(),
        Some(Inertia {
            positive: 1,
            negative: 1,
            zero: 0
        })
    );
    // x = A⁻¹ b = (b1/a, b0/a); the perturbed factor is off by O(δ), one refinement step
    // (x += A_pert⁻¹ (b − A x)) makes it exact
    let b = [1.0, 3.0];
    let mut x = b;
    ldlt.solve_in_place(&mut x).unwrap();
    let exact = [b[1] / a, b[0] / a];
    let mut ax = [0.0; 2];
    sym_lower_matvec(&col_ptr, &row_idx, &vals, &x, &mut ax).unwrap();
    let mut r = [b[0] - ax[0], b[1] - ax[1]];
    ldlt.solve_in_place(&mut r).unwrap();
    for k in 0..2 {
        assert!(
            (x[k] - exact[k]).abs() < 1e-6,
            "unrefined x[{k}] = {}",
            x[k]
        );
        assert!((x[k] + r[k] - exact[k]).abs() < 1e-14, "refined x[{k}]");
    }

    // The same matrix with no static rows: the variable's zero pivot is not replaceable.
    let mut none = analyzed(1e-8, 0);
    assert_eq!(none.factorize(&vals).unwrap(), FactorStatus::Singular);
    // A constraint without any variable (zero row) after a regular variable.
    let (cp, ri, v) = (vec![0, 1, 2], vec![0, 1], vec![1.0, 0.0]);
    let mut rank_deficient = FaerLdlt::default();
    rank_deficient.set_zero_pivot_perturbation(1e-8, 1).unwrap();
    rank_deficient.analyze(2, &cp, &ri).unwrap();
    assert_eq!(
        rank_deficient.factorize(&v).unwrap(),
        FactorStatus::Singular
    );
    // the constraint's row
    assert_eq!(rank_deficient.zero_pivot_row(), Some(1));
    assert!(ldlt.set_zero_pivot_perturbation(-1.0, 1).is_err());
    assert!(ldlt.set_zero_pivot_perturbation(f64::NAN, 1).is_err());
}

/// The KKT matrix `[[I, Jᵀ], [J, 0]]` of a chain `c_k = l·x_k + s·x_{k+1}` (`k < m`, `m + 1`
/// variables, rows `0..=m` variables, `m + 1..` constraints): nonsingular (`J` has full
/// row rank, `σ_min(J) ≥ l − s`), but AMD eliminates the path from its `x_m` end, so each
/// constraint comes right after its variable with the small entry `s`: the constraint
/// pivots shrink and the variable pivots grow by `(l/s)²` per link (LV rosenbrock's
/// pattern, whose chain overflows after ~145 links).
fn growing_chain(m: usize, l: f64, s: f64) -> SymCoo {
    let nv = m + 1;
    let mut a = SymCoo::new(nv + m);
    for v in 0..nv {
        a.push(v, v, 1.0);
    }
    for k in 0..m {
        a.push(nv + k, k, l);
        a.push(nv + k, k + 1, s);
    }
    a
}

#[test]
fn stopped_by_growth_is_told_from_an_exact_zero_pivot() {
    // Growth 1e8 per link overflows f64 after ~39 links; the matrix itself has the
    // inertia (m + 1, m, 0) and σ_min ≈ 1.
    let m = 60;
    let a = growing_chain(m, 1e4, 1.0);
    assert_eq!(
        dense_inertia(&a.dense(), 1e-12),
        Inertia {
            positive: m + 1,
            negative: m,
            zero: 0
        }
    );
    let (asm, vals) = a.to_csc();
    let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
    ldlt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(ldlt.factorize(&vals).unwrap(), FactorStatus::Singular);
    assert!(ldlt.zero_pivot_row().is_some());
    assert!(
        ldlt.stopped_by_growth(),
        "the stop was an overflow, growth's"
    );
    // With -δc on the constraint diagonal the pivots stay bounded: no stop, no flag.
    let mut reg = a.clone();
    for k in 0..m {
        reg.push(m + 1 + k, m + 1 + k, -1e-8);
    }
    let (asm_reg, vals_reg) = reg.to_csc();
    ldlt.analyze(asm_reg.n(), asm_reg.col_ptr(), asm_reg.row_idx())
        .unwrap();
    assert_eq!(ldlt.factorize(&vals_reg).unwrap(), FactorStatus::Success);
    assert!(!ldlt.stopped_by_growth());
    // A short chain grows without overflowing: factorized (badly), no flag.
    let short = growing_chain(10, 1e4, 1.0);
    let (asm_short, vals_short) = short.to_csc();
    ldlt.analyze(asm_short.n(), asm_short.col_ptr(), asm_short.row_idx())
        .unwrap();
    assert_eq!(ldlt.factorize(&vals_short).unwrap(), FactorStatus::Success);
    assert!(!ldlt.stopped_by_growth());

    // An exact zero pivot (a rank-one block) is a zero, not growth's: simplicial path…
    let mut z = SymCoo::new(5);
    z.push(0, 0, 2.0);
    z.push(1, 1, 1.0);
    z.push(2, 2, -1.0);
    z.push(3, 3, 1.0);
    z.push(4, 3, 1.0);
    z.push(4, 4, 1.0);
    let (asm_z, vals_z) = z.to_csc();
    let mut ldlt = FaerLdlt::new(Parallelism::Sequential);
    ldlt.analyze(asm_z.n(), asm_z.col_ptr(), asm_z.row_idx())
        .unwrap();
    assert_eq!(ldlt.factorize(&vals_z).unwrap(), FactorStatus::Singular);
    assert_eq!(ldlt.is_supernodal(), Some(false));
    assert!(ldlt.zero_pivot_row().is_some());
    assert!(!ldlt.stopped_by_growth());
    // …and supernodal (a dense matrix of rank one: the second pivot is 1 − 1 = 0).
    let n = 160;
    let mut d = SymCoo::new(n);
    for j in 0..n {
        for i in j..n {
            d.push(i, j, 1.0);
        }
    }
    let (asm_d, vals_d) = d.to_csc();
    ldlt.analyze(asm_d.n(), asm_d.col_ptr(), asm_d.row_idx())
        .unwrap();
    assert_eq!(ldlt.factorize(&vals_d).unwrap(), FactorStatus::Singular);
    assert_eq!(ldlt.is_supernodal(), Some(true));
    assert!(!ldlt.stopped_by_growth());
    // …where an overflow is read from the pivot left in the diagonal block: the same
    // dense pattern, first pivot 1e-300 coupled by 1e10 to every other row.
    let mut o = SymCoo::new(n);
    for j in 0..n {
        for i in j..n {
            let v = match (i, j) {
                (0, 0) => 1e-300,
                (_, 0) => 1e10,
                _ if i == j => 1.0,
                _ => 0.0,
            };
            o.push(i, j, v);
        }
    }
    let (asm_o, vals_o) = o.to_csc();
    ldlt.analyze(asm_o.n(), asm_o.col_ptr(), asm_o.row_idx())
        .unwrap();
    assert_eq!(ldlt.factorize(&vals_o).unwrap(), FactorStatus::Singular);
    assert_eq!(ldlt.is_supernodal(), Some(true));
    assert!(ldlt.stopped_by_growth());
}
