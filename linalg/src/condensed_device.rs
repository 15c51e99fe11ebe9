//! The condensed KKT system on a [`Device`]: assembly of `K = W + Σx + Jᵀ D J`, the
//! diagonal shift of an inertia-correction retry, the weights `D` with a constraint
//! regularization δ_c, the reduction of the right-hand side and the expansion of the
//! solution — every step a [`Device`] kernel over plans built once on the host, so the
//! vectors never leave the device (only the factorization needs `K`'s values).
//!
//! # The system
//! The augmented KKT system over `(dx, ds, dy)` with one slack per row (the condensed
//! layout: row `j` has slack `j`) is
//!
//! ```text
//! (W + Σx + δw) dx        + Jᵀ dy = bx
//!     (Σs + δw) ds        −    dy = bs
//!      J dx    −  ds      − δc dy = by
//! ```
//!
//! With `Σ' = Σs + δw`, `q = 1 / (1 + δc Σ')` and `D = Σ' q` (MadNLP's
//! `D = Σs/(1 + δc Σs)` with δw folded into `Σs`), eliminating `ds` and `dy` gives
//!
//! ```text
//! K dx = bx + Jᵀ (D ∘ by + q ∘ bs),        K = W + Σx + δw I + Jᵀ D J
//! ds   = q ∘ (J dx − by + δc bs)
//! dy   = D ∘ (J dx − by) − q ∘ bs
//! ```
//!
//! For δc = 0 (`q = 1`, `D = Σ'`) these are the CPU backend's formulas operation for
//! operation, and [`DeviceCondensedKkt::assemble`] adds the terms of each entry of `K` in
//! the order of [`CondensedKkt::assemble`]: on [`simdnlp_device::Cpu`] and on the emulated
//! device the results are bitwise those of the host code (the tests check it).
//!
//! # Plans
//! Each entry of `K` is one target of two segmented kernels: [`Device::seg_sum`] over the
//! Hessian entries that land on it (then [`Device::scatter_add`] of `Σx + δw` on the
//! diagonal) and [`Device::seg_pair_sum`] over the Jacobian entry pairs `(a, b)` of the
//! same row with `col(a) ≥ col(b)`, weighted by `D[row(a)]`. `Jᵀ v` and `J v` are
//! [`Device::seg_spmv`] over the COO plans by columns and by rows. No atomics: every sum
//! has a fixed order.

use crate::LinalgError;
use crate::condensed::CondensedKkt;
use simdnlp_device::{Device, DeviceError, SegmentPlan, Segments};

/// Device plans and scratch of a condensed KKT system (see the module documentation).
pub struct DeviceCondensedKkt<D: Device> {
    n: usize,
    m: usize,
    nnz: usize,
    jac_nnz: usize,
    /// `K` entry ← Hessian values landing on it, in Hessian order.
    hessian: Segments<D::Index>,
    /// Position in `K`'s values of each diagonal entry `(i, i)`.
    diagonal: D::Index,
    /// `K` entry ← Jacobian pairs `(a, b)` (entry `a`, partner `b`), in pair order.
    pairs: Segments<D::Index>,
    /// Row of each Jacobian entry (the weight of a pair is `D[row(a)]`).
    jac_rows: D::Index,
    /// `Jᵀ v`: column ← (entry, row).
    by_columns: Segments<D::Index>,
    /// `J v`: row ← (entry, column).
    by_rows: Segments<D::Index>,
    /// `n` ones (the diagonal shift is `scatter_add(δ, ones, diagonal)`).
    ones: D::Vector,
    /// Two vectors of length `m` for [`Self::reduce`] and [`Self::expand`].
    scratch: [D::Vector; 2],
}

impl<D: Device> std::fmt::Debug for DeviceCondensedKkt<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceCondensedKkt")
            .field("n", &self.n)
            .field("m", &self.m)
            .field("nnz", &self.nnz)
            .field("jac_nnz", &self.jac_nnz)
            .finish_non_exhaustive()
    }
}

fn device_error(e: DeviceError) -> LinalgError {
    LinalgError::InvalidState(format!("condensed KKT on the device: {e}"))
}

/// `Err` unless `got == expected`.
fn length(what: &'static str, expected: usize, got: usize) -> Result<(), LinalgError> {
    if expected == got {
        Ok(())
    } else {
        Err(LinalgError::LengthMismatch {
            what: what.to_string(),
            expected,
            got,
        })
    }
}

