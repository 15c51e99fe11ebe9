//! The model builder and the block handles.

pub use crate::block::{BlockKind, Sense};

use crate::block::{BlockCore, Declarations, ExprDecl, PatKind, PatternDecl, lock};
use crate::data::{Collected, DataSource, collect};
use crate::error::ModelError;
use crate::index::IndexArg;
use crate::model::Model;
use crate::shape::{At, AtIdx, Dims, IntoShape, MAX_ELEMENTS, Shape, SymParts};
use crate::values::Values;
use ndarray::Ix1;
use simdnlp_ad::Parallelism;
use simdnlp_ad::{Evaluator, Expr, Index, Scalar};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

macro_rules! handle_common {
    ($H:ident) => {
        impl<D: Dims> Clone for $H<D> {
            fn clone(&self) -> Self {
                $H {
                    core: self.core.clone(),
                    _d: PhantomData,
                }
            }
        }
        impl<D: Dims> std::fmt::Debug for $H<D> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "{}({} {})",
                    stringify!($H),
                    self.core.name(),
                    self.core.shape
                )
            }
        }
        impl<D: Dims> $H<D> {
            pub(crate) fn from_core(core: Arc<BlockCore>) -> Self {
                $H {
                    core,
                    _d: PhantomData,
                }
            }
            /// The block's name (given with `named`, else a default like `x3`).
            pub fn name(&self) -> String {
                self.core.name()
            }
            /// Sets the block's name (used by printing and name lookups).
            pub fn named(self, name: &str) -> Self {
                self.core.rename(name);
                self
            }
            /// The index set.
            pub fn shape(&self) -> &Shape {
                &self.core.shape
            }
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.core.shape.len()
            }
            /// `true` when the block has no element.
            pub fn is_empty(&self) -> bool {
                self.core.shape.is_empty()
            }
            /// Position of the block's first element in the flat vector (`x`, `θ` or the
            /// constraint rows).
            pub fn offset(&self) -> usize {
                self.core.offset
            }
            /// The process-unique block id (the `block` of [`simdnlp_ad::VarRef`]s into this
            /// block).
            pub fn id(&self) -> u32 {
                self.core.uid
            }
        }
    };
}

/// A block of decision variables, any number of dimensions (`D` = `Ix0`…`Ix3`).
///
/// Returned by [`ModelBuilder::var`]; cheap to clone. The attribute setters (`lower`,
/// `start`, …) configure the declaration and only take effect at
/// [`ModelBuilder::build`]; after the build, change a model through its accessors
/// (`Model::set_lower`, …). Defaults: start 0, lower −∞, upper +∞.
pub struct Var<D: Dims = Ix1> {
    pub(crate) core: Arc<BlockCore>,
    _d: PhantomData<fn() -> D>,
}
handle_common!(Var);

impl<D: Dims> Var<D> {
    /// The variable at `idx` (one position per dimension: `x.at(i)`, `x.at(i - 1)`,
    /// `x.at((i, j))`, `x.at(nh)`), as an expression for a pattern. Positions are checked
    /// against the block, per dimension and data point, by `build()`. A scalar block
    /// (declared with `var(())`) has no dimensions: its one variable is `at(())`.
    pub fn at(&self, idx: impl At<D>) -> Expr {
        let r = self.core.reference(idx.args());
        lock(&self.core.accesses).push(r.dims.clone());
        Expr::var(r)
    }
    /// Lower bounds: a scalar or one value per element.
    pub fn lower(self, v: impl Into<Values>) -> Self {
        self.core.set("lower bound", v.into(), |a| &mut a.lower);
        self
    }
    /// Upper bounds: a scalar or one value per element.
    pub fn upper(self, v: impl Into<Values>) -> Self {
        self.core.set("upper bound", v.into(), |a| &mut a.upper);
        self
    }
    /// Lower and upper bounds.
    pub fn bounds(self, lower: impl Into<Values>, upper: impl Into<Values>) -> Self {
        self.lower(lower).upper(upper)
    }
    /// Starting point: a scalar or one value per element.
    pub fn start(self, v: impl Into<Values>) -> Self {
        self.core.set("start", v.into(), |a| &mut a.start);
        self
    }
    /// Lower bounds from a closure of the element's index.
    pub fn lower_with(self, f: impl Fn(D::Key) -> f64) -> Self {
        match self.core.values_with::<D>("lower bound", f) {
            Some(v) => self.lower(v),
            None => self,
        }
    }
    /// Upper bounds from a closure of the element's index.
    pub fn upper_with(self, f: impl Fn(D::Key) -> f64) -> Self {
        match self.core.values_with::<D>("upper bound", f) {
            Some(v) => self.upper(v),
            None => self,
        }
    }
    /// Starting point from a closure of the element's index (`|i| i as f64 / nh as f64`).
    pub fn start_with(self, f: impl Fn(D::Key) -> f64) -> Self {
        match self.core.values_with::<D>("start", f) {
            Some(v) => self.start(v),
            None => self,
        }
    }
}

