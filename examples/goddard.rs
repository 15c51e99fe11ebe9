//! The Goddard rocket (COPS), trapezoidal rule with `nh` steps, exactly as in the ExaModels
//! paper (§ "Modeling Syntax"): maximize the final altitude subject to altitude, velocity
//! and mass dynamics, with the required final mass as a parameter.
//!
//! Run: `cargo run --example goddard -- 200`.

use simdnlp_modeling::{Con, Model, ModelBuilder, ModelError, NlpModel, Param, Var};

/// Handles of the Goddard model's blocks (to read results and change data).
#[allow(dead_code)]
pub struct Goddard {
    /// Altitude `h[0..=nh]`.
    pub h: Var,
    /// Velocity `v[0..=nh]`.
    pub v: Var,
    /// Mass `m[0..=nh]`.
    pub m: Var,
    /// Thrust `tau[0..=nh]`.
    pub tau: Var,
    /// Time step `dt[1..=1]`.
    pub dt: Var,
    /// Altitude dynamics rows `1..=nh`.
    pub alt: Con,
    /// Velocity dynamics rows `1..=nh`.
    pub vel: Con,
    /// Mass dynamics rows `1..=nh`.
    pub mass: Con,
    /// Required final mass.
    pub mf: Param,
    /// Maximum thrust (for re-solves that tighten it).
    pub t_max: f64,
}

/// Builds the Goddard rocket model with `nh` time steps.
pub fn goddard_model(nh: usize) -> Result<(Model, Goddard), ModelError> {
    let (h_0, v_0, m_0, g_0): (f64, f64, f64, f64) = (1.0, 0.0, 1.0, 1.0);
    let (t_c, h_c, v_c, m_c) = (3.5, 500.0, 620.0, 0.6);
    let c_e = 0.5 * (g_0 * h_0).sqrt();
    let m_f = m_c * m_0;
    let d_c = 0.5 * v_c * (m_0 / g_0);
    let t_max = t_c * m_0 * g_0;
    let nhf = nh as f64;

    let mut core = ModelBuilder::new();
    core.set_name("goddard");
    let h = core.var(0..=nh).start(1.0).lower(1.0).named("h");
    let v = core
        .var(0..=nh)
        .start_with(|i| i as f64 / nhf * (1.0 - i as f64 / nhf))
        .named("v");
    let m = core
        .var(0..=nh)
        .start_with(|i| (m_f - m_0) * i as f64 / nhf + m_0)
        .lower(m_f)
        .upper(m_0)
        .named("m");
    let tau = core
        .var(0..=nh)
        .start(t_max / 2.0)
        .lower(0.0)
        .upper(t_max)
        .named("tau");
    let dt = core.var(1..=1).start(1.0 / nhf).lower(0.0).named("dt");

    core.maximize((), |_| h.at(nh)).named("altitude");

    let alt = core
        .constraint(1..=nh, |i| {
            -h.at(i) + h.at(i - 1) + 0.5 * dt.at(1) * (v.at(i) + v.at(i - 1))
        })
        .named("alt");
    // the acceleration term at time j (drag, gravity), written once and used at i and i-1
    let accel = |j| {
        (tau.at(j)
            - d_c * v.at(j).powi(2) * (-h_c * (h.at(j) - h_0) / h_0).exp()
            - m.at(j) * g_0 * (h_0 / h.at(j)).powi(2))
            / m.at(j)
    };
    let vel = core
        .constraint(1..=nh, |i| {
            -v.at(i) + v.at(i - 1) + 0.5 * dt.at(1) * (accel(i) + accel(i - 1))
        })
        .named("vel");
    let mass = core
        .constraint(1..=nh, |i| {
            -m.at(i) + m.at(i - 1) + 0.5 * dt.at(1) * (-tau.at(i) / c_e - tau.at(i - 1) / c_e)
        })
        .named("mass");

    let mf = core.param([m_f]).named("mf");

    core.constraint((), |_| h.at(0) - h_0).named("h_init");
    core.constraint((), |_| v.at(0) - v_0).named("v_init");
    core.constraint((), |_| m.at(0) - m_0).named("m_init");
    core.constraint((), |_| m.at(nh) - mf.at(0))
        .named("m_final");

    let model = core.build()?;
    Ok((
        model,
        Goddard {
            h,
            v,
            m,
            tau,
            dt,
            alt,
            vel,
            mass,
            mf,
            t_max,
        },
    ))
}

#[allow(dead_code)]
fn main() -> Result<(), simdnlp::Error> {
    // The solver prints its Ipopt-style iteration log to stderr (no tracing subscriber is
    // installed here; with one, the log goes through it instead).
    let nh: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let t = std::time::Instant::now();
    let (model, g) = goddard_model(nh)?;
    let build = t.elapsed();
    let meta = model.meta();
    println!(
        "goddard nh = {nh}: n = {}, m = {}, nnzj = {}, nnzh = {}, built in {build:.2?}",
        meta.nvar, meta.ncon, meta.nnzj, meta.nnzh
    );
    if nh <= 4 {
        println!("{model}");
    }

    let result = simdnlp::solve(&model, &simdnlp::Options::default())?;
    let h = model.solution(&g.h, &result.x)?;
    let tm = &result.timings;
    println!("status:          {}", result.status);
    println!(
        "final altitude:  {:.8} (h[nh] = {:.8})",
        result.objective, h[nh]
    );
    println!("iterations:      {}", result.iterations);
    println!(
        "time:            {:.3} s total = callbacks {:.3} + factorization {:.3} + solves {:.3} + rest {:.3}",
        tm.total, tm.callbacks, tm.factorization, tm.solves, tm.rest
    );
    Ok(())
}
