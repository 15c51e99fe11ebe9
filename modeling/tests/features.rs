//! Model features end to end: data sources, augmentation, expression blocks, parameters,
//! accessors, printing, f32, threads — each checked against finite differences and
//! hand-unrolled models.

mod common;

use common::{Rng, check_callbacks, dense_hess, dense_jac, random_point};
use simdnlp_modeling::{DataRow, Expr, Idx, Ix1, Ix2, ModelBuilder, NlpModel, Parallelism, nested};

#[derive(Clone, DataRow)]
struct Arc {
    from: usize,
    to: usize,
    w: f64,
}

/// A random smooth expression of the given leaves.
fn random_expr(rng: &mut Rng, leaves: &[Expr], depth: usize) -> Expr {
    let pick = |rng: &mut Rng| leaves[rng.below(leaves.len())].clone();
    if depth == 0 {
        let c = rng.uniform(0.5, 1.5);
        return c * pick(rng);
    }
    let a = random_expr(rng, leaves, depth - 1);
    let b = random_expr(rng, leaves, depth - 1);
    match rng.below(9) {
        0 => a + b,
        1 => a - b,
        2 => a * b,
        3 => a / (2.0 + b.powi(2)),
        4 => a.sin() + b,
        5 => (0.3 * a).exp() * b,
        6 => (1.0 + a.powi(2)).sqrt() - b,
        7 => a.powi(3) + b.cos(),
        _ => (2.0 + a.sin()).log() * b,
    }
}

#[test]
fn randomized_models_match_finite_differences() {
    for seed in 1..=12u64 {
        let mut rng = Rng(0x9E3779B97F4A7C15 ^ seed.wrapping_mul(0x2545F4914F6CDD1D));
        let n = 5 + rng.below(4);
        let mut m = ModelBuilder::new();
        let x = m.var(1..=n).start_with(|i| 0.1 * i as f64).named("x");
        let y = m.var((0..2, 0..3)).lower(-2.0).upper(2.0).named("y");
        let p = m
            .param([rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5)])
            .named("p");
        let depth = 1 + rng.below(2);
        // objective over a range, with shifted references and a parameter
        let seeds: Vec<u64> = (0..6).map(|_| rng.next_u64()).collect();
        m.minimize(2..=n - 1, |i| {
            let mut r = Rng(seeds[0] | 1);
            let leaves = [x.at(i - 1), x.at(i), x.at(i + 1), p.at(0) * x.at(i)];
            random_expr(&mut r, &leaves, depth)
        });
        // objective over a product (2-d block), with coinciding references at i == j
        m.objective((0..2, 0..3), |(i, j)| {
            let mut r = Rng(seeds[1] | 1);
            let leaves = [y.at((i, j)), x.at(i + 1) * x.at(j + 1), x.at(j + 2)];
            random_expr(&mut r, &leaves, depth)
        });
        // constraints over a range and over a slice of structs, an augmentation by rows
        let c1 = m
            .constraint(1..=n - 2, |i| {
                let mut r = Rng(seeds[2] | 1);
                let leaves = [x.at(i), x.at(i + 2), p.at(1) + x.at(i + 1)];
                random_expr(&mut r, &leaves, depth)
            })
            .upper(1.0)
            .named("c1");
        let arcs: Vec<Arc> = (0..4)
            .map(|k| Arc {
                from: 1 + (k * 3) % n,
                to: 1 + (k * 5 + 1) % n,
                w: 0.5 + k as f64,
            })
            .collect();
        m.augment(&c1, &arcs, |a| {
            let mut r = Rng(seeds[3] | 1);
            let leaves = [a.w * x.at(a.from), x.at(a.to), x.at(a.from) * x.at(a.to)];
            (a.from % (n - 2) + 1, random_expr(&mut r, &leaves, depth))
        });
        m.constraint(&arcs, |a| {
            let mut r = Rng(seeds[4] | 1);
            let leaves = [x.at(a.from), x.at(a.to), a.w * y.at((1, 2))];
            random_expr(&mut r, &leaves, depth)
        })
        .lower(-1.0)
        .named("arcs");
        let model = m.build().unwrap();
        let xr = random_point(&model, &mut rng);
        check_callbacks(&model, &xr, &mut rng);
    }
}

