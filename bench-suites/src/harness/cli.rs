//! Command line of `simdnlp-bench` (clap) and the two modes.
//!
//! ```text
//! simdnlp-bench solve     --suite {lv,cops,opf} [--size small|medium|large|all]
//!                         [--instance NAME[:SIZE]]... [--tol T] [--kkt augmented|condensed|hybrid]
//!                         [--device cpu|emu|cuda]
//!                         [--backend auto|cpu|handcoded] [--json FILE] [--plot FILE]
//!                         [--options-file FILE] [--option NAME=VALUE]...
//! simdnlp-bench callbacks --suite ... [--size ...] [--instance ...] [--threads K]
//!                         [--backend auto|cpu|handcoded] [--seconds S] [--no-baseline]
//!                         [--evaluator jit|interp] [--no-fuse] [--device cpu|emu|cuda]
//!                         [--json FILE] [--plot FILE]
//! simdnlp-bench kernels   --suite ... [--size ...] [--instance ...] [--nvrtc]
//!                         [--arch compute_90] [--json FILE]
//! ```

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use super::interrupt::Interrupt;
use super::registry::{
    DynModel, Instance, InstanceSpec, ModelSource, ModelSourceSel, Registry, SizeClass, SizeSel,
    Suite,
};
use super::report::{
    CallbackRecord, SolveRecord, baseline_ratios, callbacks_table, ratio_table, rel_err,
    solve_table, summarize, summary_table,
};
use super::solve::{DeviceChoice, KktChoice, LinearSolverChoice, SolveBackend, SolveSettings};
use super::timing::{TimingConfig, time_callbacks, time_device_callbacks};
use super::{BenchError, plot};
use simdnlp_modeling::{Evaluator, Parallelism};

/// `simdnlp-bench`: benchmark the modeling layer's callbacks and the solver.
#[derive(Debug, Parser)]
#[command(name = "simdnlp-bench", version, about)]
pub struct Cli {
    /// Mode.
    #[command(subcommand)]
    pub command: Command,
}

/// The modes.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve each instance; report status, iterations, objective vs reference, times.
    Solve(SolveArgs),
    /// Time obj/cons/grad/jac_coord/hess_coord per instance (the paper's protocol).
    Callbacks(CallbacksArgs),
    /// Compile the GPU path's CUDA C kernel modules (IPM kernels and each instance's
    /// pattern kernels) with NVRTC (`--nvrtc`) or g++; fail if any does not compile.
    Kernels(super::kernels::KernelsArgs),
}

/// Instance selection and outputs shared by both modes.
#[derive(Debug, Clone, Args)]
pub struct Selection {
    /// Suite.
    #[arg(long, value_enum)]
    pub suite: Suite,
    /// Preset size class(es) to run.
    #[arg(long, value_enum, default_value = "small")]
    pub size: SizeSel,
    /// Run only these instances: NAME, NAME:N, NAME:NXxNY or NAME:small|medium|large
    /// (repeatable).
    #[arg(long = "instance", value_name = "NAME[:SIZE]")]
    pub instances: Vec<InstanceSpec>,
    /// Implementation: the modeling layer (cpu), hand-coded models, or cpu where
    /// available and hand-coded otherwise (auto).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: ModelSourceSel,
    /// Directory of PGLIB-OPF cases searched first (default: $SIMDNLP_PGLIB_DIR); then
    /// the cases bundled in bench-suites/data/pglib-opf, then ../shared/data/pglib-opf
    /// next to the workspace when it exists.
    #[arg(long, value_name = "DIR")]
    pub pglib_dir: Option<PathBuf>,
    /// Write one JSON object per instance (JSON Lines) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Plot per-instance times to FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// Arguments of `solve`.
#[derive(Debug, Clone, Args)]
pub struct SolveArgs {
    /// Instances and outputs.
    #[command(flatten)]
    pub sel: Selection,
    /// Convergence tolerance.
    #[arg(long, default_value_t = 1e-8)]
    pub tol: f64,
    /// KKT formulation (default: augmented; condensed on `--device cuda`, which solves the
    /// condensed system only and refuses `--kkt augmented`).
    #[arg(long, value_enum)]
    pub kkt: Option<KktChoice>,
    /// Device of the solver's vector algebra: the CPU, the emulated CUDA device (the
    /// GPU path's CUDA C kernels compiled by g++ and run on the host; the compile happens
    /// once, in the first solve), or an NVIDIA GPU with cuDSS (`cuda`: a build with
    /// feature `cuda`; libcuda, NVRTC and libcudss are loaded at the first solve).
    #[arg(long, value_enum, default_value = "cpu")]
    pub device: DeviceChoice,
    /// Factorization of the augmented KKT system.
    #[arg(long, value_enum, default_value = "ldlt")]
    pub linear_solver: LinearSolverChoice,
    /// Iteration limit per solve (default: the solver's, 3000).
    #[arg(long)]
    pub max_iter: Option<usize>,
    /// Wall-time limit per solve, seconds (default: none); a solve that hits it reports
    /// `MaximumCpuTimeExceeded`.
    #[arg(long)]
    pub max_wall_time: Option<f64>,
    /// Print the solver's log to stderr: `-v` one line per iteration, `-vv` also the
    /// inertia corrections and regularizations (`RUST_LOG=trace` adds every factorization).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Read solver options from FILE: Ipopt's format (`name value` per line, `#` comments)
    /// or TOML (`name = value`) when FILE ends in `.toml`. Applied after the flags above.
    #[arg(long, value_name = "FILE")]
    pub options_file: Option<PathBuf>,
    /// Set a solver option by its Ipopt name, e.g. `--option max_iter=3` (repeatable;
    /// applied in order after --options-file). An unknown name or a bad value stops the
    /// run before any solve.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = parse_option)]
    pub options: Vec<(String, String)>,
}

/// `NAME=VALUE` → `(NAME, VALUE)` for `--option`.
fn parse_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(format!("expected NAME=VALUE, got {text:?}")),
    }
}

