//! `gpu-check` stage 4 (`../shared/GPU.md` §7): NVIDIA cuDSS on the CUDA device against
//! faer, through `simdnlp_linalg::cudss` on buffers of `simdnlp_device::Cuda`.
//!
//! Matrices (lower triangle, CSC, uploaded once; `i32` indices):
//! - the condensed KKT matrix `K = W + Σx + Jᵀ D J` of model instances (case118_ieee,
//!   rosenbrock:2000, …) at a point near the start (multipliers as in stage 3, `Σx = 1`,
//!   `D = 1`): LDLᵀ, solved for the right-hand side `K·1`; the backward error
//!   `‖K x − b‖∞ / (‖K‖∞ ‖x‖∞ + ‖b‖∞)` must be ≤ 1e-12 and `x` must agree with faer's
//!   Bunch–Kaufman solution (relative difference reported, checked ≤ 1e-6, a bound that
//!   only a wrong solve breaks); then the values change (`Σx = 10`) and the
//!   REFACTORIZATION path is checked the same way;
//! - a random sparse symmetric indefinite matrix (`n = 150`, seeded): cuDSS LDLᵀ inertia
//!   against the signs of its dense eigenvalues (faer); under Cholesky the factorization
//!   must report "not positive definite" (`INFO ≠ 0`);
//! - a random sparse symmetric positive definite matrix: Cholesky must succeed and solve
//!   to the same backward error;
//! - two solvers alive at once (outer problem and restoration in a solve): factorized one
//!   after the other, then solved interleaved, each still correct.
//!
//! Every check records its timings (analysis, factorization, solve; the stream is
//! synchronized around each) so the report also says how fast cuDSS is on these sizes.

use serde::Serialize;

/// One cuDSS check (a matrix, a factorization and what was compared).
#[derive(Clone, Debug, Default, Serialize)]
pub struct FactorCheck {
    /// What was factorized (`case118_ieee condensed K (LDLᵀ)`, …).
    pub name: String,
    /// Dimension.
    pub n: usize,
    /// Stored entries (lower triangle).
    pub nnz: usize,
    /// The factorization's verdict (`Success`, `NotPositiveDefinite`, `Singular`).
    pub status: String,
    /// `(positive, negative, zero)` that cuDSS reported, when it did.
    pub inertia: Option<(usize, usize, usize)>,
    /// `(positive, negative, zero)` of the dense eigenvalues (small matrices only).
    pub expected_inertia: Option<(usize, usize, usize)>,
    /// `‖K x − b‖∞ / (‖K‖∞ ‖x‖∞ + ‖b‖∞)` of the cuDSS solution (NaN when not solved).
    pub backward_error: f64,
    /// `‖x − x_faer‖∞ / ‖x_faer‖∞` (NaN when not compared).
    pub vs_faer: f64,
    /// `CUDSS_DATA_NPIVOTS` after the factorization (−1 when it could not be read).
    pub pivots: i64,
    /// Analysis time, seconds (0 when the analysis was shared).
    pub analyze_s: f64,
    /// Numeric factorization time, seconds.
    pub factor_s: f64,
    /// Solve time (one right-hand side), seconds.
    pub solve_s: f64,
    /// What failed (empty when the check passed).
    pub failures: Vec<String>,
    /// Remarks that are not failures (a reference that could not be computed).
    pub notes: Vec<String>,
}

/// Stage 4 as a whole.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CudssStage {
    /// The library that was loaded (path or soname) and the version it reports.
    pub library: String,
    /// `major.minor.patch` from `cudssGetProperty`.
    pub version: String,
    /// The checks, in order.
    pub checks: Vec<FactorCheck>,
    /// Why the stage could not run (library missing, …), when it could not.
    pub error: Option<String>,
}

impl CudssStage {
    /// One line per failure of the stage (empty when it passed).
    pub fn failures(&self) -> Vec<String> {
        let mut out: Vec<String> = self.error.iter().map(|e| format!("cuDSS: {e}")).collect();
        for c in &self.checks {
            for f in &c.failures {
                out.push(format!("cuDSS {}: {f}", c.name));
            }
        }
        out
    }
}

