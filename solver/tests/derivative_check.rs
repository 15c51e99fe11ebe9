//! The derivative checker (`check_derivatives`, option `derivative_test`): hand-written
//! HS71 with planted wrong Jacobian and Hessian entries and a missing structure entry, every
//! HS test model, and a modeling `Model` whose report names blocks.

mod common;

use simdnlp_modeling::{BlockPosition, ModelBuilder, NlpMeta, NlpModel};
use simdnlp_solver::derivative_check::check_derivatives_at;
use simdnlp_solver::derivative_check::{DerivativeKind, DifferenceScheme};
use simdnlp_solver::{
    DerivativeCheckOptions, DerivativeReport, DerivativeTest, Options, PrintLevel, Status,
    check_derivatives, solve,
};

/// What HS71 gets wrong.
#[derive(Clone, Copy, PartialEq)]
enum Plant {
    Nothing,
    /// `hess_coord` value `k` is off by `+1`.
    HessianValue(usize),
    /// `jac_coord` value `k` is off by `+1`.
    JacobianValue(usize),
    /// The Hessian structure lists entry (3, 2) as (3, 3) (value 0 there): the true
    /// (3, 2) entry is outside the structure.
    MissingHessianEntry,
}

/// HS71 with hand-written derivatives (Hessian: full lower triangle, row by row) and
/// variable/constraint blocks `x[0..4]`, `product[0]`, `sum_of_squares[0]`.
struct Hs71 {
    meta: NlpMeta<f64>,
    plant: Plant,
}

impl Hs71 {
    fn new(plant: Plant) -> Self {
        let mut meta = NlpMeta::new(4, 2);
        meta.nnzj = 8;
        meta.nnzh = 10;
        meta.x0 = vec![1.0, 5.0, 5.0, 1.0];
        meta.lvar = vec![1.0; 4];
        meta.uvar = vec![5.0; 4];
        meta.lcon = vec![25.0, 40.0];
        meta.ucon = vec![f64::INFINITY, 40.0];
        meta.name = "hs71".to_string();
        Self { meta, plant }
    }
}

impl NlpModel for Hs71 {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }
    fn obj(&self, x: &[f64]) -> f64 {
        x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2]
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        g[0] = x[3] * (2.0 * x[0] + x[1] + x[2]);
        g[1] = x[0] * x[3];
        g[2] = x[0] * x[3] + 1.0;
        g[3] = x[0] * (x[0] + x[1] + x[2]);
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        c[0] = x[0] * x[1] * x[2] * x[3];
        c[1] = x.iter().map(|v| v * v).sum();
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        for k in 0..8 {
            rows[k] = k / 4;
            cols[k] = k % 4;
        }
    }
    fn jac_coord(&self, x: &[f64], v: &mut [f64]) {
        v[0] = x[1] * x[2] * x[3];
        v[1] = x[0] * x[2] * x[3];
        v[2] = x[0] * x[1] * x[3];
        v[3] = x[0] * x[1] * x[2];
        for i in 0..4 {
            v[4 + i] = 2.0 * x[i];
        }
        if let Plant::JacobianValue(k) = self.plant {
            v[k] += 1.0;
        }
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        let mut k = 0;
        for i in 0..4 {
            for j in 0..=i {
                rows[k] = i;
                cols[k] = j;
                k += 1;
            }
        }
        if self.plant == Plant::MissingHessianEntry {
            cols[8] = 3;
        }
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, v: &mut [f64]) {
        // order: (0,0) (1,0) (1,1) (2,0) (2,1) (2,2) (3,0) (3,1) (3,2) (3,3)
        v[0] = w * 2.0 * x[3] + 2.0 * y[1];
        v[1] = w * x[3] + y[0] * x[2] * x[3];
        v[2] = 2.0 * y[1];
        v[3] = w * x[3] + y[0] * x[1] * x[3];
        v[4] = y[0] * x[0] * x[3];
        v[5] = 2.0 * y[1];
        v[6] = w * (2.0 * x[0] + x[1] + x[2]) + y[0] * x[1] * x[2];
        v[7] = w * x[0] + y[0] * x[0] * x[2];
        v[8] = w * x[0] + y[0] * x[0] * x[1];
        v[9] = 2.0 * y[1];
        match self.plant {
            Plant::HessianValue(k) => v[k] += 1.0,
            Plant::MissingHessianEntry => v[8] = 0.0,
            _ => {}
        }
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        let mut j = [0.0; 8];
        self.jac_coord(x, &mut j);
        jv[0] = (0..4).map(|i| j[i] * v[i]).sum();
        jv[1] = (0..4).map(|i| j[4 + i] * v[i]).sum();
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        let mut j = [0.0; 8];
        self.jac_coord(x, &mut j);
        for i in 0..4 {
            jtv[i] = j[i] * v[0] + j[4 + i] * v[1];
        }
    }
    fn hprod(&self, _x: &[f64], _y: &[f64], _w: f64, _v: &[f64], _hv: &mut [f64]) {
        unreachable!("the checker uses hess_coord")
    }
    fn var_block(&self, j: usize) -> Option<BlockPosition> {
        (j < 4).then(|| position("x", j))
    }
    fn con_block(&self, i: usize) -> Option<BlockPosition> {
        match i {
            0 => Some(position("product", 0)),
            1 => Some(position("sum_of_squares", 0)),
            _ => None,
        }
    }
}