/// Arguments of `callbacks`.
#[derive(Debug, Clone, Args)]
pub struct CallbacksArgs {
    /// Instances and outputs.
    #[command(flatten)]
    pub sel: Selection,
    /// Worker threads for model evaluation: the modeling layer's models split each
    /// pattern's data points across a rayon pool of this size (1: sequential; the
    /// hand-coded models are always sequential).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// With `--threads` above 1: about the fewest data points of one task (a pattern
    /// with at most this many points runs on one thread).
    #[arg(long, default_value_t = DEFAULT_MIN_BATCH)]
    pub min_batch: usize,
    /// Minimum duration of one timed batch, seconds.
    #[arg(long, default_value_t = 0.5)]
    pub seconds: f64,
    /// Do not also time the hand-coded baseline of modeling-layer instances that have
    /// one (by default both are timed and their ratios printed).
    #[arg(long)]
    pub no_baseline: bool,
    /// CPU evaluator of the modeling layer's patterns: native code compiled with Cranelift
    /// at model build (jit) or the batch interpreter (interp).
    #[arg(long, default_value = "jit")]
    pub evaluator: Evaluator,
    /// Evaluate every constraint pattern by its own native loop, also those over the
    /// same data that are fused into one loop per callback by default (to measure what
    /// the fusion gains; see `Model::set_fusion`).
    #[arg(long)]
    pub no_fuse: bool,
    /// Where the modeling layer's callbacks run: the CPU, the emulated CUDA device (g++)
    /// or the CUDA device (a GPU; needs the build feature `cuda`). On emu and cuda the
    /// pattern kernels are timed by the GPU protocol (N back-to-back calls, one
    /// synchronize, best of 3); hand-coded instances and baselines are skipped there.
    #[arg(long, value_enum, default_value = "cpu")]
    pub device: CallbackDevice,
}

/// Device of `callbacks --device`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CallbackDevice {
    /// The CPU callbacks of each model (`--evaluator`).
    Cpu,
    /// The emulated CUDA device (the pattern kernels compiled by g++, run on the host).
    Emu,
    /// The CUDA device (the pattern kernels compiled by NVRTC, run on GPU 0).
    Cuda,
}

impl CallbackDevice {
    fn as_str(self) -> &'static str {
        match self {
            CallbackDevice::Cpu => "cpu",
            CallbackDevice::Emu => "emu",
            CallbackDevice::Cuda => "cuda",
        }
    }
}

/// A kernel device opened for `callbacks --device`.
enum KernelDevice {
    Emu(Box<simdnlp_device::Emu>),
    #[cfg(feature = "cuda")]
    Cuda(Box<simdnlp_device::Cuda>),
}

impl KernelDevice {
    fn open(choice: CallbackDevice) -> Result<Option<Self>, BenchError> {
        match choice {
            CallbackDevice::Cpu => Ok(None),
            CallbackDevice::Emu => Ok(Some(KernelDevice::Emu(Box::new(
                simdnlp_device::Emu::new()?
            )))),
            #[cfg(feature = "cuda")]
            CallbackDevice::Cuda => Ok(Some(KernelDevice::Cuda(Box::new(
                simdnlp_device::Cuda::new(0)?,
            )))),
            #[cfg(not(feature = "cuda"))]
            CallbackDevice::Cuda => Err(BenchError::Device(
                simdnlp_device::DeviceError::Unavailable {
                    device: "cuda",
                    reason: "simdnlp-bench was built without the CUDA device: build it with \
                             `--features cuda`"
                        .into(),
                },
            )),
        }
    }

    /// The device's own name for the records.
    fn describe(&self) -> String {
        match self {
            KernelDevice::Emu(emu) => format!("emu ({})", emu.compiler().display()),
            #[cfg(feature = "cuda")]
            KernelDevice::Cuda(cuda) => {
                let info = cuda.info();
                format!(
                    "{} (sm_{}{}, driver CUDA {}.{}, NVRTC {}.{})",
                    info.name,
                    info.compute_capability.0,
                    info.compute_capability.1,
                    info.driver_version / 1000,
                    (info.driver_version % 1000) / 10,
                    info.nvrtc_version.0,
                    info.nvrtc_version.1
                )
            }
        }
    }

