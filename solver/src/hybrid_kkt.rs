//! The hybrid condensed KKT form (`kkt = hybrid`, Golub–Greif's augmented Lagrangian
//! approach as in HyKKT): inequality rows condensed, equality rows kept exact.
//!
//! The full system over `(x, s, y)` (slack `k` belongs to inequality row `j`; equality rows
//! have no slack; `Σ' = Σs + δw`, `H = W + Σx + δw`):
//!
//! ```text
//! H dx + Jᵀ dy = bx,   Σ'ₖ dsₖ − dyⱼ = bsₖ,   Jⱼ dx − dsₖ − δc dyⱼ = byⱼ (inequality),
//! Jₑ dx − δc dyₑ = byₑ (equality).
//! ```
//!
//! Eliminating the slacks gives, for an inequality row, `dyⱼ = Dⱼ (Jⱼ dx − byⱼ) − bsₖ/(1 +
//! δc Σ'ₖ)` with `Dⱼ = Σ'ₖ/(1 + δc Σ'ₖ)`. Adding `α Jₑᵀ` times the equality rows to the
//! first block, with `α = γ/(1 + γ δc)`, and writing `dyₑ = (1 + γ δc) z`:
//!
//! ```text
//! K_γ dx + Jₑᵀ z = g,      Jₑ dx − δc(1 + γ δc) z = byₑ,
//! K_γ = H + Jᵀ D J  (D = Dⱼ on inequality rows, α on equality rows),
//! g = bx + Jᵀ u     (uⱼ = Dⱼ byⱼ + bsₖ/(1 + δc Σ'ₖ) on inequality rows, α byₑ on equality rows).
//! ```
//!
//! So `z` solves the Schur complement system `(Jₑ K_γ⁻¹ Jₑᵀ + δc(1 + γ δc) I) z =
//! Jₑ K_γ⁻¹ g − byₑ` (symmetric positive definite when `K_γ` is; conjugate gradients, one
//! solve with the Cholesky factor of `K_γ` per iteration), then `dx = K_γ⁻¹(g − Jₑᵀ z)`
//! (accumulated from `K_γ⁻¹ g` and the conjugate gradients' own solves: `z = Σ stepₖ pₖ`
//! from zero, so `dx = K_γ⁻¹ g − Σ stepₖ K_γ⁻¹ Jₑᵀ pₖ` needs no further solve),
//! `dyₑ = (1 + γ δc) z`, and for the inequality rows `dyⱼ` as above and `dsₖ = Jⱼ dx − byⱼ −
//! δc dyⱼ`. With δc = 0 this is `[K_γ Jₑᵀ; Jₑ 0]` exactly; for δc > 0 the choice of `α`
//! keeps the Schur complement positive definite. For `γ` large enough `K_γ` is positive
//! definite exactly when the (uncondensed) system has the inertia of a descent step (`Jₑ`
//! of full rank), so a failed Cholesky factorization means "increase δw", as for the
//! condensed form.
//!
//! # One implementation, every device
//! The algebra is written once, over [`Device`] kernels ([`HybridOnDevice`]), on top of the
//! condensed form's ([`CondensedOnDevice`]): giving each equality row a pseudo slack
//! diagonal `Σ' = γ` makes the condensed weights `D = Σ'/(1 + δc Σ') = α` on those rows,
//! so the condensed assembly builds `K_γ` and the condensed reduction builds `g` (the
//! slack part of the right-hand side is zero on the equality rows); the condensed
//! expansion gives the inequality rows' `ds`, `dy`, and `dyₑ = (1 + γ δc) z` overwrites
//! the equality rows'. `Jₑᵀ p` is the `Jᵀ` product of `p` scattered to the equality rows,
//! `Jₑ t` the `J` product gathered from them; the conjugate gradients are
//! [`conjugate_gradient_on`] over device vectors (two scalars read back per iteration).
//! The host backend's form ([`HybridKkt`], host slices) runs the same code on
//! [`simdnlp_device::Cpu`]; the device backend ([`crate::device_kkt::DeviceKktBackend`])
//! on its own device (the emulated one, or a GPU with cuDSS).

use crate::device_kkt::CondensedOnDevice;
use crate::layout::Layout;
use crate::result::SolverError;
use simdnlp_device::{Cpu, Device, DeviceError};
use simdnlp_linalg::condensed::{
    CgOptions, CgStats, CgSystem, CgWork, CondensedKkt, conjugate_gradient_on,
};
use simdnlp_linalg::{FactorStatus, LinalgError, SymmetricSolver};

