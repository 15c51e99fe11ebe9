//! Iterative refinement of a solution computed with a factorization: the one refinement
//! driver of simdnlp (the solver's KKT solves use it through [`RefineSystem`]; a plain
//! [`SymmetricSolver`] through [`iterative_refinement`] / [`refine_solution`]).
//!
//! What is implemented (Ipopt's `PDFullSpaceSolver` rule, with GMRES steps):
//!
//! - Residual `r = b − A x`, computed with the caller's `matvec` (so the caller decides
//!   which matrix the residual refers to, e.g. the unregularized KKT matrix while the factor
//!   includes a regularization).
//! - Residual ratio (Ipopt's `ComputeResidualRatio`):
//!   `ratio = ‖r‖∞ / (min(‖x‖∞, max_cond · ‖b‖∞) + ‖b‖∞)` with `max_cond = 1e6`
//!   ([`RefineOptions::max_cond`]); when `‖b‖∞ + ‖r‖∞ = 0` the ratio is `‖r‖∞` (= 0).
//!   No matrix norm enters (as in Ipopt).
//! - Steps: each step is one solve with the factorization `M ≈ A` and one product with `A`.
//!   Classical refinement (`x += M⁻¹ r`) converges linearly when `M` is inaccurate (an
//!   LDLᵀ without pivoting with some element growth: measured on case9591_goc, initial
//!   ratios of 1e-2..1e-5 needing up to ten steps to reach 1e-10). Here the steps are those of
//!   right-preconditioned GMRES on `A δ = r₀` (`r₀` the residual of the initial solution),
//!   restarted every [`RefineWork::krylov_dim`] steps: step `k` returns the `x` of the
//!   `k`-dimensional Krylov space `x₀ + M⁻¹ span{r₀, A M⁻¹ r₀, …}` with the least
//!   2-norm residual. That space contains the classical iterate, so each GMRES step's
//!   residual is no larger (in the 2-norm) than the classical one's; with `M = A` exactly,
//!   step 1 is the classical step. A direction with `‖A M⁻¹ v‖` (outside the previous ones)
//!   below `1e-8` is not used (`M` maps `v` into the null space of `A`; the step would only
//!   inflate `x`): refinement stops there as on stagnation.
//! - Loop: while `steps < min_steps` or `ratio > residual_ratio_max`: take a step,
//!   recompute the residual and ratio, `steps += 1`. Stop after `max_steps`, or — once
//!   `steps >= min_steps` — when the ratio did not improve, i.e.
//!   `ratio > residual_improvement_factor · ratio_before_step` (the step is kept if it
//!   improved at all, otherwise the previous `x` is restored).
//! - Outcome: [`RefineStats::converged`] when the final ratio is `<= residual_ratio_max`;
//!   [`RefineStats::suspect_singular`] when it is still `> residual_ratio_singular`
//!   (Ipopt then treats the matrix as singular and increases the regularization).
//!
//! Defaults ([`RefineOptions::default`]) are Ipopt's: `residual_ratio_max = 1e-10`,
//! `residual_ratio_singular = 1e-5`, `min_steps = 1`, `max_steps = 10`,
//! `residual_improvement_factor = 1 − 1e-9`.
//!
//! The loop allocates nothing; the vectors (the Krylov basis among them: `2k + 1` vectors
//! of length `n` for a restart length `k`) live in a caller-owned [`RefineWork`].

use crate::sparse::check_len;
use crate::{LinalgError, SymmetricSolver};

/// Stopping rules of [`refine_system`] (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefineOptions {
    /// Target residual ratio (Ipopt `residual_ratio_max`, default `1e-10`).
    pub residual_ratio_max: f64,
    /// Ratio above which the solve is flagged as suspect / singular (Ipopt
    /// `residual_ratio_singular`, default `1e-5`).
    pub residual_ratio_singular: f64,
    /// Minimum number of refinement steps (Ipopt `min_refinement_steps`, default 1).
    pub min_steps: usize,
    /// Maximum number of refinement steps (Ipopt `max_refinement_steps`, default 10).
    pub max_steps: usize,
    /// A step must reduce the ratio below this factor times the previous ratio, otherwise
    /// refinement stops (Ipopt `residual_improvement_factor`, default `1 − 1e-9`).
    pub residual_improvement_factor: f64,
    /// Safeguard cap on `‖x‖∞` relative to `‖b‖∞` in the ratio's denominator (Ipopt uses
    /// `1e6`).
    pub max_cond: f64,
}

