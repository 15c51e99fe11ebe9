//! Setup around the algorithm: validation, NLP scaling, layout, warm starts, results.

use crate::backend::Backend;
use crate::drive::{Driver, Hooks};
use crate::evaluate::DeviceNlp;
use crate::ipm::{Exit, Ipm, KeptRestoration, Problem, Start, Unscaling, Values};
use crate::layout::Layout;
use crate::models::{FixedAsParameters, FixedOnDevice, ScaledOnDevice};
use crate::options::{DeviceKind, FixedVariableTreatment, Options};
use crate::result::{SolveResult, SolverError, Status, Timings};
use crate::size::ProblemSize;
use crate::solver_device::SolverDevice;
use crate::solver_device::sealed::DeviceSolve;
use crate::violations::{log_violations, most_violated};
use simdnlp_device::{Cpu, Device, Emu};
use simdnlp_modeling::{NlpMeta, NlpModel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Primal-dual point of a previous solve (user units), used to warm-start the next one.
#[derive(Clone, Debug)]
pub struct WarmPoint {
    x: Vec<f64>,
    y: Vec<f64>,
    z_l: Vec<f64>,
    z_u: Vec<f64>,
}

/// Backend and layout kept between solves (the symbolic analysis lives in the backend).
pub struct Cache<B: Backend> {
    be: B,
    /// The restoration problem's backend and inner-run storage of the last solve that
    /// entered restoration (same structure and options as `be`: reused by the next such
    /// solve).
    resto_be: Option<KeptRestoration<B>>,
    slack_rows: Vec<usize>,
    /// Original indices of the variables the backend sees (empty: all of them).
    free: Vec<usize>,
    n: usize,
    m: usize,
    nnzj: usize,
    nnzh: usize,
    /// Options the backend was built with (KKT kind, factorization, threads, refinement).
    key: BackendKey,
}

/// The options a backend bakes in at creation.
#[derive(Clone, Debug, PartialEq)]
struct BackendKey {
    kkt: crate::options::KktKind,
    linear_solver: crate::options::LinearSolverKind,
    cudss: (
        crate::options::CudssKind,
        bool,
        f64,
        crate::options::CudssReorderingKind,
    ),
    ordering: crate::options::OrderingKind,
    threads: usize,
    refinement: (usize, usize, f64),
    equality_relax: f64,
    hybrid_gamma: f64,
}

impl BackendKey {
    fn of(o: &Options) -> Self {
        Self {
            kkt: o.kkt,
            linear_solver: o.linear_solver,
            cudss: (
                o.cudss_factorization,
                o.cudss_pivoting,
                o.cudss_pivot_epsilon,
                o.cudss_reordering,
            ),
            ordering: o.ordering,
            threads: o.factorization_threads,
            refinement: (
                o.min_refinement_steps,
                o.max_refinement_steps,
                o.residual_ratio_max,
            ),
            equality_relax: o.equality_relax,
            hybrid_gamma: o.hybrid_gamma,
        }
    }
}

/// A persistent solver that owns its model and runs on the device `D`.
///
/// [`Solver::solve`] solves the model; after changing the model through
/// [`Solver::model_mut`] (parameter values, bounds, start), the next call reuses the KKT
/// symbolic analysis (when the set of inequality rows did not change) and warm-starts from
/// the previous primal point and multipliers with Ipopt's `warm_start_*` options.
///
/// The device is a type parameter holding the device instance: [`Solver::new`] makes a
/// `Solver<M, Cpu>`; [`Solver::on_device`] takes a device the caller opened (an `Emu`
/// with its own compiler, a `Cuda` on a chosen GPU ordinal, one device shared by several
/// solvers). The solver keeps the KKT backends (symbolic analyses) of its device only.
/// [`Options::device`] must name `D` ([`SolverDevice::KIND`]): a mismatch is
/// [`SolverError::DeviceMismatch`] from the constructor and from every solve (the free
/// functions [`solve`] and [`solve_with`] are the ones that pick the device from the
/// option).
///
/// ```
/// use std::sync::Arc;
/// use simdnlp_device::Emu;
/// use simdnlp_modeling::ModelBuilder;
/// use simdnlp_solver::{DeviceKind, Options, PrintLevel, Solver, SolverError};
///
/// let mut m = ModelBuilder::new();
/// let x = m.var(0..3).start(0.0).named("x");
/// m.minimize(0..3, |i| (x.at(i) - 1.5).powi(2));
/// let model = m.build()?;
/// let options = Options { print_level: PrintLevel::None, ..Options::default() };
/// // the CPU solver
/// let mut solver = Solver::new(model.clone(), options.clone())?;
/// assert!(solver.solve()?.status.is_success());
/// // the options must name the solver's device
/// solver.options_mut().device = DeviceKind::Emu;
/// assert!(matches!(solver.solve(), Err(SolverError::DeviceMismatch { .. })));
/// // an emulated CUDA device the caller opened (it compiles kernels with g++)
/// # if std::env::var_os("SIMDNLP_SKIP_GXX").is_some() { return Ok(()); }
/// let emu = Arc::new(Emu::new()?);
/// let options = Options { device: DeviceKind::Emu, ..options };
/// let mut on_emu = Solver::on_device(model, emu, options)?;
/// assert!(on_emu.solve()?.status.is_success());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Solver<M: NlpModel, D: SolverDevice = Cpu> {
    model: M,
    options: Options,
    device: Arc<D>,
    /// The KKT backends of the solves on `device` (symbolic analyses).
    caches: D::Caches,
    warm: Option<WarmPoint>,
    analyses: usize,
}