#[test]
fn augmentation_equals_hand_unrolled_model() {
    // rows: bus balances; contributions from generators and lines, several per row
    let gens: Vec<(usize, usize)> = vec![(0, 0), (1, 2), (2, 2), (3, 1)];
    let lines: Vec<(usize, usize, usize, f64)> =
        vec![(0, 0, 1, 2.0), (1, 1, 2, 3.0), (2, 0, 2, 0.5)];
    let demand = [0.3, 0.2, 0.9];

    let mut a = ModelBuilder::new();
    let pg = a.var(4).named("pg");
    let f = a.var(3).named("f");
    let bal = a.constraint(&demand[..], |d| d * 1.0).named("bal");
    a.augment(&bal, &gens, |(g, bus)| (bus, -pg.at(g)));
    a.augment(&bal, &lines, |(l, from, _, r)| {
        (from, f.at(l) + r * f.at(l).powi(2))
    });
    a.augment(&bal, &lines, |(l, _, to, _)| (to, -f.at(l).sin()));
    a.minimize(0..4, |g| pg.at(g).powi(2));
    let aug = a.build().unwrap();

    // the same rows written out one by one
    let mut b = ModelBuilder::new();
    let pg2 = b.var(4);
    let f2 = b.var(3);
    let row = |bus: usize| {
        let mut e = Expr::constant(demand[bus]);
        for &(g, gb) in &gens {
            if gb == bus {
                e = e - pg2.at(g);
            }
        }
        for &(l, from, to, r) in &lines {
            if from == bus {
                e = e + f2.at(l) + r * f2.at(l).powi(2);
            }
            if to == bus {
                e = e - f2.at(l).sin();
            }
        }
        e
    };
    for bus in 0..3 {
        b.constraint((), |_| row(bus));
    }
    b.minimize(0..4, |g| pg2.at(g).powi(2));
    let hand = b.build().unwrap();

    let mut rng = Rng(7);
    let x: Vec<f64> = (0..7).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let y: Vec<f64> = (0..3).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let (mut ca, mut cb) = ([0.0; 3], [0.0; 3]);
    aug.cons(&x, &mut ca);
    hand.cons(&x, &mut cb);
    for i in 0..3 {
        assert!(
            (ca[i] - cb[i]).abs() < 1e-14,
            "row {i}: {} vs {}",
            ca[i],
            cb[i]
        );
    }
    let (ja, jb) = (dense_jac(&aug, &x), dense_jac(&hand, &x));
    let (ha, hb) = (
        dense_hess(&aug, &x, &y, 0.7),
        dense_hess(&hand, &x, &y, 0.7),
    );
    for i in 0..3 {
        for j in 0..7 {
            assert!((ja[i][j] - jb[i][j]).abs() < 1e-14);
        }
    }
    for i in 0..7 {
        for j in 0..7 {
            assert!((ha[i][j] - hb[i][j]).abs() < 1e-14);
        }
    }
    check_callbacks(&aug, &x, &mut rng);
}

#[test]
fn coinciding_slots_double_the_diagonal() {
    // x[i] * x[j] over all (i, j): at i == j the two slots are one variable
    let mut m = ModelBuilder::new();
    let x = m.var(3).start([0.3, -0.7, 1.1]);
    m.minimize((0..3, 0..3), |(i, j)| x.at(i) * x.at(j) * x.at(j));
    let model = m.build().unwrap();
    let x0 = model.meta().x0.clone();
    let h = dense_hess(&model, &x0, &[], 1.0);
    // f = (Σ x)(Σ x²): ∂²f/∂x_k² = 2 Σx + 4 x_k
    let s: f64 = x0.iter().sum();
    for k in 0..3 {
        assert!(
            (h[k][k] - (2.0 * s + 4.0 * x0[k])).abs() < 1e-12,
            "H[{k}][{k}] = {}",
            h[k][k]
        );
    }
    check_callbacks(&model, &x0, &mut Rng(3));
}