/// A symmetric matrix as its lower triangle in CSC form (host memory).
#[derive(Clone, Debug)]
pub struct LowerCsc {
    /// Dimension.
    pub n: usize,
    /// `n + 1` column pointers.
    pub col_ptr: Vec<usize>,
    /// Row indices, sorted within each column, `≥` the column.
    pub row_idx: Vec<usize>,
    /// Values in `row_idx` order.
    pub values: Vec<f64>,
}

impl LowerCsc {
    /// `y = A x` for the symmetric matrix (NaN entries when `x` has the wrong length).
    pub fn matvec(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.n];
        if simdnlp_linalg::sparse::sym_lower_matvec(
            &self.col_ptr,
            &self.row_idx,
            &self.values,
            x,
            &mut y,
        )
        .is_err()
        {
            y.fill(f64::NAN);
        }
        y
    }

    /// `‖A‖∞` (largest absolute row sum of the full symmetric matrix).
    pub fn norm_inf(&self) -> f64 {
        let mut rows = vec![0.0f64; self.n];
        for col in 0..self.n {
            for k in self.col_ptr[col]..self.col_ptr[col + 1] {
                let (row, v) = (self.row_idx[k], self.values[k].abs());
                rows[row] += v;
                if row != col {
                    rows[col] += v;
                }
            }
        }
        rows.into_iter().fold(0.0, f64::max)
    }

    /// The full matrix, dense, column-major.
    pub fn dense(&self) -> Vec<f64> {
        let n = self.n;
        let mut a = vec![0.0; n * n];
        for col in 0..n {
            for k in self.col_ptr[col]..self.col_ptr[col + 1] {
                let row = self.row_idx[k];
                a[row + col * n] = self.values[k];
                a[col + row * n] = self.values[k];
            }
        }
        a
    }

    /// Add `shift` to every diagonal entry (the pattern must store the diagonal).
    pub fn shift_diagonal(&mut self, shift: f64) {
        for col in 0..self.n {
            for k in self.col_ptr[col]..self.col_ptr[col + 1] {
                if self.row_idx[k] == col {
                    self.values[k] += shift;
                }
            }
        }
    }
}

/// The condensed KKT matrix `K = W + Σx + Jᵀ D J` of `model` at `x` with multipliers `y`
/// (objective weight 1), `Σx = sigma` and `D = 1`.
///
/// # Errors
/// A message when the pattern cannot be built (an index outside the model's dimensions).
pub fn condensed_matrix(
    model: &dyn simdnlp_modeling::NlpModel<f64>,
    x: &[f64],
    y: &[f64],
    sigma: f64,
) -> Result<LowerCsc, String> {
    let meta = model.meta();
    let (n, m) = (meta.nvar, meta.ncon);
    let (mut hr, mut hc) = (vec![0; meta.nnzh], vec![0; meta.nnzh]);
    let (mut jr, mut jc) = (vec![0; meta.nnzj], vec![0; meta.nnzj]);
    model.hess_structure(&mut hr, &mut hc);
    model.jac_structure(&mut jr, &mut jc);
    let (mut hv, mut jv) = (vec![0.0; meta.nnzh], vec![0.0; meta.nnzj]);
    model.hess_coord(x, y, 1.0, &mut hv);
    model.jac_coord(x, &mut jv);
    let pattern =
        simdnlp_linalg::CondensedKkt::new(n, m, &hr, &hc, &jr, &jc).map_err(|e| e.to_string())?;
    let mut values = vec![0.0; pattern.nnz()];
    pattern
        .assemble(&hv, &vec![sigma; n], &jv, &vec![1.0; m], &mut values)
        .map_err(|e| e.to_string())?;
    Ok(LowerCsc {
        n,
        col_ptr: pattern.col_ptr().to_vec(),
        row_idx: pattern.row_idx().to_vec(),
        values,
    })
}