impl Default for RefineOptions {
    fn default() -> Self {
        Self {
            residual_ratio_max: 1e-10,
            residual_ratio_singular: 1e-5,
            min_steps: 1,
            max_steps: 10,
            residual_improvement_factor: 1.0 - 1e-9,
            max_cond: 1e6,
        }
    }
}

/// What [`refine_system`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefineStats {
    /// Refinement steps taken (solves after the initial one).
    pub steps: usize,
    /// Residual ratio of the initial solution.
    pub initial_ratio: f64,
    /// Residual ratio of the returned solution.
    pub final_ratio: f64,
    /// `final_ratio <= residual_ratio_max`.
    pub converged: bool,
    /// `final_ratio > residual_ratio_singular`: the solve is not trustworthy (Ipopt treats
    /// this like a singular matrix).
    pub suspect_singular: bool,
}

/// A linear system `A x = b` to refine: solves with an approximate factorization `M ≈ A`
/// and products with `A` (the matrix the residual refers to).
pub trait RefineSystem {
    /// Error of the solves and products (a [`LinalgError`] must convert into it).
    type Error: From<LinalgError>;
    /// Overwrites `v` with `M⁻¹ v`.
    fn solve_in_place(&mut self, v: &mut [f64]) -> Result<(), Self::Error>;
    /// Writes `out = A x` (`x` and `out` of the system's dimension).
    fn matvec(&mut self, x: &[f64], out: &mut [f64]) -> Result<(), Self::Error>;
}

/// A [`SymmetricSolver`]'s current factorization with the caller's product.
struct SolverSystem<'a> {
    solver: &'a mut dyn SymmetricSolver,
    matvec: &'a mut dyn FnMut(&[f64], &mut [f64]),
}

impl RefineSystem for SolverSystem<'_> {
    type Error = LinalgError;
    fn solve_in_place(&mut self, v: &mut [f64]) -> Result<(), LinalgError> {
        self.solver.solve_in_place(v)
    }
    fn matvec(&mut self, x: &[f64], out: &mut [f64]) -> Result<(), LinalgError> {
        (self.matvec)(x, out);
        Ok(())
    }
}

/// A Krylov direction `z = M⁻¹ v` (`‖v‖₂ = 1`) is not used when the part of `A z` outside
/// the previous directions is below this: with `M` a factorization of `A`, `A M⁻¹ ≈ I`
/// and that part is about 1.
const DEPENDENT_DIRECTION: f64 = 1e-8;

/// Default GMRES restart length of [`RefineWork::new`] (Ipopt's default `max_steps`).
pub const DEFAULT_KRYLOV_DIM: usize = 10;

/// A linear system `A x = b` to refine with vectors of any kind (host slices, or vectors
/// in device memory): the solves with `M ≈ A`, the products with `A`, and the few vector
/// operations the GMRES steps of [`refine_krylov`] need. Everything else of the driver
/// (the Hessenberg matrix, the Givens rotations, the ratios) is host scalars, so on a
/// device only the results of [`KrylovSystem::dot`] and [`KrylovSystem::norm_inf`] cross
/// to the host.
pub trait KrylovSystem {
    /// A vector of the system's dimension.
    type Vector;
    /// Error of the solves and products (a [`LinalgError`] must convert into it).
    type Error: From<LinalgError>;
    /// Number of entries of `v`.
    fn len(&self, v: &Self::Vector) -> usize;
    /// Overwrites `v` with `M⁻¹ v`.
    fn solve_in_place(&mut self, v: &mut Self::Vector) -> Result<(), Self::Error>;
    /// Writes `out = A x`.
    fn matvec(&mut self, x: &Self::Vector, out: &mut Self::Vector) -> Result<(), Self::Error>;
    /// `xᵀy`.
    fn dot(&mut self, x: &Self::Vector, y: &Self::Vector) -> f64;
    /// `max |v_i|` (a NaN entry may be ignored or propagate: the driver treats a NaN ratio
    /// as `+∞` either way).
    fn norm_inf(&mut self, v: &Self::Vector) -> f64;
    /// `dst = src`.
    fn copy(&mut self, dst: &mut Self::Vector, src: &Self::Vector);
    /// `y = a x + y`.
    fn axpy(&mut self, a: f64, x: &Self::Vector, y: &mut Self::Vector);
    /// `v = v / d` (the host divides; a device may multiply by `1/d`, which can differ in
    /// the last bit).
    fn div_scalar(&mut self, v: &mut Self::Vector, d: f64);
    /// Writes `residual = rhs + (−1)·ax` (which is `rhs − ax` to the last bit) and returns
    /// `max |residual_i|` as [`KrylovSystem::norm_inf`] would. The provided method is
    /// [`KrylovSystem::copy`], [`KrylovSystem::axpy`] and [`KrylovSystem::norm_inf`]; an
    /// implementation may fuse them into one pass with the same result.
    fn residual_norm(
        &mut self,
        rhs: &Self::Vector,
        ax: &Self::Vector,
        residual: &mut Self::Vector,
    ) -> f64 {
        self.copy(residual, rhs);
        self.axpy(-1.0, ax, residual);
        self.norm_inf(residual)
    }
}