/// Relative residual of the Schur complement solve (iterative refinement on the full
/// system corrects what remains).
const CG_RELATIVE_TOL: f64 = 1e-10;
/// Most conjugate-gradient iterations per solve.
const CG_MAX_ITERATIONS: usize = 100;

/// The hybrid form's part of a KKT system on a device `D` (see the module documentation):
/// the row maps, γ, and the vectors of the Schur complement solve. The condensed form's
/// vectors and plans ([`CondensedOnDevice`], built over all model rows) are passed in.
/// Built once per problem layout; factorizations and solves allocate nothing.
pub(crate) struct HybridOnDevice<D: Device> {
    /// `hybrid_gamma`: γ relative to `max(1, max|W_ij|)`.
    gamma_rel: f64,
    /// γ of the last assembly.
    gamma: f64,
    /// δc of the last assembly.
    delta_c: f64,
    /// Model row of each slack (length ns).
    slack_rows: D::Index,
    /// The model rows without a slack, in order (row `i` of `Jₑ`; length mₑ).
    eq_rows: D::Index,
    /// The slack part of a vector (length ns): `Σ' = Σs + δw` while assembling, `bs` or
    /// `ds` while solving.
    pub(crate) slacks: D::Vector,
    /// A per-row scratch vector (length m).
    rows: D::Vector,
    /// `dx = K_γ⁻¹(g − Jₑᵀ z)` with `g = bx + Jᵀ u`, accumulated over the conjugate
    /// gradients' steps (length n).
    dx: D::Vector,
    /// `K_γ⁻¹ g`, and the scratch vector of the Schur products (length n).
    t: D::Vector,
    /// Right-hand side and solution of the Schur complement system, and a scratch
    /// vector (length mₑ).
    schur_rhs: D::Vector,
    schur_sol: D::Vector,
    eq_scratch: D::Vector,
    cg: CgWork<D::Vector>,
    /// The last solve's conjugate-gradient statistics.
    last_cg: CgStats,
}

impl<D: Device> HybridOnDevice<D> {
    /// The hybrid form of `lay`'s problem on `device`, γ = `gamma_rel` times `max(1,
    /// max|W_ij|)` at each assembly (`hybrid_gamma`).
    pub(crate) fn new(device: &D, lay: &Layout, gamma_rel: f64) -> Result<Self, DeviceError> {
        let (n, m) = (lay.n, lay.m);
        let mut has_slack = vec![false; m];
        for &j in &lay.slack_rows {
            has_slack[j] = true;
        }
        let eq_rows: Vec<usize> = (0..m).filter(|&j| !has_slack[j]).collect();
        let me = eq_rows.len();
        Ok(Self {
            gamma_rel,
            gamma: gamma_rel,
            delta_c: 0.0,
            slack_rows: device.index_from_host(&lay.slack_rows)?,
            eq_rows: device.index_from_host(&eq_rows)?,
            slacks: device.zeros(lay.ns)?,
            rows: device.zeros(m)?,
            dx: device.zeros(n)?,
            t: device.zeros(n)?,
            schur_rhs: device.zeros(me)?,
            schur_sol: device.zeros(me)?,
            eq_scratch: device.zeros(me)?,
            cg: CgWork::with_vectors(me, |len| device.zeros(len))?,
            last_cg: CgStats::default(),
        })
    }

    /// Statistics of the last solve's conjugate gradients.
    pub(crate) fn last_cg(&self) -> CgStats {
        self.last_cg
    }

    /// Model row of each slack.
    pub(crate) fn slack_rows(&self) -> &D::Index {
        &self.slack_rows
    }

