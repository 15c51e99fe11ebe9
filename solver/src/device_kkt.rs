//! The interior-point backend over **any** device ([`DeviceKktBackend`]): vectors, kernels
//! and the model on the device ([`Evaluation`]), and the condensed KKT system on the device
//! too — `K = W + Σx + δw + Jᵀ D J` assembled by the kernels of [`DeviceCondensedKkt`],
//! factorized behind the factorization seam ([`DeviceFactorization`]: faer through host
//! copies on the CPU and the emulated device, cuDSS on a GPU), the right-hand side reduced
//! and the solution expanded by device kernels, and iterative refinement on the full
//! (augmented) system by the one refinement driver of `simdnlp_linalg`
//! ([`refine_krylov`]) over device vectors. No vector crosses to the host in a step except
//! through the factorization (none on cuDSS); the algorithm reads only scalars (the
//! reductions).
//!
//! Two formulations: the condensed one ([`KktKind::Condensed`]: every row carries a slack,
//! row `j` has slack `j`, as [`Layout::new`] lays out a condensed problem) and the hybrid
//! one ([`KktKind::Hybrid`]: equality rows without a slack and exact, `K_γ` assembled by
//! the same kernels, the equality multipliers from conjugate gradients on their Schur
//! complement driven from the host with one solve per iteration: the solver's
//! `hybrid_kkt` module). Refinement runs on the full system either way.
//!
//! # Differences from the host backend's condensed mode
//! - The full-system product of the refinement sums in another order (the Hessian by rows
//!   then its strict upper part by columns, the diagonal, then `Jᵀ y`) and its vector
//!   reductions are the device's (summed in the device's order), so results agree with [`crate::host_kkt::HostKktBackend`] to rounding, not bitwise.
//!   The stopping rule is the same.
//! - A NaN in a residual makes its ∞-norm NaN (the device's `norm_inf`), where the host's
//!   ignores it; the refinement treats a NaN ratio as `+∞` either way.
//! - No pivoting switch ([`Backend::kkt_increase_quality`] answers `false`): the condensed
//!   matrix is positive definite when its factorization is accepted.
//!
//! A verdict of [`KktStatus::Correct`] needs a successful factorization whose inertia,
//! when the factorization reports one, is `(n, 0, 0)` (cuDSS's LDLᵀ reports it; faer's
//! Cholesky succeeds only on positive definite matrices); anything else is
//! [`KktStatus::WrongInertia`], as the host condensed mode decides.

use crate::backend::{Backend, KktStatus};
use crate::evaluate::DeviceNlp;
use crate::evaluation::{Evaluation, FactorizationCause, Phase};
use crate::hybrid_kkt::HybridOnDevice;
use crate::layout::Layout;
use crate::options::{KktKind, Options};
use crate::result::SolverError;
use simdnlp_device::{Device, SegmentPlan, Segments};
use simdnlp_linalg::condensed::CondensedKkt;
use simdnlp_linalg::refine::DEFAULT_KRYLOV_DIM;
use simdnlp_linalg::{
    CondensedValues, DeviceCondensedKkt, DeviceFactorization, FactorStatus, KrylovSystem,
    KrylovWork, LinalgError, RefineOptions, refine_krylov,
};
use std::sync::Arc;

/// The condensed system's vectors on the device: plans, the values the kernels read (copies
/// of the Hessian, Jacobian and diagonal of the last factorization), `K`'s values, and the
/// parts of a right-hand side while it is reduced and expanded. Shared by both backends'
/// condensed modes.
pub(crate) struct CondensedOnDevice<D: Device> {
    pub(crate) plans: DeviceCondensedKkt<D>,
    /// Hessian values `W` (or zeros without the Hessian), length nnzh.
    pub(crate) hess: D::Vector,
    /// Jacobian values, length nnzj.
    pub(crate) jac: D::Vector,
    /// `Σx + δw`, length n.
    pub(crate) sigma_x: D::Vector,
    /// `Σ' = Σs + δw`, length m.
    pub(crate) sigma_s: D::Vector,
    /// `q = 1/(1 + δc Σ')` and `D = Σ' q`, length m.
    q: D::Vector,
    d: D::Vector,
    /// δc of the last factorization.
    pub(crate) delta_c: f64,
    /// `K`'s values (lower CSC order of the pattern).
    pub(crate) kvals: D::Vector,
    /// Right-hand side parts `(bx, bs, by)` and solution parts `(dx, ds, dy)`.
    pub(crate) bx: D::Vector,
    pub(crate) bs: D::Vector,
    pub(crate) by: D::Vector,
    pub(crate) dx: D::Vector,
    pub(crate) ds: D::Vector,
    pub(crate) dy: D::Vector,
}

