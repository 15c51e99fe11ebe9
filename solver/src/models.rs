//! Model wrappers the solver evaluates instead of the user's model: fixed variables made
//! parameters ([`FixedAsParameters`]), gradient-based NLP scaling ([`ScaledModel`]) and the
//! ℓ1 feasibility-restoration problem ([`RestoModel`]).
//!
//! These are plain [`NlpModel`]s on the host. The solver evaluates their device-side twins
//! ([`FixedOnDevice`], [`ScaledOnDevice`], [`RestoOnDevice`]: [`DeviceNlp`]s over the
//! model's [`DeviceNlp`], built from device kernels), which give bitwise the same values
//! on the CPU. Buffers are allocated when a wrapper is built; callbacks allocate nothing.

use crate::evaluate::DeviceNlp;
use crate::result::SolverError;
use simdnlp_device::Device;
use simdnlp_modeling::{NlpMeta, NlpModel};
use std::cell::RefCell;

/// The model without its fixed variables (`lvar == uvar`), which are held at their value
/// as parameters: Ipopt's `fixed_variable_treatment = make_parameter`.
///
/// The wrapped model has the `nvar − n_fixed` free variables, in their original order
/// ([`FixedAsParameters::free`] maps them back), the same rows, and the Jacobian and
/// Hessian entries whose columns (and row, for the Hessian) are free. A fixed variable
/// relaxed to a tiny interior instead would limit every step that moves it to about its
/// relaxation (1e-8) and stall the first iterations.
pub struct FixedAsParameters<'a> {
    inner: &'a dyn NlpModel,
    meta: NlpMeta<f64>,
    /// Original index of each free variable, increasing.
    free: Vec<usize>,
    /// Indices of the kept entries in the inner Jacobian's COO list.
    jac_keep: Vec<usize>,
    /// Indices of the kept entries in the inner Hessian's COO list.
    hess_keep: Vec<usize>,
    /// Kept Jacobian rows and (renumbered) columns.
    jac_rows: Vec<usize>,
    jac_cols: Vec<usize>,
    /// Kept Hessian rows and columns (renumbered).
    hess_rows: Vec<usize>,
    hess_cols: Vec<usize>,
    /// A full-length point: fixed components at their value, free ones written per call.
    x_full: RefCell<Vec<f64>>,
    /// A full-length direction: zero in the fixed components.
    v_full: RefCell<Vec<f64>>,
    /// Full-length output of `grad`, `jtprod` and `hprod`.
    out_full: RefCell<Vec<f64>>,
    /// All inner Jacobian values.
    jac_full: RefCell<Vec<f64>>,
    /// All inner Hessian values.
    hess_full: RefCell<Vec<f64>>,
}

