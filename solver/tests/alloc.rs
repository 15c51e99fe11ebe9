//! Solver iterations allocate nothing after setup: two solves that differ only in their
//! iteration limit make exactly the same number of heap allocations, with and without an
//! intermediate callback and a cancel token installed; on the CPU and on the emulated CUDA
//! device (`device = emu`, after its setup, also for a pattern-based `Model` evaluated by
//! its emitted kernels; g++ is required, `SIMDNLP_SKIP_GXX=1` skips
//! that device on a machine without it).

use simdnlp_device::DeviceError;
use simdnlp_modeling::{NlpMeta, NlpModel};
use simdnlp_solver::{
    CancelToken, DeviceKind, Hooks, KktKind, Options, PrintLevel, SolverError, Status, solve,
    solve_with,
};
use std::cell::Cell;
use std::ops::ControlFlow;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// HS71 with hand-written, allocation-free derivatives.
struct Hs71 {
    meta: NlpMeta<f64>,
}

impl Hs71 {
    fn new() -> Self {
        let mut meta = NlpMeta::new(4, 2);
        meta.nnzj = 8;
        meta.nnzh = 10;
        meta.x0 = vec![1.0, 5.0, 5.0, 1.0];
        meta.lvar = vec![1.0; 4];
        meta.uvar = vec![5.0; 4];
        meta.lcon = vec![25.0, 40.0];
        meta.ucon = vec![f64::INFINITY, 40.0];
        Self { meta }
    }
}

impl NlpModel for Hs71 {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn obj(&self, x: &[f64]) -> f64 {
        x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2]
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        g[0] = x[3] * (2.0 * x[0] + x[1] + x[2]);
        g[1] = x[0] * x[3];
        g[2] = x[0] * x[3] + 1.0;
        g[3] = x[0] * (x[0] + x[1] + x[2]);
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        c[0] = x[0] * x[1] * x[2] * x[3];
        c[1] = x.iter().map(|v| v * v).sum();
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        for k in 0..8 {
            rows[k] = k / 4;
            cols[k] = k % 4;
        }
    }
    fn jac_coord(&self, x: &[f64], v: &mut [f64]) {
        v[0] = x[1] * x[2] * x[3];
        v[1] = x[0] * x[2] * x[3];
        v[2] = x[0] * x[1] * x[3];
        v[3] = x[0] * x[1] * x[2];
        for i in 0..4 {
            v[4 + i] = 2.0 * x[i];
        }
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let mut k = 0;
        for i in 0..4 {
            for j in 0..=i {
                rows[k] = i;
                cols[k] = j;
                k += 1;
            }
        }
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, v: &mut [f64]) {
        // order: (0,0) (1,0) (1,1) (2,0) (2,1) (2,2) (3,0) (3,1) (3,2) (3,3)
        v[0] = w * 2.0 * x[3] + 2.0 * y[1];
        v[1] = w * x[3] + y[0] * x[2] * x[3];
        v[2] = 2.0 * y[1];
        v[3] = w * x[3] + y[0] * x[1] * x[3];
        v[4] = y[0] * x[0] * x[3];
        v[5] = 2.0 * y[1];
        v[6] = w * (2.0 * x[0] + x[1] + x[2]) + y[0] * x[1] * x[2];
        v[7] = w * x[0] + y[0] * x[0] * x[2];
        v[8] = w * x[0] + y[0] * x[0] * x[1];
        v[9] = 2.0 * y[1];
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        let mut j = [0.0; 8];
        self.jac_coord(x, &mut j);
        jv[0] = (0..4).map(|i| j[i] * v[i]).sum();
        jv[1] = (0..4).map(|i| j[4 + i] * v[i]).sum();
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        let mut j = [0.0; 8];
        self.jac_coord(x, &mut j);
        for i in 0..4 {
            jtv[i] = j[i] * v[0] + j[4 + i] * v[1];
        }
    }
    fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
        let mut h = [0.0; 10];
        self.hess_coord(x, y, w, &mut h);
        let idx = |i: usize, j: usize| {
            if i >= j {
                i * (i + 1) / 2 + j
            } else {
                j * (j + 1) / 2 + i
            }
        };
        for i in 0..4 {
            hv[i] = (0..4).map(|j| h[idx(i, j)] * v[j]).sum();
        }
    }
}

fn allocations(o: &Options) -> (u64, Status) {
    allocations_of(&Hs71::new(), o)
}

/// Allocations of one solve of `m`.
fn allocations_of(m: &dyn NlpModel, o: &Options) -> (u64, Status) {
    let before = dhat::HeapStats::get().total_blocks;
    let r = solve(m, o).unwrap();
    (dhat::HeapStats::get().total_blocks - before, r.status)
}

/// A pattern-based model without block names: its callbacks and kernels, but no
/// `var_block`/`con_block` (the result's list of violations, which differs between
/// iteration limits, would allocate names).
struct Unnamed(simdnlp_modeling::Model);

impl NlpModel for Unnamed {
    fn meta(&self) -> &NlpMeta<f64> {
        self.0.meta()
    }
    fn obj(&self, x: &[f64]) -> f64 {
        self.0.obj(x)
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        self.0.grad(x, g)
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        self.0.cons(x, c)
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.0.jac_structure(rows, cols)
    }
    fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
        self.0.jac_coord(x, vals)
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.0.hess_structure(rows, cols)
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, vals: &mut [f64]) {
        self.0.hess_coord(x, y, w, vals)
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        self.0.jprod(x, v, jv)
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        self.0.jtprod(x, v, jtv)
    }
    fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
        self.0.hprod(x, y, w, v, hv)
    }
    fn as_pattern_model(&self) -> Option<&simdnlp_modeling::Model> {
        Some(&self.0)
    }
}

