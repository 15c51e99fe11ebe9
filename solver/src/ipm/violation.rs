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

/// Work vectors of [`nlp_violation`], both of length `ns`. Their values live within one
/// call.
pub(crate) struct ViolationWork<'v, V> {
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
    let ViolationWork { below, above } = work;
    // d = r + s per slack, in `above`
    device.gather(above, residual, &slacks.rows);
    device.gather(below, w, &slacks.cols);
    device.axpy(1.0, below, above);
    // (lo − d)⁺ and (d − up)⁺: an infinite bound gives −∞, clamped to 0
    device.copy(below, &slacks.lower);
    device.axpy(-1.0, above, below);
    device.axpy(-1.0, &slacks.upper, above);
    device.clamp_below(below, 0.0);
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

    /// `nlp_violation` of `slacks` at `w` with `residual` (one entry per row).
    fn violation_of(
        slacks: &SlackRows<Vec<f64>, Vec<usize>>,
        w: &[f64],
        residual: &[f64],
    ) -> Vec<f64> {
        let (mut below, mut above) = (vec![0.0; slacks.count], vec![0.0; slacks.count]);
        let mut out = vec![f64::NAN; residual.len()];
        let work = ViolationWork {
            below: &mut below,
            above: &mut above,
        };
        nlp_violation(
            &Cpu,
            slacks,
            &w.to_vec(),
            &residual.to_vec(),
            work,
            &mut out,
        );
        out
    }

    fn violation(w: &[f64], residual: &[f64]) -> Vec<f64> {
        violation_of(&slacks(), w, residual)
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
        let out = violation_of(&none, &[1.0, 2.0], &[0.5, -2.0]);
        assert_eq!(out, vec![0.5, -2.0]);
    }
}
