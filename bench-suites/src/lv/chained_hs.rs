//! Problems 11–18 of the Lukšan–Vlček suite: chained Hock–Schittkowski problems,
//! generic over the scalar type.
//!
//! Three-wide chains (HS46, 48, 49): `nC = ⌊2(N−2)/3⌋`, row `i` starts at
//! `l = 3⌊(i−1)/2⌋`, objective over `i = 1..⌊(N−2)/3⌋`. Four-wide chains (HS47, 50–53):
//! `nC = ⌊3(N−1)/4⌋`, `l = 4⌊(i−1)/3⌋`, objective over `i = 1..⌊(N−1)/4⌋`. The row index
//! sets `L1, L2, …` are data: the list of offsets `l` of the rows of one algebraic form,
//! and each form is one pattern over its list.

use simdnlp_modeling::{Model, ModelBuilder, ModelError, Scalar, Var};

use super::problems::signed;

/// Offsets `l = width·⌊(i−1)/group⌋` for `i = start, start+step, …, ≤ stop`.
fn offsets(start: i64, step: usize, stop: i64, width: i64, group: i64) -> Vec<i64> {
    (start..=stop)
        .step_by(step)
        .map(|i| width * ((i - 1) / group))
        .collect()
}

/// `nC` of a three-wide chain.
pub fn three_wide_nc(n: usize) -> i64 {
    (2 * (signed(n) - 2)).div_euclid(3)
}

/// `nC` of a four-wide chain.
pub fn four_wide_nc(n: usize) -> i64 {
    (3 * (signed(n) - 1)).div_euclid(4)
}

/// The four-wide row sets `L1 = 1:3:nC−3`, `L2 = 2:3:nC−3`, `L3 = 3:3:nC−3` as offsets.
fn four_wide_sets(n: usize) -> [Vec<i64>; 3] {
    let nc = four_wide_nc(n);
    [1, 2, 3].map(|s| offsets(s, 3, nc - 3, 4, 3))
}

/// A builder with `x_1..x_N` started by `start(i)`.
fn base<T: Scalar>(name: &str, n: usize, start: impl Fn(i64) -> f64) -> (ModelBuilder<T>, Var) {
    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("lv/{name}:{n}"));
    let x = m.var(1..=signed(n)).start_with(start).named("x");
    (m, x)
}

/// Start values by `i mod 3` (`1, 2, 0`).
fn by_mod3(v: [f64; 3]) -> impl Fn(i64) -> f64 {
    move |i| match i % 3 {
        1 => v[0],
        2 => v[1],
        _ => v[2],
    }
}

/// Start values by `i mod 4` (`1, 2, 3, 0`).
fn by_mod4(v: [f64; 4]) -> impl Fn(i64) -> f64 {
    move |i| match i % 4 {
        1 => v[0],
        2 => v[1],
        3 => v[2],
        _ => v[3],
    }
}

/// Objective of HS46 and HS49 over `i = 1..⌊(N−2)/3⌋`.
fn objective_hs46<T: Scalar>(m: &mut ModelBuilder<T>, x: &Var, n: usize) {
    m.minimize(1..=(signed(n) - 2).div_euclid(3), |i| {
        (x.at(3 * i - 2) - x.at(3 * i - 1)).powi(2)
            + (x.at(3 * i) - 1.0).powi(2)
            + (x.at(3 * i + 1) - 1.0).powi(4)
            + (x.at(3 * i + 2) - 1.0).powi(6)
    });
}

/// Objective of HS47 and HS50 over `i = 1..⌊(N−1)/4⌋`.
fn objective_hs47<T: Scalar>(m: &mut ModelBuilder<T>, x: &Var, n: usize) {
    m.minimize(1..=(signed(n) - 1).div_euclid(4), |i| {
        (x.at(4 * i - 3) - x.at(4 * i - 2)).powi(2)
            + (x.at(4 * i - 2) - x.at(4 * i - 1)).powi(2)
            + (x.at(4 * i - 1) - x.at(4 * i)).powi(2)
            + (x.at(4 * i) - x.at(4 * i + 1)).powi(2)
    });
}

