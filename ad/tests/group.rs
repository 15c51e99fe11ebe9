//! Groups of patterns over the same data ([`PatternGroup`]: one native loop per callback
//! with the members' common subexpressions computed once) against each member evaluated
//! alone by the interpreter: values, gradients and weighted Hessians must be bit-identical
//! (NaN matches any NaN), also at NaN and ±∞ inputs, with threads, with members that share
//! loads, products and `sin`/`cos`/`exp` calls and members that share nothing.

use simdnlp_ad::*;

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// `x[col_c]` of the data point.
fn xat(c: u32) -> Expr {
    Expr::var(VarRef::new(0, vec![Index::field(c)], Index::field(c)))
}

/// The members: AC-flow-like patterns over branches `(f, t)` with data coefficients, plus
/// one with other functions and one that shares nothing but the data.
fn members() -> Vec<Expr> {
    let (vf, vt, af, at) = (xat(0), xat(1), xat(2), xat(3));
    let th = &af - &at;
    let th_to = &at - &af;
    let vv = &vf * &vt;
    let (c0, c1) = (Expr::data(0), Expr::data(1));
    vec![
        &c0 * vf.powi(2) - &c1 * (&vv * th.cos()) - &c0 * (&vv * th.sin()),
        &c1 * vf.powi(2) + &c0 * (&vv * th.cos()) - &c1 * (&vv * th.sin()),
        &c0 * vt.powi(2) - &c1 * (&vt * &vf * th_to.cos()) - &c0 * (&vt * &vf * th_to.sin()),
        (&vf * &c0).exp() * th.sin() + (&vv / (1.0 + &c1 * &c1)).sqrt(),
        &af - &at,
        (&vt * 3.0 + 1.0).abs2() * af.exp(),
    ]
}

/// Integer columns f, t, f + 6, t + 6 and real columns c0, c1 of the branches.
type Columns = (Vec<i64>, Vec<i64>, Vec<i64>, Vec<i64>, Vec<f64>, Vec<f64>);

/// Branches over 6 buses: columns f, t (vm) and f + 6, t + 6 (va).
fn columns(n: usize) -> Columns {
    let f: Vec<i64> = (0..n as i64).map(|k| k % 6).collect();
    let t: Vec<i64> = (0..n as i64).map(|k| (k * 5 + 1) % 6).collect();
    let fa: Vec<i64> = f.iter().map(|v| v + 6).collect();
    let ta: Vec<i64> = t.iter().map(|v| v + 6).collect();
    let c0: Vec<f64> = (0..n).map(|k| 0.5 + 0.125 * k as f64).collect();
    let c1: Vec<f64> = (0..n).map(|k| -1.0 + 0.3 * (k % 7) as f64).collect();
    (f, t, fa, ta, c0, c1)
}

fn check(x: &[f64], n: usize, par: Parallelism) {
    let (f, t, fa, ta, c0, c1) = columns(n);
    let ints: [&[i64]; 4] = [&f, &t, &fa, &ta];
    let reals: [&[f64]; 2] = [&c0, &c1];
    let data = DataView::new(n, &reals, &ints);
    let exprs = members();
    let interp: Vec<Pattern<f64>> = exprs
        .iter()
        .map(|e| Pattern::compile_for(e, SecondOrder::default(), Evaluator::Interp).unwrap())
        .collect();
    let refs: Vec<&Pattern<f64>> = interp.iter().collect();
    let group = PatternGroup::compile(&refs).expect("group code");
    assert_eq!(group.members(), exprs.len());
    let mut gws = group.workspace();
    let weights: Vec<f64> = (0..n * exprs.len())
        .map(|k| 0.5 + (k % 11) as f64 * 0.25)
        .collect();
    // members at offsets with gaps (and in the other order for the weights)
    let mut offsets = [Vec::new(), Vec::new(), Vec::new()];
    let mut ends = [3usize; 3];
    for p in &interp {
        for (f, step) in [1, p.nslots(), p.nhess()].into_iter().enumerate() {
            offsets[f].push(ends[f]);
            ends[f] += n * step + 2;
        }
    }
    let w_offsets: Vec<usize> = (0..exprs.len()).rev().map(|m| m * n).collect();
    let mut outs: Vec<Vec<f64>> = ends.iter().map(|&e| vec![-7.0; e]).collect();
    assert!(group.eval_values_with(&mut gws, &data, x, &[], &mut outs[0], &offsets[0], par));
    assert!(group.eval_gradients_with(&mut gws, &data, x, &[], &mut outs[1], &offsets[1], par));
    assert!(group.eval_hessians_with(
        &mut gws,
        &data,
        x,
        &[],
        &weights,
        &w_offsets,
        &mut outs[2],
        &offsets[2],
        par
    ));
    for (m, p) in interp.iter().enumerate() {
        let mut ws = p.workspace();
        let mut v = vec![0.0; n];
        p.eval_values_with(&mut ws, &data, x, &[], &mut v, par);
        let mut g = vec![0.0; n * p.nslots()];
        p.eval_gradients_with(&mut ws, &data, x, &[], None, &mut g, par);
        let mut h = vec![0.0; n * p.nhess()];
        let w = &weights[w_offsets[m]..w_offsets[m] + n];
        p.eval_hessians_with(&mut ws, &data, x, &[], w, &mut h, par);
        for (f, want) in [v, g, h].iter().enumerate() {
            let got = &outs[f][offsets[f][m]..offsets[f][m] + want.len()];
            for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
                assert!(
                    same(a, b),
                    "member {m}, callback {f}[{i}]: group {a:e} vs {b:e}"
                );
            }
            // the gap after each member's range is untouched
            let after = offsets[f][m] + want.len();
            assert_eq!(
                outs[f][after..after + 2],
                [-7.0, -7.0],
                "member {m}, callback {f}"
            );
        }
    }
    for out in &outs {
        assert_eq!(out[..3], [-7.0; 3]);
    }
}

