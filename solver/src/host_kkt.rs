//! The interior-point backend over a device whose buffers are host memory ([`Cpu`] and the
//! emulated CUDA device [`simdnlp_device::Emu`]): vectors and kernels of the device, the
//! model evaluated into device vectors through [`DeviceNlp`] (the Jacobian and Hessian
//! values are kept in device vectors), and the KKT system (assembly, faer factorizations
//! through [`simdnlp_linalg`], iterative refinement) on the host slices of the device's
//! vectors. The per-iteration vector work outside the KKT system (the residual's
//! right-hand side and slack terms, the gradient's slack part, slack initialization and
//! `Jᵀ y`) runs as device kernels on index lists and scratch vectors made at setup.
//!
//! A device failure while evaluating the model makes the value NaN (a rejected point) and is
//! reported by the next [`Backend::synchronize`].
//!
//! The backend reads and writes the device's vectors in place ([`HostBuffers`]) without
//! synchronizing first, so the device must finish a kernel before its method returns
//! (both devices above do). Kernel failures are collected by the device and reported once
//! per iteration through [`Backend::synchronize`].
//!
//! [`Cpu`]: simdnlp_device::Cpu

use crate::backend::{Backend, KktStatus};
use crate::evaluate::DeviceNlp;
use crate::layout::Layout;
use crate::options::{KktKind, LinearSolverKind, Options, OrderingKind};
use crate::result::{CallbackCounts, SolverError};
use simdnlp_device::{Device, HostBuffers, SegmentPlan, Segments};
use simdnlp_linalg::condensed::CondensedKkt;
use simdnlp_linalg::ordering::{FillMethod, FillOrdering};
use simdnlp_linalg::refine::DEFAULT_KRYLOV_DIM;
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    CondensedValues, DeviceCondensedKkt, FactorStatus, FaerLblt, FaerLdlt, FaerLlt, KktBuilder,
    Parallelism, RefineOptions, RefineSystem, RefineWork, SymAssembly, SymmetricSolver,
    refine_system,
};
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Instant;

/// The augmented or condensed KKT machinery of the backend.
enum Kkt<D: Device> {
    /// `[[W + Σ + δw, Jᵀ], [J, −δc]]` over `(w, y)`.
    Augmented {
        asm: SymAssembly,
        /// Constant −1 values of the slack columns of `J`.
        minus_ones: Vec<f64>,
    },
    /// `K = W + Σx + δw + Jᵀ D J` over `x`, every row carrying a slack (row `j` has slack
    /// `j`), with `D = Σ'/(1 + δc Σ')`, `Σ' = Σs + δw`: assembled, reduced and expanded
    /// by the device kernels of [`DeviceCondensedKkt`].
    Condensed(Box<CondensedOnDevice<D>>),
}

/// The condensed system's vectors on the device: plans, the values the kernels read
/// (mirrored from the host Hessian, Jacobian and diagonal at each factorization), `K`'s
/// values, and the parts of a right-hand side while it is reduced and expanded.
struct CondensedOnDevice<D: Device> {
    plans: DeviceCondensedKkt<D>,
    /// Hessian values `W` (or zeros without the Hessian), length nnzh.
    hess: D::Vector,
    /// Jacobian values, length nnzj.
    jac: D::Vector,
    /// `Σx + δw`, length n.
    sigma_x: D::Vector,
    /// `Σ' = Σs + δw`, length m.
    sigma_s: D::Vector,
    /// `q = 1/(1 + δc Σ')` and `D = Σ' q`, length m.
    q: D::Vector,
    d: D::Vector,
    /// δc of the last factorization.
    delta_c: f64,
    /// `K`'s values (lower CSC order of the pattern).
    kvals: D::Vector,
    /// Right-hand side parts `(bx, bs, by)` and solution parts `(dx, ds, dy)`.
    bx: D::Vector,
    bs: D::Vector,
    by: D::Vector,
    dx: D::Vector,
    ds: D::Vector,
    dy: D::Vector,
}

impl<D: Device> CondensedOnDevice<D> {
    fn new(
        device: &D,
        pattern: &CondensedKkt,
        jrows: &[usize],
        jcols: &[usize],
        nnzh: usize,
    ) -> Result<Self, SolverError> {
        let (n, m) = (pattern.n(), pattern.m());
        Ok(Self {
            plans: DeviceCondensedKkt::new(device, pattern, jrows, jcols)?,
            hess: device.zeros(nnzh)?,
            jac: device.zeros(jrows.len())?,
            sigma_x: device.zeros(n)?,
            sigma_s: device.zeros(m)?,
            q: device.zeros(m)?,
            d: device.zeros(m)?,
            delta_c: 0.0,
            kvals: device.zeros(pattern.nnz())?,
            bx: device.zeros(n)?,
            bs: device.zeros(m)?,
            by: device.zeros(m)?,
            dx: device.zeros(n)?,
            ds: device.zeros(m)?,
            dy: device.zeros(m)?,
        })
    }
}

