//! Hanging chain (COPS problem 4): the shape of a chain of length `L = 4` and uniform
//! density suspended between heights `a = 1` and `b = 3` with minimal potential energy,
//! as an optimal-control problem over `t ∈ [0, 1]` discretized by the trapezoidal rule.
//!
//! `chain(n)` follows COPSBenchmark.jl: `n` is about the number of variables and the
//! model has `nh = max(2, ⌊(n − 4)/4⌋)` intervals; variables `u, x1, x2, x3` on
//! `1..=nh+1`. `n_var = 4(nh + 1)`, `m = 3 nh + 5`. Reference: `5.06891` at `n = 800`
//! (`nh = 199`).

use simdnlp_modeling::{Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "chain",
    small: CopsSize::N(50),
    medium: CopsSize::N(5000),
    large: CopsSize::N(500_000),
    reference_size: CopsSize::N(800),
    reference_objective: Some(5.06891),
    maximize: false,
    build: CopsBuild::N(chain),
};

/// Length of the chain.
const L: f64 = 4.0;
/// Height of the left end.
const A: f64 = 1.0;
/// Height of the right end.
const B: f64 = 3.0;
/// Final time.
const TF: f64 = 1.0;

/// Number of intervals of `chain(n)`: `max(2, ⌊(n − 4)/4⌋)` (any `n` is accepted).
pub fn intervals(n: usize) -> usize {
    (n.saturating_sub(4) / 4).max(2)
}

/// The hanging chain with `nh = intervals(n)` intervals. Variables `u` (slope), `x1`
/// (height), `x2` (potential energy), `x3` (length) on `k ∈ 1..=nh+1`, started on the
/// parabola of COPSBenchmark.jl; minimizes `x2[nh + 1]`.
pub fn chain(n: usize) -> Result<Model, ModelError> {
    let nh = intervals(n) as i64;
    let h = TF / nh as f64;
    let tmin = if B > A { 0.25 } else { 0.75 };
    let u0 = move |k: i64| 4.0 * (B - A).abs() * (k as f64 / nh as f64 - tmin);
    let x10 = move |k: i64| {
        let t = k as f64 / nh as f64;
        4.0 * (B - A).abs() * t * (0.5 * t - tmin) + A
    };

    let mut b = ModelBuilder::new();
    b.set_name("chain");
    let u = b.var(1..=nh + 1).start_with(u0).named("u");
    let x1 = b.var(1..=nh + 1).start_with(x10).named("x1");
    let x2 = b.var(1..=nh + 1).start_with(|k| x10(k) * u0(k)).named("x2");
    let x3 = b.var(1..=nh + 1).start_with(u0).named("x3");

    b.minimize((), |_| x2.at(nh + 1)).named("energy");

    b.constraint(1..=nh, |j| {
        x1.at(j + 1) - x1.at(j) - 0.5 * h * (u.at(j) + u.at(j + 1))
    })
    .named("height");
    b.constraint((), |_| x1.at(1) - A).named("x1_first");
    b.constraint((), |_| x1.at(nh + 1) - B).named("x1_last");
    b.constraint((), |_| x2.at(1)).named("x2_first");
    b.constraint((), |_| x3.at(1)).named("x3_first");
    b.constraint((), |_| x3.at(nh + 1) - L).named("x3_last");
    b.constraint(1..=nh, |j| {
        x2.at(j + 1)
            - x2.at(j)
            - 0.5
                * h
                * (x1.at(j) * (1.0 + u.at(j).powi(2)).sqrt()
                    + x1.at(j + 1) * (1.0 + u.at(j + 1).powi(2)).sqrt())
    })
    .named("energy_integral");
    b.constraint(1..=nh, |j| {
        x3.at(j + 1)
            - x3.at(j)
            - 0.5 * h * ((1.0 + u.at(j).powi(2)).sqrt() + (1.0 + u.at(j + 1).powi(2)).sqrt())
    })
    .named("length_integral");
    b.build()
}
