//! The layout's bound data and the unscaling vectors on the device.

use super::Unscaling;
use super::vectors::Slacks;
use super::violation::SlackRows;
use crate::backend::Backend;
use crate::layout::Layout;
use crate::result::SolverError;

/// The layout's bound data and the unscaling vectors on the device: built from the host
/// [`Layout`] once per problem (the original problem's at setup, the restoration
/// problem's at the first restoration phase of a solve, then kept for later phases in
/// the inner run's [`super::storage::RunStorage`]).
pub(crate) struct LayoutOnDevice<B: Backend> {
    /// Components of `w` with a finite lower bound.
    pub lower_idx: B::Index,
    /// Components of `w` with a finite upper bound.
    pub upper_idx: B::Index,
    /// The finite lower bounds (one per `lower_idx` entry).
    pub lower: B::Vector,
    /// The finite upper bounds (one per `upper_idx` entry).
    pub upper: B::Vector,
    /// Per `lower_idx` entry: 1 when the component has no upper bound (κ_d damping).
    pub damp_lower: B::Vector,
    /// Per `upper_idx` entry: 1 when the component has no lower bound (κ_d damping).
    pub damp_upper: B::Vector,
    /// Lower bounds of every component of `w` (`−∞` when absent).
    pub lower_full: B::Vector,
    /// Upper bounds of every component of `w` (`+∞` when absent).
    pub upper_full: B::Vector,
    /// Scaled dual infeasibility to user units, per component of `w`.
    pub dual_unscale: B::Vector,
    /// Scaled residual to user units, per row.
    pub viol_unscale: B::Vector,
    /// The rows with a slack and the slacks' bounds (the NLP constraint violation).
    pub slack_rows: SlackRows<B::Vector, B::Index>,
}

impl<B: Backend> LayoutOnDevice<B> {
    /// The slacks of `w` to its finite bounds: `lower = w[lower_idx] − lo`, `upper = up − w[upper_idx]`.
    pub fn slacks(&self, backend: &B, w: &B::Vector, slacks: &mut Slacks<B::Vector>) {
        backend.gather_slack(&mut slacks.lower, w, &self.lower_idx, &self.lower, 1.0);
        backend.gather_slack(&mut slacks.upper, w, &self.upper_idx, &self.upper, -1.0);
    }

    /// The steps of the bound slacks along `dw`: `lower = dw[lower_idx]`, `upper = −dw[upper_idx]`.
    pub fn slack_steps(&self, backend: &B, dw: &B::Vector, steps: &mut Slacks<B::Vector>) {
        backend.gather(&mut steps.lower, dw, &self.lower_idx);
        backend.gather(&mut steps.upper, dw, &self.upper_idx);
        backend.scale(-1.0, &mut steps.upper);
    }

    /// Upload `layout`'s bound lists, bounds and damping weights, and the `unscaling`
    /// factors.
    pub fn new(
        backend: &B,
        layout: &Layout,
        unscaling: Unscaling<'_>,
    ) -> Result<Self, SolverError> {
        let lo_c: Vec<f64> = layout.lower_idx.iter().map(|&i| layout.lo[i]).collect();
        let up_c: Vec<f64> = layout.upper_idx.iter().map(|&i| layout.up[i]).collect();
        let slack_cols: Vec<usize> = (layout.n..layout.nw()).collect();
        Ok(Self {
            lower_idx: backend.index_from_host(&layout.lower_idx)?,
            upper_idx: backend.index_from_host(&layout.upper_idx)?,
            lower: backend.vector_from_host(&lo_c)?,
            upper: backend.vector_from_host(&up_c)?,
            damp_lower: backend.vector_from_host(&layout.damp_l)?,
            damp_upper: backend.vector_from_host(&layout.damp_u)?,
            lower_full: backend.vector_from_host(&layout.lo)?,
            upper_full: backend.vector_from_host(&layout.up)?,
            dual_unscale: backend.vector_from_host(unscaling.dual)?,
            viol_unscale: backend.vector_from_host(unscaling.viol)?,
            slack_rows: SlackRows {
                count: layout.ns,
                rows: backend.index_from_host(&layout.slack_rows)?,
                cols: backend.index_from_host(&slack_cols)?,
                lower: backend.vector_from_host(&layout.lo[layout.n..])?,
                upper: backend.vector_from_host(&layout.up[layout.n..])?,
            },
        })
    }

    /// Upload `layout`'s bounds and damping weights and the `unscaling` factors in place
    /// (no allocation). `layout` must have the bound lists (`lower_idx`, `upper_idx`), the
    /// slack rows and the lengths of the layout this was built from: the caller checks.
    pub fn refill(
        &mut self,
        backend: &B,
        layout: &Layout,
        unscaling: Unscaling<'_>,
    ) -> Result<(), SolverError> {
        let lo_c: Vec<f64> = layout.lower_idx.iter().map(|&i| layout.lo[i]).collect();
        let up_c: Vec<f64> = layout.upper_idx.iter().map(|&i| layout.up[i]).collect();
        backend.copy_from_host(&mut self.lower, &lo_c)?;
        backend.copy_from_host(&mut self.upper, &up_c)?;
        backend.copy_from_host(&mut self.damp_lower, &layout.damp_l)?;
        backend.copy_from_host(&mut self.damp_upper, &layout.damp_u)?;
        backend.copy_from_host(&mut self.lower_full, &layout.lo)?;
        backend.copy_from_host(&mut self.upper_full, &layout.up)?;
        backend.copy_from_host(&mut self.dual_unscale, unscaling.dual)?;
        backend.copy_from_host(&mut self.viol_unscale, unscaling.viol)?;
        backend.copy_from_host(&mut self.slack_rows.lower, &layout.lo[layout.n..])?;
        backend.copy_from_host(&mut self.slack_rows.upper, &layout.up[layout.n..])?;
        Ok(())
    }
}