/// [`Backend`] on a device `D` whose vectors are host memory: vector algebra and the
/// interior-point kernels run on `D`, the model on `D`'s vectors ([`DeviceNlp`]), the KKT
/// algorithm on the host slices of `D`'s vectors.
pub struct HostKktBackend<D: Device + HostBuffers> {
    /// The device, shared with the backends of restoration problems
    /// ([`Backend::for_model`]).
    device: Arc<D>,
    n: usize,
    m: usize,
    nw: usize,
    slack_rows: Vec<usize>,
    /// Equality right-hand sides `b` (device vector, length m).
    rhs: D::Vector,
    /// Rows of the slacks (device index, length ns): slack `k` belongs to row
    /// `slack_rows[k]`.
    slack_rows_dev: D::Index,
    /// Positions `n..nw` of the slacks in `w` (device index, length ns).
    slack_pos: D::Index,
    /// Zeros, length ns (clears the slack part of the gradient).
    slack_zeros: D::Vector,
    /// Scratch of length ns for the slack kernels; a `RefCell` because [`Backend::jt_mul`]
    /// takes `&self` (borrowed only inside one kernel sequence, never re-entered).
    slack_scratch: RefCell<D::Vector>,
    jrows: Vec<usize>,
    jcols: Vec<usize>,
    /// The Jacobian's COO entries grouped by column (target = column of `w`, length nw,
    /// slack columns empty; partner = row), in COO order within a column: `Jᵀ y` by
    /// [`Device::seg_spmv`].
    jac_by_col: Segments<D::Index>,
    /// Jacobian values of the model (device vector, read on the host).
    jvals: D::Vector,
    hrows: Vec<usize>,
    hcols: Vec<usize>,
    /// Hessian values of the model (device vector, read on the host).
    hvals: D::Vector,
    /// Zero Hessian values, assembled instead of `hvals` when a factorization asks for no
    /// Hessian (the least-squares multiplier estimate).
    hzero: Vec<f64>,
    hess_used: bool,
    /// Model row values `c(x)` (slack initialization).
    cbuf: D::Vector,
    /// The first device failure of a model evaluation since the last
    /// [`Backend::synchronize`] (which reports it).
    eval_error: Cell<Option<SolverError>>,
    kkt: Kkt<D>,
    solver: Box<dyn SymmetricSolver>,
    /// Bunch–Kaufman LBLᵀ of the augmented matrix, built on first need when the configured
    /// LDLᵀ (no pivoting) leaves a solve inaccurate ([`Backend::kkt_increase_quality`]).
    pivoting: Option<Box<dyn SymmetricSolver>>,
    /// Factorize and solve with `pivoting` instead of `solver`.
    use_pivoting: bool,
    /// `pivoting` was already tried in this step.
    pivoting_tried: bool,
    /// What `solver` last factorized in this step: `(δ_w, δ_c, hessian)` and the status it
    /// gave (`None` when its factor is not of this step or not valid). Within a step Σ, the
    /// Hessian and the Jacobian values are fixed ([`Backend::kkt_reset_quality`] starts a
    /// step; a new Hessian or Jacobian clears it too), so equal parameters mean the same
    /// matrix: a rejected LBLᵀ attempt on it goes back to that LDLᵀ factor instead of
    /// computing it again.
    solver_matrix: Option<((f64, f64, bool), FactorStatus)>,
    /// A factorization happened since the step began ([`Backend::kkt_reset_quality`]):
    /// the next one is a repeat (inertia correction or accuracy), for the counts.
    factorized_in_step: bool,
    /// The current factorization already solved a right-hand side: the next one is a
    /// second-order correction, for the counts.
    solved_since_factorization: bool,
    /// [`Backend::kkt_increase_quality`] switched to `pivoting`: the next factorization is
    /// the LBLᵀ repeat of the same matrix, for the counts.
    pivoting_requested: bool,
    linear_solver: LinearSolverKind,
    factorization_threads: usize,
    ordering: OrderingKind,
    kvals: Vec<f64>,
    diag_w: Vec<f64>,
    diag_c: Vec<f64>,
    /// Solution and right-hand side `(w, y)` of a KKT solve.
    sol: Vec<f64>,
    rhs_full: Vec<f64>,
    /// Last factorization parameters (for residuals of the condensed system).
    delta: (f64, f64),
    refine_opts: RefineOptions,
    refine_work: RefineWork,
    counts: CallbackCounts,
    times: [f64; 3],
}

fn check_structure(
    what: &'static str,
    rows: &[usize],
    cols: &[usize],
    nrows: usize,
    ncols: usize,
    lower: bool,
) -> Result<(), SolverError> {
    for (k, (&r, &c)) in rows.iter().zip(cols).enumerate() {
        if r >= nrows || c >= ncols || (lower && r < c) {
            return Err(SolverError::BadStructure {
                what,
                entry: k,
                row: r,
                col: c,
                nrows,
                ncols,
            });
        }
    }
    Ok(())
}

