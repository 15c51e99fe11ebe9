//! After analysis, numeric refills, factorizations, solves and refinement allocate nothing
//! (Sequential parallelism; allocations counted on the calling thread).

mod common;

use allocation_counter::measure;
use common::*;
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    CondensedKkt, FactorStatus, FaerLblt, FaerLdlt, FaerLlt, FillOrdering, KktBuilder,
    MultifrontalLdlt, RefineOptions, RefineWork, SymmetricSolver, iterative_refinement,
};

fn assert_no_alloc(name: &str, f: impl FnOnce()) {
    // The counter is live in this binary (otherwise the checks below would be vacuous).
    let probe = measure(|| {
        std::hint::black_box(vec![1u8; 16]);
    });
    assert!(probe.count_total > 0, "allocation counter inactive");
    let info = measure(f);
    assert_eq!(info.count_total, 0, "{name}: {info:?}");
}

#[test]
fn factorize_solve_refine_allocate_nothing() {
    let mut rng = Rng::new(51);
    // Small (simplicial) and larger (supernodal) KKT systems.
    for &(n, m) in &[(40, 15), (1500, 600)] {
        let a = random_kkt(&mut rng, n, m, 3, 1e-3);
        let (asm, vals) = a.to_csc();
        let solvers: Vec<(&str, Box<dyn SymmetricSolver>)> = vec![
            ("ldlt", Box::new(FaerLdlt::default())),
            ("lblt", Box::new(FaerLblt::default())),
            ("ldlt matched", {
                let mut s = FaerLdlt::default();
                s.set_ordering(FillOrdering::KktMatched { n_primal: n });
                Box::new(s)
            }),
            // Buffers sized by the first factorization (same delays in the second).
            ("multifrontal", {
                let mut s = MultifrontalLdlt::new();
                s.set_ordering(FillOrdering::KktMatched { n_primal: n });
                Box::new(s)
            }),
        ];
        for (name, mut s) in solvers {
            s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
            // Size the multi-rhs workspace once (the only lazily grown buffer).
            s.factorize(&vals).unwrap();
            let mut many = vec![1.0; 3 * (n + m)];
            s.solve_many_in_place(&mut many, 3).unwrap();
            let b = random_vec(&mut rng, n + m);
            let mut x = vec![0.0; n + m];
            let mut work = RefineWork::new(n + m);
            assert_no_alloc(name, || {
                assert_eq!(s.factorize(&vals).unwrap(), FactorStatus::Success);
                x.copy_from_slice(&b);
                s.solve_in_place(&mut x).unwrap();
                s.solve_many_in_place(&mut many, 3).unwrap();
                let mut mv = |x: &[f64], y: &mut [f64]| {
                    sym_lower_matvec(asm.col_ptr(), asm.row_idx(), &vals, x, y).unwrap()
                };
                let opts = RefineOptions::default();
                iterative_refinement(s.as_mut(), &mut mv, &b, &mut x, &mut work, &opts).unwrap();
            });
        }
    }
    // Cholesky on an SPD matrix.
    let a = random_spd(&mut rng, 800, 4);
    let (asm, vals) = a.to_csc();
    let mut llt = FaerLlt::default();
    llt.analyze(asm.n(), asm.col_ptr(), asm.row_idx()).unwrap();
    let mut x = vec![1.0; 800];
    assert_no_alloc("llt", || {
        assert_eq!(llt.factorize(&vals).unwrap(), FactorStatus::Success);
        llt.solve_in_place(&mut x).unwrap();
    });
}

#[test]
fn assembly_refills_allocate_nothing() {
    let mut rng = Rng::new(52);
    let (n, m) = (300, 100);
    let w = random_spd(&mut rng, n, 3);
    let (mut jr, mut jc) = (vec![], vec![]);
    for i in 0..m {
        for _ in 0..4 {
            jr.push(i);
            jc.push(rng.below(n));
        }
    }
    let jv = random_vec(&mut rng, jr.len());
    let sx = vec![1.0; n];
    let d = vec![2.0; m];
    let mut b = KktBuilder::new(n + m);
    b.block(&w.rows, &w.cols, 0, 0).unwrap();
    b.block(&jr, &jc, n, 0).unwrap();
    b.diagonal(0, n).unwrap();
    let asm = b.build();
    let mut out = vec![0.0; asm.nnz()];
    let cond = CondensedKkt::new(n, m, &w.rows, &w.cols, &jr, &jc).unwrap();
    let mut kout = vec![0.0; cond.nnz()];
    assert_no_alloc("assembly", || {
        asm.assemble(&[&w.vals, &jv, &sx], &mut out).unwrap();
        cond.assemble(&w.vals, &sx, &jv, &d, &mut kout).unwrap();
    });
}
