#![allow(clippy::type_complexity, clippy::needless_range_loop)]
//! Every registered function's first and second derivatives against high-order finite
//! differences on many points of its domain.

use simdnlp_ad::*;

fn var(k: i64) -> Expr {
    Expr::var(VarRef::new(0, vec![Index::Const(k)], Index::Const(k)))
}

/// (value, gradient, full Hessian) of a pattern over two variables `x[0], x[1]` at `x`.
fn evaluate(p: &Pattern<f64>, x: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let data = DataView::empty(1);
    let mut ws = p.workspace();
    let mut v = [0.0];
    p.eval_values(&mut ws, &EvalInputs::new(&data, x, &[]), &mut v);
    let mut g = vec![0.0; p.nslots()];
    let mut v2 = [0.0];
    p.eval_gradients(
        &mut ws,
        &EvalInputs::new(&data, x, &[]),
        Some(&mut v2),
        &mut g,
    );
    assert_eq!(
        v[0].to_bits(),
        v2[0].to_bits(),
        "value differs between value and gradient programs"
    );
    let mut h = vec![0.0; p.nhess()];
    p.eval_hessians(&mut ws, &EvalInputs::new(&data, x, &[]), &[1.0], &mut h);
    let mut globals = vec![0usize; p.nslots()];
    p.slot_globals(&data, 0, &mut globals);
    let n = x.len();
    let mut gd = vec![0.0; n];
    for (s, &gi) in globals.iter().enumerate() {
        gd[gi] += g[s];
    }
    let mut hd = vec![vec![0.0; n]; n];
    for (j, &(a, b)) in p.hess_slots().iter().enumerate() {
        let (ga, gb) = (globals[a as usize], globals[b as usize]);
        if ga == gb && a != b {
            hd[ga][ga] += 2.0 * h[j];
        } else {
            hd[ga][gb] += h[j];
            if ga != gb {
                hd[gb][ga] += h[j];
            }
        }
    }
    (v[0], gd, hd)
}