impl<D: Device + HostBuffers> HostKktBackend<D> {
    /// A backend on `device` for `model` laid out as `lay` (checks the sparsity structure
    /// and does the symbolic analysis of the KKT pattern).
    ///
    /// # Errors
    /// [`SolverError::BadStructure`] for a sparsity index outside its matrix (or a Hessian
    /// entry above the diagonal), [`SolverError::Linalg`] when the analysis fails.
    pub fn new(
        device: Arc<D>,
        model: &dyn DeviceNlp<D>,
        lay: &Layout,
        opts: &Options,
    ) -> Result<Self, SolverError> {
        let meta = model.meta();
        let (n, m, nw) = (lay.n, lay.m, lay.nw());
        let mut jrows = vec![0; meta.nnzj];
        let mut jcols = vec![0; meta.nnzj];
        model.jac_structure(&mut jrows, &mut jcols);
        check_structure("jacobian", &jrows, &jcols, m, n, false)?;
        let mut hrows = vec![0; meta.nnzh];
        let mut hcols = vec![0; meta.nnzh];
        model.hess_structure(&mut hrows, &mut hcols);
        check_structure("hessian", &hrows, &hcols, n, n, true)?;
        let condensed = opts.kkt == KktKind::Condensed;
        let mut solver = make_solver(
            opts.linear_solver,
            condensed,
            nw,
            opts.factorization_threads,
            opts.ordering,
        )?;
        let (kkt, nk) = if condensed {
            let pat = CondensedKkt::new(n, m, &hrows, &hcols, &jrows, &jcols)?;
            solver.analyze(n, pat.col_ptr(), pat.row_idx())?;
            let on_device = CondensedOnDevice::new(&*device, &pat, &jrows, &jcols, meta.nnzh)?;
            // K's values live on the device: no host copy
            (Kkt::Condensed(Box::new(on_device)), 0)
        } else {
            let mut b = KktBuilder::new(nw + m);
            b.block(&hrows, &hcols, 0, 0)?;
            b.block(&jrows, &jcols, nw, 0)?;
            let srows: Vec<usize> = lay.slack_rows.clone();
            let scols: Vec<usize> = (0..lay.ns).collect();
            b.block(&srows, &scols, nw, n)?;
            b.diagonal(0, nw)?;
            b.diagonal(nw, m)?;
            let asm = b.build();
            solver.analyze(nw + m, asm.col_ptr(), asm.row_idx())?;
            let nk = asm.nnz();
            (
                Kkt::Augmented {
                    asm,
                    minus_ones: vec![-1.0; lay.ns],
                },
                nk,
            )
        };
        let entries: Vec<usize> = (0..meta.nnzj).collect();
        let jac_by_col = device.segments(&SegmentPlan::new(nw, &jcols, &entries, &jrows)?)?;
        let slack_pos: Vec<usize> = (n..nw).collect();
        let rhs = device.vector_from_host(&lay.rhs)?;
        let slack_rows_dev = device.index_from_host(&lay.slack_rows)?;
        let slack_pos = device.index_from_host(&slack_pos)?;
        let slack_zeros = device.zeros(lay.ns)?;
        let slack_scratch = RefCell::new(device.zeros(lay.ns)?);
        let (jvals, hvals, cbuf) = (
            device.zeros(meta.nnzj)?,
            device.zeros(meta.nnzh)?,
            device.zeros(m)?,
        );
        Ok(Self {
            device,
            n,
            m,
            nw,
            slack_rows: lay.slack_rows.clone(),
            rhs,
            slack_rows_dev,
            slack_pos,
            slack_zeros,
            slack_scratch,
            jac_by_col,
            jrows,
            jcols,
            jvals,
            hvals,
            hrows,
            hcols,
            hess_used: false,
            hzero: vec![0.0; meta.nnzh],
            cbuf,
            eval_error: Cell::new(None),
            kkt,
            solver,
            pivoting: None,
            use_pivoting: false,
            pivoting_tried: false,
            solver_matrix: None,
            factorized_in_step: false,
            solved_since_factorization: false,
            pivoting_requested: false,
            linear_solver: opts.linear_solver,
            factorization_threads: opts.factorization_threads,
            ordering: opts.ordering,
            kvals: vec![0.0; nk],
            diag_w: vec![0.0; nw],
            diag_c: vec![0.0; m],
            sol: vec![0.0; nw + m],
            rhs_full: vec![0.0; nw + m],
            delta: (0.0, 0.0),
            refine_opts: RefineOptions {
                residual_ratio_max: opts.residual_ratio_max,
                min_steps: opts.min_refinement_steps,
                max_steps: opts.max_refinement_steps,
                ..RefineOptions::default()
            },
            refine_work: RefineWork::with_krylov_dim(
                nw + m,
                opts.max_refinement_steps.min(DEFAULT_KRYLOV_DIM),
            ),
            counts: CallbackCounts::default(),
            times: [0.0; 3],
        })
    }

    /// Keeps the first evaluation failure for [`Backend::synchronize`]; the value of a
    /// failed evaluation is `failed`.
    fn settle<T>(&mut self, result: Result<T, SolverError>, failed: T) -> T {
        match result {
            Ok(v) => v,
            Err(e) => {
                let first = self.eval_error.take().unwrap_or(e);
                self.eval_error.set(Some(first));
                failed
            }
        }
    }

