//! [`CudssOnCuda`]: the factorization seam ([`DeviceFactorization`]) on the [`Cuda`] device
//! by cuDSS, with the pattern, the values and every right-hand side in device memory.
//!
//! - [`DeviceFactorization::analyze`] uploads the pattern once as `i32` index lists
//!   ([`CudaIndex`]) and allocates the solver's own value buffer (with
//!   [`CudssOptions::host_ordering`], it also computes the fill-reducing ordering on the
//!   host and hands it to cuDSS); cuDSS's `ANALYSIS` runs at
//!   the first factorization, on the first values (MadNLP analyzes with the matrix's values
//!   too).
//! - [`DeviceFactorization::factorize`] copies the values into that buffer on the device
//!   (one device-to-device copy, so cuDSS's pointer to the values is always the solver's
//!   own and lives as long as the solver), then `FACTORIZATION` (first) or
//!   `REFACTORIZATION`; `INFO` and the inertia are read back (a few bytes, which
//!   synchronizes the stream).
//! - [`DeviceFactorization::solve_in_place`] runs `SOLVE` on the caller's vector, queued on
//!   the device's stream after the kernels that filled it and before those that read it.
//!
//! Every call makes the device's context current on the calling thread first.

use super::{CudssLibrary, CudssOptions, CudssSolver, DeviceCsc};
use crate::device_factor::{DeviceFactorization, device_failure};
use crate::ordering::{self, FillMethod};
use crate::{FactorStatus, Inertia, LinalgError};
use simdnlp_device::{Cuda, CudaIndex, CudaVector, Device, KernelRuntime};
use std::sync::Arc;

/// The pattern on the device and the values buffer cuDSS reads.
struct OnDevice {
    col_ptr: CudaIndex,
    row_idx: CudaIndex,
    values: CudaVector,
    n: usize,
    nnz: usize,
}

/// cuDSS factorizing matrices whose values are [`Cuda`] vectors (see the module
/// documentation).
pub struct CudssOnCuda {
    /// Declared before the buffers it points into (dropped first).
    solver: CudssSolver,
    /// cuDSS's `ANALYSIS` ran on the current pattern.
    analyzed: bool,
    pattern: Option<OnDevice>,
    /// Wall time of the cuDSS analyses so far (s), stream synchronized.
    analysis_seconds: f64,
    /// Holds the stream the solver was created on alive.
    cuda: Arc<Cuda>,
}

impl std::fmt::Debug for CudssOnCuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudssOnCuda")
            .field("solver", &self.solver)
            .field("analyzed", &self.analyzed)
            .finish_non_exhaustive()
    }
}

impl CudssOnCuda {
    /// A cuDSS solver of `library` on `cuda`'s stream with `options`.
    ///
    /// # Errors
    /// A failure to make the device's context current, or a failed cuDSS call (handle,
    /// configuration, solver data) naming the call.
    pub fn new(
        cuda: Arc<Cuda>,
        library: Arc<CudssLibrary>,
        options: CudssOptions,
    ) -> Result<Self, LinalgError> {
        cuda.make_current()
            .map_err(|e| device_failure("cuDSS setup", e))?;
        // SAFETY: the stream is the device's, live as long as `cuda`, which this value keeps
        // (declared after the solver, so it outlives it); the device's context was made
        // current on this thread just above.
        let solver = unsafe { CudssSolver::new(library, cuda.raw_stream(), options)? };
        Ok(Self {
            solver,
            analyzed: false,
            pattern: None,
            analysis_seconds: 0.0,
            cuda,
        })
    }

    /// The cuDSS solver (pivot counts, options, library).
    pub fn solver(&self) -> &CudssSolver {
        &self.solver
    }

    fn current(&self, step: &'static str) -> Result<(), LinalgError> {
        self.cuda
            .make_current()
            .map_err(|e| device_failure(step, e))
    }
}

