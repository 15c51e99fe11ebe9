//! Minimal surface with obstacle (COPS problem 17): the surface of minimal area over the
//! unit square with boundary values `0` on `x ∈ {0, 1}` and `1 − (2x − 1)²` on
//! `y ∈ {0, 1}`, lying above the obstacle `v ≥ 1` on `[¼, ¾]²`, with piecewise-linear
//! finite elements on an `(nx + 2) × (ny + 2)` grid.
//!
//! `minsurf(nx, ny)` follows COPSBenchmark.jl: boundary values, `v ≥ 0` and the obstacle
//! are constraint rows. `n = (nx + 2)(ny + 2)`,
//! `m = 2(ny + 2) + 2(nx + 2) + (nx + 2)(ny + 2) + n_obstacle` with
//! `n_obstacle = (⌈¾/hx⌉ − ⌊¼/hx⌋ + 1)(⌈¾/hy⌉ − ⌊¼/hy⌋ + 1)`. Reference: `2.51488` at
//! `50 × 50`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "minsurf",
    small: CopsSize::Grid(5, 5),
    medium: CopsSize::Grid(30, 30),
    large: CopsSize::Grid(280, 280),
    reference_size: CopsSize::Grid(50, 50),
    reference_objective: Some(2.51488),
    maximize: false,
    build: CopsBuild::Grid(minsurf),
};

/// Index range `⌊¼/h⌋..=⌈¾/h⌉` (0-based grid offsets) of the obstacle for spacing `h`.
fn obstacle_range(h: f64) -> (i64, i64) {
    ((0.25 / h).floor() as i64, (0.75 / h).ceil() as i64)
}

/// The minimal-surface problem on an `nx × ny` interior grid (`nx, ny ≥ 1`); variables
/// `v[i, j]`, `i ∈ 1..=nx+2`, `j ∈ 1..=ny+2`, start `1 − (2 x_i − 1)²`.
pub fn minsurf(nx: usize, ny: usize) -> Result<Model, ModelError> {
    let nx = at_least("minsurf", "nx", nx, 1)? as i64;
    let ny = at_least("minsurf", "ny", ny, 1)? as i64;
    let (hx, hy) = (1.0 / (nx as f64 + 1.0), 1.0 / (ny as f64 + 1.0));
    let area = 0.5 * hx * hy;
    // x_i = (i − 1) hx, the mesh LinRange(0, 1, nx + 2)
    let profile = |i: i64| 1.0 - (2.0 * ((i - 1) as f64 / (nx + 1) as f64) - 1.0).powi(2);

    let mut b = ModelBuilder::new();
    b.set_name("minsurf");
    let v = b
        .var((1..=nx + 2, 1..=ny + 2))
        .start_with(|(i, _)| profile(i))
        .named("v");

    b.minimize((1..=nx + 1, 1..=ny + 1), |(i, j)| {
        area * (1.0
            + ((v.at((i + 1, j)) - v.at((i, j))) / hx).powi(2)
            + ((v.at((i, j + 1)) - v.at((i, j))) / hy).powi(2))
        .sqrt()
    })
    .named("lower_triangles");
    b.minimize((2..=nx + 2, 2..=ny + 2), |(i, j)| {
        area * (1.0
            + ((v.at((i - 1, j)) - v.at((i, j))) / hx).powi(2)
            + ((v.at((i, j - 1)) - v.at((i, j))) / hy).powi(2))
        .sqrt()
    })
    .named("upper_triangles");

    // v = 0 on the sides x = 0 and x = 1
    let x_sides = [1i64, nx + 2];
    b.constraint((&x_sides, 1..=ny + 2), |(i, j)| v.at((i, j)))
        .named("x_sides");
    // v = 1 − (2x − 1)² on the sides y = 0 and y = 1
    let y_sides = [1i64, ny + 2];
    b.constraint((1..=nx + 2, &y_sides), |(i, j)| {
        v.at((i, j)) - 1.0 + (2.0 * hx * (i - 1i64) - 1.0).powi(2)
    })
    .named("y_sides");
    b.constraint((1..=nx + 2, 1..=ny + 2), |(i, j)| v.at((i, j)))
        .lower(0.0)
        .upper(f64::INFINITY)
        .named("nonnegative");
    let (xa, xb) = obstacle_range(hx);
    let (ya, yb) = obstacle_range(hy);
    b.constraint((xa + 1..=xb + 1, ya + 1..=yb + 1), |(i, j)| v.at((i, j)))
        .lower(1.0)
        .upper(f64::INFINITY)
        .named("obstacle");
    b.build()
}