    fn timed<R>(&mut self, slot: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        let t = Instant::now();
        let r = f(self);
        self.times[slot] += t.elapsed().as_secs_f64();
        r
    }

    /// `out = K x` for the full (uncondensed) KKT matrix of the last factorization.
    fn kkt_product(&self, x: &[f64], out: &mut [f64]) -> Result<(), SolverError> {
        let (n, nw) = (self.n, self.nw);
        match &self.kkt {
            Kkt::Augmented { asm, .. } => {
                sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &self.kvals, x, out)?;
            }
            Kkt::Condensed(_) => {
                let (vw, vy) = x.split_at(nw);
                let (ow, oy) = out.split_at_mut(nw);
                ow.iter_mut().for_each(|a| *a = 0.0);
                oy.iter_mut().for_each(|a| *a = 0.0);
                let (hvals, jvals) = (self.device.host(&self.hvals), self.device.host(&self.jvals));
                if self.hess_used {
                    for (k, (&r, &c)) in self.hrows.iter().zip(&self.hcols).enumerate() {
                        let h = hvals[k];
                        ow[r] += h * vw[c];
                        if r != c {
                            ow[c] += h * vw[r];
                        }
                    }
                }
                for i in 0..nw {
                    ow[i] += self.diag_w[i] * vw[i];
                }
                for (k, (&r, &c)) in self.jrows.iter().zip(&self.jcols).enumerate() {
                    let a = jvals[k];
                    oy[r] += a * vw[c];
                    ow[c] += a * vy[r];
                }
                for (k, &j) in self.slack_rows.iter().enumerate() {
                    oy[j] -= vw[n + k];
                    ow[n + k] -= vy[j];
                }
                for j in 0..self.m {
                    oy[j] -= self.delta.1 * vy[j];
                }
            }
        }
        Ok(())
    }

    /// Solve with the factorization only (no refinement): `v ← K⁻¹ v` (for the condensed
    /// form: reduce on the device, solve, expand on the device).
    fn raw_solve(&mut self, v: &mut [f64]) -> Result<(), SolverError> {
        let (n, nw) = (self.n, self.nw);
        self.counts.solves += 1;
        match &mut self.kkt {
            Kkt::Augmented { .. } => {
                active(&mut self.solver, &mut self.pivoting, self.use_pivoting)
                    .solve_in_place(v)?;
            }
            Kkt::Condensed(on_device) => {
                // v = (bx, bs, by): row j has slack j (condensed layouts put every row in
                // order)
                let dev = &mut **on_device;
                let device = &*self.device;
                let (bx, rest) = v.split_at_mut(n);
                let (bs, by) = rest.split_at_mut(nw - n);
                device.host_mut(&mut dev.bx).copy_from_slice(bx);
                device.host_mut(&mut dev.bs).copy_from_slice(bs);
                device.host_mut(&mut dev.by).copy_from_slice(by);
                let values = CondensedValues {
                    jac_vals: &dev.jac,
                    d: &dev.d,
                    q: &dev.q,
                    delta_c: dev.delta_c,
                };
                dev.plans
                    .reduce(device, &values, [&dev.bx, &dev.bs, &dev.by], &mut dev.dx)?;
                self.solver.solve_in_place(device.host_mut(&mut dev.dx))?;
                dev.plans.expand(
                    device,
                    &values,
                    &dev.dx,
                    [&dev.bs, &dev.by],
                    &mut dev.ds,
                    &mut dev.dy,
                )?;
                bx.copy_from_slice(device.host(&dev.dx));
                bs.copy_from_slice(device.host(&dev.ds));
                by.copy_from_slice(device.host(&dev.dy));
            }
        }
        Ok(())
    }
}

/// The KKT system of the last factorization, for the refinement driver: solves with the
/// factors (counted in `solves`), products with the full matrix.
impl<D: Device + HostBuffers> RefineSystem for HostKktBackend<D> {
    type Error = SolverError;
    fn solve_in_place(&mut self, v: &mut [f64]) -> Result<(), SolverError> {
        self.raw_solve(v)
    }
    fn matvec(&mut self, x: &[f64], out: &mut [f64]) -> Result<(), SolverError> {
        self.kkt_product(x, out)
    }
}

/// Relative zero-pivot tolerance given to the faer backends: only exact zeros count. Their
/// default (`1e-14 · max|A_ij|`) calls genuine pivots zero as soon as the barrier diagonal Σ
/// is large (`max|A_ij|` reaches 1e10 and more late in a solve, while the constraint pivots
/// are of the size of δ_c); rank deficiency is caught instead by the inertia rule (too few
/// negative eigenvalues → δ_c) and by the refinement accuracy check.
const ZERO_PIVOT_TOL: f64 = 0.0;

