//! Shared helpers for the linalg integration tests: a tiny deterministic RNG, random
//! symmetric test matrices in lower-triangle COO form, dense references with faer.
#![allow(dead_code)]

use faer::{Mat, Side};
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{Inertia, KktBuilder, SymAssembly};

/// SplitMix64: deterministic, dependency-free pseudo-random numbers.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [-1, 1).
    pub fn sym(&mut self) -> f64 {
        2.0 * self.uniform() - 1.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Symmetric matrix as lower-triangle COO triplets (row >= col), duplicates allowed.
#[derive(Clone, Debug, Default)]
pub struct SymCoo {
    pub n: usize,
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    pub vals: Vec<f64>,
}

impl SymCoo {
    pub fn new(n: usize) -> Self {
        Self {
            n,
            ..Default::default()
        }
    }
    pub fn push(&mut self, i: usize, j: usize, v: f64) {
        self.rows.push(i.max(j));
        self.cols.push(i.min(j));
        self.vals.push(v);
    }
    /// Dense symmetric matrix (both triangles filled).
    pub fn dense(&self) -> Mat<f64> {
        let mut a = Mat::<f64>::zeros(self.n, self.n);
        for k in 0..self.vals.len() {
            let (i, j) = (self.rows[k], self.cols[k]);
            a[(i, j)] += self.vals[k];
            if i != j {
                a[(j, i)] += self.vals[k];
            }
        }
        a
    }
    /// Assembles into a lower CSC (pattern + values) through the crate's KktBuilder.
    pub fn to_csc(&self) -> (SymAssembly, Vec<f64>) {
        let mut b = KktBuilder::new(self.n);
        b.block(&self.rows, &self.cols, 0, 0).unwrap();
        let asm = b.build();
        let mut vals = vec![0.0; asm.nnz()];
        asm.assemble(&[&self.vals], &mut vals).unwrap();
        (asm, vals)
    }
}

/// Random sparse symmetric matrix with about `per_col` off-diagonal entries per column and
/// the given diagonal.
pub fn random_sym(rng: &mut Rng, n: usize, per_col: usize, diag: impl Fn(usize) -> f64) -> SymCoo {
    let mut a = SymCoo::new(n);
    for j in 0..n {
        a.push(j, j, diag(j));
        for _ in 0..per_col {
            let i = rng.below(n);
            if i != j {
                a.push(i, j, rng.sym());
            }
        }
    }
    a
}

/// Random SPD matrix: random symmetric off-diagonals plus a dominant diagonal.
pub fn random_spd(rng: &mut Rng, n: usize, per_col: usize) -> SymCoo {
    let mut a = random_sym(rng, n, per_col, |_| 0.0);
    // Make strictly diagonally dominant.
    let mut rowsum = vec![0.0; n];
    for k in 0..a.vals.len() {
        let (i, j) = (a.rows[k], a.cols[k]);
        if i != j {
            rowsum[i] += a.vals[k].abs();
            rowsum[j] += a.vals[k].abs();
        }
    }
    for (i, s) in rowsum.iter().enumerate() {
        a.push(i, i, s + 0.5 + rng.uniform());
    }
    a
}

/// KKT-shaped matrix [[H, Jᵀ], [J, -delta_c I]] with H SPD (n×n) and J random (m×n, every
/// row has `per_row` entries plus one "own" column to make it full rank generically).
pub fn random_kkt(rng: &mut Rng, n: usize, m: usize, per_row: usize, delta_c: f64) -> SymCoo {
    let h = random_spd(rng, n, 2);
    let mut a = SymCoo::new(n + m);
    for k in 0..h.vals.len() {
        a.push(h.rows[k], h.cols[k], h.vals[k]);
    }
    for i in 0..m {
        a.push(n + i, i % n, 1.0 + rng.uniform());
        for _ in 0..per_row {
            a.push(n + i, rng.below(n), rng.sym());
        }
        a.push(n + i, n + i, -delta_c);
    }
    a
}

/// Counts of positive / negative / (near-)zero eigenvalues of a dense symmetric matrix;
/// zero means |λ| <= rel_tol * max|λ|.
pub fn dense_inertia(a: &Mat<f64>, rel_tol: f64) -> Inertia {
    inertia_of(&a.self_adjoint_eigenvalues(Side::Lower).unwrap(), rel_tol)
}

/// Counts of positive / negative / (near-)zero `values` (eigenvalues, or the pivots of an
/// LDLᵀ); zero means |v| <= rel_tol * max|v|.
pub fn inertia_of(values: &[f64], rel_tol: f64) -> Inertia {
    let max = values.iter().fold(0.0f64, |m, &x| m.max(x.abs()));
    let mut inertia = Inertia::default();
    for &v in values {
        if v.abs() <= rel_tol * max {
            inertia.zero += 1;
        } else if v > 0.0 {
            inertia.positive += 1;
        } else {
            inertia.negative += 1;
        }
    }
    inertia
}

/// Normwise backward error ‖A x − b‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞) for a lower-CSC symmetric A.
pub fn backward_error(asm: &SymAssembly, vals: &[f64], x: &[f64], b: &[f64]) -> f64 {
    let n = asm.n();
    let mut ax = vec![0.0; n];
    sym_lower_matvec(asm.col_ptr(), asm.row_idx(), vals, x, &mut ax).unwrap();
    let mut abs_row = vec![0.0; n];
    let ones: Vec<f64> = vec![1.0; n];
    let absvals: Vec<f64> = vals.iter().map(|v| v.abs()).collect();
    sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &absvals, &ones, &mut abs_row).unwrap();
    let norm_a = abs_row.iter().fold(0.0f64, |m, &v| m.max(v));
    let r = ax
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    let nx = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let nb = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    r / (norm_a * nx + nb)
}

pub fn random_vec(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.sym()).collect()
}