#[test]
fn expression_blocks_are_inlined() {
    // ExaModels' example: s[i] = x[i]², objective Σ (s[i] - 1)², constraint s[i] + s[i+1] ≤ 1
    let n = 5usize;
    let mut m = ModelBuilder::new();
    let x = m.var(1..=n).start(0.5).named("x");
    let s = m.expr(1..=n, |i| x.at(i).powi(2)).named("s");
    m.minimize(1..=n, |i| (s.at(i) - 1.0).powi(2));
    let c = m
        .constraint(1..=n - 1, |i| s.at(i) + s.at(i + 1))
        .upper(1.0)
        .named("c");
    let model = m.build().unwrap();
    assert_eq!((model.meta().nvar, model.meta().ncon), (5, 4));
    let xv: [f64; 5] = [0.1, 0.2, 0.3, 0.4, 0.5];
    let f: f64 = xv.iter().map(|v| (v * v - 1.0).powi(2)).sum();
    assert!((model.obj(&xv) - f).abs() < 1e-14);
    let mut cv = [0.0; 4];
    model.cons(&xv, &mut cv);
    for i in 0..4 {
        assert!((cv[i] - (xv[i].powi(2) + xv[i + 1].powi(2))).abs() < 1e-14);
    }
    assert_eq!(model.ucon(&c).unwrap().to_vec(), vec![1.0; 4]);
    check_callbacks(&model, &xv, &mut Rng(11));
    let text = model.to_string();
    assert!(text.contains("s[i] = "), "{text}");
}

#[test]
fn nested_and_product_sources() {
    // Σ_{i} Σ_{j ≤ i} x_i x_j (triangular, nested) and a 2-d constraint block
    let mut m = ModelBuilder::new();
    let x = m.var(0..4).start_with(|i| 0.2 * i as f64 + 0.1);
    m.minimize(nested(0..4i64, |i| 0..=i), |(i, j)| x.at(i) * x.at(j));
    let z = m.var((1..=2, 0..3)).named("z");
    let c = m
        .constraint((1..=2, 0..3), |(i, j)| z.at((i, j)) - x.at(j) * i)
        .named("link");
    let model = m.build().unwrap();
    assert_eq!(c.shape().dims(), &[(1, 2), (0, 3)]);
    let xv: Vec<f64> = (0..10).map(|k| 0.1 * k as f64 - 0.3).collect();
    let mut f = 0.0;
    for i in 0..4 {
        for j in 0..=i {
            f += xv[i] * xv[j];
        }
    }
    assert!((model.obj(&xv) - f).abs() < 1e-14);
    let mut cv = vec![0.0; 6];
    model.cons(&xv, &mut cv);
    let rows = model.constraint_values::<Ix2>(&c, &cv).unwrap();
    assert_eq!(rows.shape(), &[2, 3]);
    for i in 1..=2usize {
        for j in 0..3usize {
            let zij = xv[4 + (i - 1) * 3 + j];
            assert!((rows[[i - 1, j]] - (zij - xv[j] * i as f64)).abs() < 1e-14);
        }
    }
    check_callbacks(&model, &xv, &mut Rng(5));
}

