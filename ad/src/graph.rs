//! Hash-consed DAG of an expression and symbolic differentiation on it.

use crate::error::AdError;
use crate::expr::{Expr, Node};
use crate::index::Index;
use crate::ops::{BKey, Bin, BinOp, BinPart, UKey, Un, UnOp};
use crate::print::DefaultNamer;
use std::collections::HashMap;
use std::f64::consts::PI;

/// Structural identity of a node given its children's ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Const(u64),
    Var(Index),
    Param(Index),
    Data(u32),
    Int(Index),
    Un(UKey, u32),
    Bin(BKey, u32, u32),
}

/// One node of the DAG: a canonical expression handle and its children.
pub(crate) struct GNode {
    pub expr: Expr,
    pub key: Key,
}

impl GNode {
    pub fn children(&self) -> (Option<u32>, Option<u32>) {
        match &self.key {
            Key::Un(_, a) => (Some(*a), None),
            Key::Bin(_, a, b) => (Some(*a), Some(*b)),
            _ => (None, None),
        }
    }
}

/// A hash-consed DAG: equal subexpressions are one node; node ids are in topological order
/// (children before parents).
#[derive(Default)]
pub(crate) struct Graph {
    pub nodes: Vec<GNode>,
    by_key: HashMap<Key, u32>,
    by_ptr: HashMap<usize, u32>,
}

impl Graph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns `e` and everything below it (iteratively: deep expressions do not recurse).
    pub fn intern(&mut self, e: &Expr) -> Result<u32, AdError> {
        let ptr = |e: &Expr| std::sync::Arc::as_ptr(&e.0) as usize;
        if let Some(&id) = self.by_ptr.get(&ptr(e)) {
            return Ok(id);
        }
        let mut stack: Vec<(Expr, bool)> = vec![(e.clone(), false)];
        while let Some((cur, expanded)) = stack.pop() {
            if self.by_ptr.contains_key(&ptr(&cur)) {
                continue;
            }
            let kids: Vec<&Expr> = match cur.node() {
                Node::Un(_, a) => vec![a],
                Node::Bin(_, a, b) => vec![a, b],
                _ => vec![],
            };
            if !expanded {
                let pending: Vec<Expr> = kids
                    .iter()
                    .filter(|k| !self.by_ptr.contains_key(&ptr(k)))
                    .map(|k| (*k).clone())
                    .collect();
                if !pending.is_empty() {
                    stack.push((cur.clone(), true));
                    for k in pending.into_iter().rev() {
                        stack.push((k, false));
                    }
                    continue;
                }
            }
            let id_of = |k: &Expr| self.by_ptr[&ptr(k)];
            let key = match cur.node() {
                Node::Const(c) => Key::Const(c.to_bits()),
                Node::Var(r) => Key::Var(r.global.clone()),
                Node::Param(r) => Key::Param(r.global.clone()),
                Node::Data(c) => Key::Data(*c),
                Node::Int(i) => Key::Int(i.clone()),
                Node::Un(op, a) => Key::Un(op.key(), id_of(a)),
                Node::Bin(op, a, b) => Key::Bin(op.key(), id_of(a), id_of(b)),
            };
            let id = match self.by_key.get(&key) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(self.nodes.len()).map_err(|_| AdError::TooLarge {
                        what: "more than 2^32 graph nodes".into(),
                    })?;
                    self.nodes.push(GNode {
                        expr: cur.clone(),
                        key: key.clone(),
                    });
                    self.by_key.insert(key, id);
                    id
                }
            };
            self.by_ptr.insert(ptr(&cur), id);
        }
        Ok(self.by_ptr[&ptr(e)])
    }
}

fn c(v: f64) -> Expr {
    Expr::constant(v)
}

fn missing(name: &str, order: u8, e: &Expr) -> AdError {
    AdError::MissingDerivative {
        function: name.to_string(),
        order,
        node: e.display(&DefaultNamer),
    }
}

