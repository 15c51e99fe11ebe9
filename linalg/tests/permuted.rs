//! The faer backends analyze the permuted pattern `P A Pᵀ` once and scatter the values at
//! each factorization. That must give the same factor as faer's own path (which permutes
//! the whole matrix at every numeric factorization): solutions and inertia bit for bit.

mod common;

use common::*;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::lblt::factor::LbltParams;
use faer::linalg::cholesky::ldlt::factor::{LdltParams, LdltRegularization};
use faer::linalg::cholesky::llt::factor::{LltParams, LltRegularization};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholeskyRaw, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side, Spec};
use simdnlp_linalg::faer_backend::DynamicRegularization;
use simdnlp_linalg::{FaerLblt, FaerLdlt, FaerLlt, SymAssembly, SymmetricSolver};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Method {
    Llt,
    Ldlt,
    Lblt,
}

/// Solves `A x = b` the way faer does it with the AMD ordering inside the symbolic
/// factorization (the reference); `signs` enables LDLᵀ dynamic regularization.
fn faer_reference(
    method: Method,
    asm: &SymAssembly,
    vals: &[f64],
    b: &[f64],
    signs: Option<&[i8]>,
) -> (Vec<f64>, bool) {
    let n = asm.n();
    let pattern = SymbolicSparseColMatRef::new_checked(n, n, asm.col_ptr(), None, asm.row_idx());
    let params = CholeskySymbolicParams {
        supernodal_flop_ratio_threshold: if method == Method::Lblt {
            SupernodalThreshold(-1.0)
        } else {
            SupernodalThreshold::AUTO
        },
        ..Default::default()
    };
    let symbolic =
        factorize_symbolic_cholesky(pattern, Side::Lower, SymmetricOrdering::Amd, params).unwrap();
    let supernodal = matches!(symbolic.raw(), SymbolicCholeskyRaw::Supernodal(_));
    let a = SparseColMatRef::new(pattern, vals);
    let par = Par::Seq;
    let req = StackReq::any_of(&[
        symbolic.factorize_numeric_llt_scratch::<f64>(par, Spec::<LltParams, f64>::default()),
        symbolic.factorize_numeric_ldlt_scratch::<f64>(par, Spec::<LdltParams, f64>::default()),
        symbolic.factorize_numeric_intranode_lblt_scratch::<f64>(
            par,
            Spec::<LbltParams, f64>::default(),
        ),
        symbolic.solve_in_place_scratch::<f64>(1, par),
    ]);
    let mut mem = MemBuffer::new(req);
    let mut l_values = vec![0.0; symbolic.len_val()];
    let mut x = b.to_vec();
    let rhs = MatMut::from_column_major_slice_mut(&mut x, n, 1);
    let stack = MemStack::new(&mut mem);
    match method {
        Method::Llt => {
            let f = symbolic
                .factorize_numeric_llt::<f64>(
                    &mut l_values,
                    a,
                    Side::Lower,
                    LltRegularization::default(),
                    par,
                    stack,
                    Spec::<LltParams, f64>::default(),
                )
                .unwrap();
            f.solve_in_place_with_conj(Conj::No, rhs, par, MemStack::new(&mut mem));
        }
        Method::Ldlt => {
            let reg = LdltRegularization {
                dynamic_regularization_signs: signs,
                dynamic_regularization_delta: 1e-8,
                dynamic_regularization_epsilon: 1e-12,
            };
            let reg = if signs.is_some() {
                reg
            } else {
                LdltRegularization::default()
            };
            let f = symbolic
                .factorize_numeric_ldlt::<f64>(
                    &mut l_values,
                    a,
                    Side::Lower,
                    reg,
                    par,
                    stack,
                    Spec::<LdltParams, f64>::default(),
                )
                .unwrap();
            f.solve_in_place_with_conj(Conj::No, rhs, par, MemStack::new(&mut mem));
        }
        Method::Lblt => {
            let mut subdiag = vec![0.0; n];
            let mut fwd = vec![0usize; n];
            let mut inv = vec![0usize; n];
            let f = symbolic.factorize_numeric_intranode_lblt::<f64>(
                &mut l_values,
                &mut subdiag,
                &mut fwd,
                &mut inv,
                a,
                Side::Lower,
                par,
                stack,
                Spec::<LbltParams, f64>::default(),
            );
            f.solve_in_place_with_conj(Conj::No, rhs, par, MemStack::new(&mut mem));
        }
    }
    (x, supernodal)
}

