//! `DeviceModel` on the emulated CUDA device: a parameter change reaches the kernels only
//! after `refresh_theta`; user functions need CUDA bodies (typed error naming the
//! function otherwise); vectors of the wrong length are typed errors. (The suites' models
//! are compared with the CPU callbacks in `bench-suites/tests/device_model.rs`.)
//!
//! g++ is required (CI installs it); `SIMDNLP_SKIP_GXX=1` skips on a machine without it.

use simdnlp_ad::UnaryFn;
use simdnlp_device::{Device, DeviceError, Emu};
use simdnlp_modeling::{DeviceModel, Model, ModelBuilder, ModelError, NlpModel, Param};

fn emu() -> Option<Emu> {
    match Emu::new() {
        Ok(emu) => Some(emu),
        Err(e @ DeviceError::Unavailable { .. }) => {
            assert!(
                std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                "g++ is required for this test: {e}"
            );
            None
        }
        Err(e) => panic!("the interior-point kernels do not compile: {e}"),
    }
}

/// `min p0 Σ (x_i − p1)² + cube(x_0) + Σ_ij x_i x_j²` s.t. `x_0 + x_2 + p0 (x_1² + x_2²)` (a base row and
/// two augmentation terms) and `x_i x_{i+1}`.
fn model(cube: &UnaryFn) -> (Model, Param) {
    let mut m = ModelBuilder::new();
    let x = m.var(0..=2).start(1.0).named("x");
    let p = m.param([2.0, 3.0]).named("p");
    m.minimize(0..=2, |i| p.at(0) * (x.at(i) - p.at(1)).powi(2));
    m.minimize((), |_| cube.call(&x.at(0)));
    // coinciding slots at i == j: Hessian entries the model doubles
    m.minimize((0..3, 0..3), |(i, j)| x.at(i) * x.at(j) * x.at(j));
    let c = m
        .constraint(0..1, |i| x.at(i) + x.at(i + 2))
        .lower(-1.0)
        .named("sum");
    let terms: Vec<(usize, usize)> = vec![(0, 1), (0, 2)];
    m.augment(&c, &terms, |(row, j)| (row, p.at(0) * x.at(j).powi(2)));
    m.constraint(0..2, |i| x.at(i) * x.at(i + 1)).upper(4.0);
    (m.build().unwrap(), p)
}

/// Every callback on the device and on the CPU at `x`, compared bitwise (the Hessian with
/// the CPU's group fusion off: the device sums a group's members' terms as that code does,
/// while the fused CPU code takes the Hessian of their weighted sum in one sweep).
fn assert_equal(d: &Emu, dm: &mut DeviceModel<'_, Emu>, m: &Model, x: &[f64]) {
    let meta = m.meta();
    let y: Vec<f64> = (0..meta.ncon).map(|i| 0.5 + i as f64).collect();
    let (xd, yd) = (
        d.vector_from_host(x).unwrap(),
        d.vector_from_host(&y).unwrap(),
    );
    assert_eq!(dm.obj(&xd).unwrap().to_bits(), m.obj(x).to_bits());
    let host = |v: &Vec<f64>| {
        let mut out = vec![0.0; v.len()];
        d.to_host(v, &mut out).unwrap();
        out
    };
    let (mut g, mut c) = (vec![0.0; meta.nvar], vec![0.0; meta.ncon]);
    let (mut j, mut h) = (vec![0.0; meta.nnzj], vec![0.0; meta.nnzh]);
    m.grad(x, &mut g);
    m.cons(x, &mut c);
    m.jac_coord(x, &mut j);
    let mut unfused = m.clone();
    unfused.set_fusion(false);
    unfused.hess_coord(x, &y, 0.7, &mut h);
    let mut gd = d.zeros(meta.nvar).unwrap();
    let mut cd = d.zeros(meta.ncon).unwrap();
    let mut jd = d.zeros(meta.nnzj).unwrap();
    let mut hd = d.zeros(meta.nnzh).unwrap();
    dm.grad(&xd, &mut gd).unwrap();
    dm.cons(&xd, &mut cd).unwrap();
    dm.jac_coord(&xd, &mut jd).unwrap();
    dm.hess_coord(&xd, &yd, 0.7, &mut hd).unwrap();
    assert_eq!(host(&gd), g);
    assert_eq!(host(&cd), c);
    assert_eq!(host(&jd), j);
    assert_eq!(host(&hd), h);
}

fn cube_with_cuda() -> UnaryFn {
    UnaryFn::new("cube", |v| v * v * v, |v| 3.0 * v * v, |v| 6.0 * v)
        .with_cuda("A*A*A", "3.0*A*A", "6.0*A")
}