impl<M: NlpModel> Solver<M, Cpu> {
    /// Validate the model and options and take ownership of the model; the solver runs on
    /// the CPU. The symbolic analysis happens at the first [`Solver::solve`].
    ///
    /// # Errors
    /// [`SolverError`] for inconsistent model meta data or invalid options;
    /// [`SolverError::DeviceMismatch`] when `options.device` is not `cpu` (use
    /// [`Solver::on_device`] for another device).
    pub fn new(model: M, options: Options) -> Result<Self, SolverError> {
        Self::on_device(model, Arc::new(Cpu), options)
    }
}

impl<M: NlpModel, D: SolverDevice> Solver<M, D> {
    /// Validate the model and options and take ownership of the model; the solver runs on
    /// `device` (which others may share). The symbolic analysis happens at the first
    /// [`Solver::solve`].
    ///
    /// # Errors
    /// [`SolverError`] for inconsistent model meta data or invalid options;
    /// [`SolverError::DeviceMismatch`] when `options.device` does not name `D`.
    pub fn on_device(model: M, device: Arc<D>, options: Options) -> Result<Self, SolverError> {
        validate_on::<D>(model.meta(), &options)?;
        Ok(Self {
            model,
            options,
            device,
            caches: D::Caches::default(),
            warm: None,
            analyses: 0,
        })
    }

    /// The device the solver runs on.
    pub fn device(&self) -> &Arc<D> {
        &self.device
    }