impl<'a> FixedAsParameters<'a> {
    /// Wrap `inner`, or `None` when it has no fixed variable, or only fixed ones (then
    /// there is nothing to remove, or nothing would be left to solve for).
    pub fn new(inner: &'a dyn NlpModel) -> Option<Self> {
        let inner_meta = inner.meta();
        let n = inner_meta.nvar;
        let free: Vec<usize> = (0..n)
            .filter(|&i| inner_meta.lvar[i] != inner_meta.uvar[i])
            .collect();
        if free.len() == n || free.is_empty() {
            return None;
        }
        let mut renumber = vec![usize::MAX; n];
        for (k, &i) in free.iter().enumerate() {
            renumber[i] = k;
        }
        let mut rows = vec![0; inner_meta.nnzj];
        let mut cols = vec![0; inner_meta.nnzj];
        inner.jac_structure(&mut rows, &mut cols);
        let jac_keep: Vec<usize> = (0..inner_meta.nnzj)
            .filter(|&e| renumber[cols[e]] != usize::MAX)
            .collect();
        let jac_rows = jac_keep.iter().map(|&e| rows[e]).collect();
        let jac_cols = jac_keep.iter().map(|&e| renumber[cols[e]]).collect();
        let mut rows = vec![0; inner_meta.nnzh];
        let mut cols = vec![0; inner_meta.nnzh];
        inner.hess_structure(&mut rows, &mut cols);
        let hess_keep: Vec<usize> = (0..inner_meta.nnzh)
            .filter(|&e| renumber[rows[e]] != usize::MAX && renumber[cols[e]] != usize::MAX)
            .collect();
        let hess_rows = hess_keep.iter().map(|&e| renumber[rows[e]]).collect();
        let hess_cols = hess_keep.iter().map(|&e| renumber[cols[e]]).collect();
        let pick = |v: &[f64]| -> Vec<f64> { free.iter().map(|&i| v[i]).collect() };
        let mut meta = inner_meta.clone();
        meta.nvar = free.len();
        meta.x0 = pick(&inner_meta.x0);
        meta.lvar = pick(&inner_meta.lvar);
        meta.uvar = pick(&inner_meta.uvar);
        meta.nnzj = jac_keep.len();
        meta.nnzh = hess_keep.len();
        // fixed components at their value (the lower bound), free ones overwritten per call
        let x_full = inner_meta.lvar.clone();
        Some(Self {
            inner,
            meta,
            free,
            jac_keep,
            hess_keep,
            jac_rows,
            jac_cols,
            hess_rows,
            hess_cols,
            x_full: RefCell::new(x_full),
            v_full: RefCell::new(vec![0.0; n]),
            out_full: RefCell::new(vec![0.0; n]),
            jac_full: RefCell::new(vec![0.0; inner_meta.nnzj]),
            hess_full: RefCell::new(vec![0.0; inner_meta.nnzh]),
        })
    }

    /// Original index of each free variable (length [`NlpMeta::nvar`] of the wrapper).
    pub fn free(&self) -> &[usize] {
        &self.free
    }

    /// The free components of a full-length vector `v` (length `nvar` of the inner model).
    pub fn restrict(&self, v: &[f64]) -> Vec<f64> {
        self.free.iter().map(|&i| v[i]).collect()
    }

    /// `x` (free components) as a full-length point, fixed components at their value.
    fn full_x(&self, x: &[f64]) -> std::cell::Ref<'_, Vec<f64>> {
        {
            let mut full = self.x_full.borrow_mut();
            for (&i, &v) in self.free.iter().zip(x) {
                full[i] = v;
            }
        }
        self.x_full.borrow()
    }

    /// `v` (free components) as a full-length direction, zero in the fixed components.
    fn full_v(&self, v: &[f64]) -> std::cell::Ref<'_, Vec<f64>> {
        {
            let mut full = self.v_full.borrow_mut();
            for (&i, &vi) in self.free.iter().zip(v) {
                full[i] = vi;
            }
        }
        self.v_full.borrow()
    }

    /// The free components of the full-length output buffer into `out`.
    fn gather_out(&self, out: &mut [f64]) {
        let full = self.out_full.borrow();
        for (entry, &i) in out.iter_mut().zip(&self.free) {
            *entry = full[i];
        }
    }
}

