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

use simdnlp_ad::Scalar;

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

impl<T: Scalar> NlpMeta<T> {
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

impl<T: Scalar> NlpMeta<T> {
    /// Checks the invariants documented on [`NlpMeta`]: every vector has its length, no
    /// bound is NaN, no lower bound is `+∞` or above its upper bound, no upper bound is
    /// `-∞`, and the starting point (`x0`, `y0`) is finite.
    ///
    /// # Errors
    /// The first violation found, naming the vector and the index.
    pub fn validate(&self) -> Result<(), MetaError> {
        let (n, m) = (self.nvar, self.ncon);
        let lengths = [
            ("x0", n, self.x0.len()),
            ("lvar", n, self.lvar.len()),
            ("uvar", n, self.uvar.len()),
            ("y0", m, self.y0.len()),
            ("lcon", m, self.lcon.len()),
            ("ucon", m, self.ucon.len()),
        ];
        for (what, expected, got) in lengths {
            if expected != got {
                return Err(MetaError::BadLength {
                    what,
                    expected,
                    got,
                });
            }
        }
        let as_f64 = |v: T| Scalar::to_f64(v);
        for (what, lower, upper) in [
            ("variable", &self.lvar, &self.uvar),
            ("constraint", &self.lcon, &self.ucon),
        ] {
            for (index, (&l, &u)) in lower.iter().zip(upper).enumerate() {
                let (l, u) = (as_f64(l), as_f64(u));
                if l.is_nan() || u.is_nan() || l > u || l == f64::INFINITY || u == f64::NEG_INFINITY
                {
                    return Err(MetaError::BadBounds {
                        what,
                        index,
                        lower: l,
                        upper: u,
                    });
                }
            }
        }
        for (what, start) in [("x0", &self.x0), ("y0", &self.y0)] {
            if let Some((index, &v)) = start.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                return Err(MetaError::NonFiniteStart {
                    what,
                    index,
                    value: as_f64(v),
                });
            }
        }
        Ok(())
    }
}

/// Why an [`NlpMeta`] breaks its invariants ([`NlpMeta::validate`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MetaError {
    /// A vector has the wrong length.
    #[error("model {what}: expected length {expected}, got {got}")]
    BadLength {
        /// Which vector (`x0`, `lvar`, ...).
        what: &'static str,
        /// Expected length (`nvar` or `ncon`).
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// A bound is NaN, a lower bound exceeds its upper bound or is `+∞`, or an upper bound
    /// is `-∞`.
    #[error("model {what}[{index}]: invalid bounds [{lower}, {upper}]")]
    BadBounds {
        /// `variable` or `constraint`.
        what: &'static str,
        /// Index of the offending entry.
        index: usize,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
    /// A starting value is NaN or infinite.
    #[error("model {what}[{index}] = {value}: the starting point must be finite")]
    NonFiniteStart {
        /// `x0` or `y0`.
        what: &'static str,
        /// Index of the offending entry.
        index: usize,
        /// The value.
        value: f64,
    },
}

/// A nonlinear program with exact sparse first and second derivatives.
///
/// Slice arguments must have the lengths of [`NlpMeta`] (`x`: `nvar`, `y`: `ncon`,
/// Jacobian values: `nnzj`, Hessian values: `nnzh`, products: `nvar` or `ncon` as the
/// math says). Callbacks write every element of their output (they do not accumulate
/// into it) and must not allocate. A callback that cannot evaluate at `x` (outside the
/// domain of `log`, say) writes NaN or ±∞; the solver treats that as a rejected point.
pub trait NlpModel<T: Scalar = f64> {
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

    /// The block and index of variable `j` in a model built from named blocks
    /// ([`crate::Model`] answers), for reports such as the solver's most violated
    /// bounds. `None` by default, and for `j >= nvar`. May allocate (not called while
    /// iterating).
    fn var_block(&self, j: usize) -> Option<BlockPosition> {
        let _ = j;
        None
    }

    /// The block and index of constraint row `i`, as [`NlpModel::var_block`] for
    /// variables.
    fn con_block(&self, i: usize) -> Option<BlockPosition> {
        let _ = i;
        None
    }

    /// The pattern-based [`crate::Model`] this is, if it is one ([`crate::Model<f64>`]
    /// answers itself; pointers forward): lets a solver evaluate it with its emitted
    /// device kernels ([`crate::DeviceModel`]) instead of the callbacks. `None` by default.
    fn as_pattern_model(&self) -> Option<&crate::Model<f64>> {
        None
    }
}

/// Forwards every [`NlpModel`] method of a pointer type (`&M`, `Box<M>`) to the model it
/// points to, defaulted methods (`var_block`, `con_block`) included, so a wrapper that
/// overrides them is still heard through the pointer.
macro_rules! forward_nlp_model {
    ($($pointer:ty),*) => {$(
        impl<T: Scalar, M: NlpModel<T> + ?Sized> NlpModel<T> for $pointer {
            fn meta(&self) -> &NlpMeta<T> {
                (**self).meta()
            }
            fn obj(&self, x: &[T]) -> T {
                (**self).obj(x)
            }
            fn grad(&self, x: &[T], g: &mut [T]) {
                (**self).grad(x, g)
            }
            fn cons(&self, x: &[T], c: &mut [T]) {
                (**self).cons(x, c)
            }
            fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
                (**self).jac_structure(rows, cols)
            }
            fn jac_coord(&self, x: &[T], vals: &mut [T]) {
                (**self).jac_coord(x, vals)
            }
            fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
                (**self).hess_structure(rows, cols)
            }
            fn hess_coord(&self, x: &[T], y: &[T], obj_weight: T, vals: &mut [T]) {
                (**self).hess_coord(x, y, obj_weight, vals)
            }
            fn jprod(&self, x: &[T], v: &[T], jv: &mut [T]) {
                (**self).jprod(x, v, jv)
            }
            fn jtprod(&self, x: &[T], v: &[T], jtv: &mut [T]) {
                (**self).jtprod(x, v, jtv)
            }
            fn hprod(&self, x: &[T], y: &[T], obj_weight: T, v: &[T], hv: &mut [T]) {
                (**self).hprod(x, y, obj_weight, v, hv)
            }
            fn var_block(&self, j: usize) -> Option<BlockPosition> {
                (**self).var_block(j)
            }
            fn con_block(&self, i: usize) -> Option<BlockPosition> {
                (**self).con_block(i)
            }
            fn as_pattern_model(&self) -> Option<&crate::Model<f64>> {
                (**self).as_pattern_model()
            }
        }
    )*};
}

