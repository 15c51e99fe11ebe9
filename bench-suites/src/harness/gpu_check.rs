//! `gpu-check`: verification of a kernel device against the CPU, stages 1–6 of
//! `../shared/GPU.md` §7, as one JSON report and a readable summary.
//!
//! 1. **versions**: the device (for `cuda`: driver version, device name, compute capability,
//!    memory, NVRTC version and library; for `emu`: the C++ compiler).
//! 2. **generic kernels**: every kernel method of [`Device`] against the [`Cpu`] reference
//!    on seeded random vectors with NaN, ±∞, ±0 and empty vectors: element-wise, min/max
//!    and segmented kernels bitwise (`±0` equal where `Cpu` uses `f64::min`/`max`, which
//!    leave the sign of an equal pair of zeros unspecified); plain sums (`dot`, `sum`,
//!    `norm_1`, `sum_ln`) bitwise up to 32 terms and otherwise within the rounding of two
//!    summation orders, `(n − 1) ε Σ|terms|` (a fixed `1e-15` relative is not attainable:
//!    the sequential sum's own error is up to half that), the largest difference relative
//!    to `Σ|terms|` reported; and three runs of the whole stage give identical bits.
//! 3. **model kernels**: [`DeviceModel`] against the CPU callbacks of the same [`Model`]
//!    (interpreter) on LV, COPS and PGLIB instances: `obj`, `grad`, `cons`, `jac_coord`,
//!    `hess_coord` at a point near the start, each entry within `1e-12` relative
//!    (`|d − c| ≤ 1e-12 · max(|c|, 1)`; NaN only where the CPU has NaN; the objective,
//!    summed in another order, within [`objective_tolerance`]), and the module
//!    compile time per model; first, the model `lane/exp-sin-cos`: the device's own `exp`,
//!    `sin` and `cos` bitwise against the CPU's on their fast paths (`check_transcendentals`).
//! 4. **cuDSS** (`cuda` only, unless `--no-cudss`): factorizations and solves of condensed
//!    KKT matrices and random matrices against faer and dense eigenvalues
//!    ([`super::gpu_cudss`]); a missing library fails the stage with the loader's message.
//! 5. **solves** (unless `--no-solves`): whole solves on the device against the CPU's
//!    condensed solve ([`super::gpu_solve`]): status, objective, iterations, bytes moved
//!    per iteration.
//! 6. **timing** (`cuda` by default; `emu` only on `--timing-instance`): solves with the
//!    compile time apart and the solver's breakdown ([`super::gpu_solve`]).
//!
//! Any failure makes [`GpuCheckReport::passed`] false (the binary then exits non-zero).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde::Serialize;
use simdnlp_device::{Cpu, Device, Emu, KernelRuntime, SegmentPlan};
use simdnlp_modeling::{DeviceModel, Evaluator, Model, NlpModel};

use super::BenchError;
use super::gpu_cudss::CudssStage;
use super::gpu_solve::{SolveCheck, SolveDevice, TimingCheck};
use super::kernels::pattern_model;
#[cfg(feature = "cuda")]
use super::registry::SizeClass;
use super::registry::{InstanceSpec, ModelSourceSel, Registry, SizeSel, Suite};

/// Relative tolerance of stage 3 (model callbacks, `fmad` off).
pub const MODEL_TOLERANCE: f64 = 1e-12;

/// Stage 3's tolerance of the objective of a model with `nvar` variables: the device sums
/// the terms by a parallel reduction and the CPU sequentially, which differ by up to
/// `(n − 1) ε Σ|terms|`; with `nvar` as the term count and `Σ|terms| ≈ max(|f|, 1)` (exact
/// for objectives of non-negative terms, as the LV and COPS ones are) that is
/// `MODEL_TOLERANCE + nvar · ε` relative.
pub fn objective_tolerance(nvar: usize) -> f64 {
    MODEL_TOLERANCE + nvar as f64 * f64::EPSILON
}

/// The device `gpu-check` verifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckDevice {
    /// The CUDA device (needs libcuda, a GPU and libnvrtc; `simdnlp-bench` built with
    /// its feature `cuda`).
    Cuda,
    /// The emulated CUDA device (the same kernels compiled by g++, run on the host).
    Emu,
}

