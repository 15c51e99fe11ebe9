//! The paper's §4.1 worked example: the Rosenbrock objective pattern
//! `100*(x[i-1]^2 - x[i])^2 + (x[i-1] - 1)^2` over `i = 1..n`, checked against the
//! hand-derived value, gradient and Hessian.

use simdnlp_ad::*;

struct RosNamer;
impl Namer for RosNamer {
    fn var(&self, _: u32) -> String {
        "x".into()
    }
    fn param(&self, _: u32) -> String {
        "p".into()
    }
    fn real_field(&self, c: u32) -> String {
        format!("d{c}")
    }
    fn int_field(&self, _: u32) -> String {
        "i".into()
    }
}

fn rosenbrock() -> Expr {
    let i = Index::field(0);
    let xm = Expr::var(VarRef::new(0, vec![&i - 1], &i - 1));
    let xi = Expr::var(VarRef::new(0, vec![i.clone()], i.clone()));
    100 * (xm.powi(2) - &xi).powi(2) + (&xm - 1).powi(2)
}

#[test]
fn prints_as_mathematics() {
    assert_eq!(
        rosenbrock().display(&RosNamer),
        "100*(x[i - 1]^2 - x[i])^2 + (x[i - 1] - 1)^2"
    );
}

#[test]
fn slots_and_hessian_structure() {
    let p = Pattern::<f64>::compile(&rosenbrock()).unwrap();
    let g: Vec<Index> = p.slots().iter().map(|s| s.global.clone()).collect();
    assert_eq!(g, vec![Index::field(0) - 1, Index::field(0)]);
    assert_eq!(p.hess_slots(), &[(0, 0), (1, 0), (1, 1)]);
}

fn check(par: Parallelism) {
    let n = 1000usize;
    let x: Vec<f64> = (0..n)
        .map(|k| 0.3 + 0.01 * k as f64 - 1e-5 * (k * k) as f64)
        .collect();
    let idx: Vec<i64> = (1..n as i64).collect();
    let cols: [&[i64]; 1] = [&idx];
    let data = DataView::new(n - 1, &[], &cols);
    let p = Pattern::<f64>::compile(&rosenbrock()).unwrap();
    let mut ws = p.workspace();
    let m = n - 1;
    let mut v = vec![0.0; m];
    p.eval_values(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]).parallel(par),
        &mut v,
    );
    let mut g = vec![0.0; 2 * m];
    let mut v2 = vec![0.0; m];
    p.eval_gradients(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]).parallel(par),
        Some(&mut v2),
        &mut g,
    );
    let w: Vec<f64> = (0..m).map(|k| 1.0 + k as f64 * 0.5).collect();
    let mut h = vec![0.0; 3 * m];
    p.eval_hessians(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]).parallel(par),
        &w,
        &mut h,
    );
    for k in 0..m {
        let (a, b) = (x[k], x[k + 1]);
        let f = 100.0 * (a * a - b).powi(2) + (a - 1.0).powi(2);
        let ga = 400.0 * (a * a - b) * a + 2.0 * (a - 1.0);
        let gb = -200.0 * (a * a - b);
        let haa = 1200.0 * a * a - 400.0 * b + 2.0;
        let hab = -400.0 * a;
        let hbb = 200.0;
        let close = |u: f64, v: f64| (u - v).abs() <= 1e-13 * (1.0 + v.abs());
        assert!(close(v[k], f), "value at {k}: {} vs {f}", v[k]);
        assert!(close(v2[k], f));
        assert!(close(g[2 * k], ga), "grad a at {k}: {} vs {ga}", g[2 * k]);
        assert!(close(g[2 * k + 1], gb));
        assert!(
            close(h[3 * k], w[k] * haa),
            "haa at {k}: {} vs {}",
            h[3 * k],
            w[k] * haa
        );
        assert!(close(h[3 * k + 1], w[k] * hab));
        assert!(close(h[3 * k + 2], w[k] * hbb));
    }
    let mut sg = [0usize; 2];
    p.slot_globals(&data, 5, &mut sg);
    assert_eq!(sg, [5, 6]);
}

#[test]
fn matches_hand_derived_sequential() {
    check(Parallelism::Sequential);
}

#[test]
fn matches_hand_derived_parallel() {
    check(Parallelism::rayon_batches(128));
}

#[test]
fn parallel_equals_sequential_bitwise() {
    let n = 1001usize;
    let x: Vec<f64> = (0..n + 1).map(|k| (k as f64 * 0.37).sin()).collect();
    // non-consecutive positions exercise the gather path as well
    let idx: Vec<i64> = (0..n as i64).map(|k| 1 + (k * 7) % n as i64).collect();
    let cols: [&[i64]; 1] = [&idx];
    let data = DataView::new(n, &[], &cols);
    let p = Pattern::<f64>::compile(&rosenbrock()).unwrap();
    let w: Vec<f64> = (0..n).map(|k| 0.5 + k as f64).collect();
    let run = |par: Parallelism, tasks: usize| {
        let mut ws = p.workspace_for_tasks(tasks);
        let mut v = vec![0.0; n];
        let mut gv = vec![0.0; n];
        let mut g = vec![0.0; 2 * n];
        let mut h = vec![0.0; 3 * n];
        p.eval_values(
            &mut ws,
            &EvalInputs::new(&data, &x, &[]).parallel(par),
            &mut v,
        );
        p.eval_gradients(
            &mut ws,
            &EvalInputs::new(&data, &x, &[]).parallel(par),
            Some(&mut gv),
            &mut g,
        );
        p.eval_hessians(
            &mut ws,
            &EvalInputs::new(&data, &x, &[]).parallel(par),
            &w,
            &mut h,
        );
        (v, gv, g, h)
    };
    let seq = run(Parallelism::Sequential, 1);
    for tasks in [2, 3, 5, 16] {
        let par = run(Parallelism::rayon_batches(1), tasks);
        assert_eq!(seq, par, "{tasks} tasks");
    }
    assert_eq!(seq.0, seq.1);
}
