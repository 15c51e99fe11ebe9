//! Constraint patterns over identical data are grouped and evaluated by one native loop
//! per callback (`Model::fusion`): every callback bit-identical to the same model without
//! fusion and to the interpreter (NaN matches any NaN), also at NaN and ±∞ inputs, but the
//! group's Hessian: one summed block (one entry per distinct position and point), the
//! Hessian of the members' weighted sum in one sweep, within 1e-14 relative of the
//! members' terms added up (non-finite where they are) and checked against finite
//! differences.

mod common;

use common::{Rng, check_callbacks, random_point};
use simdnlp_modeling::{Evaluator, Model, ModelBuilder, NlpModel, Parallelism};
use std::collections::BTreeSet;

/// Flow-like constraints over the same branches (grouped), one over other data with the
/// same shape (not grouped), an augmentation and an objective.
fn model() -> Model {
    model_with(false)
}

/// [`model`], with branches whose two buses are one (`f == t`) or not (`distinct_ends`).
fn model_with(distinct_ends: bool) -> Model {
    let nb = 7;
    let mut m = ModelBuilder::new();
    let vm = m.var(nb).start(1.0).named("vm");
    let va = m.var(nb).start_with(|i| 0.1 * i as f64).named("va");
    let to = |k: usize| match (k * 3 + 1) % nb {
        t if distinct_ends && t == k % nb => (t + 1) % nb,
        t => t,
    };
    let branches: Vec<(usize, usize, f64, f64)> = (0..23)
        .map(|k| {
            (
                k % nb,
                to(k),
                0.5 + 0.1 * k as f64,
                -1.0 + 0.3 * (k % 5) as f64,
            )
        })
        .collect();
    let mut other = branches.clone();
    other[4].2 = 0.25;
    m.minimize(0..nb, |i| (vm.at(i) - 1.0).abs2() + va.at(i).abs2());
    m.constraint(&branches[..], |(f, t, c0, c1)| {
        let th = va.at(f) - va.at(t);
        let vv = vm.at(f) * vm.at(t);
        c0 * vm.at(f).powi(2) - c1 * (&vv * th.cos()) - c0 * (&vv * th.sin())
    })
    .named("p_from");
    let q = m
        .constraint(&branches[..], |(f, t, c0, c1)| {
            let th = va.at(f) - va.at(t);
            let vv = vm.at(f) * vm.at(t);
            c1 * vm.at(f).powi(2) + c0 * (&vv * th.cos()) - c1 * (&vv * th.sin())
        })
        .named("q_from");
    m.constraint(&other[..], |(f, t, c0, c1)| {
        let th = va.at(f) - va.at(t);
        c0 * th.sin() * vm.at(t) + c1
    })
    .named("other");
    m.constraint(&branches[..], |(f, t, _, _)| va.at(f) - va.at(t))
        .named("angle");
    m.augment(&q, &branches[..], |(f, t, c0, _)| {
        (f, c0 * (va.at(t) * vm.at(f)).exp())
    });
    m.constraint(&branches[..], |(f, t, _, c1)| {
        (c1 * va.at(t)).exp() * vm.at(f)
    })
    .named("exp_flow");
    m.build().unwrap()
}

fn outputs(m: &Model, x: &[f64]) -> Vec<Vec<f64>> {
    let meta = m.meta();
    let y: Vec<f64> = (0..meta.ncon).map(|i| 0.3 + (i % 5) as f64 * 0.2).collect();
    let mut g = vec![0.0; meta.nvar];
    let mut c = vec![0.0; meta.ncon];
    let mut j = vec![0.0; meta.nnzj];
    let mut h = vec![0.0; meta.nnzh];
    let mut jv = vec![0.0; meta.ncon];
    let mut hv = vec![0.0; meta.nvar];
    m.grad(x, &mut g);
    m.cons(x, &mut c);
    m.jac_coord(x, &mut j);
    m.hess_coord(x, &y, 0.8, &mut h);
    m.jprod(x, x, &mut jv);
    m.hprod(x, &y, 0.8, x, &mut hv);
    vec![vec![m.obj(x)], g, c, j, h, jv, hv]
}

/// The callbacks of [`outputs`] that hold a group's summed Hessian block (`hess_coord`,
/// `hprod`): the fused code computes it as the Hessian of the members' weighted sum in
/// one sweep, other operations than the members' terms added up.
const SUMMED: [usize; 2] = [4, 6];

/// Every callback bitwise equal (NaN matches any NaN), but those holding a group's
/// summed Hessian block ([`SUMMED`]) when `summed_differs`: those within
/// `1e-14 · max(|a|, |b|, 1)`, or both non-finite.
fn assert_same_but(label: &str, a: &[Vec<f64>], b: &[Vec<f64>], summed_differs: bool) {
    for (k, (oa, ob)) in a.iter().zip(b).enumerate() {
        assert_eq!(oa.len(), ob.len());
        let rounding = summed_differs && SUMMED.contains(&k);
        for (i, (va, vb)) in oa.iter().zip(ob).enumerate() {
            let same = va.to_bits() == vb.to_bits() || (va.is_nan() && vb.is_nan());
            let close = rounding
                && ((!va.is_finite() && !vb.is_finite())
                    || (va - vb).abs() <= 1e-14 * va.abs().max(vb.abs()).max(1.0));
            assert!(
                same || close,
                "{label}: callback {k}[{i}] fused {va:e} vs {vb:e}"
            );
        }
    }
}

fn assert_same(label: &str, a: &[Vec<f64>], b: &[Vec<f64>]) {
    assert_same_but(label, a, b, false);
}

