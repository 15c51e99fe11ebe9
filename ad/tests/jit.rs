#![allow(clippy::type_complexity)]
//! The JIT-compiled programs against the interpreter: values, gradients and Hessians of every
//! registered function (also at NaN, ±∞ and outside each function's domain), integer index
//! arithmetic, parameters, data columns, out-of-range positions, many data points with and
//! without threads, and random DAGs (proptest). Every output must be bit-identical (NaN
//! matches any NaN).

use proptest::prelude::*;
use simdnlp_ad::*;

fn var(k: i64) -> Expr {
    Expr::var(VarRef::new(0, vec![Index::Const(k)], Index::Const(k)))
}

/// Values, gradients (with and without the value array) and Hessians of `p` at every point.
fn outputs(
    p: &Pattern<f64>,
    data: &DataView<'_, f64>,
    x: &[f64],
    theta: &[f64],
    par: Parallelism,
) -> Vec<Vec<f64>> {
    let n = data.len;
    let mut ws = p.workspace();
    let mut v = vec![0.0; n];
    p.eval_values(
        &mut ws,
        &EvalInputs::new(data, x, theta).parallel(par),
        &mut v,
    );
    let mut g = vec![0.0; n * p.nslots()];
    let mut gv = vec![0.0; n];
    p.eval_gradients(
        &mut ws,
        &EvalInputs::new(data, x, theta).parallel(par),
        Some(&mut gv),
        &mut g,
    );
    let mut g2 = vec![0.0; n * p.nslots()];
    p.eval_gradients(
        &mut ws,
        &EvalInputs::new(data, x, theta).parallel(par),
        None,
        &mut g2,
    );
    let w: Vec<f64> = (0..n).map(|k| 0.5 + k as f64 * 0.25).collect();
    let mut h = vec![0.0; n * p.nhess()];
    p.eval_hessians(
        &mut ws,
        &EvalInputs::new(data, x, theta).parallel(par),
        &w,
        &mut h,
    );
    vec![v, gv, g, g2, h]
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Compiles `e` for both evaluators and asserts bit-identical outputs.
fn check(
    what: &str,
    e: &Expr,
    data: &DataView<'_, f64>,
    x: &[f64],
    theta: &[f64],
    par: Parallelism,
) {
    let jit = Pattern::<f64>::compile_for(e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(jit.evaluator(), Evaluator::Jit, "{what}: JIT not built");
    let mut interp = jit.clone();
    assert_eq!(interp.set_evaluator(Evaluator::Interp), Evaluator::Interp);
    let a = outputs(&jit, data, x, theta, par);
    let b = outputs(&interp, data, x, theta, par);
    for (k, (oa, ob)) in a.iter().zip(&b).enumerate() {
        for (i, (&va, &vb)) in oa.iter().zip(ob).enumerate() {
            assert!(
                same(va, vb),
                "{what}: output {k}[{i}] jit {va:e} vs interp {vb:e} at x = {x:?}"
            );
        }
    }
}

/// Special and out-of-domain arguments plus ordinary ones.
const POINTS: [f64; 22] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    0.1,
    1e-300,
    -1e-300,
    3.7,
    -7.25,
    90.0,
    180.0,
    1e10,
    -1e10,
    710.0,
    f64::MAX,
];

#[test]
fn every_unary_function_bitwise() {
    // one data point per argument: x[k] is the argument of point k (an integer column)
    let n = POINTS.len();
    let col: Vec<i64> = (0..n as i64).collect();
    let ints: [&[i64]; 1] = [&col];
    let data = DataView::new(n, &[], &ints);
    let a = Expr::var(VarRef::new(0, vec![Index::field(0)], Index::field(0)));
    // the internal functions (derivatives of sinc and digamma) have no derivatives of
    // their own: they run as the first and second derivatives of their public parents
    for &u in Un::ALL.iter().filter(|u| u.available() && !u.internal()) {
        let e = a.apply(u);
        check(u.name(), &e, &data, &POINTS, &[], Parallelism::Sequential);
        // composed, so first and second derivatives go through the chain rule too
        let e = (&a * 1.5 + 0.25).apply(u) * &a;
        check(u.name(), &e, &data, &POINTS, &[], Parallelism::Sequential);
    }
}

#[test]
fn sin_and_cos_of_one_value_bitwise() {
    // the JIT computes a sin and a cos of the same value with one `sincos` call: check the
    // pair against the interpreter's separate calls over many magnitudes (both range
    // reductions of the C library) and the special points
    let mut args: Vec<f64> = POINTS.to_vec();
    for k in 0..4000 {
        let m = 10f64.powf(-8.0 + 30.0 * (k as f64 / 4000.0));
        let v = m * (1.0 + 0.37 * (k as f64).sin());
        args.push(if k % 2 == 0 { v } else { -v });
    }
    args.extend([1e100, -1e200, 1e300, 3.0e15, 7.0e22, std::f64::consts::PI]);
    let n = args.len();
    let col: Vec<i64> = (0..n as i64).collect();
    let ints: [&[i64]; 1] = [&col];
    let data = DataView::new(n, &[], &ints);
    let a = Expr::var(VarRef::new(0, vec![Index::field(0)], Index::field(0)));
    let e = a.sin() * a.cos() + (&a * 0.5).sin();
    check("sin*cos", &e, &data, &args, &[], Parallelism::Sequential);
    let e = (&a * 2.0 - 1.0).cos() * &a;
    check("cos", &e, &data, &args, &[], Parallelism::Sequential);
}

#[test]
fn every_binary_function_bitwise() {
    // every pair of POINTS: x = [a..., b...], index columns pick a and b
    let n = POINTS.len();
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    for i in 0..n as i64 {
        for j in 0..n as i64 {
            ca.push(i);
            cb.push(n as i64 + j);
        }
    }
    let ints: [&[i64]; 2] = [&ca, &cb];
    let data = DataView::new(ca.len(), &[], &ints);
    let x: Vec<f64> = POINTS.iter().chain(&POINTS).copied().collect();
    let a = Expr::var(VarRef::new(0, vec![Index::field(0)], Index::field(0)));
    let b = Expr::var(VarRef::new(0, vec![Index::field(1)], Index::field(1)));
    for &op in Bin::ALL {
        let e = a.apply2(op, &b);
        check(op.name(), &e, &data, &x, &[], Parallelism::Sequential);
        let e = a.apply2(op, &b) * (&a - &b) + a.apply2(op, 0.75);
        check(op.name(), &e, &data, &x, &[], Parallelism::Sequential);
    }
}

#[test]
fn powers_and_user_functions_bitwise() {
    let n = POINTS.len();
    let col: Vec<i64> = (0..n as i64).collect();
    let ints: [&[i64]; 1] = [&col];
    let data = DataView::new(n, &[], &ints);
    let a = Expr::var(VarRef::new(0, vec![Index::field(0)], Index::field(0)));
    // the JIT multiplies integer powers out inline: every bit pattern of small and large k
    for k in (-9..=17).chain([31, 64, -64, 1023, i32::MAX, i32::MIN + 2]) {
        check(
            "powi",
            &a.powi(k),
            &data,
            &POINTS,
            &[],
            Parallelism::Sequential,
        );
    }
    for pw in [0.5, 1.5, -0.3, 2.7, 3.0, -2.5] {
        check(
            "powf",
            &a.powf(pw),
            &data,
            &POINTS,
            &[],
            Parallelism::Sequential,
        );
    }
    let cube = UnaryFn::new("cube", |v| v * v * v, |v| 3.0 * v * v, |v| 6.0 * v);
    let k = 2.5;
    let scaled = UnaryFn::new_dyn(
        "scaled_exp",
        std::sync::Arc::new(move |v: f64| (k * v).exp()),
        std::sync::Arc::new(move |v: f64| k * (k * v).exp()),
        std::sync::Arc::new(move |v: f64| k * k * (k * v).exp()),
    );
    let prod = BinaryFn::new(
        "prod2",
        |a, b| a * a * b,
        [|a, b| 2.0 * a * b, |a, _| a * a],
        [|_, b| 2.0 * b, |a, _| 2.0 * a, |_, _| 0.0],
    );
    let e = cube.call(&a) + scaled.call(&a.sin()) + prod.call(&a, &(&a * 2 + 1));
    check("user", &e, &data, &POINTS, &[], Parallelism::Sequential);
}

/// The JIT runs two points of an 8-point body as one `F64X2` vector where an operation
/// rounds per lane: a lane's result must not depend on its neighbour. Every special value
/// (NaN, ±∞, ±0, the largest and the smallest) sits next to every ordinary value, in both
/// lanes of a pair, as a variable, as a data column's entry (read as vectors) and as a
/// second operand, through every registered function, integer power and fused step.
#[test]
fn vector_lanes_do_not_depend_on_their_neighbour() {
    let special = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::MAX,
        1e-310,
    ];
    let ordinary = [0.5, -2.0, 3.7, 1e-300, -7.25, 710.0];
    let mut xs = Vec::new();
    for &s in &special {
        for &o in &ordinary {
            xs.extend([s, o, o, s]);
        }
    }
    // the same pairs shifted by one point (an odd first point of a pair of lanes) and a
    // remainder that is not a whole body
    xs.push(1.25);
    let n = xs.len();
    let x: Vec<f64> = xs.iter().chain(xs.iter().rev()).copied().collect();
    let ia: Vec<i64> = (0..n as i64).collect();
    let ib: Vec<i64> = (0..n as i64).map(|k| 2 * n as i64 - 1 - k).collect();
    let d0: Vec<f64> = xs.iter().map(|v| v * 0.5).collect();
    let d1: Vec<f64> = xs.iter().rev().copied().collect();
    let ints: [&[i64]; 2] = [&ia, &ib];
    let reals: [&[f64]; 2] = [&d0, &d1];
    for first in [0, 1] {
        let len = n - first;
        let ints: Vec<&[i64]> = ints.iter().map(|c| &c[first..]).collect();
        let reals: Vec<&[f64]> = reals.iter().map(|c| &c[first..]).collect();
        let data = DataView::new(len, &reals, &ints);
        let a = Expr::var(VarRef::new(0, vec![Index::field(0)], Index::field(0)));
        let b = Expr::var(VarRef::new(0, vec![Index::field(1)], Index::field(1)));
        let (d0, d1) = (Expr::data(0), Expr::data(1));
        for &u in Un::ALL.iter().filter(|u| u.available() && !u.internal()) {
            check(
                u.name(),
                &a.apply(u),
                &data,
                &x,
                &[],
                Parallelism::Sequential,
            );
            let e = (&a * &d0 - &b / 3.0).apply(u) * (-&d1).abs() + d1.apply(u).sqrt();
            check(u.name(), &e, &data, &x, &[], Parallelism::Sequential);
        }
        for &op in Bin::ALL {
            let e = a.apply2(op, &b) * (&a - &b) + d0.apply2(op, &d1) / &a;
            check(op.name(), &e, &data, &x, &[], Parallelism::Sequential);
        }
        for k in [-3, -1, 0, 1, 2, 3, 7, 64] {
            let e = (&a + &d0).powi(k) * &b + (1.0 / &d1).abs2();
            check("powi", &e, &data, &x, &[], Parallelism::Sequential);
        }
    }
}

