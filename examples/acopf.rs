//! AC optimal power flow: solve a PGLIB-OPF case (AC polar formulation, 15 patterns with the
//! bus balances built by augmentation) and print the generator dispatch.
//!
//! Run: `cargo run --release --example acopf -- case118_ieee` (a case name looked up in
//! `../shared/data/pglib-opf` or `$SIMDNLP_PGLIB_DIR`, or a path to a MATPOWER file).

use simdnlp::prelude::*;
use simdnlp_bench::opf::{self, OpfData, model::AcopfHandles, model::acopf_with};

/// Errors of this example: reading the case, building or solving the model.
#[derive(Debug, thiserror::Error)]
pub enum AcopfError {
    #[error(transparent)]
    Case(#[from] opf::matpower::MatpowerError),
    #[error(transparent)]
    Simdnlp(#[from] Error),
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// A solved case: its data, model, block handles, result and BASELINE.md objective.
pub struct SolvedCase {
    /// The per-unit network.
    pub data: OpfData,
    /// The pattern model.
    pub model: Model,
    /// Variable blocks of the model.
    pub blocks: AcopfHandles,
    /// The solver's result.
    pub result: SolveResult,
    /// The "AC ($/h)" objective of BASELINE.md, when listed.
    pub reference: Option<f64>,
}

/// Reads case `name` (a name in the PGLIB directory or a path), builds and solves it.
pub fn solve_case(name: &str) -> Result<SolvedCase, AcopfError> {
    let dir = opf::default_pglib_dir()?;
    let path = opf::case_path(&dir, name)?;
    let data = OpfData::read(&path)?;
    let (model, v) = acopf_with::<f64>(&data)?;
    let meta = model.meta();
    println!(
        "{}: {} buses, {} generators, {} branches; n = {}, m = {}",
        data.name,
        data.nbus(),
        data.ngen(),
        data.nbranch(),
        meta.nvar,
        meta.ncon
    );

    let options = Options {
        print_level: simdnlp::solver::PrintLevel::None,
        ..Options::default()
    };
    let result = solve(&model, &options).map_err(Error::from)?;
    // BASELINE.md rows are keyed by the full case name (`pglib_opf_case118_ieee`)
    let reference = opf::read_baseline(&dir.join("BASELINE.md"))
        .ok()
        .and_then(|b| b.get(&data.name).and_then(|e| e.ac));
    Ok(SolvedCase {
        data,
        model,
        blocks: v,
        result,
        reference,
    })
}

fn main() -> Result<(), AcopfError> {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "case14_ieee".to_string());
    let SolvedCase {
        data,
        model,
        blocks: v,
        result: r,
        reference,
    } = solve_case(&name)?;
    println!(
        "{:?} after {} iterations in {:.3} s: cost {:.2} $/h{}",
        r.status,
        r.iterations,
        r.timings.total,
        r.objective,
        reference.map_or(String::new(), |c| format!(
            " (BASELINE.md {c:.4e}, rel. diff {:.1e})",
            (r.objective - c).abs() / c.abs()
        ))
    );

    let pg = r.solution(&model, &v.pg)?;
    let qg = r.solution(&model, &v.qg)?;
    let vm = r.solution(&model, &v.vm)?;
    let base = data.base_mva;
    println!("\n  gen    bus     P (MW)   Q (MVAr)   Pmin..Pmax (MW)      cost ($/h)");
    for (k, g) in data.gens.iter().enumerate() {
        let p = pg[k];
        let cost = g.c2 * p * p + g.c1 * p + g.c0;
        println!(
            "{:>5} {:>6} {:>10.2} {:>10.2}   {:>7.1}..{:<7.1} {:>14.2}",
            k + 1,
            data.buses[g.bus].id,
            p * base,
            qg[k] * base,
            g.pmin * base,
            g.pmax * base,
            cost
        );
    }
    let (lo, hi) = vm
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    println!("\nvoltage magnitudes: {lo:.4} .. {hi:.4} p.u.");
    Ok(())
}
