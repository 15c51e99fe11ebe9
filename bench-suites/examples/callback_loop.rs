//! One callback alone, the pattern model against its hand-coded twin in alternating rounds
//! of back-to-back calls (µs per call, best round of each), to profile one callback (run
//! it under `perf record`; `--ours` times the pattern model only).
//!
//! ```text
//! cargo run --release -p simdnlp-bench --example callback_loop -- rosenbrock:200000 jac [calls] [rounds] [--ours]
//! cargo run --release -p simdnlp-bench --example callback_loop -- /work/shared/data/pglib-opf/pglib_opf_case1354_pegase.m cons [calls] [rounds]
//! ```
//!
//! Callbacks: `obj`, `cons`, `grad`, `jac`, `hess` (at the start point, multipliers 1,
//! objective weight 1, as `simdnlp-bench callbacks`).

use simdnlp_bench::handcoded::{AcopfModel, RosenbrockModel};
use simdnlp_bench::opf::{OpfData, model::acopf};
use simdnlp_modeling::NlpModel;
use std::hint::black_box;
use std::time::Instant;

/// Inputs and outputs of one model's callbacks, allocated once.
struct Buffers {
    x: Vec<f64>,
    y: Vec<f64>,
    c: Vec<f64>,
    g: Vec<f64>,
    jac: Vec<f64>,
    hess: Vec<f64>,
}

impl Buffers {
    fn new(m: &dyn NlpModel<f64>) -> Self {
        let meta = m.meta();
        Self {
            x: meta.x0.clone(),
            y: vec![1.0; meta.ncon],
            c: vec![0.0; meta.ncon],
            g: vec![0.0; meta.nvar],
            jac: vec![0.0; meta.nnzj],
            hess: vec![0.0; meta.nnzh],
        }
    }
}

/// µs per call of callback `which` of `m` over `calls` back-to-back calls.
fn per_call(m: &dyn NlpModel<f64>, b: &mut Buffers, which: &str, calls: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..calls {
        match which {
            "obj" => {
                black_box(m.obj(black_box(&b.x)));
            }
            "cons" => m.cons(black_box(&b.x), &mut b.c),
            "grad" => m.grad(black_box(&b.x), &mut b.g),
            "jac" => m.jac_coord(black_box(&b.x), &mut b.jac),
            _ => m.hess_coord(black_box(&b.x), &b.y, 1.0, &mut b.hess),
        }
        black_box(&mut *b);
    }
    t.elapsed().as_secs_f64() * 1e6 / calls as f64
}

type Models = (Box<dyn NlpModel<f64>>, Box<dyn NlpModel<f64>>);

fn models(instance: &str) -> Result<Models, Box<dyn std::error::Error>> {
    if let Some(n) = instance.strip_prefix("rosenbrock:") {
        let n: usize = n.parse()?;
        let ours = simdnlp_bench::lv::build("rosenbrock", n)?;
        return Ok((Box::new(ours), Box::new(RosenbrockModel::new(n)?)));
    }
    let data = OpfData::read(instance)?;
    let ours = acopf(&data)?;
    Ok((Box::new(ours), Box::new(AcopfModel::new(data))))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ours_only = args.iter().any(|a| a == "--ours");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--ours").collect();
    let (Some(instance), Some(which)) = (args.first(), args.get(1)) else {
        return Err(
            "usage: callback_loop INSTANCE obj|cons|grad|jac|hess [calls] [rounds] [--ours]".into(),
        );
    };
    if !["obj", "cons", "grad", "jac", "hess"].contains(&which.as_str()) {
        return Err(format!("unknown callback {which}").into());
    }
    let calls: usize = args.get(2).map_or(Ok(100), |s| s.parse())?;
    let rounds: usize = args.get(3).map_or(Ok(5), |s| s.parse())?;
    let (ours, hand) = models(instance)?;
    let (mut bo, mut bh) = (Buffers::new(ours.as_ref()), Buffers::new(hand.as_ref()));
    let (mut best_ours, mut best_hand) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        best_ours = best_ours.min(per_call(ours.as_ref(), &mut bo, which, calls));
        if !ours_only {
            best_hand = best_hand.min(per_call(hand.as_ref(), &mut bh, which, calls));
        }
    }
    println!(
        "{which}: pattern {best_ours:.3} µs, hand-coded {best_hand:.3} µs per call (ratio {:.3})",
        best_ours / best_hand
    );
    Ok(())
}
