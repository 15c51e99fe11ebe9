//! Problems 1–10 of the Lukšan–Vlček suite, generic over the scalar type.
//!
//! Every builder follows `spec/bench-problems.md` literally: variables `x_1..x_N` (a block
//! indexed from 1 so that the code reads like the math), one pattern per algebraic form
//! over an index range, boundary rows as single-point patterns.

use simdnlp_modeling::{Expr, Model, ModelBuilder, ModelError, Scalar, nested};

/// `N` as a signed index (sizes beyond `i64` saturate and then fail at build time).
pub(crate) fn signed(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// `|e|⁷ / 3`, the way the reference parses `abs(e)^7/3`.
fn abs7_over_3(e: Expr) -> Expr {
    e.abs().powi(7) / 3.0
}

/// Problem 1: Chained Rosenbrock with trigonometric–exponential constraints. `n = N`, `m = N − 2`.
pub fn rosenbrock<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/rosenbrock:{n}"));
    let x = m
        .var(1..=nn)
        .start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 })
        .named("x");
    m.minimize(1..nn, |i| {
        100.0 * (x.at(i).powi(2) - x.at(i + 1)).powi(2) + (x.at(i) - 1.0).powi(2)
    });
    m.constraint(1..=nn - 2, |k| {
        let (a, b, c) = (x.at(k), x.at(k + 1), x.at(k + 2));
        3.0 * b.powi(3) + 2.0 * &c - 5.0 + (&b - &c).sin() * (&b + &c).sin() + 4.0 * &b
            - &a * (&a - &b).exp()
            - 3.0
    })
    .named("c");
    m.build()
}

/// Problem 2: Chained Wood. `n = N`, `m = N − 7`; the rows are a base pattern
/// `(2 + 5x_{k+5}²)x_{k+5} + 1` augmented by `x_k(1 + x_k) + x_{k+1}(1 + x_{k+1})`.
pub fn wood<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/wood:{n}"));
    let x = m
        .var(1..=nn)
        .start_with(|i| if i % 2 == 1 { -2.0 } else { 0.0 })
        .named("x");
    m.minimize(1..nn / 2, |i| {
        let (a, b, c, d) = (
            x.at(2 * i - 1),
            x.at(2 * i),
            x.at(2 * i + 1),
            x.at(2 * i + 2),
        );
        100.0 * (a.powi(2) - &b).powi(2)
            + (&a - 1.0).powi(2)
            + 90.0 * (c.powi(2) - &d).powi(2)
            + (&c - 1.0).powi(2)
            + 10.0 * (&b + &d - 2.0).powi(2)
            + (&b - &d).powi(2) / 10.0
    });
    let c = m
        .constraint(1..=nn - 7, |k| {
            let v = x.at(k + 5);
            (2.0 + 5.0 * v.powi(2)) * &v + 1.0
        })
        .named("c");
    m.augment(&c, 1..=nn - 7, |k| {
        let (a, b) = (x.at(k), x.at(k + 1));
        (k, &a * (1.0 + &a) + &b * (1.0 + &b))
    });
    m.build()
}

/// Problem 3: Chained Powell singular function with two boundary rows. `n = N`, `m = 2`.
pub fn chained_powell<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/chained_powell:{n}"));
    let x = m
        .var(1..=nn)
        .start_with(|i| match i % 4 {
            1 => 3.0,
            2 => -1.0,
            3 => 0.0,
            _ => 1.0,
        })
        .named("x");
    m.minimize(1..nn / 2, |i| {
        let (a, b, c, d) = (
            x.at(2 * i - 1),
            x.at(2 * i),
            x.at(2 * i + 1),
            x.at(2 * i + 2),
        );
        (&a + 10.0 * &b).powi(2)
            + 5.0 * (&c - &d).powi(2)
            + (&b - 2.0 * &c).powi(4)
            + 10.0 * (&a - &d).powi(4)
    });
    m.constraint((), |_| {
        let (a, b) = (x.at(1), x.at(2));
        3.0 * a.powi(3) + 2.0 * &b - 5.0 + (&a - &b).sin() * (&a + &b).sin()
    })
    .named("first");
    m.constraint((), |_| {
        let (a, b) = (x.at(nn - 1), x.at(nn));
        4.0 * &b - &a * (&a - &b).exp() - 3.0
    })
    .named("last");
    m.build()
}

/// Problem 4: Chained Cragg–Levy. `n = N`, `m = N − 2`.
pub fn cragg_levy<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/cragg_levy:{n}"));
    let x = m
        .var(1..=nn)
        .start_with(|i| if i % 4 == 1 { 1.0 } else { 2.0 })
        .named("x");
    m.minimize(1..nn / 2, |i| {
        let (a, b, c, d) = (
            x.at(2 * i - 1),
            x.at(2 * i),
            x.at(2 * i + 1),
            x.at(2 * i + 2),
        );
        (a.exp() - &b).powi(4)
            + 100.0 * (&b - &c).powi(6)
            + (&c - &d).tan().powi(4)
            + 8.0 * a.powi(8)
            + (&d - 1.0).powi(2)
    });
    m.constraint(1..=nn - 2, |k| {
        let (a, b, c) = (x.at(k), x.at(k + 1), x.at(k + 2));
        8.0 * &b * (b.powi(2) - &a) - 2.0 * (1.0 - &b) + 4.0 * (&b - c.powi(2))
    })
    .named("c");
    m.build()
}

