//! `simdnlp-bench kernels`: compile the CUDA C kernel modules of the GPU path — the
//! interior-point kernels ([`simdnlp_device::IPM_KERNELS`]) and, for every selected
//! instance, the pattern kernels of its modeling-layer model
//! ([`simdnlp_modeling::cuda_module_source`]) — and report per module the kernels, the
//! compile time and (NVRTC) the PTX size.
//!
//! With `--nvrtc` the compiler is NVIDIA's NVRTC ([`Nvrtc`], found through
//! `SIMDNLP_NVRTC_LIB` or the library path; no GPU needed), with `--fmad=false` for the
//! virtual architecture `--arch`. Without it the modules are compiled by g++ for the
//! emulated device ([`Emu`]). Any failure makes the run fail after every module was tried,
//! so one command checks that every kernel of a suite compiles.

use std::io::Write;
use std::time::Instant;

use clap::Args;
use serde::Serialize;
use simdnlp_device::{Emu, IPM_KERNELS, KernelRuntime, Nvrtc};
use simdnlp_modeling::Model;

use super::BenchError;
use super::cli::JsonLines;
use super::cli::Selection;
use super::registry::{Instance, ModelSourceSel, Registry, SizeParam, Suite};

/// Arguments of `kernels`.
#[derive(Debug, Clone, Args)]
pub struct KernelsArgs {
    /// Instances (their modeling-layer models; `--backend` is ignored) and outputs.
    #[command(flatten)]
    pub sel: Selection,
    /// Compile with NVRTC (`SIMDNLP_NVRTC_LIB` or the library path) instead of g++.
    #[arg(long)]
    pub nvrtc: bool,
    /// Virtual GPU architecture NVRTC compiles for (`compute_90`: H100/H200).
    #[arg(long, default_value = "compute_90")]
    pub arch: String,
}

/// One compiled module (one JSON line with `--json`).
#[derive(Clone, Debug, Serialize)]
pub struct KernelRecord {
    /// `ipm` for the interior-point kernels, else the instance label.
    pub module: String,
    /// `nvrtc 13.0 compute_90` or `g++`.
    pub compiler: String,
    /// `__global__` kernels in the source.
    pub declared: usize,
    /// Kernels the compiler produced (PTX `.entry` count; for g++ the loaded kernels).
    pub kernels: usize,
    /// Source size, bytes.
    pub source_bytes: usize,
    /// Compile time, seconds.
    pub compile_s: f64,
    /// PTX size, bytes (NVRTC only).
    pub ptx_bytes: Option<usize>,
    /// The compiler's error, when the module did not compile.
    pub error: Option<String>,
}

/// The compiler of a run.
enum Compiler {
    Nvrtc { nvrtc: Nvrtc, arch: String },
    Gxx(Box<Emu>),
}

impl Compiler {
    fn label(&self) -> String {
        match self {
            Compiler::Nvrtc { nvrtc, arch } => {
                let (major, minor) = nvrtc.version();
                format!("nvrtc {major}.{minor} {arch}")
            }
            Compiler::Gxx(_) => "g++".to_string(),
        }
    }

    /// Compiles `source`: `(kernels, ptx bytes)` or the compiler's message.
    fn compile(&self, file: &str, source: &str) -> Result<(usize, Option<usize>), String> {
        match self {
            Compiler::Nvrtc { nvrtc, arch } => nvrtc
                .compile(source, file, arch)
                .map(|ptx| (ptx.entries(), Some(ptx.text.len())))
                .map_err(|e| e.to_string()),
            Compiler::Gxx(emu) => {
                emu.load_module(source).map_err(|e| e.to_string())?;
                Ok((declared_kernels(source), None))
            }
        }
    }
}

/// `__global__` kernels declared in a source.
fn declared_kernels(source: &str) -> usize {
    source.matches("__global__").count()
}

/// The modeling-layer model of an instance (the one `--backend cpu` runs).
pub(crate) fn pattern_model(
    inst: &Instance,
    reg_pglib: Option<&std::path::Path>,
) -> Result<Model, BenchError> {
    let bad = |msg: String| BenchError::Model {
        instance: inst.label(),
        msg,
    };
    match (inst.suite, inst.param) {
        (Suite::Lv, SizeParam::N(n)) => {
            crate::lv::build(&inst.name, n).map_err(|e| bad(e.to_string()))
        }
        (Suite::Cops, param) => {
            let problem = crate::cops::ALL
                .iter()
                .find(|p| p.name == inst.name)
                .ok_or_else(|| bad("not a COPS problem".into()))?;
            let size = param
                .cops_size()
                .ok_or_else(|| bad("COPS problems take a size".into()))?;
            problem.build_at(size).map_err(|e| bad(e.to_string()))
        }
        (Suite::Opf, _) => {
            let dirs = crate::opf::PglibDirs::locate(reg_pglib.map(|p| p.to_path_buf()))?;
            let data = crate::opf::OpfData::read(dirs.case_path(&inst.name)?)?;
            crate::opf::model::acopf(&data).map_err(|e| bad(e.to_string()))
        }
        (suite, param) => Err(bad(format!("suite {suite} does not take the size {param}"))),
    }
}