    /// With `c.hess`, `c.sigma_x` (δw included), `c.jac` and the slack diagonal
    /// `Σ' = Σs + δw` in [`Self::slacks`] loaded by the caller: γ from the Hessian, the
    /// per-row `Σ'` (γ on the equality rows) and `K_γ`'s values in `c.kvals`. Reads one
    /// scalar (`max|W_ij|`).
    pub(crate) fn assemble(
        &mut self,
        device: &D,
        c: &mut CondensedOnDevice<D>,
        delta_c: f64,
    ) -> Result<(), SolverError> {
        // γ relative to the curvature it must overcome on the range of Jₑᵀ
        let w_max = device.norm_inf(&c.hess).max(1.0);
        self.gamma = self.gamma_rel * w_max;
        self.delta_c = delta_c;
        // Σ' = γ on the equality rows gives D = γ/(1 + δc γ) = α there
        device.fill(&mut c.sigma_s, self.gamma);
        device.scatter(&mut c.sigma_s, &self.slack_rows, &self.slacks);
        c.assemble(device, delta_c)
    }

    /// `c.bs` (per row) from the slack part in [`Self::slacks`]: `bsₖ` on the row of
    /// slack `k`, zero on the equality rows.
    pub(crate) fn slacks_to_rows(&self, device: &D, c: &mut CondensedOnDevice<D>) {
        device.fill(&mut c.bs, 0.0);
        device.scatter(&mut c.bs, &self.slack_rows, &self.slacks);
    }

    /// [`Self::slacks`] from `c.ds` (per row): `dsₖ` of the row of slack `k`.
    pub(crate) fn rows_to_slacks(&mut self, device: &D, c: &CondensedOnDevice<D>) {
        device.gather(&mut self.slacks, &c.ds, &self.slack_rows);
    }

    /// `(dx, ds, dy)` (`c.dx`, per-row `c.ds`, `c.dy`) from `(bx, bs, by)` (`c.bx`, per-row
    /// `c.bs` as [`Self::slacks_to_rows`] leaves it, `c.by`) with the factor of `K_γ`
    /// (`solve`: in place). Returns the number of conjugate-gradient iterations; the
    /// solves with the factor are those plus 2.
    ///
    /// # Errors
    /// A failed solve with the factor.
    pub(crate) fn solve(
        &mut self,
        device: &D,
        c: &mut CondensedOnDevice<D>,
        solve: &mut dyn FnMut(&mut D::Vector) -> Result<(), LinalgError>,
    ) -> Result<usize, SolverError> {
        // g = bx + Jᵀ u (the condensed reduction: u = α by on the equality rows)
        c.reduce(device)?;
        // t = K⁻¹ g, Schur right-hand side Jₑ t − byₑ
        device.copy(&mut self.t, &c.dx);
        solve(&mut self.t)?;
        c.plans
            .jac_mul(device, &c.jac, 1.0, &self.t, 0.0, &mut self.rows);
        device.gather(&mut self.schur_rhs, &self.rows, &self.eq_rows);
        device.gather(&mut self.eq_scratch, &c.by, &self.eq_rows);
        device.axpy(-1.0, &self.eq_scratch, &mut self.schur_rhs);
        // dx = K⁻¹(g − Jₑᵀ z) = K⁻¹g − Σₖ stepₖ K⁻¹Jₑᵀpₖ over the conjugate gradients'
        // steps: `dx` starts at K⁻¹g and takes each step from the solve its product made
        // (`SchurOnDevice::stepped`), so no solve is needed after them
        device.copy(&mut self.dx, &self.t);
        let scale_eq = 1.0 + self.gamma * self.delta_c;
        let mut schur = SchurOnDevice {
            device,
            c,
            eq_rows: &self.eq_rows,
            rows: &mut self.rows,
            t: &mut self.t,
            dx: &mut self.dx,
            shift: self.delta_c * scale_eq,
            solve: &mut *solve,
        };
        let opts = CgOptions {
            relative_tol: CG_RELATIVE_TOL,
            max_iterations: CG_MAX_ITERATIONS,
            zero_start: true,
        };
        self.last_cg = conjugate_gradient_on(
            &mut schur,
            &self.schur_rhs,
            &mut self.schur_sol,
            &mut self.cg,
            &opts,
        )?;
        if !self.last_cg.converged {
            tracing::debug!(
                cg = ?self.last_cg,
                gamma = self.gamma,
                delta_c = self.delta_c,
                "hybrid KKT: conjugate gradients did not converge"
            );
        }
        device.copy(&mut c.dx, &self.dx);
        // the inequality rows' ds, dy (the condensed expansion), dyₑ = (1 + γ δc) z
        c.expand(device)?;
        device.copy(&mut self.eq_scratch, &self.schur_sol);
        device.scale(scale_eq, &mut self.eq_scratch);
        device.scatter(&mut c.dy, &self.eq_rows, &self.eq_scratch);
        Ok(self.last_cg.iterations)
    }
}

