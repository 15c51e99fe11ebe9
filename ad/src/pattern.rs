//! Compiled patterns: slots (the per-pattern Compressor), programs and evaluation.

use crate::data::DataView;
use crate::error::AdError;
use crate::eval::{EvalInputs, Evaluator, LANES, Outputs, Parallelism, Scratch, Workspace, run};
use crate::expr::{Expr, VarRef};
use crate::graph::gradient;
use crate::jit::{JitArgs, JitCode, JitInput, JitProgram, Output, nan_ptr};
use crate::program::{ISrc, Ins, Program, VALUE, build, columns, refs};
use crate::scalar::Scalar;
use crate::scatter::ScatterPlan;
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How second-order programs are derived (both give the same values; see the crate docs
/// for the measurement that picked the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SecondOrder {
    /// Symbolic reverse mode on each gradient entry (reverse-over-reverse).
    #[default]
    ReverseOverReverse,
    /// Symbolic forward mode on the gradient, one direction per slot (forward-over-reverse).
    ForwardOverReverse,
}

/// A pattern compiled once at model build: its first- and second-order slots and the
/// value, gradient and Hessian programs. `Send + Sync`; evaluation needs a [`Workspace`].
#[derive(Clone, Debug)]
pub struct Pattern<T> {
    expr: Expr,
    slots: Vec<VarRef>,
    hess: Vec<(u32, u32)>,
    params: Vec<VarRef>,
    vars: Vec<VarRef>,
    value: Program<T>,
    grad: Program<T>,
    /// gradient without the value output (used when no value array is passed)
    grad_only: Program<T>,
    hessp: Program<T>,
    max_real: Option<u32>,
    max_int: Option<u32>,
    /// per first-order slot, its `x` position as `(base, offset)` with `base` a data
    /// column or a constant (`None` when some slot's position is computed): the
    /// objective's gradient can then be added at the positions the `x` loads read
    /// ([`Pattern::eval_gradient_scatter_at_slots`])
    slot_positions: Option<Vec<(ISrc, i64)>>,
    /// native code of `[value, grad, grad_only, hessp]` (and, for an objective pattern,
    /// `[value summed, grad_only scattered, grad_only scattered at the slots' positions]`,
    /// the last one where `slot_positions` is known; for an augmentation,
    /// `[value scattered]`)
    /// when the JIT evaluator is in use
    jit: Option<Arc<JitCode>>,
    /// compiled as an objective term: the JIT also builds the summing and scattering
    /// programs of [`Pattern::eval_value_sum`] and [`Pattern::eval_gradient_scatter`]
    objective: bool,
    /// compiled as an augmentation: the JIT also builds the scattering value program of
    /// [`Pattern::eval_value_scatter`]
    augment: bool,
    /// how the second-order programs were derived
    mode: SecondOrder,
}

/// Data columns (real and integer together) up to which
/// [`Pattern::eval_value_sum_bounded_without_workspace`] keeps their pointers on the stack.
pub const STACK_COLUMNS: usize = 16;

/// Index of the summed value program among the JIT programs.
const JIT_SUM: usize = 4;
/// Index of the scattered gradient program among the JIT programs.
const JIT_SCATTER: usize = 5;
/// Index of the scattered value program among the JIT programs (augmentations).
const JIT_VALUE_SCATTER: usize = 4;
/// Index of the gradient program scattered at the slots' own positions (objectives whose
/// slot positions are data columns or constants).
const JIT_SCATTER_SLOTS: usize = 6;

/// The shortest `x` and `θ` that every program of one pattern reads inside at every point
/// of its data (positions taken from a data column or a constant, which the objective's
/// summing and gradient-scattering programs and a constraint pattern's value, gradient
/// and Hessian programs read without a per-point bounds check).
/// Computed once per data by [`Pattern::index_bounds`] (a pass over the integer columns),
/// e.g. at model build, and passed to [`Pattern::eval_value_sum_bounded`] and
/// [`Pattern::eval_gradient_scatter_bounded`] so a call checks two lengths instead of
/// every position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexBounds {
    /// `x` must have at least this many entries.
    pub x_len: usize,
    /// `θ` must have at least this many entries.
    pub theta_len: usize,
    /// Bit `c` set: integer column `c` (below 64), read by some `x`/`θ` load, counts up by
    /// one over the data's rows (`col[k + 1] == col[k] + 1` for every `k + 1 < data.len`;
    /// always with at most one row). The native code then loads two points' `x`/`θ`
    /// entries at such a column's positions as one 16-byte load (the same positions).
    pub counting_columns: u64,
}

/// A first-order slot's derivative: the slot's position, `∂f/∂slot` and the reference.
pub(crate) type FirstOrder = (crate::Index, Expr, VarRef);

/// A second-order slot `(a, b)` (indices of first-order slots) and `∂²f/∂a∂b`.
pub(crate) type SecondOrderTerm = ((u32, u32), Expr);

/// The derivatives of `expr`: its first-order slots (the unique variable references with a
/// structurally nonzero derivative, in order of first appearance, each with `∂f/∂slot`)
/// and its structurally nonzero second-order slots `(a, b)`, `a >= b` (indices into the
/// first), sorted, each with `∂²f/∂a∂b`, derived as `mode` says.
pub(crate) fn derivatives(
    expr: &Expr,
    mode: SecondOrder,
) -> Result<(Vec<FirstOrder>, Vec<SecondOrderTerm>), AdError> {
    let grad = gradient(expr)?;
    let globals: Vec<&crate::Index> = grad.iter().map(|(g, _, _)| g).collect();
    let slot_of = |g: &crate::Index| globals.iter().position(|h| *h == g);
    let mut hess_entries: Vec<SecondOrderTerm> = Vec::new();
    match mode {
        SecondOrder::ReverseOverReverse => {
            for (s, (_, gs, _)) in grad.iter().enumerate() {
                if gs.as_const().is_some() {
                    continue;
                }
                for (gt, h, _) in gradient(gs)? {
                    if let Some(t) = slot_of(&gt) {
                        if t <= s {
                            hess_entries.push(((s as u32, t as u32), h));
                        }
                    }
                }
            }
        }
        SecondOrder::ForwardOverReverse => {
            let gexprs: Vec<Expr> = grad.iter().map(|(_, g, _)| g.clone()).collect();
            for (t, g) in globals.iter().enumerate() {
                let col = crate::graph::tangent(&gexprs, g)?;
                for (s, h) in col.into_iter().enumerate() {
                    if s >= t && h.as_const() != Some(0.0) {
                        hess_entries.push(((s as u32, t as u32), h));
                    }
                }
            }
        }
    }
    hess_entries.sort_by_key(|(k, _)| *k);
    Ok((grad, hess_entries))
}

/// What an objective pattern's native code adds into ([`Pattern::eval_value_sum`],
/// [`Pattern::eval_gradient_scatter`]).
enum Accumulate<'a, T> {
    /// its values, into the total
    Values(&'a mut T),
    /// its gradient entries, at the positions `globals` (`nslots` per point) of `g`
    Gradient {
        globals: &'a [usize],
        g: &'a mut [T],
    },
    /// its gradient entries, at the slots' own positions in `g`
    GradientAtSlots(&'a mut [T]),
}

/// Per slot, its position as `(base, offset)` where every slot's position is a data
/// column's entry or a constant plus an offset; `None` where one is computed.
fn data_positions(slots: &[VarRef]) -> Option<Vec<(ISrc, i64)>> {
    slots
        .iter()
        .map(|s| match s.global.split_offset() {
            (None, c) => Some((ISrc::C(0), c)),
            (Some(crate::Index::Field(col)), off) => Some((ISrc::F(*col), off)),
            _ => None,
        })
        .collect()
}

/// Whether `plan` was made for `n` points of `step` positions each into `out_len` elements,
/// split into the tasks `par` gives native code with `ws` (else the caller runs on one
/// thread).
fn plan_fits<T>(
    plan: &ScatterPlan,
    n: usize,
    step: usize,
    out_len: usize,
    par: Parallelism,
    ws: &Workspace<T>,
) -> bool {
    plan.points() == n
        && plan.step() == step
        && plan.out_len() == out_len
        && plan.requested_tasks() == native_tasks(par, n, ws.scratch.len())
}

/// Set once the first JIT failure has been logged.
static JIT_FAILURE_LOGGED: AtomicBool = AtomicBool::new(false);

/// Size of one compiled program, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramStats {
    /// Real instructions (including loads and output stores).
    pub instructions: usize,
    /// Distinct computed nodes (after hash-consing).
    pub nodes: usize,
    /// Registers after reuse.
    pub registers: usize,
    /// Integer instructions of the index prologue.
    pub int_instructions: usize,
}

