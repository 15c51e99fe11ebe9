//! Goddard rocket (COPS), trapezoidal rule: maximize the final altitude of a
//! rocket launched vertically, with drag and inverse-square gravity, by choosing the
//! thrust profile and the (free) time step.
//!
//! `rocket(nh)` uses `nh` intervals, variables `h, v, m, T` on `0..=nh` and `step`:
//! `n = 4(nh + 1) + 1`, `m = 3 nh + 4`. Reference: `h_nh = 1.01283` at `nh = 400`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "rocket",
    small: CopsSize::N(2),
    medium: CopsSize::N(200),
    large: CopsSize::N(17_000),
    reference_size: CopsSize::N(400),
    reference_objective: Some(1.01283),
    maximize: true,
    build: CopsBuild::N(rocket),
};

/// The Goddard rocket with `nh ≥ 1` intervals (dimensionless units: `h_0 = m_0 = g_0 =
/// 1`). Variables: altitude `h_i ≥ 1`, velocity `v_i ≥ 0`, mass `m_f ≤ m_i ≤ m_0`,
/// thrust `0 ≤ T_i ≤ T_max` for `i ∈ 0..=nh`, and `step ≥ 0`.
pub fn rocket(nh: usize) -> Result<Model, ModelError> {
    let nh = at_least("rocket", "nh", nh, 1)?;
    let (h_0, v_0, m_0, g_0): (f64, f64, f64, f64) = (1.0, 0.0, 1.0, 1.0);
    let (t_c, h_c, v_c, m_c) = (3.5, 500.0, 620.0, 0.6);
    let c = 0.5 * (g_0 * h_0).sqrt();
    let m_f = m_c * m_0;
    let d_c = 0.5 * v_c * m_0 / g_0;
    let t_max = t_c * m_0 * g_0;
    let nhf = nh as f64;
    let nh = nh as i64;

    let mut b = ModelBuilder::new();
    b.set_name("rocket");
    let h = b.var(0..=nh).lower(1.0).start(1.0).named("h");
    let v = b
        .var(0..=nh)
        .lower(0.0)
        .start_with(|i| i as f64 / nhf * (1.0 - i as f64 / nhf))
        .named("v");
    let m = b
        .var(0..=nh)
        .bounds(m_f, m_0)
        .start_with(|i| (m_f - m_0) * (i as f64 / nhf) + m_0)
        .named("m");
    let thrust = b
        .var(0..=nh)
        .bounds(0.0, t_max)
        .start(t_max / 2.0)
        .named("T");
    let step = b.var(()).lower(0.0).start(1.0 / nhf).named("step");

    b.maximize((), |_| h.at(nh)).named("final_altitude");

    b.constraint(1..=nh, |i| {
        -h.at(i) + h.at(i - 1) + 0.5 * step.at(()) * (v.at(i) + v.at(i - 1))
    })
    .named("altitude");
    // acceleration (T − D − m g)/m at time j
    let accel = |j| {
        let drag = d_c * v.at(j).powi(2) * (-h_c * (h.at(j) - h_0)).exp() / h_0;
        let grav = g_0 * (h_0 / h.at(j)).powi(2);
        (thrust.at(j) - drag - m.at(j) * grav) / m.at(j)
    };
    b.constraint(1..=nh, |i| {
        -v.at(i) + v.at(i - 1) + 0.5 * step.at(()) * (accel(i) + accel(i - 1))
    })
    .named("velocity");
    b.constraint(1..=nh, |i| {
        -m.at(i) + m.at(i - 1) - 0.5 * step.at(()) * (thrust.at(i) + thrust.at(i - 1)) / c
    })
    .named("mass");

    b.constraint((), |_| h.at(0) - h_0).named("h_initial");
    b.constraint((), |_| v.at(0) - v_0).named("v_initial");
    b.constraint((), |_| m.at(0) - m_0).named("m_initial");
    b.constraint((), |_| m.at(nh) - m_f).named("m_final");
    b.build()
}
