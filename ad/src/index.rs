//! Integer index expressions evaluated per data point.

use crate::data::DataView;
use std::ops::{Add, Mul, Neg, Sub};

/// An integer-valued expression of the current data point: used for variable and parameter
/// positions (`x[i - 1]`) and for integer data used as reals.
///
/// Constructors and operators fold constants exactly (`Const(a) + Const(b) → Const(a+b)`,
/// `e + 0 → e`, `e * 1 → e`, `e * 0 → 0`, `(e + a) + b → e + (a + b)`, `e - c → e + (-c)`),
/// and move constants to the right of sums, so that equal positions written differently
/// (`(i - 1) + 1` and `i`) usually compare equal. Folding never overflows: when a folded
/// constant would overflow `i64` the expression is left unfolded.
///
/// Arithmetic at evaluation wraps on overflow; [`Index::FloorDiv`] rounds toward negative
/// infinity; [`Index::Rem`] has the sign of the divisor (`a - b * floor(a / b)`); division by
/// zero yields `i64::MIN` (an invalid position that the modeling layer's bounds check
/// reports).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Index {
    /// A constant.
    Const(i64),
    /// Integer data column `col` of the current data point.
    Field(u32),
    /// Sum.
    Add(Box<Index>, Box<Index>),
    /// Difference.
    Sub(Box<Index>, Box<Index>),
    /// Product.
    Mul(Box<Index>, Box<Index>),
    /// Floor division.
    FloorDiv(Box<Index>, Box<Index>),
    /// Remainder of floor division (sign of the divisor).
    Rem(Box<Index>, Box<Index>),
}

#[inline]
pub(crate) fn floor_div(a: i64, b: i64) -> i64 {
    if b == 0 {
        return i64::MIN;
    }
    let q = a.wrapping_div(b);
    if (a.wrapping_rem(b) != 0) && ((a < 0) != (b < 0)) {
        q.wrapping_sub(1)
    } else {
        q
    }
}

#[inline]
pub(crate) fn floor_rem(a: i64, b: i64) -> i64 {
    if b == 0 {
        return i64::MIN;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r.wrapping_add(b)
    } else {
        r
    }
}

impl Index {
    /// Integer data column `col` of the current data point.
    pub fn field(col: u32) -> Index {
        Index::Field(col)
    }

    /// A constant index.
    pub fn constant(c: i64) -> Index {
        Index::Const(c)
    }