impl<D: Device> DeviceCondensedKkt<D> {
    /// Builds the plans of `pattern` (made from the same Jacobian COO `jac_rows`,
    /// `jac_cols`) on the host and uploads them.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when the Jacobian lists do not match the pattern;
    /// [`LinalgError::IndexOutOfRange`] for an entry outside `J`; a device failure
    /// (allocation, an index too large for the device) as [`LinalgError::InvalidState`]
    /// naming it.
    pub fn new(
        device: &D,
        pattern: &CondensedKkt,
        jac_rows: &[usize],
        jac_cols: &[usize],
    ) -> Result<Self, LinalgError> {
        let (n, m, nnz) = (pattern.n(), pattern.m(), pattern.nnz());
        let jac_nnz = pattern.jac_nnz();
        length("condensed device plan: jac_rows", jac_nnz, jac_rows.len())?;
        length("condensed device plan: jac_cols", jac_nnz, jac_cols.len())?;
        crate::sparse::check_coo("condensed device plan: J", m, n, jac_rows, jac_cols)?;
        let hess_pos = pattern.hessian_positions();
        let hess_entries: Vec<usize> = (0..hess_pos.len()).collect();
        let hessian =
            SegmentPlan::new(nnz, hess_pos, &hess_entries, &hess_entries).map_err(device_error)?;
        let (pair_a, pair_b, pair_pos) = pattern.pairs();
        let pairs = SegmentPlan::new(nnz, pair_pos, pair_a, pair_b).map_err(device_error)?;
        let by_columns = SegmentPlan::coo(n, jac_cols, jac_rows).map_err(device_error)?;
        let by_rows = SegmentPlan::coo(m, jac_rows, jac_cols).map_err(device_error)?;
        let upload = |plan: &SegmentPlan| device.segments(plan).map_err(device_error);
        let mut ones = device.zeros(n).map_err(device_error)?;
        device.fill(&mut ones, 1.0);
        Ok(Self {
            n,
            m,
            nnz,
            jac_nnz,
            hessian: upload(&hessian)?,
            diagonal: device
                .index_from_host(pattern.diag_positions())
                .map_err(device_error)?,
            pairs: upload(&pairs)?,
            jac_rows: device.index_from_host(jac_rows).map_err(device_error)?,
            by_columns: upload(&by_columns)?,
            by_rows: upload(&by_rows)?,
            ones,
            scratch: [
                device.zeros(m).map_err(device_error)?,
                device.zeros(m).map_err(device_error)?,
            ],
        })
    }

    /// Dimension `n` of `K`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of rows `m` of `J` (and of slacks).
    pub fn m(&self) -> usize {
        self.m
    }