/// Workspace of [`refine_krylov`] over vectors `V` of dimension `n`: the residual, a product,
/// two solution vectors and the Krylov basis of a restart length `k` (`2k + 1` vectors), plus
/// the small least-squares problem on the host. Create once per dimension; reuse for every
/// solve.
#[derive(Clone, Debug, Default)]
pub struct KrylovWork<V> {
    n: usize,
    k: usize,
    residual: V,
    ax: V,
    /// The solution at the (re)start of the Krylov cycle.
    start: V,
    /// The previous accepted solution (restored when a step makes things worse).
    backup: V,
    /// Orthonormal Arnoldi vectors `v₀ … v_k`.
    basis: Vec<V>,
    /// Preconditioned directions `z_j = M⁻¹ v_j`.
    precond: Vec<V>,
    /// Hessenberg matrix, column-major `(k + 1) × k`, reduced to triangular by Givens.
    hess: Vec<f64>,
    cos: Vec<f64>,
    sin: Vec<f64>,
    /// Right-hand side of the least-squares problem (then its solution).
    g: Vec<f64>,
    y: Vec<f64>,
}

impl<V> KrylovWork<V> {
    /// Workspace for systems of dimension `n` and GMRES restart length `k` (at least 1),
    /// its `2k + 5` vectors of length `n` made by `zeros(n)` (e.g. a device's allocation).
    ///
    /// # Errors
    /// The first error of `zeros`.
    pub fn with_vectors<E>(
        n: usize,
        k: usize,
        mut zeros: impl FnMut(usize) -> Result<V, E>,
    ) -> Result<Self, E> {
        let k = k.max(1);
        let mut many = |count: usize| (0..count).map(|_| zeros(n)).collect::<Result<Vec<V>, E>>();
        let basis = many(k + 1)?;
        let precond = many(k)?;
        Ok(Self {
            n,
            k,
            residual: zeros(n)?,
            ax: zeros(n)?,
            start: zeros(n)?,
            backup: zeros(n)?,
            basis,
            precond,
            hess: vec![0.0; (k + 1) * k],
            cos: vec![0.0; k],
            sin: vec![0.0; k],
            g: vec![0.0; k + 1],
            y: vec![0.0; k],
        })
    }

    /// The dimension this workspace is sized for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The GMRES restart length.
    pub fn krylov_dim(&self) -> usize {
        self.k
    }

    /// The last residual `b − A x` computed (for the returned `x`).
    pub fn residual(&self) -> &V {
        &self.residual
    }
}

/// Workspace of [`refine_system`] (`Default`: an empty one, for dimension 0): the
/// [`KrylovWork`] over host vectors plus copies of the right-hand side and solution. Memory
/// `(2k + 7) n` values for a restart length `k`. Create once per dimension; reuse for every
/// solve.
#[derive(Clone, Debug, Default)]
pub struct RefineWork {
    krylov: KrylovWork<Vec<f64>>,
    rhs: Vec<f64>,
    sol: Vec<f64>,
}

impl RefineWork {
    /// Workspace for systems of dimension `n`, restart length [`DEFAULT_KRYLOV_DIM`].
    pub fn new(n: usize) -> Self {
        Self::with_krylov_dim(n, DEFAULT_KRYLOV_DIM)
    }

