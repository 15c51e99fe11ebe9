//! The built model: validation, compiled patterns, and the [`NlpModel`] callbacks.
//!
//! # Layout of the derivative arrays
//!
//! Jacobian and Hessian are partially compressed COO laid out per pattern, in declaration
//! order: pattern `p` (constraint or augmentation for the Jacobian; any pattern with
//! second-order slots for the Hessian) owns `[o_p, o_p + len_p · step_p)`, and its data
//! point `k` writes `[o_p + k·step_p, o_p + (k+1)·step_p)` where `step_p` is the number of
//! first-order (Jacobian) or second-order (Hessian) slots of the pattern.
//!
//! # Scratch memory and threads
//!
//! `NlpModel` callbacks take `&self` and must not allocate. Scratch memory (AD
//! workspaces, a value/gradient buffer, a weight buffer, and Jacobian/Hessian value
//! buffers for the products) lives in a pool behind a `Mutex`: a callback pops one scratch
//! set, uses it without holding the lock, and pushes it back. The model is built with one
//! set, so sequential use never allocates; a callback that finds every set in use by other
//! threads creates one more (once — it then stays in the pool). With
//! [`Parallelism::Rayon`] each pattern's data points are split across rayon's pool by the
//! AD evaluators; scatter-adds (gradient, augmentation rows, products) stay sequential.

use crate::builder::{BlockCore, BlockKind, ExprDecl, ModelBuilder, PatKind, Sense, lock};
use crate::data::Columns;
use crate::error::ModelError;
use crate::nlp::{NlpMeta, NlpModel};
use crate::shape::Shape;
use crate::values::Values;
use simdnlp_ad::{DataView, Expr, Index, Namer, Pattern, Scalar, VarRef, Workspace};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use simdnlp_ad::Parallelism;

/// How callbacks use threads (an alias of the AD crate's [`Parallelism`]).
pub type Threads = Parallelism;

#[derive(Clone, Debug)]
pub(crate) enum Rows {
    Objective,
    Base { row0: usize },
    Augment { con: usize, rows: Vec<usize> },
}

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
}

impl<T: Scalar> CompiledPattern<T> {
    fn len(&self) -> usize {
        self.cols.len
    }