impl<D: Device> CondensedOnDevice<D> {
    /// Plans and vectors of `pattern` (built from the Jacobian COO `jrows`, `jcols`; the
    /// Hessian has `nnzh` entries).
    pub(crate) fn new(
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

    /// With `sigma_x`, `sigma_s` (δw included), `hess` and `jac` loaded by the caller:
    /// the weights for `delta_c` and `K`'s values.
    pub(crate) fn assemble(&mut self, device: &D, delta_c: f64) -> Result<(), SolverError> {
        self.delta_c = delta_c;
        self.plans
            .weights(device, &self.sigma_s, delta_c, &mut self.q, &mut self.d)?;
        self.plans.assemble(
            device,
            &self.hess,
            &self.sigma_x,
            &self.jac,
            &self.d,
            &mut self.kvals,
        )?;
        Ok(())
    }

    /// `(dx, ds, dy)` from `(bx, bs, by)`: the reduction, `solve` on the reduced vector
    /// (in place in `dx`), the expansion.
    pub(crate) fn solve_parts(
        &mut self,
        device: &D,
        solve: impl FnOnce(&mut D::Vector) -> Result<(), LinalgError>,
    ) -> Result<(), SolverError> {
        self.reduce(device)?;
        solve(&mut self.dx)?;
        self.expand(device)
    }

    /// The reduced right-hand side `dx = bx + Jᵀ (D ∘ by + q ∘ bs)` from `(bx, bs, by)`.
    pub(crate) fn reduce(&mut self, device: &D) -> Result<(), SolverError> {
        let values = CondensedValues {
            jac_vals: &self.jac,
            d: &self.d,
            q: &self.q,
            delta_c: self.delta_c,
        };
        self.plans.reduce(
            device,
            &values,
            [&self.bx, &self.bs, &self.by],
            &mut self.dx,
        )?;
        Ok(())
    }

    /// The expansion: `ds` and `dy` from `dx` and `(bs, by)`.
    pub(crate) fn expand(&mut self, device: &D) -> Result<(), SolverError> {
        let values = CondensedValues {
            jac_vals: &self.jac,
            d: &self.d,
            q: &self.q,
            delta_c: self.delta_c,
        };
        self.plans.expand(
            device,
            &values,
            &self.dx,
            [&self.bs, &self.by],
            &mut self.ds,
            &mut self.dy,
        )?;
        Ok(())
    }
}

/// `W v` for a symmetric matrix stored as its lower triangle in COO (`rows[k] >= cols[k]`):
/// the stored entries by rows, then the strict lower ones by columns (their mirror
/// images), both by [`Device::seg_spmv`].
struct SymmetricProduct<D: Device> {
    lower: Segments<D::Index>,
    mirror: Segments<D::Index>,
}

impl<D: Device> SymmetricProduct<D> {
    fn new(device: &D, n: usize, rows: &[usize], cols: &[usize]) -> Result<Self, SolverError> {
        let lower = device.segments(&SegmentPlan::coo(n, rows, cols)?)?;
        let strict: Vec<usize> = (0..rows.len()).filter(|&k| rows[k] != cols[k]).collect();
        let targets: Vec<usize> = strict.iter().map(|&k| cols[k]).collect();
        let partners: Vec<usize> = strict.iter().map(|&k| rows[k]).collect();
        let mirror = device.segments(&SegmentPlan::new(n, &targets, &strict, &partners)?)?;
        Ok(Self { lower, mirror })
    }

