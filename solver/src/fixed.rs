//! Fixed variables (`lvar == uvar`) in the result.
//!
//! During the iterations a fixed variable keeps a tiny interior (its bounds are relaxed by
//! at least `1e-8 · max(1, |v|)`, see [`crate::layout::Layout::new`]), so the iterate can
//! sit up to that far from the fixed value. Ipopt's default `fixed_variable_treatment =
//! make_parameter` returns fixed variables at exactly their value; [`finish`] does the same
//! for the result, and gives them Ipopt's multipliers for removed variables.

use simdnlp_modeling::NlpModel;

/// Puts every fixed variable exactly at its value in `x`, and sets its bound multipliers
/// the way Ipopt does for a variable it made a parameter: with the Lagrangian gradient
/// `g = s ∇f(x) + J(x)ᵀ y` at the returned point (`s = 1` minimizing, `−1` maximizing),
/// `z_L = max(g_i, 0)` and `z_U = max(−g_i, 0)`. So `g_i − z_L + z_U = 0` holds exactly in
/// that component, and at most one of the two is nonzero. Where `g_i` is not finite the
/// difference of the iteration's multipliers is kept instead.
///
/// `x`, `y`, `z_l`, `z_u` are in user units (lengths `nvar`, `ncon`, `nvar`, `nvar`).
/// Without fixed variables this does nothing (and allocates nothing).
pub(crate) fn finish(
    model: &dyn NlpModel,
    x: &mut [f64],
    y: &[f64],
    z_l: &mut [f64],
    z_u: &mut [f64],
) {
    let meta = model.meta();
    let fixed = |i: &usize| meta.lvar[*i] == meta.uvar[*i];
    if !(0..meta.nvar).any(|i| fixed(&i)) {
        return;
    }
    for i in (0..meta.nvar).filter(fixed) {
        x[i] = meta.lvar[i];
    }
    let n = meta.nvar;
    let mut grad = vec![0.0; n];
    model.grad(x, &mut grad);
    let mut jty = vec![0.0; n];
    if meta.ncon > 0 {
        model.jtprod(x, y, &mut jty);
    }
    let sense = if meta.minimize { 1.0 } else { -1.0 };
    for i in (0..n).filter(fixed) {
        let g = sense * grad[i] + jty[i];
        let g = if g.is_finite() { g } else { z_l[i] - z_u[i] };
        z_l[i] = g.max(0.0);
        z_u[i] = (-g).max(0.0);
    }
}