/// A seeded random sparse symmetric matrix of dimension `n` with about `per_col`
/// off-diagonal entries per column (lower triangle, diagonal stored): diagonal entries
/// `diag(i)`, off-diagonal ones uniform in `[-1, 1]`.
pub fn random_symmetric(
    n: usize,
    per_col: usize,
    seed: u64,
    diag: impl Fn(usize) -> f64,
) -> LowerCsc {
    let mut rng = super::gpu_check::Rng(seed);
    let (mut col_ptr, mut row_idx, mut values) = (vec![0], Vec::new(), Vec::new());
    for col in 0..n {
        let mut rows: Vec<usize> = (0..per_col)
            .filter(|_| col + 1 < n)
            .map(|_| col + 1 + rng.below(n - col - 1))
            .collect();
        rows.sort_unstable();
        rows.dedup();
        row_idx.push(col);
        values.push(diag(col));
        for row in rows {
            row_idx.push(row);
            values.push(rng.unit() * 2.0 - 1.0);
        }
        col_ptr.push(row_idx.len());
    }
    LowerCsc {
        n,
        col_ptr,
        row_idx,
        values,
    }
}

/// `(positive, negative, zero)` eigenvalue counts of a small symmetric matrix (dense
/// eigenvalues by faer; `|λ| ≤ 1e-10 · max|λ|` counts as zero).
///
/// # Errors
/// A message when the eigenvalue iteration does not converge.
pub fn dense_inertia(a: &LowerCsc) -> Result<(usize, usize, usize), String> {
    let n = a.n;
    let dense = a.dense();
    let mat = faer::Mat::<f64>::from_fn(n, n, |i, j| dense[i + j * n]);
    let eig = mat
        .self_adjoint_eigenvalues(faer::Side::Lower)
        .map_err(|e| format!("{e:?}"))?;
    let scale = eig.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let tol = 1e-10 * scale;
    let pos = eig.iter().filter(|&&v| v > tol).count();
    let neg = eig.iter().filter(|&&v| v < -tol).count();
    Ok((pos, neg, n - pos - neg))
}

/// faer's Bunch–Kaufman solution of `A x = b` (the reference of the cuDSS solves).
///
/// # Errors
/// A message when faer cannot factorize the matrix.
pub fn faer_solve(a: &LowerCsc, b: &[f64]) -> Result<Vec<f64>, String> {
    use simdnlp_linalg::{FactorStatus, FaerLblt, Parallelism, SymmetricSolver};
    let mut solver = FaerLblt::new(Parallelism::Sequential);
    solver
        .analyze(a.n, &a.col_ptr, &a.row_idx)
        .map_err(|e| e.to_string())?;
    match solver.factorize(&a.values).map_err(|e| e.to_string())? {
        FactorStatus::Success => {}
        other => return Err(format!("faer LBLᵀ: {other:?}")),
    }
    let mut x = b.to_vec();
    solver.solve_in_place(&mut x).map_err(|e| e.to_string())?;
    Ok(x)
}

/// `‖A x − b‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞)` (NaN when `x` has a NaN).
pub fn backward_error(a: &LowerCsc, x: &[f64], b: &[f64]) -> f64 {
    let ax = a.matvec(x);
    let inf = |v: &[f64]| {
        v.iter().fold(
            0.0f64,
            |s, t| if t.is_nan() { f64::NAN } else { s.max(t.abs()) },
        )
    };
    let r: Vec<f64> = ax.iter().zip(b).map(|(p, q)| p - q).collect();
    inf(&r) / (a.norm_inf() * inf(x) + inf(b))
}

/// `‖x − r‖∞ / ‖r‖∞`.
pub fn relative_difference(x: &[f64], reference: &[f64]) -> f64 {
    let mut diff = 0.0f64;
    let mut size = 0.0f64;
    for (a, b) in x.iter().zip(reference) {
        diff = if (a - b).is_nan() {
            f64::NAN
        } else {
            diff.max((a - b).abs())
        };
        size = size.max(b.abs());
    }
    diff / size.max(f64::MIN_POSITIVE)
}

