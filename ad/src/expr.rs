//! Symbolic expressions: leaves, registered functions, construction-time simplification and
//! operator overloading.

use crate::index::Index;
use crate::ops::{Bin, BinOp, BinPart, BinaryFn, Un, UnOp, UnaryFn};
use std::collections::HashSet;
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::sync::Arc;

/// A reference to one entry of the flat variable vector `x` (or, as [`ParamRef`], of the
/// parameter vector `θ`), resolved per data point.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarRef {
    /// The modeling layer's block id (used for printing and validation only).
    pub block: u32,
    /// One index per block dimension, as the user wrote them (printing and validation).
    pub dims: Vec<Index>,
    /// 0-based position in the flat vector. Two references are the same first-order slot
    /// iff their `global` expressions are structurally equal.
    pub global: Index,
}

impl VarRef {
    /// A reference with the given block, dimension indices and global position.
    pub fn new(block: u32, dims: Vec<Index>, global: Index) -> Self {
        VarRef {
            block,
            dims,
            global,
        }
    }
}

/// A parameter reference: the same structure as [`VarRef`], indexing `θ`.
pub type ParamRef = VarRef;

/// The data-reading leaves of an expression ([`Expr::leaves`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Leaves {
    /// Distinct variable references, in order of first appearance.
    pub vars: Vec<VarRef>,
    /// Distinct parameter references, in order of first appearance.
    pub params: Vec<ParamRef>,
    /// Real data columns read (`Expr::data(col)`), in order of first appearance.
    pub real_columns: Vec<u32>,
}

/// A node of the expression graph.
#[derive(Debug)]
pub(crate) enum Node {
    Const(f64),
    Var(VarRef),
    Param(VarRef),
    Data(u32),
    Int(Index),
    Un(UnOp, Expr),
    Bin(BinOp, Expr, Expr),
}

/// A symbolic scalar expression of one data point: a cheap-to-clone handle (an `Arc`) to a
/// node of an expression DAG. Shared subexpressions (the same `Expr` used twice) and equal
/// subexpressions built separately are both computed once in compiled programs
/// (hash-consing happens at [`crate::Pattern::compile`]).
///
/// Construction simplifies exactly: `x+0`, `x·1`, `x/1`, `x^0`, `x^1`, `x^2 → abs2(x)`,
/// `x^-1 → inv(x)`, `0·x`, `0/x`, `(-1)·x → -x`, `--x → x`, `-(c·x) → (-c)·x`,
/// `c·(-x) → (-c)·x`, `x - c → x + (-c)`, constants move to the left of products
/// and the right of sums (IEEE `+` and `*` commute exactly), and functions of constants fold
/// to constants (when the result is finite). `0·x → 0` follows the paper (it ignores
/// `x = ∞/NaN`).
#[derive(Clone)]
pub struct Expr(pub(crate) Arc<Node>);

impl Expr {
    pub(crate) fn node(&self) -> &Node {
        &self.0
    }

    pub(crate) fn from_node(n: Node) -> Expr {
        Expr(Arc::new(n))
    }

    /// A constant.
    pub fn constant(c: f64) -> Expr {
        Expr::from_node(Node::Const(c))
    }

    /// The variable `x[r.global]`.
    pub fn var(r: VarRef) -> Expr {
        Expr::from_node(Node::Var(r))
    }

    /// The parameter `θ[r.global]`.
    pub fn param(r: ParamRef) -> Expr {
        Expr::from_node(Node::Param(r))
    }

    /// Real data column `col` of the current data point.
    pub fn data(col: u32) -> Expr {
        Expr::from_node(Node::Data(col))
    }

    /// An integer index expression used as a real value (a constant index folds to a
    /// constant).
    pub fn index(i: Index) -> Expr {
        match i {
            Index::Const(c) => Expr::constant(c as f64),
            i => Expr::from_node(Node::Int(i)),
        }
    }

    /// The value if this expression is a constant.
    pub fn as_const(&self) -> Option<f64> {
        match self.node() {
            Node::Const(c) => Some(*c),
            _ => None,
        }
    }

    fn is_c(&self, v: f64) -> bool {
        self.as_const() == Some(v)
    }

