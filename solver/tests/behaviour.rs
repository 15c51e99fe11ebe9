//! Statuses, degenerate problems, NaN handling, inertia correction, maximization.

mod common;
use common::*;
use simdnlp_solver::{Options, Status, solve};

fn quiet() -> Options {
    Options::default()
}

#[test]
fn infeasible_problem_is_detected() {
    // x1² + x2² ≤ 1 and x1 + x2 ≥ 3 cannot hold together (max of x1 + x2 on the disk is √2).
    let m = infeasible_disk();
    let r = solve(&m, &quiet()).unwrap();
    println!("infeasible: {:?} iters {}", r.status, r.iterations);
    assert_eq!(r.status, Status::InfeasibleProblemDetected);
}

#[test]
fn unbounded_problem_diverges() {
    // min −x1 − x2 s.t. x1 − x2 = 0, x ≥ 0: unbounded along (1, 1).
    let m = AdModel::new(
        "unbounded",
        [1.0, 1.0],
        Bounds([0.0, 0.0], [INF, INF]),
        Bounds(vec![0.0], vec![0.0]),
        |x| -x[0] - x[1],
        |x, c| c.push(x[0] - x[1]),
    );
    let r = solve(&m, &quiet()).unwrap();
    println!("unbounded: {:?} iters {}", r.status, r.iterations);
    assert_eq!(r.status, Status::DivergingIterates);
}

#[test]
fn rank_deficient_equalities_are_solved() {
    // x1 + x2 + x3 = 1 three times (one of them scaled): rank one.
    let m = duplicated_rows();
    let r = solve(&m, &quiet()).unwrap();
    println!(
        "rank deficient: {:?} iters {} x {:?}",
        r.status, r.iterations, r.x
    );
    assert_eq!(r.status, Status::SolveSucceeded);
    // projection of (1, 2, 0) onto x1 + x2 + x3 = 1: (1, 2, 0) − (2/3)(1, 1, 1)
    let xs = [1.0 / 3.0, 4.0 / 3.0, -2.0 / 3.0];
    for (xi, si) in r.x.iter().zip(xs) {
        assert!((xi - si).abs() < 1e-6, "x = {:?}", r.x);
    }
    assert!((r.objective - 4.0 / 3.0).abs() < 1e-7);
}

#[test]
fn nan_at_trial_point_is_survived() {
    let m = nan_trial();
    let r = solve(&m, &quiet()).unwrap();
    println!("nan: {:?} iters {} x {:?}", r.status, r.iterations, r.x);
    assert_eq!(r.status, Status::SolveSucceeded);
    assert!(r.x[0] < 3.0 && r.x[0] > 2.9);
    // stationarity: 2(x1 − 10) + 0.01/(3 − x1) + 2 x2 · (1/2)... check through the result's y
    let g0 = 2.0 * (r.x[0] - 10.0) + 0.01 / (3.0 - r.x[0]);
    let g1 = 2.0 * r.x[1];
    assert!((g0 + r.y[0]).abs() < 1e-6 && (g1 - 2.0 * r.y[0]).abs() < 1e-6);
}

#[test]
fn nonconvex_problem_uses_inertia_correction() {
    // (x1² − 1)² + (x2 − 0.5)² with x1 + x2 ≥ −5 starting where ∇²f is indefinite.
    let m = AdModel::new(
        "double well",
        [0.1, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![-5.0], vec![INF]),
        |x| (x[0].sq() - 1.0).sq() + (x[1] - 0.5).sq(),
        |x, c| c.push(x[0] + x[1]),
    );
    let r = solve(&m, &quiet()).unwrap();
    println!(
        "nonconvex: {:?} iters {} factorizations {} x {:?}",
        r.status, r.iterations, r.counts.factorizations, r.x
    );
    assert_eq!(r.status, Status::SolveSucceeded);
    assert!((r.x[0].abs() - 1.0).abs() < 1e-6 && (r.x[1] - 0.5).abs() < 1e-6);
    assert!(r.objective.abs() < 1e-10);
    // more factorizations than iterations (+1 for the least-squares multipliers) means at
    // least one iteration needed a perturbed matrix
    assert!(r.counts.factorizations > r.iterations + 1);
    // the breakdown says why: inertia correction, and what is left is one factorization
    // and one right-hand side per search direction (iterations + least squares)
    let c = r.counts;
    println!("nonconvex counts: {c:?}");
    assert!(c.factorizations_inertia > 0);
    let ordinary = c.factorizations
        - c.factorizations_inertia
        - c.factorizations_accuracy
        - c.factorizations_pivoting;
    assert_eq!(ordinary, r.iterations + 1);
    assert_eq!(
        c.solves - c.solves_refinement - c.solves_soc,
        r.iterations + 1
    );
}

