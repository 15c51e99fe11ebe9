#![allow(clippy::erasing_op)]
//! Construction-time simplification rules, index folding, printing, slots and CSE.

use simdnlp_ad::*;

fn var(k: i64) -> Expr {
    Expr::var(VarRef::new(0, vec![Index::Const(k)], Index::Const(k)))
}

fn s(e: &Expr) -> String {
    e.display(&DefaultNamer)
}

#[test]
fn simplification_rules() {
    let x = var(0);
    assert_eq!(s(&(&x + 0)), "x#0[0]");
    assert_eq!(s(&(0.0 + &x)), "x#0[0]");
    assert_eq!(s(&(&x - 0)), "x#0[0]");
    assert_eq!(s(&(0 - &x)), "-x#0[0]");
    assert_eq!(s(&(&x * 1)), "x#0[0]");
    assert_eq!(s(&(1.0 * &x)), "x#0[0]");
    assert_eq!(s(&(&x / 1)), "x#0[0]");
    assert_eq!(s(&x.powi(0)), "1");
    assert_eq!(s(&x.powf(0.0)), "1");
    assert_eq!(s(&x.pow(0)), "1");
    assert_eq!(s(&x.powi(1)), "x#0[0]");
    assert_eq!(s(&x.pow(1.0)), "x#0[0]");
    assert_eq!(s(&x.powi(2)), "x#0[0]^2");
    assert!(x.powi(2).ptr_eq(&x.powi(2)) || s(&x.powi(2)) == s(&x.abs2()));
    assert_eq!(s(&x.pow(2)), s(&x.abs2()));
    assert_eq!(s(&x.powi(-1)), "1/x#0[0]");
    assert_eq!(s(&x.powf(-1.0)), s(&x.inv()));
    assert_eq!((0 * &x).as_const(), Some(0.0));
    assert_eq!((&x * 0.0).as_const(), Some(0.0));
    assert_eq!((0 / &x).as_const(), Some(0.0));
    assert_eq!(s(&(-(-&x))), "x#0[0]");
    assert_eq!(s(&(-1 * &x)), "-x#0[0]");
    assert_eq!(s(&(&x / -1)), "-x#0[0]");
    // constant folding
    assert_eq!((Expr::from(2) * 3 + 1.5).as_const(), Some(7.5));
    assert_eq!(Expr::constant(0.0).exp().as_const(), Some(1.0));
    assert_eq!(Expr::constant(2.0).powi(3).as_const(), Some(8.0));
    assert_eq!(
        Expr::constant(2.0).atan2(0.0).as_const(),
        Some(2.0f64.atan2(0.0))
    );
    // exact only: no folding that would change rounding
    assert_eq!(s(&(3.0 * (0.1 * &x))), "3*(0.1*x#0[0])");
    // not even scalings by powers of two merge (they could overflow in between)
    assert_eq!(s(&(2.0 * (0.1 * &x))), "2*(0.1*x#0[0])");
    // negation moves into the constant exactly
    assert_eq!(s(&(-(3.0 * &x))), "-3*x#0[0]");
    assert_eq!(s(&(3.0 * -&x)), "-3*x#0[0]");
    // negations move out of products and quotients and into sums and differences, where
    // IEEE 754 gives the same bits (a NaN's sign aside)
    let y = var(1);
    assert_eq!(s(&(-&x * &y)), "-(x#0[0]*x#0[1])");
    assert_eq!(s(&(&x * -&y)), "-(x#0[0]*x#0[1])");
    assert_eq!(s(&(-&x / &y)), "-(x#0[0]/x#0[1])");
    assert_eq!(s(&(&x / -&y)), "-(x#0[0]/x#0[1])");
    assert_eq!(s(&(&x + -&y)), "x#0[0] - x#0[1]");
    assert_eq!(s(&(-&x + &y)), "x#0[1] - x#0[0]");
    assert_eq!(s(&(&x - -&y)), "x#0[0] + x#0[1]");
    // not `-x - y` -> `-(x + y)`: at x = +0, y = -0 they differ in the sign of zero
    assert_eq!(s(&(-&x - &y)), "-x#0[0] - x#0[1]");
    // constants move left of products, right of sums (IEEE commutes exactly)
    assert_eq!(s(&(&x * 3)), "3*x#0[0]");
    assert_eq!(s(&(1 + &x)), "x#0[0] + 1");
    assert_eq!(s(&(&x - 1)), "x#0[0] - 1");
    // a non-finite fold is left symbolic
    assert!(Expr::constant(0.0).log().as_const().is_none());
}

