//! Straight-line SSA programs (register tapes) built from hash-consed output expressions.

use crate::Expr;
use crate::error::AdError;
use crate::expr::Node;
use crate::graph::{Graph, Key};
use crate::index::Index;
use crate::ops::{BinOp, UnOp};
use crate::scalar::Scalar;
use std::collections::HashMap;

/// An operand of a real instruction: a register or a constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Src<T> {
    R(u32),
    C(T),
}

/// An integer operand: a data column read directly, an integer register, or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ISrc {
    F(u32),
    R(u32),
    C(i64),
}

/// Integer operations of index programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum IOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Rem,
}

/// One integer instruction: `dst = a op b` lane by lane.
#[derive(Clone, Debug)]
pub(crate) struct IIns {
    pub op: IOp,
    pub dst: u32,
    pub a: ISrc,
    pub b: ISrc,
}

/// One real instruction.
#[derive(Clone, Debug)]
pub(crate) enum Ins<T> {
    /// `dst = x[idx + off]`
    X { dst: u32, idx: ISrc, off: i64 },
    /// `dst = θ[idx + off]`
    P { dst: u32, idx: ISrc, off: i64 },
    /// `dst = reals[col]`
    D { dst: u32, col: u32 },
    /// `dst = (idx + off) as real`
    I { dst: u32, idx: ISrc, off: i64 },
    /// `dst = c`
    Fill { dst: u32, c: T },
    /// `dst = op(a)`
    Un { op: UnOp, dst: u32, a: u32 },
    /// `dst = op(a, b)`
    Bin {
        op: BinOp,
        dst: u32,
        a: Src<T>,
        b: Src<T>,
    },
    /// fused pair (operands unused by `kind` repeat `a`)
    Fused {
        kind: Fk,
        dst: u32,
        a: u32,
        b: u32,
        c: u32,
    },
    /// the value array gets `src` (slot is always `VALUE`)
    Value { src: Src<T> },
}

impl<T> Ins<T> {
    /// The register the instruction writes; `None` for [`Ins::Value`], which writes the
    /// value output instead.
    #[inline]
    pub(crate) fn dst(&self) -> Option<u32> {
        match self {
            Ins::X { dst, .. }
            | Ins::P { dst, .. }
            | Ins::D { dst, .. }
            | Ins::I { dst, .. }
            | Ins::Fill { dst, .. }
            | Ins::Un { dst, .. }
            | Ins::Bin { dst, .. }
            | Ins::Fused { dst, .. } => Some(*dst),
            Ins::Value { .. } => None,
        }
    }
}

/// Output slot number of the value in a gradient program.
pub(crate) const VALUE: u32 = u32::MAX;

/// A compiled program: integer prologue then real instructions.
#[derive(Clone, Debug)]
pub(crate) struct Program<T> {
    pub iins: Vec<IIns>,
    pub ins: Vec<Ins<T>>,
    /// dedicated registers holding a constant in every lane (operands of fused
    /// instructions), filled once per evaluation call
    pub consts: Vec<(u32, T)>,
    /// register of output slot `s` (`out_regs.len() == step`), scattered into the
    /// point-major output at the end of each batch
    pub out_regs: Vec<u32>,
    /// `step == 1` and the last instruction computes the output: without weights it may
    /// write straight into the output slice
    pub direct_last: bool,
    pub nregs: usize,
    pub niregs: usize,
    /// outputs per data point (the stride of `out`)
    pub step: usize,
    /// number of instructions before register reuse (= distinct non-constant nodes)
    pub nodes: usize,
}

struct IndexCompiler {
    map: HashMap<Index, ISrc>,
    iins: Vec<IIns>,
    niregs: u32,
}

