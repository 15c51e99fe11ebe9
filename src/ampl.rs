//! The AMPL solver protocol around [`simdnlp_modeling::nl`]: option parsing (`name=value`
//! from `$simdnlp_options`, the command line and options files), AMPL's `solve_result_num`
//! codes for the solver's statuses, and the `.sol` file of a solve.
//!
//! The `simdnlp` executable (`src/bin/simdnlp.rs`) is a thin shell over this module.

use simdnlp_modeling::nl::{NlModel, SolFile, write_sol};
use simdnlp_solver::{Options, SolveResult, Status};
use std::path::Path;

/// AMPL's `solve_result_num` and message for a solver status (Ipopt's AMPL interface uses
/// the same codes): 0 solved, 1 solved to the acceptable level, 200 infeasible, 300
/// unbounded (diverging iterates), 400 iteration limit, 401 time limit, 500–504 failures.
pub fn solve_result(status: Status) -> (i32, &'static str) {
    match status {
        Status::SolveSucceeded => (0, "Optimal Solution Found"),
        Status::SolvedToAcceptableLevel => (1, "Solved To Acceptable Level"),
        Status::InfeasibleProblemDetected => (
            200,
            "Converged to a locally infeasible point. Problem may be infeasible",
        ),
        Status::DivergingIterates => (300, "Iterates diverging; problem might be unbounded"),
        Status::MaximumIterationsExceeded => (400, "Maximum Number of Iterations Exceeded"),
        Status::MaximumCpuTimeExceeded => (401, "Maximum Wall Time Exceeded"),
        Status::SearchDirectionBecomesTooSmall => (500, "Search Direction becomes Too Small"),
        Status::RestorationFailed => (501, "Restoration Phase Failed"),
        Status::ErrorInStepComputation => (502, "Error in Step Computation"),
        Status::InvalidNumberDetected => (503, "Invalid Number Detected"),
        Status::NotEnoughDegreesOfFreedom => (504, "Not Enough Degrees of Freedom"),
    }
}

/// Sets solver option `name` from its text `value`, by Ipopt name (`tol`, `max_iter`,
/// `mu_strategy`, `print_level`, …); an unknown name or a value of the wrong type is an
/// error naming it.
///
/// This is the one place the executable sets options; it goes through the options'
/// serialized form (every field of [`Options`] under its own name). `print_level` also
/// takes Ipopt's integer levels (0 none, 1–3 summary, 4–5 iterations, more: debug) and
/// `outlev` is its ASL alias.
pub fn apply_option(options: &mut Options, name: &str, value: &str) -> Result<(), String> {
    let name = if name == "outlev" {
        "print_level"
    } else {
        name
    };
    let mut map = match serde_json::to_value(&*options) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => return Err("options cannot be serialized".into()),
    };
    let Some(old) = map.get(name).cloned() else {
        let mut known: Vec<&String> = map.keys().collect();
        known.sort_by_key(|k| strsim(k, name));
        let near: Vec<&str> = known.iter().take(3).map(|s| s.as_str()).collect();
        return Err(format!(
            "unknown option `{name}` (closest: {})",
            near.join(", ")
        ));
    };
    let bad = |what: &str| format!("option `{name}`: expected {what}, got `{value}`");
    let new = match &old {
        serde_json::Value::Bool(_) => serde_json::Value::Bool(match value {
            "yes" | "true" | "1" => true,
            "no" | "false" | "0" => false,
            _ => return Err(bad("yes or no")),
        }),
        serde_json::Value::Number(n) if n.is_f64() => {
            let v: f64 = value.parse().map_err(|_| bad("a number"))?;
            serde_json::Number::from_f64(v)
                .map(serde_json::Value::Number)
                .ok_or_else(|| bad("a finite number"))?
        }
        serde_json::Value::Number(_) => {
            let v: u64 = value.parse().map_err(|_| bad("a nonnegative integer"))?;
            serde_json::Value::from(v)
        }
        serde_json::Value::String(_) => {
            let variant = if name == "print_level" {
                match value.parse::<u32>() {
                    Ok(0) => "None".to_string(),
                    Ok(1..=3) => "Summary".to_string(),
                    Ok(4 | 5) => "Iterations".to_string(),
                    Ok(_) => "Debug".to_string(),
                    Err(_) => camel(value),
                }
            } else {
                camel(value)
            };
            serde_json::Value::String(variant)
        }
        _ => return Err(format!("option `{name}` cannot be set from text")),
    };
    map.insert(name.to_string(), new);
    *options = serde_json::from_value(serde_json::Value::Object(map))
        .map_err(|e| format!("option `{name}` = `{value}`: {e}"))?;
    Ok(())
}