/// Data columns, parameters, integer index arithmetic (with floor division and remainder of
/// negative numbers), positions out of range (NaN), many points, threads.
#[test]
fn data_parameters_indices_and_threads() {
    let n = 1000;
    let i0: Vec<i64> = (0..n as i64).map(|k| (k * 7919) % 1013 - 5).collect();
    let i1: Vec<i64> = (0..n as i64).map(|k| k % 3 - 1).collect();
    let r0: Vec<f64> = (0..n).map(|k| (k as f64 * 0.37).sin()).collect();
    let r1: Vec<f64> = (0..n).map(|k| 1.0 + k as f64 * 1e-3).collect();
    let ints: [&[i64]; 2] = [&i0, &i1];
    let reals: [&[f64]; 2] = [&r0, &r1];
    let data = DataView::new(n, &reals, &ints);
    let x: Vec<f64> = (0..1000).map(|k| 0.3 + (k as f64 * 0.01).cos()).collect();
    let theta: Vec<f64> = (0..20).map(|k| k as f64 * 0.5 - 3.0).collect();
    let f0 = Index::field(0);
    let f1 = Index::field(1);
    // i0 can be negative or past the end of x: NaN there, in both evaluators
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    let xb = Expr::var(VarRef::new(
        0,
        vec![],
        f0.clone().floor_div(Index::Const(3)) + &f1 * 2 + 4,
    ));
    let xc = Expr::var(VarRef::new(
        0,
        vec![],
        f0.clone().modulo(Index::Const(-7)) + 10,
    ));
    // a divisor read from the data (can be 0 at some points: the sentinel position)
    let xd = Expr::var(VarRef::new(
        0,
        vec![],
        f0.clone().floor_div(f1.clone()) + 500,
    ));
    let th = Expr::param(VarRef::new(1, vec![], f1.clone() + 2));
    let th_out = Expr::param(VarRef::new(1, vec![], f0.clone()));
    let e = (&xa * Expr::data(0) - &xb).abs2() * Expr::data(1)
        + (&xc * &th).sin() * &xb
        + xd.exp() * 1e-3
        + Expr::index(f0.clone() * 2 - 1) * &xa
        + th_out * &xc
        + (&xa + 1.0).log() / (2.0 + xc.abs2());
    for par in [
        Parallelism::Sequential,
        Parallelism::rayon_batches(128),
        Parallelism::rayon_batches(1),
    ] {
        check("mixed", &e, &data, &x, &theta, par);
    }
    // rosenbrock-like consecutive positions (the interpreter's zero-copy gather)
    let ik: Vec<i64> = (0..n as i64 - 1).collect();
    let ints: [&[i64]; 1] = [&ik];
    let data = DataView::new(n - 1, &[], &ints);
    let x0 = Expr::var(VarRef::new(0, vec![], Index::field(0)));
    let x1 = Expr::var(VarRef::new(0, vec![], Index::field(0) + 1));
    let e = 100.0 * (&x1 - x0.abs2()).abs2() + (1.0 - &x0).abs2();
    check("rosenbrock", &e, &data, &x, &[], Parallelism::Sequential);
    check(
        "rosenbrock",
        &e,
        &data,
        &x,
        &[],
        Parallelism::rayon_batches(64),
    );
}

#[test]
fn f32_patterns_use_the_interpreter_and_compile_time_is_reported() {
    let e = var(0).sin() * var(1);
    let p32 = Pattern::<f32>::compile(&e).unwrap();
    assert_eq!(p32.evaluator(), Evaluator::Interp);
    assert!(p32.jit_compile_time().is_none());
    let mut p = Pattern::<f64>::compile(&e).unwrap();
    assert_eq!(p.evaluator(), Evaluator::Jit);
    assert!(p.jit_compile_time().is_some());
    assert_eq!(p.set_evaluator(Evaluator::Interp), Evaluator::Interp);
    assert!(p.jit_compile_time().is_none());
    assert_eq!(p.set_evaluator(Evaluator::Jit), Evaluator::Jit);
    assert_eq!("jit".parse::<Evaluator>(), Ok(Evaluator::Jit));
    assert_eq!("interp".parse::<Evaluator>(), Ok(Evaluator::Interp));
    assert!("llvm".parse::<Evaluator>().is_err());
}

