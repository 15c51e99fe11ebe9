//! The seam between the harness and a solver.
//!
//! Solve mode runs through [`SolveBackend`]. [`default_solver`] connects
//! `simdnlp_solver::solve` when the crate is built with feature `solver`; without it,
//! it returns `None` and the binary reports "not wired" and exits with an error —
//! nothing is faked.

use std::path::PathBuf;

use simdnlp_modeling::NlpModel;

use super::interrupt::Interrupt;

/// KKT formulation requested with `--kkt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum KktChoice {
    /// Augmented system (K2) with an LDLᵀ/LBLᵀ factorization and inertia correction.
    Augmented,
    /// Condensed (lifted) system with a Cholesky factorization.
    Condensed,
    /// Hybrid condensed system: inequality rows condensed, equality rows exact through
    /// conjugate gradients on their Schur complement (every device).
    Hybrid,
}

/// Device of the solver's vector algebra requested with `--device` (the solver option
/// `device`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    /// The CPU (Rust kernels).
    Cpu,
    /// The emulated CUDA device: the GPU path's CUDA C kernels compiled by g++ and run on
    /// the host (for checking the kernels, not for speed).
    Emu,
    /// An NVIDIA GPU: the model's kernels, the interior-point kernels and the condensed
    /// KKT system on the device with cuDSS (a build with feature `cuda`; otherwise each
    /// solve reports a typed error).
    Cuda,
}

/// Factorization of the augmented KKT system requested with `--linear-solver`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LinearSolverChoice {
    /// Supernodal LDLᵀ without pivoting (the solver's default).
    Ldlt,
    /// Supernodal LBLᵀ with intranode Bunch–Kaufman pivoting.
    Lblt,
    /// LBLᵀ on the paired KKT ordering (each constraint in one node with its matched
    /// variable, so the two can form a 2×2 pivot; solver option `linear_solver =
    /// lblt_paired`).
    #[value(name = "lblt-paired")]
    #[serde(rename = "lblt_paired")]
    LbltPaired,
    /// Multifrontal LDLᵀ with threshold pivoting and delayed pivots (solver option
    /// `linear_solver = multifrontal`; threshold: `--option pivot_threshold=U`).
    Multifrontal,
}

/// Solver settings the harness passes on.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveSettings {
    /// Convergence tolerance (scaled KKT error).
    pub tol: f64,
    /// KKT formulation.
    pub kkt: KktChoice,
    /// Device of the vector algebra.
    pub device: DeviceChoice,
    /// Factorization of the augmented system (ignored by the condensed one).
    pub linear_solver: LinearSolverChoice,
    /// Iteration limit of the interior-point method (`None`: the solver's default).
    pub max_iter: Option<usize>,
    /// Wall-time limit of one solve, seconds (`None`: the solver's default, none).
    pub max_wall_time: Option<f64>,
    /// Solver log detail (to stderr through `tracing`): 0 quiet, 1 one line per iteration,
    /// 2 and more also inertia corrections and regularizations.
    pub verbose: u8,
    /// Solver options file (Ipopt's `name value` lines, TOML for `.toml`), applied after
    /// the settings above.
    pub options_file: Option<PathBuf>,
    /// Solver options by name, `(name, value)`, applied in order after the options file.
    pub options: Vec<(String, String)>,
    /// Set (by Ctrl-C) to stop the running solve at its next iteration; a solver that
    /// honours it reports status `UserRequestedStop`.
    pub interrupt: Interrupt,
}

impl Default for SolveSettings {
    /// tol 1e-8, augmented LDLᵀ on the CPU, the solver's iteration and time limits, quiet.
    fn default() -> Self {
        Self {
            tol: 1e-8,
            kkt: KktChoice::Augmented,
            device: DeviceChoice::Cpu,
            linear_solver: LinearSolverChoice::Ldlt,
            max_iter: None,
            max_wall_time: None,
            verbose: 0,
            options_file: None,
            options: Vec::new(),
            interrupt: Interrupt::new(),
        }
    }
}

