//! Assembly maps and sparse types against dense references, and one test per typed error.

mod common;

use common::*;
use faer::Mat;
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{CooPattern, CscMatrix, CscPattern, KktBuilder, LinalgError, SourceId};

/// Dense lower-triangle reference from an assembled CSC.
fn csc_to_dense(n: usize, col_ptr: &[usize], row_idx: &[usize], vals: &[f64]) -> Mat<f64> {
    let mut a = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        for k in col_ptr[j]..col_ptr[j + 1] {
            assert!(row_idx[k] >= j, "upper-triangle entry in lower CSC");
            a[(row_idx[k], j)] += vals[k];
        }
    }
    a
}

#[test]
fn kkt_assembly_matches_dense_reference() {
    let mut rng = Rng::new(11);
    let (n, m) = (40, 15);
    // Hessian: lower and upper entries mixed, with duplicates.
    let (mut hr, mut hc) = (vec![], vec![]);
    for _ in 0..120 {
        hr.push(rng.below(n));
        hc.push(rng.below(n));
    }
    hr.extend([3, 3, 3]);
    hc.extend([5, 5, 3]);
    // Jacobian m×n with duplicates.
    let (mut jr, mut jc) = (vec![], vec![]);
    for _ in 0..60 {
        jr.push(rng.below(m));
        jc.push(rng.below(n));
    }
    jr.extend([2, 2]);
    jc.extend([7, 7]);
    let mut b = KktBuilder::new(n + m);
    let h_id = b.block(&hr, &hc, 0, 0).unwrap();
    let j_id = b.block(&jr, &jc, n, 0).unwrap();
    let sx_id = b.diagonal(0, n).unwrap();
    let dc_id = b.diagonal(n, m).unwrap();
    assert_eq!(
        (h_id, j_id, sx_id, dc_id),
        (SourceId(0), SourceId(1), SourceId(2), SourceId(3))
    );
    let asm = b.build();
    let hv = random_vec(&mut rng, hr.len());
    let jv = random_vec(&mut rng, jr.len());
    let sx: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
    let dc: Vec<f64> = (0..m).map(|_| -rng.uniform()).collect();
    let mut out = vec![f64::NAN; asm.nnz()];
    asm.assemble(&[&hv, &jv, &sx, &dc], &mut out).unwrap();

    // Dense reference (lower triangle).
    let mut dense = Mat::<f64>::zeros(n + m, n + m);
    for k in 0..hr.len() {
        let (i, j) = (hr[k].max(hc[k]), hr[k].min(hc[k]));
        dense[(i, j)] += hv[k];
    }
    for k in 0..jr.len() {
        dense[(n + jr[k], jc[k])] += jv[k];
    }
    for i in 0..n {
        dense[(i, i)] += sx[i];
    }
    for i in 0..m {
        dense[(n + i, n + i)] += dc[i];
    }
    let got = csc_to_dense(n + m, asm.col_ptr(), asm.row_idx(), &out);
    for i in 0..n + m {
        for j in 0..n + m {
            assert!(
                (got[(i, j)] - dense[(i, j)]).abs() < 1e-14,
                "entry ({i}, {j})"
            );
        }
    }
    // Structure: sorted rows, diagonal first in every column.
    for j in 0..n + m {
        let col = &asm.row_idx()[asm.col_ptr()[j]..asm.col_ptr()[j + 1]];
        assert_eq!(col[0], j);
        assert!(col.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(asm.diag_positions()[j], asm.col_ptr()[j]);
    }
    // Refill with new values reuses the map.
    let hv2: Vec<f64> = hv.iter().map(|v| 2.0 * v).collect();
    asm.assemble(&[&hv2, &jv, &sx, &dc], &mut out).unwrap();
    let got2 = csc_to_dense(n + m, asm.col_ptr(), asm.row_idx(), &out);
    for k in 0..hr.len() {
        let (i, j) = (hr[k].max(hc[k]), hr[k].min(hc[k]));
        dense[(i, j)] += hv[k];
    }
    for i in 0..n + m {
        for j in 0..n + m {
            assert!(
                (got2[(i, j)] - dense[(i, j)]).abs() < 1e-14,
                "refill entry ({i}, {j})"
            );
        }
    }
}

#[test]
fn diagonal_always_present_even_when_untouched() {
    let mut b = KktBuilder::new(4);
    b.block(&[3], &[0], 0, 0).unwrap();
    let asm = b.build();
    assert_eq!(asm.nnz(), 5);
    let mut out = vec![1.0; 5];
    asm.assemble(&[&[2.5]], &mut out).unwrap();
    assert_eq!(asm.col_ptr(), &[0, 2, 3, 4, 5]);
    assert_eq!(asm.row_idx(), &[0, 3, 1, 2, 3]);
    assert_eq!(out, vec![0.0, 2.5, 0.0, 0.0, 0.0]);
}

#[test]
fn coo_duplicates_are_summed_in_csc() {
    let coo = CooPattern::new(3, 2, vec![0, 2, 0, 1, 0], vec![0, 1, 0, 1, 0]).unwrap();
    let map = coo.to_csc();
    assert_eq!(map.pattern().col_ptr(), &[0, 1, 3]);
    assert_eq!(map.pattern().row_idx(), &[0, 1, 2]);
    let mut out = vec![0.0; 3];
    map.scatter(&[1.0, 2.0, 10.0, 3.0, 100.0], &mut out)
        .unwrap();
    assert_eq!(out, vec![111.0, 3.0, 2.0]);
    let m = CscMatrix::new(map.pattern().clone(), out).unwrap();
    let mut y = vec![0.0; 3];
    m.matvec(&[1.0, 2.0], &mut y).unwrap();
    assert_eq!(y, vec![111.0, 6.0, 4.0]);
}

#[test]
fn sym_matvec_matches_dense() {
    let mut rng = Rng::new(12);
    let a = random_sym(&mut rng, 30, 3, |j| j as f64);
    let (asm, vals) = a.to_csc();
    let x = random_vec(&mut rng, 30);
    let mut y = vec![0.0; 30];
    sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, &x, &mut y).unwrap();
    let d = a.dense();
    for i in 0..30 {
        let r: f64 = (0..30).map(|j| d[(i, j)] * x[j]).sum();
        assert!((r - y[i]).abs() < 1e-12);
    }
}

