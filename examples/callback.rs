//! Driving a solve from an intermediate callback: the Goddard rocket (see
//! `examples/goddard.rs`), stopped after 5 iterations. Prints each iteration's record and
//! the final status, `UserRequestedStop`.
//!
//! Run: `cargo run --release --example callback -- [nh] [iterations]` (default 200 steps,
//! 5 iterations).

use std::ops::ControlFlow;

use simdnlp::prelude::*;

#[allow(dead_code)]
#[path = "goddard.rs"]
mod goddard;

/// Solves the Goddard rocket with `nh` steps, stopping from the callback once it has seen
/// `stop_after` iterations; returns the records the callback saw and the result.
pub fn solve_stopped(
    nh: usize,
    stop_after: usize,
) -> Result<(Vec<IterationRecord>, SolveResult), simdnlp::Error> {
    let (model, _) = goddard::goddard_model(nh)?;
    let options = Options {
        print_level: PrintLevel::None,
        ..Options::default()
    };
    let mut records = Vec::new();
    let mut hooks = Hooks::new().on_iteration(|record| {
        records.push(*record);
        if record.iter >= stop_after {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let result = solve_with(&model, &options, &mut hooks)?;
    drop(hooks);
    Ok((records, result))
}

#[allow(dead_code)]
fn main() -> Result<(), simdnlp::Error> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let nh = args.next().flatten().unwrap_or(200);
    let stop_after = args.next().flatten().unwrap_or(5);
    let (records, result) = solve_stopped(nh, stop_after)?;
    println!(
        "iter    objective    inf_pr   inf_du    mu      ||d||   alpha_du alpha_pr ls  time(s)"
    );
    for r in &records {
        println!(
            "{:4}{} {:13.7e} {:8.2e} {:8.2e} {:8.2e} {:8.2e} {:8.2e} {:8.2e} {:2} {:8.4}",
            r.iter,
            if r.restoration { "r" } else { " " },
            r.objective,
            r.inf_pr,
            r.inf_du,
            r.mu,
            r.step_norm,
            r.alpha_du,
            r.alpha_pr,
            r.ls_trials,
            r.elapsed
        );
    }
    println!("status: {:?} ({})", result.status, result.status);
    println!(
        "stopped at iteration {} with altitude {:.8}",
        result.iterations, result.objective
    );
    Ok(())
}
