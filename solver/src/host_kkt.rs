//! The interior-point backend over a device whose buffers are host memory ([`Cpu`] and the
//! emulated CUDA device [`simdnlp_device::Emu`]): vectors and kernels of the device, the
//! model evaluated into device vectors through [`DeviceNlp`] (the Jacobian and Hessian
//! values are kept in device vectors), and the KKT system (assembly, faer factorizations
//! through [`simdnlp_linalg`], iterative refinement) on the host slices of the device's
//! vectors. The model evaluation and the per-iteration vector work outside the KKT system
//! are the shared [`Evaluation`]'s (device kernels); the condensed form's assembly,
//! reduction and expansion run as device kernels shared with
//! [`crate::device_kkt::DeviceKktBackend`].
//!
//! The backend reads and writes the device's vectors in place ([`HostBuffers`]) without
//! synchronizing first, so the device must finish a kernel before its method returns
//! (both devices above do). Kernel failures are collected by the device and reported once
//! per iteration through [`Backend::synchronize`].
//!
//! [`Cpu`]: simdnlp_device::Cpu

use crate::backend::{Backend, KktStatus};
use crate::device_kkt::CondensedOnDevice;
use crate::evaluate::DeviceNlp;
use crate::evaluation::{Evaluation, FactorizationCause, Phase};
use crate::hybrid_kkt::HybridKkt;
use crate::layout::Layout;
use crate::options::{InertiaConfirmation, KktKind, LinearSolverKind, Options, OrderingKind};
use crate::result::{CallbackCounts, SolverError};
use simdnlp_device::{Device, HostBuffers};
use simdnlp_linalg::condensed::CondensedKkt;
use simdnlp_linalg::ordering::{AUTO_DEFERRED_FACTORIZATIONS, FillMethod, FillOrdering};
use simdnlp_linalg::refine::DEFAULT_KRYLOV_DIM;
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    FactorStatus, FaerLblt, FaerLdlt, FaerLlt, KktBuilder, MultifrontalLdlt, Parallelism,
    RefineOptions, RefineSystem, RefineWork, SymAssembly, SymmetricSolver, refine_system,
};
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
    /// by the device kernels of [`simdnlp_linalg::DeviceCondensedKkt`].
    Condensed(Box<CondensedOnDevice<D>>),
    /// `K_γ = W + Σx + δw + Jᵢᵀ Dᵢ Jᵢ + α Jₑᵀ Jₑ` over `x`, equality rows without a slack
    /// and exact, their multipliers from the Schur complement by conjugate gradients (see
    /// [`HybridKkt`]); on the host slices of the device's vectors.
    Hybrid(Box<HybridKkt>),
}