impl NlpModel for FixedAsParameters<'_> {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn obj(&self, x: &[f64]) -> f64 {
        self.inner.obj(&self.full_x(x))
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        self.inner
            .grad(&self.full_x(x), &mut self.out_full.borrow_mut());
        self.gather_out(g);
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        self.inner.cons(&self.full_x(x), c);
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        rows.copy_from_slice(&self.jac_rows);
        cols.copy_from_slice(&self.jac_cols);
    }
    fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
        let mut full = self.jac_full.borrow_mut();
        self.inner.jac_coord(&self.full_x(x), &mut full);
        for (v, &e) in vals.iter_mut().zip(&self.jac_keep) {
            *v = full[e];
        }
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        rows.copy_from_slice(&self.hess_rows);
        cols.copy_from_slice(&self.hess_cols);
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], obj_weight: f64, vals: &mut [f64]) {
        let mut full = self.hess_full.borrow_mut();
        self.inner
            .hess_coord(&self.full_x(x), y, obj_weight, &mut full);
        for (v, &e) in vals.iter_mut().zip(&self.hess_keep) {
            *v = full[e];
        }
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        self.inner.jprod(&self.full_x(x), &self.full_v(v), jv);
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        self.inner
            .jtprod(&self.full_x(x), v, &mut self.out_full.borrow_mut());
        self.gather_out(jtv);
    }
    fn hprod(&self, x: &[f64], y: &[f64], obj_weight: f64, v: &[f64], hv: &mut [f64]) {
        self.inner.hprod(
            &self.full_x(x),
            y,
            obj_weight,
            &self.full_v(v),
            &mut self.out_full.borrow_mut(),
        );
        self.gather_out(hv);
    }
}

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
        let inner_meta = inner.meta();
        let meta = scaled_meta(inner_meta, obj_scale, &con_scale);
        let mut jac_rows = vec![0; inner_meta.nnzj];
        let mut jac_cols = vec![0; inner_meta.nnzj];
        inner.jac_structure(&mut jac_rows, &mut jac_cols);
        Self {
            inner,
            meta,
            obj_scale,
            con_scale,
            jac_rows,
            ybuf: RefCell::new(vec![0.0; inner_meta.ncon]),
        }
    }

    /// The multipliers of the inner model's rows, `y_j d_j` (in a buffer of the model).
    fn scaled_y(&self, y: &[f64]) -> std::cell::RefMut<'_, Vec<f64>> {
        let mut scaled = self.ybuf.borrow_mut();
        for ((entry, &yj), &dj) in scaled.iter_mut().zip(y).zip(&self.con_scale) {
            *entry = yj * dj;
        }
        scaled
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

/// The start of a restoration problem: its centre `x_R`, which is also the start of `x`,
/// and the start of the elastic variables `(p, n)`.
#[derive(Clone, Copy, Debug)]
pub struct RestorationStart<'s> {
    /// The centre `x_R` of the proximity term and the start of `x` (length `n`).
    pub x_ref: &'s [f64],
    /// The start of `p` (length `m`).
    pub p0: &'s [f64],
    /// The start of `n` (length `m`).
    pub n0: &'s [f64],
}

/// The bounds of a restoration problem: the outer problem's variable bounds and row
/// bounds (relaxed, as the outer iteration sees them).
#[derive(Clone, Copy, Debug)]
pub struct RestorationBounds<'b> {
    /// Lower variable bounds (length `n`).
    pub lvar: &'b [f64],
    /// Upper variable bounds (length `n`).
    pub uvar: &'b [f64],
    /// Lower row bounds (length `m`).
    pub lcon: &'b [f64],
    /// Upper row bounds (length `m`).
    pub ucon: &'b [f64],
}

impl<'a> RestoModel<'a> {
    /// Restoration problem of `inner` with penalty `rho` and proximity weight `√mu`,
    /// centred at and starting from `start`, within `bounds`.
    pub fn new(
        inner: &'a dyn NlpModel,
        rho: f64,
        mu: f64,
        start: RestorationStart<'_>,
        bounds: RestorationBounds<'_>,
    ) -> Self {
        let inner_meta = inner.meta();
        let meta = resto_meta(inner_meta, start, bounds);
        let x_ref = start.x_ref;
        let d2 = x_ref.iter().map(|&v| resto_weight(v)).collect();
        Self {
            inner,
            meta,
            rho,
            zeta: mu.sqrt(),
            x_ref: x_ref.to_vec(),
            d2,
            nnzj_in: inner_meta.nnzj,
            nnzh_in: inner_meta.nnzh,
        }
    }