#[test]
fn mixed_literals() {
    let dt = var(0);
    let (v0, v1) = (var(1), var(2));
    let e = 0.5 * &dt * (&v1 + &v0);
    assert_eq!(s(&e), "0.5*x#0[0]*(x#0[2] + x#0[1])");
    assert_eq!(s(&(2 * &dt)), "2*x#0[0]");
    assert_eq!(s(&(&dt / 3)), "x#0[0]/3");
    let i = Index::field(0);
    assert_eq!(s(&(&dt * &i)), "x#0[0]*i0");
    assert_eq!(s(&(&i + &dt)), "i0 + x#0[0]");
}

#[test]
fn index_folding_and_printing() {
    let i = Index::field(0);
    assert_eq!(&i - 1 + 1, i);
    assert_eq!((&i + 2) + 3, &i + 5);
    assert_eq!(3 + &i, &i + 3);
    assert_eq!(&i * 1, i);
    assert_eq!(&i * 0, Index::Const(0));
    assert_eq!((&i + 1) * 2, &i * 2 + 2);
    assert_eq!(Index::Const(3) + Index::Const(4), Index::Const(7));
    assert_eq!((&i - 1).to_string(), "i0 - 1");
    assert_eq!((&i * 2 + 1).to_string(), "2*i0 + 1");
    assert_eq!((&i - Index::field(1)).to_string(), "i0 - i1");
    assert_eq!(Index::Const(7).floor_div(2), Index::Const(3));
    assert_eq!(Index::Const(-7).floor_div(2), Index::Const(-4));
    assert_eq!(Index::Const(-7).modulo(3), Index::Const(2));
    let ints: [&[i64]; 2] = [&[10, -3], &[4, 4]];
    let d = DataView::<f64>::new(2, &[], &ints);
    let e = (&i * 3 - Index::field(1)).floor_div(Index::field(1));
    assert_eq!(e.eval(&d, 0), 6); // (30 - 4) / 4 = 6.5 -> 6
    assert_eq!(e.eval(&d, 1), -4); // (-9 - 4) / 4 = -3.25 -> -4
    assert_eq!(Index::field(5).eval(&d, 0), i64::MIN); // missing column
}

struct N;
impl Namer for N {
    fn var(&self, b: u32) -> String {
        ["x", "y"][b as usize].into()
    }
    fn param(&self, _: u32) -> String {
        "p".into()
    }
    fn real_field(&self, _: u32) -> String {
        "c".into()
    }
    fn int_field(&self, _: u32) -> String {
        "i".into()
    }
}

#[test]
fn printing_as_mathematics() {
    let i = Index::field(0);
    let x = |ix: Index| Expr::var(VarRef::new(0, vec![ix.clone()], ix));
    let y = |a: Index, b: Index| Expr::var(VarRef::new(1, vec![a, b.clone()], b * 10));
    let p = Expr::param(VarRef::new(0, vec![Index::Const(0)], Index::Const(0)));
    let e = 100 * (x(i.clone()).powi(2) - x(&i + 1)).powi(2) + (x(i.clone()) - 1).powi(2);
    assert_eq!(e.display(&N), "100*(x[i]^2 - x[i + 1])^2 + (x[i] - 1)^2");
    let e2 = (x(i.clone()).sin() + Expr::data(0) * &p) / (1 - y(i.clone(), &i - 1).exp());
    assert_eq!(
        e2.display(&N),
        "(sin(x[i]) + c*p[0])/(1 - exp(y[i, i - 1]))"
    );
    let e3 =
        -(x(i.clone()) - x(&i * 2)).powi(3) - (-x(i.clone())).atan2(2.0) * x(i.clone()).powf(-0.5);
    assert_eq!(
        e3.display(&N),
        "-(x[i] - x[2*i])^3 - atan2(-x[i], 2)*x[i]^(-0.5)"
    );
    let e4 = x(i.clone()) - (x(i.clone()) - 2.5) / (x(i.clone()) * 3);
    assert_eq!(e4.display(&N), "x[i] - (x[i] - 2.5)/(3*x[i])");
    assert_eq!(Expr::index(&i * 2).display(&N), "(2*i)");
    assert_eq!(
        format!("{}", x(i.clone()).pow(x(i.clone()))),
        "x#0[i0]^x#0[i0]"
    );
}