/// Programs longer than the JIT's limit (Cranelift's register allocation is quadratic in
/// their length: a 400-deep `sin` chain took 1.7 s, a 1 600-deep one 32 s) stay on the
/// interpreter; a 100-deep chain is still compiled.
#[test]
fn very_long_programs_use_the_interpreter() {
    let nested = |depth: usize| (0..depth).fold(var(0), |e, _| e.sin());
    let short =
        Pattern::<f64>::compile_for(&nested(100), SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(short.evaluator(), Evaluator::Jit);
    let mut long =
        Pattern::<f64>::compile_for(&nested(400), SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(long.evaluator(), Evaluator::Interp);
    assert!(long.jit_compile_time().is_none());
    assert_eq!(long.set_evaluator(Evaluator::Jit), Evaluator::Interp);
    let data = DataView::empty(1);
    let mut v = [0.0];
    long.eval_values(
        &mut long.workspace(),
        &EvalInputs::new(&data, &[0.5], &[]),
        &mut v,
    );
    let want = (0..400).fold(0.5f64, |x, _| x.sin());
    assert!((v[0] - want).abs() < 1e-14, "{} vs {want}", v[0]);
}

/// A user function that panics gives NaN in the JIT (documented) instead of unwinding.
#[test]
fn panicking_user_function_gives_nan() {
    let bad = UnaryFn::new(
        "bad",
        |v| if v > 1.0 { panic!("bad") } else { v },
        |_| 1.0,
        |_| 0.0,
    );
    let p = Pattern::<f64>::compile(&bad.call(&var(0))).unwrap();
    let mut ws = p.workspace();
    let mut v = [0.0];
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    p.eval_values(
        &mut ws,
        &EvalInputs::new(&DataView::empty(1), &[2.0], &[]),
        &mut v,
    );
    std::panic::set_hook(hook);
    assert!(v[0].is_nan());
    p.eval_values(
        &mut ws,
        &EvalInputs::new(&DataView::empty(1), &[0.5], &[]),
        &mut v,
    );
    assert_eq!(v[0], 0.5);
}

const NV: usize = 4;

#[derive(Clone, Debug)]
struct Step {
    op: u8,
    a: usize,
    b: usize,
    c: f64,
}

fn step() -> impl Strategy<Value = Step> {
    (0u8..24, any::<usize>(), any::<usize>(), -2.0f64..2.0).prop_map(|(op, a, b, c)| Step {
        op,
        a,
        b,
        c,
    })
}

/// A random DAG over every kind of operation, also non-smooth and out-of-domain ones.
fn build(steps: &[Step], vars: &[Expr]) -> Expr {
    let mut nodes: Vec<Expr> = vars.to_vec();
    for s in steps {
        let a = nodes[s.a % nodes.len()].clone();
        let b = nodes[s.b % nodes.len()].clone();
        let e = match s.op {
            0 => &a + &b,
            1 => &a - &b,
            2 => &a * &b,
            3 => &a / &b,
            4 => a.sin(),
            5 => a.cos() * s.c,
            6 => a.tanh(),
            7 => a.exp(),
            8 => a.log(),
            9 => a.sqrt(),
            10 => a.asin(),
            11 => a.hypot(&b),
            12 => a.powi(2) * s.c,
            13 => a.powi(-3),
            14 => &a * s.c + &b,
            15 => a.atan2(&b),
            16 => a.powf(0.7),
            17 => a.pow(&b),
            18 => a.max(&b),
            19 => a.min(s.c),
            20 => a.abs() - b.abs2(),
            21 => -(a.inv()),
            22 => a.sinc(),
            _ => a.sinpi() + b.cospi(),
        };
        nodes.push(e);
    }
    let k = nodes.len();
    nodes[k - 1].clone() + 0.5 * &nodes[k / 2] + nodes[(k * 3) / 4].clone() * 0.25
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn random_dags_bitwise(
        steps in prop::collection::vec(step(), 1..24),
        x in prop::collection::vec(-2.0f64..2.0, NV),
    ) {
        let vars: Vec<Expr> = (0..NV as i64).map(var).collect();
        let e = build(&steps, &vars);
        check("dag", &e, &DataView::empty(3), &x, &[], Parallelism::Sequential);
    }
}

/// The objective kernels (values summed into a total, gradient entries added into a
/// gradient at given positions) against the interpreter's outputs folded the same way:
/// bitwise, with repeated positions and a position past the end (skipped); with threads
/// they run on one thread (the same bits).
#[test]
fn objective_sum_and_gradient_scatter_bitwise() {
    let n = 700;
    let i0: Vec<i64> = (0..n as i64).map(|k| (k * 37) % 298).collect();
    let r0: Vec<f64> = (0..n).map(|k| (k as f64 * 0.11).cos()).collect();
    let ints: [&[i64]; 1] = [&i0];
    let reals: [&[f64]; 1] = [&r0];
    let data = DataView::new(n, &reals, &ints);
    let x: Vec<f64> = (0..300).map(|k| 0.2 + (k as f64 * 0.03).sin()).collect();
    let f0 = Index::field(0);
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    let xb = Expr::var(VarRef::new(0, vec![], f0.clone() + 1));
    let e = 100.0 * (xa.abs2() - &xb).abs2() + (&xa - Expr::data(0)).abs2() + xb.sin() * &xa;
    let jit =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(jit.evaluator(), Evaluator::Jit);
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    let ns = jit.nslots();
    let mut ws = jit.workspace();
    // reference: values and gradients through the interpreter, folded in point order
    let mut v = vec![0.0; n];
    interp.eval_values(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut v);
    let want_total = v.iter().fold(0.5, |a, &b| a + b);
    let mut gr = vec![0.0; n * ns];
    interp.eval_gradients(&mut ws, &EvalInputs::new(&data, &x, &[]), None, &mut gr);
    // positions: mostly the slot's own, some repeated, one past the end of g
    let glen = 310;
    let globals: Vec<usize> = (0..n * ns)
        .map(|e| match e {
            17 => glen + 4,
            _ if e % 11 == 0 => 5,
            _ => (e * 7) % glen,
        })
        .collect();
    let mut want_g: Vec<f64> = (0..glen).map(|k| k as f64 * 0.01).collect();
    let mut got_g = want_g.clone();
    for (&gi, &val) in globals.iter().zip(&gr) {
        if gi < glen {
            want_g[gi] += val;
        }
    }
    // positions inside `x` (negative and short inputs: `objective_sum_index_bounds`)
    let mut total = 0.5;
    assert!(jit.eval_value_sum(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut total));
    assert_eq!(total.to_bits(), want_total.to_bits());
    assert!(jit.eval_gradient_scatter(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        &globals,
        &mut got_g
    ));
    for (k, (a, b)) in got_g.iter().zip(&want_g).enumerate() {
        assert_eq!(a.to_bits(), b.to_bits(), "g[{k}]: {a:e} vs {b:e}");
    }
    // the interpreter or too few positions: declined, outputs untouched
    let mut t = 0.5;
    assert!(!interp.eval_value_sum(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut t));
    assert!(!interp.eval_gradient_scatter(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        &globals,
        &mut got_g
    ));
    let par = Parallelism::rayon_batches(1);
    let mut ws4 = jit.workspace_for_tasks(4);
    let mut threaded = 0.5;
    assert!(jit.eval_value_sum(
        &mut ws4,
        &EvalInputs::new(&data, &x, &[]).parallel(par),
        &mut threaded
    ));
    assert_eq!(threaded.to_bits(), want_total.to_bits());
    assert!(!jit.eval_gradient_scatter(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        &globals[..10],
        &mut got_g
    ));
    assert_eq!(t, 0.5);
    // a pattern compiled without the objective kernels declines too
    let plain = Pattern::<f64>::compile_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert!(!plain.eval_value_sum(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut t));
}

/// Where the integer columns of a constraint pattern's unchecked `x`/`θ` loads count up by
/// one over the data's rows ([`IndexBounds::counting_columns`]), the native code loads two
/// points' entries as one 16-byte load: bitwise the interpreter, with lane functions (the
/// two-block loop) and without (the 8-point loop), through the safe and the bounded entry
/// points, for columns that count up, that count up except at one row, that count down,
/// that count up in the data's rows but not past them, and over a sub-range of a column.
#[test]
fn counting_columns_bitwise() {
    let f0 = Index::field(0);
    let f1 = Index::field(1);
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    let xb = Expr::var(VarRef::new(0, vec![], f0.clone() + 1));
    let xc = Expr::var(VarRef::new(0, vec![f1.clone()], f1.clone() + 2));
    let th = Expr::param(VarRef::new(1, vec![], f0.clone() + 3));
    let wide = (xa.abs2() - &xb).abs2()
        + (&xa - Expr::data(0)).abs2() * &th
        + xb.sin() * xa.exp()
        + &xc * &xa;
    let plain = (xa.abs2() - &xb) * &th + (&xc - &xb).abs2() * Expr::data(0);
    let x: Vec<f64> = (0..700).map(|k| 0.2 + (k as f64 * 0.03).sin()).collect();
    let theta: Vec<f64> = (0..700).map(|k| 1.0 + (k as f64 * 0.07).cos()).collect();
    let n = 203;
    let up: Vec<i64> = (0..n as i64 + 60).map(|k| 5 + k).collect();
    let mut broken = up.clone();
    broken[100..].iter_mut().for_each(|i| *i += 1);
    let down: Vec<i64> = (0..n as i64 + 60).map(|k| 300 - k).collect();
    // counts up in rows `0..n` only
    let mut up_then = up.clone();
    up_then[n] = 0;
    let r0: Vec<f64> = (0..n + 60).map(|k| (k as f64 * 0.11).cos()).collect();
    // (column 0, column 1, rows, first row, counting columns)
    let cases: [(&[i64], &[i64], usize, usize, u64); 7] = [
        (&up, &up, n, 0, 0b11),
        (&up, &down, n, 0, 0b01),
        (&broken, &up, n, 0, 0b10),
        (&down, &up, n, 0, 0b10),
        (&down, &broken, n, 0, 0),
        (&up_then, &up_then, n, 0, 0b11),
        (&up, &up, 57, 40, 0b11),
    ];
    let seq = Parallelism::Sequential;
    for e in [&wide, &plain] {
        let jit = Pattern::<f64>::compile_for(e, SecondOrder::default(), Evaluator::Jit).unwrap();
        assert_eq!(jit.evaluator(), Evaluator::Jit);
        let mut interp = jit.clone();
        interp.set_evaluator(Evaluator::Interp);
        for &(c0, c1, rows, from, counting) in &cases {
            let ints: [&[i64]; 2] = [&c0[from..], &c1[from..]];
            let reals: [&[f64]; 1] = [&r0[from..]];
            let data = DataView::new(rows, &reals, &ints);
            let bounds = jit.index_bounds(&data).unwrap();
            assert_eq!(bounds.counting_columns, counting);
            let want = outputs(&interp, &data, &x, &theta, seq);
            assert!(want[0].iter().all(|v| v.is_finite()));
            for par in [seq, Parallelism::rayon_batches(1)] {
                let got = outputs(&jit, &data, &x, &theta, par);
                for (a, b) in got.iter().zip(&want) {
                    assert!(
                        a.iter().zip(b).all(|(&va, &vb)| same(va, vb)),
                        "counting {counting:#b}, rows {rows} from {from}"
                    );
                }
            }
            let mut ws = jit.workspace();
            let inputs = EvalInputs::new(&data, &x, &theta);
            let mut v = vec![0.0; rows];
            let mut h = vec![0.0; rows * jit.nhess()];
            let w: Vec<f64> = (0..rows).map(|k| 0.5 + k as f64 * 0.25).collect();
            // SAFETY: `bounds` is `index_bounds` of this pattern over this very `data`.
            unsafe {
                jit.eval_values_bounded(&mut ws, &inputs, &bounds, &mut v);
                jit.eval_hessians_bounded(&mut ws, &inputs, &bounds, &w, &mut h);
            }
            assert!(v.iter().zip(&want[0]).all(|(&a, &b)| same(a, b)));
            assert!(h.iter().zip(&want[4]).all(|(&a, &b)| same(a, b)));
        }
    }
}

/// A constraint pattern's stored programs read `x`/`θ` at data-column positions without
/// a per-point check; its entry points check the range once per call (the safe ones
/// computing it, the `*_bounded` ones against bounds computed beforehand): bitwise the
/// interpreter with `x` and `θ` long enough, and with `x` or `θ` one shorter than the last
/// position read (or a negative position) the interpreter runs and reads NaN there.
#[test]
fn constraint_programs_index_bounds() {
    let n = 300;
    let i0: Vec<i64> = (0..n as i64).map(|k| (k * 37) % 301).collect();
    let r0: Vec<f64> = (0..n).map(|k| (k as f64 * 0.11).cos()).collect();
    let ints: [&[i64]; 1] = [&i0];
    let reals: [&[f64]; 1] = [&r0];
    let data = DataView::new(n, &reals, &ints);
    let f0 = Index::field(0);
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    let xb = Expr::var(VarRef::new(0, vec![], f0.clone() + 1));
    let th = Expr::param(VarRef::new(1, vec![], f0.clone() + 3));
    let e = (xa.abs2() - &xb).abs2() + (&xa - Expr::data(0)).abs2() * &th + xb.sin() * xa.exp();
    let jit = Pattern::<f64>::compile_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(jit.evaluator(), Evaluator::Jit);
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    let bounds = jit.index_bounds(&data).unwrap();
    assert_eq!(
        bounds,
        IndexBounds {
            x_len: 302,
            theta_len: 304,
            counting_columns: 0,
        }
    );
    let x: Vec<f64> = (0..302).map(|k| 0.2 + (k as f64 * 0.03).sin()).collect();
    let theta: Vec<f64> = (0..304).map(|k| 1.0 + (k as f64 * 0.07).cos()).collect();
    let w: Vec<f64> = (0..n).map(|k| 0.5 + k as f64 * 0.25).collect();
    // values, gradients with values, Hessians: through the bounded entry points
    let bounded = |p: &Pattern<f64>, data: &DataView<'_, f64>, x: &[f64], t: &[f64], b| {
        let mut ws = p.workspace();
        let inputs = EvalInputs::new(data, x, t);
        let (mut v, mut g, mut gv, mut h) = (
            vec![0.0; n],
            vec![0.0; n * p.nslots()],
            vec![0.0; n],
            vec![0.0; n * p.nhess()],
        );
        // SAFETY: `b` is `index_bounds` of this pattern over this very `data`.
        unsafe {
            p.eval_values_bounded(&mut ws, &inputs, b, &mut v);
            p.eval_gradients_bounded(&mut ws, &inputs, b, Some(&mut gv), &mut g);
            p.eval_hessians_bounded(&mut ws, &inputs, b, &w, &mut h);
        }
        vec![v, gv, g, h]
    };
    let agree = |a: &[Vec<f64>], b: &[Vec<f64>], what: &str| {
        for (oa, ob) in a.iter().zip(b) {
            assert!(oa.iter().zip(ob).all(|(&va, &vb)| same(va, vb)), "{what}");
        }
    };
    let seq = Parallelism::Sequential;
    let want = outputs(&interp, &data, &x, &theta, seq);
    assert!(want[0].iter().all(|v| v.is_finite()));
    agree(&outputs(&jit, &data, &x, &theta, seq), &want, "safe");
    let got = bounded(&jit, &data, &x, &theta, &bounds);
    agree(
        &got,
        &[
            want[0].clone(),
            want[1].clone(),
            want[2].clone(),
            want[4].clone(),
        ],
        "bounded",
    );
    // `x` or `θ` one shorter: the interpreter's NaN at the positions outside
    for (xs, ts) in [(&x[..301], &theta[..]), (&x[..], &theta[..303])] {
        let want = outputs(&interp, &data, xs, ts, seq);
        assert!(want[0].iter().any(|v| v.is_nan()));
        agree(&outputs(&jit, &data, xs, ts, seq), &want, "safe, short");
        let got = bounded(&jit, &data, xs, ts, &bounds);
        agree(
            &got,
            &[
                want[0].clone(),
                want[1].clone(),
                want[2].clone(),
                want[4].clone(),
            ],
            "bounded, short",
        );
    }
    // a negative position: no bounds, the safe entry points run the interpreter
    let neg: Vec<i64> = i0.iter().map(|&i| i - 1).collect();
    let neg_ints: [&[i64]; 1] = [&neg];
    let neg_data = DataView::new(n, &reals, &neg_ints);
    assert_eq!(jit.index_bounds(&neg_data), None);
    let want = outputs(&interp, &neg_data, &x, &theta, seq);
    assert!(want[0].iter().any(|v| v.is_nan()));
    agree(
        &outputs(&jit, &neg_data, &x, &theta, seq),
        &want,
        "negative",
    );
}

/// The summing objective kernel reads `x` and `θ` at positions from a data column without
/// a per-point check: its index bounds are the range of those positions; with `x` (or `θ`)
/// long enough it sums bitwise what the interpreter sums, and with `x` one shorter than
/// the last position read (or `θ` one shorter) it declines and leaves the total alone,
/// through the safe entry point and through the bounded one with the correct bounds,
/// while the checked value program reads NaN there as the interpreter does. The same for
/// the gradient scatter (bitwise the interpreter's gradients added in order).
#[test]
fn objective_sum_index_bounds() {
    let n = 500;
    let i0: Vec<i64> = (0..n as i64).map(|k| (k * 37) % 301).collect();
    let r0: Vec<f64> = (0..n).map(|k| (k as f64 * 0.11).cos()).collect();
    let ints: [&[i64]; 1] = [&i0];
    let reals: [&[f64]; 1] = [&r0];
    let data = DataView::new(n, &reals, &ints);
    let f0 = Index::field(0);
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    // reaches the last variable, x[301]
    let xb = Expr::var(VarRef::new(0, vec![], f0.clone() + 1));
    let th = Expr::param(VarRef::new(1, vec![], f0.clone() + 3));
    let e = (xa.abs2() - &xb).abs2() + (&xa - Expr::data(0)).abs2() * &th + xb.sin();
    let jit =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(jit.evaluator(), Evaluator::Jit);
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    let bounds = jit.index_bounds(&data).unwrap();
    assert_eq!(
        bounds,
        IndexBounds {
            x_len: 302,
            theta_len: 304,
            counting_columns: 0,
        }
    );
    let x: Vec<f64> = (0..302).map(|k| 0.2 + (k as f64 * 0.03).sin()).collect();
    let theta: Vec<f64> = (0..304).map(|k| 1.0 + (k as f64 * 0.07).cos()).collect();
    let mut ws = jit.workspace();
    let sum_of = |p: &Pattern<f64>, ws: &mut Workspace<f64>, x: &[f64], theta: &[f64]| {
        let mut v = vec![0.0; n];
        p.eval_values(ws, &EvalInputs::new(&data, x, theta), &mut v);
        v.iter().fold(0.5, |a, &b| a + b)
    };
    // long enough: bitwise the interpreter's values summed in point order
    let want = sum_of(&interp, &mut ws, &x, &theta);
    assert!(want.is_finite());
    let mut total = 0.5;
    assert!(jit.eval_value_sum(&mut ws, &EvalInputs::new(&data, &x, &theta), &mut total));
    assert_eq!(total.to_bits(), want.to_bits());
    let mut total = 0.5;
    // SAFETY: `bounds` is `index_bounds` of this pattern over this very `data`.
    let summed = unsafe {
        jit.eval_value_sum_bounded(
            &mut ws,
            &EvalInputs::new(&data, &x, &theta),
            &bounds,
            &mut total,
        )
    };
    assert!(summed);
    assert_eq!(total.to_bits(), want.to_bits());
    // `x` or `θ` one shorter than the last position read: declined, total untouched;
    // the checked programs read NaN there, as the interpreter
    for (xs, ts) in [(&x[..301], &theta[..]), (&x[..], &theta[..303])] {
        let mut total = 0.5;
        assert!(!jit.eval_value_sum(&mut ws, &EvalInputs::new(&data, xs, ts), &mut total));
        assert_eq!(total, 0.5);
        // SAFETY: as above.
        let summed = unsafe {
            jit.eval_value_sum_bounded(
                &mut ws,
                &EvalInputs::new(&data, xs, ts),
                &bounds,
                &mut total,
            )
        };
        assert!(!summed);
        assert_eq!(total, 0.5);
        let got = sum_of(&jit, &mut ws, xs, ts);
        assert!(got.is_nan());
        assert!(sum_of(&interp, &mut ws, xs, ts).is_nan());
    }
    // a negative position: no bounds, declined
    let neg: Vec<i64> = i0.iter().map(|&i| i - 1).collect();
    let neg_ints: [&[i64]; 1] = [&neg];
    let neg_data = DataView::new(n, &reals, &neg_ints);
    assert_eq!(jit.index_bounds(&neg_data), None);
    let mut total = 0.5;
    assert!(!jit.eval_value_sum(&mut ws, &EvalInputs::new(&neg_data, &x, &theta), &mut total));
    assert_eq!(total, 0.5);

    // the gradient scatter (unchecked loads too): bitwise the interpreter's gradients
    // added in order with the bounds; declined, `g` untouched, with `x` or `θ` short or
    // negative positions
    let ns = jit.nslots();
    let globals: Vec<usize> = (0..n * ns).map(|e| (e * 7) % 302).collect();
    let g0: Vec<f64> = (0..302).map(|k| k as f64 * 0.01).collect();
    let mut gr = vec![0.0; n * ns];
    interp.eval_gradients(&mut ws, &EvalInputs::new(&data, &x, &theta), None, &mut gr);
    let mut want_g = g0.clone();
    for (&gi, &v) in globals.iter().zip(&gr) {
        want_g[gi] += v;
    }
    assert!(want_g.iter().all(|v| v.is_finite()));
    let mut got_g = g0.clone();
    assert!(jit.eval_gradient_scatter(
        &mut ws,
        &EvalInputs::new(&data, &x, &theta),
        &globals,
        &mut got_g
    ));
    let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got_g), bits(&want_g));
    let mut got_g = g0.clone();
    // SAFETY: `bounds` is `index_bounds` of this pattern over this very `data`.
    let scattered = unsafe {
        jit.eval_gradient_scatter_bounded(
            &mut ws,
            &EvalInputs::new(&data, &x, &theta),
            &bounds,
            &globals,
            &mut got_g,
        )
    };
    assert!(scattered);
    assert_eq!(bits(&got_g), bits(&want_g));
    for (xs, ts) in [(&x[..301], &theta[..]), (&x[..], &theta[..303])] {
        let mut got_g = g0.clone();
        let inputs = EvalInputs::new(&data, xs, ts);
        assert!(!jit.eval_gradient_scatter(&mut ws, &inputs, &globals, &mut got_g));
        // SAFETY: as above.
        let scattered = unsafe {
            jit.eval_gradient_scatter_bounded(&mut ws, &inputs, &bounds, &globals, &mut got_g)
        };
        assert!(!scattered);
        assert_eq!(bits(&got_g), bits(&g0));
    }
    let mut got_g = g0.clone();
    assert!(!jit.eval_gradient_scatter(
        &mut ws,
        &EvalInputs::new(&neg_data, &x, &theta),
        &globals,
        &mut got_g
    ));
    assert_eq!(bits(&got_g), bits(&g0));
}

