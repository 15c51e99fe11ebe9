//! Every suite's small instances give bit-identical callbacks with the JIT and with the
//! interpreter (the Hessian of fused groups, computed in one sweep over each group's
//! weighted sum, within rounding: bit-identical with the fusion off): the 18
//! Lukšan–Vlček problems at N = 20, every COPS problem at its small preset, and the
//! bundled PGLIB-OPF cases up to case118.

use simdnlp_bench::opf::{OpfData, bundled_pglib_dir, model::acopf};
use simdnlp_bench::{cops, lv};
use simdnlp_modeling::{Evaluator, Model, NlpModel};

/// Every callback of `m` at a point near its start (and multipliers that vary per row).
fn outputs(m: &Model) -> Vec<Vec<f64>> {
    let meta = m.meta();
    let x: Vec<f64> = meta
        .x0
        .iter()
        .enumerate()
        .map(|(i, v)| v + 0.01 * ((i % 7) as f64 - 3.0))
        .collect();
    let y: Vec<f64> = (0..meta.ncon).map(|i| 0.3 + (i % 5) as f64 * 0.2).collect();
    let mut g = vec![0.0; meta.nvar];
    let mut c = vec![0.0; meta.ncon];
    let mut j = vec![0.0; meta.nnzj];
    let mut h = vec![0.0; meta.nnzh];
    m.grad(&x, &mut g);
    m.cons(&x, &mut c);
    m.jac_coord(&x, &mut j);
    m.hess_coord(&x, &y, 0.8, &mut h);
    vec![vec![m.obj(&x)], g, c, j, h]
}

/// `jit`'s callbacks bitwise the interpreter's (NaN matches any NaN), but the Hessian of
/// a model with fused groups (one sweep over each group's weighted sum): bitwise with the
/// fusion off; with it on, each entry within `1e-14 · ‖H‖∞` of the interpreter's (its
/// largest finite entry: the one sweep adds the members' terms in another order, and an
/// entry whose terms cancel keeps the terms' rounding), or both non-finite.
fn check(label: &str, jit: Model) {
    assert_eq!(jit.evaluator(), Evaluator::Jit, "{label}: JIT not built");
    let mut interp = jit.clone();
    assert_eq!(interp.set_evaluator(Evaluator::Interp), Evaluator::Interp);
    let mut unfused = jit.clone();
    unfused.set_fusion(false);
    let want = outputs(&interp);
    for (model, fused) in [(&jit, true), (&unfused, false)] {
        for (k, (oa, ob)) in outputs(model).iter().zip(&want).enumerate() {
            assert_eq!(oa.len(), ob.len());
            let rounding = fused && k == HESS;
            let norm = ob
                .iter()
                .filter(|v| v.is_finite())
                .fold(0.0f64, |m, v| m.max(v.abs()));
            for (i, (va, vb)) in oa.iter().zip(ob).enumerate() {
                let same = va.to_bits() == vb.to_bits() || (va.is_nan() && vb.is_nan());
                let close = rounding
                    && ((!va.is_finite() && !vb.is_finite()) || (va - vb).abs() <= 1e-14 * norm);
                assert!(
                    same || close,
                    "{label}: callback {k}[{i}] jit {va:e} vs interp {vb:e} (fusion {fused}, \
                     largest entry {norm:e})"
                );
            }
        }
    }
}

/// The Hessian's place among the callbacks of [`outputs`].
const HESS: usize = 4;

#[test]
fn lv_at_n20() {
    for &name in lv::LV_PROBLEMS {
        check(name, lv::build(name, 20).unwrap());
    }
}

#[test]
fn cops_small() {
    for p in cops::ALL {
        let size = p.presets()[0];
        check(p.name, p.build_at(size).unwrap());
    }
}

#[test]
fn opf_bundled_cases() {
    for case in [
        "pglib_opf_case3_lmbd",
        "pglib_opf_case5_pjm",
        "pglib_opf_case14_ieee",
        "pglib_opf_case89_pegase",
        "pglib_opf_case118_ieee",
    ] {
        let path = bundled_pglib_dir().join(format!("{case}.m"));
        check(case, acopf(&OpfData::read(path).unwrap()).unwrap());
    }
}