    /// The owned model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// Mutable access to the owned model (change parameters, bounds, start). The structure
    /// (sizes, sparsity patterns) must not change.
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Mutable access to the options used by the next solve (`device` must keep naming
    /// the solver's device).
    pub fn options_mut(&mut self) -> &mut Options {
        &mut self.options
    }

    /// Number of symbolic analyses of the KKT pattern done so far (one per structure: a
    /// re-solve reuses the previous one unless the set of inequality rows changed). The
    /// restoration problem's (kept with the problem's) are in
    /// [`crate::CallbackCounts::analyses`] of each result.
    pub fn symbolic_analyses(&self) -> usize {
        self.analyses
    }

    /// Forget the previous solution: the next solve starts cold from the model's `x0`.
    pub fn clear_warm_start(&mut self) {
        self.warm = None;
    }

    /// Solve the model; every solve after the first is warm-started from the previous
    /// result (unless [`Solver::clear_warm_start`] was called).
    ///
    /// # Errors
    /// [`SolverError`] when the model data or options are invalid (a `device` that does
    /// not name `D`: [`SolverError::DeviceMismatch`]) or the KKT analysis fails;
    /// numerical failures are reported in [`SolveResult::status`].
    pub fn solve(&mut self) -> Result<SolveResult, SolverError> {
        self.solve_driven(None)
    }

    /// [`Solver::solve`] driven by `hooks`: the intermediate callback sees every
    /// iteration and the cancel token is checked once per iteration; either ends the solve
    /// with [`Status::UserRequestedStop`]. The next solve warm-starts from that result as
    /// from any other.
    ///
    /// # Errors
    /// As [`Solver::solve`].
    pub fn solve_with(&mut self, hooks: &mut Hooks<'_>) -> Result<SolveResult, SolverError> {
        self.solve_driven(Some(hooks))
    }

    fn solve_driven(&mut self, hooks: Option<&mut Hooks<'_>>) -> Result<SolveResult, SolverError> {
        validate_on::<D>(self.model.meta(), &self.options)?;
        let mut run = Run {
            user_model: &self.model,
            o: &self.options,
            warm: self.warm.as_ref(),
            analyses: &mut self.analyses,
            hooks,
        };
        let res = D::solve_on(&self.device, &mut run, &mut self.caches)?;
        self.warm = Some(WarmPoint {
            x: res.x.clone(),
            y: res.y.clone(),
            z_l: res.z_l.clone(),
            z_u: res.z_u.clone(),
        });
        Ok(res)
    }
}

/// Solve `model` once with `options`. `model` may be unsized: `solve(model_ref, ..)` with
/// `model_ref: &dyn NlpModel` works as well as a concrete model.
///
/// # Errors
/// [`SolverError`] when the model data or options are invalid or the KKT analysis fails;
/// numerical failures are reported in [`SolveResult::status`].
pub fn solve<M: NlpModel + ?Sized>(
    model: &M,
    options: &Options,
) -> Result<SolveResult, SolverError> {
    solve_driven(model, options, None)
}

/// [`solve`] driven by `hooks`: an intermediate callback that sees every
/// [`crate::IterationRecord`] and may stop the solve, and a [`crate::CancelToken`] that
/// another thread may cancel. Either ends the solve with [`Status::UserRequestedStop`]
/// and the last accepted iterate.
///
/// ```
/// use std::ops::ControlFlow;
/// use simdnlp_modeling::{NlpMeta, NlpModel};
/// use simdnlp_solver::{Hooks, Options, PrintLevel, Status, solve_with};
///
/// /// min Σ (x_i − i)⁴, unconstrained: many iterations of slow convergence
/// struct Quartic(NlpMeta<f64>);
/// impl NlpModel for Quartic {
///     fn meta(&self) -> &NlpMeta<f64> { &self.0 }
///     fn obj(&self, x: &[f64]) -> f64 {
///         x.iter().enumerate().map(|(i, v)| (v - i as f64).powi(4)).sum()
///     }
///     fn grad(&self, x: &[f64], g: &mut [f64]) {
///         for (i, (g, v)) in g.iter_mut().zip(x).enumerate() { *g = 4.0 * (v - i as f64).powi(3); }
///     }
///     fn cons(&self, _x: &[f64], _c: &mut [f64]) {}
///     fn jac_structure(&self, _r: &mut [usize], _c: &mut [usize]) {}
///     fn jac_coord(&self, _x: &[f64], _v: &mut [f64]) {}
///     fn hess_structure(&self, r: &mut [usize], c: &mut [usize]) {
///         for i in 0..r.len() { r[i] = i; c[i] = i; }
///     }
///     fn hess_coord(&self, x: &[f64], _y: &[f64], w: f64, v: &mut [f64]) {
///         for (i, (h, xi)) in v.iter_mut().zip(x).enumerate() { *h = w * 12.0 * (xi - i as f64).powi(2); }
///     }
///     fn jprod(&self, _x: &[f64], _v: &[f64], _jv: &mut [f64]) {}
///     fn jtprod(&self, _x: &[f64], _v: &[f64], jtv: &mut [f64]) { jtv.fill(0.0); }
///     fn hprod(&self, x: &[f64], _y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
///         for i in 0..v.len() { hv[i] = w * 12.0 * (x[i] - i as f64).powi(2) * v[i]; }
///     }
/// }
///
/// let mut meta = NlpMeta::new(3, 0);
/// meta.nnzh = 3;
/// let options = Options { print_level: PrintLevel::None, ..Options::default() };
/// let mut objectives = Vec::new();
/// let mut hooks = Hooks::new().on_iteration(|record| {
///     objectives.push(record.objective);
///     if record.iter == 3 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
/// });
/// let result = solve_with(&Quartic(meta), &options, &mut hooks)?;
/// drop(hooks);
/// assert_eq!(result.status, Status::UserRequestedStop);
/// assert_eq!((result.iterations, objectives.len()), (3, 4));
/// # Ok::<(), simdnlp_solver::SolverError>(())
/// ```
///
/// # Errors
/// As [`solve`].
pub fn solve_with<M: NlpModel + ?Sized>(
    model: &M,
    options: &Options,
    hooks: &mut Hooks<'_>,
) -> Result<SolveResult, SolverError> {
    solve_driven(model, options, Some(hooks))
}

fn solve_driven<M: NlpModel + ?Sized>(
    model: &M,
    options: &Options,
    hooks: Option<&mut Hooks<'_>>,
) -> Result<SolveResult, SolverError> {
    validate(model.meta(), options)?;
    let warm = options.warm_start_init_point.then(|| {
        let meta = model.meta();
        WarmPoint {
            x: meta.x0.clone(),
            y: meta.y0.clone(),
            z_l: vec![options.bound_mult_init_val; meta.nvar],
            z_u: vec![options.bound_mult_init_val; meta.nvar],
        }
    });
    // `&M` is a sized model (the blanket impl in `simdnlp_modeling`), so an unsized `M`
    // such as `dyn NlpModel` reaches the `&dyn NlpModel` below as well.
    let mut analyses = 0;
    let mut run = Run {
        user_model: &model,
        o: options,
        warm: warm.as_ref(),
        analyses: &mut analyses,
        hooks,
    };
    match options.device {
        DeviceKind::Cpu => Cpu::solve_on(&Arc::new(Cpu), &mut run, &mut Default::default()),
        DeviceKind::Emu => Emu::solve_on(&emulated_device()?, &mut run, &mut Default::default()),
        DeviceKind::Cuda => solve_on_process_cuda(&mut run),
    }
}

/// `device = cuda` for the free functions: the CUDA device (ordinal 0) of this process.
#[cfg(feature = "cuda")]
fn solve_on_process_cuda(run: &mut Run<'_, '_>) -> Result<SolveResult, SolverError> {
    let (device, _) = cuda_device()?;
    simdnlp_device::Cuda::solve_on(&device, run, &mut Default::default())
}

/// `device = cuda` in a build without the feature: a typed error.
#[cfg(not(feature = "cuda"))]
fn solve_on_process_cuda(_run: &mut Run<'_, '_>) -> Result<SolveResult, SolverError> {
    Err(no_cuda())
}

/// The emulated CUDA device of this process, once opened.
static EMU: Mutex<Option<Arc<Emu>>> = Mutex::new(None);

/// The emulated CUDA device of this process: its kernels are compiled by the first call
/// that succeeds and shared by every later solve (as a CUDA context is per process).
///
/// # Errors
/// [`SolverError::Device`] naming the device and the cause when the kernels cannot be
/// compiled (no C++ compiler, a compile error).
fn emulated_device() -> Result<Arc<Emu>, SolverError> {
    open_emulated_device().map(|(emu, _)| emu)
}

/// [`emulated_device`], and the number of modules the device had built when this call
/// opened it (its interior-point kernels; `None`: it was open already).
fn open_emulated_device() -> Result<(Arc<Emu>, Option<usize>), SolverError> {
    let mut slot = EMU.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(emu) = slot.as_ref() {
        return Ok((Arc::clone(emu), None));
    }
    let emu = Arc::new(Emu::new()?);
    // read before the device is shared: no other thread can have loaded a module yet
    let built = emu.module_builds().len();
    *slot = Some(Arc::clone(&emu));
    Ok((emu, Some(built)))
}

/// What [`prepare_device`] did: the kernel modules it made ready and how long that took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DevicePreparation {
    /// Wall time of the whole preparation (s): opening the device when this process had
    /// not yet (its interior-point kernels included, and cuDSS on `cuda`) and loading the
    /// model's kernel module.
    pub seconds: f64,
    /// Modules compiled now (interior-point kernels, the model's kernels).
    pub compiled: usize,
    /// Modules read from the on-disk kernel cache instead (no compiler ran).
    pub from_disk: usize,
}

