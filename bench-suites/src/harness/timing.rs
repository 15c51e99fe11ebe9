//! The paper's callback-timing protocol.
//!
//! Per callback: one warm-up call; the batch size `N` is calibrated from three single
//! calls (their minimum) so that a batch lasts at least the target duration (0.5 s by
//! default); the reported time per call is the best of three batches of `N` back-to-back
//! calls.
//!
//! On a kernel device ([`time_device_callbacks`]) the calls only queue kernels, so the
//! protocol is the paper's GPU one: the warm-up and each calibration call end with a
//! synchronize, and a batch is `N` back-to-back calls followed by **one** synchronize
//! (best of three batches). `obj` waits for its value on every call (it returns a host
//! number), so its time includes one device-to-host copy per call.

use std::hint::black_box;
use std::time::Instant;

use simdnlp_device::KernelRuntime;
use simdnlp_modeling::{DeviceModel, Model, ModelError, NlpModel};

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

/// Seconds per call of `f` on a device: as [`time_per_call`], with `sync` after the
/// warm-up, after each calibration call and once after each batch of back-to-back calls.
pub fn time_per_call_synced(
    cfg: &TimingConfig,
    mut f: impl FnMut(),
    mut sync: impl FnMut(),
) -> f64 {
    f();
    sync();
    let mut single = f64::INFINITY;
    for _ in 0..3 {
        let t0 = Instant::now();
        f();
        sync();
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
        sync();
        best = best.min(t0.elapsed().as_secs_f64() / n as f64);
    }
    best
}

/// Times the five callbacks of `model` evaluated on `device` by a [`DeviceModel`] (its
/// kernels compiled once, before timing) at the start point (multipliers 1, objective
/// weight 1) with the device protocol of [`time_per_call_synced`]; returns seconds per
/// call.
///
/// # Errors
/// The device model cannot be created (compile, upload) or a callback or synchronize
/// failed.
pub fn time_device_callbacks<D: KernelRuntime>(
    device: &D,
    model: &Model,
    cfg: &TimingConfig,
) -> Result<CallbackWeights, ModelError> {
    let meta = model.meta();
    let dev = |e: simdnlp_device::DeviceError| ModelError::Device(Box::new(e));
    let mut dm = DeviceModel::new(model, device)?;
    dm.set_synchronize_each(false);
    let x = device.vector_from_host(&meta.x0).map_err(dev)?;
    let y = device
        .vector_from_host(&vec![1.0; meta.ncon])
        .map_err(dev)?;
    let mut c = device.zeros(meta.ncon).map_err(dev)?;
    let mut g = device.zeros(meta.nvar).map_err(dev)?;
    let mut jv = device.zeros(meta.nnzj).map_err(dev)?;
    let mut hv = device.zeros(meta.nnzh).map_err(dev)?;
    // the first error of a callback or a synchronize, reported after the timing
    let mut failure: Result<(), ModelError> = Ok(());
    let keep = |failure: &mut Result<(), ModelError>, r: Result<(), ModelError>| {
        if failure.is_ok() {
            *failure = r;
        }
    };
    let failure = std::cell::RefCell::new(&mut failure);
    let sync = || keep(&mut failure.borrow_mut(), device.synchronize().map_err(dev));
    let obj = time_per_call_synced(
        cfg,
        || {
            let r = dm.obj(&x).map(|v| {
                black_box(v);
            });
            keep(&mut failure.borrow_mut(), r);
        },
        sync,
    );
    let cons = time_per_call_synced(
        cfg,
        || keep(&mut failure.borrow_mut(), dm.cons(&x, &mut c)),
        sync,
    );
    let grad = time_per_call_synced(
        cfg,
        || keep(&mut failure.borrow_mut(), dm.grad(&x, &mut g)),
        sync,
    );
    let jac = time_per_call_synced(
        cfg,
        || keep(&mut failure.borrow_mut(), dm.jac_coord(&x, &mut jv)),
        sync,
    );
    let hess = time_per_call_synced(
        cfg,
        || {
            keep(
                &mut failure.borrow_mut(),
                dm.hess_coord(&x, &y, 1.0, &mut hv),
            )
        },
        sync,
    );
    let failure = failure.into_inner();
    std::mem::replace(failure, Ok(()))?;
    Ok(CallbackWeights {
        obj,
        cons,
        grad,
        jac,
        hess,
    })
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
    fn the_device_protocol_synchronizes_once_per_batch() {
        let cfg = TimingConfig {
            batch_seconds: 1e-12,
            batches: 3,
        };
        let (calls, syncs) = (std::cell::Cell::new(0u64), std::cell::Cell::new(0u64));
        let t = time_per_call_synced(
            &cfg,
            || calls.set(calls.get() + 1),
            || syncs.set(syncs.get() + 1),
        );
        // warm-up, 3 calibration calls and 3 batches of one call; a sync after each of
        // the first four and one per batch
        assert_eq!((calls.get(), syncs.get()), (7, 7));
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
