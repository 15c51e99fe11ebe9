//! Symbolic values of a data point: integer fields ([`Idx`]) and real fields ([`Dat`]).
//!
//! A pattern's closure is called once with a *symbolic* data point whose fields are these
//! values. Both are `Copy`, so a pattern can use `i` or `line.c5` as often as it likes:
//! `-h.at(i) + h.at(i - 1)`, `line.c5 * x.at(line.f_bus) + line.c5`.
//!
//! [`Idx`] is an affine combination of integer data columns with integer coefficients
//! (`2*i + j - 1`), which covers almost every position a model computes; anything else
//! (`i * j`, `i / 2`, `i % 2`) yields a general [`simdnlp_ad::Index`], which every accessor
//! (`Var::at`, `Param::at`) accepts as well.

use simdnlp_ad::{Expr, Index};
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// Maximum number of distinct integer columns one [`Idx`] can combine.
pub const MAX_IDX_TERMS: usize = 4;

/// A symbolic integer of the current data point: `Σ coef·field + constant`.
///
/// Created by data iterators (a range's `i`, a struct's integer field); combined with
/// `+`, `-`, unary `-` and multiplication by integers. Integer overflow or more than
/// [`MAX_IDX_TERMS`] distinct columns make the value *invalid*; using an invalid value as a
/// position is reported by `ModelBuilder::build` (never a silent wrap-around).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Idx {
    terms: [(u32, i64); MAX_IDX_TERMS],
    n: u8,
    c: i64,
    invalid: bool,
}

impl Idx {
    /// Integer data column `col` of the current data point.
    pub fn field(col: u32) -> Idx {
        let mut t = Idx::constant(0);
        t.terms[0] = (col, 1);
        t.n = 1;
        t
    }

    /// A constant.
    pub fn constant(c: i64) -> Idx {
        Idx {
            terms: [(0, 0); MAX_IDX_TERMS],
            n: 0,
            c,
            invalid: false,
        }
    }

    /// `false` when an operation overflowed or needed too many columns.
    pub fn is_valid(&self) -> bool {
        !self.invalid
    }

    /// The constant value, when no column is involved.
    pub fn as_const(&self) -> Option<i64> {
        (self.n == 0 && !self.invalid).then_some(self.c)
    }

    fn invalid() -> Idx {
        let mut t = Idx::constant(0);
        t.invalid = true;
        t
    }

    fn add_term(&mut self, col: u32, coef: i64) {
        if coef == 0 {
            return;
        }
        let n = self.n as usize;
        for k in 0..n {
            if self.terms[k].0 == col {
                match self.terms[k].1.checked_add(coef) {
                    Some(0) => {
                        self.terms.copy_within(k + 1..n, k);
                        self.n -= 1;
                    }
                    Some(v) => self.terms[k].1 = v,
                    None => self.invalid = true,
                }
                return;
            }
        }
        if n == MAX_IDX_TERMS {
            self.invalid = true;
            return;
        }
        // keep terms sorted by column so equal positions compare equal
        let pos = self.terms[..n].iter().position(|t| t.0 > col).unwrap_or(n);
        self.terms.copy_within(pos..n, pos + 1);
        self.terms[pos] = (col, coef);
        self.n += 1;
    }

    fn plus(mut self, r: Idx) -> Idx {
        self.invalid |= r.invalid;
        for &(col, k) in &r.terms[..r.n as usize] {
            self.add_term(col, k);
        }
        match self.c.checked_add(r.c) {
            Some(c) => self.c = c,
            None => self.invalid = true,
        }
        self
    }

    fn scaled(mut self, k: i64) -> Idx {
        if k == 0 {
            let inv = self.invalid;
            let mut z = Idx::constant(0);
            z.invalid = inv;
            return z;
        }
        for t in &mut self.terms[..self.n as usize] {
            match t.1.checked_mul(k) {
                Some(v) => t.1 = v,
                None => self.invalid = true,
            }
        }
        match self.c.checked_mul(k) {
            Some(c) => self.c = c,
            None => self.invalid = true,
        }
        self
    }

    /// The same position as a general index expression (canonical form: terms by column,
    /// then the constant).
    pub fn index(&self) -> Index {
        if self.invalid {
            return Index::Const(i64::MIN);
        }
        let mut acc: Option<Index> = None;
        for &(col, k) in &self.terms[..self.n as usize] {
            let term = Index::field(col) * k;
            acc = Some(match acc {
                None => term,
                Some(a) => a + term,
            });
        }
        match acc {
            None => Index::Const(self.c),
            Some(a) => a + self.c,
        }
    }