/// `inertia_confirmation = multifrontal` re-factorizes with the multifrontal LDLᵀ every
/// matrix whose inertia LDLᵀ reports wrong at δ_w = 0; on a genuinely nonconvex problem
/// it agrees with LDLᵀ, so the solve takes the same path as without it, with one counted
/// repeat per confirmation.
#[test]
fn inertia_confirmation_agrees_on_a_genuinely_wrong_inertia() {
    let m = AdModel::new(
        "double well",
        [0.1, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![-5.0], vec![INF]),
        |x| (x[0].sq() - 1.0).sq() + (x[1] - 0.5).sq(),
        |x, c| c.push(x[0] + x[1]),
    );
    let plain = solve(&m, &quiet()).unwrap();
    let mut opts = quiet();
    opts.set("inertia_confirmation", "multifrontal").unwrap();
    let r = solve(&m, &opts).unwrap();
    let c = r.counts;
    println!("confirmed: {c:?}");
    assert_eq!(r.status, Status::SolveSucceeded);
    assert_eq!(r.iterations, plain.iterations);
    assert!(c.inertia_confirmations > 0);
    assert_eq!(c.inertia_confirmed, 0);
    assert_eq!(
        c.factorizations - c.inertia_confirmations,
        plain.counts.factorizations
    );
    assert_eq!(
        c.factorizations_pivoting - c.inertia_confirmations,
        plain.counts.factorizations_pivoting
    );
    assert_eq!(r.x, plain.x);
}

/// Free variables without curvature (states `y` summing controls `x`, the last one in the
/// objective linearly: the shape of COPS glider's altitude and chain's states) give the KKT
/// matrix zero diagonals at δ_w = 0. It is nonsingular with the right inertia, but LDLᵀ
/// without pivoting on the static KKT ordering meets a `y` as an exact zero pivot: before,
/// the inertia correction then took δ_w = 1e-4 and an inexact first step. The backend now
/// switches to the paired LBLᵀ (2×2 pivots of a variable and its constraint), so every
/// step of this equality-constrained QP is taken without δ_w, the first one in full.
#[test]
fn free_variables_without_curvature_take_the_exact_newton_step() {
    let m = AdModel::new(
        "running sums",
        [0.0; 6],
        Bounds([-INF; 6], [INF; 6]),
        Bounds(vec![0.0; 3], vec![0.0; 3]),
        |x| (x[0] - 1.0).sq() + (x[1] - 2.0).sq() + (x[2] - 3.0).sq() + x[5],
        |x, c| {
            // y0 = x0, y1 = y0 + x1, y2 = y1 + x2 (x = (x0, x1, x2, y0, y1, y2))
            c.push(x[3] - x[0]);
            c.push(x[4] - x[3] - x[1]);
            c.push(x[5] - x[4] - x[2]);
        },
    );
    let options = Options {
        keep_history: true,
        ..quiet()
    };
    let r = solve(&m, &options).unwrap();
    println!(
        "running sums: {:?} iters {} counts {:?} x {:?}",
        r.status, r.iterations, r.counts, r.x
    );
    assert_eq!(r.status, Status::SolveSucceeded);
    // ∂/∂x_i: 2 (x_i − (i + 1)) + 1 = 0
    for (i, xi) in r.x[..3].iter().enumerate() {
        assert!((xi - (i as f64 + 0.5)).abs() < 1e-8, "x = {:?}", r.x);
    }
    assert!((r.x[5] - 4.5).abs() < 1e-8, "x = {:?}", r.x);
    // every step without δ_w, the first one a full step (δ_c ≈ 6e-9 at most)
    for rec in &r.history {
        assert_eq!(rec.regularization, 0.0, "iteration {}: {rec:?}", rec.iter);
    }
    assert_eq!(r.history[1].alpha_pr, 1.0, "{:?}", r.history[1]);
    assert!(r.iterations <= 2, "{} iterations", r.iterations);
    assert_eq!(r.counts.pivoting_switches, 1);
}

