//! The search direction: the primal-dual KKT system assembled, factorized with Ipopt's
//! inertia correction (`PDPerturbationHandler`) and solved, then the bound-multiplier steps.

use super::Ipm;
use crate::backend::{Backend, KktStatus};
use crate::result::SolverError;

/// Consecutive iterations needing δ_c after which the Jacobian counts as degenerate, and
/// iterations whose matrix stayed singular at δ_w = 0 after which the Hessian block does
/// (Ipopt's `degen_iters_max`).
const DEGEN_ITERS_MAX: usize = 3;

/// Factor by which a `Singular` verdict at δ_w > 0 raises a δ_c below δ̄_c
/// (`jacobian_regularization_value`), see [`Perturbation::delta_c_after_singular`].
const DELTA_C_SINGULAR_FACTOR: f64 = 10.0;

/// The inertia correction's state across iterations (Ipopt's `PDPerturbationHandler`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Perturbation {
    /// δ_w of the last step that needed one (0: none yet).
    delta_w_last: f64,
    /// The δ_c that [`Perturbation::delta_c_after_singular`] had to reach in the last step
    /// that raised it, kept until a step factorizes at δ_w = 0 again (0: none): the δ_w > 0
    /// trials of later steps start from it, see [`Perturbation::delta_c_at_positive_delta_w`].
    delta_c_raised: f64,
    /// Consecutive iterations whose KKT matrix was singular without δ_c.
    degen_iters: usize,
    /// The Jacobian is treated as rank deficient: every factorization carries
    /// δ_c = δ̄_c μ^κ_c from its first attempt (Ipopt's `jac_degenerate`).
    jac_degenerate: bool,
    /// Whether the Hessian block is structurally singular (Ipopt's `hess_degenerate`):
    /// decided by the first iterations, see [`HessianDegeneracy`].
    hessian: HessianDegeneracy,
}

/// Ipopt's test for a structurally singular Hessian block (`hess_degenerate`). While
/// undetermined, an iteration whose KKT matrix is nonsingular at δ_w = 0 (with δ_c = 0 or
/// δ_c > 0, whatever its inertia) decides "not degenerate" for the rest of the solve;
/// [`DEGEN_ITERS_MAX`] iterations whose matrix stayed singular at δ_w = 0 with and without
/// δ_c decide "degenerate": from then on every iteration starts at the δ_w of the
/// correction (`max(δ_w_min, κ_w⁻ δ_w_last)`), without the factorizations at δ_w = 0 that
/// cannot succeed. Free variables without curvature that the factorization meets as exact
/// zero pivots are such a block: COPS chain spent two of its three factorizations per
/// iteration on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HessianDegeneracy {
    /// Still testing; the count of iterations singular at δ_w = 0 so far.
    Undetermined(usize),
    /// A matrix was nonsingular at δ_w = 0: every iteration tries δ_w = 0 first.
    NotDegenerate,
    /// Every iteration starts with δ_w > 0.
    Degenerate,
}

impl Default for HessianDegeneracy {
    fn default() -> Self {
        Self::Undetermined(0)
    }
}

impl Perturbation {
    /// The δ_c to factorize with again, at the same `delta_w`, after a `Singular` verdict
    /// at `delta_c` > 0: `delta_c` raised [`DELTA_C_SINGULAR_FACTOR`]-fold, at most to
    /// `delta_c_max` (δ̄_c); `None` (δ_w grows, as before) when `delta_c` is 0 (handled by
    /// the caller), already at or above `delta_c_max`, or when `delta_w` is below
    /// `delta_c_max` (a δ_w that small perturbs the step no more than δ̄_c would, and the
    /// extra factorizations would be pure cost: case10000_goc, whose δ_w stays near 1e-9,
    /// took 117 → 137 factorizations in as many iterations without this bound).
    ///
    /// Why: LDLᵀ without pivoting on the KKT-matched ordering meets exact zero pivots on
    /// constraint rows whose leading block is singular although the whole matrix is not
    /// (PGLIB case4661_sdet: two mirror-image branches of equal parameters give two flow
    /// rows equal entries in the columns eliminated before them, in every iteration). δ_c
    /// makes those pivots `−δ_c`, until late in a solve the Schur complement's entries
    /// (of the size of the barrier diagonal) are so large that δ_c = δ̄_c μ^κ_c ≈ 7e-11 is
    /// lost in their round-off and the pivot is an exact zero again. δ_w reaches such a
    /// pivot only through the Schur complement: growing it until the pivot is no longer
    /// zero lost Newton's rate (13 of case4661_sdet's last iterations with δ_w > 0,
    /// case8387_pegase only acceptable). A δ_c raised for this one factorization removes
    /// the zero pivot at the δ_w the correction reached; steps that LDLᵀ accepts at
    /// δ_w = 0 keep their small δ_c (a δ_c = δ̄_c there spoils steps near a feasible point:
    /// case3012wp_k's restoration failure under session 23's idea B).
    fn delta_c_after_singular(delta_w: f64, delta_c: f64, delta_c_max: f64) -> Option<f64> {
        (delta_c > 0.0 && delta_c < delta_c_max && delta_w >= delta_c_max)
            .then(|| (delta_c * DELTA_C_SINGULAR_FACTOR).min(delta_c_max))
    }