#[test]
fn group_matches_members_bitwise() {
    let x: Vec<f64> = (0..12)
        .map(|i| 0.9 + 0.07 * i as f64 - 0.3 * (i % 3) as f64)
        .collect();
    for n in [1, 3, 4, 5, 17] {
        check(&x, n, Parallelism::Sequential);
    }
    check(&x, 1000, Parallelism::Rayon { min_batch: 64 });
}

#[test]
fn group_matches_members_at_special_inputs() {
    let special = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1e308,
        710.0,
        -1e-300,
    ];
    for shift in 0..special.len() {
        let x: Vec<f64> = (0..12)
            .map(|i| {
                if i % 3 == 0 {
                    special[(i + shift) % special.len()]
                } else {
                    0.5 + i as f64
                }
            })
            .collect();
        check(&x, 13, Parallelism::Sequential);
    }
}

#[test]
fn misfitting_arguments_write_nothing() {
    let (f, t, fa, ta, c0, c1) = columns(8);
    let ints: [&[i64]; 4] = [&f, &t, &fa, &ta];
    let reals: [&[f64]; 2] = [&c0, &c1];
    let data = DataView::new(8, &reals, &ints);
    let exprs = members();
    let pats: Vec<Pattern<f64>> = exprs[..2]
        .iter()
        .map(|e| Pattern::compile(e).unwrap())
        .collect();
    let refs: Vec<&Pattern<f64>> = pats.iter().collect();
    let group = PatternGroup::compile(&refs).unwrap();
    let mut ws = group.workspace();
    let x = [1.0; 12];
    let seq = Parallelism::Sequential;
    let mut out = vec![-7.0; 16];
    // overlapping members, a member past the end, the wrong number of offsets
    for offsets in [&[0, 4][..], &[0, 9], &[0]] {
        assert!(!group.eval_values_with(&mut ws, &data, &x, &[], &mut out, offsets, seq));
        assert!(out.iter().all(|&v| v == -7.0));
    }
    // a missing data column
    let short = DataView::new(8, &reals[..1], &ints);
    assert!(!group.eval_values_with(&mut ws, &short, &x, &[], &mut out, &[0, 8], seq));
    // weights outside their slice
    let w = [1.0; 8];
    let mut h = vec![0.0; 8 * (pats[0].nhess() + pats[1].nhess())];
    let offs = [0, 8 * pats[0].nhess()];
    assert!(!group.eval_hessians_with(&mut ws, &data, &x, &[], &w, &[0, 1], &mut h, &offs, seq));
    assert!(group.eval_hessians_with(&mut ws, &data, &x, &[], &w, &[0, 0], &mut h, &offs, seq));
    assert!(group.eval_values_with(&mut ws, &data, &x, &[], &mut out, &[0, 8], seq));
}