/// Problem 5: Broyden tridiagonal objective `Σ |·|⁷/3` (see the module docs of [`crate::lv`]).
/// `n = N`, `m = N − 4`.
pub fn broyden_tridiagonal<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/broyden_tridiagonal:{n}"));
    let x = m.var(1..=nn).start(-1.0).named("x");
    m.minimize(2..nn, |i| {
        let v = x.at(i);
        abs7_over_3((3.0 - 2.0 * &v) * &v - x.at(i - 1) - x.at(i + 1) + 1.0)
    });
    m.minimize((), |_| {
        let v = x.at(1);
        abs7_over_3((3.0 - 2.0 * &v) * &v - x.at(2) + 1.0)
    });
    m.minimize((), |_| {
        let v = x.at(nn);
        abs7_over_3((3.0 - 2.0 * &v) * &v - x.at(nn - 1) + 1.0)
    });
    m.constraint(1..=nn - 4, |k| {
        let (a, b, c, d, e) = (x.at(k), x.at(k + 1), x.at(k + 2), x.at(k + 3), x.at(k + 4));
        8.0 * &c * (c.powi(2) - &b) - 2.0 * (1.0 - &c) + 4.0 * (&c - d.powi(2)) + b.powi(2) - &a
            + &d
            - e.powi(2)
    })
    .named("c");
    m.build()
}

/// Problem 6: Broyden banded: variables `x, y ∈ ℝ^N`, `n = 2N`, `m = ⌊(N−1)/2⌋ + N`. The rows
/// `y_i − Σ_{j=max(1,i−5)}^{min(N,i+1)} x_j(1 + x_j)` are a base pattern `y_i` augmented
/// by one term per `(i, j)` of the band (a nested data iterator).
pub fn broyden_banded<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/broyden_banded:{n}"));
    let x = m.var(1..=nn).start(3.0).named("x");
    let y = m.var(1..=nn).start(0.0).named("y");
    m.minimize(1..=nn, |i| {
        let v = x.at(i);
        abs7_over_3((2.0 + 5.0 * v.powi(2)) * &v + 1.0 + y.at(i))
    });
    m.constraint(1..=(nn - 1) / 2, |k| {
        let (a, b, c) = (x.at(2 * k - 1), x.at(2 * k), x.at(2 * k + 1));
        4.0 * &b - (&a - &c) * (&a - &b - &c).exp() - 3.0
    })
    .named("c");
    let band = m.constraint(1..=nn, |i| y.at(i)).named("band");
    let pairs = nested(1..=nn, |i| (i - 5).max(1)..=(i + 1).min(nn));
    m.augment(&band, pairs, |(i, j)| {
        let v = x.at(j);
        (i, -(&v * (1.0 + &v)))
    });
    m.build()
}

/// Problem 7: Trigonometric tridiagonal with four boundary rows. `n = N`, `m = 4`.
pub fn trigo_tridiagonal<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/trigo_tridiagonal:{n}"));
    let x = m.var(1..=nn).start(1.0).named("x");
    m.minimize(2..nn, |i| {
        i * (1.0 - x.at(i).cos() + x.at(i - 1).sin() - x.at(i + 1).sin())
    });
    m.constraint((), |_| {
        let (a, b, c) = (x.at(1), x.at(2), x.at(3));
        4.0 * (&a - b.powi(2)) + &b - c.powi(2)
    })
    .named("r1");
    m.constraint((), |_| {
        let (a, b, c, d) = (x.at(1), x.at(2), x.at(3), x.at(4));
        8.0 * &b * (b.powi(2) - &a) - 2.0 * (1.0 - &b) + 4.0 * (&b - c.powi(2)) + &c - d.powi(2)
    })
    .named("r2");
    m.constraint((), |_| {
        let (a, b, c, d) = (x.at(nn - 3), x.at(nn - 2), x.at(nn - 1), x.at(nn));
        8.0 * &c * (c.powi(2) - &b) - 2.0 * (1.0 - &c) + 4.0 * (&c - d.powi(2)) + &b - a.powi(2)
    })
    .named("r3");
    m.constraint((), |_| {
        let (a, b, c) = (x.at(nn - 2), x.at(nn - 1), x.at(nn));
        8.0 * &c * (c.powi(2) - &b) - 2.0 * (1.0 - &c) + b.powi(2) - &a
    })
    .named("r4");
    m.build()
}