/// The augmentation kernel (values added into rows at given positions) against the
/// interpreter's values added the same way: bitwise, with repeated rows and a row past the
/// end (skipped), also with threads (on one thread); the interpreter, too few rows and
/// patterns compiled without it decline and leave the rows alone.
#[test]
fn augmentation_value_scatter_bitwise() {
    let n = 301;
    let i0: Vec<i64> = (0..n as i64).map(|k| (k * 13) % 97).collect();
    let r0: Vec<f64> = (0..n).map(|k| (k as f64 * 0.7).sin()).collect();
    let ints: [&[i64]; 1] = [&i0];
    let reals: [&[f64]; 1] = [&r0];
    let data = DataView::new(n, &reals, &ints);
    let x: Vec<f64> = (0..97).map(|k| 0.1 + (k as f64 * 0.05).cos()).collect();
    let f0 = Index::field(0);
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    let e = Expr::data(0) * (&xa * 2.0).exp() - xa.abs2();
    let jit =
        Pattern::<f64>::compile_augment_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(jit.evaluator(), Evaluator::Jit);
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    let mut ws = jit.workspace();
    let mut v = vec![0.0; n];
    interp.eval_values(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut v);
    let len = 40;
    let rows: Vec<usize> = (0..n)
        .map(|k| if k == 9 { len + 2 } else { (k * 5) % len })
        .collect();
    let mut want: Vec<f64> = (0..len).map(|k| k as f64 * 0.5 - 3.0).collect();
    let mut got = want.clone();
    for (&r, &val) in rows.iter().zip(&v) {
        if r < len {
            want[r] += val;
        }
    }
    assert!(jit.eval_value_scatter(&mut ws, &EvalInputs::new(&data, &x, &[]), &rows, &mut got));
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        assert_eq!(a.to_bits(), b.to_bits(), "row {k}: {a:e} vs {b:e}");
    }
    let before = got.clone();
    assert!(!interp.eval_value_scatter(&mut ws, &EvalInputs::new(&data, &x, &[]), &rows, &mut got));
    // with threads: on one thread, the same bits
    let par = Parallelism::rayon_batches(1);
    let mut ws4 = jit.workspace_for_tasks(4);
    let mut threaded: Vec<f64> = (0..len).map(|k| k as f64 * 0.5 - 3.0).collect();
    assert!(jit.eval_value_scatter(
        &mut ws4,
        &EvalInputs::new(&data, &x, &[]).parallel(par),
        &rows,
        &mut threaded
    ));
    assert_eq!(threaded, before);
    assert!(!jit.eval_value_scatter(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        &rows[..10],
        &mut got
    ));
    let plain = Pattern::<f64>::compile_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert!(!plain.eval_value_scatter(&mut ws, &EvalInputs::new(&data, &x, &[]), &rows, &mut got));
    // an objective pattern's summing kernel is not taken for a scatter, nor the reverse
    let objective =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert!(!objective.eval_value_scatter(
        &mut ws,
        &EvalInputs::new(&data, &x, &[]),
        &rows,
        &mut got
    ));
    let mut total = 0.0;
    assert!(!jit.eval_value_sum(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut total));
    assert_eq!(total, 0.0);
    assert_eq!(got, before);
}