    /// Workspace for systems of dimension `n` and GMRES restart length `k` (at least 1).
    /// Steps beyond `k` restart the Krylov cycle from the current solution; choose
    /// `k = max_steps` to never restart.
    pub fn with_krylov_dim(n: usize, k: usize) -> Self {
        let zeros = |n: usize| Ok::<_, std::convert::Infallible>(vec![0.0; n]);
        let Ok(krylov) = KrylovWork::with_vectors(n, k, zeros);
        Self {
            krylov,
            rhs: vec![0.0; n],
            sol: vec![0.0; n],
        }
    }

    /// The dimension this workspace is sized for.
    pub fn n(&self) -> usize {
        self.krylov.n
    }

    /// The GMRES restart length.
    pub fn krylov_dim(&self) -> usize {
        self.krylov.k
    }

    /// The last residual `b − A x` computed (for the returned `x`).
    pub fn residual(&self) -> &[f64] {
        &self.krylov.residual
    }
}

/// Lanes of [`amax`] and [`fused_residual_amax`]: four independent maxima, so that the
/// loops vectorize; the maximum is exact in any order.
const LANES: usize = 4;

/// `m = max(m, a)` for `a = |x| ≥ 0`, skipping NaN (`a > m` is false for it) as
/// `f64::max` does.
#[inline(always)]
fn keep_larger(m: &mut f64, a: f64) {
    *m = if a > *m { a } else { *m };
}

/// Largest magnitude of `v` (NaN entries ignored, as `f64::max` does; `0` when empty).
fn amax(v: &[f64]) -> f64 {
    let mut lane_max = [0.0f64; LANES];
    let chunks = v.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (m, &x) in lane_max.iter_mut().zip(chunk) {
            keep_larger(m, x.abs());
        }
    }
    for (m, &x) in lane_max.iter_mut().zip(tail) {
        keep_larger(m, x.abs());
    }
    lane_max.into_iter().fold(0.0, f64::max)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A [`RefineSystem`] on host vectors as a [`KrylovSystem`].
struct OnHost<'a, S: ?Sized>(&'a mut S);

impl<S: RefineSystem + ?Sized> KrylovSystem for OnHost<'_, S> {
    type Vector = Vec<f64>;
    type Error = S::Error;
    fn len(&self, v: &Vec<f64>) -> usize {
        v.len()
    }
    fn solve_in_place(&mut self, v: &mut Vec<f64>) -> Result<(), S::Error> {
        self.0.solve_in_place(v)
    }
    fn matvec(&mut self, x: &Vec<f64>, out: &mut Vec<f64>) -> Result<(), S::Error> {
        self.0.matvec(x, out)
    }
    fn dot(&mut self, x: &Vec<f64>, y: &Vec<f64>) -> f64 {
        dot(x, y)
    }
    fn norm_inf(&mut self, v: &Vec<f64>) -> f64 {
        amax(v)
    }
    fn copy(&mut self, dst: &mut Vec<f64>, src: &Vec<f64>) {
        dst.copy_from_slice(src);
    }
    fn axpy(&mut self, a: f64, x: &Vec<f64>, y: &mut Vec<f64>) {
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi += a * xi;
        }
    }
    fn div_scalar(&mut self, v: &mut Vec<f64>, d: f64) {
        v.iter_mut().for_each(|vi| *vi /= d);
    }
    fn residual_norm(&mut self, rhs: &Vec<f64>, ax: &Vec<f64>, residual: &mut Vec<f64>) -> f64 {
        fused_residual_amax(rhs, ax, residual)
    }
}

/// `residual = rhs − ax` and its [`amax`] in one pass (the same values, bit for bit, as the
/// copy, the `axpy` with `−1` and `amax` one after the other: `b + (−1)·a` is `b − a`).
fn fused_residual_amax(rhs: &[f64], ax: &[f64], residual: &mut [f64]) -> f64 {
    let mut lane_max = [0.0f64; LANES];
    let mut chunks = residual.chunks_exact_mut(LANES);
    let (mut b_chunks, mut a_chunks) = (rhs.chunks_exact(LANES), ax.chunks_exact(LANES));
    for ((r, b), a) in (&mut chunks).zip(&mut b_chunks).zip(&mut a_chunks) {
        for (((ri, &bi), &ai), m) in r.iter_mut().zip(b).zip(a).zip(&mut lane_max) {
            *ri = bi - ai;
            keep_larger(m, ri.abs());
        }
    }
    let tail = chunks.into_remainder();
    for (((ri, &bi), &ai), m) in tail
        .iter_mut()
        .zip(b_chunks.remainder())
        .zip(a_chunks.remainder())
        .zip(&mut lane_max)
    {
        *ri = bi - ai;
        keep_larger(m, ri.abs());
    }
    lane_max.into_iter().fold(0.0, f64::max)
}

