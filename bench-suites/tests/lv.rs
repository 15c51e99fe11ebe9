//! The Lukšan–Vlček builders: sizes from the spec's formulas, derivatives against central
//! finite differences, and (with feature `solver`) solves at N = 20.

use simdnlp_bench::lv::{self, LV_PROBLEMS, LvError};
use simdnlp_bench::testing::{FdOptions, Lcg, ToleranceScale, check_derivatives};
use simdnlp_modeling::NlpModel;

/// `|{start, start + step, … ≤ stop}|`.
fn count(start: i64, step: i64, stop: i64) -> usize {
    if stop < start {
        0
    } else {
        ((stop - start) / step + 1) as usize
    }
}

/// `(n, m)` of each problem at size `N`, from the spec's formulas.
fn expected_dims(name: &str, n: usize) -> (usize, usize) {
    let nn = n as i64;
    let nc3 = 2 * (nn - 2) / 3;
    let nc4 = 3 * (nn - 1) / 4;
    let four = count(1, 3, nc4 - 3) + count(2, 3, nc4 - 3) + count(3, 3, nc4 - 3);
    let m = match name {
        "rosenbrock" | "cragg_levy" | "augmented_lagrangian" | "generalized_brown" => n - 2,
        "wood" => n - 7,
        "chained_powell" => 2,
        "broyden_tridiagonal" => n - 4,
        "broyden_banded" => return (2 * n, (n - 1) / 2 + n),
        "trigo_tridiagonal" => 4,
        "modified_brown" => 6,
        "chained_hs46" => count(2, 2, nc3) + count(1, 2, nc3 - 2),
        "chained_hs48" | "chained_hs49" => count(1, 2, nc3 - 1) + count(2, 2, nc3),
        "chained_hs47" | "chained_hs50" | "chained_hs51" | "chained_hs52" | "chained_hs53" => four,
        other => panic!("unexpected problem {other}"),
    };
    (n, m)
}

#[test]
fn eighteen_problems_with_spec_dimensions_at_n20() {
    assert_eq!(LV_PROBLEMS.len(), 18);
    for &name in LV_PROBLEMS {
        let m = lv::build(name, 20).unwrap_or_else(|e| panic!("{e}"));
        let meta = m.meta();
        assert_eq!((meta.nvar, meta.ncon), expected_dims(name, 20), "{name}");
        // equality constrained, no bounds, minimize
        assert!(meta.minimize, "{name}");
        assert!(
            meta.lcon
                .iter()
                .zip(&meta.ucon)
                .all(|(l, u)| *l == 0.0 && *u == 0.0),
            "{name}"
        );
        assert!(meta.lvar.iter().all(|v| *v == f64::NEG_INFINITY), "{name}");
        assert!(meta.uvar.iter().all(|v| *v == f64::INFINITY), "{name}");
        assert!(m.obj(&meta.x0).is_finite(), "{name}");
    }
    // hand-counted values of the chained HS sets at N = 20 (nC = 12 and 14)
    assert_eq!(expected_dims("chained_hs46", 20).1, 11);
    assert_eq!(expected_dims("chained_hs48", 20).1, 12);
    assert_eq!(expected_dims("chained_hs47", 20).1, 11);
}

#[test]
fn medium_size_builds_with_spec_dimensions() {
    for &name in LV_PROBLEMS {
        let m = lv::build(name, 2000).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (m.meta().nvar, m.meta().ncon),
            expected_dims(name, 2000),
            "{name}"
        );
    }
}

#[test]
fn derivatives_against_finite_differences_at_n20() {
    for (k, &name) in LV_PROBLEMS.iter().enumerate() {
        let m = lv::build(name, 20).unwrap();
        let opts = FdOptions {
            seed: 17 + k as u64,
            perturbation: 0.1,
            scale: ToleranceScale::Vector,
            ..FdOptions::default()
        };
        check_derivatives(name, &m, &opts);
    }
}

