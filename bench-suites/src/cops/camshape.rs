//! Cam shape (COPS problem 2): the cam of maximal area (valve opening) whose radius
//! `r(θ)` stays in `[R_min, R_max]`, is convex, and has a bounded curvature change, with
//! the radius sampled at `n` equally spaced angles of the cam's active sector.
//!
//! `camshape(n)` follows COPSBenchmark.jl: `n` radii `r[1..=n]`, `Δθ = 2π / (5 (n + 1))`;
//! `n` variables, `m = 2n + 3` rows (`n − 2` interior convexity rows, four boundary
//! convexity rows, `n − 1` slope rows, two boundary slope rows). The model maximizes the
//! area `(π R_v / n) Σ r_i`; reference `4.2791` at `n = 200`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "camshape",
    small: CopsSize::N(20),
    medium: CopsSize::N(2000),
    large: CopsSize::N(170_000),
    reference_size: CopsSize::N(200),
    reference_objective: Some(4.2791),
    maximize: true,
    build: CopsBuild::N(camshape),
};

/// Design parameter `R_v` (radius of the roller follower).
const R_V: f64 = 1.0;
/// Largest radius.
const R_MAX: f64 = 2.0;
/// Smallest radius.
const R_MIN: f64 = 1.0;
/// Curvature-change limit `α`.
const ALPHA: f64 = 1.5;

/// The cam shape problem with `n ≥ 3` radii, `R_min ≤ r_i ≤ R_max`, start
/// `(R_min + R_max) / 2`. Rows: convexity `−r_{i−1} r_i − r_i r_{i+1} + 2 r_{i−1} r_{i+1}
/// cos Δθ ≤ 0` (with `r_0 = R_min`, `r_{n+1} = R_max` at the ends, plus the two
/// end rows of COPS), and `|r_{i+1} − r_i| ≤ α Δθ` (also against `R_min` and `R_max`).
pub fn camshape(n: usize) -> Result<Model, ModelError> {
    let n = at_least("camshape", "n", n, 3)? as i64;
    let dt = 2.0 * std::f64::consts::PI / (5.0 * (n + 1) as f64);
    let cos_dt = dt.cos();
    let slope = ALPHA * dt;

    let mut b = ModelBuilder::new();
    b.set_name("camshape");
    let r = b
        .var(1..=n)
        .bounds(R_MIN, R_MAX)
        .start((R_MIN + R_MAX) / 2.0)
        .named("r");

    b.maximize(1..=n, |i| (std::f64::consts::PI * R_V / n as f64) * r.at(i))
        .named("area");

    b.constraint(2..=n - 1, |i| {
        -r.at(i - 1) * r.at(i) - r.at(i) * r.at(i + 1) + 2.0 * cos_dt * r.at(i - 1) * r.at(i + 1)
    })
    .upper(0.0)
    .lower(f64::NEG_INFINITY)
    .named("convexity");
    b.constraint((), |_| {
        -R_MIN * r.at(1) - r.at(1) * r.at(2) + 2.0 * R_MIN * cos_dt * r.at(2)
    })
    .upper(0.0)
    .lower(f64::NEG_INFINITY)
    .named("convexity_first");
    b.constraint((), |_| {
        -R_MIN * R_MIN - R_MIN * r.at(1) + 2.0 * R_MIN * cos_dt * r.at(1)
    })
    .upper(0.0)
    .lower(f64::NEG_INFINITY)
    .named("convexity_start");
    b.constraint((), |_| {
        -r.at(n - 1) * r.at(n) - r.at(n) * R_MAX + 2.0 * R_MAX * cos_dt * r.at(n - 1)
    })
    .upper(0.0)
    .lower(f64::NEG_INFINITY)
    .named("convexity_last");
    b.constraint((), |_| {
        -2.0 * R_MAX * r.at(n) + 2.0 * cos_dt * r.at(n).powi(2)
    })
    .upper(0.0)
    .lower(f64::NEG_INFINITY)
    .named("convexity_end");
    b.constraint(1..n, |i| r.at(i + 1) - r.at(i))
        .bounds(-slope, slope)
        .named("slope");
    b.constraint((), |_| r.at(1) - R_MIN)
        .bounds(-slope, slope)
        .named("slope_first");
    b.constraint((), |_| R_MAX - r.at(n))
        .bounds(-slope, slope)
        .named("slope_last");
    b.build()
}