/// Partial derivatives of node `e` with respect to its operands, as expressions.
pub(crate) fn partials(e: &Expr) -> Result<(Option<Expr>, Option<Expr>), AdError> {
    let deg = PI / 180.0;
    let rad = 180.0 / PI;
    Ok(match e.node() {
        Node::Un(op, a) => {
            let y = e;
            let d = match op {
                UnOp::B(u) => match u {
                    Un::Neg => c(-1.0),
                    Un::Exp => y.clone(),
                    Un::Exp2 => c(crate::ops::LN2) * y,
                    Un::Exp10 => c(crate::ops::LN10) * y,
                    Un::Expm1 => a.exp(),
                    Un::Log => a.inv(),
                    Un::Log2 => c(std::f64::consts::LOG2_E) * a.inv(),
                    Un::Log10 => c(std::f64::consts::LOG10_E) * a.inv(),
                    Un::Log1p => (1.0 + a).inv(),
                    Un::Sqrt => c(0.5) / y,
                    Un::Cbrt => (c(3.0) * y.abs2()).inv(),
                    Un::Sin => a.cos(),
                    Un::Cos => -a.sin(),
                    Un::Tan => 1.0 + y.abs2(),
                    Un::Csc => -(y * a.cot()),
                    Un::Sec => y * a.tan(),
                    Un::Cot => -(1.0 + y.abs2()),
                    Un::Asin => (1.0 - a.abs2()).sqrt().inv(),
                    Un::Acos => -(1.0 - a.abs2()).sqrt().inv(),
                    Un::Atan => (1.0 + a.abs2()).inv(),
                    Un::Acot => -(1.0 + a.abs2()).inv(),
                    Un::Sind => c(deg) * a.cosd(),
                    Un::Cosd => -(c(deg) * a.sind()),
                    Un::Tand => c(deg) * (1.0 + y.abs2()),
                    Un::Cscd => -(c(deg) * (y * a.cotd())),
                    Un::Secd => c(deg) * (y * a.tand()),
                    Un::Cotd => -(c(deg) * (1.0 + y.abs2())),
                    Un::Atand => c(rad) * (1.0 + a.abs2()).inv(),
                    Un::Acotd => -(c(rad) * (1.0 + a.abs2()).inv()),
                    Un::Sinpi => c(PI) * a.cospi(),
                    Un::Cospi => -(c(PI) * a.sinpi()),
                    Un::Sinc => a.apply(Un::Cosc),
                    Un::Cosc => a.apply(Un::SincD2),
                    Un::SincD2 => return Err(missing("sinc", 3, e)),
                    Un::Sinh => a.cosh(),
                    Un::Cosh => a.sinh(),
                    Un::Tanh => 1.0 - y.abs2(),
                    Un::Csch => -(y * a.coth()),
                    Un::Sech => -(y * a.tanh()),
                    Un::Coth => 1.0 - y.abs2(),
                    Un::Asinh => (a.abs2() + 1.0).sqrt().inv(),
                    Un::Acosh => (a.abs2() - 1.0).sqrt().inv(),
                    Un::Atanh | Un::Acoth => (1.0 - a.abs2()).inv(),
                    Un::Abs => a.sign(),
                    Un::Abs2 => c(2.0) * a,
                    Un::Inv => -y.abs2(),
                    Un::Sign | Un::Floor | Un::Ceil => c(0.0),
                    Un::Deg2rad => c(deg),
                    Un::Rad2deg => c(rad),
                    Un::Erf => c(2.0 / PI.sqrt()) * (-a.abs2()).exp(),
                    Un::Erfc => -(c(2.0 / PI.sqrt()) * (-a.abs2()).exp()),
                    Un::Gamma => y * a.apply(Un::Digamma),
                    Un::Lgamma => a.apply(Un::Digamma),
                    Un::Digamma => a.apply(Un::Trigamma),
                    Un::Trigamma => a.apply(Un::Tetragamma),
                    Un::Tetragamma => return Err(missing("digamma", 3, e)),
                },
                UnOp::Powi(n) => {
                    let m = n.checked_sub(1).ok_or_else(|| missing("powi", 1, e))?;
                    c(*n as f64) * a.powi(m)
                }
                UnOp::Powf(p) => c(*p) * a.powf(p - 1.0),
                UnOp::User(f, o) => {
                    if *o >= 2 {
                        return Err(missing(f.name(), o + 1, e));
                    }
                    Expr::un(UnOp::User(f.clone(), o + 1), a.clone())
                }
            };
            (Some(d), None)
        }
        Node::Bin(op, a, b) => {
            let y = e;
            let (da, db) = match op {
                BinOp::B(bop) => match bop {
                    Bin::Add => (c(1.0), c(1.0)),
                    Bin::Sub => (c(1.0), c(-1.0)),
                    Bin::Mul => (b.clone(), a.clone()),
                    Bin::Div => (b.inv(), -(y / b)),
                    Bin::Pow => (b * a.pow(b - 1.0), y * a.log()),
                    Bin::Atan2 => {
                        let r = a.abs2() + b.abs2();
                        (b / &r, -(a / &r))
                    }
                    Bin::Hypot => (a / y, b / y),
                    Bin::Max => (a.apply2(Bin::Ge, b), b.apply2(Bin::Gt, a)),
                    Bin::Min => (b.apply2(Bin::Ge, a), a.apply2(Bin::Gt, b)),
                    Bin::Ge | Bin::Gt => (c(0.0), c(0.0)),
                },
                BinOp::User(f, p) => {
                    let mk =
                        |q: BinPart| Expr::bin(BinOp::User(f.clone(), q), a.clone(), b.clone());
                    match p {
                        BinPart::F => (mk(BinPart::A), mk(BinPart::B)),
                        BinPart::A => (mk(BinPart::AA), mk(BinPart::AB)),
                        BinPart::B => (mk(BinPart::AB), mk(BinPart::BB)),
                        _ => return Err(missing(f.name(), 3, e)),
                    }
                }
            };
            (Some(da), Some(db))
        }
        _ => (None, None),
    })
}