    /// The δ_c of a factorization at δ_w > 0, from the step's `delta_c` (δ̄_c μ^κ_c, or 0
    /// while the Jacobian is not known to need it): the δ_c a previous step had to be raised
    /// to, when larger, else `delta_c`. δ_c = 0 stays 0 (the Jacobian test's).
    ///
    /// Why: late in PGLIB solves the zero pivots that δ_c = δ̄_c μ^κ_c loses in round-off
    /// come back in every step, and each step found the same raised δ_c again through
    /// failed factorizations (case10000_goc's last eight steps: 3–5 factorizations each,
    /// `(0, δ_c)`, `(δ_w, δ_c)`, `(δ_w, 10 δ_c)`, `(δ_w, 100 δ_c)`; Ipopt + MUMPS: one).
    /// Starting there mirrors Ipopt's `delta_x_last_` for δ_w (its next trial starts near
    /// the last one instead of at δ_w⁰) for the δ_c that our LDLᵀ needs and MUMPS's
    /// pivoting does not. Steps that factorize at δ_w = 0 keep their small δ_c, and clear
    /// the memory (see [`Perturbation::note_factorized_at_zero`]).
    fn delta_c_at_positive_delta_w(&self, delta_c: f64) -> f64 {
        if delta_c > 0.0 {
            delta_c.max(self.delta_c_raised)
        } else {
            delta_c
        }
    }

    /// After a successful factorization at δ_w > 0 with `delta_c`, started from
    /// `delta_c_start` (the δ_c before any raise in this step): remember `delta_c` when a
    /// raise was needed or kept.
    fn note_delta_c_used(&mut self, delta_c: f64, delta_c_start: f64) {
        if delta_c > delta_c_start || self.delta_c_raised > 0.0 {
            self.delta_c_raised = delta_c;
        }
    }

    /// A step whose matrix factorized at δ_w = 0: the zero pivots that needed a raised
    /// δ_c are gone, forget it.
    fn note_factorized_at_zero(&mut self) {
        self.delta_c_raised = 0.0;
    }

    /// The next δ_w trial after a failed one at `delta_w` (Ipopt's
    /// `get_deltas_for_wrong_inertia`): κ̄_w⁺ `delta_w` (`perturb_inc_fact_first`) when no
    /// earlier step needed a δ_w (`delta_w_last` = 0) or when `delta_w` already exceeds
    /// 1e5 `delta_w_last` (the old δ_w says nothing about this matrix, so grow as from
    /// scratch), else κ_w⁺ `delta_w` (`perturb_inc_fact`).
    fn next_delta_w(delta_w: f64, delta_w_last: f64, inc_fact_first: f64, inc_fact: f64) -> f64 {
        if delta_w_last == 0.0 || 1e5 * delta_w_last < delta_w {
            inc_fact_first * delta_w
        } else {
            inc_fact * delta_w
        }
    }

    /// The test of [`HessianDegeneracy`] after an iteration's factorizations:
    /// `singular_at_zero` says whether every factorization at δ_w = 0 was singular.
    fn note_hessian_degeneracy(&mut self, singular_at_zero: bool) {
        if let HessianDegeneracy::Undetermined(iters) = self.hessian {
            self.hessian = if !singular_at_zero {
                HessianDegeneracy::NotDegenerate
            } else if iters + 1 >= DEGEN_ITERS_MAX {
                tracing::debug!("Hessian block treated as singular: δ_w > 0 from the start");
                HessianDegeneracy::Degenerate
            } else {
                HessianDegeneracy::Undetermined(iters + 1)
            };
        }
    }

    /// Count consecutive iterations that needed δ_c; switch to "always δ_c" after
    /// [`DEGEN_ITERS_MAX`] of them, or at once when the singular verdict without δ_c was
    /// a pivot lost to element growth (see [`Perturbation::note_growth_stop`]).
    fn note_degeneracy(&mut self, needed_dc: bool, growth: bool) {
        if self.jac_degenerate {
            return;
        }
        if needed_dc && growth {
            self.note_growth_stop();
            return;
        }
        self.degen_iters = if needed_dc { self.degen_iters + 1 } else { 0 };
        if self.degen_iters >= DEGEN_ITERS_MAX {
            self.jac_degenerate = true;
            tracing::debug!("Jacobian treated as rank deficient: δ_c always on");
        }
    }

