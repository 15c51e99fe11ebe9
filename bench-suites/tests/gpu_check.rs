//! `gpu-check` on the emulated device: stages 1–3 pass (every generic kernel vs `Cpu`,
//! three identical runs, the model kernels of two small instances vs their CPU callbacks,
//! and `exp`/`sin`/`cos` bitwise).
//! The CUDA run of the same entry is `gpu-check --device cuda` on a GPU machine.
//!
//! g++ is required (CI installs it); `SIMDNLP_SKIP_GXX=1` skips on a machine without it.

use simdnlp_bench::harness::Registry;
use simdnlp_bench::harness::gpu_check::{CheckDevice, GpuCheckArgs, run_gpu_check};
use simdnlp_bench::harness::gpu_solve::SolveKkt;
use simdnlp_bench::harness::{BenchError, SizeSel};
use simdnlp_device::DeviceError;

#[test]
fn gpu_check_passes_on_the_emulated_device() {
    let args = GpuCheckArgs {
        device: CheckDevice::Emu,
        ordinal: 0,
        suites: Vec::new(),
        size: SizeSel::Small,
        instances: vec![
            "rosenbrock:20".parse().unwrap(),
            "case5_pjm".parse().unwrap(),
        ],
        pglib_dir: None,
        cases: 2,
        no_models: false,
        cudss_instances: Vec::new(),
        no_cudss: false,
        // stage 5 on the emulated device: its defaults (rosenbrock:20, case14_ieee)
        solve_instances: Vec::new(),
        no_solves: false,
        solve_kkt: SolveKkt::Condensed,
        timing_instances: vec!["rosenbrock:20".parse().unwrap()],
        no_timing: false,
        solve_max_wall_time: 60.0,
        json: None,
    };
    let reg = Registry::with_defaults(None);
    let mut out = Vec::new();
    let report = match run_gpu_check(&args, &reg, &mut out) {
        Err(BenchError::Device(e @ DeviceError::Unavailable { .. })) => {
            assert!(
                std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                "g++ is required for this test: {e}"
            );
            eprintln!("g++ not available ({e}); skipping");
            return;
        }
        other => other.unwrap(),
    };
    let text = String::from_utf8(out).unwrap();
    println!("{text}");
    assert!(report.passed, "{:?}", report.failures);
    assert!(report.repeatable);
    assert!(report.kernels.len() >= 30);
    // the two instances and the bitwise `exp`/`sin`/`cos` model (`lane/exp-sin-cos`)
    assert_eq!(report.models.len(), 3, "{:?}", report.models);
    assert!(report.models.iter().all(|m| m.entries > 0));
    let lane = &report.models[0];
    assert_eq!(lane.instance, "exp-sin-cos");
    assert_eq!(lane.entries, 2 * 3 * lane.nvar);
    assert_eq!(report.solves.len(), 2, "{:?}", report.solves);
    for c in &report.solves {
        assert!(c.device.success && c.cpu.success, "{c:?}");
        assert!(c.device.bytes_per_iteration > 0.0, "{c:?}");
    }
    assert_eq!(report.timings.len(), 1);
    assert!(report.timings[0].run.solve_s > 0.0);
    assert!(text.contains("== stage 5") && text.contains("== stage 6"));
    assert!(text.contains("gpu-check: PASSED"));
}