fn position(name: &str, k: usize) -> BlockPosition {
    BlockPosition {
        block: name.to_string(),
        index: vec![k as i64],
    }
}

/// The report's text for element `k` of the one-dimensional block `name`.
fn block(name: &str, k: usize) -> Option<String> {
    Some(format!("{name}[{k}]"))
}

#[test]
fn correct_hs71_passes_every_test_kind() {
    for test in [
        DerivativeTest::FirstOrder,
        DerivativeTest::SecondOrder,
        DerivativeTest::OnlySecondOrder,
    ] {
        let opts = DerivativeCheckOptions {
            test,
            ..DerivativeCheckOptions::default()
        };
        let report = check_derivatives(&Hs71::new(Plant::Nothing), &opts).unwrap();
        assert!(report.passed(), "{report}");
        // 4 gradient entries, 8 Jacobian entries, 10 lower-triangle Hessian entries
        let first = if test.first_order() { (4, 8) } else { (0, 0) };
        let second = if test.second_order() { 10 } else { 0 };
        assert_eq!(
            (
                report.gradient.checked,
                report.jacobian.checked,
                report.hessian.checked
            ),
            (first.0, first.1, second),
            "{test:?}"
        );
        assert!(report.worst.len() <= 10);
        // the point is inside the bounds and not the start
        assert!(report.x.iter().all(|v| (1.0..=5.0).contains(v)));
        assert_ne!(report.x, vec![1.0, 5.0, 5.0, 1.0]);
    }
}

#[test]
fn planted_wrong_hessian_entry_is_found_and_named() {
    // value 7 is the (3, 1) entry
    let report = check_derivatives(
        &Hs71::new(Plant::HessianValue(7)),
        &DerivativeCheckOptions::default(),
    )
    .unwrap();
    assert_eq!(report.failed(), 1, "{report}");
    assert_eq!((report.gradient.failed, report.jacobian.failed), (0, 0));
    let worst = &report.worst[0];
    assert_eq!(worst.kind, DerivativeKind::Hessian);
    assert_eq!((worst.row, worst.col), (3, 1));
    assert!(worst.failed && worst.in_structure);
    assert!((worst.analytic - worst.finite_difference - 1.0).abs() < 1e-4);
    assert_eq!(
        (worst.row_block.clone(), worst.col_block.clone()),
        (block("x", 3), block("x", 1))
    );
    assert!(!report.worst[1].failed);
    let text = report.to_string();
    assert!(text.contains("*  lag_hess         [3, 1] = "), "{text}");
    assert!(text.contains("(x[3], x[1])"), "{text}");
    assert!(
        text.contains("Derivative checker detected 1 error(s)"),
        "{text}"
    );
}

