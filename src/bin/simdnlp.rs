//! The `simdnlp` executable.
//!
//! - AMPL solver protocol (Pyomo, JuMP's AmplNLWriter, AMPL): `simdnlp STUB -AMPL
//!   [name=value ...]` reads `STUB.nl` (a path ending in `.nl` is taken as the file itself),
//!   takes options from `$simdnlp_options` then from the command line, solves, prints the
//!   iteration log and writes `STUB.sol`.
//! - Human mode: `simdnlp solve FILE.nl [--option k=v]... [--options-file F] [--json F]`
//!   prints the log and a summary; `--json F` appends one JSON line (`-` for stdout) with
//!   `status, success, iterations, objective, solve_s, nvar, ncon, patterns` and more.
//!   Exit status 0 for a successful solve, 2 for any other solver status, 1 for an error.
//! - `simdnlp -v` prints the version (the ASL convention Pyomo relies on).

use clap::{Parser, Subcommand};
use simdnlp::ampl::{apply_options, option_pairs, write_failure, write_solution};
use simdnlp::modeling::nl::{self, NlModel};
use simdnlp::{NlpModel, Options, PrintLevel, SolveResult};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const BANNER: &str = concat!("simdnlp ", env!("CARGO_PKG_VERSION"));

#[derive(Parser)]
#[command(
    name = "simdnlp",
    version,
    about = "Solve AMPL .nl models with simdnlp's interior-point method",
    after_help = "AMPL solver protocol: simdnlp STUB -AMPL [name=value ...] \
                  (options also from $simdnlp_options); writes STUB.sol"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a .nl file and print the log and a summary.
    Solve {
        /// The .nl file (text or binary).
        file: PathBuf,
        /// A solver option by Ipopt name, `name=value` (repeatable).
        #[arg(long = "option", value_name = "NAME=VALUE")]
        options: Vec<String>,
        /// An options file: Ipopt format (`name value` lines, `#` comments) or TOML
        /// (`.toml`).
        #[arg(long)]
        options_file: Option<PathBuf>,
        /// Append one JSON line with the result to this file (`-`: stdout).
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // ASL convention (Pyomo's availability check runs `simdnlp -v`)
    if args.len() == 1 && args[0] == "-v" {
        println!("{BANNER} (AMPL solver protocol)");
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "-AMPL") {
        return ampl_mode(&args);
    }
    let Command::Solve {
        file,
        options,
        options_file: opt_file,
        json,
    } = Cli::parse().command;
    let mut opts = Options::default();
    if let Some(Err(e)) = opt_file.as_ref().map(|f| opts.apply_file(f)) {
        return fail(&e.to_string());
    }
    let mut pairs = Vec::new();
    for o in &options {
        match o.split_once('=') {
            Some((n, v)) => pairs.push((n.to_string(), v.to_string())),
            None => return fail(&format!("--option {o}: expected NAME=VALUE")),
        }
    }
    if let Err(e) = apply_options(&mut opts, &pairs) {
        return fail(&e.to_string());
    }
    init_log(&opts);
    let t = Instant::now();
    let imported = match nl::import(&file) {
        Ok(m) => m,
        Err(e) => return fail(&e.to_string()),
    };
    let import_s = t.elapsed().as_secs_f64();
    println!("{}", describe(&imported, import_s));
    let result = match simdnlp::solve(&imported.model, &opts) {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    println!(
        "{BANNER}: {} after {} iterations, objective {:.12e}",
        simdnlp::ampl::solve_result(result.status).1,
        result.iterations,
        result.objective
    );
    if let Some(path) = json {
        if let Err(e) = write_json(&path, &file, &imported, &result, import_s) {
            return fail(&format!("--json {}: {e}", path.display()));
        }
    }
    if result.status.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

/// `simdnlp STUB -AMPL [name=value ...]`.
fn ampl_mode(args: &[String]) -> ExitCode {
    let Some(stub_arg) = args
        .iter()
        .find(|a| !a.starts_with('-') && !a.contains('='))
    else {
        return fail("usage: simdnlp STUB -AMPL [name=value ...]");
    };
    let stub = nl::stub_of(Path::new(stub_arg));
    let env = std::env::var("simdnlp_options").unwrap_or_default();
    let mut pairs = match option_pairs(&env) {
        Ok(p) => p,
        Err(e) => return fail(&format!("$simdnlp_options: {e}")),
    };
    let rest: Vec<&str> = args
        .iter()
        .filter(|a| *a != stub_arg && *a != "-AMPL")
        .map(String::as_str)
        .collect();
    match option_pairs(&rest.join(" ")) {
        Ok(p) => pairs.extend(p),
        Err(e) => return fail(&e),
    }
    // ASL conventions the solver has no use for
    pairs.retain(|(n, _)| n != "wantsol");
    let t = Instant::now();
    let imported = match nl::import(&stub) {
        Ok(m) => m,
        Err(e) => return fail(&e.to_string()),
    };
    let import_s = t.elapsed().as_secs_f64();
    let sol = nl::stub_file(&stub, "sol");
    let mut opts = Options::default();
    match apply_options(&mut opts, &pairs).map_err(|e| e.to_string()) {
        Ok(()) => {}
        Err(e) => {
            let _ = write_failure(&sol, &imported.options, imported.n_con, imported.n_var, &e);
            return fail(&e);
        }
    };
    init_log(&opts);
    println!("{BANNER}: {}", describe(&imported, import_s));
    match simdnlp::solve(&imported.model, &opts) {
        Ok(result) => {
            if let Err(e) = write_solution(&sol, &imported, &result, BANNER) {
                return fail(&format!("writing {}: {e}", sol.display()));
            }
            println!("{BANNER}: {}", simdnlp::ampl::solve_result(result.status).1);
            ExitCode::SUCCESS
        }
        Err(e) => {
            let msg = format!("{BANNER}: {e}");
            let _ = write_failure(
                &sol,
                &imported.options,
                imported.n_con,
                imported.n_var,
                &msg,
            );
            fail(&msg)
        }
    }
}

fn init_log(opts: &Options) {
    let level = match opts.print_level {
        PrintLevel::None => return,
        PrintLevel::Debug => tracing::Level::DEBUG,
        _ => tracing::Level::INFO,
    };
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_target(false)
        .with_level(false)
        .with_ansi(false)
        .without_time()
        .with_writer(std::io::stdout)
        .try_init();
}

fn describe(m: &NlModel, import_s: f64) -> String {
    format!(
        "{} variables, {} constraints; {} patterns ({} row groups, {} unique rows); imported in {:.3} s",
        m.n_var, m.n_con, m.patterns, m.row_groups, m.unique_rows, import_s
    )
}

fn write_json(
    path: &Path,
    file: &Path,
    m: &NlModel,
    r: &SolveResult,
    import_s: f64,
) -> std::io::Result<()> {
    let line = serde_json::json!({
        "file": file.display().to_string(),
        "status": format!("{:?}", r.status),
        "solve_result_num": simdnlp::ampl::solve_result(r.status).0,
        "success": r.status.is_success(),
        "iterations": r.iterations,
        "objective": r.objective,
        "solve_s": r.timings.total,
        "import_s": import_s,
        "nvar": m.model.meta().nvar,
        "ncon": m.model.meta().ncon,
        "patterns": m.patterns,
        "row_groups": m.row_groups,
        "unique_rows": m.unique_rows,
        "constr_viol": r.constr_viol,
        "dual_inf": r.dual_inf,
    });
    if path == Path::new("-") {
        println!("{line}");
        return Ok(());
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(f, "{line}")
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("simdnlp: {msg}");
    ExitCode::FAILURE
}