#[test]
fn parameters_reach_the_device_after_refresh_theta() {
    let Some(d) = emu() else { return };
    let (mut m, p) = model(&cube_with_cuda());
    let mut dm = DeviceModel::new(&m, &d).unwrap();
    let x = [0.5, -1.25, 2.0];
    assert_equal(&d, &mut dm, &m, &x);
    let xd = d.vector_from_host(&x).unwrap();
    let before = m.obj(&x);
    m.set_value(&p, [1.5, -0.5]).unwrap();
    assert_ne!(m.obj(&x), before);
    // the device still holds the old θ until it is re-uploaded
    assert_eq!(dm.obj(&xd).unwrap(), before);
    dm.refresh_theta(&m).unwrap();
    assert_equal(&d, &mut dm, &m, &x);
}

/// Two constraint patterns over the same data (a group: one summed Hessian block), with
/// positions that coincide at a point (an entry the model doubles) and an entry only one
/// member has.
#[test]
fn a_group_s_summed_hessian_block_matches_the_cpu() {
    let Some(d) = emu() else { return };
    let mut m = ModelBuilder::new();
    let x = m.var(0..=3).start(1.0).named("x");
    let pairs: Vec<(usize, usize)> = vec![(0, 1), (2, 2), (3, 1)];
    m.minimize(0..=3, |i| x.at(i).powi(2));
    m.constraint(&pairs, |(i, j)| x.at(i) * x.at(j)).named("a");
    m.constraint(&pairs, |(i, j)| x.at(i).powi(2) * x.at(j).sin())
        .named("b");
    let model = m.build().unwrap();
    assert_eq!(model.pattern_groups(), vec![vec![1, 2]]);
    // objective 4 × 1; the group 3 × 3 ((i, i), (j, i), (j, j)) instead of 3 × (1 + 3)
    assert_eq!(model.meta().nnzh, 4 + 9);
    let mut dm = DeviceModel::new(&model, &d).unwrap();
    for x in [[0.5, -1.25, 2.0, 0.75], [-0.0, 3.0, -2.5, 1e-3]] {
        assert_equal(&d, &mut dm, &model, &x);
    }
}

#[test]
fn user_functions_without_cuda_bodies_are_typed_errors() {
    let Some(d) = emu() else { return };
    let cube = UnaryFn::new("cube", |v| v * v * v, |v| 3.0 * v * v, |v| 6.0 * v);
    let (m, _) = model(&cube);
    match DeviceModel::new(&m, &d) {
        Err(ModelError::MissingCudaBody { function }) => {
            assert!(function.starts_with("user_cube_"), "{function}")
        }
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("a model without CUDA bodies was emitted"),
    }
}

#[test]
fn vectors_of_the_wrong_length_are_typed_errors() {
    let Some(d) = emu() else { return };
    let (m, _) = model(&cube_with_cuda());
    let mut dm = DeviceModel::new(&m, &d).unwrap();
    let short = d.zeros(2).unwrap();
    let x = d.zeros(3).unwrap();
    let mut g = d.zeros(3).unwrap();
    let mut c = d.zeros(5).unwrap();
    assert!(matches!(dm.obj(&short), Err(ModelError::Device(_))));
    assert!(matches!(
        dm.grad(&short, &mut g),
        Err(ModelError::Device(_))
    ));
    let e = dm.cons(&x, &mut c).unwrap_err();
    assert!(e.to_string().contains("constraints"), "{e}");
    let mut h = d.zeros(1).unwrap();
    assert!(matches!(
        dm.hess_coord(&x, &short, 1.0, &mut h),
        Err(ModelError::Device(_))
    ));
}

/// What lets a solver pick the kernels: a `Model<f64>` answers itself, through `&` and
/// `Box` too; a `Model<f32>` and a hand-written model answer `None`.
#[test]
fn pattern_models_are_recognized_through_pointers() {
    let (m, _) = model(&cube_with_cuda());
    let by_ref: &dyn NlpModel = &m;
    assert!(std::ptr::eq(by_ref.as_pattern_model().unwrap(), &m));
    assert!((&by_ref).as_pattern_model().is_some());
    let boxed: Box<dyn NlpModel> = Box::new(m);
    assert!(boxed.as_pattern_model().is_some());
    let mut single = ModelBuilder::<f32>::default();
    let x = single.var(0..2).named("x");
    single.minimize(0..2, |i| x.at(i).powi(2));
    let single = single.build().unwrap();
    assert!(NlpModel::<f32>::as_pattern_model(&single).is_none());
}
