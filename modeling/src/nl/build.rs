//! From a parsed `.nl` file to a [`Model`]: one variable block, constraint blocks for the
//! groups of rows with equal shapes, and a block of the remaining rows built from
//! augmentations grouped by summand shape; objective patterns grouped by summand shape.

use super::error::{Item, NlError};
use super::patterns::{Instance, Parts, RowShape, Shape, Shaper, Term};
use super::reader::{Names, NlFile};
use super::tree::Op;
use crate::builder::{Con, ModelBuilder, Sense, Var};
use crate::data::{Columns, table};
use crate::index::{Dat, Idx};
use crate::model::Model;
use crate::values::Values;
use ndarray::Ix1;
use simdnlp_ad::{Expr, Index};
use std::collections::HashMap;

/// A `.nl` file imported as a pattern model, with what the AMPL solver protocol needs to
/// map the solution back.
pub struct NlModel {
    /// The model. Its variables are the file's, in file order; its rows are the file's
    /// rows permuted by [`NlModel::row_of`].
    pub model: Model,
    /// The variable block (`x[0..n_var]`).
    pub x: Var<Ix1>,
    /// Model row of each file row.
    pub row_of: Vec<usize>,
    /// Number of patterns (objective, constraint and augmentation) the rows became.
    pub patterns: usize,
    /// Constraint blocks built from groups of rows with equal shapes.
    pub row_groups: usize,
    /// Rows that matched no other row (built from augmentations).
    pub unique_rows: usize,
    /// `true` when the objective is maximized.
    pub maximize: bool,
    /// The file's AMPL options (first header line), echoed into the `.sol` file.
    pub options: Vec<i64>,
    /// `vbtol` of the header, echoed into the `.sol` file.
    pub vbtol: Option<f64>,
    /// Number of variables and constraints of the file.
    pub n_var: usize,
    /// See `n_var`.
    pub n_con: usize,
    /// Row and column names.
    pub names: Names,
}

impl std::fmt::Debug for NlModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NlModel")
            .field("n_var", &self.n_var)
            .field("n_con", &self.n_con)
            .field("patterns", &self.patterns)
            .field("row_groups", &self.row_groups)
            .field("unique_rows", &self.unique_rows)
            .field("maximize", &self.maximize)
            .finish_non_exhaustive()
    }
}

impl NlModel {
    /// Constraint multipliers in file order and AMPL's sign convention, from the solver's
    /// multipliers `y` (model order, Ipopt's convention: `∇f + Jᵀy − z_L + z_U = 0` for a
    /// minimization, the same for `−f` when maximizing).
    pub fn ampl_duals(&self, y: &[f64]) -> Vec<f64> {
        let sign = if self.maximize { 1.0 } else { -1.0 };
        self.row_of
            .iter()
            .map(|&r| sign * y.get(r).copied().unwrap_or(0.0))
            .collect()
    }

    /// Constraint values in file order from model-order values (the file's constant
    /// summands are moved into the bounds, so these are the bodies without them).
    pub fn file_order(&self, model_rows: &[f64]) -> Vec<f64> {
        self.row_of
            .iter()
            .map(|&r| model_rows.get(r).copied().unwrap_or(0.0))
            .collect()
    }
}

/// Smallest number of rows with one shape that become their own constraint block.
const MIN_GROUP: usize = 2;

