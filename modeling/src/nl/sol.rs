//! The `.sol` file of the AMPL solver protocol, in the text format `write_sol` of the AMPL
//! Solver Library produces: a message, the `Options` block echoing the `.nl` header's
//! options, the counts, the dual then primal values, and `objno 0 <solve_result_num>`.

use std::fmt::Write as _;
use std::path::Path;

/// What a `.sol` file reports.
#[derive(Clone, Debug, PartialEq)]
pub struct SolFile<'a> {
    /// The solver's message (may span lines).
    pub message: &'a str,
    /// The AMPL options of the `.nl` header.
    pub options: &'a [i64],
    /// The header's `vbtol`, when present.
    pub vbtol: Option<f64>,
    /// Number of constraints of the `.nl` file.
    pub n_con: usize,
    /// Number of variables of the `.nl` file.
    pub n_var: usize,
    /// Constraint multipliers (AMPL's sign convention, file order); empty for none.
    pub duals: &'a [f64],
    /// Primal values (file order); empty for none.
    pub primals: &'a [f64],
    /// AMPL's `solve_result_num`: 0–99 solved, 100–199 solved?, 200–299 infeasible,
    /// 300–399 unbounded, 400–499 limit, 500–599 failure.
    pub solve_result_num: i32,
}

impl SolFile<'_> {
    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for line in self.message.lines() {
            let _ = writeln!(s, "{line}");
        }
        s.push('\n');
        s.push_str("Options\n");
        let vbtol = self.vbtol.filter(|_| self.options.get(1) == Some(&3));
        let _ = writeln!(
            s,
            "{}",
            self.options.len() + if vbtol.is_some() { 2 } else { 0 }
        );
        for o in self.options {
            let _ = writeln!(s, "{o}");
        }
        if let Some(v) = vbtol {
            let _ = writeln!(s, "{v:e}");
        }
        let _ = writeln!(
            s,
            "{}\n{}\n{}\n{}",
            self.n_con,
            self.duals.len(),
            self.n_var,
            self.primals.len()
        );
        for v in self.duals.iter().chain(self.primals) {
            let _ = writeln!(s, "{}", fmt_real(*v));
        }
        let _ = writeln!(s, "objno 0 {}", self.solve_result_num);
        s
    }
}

/// Round-trip formatting, with AMPL's spelling of infinities.
fn fmt_real(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    } else {
        format!("{v:e}")
    }
}

/// Writes `sol` to `path`.
pub fn write_sol(path: &Path, sol: &SolFile<'_>) -> std::io::Result<()> {
    std::fs::write(path, sol.to_text())
}