#[test]
fn parameters_change_without_rebuild_and_accessors_update_meta() {
    let mut m = ModelBuilder::new();
    let x = m.var(0..=2).start(1.0).named("x");
    let p = m.param([2.0, 3.0]).named("p");
    m.minimize(0..=2, |i| p.at(0) * (x.at(i) - p.at(1)).powi(2));
    let c = m
        .constraint((), |_| x.at(0) + x.at(2))
        .lower(-1.0)
        .upper(1.0)
        .named("sum");
    let mut model = m.build().unwrap();
    let xv = [1.0, 1.0, 1.0];
    assert_eq!(model.obj(&xv), 3.0 * 2.0 * 4.0);
    model.set_value(&p, [1.0, 0.0]).unwrap();
    assert_eq!(model.obj(&xv), 3.0);
    assert_eq!(model.value(&p).unwrap().to_vec(), vec![1.0, 0.0]);

    model.set_start_with(&x, |i| i as f64).unwrap();
    assert_eq!(model.meta().x0, vec![0.0, 1.0, 2.0]);
    model.set_bounds(&x, [-1.0, -2.0, -3.0], 5.0).unwrap();
    assert_eq!(model.meta().lvar, vec![-1.0, -2.0, -3.0]);
    assert_eq!(model.upper(&x).unwrap().to_vec(), vec![5.0; 3]);
    model.set_ucon(&c, 4.0).unwrap();
    model.set_lcon(&c, 2.0).unwrap();
    assert_eq!((model.meta().lcon[0], model.meta().ucon[0]), (2.0, 4.0));
    model.set_dual_start(&c, 0.5).unwrap();
    assert_eq!(model.meta().y0, vec![0.5]);
    let c0 = model.con_named::<simdnlp_modeling::Ix0>("sum").unwrap();
    assert_eq!(model.lcon(&c0).unwrap().into_scalar(), 2.0);
    let x2 = model.var_named::<Ix1>("x").unwrap();
    assert_eq!(
        model.solution(&x2, &[7.0, 8.0, 9.0]).unwrap().to_vec(),
        vec![7.0, 8.0, 9.0]
    );
    assert_eq!(
        model.multipliers_lower(&x, &[1.0, 2.0, 3.0]).unwrap()[2],
        3.0
    );
}

#[test]
fn f32_rosenbrock_end_to_end() {
    let n = 6usize;
    let mut m = ModelBuilder::<f32>::default();
    let x = m
        .var(1..=n)
        .start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 });
    m.minimize(2..=n, |i| {
        100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2)
    });
    let model = m.build().unwrap();
    let x0: Vec<f32> = model.meta().x0.clone();
    let f = model.obj(&x0);
    // each term: 100 (1.44 - 1)^2 + 4.84 for odd i-1, 100 (1 + 1.2)^2 + 0 for even i-1
    let expect = 3.0 * (100.0 * 0.44f64.powi(2) + 4.84) + 2.0 * (100.0 * 2.2f64.powi(2));
    assert!(
        ((f as f64) - expect).abs() < 1e-3 * expect,
        "{f} vs {expect}"
    );
    let mut g = vec![0.0f32; n];
    model.grad(&x0, &mut g);
    // compare with the f64 model
    let mut m64 = ModelBuilder::new();
    let x64 = m64
        .var(1..=n)
        .start_with(|i| if i % 2 == 1 { -1.2 } else { 1.0 });
    m64.minimize(2..=n, |i| {
        100.0 * (x64.at(i - 1).powi(2) - x64.at(i)).powi(2) + (x64.at(i - 1) - 1.0).powi(2)
    });
    let model64 = m64.build().unwrap();
    let mut g64 = vec![0.0; n];
    model64.grad(&model64.meta().x0, &mut g64);
    for j in 0..n {
        assert!((g[j] as f64 - g64[j]).abs() < 1e-4 * (1.0 + g64[j].abs()));
    }
    let mut hv = vec![0.0f32; model.meta().nnzh];
    model.hess_coord(&x0, &[], 1.0, &mut hv);
    let mut hv64 = vec![0.0; model64.meta().nnzh];
    model64.hess_coord(&model64.meta().x0, &[], 1.0, &mut hv64);
    for k in 0..hv.len() {
        assert!((hv[k] as f64 - hv64[k]).abs() < 1e-4 * (1.0 + hv64[k].abs()));
    }
    let h = model.hessian_lower_csc(&x0, &[], 1.0);
    assert_eq!(h.nrows(), n);
}

