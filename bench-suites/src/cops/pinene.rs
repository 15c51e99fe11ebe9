//! Isomerization of α-pinene (COPS), collocation: estimate the five rate
//! constants `θ` of a linear five-component reaction model from 8 observations, by
//! three-point Gauss collocation on `nh` intervals of `[0, 36420]`:
//! `u₁' = −(θ₁ + θ₂) u₁`, `u₂' = θ₁ u₁`, `u₃' = θ₂ u₁ − (θ₃ + θ₄) u₃ + θ₅ u₅`,
//! `u₄' = θ₃ u₃`, `u₅' = θ₄ u₃ − θ₅ u₅`, `u(0) = (100, 0, 0, 0, 0)`.
//!
//! `pinene(nh)` follows COPSBenchmark.jl: `n = 5 + 50 nh`, `m = 50 nh`.
//! Reference: `19.8721` at `nh = 100`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{Collocation, CopsBuild, CopsProblem, CopsSize, add_collocation};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "pinene",
    small: CopsSize::N(2),
    medium: CopsSize::N(100),
    large: CopsSize::N(10_000),
    reference_size: CopsSize::N(100),
    reference_objective: Some(19.8721),
    maximize: false,
    build: CopsBuild::N(pinene),
};

/// Number of components.
const NE: usize = 5;
/// Gauss collocation points on `[0, 1]`.
const RHO: [f64; 3] = [0.11270166537926, 0.5, 0.88729833462074];
/// Initial concentrations.
const BC: [f64; NE] = [100.0, 0.0, 0.0, 0.0, 0.0];
/// Observation times.
const TAU: [f64; 8] = [
    1230.0, 3060.0, 4920.0, 7800.0, 10680.0, 15030.0, 22620.0, 36420.0,
];
/// Observed concentrations (COPS report).
#[rustfmt::skip]
const Z: [[f64; NE]; 8] = [
    [88.35, 7.3, 2.3, 0.4, 1.75],
    [76.4, 15.6, 4.5, 0.7, 2.8],
    [65.1, 23.1, 5.3, 1.1, 5.8],
    [50.4, 32.9, 6.0, 1.5, 9.3],
    [37.5, 42.7, 6.0, 1.9, 12.0],
    [25.9, 49.1, 5.9, 2.2, 17.0],
    [14.0, 57.4, 5.1, 2.6, 21.0],
    [4.5, 63.1, 3.8, 2.9, 25.7],
];

/// The α-pinene problem with `nh ≥ 1` collocation intervals. Variables: `θ[1..=5] ≥ 0`
/// (start 0) and the collocation variables of [`add_collocation`]; minimizes the squared
/// fitting error.
pub fn pinene(nh: usize) -> Result<Model, ModelError> {
    let z: Vec<f64> = Z.iter().flatten().copied().collect();
    let grid = Collocation::new("pinene", nh, &TAU, &z, &BC)?;
    let (nh, nc) = (grid.nh as i64, RHO.len() as i64);

    let mut b = ModelBuilder::new();
    b.set_name("pinene");
    let th = b.var(1..=5i64).lower(0.0).start(0.0).named("theta");
    let cv = add_collocation(&mut b, &grid, &RHO);
    let (v, uc, duc) = (&cv.v, &cv.uc, &cv.duc);

    let bc: Vec<(i64, f64)> = BC
        .iter()
        .enumerate()
        .map(|(s, &x)| (s as i64 + 1, x))
        .collect();
    b.constraint(&bc, |(s, x)| -v.at((1, s)) + x)
        .named("initial");

    let pts = (1..=nh, 1..=nc);
    b.constraint(pts.clone(), |(i, j)| {
        -duc.at((i, j, 1)) - (th.at(1) + th.at(2)) * uc.at((i, j, 1))
    })
    .named("ode1");
    b.constraint(pts.clone(), |(i, j)| {
        -duc.at((i, j, 2)) + th.at(1) * uc.at((i, j, 1))
    })
    .named("ode2");
    b.constraint(pts.clone(), |(i, j)| {
        -duc.at((i, j, 3)) + th.at(2) * uc.at((i, j, 1)) - (th.at(3) + th.at(4)) * uc.at((i, j, 3))
            + th.at(5) * uc.at((i, j, 5))
    })
    .named("ode3");
    b.constraint(pts.clone(), |(i, j)| {
        -duc.at((i, j, 4)) + th.at(3) * uc.at((i, j, 3))
    })
    .named("ode4");
    b.constraint(pts, |(i, j)| {
        -duc.at((i, j, 5)) + th.at(4) * uc.at((i, j, 3)) - th.at(5) * uc.at((i, j, 5))
    })
    .named("ode5");
    b.build()
}