impl<T: Scalar> Pattern<T> {
    /// Compiles `expr` with the default second-order mode.
    pub fn compile(expr: &Expr) -> Result<Self, AdError> {
        Self::compile_with(expr, SecondOrder::default())
    }

    /// Compiles `expr`, deriving second order as `mode` says, for the default evaluator
    /// (the JIT for `f64`).
    pub fn compile_with(expr: &Expr, mode: SecondOrder) -> Result<Self, AdError> {
        Self::compile_for(expr, mode, Evaluator::default())
    }

    /// Compiles `expr` for the given evaluator (the JIT falls back to the interpreter when
    /// it cannot be built; [`Pattern::evaluator`] says which one is in use).
    pub fn compile_for(
        expr: &Expr,
        mode: SecondOrder,
        evaluator: Evaluator,
    ) -> Result<Self, AdError> {
        let mut p = Self::compile_programs(expr, mode)?;
        p.set_evaluator(evaluator);
        Ok(p)
    }

    /// [`Pattern::compile_for`] for a term of an objective sum: with the JIT, the pattern
    /// also gets native code that adds its values into a total
    /// ([`Pattern::eval_value_sum`]) and its gradient entries into a gradient
    /// ([`Pattern::eval_gradient_scatter`]) without an intermediate buffer.
    pub fn compile_objective_for(
        expr: &Expr,
        mode: SecondOrder,
        evaluator: Evaluator,
    ) -> Result<Self, AdError> {
        let mut p = Self::compile_programs(expr, mode)?;
        p.objective = true;
        p.set_evaluator(evaluator);
        Ok(p)
    }

    /// [`Pattern::compile_for`] for terms added into constraint rows (an augmentation):
    /// with the JIT, the pattern also gets native code that adds its values into the rows
    /// ([`Pattern::eval_value_scatter`]) without an intermediate buffer.
    pub fn compile_augment_for(
        expr: &Expr,
        mode: SecondOrder,
        evaluator: Evaluator,
    ) -> Result<Self, AdError> {
        let mut p = Self::compile_programs(expr, mode)?;
        p.augment = true;
        p.set_evaluator(evaluator);
        Ok(p)
    }

    fn compile_programs(expr: &Expr, mode: SecondOrder) -> Result<Self, AdError> {
        let (grad, hess_entries) = derivatives(expr, mode)?;
        let slots: Vec<VarRef> = grad.iter().map(|(_, _, r)| r.clone()).collect();
        let ns = slots.len();
        let value = build::<T>(&[(expr.clone(), 0)], 1)?;
        let mut gouts: Vec<(Expr, u32)> = vec![(expr.clone(), VALUE)];
        gouts.extend(
            grad.iter()
                .enumerate()
                .map(|(s, (_, g, _))| (g.clone(), s as u32)),
        );
        let gradp = build::<T>(&gouts, ns)?;
        let grad_only = build::<T>(&gouts[1..], ns)?;
        let houts: Vec<(Expr, u32)> = hess_entries
            .iter()
            .enumerate()
            .map(|(j, (_, h))| (h.clone(), j as u32))
            .collect();
        let hessp = build::<T>(&houts, houts.len())?;
        let (max_real, max_int) = columns(expr)?;
        let (params, vars) = refs(expr)?;
        let slot_positions = data_positions(&slots);
        Ok(Pattern {
            expr: expr.clone(),
            slots,
            hess: hess_entries.iter().map(|(k, _)| *k).collect(),
            params,
            vars,
            value,
            grad: gradp,
            grad_only,
            hessp,
            max_real,
            max_int,
            slot_positions,
            jit: None,
            objective: false,
            augment: false,
            mode,
        })
    }

    /// Switches evaluators: compiles the native code when `evaluator` is
    /// [`Evaluator::Jit`] and none is built yet (for `f64` patterns; a failure is logged
    /// once and leaves the interpreter in use), drops it for [`Evaluator::Interp`]. Returns
    /// the evaluator now in use.
    pub fn set_evaluator(&mut self, evaluator: Evaluator) -> Evaluator {
        match evaluator {
            Evaluator::Interp => self.jit = None,
            Evaluator::Jit if self.jit.is_none() => self.jit = self.build_jit(),
            Evaluator::Jit => {}
        }
        self.evaluator()
    }

    /// The evaluator in use.
    pub fn evaluator(&self) -> Evaluator {
        if self.jit.is_some() {
            Evaluator::Jit
        } else {
            Evaluator::Interp
        }
    }

    /// Wall time the JIT took to compile this pattern's programs (`None` with the
    /// interpreter).
    pub fn jit_compile_time(&self) -> Option<Duration> {
        self.jit.as_ref().map(|j| j.compile_time)
    }

