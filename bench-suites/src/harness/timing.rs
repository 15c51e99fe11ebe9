//! The paper's callback-timing protocol.
//!
//! Per callback: one warm-up call; the batch size `N` is calibrated from three single
//! calls (their minimum) so that a batch lasts at least the target duration (0.5 s by
//! default); the reported time per call is the best of three batches of `N` back-to-back
//! calls.

use std::hint::black_box;
use std::time::Instant;

use simdnlp_modeling::NlpModel;

use super::stats::CallbackWeights;

/// Settings of the protocol.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimingConfig {
    /// Target duration of one batch in seconds (> 0).
    pub batch_seconds: f64,
    /// Number of batches; the minimum per-call time is reported.
    pub batches: usize,
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self {
            batch_seconds: 0.5,
            batches: 3,
        }
    }
}

/// Seconds per call of `f` under the protocol of [`TimingConfig`].
pub fn time_per_call(cfg: &TimingConfig, mut f: impl FnMut()) -> f64 {
    f();
    let mut single = f64::INFINITY;
    for _ in 0..3 {
        let t0 = Instant::now();
        f();
        single = single.min(t0.elapsed().as_secs_f64());
    }
    let n = (cfg.batch_seconds / single.max(1e-9))
        .ceil()
        .clamp(1.0, 1e9) as u64;
    let mut best = f64::INFINITY;
    for _ in 0..cfg.batches.max(1) {
        let t0 = Instant::now();
        for _ in 0..n {
            f();
        }
        best = best.min(t0.elapsed().as_secs_f64() / n as f64);
    }
    best
}

/// Times `obj`, `cons`, `grad`, `jac_coord` and `hess_coord` of `m` at its start point
/// (multipliers 1, objective weight 1); returns seconds per call. Output buffers are
/// allocated once, before timing.
pub fn time_callbacks(m: &dyn NlpModel<f64>, cfg: &TimingConfig) -> CallbackWeights {
    let meta = m.meta();
    let x = meta.x0.clone();
    let y = vec![1.0; meta.ncon];
    let mut c = vec![0.0; meta.ncon];
    let mut g = vec![0.0; meta.nvar];
    let mut jv = vec![0.0; meta.nnzj];
    let mut hv = vec![0.0; meta.nnzh];
    let obj = time_per_call(cfg, || {
        black_box(m.obj(black_box(&x)));
    });
    let cons = time_per_call(cfg, || {
        m.cons(black_box(&x), black_box(&mut c));
    });
    let grad = time_per_call(cfg, || {
        m.grad(black_box(&x), black_box(&mut g));
    });
    let jac = time_per_call(cfg, || {
        m.jac_coord(black_box(&x), black_box(&mut jv));
    });
    let hess = time_per_call(cfg, || {
        m.hess_coord(black_box(&x), black_box(&y), 1.0, black_box(&mut hv));
    });
    CallbackWeights {
        obj,
        cons,
        grad,
        jac,
        hess,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handcoded::RosenbrockModel;

    #[test]
    fn protocol_counts_calls() {
        // With a tiny target the batch is at least one call; 1 warm-up + 3 calibration +
        // batches·N calls in all.
        let cfg = TimingConfig {
            batch_seconds: 1e-12,
            batches: 3,
        };
        let mut calls = 0u64;
        let t = time_per_call(&cfg, || calls += 1);
        assert_eq!(calls, 1 + 3 + 3);
        assert!(t >= 0.0 && t.is_finite());
    }

    #[test]
    fn times_every_callback() {
        let m = RosenbrockModel::new(20).unwrap();
        let cfg = TimingConfig {
            batch_seconds: 1e-4,
            batches: 2,
        };
        let t = time_callbacks(&m, &cfg);
        for v in [t.obj, t.cons, t.grad, t.jac, t.hess] {
            assert!(v > 0.0 && v.is_finite());
        }
    }
}