/// Arguments of `gpu-check`.
#[derive(Debug, Clone, Args)]
pub struct GpuCheckArgs {
    /// Device to verify.
    #[arg(long, value_enum, default_value = "cuda")]
    pub device: CheckDevice,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub ordinal: usize,
    /// Suites of stage 3 (repeatable; default: lv, cops and opf).
    #[arg(long = "suite", value_enum)]
    pub suites: Vec<Suite>,
    /// Preset size class(es) of stage 3.
    #[arg(long, value_enum, default_value = "small")]
    pub size: SizeSel,
    /// Stage 3 only on these instances, `NAME[:SIZE]` (repeatable; each is looked up in
    /// the suites given, or in all three).
    #[arg(long = "instance", value_name = "NAME[:SIZE]")]
    pub instances: Vec<InstanceSpec>,
    /// Directory of PGLIB-OPF cases searched first (as for `simdnlp-bench`).
    #[arg(long, value_name = "DIR")]
    pub pglib_dir: Option<PathBuf>,
    /// Random cases per vector length in stage 2.
    #[arg(long, default_value_t = 8)]
    pub cases: u64,
    /// Skip stage 3.
    #[arg(long)]
    pub no_models: bool,
    /// Stage 4 (cuDSS; `cuda` only) on the condensed KKT matrices of these instances,
    /// `NAME[:SIZE]` (repeatable; default case118_ieee and rosenbrock:2000).
    #[arg(long = "cudss-instance", value_name = "NAME[:SIZE]")]
    pub cudss_instances: Vec<InstanceSpec>,
    /// Skip stage 4.
    #[arg(long)]
    pub no_cudss: bool,
    /// Stage 5 (solves, device vs CPU) on these instances, `NAME[:SIZE]` (repeatable;
    /// default on `cuda`: rosenbrock:2000, wood:2000, gasoil:200, catmix:200,
    /// case118_ieee, case1354_pegase; on `emu`: rosenbrock:20, case14_ieee).
    #[arg(long = "solve-instance", value_name = "NAME[:SIZE]")]
    pub solve_instances: Vec<InstanceSpec>,
    /// Skip stage 5.
    #[arg(long)]
    pub no_solves: bool,
    /// The KKT form of the solves of stages 5 and 6 (on the device and on the CPU).
    #[arg(long = "solve-kkt", value_enum, default_value = "condensed")]
    pub solve_kkt: super::gpu_solve::SolveKkt,
    /// Stage 6 (timed solves) on these instances, `NAME[:SIZE]` (repeatable; default on
    /// `cuda`: rosenbrock:200000, case9591_goc, case10000_goc, case10480_goc; none on
    /// `emu`).
    #[arg(long = "timing-instance", value_name = "NAME[:SIZE]")]
    pub timing_instances: Vec<InstanceSpec>,
    /// Skip stage 6.
    #[arg(long)]
    pub no_timing: bool,
    /// Wall-time limit of each solve of stages 5 and 6, seconds.
    #[arg(long, default_value_t = 60.0)]
    pub solve_max_wall_time: f64,
    /// Write the report as one JSON object to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// Stage 2: one kernel method.
#[derive(Clone, Debug, Default, Serialize)]
pub struct KernelCheck {
    /// Method name (`axpy`, `dot`, `seg_spmv`, ...).
    pub kernel: String,
    /// Comparisons made.
    pub cases: u64,
    /// Comparisons that failed.
    pub failures: u64,
    /// The first failure, with its case.
    pub first_failure: Option<String>,
    /// Plain sums: largest `|device − cpu| / Σ|terms|` (0 elsewhere).
    pub worst_rel: f64,
}

/// Stage 3: one model.
#[derive(Clone, Debug, Serialize)]
pub struct ModelCheck {
    /// Suite.
    pub suite: String,
    /// Instance label.
    pub instance: String,
    /// Variables, constraints, Jacobian and Hessian entries.
    pub nvar: usize,
    /// Constraint rows.
    pub ncon: usize,
    /// Jacobian entries.
    pub nnzj: usize,
    /// Hessian entries.
    pub nnzh: usize,
    /// Time to create the device model (module compile, load and uploads), seconds.
    pub setup_s: f64,
    /// The module's compile time, seconds (`cuda`: NVRTC alone; `emu`: g++ and loading).
    pub compile_s: f64,
    /// Largest relative error per callback (`obj`, `grad`, `cons`, `jac`, `hess`).
    pub max_rel: [f64; 5],
    /// Entries compared.
    pub entries: usize,
    /// What failed (empty when the model passed).
    pub failures: Vec<String>,
}

/// The whole report (the JSON object `--json` writes).
#[derive(Clone, Debug, Serialize)]
pub struct GpuCheckReport {
    /// `cuda` or `emu`.
    pub device: CheckDevice,
    /// Stage 1: name → value.
    pub versions: Vec<(String, String)>,
    /// Stage 2, per kernel method.
    pub kernels: Vec<KernelCheck>,
    /// Stage 2: the three runs gave identical bits.
    pub repeatable: bool,
    /// Stage 2 wall time, seconds.
    pub kernels_s: f64,
    /// Stage 3, per model.
    pub models: Vec<ModelCheck>,
    /// Stage 4 (cuDSS), when it ran.
    pub cudss: Option<CudssStage>,
    /// Stage 5, per instance.
    pub solves: Vec<SolveCheck>,
    /// Stage 6, per instance.
    pub timings: Vec<TimingCheck>,
    /// Every stage passed.
    pub passed: bool,
    /// One line per failure.
    pub failures: Vec<String>,
}

/// Runs stages 1–3 on the chosen device, prints the summary to `out`, writes the JSON
/// report when asked and returns it (check [`GpuCheckReport::passed`]).
///
/// # Errors
/// The device cannot be opened ([`BenchError::Device`], e.g. no libcuda: the message says
/// how to point at it), bad arguments, an instance that cannot be built, or the report
/// cannot be written.
pub fn run_gpu_check(
    args: &GpuCheckArgs,
    reg: &Registry,
    out: &mut dyn Write,
) -> Result<GpuCheckReport, BenchError> {
    let mut report = match args.device {
        CheckDevice::Emu => {
            let emu = Emu::new()?;
            let versions = vec![
                ("device".to_string(), "emu".to_string()),
                ("compiler".to_string(), emu.compiler().display().to_string()),
            ];
            check_device(args, reg, &emu, versions, |_| None)?
        }
        CheckDevice::Cuda => run_cuda(args, reg)?,
    };
    run_solve_stages(args, reg, &mut report)?;
    print_summary(&report, out).map_err(|source| BenchError::Io {
        path: "<stdout>".into(),
        source,
    })?;
    if let Some(path) = &args.json {
        let io = |source| BenchError::Io {
            path: path.clone(),
            source,
        };
        let text = serde_json::to_string_pretty(&report).map_err(|e| io(e.into()))?;
        std::fs::write(path, text + "\n").map_err(io)?;
    }
    Ok(report)
}

#[cfg(feature = "cuda")]
fn run_cuda(args: &GpuCheckArgs, reg: &Registry) -> Result<GpuCheckReport, BenchError> {
    let cuda = simdnlp_device::Cuda::new(args.ordinal)?;
    let info = cuda.info().clone();
    let versions = vec![
        ("device".to_string(), "cuda".to_string()),
        ("name".to_string(), info.name.clone()),
        ("ordinal".to_string(), info.ordinal.to_string()),
        (
            "compute_capability".to_string(),
            format!(
                "{}.{}",
                info.compute_capability.0, info.compute_capability.1
            ),
        ),
        ("memory_bytes".to_string(), info.total_memory.to_string()),
        (
            "driver_cuda_version".to_string(),
            format!(
                "{}.{}",
                info.driver_version / 1000,
                (info.driver_version % 1000) / 10
            ),
        ),
        (
            "nvrtc_version".to_string(),
            format!("{}.{}", info.nvrtc_version.0, info.nvrtc_version.1),
        ),
        ("nvrtc_library".to_string(), info.nvrtc_library.clone()),
        ("arch".to_string(), info.arch.clone()),
        (
            "ipm_kernels_compile_s".to_string(),
            format!(
                "{:.3}",
                cuda.compile_times()
                    .first()
                    .map_or(0.0, |t| t.as_secs_f64())
            ),
        ),
    ];
    let mut report = check_device(args, reg, &cuda, versions, |d| {
        d.compile_times().last().map(|t| t.as_secs_f64())
    })?;
    if !args.no_cudss {
        let stage = super::gpu_cudss::run_stage4(&cuda, cudss_matrices(args, reg)?);
        report.failures.extend(stage.failures());
        report.passed = report.failures.is_empty();
        report.cudss = Some(stage);
    }
    Ok(report)
}

/// The condensed KKT matrices of stage 4's instances (see [`GpuCheckArgs`]).
#[cfg(feature = "cuda")]
fn cudss_matrices(
    args: &GpuCheckArgs,
    reg: &Registry,
) -> Result<Vec<(String, super::gpu_cudss::LowerCsc)>, BenchError> {
    use std::str::FromStr;
    let specs = if args.cudss_instances.is_empty() {
        ["case118_ieee", "rosenbrock:2000"]
            .iter()
            .map(|s| InstanceSpec::from_str(s).map_err(BenchError::Arg))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        args.cudss_instances.clone()
    };
    let mut out = Vec::new();
    for spec in &specs {
        let one = std::slice::from_ref(spec);
        let inst = [Suite::Opf, Suite::Lv, Suite::Cops]
            .into_iter()
            .find_map(|suite| {
                reg.select(suite, &SizeClass::ALL, one, ModelSourceSel::Cpu)
                    .ok()
                    .and_then(|mut v| v.pop())
            })
            .ok_or_else(|| BenchError::Arg(format!("no suite has {}", spec.name)))?;
        let model = pattern_model(&inst, args.pglib_dir.as_deref())?;
        let (x, y) = model_point(&model);
        let matrix = super::gpu_cudss::condensed_matrix(&model, &x, &y, 1.0).map_err(|msg| {
            BenchError::Model {
                instance: inst.label(),
                msg,
            }
        })?;
        out.push((inst.label(), matrix));
    }
    Ok(out)
}

#[cfg(not(feature = "cuda"))]
fn run_cuda(_args: &GpuCheckArgs, _reg: &Registry) -> Result<GpuCheckReport, BenchError> {
    Err(BenchError::Device(
        simdnlp_device::DeviceError::Unavailable {
            device: "cuda",
            reason: "this binary was built without the CUDA device: build simdnlp-bench with \
                 `--features cuda`"
                .into(),
        },
    ))
}

/// Stages 2 and 3 on `device`; `compile_time` reads the last module's compile time when
/// the device records it.
fn check_device<D: KernelRuntime>(
    args: &GpuCheckArgs,
    reg: &Registry,
    device: &D,
    versions: Vec<(String, String)>,
    compile_time: impl Fn(&D) -> Option<f64>,
) -> Result<GpuCheckReport, BenchError> {
    let started = Instant::now();
    let (kernels, repeatable) = check_kernels(device, args.cases.max(1));
    let kernels_s = started.elapsed().as_secs_f64();
    let mut models = Vec::new();
    if !args.no_models {
        let suites = if args.suites.is_empty() {
            vec![Suite::Lv, Suite::Cops, Suite::Opf]
        } else {
            args.suites.clone()
        };
        let mut selected = Vec::new();
        if args.instances.is_empty() {
            for &suite in &suites {
                for inst in reg.select(suite, &args.size.classes(), &[], ModelSourceSel::Cpu)? {
                    selected.push((suite, inst));
                }
            }
        } else {
            for spec in &args.instances {
                let mut found = Err(BenchError::Arg(format!("no suite has {}", spec.name)));
                for &suite in &suites {
                    let one = std::slice::from_ref(spec);
                    match reg.select(suite, &args.size.classes(), one, ModelSourceSel::Cpu) {
                        Ok(insts) => {
                            found = Ok(insts.into_iter().map(|i| (suite, i)).collect::<Vec<_>>());
                            break;
                        }
                        Err(e) => found = Err(e),
                    }
                }
                selected.extend(found?);
            }
        }
        models.push(check_transcendentals(device, &compile_time));
        for (suite, inst) in &selected {
            let mut model = pattern_model(inst, args.pglib_dir.as_deref())?;
            model.set_evaluator(Evaluator::Interp);
            models.push(check_model(
                device,
                &suite.to_string(),
                &inst.label(),
                &model,
                &compile_time,
            ));
        }
    }
    let mut failures = Vec::new();
    for k in kernels.iter().filter(|k| k.failures > 0) {
        failures.push(format!(
            "kernel {}: {} of {} cases failed, first: {}",
            k.kernel,
            k.failures,
            k.cases,
            k.first_failure.as_deref().unwrap_or("?")
        ));
    }
    if !repeatable {
        failures.push("kernels: three runs did not give identical results".into());
    }
    for m in &models {
        for f in &m.failures {
            failures.push(format!("model {}: {f}", m.instance));
        }
    }
    Ok(GpuCheckReport {
        device: args.device,
        versions,
        kernels,
        repeatable,
        kernels_s,
        models,
        cudss: None,
        solves: Vec::new(),
        timings: Vec::new(),
        passed: failures.is_empty(),
        failures,
    })
}

/// Stages 5 and 6 (see [`super::gpu_solve`]), their failures added to `report`.
fn run_solve_stages(
    args: &GpuCheckArgs,
    reg: &Registry,
    report: &mut GpuCheckReport,
) -> Result<(), BenchError> {
    use super::gpu_solve::{
        DEFAULT_SOLVES, DEFAULT_SOLVES_EMU, DEFAULT_TIMINGS, run_stage5, run_stage6, specs_or,
    };
    let (device, solves, timings): (_, &[&str], &[&str]) = match args.device {
        CheckDevice::Cuda => (SolveDevice::Cuda, &DEFAULT_SOLVES, &DEFAULT_TIMINGS),
        CheckDevice::Emu => (SolveDevice::Emu, &DEFAULT_SOLVES_EMU, &[]),
    };
    let pglib = args.pglib_dir.as_deref();
    let limit = args.solve_max_wall_time;
    if !args.no_solves {
        let specs = specs_or(&args.solve_instances, solves)?;
        report.solves = run_stage5(device, args.solve_kkt, reg, &specs, pglib, limit)?;
    }
    if !args.no_timing {
        let specs = specs_or(&args.timing_instances, timings)?;
        report.timings = run_stage6(device, args.solve_kkt, reg, &specs, pglib, limit)?;
    }
    for c in &report.solves {
        for f in &c.failures {
            report.failures.push(format!("solve {}: {f}", c.instance));
        }
    }
    for t in &report.timings {
        for f in &t.failures {
            report.failures.push(format!("timing {}: {f}", t.instance));
        }
    }
    report.passed = report.failures.is_empty();
    Ok(())
}

fn print_summary(r: &GpuCheckReport, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "== stage 1: versions")?;
    for (k, v) in &r.versions {
        writeln!(out, "  {k:<24} {v}")?;
    }
    writeln!(
        out,
        "== stage 2: {} kernel methods vs Cpu ({:.2} s), three runs identical: {}",
        r.kernels.len(),
        r.kernels_s,
        r.repeatable
    )?;
    for k in &r.kernels {
        writeln!(
            out,
            "  {:<28} {:>6} cases {:>4} failed  worst sum rel {:.1e}{}",
            k.kernel,
            k.cases,
            k.failures,
            k.worst_rel,
            k.first_failure
                .as_ref()
                .map_or(String::new(), |f| format!("  first: {f}"))
        )?;
    }
    writeln!(
        out,
        "== stage 3: {} models vs CPU callbacks (tolerance {MODEL_TOLERANCE:e})",
        r.models.len()
    )?;
    writeln!(
        out,
        "  {:<32} {:>9} {:>9} {:>9}  max rel obj/grad/cons/jac/hess",
        "instance", "entries", "setup s", "compile s"
    )?;
    for m in &r.models {
        writeln!(
            out,
            "  {:<32} {:>9} {:>9.3} {:>9.3}  {:.1e} {:.1e} {:.1e} {:.1e} {:.1e}{}",
            format!("{}/{}", m.suite, m.instance),
            m.entries,
            m.setup_s,
            m.compile_s,
            m.max_rel[0],
            m.max_rel[1],
            m.max_rel[2],
            m.max_rel[3],
            m.max_rel[4],
            if m.failures.is_empty() {
                ""
            } else {
                "  FAILED"
            }
        )?;
    }
    if let Some(stage) = &r.cudss {
        print_cudss(stage, out)?;
    }
    super::gpu_solve::print_stages(&r.solves, &r.timings, out)?;
    if r.passed {
        writeln!(out, "gpu-check: PASSED")?;
    } else {
        writeln!(out, "gpu-check: FAILED ({} failures)", r.failures.len())?;
        for f in r.failures.iter().take(40) {
            writeln!(out, "  {f}")?;
        }
    }
    Ok(())
}