#[test]
fn threaded_callbacks_equal_sequential() {
    let build = |par: Option<Parallelism>| {
        let n = 5000usize;
        let mut m = ModelBuilder::new();
        if let Some(par) = par {
            m.set_threads(par);
        }
        let x = m.var(1..=n).start_with(|i| (i as f64).sin());
        m.minimize(2..=n, |i| {
            100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2) + (x.at(i - 1) - 1.0).powi(2)
        });
        m.constraint(1..=n - 2, |i| x.at(i) * x.at(i + 2) - x.at(i + 1).exp())
            .lower(-1.0);
        m.build().unwrap()
    };
    let bits = |v: &[f64]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
    let a = build(Some(Parallelism::Sequential));
    let x = a.meta().x0.clone();
    // in pools of 2 and 3 threads (built there: one register file per pool thread), set
    // by the builder and by the process-wide default
    for threads in [2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let by_builder = pool.install(|| build(Some(Parallelism::rayon_batches(256))));
        let by_default = pool.install(|| {
            simdnlp_modeling::set_default_threads(Parallelism::rayon_batches(256));
            let m = build(None);
            simdnlp_modeling::set_default_threads(Parallelism::Sequential);
            m
        });
        assert_eq!(by_default.threads(), Parallelism::rayon_batches(256));
        assert_eq!(simdnlp_modeling::default_threads(), Parallelism::Sequential);
        for b in [&by_builder, &by_default] {
            pool.install(|| {
                assert_eq!(a.obj(&x).to_bits(), b.obj(&x).to_bits());
                let (mut ga, mut gb) = (vec![0.0; 5000], vec![0.0; 5000]);
                a.grad(&x, &mut ga);
                b.grad(&x, &mut gb);
                assert_eq!(bits(&ga), bits(&gb));
                let mut ca = vec![0.0; a.meta().ncon];
                let mut cb = vec![0.0; b.meta().ncon];
                a.cons(&x, &mut ca);
                b.cons(&x, &mut cb);
                assert_eq!(bits(&ca), bits(&cb));
                let (mut ja, mut jb) = (vec![0.0; a.meta().nnzj], vec![0.0; b.meta().nnzj]);
                a.jac_coord(&x, &mut ja);
                b.jac_coord(&x, &mut jb);
                assert_eq!(bits(&ja), bits(&jb));
                let y = vec![0.5; a.meta().ncon];
                let (mut ha, mut hb) = (vec![0.0; a.meta().nnzh], vec![0.0; b.meta().nnzh]);
                a.hess_coord(&x, &y, 1.0, &mut ha);
                b.hess_coord(&x, &y, 1.0, &mut hb);
                assert_eq!(bits(&ha), bits(&hb));
            });
        }
    }
}

#[test]
fn empty_sources_give_zero_rows() {
    let mut m = ModelBuilder::new();
    let x = m.var(3).start(1.0);
    let none: Vec<(usize, f64)> = Vec::new();
    let c = m.constraint(&none, |(i, w)| w * x.at(i)).named("empty");
    m.minimize(0..0, |i| x.at(i).powi(2));
    m.minimize(0..3, |i| x.at(i).powi(2));
    let model = m.build().unwrap();
    assert_eq!((model.meta().ncon, model.meta().nnzj), (0, 0));
    assert_eq!(c.len(), 0);
    assert_eq!(model.obj(&[1.0, 2.0, 3.0]), 14.0);
}

