//! Catalyst mixing (COPS problem 3): the mixing profile `u(t) ∈ [0, 1]` of two catalysts
//! along a plug-flow reactor that maximizes the production of the final species, with the
//! ODE system `x₁' = u (10 x₂ − x₁)`, `x₂' = u (x₁ − 10 x₂) − (1 − u) x₂`, `x(0) = (1, 0)`,
//! discretized by 3-point Gauss collocation on `nh` intervals of `[0, 1]`.
//!
//! `catmix(nh)` follows COPSBenchmark.jl (collocation formulation): `n = 23 nh + 2`,
//! `m = 20 nh + 2`. The objective is `−1 + p_f[1] + p_f[2]` (the smoothing term of COPS
//! has weight `α = 0` there and is left out). Reference: `−0.0480556` at `nh = 100`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least, factorial};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "catmix",
    small: CopsSize::N(3),
    medium: CopsSize::N(200),
    large: CopsSize::N(20_000),
    reference_size: CopsSize::N(100),
    reference_objective: Some(-0.0480556),
    maximize: false,
    build: CopsBuild::N(catmix),
};

/// Number of ODE states.
const NE: i64 = 2;
/// Number of collocation points.
const NC: i64 = 3;
/// Final time.
const TF: f64 = 1.0;
/// Gauss collocation points on `[0, 1]`.
const RHO: [f64; 3] = [0.11270166537926, 0.5, 0.88729833462074];
/// Initial state.
const BC: [f64; 2] = [1.0, 0.0];

/// Three coefficients as one data row.
type C3 = (f64, f64, f64);

/// The catalyst mixing problem with `nh ≥ 1` intervals. Variables (1-based like the
/// Julia model): control `u[i, j] ∈ [0, 1]` at the collocation points, states `v[i, s]`
/// at the interval starts, coefficients `w[i, j, s]`, states `pp[i, j, s]` and
/// derivatives `Dpp[i, j, s]` at the collocation points, final states `ppf[s]`;
/// `i ∈ 1..=nh`, `j ∈ 1..=3`, `s ∈ 1..=2`.
pub fn catmix(nh: usize) -> Result<Model, ModelError> {
    let nh = at_least("catmix", "nh", nh, 1)? as i64;
    let h = TF / nh as f64;
    // start value of state s: mod(s, ne) as in COPSBenchmark.jl
    let start_s = |s: i64| (s % NE) as f64;
    // per collocation point k: (k, h ρ_k^j / j! for j = 1..3, ρ_k^(j−1) / (j−1)! for j = 1..3)
    let points: Vec<(i64, C3, C3)> = RHO
        .iter()
        .enumerate()
        .map(|(k, &r)| {
            let c = |j: u32| h * r.powi(j as i32) / factorial(j);
            let d = |j: u32| r.powi(j as i32 - 1) / factorial(j - 1);
            (k as i64 + 1, (c(1), c(2), c(3)), (d(1), d(2), d(3)))
        })
        .collect();
    // weights h / j! of the interval-end state
    let (e1, e2, e3) = (h / factorial(1), h / factorial(2), h / factorial(3));

    let mut b = ModelBuilder::new();
    b.set_name("catmix");
    let u = b
        .var((1..=nh, 1..=NC))
        .bounds(0.0, 1.0)
        .start(0.0)
        .named("u");
    let v = b
        .var((1..=nh, 1..=NE))
        .start_with(|(_, s)| start_s(s))
        .named("v");
    let w = b.var((1..=nh, 1..=NC, 1..=NE)).start(0.0).named("w");
    let pp = b
        .var((1..=nh, 1..=NC, 1..=NE))
        .start_with(|(_, _, s)| start_s(s))
        .named("pp");
    let dpp = b.var((1..=nh, 1..=NC, 1..=NE)).start(0.0).named("Dpp");
    let ppf = b.var(1..=NE).start_with(start_s).named("ppf");

    b.minimize((), |_| -1.0 + ppf.at(1) + ppf.at(2))
        .named("production");

    b.constraint((1..=nh, &points, 1..=NE), |(i, (k, c, _), s)| {
        pp.at((i, k, s))
            - v.at((i, s))
            - (c.0 * w.at((i, 1, s)) + c.1 * w.at((i, 2, s)) + c.2 * w.at((i, 3, s)))
    })
    .named("pp_def");
    b.constraint((1..=nh, &points, 1..=NE), |(i, (k, _, d), s)| {
        dpp.at((i, k, s)) - (d.0 * w.at((i, 1, s)) + d.1 * w.at((i, 2, s)) + d.2 * w.at((i, 3, s)))
    })
    .named("Dpp_def");
    b.constraint(1..=NE, |s| {
        ppf.at(s)
            - v.at((nh, s))
            - (e1 * w.at((nh, 1, s)) + e2 * w.at((nh, 2, s)) + e3 * w.at((nh, 3, s)))
    })
    .named("final_state");
    b.constraint((1..nh, 1..=NE), |(i, s)| {
        v.at((i, s)) + e1 * w.at((i, 1, s)) + e2 * w.at((i, 2, s)) + e3 * w.at((i, 3, s))
            - v.at((i + 1, s))
    })
    .named("continuity");
    b.constraint((1..=nh, 1..=NC), |(i, j)| {
        dpp.at((i, j, 1)) - u.at((i, j)) * (10.0 * pp.at((i, j, 2)) - pp.at((i, j, 1)))
    })
    .named("ode_1");
    b.constraint((1..=nh, 1..=NC), |(i, j)| {
        dpp.at((i, j, 2)) - u.at((i, j)) * (pp.at((i, j, 1)) - 10.0 * pp.at((i, j, 2)))
            + (1.0 - u.at((i, j))) * pp.at((i, j, 2))
    })
    .named("ode_2");
    let bc: Vec<(i64, f64)> = BC
        .iter()
        .enumerate()
        .map(|(s, &x)| (s as i64 + 1, x))
        .collect();
    b.constraint(&bc, |(s, x)| v.at((1, s)) - x)
        .named("initial_state");
    b.build()
}