    /// A factorization without δ_c stopped at a pivot lost to element growth and one with
    /// δ_c > 0 succeeded ([`Backend::kkt_stopped_by_growth`]): δ_c on from the first attempt
    /// of every later factorization, without Ipopt's three-iteration test. The test exists
    /// for a Jacobian whose rank deficiency comes and goes with the iterate; element growth
    /// along the static elimination order does not: it needs δ_c at every nearby iterate
    /// (LV rosenbrock: the least-squares system and iterations 0–2 each overflowed without
    /// it, 4 factorizations of 11).
    pub(super) fn note_growth_stop(&mut self) {
        if !self.jac_degenerate {
            self.jac_degenerate = true;
            tracing::debug!("pivot lost to growth without δ_c: Jacobian treated as rank deficient");
        }
    }
}

impl<B: Backend> Ipm<'_, B> {
    /// Assemble, factorize with inertia correction and solve the primal-dual system.
    /// Returns `false` when no regularization gives the right inertia.
    pub(super) fn search_direction(&mut self) -> Result<bool, SolverError> {
        let backend = &mut *self.backend;
        let (iterate, slacks, work, bounds) = (
            &self.iterate,
            &self.iterate.slacks,
            &mut self.work,
            &self.bounds,
        );
        // Σ = P_L (z_L / s_L) + P_U (z_U / s_U)
        backend.fill(&mut self.sigma, 0.0);
        backend.div(&mut work.per_bound.lower, &iterate.zl, &slacks.lower);
        backend.scatter_add(
            1.0,
            &work.per_bound.lower,
            &bounds.lower_idx,
            &mut self.sigma,
        );
        backend.div(&mut work.per_bound.upper, &iterate.zu, &slacks.upper);
        backend.scatter_add(
            1.0,
            &work.per_bound.upper,
            &bounds.upper_idx,
            &mut self.sigma,
        );
        self.compute_grad_barrier();
        let backend = &mut *self.backend;
        // rhs_w = −(∇φ + Jᵀ y), rhs_y = −r
        backend.copy(&mut self.rhs_w, &self.grad_barrier);
        backend.jt_mul(1.0, &self.iterate.y, 1.0, &mut self.rhs_w);
        backend.scale(-1.0, &mut self.rhs_w);
        backend.copy(&mut self.rhs_y, &self.residual);
        backend.scale(-1.0, &mut self.rhs_y);
        let reg = self.jacobian_regularization();
        let mut min_dc = 0.0;
        let mut attempt = 0;
        self.backend.kkt_reset_quality();
        loop {
            if !self.factorize_with_correction(min_dc)? {
                return Ok(false);
            }
            let backend = &mut *self.backend;
            let direction = &mut self.direction;
            let accurate =
                backend.kkt_solve(&self.rhs_w, &self.rhs_y, &mut direction.w, &mut direction.y)?;
            let finite = backend.norm_inf(&direction.w).is_finite()
                && backend.norm_inf(&direction.y).is_finite();
            if accurate && finite {
                break;
            }
            // Inaccurate: first a more stable factorization of the same matrix (Ipopt's
            // IncreaseQuality), then regularize the constraint block, more each time.
            if backend.kkt_increase_quality()? {
                tracing::debug!("inaccurate KKT solve, factorizing with pivoting");
                continue;
            }
            if attempt == 2 {
                if !finite {
                    return Ok(false);
                }
                break;
            }
            attempt += 1;
            min_dc = if min_dc == 0.0 {
                reg.max(1e-12)
            } else {
                min_dc * 100.0
            };
            tracing::debug!(min_dc, "inaccurate KKT solve, regularizing");
        }
        self.bound_steps();
        Ok(true)
    }

    /// `Δs_L, Δs_U, Δz_L, Δz_U` from `Δw`.
    pub(super) fn bound_steps(&mut self) {
        let backend = &*self.backend;
        let (iterate, slacks, direction) =
            (&self.iterate, &self.iterate.slacks, &mut self.direction);
        self.bounds
            .slack_steps(backend, &direction.w, &mut direction.slacks);
        let steps = &direction.slacks;
        backend.bound_dual_step(
            &mut direction.zl,
            &iterate.zl,
            &slacks.lower,
            &steps.lower,
            self.mu,
        );
        backend.bound_dual_step(
            &mut direction.zu,
            &iterate.zu,
            &slacks.upper,
            &steps.upper,
            self.mu,
        );
    }

    /// Ipopt's inertia correction (Algorithm IC of the paper), with Ipopt's degenerate-
    /// Jacobian heuristic: once [`DEGEN_ITERS_MAX`] consecutive iterations needed δ_c > 0
    /// to get a nonsingular matrix, δ_c is applied from the first attempt on. Without it,
    /// LDLᵀ without pivoting meets the near-zero pivots of a rank-deficient Jacobian at
    /// δ_c = 0, counts them with random signs and drives δ_w up to 1e17 (seen on
    /// case1803_snem).
    fn factorize_with_correction(&mut self, min_dc: f64) -> Result<bool, SolverError> {
        let options = self.options;
        let reg = self.jacobian_regularization();
        let mut dc = if self.perturbation.jac_degenerate {
            min_dc.max(reg)
        } else {
            min_dc
        };
        let mut needed_dc = false;
        // the singular verdict without δ_c was a pivot lost to growth, not a zero pivot
        let mut growth = false;
        if self.perturbation.hessian != HessianDegeneracy::Degenerate {
            let mut status = self.backend.kkt_factorize(&self.sigma, 0.0, dc, true)?;
            if status == KktStatus::Singular && dc == 0.0 {
                growth = self.backend.kkt_stopped_by_growth();
                dc = reg;
                needed_dc = true;
                status = self.backend.kkt_factorize(&self.sigma, 0.0, dc, true)?;
            }
            self.perturbation
                .note_hessian_degeneracy(status == KktStatus::Singular);
            if status == KktStatus::Correct {
                self.perturbation.note_degeneracy(needed_dc, growth);
                self.perturbation.note_factorized_at_zero();
                self.last_step.regularization = 0.0;
                return Ok(true);
            }
        }
        let delta_w_last = self.perturbation.delta_w_last;
        let mut dw = if delta_w_last == 0.0 {
            options.first_hessian_perturbation
        } else {
            options
                .min_hessian_perturbation
                .max(options.perturb_dec_fact * delta_w_last)
        };
        let mut wrong_without_dc = 0;
        let mut dc_start = dc;
        dc = self.perturbation.delta_c_at_positive_delta_w(dc);
        loop {
            let status = self.backend.kkt_factorize(&self.sigma, dw, dc, true)?;
            if status == KktStatus::Singular && dc == 0.0 {
                growth = self.backend.kkt_stopped_by_growth();
                dc_start = reg;
                dc = self.perturbation.delta_c_at_positive_delta_w(reg);
                needed_dc = true;
                continue;
            }
            if let (KktStatus::Singular, Some(raised)) = (
                status,
                Perturbation::delta_c_after_singular(dw, dc, options.jacobian_regularization_value),
            ) {
                // A zero pivot that δ_c lost in round-off: a larger δ_c, not δ_w (at most
                // log10(δ̄_c / δ_c) extra factorizations per δ_w).
                tracing::debug!(
                    delta_w = dw,
                    delta_c = raised,
                    "singular at delta_w > 0: delta_c raised"
                );
                dc = raised;
                continue;
            }
            if status == KktStatus::WrongInertia && dc == 0.0 {
                // With δ_c = 0 a rank-deficient Jacobian leaves near-zero pivots whose signs
                // are round-off, so no δ_w fixes the count (case1803_snem: one to three
                // extra negative eigenvalues up to δ_w = 1e19). After the second wrong count
                // add δ_c: it makes the constraint block definite at a negligible cost.
                wrong_without_dc += 1;
                if wrong_without_dc >= 2 {
                    dc_start = reg;
                    dc = self.perturbation.delta_c_at_positive_delta_w(reg);
                    needed_dc = true;
                    continue;
                }
            }
            if status == KktStatus::Correct {
                self.perturbation.note_degeneracy(needed_dc, growth);
                self.perturbation.note_delta_c_used(dc, dc_start);
                self.perturbation.delta_w_last = dw;
                self.last_step.regularization = dw;
                tracing::debug!(delta_w = dw, delta_c = dc, "inertia correction");
                return Ok(true);
            }
            dw = Perturbation::next_delta_w(
                dw,
                delta_w_last,
                options.perturb_inc_fact_first,
                options.perturb_inc_fact,
            );
            if dw > options.max_hessian_perturbation {
                // Ipopt forgets δ_w_last when δ_w outgrows its bound
                // (`get_deltas_for_wrong_inertia`): the next step starts at δ_w⁰ again.
                self.perturbation.delta_w_last = 0.0;
                return Ok(false);
            }
        }
    }

    /// δ_c = δ̄_c μ^κ_c, the constraint-block regularization at the current μ.
    fn jacobian_regularization(&self) -> f64 {
        self.options.jacobian_regularization_value
            * self.mu.powf(self.options.jacobian_regularization_exponent)
    }
}

