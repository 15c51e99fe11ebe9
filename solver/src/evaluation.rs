//! The model-evaluation half of every [`crate::backend::Backend`]: the model evaluated into
//! device vectors through [`DeviceNlp`] (the Jacobian and Hessian values kept in device
//! vectors), the residual's right-hand side and slack terms, the gradient's slack part,
//! slack initialization and `Jᵀ y` as device kernels on index lists and scratch vectors
//! made at setup, the callback counts and per-phase times. Both KKT backends own one
//! ([`crate::host_kkt::HostKktBackend`], [`crate::device_kkt::DeviceKktBackend`]) and the
//! [`crate::backend::Backend`] trait's default methods call it.
//!
//! A device failure while evaluating the model makes the value NaN (a rejected point) and
//! is reported by the next [`Evaluation::synchronize`].

use crate::evaluate::DeviceNlp;
use crate::layout::Layout;
use crate::result::{CallbackCounts, SolverError};
use simdnlp_device::{Device, SegmentPlan, Segments};
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Instant;

/// A timed phase of the work a KKT backend does for the interior-point method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Model callbacks (objective, gradient, constraints, Jacobian, Hessian).
    Callbacks,
    /// KKT assembly and numeric factorization (inertia corrections included).
    Factorization,
    /// KKT triangular solves with iterative refinement.
    Solves,
}

/// Wall time (seconds) per phase of a backend's work, accumulated since it was created.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Model callbacks (objective, gradient, constraints, Jacobian, Hessian).
    pub callbacks: f64,
    /// KKT assembly and numeric factorization (inertia corrections included).
    pub factorization: f64,
    /// KKT triangular solves with iterative refinement.
    pub solves: f64,
}

impl PhaseTimes {
    /// Adds `seconds` to `phase`.
    pub(crate) fn add(&mut self, phase: Phase, seconds: f64) {
        match phase {
            Phase::Callbacks => self.callbacks += seconds,
            Phase::Factorization => self.factorization += seconds,
            Phase::Solves => self.solves += seconds,
        }
    }

    /// The time spent since the reading `earlier` of the same backend.
    pub(crate) fn since(&self, earlier: &PhaseTimes) -> PhaseTimes {
        PhaseTimes {
            callbacks: self.callbacks - earlier.callbacks,
            factorization: self.factorization - earlier.factorization,
            solves: self.solves - earlier.solves,
        }
    }
}

impl std::ops::AddAssign for PhaseTimes {
    fn add_assign(&mut self, other: PhaseTimes) {
        self.callbacks += other.callbacks;
        self.factorization += other.factorization;
        self.solves += other.solves;
    }
}

/// The model evaluated on device `D` for one problem layout (see the module
/// documentation).
pub struct Evaluation<D: Device> {
    /// The device, shared with the backends of restoration problems.
    pub(crate) device: Arc<D>,
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) nw: usize,
    /// Model row of each slack (host copy, length ns).
    pub(crate) slack_rows: Vec<usize>,
    /// Equality right-hand sides `b` (device vector, length m).
    rhs: D::Vector,
    /// Rows of the slacks (device index, length ns): slack `k` belongs to row
    /// `slack_rows[k]`.
    slack_rows_dev: D::Index,
    /// Positions `n..nw` of the slacks in `w` (device index, length ns).
    slack_pos: D::Index,
    /// Zeros, length ns (clears the slack part of the gradient).
    slack_zeros: D::Vector,
    /// Scratch of length ns for the slack kernels; a `RefCell` because
    /// [`Evaluation::jt_mul`] takes `&self` (borrowed only inside one kernel sequence,
    /// never re-entered).
    slack_scratch: RefCell<D::Vector>,
    pub(crate) jrows: Vec<usize>,
    pub(crate) jcols: Vec<usize>,
    /// The Jacobian's COO entries grouped by column (target = column of `w`, length nw,
    /// slack columns empty; partner = row), in COO order within a column: `Jᵀ y` by
    /// [`Device::seg_spmv`].
    jac_by_col: Segments<D::Index>,
    /// Jacobian values of the model (device vector).
    pub(crate) jvals: D::Vector,
    pub(crate) hrows: Vec<usize>,
    pub(crate) hcols: Vec<usize>,
    /// Hessian values of the model (device vector).
    pub(crate) hvals: D::Vector,
    /// Model row values `c(x)` (slack initialization).
    cbuf: D::Vector,
    /// The first device failure of a model evaluation since the last
    /// [`Evaluation::synchronize`] (which reports it).
    eval_error: Cell<Option<SolverError>>,
    /// Callback and factorization counts since creation.
    pub(crate) counts: CallbackCounts,
    /// Seconds spent in callbacks, factorizations and solves since creation.
    pub(crate) times: PhaseTimes,
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