/// Problem 8: Augmented Lagrangian function with discretized boundary-value rows. `n = N`,
/// `m = N − 2`.
pub fn augmented_lagrangian<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let h = 1.0 / (n as f64 + 1.0);
    let (l1, l2, l3) = (-0.002008, -0.001900, -0.000261);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/augmented_lagrangian:{n}"));
    let x = m
        .var(1..=nn)
        .start_with(|i| if i % 2 == 1 { -1.0 } else { 2.0 })
        .named("x");
    m.minimize(1..=nn / 5, |i| {
        let v: Vec<Expr> = (0..5).map(|j| x.at(5 * i - j)).collect();
        // v[j] = x_{5i−j}
        let prod = &v[0] * &v[1] * &v[2] * &v[3] * &v[4];
        let sq = v[0].powi(2) + v[1].powi(2) + v[2].powi(2) + v[3].powi(2) + v[4].powi(2);
        prod.exp()
            + 10.0 * (sq - 10.0 - l1).powi(2)
            + (&v[3] * &v[2] - 5.0 * &v[1] * &v[0] - l2).powi(2)
            + (v[4].powi(3) + v[3].powi(3) + 1.0 - l3).powi(2)
    });
    m.constraint(1..=nn - 2, |k| {
        let (a, b, c) = (x.at(k), x.at(k + 1), x.at(k + 2));
        2.0 * &b + h * h * (&b + h * (k + 1i64) + 1.0).powi(3) / 2.0 - a - c
    })
    .named("c");
    m.build()
}

/// Problem 9: Modified Brown function with six boundary rows. `n = N`, `m = 6`.
pub fn modified_brown<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/modified_brown:{n}"));
    let x = m.var(1..=nn).start(-1.0).named("x");
    m.minimize(1..=nn / 2, |i| {
        let (a, b) = (x.at(2 * i - 1), x.at(2 * i));
        (&a - 3.0).powi(2) / 1000.0 - (&a - &b) + (20.0 * (&a - &b)).exp()
    });
    // x_j for j = 1..6 and x_{n−j} for j = 0..5
    let lo = |j: i64| x.at(j);
    let hi = |j: i64| x.at(nn - j);
    m.constraint((), |_| {
        4.0 * (lo(1) - lo(2).powi(2)) + lo(2) - lo(3).powi(2) + lo(3) - lo(4).powi(2)
    })
    .named("r1");
    m.constraint((), |_| {
        let (x1, x2, x3, x4, x5) = (lo(1), lo(2), lo(3), lo(4), lo(5));
        8.0 * &x2 * (x2.powi(2) - &x1) - 2.0 * (1.0 - &x2)
            + 4.0 * (&x2 - x3.powi(2))
            + x1.powi(2)
            + &x3
            - x4.powi(2)
            + &x4
            - x5.powi(2)
    })
    .named("r2");
    m.constraint((), |_| {
        let (x1, x2, x3, x4, x5, x6) = (lo(1), lo(2), lo(3), lo(4), lo(5), lo(6));
        8.0 * &x3 * (x3.powi(2) - &x2) - 2.0 * (1.0 - &x3) + 4.0 * (&x3 - x4.powi(2)) + x2.powi(2)
            - &x1
            + &x4
            - x5.powi(2)
            + x1.powi(2)
            + &x5
            - x6.powi(2)
    })
    .named("r3");
    m.constraint((), |_| {
        // x_{n−2}: centre; neighbours x_{n−5} … x_n
        let (a, b, c, d, e, f) = (hi(5), hi(4), hi(3), hi(2), hi(1), hi(0));
        8.0 * &d * (d.powi(2) - &c) - 2.0 * (1.0 - &d) + 4.0 * (&d - e.powi(2)) + c.powi(2) - &b
            + &e
            - f.powi(2)
            + b.powi(2)
            + &f
            - &a
    })
    .named("r4");
    m.constraint((), |_| {
        let (b, c, d, e, f) = (hi(4), hi(3), hi(2), hi(1), hi(0));
        8.0 * &e * (e.powi(2) - &d) - 2.0 * (1.0 - &e) + 4.0 * (&e - f.powi(2)) + d.powi(2) - &c
            + &f
            + c.powi(2)
            - &b
    })
    .named("r5");
    m.constraint((), |_| {
        let (c, d, e, f) = (hi(3), hi(2), hi(1), hi(0));
        8.0 * &f * (f.powi(2) - &e) - 2.0 * (1.0 - &f) + e.powi(2) - &d + d.powi(2) - &c
    })
    .named("r6");
    m.build()
}

/// Problem 10: Generalized Brown function `(x_{2i−1}²)^{x_{2i}²+1} + (x_{2i}²)^{x_{2i−1}²+1}`.
/// `n = N`, `m = N − 2`.
pub fn generalized_brown<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let nn = signed(n);
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/generalized_brown:{n}"));
    let x = m.var(1..=nn).start(-1.0).named("x");
    m.minimize(1..=nn / 2, |i| {
        let (a2, b2) = (x.at(2 * i - 1).powi(2), x.at(2 * i).powi(2));
        a2.pow(&b2 + 1.0) + b2.pow(&a2 + 1.0)
    });
    m.constraint(1..=nn - 2, |k| {
        let b = x.at(k + 1);
        (3.0 - 2.0 * &b) * &b + 1.0 - x.at(k) - 2.0 * x.at(k + 2)
    })
    .named("c");
    m.build()
}
