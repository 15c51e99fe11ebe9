//! The COO callbacks of a hand-coded model, derived once from its entry visitors.
//!
//! A hand-coded model enumerates its Jacobian and lower-triangle Hessian entries, in
//! structure order, through [`CooVisit`]. The structure, the values and the matrix-free
//! products of [`simdnlp_modeling::NlpModel`] follow from that one enumeration, so they
//! agree by construction. Everything is generic (static dispatch) and allocation-free:
//! these are the baselines the modeling layer is timed against. Inside a model's
//! `impl NlpModel`, [`coo_callbacks!`] writes those seven callbacks.

/// Entry-by-entry enumeration of a model's derivative matrices.
pub(crate) trait CooVisit {
    /// Calls `emit(row, col, value)` for every Jacobian entry at `x`, in structure order.
    fn jac_visit(&self, x: &[f64], emit: impl FnMut(usize, usize, f64));

    /// Calls `emit(row, col, value)` for every lower-triangle entry of
    /// `obj_weight ∇²f(x) + Σ y_j ∇²c_j(x)`, in structure order.
    fn hess_visit(
        &self,
        x: &[f64],
        y: &[f64],
        obj_weight: f64,
        emit: impl FnMut(usize, usize, f64),
    );
}

/// Rows and columns of the entries `visit` emits.
fn structure(
    rows: &mut [usize],
    cols: &mut [usize],
    visit: impl FnOnce(&mut dyn FnMut(usize, usize, f64)),
) {
    let mut k = 0;
    visit(&mut |r, c, _| {
        rows[k] = r;
        cols[k] = c;
        k += 1;
    });
}

/// Jacobian sparsity (values at `x0` are computed and dropped; structure is called once).
pub(crate) fn jac_structure(m: &impl CooVisit, x0: &[f64], rows: &mut [usize], cols: &mut [usize]) {
    structure(rows, cols, |emit| m.jac_visit(x0, emit));
}

/// Jacobian values in structure order.
pub(crate) fn jac_coord(m: &impl CooVisit, x: &[f64], vals: &mut [f64]) {
    let mut k = 0;
    m.jac_visit(x, |_, _, v| {
        vals[k] = v;
        k += 1;
    });
}

/// Lower-triangle Hessian sparsity (evaluated at `x0`, `y0` with weight zero).
pub(crate) fn hess_structure(
    m: &impl CooVisit,
    x0: &[f64],
    y0: &[f64],
    rows: &mut [usize],
    cols: &mut [usize],
) {
    structure(rows, cols, |emit| m.hess_visit(x0, y0, 0.0, emit));
}

/// Lower-triangle Hessian values in structure order.
pub(crate) fn hess_coord(
    m: &impl CooVisit,
    x: &[f64],
    y: &[f64],
    obj_weight: f64,
    vals: &mut [f64],
) {
    let mut k = 0;
    m.hess_visit(x, y, obj_weight, |_, _, v| {
        vals[k] = v;
        k += 1;
    });
}

/// `J(x) v`.
pub(crate) fn jprod(m: &impl CooVisit, x: &[f64], v: &[f64], jv: &mut [f64]) {
    jv.fill(0.0);
    m.jac_visit(x, |r, c, val| jv[r] += val * v[c]);
}

/// `J(x)ᵀ v`.
pub(crate) fn jtprod(m: &impl CooVisit, x: &[f64], v: &[f64], jtv: &mut [f64]) {
    jtv.fill(0.0);
    m.jac_visit(x, |r, c, val| jtv[c] += val * v[r]);
}

/// `(obj_weight ∇²f + Σ y_j ∇²c_j) v` from the lower triangle (off-diagonals applied twice).
pub(crate) fn hprod(
    m: &impl CooVisit,
    x: &[f64],
    y: &[f64],
    obj_weight: f64,
    v: &[f64],
    hv: &mut [f64],
) {
    hv.fill(0.0);
    m.hess_visit(x, y, obj_weight, |r, c, val| {
        hv[r] += val * v[c];
        if r != c {
            hv[c] += val * v[r];
        }
    });
}

/// The seven [`simdnlp_modeling::NlpModel`] callbacks that follow from a model's
/// [`CooVisit`] (structure at the model's `x0`/`y0`, values, products), written once for
/// every hand-coded model: invoke it inside `impl NlpModel for M` where `M: CooVisit`.
macro_rules! coo_callbacks {
    () => {
        fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
            let x0 = &simdnlp_modeling::NlpModel::meta(self).x0;
            super::coo::jac_structure(self, x0, rows, cols);
        }

        fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
            super::coo::jac_coord(self, x, vals);
        }

        fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
            let meta = simdnlp_modeling::NlpModel::meta(self);
            super::coo::hess_structure(self, &meta.x0, &meta.y0, rows, cols);
        }

        fn hess_coord(&self, x: &[f64], y: &[f64], obj_weight: f64, vals: &mut [f64]) {
            super::coo::hess_coord(self, x, y, obj_weight, vals);
        }

        fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
            super::coo::jprod(self, x, v, jv);
        }

        fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
            super::coo::jtprod(self, x, v, jtv);
        }

        fn hprod(&self, x: &[f64], y: &[f64], obj_weight: f64, v: &[f64], hv: &mut [f64]) {
            super::coo::hprod(self, x, y, obj_weight, v, hv);
        }
    };
}
pub(crate) use coo_callbacks;
