//! Model accessors: per-block starting points, bounds, parameter values, results in the
//! block's shape (`ndarray`), name lookups, and sparse-matrix export (`nalgebra-sparse`).
//!
//! Setters validate (length, NaN, inverted bounds) and update the model's [`NlpMeta`],
//! so a solver that re-reads `meta()` sees the change; parameters change `θ`, which every
//! callback reads. Nothing is recompiled.

use crate::block::{BlockCore, BlockKind};
use crate::builder::{Con, Param, Var};
use crate::error::ModelError;
use crate::model::Model;
use crate::nlp::{NlpMeta, NlpModel};
use crate::shape::Dims;
use crate::values::Values;
use nalgebra_sparse::{CooMatrix, CscMatrix};
use ndarray::Array;
use simdnlp_ad::Scalar;
use std::ops::Range;
use std::sync::Arc;

fn at_str(core: &BlockCore, k: usize) -> String {
    let mut key = Vec::new();
    core.shape.key(k, &mut key);
    let parts: Vec<String> = key.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Which bound a setter changes.
#[derive(Clone, Copy)]
enum Side {
    Lower,
    Upper,
}

impl<T: Scalar> Model<T> {
    fn owned(&self, core: &Arc<BlockCore>, kind: BlockKind) -> Result<Range<usize>, ModelError> {
        match self.by_uid.get(&core.uid) {
            Some(&(k, _)) if k == kind => Ok(core.offset..core.offset + core.shape.len()),
            _ => Err(ModelError::ForeignHandle {
                kind: kind.as_str(),
                block: core.name(),
            }),
        }
    }

    fn values_for(core: &BlockCore, what: &'static str, v: &Values) -> Result<(), ModelError> {
        if v.wrong_len(core.shape.len()) {
            return Err(ModelError::LengthMismatch {
                block: core.name(),
                what,
                expected: core.shape.len(),
                got: v.given_len().unwrap_or(0),
            });
        }
        Ok(())
    }

    fn shaped<D: Dims>(
        core: &BlockCore,
        what: &'static str,
        v: &[T],
    ) -> Result<Array<T, D::Nd>, ModelError> {
        Array::from_shape_vec(D::nd(&core.shape), v.to_vec()).map_err(|_| {
            ModelError::LengthMismatch {
                block: core.name(),
                what,
                expected: core.shape.len(),
                got: v.len(),
            }
        })
    }

    fn slice_of<D: Dims>(
        &self,
        core: &Arc<BlockCore>,
        kind: BlockKind,
        what: &'static str,
        flat: &[T],
        expected: usize,
    ) -> Result<Array<T, D::Nd>, ModelError> {
        let r = self.owned(core, kind)?;
        if flat.len() != expected {
            return Err(ModelError::LengthMismatch {
                block: core.name(),
                what,
                expected,
                got: flat.len(),
            });
        }
        Self::shaped::<D>(core, what, &flat[r])
    }

    fn set_bound(
        core: &BlockCore,
        r: Range<usize>,
        what: &'static str,
        side: Side,
        v: Values,
        lo: &mut [T],
        hi: &mut [T],
    ) -> Result<(), ModelError> {
        Self::values_for(core, what, &v)?;
        for k in 0..r.len() {
            let val = v.get(k);
            let i = r.start + k;
            if val.is_nan() {
                return Err(ModelError::NotANumber {
                    block: core.name(),
                    what,
                    at: at_str(core, k),
                    value: val,
                });
            }
            let (l, u) = match side {
                Side::Lower => (val, hi[i].to_f64()),
                Side::Upper => (lo[i].to_f64(), val),
            };
            if l > u {
                return Err(ModelError::InvertedBounds {
                    block: core.name(),
                    what,
                    at: at_str(core, k),
                    lower: l,
                    upper: u,
                });
            }
        }
        let dst = match side {
            Side::Lower => lo,
            Side::Upper => hi,
        };
        for k in 0..r.len() {
            dst[r.start + k] = T::from_f64(v.get(k));
        }
        Ok(())
    }

    fn set_finite(
        core: &BlockCore,
        what: &'static str,
        v: Values,
        dst: &mut [T],
    ) -> Result<(), ModelError> {
        Self::values_for(core, what, &v)?;
        for k in 0..dst.len() {
            let val = v.get(k);
            if !val.is_finite() {
                return Err(ModelError::NotANumber {
                    block: core.name(),
                    what,
                    at: at_str(core, k),
                    value: val,
                });
            }
        }
        for (k, d) in dst.iter_mut().enumerate() {
            *d = T::from_f64(v.get(k));
        }
        Ok(())
    }

    /// Mutable access to the meta (for solvers that keep the model and change it wholesale).
    /// The caller keeps [`NlpMeta`]'s invariants.
    pub fn meta_mut(&mut self) -> &mut NlpMeta<T> {
        &mut self.meta
    }

    // ----- variables -----

    /// Sets the starting point of a variable block (scalar or one value per element).
    pub fn set_start<D: Dims>(
        &mut self,
        var: &Var<D>,
        v: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&var.core, BlockKind::Variable)?;
        Self::set_finite(&var.core, "start", v.into(), &mut self.meta.x0[r])
    }
    /// Sets the starting point from a closure of the element's index.
    pub fn set_start_with<D: Dims>(
        &mut self,
        var: &Var<D>,
        f: impl Fn(D::Key) -> f64,
    ) -> Result<(), ModelError> {
        let v = key_values::<D>(&var.core, f);
        self.set_start(var, v)
    }
    /// The starting point of a variable block, in the block's shape.
    pub fn start<D: Dims>(&self, var: &Var<D>) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &var.core,
            BlockKind::Variable,
            "start",
            &self.meta.x0,
            self.meta.nvar,
        )
    }
    /// Sets lower bounds of a variable block (checked against the current upper bounds).
    pub fn set_lower<D: Dims>(
        &mut self,
        var: &Var<D>,
        v: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&var.core, BlockKind::Variable)?;
        let m = &mut self.meta;
        Self::set_bound(
            &var.core,
            r,
            "lower bound",
            Side::Lower,
            v.into(),
            &mut m.lvar,
            &mut m.uvar,
        )
    }
    /// Sets upper bounds of a variable block (checked against the current lower bounds).
    pub fn set_upper<D: Dims>(
        &mut self,
        var: &Var<D>,
        v: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&var.core, BlockKind::Variable)?;
        let m = &mut self.meta;
        Self::set_bound(
            &var.core,
            r,
            "upper bound",
            Side::Upper,
            v.into(),
            &mut m.lvar,
            &mut m.uvar,
        )
    }
    /// Sets both bounds of a variable block (nothing changes when either is invalid).
    pub fn set_bounds<D: Dims>(
        &mut self,
        var: &Var<D>,
        lower: impl Into<Values>,
        upper: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&var.core, BlockKind::Variable)?;
        let (lower, upper) = (lower.into(), upper.into());
        let mut lo = self.meta.lvar[r.clone()].to_vec();
        let mut hi = vec![T::infinity(); r.len()];
        Self::set_bound(
            &var.core,
            0..r.len(),
            "lower bound",
            Side::Lower,
            lower,
            &mut lo,
            &mut hi,
        )?;
        Self::set_bound(
            &var.core,
            0..r.len(),
            "upper bound",
            Side::Upper,
            upper,
            &mut lo,
            &mut hi,
        )?;
        self.meta.lvar[r.clone()].copy_from_slice(&lo);
        self.meta.uvar[r].copy_from_slice(&hi);
        Ok(())
    }
    /// Lower bounds of a variable block, in the block's shape.
    pub fn lower<D: Dims>(&self, var: &Var<D>) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &var.core,
            BlockKind::Variable,
            "lower bound",
            &self.meta.lvar,
            self.meta.nvar,
        )
    }
    /// Upper bounds of a variable block, in the block's shape.
    pub fn upper<D: Dims>(&self, var: &Var<D>) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &var.core,
            BlockKind::Variable,
            "upper bound",
            &self.meta.uvar,
            self.meta.nvar,
        )
    }

    // ----- constraints -----

    /// Sets the initial multipliers of a constraint block.
    pub fn set_dual_start<D: Dims>(
        &mut self,
        con: &Con<D>,
        v: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&con.core, BlockKind::Constraint)?;
        Self::set_finite(&con.core, "dual start", v.into(), &mut self.meta.y0[r])
    }
    /// The initial multipliers of a constraint block, in the block's shape.
    pub fn dual_start<D: Dims>(&self, con: &Con<D>) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &con.core,
            BlockKind::Constraint,
            "dual start",
            &self.meta.y0,
            self.meta.ncon,
        )
    }
    /// Sets `lcon` of a constraint block (checked against the current `ucon`).
    pub fn set_lcon<D: Dims>(
        &mut self,
        con: &Con<D>,
        v: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&con.core, BlockKind::Constraint)?;
        let m = &mut self.meta;
        Self::set_bound(
            &con.core,
            r,
            "lcon",
            Side::Lower,
            v.into(),
            &mut m.lcon,
            &mut m.ucon,
        )
    }
    /// Sets `ucon` of a constraint block (checked against the current `lcon`).
    pub fn set_ucon<D: Dims>(
        &mut self,
        con: &Con<D>,
        v: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&con.core, BlockKind::Constraint)?;
        let m = &mut self.meta;
        Self::set_bound(
            &con.core,
            r,
            "ucon",
            Side::Upper,
            v.into(),
            &mut m.lcon,
            &mut m.ucon,
        )
    }
    /// `lcon` of a constraint block, in the block's shape.
    pub fn lcon<D: Dims>(&self, con: &Con<D>) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &con.core,
            BlockKind::Constraint,
            "lcon",
            &self.meta.lcon,
            self.meta.ncon,
        )
    }
    /// `ucon` of a constraint block, in the block's shape.
    pub fn ucon<D: Dims>(&self, con: &Con<D>) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &con.core,
            BlockKind::Constraint,
            "ucon",
            &self.meta.ucon,
            self.meta.ncon,
        )
    }

    // ----- parameters -----

    /// Sets the values of a parameter block (no rebuild; every later callback uses them).
    pub fn set_value<D: Dims>(
        &mut self,
        p: &Param<D>,
        v: impl Into<Values>,
    ) -> Result<(), ModelError> {
        let r = self.owned(&p.core, BlockKind::Parameter)?;
        Self::set_finite(&p.core, "parameter value", v.into(), &mut self.theta[r])
    }
    /// The values of a parameter block, in the block's shape.
    pub fn value<D: Dims>(&self, p: &Param<D>) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &p.core,
            BlockKind::Parameter,
            "parameter value",
            &self.theta,
            self.theta.len(),
        )
    }

    // ----- results -----

    /// A variable block's part of a flat primal vector `x` (length `nvar`), in the block's
    /// shape.
    pub fn solution<D: Dims>(&self, var: &Var<D>, x: &[T]) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &var.core,
            BlockKind::Variable,
            "solution",
            x,
            self.meta.nvar,
        )
    }
    /// A variable block's part of the lower-bound multipliers `z_L` (length `nvar`).
    pub fn multipliers_lower<D: Dims>(
        &self,
        var: &Var<D>,
        zl: &[T],
    ) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &var.core,
            BlockKind::Variable,
            "lower-bound multipliers",
            zl,
            self.meta.nvar,
        )
    }
    /// A variable block's part of the upper-bound multipliers `z_U` (length `nvar`).
    pub fn multipliers_upper<D: Dims>(
        &self,
        var: &Var<D>,
        zu: &[T],
    ) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &var.core,
            BlockKind::Variable,
            "upper-bound multipliers",
            zu,
            self.meta.nvar,
        )
    }
    /// A constraint block's part of the multipliers `y` (length `ncon`).
    pub fn multipliers<D: Dims>(
        &self,
        con: &Con<D>,
        y: &[T],
    ) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &con.core,
            BlockKind::Constraint,
            "multipliers",
            y,
            self.meta.ncon,
        )
    }
    /// A constraint block's part of constraint values `c` (length `ncon`).
    pub fn constraint_values<D: Dims>(
        &self,
        con: &Con<D>,
        c: &[T],
    ) -> Result<Array<T, D::Nd>, ModelError> {
        self.slice_of::<D>(
            &con.core,
            BlockKind::Constraint,
            "constraint values",
            c,
            self.meta.ncon,
        )
    }

    // ----- lookups -----

    fn find(&self, kind: BlockKind, name: &str, ndim: usize) -> Result<Arc<BlockCore>, ModelError> {
        let list: Vec<&Arc<BlockCore>> = match kind {
            BlockKind::Variable => self.vars.iter().collect(),
            BlockKind::Parameter => self.params.iter().collect(),
            _ => self.cons.iter().collect(),
        };
        let core = list
            .into_iter()
            .find(|c| self.names.get(&c.uid).is_some_and(|n| n == name))
            .ok_or_else(|| ModelError::NotFound {
                kind: kind.as_str(),
                name: name.to_string(),
            })?;
        if ndim != crate::shape::DYNAMIC && core.shape.ndim() != ndim {
            return Err(ModelError::DimensionMismatch {
                name: name.to_string(),
                actual: core.shape.ndim(),
                asked: ndim,
            });
        }
        Ok(core.clone())
    }
    /// The variable block named `name` (with `D` dimensions): `model.var_named::<Ix1>("h")`.
    pub fn var_named<D: Dims>(&self, name: &str) -> Result<Var<D>, ModelError> {
        Ok(Var::from_core(self.find(
            BlockKind::Variable,
            name,
            D::NDIM,
        )?))
    }
    /// The parameter block named `name`.
    pub fn param_named<D: Dims>(&self, name: &str) -> Result<Param<D>, ModelError> {
        Ok(Param::from_core(self.find(
            BlockKind::Parameter,
            name,
            D::NDIM,
        )?))
    }
    /// The constraint block named `name`.
    pub fn con_named<D: Dims>(&self, name: &str) -> Result<Con<D>, ModelError> {
        Ok(Con::from_core(self.find(
            BlockKind::Constraint,
            name,
            D::NDIM,
        )?))
    }
    /// Names of all variable, parameter and constraint blocks, in declaration order.
    pub fn block_names(&self) -> Vec<(BlockKind, String)> {
        self.vars
            .iter()
            .map(|c| (BlockKind::Variable, c))
            .chain(self.params.iter().map(|c| (BlockKind::Parameter, c)))
            .chain(self.cons.iter().map(|c| (BlockKind::Constraint, c)))
            .map(|(k, c)| (k, self.names.get(&c.uid).cloned().unwrap_or_default()))
            .collect()
    }
}