/// Open the device `options.device` names and compile `model`'s kernels there, ahead of
/// [`solve`]: the process's device and its in-process module cache are what the solve
/// then uses, so the solve itself compiles nothing (`cpu`: nothing to do). For a
/// pattern-based model on `emu` and `cuda` this compiles the interior-point kernels (the
/// first time in the process) and the model's emitted module — or reads them from the
/// on-disk kernel cache (`SIMDNLP_KERNEL_CACHE`, see `simdnlp_device::KernelCache`). On
/// `cuda` it also loads cuDSS and creates (and drops) one cuDSS handle, so that cuDSS's
/// own first-use set-up is not counted in the first solve. Benchmarks call it to report
/// compile time apart from solve time.
///
/// # Errors
/// As [`solve`] would fail opening the device or compiling the kernels:
/// [`SolverError::Device`], [`SolverError::DeviceModel`] (a user function without a CUDA
/// body, a compile error), [`SolverError::Linalg`] when cuDSS cannot be loaded.
pub fn prepare_device(
    model: &dyn NlpModel,
    options: &Options,
) -> Result<DevicePreparation, SolverError> {
    let started = Instant::now();
    let (builds, made) = match options.device {
        DeviceKind::Cpu => (Vec::new(), Vec::new()),
        DeviceKind::Emu => {
            let (device, opened) = open_emulated_device()?;
            let mut made: Vec<usize> = (0..opened.unwrap_or(0)).collect();
            if let Some(model) = model.as_pattern_model() {
                let loaded = device.module_builds().len();
                made.extend(load_model_module(&*device, model, loaded)?);
            }
            (device.module_builds(), made)
        }
        DeviceKind::Cuda => prepare_cuda(model)?,
    };
    let made = || made.iter().filter_map(|&m| builds.get(m));
    Ok(DevicePreparation {
        seconds: started.elapsed().as_secs_f64(),
        compiled: made().filter(|b| !b.from_disk).count(),
        from_disk: made().filter(|b| b.from_disk).count(),
    })
}

/// Loads `model`'s emitted module on `device` and returns its index among the device's
/// module builds when this call built it: modules are numbered in load order, so a module
/// numbered `loaded` or above was loaded after the caller counted `loaded` builds (by
/// this call; the process's device is shared, and modules other threads load meanwhile
/// are not this call's), while a module loaded before keeps its lower number.
fn load_model_module<R: simdnlp_device::KernelRuntime>(
    device: &R,
    model: &simdnlp_modeling::Model<f64>,
    loaded: usize,
) -> Result<Option<usize>, SolverError> {
    let source = simdnlp_modeling::cuda_module_source(model)?;
    let module = device.load_module(&source)?;
    Ok((module.0 >= loaded).then_some(module.0))
}

/// [`prepare_device`] on `cuda`: the device's module builds and the indices of those this
/// call made (see [`load_model_module`]).
#[cfg(feature = "cuda")]
fn prepare_cuda(
    model: &dyn NlpModel,
) -> Result<(Vec<simdnlp_device::ModuleBuild>, Vec<usize>), SolverError> {
    let (device, opened) = open_cuda_device()?;
    let library = cudss_library()?;
    let mut made: Vec<usize> = (0..opened.unwrap_or(0)).collect();
    if let Some(model) = model.as_pattern_model() {
        let loaded = device.module_builds().len();
        made.extend(load_model_module(&*device, model, loaded)?);
    }
    // a throwaway cuDSS handle: whatever cuDSS initializes at its first handle of the
    // process (its own CUDA state) happens here rather than in the first solve
    drop(simdnlp_linalg::cudss::CudssOnCuda::new(
        Arc::clone(&device),
        library,
        simdnlp_linalg::cudss::CudssOptions::default(),
    )?);
    Ok((device.module_builds(), made))
}

/// [`prepare_device`] on `cuda` without the feature: the error the solve would give.
#[cfg(not(feature = "cuda"))]
fn prepare_cuda(
    _model: &dyn NlpModel,
) -> Result<(Vec<simdnlp_device::ModuleBuild>, Vec<usize>), SolverError> {
    Err(no_cuda())
}