/// Blocks 2 and 3 are scalars (`a`, `b`); 0 and 1 are arrays.
struct Scalars;
impl Namer for Scalars {
    fn var(&self, b: u32) -> String {
        ["x", "y", "a", "b"][b as usize].into()
    }
    fn param(&self, _: u32) -> String {
        "p".into()
    }
    fn real_field(&self, _: u32) -> String {
        "d.t".into()
    }
    fn int_field(&self, _: u32) -> String {
        "i".into()
    }
    fn is_scalar(&self, b: u32) -> bool {
        b >= 2
    }
}

#[test]
fn scalar_blocks_print_by_name() {
    // two scalar blocks at flat positions 0 and 1 have no dimensions to print
    let a = Expr::var(VarRef::new(2, vec![], Index::Const(0)));
    let b = Expr::var(VarRef::new(3, vec![], Index::Const(1)));
    let e = a.clone() * (b * Expr::data(0)).exp();
    assert_eq!(e.display(&Scalars), "a*exp(b*d.t)");
    // a namer that does not know the block prints the flat position, as before
    assert_eq!(e.display(&N2), "x[0]*exp(x[1]*c)");
    // arrays keep their positions even with a scalar-aware namer
    let x = Expr::var(VarRef::new(0, vec![Index::Const(4)], Index::Const(4)));
    assert_eq!((x * a).display(&Scalars), "x[4]*a");
}

/// Like [`N`], but every variable block is named `x`.
struct N2;
impl Namer for N2 {
    fn var(&self, _: u32) -> String {
        "x".into()
    }
    fn param(&self, _: u32) -> String {
        "p".into()
    }
    fn real_field(&self, _: u32) -> String {
        "c".into()
    }
    fn int_field(&self, _: u32) -> String {
        "i".into()
    }
}

#[test]
fn slots_merge_and_structural_zeros_are_pruned() {
    let i = Index::field(0);
    let x = |ix: Index| Expr::var(VarRef::new(0, vec![ix.clone()], ix));
    // x[i] written two ways is one slot; sign/floor contribute no derivative
    let e = x(i.clone()) * x(&i - 1 + 1) + x(&i + 1).sign() + x(&i + 2).floor() * 3 + x(&i + 3);
    let p = Pattern::<f64>::compile(&e).unwrap();
    let slots: Vec<Index> = p.slots().iter().map(|r| r.global.clone()).collect();
    assert_eq!(slots, vec![i.clone(), &i + 3]);
    // ... but every variable read is listed for validation
    let all: Vec<Index> = p.var_refs().iter().map(|r| r.global.clone()).collect();
    assert_eq!(all, vec![i.clone(), &i + 1, &i + 2, &i + 3]);
    let ints: [&[i64]; 1] = [&[7]];
    let d = DataView::<f64>::new(1, &[], &ints);
    let mut pos = [0usize; 4];
    p.var_globals(&d, 0, &mut pos);
    assert_eq!(pos, [7, 8, 9, 10]);
    assert_eq!(p.hess_slots(), &[(0, 0)]);
    // affine patterns have no second-order slots
    let a = Pattern::<f64>::compile(&(2 * x(i.clone()) - 3.5 * x(&i + 1) + Expr::data(0))).unwrap();
    assert!(a.hess_slots().is_empty());
    assert_eq!(a.nslots(), 2);
    // bilinear: only the off-diagonal
    let b = Pattern::<f64>::compile(&(x(i.clone()) * x(&i + 1))).unwrap();
    assert_eq!(b.hess_slots(), &[(1, 0)]);
    // x^2 + y: only the diagonal of x
    let c = Pattern::<f64>::compile(&(x(i.clone()).powi(2) + x(&i + 1))).unwrap();
    assert_eq!(c.hess_slots(), &[(0, 0)]);
}

