//! The solver's model wrappers (fixed variables as parameters, scaling, restoration)
//! against finite differences.

mod common;
use common::*;
use simdnlp_modeling::NlpModel;
use simdnlp_solver::DerivativeCheckOptions;
use simdnlp_solver::derivative_check::{DifferenceScheme, check_derivatives_at};
use simdnlp_solver::models::{FixedAsParameters, RestoModel, ScaledModel};

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
        &x,
        &[1.0; 4],
        &[5.0; 4],
        &[2.5, 80.0],
        &[f64::INFINITY, 80.0],
        &[0.5; 2],
        &[0.25; 2],
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