    /// `out = W v` (`out` not read).
    fn apply(&self, device: &D, vals: &D::Vector, v: &D::Vector, out: &mut D::Vector) {
        device.seg_spmv(1.0, vals, &self.lower, v, 0.0, out);
        device.seg_spmv(1.0, vals, &self.mirror, v, 1.0, out);
    }
}

/// The parts of a full-system product.
struct ProductParts<D: Device> {
    /// Input parts (`ps` of length ns).
    px: D::Vector,
    ps: D::Vector,
    py: D::Vector,
    /// Output parts, and an `n` scratch.
    ox: D::Vector,
    os: D::Vector,
    oy: D::Vector,
    tx: D::Vector,
    /// The hybrid form's per-row `s` and `os` (length m; empty for the condensed form,
    /// whose slacks are its rows).
    s_rows: D::Vector,
    os_rows: D::Vector,
    /// Two full-length scratch vectors for [`KrylovSystem::div_scalar`] (the divisor
    /// spread over a vector, and the dividend).
    divisor: D::Vector,
    dividend: D::Vector,
}

impl<D: Device> ProductParts<D> {
    /// Parts for `n` variables, `ns` slacks and `m` rows (`hybrid`: slacks on some rows
    /// only).
    fn new(device: &D, n: usize, ns: usize, m: usize, hybrid: bool) -> Result<Self, SolverError> {
        let rows = if hybrid { m } else { 0 };
        Ok(Self {
            px: device.zeros(n)?,
            ps: device.zeros(ns)?,
            py: device.zeros(m)?,
            ox: device.zeros(n)?,
            os: device.zeros(ns)?,
            oy: device.zeros(m)?,
            tx: device.zeros(n)?,
            s_rows: device.zeros(rows)?,
            os_rows: device.zeros(rows)?,
            divisor: device.zeros(n + ns + m)?,
            dividend: device.zeros(n + ns + m)?,
        })
    }
}

/// The KKT system of the last factorization as the refinement driver sees it: solves
/// through the condensed (or hybrid) form, products with the full matrix
/// `[[W + Σx + δw, 0, Jᵀ], [0, Σs + δw, −Iₛ], [J, −Iₛᵀ, −δc]]` over `(x, s, y)` (`Iₛ` maps
/// each slack to its row).
struct FullSystem<'a, D: Device, F> {
    device: &'a D,
    n: usize,
    ns: usize,
    m: usize,
    condensed: &'a mut CondensedOnDevice<D>,
    /// The hybrid form's part (`None`: the condensed form).
    hybrid: Option<&'a mut HybridOnDevice<D>>,
    /// Conjugate-gradient count ([`crate::CallbackCounts::cg_iterations`]).
    cg_iterations: &'a mut usize,
    factorization: &'a mut F,
    hessian: &'a SymmetricProduct<D>,
    parts: &'a mut ProductParts<D>,
    /// Solve count ([`crate::CallbackCounts::solves`]).
    solves: &'a mut usize,
}

