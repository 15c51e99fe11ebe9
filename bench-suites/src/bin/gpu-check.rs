//! `gpu-check`: verify a kernel device against the CPU (stages 1–3 of `../shared/GPU.md`
//! §7; see `simdnlp_bench::harness::gpu_check`). Exit code 0 when every stage passed, 1 on
//! any failed check, 2 when the run could not be made (no device, bad arguments).

use std::process::ExitCode;

use clap::Parser;
use simdnlp_bench::harness::Registry;
use simdnlp_bench::harness::gpu_check::{GpuCheckArgs, run_gpu_check};

/// Verify the CUDA (or emulated) device: versions, every generic kernel vs the CPU
/// device, and the model kernels vs the CPU callbacks on LV, COPS and PGLIB instances.
#[derive(Debug, Parser)]
#[command(name = "gpu-check", version, about)]
struct Cli {
    #[command(flatten)]
    args: GpuCheckArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let reg = Registry::with_defaults(cli.args.pglib_dir.clone());
    let mut stdout = std::io::stdout().lock();
    match run_gpu_check(&cli.args, &reg, &mut stdout) {
        Ok(report) if report.passed => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            eprintln!("gpu-check: error: {e}");
            ExitCode::from(2)
        }
    }
}
