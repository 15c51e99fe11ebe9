//! What a solve reports besides the solution: the problem size (Ipopt's header) and, after
//! a failure, the most violated rows and bounds named by block.

use simdnlp::prelude::*;
use simdnlp::solver::{ProblemSize, ViolationKind};

fn quiet() -> Options {
    Options {
        print_level: PrintLevel::None,
        ..Options::default()
    }
}

#[test]
fn problem_size_counts_by_hand() {
    let mut m = ModelBuilder::new();
    let free = m.var(2).start(0.5).named("free"); // 2 without bounds
    let pos = m.var(3).lower(0.0).start(1.0).named("pos"); // 3 lower only
    let neg = m.var(1).upper(0.0).start(-1.0).named("neg"); // 1 upper only
    let boxed = m.var(2).bounds(-1.0, 1.0).named("boxed"); // 2 both
    let fixed = m.var(1).bounds(2.0, 2.0).start(2.0).named("fixed"); // 1 fixed
    m.minimize(0..2, |i| free.at(i).powi(2));
    m.minimize(0..3, |i| pos.at(i).powi(2));
    m.minimize((), |_| neg.at(0).powi(2));
    m.minimize(0..2, |i| boxed.at(i).powi(2));
    m.minimize((), |_| fixed.at(0).powi(2));
    // 2 equality rows, 2 Jacobian entries each
    m.constraint(0..2, |i| free.at(i) + pos.at(i)).named("eq");
    // 1 row with a lower bound only, 2 entries
    m.constraint((), |_| pos.at(2) * boxed.at(0))
        .lower(-5.0)
        .named("lo");
    // 2 rows with an upper bound only, 3 entries each
    m.constraint(0..2, |i| boxed.at(i) + neg.at(0) + fixed.at(0))
        .upper(10.0)
        .named("up");
    // 1 row with both bounds, 2 entries
    m.constraint((), |_| free.at(0) * free.at(1))
        .bounds(-1.0, 1.0)
        .named("both");
    let model = m.build().unwrap();
    let size = ProblemSize::of(&model);
    let expected = ProblemSize {
        variables: 9,
        variables_free: 2,
        variables_lower_only: 3,
        variables_both: 2,
        variables_upper_only: 1,
        variables_fixed: 1,
        equalities: 2,
        inequalities: 4,
        inequalities_lower_only: 1,
        inequalities_both: 1,
        inequalities_upper_only: 2,
        inequalities_free: 0,
        jacobian_nnz_equality: 4,
        jacobian_nnz_inequality: 2 + 6 + 2,
        // 9 diagonal entries of the objective, pos[2]·boxed[0] and free[0]·free[1]
        hessian_nnz: model.meta().nnzh,
    };
    assert_eq!(size, expected);
    assert!(size.hessian_nnz >= 11, "{}", size.hessian_nnz);
    let result = solve(&model, &quiet()).unwrap();
    assert_eq!(result.size, size);
    assert!(result.violations.is_empty(), "{:?}", result.violations);
    let lines = size.header_lines();
    assert_eq!(
        lines[0],
        "Number of nonzeros in equality constraint Jacobian...:         4"
    );
    assert_eq!(
        lines[3],
        "Total number of variables............................:         8"
    );
    assert_eq!(
        lines[4],
        "                     variables with only lower bounds:         3"
    );
    assert!(
        lines[10].starts_with("Total number of inequality constraints")
            && lines[10].ends_with(" 4")
    );
}

#[test]
fn violation_report_names_the_contradictory_rows() {
    // `ok` and `bad[2]` can hold; `bad[1]` (x0 ∈ [0, 1]) and `bad[3]` (x0 ∈ [3, 4]) cannot
    // both hold
    let mut m = ModelBuilder::new();
    let x = m.var(3).start(0.0).named("x");
    m.minimize(0..3, |i| x.at(i).powi(2));
    m.constraint(0..3, |i| x.at(i) * 1.0)
        .bounds(-10.0, 10.0)
        .named("ok");
    m.constraint(1..=3, |_| x.at(0) * 1.0)
        .lower(vec![0.0, -5.0, 3.0])
        .upper(vec![1.0, 5.0, 4.0])
        .named("bad");
    let model = m.build().unwrap();
    assert_eq!(model.con_block(4).unwrap().to_string(), "bad[2]");
    assert_eq!(model.con_block(0).unwrap().to_string(), "ok[0]");
    assert_eq!(model.var_block(2).unwrap().to_string(), "x[2]");
    assert!(model.con_block(6).is_none() && model.var_block(3).is_none());

    let result = solve(&model, &quiet()).unwrap();
    assert!(!result.status.is_success(), "{:?}", result.status);
    assert!(!result.violations.is_empty());
    assert!(result.violations.len() <= simdnlp::solver::MAX_VIOLATIONS);
    for v in &result.violations {
        assert_eq!(v.kind, ViolationKind::Row, "{v}");
        assert_eq!(v.block.as_deref(), Some("bad"), "{v}");
        assert!(matches!(v.block_index[..], [1] | [3]), "{v}");
        assert_eq!(v.index, 3 + (v.block_index[0] as usize - 1), "{v}");
        assert!(
            v.amount > 1e-4 && v.amount == (v.value - v.bound).abs(),
            "{v}"
        );
    }
    // sorted, largest first, and 2 = the gap between [0, 1] and [3, 4] is shared out
    let amounts: Vec<f64> = result.violations.iter().map(|v| v.amount).collect();
    assert!(amounts.windows(2).all(|w| w[0] >= w[1]), "{amounts:?}");
    let total: f64 = amounts.iter().sum();
    assert!(total >= 2.0 - 1e-3, "{amounts:?}");
    let first = result.violations[0].to_string();
    assert!(
        first.starts_with("row ") && first.contains("(bad["),
        "{first}"
    );
}

#[test]
fn block_positions_of_multi_dimensional_and_scalar_blocks() {
    let mut m = ModelBuilder::new();
    let s = m.var(()).named("s");
    let u = m.var((1..=2, 0..3)).named("u");
    m.minimize((), |_| s.at(()).powi(2));
    m.minimize((1..=2, 0..3), |(i, j)| u.at((i, j)).powi(2));
    m.constraint((1..=2, 0..3), |(i, j)| u.at((i, j)) + s.at(()))
        .upper(1.0)
        .named("cap");
    let model = m.build().unwrap();
    // variables: s, then u in row-major order
    assert_eq!(model.var_block(0).unwrap().to_string(), "s");
    assert!(model.var_block(0).unwrap().index.is_empty());
    assert_eq!(model.var_block(1).unwrap().to_string(), "u[1, 0]");
    let last = model.var_block(6).unwrap();
    assert_eq!((last.block.as_str(), &last.index[..]), ("u", &[2, 2][..]));
    assert_eq!(model.con_block(4).unwrap().to_string(), "cap[2, 1]");
    assert!(model.var_block(7).is_none() && model.con_block(6).is_none());
}