/// `p ↦ Jₑ K_γ⁻¹ Jₑᵀ p + shift · p` over device vectors, one solve with the factor of
/// `K_γ` per product.
struct SchurOnDevice<'a, D: Device> {
    device: &'a D,
    c: &'a CondensedOnDevice<D>,
    eq_rows: &'a D::Index,
    /// Per-row scratch (length m).
    rows: &'a mut D::Vector,
    /// Length-n scratch: `K⁻¹ Jₑᵀ p` after [`CgSystem::apply`] of `p`.
    t: &'a mut D::Vector,
    /// `K⁻¹(g − Jₑᵀ z)` for the conjugate gradients' current `z` (length n), updated by
    /// [`CgSystem::stepped`] from `t`.
    dx: &'a mut D::Vector,
    /// `δc (1 + γ δc)`.
    shift: f64,
    solve: &'a mut dyn FnMut(&mut D::Vector) -> Result<(), LinalgError>,
}

impl<D: Device> CgSystem for SchurOnDevice<'_, D> {
    type Vector = D::Vector;
    type Error = LinalgError;
    fn len(&self, v: &D::Vector) -> usize {
        self.device.len(v)
    }
    fn apply(&mut self, p: &D::Vector, out: &mut D::Vector) -> Result<(), LinalgError> {
        let (device, c) = (self.device, self.c);
        // t = Jₑᵀ p (Jᵀ of p scattered to the equality rows), then K⁻¹ t
        device.fill(self.rows, 0.0);
        device.scatter(self.rows, self.eq_rows, p);
        c.plans
            .jac_t_mul(device, &c.jac, 1.0, self.rows, 0.0, self.t);
        (self.solve)(self.t)?;
        // out = Jₑ t + shift p
        c.plans.jac_mul(device, &c.jac, 1.0, self.t, 0.0, self.rows);
        device.gather(out, self.rows, self.eq_rows);
        device.axpy(self.shift, p, out);
        Ok(())
    }
    fn dot(&mut self, x: &D::Vector, y: &D::Vector) -> f64 {
        self.device.dot(x, y)
    }
    fn axpy(&mut self, a: f64, x: &D::Vector, y: &mut D::Vector) {
        self.device.axpy(a, x, y);
    }
    fn xpby(&mut self, x: &D::Vector, b: f64, y: &mut D::Vector) {
        self.device.axpby(1.0, x, b, y);
    }
    fn copy(&mut self, dst: &mut D::Vector, src: &D::Vector) {
        self.device.copy(dst, src);
    }
    fn zero(&mut self, v: &mut D::Vector) {
        self.device.fill(v, 0.0);
    }
    fn stepped(&mut self, step: f64) {
        // z += step p, so K⁻¹(g − Jₑᵀ z) loses step K⁻¹ Jₑᵀ p, which `apply` left in `t`
        self.device.axpy(-step, self.t, self.dx);
    }
}

/// The hybrid form on host slices for the host backend: [`HybridOnDevice`] on
/// [`Cpu`] (whose vectors are host `Vec<f64>`), factorized and solved with a host
/// [`SymmetricSolver`].
pub(crate) struct HybridKkt {
    /// Pattern of `K_γ = H + Jᵀ D J` over all model rows.
    pattern: CondensedKkt,
    n: usize,
    condensed: CondensedOnDevice<Cpu>,
    hybrid: HybridOnDevice<Cpu>,
}

impl HybridKkt {
    /// The hybrid form of `lay`'s problem with Hessian pattern `hess` and Jacobian pattern
    /// `jac` (COO rows and columns), γ = `gamma` times `max(1, max|W_ij|)` at each
    /// factorization (`hybrid_gamma`).
    ///
    /// # Errors
    /// [`SolverError::Linalg`] for a pattern index outside its matrix.
    pub(crate) fn new(
        lay: &Layout,
        hess: (&[usize], &[usize]),
        jac: (&[usize], &[usize]),
        gamma: f64,
    ) -> Result<Self, SolverError> {
        let pattern = CondensedKkt::new(lay.n, lay.m, hess.0, hess.1, jac.0, jac.1)?;
        let condensed = CondensedOnDevice::new(&Cpu, &pattern, jac.0, jac.1, hess.0.len())?;
        Ok(Self {
            hybrid: HybridOnDevice::new(&Cpu, lay, gamma)?,
            condensed,
            pattern,
            n: lay.n,
        })
    }