#[test]
fn printing_shows_blocks_and_patterns() {
    let mut m = ModelBuilder::new();
    m.set_name("demo");
    let x = m.var(1..=4).lower(0.0).named("x");
    let lines: Vec<Arc> = vec![Arc {
        from: 1,
        to: 2,
        w: 2.0,
    }];
    m.minimize(2..=4, |i| 100.0 * (x.at(i - 1).powi(2) - x.at(i)).powi(2))
        .named("rosen");
    let c = m
        .constraint(&lines, |l| l.w * x.at(l.from) - x.at(l.to))
        .upper(1.0)
        .named("arc");
    m.augment(&c, &lines, |l| (0, x.at(l.to + 1)))
        .named("arc_extra");
    let model = m.build().unwrap();
    let text = model.to_string();
    for needle in [
        "model `demo`",
        "x[1..=4]",
        "rosen: Σ",
        "x[i - 1]",
        "arc:",
        "d.w",
        "d.from",
        "arc_extra: arc[0] +=",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in\n{text}");
    }
}

#[test]
fn models_and_handles_are_send_and_sync() {
    fn check<X: Send + Sync>() {}
    check::<simdnlp_modeling::Model>();
    check::<simdnlp_modeling::Model<f32>>();
    check::<simdnlp_modeling::Var<Ix2>>();
    check::<simdnlp_modeling::Con>();
    check::<simdnlp_modeling::Param>();
}

#[test]
fn concurrent_callbacks_use_separate_scratch() {
    let n = 2000usize;
    let mut m = ModelBuilder::new();
    let x = m.var(1..=n).start_with(|i| (i as f64).cos());
    m.minimize(2..=n, |i| (x.at(i - 1) - x.at(i).powi(2)).powi(2));
    m.constraint(1..n, |i| x.at(i) * x.at(i + 1)).upper(1.0);
    let model = m.build().unwrap();
    let x0 = model.meta().x0.clone();
    let f = model.obj(&x0);
    let mut g = vec![0.0; n];
    model.grad(&x0, &mut g);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..20 {
                    assert_eq!(model.obj(&x0), f);
                    let mut g2 = vec![0.0; n];
                    model.grad(&x0, &mut g2);
                    assert_eq!(g2, g);
                }
            });
        }
    });
}

#[test]
fn general_index_expressions_and_3d_blocks() {
    // x.at(i / 2), x.at(i % 3), z.at((i, j, k)) with a 3-d product; a 2-d parameter block
    let mut m = ModelBuilder::new();
    let x = m.var(0..6).start_with(|i| 0.3 + 0.1 * i as f64).named("x");
    let z = m.var((0..2, 1..=2, 0..2)).start(0.5).named("z");
    let w = m
        .param_shaped((0..2, 0..2), [1.0, 2.0, 3.0, 4.0])
        .named("w");
    m.minimize(0..12, |i| x.at(i / 2).powi(2) * x.at(i % 3) + x.at(i / 2));
    m.objective((0..2, 1..=2, 0..2), |(i, j, k)| {
        w.at((i, k)) * z.at((i, j, k)).powi(2) * x.at(i * j + k)
    });
    let c = m
        .constraint((0..2, 0..2), |(i, k)| {
            z.at((i, 1, k)) * z.at((i, 2, k)) - w.at((k, i))
        })
        .named("zz");
    let model = m.build().unwrap();
    assert_eq!(model.meta().nvar, 6 + 8);
    assert_eq!(model.value(&w).unwrap()[[1, 0]], 3.0);
    let xv: Vec<f64> = (0..14).map(|k| 0.2 + 0.05 * k as f64).collect();
    let mut f = 0.0;
    for i in 0..12usize {
        f += xv[i / 2].powi(2) * xv[i % 3] + xv[i / 2];
    }
    let wv = [[1.0, 2.0], [3.0, 4.0]];
    for i in 0..2usize {
        for j in 1..=2usize {
            for k in 0..2usize {
                let zi = 6 + i * 4 + (j - 1) * 2 + k;
                f += wv[i][k] * xv[zi].powi(2) * xv[i * j + k];
            }
        }
    }
    assert!(
        (model.obj(&xv) - f).abs() < 1e-13,
        "{} vs {f}",
        model.obj(&xv)
    );
    let mut cv = vec![0.0; 4];
    model.cons(&xv, &mut cv);
    let rows = model.constraint_values::<Ix2>(&c, &cv).unwrap();
    assert!((rows[[1, 0]] - (xv[6 + 4] * xv[6 + 4 + 2] - wv[0][1])).abs() < 1e-14);
    check_callbacks(&model, &xv, &mut Rng(21));
}

