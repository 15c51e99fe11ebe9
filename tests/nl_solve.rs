//! Imported `.nl` models solve to the optimum of their native twins (the committed
//! Pyomo-written fixtures, and fresh Pyomo output when Pyomo is installed), the `simdnlp`
//! executable speaks the AMPL solver protocol, and Pyomo solves through it.
//!
//! The Pyomo tests print `skipped: <test> (...)` and pass when `python3 -c "import pyomo"`
//! fails; CI installs Pyomo (`.ci/run`) so they run there.

use simdnlp::modeling::nl;
use simdnlp::{Model, ModelBuilder, NlpModel, Options, PrintLevel, Status};
use simdnlp_bench::{cops, lv, opf};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("modeling/tests/nl")
}

/// The PGLIB-OPF cases shipped in the repository (case5_pjm is one of them).
fn pglib() -> PathBuf {
    opf::bundled_pglib_dir()
}

fn quiet() -> Options {
    Options {
        print_level: PrintLevel::None,
        ..Options::default()
    }
}

fn native_hs071() -> Model {
    let mut m = ModelBuilder::new();
    let x = m
        .var(1..=4)
        .bounds(1.0, 5.0)
        .start(vec![1.0, 5.0, 5.0, 1.0]);
    m.minimize((), |_| {
        x.at(1) * x.at(4) * (x.at(1) + x.at(2) + x.at(3)) + x.at(3)
    });
    m.constraint((), |_| x.at(1) * x.at(2) * x.at(3) * x.at(4))
        .lower(25.0);
    m.constraint((), |_| {
        x.at(1).powi(2) + x.at(2).powi(2) + x.at(3).powi(2) + x.at(4).powi(2)
    })
    .equal_to(40.0);
    m.build().unwrap()
}

/// The native model of each fixture (the same problem written with the modeling layer).
fn native(name: &str) -> Model {
    match name {
        "hs071" => native_hs071(),
        "cops_chain_50" => cops::chain::chain(50).unwrap(),
        "acopf_case5_pjm" => {
            let data = opf::OpfData::read(pglib().join("pglib_opf_case5_pjm.m")).unwrap();
            opf::model::acopf(&data).unwrap()
        }
        n => {
            let size = n.strip_prefix("lv_rosenbrock_").expect("known fixture");
            lv::rosenbrock(size.parse().unwrap()).unwrap()
        }
    }
}

const NAMES: [&str; 4] = [
    "hs071",
    "lv_rosenbrock_20",
    "cops_chain_50",
    "acopf_case5_pjm",
];

/// Imports `dir/NAME.nl`, solves it and its native twin, and compares the optima.
fn imported_matches_native(dir: &Path, name: &str) {
    let imported =
        nl::import(&dir.join(format!("{name}.nl"))).unwrap_or_else(|e| panic!("{name}: {e}"));
    let native = native(name);
    assert_eq!(
        imported.model.meta().nvar,
        native.meta().nvar,
        "{name}: nvar"
    );
    assert_eq!(
        imported.model.meta().ncon,
        native.meta().ncon,
        "{name}: ncon"
    );
    let a = simdnlp::solve(&imported.model, &quiet()).unwrap();
    let b = simdnlp::solve(&native, &quiet()).unwrap();
    assert_eq!(a.status, Status::SolveSucceeded, "{name}: imported status");
    assert_eq!(b.status, Status::SolveSucceeded, "{name}: native status");
    let rel = (a.objective - b.objective).abs() / b.objective.abs().max(1.0);
    assert!(
        rel < 1e-6,
        "{name}: imported optimum {} vs native {} (rel {rel:e})",
        a.objective,
        b.objective
    );
}

#[test]
fn fixtures_solve_to_the_native_optima() {
    for name in NAMES {
        imported_matches_native(&fixtures(), name);
    }
}

