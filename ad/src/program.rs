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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// output slot `slot` of the current point (`VALUE` = the value array) gets `src`
    Out { src: Src<T>, slot: u32 },
}

/// Output slot number of the value in a gradient program.
pub(crate) const VALUE: u32 = u32::MAX;

/// A compiled program: integer prologue then real instructions.
#[derive(Clone, Debug)]
pub(crate) struct Program<T> {
    pub iins: Vec<IIns>,
    pub ins: Vec<Ins<T>>,
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

/// Builds one program computing `outputs[j].0` into output slot `outputs[j].1`.
pub(crate) fn build<T: Scalar>(
    outputs: &[(Expr, u32)],
    step: usize,
) -> Result<Program<T>, AdError> {
    let mut g = Graph::new();
    let out_ids: Vec<u32> = outputs
        .iter()
        .map(|(e, _)| g.intern(e))
        .collect::<Result<_, _>>()?;
    let n = g.nodes.len();
    let is_const = |id: usize| matches!(g.nodes[id].key, Key::Const(_));
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
    // last use (node order = instruction order)
    let mut last = vec![0usize; n];
    for id in 0..n {
        last[id] = id;
        let (a, b) = g.nodes[id].children();
        for k in [a, b].into_iter().flatten() {
            last[k as usize] = last[k as usize].max(id);
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
    let mut nodes = 0usize;
    let src = |reg: &Vec<u32>, g: &Graph, k: u32| -> Src<T> {
        match g.nodes[k as usize].expr.node() {
            Node::Const(c) => Src::C(T::from_f64(*c)),
            _ => Src::R(reg[k as usize]),
        }
    };
    // constants used as the operand of a unary op (non-finite folds) are filled into a
    // register on demand
    for id in 0..n {
        if is_const(id) {
            continue;
        }
        nodes += 1;
        let dst = free.pop().unwrap_or_else(|| {
            nregs += 1;
            nregs - 1
        });
        let node = &g.nodes[id];
        let (ka, kb) = node.children();
        let mut extra_free: Vec<u32> = Vec::new();
        match node.expr.node() {
            Node::Var(r) => {
                let (idx, off) = ic.pos(&r.global)?;
                ins.push(Ins::X { dst, idx, off });
            }
            Node::Param(r) => {
                let (idx, off) = ic.pos(&r.global)?;
                ins.push(Ins::P { dst, idx, off });
            }
            Node::Data(c) => ins.push(Ins::D { dst, col: *c }),
            Node::Int(i) => {
                let (idx, off) = ic.pos(i)?;
                ins.push(Ins::I { dst, idx, off });
            }
            Node::Un(op, _) => {
                let a = ka.unwrap_or(0);
                let ra = match src(&reg, &g, a) {
                    Src::R(r) => r,
                    Src::C(c) => {
                        let t = free.pop().unwrap_or_else(|| {
                            nregs += 1;
                            nregs - 1
                        });
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
                let a = src(&reg, &g, ka.unwrap_or(0));
                let mut b = src(&reg, &g, kb.unwrap_or(0));
                if let (Src::C(_), Src::C(cb)) = (a, b) {
                    let t = free.pop().unwrap_or_else(|| {
                        nregs += 1;
                        nregs - 1
                    });
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
        reg[id] = dst;
        for &slot in &outs_of[id] {
            ins.push(Ins::Out {
                src: Src::R(dst),
                slot,
            });
        }
        free.extend(extra_free);
        let mut kids = [ka, kb];
        if ka == kb {
            kids[1] = None;
        }
        for k in kids.into_iter().flatten() {
            let k = k as usize;
            if !is_const(k) && last[k] == id {
                free.push(reg[k]);
            }
        }
        if last[id] == id {
            free.push(dst);
        }
    }
    for (c, slot) in const_outs {
        ins.push(Ins::Out {
            src: Src::C(T::from_f64(c)),
            slot,
        });
    }
    Ok(Program {
        iins: ic.iins,
        ins,
        nregs: nregs as usize,
        niregs: ic.niregs as usize,
        step,
        nodes,
    })
}

/// Parameter references of an expression, unique by global index, in order of appearance.
pub(crate) fn params(e: &Expr) -> Result<Vec<crate::VarRef>, AdError> {
    let mut g = Graph::new();
    g.intern(e)?;
    Ok(g.nodes
        .iter()
        .filter_map(|n| match n.expr.node() {
            Node::Param(r) => Some(r.clone()),
            _ => None,
        })
        .collect())
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