#[test]
fn planted_wrong_jacobian_entry_is_found_and_named() {
    // value 6 is row 1 (sum of squares), column 2
    let report = check_derivatives(
        &Hs71::new(Plant::JacobianValue(6)),
        &DerivativeCheckOptions {
            test: DerivativeTest::FirstOrder,
            ..DerivativeCheckOptions::default()
        },
    )
    .unwrap();
    assert_eq!(report.failed(), 1, "{report}");
    let worst = &report.worst[0];
    assert_eq!(worst.kind, DerivativeKind::Jacobian);
    assert_eq!((worst.row, worst.col), (1, 2));
    assert_eq!(
        (worst.row_block.clone(), worst.col_block.clone()),
        (block("sum_of_squares", 0), block("x", 2))
    );
    assert!(report.to_string().contains("(sum_of_squares[0], x[2])"));
}

#[test]
fn missing_structure_entry_is_found() {
    let report = check_derivatives(
        &Hs71::new(Plant::MissingHessianEntry),
        &DerivativeCheckOptions {
            test: DerivativeTest::OnlySecondOrder,
            ..DerivativeCheckOptions::default()
        },
    )
    .unwrap();
    assert_eq!(report.failed(), 1, "{report}");
    let worst = &report.worst[0];
    assert_eq!((worst.row, worst.col, worst.in_structure), (3, 2, false));
    assert_eq!(worst.analytic, 0.0);
    assert!(
        report.to_string().contains("v~ lag_hess         [3, 2] = "),
        "{report}"
    );
}

#[test]
fn point_perturbation_radius_zero_checks_at_the_start_and_print_all_keeps_every_entry() {
    for scheme in [DifferenceScheme::Forward, DifferenceScheme::Central] {
        let opts = DerivativeCheckOptions {
            point_perturbation_radius: 0.0,
            print_all: true,
            scheme,
            perturbation: if scheme == DifferenceScheme::Central {
                1e-6
            } else {
                1e-8
            },
            ..DerivativeCheckOptions::default()
        };
        let report = check_derivatives(&Hs71::new(Plant::Nothing), &opts).unwrap();
        assert_eq!(report.x, vec![1.0, 5.0, 5.0, 1.0]);
        assert!(report.passed(), "{report}");
        assert_eq!(report.worst.len(), 4 + 8 + 10);
        assert_eq!(report.worst.len(), report.checked());
    }
}

#[test]
fn every_hs_model_passes() {
    use common::*;
    fn check<const N: usize>(case: Case<N>) {
        let report = check_derivatives(&case.model, &DerivativeCheckOptions::default()).unwrap();
        assert!(report.passed(), "{report}");
        assert!(report.checked() > 0);
    }
    check(hs6());
    check(hs7());
    check(hs14());
    check(hs15());
    check(hs21());
    check(hs35());
    check(hs36());
    check(hs39());
    check(hs71());
    check(hs76());
    check(hs118());
    check(rosenbrock());
    check(hs23());
    check(hs43());
    check(hs113());
    check(hs106());
}

/// A modeling `Model` whose Hessian value `wrong` is off by `+1` (everything else
/// forwarded, block names included).
struct OffByOne<M> {
    model: M,
    wrong: usize,
}

