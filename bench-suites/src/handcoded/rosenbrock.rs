//! Hand-written Lukšan–Vlček problem 1 (rosenbrock, bench-problems.md) with hand-derived
//! derivatives.
//!
//! `min Σ_{i=1}^{N−1} 100(x_i² − x_{i+1})² + (x_i − 1)²` subject to, for k = 1..N−2,
//! `3x_{k+1}³ + 2x_{k+2} − 5 + sin(x_{k+1} − x_{k+2})·sin(x_{k+1} + x_{k+2}) + 4x_{k+1}
//! − x_k·exp(x_k − x_{k+1}) − 3 = 0`; start `x_i = −1.2` (i odd), `1` (i even).
//!
//! With `a, b, c = x_k, x_{k+1}, x_{k+2}` and `E = exp(a − b)`, using
//! `sin(b − c)·sin(b + c) = sin²b − sin²c`, row k has gradient
//! `(−(1 + a)E, 9b² + sin 2b + 4 + aE, 2 − sin 2c)` and Hessian entries
//! `aa: −(2 + a)E`, `ab: (1 + a)E`, `bb: 18b + 2cos 2b − aE`, `cc: −2cos 2c`, `bc: 0`. The
//! objective term couples only neighbours, so the Lagrangian Hessian is tridiagonal:
//! N diagonal plus N − 1 subdiagonal entries (compressed by hand). The Jacobian has 3
//! entries per row.

use super::coo::{self, CooVisit};
use simdnlp_modeling::{NlpMeta, NlpModel};

/// The hand-coded Lukšan–Vlček rosenbrock [`NlpModel`] of size `N ≥ 3`.
#[derive(Clone, Debug)]
pub struct RosenbrockModel {
    meta: NlpMeta<f64>,
}

/// `N` below 3 leaves no constraint rows and is rejected.
#[derive(Debug, thiserror::Error)]
#[error("rosenbrock needs N >= 3, got {0}")]
pub struct RosenbrockSizeError(pub usize);

impl RosenbrockModel {
    /// Builds the model with `n` variables and `n − 2` equality rows.
    pub fn new(n: usize) -> Result<Self, RosenbrockSizeError> {
        if n < 3 {
            return Err(RosenbrockSizeError(n));
        }
        let mut meta = NlpMeta::<f64>::new(n, n - 2);
        meta.name = format!("rosenbrock/{n}");
        for (i, x) in meta.x0.iter_mut().enumerate() {
            // 1-based i odd ↔ 0-based even
            *x = if i % 2 == 0 { -1.2 } else { 1.0 };
        }
        meta.nnzj = 3 * (n - 2);
        meta.nnzh = 2 * n - 1;
        Ok(Self { meta })
    }
}

impl CooVisit for RosenbrockModel {
    /// Calls `emit(row, col, value)` for the Jacobian entries in structure order.
    #[inline]
    fn jac_visit(&self, x: &[f64], mut emit: impl FnMut(usize, usize, f64)) {
        for (k, w) in x.windows(3).enumerate() {
            let (a, b, c) = (w[0], w[1], w[2]);
            let e = (a - b).exp();
            emit(k, k, -(1.0 + a) * e);
            emit(k, k + 1, 9.0 * b * b + (2.0 * b).sin() + 4.0 + a * e);
            emit(k, k + 2, 2.0 - (2.0 * c).sin());
        }
    }

