//! The whole interior-point solve on the emulated CUDA device (`device = emu`: the GPU
//! path's CUDA C kernels compiled by g++ and run on the host) against the CPU: Hock–
//! Schittkowski problems (augmented and condensed KKT), the restoration phase, a model
//! that returns NaN at a trial point and a warm re-solve. Each pair must end with the same
//! status after the same number of iterations, with objective and `x` within 1e-9
//! relative (the emulated reductions sum in another order than the CPU's beyond 32
//! entries, so the last bits may differ; on these small problems they agree bitwise).
//!
//! The solver compiles the kernels once per process, so this binary compiles them once.
//! g++ is required (CI installs it); `SIMDNLP_SKIP_GXX=1` skips these tests on a machine
//! without it.

mod common;
use common::*;
use simdnlp_device::DeviceError;
use simdnlp_modeling::NlpModel;
use simdnlp_solver::{
    DeviceKind, KktKind, Options, SolveResult, Solver, SolverError, Status, solve,
};
use std::sync::OnceLock;

/// Relative agreement required between the two devices.
const AGREEMENT: f64 = 1e-9;

/// Whether the emulated device can be used here (`false` only when g++ is missing and
/// `SIMDNLP_SKIP_GXX` is set; without that variable a missing g++ fails the test).
fn emu_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let o = Options {
            device: DeviceKind::Emu,
            max_iter: 0,
            ..quiet()
        };
        match solve(&hs71().model, &o) {
            Ok(_) => true,
            Err(SolverError::Device(e @ DeviceError::Unavailable { .. })) => {
                // g++ is required (CI installs it); set SIMDNLP_SKIP_GXX=1 to skip on a
                // machine without it
                assert!(
                    std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                    "g++ is required for this test: {e}"
                );
                eprintln!("g++ not available ({e}); skipping the Emu solver tests");
                false
            }
            Err(e) => panic!("the emulated device does not start: {e}"),
        }
    })
}

fn quiet() -> Options {
    Options {
        print_level: simdnlp_solver::PrintLevel::None,
        ..Options::default()
    }
}

fn on(device: DeviceKind, o: &Options) -> Options {
    Options {
        device,
        ..o.clone()
    }
}

/// `|a − b| / max(1, |a|)`.
fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(1.0)
    }
}

/// The CPU and Emu results agree: same status, iterations and restorations; objective and
/// `x` within [`AGREEMENT`]. Returns the largest relative difference.
fn assert_agree(name: &str, cpu: &SolveResult, emu: &SolveResult) -> f64 {
    assert_eq!(cpu.status, emu.status, "{name}: status");
    assert_eq!(cpu.iterations, emu.iterations, "{name}: iterations");
    assert_eq!(cpu.restorations, emu.restorations, "{name}: restorations");
    let mut worst = rel(cpu.objective, emu.objective);
    for (a, b) in cpu.x.iter().zip(&emu.x) {
        worst = worst.max(rel(*a, *b));
    }
    println!(
        "{name:<14} {:?} iters {:3} f {:.12} largest cpu/emu difference {worst:.1e}",
        cpu.status, cpu.iterations, cpu.objective
    );
    assert!(
        worst <= AGREEMENT,
        "{name}: objective or x differ by {worst:e} (objective {} vs {})",
        cpu.objective,
        emu.objective
    );
    worst
}

/// Solves `model` on both devices with `o` and compares.
fn both(name: &str, model: &dyn NlpModel, o: &Options) -> (SolveResult, SolveResult) {
    let cpu = solve(model, &on(DeviceKind::Cpu, o)).expect("cpu solve");
    let emu = solve(model, &on(DeviceKind::Emu, o)).expect("emu solve");
    assert_agree(name, &cpu, &emu);
    (cpu, emu)
}

#[test]
fn hs_problems_agree_with_the_cpu() {
    if !emu_available() {
        return;
    }
    let augmented = quiet();
    let condensed = Options {
        kkt: KktKind::Condensed,
        ..quiet()
    };
    for o in [&augmented, &condensed] {
        // the set of tests/hs.rs: every problem reaches its published optimum on both
        check_set(|name, model, f_opt| {
            let (cpu, _) = both(name, model, o);
            assert_eq!(cpu.status, Status::SolveSucceeded, "{name} {:?}", o.kkt);
            let err = (cpu.objective - f_opt).abs() / f_opt.abs().max(1.0);
            assert!(err < 1e-6, "{name}: objective {} vs {f_opt}", cpu.objective);
        });
    }
}

