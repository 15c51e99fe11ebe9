//! The factorization seam over device vectors ([`DeviceFactorization`]) by a host solver
//! ([`HostFactorization`]): on the CPU device it gives the host solver's solution bitwise,
//! reports its status and inertia, and its misuse is a typed error.

mod common;

use common::*;
use simdnlp_device::{Cpu, Device};
use simdnlp_linalg::{
    DeviceFactorization, FactorStatus, FaerLdlt, FaerLlt, HostFactorization, Inertia,
    SymmetricSolver,
};
use std::sync::Arc;

#[test]
fn host_factorization_on_device_vectors_matches_the_host_solver() {
    let mut rng = Rng::new(7);
    let n = 40;
    let (asm, vals) = random_spd(&mut rng, n, 3).to_csc();
    let b = random_vec(&mut rng, n);
    // the host solver alone
    let mut host = FaerLlt::default();
    host.analyze(n, asm.col_ptr(), asm.row_idx()).unwrap();
    assert_eq!(host.factorize(&vals).unwrap(), FactorStatus::Success);
    let mut expected = b.clone();
    host.solve_in_place(&mut expected).unwrap();
    // the same behind the seam, values and right-hand side as device vectors
    let cpu = Arc::new(Cpu);
    let mut seam = HostFactorization::new(Arc::clone(&cpu), Box::new(FaerLlt::default()));
    seam.analyze(n, asm.col_ptr(), asm.row_idx()).unwrap();
    let values = cpu.vector_from_host(&vals).unwrap();
    assert_eq!(seam.factorize(&values).unwrap(), FactorStatus::Success);
    let mut rhs = cpu.vector_from_host(&b).unwrap();
    seam.solve_in_place(&mut rhs).unwrap();
    let mut got = vec![0.0; n];
    cpu.to_host(&rhs, &mut got).unwrap();
    assert_eq!(got, expected);
    assert!(backward_error(&asm, &vals, &got, &b) < 1e-12);
}

#[test]
fn host_factorization_reports_the_inertia_of_an_indefinite_matrix() {
    let mut rng = Rng::new(8);
    let (n, m) = (30, 10);
    let coo = random_kkt(&mut rng, n, m, 2, 1e-2);
    let expected = dense_inertia(&coo.dense(), 1e-12);
    let (asm, vals) = coo.to_csc();
    let cpu = Arc::new(Cpu);
    let mut seam = HostFactorization::new(Arc::clone(&cpu), Box::new(FaerLdlt::default()));
    seam.analyze(n + m, asm.col_ptr(), asm.row_idx()).unwrap();
    let values = cpu.vector_from_host(&vals).unwrap();
    assert_eq!(seam.factorize(&values).unwrap(), FactorStatus::Success);
    assert_eq!(seam.inertia(), Some(expected));
    assert_eq!(
        expected,
        Inertia {
            positive: n,
            negative: m,
            zero: 0
        }
    );
}

#[test]
fn host_factorization_misuse_is_a_typed_error() {
    let cpu = Arc::new(Cpu);
    let mut seam = HostFactorization::new(Arc::clone(&cpu), Box::new(FaerLlt::default()));
    // values before an analysis, and values of the wrong length after one
    let values = cpu.vector_from_host(&[1.0, 2.0]).unwrap();
    assert!(seam.factorize(&values).is_err());
    seam.analyze(1, &[0, 1], &[0]).unwrap();
    let err = seam.factorize(&values).unwrap_err();
    assert!(err.to_string().contains("values"), "{err}");
    let mut rhs = cpu.vector_from_host(&[1.0, 2.0, 3.0]).unwrap();
    assert!(seam.solve_in_place(&mut rhs).is_err());
}
