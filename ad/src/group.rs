//! Groups of patterns over the same data points, evaluated by one native loop per
//! callback with the work the members share done once.
//!
//! The flows of an AC power network are four patterns over the branches: each reads the
//! same voltages and angles and takes `sin` and `cos` of the same angle difference. Their
//! separate programs do that work four times per branch; a [`PatternGroup`] compiles the
//! members' value and gradient programs into one loop each, where the members'
//! instructions share one value numbering: identical data and variable loads, identical
//! pure operations on identical operands and identical `exp`/`sin`/`cos` calls are
//! emitted once. Each member still writes its own values and gradients (at its own place
//! in the caller's arrays), computed by the same operations on the same operands as in
//! the member's own code: bit-identical to the members' own code (and the interpreter).
//!
//! The members' weighted Hessians are summed into one block per point with one entry per
//! distinct pair of variable references ([`GroupHessian`]: the four flows of a branch give
//! 10 entries, not 40). That block is computed in one sweep: the Hessian of the members'
//! weighted sum `Σ_m w_m f_m` (the weights read like data columns), whose reverse sweeps
//! add the members' adjoints of a shared subexpression (the flows' `vm_f vm_t cos θ`)
//! before differentiating through it once, instead of every member's Hessian weighted and
//! added up. Other operations than that sum, so equal to it up to rounding (the tests
//! ask for 1e-14 relative to the terms' magnitudes), not bitwise; where the sum cannot be
//! derived the group falls back to the members' weighted programs added in member order
//! (bit-identical to that sum).

use crate::data::DataView;
use crate::eval::{EvalInputs, Scratch, Workspace};
use crate::expr::{Expr, funcs};
use crate::index::Index;
use crate::jit::{GroupFunction, JitArgs, JitCode, SumInto, compile_group};
use crate::pattern::{
    IndexBounds, Load, Pattern, bounds_of, column_loads, derivatives, jit_args, native_tasks,
    set_columns, set_columns_with,
};
use crate::program::{Program, build};
use crate::scalar::Scalar;
use rayon::prelude::*;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set once the first group compile failure has been logged.
static GROUP_FAILURE_LOGGED: AtomicBool = AtomicBool::new(false);

/// Index of each callback's function in the group's code.
const VALUES: usize = 0;
const GRADIENTS: usize = 1;
const HESSIANS: usize = 2;
/// Per function: compiled with unchecked `x`/`θ` loads at column or constant positions
/// (then `run` needs [`IndexBounds`] and checks `x` and `θ` against them).
const UNCHECKED: [bool; 3] = [true, true, true];

/// The summed Hessian block of patterns over the same data points: one entry per
/// distinct unordered pair of variable references among the members' second-order slots
/// (two slots are the same reference when their `global` positions are structurally
/// equal, so they name the same `x` entry at every point).
///
/// Entries are numbered in order of first appearance: member by member, each member's
/// second-order slots in order. Entry `e` of point `k` is the sum of the weighted terms
/// `w_m[k] · ∂²f_m/∂a∂b` of every member slot mapped to it ([`PatternGroup::eval_hessians`]
/// computes it as the Hessian of the weighted sum, equal up to rounding to the first term
/// in that order plus the later ones left to right, which is how a caller sums the
/// members' own [`Pattern::eval_hessians`] outputs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupHessian {
    /// per entry: the member whose second-order slot `(a, b)` (indices into that member's
    /// [`Pattern::slots`]) first maps to it; that slot gives the entry's position in `x`
    pub entries: Vec<(usize, u32, u32)>,
    /// per member, per second-order slot of the member ([`Pattern::hess_slots`] order):
    /// its entry
    pub entry_of: Vec<Vec<u32>>,
}

impl GroupHessian {
    /// The summed block of `patterns` (in this order), which the caller evaluates over
    /// the same data points.
    pub fn of<T: Scalar>(patterns: &[&Pattern<T>]) -> Self {
        let mut by_pair: HashMap<(&Index, &Index), u32> = HashMap::new();
        let mut entries = Vec::new();
        let entry_of = patterns
            .iter()
            .enumerate()
            .map(|(m, p)| {
                let slots = p.slots();
                p.hess_slots()
                    .iter()
                    .map(|&(a, b)| {
                        let (ga, gb) = (&slots[a as usize].global, &slots[b as usize].global);
                        let key = if ga <= gb { (ga, gb) } else { (gb, ga) };
                        *by_pair.entry(key).or_insert_with(|| {
                            entries.push((m, a, b));
                            (entries.len() - 1) as u32
                        })
                    })
                    .collect()
            })
            .collect();
        GroupHessian { entries, entry_of }
    }

