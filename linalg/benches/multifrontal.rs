//! Factorization benchmark of the multifrontal LDLᵀ ([`MultifrontalLdlt`]) against faer's
//! supernodal LDLᵀ ([`FaerLdlt`]) on the same KKT-matched ordering (`Auto` base method, as
//! the interior-point solver uses them), sequential.
//!
//! Input: KKT matrices as binary files (little endian): `n`, `n_primal`, `nnz` (u64),
//! `col_ptr` (`n + 1` u64), `row_idx` (`nnz` u64, lower triangle CSC), `values` (`nnz` f64).
//! Without files, a synthetic KKT matrix (2D Laplacian Hessian on a `g × g` grid with
//! `g²/4` four-variable constraints, δc = 0) is used.
//!
//! faer factorizes the matrix with its zero constraint diagonals (rows from `n_primal`)
//! replaced by −1e-8, since LDLᵀ without pivoting stops at a zero pivot.
//!
//! Usage (release): `cargo bench -p simdnlp-linalg --bench multifrontal -- [reps] [FILE]...`
//! (default 5 repetitions; `--spread=S` sets the equilibration's early-stop spread,
//! `MultifrontalLdlt::set_scaling_spread`; `--relax=COLUMNS,FRACTION` the amalgamation's
//! thresholds, `MultifrontalLdlt::set_amalgamation`). Per matrix: median wall times of one numeric
//! factorization and of one solve, in milliseconds, the mean CPU time of one factorization
//! (Linux; it does not count time lost to other processes on a busy machine), the
//! multifrontal's delayed pivots, fronts, largest front, equilibration sweeps and the
//! backward errors of both solves.

mod common;

use common::{Rng, median};
use std::time::Instant;

use simdnlp_linalg::multifrontal::Amalgamation;
use simdnlp_linalg::sparse::sym_lower_matvec;
use simdnlp_linalg::{
    FactorStatus, FaerLdlt, FillMethod, FillOrdering, MultifrontalLdlt, Parallelism,
    SymmetricSolver,
};

/// One KKT matrix: lower-triangle CSC.
struct Kkt {
    name: String,
    n: usize,
    n_primal: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
}

fn read_kkt(path: &str) -> Kkt {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut words = bytes
        .chunks_exact(8)
        .map(|c| <[u8; 8]>::try_from(c).expect("8 bytes"));
    let mut next_u = || u64::from_le_bytes(words.next().expect("truncated file")) as usize;
    let (n, n_primal, nnz) = (next_u(), next_u(), next_u());
    let col_ptr: Vec<usize> = (0..=n).map(|_| next_u()).collect();
    let row_idx: Vec<usize> = (0..nnz).map(|_| next_u()).collect();
    let values = bytes[8 * (3 + n + 1 + nnz)..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    Kkt {
        name: path.to_string(),
        n,
        n_primal,
        col_ptr,
        row_idx,
        values,
    }
}

/// Synthetic KKT `[[H + Σ, Jᵀ], [J, 0]]` on a `g × g` grid (lower-triangle CSC).
fn synthetic(g: usize) -> Kkt {
    let mut rng = Rng(7);
    let n_primal = g * g;
    let m = n_primal / 4;
    let n = n_primal + m;
    let mut cols: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for i in 0..g {
        for j in 0..g {
            let k = i * g + j;
            cols[k].push((k, 4.0 + rng.next()));
            if i + 1 < g {
                cols[k].push((k + g, -1.0));
            }
            if j + 1 < g {
                cols[k].push((k + 1, -1.0));
            }
        }
    }
    for c in 0..m {
        let base = (4 * c) % n_primal;
        for t in 0..4 {
            cols[(base + t * 7) % n_primal].push((n_primal + c, 1.0 + rng.next()));
        }
        cols[n_primal + c].push((n_primal + c, 0.0));
    }
    let mut col_ptr = vec![0];
    let (mut row_idx, mut values) = (Vec::new(), Vec::new());
    for col in &mut cols {
        col.sort_by_key(|e| e.0);
        col.dedup_by_key(|e| e.0);
        for &(i, v) in col.iter() {
            row_idx.push(i);
            values.push(v);
        }
        col_ptr.push(row_idx.len());
    }
    Kkt {
        name: format!("synthetic grid {g}"),
        n,
        n_primal,
        col_ptr,
        row_idx,
        values,
    }
}

/// CPU time of this thread in milliseconds (user + system, from `/proc/thread-self/stat`,
/// in clock ticks of 10 ms; NaN where that file is missing): unlike wall time, it does not
/// count the time other processes hold the cores.
fn thread_cpu_ms() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else {
        return f64::NAN;
    };
    // Fields after the command name (which is in parentheses): utime and stime are the
    // 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(u), Some(s)) => (u + s) * 10.0,
        _ => f64::NAN,
    }
}

/// Times of one solver on one matrix (milliseconds).
struct Timing {
    /// Median wall time of one factorization.
    factorize: f64,
    /// Mean CPU time of one factorization (10 ms clock ticks summed over the repetitions).
    factorize_cpu: f64,
    /// Median wall time of one solve.
    solve: f64,
    /// Backward error of the last solve (NaN when the factorization is not a success).
    error: f64,
}