    #[inline]
    fn with_view<R>(&self, f: impl FnOnce(&DataView<'_, T>) -> R) -> R {
        let reals: SmallVec<[&[T]; 32]> = self.cols.reals.iter().map(|c| c.as_slice()).collect();
        let ints: SmallVec<[&[i64]; 32]> = self.cols.ints.iter().map(|c| c.as_slice()).collect();
        let v = DataView::new(self.cols.len, &reals, &ints);
        f(&v)
    }

    /// Row of data point `k` (constraint patterns).
    #[inline]
    fn row(&self, k: usize) -> usize {
        match &self.rows {
            Rows::Base { row0 } => row0 + k,
            Rows::Augment { rows, .. } => rows[k],
            Rows::Objective => usize::MAX,
        }
    }
}

/// Scratch memory of one callback (see the module docs).
pub(crate) struct Scratch<T> {
    ws: Vec<Workspace<T>>,
    buf: Vec<T>,
    wts: Vec<T>,
    jac: Vec<T>,
    hess: Vec<T>,
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
    pub(crate) hess_double: Vec<usize>,
    pub(crate) par: Parallelism,
    pool: Mutex<Vec<Scratch<T>>>,
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

fn key_str(shape: &Shape, k: usize) -> String {
    let mut key = Vec::new();
    shape.key(k, &mut key);
    let parts: Vec<String> = key.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

fn point_desc<T: Scalar>(cols: &Columns<T>, k: usize) -> String {
    let mut parts: Vec<String> = cols
        .int_names
        .iter()
        .zip(&cols.ints)
        .map(|(n, c)| format!("{n} = {}", c[k]))
        .collect();
    parts.extend(
        cols.real_names
            .iter()
            .zip(&cols.reals)
            .map(|(n, c)| format!("{n} = {:?}", c[k].to_f64())),
    );
    if parts.is_empty() {
        "no fields".into()
    } else {
        parts.join(", ")
    }
}

/// Fills `lo`/`hi` (and checks them) from a block's attributes.
#[allow(clippy::too_many_arguments)]
fn fill_bounds<T: Scalar>(
    core: &BlockCore,
    what: &'static str,
    lower: Option<&Values>,
    upper: Option<&Values>,
    dlo: f64,
    dhi: f64,
    lo: &mut [T],
    hi: &mut [T],
) -> Result<(), ModelError> {
    let name = core.name();
    for k in 0..lo.len() {
        let l = lower.map_or(dlo, |v| v.get(k));
        let u = upper.map_or(dhi, |v| v.get(k));
        for (val, w) in [(l, "lower bound"), (u, "upper bound")] {
            if val.is_nan() {
                return Err(ModelError::NotANumber {
                    block: name,
                    what: w,
                    at: key_str(&core.shape, k),
                    value: val,
                });
            }
        }
        if l > u {
            return Err(ModelError::InvertedBounds {
                block: name,
                what,
                at: key_str(&core.shape, k),
                lower: l,
                upper: u,
            });
        }
        lo[k] = T::from_f64(l);
        hi[k] = T::from_f64(u);
    }
    Ok(())
}

fn fill_finite<T: Scalar>(
    core: &BlockCore,
    what: &'static str,
    v: Option<&Values>,
    out: &mut [T],
) -> Result<(), ModelError> {
    for (k, o) in out.iter_mut().enumerate() {
        let val = v.map_or(0.0, |v| v.get(k));
        if !val.is_finite() {
            return Err(ModelError::NotANumber {
                block: core.name(),
                what,
                at: key_str(&core.shape, k),
                value: val,
            });
        }
        *o = T::from_f64(val);
    }
    Ok(())
}

struct Checker<'a> {
    pattern: String,
    names: &'a HashMap<u32, String>,
    by_uid: &'a HashMap<u32, (BlockKind, usize)>,
}

impl Checker<'_> {
    /// Checks every position of `dims` against `core` at every data point.
    fn check_dims<T: Scalar>(
        &self,
        core: &BlockCore,
        dims: &[Index],
        view: &DataView<'_, T>,
        cols: &Columns<T>,
    ) -> Result<(), ModelError> {
        let kind = core.kind.as_str();
        if dims.len() != core.shape.ndim() {
            return Err(ModelError::WrongArity {
                pattern: self.pattern.clone(),
                kind,
                block: core.name(),
                expected: core.shape.ndim(),
                got: dims.len(),
            });
        }
        if dims.contains(&Index::Const(i64::MIN)) {
            return Err(ModelError::InvalidIndex {
                pattern: self.pattern.clone(),
                kind,
                block: core.name(),
            });
        }
        // positions are integer expressions: no block is printed in them
        let namer = PatNamer {
            names: self.names,
            ints: &cols.int_names,
            reals: &cols.real_names,
            scalars: &[],
        };
        for (d, ix) in dims.iter().enumerate() {
            let npts = if ix.as_const().is_some() {
                view.len.min(1)
            } else {
                view.len
            };
            for k in 0..npts {
                let v = ix.eval(view, k);
                if !core.shape.contains(d, v) {
                    return Err(ModelError::IndexOutOfRange(Box::new(
                        crate::error::OutOfRange {
                            pattern: self.pattern.clone(),
                            point: k,
                            point_desc: point_desc(cols, k),
                            kind,
                            block: core.name(),
                            dim: d,
                            index: v,
                            range: core.shape.range_str(d),
                            written: ix.display(&namer),
                        },
                    )));
                }
            }
        }
        Ok(())
    }

    fn block<'b>(
        &self,
        r: &VarRef,
        want: BlockKind,
        list: &'b [Arc<BlockCore>],
    ) -> Result<&'b Arc<BlockCore>, ModelError> {
        match self.by_uid.get(&r.block) {
            Some(&(k, i)) if k == want => Ok(&list[i]),
            _ => Err(ModelError::ForeignBlock {
                pattern: self.pattern.clone(),
                kind: want.as_str(),
                id: r.block,
            }),
        }
    }
}

