//! Condensed KKT `W + Σx + Jᵀ D J` against the dense product, plus typed errors.

mod common;

use common::*;
use faer::Mat;
use simdnlp_linalg::{CondensedKkt, FactorStatus, FaerLlt, Inertia, LinalgError, SymmetricSolver};

struct Problem {
    n: usize,
    m: usize,
    hr: Vec<usize>,
    hc: Vec<usize>,
    hv: Vec<f64>,
    jr: Vec<usize>,
    jc: Vec<usize>,
    jv: Vec<f64>,
    sx: Vec<f64>,
    d: Vec<f64>,
}

fn random_problem(rng: &mut Rng, n: usize, m: usize, per_row: usize) -> Problem {
    let (mut hr, mut hc) = (vec![], vec![]);
    for i in 0..n {
        hr.push(i);
        hc.push(i);
        let j = rng.below(n);
        // Mixed triangles.
        hr.push(i);
        hc.push(j);
    }
    hr.push(1 % n);
    hc.push(0); // duplicate-prone entry
    hr.push(0);
    hc.push(1 % n);
    let (mut jr, mut jc) = (vec![], vec![]);
    for i in 0..m {
        for _ in 0..per_row {
            jr.push(i);
            jc.push(rng.below(n));
        }
    }
    // Explicit duplicates within a Jacobian row.
    if m > 0 {
        jr.extend([0, 0]);
        jc.extend([2 % n, 2 % n]);
    }
    let hv = random_vec(rng, hr.len());
    let jv = random_vec(rng, jr.len());
    let sx = (0..n).map(|_| rng.uniform()).collect();
    let d = (0..m).map(|_| rng.uniform() * 3.0).collect();
    Problem {
        n,
        m,
        hr,
        hc,
        hv,
        jr,
        jc,
        jv,
        sx,
        d,
    }
}

/// Dense symmetric reference of W + Σx + Jᵀ D J.
fn dense_k(p: &Problem) -> Mat<f64> {
    let mut k = Mat::<f64>::zeros(p.n, p.n);
    for e in 0..p.hr.len() {
        let (i, j) = (p.hr[e], p.hc[e]);
        k[(i, j)] += p.hv[e];
        if i != j {
            k[(j, i)] += p.hv[e];
        }
    }
    for i in 0..p.n {
        k[(i, i)] += p.sx[i];
    }
    let mut jd = Mat::<f64>::zeros(p.m, p.n);
    for e in 0..p.jr.len() {
        jd[(p.jr[e], p.jc[e])] += p.jv[e];
    }
    for r in 0..p.m {
        for a in 0..p.n {
            for b in 0..p.n {
                k[(a, b)] += p.d[r] * jd[(r, a)] * jd[(r, b)];
            }
        }
    }
    k
}

#[test]
fn condensed_equals_dense_product() {
    let mut rng = Rng::new(21);
    for &(n, m, per_row) in &[(1, 1, 1), (8, 3, 2), (60, 40, 4), (150, 90, 5)] {
        let p = random_problem(&mut rng, n, m, per_row);
        let c = CondensedKkt::new(n, m, &p.hr, &p.hc, &p.jr, &p.jc).unwrap();
        let mut out = vec![f64::NAN; c.nnz()];
        c.assemble(&p.hv, &p.sx, &p.jv, &p.d, &mut out).unwrap();
        let k = dense_k(&p);
        let mut got = Mat::<f64>::zeros(n, n);
        for j in 0..n {
            let col = c.col_ptr()[j]..c.col_ptr()[j + 1];
            assert_eq!(c.row_idx()[col.start], j, "diagonal first");
            assert_eq!(c.diag_positions()[j], col.start);
            for pos in col {
                let i = c.row_idx()[pos];
                assert!(i >= j);
                got[(i, j)] += out[pos];
            }
        }
        for j in 0..n {
            for i in j..n {
                let diff = (got[(i, j)] - k[(i, j)]).abs();
                assert!(diff < 1e-12 * (1.0 + k[(i, j)].abs()), "({i}, {j}) n={n}");
            }
        }
        // Structure is minimal: every stored entry is structurally reachable (no entry
        // beyond the union of W, diag and J^T J patterns), so nnz <= that union.
        assert!(c.nnz() <= n * (n + 1) / 2);
    }
}

