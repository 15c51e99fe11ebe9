//! Solver options, with Ipopt's names, defaults and valid ranges where Ipopt has the option.
//!
//! [`Options`] is a plain struct (set fields directly, or use struct-update syntax) that
//! can also be driven by name, as Ipopt's are:
//! - [`Options::set`] parses a value given as text (`set("tol", "1e-6")`), checks it
//!   against the option's type and valid range, and names the closest valid options when
//!   the name is unknown; [`Options::get`] renders a value back as text;
//! - [`Options::apply_ipopt_text`] / [`Options::apply_toml_text`] read Ipopt-format
//!   options files (`name value` per line, `#` comments) and TOML files (`name = value`),
//!   [`Options::apply_file`] picks the format by extension, [`Options::from_file`] starts
//!   from the defaults;
//! - [`OPTIONS`] lists every option with its documentation, type and valid range;
//! - [`Options::validate`] checks every range and the relations between options (the
//!   solver calls it before each solve).
//!
//! Values are written as Ipopt writes them: reals as `1e-8`, integers as `3000`, booleans
//! as `yes`/`no` (or `true`/`false`), choices as lower-case words (`mu_strategy
//! adaptive`); `print_level` also takes Ipopt's integer levels 0–12.
//!
//! ```
//! use simdnlp_solver::{Options, OptionError};
//!
//! let mut options = Options::default();
//! options.set("max_iter", "3")?;
//! options.set("mu_strategy", "adaptive")?;
//! assert_eq!(options.get("max_iter").as_deref(), Some("3"));
//! let err = options.set("max_itr", "3").unwrap_err();
//! assert!(err.to_string().contains("did you mean `max_iter`"));
//! assert!(matches!(options.set("tol", "-1"), Err(OptionError::OutOfRange { .. })));
//! # Ok::<(), OptionError>(())
//! ```

mod error;
mod file;
mod table;
pub(crate) mod value;

use serde::{Deserialize, Serialize};

use crate::derivative_check::DerivativeTest;
pub use error::OptionError;
use table::{options_table, valid_range};
use value::OptionValue;
pub use value::{Bound, OptionKind, ValidRange};

/// One row of the option table [`OPTIONS`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptionInfo {
    /// The option's (Ipopt) name, as [`Options::set`] takes it.
    pub name: &'static str,
    /// Its documentation (the field's doc comment).
    pub doc: &'static str,
    /// The type of its value.
    pub kind: OptionKind,
    /// Its valid range ([`ValidRange::ANY`] for booleans and choices).
    pub range: ValidRange,
}

/// Parses `text` as a `T` for option `name` and checks it against `range`.
fn parse_checked<T: OptionValue>(
    name: &'static str,
    text: &str,
    range: ValidRange,
) -> Result<T, OptionError> {
    let text = text.trim();
    let value = T::parse_text(text).ok_or_else(|| OptionError::WrongType {
        name,
        value: text.to_string(),
        kind: T::KIND,
    })?;
    check_range(name, &value, range)?;
    Ok(value)
}

/// `Err(OutOfRange)` when `value` is numeric and outside `range`.
fn check_range<T: OptionValue>(
    name: &'static str,
    value: &T,
    range: ValidRange,
) -> Result<(), OptionError> {
    match value.as_number() {
        Some(v) if !(v.is_finite() && range.contains(v)) => Err(OptionError::OutOfRange {
            name,
            value: value.render(),
            range,
        }),
        _ => Ok(()),
    }
}