    /// Whether two handles point to the same node.
    pub fn ptr_eq(&self, other: &Expr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The leaves of the expression that read model data: every distinct variable and
    /// parameter reference and every real data column, each once, in order of first
    /// appearance (a depth-first walk that visits each shared node once).
    ///
    /// Unlike [`crate::Pattern::var_refs`], which keeps one reference per global position,
    /// references of different blocks that resolve to the same position are all listed:
    /// the modeling layer checks every block a pattern names before compiling it.
    pub fn leaves(&self) -> Leaves {
        let mut out = Leaves::default();
        let mut seen_nodes: HashSet<*const Node> = HashSet::new();
        let mut seen_refs: HashSet<(bool, &VarRef)> = HashSet::new();
        let mut stack: Vec<&Expr> = vec![self];
        while let Some(e) = stack.pop() {
            if !seen_nodes.insert(Arc::as_ptr(&e.0)) {
                continue;
            }
            match e.node() {
                Node::Var(r) => {
                    if seen_refs.insert((false, r)) {
                        out.vars.push(r.clone());
                    }
                }
                Node::Param(r) => {
                    if seen_refs.insert((true, r)) {
                        out.params.push(r.clone());
                    }
                }
                Node::Data(c) => {
                    if !out.real_columns.contains(c) {
                        out.real_columns.push(*c);
                    }
                }
                Node::Const(_) | Node::Int(_) => {}
                Node::Un(_, a) => stack.push(a),
                // right pushed first so the left operand is walked first
                Node::Bin(_, a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
            }
        }
        out
    }

    pub(crate) fn un(op: UnOp, a: Expr) -> Expr {
        if let Some(c) = a.as_const() {
            let v = op.eval_f64(c);
            if v.is_finite() {
                return Expr::constant(v);
            }
        }
        match &op {
            UnOp::B(Un::Neg) => {
                if let Node::Un(UnOp::B(Un::Neg), inner) = a.node() {
                    return inner.clone();
                }
                // -(c*u) -> (-c)*u: negation is exact
                if let Node::Bin(BinOp::B(Bin::Mul), l, r) = a.node() {
                    if let Some(c) = l.as_const() {
                        return Expr::bin(BinOp::B(Bin::Mul), Expr::constant(-c), r.clone());
                    }
                }
            }
            UnOp::Powi(n) => match n {
                0 => return Expr::constant(1.0),
                1 => return a,
                2 => return Expr::un(UnOp::B(Un::Abs2), a),
                -1 => return Expr::un(UnOp::B(Un::Inv), a),
                _ => {}
            },
            UnOp::Powf(p) => {
                if *p == 0.0 {
                    return Expr::constant(1.0);
                } else if *p == 1.0 {
                    return a;
                } else if *p == 2.0 {
                    return Expr::un(UnOp::B(Un::Abs2), a);
                } else if *p == -1.0 {
                    return Expr::un(UnOp::B(Un::Inv), a);
                }
            }
            _ => {}
        }
        Expr::from_node(Node::Un(op, a))
    }

    pub(crate) fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            let v = op.eval_f64(x, y);
            if v.is_finite() {
                return Expr::constant(v);
            }
        }
        if let BinOp::B(bop) = op {
            match bop {
                Bin::Add => {
                    if a.is_c(0.0) {
                        return b;
                    }
                    if b.is_c(0.0) {
                        return a;
                    }
                    // a + (-u) -> a - u and (-u) + b -> b - u: the same operation in IEEE 754
                    if let Node::Un(UnOp::B(Un::Neg), u) = b.node() {
                        return Expr::bin(BinOp::B(Bin::Sub), a, u.clone());
                    }
                    if let Node::Un(UnOp::B(Un::Neg), u) = a.node() {
                        return Expr::bin(BinOp::B(Bin::Sub), b, u.clone());
                    }
                    if a.as_const().is_some() {
                        return Expr::from_node(Node::Bin(op, b, a));
                    }
                }
                Bin::Sub => {
                    if b.is_c(0.0) {
                        return a;
                    }
                    if a.is_c(0.0) {
                        return -b;
                    }
                    if let Some(c) = b.as_const() {
                        return Expr::bin(BinOp::B(Bin::Add), a, Expr::constant(-c));
                    }
                    // a - (-u) -> a + u: the same operation in IEEE 754
                    if let Node::Un(UnOp::B(Un::Neg), u) = b.node() {
                        return Expr::bin(BinOp::B(Bin::Add), a, u.clone());
                    }
                }
                Bin::Mul => {
                    if a.is_c(0.0) || b.is_c(0.0) {
                        return Expr::constant(0.0);
                    }
                    if a.is_c(1.0) {
                        return b;
                    }
                    if b.is_c(1.0) {
                        return a;
                    }
                    if a.is_c(-1.0) {
                        return -b;
                    }
                    if b.is_c(-1.0) {
                        return -a;
                    }
                    if b.as_const().is_some() {
                        return Expr::bin(op, b, a);
                    }
                    if let Some(c1) = a.as_const() {
                        // c*(-u) -> (-c)*u: negation is exact
                        if let Node::Un(UnOp::B(Un::Neg), u) = b.node() {
                            return Expr::bin(op, Expr::constant(-c1), u.clone());
                        }
                    } else {
                        // (-u)*b -> -(u*b) and a*(-u) -> -(a*u): products round the
                        // magnitude the same whatever the signs, so the negation moves out
                        // exactly (only a NaN's sign bit may differ), and `u*b` is shared
                        // with the other products of `u` and `b`
                        if let Node::Un(UnOp::B(Un::Neg), u) = a.node() {
                            return -Expr::bin(op, u.clone(), b);
                        }
                        if let Node::Un(UnOp::B(Un::Neg), u) = b.node() {
                            return -Expr::bin(op, a, u.clone());
                        }
                    }
                }
                Bin::Div => {
                    if b.is_c(1.0) {
                        return a;
                    }
                    // (-u)/b -> -(u/b) and a/(-u) -> -(a/u): exact, as for products
                    if let Node::Un(UnOp::B(Un::Neg), u) = a.node() {
                        return -Expr::bin(op, u.clone(), b);
                    }
                    if let Node::Un(UnOp::B(Un::Neg), u) = b.node() {
                        return -Expr::bin(op, a, u.clone());
                    }
                    if a.is_c(0.0) {
                        return Expr::constant(0.0);
                    }
                    if b.is_c(-1.0) {
                        return -a;
                    }
                }
                Bin::Pow => {
                    if let Some(p) = b.as_const() {
                        return a.powf(p);
                    }
                }
                _ => {}
            }
        }
        Expr::from_node(Node::Bin(op, a, b))
    }

