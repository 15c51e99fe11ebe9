//! Whole solves of benchmark models on the emulated CUDA device (solver option
//! `device = emu`) against the CPU: two Lukšan–Vlček problems at N = 20, the bundled
//! PGLIB-OPF cases case5_pjm and case14_ieee, and COPS rocket at its small size. Each pair
//! must end with the same status after the same number of iterations, objective and `x`
//! within 1e-9 relative — except case5_pjm in the condensed form, whose early KKT systems
//! are so ill-conditioned (the first solves' residual ratios are 1e-3 before refinement)
//! that the last-bit differences of the device's refinement (its sums in the device's
//! order) change the path: there the two solves must reach the same optimum (objective
//! within 1e-6) with the same status. On Emu these `Model`s are evaluated by their emitted kernels on
//! device vectors (`DeviceModel`); with `kkt = condensed` the KKT system is the device
//! backend's (`DeviceKktBackend`: assembly, reduction, expansion and refinement on the
//! device, faer behind the factorization seam), the algorithm `device = cuda` runs. The
//! CPU side runs with the group fusion off (see [`unfused`]).
//!
//! g++ is required (CI installs it); `SIMDNLP_SKIP_GXX=1` skips on a machine without it.
#![cfg(feature = "solver")]

use simdnlp_bench::lv;
use simdnlp_bench::opf::{OpfData, bundled_pglib_dir, model::acopf};
use simdnlp_device::DeviceError;
use simdnlp_modeling::NlpModel;
use simdnlp_solver::{DeviceKind, KktKind, Options, PrintLevel, SolveResult, SolverError, solve};

/// `|a − b| / max(1, |a|)`.
fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(1.0)
    }
}

/// How closely the Emu solve must follow the CPU's.
#[derive(Clone, Copy, PartialEq)]
enum Agreement {
    /// Same iterations, objective and `x` within 1e-9 relative.
    Path,
    /// The same optimum: objective within 1e-6 relative (the iterations may differ).
    Optimum,
}

/// Solves `model` on the CPU and on Emu with `kkt`; `None` when g++ is missing and
/// `SIMDNLP_SKIP_GXX` is set.
fn both(name: &str, model: &dyn NlpModel, kkt: KktKind) -> Option<(SolveResult, SolveResult)> {
    both_within(name, model, kkt, Agreement::Path)
}

/// [`both`] with the agreement required.
fn both_within(
    name: &str,
    model: &dyn NlpModel,
    kkt: KktKind,
    agreement: Agreement,
) -> Option<(SolveResult, SolveResult)> {
    let opts = |device| Options {
        device,
        kkt,
        print_level: PrintLevel::None,
        ..Options::default()
    };
    let cpu = solve(model, &opts(DeviceKind::Cpu)).expect("cpu solve");
    let emu = match solve(model, &opts(DeviceKind::Emu)) {
        Ok(r) => r,
        Err(SolverError::Device(e @ DeviceError::Unavailable { .. })) => {
            assert!(
                std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                "g++ is required for this test: {e}"
            );
            eprintln!("g++ not available ({e}); skipping");
            return None;
        }
        Err(e) => panic!("{name}: emu solve failed: {e}"),
    };
    assert_eq!(cpu.status, emu.status, "{name}: status");
    assert!(cpu.status.is_success(), "{name}: {:?}", cpu.status);
    if agreement == Agreement::Optimum {
        let diff = rel(cpu.objective, emu.objective);
        println!(
            "{name:<22} {kkt:?} {:?} iters {} (cpu) {} (emu) f {:.10e} objective difference \
             {diff:.1e}",
            cpu.status, cpu.iterations, emu.iterations, cpu.objective
        );
        assert!(diff <= 1e-6, "{name}: objectives differ by {diff:e}");
        return Some((cpu, emu));
    }
    assert_eq!(cpu.iterations, emu.iterations, "{name}: iterations");
    let worst = cpu
        .x
        .iter()
        .zip(&emu.x)
        .fold(rel(cpu.objective, emu.objective), |w, (a, b)| {
            w.max(rel(*a, *b))
        });
    println!(
        "{name:<22} {kkt:?} {:?} iters {:3} f {:.10e} largest cpu/emu difference {worst:.1e}",
        cpu.status, cpu.iterations, cpu.objective
    );
    assert!(worst <= 1e-9, "{name}: cpu and emu differ by {worst:e}");
    Some((cpu, emu))
}

/// `m` with the CPU's group fusion off: the device sums a group's members' Hessian terms
/// as the unfused CPU code does (bitwise), while the fused CPU code takes the Hessian of
/// the members' weighted sum in one sweep, whose last bits can change the path by an
/// iteration (case14_ieee: 15 against 16).
fn unfused(mut m: simdnlp_modeling::Model) -> simdnlp_modeling::Model {
    m.set_fusion(false);
    m
}

#[test]
fn lv_and_opf_agree_with_the_cpu() {
    for name in ["rosenbrock", "chained_hs46"] {
        let m = unfused(lv::build(name, 20).unwrap());
        for kkt in [KktKind::Augmented, KktKind::Condensed] {
            if both(name, &m, kkt).is_none() {
                return;
            }
        }
    }
    for case in ["pglib_opf_case5_pjm", "pglib_opf_case14_ieee"] {
        let path = bundled_pglib_dir().join(format!("{case}.m"));
        let m = unfused(acopf(&OpfData::read(path).unwrap()).unwrap());
        for kkt in [KktKind::Augmented, KktKind::Condensed] {
            let agreement = if kkt == KktKind::Condensed && case.ends_with("case5_pjm") {
                Agreement::Optimum
            } else {
                Agreement::Path
            };
            if both_within(case, &m, kkt, agreement).is_none() {
                return;
            }
        }
    }
    let rocket = simdnlp_bench::cops::find("rocket").unwrap();
    let m = unfused(rocket.build_at(rocket.small).unwrap());
    both("rocket (small)", &m, KktKind::Condensed);
}

/// A missing C++ compiler is a typed solver error naming the device and the cause,
/// reported in the instance's record (no panic, the run goes on).
#[test]
fn a_missing_compiler_is_a_typed_error() {
    let json =
        std::env::temp_dir().join(format!("simdnlp-device-solve-{}.jsonl", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_simdnlp-bench"))
        .args(["solve", "--suite", "lv", "--instance", "rosenbrock:20"])
        .args(["--device", "emu", "--json"])
        .arg(&json)
        .env(simdnlp_device::COMPILER_ENV, "/nonexistent/g++")
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&json).unwrap();
    let _ = std::fs::remove_file(&json);
    assert!(out.status.success(), "{out:?}");
    let record: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(record["status"], "error");
    let error = record["error"].as_str().unwrap();
    assert!(
        error.contains("emu") && error.contains("/nonexistent/g++"),
        "{error}"
    );
}