fn print_cudss(stage: &CudssStage, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "== stage 4: cuDSS {} ({})",
        stage.version, stage.library
    )?;
    if let Some(e) = &stage.error {
        writeln!(out, "  not run: {e}")?;
    }
    writeln!(
        out,
        "  {:<52} {:>7} {:>9} {:>20} {:>9} {:>9} {:>8} {:>8} {:>8}",
        "check",
        "n",
        "nnz",
        "status / inertia",
        "bwd err",
        "vs faer",
        "anal s",
        "fact s",
        "solve s"
    )?;
    for c in &stage.checks {
        let inertia = c
            .inertia
            .map_or(String::new(), |(p, n, z)| format!(" {p}/{n}/{z}"));
        writeln!(
            out,
            "  {:<52} {:>7} {:>9} {:>20} {:>9.1e} {:>9.1e} {:>8.4} {:>8.4} {:>8.4}{}",
            c.name,
            c.n,
            c.nnz,
            format!("{}{inertia}", c.status),
            c.backward_error,
            c.vs_faer,
            c.analyze_s,
            c.factor_s,
            c.solve_s,
            if c.failures.is_empty() {
                ""
            } else {
                "  FAILED"
            }
        )?;
    }
    Ok(())
}

// ---------------------------------------------------------------- stage 3

