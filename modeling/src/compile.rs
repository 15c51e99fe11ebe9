//! The model compiler: validates the declarations a
//! [`ModelBuilder`](crate::ModelBuilder) collected (bounds, starts, parameters, every
//! position against its block) and compiles the patterns into a [`Model`] with its
//! derivative layout. It reads the builder's `Declarations` (in `block.rs`), not the
//! builder, so the two modules do not depend on each other.

use crate::alloc::try_filled;
use crate::block::{BlockCore, BlockKind, Declarations, PatKind, Sense, lock};
use crate::data::Columns;
use crate::error::{ModelError, NonFiniteDatum};
use crate::model::{CompiledPattern, Group, HessBlock, Model, PatNamer, Rows};
use crate::nlp::{NlpMeta, NlpModel};
use crate::shape::Shape;
use crate::values::Values;
use simdnlp_ad::{DataView, GroupHessian, Index, Pattern, Scalar, SecondOrder, VarRef};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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

/// One side (lower or upper) of a block's bounds: the values the user gave, if any, and
/// the bound of every entry they did not give.
struct BoundSide<'a> {
    given: Option<&'a Values>,
    default: f64,
}

impl BoundSide<'_> {
    /// The bound of entry `k`.
    fn get(&self, k: usize) -> f64 {
        self.given.map_or(self.default, |v| v.get(k))
    }
}

