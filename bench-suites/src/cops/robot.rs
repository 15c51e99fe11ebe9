//! Robot arm (COPS), trapezoidal rule: move a robot arm of length `L = 5`
//! between two positions in minimum time. State: length `ρ`, horizontal angle `θ`,
//! vertical angle `φ` and their velocities; controls `u_ρ, u_θ, u_φ ∈ [−1, 1]`; moments of
//! inertia `I_θ = ((L − ρ)³ + ρ³) sin²φ / 3`, `I_φ = ((L − ρ)³ + ρ³) / 3`.
//!
//! `robot(nh)` uses `nh` intervals and grid points `1..=nh+1` (COPSBenchmark.jl's
//! 1-based indexing, which its starting point depends on): `n = 9(nh + 1) + 1`,
//! `m = 6 nh + 12`. Reference: `t_f = 9.14138` at `nh = 200`.

use std::f64::consts::PI;

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "robot",
    small: CopsSize::N(2),
    medium: CopsSize::N(150),
    large: CopsSize::N(15_000),
    reference_size: CopsSize::N(200),
    reference_objective: Some(9.14138),
    maximize: false,
    build: CopsBuild::N(robot),
};

/// The robot arm with `nh ≥ 1` intervals; minimizes the final time `t_f ≥ 0`.
pub fn robot(nh: usize) -> Result<Model, ModelError> {
    let nh = at_least("robot", "nh", nh, 1)?;
    let l = 5.0;
    let (max_u_rho, max_u_the, max_u_phi) = (1.0, 1.0, 1.0);
    let (rho0, phi0) = (4.5, PI / 4.0);
    let nhf = nh as f64;
    let n1 = nh as i64 + 1;

    let mut b = ModelBuilder::new();
    b.set_name("robot");
    let rho = b.var(1..=n1).bounds(0.0, l).start(rho0).named("rho");
    let the = b
        .var(1..=n1)
        .bounds(-PI, PI)
        .start_with(|k| 2.0 * PI / 3.0 * (k as f64 / nhf).powi(2))
        .named("the");
    let phi = b.var(1..=n1).bounds(0.0, PI).start(phi0).named("phi");
    let rho_dot = b.var(1..=n1).start(0.0).named("rho_dot");
    let the_dot = b
        .var(1..=n1)
        .start_with(|k| 4.0 * PI / 3.0 * (k as f64 / nhf))
        .named("the_dot");
    let phi_dot = b.var(1..=n1).start(0.0).named("phi_dot");
    let u_rho = b
        .var(1..=n1)
        .bounds(-max_u_rho, max_u_rho)
        .start(0.0)
        .named("u_rho");
    let u_the = b
        .var(1..=n1)
        .bounds(-max_u_the, max_u_the)
        .start(0.0)
        .named("u_the");
    let u_phi = b
        .var(1..=n1)
        .bounds(-max_u_phi, max_u_phi)
        .start(0.0)
        .named("u_phi");
    let tf = b.var(()).lower(0.0).start(1.0).named("tf");

    let inertia = b.expr(1..=n1, |i| {
        ((l - rho.at(i)).powi(3) + rho.at(i).powi(3)) / 3.0
    });
    let i_the = b
        .expr(1..=n1, |i| inertia.at(i) * phi.at(i).sin().powi(2))
        .named("I_the");
    let i_phi = inertia.clone().named("I_phi");

    b.minimize((), |_| tf.at(())).named("final_time");

    let half_step = || 0.5 * tf.at(()) / nhf;
    b.constraint(2..=n1, |j| {
        -rho.at(j) + rho.at(j - 1) + half_step() * (rho_dot.at(j) + rho_dot.at(j - 1))
    })
    .named("rho_dyn");
    b.constraint(2..=n1, |j| {
        -phi.at(j) + phi.at(j - 1) + half_step() * (phi_dot.at(j) + phi_dot.at(j - 1))
    })
    .named("phi_dyn");
    b.constraint(2..=n1, |j| {
        -the.at(j) + the.at(j - 1) + half_step() * (the_dot.at(j) + the_dot.at(j - 1))
    })
    .named("the_dyn");
    b.constraint(2..=n1, |j| {
        -rho_dot.at(j) + rho_dot.at(j - 1) + half_step() * (u_rho.at(j) + u_rho.at(j - 1)) / l
    })
    .named("rho_dot_dyn");
    b.constraint(2..=n1, |j| {
        -the_dot.at(j)
            + the_dot.at(j - 1)
            + half_step() * (u_the.at(j) / i_the.at(j) + u_the.at(j - 1) / i_the.at(j - 1))
    })
    .named("the_dot_dyn");
    b.constraint(2..=n1, |j| {
        -phi_dot.at(j)
            + phi_dot.at(j - 1)
            + half_step() * (u_phi.at(j) / i_phi.at(j) + u_phi.at(j - 1) / i_phi.at(j - 1))
    })
    .named("phi_dot_dyn");

    // boundary conditions: one pattern per state block over its (grid point, value) rows
    let rho_ends = [(1i64, rho0), (n1, 4.5)];
    b.constraint(&rho_ends, |(k, val)| rho.at(k) - val)
        .named("rho_ends");
    let the_ends = [(1i64, 0.0), (n1, 2.0 * PI / 3.0)];
    b.constraint(&the_ends, |(k, val)| the.at(k) - val)
        .named("the_ends");
    let phi_ends = [(1i64, phi0), (n1, PI / 4.0)];
    b.constraint(&phi_ends, |(k, val)| phi.at(k) - val)
        .named("phi_ends");
    let rest = [1i64, n1];
    b.constraint(&rest, |k| rho_dot.at(k)).named("rho_dot_ends");
    b.constraint(&rest, |k| the_dot.at(k)).named("the_dot_ends");
    b.constraint(&rest, |k| phi_dot.at(k)).named("phi_dot_ends");
    b.build()
}