// `&dyn NlpModel` and `Box<dyn NlpModel>` are models too, so solvers generic over a
// sized model type take them without a hand-written forwarding wrapper.
forward_nlp_model!(&M, Box<M>);

/// Where a variable or a constraint row sits in a model built from blocks: the block's
/// name and the element's index in the block's own index ranges (one entry per
/// dimension, empty for a zero-dimensional block). Displays as `name[i, j]` (`name` for
/// a zero-dimensional block).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockPosition {
    /// The block's name (user-given, or the builder's default name).
    pub block: String,
    /// The element's index within the block, one entry per dimension.
    pub index: Vec<i64>,
}

impl std::fmt::Display for BlockPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.block)?;
        if self.index.is_empty() {
            return Ok(());
        }
        f.write_str("[")?;
        for (d, i) in self.index.iter().enumerate() {
            if d > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{i}")?;
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_validation_names_the_vector_and_index() {
        let mut meta = NlpMeta::<f64>::new(2, 1);
        assert_eq!(meta.validate(), Ok(()));
        meta.uvar[1] = -1.0;
        meta.lvar[1] = 0.0;
        assert_eq!(
            meta.validate(),
            Err(MetaError::BadBounds {
                what: "variable",
                index: 1,
                lower: 0.0,
                upper: -1.0
            })
        );
        let mut meta = NlpMeta::<f64>::new(2, 1);
        meta.lcon[0] = f64::NAN;
        assert!(matches!(
            meta.validate(),
            Err(MetaError::BadBounds {
                what: "constraint",
                index: 0,
                ..
            })
        ));
        let mut meta = NlpMeta::<f64>::new(2, 1);
        meta.ucon[0] = f64::NEG_INFINITY;
        meta.lcon[0] = f64::NEG_INFINITY;
        assert!(meta.validate().is_err(), "an upper bound of -inf");
        let mut meta = NlpMeta::<f32>::new(2, 1);
        meta.x0[0] = f32::INFINITY;
        let err = meta.validate().unwrap_err();
        assert_eq!(
            err.to_string(),
            "model x0[0] = inf: the starting point must be finite"
        );
        let mut meta = NlpMeta::<f64>::new(2, 1);
        meta.uvar.pop();
        assert_eq!(
            meta.validate(),
            Err(MetaError::BadLength {
                what: "uvar",
                expected: 2,
                got: 1
            })
        );
    }

    /// `x₀² + x₁` with one constraint `x₀ x₁`, naming its variables `v[j]`.
    struct Named(NlpMeta<f64>);

    impl NlpModel for Named {
        fn meta(&self) -> &NlpMeta<f64> {
            &self.0
        }
        fn obj(&self, x: &[f64]) -> f64 {
            x[0] * x[0] + x[1]
        }
        fn grad(&self, x: &[f64], g: &mut [f64]) {
            g.copy_from_slice(&[2.0 * x[0], 1.0]);
        }
        fn cons(&self, x: &[f64], c: &mut [f64]) {
            c[0] = x[0] * x[1];
        }
        fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
            rows.copy_from_slice(&[0, 0]);
            cols.copy_from_slice(&[0, 1]);
        }
        fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
            vals.copy_from_slice(&[x[1], x[0]]);
        }
        fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
            rows.copy_from_slice(&[0, 1]);
            cols.copy_from_slice(&[0, 0]);
        }
        fn hess_coord(&self, _x: &[f64], y: &[f64], w: f64, vals: &mut [f64]) {
            vals.copy_from_slice(&[2.0 * w, y[0]]);
        }
        fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
            jv[0] = x[1] * v[0] + x[0] * v[1];
        }
        fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
            jtv.copy_from_slice(&[x[1] * v[0], x[0] * v[0]]);
        }
        fn hprod(&self, _x: &[f64], y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
            hv.copy_from_slice(&[2.0 * w * v[0] + y[0] * v[1], y[0] * v[0]]);
        }
        fn var_block(&self, j: usize) -> Option<BlockPosition> {
            (j < 2).then(|| BlockPosition {
                block: "v".into(),
                index: vec![j as i64],
            })
        }
    }

    /// Every callback through `&dyn NlpModel` and `Box<dyn NlpModel>` gives what the
    /// model gives, the overridden `var_block` included.
    #[test]
    fn references_and_boxes_forward_every_callback() {
        fn all(m: &impl NlpModel) -> Vec<f64> {
            let x = [1.5, -2.0];
            let (y, v) = ([0.5], [0.25, 4.0]);
            let mut out = vec![m.meta().nvar as f64, m.obj(&x)];
            let mut g = [0.0; 2];
            m.grad(&x, &mut g);
            let mut c = [0.0];
            m.cons(&x, &mut c);
            let (mut r, mut k) = ([0usize; 2], [0usize; 2]);
            m.jac_structure(&mut r, &mut k);
            let mut jac = [0.0; 2];
            m.jac_coord(&x, &mut jac);
            let (mut hr, mut hk) = ([0usize; 2], [0usize; 2]);
            m.hess_structure(&mut hr, &mut hk);
            let mut hess = [0.0; 2];
            m.hess_coord(&x, &y, 3.0, &mut hess);
            let (mut jv, mut jtv, mut hv) = ([0.0], [0.0; 2], [0.0; 2]);
            m.jprod(&x, &v, &mut jv);
            m.jtprod(&x, &y, &mut jtv);
            m.hprod(&x, &y, 3.0, &v, &mut hv);
            out.extend(g.iter().chain(&c).chain(&jac).chain(&hess));
            out.extend(jv.iter().chain(&jtv).chain(&hv));
            out.extend(r.iter().chain(&k).chain(&hr).chain(&hk).map(|&i| i as f64));
            out.push(m.var_block(1).map_or(-1.0, |p| p.index[0] as f64));
            out.push(m.con_block(0).map_or(-1.0, |p| p.index[0] as f64));
            out
        }
        let model = Named(NlpMeta::new(2, 1));
        let expected = all(&model);
        assert_eq!(expected[expected.len() - 2], 1.0, "the model names x[1]");
        let by_ref: &dyn NlpModel = &model;
        assert_eq!(all(&by_ref), expected);
        let boxed: Box<dyn NlpModel> = Box::new(Named(NlpMeta::new(2, 1)));
        assert_eq!(all(&boxed), expected);
        assert_eq!(boxed.var_block(0).unwrap().to_string(), "v[0]");
    }
}
