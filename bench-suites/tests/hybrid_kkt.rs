//! `kkt = hybrid` on the bundled PGLIB-OPF cases case5_pjm and case14_ieee: the same
//! optimum as the augmented form (objective within 1e-8 relative, `x` within 1e-6), with
//! the equality rows (power balance, reference angle) solved by conjugate gradients on their
//! Schur complement.
#![cfg(feature = "solver")]

use simdnlp_bench::opf::{OpfData, bundled_pglib_dir, model::acopf};
use simdnlp_solver::{KktKind, Options, PrintLevel, Status, solve};

#[test]
fn hybrid_opf_agrees_with_augmented() {
    for case in ["pglib_opf_case5_pjm", "pglib_opf_case14_ieee"] {
        let path = bundled_pglib_dir().join(format!("{case}.m"));
        let m = acopf(&OpfData::read(path).unwrap()).unwrap();
        let opts = |kkt| Options {
            kkt,
            print_level: PrintLevel::None,
            ..Options::default()
        };
        let a = solve(&m, &opts(KktKind::Augmented)).expect("augmented");
        let h = solve(&m, &opts(KktKind::Hybrid)).expect("hybrid");
        println!(
            "{case}: augmented {} iters f {:.10e}, hybrid {} iters f {:.10e}, CG {}",
            a.iterations, a.objective, h.iterations, h.objective, h.counts.cg_iterations
        );
        assert_eq!(a.status, Status::SolveSucceeded, "{case}");
        assert_eq!(h.status, Status::SolveSucceeded, "{case}");
        assert!(
            (a.objective - h.objective).abs() <= 1e-8 * a.objective.abs(),
            "{case}"
        );
        for (xa, xh) in a.x.iter().zip(&h.x) {
            assert!(
                (xa - xh).abs() <= 1e-6 * xa.abs().max(1.0),
                "{case}: {xa} vs {xh}"
            );
        }
        assert!(h.counts.cg_iterations > 0, "{case}");
    }
}