/// A variable that appears nowhere (no objective term, no constraint, no bounds) makes the
/// KKT matrix singular at δ_w = 0 whatever δ_c is. Ipopt's degenerate-Hessian test: after
/// three iterations (`degen_iters_max`) whose matrices stayed singular at δ_w = 0, every
/// iteration starts at its δ_w (κ_w⁻ times the last one) instead of first factorizing at
/// δ_w = 0 with and without δ_c: one factorization per iteration instead of three.
#[test]
fn a_structurally_singular_hessian_block_stops_the_zero_trials() {
    let m = AdModel::new(
        "unused variable",
        [5.0, 0.0, 3.0],
        Bounds([-INF; 3], [INF; 3]),
        Bounds(vec![1.0], vec![1.0]),
        |x| (x[0] - 2.0).sq().sq() + (x[2] + 1.0).sq().sq(),
        |x, c| c.push(x[0] + x[2]),
    );
    let options = Options {
        keep_history: true,
        ..quiet()
    };
    let r = solve(&m, &options).unwrap();
    let c = r.counts;
    println!(
        "unused variable: {:?} iters {} counts {c:?}",
        r.status, r.iterations
    );
    assert_eq!(r.status, Status::SolveSucceeded);
    assert!(r.iterations > 6, "{} iterations", r.iterations);
    for rec in &r.history[1..] {
        assert!(rec.regularization > 0.0, "iteration {}: {rec:?}", rec.iter);
    }
    // three iterations of up to four factorizations each (δ_w = 0 with δ_c = 0 and > 0,
    // the paired LBLᵀ's repeat, the δ_w that succeeds), then one per iteration (plus the
    // least-squares multipliers' and any growth of δ_w)
    assert!(
        c.factorizations <= r.iterations + 3 * 3 + 2 + c.factorizations_pivoting,
        "{} factorizations in {} iterations",
        c.factorizations,
        r.iterations
    );
}

/// `g(x₁ + x₂)` with `g(s) = eˢ − 2s` and `x₁ = x₂`: the Hessian `eˢ [[1, 1], [1, 1]]` is
/// singular and the KKT matrix is not (inertia `(2, 1)`), but LDLᵀ without pivoting that
/// eliminates `x₁` then `x₂` meets `eˢ − eˢ = 0` as an exact pivot at δ_w = 0 in every
/// iteration. The multifrontal LDLᵀ (threshold pivoting) confirms the inertia each time
/// (`inertia_confirmation = multifrontal_singular`), and with `confirmation_switch = 2`
/// it takes over after two such steps, so no later step factorizes twice.
#[test]
fn repeated_confirmations_switch_to_the_multifrontal() {
    let m = AdModel::new(
        "exp of a sum",
        [1.0, 1.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.0], vec![0.0]),
        |x| (x[0] + x[1]).exp() - 2.0 * (x[0] + x[1]),
        |x, c| c.push(x[0] - x[1]),
    );
    let solved = |confirmation: &str, switch: &str| {
        let mut opts = quiet();
        opts.set("inertia_confirmation", confirmation).unwrap();
        opts.set("confirmation_switch", switch).unwrap();
        let r = solve(&m, &opts).unwrap();
        println!(
            "{confirmation} {switch}: {:?} iters {} x {:?} counts {:?}",
            r.status, r.iterations, r.x, r.counts
        );
        assert_eq!(r.status, Status::SolveSucceeded);
        let half_ln2 = 0.5 * std::f64::consts::LN_2;
        assert!(r.x.iter().all(|x| (x - half_ln2).abs() < 1e-8), "{:?}", r.x);
        r
    };
    let plain = solved("none", "0");
    let confirmed = solved("multifrontal_singular", "0");
    let switched = solved("multifrontal_singular", "2");
    let selective = solved("multifrontal_selective", "2");
    // LDLᵀ alone perturbs the Hessian; the confirmed inertia spares it in every step
    assert!(plain.counts.factorizations_inertia > 0);
    assert_eq!(confirmed.counts.factorizations_inertia, 0);
    assert!(
        confirmed.iterations > 3,
        "{} iterations",
        confirmed.iterations
    );
    assert_eq!(
        confirmed.counts.inertia_confirmed,
        confirmed.counts.inertia_confirmations
    );
    assert_eq!(confirmed.counts.pivoting_switches, 0);
    // after the switch: the same steps (the multifrontal factorizes every matrix),
    // confirmations only before it
    assert_eq!(switched.counts.pivoting_switches, 1);
    assert_eq!(switched.iterations, confirmed.iterations);
    assert_eq!(switched.counts.inertia_confirmations, 2);
    assert_eq!(switched.counts.factorizations_inertia, 0);
    assert!(switched.counts.factorizations < confirmed.counts.factorizations);
    // `multifrontal_selective` leaves the zero pivot of a primal row at δ_c = 0 to δ_c, and
    // confirms the singular verdict that δ_c does not remove
    assert!(selective.counts.inertia_confirmations > 0);
    assert_eq!(
        selective.counts.inertia_confirmed,
        selective.counts.inertia_confirmations
    );
    assert!(selective.counts.factorizations_inertia > 0);
    assert!(selective.counts.factorizations_inertia < plain.counts.factorizations_inertia);
}

