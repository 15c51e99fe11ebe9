//! The most violated rows and bounds at the end of a solve that did not succeed, named by
//! block when the model knows its blocks ([`NlpModel::con_block`], [`NlpModel::var_block`]).

use serde::{Deserialize, Serialize};
use simdnlp_modeling::NlpModel;

use crate::options::PrintLevel;

/// How many violations a result reports at most.
pub const MAX_VIOLATIONS: usize = 10;

/// What a [`Violation`] is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ViolationKind {
    /// A constraint row: `c_i(x)` outside `[lcon_i, ucon_i]`.
    Row,
    /// A variable bound: `x_j` outside `[lvar_j, uvar_j]`.
    Bound,
}

/// One violated row or variable bound at the final point, in the user's units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// Row or variable bound.
    pub kind: ViolationKind,
    /// Row index (for [`ViolationKind::Row`]) or variable index, 0-based.
    pub index: usize,
    /// Name of the block holding the row or variable (`None` when the model has no
    /// blocks, e.g. a hand-written [`NlpModel`]).
    pub block: Option<String>,
    /// Index of the row or variable within its block, in the block's own index ranges
    /// (one entry per dimension; empty without a block or for a zero-dimensional block).
    pub block_index: Vec<i64>,
    /// `c_i(x)` or `x_j`.
    pub value: f64,
    /// The violated bound (finite): the lower one when `value` is below it, else the upper.
    pub bound: f64,
    /// `|value − bound| > 0`.
    pub amount: f64,
}

impl std::fmt::Display for Violation {
    /// `row 12 (alt[3]): 1.2e0 above its upper bound 1e0 by 2e-1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            ViolationKind::Row => "row",
            ViolationKind::Bound => "variable",
        };
        write!(f, "{what} {}", self.index)?;
        if let Some(block) = &self.block {
            let position = simdnlp_modeling::BlockPosition {
                block: block.clone(),
                index: self.block_index.clone(),
            };
            write!(f, " ({position})")?;
        }
        let side = if self.value < self.bound {
            "below its lower"
        } else {
            "above its upper"
        };
        write!(
            f,
            ": {:.6e} {side} bound {:.6e} by {:.2e}",
            self.value, self.bound, self.amount
        )
    }
}

/// The rows and variable bounds of `model` violated by more than `tol` at `x` (with
/// `constraints = c(x)`), largest violation first, at most [`MAX_VIOLATIONS`].
pub(crate) fn most_violated(
    model: &dyn NlpModel,
    x: &[f64],
    constraints: &[f64],
    tol: f64,
) -> Vec<Violation> {
    let meta = model.meta();
    let violation = |v: f64, l: f64, u: f64| -> Option<(f64, f64)> {
        if l - v > tol {
            Some((l, l - v))
        } else if v - u > tol {
            Some((u, v - u))
        } else {
            None
        }
    };
    // the largest MAX_VIOLATIONS, kept in fixed-capacity vectors (the allocations do not
    // depend on how many rows are violated)
    let mut found: Vec<(ViolationKind, usize, f64, f64, f64)> =
        Vec::with_capacity(MAX_VIOLATIONS + 1);
    let mut keep = |entry: (ViolationKind, usize, f64, f64, f64)| {
        if found.len() == MAX_VIOLATIONS && found[MAX_VIOLATIONS - 1].4 >= entry.4 {
            return;
        }
        let at = found.partition_point(|e| e.4 >= entry.4);
        found.insert(at, entry);
        found.truncate(MAX_VIOLATIONS);
    };
    for i in 0..meta.ncon {
        if let Some((bound, amount)) = violation(constraints[i], meta.lcon[i], meta.ucon[i]) {
            keep((ViolationKind::Row, i, constraints[i], bound, amount));
        }
    }
    for j in 0..meta.nvar {
        if let Some((bound, amount)) = violation(x[j], meta.lvar[j], meta.uvar[j]) {
            keep((ViolationKind::Bound, j, x[j], bound, amount));
        }
    }
    let mut report = Vec::with_capacity(MAX_VIOLATIONS);
    for (kind, index, value, bound, amount) in found {
        let position = match kind {
            ViolationKind::Row => model.con_block(index),
            ViolationKind::Bound => model.var_block(index),
        };
        let (block, block_index) = match position {
            Some(p) => (Some(p.block), p.index),
            None => (None, Vec::new()),
        };
        report.push(Violation {
            kind,
            index,
            block,
            block_index,
            value,
            bound,
            amount,
        });
    }
    report
}

/// Logs `violations` at `INFO` when `level` prints the summary.
pub(crate) fn log_violations(level: PrintLevel, violations: &[Violation]) {
    if level < PrintLevel::Summary || violations.is_empty() {
        return;
    }
    tracing::info!("most violated rows and bounds:");
    for v in violations {
        tracing::info!("  {v}");
    }
}