/// Computes `work.residual = rhs − A sol` and returns the residual ratio; `nrm_rhs` is
/// `‖rhs‖∞` (the caller computes it once per refinement).
fn residual_ratio<S: KrylovSystem + ?Sized>(
    system: &mut S,
    rhs: &S::Vector,
    nrm_rhs: f64,
    sol: &S::Vector,
    work: &mut KrylovWork<S::Vector>,
    max_cond: f64,
) -> Result<f64, S::Error> {
    system.matvec(sol, &mut work.ax)?;
    let nrm_res = system.residual_norm(rhs, &work.ax, &mut work.residual);
    let nrm_sol = system.norm_inf(sol);
    if nrm_rhs + nrm_res == 0.0 {
        return Ok(nrm_res);
    }
    let ratio = nrm_res / (nrm_sol.min(max_cond * nrm_rhs) + nrm_rhs);
    // A NaN ratio (non-finite solution) must never look converged.
    Ok(if ratio.is_nan() { f64::INFINITY } else { ratio })
}

fn check_options(opts: &RefineOptions) -> Result<(), LinalgError> {
    for (what, v) in [
        ("residual_ratio_max", opts.residual_ratio_max),
        ("residual_ratio_singular", opts.residual_ratio_singular),
        (
            "residual_improvement_factor",
            opts.residual_improvement_factor,
        ),
        ("max_cond", opts.max_cond),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(LinalgError::InvalidValue {
                what: format!("refine option {what}"),
                value: v,
                detail: "must be finite and >= 0".into(),
            });
        }
    }
    Ok(())
}

/// Solves `A sol = rhs` with the solver's current factorization and refines the solution
/// (see the module documentation for the exact rules). `matvec(x, y)` must write `y = A x`
/// (length `n` each). `sol` is overwritten (its input value is ignored).
///
/// # Errors
/// [`LinalgError::LengthMismatch`] when `rhs`, `sol` or `work` disagree in length;
/// [`LinalgError::InvalidValue`] for a bad option; any error of the solver's solve
/// (e.g. [`LinalgError::InvalidState`] without a factorization).
pub fn iterative_refinement(
    solver: &mut dyn SymmetricSolver,
    matvec: &mut dyn FnMut(&[f64], &mut [f64]),
    rhs: &[f64],
    sol: &mut [f64],
    work: &mut RefineWork,
    opts: &RefineOptions,
) -> Result<RefineStats, LinalgError> {
    check_len("refinement: sol", rhs.len(), sol.len())?;
    sol.copy_from_slice(rhs);
    solver.solve_in_place(sol)?;
    refine_solution(solver, matvec, rhs, sol, work, opts)
}

/// Like [`iterative_refinement`], but starts from the solution already in `sol` (e.g. a
/// solve the caller did itself) instead of solving first.
///
/// # Errors
/// As [`iterative_refinement`].
pub fn refine_solution(
    solver: &mut dyn SymmetricSolver,
    matvec: &mut dyn FnMut(&[f64], &mut [f64]),
    rhs: &[f64],
    sol: &mut [f64],
    work: &mut RefineWork,
    opts: &RefineOptions,
) -> Result<RefineStats, LinalgError> {
    refine_system(&mut SolverSystem { solver, matvec }, rhs, sol, work, opts)
}

/// Refines the solution in `sol` of `A sol = rhs` (computed by the caller, typically
/// `M⁻¹ rhs`) with the system's solves and products, by the rules of the module
/// documentation. On return `sol` is the best solution found and `work.residual()` its
/// residual. Runs [`refine_krylov`] on copies of `rhs` and `sol` in `work`.
///
/// # Errors
/// [`LinalgError::LengthMismatch`] when `rhs`, `sol` or `work` disagree in length;
/// [`LinalgError::InvalidValue`] for a bad option; any error of the system's solves and
/// products.
pub fn refine_system<S: RefineSystem + ?Sized>(
    system: &mut S,
    rhs: &[f64],
    sol: &mut [f64],
    work: &mut RefineWork,
    opts: &RefineOptions,
) -> Result<RefineStats, S::Error> {
    check_len("refinement: sol", rhs.len(), sol.len())?;
    check_len("refinement: work", rhs.len(), work.n())?;
    work.rhs.copy_from_slice(rhs);
    work.sol.copy_from_slice(sol);
    let stats = refine_krylov(
        &mut OnHost(system),
        &work.rhs,
        &mut work.sol,
        &mut work.krylov,
        opts,
    )?;
    sol.copy_from_slice(&work.sol);
    Ok(stats)
}

