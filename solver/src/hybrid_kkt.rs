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
//! solve with the Cholesky factor of `K_γ` per iteration), then `dx = K_γ⁻¹(g − Jₑᵀ z)`,
//! `dyₑ = (1 + γ δc) z`, and for the inequality rows `dyⱼ` as above and `dsₖ = Jⱼ dx − byⱼ −
//! δc dyⱼ`. With δc = 0 this is `[K_γ Jₑᵀ; Jₑ 0]` exactly; for δc > 0 the choice of `α`
//! keeps the Schur complement positive definite. For `γ` large enough `K_γ` is positive
//! definite exactly when the (uncondensed) system has the inertia of a descent step (`Jₑ`
//! of full rank), so a failed Cholesky factorization means "increase δw", as for the
//! condensed form.

use crate::layout::Layout;
use crate::result::SolverError;
use simdnlp_linalg::condensed::{
    CgOptions, CgStats, CgWork, CondensedKkt, SpdOperator, conjugate_gradient,
};
use simdnlp_linalg::{FactorStatus, LinalgError, SymmetricSolver};

/// Relative residual of the Schur complement solve (iterative refinement on the full
/// system corrects what remains).
const CG_RELATIVE_TOL: f64 = 1e-10;
/// Most conjugate-gradient iterations per solve.
const CG_MAX_ITERATIONS: usize = 100;

/// Pattern, values and solve buffers of the hybrid condensed KKT system (see the module
/// documentation). Built once per problem layout; factorizations and solves allocate
/// nothing.
pub(crate) struct HybridKkt {
    /// Pattern of `K_γ = H + Jᵀ D J` over all model rows.
    pattern: CondensedKkt,
    /// γ (`hybrid_gamma`).
    gamma: f64,
    n: usize,
    /// Model row of each slack (slack `k` of inequality row `slack_rows[k]`).
    slack_rows: Vec<usize>,
    /// Model rows without a slack (the equality rows), in order: equality row `i` of `Jₑ`.
    eq_rows: Vec<usize>,
    /// Jacobian entries (indices into the values) of the equality rows.
    eq_entries: Vec<usize>,
    /// Row of each `eq_entries` entry in `Jₑ` (index into `eq_rows`).
    eq_entry_rows: Vec<usize>,
    /// Column of each `eq_entries` entry.
    eq_entry_cols: Vec<usize>,
    /// Per model row: `D` of the last factorization.
    d: Vec<f64>,
    /// `Σ' = Σs + δw` per slack of the last factorization.
    sigma_s: Vec<f64>,
    /// δc of the last factorization.
    delta_c: f64,
    /// Values of `K_γ` (lower-triangle CSC of `pattern`).
    kvals: Vec<f64>,
    /// `u` (per model row), then `J dx` (per model row).
    row_work: Vec<f64>,
    /// `g`, then `dx`.
    x_work: Vec<f64>,
    /// `K_γ⁻¹ g` and the scratch vector of the Schur products (length n).
    x_tmp: Vec<f64>,
    /// Right-hand side and solution of the Schur complement system (length mₑ).
    schur_rhs: Vec<f64>,
    schur_sol: Vec<f64>,
    cg: CgWork,
    /// The last solve's conjugate-gradient statistics.
    last_cg: CgStats,
}

