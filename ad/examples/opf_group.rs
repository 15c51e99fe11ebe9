//! Times the summed Hessian of the AC OPF's branch group (the four flow patterns and the
//! angle difference over the same branches, as `simdnlp-bench`'s pattern OPF writes them)
//! against a hand-written loop over the branches that sums the four flows' second
//! derivatives into 10 entries per branch, best of many short trials (for quick tuning on a
//! busy machine). `-v` prints the members' Hessian programs.
use simdnlp_ad::*;
use std::time::Instant;

fn best(mut f: impl FnMut()) -> f64 {
    let mut b = f64::MAX;
    for _ in 0..60 {
        let t = Instant::now();
        for _ in 0..5 {
            f();
        }
        b = b.min(t.elapsed().as_secs_f64() / 5.0);
    }
    b * 1e6
}

fn main() {
    let nb = 10_000usize;
    let nl = 16_000usize;
    // x: va (nb), vm (nb), p (2 nl), q (2 nl)
    let (va0, vm0, p0, q0) = (0i64, nb as i64, 2 * nb as i64, (2 * nb + 2 * nl) as i64);
    // integer columns: l, lt, f, t; real columns c1..c8
    let var = |block: u32, col: u32, off: i64| {
        let i = Index::field(col);
        Expr::var(VarRef::new(block, vec![i.clone()], &i + off))
    };
    let c = |k: u32| Expr::data(k - 1);
    let (vf, vt) = (var(1, 2, vm0), var(1, 3, vm0));
    let th = var(0, 2, va0) - var(0, 3, va0);
    let vv = &vf * &vt;
    let (cos, sin) = (th.cos(), th.sin());
    let members = if std::env::args().any(|a| a == "--factored") {
        // the flows as vm_f·vm_t·(α cos θ + β sin θ), as the hand-coded model writes them
        [
            var(2, 0, p0) - c(5) * vf.powi(2) - &vv * (c(3) * &cos + c(4) * &sin),
            var(3, 0, q0) + c(6) * vf.powi(2) + &vv * (c(4) * &cos - c(3) * &sin),
            var(2, 1, p0) - c(7) * vt.powi(2) - &vv * (c(1) * &cos - c(2) * &sin),
            var(3, 1, q0) + c(8) * vt.powi(2) + &vv * (c(2) * &cos + c(1) * &sin),
            var(0, 2, va0) - var(0, 3, va0),
        ]
    } else {
        [
            var(2, 0, p0) - c(5) * vf.powi(2) - c(3) * (&vv * &cos) - c(4) * (&vv * &sin),
            var(3, 0, q0) + c(6) * vf.powi(2) + c(4) * (&vv * &cos) - c(3) * (&vv * &sin),
            var(2, 1, p0) - c(7) * vt.powi(2) - c(1) * (&vv * &cos) + c(2) * (&vv * &sin),
            var(3, 1, q0) + c(8) * vt.powi(2) + c(2) * (&vv * &cos) + c(1) * (&vv * &sin),
            var(0, 2, va0) - var(0, 3, va0),
        ]
    };
    let pats: Vec<Pattern<f64>> = members
        .iter()
        .map(|e| Pattern::compile(e).unwrap())
        .collect();
    if std::env::args().any(|a| a == "-v") {
        for p in &pats {
            println!("{}", p.listing());
        }
    }
    let refs: Vec<&Pattern<f64>> = pats.iter().collect();
    let group = PatternGroup::compile(&refs).expect("group code");
    println!(
        "group: {} entries per branch, compiled in {:?}",
        group.hessian().len(),
        group.compile_time()
    );
    let l: Vec<i64> = (0..nl as i64).collect();
    let lt: Vec<i64> = (0..nl as i64).map(|k| k + nl as i64).collect();
    let f: Vec<i64> = (0..nl as i64).map(|k| (k * 7919) % nb as i64).collect();
    let t: Vec<i64> = (0..nl as i64)
        .map(|k| (k * 104_729 + 13) % nb as i64)
        .collect();
    let coef: Vec<Vec<f64>> = (0..8)
        .map(|j| {
            (0..nl)
                .map(|k| ((k * 31 + j * 17) % 101) as f64 * 0.37 - 15.0)
                .collect()
        })
        .collect();
    let ints: [&[i64]; 4] = [&l, &lt, &f, &t];
    let reals: Vec<&[f64]> = coef.iter().map(|v| v.as_slice()).collect();
    let data = DataView::new(nl, &reals, &ints);
    let nx = 2 * nb + 4 * nl;
    let x: Vec<f64> = (0..nx)
        .map(|k| 0.9 + 0.2 * ((k as f64) * 0.37).sin())
        .collect();
    let y: Vec<f64> = (0..5 * nl)
        .map(|k| 0.5 + 0.25 * ((k as f64) * 0.11).cos())
        .collect();
    let w_offsets: Vec<usize> = (0..5).map(|m| m * nl).collect();
    let mut ws = group.workspace();
    let mut h = vec![0.0; nl * group.hessian().len()];
    let ours = best(|| {
        assert!(group.eval_hessians(
            &mut ws,
            &EvalInputs::new(&data, &x, &[]),
            MemberWeights {
                values: &y,
                offsets: &w_offsets
            },
            &mut h,
            0
        ));
    });
    let mut hh = vec![0.0; nl * 10];
    let hand = best(|| {
        for k in 0..nl {
            let (i, j) = (f[k] as usize, t[k] as usize);
            let (vf, vt) = (x[nb + i], x[nb + j]);
            let (s, c) = (x[i] - x[j]).sin_cos();
            let vv = vf * vt;
            let cc = |j: usize| coef[j - 1][k];
            let coefs = [
                (-cc(5), -cc(3), -cc(4)),
                (cc(6), cc(4), -cc(3)),
                (-cc(7), -cc(1), -cc(2)),
                (cc(8), cc(2), -cc(1)),
            ];
            let mut e = [0.0f64; 10];
            for (r, &(a, al, be)) in coefs.iter().enumerate() {
                let w = y[r * nl + k];
                let (vi_l, vj_l, ai_l, aj_l, vi, vj, si) = if r < 2 {
                    (2, 3, 0, 1, vf, vt, s)
                } else {
                    (3, 2, 1, 0, vt, vf, -s)
                };
                let slot = |a: usize, b: usize| {
                    if a >= b {
                        a * (a + 1) / 2 + b
                    } else {
                        b * (b + 1) / 2 + a
                    }
                };
                let g = al * c + be * si;
                let gp = -al * si + be * c;
                e[slot(vi_l, vi_l)] += w * 2.0 * a;
                e[slot(vi_l, vj_l)] += w * g;
                e[slot(vi_l, ai_l)] += w * vj * gp;
                e[slot(vi_l, aj_l)] -= w * vj * gp;
                e[slot(vj_l, ai_l)] += w * vi * gp;
                e[slot(vj_l, aj_l)] -= w * vi * gp;
                e[slot(ai_l, ai_l)] -= w * vv * g;
                e[slot(aj_l, aj_l)] -= w * vv * g;
                e[slot(ai_l, aj_l)] += w * vv * g;
            }
            hh[k * 10..k * 10 + 10].copy_from_slice(&e);
        }
        std::hint::black_box(&mut hh);
    });
    println!(
        "µs: group hessian {ours:.1} / hand {hand:.1} = {:.2}x",
        ours / hand
    );
}