impl IndexCompiler {
    fn src(&mut self, i: &Index) -> Result<ISrc, AdError> {
        if let Some(s) = self.map.get(i) {
            return Ok(*s);
        }
        let (op, a, b) = match i {
            Index::Const(c) => return Ok(ISrc::C(*c)),
            Index::Field(c) => return Ok(ISrc::F(*c)),
            Index::Add(a, b) => (IOp::Add, a, b),
            Index::Sub(a, b) => (IOp::Sub, a, b),
            Index::Mul(a, b) => (IOp::Mul, a, b),
            Index::FloorDiv(a, b) => (IOp::FloorDiv, a, b),
            Index::Rem(a, b) => (IOp::Rem, a, b),
        };
        if matches!(op, IOp::FloorDiv | IOp::Rem) && b.as_const() == Some(0) {
            return Err(AdError::IndexDivisionByZero {
                index: i.to_string(),
            });
        }
        let sa = self.src(a)?;
        let sb = self.src(b)?;
        let dst = self.niregs;
        self.niregs += 1;
        self.iins.push(IIns {
            op,
            dst,
            a: sa,
            b: sb,
        });
        let s = ISrc::R(dst);
        self.map.insert(i.clone(), s);
        Ok(s)
    }

    /// `(base, offset)` for a position `e + c`.
    fn pos(&mut self, i: &Index) -> Result<(ISrc, i64), AdError> {
        let (base, off) = i.split_offset();
        Ok(match base {
            None => (ISrc::C(0), off),
            Some(b) => (self.src(b)?, off),
        })
    }
}

/// Arithmetic operations that can be fused into superinstructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ar {
    Add,
    Sub,
    Mul,
    Div,
}

/// Unary operations that can be fused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum U1 {
    Abs2,
    Neg,
}

/// A fused pair of operations whose intermediate never leaves the CPU registers.
/// `left`: the inner result is the left operand of the outer binary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fk {
    /// `g(f(a, b), c)` or `g(c, f(a, b))`
    BB(Ar, Ar, bool),
    /// `g(u(a), c)` or `g(c, u(a))`
    UB(U1, Ar, bool),
    /// `u(f(a, b))`
    BU(Ar, U1),
    /// `u2(u1(a))`
    UU(U1, U1),
}

fn arith(node: &Node) -> Option<Result<Ar, U1>> {
    use crate::ops::{Bin, Un};
    match node {
        Node::Bin(BinOp::B(b), _, _) => match b {
            Bin::Add => Some(Ok(Ar::Add)),
            Bin::Sub => Some(Ok(Ar::Sub)),
            Bin::Mul => Some(Ok(Ar::Mul)),
            Bin::Div => Some(Ok(Ar::Div)),
            _ => None,
        },
        Node::Un(UnOp::B(Un::Abs2), _) => Some(Err(U1::Abs2)),
        Node::Un(UnOp::B(Un::Neg), _) => Some(Err(U1::Neg)),
        _ => None,
    }
}

/// Builds one program computing `outputs[j].0` into output slot `outputs[j].1`.
///
/// Nodes are emitted in the DAG's topological order. A single-use arithmetic node whose
/// consumer is also arithmetic is fused into the consumer (one superinstruction, the
/// intermediate stays in CPU registers). Registers are reused after their last use.
pub(crate) fn build<T: Scalar>(
    outputs: &[(Expr, u32)],
    step: usize,
) -> Result<Program<T>, AdError> {
    build_opts(outputs, step, true)
}

