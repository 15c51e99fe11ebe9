//! Fill-reducing orderings on the KKT matrices of benchmark instances: AMD against METIS
//! nested dissection (each under the KKT-matched constraint placement the solver uses)
//! and the `auto` choice between them. Per instance, ordering and thread count: `nnz(L)`,
//! predicted factorization flops, analysis time, numeric LDLᵀ factorization time and one
//! triangular solve (best of `--repeat` runs, default 3).
//!
//! ```text
//! cargo run --release -p simdnlp-bench --example kkt_ordering -- \
//!     [--pglib-dir DIR] [--repeat K] [--orderings amd,nd,auto] [--threads 1,2] \
//!     cops/bearing:320x320 opf/case9591_goc lv/rosenbrock:200000
//! ```
//!
//! `--zero-diagonal` flags the variables without a Hessian diagonal entry and without
//! bounds as the solver does, so that the KKT-matched ordering places each after a
//! constraint that gives it a nonzero pivot (`FaerLdlt::set_zero_diagonal`).
//!
//! `--threads 1,2` times faer's parallelism (`Par::rayon(k)`, `1` sequential, `0` rayon's
//! pool size; the solver's sequential bound `DEFAULT_PARALLEL_MIN_FLOPS` is off here) against
//! the sequential factorization: one solver per thread count, analyzed
//! once, and the factorizations (then the solves) run interleaved, `1, 2, 1, 2, ...`, so
//! that a load change on the machine hits both alike; each is the best of `--repeat`.
//!
//! The matrix is the augmented system of the solver's first iteration:
//! `[[H + Σ, Jᵀ], [J, −δc I]]` over the variables, one slack per inequality row and the
//! constraint rows, with `H` the Lagrangian Hessian at `x0` (multipliers 1), `Σ` a
//! diagonal that makes `H + Σ` diagonally dominant and `δc = 1e-8`: the values only
//! matter for the numeric factorization to finish, its cost depends on the pattern.

use simdnlp_bench::harness::{InstanceSpec, ModelSourceSel, Registry, SizeClass, Suite};
use simdnlp_linalg::{
    FaerLdlt, FillMethod, FillOrdering, KktBuilder, Parallelism, SymmetricSolver,
};
use simdnlp_modeling::NlpModel;
use std::path::PathBuf;
use std::time::Instant;

/// Seconds of one call of `f` and its result.
fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let r = f();
    (t.elapsed().as_secs_f64(), r)
}

/// The parallelism of `threads` threads (`1`: sequential).
fn parallelism(threads: usize) -> Parallelism {
    if threads == 1 {
        Parallelism::Sequential
    } else {
        Parallelism::rayon_threads(threads)
    }
}

