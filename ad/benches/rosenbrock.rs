//! Rosenbrock objective pattern `100*(x[i-1]^2 - x[i])^2 + (x[i-1] - 1)^2` over N = 200 000
//! data points: value, gradient and Hessian callbacks of the batch interpreter against
//! hand-written Rust loops computing the same quantities into the same layout.
//!
//! Run: `cargo bench -p simdnlp-ad --bench rosenbrock -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use simdnlp_ad::*;
use std::time::Instant;

const N: usize = 200_000;

fn rosenbrock() -> Expr {
    let i = Index::field(0);
    let xm = Expr::var(VarRef::new(0, vec![&i - 1], &i - 1));
    let xi = Expr::var(VarRef::new(0, vec![i.clone()], i.clone()));
    100 * (xm.powi(2) - &xi).powi(2) + (&xm - 1).powi(2)
}

fn hand_values(x: &[f64], out: &mut [f64]) {
    for (k, o) in out.iter_mut().enumerate() {
        let (a, b) = (x[k], x[k + 1]);
        let t = a * a - b;
        *o = 100.0 * (t * t) + (a - 1.0) * (a - 1.0);
    }
}

fn hand_gradients(x: &[f64], out: &mut [f64]) {
    for (k, o) in out.chunks_exact_mut(2).enumerate() {
        let (a, b) = (x[k], x[k + 1]);
        let t = a * a - b;
        o[0] = 400.0 * t * a + 2.0 * (a - 1.0);
        o[1] = -200.0 * t;
    }
}

fn hand_hessians(x: &[f64], w: &[f64], out: &mut [f64]) {
    for (k, o) in out.chunks_exact_mut(3).enumerate() {
        let (a, b) = (x[k], x[k + 1]);
        o[0] = w[k] * (1200.0 * a * a - 400.0 * b + 2.0);
        o[1] = w[k] * (-400.0 * a);
        o[2] = w[k] * 200.0;
    }
}

fn bench(c: &mut Criterion) {
    let t0 = Instant::now();
    let e = rosenbrock();
    let p = Pattern::<f64>::compile(&e).unwrap();
    let build = t0.elapsed();
    eprintln!(
        "rosenbrock pattern build + compile: {:.1} µs",
        build.as_secs_f64() * 1e6
    );
    for (name, st) in ["value", "gradient", "hessian"].iter().zip(p.stats()) {
        eprintln!("  {name} program: {st:?}");
    }
    let x: Vec<f64> = (0..=N)
        .map(|k| 1.0 + 0.5 * ((k as f64) * 0.001).sin())
        .collect();
    let idx: Vec<i64> = (1..=N as i64).collect();
    let cols: [&[i64]; 1] = [&idx];
    let data = DataView::new(N, &[], &cols);
    let w: Vec<f64> = (0..N).map(|k| 1.0 + (k % 7) as f64).collect();
    let mut ws = p.workspace();
    let mut v = vec![0.0; N];
    let mut g = vec![0.0; 2 * N];
    let mut h = vec![0.0; 3 * N];

    let mut grp = c.benchmark_group("rosenbrock_200k");
    grp.bench_function("value/interpreter", |b| {
        b.iter(|| p.eval_values(&mut ws, &EvalInputs::new(&data, black_box(&x), &[]), &mut v))
    });
    grp.bench_function("value/hand", |b| {
        b.iter(|| hand_values(black_box(&x), &mut v))
    });
    grp.bench_function("gradient/interpreter", |b| {
        b.iter(|| {
            p.eval_gradients(
                &mut ws,
                &EvalInputs::new(&data, black_box(&x), &[]),
                None,
                &mut g,
            )
        })
    });
    grp.bench_function("gradient/hand", |b| {
        b.iter(|| hand_gradients(black_box(&x), &mut g))
    });
    grp.bench_function("hessian/interpreter", |b| {
        b.iter(|| {
            p.eval_hessians(
                &mut ws,
                &EvalInputs::new(&data, black_box(&x), &[]),
                &w,
                &mut h,
            )
        })
    });
    grp.bench_function("hessian/hand", |b| {
        b.iter(|| hand_hessians(black_box(&x), &w, &mut h))
    });
    grp.bench_function("hessian/interpreter-rayon", |b| {
        b.iter(|| {
            p.eval_hessians(
                &mut ws,
                &EvalInputs::new(&data, black_box(&x), &[])
                    .parallel(Parallelism::rayon_batches(16_384)),
                &w,
                &mut h,
            )
        })
    });
    grp.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