fn key_values<D: Dims>(core: &BlockCore, f: impl Fn(D::Key) -> f64) -> Values {
    let mut key = Vec::new();
    Values::List(
        (0..core.shape.len())
            .map(|k| {
                core.shape.key(k, &mut key);
                f(D::key(&key))
            })
            .collect(),
    )
}

impl<T> Model<T>
where
    T: Scalar + nalgebra_sparse::na::Scalar + nalgebra_sparse::na::ClosedAddAssign,
{
    /// The constraint Jacobian at `x` as a CSC matrix (`ncon × nvar`, duplicates summed).
    pub fn jacobian_csc(&self, x: &[T]) -> CscMatrix<T> {
        let m = &self.meta;
        let (mut r, mut c, mut v) = (vec![0; m.nnzj], vec![0; m.nnzj], vec![T::zero(); m.nnzj]);
        self.jac_structure(&mut r, &mut c);
        self.jac_coord(x, &mut v);
        let coo = CooMatrix::try_from_triplets(m.ncon, m.nvar, r, c, v)
            .unwrap_or_else(|_| CooMatrix::new(m.ncon, m.nvar));
        CscMatrix::from(&coo)
    }

    /// The lower triangle of the Lagrangian Hessian `σ∇²f + Σ yⱼ∇²cⱼ` at `(x, y)` as a CSC
    /// matrix (`nvar × nvar`, duplicates summed).
    pub fn hessian_lower_csc(&self, x: &[T], y: &[T], obj_weight: T) -> CscMatrix<T> {
        let m = &self.meta;
        let (mut r, mut c, mut v) = (vec![0; m.nnzh], vec![0; m.nnzh], vec![T::zero(); m.nnzh]);
        self.hess_structure(&mut r, &mut c);
        self.hess_coord(x, y, obj_weight, &mut v);
        let coo = CooMatrix::try_from_triplets(m.nvar, m.nvar, r, c, v)
            .unwrap_or_else(|_| CooMatrix::new(m.nvar, m.nvar));
        CscMatrix::from(&coo)
    }

    /// The full (symmetric) Lagrangian Hessian at `(x, y)` as a CSC matrix, duplicates
    /// summed.
    pub fn hessian_csc(&self, x: &[T], y: &[T], obj_weight: T) -> CscMatrix<T> {
        let m = &self.meta;
        let (mut r, mut c, mut v) = (vec![0; m.nnzh], vec![0; m.nnzh], vec![T::zero(); m.nnzh]);
        self.hess_structure(&mut r, &mut c);
        self.hess_coord(x, y, obj_weight, &mut v);
        let mut coo = CooMatrix::new(m.nvar, m.nvar);
        for ((&i, &j), &val) in r.iter().zip(&c).zip(&v) {
            coo.push(i, j, val);
            if i != j {
                coo.push(j, i, val);
            }
        }
        CscMatrix::from(&coo)
    }
}