    /// Variables of the inner model.
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
        resto_jac_tail(n, m, &mut rows[k..], &mut cols[k..]);
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

/// The meta data of the restoration problem of a model with meta data `inner_meta` (see
/// [`RestoModel`]).
fn resto_meta(
    inner_meta: &NlpMeta<f64>,
    start: RestorationStart<'_>,
    bounds: RestorationBounds<'_>,
) -> NlpMeta<f64> {
    let RestorationStart { x_ref, p0, n0 } = start;
    let RestorationBounds {
        lvar,
        uvar,
        lcon,
        ucon,
    } = bounds;
    let (n, m) = (inner_meta.nvar, inner_meta.ncon);
    let mut meta = NlpMeta::new(n + 2 * m, m);
    meta.nnzj = inner_meta.nnzj + 2 * m;
    meta.nnzh = inner_meta.nnzh + n;
    meta.x0[..n].copy_from_slice(x_ref);
    meta.x0[n..n + m].copy_from_slice(p0);
    meta.x0[n + m..].copy_from_slice(n0);
    meta.lvar[..n].copy_from_slice(lvar);
    meta.uvar[..n].copy_from_slice(uvar);
    meta.lvar[n..].iter_mut().for_each(|v| *v = 0.0);
    meta.lcon.copy_from_slice(lcon);
    meta.ucon.copy_from_slice(ucon);
    meta.name = format!("{} (restoration)", inner_meta.name);
    meta
}

/// The proximity weight `D_i² = min(1, 1/|x_R,i|)²` of the restoration objective.
fn resto_weight(x_ref: f64) -> f64 {
    (1.0f64 / x_ref.abs().max(1.0)).powi(2)
}

/// The Jacobian entries of the `(p, n)` columns of the restoration problem: row `j` has
/// `−1` in column `n + j` (`p_j`), then `+1` in column `n + m + j` (`n_j`).
fn resto_jac_tail(n: usize, m: usize, rows: &mut [usize], cols: &mut [usize]) {
    for j in 0..m {
        rows[j] = j;
        cols[j] = n + j;
        rows[m + j] = j;
        cols[m + j] = n + m + j;
    }
}

/// The fixed variables of the model as parameters on the device: the device-side twin of
/// [`FixedAsParameters`] (which gives the meta data, structure and index lists), over a
/// [`DeviceNlp`] of the full model. The free components of a point are scattered into a
/// full-length point whose fixed components hold their value; gradients, Jacobian and
/// Hessian values are gathered back by index lists on the device.
pub struct FixedOnDevice<'a, D: Device> {
    device: &'a D,
    inner: &'a dyn DeviceNlp<D>,
    host: &'a FixedAsParameters<'a>,
    free: D::Index,
    jac_keep: D::Index,
    hess_keep: D::Index,
    scratch: RefCell<FixedScratch<D>>,
}

/// Work vectors of [`FixedOnDevice`].
struct FixedScratch<D: Device> {
    /// The free components of the point.
    x_free: D::Vector,
    /// The full-length point (fixed components at their value).
    x_full: D::Vector,
    g_full: D::Vector,
    g_free: D::Vector,
    jac_full: D::Vector,
    hess_full: D::Vector,
}

impl<'a, D: Device> FixedOnDevice<'a, D> {
    /// `host` (built over the same model as `inner`) on the device.
    ///
    /// # Errors
    /// [`SolverError::Device`] when an allocation or upload fails.
    pub fn new(
        device: &'a D,
        inner: &'a dyn DeviceNlp<D>,
        host: &'a FixedAsParameters<'a>,
    ) -> Result<Self, SolverError> {
        let inner_meta = inner.meta();
        let nfree = host.free.len();
        Ok(Self {
            device,
            inner,
            host,
            free: device.index_from_host(&host.free)?,
            jac_keep: device.index_from_host(&host.jac_keep)?,
            hess_keep: device.index_from_host(&host.hess_keep)?,
            scratch: RefCell::new(FixedScratch {
                x_free: device.zeros(nfree)?,
                x_full: device.vector_from_host(&inner_meta.lvar)?,
                g_full: device.zeros(inner_meta.nvar)?,
                g_free: device.zeros(nfree)?,
                jac_full: device.zeros(inner_meta.nnzj)?,
                hess_full: device.zeros(inner_meta.nnzh)?,
            }),
        })
    }