fn make_solver(
    kind: LinearSolverKind,
    condensed: bool,
    n_primal: usize,
    threads: usize,
    ordering: OrderingKind,
) -> Result<Box<dyn SymmetricSolver>, SolverError> {
    let par = if threads == 1 {
        Parallelism::Sequential
    } else {
        Parallelism::Rayon(threads)
    };
    let method = match ordering {
        OrderingKind::Amd => FillMethod::Amd,
        OrderingKind::NestedDissection => FillMethod::NestedDissection,
        OrderingKind::Auto => FillMethod::Auto,
    };
    if condensed {
        let mut s = FaerLlt::new(par);
        s.set_ordering(FillOrdering::of_method(method));
        s.set_zero_pivot_tol(ZERO_PIVOT_TOL)?;
        return Ok(Box::new(s));
    }
    let ord = FillOrdering::kkt_matched(n_primal, method);
    Ok(match kind {
        LinearSolverKind::Ldlt => {
            let mut s = FaerLdlt::new(par);
            s.set_ordering(ord);
            s.set_zero_pivot_tol(ZERO_PIVOT_TOL)?;
            Box::new(s)
        }
        LinearSolverKind::Lblt => {
            let mut s = FaerLblt::new(par);
            s.set_ordering(ord);
            s.set_zero_pivot_tol(ZERO_PIVOT_TOL)?;
            Box::new(s)
        }
    })
}

/// The factorization in use: the LBLᵀ fallback `pivoting` while `use_pivoting` is on,
/// else the configured `solver` (fields passed separately so the KKT values stay
/// borrowable).
fn active<'a>(
    solver: &'a mut Box<dyn SymmetricSolver>,
    pivoting: &'a mut Option<Box<dyn SymmetricSolver>>,
    use_pivoting: bool,
) -> &'a mut dyn SymmetricSolver {
    match (pivoting, use_pivoting) {
        (Some(p), true) => p.as_mut(),
        _ => solver.as_mut(),
    }
}

/// Factorizes `values` (the matrix of parameters `params = (δ_w, δ_c, hessian)`) with
/// `solver` and remembers the parameters and the status (forgotten when the factorization
/// fails with an error).
fn factorize_remembered(
    solver: &mut Box<dyn SymmetricSolver>,
    values: &[f64],
    params: (f64, f64, bool),
    remembered: &mut Option<((f64, f64, bool), FactorStatus)>,
) -> Result<FactorStatus, SolverError> {
    *remembered = None;
    let st = solver.factorize(values)?;
    *remembered = Some((params, st));
    Ok(st)
}

/// The inertia-correction verdict on an augmented factorization with `nk = (nw, m)`:
/// correct inertia is `nw` positive and `m` negative eigenvalues; zero eigenvalues or too
/// few negative ones mean a singular (rank-deficient) constraint block.
fn classify(
    st: FactorStatus,
    inertia: Option<simdnlp_linalg::Inertia>,
    nk: (usize, usize),
) -> KktStatus {
    match st {
        FactorStatus::NotPositiveDefinite => KktStatus::WrongInertia,
        FactorStatus::Singular => KktStatus::Singular,
        FactorStatus::Success => match inertia {
            Some(i) if i.zero > 0 || i.negative < nk.1 => KktStatus::Singular,
            Some(i) if i.positive == nk.0 && i.negative == nk.1 => KktStatus::Correct,
            Some(_) => KktStatus::WrongInertia,
            None => KktStatus::Correct,
        },
    }
}

impl<D: Device + HostBuffers> Backend for HostKktBackend<D> {
    type Vector = D::Vector;
    type Index = D::Index;
    type Device = D;

    fn device(&self) -> &D {
        &self.device
    }

    fn for_model(
        &self,
        model: &dyn DeviceNlp<D>,
        lay: &Layout,
        opts: &Options,
    ) -> Result<Self, SolverError> {
        Self::new(Arc::clone(&self.device), model, lay, opts)
    }

    fn zeros(&self, n: usize) -> Result<D::Vector, SolverError> {
        Ok(self.device.zeros(n)?)
    }
    fn vector_from_host(&self, v: &[f64]) -> Result<D::Vector, SolverError> {
        Ok(self.device.vector_from_host(v)?)
    }
    fn index_from_host(&self, idx: &[usize]) -> Result<D::Index, SolverError> {
        Ok(self.device.index_from_host(idx)?)
    }
    fn to_host(&self, v: &D::Vector, out: &mut [f64]) -> Result<(), SolverError> {
        Ok(self.device.to_host(v, out)?)
    }
    fn copy_from_host(&self, v: &mut D::Vector, src: &[f64]) -> Result<(), SolverError> {
        Ok(self.device.copy_from_host(v, src)?)
    }
    fn synchronize(&self) -> Result<(), SolverError> {
        if let Some(e) = self.eval_error.take() {
            return Err(e);
        }
        Ok(self.device.synchronize()?)
    }