/// `adaptive_loqo` → `AdaptiveLoqo` (enum variants by their Ipopt-style spelling).
fn camel(s: &str) -> String {
    s.split(['_', '-'])
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f
                    .to_uppercase()
                    .chain(c.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect()
}

/// A crude distance for "closest option" hints: the length of the longest common prefix,
/// negated, then the length difference.
fn strsim(a: &str, b: &str) -> (isize, usize) {
    let prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    (-(prefix as isize), a.len().abs_diff(b.len()))
}

/// Splits option text (`$simdnlp_options`, or the words after `-AMPL`) into
/// `(name, value)` pairs: `name=value` words, or `name value` pairs.
pub fn option_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        match w.split_once('=') {
            Some((n, v)) if !n.is_empty() => out.push((n.to_string(), v.to_string())),
            _ => match words.next() {
                Some(v) => out.push((w.to_string(), v.to_string())),
                None => return Err(format!("option `{w}` has no value")),
            },
        }
    }
    Ok(out)
}

/// Reads an Ipopt-format options file: one `name value` pair a line, `#` comments.
pub fn options_file(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut w = line.split_whitespace();
        match (w.next(), w.next(), w.next()) {
            (Some(n), Some(v), None) => out.push((n.to_string(), v.to_string())),
            _ => {
                return Err(format!(
                    "line {}: expected `name value`, got `{line}`",
                    k + 1
                ));
            }
        }
    }
    Ok(out)
}

/// Writes `STUB.sol` for a solve of an imported model: AMPL's codes, the primal values and
/// the constraint multipliers in the file's order and AMPL's sign convention.
pub fn write_solution(
    path: &Path,
    imported: &NlModel,
    result: &SolveResult,
    banner: &str,
) -> std::io::Result<()> {
    let (code, what) = solve_result(result.status);
    let duals = imported.ampl_duals(&result.y);
    let message = format!(
        "{banner}: {what}; objective {:.15e}; {} iterations",
        result.objective, result.iterations
    );
    write_sol(
        path,
        &SolFile {
            message: &message,
            options: &imported.options,
            vbtol: imported.vbtol,
            n_con: imported.n_con,
            n_var: imported.n_var,
            duals: &duals,
            primals: &result.x,
            solve_result_num: code,
        },
    )
}

/// Writes a `.sol` file for a solve that could not run (no values, `solve_result_num`
/// 500–599).
pub fn write_failure(
    path: &Path,
    options: &[i64],
    n_con: usize,
    n_var: usize,
    message: &str,
) -> std::io::Result<()> {
    write_sol(
        path,
        &SolFile {
            message,
            options,
            vbtol: None,
            n_con,
            n_var,
            duals: &[],
            primals: &[],
            solve_result_num: 510,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_by_name() {
        let mut o = Options::default();
        apply_option(&mut o, "tol", "1e-6").unwrap();
        apply_option(&mut o, "max_iter", "17").unwrap();
        apply_option(&mut o, "mu_strategy", "adaptive_loqo").unwrap();
        apply_option(&mut o, "print_level", "0").unwrap();
        apply_option(&mut o, "nlp_scaling", "no").unwrap();
        assert_eq!(o.tol, 1e-6);
        assert_eq!(o.max_iter, 17);
        assert_eq!(o.mu_strategy, simdnlp_solver::MuStrategy::AdaptiveLoqo);
        assert_eq!(o.print_level, simdnlp_solver::PrintLevel::None);
        assert!(!o.nlp_scaling);
        let e = apply_option(&mut o, "tolerance", "1").unwrap_err();
        assert!(
            e.contains("unknown option `tolerance`") && e.contains("tol"),
            "{e}"
        );
        let e = apply_option(&mut o, "max_iter", "lots").unwrap_err();
        assert!(e.contains("max_iter"), "{e}");
    }

    #[test]
    fn option_text() {
        let p = option_pairs("tol=1e-7 max_iter 30").unwrap();
        assert_eq!(
            p,
            vec![
                ("tol".into(), "1e-7".into()),
                ("max_iter".into(), "30".into())
            ]
        );
        assert!(option_pairs("tol").is_err());
        let f = options_file("# comment\ntol 1e-5\n\nmax_iter 3 # trailing\n").unwrap();
        assert_eq!(f.len(), 2);
        assert!(options_file("tol\n").unwrap_err().contains("line 1"));
    }
}
