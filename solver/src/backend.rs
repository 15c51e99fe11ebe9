//! The device seam of the interior-point method.
//!
//! The interior-point algorithm (private module `ipm`) only ever talks to vectors through a [`Backend`]: it
//! allocates them at setup, combines them with the element-wise kernels and reductions
//! below, evaluates the model into them and asks the backend to factorize and solve the KKT
//! system. It never reads or writes a vector element itself, so a GPU backend (vectors in
//! device memory, kernels on the device, cuDSS for the KKT system) can run the algorithm
//! unchanged. Two implementations: [`crate::host_kkt::HostKktBackend`] over any device
//! whose vectors are host memory (the CPU and the emulated CUDA device of
//! `simdnlp-device`), with the KKT system on faer, and [`crate::device_kkt::DeviceKktBackend`]
//! over any device, with the condensed KKT system on the device behind a factorization
//! seam (faer through host copies, or cuDSS on a GPU).
//!
//! Only the KKT methods differ between backends: the vector methods have default bodies
//! that call [`Backend::device`], the model-evaluation methods default bodies that call the
//! backend's [`Evaluation`].
//!
//! Problem layout every backend shares (see [`crate::layout::Layout`]): the primal vector
//! `w = (x, s)` has `n` model variables followed by one slack per inequality row; the
//! constraint residual `r(w)` has one entry per model row (`c_j(x) − s_k` for an inequality
//! row with slack `k`, `c_j(x) − b_j` for an equality row); bounds on `w` are stored
//! compressed: `lower_idx` lists the components with a finite lower bound, `upper_idx`
//! those with a finite upper bound.

use crate::evaluate::DeviceNlp;
use crate::evaluation::{Evaluation, PhaseTimes};
use crate::layout::Layout;
use crate::options::Options;
use crate::result::{CallbackCounts, SolverError};
use simdnlp_device::Device as _;

/// Outcome of a KKT factorization as the inertia-correction logic sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KktStatus {
    /// The matrix has the inertia of a step that is a descent direction: `nw` positive and
    /// `m` negative eigenvalues (augmented), or Cholesky succeeded (condensed).
    Correct,
    /// Wrong inertia (augmented) or a non-positive pivot (condensed): increase δ_w.
    WrongInertia,
    /// Zero eigenvalues (augmented): the Jacobian is rank deficient, regularize with δ_c.
    Singular,
}

/// Vectors, kernels, model evaluation and KKT linear algebra on one device.
///
/// Lengths are the caller's responsibility (the algorithm allocates every vector from the
/// layout); implementations may panic on mismatched lengths, which is a bug in the solver,
/// not a user error.
pub trait Backend {
    /// A dense vector of `f64` on the device.
    type Vector;
    /// A list of indices on the device (for gathers and scatters).
    type Index;
    /// The device the vectors live on; models are evaluated on its vectors
    /// ([`DeviceNlp`]).
    type Device: simdnlp_device::Device<Vector = Self::Vector, Index = Self::Index>;

    /// The model evaluation of this backend (vectors, counts and times).
    fn evaluation(&self) -> &Evaluation<Self::Device>;
    /// The model evaluation of this backend, writable.
    fn evaluation_mut(&mut self) -> &mut Evaluation<Self::Device>;

    /// The device the vectors live on.
    fn device(&self) -> &Self::Device {
        self.evaluation().device()
    }

    /// A backend on the same device for another model laid out as `layout` (the
    /// restoration problem, made at the first restoration phase and kept for the later ones
    /// and for re-solves of the same structure; symbolic analysis of its KKT pattern
    /// happens here). Vectors
    /// and index lists of either backend work with the other.
    fn for_model(
        &self,
        model: &dyn DeviceNlp<Self::Device>,
        layout: &Layout,
        opts: &Options,
    ) -> Result<Self, SolverError>
    where
        Self: Sized;

