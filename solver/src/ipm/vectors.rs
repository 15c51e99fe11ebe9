//! The primal-dual vectors of the method: a point ([`Iterate`]) with its bound slacks
//! ([`Slacks`]), a step ([`Direction`]; both [`PrimalDual`]), a trial point of the line search ([`Trial`]), the
//! second-order correction ([`Correction`]) and work vectors ([`Work`]). Each is allocated
//! once per run from the layout's [`Lengths`].

use crate::backend::Backend;
use crate::layout::Layout;
use crate::result::SolverError;

/// A value allocated on the device, or the device's allocation error.
type Allocated<T> = Result<T, SolverError>;

/// The vector lengths of one problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lengths {
    /// Primal variables `w = (x, s)`.
    pub nw: usize,
    /// Rows.
    pub m: usize,
    /// Components of `w` with a finite lower bound.
    pub lower: usize,
    /// Components of `w` with a finite upper bound.
    pub upper: usize,
    /// Slacks (rows with a slack).
    pub slacks: usize,
}

impl Lengths {
    /// Every length zero (vectors that are never used).
    pub const NONE: Lengths = Lengths {
        nw: 0,
        m: 0,
        lower: 0,
        upper: 0,
        slacks: 0,
    };

    /// The lengths of `layout`'s vectors.
    pub fn of(layout: &Layout) -> Self {
        Self {
            nw: layout.nw(),
            m: layout.m,
            lower: layout.lower_idx.len(),
            upper: layout.upper_idx.len(),
            slacks: layout.ns,
        }
    }
}

/// The slacks of a primal point to its finite bounds, `s_L = w[lower_idx] − lo` and
/// `s_U = up − w[upper_idx]` (bound-list lengths), or the steps of these slacks.
pub(crate) struct Slacks<V> {
    /// `s_L`, one entry per finite lower bound.
    pub lower: V,
    /// `s_U`, one entry per finite upper bound.
    pub upper: V,
}

impl<V> Slacks<V> {
    /// Zero slacks of `lengths`.
    pub fn zeros<B: Backend<Vector = V>>(backend: &B, lengths: Lengths) -> Allocated<Self> {
        Ok(Self {
            lower: backend.zeros(lengths.lower)?,
            upper: backend.zeros(lengths.upper)?,
        })
    }

    /// Every entry zero (as [`Slacks::zeros`] made them).
    pub fn zero<B: Backend<Vector = V>>(&mut self, backend: &B) {
        backend.fill(&mut self.lower, 0.0);
        backend.fill(&mut self.upper, 0.0);
    }

    /// `self = other`.
    pub fn copy_from<B: Backend<Vector = V>>(&mut self, backend: &B, other: &Self) {
        backend.copy(&mut self.lower, &other.lower);
        backend.copy(&mut self.upper, &other.upper);
    }
}

/// The primal-dual vectors of a point or of a step: `w = (x, s)` (length `nw`), the
/// constraint multipliers `y` (length `m`), the bound multipliers `z_L`, `z_U` and the
/// bound slacks `s_L`, `s_U` (bound-list lengths). For a step, each is the step of that
/// component (`Δs_L = Δw[lower_idx]`, `Δs_U = −Δw[upper_idx]`).
pub(crate) struct PrimalDual<V> {
    /// Primal variables and slacks `w = (x, s)`.
    pub w: V,
    /// Constraint multipliers.
    pub y: V,
    /// Lower-bound multipliers, one per finite lower bound.
    pub zl: V,
    /// Upper-bound multipliers, one per finite upper bound.
    pub zu: V,
    /// The slacks of `w` to its finite bounds (of the point: from `w`, corrected by the
    /// line search where round-off made them too small).
    pub slacks: Slacks<V>,
}

/// A primal-dual point of the method.
pub(crate) type Iterate<V> = PrimalDual<V>;

/// A search direction: the step of every component of an [`Iterate`].
pub(crate) type Direction<V> = PrimalDual<V>;

impl<V> PrimalDual<V> {
    /// Zero vectors of `lengths`.
    pub fn zeros<B: Backend<Vector = V>>(backend: &B, lengths: Lengths) -> Allocated<Self> {
        Ok(Self {
            w: backend.zeros(lengths.nw)?,
            y: backend.zeros(lengths.m)?,
            zl: backend.zeros(lengths.lower)?,
            zu: backend.zeros(lengths.upper)?,
            slacks: Slacks::zeros(backend, lengths)?,
        })
    }

    /// Every entry zero (as [`PrimalDual::zeros`] made them).
    pub fn zero<B: Backend<Vector = V>>(&mut self, backend: &B) {
        backend.fill(&mut self.w, 0.0);
        backend.fill(&mut self.y, 0.0);
        backend.fill(&mut self.zl, 0.0);
        backend.fill(&mut self.zu, 0.0);
        self.slacks.zero(backend);
    }

