//! The solver's model wrappers (fixed variables as parameters, scaling, restoration)
//! against finite differences.

mod common;
use common::*;
use simdnlp_device::{Cpu, DeviceError};
use simdnlp_modeling::NlpModel;
use simdnlp_solver::DerivativeCheckOptions;
use simdnlp_solver::SolverError;
use simdnlp_solver::backend::Backend;
use simdnlp_solver::derivative_check::{DifferenceScheme, check_derivatives_at};
use simdnlp_solver::evaluate::{DeviceNlp, HostNlp};
use simdnlp_solver::host_kkt::HostKktBackend;
use simdnlp_solver::layout::Layout;
use simdnlp_solver::models::{
    FixedAsParameters, FixedOnDevice, RestoModel, RestoOnDevice, RestorationBounds,
    RestorationStart, ScaledModel, ScaledOnDevice,
};
use std::sync::Arc;

/// Checks gradient, Jacobian and Hessian of `m` at `x` (with multipliers `y`, objective
/// weight `w`) with the solver's derivative checker: central differences of step 1e-6, every
/// entry (sparsity structure included) within a relative error of 1e-6.
fn check_derivatives(m: &dyn NlpModel, x: &[f64], y: &[f64], w: f64) {
    let opts = DerivativeCheckOptions {
        scheme: DifferenceScheme::Central,
        perturbation: 1e-6,
        tol: 1e-6,
        ..DerivativeCheckOptions::default()
    };
    let report = check_derivatives_at(m, x, y, w, &opts).unwrap();
    assert!(report.passed(), "{report}");
    let n = m.meta().nvar;
    assert!(
        report.gradient.checked == n && report.hessian.checked > 0,
        "{report}"
    );
}

#[test]
fn scaled_and_restoration_models_match_finite_differences() {
    let c = hs71();
    let x = [1.3, 4.1, 3.7, 1.9];
    let scaled = ScaledModel::new(&c.model, -0.5, vec![0.1, 2.0]);
    check_derivatives(&scaled, &x, &[0.7, -1.3], 0.8);
    let m = 2;
    let resto = RestoModel::new(
        &scaled,
        1000.0,
        0.1,
        RestorationStart {
            x_ref: &x,
            p0: &[0.5; 2],
            n0: &[0.25; 2],
        },
        RestorationBounds {
            lvar: &[1.0; 4],
            uvar: &[5.0; 4],
            lcon: &[2.5, 80.0],
            ucon: &[f64::INFINITY, 80.0],
        },
    );
    assert_eq!(resto.meta().nvar, 4 + 2 * m);
    let xr = [1.2, 4.0, 3.9, 2.0, 0.3, 0.2, 0.1, 0.4];
    check_derivatives(&resto, &xr, &[0.3, -2.0], 1.0);
}