/// Builds the model of a parsed file.
pub fn build(file: &NlFile, names: Names) -> Result<NlModel, NlError> {
    let h = &file.header;
    check_supported(file, &names)?;
    let maximize = file.objectives.first().is_some_and(|o| o.maximize);
    let mut m = ModelBuilder::new();
    m.set_name("nl");
    let x = m
        .var(0..h.n_var as i64)
        .bounds(
            Values::List(file.var_lower.clone()),
            Values::List(file.var_upper.clone()),
        )
        .start(Values::List(file.x0.clone()))
        .named("x");
    let shaper = Shaper::new(file);
    let mut patterns = 0;

    // objective 0 (AMPL solvers optimize the first objective unless told otherwise)
    if let Some(obj) = file.objectives.first() {
        let item = names.obj(0, h.n_con);
        m.set_sense(if maximize {
            Sense::Maximize
        } else {
            Sense::Minimize
        });
        let parts = shaper.split(&obj.tree, &obj.linear, &item)?;
        patterns += objective(&mut m, &x, &shaper, &parts, &item)?;
    }

    // constraints: group whole rows by shape
    let mut shift = Vec::with_capacity(h.n_con);
    let mut groups: Vec<(RowShape, Vec<(usize, Instance)>)> = Vec::new();
    let mut index: HashMap<RowShape, usize> = HashMap::new();
    let mut all_parts = Vec::with_capacity(h.n_con);
    for (i, (tree, linear)) in file.con_trees.iter().zip(&file.con_linear).enumerate() {
        let item = names.con(i);
        let parts = shaper.split(tree, linear, &item)?;
        shift.push(parts.constant);
        let (shape, inst) = shaper.row(&parts, &item)?;
        let g = *index.entry(shape.clone()).or_insert_with(|| {
            groups.push((shape, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push((i, inst));
        all_parts.push(parts);
    }
    let sign = if maximize { -1.0 } else { 1.0 };
    let lower = |i: usize| file.con_lower[i] - shift[i];
    let upper = |i: usize| file.con_upper[i] - shift[i];
    let dual = |i: usize| -sign * file.y0[i];

    let mut row_of = vec![usize::MAX; h.n_con];
    let mut next_row = 0;
    let mut rest = Vec::new();
    let mut row_groups = 0;
    for (shape, rows) in &groups {
        if rows.len() < MIN_GROUP {
            rest.extend(rows.iter().map(|(i, _)| *i));
            continue;
        }
        let insts: Vec<&Instance> = rows.iter().map(|(_, inst)| inst).collect();
        let (cols, refs) = Table::new(&insts, None);
        let rows_i: Vec<usize> = rows.iter().map(|(i, _)| *i).collect();
        let con: Con<Ix1> = m.constraint_from(
            Ok(crate::shape::Shape::new(vec![(0, rows.len())])),
            table(cols),
            |()| {
                let vars = refs.var_exprs(&x);
                let consts = refs.const_exprs();
                let mut e = Expr::constant(0.0);
                for t in &shape.terms {
                    e = add_term(e, t, &vars, &consts);
                }
                for &(v, c) in &shape.linear {
                    e = e + &consts[c as usize] * &vars[v as usize];
                }
                e
            },
        );
        con.lower(Values::List(rows_i.iter().map(|&i| lower(i)).collect()))
            .upper(Values::List(rows_i.iter().map(|&i| upper(i)).collect()))
            .dual_start(Values::List(rows_i.iter().map(|&i| dual(i)).collect()))
            .named(&format!("rows{row_groups}"));
        for &i in &rows_i {
            row_of[i] = next_row;
            next_row += 1;
        }
        row_groups += 1;
        patterns += 1;
    }

    // the remaining rows: one block, its summands grouped by shape into augmentations
    rest.sort_unstable();
    if !rest.is_empty() {
        let n = rest.len();
        let con: Con<Ix1> = m.constraint_from(
            Ok(crate::shape::Shape::new(vec![(0, n)])),
            table(Columns::<f64> {
                len: n,
                ..Columns::default()
            }),
            |()| Expr::constant(0.0),
        );
        let con = con
            .lower(Values::List(rest.iter().map(|&i| lower(i)).collect()))
            .upper(Values::List(rest.iter().map(|&i| upper(i)).collect()))
            .dual_start(Values::List(rest.iter().map(|&i| dual(i)).collect()))
            .named("rows");
        patterns += 1;
        let mut terms: Vec<(Term, Vec<(usize, Instance)>)> = Vec::new();
        let mut tindex: HashMap<Term, usize> = HashMap::new();
        let mut linear = Vec::new();
        for (k, &i) in rest.iter().enumerate() {
            row_of[i] = next_row + k;
            let item = names.con(i);
            for &(neg, t) in &all_parts[i].terms {
                let (term, inst) = shaper.term(neg, t, &item)?;
                let g = *tindex.entry(term.clone()).or_insert_with(|| {
                    terms.push((term, Vec::new()));
                    terms.len() - 1
                });
                terms[g].1.push((k, inst));
            }
            linear.extend(all_parts[i].linear.iter().map(|&(j, c)| (k, j, c)));
        }
        for (term, rows) in &terms {
            let insts: Vec<&Instance> = rows.iter().map(|(_, inst)| inst).collect();
            let row_col: Vec<i64> = rows.iter().map(|(k, _)| *k as i64).collect();
            let (cols, refs) = Table::new(&insts, Some(row_col));
            m.augment_from(&con, table(cols), |()| {
                let vars = refs.var_exprs(&x);
                let consts = refs.const_exprs();
                let e = add_term(Expr::constant(0.0), term, &vars, &consts);
                (vec![refs.row_index()], e)
            });
            patterns += 1;
        }
        if !linear.is_empty() {
            let cols = Columns {
                len: linear.len(),
                ints: vec![
                    linear.iter().map(|l| l.0 as i64).collect(),
                    linear.iter().map(|l| l.1 as i64).collect(),
                ],
                reals: vec![linear.iter().map(|l| l.2).collect()],
                int_names: vec!["row".into(), "j".into()],
                real_names: vec!["a".into()],
            };
            m.augment_from(&con, table(cols), |()| {
                let e = Dat::field(0).expr() * x.at(Idx::field(1));
                (vec![Index::field(0)], e)
            });
            patterns += 1;
        }
    }

    let model = m.build()?;
    Ok(NlModel {
        model,
        x,
        row_of,
        patterns,
        row_groups,
        unique_rows: rest.len(),
        maximize,
        options: h.options.clone(),
        vbtol: h.vbtol,
        n_var: h.n_var,
        n_con: h.n_con,
        names,
    })
}

/// Rejects what the modeling layer cannot represent, naming the feature and an item.
fn check_supported(file: &NlFile, names: &Names) -> Result<(), NlError> {
    let h = &file.header;
    let discrete = h.nbv + h.niv + h.nlvbi + h.nlvci + h.nlvoi;
    if discrete > 0 {
        // integer variables come last within each nonlinear class and at the very end
        let first = if h.nlvbi > 0 {
            h.nlvb.saturating_sub(h.nlvbi)
        } else if h.nlvci > 0 {
            h.nlvc.saturating_sub(h.nlvci)
        } else if h.nlvoi > 0 {
            h.nlvo.saturating_sub(h.nlvoi)
        } else {
            h.n_var.saturating_sub(h.nbv + h.niv)
        };
        return Err(NlError::Unsupported {
            feature: format!(
                "integer variables ({} binary, {} integer, {} nonlinear integer)",
                h.nbv,
                h.niv,
                h.nlvbi + h.nlvci + h.nlvoi
            ),
            item: names.var(first.min(h.n_var.saturating_sub(1))),
            at: None,
        });
    }
    if h.n_cc > 0 {
        return Err(NlError::Unsupported {
            feature: format!("complementarity ({} conditions)", h.n_cc),
            item: Item::File,
            at: None,
        });
    }
    if h.n_lcon > 0 {
        return Err(NlError::Unsupported {
            feature: format!("logical constraints ({})", h.n_lcon),
            item: Item::Logical { index: 0 },
            at: None,
        });
    }
    Ok(())
}

/// Adds the objective's patterns: one per summand shape, one for the linear part, one for
/// the constant. Returns the number of patterns.
fn objective(
    m: &mut ModelBuilder,
    x: &Var<Ix1>,
    shaper: &Shaper,
    parts: &Parts<'_>,
    item: &Item,
) -> Result<usize, NlError> {
    let mut count = 0;
    let mut groups: Vec<(Term, Vec<Instance>)> = Vec::new();
    let mut index: HashMap<Term, usize> = HashMap::new();
    for &(neg, t) in &parts.terms {
        let (term, inst) = shaper.term(neg, t, item)?;
        let g = *index.entry(term.clone()).or_insert_with(|| {
            groups.push((term, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(inst);
    }
    for (term, insts) in &groups {
        let insts: Vec<&Instance> = insts.iter().collect();
        let (cols, refs) = Table::new(&insts, None);
        m.objective_from(table(cols), |()| {
            let vars = refs.var_exprs(x);
            let consts = refs.const_exprs();
            add_term(Expr::constant(0.0), term, &vars, &consts)
        });
        count += 1;
    }
    if !parts.linear.is_empty() {
        let cols = Columns {
            len: parts.linear.len(),
            ints: vec![parts.linear.iter().map(|l| l.0 as i64).collect()],
            reals: vec![parts.linear.iter().map(|l| l.1).collect()],
            int_names: vec!["j".into()],
            real_names: vec!["a".into()],
        };
        m.objective_from(table(cols), |()| Dat::field(0).expr() * x.at(Idx::field(0)));
        count += 1;
    }
    if parts.constant != 0.0 {
        let c = parts.constant;
        m.objective_from(
            table(Columns::<f64> {
                len: 1,
                ..Columns::default()
            }),
            |()| Expr::constant(c),
        );
        count += 1;
    }
    Ok(count)
}

/// The data table of a group: one integer column per variable slot (plus the row column of
/// an augmentation), one real column per constant slot whose value differs between rows.
struct Table {
    var_cols: Vec<u32>,
    /// Per constant slot: the group's common value, or its real column.
    consts: Vec<Result<f64, u32>>,
    row_col: Option<u32>,
}

impl Table {
    fn new(insts: &[&Instance], row: Option<Vec<i64>>) -> (Columns<f64>, Table) {
        let first = insts[0];
        let mut cols = Columns {
            len: insts.len(),
            ..Columns::default()
        };
        let mut var_cols = Vec::with_capacity(first.vars.len());
        for s in 0..first.vars.len() {
            var_cols.push(cols.ints.len() as u32);
            cols.ints
                .push(insts.iter().map(|i| i.vars[s] as i64).collect());
            cols.int_names.push(format!("j{s}"));
        }
        let row_col = row.map(|r| {
            cols.ints.push(r);
            cols.int_names.push("row".into());
            cols.ints.len() as u32 - 1
        });
        let mut consts = Vec::with_capacity(first.consts.len());
        for s in 0..first.consts.len() {
            let v0 = first.consts[s];
            if insts.iter().all(|i| i.consts[s] == v0) {
                consts.push(Ok(v0));
            } else {
                consts.push(Err(cols.reals.len() as u32));
                cols.reals.push(insts.iter().map(|i| i.consts[s]).collect());
                cols.real_names.push(format!("a{s}"));
            }
        }
        (
            cols,
            Table {
                var_cols,
                consts,
                row_col,
            },
        )
    }

    fn var_exprs(&self, x: &Var<Ix1>) -> Vec<Expr> {
        self.var_cols.iter().map(|&c| x.at(Idx::field(c))).collect()
    }

    fn const_exprs(&self) -> Vec<Expr> {
        self.consts
            .iter()
            .map(|c| match c {
                Ok(v) => Expr::constant(*v),
                Err(col) => Dat::field(*col).expr(),
            })
            .collect()
    }

    fn row_index(&self) -> Index {
        Index::field(self.row_col.unwrap_or(0))
    }
}

fn add_term(acc: Expr, t: &Term, vars: &[Expr], consts: &[Expr]) -> Expr {
    let e = expr(&t.shape, vars, consts);
    if t.negated { acc - e } else { acc + e }
}

fn lit(s: &Shape, consts: &[Expr], vars: &[Expr]) -> Result<f64, Expr> {
    match s {
        Shape::Lit(b) => Ok(f64::from_bits(*b)),
        other => Err(expr(other, vars, consts)),
    }
}

/// `x^p` for a constant exponent: repeated multiplication for small integers.
fn pow_const(base: Expr, p: f64) -> Expr {
    if p.fract() == 0.0 && p.abs() <= 64.0 {
        base.powi(p as i32)
    } else {
        base.powf(p)
    }
}

/// Truncation toward zero (derivative zero almost everywhere).
fn trunc(e: Expr) -> Expr {
    e.sign() * e.abs().floor()
}

/// 1 where `d ≥ 0`, else 0.
fn ge0(d: Expr) -> Expr {
    ((d.sign() + 1.0) * 0.5).ceil()
}

/// 1 where `d > 0`, else 0.
fn gt0(d: Expr) -> Expr {
    ((d.sign() + 1.0) * 0.5).floor()
}

/// The truth value (1 or 0) of a condition: a logical operator, or a number (true when
/// nonzero).
fn truth(s: &Shape, vars: &[Expr], consts: &[Expr]) -> Expr {
    match s {
        Shape::Op(op, _) if op.is_logical() => expr(s, vars, consts),
        other => expr(other, vars, consts).sign().abs(),
    }
}

/// The expression of a shape. Logical operators give 1 or 0 through `sign`, `floor` and
/// `ceil`, whose derivatives are zero, so `if c then a else b` becomes `H·a + (1 − H)·b`
/// with exact derivatives of the active branch (both branches are evaluated: a branch that
/// is not finite where it is not taken makes the result NaN).
fn expr(s: &Shape, vars: &[Expr], consts: &[Expr]) -> Expr {
    let a = |op: &[Shape], k: usize| expr(&op[k], vars, consts);
    match s {
        Shape::Var(k) => vars[*k as usize].clone(),
        Shape::Const(k) => consts[*k as usize].clone(),
        Shape::Lit(b) => Expr::constant(f64::from_bits(*b)),
        Shape::Op(op, args) => match op {
            Op::Plus => a(args, 0) + a(args, 1),
            Op::Minus => a(args, 0) - a(args, 1),
            Op::Mult => a(args, 0) * a(args, 1),
            Op::Div => a(args, 0) / a(args, 1),
            Op::Rem => {
                let (p, q) = (a(args, 0), a(args, 1));
                &p - &q * trunc(&p / &q)
            }
            Op::IntDiv => trunc(a(args, 0) / a(args, 1)),
            Op::Pow | Op::Pow1 | Op::PowC => match (&args[0], lit(&args[1], consts, vars)) {
                (base, Ok(p)) => pow_const(expr(base, vars, consts), p),
                (Shape::Lit(b), Err(e)) => Expr::constant(f64::from_bits(*b)).pow(e),
                (base, Err(e)) => expr(base, vars, consts).pow(e),
            },
            Op::Pow2 => a(args, 0).powi(2),
            Op::Less => (a(args, 0) - a(args, 1)).max(0.0),
            Op::MinList => fold(args, vars, consts, |p, q| p.min(q)),
            Op::MaxList => fold(args, vars, consts, |p, q| p.max(q)),
            Op::SumList => fold(args, vars, consts, |p, q| p + q),
            Op::Floor => a(args, 0).floor(),
            Op::Ceil => a(args, 0).ceil(),
            Op::Abs => a(args, 0).abs(),
            Op::Neg => -a(args, 0),
            Op::Tanh => a(args, 0).tanh(),
            Op::Tan => a(args, 0).tan(),
            Op::Sqrt => a(args, 0).sqrt(),
            Op::Sinh => a(args, 0).sinh(),
            Op::Sin => a(args, 0).sin(),
            Op::Log10 => a(args, 0).log10(),
            Op::Log => a(args, 0).log(),
            Op::Exp => a(args, 0).exp(),
            Op::Cosh => a(args, 0).cosh(),
            Op::Cos => a(args, 0).cos(),
            Op::Atanh => a(args, 0).atanh(),
            Op::Atan2 => a(args, 0).atan2(a(args, 1)),
            Op::Atan => a(args, 0).atan(),
            Op::Asinh => a(args, 0).asinh(),
            Op::Asin => a(args, 0).asin(),
            Op::Acosh => a(args, 0).acosh(),
            Op::Acos => a(args, 0).acos(),
            Op::Round | Op::Trunc => {
                // a literal by construction (`Shaper` rejects other digit arguments)
                let digits = lit(&args[1], consts, vars).unwrap_or(0.0);
                let scale = 10f64.powi(digits as i32);
                let v = a(args, 0) * scale;
                let r = if *op == Op::Round {
                    v.sign() * (v.abs() + 0.5).floor()
                } else {
                    trunc(v)
                };
                r / scale
            }
            Op::If => {
                let h = truth(&args[0], vars, consts);
                &h * a(args, 1) + (1.0 - &h) * a(args, 2)
            }
            Op::Lt => gt0(a(args, 1) - a(args, 0)),
            Op::Le => ge0(a(args, 1) - a(args, 0)),
            Op::Ge => ge0(a(args, 0) - a(args, 1)),
            Op::Gt => gt0(a(args, 0) - a(args, 1)),
            Op::Eq => 1.0 - (a(args, 0) - a(args, 1)).sign().abs(),
            Op::Ne => (a(args, 0) - a(args, 1)).sign().abs(),
            Op::Not => 1.0 - truth(&args[0], vars, consts),
            Op::And | Op::AndList => args
                .iter()
                .map(|s| truth(s, vars, consts))
                .reduce(|p, q| p * q)
                .unwrap_or_else(|| Expr::constant(1.0)),
            Op::Or | Op::OrList => {
                let none = args
                    .iter()
                    .map(|s| 1.0 - truth(s, vars, consts))
                    .reduce(|p, q| p * q)
                    .unwrap_or_else(|| Expr::constant(1.0));
                1.0 - none
            }
            Op::Implies => {
                let h = truth(&args[0], vars, consts);
                &h * truth(&args[1], vars, consts) + (1.0 - &h) * truth(&args[2], vars, consts)
            }
            Op::Iff => {
                let (p, q) = (truth(&args[0], vars, consts), truth(&args[1], vars, consts));
                &p * &q + (1.0 - &p) * (1.0 - &q)
            }
            // rejected by the reader
            _ => Expr::constant(f64::NAN),
        },
    }
}

fn fold(args: &[Shape], vars: &[Expr], consts: &[Expr], f: impl Fn(Expr, Expr) -> Expr) -> Expr {
    args.iter()
        .map(|s| expr(s, vars, consts))
        .reduce(f)
        .unwrap_or_else(|| Expr::constant(0.0))
}