/// `Err(Conflict)` unless `low.1 <= high.1` (`(name, value)` pairs of two options).
fn ordered<T: OptionValue + PartialOrd>(
    low: (&'static str, T),
    high: (&'static str, T),
    rule: &'static str,
) -> Result<(), OptionError> {
    if low.1 <= high.1 {
        Ok(())
    } else {
        Err(OptionError::Conflict {
            name: low.0,
            value: low.1.render(),
            other: high.0,
            other_value: high.1.render(),
            rule,
        })
    }
}

/// The valid option names closest to `name`, best first (at most three).
fn closest_names(name: &str) -> Vec<&'static str> {
    let name = name.trim().to_ascii_lowercase();
    let mut scored: Vec<(f64, &'static str)> = OPTIONS
        .iter()
        .map(|info| (strsim::jaro_winkler(&name, info.name), info.name))
        .filter(|&(score, _)| score >= 0.8)
        .collect();
    if scored.is_empty() {
        // no close spelling: names sharing a word of three letters or more
        let words: Vec<&str> = name.split('_').filter(|w| w.len() >= 3).collect();
        scored = OPTIONS
            .iter()
            .filter(|info| info.name.split('_').any(|w| words.contains(&w)))
            .map(|info| (strsim::jaro_winkler(&name, info.name), info.name))
            .collect();
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

impl Options {
    /// Sets the option `name` (Ipopt's name, see [`OPTIONS`]) from its value as text,
    /// e.g. `set("tol", "1e-6")`, `set("mu_strategy", "adaptive")`,
    /// `set("nlp_scaling", "no")`.
    ///
    /// # Errors
    /// [`OptionError::UnknownOption`] (with the closest valid names) when no option is
    /// called `name`; [`OptionError::WrongType`] when `value` does not parse as the
    /// option's type; [`OptionError::OutOfRange`] when it is outside the option's valid
    /// range. `self` is unchanged on error. Relations between options are checked by
    /// [`Options::validate`].
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        match self.set_known(name.trim(), value)? {
            Some(()) => Ok(()),
            None => Err(OptionError::UnknownOption {
                name: name.to_string(),
                suggestions: closest_names(name),
            }),
        }
    }

    /// The table row of option `name` (`None` when no option has that name).
    pub fn info(name: &str) -> Option<&'static OptionInfo> {
        OPTIONS.iter().find(|info| info.name == name)
    }

    /// Checks every option against its documented valid range, and the relations between
    /// options: `min_refinement_steps <= max_refinement_steps`,
    /// `min_hessian_perturbation <= first_hessian_perturbation <= max_hessian_perturbation`
    /// and `theta_min_fact <= theta_max_fact`.
    ///
    /// # Errors
    /// The first violation found, as [`OptionError::OutOfRange`] or
    /// [`OptionError::Conflict`].
    pub fn validate(&self) -> Result<(), OptionError> {
        self.check_ranges()?;
        ordered(
            ("min_refinement_steps", self.min_refinement_steps),
            ("max_refinement_steps", self.max_refinement_steps),
            "the minimum number of refinement steps cannot exceed the maximum",
        )?;
        ordered(
            ("min_hessian_perturbation", self.min_hessian_perturbation),
            (
                "first_hessian_perturbation",
                self.first_hessian_perturbation,
            ),
            "the first Hessian perturbation cannot be below the smallest one",
        )?;
        ordered(
            (
                "first_hessian_perturbation",
                self.first_hessian_perturbation,
            ),
            ("max_hessian_perturbation", self.max_hessian_perturbation),
            "the first Hessian perturbation cannot exceed the largest one",
        )?;
        ordered(
            ("theta_min_fact", self.theta_min_fact),
            ("theta_max_fact", self.theta_max_fact),
            "the filter's θ_min factor cannot exceed its θ_max factor",
        )
    }
}

/// Which KKT formulation the step computation uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum KktKind {
    /// Augmented (symmetric indefinite) system in `(x, s, y)`, factorized with LDLᵀ/LBLᵀ and
    /// checked by its inertia. The CPU default.
    #[default]
    Augmented,
    /// Condensed "lifted" system `K = W + Σx + Jᵀ D J` in `x` only; equality rows are relaxed
    /// to tiny ranges `[c - τ, c + τ]` (`equality_relax`) so every row carries a slack.
    /// Factorized with Cholesky (faer; on `device = cuda` cuDSS's Cholesky, or its LDLᵀ
    /// with inertia `(n, 0, 0)` required, as `cudss_factorization` says); a failed
    /// factorization counts as wrong inertia. Iterative
    /// refinement runs on the full (uncondensed) system. The default formulation of
    /// `device = cuda` (which also takes [`KktKind::Hybrid`]).
    Condensed,
    /// Hybrid condensed system (Golub–Greif's augmented Lagrangian form): the inequality
    /// rows are condensed as in [`KktKind::Condensed`], the equality rows `Jₑ` keep no slack
    /// and stay exact. `K_γ = W + Σx + δw + Jᵢᵀ Dᵢ Jᵢ + α Jₑᵀ Jₑ`
    /// (`α = γ/(1 + γ δc)`, γ = `hybrid_gamma · max(1, max|W_ij|)`) is factorized with Cholesky (faer), the
    /// equality multipliers come from the Schur complement `Jₑ K_γ⁻¹ Jₑᵀ + δc(1 + γ δc) I`
    /// solved by conjugate gradients (each iteration one solve with the factor of `K_γ`,
    /// counted in `CallbackCounts::cg_iterations`). A failed Cholesky counts as wrong
    /// inertia, as for the condensed form; iterative refinement runs on the full system.
    /// On every device: one implementation over the device kernels (on `cuda` the factor is
    /// cuDSS's and the conjugate gradients read two scalars per iteration). On an H200
    /// (bench-suites/results, run 14) the device took the CPU's iterations on every
    /// instance of `gpu-check`'s stage 5, solved all 59 PGLIB cases and chain:5000, and
    /// removed the condensed form's spread on the RTE cases; its solve time was 0.4–8.5×
    /// the condensed form's (median 1.5×: each conjugate-gradient iteration is a solve with
    /// cuDSS's factor), so the condensed form stays `cuda`'s default.
    Hybrid,
}

/// Which device runs the solver's vector algebra and interior-point kernels. On `cpu` and
/// `emu` the KKT factorization works on host memory; on `cuda` everything runs on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum DeviceKind {
    /// The CPU: Rust loops over `Vec<f64>` (the default).
    #[default]
    Cpu,
    /// The emulated CUDA device of `simdnlp-device`: the CUDA C kernels of the GPU path,
    /// compiled by g++ at the first solve that asks for it (once per process) and run on
    /// the host. For testing the GPU path's kernels on any machine, not for speed; needs a
    /// C++ compiler (`g++`, or the one named by `SIMDNLP_EMU_CXX`). With
    /// `kkt = condensed` the condensed KKT system is assembled, reduced, expanded and
    /// refined on the device too (the algorithm of `cuda`), with faer behind the
    /// factorization seam.
    Emu,
    /// An NVIDIA GPU (device 0; feature `cuda`, otherwise a solve is a typed error): the
    /// model's emitted kernels (pattern-based `Model`s only), the interior-point kernels and
    /// the **condensed** KKT system on the device, factorized by cuDSS, with only scalars
    /// read back per iteration. `kkt` is ignored: the KKT system on the GPU is always the
    /// condensed one. libcuda, NVRTC (`SIMDNLP_NVRTC_LIB`) and cuDSS (`SIMDNLP_CUDSS_LIB`)
    /// are loaded at the first solve that asks for the device (once per process); a
    /// missing one is a typed error naming it.
    Cuda,
}

/// Which sparse symmetric factorization backs the augmented system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum LinearSolverKind {
    /// faer's simplicial/supernodal LDLᵀ with inertia from `D` (the default). When a
    /// factorization at δ_w = 0 stops at an exact zero pivot of a variable whose own
    /// diagonal `W_ii + Σ_i` is zero (a free variable without curvature eliminated before
    /// its constraints), the backend factorizes with [`LinearSolverKind::LbltPaired`] for
    /// the rest of that step, and for the rest of its solves from the second such step in
    /// a row (counted in `CallbackCounts::paired_repeats` and `pivoting_switches`).
    #[default]
    Ldlt,
    /// faer's Bunch–Kaufman LBLᵀ with inertia from the 1×1/2×2 blocks of `B`.
    Lblt,
    /// faer's Bunch–Kaufman LBLᵀ on the *paired* KKT ordering
    /// (`simdnlp_linalg::FillOrdering::KktPaired`): each constraint is eliminated right
    /// after its matched variable, as one node of an AMD ordering of the compressed graph,
    /// so that a variable without curvature and its constraint can be pivoted together as a
    /// 2×2 block when they share a supernode. More fill than the default ordering (1.4–2×
    /// AMD's), and the `ordering` option does not apply. For problems whose free variables
    /// have no curvature where the static orderings meet zero pivots: COPS glider:8000
    /// solves in 76 iterations with it (7.6–12.8 s on the 2-core dev machine). `ldlt`
    /// switches to it by itself where its LDLᵀ meets such a variable as a zero pivot.
    LbltPaired,
    /// Multifrontal LDLᵀ with threshold pivoting (1×1 and 2×2 pivots, threshold
    /// `pivot_threshold`) and **delayed pivots** passed to the parent front
    /// (`simdnlp_linalg::MultifrontalLdlt`), on the KKT-matched ordering: pivoting across
    /// supernodes, as MA57/MUMPS do, so that the inertia of a factorization can be trusted
    /// where LDLᵀ without pivoting meets zero or tiny pivots. Slower per factorization
    /// than `ldlt` (unblocked pivot updates inside a front).
    Multifrontal,
}

