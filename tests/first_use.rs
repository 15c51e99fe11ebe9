//! A user's first hour (issue 13), one test per obstacle found: the DataRow derive through
//! the facade, the iteration log with no subscriber installed, `Display` of results,
//! constraint values per block, scalar blocks printed by name, names given late in the
//! chain used in errors, and fixed variables returned at their value.

use std::process::Command;

use simdnlp::ndarray;
use simdnlp::prelude::*;

/// Through `simdnlp::prelude` only, with no `#[data_row(crate = ...)]` attribute.
#[derive(Clone, DataRow)]
struct Sample {
    t: f64,
    y: f64,
    weight: f64,
}

fn samples() -> Vec<Sample> {
    (0..12)
        .map(|k| {
            let t = 0.25 * k as f64;
            Sample {
                t,
                y: 2.0 * (-0.5 * t).exp(),
                weight: 1.0 + (k % 3) as f64,
            }
        })
        .collect()
}

/// `min Σ w (a exp(b t) − y)²` over two scalar variables.
fn fit_model(data: &[Sample]) -> Result<(Model, Var<ndarray::Ix0>, Var<ndarray::Ix0>), Error> {
    let mut m = ModelBuilder::new();
    let a = m.var(()).start(1.0).named("a");
    let b = m.var(()).start(0.0).named("b");
    m.minimize(data, |d| {
        d.weight * (a.at(()) * (b.at(()) * d.t).exp() - d.y).powi(2)
    });
    Ok((m.build()?, a, b))
}

/// Default options with the log off.
fn quiet() -> Options {
    Options {
        print_level: PrintLevel::None,
        ..Options::default()
    }
}

#[test]
fn data_rows_and_scalar_blocks_through_the_facade() {
    let data = samples();
    let (model, a, b) = fit_model(&data).unwrap();
    let text = model.to_string();
    assert!(text.contains("d.weight*(a*exp(b*d.t) - d.y)^2"), "{text}");
    assert!(!text.contains("a[0]") && !text.contains("b[1]"), "{text}");
    let r = solve(&model, &quiet()).unwrap();
    assert_eq!(r.status, Status::SolveSucceeded);
    let (a_fit, b_fit) = (
        r.solution(&model, &a).unwrap()[()],
        r.solution(&model, &b).unwrap()[()],
    );
    assert!((a_fit - 2.0).abs() < 1e-7 && (b_fit + 0.5).abs() < 1e-7);
}

#[test]
fn options_enums_are_in_the_prelude() {
    let o = Options {
        print_level: PrintLevel::Debug,
        mu_strategy: MuStrategy::AdaptiveLoqo,
        linear_solver: LinearSolverKind::Lblt,
        kkt: KktKind::Condensed,
        ..Options::default()
    };
    assert_ne!(o, Options::default());
}

/// Rosenbrock chain with default options: the child process of
/// [`default_options_print_the_log_without_a_subscriber`] (a no-op unless that test runs
/// this binary with `SIMDNLP_LOG_CHILD` set).
#[test]
fn log_child() {
    if std::env::var_os("SIMDNLP_LOG_CHILD").is_none() {
        return;
    }
    let n: i64 = 6;
    let mut m = ModelBuilder::new();
    let x = m.var(1..=n).start(-1.0).named("x");
    m.minimize(2..=n, |i| {
        100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2)
    });
    m.set_name("chain");
    let model = m.build().unwrap();
    let r = solve(&model, &Options::default()).unwrap();
    assert!(r.status.is_success());
    // a second solve with the log off prints nothing (the parent counts one header and
    // one summary)
    let silent = solve(&model, &quiet()).unwrap();
    assert_eq!(silent.iterations, r.iterations);
    eprintln!("CHILD DONE {}", r.iterations);
}

#[test]
fn default_options_print_the_log_without_a_subscriber() {
    // a fresh process with no tracing subscriber: this test binary, running `log_child`
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["--exact", "log_child", "--nocapture", "--test-threads=1"])
        .env("SIMDNLP_LOG_CHILD", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed: {stderr}");
    let iters: usize = stderr
        .lines()
        .find_map(|l| l.strip_prefix("CHILD DONE "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no CHILD DONE line in {stderr}"));
    let lines: Vec<&str> = stderr.lines().collect();
    // the header, one line per iteration 0..=iters, and the summary, printed once
    let header = lines
        .iter()
        .filter(|l| l.starts_with("iter    objective    inf_pr   inf_du lg(mu)"))
        .count();
    assert_eq!(header, 1, "{stderr}");
    // the problem-size header (Ipopt's), once, before the iterations
    let size_line = lines
        .iter()
        .position(|l| l.starts_with("Total number of variables....."))
        .unwrap_or_else(|| panic!("no size header in {stderr}"));
    let iter_header = lines
        .iter()
        .position(|l| l.starts_with("iter    objective"))
        .unwrap();
    assert!(size_line < iter_header, "{stderr}");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("Number of nonzeros in Lagrangian Hessian"))
            .count(),
        1,
        "{stderr}"
    );
    for k in 0..=iters {
        assert!(
            lines
                .iter()
                .any(|l| l.trim_start().starts_with(&format!("{k} "))),
            "no line for iteration {k}: {stderr}"
        );
    }
    let summary: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("optimal solution found after"))
        .collect();
    assert_eq!(summary.len(), 1, "{stderr}");
    assert!(
        summary[0].starts_with(&format!(
            "chain: optimal solution found after {iters} iterations: objective"
        )),
        "{stderr}"
    );
    // plain lines: no level, target or field noise from a formatter
    assert!(
        !stderr.contains("INFO") && !stderr.contains("status="),
        "{stderr}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("time: callbacks"))
            .count(),
        1,
        "{stderr}"
    );
}