/// A block of parameters: values in `θ`, usable in any pattern, changeable after the build
/// without rebuilding (`Model::set_value`).
pub struct Param<D: Dims = Ix1> {
    pub(crate) core: Arc<BlockCore>,
    _d: PhantomData<fn() -> D>,
}
handle_common!(Param);

impl<D: Dims> Param<D> {
    /// The parameter at `idx`, as an expression for a pattern.
    pub fn at(&self, idx: impl At<D>) -> Expr {
        let r = self.core.reference(idx.args());
        lock(&self.core.accesses).push(r.dims.clone());
        Expr::param(r)
    }
}

/// A block of constraint rows, one per data point of its pattern (multi-dimensional for a
/// product data source).
///
/// Bounds: with neither `lower` nor `upper` the rows are equalities `c(x) = 0`; with only
/// `upper(u)` they read `c(x) ≤ u` (`lcon = −∞`); with only `lower(l)`, `c(x) ≥ l`
/// (`ucon = +∞`); `bounds(l, u)` and `equal_to(v)` set both. Dual start 0 by default.
pub struct Con<D: Dims = Ix1> {
    pub(crate) core: Arc<BlockCore>,
    _d: PhantomData<fn() -> D>,
}
handle_common!(Con);

impl<D: Dims> Con<D> {
    /// Row lower bounds `lcon`.
    pub fn lower(self, v: impl Into<Values>) -> Self {
        self.core.set("lcon", v.into(), |a| &mut a.lower);
        self
    }
    /// Row upper bounds `ucon`.
    pub fn upper(self, v: impl Into<Values>) -> Self {
        self.core.set("ucon", v.into(), |a| &mut a.upper);
        self
    }
    /// Both row bounds.
    pub fn bounds(self, lower: impl Into<Values>, upper: impl Into<Values>) -> Self {
        self.lower(lower).upper(upper)
    }
    /// Equality rows `c(x) = v`.
    pub fn equal_to(self, v: impl Into<Values>) -> Self {
        let v = v.into();
        self.lower(v.clone()).upper(v)
    }
    /// Initial multipliers (dual start).
    pub fn dual_start(self, v: impl Into<Values>) -> Self {
        self.core.set("dual start", v.into(), |a| &mut a.start);
        self
    }
    /// `lcon` from a closure of the row's index.
    pub fn lower_with(self, f: impl Fn(D::Key) -> f64) -> Self {
        match self.core.values_with::<D>("lcon", f) {
            Some(v) => self.lower(v),
            None => self,
        }
    }
    /// `ucon` from a closure of the row's index.
    pub fn upper_with(self, f: impl Fn(D::Key) -> f64) -> Self {
        match self.core.values_with::<D>("ucon", f) {
            Some(v) => self.upper(v),
            None => self,
        }
    }
    /// Initial multipliers from a closure of the row's index.
    pub fn dual_start_with(self, f: impl Fn(D::Key) -> f64) -> Self {
        match self.core.values_with::<D>("dual start", f) {
            Some(v) => self.dual_start(v),
            None => self,
        }
    }
}

/// A named objective or augmentation pattern (for naming and printing only).
#[derive(Clone, Debug)]
pub struct PatternHandle {
    pub(crate) core: Arc<BlockCore>,
}

impl PatternHandle {
    /// Sets the pattern's name.
    pub fn named(self, name: &str) -> Self {
        self.core.rename(name);
        self
    }
    /// The pattern's name.
    pub fn name(&self) -> String {
        self.core.name()
    }
    /// Number of data points (terms).
    pub fn len(&self) -> usize {
        self.core.shape.len()
    }
    /// `true` when the pattern has no data point.
    pub fn is_empty(&self) -> bool {
        self.core.shape.is_empty()
    }
}