pub(crate) fn build<T: Scalar>(b: ModelBuilder<T>) -> Result<Model<T>, ModelError> {
    if let Some(e) = b.errors.first() {
        return Err(e.clone());
    }
    if b.sense_conflict {
        return Err(ModelError::ConflictingSense);
    }
    let all_cores = b
        .failed
        .iter()
        .chain(b.vars.iter())
        .chain(b.params.iter().map(|p| &p.0))
        .chain(b.cons.iter())
        .chain(b.exprs.iter().map(|e| &e.core))
        .chain(b.patterns.iter().map(|p| &p.core));
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for c in all_cores {
        let a = lock(&c.attrs);
        let name = a.name.clone().unwrap_or_else(|| c.default_name.clone());
        if let Some(e) = a.errors.first() {
            // declaration errors name the block as named by now
            return Err(e.for_block(name));
        }
        drop(a);
        if let Some(&other) = seen.get(&name) {
            if other != c.uid {
                return Err(ModelError::DuplicateName { name });
            }
        }
        seen.insert(name.clone(), c.uid);
        names.insert(c.uid, name);
    }

    let mut by_uid = HashMap::new();
    for (i, c) in b.vars.iter().enumerate() {
        by_uid.insert(c.uid, (BlockKind::Variable, i));
    }
    for (i, (c, _)) in b.params.iter().enumerate() {
        by_uid.insert(c.uid, (BlockKind::Parameter, i));
    }
    for (i, c) in b.cons.iter().enumerate() {
        by_uid.insert(c.uid, (BlockKind::Constraint, i));
    }
    for (i, e) in b.exprs.iter().enumerate() {
        by_uid.insert(e.core.uid, (BlockKind::Expression, i));
    }

    let mut meta = NlpMeta::<T>::new(b.nvar, b.ncon);
    meta.name = b.name.clone();
    meta.minimize = b.sense != Some(Sense::Maximize);
    let attrs_of = |c: &BlockCore| {
        let a = lock(&c.attrs);
        (a.start.clone(), a.lower.clone(), a.upper.clone())
    };
    for v in &b.vars {
        let (start, lower, upper) = attrs_of(v);
        let r = v.offset..v.offset + v.shape.len();
        fill_bounds(
            v,
            "variable",
            lower.as_ref(),
            upper.as_ref(),
            f64::NEG_INFINITY,
            f64::INFINITY,
            &mut meta.lvar[r.clone()],
            &mut meta.uvar[r.clone()],
        )?;
        fill_finite(v, "start", start.as_ref(), &mut meta.x0[r])?;
    }
    for c in &b.cons {
        let (start, lower, upper) = attrs_of(c);
        let r = c.offset..c.offset + c.shape.len();
        // only one side given: the other is free (`.upper(1.0)` means `c ≤ 1`)
        let dlo = if lower.is_none() && upper.is_some() {
            f64::NEG_INFINITY
        } else {
            0.0
        };
        let dhi = if upper.is_none() && lower.is_some() {
            f64::INFINITY
        } else {
            0.0
        };
        fill_bounds(
            c,
            "constraint",
            lower.as_ref(),
            upper.as_ref(),
            dlo,
            dhi,
            &mut meta.lcon[r.clone()],
            &mut meta.ucon[r.clone()],
        )?;
        fill_finite(c, "dual start", start.as_ref(), &mut meta.y0[r])?;
    }
    let mut theta = vec![T::zero(); b.ntheta];
    for (p, v) in &b.params {
        fill_finite(
            p,
            "parameter value",
            Some(v),
            &mut theta[p.offset..p.offset + p.shape.len()],
        )?;
    }

    let param_cores: Vec<Arc<BlockCore>> = b.params.iter().map(|p| p.0.clone()).collect();
    let expr_cores: Vec<Arc<BlockCore>> = b.exprs.iter().map(|e| e.core.clone()).collect();
    let mut pats = Vec::with_capacity(b.patterns.len());
    let (mut nnzj, mut nnzh) = (0usize, 0usize);
    for decl in b.patterns {
        let pname = names
            .get(&decl.core.uid)
            .cloned()
            .unwrap_or_else(|| decl.core.name());
        let chk = Checker {
            pattern: pname.clone(),
            names: &names,
            by_uid: &by_uid,
        };
        let pattern = Pattern::<T>::compile(&decl.expr).map_err(|source| ModelError::Compile {
            pattern: pname.clone(),
            source,
        })?;
        let cols = decl.cols;
        let npts = cols.len;
        let nslots = pattern.slots().len();
        let hess_pairs: Vec<(u32, u32)> = pattern.hess_slots().to_vec();
        let nhess = hess_pairs.len();
        let reals: Vec<&[T]> = cols.reals.iter().map(|c| c.as_slice()).collect();
        let ints: Vec<&[i64]> = cols.ints.iter().map(|c| c.as_slice()).collect();
        let view = DataView::new(npts, &reals, &ints);
        // expression blocks first: their misuse also shows as a variable index error
        let mut refs: Vec<&(Arc<BlockCore>, Vec<Index>)> = decl.expr_refs.iter().collect();
        refs.sort_by_key(|(c, _)| c.kind != BlockKind::Expression);
        for (core, dims) in refs
            .iter()
            .take_while(|(c, _)| c.kind == BlockKind::Expression)
        {
            let Some(&(BlockKind::Expression, i)) = by_uid.get(&core.uid) else {
                return Err(ModelError::ForeignBlock {
                    pattern: pname.clone(),
                    kind: "expression",
                    id: core.uid,
                });
            };
            chk.check_dims(&expr_cores[i], dims, &view, &cols)?;
        }
        for r in pattern.slots() {
            let core = chk.block(r, BlockKind::Variable, &b.vars)?;
            // positions written with `at` are checked below; the rest (built elsewhere) here
            if !decl
                .expr_refs
                .iter()
                .any(|(c, d)| c.uid == r.block && *d == r.dims)
            {
                chk.check_dims(core, &r.dims, &view, &cols)?;
            }
        }
        for r in pattern.params() {
            let core = chk.block(r, BlockKind::Parameter, &param_cores)?;
            chk.check_dims(core, &r.dims, &view, &cols)?;
        }
        // every position written with `at` (also those the AD pruned from the slots)
        for (core, dims) in &decl.expr_refs {
            let target = match by_uid.get(&core.uid) {
                Some(&(BlockKind::Expression, i)) => &expr_cores[i],
                Some(&(BlockKind::Variable, i)) => &b.vars[i],
                Some(&(BlockKind::Parameter, i)) => &param_cores[i],
                _ => {
                    return Err(ModelError::ForeignBlock {
                        pattern: pname.clone(),
                        kind: core.kind.as_str(),
                        id: core.uid,
                    });
                }
            };
            chk.check_dims(target, dims, &view, &cols)?;
        }
        let mut globals = vec![0usize; npts * nslots];
        if nslots > 0 {
            for (k, g) in globals.chunks_exact_mut(nslots).enumerate() {
                pattern.slot_globals(&view, k, g);
            }
        }
        if globals.iter().any(|&g| g >= meta.nvar) {
            return Err(ModelError::InvalidIndex {
                pattern: pname,
                kind: "variable",
                block: "?".into(),
            });
        }
        let row_idx = match &decl.kind {
            PatKind::Augment { rows, .. } => rows.clone(),
            _ => Vec::new(),
        };
        let rows = match decl.kind {
            PatKind::Objective => Rows::Objective,
            PatKind::Constraint { con } => Rows::Base {
                row0: b.cons[con].offset,
            },
            PatKind::Augment { con, rows } => {
                let core = &b.cons[con];
                chk.check_dims(core, &rows, &view, &cols)?;
                let mut out = vec![core.offset; npts];
                for (d, ix) in rows.iter().enumerate() {
                    let (lo, _) = core.shape.dims()[d];
                    let st = core.strides[d];
                    for (k, o) in out.iter_mut().enumerate() {
                        *o += (ix.eval(&view, k) - lo) as usize * st;
                    }
                }
                Rows::Augment { con, rows: out }
            }
        };
        let jac_off = nnzj;
        if !matches!(rows, Rows::Objective) {
            nnzj += npts * nslots;
        }
        let hess_off = nnzh;
        nnzh += npts * nhess;
        pats.push(CompiledPattern {
            core: decl.core,
            rows,
            pattern,
            cols,
            expr: decl.expr,
            desc: decl.desc,
            nslots,
            nhess,
            globals,
            hess_pairs,
            jac_off,
            hess_off,
            row_idx,
        });
    }
    meta.nnzj = nnzj;
    meta.nnzh = nnzh;

    // off-diagonal second-order slots that hit one variable: doubled on the diagonal
    let mut hess_double = Vec::new();
    for cp in &pats {
        for (h, &(a, bb)) in cp.hess_pairs.iter().enumerate() {
            if a == bb {
                continue;
            }
            for k in 0..cp.len() {
                let g = &cp.globals[k * cp.nslots..(k + 1) * cp.nslots];
                if g[a as usize] == g[bb as usize] {
                    hess_double.push(cp.hess_off + k * cp.nhess + h);
                }
            }
        }
    }

    for c in b
        .vars
        .iter()
        .chain(&param_cores)
        .chain(&b.cons)
        .chain(&expr_cores)
    {
        lock(&c.attrs).sealed = true;
    }
    let sel = |f: &dyn Fn(&CompiledPattern<T>) -> bool| -> Vec<usize> {
        pats.iter()
            .enumerate()
            .filter(|(_, p)| f(p))
            .map(|(i, _)| i)
            .collect()
    };
    let obj_pats = sel(&|p| matches!(p.rows, Rows::Objective));
    let base_pats = sel(&|p| matches!(p.rows, Rows::Base { .. }));
    let aug_pats = sel(&|p| matches!(p.rows, Rows::Augment { .. }));
    let con_pats = sel(&|p| !matches!(p.rows, Rows::Objective));
    let hess_pats = sel(&|p| p.nhess > 0);
    let mut model = Model {
        meta,
        theta,
        vars: b.vars,
        params: param_cores,
        cons: b.cons,
        exprs: b.exprs,
        by_uid,
        names,
        pats,
        obj_pats,
        base_pats,
        aug_pats,
        con_pats,
        hess_pats,
        hess_double,
        par: b.threads,
        pool: Mutex::new(Vec::with_capacity(8)),
    };
    let s = model.new_scratch();
    model
        .pool
        .get_mut()
        .unwrap_or_else(|e| e.into_inner())
        .push(s);
    Ok(model)
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
            hess_double: self.hess_double.clone(),
            par: self.par,
            pool: Mutex::new(Vec::with_capacity(8)),
        };
        let s = m.new_scratch();
        m.pool.get_mut().unwrap_or_else(|e| e.into_inner()).push(s);
        m
    }
}