/// What one solve needs besides its device, evaluator and backend.
pub struct Run<'r, 'h> {
    /// The user's model on the host.
    pub(crate) user_model: &'r dyn NlpModel,
    /// The options of the solve.
    pub(crate) o: &'r Options,
    /// The point to warm-start from.
    pub(crate) warm: Option<&'r WarmPoint>,
    /// Counts the symbolic analyses of the problem's KKT backend.
    pub(crate) analyses: &'r mut usize,
    /// The intermediate callback and the cancel token.
    pub(crate) hooks: Option<&'r mut Hooks<'h>>,
}

impl Run<'_, '_> {
    /// [`solve_impl`] on `device` with `evaluator`, reusing the cached backend or making
    /// one with `make`.
    pub(crate) fn solve<D: Device, B: Backend<Device = D, Vector = D::Vector, Index = D::Index>>(
        &mut self,
        device: &Arc<D>,
        evaluator: &dyn DeviceNlp<D>,
        cache: &mut Option<Cache<B>>,
        make: impl FnOnce(Arc<D>, &dyn DeviceNlp<D>, &Layout) -> Result<B, SolverError>,
    ) -> Result<SolveResult, SolverError> {
        solve_impl(self, device, evaluator, cache, make)
    }
}

/// The error of `device = cuda` in a build without the feature.
#[cfg(not(feature = "cuda"))]
fn no_cuda() -> SolverError {
    SolverError::Device(simdnlp_device::DeviceError::Unavailable {
        device: "cuda",
        reason: "this build has no CUDA device: enable the `cuda` feature (simdnlp/cuda, \
                 simdnlp-solver/cuda or simdnlp-bench/cuda)"
            .into(),
    })
}

/// The CUDA device (ordinal 0) of this process, once opened.
#[cfg(feature = "cuda")]
static CUDA: Mutex<Option<Arc<simdnlp_device::Cuda>>> = Mutex::new(None);

/// The cuDSS library of this process, once loaded.
#[cfg(feature = "cuda")]
static CUDSS: Mutex<Option<Arc<simdnlp_linalg::cudss::CudssLibrary>>> = Mutex::new(None);

/// The CUDA device (ordinal 0) and the cuDSS library of this process: opened by the first
/// call that succeeds and shared by every later solve of the free functions (a CUDA
/// context is per process).
///
/// # Errors
/// [`SolverError::Device`] when the driver, the GPU or NVRTC is missing or the kernels do
/// not compile; [`SolverError::Linalg`] when cuDSS cannot be loaded (the message names
/// `SIMDNLP_CUDSS_LIB` and every library tried).
#[cfg(feature = "cuda")]
fn cuda_device() -> Result<
    (
        Arc<simdnlp_device::Cuda>,
        Arc<simdnlp_linalg::cudss::CudssLibrary>,
    ),
    SolverError,
> {
    let (cuda, _) = open_cuda_device()?;
    Ok((cuda, cudss_library()?))
}

/// The CUDA device of [`cuda_device`], and the number of modules it had built when this
/// call opened it (its interior-point kernels; `None`: it was open already).
///
/// # Errors
/// [`SolverError::Device`] when the driver, the GPU or NVRTC is missing or the kernels do
/// not compile.
#[cfg(feature = "cuda")]
fn open_cuda_device() -> Result<(Arc<simdnlp_device::Cuda>, Option<usize>), SolverError> {
    let mut slot = CUDA.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(cuda) = slot.as_ref() {
        return Ok((Arc::clone(cuda), None));
    }
    let cuda = Arc::new(simdnlp_device::Cuda::new(0)?);
    // read before the device is shared: no other thread can have loaded a module yet
    let built = cuda.module_builds().len();
    *slot = Some(Arc::clone(&cuda));
    Ok((cuda, Some(built)))
}

/// The cuDSS library of this process (`SIMDNLP_CUDSS_LIB` or the usual names), loaded by
/// the first call that succeeds and shared by every solve on a `Cuda` device.
///
/// # Errors
/// [`SolverError::Linalg`] when cuDSS cannot be loaded (the message names
/// `SIMDNLP_CUDSS_LIB` and every library tried).
#[cfg(feature = "cuda")]
pub(crate) fn cudss_library() -> Result<Arc<simdnlp_linalg::cudss::CudssLibrary>, SolverError> {
    let mut slot = CUDSS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(library) = slot.as_ref() {
        return Ok(Arc::clone(library));
    }
    let library = simdnlp_linalg::cudss::CudssLibrary::load_from_env()
        .map_err(simdnlp_linalg::LinalgError::from)?;
    Ok(Arc::clone(slot.insert(library)))
}

/// The model's meta data and the options, checked before a solve on the device `D`.
fn validate_on<D: SolverDevice>(meta: &NlpMeta<f64>, options: &Options) -> Result<(), SolverError> {
    validate(meta, options)?;
    if options.device != D::KIND {
        return Err(SolverError::DeviceMismatch {
            options: options.device,
            solver: D::KIND,
        });
    }
    Ok(())
}

/// The model's meta data and the options, checked before a solve.
fn validate(meta: &NlpMeta<f64>, options: &Options) -> Result<(), SolverError> {
    meta.validate()?;
    options.validate()?;
    Ok(())
}

