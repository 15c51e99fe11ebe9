//! Marine population dynamics (COPS), collocation: estimate the growth rates
//! `g_s` and mortality rates `m_s` of the eight stages of a marine species from 21
//! observations of the stage populations, with the linear stage model
//! `u₁' = −(m₁ + g₁) u₁`, `u_s' = g_{s−1} u_{s−1} − (m_s + g_s) u_s`,
//! `u₈' = g₇ u₇ − m₈ u₈`, discretized by one-point collocation (`ρ = ½`) on `nh`
//! intervals of `[0, 10]`.
//!
//! `marine(nh)` follows COPSBenchmark.jl: `n = 15 + 32 nh`, `m = 32 nh − 8`.
//! Reference: least-squares error `1.97462e7` at `nh = 100`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{Collocation, CopsBuild, CopsProblem, CopsSize, add_collocation};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "marine",
    small: CopsSize::N(2),
    medium: CopsSize::N(150),
    large: CopsSize::N(14_000),
    reference_size: CopsSize::N(100),
    reference_objective: Some(1.97462e7),
    maximize: false,
    build: CopsBuild::N(marine),
};

/// Number of stages.
const NE: usize = 8;
/// Collocation points.
const RHO: [f64; 1] = [0.5];

/// Observed populations of the eight stages at times `0, 0.5, …, 10` (COPS report).
#[rustfmt::skip]
const Z: [[f64; NE]; 21] = [
    [20000.0, 17000.0, 10000.0, 15000.0, 12000.0, 9000.0, 7000.0, 3000.0],
    [12445.0, 15411.0, 13040.0, 13338.0, 13484.0, 8426.0, 6615.0, 4022.0],
    [7705.0, 13074.0, 14623.0, 11976.0, 12453.0, 9272.0, 6891.0, 5020.0],
    [4664.0, 8579.0, 12434.0, 12603.0, 11738.0, 9710.0, 6821.0, 5722.0],
    [2977.0, 7053.0, 11219.0, 11340.0, 13665.0, 8534.0, 6242.0, 5695.0],
    [1769.0, 5054.0, 10065.0, 11232.0, 12112.0, 9600.0, 6647.0, 7034.0],
    [943.0, 3907.0, 9473.0, 10334.0, 11115.0, 8826.0, 6842.0, 7348.0],
    [581.0, 2624.0, 7421.0, 10297.0, 12427.0, 8747.0, 7199.0, 7684.0],
    [355.0, 1744.0, 5369.0, 7748.0, 10057.0, 8698.0, 6542.0, 7410.0],
    [223.0, 1272.0, 4713.0, 6869.0, 9564.0, 8766.0, 6810.0, 6961.0],
    [137.0, 821.0, 3451.0, 6050.0, 8671.0, 8291.0, 6827.0, 7525.0],
    [87.0, 577.0, 2649.0, 5454.0, 8430.0, 7411.0, 6423.0, 8388.0],
    [49.0, 337.0, 2058.0, 4115.0, 7435.0, 7627.0, 6268.0, 7189.0],
    [32.0, 228.0, 1440.0, 3790.0, 6474.0, 6658.0, 5859.0, 7467.0],
    [17.0, 168.0, 1178.0, 3087.0, 6524.0, 5880.0, 5562.0, 7144.0],
    [11.0, 99.0, 919.0, 2596.0, 5360.0, 5762.0, 4480.0, 7256.0],
    [7.0, 65.0, 647.0, 1873.0, 4556.0, 5058.0, 4944.0, 7538.0],
    [4.0, 44.0, 509.0, 1571.0, 4009.0, 4527.0, 4233.0, 6649.0],
    [2.0, 27.0, 345.0, 1227.0, 3677.0, 4229.0, 3805.0, 6378.0],
    [1.0, 20.0, 231.0, 934.0, 3197.0, 3695.0, 3159.0, 6454.0],
    [1.0, 12.0, 198.0, 707.0, 2562.0, 3163.0, 3232.0, 5566.0],
];

/// The marine population problem with `nh ≥ 1` collocation intervals. Variables:
/// growth rates `g[1..=7] ≥ 0`, mortality rates `m[1..=8] ≥ 0`, and the collocation
/// variables of [`add_collocation`]; minimizes the squared fitting error.
pub fn marine(nh: usize) -> Result<Model, ModelError> {
    let tau: Vec<f64> = (0..Z.len()).map(|j| 0.5 * j as f64).collect();
    let z: Vec<f64> = Z.iter().flatten().copied().collect();
    let grid = Collocation::new("marine", nh, &tau, &z, &Z[0])?;
    let (nh, ne, nc) = (grid.nh as i64, NE as i64, RHO.len() as i64);

    let mut b = ModelBuilder::new();
    b.set_name("marine");
    let g = b.var(1..=ne - 1).lower(0.0).named("g");
    let mort = b.var(1..=ne).lower(0.0).named("m");
    let cv = add_collocation(&mut b, &grid, &RHO);
    let (uc, duc) = (&cv.uc, &cv.duc);

    b.constraint((1..=nh, 1..=nc), |(i, j)| {
        -duc.at((i, j, 1)) - (mort.at(1) + g.at(1)) * uc.at((i, j, 1))
    })
    .named("ode_first");
    b.constraint((1..=nh, 1..=nc, 2..=ne - 1), |(i, j, s)| {
        -duc.at((i, j, s)) + g.at(s - 1) * uc.at((i, j, s - 1))
            - (mort.at(s) + g.at(s)) * uc.at((i, j, s))
    })
    .named("ode_middle");
    b.constraint((1..=nh, 1..=nc), |(i, j)| {
        -duc.at((i, j, ne)) + g.at(ne - 1) * uc.at((i, j, ne - 1)) - mort.at(ne) * uc.at((i, j, ne))
    })
    .named("ode_last");
    b.build()
}