/// With `confirmation_switch = k`, `k` confirmations in a row that agree with LDLᵀ (a
/// genuinely wrong inertia) end the confirmations: the rest of the solve is LDLᵀ's alone.
#[test]
fn agreeing_confirmations_stop_after_the_switch_count() {
    let m = AdModel::new(
        "double well",
        [0.1, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![-5.0], vec![INF]),
        |x| (x[0].sq() - 1.0).sq() + (x[1] - 0.5).sq(),
        |x, c| c.push(x[0] + x[1]),
    );
    let run = |switch: &str| {
        let mut opts = quiet();
        opts.set("inertia_confirmation", "multifrontal").unwrap();
        opts.set("confirmation_switch", switch).unwrap();
        let r = solve(&m, &opts).unwrap();
        println!(
            "switch {switch}: {:?} iters {} {:?}",
            r.status, r.iterations, r.counts
        );
        assert_eq!(r.status, Status::SolveSucceeded);
        r
    };
    let always = run("0");
    let limited = run("1");
    assert!(always.counts.inertia_confirmations > 1);
    assert_eq!(always.counts.inertia_confirmed, 0);
    assert_eq!(limited.counts.inertia_confirmations, 1);
    assert_eq!(limited.iterations, always.iterations);
    assert_eq!(limited.x, always.x);
}

/// `inertia_confirmation = multifrontal_before_delta_w` confirms LDLᵀ's wrong inertia at
/// δ_c = 0 (as `multifrontal`), but not its singular verdicts (δ_c, then δ_w) nor, before
/// any confirmation disputed LDLᵀ, a wrong inertia at δ_c > 0 — the genuinely indefinite
/// matrix of a rank-deficient Jacobian.
#[test]
fn confirmations_before_delta_w_only() {
    let run = |m: &AdModel<2>, confirmation: &str| {
        let mut opts = quiet();
        opts.set("inertia_confirmation", confirmation).unwrap();
        let r = solve(m, &opts).unwrap();
        println!(
            "{} {confirmation}: {:?} iters {} {:?}",
            m.meta.name, r.status, r.iterations, r.counts
        );
        assert_eq!(r.status, Status::SolveSucceeded);
        r
    };
    // a wrong inertia at δ_c = 0 (a nonconvex objective, a full-rank Jacobian)
    let well = AdModel::new(
        "double well",
        [0.1, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![-5.0], vec![INF]),
        |x| (x[0].sq() - 1.0).sq() + (x[1] - 0.5).sq(),
        |x, c| c.push(x[0] + x[1]),
    );
    let all = run(&well, "multifrontal");
    let gated = run(&well, "multifrontal_before_delta_w");
    assert!(gated.counts.inertia_confirmations > 0);
    assert_eq!(
        gated.counts.inertia_confirmations,
        all.counts.inertia_confirmations
    );
    // LDLᵀ's zero pivot of a primal row that δ_c does not remove (see
    // `repeated_confirmations_switch_to_the_multifrontal`): singular verdicts of LDLᵀ go to
    // δ_c and δ_w, unconfirmed
    let sum = AdModel::new(
        "exp of a sum",
        [1.0, 1.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![0.0], vec![0.0]),
        |x| (x[0] + x[1]).exp() - 2.0 * (x[0] + x[1]),
        |x, c| c.push(x[0] - x[1]),
    );
    let plain = run(&sum, "none");
    let selective = run(&sum, "multifrontal_selective");
    let gated = run(&sum, "multifrontal_before_delta_w");
    assert!(selective.counts.inertia_confirmations > 0);
    assert_eq!(gated.counts.inertia_confirmations, 0);
    assert_eq!(
        gated.counts.factorizations_inertia,
        plain.counts.factorizations_inertia
    );
    // a duplicated constraint (δ_c at every step) with a nonconvex objective: the wrong
    // inertia at δ_c > 0 is the matrix's, left to LDLᵀ
    let twice = AdModel::new(
        "double well, constraint twice",
        [0.1, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![-0.5, -0.5], vec![-0.5, -0.5]),
        |x| (x[0].sq() - 1.0).sq() + (x[1] - 0.5).sq(),
        |x, c| {
            c.push(x[0] + x[1]);
            c.push(x[0] + x[1]);
        },
    );
    let all = run(&twice, "multifrontal");
    let gated = run(&twice, "multifrontal_before_delta_w");
    assert!(all.counts.inertia_confirmations > 0);
    assert_eq!(all.counts.inertia_confirmed, 0);
    assert_eq!(gated.counts.inertia_confirmations, 0);
    assert_eq!(gated.iterations, all.iterations);
}

