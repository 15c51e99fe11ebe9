//! Flow in a channel (COPS problem 5): the fourth-order boundary-value problem
//! `u'''' = R (u' u'' − u u''')` on `[0, 1]`, `u(0) = u'(0) = 0`, `u(1) = 1`, `u'(1) = 0`,
//! `R = 10`, discretized by 4-point collocation on `nh` intervals — a square system of
//! equations with the constant objective `1` (a feasibility problem).
//!
//! `channel(nh)` follows COPSBenchmark.jl: variables `v[i, s]` (the state and its first
//! three derivatives at interval starts), `w[i, k]`, `uc[i, j, s]`, `Duc[i, j, s]` with
//! `i ∈ 1..=nh`, `j, k, s ∈ 1..=4`; `n = m = 40 nh`. Reference objective `1`.

use simdnlp_modeling::{Expr, Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least, factorial};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "channel",
    small: CopsSize::N(5),
    medium: CopsSize::N(400),
    large: CopsSize::N(42_000),
    reference_size: CopsSize::N(200),
    reference_objective: Some(1.0),
    maximize: false,
    build: CopsBuild::N(channel),
};

/// Number of collocation points.
const NC: i64 = 4;
/// Order of the ODE (number of derivatives in the state).
const ND: i64 = 4;
/// Reynolds number.
const R: f64 = 10.0;
/// Final time.
const TF: f64 = 1.0;
/// Gauss collocation points on `[0, 1]`.
const RHO: [f64; 4] = [
    0.06943184420297,
    0.33000947820757,
    0.66999052179243,
    0.93056815579703,
];

/// Four coefficients as one data row.
type C4 = (f64, f64, f64, f64);

/// `(f(1), f(2), f(3), f(4))`.
fn c4(f: impl Fn(i64) -> f64) -> C4 {
    (f(1), f(2), f(3), f(4))
}

/// Coefficients of the Taylor expansion of derivative `s` (1-based) over a step `dt` from
/// an interval start: `v`-coefficients `dt^{k−s}/(k−s)!` for `k ≥ s` (0 below) and
/// `w`-coefficients `h^{nd−s+1} (dt/h)^{k+nd−s} / (k+nd−s)!` with `dt = ρ h`.
fn taylor(s: i64, rho: f64, h: f64) -> (C4, C4) {
    let dt = rho * h;
    let cv = c4(|k| {
        if k >= s {
            dt.powi((k - s) as i32) / factorial((k - s) as u32)
        } else {
            0.0
        }
    });
    let cw = c4(|k| {
        h.powi((ND - s + 1) as i32) * rho.powi((k + ND - s) as i32) / factorial((k + ND - s) as u32)
    });
    (cv, cw)
}

