//! Solver options, with Ipopt's names and defaults where Ipopt has the option.

use serde::{Deserialize, Serialize};

/// Which KKT formulation the step computation uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum KktKind {
    /// Augmented (symmetric indefinite) system in `(x, s, y)`, factorized with LDLᵀ/LBLᵀ and
    /// checked by its inertia. The CPU default.
    #[default]
    Augmented,
    /// Condensed "lifted" system `K = W + Σx + Jᵀ D J` in `x` only; equality rows are relaxed
    /// to tiny ranges `[c - τ, c + τ]` (`equality_relax`) so every row carries a slack.
    /// Factorized with Cholesky; a failed Cholesky counts as wrong inertia. Iterative
    /// refinement runs on the full (uncondensed) system.
    Condensed,
}

/// Which sparse symmetric factorization backs the augmented system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum LinearSolverKind {
    /// faer's simplicial/supernodal LDLᵀ with inertia from `D` (the default).
    #[default]
    Ldlt,
    /// faer's Bunch–Kaufman LBLᵀ with inertia from the 1×1/2×2 blocks of `B`.
    Lblt,
}

/// How the barrier parameter μ is updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum MuStrategy {
    /// Fiacco–McCormick monotone decrease (Ipopt's `mu_strategy monotone`, the default).
    #[default]
    Monotone,
    /// Adaptive μ chosen each iteration by the LOQO rule
    /// `μ = σ · (sᵀz)/N`, `σ = 0.1 · min(0.05 · (1 − ξ)/ξ, 2)³`, `ξ = min(s_i z_i)/avg`,
    /// falling back to monotone mode when progress stalls (Ipopt's `mu_oracle loqo`).
    AdaptiveLoqo,
}

/// How much the solver logs through `tracing` (as plain lines on stderr when the program
/// installed no subscriber; see the crate docs, "Logging").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Default)]
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

