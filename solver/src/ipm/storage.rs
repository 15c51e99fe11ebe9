//! What a run of the method allocates ([`RunStorage`]): the layout on the device, every
//! vector of the state and the filter's room. Allocated once per problem and handed from
//! run to run, so a run on storage it was given (a restoration phase after the first of a
//! solve) allocates nothing.

use super::bounds::LayoutOnDevice;
use super::filter::Filter;
use super::vectors::{Correction, Direction, Iterate, Lengths, Trial, Work};
use super::watchdog::Watchdog;
use crate::backend::Backend;
use crate::layout::Layout;
use crate::options::Options;
use crate::result::SolverError;

/// The allocations of one run of the method on one problem: its layout on the device, the
/// vectors of [`super::Ipm`] (with the lengths of that layout) and the filter (with room
/// for the run's iterations). [`super::Ipm::with_storage`] takes it,
/// [`super::Ipm::into_storage`] gives it back.
pub(crate) struct RunStorage<B: Backend> {
    /// The layout's bound data and unscaling vectors on the device.
    pub bounds: LayoutOnDevice<B>,
    /// Current iterate.
    pub iterate: Iterate<B::Vector>,
    /// `∇f` (length `nw`).
    pub grad_f: B::Vector,
    /// Constraint residual (length `m`).
    pub residual: B::Vector,
    /// Gradient of the Lagrangian (length `nw`).
    pub grad_lagrangian: B::Vector,
    /// Gradient of the barrier function (length `nw`).
    pub grad_barrier: B::Vector,
    /// The line search's trial point.
    pub trial: Trial<B::Vector>,
    /// The search direction.
    pub direction: Direction<B::Vector>,
    /// `Σ` (length `nw`).
    pub sigma: B::Vector,
    /// Right-hand side of the primal rows of the KKT system (length `nw`).
    pub rhs_w: B::Vector,
    /// Right-hand side of the constraint rows of the KKT system (length `m`).
    pub rhs_y: B::Vector,
    /// The second-order correction.
    pub correction: Correction<B::Vector>,
    /// Work vectors.
    pub work: Work<B::Vector>,
    /// The watchdog (its vectors of length zero when the option is off).
    pub watchdog: Watchdog<B::Vector>,
    /// The filter.
    pub filter: Filter,
}

impl<B: Backend> RunStorage<B> {
    /// Allocate zero vectors of `layout`'s lengths around `bounds` (built from `layout`),
    /// the watchdog's only when `options.watchdog` is on, and a filter with room for
    /// `options.max_iter` entries (between 16 and 100 000, plus 16).
    pub fn allocate(
        backend: &B,
        layout: &Layout,
        options: &Options,
        bounds: LayoutOnDevice<B>,
    ) -> Result<Self, SolverError> {
        let lengths = Lengths::of(layout);
        let (nw, m) = (lengths.nw, lengths.m);
        let zeros = |n: usize| backend.zeros(n);
        let watchdog_lengths = if options.watchdog {
            lengths
        } else {
            Lengths::NONE
        };
        Ok(Self {
            bounds,
            iterate: Iterate::zeros(backend, lengths)?,
            grad_f: zeros(nw)?,
            residual: zeros(m)?,
            grad_lagrangian: zeros(nw)?,
            grad_barrier: zeros(nw)?,
            trial: Trial::zeros(backend, lengths)?,
            direction: Direction::zeros(backend, lengths)?,
            sigma: zeros(nw)?,
            rhs_w: zeros(nw)?,
            rhs_y: zeros(m)?,
            correction: Correction::zeros(backend, lengths)?,
            work: Work::zeros(backend, lengths)?,
            watchdog: Watchdog::new(backend, watchdog_lengths)?,
            filter: Filter::with_capacity(options.max_iter.clamp(16, 100_000) + 16),
        })
    }

    /// Back to the state [`RunStorage::allocate`] made, in place (kernels only, no
    /// allocation, no host traffic): every vector but the layout's zero, the watchdog
    /// and the filter reset. A run on reset storage takes the same path, bit for bit, as
    /// one on new storage.
    pub fn reset(&mut self, backend: &B) {
        self.iterate.zero(backend);
        for v in [
            &mut self.grad_f,
            &mut self.residual,
            &mut self.grad_lagrangian,
            &mut self.grad_barrier,
            &mut self.sigma,
            &mut self.rhs_w,
            &mut self.rhs_y,
        ] {
            backend.fill(v, 0.0);
        }
        self.trial.zero(backend);
        self.direction.zero(backend);
        self.correction.zero(backend);
        self.work.zero(backend);
        self.watchdog.zero(backend);
        self.filter.reset();
    }
}
