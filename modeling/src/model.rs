//! The built model: compiled patterns and the [`NlpModel`] callbacks (the compiler that
//! builds it is `compile.rs`).
//!
//! # Layout of the derivative arrays
//!
//! Jacobian and Hessian are partially compressed COO laid out per pattern, in declaration
//! order: pattern `p` (constraint or augmentation for the Jacobian; any pattern with
//! second-order slots for the Hessian) owns `[o_p, o_p + len_p · step_p)`, and its data
//! point `k` writes `[o_p + k·step_p, o_p + (k+1)·step_p)` where `step_p` is the number of
//! first-order (Jacobian) or second-order (Hessian) slots of the pattern.
//!
//! One exception in the Hessian: the constraint patterns of a group (rows of their own
//! over identical data points, see [`Model::pattern_groups`]) share one block, at the
//! place of the first member with second-order slots, with one entry per point for each
//! distinct pair of variable references among the members' second-order slots
//! ([`simdnlp_ad::GroupHessian`]): the members' weighted terms at the same position are
//! summed there (in member order) instead of stored one by one. The four flows of an AC
//! branch thus store 10 Hessian entries per branch, not 40. The layout does not depend
//! on the evaluator or on fusion.
//!
//! # Scratch memory and threads
//!
//! `NlpModel` callbacks take `&self` and must not allocate. Scratch memory (AD
//! workspaces, a value/gradient buffer, a weight buffer, and Jacobian/Hessian value
//! buffers for the products) is one primary set behind a `Mutex` that a callback takes with
//! `try_lock` (one uncontended lock per callback), and a pool of further sets for callbacks
//! that run at the same time on other threads: such a callback pops one set, uses it
//! without holding the pool's lock, and pushes it back. The model is built with the
//! primary set, so sequential use never allocates; a callback that finds every set in use
//! creates one more (once — it then stays in the pool). With
//! [`Parallelism::Rayon`] each pattern's data points are split across rayon's pool by the
//! AD evaluators. The objective's sum runs on one thread (a split sum would add in
//! another order); its gradient's scatter-add is split across threads by a
//! [`ScatterPlan`] made at build (bitwise the one-thread gradient) where the positions
//! allow it (a banded objective), else on one thread; the other scatter-adds
//! (augmentation rows, products) stay sequential. Below `min_batch` points per task a
//! pattern runs on one thread.