/// Hessian outputs that are negations of other values (`(a − b)²` gives `2`, `−2`, `2`
/// times a factor) are weighted by the JIT as `−(w · u)`, sharing `w · u`: bitwise the
/// interpreter's `w · (−u)` at every weight and point, special values included (a NaN may
/// differ only in its sign bit, which `same` ignores).
#[test]
fn negated_hessian_outputs_weigh_bitwise() {
    let n = POINTS.len() * POINTS.len();
    let at = |col: u32| Expr::var(VarRef::new(0, vec![Index::field(col)], Index::field(col)));
    let (a, b) = (at(0), at(1));
    let e = (&a - &b).powi(2) * a.sin() + (&a * &b).cos() - (&b - &a).exp() / &a;
    let first: Vec<i64> = (0..n as i64).collect();
    let second: Vec<i64> = (0..n as i64).map(|k| k + n as i64).collect();
    let ints: [&[i64]; 2] = [&first, &second];
    let data = DataView::new(n, &[], &ints);
    // every pair of special and ordinary values, each point its own weight
    let x: Vec<f64> = (0..2 * n)
        .map(|k| match k < n {
            true => POINTS[k / POINTS.len()],
            false => POINTS[(k - n) % POINTS.len()] * 0.75,
        })
        .collect();
    let w: Vec<f64> = (0..n).map(|k| POINTS[(k * 7 + 3) % POINTS.len()]).collect();
    let jit = Pattern::<f64>::compile_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(jit.evaluator(), Evaluator::Jit);
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    let mut hs = Vec::new();
    for p in [&jit, &interp] {
        let mut ws = p.workspace();
        let mut h = vec![0.0; n * p.nhess()];
        p.eval_hessians(&mut ws, &EvalInputs::new(&data, &x, &[]), &w, &mut h);
        hs.push(h);
    }
    for (i, (&u, &v)) in hs[0].iter().zip(&hs[1]).enumerate() {
        assert!(same(u, v), "hessian[{i}]: jit {u:e} vs interp {v:e}");
    }
}

