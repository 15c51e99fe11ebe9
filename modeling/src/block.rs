//! Block declarations: the shared state behind every block handle ([`BlockCore`]) and the
//! declared patterns and expression blocks a [`crate::ModelBuilder`] hands to the compiler.

use crate::alloc::try_with_capacity;
use crate::data::Columns;
use crate::error::ModelError;
use crate::index::IndexArg;
use crate::shape::{Dims, Shape};
use crate::values::Values;
use simdnlp_ad::{Evaluator, Expr, Index, Parallelism, Scalar, VarRef};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Block ids are unique in the process, so a handle of one model used in another is
/// detected instead of silently indexing the wrong block.
static NEXT_UID: AtomicU32 = AtomicU32::new(1);

/// What a block (or named pattern) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlockKind {
    /// Decision variables (a slice of `x`).
    Variable,
    /// Parameters (a slice of `θ`).
    Parameter,
    /// Constraint rows (a slice of `c(x)`).
    Constraint,
    /// An inline subexpression block.
    Expression,
    /// An objective pattern.
    Objective,
    /// An augmentation of an existing constraint block.
    Augmentation,
}

impl BlockKind {
    /// Lower-case name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Variable => "variable",
            BlockKind::Parameter => "parameter",
            BlockKind::Constraint => "constraint",
            BlockKind::Expression => "expression",
            BlockKind::Objective => "objective",
            BlockKind::Augmentation => "augmentation",
        }
    }
}

/// Objective sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sense {
    /// Minimize the sum of the objective patterns (the default).
    #[default]
    Minimize,
    /// Maximize it.
    Maximize,
}

#[derive(Debug, Default)]
pub(crate) struct Attrs {
    pub name: Option<String>,
    pub start: Option<Values>,
    pub lower: Option<Values>,
    pub upper: Option<Values>,
    pub errors: Vec<ModelError>,
    pub sealed: bool,
}

/// Shared state of one block: fixed geometry plus the attributes set through the handle.
#[derive(Debug)]
pub(crate) struct BlockCore {
    pub uid: u32,
    pub kind: BlockKind,
    pub shape: Shape,
    pub strides: Vec<usize>,
    pub offset: usize,
    pub default_name: String,
    pub attrs: Mutex<Attrs>,
    /// Expression blocks: positions used since the builder last collected them.
    pub accesses: Mutex<Vec<Vec<Index>>>,
}

pub(crate) fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl BlockCore {
    pub(crate) fn new(
        kind: BlockKind,
        shape: Shape,
        offset: usize,
        default_name: String,
    ) -> Arc<BlockCore> {
        Arc::new(BlockCore {
            uid: NEXT_UID.fetch_add(1, Ordering::Relaxed),
            kind,
            strides: shape.strides(),
            shape,
            offset,
            default_name,
            attrs: Mutex::new(Attrs::default()),
            accesses: Mutex::new(Vec::new()),
        })
    }

    /// The block's name (user-given or default).
    pub fn name(&self) -> String {
        lock(&self.attrs)
            .name
            .clone()
            .unwrap_or_else(|| self.default_name.clone())
    }

    /// A reference to the element at `args` (one per dimension).
    pub fn reference(&self, args: Vec<IndexArg>) -> VarRef {
        let dims: Vec<Index> = args.iter().map(IndexArg::to_index).collect();
        if dims.len() != self.shape.ndim() {
            // reported by validation (WrongArity); the global position is never used
            return VarRef::new(self.uid, dims, Index::Const(i64::MIN));
        }
        let affine: Option<Vec<_>> = args
            .iter()
            .map(|a| match a {
                IndexArg::Affine(i) => Some(*i),
                IndexArg::General(_) => None,
            })
            .collect();
        let global = match affine {
            Some(parts) => {
                let mut g = crate::index::Idx::constant(self.offset as i64);
                for (d, p) in parts.into_iter().enumerate() {
                    g = g + (p - self.shape.dims()[d].0) * (self.strides[d] as i64);
                }
                g.index()
            }
            None => {
                let mut g = Index::Const(self.offset as i64);
                for (d, p) in dims.iter().enumerate() {
                    g = g + (p - self.shape.dims()[d].0) * (self.strides[d] as i64);
                }
                g
            }
        };
        VarRef::new(self.uid, dims, global)
    }

    pub(crate) fn set(
        &self,
        what: &'static str,
        v: Values,
        pick: fn(&mut Attrs) -> &mut Option<Values>,
    ) {
        let mut a = lock(&self.attrs);
        if v.wrong_len(self.shape.len()) {
            let name = a.name.clone().unwrap_or_else(|| self.default_name.clone());
            a.errors.push(ModelError::LengthMismatch {
                block: name,
                what,
                expected: self.shape.len(),
                got: v.given_len().unwrap_or(0),
            });
            return;
        }
        *pick(&mut a) = Some(v);
    }

    /// One value per element from a closure of the element's index; `None` (after
    /// recording [`ModelError::OutOfMemory`] for `build()`) when the list cannot be
    /// allocated.
    pub(crate) fn values_with<D: Dims>(
        &self,
        what: &str,
        f: impl Fn(D::Key) -> f64,
    ) -> Option<Values> {
        let n = self.shape.len();
        let mut list = match try_with_capacity(n, || {
            format!("{what} of block `{}` ({n} values)", self.name())
        }) {
            Ok(list) => list,
            Err(e) => {
                lock(&self.attrs).errors.push(e);
                return None;
            }
        };
        let mut key = Vec::new();
        list.extend((0..n).map(|k| {
            self.shape.key(k, &mut key);
            f(D::key(&key))
        }));
        Some(Values::List(list))
    }

    pub(crate) fn rename(&self, name: &str) {
        lock(&self.attrs).name = Some(name.to_string());
    }
}

pub(crate) enum PatKind {
    Objective,
    Constraint { con: usize },
    Augment { con: usize, rows: Vec<Index> },
}

pub(crate) struct PatternDecl<T> {
    pub core: Arc<BlockCore>,
    pub kind: PatKind,
    pub expr: Expr,
    pub cols: Columns<T>,
    pub desc: String,
    pub expr_refs: Vec<(Arc<BlockCore>, Vec<Index>)>,
}

#[derive(Clone)]
pub(crate) struct ExprDecl {
    pub core: Arc<BlockCore>,
    pub template: Expr,
    pub int_names: Vec<String>,
    pub desc: String,
}

/// Everything a [`crate::ModelBuilder`] has declared: the blocks, the patterns, the errors
/// met while declaring, and the build settings. The builder fills it; the compiler
/// (`crate::compile`) consumes it, so neither module depends on the other.
pub(crate) struct Declarations<T: Scalar> {
    pub(crate) name: String,
    pub(crate) sense: Option<Sense>,
    pub(crate) sense_conflict: bool,
    pub(crate) vars: Vec<Arc<BlockCore>>,
    pub(crate) params: Vec<(Arc<BlockCore>, Values)>,
    pub(crate) cons: Vec<Arc<BlockCore>>,
    pub(crate) exprs: Vec<ExprDecl>,
    pub(crate) nvar: usize,
    pub(crate) ntheta: usize,
    pub(crate) ncon: usize,
    pub(crate) patterns: Vec<PatternDecl<T>>,
    pub(crate) errors: Vec<ModelError>,
    /// Patterns whose data could not be collected: each core carries its error and is the
    /// core of the handle the caller got, so a later `.named()` renames the error too.
    pub(crate) failed: Vec<Arc<BlockCore>>,
    pub(crate) threads: Parallelism,
    pub(crate) evaluator: Evaluator,
}
