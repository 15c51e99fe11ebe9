//! The NLP constraint violation of a point (Ipopt's `curr_nlp_constraint_violation`): how
//! far the model's rows are from their bounds, without the slack residual.
//!
//! The interior-point method works on the residual `r(w)` (`c_j(x) − b_j` for an equality
//! row, `c_j(x) − s_k` for a row with slack `k`). Its ∞-norm is the primal infeasibility of
//! the barrier problem (the barrier error of the μ update, the filter's θ, the tiny-step
//! test). The overall optimality error and the `constr_viol_tol` tests measure the
//! original problem instead: `c_j(x) − b_j` for an equality row, and for a row with a slack
//! how far `d_j = c_j(x) = r_j + s_k` lies outside the slack's (relaxed) bounds
//! `[lo_k, up_k]` (zero inside). A slack that lags behind a row value inside its bounds
//! is not a violation of the problem.

use simdnlp_device::Device;

/// The rows with a slack, on the device: the inputs of [`nlp_violation`] that come from
/// the layout.
pub(crate) struct SlackRows<V, I> {
    /// Number of slacks `ns` (the lengths of the other members).
    pub count: usize,
    /// The model row of each slack.
    pub rows: I,
    /// The component of `w` of each slack (`n + k`).
    pub cols: I,
    /// The slack's lower bound (after relaxation; `−∞` when absent).
    pub lower: V,
    /// The slack's upper bound (after relaxation; `+∞` when absent).
    pub upper: V,
}

/// Work vectors of [`nlp_violation`]: `w_d` of length `nw`, `below` and `above` of length
/// `ns`. Their values live within one call.
pub(crate) struct ViolationWork<'v, V> {
    /// Length `nw`: `w` with the slacks replaced by the row values `d`.
    pub w_d: &'v mut V,
    /// Length `ns`: the violation below the lower bound.
    pub below: &'v mut V,
    /// Length `ns`: the violation above the upper bound.
    pub above: &'v mut V,
}

/// The NLP constraint violation per row into `out` (length `m`), in the units of the
/// (scaled) problem `w` and `residual` belong to: `r_j` for an equality row; for a row
/// with slack `k`, `d_j − up_k` above the upper bound, `d_j − lo_k` below the lower bound
/// (negative) and 0 in between, with `d_j = r_j + s_k`. `‖out‖∞` is Ipopt's
/// `curr_nlp_constraint_violation(NORM_MAX)`; multiplied by the rows' unscaling factors,
/// `unscaled_curr_nlp_constraint_violation`. Kernels only (the bounds' infinities give 0,
/// not NaN); allocates nothing.
pub(crate) fn nlp_violation<D: Device>(
    device: &D,
    slacks: &SlackRows<D::Vector, D::Index>,
    w: &D::Vector,
    residual: &D::Vector,
    work: ViolationWork<'_, D::Vector>,
    out: &mut D::Vector,
) {
    device.copy(out, residual);
    if slacks.count == 0 {
        return;
    }
    let ViolationWork { w_d, below, above } = work;
    // d = r + s in the slack components of a copy of w
    device.copy(w_d, w);
    device.gather(above, residual, &slacks.rows);
    device.scatter_add(1.0, above, &slacks.cols, w_d);
    // (lo − d)⁺ and (d − up)⁺: an infinite bound gives −∞, clamped to 0
    device.gather_slack(below, w_d, &slacks.cols, &slacks.lower, -1.0);
    device.clamp_below(below, 0.0);
    device.gather_slack(above, w_d, &slacks.cols, &slacks.upper, 1.0);
    device.clamp_below(above, 0.0);
    // at most one of them is positive (lo ≤ up): the signed violation
    device.axpy(-1.0, below, above);
    device.scatter(out, &slacks.rows, above);
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdnlp_device::Cpu;

    /// Rows: 0 equality, 1 with slack 0 in `[0, 10]`, 2 with slack 1 in `[−∞, 5]`, 3 with
    /// slack 2 in `[1, +∞]`; `n = 2`.
    fn slacks() -> SlackRows<Vec<f64>, Vec<usize>> {
        SlackRows {
            count: 3,
            rows: vec![1, 2, 3],
            cols: vec![2, 3, 4],
            lower: vec![0.0, f64::NEG_INFINITY, 1.0],
            upper: vec![10.0, 5.0, f64::INFINITY],
        }
    }

    fn violation(w: &[f64], residual: &[f64]) -> Vec<f64> {
        let (mut w_d, mut below, mut above) = (vec![0.0; 5], vec![0.0; 3], vec![0.0; 3]);
        let mut out = vec![f64::NAN; 4];
        let work = ViolationWork {
            w_d: &mut w_d,
            below: &mut below,
            above: &mut above,
        };
        nlp_violation(
            &Cpu,
            &slacks(),
            &w.to_vec(),
            &residual.to_vec(),
            work,
            &mut out,
        );
        out
    }

    #[test]
    fn slack_residual_inside_the_bounds_is_no_violation() {
        // d = r + s: 9.5 (inside [0, 10]), 4 (below 5), 2 (above 1); the equality row keeps
        // its residual
        let out = violation(&[1.0, 2.0, 9.0, 3.0, 1.5], &[-3e-7, 0.5, 1.0, 0.5]);
        assert_eq!(out, vec![-3e-7, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn rows_outside_their_bounds_are_signed_violations() {
        // d = 10.25 (above 10), 6 (above 5), 0.5 (below 1)
        let out = violation(&[0.0, 0.0, 9.75, 4.0, 1.5], &[0.0, 0.5, 2.0, -1.0]);
        assert_eq!(out, vec![0.0, 0.25, 1.0, -0.5]);
    }

    #[test]
    fn without_slacks_the_violation_is_the_residual() {
        let none = SlackRows {
            count: 0,
            rows: vec![],
            cols: vec![],
            lower: vec![],
            upper: vec![],
        };
        let mut out = vec![0.0; 2];
        let (mut w_d, mut below, mut above) = (vec![0.0; 2], vec![], vec![]);
        let work = ViolationWork {
            w_d: &mut w_d,
            below: &mut below,
            above: &mut above,
        };
        nlp_violation(
            &Cpu,
            &none,
            &vec![1.0, 2.0],
            &vec![0.5, -2.0],
            work,
            &mut out,
        );
        assert_eq!(out, vec![0.5, -2.0]);
    }
}