/// A block of inline subexpressions (`add_expr`): indexing it inside a later pattern
/// substitutes the expression; it creates no variables and no rows.
///
/// The block's closure is kept (borrowing what it captures for `'a`) and called at every
/// use with the requested position, so `s.at(i + 1)` inlines the expression of element
/// `i + 1`. Positions are checked against the block by `build()`.
pub struct ExprBlock<'a, D: Dims = Ix1> {
    core: Arc<BlockCore>,
    f: Rc<dyn Fn(D::Sym) -> Expr + 'a>,
}

impl<D: Dims> Clone for ExprBlock<'_, D> {
    fn clone(&self) -> Self {
        ExprBlock {
            core: self.core.clone(),
            f: self.f.clone(),
        }
    }
}

impl<D: Dims> ExprBlock<'_, D>
where
    D::Sym: SymParts,
{
    /// The subexpression at `idx` (affine positions: `s.at(i)`, `s.at(i + 1)`, `s.at(3)`).
    pub fn at(&self, idx: impl AtIdx<D>) -> Expr {
        let sym = idx.sym();
        lock(&self.core.accesses).push(sym.parts().iter().map(|p| p.index()).collect());
        (self.f)(sym)
    }
    /// The block's name.
    pub fn name(&self) -> String {
        self.core.name()
    }
    /// Sets the block's name.
    pub fn named(self, name: &str) -> Self {
        self.core.rename(name);
        self
    }
    /// The index set.
    pub fn shape(&self) -> &Shape {
        &self.core.shape
    }
}

/// Builds a model: declare blocks and patterns, then [`ModelBuilder::build`].
///
/// ```
/// use simdnlp_modeling::{ModelBuilder, NlpModel};
///
/// // Rosenbrock chain: min Σ 100 (x_{i-1}² − x_i)² + (x_{i-1} − 1)²
/// let n: usize = 10;
/// let mut m = ModelBuilder::new();
/// let x = m.var(1..=n).start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 }).named("x");
/// m.minimize(2..=n, |i| 100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2));
/// // a constraint block with one row per data point, here an inequality
/// let c = m.constraint(1..n, |i| x.at(i) + x.at(i + 1)).upper(4.0).named("pair");
/// let model = m.build().unwrap();
/// assert_eq!(model.meta().nvar, 10);
/// assert_eq!(model.meta().ncon, 9);
/// let f = model.obj(&model.meta().x0);
/// assert!(f > 0.0);
/// let xs = model.solution(&x, &model.meta().x0).unwrap(); // ndarray, the block's shape
/// assert_eq!(xs[0], -1.2);
/// # let _ = c;
/// ```
pub struct ModelBuilder<T: Scalar = f64> {
    /// Everything declared so far; [`ModelBuilder::build`] hands it to the compiler.
    pub(crate) decls: Declarations<T>,
}

impl ModelBuilder<f64> {
    /// A builder for an `f64` model (use `ModelBuilder::<f32>::default()` for `f32`).
    pub fn new() -> Self {
        Self::default()
    }
}

impl<T: Scalar> Default for ModelBuilder<T> {
    fn default() -> Self {
        ModelBuilder {
            decls: Declarations {
                name: String::new(),
                sense: None,
                sense_conflict: false,
                vars: Vec::new(),
                params: Vec::new(),
                cons: Vec::new(),
                exprs: Vec::new(),
                nvar: 0,
                ntheta: 0,
                ncon: 0,
                patterns: Vec::new(),
                errors: Vec::new(),
                failed: Vec::new(),
                threads: crate::model::default_threads(),
                evaluator: crate::model::default_evaluator(),
            },
        }
    }
}

impl<T: Scalar> ModelBuilder<T> {
    /// Sets the model's name (reported in `NlpMeta::name`).
    pub fn set_name(&mut self, name: &str) -> &mut Self {
        self.decls.name = name.to_string();
        self
    }

    /// Evaluates callbacks on several threads (rayon) or one (the default:
    /// [`default_threads`](crate::model::default_threads), sequential unless changed).
    pub fn set_threads(&mut self, threads: Parallelism) -> &mut Self {
        self.decls.threads = threads;
        self
    }