/// The construction-time rewrites that move negations (`(−a)·b → −(a·b)`, `a + (−b) →
/// a − b`, `−a + b → b − a`, `a − (−b) → a + b`, `(−a)/b → −(a/b)`, `a/(−b) → −(a/b)`)
/// give the bits of the formula as written, at every pair of special and ordinary values,
/// with both evaluators.
#[test]
fn moved_negations_keep_the_bits() {
    let n = POINTS.len() * POINTS.len();
    let at = |col: u32| Expr::var(VarRef::new(0, vec![Index::field(col)], Index::field(col)));
    let (a, b) = (at(0), at(1));
    let cases: [(Expr, fn(f64, f64) -> f64); 6] = [
        (-&a * &b, |a, b| (-a) * b),
        (&a + -&b, |a, b| a + (-b)),
        (-&a + &b, |a, b| (-a) + b),
        (&a - -&b, |a, b| a - (-b)),
        (-&a / &b, |a, b| (-a) / b),
        (&a / -&b, |a, b| a / (-b)),
    ];
    let first: Vec<i64> = (0..n as i64).collect();
    let second: Vec<i64> = (0..n as i64).map(|k| k + n as i64).collect();
    let ints: [&[i64]; 2] = [&first, &second];
    let data = DataView::new(n, &[], &ints);
    let x: Vec<f64> = (0..2 * n)
        .map(|k| match k < n {
            true => POINTS[k / POINTS.len()],
            false => POINTS[(k - n) % POINTS.len()],
        })
        .collect();
    for (case, (e, f)) in cases.iter().enumerate() {
        for evaluator in [Evaluator::Jit, Evaluator::Interp] {
            let p = Pattern::<f64>::compile_for(e, SecondOrder::default(), evaluator).unwrap();
            let mut ws = p.workspace();
            let mut v = vec![0.0; n];
            p.eval_values(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut v);
            for (k, &got) in v.iter().enumerate() {
                let want = f(x[k], x[n + k]);
                assert!(
                    same(got, want),
                    "case {case} ({evaluator:?}) at ({:e}, {:e}): {got:e} vs {want:e}",
                    x[k],
                    x[n + k]
                );
            }
        }
    }
}

