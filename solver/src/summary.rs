//! How a solve's outcome reads: `Display` for [`Status`] and [`SolveResult`], and the
//! summary the solver logs at [`PrintLevel::Summary`] and above.

use std::fmt;

use crate::options::PrintLevel;
use crate::result::{SolveResult, Status};

impl fmt::Display for Status {
    /// What happened, in words (Ipopt's exit messages): `optimal solution found`,
    /// `maximum number of iterations exceeded`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::SolveSucceeded => "optimal solution found",
            Status::SolvedToAcceptableLevel => "solved to an acceptable level",
            Status::InfeasibleProblemDetected => {
                "converged to a point of local infeasibility: the problem may be infeasible"
            }
            Status::SearchDirectionBecomesTooSmall => "search direction becomes too small",
            Status::DivergingIterates => "iterates diverging: the problem may be unbounded",
            Status::MaximumIterationsExceeded => "maximum number of iterations exceeded",
            Status::MaximumCpuTimeExceeded => "maximum wall time exceeded",
            Status::RestorationFailed => "restoration phase failed",
            Status::ErrorInStepComputation => "error in step computation",
            Status::InvalidNumberDetected => {
                "invalid number (NaN or infinity) in a model function or derivative"
            }
            Status::NotEnoughDegreesOfFreedom => {
                "too few degrees of freedom (more equality constraints than free variables)"
            }
            Status::UserRequestedStop => "stopped by the user (callback or cancel token)",
        })
    }
}

impl fmt::Display for SolveResult {
    /// One line: the status in words, iterations, objective, constraint violation, dual
    /// infeasibility and wall time. The alternate form (`{:#}`) adds a second line with the
    /// time per phase and the callback counts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} after {} iterations: objective {:.10e}, constraint violation {:.2e}, \
             dual infeasibility {:.2e}, {:.3} s",
            self.status,
            self.iterations,
            self.objective,
            self.constr_viol,
            self.dual_inf,
            self.timings.total
        )?;
        if f.alternate() {
            write!(f, "\n{}", Breakdown(self))?;
        }
        Ok(())
    }
}

/// The second line of `{:#}`: time per phase, callback counts and KKT
/// factorization/solve counts with their breakdown.
struct Breakdown<'a>(&'a SolveResult);

impl fmt::Display for Breakdown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (t, c) = (&self.0.timings, &self.0.counts);
        write!(
            f,
            "time: callbacks {:.3} s, factorization {:.3} s, solves {:.3} s, rest {:.3} s; \
             evaluations: obj {}, grad {}, cons {}, jac {}, hess {}; factorizations {} \
             (inertia {}, accuracy {}, pivoting {}), solves {} (refinement {}, soc {})",
            t.callbacks,
            t.factorization,
            t.solves,
            t.rest,
            c.obj,
            c.grad,
            c.cons,
            c.jac,
            c.hess,
            c.factorizations,
            c.factorizations_inertia,
            c.factorizations_accuracy,
            c.factorizations_pivoting,
            c.solves,
            c.solves_refinement,
            c.solves_soc
        )
    }
}

/// Logs the outcome of a solve of model `name` at `INFO` when `level` asks for it: one
/// line `name: <result>` (`<result>` alone for an unnamed model), then the time and count
/// line of `{:#}`.
pub(crate) fn log_summary(level: PrintLevel, name: &str, res: &SolveResult) {
    if level < PrintLevel::Summary {
        return;
    }
    tracing::info!("{}", summary_line(name, res));
    tracing::info!("{}", Breakdown(res));
}

/// The summary's first line: `name: <result>`, or `<result>` alone when `name` is empty.
fn summary_line(name: &str, res: &SolveResult) -> String {
    if name.is_empty() {
        res.to_string()
    } else {
        format!("{name}: {res}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{CallbackCounts, Timings};

    fn result(status: Status) -> SolveResult {
        SolveResult {
            status,
            objective: 17.014017,
            x: vec![],
            y: vec![],
            z_l: vec![],
            z_u: vec![],
            constraints: vec![],
            iterations: 8,
            restorations: 0,
            constr_viol: 1e-12,
            dual_inf: 3e-9,
            mu: 1e-11,
            timings: Timings {
                total: 0.25,
                ..Timings::default()
            },
            counts: CallbackCounts {
                obj: 9,
                ..CallbackCounts::default()
            },
            history: vec![],
            size: Default::default(),
            violations: vec![],
            bytes_transferred: 0,
            bytes_per_iteration: 0.0,
        }
    }

    #[test]
    fn status_and_result_read_as_sentences() {
        assert_eq!(Status::SolveSucceeded.to_string(), "optimal solution found");
        let r = result(Status::MaximumIterationsExceeded);
        assert_eq!(
            r.to_string(),
            "maximum number of iterations exceeded after 8 iterations: objective \
             1.7014017000e1, constraint violation 1.00e-12, dual infeasibility 3.00e-9, 0.250 s"
        );
        let full = format!("{r:#}");
        let (first, second) = full.split_once('\n').unwrap();
        assert_eq!(first, r.to_string());
        assert!(second.starts_with("time: callbacks 0.000 s") && second.contains("obj 9"));
    }

    #[test]
    fn summary_line_names_the_model_once_and_only_when_named() {
        let r = result(Status::SolveSucceeded);
        let unnamed = summary_line("", &r);
        assert_eq!(unnamed, r.to_string());
        assert!(unnamed.starts_with("optimal solution found after 8 iterations"));
        let named = summary_line("goddard", &r);
        assert_eq!(named, format!("goddard: {r}"));
        assert_eq!(named.matches("optimal solution found").count(), 1);
    }
}