impl<D: Device, F: DeviceFactorization<D>> KrylovSystem for FullSystem<'_, D, F> {
    type Vector = D::Vector;
    type Error = SolverError;
    fn len(&self, v: &D::Vector) -> usize {
        self.device.len(v)
    }
    fn solve_in_place(&mut self, v: &mut D::Vector) -> Result<(), SolverError> {
        let (device, n, ns, m) = (self.device, self.n, self.ns, self.m);
        *self.solves += 1;
        let c = &mut *self.condensed;
        let factorization = &mut *self.factorization;
        device.copy_range(&mut c.bx, 0, v, 0, n);
        device.copy_range(&mut c.by, 0, v, n + ns, m);
        match self.hybrid.as_deref_mut() {
            None => {
                device.copy_range(&mut c.bs, 0, v, n, m);
                c.solve_parts(device, |dx| factorization.solve_in_place(dx))?;
                device.copy_range(v, n, &c.ds, 0, m);
            }
            Some(h) => {
                device.copy_range(&mut h.slacks, 0, v, n, ns);
                h.slacks_to_rows(device, c);
                *self.cg_iterations +=
                    h.solve(device, c, &mut |dx| factorization.solve_in_place(dx))?;
                h.rows_to_slacks(device, c);
                device.copy_range(v, n, &h.slacks, 0, ns);
            }
        }
        device.copy_range(v, 0, &c.dx, 0, n);
        device.copy_range(v, n + ns, &c.dy, 0, m);
        Ok(())
    }
    fn matvec(&mut self, v: &D::Vector, out: &mut D::Vector) -> Result<(), SolverError> {
        let (device, n, ns, m) = (self.device, self.n, self.ns, self.m);
        let c = &*self.condensed;
        let p = &mut *self.parts;
        device.copy_range(&mut p.px, 0, v, 0, n);
        device.copy_range(&mut p.ps, 0, v, n, ns);
        device.copy_range(&mut p.py, 0, v, n + ns, m);
        // ox = W x + (Σx + δw) x + Jᵀ y
        self.hessian.apply(device, &c.hess, &p.px, &mut p.ox);
        device.mul(&mut p.tx, &c.sigma_x, &p.px);
        device.axpy(1.0, &p.tx, &mut p.ox);
        c.plans
            .jac_t_mul(device, &c.jac, 1.0, &p.py, 1.0, &mut p.ox);
        // os = (Σs + δw) s − y (on the slacks' rows); `s` per row is zero on the hybrid
        // form's equality rows
        let s_rows = match self.hybrid.as_deref() {
            None => {
                device.mul(&mut p.os, &c.sigma_s, &p.ps);
                device.axpy(-1.0, &p.py, &mut p.os);
                &p.ps
            }
            Some(h) => {
                device.fill(&mut p.s_rows, 0.0);
                device.scatter(&mut p.s_rows, h.slack_rows(), &p.ps);
                device.mul(&mut p.os_rows, &c.sigma_s, &p.s_rows);
                device.axpy(-1.0, &p.py, &mut p.os_rows);
                device.gather(&mut p.os, &p.os_rows, h.slack_rows());
                &p.s_rows
            }
        };
        // oy = J x − s − δc y
        c.plans.jac_mul(device, &c.jac, 1.0, &p.px, 0.0, &mut p.oy);
        device.axpy(-1.0, s_rows, &mut p.oy);
        device.axpy(-c.delta_c, &p.py, &mut p.oy);
        device.copy_range(out, 0, &p.ox, 0, n);
        device.copy_range(out, n, &p.os, 0, ns);
        device.copy_range(out, n + ns, &p.oy, 0, m);
        Ok(())
    }
    fn dot(&mut self, x: &D::Vector, y: &D::Vector) -> f64 {
        self.device.dot(x, y)
    }
    fn norm_inf(&mut self, v: &D::Vector) -> f64 {
        self.device.norm_inf(v)
    }
    fn copy(&mut self, dst: &mut D::Vector, src: &D::Vector) {
        self.device.copy(dst, src)
    }
    fn axpy(&mut self, a: f64, x: &D::Vector, y: &mut D::Vector) {
        self.device.axpy(a, x, y)
    }
    /// `v_i / d` as the host divides (not `v_i · (1/d)`, which can differ in the last
    /// bit): three kernels over two scratch vectors.
    fn div_scalar(&mut self, v: &mut D::Vector, d: f64) {
        let p = &mut *self.parts;
        self.device.fill(&mut p.divisor, d);
        self.device.copy(&mut p.dividend, v);
        self.device.div(v, &p.dividend, &p.divisor);
    }
}

/// Makes the factorization of a new backend (the restoration problem's).
pub type FactorizationMaker<F> = Arc<dyn Fn() -> Result<F, SolverError> + Send + Sync>;

/// [`Backend`] over any device `D` with the condensed (or hybrid) KKT system on the device
/// and the factorization `F` (see the module documentation).
pub struct DeviceKktBackend<D: Device, F: DeviceFactorization<D>> {
    eval: Evaluation<D>,
    condensed: CondensedOnDevice<D>,
    /// The hybrid form's part (`kkt = hybrid`), `None` for the condensed form.
    hybrid: Option<HybridOnDevice<D>>,
    factorization: F,
    make_factorization: FactorizationMaker<F>,
    hessian: SymmetricProduct<D>,
    /// Right-hand side and solution of the full system `(x, s, y)`, length `n + 2m`.
    rhs: D::Vector,
    sol: D::Vector,
    parts: ProductParts<D>,
    work: KrylovWork<D::Vector>,
    refine_opts: RefineOptions,
    cause: FactorizationCause,
}

