//! Iterative refinement: convergence with a perturbed factorization, stopping rules, errors.

mod common;

use common::*;
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    FactorStatus, FaerLdlt, LinalgError, RefineOptions, RefineWork, SymmetricSolver,
    iterative_refinement, refine_solution,
};

#[test]
fn refinement_recovers_accuracy_from_regularized_factor() {
    // Factor K + 1e-4·I, but refine against K (quasi-definite KKT): the residual ratio must
    // drop below 1e-10 after a few steps.
    let mut rng = Rng::new(31);
    let (n, m) = (150, 60);
    let a = random_kkt(&mut rng, n, m, 3, 1e-2);
    let (asm, vals) = a.to_csc();
    let mut reg_vals = vals.clone();
    for (i, &pos) in asm.diag_positions().iter().enumerate() {
        reg_vals[pos] += if i < n { 1e-4 } else { -1e-4 };
    }
    let mut s = FaerLdlt::default();
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(s.factorize(&reg_vals).unwrap(), FactorStatus::Success);
    let b = random_vec(&mut rng, n + m);
    let mut x = vec![0.0; n + m];
    let mut work = RefineWork::new(n + m);
    let mut mv = |x: &[f64], y: &mut [f64]| {
        sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).unwrap()
    };
    let stats = iterative_refinement(
        &mut s,
        &mut mv,
        &b,
        &mut x,
        &mut work,
        &RefineOptions::default(),
    )
    .unwrap();
    assert!(
        stats.initial_ratio > 1e-8,
        "perturbation should be visible: {stats:?}"
    );
    assert!(stats.converged, "{stats:?}");
    assert!(stats.final_ratio <= 1e-10);
    assert!(stats.steps >= 2 && stats.steps <= 10, "{stats:?}");
    assert!(!stats.suspect_singular);
    assert!(backward_error(&asm, &vals, &x, &b) < 1e-10);
}

#[test]
fn exact_factor_takes_min_steps() {
    let mut rng = Rng::new(32);
    let a = random_spd(&mut rng, 80, 3);
    let (asm, vals) = a.to_csc();
    let mut s = FaerLdlt::default();
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    s.factorize(&vals).unwrap();
    let b = random_vec(&mut rng, 80);
    let mut x = vec![0.0; 80];
    let mut work = RefineWork::new(80);
    let mut mv = |x: &[f64], y: &mut [f64]| {
        sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).unwrap()
    };
    let opts = RefineOptions::default();
    let stats = iterative_refinement(&mut s, &mut mv, &b, &mut x, &mut work, &opts).unwrap();
    assert_eq!(stats.steps, 1, "{stats:?}");
    assert!(stats.converged);
    // min_steps = 0: no refinement needed at all.
    let opts0 = RefineOptions {
        min_steps: 0,
        ..opts
    };
    let stats = iterative_refinement(&mut s, &mut mv, &b, &mut x, &mut work, &opts0).unwrap();
    assert_eq!(stats.steps, 0, "{stats:?}");
}

#[test]
fn poor_factor_improves_and_flags_suspect() {
    // Factor a very different matrix (0.3·I) than the one refined against (an indefinite
    // matrix): the GMRES steps still reduce the residual, slowly, until the ∞-norm ratio
    // stops decreasing; the solve is flagged.
    let mut rng = Rng::new(33);
    let n = 40;
    let a = random_sym(&mut rng, n, 3, |j| if j % 2 == 0 { 1.0 } else { -1.0 });
    let (asm, vals) = a.to_csc();
    let wrong: Vec<f64> = (0..asm.nnz())
        .map(|k| {
            if asm.diag_positions().contains(&k) {
                0.3
            } else {
                0.0
            }
        })
        .collect();
    let mut s = FaerLdlt::default();
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    s.factorize(&wrong).unwrap();
    let b = random_vec(&mut rng, n);
    let mut x = vec![0.0; n];
    let mut work = RefineWork::new(n);
    let mut mv = |x: &[f64], y: &mut [f64]| {
        sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).unwrap()
    };
    let opts = RefineOptions::default();
    let stats = iterative_refinement(&mut s, &mut mv, &b, &mut x, &mut work, &opts).unwrap();
    assert!(!stats.converged, "{stats:?}");
    assert!(stats.suspect_singular, "{stats:?}");
    assert!(
        stats.steps >= 2 && stats.steps <= opts.max_steps,
        "{stats:?}"
    );
    assert!(
        stats.final_ratio < 0.5 * stats.initial_ratio,
        "GMRES steps make progress: {stats:?}"
    );
    // Restarted every 3 steps: still progress, across a restart.
    let mut short = RefineWork::with_krylov_dim(n, 3);
    let restarted = iterative_refinement(&mut s, &mut mv, &b, &mut x, &mut short, &opts).unwrap();
    assert!(restarted.steps > 3, "beyond one cycle: {restarted:?}");
    assert!(
        restarted.final_ratio < restarted.initial_ratio,
        "{restarted:?}"
    );
}