#[test]
fn objective_values_by_hand() {
    // rosenbrock at x0 (N = 4): three terms 100(1.44 − 1)² + 4.84, 100(1 + 1.2)² + 0, again the first
    let m = lv::rosenbrock(4).unwrap();
    let t1 = 100.0 * (1.44f64 - 1.0).powi(2) + (-2.2f64).powi(2);
    let t2 = 100.0 * (1.0f64 + 1.2).powi(2);
    assert!((m.obj(&m.meta().x0) - (2.0 * t1 + t2)).abs() < 1e-10);
    // broyden_tridiagonal at x = −1 (N = 5): interior residual (3+2)(−1) + 1 + 1 + 1 = −2,
    // ends (3+2)(−1) + 1 + 1 = −3: 3·2⁷/3 + 2·3⁷/3
    let m = lv::broyden_tridiagonal(5).unwrap();
    let want = 3.0 * 128.0 / 3.0 + 2.0 * 2187.0 / 3.0;
    assert!((m.obj(&m.meta().x0) - want).abs() < 1e-9);
    // broyden_banded at x = 3, y = 0: |(2 + 45)·3 + 1|⁷/3 per i
    let m = lv::broyden_banded(3).unwrap();
    let want = 3.0 * 142f64.powi(7) / 3.0;
    assert!((m.obj(&m.meta().x0) - want).abs() < 1e-9 * want);
    // band rows at x = 3, y = 0 (N = 8): −Σ_{j=max(1,i−5)}^{min(N,i+1)} 12
    let m = lv::broyden_banded(8).unwrap();
    let mut c = vec![0.0; m.meta().ncon];
    m.cons(&m.meta().x0, &mut c);
    let band = &c[3..];
    let want: Vec<f64> = (1..=8i64)
        .map(|i| -12.0 * ((i + 1).min(8) - (i - 5).max(1) + 1) as f64)
        .collect();
    assert_eq!(band, &want[..]);
    // trigo_tridiagonal at x = 1: Σ_{i=2}^{N−1} i·(1 − cos 1)
    let m = lv::trigo_tridiagonal(6).unwrap();
    let want = (2..=5).sum::<i32>() as f64 * (1.0 - 1f64.cos());
    assert!((m.obj(&m.meta().x0) - want).abs() < 1e-12);
}

#[test]
fn errors_are_typed() {
    assert!(matches!(
        lv::build("nope", 20),
        Err(LvError::UnknownProblem { .. })
    ));
    // boundary rows reach x_{N−5}: N = 3 has no such variable
    assert!(matches!(
        lv::build("modified_brown", 3),
        Err(LvError::Model { .. })
    ));
}

#[test]
fn f32_instances_build() {
    let m = lv::build_generic::<f32>("chained_hs52", 20).unwrap();
    assert_eq!(m.meta().nvar, 20);
    let f = m.obj(&m.meta().x0);
    let f64_model = lv::chained_hs52(20).unwrap();
    assert!((f as f64 - f64_model.obj(&f64_model.meta().x0)).abs() < 1e-4);
}