/// HS71 built from patterns: on `emu` the solver evaluates it with its emitted kernels.
fn hs71_patterns() -> Unnamed {
    let mut m = simdnlp_modeling::ModelBuilder::new();
    let x = m
        .var(0..4)
        .bounds(1.0, 5.0)
        .start([1.0, 5.0, 5.0, 1.0])
        .named("x");
    m.minimize(0..1, |_| {
        x.at(0) * x.at(3) * (x.at(0) + x.at(1) + x.at(2)) + x.at(2)
    });
    m.constraint(0..1, |_| x.at(0) * x.at(1) * x.at(2) * x.at(3))
        .lower(25.0);
    m.constraint(0..1, |_| {
        x.at(0).powi(2) + x.at(1).powi(2) + x.at(2).powi(2) + x.at(3).powi(2)
    })
    .equal_to(40.0);
    Unnamed(m.build().unwrap())
}

/// Allocations of a solve driven by a (non-allocating) callback and a cancel token, and
/// the number of records the callback saw.
fn allocations_driven(o: &Options) -> (u64, Status, usize) {
    let m = Hs71::new();
    let seen = Cell::new(0);
    let token = CancelToken::new();
    let before = dhat::HeapStats::get().total_blocks;
    let mut hooks = Hooks::new()
        .on_iteration(|record| {
            seen.set(seen.get() + 1);
            if record.objective.is_finite() {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })
        .cancel_token(token);
    let r = solve_with(&m, o, &mut hooks).unwrap();
    drop(hooks);
    (
        dhat::HeapStats::get().total_blocks - before,
        r.status,
        seen.get(),
    )
}

/// Up to three results of `measure`, stopping at the first 0.
fn differences(mut measure: impl FnMut() -> i64) -> Vec<i64> {
    let mut diffs = Vec::new();
    while diffs.len() < 3 && !diffs.contains(&0) {
        diffs.push(measure());
    }
    diffs
}

#[test]
fn iterations_do_not_allocate() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let devices = [DeviceKind::Cpu, DeviceKind::Emu];
    let kkts = [KktKind::Augmented, KktKind::Condensed, KktKind::Hybrid];
    for (device, kkt) in devices.into_iter().flat_map(|d| kkts.map(|k| (d, k))) {
        let base = Options {
            print_level: PrintLevel::None,
            kkt,
            device,
            ..Options::default()
        };
        // the first solve on a device also sets it up (Emu compiles its kernels)
        let full = match solve(&Hs71::new(), &base) {
            Err(SolverError::Device(e @ DeviceError::Unavailable { .. })) => {
                // g++ is required (CI installs it); set SIMDNLP_SKIP_GXX=1 to skip on a
                // machine without it
                assert!(
                    std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                    "g++ is required for this test: {e}"
                );
                eprintln!("g++ not available ({e}); skipping {device:?}");
                continue;
            }
            result => result.unwrap(),
        };
        assert_eq!(full.status, Status::SolveSucceeded);
        assert!((full.objective - 17.014017289).abs() < 1e-6);
        // A per-iteration allocation shows in every measurement; an allocation made by
        // another thread at the same time (a rayon worker's deque or epoch bookkeeping on a
        // loaded machine) shows only in some, in either window. So one of three
        // measurements must be exactly 0.
        let diffs = differences(|| {
            let (a2, s2) = allocations(&Options {
                max_iter: 2,
                ..base.clone()
            });
            let (a6, s6) = allocations(&Options {
                max_iter: 6,
                ..base.clone()
            });
            assert_eq!(s2, Status::MaximumIterationsExceeded);
            assert_eq!(s6, Status::MaximumIterationsExceeded);
            a6 as i64 - a2 as i64
        });
        assert!(
            diffs.contains(&0),
            "{device:?} {kkt:?}: 4 more iterations made {diffs:?} more allocations (3 runs)"
        );
        // the same with a callback and a cancel token installed
        let diffs = differences(|| {
            let (d2, s2, n2) = allocations_driven(&Options {
                max_iter: 2,
                ..base.clone()
            });
            let (d6, s6, n6) = allocations_driven(&Options {
                max_iter: 6,
                ..base.clone()
            });
            assert_eq!(s2, Status::MaximumIterationsExceeded);
            assert_eq!(s6, Status::MaximumIterationsExceeded);
            assert_eq!((n2, n6), (3, 7), "one callback per iteration");
            d6 as i64 - d2 as i64
        });
        assert!(
            diffs.contains(&0),
            "{device:?} {kkt:?} with a callback: 4 more iterations made {diffs:?} more \
             allocations (3 runs)"
        );
    }
    // a pattern-based model on emu, evaluated by its kernels on device vectors (the
    // device model is built per solve: setup)
    let model = hs71_patterns();
    for kkt in kkts {
        let base = Options {
            print_level: PrintLevel::None,
            kkt,
            device: DeviceKind::Emu,
            ..Options::default()
        };
        match solve(&model, &base) {
            Err(SolverError::Device(DeviceError::Unavailable { .. })) => return,
            result => assert_eq!(result.unwrap().status, Status::SolveSucceeded),
        }
        let diffs = differences(|| {
            let (a2, s2) = allocations_of(
                &model,
                &Options {
                    max_iter: 2,
                    ..base.clone()
                },
            );
            let (a6, s6) = allocations_of(
                &model,
                &Options {
                    max_iter: 6,
                    ..base.clone()
                },
            );
            assert_eq!(
                (s2, s6),
                (
                    Status::MaximumIterationsExceeded,
                    Status::MaximumIterationsExceeded
                )
            );
            a6 as i64 - a2 as i64
        });
        assert!(
            diffs.contains(&0),
            "pattern model on emu {kkt:?}: 4 more iterations made {diffs:?} more allocations"
        );
    }
}