    /// The scratch vectors with the full-length point of `x` in `x_full`.
    fn at(&self, x: &D::Vector) -> std::cell::RefMut<'_, FixedScratch<D>> {
        let mut scratch = self.scratch.borrow_mut();
        let buffers = &mut *scratch;
        let device = self.device;
        device.copy_range(&mut buffers.x_free, 0, x, 0, self.host.free.len());
        device.scatter(&mut buffers.x_full, &self.free, &buffers.x_free);
        scratch
    }
}

impl<D: Device> DeviceNlp<D> for FixedOnDevice<'_, D> {
    fn meta(&self) -> &NlpMeta<f64> {
        self.host.meta()
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.host.jac_structure(rows, cols)
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.host.hess_structure(rows, cols)
    }
    fn obj(&self, x: &D::Vector) -> Result<f64, SolverError> {
        let scratch = self.at(x);
        self.inner.obj(&scratch.x_full)
    }
    fn grad(&self, x: &D::Vector, g: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = &mut *self.at(x);
        self.inner.grad(&scratch.x_full, &mut scratch.g_full)?;
        let device = self.device;
        device.gather(&mut scratch.g_free, &scratch.g_full, &self.free);
        device.copy_range(g, 0, &scratch.g_free, 0, self.host.free.len());
        Ok(())
    }
    fn cons(&self, x: &D::Vector, c: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = self.at(x);
        self.inner.cons(&scratch.x_full, c)
    }
    fn jac_coord(&self, x: &D::Vector, vals: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = &mut *self.at(x);
        self.inner
            .jac_coord(&scratch.x_full, &mut scratch.jac_full)?;
        self.device.gather(vals, &scratch.jac_full, &self.jac_keep);
        Ok(())
    }
    fn hess_coord(
        &self,
        x: &D::Vector,
        y: &D::Vector,
        obj_weight: f64,
        vals: &mut D::Vector,
    ) -> Result<(), SolverError> {
        let scratch = &mut *self.at(x);
        self.inner
            .hess_coord(&scratch.x_full, y, obj_weight, &mut scratch.hess_full)?;
        self.device
            .gather(vals, &scratch.hess_full, &self.hess_keep);
        Ok(())
    }
}

/// Gradient-based NLP scaling on the device, the device-side twin of [`ScaledModel`]:
/// `min s_f f(x)  s.t.  D_c lcon ≤ D_c c(x) ≤ D_c ucon`. The row factors `D_c` and the
/// per-entry Jacobian factors (`D_c` of each entry's row) are device vectors; the Hessian
/// is the inner model's at weights `s_f σ` and `D_c y`. On the CPU every value is
/// bitwise that of [`ScaledModel`].
pub struct ScaledOnDevice<'a, D: Device> {
    device: &'a D,
    inner: &'a dyn DeviceNlp<D>,
    meta: NlpMeta<f64>,
    obj_scale: f64,
    /// `D_c`, length `ncon`.
    con_scale: D::Vector,
    /// `D_c` of the row of each Jacobian entry, length `nnzj`.
    jac_scale: D::Vector,
    scratch: RefCell<ScaledScratch<D>>,
}

/// Work vectors of [`ScaledOnDevice`].
struct ScaledScratch<D: Device> {
    /// Unscaled constraint values, then scaled multipliers (both length `ncon`).
    rows: D::Vector,
    /// Unscaled Jacobian values.
    jac: D::Vector,
}