/// Whether a second, pivoting factorization confirms the inertia that LDLᵀ without
/// pivoting (`linear_solver = ldlt`) reports at δ_w = 0 before the inertia correction
/// perturbs the Hessian (`inertia_confirmation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum InertiaConfirmation {
    /// LDLᵀ's inertia decides (the default).
    #[default]
    None,
    /// When LDLᵀ reports the wrong inertia at δ_w = 0, the same matrix is factorized by
    /// the multifrontal LDLᵀ with threshold pivoting ([`LinearSolverKind::Multifrontal`],
    /// built once per KKT backend on first need); where its inertia is correct, its factor
    /// serves this step's solves and δ_w stays 0 (LDLᵀ again from the next
    /// factorization). LDLᵀ without pivoting can miscount the inertia of an indefinite
    /// matrix (tiny pivots of the wrong sign, growth); Ipopt's MUMPS, which pivots, takes
    /// δ_w = 0 there.
    Multifrontal,
    /// As `multifrontal`, and also when LDLᵀ reports a singular matrix at δ_w = 0 (an
    /// exact zero or a non-finite pivot, other than the zero-diagonal variables that the
    /// paired LBLᵀ handles), before δ_c is added.
    MultifrontalSingular,
    /// As `multifrontal`, and also when LDLᵀ reports a singular matrix at δ_w = 0 whose
    /// zero pivot is a constraint row, or that already carries the Jacobian
    /// regularization δ_c > 0. A zero pivot of a primal row at δ_c = 0 (cancellation in
    /// `W + Σ` after the constraints eliminated before it: the large LV problems) goes to
    /// δ_c first, as without confirmation; there δ_c removes it at the price of one more
    /// LDLᵀ, cheaper than the multifrontal. On the PGLIB cases LDLᵀ's zero pivots at
    /// δ_c = 0 are constraint rows of a nonsingular matrix, where δ_c would give a
    /// regularized (inexact) step instead of the exact one.
    MultifrontalSelective,
    /// Only verdicts after which the inertia correction would perturb the Hessian
    /// (δ_w > 0) are confirmed: LDLᵀ's wrong inertia at δ_c = 0 (the PEGASE and RTE
    /// cases of PGLIB, where the multifrontal finds the inertia correct), a wrong inertia
    /// at δ_c > 0 once a confirmation has found the inertia wrong in this KKT backend,
    /// and the singular verdicts at δ_c > 0 of the paired LBLᵀ
    /// ([`LinearSolverKind::LbltPaired`], swapped in for LDLᵀ's zero-diagonal pivots),
    /// whose 2×2 pivots still meet exact zero pivots on COPS chain, where the multifrontal
    /// factorizes at δ_w = 0 (chain:20000 takes Ipopt's 6 iterations instead of 13;
    /// `confirmation_switch` counts those too). LDLᵀ's singular verdicts go to δ_c and
    /// then δ_w as without confirmation: on the GOC cases the δ_c-regularized LDLᵀ has the
    /// correct inertia in most steps and the late δ_w are tiny (switching to the
    /// multifrontal there costs time and saves no iteration), on COPS bearing `J` is
    /// rank-deficient (the multifrontal finds the same zero eigenvalues). A wrong inertia
    /// at δ_c > 0 before any dispute is the matrix's own on LV cragg_levy (the
    /// multifrontal agreed every time). Not the default: case8387_pegase stays at an
    /// acceptable level (its disputed verdicts are singular ones, as on the GOC cases),
    /// and COPS methanol:50 ends at an acceptable level at another local solution. See
    /// bench-suites/README.md, session 22.
    MultifrontalBeforeDeltaW,
}

/// Which restoration-phase rules a solve follows (`restoration_rules`): ours, Ipopt's, or
/// Ipopt's where the factorization's inertia is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum RestorationRules {
    /// Ipopt's rules while the augmented system is factorized with exact inertia (the
    /// multifrontal LDLᵀ: `linear_solver = multifrontal`, or LDLᵀ after
    /// `confirmation_switch`), the individual options' otherwise (the default). Ipopt's
    /// rules follow the iterates its exactly factorized steps lead to (the RTE and PEGASE
    /// cases of PGLIB take Ipopt's iteration counts to within a few); after LDLᵀ's
    /// perturbed steps they make longer crawls (COPS glider:80: 86 → 699 iterations).
    #[default]
    Auto,
    /// The four options `resto_require_theta_reduction`, `resto_bound_mult_newton`,
    /// `resto_theta_max_fact` and `resto_proximity_at_resto_mu` decide.
    Options,
    /// Ipopt's values of those four, whatever they are set to: no θ reduction required,
    /// the Newton update of the bound multipliers, θ_max factor 1e8, and the proximity
    /// weight at the phase's μ_R.
    Ipopt,
}

/// Which cuDSS factorization backs the condensed system on `device = cuda`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum CudssKind {
    /// LDLᵀ with cuDSS's pivoting (MadNLP's default); a step is accepted when the reported
    /// inertia is `(n, 0, 0)`. On an H200 (session 11) it ended 8 of 58 PGLIB cases in
    /// `RestorationFailed` that the CPU's condensed solve (faer Cholesky) solves.
    Ldlt,
    /// Cholesky LLᵀ: a failed factorization (`INFO ≠ 0`) means "not positive definite",
    /// as faer's Cholesky decides on the CPU (the default: it solved case240_pserc and
    /// case2312_goc, where LDLᵀ failed, with the CPU's iteration count on case2312_goc).
    #[default]
    Cholesky,
}