/// Summary of one compiled pattern (for reports and debugging).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternInfo {
    /// The pattern's name (a constraint pattern has its block's name).
    pub name: String,
    /// `Objective`, `Constraint` or `Augmentation`.
    pub kind: BlockKind,
    /// Number of data points.
    pub points: usize,
    /// First-order slots per data point (the Jacobian/gradient stride).
    pub slots: usize,
    /// Second-order slots per data point (the Hessian stride of a pattern outside a group).
    pub hess_slots: usize,
    /// First Jacobian COO entry of the pattern (constraint patterns).
    pub jac_offset: usize,
    /// First Hessian COO entry of the pattern; for a member of a group of constraint
    /// patterns over the same data ([`Model::pattern_groups`](crate::Model::pattern_groups)),
    /// the first entry of the group's summed block, which every member shares (see the
    /// layout in the `model` module docs).
    pub hess_offset: usize,
}

impl<T: Scalar> Model<T> {
    /// The compiled patterns in declaration order (the order of the COO layout).
    pub fn patterns(&self) -> Vec<PatternInfo> {
        self.pats
            .iter()
            .map(|p| PatternInfo {
                name: self
                    .names
                    .get(&p.core.uid)
                    .cloned()
                    .unwrap_or_else(|| p.core.name()),
                kind: match p.rows {
                    crate::model::Rows::Objective => BlockKind::Objective,
                    crate::model::Rows::Base { .. } => BlockKind::Constraint,
                    crate::model::Rows::Augment { .. } => BlockKind::Augmentation,
                },
                points: p.cols.len,
                slots: p.nslots,
                hess_slots: p.nhess,
                jac_offset: p.jac_off,
                hess_offset: p.hess_off,
            })
            .collect()
    }
}
