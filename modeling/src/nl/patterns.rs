//! Pattern detection: rows (and objective terms) whose expression trees are equal up to
//! variable indices and numeric constants share one [`Shape`].
//!
//! A row is flattened into *terms* (the summands of its top-level sums, with signs),
//! a constant (moved into the row bounds by the builder) and linear terms (the `J` segment
//! and the linear parts of defined variables). Defined variables are inlined. Canonicalizing
//! a term replaces every variable by a *slot* (numbered by first appearance in the row, so
//! `x[i]·x[i]` and `x[i]·x[j]` differ) and every constant by a constant slot, except the
//! constants that select a different function (exponents of powers, digits of
//! `round`/`trunc`), which stay in the shape as literals. Rows with equal shapes differ only
//! in their slot values: a data table.

use super::error::{Item, NlError};
use super::reader::{MAX_DEPTH, NlFile};
use super::tree::{Op, Tree};
use std::collections::HashMap;

/// Most nodes one row may expand to once defined variables are inlined.
pub const MAX_ROW_NODES: usize = 1 << 22;

/// A canonical expression: variables and constants replaced by slots.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// Variable slot `k` (a data column of variable indices).
    Var(u32),
    /// Constant slot `k` (a data column of values, or one constant for the group).
    Const(u32),
    /// A constant that is part of the shape (bits of the `f64`).
    Lit(u64),
    /// An operator over shapes.
    Op(Op, Vec<Shape>),
}

/// One summand of a row: sign and canonical shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term {
    /// `true` when the summand is subtracted.
    pub negated: bool,
    /// Its shape.
    pub shape: Shape,
}

/// A canonicalized row: its shape and the values of its slots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instance {
    /// Variable index of each variable slot.
    pub vars: Vec<usize>,
    /// Value of each constant slot.
    pub consts: Vec<f64>,
}

/// The shape of a whole row: its terms in canonical order, then its linear part as
/// `(variable slot, coefficient slot)` pairs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RowShape {
    /// Nonlinear summands.
    pub terms: Vec<Term>,
    /// Linear summands `coef · x`.
    pub linear: Vec<(u32, u32)>,
}

/// A row split into summands.
#[derive(Clone, Debug, Default)]
pub struct Parts<'t> {
    /// Nonlinear summands `(negated, tree)`.
    pub terms: Vec<(bool, &'t Tree)>,
    /// Linear summands `(variable, coefficient)`.
    pub linear: Vec<(usize, f64)>,
    /// Constant summand.
    pub constant: f64,
}

/// Splits rows into summands and canonicalizes them, inlining defined variables.
pub struct Shaper {
    /// Defined variables as trees, their linear part included.
    defs: Vec<Option<Tree>>,
}

/// Canonicalization state of one row: slot maps and values.
#[derive(Default)]
struct Slots {
    var_slot: HashMap<usize, u32>,
    inst: Instance,
    nodes: usize,
}

impl Slots {
    fn var(&mut self, j: usize) -> Shape {
        let next = self.inst.vars.len() as u32;
        let s = *self.var_slot.entry(j).or_insert(next);
        if s == next {
            self.inst.vars.push(j);
        }
        Shape::Var(s)
    }
    fn constant(&mut self, c: f64) -> Shape {
        self.inst.consts.push(c);
        Shape::Const(self.inst.consts.len() as u32 - 1)
    }
}

impl Shaper {
    /// A shaper over `file`'s defined variables.
    pub fn new(file: &NlFile) -> Self {
        let defs = file
            .defined
            .iter()
            .map(|d| {
                d.as_ref().map(|d| {
                    if d.linear.is_empty() {
                        return d.tree.clone();
                    }
                    let mut args = vec![d.tree.clone()];
                    args.extend(
                        d.linear
                            .iter()
                            .map(|&(j, c)| Tree::Op(Op::Mult, vec![Tree::Num(c), Tree::Var(j)])),
                    );
                    Tree::Op(Op::SumList, args)
                })
            })
            .collect();
        Shaper { defs }
    }

    fn def(&self, k: usize, item: &Item) -> Result<&Tree, NlError> {
        self.defs
            .get(k)
            .and_then(|d| d.as_ref())
            .ok_or_else(|| NlError::Unsupported {
                feature: format!("defined variable {k} used before its V segment"),
                item: item.clone(),
                at: None,
            })
    }