    /// Each JIT-compiled program's data points per iteration of its widest loop, copies
    /// of its body and calls of the 16-point lane functions (one for both blocks of the
    /// wide loop), in program order (value, gradient with values, gradient, Hessian, then
    /// the objective's or augmentation's kernels); empty without JIT code (for tests).
    #[cfg(test)]
    pub(crate) fn jit_loop_shapes(&self) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let programs = self.jit.as_ref().map_or(&[][..], |j| &j.programs[..]);
        let mut shapes = (Vec::new(), Vec::new(), Vec::new());
        for p in programs {
            shapes.0.push(p.points_per_iteration);
            shapes.1.push(p.bodies);
            shapes.2.push(p.two_block_calls);
        }
        shapes
    }

    fn build_jit(&self) -> Option<Arc<JitCode>> {
        use std::any::Any;
        fn as_f64<T: Scalar>(p: &Program<T>) -> Option<&Program<f64>> {
            (p as &dyn Any).downcast_ref::<Program<f64>>()
        }
        // only f64 programs are compiled
        let mut programs = vec![
            (as_f64(&self.value)?, false, Output::Store),
            (as_f64(&self.grad)?, false, Output::Store),
            (as_f64(&self.grad_only)?, false, Output::Store),
            (as_f64(&self.hessp)?, true, Output::Store),
        ];
        if self.objective {
            // both read x/θ at column positions unchecked: `eval_value_sum*` and
            // `eval_gradient_scatter*` check the bounds
            programs.push((as_f64(&self.value)?, false, Output::Sum));
            programs.push((as_f64(&self.grad_only)?, false, Output::Scatter));
            if self.slot_positions.is_some() {
                // the same, adding at the positions the `x` loads read (unchecked too:
                // `eval_gradient_scatter_at_slots*` check `g`'s length)
                programs.push((as_f64(&self.grad_only)?, false, Output::ScatterAtSlots));
            }
        } else if self.augment {
            programs.push((as_f64(&self.value)?, false, Output::Scatter));
        }
        let inputs: Vec<JitInput<'_>> = programs
            .iter()
            .enumerate()
            .map(|(index, &(program, weighted, output))| JitInput {
                program,
                weighted,
                output,
                unchecked_gathers: (self.objective && index >= JIT_SUM)
                    || (index < JIT_SUM && self.stored_unchecked()),
                slot_positions: (output == Output::ScatterAtSlots)
                    .then_some(self.slot_positions.as_deref())
                    .flatten(),
            })
            .collect();
        match crate::jit::compile(&inputs) {
            Ok(code) => {
                tracing::debug!(
                    compile_ms = code.compile_time.as_secs_f64() * 1e3,
                    "JIT-compiled a pattern's programs"
                );
                Some(Arc::new(code))
            }
            Err(e @ crate::jit::JitError::TooLong { .. }) => {
                tracing::debug!("{e}; this pattern uses the interpreter");
                None
            }
            Err(e) => {
                if !JIT_FAILURE_LOGGED.swap(true, Ordering::Relaxed) {
                    tracing::warn!("{e}; patterns use the interpreter instead");
                }
                None
            }
        }
    }

    /// The native program at `index` of `[value, grad, grad_only, hessp]`, if compiled.
    fn jit_program(&self, index: usize) -> Option<JitProgram> {
        self.jit
            .as_ref()
            .and_then(|j| j.programs.get(index).copied())
    }

    /// Whether the native code of the stored programs `[value, grad, grad_only, hessp]`
    /// reads `x` and `θ` at data-column and constant positions without a per-point
    /// bounds check: for constraint patterns (not objective terms or augmentations), whose
    /// entry points [`Pattern::eval_values`], [`Pattern::eval_gradients`] and
    /// [`Pattern::eval_hessians`] check the positions' range once per call instead
    /// (their `*_bounded` versions against a range computed beforehand).
    fn stored_unchecked(&self) -> bool {
        !self.objective && !self.augment
    }

    /// Runs `program` (with its index among the JIT programs) on points `0..n`: its
    /// native code when the pattern has it (and, where that code reads `x` and `θ`
    /// unchecked, every position is inside: against `bounds`, or the range computed now
    /// when `None`), else the interpreter (which reads NaN outside).
    ///
    /// # Safety
    ///
    /// `bounds`, when given, is what [`Pattern::index_bounds`] returned for data whose
    /// integer columns held, in their first `inputs.data.len` rows, the same values as
    /// `inputs.data`'s now (its positions' range and its counting columns, which the
    /// native code relies on, hold for this data).
    unsafe fn evaluate(
        &self,
        (index, program): (usize, &Program<T>),
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        n: usize,
        outputs: Outputs<'_, T>,
        bounds: Option<&IndexBounds>,
    ) {
        let inside =
            |b: &IndexBounds| inputs.x.len() >= b.x_len && inputs.theta.len() >= b.theta_len;
        let Some(jp) = self.jit_program(index) else {
            return dispatch(program, ws, inputs, n, outputs);
        };
        // the counting columns matter only to code with unchecked gathers
        let counting = if !self.stored_unchecked() {
            Some(0)
        } else {
            bounds
                .copied()
                .or_else(|| self.index_bounds(inputs.data))
                .filter(inside)
                .map(|b| b.counting_columns)
        };
        match counting {
            Some(counting) => {
                // SAFETY: where the program reads `x`/`θ` unchecked, the bounds checked
                // just above cover every position it reads at the points of this data,
                // and `counting` holds the columns that count up by one over its rows
                // (computed now, or beforehand by the caller's contract).
                unsafe { dispatch_jit(jp, program.step, ws, inputs, n, outputs, counting) }
            }
            None => dispatch(program, ws, inputs, n, outputs),
        }
    }

    /// The expression this pattern was compiled from.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// First-order slots: the unique variable references with a structurally nonzero
    /// derivative, in order of first appearance. `out[k*nslots + s]` of
    /// [`Pattern::eval_gradients`] is `∂f/∂slots()[s]` at point `k`.
    pub fn slots(&self) -> &[VarRef] {
        &self.slots
    }

    /// Second-order slots `(a, b)`, `a >= b`, indices into [`Pattern::slots`]: the
    /// structurally nonzero entries of the lower triangle, sorted. Off-diagonal slots hold
    /// the mixed partial once.
    pub fn hess_slots(&self) -> &[(u32, u32)] {
        &self.hess
    }

    /// Unique parameter references (by global index), in order of appearance.
    pub fn params(&self) -> &[VarRef] {
        &self.params
    }

    /// Every unique variable reference the pattern reads (by global index, in order of
    /// appearance), including those with a structurally zero derivative (inside `sign`,
    /// `floor`, `ceil`, ...) that get no slot: use it to validate positions at build time.
    pub fn var_refs(&self) -> &[VarRef] {
        &self.vars
    }

    /// The 0-based `x` position of each of [`Pattern::var_refs`] at data point `point`.
    pub fn var_globals(&self, data: &DataView<'_, T>, point: usize, out: &mut [usize]) {
        for (o, s) in out.iter_mut().zip(&self.vars) {
            *o = usize::try_from(s.global.eval(data, point)).unwrap_or(usize::MAX);
        }
    }

    /// Number of first-order slots (the gradient stride).
    pub fn nslots(&self) -> usize {
        self.slots.len()
    }

    /// Number of second-order slots (the Hessian stride).
    pub fn nhess(&self) -> usize {
        self.hess.len()
    }

    /// Sizes of the value, gradient and Hessian programs.
    pub fn stats(&self) -> [ProgramStats; 3] {
        let st = |p: &Program<T>| ProgramStats {
            instructions: p.ins.len(),
            nodes: p.nodes,
            registers: p.nregs,
            int_instructions: p.iins.len(),
        };
        [st(&self.value), st(&self.grad), st(&self.hessp)]
    }

    /// All scratch memory for evaluating this pattern, with one register file per thread
    /// of rayon's current pool (see [`Workspace`]).
    pub fn workspace(&self) -> Workspace<T> {
        self.workspace_for_tasks(rayon::current_num_threads())
    }

    /// A workspace supporting up to `tasks` parallel tasks (at least 1).
    pub fn workspace_for_tasks(&self, tasks: usize) -> Workspace<T> {
        let nregs = self.value.nregs.max(self.grad.nregs).max(self.hessp.nregs);
        let niregs = self
            .value
            .niregs
            .max(self.grad.niregs)
            .max(self.hessp.niregs);
        let ncols = self.max_real.map_or(0, |c| c as usize + 1)
            + self.max_int.map_or(0, |c| c as usize + 1);
        Workspace {
            scratch: (0..tasks.max(1))
                .map(|_| Scratch::new(nregs, niregs))
                .collect(),
            columns: Vec::with_capacity(ncols),
            pointers: Vec::new(),
        }
    }

    /// Checks that `data` has every column this pattern reads, each with `data.len` rows.
    pub fn check_data(&self, data: &DataView<'_, T>) -> Result<(), AdError> {
        if let Some(c) = self.max_real {
            for col in 0..=c {
                let have = data.reals.get(col as usize).map(|s| s.len());
                if have.is_none_or(|h| h < data.len) {
                    return Err(AdError::MissingColumn {
                        kind: "real",
                        col,
                        len: data.len,
                        have,
                    });
                }
            }
        }
        if let Some(c) = self.max_int {
            for col in 0..=c {
                let have = data.ints.get(col as usize).map(|s| s.len());
                if have.is_none_or(|h| h < data.len) {
                    return Err(AdError::MissingColumn {
                        kind: "integer",
                        col,
                        len: data.len,
                        have,
                    });
                }
            }
        }
        Ok(())
    }

    /// Points that can be evaluated without reading out of bounds: `data.len` when the
    /// data and outputs are consistent (the documented contract), fewer otherwise (and 0
    /// when a column is missing). Debug builds assert consistency.
    fn points(
        &self,
        data: &DataView<'_, T>,
        out_len: usize,
        step: usize,
        extra: &[usize],
    ) -> usize {
        let ok = self.check_data(data).is_ok();
        debug_assert!(
            ok,
            "pattern data is missing columns: {:?}",
            self.check_data(data)
        );
        if !ok {
            return 0;
        }
        let mut n = data.len;
        if step > 0 {
            debug_assert!(
                out_len >= n * step,
                "output slice too short: {out_len} < {} * {step}",
                n
            );
            n = n.min(out_len / step);
        }
        for &e in extra {
            debug_assert!(
                e >= data.len,
                "values/weights slice too short: {e} < {}",
                data.len
            );
            n = n.min(e);
        }
        n
    }

    /// `out[k] = f(point k)` for `k < data.len`.
    ///
    /// For a constraint pattern's native code this entry point checks the range of the
    /// `x`/`θ` positions with a pass over the integer columns ([`Pattern::index_bounds`]);
    /// where the data does not change between calls, compute it once and call
    /// [`Pattern::eval_values_bounded`]. Positions outside `x` or `θ` read NaN either way.
    pub fn eval_values(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        out: &mut [T],
    ) {
        // SAFETY: no bounds given (computed per call where needed).
        unsafe { self.values_with(ws, inputs, out, None) }
    }

    /// [`Pattern::eval_values`] with the positions' range computed beforehand (one
    /// comparison of `x.len()` and `θ.len()` with `bounds` per call).
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`].
    pub unsafe fn eval_values_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        out: &mut [T],
    ) {
        // SAFETY: the same contract.
        unsafe { self.values_with(ws, inputs, out, Some(bounds)) }
    }

    /// # Safety
    ///
    /// As for [`Pattern::evaluate`].
    unsafe fn values_with(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        out: &mut [T],
        bounds: Option<&IndexBounds>,
    ) {
        let data = inputs.data;
        let n = self.points(data, out.len(), 1, &[]);
        let prog = (0, &self.value);
        let outputs = Outputs {
            out,
            values: None,
            weights: None,
        };
        // SAFETY: the caller's contract on `bounds`.
        unsafe { self.evaluate(prog, ws, inputs, n, outputs, bounds) };
    }

    /// The native program `index` (whose output is `output`) and the number of data
    /// points; `None` where it is not compiled.
    fn whole_data_program(
        &self,
        index: usize,
        output: Output,
        data: &DataView<'_, T>,
    ) -> Option<(JitProgram, usize)> {
        let jp = self.jit_program(index).filter(|jp| jp.output == output)?;
        Some((jp, self.points(data, 0, 0, &[])))
    }

    /// Adds `f(point k)` for `k < data.len`, in point order, to `total` (bitwise what
    /// folding [`Pattern::eval_values`]' output onto `total` gives) with native code and
    /// no buffer, on one thread whatever `inputs.par` says (a sum split across threads
    /// would add in another order; the one-thread loop is as fast as adding up values
    /// computed by several threads, since both wait for each addition in turn). Returns
    /// `false`, leaving `total` alone, where that code is not available: the pattern was
    /// not compiled with [`Pattern::compile_objective_for`] or it runs on the interpreter;
    /// the caller then sums [`Pattern::eval_values`]' output.
    ///
    /// This entry point finds the positions' range with a pass over the integer columns
    /// per call ([`Pattern::index_bounds`]); where the data does not change between calls,
    /// compute it once and call [`Pattern::eval_value_sum_bounded`]. Also `false` when a
    /// position of some point is outside `x` or `θ` (the caller's fallback reads NaN
    /// there, as every evaluator does).
    pub fn eval_value_sum(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        total: &mut T,
    ) -> bool {
        self.accumulate_fresh(ws, inputs, Accumulate::Values(total))
    }

    /// [`Pattern::eval_value_sum`] with the positions' range computed beforehand: one
    /// comparison of `x.len()` and `θ.len()` with `bounds` per call instead of a bounds
    /// check per point and position. Returns `false`, leaving `total` alone, where
    /// [`Pattern::eval_value_sum`] does, and when `x` or `θ` is shorter than `bounds`
    /// says (a position would be outside).
    ///
    /// # Safety
    ///
    /// `bounds` is what [`Pattern::index_bounds`] of this pattern returned for data whose
    /// integer columns held, in their first `inputs.data.len` rows, the same values as
    /// `inputs.data`'s now (e.g. computed at model build from columns that are never
    /// modified afterwards). Otherwise the native code may read outside `x` or `θ`.
    pub unsafe fn eval_value_sum_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        total: &mut T,
    ) -> bool {
        // SAFETY: the same contract.
        unsafe { self.sum_bounded(Some(ws), inputs, bounds, total) }
    }

    /// [`Pattern::eval_value_sum_bounded`] without a workspace (a callback that needs no
    /// other scratch memory takes none): the table of column pointers the native code
    /// reads is made on the stack. Returns `false`, leaving `total` alone, where
    /// [`Pattern::eval_value_sum_bounded`] does, and where the data has more than
    /// [`STACK_COLUMNS`] columns in all (then call that one).
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`].
    pub unsafe fn eval_value_sum_bounded_without_workspace(
        &self,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        total: &mut T,
    ) -> bool {
        // SAFETY: the same contract.
        unsafe { self.sum_bounded(None, inputs, bounds, total) }
    }

    /// The two `eval_value_sum_bounded*` entry points: the column table on the stack
    /// where the data has at most [`STACK_COLUMNS`] columns, else in `ws` (`false`
    /// without one).
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`].
    unsafe fn sum_bounded(
        &self,
        ws: Option<&mut Workspace<T>>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        total: &mut T,
    ) -> bool {
        let EvalInputs { data, x, theta, .. } = *inputs;
        if x.len() < bounds.x_len || theta.len() < bounds.theta_len {
            return false;
        }
        let Some((jp, n)) = self.whole_data_program(JIT_SUM, Output::Sum, data) else {
            return false;
        };
        if n == 0 {
            return true;
        }
        let ncols = data.reals.len() + data.ints.len();
        let mut table = [0usize; STACK_COLUMNS];
        let (columns, nreals) = if ncols <= STACK_COLUMNS {
            let pointers = (data.reals.iter().map(|c| c.as_ptr() as usize))
                .chain(data.ints.iter().map(|c| c.as_ptr() as usize));
            for (slot, p) in table.iter_mut().zip(pointers) {
                *slot = p;
            }
            (&table[..ncols], data.reals.len())
        } else if let Some(ws) = ws {
            let nreals = set_columns(ws, data);
            (&ws.columns[..], nreals)
        } else {
            return false;
        };
        let args = JitArgs {
            counting: bounds.counting_columns,
            ..jit_args(columns, nreals, x, theta, total as *mut T as *mut f64)
        };
        // SAFETY: `T` is `f64` (only `f64` patterns have native code). `points` checked
        // that every column the program reads has at least `n` rows; the summing program
        // reads and writes only `out[0]`, which is `total`. Its unchecked `x`/`θ` loads
        // (positions from a data column or a constant) are inside: by the caller's
        // contract `bounds` covers those positions at every point of this data (and its
        // counting columns count up by one over its rows), and `x.len() >= bounds.x_len`,
        // `theta.len() >= bounds.theta_len` was checked above.
        unsafe { jp.call(&args, 0, n) };
        true
    }

    /// The [`IndexBounds`] of this pattern's programs (value, gradient, Hessian) over
    /// `data`: one past the largest `x` and `θ` position any of them reads from a data
    /// column (entry plus the load's offset, over the first `data.len` rows) or a
    /// constant, and of the first-order slots' positions where they are data columns or
    /// constants. `None` when some such position is negative or does not fit `usize`, or a
    /// column it reads is missing or short (then the `*_bounded` entry points must not be
    /// used with this data).
    pub fn index_bounds(&self, data: &DataView<'_, T>) -> Option<IndexBounds> {
        let programs = [&self.value, &self.grad, &self.grad_only, &self.hessp];
        // the slots' positions (where the gradient is added) are among the `x` loads;
        // listed anyway, so the bounds cover them whatever the programs read
        let slots = self.slot_positions.iter().flatten();
        let loads = column_loads(programs.iter().flat_map(|p| &p.ins))
            .chain(slots.map(|&(base, off)| (false, base, off)));
        bounds_of(loads, data)
    }

    /// Adds `∂f/∂slot_s` at point `k` into `g[globals[k*nslots + s]]` for every point and
    /// slot, in that order (bitwise what adding [`Pattern::eval_gradients`]' output into
    /// `g` entry by entry gives), with native code and no buffer, on one thread; a
    /// position at or past `g.len()` is skipped. Returns `false`, leaving `g` alone, where
    /// that code is not available (as for [`Pattern::eval_value_sum`], also when `globals`
    /// holds fewer than `data.len * nslots` positions).
    ///
    /// Like [`Pattern::eval_value_sum`], this entry point finds the positions' range per
    /// call; where the data does not change between calls, compute it once and call
    /// [`Pattern::eval_gradient_scatter_bounded`].
    pub fn eval_gradient_scatter(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        globals: &[usize],
        g: &mut [T],
    ) -> bool {
        self.accumulate_fresh(ws, inputs, Accumulate::Gradient { globals, g })
    }

    /// The safe objective entry points ([`Pattern::eval_value_sum`],
    /// [`Pattern::eval_gradient_scatter`]): their `*_bounded` versions with the positions'
    /// range computed from `inputs.data` now; `false` where the native code is missing or
    /// the data has no range.
    fn accumulate_fresh(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        target: Accumulate<'_, T>,
    ) -> bool {
        let program = match target {
            Accumulate::Values(_) => JIT_SUM,
            Accumulate::Gradient { .. } => JIT_SCATTER,
            Accumulate::GradientAtSlots(_) => JIT_SCATTER_SLOTS,
        };
        // no pass over the columns for a pattern without that code
        if self.jit_program(program).is_none() {
            return false;
        }
        let Some(bounds) = self.index_bounds(inputs.data) else {
            return false;
        };
        // SAFETY: `bounds` was computed from `inputs.data` just now, and the data cannot
        // change while `inputs` borrows it: the contract of both `*_bounded` functions.
        unsafe {
            match target {
                Accumulate::Values(total) => {
                    self.eval_value_sum_bounded(ws, inputs, &bounds, total)
                }
                Accumulate::Gradient { globals, g } => {
                    self.eval_gradient_scatter_bounded(ws, inputs, &bounds, globals, g)
                }
                Accumulate::GradientAtSlots(g) => {
                    self.eval_gradient_scatter_at_slots_bounded(ws, inputs, &bounds, g)
                }
            }
        }
    }

    /// [`Pattern::eval_gradient_scatter`] with the positions' range computed beforehand
    /// (one comparison of `x.len()` and `θ.len()` with `bounds` per call). Returns
    /// `false`, leaving `g` alone, where [`Pattern::eval_gradient_scatter`] does, and when
    /// `x` or `θ` is shorter than `bounds` says.
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`]: `bounds` is what
    /// [`Pattern::index_bounds`] of this pattern returned for data whose integer columns
    /// hold, in their first `inputs.data.len` rows, the same values as `inputs.data`'s now.
    pub unsafe fn eval_gradient_scatter_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        globals: &[usize],
        g: &mut [T],
    ) -> bool {
        // SAFETY: the same contract.
        unsafe { self.eval_gradient_scatter_split_bounded(ws, inputs, bounds, globals, None, g) }
    }

    /// [`Pattern::eval_gradient_scatter_bounded`] split across rayon's pool by `plan`
    /// (bitwise the same gradient, see [`ScatterPlan`]) where it fits: built by
    /// [`ScatterPlan::new`] from `globals` (`nslots` per point, this data's points, output
    /// length `g.len()`) into as many chunks as `inputs.par` makes tasks of this data
    /// with this workspace ([`Pattern::tasks`]). Otherwise, or without a plan, on one
    /// thread.
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`]: `bounds` is what
    /// [`Pattern::index_bounds`] of this pattern returned for data whose integer columns
    /// hold, in their first `inputs.data.len` rows, the same values as `inputs.data`'s now.
    pub unsafe fn eval_gradient_scatter_split_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        globals: &[usize],
        plan: Option<&ScatterPlan>,
        g: &mut [T],
    ) -> bool {
        if inputs.x.len() < bounds.x_len || inputs.theta.len() < bounds.theta_len {
            return false;
        }
        let step = self.nslots();
        let positions = Positions {
            each: globals,
            plan,
        };
        let counting = bounds.counting_columns;
        self.scatter(JIT_SCATTER, step, ws, inputs, positions, g, counting)
    }

    /// Adds `∂f/∂slot_s` at point `k` into `g` at slot `s`'s own position at point `k`
    /// (what [`Pattern::slot_globals`] gives) for every point and slot, in that order, on
    /// one thread: bitwise what [`Pattern::eval_gradient_scatter`] adds with those
    /// positions as `globals`, without an array of positions (the code reads each one
    /// from the data column its `x` load reads) and without a check per position.
    /// Returns `false`, leaving `g` alone, where that code is not available: as for
    /// [`Pattern::eval_gradient_scatter`], and where some slot's position is computed by
    /// the index program (not a data column's entry or a constant plus an offset), or a
    /// position is outside `x`, `θ` or `g`.
    ///
    /// Like [`Pattern::eval_value_sum`], this entry point finds the positions' range per
    /// call; where the data does not change between calls, compute it once and call
    /// [`Pattern::eval_gradient_scatter_at_slots_bounded`].
    pub fn eval_gradient_scatter_at_slots(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        g: &mut [T],
    ) -> bool {
        self.accumulate_fresh(ws, inputs, Accumulate::GradientAtSlots(g))
    }

    /// [`Pattern::eval_gradient_scatter_at_slots`] with the positions' range computed
    /// beforehand: one comparison of `x.len()`, `θ.len()` and `g.len()` with `bounds` per
    /// call. Returns `false`, leaving `g` alone, where
    /// [`Pattern::eval_gradient_scatter_at_slots`] does, and when `x` or `g` is shorter
    /// than `bounds.x_len` or `θ` shorter than `bounds.theta_len`.
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`]: `bounds` is what
    /// [`Pattern::index_bounds`] of this pattern returned for data whose integer columns
    /// hold, in their first `inputs.data.len` rows, the same values as `inputs.data`'s now.
    pub unsafe fn eval_gradient_scatter_at_slots_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        g: &mut [T],
    ) -> bool {
        let EvalInputs { data, x, theta, .. } = *inputs;
        if x.len() < bounds.x_len || theta.len() < bounds.theta_len || g.len() < bounds.x_len {
            return false;
        }
        let Some((jp, n)) =
            self.whole_data_program(JIT_SCATTER_SLOTS, Output::ScatterAtSlots, data)
        else {
            return false;
        };
        if n == 0 {
            return true;
        }
        let nreals = set_columns(ws, data);
        let args = JitArgs {
            counting: bounds.counting_columns,
            ..jit_args(&ws.columns, nreals, x, theta, g.as_mut_ptr() as *mut f64)
        };
        // SAFETY: `T` is `f64` (only `f64` patterns have native code). `points` checked
        // that every column the program reads has at least `n` rows. Its unchecked `x`/`θ`
        // loads and the positions it adds into (the slots' positions, which
        // `index_bounds` covers) are inside: by the caller's contract `bounds` covers
        // them at every point of this data (and its counting columns count up by one
        // over its rows), and `x.len()`, `g.len() >= bounds.x_len`,
        // `theta.len() >= bounds.theta_len` was checked above.
        unsafe { jp.call(&args, 0, n) };
        true
    }

    /// [`Pattern::eval_gradient_scatter_at_slots_bounded`] split across rayon's pool by
    /// `plan` (bitwise the same gradient, see [`ScatterPlan`]) where it fits, as
    /// [`Pattern::eval_gradient_scatter_split_bounded`] splits the scatter through
    /// `globals`: each chunk's points add at the slots' positions, but for those the plan
    /// repeats (some of their positions belong to an earlier chunk), which add through
    /// the plan's positions, as does phase 2. Without a plan that fits, on one thread.
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`], and: `globals` holds the slots'
    /// positions at every point of this data ([`Pattern::slot_globals`], `nslots` per
    /// point) and `plan`, if given, was built from `globals` (otherwise two chunks may
    /// write one element at once).
    pub unsafe fn eval_gradient_scatter_at_slots_split_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        globals: &[usize],
        plan: Option<&ScatterPlan>,
        g: &mut [T],
    ) -> bool {
        let EvalInputs {
            data,
            x,
            theta,
            par,
        } = *inputs;
        let step = self.nslots();
        let n = data.len;
        let plan = plan
            .filter(|plan| globals.len() >= n * step && plan_fits(plan, n, step, g.len(), par, ws));
        let Some(plan) = plan else {
            // SAFETY: the same contract.
            return unsafe { self.eval_gradient_scatter_at_slots_bounded(ws, inputs, bounds, g) };
        };
        if x.len() < bounds.x_len || theta.len() < bounds.theta_len || g.len() < bounds.x_len {
            return false;
        }
        let slots_code = self.whole_data_program(JIT_SCATTER_SLOTS, Output::ScatterAtSlots, data);
        let array_code = self.whole_data_program(JIT_SCATTER, Output::Scatter, data);
        let (Some((direct, n)), Some((array, _))) = (slots_code, array_code) else {
            return false;
        };
        if n != plan.points() {
            return false;
        }
        let nreals = set_columns(ws, data);
        let columns = &ws.columns[..];
        let (out_addr, out_len) = (g.as_mut_ptr() as usize, g.len());
        let counting = bounds.counting_columns;
        let args = || JitArgs {
            counting,
            ..jit_args(columns, nreals, x, theta, out_addr as *mut f64)
        };
        // points `from..to` adding at the slots' positions
        let at_slots = |from: usize, to: usize| {
            // SAFETY: `T` is `f64` (only `f64` patterns have native code); `points`
            // checked the columns' rows; the unchecked `x`/`θ` loads and the slots'
            // positions are inside (and the counting columns count up by one) by the
            // caller's `bounds` contract and the lengths checked above. Chunks running at
            // the same time write disjoint elements of `g`: a point the plan does not
            // repeat has every position owned by its chunk (`ScatterPlan::new`, from
            // `globals`, which are the slots' positions by the caller's contract, all
            // below `g.len()`), and every position has one owner; `g` is not otherwise
            // accessed until they have finished.
            unsafe { direct.call(&args(), from, to) };
        };
        // point `k` adding through `positions` (`step` of them)
        let through = |k: usize, positions: &[usize]| {
            let mut a = args();
            a.globals = positions.as_ptr();
            a.out_len = out_len;
            // SAFETY: as above; the array program reads the point's `step` positions
            // and writes only those below `out_len` (`SKIP` goes to its stack), here
            // the positions its chunk owns (phase 1) or, one point at a time after the
            // chunks (phase 2), those owned by an earlier chunk.
            unsafe { array.call(&a, k, k + 1) };
        };
        (0..plan.tasks()).into_par_iter().for_each(|t| {
            let (first, last, owned) = plan.chunk(t);
            let mut from = first;
            for &k in plan.repeated_in(first, last) {
                if from < k {
                    at_slots(from, k);
                }
                through(k, &owned[(k - first) * step..(k - first + 1) * step]);
                from = k + 1;
            }
            if from < last {
                at_slots(from, last);
            }
        });
        for (k, positions) in plan.repeats() {
            through(k, positions);
        }
        true
    }

    /// The number of tasks `par` splits `points` data points into for native code with
    /// `ws`: the chunks a [`ScatterPlan`] for this workspace needs.
    pub fn tasks(par: Parallelism, points: usize, ws: &Workspace<T>) -> usize {
        native_tasks(par, points, ws.scratch.len())
    }

    /// Adds `f(point k)` into `out[rows[k]]` for every point, in point order (bitwise what
    /// adding [`Pattern::eval_values`]' output into `out` entry by entry gives), with
    /// native code and no buffer, on one thread; a row at or past `out.len()` is skipped.
    /// Returns `false`, leaving `out` alone, where that code is not available: the
    /// pattern was not compiled with [`Pattern::compile_augment_for`], it runs on the
    /// interpreter, or `rows` holds fewer than `data.len` rows.
    pub fn eval_value_scatter(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        rows: &[usize],
        out: &mut [T],
    ) -> bool {
        let positions = Positions {
            each: rows,
            plan: None,
        };
        self.scatter(JIT_VALUE_SCATTER, 1, ws, inputs, positions, out, 0)
    }

    /// Runs the scatter program `index` ([`Output::Scatter`]: `step` outputs per point,
    /// each added into `out` at its position in `positions`) over every point: split
    /// across rayon's pool by `plan` where one is given that fits (its chunks are the
    /// tasks `inputs.par` gives, its positions were `positions` and its output as long as
    /// `out`; see [`ScatterPlan`], bitwise the same sums), else on one thread. `false`,
    /// leaving `out` alone, where that program is not available or `positions` holds
    /// fewer than `data.len * step` entries. `counting` is
    /// [`IndexBounds::counting_columns`] of the bounds the caller checked `x` and `θ`
    /// against (for this data), or 0.
    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &self,
        index: usize,
        step: usize,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        positions: Positions<'_>,
        out: &mut [T],
        counting: u64,
    ) -> bool {
        let Positions {
            each: positions,
            plan,
        } = positions;
        let EvalInputs {
            data,
            x,
            theta,
            par,
        } = *inputs;
        let Some((jp, n)) = self.whole_data_program(index, Output::Scatter, data) else {
            return false;
        };
        if positions.len() < n * step {
            return false;
        }
        if n == 0 || step == 0 {
            return true;
        }
        let plan = plan.filter(|plan| plan_fits(plan, n, step, out.len(), par, ws));
        let nreals = set_columns(ws, data);
        let Some(plan) = plan else {
            let mut args = jit_args(&ws.columns, nreals, x, theta, out.as_mut_ptr() as *mut f64);
            args.counting = counting;
            args.globals = positions.as_ptr();
            args.out_len = out.len();
            // SAFETY: `T` is `f64` (only `f64` patterns have native code). `points`
            // checked that every column the program reads has at least `n` rows;
            // `positions` holds the `n * step` positions the program reads, and it writes
            // `out` only at positions below `out.len()` (others go to a slot on its
            // stack). The one program here with unchecked `x`/`θ` loads, the objective's
            // gradient scatter, is reached only from `eval_gradient_scatter_bounded`,
            // which checked `x` and `θ` against bounds that cover those loads at every
            // point of this data and passed their counting columns (its caller's
            // contract).
            unsafe { jp.call(&args, 0, n) };
            return true;
        };
        let columns = &ws.columns[..];
        let (out_addr, out_len) = (out.as_mut_ptr() as usize, out.len());
        let run = |first: usize, last: usize, positions: &[usize]| {
            debug_assert_eq!(positions.len(), (last - first) * step);
            let mut args = jit_args(columns, nreals, x, theta, out_addr as *mut f64);
            args.counting = counting;
            args.globals = positions.as_ptr();
            args.out_len = out_len;
            // SAFETY: as in the one-thread call above, with the plan's positions of points
            // `first..last` (`step` per point, each below `out.len()` or `SKIP`, which the
            // program does not write). Chunks running at the same time write disjoint
            // elements of `out`: a plan's phase-1 positions of a chunk are the ones it
            // owns, and every position has one owner (`ScatterPlan::new`); `out` is not
            // otherwise accessed until they have finished.
            unsafe { jp.call(&args, first, last) };
        };
        (0..plan.tasks()).into_par_iter().for_each(|t| {
            let (first, last, positions) = plan.chunk(t);
            run(first, last, positions);
        });
        for (k, positions) in plan.repeats() {
            run(k, k + 1, positions);
        }
        true
    }

    /// `out[k*nslots + s] = ∂f/∂slot_s` at point `k`; `values[k] = f(point k)` if given.
    /// (As [`Pattern::eval_values`], a range check per call; see
    /// [`Pattern::eval_gradients_bounded`].)
    pub fn eval_gradients(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        values: Option<&mut [T]>,
        out: &mut [T],
    ) {
        // SAFETY: no bounds given (computed per call where needed).
        unsafe { self.gradients_with(ws, inputs, values, out, None) }
    }

    /// [`Pattern::eval_gradients`] with the positions' range computed beforehand.
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`].
    pub unsafe fn eval_gradients_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        values: Option<&mut [T]>,
        out: &mut [T],
    ) {
        // SAFETY: the same contract.
        unsafe { self.gradients_with(ws, inputs, values, out, Some(bounds)) }
    }

    /// # Safety
    ///
    /// As for [`Pattern::evaluate`].
    unsafe fn gradients_with(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        values: Option<&mut [T]>,
        out: &mut [T],
        bounds: Option<&IndexBounds>,
    ) {
        let data = inputs.data;
        let vl = values.as_ref().map(|v| v.len());
        let n = self.points(data, out.len(), self.nslots(), vl.as_slice());
        let prog = if values.is_some() {
            (1, &self.grad)
        } else {
            (2, &self.grad_only)
        };
        let outputs = Outputs {
            out,
            values,
            weights: None,
        };
        // SAFETY: the caller's contract on `bounds`.
        unsafe { self.evaluate(prog, ws, inputs, n, outputs, bounds) };
    }

    /// `out[k*nhess + h] = weights[k] * ∂²f/∂a∂b` for second-order slot `h = (a, b)`.
    /// (As [`Pattern::eval_values`], a range check per call; see
    /// [`Pattern::eval_hessians_bounded`].)
    pub fn eval_hessians(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        weights: &[T],
        out: &mut [T],
    ) {
        // SAFETY: no bounds given (computed per call where needed).
        unsafe { self.hessians_with(ws, inputs, weights, out, None) }
    }

    /// [`Pattern::eval_hessians`] with the positions' range computed beforehand.
    ///
    /// # Safety
    ///
    /// As for [`Pattern::eval_value_sum_bounded`].
    pub unsafe fn eval_hessians_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        weights: &[T],
        out: &mut [T],
    ) {
        // SAFETY: the same contract.
        unsafe { self.hessians_with(ws, inputs, weights, out, Some(bounds)) }
    }

    /// # Safety
    ///
    /// As for [`Pattern::evaluate`].
    unsafe fn hessians_with(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        weights: &[T],
        out: &mut [T],
        bounds: Option<&IndexBounds>,
    ) {
        let data = inputs.data;
        let n = self.points(data, out.len(), self.nhess(), &[weights.len()]);
        let prog = (3, &self.hessp);
        let outputs = Outputs {
            out,
            values: None,
            weights: Some(weights),
        };
        // SAFETY: the caller's contract on `bounds`.
        unsafe { self.evaluate(prog, ws, inputs, n, outputs, bounds) };
    }

    /// The 0-based `x` position of each first-order slot at data point `point`
    /// (`out.len()` must be at least `nslots()`; a negative position gives `usize::MAX`).
    pub fn slot_globals(&self, data: &DataView<'_, T>, point: usize, out: &mut [usize]) {
        for (o, s) in out.iter_mut().zip(&self.slots) {
            *o = usize::try_from(s.global.eval(data, point)).unwrap_or(usize::MAX);
        }
    }

    /// The 0-based `θ` position of each parameter reference at data point `point`.
    pub fn param_globals(&self, data: &DataView<'_, T>, point: usize, out: &mut [usize]) {
        for (o, s) in out.iter_mut().zip(&self.params) {
            *o = usize::try_from(s.global.eval(data, point)).unwrap_or(usize::MAX);
        }
    }

    pub(crate) fn programs(&self) -> [&Program<T>; 3] {
        [&self.value, &self.grad, &self.hessp]
    }

    /// How the second-order programs were derived.
    pub(crate) fn second_order(&self) -> SecondOrder {
        self.mode
    }

    /// The largest real and integer data columns the pattern reads.
    pub(crate) fn columns_read(&self) -> (Option<u32>, Option<u32>) {
        (self.max_real, self.max_int)
    }

    /// The `f64` value, gradient (without the value) and Hessian programs, for native code
    /// of a group of patterns (`None` for other scalar types).
    pub(crate) fn group_programs(&self) -> Option<[&Program<f64>; 3]> {
        use std::any::Any;
        fn as_f64<T: Scalar>(p: &Program<T>) -> Option<&Program<f64>> {
            (p as &dyn Any).downcast_ref::<Program<f64>>()
        }
        Some([
            as_f64(&self.value)?,
            as_f64(&self.grad_only)?,
            as_f64(&self.hessp)?,
        ])
    }
}