fn ours(method: Method, signs: Option<Vec<i8>>) -> Box<dyn SymmetricSolver> {
    match method {
        Method::Llt => Box::new(FaerLlt::default()),
        Method::Ldlt => {
            let mut s = FaerLdlt::default();
            if signs.is_some() {
                s.set_dynamic_regularization(Some(DynamicRegularization {
                    signs,
                    epsilon: 1e-12,
                    delta: 1e-8,
                }))
                .unwrap();
            }
            Box::new(s)
        }
        Method::Lblt => Box::new(FaerLblt::default()),
    }
}

fn assert_bitwise(what: &str, ours: &[f64], reference: &[f64]) {
    assert_eq!(ours.len(), reference.len());
    for (i, (a, b)) in ours.iter().zip(reference).enumerate() {
        assert_eq!(
            a.to_bits(),
            b.to_bits(),
            "{what}: x[{i}] = {a} vs faer's {b}"
        );
    }
}

#[test]
fn scattered_permuted_factor_matches_faer_bit_for_bit() {
    let mut rng = Rng::new(77);
    let mut seen = [false; 2];
    // Small (simplicial) and larger (supernodal) systems; SPD for LLᵀ, KKT for the others.
    for &(n, m) in &[(40, 15), (1500, 600)] {
        let spd = random_spd(&mut rng, n, 3);
        let kkt = random_kkt(&mut rng, n, m, 3, 1e-3);
        for (method, a) in [
            (Method::Llt, &spd),
            (Method::Ldlt, &kkt),
            (Method::Lblt, &kkt),
        ] {
            let (asm, vals) = a.to_csc();
            let b = random_vec(&mut rng, asm.n());
            let (reference, supernodal) = faer_reference(method, &asm, &vals, &b, None);
            if method != Method::Lblt {
                seen[usize::from(supernodal)] = true;
            }
            let mut s = ours(method, None);
            s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
            // Twice: the second factorization reuses the scattered values' storage.
            for round in 0..2 {
                s.factorize(&vals).unwrap();
                let mut x = b.clone();
                s.solve_in_place(&mut x).unwrap();
                let what = format!("{method:?} n={n} m={m} round {round}");
                assert_bitwise(&what, &x, &reference);
            }
        }
    }
    assert!(
        seen[0] && seen[1],
        "both the simplicial and supernodal paths are covered"
    );
}

#[test]
fn dynamic_regularization_signs_follow_the_permutation() {
    let mut rng = Rng::new(78);
    for &(n, m) in &[(40, 15), (1500, 600)] {
        // A zero (2,2) block: AMD eliminates some constraints first, which the signs repair.
        let kkt = random_kkt(&mut rng, n, m, 2, 0.0);
        let (asm, vals) = kkt.to_csc();
        let signs: Vec<i8> = (0..n + m).map(|i| if i < n { 1 } else { -1 }).collect();
        let b = random_vec(&mut rng, asm.n());
        let (reference, _) = faer_reference(Method::Ldlt, &asm, &vals, &b, Some(&signs));
        let mut s = ours(Method::Ldlt, Some(signs));
        s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
        s.factorize(&vals).unwrap();
        let mut x = b.clone();
        s.solve_in_place(&mut x).unwrap();
        assert_bitwise(&format!("ldlt signs n={n}"), &x, &reference);
    }
}