/// Gradient-based scaling factors at `x` (Ipopt's `nlp_scaling_method gradient-based`).
fn scaling(model: &dyn NlpModel, x: &[f64], o: &Options) -> (f64, Vec<f64>) {
    let meta = model.meta();
    let mut dc = vec![1.0; meta.ncon];
    if !o.nlp_scaling {
        return (1.0, dc);
    }
    let gmax = o.nlp_scaling_max_gradient;
    let factor = |norm: f64| -> f64 {
        if norm.is_finite() && norm > gmax {
            (gmax / norm).max(o.nlp_scaling_min_value)
        } else {
            1.0
        }
    };
    let mut g = vec![0.0; meta.nvar];
    model.grad(x, &mut g);
    let sf = factor(g.iter().fold(0.0f64, |m, v| m.max(v.abs())));
    let mut rows = vec![0; meta.nnzj];
    let mut cols = vec![0; meta.nnzj];
    let mut vals = vec![0.0; meta.nnzj];
    model.jac_structure(&mut rows, &mut cols);
    model.jac_coord(x, &mut vals);
    let mut rmax = vec![0.0f64; meta.ncon];
    for (&r, v) in rows.iter().zip(&vals) {
        if r < meta.ncon {
            rmax[r] = if v.is_finite() {
                rmax[r].max(v.abs())
            } else {
                f64::NAN
            };
        }
    }
    for (d, r) in dc.iter_mut().zip(&rmax) {
        *d = factor(*r);
    }
    (sf, dc)
}