impl<T: Scalar> Model<T> {
    fn new_scratch(&self) -> Scratch<T> {
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
        Scratch {
            ws: self.pats.iter().map(|p| p.pattern.workspace()).collect(),
            buf: vec![T::zero(); nbuf],
            wts: vec![T::zero(); nw],
            jac: vec![T::zero(); self.meta.nnzj],
            hess: vec![T::zero(); self.meta.nnzh],
        }
    }

    fn with_scratch<R>(&self, f: impl FnOnce(&mut Scratch<T>) -> R) -> R {
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
    }

    /// The parameter vector `θ` (all parameter blocks, flat).
    pub fn theta(&self) -> &[T] {
        &self.theta
    }

    fn ev_values(&self, p: usize, ws: &mut Workspace<T>, x: &[T], out: &mut [T]) {
        let cp = &self.pats[p];
        cp.with_view(|v| {
            cp.pattern
                .eval_values_with(ws, v, x, &self.theta, out, self.par)
        });
    }

    fn ev_grads(&self, p: usize, ws: &mut Workspace<T>, x: &[T], out: &mut [T]) {
        let cp = &self.pats[p];
        cp.with_view(|v| {
            cp.pattern
                .eval_gradients_with(ws, v, x, &self.theta, None, out, self.par)
        });
    }