#[test]
fn pattern_layout_is_reported() {
    let mut m = ModelBuilder::new();
    let x = m.var(1..=5).named("x");
    m.minimize(2..=5, |i| (x.at(i - 1) - x.at(i)).powi(2))
        .named("obj");
    let c = m.constraint(1..=4, |i| x.at(i) * x.at(i + 1)).named("c");
    m.augment(&c, 1..=2, |i| (i + 1, x.at(i).exp()))
        .named("aug");
    let model = m.build().unwrap();
    let p = model.patterns();
    let kinds: Vec<_> = p
        .iter()
        .map(|p| (p.name.as_str(), p.points, p.slots, p.hess_slots))
        .collect();
    assert_eq!(
        kinds,
        vec![("obj", 4, 2, 3), ("c", 4, 2, 1), ("aug", 2, 1, 1)]
    );
    // per-pattern layout: data point k of pattern p writes [o_p + k*step_p, ...)
    assert_eq!((p[1].jac_offset, p[2].jac_offset), (0, 8));
    assert_eq!(
        (p[0].hess_offset, p[1].hess_offset, p[2].hess_offset),
        (0, 12, 16)
    );
    assert_eq!((model.meta().nnzj, model.meta().nnzh), (10, 18));
    let (mut r, mut cc) = (vec![0; 10], vec![0; 10]);
    model.jac_structure(&mut r, &mut cc);
    assert_eq!(&r[..], &[0, 0, 1, 1, 2, 2, 3, 3, 1, 2]);
    assert_eq!(&cc[..], &[0, 1, 1, 2, 2, 3, 3, 4, 0, 1]);
}

#[test]
fn cloned_models_are_independent() {
    let mut m = ModelBuilder::new();
    let x = m.var(3).start(1.0).named("x");
    let p = m.param([2.0]);
    m.minimize(0..3, |i| p.at(0) * x.at(i).powi(2));
    let a = m.build().unwrap();
    let mut b = a.clone();
    b.set_value(&p, 3.0).unwrap();
    b.set_lower(&x, 0.5).unwrap();
    assert_eq!(a.obj(&[1.0; 3]), 6.0);
    assert_eq!(b.obj(&[1.0; 3]), 9.0);
    assert_eq!(a.meta().lvar[0], f64::NEG_INFINITY);
    assert_eq!(b.meta().lvar[0], 0.5);
}

#[test]
fn run_time_shaped_blocks() {
    use simdnlp_modeling::{IxDyn, Shape};
    // a 2-d block whose dimensions come from a run-time description
    let mut m = ModelBuilder::new();
    let z = m
        .var(Shape::new(vec![(1, 2), (0, 3)]))
        .start_with(|k| k[0] as f64 + 0.1 * k[1] as f64)
        .named("z");
    m.minimize((1..=2, 0..3), |(i, j)| {
        (z.at(vec![i, j]) - 1.0).powi(2) * z.at(vec![i, j]).sin()
    });
    m.constraint(0..2, |j| {
        z.at(vec![Idx::constant(1), j]) * z.at(vec![Idx::constant(2), j + 1])
    });
    let model = m.build().unwrap();
    let s = model.start(&z).unwrap();
    assert_eq!(s.shape(), &[2, 3]);
    assert!((s[[1, 2]] - 2.2).abs() < 1e-15);
    let again = model.var_named::<IxDyn>("z").unwrap();
    assert_eq!(again.len(), 6);
    let xv = model.meta().x0.clone();
    check_callbacks(&model, &xv, &mut Rng(99));
}
