//! Driving a solve: the intermediate callback, the cancel token and the history.

mod common;
use common::*;
use simdnlp_modeling::NlpModel;
use simdnlp_solver::{
    CancelToken, Hooks, IterationRecord, Options, PrintLevel, Solver, Status, solve, solve_with,
};
use std::ops::ControlFlow;
use std::sync::mpsc;

fn quiet() -> Options {
    Options {
        print_level: PrintLevel::None,
        ..Options::default()
    }
}

/// Stops at the record of iteration `k`.
fn stop_at(k: usize) -> impl FnMut(&IterationRecord) -> ControlFlow<()> {
    move |record| {
        if record.iter >= k {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

#[test]
fn callback_stop_at_k_leaves_the_kth_iterate() {
    check_stops(&hs71().model, "hs71");
    check_stops(&rosenbrock().model, "rosenbrock");
    check_stops(&hs118().model, "hs118");
}

/// A callback stop at iteration k returns the k-th iterate: the point a `max_iter = k`
/// solve ends at.
fn check_stops<M: NlpModel>(model: &M, name: &str) {
    let full = solve(model, &quiet()).unwrap();
    assert!(full.status.is_success(), "{name}: {:?}", full.status);
    for k in [0, 1, 3, full.iterations - 1] {
        let mut seen = Vec::new();
        let mut hooks = Hooks::new().on_iteration(|record| {
            seen.push(record.iter);
            stop_at(k)(record)
        });
        let stopped = solve_with(model, &quiet(), &mut hooks).unwrap();
        drop(hooks);
        let limited = solve(
            model,
            &Options {
                max_iter: k,
                ..quiet()
            },
        )
        .unwrap();
        assert_eq!(stopped.status, Status::UserRequestedStop, "{name} k={k}");
        assert_eq!(limited.status, Status::MaximumIterationsExceeded);
        assert_eq!(stopped.iterations, k, "{name}");
        assert_eq!(seen, (0..=k).collect::<Vec<_>>(), "{name}");
        // the k-th iterate, bit for bit, with its multipliers and measures
        assert_eq!(stopped.x, limited.x, "{name} k={k}");
        assert_eq!(stopped.y, limited.y, "{name} k={k}");
        assert_eq!(stopped.z_l, limited.z_l, "{name} k={k}");
        assert_eq!(stopped.objective, limited.objective);
        assert_eq!(stopped.constr_viol, limited.constr_viol);
    }
}

#[test]
fn cancel_from_another_thread_stops_mid_solve() {
    let case = hs118();
    let full = solve(&case.model, &quiet()).unwrap();
    assert!(
        full.iterations > 4,
        "hs118 takes {} iterations",
        full.iterations
    );
    let token = CancelToken::new();
    let (to_canceller, from_solver) = mpsc::channel::<usize>();
    let (to_solver, from_canceller) = mpsc::channel::<()>();
    let remote = token.clone();
    let canceller = std::thread::spawn(move || {
        let iter = from_solver.recv().unwrap();
        remote.cancel();
        to_solver.send(()).unwrap();
        iter
    });
    let mut hooks = Hooks::new()
        .on_iteration(|record| {
            if record.iter == 2 {
                // hand over to the other thread and wait until it has cancelled
                to_canceller.send(record.iter).unwrap();
                from_canceller.recv().unwrap();
            }
            ControlFlow::Continue(())
        })
        .cancel_token(token.clone());
    let result = solve_with(&case.model, &quiet(), &mut hooks).unwrap();
    drop(hooks);
    assert_eq!(canceller.join().unwrap(), 2);
    assert_eq!(result.status, Status::UserRequestedStop);
    assert_eq!(result.iterations, 2);
    let limited = solve(
        &case.model,
        &Options {
            max_iter: 2,
            ..quiet()
        },
    )
    .unwrap();
    assert_eq!(result.x, limited.x);
    // a cancelled token stops the next solve at its start; reset lets it run
    let mut hooks = Hooks::new().cancel_token(token.clone());
    let at_start = solve_with(&case.model, &quiet(), &mut hooks).unwrap();
    assert_eq!(
        (at_start.status, at_start.iterations),
        (Status::UserRequestedStop, 0)
    );
    token.reset();
    let again = solve_with(&case.model, &quiet(), &mut hooks).unwrap();
    assert_eq!(again.status, full.status);
    assert_eq!(again.x, full.x);
}

#[test]
fn history_has_one_record_per_iterate() {
    let case = hs71();
    let mut options = quiet();
    let plain = solve(&case.model, &options).unwrap();
    assert!(plain.history.is_empty());
    options.set("keep_history", "yes").unwrap();
    let mut seen = Vec::new();
    let mut hooks = Hooks::new().on_iteration(|record| {
        seen.push(*record);
        ControlFlow::Continue(())
    });
    let result = solve_with(&case.model, &options, &mut hooks).unwrap();
    drop(hooks);
    assert_eq!(result.status, Status::SolveSucceeded);
    assert_eq!(result.x, plain.x);
    assert_eq!(result.history.len(), result.iterations + 1);
    assert_eq!(result.history, seen);
    for (k, record) in result.history.iter().enumerate() {
        assert_eq!(record.iter, k);
        assert!(!record.restoration);
        assert!(record.mu > 0.0 && record.elapsed >= 0.0);
        if k > 0 {
            assert!(record.alpha_pr > 0.0 && record.alpha_pr <= 1.0);
            assert!(record.step_norm > 0.0 && record.ls_trials >= 1);
            assert!(record.elapsed >= result.history[k - 1].elapsed);
        }
    }
    let first = result.history[0];
    assert_eq!(
        (first.alpha_pr, first.step_norm, first.ls_trials),
        (0.0, 0.0, 0)
    );
    // the start point x0 = (1, 5, 5, 1) pushed into [1, 5]: f close to 16
    assert!((first.objective - 16.0).abs() < 0.2, "{}", first.objective);
    let last = result.history.last().unwrap();
    assert!((last.objective - result.objective).abs() <= 1e-12 * result.objective.abs());
    // converged: the last record's constraint violation meets the tolerance (it measures
    // the slack-form residual, not exactly `constr_viol`)
    assert!(last.inf_pr <= options.constr_viol_tol, "{}", last.inf_pr);
    // the history round-trips through JSON with the rest of the result
    let json = serde_json::to_string(&result).unwrap();
    let back: simdnlp_solver::SolveResult = serde_json::from_str(&json).unwrap();
    // (serde_json's default float parsing may differ in the last bit)
    assert_eq!(back.history.len(), result.history.len());
    for (b, r) in back.history.iter().zip(&result.history) {
        assert_eq!(
            (b.iter, b.ls_trials, b.restoration),
            (r.iter, r.ls_trials, r.restoration)
        );
        assert!((b.objective - r.objective).abs() <= 1e-14 * r.objective.abs());
    }
}

#[test]
fn stop_during_restoration_returns_the_iterate_that_entered_it() {
    // x1² + x2² ≤ 1 and x1 + x2 ≥ 3: infeasible, the restoration phase runs
    let model = infeasible_disk();
    let options = Options {
        keep_history: true,
        ..quiet()
    };
    let full = solve(&model, &options).unwrap();
    assert_eq!(full.status, Status::InfeasibleProblemDetected);
    let first_resto = full
        .history
        .iter()
        .position(|r| r.restoration)
        .expect("a restoration phase");
    assert!(first_resto > 0);
    let records = &full.history;
    // numbered without gaps; the restoration phase that ended the solve has a record for
    // its last iterate too
    let numbers: Vec<usize> = records.iter().map(|r| r.iter).collect();
    assert_eq!(numbers, (0..records.len()).collect::<Vec<_>>());
    assert_eq!(records.len(), full.iterations + 2);
    assert!(records.last().unwrap().restoration);
    // stop at the first restoration iteration
    let mut hooks = Hooks::new().on_iteration(|record| {
        if record.restoration {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let stopped = solve_with(&model, &options, &mut hooks).unwrap();
    drop(hooks);
    assert_eq!(stopped.status, Status::UserRequestedStop);
    let iters = |h: &[IterationRecord]| h.iter().map(|r| (r.iter, r.objective)).collect::<Vec<_>>();
    assert_eq!(iters(&stopped.history), iters(&records[..=first_resto]));
    // x is the outer iterate the restoration phase started from
    let entered = solve(
        &model,
        &Options {
            max_iter: records[first_resto].iter - 1,
            ..quiet()
        },
    )
    .unwrap();
    assert_eq!(stopped.x, entered.x);
    assert!(stopped.x.iter().all(|v| v.is_finite()));
}

#[test]
fn solver_solve_with_stops_and_warm_starts_after() {
    let mut solver = Solver::new(hs71().model, quiet()).unwrap();
    let mut hooks = Hooks::new().on_iteration(stop_at(2));
    let stopped = solver.solve_with(&mut hooks).unwrap();
    assert_eq!(
        (stopped.status, stopped.iterations),
        (Status::UserRequestedStop, 2)
    );
    let finished = solver.solve().unwrap();
    assert_eq!(finished.status, Status::SolveSucceeded);
    assert!((finished.objective - 17.014017289).abs() < 1e-6);
}

/// A `tracing` writer that keeps what it is given.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_log_has_the_size_header_and_the_violation_report() {
    // x1² + x2² ≤ 1 and x1 + x2 ≥ 3: infeasible
    let model = infeasible_disk();
    let captured = Captured::default();
    let writer = captured.clone();
    let _anchor = log_capture::interest_anchor();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .without_time()
        .finish();
    let result = tracing::subscriber::with_default(subscriber, || {
        solve(&model, &Options::default()).unwrap()
    });
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert_eq!(result.status, Status::InfeasibleProblemDetected);
    // hand count: 2 free variables, rows 0 (upper only) and 1 (lower only), dense 2×2
    // Jacobian, dense 2×2 lower triangle of the Hessian
    assert_eq!(
        (
            result.size.variables_free,
            result.size.inequalities_upper_only,
            result.size.inequalities_lower_only,
            result.size.jacobian_nnz_inequality,
            result.size.hessian_nnz
        ),
        (2, 1, 1, 4, 3)
    );
    assert!(
        log.contains("Number of nonzeros in inequality constraint Jacobian.:         4"),
        "{log}"
    );
    assert!(log.contains("most violated rows and bounds:"), "{log}");
    assert!(!result.violations.is_empty() && result.violations.len() <= 2);
    for v in &result.violations {
        assert!(v.block.is_none(), "a hand-written model has no blocks");
        assert!(log.contains(&v.to_string()), "{v} not in {log}");
    }
}

/// A model behind `&dyn NlpModel` or `Box<dyn NlpModel>` solves exactly as the model
/// itself (no forwarding wrapper needed), with `solve`, `solve_with` and `Solver`.
#[test]
fn trait_objects_solve_like_the_model() {
    let case = hs71();
    let direct = solve(&case.model, &quiet()).unwrap();
    let by_ref: &dyn NlpModel = &case.model;
    let unsized_ref = solve(by_ref, &quiet()).unwrap();
    let mut hooks = Hooks::new();
    let driven = solve_with(by_ref, &quiet(), &mut hooks).unwrap();
    let boxed: Box<dyn NlpModel> = Box::new(hs71().model);
    let owned = Solver::new(boxed, quiet()).unwrap().solve().unwrap();
    for other in [&unsized_ref, &driven, &owned] {
        assert_eq!(other.status, direct.status);
        assert_eq!(other.iterations, direct.iterations);
        assert_eq!(other.x, direct.x);
    }
}
