//! Build and callback times of the Rosenbrock model (ExaModels paper eq. 4.1), sequential
//! and with rayon.
//!
//! Run: `cargo run --release -p simdnlp-modeling --example bench_rosenbrock -- 1000000`
//! (set `RAYON_NUM_THREADS=2` to fix the thread count).

use simdnlp_modeling::{Model, ModelBuilder, NlpModel, Parallelism};
use std::time::{Duration, Instant};

fn build(n: usize, par: Parallelism) -> (Model, Duration) {
    let t = Instant::now();
    let mut m = ModelBuilder::new();
    m.set_threads(par);
    let x = m
        .var(1..=n)
        .start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 });
    m.minimize(2..=n, |i| {
        100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2)
    });
    let model = m.build().expect("valid model");
    (model, t.elapsed())
}

/// Best of `reps` runs of `f`, after one warm-up.
fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    println!(
        "Rosenbrock N = {n}, rayon threads = {}",
        rayon::current_num_threads()
    );
    for size in [n / 10, n] {
        let (_, t) = build(size, Parallelism::Sequential);
        println!("  build N = {size:>9}: {:>8.1} ms", t.as_secs_f64() * 1e3);
    }
    let mut base = [Duration::ZERO; 3];
    for (k, par) in [Parallelism::Sequential, Parallelism::rayon_batches(4096)]
        .into_iter()
        .enumerate()
    {
        let (model, _) = build(n, par);
        let x = model.meta().x0.clone();
        let mut g = vec![0.0; n];
        let mut h = vec![0.0; model.meta().nnzh];
        let t_obj = best(10, || {
            std::hint::black_box(model.obj(&x));
        });
        let t_grad = best(10, || model.grad(&x, &mut g));
        let t_hess = best(10, || model.hess_coord(&x, &[], 1.0, &mut h));
        let ts = [t_obj, t_grad, t_hess];
        if k == 0 {
            base = ts;
        }
        let name = if k == 0 { "sequential" } else { "rayon" };
        print!("  {name:<10}");
        for (lbl, (t, b)) in ["obj", "grad", "hess"].iter().zip(ts.iter().zip(base)) {
            print!(
                "  {lbl} {:>7.2} ms (×{:.2})",
                t.as_secs_f64() * 1e3,
                b.as_secs_f64() / t.as_secs_f64()
            );
        }
        println!();
    }
}
