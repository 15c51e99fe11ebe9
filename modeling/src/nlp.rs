//! The solver-facing interface: the NLPModels.jl contract in Rust.
//!
//! A nonlinear program in the form
//!
//! ```text
//! min (or max) f(x)   s.t.   lcon ≤ c(x) ≤ ucon,   lvar ≤ x ≤ uvar
//! ```
//!
//! with first and second derivatives in *partially compressed* COO form: the same
//! `(row, col)` pair may appear several times and the consumer sums duplicates. The
//! Hessian is the lower triangle (`row >= col`) of the Lagrangian Hessian
//! `σ ∇²f(x) + Σ_i y_i ∇²c_i(x)`.
//!
//! Any type implementing [`NlpModel`] can be solved, hand-written models included.

use num_traits::Float;

/// Scalar types a model can be evaluated in (`f64` by default, `f32` supported).
pub trait Real: Float + Send + Sync + std::fmt::Debug + Default + 'static {}
impl<T: Float + Send + Sync + std::fmt::Debug + Default + 'static> Real for T {}

/// Sizes, bounds and starting point of an [`NlpModel`].
///
/// Invariants: every vector has the length its name says (`nvar` for `x0`, `lvar`,
/// `uvar`; `ncon` for `y0`, `lcon`, `ucon`); `lvar[i] <= uvar[i]`, `lcon[j] <= ucon[j]`;
/// infinite bounds are `±∞` (`T::infinity()`), never NaN. An equality row has
/// `lcon[j] == ucon[j]`; a fixed variable has `lvar[i] == uvar[i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct NlpMeta<T = f64> {
    /// Number of variables `n`.
    pub nvar: usize,
    /// Number of constraint rows `m`.
    pub ncon: usize,
    /// Number of Jacobian COO entries (duplicates included).
    pub nnzj: usize,
    /// Number of lower-triangle Lagrangian-Hessian COO entries (duplicates included).
    pub nnzh: usize,
    /// Primal starting point, length `nvar`.
    pub x0: Vec<T>,
    /// Constraint-multiplier starting point, length `ncon`.
    pub y0: Vec<T>,
    /// Variable lower bounds, length `nvar` (`-∞` when free).
    pub lvar: Vec<T>,
    /// Variable upper bounds, length `nvar` (`+∞` when free).
    pub uvar: Vec<T>,
    /// Constraint lower bounds, length `ncon`.
    pub lcon: Vec<T>,
    /// Constraint upper bounds, length `ncon`.
    pub ucon: Vec<T>,
    /// `true` to minimize `f`, `false` to maximize it. Callbacks always return `f` itself;
    /// the solver applies the sign.
    pub minimize: bool,
    /// Human-readable model name (for logs and benchmark tables).
    pub name: String,
}

impl<T: Real> NlpMeta<T> {
    /// Meta of an unconstrained-so-far model with `nvar` free variables starting at zero.
    pub fn new(nvar: usize, ncon: usize) -> Self {
        Self {
            nvar,
            ncon,
            nnzj: 0,
            nnzh: 0,
            x0: vec![T::zero(); nvar],
            y0: vec![T::zero(); ncon],
            lvar: vec![T::neg_infinity(); nvar],
            uvar: vec![T::infinity(); nvar],
            lcon: vec![T::zero(); ncon],
            ucon: vec![T::zero(); ncon],
            minimize: true,
            name: String::new(),
        }
    }
}

/// A nonlinear program with exact sparse first and second derivatives.
///
/// Slice arguments must have the lengths of [`NlpMeta`] (`x`: `nvar`, `y`: `ncon`,
/// Jacobian values: `nnzj`, Hessian values: `nnzh`, products: `nvar` or `ncon` as the
/// math says). Callbacks write every element of their output (they do not accumulate
/// into it) and must not allocate. A callback that cannot evaluate at `x` (outside the
/// domain of `log`, say) writes NaN or ±∞; the solver treats that as a rejected point.
pub trait NlpModel<T: Real = f64> {
    /// Sizes, bounds, starting point and sense.
    fn meta(&self) -> &NlpMeta<T>;

    /// Objective value `f(x)`.
    fn obj(&self, x: &[T]) -> T;

    /// Objective gradient `∇f(x)` into `g` (length `nvar`).
    fn grad(&self, x: &[T], g: &mut [T]);

    /// Constraint values `c(x)` into `c` (length `ncon`).
    fn cons(&self, x: &[T], c: &mut [T]);

    /// Jacobian sparsity: row and column of each of the `nnzj` COO entries (0-based).
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]);

    /// Jacobian values in the order of [`NlpModel::jac_structure`].
    fn jac_coord(&self, x: &[T], vals: &mut [T]);

    /// Lower-triangle Lagrangian-Hessian sparsity (`rows[k] >= cols[k]`), `nnzh` entries.
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]);

    /// Values of `obj_weight · ∇²f(x) + Σ_j y_j ∇²c_j(x)` in the order of
    /// [`NlpModel::hess_structure`].
    fn hess_coord(&self, x: &[T], y: &[T], obj_weight: T, vals: &mut [T]);

    /// Jacobian-vector product `Jv = J(x) v` (length `ncon`).
    fn jprod(&self, x: &[T], v: &[T], jv: &mut [T]);

    /// Transposed Jacobian-vector product `Jᵀv = J(x)ᵀ v` (length `nvar`).
    fn jtprod(&self, x: &[T], v: &[T], jtv: &mut [T]);

    /// Lagrangian-Hessian-vector product `(obj_weight ∇²f + Σ y_j ∇²c_j) v` (length `nvar`).
    fn hprod(&self, x: &[T], y: &[T], obj_weight: T, v: &[T], hv: &mut [T]);
}