    fn fill(&self, v: &mut D::Vector, a: f64) {
        self.device.fill(v, a)
    }
    fn copy(&self, dst: &mut D::Vector, src: &D::Vector) {
        self.device.copy(dst, src)
    }
    fn axpy(&self, a: f64, x: &D::Vector, y: &mut D::Vector) {
        self.device.axpy(a, x, y)
    }
    fn axpby(&self, a: f64, x: &D::Vector, b: f64, y: &mut D::Vector) {
        self.device.axpby(a, x, b, y)
    }
    fn scale(&self, a: f64, v: &mut D::Vector) {
        self.device.scale(a, v)
    }
    fn dot(&self, x: &D::Vector, y: &D::Vector) -> f64 {
        self.device.dot(x, y)
    }
    fn norm_inf(&self, v: &D::Vector) -> f64 {
        self.device.norm_inf(v)
    }
    fn norm_1(&self, v: &D::Vector) -> f64 {
        self.device.norm_1(v)
    }
    fn mul(&self, dst: &mut D::Vector, x: &D::Vector, y: &D::Vector) {
        self.device.mul(dst, x, y)
    }
    fn div(&self, dst: &mut D::Vector, x: &D::Vector, y: &D::Vector) {
        self.device.div(dst, x, y)
    }
    fn recip(&self, dst: &mut D::Vector, a: f64, x: &D::Vector) {
        self.device.recip(dst, a, x)
    }
    fn gather(&self, dst: &mut D::Vector, src: &D::Vector, idx: &D::Index) {
        self.device.gather(dst, src, idx)
    }
    fn scatter_add(&self, a: f64, src: &D::Vector, idx: &D::Index, dst: &mut D::Vector) {
        self.device.scatter_add(a, src, idx, dst)
    }
    fn gather_slack(
        &self,
        dst: &mut D::Vector,
        src: &D::Vector,
        idx: &D::Index,
        off: &D::Vector,
        sign: f64,
    ) {
        self.device.gather_slack(dst, src, idx, off, sign)
    }

    fn sum_ln(&self, x: &D::Vector) -> f64 {
        self.device.sum_ln(x)
    }
    fn max_step(&self, x: &D::Vector, dx: &D::Vector, tau: f64) -> f64 {
        self.device.max_step(x, dx, tau)
    }
    fn bound_dual_step(
        &self,
        dz: &mut D::Vector,
        z: &D::Vector,
        s: &D::Vector,
        ds: &D::Vector,
        mu: f64,
    ) {
        self.device.bound_dual_step(dz, z, s, ds, mu)
    }
    fn compl_inf(&self, s: &D::Vector, z: &D::Vector, mu: f64) -> f64 {
        self.device.compl_inf(s, z, mu)
    }
    fn min_product(&self, s: &D::Vector, z: &D::Vector) -> f64 {
        self.device.min_product(s, z)
    }
    fn safeguard_bound_mult(&self, z: &mut D::Vector, s: &D::Vector, mu: f64, kappa: f64) -> f64 {
        self.device.safeguard_bound_mult(z, s, mu, kappa)
    }
    fn push_into_bounds(
        &self,
        w: &mut D::Vector,
        lo: &D::Vector,
        up: &D::Vector,
        push: &D::Vector,
        frac: &D::Vector,
    ) {
        self.device.push_into_bounds(w, lo, up, push, frac)
    }
    fn clamp_below(&self, z: &mut D::Vector, a: f64) {
        self.device.clamp_below(z, a)
    }
    fn safe_slack(&self, s: &mut D::Vector, z: &D::Vector, s_min: f64, mu: f64) -> usize {
        self.device.safe_slack(s, z, s_min, mu)
    }
    fn max_rel_step(&self, dx: &D::Vector, x: &D::Vector) -> f64 {
        self.device.max_rel_step(dx, x)
    }