/// Runs kernels mode: compiles the IPM kernels and every selected instance's module,
/// prints one line per module to `out` and writes JSON Lines if asked; returns the records.
///
/// # Errors
/// The compiler cannot be loaded (no NVRTC, no g++), an instance cannot be built, or any
/// module failed to compile ([`BenchError::Arg`] naming how many; the records printed
/// before say which and why).
pub fn run_kernels(
    args: &KernelsArgs,
    reg: &Registry,
    out: &mut dyn Write,
) -> Result<Vec<KernelRecord>, BenchError> {
    // g++: the emulated device compiles the IPM kernels when it is created, so that is
    // their compile time
    let started = Instant::now();
    let compiler = if args.nvrtc {
        Compiler::Nvrtc {
            nvrtc: Nvrtc::load()?,
            arch: args.arch.clone(),
        }
    } else {
        Compiler::Gxx(Box::new(Emu::new()?))
    };
    let device_setup_s = started.elapsed().as_secs_f64();
    let sizes = args.sel.size.classes();
    let instances = reg.select(
        args.sel.suite,
        &sizes,
        &args.sel.instances,
        ModelSourceSel::Cpu,
    )?;
    let mut json = JsonLines::create(args.sel.json.as_ref())?;
    let io = |e: std::io::Error| BenchError::Io {
        path: "stdout".into(),
        source: e,
    };
    writeln!(
        out,
        "{:<28} {:>8} {:>10} {:>10} {:>12}  compiler: {}",
        "module",
        "kernels",
        "source KB",
        "compile s",
        "PTX KB",
        compiler.label()
    )
    .map_err(io)?;
    let mut records = Vec::new();
    let mut modules: Vec<(String, Result<String, BenchError>)> =
        vec![("ipm".to_string(), Ok(IPM_KERNELS.to_string()))];
    for inst in &instances {
        let source = pattern_model(inst, args.sel.pglib_dir.as_deref()).and_then(|m| {
            simdnlp_modeling::cuda_module_source(&m).map_err(|e| BenchError::Model {
                instance: inst.label(),
                msg: e.to_string(),
            })
        });
        modules.push((inst.label(), source));
    }
    for (module, source) in modules {
        let source = source?;
        let started = Instant::now();
        let result = compiler.compile(&format!("{module}.cu"), &source);
        let mut compile_s = started.elapsed().as_secs_f64();
        if module == "ipm" && matches!(compiler, Compiler::Gxx(_)) {
            compile_s += device_setup_s;
        }
        let declared = declared_kernels(&source);
        let (kernels, ptx_bytes, error) = match result {
            Ok((kernels, ptx)) if kernels == declared => (kernels, ptx, None),
            Ok((kernels, ptx)) => (
                kernels,
                ptx,
                Some(format!("{declared} kernels declared, {kernels} compiled")),
            ),
            Err(e) => (0, None, Some(e)),
        };
        let record = KernelRecord {
            module,
            compiler: compiler.label(),
            declared,
            kernels,
            source_bytes: source.len(),
            compile_s,
            ptx_bytes,
            error,
        };
        writeln!(
            out,
            "{:<28} {:>8} {:>10.1} {:>10.3} {:>12}{}",
            record.module,
            record.kernels,
            record.source_bytes as f64 / 1024.0,
            record.compile_s,
            record
                .ptx_bytes
                .map_or("-".to_string(), |b| format!("{:.1}", b as f64 / 1024.0)),
            record
                .error
                .as_ref()
                .map_or(String::new(), |e| format!("  FAILED: {e}"))
        )
        .map_err(io)?;
        if let Some(json) = json.as_mut() {
            json.write(&record)?;
        }
        records.push(record);
    }
    let failed = records.iter().filter(|r| r.error.is_some()).count();
    let total: f64 = records.iter().map(|r| r.compile_s).sum();
    writeln!(
        out,
        "{} modules, {} kernels, {failed} failed, {total:.2} s compiling",
        records.len(),
        records.iter().map(|r| r.kernels).sum::<usize>()
    )
    .map_err(io)?;
    if failed > 0 {
        return Err(BenchError::Arg(format!(
            "{failed} of {} kernel modules did not compile (see above)",
            records.len()
        )));
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::cli::{Cli, Command};
    use clap::Parser;

    fn args(line: &[&str]) -> KernelsArgs {
        let mut argv = vec!["simdnlp-bench", "kernels"];
        argv.extend_from_slice(line);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Kernels(a) => a,
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn kernels_mode_compiles_every_module_with_gxx() {
        if std::env::var_os("SIMDNLP_SKIP_GXX").is_some() {
            eprintln!("skipped: SIMDNLP_SKIP_GXX is set");
            return;
        }
        let reg = Registry::with_defaults(None);
        let mut out = Vec::new();
        let records = run_kernels(
            &args(&["--suite", "lv", "--instance", "rosenbrock:3"]),
            &reg,
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(records.len(), 2, "{text}");
        assert_eq!(records[0].module, "ipm");
        assert_eq!(records[1].module, "rosenbrock:3");
        assert!(records.iter().all(|r| r.error.is_none() && r.kernels > 0));
        // value, gradient and Hessian kernels per pattern
        assert_eq!(records[1].kernels % 3, 0);
        assert!(text.contains("0 failed"), "{text}");
    }

    #[test]
    fn kernels_mode_parses_nvrtc_and_arch() {
        let a = args(&["--suite", "cops", "--nvrtc", "--arch", "compute_80"]);
        assert!(a.nvrtc);
        assert_eq!(a.arch, "compute_80");
        assert!(!args(&["--suite", "opf"]).nvrtc);
        assert_eq!(args(&["--suite", "opf"]).arch, "compute_90");
    }
}