pub(crate) fn build_opts<T: Scalar>(
    outputs: &[(Expr, u32)],
    step: usize,
    fuse: bool,
) -> Result<Program<T>, AdError> {
    let mut g = Graph::new();
    let out_ids: Vec<u32> = outputs
        .iter()
        .map(|(e, _)| g.intern(e))
        .collect::<Result<_, _>>()?;
    let n = g.nodes.len();
    let is_const = |id: usize| matches!(g.nodes[id].key, Key::Const(_));
    let kids = |id: usize| -> [Option<u32>; 2] {
        let (a, b) = g.nodes[id].children();
        [a, b]
    };
    // outputs per node
    let mut outs_of: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut const_outs: Vec<(f64, u32)> = Vec::new();
    for (j, &id) in out_ids.iter().enumerate() {
        if is_const(id as usize) {
            const_outs.push((
                g.nodes[id as usize].expr.as_const().unwrap_or(f64::NAN),
                outputs[j].1,
            ));
        } else {
            outs_of[id as usize].push(outputs[j].1);
        }
    }
    // uses per node (edges, with multiplicity)
    let mut uses = vec![0usize; n];
    for id in 0..n {
        for k in kids(id).into_iter().flatten() {
            uses[k as usize] += 1;
        }
    }
    // fusion decisions: fchild[m] = the node computed inside m's instruction
    let mut inl = vec![false; n];
    let mut fchild: Vec<Option<u32>> = vec![None; n];
    if fuse {
        for m in 0..n {
            if arith(g.nodes[m].expr.node()).is_none() {
                continue;
            }
            for k in kids(m).into_iter().flatten() {
                let ku = k as usize;
                if uses[ku] != 1 || !outs_of[ku].is_empty() || fchild[ku].is_some() || is_const(ku)
                {
                    continue;
                }
                if arith(g.nodes[ku].expr.node()).is_none() {
                    continue;
                }
                if kids(ku).into_iter().flatten().any(|c| is_const(c as usize))
                    && matches!(g.nodes[ku].expr.node(), Node::Un(..))
                {
                    continue;
                }
                inl[ku] = true;
                fchild[m] = Some(k);
                break;
            }
        }
    }
    // effective operands of each emitted node
    let operands = |m: usize| -> Vec<u32> {
        let mut v = Vec::with_capacity(3);
        for k in kids(m).into_iter().flatten() {
            if Some(k) == fchild[m] {
                v.extend(kids(k as usize).into_iter().flatten());
            } else {
                v.push(k);
            }
        }
        v
    };
    // last use (node order = instruction order)
    let mut last: Vec<usize> = (0..n).collect();
    for (m, &inlined) in inl.iter().enumerate() {
        if inlined || is_const(m) {
            continue;
        }
        for k in operands(m) {
            last[k as usize] = last[k as usize].max(m);
        }
    }
    let mut ic = IndexCompiler {
        map: HashMap::new(),
        iins: Vec::new(),
        niregs: 0,
    };
    let mut reg: Vec<u32> = vec![u32::MAX; n];
    let mut free: Vec<u32> = Vec::new();
    let mut nregs = 0u32;
    let mut ins: Vec<Ins<T>> = Vec::new();
    let mut consts: Vec<(u32, T)> = Vec::new();
    let mut outs: Vec<(u32, u32)> = Vec::new();
    let mut const_reg: HashMap<u64, u32> = HashMap::new();
    let mut nodes = 0usize;
    let src = |reg: &Vec<u32>, k: u32| -> Src<T> {
        match g.nodes[k as usize].expr.node() {
            Node::Const(c) => Src::C(T::from_f64(*c)),
            _ => Src::R(reg[k as usize]),
        }
    };
    for id in 0..n {
        if is_const(id) {
            continue;
        }
        nodes += 1;
        if inl[id] {
            continue;
        }
        let mut alloc = |free: &mut Vec<u32>| {
            free.pop().unwrap_or_else(|| {
                nregs += 1;
                nregs - 1
            })
        };
        let dst = alloc(&mut free);
        let node = &g.nodes[id];
        let [ka, kb] = kids(id);
        let mut extra_free: Vec<u32> = Vec::new();
        if let Some(k) = fchild[id] {
            // register (or dedicated constant register) of an operand
            let mut r = |k: u32, nregs: &mut u32| -> u32 {
                match g.nodes[k as usize].expr.node() {
                    Node::Const(c) => *const_reg.entry(c.to_bits()).or_insert_with(|| {
                        *nregs += 1;
                        consts.push((*nregs - 1, T::from_f64(*c)));
                        *nregs - 1
                    }),
                    _ => reg[k as usize],
                }
            };
            let inner = g.nodes[k as usize].expr.node();
            let [ia, ib] = kids(k as usize);
            let outer = arith(node.expr.node());
            let inner_op = arith(inner);
            let left = ka == Some(k);
            let other = if left { kb } else { ka };
            let (kind, a, b, c) = match (inner_op, outer) {
                (Some(Ok(f)), Some(Ok(gop))) => {
                    let a = r(ia.unwrap_or(0), &mut nregs);
                    let b = r(ib.unwrap_or(0), &mut nregs);
                    let c = r(other.unwrap_or(0), &mut nregs);
                    (Fk::BB(f, gop, left), a, b, c)
                }
                (Some(Err(u)), Some(Ok(gop))) => {
                    let a = r(ia.unwrap_or(0), &mut nregs);
                    let c = r(other.unwrap_or(0), &mut nregs);
                    (Fk::UB(u, gop, left), a, a, c)
                }
                (Some(Ok(f)), Some(Err(u))) => {
                    let a = r(ia.unwrap_or(0), &mut nregs);
                    let b = r(ib.unwrap_or(0), &mut nregs);
                    (Fk::BU(f, u), a, b, b)
                }
                (Some(Err(u1)), Some(Err(u2))) => {
                    let a = r(ia.unwrap_or(0), &mut nregs);
                    (Fk::UU(u1, u2), a, a, a)
                }
                _ => {
                    return Err(AdError::TooLarge {
                        what: "internal: fused node is not arithmetic".into(),
                    });
                }
            };
            ins.push(Ins::Fused { kind, dst, a, b, c });
        } else {
            match node.expr.node() {
                Node::Var(rf) => {
                    let (idx, off) = ic.pos(&rf.global)?;
                    ins.push(Ins::X { dst, idx, off });
                }
                Node::Param(rf) => {
                    let (idx, off) = ic.pos(&rf.global)?;
                    ins.push(Ins::P { dst, idx, off });
                }
                Node::Data(c) => ins.push(Ins::D { dst, col: *c }),
                Node::Int(i) => {
                    let (idx, off) = ic.pos(i)?;
                    ins.push(Ins::I { dst, idx, off });
                }
                Node::Un(op, _) => {
                    let ra = match src(&reg, ka.unwrap_or(0)) {
                        Src::R(r) => r,
                        Src::C(c) => {
                            let t = alloc(&mut free);
                            ins.push(Ins::Fill { dst: t, c });
                            extra_free.push(t);
                            t
                        }
                    };
                    ins.push(Ins::Un {
                        op: op.clone(),
                        dst,
                        a: ra,
                    });
                }
                Node::Bin(op, _, _) => {
                    let a = src(&reg, ka.unwrap_or(0));
                    let mut b = src(&reg, kb.unwrap_or(0));
                    if let (Src::C(_), Src::C(cb)) = (a, b) {
                        let t = alloc(&mut free);
                        ins.push(Ins::Fill { dst: t, c: cb });
                        extra_free.push(t);
                        b = Src::R(t);
                    }
                    ins.push(Ins::Bin {
                        op: op.clone(),
                        dst,
                        a,
                        b,
                    });
                }
                Node::Const(_) => {}
            }
        }
        reg[id] = dst;
        for &slot in &outs_of[id] {
            if slot == VALUE {
                ins.push(Ins::Value { src: Src::R(dst) });
            } else {
                outs.push((slot, dst));
            }
        }
        free.extend(extra_free);
        let mut ops = operands(id);
        ops.sort_unstable();
        ops.dedup();
        for k in ops {
            let k = k as usize;
            if !is_const(k) && last[k] == id && !outs_of[k].iter().any(|&s| s != VALUE) {
                free.push(reg[k]);
            }
        }
        // registers of per-point outputs stay live until the scatter at the end of the batch
        let keep = outs_of[id].iter().any(|&s| s != VALUE);
        if last[id] == id && !keep {
            free.push(dst);
        }
    }
    for (c, slot) in const_outs {
        if slot == VALUE {
            ins.push(Ins::Value {
                src: Src::C(T::from_f64(c)),
            });
        } else {
            let r = *const_reg.entry(c.to_bits()).or_insert_with(|| {
                nregs += 1;
                consts.push((nregs - 1, T::from_f64(c)));
                nregs - 1
            });
            outs.push((slot, r));
        }
    }
    outs.sort_unstable();
    let out_regs: Vec<u32> = outs.iter().map(|&(_, r)| r).collect();
    if out_regs.len() != step {
        return Err(AdError::TooLarge {
            what: format!("internal: {} outputs for step {step}", out_regs.len()),
        });
    }
    let direct_last = step == 1
        && match ins.last() {
            Some(Ins::Un { dst, .. } | Ins::Bin { dst, .. } | Ins::Fused { dst, .. }) => {
                out_regs[0] == *dst
            }
            _ => false,
        };
    Ok(Program {
        direct_last,
        iins: ic.iins,
        ins,
        consts,
        out_regs,
        nregs: nregs as usize,
        niregs: ic.niregs as usize,
        step,
        nodes,
    })
}