/// Where a scatter program adds its outputs: `step` positions per point, and optionally
/// a plan that splits the work across threads (see `Pattern::scatter`).
#[derive(Clone, Copy)]
struct Positions<'a> {
    each: &'a [usize],
    plan: Option<&'a ScatterPlan>,
}

/// Runs `p` on points `0..n` with the interpreter, split across rayon's pool as
/// `inputs.par` says.
fn dispatch<T: Scalar>(
    p: &Program<T>,
    ws: &mut Workspace<T>,
    inputs: &EvalInputs<'_, '_, T>,
    n: usize,
    outputs: Outputs<'_, T>,
) {
    let par = inputs.par;
    let Outputs {
        out,
        values,
        weights,
    } = outputs;
    if ws.scratch.is_empty() {
        ws.scratch.push(Scratch::new(p.nregs, p.niregs));
    }
    let tasks = tasks(par, n, ws.scratch.len());
    let step = p.step;
    if tasks <= 1 {
        let mut o = Outputs {
            out,
            values,
            weights,
        };
        run(p, &mut ws.scratch[0], inputs, 0..n, &mut o);
        return;
    }
    let chunk = n.div_ceil(tasks).div_ceil(LANES) * LANES;
    let tasks = n.div_ceil(chunk);
    let out = &mut out[..n * step];
    let mut values = values.map(|v| &mut v[..n]);
    // one (scratch, out chunk, values chunk) per task; no allocation: rayon's zip over
    // slices of the workspace and the outputs
    let scratch = &mut ws.scratch[..tasks];
    let run_task =
        |(t, sc): (usize, &mut Scratch<T>), o_chunk: &mut [T], v_chunk: Option<&mut [T]>| {
            let first = t * chunk;
            let last = (first + chunk).min(n);
            let mut o = Outputs {
                out: o_chunk,
                values: v_chunk,
                weights: weights.map(|w| &w[first..last]),
            };
            run(p, sc, inputs, first..last, &mut o);
        };
    if step == 0 {
        // no per-point outputs except possibly values
        if let Some(v) = values.take() {
            scratch
                .par_iter_mut()
                .enumerate()
                .zip(v.par_chunks_mut(chunk))
                .for_each(|(ts, vc)| run_task(ts, &mut [], Some(vc)));
        }
        return;
    }
    match values.take() {
        Some(v) => scratch
            .par_iter_mut()
            .enumerate()
            .zip(
                out.par_chunks_mut(chunk * step)
                    .zip(v.par_chunks_mut(chunk)),
            )
            .for_each(|(ts, (oc, vc))| run_task(ts, oc, Some(vc))),
        None => scratch
            .par_iter_mut()
            .enumerate()
            .zip(out.par_chunks_mut(chunk * step))
            .for_each(|(ts, oc)| run_task(ts, oc, None)),
    }
}