/// The fill-reducing reordering of cuDSS's analysis on `device = cuda`
/// (`CUDSS_CONFIG_REORDERING_ALG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum CudssReorderingKind {
    /// cuDSS's default (`CUDSS_ALG_DEFAULT`: nested dissection, METIS-based).
    #[default]
    Default,
    /// `CUDSS_ALG_1` (COLAMD-based per NVIDIA's documentation).
    Alg1,
    /// `CUDSS_ALG_2` (COLAMD-based with a special factorization).
    Alg2,
    /// `CUDSS_ALG_3` (AMD-based).
    Alg3,
    /// faer's approximate minimum degree computed on the host when the KKT structure is
    /// analyzed, given to cuDSS as its permutation (`CUDSS_DATA_USER_PERM`): cuDSS's own
    /// reordering, most of its analysis time, is skipped.
    HostAmd,
    /// METIS nested dissection computed on the host (our METIS call), given to cuDSS as
    /// its permutation like [`CudssReorderingKind::HostAmd`].
    HostNd,
}

/// Fill-reducing ordering of the KKT factorization (the augmented system always puts each
/// constraint after a matched variable on top of it, see `simdnlp_linalg::ordering`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum OrderingKind {
    /// Approximate minimum degree (faer's AMD).
    Amd,
    /// METIS nested dissection.
    NestedDissection,
    /// AMD, or nested dissection when AMD's factorization is expensive (at least
    /// `simdnlp_linalg::ordering::AUTO_MIN_FLOPS_PER_ROW` predicted flops per row) and
    /// nested dissection predicts at most `AUTO_MAX_FLOP_RATIO` (0.75) of its flops: one
    /// METIS call and one extra symbolic analysis in that case, on a background thread
    /// while the first `AUTO_DEFERRED_FACTORIZATIONS` (4) factorizations use AMD; the
    /// fifth waits for it and switches to nested dissection if it is kept (a fixed point:
    /// the iterates do not depend on timing). The default.
    #[default]
    Auto,
}

/// How the barrier parameter μ is updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum MuStrategy {
    /// Fiacco–McCormick monotone decrease (Ipopt's `mu_strategy monotone`, the default).
    #[default]
    Monotone,
    /// Adaptive μ chosen each iteration by the LOQO rule
    /// `μ = σ · (sᵀz)/N`, `σ = 0.1 · min(0.05 · (1 − ξ)/ξ, 2)³`, `ξ = min(s_i z_i)/avg`,
    /// falling back to monotone mode when progress stalls (Ipopt's `mu_oracle loqo`).
    AdaptiveLoqo,
}

/// How variables with equal bounds (`lvar == uvar`) are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum FixedVariableTreatment {
    /// Removed from the problem and held at their value as parameters (Ipopt's
    /// `make_parameter`, the default): the steps never move them.
    #[default]
    MakeParameter,
    /// Kept as variables with bounds relaxed to a tiny interior (at least
    /// `1e-8 · max(1, |value|)` each way); a step that moves one is limited to about that.
    RelaxBounds,
}

/// How much the solver logs through `tracing` (as plain lines on stderr when the program
/// installed no subscriber; see the crate docs, "Logging").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum PrintLevel {
    /// Nothing.
    None,
    /// Only the final summary (status, objective, counts, times) at `INFO`.
    Summary,
    /// The summary plus one Ipopt-style line per iteration at `INFO` (the default).
    #[default]
    Iterations,
    /// Everything above plus details (inertia corrections, restoration, SOC) at `DEBUG`.
    Debug,
}