    /// The pattern of `K_γ`.
    pub(crate) fn pattern(&self) -> &CondensedKkt {
        &self.pattern
    }

    /// Statistics of the last solve's conjugate gradients.
    pub(crate) fn last_cg(&self) -> CgStats {
        self.hybrid.last_cg()
    }

    /// Assembles `K_γ` (γ = `hybrid_gamma · max(1, max|hess|)`) from the Hessian values
    /// `hess`, the primal diagonal `diag_w = Σ + δw`
    /// (length `n + ns`), the Jacobian values `jac` and δc, and factorizes it with
    /// `factor` (Cholesky).
    ///
    /// # Errors
    /// [`SolverError::Linalg`] when an input has the wrong length, or the assembly or the
    /// factorization fails (not for a matrix that is not positive definite: that is the
    /// returned status).
    pub(crate) fn factorize(
        &mut self,
        factor: &mut dyn SymmetricSolver,
        hess: &[f64],
        diag_w: &[f64],
        jac: &[f64],
        delta_c: f64,
    ) -> Result<FactorStatus, SolverError> {
        let n = self.n;
        let c = &mut self.condensed;
        check_len(
            "hybrid factorize: diag_w",
            n + Cpu.len(&self.hybrid.slacks),
            diag_w.len(),
        )?;
        Cpu.copy_from_host(&mut c.hess, hess)?;
        Cpu.copy_from_host(&mut c.sigma_x, &diag_w[..n])?;
        Cpu.copy_from_host(&mut self.hybrid.slacks, &diag_w[n..])?;
        Cpu.copy_from_host(&mut c.jac, jac)?;
        self.hybrid.assemble(&Cpu, c, delta_c)?;
        Ok(factor.factorize(&c.kvals)?)
    }

    /// Solves the full system for `v = (bx, bs, by)` in place with the factor of `K_γ`
    /// (`factor`, as [`HybridKkt::factorize`] left it) and the Jacobian values `jac` of
    /// the pattern `jac_pattern` (the one given to [`HybridKkt::new`]). Returns the
    /// number of solves with the factor (conjugate-gradient iterations + 2).
    ///
    /// # Errors
    /// [`SolverError::Linalg`] when a vector has the wrong length or a solve with the
    /// factor fails.
    pub(crate) fn solve(
        &mut self,
        factor: &mut dyn SymmetricSolver,
        jac: &[f64],
        jac_pattern: (&[usize], &[usize]),
        v: &mut [f64],
    ) -> Result<usize, SolverError> {
        let n = self.n;
        let c = &mut self.condensed;
        let ns = Cpu.len(&self.hybrid.slacks);
        let m = Cpu.len(&c.by);
        check_len("hybrid solve: v", n + ns + m, v.len())?;
        check_len("hybrid solve: jac pattern", jac.len(), jac_pattern.0.len())?;
        let (bx, rest) = v.split_at_mut(n);
        let (bs, by) = rest.split_at_mut(ns);
        Cpu.copy_from_host(&mut c.jac, jac)?;
        Cpu.copy_from_host(&mut c.bx, bx)?;
        Cpu.copy_from_host(&mut self.hybrid.slacks, bs)?;
        self.hybrid.slacks_to_rows(&Cpu, c);
        Cpu.copy_from_host(&mut c.by, by)?;
        let iterations = self
            .hybrid
            .solve(&Cpu, c, &mut |x| factor.solve_in_place(x))?;
        self.hybrid.rows_to_slacks(&Cpu, c);
        bx.copy_from_slice(&c.dx);
        bs.copy_from_slice(&self.hybrid.slacks);
        by.copy_from_slice(&c.dy);
        Ok(iterations + 2)
    }
}

