//! `kkt = hybrid` on the bundled PGLIB-OPF cases case5_pjm and case14_ieee: the same
//! optimum as the augmented form (objective within 1e-8 relative, `x` within 1e-6), with
//! the equality rows (power balance, reference angle) solved by conjugate gradients on their
//! Schur complement.
#![cfg(feature = "solver")]

use simdnlp_bench::opf::{OpfData, bundled_pglib_dir, model::acopf};
use simdnlp_solver::{KktKind, Options, PrintLevel, Status, solve};

#[test]
fn hybrid_opf_agrees_with_augmented() {
    for case in ["pglib_opf_case5_pjm", "pglib_opf_case14_ieee"] {
        let path = bundled_pglib_dir().join(format!("{case}.m"));
        let m = acopf(&OpfData::read(path).unwrap()).unwrap();
        let opts = |kkt| Options {
            kkt,
            print_level: PrintLevel::None,
            ..Options::default()
        };
        let a = solve(&m, &opts(KktKind::Augmented)).expect("augmented");
        let h = solve(&m, &opts(KktKind::Hybrid)).expect("hybrid");
        println!(
            "{case}: augmented {} iters f {:.10e}, hybrid {} iters f {:.10e}, CG {}",
            a.iterations, a.objective, h.iterations, h.objective, h.counts.cg_iterations
        );
        assert_eq!(a.status, Status::SolveSucceeded, "{case}");
        assert_eq!(h.status, Status::SolveSucceeded, "{case}");
        assert!(
            (a.objective - h.objective).abs() <= 1e-8 * a.objective.abs(),
            "{case}"
        );
        for (xa, xh) in a.x.iter().zip(&h.x) {
            assert!(
                (xa - xh).abs() <= 1e-6 * xa.abs().max(1.0),
                "{case}: {xa} vs {xh}"
            );
        }
        assert!(h.counts.cg_iterations > 0, "{case}");
    }
}

/// `kkt = hybrid` on the emulated CUDA device (the device backend: `K_γ` assembled by the
/// condensed form's kernels, conjugate gradients over device vectors, faer behind the
/// factorization seam) reaches the CPU hybrid form's optimum on case5_pjm and case14_ieee:
/// objective within 1e-6 relative, iterations within 20 %. g++ is required (CI installs
/// it); `SIMDNLP_SKIP_GXX=1` skips on a machine without it.
#[test]
fn hybrid_opf_on_emu_agrees_with_the_cpu_hybrid() {
    use simdnlp_device::DeviceError;
    use simdnlp_solver::{DeviceKind, SolverError};
    for case in ["pglib_opf_case5_pjm", "pglib_opf_case14_ieee"] {
        let path = bundled_pglib_dir().join(format!("{case}.m"));
        let m = acopf(&OpfData::read(path).unwrap()).unwrap();
        let opts = |device| Options {
            kkt: KktKind::Hybrid,
            device,
            print_level: PrintLevel::None,
            ..Options::default()
        };
        let cpu = solve(&m, &opts(DeviceKind::Cpu)).expect("cpu");
        let emu = match solve(&m, &opts(DeviceKind::Emu)) {
            Ok(r) => r,
            Err(SolverError::Device(e @ DeviceError::Unavailable { .. })) => {
                assert!(
                    std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                    "g++ is required for this test: {e}"
                );
                return;
            }
            Err(e) => panic!("{case}: emu solve failed: {e}"),
        };
        println!(
            "{case}: cpu {} iters f {:.10e} CG {}, emu {} iters f {:.10e} CG {}",
            cpu.iterations,
            cpu.objective,
            cpu.counts.cg_iterations,
            emu.iterations,
            emu.objective,
            emu.counts.cg_iterations
        );
        assert_eq!(cpu.status, Status::SolveSucceeded, "{case}");
        assert_eq!(emu.status, Status::SolveSucceeded, "{case}");
        assert!(
            (cpu.objective - emu.objective).abs() <= 1e-6 * cpu.objective.abs(),
            "{case}"
        );
        let spread = (cpu.iterations as f64 * 0.2).max(1.0);
        assert!(
            (emu.iterations as f64 - cpu.iterations as f64).abs() <= spread,
            "{case}: {} iterations on emu, {} on the cpu",
            emu.iterations,
            cpu.iterations
        );
        assert!(emu.counts.cg_iterations > 0, "{case}");
    }
}