/// What the harness records from a solve.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveOutcome {
    /// Solver status (Ipopt-style name, e.g. `Solve_Succeeded`).
    pub status: String,
    /// Whether the status counts as converged.
    pub success: bool,
    /// Interior-point iterations.
    pub iterations: usize,
    /// Final objective `f(x)` (not sign-flipped for maximization).
    pub objective: f64,
    /// Where the solve's time went, when the solver reports it.
    pub times: Option<SolveTimes>,
    /// KKT factorizations and triangular solves, when the solver reports them.
    pub counts: Option<SolveCounts>,
    /// Host↔device bytes per iteration, when the solver reports them.
    pub bytes_per_iteration: Option<f64>,
}

/// Wall time of a solve per phase, in seconds (as the solver measures it).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct SolveTimes {
    /// Model callbacks (objective, gradient, constraints, Jacobian, Hessian).
    pub callbacks_s: f64,
    /// KKT assembly, symbolic analysis and numeric factorizations.
    pub factorization_s: f64,
    /// Of `factorization_s`: the symbolic analysis (KKT backend setup and, on `cuda`,
    /// cuDSS's analysis phase).
    pub analysis_s: f64,
    /// Triangular solves and iterative refinement.
    pub linsolve_s: f64,
    /// Everything else (vector kernels, line search, logging).
    pub rest_s: f64,
}

/// KKT linear-algebra work of a solve (as the solver counts it; restoration included).
///
/// Each breakdown field counts a subset of its total; what is left is one factorization
/// and one right-hand side per search direction (one per iteration, plus one for the
/// least-squares multipliers at the start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SolveCounts {
    /// Numeric factorizations of the KKT matrix, every cause.
    pub factorizations: usize,
    /// Of `factorizations`: inertia-correction repeats within a step (δ_w/δ_c attempts).
    pub factorizations_inertia: usize,
    /// Of `factorizations`: repeats with a larger δ_c after a solve stayed inaccurate.
    pub factorizations_accuracy: usize,
    /// Of `factorizations`: Bunch–Kaufman LBLᵀ re-factorizations after an inaccurate LDLᵀ
    /// solve (and the LDLᵀ repeat when LBLᵀ's inertia is rejected), and the paired-LBLᵀ
    /// repeats (`paired_repeats`).
    pub factorizations_pivoting: usize,
    /// Switches for good from LDLᵀ to the paired LBLᵀ after exact zero pivots of a variable
    /// at δ_w = 0 in two steps in a row (at most one per KKT backend: the problem's and the
    /// restoration problem's).
    pub pivoting_switches: usize,
    /// Factorizations repeated with the paired LBLᵀ after such a zero pivot (the switching
    /// one included).
    pub paired_repeats: usize,
    /// Factorizations repeated with the multifrontal LDLᵀ to confirm LDLᵀ's wrong (or
    /// singular) inertia at δ_w = 0 (`--option inertia_confirmation=multifrontal`).
    pub inertia_confirmations: usize,
    /// Of `inertia_confirmations`: those that found the inertia correct (δ_w = 0 kept).
    pub inertia_confirmed: usize,
    /// Triangular solves (forward + backward substitution) with a KKT factor, every
    /// cause.
    pub solves: usize,
    /// Of `solves`: iterative-refinement corrections.
    pub solves_refinement: usize,
    /// Of `solves`: second-order-correction right-hand sides (their refinement excluded).
    pub solves_soc: usize,
    /// Feasibility-restoration phases entered.
    pub restorations: usize,
    /// Delayed pivots summed over the KKT factorizations (`--linear-solver multifrontal`;
    /// `0` for the other factorizations).
    pub delayed_pivots: usize,
    /// Symbolic analyses of a KKT pattern made by the solve: the problem's, plus one for
    /// the restoration problem when a restoration phase was entered (kept for the later
    /// phases).
    pub analyses: usize,
    /// Conjugate-gradient iterations on the equality rows' Schur complement (`--kkt
    /// hybrid`; `0` otherwise).
    pub cg_iterations: usize,
}

/// What [`SolveBackend::prepare`] did before the timed solve.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Preparation {
    /// Wall time (s): opening the device and compiling (or loading cached) kernel modules.
    pub seconds: f64,
    /// Kernel modules compiled.
    pub compiled: usize,
    /// Kernel modules read from the on-disk kernel cache instead.
    pub from_disk: usize,
}