#[cfg(feature = "cuda")]
pub use on_cuda::run_stage4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_references_agree_on_known_matrices() {
        // a diagonal matrix: inertia by counting signs
        let diagonal = random_symmetric(12, 0, 1, |i| [3.0, -2.0, 0.0][i % 3]);
        assert_eq!(dense_inertia(&diagonal).unwrap(), (4, 4, 4));
        // a diagonally dominant SPD matrix: faer's solve of A x = A·1 is 1
        let spd = random_symmetric(60, 2, 5, |_| 10.0);
        assert_eq!(dense_inertia(&spd).unwrap(), (60, 0, 0));
        let b = spd.matvec(&[1.0; 60]);
        let x = faer_solve(&spd, &b).unwrap();
        assert!(backward_error(&spd, &x, &b) < 1e-14);
        assert!(relative_difference(&x, &[1.0; 60]) < 1e-12);
        // a wrong solution is seen
        assert!(backward_error(&spd, &[0.5; 60], &b) > 1e-3);
        assert!(relative_difference(&[f64::NAN; 60], &x).is_nan());
        // the ∞-norm counts both triangles
        let full = spd.dense();
        let row_max = (0..60)
            .map(|i| (0..60).map(|j| full[i + j * 60].abs()).sum::<f64>())
            .fold(0.0, f64::max);
        assert!((spd.norm_inf() - row_max).abs() <= 1e-12 * row_max);
    }
}

#[cfg(feature = "cuda")]
mod on_cuda {
    use super::{
        CudssStage, FactorCheck, LowerCsc, backward_error, dense_inertia, faer_solve,
        random_symmetric, relative_difference,
    };
    use simdnlp_device::{Cuda, CudaIndex, CudaVector, Device, KernelRuntime};
    use simdnlp_linalg::FactorStatus;
    use simdnlp_linalg::cudss::{
        CudssFactorization, CudssLibrary, CudssOptions, CudssSolver, DeviceCsc,
    };
    use std::sync::Arc;
    use std::time::Instant;

    /// Bound of the backward error of a cuDSS solve.
    const BACKWARD_TOLERANCE: f64 = 1e-12;
    /// Bound of the difference to faer's solution (only a wrong solve breaks it).
    const FAER_TOLERANCE: f64 = 1e-6;

    /// A matrix on the device, kept alive as long as the solver that analyzed it.
    struct OnDevice {
        host: LowerCsc,
        col_ptr: CudaIndex,
        row_idx: CudaIndex,
        values: CudaVector,
    }

    impl OnDevice {
        fn new(cuda: &Cuda, host: LowerCsc) -> Result<Self, String> {
            let e = |e: simdnlp_device::DeviceError| e.to_string();
            Ok(Self {
                col_ptr: cuda.index_from_host(&host.col_ptr).map_err(e)?,
                row_idx: cuda.index_from_host(&host.row_idx).map_err(e)?,
                values: cuda.vector_from_host(&host.values).map_err(e)?,
                host,
            })
        }

        fn csc(&self, cuda: &Cuda) -> DeviceCsc {
            DeviceCsc {
                n: self.host.n,
                nnz: self.host.row_idx.len(),
                col_ptr: cuda.index_ptr(&self.col_ptr),
                row_idx: cuda.index_ptr(&self.row_idx),
                values: cuda.vector_ptr(&self.values),
            }
        }
    }

    fn sync(cuda: &Cuda) -> Result<(), String> {
        cuda.synchronize().map_err(|e| e.to_string())
    }