impl HybridKkt {
    /// The hybrid form of `lay`'s problem with Hessian pattern `hess` and Jacobian pattern
    /// `jac` (COO rows and columns), γ = `gamma`. Returns it with the pattern of `K_γ`
    /// (for the symbolic analysis).
    ///
    /// # Errors
    /// [`SolverError::Linalg`] for a pattern index outside its matrix.
    pub(crate) fn new(
        lay: &Layout,
        hess: (&[usize], &[usize]),
        jac: (&[usize], &[usize]),
        gamma: f64,
    ) -> Result<Self, SolverError> {
        let (n, m) = (lay.n, lay.m);
        let pattern = CondensedKkt::new(n, m, hess.0, hess.1, jac.0, jac.1)?;
        let mut eq_index = vec![usize::MAX; m];
        let mut has_slack = vec![false; m];
        for &j in &lay.slack_rows {
            has_slack[j] = true;
        }
        let eq_rows: Vec<usize> = (0..m).filter(|&j| !has_slack[j]).collect();
        for (i, &j) in eq_rows.iter().enumerate() {
            eq_index[j] = i;
        }
        let mut eq_entries = Vec::new();
        let mut eq_entry_rows = Vec::new();
        let mut eq_entry_cols = Vec::new();
        for (k, (&r, &c)) in jac.0.iter().zip(jac.1).enumerate() {
            if eq_index[r] != usize::MAX {
                eq_entries.push(k);
                eq_entry_rows.push(eq_index[r]);
                eq_entry_cols.push(c);
            }
        }
        let me = eq_rows.len();
        Ok(Self {
            kvals: vec![0.0; pattern.nnz()],
            pattern,
            gamma,
            n,
            slack_rows: lay.slack_rows.clone(),
            eq_rows,
            eq_entries,
            eq_entry_rows,
            eq_entry_cols,
            d: vec![0.0; m],
            sigma_s: vec![0.0; lay.ns],
            delta_c: 0.0,
            row_work: vec![0.0; m],
            x_work: vec![0.0; n],
            x_tmp: vec![0.0; n],
            schur_rhs: vec![0.0; me],
            schur_sol: vec![0.0; me],
            cg: CgWork::new(me),
            last_cg: CgStats::default(),
        })
    }

    /// The pattern of `K_γ`.
    pub(crate) fn pattern(&self) -> &CondensedKkt {
        &self.pattern
    }

    /// Statistics of the last solve's conjugate gradients.
    pub(crate) fn last_cg(&self) -> CgStats {
        self.last_cg
    }

    /// `α = γ/(1 + γ δc)`, the weight of `Jₑᵀ Jₑ` in `K_γ`.
    fn alpha(&self) -> f64 {
        self.gamma / (1.0 + self.gamma * self.delta_c)
    }

    /// Assembles `K_γ` from the Hessian values `hess`, the primal diagonal `diag_w = Σ + δw`
    /// (length `n + ns`), the Jacobian values `jac` and δc, and factorizes it with
    /// `factor` (Cholesky).
    ///
    /// # Errors
    /// [`SolverError::Linalg`] when the assembly or the factorization fails (not for a
    /// matrix that is not positive definite: that is the returned status).
    pub(crate) fn factorize(
        &mut self,
        factor: &mut dyn SymmetricSolver,
        hess: &[f64],
        diag_w: &[f64],
        jac: &[f64],
        delta_c: f64,
    ) -> Result<FactorStatus, SolverError> {
        let n = self.n;
        self.delta_c = delta_c;
        self.sigma_s.copy_from_slice(&diag_w[n..]);
        let alpha = self.alpha();
        for &j in &self.eq_rows {
            self.d[j] = alpha;
        }
        for (&j, &s) in self.slack_rows.iter().zip(&self.sigma_s) {
            self.d[j] = s / (1.0 + delta_c * s);
        }
        self.pattern
            .assemble(hess, &diag_w[..n], jac, &self.d, &mut self.kvals)?;
        Ok(factor.factorize(&self.kvals)?)
    }