use crate::alloc::try_filled;
use crate::block::{BlockCore, BlockKind, ExprDecl, lock};
use crate::data::Columns;
use crate::error::ModelError;
use crate::nlp::{BlockPosition, NlpMeta, NlpModel};
use simdnlp_ad::{
    DataView, EvalInputs, Expr, Index, IndexBounds, MemberWeights, Namer, Pattern, PatternGroup,
    Scalar, ScatterPlan, Workspace,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use simdnlp_ad::{Evaluator, Parallelism};

/// The process-wide default of [`ModelBuilder::set_evaluator`](crate::ModelBuilder::set_evaluator):
/// 0 = JIT, 1 = interpreter.
static DEFAULT_EVALUATOR: AtomicU8 = AtomicU8::new(0);

/// The evaluator new [`ModelBuilder`](crate::ModelBuilder)s start with: [`Evaluator::Jit`]
/// unless [`set_default_evaluator`] changed it.
pub fn default_evaluator() -> Evaluator {
    match DEFAULT_EVALUATOR.load(Ordering::Relaxed) {
        0 => Evaluator::Jit,
        _ => Evaluator::Interp,
    }
}

/// Sets the evaluator new [`ModelBuilder`](crate::ModelBuilder)s start with, for the whole
/// process (a command-line switch such as `simdnlp-bench callbacks --evaluator interp`
/// for models built by code it does not control). Models already built keep theirs.
pub fn set_default_evaluator(evaluator: Evaluator) {
    let v = match evaluator {
        Evaluator::Jit => 0,
        Evaluator::Interp => 1,
    };
    DEFAULT_EVALUATOR.store(v, Ordering::Relaxed);
}

/// The process-wide default of whether new models evaluate groups of patterns over the
/// same data with one native loop (see [`set_default_fusion`]).
static DEFAULT_FUSION: AtomicU8 = AtomicU8::new(1);

/// Whether models built from now on fuse their constraint patterns over the same data
/// (`true` unless [`set_default_fusion`] changed it; only with the JIT evaluator).
pub fn default_fusion() -> bool {
    DEFAULT_FUSION.load(Ordering::Relaxed) != 0
}

/// Sets whether models built from now on fuse constraint patterns over the same data
/// into one native loop per callback, for the whole process (a command-line switch such
/// as `simdnlp-bench callbacks --no-fuse` to measure the difference). Models already
/// built keep theirs ([`Model::set_fusion`]).
pub fn set_default_fusion(on: bool) {
    DEFAULT_FUSION.store(u8::from(on), Ordering::Relaxed);
}

/// The process-wide default of [`ModelBuilder::set_threads`](crate::ModelBuilder::set_threads)
/// (see [`set_default_threads`]).
static DEFAULT_THREADS: Mutex<Parallelism> = Mutex::new(Parallelism::Sequential);

/// The thread setting new [`ModelBuilder`](crate::ModelBuilder)s start with:
/// [`Parallelism::Sequential`] unless [`set_default_threads`] changed it.
pub fn default_threads() -> Parallelism {
    *DEFAULT_THREADS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sets the thread setting new [`ModelBuilder`](crate::ModelBuilder)s start with, for the
/// whole process (a command-line switch such as `simdnlp-bench callbacks --threads 2` for
/// models built by code it does not control). Models already built keep theirs
/// ([`Model::set_threads`]).
pub fn set_default_threads(par: Parallelism) {
    *DEFAULT_THREADS.lock().unwrap_or_else(|e| e.into_inner()) = par;
}

#[derive(Clone, Debug)]
pub(crate) enum Rows {
    Objective,
    Base { row0: usize },
    Augment { con: usize, rows: Vec<usize> },
}

/// Column tables of a pattern's data view with at most this many columns of each kind
/// are 8 entries on the stack (most patterns)...
const VIEW_TABLE_SMALL: usize = 8;
/// ...and with at most this many, 32 (more columns: the tables are allocated).
const VIEW_TABLE_MAX: usize = 32;

#[derive(Clone)]
pub(crate) struct CompiledPattern<T> {
    pub core: Arc<BlockCore>,
    pub rows: Rows,
    pub pattern: Pattern<T>,
    pub cols: Columns<T>,
    pub expr: Expr,
    pub desc: String,
    pub nslots: usize,
    pub nhess: usize,
    /// `globals[k * nslots + s]`: x-index of slot `s` at data point `k`.
    pub globals: Vec<usize>,
    pub hess_pairs: Vec<(u32, u32)>,
    pub jac_off: usize,
    pub hess_off: usize,
    /// Augmentations: the row position as written (printing).
    pub row_idx: Vec<Index>,
    /// The range of the `x` and `θ` positions that the pattern's programs read
    /// ([`Pattern::index_bounds`]), computed at build from `cols` (never modified after
    /// build), for the `*_bounded` entry points; `None` when it has none (negative
    /// positions).
    pub index_bounds: Option<IndexBounds>,
    /// Objective patterns under [`Parallelism::Rayon`]: the plan that splits the
    /// gradient's scatter across threads ([`ScatterPlan`], bitwise the one-thread sums;
    /// `None` when it would not pay or the callbacks are sequential).
    pub grad_plan: Option<Arc<ScatterPlan>>,
}

impl<T: Scalar> CompiledPattern<T> {
    pub(crate) fn len(&self) -> usize {
        self.cols.len
    }

    /// Runs `f` on a view of the pattern's columns. The view's tables of column slices
    /// live on the stack, as small as the pattern allows (a few callbacks' fixed cost:
    /// collecting them into a 32-entry `SmallVec` copied its 520 bytes twice per call);
    /// only a pattern with more than [`VIEW_TABLE_MAX`] columns of one kind allocates them.
    #[inline]
    fn with_view<R>(&self, f: impl FnOnce(&DataView<'_, T>) -> R) -> R {
        let most = self.cols.reals.len().max(self.cols.ints.len());
        if most <= VIEW_TABLE_SMALL {
            self.with_view_in::<VIEW_TABLE_SMALL, R>(f)
        } else if most <= VIEW_TABLE_MAX {
            self.with_view_in::<VIEW_TABLE_MAX, R>(f)
        } else {
            let reals: Vec<&[T]> = self.cols.reals.iter().map(|c| c.as_slice()).collect();
            let ints: Vec<&[i64]> = self.cols.ints.iter().map(|c| c.as_slice()).collect();
            f(&DataView::new(self.cols.len, &reals, &ints))
        }
    }

    /// [`CompiledPattern::with_view`] with tables of `N` entries on the stack, filled in
    /// place (at most `N` columns of each kind).
    #[inline]
    fn with_view_in<const N: usize, R>(&self, f: impl FnOnce(&DataView<'_, T>) -> R) -> R {
        let (reals, ints) = (&self.cols.reals, &self.cols.ints);
        let mut real_table: [&[T]; N] = [&[]; N];
        let mut int_table: [&[i64]; N] = [&[]; N];
        for (slot, c) in real_table.iter_mut().zip(reals) {
            *slot = c;
        }
        for (slot, c) in int_table.iter_mut().zip(ints) {
            *slot = c;
        }
        let nr = reals.len().min(N);
        let ni = ints.len().min(N);
        f(&DataView::new(
            self.cols.len,
            &real_table[..nr],
            &int_table[..ni],
        ))
    }

    /// Row of data point `k` (constraint patterns).
    #[inline]
    pub(crate) fn row(&self, k: usize) -> usize {
        match &self.rows {
            Rows::Base { row0 } => row0 + k,
            Rows::Augment { rows, .. } => rows[k],
            Rows::Objective => usize::MAX,
        }
    }
}

/// Constraint patterns (rows of their own) over identical data points, evaluated together
/// by one native loop per callback ([`PatternGroup`]) when the JIT is in use.
#[derive(Clone, Debug)]
pub(crate) struct Group<T> {
    /// the member patterns (indices into `Model::pats`), in declaration order
    pub members: Vec<usize>,
    /// the native code (`None` with the interpreter, fusion off, or when it failed)
    pub code: Option<PatternGroup<T>>,
    /// per member: its first row and Jacobian offset (the members' Hessians are one
    /// summed block, see [`HessBlock`])
    pub rows: Vec<usize>,
    pub jac: Vec<usize>,
    /// the range of the `x` and `θ` positions the code reads ([`PatternGroup::index_bounds`]
    /// over the first member's columns, which the code runs on and nothing modifies after
    /// build); `None` without code or when it has none
    pub index_bounds: Option<IndexBounds>,
}

impl<T: Scalar> Group<T> {
    /// Builds the native code from `pats` (leaves it `None` where it cannot be built).
    pub(crate) fn compile(&mut self, pats: &[CompiledPattern<T>]) {
        let members: Vec<&Pattern<T>> = self.members.iter().map(|&p| &pats[p].pattern).collect();
        self.code = PatternGroup::compile(&members);
        self.index_bounds = self
            .code
            .as_ref()
            .and_then(|code| pats[self.members[0]].with_view(|v| code.index_bounds(v)));
    }
}

/// One block of the Hessian layout (see the module docs): the second-order slots of one
/// pattern, or the summed entries of a group's members.
#[derive(Clone, Debug)]
pub(crate) struct HessBlock {
    /// the patterns whose weighted terms the block holds, in order (one, or the members
    /// of a group with second-order slots)
    pub pats: Vec<usize>,
    /// the group whose members these are
    pub group: Option<usize>,
    /// first entry of the block
    pub off: usize,
    /// data points (of every pattern of the block)
    pub len: usize,
    /// per entry of a point: the pattern and its second-order slot `(a, b)` whose
    /// variables give the entry's position (the first term summed into it)
    pub entries: Vec<(usize, u32, u32)>,
    /// per pattern of `pats` (a group's block only; empty for one pattern, whose slots are
    /// the entries in order): the entry of each of its second-order slots
    pub entry_of: Vec<Vec<u32>>,
}

impl HessBlock {
    /// Entries per data point.
    pub(crate) fn step(&self) -> usize {
        self.entries.len()
    }
}

/// Scratch memory of one callback (see the module docs).
pub(crate) struct Scratch<T> {
    ws: Vec<Workspace<T>>,
    /// per group: the workspace of its native code (`None` without code)
    gws: Vec<Option<Workspace<T>>>,
    buf: Vec<T>,
    wts: Vec<T>,
    jac: Vec<T>,
    hess: Vec<T>,
    /// one group member's weighted Hessian terms, before they are summed into the block
    terms: Vec<T>,
}

/// A built model: blocks, compiled patterns and the numeric data a solver reads through
/// [`NlpModel`]. Accessors (`set_lower`, `set_value`, `solution`, …) are in
/// [`crate::access`]; printing (`Display`) shows the model as mathematics.
pub struct Model<T: Scalar = f64> {
    pub(crate) meta: NlpMeta<T>,
    pub(crate) theta: Vec<T>,
    pub(crate) vars: Vec<Arc<BlockCore>>,
    pub(crate) params: Vec<Arc<BlockCore>>,
    pub(crate) cons: Vec<Arc<BlockCore>>,
    pub(crate) exprs: Vec<ExprDecl>,
    pub(crate) by_uid: HashMap<u32, (BlockKind, usize)>,
    pub(crate) names: HashMap<u32, String>,
    pub(crate) pats: Vec<CompiledPattern<T>>,
    pub(crate) obj_pats: Vec<usize>,
    pub(crate) base_pats: Vec<usize>,
    pub(crate) aug_pats: Vec<usize>,
    pub(crate) con_pats: Vec<usize>,
    pub(crate) hess_pats: Vec<usize>,
    /// the blocks of the Hessian layout, in layout order (see the module docs)
    pub(crate) hess_blocks: Vec<HessBlock>,
    pub(crate) hess_double: Vec<usize>,
    /// constraint patterns evaluated together (see [`Group`])
    pub(crate) groups: Vec<Group<T>>,
    /// per pattern: its group, if any
    pub(crate) group_of: Vec<Option<usize>>,
    /// whether the groups get native code ([`Model::set_fusion`])
    pub(crate) fusion: bool,
    pub(crate) par: Parallelism,
    /// the scratch set of sequential callbacks (see the module docs)
    pub(crate) primary: Mutex<Option<Scratch<T>>>,
    /// further scratch sets for callbacks running at the same time
    pub(crate) pool: Mutex<Vec<Scratch<T>>>,
}

/// Names blocks and a pattern's data fields when printing.
pub(crate) struct PatNamer<'a> {
    pub names: &'a HashMap<u32, String>,
    pub ints: &'a [String],
    pub reals: &'a [String],
    /// Ids of the 0-dimensional variable and parameter blocks (printed without `[..]`).
    pub scalars: &'a [u32],
}

impl Namer for PatNamer<'_> {
    fn var(&self, block: u32) -> String {
        self.names
            .get(&block)
            .cloned()
            .unwrap_or_else(|| format!("x#{block}"))
    }
    fn param(&self, block: u32) -> String {
        self.names
            .get(&block)
            .cloned()
            .unwrap_or_else(|| format!("θ#{block}"))
    }
    fn real_field(&self, col: u32) -> String {
        self.reals
            .get(col as usize)
            .cloned()
            .unwrap_or_else(|| format!("d{col}"))
    }
    fn int_field(&self, col: u32) -> String {
        self.ints
            .get(col as usize)
            .cloned()
            .unwrap_or_else(|| format!("i{col}"))
    }
    fn is_scalar(&self, block: u32) -> bool {
        self.scalars.contains(&block)
    }
}

impl<T: Scalar> Clone for Model<T> {
    /// A copy with its own scratch pool (block handles stay valid for both models).
    fn clone(&self) -> Self {
        let mut m = Model {
            meta: self.meta.clone(),
            theta: self.theta.clone(),
            vars: self.vars.clone(),
            params: self.params.clone(),
            cons: self.cons.clone(),
            exprs: self.exprs.clone(),
            by_uid: self.by_uid.clone(),
            names: self.names.clone(),
            pats: self.pats.clone(),
            obj_pats: self.obj_pats.clone(),
            base_pats: self.base_pats.clone(),
            aug_pats: self.aug_pats.clone(),
            con_pats: self.con_pats.clone(),
            hess_pats: self.hess_pats.clone(),
            hess_blocks: self.hess_blocks.clone(),
            hess_double: self.hess_double.clone(),
            groups: self.groups.clone(),
            group_of: self.group_of.clone(),
            fusion: self.fusion,
            par: self.par,
            primary: Mutex::new(None),
            pool: Mutex::new(Vec::with_capacity(8)),
        };
        let s = m.new_scratch();
        *m.primary.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(s);
        m
    }
}

impl<T: Scalar> Model<T> {
    /// A scratch set for this model (see the module docs).
    ///
    /// Callbacks and `clone` need one after a successful build, which allocated one set
    /// already: running out of memory there aborts like any other allocation.
    fn new_scratch(&self) -> Scratch<T> {
        self.try_new_scratch()
            .unwrap_or_else(|e| panic!("model scratch memory: {e}"))
    }

    /// A scratch set, or [`ModelError::OutOfMemory`] naming the buffer that did not fit.
    pub(crate) fn try_new_scratch(&self) -> Result<Scratch<T>, ModelError> {
        let mut nbuf = 0;
        let mut nw = 0;
        for p in &self.pats {
            if matches!(p.rows, Rows::Objective) {
                nbuf = nbuf.max(p.len() * p.nslots.max(1));
            } else {
                nbuf = nbuf.max(p.len());
            }
            if !matches!(p.rows, Rows::Base { .. }) {
                nw = nw.max(p.len());
            }
        }
        let (nnzj, nnzh) = (self.meta.nnzj, self.meta.nnzh);
        let nterms = self
            .hess_blocks
            .iter()
            .filter(|b| b.group.is_some())
            .flat_map(|b| {
                b.pats
                    .iter()
                    .map(|&p| self.pats[p].len() * self.pats[p].nhess)
            })
            .max()
            .unwrap_or(0);
        Ok(Scratch {
            ws: self.pats.iter().map(|p| p.pattern.workspace()).collect(),
            gws: self
                .groups
                .iter()
                .map(|g| g.code.as_ref().map(|c| c.workspace()))
                .collect(),
            buf: try_filled(nbuf, T::zero(), || {
                format!("a value buffer ({nbuf} values)")
            })?,
            wts: try_filled(nw, T::zero(), || format!("a weight buffer ({nw} values)"))?,
            jac: try_filled(nnzj, T::zero(), || {
                format!("Jacobian values ({nnzj} entries)")
            })?,
            hess: try_filled(nnzh, T::zero(), || {
                format!("Hessian values ({nnzh} entries)")
            })?,
            terms: try_filled(nterms, T::zero(), || {
                format!("a group member's Hessian terms ({nterms} values)")
            })?,
        })
    }

    /// Adds objective pattern `p`'s values at `x` into `f` with its native summing code
    /// (with `ws`, or without a workspace where the pattern's data allows); `false`,
    /// leaving `f` alone, where it cannot (the caller sums the values instead).
    fn sum_objective(&self, p: usize, ws: Option<&mut Workspace<T>>, x: &[T], f: &mut T) -> bool {
        let cp = &self.pats[p];
        cp.index_bounds.is_some_and(|bounds| {
            cp.with_view(|v| {
                let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
                // SAFETY: `index_bounds` is `index_bounds` of this pattern over `cp.cols`
                // at build, and `cols` is never modified after build (no `&mut` access
                // to a built model's columns), so it holds for the view of the same
                // columns here.
                unsafe {
                    match ws {
                        Some(ws) => cp.pattern.eval_value_sum_bounded(ws, &inputs, &bounds, f),
                        None => cp
                            .pattern
                            .eval_value_sum_bounded_without_workspace(&inputs, &bounds, f),
                    }
                }
            })
        })
    }

    fn with_scratch<R>(&self, f: impl FnOnce(&mut Scratch<T>) -> R) -> R {
        // the primary set when no other callback holds it (a panic in an earlier callback
        // leaves the set usable: every callback overwrites what it reads)
        let primary = match self.primary.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        if let Some(mut guard) = primary {
            if let Some(s) = guard.as_mut() {
                return f(s);
            }
        }
        let popped = lock(&self.pool).pop();
        let mut s = popped.unwrap_or_else(|| self.new_scratch());
        let r = f(&mut s);
        lock(&self.pool).push(s);
        r
    }

    /// The thread setting of the callbacks.
    pub fn threads(&self) -> Parallelism {
        self.par
    }

    /// Sets the thread setting of the callbacks (sequential by default).
    pub fn set_threads(&mut self, par: Parallelism) {
        self.par = par;
        self.rebuild_plans();
    }

    /// Objective patterns: remakes the plans that split the gradient's scatter across
    /// threads for the thread setting and the primary scratch set (its workspaces' task
    /// count; a set made later with another count runs the scatter on one thread).
    pub(crate) fn rebuild_plans(&mut self) {
        // a plan pays where at most one point in this many runs twice
        const MAX_REPEAT: usize = 8;
        let nvar = self.meta.nvar;
        let primary = self.primary.get_mut().unwrap_or_else(|e| e.into_inner());
        for &p in &self.obj_pats {
            let cp = &mut self.pats[p];
            let tasks = primary
                .as_ref()
                .map_or(1, |s| Pattern::tasks(self.par, cp.len(), &s.ws[p]));
            cp.grad_plan =
                ScatterPlan::new(&cp.globals, cp.nslots, cp.len(), tasks, nvar, MAX_REPEAT)
                    .map(Arc::new);
        }
    }

    /// The CPU evaluator of the patterns: [`Evaluator::Jit`] when every pattern runs native
    /// code, else [`Evaluator::Interp`] (also for `f32` models and models with no pattern).
    pub fn evaluator(&self) -> Evaluator {
        if !self.pats.is_empty()
            && self
                .pats
                .iter()
                .all(|p| p.pattern.evaluator() == Evaluator::Jit)
        {
            Evaluator::Jit
        } else {
            Evaluator::Interp
        }
    }

    /// Switches the evaluator of every pattern (compiling native code for
    /// [`Evaluator::Jit`] where it is not built yet); returns the evaluator now in use (see
    /// [`Model::evaluator`]).
    pub fn set_evaluator(&mut self, evaluator: Evaluator) -> Evaluator {
        for p in &mut self.pats {
            p.pattern.set_evaluator(evaluator);
        }
        self.rebuild_groups();
        self.evaluator()
    }

    /// Whether constraint patterns over identical data points (the four branch flows of
    /// an AC OPF, ...) are evaluated by one native loop per callback that does their
    /// shared work once ([`PatternGroup`]; bit-identical results, but the group's summed
    /// Hessian block, computed as the Hessian of the members' weighted sum in one sweep:
    /// equal up to rounding). On by default (see
    /// [`default_fusion`]); only with the JIT evaluator.
    pub fn fusion(&self) -> bool {
        self.fusion && self.groups.iter().any(|g| g.code.is_some())
    }

    /// Switches the fused evaluation of [`Model::fusion`] on or off (compiling the groups'
    /// native code where it is not built yet); returns [`Model::fusion`].
    pub fn set_fusion(&mut self, on: bool) -> bool {
        self.fusion = on;
        self.rebuild_groups();
        self.fusion()
    }

    /// The groups of constraint patterns over identical data points, each as its members'
    /// indices in declaration order (whether their fused code is in use or not).
    pub fn pattern_groups(&self) -> Vec<Vec<usize>> {
        self.groups.iter().map(|g| g.members.clone()).collect()
    }

    /// Wall time the JIT took for each group of patterns with native code.
    pub fn group_compile_times(&self) -> Vec<Duration> {
        self.groups
            .iter()
            .filter_map(|g| g.code.as_ref().map(|c| c.compile_time()))
            .collect()
    }

    /// Builds or drops the groups' native code to match the evaluator and fusion setting,
    /// and remakes the scratch sets (their group workspaces follow the code).
    pub(crate) fn rebuild_groups(&mut self) {
        let want = self.fusion && self.evaluator() == Evaluator::Jit;
        for g in &mut self.groups {
            match (want, g.code.is_some()) {
                (true, false) => g.compile(&self.pats),
                (false, true) => g.code = None,
                _ => {}
            }
        }
        let s = self.new_scratch();
        *self.primary.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(s);
        self.pool
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.rebuild_plans();
    }

    /// Whether pattern `p` is evaluated with its group's native code.
    fn fused(&self, p: usize) -> bool {
        self.group_of[p].is_some_and(|g| self.groups[g].code.is_some())
    }

    /// Runs `f` with the group's code, its workspace and a view of its data (the first
    /// member's, which every member shares); `false` where the group has no code or `f`
    /// did not run it (the caller then evaluates the members one by one).
    fn with_group(
        &self,
        g: usize,
        s: &mut Scratch<T>,
        f: impl FnOnce(&PatternGroup<T>, &mut Workspace<T>, &DataView<'_, T>) -> bool,
    ) -> bool {
        let group = &self.groups[g];
        let (Some(code), Some(Some(ws))) = (&group.code, s.gws.get_mut(g)) else {
            return false;
        };
        self.pats[group.members[0]].with_view(|v| f(code, ws, v))
    }

    /// Wall time the JIT took for each pattern, in declaration order (`None` for a pattern
    /// on the interpreter).
    pub fn jit_compile_times(&self) -> Vec<Option<Duration>> {
        self.pats
            .iter()
            .map(|p| p.pattern.jit_compile_time())
            .collect()
    }

    /// Calls `f(i, ga, gb)` for every Hessian entry `i` in layout order, with the `x`
    /// positions of its second-order slot `(a, b)` (not ordered).
    pub(crate) fn for_each_hess_entry(&self, mut f: impl FnMut(usize, usize, usize)) {
        for block in &self.hess_blocks {
            let step = block.step();
            for k in 0..block.len {
                for (e, &(p, a, b)) in block.entries.iter().enumerate() {
                    let cp = &self.pats[p];
                    let g = &cp.globals[k * cp.nslots..(k + 1) * cp.nslots];
                    f(block.off + k * step + e, g[a as usize], g[b as usize]);
                }
            }
        }
    }

    /// Evaluates the Jacobian at `x` and calls `visit(row, columns, values)` once per data
    /// point of every constraint pattern, in layout order: the point's row, the `x`
    /// positions of its first-order slots and the Jacobian values at them.
    fn visit_jacobian_points(&self, x: &[T], mut visit: impl FnMut(usize, &[usize], &[T])) {
        self.with_scratch(|s| {
            let mut jac = std::mem::take(&mut s.jac);
            self.jac_into(s, x, &mut jac);
            for &p in &self.con_pats {
                let cp = &self.pats[p];
                if cp.nslots == 0 {
                    continue;
                }
                let values = &jac[cp.jac_off..cp.jac_off + cp.len() * cp.nslots];
                for (k, (columns, point_values)) in cp
                    .globals
                    .chunks_exact(cp.nslots)
                    .zip(values.chunks_exact(cp.nslots))
                    .enumerate()
                {
                    visit(cp.row(k), columns, point_values);
                }
            }
            s.jac = jac;
        })
    }

    /// The parameter vector `θ` (all parameter blocks, flat).
    pub fn theta(&self) -> &[T] {
        &self.theta
    }

    fn ev_values(&self, p: usize, ws: &mut Workspace<T>, x: &[T], out: &mut [T]) {
        let cp = &self.pats[p];
        cp.with_view(|v| {
            let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
            match &cp.index_bounds {
                // SAFETY: as in `sum_objective`: the bounds of this pattern over
                // `cp.cols` at build, which no one modifies afterwards.
                Some(b) => unsafe { cp.pattern.eval_values_bounded(ws, &inputs, b, out) },
                None => cp.pattern.eval_values(ws, &inputs, out),
            }
        });
    }

    fn ev_grads(&self, p: usize, ws: &mut Workspace<T>, x: &[T], out: &mut [T]) {
        let cp = &self.pats[p];
        cp.with_view(|v| {
            let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
            match &cp.index_bounds {
                // SAFETY: as in `ev_values`.
                Some(b) => unsafe { cp.pattern.eval_gradients_bounded(ws, &inputs, b, None, out) },
                None => cp.pattern.eval_gradients(ws, &inputs, None, out),
            }
        });
    }

    fn ev_hess(&self, p: usize, ws: &mut Workspace<T>, x: &[T], w: &[T], out: &mut [T]) {
        let cp = &self.pats[p];
        cp.with_view(|v| {
            let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
            match &cp.index_bounds {
                // SAFETY: as in `ev_values`.
                Some(b) => unsafe { cp.pattern.eval_hessians_bounded(ws, &inputs, b, w, out) },
                None => cp.pattern.eval_hessians(ws, &inputs, w, out),
            }
        });
    }

    fn hess_into(&self, s: &mut Scratch<T>, x: &[T], y: &[T], sigma: T, vals: &mut [T]) {
        for block in &self.hess_blocks {
            let out = &mut vals[block.off..block.off + block.len * block.step()];
            let Some(g) = block.group else {
                self.pattern_hess(block.pats[0], s, x, y, sigma, out);
                continue;
            };
            let group = &self.groups[g];
            let fused = group.index_bounds.is_some_and(|bounds| {
                self.with_group(g, s, |code, ws, v| {
                    let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
                    // SAFETY: as in `jac_into`.
                    unsafe {
                        code.eval_hessians_bounded(
                            ws,
                            &inputs,
                            &bounds,
                            MemberWeights {
                                values: y,
                                offsets: &group.rows,
                            },
                            out,
                            0,
                        )
                    }
                })
            });
            if fused {
                continue;
            }
            // member by member: each one's terms, summed into the block in member order
            let step = block.step();
            for (&p, entry_of) in block.pats.iter().zip(&block.entry_of) {
                let (n, nh) = (self.pats[p].len(), self.pats[p].nhess);
                let mut terms = std::mem::take(&mut s.terms);
                self.pattern_hess(p, s, x, y, sigma, &mut terms[..n * nh]);
                for (k, point) in terms[..n * nh].chunks_exact(nh).enumerate() {
                    let row = &mut out[k * step..(k + 1) * step];
                    for (&e, &v) in entry_of.iter().zip(point) {
                        let (first, _, _) = block.entries[e as usize];
                        let o = &mut row[e as usize];
                        *o = if first == p { v } else { *o + v };
                    }
                }
                s.terms = terms;
            }
        }
        for &i in &self.hess_double {
            vals[i] = vals[i] + vals[i];
        }
    }

    /// Pattern `p`'s weighted Hessian terms into `out` (`len · nhess` entries), by its own
    /// code: weights `σ` (objective), `y` of its rows (constraints and augmentations).
    fn pattern_hess(
        &self,
        p: usize,
        s: &mut Scratch<T>,
        x: &[T],
        y: &[T],
        sigma: T,
        out: &mut [T],
    ) {
        let cp = &self.pats[p];
        let n = cp.len();
        match &cp.rows {
            Rows::Objective => {
                let w = &mut s.wts[..n];
                w.iter_mut().for_each(|v| *v = sigma);
                self.ev_hess(p, &mut s.ws[p], x, &s.wts[..n], out);
            }
            Rows::Base { row0 } => self.ev_hess(p, &mut s.ws[p], x, &y[*row0..*row0 + n], out),
            Rows::Augment { rows, .. } => {
                for (w, &r) in s.wts[..n].iter_mut().zip(rows) {
                    *w = y[r];
                }
                self.ev_hess(p, &mut s.ws[p], x, &s.wts[..n], out);
            }
        }
    }

    fn jac_into(&self, s: &mut Scratch<T>, x: &[T], vals: &mut [T]) {
        for (g, group) in self.groups.iter().enumerate() {
            let done = group.index_bounds.is_some_and(|bounds| {
                self.with_group(g, s, |code, ws, v| {
                    let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
                    // SAFETY: `index_bounds` was computed at build over the columns of
                    // the first member, which `with_group` runs on and nothing modifies.
                    unsafe { code.eval_gradients_bounded(ws, &inputs, &bounds, vals, &group.jac) }
                })
            });
            if !done && group.code.is_some() {
                for &p in &group.members {
                    let cp = &self.pats[p];
                    let out = &mut vals[cp.jac_off..cp.jac_off + cp.len() * cp.nslots];
                    self.ev_grads(p, &mut s.ws[p], x, out);
                }
            }
        }
        for &p in &self.con_pats {
            if self.fused(p) {
                continue;
            }
            let cp = &self.pats[p];
            let out = &mut vals[cp.jac_off..cp.jac_off + cp.len() * cp.nslots];
            self.ev_grads(p, &mut s.ws[p], x, out);
        }
    }
}

/// The block of `blocks` holding global position `k` (a variable or a row), with the
/// element's index in the block.
fn block_position(blocks: &[Arc<BlockCore>], k: usize) -> Option<BlockPosition> {
    let core = blocks
        .iter()
        .find(|b| (b.offset..b.offset + b.shape.len()).contains(&k))?;
    let mut index = Vec::new();
    core.shape.key(k - core.offset, &mut index);
    Some(BlockPosition {
        block: core.name(),
        index,
    })
}

impl<T: Scalar> NlpModel<T> for Model<T> {
    fn meta(&self) -> &NlpMeta<T> {
        &self.meta
    }

    fn as_pattern_model(&self) -> Option<&Model<f64>> {
        (self as &dyn std::any::Any).downcast_ref::<Model<f64>>()
    }

    fn var_block(&self, j: usize) -> Option<BlockPosition> {
        block_position(&self.vars, j)
    }

    fn con_block(&self, i: usize) -> Option<BlockPosition> {
        block_position(&self.cons, i)
    }

    fn obj(&self, x: &[T]) -> T {
        let mut f = T::zero();
        // native sums need no scratch set (no lock): the patterns in order until one
        // needs it, then that one and the rest with the set
        for (i, &p) in self.obj_pats.iter().enumerate() {
            if !self.sum_objective(p, None, x, &mut f) {
                return self.with_scratch(|s| {
                    for &p in &self.obj_pats[i..] {
                        if !self.sum_objective(p, Some(&mut s.ws[p]), x, &mut f) {
                            let n = self.pats[p].len();
                            self.ev_values(p, &mut s.ws[p], x, &mut s.buf[..n]);
                            f = s.buf[..n].iter().fold(f, |a, &b| a + b);
                        }
                    }
                    f
                });
            }
        }
        f
    }

    fn grad(&self, x: &[T], g: &mut [T]) {
        g.iter_mut().for_each(|v| *v = T::zero());
        self.with_scratch(|s| {
            for &p in &self.obj_pats {
                let cp = &self.pats[p];
                let ws = &mut s.ws[p];
                let scattered = cp.index_bounds.is_some_and(|bounds| {
                    cp.with_view(|v| {
                        let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
                        // SAFETY: as in `obj`: `index_bounds` was computed at build over
                        // the same, never modified, columns; `globals` holds the slots'
                        // positions over them (`slot_globals` at build) and the plan was
                        // made from `globals` (`rebuild_plans`).
                        unsafe {
                            // at the slots' own positions (no positions array but for the
                            // points the plan repeats), else through `globals`
                            cp.pattern.eval_gradient_scatter_at_slots_split_bounded(
                                ws,
                                &inputs,
                                &bounds,
                                &cp.globals,
                                cp.grad_plan.as_deref(),
                                g,
                            ) || cp.pattern.eval_gradient_scatter_split_bounded(
                                ws,
                                &inputs,
                                &bounds,
                                &cp.globals,
                                cp.grad_plan.as_deref(),
                                g,
                            )
                        }
                    })
                });
                if !scattered {
                    let m = cp.len() * cp.nslots;
                    self.ev_grads(p, ws, x, &mut s.buf[..m]);
                    for (&gi, &v) in cp.globals.iter().zip(&s.buf[..m]) {
                        g[gi] = g[gi] + v;
                    }
                }
            }
        })
    }

    fn cons(&self, x: &[T], c: &mut [T]) {
        self.with_scratch(|s| {
            for (g, group) in self.groups.iter().enumerate() {
                let done = group.index_bounds.is_some_and(|bounds| {
                    self.with_group(g, s, |code, ws, v| {
                        let inputs = EvalInputs::new(v, x, &self.theta).parallel(self.par);
                        // SAFETY: as in `jac_into`.
                        unsafe { code.eval_values_bounded(ws, &inputs, &bounds, c, &group.rows) }
                    })
                });
                if !done && group.code.is_some() {
                    for (&p, &row0) in group.members.iter().zip(&group.rows) {
                        let n = self.pats[p].len();
                        self.ev_values(p, &mut s.ws[p], x, &mut c[row0..row0 + n]);
                    }
                }
            }
            for &p in &self.base_pats {
                if self.fused(p) {
                    continue;
                }
                let cp = &self.pats[p];
                if let Rows::Base { row0 } = cp.rows {
                    self.ev_values(p, &mut s.ws[p], x, &mut c[row0..row0 + cp.len()]);
                }
            }
            for &p in &self.aug_pats {
                let cp = &self.pats[p];
                let Rows::Augment { rows, .. } = &cp.rows else {
                    continue;
                };
                let ws = &mut s.ws[p];
                let scattered = cp.with_view(|v| {
                    cp.pattern.eval_value_scatter(
                        ws,
                        &EvalInputs::new(v, x, &self.theta).parallel(self.par),
                        rows,
                        c,
                    )
                });
                if !scattered {
                    let n = cp.len();
                    self.ev_values(p, ws, x, &mut s.buf[..n]);
                    for (&r, &v) in rows.iter().zip(&s.buf[..n]) {
                        c[r] = c[r] + v;
                    }
                }
            }
        })
    }

    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        for &p in &self.con_pats {
            let cp = &self.pats[p];
            let r = cp.jac_off..cp.jac_off + cp.len() * cp.nslots;
            cols[r.clone()].copy_from_slice(&cp.globals);
            if cp.nslots > 0 {
                for (k, ch) in rows[r].chunks_exact_mut(cp.nslots).enumerate() {
                    ch.iter_mut().for_each(|v| *v = cp.row(k));
                }
            }
        }
    }

    fn jac_coord(&self, x: &[T], vals: &mut [T]) {
        self.with_scratch(|s| self.jac_into(s, x, vals))
    }

    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.for_each_hess_entry(|i, ga, gb| {
            rows[i] = ga.max(gb);
            cols[i] = ga.min(gb);
        });
    }

    fn hess_coord(&self, x: &[T], y: &[T], obj_weight: T, vals: &mut [T]) {
        self.with_scratch(|s| self.hess_into(s, x, y, obj_weight, vals))
    }

    fn jprod(&self, x: &[T], v: &[T], jv: &mut [T]) {
        jv.iter_mut().for_each(|e| *e = T::zero());
        self.visit_jacobian_points(x, |row, columns, values| {
            let mut acc = T::zero();
            for (&column, &value) in columns.iter().zip(values) {
                acc = acc + value * v[column];
            }
            jv[row] = jv[row] + acc;
        })
    }

    fn jtprod(&self, x: &[T], v: &[T], jtv: &mut [T]) {
        jtv.iter_mut().for_each(|e| *e = T::zero());
        self.visit_jacobian_points(x, |row, columns, values| {
            let weight = v[row];
            for (&column, &value) in columns.iter().zip(values) {
                jtv[column] = jtv[column] + value * weight;
            }
        })
    }

    fn hprod(&self, x: &[T], y: &[T], obj_weight: T, v: &[T], hv: &mut [T]) {
        hv.iter_mut().for_each(|e| *e = T::zero());
        self.with_scratch(|s| {
            let mut hess = std::mem::take(&mut s.hess);
            self.hess_into(s, x, y, obj_weight, &mut hess);
            self.for_each_hess_entry(|i, r, c| {
                let val = hess[i];
                hv[r] = hv[r] + val * v[c];
                if r != c {
                    hv[c] = hv[c] + val * v[r];
                }
            });
            s.hess = hess;
        })
    }
}