/// Calls `check(name, model, optimum)` on every problem of `tests/hs.rs`'s set.
fn check_set(mut check: impl FnMut(&str, &dyn NlpModel, f64)) {
    macro_rules! each {
        ($($case:expr),+ $(,)?) => {$(
            let case = $case;
            check(&case.model.meta.name, &case.model, case.f_opt);
        )+};
    }
    each!(
        hs6(),
        hs7(),
        hs14(),
        hs15(),
        hs21(),
        hs35(),
        hs36(),
        hs39(),
        hs71(),
        hs76(),
        hs118(),
        rosenbrock(),
        hs23(),
        hs43(),
        hs113(),
        hs106(),
    );
}

#[test]
fn restoration_agrees_with_the_cpu() {
    if !emu_available() {
        return;
    }
    // infeasible: the restoration phase converges to a stationary point of the violation
    let (cpu, _) = both("infeasible", &infeasible_disk(), &quiet());
    assert_eq!(cpu.status, Status::InfeasibleProblemDetected);
    // θ_max = 1e-2 θ(x0): restoration brings θ down and the solve continues
    let o = Options {
        theta_max_fact: 1e-2,
        ..quiet()
    };
    let case = hs71();
    let (cpu, _) = both("hs71 resto", &case.model, &o);
    assert_eq!(cpu.status, Status::SolveSucceeded);
    assert!(cpu.restorations >= 1);
}

#[test]
fn nan_at_a_trial_point_agrees_with_the_cpu() {
    if !emu_available() {
        return;
    }
    let m = nan_trial();
    let (cpu, _) = both("nan trial", &m, &quiet());
    assert_eq!(cpu.status, Status::SolveSucceeded);
}

#[test]
fn warm_resolve_agrees_with_the_cpu() {
    if !emu_available() {
        return;
    }
    let mut results = Vec::new();
    for device in [DeviceKind::Cpu, DeviceKind::Emu] {
        let mut solver = Solver::new(hs71().model, on(device, &quiet())).unwrap();
        let first = solver.solve().unwrap();
        solver.model_mut().meta.lcon[0] = 25.5;
        let warm = solver.solve().unwrap();
        assert_eq!(solver.symbolic_analyses(), 1, "{device:?}: analysis reused");
        results.push((first, warm));
    }
    let (cpu, emu) = (&results[0], &results[1]);
    assert_agree("hs71 first", &cpu.0, &emu.0);
    assert_agree("hs71 warm", &cpu.1, &emu.1);
    assert_eq!(cpu.1.status, Status::SolveSucceeded);
    assert!(cpu.1.iterations < cpu.0.iterations);
}

#[test]
fn switching_the_device_between_solves() {
    if !emu_available() {
        return;
    }
    // one Solver, the device changed between solves: each device keeps its own backend
    let mut solver = Solver::new(hs71().model, quiet()).unwrap();
    solver.clear_warm_start();
    let cpu = solver.solve().unwrap();
    solver.options_mut().device = DeviceKind::Emu;
    solver.clear_warm_start();
    let emu = solver.solve().unwrap();
    assert_agree("hs71 switch", &cpu, &emu);
    assert_eq!(solver.symbolic_analyses(), 2);
}

#[test]
fn device_option_by_name() {
    let mut o = Options::default();
    o.set("device", "emu").unwrap();
    assert_eq!(o.device, DeviceKind::Emu);
    assert_eq!(o.get("device").as_deref(), Some("emu"));
    o.apply_toml_text("device = \"cpu\"", "test").unwrap();
    assert_eq!(o.device, DeviceKind::Cpu);
    o.apply_ipopt_text("device emu\n", "test").unwrap();
    assert_eq!(o.device, DeviceKind::Emu);
    let err = o.set("device", "cuda").unwrap_err();
    assert!(err.to_string().contains("`emu`"), "{err}");
}
