//! KKT factorization benchmark: analysis, numeric factorization and solve times of the faer
//! backends on a large KKT system, Sequential vs Rayon.
//!
//! Problem: Hessian `H` = 5-point 2D Laplacian on a `g × g` grid (plus a random diagonal
//! shift, so `H` is SPD), `Σx` a positive diagonal, and a Jacobian `J` with `m = g²/4` rows,
//! each coupling 4 neighbouring grid variables. Systems:
//! - LDLᵀ and LBLᵀ on the full KKT `[[H + Σx, Jᵀ], [J, −δc I]]` (δc = 1e-8, AMD ordering),
//! - LDLᵀ on the same KKT with δc = 0 and the KKT-matched / KKT-paired orderings, and
//!   LBLᵀ with the KKT-matched ordering,
//! - LLᵀ on the condensed SPD matrix `K = H + Σx + Jᵀ D J` (D = 100).
//!
//! Usage (release): `cargo bench -p simdnlp-linalg --bench kkt -- [grid] [reps] [threads]`
//! (defaults: grid 448 → H has ≈1.0e6 nonzeros in full symmetric storage, 3 repetitions,
//! Rayon with 2 threads). Times are medians over the repetitions, in milliseconds.

mod common;

use common::{Rng, median};
use std::time::Instant;

use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    CondensedKkt, FaerLblt, FaerLdlt, FaerLlt, FillOrdering, KktBuilder, Parallelism,
    SymmetricSolver,
};

/// Factor size (stored values of L) of a backend, for the fill column.
trait Fill: SymmetricSolver {
    fn fill(&self) -> usize;
}
impl Fill for FaerLlt {
    fn fill(&self) -> usize {
        self.factor_nnz()
    }
}
impl Fill for FaerLdlt {
    fn fill(&self) -> usize {
        self.factor_nnz()
    }
}
impl Fill for FaerLblt {
    fn fill(&self) -> usize {
        self.factor_nnz()
    }
}

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
}

fn problem(g: usize) -> Problem {
    let mut rng = Rng(42);
    let n = g * g;
    let (mut hr, mut hc, mut hv) = (vec![], vec![], vec![]);
    for i in 0..g {
        for j in 0..g {
            let k = i * g + j;
            hr.push(k);
            hc.push(k);
            hv.push(4.0 + 0.1 * rng.next());
            if i + 1 < g {
                hr.push(k + g);
                hc.push(k);
                hv.push(-1.0);
            }
            if j + 1 < g {
                hr.push(k + 1);
                hc.push(k);
                hv.push(-1.0);
            }
        }
    }
    let (mut jr, mut jc, mut jv) = (vec![], vec![], vec![]);
    let mut m = 0;
    for i in (0..g - 1).step_by(2) {
        for j in (0..g - 1).step_by(2) {
            for k in [
                i * g + j,
                i * g + j + 1,
                (i + 1) * g + j,
                (i + 1) * g + j + 1,
            ] {
                jr.push(m);
                jc.push(k);
                jv.push(0.5 + rng.next());
            }
            m += 1;
        }
    }
    let sx = (0..n).map(|_| 1e-2 * rng.next()).collect();
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
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// A symmetric matrix by its lower triangle in CSC form (`n` columns).
struct LowerCsc<'a> {
    n: usize,
    col_ptr: &'a [usize],
    row_idx: &'a [usize],
    vals: &'a [f64],
}