fn pyomo_available() -> bool {
    Command::new("python3")
        .args(["-c", "import pyomo.environ"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("simdnlp-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a Python script of the fixtures directory with `args` and a scratch `TMPDIR`;
/// `None` (after printing `skipped: <test>`) when Pyomo is not installed.
fn run_pyomo_script(test: &str, script: &str, args: &[&std::ffi::OsStr]) -> Option<()> {
    if !pyomo_available() {
        println!("skipped: {test} (Pyomo is not installed)");
        return None;
    }
    let dir = scratch(test);
    let out = Command::new("python3")
        .arg(fixtures().join(script))
        .args(args)
        .env("TMPDIR", &dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{script} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(())
}

#[test]
fn pyomo_output_solves_to_the_native_optima() {
    let dir = scratch("pyomo-nl");
    let pglib = pglib();
    let args = [dir.as_os_str(), "--pglib".as_ref(), pglib.as_os_str()];
    if run_pyomo_script(
        "pyomo_output_solves_to_the_native_optima",
        "gen_fixtures.py",
        &args,
    )
    .is_some()
    {
        for name in NAMES {
            imported_matches_native(&dir, name);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pyomo_solves_through_the_executable() {
    let exe = env!("CARGO_BIN_EXE_simdnlp");
    run_pyomo_script(
        "pyomo_solves_through_the_executable",
        "pyomo_solve.py",
        &[exe.as_ref()],
    );
}

/// Reads the values of a `.sol` file: (solve_result_num, duals, primals).
fn read_sol(path: &Path) -> (i32, Vec<f64>, Vec<f64>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().skip_while(|l| *l != "Options").skip(1);
    let nopt: usize = lines.next().unwrap().parse().unwrap();
    let mut lines = lines.skip(nopt);
    let mut num = || lines.next().unwrap().trim().parse::<usize>().unwrap();
    let (_ncon, ndual, _nvar, nprimal) = (num(), num(), num(), num());
    let rest: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Options")
        .skip(2 + nopt + 4)
        .collect();
    let vals: Vec<f64> = rest[..ndual + nprimal]
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let code = rest[ndual + nprimal]
        .strip_prefix("objno 0 ")
        .unwrap()
        .parse()
        .unwrap();
    (code, vals[..ndual].to_vec(), vals[ndual..].to_vec())
}

#[test]
fn ampl_mode_writes_the_sol_file() {
    let dir = scratch("ampl");
    for ext in ["nl", "row", "col"] {
        std::fs::copy(
            fixtures().join(format!("hs071.{ext}")),
            dir.join(format!("hs071.{ext}")),
        )
        .unwrap();
    }
    // the full .nl path as Pyomo passes it, an option on the command line and one in the
    // environment
    let out = Command::new(env!("CARGO_BIN_EXE_simdnlp"))
        .arg(dir.join("hs071.nl"))
        .arg("-AMPL")
        .arg("tol=1e-10")
        .env("simdnlp_options", "max_iter=100 print_level=5")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("patterns"), "{stdout}");
    let (code, duals, x) = read_sol(&dir.join("hs071.sol"));
    assert_eq!(code, 0);
    let want = [1.0, 4.7429996, 3.8211499, 1.3794082];
    for (a, b) in x.iter().zip(want) {
        assert!((a - b).abs() < 1e-6, "x = {x:?}");
    }
    // AMPL's convention: the negatives of Ipopt's multipliers (-0.552294, 0.161469)
    assert!((duals[0] - 0.552294).abs() < 1e-5, "duals {duals:?}");
    assert!((duals[1] + 0.161469).abs() < 1e-5, "duals {duals:?}");

    // an unknown option is an error naming it, with a failure .sol
    let out = Command::new(env!("CARGO_BIN_EXE_simdnlp"))
        .arg(dir.join("hs071"))
        .arg("-AMPL")
        .arg("tolerance=1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown option `tolerance`"));
    assert_eq!(read_sol(&dir.join("hs071.sol")).0, 510);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn human_mode_prints_one_json_line() {
    let dir = scratch("human");
    let opts = dir.join("opts.txt");
    std::fs::write(&opts, "# Ipopt format\ntol 1e-9\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_simdnlp"))
        .arg("solve")
        .arg(fixtures().join("lv_rosenbrock_20.nl"))
        .args(["--option", "max_iter=200", "--options-file"])
        .arg(&opts)
        .args(["--json", "-"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    for key in [
        "status",
        "success",
        "iterations",
        "objective",
        "solve_s",
        "nvar",
        "ncon",
        "patterns",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {line}");
    }
    assert_eq!(v["success"], true);
    assert_eq!(v["nvar"], 20);
    assert_eq!(v["ncon"], 18);
    assert!(v["patterns"].as_u64().unwrap() <= 5);
    // a malformed file is an error naming the line and field
    let bad = dir.join("bad.nl");
    std::fs::write(&bad, "g3 1 1 0\n 2 x\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_simdnlp"))
        .arg("solve")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 2") && err.contains("number of constraints"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--option device=emu` runs the solve on the emulated CUDA device (the GPU path's CUDA C
/// kernels through g++) with the same result as the CPU; a missing compiler is a one-line
/// error naming the device and exit status 1. g++ is required (CI installs it);
/// `SIMDNLP_SKIP_GXX=1` skips the emulated solve on a machine without it.
#[test]
fn human_mode_takes_the_device_option() {
    let run = |device: &str, compiler: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_simdnlp"));
        cmd.arg("solve")
            .arg(fixtures().join("lv_rosenbrock_20.nl"))
            .args(["--option", &format!("device={device}"), "--json", "-"]);
        if let Some(c) = compiler {
            // simdnlp_device::COMPILER_ENV
            cmd.env("SIMDNLP_EMU_CXX", c);
        }
        cmd.output().unwrap()
    };
    let json = |out: &std::process::Output| -> serde_json::Value {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap();
        serde_json::from_str(line).unwrap()
    };
    let missing = run("emu", Some("/nonexistent/g++"));
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("emu") && err.contains("/nonexistent/g++"),
        "{err}"
    );
    let emu = run("emu", None);
    let stderr = String::from_utf8_lossy(&emu.stderr);
    if !emu.status.success() && stderr.contains("not available") {
        assert!(
            std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
            "g++ is required for this test: {stderr}"
        );
        eprintln!("skipped: human_mode_takes_the_device_option (g++ not available)");
        return;
    }
    assert!(emu.status.success(), "{stderr}");
    let (cpu, emu) = (json(&run("cpu", None)), json(&emu));
    assert_eq!(cpu["success"], true);
    for key in ["status", "iterations", "objective"] {
        assert_eq!(cpu[key], emu[key], "{key}");
    }
}