/// One solve of `run` on `device`: `run.user_model` is the user's model on the host (setup,
/// results), `user_evaluator` the same model evaluated on the device's vectors (the
/// iterations); the backend is `cache`'s when it fits, else made by `make_backend`.
fn solve_impl<D: Device, B: Backend<Device = D, Vector = D::Vector, Index = D::Index>>(
    run: &mut Run<'_, '_>,
    device: &Arc<D>,
    user_evaluator: &dyn DeviceNlp<D>,
    cache: &mut Option<Cache<B>>,
    make_backend: impl FnOnce(Arc<D>, &dyn DeviceNlp<D>, &Layout) -> Result<B, SolverError>,
) -> Result<SolveResult, SolverError> {
    let (user_model, o, warm) = (run.user_model, run.o, run.warm);
    let analyses = &mut *run.analyses;
    let hooks = run.hooks.take();
    let t_start = Instant::now();
    // the log goes to stderr when the program installed no tracing subscriber
    let _log = crate::stderr_log::fallback(o.print_level);
    crate::derivative_check::log_before_solve(user_model, o);
    let user_meta = user_model.meta();
    let size = ProblemSize::of(user_model);
    size.log_header(o.print_level);
    let n_user = user_meta.nvar;
    let n_eq = (0..user_meta.ncon)
        .filter(|&j| user_meta.lcon[j] == user_meta.ucon[j])
        .count();
    let n_free = (0..n_user)
        .filter(|&i| user_meta.lvar[i] != user_meta.uvar[i])
        .count();
    // Starting x (user units), projected into the variable bounds (for the scaling, and
    // fixed variables at their value).
    let x_user: Vec<f64> = match warm {
        Some(w) if w.x.len() == n_user => w.x.clone(),
        _ => user_meta.x0.clone(),
    };
    let mut x_proj = x_user.clone();
    for i in 0..n_user {
        let (l, u) = (user_meta.lvar[i], user_meta.uvar[i]);
        x_proj[i] = x_proj[i].max(l).min(u);
    }
    if n_eq > n_free {
        let mut res = trivial_result(
            user_model,
            &x_proj,
            Status::NotEnoughDegreesOfFreedom,
            t_start,
        );
        res.size = size;
        return Ok(res);
    }
    // Fixed variables become parameters: the solver works on the free ones only.
    let reduced = match o.fixed_variable_treatment {
        FixedVariableTreatment::MakeParameter => FixedAsParameters::new(user_model),
        FixedVariableTreatment::RelaxBounds => None,
    };
    let model: &dyn NlpModel = match &reduced {
        Some(r) => r,
        None => user_model,
    };
    let free: &[usize] = reduced.as_ref().map_or(&[], |r| r.free());
    // a full-length vector restricted to the variables the solver sees
    let restrict = |v: &[f64]| -> Vec<f64> {
        match &reduced {
            Some(r) => r.restrict(v),
            None => v.to_vec(),
        }
    };
    let meta = model.meta();
    let (n, m) = (meta.nvar, meta.ncon);
    let x_user = restrict(&x_user);
    // Ipopt evaluates the gradients for the scaling at the user's start as given
    // (`nlp_scaling_at_user_start`); by default here at the start projected into the bounds
    let x_scaling = if o.nlp_scaling_at_user_start {
        None
    } else {
        Some(restrict(&x_proj))
    };
    let (sf, dc) = scaling(model, x_scaling.as_deref().unwrap_or(&x_user), o);
    let obj_scale = if meta.minimize { sf } else { -sf };
    // the same chain on the device: fixed variables as parameters, then scaling
    let reduced_on_device = match &reduced {
        Some(r) => Some(FixedOnDevice::new(&**device, user_evaluator, r)?),
        None => None,
    };
    let evaluator: &dyn DeviceNlp<D> = match &reduced_on_device {
        Some(r) => r,
        None => user_evaluator,
    };
    let scaled = ScaledOnDevice::new(&**device, evaluator, obj_scale, &dc)?;
    let lay = Layout::new(scaled.meta(), o);
    let nw = lay.nw();
    // Reuse the backend (symbolic analysis) when the structure is the same.
    let key = BackendKey::of(o);
    let reuse = matches!(cache, Some(c) if c.slack_rows == lay.slack_rows && c.free == free
        && c.n == n && c.m == m && c.nnzj == meta.nnzj && c.nnzh == meta.nnzh && c.key == key);
    let t_analysis = Instant::now();
    if !reuse {
        *analyses += 1;
        *cache = Some(Cache {
            be: make_backend(Arc::clone(device), &scaled, &lay)?,
            resto_be: None,
            slack_rows: lay.slack_rows.clone(),
            free: free.to_vec(),
            n,
            m,
            nnzj: meta.nnzj,
            nnzh: meta.nnzh,
            key,
        });
    }
    let analysis = t_analysis.elapsed().as_secs_f64();
    let Some(cache) = cache.as_mut() else {
        return Err(SolverError::Linalg(
            simdnlp_linalg::LinalgError::InvalidState("KKT backend missing after setup".into()),
        ));
    };
    let be = &mut cache.be;
    be.set_rhs(&lay.rhs);
    let (c0, t0) = be.counters();
    let analysis0 = be.analysis_seconds();
    let asf = sf;
    let mut dual_unscale = vec![1.0 / asf; nw];
    for (k, &j) in lay.slack_rows.iter().enumerate() {
        dual_unscale[n + k] = dc[j] / asf;
    }
    let viol_unscale: Vec<f64> = dc.iter().map(|d| 1.0 / d).collect();
    let mut w0 = vec![0.0; nw];
    w0[..n].copy_from_slice(&x_user);
    let start = match warm {
        Some(wp) if wp.y.len() == m && wp.z_l.len() == n_user && wp.z_u.len() == n_user => {
            let (wp_zl, wp_zu) = (restrict(&wp.z_l), restrict(&wp.z_u));
            let ys: Vec<f64> = (0..m).map(|j| wp.y[j] * asf / dc[j]).collect();
            let mut zl = vec![0.0; nw];
            let mut zu = vec![0.0; nw];
            for i in 0..n {
                zl[i] = wp_zl[i] * asf;
                zu[i] = wp_zu[i] * asf;
            }
            for (k, &j) in lay.slack_rows.iter().enumerate() {
                zl[n + k] = (-ys[j]).max(0.0);
                zu[n + k] = ys[j].max(0.0);
            }
            Start {
                w: Values::Host(w0),
                compute_slacks: true,
                y: Some(Values::Host(ys)),
                zl: Some(Values::Host(zl)),
                zu: Some(Values::Host(zu)),
                z_min: o.warm_start_mult_bound_push,
                mu: o.warm_start_mu_init,
                push: (o.warm_start_bound_push, o.warm_start_bound_frac),
                slack_push: (o.warm_start_slack_bound_push, o.warm_start_slack_bound_frac),
            }
        }
        _ => Start {
            w: Values::Host(w0),
            compute_slacks: true,
            y: None,
            zl: None,
            zu: None,
            z_min: 0.0,
            mu: o.mu_init,
            push: (o.bound_push, o.bound_frac),
            slack_push: (o.slack_bound_push, o.slack_bound_frac),
        },
    };
    let spare = cache.resto_be.take();
    let problem = Problem {
        device: &**device,
        model: &scaled,
        layout: &lay,
        obj_scale,
    };
    let unscaling = Unscaling {
        dual: &dual_unscale,
        viol: &viol_unscale,
    };
    let mut ipm = Ipm::new(be, problem, o, unscaling, "")?;
    // this thread's share: a process-wide device may serve other solves at the same time
    let bytes_before = device.transferred_bytes_on_this_thread();
    let transfer_counter = || device.transferred_bytes_on_this_thread();
    let mut driver = Driver::new(
        hooks,
        o.keep_history,
        o.max_iter.saturating_add(1).min(MAX_HISTORY_RESERVE),
    );
    driver.count_transfers(&transfer_counter);
    ipm.adopt_restoration(spare);
    let exit = ipm.run(&start, None, &mut driver)?;
    ipm.backend().synchronize()?;
    let bytes_per_iteration = driver.bytes_per_iteration().unwrap_or(0.0);
    let bytes_transferred = device
        .transferred_bytes_on_this_thread()
        .saturating_sub(bytes_before);
    let status = match exit {
        Exit::Done(s) => s,
        Exit::RestorationAccepted => Status::RestorationFailed,
    };
    // ---- results in user units
    let mut wh = vec![0.0; nw];
    let be = ipm.backend();
    be.to_host(&ipm.iterate.w, &mut wh)?;
    let mut yh = vec![0.0; m];
    be.to_host(&ipm.iterate.y, &mut yh)?;
    let mut zlc = vec![0.0; lay.lower_idx.len()];
    let mut zuc = vec![0.0; lay.upper_idx.len()];
    be.to_host(&ipm.iterate.zl, &mut zlc)?;
    be.to_host(&ipm.iterate.zu, &mut zuc)?;
    let y: Vec<f64> = (0..m).map(|j| yh[j] * dc[j] / asf).collect();
    // x and the bound multipliers in user indices (fixed variables at their value, their
    // multipliers set by `fixed::finish`)
    let user_index = |i: usize| if free.is_empty() { i } else { free[i] };
    let mut x = x_proj.clone();
    for i in 0..n {
        x[user_index(i)] = wh[i];
    }
    let mut z_l = vec![0.0; n_user];
    let mut z_u = vec![0.0; n_user];
    for (k, &i) in lay.lower_idx.iter().enumerate() {
        if i < n {
            z_l[user_index(i)] = zlc[k] / asf;
        }
    }
    for (k, &i) in lay.upper_idx.iter().enumerate() {
        if i < n {
            z_u[user_index(i)] = zuc[k] / asf;
        }
    }
    crate::fixed::finish(user_model, &mut x, &y, &mut z_l, &mut z_u);
    let iterations = ipm.iter;
    let restorations = ipm.restorations;
    let mu = ipm.mu;
    let dual_inf = ipm.dual_inf_u;
    let mut counts = ipm.resto_counts;
    counts.analyses = usize::from(!reuse) + ipm.resto_backends;
    let rt = ipm.resto_times;
    let resto_be = ipm.take_restoration();
    // the restoration problem's analysis: its backend's making (outside its counters) and
    // an analysis inside its factorizations (in `rt`)
    let resto_setup = ipm.resto_setup;
    let resto_analysis = ipm.resto_analysis;
    drop(ipm);
    cache.resto_be = resto_be;
    let (c1, t1) = cache.be.counters();
    let analysis_inside = cache.be.analysis_seconds() - analysis0;
    counts += c1.since(&c0);
    let mut constraints = vec![0.0; m];
    user_model.cons(&x, &mut constraints);
    let objective = user_model.obj(&x);
    let constr_viol = constraint_violation(user_meta, &x, &constraints);
    let violations = if status.is_success() {
        Vec::new()
    } else {
        most_violated(user_model, &x, &constraints, o.constr_viol_tol)
    };
    let total = t_start.elapsed().as_secs_f64();
    let mut phases = t1.since(&t0);
    phases += rt;
    let callbacks = phases.callbacks;
    let factorization = phases.factorization + analysis + resto_setup;
    let solves = phases.solves;
    let timings = Timings {
        callbacks,
        factorization,
        analysis: analysis + analysis_inside + resto_analysis,
        solves,
        rest: (total - callbacks - factorization - solves).max(0.0),
        total,
    };
    let res = SolveResult {
        status,
        objective,
        x,
        y,
        z_l,
        z_u,
        constraints,
        iterations,
        restorations,
        constr_viol,
        dual_inf,
        mu,
        timings,
        counts,
        history: driver.history.unwrap_or_default(),
        size,
        violations,
        bytes_transferred,
        bytes_per_iteration,
    };
    crate::summary::log_summary(o.print_level, &user_meta.name, &res);
    log_violations(o.print_level, &res.violations);
    Ok(res)
}