    fn time(
        &self,
        model: &simdnlp_modeling::Model,
        cfg: &TimingConfig,
    ) -> Result<super::stats::CallbackWeights, simdnlp_modeling::ModelError> {
        match self {
            KernelDevice::Emu(emu) => time_device_callbacks(emu.as_ref(), model, cfg),
            #[cfg(feature = "cuda")]
            KernelDevice::Cuda(cuda) => time_device_callbacks(cuda.as_ref(), model, cfg),
        }
    }
}

/// JSON Lines output: one object per line, flushed per instance.
pub(crate) struct JsonLines {
    path: PathBuf,
    w: BufWriter<File>,
}

impl JsonLines {
    pub(crate) fn create(path: Option<&PathBuf>) -> Result<Option<Self>, BenchError> {
        let Some(path) = path else { return Ok(None) };
        let f = File::create(path).map_err(|source| BenchError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(Some(Self {
            path: path.clone(),
            w: BufWriter::new(f),
        }))
    }

    pub(crate) fn write<T: Serialize>(&mut self, rec: &T) -> Result<(), BenchError> {
        let io = |source| BenchError::Io {
            path: self.path.clone(),
            source,
        };
        serde_json::to_writer(&mut self.w, rec).map_err(|e| io(e.into()))?;
        self.w.write_all(b"\n").map_err(io)?;
        self.w.flush().map_err(io)
    }
}

fn progress(n: usize) -> ProgressBar {
    let pb = ProgressBar::new(n as u64);
    if std::io::stdout().is_terminal() {
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} [{elapsed_precise}] {msg}")
        {
            pb.set_style(style);
        }
    } else {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb
}

fn select(reg: &Registry, sel: &Selection) -> Result<Vec<Instance>, BenchError> {
    let sizes: Vec<SizeClass> = sel.size.classes();
    reg.select(sel.suite, &sizes, &sel.instances, sel.backend)
}

fn build(inst: &Instance) -> Result<(DynModel, f64), BenchError> {
    let t0 = Instant::now();
    let m = inst.build()?;
    Ok((m, t0.elapsed().as_secs_f64()))
}

/// `name` or `name:param` of a record.
fn label_of(r: &CallbackRecord) -> String {
    if r.param.is_empty() {
        r.instance.clone()
    } else {
        format!("{}:{}", r.instance, r.param)
    }
}

/// A process-wide default of model builders (evaluator, fusion, threads) set for the
/// duration of a run; the previous value is restored when dropped.
struct BuilderDefault<V: Copy> {
    previous: V,
    restore: fn(V),
}

impl<V: Copy> BuilderDefault<V> {
    /// Sets the default to `value` with `set`, remembering what `get` returned before.
    fn set(value: V, get: fn() -> V, set: fn(V)) -> Self {
        let previous = get();
        set(value);
        BuilderDefault {
            previous,
            restore: set,
        }
    }
}

impl<V: Copy> Drop for BuilderDefault<V> {
    fn drop(&mut self) {
        (self.restore)(self.previous);
    }
}

/// Default of `callbacks --min-batch`: the fewest data points of one callback task.
pub const DEFAULT_MIN_BATCH: usize = 8192;

/// The model thread setting of `callbacks --threads K --min-batch B`: sequential for one
/// thread, else tasks of at least `B` data points on the run's rayon pool.
pub fn callback_threads(threads: usize, min_batch: usize) -> Parallelism {
    if threads <= 1 {
        Parallelism::Sequential
    } else {
        Parallelism::Rayon { threads, min_batch }
    }
}

/// Runs callbacks mode: times every selected instance, writes JSON Lines and the plot if
/// asked, prints the table and the class summary to `out`; returns the records.
pub fn run_callbacks(
    args: &CallbacksArgs,
    reg: &Registry,
    out: &mut dyn Write,
) -> Result<Vec<CallbackRecord>, BenchError> {
    run_callbacks_until(args, reg, out, &Interrupt::new())
}

/// [`run_callbacks`] until `interrupt` is set (Ctrl-C): the instance being timed finishes
/// its timing, no further instance starts, and the tables, JSON Lines and plot cover the
/// finished instances.
pub fn run_callbacks_until(
    args: &CallbacksArgs,
    reg: &Registry,
    out: &mut dyn Write,
    interrupt: &Interrupt,
) -> Result<Vec<CallbackRecord>, BenchError> {
    if args.threads == 0 {
        return Err(BenchError::Arg("--threads must be at least 1".into()));
    }
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return Err(BenchError::Arg("--seconds must be positive".into()));
    }
    let kernel_device = KernelDevice::open(args.device)?;
    let device_name = kernel_device
        .as_ref()
        .map_or(String::new(), KernelDevice::describe);
    let mut instances = Vec::new();
    for inst in select(reg, &args.sel)? {
        if kernel_device.is_some() {
            // only modeling-layer models have pattern kernels
            if inst.backend == ModelSource::Cpu {
                instances.push(inst);
            }
            continue;
        }
        let base = (!args.no_baseline && inst.backend == ModelSource::Cpu)
            .then(|| reg.counterpart(&inst, ModelSource::Handcoded))
            .flatten();
        instances.push(inst);
        instances.extend(base);
    }
    let mut json = JsonLines::create(args.sel.json.as_ref())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| BenchError::Arg(format!("cannot start {} threads: {e}", args.threads)))?;
    let cfg = TimingConfig {
        batch_seconds: args.seconds,
        batches: 3,
    };
    let pb = progress(instances.len());
    let mut recs = Vec::with_capacity(instances.len());
    // models are built by code the harness does not control: the evaluator is the
    // process-wide default of new model builders while this runs
    let _evaluator = BuilderDefault::set(
        args.evaluator,
        simdnlp_modeling::default_evaluator,
        simdnlp_modeling::set_default_evaluator,
    );
    let _fusion = BuilderDefault::set(
        !args.no_fuse,
        simdnlp_modeling::default_fusion,
        simdnlp_modeling::set_default_fusion,
    );
    let _threads = BuilderDefault::set(
        callback_threads(args.threads, args.min_batch),
        simdnlp_modeling::default_threads,
        simdnlp_modeling::set_default_threads,
    );
    for inst in &instances {
        if interrupt.is_interrupted() {
            break;
        }
        pb.set_message(inst.label());
        let before = simdnlp_modeling::jit_stats();
        // built in the pool: the models' scratch holds one register file per pool thread
        let (model, build_s) = pool.install(|| build(inst))?;
        let after = simdnlp_modeling::jit_stats();
        let jit_patterns = after.patterns - before.patterns;
        let jit_ms = (after.total - before.total).as_secs_f64() * 1e3;
        if jit_patterns > 0 {
            // the time of the fused groups counts into the time per pattern
            tracing::info!(
                instance = inst.label(),
                patterns = jit_patterns,
                fused_groups = after.groups - before.groups,
                ms_per_pattern = jit_ms / jit_patterns as f64,
                "JIT compile time"
            );
        }
        let meta = model.meta();
        let times = match &kernel_device {
            None => pool.install(|| time_callbacks(model.as_ref(), &cfg)),
            Some(device) => {
                let pattern = super::kernels::pattern_model(inst, args.sel.pglib_dir.as_deref())?;
                device.time(&pattern, &cfg).map_err(|e| BenchError::Model {
                    instance: inst.label(),
                    msg: format!("on {}: {e}", args.device.as_str()),
                })?
            }
        };
        let mut rec = CallbackRecord {
            suite: inst.suite.to_string(),
            instance: inst.name.clone(),
            param: inst.param.to_string(),
            size: SizeClass::of_nnz(meta.nnzj.max(meta.nnzh)),
            backend: inst.backend.to_string(),
            threads: args.threads,
            nvar: meta.nvar,
            ncon: meta.ncon,
            nnzj: meta.nnzj,
            nnzh: meta.nnzh,
            build_s,
            obj_s: 0.0,
            cons_s: 0.0,
            grad_s: 0.0,
            jac_s: 0.0,
            hess_s: 0.0,
            composite_s: 0.0,
            evaluator: if inst.backend == ModelSource::Cpu && kernel_device.is_none() {
                args.evaluator.to_string()
            } else {
                String::new()
            },
            jit_patterns,
            jit_ms_per_pattern: if jit_patterns > 0 {
                jit_ms / jit_patterns as f64
            } else {
                0.0
            },
            device: args.device.as_str().to_string(),
            device_name: device_name.clone(),
        };
        rec.set_times(&times);
        if let Some(j) = json.as_mut() {
            j.write(&rec)?;
        }
        recs.push(rec);
        pb.inc(1);
    }
    pb.finish_and_clear();
    let io = |source| BenchError::Io {
        path: PathBuf::from("<stdout>"),
        source,
    };
    if !device_name.is_empty() {
        writeln!(out, "device: {device_name}").map_err(io)?;
    }
    write!(out, "{}", callbacks_table(&recs)).map_err(io)?;
    for r in recs.iter().filter(|r| r.jit_patterns > 0) {
        writeln!(
            out,
            "JIT {}: {} patterns, {:.2} ms per pattern",
            label_of(r),
            r.jit_patterns,
            r.jit_ms_per_pattern
        )
        .map_err(io)?;
    }
    writeln!(out).map_err(io)?;
    let mixed = recs.iter().any(|r| r.backend != recs[0].backend);
    if mixed {
        for b in ["cpu", "handcoded"] {
            let part: Vec<CallbackRecord> =
                recs.iter().filter(|r| r.backend == b).cloned().collect();
            if !part.is_empty() {
                writeln!(out, "[{b}]").map_err(io)?;
                write!(out, "{}", summary_table(&summarize(&part))).map_err(io)?;
            }
        }
        let ratios = baseline_ratios(&recs);
        if !ratios.is_empty() {
            writeln!(out).map_err(io)?;
            write!(out, "{}", ratio_table(&ratios)).map_err(io)?;
        }
    } else {
        write!(out, "{}", summary_table(&summarize(&recs))).map_err(io)?;
    }
    if let Some(p) = &args.sel.plot {
        plot::plot_callbacks(p, &recs).map_err(|msg| BenchError::Plot {
            path: p.clone(),
            msg,
        })?;
    }
    Ok(recs)
}