/// A solver usable by solve mode.
pub trait SolveBackend {
    /// Name for logs.
    fn name(&self) -> &str;
    /// Checks `settings` (the solver options above all) before any instance is built;
    /// `Err` carries the message (an unknown option, a bad value). The default accepts
    /// everything.
    fn check(&self, settings: &SolveSettings) -> Result<(), String> {
        let _ = settings;
        Ok(())
    }
    /// Does what the solve of `model` needs before it can start and would otherwise count
    /// in its time: opening the device and compiling its kernels (simdnlp's
    /// `prepare_device`). Solve mode times it apart from the solve (`compile_s`). The
    /// default prepares nothing.
    fn prepare(
        &self,
        model: &dyn NlpModel<f64>,
        settings: &SolveSettings,
    ) -> Result<Preparation, String> {
        let _ = (model, settings);
        Ok(Preparation::default())
    }
    /// Solves `model`; `Err` carries a message when the solver fails to run at all. A
    /// solver should stop at its next iteration once `settings.interrupt` is set and
    /// report status `UserRequestedStop`.
    fn solve(
        &self,
        model: &dyn NlpModel<f64>,
        settings: &SolveSettings,
    ) -> Result<SolveOutcome, String>;
}

/// A [`SolveBackend`] from a closure.
pub struct FnSolver<F> {
    name: String,
    f: F,
}

impl<F> FnSolver<F>
where
    F: Fn(&dyn NlpModel<f64>, &SolveSettings) -> Result<SolveOutcome, String>,
{
    /// Wraps `f` under `name`.
    pub fn new(name: impl Into<String>, f: F) -> Self {
        Self {
            name: name.into(),
            f,
        }
    }
}

impl<F> SolveBackend for FnSolver<F>
where
    F: Fn(&dyn NlpModel<f64>, &SolveSettings) -> Result<SolveOutcome, String>,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn solve(
        &self,
        model: &dyn NlpModel<f64>,
        settings: &SolveSettings,
    ) -> Result<SolveOutcome, String> {
        (self.f)(model, settings)
    }
}

/// The solver solve mode uses: `simdnlp_solver::solve` with feature `solver`, else
/// `None` (not wired).
pub fn default_solver() -> Option<Box<dyn SolveBackend>> {
    #[cfg(feature = "solver")]
    {
        Some(Box::new(SimdnlpSolver))
    }
    #[cfg(not(feature = "solver"))]
    {
        None
    }
}

/// `simdnlp_solver::solve` behind the seam.
#[cfg(feature = "solver")]
struct SimdnlpSolver;

/// The solver options `settings` ask for: the defaults, then the dedicated settings
/// (tolerance, KKT, device, limits, verbosity), then the options file, then the options by name in
/// order; validated.
#[cfg(feature = "solver")]
pub fn solver_options(
    settings: &SolveSettings,
) -> Result<simdnlp_solver::Options, simdnlp_solver::OptionError> {
    let defaults = simdnlp_solver::Options::default();
    let mut opts = simdnlp_solver::Options {
        tol: settings.tol,
        kkt: match settings.kkt {
            KktChoice::Augmented => simdnlp_solver::KktKind::Augmented,
            KktChoice::Condensed => simdnlp_solver::KktKind::Condensed,
            KktChoice::Hybrid => simdnlp_solver::KktKind::Hybrid,
        },
        device: match settings.device {
            DeviceChoice::Cpu => simdnlp_solver::DeviceKind::Cpu,
            DeviceChoice::Emu => simdnlp_solver::DeviceKind::Emu,
            DeviceChoice::Cuda => simdnlp_solver::DeviceKind::Cuda,
        },
        linear_solver: match settings.linear_solver {
            LinearSolverChoice::Ldlt => simdnlp_solver::LinearSolverKind::Ldlt,
            LinearSolverChoice::Lblt => simdnlp_solver::LinearSolverKind::Lblt,
            LinearSolverChoice::LbltPaired => simdnlp_solver::LinearSolverKind::LbltPaired,
            LinearSolverChoice::Multifrontal => simdnlp_solver::LinearSolverKind::Multifrontal,
        },
        max_iter: settings.max_iter.unwrap_or(defaults.max_iter),
        max_wall_time: settings.max_wall_time.unwrap_or(defaults.max_wall_time),
        print_level: match settings.verbose {
            0 => simdnlp_solver::PrintLevel::None,
            1 => simdnlp_solver::PrintLevel::Iterations,
            _ => simdnlp_solver::PrintLevel::Debug,
        },
        ..defaults
    };
    if let Some(path) = &settings.options_file {
        opts.apply_file(path)?;
    }
    for (name, value) in &settings.options {
        opts.set(name, value)?;
    }
    opts.validate()?;
    Ok(opts)
}

