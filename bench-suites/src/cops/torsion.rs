//! Elastic-plastic torsion (COPS): minimize
//! `q(v) = ½ ∫ ‖∇v‖² − c ∫ v` (`c = 5`) over the unit square subject to
//! `|v(x)| ≤ dist(x, ∂D)`, with piecewise-linear finite elements on an
//! `(nx + 2) × (ny + 2)` grid (triangles below and above each cell's diagonal).
//!
//! `torsion(nx, ny)` follows COPSBenchmark.jl: the bounds `−D ≤ v ≤ D` are constraint
//! rows (one per grid point, boundary rows are `0 ≤ v ≤ 0`), so
//! `n = m = (nx + 2)(ny + 2)`. Reference: `−0.418087` at `50 × 50`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "torsion",
    small: CopsSize::Grid(5, 5),
    medium: CopsSize::Grid(35, 35),
    large: CopsSize::Grid(320, 320),
    reference_size: CopsSize::Grid(50, 50),
    reference_objective: Some(-0.418087),
    maximize: false,
    build: CopsBuild::Grid(torsion),
};

/// Distance to the boundary of grid point `(i, j)`, `i ∈ 0..=nx+1`, `j ∈ 0..=ny+1`, in
/// the ∞-norm of the scaled grid: `min(min(i, nx − i + 1) hx, min(j, ny − j + 1) hy)`.
fn dist(nx: i64, ny: i64, i: i64, j: i64) -> f64 {
    let (hx, hy) = (1.0 / (nx as f64 + 1.0), 1.0 / (ny as f64 + 1.0));
    (i.min(nx - i + 1) as f64 * hx).min(j.min(ny - j + 1) as f64 * hy)
}

/// The torsion problem on an `nx × ny` interior grid (`nx, ny ≥ 1`); variables
/// `v[i, j]`, `i ∈ 0..=nx+1`, `j ∈ 0..=ny+1`, start `D[i, j]`.
pub fn torsion(nx: usize, ny: usize) -> Result<Model, ModelError> {
    let nx = at_least("torsion", "nx", nx, 1)? as i64;
    let ny = at_least("torsion", "ny", ny, 1)? as i64;
    let c = 5.0;
    let (hx, hy) = (1.0 / (nx as f64 + 1.0), 1.0 / (ny as f64 + 1.0));
    let area = 0.5 * hx * hy;
    let d = |(i, j): (i64, i64)| dist(nx, ny, i, j);

    let mut b = ModelBuilder::new();
    b.set_name("torsion");
    let v = b.var((0..=nx + 1, 0..=ny + 1)).start_with(d).named("v");

    // lower triangles: vertices (i, j), (i + 1, j), (i, j + 1)
    b.minimize((0..=nx, 0..=ny), |(i, j)| {
        let quad = ((v.at((i + 1, j)) - v.at((i, j))) / hx).powi(2)
            + ((v.at((i, j + 1)) - v.at((i, j))) / hy).powi(2);
        let lin = v.at((i + 1, j)) + v.at((i, j)) + v.at((i, j + 1));
        area * (0.5 * quad - c / 3.0 * lin)
    })
    .named("lower_triangles");
    // upper triangles: vertices (i, j), (i − 1, j), (i, j − 1)
    b.minimize((1..=nx + 1, 1..=ny + 1), |(i, j)| {
        let quad = ((v.at((i, j)) - v.at((i - 1, j))) / hx).powi(2)
            + ((v.at((i, j)) - v.at((i, j - 1))) / hy).powi(2);
        let lin = v.at((i, j)) + v.at((i - 1, j)) + v.at((i, j - 1));
        area * (0.5 * quad - c / 3.0 * lin)
    })
    .named("upper_triangles");

    b.constraint((0..=nx + 1, 0..=ny + 1), |(i, j)| v.at((i, j)))
        .lower_with(|k| -d(k))
        .upper_with(d)
        .named("distance_bound");
    b.build()
}