#[cfg(feature = "solver")]
#[test]
fn all_solve_at_n20() {
    use simdnlp_solver::{Options, PrintLevel, solve};
    let opts = Options {
        print_level: PrintLevel::None,
        ..Options::default()
    };
    let mut failures = Vec::new();
    for &name in LV_PROBLEMS {
        let m = lv::build(name, 20).unwrap();
        let r = solve(&m, &opts).unwrap();
        let mut c = vec![0.0; m.meta().ncon];
        m.cons(&r.x, &mut c);
        let viol = c.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        println!(
            "{name:22} {:?} iters {:4} obj {:.10e} viol {viol:.1e}",
            r.status, r.iterations, r.objective
        );
        if !r.status.is_success() || viol > 1e-6 {
            failures.push(format!("{name}: {:?}, violation {viol:e}", r.status));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// LV rosenbrock's KKT matrices are nonsingular, but LDLᵀ's static order eliminates each
/// constraint `c_k` right after `x_{k+2}` (Jacobian entry `2 − sin 2x_{k+2}`, against
/// `x_{k+1}`'s ≈ 13–17): without δ_c the pivots grow ~135-fold per constraint and overflow
/// after ~145 of them (from N ≈ 150 on; rows `N − 146 …` at N ≥ 200); at N = 20 the
/// least-squares system's pivot of row 1 cancels to an exact zero among terms of ~1e30.
/// Either stop is growth's and turns δ_c on at once: 2 factorizations for the multipliers
/// and one per iteration, 8 in all with the same iterates (Ipopt's three-iteration Jacobian
/// test spent 11 at N = 200, the overflow again in iterations 0–2; at N = 20 the steps
/// without δ_c met inaccurate solves and wrong inertia counts: 17).
#[cfg(feature = "solver")]
#[test]
fn rosenbrock_pivot_growth_turns_delta_c_on_at_once() {
    use simdnlp_solver::{Options, PrintLevel, solve};
    let opts = Options {
        print_level: PrintLevel::None,
        ..Options::default()
    };
    for n in [20, 200] {
        let m = lv::rosenbrock(n).unwrap();
        let r = solve(&m, &opts).unwrap();
        println!(
            "N = {n}: {:?} {} iterations, {:?}",
            r.status, r.iterations, r.counts
        );
        assert!(r.status.is_success(), "{:?}", r.status);
        assert_eq!(r.iterations, 6);
        assert!((r.objective - 6.2324586324).abs() < 1e-8, "{}", r.objective);
        assert_eq!(r.counts.factorizations, 8, "N = {n}");
        assert_eq!(r.counts.factorizations_inertia, 1, "N = {n}");
        assert_eq!(r.counts.factorizations_pivoting, 0, "N = {n}");
    }
}

#[test]
fn rosenbrock_matches_handcoded() {
    use simdnlp_bench::handcoded::RosenbrockModel;
    let pat = lv::rosenbrock(30).unwrap();
    let hand = RosenbrockModel::new(30).unwrap();
    let (n, m) = (30, 28);
    assert_eq!((pat.meta().nvar, pat.meta().ncon), (n, m));
    assert_eq!(pat.meta().x0, hand.meta().x0);
    let mut rng = Lcg::new(99);
    let x: Vec<f64> = (0..n).map(|_| rng.next()).collect();
    let y: Vec<f64> = (0..m).map(|_| rng.next()).collect();
    let dense_jac = |model: &dyn NlpModel<f64>| {
        let k = model.meta().nnzj;
        let (mut r, mut c, mut v) = (vec![0; k], vec![0; k], vec![0.0; k]);
        model.jac_structure(&mut r, &mut c);
        model.jac_coord(&x, &mut v);
        let mut d = vec![0.0; m * n];
        (0..k).for_each(|e| d[r[e] * n + c[e]] += v[e]);
        d
    };
    let dense_hess = |model: &dyn NlpModel<f64>| {
        let k = model.meta().nnzh;
        let (mut r, mut c, mut v) = (vec![0; k], vec![0; k], vec![0.0; k]);
        model.hess_structure(&mut r, &mut c);
        model.hess_coord(&x, &y, 0.3, &mut v);
        let mut d = vec![0.0; n * n];
        (0..k).for_each(|e| d[r[e] * n + c[e]] += v[e]);
        d
    };
    let near = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .all(|(p, q)| (p - q).abs() <= 1e-12 * (1.0 + q.abs()))
    };
    assert!((pat.obj(&x) - hand.obj(&x)).abs() <= 1e-12 * hand.obj(&x).abs());
    let (mut cp, mut ch) = (vec![0.0; m], vec![0.0; m]);
    pat.cons(&x, &mut cp);
    hand.cons(&x, &mut ch);
    assert!(near(&cp, &ch), "cons");
    assert!(near(&dense_jac(&pat), &dense_jac(&hand)), "jac");
    assert!(near(&dense_hess(&pat), &dense_hess(&hand)), "hess");
}
