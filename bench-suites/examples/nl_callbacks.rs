//! Callback timings of an imported `.nl` model against its native pattern model, with the
//! harness protocol (per callback, batches of ≥ 0.5 s, best of three; the composite is the
//! harness's weighted sum), in three alternating rounds per model.
//!
//! ```text
//! python modeling/tests/nl/gen_fixtures.py /tmp/nl --rosenbrock 2000 --only lv_rosenbrock_2000
//! cargo run --release -p simdnlp-bench --example nl_callbacks -- /tmp/nl/lv_rosenbrock_2000.nl rosenbrock 2000
//! ```
//! The native model is the Lukšan–Vlček problem named by the second argument at the size
//! of the third.

use simdnlp_bench::harness::{CallbackWeights, TimingConfig, composite, time_callbacks};
use simdnlp_bench::lv;
use simdnlp_modeling::NlpModel;
use simdnlp_modeling::nl;
use std::path::PathBuf;
use std::time::Instant;

/// Timing rounds per model.
const ROUNDS: usize = 3;

fn best(a: CallbackWeights, b: CallbackWeights) -> CallbackWeights {
    CallbackWeights {
        obj: a.obj.min(b.obj),
        cons: a.cons.min(b.cons),
        grad: a.grad.min(b.grad),
        jac: a.jac.min(b.jac),
        hess: a.hess.min(b.hess),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, problem, n] = &args[..] else {
        return Err("usage: nl_callbacks FILE.nl LV_PROBLEM N".into());
    };
    let t = Instant::now();
    let imported = nl::import(&PathBuf::from(file))?;
    let import_s = t.elapsed().as_secs_f64();
    let native = lv::build(problem, n.parse()?)?;
    println!(
        "imported {file}: {} variables, {} constraints, {} patterns ({} row groups, {} unique rows), import {import_s:.3} s",
        imported.n_var,
        imported.n_con,
        imported.patterns,
        imported.row_groups,
        imported.unique_rows
    );
    let (mi, mn) = (imported.model.meta(), native.meta());
    println!(
        "nnzj {} (native {}), nnzh {} (native {})",
        mi.nnzj, mn.nnzj, mi.nnzh, mn.nnzh
    );
    // rounds alternate between the two models and keep each callback's best time, so a
    // burst of load on a shared machine does not favour either side
    let cfg = TimingConfig::default();
    let (mut ti, mut tn) = (
        time_callbacks(&imported.model, &cfg),
        time_callbacks(&native, &cfg),
    );
    for _ in 1..ROUNDS {
        ti = best(ti, time_callbacks(&imported.model, &cfg));
        tn = best(tn, time_callbacks(&native, &cfg));
    }
    println!(
        "{:<10} {:>12} {:>12} {:>7}",
        "callback", "imported", "native", "ratio"
    );
    for (name, a, b) in [
        ("obj", ti.obj, tn.obj),
        ("cons", ti.cons, tn.cons),
        ("grad", ti.grad, tn.grad),
        ("jac", ti.jac, tn.jac),
        ("hess", ti.hess, tn.hess),
        ("composite", composite(&ti), composite(&tn)),
    ] {
        println!(
            "{name:<10} {:>10.2} µs {:>10.2} µs {:>7.2}",
            a * 1e6,
            b * 1e6,
            a / b
        );
    }
    Ok(())
}
