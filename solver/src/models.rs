//! Model wrappers the solver evaluates instead of the user's model: gradient-based NLP
//! scaling ([`ScaledModel`]) and the ℓ1 feasibility-restoration problem ([`RestoModel`]).
//!
//! Both are plain [`NlpModel`]s, so the interior-point machinery runs on them unchanged.
//! Their buffers are allocated when they are built; their callbacks allocate nothing.

use simdnlp_modeling::{NlpMeta, NlpModel};
use std::cell::RefCell;

/// `min s_f f(x)  s.t.  D_c lcon ≤ D_c c(x) ≤ D_c ucon` for a model `min/max f`, where the
/// signed objective factor `s_f` is negative for maximization.
pub struct ScaledModel<'a> {
    inner: &'a dyn NlpModel,
    meta: NlpMeta<f64>,
    /// Signed objective factor (`−` for maximization).
    pub obj_scale: f64,
    /// Row factors `D_c`, length `ncon`.
    pub con_scale: Vec<f64>,
    jac_rows: Vec<usize>,
    ybuf: RefCell<Vec<f64>>,
}

impl<'a> ScaledModel<'a> {
    /// Wrap `inner` with objective factor `obj_scale` (already signed) and row factors.
    /// `y0` of the wrapped meta is replaced by `y0_scaled` (length `ncon`).
    pub fn new(inner: &'a dyn NlpModel, obj_scale: f64, con_scale: Vec<f64>) -> Self {
        let im = inner.meta();
        let mut meta = im.clone();
        for j in 0..im.ncon {
            meta.lcon[j] = im.lcon[j] * con_scale[j];
            meta.ucon[j] = im.ucon[j] * con_scale[j];
            meta.y0[j] = im.y0[j] * obj_scale.abs() / con_scale[j];
        }
        meta.minimize = true;
        let mut jac_rows = vec![0; im.nnzj];
        let mut jac_cols = vec![0; im.nnzj];
        inner.jac_structure(&mut jac_rows, &mut jac_cols);
        Self {
            inner,
            meta,
            obj_scale,
            con_scale,
            jac_rows,
            ybuf: RefCell::new(vec![0.0; im.ncon]),
        }
    }

    fn scaled_y(&self, y: &[f64]) -> std::cell::RefMut<'_, Vec<f64>> {
        let mut b = self.ybuf.borrow_mut();
        for ((bj, &yj), &dj) in b.iter_mut().zip(y).zip(&self.con_scale) {
            *bj = yj * dj;
        }
        b
    }
}

impl NlpModel for ScaledModel<'_> {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn obj(&self, x: &[f64]) -> f64 {
        self.obj_scale * self.inner.obj(x)
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        self.inner.grad(x, g);
        g.iter_mut().for_each(|v| *v *= self.obj_scale);
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        self.inner.cons(x, c);
        c.iter_mut().zip(&self.con_scale).for_each(|(v, d)| *v *= d);
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.inner.jac_structure(rows, cols);
    }
    fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
        self.inner.jac_coord(x, vals);
        for (v, &r) in vals.iter_mut().zip(&self.jac_rows) {
            *v *= self.con_scale[r];
        }
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.inner.hess_structure(rows, cols);
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], obj_weight: f64, vals: &mut [f64]) {
        let b = self.scaled_y(y);
        self.inner
            .hess_coord(x, &b, obj_weight * self.obj_scale, vals);
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        self.inner.jprod(x, v, jv);
        jv.iter_mut()
            .zip(&self.con_scale)
            .for_each(|(a, d)| *a *= d);
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        let b = self.scaled_y(v);
        self.inner.jtprod(x, &b, jtv);
    }
    fn hprod(&self, x: &[f64], y: &[f64], obj_weight: f64, v: &[f64], hv: &mut [f64]) {
        let b = self.scaled_y(y);
        self.inner.hprod(x, &b, obj_weight * self.obj_scale, v, hv);
    }
}

/// Ipopt's ℓ1 feasibility-restoration problem for a model with `n` variables and `m` rows:
///
/// ```text
/// min  ρ Σ (p_j + n_j) + ζ/2 Σ D_i² (x_i − x_R,i)²
/// s.t. lcon ≤ c(x) − p + n ≤ ucon,   lvar ≤ x ≤ uvar,   p, n ≥ 0
/// ```
///
/// with `ζ = √μ` and `D_i = min(1, 1/|x_R,i|)`. Variables are ordered `(x, p, n)`.
pub struct RestoModel<'a> {
    inner: &'a dyn NlpModel,
    meta: NlpMeta<f64>,
    rho: f64,
    zeta: f64,
    x_ref: Vec<f64>,
    d2: Vec<f64>,
    nnzj_in: usize,
    nnzh_in: usize,
}