/// Most history records reserved up front (`keep_history`); longer solves grow the vector.
const MAX_HISTORY_RESERVE: usize = 100_000;

/// Unscaled ∞-norm of the violation of the rows (`constraints` = `c(x)`) and of the variable
/// bounds at `x`.
fn constraint_violation(meta: &NlpMeta<f64>, x: &[f64], constraints: &[f64]) -> f64 {
    let rows = constraints
        .iter()
        .zip(meta.lcon.iter().zip(&meta.ucon))
        .map(|(&c, (&l, &u))| (l - c).max(c - u).max(0.0));
    let bounds = x
        .iter()
        .zip(meta.lvar.iter().zip(&meta.uvar))
        .map(|(&xi, (&l, &u))| (l - xi).max(xi - u).max(0.0));
    rows.chain(bounds).fold(0.0f64, f64::max)
}

/// The result of a solve that ends before its first iteration, at `x` with zero
/// multipliers: its metrics are those of that point (the dual infeasibility of zero
/// multipliers is `‖∇f(x)‖∞`).
fn trivial_result(model: &dyn NlpModel, x: &[f64], status: Status, t: Instant) -> SolveResult {
    let meta = model.meta();
    let mut constraints = vec![0.0; meta.ncon];
    model.cons(x, &mut constraints);
    let mut gradient = vec![0.0; meta.nvar];
    model.grad(x, &mut gradient);
    let constr_viol = constraint_violation(meta, x, &constraints);
    SolveResult {
        status,
        objective: model.obj(x),
        x: x.to_vec(),
        y: vec![0.0; meta.ncon],
        z_l: vec![0.0; meta.nvar],
        z_u: vec![0.0; meta.nvar],
        constraints,
        iterations: 0,
        restorations: 0,
        constr_viol,
        dual_inf: gradient.iter().fold(0.0f64, |a, g| a.max(g.abs())),
        mu: 0.0,
        timings: Timings {
            total: t.elapsed().as_secs_f64(),
            ..Timings::default()
        },
        counts: Default::default(),
        history: Vec::new(),
        size: ProblemSize::default(),
        violations: Vec::new(),
        bytes_transferred: 0,
        bytes_per_iteration: 0.0,
    }
}