impl DeviceFactorization<Cuda> for CudssOnCuda {
    fn analyze(
        &mut self,
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
    ) -> Result<(), LinalgError> {
        crate::sparse::check_csc("cuDSS analysis: pattern", n, n, col_ptr, row_idx, true)?;
        self.current("cuDSS analysis")?;
        // the host ordering is part of the analysis (cuDSS's own reordering it replaces is)
        let started = std::time::Instant::now();
        let permutation = match self.solver.options().host_ordering {
            None => None,
            Some(FillMethod::NestedDissection) => {
                Some(ordering::nested_dissection_ordering(n, col_ptr, row_idx)?)
            }
            Some(_) => Some(ordering::amd_ordering(n, col_ptr, row_idx)?),
        };
        self.solver.set_user_permutation(permutation.as_deref())?;
        self.analysis_seconds += started.elapsed().as_secs_f64();
        let upload = |what: &'static str, idx: &[usize]| {
            self.cuda
                .index_from_host(idx)
                .map_err(|e| device_failure(what, e))
        };
        let pattern = OnDevice {
            col_ptr: upload("cuDSS analysis: column pointers to the device", col_ptr)?,
            row_idx: upload("cuDSS analysis: row indices to the device", row_idx)?,
            values: self
                .cuda
                .zeros(row_idx.len())
                .map_err(|e| device_failure("cuDSS analysis: values buffer", e))?,
            n,
            nnz: row_idx.len(),
        };
        self.pattern = Some(pattern);
        self.analyzed = false;
        Ok(())
    }

    fn factorize(&mut self, values: &CudaVector) -> Result<FactorStatus, LinalgError> {
        self.current("cuDSS factorization")?;
        let Some(pattern) = self.pattern.as_mut() else {
            return Err(LinalgError::InvalidState(
                "cuDSS factorize called before analyze".into(),
            ));
        };
        let got = self.cuda.len(values);
        if got != pattern.nnz {
            return Err(LinalgError::LengthMismatch {
                what: "cuDSS factorize: values".into(),
                expected: pattern.nnz,
                got,
            });
        }
        self.cuda.copy(&mut pattern.values, values);
        let address = self.cuda.vector_ptr(&pattern.values);
        if !self.analyzed {
            let matrix = DeviceCsc {
                n: pattern.n,
                nnz: pattern.nnz,
                col_ptr: self.cuda.index_ptr(&pattern.col_ptr),
                row_idx: self.cuda.index_ptr(&pattern.row_idx),
                values: address,
            };
            // once per pattern: the queued work first, then the analysis alone is timed
            self.cuda
                .synchronize()
                .map_err(|e| device_failure("cuDSS analysis", e))?;
            let started = std::time::Instant::now();
            // SAFETY: the three buffers are device allocations of the sizes given (n + 1 and
            // nnz i32 indices, nnz f64 values) on the device's context, owned by
            // `self.pattern` and kept (unchanged) until another analysis or the drop of
            // `self`, where the solver is dropped first; the values were just written.
            unsafe { self.solver.analyze(matrix)? };
            self.cuda
                .synchronize()
                .map_err(|e| device_failure("cuDSS analysis", e))?;
            self.analysis_seconds += started.elapsed().as_secs_f64();
            self.analyzed = true;
        }
        // SAFETY: `address` is the solver's own buffer of nnz f64 (see above), alive as
        // long as the solver's analysis; the copy into it is queued before on the stream.
        Ok(unsafe { self.solver.factorize(address)? })
    }

    fn inertia(&self) -> Option<Inertia> {
        self.solver.inertia()
    }

    fn analysis_seconds(&self) -> f64 {
        self.analysis_seconds
    }

    fn solve_in_place(&mut self, rhs: &mut CudaVector) -> Result<(), LinalgError> {
        self.current("cuDSS solve")?;
        let n = self.pattern.as_ref().map_or(0, |p| p.n);
        let got = self.cuda.len(rhs);
        if got != n {
            return Err(LinalgError::LengthMismatch {
                what: "cuDSS solve: right-hand side".into(),
                expected: n,
                got,
            });
        }
        let address = self.cuda.vector_ptr_mut(rhs);
        // SAFETY: `rhs` is a device vector of n f64 on the device's context, borrowed
        // mutably for this call; the solve is queued on the device's stream, so every later
        // use of the vector (kernels, copies, its stream-ordered free) runs after it.
        unsafe { self.solver.solve_in_place(address)? };
        Ok(())
    }
}
