//! The size of a problem as the solver sees it: variables and rows by bound kind, nonzeros
//! of the Jacobian and Hessian ([`ProblemSize`]), and the log header that prints it as
//! Ipopt does.

use serde::{Deserialize, Serialize};
use simdnlp_modeling::NlpModel;

use crate::options::PrintLevel;

/// Counts of variables, rows and nonzeros of a problem, by bound kind (Ipopt's header).
///
/// Every variable and every row falls in exactly one kind:
/// `variables = variables_free + variables_lower_only + variables_both +
/// variables_upper_only + variables_fixed` and `equalities + inequalities = rows`, with
/// `inequalities = inequalities_lower_only + inequalities_both + inequalities_upper_only +
/// inequalities_free`. A bound is "present" when it is finite; a variable or row with
/// equal bounds is fixed or an equality.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemSize {
    /// All variables of the model (`nvar`, fixed ones included).
    pub variables: usize,
    /// Variables without finite bounds.
    pub variables_free: usize,
    /// Variables with a finite lower bound only.
    pub variables_lower_only: usize,
    /// Variables with finite, different lower and upper bounds.
    pub variables_both: usize,
    /// Variables with a finite upper bound only.
    pub variables_upper_only: usize,
    /// Variables with equal bounds (held at their value by the default
    /// `fixed_variable_treatment`, not counted in Ipopt's "total number of variables").
    pub variables_fixed: usize,
    /// Rows with equal bounds (`c(x) = b`).
    pub equalities: usize,
    /// Rows with different bounds.
    pub inequalities: usize,
    /// Inequality rows with a finite lower bound only.
    pub inequalities_lower_only: usize,
    /// Inequality rows with both bounds finite.
    pub inequalities_both: usize,
    /// Inequality rows with a finite upper bound only.
    pub inequalities_upper_only: usize,
    /// Rows without finite bounds.
    pub inequalities_free: usize,
    /// Jacobian entries (`nnzj`) in equality rows.
    pub jacobian_nnz_equality: usize,
    /// Jacobian entries in inequality rows.
    pub jacobian_nnz_inequality: usize,
    /// Entries of the lower triangle of the Lagrangian Hessian (`nnzh`).
    pub hessian_nnz: usize,
}

impl ProblemSize {
    /// Counts `model`'s variables, rows and nonzeros (calls its `jac_structure` once).
    pub fn of<M: NlpModel + ?Sized>(model: &M) -> Self {
        let meta = model.meta();
        let mut size = ProblemSize {
            variables: meta.nvar,
            hessian_nnz: meta.nnzh,
            ..ProblemSize::default()
        };
        for (&l, &u) in meta.lvar.iter().zip(&meta.uvar) {
            match (l.is_finite(), u.is_finite()) {
                _ if l == u => size.variables_fixed += 1,
                (true, true) => size.variables_both += 1,
                (true, false) => size.variables_lower_only += 1,
                (false, true) => size.variables_upper_only += 1,
                (false, false) => size.variables_free += 1,
            }
        }
        let equality: Vec<bool> = meta
            .lcon
            .iter()
            .zip(&meta.ucon)
            .map(|(&l, &u)| l == u)
            .collect();
        for (&l, &u) in meta.lcon.iter().zip(&meta.ucon) {
            match (l.is_finite(), u.is_finite()) {
                _ if l == u => size.equalities += 1,
                (true, true) => size.inequalities_both += 1,
                (true, false) => size.inequalities_lower_only += 1,
                (false, true) => size.inequalities_upper_only += 1,
                (false, false) => size.inequalities_free += 1,
            }
        }
        size.inequalities = meta.ncon - size.equalities;
        let mut rows = vec![0; meta.nnzj];
        let mut cols = vec![0; meta.nnzj];
        model.jac_structure(&mut rows, &mut cols);
        for &r in &rows {
            match equality.get(r) {
                Some(true) => size.jacobian_nnz_equality += 1,
                Some(false) => size.jacobian_nnz_inequality += 1,
                None => {}
            }
        }
        size
    }

    /// The header lines, as Ipopt prints them before the iterations.
    pub fn header_lines(&self) -> [String; 15] {
        let line = |label: &str, value: usize| format!("{label:.<53}: {value:>9}");
        let kind = |label: &str, value: usize| format!("{label:>53}: {value:>9}");
        [
            line(
                "Number of nonzeros in equality constraint Jacobian",
                self.jacobian_nnz_equality,
            ),
            line(
                "Number of nonzeros in inequality constraint Jacobian",
                self.jacobian_nnz_inequality,
            ),
            line("Number of nonzeros in Lagrangian Hessian", self.hessian_nnz),
            line(
                "Total number of variables",
                self.variables - self.variables_fixed,
            ),
            kind(
                "variables with only lower bounds",
                self.variables_lower_only,
            ),
            kind("variables with lower and upper bounds", self.variables_both),
            kind(
                "variables with only upper bounds",
                self.variables_upper_only,
            ),
            kind("variables without bounds", self.variables_free),
            kind(
                "fixed variables (held at their value)",
                self.variables_fixed,
            ),
            line("Total number of equality constraints", self.equalities),
            line("Total number of inequality constraints", self.inequalities),
            kind(
                "inequality constraints with only lower bounds",
                self.inequalities_lower_only,
            ),
            kind(
                "inequality constraints with lower and upper bounds",
                self.inequalities_both,
            ),
            kind(
                "inequality constraints with only upper bounds",
                self.inequalities_upper_only,
            ),
            kind("constraints without bounds", self.inequalities_free),
        ]
    }

    /// Logs the header at `INFO` when `level` prints iterations.
    pub(crate) fn log_header(&self, level: PrintLevel) {
        if level < PrintLevel::Iterations {
            return;
        }
        for line in self.header_lines() {
            tracing::info!("{line}");
        }
    }
}