    /// Calls `emit(row, col, value)` for the Hessian: diagonal entries `(i, i)` for
    /// `i = 0..N`, then subdiagonal entries `(i + 1, i)` for `i = 0..N−1`.
    #[inline]
    fn hess_visit(&self, x: &[f64], y: &[f64], s: f64, mut emit: impl FnMut(usize, usize, f64)) {
        let n = x.len();
        for i in 0..n {
            let xi = x[i];
            let mut d = 0.0;
            if i + 1 < n {
                // objective term i: (a, b) = (x_i, x_{i+1})
                d += s * (1200.0 * xi * xi - 400.0 * x[i + 1] + 2.0);
            }
            if i >= 1 {
                d += s * 200.0;
            }
            if i + 2 < n {
                // row k = i, a = x_i
                d += -y[i] * (2.0 + xi) * (xi - x[i + 1]).exp();
            }
            if i >= 1 && i + 1 < n {
                // row k = i − 1, b = x_i
                let a = x[i - 1];
                d += y[i - 1] * (18.0 * xi + 2.0 * (2.0 * xi).cos() - a * (a - xi).exp());
            }
            if i >= 2 {
                // row k = i − 2, c = x_i
                d += -y[i - 2] * 2.0 * (2.0 * xi).cos();
            }
            emit(i, i, d);
        }
        for i in 0..n - 1 {
            let (a, b) = (x[i], x[i + 1]);
            let mut o = s * (-400.0 * a);
            if i + 2 < n {
                o += y[i] * (1.0 + a) * (a - b).exp();
            }
            emit(i + 1, i, o);
        }
    }
}

impl NlpModel<f64> for RosenbrockModel {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }

    fn obj(&self, x: &[f64]) -> f64 {
        x.windows(2)
            .map(|w| {
                let t = w[0] * w[0] - w[1];
                100.0 * t * t + (w[0] - 1.0) * (w[0] - 1.0)
            })
            .sum()
    }

    fn grad(&self, x: &[f64], g: &mut [f64]) {
        g.fill(0.0);
        for i in 0..x.len() - 1 {
            let (a, b) = (x[i], x[i + 1]);
            let t = a * a - b;
            g[i] += 400.0 * a * t + 2.0 * (a - 1.0);
            g[i + 1] -= 200.0 * t;
        }
    }

    fn cons(&self, x: &[f64], c: &mut [f64]) {
        for (ck, w) in c.iter_mut().zip(x.windows(3)) {
            let (a, b, cc) = (w[0], w[1], w[2]);
            *ck = 3.0 * b * b * b + 2.0 * cc - 5.0 + (b - cc).sin() * (b + cc).sin() + 4.0 * b
                - a * (a - b).exp()
                - 3.0;
        }
    }

    coo::coo_callbacks!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{FdOptions, check_derivatives};

    #[test]
    fn sizes_and_start() {
        let m = RosenbrockModel::new(10).unwrap();
        let meta = m.meta();
        assert_eq!(
            (meta.nvar, meta.ncon, meta.nnzj, meta.nnzh),
            (10, 8, 24, 19)
        );
        assert_eq!(&meta.x0[..3], &[-1.2, 1.0, -1.2]);
        assert!(RosenbrockModel::new(2).is_err());
    }

    #[test]
    fn values_by_hand() {
        // At x = 1 the objective and every row vanish:
        // 3 + 2 − 5 + sin 0·sin 2 + 4 − 1·e⁰ − 3 = 0.
        let m = RosenbrockModel::new(10).unwrap();
        let ones = vec![1.0; 10];
        assert_eq!(m.obj(&ones), 0.0);
        let mut c = vec![1.0; 8];
        m.cons(&ones, &mut c);
        assert!(c.iter().all(|v| v.abs() < 1e-14));
        // At the start: 9 terms, alternating (a, b) = (−1.2, 1) and (1, −1.2).
        let t1 = 100.0 * (1.44f64 - 1.0).powi(2) + 2.2f64.powi(2);
        let t2 = 100.0 * (1.0f64 + 1.2).powi(2);
        let want = 5.0 * t1 + 4.0 * t2;
        assert!((m.obj(&m.meta().x0) - want).abs() < 1e-10);
    }

    #[test]
    fn derivatives_against_finite_differences() {
        let m = RosenbrockModel::new(10).unwrap();
        let opts = FdOptions {
            seed: 3,
            perturbation: 0.3,
            ..FdOptions::default()
        };
        check_derivatives("rosenbrock(10)", &m, &opts);
    }
}