/// The number of tasks the interpreter splits the points `0..n` into under `par` with
/// `scratch` register files (one per task).
pub(crate) fn tasks(par: Parallelism, n: usize, scratch: usize) -> usize {
    match par {
        Parallelism::Rayon { min_batch, .. } => {
            n.div_ceil(min_batch.max(LANES)).min(scratch).max(1)
        }
        _ => 1,
    }
}

/// Native tasks per register file of the workspace (which has one per pool thread).
const NATIVE_TASKS_PER_THREAD: usize = 4;

/// The number of tasks native code splits the points `0..n` into under `par` with a
/// workspace of `scratch` register files: as [`tasks`], but up to
/// [`NATIVE_TASKS_PER_THREAD`] per register file (native code keeps its registers in
/// machine registers). More tasks than threads let a thread that is ahead take the
/// tasks of one that was held up (another process on its core), where one task per
/// thread makes every call wait for the slowest thread.
pub(crate) fn native_tasks(par: Parallelism, n: usize, scratch: usize) -> usize {
    match par {
        Parallelism::Rayon { min_batch, .. } => n
            .div_ceil(min_batch.max(LANES))
            .min(scratch.saturating_mul(NATIVE_TASKS_PER_THREAD))
            .max(1),
        _ => 1,
    }
}

