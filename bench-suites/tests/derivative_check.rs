//! The solver's derivative checker (`simdnlp_solver::check_derivatives`, option
//! `derivative_test`) passes on the small preset of every registered problem: every LV and
//! COPS problem (modeling layer and hand-coded) and every OPF case of size class small that
//! is found (the bundled ones at least), each at Ipopt's default settings apart from
//! central differences (see `settings`).
#![cfg(feature = "solver")]

use simdnlp_bench::harness::registry::{Registry, SizeClass};
use simdnlp_solver::derivative_check::DifferenceScheme;
use simdnlp_solver::{DerivativeCheckOptions, check_derivatives};

/// Ipopt's `derivative_test second-order` at its tolerance (1e-4), but
/// - with central differences of step 1e-6: with Ipopt's forward differences of step 1e-8
///   the round-off `ε |f| / h ≈ 2e-8 |f|` alone exceeds the tolerance where values are in
///   the thousands (OPF costs, COPS objectives);
/// - on at most 2000 columns (see `max_columns`);
/// - at a point within 0.1 of the start (`point_perturbation_radius` 0.1, Ipopt's is 10):
///   10 away from the start several LV objectives overflow (`generalized_brown`,
///   `modified_brown`, `augmented_lagrangian` reach 1e50 and beyond), where no finite
///   difference is meaningful.
fn settings() -> DerivativeCheckOptions {
    DerivativeCheckOptions {
        scheme: DifferenceScheme::Central,
        perturbation: 1e-6,
        point_perturbation_radius: 0.1,
        // every column up to 2000 variables; COPS dirichlet (10 564 variables, expensive
        // callbacks: about a minute for all columns) on every 6th column
        max_columns: 2000,
        ..DerivativeCheckOptions::default()
    }
}

#[test]
fn every_registered_small_instance_passes() {
    let registry = Registry::with_defaults(None);
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for problem in registry.problems() {
        for (class, param) in &problem.presets {
            if *class != SizeClass::Small {
                continue;
            }
            let label = format!(
                "{} {} ({:?}) {param}",
                problem.suite, problem.name, problem.backend
            );
            let model = (problem.build)(param).unwrap_or_else(|e| panic!("{label}: {e}"));
            let started = std::time::Instant::now();
            let report =
                check_derivatives(&*model, &settings()).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(report.checked() > 0, "{label}: nothing compared");
            if !report.passed() {
                failures.push(format!("{label}:\n{report}"));
            }
            println!("{label}: {:.2} s", started.elapsed().as_secs_f64());
            checked.push(label);
        }
    }
    for suite in ["lv", "cops", "opf"] {
        assert!(
            checked.iter().any(|l| l.starts_with(suite)),
            "no {suite} instance checked: {checked:?}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
