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
    if std::env::args().any(|a| a == "--modes") {
        modes();
        return;
    }
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
    let tv = best(|| p.eval_values(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut v));
    let tg = best(|| p.eval_gradients(&mut ws, &EvalInputs::new(&data, &x, &[]), None, &mut g));
    let th = best(|| p.eval_hessians(&mut ws, &EvalInputs::new(&data, &x, &[]), &w, &mut h));
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

/// Reverse-over-reverse vs forward-over-reverse on an AC power-flow branch pattern
/// (`p_ij = g v_i² - v_i v_j (g cos(θ_i - θ_j) + b sin(θ_i - θ_j))`, 4 variables, data
/// g, b) and a 6-variable product/transcendental pattern: compile time, Hessian program
/// size and Hessian callback time over 200 000 points.
#[allow(dead_code)]
pub fn modes() {
    let i = Index::field(0);
    let j = Index::field(1);
    let v = |ix: &Index| Expr::var(VarRef::new(0, vec![ix.clone()], ix.clone()));
    let th = |ix: &Index| Expr::var(VarRef::new(1, vec![ix.clone()], ix + 1_000_000));
    let (g, b) = (Expr::data(0), Expr::data(1));
    let dt = th(&i) - th(&j);
    let flow = &g * v(&i).powi(2) - v(&i) * v(&j) * (&g * dt.cos() + &b * dt.sin());
    let z = |k: i64| v(&(&i + k));
    let prodlike = (z(0) * z(1) * z(2)).exp()
        + (z(3) / (1 + z(4).abs2())).atan() * z(5).sin()
        + z(0).hypot(z(5));
    let n = 200_000usize;
    let x: Vec<f64> = (0..2_000_100)
        .map(|k| 0.9 + 0.2 * ((k as f64) * 0.37).sin())
        .collect();
    let ii: Vec<i64> = (0..n as i64).map(|k| (k * 3) % 1_000_000).collect();
    let jj: Vec<i64> = (0..n as i64).map(|k| (k * 3 + 7) % 1_000_000).collect();
    let gg: Vec<f64> = (0..n).map(|k| 1.0 + (k % 5) as f64).collect();
    let bb: Vec<f64> = (0..n).map(|k| -3.0 + (k % 3) as f64).collect();
    let icols: [&[i64]; 2] = [&ii, &jj];
    let rcols: [&[f64]; 2] = [&gg, &bb];
    let data = DataView::new(n, &rcols, &icols);
    let w = vec![1.0; n];
    for (name, e) in [("branch flow", &flow), ("6-var mix", &prodlike)] {
        for mode in [
            SecondOrder::ReverseOverReverse,
            SecondOrder::ForwardOverReverse,
        ] {
            let t0 = Instant::now();
            let p = Pattern::<f64>::compile_with(e, mode).unwrap();
            let ct = t0.elapsed();
            let mut ws = p.workspace();
            let mut h = vec![0.0; n * p.nhess()];
            let th =
                best(|| p.eval_hessians(&mut ws, &EvalInputs::new(&data, &x, &[]), &w, &mut h));
            let st = p.stats()[2];
            println!(
                "{name:12} {mode:?}: compile {:.0} µs, hessian {} nnz, {} instrs ({} nodes, {} regs), {:.0} µs/200k",
                ct.as_secs_f64() * 1e6,
                p.nhess(),
                st.instructions,
                st.nodes,
                st.registers,
                th
            );
        }
    }
}