/// Product of an adjoint (or tangent) and a partial derivative. Unlike the user's
/// expressions, the association of a chain-rule product is ours to choose, so constant
/// factors are collected into one: `c1·(c2·r) → (c1c2)·r`, `(c1·x)·(c2·y) → (c1c2)·(x·y)`.
fn dmul(a: &Expr, p: &Expr) -> Expr {
    let split = |e: &Expr| -> (f64, Option<Expr>) {
        if let Some(c) = e.as_const() {
            return (c, None);
        }
        if let Node::Bin(BinOp::B(Bin::Mul), l, r) = e.node() {
            if let Some(c) = l.as_const() {
                return (c, Some(r.clone()));
            }
        }
        (1.0, Some(e.clone()))
    };
    let (ca, ra) = split(a);
    let (cp, rp) = split(p);
    let k = ca * cp;
    if !k.is_finite() {
        return a * p;
    }
    let rest = match (ra, rp) {
        (None, None) => return c(k),
        (Some(x), None) | (None, Some(x)) => x,
        (Some(x), Some(y)) => x * y,
    };
    c(k) * rest
}

fn sum(terms: Vec<Expr>) -> Expr {
    let mut it = terms.into_iter();
    match it.next() {
        None => c(0.0),
        Some(f) => it.fold(f, |a, b| a + b),
    }
}

/// Reverse mode on the DAG of `root`: the derivative of `root` with respect to every
/// variable reference it depends on, as `(global index, derivative, first reference)`, in
/// order of first appearance. Structurally zero derivatives are left out.
pub(crate) fn gradient(root: &Expr) -> Result<Vec<(Index, Expr, crate::VarRef)>, AdError> {
    let mut g = Graph::new();
    let r = g.intern(root)?;
    let n = g.nodes.len();
    let mut contrib: Vec<Vec<Expr>> = vec![Vec::new(); n];
    contrib[r as usize].push(c(1.0));
    let mut adj: Vec<Option<Expr>> = vec![None; n];
    for id in (0..n).rev() {
        if contrib[id].is_empty() {
            continue;
        }
        let a = sum(std::mem::take(&mut contrib[id]));
        if a.as_const() == Some(0.0) {
            continue;
        }
        let node = &g.nodes[id];
        let (ka, kb) = node.children();
        if ka.is_some() {
            let (pa, pb) = partials(&node.expr)?;
            for (k, p) in [(ka, pa), (kb, pb)] {
                if let (Some(k), Some(p)) = (k, p) {
                    let t = dmul(&a, &p);
                    if t.as_const() != Some(0.0) {
                        contrib[k as usize].push(t);
                    }
                }
            }
        }
        adj[id] = Some(a);
    }
    let mut out = Vec::new();
    for (id, node) in g.nodes.iter().enumerate() {
        if let (Key::Var(ix), Some(a)) = (&node.key, adj[id].take()) {
            if let Node::Var(vr) = node.expr.node() {
                out.push((ix.clone(), a, vr.clone()));
            }
        }
    }
    Ok(out)
}

/// Forward mode on the DAG of all `roots` in the direction of the variable with global
/// index `dir`: the directional derivative of each root (a constant zero when structurally
/// zero).
pub(crate) fn tangent(roots: &[Expr], dir: &Index) -> Result<Vec<Expr>, AdError> {
    let mut g = Graph::new();
    let ids: Vec<u32> = roots
        .iter()
        .map(|r| g.intern(r))
        .collect::<Result<_, _>>()?;
    let n = g.nodes.len();
    let mut tan: Vec<Option<Expr>> = vec![None; n];
    for id in 0..n {
        let node = &g.nodes[id];
        match &node.key {
            Key::Var(ix) if ix == dir => tan[id] = Some(c(1.0)),
            Key::Un(..) | Key::Bin(..) => {
                let (ka, kb) = node.children();
                let ta = ka.and_then(|k| tan[k as usize].clone());
                let tb = kb.and_then(|k| tan[k as usize].clone());
                if ta.is_none() && tb.is_none() {
                    continue;
                }
                let (pa, pb) = partials(&node.expr)?;
                let mut acc: Option<Expr> = None;
                for (t, p) in [(ta, pa), (tb, pb)] {
                    if let (Some(t), Some(p)) = (t, p) {
                        let term = dmul(&t, &p);
                        if term.as_const() == Some(0.0) {
                            continue;
                        }
                        acc = Some(match acc {
                            None => term,
                            Some(s) => s + term,
                        });
                    }
                }
                tan[id] = acc;
            }
            _ => {}
        }
    }
    Ok(ids
        .iter()
        .map(|&i| tan[i as usize].clone().unwrap_or_else(|| c(0.0)))
        .collect())
}
