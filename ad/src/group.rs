//! Groups of patterns over the same data points, evaluated by one native loop per
//! callback with the work the members share done once.
//!
//! The flows of an AC power network are four patterns over the branches: each reads the
//! same voltages and angles and takes `sin` and `cos` of the same angle difference. Their
//! separate programs do that work four times per branch; a [`PatternGroup`] compiles the
//! members' value, gradient and Hessian programs into one loop each, where the members'
//! instructions share one value numbering: identical data and variable loads, identical
//! pure operations on identical operands and identical `exp`/`sin`/`cos` calls are
//! emitted once. Each member still writes its own values and gradients (at its own place
//! in the caller's arrays); the members' weighted Hessians are summed into one block per
//! point with one entry per distinct pair of variable references ([`GroupHessian`]: the
//! four flows of a branch give 10 entries, not 40). Every value is computed by the same
//! operations on the same operands as in the member's own code, and the Hessian sums add
//! the members' terms in member order, so the results are bit-identical to the members'
//! own code (and the interpreter) followed by that sum.

use crate::data::DataView;
use crate::eval::{EvalInputs, Scratch, Workspace};
use crate::index::Index;
use crate::jit::{GroupFunction, JitArgs, JitCode, SumInto, compile_group};
use crate::pattern::{
    IndexBounds, Load, Pattern, bounds_of, column_loads, jit_args, set_columns, tasks,
};
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
/// `w_m[k] · ∂²f_m/∂a∂b` of every member slot mapped to it, the first one in that order
/// plus the later ones left to right (the order [`PatternGroup::eval_hessians`]
/// uses, so a caller summing the members' own [`Pattern::eval_hessians`] outputs that
/// way gets the same bits).
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
        let functions: Vec<GroupFunction<'_>> =
            [(VALUES, false), (GRADIENTS, false), (HESSIANS, true)]
                .iter()
                .map(|&(f, weighted)| GroupFunction {
                    members: programs.iter().map(|p| (p[f], weighted)).collect(),
                    sum_into: (f == HESSIANS).then_some(sum_into),
                    // `run` checks `x`/`θ` against the bounds of every member's loads
                    unchecked_gathers: UNCHECKED[f],
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
        let (mut max_real, mut max_int) = (None, None);
        for p in patterns {
            let (r, i) = p.columns_read();
            max_real = max_real.max(r);
            max_int = max_int.max(i);
        }
        // each distinct load once (bounds scan a column per load)
        let mut loads: Vec<Load> = Vec::new();
        for load in column_loads(programs.iter().flatten().flat_map(|p| &p.ins)) {
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
        let ncols = self.max_real.map_or(0, |c| c as usize + 1)
            + self.max_int.map_or(0, |c| c as usize + 1);
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
        let Some(bounds) = self.index_bounds(inputs.data) else {
            return false;
        };
        // SAFETY: `bounds` was computed from `inputs.data` just now, and the data cannot
        // change while `inputs` borrows it.
        unsafe { self.eval_values_bounded(ws, inputs, &bounds, out, offsets) }
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
        self.run(VALUES, ws, inputs, Some(bounds), out, offsets, None)
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
        let Some(bounds) = self.index_bounds(inputs.data) else {
            return false;
        };
        // SAFETY: as in `eval_values`.
        unsafe { self.eval_gradients_bounded(ws, inputs, &bounds, out, offsets) }
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
        self.run(GRADIENTS, ws, inputs, Some(bounds), out, offsets, None)
    }

    /// The [`IndexBounds`] of the members' programs over `data` (see
    /// [`Pattern::index_bounds`]).
    pub fn index_bounds(&self, data: &DataView<'_, T>) -> Option<IndexBounds> {
        bounds_of(self.loads.iter().copied(), data)
    }

    /// The members' weighted Hessians summed into one block per point
    /// ([`PatternGroup::hessian`]): `out[offset + k * entries + e] = Σ weights[
    /// weight_offsets[m] + k] * ∂²f_m/∂a∂b` over the member slots `h = (a, b)` with
    /// `entry_of[m][h] = e`, added in the order [`GroupHessian`] states.
    /// Returns `false` and writes nothing when the block is outside `out`, `data` lacks a
    /// column a member reads, `weight_offsets` is not one per member, a member's
    /// weights are outside `weights` or a position is negative (as for
    /// [`PatternGroup::eval_values`]; [`PatternGroup::eval_hessians_bounded`] takes the
    /// positions' range computed beforehand).
    pub fn eval_hessians(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        weights: &[T],
        weight_offsets: &[usize],
        out: &mut [T],
        offset: usize,
    ) -> bool {
        let Some(bounds) = self.index_bounds(inputs.data) else {
            return false;
        };
        // SAFETY: as in `eval_values`.
        unsafe {
            self.eval_hessians_bounded(ws, inputs, &bounds, weights, weight_offsets, out, offset)
        }
    }

    /// [`PatternGroup::eval_hessians`] with the positions' range computed beforehand, as
    /// [`PatternGroup::eval_values_bounded`].
    ///
    /// # Safety
    ///
    /// As for [`PatternGroup::eval_values_bounded`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn eval_hessians_bounded(
        &self,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: &IndexBounds,
        weights: &[T],
        weight_offsets: &[usize],
        out: &mut [T],
        offset: usize,
    ) -> bool {
        let w = Some((weights, weight_offsets));
        self.run(HESSIANS, ws, inputs, Some(bounds), out, &[offset], w)
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

    /// Runs `function` on every point; `bounds` must cover the members' column and
    /// constant positions over `inputs.data` when the function reads them unchecked
    /// ([`UNCHECKED`]): `false` when it is `None` then, or `x`/`θ` is shorter.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        function: usize,
        ws: &mut Workspace<T>,
        inputs: &EvalInputs<'_, '_, T>,
        bounds: Option<&IndexBounds>,
        out: &mut [T],
        offsets: &[usize],
        weights: Option<(&[T], &[usize])>,
    ) -> bool {
        let EvalInputs {
            data,
            x,
            theta,
            par,
        } = *inputs;
        let Some(jp) = self.code.programs.get(function).copied() else {
            return false;
        };
        let inside = bounds.is_some_and(|b| x.len() >= b.x_len && theta.len() >= b.theta_len);
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
        if let Some((w, w_offsets)) = weights {
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
            Some((w, w_offsets)) => ws.pointers.extend(
                w_offsets
                    .iter()
                    .map(|&o| w.as_ptr().wrapping_add(o) as usize),
            ),
            None => ws.pointers.extend((0..members).map(|_| 0)),
        }
        let nreals = set_columns(ws, data);
        let (columns, pointers) = (&ws.columns[..], &ws.pointers[..]);
        let tasks = tasks(par, n, ws.scratch.len());
        let chunk = n.div_ceil(tasks);
        let run_task = |first: usize| {
            let last = (first + chunk).min(n);
            let args = JitArgs {
                outs: pointers.as_ptr() as *const *mut f64,
                wts: pointers[members..].as_ptr() as *const *const f64,
                ..jit_args(columns, nreals, x, theta, std::ptr::null_mut())
            };
            // SAFETY: `T` is `f64` (only `f64` patterns have group code), so every pointer
            // points at `f64`s. `columns_ok` checked that every column the members read
            // has at least `n > last - 1` rows; block `m` (a member's, or the summed
            // Hessian block) is written only at `out[offsets[m] + k * step_m ..][..step_m]`
            // for points `k < n`, inside `out` and disjoint from the other blocks (checked
            // above), and member `m` reads its weights at `weights[w_offsets[m] + k]`,
            // inside `weights`. Tasks get disjoint point ranges, so no two write the same
            // element. A function with unchecked `x`/`θ` loads runs only with `x` and `θ`
            // at least as long as `bounds`, which cover those loads at every point of this
            // data (the `*_bounded` callers' contract).
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