    /// The integer as a real-valued expression.
    pub fn expr(&self) -> Expr {
        Expr::index(self.index())
    }

    /// Floor division `⌊self / d⌋` (a general index expression).
    pub fn div_floor(self, d: impl IntoIndex) -> Index {
        self.index().floor_div(d.into_index())
    }

    /// Remainder of floor division (sign of the divisor).
    pub fn rem_floor(self, d: impl IntoIndex) -> Index {
        self.index().modulo(d.into_index())
    }
}

impl From<Idx> for Index {
    fn from(i: Idx) -> Index {
        i.index()
    }
}

impl From<Idx> for Expr {
    fn from(i: Idx) -> Expr {
        i.expr()
    }
}

/// A symbolic real data field of the current data point (a real column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dat {
    col: u32,
}

impl Dat {
    /// Real data column `col` of the current data point.
    pub fn field(col: u32) -> Dat {
        Dat { col }
    }

    /// The column number.
    pub fn column(&self) -> u32 {
        self.col
    }

    /// The field as an expression (to call functions on it: `d.expr().sin()`).
    pub fn expr(&self) -> Expr {
        Expr::data(self.col)
    }
}

impl From<Dat> for Expr {
    fn from(d: Dat) -> Expr {
        d.expr()
    }
}

/// One position argument: affine ([`Idx`]) or general ([`Index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexArg {
    /// An affine position (fast paths, exact canonical form).
    Affine(Idx),
    /// A general index expression.
    General(Index),
}

impl IndexArg {
    /// The position as an index expression.
    pub fn to_index(&self) -> Index {
        match self {
            IndexArg::Affine(i) => i.index(),
            IndexArg::General(i) => i.clone(),
        }
    }
}

/// Anything usable as one position of a block: [`Idx`], [`Index`] (owned or borrowed) and
/// the integer primitives (constants).
pub trait IntoIndex {
    /// Converts to a position argument.
    fn into_arg(self) -> IndexArg;
    /// Converts to an index expression.
    fn into_index(self) -> Index
    where
        Self: Sized,
    {
        self.into_arg().to_index()
    }
}

impl IntoIndex for Idx {
    fn into_arg(self) -> IndexArg {
        IndexArg::Affine(self)
    }
}
impl IntoIndex for &Idx {
    fn into_arg(self) -> IndexArg {
        IndexArg::Affine(*self)
    }
}
impl IntoIndex for Index {
    fn into_arg(self) -> IndexArg {
        match self {
            Index::Const(c) => IndexArg::Affine(Idx::constant(c)),
            e => IndexArg::General(e),
        }
    }
}
impl IntoIndex for &Index {
    fn into_arg(self) -> IndexArg {
        self.clone().into_arg()
    }
}

/// Anything usable as an affine position ([`Idx`] and integer constants).
pub trait IntoIdx {
    /// Converts to an affine position.
    fn into_idx(self) -> Idx;
}
impl IntoIdx for Idx {
    fn into_idx(self) -> Idx {
        self
    }
}
impl IntoIdx for &Idx {
    fn into_idx(self) -> Idx {
        *self
    }
}

macro_rules! int_consts {
    ($($t:ty),*) => {$(
        impl IntoIdx for $t {
            fn into_idx(self) -> Idx {
                match i64::try_from(self) {
                    Ok(v) => Idx::constant(v),
                    Err(_) => Idx::invalid(),
                }
            }
        }
        impl IntoIndex for $t {
            fn into_arg(self) -> IndexArg {
                IndexArg::Affine(self.into_idx())
            }
        }
        impl Add<$t> for Idx { type Output = Idx; fn add(self, r: $t) -> Idx { self.plus(r.into_idx()) } }
        impl Add<Idx> for $t { type Output = Idx; fn add(self, r: Idx) -> Idx { self.into_idx().plus(r) } }
        impl Sub<$t> for Idx { type Output = Idx; fn sub(self, r: $t) -> Idx { self.plus(r.into_idx().scaled(-1)) } }
        impl Sub<Idx> for $t { type Output = Idx; fn sub(self, r: Idx) -> Idx { self.into_idx().plus(r.scaled(-1)) } }
        impl Mul<$t> for Idx {
            type Output = Idx;
            fn mul(self, r: $t) -> Idx {
                match r.into_idx().as_const() { Some(k) => self.scaled(k), None => Idx::invalid() }
            }
        }
        impl Mul<Idx> for $t { type Output = Idx; fn mul(self, r: Idx) -> Idx { r * self } }
        impl Div<$t> for Idx { type Output = Index; fn div(self, r: $t) -> Index { self.div_floor(r) } }
        impl Rem<$t> for Idx { type Output = Index; fn rem(self, r: $t) -> Index { self.rem_floor(r) } }
    )*};
}
int_consts!(i64, i32, usize, u32);