/// The channel-flow problem with `nh ≥ 1` intervals, started at the cubic
/// `u(t) = t² (3 − 2t)` (and its derivatives) as in COPSBenchmark.jl.
pub fn channel(nh: usize) -> Result<Model, ModelError> {
    let nh = at_least("channel", "nh", nh, 1)? as i64;
    let h = TF / nh as f64;
    let t = |i: i64| (i - 1) as f64 * h;
    let v0 = move |i: i64, s: i64| {
        let t = t(i);
        match s {
            1 => t * t * (3.0 - 2.0 * t),
            2 => 6.0 * t * (1.0 - t),
            3 => 6.0 * (1.0 - 2.0 * t),
            _ => -12.0,
        }
    };

    // uc rows, per collocation point j: h ρ_j^k / k!
    let uc_rows: Vec<(i64, C4)> = (1..=NC)
        .map(|j| {
            let r = RHO[j as usize - 1];
            (j, c4(|k| h * r.powi(k as i32) / factorial(k as u32)))
        })
        .collect();
    // Duc rows, per (j, s): Taylor coefficients of derivative s − 1 at ρ_j h
    let duc_rows: Vec<(i64, i64, C4, C4)> = (1..=NC)
        .flat_map(|j| {
            (1..=ND).map(move |s| {
                let (cv, cw) = taylor(s, RHO[j as usize - 1], h);
                (j, s, cv, cw)
            })
        })
        .collect();
    // continuity rows, per s: Taylor coefficients at the interval end (ρ = 1)
    let cont_rows: Vec<(i64, C4, C4)> = (1..=ND)
        .map(|s| {
            let (cv, cw) = taylor(s, 1.0, h);
            (s, cv, cw)
        })
        .collect();
    // collocation rows, per j: ρ_j^{k−1} / (k−1)!
    let coll_rows: Vec<(i64, C4)> = (1..=NC)
        .map(|j| {
            let r = RHO[j as usize - 1];
            (j, c4(|k| r.powi(k as i32 - 1) / factorial(k as u32 - 1)))
        })
        .collect();

    let mut b = ModelBuilder::new();
    b.set_name("channel");
    let v = b
        .var((1..=nh, 1..=ND))
        .start_with(|(i, s)| v0(i, s))
        .named("v");
    let w = b.var((1..=nh, 1..=NC)).start(0.0).named("w");
    let uc = b
        .var((1..=nh, 1..=NC, 1..=ND))
        .start_with(|(i, _, s)| v0(i, s))
        .named("uc");
    let duc = b.var((1..=nh, 1..=NC, 1..=ND)).start(0.0).named("Duc");

    b.minimize((), |_| Expr::constant(1.0)).named("constant");

    b.constraint((1..=nh, &uc_rows, 1..=ND), |(i, (j, a), s)| {
        uc.at((i, j, s))
            - v.at((i, s))
            - (a.0 * w.at((i, 1)) + a.1 * w.at((i, 2)) + a.2 * w.at((i, 3)) + a.3 * w.at((i, 4)))
    })
    .named("uc_def");
    b.constraint((1..=nh, &duc_rows), |(i, (j, s, cv, cw))| {
        duc.at((i, j, s))
            - (cv.0 * v.at((i, 1))
                + cv.1 * v.at((i, 2))
                + cv.2 * v.at((i, 3))
                + cv.3 * v.at((i, 4)))
            - (cw.0 * w.at((i, 1))
                + cw.1 * w.at((i, 2))
                + cw.2 * w.at((i, 3))
                + cw.3 * w.at((i, 4)))
    })
    .named("Duc_def");

    b.constraint((), |_| v.at((1, 1))).named("u_left");
    b.constraint((), |_| v.at((1, 2))).named("du_left");
    // u(1) = 1 and u'(1) = 0 from the Taylor expansion over the last interval
    let (bv, bw) = taylor(1, 1.0, h);
    b.constraint((), |_| {
        bv.0 * v.at((nh, 1))
            + bv.1 * v.at((nh, 2))
            + bv.2 * v.at((nh, 3))
            + bv.3 * v.at((nh, 4))
            + bw.0 * w.at((nh, 1))
            + bw.1 * w.at((nh, 2))
            + bw.2 * w.at((nh, 3))
            + bw.3 * w.at((nh, 4))
            - 1.0
    })
    .named("u_right");
    let (dv, dw) = taylor(2, 1.0, h);
    b.constraint((), |_| {
        dv.1 * v.at((nh, 2))
            + dv.2 * v.at((nh, 3))
            + dv.3 * v.at((nh, 4))
            + dw.0 * w.at((nh, 1))
            + dw.1 * w.at((nh, 2))
            + dw.2 * w.at((nh, 3))
            + dw.3 * w.at((nh, 4))
    })
    .named("du_right");

    b.constraint((1..nh, &cont_rows), |(i, (s, cv, cw))| {
        cv.0 * v.at((i, 1))
            + cv.1 * v.at((i, 2))
            + cv.2 * v.at((i, 3))
            + cv.3 * v.at((i, 4))
            + cw.0 * w.at((i, 1))
            + cw.1 * w.at((i, 2))
            + cw.2 * w.at((i, 3))
            + cw.3 * w.at((i, 4))
            - v.at((i + 1, s))
    })
    .named("continuity");
    b.constraint((1..=nh, &coll_rows), |(i, (j, e))| {
        e.0 * w.at((i, 1)) + e.1 * w.at((i, 2)) + e.2 * w.at((i, 3)) + e.3 * w.at((i, 4))
            - R * (duc.at((i, j, 2)) * duc.at((i, j, 3)) - duc.at((i, j, 1)) * duc.at((i, j, 4)))
    })
    .named("collocation");
    b.build()
}