    fn u(&self, f: Un) -> Expr {
        Expr::un(UnOp::B(f), self.clone())
    }

    fn b2(&self, f: Bin, o: impl Into<Expr>) -> Expr {
        Expr::bin(BinOp::B(f), self.clone(), o.into())
    }

    /// Integer power `self^n` (evaluated by repeated multiplication, like `f64::powi`).
    pub fn powi(&self, n: i32) -> Expr {
        Expr::un(UnOp::Powi(n), self.clone())
    }

    /// Real power `self^p` (`f64::powf`); `p ∈ {0, 1, 2, -1}` simplify.
    pub fn powf(&self, p: f64) -> Expr {
        Expr::un(UnOp::Powf(p), self.clone())
    }

    /// Power with a symbolic exponent; a constant exponent gives [`Expr::powf`].
    pub fn pow(&self, e: impl Into<Expr>) -> Expr {
        self.b2(Bin::Pow, e)
    }

    /// `atan2(self, x)`: the angle of the point `(x, self)`.
    pub fn atan2(&self, x: impl Into<Expr>) -> Expr {
        self.b2(Bin::Atan2, x)
    }

    /// `sqrt(self² + o²)`.
    pub fn hypot(&self, o: impl Into<Expr>) -> Expr {
        self.b2(Bin::Hypot, o)
    }

    /// `max(self, o)`.
    pub fn max(&self, o: impl Into<Expr>) -> Expr {
        self.b2(Bin::Max, o)
    }

    /// `min(self, o)`.
    pub fn min(&self, o: impl Into<Expr>) -> Expr {
        self.b2(Bin::Min, o)
    }

    /// Applies a built-in univariate function.
    pub fn apply(&self, f: Un) -> Expr {
        self.u(f)
    }

    /// Applies a built-in bivariate function.
    pub fn apply2(&self, f: Bin, o: impl Into<Expr>) -> Expr {
        self.b2(f, o)
    }
}

