//! Printing expressions as mathematics.

use crate::expr::{Expr, Node, VarRef};
use crate::index::Index;
use crate::ops::{Bin, BinOp, Un, UnOp};
use std::fmt;
use std::fmt::Write;

/// Names the blocks and data fields of a pattern when printing.
pub trait Namer {
    /// Name of variable block `block` (printed before `[dims]`).
    fn var(&self, block: u32) -> String;
    /// Name of parameter block `block`.
    fn param(&self, block: u32) -> String;
    /// Name of real data field `col`.
    fn real_field(&self, col: u32) -> String;
    /// Name of integer data field `col`.
    fn int_field(&self, col: u32) -> String;
    /// `true` when variable or parameter block `block` has no dimensions (a single
    /// value): its element prints as the block's name alone (`a`, not `a[0]`). The default
    /// says `false`, so an element without dimensions prints its flat position.
    fn is_scalar(&self, block: u32) -> bool {
        let _ = block;
        false
    }
}

/// Prints `x#3[..]`, `θ#0[..]`, `d0` and `i0`.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultNamer;

impl Namer for DefaultNamer {
    fn var(&self, block: u32) -> String {
        format!("x#{block}")
    }
    fn param(&self, block: u32) -> String {
        format!("θ#{block}")
    }
    fn real_field(&self, col: u32) -> String {
        format!("d{col}")
    }
    fn int_field(&self, col: u32) -> String {
        format!("i{col}")
    }
}

/// Formats a constant: integers without a decimal point, others in shortest round-trip form.
pub(crate) fn fmt_const(c: f64) -> String {
    if c == c.trunc() && c.abs() < 1e15 {
        format!("{}", c as i64)
    } else {
        format!("{c:?}")
    }
}

// precedence levels
const SUM: u8 = 1;
const PROD: u8 = 2;
const NEG: u8 = 3;
const POW: u8 = 4;
const ATOM: u8 = 5;

fn prec(e: &Expr) -> u8 {
    match e.node() {
        Node::Const(c) if *c < 0.0 || c.is_sign_negative() => NEG,
        Node::Const(_) | Node::Var(_) | Node::Param(_) | Node::Data(_) => ATOM,
        Node::Int(i) => match i {
            crate::Index::Const(_) | crate::Index::Field(_) => ATOM,
            _ => ATOM, // printed in parentheses
        },
        Node::Un(op, _) => match op {
            UnOp::B(Un::Neg) => NEG,
            UnOp::B(Un::Abs2) | UnOp::Powi(_) | UnOp::Powf(_) => POW,
            UnOp::B(Un::Inv) => PROD,
            _ => ATOM,
        },
        Node::Bin(op, _, _) => match op {
            BinOp::B(Bin::Add | Bin::Sub) => SUM,
            BinOp::B(Bin::Mul | Bin::Div) => PROD,
            BinOp::B(Bin::Pow) => POW,
            _ => ATOM,
        },
    }
}

fn write_ref(out: &mut String, name: String, r: &VarRef, namer: &dyn Namer) {
    out.push_str(&name);
    if r.dims.is_empty() && namer.is_scalar(r.block) {
        return;
    }
    out.push('[');
    if r.dims.is_empty() {
        let _ = r.global.write(out, namer);
    }
    for (k, d) in r.dims.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        let _ = d.write(out, namer);
    }
    out.push(']');
}

fn wrap(out: &mut String, e: &Expr, namer: &dyn Namer, paren: bool) {
    if paren {
        out.push('(');
        write_expr(out, e, namer);
        out.push(')');
    } else {
        write_expr(out, e, namer);
    }
}

