//! The AMPL solver protocol around [`simdnlp_modeling::nl`]: option words (`name=value`
//! from `$simdnlp_options` and the command line, applied by [`Options::set`]), AMPL's
//! `solve_result_num` codes for the solver's statuses, and the `.sol` file of a solve.
//!
//! The `simdnlp` executable (`src/bin/simdnlp.rs`) is a thin shell over this module.

use simdnlp_modeling::nl::{NlModel, SolFile, write_sol};
use simdnlp_solver::{OptionError, Options, SolveResult, Status};
use std::path::Path;

/// AMPL's `solve_result_num` and message for a solver status (Ipopt's AMPL interface uses
/// the same codes): 0 solved, 1 solved to the acceptable level, 200 infeasible, 300
/// unbounded (diverging iterates), 400 iteration limit, 401 time limit, 402 stopped by the user (callback or cancel
/// token), 500–504 failures, 599 a status this table does not know yet.
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
        Status::UserRequestedStop => (402, "Stopped by the user"),
        // a status added after this table (`Status` is non-exhaustive): a failure code
        _ => (
            599,
            "Solver stopped with a status this interface does not know",
        ),
    }
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

/// Applies `(name, value)` pairs with [`Options::set`]; `outlev` is ASL's name for
/// `print_level`.
pub fn apply_options(options: &mut Options, pairs: &[(String, String)]) -> Result<(), OptionError> {
    for (name, value) in pairs {
        let name = if name == "outlev" {
            "print_level"
        } else {
            name
        };
        options.set(name, value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_words() {
        let p = option_pairs("tol=1e-7 max_iter 30 outlev=0").unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[1], ("max_iter".into(), "30".into()));
        assert!(option_pairs("tol").is_err());
        let mut o = Options::default();
        apply_options(&mut o, &p).unwrap();
        assert_eq!((o.tol, o.max_iter), (1e-7, 30));
        assert_eq!(o.print_level, simdnlp_solver::PrintLevel::None);
        let bad = [("tolerance".to_string(), "1".to_string())];
        let e = apply_options(&mut o, &bad).unwrap_err().to_string();
        assert!(e.contains("unknown option `tolerance`"), "{e}");
    }
}
