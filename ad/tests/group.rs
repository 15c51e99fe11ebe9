//! Groups of patterns over the same data ([`PatternGroup`]: one native loop per callback
//! with the members' common subexpressions computed once) against each member evaluated
//! alone by the interpreter: values and gradients must be bit-identical (NaN matches any
//! NaN), also at NaN and ±∞ inputs, and the summed Hessian block (the Hessian of the
//! members' weighted sum, in one sweep) within 1e-14 of the members' weighted Hessians
//! added up (relative to the terms' magnitudes), non-finite where they are (at NaN, ±∞
//! and huge inputs: where both are finite), with threads,
//! with members that share loads, products and `sin`/`cos`/`exp` calls and members that
//! share nothing.

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

/// The group against its members at `x` (`n` points); `special`: `x` holds NaN, ±∞, 0
/// and huge values, where the Hessian's one sweep may overflow (or not) in other
/// intermediate products than the members' terms, so its entries are compared only where
/// both are finite.
fn check(x: &[f64], n: usize, par: Parallelism, special: bool) {
    check_columns(x, n, par, special, columns(n));
}

/// [`check`] with the data columns `cols`.
fn check_columns(x: &[f64], n: usize, par: Parallelism, special: bool, cols: Columns) {
    let (f, t, fa, ta, c0, c1) = cols;
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
    let summed = group.hessian();
    assert_eq!(summed, &GroupHessian::of(&refs));
    let weights: Vec<f64> = (0..n * exprs.len())
        .map(|k| 0.5 + (k % 11) as f64 * 0.25)
        .collect();
    // members at offsets with gaps (and in the other order for the weights); the summed
    // Hessian block after a gap of 3
    let mut offsets = [Vec::new(), Vec::new()];
    let mut ends = [3usize; 2];
    for p in &interp {
        for (f, step) in [1, p.nslots()].into_iter().enumerate() {
            offsets[f].push(ends[f]);
            ends[f] += n * step + 2;
        }
    }
    let w_offsets: Vec<usize> = (0..exprs.len()).rev().map(|m| m * n).collect();
    let mut outs: Vec<Vec<f64>> = ends.iter().map(|&e| vec![-7.0; e]).collect();
    let mut hess = vec![-7.0; 3 + n * summed.len() + 2];
    assert!(group.eval_values(
        &mut gws,
        &EvalInputs::new(&data, x, &[]).parallel(par),
        &mut outs[0],
        &offsets[0]
    ));
    assert!(group.eval_gradients(
        &mut gws,
        &EvalInputs::new(&data, x, &[]).parallel(par),
        &mut outs[1],
        &offsets[1]
    ));
    assert!(group.eval_hessians(
        &mut gws,
        &EvalInputs::new(&data, x, &[]).parallel(par),
        MemberWeights {
            values: &weights,
            offsets: &w_offsets
        },
        &mut hess,
        3
    ));
    // the members' own weighted Hessians, summed in member order
    let mut want_hess: Vec<Option<f64>> = vec![None; n * summed.len()];
    // per entry: the sum of the terms' magnitudes (the scale of its rounding errors)
    let mut scale = vec![0.0f64; n * summed.len()];
    for (m, p) in interp.iter().enumerate() {
        let mut ws = p.workspace();
        let mut v = vec![0.0; n];
        p.eval_values(
            &mut ws,
            &EvalInputs::new(&data, x, &[]).parallel(par),
            &mut v,
        );
        let mut g = vec![0.0; n * p.nslots()];
        p.eval_gradients(
            &mut ws,
            &EvalInputs::new(&data, x, &[]).parallel(par),
            None,
            &mut g,
        );
        let mut h = vec![0.0; n * p.nhess()];
        let w = &weights[w_offsets[m]..w_offsets[m] + n];
        p.eval_hessians(
            &mut ws,
            &EvalInputs::new(&data, x, &[]).parallel(par),
            w,
            &mut h,
        );
        for k in 0..n {
            for (s, &e) in summed.entry_of[m].iter().enumerate() {
                let at = &mut want_hess[k * summed.len() + e as usize];
                let term = h[k * p.nhess() + s];
                *at = Some(at.map_or(term, |acc| acc + term));
                scale[k * summed.len() + e as usize] += term.abs();
            }
        }
        for (f, want) in [v, g].iter().enumerate() {
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
    assert_eq!(hess[..3], [-7.0; 3]);
    assert_eq!(hess[hess.len() - 2..], [-7.0; 2]);
    for (i, (&got, want)) in hess[3..].iter().zip(&want_hess).enumerate() {
        let want = want.expect("every entry of the summed block has a term");
        assert!(
            close(got, want, scale[i]) || (special && !(got.is_finite() && want.is_finite())),
            "Hessian entry {i}: group {got:e} vs {want:e} (terms' magnitudes {:e})",
            scale[i]
        );
    }
}

/// Whether the group's summed Hessian entry `got` (the weighted sum's Hessian in one
/// sweep) agrees with `want` (the members' weighted terms added up, whose magnitudes add
/// to `scale`): within `1e-14 · max(scale, 1)` where `want` is finite, non-finite where
/// it is not (not necessarily the same: where the members' terms are `+∞` and `-∞`, their
/// sum is NaN, while the one sweep may add their finite coefficients first and get ±∞).
fn close(got: f64, want: f64, scale: f64) -> bool {
    if want.is_finite() {
        (got - want).abs() <= 1e-14 * scale.max(1.0)
    } else {
        !got.is_finite()
    }
}

#[test]
fn summed_hessian_block_merges_equal_positions() {
    let exprs = members();
    let pats: Vec<Pattern<f64>> = exprs.iter().map(|e| Pattern::compile(e).unwrap()).collect();
    let refs: Vec<&Pattern<f64>> = pats.iter().collect();
    let summed = GroupHessian::of(&refs);
    // the members read x at columns 0..4 only: at most the 10 pairs of 4 positions
    assert_eq!(summed.len(), 10);
    let separate: usize = pats.iter().map(|p| p.nhess()).sum();
    assert!(separate > 20, "{separate}");
    // each entry names its first member's slot, and that member maps the slot to it
    for (e, &(m, a, b)) in summed.entries.iter().enumerate() {
        let h = pats[m]
            .hess_slots()
            .iter()
            .position(|&s| s == (a, b))
            .unwrap();
        assert_eq!(summed.entry_of[m][h] as usize, e);
        assert!(
            summed.entry_of[..m]
                .iter()
                .flatten()
                .all(|&o| o as usize != e)
        );
    }
    // the same position (by the references' global index) gives the same entry
    for (m, p) in pats.iter().enumerate() {
        for (h, &(a, b)) in p.hess_slots().iter().enumerate() {
            let e = summed.entry_of[m][h] as usize;
            let (fm, fa, fb) = summed.entries[e];
            let key = |p: &Pattern<f64>, a: u32, b: u32| {
                let mut k = [
                    p.slots()[a as usize].global.clone(),
                    p.slots()[b as usize].global.clone(),
                ];
                k.sort();
                k
            };
            assert_eq!(key(p, a, b), key(&pats[fm], fa, fb));
        }
    }
}

#[test]
fn group_matches_members() {
    let x: Vec<f64> = (0..12)
        .map(|i| 0.9 + 0.07 * i as f64 - 0.3 * (i % 3) as f64)
        .collect();
    for n in [1, 3, 4, 5, 17] {
        check(&x, n, Parallelism::Sequential, false);
    }
    check(&x, 1000, Parallelism::rayon_batches(64), false);
}

/// Columns that count up by one (a chain of `n` branches over `n + 1` buses: vm at
/// `x[k]`, `x[k + 1]`, va at `x[n + 1 + k]`, `x[n + 2 + k]`): the group's code loads two
/// points' `x` entries at once ([`IndexBounds::counting_columns`]), bitwise the members'.
#[test]
fn group_matches_members_with_counting_columns() {
    for (n, par) in [
        (5, Parallelism::Sequential),
        (37, Parallelism::Sequential),
        (203, Parallelism::rayon_batches(1)),
    ] {
        let k = || 0..n as i64;
        let shift = n as i64 + 1;
        let (_, _, _, _, c0, c1) = columns(n);
        let cols: Columns = (
            k().collect(),
            k().map(|k| k + 1).collect(),
            k().map(|k| k + shift).collect(),
            k().map(|k| k + 1 + shift).collect(),
            c0,
            c1,
        );
        let ints: [&[i64]; 4] = [&cols.0, &cols.1, &cols.2, &cols.3];
        let reals: [&[f64]; 2] = [&cols.4, &cols.5];
        let data = DataView::new(n, &reals, &ints);
        let pats: Vec<Pattern<f64>> = members()
            .iter()
            .map(|e| Pattern::compile(e).unwrap())
            .collect();
        let refs: Vec<&Pattern<f64>> = pats.iter().collect();
        let group = PatternGroup::compile(&refs).unwrap();
        assert_eq!(group.index_bounds(&data).unwrap().counting_columns, 0b1111);
        let x: Vec<f64> = (0..2 * n + 2)
            .map(|i| 0.9 + 0.07 * (i % 12) as f64 - 0.3 * (i % 3) as f64 + 1e-3 * i as f64)
            .collect();
        check_columns(&x, n, par, false, cols);
    }
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
        check(&x, 13, Parallelism::Sequential, true);
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
    let mut out = vec![-7.0; 16];
    // overlapping members, a member past the end, the wrong number of offsets
    for offsets in [&[0, 4][..], &[0, 9], &[0]] {
        assert!(!group.eval_values(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut out, offsets));
        assert!(out.iter().all(|&v| v == -7.0));
    }
    // a missing data column
    let short = DataView::new(8, &reals[..1], &ints);
    assert!(!group.eval_values(
        &mut ws,
        &EvalInputs::new(&short, &x, &[]),
        &mut out,
        &[0, 8]
    ));
    // weights outside their slice, a block past the end
    let w = [1.0; 8];
    let mut h = vec![-7.0; 8 * group.hessian().len() + 1];
    assert!(!group.eval_hessians(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        MemberWeights {
            values: &w,
            offsets: &[0, 1]
        },
        &mut h,
        0
    ));
    assert!(!group.eval_hessians(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        MemberWeights {
            values: &w,
            offsets: &[0, 0]
        },
        &mut h,
        2
    ));
    assert!(!group.eval_hessians(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        MemberWeights {
            values: &w,
            offsets: &[0]
        },
        &mut h,
        0
    ));
    assert!(h.iter().all(|&v| v == -7.0));
    assert!(group.eval_hessians(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        MemberWeights {
            values: &w,
            offsets: &[0, 0]
        },
        &mut h,
        1
    ));
    assert_eq!(h[0], -7.0);
    assert!(group.eval_values(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut out, &[0, 8]));
}

/// The group's value, gradient and Hessian loops read `x` at column positions without a
/// per-point check: their range is the largest position read plus one (va of bus 5 is
/// `x[11]`); with `x` one shorter they decline, through the safe and the bounded entry points, and write
/// nothing; so do negative positions.
#[test]
fn a_short_x_declines_and_writes_nothing() {
    let n = 8;
    let (f, t, fa, ta, c0, c1) = columns(n);
    let ints: [&[i64]; 4] = [&f, &t, &fa, &ta];
    let reals: [&[f64]; 2] = [&c0, &c1];
    let data = DataView::new(n, &reals, &ints);
    let pats: Vec<Pattern<f64>> = members()
        .iter()
        .map(|e| Pattern::compile(e).unwrap())
        .collect();
    let refs: Vec<&Pattern<f64>> = pats.iter().collect();
    let group = PatternGroup::compile(&refs).unwrap();
    let bounds = group.index_bounds(&data).unwrap();
    assert_eq!(
        bounds,
        IndexBounds {
            x_len: 12,
            theta_len: 0,
            counting_columns: 0,
        }
    );
    let mut ws = group.workspace();
    let x = [1.0; 12];
    let values: Vec<usize> = (0..refs.len()).map(|m| m * n).collect();
    let grads: Vec<usize> = refs
        .iter()
        .scan(0, |at, p| {
            let o = *at;
            *at += n * p.nslots();
            Some(o)
        })
        .collect();
    let glen: usize = refs.iter().map(|p| n * p.nslots()).sum();
    let (mut out, mut g) = (vec![-7.0; refs.len() * n], vec![-7.0; glen]);
    let full = EvalInputs::new(&data, &x, &[]);
    assert!(group.eval_values(&mut ws, &full, &mut out, &values));
    assert!(group.eval_gradients(&mut ws, &full, &mut g, &grads));
    assert!(out.iter().chain(&g).all(|v| v.is_finite()));
    let (mut out, mut g) = (vec![-7.0; refs.len() * n], vec![-7.0; glen]);
    let short = EvalInputs::new(&data, &x[..11], &[]);
    assert!(!group.eval_values(&mut ws, &short, &mut out, &values));
    assert!(!group.eval_gradients(&mut ws, &short, &mut g, &grads));
    // SAFETY: `bounds` is `index_bounds` of this group over this very `data`.
    unsafe {
        assert!(!group.eval_values_bounded(&mut ws, &short, &bounds, &mut out, &values));
        assert!(!group.eval_gradients_bounded(&mut ws, &short, &bounds, &mut g, &grads));
    }
    assert!(out.iter().chain(&g).all(|&v| v == -7.0));
    // the summed Hessian block too
    let w = vec![1.0; n * refs.len()];
    let w_offsets: Vec<usize> = (0..refs.len()).map(|m| m * n).collect();
    let mut h = vec![-7.0; n * group.hessian().len()];
    assert!(group.eval_hessians(
        &mut ws,
        &full,
        MemberWeights {
            values: &w,
            offsets: &w_offsets
        },
        &mut h,
        0
    ));
    assert!(h.iter().all(|v| v.is_finite()));
    let mut h = vec![-7.0; n * group.hessian().len()];
    assert!(!group.eval_hessians(
        &mut ws,
        &short,
        MemberWeights {
            values: &w,
            offsets: &w_offsets
        },
        &mut h,
        0
    ));
    // SAFETY: as above.
    let summed = unsafe {
        group.eval_hessians_bounded(
            &mut ws,
            &short,
            &bounds,
            MemberWeights {
                values: &w,
                offsets: &w_offsets,
            },
            &mut h,
            0,
        )
    };
    assert!(!summed);
    assert!(h.iter().all(|&v| v == -7.0));
    let neg: Vec<i64> = f.iter().map(|v| v - 1).collect();
    let neg_ints: [&[i64]; 4] = [&neg, &t, &fa, &ta];
    let neg_data = DataView::new(n, &reals, &neg_ints);
    assert_eq!(group.index_bounds(&neg_data), None);
    let neg_inputs = EvalInputs::new(&neg_data, &x, &[]);
    assert!(!group.eval_values(&mut ws, &neg_inputs, &mut out, &values));
    assert!(!group.eval_gradients(&mut ws, &neg_inputs, &mut g, &grads));
    assert!(out.iter().chain(&g).all(|&v| v == -7.0));
}