/// Analyze `matrix` once, factorize and solve `reps` times; prints one line.
fn run(label: &str, par_label: &str, solver: &mut dyn Fill, matrix: LowerCsc<'_>, reps: usize) {
    let LowerCsc {
        n,
        col_ptr,
        row_idx,
        vals,
    } = matrix;
    let t = Instant::now();
    solver.analyze(n, col_ptr, row_idx).expect("analyze");
    let t_an = ms(t);
    let b: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f64 / 1000.0 - 0.5)
        .collect();
    let mut x = vec![0.0; n];
    let (mut tf, mut ts) = (vec![], vec![]);
    let mut status = None;
    for _ in 0..reps {
        let t = Instant::now();
        status = Some(solver.factorize(vals).expect("factorize"));
        tf.push(ms(t));
        x.copy_from_slice(&b);
        let t = Instant::now();
        solver.solve_in_place(&mut x).expect("solve");
        ts.push(ms(t));
    }
    let mut ax = vec![0.0; n];
    sym_lower_matvec(col_ptr, row_idx, vals, &x, &mut ax).expect("matvec");
    let res = ax
        .iter()
        .zip(&b)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    // Normwise backward error ‖Ax − b‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞).
    let abs_vals: Vec<f64> = vals.iter().map(|v| v.abs()).collect();
    sym_lower_matvec(col_ptr, row_idx, &abs_vals, &vec![1.0; n], &mut ax).expect("matvec");
    let norm_a = ax.iter().fold(0.0f64, |m, v| m.max(*v));
    let amax = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let berr = res / (norm_a * amax(&x) + amax(&b));
    let inertia = solver.inertia().map_or("-".to_string(), |i| {
        format!("({}, {}, {})", i.positive, i.negative, i.zero)
    });
    println!(
        "{label:<24} {par_label:<6} n={n:<7} nnz(A)={:<8} nnz(L)={:<9} analyze={t_an:>7.1} \
         factor={:>8.1} solve={:>6.1} status={:?} inertia={inertia} berr={berr:.1e}",
        row_idx.len(),
        solver.fill(),
        median(tf),
        median(ts),
        status.expect("at least one repetition"),
    );
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .filter_map(|a| a.parse().ok())
        .collect();
    let g = args.first().copied().unwrap_or(448);
    let reps = args.get(1).copied().unwrap_or(3).max(1);
    let threads = args.get(2).copied().unwrap_or(2);
    let p = problem(g);
    let (n, m) = (p.n, p.m);
    let h_full_nnz = 2 * p.hr.len() - n;
    println!(
        "grid {g}x{g}: n = {n}, m = {m}, nnz(H) = {h_full_nnz} (full symmetric), nnz(J) = {}, \
         reps = {reps}, rayon threads = {threads}",
        p.jr.len()
    );

    // Full KKT via the assembly map.
    let t = Instant::now();
    let mut b = KktBuilder::new(n + m);
    b.block(&p.hr, &p.hc, 0, 0).expect("H");
    b.block(&p.jr, &p.jc, n, 0).expect("J");
    b.diagonal(0, n).expect("Σx");
    b.diagonal(n, m).expect("δc");
    let asm = b.build();
    let t_build = ms(t);
    let dc = vec![-1e-8; m];
    let mut kkt_vals = vec![0.0; asm.nnz()];
    let t = Instant::now();
    asm.assemble(&[&p.hv, &p.jv, &p.sx, &dc], &mut kkt_vals)
        .expect("assemble");
    let t_asm = ms(t);
    // The same KKT with δc = 0 (for the KKT-matched ordering).
    let mut kkt0_vals = vec![0.0; asm.nnz()];
    asm.assemble(&[&p.hv, &p.jv, &p.sx, &vec![0.0; m]], &mut kkt0_vals)
        .expect("assemble");
    println!(
        "KKT assembly: build map {t_build:.1} ms, numeric refill {t_asm:.2} ms, nnz(lower) = {}",
        asm.nnz()
    );

    // Condensed SPD system.
    let t = Instant::now();
    let cond = CondensedKkt::new(n, m, &p.hr, &p.hc, &p.jr, &p.jc).expect("condensed");
    let t_cond = ms(t);
    let d = vec![100.0; m];
    let mut k_vals = vec![0.0; cond.nnz()];
    let t = Instant::now();
    cond.assemble(&p.hv, &p.sx, &p.jv, &d, &mut k_vals)
        .expect("condensed assemble");
    let t_kasm = ms(t);
    println!(
        "Condensed K: symbolic {t_cond:.1} ms, numeric refill {t_kasm:.2} ms, nnz(lower) = {}",
        cond.nnz()
    );

    let condensed = || LowerCsc {
        n,
        col_ptr: cond.col_ptr(),
        row_idx: cond.row_idx(),
        vals: &k_vals,
    };
    // the KKT matrix, with δ_c > 0 or (kkt0) δ_c = 0
    let kkt = |vals| LowerCsc {
        n: n + m,
        col_ptr: asm.col_ptr(),
        row_idx: asm.row_idx(),
        vals,
    };
    for (par_label, par) in [
        ("seq", Parallelism::Sequential),
        ("rayon", Parallelism::rayon_threads(threads)),
    ] {
        // faer's threads at every size (the solvers' sequential bound off).
        let llt = &mut FaerLlt::new(par);
        llt.set_parallel_min_flops(0.0).expect("0 is a valid bound");
        run("LLT condensed", par_label, llt, condensed(), reps);
        let ldlt = &mut FaerLdlt::new(par);
        ldlt.set_parallel_min_flops(0.0)
            .expect("0 is a valid bound");
        run("LDLT kkt", par_label, ldlt, kkt(&kkt_vals), reps);
        let lblt = &mut FaerLblt::new(par);
        lblt.set_parallel_min_flops(0.0)
            .expect("0 is a valid bound");
        run("LBLT kkt", par_label, lblt, kkt(&kkt_vals), reps);
        for (label, ord) in [
            (
                "LDLT kkt dc=0 matched",
                FillOrdering::KktMatched { n_primal: n },
            ),
            (
                "LDLT kkt dc=0 paired",
                FillOrdering::KktPaired { n_primal: n },
            ),
        ] {
            let mut ldlt = FaerLdlt::new(par);
            ldlt.set_parallel_min_flops(0.0)
                .expect("0 is a valid bound");
            ldlt.set_ordering(ord);
            run(label, par_label, &mut ldlt, kkt(&kkt0_vals), reps);
        }
        let mut lblt = FaerLblt::new(par);
        lblt.set_parallel_min_flops(0.0)
            .expect("0 is a valid bound");
        lblt.set_ordering(FillOrdering::KktMatched { n_primal: n });
        let label = "LBLT kkt dc=0 matched";
        run(label, par_label, &mut lblt, kkt(&kkt0_vals), reps);
    }
}
