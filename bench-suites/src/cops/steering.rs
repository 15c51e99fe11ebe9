//! Rocket steering (COPS), trapezoidal rule: steer a rocket with constant
//! thrust acceleration `a = 100` by its angle `u ∈ [−π/2, π/2]` to altitude 5 with
//! horizontal speed 45 and no vertical speed, in minimum time. State
//! `x = (x₁, x₂, ẋ₁, ẋ₂)` on grid points `1..=nh+1`.
//!
//! `steering(nh)` follows COPSBenchmark.jl: `tf ≥ 0` is a constraint row, not a bound.
//! `n = 5(nh + 1) + 1`, `m = 4 nh + 8`. Reference: `t_f = 0.554577` at `nh = 200`.

use std::f64::consts::FRAC_PI_2;

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "steering",
    small: CopsSize::N(5),
    medium: CopsSize::N(400),
    large: CopsSize::N(42_000),
    reference_size: CopsSize::N(200),
    reference_objective: Some(0.554577),
    maximize: false,
    build: CopsBuild::N(steering),
};

/// Rocket steering with `nh ≥ 1` intervals; minimizes the final time `tf`.
pub fn steering(nh: usize) -> Result<Model, ModelError> {
    let nh = at_least("steering", "nh", nh, 1)?;
    let a = 100.0;
    let nhf = nh as f64;
    let n1 = nh as i64 + 1;
    // start: x₂ = 5 k/nh, ẋ₁ = 45 k/nh at grid point k (1-based, as in COPSBenchmark.jl)
    let x_start = |k: i64, s: i64| match s {
        2 => 5.0 * k as f64 / nhf,
        3 => 45.0 * k as f64 / nhf,
        _ => 0.0,
    };

    let mut b = ModelBuilder::new();
    b.set_name("steering");
    let u = b
        .var(1..=n1)
        .bounds(-FRAC_PI_2, FRAC_PI_2)
        .start(0.0)
        .named("u");
    let x = b
        .var((1..=n1, 1..=4i64))
        .start_with(|(k, s)| x_start(k, s))
        .named("x");
    let tf = b.var(()).start(1.0).named("tf");

    b.minimize((), |_| tf.at(())).named("final_time");
    b.constraint((), |_| tf.at(()))
        .lower(0.0)
        .upper(f64::INFINITY)
        .named("tf_nonneg");

    let half_step = || 0.5 * tf.at(()) / nhf;
    // positions follow the velocities: x_s' = x_{s+2}, s = 1, 2
    b.constraint((1..=nh as i64, 1..=2i64), |(i, s)| {
        -x.at((i + 1, s)) + x.at((i, s)) + half_step() * (x.at((i, s + 2)) + x.at((i + 1, s + 2)))
    })
    .named("position");
    b.constraint(1..=nh as i64, |i| {
        -x.at((i + 1, 3)) + x.at((i, 3)) + half_step() * (a * u.at(i).cos() + a * u.at(i + 1).cos())
    })
    .named("horizontal_speed");
    b.constraint(1..=nh as i64, |i| {
        -x.at((i + 1, 4)) + x.at((i, 4)) + half_step() * (a * u.at(i).sin() + a * u.at(i + 1).sin())
    })
    .named("vertical_speed");

    // x(0) = 0; final x₂ = 5, ẋ₁ = 45, ẋ₂ = 0 (x₁ free)
    let initial = [(1i64, 0.0), (2, 0.0), (3, 0.0), (4, 0.0)];
    b.constraint(&initial, |(s, val)| -x.at((1, s)) + val)
        .named("initial");
    let last = [(2i64, 5.0), (3, 45.0), (4, 0.0)];
    b.constraint(&last, |(s, val)| -x.at((n1, s)) + val)
        .named("final");
    b.build()
}