    /// Number of stored lower-triangle entries of `K` (the length of its value vector, in
    /// [`CondensedKkt::row_idx`] order).
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Writes the values of `K = W + Σx + Jᵀ D J` into `out` (length [`Self::nnz`],
    /// overwritten): bitwise [`CondensedKkt::assemble`] on the same inputs. Pass
    /// `Σx + δw` as `sigma_x` for a regularized matrix, or shift it afterwards with
    /// [`Self::shift_diagonal`].
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when an input has the wrong length (nothing
    /// written).
    pub fn assemble(
        &self,
        device: &D,
        hess_vals: &D::Vector,
        sigma_x: &D::Vector,
        jac_vals: &D::Vector,
        d: &D::Vector,
        out: &mut D::Vector,
    ) -> Result<(), LinalgError> {
        length(
            "condensed assemble: hess_vals",
            device.index_len(&self.hessian.entry),
            device.len(hess_vals),
        )?;
        length("condensed assemble: sigma_x", self.n, device.len(sigma_x))?;
        length(
            "condensed assemble: jac_vals",
            self.jac_nnz,
            device.len(jac_vals),
        )?;
        length("condensed assemble: d", self.m, device.len(d))?;
        length("condensed assemble: out", self.nnz, device.len(out))?;
        device.seg_sum(1.0, hess_vals, &self.hessian, 0.0, out);
        device.scatter_add(1.0, sigma_x, &self.diagonal, out);
        device.seg_pair_sum(d, &self.jac_rows, jac_vals, &self.pairs, out);
        Ok(())
    }

    /// `K ← K + δ I` in place (an inertia-correction retry changes δw without assembling
    /// again; `K` holds `Σx + δw_old` on its diagonal, so pass `δ = δw_new − δw_old`).
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when `out` is not `K`'s value vector.
    pub fn shift_diagonal(
        &self,
        device: &D,
        delta: f64,
        out: &mut D::Vector,
    ) -> Result<(), LinalgError> {
        length("condensed shift: out", self.nnz, device.len(out))?;
        device.scatter_add(delta, &self.ones, &self.diagonal, out);
        Ok(())
    }

    /// The weights of the condensed system: `q = 1 / (1 + δc Σ')` and `D = Σ' q` from the
    /// slack diagonal `sigma_s` = `Σ' = Σs + δw` (length `m`).
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] when a vector is not of length `m`.
    pub fn weights(
        &self,
        device: &D,
        sigma_s: &D::Vector,
        delta_c: f64,
        q: &mut D::Vector,
        d: &mut D::Vector,
    ) -> Result<(), LinalgError> {
        length("condensed weights: sigma_s", self.m, device.len(sigma_s))?;
        length("condensed weights: q", self.m, device.len(q))?;
        length("condensed weights: d", self.m, device.len(d))?;
        // q = 1 / (δc Σ' + 1)
        device.copy(d, sigma_s);
        device.scale(delta_c, d);
        device.shift(d, 1.0);
        device.recip(q, 1.0, d);
        // D = Σ' q
        device.mul(d, sigma_s, q);
        Ok(())
    }

    /// The condensed right-hand side `rx = bx + Jᵀ (D ∘ by + q ∘ bs)`.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] for a vector of the wrong length.
    pub fn reduce(
        &mut self,
        device: &D,
        system: &CondensedValues<'_, D::Vector>,
        rhs: [&D::Vector; 3],
        rx: &mut D::Vector,
    ) -> Result<(), LinalgError> {
        let [bx, bs, by] = rhs;
        self.check(device, system, [bx, bs, by])?;
        length("condensed reduce: rx", self.n, device.len(rx))?;
        // t = q ∘ bs + D ∘ by (with q = 1 exactly the host's `D·by + bs`: 1·bs is bs and
        // the addition commutes)
        let [t, u] = &mut self.scratch;
        device.mul(t, system.q, bs);
        device.mul(u, system.d, by);
        device.axpy(1.0, u, t);
        // rx = bx + Jᵀ t, in Jacobian entry order per column
        device.copy(rx, bx);
        device.seg_spmv(1.0, system.jac_vals, &self.by_columns, t, 1.0, rx);
        Ok(())
    }

    /// The slack and multiplier steps from `dx`: `ds = q ∘ (J dx − by + δc bs)` and
    /// `dy = D ∘ (J dx − by) − q ∘ bs`.
    ///
    /// # Errors
    /// [`LinalgError::LengthMismatch`] for a vector of the wrong length.
    pub fn expand(
        &mut self,
        device: &D,
        system: &CondensedValues<'_, D::Vector>,
        dx: &D::Vector,
        rhs: [&D::Vector; 2],
        ds: &mut D::Vector,
        dy: &mut D::Vector,
    ) -> Result<(), LinalgError> {
        let [bs, by] = rhs;
        self.check(device, system, [dx, bs, by])?;
        length("condensed expand: ds", self.m, device.len(ds))?;
        length("condensed expand: dy", self.m, device.len(dy))?;
        let [t, _] = &mut self.scratch;
        // ds = J dx − by (in Jacobian entry order per row)
        device.seg_spmv(1.0, system.jac_vals, &self.by_rows, dx, 0.0, ds);
        device.axpy(-1.0, by, ds);
        // dy = D ∘ ds − q ∘ bs
        device.mul(dy, system.d, ds);
        device.mul(t, system.q, bs);
        device.axpy(-1.0, t, dy);
        // ds = q ∘ (ds + δc bs)
        device.axpy(system.delta_c, bs, ds);
        device.mul(t, system.q, ds);
        device.copy(ds, t);
        Ok(())
    }

    /// `out = a J x + b out` (length `m`; `x` of length `n`), summed in Jacobian entry
    /// order per row ([`Device::seg_spmv`]: with `b = 0`, `out` is not read).
    pub fn jac_mul(
        &self,
        device: &D,
        jac_vals: &D::Vector,
        a: f64,
        x: &D::Vector,
        b: f64,
        out: &mut D::Vector,
    ) {
        device.seg_spmv(a, jac_vals, &self.by_rows, x, b, out);
    }

    /// `out = a Jᵀ y + b out` (length `n`; `y` of length `m`), summed in Jacobian entry
    /// order per column ([`Device::seg_spmv`]: with `b = 0`, `out` is not read).
    pub fn jac_t_mul(
        &self,
        device: &D,
        jac_vals: &D::Vector,
        a: f64,
        y: &D::Vector,
        b: f64,
        out: &mut D::Vector,
    ) {
        device.seg_spmv(a, jac_vals, &self.by_columns, y, b, out);
    }

    /// Lengths of the values of a system and of an `(n, m, m)` triple of vectors.
    fn check(
        &self,
        device: &D,
        system: &CondensedValues<'_, D::Vector>,
        [x, s, y]: [&D::Vector; 3],
    ) -> Result<(), LinalgError> {
        length(
            "condensed: jac_vals",
            self.jac_nnz,
            device.len(system.jac_vals),
        )?;
        length("condensed: D", self.m, device.len(system.d))?;
        length("condensed: q", self.m, device.len(system.q))?;
        length("condensed: x part", self.n, device.len(x))?;
        length("condensed: slack part", self.m, device.len(s))?;
        length("condensed: row part", self.m, device.len(y))?;
        Ok(())
    }
}

/// The values of one condensed system that [`DeviceCondensedKkt::reduce`] and
/// [`DeviceCondensedKkt::expand`] read: the Jacobian values and the weights of
/// [`DeviceCondensedKkt::weights`].
#[derive(Debug)]
pub struct CondensedValues<'a, V> {
    /// Values of `J` (COO order of the pattern).
    pub jac_vals: &'a V,
    /// `D = Σ' / (1 + δc Σ')`, length `m`.
    pub d: &'a V,
    /// `q = 1 / (1 + δc Σ')`, length `m`.
    pub q: &'a V,
    /// The constraint regularization δc the weights were made with.
    pub delta_c: f64,
}
