//! The examples' model-building code, tested: every callback against finite differences,
//! structures against dense patterns, products against assembled matrices, and known
//! values (Rosenbrock minimum, Goddard's start-point residuals, the network's balances).

#[path = "../modeling/tests/common/mod.rs"]
mod common;

#[allow(dead_code)]
#[path = "../examples/rosenbrock.rs"]
mod rosenbrock;

#[allow(dead_code)]
#[path = "../examples/goddard.rs"]
mod goddard;

#[allow(dead_code)]
#[path = "../examples/network.rs"]
mod network;

use common::{Rng, check_callbacks, random_point};
use simdnlp_modeling::NlpModel;

#[test]
fn rosenbrock_callbacks() {
    let (model, x) = rosenbrock::rosenbrock_model::<f64>(8).unwrap();
    let meta = model.meta();
    assert_eq!((meta.nvar, meta.ncon, meta.nnzh), (8, 0, 3 * 7));
    assert!(meta.minimize);
    assert_eq!(model.obj(&[1.0; 8]), 0.0);
    // f(x0) by hand: terms alternate between x_{i-1} = -1.2 (x_i = 1) and x_{i-1} = 1 (x_i = -1.2)
    let odd = 100.0 * (1.44f64 - 1.0).powi(2) + 2.2f64.powi(2);
    let even = 100.0 * (1.0f64 + 1.2).powi(2);
    assert!((model.obj(&meta.x0) - (4.0 * odd + 3.0 * even)).abs() < 1e-9);
    assert_eq!(model.start(&x).unwrap()[0], -1.2);
    let mut rng = Rng(42);
    let xr = random_point(&model, &mut rng);
    check_callbacks(&model, &xr, &mut rng);
}

#[test]
fn rosenbrock_f32() {
    let (model, _) = rosenbrock::rosenbrock_model::<f32>(8).unwrap();
    assert_eq!(model.obj(&[1.0f32; 8]), 0.0);
    let mut g = [0.0f32; 8];
    model.grad(&[1.0f32; 8], &mut g);
    assert!(g.iter().all(|v| *v == 0.0));
}

#[test]
fn goddard_callbacks() {
    let nh = 6;
    let (model, g) = goddard::goddard_model(nh).unwrap();
    let meta = model.meta().clone();
    assert_eq!(meta.nvar, 4 * (nh + 1) + 1);
    assert_eq!(meta.ncon, 3 * nh + 4);
    assert!(!meta.minimize);
    assert_eq!(model.obj(&meta.x0), 1.0); // h[nh] at the start
    let mut c = vec![0.0; meta.ncon];
    model.cons(&meta.x0, &mut c);
    // altitude rows at the start: h is constant, so the residual is dt/2 (v_i + v_{i-1})
    let alt = model.constraint_values(&g.alt, &c).unwrap();
    let t = |i: usize| i as f64 / nh as f64;
    for i in 1..=nh {
        let vv = t(i) * (1.0 - t(i)) + t(i - 1) * (1.0 - t(i - 1));
        assert!((alt[i - 1] - 0.5 / nh as f64 * vv).abs() < 1e-14);
    }
    // the final-mass row reads the parameter; changing it needs no rebuild
    let mut model = model;
    let before = c[meta.ncon - 1];
    model.set_value(&g.mf, 0.5).unwrap();
    model.cons(&model.meta().x0.clone(), &mut c);
    assert!((c[c.len() - 1] - (before + 0.6 - 0.5)).abs() < 1e-14);
    model.set_upper(&g.tau, 0.8 * g.t_max).unwrap();
    assert_eq!(model.upper(&g.tau).unwrap()[0], 0.8 * g.t_max);
    let mut rng = Rng(9);
    let xr = random_point(&model, &mut rng);
    check_callbacks(&model, &xr, &mut rng);
    let text = model.to_string();
    assert!(
        text.contains("vel:") && text.contains("exp(") && text.contains("m_final"),
        "{text}"
    );
}

#[test]
fn network_callbacks() {
    let (buses, gens, lines) = network::network_data();
    let (model, net) = network::network_model(&buses, &gens, &lines).unwrap();
    let meta = model.meta();
    assert_eq!((meta.nvar, meta.ncon), (2 + 5 + 4, 4 + 5 + 1));
    // balance rows by hand at a point
    let mut rng = Rng(5);
    let x = random_point(&model, &mut rng);
    let mut c = vec![0.0; meta.ncon];
    model.cons(&x, &mut c);
    let bal = model.constraint_values(&net.balance, &c).unwrap();
    let (pg, p) = (&x[0..2], &x[2..7]);
    for (b, bus) in buses.iter().enumerate() {
        let mut r = bus.pd;
        for g in gens.iter().filter(|g| g.bus == b) {
            r -= pg[g.i];
        }
        for l in &lines {
            if l.from == b {
                r += p[l.i];
            }
            if l.to == b {
                r += -p[l.i] + l.r * p[l.i] * p[l.i];
            }
        }
        assert!((bal[b] - r).abs() < 1e-14, "bus {b}: {} vs {r}", bal[b]);
    }
    check_callbacks(&model, &x, &mut rng);
}