impl<D: Device, F: DeviceFactorization<D>> DeviceKktBackend<D, F> {
    /// A backend on `device` for `model` laid out as `lay` (condensed: every row has a
    /// slack; hybrid: the equality rows have none), factorizing with what
    /// `make_factorization` makes (called once here and once per restoration backend: once
    /// per structure that enters restoration).
    ///
    /// # Errors
    /// [`SolverError::BadStructure`] for a bad sparsity structure;
    /// [`SolverError::Linalg`] when `opts.kkt` is augmented, the layout of a condensed
    /// system is not the condensed one, or the analysis fails; a device failure.
    pub fn new(
        device: Arc<D>,
        model: &dyn DeviceNlp<D>,
        lay: &Layout,
        opts: &Options,
        make_factorization: FactorizationMaker<F>,
    ) -> Result<Self, SolverError> {
        let condensed_layout =
            lay.ns == lay.m && lay.slack_rows.iter().enumerate().all(|(k, &j)| k == j);
        let hybrid = opts.kkt == KktKind::Hybrid;
        if !(hybrid || opts.kkt == KktKind::Condensed && condensed_layout) {
            return Err(SolverError::Linalg(LinalgError::InvalidState(format!(
                "the KKT system on the device ({}) is condensed or hybrid only: kkt = \
                 condensed with every row with a slack, or kkt = hybrid (asked: kkt = {:?})",
                device.name(),
                opts.kkt
            ))));
        }
        let eval = Evaluation::new(device, model, lay)?;
        let (n, ns, m) = (lay.n, lay.ns, lay.m);
        let pattern = CondensedKkt::new(n, m, &eval.hrows, &eval.hcols, &eval.jrows, &eval.jcols)?;
        let mut factorization = make_factorization()?;
        factorization.analyze(n, pattern.col_ptr(), pattern.row_idx())?;
        let dev = eval.device();
        let condensed =
            CondensedOnDevice::new(dev, &pattern, &eval.jrows, &eval.jcols, eval.hrows.len())?;
        let hybrid = if hybrid {
            Some(HybridOnDevice::new(dev, lay, opts.hybrid_gamma)?)
        } else {
            None
        };
        let hessian = SymmetricProduct::new(dev, n, &eval.hrows, &eval.hcols)?;
        let parts = ProductParts::new(dev, n, ns, m, hybrid.is_some())?;
        let nk = n + ns + m;
        let (rhs, sol) = (dev.zeros(nk)?, dev.zeros(nk)?);
        let krylov_dim = opts.max_refinement_steps.min(DEFAULT_KRYLOV_DIM);
        let work = KrylovWork::with_vectors(nk, krylov_dim, |len| dev.zeros(len))?;
        Ok(Self {
            condensed,
            hybrid,
            factorization,
            make_factorization,
            hessian,
            rhs,
            sol,
            parts,
            work,
            refine_opts: RefineOptions {
                residual_ratio_max: opts.residual_ratio_max,
                min_steps: opts.min_refinement_steps,
                max_steps: opts.max_refinement_steps,
                ..RefineOptions::default()
            },
            cause: FactorizationCause::default(),
            eval,
        })
    }

    /// The factorization (e.g. to read library-specific counters).
    pub fn factorization(&self) -> &F {
        &self.factorization
    }
}

impl<D: Device, F: DeviceFactorization<D>> Backend for DeviceKktBackend<D, F> {
    type Vector = D::Vector;
    type Index = D::Index;
    type Device = D;

    fn evaluation(&self) -> &Evaluation<D> {
        &self.eval
    }
    fn evaluation_mut(&mut self) -> &mut Evaluation<D> {
        &mut self.eval
    }
    fn analysis_seconds(&self) -> f64 {
        self.factorization.analysis_seconds()
    }

    fn for_model(
        &self,
        model: &dyn DeviceNlp<D>,
        lay: &Layout,
        opts: &Options,
    ) -> Result<Self, SolverError> {
        Self::new(
            self.eval.shared_device(),
            model,
            lay,
            opts,
            Arc::clone(&self.make_factorization),
        )
    }