/// Runs solve mode with `solver` (`None`: not wired → [`BenchError::SolverNotWired`]
/// before anything is built).
pub fn run_solve(
    args: &SolveArgs,
    reg: &Registry,
    solver: Option<&dyn SolveBackend>,
    out: &mut dyn Write,
) -> Result<Vec<SolveRecord>, BenchError> {
    run_solve_until(args, reg, solver, out, &Interrupt::new())
}

/// [`run_solve`] until `interrupt` is set (Ctrl-C): the running solve gets the flag and
/// stops at its next iteration (simdnlp reports `UserRequestedStop`), its record is
/// marked `interrupted`, no further instance starts, and the table, JSON Lines and plot
/// cover the instances solved so far. The caller decides the exit code.
pub fn run_solve_until(
    args: &SolveArgs,
    reg: &Registry,
    solver: Option<&dyn SolveBackend>,
    out: &mut dyn Write,
    interrupt: &Interrupt,
) -> Result<Vec<SolveRecord>, BenchError> {
    let Some(solver) = solver else {
        return Err(BenchError::SolverNotWired);
    };
    if !(args.tol.is_finite() && args.tol > 0.0) {
        return Err(BenchError::Arg("--tol must be positive".into()));
    }
    if args.max_wall_time.is_some_and(|t| t.is_nan() || t <= 0.0) {
        return Err(BenchError::Arg("--max-wall-time must be positive".into()));
    }
    let kkt = match (args.device, args.kkt) {
        (DeviceChoice::Cuda, Some(KktChoice::Augmented)) => {
            return Err(BenchError::Arg(
                "--device cuda solves the condensed KKT system only (or its hybrid form): \
                 drop --kkt or pass --kkt condensed|hybrid"
                    .into(),
            ));
        }
        (DeviceChoice::Cuda, Some(KktChoice::Hybrid)) => KktChoice::Hybrid,
        (DeviceChoice::Cuda, _) => KktChoice::Condensed,
        (_, kkt) => kkt.unwrap_or(KktChoice::Augmented),
    };
    let settings = SolveSettings {
        tol: args.tol,
        kkt,
        device: args.device,
        linear_solver: args.linear_solver,
        max_iter: args.max_iter,
        max_wall_time: args.max_wall_time,
        verbose: args.verbose,
        options_file: args.options_file.clone(),
        options: args.options.clone(),
        interrupt: interrupt.clone(),
    };
    solver.check(&settings).map_err(BenchError::SolverOptions)?;
    let instances = select(reg, &args.sel)?;
    let mut json = JsonLines::create(args.sel.json.as_ref())?;
    let pb = progress(instances.len());
    let mut recs = Vec::with_capacity(instances.len());
    for inst in &instances {
        if interrupt.is_interrupted() {
            break;
        }
        pb.set_message(inst.label());
        let (model, build_s) = build(inst)?;
        let meta = model.meta();
        // the device and its kernels first, timed apart (a failure shows in the solve)
        let prepared = solver
            .prepare(model.as_ref(), &settings)
            .unwrap_or_default();
        let t0 = Instant::now();
        let res = solver.solve(model.as_ref(), &settings);
        let solve_s = t0.elapsed().as_secs_f64();
        let bytes_per_iteration = res.as_ref().ok().and_then(|o| o.bytes_per_iteration);
        let (status, success, iterations, objective, times, counts, error) = match res {
            Ok(o) => (
                o.status,
                o.success,
                o.iterations,
                Some(o.objective),
                o.times,
                o.counts,
                None,
            ),
            Err(msg) => ("error".to_string(), false, 0, None, None, None, Some(msg)),
        };
        let rec = SolveRecord {
            suite: inst.suite.to_string(),
            instance: inst.name.clone(),
            param: inst.param.to_string(),
            size: SizeClass::of_nnz(meta.nnzj.max(meta.nnzh)),
            backend: inst.backend.to_string(),
            nvar: meta.nvar,
            ncon: meta.ncon,
            nnzj: meta.nnzj,
            nnzh: meta.nnzh,
            status,
            success,
            iterations,
            objective,
            reference: inst.reference,
            rel_err: objective.zip(inst.reference).map(|(o, r)| rel_err(o, r)),
            build_s,
            compile_s: prepared.seconds,
            modules_compiled: prepared.compiled,
            modules_from_disk: prepared.from_disk,
            solve_s,
            times,
            counts,
            bytes_per_iteration,
            error,
            interrupted: interrupt.is_interrupted(),
        };
        if let Some(j) = json.as_mut() {
            j.write(&rec)?;
        }
        recs.push(rec);
        pb.inc(1);
    }
    pb.finish_and_clear();
    write!(out, "{}", solve_table(&recs)).map_err(|source| BenchError::Io {
        path: PathBuf::from("<stdout>"),
        source,
    })?;
    if let Some(p) = &args.sel.plot {
        plot::plot_solve(p, &recs).map_err(|msg| BenchError::Plot {
            path: p.clone(),
            msg,
        })?;
    }
    Ok(recs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::registry::{SizeParam, SizeSpec};
    use crate::harness::solve::{FnSolver, SolveOutcome};

    /// Solve-mode arguments for one instance, with every flag at its default.
    fn solve_args(suite: Suite, instance: &str) -> SolveArgs {
        SolveArgs {
            sel: Selection {
                suite,
                size: SizeSel::Small,
                instances: vec![instance.parse().unwrap()],
                backend: ModelSourceSel::Auto,
                pglib_dir: None,
                json: None,
                plot: None,
            },
            tol: 1e-8,
            kkt: None,
            device: DeviceChoice::Cpu,
            linear_solver: LinearSolverChoice::Ldlt,
            max_iter: None,
            max_wall_time: None,
            verbose: 0,
            options_file: None,
            options: Vec::new(),
        }
    }

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("simdnlp-bench").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn cli_parses_instances() {
        let c = parse(&[
            "solve",
            "--suite",
            "cops",
            "--instance",
            "rocket:400",
            "--instance",
            "bearing:50x50",
            "--tol",
            "1e-6",
            "--kkt",
            "condensed",
            "--device",
            "emu",
        ]);
        let Command::Solve(a) = c.command else {
            panic!("not solve")
        };
        assert_eq!(a.sel.suite, Suite::Cops);
        assert_eq!(a.sel.instances.len(), 2);
        assert_eq!(a.sel.instances[0].name, "rocket");
        assert_eq!(
            a.sel.instances[0].size,
            Some(SizeSpec::Param(SizeParam::N(400)))
        );
        assert_eq!(
            a.sel.instances[1].size,
            Some(SizeSpec::Param(SizeParam::Grid(50, 50)))
        );
        assert_eq!((a.tol, a.kkt), (1e-6, Some(KktChoice::Condensed)));
        assert_eq!(a.device, DeviceChoice::Emu);
        let c = parse(&[
            "callbacks",
            "--suite",
            "opf",
            "--instance",
            "case118_ieee",
            "--threads",
            "4",
            "--backend",
            "handcoded",
            "--size",
            "all",
        ]);
        let Command::Callbacks(a) = c.command else {
            panic!("not callbacks")
        };
        assert_eq!(a.sel.instances[0].name, "case118_ieee");
        assert_eq!(a.sel.instances[0].size, None);
        assert_eq!((a.threads, a.seconds), (4, 0.5));
        assert_eq!(a.sel.size, SizeSel::All);
        assert!(
            Cli::try_parse_from([
                "simdnlp-bench",
                "solve",
                "--suite",
                "cops",
                "--instance",
                "rocket:x"
            ])
            .is_err()
        );
        assert!(Cli::try_parse_from(["simdnlp-bench", "solve", "--suite", "nope"]).is_err());
    }

    #[test]
    fn cli_parses_solver_options() {
        let c = parse(&[
            "solve",
            "--suite",
            "lv",
            "--option",
            "max_iter=3",
            "--option",
            " mu_strategy = adaptive ",
            "--options-file",
            "ipopt.opt",
        ]);
        let Command::Solve(a) = c.command else {
            panic!("not solve")
        };
        assert_eq!(
            a.options,
            [
                ("max_iter".to_string(), "3".to_string()),
                ("mu_strategy".to_string(), "adaptive".to_string())
            ]
        );
        assert_eq!(a.options_file, Some(PathBuf::from("ipopt.opt")));
        for bad in ["max_iter", "=3"] {
            assert!(
                Cli::try_parse_from(["simdnlp-bench", "solve", "--suite", "lv", "--option", bad])
                    .is_err(),
                "{bad}"
            );
        }
    }

    /// Solve mode with the real solver: `--option` and `--options-file` reach it, and a bad
    /// option stops the run before any instance is built or solved.
    #[cfg(feature = "solver")]
    #[test]
    fn solver_options_reach_the_solver() {
        use crate::harness::solve::default_solver;
        let reg = Registry::with_defaults(None);
        let solver = default_solver().unwrap();
        let mk = |options: &[(&str, &str)], options_file: Option<PathBuf>| SolveArgs {
            options_file,
            options: options
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            ..solve_args(Suite::Lv, "rosenbrock:100")
        };
        let recs = run_solve(
            &mk(&[("max_iter", "3")], None),
            &reg,
            Some(solver.as_ref()),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(recs[0].status, "MaximumIterationsExceeded");
        assert_eq!(recs[0].iterations, 3);

        let file = std::env::temp_dir().join(format!("simdnlp-bench-{}.opt", std::process::id()));
        std::fs::write(&file, "# Ipopt format\ntol 1e-3\nmax_iter 2\n").unwrap();
        let recs = run_solve(
            &mk(&[], Some(file.clone())),
            &reg,
            Some(solver.as_ref()),
            &mut Vec::new(),
        );
        let _ = std::fs::remove_file(&file);
        let recs = recs.unwrap();
        assert_eq!(recs[0].status, "MaximumIterationsExceeded");
        assert_eq!(recs[0].iterations, 2);

        // a bad option fails before any instance is built (the instance does not exist)
        let mut args = mk(&[("no_such_option", "1")], None);
        args.sel.instances = vec!["not_an_instance".parse().unwrap()];
        let err = run_solve(&args, &reg, Some(solver.as_ref()), &mut Vec::new()).unwrap_err();
        assert!(matches!(err, BenchError::SolverOptions(_)), "{err}");
        assert!(err.to_string().contains("no_such_option"), "{err}");
        let err = run_solve(
            &mk(&[("max_iter", "-1")], None),
            &reg,
            Some(solver.as_ref()),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("max_iter"), "{err}");
    }

    #[test]
    fn callbacks_mode_end_to_end() {
        let reg = Registry::with_defaults(None);
        let dir = std::env::temp_dir();
        let json = dir.join(format!("simdnlp-bench-cb-{}.jsonl", std::process::id()));
        let args = CallbacksArgs {
            sel: Selection {
                suite: Suite::Opf,
                size: SizeSel::Small,
                instances: vec!["case5_pjm".parse().unwrap(), "case14_ieee".parse().unwrap()],
                backend: ModelSourceSel::Handcoded,
                pglib_dir: None,
                json: Some(json.clone()),
                plot: None,
            },
            threads: 1,
            min_batch: DEFAULT_MIN_BATCH,
            seconds: 1e-4,
            no_baseline: false,
            no_fuse: false,
            evaluator: Evaluator::Jit,
            device: CallbackDevice::Cpu,
        };
        let mut out = Vec::new();
        let recs = run_callbacks(&args, &reg, &mut out).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[0].nvar, recs[0].ncon), (44, 53));
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("case14_ieee") && text.contains("composite"));
        let lines = std::fs::read_to_string(&json).unwrap();
        let _ = std::fs::remove_file(&json);
        assert_eq!(lines.lines().count(), 2);
        for l in lines.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            for k in [
                "suite", "instance", "size", "backend", "nnzj", "nnzh", "obj_s", "cons_s",
                "grad_s", "jac_s", "hess_s",
            ] {
                assert!(v.get(k).is_some(), "missing {k}");
            }
            assert_eq!(v["suite"], "opf");
            assert_eq!(v["backend"], "handcoded");
        }
    }

    #[test]
    fn callbacks_mode_times_the_handcoded_baseline_too() {
        let reg = Registry::with_defaults(None);
        let mk = |no_baseline| CallbacksArgs {
            sel: Selection {
                suite: Suite::Opf,
                size: SizeSel::Small,
                instances: vec!["case5_pjm".parse().unwrap()],
                backend: ModelSourceSel::Cpu,
                pglib_dir: None,
                json: None,
                plot: None,
            },
            threads: 1,
            min_batch: DEFAULT_MIN_BATCH,
            seconds: 1e-4,
            no_baseline,
            no_fuse: false,
            evaluator: Evaluator::Jit,
            device: CallbackDevice::Cpu,
        };
        let mut out = Vec::new();
        let recs = run_callbacks(&mk(false), &reg, &mut out).unwrap();
        let backends: Vec<&str> = recs.iter().map(|r| r.backend.as_str()).collect();
        assert_eq!(backends, ["cpu", "handcoded"]);
        assert_eq!((recs[0].nvar, recs[0].ncon), (recs[1].nvar, recs[1].ncon));
        assert_eq!(
            (recs[0].evaluator.as_str(), recs[1].evaluator.as_str()),
            ("jit", "")
        );
        assert!(recs[0].jit_patterns > 0 && recs[0].jit_ms_per_pattern > 0.0);
        assert!(String::from_utf8(out).unwrap().contains("hand-coded"));
        let recs = run_callbacks(&mk(true), &reg, &mut Vec::new()).unwrap();
        assert_eq!(recs.len(), 1);
    }

    /// An interrupt during the second of three instances: the second ends as the solver
    /// reports it, marked `interrupted`, the third never starts, and the JSON Lines hold
    /// both finished records.
    #[test]
    fn interrupted_solve_mode_keeps_finished_records() {
        let reg = Registry::with_defaults(None);
        let json =
            std::env::temp_dir().join(format!("simdnlp-bench-int-{}.jsonl", std::process::id()));
        let mut args = solve_args(Suite::Lv, "rosenbrock:10");
        args.sel.instances = ["rosenbrock:10", "rosenbrock:20", "rosenbrock:30"]
            .iter()
            .map(|i| i.parse().unwrap())
            .collect();
        args.sel.json = Some(json.clone());
        let solved = std::cell::Cell::new(0);
        // stands in for Ctrl-C arriving while the second instance solves
        let fake = FnSolver::new("fake", |m, s| {
            solved.set(solved.get() + 1);
            let stop = solved.get() == 2;
            if stop {
                s.interrupt.interrupt();
            }
            Ok(SolveOutcome {
                status: if stop {
                    "UserRequestedStop"
                } else {
                    "SolveSucceeded"
                }
                .into(),
                success: !stop,
                iterations: 3,
                objective: m.obj(&m.meta().x0),
                times: None,
                counts: None,
                bytes_per_iteration: None,
            })
        });
        let interrupt = Interrupt::new();
        let mut out = Vec::new();
        let recs = run_solve_until(&args, &reg, Some(&fake), &mut out, &interrupt).unwrap();
        assert!(interrupt.is_interrupted());
        assert_eq!(solved.get(), 2);
        let marks: Vec<(&str, bool)> = recs
            .iter()
            .map(|r| (r.status.as_str(), r.interrupted))
            .collect();
        assert_eq!(
            marks,
            [("SolveSucceeded", false), ("UserRequestedStop", true)]
        );
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("UserRequestedStop")
        );
        let lines = std::fs::read_to_string(&json).unwrap();
        let _ = std::fs::remove_file(&json);
        let values: Vec<serde_json::Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(values.len(), 2);
        assert!(values[0].get("interrupted").is_none());
        assert_eq!(values[1]["interrupted"], true);
        assert_eq!(values[1]["status"], "UserRequestedStop");
        // an interrupt set before the run starts no instance
        let recs = run_solve_until(&args, &reg, Some(&fake), &mut Vec::new(), &interrupt).unwrap();
        assert!(recs.is_empty());
        assert_eq!(solved.get(), 2);
    }

    /// The real solver honours the interrupt: it stops at the next iteration with
    /// `UserRequestedStop`.
    #[cfg(feature = "solver")]
    #[test]
    fn simdnlp_stops_on_interrupt() {
        use crate::handcoded::RosenbrockModel;
        use crate::harness::solve::{SolveSettings, default_solver};
        let solver = default_solver().unwrap();
        let model = RosenbrockModel::new(100).unwrap();
        let settings = SolveSettings::default();
        let free = solver.solve(&model, &settings).unwrap();
        assert!(free.success && free.iterations > 1, "{}", free.status);
        settings.interrupt.interrupt();
        let stopped = solver.solve(&model, &settings).unwrap();
        assert_eq!(
            (stopped.status.as_str(), stopped.iterations),
            ("UserRequestedStop", 0)
        );
        assert!(!stopped.success);
    }

    #[test]
    fn interrupted_callbacks_mode_starts_no_instance() {
        let reg = Registry::with_defaults(None);
        let args = CallbacksArgs {
            sel: Selection {
                suite: Suite::Opf,
                size: SizeSel::Small,
                instances: vec!["case5_pjm".parse().unwrap()],
                backend: ModelSourceSel::Handcoded,
                pglib_dir: None,
                json: None,
                plot: None,
            },
            threads: 1,
            min_batch: DEFAULT_MIN_BATCH,
            seconds: 1e-4,
            no_baseline: true,
            no_fuse: false,
            evaluator: Evaluator::Jit,
            device: CallbackDevice::Cpu,
        };
        let interrupt = Interrupt::new();
        interrupt.interrupt();
        let recs = run_callbacks_until(&args, &reg, &mut Vec::new(), &interrupt).unwrap();
        assert!(recs.is_empty());
    }

    #[test]
    fn cuda_solves_the_condensed_system_and_refuses_augmented() {
        let reg = Registry::with_defaults(None);
        let seen = std::sync::Mutex::new(Vec::new());
        let fake = FnSolver::new("fake", |_, s| {
            seen.lock().unwrap().push((s.device, s.kkt));
            Err("no solve in this test".into())
        });
        // --device cuda without --kkt: condensed; --kkt augmented: refused before any solve
        let mut args = solve_args(Suite::Opf, "case5_pjm");
        args.device = DeviceChoice::Cuda;
        let _ = run_solve(&args, &reg, Some(&fake), &mut Vec::new());
        assert_eq!(
            seen.lock().unwrap().as_slice(),
            [(DeviceChoice::Cuda, KktChoice::Condensed)]
        );
        args.kkt = Some(KktChoice::Augmented);
        let err = run_solve(&args, &reg, Some(&fake), &mut Vec::new()).unwrap_err();
        assert!(matches!(err, BenchError::Arg(_)), "{err}");
        assert!(err.to_string().contains("condensed"), "{err}");
        assert_eq!(seen.lock().unwrap().len(), 1);
        // --kkt hybrid: the hybrid form on the device
        args.kkt = Some(KktChoice::Hybrid);
        let _ = run_solve(&args, &reg, Some(&fake), &mut Vec::new());
        assert_eq!(
            seen.lock().unwrap()[1],
            (DeviceChoice::Cuda, KktChoice::Hybrid)
        );
        seen.lock().unwrap().pop();
        // elsewhere the default stays augmented
        args.device = DeviceChoice::Emu;
        args.kkt = None;
        let _ = run_solve(&args, &reg, Some(&fake), &mut Vec::new());
        assert_eq!(
            seen.lock().unwrap()[1],
            (DeviceChoice::Emu, KktChoice::Augmented)
        );
    }

    #[test]
    fn solve_mode_through_the_seam() {
        let reg = Registry::with_defaults(None);
        let args = solve_args(Suite::Opf, "case5_pjm");
        let mut out = Vec::new();
        assert!(matches!(
            run_solve(&args, &reg, None, &mut out),
            Err(BenchError::SolverNotWired)
        ));
        // A fake solver that reports the start point's objective plus 17552.
        let fake = FnSolver::new("fake", |m, s| {
            assert_eq!(s.kkt, KktChoice::Augmented);
            Ok(SolveOutcome {
                status: "Solve_Succeeded".into(),
                success: true,
                iterations: 3,
                objective: m.obj(&m.meta().x0) + 17552.0 * 1.001,
                times: None,
                counts: None,
                bytes_per_iteration: None,
            })
        });
        let recs = run_solve(&args, &reg, Some(&fake), &mut out).unwrap();
        assert_eq!(recs[0].reference, Some(1.7552e4));
        assert!((recs[0].rel_err.unwrap() - 1e-3).abs() < 1e-12);
        assert!(String::from_utf8(out).unwrap().contains("Solve_Succeeded"));
    }
}