impl<'a, D: Device> ScaledOnDevice<'a, D> {
    /// Wrap `inner` with objective factor `obj_scale` (already signed) and row factors
    /// `con_scale` (host, length `ncon`); the meta data as [`ScaledModel::new`] makes them.
    ///
    /// # Errors
    /// [`SolverError::Device`] when an allocation or upload fails.
    pub fn new(
        device: &'a D,
        inner: &'a dyn DeviceNlp<D>,
        obj_scale: f64,
        con_scale: &[f64],
    ) -> Result<Self, SolverError> {
        let inner_meta = inner.meta();
        let meta = scaled_meta(inner_meta, obj_scale, con_scale);
        let mut rows = vec![0; inner_meta.nnzj];
        let mut cols = vec![0; inner_meta.nnzj];
        inner.jac_structure(&mut rows, &mut cols);
        let per_entry: Vec<f64> = rows.iter().map(|&r| con_scale[r]).collect();
        Ok(Self {
            device,
            inner,
            meta,
            obj_scale,
            con_scale: device.vector_from_host(con_scale)?,
            jac_scale: device.vector_from_host(&per_entry)?,
            scratch: RefCell::new(ScaledScratch {
                rows: device.zeros(inner_meta.ncon)?,
                jac: device.zeros(inner_meta.nnzj)?,
            }),
        })
    }
}

impl<D: Device> DeviceNlp<D> for ScaledOnDevice<'_, D> {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.inner.jac_structure(rows, cols)
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.inner.hess_structure(rows, cols)
    }
    fn obj(&self, x: &D::Vector) -> Result<f64, SolverError> {
        Ok(self.obj_scale * self.inner.obj(x)?)
    }
    fn grad(&self, x: &D::Vector, g: &mut D::Vector) -> Result<(), SolverError> {
        self.inner.grad(x, g)?;
        // scales the entries after `nvar` too, which the caller overwrites
        self.device.scale(self.obj_scale, g);
        Ok(())
    }
    fn cons(&self, x: &D::Vector, c: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = &mut *self.scratch.borrow_mut();
        self.inner.cons(x, &mut scratch.rows)?;
        self.device.mul(c, &scratch.rows, &self.con_scale);
        Ok(())
    }
    fn jac_coord(&self, x: &D::Vector, vals: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = &mut *self.scratch.borrow_mut();
        self.inner.jac_coord(x, &mut scratch.jac)?;
        self.device.mul(vals, &scratch.jac, &self.jac_scale);
        Ok(())
    }
    fn hess_coord(
        &self,
        x: &D::Vector,
        y: &D::Vector,
        obj_weight: f64,
        vals: &mut D::Vector,
    ) -> Result<(), SolverError> {
        let scratch = &mut *self.scratch.borrow_mut();
        self.device.mul(&mut scratch.rows, y, &self.con_scale);
        self.inner
            .hess_coord(x, &scratch.rows, obj_weight * self.obj_scale, vals)
    }
}

/// The meta data of the scaled model (bounds of the rows scaled, multipliers of the start
/// scaled, minimizing).
fn scaled_meta(inner_meta: &NlpMeta<f64>, obj_scale: f64, con_scale: &[f64]) -> NlpMeta<f64> {
    let mut meta = inner_meta.clone();
    for j in 0..inner_meta.ncon {
        meta.lcon[j] = inner_meta.lcon[j] * con_scale[j];
        meta.ucon[j] = inner_meta.ucon[j] * con_scale[j];
        meta.y0[j] = inner_meta.y0[j] * obj_scale.abs() / con_scale[j];
    }
    meta.minimize = true;
    meta
}

/// The ℓ1 feasibility-restoration problem on the device, the device-side twin of
/// [`RestoModel`] (same problem, same variable order `(x, p, n)`): its objective,
/// gradient, constraint and derivative values are built from the inner model's device
/// vectors with copies, `axpy` and element-wise products. On the CPU every value is
/// bitwise that of [`RestoModel`].
pub struct RestoOnDevice<'a, D: Device> {
    device: &'a D,
    inner: &'a dyn DeviceNlp<D>,
    meta: NlpMeta<f64>,
    rho: f64,
    zeta: f64,
    nnzj_in: usize,
    nnzh_in: usize,
    /// `x_R`, length `n`.
    x_ref: D::Vector,
    /// `D_i²`, length `n`.
    d2: D::Vector,
    /// `ζ D_i²`, length `n`.
    zeta_d2: D::Vector,
    /// `ρ` repeated `2m` times (the gradient in `(p, n)`).
    rho_pn: D::Vector,
    /// `−1` (m times) then `1` (m times): the Jacobian values of `(p, n)`.
    jac_pn: D::Vector,
    scratch: RefCell<RestoScratch<D>>,
}

