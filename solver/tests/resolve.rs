//! Persistent solver: re-solves reuse the analysis and warm-start.

mod common;
use common::*;
use simdnlp_solver::{Options, Solver, Status};

#[test]
fn warm_start_needs_fewer_iterations_than_cold() {
    let c = hs71();
    let mut solver = Solver::new(c.model, Options::default()).unwrap();
    let first = solver.solve().unwrap();
    assert_eq!(first.status, Status::SolveSucceeded);
    assert!((first.objective - 17.014017289).abs() < 1e-6);
    // small change of a constraint bound
    solver.model_mut().meta.lcon[0] = 25.5;
    let warm = solver.solve().unwrap();
    assert_eq!(warm.status, Status::SolveSucceeded);
    // cold solve of the changed model for comparison
    solver.clear_warm_start();
    let cold = solver.solve().unwrap();
    assert_eq!(cold.status, Status::SolveSucceeded);
    println!(
        "hs71 first {} iters, warm re-solve {} iters, cold re-solve {} iters",
        first.iterations, warm.iterations, cold.iterations
    );
    assert!((warm.objective - cold.objective).abs() < 1e-6 * cold.objective.abs());
    assert!(warm.iterations < cold.iterations);
    assert_eq!(
        solver.symbolic_analyses(),
        1,
        "re-solves must reuse the analysis"
    );
}

#[test]
fn warm_start_after_start_and_bound_changes() {
    let c = hs118();
    let mut solver = Solver::new(c.model, Options::default()).unwrap();
    let first = solver.solve().unwrap();
    assert_eq!(first.status, Status::SolveSucceeded);
    solver.model_mut().meta.uvar[0] = 20.0;
    let warm = solver.solve().unwrap();
    solver.clear_warm_start();
    let cold = solver.solve().unwrap();
    println!(
        "hs118 first {} iters, warm {} iters ({:?}), cold {} iters",
        first.iterations, warm.iterations, warm.status, cold.iterations
    );
    assert_eq!(warm.status, Status::SolveSucceeded);
    assert!((warm.objective - cold.objective).abs() < 1e-6 * cold.objective.abs());
    assert!(warm.iterations < cold.iterations);
}

#[test]
fn structure_change_triggers_a_new_analysis() {
    let c = hs71();
    let mut solver = Solver::new(c.model, Options::default()).unwrap();
    let first = solver.solve().unwrap();
    assert_eq!(first.status, Status::SolveSucceeded);
    // the inequality row x1 x2 x3 x4 >= 25 becomes an equality (active at the optimum)
    solver.model_mut().meta.ucon[0] = 25.0;
    let second = solver.solve().unwrap();
    assert_eq!(second.status, Status::SolveSucceeded);
    assert_eq!(solver.symbolic_analyses(), 2);
    assert!((second.objective - first.objective).abs() < 1e-6 * first.objective);
    // and back: the first analysis is not cached any more, so a third one happens
    solver.model_mut().meta.ucon[0] = f64::INFINITY;
    let third = solver.solve().unwrap();
    assert_eq!(third.status, Status::SolveSucceeded);
    assert_eq!(solver.symbolic_analyses(), 3);
}

#[test]
fn resolve_after_changing_an_equality_value() {
    let c = hs71();
    let mut solver = Solver::new(c.model, Options::default()).unwrap();
    assert_eq!(solver.solve().unwrap().status, Status::SolveSucceeded);
    solver.model_mut().meta.lcon[1] = 41.0;
    solver.model_mut().meta.ucon[1] = 41.0;
    let warm = solver.solve().unwrap();
    assert_eq!(warm.status, Status::SolveSucceeded);
    assert!(
        (warm.constraints[1] - 41.0).abs() < 1e-7,
        "c = {:?}",
        warm.constraints
    );
    let cold = simdnlp_solver::solve(solver.model(), &Options::default()).unwrap();
    assert!((warm.objective - cold.objective).abs() < 1e-7 * cold.objective.abs());
    assert_eq!(solver.symbolic_analyses(), 1);
}

#[test]
fn changing_the_kkt_option_between_solves_rebuilds_the_backend() {
    let c = hs71();
    let mut solver = Solver::new(c.model, Options::default()).unwrap();
    let a = solver.solve().unwrap();
    solver.options_mut().kkt = simdnlp_solver::KktKind::Condensed;
    let b = solver.solve().unwrap();
    assert_eq!(b.status, Status::SolveSucceeded);
    assert_eq!(solver.symbolic_analyses(), 2);
    assert!((a.objective - b.objective).abs() < 1e-6 * a.objective);
}
