//! The `warm_start` example as a test: a warm-started re-solve after a parameter and a
//! bound change reaches the same optimum as a cold solve of the changed model, in fewer
//! iterations, without a second symbolic analysis.

#[path = "../examples/warm_start.rs"]
#[allow(dead_code)]
mod warm_start;

use simdnlp::prelude::*;

#[test]
fn warm_resolve_matches_cold_in_fewer_iterations() {
    let r = warm_start::run(100, &Options::default()).expect("solves start");
    for s in [&r.first, &r.warm, &r.cold] {
        assert_eq!(s.status, Status::SolveSucceeded, "{s:?}");
    }
    let rel = (r.warm.objective - r.cold.objective).abs() / r.cold.objective.abs();
    assert!(
        rel < 1e-6,
        "warm {} vs cold {}",
        r.warm.objective,
        r.cold.objective
    );
    assert!(
        r.warm.iterations < r.cold.iterations,
        "warm {} iterations, cold {}",
        r.warm.iterations,
        r.cold.iterations
    );
    // the changes matter: the optimum moved
    assert!((r.first.objective - r.warm.objective).abs() > 1e-4);
}
