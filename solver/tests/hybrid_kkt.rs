//! `kkt = hybrid` (inequality rows condensed, equality rows exact through conjugate
//! gradients on their Schur complement) on degenerate and nonconvex problems: the same
//! optima as the augmented form, through the shared inertia correction (δ_w when the
//! Cholesky factorization of `K_γ` fails, δ_c when the equality Jacobian is rank deficient).

mod common;
use common::*;
use simdnlp_solver::{KktKind, Options, SolveResult, Status, solve};

fn with(kkt: KktKind) -> Options {
    Options {
        kkt,
        ..Options::default()
    }
}

/// Solves `m` with the augmented and the hybrid form; both must succeed with the same
/// objective and point. Returns the hybrid result.
fn agree<const N: usize>(m: &AdModel<N>) -> SolveResult {
    let a = solve(m, &with(KktKind::Augmented)).unwrap();
    let h = solve(m, &with(KktKind::Hybrid)).unwrap();
    println!(
        "{}: augmented {:?} {} iters, hybrid {:?} {} iters, counts {:?}",
        m.meta.name, a.status, a.iterations, h.status, h.iterations, h.counts
    );
    assert_eq!(a.status, Status::SolveSucceeded, "augmented");
    assert_eq!(h.status, Status::SolveSucceeded, "hybrid");
    assert!((a.objective - h.objective).abs() < 1e-7 * a.objective.abs().max(1.0));
    for (xa, xh) in a.x.iter().zip(&h.x) {
        assert!(
            (xa - xh).abs() < 1e-6 * xa.abs().max(1.0),
            "{:?} vs {:?}",
            a.x,
            h.x
        );
    }
    h
}

/// Three copies of one equality row (rank one): the Schur complement is singular at
/// δ_c = 0; the right-hand side lies in its range here, so conjugate gradients still
/// converge (an inconsistent one leaves the solve inaccurate and δ_c regularizes it).
#[test]
fn rank_deficient_equalities() {
    let m = duplicated_rows();
    let h = agree(&m);
    let xs = [1.0 / 3.0, 4.0 / 3.0, -2.0 / 3.0];
    for (xi, si) in h.x.iter().zip(xs) {
        assert!((xi - si).abs() < 1e-6, "x = {:?}", h.x);
    }
}

/// An equality row whose Jacobian is identically zero (`0 = 0`) beside an inequality.
#[test]
fn zero_equality_row() {
    let m = AdModel::new(
        "zero row",
        [0.5, 0.5],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.0, 1.0], vec![0.0, INF]),
        |x| (x[0] - 2.0).sq() + (x[1] - 2.0).sq(),
        |x, c| {
            c.push(x[0] * 0.0);
            c.push(x[0].sq() + x[1].sq());
        },
    );
    let r = solve(&m, &with(KktKind::Hybrid)).unwrap();
    println!("zero row: {:?} {} iters {:?}", r.status, r.iterations, r.x);
    assert_eq!(r.status, Status::SolveSucceeded);
    for xi in &r.x {
        assert!((xi - 2.0).abs() < 1e-6, "x = {:?}", r.x);
    }
}

/// A double well restricted to the line `x₁ − x₂ = 0.5`, started where the Hessian is
/// negative along the line: `K_γ` is not positive definite, so δ_w is added.
#[test]
fn nonconvex_on_the_equality_null_space() {
    let m = AdModel::new(
        "double well on a line",
        [0.1, -0.4],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.5, -10.0], vec![0.5, INF]),
        |x| (x[0].sq() - 1.0).sq() + (x[1] - 0.5).sq(),
        |x, c| {
            c.push(x[0] - x[1]);
            c.push(x[0] + x[1]);
        },
    );
    let h = agree(&m);
    assert!(h.counts.factorizations_inertia > 0, "{:?}", h.counts);
    assert!(h.counts.cg_iterations > 0);
    // ordinary work: one factorization per search direction (iterations + least squares)
    let c = h.counts;
    assert_eq!(
        c.factorizations - c.factorizations_inertia - c.factorizations_accuracy,
        h.iterations + 1
    );
}

/// Without equality rows the hybrid form is the condensed form without relaxed rows: no
/// conjugate-gradient iterations.
#[test]
fn inequalities_only() {
    let m = infeasible_disk();
    let r = solve(&m, &with(KktKind::Hybrid)).unwrap();
    assert_eq!(r.status, Status::InfeasibleProblemDetected);
    assert_eq!(r.counts.cg_iterations, 0);
    let h = agree(&hs15().model);
    assert_eq!(h.counts.cg_iterations, 0);
}