/// HS71 with `x₂` fixed at 3.5 (and a start away from it), without it: 3 variables, the
/// derivatives of the rest, and products consistent with the COO matrices.
#[test]
fn fixed_variables_as_parameters_match_finite_differences() {
    let mut c = hs71();
    c.model.meta.lvar[2] = 3.5;
    c.model.meta.uvar[2] = 3.5;
    let reduced = FixedAsParameters::new(&c.model).expect("one fixed variable");
    let meta = reduced.meta();
    assert_eq!((meta.nvar, meta.ncon), (3, 2));
    assert_eq!(reduced.free(), &[0, 1, 3]);
    assert_eq!(meta.x0, vec![1.0, 5.0, 1.0]);
    assert_eq!(
        (meta.lvar.clone(), meta.uvar.clone()),
        (vec![1.0; 3], vec![5.0; 3])
    );
    // the dense 2×4 Jacobian without column 2, the dense lower triangle without row/col 2
    assert_eq!((meta.nnzj, meta.nnzh), (6, 6));
    let x = [1.3, 4.1, 1.9];
    let y = [0.7, -1.3];
    check_derivatives(&reduced, &x, &y, 0.8);
    // at x the inner model sees x₂ = 3.5
    let full = [1.3, 4.1, 3.5, 1.9];
    assert_eq!(reduced.obj(&x), c.model.obj(&full));
    // products against the COO values
    let mut jr = vec![0; meta.nnzj];
    let mut jc = vec![0; meta.nnzj];
    let mut jv = vec![0.0; meta.nnzj];
    reduced.jac_structure(&mut jr, &mut jc);
    reduced.jac_coord(&x, &mut jv);
    let mut hr = vec![0; meta.nnzh];
    let mut hc = vec![0; meta.nnzh];
    let mut hv = vec![0.0; meta.nnzh];
    reduced.hess_structure(&mut hr, &mut hc);
    reduced.hess_coord(&x, &y, 0.8, &mut hv);
    let v = [0.3, -1.1, 2.0];
    let (mut jv_coo, mut jtv_coo, mut hv_coo) = (vec![0.0; 2], vec![0.0; 3], vec![0.0; 3]);
    for e in 0..meta.nnzj {
        jv_coo[jr[e]] += jv[e] * v[jc[e]];
        jtv_coo[jc[e]] += jv[e] * y[jr[e]];
    }
    for e in 0..meta.nnzh {
        hv_coo[hr[e]] += hv[e] * v[hc[e]];
        if hr[e] != hc[e] {
            hv_coo[hc[e]] += hv[e] * v[hr[e]];
        }
    }
    let (mut jv_p, mut jtv_p, mut hv_p) = (vec![0.0; 2], vec![0.0; 3], vec![0.0; 3]);
    reduced.jprod(&x, &v, &mut jv_p);
    reduced.jtprod(&x, &y, &mut jtv_p);
    reduced.hprod(&x, &y, 0.8, &v, &mut hv_p);
    for (a, b) in jv_p
        .iter()
        .chain(&jtv_p)
        .chain(&hv_p)
        .zip(jv_coo.iter().chain(&jtv_coo).chain(&hv_coo))
    {
        assert!((a - b).abs() < 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
    }
    // nothing to remove, or nothing left: no wrapper
    assert!(FixedAsParameters::new(&hs71().model).is_none());
    let mut all = hs71();
    all.model.meta.uvar = all.model.meta.lvar.clone();
    assert!(FixedAsParameters::new(&all.model).is_none());
}

/// Every value of a device wrapper (through the host-slice evaluator on the CPU) equals
/// the host wrapper's, bitwise: objective, gradient, constraints, Jacobian and Hessian.
fn assert_same_values(
    host: &dyn NlpModel,
    device: &dyn DeviceNlp<Cpu>,
    x: &[f64],
    y: &[f64],
    w: f64,
) {
    let meta = host.meta();
    assert_eq!(device.meta().nvar, meta.nvar);
    let (n, m) = (meta.nvar, meta.ncon);
    let (mut rows, mut cols) = (vec![0; meta.nnzj], vec![0; meta.nnzj]);
    let (mut drows, mut dcols) = (vec![0; meta.nnzj], vec![0; meta.nnzj]);
    host.jac_structure(&mut rows, &mut cols);
    device.jac_structure(&mut drows, &mut dcols);
    assert_eq!((&rows, &cols), (&drows, &dcols));
    let (mut rows, mut cols) = (vec![0; meta.nnzh], vec![0; meta.nnzh]);
    let (mut drows, mut dcols) = (vec![0; meta.nnzh], vec![0; meta.nnzh]);
    host.hess_structure(&mut rows, &mut cols);
    device.hess_structure(&mut drows, &mut dcols);
    assert_eq!((&rows, &cols), (&drows, &dcols));
    // x with a tail (the solver passes w = (x, s)): only the first n entries are read
    let mut xw = x.to_vec();
    xw.extend([f64::NAN; 3]);
    assert_eq!(
        host.obj(x).to_bits(),
        device.obj(&xw).unwrap().to_bits(),
        "objective"
    );
    let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
    let mut g = vec![0.0; n];
    host.grad(x, &mut g);
    let mut gd = vec![0.0; n + 3];
    device.grad(&xw, &mut gd).unwrap();
    assert_eq!(bits(&g), bits(&gd[..n]), "gradient");
    let (mut c, mut cd) = (vec![0.0; m], vec![0.0; m]);
    host.cons(x, &mut c);
    device.cons(&xw, &mut cd).unwrap();
    assert_eq!(bits(&c), bits(&cd), "constraints");
    let (mut j, mut jd) = (vec![0.0; meta.nnzj], vec![0.0; meta.nnzj]);
    host.jac_coord(x, &mut j);
    device.jac_coord(&xw, &mut jd).unwrap();
    assert_eq!(bits(&j), bits(&jd), "jacobian");
    let (mut h, mut hd) = (vec![0.0; meta.nnzh], vec![0.0; meta.nnzh]);
    host.hess_coord(x, y, w, &mut h);
    device.hess_coord(&xw, &y.to_vec(), w, &mut hd).unwrap();
    assert_eq!(bits(&h), bits(&hd), "hessian");
}

#[test]
fn device_wrappers_equal_the_host_wrappers_bitwise_on_the_cpu() {
    let mut c = hs71();
    c.model.meta.lvar[2] = 3.5;
    c.model.meta.uvar[2] = 3.5;
    let cpu = Cpu;
    let user = HostNlp::new(&cpu, &c.model);
    // fixed variables
    let reduced = FixedAsParameters::new(&c.model).expect("one fixed variable");
    let reduced_d = FixedOnDevice::new(&cpu, &user, &reduced).unwrap();
    let (x, y) = ([1.3, 4.1, 1.9], [0.7, -1.3]);
    assert_same_values(&reduced, &reduced_d, &x, &y, 0.8);
    // scaling over them
    let dc = vec![0.1, 2.0];
    let scaled = ScaledModel::new(&reduced, -0.5, dc.clone());
    let scaled_d = ScaledOnDevice::new(&cpu, &reduced_d, -0.5, &dc).unwrap();
    assert_same_values(&scaled, &scaled_d, &x, &y, 0.8);
    assert_eq!(scaled.meta().lcon, scaled_d.meta().lcon);
    // restoration over those
    let (rho, mu) = (1000.0, 0.1);
    let x_ref = [1.2, 4.0, 2.0];
    let (p0, n0) = ([0.5; 2], [0.25; 2]);
    let start = RestorationStart {
        x_ref: &x_ref,
        p0: &p0,
        n0: &n0,
    };
    let bounds = RestorationBounds {
        lvar: &[1.0; 3],
        uvar: &[5.0; 3],
        lcon: &[2.5, 8.0],
        ucon: &[f64::INFINITY, 8.0],
    };
    let resto = RestoModel::new(&scaled, rho, mu, start, bounds);
    let resto_d = RestoOnDevice::new(&cpu, &scaled_d, rho, mu, start, bounds).unwrap();
    assert_eq!(resto.meta().x0, resto_d.meta().x0);
    let xr = [1.25, 4.1, 1.7, 0.3, 0.2, 0.1, 0.4];
    assert_same_values(&resto, &resto_d, &xr, &[0.3, -2.0], 1.0);
    // a restoration problem made elsewhere and re-centred on the device (the solver's
    // later restoration phases) is the one made for that centre and μ, bitwise
    let elsewhere = RestorationStart {
        x_ref: &[-3.0, 0.5, 9.0],
        ..start
    };
    let mut moved = RestoOnDevice::new(&cpu, &scaled_d, rho, 7.0, elsewhere, bounds).unwrap();
    let w = vec![1.2, 4.0, 2.0, 42.0];
    moved.restart(&w, mu);
    assert_same_values(&resto, &moved, &xr, &[0.3, -2.0], 1.0);
}

/// A model whose device evaluation fails: every value callback returns an error.
struct FailingOnDevice(simdnlp_modeling::NlpMeta<f64>);

impl DeviceNlp<Cpu> for FailingOnDevice {
    fn meta(&self) -> &simdnlp_modeling::NlpMeta<f64> {
        &self.0
    }
    fn jac_structure(&self, _rows: &mut [usize], _cols: &mut [usize]) {}
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        rows[0] = 0;
        cols[0] = 0;
    }
    fn obj(&self, _x: &Vec<f64>) -> Result<f64, SolverError> {
        Err(SolverError::Device(DeviceError::Launch {
            device: "test",
            kernel: "objective".into(),
            reason: "illegal address".into(),
        }))
    }
    fn grad(&self, x: &Vec<f64>, _g: &mut Vec<f64>) -> Result<(), SolverError> {
        self.obj(x).map(|_| ())
    }
    fn cons(&self, x: &Vec<f64>, _c: &mut Vec<f64>) -> Result<(), SolverError> {
        self.obj(x).map(|_| ())
    }
    fn jac_coord(&self, x: &Vec<f64>, _vals: &mut Vec<f64>) -> Result<(), SolverError> {
        self.obj(x).map(|_| ())
    }
    fn hess_coord(
        &self,
        x: &Vec<f64>,
        _y: &Vec<f64>,
        _obj_weight: f64,
        _vals: &mut Vec<f64>,
    ) -> Result<(), SolverError> {
        self.obj(x).map(|_| ())
    }
}

