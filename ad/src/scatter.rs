//! Splitting a scatter-add (gradient entries added into `g` at their positions) across
//! threads without changing the order of the additions at any position.
//!
//! The points `0..n` are cut into `tasks` chunks of consecutive points. Every position is
//! *owned* by the first chunk that adds into it. Phase 1 runs the chunks in parallel, each
//! adding only into the positions it owns (no two chunks write the same element); phase 2
//! then runs again, one after the other in point order, the points that add into a
//! position owned by an earlier chunk, adding only into those positions. At every position
//! the owner's terms come first (in point order, phase 1), then those of each later chunk
//! in chunk and point order (phase 2): the sequential order, so the result is bitwise the
//! one-thread result. The plan pays where few points reach back into earlier chunks (a
//! banded model: the Rosenbrock chain, a discretized ODE); [`ScatterPlan::new`] declines
//! otherwise.

/// A position that the scatter programs do not write (at or past any output's length).
pub(crate) const SKIP: usize = usize::MAX;

/// The two phases of a scatter-add split across `tasks` chunks (see the module docs),
/// computed once from the positions (at model build: they do not change afterwards).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScatterPlan {
    /// data points of the scatter
    points: usize,
    /// positions per point
    step: usize,
    /// the length of the output the plan is for
    out_len: usize,
    /// chunks (at least 2)
    tasks: usize,
    /// the number of chunks asked for (`tasks` may be fewer: whole chunks of `chunk`)
    requested: usize,
    /// points per chunk (the last may have fewer)
    chunk: usize,
    /// phase 1: per point and slot, its position where the point's chunk owns it, else
    /// [`SKIP`]
    owned: Vec<usize>,
    /// phase 2: the points with a position owned by an earlier chunk, in point order
    later: Vec<usize>,
    /// phase 2: per point of `later`, `step` positions: those owned by an earlier chunk,
    /// [`SKIP`] for the others
    rest: Vec<usize>,
}

impl ScatterPlan {
    /// The plan for adding `step` outputs per point of `points` data points at
    /// `positions[k * step + s]` (positions at or past `out_len` are never written), split
    /// into `tasks` chunks of `points.div_ceil(tasks)` consecutive points. `None` where it
    /// would not pay: `tasks < 2`, `positions` shorter than `points * step`, or more than
    /// one point in `max_repeat` would run again in phase 2.
    pub fn new(
        positions: &[usize],
        step: usize,
        points: usize,
        tasks: usize,
        out_len: usize,
        max_repeat: usize,
    ) -> Option<Self> {
        let total = points.checked_mul(step)?;
        if tasks < 2 || step == 0 || positions.len() < total || points < tasks {
            return None;
        }
        let positions = &positions[..total];
        let requested = tasks;
        let chunk = points.div_ceil(tasks);
        let tasks = points.div_ceil(chunk);
        if tasks < 2 {
            return None;
        }
        // the owning chunk of each written position (u32::MAX: not written yet)
        let mut owner = vec![u32::MAX; out_len];
        let mut owned = Vec::with_capacity(total);
        let mut later = Vec::new();
        let mut rest = Vec::new();
        for (k, point) in positions.chunks_exact(step).enumerate() {
            let t = u32::try_from(k / chunk).ok()?;
            let mut reaches_back = false;
            for &p in point {
                let Some(o) = owner.get_mut(p) else {
                    owned.push(SKIP);
                    continue;
                };
                if *o == u32::MAX {
                    *o = t;
                }
                if *o == t {
                    owned.push(p);
                } else {
                    owned.push(SKIP);
                    reaches_back = true;
                }
            }
            if reaches_back {
                later.push(k);
                rest.extend(point.iter().map(|&p| match owner.get(p) {
                    Some(&o) if o != t => p,
                    _ => SKIP,
                }));
            }
        }
        let max_later = points / max_repeat.max(1);
        (later.len() <= max_later).then_some(ScatterPlan {
            points,
            step,
            out_len,
            tasks,
            requested,
            chunk,
            owned,
            later,
            rest,
        })
    }

    /// The number of chunks.
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    /// The number of chunks asked for ([`ScatterPlan::new`]'s `tasks`; whole chunks of
    /// `points.div_ceil(tasks)` points may need fewer).
    pub fn requested_tasks(&self) -> usize {
        self.requested
    }

    /// The number of data points.
    pub fn points(&self) -> usize {
        self.points
    }

    /// Positions per point.
    pub fn step(&self) -> usize {
        self.step
    }

    /// The length of the output the plan is for.
    pub fn out_len(&self) -> usize {
        self.out_len
    }

    /// The points that run again in phase 2 (those adding into a position an earlier
    /// chunk owns), in point order.
    pub fn repeated_points(&self) -> &[usize] {
        &self.later
    }

    /// Phase 1: chunk `t`'s point range `first..last` and its positions (the owned ones,
    /// [`SKIP`] elsewhere; `step` per point from `first`).
    pub(crate) fn chunk(&self, t: usize) -> (usize, usize, &[usize]) {
        let first = (t * self.chunk).min(self.points);
        let last = (first + self.chunk).min(self.points);
        (
            first,
            last,
            &self.owned[first * self.step..last * self.step],
        )
    }

    /// The repeated points (see [`ScatterPlan::repeated_points`]) in `first..last`.
    pub(crate) fn repeated_in(&self, first: usize, last: usize) -> &[usize] {
        let from = self.later.partition_point(|&k| k < first);
        let to = self.later.partition_point(|&k| k < last);
        &self.later[from..to]
    }

    /// Phase 2: per repeated point, in point order, the point and its positions (those
    /// owned by an earlier chunk, [`SKIP`] elsewhere).
    pub(crate) fn repeats(&self) -> impl Iterator<Item = (usize, &[usize])> + '_ {
        self.later
            .iter()
            .copied()
            .zip(self.rest.chunks_exact(self.step))
    }
}