    fn kkt_factorize(
        &mut self,
        sigma: &D::Vector,
        delta_w: f64,
        delta_c: f64,
        hessian: bool,
    ) -> Result<KktStatus, SolverError> {
        let Self {
            eval,
            condensed,
            hybrid,
            factorization,
            cause,
            ..
        } = self;
        eval.timed(Phase::Factorization, |eval| {
            cause.factorized(&mut eval.counts, false);
            let (n, nw) = (eval.n, eval.nw);
            let device = &*eval.device;
            // Σx + δw and Σ' = Σs + δw (condensed: slack j of row j; hybrid: per slack),
            // W (or zeros) and J
            let c = &mut *condensed;
            device.copy_range(&mut c.sigma_x, 0, sigma, 0, n);
            device.shift(&mut c.sigma_x, delta_w);
            let sigma_s = match hybrid {
                None => &mut c.sigma_s,
                Some(h) => &mut h.slacks,
            };
            device.copy_range(sigma_s, 0, sigma, n, nw - n);
            device.shift(sigma_s, delta_w);
            if !(device.norm_inf(&c.sigma_x).is_finite() && device.norm_inf(sigma_s).is_finite()) {
                // An overflowing barrier diagonal cannot be repaired by δ_w: report it as
                // wrong inertia so the correction loop ends in ErrorInStepComputation.
                return Ok(KktStatus::WrongInertia);
            }
            if hessian {
                device.copy(&mut c.hess, &eval.hvals);
            } else {
                device.fill(&mut c.hess, 0.0);
            }
            device.copy(&mut c.jac, &eval.jvals);
            match hybrid {
                None => c.assemble(device, delta_c)?,
                Some(h) => h.assemble(device, c, delta_c)?,
            }
            let status = factorization.factorize(&c.kvals)?;
            let inertia = factorization.inertia();
            tracing::trace!(
                ?status,
                ?inertia,
                delta_w,
                delta_c,
                "condensed KKT factorization"
            );
            let definite =
                inertia.is_none_or(|i| i.positive == n && i.negative == 0 && i.zero == 0);
            Ok(if status == FactorStatus::Success && definite {
                KktStatus::Correct
            } else {
                KktStatus::WrongInertia
            })
        })
    }

    fn kkt_reset_quality(&mut self) {
        self.cause.reset();
    }

    fn kkt_solve(
        &mut self,
        rw: &D::Vector,
        ry: &D::Vector,
        dw: &mut D::Vector,
        dy: &mut D::Vector,
    ) -> Result<bool, SolverError> {
        let Self {
            eval,
            condensed,
            hybrid,
            factorization,
            hessian,
            rhs,
            sol,
            parts,
            work,
            refine_opts,
            cause,
            ..
        } = self;
        eval.timed(Phase::Solves, |eval| {
            cause.solved(&mut eval.counts);
            let (n, m, nw) = (eval.n, eval.m, eval.nw);
            let device = &*eval.device;
            device.copy_range(rhs, 0, rw, 0, nw);
            device.copy_range(rhs, nw, ry, 0, m);
            device.copy(sol, rhs);
            let mut system = FullSystem {
                device,
                n,
                ns: nw - n,
                m,
                condensed,
                hybrid: hybrid.as_mut(),
                cg_iterations: &mut eval.counts.cg_iterations,
                factorization,
                hessian,
                parts,
                solves: &mut eval.counts.solves,
            };
            // initial solve, then refinement on the full system (the one driver)
            system.solve_in_place(sol)?;
            let stats = refine_krylov(&mut system, rhs, sol, work, refine_opts)?;
            eval.counts.solves_refinement += stats.steps;
            tracing::trace!(
                refinement_steps = stats.steps,
                initial_ratio = stats.initial_ratio,
                ratio = stats.final_ratio,
                "KKT solve"
            );
            device.copy_range(dw, 0, sol, 0, nw);
            device.copy_range(dy, 0, sol, nw, m);
            // accurate: Ipopt's residual_ratio_singular (1e-5)
            Ok(!stats.suspect_singular)
        })
    }
}