#[test]
fn stagnation_stops_and_flags_suspect() {
    // A is singular (last row and column zero) and b has a component outside its range:
    // no step can remove the last residual entry. The factor is that of A + e_n e_nᵀ, exact
    // elsewhere, so the ratio stops decreasing at once; refinement must stop early, keep
    // the best solution and flag the solve.
    let mut rng = Rng::new(34);
    let n = 40;
    let a = random_spd(&mut rng, n, 3);
    let (asm, mut vals) = a.to_csc();
    let last = n - 1;
    for col in 0..n {
        let range = asm.col_ptr()[col]..asm.col_ptr()[col + 1];
        for (v, &row) in vals[range.clone()].iter_mut().zip(&asm.row_idx()[range]) {
            if col == last || row == last {
                *v = 0.0;
            }
        }
    }
    let mut factored = vals.clone();
    factored[asm.diag_positions()[last]] = 1.0;
    let mut s = FaerLdlt::default();
    s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(s.factorize(&factored).unwrap(), FactorStatus::Success);
    let mut b = random_vec(&mut rng, n);
    b[last] = 1.0;
    let mut x = vec![0.0; n];
    let mut work = RefineWork::new(n);
    let mut mv = |x: &[f64], y: &mut [f64]| {
        sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).unwrap()
    };
    let stats = iterative_refinement(
        &mut s,
        &mut mv,
        &b,
        &mut x,
        &mut work,
        &RefineOptions::default(),
    )
    .unwrap();
    assert!(!stats.converged, "{stats:?}");
    assert!(stats.suspect_singular, "{stats:?}");
    assert!(stats.steps < 4, "should stop on stagnation: {stats:?}");
    assert!(stats.final_ratio <= stats.initial_ratio, "{stats:?}");
    assert_eq!(work.residual()[last], 1.0, "the residual of the returned x");
}

#[test]
fn refine_errors_are_typed() {
    let mut s = FaerLdlt::default();
    let mut mv = |x: &[f64], y: &mut [f64]| y.copy_from_slice(x);
    let mut work = RefineWork::new(2);
    let opts = RefineOptions::default();
    // Solve before any factorization.
    let e = iterative_refinement(
        &mut s,
        &mut mv,
        &[1.0, 2.0],
        &mut [0.0; 2],
        &mut work,
        &opts,
    );
    assert!(matches!(e, Err(LinalgError::InvalidState(_))));
    s.analyze(2, &[0, 1, 2], &[0, 1]).unwrap();
    s.factorize(&[1.0, 1.0]).unwrap();
    // Mismatched lengths.
    let e = iterative_refinement(
        &mut s,
        &mut mv,
        &[1.0, 2.0],
        &mut [0.0; 3],
        &mut work,
        &opts,
    );
    assert!(matches!(e, Err(LinalgError::LengthMismatch { .. })));
    let mut small = RefineWork::new(1);
    let e = refine_solution(
        &mut s,
        &mut mv,
        &[1.0, 2.0],
        &mut [0.0; 2],
        &mut small,
        &opts,
    );
    assert!(matches!(e, Err(LinalgError::LengthMismatch { .. })));
    // Bad option.
    let bad = RefineOptions {
        residual_ratio_max: f64::NAN,
        ..opts
    };
    let e = refine_solution(&mut s, &mut mv, &[1.0, 2.0], &mut [0.0; 2], &mut work, &bad);
    assert!(matches!(e, Err(LinalgError::InvalidValue { .. })));
    // And a working call: identity system.
    let mut x = [0.0; 2];
    let st = iterative_refinement(&mut s, &mut mv, &[1.0, 2.0], &mut x, &mut work, &opts).unwrap();
    assert_eq!(x, [1.0, 2.0]);
    assert!(st.converged);
}