    /// Entries per data point.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the block has no entry (no member has second-order slots).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Native code for several patterns over the same data points (see the module docs): one
/// loop per callback (values, gradients, Hessians) over the points, each member writing
/// the same values and gradients as its own [`Pattern::eval_values`] and
/// [`Pattern::eval_gradients`] (without values), at an offset of its own in one output
/// array, and the members' weighted Hessians summed into one block ([`GroupHessian`]).
/// Only for `f64` patterns; `Send + Sync`.
pub struct PatternGroup<T> {
    code: Arc<JitCode>,
    /// the summed Hessian block
    hessian: GroupHessian,
    /// per member: first-order and second-order slots (the gradient and Hessian strides)
    steps: Vec<(usize, usize)>,
    /// the largest real and integer columns any member reads
    max_real: Option<u32>,
    max_int: Option<u32>,
    /// the members' `x`/`θ` loads (for [`PatternGroup::index_bounds`])
    loads: Vec<Load>,
    /// the Hessian function is the summed program ([`summed_hessian`]), which reads member
    /// `m`'s weights as real data column `weight_column + m`; `None`: it is the members'
    /// programs with their weighted outputs added into the block
    weight_column: Option<u32>,
    _scalar: PhantomData<fn() -> T>,
}

impl<T> Clone for PatternGroup<T> {
    fn clone(&self) -> Self {
        PatternGroup {
            code: self.code.clone(),
            hessian: self.hessian.clone(),
            steps: self.steps.clone(),
            max_real: self.max_real,
            max_int: self.max_int,
            loads: self.loads.clone(),
            weight_column: self.weight_column,
            _scalar: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for PatternGroup<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PatternGroup({} members, {:?})",
            self.steps.len(),
            self.code
        )
    }
}

impl<T: Scalar> PatternGroup<T> {
    /// Compiles the group of `patterns` (in this order: member `m` is `patterns[m]`), which
    /// the caller evaluates over the same data points. `None` for `f32` patterns, no
    /// pattern, or when the native code cannot be built (logged once; evaluate the
    /// patterns one by one then).
    pub fn compile(patterns: &[&Pattern<T>]) -> Option<Self> {
        if patterns.is_empty() {
            return None;
        }
        let programs: Vec<[&crate::program::Program<f64>; 3]> = patterns
            .iter()
            .map(|p| p.group_programs())
            .collect::<Option<_>>()?;
        let hessian = GroupHessian::of(patterns);
        let sum_into = SumInto {
            entry_of: &hessian.entry_of,
            entries: hessian.len(),
        };
        // the weights of the summed Hessian are real columns after the data's
        let (mut max_real, mut max_int) = (None, None);
        for p in patterns {
            let (r, i) = p.columns_read();
            max_real = max_real.max(r);
            max_int = max_int.max(i);
        }
        let weight_column = max_real.map_or(0, |c| c + 1);
        let summed = summed_hessian(patterns, &hessian, weight_column);
        let functions: Vec<GroupFunction<'_>> = [VALUES, GRADIENTS, HESSIANS]
            .iter()
            .map(|&f| match (&summed, f) {
                (Some(summed), HESSIANS) => GroupFunction {
                    members: vec![(summed, false)],
                    sum_into: None,
                    unchecked_gathers: UNCHECKED[f],
                },
                _ => GroupFunction {
                    members: programs.iter().map(|p| (p[f], f == HESSIANS)).collect(),
                    sum_into: (f == HESSIANS).then_some(sum_into),
                    // `run` checks `x`/`θ` against the bounds of every member's loads
                    unchecked_gathers: UNCHECKED[f],
                },
            })
            .collect();
        let code = match compile_group(&functions) {
            Ok(code) => code,
            Err(e @ crate::jit::JitError::TooLong { .. }) => {
                tracing::debug!("{e}; the patterns of a group are evaluated one by one");
                return None;
            }
            Err(e) => {
                if !GROUP_FAILURE_LOGGED.swap(true, Ordering::Relaxed) {
                    tracing::warn!("{e}; the patterns of a group are evaluated one by one");
                }
                return None;
            }
        };
        tracing::debug!(
            members = patterns.len(),
            compile_ms = code.compile_time.as_secs_f64() * 1e3,
            "JIT-compiled a group of patterns"
        );
        // each distinct load once (bounds scan a column per load)
        let mut loads: Vec<Load> = Vec::new();
        let all = programs.iter().flatten().copied().chain(summed.as_ref());
        for load in column_loads(all.flat_map(|p| &p.ins)) {
            if !loads.contains(&load) {
                loads.push(load);
            }
        }
        Some(PatternGroup {
            code: Arc::new(code),
            hessian,
            steps: patterns.iter().map(|p| (p.nslots(), p.nhess())).collect(),
            max_real,
            max_int,
            loads,
            weight_column: summed.is_some().then_some(weight_column),
            _scalar: PhantomData,
        })
    }