/// A point near the start and multipliers that vary per row.
fn model_point(m: &Model) -> (Vec<f64>, Vec<f64>) {
    let meta = m.meta();
    let x = meta
        .x0
        .iter()
        .enumerate()
        .map(|(i, v)| v + 0.01 * ((i % 7) as f64 - 3.0))
        .collect();
    let y = (0..meta.ncon).map(|i| 0.3 + (i % 5) as f64 * 0.2).collect();
    (x, y)
}

/// The CPU callbacks' outputs: `[obj], grad, cons, jac, hess` (objective weight 0.8).
fn cpu_outputs(m: &Model, x: &[f64], y: &[f64]) -> [Vec<f64>; 5] {
    let meta = m.meta();
    let mut g = vec![0.0; meta.nvar];
    let mut c = vec![0.0; meta.ncon];
    let mut j = vec![0.0; meta.nnzj];
    let mut h = vec![0.0; meta.nnzh];
    m.grad(x, &mut g);
    m.cons(x, &mut c);
    m.jac_coord(x, &mut j);
    m.hess_coord(x, y, 0.8, &mut h);
    [vec![m.obj(x)], g, c, j, h]
}

/// The device model's outputs, as [`cpu_outputs`].
fn device_outputs<D: KernelRuntime>(
    d: &D,
    dm: &mut DeviceModel<'_, D>,
    m: &Model,
    x: &[f64],
    y: &[f64],
) -> Result<[Vec<f64>; 5], String> {
    let meta = m.meta();
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let xd = d.vector_from_host(x).map_err(|e| err(&e))?;
    let yd = d.vector_from_host(y).map_err(|e| err(&e))?;
    let obj = dm.obj(&xd).map_err(|e| err(&e))?;
    let mut g = d.zeros(meta.nvar).map_err(|e| err(&e))?;
    let mut c = d.zeros(meta.ncon).map_err(|e| err(&e))?;
    let mut j = d.zeros(meta.nnzj).map_err(|e| err(&e))?;
    let mut h = d.zeros(meta.nnzh).map_err(|e| err(&e))?;
    dm.grad(&xd, &mut g).map_err(|e| err(&e))?;
    dm.cons(&xd, &mut c).map_err(|e| err(&e))?;
    dm.jac_coord(&xd, &mut j).map_err(|e| err(&e))?;
    dm.hess_coord(&xd, &yd, 0.8, &mut h).map_err(|e| err(&e))?;
    let host = |v: &D::Vector| -> Result<Vec<f64>, String> {
        let mut out = vec![0.0; d.len(v)];
        d.to_host(v, &mut out).map_err(|e| err(&e))?;
        Ok(out)
    };
    Ok([vec![obj], host(&g)?, host(&c)?, host(&j)?, host(&h)?])
}

const CALLBACKS: [&str; 5] = ["obj", "grad", "cons", "jac", "hess"];

/// One side's callback outputs, in [`CALLBACKS`]' order (`[obj]`, `grad`, `cons`, `jac`,
/// `hess`).
type Outputs = [Vec<f64>; 5];