#[test]
fn a_device_failure_while_evaluating_is_reported_at_the_next_synchronize() {
    let mut meta = simdnlp_modeling::NlpMeta::new(1, 0);
    meta.nnzh = 1;
    let model = FailingOnDevice(meta);
    let o = simdnlp_solver::Options::default();
    let lay = Layout::new(model.meta(), &o);
    let mut be = HostKktBackend::new(Arc::new(Cpu), &model, &lay, &o).unwrap();
    let w = be.zeros(1).unwrap();
    let mut g = be.vector_from_host(&[3.0]).unwrap();
    // the values of a failed evaluation reject the point: NaN, `false`
    assert!(be.eval_obj(&model, &w).is_nan());
    be.eval_grad(&model, &w, &mut g);
    assert!(g[0].is_nan());
    assert!(!be.eval_jac(&model, &w));
    // the first failure is the error, once
    match be.synchronize() {
        Err(SolverError::Device(DeviceError::Launch { kernel, .. })) => {
            assert_eq!(kernel, "objective")
        }
        other => panic!("expected the launch failure, got {other:?}"),
    }
    assert!(be.synchronize().is_ok());
}

#[test]
fn backend_slack_and_transpose_kernels_match_the_host_formulas() {
    // hs71: row 0 (x0 x1 x2 x3 ≥ 25) carries a slack, row 1 (Σ x² = 40) is an equality
    let case = hs71();
    let cpu = Cpu;
    let model = HostNlp::new(&cpu, &case.model);
    let o = simdnlp_solver::Options::default();
    let lay = Layout::new(model.meta(), &o);
    assert_eq!((lay.n, lay.m, lay.slack_rows.clone()), (4, 2, vec![0]));
    let mut be = HostKktBackend::new(Arc::new(Cpu), &model, &lay, &o).unwrap();
    let x = [1.0, 2.0, 3.0, 4.0];
    let mut w = be.vector_from_host(&[x[0], x[1], x[2], x[3], 7.0]).unwrap();
    // slacks from the row values: c0 = 24
    be.set_slacks_from_cons(&model, &mut w);
    assert_eq!(w[4], 24.0);
    w[4] = 30.0;
    // residual c(x) − b − slack terms: (24 − 30, 30 − 40)
    let mut r = be.zeros(2).unwrap();
    be.eval_residual(&model, &w, &mut r);
    assert_eq!(*r, vec![-6.0, -10.0]);
    // the gradient's slack part is zero
    let mut g = be.vector_from_host(&[9.0; 5]).unwrap();
    be.eval_grad(&model, &w, &mut g);
    assert_eq!(g[4], 0.0);
    // out = a Jᵀ y + b out, slack column −1
    assert!(be.eval_jac(&model, &w));
    let jac = [[24.0, 12.0, 8.0, 6.0], [2.0, 4.0, 6.0, 8.0]];
    let (a, b, y) = (0.5, 2.0, [3.0, -1.0]);
    let start = [1.0, -2.0, 0.5, 4.0, 8.0];
    let mut out = be.vector_from_host(&start).unwrap();
    let yv = be.vector_from_host(&y).unwrap();
    be.jt_mul(a, &yv, b, &mut out);
    for c in 0..4 {
        let want = b * start[c] + a * (jac[0][c] * y[0] + jac[1][c] * y[1]);
        assert!((out[c] - want).abs() <= 1e-12 * want.abs(), "{c}: {out:?}");
    }
    assert_eq!(out[4], b * start[4] - a * y[0]);
    // b = 0 does not read `out`: a stale NaN does not propagate
    let mut stale = be.vector_from_host(&[f64::NAN; 5]).unwrap();
    be.jt_mul(a, &yv, 0.0, &mut stale);
    assert!(stale.iter().all(|v| v.is_finite()), "{stale:?}");
    assert_eq!(stale[4], -a * y[0]);
}