impl Add for Idx {
    type Output = Idx;
    fn add(self, r: Idx) -> Idx {
        self.plus(r)
    }
}
impl Sub for Idx {
    type Output = Idx;
    fn sub(self, r: Idx) -> Idx {
        self.plus(r.scaled(-1))
    }
}
impl Neg for Idx {
    type Output = Idx;
    fn neg(self) -> Idx {
        self.scaled(-1)
    }
}
impl Mul for Idx {
    type Output = Index;
    fn mul(self, r: Idx) -> Index {
        self.index() * r.index()
    }
}

// ----- real-valued arithmetic: Idx and Dat mixed with reals and expressions -> Expr -----

macro_rules! real_ops {
    ($sym:ty; $($Tr:ident $m:ident;)*) => {$(
        impl $Tr<f64> for $sym { type Output = Expr; fn $m(self, r: f64) -> Expr { $Tr::$m(Expr::from(self), Expr::from(r)) } }
        impl $Tr<$sym> for f64 { type Output = Expr; fn $m(self, r: $sym) -> Expr { $Tr::$m(Expr::from(self), Expr::from(r)) } }
        impl $Tr<Expr> for $sym { type Output = Expr; fn $m(self, r: Expr) -> Expr { $Tr::$m(Expr::from(self), r) } }
        impl $Tr<&Expr> for $sym { type Output = Expr; fn $m(self, r: &Expr) -> Expr { $Tr::$m(Expr::from(self), r.clone()) } }
        impl $Tr<$sym> for Expr { type Output = Expr; fn $m(self, r: $sym) -> Expr { $Tr::$m(self, Expr::from(r)) } }
        impl $Tr<$sym> for &Expr { type Output = Expr; fn $m(self, r: $sym) -> Expr { $Tr::$m(self.clone(), Expr::from(r)) } }
    )*};
}
real_ops!(Idx; Add add; Sub sub; Mul mul; Div div;);
real_ops!(Dat; Add add; Sub sub; Mul mul; Div div;);

macro_rules! dat_ops {
    ($($Tr:ident $m:ident;)*) => {$(
        impl $Tr<Dat> for Dat { type Output = Expr; fn $m(self, r: Dat) -> Expr { $Tr::$m(Expr::from(self), Expr::from(r)) } }
        impl $Tr<Idx> for Dat { type Output = Expr; fn $m(self, r: Idx) -> Expr { $Tr::$m(Expr::from(self), Expr::from(r)) } }
        impl $Tr<Dat> for Idx { type Output = Expr; fn $m(self, r: Dat) -> Expr { $Tr::$m(Expr::from(self), Expr::from(r)) } }
        impl $Tr<i32> for Dat { type Output = Expr; fn $m(self, r: i32) -> Expr { $Tr::$m(Expr::from(self), Expr::from(r as f64)) } }
        impl $Tr<Dat> for i32 { type Output = Expr; fn $m(self, r: Dat) -> Expr { $Tr::$m(Expr::from(self as f64), Expr::from(r)) } }
    )*};
}
dat_ops!(Add add; Sub sub; Mul mul; Div div;);

impl Neg for Dat {
    type Output = Expr;
    fn neg(self) -> Expr {
        -Expr::from(self)
    }
}

// ----- mixing affine and general positions -> Index -----

macro_rules! general_ops {
    ($($Tr:ident $m:ident;)*) => {$(
        impl $Tr<Idx> for Index { type Output = Index; fn $m(self, r: Idx) -> Index { $Tr::$m(self, r.index()) } }
        impl $Tr<Idx> for &Index { type Output = Index; fn $m(self, r: Idx) -> Index { $Tr::$m(self.clone(), r.index()) } }
        impl $Tr<Index> for Idx { type Output = Index; fn $m(self, r: Index) -> Index { $Tr::$m(self.index(), r) } }
        impl $Tr<&Index> for Idx { type Output = Index; fn $m(self, r: &Index) -> Index { $Tr::$m(self.index(), r.clone()) } }
    )*};
}
general_ops!(Add add; Sub sub; Mul mul;);