#[test]
fn common_subexpressions_are_computed_once() {
    let x = var(0);
    let y = var(1);
    // the same subexpression built twice (different Arcs) and used three times
    let e = (&x * &y).sin() + (&x * &y).sin() * (&x * &y).sin();
    let p = Pattern::<f64>::compile(&e).unwrap();
    let [v, _, _] = p.stats();
    // nodes: x, y, x*y, sin, sin*sin, + = 6
    assert_eq!(v.nodes, 6);
    let data = DataView::empty(1);
    let mut out = [0.0];
    p.eval_values(
        &mut p.workspace(),
        &EvalInputs::new(&data, &[0.5, 0.7], &[]),
        &mut out,
    );
    let t = (0.35f64).sin();
    assert_eq!(out[0], t + t * t);
}

#[test]
fn parameters_and_data() {
    let i = Index::field(0);
    let x = Expr::var(VarRef::new(0, vec![i.clone()], i.clone()));
    let th = Expr::param(VarRef::new(0, vec![Index::field(1)], Index::field(1)));
    let e = Expr::data(0) * &x.powi(2) + &th * &x + Expr::index(i.clone());
    let p = Pattern::<f64>::compile(&e).unwrap();
    assert_eq!(p.params().len(), 1);
    let reals: [&[f64]; 1] = [&[2.0, 3.0]];
    let ints: [&[i64]; 2] = [&[0, 1], &[1, 0]];
    let data = DataView::new(2, &reals, &ints);
    p.check_data(&data).unwrap();
    let x0 = [1.5, -2.0];
    let theta = [10.0, 20.0];
    let mut v = [0.0; 2];
    let mut g = [0.0; 2];
    let mut h = [0.0; 2];
    let mut ws = p.workspace();
    p.eval_values(&mut ws, &EvalInputs::new(&data, &x0, &theta), &mut v);
    p.eval_gradients(&mut ws, &EvalInputs::new(&data, &x0, &theta), None, &mut g);
    p.eval_hessians(
        &mut ws,
        &EvalInputs::new(&data, &x0, &theta),
        &[1.0, 0.5],
        &mut h,
    );
    assert_eq!(v, [2.0 * 2.25 + 20.0 * 1.5, 3.0 * 4.0 + 10.0 * -2.0 + 1.0]);
    assert_eq!(g, [2.0 * 2.0 * 1.5 + 20.0, 2.0 * 3.0 * -2.0 + 10.0]);
    assert_eq!(h, [4.0, 3.0]);
    let mut pg = [0usize; 1];
    p.param_globals(&data, 1, &mut pg);
    assert_eq!(pg, [0]);
    // a missing column is a typed error
    let bad = DataView::new(2, &[], &ints);
    assert!(matches!(
        p.check_data(&bad),
        Err(AdError::MissingColumn {
            kind: "real",
            col: 0,
            ..
        })
    ));
    // out-of-range positions read NaN instead of panicking
    p.eval_values(&mut ws, &EvalInputs::new(&data, &x0[..1], &theta), &mut v);
    assert!(v[1].is_nan());
}

#[test]
fn index_division_by_zero_is_an_error() {
    let i = Index::Field(0).floor_div(Index::Const(0));
    let x = Expr::var(VarRef::new(0, vec![i.clone()], i));
    assert!(matches!(
        Pattern::<f64>::compile(&x.sin()),
        Err(AdError::IndexDivisionByZero { .. })
    ));
}