    fn eval_obj(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector) -> f64 {
        self.timed(0, |s| {
            s.counts.obj += 1;
            let f = model.obj(w);
            s.settle(f, f64::NAN)
        })
    }
    fn eval_grad(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector, g: &mut D::Vector) {
        let n = self.n;
        self.timed(0, |s| {
            s.counts.grad += 1;
            let done = model.grad(w, g);
            if done.is_err() {
                s.device.fill(g, f64::NAN);
            }
            s.settle(done, ());
            let ns = s.nw - n;
            s.device.copy_range(g, n, &s.slack_zeros, 0, ns);
        })
    }
    fn eval_residual(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector, r: &mut D::Vector) {
        self.timed(0, |s| {
            s.counts.cons += 1;
            let done = model.cons(w, r);
            if done.is_err() {
                s.device.fill(r, f64::NAN);
            }
            s.settle(done, ());
            // r + (−1)·b and r + (−1)·s are r − b and r − s to the last bit
            s.device.axpy(-1.0, &s.rhs, r);
            let slacks = s.slack_scratch.get_mut();
            s.device.gather(slacks, w, &s.slack_pos);
            s.device.scatter_add(-1.0, slacks, &s.slack_rows_dev, r);
        })
    }
    fn set_rhs(&mut self, rhs: &[f64]) {
        let done = self.device.copy_from_host(&mut self.rhs, rhs);
        self.settle(done.map_err(SolverError::from), ());
    }
    fn set_slacks_from_cons(&mut self, model: &dyn DeviceNlp<D>, w: &mut D::Vector) {
        let n = self.n;
        self.timed(0, |s| {
            s.counts.cons += 1;
            let done = model.cons(w, &mut s.cbuf);
            if done.is_err() {
                s.device.fill(&mut s.cbuf, f64::NAN);
            }
            s.settle(done, ());
            let slacks = s.slack_scratch.get_mut();
            s.device.gather(slacks, &s.cbuf, &s.slack_rows_dev);
            let ns = s.nw - n;
            s.device.copy_range(w, n, slacks, 0, ns);
        })
    }
    fn eval_jac(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector) -> bool {
        self.timed(0, |s| {
            s.counts.jac += 1;
            s.solver_matrix = None;
            let done = model.jac_coord(w, &mut s.jvals);
            s.settle(done.map(|()| true), false)
                && s.device.host(&s.jvals).iter().all(|v| v.is_finite())
        })
    }
    fn eval_hess(
        &mut self,
        model: &dyn DeviceNlp<D>,
        w: &D::Vector,
        y: &D::Vector,
        sigma: f64,
    ) -> bool {
        self.timed(0, |s| {
            s.counts.hess += 1;
            s.solver_matrix = None;
            let done = model.hess_coord(w, y, sigma, &mut s.hvals);
            s.settle(done.map(|()| true), false)
                && s.device.host(&s.hvals).iter().all(|v| v.is_finite())
        })
    }
    /// `out = a Jᵀ y + b out` by [`Device::seg_spmv`] over the by-column plan (each column
    /// starts at `b·out[c]` and adds `(a·J_k)·y[row_k]` in COO order), then the slack
    /// columns' `−a·y[slack_rows[k]]` by a gather and [`Device::scatter_add`] with `−a`
    /// (`out + (−a)·y` is `out − a·y` to the last bit). With `b = 0`, `out` is not read
    /// (a stale NaN or ∞ in it does not propagate), as [`Device::seg_spmv`] defines.
    fn jt_mul(&self, a: f64, y: &D::Vector, b: f64, out: &mut D::Vector) {
        self.device
            .seg_spmv(a, &self.jvals, &self.jac_by_col, y, b, out);
        let mut slacks = self.slack_scratch.borrow_mut();
        self.device.gather(&mut slacks, y, &self.slack_rows_dev);
        self.device.scatter_add(-a, &slacks, &self.slack_pos, out);
    }

    fn counters(&self) -> (CallbackCounts, [f64; 3]) {
        (self.counts, self.times)
    }

    fn kkt_factorize(
        &mut self,
        sigma: &D::Vector,
        delta_w: f64,
        delta_c: f64,
        hessian: bool,
    ) -> Result<KktStatus, SolverError> {
        let sigma = self.device.host(sigma);
        self.timed(1, |s| {
            // Cause of this factorization (counts only): the first of a step is ordinary;
            // a repeat right after an inaccurate solve is the LBLᵀ switch or a larger δ_c;
            // a repeat without a solve in between is inertia correction.
            s.counts.factorizations += 1;
            if s.pivoting_requested {
                s.pivoting_requested = false;
                s.counts.factorizations_pivoting += 1;
            } else if s.factorized_in_step {
                if s.solved_since_factorization {
                    s.counts.factorizations_accuracy += 1;
                } else {
                    s.counts.factorizations_inertia += 1;
                }
            }
            s.factorized_in_step = true;
            s.solved_since_factorization = false;
            s.delta = (delta_w, delta_c);
            for (d, v) in s.diag_w.iter_mut().zip(sigma) {
                *d = v + delta_w;
            }
            s.diag_c.iter_mut().for_each(|v| *v = -delta_c);
            let h: &[f64] = if hessian {
                s.device.host(&s.hvals)
            } else {
                &s.hzero
            };
            s.hess_used = hessian;
            if !s.diag_w.iter().all(|v| v.is_finite()) {
                // An overflowing barrier diagonal cannot be repaired by δ_w: report it as
                // wrong inertia so the correction loop ends in ErrorInStepComputation.
                return Ok(KktStatus::WrongInertia);
            }
            let st = match &mut s.kkt {
                Kkt::Augmented { asm, minus_ones } => {
                    asm.assemble(
                        &[h, s.device.host(&s.jvals), minus_ones, &s.diag_w, &s.diag_c],
                        &mut s.kvals,
                    )?;
                    let nk = (s.nw, s.m);
                    if s.use_pivoting
                        && let Some(pivoting) = s.pivoting.as_mut()
                    {
                        let st = pivoting.factorize(&s.kvals)?;
                        if classify(st, pivoting.inertia(), nk) == KktStatus::Correct {
                            return Ok(KktStatus::Correct);
                        }
                        // Intranode pivoting cannot reach every pivot and can lose the
                        // inertia on KKT matrices (seen on case1354_pegase): keep it only
                        // where it confirms the inertia, else LDLᵀ for the rest of this step.
                        tracing::trace!(?st, "LBLT fallback rejected, back to LDLT");
                        s.use_pivoting = false;
                        match s.solver_matrix {
                            // LDLᵀ already holds the factor of this very matrix.
                            Some((params, prev)) if params == (delta_w, delta_c, hessian) => prev,
                            _ => {
                                s.counts.factorizations += 1;
                                s.counts.factorizations_pivoting += 1;
                                factorize_remembered(
                                    &mut s.solver,
                                    &s.kvals,
                                    (delta_w, delta_c, hessian),
                                    &mut s.solver_matrix,
                                )?
                            }
                        }
                    } else {
                        factorize_remembered(
                            &mut s.solver,
                            &s.kvals,
                            (delta_w, delta_c, hessian),
                            &mut s.solver_matrix,
                        )?
                    }
                }
                Kkt::Condensed(on_device) => {
                    // the device mirrors Σx + δw, Σ' = Σs + δw (slack j of row j), W and
                    // J; D and q carry δc; K is assembled there
                    let dev = &mut **on_device;
                    let device = &*s.device;
                    let n = s.n;
                    device
                        .host_mut(&mut dev.sigma_x)
                        .copy_from_slice(&s.diag_w[..n]);
                    device
                        .host_mut(&mut dev.sigma_s)
                        .copy_from_slice(&s.diag_w[n..]);
                    device.host_mut(&mut dev.hess).copy_from_slice(h);
                    device.copy(&mut dev.jac, &s.jvals);
                    dev.delta_c = delta_c;
                    dev.plans
                        .weights(device, &dev.sigma_s, delta_c, &mut dev.q, &mut dev.d)?;
                    dev.plans.assemble(
                        device,
                        &dev.hess,
                        &dev.sigma_x,
                        &dev.jac,
                        &dev.d,
                        &mut dev.kvals,
                    )?;
                    s.solver.factorize(device.host(&dev.kvals))?
                }
            };
            let nk = match &s.kkt {
                Kkt::Augmented { .. } => (s.nw, s.m),
                Kkt::Condensed(_) => (s.n, 0),
            };
            if matches!(s.kkt, Kkt::Condensed(_)) {
                // Cholesky cannot tell a singular matrix from a wrong inertia: a failure is
                // "wrong inertia" (the algorithm adds δ_c after repeated ones).
                return Ok(match st {
                    FactorStatus::Success => KktStatus::Correct,
                    _ => KktStatus::WrongInertia,
                });
            }
            let inertia = active(&mut s.solver, &mut s.pivoting, s.use_pivoting).inertia();
            tracing::trace!(
                ?st,
                ?inertia,
                delta_w,
                delta_c,
                pivoting = s.use_pivoting,
                "KKT factorization"
            );
            Ok(classify(st, inertia, nk))
        })
    }

