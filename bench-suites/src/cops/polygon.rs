//! Largest small polygon (COPS problem 1): the polygon of maximal area among polygons
//! with `N` sides and diameter at most 1, in polar coordinates `(r_i, θ_i)` with the last
//! vertex at the origin.
//!
//! `polygon(n)` follows COPSBenchmark.jl's convention: `n` is about the number of
//! variables and the polygon has `N = ⌊n / 2⌋` vertices. `n_var = 2N`,
//! `m = 2 + (N − 1) + N(N − 1)/2`. The model maximizes the area (COPSBenchmark.jl
//! minimizes its negative); reference: area `0.674981` at `n = 100`.

use std::f64::consts::PI;

use simdnlp_modeling::{Model, ModelBuilder, ModelError, nested};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "polygon",
    small: CopsSize::N(10),
    medium: CopsSize::N(100),
    large: CopsSize::N(800),
    reference_size: CopsSize::N(100),
    reference_objective: Some(0.674981),
    maximize: true,
    build: CopsBuild::N(polygon),
};

/// The polygon problem with `N = ⌊n / 2⌋ ≥ 2` vertices (`n ≥ 4`); maximizes the area
/// `½ Σ_{i<N} r_i r_{i+1} sin(θ_{i+1} − θ_i)`.
pub fn polygon(n: usize) -> Result<Model, ModelError> {
    let n = at_least("polygon", "n", n, 4)?;
    let nv = (n / 2) as i64;
    let gap = PI / (nv - 1) as f64;

    let mut b = ModelBuilder::new();
    b.set_name("polygon");
    let r = b.var(1..=nv).bounds(0.0, 1.0).start(1.0).named("r");
    let theta = b
        .var(1..=nv)
        .bounds(0.0, PI)
        .start_with(|i| i as f64 * gap - gap)
        .named("theta");

    b.maximize(1..nv, |i| {
        0.5 * r.at(i) * r.at(i + 1) * (theta.at(i + 1) - theta.at(i)).sin()
    })
    .named("area");

    b.constraint((), |_| theta.at(nv) - PI).named("last_angle");
    b.constraint((), |_| r.at(nv)).named("last_radius");
    b.constraint(1..nv, |i| theta.at(i + 1) - theta.at(i))
        .lower(0.0)
        .upper(f64::INFINITY)
        .named("angle_order");
    let pairs = nested(1..nv, |i| i + 1..=nv);
    b.constraint(pairs, |(i, j)| {
        r.at(i).powi(2) + r.at(j).powi(2)
            - 2.0 * r.at(i) * r.at(j) * (theta.at(i) - theta.at(j)).cos()
            - 1.0
    })
    .lower(f64::NEG_INFINITY)
    .upper(0.0)
    .named("diameter");
    b.build()
}
