//! Catalytic cracking of gas oil (COPS problem 12): estimate the three rate constants
//! `θ ≥ 0` of the reaction `y₁' = −(θ₁ + θ₃) y₁²`, `y₂' = θ₁ y₁² − θ₂ y₂` from 21
//! observations, with the ODE discretized by 4-point Gauss collocation on `nh` intervals
//! of `[0, 0.95]`.
//!
//! `gasoil(nh)` follows COPSBenchmark.jl: `n = 3 + 26 nh`, `m = 26 nh` (the collocation
//! patterns are [`super::add_collocation`]'s). Reference: least-squares error
//! `0.0052366` at `nh = 100`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{Collocation, CopsBuild, CopsProblem, CopsSize, add_collocation};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "gasoil",
    small: CopsSize::N(2),
    medium: CopsSize::N(200),
    large: CopsSize::N(18_000),
    reference_size: CopsSize::N(100),
    reference_objective: Some(0.0052366),
    maximize: false,
    build: CopsBuild::N(gasoil),
};

/// Gauss collocation points on `[0, 1]`.
const RHO: [f64; 4] = [
    0.06943184420297,
    0.33000947820757,
    0.66999052179243,
    0.93056815579703,
];
/// Starting states before the first observation (COPSBenchmark.jl's `bc[1:2]`).
const START: [f64; 2] = [1.0, 1.0];
/// Observation times.
const TAU: [f64; 21] = [
    0.0, 0.025, 0.05, 0.075, 0.10, 0.125, 0.150, 0.175, 0.20, 0.225, 0.250, 0.30, 0.35, 0.40, 0.45,
    0.50, 0.55, 0.65, 0.75, 0.85, 0.95,
];
/// Observed concentrations `(y₁, y₂)` at [`TAU`] (COPS report).
#[rustfmt::skip]
#[allow(clippy::approx_constant)] // 0.3010 is a measurement, not log10(2)
const Z: [[f64; 2]; 21] = [
    [1.0000, 0.0], [0.8105, 0.2000], [0.6208, 0.2886], [0.5258, 0.3010], [0.4345, 0.3215],
    [0.3903, 0.3123], [0.3342, 0.2716], [0.3034, 0.2551], [0.2735, 0.2258], [0.2405, 0.1959],
    [0.2283, 0.1789], [0.2071, 0.1457], [0.1669, 0.1198], [0.1530, 0.0909], [0.1339, 0.0719],
    [0.1265, 0.0561], [0.1200, 0.0460], [0.0990, 0.0280], [0.0870, 0.0190], [0.0770, 0.0140],
    [0.0690, 0.0100],
];

/// The gas-oil problem with `nh ≥ 1` collocation intervals. Variables: `θ[1..=3] ≥ 0`
/// (start 0) and the collocation variables; the initial state `v[1, s]` is fixed to the
/// first observation by constraint rows.
pub fn gasoil(nh: usize) -> Result<Model, ModelError> {
    let z: Vec<f64> = Z.iter().flatten().copied().collect();
    let grid = Collocation::new("gasoil", nh, &TAU, &z, &START)?;
    let (nh, nc) = (grid.nh as i64, RHO.len() as i64);

    let mut b = ModelBuilder::new();
    b.set_name("gasoil");
    let theta = b.var(1..=3).lower(0.0).start(0.0).named("theta");
    let cv = add_collocation(&mut b, &grid, &RHO);
    let (v, uc, duc) = (&cv.v, &cv.uc, &cv.duc);

    let first: Vec<(i64, f64)> = Z[0]
        .iter()
        .enumerate()
        .map(|(s, &x)| (s as i64 + 1, x))
        .collect();
    b.constraint(&first, |(s, x)| x - v.at((1, s)))
        .named("initial_state");
    b.constraint((1..=nh, 1..=nc), |(i, j)| {
        -duc.at((i, j, 1)) - (theta.at(1) + theta.at(3)) * uc.at((i, j, 1)).powi(2)
    })
    .named("ode_1");
    b.constraint((1..=nh, 1..=nc), |(i, j)| {
        -duc.at((i, j, 2)) + theta.at(1) * uc.at((i, j, 1)).powi(2) - theta.at(2) * uc.at((i, j, 2))
    })
    .named("ode_2");
    b.build()
}
