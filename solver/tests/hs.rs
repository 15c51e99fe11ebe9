//! Hock–Schittkowski problems against their published optima.

mod common;
use common::*;
use simdnlp_solver::{Options, Status, solve};

fn opts() -> Options {
    Options::default()
}

fn check<const N: usize>(case: Case<N>, o: &Options) -> simdnlp_solver::SolveResult {
    let r = solve(&case.model, o).expect("solve");
    println!(
        "{:<12} {:?} iters {:3} f {:.10} (ref {:.10}) time {:.4}s",
        case.model.meta.name, r.status, r.iterations, r.objective, case.f_opt, r.timings.total
    );
    assert_eq!(r.status, Status::SolveSucceeded, "{}", case.model.meta.name);
    let err = (r.objective - case.f_opt).abs() / case.f_opt.abs().max(1.0);
    assert!(
        err < 1e-6,
        "{}: objective {} vs {}",
        case.model.meta.name,
        r.objective,
        case.f_opt
    );
    if let Some(xo) = case.x_opt {
        for (i, xi) in xo.iter().enumerate() {
            assert!(
                (r.x[i] - xi).abs() < 1e-5 * xi.abs().max(1.0),
                "{}: x[{i}] = {} vs {}",
                case.model.meta.name,
                r.x[i],
                xi
            );
        }
    }
    r
}

#[test]
fn hs006() {
    check(hs6(), &opts());
}
#[test]
fn hs007() {
    check(hs7(), &opts());
}
#[test]
fn hs014() {
    check(hs14(), &opts());
}
#[test]
fn hs015() {
    check(hs15(), &opts());
}
#[test]
fn hs021() {
    check(hs21(), &opts());
}
#[test]
fn hs035() {
    check(hs35(), &opts());
}
#[test]
fn hs036() {
    check(hs36(), &opts());
}
#[test]
fn hs039() {
    check(hs39(), &opts());
}
#[test]
fn hs071() {
    check(hs71(), &opts());
}
#[test]
fn hs076() {
    check(hs76(), &opts());
}
#[test]
fn hs118_() {
    check(hs118(), &opts());
}
#[test]
fn hs023() {
    check(hs23(), &opts());
}
#[test]
fn hs043() {
    check(hs43(), &opts());
}
#[test]
fn hs113_() {
    check(hs113(), &opts());
}
#[test]
fn hs106_() {
    check(hs106(), &opts());
}
#[test]
fn rosenbrock_() {
    check(rosenbrock(), &opts());
}

fn condensed() -> Options {
    Options {
        kkt: simdnlp_solver::KktKind::Condensed,
        ..Options::default()
    }
}

fn hybrid() -> Options {
    Options {
        kkt: simdnlp_solver::KktKind::Hybrid,
        ..Options::default()
    }
}

fn lblt() -> Options {
    Options {
        linear_solver: simdnlp_solver::LinearSolverKind::Lblt,
        ..Options::default()
    }
}

/// Every problem of the set with another KKT formulation / factorization must reach the
/// same optimum.
fn whole_set(o: &Options) -> usize {
    let mut iters = 0;
    iters += check(hs6(), o).iterations;
    iters += check(hs7(), o).iterations;
    iters += check(hs14(), o).iterations;
    iters += check(hs15(), o).iterations;
    iters += check(hs21(), o).iterations;
    iters += check(hs35(), o).iterations;
    iters += check(hs36(), o).iterations;
    iters += check(hs39(), o).iterations;
    iters += check(hs71(), o).iterations;
    iters += check(hs76(), o).iterations;
    iters += check(hs118(), o).iterations;
    iters += check(rosenbrock(), o).iterations;
    iters += check(hs23(), o).iterations;
    iters += check(hs43(), o).iterations;
    iters += check(hs113(), o).iterations;
    iters += check(hs106(), o).iterations;
    iters
}

#[test]
fn condensed_kkt_reaches_the_same_optima() {
    let total = whole_set(&condensed());
    println!("condensed: {total} iterations in total");
}

#[test]
fn hybrid_kkt_reaches_the_same_optima() {
    let total = whole_set(&hybrid());
    println!("hybrid: {total} iterations in total");
}

/// HS71 (one equality and one inequality row): the hybrid form takes the augmented form's
/// path (same iterations, same optimum) and solves its equality row by conjugate gradients.
#[test]
fn hybrid_kkt_follows_the_augmented_path_on_hs71() {
    let a = check(hs71(), &opts());
    let h = check(hs71(), &hybrid());
    assert_eq!(a.iterations, h.iterations);
    assert!(h.counts.cg_iterations > 0, "{:?}", h.counts);
    assert_eq!(a.counts.cg_iterations, 0);
    for (xa, xh) in a.x.iter().zip(&h.x) {
        assert!((xa - xh).abs() < 1e-7, "{xa} vs {xh}");
    }
}

#[test]
fn lblt_reaches_the_same_optima() {
    let total = whole_set(&lblt());
    println!("lblt: {total} iterations in total");
}

#[test]
fn ldlt_whole_set() {
    let total = whole_set(&opts());
    println!("ldlt: {total} iterations in total");
}

#[test]
fn multifrontal_reaches_the_same_optima() {
    for threshold in [0.01, 1e-8] {
        let o = Options {
            linear_solver: simdnlp_solver::LinearSolverKind::Multifrontal,
            pivot_threshold: threshold,
            ..Options::default()
        };
        let total = whole_set(&o);
        println!("multifrontal (u = {threshold}): {total} iterations in total");
    }
}