/// `Err` unless `got == expected`.
fn check_len(what: &str, expected: usize, got: usize) -> Result<(), SolverError> {
    if expected == got {
        Ok(())
    } else {
        Err(SolverError::Linalg(LinalgError::LengthMismatch {
            what: what.to_string(),
            expected,
            got,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdnlp_linalg::{FaerLlt, Parallelism};

    /// Dense Gaussian elimination with partial pivoting: solves `a x = b` in place.
    fn dense_solve(mut a: Vec<Vec<f64>>, b: &mut [f64]) {
        let n = b.len();
        for k in 0..n {
            let p = (k..n)
                .max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))
                .unwrap();
            a.swap(k, p);
            b.swap(k, p);
            for i in k + 1..n {
                let f = a[i][k] / a[k][k];
                for j in k..n {
                    a[i][j] -= f * a[k][j];
                }
                b[i] -= f * b[k];
            }
        }
        for k in (0..n).rev() {
            let s: f64 = (k + 1..n).map(|j| a[k][j] * b[j]).sum();
            b[k] = (b[k] - s) / a[k][k];
        }
    }

    /// Problem: n = 4 variables, rows 0 and 2 equalities, rows 1 and 3 inequalities with
    /// slacks 0 and 1 (slack 1 without a barrier term: Σ' = 0 at δw = 0).
    fn layout() -> Layout {
        Layout {
            n: 4,
            m: 4,
            ns: 2,
            slack_rows: vec![1, 3],
            rhs: vec![0.0; 4],
            lo: vec![],
            up: vec![],
            lower_idx: vec![],
            upper_idx: vec![],
            damp_l: vec![],
            damp_u: vec![],
        }
    }

    /// W lower triangle (an indefinite Hessian made definite on the null space of Jₑ),
    /// J, and `Σ + δw` over `(x, s)` of the problem of [`layout`].
    const HROWS: [usize; 6] = [0, 1, 1, 2, 3, 3];
    const HCOLS: [usize; 6] = [0, 0, 1, 2, 1, 3];
    const HVALS: [f64; 6] = [2.0, 0.5, -1.0, 3.0, 0.25, 1.5];
    const JROWS: [usize; 8] = [0, 0, 1, 1, 2, 2, 2, 3];
    const JCOLS: [usize; 8] = [0, 1, 1, 3, 0, 2, 3, 2];
    const JVALS: [f64; 8] = [1.0, 2.0, -1.0, 0.5, 0.3, 1.0, -2.0, 4.0];
    const SIGMA: [f64; 6] = [0.7, 1.3, 0.2, 0.9, 5.0, 0.0];

    /// A right-hand side over `(x, s, y)`.
    fn rhs() -> Vec<f64> {
        (0..4 + 2 + 4)
            .map(|i| (i as f64 * 0.7).sin() + 0.1)
            .collect()
    }

    /// The full (uncondensed) system of the test problem solved densely.
    fn dense_full_solve(delta_c: f64, rhs: &[f64]) -> Vec<f64> {
        let lay = layout();
        let (n, m, ns) = (lay.n, lay.m, lay.ns);
        let nk = n + ns + m;
        let mut a = vec![vec![0.0; nk]; nk];
        for ((&r, &c), &h) in HROWS.iter().zip(&HCOLS).zip(&HVALS) {
            a[r][c] += h;
            if r != c {
                a[c][r] += h;
            }
        }
        for (i, &s) in SIGMA.iter().enumerate() {
            a[i][i] += s;
        }
        for ((&r, &c), &j) in JROWS.iter().zip(&JCOLS).zip(&JVALS) {
            a[n + ns + r][c] += j;
            a[c][n + ns + r] += j;
        }
        for (k, &r) in lay.slack_rows.iter().enumerate() {
            a[n + ns + r][n + k] = -1.0;
            a[n + k][n + ns + r] = -1.0;
        }
        for r in 0..m {
            a[n + ns + r][n + ns + r] = -delta_c;
        }
        let mut x = rhs.to_vec();
        dense_solve(a, &mut x);
        x
    }

    /// `got` within `tol` (relative to `max(1, |want|)`) of `want`, component by component.
    fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= tol * w.abs().max(1.0),
                "{what}, component {i}: {g} vs {w}"
            );
        }
    }

    /// The hybrid solve (host form) agrees with a dense solve of the full (uncondensed)
    /// system, with and without δc, with a slack whose Σ' is zero.
    #[test]
    fn hybrid_solve_matches_the_dense_full_system() {
        let lay = layout();
        for delta_c in [0.0, 1e-3] {
            let mut form = HybridKkt::new(&lay, (&HROWS, &HCOLS), (&JROWS, &JCOLS), 1e4).unwrap();
            let mut factor = FaerLlt::new(Parallelism::Sequential);
            let pat = form.pattern().clone();
            factor.analyze(lay.n, pat.col_ptr(), pat.row_idx()).unwrap();
            let st = form
                .factorize(&mut factor, &HVALS, &SIGMA, &JVALS, delta_c)
                .unwrap();
            assert_eq!(st, FactorStatus::Success);
            let mut v = rhs();
            let solves = form
                .solve(&mut factor, &JVALS, (&JROWS, &JCOLS), &mut v)
                .unwrap();
            assert!(form.last_cg().converged, "{:?}", form.last_cg());
            assert_eq!(solves, form.last_cg().iterations + 2);
            let expected = dense_full_solve(delta_c, &rhs());
            assert_close(&format!("δc = {delta_c}"), &v, &expected, 1e-8);
        }
        // wrong lengths are typed errors
        let mut form = HybridKkt::new(&lay, (&HROWS, &HCOLS), (&JROWS, &JCOLS), 1e4).unwrap();
        let mut factor = FaerLlt::new(Parallelism::Sequential);
        let err = form.factorize(&mut factor, &HVALS, &SIGMA[..5], &JVALS, 0.0);
        assert!(matches!(err, Err(SolverError::Linalg(_))), "{err:?}");
        let err = form.solve(&mut factor, &JVALS, (&JROWS, &JCOLS), &mut [0.0; 9]);
        assert!(matches!(err, Err(SolverError::Linalg(_))), "{err:?}");
    }

    /// One KKT solve of the device path ([`HybridOnDevice`] and [`CondensedOnDevice`]
    /// over `device`'s kernels, faer's Cholesky on its host buffers) for the test problem,
    /// `v = (bx, bs, by)` in place. Returns the conjugate-gradient iterations.
    fn device_solve<D: Device + simdnlp_device::HostBuffers>(
        device: &D,
        delta_c: f64,
        v: &mut [f64],
    ) -> usize {
        let lay = layout();
        let (n, ns) = (lay.n, lay.ns);
        let pattern = CondensedKkt::new(lay.n, lay.m, &HROWS, &HCOLS, &JROWS, &JCOLS).unwrap();
        let mut c = CondensedOnDevice::new(device, &pattern, &JROWS, &JCOLS, HROWS.len()).unwrap();
        let mut h = HybridOnDevice::new(device, &lay, 1e4).unwrap();
        device.copy_from_host(&mut c.hess, &HVALS).unwrap();
        device.copy_from_host(&mut c.sigma_x, &SIGMA[..n]).unwrap();
        device.copy_from_host(&mut h.slacks, &SIGMA[n..]).unwrap();
        device.copy_from_host(&mut c.jac, &JVALS).unwrap();
        h.assemble(device, &mut c, delta_c).unwrap();
        let mut factor = FaerLlt::new(Parallelism::Sequential);
        factor
            .analyze(n, pattern.col_ptr(), pattern.row_idx())
            .unwrap();
        let st = factor.factorize(device.host(&c.kvals)).unwrap();
        assert_eq!(st, FactorStatus::Success);
        device.copy_from_host(&mut c.bx, &v[..n]).unwrap();
        device.copy_from_host(&mut h.slacks, &v[n..n + ns]).unwrap();
        h.slacks_to_rows(device, &mut c);
        device.copy_from_host(&mut c.by, &v[n + ns..]).unwrap();
        let iterations = h
            .solve(device, &mut c, &mut |x| {
                factor.solve_in_place(device.host_mut(x))
            })
            .unwrap();
        h.rows_to_slacks(device, &c);
        device.synchronize().unwrap();
        device.to_host(&c.dx, &mut v[..n]).unwrap();
        device.to_host(&h.slacks, &mut v[n..n + ns]).unwrap();
        device.to_host(&c.dy, &mut v[n + ns..]).unwrap();
        iterations
    }

    /// The device path on the emulated CUDA device (the GPU's kernels) agrees with a dense
    /// solve of the full system and with the same code on the CPU device (its kernels'
    /// twins). Skipped without g++ when `SIMDNLP_SKIP_GXX` is set.
    #[test]
    fn device_solve_on_emu_matches_the_dense_system_and_the_cpu_kernels() {
        let emu = match simdnlp_device::Emu::new() {
            Ok(emu) => emu,
            Err(e) => {
                assert!(
                    std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                    "g++ is required for this test: {e}"
                );
                return;
            }
        };
        for delta_c in [0.0, 1e-3] {
            let expected = dense_full_solve(delta_c, &rhs());
            let mut on_emu = rhs();
            let cg_emu = device_solve(&emu, delta_c, &mut on_emu);
            let mut on_cpu = rhs();
            let cg_cpu = device_solve(&Cpu, delta_c, &mut on_cpu);
            assert!(cg_emu > 0 && cg_emu <= 2, "{cg_emu} CG iterations (mₑ = 2)");
            assert_eq!(cg_emu, cg_cpu);
            assert_close("emu against dense", &on_emu, &expected, 1e-8);
            assert_close("emu against the cpu kernels", &on_emu, &on_cpu, 1e-13);
        }
    }

    /// The conjugate gradients on the Schur complement agree with a dense solve of the
    /// Schur complement `Jₑ K_γ⁻¹ Jₑᵀ + δc(1 + γ δc) I` formed column by column.
    #[test]
    fn schur_cg_matches_a_dense_schur_solve() {
        let lay = layout();
        let n = 4;
        let hrows = [0, 1, 2, 3];
        let hcols = [0, 1, 2, 3];
        let hvals = [1.0, 2.0, 3.0, 4.0];
        let jrows = [0, 0, 1, 2, 2, 3];
        let jcols = [0, 1, 1, 1, 2, 3];
        let jvals = [1.0, -1.0, 1.0, 2.0, 0.5, 1.0];
        let sigma = [0.1, 0.1, 0.1, 0.1, 2.0, 3.0];
        let (gamma, delta_c) = (100.0, 1e-4);
        let mut form = HybridKkt::new(&lay, (&hrows, &hcols), (&jrows, &jcols), gamma).unwrap();
        let mut factor = FaerLlt::new(Parallelism::Sequential);
        let pat = form.pattern().clone();
        factor.analyze(n, pat.col_ptr(), pat.row_idx()).unwrap();
        form.factorize(&mut factor, &hvals, &sigma, &jvals, delta_c)
            .unwrap();
        let hy = &mut form.hybrid;
        let shift = delta_c * (1.0 + hy.gamma * delta_c);
        assert_eq!(hy.eq_rows, [0, 2]);
        let mut solve = |x: &mut Vec<f64>| factor.solve_in_place(x);
        let mut op = SchurOnDevice {
            device: &Cpu,
            c: &form.condensed,
            eq_rows: &hy.eq_rows,
            rows: &mut hy.rows,
            t: &mut hy.t,
            dx: &mut hy.dx,
            shift,
            solve: &mut solve,
        };
        // dense Schur complement, column by column
        let mut s = vec![vec![0.0; 2]; 2];
        for c in 0..2 {
            let mut e = vec![0.0; 2];
            e[c] = 1.0;
            let mut col = vec![0.0; 2];
            op.apply(&e, &mut col).unwrap();
            for r in 0..2 {
                s[r][c] = col[r];
            }
        }
        assert!(
            (s[0][1] - s[1][0]).abs() < 1e-12 * s[0][0].abs(),
            "symmetric"
        );
        let b = vec![0.3, -1.1];
        let mut want = b.clone();
        dense_solve(s, &mut want);
        for zero_start in [true, false] {
            let mut got = vec![0.0; 2];
            let mut work = CgWork::new(2);
            let opts = CgOptions {
                relative_tol: 1e-14,
                max_iterations: 10,
                zero_start,
            };
            op.dx.fill(0.0);
            let stats = conjugate_gradient_on(&mut op, &b, &mut got, &mut work, &opts).unwrap();
            assert!(stats.converged && stats.iterations <= 2, "{stats:?}");
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-10 * w.abs().max(1.0), "{g} vs {w}");
            }
            if zero_start {
                // the steps' solves sum to −K⁻¹ Jₑᵀ z: `apply` of z leaves K⁻¹ Jₑᵀ z in `t`
                let mut scratch = vec![0.0; 2];
                op.apply(&got, &mut scratch).unwrap();
                assert!(op.dx.iter().any(|v| *v != 0.0));
                for (d, t) in op.dx.iter().zip(op.t.iter()) {
                    assert!((d + t).abs() < 1e-12 * t.abs().max(1.0), "{d} vs −{t}");
                }
            }
        }
    }
}