    /// `self = other`.
    pub fn copy_from<B: Backend<Vector = V>>(&mut self, backend: &B, other: &Self) {
        backend.copy(&mut self.w, &other.w);
        backend.copy(&mut self.y, &other.y);
        backend.copy(&mut self.zl, &other.zl);
        backend.copy(&mut self.zu, &other.zu);
        self.slacks.copy_from(backend, &other.slacks);
    }
}

/// A trial point `w + α Δw` of the line search (or the restoration phase's point mapped
/// back): its primal vector, bound slacks, objective and constraint residual. Accepting it
/// swaps these into the current point.
pub(crate) struct Trial<V> {
    /// Its objective.
    pub objective: f64,
    /// `w` of the trial point (length `nw`).
    pub w: V,
    /// Its constraint residual (length `m`).
    pub residual: V,
    /// Its bound slacks.
    pub slacks: Slacks<V>,
}

impl<V> Trial<V> {
    /// A zero trial point of `lengths`.
    pub fn zeros<B: Backend<Vector = V>>(backend: &B, lengths: Lengths) -> Allocated<Self> {
        Ok(Self {
            objective: 0.0,
            w: backend.zeros(lengths.nw)?,
            residual: backend.zeros(lengths.m)?,
            slacks: Slacks::zeros(backend, lengths)?,
        })
    }

    /// Every entry and the objective zero (as [`Trial::zeros`] made them).
    pub fn zero<B: Backend<Vector = V>>(&mut self, backend: &B) {
        self.objective = 0.0;
        backend.fill(&mut self.w, 0.0);
        backend.fill(&mut self.residual, 0.0);
        self.slacks.zero(backend);
    }
}

/// The second-order correction of the line search: its constraint right-hand side
/// `c_soc` and the corrected step (`Δw`, `Δy` and the bound-slack step; the multiplier
/// steps are computed only for an accepted correction, in the search direction).
pub(crate) struct Correction<V> {
    /// `c_soc = α c + c(trial)`, accumulated over the corrections (length `m`).
    pub constraints: V,
    /// The corrected step.
    pub step: Direction<V>,
}

impl<V> Correction<V> {
    /// A zero correction of `lengths`.
    pub fn zeros<B: Backend<Vector = V>>(backend: &B, lengths: Lengths) -> Allocated<Self> {
        Ok(Self {
            constraints: backend.zeros(lengths.m)?,
            step: Direction::zeros(backend, lengths)?,
        })
    }

    /// Every entry zero (as [`Correction::zeros`] made them).
    pub fn zero<B: Backend<Vector = V>>(&mut self, backend: &B) {
        backend.fill(&mut self.constraints, 0.0);
        self.step.zero(backend);
    }
}

/// Work vectors: their values live within one method (no value is carried between
/// methods).
pub(crate) struct Work<V> {
    /// Length `nw`.
    pub w: V,
    /// Length `nw`: the start's `bound_frac` per component (initialization only).
    pub frac: V,
    /// Length `m`.
    pub m: V,
    /// Length `m`: the NLP constraint violation per row (the measures of an iterate).
    pub row_violation: V,
    /// One entry per finite lower bound (`lower`) and per finite upper bound (`upper`).
    pub per_bound: Slacks<V>,
    /// One entry per slack: its row's violation below (`lower`) and above (`upper`) the
    /// slack's bounds.
    pub per_slack: Slacks<V>,
}

impl<V> Work<V> {
    /// Zero work vectors of `lengths`.
    pub fn zeros<B: Backend<Vector = V>>(backend: &B, lengths: Lengths) -> Allocated<Self> {
        Ok(Self {
            w: backend.zeros(lengths.nw)?,
            frac: backend.zeros(lengths.nw)?,
            m: backend.zeros(lengths.m)?,
            row_violation: backend.zeros(lengths.m)?,
            per_bound: Slacks::zeros(backend, lengths)?,
            per_slack: Slacks {
                lower: backend.zeros(lengths.slacks)?,
                upper: backend.zeros(lengths.slacks)?,
            },
        })
    }

    /// Every entry zero (as [`Work::zeros`] made them).
    pub fn zero<B: Backend<Vector = V>>(&mut self, backend: &B) {
        backend.fill(&mut self.w, 0.0);
        backend.fill(&mut self.frac, 0.0);
        backend.fill(&mut self.m, 0.0);
        backend.fill(&mut self.row_violation, 0.0);
        self.per_bound.zero(backend);
        self.per_slack.zero(backend);
    }
}