/// The CPU's and the device model's outputs at `(x, y)` ([`cpu_outputs`],
/// [`device_outputs`]), with the device model's set-up and compile time recorded in
/// `check`; `None` (the failure pushed to `check`) when the device model cannot be built or
/// a callback fails.
fn both_outputs<D: KernelRuntime>(
    device: &D,
    model: &Model,
    x: &[f64],
    y: &[f64],
    compile_time: &impl Fn(&D) -> Option<f64>,
    check: &mut ModelCheck,
) -> Option<(Outputs, Outputs)> {
    let started = Instant::now();
    let mut dm = match DeviceModel::new(model, device) {
        Ok(dm) => dm,
        Err(e) => {
            check.failures.push(format!("device model: {e}"));
            return None;
        }
    };
    check.setup_s = started.elapsed().as_secs_f64();
    check.compile_s = compile_time(device).unwrap_or(check.setup_s);
    let cpu = cpu_outputs(model, x, y);
    match device_outputs(device, &mut dm, model, x, y) {
        Ok(dev) => Some((cpu, dev)),
        Err(e) => {
            check.failures.push(format!("callbacks: {e}"));
            None
        }
    }
}

fn check_model<D: KernelRuntime>(
    device: &D,
    suite: &str,
    label: &str,
    model: &Model,
    compile_time: &impl Fn(&D) -> Option<f64>,
) -> ModelCheck {
    let meta = model.meta();
    let mut check = ModelCheck {
        suite: suite.to_string(),
        instance: label.to_string(),
        nvar: meta.nvar,
        ncon: meta.ncon,
        nnzj: meta.nnzj,
        nnzh: meta.nnzh,
        setup_s: 0.0,
        compile_s: 0.0,
        max_rel: [0.0; 5],
        entries: 0,
        failures: Vec::new(),
    };
    let (x, y) = model_point(model);
    let Some((cpu, dev)) = both_outputs(device, model, &x, &y, compile_time, &mut check) else {
        return check;
    };
    for (k, (c, d)) in cpu.iter().zip(&dev).enumerate() {
        check.entries += c.len();
        let mut first = None;
        for (i, (&a, &b)) in c.iter().zip(d).enumerate() {
            let rel = if a.is_nan() || b.is_nan() {
                if a.is_nan() && b.is_nan() {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else if a == b {
                0.0
            } else {
                (a - b).abs() / a.abs().max(1.0)
            };
            if rel.is_nan() || rel > check.max_rel[k] {
                check.max_rel[k] = rel;
            }
            let tolerance = if k == 0 {
                objective_tolerance(model.meta().nvar)
            } else {
                MODEL_TOLERANCE
            };
            if (rel.is_nan() || rel > tolerance) && first.is_none() {
                first = Some(format!("{}[{i}]: cpu {a:e}, device {b:e}", CALLBACKS[k]));
            }
        }
        check.failures.extend(first);
    }
    check
}

/// The arguments of [`check_transcendentals`]: a sweep of `[-30, 30]`, the fast paths'
/// limits and arguments just past them, and the three doubles nearest to `k π/2` for the
/// `k` where the `sin`/`cos` reduction cancels most (short reduction up to `|k| = 1024`, the
/// full one beyond), each with its negative.
fn transcendental_arguments() -> Vec<f64> {
    let mut x: Vec<f64> = (0..600).map(|k| -30.0 + 0.1 * k as f64 + 0.0137).collect();
    x.extend([
        0.0, -0.0, 1e-300, 5e-324, 1e-9, -1e-9, 0.785, -0.785, 0.786, 700.0, 708.9, 709.0, 709.5,
        -708.0, -708.5, -745.0, 1000.0, 1607.9, 1608.1, 1e5, -3e5, 823_549.0, 823_550.0, 1e22,
        1e300,
    ]);
    for k in (1..=40).chain([261, 513, 1023, 1024, 1025, 65_537, 524_287]) {
        let near = k as f64 * std::f64::consts::FRAC_PI_2;
        for step in [-1i64, 0, 1] {
            let v = f64::from_bits(near.to_bits().wrapping_add_signed(step));
            x.extend([v, -v]);
        }
    }
    x
}

/// Stage 3's check of the device's own `exp`, `sin` and `cos` (the CUDA C `sn_exp`,
/// `sn_sin`, `sn_cos`: C's `fma`, `sn_exp`'s table, the three-part `π/2` reduction)
/// against the CPU's (`simdnlp_ad`'s `vmath`, the interpreter's): a model with the rows
/// `exp x_i`, `sin x_i` and `cos x_i` over [`transcendental_arguments`], `cons` and
/// `jac_coord` at the start compared **bitwise** where the argument is on the function's fast
/// path (the same IEEE operations on both sides; in `cons` zeros of either sign are equal,
/// the device's row sum starting from `+0`) and within [`MODEL_TOLERANCE`] elsewhere (both
/// sides' libm). Reported as the model `lane/exp-sin-cos`; its `max_rel` holds `cons`
/// and `jac` (the other callbacks are not compared).
fn check_transcendentals<D: KernelRuntime>(
    device: &D,
    compile_time: &impl Fn(&D) -> Option<f64>,
) -> ModelCheck {
    use simdnlp_modeling::ModelBuilder;
    let args = transcendental_arguments();
    let n = args.len();
    let mut check = ModelCheck {
        suite: "lane".to_string(),
        instance: "exp-sin-cos".to_string(),
        nvar: n,
        ncon: 3 * n,
        nnzj: 0,
        nnzh: 0,
        setup_s: 0.0,
        compile_s: 0.0,
        max_rel: [0.0; 5],
        entries: 0,
        failures: Vec::new(),
    };
    let mut builder = ModelBuilder::new();
    let x = builder.var(0..n).start(args.clone()).named("x");
    builder.minimize(0..1, |i| x.at(i));
    builder.constraint(0..n, |i| x.at(i).exp());
    builder.constraint(0..n, |i| x.at(i).sin());
    builder.constraint(0..n, |i| x.at(i).cos());
    let mut model = match builder.build() {
        Ok(m) => m,
        Err(e) => {
            check.failures.push(format!("model: {e}"));
            return check;
        }
    };
    model.set_evaluator(Evaluator::Interp);
    let meta = model.meta();
    check.nnzj = meta.nnzj;
    check.nnzh = meta.nnzh;
    if meta.ncon != 3 * n || meta.nnzj != 3 * n {
        check.failures.push(format!(
            "model shape: {} rows and {} Jacobian entries, expected {} of each",
            meta.ncon,
            meta.nnzj,
            3 * n
        ));
        return check;
    }
    let y = vec![1.0; 3 * n];
    let Some((cpu, dev)) = both_outputs(device, &model, &args, &y, compile_time, &mut check) else {
        return check;
    };
    let names = ["exp", "sin", "cos"];
    // the Jacobian's entries in row order (one per row), as the CPU's coordinates say
    let mut rows = vec![0; meta.nnzj];
    let mut cols = vec![0; meta.nnzj];
    model.jac_structure(&mut rows, &mut cols);
    for k in [2, 3] {
        let (c, d) = (&cpu[k], &dev[k]);
        check.entries += c.len();
        let mut first = None;
        for (e, (&a, &b)) in c.iter().zip(d).enumerate() {
            let row = if k == 2 { e } else { rows[e] };
            debug_assert!(k == 2 || cols[e] == row % n);
            let (function, arg) = (row / n, args[row % n]);
            let fast = if function == 0 {
                simdnlp_ad::cuda::exp_on_own_path(arg)
            } else {
                simdnlp_ad::cuda::trig_on_own_path(arg)
            };
            // `cons` sums each row's terms from `+0` (`seg_sum`), so a row of one `−0` term
            // reads `+0` there: zeros of either sign are equal in `cons`; the Jacobian's
            // entries are the kernels' outputs as written, every bit compared
            let same = a.to_bits() == b.to_bits()
                || (a.is_nan() && b.is_nan())
                || (k == 2 && a == 0.0 && b == 0.0);
            let rel = if same {
                0.0
            } else if a.is_nan() || b.is_nan() {
                f64::INFINITY
            } else {
                (a - b).abs() / a.abs().max(1.0)
            };
            check.max_rel[k] = check.max_rel[k].max(rel);
            let failed = if fast { !same } else { rel > MODEL_TOLERANCE };
            if failed && first.is_none() {
                first = Some(format!(
                    "{}[{e}] ({} {arg:e}{}): cpu {a:e} ({:#018x}), device {b:e} ({:#018x})",
                    CALLBACKS[k],
                    names[function],
                    if fast { ", bitwise" } else { "" },
                    a.to_bits(),
                    b.to_bits()
                ));
            }
        }
        check.failures.extend(first);
    }
    check
}

// ---------------------------------------------------------------- stage 2

/// Vector lengths of stage 2 (around the one-slot limit of 32, a block of 256, and past
/// the 4096-slot cap).
const LENGTHS: [usize; 11] = [0, 1, 2, 31, 32, 33, 255, 257, 1000, 5000, 140_000];

/// The kernels whose `Cpu` twin uses `f64::min`/`f64::max` on values that can be `±0`.
const MIN_MAX: [&str; 7] = [
    "safeguard_bound_mult",
    "safeguard_bound_mult change",
    "safe_slack",
    "clamp_below",
    "push_into_bounds",
    "min_product",
    "max_step",
];

/// SplitMix64: seeded, so each case is reproducible from its description.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn value(&mut self, special: f64) -> f64 {
        if self.unit() < special {
            [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                1e-300,
                -1e150,
                1e150,
            ][self.below(8)]
        } else {
            20.0 * self.unit() - 10.0
        }
    }
    fn positive(&mut self, special: f64) -> f64 {
        let v = self.value(special);
        if v.is_nan() { v } else { v.abs() + 1e-3 }
    }
    fn vector(&mut self, n: usize, special: f64) -> Vec<f64> {
        (0..n).map(|_| self.value(special)).collect()
    }
    fn positives(&mut self, n: usize, special: f64) -> Vec<f64> {
        (0..n).map(|_| self.positive(special)).collect()
    }
    fn indices(&mut self, n: usize, limit: usize) -> Vec<usize> {
        (0..n).map(|_| self.below(limit)).collect()
    }
    fn distinct(&mut self, n: usize, limit: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..limit).collect();
        for i in 0..n {
            let j = i + self.below(limit - i);
            all.swap(i, j);
        }
        all.truncate(n);
        all
    }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Results per kernel method, and a running digest of every device result bit.