/// The objective's gradient scatter split across threads by a [`ScatterPlan`]: bitwise
/// the one-thread scatter (the interpreter's gradients added in point order) for a banded
/// chain (few points run twice), positions shared by three chunks, repeated positions in
/// one point and positions past the end; plans that would not pay, or do not fit the
/// call (another task count, output length or positions), are declined or ignored.
#[test]
fn scatter_plan_keeps_the_bits() {
    let n = 4000;
    let i0: Vec<i64> = (0..n as i64).collect();
    let ints: [&[i64]; 1] = [&i0];
    let data = DataView::new(n, &[], &ints);
    let at = |off: i64| {
        let i = Index::field(0) + Index::Const(off);
        Expr::var(VarRef::new(0, vec![i.clone()], i))
    };
    // Rosenbrock's term: slots x[k], x[k+1]
    let e = 100.0 * (at(0).abs2() - at(1)).abs2() + (at(0) - 1.0).abs2();
    let jit =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    let ns = jit.nslots();
    assert_eq!(ns, 2);
    let x: Vec<f64> = (0..=n).map(|k| -1.2 + (k as f64 * 0.37).sin()).collect();
    let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let par = Parallelism::rayon_batches(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let mut ws = pool.install(|| jit.workspace_for_tasks(3));
    // native code: up to 4 tasks per register file
    let tasks = Pattern::tasks(par, n, &ws);
    assert_eq!(tasks, 12);
    let inputs = EvalInputs::new(&data, &x, &[]).parallel(par);
    let bounds = jit.index_bounds(&data).unwrap();
    let mut gr = vec![0.0; n * ns];
    interp.eval_gradients(&mut ws, &EvalInputs::new(&data, &x, &[]), None, &mut gr);
    let scatter_both = |globals: &[usize], len: usize, ws: &mut Workspace<f64>| {
        let mut want = vec![0.0; len];
        for (&gi, &v) in globals.iter().zip(&gr) {
            if gi < len {
                want[gi] += v;
            }
        }
        let plan = ScatterPlan::new(globals, ns, n, tasks, len, 8);
        let mut got = vec![0.0; len];
        // SAFETY: `bounds` is `index_bounds` of this pattern over this very `data`.
        let done = pool.install(|| unsafe {
            jit.eval_gradient_scatter_split_bounded(
                ws,
                &inputs,
                &bounds,
                globals,
                plan.as_ref(),
                &mut got,
            )
        });
        assert!(done);
        assert_eq!(bits(&got), bits(&want));
        plan
    };
    // the chain: x[k], x[k+1]; the first point of every chunk but the first runs twice
    let chain: Vec<usize> = (0..n).flat_map(|k| [k, k + 1]).collect();
    let plan = scatter_both(&chain, n + 1, &mut ws).expect("a banded chain has a plan");
    assert_eq!((plan.tasks(), plan.requested_tasks()), (12, 12));
    let firsts: Vec<usize> = (1..12).map(|t| t * 334).collect();
    assert_eq!(plan.repeated_points(), &firsts[..]);
    // with every position summed in a few places: x[0] for the first slot of every
    // 100th point (shared by all chunks), a point adding twice into one position, and
    // positions past the end
    let mixed: Vec<usize> = (0..n)
        .flat_map(|k| match k {
            _ if k % 100 == 0 => [0, k + 1],
            7 | 2001 => [k, k],
            _ if k % 333 == 0 => [k, n + 5],
            _ => [k, k + 1],
        })
        .collect();
    let plan = scatter_both(&mixed, n + 1, &mut ws).expect("few points reach back");
    assert!(plan.repeated_points().contains(&1400));
    assert!(plan.repeated_points().len() <= n / 8);
    // everything into a few positions: no plan (one thread)
    let dense: Vec<usize> = (0..n * ns).map(|e| e % 5).collect();
    assert!(scatter_both(&dense, 5, &mut ws).is_none());
    // a plan that does not fit the call is ignored (one thread, the same bits)
    let other = ScatterPlan::new(&chain, ns, n, 3, n + 1, 8).unwrap();
    let short = ScatterPlan::new(&chain, ns, n, tasks, n, 8).unwrap();
    for plan in [&other, &short] {
        let mut want = vec![0.0; n + 1];
        for (&gi, &v) in chain.iter().zip(&gr) {
            want[gi] += v;
        }
        let mut got = vec![0.0; n + 1];
        // SAFETY: as above.
        let done = pool.install(|| unsafe {
            jit.eval_gradient_scatter_split_bounded(
                &mut ws,
                &inputs,
                &bounds,
                &chain,
                Some(plan),
                &mut got,
            )
        });
        assert!(done);
        assert_eq!(bits(&got), bits(&want));
    }
    // fewer whole chunks than asked for: 9 points in 4 chunks of 3
    let few = ScatterPlan::new(&chain[..18], ns, 9, 4, n + 1, 1).unwrap();
    assert_eq!((few.tasks(), few.requested_tasks()), (3, 4));
    // declined: fewer points than chunks, one chunk, short positions
    assert!(ScatterPlan::new(&chain[..4], ns, 2, 3, n + 1, 8).is_none());
    assert!(ScatterPlan::new(&chain, ns, n, 1, n + 1, 8).is_none());
    assert!(ScatterPlan::new(&chain[..10], ns, n, 3, n + 1, 8).is_none());
}

/// The interpreter's gradients of `p` added into `g0` at the slots' own positions
/// ([`Pattern::slot_globals`]), point by point and slot by slot: what the gradient
/// scatter at the slots' positions must give bitwise.
fn scattered_at_slots(
    p: &Pattern<f64>,
    data: &DataView<'_, f64>,
    x: &[f64],
    g0: &[f64],
) -> Vec<f64> {
    let mut interp = p.clone();
    interp.set_evaluator(Evaluator::Interp);
    let (n, ns) = (data.len, p.nslots());
    let mut ws = interp.workspace();
    let mut gr = vec![0.0; n * ns];
    interp.eval_gradients(&mut ws, &EvalInputs::new(data, x, &[]), None, &mut gr);
    let mut at = vec![0; ns];
    let mut g = g0.to_vec();
    for k in 0..n {
        p.slot_globals(data, k, &mut at);
        for (&gi, &v) in at.iter().zip(&gr[k * ns..(k + 1) * ns]) {
            g[gi] += v;
        }
    }
    g
}

/// The objective's gradient added at the slots' own positions (read from the data column
/// the `x` loads read, no positions array, no check per position): bitwise the
/// interpreter's gradients added at `slot_globals` in point and slot order, and bitwise
/// the scatter through the positions array; with repeated positions across points, two
/// slots of one point at the same position and a slot at a constant position. Declined,
/// `g` untouched: `g`, `x` or `θ` shorter than the bounds, the interpreter, a slot whose
/// position is computed, a pattern compiled without the objective kernels.
#[test]
fn gradient_scatter_at_slots_bitwise() {
    let n = 701;
    let m = 300;
    let i0: Vec<i64> = (0..n as i64).map(|k| (k * 37) % (m - 3)).collect();
    let i1: Vec<i64> = (0..n as i64).map(|k| (k * 11 + 5) % (m - 3)).collect();
    let ints: [&[i64]; 2] = [&i0, &i1];
    let data = DataView::new(n, &[], &ints);
    let at = |col: u32, off: i64| {
        let i = Index::field(col) + Index::Const(off);
        Expr::var(VarRef::new(0, vec![i.clone()], i))
    };
    // x[i0], x[i0 + 2], x[i1] (equal to x[i0 + 2] at some points), x[7]
    let e = 100.0 * (at(0, 0).abs2() - at(0, 2)).abs2()
        + (at(0, 0) - 1.0).abs2()
        + at(1, 0).sin() * at(0, 2)
        + var(7).exp() * at(0, 0);
    let jit =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert_eq!(jit.nslots(), 4);
    let x: Vec<f64> = (0..m as usize)
        .map(|k| 0.2 + (k as f64 * 0.03).sin())
        .collect();
    let g0: Vec<f64> = (0..m as usize).map(|k| k as f64 * 0.01).collect();
    let want = scattered_at_slots(&jit, &data, &x, &g0);
    let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let mut ws = jit.workspace();
    let inputs = EvalInputs::new(&data, &x, &[]);
    let mut got = g0.clone();
    assert!(jit.eval_gradient_scatter_at_slots(&mut ws, &inputs, &mut got));
    assert_eq!(bits(&got), bits(&want));
    let bounds = jit.index_bounds(&data).unwrap();
    assert_eq!(bounds.x_len, m as usize - 1);
    let mut got = g0.clone();
    // SAFETY: `bounds` is `index_bounds` of this pattern over this very `data`.
    let done =
        unsafe { jit.eval_gradient_scatter_at_slots_bounded(&mut ws, &inputs, &bounds, &mut got) };
    assert!(done);
    assert_eq!(bits(&got), bits(&want));
    // the same bits through the positions array
    let ns = jit.nslots();
    let mut globals = vec![0; n * ns];
    for (k, g) in globals.chunks_exact_mut(ns).enumerate() {
        jit.slot_globals(&data, k, g);
    }
    let mut got = g0.clone();
    assert!(jit.eval_gradient_scatter(&mut ws, &inputs, &globals, &mut got));
    assert_eq!(bits(&got), bits(&want));
    // `g` one shorter than the last position: declined, `g` untouched
    let mut short = g0[..bounds.x_len - 1].to_vec();
    assert!(!jit.eval_gradient_scatter_at_slots(&mut ws, &inputs, &mut short));
    // SAFETY: as above.
    let done = unsafe {
        jit.eval_gradient_scatter_at_slots_bounded(&mut ws, &inputs, &bounds, &mut short)
    };
    assert!(!done);
    assert_eq!(bits(&short), bits(&g0[..bounds.x_len - 1]));
    // `x` one shorter: declined
    let mut got = g0.clone();
    let short_x = EvalInputs::new(&data, &x[..bounds.x_len - 1], &[]);
    assert!(!jit.eval_gradient_scatter_at_slots(&mut ws, &short_x, &mut got));
    assert_eq!(bits(&got), bits(&g0));
    // the interpreter, a plain pattern: declined
    let mut interp = jit.clone();
    interp.set_evaluator(Evaluator::Interp);
    assert!(!interp.eval_gradient_scatter_at_slots(&mut ws, &inputs, &mut got));
    let plain = Pattern::<f64>::compile_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    assert!(!plain.eval_gradient_scatter_at_slots(&mut ws, &inputs, &mut got));
    assert_eq!(bits(&got), bits(&g0));
    // a linear term (a constant gradient: the program reads no `x`, the positions'
    // column is loaded for the scatter alone)
    let linear = 2.5 * at(1, 0) - at(0, 2) * 0.75;
    let lin =
        Pattern::<f64>::compile_objective_for(&linear, SecondOrder::default(), Evaluator::Jit)
            .unwrap();
    assert_eq!(lin.evaluator(), Evaluator::Jit);
    let want = scattered_at_slots(&lin, &data, &x, &g0);
    let mut got = g0.clone();
    assert!(lin.eval_gradient_scatter_at_slots(&mut ws, &inputs, &mut got));
    assert_eq!(bits(&got), bits(&want));
    // a computed position (x[2 i0]): no such code, declined, `g` untouched
    let twice = Index::field(0) * 2;
    let e2 = Expr::var(VarRef::new(0, vec![twice.clone()], twice)).abs2() + at(0, 0).sin();
    let computed =
        Pattern::<f64>::compile_objective_for(&e2, SecondOrder::default(), Evaluator::Jit).unwrap();
    let mut big = vec![0.0; 2 * m as usize];
    let xs: Vec<f64> = (0..2 * m as usize)
        .map(|k| (k as f64 * 0.1).cos())
        .collect();
    let inputs2 = EvalInputs::new(&data, &xs, &[]);
    assert!(!computed.eval_gradient_scatter_at_slots(&mut ws, &inputs2, &mut big));
    assert!(big.iter().all(|&v| v == 0.0));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// Random expressions over variables at data positions (two index columns with
    /// offsets, and a constant position), random index columns (repeats and equal
    /// positions of two slots included) and points: the scatter at the slots' positions
    /// is bitwise the interpreter's gradients added at `slot_globals`, in the 4-point
    /// loop and the one-point remainder.
    #[test]
    fn gradient_scatter_at_slots_random(
        steps in prop::collection::vec(step(), 1..16),
        cols in prop::collection::vec((0i64..20, 0i64..20), 1..40),
        x in prop::collection::vec(-2.0f64..2.0, 24),
    ) {
        let at = |col: u32, off: i64| {
            let i = Index::field(col) + Index::Const(off);
            Expr::var(VarRef::new(0, vec![i.clone()], i))
        };
        let vars = [at(0, 0), at(0, 1), at(1, 3), var(2)];
        let e = build(&steps, &vars);
        let jit = Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit)
            .unwrap();
        let i0: Vec<i64> = cols.iter().map(|c| c.0).collect();
        let i1: Vec<i64> = cols.iter().map(|c| c.1).collect();
        let ints: [&[i64]; 2] = [&i0, &i1];
        let data = DataView::new(cols.len(), &[], &ints);
        let g0: Vec<f64> = (0..x.len()).map(|k| k as f64 * 0.5).collect();
        let want = scattered_at_slots(&jit, &data, &x, &g0);
        let mut ws = jit.workspace();
        let mut got = g0.clone();
        let done = jit.eval_gradient_scatter_at_slots(
            &mut ws,
            &EvalInputs::new(&data, &x, &[]),
            &mut got,
        );
        // short programs: always native code
        prop_assert_eq!(jit.evaluator(), Evaluator::Jit);
        prop_assert!(done);
        for (k, (a, b)) in got.iter().zip(&want).enumerate() {
            prop_assert!(same(*a, *b), "g[{}]: {:e} vs {:e}", k, a, b);
        }
    }
}

