//! Hang glider (COPS problem 11): the lift-coefficient profile `c_L(t)` that maximizes
//! the range of a hang glider flying through a thermal updraft
//! `u_a(x) = u_c (1 − r) e^{−r}`, `r = (x / r₀ − 2.5)²`, with free final time, the
//! dynamics discretized by the trapezoidal rule on `nh` intervals.
//!
//! `glider(nh)` follows COPSBenchmark.jl (indices shifted to `0..=nh`): variables
//! `t_f ≥ 0`, `x ≥ 0`, `y`, `v_x ≥ 0`, `v_y`, `0 ≤ c_L ≤ 1.4`; the drag, lift and
//! accelerations are inline subexpression blocks. `n = 5(nh + 1) + 1`, `m = 4 nh + 7`.
//! The model maximizes the final range `x[nh]` (COPSBenchmark.jl minimizes `−x`);
//! reference `1255.05` at `nh = 100`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "glider",
    small: CopsSize::N(2),
    medium: CopsSize::N(80),
    large: CopsSize::N(8000),
    reference_size: CopsSize::N(100),
    reference_objective: Some(1255.05),
    maximize: true,
    build: CopsBuild::N(glider),
};

/// Initial horizontal position (m).
const X_0: f64 = 0.0;
/// Initial altitude (m).
const Y_0: f64 = 1000.0;
/// Final altitude (m).
const Y_F: f64 = 900.0;
/// Initial and final horizontal velocity (m/s).
const VX_0: f64 = 13.23;
/// Final horizontal velocity (m/s).
const VX_F: f64 = 13.23;
/// Initial vertical velocity (m/s).
const VY_0: f64 = -1.288;
/// Final vertical velocity (m/s).
const VY_F: f64 = -1.288;
/// Updraft strength (m/s).
const U_C: f64 = 2.5;
/// Updraft radius (m).
const R_0: f64 = 100.0;
/// Mass (kg).
const MASS: f64 = 100.0;
/// Gravity (m/s²).
const G: f64 = 9.81;
/// Drag coefficient, constant part.
const CD0: f64 = 0.034;
/// Drag coefficient, quadratic part.
const CD1: f64 = 0.069662;
/// Wing area (m²).
const S: f64 = 14.0;
/// Air density (kg/m³).
const RHO: f64 = 1.13;
/// Lift coefficient bounds.
const CL_MIN: f64 = 0.0;
/// Upper bound of the lift coefficient.
const CL_MAX: f64 = 1.4;

/// The hang glider with `nh ≥ 1` intervals, started on straight-line trajectories with
/// `t_f = 1` and `c_L = 0.7`.
pub fn glider(nh: usize) -> Result<Model, ModelError> {
    let nh = at_least("glider", "nh", nh, 1)? as i64;
    let nhf = nh as f64;

    let mut b = ModelBuilder::new();
    b.set_name("glider");
    let t_f = b.var(()).lower(0.0).start(1.0).named("t_f");
    let x = b
        .var(0..=nh)
        .lower(0.0)
        .start_with(|k| X_0 + VX_0 * (k as f64 / nhf))
        .named("x");
    let y = b
        .var(0..=nh)
        .start_with(|k| Y_0 + (k as f64 / nhf) * (Y_F - Y_0))
        .named("y");
    let vx = b.var(0..=nh).lower(0.0).start(VX_0).named("vx");
    let vy = b.var(0..=nh).start(VY_0).named("vy");
    let cl = b
        .var(0..=nh)
        .bounds(CL_MIN, CL_MAX)
        .start(CL_MAX / 2.0)
        .named("cL");

    let r = b.expr(0..=nh, |i| (x.at(i) / R_0 - 2.5).powi(2)).named("r");
    let updraft = b
        .expr(0..=nh, |i| U_C * (1.0 - r.at(i)) * (-r.at(i)).exp())
        .named("u");
    let w = b.expr(0..=nh, |i| vy.at(i) - updraft.at(i)).named("w");
    let speed = b
        .expr(0..=nh, |i| (vx.at(i).powi(2) + w.at(i).powi(2)).sqrt())
        .named("v");
    let drag = b
        .expr(0..=nh, |i| {
            0.5 * (CD0 + CD1 * cl.at(i).powi(2)) * RHO * S * speed.at(i).powi(2)
        })
        .named("D");
    let lift = b
        .expr(0..=nh, |i| 0.5 * cl.at(i) * RHO * S * speed.at(i).powi(2))
        .named("L");
    let ax = b
        .expr(0..=nh, |i| {
            (-lift.at(i) * (w.at(i) / speed.at(i)) - drag.at(i) * (vx.at(i) / speed.at(i))) / MASS
        })
        .named("vx_dot");
    let ay = b
        .expr(0..=nh, |i| {
            (lift.at(i) * (vx.at(i) / speed.at(i)) - drag.at(i) * (w.at(i) / speed.at(i))) / MASS
                - G
        })
        .named("vy_dot");

    b.maximize((), |_| x.at(nh)).named("range");

    let half_step = || 0.5 / nhf * t_f.at(());
    b.constraint(1..=nh, |j| {
        x.at(j) - (x.at(j - 1) + half_step() * (vx.at(j) + vx.at(j - 1)))
    })
    .named("x_dynamics");
    b.constraint(1..=nh, |j| {
        y.at(j) - (y.at(j - 1) + half_step() * (vy.at(j) + vy.at(j - 1)))
    })
    .named("y_dynamics");
    b.constraint(1..=nh, |j| {
        vx.at(j) - (vx.at(j - 1) + half_step() * (ax.at(j) + ax.at(j - 1)))
    })
    .named("vx_dynamics");
    b.constraint(1..=nh, |j| {
        vy.at(j) - (vy.at(j - 1) + half_step() * (ay.at(j) + ay.at(j - 1)))
    })
    .named("vy_dynamics");

    b.constraint((), |_| x.at(0) - X_0).named("x_initial");
    b.constraint((), |_| y.at(0) - Y_0).named("y_initial");
    b.constraint((), |_| y.at(nh) - Y_F).named("y_final");
    b.constraint((), |_| vx.at(0) - VX_0).named("vx_initial");
    b.constraint((), |_| vx.at(nh) - VX_F).named("vx_final");
    b.constraint((), |_| vy.at(0) - VY_0).named("vy_initial");
    b.constraint((), |_| vy.at(nh) - VY_F).named("vy_final");
    b.build()
}