/// The refinement driver over any [`KrylovSystem`]: refines the solution in `sol` of
/// `A sol = rhs` by the rules of the module documentation. On return `sol` is the best
/// solution found and `work.residual()` its residual. Allocates nothing.
///
/// # Errors
/// [`LinalgError::LengthMismatch`] when `rhs`, `sol` or `work` disagree in length;
/// [`LinalgError::InvalidValue`] for a bad option; any error of the system's solves and
/// products.
pub fn refine_krylov<S: KrylovSystem + ?Sized>(
    system: &mut S,
    rhs: &S::Vector,
    sol: &mut S::Vector,
    work: &mut KrylovWork<S::Vector>,
    opts: &RefineOptions,
) -> Result<RefineStats, S::Error> {
    check_options(opts)?;
    let n = system.len(rhs);
    if system.len(sol) != n || work.n != n {
        let (what, got) = if system.len(sol) != n {
            ("refinement: sol", system.len(sol))
        } else {
            ("refinement: work", work.n)
        };
        return Err(LinalgError::LengthMismatch {
            what: what.into(),
            expected: n,
            got,
        }
        .into());
    }
    let k = work.k;
    let nrm_rhs = system.norm_inf(rhs);
    let mut ratio = residual_ratio(system, rhs, nrm_rhs, sol, work, opts.max_cond)?;
    let initial_ratio = ratio;
    let mut steps = 0;
    let wants_step = |steps: usize, ratio: f64| {
        steps < opts.max_steps
            && (steps < opts.min_steps || ratio > opts.residual_ratio_max)
            && ratio.is_finite()
    };
    'cycles: while wants_step(steps, ratio) {
        // A GMRES cycle from the current solution: v₀ = r / ‖r‖₂.
        let beta = system.dot(&work.residual, &work.residual).sqrt();
        if k == 0 || !(beta > 0.0 && beta.is_finite()) {
            break;
        }
        system.copy(&mut work.start, sol);
        system.copy(&mut work.basis[0], &work.residual);
        system.div_scalar(&mut work.basis[0], beta);
        work.g.iter_mut().for_each(|g| *g = 0.0);
        work.g[0] = beta;
        for j in 0..k {
            // z_j = M⁻¹ v_j; w = A z_j into v_{j+1}; modified Gram–Schmidt against v₀..v_j.
            let (done, rest) = work.basis.split_at_mut(j + 1);
            let z = &mut work.precond[j];
            system.copy(z, &done[j]);
            system.solve_in_place(z)?;
            let w = &mut rest[0];
            system.matvec(z, w)?;
            let col = &mut work.hess[j * (k + 1)..(j + 1) * (k + 1)];
            for (i, h) in col.iter_mut().enumerate().take(j + 1) {
                let v = &done[i];
                *h = system.dot(w, v);
                // w + (−h)·v is w − h·v to the last bit
                system.axpy(-*h, v, w);
            }
            let h_next = system.dot(w, w).sqrt();
            col[j + 1] = h_next;
            if h_next > 0.0 && h_next.is_finite() {
                system.div_scalar(w, h_next);
            }
            // Previous rotations on the new column, then the one that zeroes h_{j+1,j}.
            for i in 0..j {
                let (a, b) = (col[i], col[i + 1]);
                col[i] = work.cos[i] * a + work.sin[i] * b;
                col[i + 1] = -work.sin[i] * a + work.cos[i] * b;
            }
            let (a, b) = (col[j], col[j + 1]);
            let r = a.hypot(b);
            if r.is_nan() || r < DEPENDENT_DIRECTION {
                // A M⁻¹ v_j adds (numerically) nothing to the space: the factor maps v_j into
                // the null space of A (M is not a factorization of A there). Using it would
                // only inflate x; stop as on stagnation, keeping x.
                steps += 1;
                break 'cycles;
            }
            let (c, s) = if r > 0.0 { (a / r, b / r) } else { (1.0, 0.0) };
            work.cos[j] = c;
            work.sin[j] = s;
            col[j] = r;
            col[j + 1] = 0.0;
            work.g[j + 1] = -s * work.g[j];
            work.g[j] *= c;
            // y = R⁻¹ g (upper triangular, (j+1)×(j+1)); x = start + Z y.
            for i in (0..=j).rev() {
                let mut acc = work.g[i];
                for l in i + 1..=j {
                    acc -= work.hess[l * (k + 1) + i] * work.y[l];
                }
                let diag = work.hess[i * (k + 1) + i];
                work.y[i] = if diag != 0.0 { acc / diag } else { 0.0 };
            }
            system.copy(&mut work.backup, sol);
            system.copy(sol, &work.start);
            for (l, &yl) in work.y[..=j].iter().enumerate() {
                system.axpy(yl, &work.precond[l], sol);
            }
            steps += 1;
            let old = ratio;
            ratio = residual_ratio(system, rhs, nrm_rhs, sol, work, opts.max_cond)?;
            // (ratio is never NaN: residual_ratio maps NaN to +∞)
            if steps >= opts.min_steps && ratio > opts.residual_improvement_factor * old {
                if ratio > old {
                    // The step made things worse: restore and recompute the residual.
                    system.copy(sol, &work.backup);
                    ratio = residual_ratio(system, rhs, nrm_rhs, sol, work, opts.max_cond)?;
                }
                break 'cycles;
            }
            if !(wants_step(steps, ratio) && h_next > 0.0 && h_next.is_finite()) {
                // Converged, out of steps, or the Krylov space is exhausted (restart).
                continue 'cycles;
            }
        }
    }
    Ok(RefineStats {
        steps,
        initial_ratio,
        final_ratio: ratio,
        converged: ratio <= opts.residual_ratio_max,
        suspect_singular: ratio > opts.residual_ratio_singular,
    })
}

