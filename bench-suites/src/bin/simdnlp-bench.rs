//! `simdnlp-bench`: the benchmark harness binary (see `simdnlp_bench::harness::cli`).

use std::process::ExitCode;

use clap::Parser;
use simdnlp_bench::harness::cli::{Cli, Command, run_callbacks_until, run_solve_until};
use simdnlp_bench::harness::kernels::run_kernels;
use simdnlp_bench::harness::{Interrupt, Registry, solve::default_solver};

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
const INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C stops the running solve and the run; the records of finished instances are
    // still written
    let interrupt = Interrupt::on_ctrl_c().unwrap_or_else(|e| {
        eprintln!("simdnlp-bench: warning: {e}");
        Interrupt::new()
    });
    let mut stdout = std::io::stdout().lock();
    let res = match &cli.command {
        Command::Callbacks(a) => {
            // `RUST_LOG=info` shows the JIT compile time per instance on stderr
            if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
                log_to_stderr(filter);
            }
            let reg = Registry::with_defaults(a.sel.pglib_dir.clone());
            run_callbacks_until(a, &reg, &mut stdout, &interrupt).map(|_| ())
        }
        Command::Kernels(a) => {
            let reg = Registry::with_defaults(a.sel.pglib_dir.clone());
            run_kernels(a, &reg, &mut stdout).map(|_| ())
        }
        Command::Solve(a) => {
            if a.verbose > 0 {
                // the solver logs through `tracing`; show it on stderr (`RUST_LOG` overrides
                // the level implied by -v / -vv)
                let level = if a.verbose > 1 { "debug" } else { "info" };
                log_to_stderr(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
                );
            }
            let reg = Registry::with_defaults(a.sel.pglib_dir.clone());
            let solver = default_solver();
            run_solve_until(a, &reg, solver.as_deref(), &mut stdout, &interrupt).map(|_| ())
        }
    };
    match res {
        Ok(()) if interrupt.is_interrupted() => {
            eprintln!(
                "simdnlp-bench: interrupted; the results above (and in --json) cover the \
                 instances finished before it, the interrupted one marked `interrupted`"
            );
            ExitCode::from(INTERRUPTED)
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("simdnlp-bench: error: {e}");
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                eprintln!("  caused by: {s}");
                src = s.source();
            }
            ExitCode::from(2)
        }
    }
}

/// Shows `tracing` events that pass `filter` on stderr, without targets or timestamps.
fn log_to_stderr(filter: tracing_subscriber::EnvFilter) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .try_init();
}