/// Puts the base pointers of `data`'s real columns, then its integer columns, into
/// `ws.columns`; returns the number of real columns.
pub(crate) fn set_columns<T: Scalar>(ws: &mut Workspace<T>, data: &DataView<'_, T>) -> usize {
    set_columns_with(ws, data, data.reals.len(), std::iter::empty())
}

/// [`set_columns`] with `data`'s first `data_reals` real columns (at most all of them),
/// then the base pointers `extra` as further real columns, then `data`'s integer columns;
/// returns the number of real columns.
pub(crate) fn set_columns_with<T: Scalar>(
    ws: &mut Workspace<T>,
    data: &DataView<'_, T>,
    data_reals: usize,
    extra: impl Iterator<Item = usize>,
) -> usize {
    ws.columns.clear();
    let reals = &data.reals[..data_reals.min(data.reals.len())];
    ws.columns.extend(reals.iter().map(|c| c.as_ptr() as usize));
    ws.columns.extend(extra);
    let nreals = ws.columns.len();
    ws.columns
        .extend(data.ints.iter().map(|c| c.as_ptr() as usize));
    nreals
}

/// The arguments of a JIT-compiled program for the column pointers `columns` (from
/// [`set_columns`], `nreals` real ones first), `x` and `θ`, writing to `out` (no values,
/// weights or positions).
pub(crate) fn jit_args<T: Scalar>(
    columns: &[usize],
    nreals: usize,
    x: &[T],
    theta: &[T],
    out: *mut f64,
) -> JitArgs {
    JitArgs {
        x: x.as_ptr() as *const f64,
        x_len: x.len(),
        theta: theta.as_ptr() as *const f64,
        theta_len: theta.len(),
        reals: columns.as_ptr() as *const *const f64,
        ints: columns[nreals..].as_ptr() as *const *const i64,
        out,
        values: std::ptr::null_mut(),
        weights: std::ptr::null(),
        nan: nan_ptr(),
        globals: std::ptr::null(),
        out_len: 0,
        outs: std::ptr::null(),
        wts: std::ptr::null(),
        counting: 0,
    }
}