    /// Number of member patterns.
    pub fn members(&self) -> usize {
        self.steps.len()
    }

    /// The summed Hessian block the group's Hessians are written as.
    pub fn hessian(&self) -> &GroupHessian {
        &self.hessian
    }

    /// Wall time of compiling the group's three functions.
    pub fn compile_time(&self) -> Duration {
        self.code.compile_time
    }

    /// A workspace for this group's evaluations (one task per thread of rayon's current
    /// pool); evaluation then allocates nothing.
    pub fn workspace(&self) -> Workspace<T> {
        // the data's columns, and the members' weights for the summed Hessian
        let ncols = self.max_real.map_or(0, |c| c as usize + 1)
            + self.max_int.map_or(0, |c| c as usize + 1)
            + self.steps.len();
        Workspace {
            scratch: (0..rayon::current_num_threads().max(1))
                .map(|_| Scratch::new(1, 1))
                .collect(),
            columns: Vec::with_capacity(ncols),
            pointers: Vec::with_capacity(2 * self.steps.len()),
        }
    }

    /// Member `m`'s values: `out[offsets[m] + k] = f_m(point k)` for `k < data.len`.
    ///
    /// Returns `false` and writes nothing when the arguments do not fit: `offsets` is not
    /// one per member, a member's range is outside `out` or overlaps another's, or `data`
    /// lacks a column a member reads.
    ///
    /// Also `false` when a member's position is negative; this entry point finds the
    /// positions' range per call ([`PatternGroup::index_bounds`]); where the data does not
    /// change between calls, compute it once and call [`PatternGroup::eval_values_bounded`].
    pub fn eval_values(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        out: &mut [T],
        offsets: &[usize],
    ) -> bool {
        self.run_fresh(ws, inputs, GroupCall::outputs(VALUES, out, offsets))
    }

    /// [`PatternGroup::eval_values`] with the positions' range computed beforehand (one
    /// comparison of `x.len()` and `θ.len()` with `bounds` per call); `false`, writing
    /// nothing, also when `x` or `θ` is shorter than `bounds` says.
    ///
    /// # Safety
    ///
    /// `bounds` is what [`PatternGroup::index_bounds`] of this group returned for data
    /// whose integer columns hold, in their first `inputs.data.len` rows, the same values
    /// as `inputs.data`'s now.
    pub unsafe fn eval_values_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        out: &mut [T],
        offsets: &[usize],
    ) -> bool {
        // SAFETY: `run`'s contract on `bounds` is this function's.
        unsafe { self.run(ws, inputs, bounds, GroupCall::outputs(VALUES, out, offsets)) }
    }

    /// Member `m`'s gradients: `out[offsets[m] + k * nslots_m + s] = ∂f_m/∂slot_s` at
    /// point `k` (no values). Returns `false` and writes nothing where
    /// [`PatternGroup::eval_values`] does.
    pub fn eval_gradients(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        out: &mut [T],
        offsets: &[usize],
    ) -> bool {
        self.run_fresh(ws, inputs, GroupCall::outputs(GRADIENTS, out, offsets))
    }