/// Work vectors of [`RestoOnDevice`].
struct RestoScratch<D: Device> {
    /// Length `n`: `x − x_R`, `D² (x − x_R)`, `D² (x − x_R)²`.
    diff: D::Vector,
    weighted: D::Vector,
    prox: D::Vector,
    /// Length `2m`: `(p, n)`.
    pn: D::Vector,
    /// Length `m`: `p`, then `n − p`.
    p: D::Vector,
    n_minus_p: D::Vector,
    /// The inner model's Jacobian and Hessian values.
    jac: D::Vector,
    hess: D::Vector,
}

impl<'a, D: Device> RestoOnDevice<'a, D> {
    /// Restoration problem of `inner` (host data in `start` and `bounds`), as
    /// [`RestoModel::new`].
    ///
    /// # Errors
    /// [`SolverError::Device`] when an allocation or upload fails.
    pub fn new(
        device: &'a D,
        inner: &'a dyn DeviceNlp<D>,
        rho: f64,
        mu: f64,
        start: RestorationStart<'_>,
        bounds: RestorationBounds<'_>,
    ) -> Result<Self, SolverError> {
        let inner_meta = inner.meta();
        let (n, m) = (inner_meta.nvar, inner_meta.ncon);
        let meta = resto_meta(inner_meta, start, bounds);
        let x_ref = start.x_ref;
        let d2: Vec<f64> = x_ref.iter().map(|&v| resto_weight(v)).collect();
        let zeta = mu.sqrt();
        let zeta_d2: Vec<f64> = d2.iter().map(|&d| zeta * d).collect();
        let mut jac_pn = vec![-1.0; 2 * m];
        jac_pn[m..].iter_mut().for_each(|v| *v = 1.0);
        Ok(Self {
            device,
            inner,
            meta,
            rho,
            zeta,
            nnzj_in: inner_meta.nnzj,
            nnzh_in: inner_meta.nnzh,
            x_ref: device.vector_from_host(x_ref)?,
            d2: device.vector_from_host(&d2)?,
            zeta_d2: device.vector_from_host(&zeta_d2)?,
            rho_pn: device.vector_from_host(&vec![rho; 2 * m])?,
            jac_pn: device.vector_from_host(&jac_pn)?,
            scratch: RefCell::new(RestoScratch {
                diff: device.zeros(n)?,
                weighted: device.zeros(n)?,
                prox: device.zeros(n)?,
                pn: device.zeros(2 * m)?,
                p: device.zeros(m)?,
                n_minus_p: device.zeros(m)?,
                jac: device.zeros(inner_meta.nnzj)?,
                hess: device.zeros(inner_meta.nnzh)?,
            }),
        })
    }

    /// Variables of the inner model.
    fn n(&self) -> usize {
        self.inner.meta().nvar
    }

    /// Re-centre the problem for another restoration phase, on the device: `x_R` = the
    /// first `n` entries of `w` (a point of the inner model, or any longer vector), the
    /// weights `D²` from it ([`Device::prox_weight`]) and `ζ = √μ` — the problem
    /// [`RestoOnDevice::new`] makes for that `x_R` and `μ`, bitwise. The meta data (sizes,
    /// bounds, and the start `x0` given to `new`) stay as they are.
    pub fn restart(&mut self, w: &D::Vector, mu: f64) {
        let n = self.n();
        let device = self.device;
        device.copy_range(&mut self.x_ref, 0, w, 0, n);
        device.prox_weight(&self.x_ref, &mut self.d2);
        self.zeta = mu.sqrt();
        device.copy(&mut self.zeta_d2, &self.d2);
        device.scale(self.zeta, &mut self.zeta_d2);
    }