/// Options of the interior-point solver. Every field's default is Ipopt's default for the
/// option of the same name (when Ipopt has one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    // ---------------------------------------------------------------- termination
    /// Desired convergence tolerance on the scaled optimality error (default `1e-8`).
    pub tol: f64,
    /// Scaling threshold `s_max` of the optimality error (default `100`).
    pub s_max: f64,
    /// Absolute tolerance on the unscaled dual infeasibility (default `1`).
    pub dual_inf_tol: f64,
    /// Absolute tolerance on the unscaled constraint violation (default `1e-4`).
    pub constr_viol_tol: f64,
    /// Absolute tolerance on the unscaled complementarity (default `1e-4`).
    pub compl_inf_tol: f64,
    /// "Acceptable" tolerance on the scaled optimality error (default `1e-6`).
    pub acceptable_tol: f64,
    /// Number of consecutive acceptable iterates that end the run (default `15`;
    /// `0` disables the acceptable exit).
    pub acceptable_iter: usize,
    /// Acceptable threshold on the unscaled dual infeasibility (default `1e10`).
    pub acceptable_dual_inf_tol: f64,
    /// Acceptable threshold on the unscaled constraint violation (default `1e-2`).
    pub acceptable_constr_viol_tol: f64,
    /// Acceptable threshold on the unscaled complementarity (default `1e-2`).
    pub acceptable_compl_inf_tol: f64,
    /// Acceptable relative change of the objective between iterates (default `1e20`).
    pub acceptable_obj_change_tol: f64,
    /// Maximum number of iterations, restoration iterations included (default `3000`).
    pub max_iter: usize,
    /// Maximum wall time of one solve in seconds (default `1e20`).
    pub max_wall_time: f64,
    /// Iterates with `‖x‖∞` above this are reported as diverging (default `1e20`).
    pub diverging_iterates_tol: f64,

    // ---------------------------------------------------------------- initialization
    /// Absolute distance of the initial point from its bounds (default `1e-2`).
    pub bound_push: f64,
    /// Relative distance (fraction of the bound gap) of the initial point (default `1e-2`).
    pub bound_frac: f64,
    /// Same as `bound_push` for the slacks of inequality rows (default `1e-2`).
    pub slack_bound_push: f64,
    /// Same as `bound_frac` for the slacks of inequality rows (default `1e-2`).
    pub slack_bound_frac: f64,
    /// Initial value of the bound multipliers (default `1`).
    pub bound_mult_init_val: f64,
    /// Least-squares constraint multipliers larger than this (∞-norm) are discarded and
    /// replaced by zero (default `1e3`; `0` skips the least-squares estimate).
    pub constr_mult_init_max: f64,
    /// Relative bound relaxation: every finite bound moves outwards by
    /// `bound_relax_factor · max(1, |bound|)` (default `1e-8`).
    pub bound_relax_factor: f64,
    /// Objective and rows are scaled so their gradients at the start have ∞-norm at most
    /// this (default `100`; Ipopt's `nlp_scaling_method gradient-based`).
    pub nlp_scaling_max_gradient: f64,
    /// Smallest scaling factor the gradient-based scaling may choose (default `1e-8`).
    pub nlp_scaling_min_value: f64,
    /// Whether gradient-based scaling is applied at all (default `true`).
    pub nlp_scaling: bool,

    // ---------------------------------------------------------------- warm start
    /// Start from the given primal and dual point instead of Ipopt's default
    /// initialization (default `false`). [`crate::Solver::solve`] turns this on by itself
    /// for re-solves.
    pub warm_start_init_point: bool,
    /// `bound_push` used for warm starts (default `1e-3`).
    pub warm_start_bound_push: f64,
    /// `bound_frac` used for warm starts (default `1e-3`).
    pub warm_start_bound_frac: f64,
    /// `slack_bound_push` used for warm starts (default `1e-3`).
    pub warm_start_slack_bound_push: f64,
    /// `slack_bound_frac` used for warm starts (default `1e-3`).
    pub warm_start_slack_bound_frac: f64,
    /// Bound multipliers are raised to at least this value on warm starts (default `1e-3`).
    pub warm_start_mult_bound_push: f64,
    /// Initial barrier parameter of warm-started solves (default `1e-4`; Ipopt asks the
    /// user to lower `mu_init` by hand for warm starts, here it is separate).
    pub warm_start_mu_init: f64,

    // ---------------------------------------------------------------- barrier
    /// Initial barrier parameter (default `0.1`).
    pub mu_init: f64,
    /// Lower bound on μ (default `1e-11`).
    pub mu_min: f64,
    /// Linear decrease factor κ_μ of the monotone update (default `0.2`).
    pub mu_linear_decrease_factor: f64,
    /// Superlinear decrease exponent θ_μ of the monotone update (default `1.5`).
    pub mu_superlinear_decrease_power: f64,
    /// Barrier tolerance factor κ_ε: μ decreases once the barrier error is below κ_ε μ
    /// (default `10`).
    pub barrier_tol_factor: f64,
    /// Lower bound τ_min of the fraction-to-boundary parameter τ = max(τ_min, 1 − μ)
    /// (default `0.99`).
    pub tau_min: f64,
    /// Barrier update rule (default monotone).
    pub mu_strategy: MuStrategy,
    /// Damping factor κ_d of the linear terms for one-sided bounds in φ (default `1e-5`).
    pub kappa_d: f64,
    /// Bound-multiplier safeguard κ_Σ: `z_i` stays within `[μ/(κ_Σ s_i), κ_Σ μ/s_i]`
    /// (default `1e10`).
    pub kappa_sigma: f64,

    // ---------------------------------------------------------------- line search
    /// Exponent s_θ of θ in the switching condition (default `1.1`).
    pub s_theta: f64,
    /// Exponent s_φ of the barrier-function decrease in the switching condition
    /// (default `2.3`).
    pub s_phi: f64,
    /// Factor δ of the switching condition (default `1`).
    pub delta: f64,
    /// Armijo factor η_φ (default `1e-8`).
    pub eta_phi: f64,
    /// Filter margin factor γ_θ (default `1e-5`).
    pub gamma_theta: f64,
    /// Filter margin factor γ_φ (default `1e-8`).
    pub gamma_phi: f64,
    /// Safety factor γ_α for the minimal step size α_min (default `0.05`).
    pub alpha_min_frac: f64,
    /// Backtracking factor (default `0.5`).
    pub alpha_red_factor: f64,
    /// θ_max = `theta_max_fact` · max(1, θ(x0)) (default `1e4`).
    pub theta_max_fact: f64,
    /// θ_min = `theta_min_fact` · max(1, θ(x0)) (default `1e-4`).
    pub theta_min_fact: f64,
    /// Maximum number of second-order corrections per iteration (default `4`).
    pub max_soc: usize,
    /// Required reduction κ_soc of the constraint violation between corrections
    /// (default `0.99`).
    pub kappa_soc: f64,
    /// Maximum number of filter resets (default `5`).
    pub max_filter_resets: usize,
    /// Number of successive filter rejections that trigger a reset (default `5`).
    pub filter_reset_trigger: usize,
    /// Relative step size below which a step counts as tiny (default `10 ε_mach`).
    pub tiny_step_tol: f64,
    /// Multiplier step size below which a tiny step may end the run (default `1e-2`).
    pub tiny_step_y_tol: f64,
    /// Whether the watchdog procedure is used (default `false`).
    pub watchdog: bool,
    /// Number of successive shortened steps that activate the watchdog (default `10`).
    pub watchdog_shortened_iter_trigger: usize,
    /// Maximum number of watchdog trial iterations (default `3`).
    pub watchdog_trial_iter_max: usize,

    // ---------------------------------------------------------------- inertia correction
    /// First trial δ_w of the Hessian perturbation (default `1e-4`).
    pub first_hessian_perturbation: f64,
    /// Smallest δ_w (default `1e-20`).
    pub min_hessian_perturbation: f64,
    /// Largest δ_w before the step computation fails (default `1e20`).
    pub max_hessian_perturbation: f64,
    /// Increase factor κ̄_w⁺ of δ_w when there is no previous perturbation (default `100`).
    pub perturb_inc_fact_first: f64,
    /// Increase factor κ_w⁺ of δ_w (default `8`).
    pub perturb_inc_fact: f64,
    /// Decrease factor κ_w⁻ of δ_w relative to the last one (default `1/3`).
    pub perturb_dec_fact: f64,
    /// δ̄_c: the Jacobian regularization is δ_c = δ̄_c μ^κ_c (default `1e-8`).
    pub jacobian_regularization_value: f64,
    /// κ_c of the Jacobian regularization (default `0.25`).
    pub jacobian_regularization_exponent: f64,

    // ---------------------------------------------------------------- linear algebra
    /// KKT formulation (default augmented).
    pub kkt: KktKind,
    /// Factorization of the augmented system (default LDLᵀ).
    pub linear_solver: LinearSolverKind,
    /// Half-width of the range that replaces an equality row in the condensed formulation,
    /// relative to `max(1, |c|)` (default `1e-8`, as `bound_relax_factor`).
    pub equality_relax: f64,
    /// Threads of the sparse factorization and solves: `1` sequential (the default), `0`
    /// rayon's current pool size, `k > 1` the global rayon pool with `k` threads.
    pub factorization_threads: usize,
    /// Minimum number of iterative-refinement steps (default `1`).
    pub min_refinement_steps: usize,
    /// Maximum number of iterative-refinement steps (default `10`).
    pub max_refinement_steps: usize,
    /// Refinement stops once the scaled residual is below this (default `1e-10`).
    pub residual_ratio_max: f64,

    // ---------------------------------------------------------------- restoration
    /// Penalty ρ of the ℓ1 restoration problem (default `1000`).
    pub resto_penalty_parameter: f64,
    /// Restoration ends once θ fell below this fraction of its value at entry and the
    /// original filter accepts the point (default `0.9`).
    pub required_infeasibility_reduction: f64,
    /// Whether the feasibility restoration phase may run (default `true`).
    pub restoration: bool,

    // ---------------------------------------------------------------- output
    /// Logging detail (default: iteration lines).
    pub print_level: PrintLevel,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tol: 1e-8,
            s_max: 100.0,
            dual_inf_tol: 1.0,
            constr_viol_tol: 1e-4,
            compl_inf_tol: 1e-4,
            acceptable_tol: 1e-6,
            acceptable_iter: 15,
            acceptable_dual_inf_tol: 1e10,
            acceptable_constr_viol_tol: 1e-2,
            acceptable_compl_inf_tol: 1e-2,
            acceptable_obj_change_tol: 1e20,
            max_iter: 3000,
            max_wall_time: 1e20,
            diverging_iterates_tol: 1e20,
            bound_push: 1e-2,
            bound_frac: 1e-2,
            slack_bound_push: 1e-2,
            slack_bound_frac: 1e-2,
            bound_mult_init_val: 1.0,
            constr_mult_init_max: 1e3,
            bound_relax_factor: 1e-8,
            nlp_scaling_max_gradient: 100.0,
            nlp_scaling_min_value: 1e-8,
            nlp_scaling: true,
            warm_start_init_point: false,
            warm_start_bound_push: 1e-3,
            warm_start_bound_frac: 1e-3,
            warm_start_slack_bound_push: 1e-3,
            warm_start_slack_bound_frac: 1e-3,
            warm_start_mult_bound_push: 1e-3,
            warm_start_mu_init: 1e-4,
            mu_init: 0.1,
            mu_min: 1e-11,
            mu_linear_decrease_factor: 0.2,
            mu_superlinear_decrease_power: 1.5,
            barrier_tol_factor: 10.0,
            tau_min: 0.99,
            mu_strategy: MuStrategy::Monotone,
            kappa_d: 1e-5,
            kappa_sigma: 1e10,
            s_theta: 1.1,
            s_phi: 2.3,
            delta: 1.0,
            eta_phi: 1e-8,
            gamma_theta: 1e-5,
            gamma_phi: 1e-8,
            alpha_min_frac: 0.05,
            alpha_red_factor: 0.5,
            theta_max_fact: 1e4,
            theta_min_fact: 1e-4,
            max_soc: 4,
            kappa_soc: 0.99,
            max_filter_resets: 5,
            filter_reset_trigger: 5,
            tiny_step_tol: 10.0 * f64::EPSILON,
            tiny_step_y_tol: 1e-2,
            watchdog: false,
            watchdog_shortened_iter_trigger: 10,
            watchdog_trial_iter_max: 3,
            first_hessian_perturbation: 1e-4,
            min_hessian_perturbation: 1e-20,
            max_hessian_perturbation: 1e20,
            perturb_inc_fact_first: 100.0,
            perturb_inc_fact: 8.0,
            perturb_dec_fact: 1.0 / 3.0,
            jacobian_regularization_value: 1e-8,
            jacobian_regularization_exponent: 0.25,
            kkt: KktKind::Augmented,
            linear_solver: LinearSolverKind::Ldlt,
            equality_relax: 1e-8,
            factorization_threads: 1,
            min_refinement_steps: 1,
            max_refinement_steps: 10,
            residual_ratio_max: 1e-10,
            resto_penalty_parameter: 1000.0,
            required_infeasibility_reduction: 0.9,
            restoration: true,
            print_level: PrintLevel::Iterations,
        }
    }
}
