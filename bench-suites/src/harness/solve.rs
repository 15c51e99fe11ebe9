//! The seam between the harness and a solver.
//!
//! `simdnlp_solver` does not expose `solve(&model, &options)` yet, so solve mode runs
//! through [`SolveBackend`]: [`default_solver`] returns `None` until the solver is wired
//! (the binary then reports "not wired" and exits with an error — nothing is faked). To
//! wire it, return `Some(Box::new(FnSolver::new("simdnlp", |model, settings| { … })))`
//! from [`default_solver`], mapping [`SolveSettings`] to the solver's options and its
//! result to [`SolveOutcome`].

use simdnlp_modeling::NlpModel;

/// KKT formulation requested with `--kkt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum KktChoice {
    /// Augmented system (K2) with an LDLᵀ/LBLᵀ factorization and inertia correction.
    Augmented,
    /// Condensed (lifted) system with a Cholesky factorization.
    Condensed,
}

/// Solver settings the harness passes on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveSettings {
    /// Convergence tolerance (scaled KKT error).
    pub tol: f64,
    /// KKT formulation.
    pub kkt: KktChoice,
}

/// What the harness records from a solve.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveOutcome {
    /// Solver status (Ipopt-style name, e.g. `Solve_Succeeded`).
    pub status: String,
    /// Whether the status counts as converged.
    pub success: bool,
    /// Interior-point iterations.
    pub iterations: usize,
    /// Final objective `f(x)` (not sign-flipped for maximization).
    pub objective: f64,
}

/// A solver usable by solve mode.
pub trait SolveBackend {
    /// Name for logs.
    fn name(&self) -> &str;
    /// Solves `model`; `Err` carries a message when the solver fails to run at all.
    fn solve(
        &self,
        model: &dyn NlpModel<f64>,
        settings: &SolveSettings,
    ) -> Result<SolveOutcome, String>;
}

/// A [`SolveBackend`] from a closure.
pub struct FnSolver<F> {
    name: String,
    f: F,
}

impl<F> FnSolver<F>
where
    F: Fn(&dyn NlpModel<f64>, &SolveSettings) -> Result<SolveOutcome, String>,
{
    /// Wraps `f` under `name`.
    pub fn new(name: impl Into<String>, f: F) -> Self {
        Self {
            name: name.into(),
            f,
        }
    }
}

impl<F> SolveBackend for FnSolver<F>
where
    F: Fn(&dyn NlpModel<f64>, &SolveSettings) -> Result<SolveOutcome, String>,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn solve(
        &self,
        model: &dyn NlpModel<f64>,
        settings: &SolveSettings,
    ) -> Result<SolveOutcome, String> {
        (self.f)(model, settings)
    }
}

/// The solver solve mode uses: `None` while `simdnlp_solver::solve` does not exist.
pub fn default_solver() -> Option<Box<dyn SolveBackend>> {
    None
}