    /// [`PatternGroup::eval_gradients`] with the positions' range computed beforehand, as
    /// [`PatternGroup::eval_values_bounded`].
    ///
    /// # Safety
    ///
    /// As for [`PatternGroup::eval_values_bounded`].
    pub unsafe fn eval_gradients_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        out: &mut [T],
        offsets: &[usize],
    ) -> bool {
        // SAFETY: `run`'s contract on `bounds` is this function's.
        unsafe {
            self.run(
                ws,
                inputs,
                bounds,
                GroupCall::outputs(GRADIENTS, out, offsets),
            )
        }
    }

    /// The [`IndexBounds`] of the members' programs over `data` (see
    /// [`Pattern::index_bounds`]).
    pub fn index_bounds(&self, data: &DataView<'_, T>) -> Option<IndexBounds> {
        bounds_of(self.loads.iter().copied(), data)
    }

    /// The members' weighted Hessians summed into one block per point
    /// ([`PatternGroup::hessian`]): `out[offset + k * entries + e] = Σ w_m[k] *
    /// ∂²f_m/∂a∂b` over the member slots `h = (a, b)` with `entry_of[m][h] = e`, where
    /// `w_m[k] = weights.values[weights.offsets[m] + k]`, computed as the Hessian of the
    /// weighted sum `Σ_m w_m f_m` in one sweep (see the module docs: equal to the terms
    /// added up to rounding, not bitwise).
    /// Returns `false` and writes nothing when the block is outside `out`, `data` lacks a
    /// column a member reads, `weights.offsets` is not one per member, a member's
    /// weights are outside `weights.values` or a position is negative (as for
    /// [`PatternGroup::eval_values`]; [`PatternGroup::eval_hessians_bounded`] takes the
    /// positions' range computed beforehand).
    pub fn eval_hessians(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        weights: MemberWeights<'_, T>,
        out: &mut [T],
        offset: usize,
    ) -> bool {
        self.run_fresh(ws, inputs, GroupCall::hessians(weights, out, &offset))
    }

    /// [`PatternGroup::eval_hessians`] with the positions' range computed beforehand, as
    /// [`PatternGroup::eval_values_bounded`].
    ///
    /// # Safety
    ///
    /// As for [`PatternGroup::eval_values_bounded`].
    pub unsafe fn eval_hessians_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        weights: MemberWeights<'_, T>,
        out: &mut [T],
        offset: usize,
    ) -> bool {
        // SAFETY: `run`'s contract on `bounds` is this function's.
        unsafe {
            self.run(
                ws,
                inputs,
                bounds,
                GroupCall::hessians(weights, out, &offset),
            )
        }
    }

    /// The safe entry points: `call` with the positions' range computed from
    /// `inputs.data` now; `false` when it has none (a negative or too large position, a
    /// missing column).
    fn run_fresh(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        call: GroupCall<'_, T>,
    ) -> bool {
        let Some(bounds) = self.index_bounds(inputs.data) else {
            return false;
        };
        // SAFETY: `bounds` was computed from `inputs.data` just now, and the data cannot
        // change while `inputs` borrows it.
        unsafe { self.run(ws, inputs, &bounds, call) }
    }

    /// Whether `data` has every column a member reads, each with `data.len` rows.
    fn columns_ok(&self, data: &DataView<'_, T>) -> bool {
        let reals = self.max_real.map_or(0, |c| c as usize + 1);
        let ints = self.max_int.map_or(0, |c| c as usize + 1);
        data.reals.len() >= reals
            && data.ints.len() >= ints
            && data.reals[..reals].iter().all(|c| c.len() >= data.len)
            && data.ints[..ints].iter().all(|c| c.len() >= data.len)
    }

    /// Runs `call.function` on every point; `false` (nothing written) when `x` or `θ` is
    /// shorter than `bounds` says or the outputs or weights do not fit (see
    /// [`PatternGroup::eval_values`] and [`PatternGroup::eval_hessians`]).
    ///
    /// # Safety
    ///
    /// `bounds` is what [`PatternGroup::index_bounds`] of this group returned for data
    /// whose integer columns hold, in their first `inputs.data.len` rows, the same values
    /// as `inputs.data`'s now: the functions read `x`/`θ` at column and constant positions
    /// without a per-point check ([`UNCHECKED`]).
    unsafe fn run(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        call: GroupCall<'_, T>,
    ) -> bool {
        let EvalInputs {
            data,
            x,
            theta,
            par,
        } = *inputs;
        let GroupCall {
            function,
            out,
            offsets,
            weights,
        } = call;
        let Some(jp) = self.code.programs.get(function).copied() else {
            return false;
        };
        let inside = x.len() >= bounds.x_len && theta.len() >= bounds.theta_len;
        if UNCHECKED[function] && !inside {
            return false;
        }
        let members = self.steps.len();
        let n = data.len;
        let step = |m: usize| match function {
            VALUES => 1,
            GRADIENTS => self.steps[m].0,
            _ => self.hessian.len(),
        };
        // one output block per member, or one summed block (Hessians)
        let blocks = if function == HESSIANS { 1 } else { members };
        if offsets.len() != blocks || !self.columns_ok(data) {
            return false;
        }
        // block m writes out[offsets[m]..ends[m]]: inside `out`, no two overlapping
        let end = |m: usize| {
            n.checked_mul(step(m))
                .and_then(|len| offsets[m].checked_add(len))
        };
        for m in 0..blocks {
            let Some(e) = end(m) else { return false };
            if e > out.len() {
                return false;
            }
            for other in 0..m {
                let (a, b) = (offsets[m], offsets[other]);
                let (ea, eb) = (e, end(other).unwrap_or(usize::MAX));
                if a < ea && b < eb && a < eb && b < ea {
                    return false;
                }
            }
        }
        if let Some(MemberWeights {
            values: w,
            offsets: w_offsets,
        }) = weights
        {
            if w_offsets.len() != members
                || w_offsets
                    .iter()
                    .any(|&o| o.checked_add(n).is_none_or(|e| e > w.len()))
            {
                return false;
            }
        }
        if n == 0 {
            return true;
        }
        ws.pointers.clear();
        let base = out.as_mut_ptr();
        ws.pointers
            .extend(offsets.iter().map(|&o| base.wrapping_add(o) as usize));
        // the output pointers fill `members` places (the summed block uses the first)
        ws.pointers.resize(members, 0);
        match weights {
            Some(MemberWeights {
                values: w,
                offsets: w_offsets,
            }) => ws.pointers.extend(
                w_offsets
                    .iter()
                    .map(|&o| w.as_ptr().wrapping_add(o) as usize),
            ),
            None => ws.pointers.extend((0..members).map(|_| 0)),
        }
        let nreals = match (function, self.weight_column, weights) {
            (HESSIANS, Some(first), Some(w)) => set_weight_columns(ws, data, first, w),
            _ => set_columns(ws, data),
        };
        let (columns, pointers) = (&ws.columns[..], &ws.pointers[..]);
        let tasks = native_tasks(par, n, ws.scratch.len());
        let chunk = n.div_ceil(tasks);
        let run_task = |first: usize| {
            let last = (first + chunk).min(n);
            let args = JitArgs {
                outs: pointers.as_ptr() as *const *mut f64,
                wts: pointers[members..].as_ptr() as *const *const f64,
                counting: bounds.counting_columns,
                ..jit_args(columns, nreals, x, theta, std::ptr::null_mut())
            };
            // SAFETY: `T` is `f64` (only `f64` patterns have group code), so every pointer
            // points at `f64`s. `columns_ok` checked that every column the members read
            // has at least `n > last - 1` rows; block `m` (a member's, or the summed
            // Hessian block) is written only at `out[offsets[m] + k * step_m ..][..step_m]`
            // for points `k < n`, inside `out` and disjoint from the other blocks (checked
            // above), and member `m` reads its weights at `weights[w_offsets[m] + k]`
            // (through `wts[m]`, or as column `weight_column + m` of the summed Hessian),
            // inside `weights`. Tasks get disjoint point ranges, so no two write the same
            // element. A function with unchecked `x`/`θ` loads runs only with `x` and `θ`
            // at least as long as `bounds`, which cover those loads at every point of this
            // data, and whose counting columns count up by one over its rows (this
            // function's contract).
            unsafe { jp.call(&args, first, last) };
        };
        if tasks <= 1 {
            run_task(0);
        } else {
            (0..tasks).into_par_iter().for_each(|t| run_task(t * chunk));
        }
        true
    }
}

