//! The `acopf` example as a test: case5_pjm read from the PGLIB directory, solved to the
//! BASELINE.md objective, and the dispatch read back per block.

#[path = "../examples/acopf.rs"]
#[allow(dead_code)]
mod acopf;

use simdnlp::prelude::*;

#[test]
fn case5_dispatch_matches_baseline() {
    let c = acopf::solve_case("case5_pjm").expect("case5_pjm solves");
    assert_eq!(c.result.status, Status::SolveSucceeded);
    let reference = c.reference.expect("case5_pjm is in BASELINE.md");
    assert!((c.result.objective - reference).abs() / reference < 1e-4);
    // the dispatch read through the block handle recomputes the objective
    let pg = c.result.solution(&c.model, &c.blocks.pg).unwrap();
    let cost: f64 = c
        .data
        .gens
        .iter()
        .zip(pg.iter())
        .map(|(g, &p)| g.c2 * p * p + g.c1 * p + g.c0)
        .sum();
    assert!((cost - c.result.objective).abs() < 1e-8 * cost.abs());
}

#[test]
fn unknown_case_is_an_error() {
    assert!(acopf::solve_case("case_that_does_not_exist").is_err());
}