#[test]
fn maximization_applies_the_sign() {
    // max −(x1 − 1)² − (x2 − 2)² s.t. x1 + x2 ≤ 1 → (0, 1), f = −2, y = 2 (for min −f).
    let mut m = AdModel::new(
        "max",
        [0.0, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![-INF], vec![1.0]),
        |x| -(x[0] - 1.0).sq() - (x[1] - 2.0).sq(),
        |x, c| c.push(x[0] + x[1]),
    );
    m.meta.minimize = false;
    let r = solve(&m, &quiet()).unwrap();
    assert_eq!(r.status, Status::SolveSucceeded);
    assert!(
        (r.objective + 2.0).abs() < 1e-7,
        "objective {}",
        r.objective
    );
    assert!((r.x[0]).abs() < 1e-7 && (r.x[1] - 1.0).abs() < 1e-7);
    assert!((r.y[0] - 2.0).abs() < 1e-6, "y = {:?}", r.y);
}

#[test]
fn fixed_variables_and_free_rows() {
    // x3 fixed at 0.5; a free row (−∞, ∞) that must not matter; a range row.
    let m = AdModel::new(
        "fixed",
        [0.0, 0.0, 0.5],
        Bounds([-INF, -INF, 0.5], [INF, INF, 0.5]),
        Bounds(vec![-INF, -1.0], vec![INF, 1.0]),
        |x| (x[0] - 3.0).sq() + (x[1] + 3.0).sq() + x[2] * x[0],
        |x, c| {
            c.push(x[0] * x[1] * x[2]);
            c.push(x[0] + x[1]);
        },
    );
    let r = solve(&m, &quiet()).unwrap();
    assert_eq!(r.status, Status::SolveSucceeded);
    assert!((r.x[2] - 0.5).abs() < 1e-7);
    // unconstrained minimizer (2.75, −3) violates x1 + x2 ≥ −1? 2.75 − 3 = −0.25: inside.
    assert!(
        (r.x[0] - 2.75).abs() < 1e-6 && (r.x[1] + 3.0).abs() < 1e-6,
        "x = {:?}",
        r.x
    );
}

/// HS71 with `x₂` fixed at 3.5 (lower == upper, start 5) solves exactly as HS71 with `x₂`
/// replaced by the constant 3.5: a fixed variable is a parameter (Ipopt's
/// `make_parameter`), not a variable whose relaxed 1e-8-wide interior limits the steps.
/// With `fixed_variable_treatment relax_bounds` (the only treatment before) the
/// iterations differ.
#[test]
fn a_fixed_variable_is_a_parameter() {
    let mut c = hs71();
    c.model.meta.lvar[2] = 3.5;
    c.model.meta.uvar[2] = 3.5;
    let constant = AdModel::new(
        "hs71 with x2 = 3.5",
        [1.0, 5.0, 1.0],
        Bounds([1.0; 3], [5.0; 3]),
        Bounds(vec![25.0, 40.0], vec![INF, 40.0]),
        |x| x[0] * x[2] * (x[0] + x[1] + 3.5) + 3.5,
        |x, c| {
            c.push(x[0] * x[1] * x[2] * 3.5);
            c.push(x[0].sq() + x[1].sq() + x[2].sq() + 3.5 * 3.5);
        },
    );
    let fixed = solve(&c.model, &quiet()).unwrap();
    let reference = solve(&constant, &quiet()).unwrap();
    assert_eq!(fixed.status, Status::SolveSucceeded);
    assert_eq!(reference.status, Status::SolveSucceeded);
    assert_eq!(fixed.iterations, reference.iterations);
    assert_eq!(fixed.x[2], 3.5);
    for (a, b) in [0, 1, 3].iter().map(|&i| fixed.x[i]).zip(&reference.x) {
        assert!(
            (a - b).abs() < 1e-12,
            "x: {:?} vs {:?}",
            fixed.x,
            reference.x
        );
    }
    assert!((fixed.objective - reference.objective).abs() < 1e-10 * reference.objective.abs());
    // the fixed variable's multipliers: the Lagrangian gradient's component
    assert!(fixed.z_l[2] * fixed.z_u[2] == 0.0);
    let relaxed = solve(
        &c.model,
        &Options {
            fixed_variable_treatment: simdnlp_solver::FixedVariableTreatment::RelaxBounds,
            ..quiet()
        },
    )
    .unwrap();
    assert_eq!(relaxed.status, Status::SolveSucceeded);
    assert_eq!(relaxed.x[2], 3.5);
    println!(
        "iterations: parameter {}, constant {}, relaxed bounds {}",
        fixed.iterations, reference.iterations, relaxed.iterations
    );
}