/// The program of the group's summed Hessian block in one sweep: the Hessian of the
/// members' weighted sum `Σ_m w_m f_m`, member `m`'s weight read as real data column
/// `weight_column + m` (members without second-order slots left out), its outputs the
/// entries of `hessian` in order (`0` where the sum's Hessian has none). Work the members
/// share is done once: `w_m f_m` is one expression, so its reverse sweeps accumulate the
/// members' adjoints of a common subexpression (the branch flows' `vv cos θ`, say) before
/// differentiating through it, where the member-by-member sum differentiates it once per
/// member and weighs every output. Equal to the members' weighted Hessians summed up to
/// rounding (the operations differ). `None` when the sum has a second-order slot that is
/// not an entry of `hessian` or cannot be derived (the group then sums the members'
/// weighted outputs).
fn summed_hessian<T: Scalar>(
    patterns: &[&Pattern<T>],
    hessian: &GroupHessian,
    weight_column: u32,
) -> Option<Program<f64>> {
    let weighted = patterns
        .iter()
        .enumerate()
        .filter(|(_, p)| p.nhess() > 0)
        .map(|(m, p)| {
            let column = weight_column.checked_add(u32::try_from(m).ok()?)?;
            Some(Expr::data(column) * p.expr().clone())
        })
        .collect::<Option<Vec<Expr>>>()?;
    let mode = patterns.first()?.second_order();
    let (grad, hess) = derivatives(&funcs::sum(weighted), mode).ok()?;
    // the entry of each unordered pair of positions
    let mut entry_of_pair: HashMap<(&Index, &Index), usize> = HashMap::new();
    for (e, &(m, a, b)) in hessian.entries.iter().enumerate() {
        let slots = patterns[m].slots();
        entry_of_pair.insert(
            ordered(&slots[a as usize].global, &slots[b as usize].global),
            e,
        );
    }
    let mut outputs: Vec<Option<Expr>> = vec![None; hessian.len()];
    for ((a, b), h) in hess {
        let pair = ordered(&grad[a as usize].0, &grad[b as usize].0);
        outputs[*entry_of_pair.get(&pair)?] = Some(h);
    }
    let outputs: Vec<(Expr, u32)> = outputs
        .into_iter()
        .enumerate()
        .map(|(e, h)| {
            Some((
                h.unwrap_or_else(|| Expr::constant(0.0)),
                u32::try_from(e).ok()?,
            ))
        })
        .collect::<Option<_>>()?;
    build::<f64>(&outputs, hessian.len()).ok()
}