#[cfg(test)]
mod tests {
    use super::{DELTA_C_SINGULAR_FACTOR, Perturbation};

    /// A `Singular` verdict at δ_w > 0 raises a small δ_c tenfold up to δ̄_c, and only then
    /// leaves δ_w to grow (case4661_sdet's last μ: δ_c ≈ 7e-11, δ̄_c = 1e-8).
    #[test]
    fn singular_at_positive_delta_w_raises_small_delta_c_up_to_its_cap() {
        let cap = 1e-8;
        let mut dc = 7.075e-11;
        let mut raises = 0;
        while let Some(next) = Perturbation::delta_c_after_singular(1e-4, dc, cap) {
            assert!(next > dc && next <= cap);
            assert!(next == cap || next == dc * DELTA_C_SINGULAR_FACTOR);
            dc = next;
            raises += 1;
        }
        assert_eq!(dc, cap);
        assert_eq!(raises, 3);
    }

    /// δ_c = 0 is the caller's (first δ_c = δ̄_c μ^κ_c), and a δ_c at or above δ̄_c (the
    /// inaccurate-solve retries' `min_dc`) is not raised: δ_w grows as before.
    #[test]
    fn zero_or_capped_delta_c_is_not_raised() {
        assert_eq!(Perturbation::delta_c_after_singular(1e-4, 0.0, 1e-8), None);
        assert_eq!(Perturbation::delta_c_after_singular(1e-4, 1e-8, 1e-8), None);
        assert_eq!(Perturbation::delta_c_after_singular(1e-4, 1e-6, 1e-8), None);
        assert_eq!(
            Perturbation::delta_c_after_singular(1e-4, 5e-9, 1e-8),
            Some(1e-8)
        );
    }