    fn kkt_increase_quality(&mut self) -> Result<bool, SolverError> {
        let Kkt::Augmented { asm, .. } = &self.kkt else {
            return Ok(false);
        };
        if self.pivoting_tried || self.linear_solver != LinearSolverKind::Ldlt {
            return Ok(false);
        }
        self.pivoting_tried = true;
        if self.pivoting.is_none() {
            // built once per solve, on first need (this allocates the second factor)
            let mut p = make_solver(
                LinearSolverKind::Lblt,
                false,
                self.nw,
                self.factorization_threads,
                self.ordering,
            )?;
            p.analyze(self.nw + self.m, asm.col_ptr(), asm.row_idx())?;
            self.pivoting = Some(p);
        }
        self.use_pivoting = true;
        self.pivoting_requested = true;
        Ok(true)
    }

    fn kkt_reset_quality(&mut self) {
        self.solver_matrix = None;
        self.use_pivoting = false;
        self.pivoting_tried = false;
        self.factorized_in_step = false;
        self.pivoting_requested = false;
    }

    fn kkt_solve(
        &mut self,
        rw: &D::Vector,
        ry: &D::Vector,
        dw: &mut D::Vector,
        dy: &mut D::Vector,
    ) -> Result<bool, SolverError> {
        let (rw, ry) = (self.device.host(rw), self.device.host(ry));
        let (dw, dy) = (self.device.host_mut(dw), self.device.host_mut(dy));
        self.timed(2, |s| {
            let nw = s.nw;
            if s.solved_since_factorization {
                s.counts.solves_soc += 1;
            }
            s.solved_since_factorization = true;
            s.rhs_full[..nw].copy_from_slice(rw);
            s.rhs_full[nw..].copy_from_slice(ry);
            // Initial solve, then refinement on the full system (the one driver of
            // simdnlp_linalg::refine; its buffers are taken out of `s` meanwhile).
            let mut sol = std::mem::take(&mut s.sol);
            let rhs = std::mem::take(&mut s.rhs_full);
            let mut work = std::mem::take(&mut s.refine_work);
            sol.copy_from_slice(&rhs);
            let opts = s.refine_opts;
            let outcome = s
                .raw_solve(&mut sol)
                .and_then(|()| refine_system(s, &rhs, &mut sol, &mut work, &opts));
            s.sol = sol;
            s.rhs_full = rhs;
            s.refine_work = work;
            let stats = outcome?;
            s.counts.solves_refinement += stats.steps;
            tracing::trace!(
                refinement_steps = stats.steps,
                initial_ratio = stats.initial_ratio,
                ratio = stats.final_ratio,
                "KKT solve"
            );
            // Accurate: Ipopt's residual_ratio_singular (1e-5).
            let accurate = !stats.suspect_singular;
            dw.copy_from_slice(&s.sol[..nw]);
            dy.copy_from_slice(&s.sol[nw..]);
            Ok(accurate)
        })
    }
}