    fn ev_hess(&self, p: usize, ws: &mut Workspace<T>, x: &[T], w: &[T], out: &mut [T]) {
        let cp = &self.pats[p];
        cp.with_view(|v| {
            cp.pattern
                .eval_hessians_with(ws, v, x, &self.theta, w, out, self.par)
        });
    }

    fn hess_into(&self, s: &mut Scratch<T>, x: &[T], y: &[T], sigma: T, vals: &mut [T]) {
        for &p in &self.hess_pats {
            let cp = &self.pats[p];
            let n = cp.len();
            let out = &mut vals[cp.hess_off..cp.hess_off + n * cp.nhess];
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
        for &i in &self.hess_double {
            vals[i] = vals[i] + vals[i];
        }
    }

    fn jac_into(&self, s: &mut Scratch<T>, x: &[T], vals: &mut [T]) {
        for &p in &self.con_pats {
            let cp = &self.pats[p];
            let out = &mut vals[cp.jac_off..cp.jac_off + cp.len() * cp.nslots];
            self.ev_grads(p, &mut s.ws[p], x, out);
        }
    }
}

impl<T: Scalar> NlpModel<T> for Model<T> {
    fn meta(&self) -> &NlpMeta<T> {
        &self.meta
    }

    fn obj(&self, x: &[T]) -> T {
        self.with_scratch(|s| {
            let mut f = T::zero();
            for &p in &self.obj_pats {
                let n = self.pats[p].len();
                self.ev_values(p, &mut s.ws[p], x, &mut s.buf[..n]);
                f = s.buf[..n].iter().fold(f, |a, &b| a + b);
            }
            f
        })
    }

    fn grad(&self, x: &[T], g: &mut [T]) {
        g.iter_mut().for_each(|v| *v = T::zero());
        self.with_scratch(|s| {
            for &p in &self.obj_pats {
                let cp = &self.pats[p];
                let m = cp.len() * cp.nslots;
                self.ev_grads(p, &mut s.ws[p], x, &mut s.buf[..m]);
                for (&gi, &v) in cp.globals.iter().zip(&s.buf[..m]) {
                    g[gi] = g[gi] + v;
                }
            }
        })
    }