/// Parameter and variable references of an expression, each unique by global index, in
/// order of appearance.
#[allow(clippy::type_complexity)]
pub(crate) fn refs(e: &Expr) -> Result<(Vec<crate::VarRef>, Vec<crate::VarRef>), AdError> {
    let mut g = Graph::new();
    g.intern(e)?;
    let (mut p, mut v) = (Vec::new(), Vec::new());
    for n in &g.nodes {
        match n.expr.node() {
            Node::Param(r) => p.push(r.clone()),
            Node::Var(r) => v.push(r.clone()),
            _ => {}
        }
    }
    Ok((p, v))
}

/// Largest real and integer data columns used.
pub(crate) fn columns(e: &Expr) -> Result<(Option<u32>, Option<u32>), AdError> {
    let mut g = Graph::new();
    g.intern(e)?;
    let (mut r, mut i) = (None, None);
    for n in &g.nodes {
        match n.expr.node() {
            Node::Data(c) => r = r.max(Some(*c)),
            Node::Int(ix) => i = i.max(ix.max_field()),
            Node::Var(v) | Node::Param(v) => i = i.max(v.global.max_field()),
            _ => {}
        }
    }
    Ok((r, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DataView;
    use crate::eval::{EvalInputs, Outputs, Scratch, run};
    use crate::{Index, VarRef};

    fn var(k: i64) -> Expr {
        Expr::var(VarRef::new(0, vec![Index::Const(k)], Index::Const(k)))
    }

    /// Fused superinstructions round every intermediate like the unfused program: the
    /// results are bit-identical.
    #[test]
    fn fusion_is_bit_exact() {
        let (a, b, c) = (var(0), var(1), var(2));
        let outs = vec![
            ((&a * &b + &c) * (&a - 2.0) / (1.5 + b.abs2()), 0),
            (-(&a * &c).abs2() + (-(&b / &c)).abs2() - 3.0 * &a, 1),
            ((&a + &b).sin() * (&c - &a) - (&b * 0.1 + 1.0), 2),
            (Expr::constant(4.0), 3),
        ];
        let fused = build_opts::<f64>(&outs, 4, true).unwrap();
        let plain = build_opts::<f64>(&outs, 4, false).unwrap();
        assert!(fused.ins.len() < plain.ins.len());
        assert!(fused.ins.iter().any(|i| matches!(i, Ins::Fused { .. })));
        let data = DataView::<f64>::empty(3);
        let x = [0.3, -1.7, 0.9];
        let mut r = [[0.0; 12]; 2];
        for (k, p) in [&fused, &plain].into_iter().enumerate() {
            let mut sc = Scratch::new(p.nregs, p.niregs);
            let mut o = Outputs {
                out: &mut r[k],
                values: None,
                weights: None,
            };
            run(p, &mut sc, &EvalInputs::new(&data, &x, &[]), 0..3, &mut o);
        }
        assert_eq!(r[0].map(f64::to_bits), r[1].map(f64::to_bits));
        assert_eq!(r[0][3], 4.0);
    }

    #[test]
    fn third_derivatives_are_typed_errors() {
        let x = var(0);
        let d2 = crate::graph::partials(&x.apply(crate::Un::Cosc))
            .unwrap()
            .0
            .unwrap();
        assert!(matches!(
            crate::graph::partials(&d2),
            Err(AdError::MissingDerivative { order: 3, .. })
        ));
        let f = crate::UnaryFn::new("f", |a| a, |_| 1.0, |_| 0.0);
        let e2 = Expr::un(UnOp::User(f, 2), x);
        assert!(matches!(
            crate::graph::partials(&e2),
            Err(AdError::MissingDerivative { .. })
        ));
    }
}