/// Runs a JIT-compiled program on points `0..n`, split across rayon's pool like
/// [`dispatch`] (`T` is `f64`: the pattern only has native code then).
///
/// # Safety
///
/// Where `jp` was compiled with unchecked gathers, every `x`/`θ` position it reads from a
/// data column or a constant at the points `0..n` of `inputs.data` is inside `x`/`θ`, and
/// every integer column whose bit is set in `counting` counts up by one over the rows
/// `0..n` of `inputs.data` ([`IndexBounds::counting_columns`]; 0 is always sound).
unsafe fn dispatch_jit<T: Scalar>(
    jp: JitProgram,
    step: usize,
    ws: &mut Workspace<T>,
    inputs: &EvalInputs<'_, '_, T>,
    n: usize,
    outputs: Outputs<'_, T>,
    counting: u64,
) {
    let EvalInputs {
        data,
        x,
        theta,
        par,
    } = *inputs;
    let Outputs {
        out,
        values,
        weights,
    } = outputs;
    if n == 0 {
        return;
    }
    // the callers pick the program that matches the outputs they pass
    if (jp.writes_values && values.is_none())
        || jp.weighted != weights.is_some()
        || jp.output != Output::Store
    {
        debug_assert!(false, "JIT program does not match the outputs passed");
        return;
    }
    let values = if jp.writes_values {
        values.map(|v| &mut v[..n])
    } else {
        None
    };
    if step == 0 && values.is_none() {
        return;
    }
    let tasks = native_tasks(par, n, ws.scratch.len());
    let nreals = set_columns(ws, data);
    let columns = &ws.columns[..];
    let chunk = n.div_ceil(tasks);
    let run_task = |first: usize, o_chunk: &mut [T], v_chunk: Option<&mut [T]>| {
        let last = (first + chunk).min(n);
        let args = JitArgs {
            values: v_chunk.map_or(std::ptr::null_mut(), |v| v.as_mut_ptr() as *mut f64),
            weights: weights.map_or(std::ptr::null(), |w| w[first..].as_ptr() as *const f64),
            counting,
            ..jit_args(columns, nreals, x, theta, o_chunk.as_mut_ptr() as *mut f64)
        };
        debug_assert!(o_chunk.len() >= (last - first) * step);
        // SAFETY: `T` is `f64` (only `f64` patterns have native code), so every pointer
        // above points at `f64`s. `points` checked that every column the program reads has
        // at least `data.len >= n > last - 1` rows and that `out`, `values` and `weights`
        // hold `n` points; each task gets the chunks of points `first..last`. Unchecked
        // `x`/`θ` positions are inside, and the columns of `counting` count up by one
        // over these rows, by this function's contract.
        unsafe { jp.call(&args, first, last) };
    };
    let out = &mut out[..n * step];
    if tasks <= 1 {
        run_task(0, out, values);
        return;
    }
    match (step, values) {
        (0, Some(v)) => v
            .par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(t, vc)| run_task(t * chunk, &mut [], Some(vc))),
        (_, Some(v)) => out
            .par_chunks_mut(chunk * step)
            .zip(v.par_chunks_mut(chunk))
            .enumerate()
            .for_each(|(t, (oc, vc))| run_task(t * chunk, oc, Some(vc))),
        (_, None) => out
            .par_chunks_mut(chunk * step)
            .enumerate()
            .for_each(|(t, oc)| run_task(t * chunk, oc, None)),
    }
}