    /// A solver with `matrix` analyzed and factorized; fills the check's status, inertia,
    /// pivots and timings.
    fn factorized(
        cuda: &Cuda,
        library: &Arc<CudssLibrary>,
        matrix: &OnDevice,
        factorization: CudssFactorization,
        check: &mut FactorCheck,
    ) -> Result<(CudssSolver, FactorStatus), String> {
        let options = CudssOptions {
            factorization,
            ..CudssOptions::default()
        };
        cuda.make_current().map_err(|e| e.to_string())?;
        // SAFETY: the stream is the device's, live as long as `cuda` (which outlives the
        // solver in every caller); the matrix buffers are device allocations of the sizes
        // in `csc`, owned by `matrix`, which every caller keeps alive beside the solver.
        let mut solver = unsafe { CudssSolver::new(library.clone(), cuda.raw_stream(), options) }
            .map_err(|e| e.to_string())?;
        let started = Instant::now();
        // SAFETY: as above.
        unsafe { solver.analyze(matrix.csc(cuda)) }.map_err(|e| e.to_string())?;
        sync(cuda)?;
        check.analyze_s = started.elapsed().as_secs_f64();
        let started = Instant::now();
        // SAFETY: `values` holds `nnz` finite values, alive with `matrix`.
        let status = unsafe { solver.factorize(cuda.vector_ptr(&matrix.values)) }
            .map_err(|e| e.to_string())?;
        sync(cuda)?;
        check.factor_s = started.elapsed().as_secs_f64();
        record(&solver, status, check);
        Ok((solver, status))
    }

    fn record(solver: &CudssSolver, status: FactorStatus, check: &mut FactorCheck) {
        check.status = format!("{status:?}");
        check.inertia = solver.inertia().map(|i| (i.positive, i.negative, i.zero));
        check.pivots = solver.pivot_count().unwrap_or(-1);
    }

    /// Solves `A x = A·1` on the device and checks the backward error and the difference
    /// to faer's solution.
    fn solve_and_compare(
        cuda: &Cuda,
        solver: &mut CudssSolver,
        matrix: &LowerCsc,
        check: &mut FactorCheck,
    ) -> Result<(), String> {
        let b = matrix.matvec(&vec![1.0; matrix.n]);
        let mut rhs = cuda.vector_from_host(&b).map_err(|e| e.to_string())?;
        cuda.make_current().map_err(|e| e.to_string())?;
        let started = Instant::now();
        // SAFETY: `rhs` holds `n` values on the device, alive until after the stream is
        // synchronized below (`to_host` waits).
        unsafe { solver.solve_in_place(cuda.vector_ptr_mut(&mut rhs)) }
            .map_err(|e| e.to_string())?;
        sync(cuda)?;
        check.solve_s = started.elapsed().as_secs_f64();
        let mut x = vec![0.0; matrix.n];
        cuda.to_host(&rhs, &mut x).map_err(|e| e.to_string())?;
        check.backward_error = backward_error(matrix, &x, &b);
        if check.backward_error.is_nan() || check.backward_error > BACKWARD_TOLERANCE {
            check.failures.push(format!(
                "backward error {:.2e} above {BACKWARD_TOLERANCE:e}",
                check.backward_error
            ));
        }
        match faer_solve(matrix, &b) {
            Ok(reference) => {
                check.vs_faer = relative_difference(&x, &reference);
                if check.vs_faer.is_nan() || check.vs_faer > FAER_TOLERANCE {
                    check.failures.push(format!(
                        "solution differs from faer's by {:.2e} (relative)",
                        check.vs_faer
                    ));
                }
            }
            Err(e) => check.notes.push(format!("no faer reference: {e}")),
        }
        Ok(())
    }

    fn new_check(name: String, m: &LowerCsc) -> FactorCheck {
        FactorCheck {
            name,
            n: m.n,
            nnz: m.row_idx.len(),
            backward_error: f64::NAN,
            vs_faer: f64::NAN,
            pivots: -1,
            ..FactorCheck::default()
        }
    }

    /// One check that failed before it could compare anything.
    fn failed(mut check: FactorCheck, reason: String) -> FactorCheck {
        check.failures.push(reason);
        check
    }

