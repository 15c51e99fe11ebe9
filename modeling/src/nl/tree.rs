//! Expression trees of a `.nl` file and the table of AMPL operators (opcodes `o0`…`o82`).
//!
//! The tree is the file's prefix notation read into nodes, one node per operator, number or
//! variable; defined variables (common expressions, `V` segments) stay references here and
//! are inlined when rows are shaped (`patterns`).

/// A node of an expression tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    /// A numeric constant (`n`, `s` or `l` in the file).
    Num(f64),
    /// Variable `x[i]`, `i < n_var` (`v` in the file).
    Var(usize),
    /// Defined variable (common expression) `k` (`v` with an index `≥ n_var`).
    Defined(usize),
    /// An operator applied to its arguments, in file order.
    Op(Op, Vec<Tree>),
}

/// How many arguments an operator takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Fixed(usize),
    /// A count follows the opcode (`sumlist`, `min`, `max`, `and`/`or` lists).
    Counted,
}

macro_rules! ops {
    ($($(#[$m:meta])* $V:ident = $code:literal, $name:literal, $ar:expr;)*) => {
        /// The AMPL operators this importer reads (numeric and logical), by opcode.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op { $($(#[$m])* $V,)* }

        impl Op {
            /// The operator of opcode `code`, if this importer knows it.
            pub fn from_code(code: i64) -> Option<Op> {
                match code { $($code => Some(Op::$V),)* _ => None }
            }
            /// The opcode (`o<code>` in the file).
            pub fn code(self) -> i64 {
                match self { $(Op::$V => $code,)* }
            }
            /// The AMPL name, for messages.
            pub fn name(self) -> &'static str {
                match self { $(Op::$V => $name,)* }
            }
            /// Number of arguments.
            pub fn arity(self) -> Arity {
                match self { $(Op::$V => $ar,)* }
            }
        }
    };
}

use Arity::{Counted, Fixed};

ops! {
    /// `a + b`
    Plus = 0, "+", Fixed(2);
    /// `a - b`
    Minus = 1, "-", Fixed(2);
    /// `a * b`
    Mult = 2, "*", Fixed(2);
    /// `a / b`
    Div = 3, "/", Fixed(2);
    /// `a mod b` (truncated)
    Rem = 4, "mod", Fixed(2);
    /// `a ^ b`
    Pow = 5, "^", Fixed(2);
    /// `a less b` = `max(a - b, 0)`
    Less = 6, "less", Fixed(2);
    /// `min(a, b, …)`
    MinList = 11, "min", Counted;
    /// `max(a, b, …)`
    MaxList = 12, "max", Counted;
    /// `floor(a)`
    Floor = 13, "floor", Fixed(1);
    /// `ceil(a)`
    Ceil = 14, "ceil", Fixed(1);
    /// `abs(a)`
    Abs = 15, "abs", Fixed(1);
    /// `-a`
    Neg = 16, "unary -", Fixed(1);
    /// `a or b` (logical)
    Or = 20, "or", Fixed(2);
    /// `a and b` (logical)
    And = 21, "and", Fixed(2);
    /// `a < b`
    Lt = 22, "<", Fixed(2);
    /// `a <= b`
    Le = 23, "<=", Fixed(2);
    /// `a == b`
    Eq = 24, "==", Fixed(2);
    /// `a >= b`
    Ge = 28, ">=", Fixed(2);
    /// `a > b`
    Gt = 29, ">", Fixed(2);
    /// `a != b`
    Ne = 30, "!=", Fixed(2);
    /// `not a` (logical)
    Not = 34, "not", Fixed(1);
    /// `if c then a else b`
    If = 35, "if-then-else", Fixed(3);
    /// `tanh`
    Tanh = 37, "tanh", Fixed(1);
    /// `tan`
    Tan = 38, "tan", Fixed(1);
    /// `sqrt`
    Sqrt = 39, "sqrt", Fixed(1);
    /// `sinh`
    Sinh = 40, "sinh", Fixed(1);
    /// `sin`
    Sin = 41, "sin", Fixed(1);
    /// `log10`
    Log10 = 42, "log10", Fixed(1);
    /// `log`
    Log = 43, "log", Fixed(1);
    /// `exp`
    Exp = 44, "exp", Fixed(1);
    /// `cosh`
    Cosh = 45, "cosh", Fixed(1);
    /// `cos`
    Cos = 46, "cos", Fixed(1);
    /// `atanh`
    Atanh = 47, "atanh", Fixed(1);
    /// `atan2(a, b)`
    Atan2 = 48, "atan2", Fixed(2);
    /// `atan`
    Atan = 49, "atan", Fixed(1);
    /// `asinh`
    Asinh = 50, "asinh", Fixed(1);
    /// `asin`
    Asin = 51, "asin", Fixed(1);
    /// `acosh`
    Acosh = 52, "acosh", Fixed(1);
    /// `acos`
    Acos = 53, "acos", Fixed(1);
    /// `a + b + …` (`sumlist`)
    SumList = 54, "sumlist", Counted;
    /// `a div b` (truncated integer division)
    IntDiv = 55, "div", Fixed(2);
    /// `precision(a, n)`
    Precision = 56, "precision", Fixed(2);
    /// `round(a, n)`
    Round = 57, "round", Fixed(2);
    /// `trunc(a, n)`
    Trunc = 58, "trunc", Fixed(2);
    /// `count` (not supported)
    Count = 59, "count", Counted;
    /// `numberof` (not supported)
    NumberOf = 60, "numberof", Counted;
    /// symbolic `numberof` (not supported)
    NumberOfSym = 61, "numberofs", Counted;
    /// `atleast` (not supported)
    AtLeast = 62, "atleast", Fixed(2);
    /// `atmost` (not supported)
    AtMost = 63, "atmost", Fixed(2);
    /// piecewise-linear term (not supported)
    PlTerm = 64, "piecewise-linear term", Counted;
    /// symbolic if (not supported)
    IfSym = 65, "symbolic if", Fixed(3);
    /// `exactly` (not supported)
    Exactly = 66, "exactly", Fixed(2);
    /// `!atleast` (not supported)
    NotAtLeast = 67, "!atleast", Fixed(2);
    /// `!atmost` (not supported)
    NotAtMost = 68, "!atmost", Fixed(2);
    /// `!exactly` (not supported)
    NotExactly = 69, "!exactly", Fixed(2);
    /// `forall` (n-ary and)
    AndList = 70, "forall", Counted;
    /// `exists` (n-ary or)
    OrList = 71, "exists", Counted;
    /// logical `c ==> a else b`
    Implies = 72, "==>", Fixed(3);
    /// `a <==> b`
    Iff = 73, "<==>", Fixed(2);
    /// `alldiff` (not supported)
    AllDiff = 74, "alldiff", Counted;
    /// `!alldiff` (not supported)
    SomeSame = 75, "!alldiff", Counted;
    /// `a ^ c`, constant exponent
    Pow1 = 76, "^ (constant exponent)", Fixed(2);
    /// `a ^ 2`
    Pow2 = 77, "^2", Fixed(1);
    /// `c ^ a`, constant base
    PowC = 78, "^ (constant base)", Fixed(2);
}

impl Op {
    /// Whether the operator is a known AMPL operator the modeling layer cannot represent
    /// (counting, piecewise-linear, symbolic and combinatorial operators).
    pub fn unsupported(self) -> bool {
        matches!(
            self,
            Op::Count
                | Op::NumberOf
                | Op::NumberOfSym
                | Op::AtLeast
                | Op::AtMost
                | Op::PlTerm
                | Op::IfSym
                | Op::Exactly
                | Op::NotAtLeast
                | Op::NotAtMost
                | Op::NotExactly
                | Op::AllDiff
                | Op::SomeSame
                | Op::Precision
        )
    }

    /// Whether the operator yields a truth value (used as the condition of `if`).
    pub fn is_logical(self) -> bool {
        matches!(
            self,
            Op::Or
                | Op::And
                | Op::Lt
                | Op::Le
                | Op::Eq
                | Op::Ge
                | Op::Gt
                | Op::Ne
                | Op::Not
                | Op::AndList
                | Op::OrList
                | Op::Implies
                | Op::Iff
        )
    }
}

impl Tree {
    /// Calls `f` on every node, parents before children, without recursion (trees from
    /// long sums can be deep).
    pub fn visit(&self, mut f: impl FnMut(&Tree)) {
        let mut stack = vec![self];
        while let Some(t) = stack.pop() {
            f(t);
            if let Tree::Op(_, args) = t {
                stack.extend(args.iter().rev());
            }
        }
    }
}