#[test]
fn condensed_spd_factorizes_with_cholesky() {
    // W SPD-ish (diag dominant), D > 0: K is SPD, Cholesky succeeds with inertia (n, 0, 0).
    let mut rng = Rng::new(22);
    let (n, m) = (300, 200);
    let w = random_spd(&mut rng, n, 2);
    let (mut jr, mut jc) = (vec![], vec![]);
    for i in 0..m {
        for _ in 0..3 {
            jr.push(i);
            jc.push(rng.below(n));
        }
    }
    let jv = random_vec(&mut rng, jr.len());
    let d: Vec<f64> = (0..m).map(|_| 1.0 + rng.uniform()).collect();
    let sx: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
    let c = CondensedKkt::new(n, m, &w.rows, &w.cols, &jr, &jc).unwrap();
    let mut vals = vec![0.0; c.nnz()];
    c.assemble(&w.vals, &sx, &jv, &d, &mut vals).unwrap();
    let mut llt = FaerLlt::default();
    llt.analyze(n, c.col_ptr(), c.row_idx()).unwrap();
    assert_eq!(llt.factorize(&vals).unwrap(), FactorStatus::Success);
    assert_eq!(
        llt.inertia(),
        Some(Inertia {
            positive: n,
            negative: 0,
            zero: 0
        })
    );
    // O(nnz) refill with other D reuses the plan.
    let d2: Vec<f64> = d.iter().map(|x| 10.0 * x).collect();
    c.assemble(&w.vals, &sx, &jv, &d2, &mut vals).unwrap();
    assert_eq!(llt.factorize(&vals).unwrap(), FactorStatus::Success);
}

#[test]
fn error_condensed_hessian_out_of_range() {
    let e = CondensedKkt::new(3, 1, &[3], &[0], &[], &[]).unwrap_err();
    assert!(
        matches!(e, LinalgError::IndexOutOfRange { row: 3, col: 0, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("Hessian"));
}

#[test]
fn error_condensed_jacobian_out_of_range() {
    let e = CondensedKkt::new(3, 2, &[], &[], &[2], &[0]).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::IndexOutOfRange {
                row: 2,
                nrows: 2,
                ncols: 3,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("Jacobian"));
}

#[test]
fn error_condensed_mismatched_lengths() {
    let e = CondensedKkt::new(3, 2, &[0, 1], &[0], &[], &[]).unwrap_err();
    assert!(matches!(e, LinalgError::LengthMismatch { .. }), "{e}");
    let e = CondensedKkt::new(3, 2, &[], &[], &[0], &[]).unwrap_err();
    assert!(matches!(e, LinalgError::LengthMismatch { .. }), "{e}");
}

#[test]
fn error_condensed_assemble_lengths() {
    let c = CondensedKkt::new(2, 1, &[0], &[0], &[0], &[1]).unwrap();
    let mut out = vec![0.0; c.nnz()];
    let ok = c.assemble(&[1.0], &[1.0, 1.0], &[1.0], &[1.0], &mut out);
    assert!(ok.is_ok());
    let bad = [
        c.assemble(&[], &[1.0, 1.0], &[1.0], &[1.0], &mut out),
        c.assemble(&[1.0], &[1.0], &[1.0], &[1.0], &mut out),
        c.assemble(&[1.0], &[1.0, 1.0], &[], &[1.0], &mut out),
        c.assemble(&[1.0], &[1.0, 1.0], &[1.0], &[], &mut out),
        c.assemble(&[1.0], &[1.0, 1.0], &[1.0], &[1.0], &mut [0.0]),
    ];
    for e in bad {
        assert!(matches!(e, Err(LinalgError::LengthMismatch { .. })));
    }
}