    /// `diff = x − x_R` (first `n` entries of `x`).
    fn diff(&self, scratch: &mut RestoScratch<D>, x: &D::Vector) {
        let device = self.device;
        device.copy_range(&mut scratch.diff, 0, x, 0, self.n());
        device.axpy(-1.0, &self.x_ref, &mut scratch.diff);
    }
}

impl<D: Device> DeviceNlp<D> for RestoOnDevice<'_, D> {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let (n, m, k) = (self.n(), self.meta.ncon, self.nnzj_in);
        self.inner.jac_structure(&mut rows[..k], &mut cols[..k]);
        resto_jac_tail(n, m, &mut rows[k..], &mut cols[k..]);
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let k = self.nnzh_in;
        self.inner.hess_structure(&mut rows[..k], &mut cols[..k]);
        for i in 0..self.n() {
            rows[k + i] = i;
            cols[k + i] = i;
        }
    }
    fn obj(&self, x: &D::Vector) -> Result<f64, SolverError> {
        let (n, m) = (self.n(), self.meta.ncon);
        let scratch = &mut *self.scratch.borrow_mut();
        let device = self.device;
        device.copy_range(&mut scratch.pn, 0, x, n, 2 * m);
        let pen = device.sum(&scratch.pn);
        self.diff(scratch, x);
        // D²·d·d in the order of the host model: (D² d) d
        device.mul(&mut scratch.weighted, &self.d2, &scratch.diff);
        device.mul(&mut scratch.prox, &scratch.weighted, &scratch.diff);
        let prox = device.sum(&scratch.prox);
        Ok(self.rho * pen + 0.5 * self.zeta * prox)
    }
    fn grad(&self, x: &D::Vector, g: &mut D::Vector) -> Result<(), SolverError> {
        let (n, m) = (self.n(), self.meta.ncon);
        let scratch = &mut *self.scratch.borrow_mut();
        let device = self.device;
        self.diff(scratch, x);
        device.mul(&mut scratch.weighted, &self.zeta_d2, &scratch.diff);
        device.copy_range(g, 0, &scratch.weighted, 0, n);
        device.copy_range(g, n, &self.rho_pn, 0, 2 * m);
        Ok(())
    }
    fn cons(&self, x: &D::Vector, c: &mut D::Vector) -> Result<(), SolverError> {
        let (n, m) = (self.n(), self.meta.ncon);
        self.inner.cons(x, c)?;
        let scratch = &mut *self.scratch.borrow_mut();
        let device = self.device;
        device.copy_range(&mut scratch.p, 0, x, n, m);
        device.copy_range(&mut scratch.n_minus_p, 0, x, n + m, m);
        device.axpy(-1.0, &scratch.p, &mut scratch.n_minus_p);
        device.axpy(1.0, &scratch.n_minus_p, c);
        Ok(())
    }
    fn jac_coord(&self, x: &D::Vector, vals: &mut D::Vector) -> Result<(), SolverError> {
        let (m, k) = (self.meta.ncon, self.nnzj_in);
        let scratch = &mut *self.scratch.borrow_mut();
        self.inner.jac_coord(x, &mut scratch.jac)?;
        let device = self.device;
        device.copy_range(vals, 0, &scratch.jac, 0, k);
        device.copy_range(vals, k, &self.jac_pn, 0, 2 * m);
        Ok(())
    }
    fn hess_coord(
        &self,
        x: &D::Vector,
        y: &D::Vector,
        obj_weight: f64,
        vals: &mut D::Vector,
    ) -> Result<(), SolverError> {
        let (n, k) = (self.n(), self.nnzh_in);
        let scratch = &mut *self.scratch.borrow_mut();
        self.inner.hess_coord(x, y, 0.0, &mut scratch.hess)?;
        let device = self.device;
        device.copy_range(vals, 0, &scratch.hess, 0, k);
        // (σ ζ) D², the order of the host model
        device.copy(&mut scratch.weighted, &self.d2);
        device.scale(obj_weight * self.zeta, &mut scratch.weighted);
        device.copy_range(vals, k, &scratch.weighted, 0, n);
        Ok(())
    }
}