options_table! {
    /// Options of the interior-point solver. Every field's default is Ipopt's default for the
    /// option of the same name (when Ipopt has one), and every field has a documented valid
    /// range that [`Options::set`] and [`Options::validate`] enforce; real options must
    /// also be finite (write `1e20` for "no limit", as Ipopt does).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct Options {
        // ---------------------------------------------------------------- termination
        /// Desired convergence tolerance on the scaled optimality error (Ipopt's
        /// `curr_nlp_error`): the largest of the scaled dual infeasibility, the NLP
        /// constraint violation (equality rows' residuals and rows outside their relaxed
        /// bounds; the residual `c − s` between a row and its slack is not counted) and
        /// the scaled complementarity.
        tol: f64 = 1e-8, (x > 0);
        /// Scaling threshold `s_max` of the optimality error.
        s_max: f64 = 100.0, (x > 0);
        /// Absolute tolerance on the unscaled dual infeasibility.
        dual_inf_tol: f64 = 1.0, (x > 0);
        /// Absolute tolerance on the unscaled NLP constraint violation (∞-norm of the
        /// equality rows' residuals and of how far the other rows lie outside their
        /// relaxed bounds, in the user's units; Ipopt's
        /// `unscaled_curr_nlp_constraint_violation`).
        constr_viol_tol: f64 = 1e-4, (x > 0);
        /// Absolute tolerance on the unscaled complementarity.
        compl_inf_tol: f64 = 1e-4, (x > 0);
        /// "Acceptable" tolerance on the scaled optimality error.
        acceptable_tol: f64 = 1e-6, (x > 0);
        /// Number of consecutive acceptable iterates that end the run (`0` disables the
        /// acceptable exit).
        acceptable_iter: usize = 15, (any);
        /// Acceptable threshold on the unscaled dual infeasibility.
        acceptable_dual_inf_tol: f64 = 1e10, (x > 0);
        /// Acceptable threshold on the unscaled NLP constraint violation (the measure of
        /// `constr_viol_tol`).
        acceptable_constr_viol_tol: f64 = 1e-2, (x > 0);
        /// Acceptable threshold on the unscaled complementarity.
        acceptable_compl_inf_tol: f64 = 1e-2, (x > 0);
        /// Acceptable relative change of the objective between iterates.
        acceptable_obj_change_tol: f64 = 1e20, (x >= 0);
        /// Maximum number of iterations, restoration iterations included.
        max_iter: usize = 3000, (any);
        /// Maximum wall time of one solve in seconds.
        max_wall_time: f64 = 1e20, (x >= 0);
        /// Iterates with `‖x‖∞` above this are reported as diverging.
        diverging_iterates_tol: f64 = 1e20, (x > 0);

        // ---------------------------------------------------------------- initialization
        /// Absolute distance of the initial point from its bounds.
        bound_push: f64 = 1e-2, (x > 0);
        /// Relative distance (fraction of the bound gap) of the initial point.
        bound_frac: f64 = 1e-2, (0 < x <= 0.5);
        /// Same as `bound_push` for the slacks of inequality rows.
        slack_bound_push: f64 = 1e-2, (x > 0);
        /// Same as `bound_frac` for the slacks of inequality rows.
        slack_bound_frac: f64 = 1e-2, (0 < x <= 0.5);
        /// Initial value of the bound multipliers.
        bound_mult_init_val: f64 = 1.0, (x > 0);
        /// Least-squares constraint multipliers larger than this (∞-norm) are discarded and
        /// replaced by zero (`0` skips the least-squares estimate).
        constr_mult_init_max: f64 = 1e3, (x >= 0);
        /// Relative bound relaxation: every finite bound moves outwards by
        /// `bound_relax_factor · max(1, |bound|)`.
        bound_relax_factor: f64 = 1e-8, (x >= 0);
        /// Treatment of fixed variables (`lvar == uvar`): `make_parameter` (removed and
        /// held at their value, Ipopt's default) or `relax_bounds`. Either way they are
        /// returned at exactly their value.
        fixed_variable_treatment: FixedVariableTreatment = FixedVariableTreatment::MakeParameter, (any);
        /// Objective and rows are scaled so their gradients at the start have ∞-norm at most
        /// this (Ipopt's `nlp_scaling_method gradient-based`).
        nlp_scaling_max_gradient: f64 = 100.0, (x > 0);
        /// Smallest scaling factor the gradient-based scaling may choose.
        nlp_scaling_min_value: f64 = 1e-8, (x >= 0);
        /// Whether gradient-based scaling is applied at all.
        nlp_scaling: bool = true, (any);
        /// Where the gradient-based scaling factors are computed: `false` at the start
        /// projected into the variable bounds; `true` at the user's start as given, as
        /// Ipopt's `GradientScaling` does (the two differ where the start lies outside a
        /// bound, e.g. a flat start `V = 1` below `V_min`).
        nlp_scaling_at_user_start: bool = false, (any);

        // ---------------------------------------------------------------- warm start
        /// Start from the given primal and dual point instead of Ipopt's default
        /// initialization. [`crate::Solver::solve`] turns this on by itself for re-solves.
        warm_start_init_point: bool = false, (any);
        /// `bound_push` used for warm starts.
        warm_start_bound_push: f64 = 1e-3, (x > 0);
        /// `bound_frac` used for warm starts.
        warm_start_bound_frac: f64 = 1e-3, (0 < x <= 0.5);
        /// `slack_bound_push` used for warm starts.
        warm_start_slack_bound_push: f64 = 1e-3, (x > 0);
        /// `slack_bound_frac` used for warm starts.
        warm_start_slack_bound_frac: f64 = 1e-3, (0 < x <= 0.5);
        /// Bound multipliers are raised to at least this value on warm starts.
        warm_start_mult_bound_push: f64 = 1e-3, (x > 0);
        /// Initial barrier parameter of warm-started solves (Ipopt asks the user to lower
        /// `mu_init` by hand for warm starts, here it is separate).
        warm_start_mu_init: f64 = 1e-4, (x > 0);

        // ---------------------------------------------------------------- barrier
        /// Initial barrier parameter.
        mu_init: f64 = 0.1, (x > 0);
        /// Lower bound on μ in the adaptive update (lowered to `min(tol, s_f·compl_inf_tol)/2`
        /// when that is smaller, `s_f` the objective scaling factor). The monotone update
        /// stops at `min(tol, s_f·compl_inf_tol)/(barrier_tol_factor + 1)`, as Ipopt's.
        mu_min: f64 = 1e-11, (x > 0);
        /// Linear decrease factor κ_μ of the monotone update.
        mu_linear_decrease_factor: f64 = 0.2, (0 < x < 1);
        /// Superlinear decrease exponent θ_μ of the monotone update.
        mu_superlinear_decrease_power: f64 = 1.5, (1 < x < 2);
        /// Barrier tolerance factor κ_ε: μ decreases once the barrier error is below κ_ε μ
        ///.
        barrier_tol_factor: f64 = 10.0, (x > 0);
        /// Lower bound τ_min of the fraction-to-boundary parameter τ = max(τ_min, 1 − μ).
        tau_min: f64 = 0.99, (0 < x < 1);
        /// Barrier update rule: `monotone` or `adaptive` (LOQO's rule).
        mu_strategy: MuStrategy = MuStrategy::Monotone, (any);
        /// Damping factor κ_d of the linear terms for one-sided bounds in φ.
        kappa_d: f64 = 1e-5, (x >= 0);
        /// Bound-multiplier safeguard κ_Σ: `z_i` stays within `[μ/(κ_Σ s_i), κ_Σ μ/s_i]`
        ///.
        kappa_sigma: f64 = 1e10, (x >= 1);

        // ---------------------------------------------------------------- line search
        /// Exponent s_θ of θ in the switching condition.
        s_theta: f64 = 1.1, (x > 1);
        /// Exponent s_φ of the barrier-function decrease in the switching condition
        ///.
        s_phi: f64 = 2.3, (x > 1);
        /// Factor δ of the switching condition.
        delta: f64 = 1.0, (x > 0);
        /// Armijo factor η_φ.
        eta_phi: f64 = 1e-8, (0 < x < 0.5);
        /// Filter margin factor γ_θ.
        gamma_theta: f64 = 1e-5, (0 < x < 1);
        /// Filter margin factor γ_φ.
        gamma_phi: f64 = 1e-8, (0 < x < 1);
        /// Safety factor γ_α for the minimal step size α_min.
        alpha_min_frac: f64 = 0.05, (0 < x < 1);
        /// Backtracking factor.
        alpha_red_factor: f64 = 0.5, (0 < x < 1);
        /// θ_max = `theta_max_fact` · max(1, θ(x0)).
        theta_max_fact: f64 = 1e4, (x > 0);
        /// θ_min = `theta_min_fact` · max(1, θ(x0)).
        theta_min_fact: f64 = 1e-4, (x > 0);
        /// Maximum number of second-order corrections per iteration.
        max_soc: usize = 4, (any);
        /// Required reduction κ_soc of the constraint violation between corrections
        ///.
        kappa_soc: f64 = 0.99, (x > 0);
        /// Maximum number of filter resets.
        max_filter_resets: usize = 5, (any);
        /// Number of successive filter rejections that trigger a reset.
        filter_reset_trigger: usize = 5, (x >= 1);
        /// Relative step size below which a step counts as tiny: every component of the
        /// primal step (x and slacks) below this times `1 + |component|`, at a point whose
        /// scaled ℓ1 constraint violation is at most 1e-4. A tiny step is taken without
        /// line search; `0` disables the test.
        tiny_step_tol: f64 = 10.0 * f64::EPSILON, (x >= 0);
        /// Multiplier step size (∞-norm, scaled problem) below which a tiny step counts
        /// twice: the next tiny step forces a μ decrease, and ends the run
        /// (`SearchDirectionBecomesTooSmall`) when μ is already at its floor.
        tiny_step_y_tol: f64 = 1e-2, (x >= 0);
        /// Whether the watchdog procedure is used.
        watchdog: bool = false, (any);
        /// Number of successive shortened steps that activate the watchdog.
        watchdog_shortened_iter_trigger: usize = 10, (x >= 1);
        /// Maximum number of watchdog trial iterations.
        watchdog_trial_iter_max: usize = 3, (x >= 1);

        // ---------------------------------------------------------------- inertia correction
        /// First trial δ_w of the Hessian perturbation.
        first_hessian_perturbation: f64 = 1e-4, (x > 0);
        /// Smallest δ_w.
        min_hessian_perturbation: f64 = 1e-20, (x >= 0);
        /// Largest δ_w before the step computation fails.
        max_hessian_perturbation: f64 = 1e20, (x > 0);
        /// Increase factor κ̄_w⁺ of δ_w when there is no previous perturbation.
        perturb_inc_fact_first: f64 = 100.0, (x > 1);
        /// Increase factor κ_w⁺ of δ_w.
        perturb_inc_fact: f64 = 8.0, (x > 1);
        /// Decrease factor κ_w⁻ of δ_w relative to the last one.
        perturb_dec_fact: f64 = 1.0 / 3.0, (0 < x < 1);
        /// δ̄_c: the Jacobian regularization is δ_c = δ̄_c μ^κ_c.
        jacobian_regularization_value: f64 = 1e-8, (x >= 0);
        /// κ_c of the Jacobian regularization.
        jacobian_regularization_exponent: f64 = 0.25, (x >= 0);

        // ---------------------------------------------------------------- linear algebra
        /// Device of the vector algebra and interior-point kernels: `cpu`, `emu` (the
        /// CUDA C kernels of the GPU path compiled by g++ and run on the host; a missing
        /// compiler is a [`crate::SolverError::Device`] error of the solve) or `cuda` (an
        /// NVIDIA GPU with cuDSS, feature `cuda`; the KKT system is then hybrid with
        /// `kkt = hybrid` and condensed otherwise).
        device: DeviceKind = DeviceKind::Cpu, (any);
        /// KKT formulation: `augmented`, `condensed` or `hybrid` ([`KktKind`]).
        kkt: KktKind = KktKind::Augmented, (any);
        /// Factorization of the augmented system: `ldlt`, `lblt`, `lblt_paired` or
        /// `multifrontal` ([`LinearSolverKind`]).
        linear_solver: LinearSolverKind = LinearSolverKind::Ldlt, (any);
        /// Threshold `u` of the pivot tests of `linear_solver = multifrontal`: a 1×1 pivot
        /// `d` is accepted when `|d| ≥ u · max|column|` (a 2×2 pivot by the Duff–Reid test
        /// with the same `u`), otherwise the column is delayed to the parent front. Larger
        /// is more stable (entries of `L` below `1/u`) with more delays; ignored by the
        /// other factorizations.
        pivot_threshold: f64 = 0.01, (0 <= x <= 1);
        /// `none`, `multifrontal`, `multifrontal_singular`, `multifrontal_selective` or
        /// `multifrontal_before_delta_w`
        /// ([`InertiaConfirmation`]):
        /// whether the multifrontal LDLᵀ with threshold pivoting re-factorizes a matrix
        /// whose inertia `linear_solver = ldlt` reports wrong (and, with
        /// `multifrontal_singular`, singular) at δ_w = 0, so that its correct inertia
        /// spares the Hessian perturbation (counted in `CallbackCounts::inertia_confirmations`
        /// and `inertia_confirmed`). Ignored by the other factorizations and by
        /// `kkt = condensed`.
        inertia_confirmation: InertiaConfirmation = InertiaConfirmation::None, (any);
        /// With `inertia_confirmation` on: after this many steps in a row whose δ_w = 0
        /// factorization the multifrontal LDLᵀ confirmed (LDLᵀ's inertia wrong or singular,
        /// the multifrontal's correct), the multifrontal factorizes every matrix for the
        /// rest of the solve and of the KKT backend's later re-solves (counted in
        /// `CallbackCounts::pivoting_switches`); its inertia is then exact, which
        /// `restoration_rules = auto` follows. `0` (the default) never switches. With
        /// `multifrontal_singular` and `3` the PEGASE and RTE cases of PGLIB take Ipopt's
        /// iteration counts, but the large LV problems switch too and take up to twice the
        /// time (bench-suites/README.md, session 21).
        confirmation_switch: usize = 0, (any);
        /// Static pivoting of the augmented system's LDLᵀ (no pivoting): an exact zero
        /// pivot of a primal row is replaced by this times `max|K_ij|` and counted
        /// positive, and iterative refinement against `K` recovers the solution; `0` (the
        /// default) makes an exact zero pivot a singular factorization (δ_c, then δ_w
        /// follow). Exact zero pivots come from variables without curvature (no Hessian
        /// diagonal, no bounds: e.g. the linear states of COPS `chain`) that the static
        /// ordering eliminates before their constraints; pivoting solvers (Ipopt's MUMPS)
        /// factor those matrices at δ_w = 0, and so does LDLᵀ with `1e-10` here
        /// (chain:20000: Ipopt's 6 iterations instead of 13 with δ_w at every step). Off
        /// by default: with `1e-10`, COPS glider (n = 100) reaches the iteration limit and
        /// marine (n = 100) ends in a failed restoration (both solve without it); with
        /// `1e-8` COPS pinene (small) fails too.
        zero_pivot_perturbation: f64 = 0.0, (x >= 0);
        /// Whether the augmented LDLᵀ's KKT-matched ordering places the variables whose
        /// diagonal is structurally zero (no Hessian diagonal entry and no finite bound:
        /// e.g. the linear states of COPS `chain` and `glider`) after a constraint that gives
        /// them a nonzero pivot, so that LDLᵀ without pivoting factors such matrices at
        /// δ_w = 0 with their exact inertia, as a pivoting solver does (chain:20000 in
        /// Ipopt's 6 iterations instead of 13 with δ_w at every step). The ordering is kept
        /// unchanged where no variable qualifies (every PGLIB case) and where the
        /// placement would predict more than 4× the flops. With exact inertia the solves
        /// follow Ipopt + MUMPS, also to its local solutions (COPS methanol:2 at 2.0575e-2,
        /// glider:80 at 1260.415). `no` keeps the plain KKT-matched ordering.
        zero_diagonal_ordering: bool = true, (any);
        /// Factorization of the condensed system by cuDSS on `device = cuda`: `cholesky`
        /// (a failure means not positive definite, as on the CPU) or `ldlt` (accepted when
        /// the inertia is `(n, 0, 0)`).
        cudss_factorization: CudssKind = CudssKind::Cholesky, (any);
        /// cuDSS's pivoting in the condensed system's factorization on `device = cuda`
        /// (`CUDSS_CONFIG_PIVOT_TYPE`): `yes` leaves cuDSS's default, `no` sets
        /// `CUDSS_PIVOT_NONE` (MadNLP's `cudss_pivoting = false`).
        cudss_pivoting: bool = true, (any);
        /// cuDSS's static pivot perturbation on `device = cuda`
        /// (`CUDSS_CONFIG_PIVOT_EPSILON`: the absolute value that replaces a tiny pivot);
        /// `0` leaves cuDSS's default.
        cudss_pivot_epsilon: f64 = 0.0, (x >= 0);
        /// Fill-reducing reordering of cuDSS's analysis on `device = cuda`
        /// (`CUDSS_CONFIG_REORDERING_ALG`): `default` (cuDSS's, METIS-based nested
        /// dissection), `alg1`, `alg2` or `alg3` (`CUDSS_ALG_1..3`); or an ordering computed
        /// on the host and given to cuDSS (`CUDSS_DATA_USER_PERM`): `host_amd` (faer's AMD)
        /// or `host_nd` (METIS nested dissection). The analysis runs once per KKT
        /// structure; its time (the host ordering included) is `Timings::analysis`.
        /// Measured on an H100 (bench-suites/results, run 8): `default` analyzes
        /// rosenbrock:200000 in 0.73 s and case10000_goc in 0.49 s; `alg1`/`alg2` did not
        /// solve case10000_goc within 25 s and `alg3` hung on it; `host_nd` took 2.8 s on
        /// rosenbrock:200000. Run 9 (session 19): `host_amd` did not finish
        /// rosenbrock:200000 within 25 s nor case10000_goc within 30 s (AMD's elimination
        /// trees are deep, and cuDSS works level by level).
        cudss_reordering: CudssReorderingKind = CudssReorderingKind::Default, (any);
        /// Host threads of cuDSS's multi-threaded mode on `device = cuda`: `0` (default)
        /// keeps cuDSS single-threaded on the host; `k ≥ 1` loads its threading layer
        /// (`libcudss_mtlayer_gomp.so.0` beside libcudss, or `SIMDNLP_CUDSS_MTLAYER`) and
        /// sets `CUDSS_CONFIG_HOST_NTHREADS = k`: the default reordering (most of the
        /// analysis) then runs on `k` host threads.
        cudss_host_threads: usize = 0, (any);
        /// cuDSS's deterministic mode on `device = cuda` (`CUDSS_CONFIG_DETERMINISTIC_MODE`):
        /// `yes` asks for the same factors and solutions from run to run; `no` (default)
        /// leaves cuDSS's default. Runs 8–12 on an H100 repeated case10000_goc in 84–89
        /// iterations and catmix:200 in 29–46. With cuDSS 0.7.1 `yes` is refused (a typed
        /// error at the solve's start): in runs 11 and 12 no solve with it returned
        /// (catmix:200, 0.3 s without it, was stopped after 20 s; case10000_goc after 30 s;
        /// with and without `cudss_host_threads`).
        cudss_deterministic: bool = false, (any);
        /// Nested-dissection levels of cuDSS's default reordering on `device = cuda`
        /// (`CUDSS_CONFIG_ND_NLEVELS`): `0` (default) leaves cuDSS's own choice; `k ≥ 1` asks
        /// for `k` levels. Measured on an H100 (run 11, with `cudss_host_threads = 16`):
        /// 2, 4, 6 and 8 levels all analyze and factor more slowly than cuDSS's own choice
        /// (rosenbrock:200000 0.74 s → 0.78–1.49 s, case10000_goc 1.33 s → 1.42–2.02 s).
        cudss_nd_levels: usize = 0, (0 <= x <= 64);
        /// Fill-reducing ordering of the KKT factorization: `amd` (approximate minimum
        /// degree), `nd` (METIS nested dissection) or `auto` (AMD, or nested dissection
        /// where AMD's factorization is expensive and nested dissection predicts at most
        /// 0.75 of its flops).
        ordering: OrderingKind = OrderingKind::Auto, (any);
        /// Half-width of the range that replaces an equality row in the condensed formulation,
        /// relative to `max(1, |c|)` (the default is `bound_relax_factor`'s).
        equality_relax: f64 = 1e-8, (x > 0);
        /// γ of `kkt = hybrid`, relative to the largest Hessian entry `max(1, max|W_ij|)` of
        /// each factorization: the weight of the augmented Lagrangian term `γ Jₑᵀ Jₑ` of the
        /// equality rows in the condensed matrix `K_γ`, see [`KktKind::Hybrid`]. Larger γ:
        /// fewer conjugate-gradient iterations on the Schur complement (its eigenvalues
        /// cluster at `1/γ`) and a positive definite `K_γ` where the problem's curvature on
        /// the equality rows' range is negative, but a worse conditioned `K_γ`. Measured on
        /// the RTE and PEGASE cases (bench-suites/README.md, issue 12): 1e5 the most even.
        hybrid_gamma: f64 = 1e5, (x > 0);
        /// Threads of the sparse factorization and solves: `1` sequential, `0`
        /// rayon's current pool size, `k > 1` the global rayon pool with `k` threads.
        /// LDLᵀ, LBLᵀ and Cholesky use them only for matrices whose factorization is
        /// predicted to take at least `simdnlp_linalg::DEFAULT_PARALLEL_MIN_FLOPS` (3e9)
        /// flops, and run smaller ones sequentially (there faer's threads cost more than
        /// they save: bench-suites/README.md, issue 16, session 23).
        factorization_threads: usize = 1, (any);
        /// Minimum number of iterative-refinement steps.
        min_refinement_steps: usize = 1, (any);
        /// Maximum number of iterative-refinement steps.
        max_refinement_steps: usize = 10, (any);
        /// Refinement stops once the scaled residual is below this.
        residual_ratio_max: f64 = 1e-10, (0 < x < 1);

        // ---------------------------------------------------------------- restoration
        /// Penalty ρ of the ℓ1 restoration problem.
        resto_penalty_parameter: f64 = 1000.0, (x > 0);
        /// Restoration ends at a point where both θ = `‖c‖_1` and the largest constraint
        /// violation `‖c‖_∞` fell below this fraction of their values at entry (`‖c‖_∞`:
        /// or below `min(tol, constr_viol_tol)`) and that the original filter accepts
        /// (Ipopt measures the reduction in `‖c‖_∞` only, `resto_require_theta_reduction
        /// = false`; requiring both keeps a phase that only moves the violation onto fewer
        /// rows from ending).
        required_infeasibility_reduction: f64 = 0.9, (0 <= x < 1);
        /// Whether restoration also requires θ = `‖c‖_1` to fall below
        /// `required_infeasibility_reduction` times its value at entry. `false` is Ipopt's
        /// rule (`RestoConvergenceCheck`: the reduction of `‖c‖_∞` and the original filter
        /// only), which ends a phase after fewer restoration iterations.
        /// With `restoration_rules = auto` (the default) this and the three options below
        /// apply only while the factorization's inertia is not exact ([`RestorationRules`]).
        resto_require_theta_reduction: bool = true, (any);
        /// How the bound multipliers are set when restoration ends: `false` takes the
        /// restoration problem's multipliers of the original bounds; `true` is Ipopt's
        /// update (`MinC_1NrmRestorationPhase`): the phase's whole primal change counts as
        /// one Newton step for the complementarity `s z = μ` from the multipliers at entry,
        /// with the fraction-to-the-boundary rule. Either way multipliers above 1e3 are
        /// reset to 1.
        resto_bound_mult_newton: bool = false, (any);
        /// θ_max factor of the restoration problem's own filter (Ipopt's
        /// `resto.theta_max_fact` is 1e8; the main problem's `theta_max_fact` is 1e4).
        resto_theta_max_fact: f64 = 1e4, (x > 0);
        /// The weight ζ of the restoration problem's proximity term `ζ/2 ‖D_R (x − x_R)‖²`:
        /// `false` `ζ = √μ` of the main phase; `true` `ζ = √μ_R`, the restoration phase's
        /// barrier parameter at its start (`max(μ, ‖c‖_∞)`), as Ipopt's `RestoIpoptNLP`
        /// (which also follows μ_R down within a phase; here it stays at the start's
        /// value). The larger weight keeps the phase's steps closer to `x_R`.
        resto_proximity_at_resto_mu: bool = false, (any);
        /// `auto`, `options` or `ipopt` ([`RestorationRules`]): whether the four options
        /// above decide the restoration phase's rules, or Ipopt's values of them apply
        /// (always, or with `auto` while the factorization's inertia is exact).
        restoration_rules: RestorationRules = RestorationRules::Auto, (any);
        /// Whether the feasibility restoration phase may run.
        restoration: bool = true, (any);

        // ---------------------------------------------------------------- derivative test
        /// Finite-difference check of the model's derivatives before the first iteration
        /// (see [`crate::derivative_check`]): `none`, `first-order` (gradient and
        /// Jacobian), `second-order` (also the Hessian of the Lagrangian) or
        /// `only-second-order`. The report is logged (print level `summary` and above).
        derivative_test: DerivativeTest = DerivativeTest::None, (any);
        /// Relative error above which the derivative test marks an entry as wrong.
        derivative_test_tol: f64 = 1e-4, (x > 0);
        /// Relative perturbation `h_j = derivative_test_perturbation · max(1, |x_j|)` of
        /// the derivative test's forward differences.
        derivative_test_perturbation: f64 = 1e-8, (x > 0);
        /// Whether the derivative test logs every compared entry, not only the worst ten.
        derivative_test_print_all: bool = false, (any);
        /// Maximal perturbation of the derivative test's point from the start `x0` (each
        /// variable drawn uniformly within this radius and its bounds); `0` tests at `x0`.
        point_perturbation_radius: f64 = 10.0, (x >= 0);

        // ---------------------------------------------------------------- output
        /// Logging detail: `none`, `summary`, `iterations` or `debug`, or Ipopt's integer
        /// `print_level` (`0` none, `1`–`2` summary, `3`–`5` iterations, `6`–`12` debug).
        print_level: PrintLevel = PrintLevel::Iterations, (any);
        /// Keep one [`crate::IterationRecord`] per iteration in
        /// [`crate::SolveResult::history`] (`no` keeps none and allocates nothing per
        /// iteration; `yes` reserves room for `max_iter + 1` records, at most 100 000, up
        /// front).
        keep_history: bool = false, (any);
    }
}