struct Recorder {
    checks: Vec<KernelCheck>,
    digest: u64,
}

impl Recorder {
    fn entry(&mut self, kernel: &str) -> &mut KernelCheck {
        if let Some(i) = self.checks.iter().position(|k| k.kernel == kernel) {
            &mut self.checks[i]
        } else {
            self.checks.push(KernelCheck {
                kernel: kernel.to_string(),
                ..KernelCheck::default()
            });
            let last = self.checks.len() - 1;
            &mut self.checks[last]
        }
    }

    fn absorb(&mut self, v: f64) {
        self.digest = (self.digest ^ v.to_bits()).wrapping_mul(0x0000_0100_0000_01b3);
    }

    fn outcome(&mut self, kernel: &str, case: &str, failure: Option<String>, rel: f64) {
        let k = self.entry(kernel);
        k.cases += 1;
        if rel > k.worst_rel {
            k.worst_rel = rel;
        }
        if let Some(f) = failure {
            k.failures += 1;
            if k.first_failure.is_none() {
                k.first_failure = Some(format!("{f} ({case})"));
            }
        }
    }

    fn scalar(&mut self, kernel: &str, case: &str, cpu: f64, dev: f64) {
        self.absorb(dev);
        let equal = same(cpu, dev) || (MIN_MAX.contains(&kernel) && cpu == 0.0 && dev == 0.0);
        let failure = (!equal).then(|| format!("cpu {cpu:e} != device {dev:e}"));
        self.outcome(kernel, case, failure, 0.0);
    }

    fn vector(&mut self, kernel: &str, case: &str, cpu: &[f64], dev: &[f64]) {
        dev.iter().for_each(|&v| self.absorb(v));
        let min_max = MIN_MAX.contains(&kernel);
        let failure = if cpu.len() != dev.len() {
            Some(format!("lengths {} vs {}", cpu.len(), dev.len()))
        } else {
            cpu.iter()
                .zip(dev)
                .enumerate()
                .find(|(_, (c, d))| !(same(**c, **d) || (min_max && **c == 0.0 && **d == 0.0)))
                .map(|(i, (c, d))| format!("entry {i}: cpu {c:e} != device {d:e}"))
        };
        self.outcome(kernel, case, failure, 0.0);
    }

    /// A plain sum: bitwise up to 32 terms, else within `(n − 1) ε Σ|terms|`.
    fn sum(&mut self, kernel: &str, case: &str, cpu: f64, dev: f64, terms: &[f64]) {
        self.absorb(dev);
        if terms.len() <= 32 || same(cpu, dev) {
            let failure = (!same(cpu, dev)).then(|| format!("cpu {cpu:e} != device {dev:e}"));
            return self.outcome(kernel, case, failure, 0.0);
        }
        let scale: f64 = terms.iter().map(|t| t.abs()).sum();
        let diff = (cpu - dev).abs();
        let bound = (terms.len() - 1) as f64 * f64::EPSILON * scale;
        let failure = (diff.is_nan() || diff > bound)
            .then(|| format!("cpu {cpu:e} vs device {dev:e}, above {bound:e}"));
        let rel = if scale > 0.0 { diff / scale } else { 0.0 };
        self.outcome(
            kernel,
            case,
            failure,
            if rel.is_finite() { rel } else { 0.0 },
        );
    }
}

