//! Segment plans: deterministic gather-sums instead of scatter-adds with atomics.
//!
//! A plan lists, for each of `T` targets, the items that sum into it, in a fixed order:
//! items of target `t` are `ptr[t]..ptr[t + 1]`; item `e` reads value `entry[e]` (and, for
//! products, vector entry `partner[e]`). The plan is built once on the host from
//! `(target, entry, partner)` triples by a stable counting sort, so items of one target keep
//! the order in which they were given: a segmented sum reproduces the result of the
//! sequential scatter loop it replaces, bit for bit.

use crate::DeviceError;

/// A segment plan on the host. Build it with [`SegmentPlan::new`], upload it with
/// [`crate::Device::segments`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SegmentPlan {
    /// Segment starts, length `targets + 1`, non-decreasing, `ptr[targets] = items`.
    pub ptr: Vec<usize>,
    /// Value index of each item (into the values of the kernel), length `items`.
    pub entry: Vec<usize>,
    /// Partner index of each item (into the product's input vector), length `items`.
    pub partner: Vec<usize>,
}

impl SegmentPlan {
    /// Group items by target: item `k` sums into `target[k]`, reading value `entry[k]` and
    /// partner `partner[k]`. Items of one target keep their order in the input.
    ///
    /// # Errors
    /// [`DeviceError::LengthMismatch`] when the three lists differ in length,
    /// [`DeviceError::BadPlan`] for a target `>= targets`.
    pub fn new(
        targets: usize,
        target: &[usize],
        entry: &[usize],
        partner: &[usize],
    ) -> Result<Self, DeviceError> {
        for (what, list) in [("plan entries", entry), ("plan partners", partner)] {
            if list.len() != target.len() {
                return Err(DeviceError::LengthMismatch {
                    device: "host",
                    what,
                    expected: target.len(),
                    got: list.len(),
                });
            }
        }
        let mut ptr = vec![0usize; targets + 1];
        for (k, &t) in target.iter().enumerate() {
            if t >= targets {
                return Err(DeviceError::BadPlan {
                    what: "target",
                    entry: k,
                    index: t,
                    limit: targets,
                });
            }
            ptr[t + 1] += 1;
        }
        for t in 0..targets {
            ptr[t + 1] += ptr[t];
        }
        let mut next = ptr[..targets].to_vec();
        let mut plan_entry = vec![0usize; target.len()];
        let mut plan_partner = vec![0usize; target.len()];
        for (k, &t) in target.iter().enumerate() {
            let e = next[t];
            next[t] += 1;
            plan_entry[e] = entry[k];
            plan_partner[e] = partner[k];
        }
        Ok(Self {
            ptr,
            entry: plan_entry,
            partner: plan_partner,
        })
    }

    /// The plan of a COO matrix product by rows (`y = A x`: target = row, partner =
    /// column) or, with `rows` and `cols` swapped, by columns (`y = Aᵀ x`). Entry `k` is
    /// the `k`-th stored value.
    ///
    /// # Errors
    /// As [`SegmentPlan::new`].
    pub fn coo(targets: usize, rows: &[usize], cols: &[usize]) -> Result<Self, DeviceError> {
        let entries: Vec<usize> = (0..rows.len()).collect();
        Self::new(targets, rows, &entries, cols)
    }

    /// Number of targets.
    pub fn targets(&self) -> usize {
        self.ptr.len().saturating_sub(1)
    }

    /// Number of items.
    pub fn items(&self) -> usize {
        self.entry.len()
    }

    /// Check every entry index against `entries` and every partner against `partners`
    /// (the lengths of the vectors a kernel will read).
    ///
    /// # Errors
    /// [`DeviceError::BadPlan`] naming the first index out of range.
    pub fn check(&self, entries: usize, partners: usize) -> Result<(), DeviceError> {
        for (what, list, limit) in [
            ("entry", &self.entry, entries),
            ("partner", &self.partner, partners),
        ] {
            if let Some((k, &i)) = list.iter().enumerate().find(|&(_, &i)| i >= limit) {
                return Err(DeviceError::BadPlan {
                    what,
                    entry: k,
                    index: i,
                    limit,
                });
            }
        }
        Ok(())
    }
}

/// A segment plan in device memory (see [`SegmentPlan`] for the meaning of the lists).
#[derive(Clone, Debug)]
pub struct Segments<I> {
    /// Segment starts, `targets + 1` entries.
    pub ptr: I,
    /// Value index of each item.
    pub entry: I,
    /// Partner index of each item.
    pub partner: I,
    /// Number of targets (kernels launch one thread per target).
    pub targets: usize,
}
