//! Journal bearing (COPS problem 14): the pressure distribution in a thin film of
//! lubricant between two cylinders, a convex quadratic minimized over `v ≥ 0` with
//! piecewise-linear finite elements on an `(nx + 2) × (ny + 2)` grid of
//! `(0, 2π) × (0, 2b)`, `b = 10`, eccentricity `ε = 0.1`.
//!
//! `bearing(nx, ny)` follows COPSBenchmark.jl: `v[i, j]`, `i ∈ 1..=nx+2`, `j ∈ 1..=ny+2`,
//! `hx = 2π/(nx + 1)`, `hy = 2b/(ny + 1)`, `w_q(i) = (1 + ε cos((i − 1) hx))³`; the
//! boundary values `v = 0` are constraint rows (corners appear twice, so the Jacobian is
//! rank deficient on purpose). `n = (nx + 2)(ny + 2)`, `m = 2(nx + 2) + 2(ny + 2)`.
//! Reference: `−0.15482` at `50 × 50`.

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "bearing",
    small: CopsSize::Grid(5, 5),
    medium: CopsSize::Grid(35, 35),
    large: CopsSize::Grid(320, 320),
    reference_size: CopsSize::Grid(50, 50),
    reference_objective: Some(-0.15482),
    maximize: false,
    build: CopsBuild::Grid(bearing),
};

/// Half-length `b` of the domain in `y`.
const B: f64 = 10.0;
/// Eccentricity `ε`.
const ECC: f64 = 0.1;

/// The journal bearing problem on an `nx × ny` interior grid (`nx, ny ≥ 1`). Variables
/// `v[i, j] ≥ 0`, start `max(sin((i − 1) hx), 0)`; minimizes the discretized energy
///
/// ```text
/// ½ (hx hy / 6) Σ_{lower triangles} (w_q(i) + 2 w_q(i+1)) |∇v|²
///   + ½ (hx hy / 6) Σ_{upper triangles} (2 w_q(i) + 2 w_q(i−1)) |∇v|²
///   − hx hy Σ_{ij} ε sin((i − 1) hx) v[i, j]
/// ```
///
/// The weights `w_q` and `sin` factors depend on the grid column only; they are data
/// fields of the patterns (one row per column `i`), not unrolled terms.
pub fn bearing(nx: usize, ny: usize) -> Result<Model, ModelError> {
    let nx = at_least("bearing", "nx", nx, 1)? as i64;
    let ny = at_least("bearing", "ny", ny, 1)? as i64;
    let hx = 2.0 * std::f64::consts::PI / (nx + 1) as f64;
    let hy = 2.0 * B / (ny + 1) as f64;
    let wq = |i: i64| (1.0 + ECC * ((i - 1) as f64 * hx).cos()).powi(3);
    let scale = 0.5 * hx * hy / 6.0;

    // per grid column i: (i, weight of the lower-triangle term, weight of the upper one,
    // linear coefficient)
    let lower: Vec<(i64, f64)> = (1..=nx + 1)
        .map(|i| (i, scale * (wq(i) + 2.0 * wq(i + 1))))
        .collect();
    let upper: Vec<(i64, f64)> = (2..=nx + 2)
        .map(|i| (i, scale * (2.0 * wq(i) + 2.0 * wq(i - 1))))
        .collect();
    let linear: Vec<(i64, f64)> = (1..=nx + 2)
        .map(|i| (i, -hx * hy * ECC * ((i - 1) as f64 * hx).sin()))
        .collect();

    let mut b = ModelBuilder::new();
    b.set_name("bearing");
    let v = b
        .var((1..=nx + 2, 1..=ny + 2))
        .lower(0.0)
        .start_with(|(i, _)| ((i - 1) as f64 * hx).sin().max(0.0))
        .named("v");

    b.minimize((&lower, 1..=ny + 1), |((i, c), j)| {
        c * (((v.at((i + 1, j)) - v.at((i, j))) / hx).powi(2)
            + ((v.at((i, j + 1)) - v.at((i, j))) / hy).powi(2))
    })
    .named("lower_triangles");
    b.minimize((&upper, 2..=ny + 2), |((i, c), j)| {
        c * (((v.at((i - 1, j)) - v.at((i, j))) / hx).powi(2)
            + ((v.at((i, j - 1)) - v.at((i, j))) / hy).powi(2))
    })
    .named("upper_triangles");
    b.minimize((&linear, 1..=ny + 2), |((i, c), j)| c * v.at((i, j)))
        .named("load");

    let y_sides = [1i64, ny + 2];
    b.constraint((&y_sides, 1..=nx + 2), |(j, i)| v.at((i, j)))
        .named("y_sides");
    let x_sides = [1i64, nx + 2];
    b.constraint((&x_sides, 1..=ny + 2), |(i, j)| v.at((i, j)))
        .named("x_sides");
    b.build()
}