#[test]
fn second_order_modes_agree() {
    let (a, b, c) = (var(0), var(1), var(2));
    let e = (&a * &b).sin() * c.exp() + (&a / (1 + b.abs2())).atan() + a.hypot(&c) * &b;
    let p1 = Pattern::<f64>::compile_with(&e, SecondOrder::ReverseOverReverse).unwrap();
    let p2 = Pattern::<f64>::compile_with(&e, SecondOrder::ForwardOverReverse).unwrap();
    assert_eq!(p1.hess_slots(), p2.hess_slots());
    let data = DataView::empty(1);
    let x = [0.3, -0.8, 0.45];
    let mut h1 = vec![0.0; p1.nhess()];
    let mut h2 = vec![0.0; p2.nhess()];
    p1.eval_hessians(
        &mut p1.workspace(),
        &EvalInputs::new(&data, &x, &[]),
        &[1.0],
        &mut h1,
    );
    p2.eval_hessians(
        &mut p2.workspace(),
        &EvalInputs::new(&data, &x, &[]),
        &[1.0],
        &mut h2,
    );
    for (u, v) in h1.iter().zip(&h2) {
        assert!((u - v).abs() <= 1e-14 * (1.0 + u.abs()), "{u} vs {v}");
    }
}

#[test]
fn degenerate_patterns() {
    // a constant pattern and a parameter-only pattern: no slots, values still written
    let th = Expr::param(VarRef::new(0, vec![Index::Const(1)], Index::Const(1)));
    for (e, want) in [
        (Expr::constant(2.5), 2.5),
        (th.sin() * 2, 2.0 * 0.5f64.sin()),
    ] {
        let p = Pattern::<f64>::compile(&e).unwrap();
        assert_eq!((p.nslots(), p.nhess()), (0, 0));
        let data = DataView::empty(300);
        let mut ws = p.workspace();
        let mut v = vec![0.0; 300];
        p.eval_values(
            &mut ws,
            &EvalInputs::new(&data, &[], &[0.0, 0.5]).parallel(Parallelism::rayon_batches(1)),
            &mut v,
        );
        assert!(v.iter().all(|&a| a == want));
        let mut v2 = vec![0.0; 300];
        p.eval_gradients(
            &mut ws,
            &EvalInputs::new(&data, &[], &[0.0, 0.5]).parallel(Parallelism::rayon_batches(1)),
            Some(&mut v2),
            &mut [],
        );
        assert_eq!(v, v2);
        p.eval_hessians(
            &mut ws,
            &EvalInputs::new(&data, &[], &[0.0, 0.5]),
            &[1.0; 300],
            &mut [],
        );
    }
}

#[test]
fn shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Expr>();
    send_sync::<Pattern<f64>>();
    send_sync::<Pattern<f32>>();
    send_sync::<Workspace<f64>>();
}

#[test]
fn leaves_keep_references_of_different_blocks_at_one_position() {
    // blocks 1 and 2 both resolve to x[0]: one slot for the compiler, two leaves
    let a = Expr::var(VarRef::new(1, vec![Index::Const(0)], Index::Const(0)));
    let b = Expr::var(VarRef::new(2, vec![Index::Const(0)], Index::Const(0)));
    let p = Expr::param(VarRef::new(3, vec![Index::Const(1)], Index::Const(1)));
    let d = Expr::data(4);
    let shared = (&a - 3.0 * &b).powi(2);
    let e = &shared * &p + &shared * &d + d.clone() * 2.0;
    let leaves = e.leaves();
    let blocks: Vec<u32> = leaves.vars.iter().map(|r| r.block).collect();
    assert_eq!(blocks, vec![1, 2]);
    assert_eq!(leaves.params.len(), 1);
    assert_eq!(leaves.params[0].block, 3);
    assert_eq!(leaves.real_columns, vec![4]);
    let pattern = Pattern::<f64>::compile(&e).unwrap();
    assert_eq!(pattern.slots().len(), 1, "the compiler merges by position");
    assert_eq!(Expr::constant(1.0).leaves(), Leaves::default());
}