#[test]
fn fused_callbacks_match_the_unfused_ones() {
    let fused = model();
    assert_eq!(fused.evaluator(), Evaluator::Jit);
    assert!(fused.fusion());
    // p_from, q_from, angle and exp_flow share the data; `other` differs in one value
    assert_eq!(fused.pattern_groups(), vec![vec![1, 2, 4, 6]]);
    assert_eq!(fused.group_compile_times().len(), 1);
    let mut plain = fused.clone();
    assert!(!plain.set_fusion(false));
    let mut interp = fused.clone();
    interp.set_evaluator(Evaluator::Interp);
    assert!(!interp.fusion());
    let n = fused.meta().nvar;
    let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 1e300];
    let mut points: Vec<Vec<f64>> = vec![
        fused.meta().x0.clone(),
        (0..n).map(|i| 0.9 + 0.05 * i as f64).collect(),
    ];
    for (s, &v) in special.iter().enumerate() {
        points.push(
            (0..n)
                .map(|i| if i % 4 == s % 4 { v } else { 0.7 })
                .collect(),
        );
    }
    for x in &points {
        let a = outputs(&fused, x);
        let b = outputs(&plain, x);
        assert_same_but("fusion off", &a, &b, true);
        assert_same_but("interpreter", &a, &outputs(&interp, x), true);
        // without fusion, the JIT's summed blocks are bitwise the interpreter's
        assert_same("interpreter, fusion off", &b, &outputs(&interp, x));
    }
    // and back on
    assert!(plain.set_fusion(true));
    assert_same(
        "fusion on again",
        &outputs(&plain, &points[1]),
        &outputs(&fused, &points[1]),
    );
    // the points of a group split across threads
    let mut threaded = fused.clone();
    threaded.set_threads(Parallelism::rayon_batches(4));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let a = pool.install(|| outputs(&threaded, &points[1]));
    assert_same("threads", &a, &outputs(&fused, &points[1]));
}

#[test]
fn a_group_stores_one_hessian_entry_per_position_and_point() {
    let model = model_with(true);
    let p = model.patterns();
    // p_from, q_from, exp_flow: the group's members with second-order slots share the
    // block at p_from's place; `other` and the augmentation follow with their own
    let group_block = p[1].hess_offset;
    assert_eq!(
        (p[2].hess_offset, p[6].hess_offset),
        (group_block, group_block)
    );
    let branches = p[1].points;
    // p_from and q_from: the pairs of vm_f, vm_t, va_f, va_t but (vm_t, vm_t) (9 each);
    // exp_flow: (va_t, va_t) and (vm_f, va_t), which p_from has too
    let separate = p[1].hess_slots + p[2].hess_slots + p[6].hess_slots;
    assert_eq!(separate, 9 + 9 + 2);
    let summed = 9;
    assert_eq!(p[3].hess_offset, group_block + branches * summed);
    let own: usize = [0, 3, 5]
        .iter()
        .map(|&i| p[i].points * p[i].hess_slots)
        .sum();
    assert_eq!(model.meta().nnzh, own + branches * summed);
    // per point of the group's block, each position once
    let nnzh = model.meta().nnzh;
    let (mut r, mut c) = (vec![0; nnzh], vec![0; nnzh]);
    model.hess_structure(&mut r, &mut c);
    for k in 0..branches {
        let at = group_block + k * summed..group_block + (k + 1) * summed;
        let positions: BTreeSet<(usize, usize)> = r[at.clone()]
            .iter()
            .copied()
            .zip(c[at].iter().copied())
            .collect();
        assert_eq!(positions.len(), summed, "branch {k}");
    }
    // values against finite differences, with and without the native group code
    let mut rng = Rng(7);
    let mut interp = model.clone();
    interp.set_evaluator(Evaluator::Interp);
    for _ in 0..2 {
        let x = random_point(&model, &mut rng);
        check_callbacks(&model, &x, &mut Rng(11));
        check_callbacks(&interp, &x, &mut Rng(11));
    }
}

/// The objective's native summing loop reads `x` without per-point checks inside the
/// range computed at build (its last term reads the last variable): with `x` one entry
/// shorter the model falls back to the checked code, which reads NaN there as the
/// interpreter does; with the full `x`, bitwise the interpreter's objective. The same
/// for the gradient's scatter loop.
#[test]
fn objective_with_a_short_x_reads_nan_not_out_of_bounds() {
    let jit = model();
    assert_eq!(jit.evaluator(), Evaluator::Jit);
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    let n = jit.meta().nvar;
    let x: Vec<f64> = (0..n).map(|i| 0.9 + 0.05 * i as f64).collect();
    let f = jit.obj(&x);
    assert!(f.is_finite());
    assert_eq!(f.to_bits(), interp.obj(&x).to_bits());
    let short = &x[..n - 1];
    assert!(jit.obj(short).is_nan());
    assert!(interp.obj(short).is_nan());
    // the gradient's scatter loop too: bitwise the interpreter's with the full `x`, NaN
    // where the interpreter has NaN (and only there) with the short one
    let (mut g_jit, mut g_interp) = (vec![0.0; n], vec![0.0; n]);
    jit.grad(&x, &mut g_jit);
    interp.grad(&x, &mut g_interp);
    let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert!(g_jit.iter().all(|v| v.is_finite()));
    assert_eq!(bits(&g_jit), bits(&g_interp));
    jit.grad(short, &mut g_jit);
    interp.grad(short, &mut g_interp);
    let nan_at = |g: &[f64]| g.iter().map(|v| v.is_nan()).collect::<Vec<_>>();
    assert!(g_jit[n - 1].is_nan());
    assert_eq!(nan_at(&g_jit), nan_at(&g_interp));
}