    // ------------------------------------------------------------ allocation (setup only)
    /// A vector of `n` zeros.
    fn zeros(&self, n: usize) -> Result<Self::Vector, SolverError> {
        Ok(self.device().zeros(n)?)
    }
    /// A vector holding a copy of host data.
    fn vector_from_host(&self, v: &[f64]) -> Result<Self::Vector, SolverError> {
        Ok(self.device().vector_from_host(v)?)
    }
    /// An index list holding a copy of host data.
    fn index_from_host(&self, idx: &[usize]) -> Result<Self::Index, SolverError> {
        Ok(self.device().index_from_host(idx)?)
    }
    /// Copy a vector to host memory (`out.len()` equals the vector's length).
    fn to_host(&self, v: &Self::Vector, out: &mut [f64]) -> Result<(), SolverError> {
        Ok(self.device().to_host(v, out)?)
    }
    /// Overwrite a vector with host data.
    fn copy_from_host(&self, v: &mut Self::Vector, src: &[f64]) -> Result<(), SolverError> {
        Ok(self.device().copy_from_host(v, src)?)
    }
    /// Wait for queued kernels and report the first kernel failure since the last call
    /// (kernels themselves do not return errors; a failed reduction returns NaN meanwhile).
    /// The algorithm calls it once per iteration.
    fn synchronize(&self) -> Result<(), SolverError> {
        self.evaluation().synchronize()
    }

    // ------------------------------------------------------------ BLAS-1
    /// `v[i] = a`.
    fn fill(&self, v: &mut Self::Vector, a: f64) {
        self.device().fill(v, a)
    }
    /// `dst = src`.
    fn copy(&self, dst: &mut Self::Vector, src: &Self::Vector) {
        self.device().copy(dst, src)
    }
    /// `y = a x + y`.
    fn axpy(&self, a: f64, x: &Self::Vector, y: &mut Self::Vector) {
        self.device().axpy(a, x, y)
    }
    /// `y = a x + b y`.
    fn axpby(&self, a: f64, x: &Self::Vector, b: f64, y: &mut Self::Vector) {
        self.device().axpby(a, x, b, y)
    }
    /// `v = a v`.
    fn scale(&self, a: f64, v: &mut Self::Vector) {
        self.device().scale(a, v)
    }
    /// `xᵀy`.
    fn dot(&self, x: &Self::Vector, y: &Self::Vector) -> f64 {
        self.device().dot(x, y)
    }
    /// `max |v_i|` (NaN if any entry is NaN; 0 for an empty vector).
    fn norm_inf(&self, v: &Self::Vector) -> f64 {
        self.device().norm_inf(v)
    }
    /// `Σ |v_i|` (NaN propagates).
    fn norm_1(&self, v: &Self::Vector) -> f64 {
        self.device().norm_1(v)
    }

    // ------------------------------------------------------------ element-wise kernels
    /// `dst_i = x_i y_i`.
    fn mul(&self, dst: &mut Self::Vector, x: &Self::Vector, y: &Self::Vector) {
        self.device().mul(dst, x, y)
    }
    /// `dst_i = x_i / y_i`.
    fn div(&self, dst: &mut Self::Vector, x: &Self::Vector, y: &Self::Vector) {
        self.device().div(dst, x, y)
    }
    /// `dst_i = a / x_i`.
    fn recip(&self, dst: &mut Self::Vector, a: f64, x: &Self::Vector) {
        self.device().recip(dst, a, x)
    }
    /// `dst_i = src[idx_i]`.
    fn gather(&self, dst: &mut Self::Vector, src: &Self::Vector, idx: &Self::Index) {
        self.device().gather(dst, src, idx)
    }
    /// `dst[idx_i] += a src_i`.
    fn scatter_add(&self, a: f64, src: &Self::Vector, idx: &Self::Index, dst: &mut Self::Vector) {
        self.device().scatter_add(a, src, idx, dst)
    }
    /// `dst_i = sign · (src[idx_i] − off_i)`: bound slacks `w − l` (`sign = 1`) and
    /// `u − w` (`sign = −1`).
    fn gather_slack(
        &self,
        dst: &mut Self::Vector,
        src: &Self::Vector,
        idx: &Self::Index,
        off: &Self::Vector,
        sign: f64,
    ) {
        self.device().gather_slack(dst, src, idx, off, sign)
    }

