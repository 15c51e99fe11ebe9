//! AC optimal power flow: solve a PGLIB-OPF case (AC polar formulation, 15 patterns with the
//! bus balances built by augmentation) and print the generator dispatch.
//!
//! Run: `cargo run --release --example acopf -- [CASE] [--max-iter N] [--device D]`. `CASE`
//! is a case name (`case118_ieee`, default `case14_ieee`) or the path of a MATPOWER file;
//! `D` is the solver's `device`: `cpu` (default), `emu` (the GPU path's kernels run on the
//! host) or `cuda` (an NVIDIA GPU with cuDSS: build with `--features cuda`, which solves the
//! condensed KKT system). Names are
//! looked up in `$SIMDNLP_PGLIB_DIR`, then in the cases shipped in
//! `bench-suites/data/pglib-opf`, then in `../shared/data/pglib-opf` beside the checkout.
//! The program exits with status 1, after saying why, when the case cannot be read or the
//! solve does not succeed.

use std::process::ExitCode;

use simdnlp::prelude::*;
use simdnlp_bench::opf::{self, OpfData, PglibDirs, model::AcopfHandles, model::acopf_with};

/// Errors of this example: bad arguments, reading the case, building or solving the model.
#[derive(Debug, thiserror::Error)]
pub enum AcopfError {
    /// The command line could not be read.
    #[error("{0}\nusage: acopf [CASE] [--max-iter N] [--device cpu|emu|cuda]")]
    Usage(String),
    /// The case could not be found or read.
    #[error(transparent)]
    Case(#[from] opf::matpower::MatpowerError),
    /// The model could not be built or the solver could not start.
    #[error(transparent)]
    Simdnlp(#[from] Error),
    /// A block handle did not fit the model.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The solver ran but did not reach a solution.
    #[error("{case}: the solve failed: {result}")]
    SolveFailed {
        /// The case name.
        case: String,
        /// The unsuccessful result.
        result: Box<SolveResult>,
    },
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

/// Reads case `name` (a case name or a file path, see the module docs), builds and solves
/// it with `options`. A solve that ends unsuccessfully is still `Ok` here; [`run`] turns it
/// into [`AcopfError::SolveFailed`].
pub fn solve_case(name: &str, options: &Options) -> Result<SolvedCase, AcopfError> {
    let path = opf::find_case(name)?;
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
    let result = solve(&model, options).map_err(Error::from)?;
    // BASELINE.md rows are keyed by the full case name (`pglib_opf_case118_ieee`)
    let reference = PglibDirs::locate(None)
        .and_then(|dirs| dirs.baseline())
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

/// The command line: the case, the iteration limit and the device.
struct Args {
    case: String,
    max_iter: Option<usize>,
    device: Option<String>,
}

fn parse_args(args: &[String]) -> Result<Args, AcopfError> {
    let mut case = None;
    let mut max_iter = None;
    let mut device = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--device" {
            let v = it
                .next()
                .ok_or_else(|| AcopfError::Usage("--device needs cpu, emu or cuda".into()))?;
            device = Some(v.clone());
            continue;
        }
        if a == "--max-iter" {
            let v = it
                .next()
                .ok_or_else(|| AcopfError::Usage("--max-iter needs a number".into()))?;
            let n = v
                .parse()
                .map_err(|_| AcopfError::Usage(format!("--max-iter {v}: not a count")))?;
            max_iter = Some(n);
        } else if a.starts_with("--") {
            return Err(AcopfError::Usage(format!("unknown option {a}")));
        } else if case.replace(a.clone()).is_some() {
            return Err(AcopfError::Usage(format!("a second case {a}")));
        }
    }
    Ok(Args {
        case: case.unwrap_or_else(|| "case14_ieee".to_string()),
        max_iter,
        device,
    })
}

/// The whole program for the arguments after the program name: solve, then print the
/// dispatch. Errors (including an unsuccessful solve) are for `main` to print.
pub fn run(args: &[String]) -> Result<SolvedCase, AcopfError> {
    let args = parse_args(args)?;
    let mut options = Options {
        print_level: PrintLevel::None,
        ..Options::default()
    };
    if let Some(n) = args.max_iter {
        options.max_iter = n;
    }
    if let Some(device) = &args.device {
        options
            .set("device", device)
            .map_err(|e| AcopfError::Usage(e.to_string()))?;
    }
    let case = solve_case(&args.case, &options)?;
    let r = &case.result;
    if !r.status.is_success() {
        return Err(AcopfError::SolveFailed {
            case: case.data.name.clone(),
            result: Box::new(case.result),
        });
    }
    println!(
        "{r}: cost {:.2} $/h{}",
        r.objective,
        case.reference.map_or(String::new(), |c| format!(
            " (BASELINE.md {c:.4e}, rel. diff {:.1e})",
            (r.objective - c).abs() / c.abs()
        ))
    );
    print_dispatch(&case)?;
    Ok(case)
}

fn print_dispatch(case: &SolvedCase) -> Result<(), ModelError> {
    let SolvedCase {
        data,
        model,
        blocks: v,
        result: r,
        ..
    } = case;
    let pg = r.solution(model, &v.pg)?;
    let qg = r.solution(model, &v.qg)?;
    let vm = r.solution(model, &v.vm)?;
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

/// `main` for the arguments after the program name: [`run`], then exit status 0, or the
/// error printed to stderr (with `Display`) and exit status 1.
pub fn main_with(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("acopf: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    main_with(&args)
}
