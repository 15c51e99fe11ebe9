//! Electrons on a sphere (COPS problem 6), the Thomson problem: `np` points on the unit
//! sphere with minimal Coulomb potential `Σ_{i<j} 1/‖p_i − p_j‖`.
//!
//! `elec(np)` follows COPSBenchmark.jl: variables `x, y, z` on `1..=np`, one row
//! `x_i² + y_i² + z_i² = 1` per point; `n = 3 np`, `m = np`. The pair sum is one pattern
//! over the `np (np − 1)/2` pairs. The start spreads the points on the sphere with a
//! seeded generator (COPSBenchmark.jl uses Julia's `Random.seed!(2713)`, which this
//! crate does not reproduce; any fixed seed is allowed). The problem has many local
//! minima; reference `1055.18` at `np = 50` (the best known value).

use simdnlp_modeling::{Model, ModelBuilder, ModelError, nested};

use super::{CopsBuild, CopsProblem, CopsSize, at_least};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "elec",
    small: CopsSize::N(5),
    medium: CopsSize::N(50),
    large: CopsSize::N(200),
    reference_size: CopsSize::N(50),
    reference_objective: Some(1055.2),
    maximize: false,
    build: CopsBuild::N(elec),
};

/// Seed of the starting point.
pub const SEED: u64 = 2713;

/// SplitMix64 uniform numbers in `[0, 1)` (deterministic, dependency-free).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The starting points: `θ_i = 2π U`, `φ_i = π U` with `U` uniform from [`SEED`],
/// `(cos θ sin φ, sin θ sin φ, cos φ)`, as three coordinate vectors.
fn start_points(np: usize) -> [Vec<f64>; 3] {
    let mut rng = SplitMix(SEED);
    let theta: Vec<f64> = (0..np)
        .map(|_| 2.0 * std::f64::consts::PI * rng.next())
        .collect();
    let phi: Vec<f64> = (0..np).map(|_| std::f64::consts::PI * rng.next()).collect();
    [
        theta
            .iter()
            .zip(&phi)
            .map(|(t, p)| t.cos() * p.sin())
            .collect(),
        theta
            .iter()
            .zip(&phi)
            .map(|(t, p)| t.sin() * p.sin())
            .collect(),
        phi.iter().map(|p| p.cos()).collect(),
    ]
}

/// The electrons-on-a-sphere problem with `np ≥ 2` points.
pub fn elec(np: usize) -> Result<Model, ModelError> {
    let np = at_least("elec", "np", np, 2)?;
    let [x0, y0, z0] = start_points(np);
    let np = np as i64;

    let mut b = ModelBuilder::new();
    b.set_name("elec");
    let x = b.var(1..=np).start(x0).named("x");
    let y = b.var(1..=np).start(y0).named("y");
    let z = b.var(1..=np).start(z0).named("z");

    let pairs = nested(1..np, |i| i + 1..=np);
    b.minimize(pairs, |(i, j)| {
        ((x.at(i) - x.at(j)).powi(2) + (y.at(i) - y.at(j)).powi(2) + (z.at(i) - z.at(j)).powi(2))
            .sqrt()
            .inv()
    })
    .named("coulomb");
    b.constraint(1..=np, |i| {
        x.at(i).powi(2) + y.at(i).powi(2) + z.at(i).powi(2) - 1.0
    })
    .named("sphere");
    b.build()
}
