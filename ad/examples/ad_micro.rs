//! Micro-measurements of interpreter instruction costs (tuning aid).
use simdnlp_ad::*;
use std::time::Instant;

fn time(name: &str, e: &Expr) {
    let p = Pattern::<f64>::compile(e).unwrap();
    let n = 200_000;
    let x: Vec<f64> = (0..=n + 8)
        .map(|k| 1.0 + 0.5 * ((k as f64) * 0.001).sin())
        .collect();
    let idx: Vec<i64> = (1..=n as i64).collect();
    let cols: [&[i64]; 1] = [&idx];
    let data = DataView::new(n, &[], &cols);
    let mut ws = p.workspace();
    let mut v = vec![0.0; n];
    let reps = 100;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            p.eval_values(&mut ws, &data, &x, &[], &mut v);
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    println!(
        "{name:30} {:8.3} ns/point  ({} instrs)",
        best / n as f64 * 1e9,
        p.stats()[0].instructions
    );
}

fn main() {
    ideal();
    let i = Index::field(0);
    let x = |o: i64| Expr::var(VarRef::new(0, vec![&i + o], &i + o));
    time("gather+out", &x(0));
    let mut e = x(0);
    for _ in 0..10 {
        e = e + 1.5;
    }
    time("gather+10 addc+out", &e);
    let mut e = x(0);
    for k in 0..10 {
        e = e * x(k % 3);
    }
    time("gather3 + 10 mul rr", &e);
    let mut e = x(0);
    for _ in 0..10 {
        e = e.abs2();
    }
    time("gather + 10 abs2", &e);
}

#[inline(never)]
fn pass(d: &mut [f64], a: &[f64], c: f64) {
    for (o, &x) in d.iter_mut().zip(a) {
        *o = x + c;
    }
}

pub fn ideal() {
    let n = 200_000;
    let mut regs = vec![1.0f64; 128 * 12];
    let reps = 100;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            for _b in 0..n / 128 {
                for r in 0..10 {
                    let (lo, hi) = regs.split_at_mut((r + 1) * 128);
                    pass(&mut hi[..128], &lo[r * 128..], 1.5);
                }
            }
            std::hint::black_box(&mut regs);
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    println!(
        "{:30} {:8.3} ns/point",
        "ideal 10 addc passes",
        best / n as f64 * 1e9
    );
}