/// Times `reps` factorizations and `reps` solves of `solver` on `kkt`.
fn time_solver(solver: &mut dyn SymmetricSolver, kkt: &Kkt, reps: usize) -> Timing {
    solver
        .analyze(kkt.n, &kkt.col_ptr, &kkt.row_idx)
        .expect("analyze");
    let mut fact = Vec::new();
    let mut status = FactorStatus::Success;
    let cpu0 = thread_cpu_ms();
    for _ in 0..reps {
        let t = Instant::now();
        status = solver.factorize(&kkt.values).expect("factorize");
        fact.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let factorize_cpu = (thread_cpu_ms() - cpu0) / reps as f64;
    if status != FactorStatus::Success {
        println!("  {}: {status:?}", kkt.name);
        return Timing {
            factorize: median(fact),
            factorize_cpu,
            solve: f64::NAN,
            error: f64::NAN,
        };
    }
    let b: Vec<f64> = (0..kkt.n).map(|i| 1.0 + (i % 7) as f64).collect();
    let mut x = b.clone();
    let mut solve = Vec::new();
    for _ in 0..reps {
        x.copy_from_slice(&b);
        let t = Instant::now();
        solver.solve_in_place(&mut x).expect("solve");
        solve.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mut ax = vec![0.0; kkt.n];
    sym_lower_matvec(&kkt.col_ptr, &kkt.row_idx, &kkt.values, &x, &mut ax).expect("matvec");
    let norm = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let res: Vec<f64> = ax.iter().zip(&b).map(|(a, b)| a - b).collect();
    let err = norm(&res) / norm(&b);
    Timing {
        factorize: median(fact),
        factorize_cpu,
        solve: median(solve),
        error: err,
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    // `--spread=S`: the equilibration's early-stop spread (default the solver's).
    let spread: Option<f64> = std::env::args().find_map(|a| {
        a.strip_prefix("--spread=")
            .map(|s| s.parse().expect("--spread=S"))
    });
    // `--relax=COLUMNS,FRACTION`: the amalgamation thresholds (default the solver's).
    let relax: Option<Amalgamation> = std::env::args().find_map(|a| {
        a.strip_prefix("--relax=").map(|s| {
            let (c, f) = s.split_once(',').expect("--relax=COLUMNS,FRACTION");
            Amalgamation {
                always_columns: c.parse().expect("--relax columns"),
                zero_fraction: f.parse().expect("--relax fraction"),
            }
        })
    });
    let reps = args.first().and_then(|a| a.parse().ok()).unwrap_or(5usize);
    let files = args.iter().skip_while(|a| a.parse::<usize>().is_ok());
    let mut kkts: Vec<Kkt> = files.map(|f| read_kkt(f)).collect();
    if kkts.is_empty() {
        kkts.push(synthetic(200));
    }
    println!(
        "{:<40} {:>8} {:>10} {:>10} {:>6} {:>13} {:>6} {:>10} {:>9} {:>7} {:>9} {:>6} {:>9} {:>9}",
        "matrix",
        "n",
        "faer ms",
        "mf ms",
        "ratio",
        "cpu faer/mf",
        "ratio",
        "solve f/mf",
        "delayed",
        "fronts",
        "front",
        "sweeps",
        "err faer",
        "err mf"
    );
    for kkt in &kkts {
        let ord = FillOrdering::kkt_matched(kkt.n_primal, FillMethod::Auto);
        // LDLᵀ without pivoting stops at the first zero pivot: faer factorizes the matrix
        // with zero constraint diagonals replaced by −1e-8 (the interior-point solver's
        // δc), a complete factorization of the same pattern.
        let mut regularized = Kkt {
            name: kkt.name.clone(),
            n: kkt.n,
            n_primal: kkt.n_primal,
            col_ptr: kkt.col_ptr.clone(),
            row_idx: kkt.row_idx.clone(),
            values: kkt.values.clone(),
        };
        for j in kkt.n_primal..kkt.n {
            for e in kkt.col_ptr[j]..kkt.col_ptr[j + 1] {
                if kkt.row_idx[e] == j && kkt.values[e] == 0.0 {
                    regularized.values[e] = -1e-8;
                }
            }
        }
        let mut faer = FaerLdlt::new(Parallelism::Sequential);
        faer.set_ordering(ord);
        let ft = time_solver(&mut faer, &regularized, reps);
        let mut mf = MultifrontalLdlt::new();
        mf.set_ordering(ord);
        if let Some(spread) = spread {
            mf.set_scaling_spread(spread).expect("spread");
        }
        if let Some(relax) = relax {
            mf.set_amalgamation(relax).expect("relax");
        }
        let mt = time_solver(&mut mf, kkt, reps);
        println!(
            "{:<40} {:>8} {:>10.2} {:>10.2} {:>6.2} {:>6.1}/{:<6.1} {:>6.2} {:>4.2}/{:<5.2} {:>9} {:>7} {:>9} {:>6} {:>9.1e} {:>9.1e}",
            kkt.name,
            kkt.n,
            ft.factorize,
            mt.factorize,
            mt.factorize / ft.factorize,
            ft.factorize_cpu,
            mt.factorize_cpu,
            mt.factorize_cpu / ft.factorize_cpu,
            ft.solve,
            mt.solve,
            mf.delayed_pivots(),
            mf.front_count(),
            mf.largest_front(),
            mf.scaling_sweeps_used(),
            ft.error,
            mt.error
        );
    }
}