/// A comma-separated list (`"1,2"`).
fn parse_list<T: std::str::FromStr>(s: &str) -> Result<Vec<T>, T::Err> {
    s.split(',').map(str::parse).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut pglib, mut repeat, mut specs) = (None, 3usize, Vec::new());
    let mut threads = vec![1usize];
    let mut zero_diagonal = false;
    let mut orderings = vec![
        ("amd", FillMethod::Amd),
        ("nd", FillMethod::NestedDissection),
        ("auto", FillMethod::Auto),
    ];
    while let Some(a) = args.next() {
        match a.as_str() {
            "--pglib-dir" => pglib = Some(PathBuf::from(args.next().ok_or("--pglib-dir DIR")?)),
            "--zero-diagonal" => zero_diagonal = true,
            "--repeat" => repeat = args.next().ok_or("--repeat K")?.parse()?,
            "--threads" => threads = parse_list(&args.next().ok_or("--threads K,K")?)?,
            "--orderings" => {
                let list: Vec<String> = parse_list(&args.next().ok_or("--orderings LIST")?)?;
                orderings.retain(|(name, _)| list.iter().any(|l| l == name));
                if orderings.len() != list.len() {
                    return Err("--orderings takes amd, nd and auto".into());
                }
            }
            _ => specs.push(a),
        }
    }
    if specs.is_empty() || threads.is_empty() {
        return Err(
            "usage: kkt_ordering [--pglib-dir DIR] [--repeat K] [--orderings LIST] \
             [--threads K,K] [--zero-diagonal] SUITE/NAME[:SIZE]..."
                .into(),
        );
    }
    let repeat = repeat.max(1);
    let reg = Registry::with_defaults(pglib);
    println!(
        "{:<22} {:>5} {:>3} {:>9} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "instance", "ord", "thr", "n", "nnz(L)", "Gflop", "analyze", "factor", "solve", "chosen"
    );
    for spec in specs {
        let (suite, inst) = spec.split_once('/').ok_or("expected SUITE/NAME[:SIZE]")?;
        let suite = match suite {
            "lv" => Suite::Lv,
            "cops" => Suite::Cops,
            "opf" => Suite::Opf,
            other => return Err(format!("unknown suite {other}").into()),
        };
        let inst_spec: InstanceSpec = inst.parse()?;
        let sizes = [SizeClass::Small, SizeClass::Medium, SizeClass::Large];
        let instances = reg.select(suite, &sizes, &[inst_spec], ModelSourceSel::Auto)?;
        let Some(instance) = instances.first() else {
            return Err(format!("no instance {spec}").into());
        };
        let model = instance.build()?;
        let meta = model.meta();
        let (n, m) = (meta.nvar, meta.ncon);
        let slack_rows: Vec<usize> = (0..m).filter(|&j| meta.lcon[j] < meta.ucon[j]).collect();
        let ns = slack_rows.len();
        let nw = n + ns;
        let (mut jr, mut jc) = (vec![0; meta.nnzj], vec![0; meta.nnzj]);
        model.jac_structure(&mut jr, &mut jc);
        let (mut hr, mut hc) = (vec![0; meta.nnzh], vec![0; meta.nnzh]);
        model.hess_structure(&mut hr, &mut hc);
        let mut jv = vec![0.0; meta.nnzj];
        model.jac_coord(&meta.x0, &mut jv);
        let mut hv = vec![0.0; meta.nnzh];
        model.hess_coord(&meta.x0, &vec![1.0; m], 1.0, &mut hv);
        let mut sigma = vec![1.0; nw];
        for k in 0..meta.nnzh {
            if hr[k] != hc[k] {
                sigma[hr[k]] += hv[k].abs();
                sigma[hc[k]] += hv[k].abs();
            } else {
                sigma[hr[k]] += hv[k].abs();
            }
        }
        let mut b = KktBuilder::new(nw + m);
        b.block(&hr, &hc, 0, 0)?;
        b.block(&jr, &jc, nw, 0)?;
        let scols: Vec<usize> = (0..ns).collect();
        b.block(&slack_rows, &scols, nw, n)?;
        b.diagonal(0, nw)?;
        b.diagonal(nw, m)?;
        let asm = b.build();
        let (minus_ones, dc) = (vec![-1.0; ns], vec![-1e-8; m]);
        let mut vals = vec![0.0; asm.nnz()];
        asm.assemble(&[&hv, &jv, &minus_ones, &sigma, &dc], &mut vals)?;
        let label = instance.label();
        // Primal indices without a Hessian diagonal entry and without bounds (a slack of a
        // row free on both sides too): what the solver flags as structurally zero.
        let mut zero = Vec::new();
        if zero_diagonal {
            let mut curved = vec![false; nw];
            for k in 0..meta.nnzh {
                if hr[k] == hc[k] {
                    curved[hr[k]] = true;
                }
            }
            let free = |l: f64, u: f64| !l.is_finite() && !u.is_finite();
            zero = (0..nw)
                .filter(|&i| {
                    !curved[i]
                        && if i < n {
                            free(meta.lvar[i], meta.uvar[i])
                        } else {
                            let j = slack_rows[i - n];
                            free(meta.lcon[j], meta.ucon[j])
                        }
                })
                .collect();
            println!("{label}: {} zero-diagonal variables", zero.len());
        }
        for &(name, method) in &orderings {
            // One solver per thread count, each analyzed once.
            let mut solvers = Vec::with_capacity(threads.len());
            for &k in &threads {
                let mut s = FaerLdlt::new(parallelism(k));
                // faer's own parallelism at every size (no sequential bound).
                s.set_parallel_min_flops(0.0)?;
                s.set_ordering(FillOrdering::kkt_matched(nw, method));
                s.set_zero_diagonal(&zero);
                let (t_an, r) = timed(|| s.analyze(asm.n(), asm.col_ptr(), asm.row_idx()));
                r?;
                solvers.push((k, s, t_an, f64::INFINITY, f64::INFINITY, None));
            }
            // Factorizations interleaved over the thread counts, then the solves.
            for _ in 0..repeat {
                for (_, s, _, t_f, _, st) in &mut solvers {
                    let (t, r) = timed(|| s.factorize(&vals));
                    *t_f = t_f.min(t);
                    *st = Some(r?);
                }
            }
            let rhs = vec![1.0; asm.n()];
            let mut x = rhs.clone();
            for _ in 0..repeat {
                for (_, s, _, _, t_s, _) in &mut solvers {
                    x.copy_from_slice(&rhs);
                    let (t, r) = timed(|| s.solve_in_place(&mut x));
                    r?;
                    *t_s = t_s.min(t);
                }
            }
            for (k, s, t_an, t_f, t_s, st) in &solvers {
                println!(
                    "{:<22} {:>5} {:>3} {:>9} {:>11} {:>9.3} {:>8.3}s {:>8.3}s {:>8.4}s {:>9} {:?}",
                    label,
                    name,
                    k,
                    asm.n(),
                    s.factor_nnz(),
                    s.predicted_flops() / 1e9,
                    t_an,
                    t_f,
                    t_s,
                    match s.fill_method() {
                        Some(FillMethod::NestedDissection) => "nd",
                        Some(FillMethod::Amd) => "amd",
                        _ => "?",
                    },
                    st.expect("at least one factorization"),
                );
            }
        }
    }
    Ok(())
}