/// Objective of HS51 and HS53 over `i = 1..⌊(N−1)/4⌋`.
fn objective_hs51<T: Scalar>(m: &mut ModelBuilder<T>, x: &Var, n: usize) {
    m.minimize(1..=(signed(n) - 1).div_euclid(4), |i| {
        (x.at(4 * i - 3) - x.at(4 * i - 2)).powi(4)
            + (x.at(4 * i - 2) + x.at(4 * i - 1) - 2.0).powi(2)
            + (x.at(4 * i) - 1.0).powi(2)
            + (x.at(4 * i + 1) - 1.0).powi(2)
    });
}

/// Rows of HS52 and HS53 over the four-wide sets.
fn rows_hs52<T: Scalar>(m: &mut ModelBuilder<T>, x: &Var, n: usize) {
    let [l1, l2, l3] = four_wide_sets(n);
    m.constraint(&l1, |l| x.at(l + 1).powi(2) + 3.0 * x.at(l + 2))
        .named("c1");
    m.constraint(&l2, |l| {
        x.at(l + 3).powi(2) + 2.0 * x.at(l + 4) - 2.0 * x.at(l + 5)
    })
    .named("c2");
    m.constraint(&l3, |l| x.at(l + 2).powi(2) - x.at(l + 5))
        .named("c3");
}

/// Problem 11: Chained HS46. Rows over `L2 = 2:2:nC` first, then over `L1 = 1:2:nC−2` (the sets
/// crossed as in the reference). `n = N`, `m = ⌊nC/2⌋ + |L1|`.
pub fn chained_hs46<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs46", n, by_mod3([2.0, 1.5, 0.5]));
    let nc = three_wide_nc(n);
    let l2 = offsets(2, 2, nc, 3, 2);
    let l1 = offsets(1, 2, nc - 2, 3, 2);
    m.constraint(&l2, |l| {
        x.at(l + 2) + x.at(l + 3).powi(4) * x.at(l + 4).powi(2) - 2.0
    })
    .named("c2");
    m.constraint(&l1, |l| {
        x.at(l + 1).powi(2) * x.at(l + 4) + (x.at(l + 4) - x.at(l + 5)).sin() - 1.0
    })
    .named("c1");
    objective_hs46(&mut m, &x, n);
    m.build()
}

/// Problem 12: Chained HS47. Three row forms over `L1, L2, L3` (four-wide). `n = N`.
pub fn chained_hs47<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs47", n, by_mod4([2.0, 1.5, -1.0, 0.5]));
    let [l1, l2, l3] = four_wide_sets(n);
    m.constraint(&l1, |l| {
        x.at(l + 1) + x.at(l + 2).powi(2) + x.at(l + 3).powi(2) - 3.0
    })
    .named("c1");
    m.constraint(&l2, |l| {
        x.at(l + 2) + x.at(l + 3).powi(2) + x.at(l + 4) - 1.0
    })
    .named("c2");
    m.constraint(&l3, |l| x.at(l + 1) * x.at(l + 5) - 1.0)
        .named("c3");
    objective_hs47(&mut m, &x, n);
    m.build()
}

/// The three-wide sets of HS48/HS49: `L1 = 1:2:nC−1`, `L2 = 2:2:nC` as offsets.
fn sets_hs48(n: usize) -> (Vec<i64>, Vec<i64>) {
    let nc = three_wide_nc(n);
    (offsets(1, 2, nc - 1, 3, 2), offsets(2, 2, nc, 3, 2))
}