/// `(a, b)` with the smaller first.
fn ordered<'a>(a: &'a Index, b: &'a Index) -> (&'a Index, &'a Index) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Puts the column pointers of the summed Hessian program into `ws.columns`: `data`'s first
/// `weight_column` real columns, then member `m`'s weights (`weights.values` from
/// `weights.offsets[m]`) as real column `weight_column + m`, then `data`'s integer
/// columns; returns the number of real columns.
fn set_weight_columns<T: Scalar>(
    ws: &mut Workspace<T>,
    data: &DataView<'_, T>,
    weight_column: u32,
    weights: MemberWeights<'_, T>,
) -> usize {
    let values = weights.values.as_ptr();
    let member_columns = weights
        .offsets
        .iter()
        .map(|&o| values.wrapping_add(o) as usize);
    set_columns_with(ws, data, weight_column as usize, member_columns)
}

/// The weights of a group's Hessian ([`PatternGroup::eval_hessians`]): member `m`'s
/// weight at data point `k` is `values[offsets[m] + k]` (e.g. the multipliers of its
/// constraint rows, which start at row `offsets[m]`).
#[derive(Debug)]
pub struct MemberWeights<'a, T> {
    /// The weights of every member (e.g. the multiplier vector `y`).
    pub values: &'a [T],
    /// Per member: the position of its point 0's weight in `values`.
    pub offsets: &'a [usize],
}

impl<T> Clone for MemberWeights<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for MemberWeights<'_, T> {}

/// One call of a group's function: which one, where its outputs go (per member at
/// `offsets[m]`, or the summed Hessian block at `offsets[0]`) and, for the Hessian, the
/// members' weights.
struct GroupCall<'a, T> {
    function: usize,
    out: &'a mut [T],
    offsets: &'a [usize],
    weights: Option<MemberWeights<'a, T>>,
}

impl<'a, T> GroupCall<'a, T> {
    /// Values or gradients of every member, member `m`'s at `out[offsets[m]..]`.
    fn outputs(function: usize, out: &'a mut [T], offsets: &'a [usize]) -> Self {
        GroupCall {
            function,
            out,
            offsets,
            weights: None,
        }
    }

    /// The summed weighted Hessian block at `out[offset..]`.
    fn hessians(weights: MemberWeights<'a, T>, out: &'a mut [T], offset: &'a usize) -> Self {
        GroupCall {
            function: HESSIANS,
            out,
            offsets: std::slice::from_ref(offset),
            weights: Some(weights),
        }
    }
}