    /// The constant value, if this expression is a constant.
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Index::Const(c) => Some(*c),
            _ => None,
        }
    }

    /// Splits `e + c` into `(e, c)`; any other expression gives `(self, 0)`.
    /// A constant gives `(None, c)`.
    pub(crate) fn split_offset(&self) -> (Option<&Index>, i64) {
        match self {
            Index::Const(c) => (None, *c),
            Index::Add(a, b) => match **b {
                Index::Const(c) => (Some(a), c),
                _ => (Some(self), 0),
            },
            _ => (Some(self), 0),
        }
    }

    /// Floor division `floor(self / rhs)`, folded when both are constants.
    pub fn floor_div(self, rhs: impl Into<Index>) -> Index {
        let rhs = rhs.into();
        match (&self, &rhs) {
            (Index::Const(a), Index::Const(b)) if *b != 0 => Index::Const(floor_div(*a, *b)),
            (_, Index::Const(1)) => self,
            _ => Index::FloorDiv(Box::new(self), Box::new(rhs)),
        }
    }

    /// Remainder of floor division, folded when both are constants.
    pub fn modulo(self, rhs: impl Into<Index>) -> Index {
        let rhs = rhs.into();
        match (&self, &rhs) {
            (Index::Const(a), Index::Const(b)) if *b != 0 => Index::Const(floor_rem(*a, *b)),
            (_, Index::Const(1)) => Index::Const(0),
            _ => Index::Rem(Box::new(self), Box::new(rhs)),
        }
    }

    fn add_idx(self, rhs: Index) -> Index {
        use Index::*;
        match (self, rhs) {
            (Const(a), Const(b)) => match a.checked_add(b) {
                Some(c) => Const(c),
                None => Add(Box::new(Const(a)), Box::new(Const(b))),
            },
            (e, Const(0)) | (Const(0), e) => e,
            (Const(a), e) => e.add_idx(Const(a)),
            (Add(e, c), Const(b)) => match *c {
                Const(a) => match a.checked_add(b) {
                    Some(s) => (*e).add_idx(Const(s)),
                    None => Add(Box::new(Add(e, c)), Box::new(Const(b))),
                },
                c2 => Add(Box::new(Add(e, Box::new(c2))), Box::new(Const(b))),
            },
            // (e + a) + f -> (e + f) + a keeps the constant outermost
            (Add(e, c), f) if matches!(*c, Const(_)) => (*e).add_idx(f).add_idx(*c),
            (f, Add(e, c)) if matches!(*c, Const(_)) => f.add_idx(*e).add_idx(*c),
            (a, b) => Add(Box::new(a), Box::new(b)),
        }
    }

    fn sub_idx(self, rhs: Index) -> Index {
        use Index::*;
        match (self, rhs) {
            (Const(a), Const(b)) => match a.checked_sub(b) {
                Some(c) => Const(c),
                None => Sub(Box::new(Const(a)), Box::new(Const(b))),
            },
            (e, Const(b)) => match b.checked_neg() {
                Some(nb) => e.add_idx(Const(nb)),
                None => Sub(Box::new(e), Box::new(Const(b))),
            },
            (a, b) if a == b => Const(0),
            (Add(e, c), f) if matches!(*c, Const(_)) => (*e).sub_idx(f).add_idx(*c),
            (f, Add(e, c)) if matches!(*c, Const(_)) => {
                match c.as_const().and_then(i64::checked_neg) {
                    Some(nc) => f.sub_idx(*e).add_idx(Const(nc)),
                    None => Sub(Box::new(f), Box::new(Add(e, c))),
                }
            }
            (a, b) => Sub(Box::new(a), Box::new(b)),
        }
    }

    fn mul_idx(self, rhs: Index) -> Index {
        use Index::*;
        match (self, rhs) {
            (Const(a), Const(b)) => match a.checked_mul(b) {
                Some(c) => Const(c),
                None => Mul(Box::new(Const(a)), Box::new(Const(b))),
            },
            (_, Const(0)) | (Const(0), _) => Const(0),
            (e, Const(1)) | (Const(1), e) => e,
            (Const(a), e) => e.mul_idx(Const(a)),
            // (e + a) * m -> e*m + a*m
            (Add(e, c), Const(m)) => match c.as_const().and_then(|a| a.checked_mul(m)) {
                Some(am) => (*e).mul_idx(Const(m)).add_idx(Const(am)),
                None => Mul(Box::new(Add(e, c)), Box::new(Const(m))),
            },
            (a, b) => Mul(Box::new(a), Box::new(b)),
        }
    }

    /// Evaluates the expression at data point `point` (wrapping arithmetic; a missing
    /// column or row reads as `i64::MIN`).
    pub fn eval<T>(&self, data: &DataView<'_, T>, point: usize) -> i64 {
        match self {
            Index::Const(c) => *c,
            Index::Field(c) => data.int(*c, point).unwrap_or(i64::MIN),
            Index::Add(a, b) => a.eval(data, point).wrapping_add(b.eval(data, point)),
            Index::Sub(a, b) => a.eval(data, point).wrapping_sub(b.eval(data, point)),
            Index::Mul(a, b) => a.eval(data, point).wrapping_mul(b.eval(data, point)),
            Index::FloorDiv(a, b) => floor_div(a.eval(data, point), b.eval(data, point)),
            Index::Rem(a, b) => floor_rem(a.eval(data, point), b.eval(data, point)),
        }
    }

    /// The largest integer field column used, if any.
    pub fn max_field(&self) -> Option<u32> {
        match self {
            Index::Const(_) => None,
            Index::Field(c) => Some(*c),
            Index::Add(a, b)
            | Index::Sub(a, b)
            | Index::Mul(a, b)
            | Index::FloorDiv(a, b)
            | Index::Rem(a, b) => a.max_field().max(b.max_field()),
        }
    }
}

impl From<i64> for Index {
    fn from(c: i64) -> Index {
        Index::Const(c)
    }
}

impl Neg for Index {
    type Output = Index;
    fn neg(self) -> Index {
        Index::Const(0).sub_idx(self)
    }
}

macro_rules! index_ops {
    ($($Tr:ident $m:ident $f:ident;)*) => {$(
        impl $Tr<Index> for Index { type Output = Index; fn $m(self, r: Index) -> Index { self.$f(r) } }
        impl $Tr<&Index> for Index { type Output = Index; fn $m(self, r: &Index) -> Index { self.$f(r.clone()) } }
        impl $Tr<Index> for &Index { type Output = Index; fn $m(self, r: Index) -> Index { self.clone().$f(r) } }
        impl $Tr<&Index> for &Index { type Output = Index; fn $m(self, r: &Index) -> Index { self.clone().$f(r.clone()) } }
        impl $Tr<i64> for Index { type Output = Index; fn $m(self, r: i64) -> Index { self.$f(Index::Const(r)) } }
        impl $Tr<i64> for &Index { type Output = Index; fn $m(self, r: i64) -> Index { self.clone().$f(Index::Const(r)) } }
        impl $Tr<Index> for i64 { type Output = Index; fn $m(self, r: Index) -> Index { Index::Const(self).$f(r) } }
        impl $Tr<&Index> for i64 { type Output = Index; fn $m(self, r: &Index) -> Index { Index::Const(self).$f(r.clone()) } }
    )*};
}
index_ops! {
    Add add add_idx;
    Sub sub sub_idx;
    Mul mul mul_idx;
}