/// Fills `lo`/`hi` (and checks them) from a block's attributes.
fn fill_bounds<T: Scalar>(
    core: &BlockCore,
    what: &'static str,
    (lower, upper): (BoundSide<'_>, BoundSide<'_>),
    lo: &mut [T],
    hi: &mut [T],
) -> Result<(), ModelError> {
    let name = core.name();
    for k in 0..lo.len() {
        let l = lower.get(k);
        let u = upper.get(k);
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

/// The model's meta with every vector allocated fallibly: start 0, free variables,
/// equality rows at 0 (the bounds are filled from the blocks afterwards).
fn try_meta<T: Scalar>(nvar: usize, ncon: usize) -> Result<NlpMeta<T>, ModelError> {
    let per_var = |what: &str| format!("{what} ({nvar} variables)");
    let per_row = |what: &str| format!("{what} ({ncon} constraint rows)");
    Ok(NlpMeta {
        nvar,
        ncon,
        nnzj: 0,
        nnzh: 0,
        x0: try_filled(nvar, T::zero(), || per_var("the starting point x0"))?,
        y0: try_filled(ncon, T::zero(), || per_row("the dual start y0"))?,
        lvar: try_filled(nvar, T::from_f64(f64::NEG_INFINITY), || {
            per_var("the variable lower bounds")
        })?,
        uvar: try_filled(nvar, T::from_f64(f64::INFINITY), || {
            per_var("the variable upper bounds")
        })?,
        lcon: try_filled(ncon, T::zero(), || per_row("the constraint lower bounds"))?,
        ucon: try_filled(ncon, T::zero(), || per_row("the constraint upper bounds"))?,
        minimize: true,
        name: String::new(),
    })
}

/// `nnz + npts · per_point`: the running count of Jacobian or Hessian entries.
fn grow_nnz(nnz: usize, npts: usize, per_point: usize, what: &str) -> Result<usize, ModelError> {
    npts.checked_mul(per_point)
        .and_then(|n| nnz.checked_add(n))
        .ok_or_else(|| ModelError::TooLarge {
            what: format!("{what} of the model"),
            elements: (npts as u64)
                .saturating_mul(per_point as u64)
                .saturating_add(nnz as u64),
        })
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

    /// Rejects a NaN or infinite value in any real data column the pattern reads.
    fn check_data<T: Scalar>(&self, read: &[u32], cols: &Columns<T>) -> Result<(), ModelError> {
        for &c in read {
            let Some(column) = cols.reals.get(c as usize) else {
                continue;
            };
            if let Some(point) = column.iter().position(|&v| !Scalar::to_f64(v).is_finite()) {
                return Err(ModelError::NonFiniteData(Box::new(NonFiniteDatum {
                    pattern: self.pattern.clone(),
                    point,
                    point_desc: point_desc(cols, point),
                    field: cols
                        .real_names
                        .get(c as usize)
                        .cloned()
                        .unwrap_or_else(|| format!("d{c}")),
                    value: Scalar::to_f64(column[point]),
                })));
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

/// A declaration error kept on a block, renamed from the block's default name to `name`,
/// the one it has at `build()`: a `.named()` later in the declaration's chain counts.
fn with_final_name(e: &ModelError, default_name: &str, name: &str) -> ModelError {
    let mut e = e.clone();
    match &mut e {
        ModelError::LengthMismatch { block, .. } if block == default_name => {
            *block = name.to_string();
        }
        ModelError::BadShape { what, .. } => {
            if let Some(kind) = what.strip_suffix(default_name) {
                *what = format!("{kind}{name}");
            } else {
                *what = with_pattern_name(what, default_name, name);
            }
        }
        ModelError::OutOfMemory { what, .. } => *what = with_pattern_name(what, default_name, name),
        _ => {}
    }
    e
}

/// `what` with the word `pattern <default_name>` (the label a pattern's data errors carry)
/// changed to `pattern <name>`; `pattern c1` inside `pattern c12` is left alone.
fn with_pattern_name(what: &str, default_name: &str, name: &str) -> String {
    let label = format!("pattern {default_name}");
    let mut out = String::with_capacity(what.len());
    let mut rest = what;
    while let Some(at) = rest.find(&label) {
        let end = at + label.len();
        let whole_word = !rest[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        if whole_word {
            out.push_str("pattern ");
            out.push_str(name);
        } else {
            out.push_str(&label);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

pub(crate) fn build<T: Scalar>(b: Declarations<T>) -> Result<Model<T>, ModelError> {
    if let Some(e) = b.errors.first() {
        return Err(e.clone());
    }
    for core in &b.failed {
        let attrs = lock(&core.attrs);
        if let Some(e) = attrs.errors.first() {
            let name = attrs.name.as_deref().unwrap_or(&core.default_name);
            return Err(with_final_name(e, &core.default_name, name));
        }
    }
    if b.sense_conflict {
        return Err(ModelError::ConflictingSense);
    }
    let all_cores = b
        .vars
        .iter()
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
            return Err(with_final_name(e, &c.default_name, &name));
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

    let mut meta = try_meta::<T>(b.nvar, b.ncon)?;
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
            (
                BoundSide {
                    given: lower.as_ref(),
                    default: f64::NEG_INFINITY,
                },
                BoundSide {
                    given: upper.as_ref(),
                    default: f64::INFINITY,
                },
            ),
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
            (
                BoundSide {
                    given: lower.as_ref(),
                    default: dlo,
                },
                BoundSide {
                    given: upper.as_ref(),
                    default: dhi,
                },
            ),
            &mut meta.lcon[r.clone()],
            &mut meta.ucon[r.clone()],
        )?;
        fill_finite(c, "dual start", start.as_ref(), &mut meta.y0[r])?;
    }
    let ntheta = b.ntheta;
    let mut theta = try_filled(ntheta, T::zero(), || {
        format!("the parameter vector θ ({ntheta} values)")
    })?;
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
        let compile = match decl.kind {
            PatKind::Objective => Pattern::<T>::compile_objective_for,
            PatKind::Augment { .. } => Pattern::<T>::compile_augment_for,
            PatKind::Constraint { .. } => Pattern::<T>::compile_for,
        };
        let pattern =
            compile(&decl.expr, SecondOrder::default(), b.evaluator).map_err(|source| {
                ModelError::Compile {
                    pattern: pname.clone(),
                    source,
                }
            })?;
        // every reference of the expression, also those the compiler merged into a slot of
        // another block at the same position (a foreign block must not pass as a local one)
        let leaves = decl.expr.leaves();
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
        for r in &leaves.vars {
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
        for r in &leaves.params {
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
        chk.check_data(&leaves.real_columns, &cols)?;
        let nglobals = npts
            .checked_mul(nslots)
            .ok_or_else(|| ModelError::TooLarge {
                what: format!("first-order slots of pattern `{pname}`"),
                elements: (npts as u64).saturating_mul(nslots as u64),
            })?;
        let mut globals = try_filled(nglobals, 0usize, || {
            format!("the variable positions of pattern `{pname}` ({npts} points × {nslots} slots)")
        })?;
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
                let mut out = try_filled(npts, core.offset, || {
                    format!("the rows of augmentation `{pname}` ({npts} points)")
                })?;
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
            nnzj = grow_nnz(nnzj, npts, nslots, "Jacobian entries")?;
        }
        // the Hessian layout is laid out below, once the groups are known
        let hess_off = 0;
        // the positions' range over columns fixed from here on (`cols` moves into the
        // model, which never modifies it)
        let index_bounds = pattern.index_bounds(&view);
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
            index_bounds,
            grad_plan: None,
        });
    }
    let (groups, group_of) = groups(&pats);
    let hess_blocks = hess_layout(&mut pats, &groups, &group_of, &mut nnzh)?;
    meta.nnzj = nnzj;
    meta.nnzh = nnzh;

    // off-diagonal second-order slots that hit one variable: doubled on the diagonal
    let mut hess_double = Vec::new();
    for block in &hess_blocks {
        for k in 0..block.len {
            for (e, &(p, a, bb)) in block.entries.iter().enumerate() {
                let cp = &pats[p];
                let g = &cp.globals[k * cp.nslots..(k + 1) * cp.nslots];
                if a != bb && g[a as usize] == g[bb as usize] {
                    hess_double.push(block.off + k * block.step() + e);
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
        hess_blocks,
        hess_double,
        groups,
        group_of,
        fusion: crate::model::default_fusion(),
        par: b.threads,
        primary: Mutex::new(None),
        pool: Mutex::new(Vec::with_capacity(8)),
    };
    if model.fusion && model.evaluator() == crate::model::Evaluator::Jit {
        let pats = &model.pats;
        for g in &mut model.groups {
            g.compile(pats);
        }
    }
    let s = model.try_new_scratch()?;
    *model.primary.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(s);
    model.rebuild_plans();
    check_constant_rows(&model)?;
    Ok(model)
}

/// Whether two patterns' data points are identical (the same columns with the same
/// values, bit for bit).
fn same_data<T: Scalar>(a: &Columns<T>, b: &Columns<T>) -> bool {
    a.len == b.len
        && a.ints == b.ints
        && a.reals.len() == b.reals.len()
        && a.reals.iter().zip(&b.reals).all(|(x, y)| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(u, v)| Scalar::to_f64(*u).to_bits() == Scalar::to_f64(*v).to_bits())
        })
}

/// The groups of constraint patterns with rows of their own over identical data points
/// (two or more members, in declaration order), and each pattern's group.
fn groups<T: Scalar>(pats: &[CompiledPattern<T>]) -> (Vec<Group<T>>, Vec<Option<usize>>) {
    let mut group_of: Vec<Option<usize>> = vec![None; pats.len()];
    let mut groups = Vec::new();
    let base = |p: &CompiledPattern<T>| match p.rows {
        Rows::Base { row0 } if p.len() > 0 => Some(row0),
        _ => None,
    };
    for (i, leader) in pats.iter().enumerate() {
        if group_of[i].is_some() || base(leader).is_none() {
            continue;
        }
        let members: Vec<usize> = (i..pats.len())
            .filter(|&j| {
                group_of[j].is_none()
                    && base(&pats[j]).is_some()
                    && (j == i || same_data(&leader.cols, &pats[j].cols))
            })
            .collect();
        if members.len() < 2 {
            continue;
        }
        for &m in &members {
            group_of[m] = Some(groups.len());
        }
        groups.push(Group {
            rows: members.iter().filter_map(|&m| base(&pats[m])).collect(),
            jac: members.iter().map(|&m| pats[m].jac_off).collect(),
            members,
            code: None,
            index_bounds: None,
        });
    }
    (groups, group_of)
}

/// The Hessian layout (see the `model` module docs): a block per pattern with
/// second-order slots in declaration order, except that the members of a group share one
/// summed block at the place of the first member with second-order slots. Sets each
/// pattern's `hess_off` (its block's first entry) and `nnzh`.
fn hess_layout<T: Scalar>(
    pats: &mut [CompiledPattern<T>],
    groups: &[Group<T>],
    group_of: &[Option<usize>],
    nnzh: &mut usize,
) -> Result<Vec<HessBlock>, ModelError> {
    let mut blocks: Vec<HessBlock> = Vec::new();
    let mut group_block: Vec<Option<usize>> = vec![None; groups.len()];
    for p in 0..pats.len() {
        if pats[p].nhess == 0 {
            continue;
        }
        let (len, off) = (pats[p].len(), *nnzh);
        let block = match group_of[p] {
            Some(g) => {
                if let Some(b) = group_block[g] {
                    pats[p].hess_off = blocks[b].off;
                    continue;
                }
                let members: Vec<usize> = groups[g]
                    .members
                    .iter()
                    .copied()
                    .filter(|&m| pats[m].nhess > 0)
                    .collect();
                let patterns: Vec<&Pattern<T>> =
                    members.iter().map(|&m| &pats[m].pattern).collect();
                let summed = GroupHessian::of(&patterns);
                group_block[g] = Some(blocks.len());
                HessBlock {
                    entries: summed
                        .entries
                        .iter()
                        .map(|&(m, a, b)| (members[m], a, b))
                        .collect(),
                    entry_of: summed.entry_of,
                    pats: members,
                    group: Some(g),
                    off,
                    len,
                }
            }
            None => HessBlock {
                entries: pats[p].hess_pairs.iter().map(|&(a, b)| (p, a, b)).collect(),
                entry_of: Vec::new(),
                pats: vec![p],
                group: None,
                off,
                len,
            },
        };
        *nnzh = grow_nnz(*nnzh, len, block.step(), "Hessian entries")?;
        pats[p].hess_off = off;
        blocks.push(block);
    }
    Ok(blocks)
}

/// Rejects a constraint row that reads no variable (neither in its base pattern nor in
/// any augmentation) and whose value, fixed by data and parameters, lies outside its
/// bounds by more than rounding (a relative 1e-8, coarser for `f32`) or is not finite: no `x` satisfies it,
/// and a solver would only find out after many iterations.
fn check_constant_rows<T: Scalar>(model: &Model<T>) -> Result<(), ModelError> {
    let reads_x = |p: usize| !model.pats[p].pattern.var_refs().is_empty();
    if model.con_pats.iter().all(|&p| reads_x(p)) {
        return Ok(());
    }
    let meta = &model.meta;
    let ncon = meta.ncon;
    let mut has_x = try_filled(ncon, false, || {
        format!("the constant-row check ({ncon} constraint rows)")
    })?;
    for &p in model.con_pats.iter().filter(|&&p| reads_x(p)) {
        let cp = &model.pats[p];
        for k in 0..cp.len() {
            has_x[cp.row(k)] = true;
        }
    }
    let mut values = try_filled(ncon, T::zero(), || {
        format!("the constant-row check ({ncon} constraint rows)")
    })?;
    model.cons(&meta.x0, &mut values);
    // 1e-8 relative, or a hundred ulps of the model's scalar type (f32) when coarser
    let rounding = 1e-8f64.max(100.0 * Scalar::to_f64(<T as num_traits::Float>::epsilon()));
    for (row, _) in has_x.iter().enumerate().filter(|(_, has)| !**has) {
        let value = Scalar::to_f64(values[row]);
        let (lower, upper) = (
            Scalar::to_f64(meta.lcon[row]),
            Scalar::to_f64(meta.ucon[row]),
        );
        let excess = (lower - value).max(value - upper);
        if value.is_finite() && excess <= rounding * value.abs().max(1.0) {
            continue;
        }
        let Some(core) = model
            .cons
            .iter()
            .find(|c| (c.offset..c.offset + c.shape.len()).contains(&row))
        else {
            continue;
        };
        return Err(ModelError::InfeasibleConstantRow {
            block: core.name(),
            at: key_str(&core.shape, row - core.offset),
            value,
            lower,
            upper,
        });
    }
    Ok(())
}