// ---- one test per typed error ----

#[test]
fn error_block_index_out_of_range() {
    let mut b = KktBuilder::new(5);
    let e = b.block(&[0, 4], &[0, 2], 1, 0).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::IndexOutOfRange {
                row: 5,
                col: 2,
                nrows: 5,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("source 0"), "{e}");
    assert_eq!(b.n_sources(), 0, "failed block must not register a source");
}

#[test]
fn error_block_mismatched_lengths() {
    let mut b = KktBuilder::new(5);
    let e = b.block(&[0, 1], &[0], 0, 0).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::LengthMismatch {
                expected: 2,
                got: 1,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn error_diagonal_out_of_range() {
    let mut b = KktBuilder::new(5);
    let e = b.diagonal(3, 3).unwrap_err();
    assert!(
        matches!(e, LinalgError::IndexOutOfRange { row: 5, .. }),
        "{e}"
    );
}

#[test]
fn error_assemble_wrong_source_count() {
    let mut b = KktBuilder::new(3);
    b.diagonal(0, 3).unwrap();
    let asm = b.build();
    let mut out = vec![0.0; asm.nnz()];
    let e = asm.assemble(&[], &mut out).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::LengthMismatch {
                expected: 1,
                got: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn error_assemble_wrong_source_length() {
    let mut b = KktBuilder::new(3);
    b.diagonal(0, 3).unwrap();
    let asm = b.build();
    let mut out = vec![0.0; asm.nnz()];
    let e = asm.assemble(&[&[1.0, 2.0]], &mut out).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::LengthMismatch {
                expected: 3,
                got: 2,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("source 0"), "{e}");
}

#[test]
fn error_assemble_wrong_out_length() {
    let mut b = KktBuilder::new(3);
    b.diagonal(0, 3).unwrap();
    let asm = b.build();
    let mut out = vec![0.0; 2];
    let e = asm.assemble(&[&[1.0, 2.0, 3.0]], &mut out).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::LengthMismatch {
                expected: 3,
                got: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn error_coo_index_out_of_range() {
    let e = CooPattern::new(2, 3, vec![0, 2], vec![0, 0]).unwrap_err();
    assert!(
        matches!(e, LinalgError::IndexOutOfRange { row: 2, col: 0, .. }),
        "{e}"
    );
}

#[test]
fn error_coo_mismatched_lengths() {
    let e = CooPattern::new(2, 3, vec![0, 1], vec![0]).unwrap_err();
    assert!(matches!(e, LinalgError::LengthMismatch { .. }), "{e}");
}

#[test]
fn error_csc_unsorted_rows() {
    let e = CscPattern::new(3, 1, vec![0, 2], vec![2, 1]).unwrap_err();
    assert!(
        matches!(e, LinalgError::InvalidPattern { col: 0, .. }),
        "{e}"
    );
}

#[test]
fn error_csc_decreasing_col_ptr() {
    let e = CscPattern::new(3, 2, vec![0, 2, 1], vec![0, 1]).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::InvalidPattern { col: 1, .. } | LinalgError::LengthMismatch { .. }
        ),
        "{e}"
    );
}

#[test]
fn error_csc_row_out_of_range() {
    let e = CscPattern::new(2, 1, vec![0, 1], vec![2]).unwrap_err();
    assert!(
        matches!(e, LinalgError::IndexOutOfRange { row: 2, .. }),
        "{e}"
    );
}

#[test]
fn error_csc_values_length() {
    let p = CscPattern::new(2, 1, vec![0, 1], vec![1]).unwrap();
    let e = CscMatrix::new(p, vec![1.0, 2.0]).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::LengthMismatch {
                expected: 1,
                got: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn error_coo_scatter_length() {
    let coo = CooPattern::new(2, 2, vec![0, 1], vec![0, 1]).unwrap();
    let map = coo.to_csc();
    let mut out = vec![0.0; 2];
    let e = map.scatter(&[1.0], &mut out).unwrap_err();
    assert!(
        matches!(
            e,
            LinalgError::LengthMismatch {
                expected: 2,
                got: 1,
                ..
            }
        ),
        "{e}"
    );
}