#[cfg(test)]
mod tests {
    use super::{amax, fused_residual_amax};

    /// The fused residual equals the copy, the `axpy` with `−1` and `amax` one after the
    /// other, bit for bit, NaN and infinities included, for every length around the lanes.
    #[test]
    fn fused_residual_matches_copy_axpy_amax() {
        let rhs_base = [
            1.0,
            -2.5,
            1e-300,
            3.0,
            f64::NAN,
            0.0,
            -0.0,
            7.5e7,
            1.0 / 3.0,
            -4.0,
            2.0,
            9.0,
        ];
        let ax_base = [
            1.0,
            2.5,
            -1e-300,
            1e300,
            0.0,
            -0.0,
            0.0,
            7.5e7,
            0.1,
            f64::INFINITY,
            -2.0,
            8.5,
        ];
        for len in 0..=rhs_base.len() {
            for shift in 0..4 {
                let rhs: Vec<f64> = (0..len).map(|i| rhs_base[(i + shift) % len]).collect();
                let ax: Vec<f64> = (0..len).map(|i| ax_base[(i * 5 + shift) % len]).collect();
                // the provided `residual_norm`: copy, then `axpy` with `a = −1`
                let mut expected = rhs.clone();
                let minus_one = -1.0;
                for (r, a) in expected.iter_mut().zip(&ax) {
                    *r += minus_one * a;
                }
                let expected_norm = amax(&expected);
                let mut ours = vec![f64::NAN; len];
                let norm = fused_residual_amax(&rhs, &ax, &mut ours);
                assert_eq!(norm.to_bits(), expected_norm.to_bits(), "len {len}");
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&ours), bits(&expected), "len {len}");
            }
        }
    }

    /// The four-lane `amax` equals the plain fold bit for bit, NaN entries skipped and
    /// infinities kept, for every length around the lane width.
    #[test]
    fn amax_matches_the_plain_fold() {
        let base = [
            -3.5,
            0.0,
            2.25,
            -0.0,
            1e-300,
            -7e5,
            f64::NAN,
            4.0,
            -7e5,
            6.5,
            1e3,
            -2.0,
        ];
        for len in 0..=base.len() {
            for special in [
                None,
                Some(f64::INFINITY),
                Some(f64::NEG_INFINITY),
                Some(f64::NAN),
            ] {
                for at in 0..len.max(1) {
                    let mut v = base[..len].to_vec();
                    if let (Some(x), Some(slot)) = (special, v.get_mut(at)) {
                        *slot = x;
                    }
                    let expected = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                    assert_eq!(amax(&v).to_bits(), expected.to_bits(), "{v:?}");
                }
            }
        }
    }
}