#[test]
fn results_display_and_constraint_values_per_block() {
    // min (x − 2)² + (y − 1)² s.t. x + y ≤ 2 (active, multiplier 1), x·y ≥ −5 (inactive)
    let mut m = ModelBuilder::new();
    let v = m.var(2).start(0.0).named("v");
    m.minimize((), |_| (v.at(0) - 2.0).powi(2) + (v.at(1) - 1.0).powi(2));
    let sum = m
        .constraint((), |_| v.at(0) + v.at(1))
        .upper(2.0)
        .named("sum");
    let prod = m
        .constraint(0..2, |i| v.at(i) * 1.0)
        .bounds(-5.0, 5.0)
        .named("box");
    let model = m.build().unwrap();
    let r = solve(&model, &quiet()).unwrap();
    assert_eq!(r.status, Status::SolveSucceeded);
    let s = r.constraint_values(&model, &sum).unwrap();
    assert!((s[()] - 2.0).abs() < 1e-7, "{s}");
    let b: ndarray::Array1<f64> = r.constraint_values(&model, &prod).unwrap();
    let x: ndarray::Array1<f64> = r.solution(&model, &v).unwrap();
    assert!((b[0] - x[0]).abs() < 1e-12 && (b[1] - x[1]).abs() < 1e-12);
    assert!((r.multipliers(&model, &sum).unwrap()[()] - 1.0).abs() < 1e-6);
    // Display: the status in words, iterations, objective
    assert_eq!(Status::SolveSucceeded.to_string(), "optimal solution found");
    let line = r.to_string();
    let head = format!(
        "optimal solution found after {} iterations: objective ",
        r.iterations
    );
    let objective: f64 = line
        .strip_prefix(&head)
        .and_then(|rest| rest.split(',').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(
        (objective - 0.5).abs() < 1e-7 && (objective - r.objective).abs() < 1e-9,
        "{line}"
    );
    assert!(!line.contains('\n'));
    assert!(format!("{r:#}").contains("\ntime: callbacks"));
    // a handle of another model is an error, not a panic
    let mut other = ModelBuilder::new();
    let w = other.var(1).named("w");
    let c = other.constraint((), |_| w.at(0) * 1.0).named("c");
    let _ = other.build().unwrap();
    assert!(r.constraint_values(&model, &c).is_err());
}

#[test]
fn errors_use_names_given_later_in_the_chain() {
    // the wrong-length start is found before `.named("speed")` is applied
    let mut m = ModelBuilder::new();
    let v = m.var(3).start(vec![1.0, 2.0]).named("speed");
    m.minimize(0..3, |i| v.at(i).powi(2));
    let e = m.build().unwrap_err().to_string();
    assert!(e.contains("`speed`") && !e.contains("x0"), "{e}");

    let mut m = ModelBuilder::new();
    let x = m.var(2).named("x");
    let p = m.param_shaped(3, vec![1.0, 2.0]).named("price");
    m.minimize(0..2, |i| p.at(i) * x.at(i));
    let e = m.build().unwrap_err().to_string();
    assert!(e.contains("`price`") && !e.contains("p0"), "{e}");

    let mut m = ModelBuilder::new();
    let x = m.var(2).named("x");
    m.constraint(0..2, |i| x.at(i) * 1.0)
        .lower(vec![0.0; 5])
        .named("limits");
    let e = m.build().unwrap_err().to_string();
    assert!(e.contains("`limits`") && !e.contains("c0"), "{e}");
}

#[test]
fn fixed_variables_come_back_at_their_value() {
    // min (x0 − 3)² + x0·x1 + x1² with x1 fixed at 1 (lower == upper), and x0 + x1 ≥ 0
    let mut m = ModelBuilder::new();
    let x = m
        .var(2)
        .lower(vec![f64::NEG_INFINITY, 1.0])
        .upper(vec![f64::INFINITY, 1.0])
        .start(vec![0.0, 1.0])
        .named("x");
    m.minimize((), |_| {
        (x.at(0) - 3.0).powi(2) + x.at(0) * x.at(1) + x.at(1).powi(2)
    });
    let row = m
        .constraint((), |_| x.at(0) + x.at(1))
        .lower(0.0)
        .named("row");
    let model = m.build().unwrap();
    let r = solve(&model, &quiet()).unwrap();
    assert_eq!(r.status, Status::SolveSucceeded);
    let xs = r.solution(&model, &x).unwrap();
    assert_eq!(xs[1], 1.0, "exactly the fixed value");
    // x0 = 3 − x1/2 = 2.5; the row is inactive (y = 0)
    assert!((xs[0] - 2.5).abs() < 1e-8, "{xs}");
    assert!(r.multipliers(&model, &row).unwrap()[()].abs() < 1e-8);
    // Ipopt's make_parameter multipliers: z_L − z_U = ∂f/∂x1 = x0 + 2 x1 = 4.5 > 0
    let (zl, zu) = (
        r.multipliers_lower(&model, &x).unwrap(),
        r.multipliers_upper(&model, &x).unwrap(),
    );
    assert!((zl[1] - 4.5).abs() < 1e-7 && zu[1] == 0.0, "{zl} {zu}");
    // objective and constraint values are those of the returned point
    assert!((r.objective - ((xs[0] - 3.0).powi(2) + xs[0] + 1.0)).abs() < 1e-14);
    assert!((r.constraint_values(&model, &row).unwrap()[()] - (xs[0] + 1.0)).abs() < 1e-14);
}