pub(crate) fn write_expr(out: &mut String, e: &Expr, namer: &dyn Namer) {
    match e.node() {
        Node::Const(c) => out.push_str(&fmt_const(*c)),
        Node::Var(r) => write_ref(out, namer.var(r.block), r, namer),
        Node::Param(r) => write_ref(out, namer.param(r.block), r, namer),
        Node::Data(c) => out.push_str(&namer.real_field(*c)),
        Node::Int(i) => match i {
            crate::Index::Const(_) | crate::Index::Field(_) => {
                let _ = i.write(out, namer);
            }
            _ => {
                out.push('(');
                let _ = i.write(out, namer);
                out.push(')');
            }
        },
        Node::Un(op, a) => match op {
            UnOp::B(Un::Neg) => {
                out.push('-');
                wrap(out, a, namer, prec(a) < POW);
            }
            UnOp::B(Un::Abs2) => {
                wrap(out, a, namer, prec(a) < ATOM);
                out.push_str("^2");
            }
            UnOp::B(Un::Inv) => {
                out.push_str("1/");
                wrap(out, a, namer, prec(a) <= PROD || prec(a) == NEG);
            }
            UnOp::Powi(n) => {
                wrap(out, a, namer, prec(a) < ATOM);
                if *n < 0 {
                    let _ = write!(out, "^({n})");
                } else {
                    let _ = write!(out, "^{n}");
                }
            }
            UnOp::Powf(p) => {
                wrap(out, a, namer, prec(a) < ATOM);
                if *p < 0.0 {
                    let _ = write!(out, "^({})", fmt_const(*p));
                } else {
                    let _ = write!(out, "^{}", fmt_const(*p));
                }
            }
            _ => {
                out.push_str(&op.name());
                out.push('(');
                write_expr(out, a, namer);
                out.push(')');
            }
        },
        Node::Bin(op, a, b) => match op {
            BinOp::B(Bin::Add) => {
                wrap(out, a, namer, prec(a) < SUM);
                if let Some(c) = b.as_const().filter(|c| *c < 0.0) {
                    out.push_str(" - ");
                    out.push_str(&fmt_const(-c));
                } else {
                    out.push_str(" + ");
                    wrap(out, b, namer, prec(b) <= SUM || prec(b) == NEG);
                }
            }
            BinOp::B(Bin::Sub) => {
                wrap(out, a, namer, prec(a) < SUM);
                out.push_str(" - ");
                wrap(out, b, namer, prec(b) <= SUM || prec(b) == NEG);
            }
            BinOp::B(Bin::Mul) => {
                wrap(out, a, namer, prec(a) < PROD);
                out.push('*');
                wrap(out, b, namer, prec(b) <= PROD || prec(b) == NEG);
            }
            BinOp::B(Bin::Div) => {
                wrap(out, a, namer, prec(a) < PROD);
                out.push('/');
                wrap(out, b, namer, prec(b) <= PROD || prec(b) == NEG);
            }
            BinOp::B(Bin::Pow) => {
                wrap(out, a, namer, prec(a) < ATOM);
                out.push('^');
                wrap(out, b, namer, prec(b) < ATOM);
            }
            _ => {
                out.push_str(&op.name());
                out.push('(');
                write_expr(out, a, namer);
                out.push_str(", ");
                write_expr(out, b, namer);
                out.push(')');
            }
        },
    }
}

impl Expr {
    /// The expression as mathematics, e.g. `100*(x[i - 1]^2 - x[i])^2 + (x[i - 1] - 1)^2`.
    /// Shared subexpressions are printed in full at each use.
    pub fn display(&self, namer: &dyn Namer) -> String {
        let mut s = String::new();
        write_expr(&mut s, self, namer);
        s
    }
}

/// Printing of index expressions as mathematics.
impl Index {
    /// Precedence for printing: 1 for sums, 2 for products, 3 for atoms.
    pub(crate) fn prec(&self) -> u8 {
        match self {
            Index::Const(c) if *c < 0 => 1,
            Index::Const(_) | Index::Field(_) => 3,
            Index::Add(..) | Index::Sub(..) => 1,
            _ => 2,
        }
    }

    /// Writes the expression as mathematics, naming integer fields with `namer`.
    pub fn write(&self, f: &mut dyn fmt::Write, namer: &dyn Namer) -> fmt::Result {
        let paren = |f: &mut dyn fmt::Write, e: &Index, p: bool| -> fmt::Result {
            if p {
                f.write_char('(')?;
                e.write(f, namer)?;
                f.write_char(')')
            } else {
                e.write(f, namer)
            }
        };
        match self {
            Index::Const(c) => write!(f, "{c}"),
            Index::Field(c) => f.write_str(&namer.int_field(*c)),
            Index::Add(a, b) => {
                paren(f, a, a.prec() < 1)?;
                match **b {
                    Index::Const(c) if c < 0 && c != i64::MIN => write!(f, " - {}", -c),
                    _ => {
                        f.write_str(" + ")?;
                        paren(f, b, b.prec() <= 1)
                    }
                }
            }
            Index::Sub(a, b) => {
                paren(f, a, a.prec() < 1)?;
                f.write_str(" - ")?;
                paren(f, b, b.prec() <= 1)
            }
            Index::Mul(a, b) | Index::FloorDiv(a, b) | Index::Rem(a, b) => {
                let op = match self {
                    Index::Mul(..) => "*",
                    Index::FloorDiv(..) => " ÷ ",
                    _ => " mod ",
                };
                // print `2*i` rather than `i*2`
                if let (Index::Mul(..), Index::Const(_)) = (self, &**b) {
                    paren(f, b, b.prec() < 3)?;
                    f.write_str(op)?;
                    return paren(f, a, a.prec() < 2);
                }
                paren(f, a, a.prec() < 2)?;
                f.write_str(op)?;
                paren(f, b, b.prec() <= 2)
            }
        }
    }

    /// The expression printed with `namer`.
    pub fn display(&self, namer: &dyn Namer) -> String {
        let mut s = String::new();
        let _ = self.write(&mut s, namer);
        s
    }
}

impl fmt::Display for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display(&DefaultNamer))
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display(&DefaultNamer))
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display(&DefaultNamer))
    }
}