impl<D: Device> Evaluation<D> {
    /// The evaluation of `model` laid out as `lay` on `device` (reads and checks the
    /// sparsity structure, uploads the index lists).
    ///
    /// # Errors
    /// [`SolverError::BadStructure`] for a sparsity index outside its matrix (or a Hessian
    /// entry above the diagonal); a device failure (allocation, upload).
    pub(crate) fn new(
        device: Arc<D>,
        model: &dyn DeviceNlp<D>,
        lay: &Layout,
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
        let entries: Vec<usize> = (0..meta.nnzj).collect();
        let jac_by_col = device.segments(&SegmentPlan::new(nw, &jcols, &entries, &jrows)?)?;
        let slack_pos: Vec<usize> = (n..nw).collect();
        Ok(Self {
            n,
            m,
            nw,
            slack_rows: lay.slack_rows.clone(),
            rhs: device.vector_from_host(&lay.rhs)?,
            slack_rows_dev: device.index_from_host(&lay.slack_rows)?,
            slack_pos: device.index_from_host(&slack_pos)?,
            slack_zeros: device.zeros(lay.ns)?,
            slack_scratch: RefCell::new(device.zeros(lay.ns)?),
            jac_by_col,
            jrows,
            jcols,
            jvals: device.zeros(meta.nnzj)?,
            hrows,
            hcols,
            hvals: device.zeros(meta.nnzh)?,
            cbuf: device.zeros(m)?,
            eval_error: Cell::new(None),
            counts: CallbackCounts::default(),
            times: PhaseTimes::default(),
            device,
        })
    }

    /// The device the vectors live on.
    pub fn device(&self) -> &D {
        &self.device
    }

    /// The device, shared.
    pub(crate) fn shared_device(&self) -> Arc<D> {
        Arc::clone(&self.device)
    }

    /// Keeps the first evaluation failure for [`Evaluation::synchronize`]; the value of a
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

    /// Runs `f`, adding its wall time to `phase`.
    pub(crate) fn timed<R>(&mut self, phase: Phase, f: impl FnOnce(&mut Self) -> R) -> R {
        let start = Instant::now();
        let result = f(self);
        self.times.add(phase, start.elapsed().as_secs_f64());
        result
    }

    /// Reports the first evaluation failure since the last call, then waits for the device.
    ///
    /// # Errors
    /// That failure, or the device's first kernel failure.
    pub fn synchronize(&self) -> Result<(), SolverError> {
        if let Some(e) = self.eval_error.take() {
            return Err(e);
        }
        Ok(self.device.synchronize()?)
    }

    /// Objective `f(x)` at `w = (x, s)`.
    pub fn obj(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector) -> f64 {
        self.timed(Phase::Callbacks, |s| {
            s.counts.obj += 1;
            let f = model.obj(w);
            s.settle(f, f64::NAN)
        })
    }

