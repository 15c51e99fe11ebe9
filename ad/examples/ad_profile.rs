//! Times the Rosenbrock programs without criterion (best of many short trials, for quick
//! tuning on a busy machine) and prints them.
use simdnlp_ad::*;
use std::time::Instant;

fn best(mut f: impl FnMut()) -> f64 {
    let mut b = f64::MAX;
    for _ in 0..40 {
        let t = Instant::now();
        for _ in 0..5 {
            f();
        }
        b = b.min(t.elapsed().as_secs_f64() / 5.0);
    }
    b * 1e6
}

fn main() {
    let i = Index::field(0);
    let xm = Expr::var(VarRef::new(0, vec![&i - 1], &i - 1));
    let xi = Expr::var(VarRef::new(0, vec![i.clone()], i.clone()));
    let e = 100 * (xm.powi(2) - &xi).powi(2) + (&xm - 1).powi(2);
    let t0 = Instant::now();
    let p = Pattern::<f64>::compile(&e).unwrap();
    println!("compile {:?}", t0.elapsed());
    if std::env::args().any(|a| a == "-v") {
        println!("{}", p.listing());
    }
    let n = 200_000;
    let x: Vec<f64> = (0..=n)
        .map(|k| 1.0 + 0.5 * ((k as f64) * 0.001).sin())
        .collect();
    let idx: Vec<i64> = (1..=n as i64).collect();
    let cols: [&[i64]; 1] = [&idx];
    let data = DataView::new(n, &[], &cols);
    let w = vec![1.0; n];
    let mut ws = p.workspace();
    let mut v = vec![0.0; n];
    let mut g = vec![0.0; 2 * n];
    let mut h = vec![0.0; 3 * n];
    let tv = best(|| p.eval_values(&mut ws, &data, &x, &[], &mut v));
    let tg = best(|| p.eval_gradients(&mut ws, &data, &x, &[], None, &mut g));
    let th = best(|| p.eval_hessians(&mut ws, &data, &x, &[], &w, &mut h));
    let hv = best(|| {
        for (k, o) in v.iter_mut().enumerate() {
            let (a, b) = (x[k], x[k + 1]);
            let t = a * a - b;
            *o = 100.0 * (t * t) + (a - 1.0) * (a - 1.0);
        }
        std::hint::black_box(&mut v);
    });
    let hg = best(|| {
        for (k, o) in g.chunks_exact_mut(2).enumerate() {
            let (a, b) = (x[k], x[k + 1]);
            let t = a * a - b;
            o[0] = 400.0 * t * a + 2.0 * (a - 1.0);
            o[1] = -200.0 * t;
        }
        std::hint::black_box(&mut g);
    });
    let hh = best(|| {
        for (k, o) in h.chunks_exact_mut(3).enumerate() {
            let (a, b) = (x[k], x[k + 1]);
            o[0] = w[k] * (1200.0 * a * a - 400.0 * b + 2.0);
            o[1] = w[k] * (-400.0 * a);
            o[2] = w[k] * 200.0;
        }
        std::hint::black_box(&mut h);
    });
    println!("µs: value {tv:.0} / hand {hv:.0} = {:.2}x", tv / hv);
    println!("µs: grad  {tg:.0} / hand {hg:.0} = {:.2}x", tg / hg);
    println!("µs: hess  {th:.0} / hand {hh:.0} = {:.2}x", th / hh);
}
