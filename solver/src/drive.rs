//! Driving a running solve: the per-iteration [`IterationRecord`], the intermediate
//! callback and the [`CancelToken`], bundled in [`Hooks`] and passed to
//! [`crate::solve_with`] or [`crate::Solver::solve_with`].
//!
//! Both the callback (returning [`ControlFlow::Break`]) and the token end the solve with
//! [`crate::Status::UserRequestedStop`] and a result for the last accepted iterate.

use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What one iteration looks like, as the solver's iteration log line shows it (Ipopt's
/// intermediate-callback arguments plus the elapsed time).
///
/// The measures are those of the iterate the iteration starts from (record `k` describes
/// iterate `k`; the step columns describe the step that produced it, zero for iterate 0).
/// During a feasibility-restoration phase (`restoration == true`) the objective and
/// infeasibilities are those of the restoration problem, as in Ipopt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    /// Iteration number, counted over the whole solve (restoration iterations included,
    /// numbered after the iteration that entered the restoration phase).
    pub iter: usize,
    /// Objective in the user's units (not negated for a maximization).
    pub objective: f64,
    /// Constraint residual (∞-norm, the user's units; the slack residual `c − s` of the
    /// rows with a slack included): the log's `inf_pr`.
    pub inf_pr: f64,
    /// Dual infeasibility (∞-norm of the Lagrangian gradient of the scaled problem): the
    /// log's `inf_du`.
    pub inf_du: f64,
    /// Barrier parameter μ.
    pub mu: f64,
    /// ∞-norm of the primal search direction that produced this iterate (`‖d‖`).
    pub step_norm: f64,
    /// Hessian regularization δ_w of that step (`0` when none was needed).
    pub regularization: f64,
    /// Step size of the bound multipliers.
    pub alpha_du: f64,
    /// Step size of the primal variables and constraint multipliers.
    pub alpha_pr: f64,
    /// Number of line-search trial points of that step.
    pub ls_trials: usize,
    /// Wall-clock seconds since the solve's iterations started.
    pub elapsed: f64,
    /// `true` for iterations of the feasibility-restoration phase.
    pub restoration: bool,
}

/// A flag that stops a running solve from another thread: clone it, hand it to
/// [`Hooks::cancel_token`], and call [`CancelToken::cancel`] anywhere. The solver checks
/// it once per iteration and ends with [`crate::Status::UserRequestedStop`].
///
/// ```
/// use simdnlp_solver::CancelToken;
///
/// let token = CancelToken::new();
/// let remote = token.clone();
/// std::thread::spawn(move || remote.cancel()).join().unwrap();
/// assert!(token.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every solve holding a clone of this token to stop at its next iteration.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelToken::cancel`] was called on this token or a clone.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Clears the flag, so the token can drive another solve.
    pub fn reset(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// The intermediate callback: called once per iteration with its record; returning
/// [`ControlFlow::Break`] stops the solve.
pub type IterationCallback<'a> = dyn FnMut(&IterationRecord) -> ControlFlow<()> + 'a;

/// What drives a solve besides its options: an intermediate callback and a cancel token,
/// both optional (`Hooks::default()` has neither and solves as [`crate::solve`] does).
///
/// ```
/// use std::ops::ControlFlow;
/// use simdnlp_solver::{CancelToken, Hooks};
///
/// let token = CancelToken::new();
/// let mut seen = Vec::new();
/// let hooks = Hooks::new()
///     .on_iteration(|record| {
///         seen.push(record.objective);
///         if record.iter >= 5 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
///     })
///     .cancel_token(token.clone());
/// # drop(hooks);
/// ```
#[derive(Default)]
pub struct Hooks<'a> {
    callback: Option<Box<IterationCallback<'a>>>,
    cancel: Option<CancelToken>,
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("callback", &self.callback.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

impl<'a> Hooks<'a> {
    /// No callback, no token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the intermediate callback, called once per iteration (restoration iterations
    /// included) before the convergence test; [`ControlFlow::Break`] ends the solve with
    /// [`crate::Status::UserRequestedStop`] at the iterate the record describes (or, during
    /// a restoration phase, at the iterate that entered it). It should not allocate if the
    /// solve is to stay allocation-free.
    pub fn on_iteration(
        mut self,
        callback: impl FnMut(&IterationRecord) -> ControlFlow<()> + 'a,
    ) -> Self {
        self.callback = Some(Box::new(callback));
        self
    }

    /// Sets the cancel token, checked once per iteration right after the callback (a
    /// token cancelled from within the callback stops at that iteration).
    pub fn cancel_token(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }
}

/// The hooks of one solve as the iteration loop sees them, with the history.
pub(crate) struct Driver<'h, 'a> {
    hooks: Option<&'h mut Hooks<'a>>,
    /// Records of every iteration, when the `keep_history` option asks for them.
    pub history: Option<Vec<IterationRecord>>,
    /// Reads the device's host↔device byte counter, when the solve measures it.
    transfers: Option<&'h dyn Fn() -> u64>,
    /// The counter at the first observed iteration, at the last one, and the number of
    /// iterations observed.
    transfer_marks: (u64, u64, usize),
}

impl<'h, 'a> Driver<'h, 'a> {
    /// A driver for `hooks`, keeping a history (with room for `capacity` records
    /// allocated up front) when `keep_history`.
    pub fn new(hooks: Option<&'h mut Hooks<'a>>, keep_history: bool, capacity: usize) -> Self {
        Self {
            hooks,
            history: keep_history.then(|| Vec::with_capacity(capacity)),
            transfers: None,
            transfer_marks: (0, 0, 0),
        }
    }

    /// Reads `counter` (the device's transferred bytes) at every observed iteration, so
    /// that [`Driver::bytes_per_iteration`] measures the iterations alone.
    pub fn count_transfers(&mut self, counter: &'h dyn Fn() -> u64) {
        self.transfers = Some(counter);
    }

    /// Bytes moved between the host and the device per iteration, from the first observed
    /// iteration to the last one (the set-up before the first iteration is not counted;
    /// a restoration phase's set-up within the iterations is). `None` without a counter
    /// or with fewer than two observed iterations.
    pub fn bytes_per_iteration(&self) -> Option<f64> {
        let (first, last, observed) = self.transfer_marks;
        (self.transfers.is_some() && observed >= 2)
            .then(|| last.saturating_sub(first) as f64 / (observed - 1) as f64)
    }

    /// Records one iteration and asks the hooks whether to go on: `true` means stop.
    pub fn observe(&mut self, record: &IterationRecord) -> bool {
        if let Some(counter) = self.transfers {
            let bytes = counter();
            let (first, _, observed) = self.transfer_marks;
            self.transfer_marks = (
                if observed == 0 { bytes } else { first },
                bytes,
                observed + 1,
            );
        }
        if let Some(history) = self.history.as_mut() {
            history.push(*record);
        }
        let Some(hooks) = self.hooks.as_deref_mut() else {
            return false;
        };
        let callback_stops = match hooks.callback.as_deref_mut() {
            Some(callback) => callback(record).is_break(),
            None => false,
        };
        callback_stops || hooks.cancel.as_ref().is_some_and(CancelToken::is_cancelled)
    }
}