    // ------------------------------------------------------------ interior-point kernels
    /// `Σ ln x_i` (−∞ or NaN if some `x_i ≤ 0`).
    fn sum_ln(&self, x: &Self::Vector) -> f64 {
        self.device().sum_ln(x)
    }
    /// Fraction-to-boundary: the largest `α ∈ (0, 1]` with `x + α dx ≥ (1 − τ) x`.
    fn max_step(&self, x: &Self::Vector, dx: &Self::Vector, tau: f64) -> f64 {
        self.device().max_step(x, dx, tau)
    }
    /// Bound-multiplier step from the primal slack step:
    /// `dz_i = (μ − z_i ds_i) / s_i − z_i`.
    fn bound_dual_step(
        &self,
        dz: &mut Self::Vector,
        z: &Self::Vector,
        s: &Self::Vector,
        ds: &Self::Vector,
        mu: f64,
    ) {
        self.device().bound_dual_step(dz, z, s, ds, mu)
    }
    /// `max |s_i z_i − μ|`.
    fn compl_inf(&self, s: &Self::Vector, z: &Self::Vector, mu: f64) -> f64 {
        self.device().compl_inf(s, z, mu)
    }
    /// `min s_i z_i` (+∞ for empty vectors).
    fn min_product(&self, s: &Self::Vector, z: &Self::Vector) -> f64 {
        self.device().min_product(s, z)
    }
    /// Safeguard `z_i ← clamp(z_i, μ/(κ s_i), κ μ/s_i)`; returns the largest change.
    fn safeguard_bound_mult(
        &self,
        z: &mut Self::Vector,
        s: &Self::Vector,
        mu: f64,
        kappa: f64,
    ) -> f64 {
        self.device().safeguard_bound_mult(z, s, mu, kappa)
    }
    /// Move `w` strictly inside `[lo, up]` (full-length bound vectors with ±∞) as Ipopt's
    /// `bound_push`/`bound_frac` rule: `p_L = min(push · max(1, |lo|), frac · (up − lo))`,
    /// `w ← clamp(w, lo + p_L, up − p_U)`. `push`/`frac` are per-component vectors.
    fn push_into_bounds(
        &self,
        w: &mut Self::Vector,
        lo: &Self::Vector,
        up: &Self::Vector,
        push: &Self::Vector,
        frac: &Self::Vector,
    ) {
        self.device().push_into_bounds(w, lo, up, push, frac)
    }
    /// `z_i ← max(z_i, a)`.
    fn clamp_below(&self, z: &mut Self::Vector, a: f64) {
        self.device().clamp_below(z, a)
    }
    /// Safe bound slacks (Ipopt's `CalculateSafeSlack`): where `s_i < s_min` (round-off
    /// next to a large bound), `s_i ← max(s_min, μ / z_i)`, the slack that keeps the pair
    /// centred (`s_i z_i = μ`). Returns how many slacks were corrected.
    fn safe_slack(&self, s: &mut Self::Vector, z: &Self::Vector, s_min: f64, mu: f64) -> usize {
        self.device().safe_slack(s, z, s_min, mu)
    }
    /// `max_i |dx_i| / (1 + |x_i|)` (the tiny-step measure).
    fn max_rel_step(&self, dx: &Self::Vector, x: &Self::Vector) -> f64 {
        self.device().max_rel_step(dx, x)
    }

    // ------------------------------------------------------------ model evaluation
    // A device failure while evaluating makes the value NaN (the point is rejected) and is
    // reported by the next [`Backend::synchronize`].
    /// Objective `f(x)` at `w = (x, s)` (as the model returns it).
    fn eval_obj(&mut self, model: &dyn DeviceNlp<Self::Device>, w: &Self::Vector) -> f64 {
        self.evaluation_mut().obj(model, w)
    }
    /// Objective gradient into the `x` part of `g` (zero on the slack part).
    fn eval_grad(
        &mut self,
        model: &dyn DeviceNlp<Self::Device>,
        w: &Self::Vector,
        g: &mut Self::Vector,
    ) {
        self.evaluation_mut().grad(model, w, g)
    }
    /// Constraint residual `r(w)` (see the module docs).
    fn eval_residual(
        &mut self,
        model: &dyn DeviceNlp<Self::Device>,
        w: &Self::Vector,
        r: &mut Self::Vector,
    ) {
        self.evaluation_mut().residual(model, w, r)
    }
    /// Replace the equality right-hand sides `b` of the residual (setup of a re-solve whose
    /// equality values changed; length `m`, zero for rows with a slack).
    fn set_rhs(&mut self, rhs: &[f64]) {
        self.evaluation_mut().set_rhs(rhs)
    }
    /// Set the slack part of `w` to the model's row values `c_j(x)` of the slack rows.
    fn set_slacks_from_cons(&mut self, model: &dyn DeviceNlp<Self::Device>, w: &mut Self::Vector) {
        self.evaluation_mut().set_slacks_from_cons(model, w)
    }
    /// Evaluate and keep the Jacobian at `w`; `false` when a value is NaN/∞.
    fn eval_jac(&mut self, model: &dyn DeviceNlp<Self::Device>, w: &Self::Vector) -> bool {
        self.evaluation_mut().jac(model, w)
    }
    /// Evaluate and keep the Lagrangian Hessian `σ∇²f + Σ y_j ∇²c_j` at `w`; `false` when a
    /// value is NaN/∞.
    fn eval_hess(
        &mut self,
        model: &dyn DeviceNlp<Self::Device>,
        w: &Self::Vector,
        y: &Self::Vector,
        sigma: f64,
    ) -> bool {
        self.evaluation_mut().hess(model, w, y, sigma)
    }
    /// `out = a J(w)ᵀ y + b out` with the kept Jacobian of the residual (slack columns
    /// included).
    fn jt_mul(&self, a: f64, y: &Self::Vector, b: f64, out: &mut Self::Vector) {
        self.evaluation().jt_mul(a, y, b, out)
    }