impl<T: Scalar> Pattern<T> {
    /// A human-readable listing of the value, gradient and Hessian programs (one
    /// instruction per line), for inspection and reports.
    pub fn listing(&self) -> String {
        let mut s = String::new();
        for (name, p) in ["value", "gradient", "hessian"].iter().zip(self.programs()) {
            s.push_str(&format!("{name}: {} registers, step {}\n", p.nregs, p.step));
            for i in &p.iins {
                s.push_str(&format!("  {i:?}\n"));
            }
            for i in &p.ins {
                s.push_str(&format!("  {i:?}\n"));
            }
            s.push_str(&format!("  outputs: {:?}\n", p.out_regs));
        }
        s
    }
}

/// One `x` or `θ` load of a program: whether it reads `θ`, where its position comes from,
/// and the offset added to it.
pub(crate) type Load = (bool, ISrc, i64);

/// The `x` and `θ` loads among `ins`.
pub(crate) fn column_loads<'a, T: 'a>(
    ins: impl IntoIterator<Item = &'a Ins<T>>,
) -> impl Iterator<Item = Load> {
    ins.into_iter().filter_map(|ins| match *ins {
        Ins::X { idx, off, .. } => Some((false, idx, off)),
        Ins::P { idx, off, .. } => Some((true, idx, off)),
        _ => None,
    })
}

/// Whether `column` counts up by one from row to row (`column[k + 1] == column[k] + 1`).
fn counts_up(column: &[i64]) -> bool {
    column.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]))
}

/// The [`IndexBounds`] of `loads` over `data` (see [`Pattern::index_bounds`]): loads at
/// computed positions are left out (they keep their per-point check).
pub(crate) fn bounds_of<T>(
    loads: impl IntoIterator<Item = Load>,
    data: &DataView<'_, T>,
) -> Option<IndexBounds> {
    let mut bounds = IndexBounds {
        x_len: 0,
        theta_len: 0,
        counting_columns: 0,
    };
    for (theta, idx, off) in loads {
        let need = if theta {
            &mut bounds.theta_len
        } else {
            &mut bounds.x_len
        };
        let (lo, hi) = match idx {
            ISrc::C(c) => (c, c),
            ISrc::F(col) => {
                let column = data.ints.get(col as usize)?.get(..data.len)?;
                let lo = column.iter().copied().min();
                let hi = column.iter().copied().max();
                if col < 64 && counts_up(column) {
                    bounds.counting_columns |= 1 << col;
                }
                match (lo, hi) {
                    (Some(lo), Some(hi)) => (lo, hi),
                    _ => continue,
                }
            }
            // computed positions keep their per-point check
            ISrc::R(_) => continue,
        };
        let lo = lo.checked_add(off)?;
        let hi = hi.checked_add(off)?;
        if lo < 0 {
            return None;
        }
        let end = usize::try_from(hi).ok()?.checked_add(1)?;
        *need = (*need).max(end);
    }
    Some(bounds)
}
