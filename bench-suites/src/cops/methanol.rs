//! Methanol to hydrocarbons (COPS), collocation: estimate the five rate
//! constants `θ` of a three-component reaction model from 17 observations of the
//! concentrations, by three-point Gauss collocation on `nh` intervals of `[0, 1.122]`.
//!
//! With `q = (θ₂ + θ₅) u₁ + u₂`:
//! `u₁' = −(2θ₂ − θ₁ u₂ / q + θ₃ + θ₄) u₁`, `u₂' = θ₁ u₁ (θ₂ u₁ − u₂) / q + θ₃ u₁`,
//! `u₃' = θ₁ u₁ (u₂ + θ₅ u₁) / q + θ₄ u₁`, `u(0) = (1, 0, 0)`.
//!
//! `methanol(nh)` follows COPSBenchmark.jl (including its start: every state `0.001`,
//! `θ = 1`): `n = 5 + 30 nh`, `m = 30 nh`. Reference: `0.00902229` at `nh = 100`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{Collocation, CopsBuild, CopsProblem, CopsSize, add_collocation};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "methanol",
    small: CopsSize::N(2),
    medium: CopsSize::N(50),
    large: CopsSize::N(4000),
    reference_size: CopsSize::N(100),
    reference_objective: Some(0.00902229),
    maximize: false,
    build: CopsBuild::N(methanol),
};

/// Number of components.
const NE: usize = 3;
/// Gauss collocation points on `[0, 1]`.
const RHO: [f64; 3] = [0.11270166537926, 0.5, 0.88729833462074];
/// Initial concentrations.
const BC: [f64; NE] = [1.0, 0.0, 0.0];
/// Observation times.
const TAU: [f64; 17] = [
    0.0, 0.050, 0.065, 0.080, 0.123, 0.233, 0.273, 0.354, 0.397, 0.418, 0.502, 0.553, 0.681, 0.750,
    0.916, 0.937, 1.122,
];
/// Observed concentrations (COPS report).
#[rustfmt::skip]
const Z: [[f64; NE]; 17] = [
    [1.0000, 0.0000, 0.0000],
    [0.7085, 0.1621, 0.0811],
    [0.5971, 0.1855, 0.0965],
    [0.5537, 0.1989, 0.1198],
    [0.3684, 0.2845, 0.1535],
    [0.1712, 0.3491, 0.2097],
    [0.1198, 0.3098, 0.2628],
    [0.0747, 0.3576, 0.2467],
    [0.0529, 0.3347, 0.2884],
    [0.0415, 0.3388, 0.2757],
    [0.0261, 0.3557, 0.3167],
    [0.0208, 0.3483, 0.2954],
    [0.0085, 0.3836, 0.2950],
    [0.0053, 0.3611, 0.2937],
    [0.0019, 0.3609, 0.2831],
    [0.0018, 0.3485, 0.2846],
    [0.0006, 0.3698, 0.2899],
];

/// The methanol problem with `nh ≥ 1` collocation intervals. Variables: `θ[1..=5] ≥ 0`
/// and the collocation variables of [`add_collocation`]; minimizes the squared fitting
/// error.
pub fn methanol(nh: usize) -> Result<Model, ModelError> {
    let z: Vec<f64> = Z.iter().flatten().copied().collect();
    let mut grid = Collocation::new("methanol", nh, &TAU, &z, &BC)?;
    grid.v0.fill(0.001);
    let (nh, nc) = (grid.nh as i64, RHO.len() as i64);

    let mut b = ModelBuilder::new();
    b.set_name("methanol");
    let th = b.var(1..=5i64).lower(0.0).start(1.0).named("theta");
    let cv = add_collocation(&mut b, &grid, &RHO);
    let (v, uc, duc) = (&cv.v, &cv.uc, &cv.duc);

    let bc: Vec<(i64, f64)> = BC
        .iter()
        .enumerate()
        .map(|(s, &x)| (s as i64 + 1, x))
        .collect();
    b.constraint(&bc, |(s, x)| v.at((1, s)) - x)
        .named("initial");

    let q = |i, j| (th.at(2) + th.at(5)) * uc.at((i, j, 1)) + uc.at((i, j, 2));
    b.constraint((1..=nh, 1..=nc), |(i, j)| {
        let (u1, u2) = (uc.at((i, j, 1)), uc.at((i, j, 2)));
        duc.at((i, j, 1)) + (2.0 * th.at(2) - th.at(1) * u2 / q(i, j) + th.at(3) + th.at(4)) * u1
    })
    .named("ode1");
    b.constraint((1..=nh, 1..=nc), |(i, j)| {
        let (u1, u2) = (uc.at((i, j, 1)), uc.at((i, j, 2)));
        duc.at((i, j, 2)) - (th.at(1) * &u1 * (th.at(2) * &u1 - u2) / q(i, j) + th.at(3) * &u1)
    })
    .named("ode2");
    b.constraint((1..=nh, 1..=nc), |(i, j)| {
        let (u1, u2) = (uc.at((i, j, 1)), uc.at((i, j, 2)));
        duc.at((i, j, 3)) - (th.at(1) * &u1 * (u2 + th.at(5) * &u1) / q(i, j) + th.at(4) * &u1)
    })
    .named("ode3");
    b.build()
}