macro_rules! unary_methods {
    ($($(#[$m:meta])* $f:ident => $V:ident;)*) => {
        impl Expr { $( $(#[$m])* pub fn $f(&self) -> Expr { self.u(Un::$V) } )* }
        /// Free-function forms of the registered functions (`funcs::exp(&x)`).
        pub mod funcs {
            use super::Expr;
            $( $(#[$m])* pub fn $f(e: &Expr) -> Expr { e.$f() } )*
            /// `a^n` for an integer `n`.
            pub fn powi(e: &Expr, n: i32) -> Expr { e.powi(n) }
            /// `a^p` for a real `p`.
            pub fn powf(e: &Expr, p: f64) -> Expr { e.powf(p) }
            /// `a^b`.
            pub fn pow(a: &Expr, b: impl Into<Expr>) -> Expr { a.pow(b) }
            /// `atan2(a, b)`.
            pub fn atan2(a: &Expr, b: impl Into<Expr>) -> Expr { a.atan2(b) }
            /// `hypot(a, b)`.
            pub fn hypot(a: &Expr, b: impl Into<Expr>) -> Expr { a.hypot(b) }
            /// `max(a, b)`.
            pub fn max(a: &Expr, b: impl Into<Expr>) -> Expr { a.max(b) }
            /// `min(a, b)`.
            pub fn min(a: &Expr, b: impl Into<Expr>) -> Expr { a.min(b) }
            /// n-ary sum, accumulated left to right (`0` when empty).
            pub fn sum<I: IntoIterator<Item = Expr>>(terms: I) -> Expr {
                let mut it = terms.into_iter();
                match it.next() { None => Expr::constant(0.0), Some(f) => it.fold(f, |a, b| a + b) }
            }
            /// n-ary product, accumulated left to right (`1` when empty).
            pub fn prod<I: IntoIterator<Item = Expr>>(terms: I) -> Expr {
                let mut it = terms.into_iter();
                match it.next() { None => Expr::constant(1.0), Some(f) => it.fold(f, |a, b| a * b) }
            }
        }
    };
}

unary_methods! {
    /// `e^x`
    exp => Exp;
    /// `2^x`
    exp2 => Exp2;
    /// `10^x`
    exp10 => Exp10;
    /// `e^x - 1`
    expm1 => Expm1;
    /// natural logarithm
    log => Log;
    /// base-2 logarithm
    log2 => Log2;
    /// base-10 logarithm
    log10 => Log10;
    /// `log(1 + x)`
    log1p => Log1p;
    /// square root
    sqrt => Sqrt;
    /// cube root
    cbrt => Cbrt;
    /// sine
    sin => Sin;
    /// cosine
    cos => Cos;
    /// tangent
    tan => Tan;
    /// cosecant
    csc => Csc;
    /// secant
    sec => Sec;
    /// cotangent
    cot => Cot;
    /// arcsine
    asin => Asin;
    /// arccosine
    acos => Acos;
    /// arctangent
    atan => Atan;
    /// arccotangent
    acot => Acot;
    /// sine in degrees
    sind => Sind;
    /// cosine in degrees
    cosd => Cosd;
    /// tangent in degrees
    tand => Tand;
    /// cosecant in degrees
    cscd => Cscd;
    /// secant in degrees
    secd => Secd;
    /// cotangent in degrees
    cotd => Cotd;
    /// arctangent in degrees
    atand => Atand;
    /// arccotangent in degrees
    acotd => Acotd;
    /// `sin(πx)`
    sinpi => Sinpi;
    /// `cos(πx)`
    cospi => Cospi;
    /// `sin(πx)/(πx)`
    sinc => Sinc;
    /// hyperbolic sine
    sinh => Sinh;
    /// hyperbolic cosine
    cosh => Cosh;
    /// hyperbolic tangent
    tanh => Tanh;
    /// hyperbolic cosecant
    csch => Csch;
    /// hyperbolic secant
    sech => Sech;
    /// hyperbolic cotangent
    coth => Coth;
    /// inverse hyperbolic sine
    asinh => Asinh;
    /// inverse hyperbolic cosine
    acosh => Acosh;
    /// inverse hyperbolic tangent
    atanh => Atanh;
    /// inverse hyperbolic cotangent
    acoth => Acoth;
    /// absolute value
    abs => Abs;
    /// square
    abs2 => Abs2;
    /// reciprocal
    inv => Inv;
    /// sign (-1, 0, 1)
    sign => Sign;
    /// floor
    floor => Floor;
    /// ceiling
    ceil => Ceil;
    /// degrees to radians
    deg2rad => Deg2rad;
    /// radians to degrees
    rad2deg => Rad2deg;
}

#[cfg(feature = "special")]
impl Expr {
    /// Error function (feature `special`).
    pub fn erf(&self) -> Expr {
        self.u(Un::Erf)
    }
    /// Complementary error function (feature `special`).
    pub fn erfc(&self) -> Expr {
        self.u(Un::Erfc)
    }
    /// Gamma function (feature `special`).
    pub fn gamma(&self) -> Expr {
        self.u(Un::Gamma)
    }
    /// `log |Γ(x)|` (feature `special`).
    pub fn lgamma(&self) -> Expr {
        self.u(Un::Lgamma)
    }
    /// Digamma `ψ(x)` (feature `special`).
    pub fn digamma(&self) -> Expr {
        self.u(Un::Digamma)
    }
}

impl UnaryFn {
    /// Applies the user function to `e`.
    pub fn call(&self, e: &Expr) -> Expr {
        Expr::un(UnOp::User(self.clone(), 0), e.clone())
    }
}

impl BinaryFn {
    /// Applies the user function to `(a, b)`.
    pub fn call(&self, a: &Expr, b: &Expr) -> Expr {
        Expr::bin(BinOp::User(self.clone(), BinPart::F), a.clone(), b.clone())
    }
}

impl From<f64> for Expr {
    fn from(c: f64) -> Expr {
        Expr::constant(c)
    }
}
impl From<i32> for Expr {
    fn from(c: i32) -> Expr {
        Expr::constant(c as f64)
    }
}
impl From<i64> for Expr {
    fn from(c: i64) -> Expr {
        Expr::constant(c as f64)
    }
}
impl From<Index> for Expr {
    fn from(i: Index) -> Expr {
        Expr::index(i)
    }
}
impl From<&Index> for Expr {
    fn from(i: &Index) -> Expr {
        Expr::index(i.clone())
    }
}
impl From<&Expr> for Expr {
    fn from(e: &Expr) -> Expr {
        e.clone()
    }
}

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::un(UnOp::B(Un::Neg), self)
    }
}
impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::un(UnOp::B(Un::Neg), self.clone())
    }
}

trait IntoExpr {
    fn ie(self) -> Expr;
}
impl IntoExpr for Expr {
    fn ie(self) -> Expr {
        self
    }
}
impl IntoExpr for &Expr {
    fn ie(self) -> Expr {
        self.clone()
    }
}
impl IntoExpr for f64 {
    fn ie(self) -> Expr {
        Expr::constant(self)
    }
}
impl IntoExpr for i32 {
    fn ie(self) -> Expr {
        Expr::constant(self as f64)
    }
}
impl IntoExpr for Index {
    fn ie(self) -> Expr {
        Expr::index(self)
    }
}
impl IntoExpr for &Index {
    fn ie(self) -> Expr {
        Expr::index(self.clone())
    }
}

macro_rules! expr_binops {
    ($($Tr:ident $m:ident $B:ident;)*) => {$(
        expr_binops!(@one $Tr $m $B; Expr, Expr; Expr, &Expr; &Expr, Expr; &Expr, &Expr;
            Expr, f64; &Expr, f64; f64, Expr; f64, &Expr;
            Expr, i32; &Expr, i32; i32, Expr; i32, &Expr;
            Expr, Index; &Expr, Index; Index, Expr; Index, &Expr;
            Expr, &Index; &Expr, &Index; &Index, Expr; &Index, &Expr);
    )*};
    (@one $Tr:ident $m:ident $B:ident; $($L:ty, $R:ty);*) => {$(
        impl $Tr<$R> for $L {
            type Output = Expr;
            fn $m(self, r: $R) -> Expr { Expr::bin(BinOp::B(Bin::$B), self.ie(), r.ie()) }
        }
    )*};
}
expr_binops! {
    Add add Add;
    Sub sub Sub;
    Mul mul Mul;
    Div div Div;
}
