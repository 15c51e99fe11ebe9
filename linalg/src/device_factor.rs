//! The factorization seam over a [`Device`]'s vectors: a sparse symmetric matrix whose
//! values live in a device vector, factorized and solved with right-hand sides that are
//! device vectors too. The condensed KKT system of the device backend goes through it, so
//! that the same algorithm runs with faer on the host ([`HostFactorization`], for
//! [`simdnlp_device::Cpu`] and the emulated device) and with cuDSS on a GPU
//! (`cudss::CudssOnCuda`, feature `cuda`).
//!
//! The pattern is given once, on the host, as for [`SymmetricSolver`]: the **lower
//! triangle** in compressed sparse column form; values follow the order of its row
//! indices.

use crate::{FactorStatus, Inertia, LinalgError, SymmetricSolver};
use simdnlp_device::{Device, DeviceError};
use std::sync::Arc;

/// A sparse symmetric factorization of a matrix whose values are a vector of device `D`:
/// analyze once, factorize many times, solve in place on device vectors.
pub trait DeviceFactorization<D: Device> {
    /// Symbolic analysis of the pattern (lower triangle, CSC, `row_idx` sorted within each
    /// column); later factorizations reuse it.
    ///
    /// # Errors
    /// A malformed pattern, or a failure of the factorization's library or device.
    fn analyze(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), LinalgError>;

    /// Numeric factorization with `values` (a device vector in the order of the analyzed
    /// `row_idx`). An unsuccessful factorization is a status, not an error.
    ///
    /// # Errors
    /// A call before [`DeviceFactorization::analyze`], a length mismatch, or a failure of
    /// the library or device.
    fn factorize(&mut self, values: &D::Vector) -> Result<FactorStatus, LinalgError>;

    /// Inertia of the last factorization, when the backend reports it.
    fn inertia(&self) -> Option<Inertia>;
    /// Seconds spent so far in a symbolic analysis that runs inside
    /// [`DeviceFactorization::factorize`] (cuDSS analyzes at the first factorization), so
    /// that callers can report it apart from the numeric factorizations. `0` (the default)
    /// when the analysis is all done in [`DeviceFactorization::analyze`].
    fn analysis_seconds(&self) -> f64 {
        0.0
    }

    /// Solves `A x = b` in place with the last successful factorization (`rhs` holds `b` on
    /// entry and `x` on exit).
    ///
    /// # Errors
    /// No successful factorization, a length mismatch, or a library or device failure.
    fn solve_in_place(&mut self, rhs: &mut D::Vector) -> Result<(), LinalgError>;
}

/// A device failure inside a factorization, as a [`LinalgError`] naming the step.
pub(crate) fn device_failure(step: &'static str, e: DeviceError) -> LinalgError {
    LinalgError::Device { step, source: e }
}

/// [`DeviceFactorization`] by a host [`SymmetricSolver`] (faer): the values and every
/// right-hand side are copied to host buffers ([`Device::to_host`]), factorized or solved
/// there, and the solution copied back ([`Device::copy_from_host`]).
///
/// That traffic is the factorization's, not the algorithm's: `nnz` values per
/// factorization and `2 n` per solve. On [`simdnlp_device::Cpu`] and the emulated device
/// (whose buffers are host memory) it is a memory copy; a real GPU uses a factorization
/// on the device instead. The buffers are allocated once, at analysis: factorizations and
/// solves allocate nothing beyond what the solver does.
pub struct HostFactorization<D: Device> {
    device: Arc<D>,
    solver: Box<dyn SymmetricSolver>,
    values: Vec<f64>,
    rhs: Vec<f64>,
}

impl<D: Device> std::fmt::Debug for HostFactorization<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostFactorization")
            .field("device", &self.device.name())
            .field("n", &self.rhs.len())
            .field("nnz", &self.values.len())
            .finish_non_exhaustive()
    }
}

impl<D: Device> HostFactorization<D> {
    /// `solver` factorizing matrices whose values live on `device`.
    pub fn new(device: Arc<D>, solver: Box<dyn SymmetricSolver>) -> Self {
        Self {
            device,
            solver,
            values: Vec::new(),
            rhs: Vec::new(),
        }
    }
}

impl<D: Device> DeviceFactorization<D> for HostFactorization<D> {
    fn analyze(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), LinalgError> {
        self.solver.analyze(n, col_ptr, row_idx)?;
        self.values = vec![0.0; row_idx.len()];
        self.rhs = vec![0.0; n];
        Ok(())
    }

    fn factorize(&mut self, values: &D::Vector) -> Result<FactorStatus, LinalgError> {
        self.device
            .to_host(values, &mut self.values)
            .map_err(|e| device_failure("factorization: values to the host", e))?;
        self.solver.factorize(&self.values)
    }

    fn inertia(&self) -> Option<Inertia> {
        self.solver.inertia()
    }

    fn solve_in_place(&mut self, rhs: &mut D::Vector) -> Result<(), LinalgError> {
        self.device
            .to_host(rhs, &mut self.rhs)
            .map_err(|e| device_failure("solve: right-hand side to the host", e))?;
        self.solver.solve_in_place(&mut self.rhs)?;
        self.device
            .copy_from_host(rhs, &self.rhs)
            .map_err(|e| device_failure("solve: solution to the device", e))
    }
}
