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
    /// `hybrid_gamma`: γ relative to `max(1, max|W_ij|)`.
    gamma_rel: f64,
    /// γ of the last factorization.
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
            gamma_rel: gamma,
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

    /// Assembles `K_γ` (γ = `hybrid_gamma · max(1, max|hess|)`) from the Hessian values
    /// `hess`, the primal diagonal `diag_w = Σ + δw`
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
        // γ relative to the curvature it must overcome on the range of Jₑᵀ
        let w_max = hess.iter().fold(1.0f64, |a, &v| a.max(v.abs()));
        self.gamma = self.gamma_rel * w_max;
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
        if !self.last_cg.converged {
            tracing::debug!(
                cg = ?self.last_cg,
                gamma = self.gamma,
                delta_c,
                "hybrid KKT: conjugate gradients did not converge"
            );
        }
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

    /// The hybrid solve agrees with a dense solve of the full (uncondensed) system, with
    /// and without δc, with a slack whose Σ' is zero.
    #[test]
    fn hybrid_solve_matches_the_dense_full_system() {
        let lay = layout();
        let (n, m, ns) = (4, 4, 2);
        // W lower triangle: an indefinite Hessian made definite on the null space of Jₑ
        let hrows = [0, 1, 1, 2, 3, 3];
        let hcols = [0, 0, 1, 2, 1, 3];
        let hvals = [2.0, 0.5, -1.0, 3.0, 0.25, 1.5];
        let jrows = [0, 0, 1, 1, 2, 2, 2, 3];
        let jcols = [0, 1, 1, 3, 0, 2, 3, 2];
        let jvals = [1.0, 2.0, -1.0, 0.5, 0.3, 1.0, -2.0, 4.0];
        let sigma = [0.7, 1.3, 0.2, 0.9, 5.0, 0.0];
        for delta_c in [0.0, 1e-3] {
            let mut form = HybridKkt::new(&lay, (&hrows, &hcols), (&jrows, &jcols), 1e4).unwrap();
            let mut factor = FaerLlt::new(Parallelism::Sequential);
            let pat = form.pattern().clone();
            factor.analyze(n, pat.col_ptr(), pat.row_idx()).unwrap();
            let st = form
                .factorize(&mut factor, &hvals, &sigma, &jvals, delta_c)
                .unwrap();
            assert_eq!(st, FactorStatus::Success);
            let rhs: Vec<f64> = (0..n + ns + m)
                .map(|i| (i as f64 * 0.7).sin() + 0.1)
                .collect();
            let mut v = rhs.clone();
            form.solve(&mut factor, &jvals, (&jrows, &jcols), &mut v)
                .unwrap();
            assert!(form.last_cg().converged, "{:?}", form.last_cg());
            // dense full system over (x, s, y)
            let nk = n + ns + m;
            let mut a = vec![vec![0.0; nk]; nk];
            for ((&r, &c), &h) in hrows.iter().zip(&hcols).zip(&hvals) {
                a[r][c] += h;
                if r != c {
                    a[c][r] += h;
                }
            }
            for (i, &s) in sigma.iter().enumerate() {
                a[i][i] += s;
            }
            for ((&r, &c), &j) in jrows.iter().zip(&jcols).zip(&jvals) {
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
            let mut expected = rhs.clone();
            dense_solve(a, &mut expected);
            for (i, (got, want)) in v.iter().zip(&expected).enumerate() {
                assert!(
                    (got - want).abs() <= 1e-8 * want.abs().max(1.0),
                    "δc = {delta_c}, component {i}: {got} vs {want}"
                );
            }
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
        let shift = delta_c * (1.0 + form.gamma * delta_c);
        let eq = [0usize, 2];
        let mut x_tmp = vec![0.0; n];
        let mut op = SchurComplement {
            factor: &mut factor,
            jac: &jvals,
            eq_entries: &form.eq_entries,
            eq_entry_rows: &form.eq_entry_rows,
            eq_entry_cols: &form.eq_entry_cols,
            shift,
            scratch: &mut x_tmp,
        };
        // dense Schur complement, column by column
        let mut s = vec![vec![0.0; 2]; 2];
        for c in 0..2 {
            let mut e = [0.0; 2];
            e[c] = 1.0;
            let mut col = [0.0; 2];
            op.apply(&e, &mut col).unwrap();
            for r in 0..2 {
                s[r][c] = col[r];
            }
        }
        assert!(
            (s[0][1] - s[1][0]).abs() < 1e-12 * s[0][0].abs(),
            "symmetric"
        );
        let b = [0.3, -1.1];
        let mut want = b;
        dense_solve(s, &mut want);
        let mut got = [0.0; 2];
        let mut work = CgWork::new(2);
        let opts = CgOptions {
            relative_tol: 1e-14,
            max_iterations: 10,
        };
        let stats = conjugate_gradient(&mut op, &b, &mut got, &mut work, &opts).unwrap();
        assert!(stats.converged && stats.iterations <= 2, "{stats:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-10 * w.abs().max(1.0), "{g} vs {w}");
        }
        assert_eq!(eq.len(), form.eq_rows.len());
        assert_eq!(form.eq_rows, eq);
    }
}