/// The objective's summing code without a workspace (the column table on the stack):
/// bitwise the sum with a workspace; data with more than `STACK_COLUMNS` columns in all is
/// declined without a workspace (total untouched) and summed with one.
#[test]
fn objective_sum_without_workspace() {
    let n = 333;
    let i0: Vec<i64> = (0..n as i64).map(|k| (k * 13) % 97).collect();
    let r0: Vec<f64> = (0..n).map(|k| (k as f64 * 0.3).sin()).collect();
    let f0 = Index::field(0);
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    let e = Expr::data(0) * xa.abs2() + (&xa * 0.5).exp();
    let jit =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    let x: Vec<f64> = (0..97).map(|k| 0.1 * k as f64 - 3.0).collect();
    let mut ws = jit.workspace();
    // `STACK_COLUMNS` columns in all, then one more (unused by the pattern)
    let extra: Vec<Vec<i64>> = (0..STACK_COLUMNS).map(|c| vec![c as i64; n]).collect();
    for more in [STACK_COLUMNS - 2, STACK_COLUMNS - 1] {
        let reals: [&[f64]; 1] = [&r0];
        let mut ints: Vec<&[i64]> = vec![&i0];
        ints.extend(extra[..more].iter().map(|c| c.as_slice()));
        let data = DataView::new(n, &reals, &ints);
        let bounds = jit.index_bounds(&data).unwrap();
        let inputs = EvalInputs::new(&data, &x, &[]);
        let mut want = 0.25;
        assert!(jit.eval_value_sum(&mut ws, &inputs, &mut want));
        let mut with_ws = 0.25;
        let mut without = 0.25;
        // SAFETY: `bounds` is `index_bounds` of this pattern over this very `data`.
        let (a, b) = unsafe {
            (
                jit.eval_value_sum_bounded(&mut ws, &inputs, &bounds, &mut with_ws),
                jit.eval_value_sum_bounded_without_workspace(&inputs, &bounds, &mut without),
            )
        };
        assert!(a);
        assert_eq!(with_ws.to_bits(), want.to_bits());
        if 2 + more <= STACK_COLUMNS {
            assert!(b);
            assert_eq!(without.to_bits(), want.to_bits());
        } else {
            assert!(!b);
            assert_eq!(without, 0.25);
        }
    }
}

/// The gradient at the slots' own positions split across threads by a [`ScatterPlan`]
/// made from those positions: bitwise the one-thread sums (the interpreter's gradients
/// added in point order), with positions shared by every chunk (`x[0]` at every 100th
/// point) and a banded chain; a plan that does not fit runs on one thread, the same bits.
#[test]
fn scatter_plan_at_slots_keeps_the_bits() {
    let n = 4000;
    let i0: Vec<i64> = (0..n as i64).collect();
    let i1: Vec<i64> = (0..n as i64)
        .map(|k| if k % 100 == 0 { 0 } else { k + 1 })
        .collect();
    let ints: [&[i64]; 2] = [&i0, &i1];
    let data = DataView::new(n, &[], &ints);
    let at = |col: u32, off: i64| {
        let i = Index::field(col) + Index::Const(off);
        Expr::var(VarRef::new(0, vec![i.clone()], i))
    };
    let e = 100.0 * (at(0, 0).abs2() - at(0, 1)).abs2()
        + (at(0, 0) - 1.0).abs2()
        + at(1, 0).sin() * at(0, 0);
    let jit =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    let ns = jit.nslots();
    assert_eq!(ns, 3);
    let x: Vec<f64> = (0..=n).map(|k| -1.2 + (k as f64 * 0.37).sin()).collect();
    let g0: Vec<f64> = (0..=n).map(|k| k as f64 * 1e-3).collect();
    let want = scattered_at_slots(&jit, &data, &x, &g0);
    let mut globals = vec![0; n * ns];
    for (k, g) in globals.chunks_exact_mut(ns).enumerate() {
        jit.slot_globals(&data, k, g);
    }
    let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let par = Parallelism::rayon_batches(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let mut ws = pool.install(|| jit.workspace_for_tasks(3));
    let tasks = Pattern::tasks(par, n, &ws);
    let inputs = EvalInputs::new(&data, &x, &[]).parallel(par);
    let bounds = jit.index_bounds(&data).unwrap();
    let plan = ScatterPlan::new(&globals, ns, n, tasks, n + 1, 8).expect("few points reach back");
    assert!(plan.repeated_points().len() > tasks);
    let other = ScatterPlan::new(&globals, ns, n, 3, n + 1, 8).unwrap();
    for plan in [Some(&plan), Some(&other), None] {
        let mut got = g0.clone();
        // SAFETY: `bounds` is `index_bounds` of this pattern over this very `data`,
        // `globals` its slots' positions and the plans made from them.
        let done = pool.install(|| unsafe {
            jit.eval_gradient_scatter_at_slots_split_bounded(
                &mut ws, &inputs, &bounds, &globals, plan, &mut got,
            )
        });
        assert!(done);
        assert_eq!(bits(&got), bits(&want));
    }
}

/// The JIT's loops over two blocks of 8 points per iteration (bodies that call `exp`,
/// `sin`, `cos`), then one point at a time (up to 15 points), and the 8-point loop of the
/// programs without lane calls: every split of a range's points between them (counts
/// around 8 and 16 from 1 to 49, and the same on threads, whose chunks start inside the
/// data) gives the interpreter's bits, for values, gradients, Hessians, and the objective's
/// sum and gradient scatter.
#[test]
fn wide_loop_block_boundaries_bitwise() {
    let total = 49;
    let i0: Vec<i64> = (0..total as i64).map(|k| (k * 7) % 40).collect();
    let r0: Vec<f64> = (0..total).map(|k| (k as f64 * 0.37).sin()).collect();
    let x: Vec<f64> = (0..41).map(|k| -1.5 + 0.075 * k as f64).collect();
    let f0 = Index::field(0);
    let xa = Expr::var(VarRef::new(0, vec![f0.clone()], f0.clone()));
    let xb = Expr::var(VarRef::new(0, vec![], f0.clone() + 1));
    let e = 3.0 * xb.powi(3) + (&xa - &xb).sin() * (&xa + &xb).sin() - &xa * (&xa - &xb).exp()
        + Expr::data(0) * xb.cos();
    let obj =
        Pattern::<f64>::compile_objective_for(&e, SecondOrder::default(), Evaluator::Jit).unwrap();
    let mut interp = obj.clone();
    interp.set_evaluator(Evaluator::Interp);
    for n in [
        1, 2, 7, 8, 9, 14, 15, 16, 17, 18, 23, 24, 25, 30, 31, 32, 33, 40, 47, 48, 49,
    ] {
        let ints: [&[i64]; 1] = [&i0[..n]];
        let reals: [&[f64]; 1] = [&r0[..n]];
        let data = DataView::new(n, &reals, &ints);
        for par in [Parallelism::Sequential, Parallelism::rayon_batches(1)] {
            check(&format!("{n} points"), &e, &data, &x, &[], par);
        }
        // the objective's sum and gradient scatter (point order)
        let mut ws = obj.workspace();
        let mut v = vec![0.0; n];
        interp.eval_values(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut v);
        let want = v.iter().fold(0.25, |a, &b| a + b);
        let mut got = 0.25;
        assert!(obj.eval_value_sum(&mut ws, &EvalInputs::new(&data, &x, &[]), &mut got));
        assert_eq!(got.to_bits(), want.to_bits(), "{n} points: sum");
        let ns = obj.nslots();
        let mut gr = vec![0.0; n * ns];
        interp.eval_gradients(&mut ws, &EvalInputs::new(&data, &x, &[]), None, &mut gr);
        let globals: Vec<usize> = (0..n * ns).map(|e| (e * 5) % x.len()).collect();
        let mut want_g = vec![0.125; x.len()];
        for (&gi, &val) in globals.iter().zip(&gr) {
            want_g[gi] += val;
        }
        let mut got_g = vec![0.125; x.len()];
        assert!(obj.eval_gradient_scatter(
            &mut ws,
            &EvalInputs::new(&data, &x, &[]),
            &globals,
            &mut got_g
        ));
        for (k, (a, b)) in got_g.iter().zip(&want_g).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "{n} points: g[{k}]");
        }
    }
}