/// Sixth-order central difference of `f` at `x` with step `h`.
fn fd(f: &dyn Fn(f64) -> f64, x: f64, h: f64) -> f64 {
    (-f(x - 3.0 * h) + 9.0 * f(x - 2.0 * h) - 45.0 * f(x - h) + 45.0 * f(x + h)
        - 9.0 * f(x + 2.0 * h)
        + f(x + 3.0 * h))
        / (60.0 * h)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn domain(u: Un) -> Vec<f64> {
    let lin = |lo: f64, hi: f64, n: usize| -> Vec<f64> {
        (0..n)
            .map(|k| lo + (hi - lo) * (k as f64 + 0.37) / n as f64)
            .collect()
    };
    match u {
        Un::Log | Un::Log2 | Un::Log10 | Un::Sqrt => lin(0.1, 6.0, 25),
        Un::Log1p => lin(-0.8, 5.0, 25),
        Un::Acosh => lin(1.2, 6.0, 25),
        Un::Atanh | Un::Asin | Un::Acos => lin(-0.85, 0.85, 25),
        Un::Acoth => [lin(-4.0, -1.2, 12), lin(1.2, 4.0, 12)].concat(),
        Un::Tan => lin(-1.3, 1.3, 25),
        Un::Csc | Un::Cot => [lin(-3.0, -0.2, 12), lin(0.2, 3.0, 12)].concat(),
        Un::Coth | Un::Csch | Un::Inv | Un::Cbrt | Un::Acot | Un::Acotd => {
            [lin(-3.0, -0.2, 12), lin(0.2, 3.0, 12)].concat()
        }
        Un::Sind | Un::Cosd => lin(-300.0, 300.0, 25),
        Un::Secd => lin(-80.0, 80.0, 25),
        Un::Tand => lin(-80.0, 80.0, 25),
        Un::Cscd | Un::Cotd => [lin(-170.0, -10.0, 12), lin(10.0, 170.0, 12)].concat(),
        Un::Sec => lin(-1.4, 1.4, 25),
        Un::Sinc => [lin(-3.0, 3.0, 25), vec![0.0, 0.05, -0.15, 0.19, 0.21]].concat(),
        Un::Floor | Un::Ceil | Un::Sign | Un::Abs => lin(-2.9, 2.9, 25),
        Un::Gamma | Un::Lgamma | Un::Digamma => lin(0.3, 6.0, 25),
        Un::Exp | Un::Exp2 | Un::Exp10 | Un::Expm1 => lin(-3.0, 3.0, 25),
        _ => lin(-2.5, 2.5, 25),
    }
}

#[test]
fn every_univariate_function() {
    let x0 = var(0);
    let mut count = 0;
    for &u in Un::ALL {
        if u.internal() || !u.available() {
            continue;
        }
        count += 1;
        let e = x0.apply(u);
        let p = Pattern::<f64>::compile(&e).unwrap();
        let f = |v: f64| u.eval(v);
        for x in domain(u) {
            let h = 1e-3 * (1.0 + x.abs()).min(3.0);
            let (val, g, hm) = evaluate(&p, &[x]);
            assert!(
                close(val, f(x), 1e-15),
                "{}({x}) = {val} vs {}",
                u.name(),
                f(x)
            );
            let d1 = fd(&f, x, h);
            let gg = g[0];
            assert!(close(gg, d1, 1e-8), "{}'({x}) = {gg} vs FD {d1}", u.name());
            let grad = |v: f64| evaluate(&p, &[v]).1[0];
            let d2 = fd(&grad, x, h);
            assert!(
                close(hm[0][0], d2, 1e-8),
                "{}''({x}) = {} vs FD {d2}",
                u.name(),
                hm[0][0]
            );
            // second difference of the value, lower order, looser
            let d2f = (f(x + h) - 2.0 * f(x) + f(x - h)) / (h * h);
            assert!(
                close(hm[0][0], d2f, 1e-3),
                "{}''({x}) = {} vs FD2 {d2f}",
                u.name(),
                hm[0][0]
            );
        }
    }
    assert!(count >= 49, "only {count} functions tested");
}

#[test]
fn unary_minus_and_plus() {
    let x0 = var(0);
    let p = Pattern::<f64>::compile(&(-(-(-&x0)) * 3.0)).unwrap();
    let (v, g, h) = evaluate(&p, &[2.0]);
    assert_eq!((v, g[0]), (-6.0, -3.0));
    assert!(p.hess_slots().is_empty());
    assert_eq!(h[0][0], 0.0);
}

#[test]
fn every_bivariate_function() {
    let (a, b) = (var(0), var(1));
    type Mk = fn(&Expr, &Expr) -> Expr;
    let cases: Vec<(
        &str,
        Mk,
        Box<dyn Fn(f64, f64) -> f64>,
        (f64, f64),
        (f64, f64),
    )> = vec![
        (
            "+",
            |a, b| a + b,
            Box::new(|a, b| a + b),
            (-2.0, 2.0),
            (-2.0, 2.0),
        ),
        (
            "-",
            |a, b| a - b,
            Box::new(|a, b| a - b),
            (-2.0, 2.0),
            (-2.0, 2.0),
        ),
        (
            "*",
            |a, b| a * b,
            Box::new(|a, b| a * b),
            (-2.0, 2.0),
            (-2.0, 2.0),
        ),
        (
            "/",
            |a, b| a / b,
            Box::new(|a, b| a / b),
            (-2.0, 2.0),
            (0.3, 3.0),
        ),
        (
            "^",
            |a, b| a.pow(b),
            Box::new(|a: f64, b| a.powf(b)),
            (0.2, 3.0),
            (-2.0, 2.5),
        ),
        (
            "atan2",
            |a, b| a.atan2(b),
            Box::new(|a: f64, b| a.atan2(b)),
            (-2.0, 2.0),
            (0.2, 2.0),
        ),
        (
            "hypot",
            |a, b| a.hypot(b),
            Box::new(|a: f64, b| a.hypot(b)),
            (-2.0, 2.0),
            (0.2, 2.0),
        ),
        (
            "max",
            |a, b| a.max(b),
            Box::new(|a: f64, b| a.max(b)),
            (-2.0, 2.0),
            (-1.9, 2.1),
        ),
        (
            "min",
            |a, b| a.min(b),
            Box::new(|a: f64, b| a.min(b)),
            (-2.0, 2.0),
            (-1.9, 2.1),
        ),
    ];
    for (name, mk, f, (alo, ahi), (blo, bhi)) in cases {
        let p = Pattern::<f64>::compile(&mk(&a, &b)).unwrap();
        for i in 0..7 {
            for j in 0..7 {
                let xa = alo + (ahi - alo) * (i as f64 + 0.31) / 7.0;
                let xb = blo + (bhi - blo) * (j as f64 + 0.43) / 7.0;
                if (name == "max" || name == "min") && (xa - xb).abs() < 0.05 {
                    continue;
                }
                let (v, g, hm) = evaluate(&p, &[xa, xb]);
                assert!(close(v, f(xa, xb), 1e-15), "{name}({xa},{xb})");
                let h = 1e-3;
                let da = fd(&|t| f(t, xb), xa, h * (1.0 + xa.abs()));
                let db = fd(&|t| f(xa, t), xb, h * (1.0 + xb.abs()));
                assert!(
                    close(g[0], da, 1e-8),
                    "{name}_a({xa},{xb}) = {} vs {da}",
                    g[0]
                );
                assert!(
                    close(g[1], db, 1e-8),
                    "{name}_b({xa},{xb}) = {} vs {db}",
                    g[1]
                );
                for r in 0..2 {
                    let gr_a = |t: f64| evaluate(&p, &[t, xb]).1[r];
                    let gr_b = |t: f64| evaluate(&p, &[xa, t]).1[r];
                    let dra = fd(&gr_a, xa, h * (1.0 + xa.abs()));
                    let drb = fd(&gr_b, xb, h * (1.0 + xb.abs()));
                    assert!(
                        close(hm[r][0], dra, 1e-8),
                        "{name} H[{r}][0] at ({xa},{xb}): {} vs {dra}",
                        hm[r][0]
                    );
                    assert!(
                        close(hm[r][1], drb, 1e-8),
                        "{name} H[{r}][1] at ({xa},{xb}): {} vs {drb}",
                        hm[r][1]
                    );
                }
            }
        }
    }
}

#[test]
fn powers_integer_and_real() {
    let x = var(0);
    for n in [-3, -2, 3, 4, 7] {
        let p = Pattern::<f64>::compile(&x.powi(n)).unwrap();
        for xv in [0.4, 1.3, 2.2, -0.7] {
            let (v, g, h) = evaluate(&p, &[xv]);
            let nf = n as f64;
            assert!(close(v, xv.powi(n), 1e-15));
            assert!(close(g[0], nf * xv.powi(n - 1), 1e-14));
            assert!(close(h[0][0], nf * (nf - 1.0) * xv.powi(n - 2), 1e-14));
        }
    }
    for pw in [0.5, 1.5, -0.3, 2.7, 3.0] {
        let p = Pattern::<f64>::compile(&x.powf(pw)).unwrap();
        for xv in [0.4, 1.3, 2.2] {
            let (v, g, h) = evaluate(&p, &[xv]);
            assert!(close(v, xv.powf(pw), 1e-15));
            assert!(close(g[0], pw * xv.powf(pw - 1.0), 1e-14));
            assert!(close(h[0][0], pw * (pw - 1.0) * xv.powf(pw - 2.0), 1e-14));
        }
    }
}

#[test]
fn user_functions() {
    let cube = UnaryFn::new("cube", |a| a * a * a, |a| 3.0 * a * a, |a| 6.0 * a);
    let k = 2.5;
    let scaled = UnaryFn::new_dyn(
        "scaled_exp",
        std::sync::Arc::new(move |a: f64| (k * a).exp()),
        std::sync::Arc::new(move |a: f64| k * (k * a).exp()),
        std::sync::Arc::new(move |a: f64| k * k * (k * a).exp()),
    );
    let prod = BinaryFn::new(
        "prod2",
        |a, b| a * a * b,
        [|a, b| 2.0 * a * b, |a, _| a * a],
        [|_, b| 2.0 * b, |a, _| 2.0 * a, |_, _| 0.0],
    );
    let (a, b) = (var(0), var(1));
    let e = cube.call(&a) + scaled.call(&b) + prod.call(&a, &(&b * 2));
    let p = Pattern::<f64>::compile(&e).unwrap();
    let (xa, xb) = (0.7, -0.4);
    let (v, g, h) = evaluate(&p, &[xa, xb]);
    let bb = 2.0 * xb;
    assert!(close(v, xa.powi(3) + (k * xb).exp() + xa * xa * bb, 1e-15));
    assert!(close(g[0], 3.0 * xa * xa + 2.0 * xa * bb, 1e-15));
    assert!(close(g[1], k * (k * xb).exp() + 2.0 * xa * xa, 1e-15));
    assert!(close(h[0][0], 6.0 * xa + 2.0 * bb, 1e-15));
    assert!(close(h[1][0], 4.0 * xa, 1e-15));
    assert!(close(h[1][1], k * k * (k * xb).exp(), 1e-15));
    assert_eq!(
        e.display(&DefaultNamer),
        "cube(x#0[0]) + scaled_exp(x#0[1]) + prod2(x#0[0], 2*x#0[1])"
    );
}

#[test]
fn f32_agrees_with_f64() {
    let (a, b) = (var(0), var(1));
    let e = (a.sin() * &b + (&a * 0.1).exp()).powi(2) / (1 + b.abs2());
    let p64 = Pattern::<f64>::compile(&e).unwrap();
    let p32 = Pattern::<f32>::compile(&e).unwrap();
    let data64 = DataView::<f64>::empty(1);
    let data32 = DataView::<f32>::empty(1);
    let mut g64 = vec![0.0f64; 2];
    let mut g32 = vec![0.0f32; 2];
    p64.eval_gradients(
        &mut p64.workspace(),
        &EvalInputs::new(&data64, &[0.3, 0.8], &[]),
        None,
        &mut g64,
    );
    p32.eval_gradients(
        &mut p32.workspace(),
        &EvalInputs::new(&data32, &[0.3, 0.8], &[]),
        None,
        &mut g32,
    );
    for s in 0..2 {
        assert!(
            close(g32[s] as f64, g64[s], 1e-5),
            "{} vs {}",
            g32[s],
            g64[s]
        );
    }
}

#[cfg(feature = "special")]
#[test]
fn special_function_values() {
    let x = var(0);
    let at = |e: Expr, v: f64| {
        let p = Pattern::<f64>::compile(&e).unwrap();
        evaluate(&p, &[v])
    };
    let pi = std::f64::consts::PI;
    assert!(close(at(x.gamma(), 0.5).0, pi.sqrt(), 1e-14));
    assert!(close(at(x.lgamma(), 10.0).0, 362880f64.ln(), 1e-14));
    // ψ(1) = -γ, ψ'(1) = π²/6, ψ''(1) = -2ζ(3)
    let (v, g, h) = at(x.digamma(), 1.0);
    assert!(close(v, -0.577_215_664_901_532_9, 1e-14));
    assert!(close(g[0], pi * pi / 6.0, 1e-13));
    assert!(close(h[0][0], -2.0 * 1.202_056_903_159_594_2, 1e-12));
    // negative arguments by reflection: ψ(-1/2) = 2 - γ - 2 ln 2; poles and -∞ are NaN;
    // a large negative argument is finite and does not recurse (it used to overflow the stack)
    assert!(close(
        at(x.digamma(), -0.5).0,
        2.0 - 0.577_215_664_901_532_9 - 2.0 * 2f64.ln(),
        1e-13
    ));
    assert!(at(x.digamma(), -3.0).0.is_nan());
    assert!(at(x.digamma(), f64::NEG_INFINITY).0.is_nan());
    assert!(at(x.digamma(), -1e10 - 0.5).0.is_finite());
    let (v, g, _) = at(x.erf(), 0.5);
    assert!(close(v, 0.520_499_877_813_046_5, 1e-14));
    assert!(close(g[0], 2.0 / pi.sqrt() * (-0.25f64).exp(), 1e-14));
    assert!(close(
        at(x.erfc(), 0.5).0,
        1.0 - 0.520_499_877_813_046_5,
        1e-14
    ));
}