    /// Splits `tree + linear` into summands (flattening sums, differences, negations and
    /// top-level defined variables).
    pub fn split<'t>(
        &'t self,
        tree: &'t Tree,
        linear: &[(usize, f64)],
        item: &Item,
    ) -> Result<Parts<'t>, NlError> {
        let mut parts = Parts::default();
        parts
            .linear
            .extend(linear.iter().copied().filter(|&(_, c)| c != 0.0));
        let mut stack: Vec<(bool, &Tree, usize)> = vec![(false, tree, 0)];
        while let Some((neg, t, depth)) = stack.pop() {
            if depth > MAX_DEPTH {
                return Err(too_deep(item));
            }
            match t {
                Tree::Num(c) => parts.constant += if neg { -c } else { *c },
                Tree::Defined(k) => stack.push((neg, self.def(*k, item)?, depth + 1)),
                Tree::Op(Op::Plus | Op::SumList, args) => {
                    stack.extend(args.iter().rev().map(|a| (neg, a, depth + 1)))
                }
                Tree::Op(Op::Minus, args) => {
                    stack.push((!neg, &args[1], depth + 1));
                    stack.push((neg, &args[0], depth + 1));
                }
                Tree::Op(Op::Neg, args) => stack.push((!neg, &args[0], depth + 1)),
                Tree::Op(Op::Mult, args) if is_num(&args[0]) && is_var(&args[1]) => {
                    let (Tree::Num(c), Tree::Var(j)) = (&args[0], &args[1]) else {
                        unreachable!()
                    };
                    parts.linear.push((*j, if neg { -c } else { *c }));
                }
                Tree::Var(j) => parts.linear.push((*j, if neg { -1.0 } else { 1.0 })),
                _ => parts.terms.push((neg, t)),
            }
        }
        Ok(parts)
    }

    /// Canonical shape of one summand on its own (slots numbered within the summand).
    pub fn term(
        &self,
        negated: bool,
        tree: &Tree,
        item: &Item,
    ) -> Result<(Term, Instance), NlError> {
        let mut slots = Slots::default();
        let shape = self.canon(tree, &mut slots, 0, item)?;
        Ok((Term { negated, shape }, slots.inst))
    }

    /// Canonical shape of a whole row. Summands are put in a canonical order (by their own
    /// shapes) so rows that list the same summands in another order still match.
    pub fn row(&self, parts: &Parts<'_>, item: &Item) -> Result<(RowShape, Instance), NlError> {
        let mut keyed: Vec<(Term, usize)> = Vec::with_capacity(parts.terms.len());
        for (k, &(neg, t)) in parts.terms.iter().enumerate() {
            keyed.push((self.term(neg, t, item)?.0, k));
        }
        keyed.sort();
        let mut slots = Slots::default();
        let mut terms = Vec::with_capacity(keyed.len());
        for (term, k) in keyed {
            let shape = self.canon(parts.terms[k].1, &mut slots, 0, item)?;
            terms.push(Term {
                negated: term.negated,
                shape,
            });
        }
        let linear = parts
            .linear
            .iter()
            .map(|&(j, c)| {
                let Shape::Var(v) = slots.var(j) else {
                    unreachable!()
                };
                let Shape::Const(k) = slots.constant(c) else {
                    unreachable!()
                };
                (v, k)
            })
            .collect();
        Ok((RowShape { terms, linear }, slots.inst))
    }

    fn canon(
        &self,
        t: &Tree,
        slots: &mut Slots,
        depth: usize,
        item: &Item,
    ) -> Result<Shape, NlError> {
        if depth > MAX_DEPTH {
            return Err(too_deep(item));
        }
        slots.nodes += 1;
        if slots.nodes > MAX_ROW_NODES {
            return Err(NlError::Unsupported {
                feature: format!(
                    "an expression of more than {MAX_ROW_NODES} nodes once defined variables are inlined"
                ),
                item: item.clone(),
                at: None,
            });
        }
        Ok(match t {
            Tree::Num(c) => slots.constant(*c),
            Tree::Var(j) => slots.var(*j),
            Tree::Defined(k) => self.canon(self.def(*k, item)?, slots, depth + 1, item)?,
            Tree::Op(op @ (Op::Round | Op::Trunc), args) if !is_num(&args[1]) => {
                return Err(NlError::Unsupported {
                    feature: format!(
                        "`{}` with a number of digits that is not a constant",
                        op.name()
                    ),
                    item: item.clone(),
                    at: None,
                });
            }
            Tree::Op(op, args) => {
                // constants that choose the function stay in the shape
                let literal = |i: usize| {
                    matches!(
                        (op, i),
                        (Op::Pow, 0 | 1)
                            | (Op::Pow1, 1)
                            | (Op::PowC, 0)
                            | (Op::Round | Op::Trunc, 1)
                    )
                };
                let mut out = Vec::with_capacity(args.len());
                for (i, a) in args.iter().enumerate() {
                    out.push(match a {
                        Tree::Num(c) if literal(i) => Shape::Lit(c.to_bits()),
                        _ => self.canon(a, slots, depth + 1, item)?,
                    });
                }
                Shape::Op(*op, out)
            }
        })
    }
}

fn is_num(t: &Tree) -> bool {
    matches!(t, Tree::Num(_))
}

fn is_var(t: &Tree) -> bool {
    matches!(t, Tree::Var(_))
}

fn too_deep(item: &Item) -> NlError {
    NlError::Unsupported {
        feature: format!(
            "an expression nested deeper than {MAX_DEPTH} levels (or cyclic defined variables)"
        ),
        item: item.clone(),
        at: None,
    }
}