/// [`Backend`] on a device `D` whose vectors are host memory: vector algebra and the
/// interior-point kernels run on `D`, the model on `D`'s vectors ([`DeviceNlp`]), the KKT
/// algorithm on the host slices of `D`'s vectors.
pub struct HostKktBackend<D: Device + HostBuffers> {
    /// The model on the device (vectors, counts, times).
    eval: Evaluation<D>,
    /// Zero Hessian values, assembled instead of `hvals` when a factorization asks for no
    /// Hessian (the least-squares multiplier estimate).
    hzero: Vec<f64>,
    hess_used: bool,
    kkt: Kkt<D>,
    solver: Box<dyn SymmetricSolver>,
    /// Bunch–Kaufman LBLᵀ of the augmented matrix, built on first need when the configured
    /// LDLᵀ (no pivoting) leaves a solve inaccurate ([`Backend::kkt_increase_quality`]).
    pivoting: Option<Box<dyn SymmetricSolver>>,
    /// Factorize and solve with `pivoting` instead of `solver`.
    use_pivoting: bool,
    /// `pivoting` was already tried in this step.
    pivoting_tried: bool,
    /// The paired LBLᵀ (see `second_solver`), built when LDLᵀ first meets a zero-diagonal
    /// variable as a zero pivot. While `paired_in_use` the two are swapped: `solver` is the
    /// paired LBLᵀ for the rest of the step and `paired` holds the LDLᵀ, until
    /// [`Backend::kkt_reset_quality`] swaps them back.
    paired: Option<Box<dyn SymmetricSolver>>,
    /// `solver` and `paired` are swapped for this step (see `paired`).
    paired_in_use: bool,
    /// The previous step used the paired LBLᵀ: a second such step in a row makes the
    /// switch permanent.
    paired_last_step: bool,
    /// The multifrontal LDLᵀ with threshold pivoting that confirms LDLᵀ's wrong inertia
    /// at δ_w = 0 (`inertia_confirmation`, see [`confirm_inertia`]), built on first need.
    confirmation: Option<Box<dyn SymmetricSolver>>,
    /// `confirmation` holds a factor with the correct inertia of the last factorized
    /// matrix: the solves use it (cleared by the next factorization and the next step).
    use_confirmation: bool,
    /// This step's δ_w = 0 factorization was confirmed by `confirmation`.
    step_confirmed: bool,
    /// Steps in a row ending with `step_confirmed` (see `Options::confirmation_switch`).
    confirmed_steps: usize,
    /// Confirmations in a row that agreed with LDLᵀ's verdict (the multifrontal's inertia
    /// wrong too): from `confirmation_switch` of them on, LDLᵀ's verdicts stand unconfirmed.
    rejected_confirmations: usize,
    /// A confirmation found the inertia correct where LDLᵀ's was not (at least once in
    /// this backend's life), see [`InertiaConfirmation::MultifrontalBeforeDeltaW`].
    ldlt_disputed: bool,
    /// The last [`Backend::kkt_factorize`] was `Singular` at δ_c = 0 at a pivot lost to
    /// element growth along the static order, not at a zero pivot of the matrix's scale.
    stopped_by_growth: bool,
    /// What `solver` last factorized in this step: `(δ_w, δ_c, hessian)` and the status it
    /// gave (`None` when its factor is not of this step or not valid). Within a step Σ, the
    /// Hessian and the Jacobian values are fixed ([`Backend::kkt_reset_quality`] starts a
    /// step; a new Hessian or Jacobian clears it too), so equal parameters mean the same
    /// matrix: a rejected LBLᵀ attempt on it goes back to that LDLᵀ factor instead of
    /// computing it again.
    solver_matrix: Option<((f64, f64, bool), FactorStatus)>,
    /// Cause of each factorization and solve, for the counts.
    cause: FactorizationCause,
    /// [`Backend::kkt_increase_quality`] switched to `pivoting`: the next factorization is
    /// the LBLᵀ repeat of the same matrix, for the counts.
    pivoting_requested: bool,
    /// How `solver` (and `pivoting`, with its own kind) factorizes.
    factorization: FactorizationChoice,
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
        let eval = Evaluation::new(device, model, lay)?;
        let (n, m, nw) = (lay.n, lay.m, lay.nw());
        let (hrows, hcols, jrows, jcols) = (&eval.hrows, &eval.hcols, &eval.jrows, &eval.jcols);
        let condensed = opts.kkt == KktKind::Condensed;
        let hybrid = opts.kkt == KktKind::Hybrid;
        let factorization = FactorizationChoice::of(opts);
        let zero_diagonal = if factorization.zero_diagonal_ordering {
            structurally_zero_diagonal(lay, hrows, hcols)
        } else {
            Vec::new()
        };
        tracing::debug!(
            zero_diagonal = zero_diagonal.len(),
            "primal indices with a structurally zero diagonal"
        );
        let mut solver = make_solver(&factorization, condensed || hybrid, nw, &zero_diagonal)?;
        let (kkt, nk) = if hybrid {
            let form = HybridKkt::new(lay, (hrows, hcols), (jrows, jcols), opts.hybrid_gamma)?;
            let pat = form.pattern();
            solver.analyze(n, pat.col_ptr(), pat.row_idx())?;
            (Kkt::Hybrid(Box::new(form)), 0)
        } else if condensed {
            let pat = CondensedKkt::new(n, m, hrows, hcols, jrows, jcols)?;
            solver.analyze(n, pat.col_ptr(), pat.row_idx())?;
            let on_device = CondensedOnDevice::new(eval.device(), &pat, jrows, jcols, hrows.len())?;
            // K's values live on the device: no host copy
            (Kkt::Condensed(Box::new(on_device)), 0)
        } else {
            let mut b = KktBuilder::new(nw + m);
            b.block(hrows, hcols, 0, 0)?;
            b.block(jrows, jcols, nw, 0)?;
            let scols: Vec<usize> = (0..lay.ns).collect();
            b.block(&lay.slack_rows, &scols, nw, n)?;
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
        Ok(Self {
            hess_used: false,
            hzero: vec![0.0; hrows.len()],
            kkt,
            solver,
            pivoting: None,
            use_pivoting: false,
            pivoting_tried: false,
            paired: None,
            paired_in_use: false,
            paired_last_step: false,
            confirmation: None,
            use_confirmation: false,
            step_confirmed: false,
            confirmed_steps: 0,
            rejected_confirmations: 0,
            ldlt_disputed: false,
            stopped_by_growth: false,
            solver_matrix: None,
            cause: FactorizationCause::default(),
            pivoting_requested: false,
            factorization,
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
            eval,
        })
    }

    /// Runs `f`, adding its wall time to the evaluation's `phase`.
    fn timed<R>(&mut self, phase: Phase, f: impl FnOnce(&mut Self) -> R) -> R {
        let start = Instant::now();
        let result = f(self);
        self.eval.times.add(phase, start.elapsed().as_secs_f64());
        result
    }