/// Stage 2: every kernel method on every length with `cases` seeds, three times; the
/// per-method results of the first run and whether the three runs were identical.
fn check_kernels<D: Device>(device: &D, cases: u64) -> (Vec<KernelCheck>, bool) {
    let mut runs = Vec::new();
    let mut first = Vec::new();
    for run in 0..3 {
        let mut rec = Recorder {
            checks: Vec::new(),
            digest: 0xcbf2_9ce4_8422_2325,
        };
        for n in LENGTHS {
            // the longest length once per run (it is there for the slot cap)
            let seeds = if n > 10_000 { 1 } else { cases };
            for seed in 0..seeds {
                if let Err(e) = compare_all(device, &mut rec, n, seed) {
                    rec.outcome(
                        "transfers",
                        &format!("n = {n}, seed = {seed}"),
                        Some(e),
                        0.0,
                    );
                }
            }
        }
        if let Err(e) = device.synchronize() {
            rec.outcome("synchronize", "end of run", Some(e.to_string()), 0.0);
        }
        runs.push(rec.digest);
        if run == 0 {
            first = rec.checks;
        }
    }
    let repeatable = runs.windows(2).all(|w| w[0] == w[1]);
    (first, repeatable)
}

/// Every kernel method of [`Device`] on `Cpu` and `device`, one random case.
fn compare_all<D: Device>(dev: &D, rec: &mut Recorder, n: usize, seed: u64) -> Result<(), String> {
    let cpu = Cpu;
    let e = |e: simdnlp_device::DeviceError| e.to_string();
    let up = |v: &[f64]| dev.vector_from_host(v).map_err(e);
    let upi = |v: &[usize]| dev.index_from_host(v).map_err(e);
    let down = |v: &D::Vector| -> Result<Vec<f64>, String> {
        let mut out = vec![0.0; dev.len(v)];
        dev.to_host(v, &mut out).map_err(e)?;
        Ok(out)
    };
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ n as u64);
    let special = [0.0, 0.002, 0.05, 0.3][(seed % 4) as usize];
    let case = format!("n = {n}, seed = {seed}, special = {special}");
    let case = case.as_str();
    let a = rng.value(special / 4.0);
    let b = if seed % 5 == 0 {
        0.0
    } else {
        rng.value(special / 4.0)
    };
    let x = rng.vector(n, special);
    let y = rng.vector(n, special);
    let sp = rng.positives(n, special);
    let zp = rng.positives(n, special);
    let (xd, yd, spd, zpd) = (up(&x)?, up(&y)?, up(&sp)?, up(&zp)?);

    // element-wise
    let mut c = y.clone();
    let mut d = up(&y)?;
    cpu.fill(&mut c, a);
    dev.fill(&mut d, a);
    rec.vector("fill", case, &c, &down(&d)?);
    cpu.copy(&mut c, &x);
    dev.copy(&mut d, &xd);
    rec.vector("copy", case, &c, &down(&d)?);
    if n > 0 {
        let (ds, ss) = (rng.below(n), rng.below(n));
        let len = rng.below(n - ds.max(ss) + 1);
        let (mut c, mut d) = (y.clone(), up(&y)?);
        cpu.copy_range(&mut c, ds, &x, ss, len);
        dev.copy_range(&mut d, ds, &xd, ss, len);
        rec.vector("copy_range", case, &c, &down(&d)?);
    }
    let (mut c, mut d) = (y.clone(), up(&y)?);
    cpu.axpy(a, &x, &mut c);
    dev.axpy(a, &xd, &mut d);
    rec.vector("axpy", case, &c, &down(&d)?);
    let (mut c, mut d) = (y.clone(), up(&y)?);
    cpu.axpby(a, &x, b, &mut c);
    dev.axpby(a, &xd, b, &mut d);
    rec.vector("axpby", case, &c, &down(&d)?);
    let (mut c, mut d) = (y.clone(), up(&y)?);
    cpu.scale(a, &mut c);
    dev.scale(a, &mut d);
    rec.vector("scale", case, &c, &down(&d)?);
    let (mut c, mut d) = (y.clone(), up(&y)?);
    cpu.shift(&mut c, a);
    dev.shift(&mut d, a);
    rec.vector("shift", case, &c, &down(&d)?);
    let (mut c, mut d) = (vec![0.0; n], dev.zeros(n).map_err(e)?);
    cpu.mul(&mut c, &x, &y);
    dev.mul(&mut d, &xd, &yd);
    rec.vector("mul", case, &c, &down(&d)?);
    cpu.div(&mut c, &x, &y);
    dev.div(&mut d, &xd, &yd);
    rec.vector("div", case, &c, &down(&d)?);
    cpu.recip(&mut c, a, &x);
    dev.recip(&mut d, a, &xd);
    rec.vector("recip", case, &c, &down(&d)?);

    // indexed
    let m = n + rng.below(4);
    let src = rng.vector(m, special);
    let off = rng.vector(n, special);
    let gather_idx = rng.indices(n, m.max(1));
    let scatter_idx = rng.distinct(n, m);
    let (srcd, offd) = (up(&src)?, up(&off)?);
    let (gc, gd) = (gather_idx.clone(), upi(&gather_idx)?);
    let (sc, sd) = (scatter_idx.clone(), upi(&scatter_idx)?);
    let (mut c, mut d) = (vec![0.0; n], dev.zeros(n).map_err(e)?);
    cpu.gather(&mut c, &src, &gc);
    dev.gather(&mut d, &srcd, &gd);
    rec.vector("gather", case, &c, &down(&d)?);
    let sign = if seed % 2 == 0 { 1.0 } else { -1.0 };
    cpu.gather_slack(&mut c, &src, &gc, &off, sign);
    dev.gather_slack(&mut d, &srcd, &gd, &offd, sign);
    rec.vector("gather_slack", case, &c, &down(&d)?);
    let (mut c, mut d) = (src.clone(), up(&src)?);
    cpu.scatter(&mut c, &sc, &x);
    dev.scatter(&mut d, &sd, &xd);
    rec.vector("scatter", case, &c, &down(&d)?);
    cpu.scatter_add(a, &y, &sc, &mut c);
    dev.scatter_add(a, &yd, &sd, &mut d);
    rec.vector("scatter_add", case, &c, &down(&d)?);

    // reductions
    let terms: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p * q).collect();
    rec.sum("dot", case, cpu.dot(&x, &y), dev.dot(&xd, &yd), &terms);
    rec.sum("sum", case, cpu.sum(&x), dev.sum(&xd), &x);
    let terms: Vec<f64> = x.iter().map(|v| v.abs()).collect();
    rec.sum("norm_1", case, cpu.norm_1(&x), dev.norm_1(&xd), &terms);
    let ln = |v: &f64| if *v > 0.0 { v.ln() } else { f64::NAN };
    let terms: Vec<f64> = sp.iter().map(ln).collect();
    rec.sum("sum_ln", case, cpu.sum_ln(&sp), dev.sum_ln(&spd), &terms);
    let terms: Vec<f64> = x.iter().map(ln).collect();
    rec.sum("sum_ln", case, cpu.sum_ln(&x), dev.sum_ln(&xd), &terms);
    rec.scalar("norm_inf", case, cpu.norm_inf(&x), dev.norm_inf(&xd));
    rec.scalar(
        "max_step",
        case,
        cpu.max_step(&sp, &y, 0.99),
        dev.max_step(&spd, &yd, 0.99),
    );
    let mu = rng.positive(special / 4.0);
    rec.scalar(
        "compl_inf",
        case,
        cpu.compl_inf(&sp, &zp, mu),
        dev.compl_inf(&spd, &zpd, mu),
    );
    rec.scalar(
        "min_product",
        case,
        cpu.min_product(&x, &y),
        dev.min_product(&xd, &yd),
    );
    rec.scalar(
        "max_rel_step",
        case,
        cpu.max_rel_step(&x, &y),
        dev.max_rel_step(&xd, &yd),
    );

    // interior-point kernels
    let (mut c, mut d) = (vec![0.0; n], dev.zeros(n).map_err(e)?);
    cpu.bound_dual_step(&mut c, &zp, &sp, &x, mu);
    dev.bound_dual_step(&mut d, &zpd, &spd, &xd, mu);
    rec.vector("bound_dual_step", case, &c, &down(&d)?);
    let (mut c, mut d) = (x.clone(), up(&x)?);
    let change_c = cpu.safeguard_bound_mult(&mut c, &sp, mu, 1e10);
    let change_d = dev.safeguard_bound_mult(&mut d, &spd, mu, 1e10);
    rec.vector("safeguard_bound_mult", case, &c, &down(&d)?);
    rec.scalar("safeguard_bound_mult change", case, change_c, change_d);
    let (mut c, mut d) = (x.clone(), up(&x)?);
    let count_c = cpu.safe_slack(&mut c, &y, 1.0, mu);
    let count_d = dev.safe_slack(&mut d, &yd, 1.0, mu);
    rec.vector("safe_slack", case, &c, &down(&d)?);
    rec.scalar("safe_slack count", case, count_c as f64, count_d as f64);
    let (mut c, mut d) = (y.clone(), up(&y)?);
    cpu.clamp_below(&mut c, a);
    dev.clamp_below(&mut d, a);
    rec.vector("clamp_below", case, &c, &down(&d)?);
    let lo: Vec<f64> = (0..n)
        .map(|_| match rng.below(4) {
            0 => f64::NEG_INFINITY,
            _ => rng.value(special),
        })
        .collect();
    let hi: Vec<f64> = lo
        .iter()
        .map(|&l| match rng.below(5) {
            0 => f64::INFINITY,
            1 => l + 1e-12,
            2 => l,
            _ => l + 10.0 * rng.unit(),
        })
        .collect();
    let push: Vec<f64> = (0..n).map(|_| 1e-2 * rng.unit()).collect();
    let frac: Vec<f64> = (0..n).map(|_| 1e-2 * rng.unit()).collect();
    let (mut c, mut d) = (x.clone(), up(&x)?);
    cpu.push_into_bounds(&mut c, &lo, &hi, &push, &frac);
    dev.push_into_bounds(&mut d, &up(&lo)?, &up(&hi)?, &up(&push)?, &up(&frac)?);
    rec.vector("push_into_bounds", case, &c, &down(&d)?);

    // segmented kernels
    let targets = n;
    let items = if targets == 0 {
        0
    } else {
        rng.below(3 * n + 1)
    };
    let nvals = n + 1 + rng.below(3);
    let vals = rng.vector(nvals, special);
    let target = rng.indices(items, targets.max(1));
    let entry = rng.indices(items, nvals);
    let partner_x = rng.indices(items, m.max(1));
    let plan = SegmentPlan::new(targets, &target, &entry, &partner_x).map_err(e)?;
    let segc = cpu.segments(&plan).map_err(e)?;
    let segd = dev.segments(&plan).map_err(e)?;
    let valsd = up(&vals)?;
    let xs = if m == 0 { vec![0.0] } else { src.clone() };
    let xsd = up(&xs)?;
    let start = if b == 0.0 {
        vec![f64::NAN; n]
    } else {
        y.clone()
    };
    let (mut c, mut d) = (start.clone(), up(&start)?);
    cpu.seg_sum(a, &vals, &segc, b, &mut c);
    dev.seg_sum(a, &valsd, &segd, b, &mut d);
    rec.vector("seg_sum", case, &c, &down(&d)?);
    let (mut c, mut d) = (start.clone(), up(&start)?);
    cpu.seg_spmv(a, &vals, &segc, &xs, b, &mut c);
    dev.seg_spmv(a, &valsd, &segd, &xsd, b, &mut d);
    rec.vector("seg_spmv", case, &c, &down(&d)?);
    let nrows = 1 + rng.below(n + 1);
    let rows = rng.indices(nvals, nrows);
    let dd = rng.vector(nrows, special);
    let partner_v = rng.indices(items, nvals);
    let pair_plan = SegmentPlan::new(targets, &target, &entry, &partner_v).map_err(e)?;
    let pc = cpu.segments(&pair_plan).map_err(e)?;
    let pd = dev.segments(&pair_plan).map_err(e)?;
    let (mut c, mut d) = (y.clone(), up(&y)?);
    cpu.seg_pair_sum(&dd, &rows, &vals, &pc, &mut c);
    dev.seg_pair_sum(&up(&dd)?, &upi(&rows)?, &valsd, &pd, &mut d);
    rec.vector("seg_pair_sum", case, &c, &down(&d)?);
    dev.synchronize().map_err(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_device_passes_stage_two_against_itself() {
        let (checks, repeatable) = check_kernels(&Cpu, 1);
        assert!(repeatable);
        assert!(checks.len() >= 30, "{} kernel methods", checks.len());
        for k in &checks {
            assert_eq!(k.failures, 0, "{k:?}");
        }
    }
}