    /// LDLᵀ, solve, refactorization after a value change, solve again.
    fn check_condensed(
        cuda: &Cuda,
        library: &Arc<CudssLibrary>,
        name: &str,
        matrix: LowerCsc,
    ) -> Vec<FactorCheck> {
        let mut first = new_check(format!("{name} condensed K (LDLᵀ)"), &matrix);
        let mut device = match OnDevice::new(cuda, matrix) {
            Ok(d) => d,
            Err(e) => return vec![failed(first, e)],
        };
        let mut solver =
            match factorized(cuda, library, &device, CudssFactorization::Ldlt, &mut first) {
                Ok((solver, FactorStatus::Success)) => solver,
                Ok((_, status)) => {
                    return vec![failed(first, format!("factorization: {status:?}"))];
                }
                Err(e) => return vec![failed(first, e)],
            };
        if let Err(e) = solve_and_compare(cuda, &mut solver, &device.host, &mut first) {
            first.failures.push(e);
        }
        // REFACTORIZATION: Σx = 1 → 10, same buffer
        let mut again = new_check(
            format!("{name} condensed K, Σx + 9 (REFACTORIZATION)"),
            &device.host,
        );
        device.host.shift_diagonal(9.0);
        let upload = cuda.copy_from_host(&mut device.values, &device.host.values);
        if let Err(e) = upload {
            return vec![first, failed(again, e.to_string())];
        }
        let started = Instant::now();
        let _ = cuda.make_current();
        // SAFETY: the analyzed buffer, same layout, alive with `device`.
        let status = unsafe { solver.factorize(cuda.vector_ptr(&device.values)) };
        let _ = sync(cuda);
        again.factor_s = started.elapsed().as_secs_f64();
        match status {
            Ok(FactorStatus::Success) => {
                record(&solver, FactorStatus::Success, &mut again);
                if let Err(e) = solve_and_compare(cuda, &mut solver, &device.host, &mut again) {
                    again.failures.push(e);
                }
            }
            Ok(status) => {
                record(&solver, status, &mut again);
                again.failures.push(format!("refactorization: {status:?}"));
            }
            Err(e) => again.failures.push(e.to_string()),
        }
        drop(solver);
        vec![first, again]
    }

    /// Inertia of an indefinite matrix against its dense eigenvalues; Cholesky must refuse
    /// it.
    fn check_indefinite(cuda: &Cuda, library: &Arc<CudssLibrary>) -> Vec<FactorCheck> {
        let n = 150;
        let matrix = random_symmetric(n, 3, 7, |i| if i % 3 == 0 { -4.0 } else { 4.0 });
        let mut ldlt = new_check("random indefinite n=150 (LDLᵀ inertia)".into(), &matrix);
        let expected = dense_inertia(&matrix);
        ldlt.expected_inertia = expected.as_ref().ok().copied();
        let device = match OnDevice::new(cuda, matrix) {
            Ok(d) => d,
            Err(e) => return vec![failed(ldlt, e)],
        };
        match factorized(cuda, library, &device, CudssFactorization::Ldlt, &mut ldlt) {
            Ok((mut solver, FactorStatus::Success)) => {
                match (&expected, ldlt.inertia) {
                    (Ok(e), Some(got)) if *e == got => {}
                    (Ok(e), got) => ldlt
                        .failures
                        .push(format!("inertia {got:?}, dense eigenvalues give {e:?}")),
                    (Err(e), _) => ldlt.failures.push(format!("dense eigenvalues: {e}")),
                }
                if let Err(e) = solve_and_compare(cuda, &mut solver, &device.host, &mut ldlt) {
                    ldlt.failures.push(e);
                }
            }
            Ok((_, status)) => ldlt.failures.push(format!("factorization: {status:?}")),
            Err(e) => ldlt.failures.push(e),
        }
        let mut chol = new_check(
            "random indefinite n=150 (Cholesky must fail)".into(),
            &device.host,
        );
        match factorized(
            cuda,
            library,
            &device,
            CudssFactorization::Cholesky,
            &mut chol,
        ) {
            Ok((_, FactorStatus::NotPositiveDefinite)) => {}
            Ok((_, status)) => chol
                .failures
                .push(format!("Cholesky of an indefinite matrix gave {status:?}")),
            Err(e) => chol.failures.push(e),
        }
        vec![ldlt, chol]
    }