    /// Chooses the CPU evaluator of the patterns (default: [`default_evaluator`], which is
    /// [`Evaluator::Jit`] unless changed with [`set_default_evaluator`]). The JIT falls back
    /// to the interpreter for `f64` patterns it cannot compile and is not built for `f32`.
    ///
    /// [`default_evaluator`]: crate::model::default_evaluator
    /// [`set_default_evaluator`]: crate::model::set_default_evaluator
    pub fn set_evaluator(&mut self, evaluator: Evaluator) -> &mut Self {
        self.decls.evaluator = evaluator;
        self
    }

    /// The block's index set as a [`Shape`], or an empty shape of the right rank and the
    /// reason the index set is invalid (kept on the block, so that `build()` reports it
    /// under the name the block has by then).
    fn shape_of<S: IntoShape>(s: S) -> (Shape, Option<String>) {
        match s.into_shape() {
            Ok(sh) => (sh, None),
            Err(reason) => {
                let nd = match <S::Dims as Dims>::NDIM {
                    crate::shape::DYNAMIC => 0,
                    n => n,
                };
                (Shape::new(vec![(0, 0); nd]), Some(reason))
            }
        }
    }

    /// Keeps an invalid index set's error on `core` (see [`Self::shape_of`]).
    fn keep_shape_error(core: &BlockCore, bad: Option<String>) {
        if let Some(reason) = bad {
            lock(&core.attrs).errors.push(ModelError::BadShape {
                what: format!("{} block {}", core.kind.as_str(), core.default_name),
                reason,
            });
        }
    }

    /// Declares a block of variables over an index set: a count (`n` → `0..n`), a range
    /// with any start (`0..=nh`, `2..=10`), `()` for a single variable, a tuple for
    /// several dimensions (`(1..=nx, 1..=ny)`), or a run-time [`Shape`] (a `Var<IxDyn>`
    /// indexed with a `Vec` of positions).
    ///
    /// A scalar variable is a block over `()`, read with `at(())`; its solution is a
    /// 0-dimensional array, indexed with `[()]`:
    ///
    /// ```
    /// use simdnlp_modeling::{ModelBuilder, NlpModel};
    ///
    /// let mut m = ModelBuilder::new();
    /// let t = m.var(()).start(1.0).lower(0.0).named("t"); // one variable, `t`
    /// let x = m.var(3).named("x");
    /// m.minimize(0..3, |i| (x.at(i) - t.at(())).powi(2) + 0.1 * t.at(()).powi(2));
    /// let model = m.build().unwrap();
    /// assert_eq!(model.meta().nvar, 4);
    /// // printed by its name: `t`, not `t[0]`
    /// assert!(!model.to_string().contains("t["), "{model}");
    /// ```
    pub fn var<S: IntoShape>(&mut self, index_set: S) -> Var<S::Dims> {
        let k = self.decls.vars.len();
        let (shape, bad) = Self::shape_of(index_set);
        let n = shape.len();
        let core = BlockCore::new(BlockKind::Variable, shape, self.decls.nvar, format!("x{k}"));
        Self::keep_shape_error(&core, bad);
        self.decls.nvar = self.grow_total(self.decls.nvar, n, "variables", &core);
        self.decls.vars.push(core.clone());
        Var::from_core(core)
    }

    /// `total + n`, the running count of `what` (variables, parameters, constraint rows)
    /// after declaring `core`; past [`MAX_ELEMENTS`] it records [`ModelError::TooLarge`]
    /// (reported by `build()`) and keeps `total`, so later offsets stay meaningful.
    fn grow_total(&mut self, total: usize, n: usize, what: &str, core: &BlockCore) -> usize {
        match total.checked_add(n).filter(|&t| t <= MAX_ELEMENTS) {
            Some(t) => t,
            None => {
                self.decls.errors.push(ModelError::TooLarge {
                    what: format!("{what} of the model with block `{}`", core.default_name),
                    elements: (total as u64).saturating_add(n as u64),
                });
                total
            }
        }
    }

    /// Declares a one-dimensional parameter block holding `values` (`0..len`).
    pub fn param(&mut self, values: impl Into<Values>) -> Param<Ix1> {
        let v = values.into();
        let n = v.given_len().unwrap_or(1);
        self.param_shaped(n, v)
    }

