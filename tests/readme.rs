//! The numbers the README states, recomputed: the acopf example's case118_ieee cost and
//! iteration count, and the warm-start example's warm and cold iteration counts. The README's
//! code blocks themselves run as doc-tests (`ReadmeDoctests` in `src/lib.rs`).

#[path = "../examples/acopf.rs"]
#[allow(dead_code)]
mod acopf;

#[path = "../examples/warm_start.rs"]
#[allow(dead_code)]
mod warm_start;

use simdnlp::prelude::*;

const README: &str = include_str!("../README.md");

/// The README's text as one line (its paragraphs wrap anywhere).
fn readme_flat() -> String {
    README.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text between `start` and the next `end` after it (leading blanks skipped), in the
/// flattened README.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("README no longer says {start:?}"))
        + start.len();
    let rest = text[from..].trim_start();
    let len = rest
        .find(end)
        .unwrap_or_else(|| panic!("README: no {end:?} after {start:?}"));
    rest[..len].trim()
}

#[test]
fn acopf_case118_numbers() {
    let text = readme_flat();
    let claim = between(
        &text,
        "cargo run --release --example acopf -- case118_ieee` gives",
        "; BASELINE.md",
    );
    // "97213.61 $/h in 30 iterations"
    let cost: f64 = between(claim, "", "$/h").parse().unwrap();
    let iterations: usize = between(claim, "$/h in", "iterations").parse().unwrap();

    let c = acopf::run(&["case118_ieee".to_string()]).expect("case118_ieee solves");
    assert_eq!(c.result.status, Status::SolveSucceeded);
    assert_eq!(
        format!("{:.2}", c.result.objective),
        format!("{cost:.2}"),
        "README's acopf cost"
    );
    assert_eq!(c.result.iterations, iterations, "README's acopf iterations");
    let baseline: f64 = between(&text, "; BASELINE.md has", ". ").parse().unwrap();
    assert_eq!(Some(baseline), c.reference, "README's BASELINE.md value");
    assert!((c.result.objective - baseline).abs() / baseline < 1e-4);
}

#[test]
fn warm_start_numbers() {
    let text = readme_flat();
    // "warm: 22 iterations against 25 for a cold solve at nh = 200."
    let claim = between(&text, "the start is warm:", ".");
    let warm: usize = between(claim, "", "iterations against").parse().unwrap();
    let cold: usize = between(claim, "iterations against", "for a cold solve")
        .parse()
        .unwrap();
    let nh: usize = between(&format!("{claim} "), "at nh =", " ")
        .parse()
        .unwrap();

    let quiet = Options {
        print_level: PrintLevel::None,
        ..Options::default()
    };
    let r = warm_start::run(nh, &quiet).expect("solves");
    for s in [&r.first, &r.warm, &r.cold] {
        assert_eq!(s.status, Status::SolveSucceeded);
    }
    assert_eq!(
        (r.warm.iterations, r.cold.iterations),
        (warm, cold),
        "README's warm-start iteration counts (warm, cold)"
    );
}