impl<M: NlpModel> NlpModel for OffByOne<M> {
    fn meta(&self) -> &NlpMeta<f64> {
        self.model.meta()
    }
    fn obj(&self, x: &[f64]) -> f64 {
        self.model.obj(x)
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        self.model.grad(x, g)
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        self.model.cons(x, c)
    }
    fn jac_structure(&self, r: &mut [usize], c: &mut [usize]) {
        self.model.jac_structure(r, c)
    }
    fn jac_coord(&self, x: &[f64], v: &mut [f64]) {
        self.model.jac_coord(x, v)
    }
    fn hess_structure(&self, r: &mut [usize], c: &mut [usize]) {
        self.model.hess_structure(r, c)
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, v: &mut [f64]) {
        self.model.hess_coord(x, y, w, v);
        v[self.wrong] += 1.0;
    }
    fn jprod(&self, x: &[f64], v: &[f64], o: &mut [f64]) {
        self.model.jprod(x, v, o)
    }
    fn jtprod(&self, x: &[f64], v: &[f64], o: &mut [f64]) {
        self.model.jtprod(x, v, o)
    }
    fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], o: &mut [f64]) {
        self.model.hprod(x, y, w, v, o)
    }
    fn var_block(&self, j: usize) -> Option<BlockPosition> {
        self.model.var_block(j)
    }
    fn con_block(&self, i: usize) -> Option<BlockPosition> {
        self.model.con_block(i)
    }
}

#[test]
fn report_on_a_model_names_blocks() {
    let mut m = ModelBuilder::new();
    let u = m.var(0..3).start(0.5).named("u");
    let v = m.var((0..2, 0..2)).start(1.0).lower(0.0).named("v");
    m.minimize(0..3, |i| (u.at(i) - 1.0).powi(2));
    m.minimize((0..2, 0..2), |(i, j)| v.at((i, j)).powi(2) * u.at(i));
    m.constraint(0..2, |i| v.at((i, 0)) * v.at((i, 1)) - u.at(i + 1))
        .named("link");
    let model = m.build().unwrap();
    assert!(
        check_derivatives(&model, &DerivativeCheckOptions::default())
            .unwrap()
            .passed()
    );
    let (mut rows, mut cols) = (vec![0; model.meta().nnzh], vec![0; model.meta().nnzh]);
    model.hess_structure(&mut rows, &mut cols);
    let wrong = (0..rows.len())
        .find(|&k| rows[k] != cols[k] && rows[k] >= 3 && cols[k] < 3)
        .expect("a Hessian entry coupling v and u");
    let (row, col) = (rows[wrong], cols[wrong]);
    let report = check_derivatives(
        &OffByOne { model, wrong },
        &DerivativeCheckOptions::default(),
    )
    .unwrap();
    assert_eq!(report.hessian.failed, 1, "{report}");
    let worst = &report.worst[0];
    assert_eq!((worst.row, worst.col), (row, col));
    // v is 2×2, row-major after the 3 entries of u
    let at = row - 3;
    assert_eq!(worst.row_block, Some(format!("v[{}, {}]", at / 2, at % 2)));
    assert_eq!(worst.col_block, block("u", col));
}

/// The report as `solve` logs it with `derivative_test` set by name: the lines go through
/// `tracing`, and the solve itself is unchanged.
#[test]
fn option_runs_the_check_before_the_solve() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let lines = Lines::default();
    let writer = lines.clone();
    let _anchor = common::log_capture::interest_anchor();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let mut options = Options {
        print_level: PrintLevel::Summary,
        ..Options::default()
    };
    options.set("derivative_test", "second-order").unwrap();
    options.set("derivative_test_tol", "1e-5").unwrap();
    options.set("point_perturbation_radius", "0").unwrap();
    let (checked, plain) = tracing::subscriber::with_default(subscriber, || {
        let checked = solve(&Hs71::new(Plant::HessianValue(7)), &options).unwrap();
        options.derivative_test = DerivativeTest::None;
        (
            checked,
            solve(&Hs71::new(Plant::Nothing), &options).unwrap(),
        )
    });
    let log = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    assert!(
        log.contains("Derivative checker for first and second derivatives of `hs71`"),
        "{log}"
    );
    assert!(log.contains("lag_hess         [3, 1]"), "{log}");
    assert!(
        log.contains("Derivative checker detected 1 error(s)"),
        "{log}"
    );
    assert_eq!(log.matches("Derivative checker for").count(), 1, "{log}");
    // the wrong Hessian still converges (slower or not), the right one as usual
    assert_eq!(plain.status, Status::SolveSucceeded);
    let _ = checked.status;
}