    /// Declares a parameter block over an index set, with a scalar or one value per element.
    pub fn param_shaped<S: IntoShape>(
        &mut self,
        index_set: S,
        values: impl Into<Values>,
    ) -> Param<S::Dims> {
        let k = self.decls.params.len();
        let (shape, bad) = Self::shape_of(index_set);
        let n = shape.len();
        let core = BlockCore::new(
            BlockKind::Parameter,
            shape,
            self.decls.ntheta,
            format!("p{k}"),
        );
        Self::keep_shape_error(&core, bad);
        let v = values.into();
        if v.wrong_len(n) {
            let error = ModelError::LengthMismatch {
                block: core.default_name.clone(),
                what: "parameter values",
                expected: n,
                got: v.given_len().unwrap_or(0),
            };
            lock(&core.attrs).errors.push(error);
        }
        self.decls.ntheta = self.grow_total(self.decls.ntheta, n, "parameters", &core);
        self.decls.params.push((core.clone(), v));
        Param::from_core(core)
    }

    /// Positions used (through `at`) since the last call, per block, deduplicated.
    fn take_expr_refs(&mut self) -> Vec<(Arc<BlockCore>, Vec<Index>)> {
        let mut out = Vec::new();
        let cores = self
            .decls
            .vars
            .iter()
            .chain(self.decls.params.iter().map(|p| &p.0))
            .chain(self.decls.exprs.iter().map(|e| &e.core));
        for core in cores {
            let mut acc = lock(&core.accesses);
            for dims in acc.drain(..) {
                if !out
                    .iter()
                    .any(|(c, d): &(Arc<BlockCore>, Vec<Index>)| c.uid == core.uid && *d == dims)
                {
                    out.push((core.clone(), dims));
                }
            }
        }
        out
    }

    /// The label the next pattern of kind `kind_of` gets (`obj3`, `aug4`, `c2`).
    fn pattern_label(&self, kind_of: BlockKind) -> String {
        let k = self.decls.patterns.len();
        match kind_of {
            BlockKind::Objective => format!("obj{k}"),
            BlockKind::Augmentation => format!("aug{k}"),
            _ => format!("c{}", self.decls.cons.len()),
        }
    }

    /// Collects `data` for the next pattern of kind `kind_of`; errors name that pattern.
    fn collect_for<S: DataSource>(&self, kind_of: BlockKind, data: &S) -> Collected<S::Point, T> {
        collect::<S, T>(
            data,
            &format!("data of pattern {}", self.pattern_label(kind_of)),
        )
    }

    fn add_pattern<P>(
        &mut self,
        kind_of: BlockKind,
        data: Collected<P, T>,
        f: impl FnOnce(P) -> (Option<Vec<Index>>, Expr),
        con_core: Option<Arc<BlockCore>>,
    ) -> Result<(Arc<BlockCore>, Shape), ModelError> {
        let label = self.pattern_label(kind_of);
        let (point, cols, shape, desc) = data?;
        // accesses logged before this pattern belong to earlier patterns or to no pattern
        let _ = self.take_expr_refs();
        let (rows, expr) = f(point);
        let expr_refs = self.take_expr_refs();
        let core = match con_core {
            Some(c) => c,
            None => BlockCore::new(kind_of, shape.clone(), 0, label.clone()),
        };
        let kind = match kind_of {
            BlockKind::Objective => PatKind::Objective,
            BlockKind::Constraint => PatKind::Constraint {
                con: self.decls.cons.len(),
            },
            _ => PatKind::Augment {
                con: usize::MAX,
                rows: rows.unwrap_or_default(),
            },
        };
        self.decls.patterns.push(PatternDecl {
            core: core.clone(),
            kind,
            expr,
            cols,
            desc,
            expr_refs,
        });
        Ok((core, shape))
    }

    /// The core of a pattern whose data could not be collected: an empty block over
    /// `shape`, labelled like the pattern, that keeps `error` for `build()`, which reports
    /// it under the name the pattern's handle has by then.
    fn failed_pattern(
        &mut self,
        kind_of: BlockKind,
        shape: Shape,
        error: ModelError,
    ) -> Arc<BlockCore> {
        let label = self.pattern_label(kind_of);
        let core = BlockCore::new(kind_of, shape, 0, label);
        lock(&core.attrs).errors.push(error);
        self.decls.failed.push(core.clone());
        core
    }

    /// Adds an objective pattern: `f(point)` summed over the data points. All objective
    /// patterns are summed; the sense is minimize unless [`ModelBuilder::maximize`] (or
    /// [`ModelBuilder::set_sense`]) says otherwise.
    pub fn objective<S: DataSource>(
        &mut self,
        data: S,
        f: impl FnOnce(S::Point) -> Expr,
    ) -> PatternHandle {
        self.objective_from(self.collect_for(BlockKind::Objective, &data), f)
    }