impl<'a> RestoModel<'a> {
    /// Restoration problem of `inner` around `x_ref`, with variable bounds `lvar/uvar`
    /// and row bounds `lcon/ucon` (the outer problem's, relaxed) and start `(x_ref, p0, n0)`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        inner: &'a dyn NlpModel,
        rho: f64,
        mu: f64,
        x_ref: &[f64],
        lvar: &[f64],
        uvar: &[f64],
        lcon: &[f64],
        ucon: &[f64],
        p0: &[f64],
        n0: &[f64],
    ) -> Self {
        let im = inner.meta();
        let (n, m) = (im.nvar, im.ncon);
        let nv = n + 2 * m;
        let mut meta = NlpMeta::new(nv, m);
        meta.nnzj = im.nnzj + 2 * m;
        meta.nnzh = im.nnzh + n;
        meta.x0[..n].copy_from_slice(x_ref);
        meta.x0[n..n + m].copy_from_slice(p0);
        meta.x0[n + m..].copy_from_slice(n0);
        meta.lvar[..n].copy_from_slice(lvar);
        meta.uvar[..n].copy_from_slice(uvar);
        meta.lvar[n..].iter_mut().for_each(|v| *v = 0.0);
        meta.lcon.copy_from_slice(lcon);
        meta.ucon.copy_from_slice(ucon);
        meta.name = format!("{} (restoration)", im.name);
        let d2 = x_ref
            .iter()
            .map(|&v| (1.0f64 / v.abs().max(1.0)).powi(2))
            .collect();
        Self {
            inner,
            meta,
            rho,
            zeta: mu.sqrt(),
            x_ref: x_ref.to_vec(),
            d2,
            nnzj_in: im.nnzj,
            nnzh_in: im.nnzh,
        }
    }

    fn n(&self) -> usize {
        self.x_ref.len()
    }
}

impl NlpModel for RestoModel<'_> {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn obj(&self, x: &[f64]) -> f64 {
        let n = self.n();
        let pen: f64 = x[n..].iter().sum();
        let mut prox = 0.0;
        for i in 0..n {
            let d = x[i] - self.x_ref[i];
            prox += self.d2[i] * d * d;
        }
        self.rho * pen + 0.5 * self.zeta * prox
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        let n = self.n();
        for i in 0..n {
            g[i] = self.zeta * self.d2[i] * (x[i] - self.x_ref[i]);
        }
        g[n..].iter_mut().for_each(|v| *v = self.rho);
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        let (n, m) = (self.n(), self.meta.ncon);
        self.inner.cons(&x[..n], c);
        for j in 0..m {
            c[j] += x[n + m + j] - x[n + j];
        }
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let (n, m, k) = (self.n(), self.meta.ncon, self.nnzj_in);
        self.inner.jac_structure(&mut rows[..k], &mut cols[..k]);
        for j in 0..m {
            rows[k + j] = j;
            cols[k + j] = n + j;
            rows[k + m + j] = j;
            cols[k + m + j] = n + m + j;
        }
    }
    fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
        let (n, m, k) = (self.n(), self.meta.ncon, self.nnzj_in);
        self.inner.jac_coord(&x[..n], &mut vals[..k]);
        vals[k..k + m].iter_mut().for_each(|v| *v = -1.0);
        vals[k + m..].iter_mut().for_each(|v| *v = 1.0);
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let k = self.nnzh_in;
        self.inner.hess_structure(&mut rows[..k], &mut cols[..k]);
        for i in 0..self.n() {
            rows[k + i] = i;
            cols[k + i] = i;
        }
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], obj_weight: f64, vals: &mut [f64]) {
        let (n, k) = (self.n(), self.nnzh_in);
        self.inner.hess_coord(&x[..n], y, 0.0, &mut vals[..k]);
        for i in 0..n {
            vals[k + i] = obj_weight * self.zeta * self.d2[i];
        }
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        let (n, m) = (self.n(), self.meta.ncon);
        self.inner.jprod(&x[..n], &v[..n], jv);
        for j in 0..m {
            jv[j] += v[n + m + j] - v[n + j];
        }
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        let (n, m) = (self.n(), self.meta.ncon);
        self.inner.jtprod(&x[..n], v, &mut jtv[..n]);
        for j in 0..m {
            jtv[n + j] = -v[j];
            jtv[n + m + j] = v[j];
        }
    }
    fn hprod(&self, x: &[f64], y: &[f64], obj_weight: f64, v: &[f64], hv: &mut [f64]) {
        let n = self.n();
        self.inner.hprod(&x[..n], y, 0.0, &v[..n], &mut hv[..n]);
        for i in 0..n {
            hv[i] += obj_weight * self.zeta * self.d2[i] * v[i];
        }
        hv[n..].iter_mut().for_each(|a| *a = 0.0);
    }
}