    /// δ_w grows by κ̄_w⁺ = 100 from scratch and once it exceeds 1e5 times the last step's
    /// δ_w (Ipopt's `get_deltas_for_wrong_inertia`), else by κ_w⁺ = 8.
    #[test]
    fn delta_w_grows_fast_when_far_above_the_last_one() {
        let next = |dw, last| Perturbation::next_delta_w(dw, last, 100.0, 8.0);
        assert_eq!(next(1e-4, 0.0), 1e-2);
        assert_eq!(next(1e-8, 3e-9), 8e-8);
        // 1e5 · 1e-9 = 1e-4: not yet above it
        assert_eq!(next(1e-4, 1e-9), 8e-4);
        assert_eq!(next(1e-3, 1e-9), 1e-1);
    }

    /// Once a step had to raise δ_c, the δ_w > 0 trials of the next steps start at that
    /// δ_c (case10000_goc's last steps: 3–5 → 2–3 factorizations), never lower than the
    /// step's own, δ_c = 0 stays 0, and a step that factorizes at δ_w = 0 forgets it.
    #[test]
    fn raised_delta_c_is_kept_until_a_step_factorizes_at_zero() {
        let mut p = Perturbation::default();
        assert_eq!(p.delta_c_at_positive_delta_w(7e-11), 7e-11);
        // no raise: nothing remembered
        p.note_delta_c_used(7e-11, 7e-11);
        assert_eq!(p.delta_c_at_positive_delta_w(7e-11), 7e-11);
        // raised 100-fold
        p.note_delta_c_used(7e-9, 7e-11);
        assert_eq!(p.delta_c_at_positive_delta_w(7e-11), 7e-9);
        assert_eq!(p.delta_c_at_positive_delta_w(0.0), 0.0);
        assert_eq!(p.delta_c_at_positive_delta_w(1e-6), 1e-6);
        p.note_factorized_at_zero();
        assert_eq!(p.delta_c_at_positive_delta_w(7e-11), 7e-11);
    }

    /// A δ_w below δ̄_c is left to grow: no extra factorizations where δ_w stays tiny
    /// (case10000_goc: δ_w ≈ 1e-9).
    #[test]
    fn delta_w_below_the_cap_is_left_to_grow() {
        assert_eq!(
            Perturbation::delta_c_after_singular(1e-9, 7e-11, 1e-8),
            None
        );
        assert_eq!(
            Perturbation::delta_c_after_singular(1e-8, 7e-11, 1e-8),
            Some(7e-11 * DELTA_C_SINGULAR_FACTOR)
        );
    }
}
