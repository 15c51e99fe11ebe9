//! `examples/callback.rs`: the Goddard rocket stopped from the callback after 5 iterations.

#[allow(dead_code)]
#[path = "../examples/callback.rs"]
mod callback;

use simdnlp::Status;

#[test]
fn goddard_stops_after_five_iterations() {
    let (records, result) = callback::solve_stopped(50, 5).unwrap();
    assert_eq!(result.status, Status::UserRequestedStop);
    assert_eq!(result.iterations, 5);
    let iters: Vec<usize> = records.iter().map(|r| r.iter).collect();
    assert_eq!(iters, [0, 1, 2, 3, 4, 5]);
    // the result is the 5th iterate: its objective is the last record's
    let last = records.last().unwrap();
    assert!((last.objective - result.objective).abs() <= 1e-12 * result.objective.abs());
    assert!(format!("{:?}", result.status) == "UserRequestedStop");
}