/// Problem 13: Chained HS48. `n = N`, `m = |L1| + |L2|`.
pub fn chained_hs48<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs48", n, by_mod3([3.0, 5.0, -3.0]));
    let (l1, l2) = sets_hs48(n);
    m.constraint(&l1, |l| {
        x.at(l + 1) + x.at(l + 2).powi(2) + x.at(l + 3) + x.at(l + 4) + x.at(l + 5) - 5.0
    })
    .named("c1");
    m.constraint(&l2, |l| {
        x.at(l + 3).powi(2) - 2.0 * (x.at(l + 4) + x.at(l + 5)) - 3.0
    })
    .named("c2");
    m.minimize(1..=(signed(n) - 2).div_euclid(3), |i| {
        (x.at(3 * i - 2) - 1.0).powi(2)
            + (x.at(3 * i - 1) - x.at(3 * i)).powi(2)
            + (x.at(3 * i + 1) - x.at(3 * i + 2)).powi(2)
    });
    m.build()
}

/// Problem 14: Chained HS49 (HS48's row sets, HS46's objective). `n = N`.
pub fn chained_hs49<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs49", n, by_mod3([10.0, 7.0, -3.0]));
    let (l1, l2) = sets_hs48(n);
    m.constraint(&l1, |l| {
        x.at(l + 1).powi(2) + x.at(l + 2) + x.at(l + 3) + 4.0 * x.at(l + 4) - 7.0
    })
    .named("c1");
    m.constraint(&l2, |l| x.at(l + 3).powi(2) - 5.0 * x.at(l + 5) - 6.0)
        .named("c2");
    objective_hs46(&mut m, &x, n);
    m.build()
}

/// Problem 15: Chained HS50 (HS47's row sets and objective). `n = N`.
pub fn chained_hs50<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs50", n, by_mod4([35.0, 11.0, 5.0, -5.0]));
    let [l1, l2, l3] = four_wide_sets(n);
    m.constraint(&l1, |l| {
        x.at(l + 1).powi(2) + 2.0 * x.at(l + 2) + 3.0 * x.at(l + 3).powi(2) - 6.0
    })
    .named("c1");
    m.constraint(&l2, |l| {
        x.at(l + 2).powi(2) + 2.0 * x.at(l + 3) + 3.0 * x.at(l + 4) - 6.0
    })
    .named("c2");
    m.constraint(&l3, |l| {
        x.at(l + 3).powi(2) + 2.0 * x.at(l + 4) + 3.0 * x.at(l + 5) - 6.0
    })
    .named("c3");
    objective_hs47(&mut m, &x, n);
    m.build()
}

/// Problem 16: Chained HS51. `n = N`.
pub fn chained_hs51<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs51", n, by_mod4([2.5, 0.5, 2.0, -1.0]));
    let [l1, l2, l3] = four_wide_sets(n);
    m.constraint(&l1, |l| x.at(l + 1).powi(2) + 3.0 * x.at(l + 2) - 4.0)
        .named("c1");
    m.constraint(&l2, |l| {
        x.at(l + 3).powi(2) + 2.0 * x.at(l + 4) - 2.0 * x.at(l + 5)
    })
    .named("c2");
    m.constraint(&l3, |l| x.at(l + 2).powi(2) - x.at(l + 5))
        .named("c3");
    objective_hs51(&mut m, &x, n);
    m.build()
}

/// Problem 17: Chained HS52. `n = N`.
pub fn chained_hs52<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs52", n, |_| 2.0);
    rows_hs52(&mut m, &x, n);
    m.minimize(1..=(signed(n) - 1).div_euclid(4), |i| {
        (4.0 * x.at(4 * i - 3) - x.at(4 * i - 2)).powi(2)
            + (x.at(4 * i - 2) + x.at(4 * i - 1) - 2.0).powi(4)
            + (x.at(4 * i) - 1.0).powi(2)
            + (x.at(4 * i + 1) - 1.0).powi(2)
    });
    m.build()
}

/// Problem 18: Chained HS53 (HS52's rows, HS51's objective). `n = N`.
pub fn chained_hs53<T: Scalar>(n: usize) -> Result<Model<T>, ModelError> {
    let (mut m, x) = base::<T>("chained_hs53", n, |_| 2.0);
    rows_hs52(&mut m, &x, n);
    objective_hs51(&mut m, &x, n);
    m.build()
}