    /// Solves the full system for `v = (bx, bs, by)` in place with the factor of `K_γ`
    /// (`factor`, as [`HybridKkt::factorize`] left it) and the Jacobian values `jac`.
    /// Returns the number of solves with the factor (conjugate-gradient iterations + 2).
    ///
    /// # Errors
    /// [`SolverError::Linalg`] when a solve with the factor fails.
    pub(crate) fn solve(
        &mut self,
        factor: &mut dyn SymmetricSolver,
        jac: &[f64],
        jac_pattern: (&[usize], &[usize]),
        v: &mut [f64],
    ) -> Result<usize, SolverError> {
        let n = self.n;
        let ns = self.slack_rows.len();
        let (jrows, jcols) = jac_pattern;
        let (bx, rest) = v.split_at_mut(n);
        let (bs, by) = rest.split_at_mut(ns);
        let delta_c = self.delta_c;
        let alpha = self.alpha();
        // u per row, then g = bx + Jᵀ u
        let u = &mut self.row_work;
        for &j in &self.eq_rows {
            u[j] = alpha * by[j];
        }
        for ((&j, &s), &b) in self.slack_rows.iter().zip(&self.sigma_s).zip(bs.iter()) {
            u[j] = self.d[j] * by[j] + b / (1.0 + delta_c * s);
        }
        let g = &mut self.x_work;
        g.copy_from_slice(bx);
        for ((&r, &c), &a) in jrows.iter().zip(jcols).zip(jac) {
            g[c] += a * u[r];
        }
        // t = K⁻¹ g, Schur right-hand side Jₑ t − byₑ
        let t = &mut self.x_tmp;
        t.copy_from_slice(g);
        factor.solve_in_place(t)?;
        let rhs = &mut self.schur_rhs;
        for (i, &j) in self.eq_rows.iter().enumerate() {
            rhs[i] = -by[j];
        }
        for ((&k, &i), &c) in self
            .eq_entries
            .iter()
            .zip(&self.eq_entry_rows)
            .zip(&self.eq_entry_cols)
        {
            rhs[i] += jac[k] * t[c];
        }
        self.schur_sol.fill(0.0);
        let mut op = SchurComplement {
            factor: &mut *factor,
            jac,
            eq_entries: &self.eq_entries,
            eq_entry_rows: &self.eq_entry_rows,
            eq_entry_cols: &self.eq_entry_cols,
            shift: delta_c * (1.0 + self.gamma * delta_c),
            scratch: &mut self.x_tmp,
        };
        let opts = CgOptions {
            relative_tol: CG_RELATIVE_TOL,
            max_iterations: CG_MAX_ITERATIONS,
        };
        self.last_cg = conjugate_gradient(
            &mut op,
            &self.schur_rhs,
            &mut self.schur_sol,
            &mut self.cg,
            &opts,
        )?;
        // dx = K⁻¹(g − Jₑᵀ z)
        let g = &mut self.x_work;
        for ((&k, &i), &c) in self
            .eq_entries
            .iter()
            .zip(&self.eq_entry_rows)
            .zip(&self.eq_entry_cols)
        {
            g[c] -= jac[k] * self.schur_sol[i];
        }
        factor.solve_in_place(g)?;
        bx.copy_from_slice(g);
        // J dx per row, then the multipliers and slack steps
        let jdx = &mut self.row_work;
        jdx.fill(0.0);
        for ((&r, &c), &a) in jrows.iter().zip(jcols).zip(jac) {
            jdx[r] += a * bx[c];
        }
        let scale_eq = 1.0 + self.gamma * delta_c;
        for (&j, &z) in self.eq_rows.iter().zip(&self.schur_sol) {
            by[j] = scale_eq * z;
        }
        for (k, (&j, &s)) in self.slack_rows.iter().zip(&self.sigma_s).enumerate() {
            let dy = self.d[j] * (jdx[j] - by[j]) - bs[k] / (1.0 + delta_c * s);
            bs[k] = jdx[j] - by[j] - delta_c * dy;
            by[j] = dy;
        }
        Ok(self.last_cg.iterations + 2)
    }
}

/// `p ↦ Jₑ K_γ⁻¹ Jₑᵀ p + shift · p`, one solve with the factor of `K_γ` per product.
struct SchurComplement<'a> {
    factor: &'a mut dyn SymmetricSolver,
    jac: &'a [f64],
    eq_entries: &'a [usize],
    eq_entry_rows: &'a [usize],
    eq_entry_cols: &'a [usize],
    /// `δc (1 + γ δc)`.
    shift: f64,
    /// Length-n scratch vector.
    scratch: &'a mut [f64],
}

impl SpdOperator for SchurComplement<'_> {
    type Error = LinalgError;
    fn apply(&mut self, p: &[f64], out: &mut [f64]) -> Result<(), LinalgError> {
        let t = &mut *self.scratch;
        t.fill(0.0);
        let entries = self
            .eq_entries
            .iter()
            .zip(self.eq_entry_rows)
            .zip(self.eq_entry_cols);
        for ((&k, &i), &c) in entries.clone() {
            t[c] += self.jac[k] * p[i];
        }
        self.factor.solve_in_place(t)?;
        for (o, &pi) in out.iter_mut().zip(p) {
            *o = self.shift * pi;
        }
        for ((&k, &i), &c) in entries {
            out[i] += self.jac[k] * t[c];
        }
        Ok(())
    }
}