    /// [`ModelBuilder::objective`] over collected columns (data sources and run-time
    /// tables alike).
    pub(crate) fn objective_from<P>(
        &mut self,
        data: Collected<P, T>,
        f: impl FnOnce(P) -> Expr,
    ) -> PatternHandle {
        match self.add_pattern(BlockKind::Objective, data, |p| (None, f(p)), None) {
            Ok((core, _)) => PatternHandle { core },
            Err(e) => PatternHandle {
                core: self.failed_pattern(BlockKind::Objective, Shape::default(), e),
            },
        }
    }

    fn set_sense_checked(&mut self, s: Sense) {
        match self.decls.sense {
            Some(old) if old != s => self.decls.sense_conflict = true,
            _ => self.decls.sense = Some(s),
        }
    }

    /// Adds an objective pattern to minimize (see [`ModelBuilder::objective`]).
    pub fn minimize<S: DataSource>(
        &mut self,
        data: S,
        f: impl FnOnce(S::Point) -> Expr,
    ) -> PatternHandle {
        self.set_sense_checked(Sense::Minimize);
        self.objective(data, f)
    }

    /// Adds an objective pattern to maximize (see [`ModelBuilder::objective`]).
    pub fn maximize<S: DataSource>(
        &mut self,
        data: S,
        f: impl FnOnce(S::Point) -> Expr,
    ) -> PatternHandle {
        self.set_sense_checked(Sense::Maximize);
        self.objective(data, f)
    }

    /// Sets the objective sense explicitly.
    pub fn set_sense(&mut self, sense: Sense) -> &mut Self {
        self.set_sense_checked(sense);
        self
    }

    /// Adds a constraint block: one row `f(point)` per data point (a multi-dimensional
    /// block for a product source), `lcon = ucon = 0` unless set on the returned handle.
    pub fn constraint<S: DataSource>(
        &mut self,
        data: S,
        f: impl FnOnce(S::Point) -> Expr,
    ) -> Con<S::Shape> {
        self.constraint_from(
            data.shape(),
            self.collect_for(BlockKind::Constraint, &data),
            f,
        )
    }

    /// [`ModelBuilder::constraint`] over collected columns whose row block has `shape`.
    pub(crate) fn constraint_from<P, D: Dims>(
        &mut self,
        shape: Result<Shape, String>,
        data: Collected<P, T>,
        f: impl FnOnce(P) -> Expr,
    ) -> Con<D> {
        let k = self.decls.cons.len();
        let shape = match shape.and_then(|s| Shape::checked(s.dims().to_vec())) {
            Ok(s) => s,
            Err(_) => Shape::new(vec![(0, 0); D::NDIM]),
        };
        let n = shape.len();
        let core = BlockCore::new(
            BlockKind::Constraint,
            shape,
            self.decls.ncon,
            format!("c{k}"),
        );
        match self.add_pattern(
            BlockKind::Constraint,
            data,
            |p| (None, f(p)),
            Some(core.clone()),
        ) {
            Ok(_) => {
                self.decls.ncon = self.grow_total(self.decls.ncon, n, "constraint rows", &core);
                self.decls.cons.push(core.clone());
                Con::from_core(core)
            }
            // keep the handle usable; build() reports the data error under its final name
            Err(e) => Con::from_core(self.failed_pattern(
                BlockKind::Constraint,
                Shape::new(vec![(0, 0); D::NDIM]),
                e,
            )),
        }
    }

    /// Augments an existing constraint block: for every data point, `f(point)` returns
    /// `(row, term)` and `term` is added to row `row` of `con` (in the block's own indices).
    /// Several data points may hit the same row; their terms accumulate. This is how a sum
    /// over heterogeneous sets (bus balance over generators and lines) stays a few patterns.
    ///
    /// ```
    /// use simdnlp_modeling::{ModelBuilder, NlpModel};
    /// let demand = [1.0, 2.0];
    /// let gens: Vec<(usize, usize)> = vec![(0, 0), (1, 1), (2, 1)]; // (generator, bus)
    /// let mut m = ModelBuilder::new();
    /// let pg = m.var(3).named("pg");
    /// let bal = m.constraint(&demand[..], |d| d - 0.0).named("balance");
    /// m.augment(&bal, &gens, |(g, bus)| (bus, -pg.at(g)));
    /// let model = m.build().unwrap();
    /// let mut c = [0.0; 2];
    /// model.cons(&[0.5, 1.0, 0.25], &mut c);
    /// assert_eq!(c, [0.5, 0.75]);
    /// ```
    pub fn augment<D: Dims, S: DataSource, R: At<D>>(
        &mut self,
        con: &Con<D>,
        data: S,
        f: impl FnOnce(S::Point) -> (R, Expr),
    ) -> PatternHandle {
        self.augment_from(con, self.collect_for(BlockKind::Augmentation, &data), |p| {
            let (r, e) = f(p);
            (r.args().iter().map(IndexArg::to_index).collect(), e)
        })
    }