    fn cons(&self, x: &[T], c: &mut [T]) {
        self.with_scratch(|s| {
            for &p in &self.base_pats {
                let cp = &self.pats[p];
                if let Rows::Base { row0 } = cp.rows {
                    self.ev_values(p, &mut s.ws[p], x, &mut c[row0..row0 + cp.len()]);
                }
            }
            for &p in &self.aug_pats {
                let cp = &self.pats[p];
                let n = cp.len();
                self.ev_values(p, &mut s.ws[p], x, &mut s.buf[..n]);
                if let Rows::Augment { rows, .. } = &cp.rows {
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
        for &p in &self.hess_pats {
            let cp = &self.pats[p];
            for k in 0..cp.len() {
                let g = &cp.globals[k * cp.nslots..(k + 1) * cp.nslots];
                for (h, &(a, b)) in cp.hess_pairs.iter().enumerate() {
                    let (ga, gb) = (g[a as usize], g[b as usize]);
                    let i = cp.hess_off + k * cp.nhess + h;
                    rows[i] = ga.max(gb);
                    cols[i] = ga.min(gb);
                }
            }
        }
    }

    fn hess_coord(&self, x: &[T], y: &[T], obj_weight: T, vals: &mut [T]) {
        self.with_scratch(|s| self.hess_into(s, x, y, obj_weight, vals))
    }

    fn jprod(&self, x: &[T], v: &[T], jv: &mut [T]) {
        jv.iter_mut().for_each(|e| *e = T::zero());
        self.with_scratch(|s| {
            let mut jac = std::mem::take(&mut s.jac);
            self.jac_into(s, x, &mut jac);
            for &p in &self.con_pats {
                let cp = &self.pats[p];
                if cp.nslots == 0 {
                    continue;
                }
                let vals = &jac[cp.jac_off..cp.jac_off + cp.len() * cp.nslots];
                for (k, (g, jv_k)) in cp
                    .globals
                    .chunks_exact(cp.nslots)
                    .zip(vals.chunks_exact(cp.nslots))
                    .enumerate()
                {
                    let mut acc = T::zero();
                    for (&gi, &val) in g.iter().zip(jv_k) {
                        acc = acc + val * v[gi];
                    }
                    let r = cp.row(k);
                    jv[r] = jv[r] + acc;
                }
            }
            s.jac = jac;
        })
    }

    fn jtprod(&self, x: &[T], v: &[T], jtv: &mut [T]) {
        jtv.iter_mut().for_each(|e| *e = T::zero());
        self.with_scratch(|s| {
            let mut jac = std::mem::take(&mut s.jac);
            self.jac_into(s, x, &mut jac);
            for &p in &self.con_pats {
                let cp = &self.pats[p];
                if cp.nslots == 0 {
                    continue;
                }
                let vals = &jac[cp.jac_off..cp.jac_off + cp.len() * cp.nslots];
                for (k, (g, jv_k)) in cp
                    .globals
                    .chunks_exact(cp.nslots)
                    .zip(vals.chunks_exact(cp.nslots))
                    .enumerate()
                {
                    let vr = v[cp.row(k)];
                    for (&gi, &val) in g.iter().zip(jv_k) {
                        jtv[gi] = jtv[gi] + val * vr;
                    }
                }
            }
            s.jac = jac;
        })
    }

    fn hprod(&self, x: &[T], y: &[T], obj_weight: T, v: &[T], hv: &mut [T]) {
        hv.iter_mut().for_each(|e| *e = T::zero());
        self.with_scratch(|s| {
            let mut hess = std::mem::take(&mut s.hess);
            self.hess_into(s, x, y, obj_weight, &mut hess);
            for &p in &self.hess_pats {
                let cp = &self.pats[p];
                for k in 0..cp.len() {
                    let g = &cp.globals[k * cp.nslots..(k + 1) * cp.nslots];
                    let hk = &hess[cp.hess_off + k * cp.nhess..cp.hess_off + (k + 1) * cp.nhess];
                    for (&(a, b), &val) in cp.hess_pairs.iter().zip(hk) {
                        let (r, c) = (g[a as usize], g[b as usize]);
                        hv[r] = hv[r] + val * v[c];
                        if r != c {
                            hv[c] = hv[c] + val * v[r];
                        }
                    }
                }
            }
            s.hess = hess;
        })
    }
}