    /// Seconds of symbolic analysis inside the factorization time of
    /// [`Backend::counters`] since the backend was created (a library that analyzes at its
    /// first factorization, such as cuDSS); `0` by default.
    fn analysis_seconds(&self) -> f64 {
        0.0
    }

    /// Callback/factorization counts and per-phase times accumulated since the backend
    /// was created.
    fn counters(&self) -> (CallbackCounts, PhaseTimes) {
        self.evaluation().counters()
    }

    // ------------------------------------------------------------ KKT system
    /// Assemble and factorize
    /// `[[W + diag(σ) + δ_w I, Jᵀ], [J, −δ_c I]]` (or its condensed form) with the kept
    /// Hessian (replaced by zero when `hessian` is false) and Jacobian.
    fn kkt_factorize(
        &mut self,
        sigma: &Self::Vector,
        delta_w: f64,
        delta_c: f64,
        hessian: bool,
    ) -> Result<KktStatus, SolverError>;
    /// Whether the last [`Backend::kkt_factorize`] was [`KktStatus::Singular`] because LDLᵀ
    /// without pivoting lost a pivot to element growth along its static order (it
    /// overflowed, or cancelled to zero far below the round-off of its terms; the ordered
    /// matrix's leading block is numerically singular, the matrix need not be) rather than
    /// at a zero pivot of the matrix's scale. Only δ_c > 0 bounds that growth, and it recurs
    /// at nearby iterates, so the inertia correction keeps δ_c on from then on instead of
    /// re-testing the Jacobian for three iterations. Only asked after a factorization at
    /// δ_c = 0 (an implementation may answer `false` for any other). `false` by default.
    fn kkt_stopped_by_growth(&self) -> bool {
        false
    }
    /// Ipopt's `IncreaseQuality`: make the following factorizations more stable (the CPU
    /// backend switches an LDLᵀ without pivoting to Bunch–Kaufman LBLᵀ) after a solve
    /// stayed inaccurate. Returns `false` when there is nothing more stable to switch to.
    /// The switch lasts until [`Backend::kkt_reset_quality`].
    fn kkt_increase_quality(&mut self) -> Result<bool, SolverError> {
        Ok(false)
    }
    /// Back to the configured factorization (called at the start of every step). Until the
    /// next call, every [`Backend::kkt_factorize`] gets the same Σ and the same Hessian and
    /// Jacobian values (only δ_w, δ_c and the Hessian flag vary), so a backend may recognize
    /// a matrix it factorized before in this step by those parameters.
    fn kkt_reset_quality(&mut self) {}
    /// Whether the factorizations give the KKT matrix's exact inertia (a pivoting
    /// factorization of the augmented system: the multifrontal LDLᵀ), which
    /// `Options::restoration_rules = auto` follows; `false` by default.
    fn kkt_exact_inertia(&self) -> bool {
        false
    }
    /// Solve the last factorized system for `(dw, dy)` with right-hand side `(rw, ry)`,
    /// refining iteratively on the full system. Returns `false` when the refined solution
    /// is still inaccurate (relative residual above `1e-5`, Ipopt's `residual_ratio_singular`): the matrix is numerically
    /// singular and needs regularization.
    fn kkt_solve(
        &mut self,
        rw: &Self::Vector,
        ry: &Self::Vector,
        dw: &mut Self::Vector,
        dy: &mut Self::Vector,
    ) -> Result<bool, SolverError>;
}