#[cfg(feature = "solver")]
impl SolveBackend for SimdnlpSolver {
    fn name(&self) -> &str {
        "simdnlp"
    }

    fn check(&self, settings: &SolveSettings) -> Result<(), String> {
        solver_options(settings)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn prepare(
        &self,
        model: &dyn NlpModel<f64>,
        settings: &SolveSettings,
    ) -> Result<Preparation, String> {
        let opts = solver_options(settings).map_err(|e| e.to_string())?;
        let done = simdnlp_solver::prepare_device(model, &opts).map_err(|e| e.to_string())?;
        Ok(Preparation {
            seconds: done.seconds,
            compiled: done.compiled,
            from_disk: done.from_disk,
        })
    }

    fn solve(
        &self,
        model: &dyn NlpModel<f64>,
        settings: &SolveSettings,
    ) -> Result<SolveOutcome, String> {
        let opts = solver_options(settings).map_err(|e| e.to_string())?;
        let interrupt = &settings.interrupt;
        let mut hooks = simdnlp_solver::Hooks::new().on_iteration(|_| {
            if interrupt.is_interrupted() {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        });
        let r = simdnlp_solver::solve_with(model, &opts, &mut hooks).map_err(|e| e.to_string())?;
        Ok(SolveOutcome {
            status: format!("{:?}", r.status),
            success: r.status.is_success(),
            iterations: r.iterations,
            objective: r.objective,
            times: Some(SolveTimes {
                callbacks_s: r.timings.callbacks,
                factorization_s: r.timings.factorization,
                analysis_s: r.timings.analysis,
                linsolve_s: r.timings.solves,
                rest_s: r.timings.rest,
            }),
            counts: Some(SolveCounts {
                factorizations: r.counts.factorizations,
                factorizations_inertia: r.counts.factorizations_inertia,
                factorizations_accuracy: r.counts.factorizations_accuracy,
                factorizations_pivoting: r.counts.factorizations_pivoting,
                pivoting_switches: r.counts.pivoting_switches,
                paired_repeats: r.counts.paired_repeats,
                inertia_confirmations: r.counts.inertia_confirmations,
                inertia_confirmed: r.counts.inertia_confirmed,
                solves: r.counts.solves,
                solves_refinement: r.counts.solves_refinement,
                solves_soc: r.counts.solves_soc,
                restorations: r.restorations,
                analyses: r.counts.analyses,
                delayed_pivots: r.counts.delayed_pivots,
                cg_iterations: r.counts.cg_iterations,
            }),
            bytes_per_iteration: Some(r.bytes_per_iteration),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With the solver wired: case5_pjm reaches BASELINE.md's AC objective (published to
    /// 5 significant digits, hence the 1e-4 tolerance).
    #[cfg(feature = "solver")]
    #[test]
    fn simdnlp_solves_case5_to_baseline() {
        use crate::handcoded::AcopfModel;
        use crate::opf::{OpfData, find_case};
        let m = AcopfModel::new(OpfData::read(find_case("case5_pjm").unwrap()).unwrap());
        let s = SolveSettings::default();
        let out = default_solver().unwrap().solve(&m, &s).unwrap();
        assert!(out.success, "{}", out.status);
        assert!(
            (out.objective - 1.7552e4).abs() / 1.7552e4 < 1e-4,
            "{}",
            out.objective
        );
    }
}