#[test]
fn iteration_limit_is_reported() {
    let c = hs71();
    let o = Options {
        max_iter: 3,
        ..Options::default()
    };
    let r = solve(&c.model, &o).unwrap();
    assert_eq!(r.status, Status::MaximumIterationsExceeded);
    assert_eq!(r.iterations, 3);
}

#[test]
fn bad_input_is_an_error() {
    let mut c = hs71();
    c.model.meta.lvar[0] = 6.0; // above uvar = 5
    assert!(solve(&c.model, &Options::default()).is_err());
    let c = hs71();
    let o = Options {
        tau_min: 1.5,
        ..Options::default()
    };
    assert!(solve(&c.model, &o).is_err());
}

#[test]
fn options_round_trip_through_json() {
    let o = Options {
        tol: 1e-9,
        max_iter: 77,
        ..Options::default()
    };
    let s = serde_json::to_string(&o).unwrap();
    let back: Options = serde_json::from_str(&s).unwrap();
    assert_eq!(o, back);
    // missing fields take their defaults
    let partial: Options = serde_json::from_str(r#"{"tol": 1e-7}"#).unwrap();
    assert_eq!(partial.tol, 1e-7);
    assert_eq!(partial.mu_init, 0.1);
    let r = solve(&hs71().model, &Options::default()).unwrap();
    let js = serde_json::to_string(&r).unwrap();
    assert!(js.contains("SolveSucceeded"));
}

#[test]
fn watchdog_and_adaptive_mu_reach_the_same_optima() {
    // trigger 1: the watchdog runs after every shortened step (exercises store/restore)
    let wd = Options {
        watchdog: true,
        watchdog_shortened_iter_trigger: 1,
        ..Options::default()
    };
    let loqo = Options {
        mu_strategy: simdnlp_solver::MuStrategy::AdaptiveLoqo,
        ..Options::default()
    };
    for o in [&wd, &loqo] {
        for (c, name) in [
            (hs15(), "hs15"),
            (hs7(), "hs7"),
            (rosenbrock(), "rosenbrock"),
        ] {
            let r = solve(&c.model, o).unwrap();
            println!(
                "{name}: {:?} iters {} f {}",
                r.status, r.iterations, r.objective
            );
            assert_eq!(r.status, Status::SolveSucceeded, "{name}");
            assert!(
                (r.objective - c.f_opt).abs() < 1e-6 * c.f_opt.abs().max(1.0),
                "{name}"
            );
        }
        let c = hs71();
        let r = solve(&c.model, o).unwrap();
        assert_eq!(r.status, Status::SolveSucceeded);
        assert!((r.objective - c.f_opt).abs() < 1e-6 * c.f_opt);
    }
}

#[test]
fn wall_time_limit_is_reported() {
    let o = Options {
        max_wall_time: 0.0,
        ..Options::default()
    };
    let r = solve(&hs71().model, &o).unwrap();
    assert_eq!(r.status, Status::MaximumCpuTimeExceeded);
}

#[test]
fn restoration_phase_recovers_and_the_solve_continues() {
    // θ_max = 1e-2 · θ(x0) rejects every trial point of the first steps, so the line search
    // fails and the restoration phase must bring θ down before the filter method resumes.
    let o = Options {
        theta_max_fact: 1e-2,
        ..Options::default()
    };
    assert_restoration_cases_recover(&o, vec![hs6(), hs7()]);
}

/// Solves each of `cases` with `options` and checks that it succeeds through at least one
/// restoration phase at its known optimum; then hs71 (which may not need restoration) with
/// the same options.
fn assert_restoration_cases_recover<const N: usize>(options: &Options, cases: Vec<Case<N>>) {
    for c in cases {
        let r = solve(&c.model, options).unwrap();
        println!(
            "{}: {:?} iters {} restorations {}",
            c.model.meta.name, r.status, r.iterations, r.restorations
        );
        assert_eq!(r.status, Status::SolveSucceeded);
        assert!(r.restorations >= 1);
        assert!((r.objective - c.f_opt).abs() < 1e-6 * c.f_opt.abs().max(1.0));
    }
    let c = hs71();
    let r = solve(&c.model, options).unwrap();
    println!(
        "hs71: {:?} iters {} restorations {}",
        r.status, r.iterations, r.restorations
    );
    assert_eq!(r.status, Status::SolveSucceeded);
    assert!((r.objective - c.f_opt).abs() < 1e-6 * c.f_opt);
}

#[test]
fn edge_cases_do_not_panic() {
    // bounds only, active upper bound
    let m = AdModel::new(
        "bounds only",
        [0.0, 0.0],
        Bounds([-INF, -1.0], [1.0, INF]),
        Bounds(vec![], vec![]),
        |x| (x[0] - 2.0).sq() + (x[1] + 3.0).sq(),
        |_, _| {},
    );
    let r = solve(&m, &quiet()).unwrap();
    assert_eq!(r.status, Status::SolveSucceeded);
    assert!(
        (r.x[0] - 1.0).abs() < 1e-7 && (r.x[1] + 1.0).abs() < 1e-7,
        "x = {:?}",
        r.x
    );
    assert!(
        (r.z_u[0] - 2.0).abs() < 1e-6 && (r.z_l[1] - 4.0).abs() < 1e-6,
        "z = {:?} {:?}",
        r.z_l,
        r.z_u
    );
    // every variable fixed
    let m = AdModel::new(
        "all fixed",
        [0.0, 0.0],
        Bounds([1.0, 2.0], [1.0, 2.0]),
        Bounds(vec![-INF], vec![10.0]),
        |x| x[0] * x[1],
        |x, c| c.push(x[0] + x[1]),
    );
    let r = solve(&m, &quiet()).unwrap();
    assert!(r.status.is_success(), "{:?}", r.status);
    assert!((r.x[0] - 1.0).abs() < 1e-7 && (r.x[1] - 2.0).abs() < 1e-7);
    // NaN at the starting point
    let m = AdModel::new(
        "nan start",
        [-1.0, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![], vec![]),
        |x| x[0].ln() + x[1].sq(),
        |_, _| {},
    );
    let r = solve(&m, &quiet()).unwrap();
    assert_eq!(r.status, Status::InvalidNumberDetected);
    // more equalities than free variables
    let m = AdModel::new(
        "overdetermined",
        [0.0, 0.0],
        Bounds([-INF; 2], [INF; 2]),
        Bounds(vec![1.0, 2.0, 3.0], vec![1.0, 2.0, 3.0]),
        |x| (x[0] - 4.0).sq() + x[1].sq(),
        |x, c| {
            c.push(x[0]);
            c.push(x[1]);
            c.push(x[0] + x[1]);
        },
    );
    let r = solve(&m, &quiet()).unwrap();
    assert_eq!(r.status, Status::NotEnoughDegreesOfFreedom);
    // the metrics are those of the returned start x = (0, 0) with zero multipliers (issue 17:
    // they were NaN): violations 1, 2, 3 and gradient (−8, 0)
    assert_eq!((r.constr_viol, r.dual_inf), (3.0, 8.0));
}

#[test]
fn infeasibility_moved_onto_fewer_rows_is_detected() {
    // The restoration phase lowers θ = ‖c‖_1 by 17 % while the largest violation grows
    // (`parallel_rows_infeasible`); ending the phase there let the main phase return to
    // the stall, and the solve cycled through short phases (526 iterations before the
    // phase had to lower ‖c‖_∞ as well). Now the phase converges to the minimizer of the
    // violation.
    let r = solve(&parallel_rows_infeasible(), &quiet()).unwrap();
    println!(
        "parallel rows: {:?} iters {} restorations {}",
        r.status, r.iterations, r.restorations
    );
    assert_eq!(r.status, Status::InfeasibleProblemDetected);
    assert!(r.iterations <= 30, "{} iterations", r.iterations);
    assert_eq!(r.restorations, 1);
}

#[test]
fn logging_at_every_level() {
    use simdnlp_solver::PrintLevel;
    let sub = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_test_writer()
        .finish();
    tracing::subscriber::with_default(sub, || {
        for level in [
            PrintLevel::None,
            PrintLevel::Summary,
            PrintLevel::Iterations,
            PrintLevel::Debug,
        ] {
            let o = Options {
                print_level: level,
                theta_max_fact: 1e-2,
                ..Options::default()
            };
            let r = solve(&hs7().model, &o).unwrap();
            assert_eq!(r.status, Status::SolveSucceeded);
        }
    });
}

#[test]
fn parallel_factorization_gives_the_same_result() {
    let c = hs118();
    let seq = solve(&c.model, &Options::default()).unwrap();
    let par = solve(
        &c.model,
        &Options {
            factorization_threads: 2,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(par.status, Status::SolveSucceeded);
    assert!((par.objective - seq.objective).abs() < 1e-8 * seq.objective.abs());
}

#[test]
fn active_bound_below_the_slack_resolution_converges() {
    // min −x1 − 2 x2 s.t. x1 ≤ 1e8 (a bound) and x2 + 1e-3 x1 ≤ 1.001e8 (a row): at the
    // optimum (1e8, 1e8) both are active with multipliers of order 1, so the centred slacks μ/z ≈ 1e-9
    // are below the spacing of doubles near 1e8 (1.5e-8) and `bound − w` rounds to 0.
    // Clamping such a slack to ε·μ made Σ = z/s explode (case1354_pegase stalled at dual
    // infeasibility 4.5e5 for 3000 iterations); Ipopt's safe slack μ/z keeps it centred.
    let m = AdModel::new(
        "active bound at 1e8",
        [1e8 - 10.0, 1e8 - 10.0],
        Bounds([-INF, -INF], [1e8, INF]),
        Bounds(vec![-INF], vec![1.001e8]),
        |x| -x[0] - x[1] * 2.0,
        |x, c| c.push(x[1] + x[0] * 1e-3),
    );
    let r = solve(&m, &quiet()).unwrap();
    println!(
        "active bound: {:?} iters {} x {:?}",
        r.status, r.iterations, r.x
    );
    assert_eq!(r.status, Status::SolveSucceeded);
    for xi in &r.x {
        assert!((xi - 1e8).abs() <= 1e8 * 1e-8, "x = {:?}", r.x);
    }
}

#[test]
fn newton_update_of_the_bound_multipliers_after_restoration() {
    // hs23 with θ_max = 1e-2 · θ(x0) enters the restoration phase at once. Taking the
    // restoration problem's bound multipliers (the default) leaves the main phase with
    // multipliers that fit the restoration problem, not this one: 400 iterations. Ipopt's
    // update (the phase's primal change as one Newton step for s z = μ from the
    // multipliers at entry, `resto_bound_mult_newton`) solves it in 46.
    let c = hs23();
    let run = |newton: bool| {
        let o = Options {
            theta_max_fact: 1e-2,
            resto_bound_mult_newton: newton,
            ..Options::default()
        };
        let r = solve(&c.model, &o).unwrap();
        println!(
            "newton {newton}: {:?} iters {} restorations {}",
            r.status, r.iterations, r.restorations
        );
        assert_eq!(r.status, Status::SolveSucceeded);
        assert_eq!(r.restorations, 1);
        assert!((r.objective - c.f_opt).abs() < 1e-6 * c.f_opt.abs().max(1.0));
        r.iterations
    };
    assert!(run(true) <= 60);
    run(false);
}

#[test]
fn ipopt_restoration_rules_recover_as_well() {
    // The Ipopt-faithful restoration rules together (exit by ‖c‖_∞ and the filter only,
    // Newton update of the bound multipliers, ζ = √μ_R, θ_max factor 1e8) with the
    // scaling at the user's start and the watchdog: the restoration cases still recover.
    let o = Options {
        theta_max_fact: 1e-2,
        resto_require_theta_reduction: false,
        resto_bound_mult_newton: true,
        resto_theta_max_fact: 1e8,
        resto_proximity_at_resto_mu: true,
        nlp_scaling_at_user_start: true,
        watchdog: true,
        ..Options::default()
    };
    assert_restoration_cases_recover(&o, vec![hs6(), hs7(), hs23()]);
}

/// `restoration_rules`: `ipopt` and `options` (the four `resto_*` options at their
/// defaults) are different rules on a problem that enters restoration, and `auto` follows
/// the factorization — Ipopt's with the multifrontal LDLᵀ (exact inertia), the options'
/// with LDLᵀ without pivoting.
#[test]
fn restoration_rules_follow_the_factorization() {
    let m = infeasible_disk();
    let run = |rules: &str, linear_solver: &str| {
        let mut opts = quiet();
        opts.set("restoration_rules", rules).unwrap();
        opts.set("linear_solver", linear_solver).unwrap();
        let r = solve(&m, &opts).unwrap();
        println!(
            "{rules} {linear_solver}: {:?} iters {} restorations {} objective {}",
            r.status, r.iterations, r.restorations, r.objective
        );
        assert_eq!(r.status, Status::InfeasibleProblemDetected);
        assert!(r.restorations > 0);
        (r.iterations, r.restorations, r.x)
    };
    for linear_solver in ["ldlt", "multifrontal"] {
        let ipopt = run("ipopt", linear_solver);
        let ours = run("options", linear_solver);
        assert_ne!(
            ipopt, ours,
            "{linear_solver}: the rules make no difference here"
        );
    }
    assert_eq!(run("auto", "multifrontal"), run("ipopt", "multifrontal"));
    assert_eq!(run("auto", "ldlt"), run("options", "ldlt"));
}
