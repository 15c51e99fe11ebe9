//! The OPF objective callback alone, the pattern model against the hand-coded one in
//! alternating rounds of back-to-back calls (ns per call, best round of each), to find
//! the per-call cost around the objective's native loop (run it under `perf record`).
//!
//! ```text
//! cargo run --release -p simdnlp-bench --example opf_obj -- /work/shared/data/pglib-opf/pglib_opf_case1354_pegase.m [calls] [rounds]
//! ```

use simdnlp_bench::handcoded::AcopfModel;
use simdnlp_bench::opf::{OpfData, model::acopf};
use simdnlp_modeling::NlpModel;
use std::hint::black_box;
use std::time::Instant;

/// ns per call of `m.obj` over `calls` back-to-back calls at its start point.
fn per_call(m: &dyn NlpModel<f64>, calls: usize) -> f64 {
    let x = m.meta().x0.clone();
    let t = Instant::now();
    for _ in 0..calls {
        black_box(m.obj(black_box(&x)));
    }
    t.elapsed().as_secs_f64() * 1e9 / calls as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(case) = args.first() else {
        return Err("usage: opf_obj CASE.m [calls] [rounds]".into());
    };
    let calls: usize = args.get(1).map_or(Ok(200_000), |s| s.parse())?;
    let rounds: usize = args.get(2).map_or(Ok(5), |s| s.parse())?;
    let data = OpfData::read(case)?;
    let ours = acopf(&data)?;
    let hand = AcopfModel::new(data);
    let x = ours.meta().x0.clone();
    println!(
        "objective at the start point: pattern {:e}, hand-coded {:e}",
        ours.obj(&x),
        hand.obj(&hand.meta().x0)
    );
    let (mut best_ours, mut best_hand) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        best_ours = best_ours.min(per_call(&ours, calls));
        best_hand = best_hand.min(per_call(&hand, calls));
    }
    println!(
        "obj: pattern {best_ours:.1} ns, hand-coded {best_hand:.1} ns per call (ratio {:.2})",
        best_ours / best_hand
    );
    Ok(())
}
