//! The `acopf` example as a test: case5_pjm (shipped in the repository) solved to the
//! BASELINE.md objective and the dispatch read back per block; a case given by file path;
//! the errors `main` prints (with `Display`) and turns into exit status 1.

#[path = "../examples/acopf.rs"]
#[allow(dead_code)]
mod acopf;

use std::process::ExitCode;

use acopf::AcopfError;
use simdnlp::prelude::*;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

#[test]
fn case5_dispatch_matches_baseline() {
    let c = acopf::run(&args(&["case5_pjm"])).expect("case5_pjm solves");
    assert_eq!(c.result.status, Status::SolveSucceeded);
    let reference = c.reference.expect("case5_pjm is in BASELINE.md");
    assert!((c.result.objective - reference).abs() / reference < 1e-4);
    // the dispatch read through the block handle recomputes the objective
    let pg = c.result.solution(&c.model, &c.blocks.pg).unwrap();
    let cost: f64 = c
        .data
        .gens
        .iter()
        .zip(pg.iter())
        .map(|(g, &p)| g.c2 * p * p + g.c1 * p + g.c0)
        .sum();
    assert!((cost - c.result.objective).abs() < 1e-8 * cost.abs());
}

/// `--device emu` runs the GPU path's kernels on the host (the condensed KKT system with
/// `kkt = condensed`; here the default augmented one) and reaches the same optimum; an
/// unknown device is a usage error.
#[test]
fn the_device_is_chosen_on_the_command_line() {
    match acopf::run(&args(&["case5_pjm", "--device", "emu"])) {
        Ok(c) => {
            let reference = c.reference.expect("case5_pjm is in BASELINE.md");
            assert!((c.result.objective - reference).abs() / reference < 1e-4);
        }
        // g++ is required (CI installs it); SIMDNLP_SKIP_GXX=1 skips without it
        Err(e) => assert!(
            std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
            "case5_pjm on emu: {e}"
        ),
    }
    let e = acopf::run(&args(&["case5_pjm", "--device", "gpu"])).err();
    assert!(matches!(e, Some(AcopfError::Usage(_))), "{e:?}");
}

#[test]
fn a_case_file_path_is_read_directly() {
    let path = simdnlp_bench::opf::bundled_pglib_dir().join("pglib_opf_case5_pjm.m");
    let c = acopf::run(&args(&[path.to_str().unwrap()])).expect("solves");
    assert_eq!(c.data.name, "pglib_opf_case5_pjm");
    assert!(c.result.status.is_success());
}

#[test]
fn a_failed_solve_is_an_error() {
    // two iterations cannot solve case5: `main` prints this error and exits with 1
    let e = acopf::run(&args(&["case5_pjm", "--max-iter", "2"])).err();
    let Some(AcopfError::SolveFailed { result, .. }) = &e else {
        panic!("expected a failed solve, got {e:?}");
    };
    assert_eq!(result.status, Status::MaximumIterationsExceeded);
    let msg = e.unwrap().to_string();
    assert_eq!(
        acopf::main_with(&args(&["case5_pjm", "--max-iter", "2"])),
        ExitCode::FAILURE
    );
    assert!(
        msg.starts_with("pglib_opf_case5_pjm: the solve failed: ")
            && msg.contains(&Status::MaximumIterationsExceeded.to_string()),
        "{msg}"
    );
}

#[test]
fn bad_input_gives_readable_errors() {
    let missing = acopf::run(&args(&["case_that_does_not_exist"]))
        .err()
        .unwrap()
        .to_string();
    assert!(
        missing.contains("case_that_does_not_exist") && missing.contains("case5_pjm"),
        "{missing}"
    );
    let no_file = acopf::run(&args(&["no/such/file.m"]))
        .err()
        .unwrap()
        .to_string();
    assert!(no_file.contains("no/such/file.m"), "{no_file}");
    assert_eq!(acopf::main_with(&args(&["nope.m"])), ExitCode::FAILURE);
    let usage = acopf::run(&args(&["--max-iter", "x"])).err().unwrap();
    assert!(matches!(usage, AcopfError::Usage(_)));
    assert!(usage.to_string().contains("usage: acopf"), "{usage}");
}