    /// Cholesky of a positive definite matrix.
    fn check_spd(cuda: &Cuda, library: &Arc<CudssLibrary>) -> FactorCheck {
        let matrix = random_symmetric(2000, 4, 11, |_| 12.0);
        let mut check = new_check("random SPD n=2000 (Cholesky)".into(), &matrix);
        let device = match OnDevice::new(cuda, matrix) {
            Ok(d) => d,
            Err(e) => return failed(check, e),
        };
        match factorized(
            cuda,
            library,
            &device,
            CudssFactorization::Cholesky,
            &mut check,
        ) {
            Ok((mut solver, FactorStatus::Success)) => {
                if let Err(e) = solve_and_compare(cuda, &mut solver, &device.host, &mut check) {
                    check.failures.push(e);
                }
            }
            Ok((_, status)) => check.failures.push(format!("factorization: {status:?}")),
            Err(e) => check.failures.push(e),
        }
        check
    }

    /// Two solvers alive: both factorized, then solved interleaved.
    fn check_two_handles(
        cuda: &Cuda,
        library: &Arc<CudssLibrary>,
        first: LowerCsc,
    ) -> Vec<FactorCheck> {
        let second = random_symmetric(500, 3, 13, |i| if i % 2 == 0 { 6.0 } else { -6.0 });
        let mut a = new_check("two handles: first".into(), &first);
        let mut b = new_check("two handles: second".into(), &second);
        let (da, db) = match (OnDevice::new(cuda, first), OnDevice::new(cuda, second)) {
            (Ok(da), Ok(db)) => (da, db),
            (Err(e), _) | (_, Err(e)) => return vec![failed(a, e)],
        };
        let sa = factorized(cuda, library, &da, CudssFactorization::Ldlt, &mut a);
        let sb = factorized(cuda, library, &db, CudssFactorization::Ldlt, &mut b);
        match (sa, sb) {
            (Ok((mut sa, FactorStatus::Success)), Ok((mut sb, FactorStatus::Success))) => {
                for (solver, matrix, check) in
                    [(&mut sb, &db.host, &mut b), (&mut sa, &da.host, &mut a)]
                {
                    if let Err(e) = solve_and_compare(cuda, solver, matrix, check) {
                        check.failures.push(e);
                    }
                }
            }
            (sa, sb) => {
                for (result, check) in [(sa, &mut a), (sb, &mut b)] {
                    match result {
                        Ok((_, FactorStatus::Success)) => {}
                        Ok((_, status)) => {
                            check.failures.push(format!("factorization: {status:?}"))
                        }
                        Err(e) => check.failures.push(e),
                    }
                }
            }
        }
        vec![a, b]
    }

    /// Runs stage 4 on `cuda` with the condensed matrices of `models` (name, matrix).
    pub fn run_stage4(cuda: &Cuda, models: Vec<(String, LowerCsc)>) -> CudssStage {
        let library = match CudssLibrary::load_from_env() {
            Ok(l) => l,
            Err(e) => {
                return CudssStage {
                    error: Some(e.to_string()),
                    ..CudssStage::default()
                };
            }
        };
        let mut stage = CudssStage {
            library: library.name().to_string(),
            version: library.version().to_string(),
            ..CudssStage::default()
        };
        let mut second_handle = None;
        for (name, matrix) in models {
            if second_handle.is_none() {
                second_handle = Some(matrix.clone());
            }
            stage
                .checks
                .extend(check_condensed(cuda, &library, &name, matrix));
        }
        stage.checks.extend(check_indefinite(cuda, &library));
        stage.checks.push(check_spd(cuda, &library));
        let first = second_handle.unwrap_or_else(|| random_symmetric(300, 3, 17, |_| 9.0));
        stage
            .checks
            .extend(check_two_handles(cuda, &library, first));
        stage
    }
}