    /// [`ModelBuilder::augment`] over collected columns; `f` returns the row position (one
    /// index per dimension of `con`) and the term.
    pub(crate) fn augment_from<P, D: Dims>(
        &mut self,
        con: &Con<D>,
        data: Collected<P, T>,
        f: impl FnOnce(P) -> (Vec<Index>, Expr),
    ) -> PatternHandle {
        let ci = self.decls.cons.iter().position(|c| c.uid == con.core.uid);
        let res = self.add_pattern(
            BlockKind::Augmentation,
            data,
            |p| {
                let (r, e) = f(p);
                (Some(r), e)
            },
            None,
        );
        let core = match res {
            Ok((core, _)) => core,
            Err(e) => {
                return PatternHandle {
                    core: self.failed_pattern(BlockKind::Augmentation, Shape::default(), e),
                };
            }
        };
        match ci {
            Some(ci) => {
                if let Some(PatternDecl {
                    kind: PatKind::Augment { con, .. },
                    ..
                }) = self.decls.patterns.last_mut()
                {
                    *con = ci;
                }
            }
            None => {
                self.decls.patterns.pop();
                self.decls.errors.push(ModelError::ForeignHandle {
                    kind: "constraint",
                    block: con.core.name(),
                });
            }
        }
        PatternHandle { core }
    }

    /// Declares a block of inline subexpressions over an index source (a range or a
    /// product of ranges): `s.at(j)` in a later pattern inlines `f(j)`. Creates no
    /// variables or rows.
    pub fn expr<'a, D, S, F>(&mut self, data: S, f: F) -> ExprBlock<'a, D>
    where
        D: Dims,
        S: DataSource<Shape = D, Point = D::Sym>,
        F: Fn(S::Point) -> Expr + 'a,
    {
        let k = self.decls.exprs.len();
        let label = format!("e{k}");
        let shape = match data.shape().and_then(|s| Shape::checked(s.dims().to_vec())) {
            Ok(s) => s,
            Err(reason) => {
                self.decls.errors.push(ModelError::BadShape {
                    what: format!("expression block {label}"),
                    reason,
                });
                Shape::new(vec![(0, 0); <S::Shape as Dims>::NDIM])
            }
        };
        let core = BlockCore::new(BlockKind::Expression, shape, 0, label);
        // the template, for printing only (point fields are the source's own columns)
        let mut alloc = crate::data::ColumnAlloc::default();
        let point = S::declare(&mut alloc);
        let _ = self.take_expr_refs();
        let template = f(point);
        let _ = self.take_expr_refs();
        let mut names = crate::data::ColumnAlloc::default();
        let desc = data.describe(&mut names);
        let mut nm = crate::data::ColumnAlloc::default();
        let int_names = (0..<S::Shape as Dims>::NDIM)
            .map(|_| nm.range_name())
            .collect();
        self.decls.exprs.push(ExprDecl {
            core: core.clone(),
            template,
            int_names,
            desc,
        });
        ExprBlock {
            core,
            f: Rc::new(f),
        }
    }

    /// Validates the declarations and compiles the patterns into a [`Model`].
    ///
    /// Errors: any position outside its block (per pattern, data point and dimension), a
    /// block of another builder, a NaN or inverted bound, a non-finite start, parameter or
    /// data field read by a pattern, a constraint row without variables whose value violates
    /// its bounds, a list of the wrong length, duplicate block names, conflicting senses, a
    /// pattern the AD compiler rejects, more elements than positions can address
    /// ([`ModelError::TooLarge`]) and a model too large for memory
    /// ([`ModelError::OutOfMemory`], with the bytes requested).
    pub fn build(self) -> Result<Model<T>, ModelError> {
        crate::compile::build(self.decls)
    }
}
