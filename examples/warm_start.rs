//! Warm-started re-solve: solve the Goddard rocket, change the required final mass (a
//! parameter) and tighten the thrust bound, then re-solve with the same [`Solver`] — no
//! model rebuild, the symbolic analysis reused, primal and dual values warm-started — and
//! compare with a cold solve of the changed model.
//!
//! Run: `cargo run --release --example warm_start -- 200`.

#[path = "goddard.rs"]
#[allow(dead_code)]
mod goddard;

use simdnlp::prelude::*;

/// Iteration counts and final altitudes of the three solves.
#[derive(Debug)]
pub struct WarmStartReport {
    /// The first (cold) solve of the original model.
    pub first: SolveResult,
    /// The warm-started re-solve after the changes.
    pub warm: SolveResult,
    /// A cold solve of the changed model, for comparison.
    pub cold: SolveResult,
}

/// Final mass factor and thrust-bound factor applied between the solves.
const MASS_FACTOR: f64 = 1.05;
const THRUST_FACTOR: f64 = 0.8;

/// Applies the data changes of the re-solve to a Goddard model.
fn change(model: &mut Model, g: &goddard::Goddard) -> Result<(), Error> {
    let mf = model.value(&g.mf)?[0];
    model.set_value(&g.mf, MASS_FACTOR * mf)?;
    model.set_upper(&g.tau, THRUST_FACTOR * g.t_max)?;
    Ok(())
}

/// Runs the experiment with `nh` time steps.
pub fn run(nh: usize, options: &Options) -> Result<WarmStartReport, Error> {
    let (model, g) = goddard::goddard_model(nh)?;
    let mut solver = Solver::new(model, options.clone())?;
    let first = solver.solve()?;
    change(solver.model_mut(), &g)?;
    let warm = solver.solve()?;

    let (mut model, g) = goddard::goddard_model(nh)?;
    change(&mut model, &g)?;
    let cold = solve(&model, options)?;
    Ok(WarmStartReport { first, warm, cold })
}

fn main() -> Result<(), Error> {
    let nh: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let quiet = Options {
        print_level: PrintLevel::None,
        ..Options::default()
    };
    let r = run(nh, &quiet)?;
    for (what, s) in [
        ("first solve", &r.first),
        ("warm re-solve", &r.warm),
        ("cold solve of the changed model", &r.cold),
    ] {
        println!(
            "{what:>32}: {}, {} iterations, final altitude {:.6}, {:.3} s",
            s.status, s.iterations, s.objective, s.timings.total
        );
    }
    Ok(())
}
