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
use simdnlp_device::{Cpu, DeviceError, Emu};
use simdnlp_modeling::{Ix1, Model, ModelBuilder, NlpModel, Param};
use simdnlp_solver::{
    CallbackCounts, DeviceKind, KktKind, Options, SolveResult, Solver, SolverDevice, SolverError,
    Status, solve,
};
use std::sync::{Arc, OnceLock};

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

/// The emulated device of this test binary's `Solver<M, Emu>`s (opened once, shared: the
/// free functions use the solver's own process-wide one).
fn emu() -> Arc<Emu> {
    static EMU: OnceLock<Arc<Emu>> = OnceLock::new();
    Arc::clone(EMU.get_or_init(|| Arc::new(Emu::new().expect("the emulated device"))))
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

/// `again` repeats `first` bit for bit: status, iterations, restorations, objective and `x`.
fn assert_same_bits(name: &str, again: &SolveResult, first: &SolveResult) {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(again.status, first.status, "{name}");
    assert_eq!(again.iterations, first.iterations, "{name}");
    assert_eq!(again.restorations, first.restorations, "{name}");
    assert_eq!(
        again.objective.to_bits(),
        first.objective.to_bits(),
        "{name}"
    );
    assert_eq!(bits(&again.x), bits(&first.x), "{name}");
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

/// `kkt = hybrid` on Emu runs the device backend (`K_γ` assembled by the kernels of the
/// condensed form, the equality multipliers by conjugate gradients over device vectors,
/// faer behind the factorization seam): every problem of the set and two pattern models
/// (HS71, whose sphere is an equality row, and a chained Rosenbrock) reach the CPU hybrid
/// form's optimum (objective within 1e-6 relative, the same status) in as many iterations
/// within 20 % (the device sums in another order, so the paths may part), HS71 also
/// through a restoration phase. The device
/// backend's factorization seam copies `K` to the host and back (bytes beyond the
/// scalars of the host backend's augmented solve).
#[test]
fn hybrid_on_emu_reaches_the_cpu_hybrid_optimum() {
    if !emu_available() {
        return;
    }
    let hybrid = Options {
        kkt: KktKind::Hybrid,
        ..quiet()
    };
    let compare = |name: &str, model: &dyn NlpModel, o: &Options| {
        let cpu = solve(model, &on(DeviceKind::Cpu, o)).expect("cpu solve");
        let emu = solve(model, &on(DeviceKind::Emu, o)).expect("emu solve");
        println!(
            "{name:<16} hybrid: cpu {:?} {} iters CG {}, emu {:?} {} iters CG {} ({:.0} bytes \
             per iteration), f {:.10e} vs {:.10e}",
            cpu.status,
            cpu.iterations,
            cpu.counts.cg_iterations,
            emu.status,
            emu.iterations,
            emu.counts.cg_iterations,
            emu.bytes_per_iteration,
            cpu.objective,
            emu.objective
        );
        assert_eq!(cpu.status, emu.status, "{name}: status");
        assert!(cpu.status.is_success(), "{name}: {:?}", cpu.status);
        assert!(
            rel(cpu.objective, emu.objective) <= 1e-6,
            "{name}: objective {} vs {}",
            cpu.objective,
            emu.objective
        );
        let spread = (cpu.iterations as f64 * 0.2).max(1.0);
        assert!(
            (emu.iterations as f64 - cpu.iterations as f64).abs() <= spread,
            "{name}: {} iterations on emu, {} on the cpu",
            emu.iterations,
            cpu.iterations
        );
        assert_eq!(
            emu.counts.cg_iterations > 0,
            cpu.counts.cg_iterations > 0,
            "{name}: conjugate gradients on one side only"
        );
        emu
    };
    check_set(|name, model, _| {
        compare(name, model, &hybrid);
    });
    let (hs71, _) = hs71_patterns(false);
    let emu = compare("hs71 patterns", &hs71, &hybrid);
    assert!(emu.counts.cg_iterations > 0, "{:?}", emu.counts);
    assert!((emu.objective - 17.0140172891).abs() < 1e-6);
    let augmented = solve(&hs71, &on(DeviceKind::Emu, &quiet())).unwrap();
    assert!(
        emu.bytes_per_iteration > augmented.bytes_per_iteration,
        "the hybrid solve on emu did not run the device backend: {} bytes per iteration \
         (augmented {})",
        emu.bytes_per_iteration,
        augmented.bytes_per_iteration
    );
    let emu = compare("chain patterns", &chained_patterns(12), &hybrid);
    assert_eq!(emu.counts.cg_iterations, 0, "inequalities only");
    // the restoration phase's problem in the hybrid form on the device too
    let restoration = Options {
        theta_max_fact: 1e-2,
        ..hybrid.clone()
    };
    let emu = compare("hs71 pat resto", &hs71, &restoration);
    assert!(emu.restorations >= 1);
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
    // the same with the condensed KKT system (on Emu: the device backend, a second one
    // for the restoration problem)
    let o = Options {
        kkt: KktKind::Condensed,
        ..o
    };
    let (cpu, _) = both("hs71 resto condensed", &case.model, &o);
    assert_eq!(cpu.status, Status::SolveSucceeded);
    assert!(cpu.restorations >= 1);
    let (cpu, _) = both(
        "infeasible condensed",
        &infeasible_disk(),
        &Options {
            kkt: KktKind::Condensed,
            ..quiet()
        },
    );
    assert_eq!(cpu.status, Status::InfeasibleProblemDetected);
}

/// A solve with several restoration phases makes one KKT backend for the restoration
/// problem (one symbolic analysis of its KKT pattern) and keeps it for the later phases,
/// each started from device vectors: hs39 with a tight θ_max restores 2 times in 60
/// iterations (augmented) and 3 times in 100 (condensed: the device KKT backend on Emu).
/// Both devices end alike; `counts.analyses` is the problem's analysis plus one. A
/// re-solve of the same structure reuses both backends (no analysis) and repeats the
/// solve exactly, counts included (the kept backend's counters are taken per solve).
#[test]
fn restoration_phases_share_one_backend() {
    if !emu_available() {
        return;
    }
    // (static pivoting of zero pivots off, as by default: with it the augmented path
    // restores once)
    let base = Options {
        theta_max_fact: 1e-5,
        theta_min_fact: 1e-6,
        zero_pivot_perturbation: 0.0,
        ..quiet()
    };
    let cases = [
        ("hs39 resto x2", KktKind::Augmented, 60, 2),
        ("hs39 resto x3 condensed", KktKind::Condensed, 100, 3),
    ];
    for (name, kkt, max_iter, phases) in cases {
        let o = Options {
            kkt,
            max_iter,
            ..base.clone()
        };
        let (cpu, emu) = both(name, &hs39().model, &o);
        assert_eq!(cpu.restorations, phases, "{name}: restoration phases");
        for r in [&cpu, &emu] {
            assert_eq!(
                r.counts.analyses, 2,
                "{name}: one analysis for the problem, one for the restoration problem"
            );
        }
    }
    // a re-solve of the same structure reuses both backends: no analysis, the same path
    let on_emu = Options {
        device: DeviceKind::Emu,
        kkt: KktKind::Condensed,
        max_iter: 100,
        ..base.clone()
    };
    resolve_repeats(Solver::on_device(hs39().model, emu(), on_emu).unwrap());
    let on_cpu = Options {
        kkt: KktKind::Augmented,
        max_iter: 60,
        ..base
    };
    resolve_repeats(Solver::new(hs39().model, on_cpu).unwrap());
}

/// A cold re-solve of `solver`'s model repeats its first solve exactly, with no analysis.
fn resolve_repeats<M: NlpModel, D: SolverDevice>(mut solver: Solver<M, D>) {
    let (device, kkt) = (solver.options().device, solver.options().kkt);
    let first = solver.solve().unwrap();
    assert_eq!(first.counts.analyses, 2);
    solver.clear_warm_start();
    let again = solver.solve().unwrap();
    let name = format!("{device:?} {kkt:?} re-solve");
    assert_eq!(again.counts.analyses, 0, "{name}");
    assert_same_bits(&name, &again, &first);
    // A backend that switched from LDLᵀ to the paired LBLᵀ for good (variables without
    // curvature met as zero pivots in two steps in a row) keeps it: the re-solve
    // factorizes with it from the start, without the LDLᵀ attempts and the paired repeats.
    let repeats = if first.counts.pivoting_switches > 0 {
        first.counts.paired_repeats
    } else {
        0
    };
    assert_eq!(
        again.counts,
        CallbackCounts {
            analyses: 0,
            factorizations: first.counts.factorizations - repeats,
            factorizations_pivoting: first.counts.factorizations_pivoting - repeats,
            pivoting_switches: 0,
            paired_repeats: first.counts.paired_repeats - repeats,
            ..first.counts
        },
        "{name}"
    );
}

/// `run()`'s value and the solver's log at the debug level while it ran (the solves in
/// `run` must set `print_level: Debug`).
fn with_debug_log<T>(run: impl FnOnce() -> T) -> (T, String) {
    #[derive(Clone, Default)]
    struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let lines = Lines::default();
    let writer = lines.clone();
    let _anchor = log_capture::interest_anchor();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let value = tracing::subscriber::with_default(subscriber, run);
    let log = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    (value, log)
}

/// Device allocations of each restoration phase in a debug log.
fn phase_allocations(log: &str) -> Vec<u64> {
    log.lines()
        .filter(|l| l.contains("restoration phase finished"))
        .map(|l| log_field(l, "allocations=").parse().unwrap())
        .collect()
}

/// The value after `key` (e.g. `"bytes="`) in a log line.
fn log_field(line: &str, key: &str) -> String {
    let start = line.find(key).map(|k| k + key.len()).expect(key);
    line[start..].split_whitespace().next().unwrap().to_string()
}

/// Options of an hs39 solve with three restoration phases (the instance of
/// `restoration_phases_share_one_backend`), at the debug log level.
fn hs39_three_phases(device: DeviceKind) -> Options {
    Options {
        device,
        kkt: KktKind::Condensed,
        theta_max_fact: 1e-5,
        theta_min_fact: 1e-6,
        max_iter: 100,
        print_level: simdnlp_solver::PrintLevel::Debug,
        ..Options::default()
    }
}

/// A restoration phase after the first moves only scalars between host and device at its
/// set-up (the start is built by kernels from the current iterate; the backend, bounds and
/// maps are the first phase's): the solver's debug log reports each phase's set-up bytes.
#[test]
fn later_restoration_phases_move_only_scalars() {
    if !emu_available() {
        return;
    }
    let options = hs39_three_phases(DeviceKind::Emu);
    let (r, log) = with_debug_log(|| solve(&hs39().model, &options).unwrap());
    // (phase, first, bytes) of every "restoration phase set up" line
    let phases: Vec<(usize, bool, u64)> = log
        .lines()
        .filter(|l| l.contains("restoration phase set up"))
        .map(|l| {
            (
                log_field(l, "phase=").parse().unwrap(),
                log_field(l, "first=").parse().unwrap(),
                log_field(l, "bytes=").parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(phases.len(), r.restorations, "{log}");
    assert!(phases.len() >= 2, "{phases:?}");
    for &(phase, first, bytes) in &phases {
        if phase == 1 {
            // the restoration problem's backend, bounds and maps are uploaded once
            assert!(first && bytes > 8, "{phases:?}");
        } else {
            // one scalar: ‖r‖∞ for μ_R
            assert!(!first && bytes == 8, "{phases:?}");
        }
    }
}

/// A restoration phase after the first allocates no device vector, set-up and inner
/// iterations included (its inner run reuses the first phase's storage, reset in place),
/// and a re-solve of the same structure reuses that storage at its first phase too: the
/// solver's debug log reports each phase's device allocations, on the CPU and on the
/// emulated device.
#[test]
fn later_restoration_phases_allocate_nothing() {
    allocate_nothing_after_the_first_phase(
        Solver::new(hs39().model, hs39_three_phases(DeviceKind::Cpu)).unwrap(),
    );
    if emu_available() {
        allocate_nothing_after_the_first_phase(
            Solver::on_device(hs39().model, emu(), hs39_three_phases(DeviceKind::Emu)).unwrap(),
        );
    }
}

/// The checks of [`later_restoration_phases_allocate_nothing`] on `solver` (of hs39 with
/// [`hs39_three_phases`]).
fn allocate_nothing_after_the_first_phase<M: NlpModel, D: SolverDevice>(mut solver: Solver<M, D>) {
    let device = solver.options().device;
    let (first, log) = with_debug_log(|| solver.solve().unwrap());
    let allocations = phase_allocations(&log);
    assert_eq!(allocations.len(), first.restorations, "{device:?}: {log}");
    assert!(allocations.len() >= 3, "{device:?}: {allocations:?}");
    // the first phase allocates the restoration problem, its backend and storage
    assert!(allocations[0] > 40, "{device:?}: {allocations:?}");
    assert!(
        allocations[1..].iter().all(|&a| a == 0),
        "{device:?}: {allocations:?}"
    );
    solver.clear_warm_start();
    let (again, log) = with_debug_log(|| solver.solve().unwrap());
    let again_allocations = phase_allocations(&log);
    assert_same_bits(&format!("{device:?}"), &again, &first);
    assert!(
        again_allocations[1..].iter().all(|&a| a == 0),
        "{device:?}: {again_allocations:?}"
    );
    // its first phase allocates the restoration problem's data, maps and start vectors,
    // but neither a backend nor the inner run's storage (57 allocations here: 47 vectors
    // of the state, 10 of the layout)
    assert!(
        again_allocations[0] + 57 <= allocations[0],
        "{device:?}: {allocations:?} then {again_allocations:?}"
    );
}

/// A re-solve after a change of bound values (the same structure) reuses the restoration
/// problem's backend and inner-run storage, with the new bounds uploaded in place: the
/// same path, bit for bit, as a new solver's solve of the changed model.
#[test]
fn resolve_with_new_bounds_matches_a_new_solver() {
    for kkt in [KktKind::Augmented, KktKind::Condensed] {
        let on_cpu = Options {
            kkt,
            theta_max_fact: 1e-2,
            ..quiet()
        };
        let on_emu = Options {
            device: DeviceKind::Emu,
            ..on_cpu.clone()
        };
        new_bounds_match_a_new_solver(|model| Solver::new(model, on_cpu.clone()).unwrap());
        if emu_available() {
            new_bounds_match_a_new_solver(|model| {
                Solver::on_device(model, emu(), on_emu.clone()).unwrap()
            });
        }
    }
}

/// The checks of [`resolve_with_new_bounds_matches_a_new_solver`] on the solvers `make`
/// makes (of hs71 with restoration phases).
fn new_bounds_match_a_new_solver<D: SolverDevice>(
    make: impl Fn(common::AdModel<4>) -> Solver<common::AdModel<4>, D>,
) {
    let change = |model: &mut common::AdModel<4>| {
        model.meta.uvar[1] = 4.9;
        model.meta.lvar[3] = 1.1;
    };
    let mut solver = make(hs71().model);
    let name = format!("{:?} {:?}", solver.options().device, solver.options().kkt);
    let first = solver.solve().unwrap();
    assert!(first.restorations >= 1, "{name}");
    change(solver.model_mut());
    solver.clear_warm_start();
    let again = solver.solve().unwrap();
    let mut changed = hs71().model;
    change(&mut changed);
    let fresh = make(changed).solve().unwrap();
    assert!(again.restorations >= 1, "{name}");
    assert_eq!(again.counts.analyses, 0, "{name}");
    assert_same_bits(&name, &again, &fresh);
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
    let change = |model: &mut AdModel<4>| model.meta.lcon[0] = 25.5;
    let cpu = first_and_warm(Solver::new(hs71().model, quiet()).unwrap(), change);
    let on_emu = on(DeviceKind::Emu, &quiet());
    let emulated = first_and_warm(
        Solver::on_device(hs71().model, emu(), on_emu).unwrap(),
        change,
    );
    assert_agree("hs71 first", &cpu.0, &emulated.0);
    assert_agree("hs71 warm", &cpu.1, &emulated.1);
    assert_eq!(cpu.1.status, Status::SolveSucceeded);
    assert!(cpu.1.iterations < cpu.0.iterations);
}

/// Solves, changes the model with `change` and re-solves (warm): the second solve reuses
/// the first one's symbolic analysis.
fn first_and_warm<M: NlpModel, D: SolverDevice>(
    mut solver: Solver<M, D>,
    change: impl FnOnce(&mut M),
) -> (SolveResult, SolveResult) {
    let first = solver.solve().unwrap();
    change(solver.model_mut());
    let warm = solver.solve().unwrap();
    assert_eq!(
        solver.symbolic_analyses(),
        1,
        "{:?}: analysis reused",
        D::KIND
    );
    (first, warm)
}

/// A `Solver<M, Emu>` on a device the caller opened solves exactly as the free function
/// with `device = emu` on the solver's process-wide device (the same bits).
#[test]
fn a_solver_on_an_emu_device_solves_like_the_free_function() {
    if !emu_available() {
        return;
    }
    let o = on(DeviceKind::Emu, &quiet());
    for kkt in [KktKind::Augmented, KktKind::Condensed] {
        let o = Options { kkt, ..o.clone() };
        let free = solve(&hs71().model, &o).unwrap();
        let mut solver = Solver::on_device(hs71().model, emu(), o).unwrap();
        assert!(Arc::ptr_eq(solver.device(), &emu()));
        let owned = solver.solve().unwrap();
        assert_eq!(owned.status, Status::SolveSucceeded, "{kkt:?}");
        assert_same_bits(&format!("{kkt:?}"), &owned, &free);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&owned.y), bits(&free.y), "{kkt:?}");
    }
}

/// The options of a `Solver<M, D>` must name `D`: a typed error from the constructor and
/// from a solve after `options_mut` changed the device; the solver works again once the
/// option names its device.
#[test]
fn the_options_must_name_the_solvers_device() {
    let mismatch = |result: Result<SolveResult, SolverError>, options, solver| match result {
        Err(SolverError::DeviceMismatch {
            options: named,
            solver: runs_on,
        }) => assert_eq!((named, runs_on), (options, solver)),
        Err(e) => panic!("unexpected error {e}"),
        Ok(r) => panic!("solved on the wrong device: {:?}", r.status),
    };
    let on_emu = on(DeviceKind::Emu, &quiet());
    let made = Solver::new(hs71().model, on_emu.clone()).map(|_| unreachable!());
    mismatch(made, DeviceKind::Emu, DeviceKind::Cpu);
    let mut solver: Solver<_, Cpu> = Solver::new(hs71().model, quiet()).unwrap();
    solver.options_mut().device = DeviceKind::Emu;
    mismatch(solver.solve(), DeviceKind::Emu, DeviceKind::Cpu);
    solver.options_mut().device = DeviceKind::Cpu;
    assert_eq!(solver.solve().unwrap().status, Status::SolveSucceeded);
    assert_eq!(solver.symbolic_analyses(), 1);
    if !emu_available() {
        return;
    }
    let made = Solver::on_device(hs71().model, emu(), quiet()).map(|_| unreachable!());
    mismatch(made, DeviceKind::Cpu, DeviceKind::Emu);
    let mut solver = Solver::on_device(hs71().model, emu(), on_emu).unwrap();
    solver.options_mut().device = DeviceKind::Cpu;
    mismatch(solver.solve(), DeviceKind::Cpu, DeviceKind::Emu);
    assert_eq!(solver.symbolic_analyses(), 0);
}

/// HS71 built from patterns (a [`Model`]), which the solver evaluates with its emitted
/// kernels on the emulated device; `fixed` holds `x₂` at 3.5 (a fixed variable made a
/// parameter on the device). The last objective term is `w x₂` with a parameter `w = 1`
/// (returned).
fn hs71_patterns(fixed: bool) -> (Model, Param<Ix1>) {
    let mut m = ModelBuilder::new();
    m.set_name("hs71 patterns");
    let (lower, upper) = if fixed {
        ([1.0, 1.0, 3.5, 1.0], [5.0, 5.0, 3.5, 5.0])
    } else {
        ([1.0; 4], [5.0; 4])
    };
    let x = m
        .var(0..4)
        .bounds(lower, upper)
        .start([1.0, 5.0, 5.0, 1.0])
        .named("x");
    let w = m.param([1.0]);
    m.minimize(0..1, |_| {
        x.at(0) * x.at(3) * (x.at(0) + x.at(1) + x.at(2)) + w.at(0) * x.at(2)
    });
    m.constraint(0..1, |_| x.at(0) * x.at(1) * x.at(2) * x.at(3))
        .lower(25.0)
        .named("product");
    m.constraint(0..1, |_| {
        x.at(0).powi(2) + x.at(1).powi(2) + x.at(2).powi(2) + x.at(3).powi(2)
    })
    .equal_to(40.0)
    .named("sphere");
    (m.build().expect("hs71 builds"), w)
}

/// A chain of `n` coupled Rosenbrock terms with one ring constraint per pair (shared
/// variables: gradient entries summed from several patterns and points).
fn chained_patterns(n: usize) -> Model {
    chained_patterns_with(n, false)
}

/// [`chained_patterns`], with `quartic` an extra objective pattern `1e-3 xᵢ⁴`: a model whose
/// emitted module no other test compiles (the module source depends on the patterns, not
/// on `n`).
fn chained_patterns_with(n: usize, quartic: bool) -> Model {
    let mut m = ModelBuilder::new();
    m.set_name("chained rosenbrock");
    let x = m
        .var(0..n)
        .start_with(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .named("x");
    m.minimize(1..n, |i| {
        100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2)
    });
    if quartic {
        m.minimize(0..n, |i| 1e-3 * x.at(i).powi(4));
    }
    m.constraint(1..n, |i| x.at(i - 1).powi(2) + x.at(i).powi(2))
        .upper(4.0)
        .named("ring");
    m.build().expect("chain builds")
}

#[test]
fn pattern_models_evaluated_by_their_kernels_agree_with_the_cpu() {
    if !emu_available() {
        return;
    }
    let augmented = quiet();
    let condensed = Options {
        kkt: KktKind::Condensed,
        ..quiet()
    };
    let restoration = Options {
        theta_max_fact: 1e-2,
        ..quiet()
    };
    let (hs71, _) = hs71_patterns(false);
    assert!(hs71.as_pattern_model().is_some());
    for o in [&augmented, &condensed] {
        let (cpu, _) = both("hs71 patterns", &hs71, o);
        assert_eq!(cpu.status, Status::SolveSucceeded);
        assert!((cpu.objective - 17.0140172891).abs() < 1e-6);
        let (cpu, _) = both("chain patterns", &chained_patterns(12), o);
        assert_eq!(cpu.status, Status::SolveSucceeded);
    }
    let (cpu, _) = both("hs71 fixed", &hs71_patterns(true).0, &augmented);
    assert_eq!(cpu.status, Status::SolveSucceeded);
    assert_eq!(cpu.x[2], 3.5);
    let (cpu, _) = both("hs71 pat resto", &hs71, &restoration);
    assert_eq!(cpu.status, Status::SolveSucceeded);
    assert!(cpu.restorations >= 1);
}

#[test]
fn pattern_model_warm_resolve_on_the_kernels() {
    if !emu_available() {
        return;
    }
    // a re-solve builds the device model again from the changed model (θ and bounds as
    // they are now), reusing the compiled module and the KKT analysis
    let (model, w) = hs71_patterns(false);
    let change = |model: &mut Model| model.set_value(&w, 1.5).unwrap();
    let cpu = first_and_warm(Solver::new(model.clone(), quiet()).unwrap(), change);
    let on_emu = on(DeviceKind::Emu, &quiet());
    let emulated = first_and_warm(Solver::on_device(model, emu(), on_emu).unwrap(), change);
    assert_agree("pat first", &cpu.0, &emulated.0);
    assert_agree("pat warm", &cpu.1, &emulated.1);
    assert_eq!(cpu.1.status, Status::SolveSucceeded);
    assert!(cpu.1.objective > cpu.0.objective, "θ changed the optimum");
}

#[test]
fn a_model_whose_kernels_cannot_be_built_is_a_typed_error_on_emu() {
    if !emu_available() {
        return;
    }
    // a user function without a CUDA body: fine on the CPU, a typed error on emu
    let cube = simdnlp_ad::UnaryFn::new("cube", |v| v * v * v, |v| 3.0 * v * v, |v| 6.0 * v);
    let mut m = ModelBuilder::new();
    let x = m.var(0..2).start(1.0).named("x");
    m.minimize(0..2, |i| cube.call(&(x.at(i) - 2.0)).powi(2));
    let model = m.build().unwrap();
    let cpu = solve(&model, &quiet()).expect("cpu solve");
    assert_eq!(cpu.status, Status::SolveSucceeded);
    match solve(&model, &on(DeviceKind::Emu, &quiet())) {
        Err(SolverError::DeviceModel(simdnlp_modeling::ModelError::MissingCudaBody {
            function,
        })) => assert!(function.starts_with("user_cube_"), "{function}"),
        Err(e) => panic!("unexpected error {e}"),
        Ok(r) => panic!("solved without kernels: {:?}", r.status),
    }
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
    o.set("device", "cuda").unwrap();
    assert_eq!(o.device, DeviceKind::Cuda);
    let err = o.set("device", "gpu").unwrap_err();
    assert!(err.to_string().contains("`cuda`"), "{err}");
}

/// Host↔device bytes are counted: none on the CPU; on Emu with the augmented system
/// (factorized in place on host memory) only scalars per iteration — the reductions'
/// 8-byte results and the objective; with the condensed system behind faer also the
/// factorization's copies of `K` and the right-hand sides.
#[test]
fn transferred_bytes_are_counted() {
    if !emu_available() {
        return;
    }
    let (model, _) = hs71_patterns(false);
    let condensed = Options {
        kkt: KktKind::Condensed,
        ..quiet()
    };
    let cpu = solve(&model, &on(DeviceKind::Cpu, &condensed)).unwrap();
    assert_eq!((cpu.bytes_transferred, cpu.bytes_per_iteration), (0, 0.0));
    // Another solve on the same process-wide Emu, on another thread, all the while: a
    // solve counts its own thread's traffic, not the device's total (CI once saw this
    // test's augmented figure polluted by the other tests of this binary).
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (emu, augmented) = std::thread::scope(|scope| {
        let background = scope.spawn(|| {
            let mut solves = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || solves == 0 {
                solve(&model, &on(DeviceKind::Emu, &condensed)).unwrap();
                solves += 1;
            }
        });
        let emu = solve(&model, &on(DeviceKind::Emu, &condensed)).unwrap();
        let augmented = solve(&model, &on(DeviceKind::Emu, &quiet())).unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        background.join().unwrap();
        (emu, augmented)
    });
    assert!(emu.bytes_transferred > 0);
    assert!(augmented.iterations >= 2);
    // scalars only: a few dozen reductions per iteration, 8 bytes each
    assert!(
        augmented.bytes_per_iteration > 0.0 && augmented.bytes_per_iteration <= 1024.0,
        "{} bytes per iteration",
        augmented.bytes_per_iteration
    );
    assert!(emu.bytes_per_iteration > augmented.bytes_per_iteration);
    println!(
        "hs71 on emu: {:.0} bytes per iteration augmented (scalars), {:.0} condensed (with \
         the host factorization's copies)",
        augmented.bytes_per_iteration, emu.bytes_per_iteration
    );
}

/// `device = cuda` where there is no GPU (this machine, CI), or in a build without the
/// `cuda` feature: a typed device error naming the device, not a panic.
#[test]
fn cuda_without_a_gpu_is_a_typed_error() {
    if simdnlp_solver_has_gpu() {
        eprintln!("a CUDA driver is present; skipping the no-GPU error test");
        return;
    }
    let o = Options {
        device: DeviceKind::Cuda,
        ..quiet()
    };
    let (model, _) = hs71_patterns(false);
    match solve(&model, &o) {
        Err(SolverError::Device(e)) => {
            let text = e.to_string();
            assert!(text.contains("cuda"), "{text}");
            println!("device = cuda without a GPU: {text}");
        }
        other => panic!("expected a device error, got {other:?}"),
    }
}

/// Whether the CUDA driver library can be loaded here (only with the `cuda` feature).
fn simdnlp_solver_has_gpu() -> bool {
    #[cfg(feature = "cuda")]
    {
        simdnlp_device::driver_present()
    }
    #[cfg(not(feature = "cuda"))]
    {
        false
    }
}

/// `prepare_device` compiles a pattern model's kernels ahead of the solve: a second call
/// finds them loaded in the process (nothing compiled or read), the solve after it then
/// compiles nothing and reports the analysis inside its factorization time; on the CPU it
/// does nothing, and on `cuda` without a GPU it fails as the solve does.
#[test]
fn kernels_are_prepared_before_the_solve() {
    if !emu_available() {
        return;
    }
    let o = Options {
        kkt: KktKind::Condensed,
        ..on(DeviceKind::Emu, &quiet())
    };
    // the process's device opened first (by this call or another test's: either way its
    // interior-point kernels are not counted below), by a model without kernels of its own
    simdnlp_solver::prepare_device(&hs6().model, &o).unwrap();
    // patterns no other test uses: its module is new to this process (another size of
    // `chained_patterns` would not do: the module source does not depend on the size, and
    // the tests run in parallel, so the module may already be loaded); modules other tests
    // load meanwhile are not counted
    let model = chained_patterns_with(17, true);
    let first = simdnlp_solver::prepare_device(&model, &o).unwrap();
    assert_eq!(first.compiled + first.from_disk, 1, "{first:?}");
    assert!(first.seconds > 0.0);
    let again = simdnlp_solver::prepare_device(&model, &o).unwrap();
    assert_eq!((again.compiled, again.from_disk), (0, 0), "{again:?}");
    let result = solve(&model, &o).unwrap();
    assert_eq!(result.status, Status::SolveSucceeded);
    let t = result.timings;
    assert!(t.analysis > 0.0 && t.analysis <= t.factorization, "{t:?}");
    let cpu = simdnlp_solver::prepare_device(&model, &on(DeviceKind::Cpu, &quiet())).unwrap();
    assert_eq!((cpu.compiled, cpu.from_disk), (0, 0));
    if !simdnlp_solver_has_gpu() {
        let cuda = simdnlp_solver::prepare_device(&model, &on(DeviceKind::Cuda, &quiet()));
        assert!(matches!(cuda, Err(SolverError::Device(_))), "{cuda:?}");
    }
}

/// A kernel that fails in the middle of a solve (a launch refused on this thread by
/// `simdnlp_device::fail_launch_on_this_thread`) ends the solve with the typed device error
/// naming the kernel, on both KKT forms — no panic and no result computed from the
/// failed kernel's output — and the shared device then serves the next solve exactly as
/// before.
#[test]
fn a_kernel_failure_mid_solve_is_a_typed_error() {
    if !emu_available() {
        return;
    }
    let (model, _) = hs71_patterns(false);
    for kkt in [KktKind::Augmented, KktKind::Condensed] {
        let options = on(DeviceKind::Emu, &Options { kkt, ..quiet() });
        let before = simdnlp_device::launches_on_this_thread();
        let clean = solve(&model, &options).unwrap();
        let total = simdnlp_device::launches_on_this_thread() - before;
        assert!(clean.status.is_success() && total > 100, "{total} launches");
        let mut failed_in_the_iterations = 0;
        // in the set-up, in the first iteration, mid-solve, and the very last launch
        for launches in [0, 7, total / 4, total / 2, total - 1] {
            simdnlp_device::fail_launch_on_this_thread(launches);
            let outcome = solve(&model, &options);
            simdnlp_device::clear_launch_failure_on_this_thread();
            match outcome {
                Err(SolverError::Device(DeviceError::Launch {
                    device,
                    kernel,
                    reason,
                })) => {
                    assert_eq!(device, "emu");
                    assert!(!kernel.is_empty());
                    assert_eq!(reason, simdnlp_device::INJECTED_FAILURE);
                    failed_in_the_iterations += usize::from(launches >= total / 4);
                }
                other => panic!("{kkt:?}, failure after {launches} launches: {other:?}"),
            }
            // nothing left behind: the next solve is the clean one, bit for bit
            let again = solve(&model, &options).unwrap();
            assert_eq!(again.iterations, clean.iterations);
            assert_eq!(again.objective.to_bits(), clean.objective.to_bits());
        }
        assert_eq!(failed_in_the_iterations, 3, "{kkt:?}");
    }
}