    /// `out = K x` for the full (uncondensed) KKT matrix of the last factorization.
    fn kkt_product(&self, x: &[f64], out: &mut [f64]) -> Result<(), SolverError> {
        let e = &self.eval;
        let (n, nw) = (e.n, e.nw);
        match &self.kkt {
            Kkt::Augmented { asm, .. } => {
                sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &self.kvals, x, out)?;
            }
            Kkt::Condensed(_) | Kkt::Hybrid(_) => {
                let (vw, vy) = x.split_at(nw);
                let (ow, oy) = out.split_at_mut(nw);
                ow.iter_mut().for_each(|a| *a = 0.0);
                oy.iter_mut().for_each(|a| *a = 0.0);
                let (hvals, jvals) = (e.device.host(&e.hvals), e.device.host(&e.jvals));
                if self.hess_used {
                    for (k, (&r, &c)) in e.hrows.iter().zip(&e.hcols).enumerate() {
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
                for (k, (&r, &c)) in e.jrows.iter().zip(&e.jcols).enumerate() {
                    let a = jvals[k];
                    oy[r] += a * vw[c];
                    ow[c] += a * vy[r];
                }
                for (k, &j) in e.slack_rows.iter().enumerate() {
                    oy[j] -= vw[n + k];
                    ow[n + k] -= vy[j];
                }
                for j in 0..e.m {
                    oy[j] -= self.delta.1 * vy[j];
                }
            }
        }
        Ok(())
    }

    /// Ends a step for `Options::confirmation_switch`: counts the steps in a row whose
    /// δ_w = 0 factorization the multifrontal confirmed, and from the configured number on
    /// makes the multifrontal (`confirmation`) the factorization of every later matrix —
    /// LDLᵀ's inertia has been shown wrong that often, and each such step pays for two
    /// factorizations.
    fn switch_after_confirmations(&mut self) {
        let confirmed = std::mem::take(&mut self.step_confirmed);
        self.confirmed_steps = if confirmed {
            self.confirmed_steps + 1
        } else {
            0
        };
        let wanted = self.factorization.confirmation_switch;
        if wanted == 0
            || self.confirmed_steps < wanted
            || !matches!(
                self.factorization.kind,
                LinearSolverKind::Ldlt | LinearSolverKind::LbltPaired
            )
        {
            return;
        }
        let Some(multifrontal) = self.confirmation.take() else {
            return;
        };
        tracing::debug!(
            steps = self.confirmed_steps,
            "LDLT's inertia confirmed by the multifrontal in every recent step: \
             the multifrontal LDLT factorizes from now on"
        );
        self.solver = multifrontal;
        self.factorization.kind = LinearSolverKind::Multifrontal;
        self.pivoting = None;
        self.paired = None;
        self.eval.counts.pivoting_switches += 1;
    }

    /// Counts a confirmation for `Options::confirmation_switch`: one that agreed with
    /// LDLᵀ (`use_confirmation` false) extends the run of such; from the configured number
    /// in a row on, no more are asked for — LDLᵀ's wrong inertia is the matrix's, and each
    /// confirmation costs a multifrontal factorization (cragg_levy:200000: 9 of 9 agree).
    fn count_confirmation(&mut self) {
        if self.use_confirmation {
            self.rejected_confirmations = 0;
            return;
        }
        self.rejected_confirmations += 1;
        let wanted = self.factorization.confirmation_switch;
        if wanted > 0 && self.rejected_confirmations >= wanted {
            tracing::debug!(
                confirmations = self.rejected_confirmations,
                "the multifrontal agreed with LDLT's inertia every time: no more confirmations"
            );
            self.factorization.inertia_confirmation = InertiaConfirmation::None;
        }
    }

    /// The factorization that serves the solves: the multifrontal `confirmation` while
    /// `use_confirmation`, the LBLᵀ fallback `pivoting` while `use_pivoting`, else the
    /// configured `solver` (the paired LBLᵀ while swapped in).
    fn active(&mut self) -> &mut dyn SymmetricSolver {
        let (use_confirmation, use_pivoting) = (self.use_confirmation, self.use_pivoting);
        if let Some(c) = self.confirmation.as_mut().filter(|_| use_confirmation) {
            return c.as_mut();
        }
        if let Some(p) = self.pivoting.as_mut().filter(|_| use_pivoting) {
            return p.as_mut();
        }
        self.solver.as_mut()
    }

    /// Solve with the factorization only (no refinement): `v ← K⁻¹ v` (for the condensed
    /// form: reduce on the device, solve, expand on the device).
    fn raw_solve(&mut self, v: &mut [f64]) -> Result<(), SolverError> {
        let (n, nw) = (self.eval.n, self.eval.nw);
        self.eval.counts.solves += 1;
        match &mut self.kkt {
            Kkt::Augmented { .. } => {
                self.active().solve_in_place(v)?;
            }
            Kkt::Condensed(on_device) => {
                // v = (bx, bs, by): row j has slack j (condensed layouts put every row in
                // order)
                let dev = &mut **on_device;
                let device = &*self.eval.device;
                let (bx, rest) = v.split_at_mut(n);
                let (bs, by) = rest.split_at_mut(nw - n);
                device.host_mut(&mut dev.bx).copy_from_slice(bx);
                device.host_mut(&mut dev.bs).copy_from_slice(bs);
                device.host_mut(&mut dev.by).copy_from_slice(by);
                let solver = &mut self.solver;
                dev.solve_parts(device, |dx| solver.solve_in_place(device.host_mut(dx)))?;
                bx.copy_from_slice(device.host(&dev.dx));
                bs.copy_from_slice(device.host(&dev.ds));
                by.copy_from_slice(device.host(&dev.dy));
            }
            Kkt::Hybrid(form) => {
                let e = &self.eval;
                let jac = e.device.host(&e.jvals);
                form.solve(&mut *self.solver, jac, (&e.jrows, &e.jcols), v)?;
                self.eval.counts.cg_iterations += form.last_cg().iterations;
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

/// The factorization options of a solve, as [`make_solver`] takes them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FactorizationChoice {
    /// LDLᵀ or LBLᵀ for the augmented system (the condensed one is always Cholesky).
    pub kind: LinearSolverKind,
    /// Threads of the factorization (1: sequential).
    pub threads: usize,
    /// Base fill-reducing ordering.
    pub ordering: OrderingKind,
    /// Relative static-pivot value of the augmented LDLᵀ (`0`: off), see
    /// `Options::zero_pivot_perturbation`.
    pub zero_pivot_perturbation: f64,
    /// Whether the augmented LDLᵀ places structurally zero-diagonal variables after a
    /// constraint, see `Options::zero_diagonal_ordering`.
    pub zero_diagonal_ordering: bool,
    /// Pivot threshold of the multifrontal LDLᵀ, see `Options::pivot_threshold`.
    pub pivot_threshold: f64,
    /// Whether LDLᵀ's wrong (or singular) inertia at δ_w = 0 is confirmed by the
    /// multifrontal LDLᵀ, see `Options::inertia_confirmation`.
    pub inertia_confirmation: InertiaConfirmation,
    /// Confirmed steps in a row after which the multifrontal LDLᵀ replaces LDLᵀ (`0`:
    /// never), see `Options::confirmation_switch`.
    pub confirmation_switch: usize,
}

impl FactorizationChoice {
    /// The choice the options make.
    pub(crate) fn of(opts: &Options) -> Self {
        Self {
            kind: opts.linear_solver,
            threads: opts.factorization_threads,
            ordering: opts.ordering,
            zero_pivot_perturbation: opts.zero_pivot_perturbation,
            zero_diagonal_ordering: opts.zero_diagonal_ordering,
            pivot_threshold: opts.pivot_threshold,
            inertia_confirmation: opts.inertia_confirmation,
            confirmation_switch: opts.confirmation_switch,
        }
    }
}

/// The primal indices of `w = (x, s)` whose diagonal in `W + Σ` is structurally zero at
/// δ_w = 0: no Hessian diagonal entry in the pattern `(hrows, hcols)` and no finite bound.
fn structurally_zero_diagonal(lay: &Layout, hrows: &[usize], hcols: &[usize]) -> Vec<usize> {
    let mut curved = vec![false; lay.nw()];
    for (&r, &c) in hrows.iter().zip(hcols) {
        if r == c {
            curved[r] = true;
        }
    }
    (0..lay.nw())
        .filter(|&i| !curved[i] && !lay.lo[i].is_finite() && !lay.up[i].is_finite())
        .collect()
}

/// A faer factorization as `choice` says: Cholesky of the condensed system (`condensed`),
/// else LDLᵀ or LBLᵀ of the augmented system with `n_primal` primal rows first. The
/// augmented LDLᵀ places the primal rows listed in `zero_diagonal` (structurally zero
/// diagonal, see `structurally_zero_diagonal`) after a constraint that gives them a nonzero
/// pivot.
pub(crate) fn make_solver(
    choice: &FactorizationChoice,
    condensed: bool,
    n_primal: usize,
    zero_diagonal: &[usize],
) -> Result<Box<dyn SymmetricSolver>, SolverError> {
    let par = if choice.threads == 1 {
        Parallelism::Sequential
    } else {
        Parallelism::rayon_threads(choice.threads)
    };
    let method = match choice.ordering {
        OrderingKind::Amd => FillMethod::Amd,
        OrderingKind::NestedDissection => FillMethod::NestedDissection,
        OrderingKind::Auto => FillMethod::Auto,
    };
    if condensed {
        let mut s = FaerLlt::new(par);
        s.set_ordering(FillOrdering::of_method(method));
        s.set_deferred_ordering(AUTO_DEFERRED_FACTORIZATIONS);
        s.set_zero_pivot_tol(ZERO_PIVOT_TOL)?;
        return Ok(Box::new(s));
    }
    let ord = FillOrdering::kkt_matched(n_primal, method);
    Ok(match choice.kind {
        LinearSolverKind::Ldlt => {
            let mut s = FaerLdlt::new(par);
            s.set_ordering(ord);
            s.set_deferred_ordering(AUTO_DEFERRED_FACTORIZATIONS);
            s.set_zero_diagonal(zero_diagonal);
            s.set_zero_pivot_tol(ZERO_PIVOT_TOL)?;
            s.set_zero_pivot_perturbation(choice.zero_pivot_perturbation, n_primal)?;
            Box::new(s)
        }
        LinearSolverKind::Lblt | LinearSolverKind::LbltPaired => {
            let mut s = FaerLblt::new(par);
            s.set_deferred_ordering(AUTO_DEFERRED_FACTORIZATIONS);
            s.set_ordering(if choice.kind == LinearSolverKind::LbltPaired {
                FillOrdering::KktPaired { n_primal }
            } else {
                ord
            });
            s.set_zero_pivot_tol(ZERO_PIVOT_TOL)?;
            Box::new(s)
        }
        LinearSolverKind::Multifrontal => {
            let mut s = MultifrontalLdlt::new();
            s.set_ordering(ord);
            s.set_threads(choice.threads);
            s.set_zero_pivot_tol(ZERO_PIVOT_TOL)?;
            s.set_pivot_threshold(choice.pivot_threshold)?;
            Box::new(s)
        }
    })
}

/// `choice`'s factorization with `kind` instead of its own (its other settings kept),
/// analyzed on `asm`'s pattern (`nk = (nw, m)`): the second factorizations a backend builds
/// on first need — the LBLᵀ fallback after an inaccurate solve, the paired LBLᵀ, and the
/// multifrontal LDLᵀ that confirms LDLᵀ's inertia (see [`confirm_inertia`]).
///
/// The paired LBLᵀ (`kind = LbltPaired`: Bunch–Kaufman on [`FillOrdering::KktPaired`])
/// replaces LDLᵀ without pivoting on the KKT-matched ordering for the rest of a step, and
/// for the rest of the backend's life (re-solves of the same structure reuse the backend
/// and keep it) from the second step in a row that needs it.
///
/// When: an LDLᵀ factorization at δ_w = 0 stopped at an exact zero pivot of a variable
/// whose diagonal entry `W_ii + Σ_i` is itself an exact zero.
///
/// Why: the KKT-matched ordering guarantees nonzero LDLᵀ pivots only when `W + Σx` has a
/// positive diagonal. A free variable without curvature (a state entering its dynamics
/// linearly, an altitude maximized linearly: COPS glider, chain, methanol) has a zero
/// diagonal at δ_w = 0, and eliminated before any of its constraints it is an exact zero
/// pivot although the matrix may be nonsingular with the inertia of a descent step — so
/// the inertia correction would add a δ_w (an inexact Newton step) in every iteration, and
/// δ_c, which it tries first, cannot remove a variable's zero pivot. The paired ordering
/// eliminates each constraint right after its matched variable, where LBLᵀ takes the pair
/// as a 2×2 pivot `[[0, a], [a, −δc]]`; δ_w is then needed only for the curvature of the
/// problem itself, as with a pivoting factorization (MUMPS in Ipopt).
fn second_solver(
    choice: &FactorizationChoice,
    kind: LinearSolverKind,
    nk: (usize, usize),
    asm: &SymAssembly,
) -> Result<Box<dyn SymmetricSolver>, SolverError> {
    let other = FactorizationChoice { kind, ..*choice };
    let mut solver = make_solver(&other, false, nk.0, &[])?;
    solver.analyze(nk.0 + nk.1, asm.col_ptr(), asm.row_idx())?;
    Ok(solver)
}

/// Whether the verdicts at δ_w = 0 of the backend's `solver` (`choice.kind`, the paired
/// LBLᵀ swapped in while `paired_in_use`) may be confirmed by the multifrontal: LDLᵀ's,
/// and with [`InertiaConfirmation::MultifrontalBeforeDeltaW`] also the paired LBLᵀ's (for
/// a step or for good). The paired LBLᵀ's 2×2 pivots still meet exact zero pivots on COPS
/// chain, whose matrices the multifrontal factorizes with the correct inertia at δ_w = 0
/// (Ipopt's 6 iterations with `linear_solver = multifrontal`; 13 with a δ_w in every
/// step without).
fn confirms_solver(choice: &FactorizationChoice, paired_in_use: bool) -> bool {
    let paired_too = choice.inertia_confirmation == InertiaConfirmation::MultifrontalBeforeDeltaW;
    match choice.kind {
        LinearSolverKind::Ldlt => !paired_in_use || paired_too,
        LinearSolverKind::LbltPaired => paired_too,
        _ => false,
    }
}

/// LDLᵀ's verdict on a matrix factorized at δ_w = 0, as [`confirmation_asked`] reads it.
#[derive(Clone, Copy, Debug)]
struct LdltVerdict {
    /// The inertia-correction verdict.
    status: KktStatus,
    /// The matrix's Jacobian regularization δ_c.
    delta_c: f64,
    /// A singular factorization stopped at a zero pivot of a constraint row.
    constraint_zero_pivot: bool,
    /// An earlier confirmation of this backend found the inertia correct where LDLᵀ's
    /// (or the paired LBLᵀ's) was not.
    disputed_before: bool,
    /// The verdict is the paired LBLᵀ's (swapped in for LDLᵀ), not LDLᵀ's.
    paired: bool,
}

/// Whether `confirmation` asks for a multifrontal repeat of a matrix that LDLᵀ factorized
/// at δ_w = 0 with the verdict `ldlt` (see [`InertiaConfirmation`]).
fn confirmation_asked(confirmation: InertiaConfirmation, ldlt: LdltVerdict) -> bool {
    match (confirmation, ldlt.status) {
        (InertiaConfirmation::None, _) | (_, KktStatus::Correct) => false,
        // the verdicts after which the inertia correction adds δ_w: a wrong inertia (at
        // δ_c > 0 only once the multifrontal has shown the inertia wrong in this backend),
        // and the paired LBLᵀ's singular verdict at δ_c > 0; LDLᵀ's singular verdicts go
        // to δ_c, then to a δ_w (late on the GOC cases, tiny and harmless)
        (InertiaConfirmation::MultifrontalBeforeDeltaW, KktStatus::WrongInertia) => {
            ldlt.delta_c == 0.0 || ldlt.disputed_before
        }
        (InertiaConfirmation::MultifrontalBeforeDeltaW, KktStatus::Singular) => {
            ldlt.delta_c > 0.0 && ldlt.paired
        }
        (_, KktStatus::WrongInertia) => true,
        (InertiaConfirmation::MultifrontalSingular, KktStatus::Singular) => true,
        (InertiaConfirmation::MultifrontalSelective, KktStatus::Singular) => {
            ldlt.delta_c > 0.0 || ldlt.constraint_zero_pivot
        }
        (_, KktStatus::Singular) => false,
    }
}

/// Re-factorizes `values` (the matrix that LDLᵀ without pivoting just factorized at
/// δ_w = 0 with the verdict `ldlt_status`) with the multifrontal LDLᵀ `confirmation`
/// (built on first call; the caller checks [`confirmation_asked`]); returns its status
/// when its inertia is correct, so that its factor serves the solves of this matrix
/// (counted in `factorizations`, `factorizations_pivoting`, `inertia_confirmations` and
/// `inertia_confirmed`), `None` when not asked or not confirmed (LDLᵀ's verdict stands).
///
/// Why: LDLᵀ without pivoting on the static KKT-matched ordering takes every pivot as it
/// comes; a tiny pivot of the wrong sign (cancellation, growth) miscounts the inertia of a
/// matrix whose inertia is correct, and the inertia correction then adds a δ_w that a
/// pivoting factorization (Ipopt's MUMPS) does not need (case2869_pegase).
fn confirm_inertia(
    confirmation: &mut Option<Box<dyn SymmetricSolver>>,
    choice: &FactorizationChoice,
    ldlt_status: KktStatus,
    asm: &SymAssembly,
    values: &[f64],
    nk: (usize, usize),
    counts: &mut CallbackCounts,
) -> Result<Option<FactorStatus>, SolverError> {
    let factor = match confirmation {
        Some(f) => f,
        // built once per backend, on first need (this allocates the third factor)
        None => confirmation.insert(second_solver(
            choice,
            LinearSolverKind::Multifrontal,
            nk,
            asm,
        )?),
    };
    counts.factorizations += 1;
    counts.factorizations_pivoting += 1;
    counts.inertia_confirmations += 1;
    let st = factor.factorize(values)?;
    let status = verdict(st, factor.as_ref(), nk);
    tracing::debug!(?ldlt_status, ?status, inertia = ?factor.inertia(), "inertia confirmation");
    if status != KktStatus::Correct {
        // (an accepted factor's delayed pivots are counted as the factor in use's)
        counts.delayed_pivots += factor.delayed_pivots();
        return Ok(None);
    }
    counts.inertia_confirmed += 1;
    Ok(Some(st))
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

/// [`factorize_remembered`] as a repeat of the same matrix with another factorization
/// (LDLᵀ after a rejected LBLᵀ, the paired LBLᵀ after LDLᵀ's zero pivot): counted in
/// `factorizations` and `factorizations_pivoting`.
fn refactorize_remembered(
    solver: &mut Box<dyn SymmetricSolver>,
    values: &[f64],
    params: (f64, f64, bool),
    remembered: &mut Option<((f64, f64, bool), FactorStatus)>,
    counts: &mut CallbackCounts,
) -> Result<FactorStatus, SolverError> {
    counts.factorizations += 1;
    counts.factorizations_pivoting += 1;
    factorize_remembered(solver, values, params, remembered)
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

/// The inertia-correction verdict on `factor`'s last factorization, of status `st`:
/// [`classify`], except that where static pivoting replaced exact zero pivots and the
/// perturbed factor does not have the inertia of a KKT matrix, the exact zero pivot is
/// reported as before (singular: δ_c first), not the perturbed factor's count.
fn verdict(st: FactorStatus, factor: &dyn SymmetricSolver, nk: (usize, usize)) -> KktStatus {
    match classify(st, factor.inertia(), nk) {
        status if status != KktStatus::Correct && factor.perturbed_pivots() > 0 => {
            KktStatus::Singular
        }
        status => status,
    }
}

impl<D: Device + HostBuffers> Backend for HostKktBackend<D> {
    type Vector = D::Vector;
    type Index = D::Index;
    type Device = D;

    fn evaluation(&self) -> &Evaluation<D> {
        &self.eval
    }
    fn evaluation_mut(&mut self) -> &mut Evaluation<D> {
        &mut self.eval
    }

    fn for_model(
        &self,
        model: &dyn DeviceNlp<D>,
        lay: &Layout,
        opts: &Options,
    ) -> Result<Self, SolverError> {
        Self::new(self.eval.shared_device(), model, lay, opts)
    }

    /// The shared evaluation, which also forgets the LDLᵀ factor of this step: a new
    /// Jacobian is a new matrix.
    fn eval_jac(&mut self, model: &dyn DeviceNlp<D>, w: &D::Vector) -> bool {
        self.solver_matrix = None;
        self.eval.jac(model, w)
    }
    /// The shared evaluation, which also forgets the LDLᵀ factor of this step: a new
    /// Hessian is a new matrix.
    fn eval_hess(
        &mut self,
        model: &dyn DeviceNlp<D>,
        w: &D::Vector,
        y: &D::Vector,
        sigma: f64,
    ) -> bool {
        self.solver_matrix = None;
        self.eval.hess(model, w, y, sigma)
    }

    fn kkt_factorize(
        &mut self,
        sigma: &D::Vector,
        delta_w: f64,
        delta_c: f64,
        hessian: bool,
    ) -> Result<KktStatus, SolverError> {
        let sigma = self.eval.device.host(sigma);
        self.timed(Phase::Factorization, |s| {
            // Cause of this factorization (counts only): the LBLᵀ switch, or see
            // FactorizationCause.
            s.cause.factorized(&mut s.eval.counts, s.pivoting_requested);
            s.pivoting_requested = false;
            s.use_confirmation = false;
            s.stopped_by_growth = false;
            s.delta = (delta_w, delta_c);
            for (d, v) in s.diag_w.iter_mut().zip(sigma) {
                *d = v + delta_w;
            }
            s.diag_c.iter_mut().for_each(|v| *v = -delta_c);
            let h: &[f64] = if hessian {
                s.eval.device.host(&s.eval.hvals)
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
                        &[
                            h,
                            s.eval.device.host(&s.eval.jvals),
                            minus_ones,
                            &s.diag_w,
                            &s.diag_c,
                        ],
                        &mut s.kvals,
                    )?;
                    let nk = (s.eval.nw, s.eval.m);
                    let use_pivoting = s.use_pivoting;
                    if let Some(pivoting) = s.pivoting.as_mut().filter(|_| use_pivoting) {
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
                            _ => refactorize_remembered(
                                &mut s.solver,
                                &s.kvals,
                                (delta_w, delta_c, hessian),
                                &mut s.solver_matrix,
                                &mut s.eval.counts,
                            )?,
                        }
                    } else {
                        let st = factorize_remembered(
                            &mut s.solver,
                            &s.kvals,
                            (delta_w, delta_c, hessian),
                            &mut s.solver_matrix,
                        )?;
                        // A variable whose own diagonal entry is an exact zero (no
                        // curvature, no bound, δ_w = 0) met as an exact zero pivot: no
                        // constraint was eliminated before it to fill its diagonal. A zero
                        // pivot of a variable with a nonzero diagonal is cancellation (seen
                        // late in PGLIB solves): left to the inertia correction, as before.
                        let (col_ptr, row_idx) = (asm.col_ptr(), asm.row_idx());
                        let zero_diagonal_pivot = s.solver.zero_pivot_row().filter(|&r| {
                            r < nk.0
                                && row_idx.get(col_ptr[r]) == Some(&r)
                                && s.kvals[col_ptr[r]] == 0.0
                        });
                        let st = match zero_diagonal_pivot {
                            Some(row)
                                if st == FactorStatus::Singular
                                    && delta_w == 0.0
                                    && s.factorization.kind == LinearSolverKind::Ldlt =>
                            {
                                // The static order met a variable without curvature or
                                // bounds before any of its constraints: the ordering's
                                // failure, not the matrix's. Pair each constraint with its
                                // matched variable and pivot on 2×2 blocks for the rest of
                                // this step; for good when the previous step needed it too
                                // (a variable that stays without curvature, as glider's
                                // altitude; one-off zero diagonals at the start, as on
                                // case9591_goc, go back to LDLᵀ). See `second_solver`.
                                let permanent = s.paired_last_step;
                                tracing::debug!(
                                    row,
                                    delta_c,
                                    permanent,
                                    "LDLT met a variable with a zero diagonal as an exact zero \
                                     pivot at delta_w = 0: factorizing with the paired LBLT"
                                );
                                let paired = match s.paired.take() {
                                    Some(p) => p,
                                    None => second_solver(
                                        &s.factorization,
                                        LinearSolverKind::LbltPaired,
                                        nk,
                                        asm,
                                    )?,
                                };
                                let ldlt = std::mem::replace(&mut s.solver, paired);
                                if permanent {
                                    s.factorization.kind = LinearSolverKind::LbltPaired;
                                    s.pivoting = None;
                                    s.eval.counts.pivoting_switches += 1;
                                } else {
                                    s.paired = Some(ldlt);
                                    s.paired_in_use = true;
                                }
                                s.use_pivoting = false;
                                s.solver_matrix = None;
                                s.eval.counts.paired_repeats += 1;
                                refactorize_remembered(
                                    &mut s.solver,
                                    &s.kvals,
                                    (delta_w, delta_c, hessian),
                                    &mut s.solver_matrix,
                                    &mut s.eval.counts,
                                )?
                            }
                            _ => st,
                        };
                        if delta_w == 0.0 && confirms_solver(&s.factorization, s.paired_in_use) {
                            let ldlt_status = verdict(st, s.solver.as_ref(), nk);
                            let zero_pivot_row = s.solver.zero_pivot_row();
                            let ldlt = LdltVerdict {
                                status: ldlt_status,
                                delta_c,
                                constraint_zero_pivot: zero_pivot_row.is_some_and(|r| r >= nk.0),
                                disputed_before: s.ldlt_disputed,
                                paired: s.paired_in_use
                                    || s.factorization.kind == LinearSolverKind::LbltPaired,
                            };
                            tracing::debug!(?ldlt, ?zero_pivot_row, "LDLT verdict at delta_w = 0");
                            let asked =
                                confirmation_asked(s.factorization.inertia_confirmation, ldlt);
                            let confirmed = if asked {
                                confirm_inertia(
                                    &mut s.confirmation,
                                    &s.factorization,
                                    ldlt_status,
                                    asm,
                                    &s.kvals,
                                    nk,
                                    &mut s.eval.counts,
                                )?
                            } else {
                                None
                            };
                            s.use_confirmation = confirmed.is_some();
                            s.ldlt_disputed |= s.use_confirmation;
                            s.step_confirmed |= s.use_confirmation;
                            if asked {
                                s.count_confirmation();
                            }
                            confirmed.unwrap_or(st)
                        } else {
                            st
                        }
                    }
                }
                Kkt::Condensed(on_device) => {
                    // the device mirrors Σx + δw, Σ' = Σs + δw (slack j of row j), W and
                    // J; D and q carry δc; K is assembled there
                    let dev = &mut **on_device;
                    let device = &*s.eval.device;
                    let n = s.eval.n;
                    device
                        .host_mut(&mut dev.sigma_x)
                        .copy_from_slice(&s.diag_w[..n]);
                    device
                        .host_mut(&mut dev.sigma_s)
                        .copy_from_slice(&s.diag_w[n..]);
                    device.host_mut(&mut dev.hess).copy_from_slice(h);
                    device.copy(&mut dev.jac, &s.eval.jvals);
                    dev.assemble(device, delta_c)?;
                    s.solver.factorize(device.host(&dev.kvals))?
                }
                Kkt::Hybrid(form) => form.factorize(
                    &mut *s.solver,
                    h,
                    &s.diag_w,
                    s.eval.device.host(&s.eval.jvals),
                    delta_c,
                )?,
            };
            let nk = (s.eval.nw, s.eval.m);
            if matches!(s.kkt, Kkt::Condensed(_) | Kkt::Hybrid(_)) {
                // Cholesky cannot tell a singular matrix from a wrong inertia: a failure is
                // "wrong inertia" (the algorithm adds δ_c after repeated ones).
                return Ok(match st {
                    FactorStatus::Success => KktStatus::Correct,
                    _ => KktStatus::WrongInertia,
                });
            }
            let (pivoting, confirmed) = (s.use_pivoting, s.use_confirmation);
            let factor = s.active();
            let (inertia, perturbed) = (factor.inertia(), factor.perturbed_pivots());
            let delayed = factor.delayed_pivots();
            let status = verdict(st, factor, nk);
            // asked only where the inertia correction reads it (δ_c = 0): the answer costs
            // a pass over the factor on the simplicial path
            let growth =
                status == KktStatus::Singular && delta_c == 0.0 && factor.stopped_by_growth();
            s.eval.counts.delayed_pivots += delayed;
            tracing::trace!(
                ?st,
                ?inertia,
                perturbed,
                delayed,
                delta_w,
                delta_c,
                pivoting,
                confirmed,
                growth,
                "KKT factorization"
            );
            s.stopped_by_growth = growth;
            Ok(status)
        })
    }

    fn kkt_stopped_by_growth(&self) -> bool {
        self.stopped_by_growth
    }

    fn kkt_increase_quality(&mut self) -> Result<bool, SolverError> {
        let Kkt::Augmented { asm, .. } = &self.kkt else {
            return Ok(false);
        };
        if self.pivoting_tried || self.factorization.kind != LinearSolverKind::Ldlt {
            return Ok(false);
        }
        self.pivoting_tried = true;
        if self.pivoting.is_none() {
            // built once per solve, on first need (this allocates the second factor)
            let nk = (self.eval.nw, self.eval.m);
            self.pivoting = Some(second_solver(
                &self.factorization,
                LinearSolverKind::Lblt,
                nk,
                asm,
            )?);
        }
        self.use_pivoting = true;
        self.pivoting_requested = true;
        Ok(true)
    }

    fn kkt_reset_quality(&mut self) {
        // Back to LDLᵀ after a step that used the paired LBLᵀ (held in `paired` meanwhile).
        self.paired_last_step = self.paired_in_use;
        if self.paired_in_use {
            if let Some(ldlt) = self.paired.as_mut() {
                std::mem::swap(&mut self.solver, ldlt);
            }
            self.paired_in_use = false;
        }
        self.solver_matrix = None;
        self.use_pivoting = false;
        self.use_confirmation = false;
        self.switch_after_confirmations();
        self.pivoting_tried = false;
        self.cause.reset();
        self.pivoting_requested = false;
    }

    fn kkt_exact_inertia(&self) -> bool {
        matches!(self.kkt, Kkt::Augmented { .. })
            && self.factorization.kind == LinearSolverKind::Multifrontal
    }

    fn kkt_solve(
        &mut self,
        rw: &D::Vector,
        ry: &D::Vector,
        dw: &mut D::Vector,
        dy: &mut D::Vector,
    ) -> Result<bool, SolverError> {
        let device = &*self.eval.device;
        let (rw, ry) = (device.host(rw), device.host(ry));
        let (dw, dy) = (device.host_mut(dw), device.host_mut(dy));
        self.timed(Phase::Solves, |s| {
            let nw = s.eval.nw;
            s.cause.solved(&mut s.eval.counts);
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
            s.eval.counts.solves_refinement += stats.steps;
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