    /// Objective gradient into the `x` part of `g`, zero on the slack part.
    pub fn grad(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector, g: &mut D::Vector) {
        let n = self.n;
        self.timed(Phase::Callbacks, |s| {
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

    /// Constraint residual `r(w)`: `c_j(x) − s_k` for a row with slack `k`, `c_j(x) − b_j`
    /// for an equality row.
    pub fn residual(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector, r: &mut D::Vector) {
        self.timed(Phase::Callbacks, |s| {
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

    /// Replaces the equality right-hand sides `b` (length `m`, zero for rows with a slack).
    pub fn set_rhs(&mut self, rhs: &[f64]) {
        let done = self.device.copy_from_host(&mut self.rhs, rhs);
        self.settle(done.map_err(SolverError::from), ());
    }

    /// Sets the slack part of `w` to the model's row values of the slack rows.
    pub fn set_slacks_from_cons(&mut self, model: &dyn DeviceNlp<D>, w: &mut D::Vector) {
        let n = self.n;
        self.timed(Phase::Callbacks, |s| {
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

    /// Evaluates and keeps the Jacobian at `w`; `false` when a value is NaN/∞ (one
    /// reduction on the device).
    pub fn jac(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector) -> bool {
        self.timed(Phase::Callbacks, |s| {
            s.counts.jac += 1;
            let done = model.jac_coord(w, &mut s.jvals);
            s.settle(done.map(|()| true), false) && s.device.norm_inf(&s.jvals).is_finite()
        })
    }

    /// Evaluates and keeps the Lagrangian Hessian at `w`; `false` when a value is NaN/∞.
    pub fn hess(
        &mut self,
        model: &dyn DeviceNlp<D>,
        w: &D::Vector,
        y: &D::Vector,
        sigma: f64,
    ) -> bool {
        self.timed(Phase::Callbacks, |s| {
            s.counts.hess += 1;
            let done = model.hess_coord(w, y, sigma, &mut s.hvals);
            s.settle(done.map(|()| true), false) && s.device.norm_inf(&s.hvals).is_finite()
        })
    }

    /// `out = a Jᵀ y + b out` by [`Device::seg_spmv`] over the by-column plan (each column
    /// starts at `b·out[c]` and adds `(a·J_k)·y[row_k]` in COO order), then the slack
    /// columns' `−a·y[slack_rows[k]]` by a gather and [`Device::scatter_add`] with `−a`
    /// (`out + (−a)·y` is `out − a·y` to the last bit). With `b = 0`, `out` is not read
    /// (a stale NaN or ∞ in it does not propagate), as [`Device::seg_spmv`] defines.
    pub fn jt_mul(&self, a: f64, y: &D::Vector, b: f64, out: &mut D::Vector) {
        self.device
            .seg_spmv(a, &self.jvals, &self.jac_by_col, y, b, out);
        let mut slacks = self.slack_scratch.borrow_mut();
        self.device.gather(&mut slacks, y, &self.slack_rows_dev);
        self.device.scatter_add(-a, &slacks, &self.slack_pos, out);
    }

    /// Counts and per-phase times since creation.
    pub fn counters(&self) -> (CallbackCounts, PhaseTimes) {
        (self.counts, self.times)
    }
}

/// Why a KKT factorization happened, for the counts (the same bookkeeping in every KKT
/// backend): the first of a step is ordinary; a repeat right after a solve is for accuracy
/// (a larger δ_c or the pivoting switch); a repeat without a solve in between is inertia
/// correction.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FactorizationCause {
    /// A factorization happened since the step began.
    factorized_in_step: bool,
    /// The current factorization already solved a right-hand side.
    solved_since_factorization: bool,
}

impl FactorizationCause {
    /// A new step begins.
    pub(crate) fn reset(&mut self) {
        *self = Self::default();
    }

    /// Counts a factorization; `pivoting_requested` counts it as the pivoting repeat.
    pub(crate) fn factorized(&mut self, counts: &mut CallbackCounts, pivoting_requested: bool) {
        counts.factorizations += 1;
        if pivoting_requested {
            counts.factorizations_pivoting += 1;
        } else if self.factorized_in_step {
            if self.solved_since_factorization {
                counts.factorizations_accuracy += 1;
            } else {
                counts.factorizations_inertia += 1;
            }
        }
        self.factorized_in_step = true;
        self.solved_since_factorization = false;
    }

    /// Counts a solve (a second one with the same factorization is a second-order
    /// correction).
    pub(crate) fn solved(&mut self, counts: &mut CallbackCounts) {
        if self.solved_since_factorization {
            counts.solves_soc += 1;
        }
        self.solved_since_factorization = true;
    }
}
