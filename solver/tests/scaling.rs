//! Badly scaled problems Ipopt solves (issue 17): the gradient-based scaling and the
//! termination tests must see through factors of 1e12.
//!
//! The Ipopt reference runs are `python3 bench-suites/peers/hs71_badly_scaled.py`
//! (CasADi's Ipopt 3.14 + MUMPS, default options).

mod common;
use common::*;
use simdnlp_solver::{Options, SolveResult, Status, solve};

const INF: f64 = f64::INFINITY;
/// HS71's optimal objective.
const HS71_OPT: f64 = 17.014017289;

/// HS71 with the objective and the product row (and its bound) multiplied by 1e12.
/// Ipopt: `Optimal Solution Found` in 14 iterations at 1.7014017e13.
fn hs71_times_1e12() -> AdModel<4> {
    AdModel::new(
        "hs71_times_1e12",
        [1.0, 5.0, 5.0, 1.0],
        Bounds([1.0; 4], [5.0; 4]),
        Bounds(vec![25e12, 40.0], vec![INF, 40.0]),
        |x| (x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2]) * 1e12,
        |x, c| {
            c.push(x[0] * x[1] * x[2] * x[3] * 1e12);
            c.push(x[0].sq() + x[1].sq() + x[2].sq() + x[3].sq());
        },
    )
}

/// HS71 plus a free variable `y = 1e12·x₁` (start 0) coupled by `1e-12·y − x₁ = 0`, with
/// `1e-12·(y − 1e12·x₁)²` added to the objective. Ipopt: `Optimal Solution Found` in 47
/// iterations at 17.01404.
fn hs71_with_y() -> AdModel<5> {
    AdModel::new(
        "hs71_with_y",
        [1.0, 5.0, 5.0, 1.0, 0.0],
        Bounds([1.0, 1.0, 1.0, 1.0, -INF], [5.0, 5.0, 5.0, 5.0, INF]),
        Bounds(vec![25.0, 40.0, 0.0], vec![INF, 40.0, 0.0]),
        |x| x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2] + (x[4] - x[0] * 1e12).sq() * 1e-12,
        |x, c| {
            c.push(x[0] * x[1] * x[2] * x[3]);
            c.push(x[0].sq() + x[1].sq() + x[2].sq() + x[3].sq());
            c.push(x[4] * 1e-12 - x[0]);
        },
    )
}

fn report(r: &SolveResult, name: &str) {
    println!(
        "{name}: {:?} iters {} f {:.10e} viol {:.3e} dual {:.3e} x {:?}",
        r.status, r.iterations, r.objective, r.constr_viol, r.dual_inf, r.x
    );
}

#[test]
fn hs71_with_objective_and_row_times_1e12_solves() {
    let r = solve(&hs71_times_1e12(), &Options::default()).expect("solve");
    report(&r, "hs71_times_1e12");
    // before the μ floor honoured the objective scaling: SearchDirectionBecomesTooSmall
    assert_eq!(r.status, Status::SolveSucceeded);
    let rel = (r.objective / 1e12 - HS71_OPT).abs() / HS71_OPT;
    assert!(
        rel < 1e-6,
        "objective {} vs {}",
        r.objective,
        HS71_OPT * 1e12
    );
    // the product row is met up to the bound relaxation (1e-8 relative, 2.5e5 absolute,
    // as Ipopt's point), the unscaled complementarity and dual infeasibility to their
    // tolerances
    assert!(r.constr_viol <= 1e-7 * 25e12, "violation {}", r.constr_viol);
    assert!(r.dual_inf <= 1.0, "dual infeasibility {}", r.dual_inf);
    assert!(
        r.iterations <= 2 * 14,
        "{} iterations (Ipopt: 14)",
        r.iterations
    );
}

#[test]
fn hs71_with_a_1e12_scaled_copy_of_x1_solves() {
    let r = solve(&hs71_with_y(), &Options::default()).expect("solve");
    report(&r, "hs71_with_y");
    // before the μ floor honoured the objective scaling: SearchDirectionBecomesTooSmall at
    // 17.178
    assert_eq!(r.status, Status::SolveSucceeded);
    // Ipopt stops at 17.014042: x₁ = 1 + 1.2e-5 is allowed by the coupling row's 1e-8
    // tolerance on 1e-12·y − x₁ (the y term of the objective is 1e-12 times a square)
    let rel = (r.objective - HS71_OPT).abs() / HS71_OPT;
    assert!(rel < 1e-5, "objective {} vs {}", r.objective, HS71_OPT);
    assert!(r.constr_viol <= 1e-8, "violation {}", r.constr_viol);
    assert!(
        (r.x[4] * 1e-12 - r.x[0]).abs() <= 1e-8,
        "y = {} vs x1 = {}",
        r.x[4],
        r.x[0]
    );
    assert!(
        r.iterations <= 2 * 47,
        "{} iterations (Ipopt: 47)",
        r.iterations
    );
}
