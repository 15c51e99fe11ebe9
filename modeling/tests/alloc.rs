//! Model callbacks allocate nothing after the first call, with either CPU evaluator
//! (the JIT's column table lives in the pattern workspaces; the interpreter's registers
//! too), and both evaluators give bit-identical callbacks (but the Hessian of a fused
//! group, within rounding).

use simdnlp_modeling::{Evaluator, Model, ModelBuilder, NlpModel};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Rosenbrock objective, two transcendental constraints over the same data (a fused
/// group with the JIT), and an augmentation.
fn model(evaluator: Evaluator) -> Model {
    let n = 300;
    let mut m = ModelBuilder::new();
    m.set_evaluator(evaluator);
    let x = m.var(0..n).start_with(|i| 0.3 + 0.001 * i as f64);
    m.minimize(0..n - 1, |i| {
        100.0 * (x.at(i + 1) - x.at(i).abs2()).abs2() + (1.0 - x.at(i)).abs2()
    });
    let weights: Vec<(usize, f64)> = (0..n - 2).map(|i| (i, 1.0 + 0.01 * i as f64)).collect();
    let c = m.constraint(&weights[..], |(i, w)| {
        w * x.at(i + 1).sin() * x.at(i + 2).exp() - x.at(i).powi(3)
    });
    // a second constraint over the same data: the two are evaluated as one group
    m.constraint(&weights[..], |(i, w)| w * x.at(i + 1).sin() + x.at(i).cos());
    let pairs: Vec<(usize, usize)> = (0..n - 2).map(|i| (i, (i * 7) % n)).collect();
    m.augment(&c, &pairs[..], |(r, j)| (r, x.at(j).cos() * x.at(r)));
    m.build().unwrap()
}

/// All callbacks once at `(x, y)`; the objective goes to `f`.
fn callbacks(m: &Model, x: &[f64], y: &[f64], f: &mut f64, out: &mut [Vec<f64>; 7]) {
    let [g, c, j, h, jv, jtv, hv] = out;
    *f = m.obj(x);
    m.grad(x, g);
    m.cons(x, c);
    m.jac_coord(x, j);
    m.hess_coord(x, y, 0.7, h);
    m.jprod(x, x, jv);
    m.jtprod(x, y, jtv);
    m.hprod(x, y, 0.7, x, hv);
}

#[test]
fn callbacks_do_not_allocate_and_evaluators_agree() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let mut results = Vec::new();
    for evaluator in [Evaluator::Jit, Evaluator::Interp] {
        let m = model(evaluator);
        assert_eq!(m.evaluator(), evaluator);
        let meta = m.meta();
        let (nv, nc) = (meta.nvar, meta.ncon);
        let mut out = [
            vec![0.0; nv],
            vec![0.0; nc],
            vec![0.0; meta.nnzj],
            vec![0.0; meta.nnzh],
            vec![0.0; nc],
            vec![0.0; nv],
            vec![0.0; nv],
        ];
        let x: Vec<f64> = meta.x0.iter().map(|v| v * 1.1).collect();
        let y: Vec<f64> = (0..nc).map(|i| 0.5 - 0.001 * i as f64).collect();
        let mut f = 0.0;
        callbacks(&m, &x, &y, &mut f, &mut out);
        // dhat counts every thread's allocations: a rayon worker that joins a callback for
        // the first time may set up its own thread state inside a window (seen under load).
        // A real per-call allocation shows in every window, so the fewest over three
        // windows must be zero.
        let mut fewest = u64::MAX;
        for _ in 0..3 {
            let before = dhat::HeapStats::get().total_blocks;
            for _ in 0..3 {
                callbacks(&m, &x, &y, &mut f, &mut out);
            }
            let after = dhat::HeapStats::get().total_blocks;
            fewest = fewest.min(after - before);
        }
        assert_eq!(fewest, 0, "{evaluator}: callbacks allocated");
        out[0].push(f);
        results.push(out);
    }
    for (k, (a, b)) in results[0].iter().zip(&results[1]).enumerate() {
        // the Hessian and its product hold the JIT's fused group block: the Hessian of
        // the members' weighted sum in one sweep, the interpreter's terms added up within
        // rounding
        let summed = k == 3 || k == 6;
        for (i, (va, vb)) in a.iter().zip(b).enumerate() {
            let close = (va - vb).abs() <= 1e-14 * va.abs().max(vb.abs()).max(1.0);
            assert!(
                va.to_bits() == vb.to_bits() || (summed && close),
                "output {k}[{i}]: {va} vs {vb}"
            );
        }
    }
}