#[test]
fn options_reach_the_checker() {
    let mut options = Options::default();
    assert_eq!(options.derivative_test, DerivativeTest::None);
    options.set("derivative_test", "only-second-order").unwrap();
    options.set("derivative_test_perturbation", "1e-7").unwrap();
    options.set("derivative_test_print_all", "yes").unwrap();
    options.set("point_perturbation_radius", "0.5").unwrap();
    let opts = DerivativeCheckOptions::from(&options);
    assert_eq!(opts.test, DerivativeTest::OnlySecondOrder);
    assert_eq!(
        (
            opts.tol,
            opts.perturbation,
            opts.print_all,
            opts.point_perturbation_radius
        ),
        (1e-4, 1e-7, true, 0.5)
    );
    for (name, value) in [
        ("derivative_test", "third-order"),
        ("derivative_test_tol", "0"),
        ("derivative_test_perturbation", "-1e-8"),
        ("point_perturbation_radius", "-1"),
        ("derivative_test_print_all", "maybe"),
    ] {
        assert!(options.set(name, value).is_err(), "{name} = {value}");
    }
    let report: DerivativeReport = check_derivatives(
        &Hs71::new(Plant::Nothing),
        &DerivativeCheckOptions {
            test: DerivativeTest::None,
            ..DerivativeCheckOptions::default()
        },
    )
    .unwrap();
    assert_eq!((report.checked(), report.worst.len()), (0, 0));
}

#[test]
fn bad_structures_and_lengths_are_typed_errors() {
    struct BadJacobian(Hs71);
    impl NlpModel for BadJacobian {
        fn meta(&self) -> &NlpMeta<f64> {
            self.0.meta()
        }
        fn obj(&self, x: &[f64]) -> f64 {
            self.0.obj(x)
        }
        fn grad(&self, x: &[f64], g: &mut [f64]) {
            self.0.grad(x, g)
        }
        fn cons(&self, x: &[f64], c: &mut [f64]) {
            self.0.cons(x, c)
        }
        fn jac_structure(&self, r: &mut [usize], c: &mut [usize]) {
            self.0.jac_structure(r, c);
            r[5] = 2;
        }
        fn jac_coord(&self, x: &[f64], v: &mut [f64]) {
            self.0.jac_coord(x, v)
        }
        fn hess_structure(&self, r: &mut [usize], c: &mut [usize]) {
            self.0.hess_structure(r, c)
        }
        fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, v: &mut [f64]) {
            self.0.hess_coord(x, y, w, v)
        }
        fn jprod(&self, x: &[f64], v: &[f64], o: &mut [f64]) {
            self.0.jprod(x, v, o)
        }
        fn jtprod(&self, x: &[f64], v: &[f64], o: &mut [f64]) {
            self.0.jtprod(x, v, o)
        }
        fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], o: &mut [f64]) {
            self.0.hprod(x, y, w, v, o)
        }
    }
    let opts = DerivativeCheckOptions::default();
    let err = check_derivatives(&BadJacobian(Hs71::new(Plant::Nothing)), &opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model jacobian entry 5: index (2, 1) invalid for 2x4"
    );
    let model = Hs71::new(Plant::Nothing);
    let err = check_derivatives_at(&model, &[1.0; 3], &[0.0; 2], 1.0, &opts).unwrap_err();
    assert_eq!(err.to_string(), "model x: expected length 4, got 3");
    let mut meta_broken = Hs71::new(Plant::Nothing);
    meta_broken.meta.x0.pop();
    assert!(check_derivatives(&meta_broken, &opts).is_err());
}
