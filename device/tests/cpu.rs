//! The CPU device's documented semantics: NaN rules, empty vectors, typed errors, and the
//! segmented kernels against the sequential scatter loops they replace (bitwise).

use proptest::prelude::*;
use simdnlp_device::{Cpu, Device, DeviceError, HostBuffers, SegmentPlan};

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

#[test]
fn reductions_follow_the_nan_rules() {
    let d = Cpu;
    let v = vec![1.0, NAN, -3.0];
    assert!(d.norm_inf(&v).is_nan());
    assert!(d.norm_1(&v).is_nan());
    assert!(d.sum(&v).is_nan());
    assert!(d.compl_inf(&v, &vec![1.0; 3], 0.0).is_nan());
    assert!(d.max_rel_step(&v, &vec![0.0; 3]).is_nan());
    // min_product and max_step ignore NaN (f64::min)
    assert_eq!(d.min_product(&v, &vec![1.0; 3]), -3.0);
    assert_eq!(
        d.max_step(&vec![1.0, NAN, 1.0], &vec![-1.0, -1.0, NAN], 0.5),
        0.5
    );
    // sum_ln: non-positive or NaN entries give NaN; +inf gives +inf
    assert!(d.sum_ln(&vec![1.0, 0.0]).is_nan());
    assert!(d.sum_ln(&vec![1.0, NAN]).is_nan());
    assert_eq!(d.sum_ln(&vec![1.0, INF]), INF);
    assert_eq!(d.norm_inf(&vec![1.0, -INF]), INF);
}

#[test]
fn reductions_of_empty_vectors() {
    let d = Cpu;
    let e: Vec<f64> = d.zeros(0).unwrap();
    assert_eq!(d.norm_inf(&e), 0.0);
    assert_eq!(d.norm_1(&e), 0.0);
    assert_eq!(d.dot(&e, &e), 0.0);
    assert_eq!(d.sum(&e), 0.0);
    assert_eq!(d.sum_ln(&e), 0.0);
    assert_eq!(d.max_step(&e, &e, 0.99), 1.0);
    assert_eq!(d.min_product(&e, &e), INF);
    assert_eq!(d.compl_inf(&e, &e, 1.0), 0.0);
    assert_eq!(d.max_rel_step(&e, &e), 0.0);
}

#[test]
fn interior_point_kernels() {
    let d = Cpu;
    // safeguard: clamp to [mu/(k s), k mu/s], returns the largest change
    let mut z = vec![1e-9, 1.0, 1e9, NAN];
    let s = vec![1.0; 4];
    let change = d.safeguard_bound_mult(&mut z, &s, 1.0, 10.0);
    assert_eq!(z, vec![0.1, 1.0, 10.0, 0.1]);
    assert_eq!(change, 1e9 - 10.0);
    // safe slack: below s_min becomes max(s_min, mu/z); NaN left alone
    let mut sl = vec![0.0, 1.0, NAN, 0.0];
    let zz = vec![2.0, 1.0, 1.0, 0.0];
    assert_eq!(d.safe_slack(&mut sl, &zz, 1e-20, 1e-8), 2);
    assert_eq!(sl[0], 5e-9);
    assert_eq!(sl[1], 1.0);
    assert!(sl[2].is_nan());
    assert_eq!(sl[3], 1e-20); // mu/0 = inf falls back to s_min
    // bound push: interior points, midpoint for a tiny box
    let mut w = vec![0.0, 5.0, 100.0, 0.5];
    let lo = vec![0.0, -INF, 0.0, 0.5];
    let up = vec![INF, 5.0, 1.0, 0.5 + 1e-12];
    let p = vec![1e-2; 4];
    d.push_into_bounds(&mut w, &lo, &up, &p, &p);
    assert_eq!(w[0], 1e-2);
    assert_eq!(w[1], 5.0 - 5e-2);
    assert_eq!(w[2], 1.0 - 1e-2);
    assert!(w[3] > 0.5 && w[3] < 0.5 + 1e-12);
    // bound dual step
    let mut dz = vec![0.0];
    d.bound_dual_step(&mut dz, &vec![2.0], &vec![4.0], &vec![1.0], 1.0);
    assert_eq!(dz[0], (1.0 - 2.0) / 4.0 - 2.0);
    let mut c = vec![NAN, -1.0, 3.0];
    d.clamp_below(&mut c, 0.0);
    assert_eq!(c, vec![0.0, 0.0, 3.0]);
}

#[test]
fn restoration_start_kernels() {
    let d = Cpu;
    // (p, n) as Ipopt's restoration start: p − n = r, n the positive root of its
    // quadratic; r = 0, μ = ρ = 1 gives p = n = 1 (a = 1/2, c = 0)
    let r = vec![0.0, 3.0, -3.0, 1e-300, 1e8, -1e8];
    let (mu, rho) = (1.0, 1.0);
    let (mut p, mut n) = (vec![0.0; r.len()], vec![0.0; r.len()]);
    d.resto_elastic(&r, 1.0, 1.0, &mut p, &mut n);
    assert_eq!((p[0], n[0]), (1.0, 1.0));
    for j in 0..r.len() {
        assert!(p[j] > 0.0 && n[j] > 0.0, "entry {j}: p {} n {}", p[j], n[j]);
        let scale = r[j].abs().max(1.0);
        assert!(
            ((p[j] - n[j]) - r[j]).abs() <= 1e-12 * scale,
            "entry {j}: p − n = {} for r = {}",
            p[j] - n[j],
            r[j]
        );
        // the quadratic of n: n² − 2a n − μ r/(2ρ) = 0 (relative to its largest term)
        let a = (mu - rho * r[j]) / (2.0 * rho);
        let q = n[j] * n[j] - 2.0 * a * n[j] - mu * r[j] / (2.0 * rho);
        let big = (n[j] * n[j]).max((2.0 * a * n[j]).abs()).max(1.0);
        assert!(q.abs() <= 1e-12 * big, "entry {j}: residual {q}");
    }
    // mirror: r ↦ −r swaps p and n
    assert_eq!((p[1], n[1]), (n[2], p[2]));
    let mut w = vec![0.0; 4];
    d.prox_weight(&vec![0.5, -2.0, 4.0, -0.0], &mut w);
    assert_eq!(w, vec![1.0, 0.25, 1.0 / 16.0, 1.0]);
}

#[test]
fn element_wise_and_ranges() {
    let d = Cpu;
    let x = d.vector_from_host(&[1.0, 2.0, 4.0]).unwrap();
    let idx = d.index_from_host(&[2, 0]).unwrap();
    let mut g = d.zeros(2).unwrap();
    d.gather(&mut g, &x, &idx);
    assert_eq!(g, vec![4.0, 1.0]);
    let mut y = d.zeros(3).unwrap();
    d.scatter(&mut y, &idx, &g);
    assert_eq!(y, vec![1.0, 0.0, 4.0]);
    d.scatter_add(2.0, &g, &idx, &mut y);
    assert_eq!(y, vec![3.0, 0.0, 12.0]);
    let mut s = d.zeros(2).unwrap();
    d.gather_slack(&mut s, &x, &idx, &vec![1.0, 1.0], -1.0);
    assert_eq!(s, vec![-3.0, 0.0]);
    d.copy_range(&mut y, 1, &x, 1, 2);
    assert_eq!(y, vec![3.0, 2.0, 4.0]);
    d.shift(&mut y, 1.0);
    assert_eq!(y, vec![4.0, 3.0, 5.0]);
    let mut r = d.zeros(3).unwrap();
    d.recip(&mut r, 2.0, &x);
    assert_eq!(r, vec![2.0, 1.0, 0.5]);
    // axpby reads y even when b = 0 (NaN stays)
    let mut n = vec![NAN];
    d.axpby(1.0, &vec![1.0], 0.0, &mut n);
    assert!(n[0].is_nan());
    assert_eq!(d.host(&x), &[1.0, 2.0, 4.0]);
}

#[test]
fn transfers_report_typed_errors() {
    let d = Cpu;
    let v = d.zeros(3).unwrap();
    let mut out = [0.0; 2];
    assert!(matches!(
        d.to_host(&v, &mut out),
        Err(DeviceError::LengthMismatch {
            expected: 3,
            got: 2,
            ..
        })
    ));
    let huge = usize::MAX / 4;
    match d.zeros(huge) {
        Err(DeviceError::OutOfMemory { bytes, .. }) => assert_eq!(bytes, huge.saturating_mul(8)),
        other => panic!("expected OutOfMemory, got {:?}", other.map(|v| v.len())),
    }
    assert!(d.synchronize().is_ok());
}

#[test]
fn segment_plans_validate_their_input() {
    assert!(matches!(
        SegmentPlan::new(2, &[0, 2], &[0, 1], &[0, 0]),
        Err(DeviceError::BadPlan {
            what: "target",
            entry: 1,
            index: 2,
            limit: 2
        })
    ));
    assert!(matches!(
        SegmentPlan::new(2, &[0, 1], &[0], &[0, 0]),
        Err(DeviceError::LengthMismatch { .. })
    ));
    let plan = SegmentPlan::coo(2, &[1, 0, 1], &[0, 5, 1]).unwrap();
    assert_eq!(plan.ptr, vec![0, 1, 3]);
    assert_eq!(plan.entry, vec![1, 0, 2]);
    assert_eq!(plan.partner, vec![5, 0, 1]);
    assert!(matches!(
        plan.check(3, 2),
        Err(DeviceError::BadPlan {
            what: "partner",
            ..
        })
    ));
    assert!(plan.check(3, 6).is_ok());
    // empty plan
    let e = SegmentPlan::coo(0, &[], &[]).unwrap();
    assert_eq!((e.targets(), e.items()), (0, 0));
}

fn coo() -> impl Strategy<Value = (usize, usize, Vec<(usize, usize, f64)>)> {
    (1usize..6, 1usize..6).prop_flat_map(|(m, n)| {
        let entry = (0..m, 0..n, -10.0f64..10.0);
        (Just(m), Just(n), prop::collection::vec(entry, 0..20))
    })
}

/// Entries for the maximum reductions: mostly finite, sometimes NaN, ±∞ or ±0.
fn reduction_entry() -> impl Strategy<Value = f64> {
    prop_oneof![
        12 => -1e3f64..1e3,
        1 => Just(NAN),
        1 => Just(INF),
        1 => Just(-INF),
        1 => Just(-0.0),
    ]
}

/// The sequential NaN-propagating fold the maximum reductions are specified by.
fn sequential_nan_max(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |m: f64, v| {
        if m.is_nan() || v.is_nan() {
            NAN
        } else {
            m.max(v)
        }
    })
}

/// Bitwise equality, NaN equal to NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

proptest! {
    /// `norm_inf`, `compl_inf` and `max_rel_step` (computed in lanes) equal the sequential
    /// NaN-propagating fold, for every length around the lane count.
    #[test]
    fn maximum_reductions_equal_the_sequential_fold(
        pairs in prop::collection::vec((reduction_entry(), reduction_entry()), 0..40),
        mu in 0.0f64..2.0,
    ) {
        let d = Cpu;
        let a: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let norm = sequential_nan_max(a.iter().map(|x| x.abs()));
        let compl = sequential_nan_max(a.iter().zip(&b).map(|(s, z)| (s * z - mu).abs()));
        let step = sequential_nan_max(a.iter().zip(&b).map(|(dx, x)| dx.abs() / (1.0 + x.abs())));
        prop_assert!(same(d.norm_inf(&a), norm), "norm_inf {} vs {}", d.norm_inf(&a), norm);
        prop_assert!(same(d.compl_inf(&a, &b, mu), compl));
        prop_assert!(same(d.max_rel_step(&a, &b), step));
    }
}

proptest! {
    /// `seg_spmv` by columns equals the COO loop `out = b out; out[c] += a v y[r]`, bitwise.
    #[test]
    fn seg_spmv_equals_the_scatter_loop((m, n, e) in coo(), a in -2.0f64..2.0, b in -2.0f64..2.0) {
        let d = Cpu;
        let rows: Vec<usize> = e.iter().map(|t| t.0).collect();
        let cols: Vec<usize> = e.iter().map(|t| t.1).collect();
        let vals: Vec<f64> = e.iter().map(|t| t.2).collect();
        let y: Vec<f64> = (0..m).map(|i| 1.0 + i as f64 / 3.0).collect();
        let out0: Vec<f64> = (0..n).map(|i| 0.5 - i as f64 / 7.0).collect();
        let mut expect = out0.clone();
        expect.iter_mut().for_each(|v| *v *= b);
        for k in 0..vals.len() {
            expect[cols[k]] += a * vals[k] * y[rows[k]];
        }
        let seg = d.segments(&SegmentPlan::coo(n, &cols, &rows).unwrap()).unwrap();
        let mut out = out0.clone();
        d.seg_spmv(a, &vals, &seg, &y, b, &mut out);
        prop_assert_eq!(out, expect);
    }

    /// `seg_sum` equals the assembly loop `out = 0; out[pos[k]] += v[k]`, bitwise.
    #[test]
    fn seg_sum_equals_the_assembly_loop((m, _n, e) in coo()) {
        let d = Cpu;
        let pos: Vec<usize> = e.iter().map(|t| t.0).collect();
        let vals: Vec<f64> = e.iter().map(|t| t.2).collect();
        let mut expect = vec![0.0; m];
        for k in 0..vals.len() {
            expect[pos[k]] += vals[k];
        }
        let plan = SegmentPlan::coo(m, &pos, &vec![0; pos.len()]).unwrap();
        let seg = d.segments(&plan).unwrap();
        let mut out = vec![NAN; m]; // b = 0 must not read the old values
        d.seg_sum(1.0, &vals, &seg, 0.0, &mut out);
        prop_assert_eq!(out, expect);
    }

    /// `seg_pair_sum` equals the condensed product loop `out[pos] += d[row] J_a J_b`.
    #[test]
    fn seg_pair_sum_equals_the_product_loop((m, n, e) in coo()) {
        let d = Cpu;
        let rows: Vec<usize> = e.iter().map(|t| t.0).collect();
        let vals: Vec<f64> = e.iter().map(|t| t.2).collect();
        let dr: Vec<f64> = (0..m).map(|i| 0.25 + i as f64).collect();
        // all ordered pairs (a, b) within a row, target = col(a) (any target rule works)
        let (mut ta, mut pa, mut pb) = (vec![], vec![], vec![]);
        for a in 0..e.len() {
            for b in 0..e.len() {
                if rows[a] == rows[b] {
                    ta.push(e[a].1);
                    pa.push(a);
                    pb.push(b);
                }
            }
        }
        let out0: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let mut expect = out0.clone();
        for k in 0..ta.len() {
            expect[ta[k]] += dr[rows[pa[k]]] * vals[pa[k]] * vals[pb[k]];
        }
        let seg = d.segments(&SegmentPlan::new(n, &ta, &pa, &pb).unwrap()).unwrap();
        let mut out = out0.clone();
        d.seg_pair_sum(&dr, &rows, &vals, &seg, &mut out);
        prop_assert_eq!(out, expect);
    }
}

/// Every allocation (`zeros`, `vector_from_host`, `index_from_host`, empty ones too) counts
/// one on the calling thread; kernels and transfers into existing vectors count none.
#[test]
fn allocations_are_counted_per_thread() {
    let d = Cpu;
    let before = d.allocations_on_this_thread();
    let mut x = d.zeros(4).unwrap();
    let y = d.vector_from_host(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    let _idx = d.index_from_host(&[0, 2]).unwrap();
    let _empty = d.zeros(0).unwrap();
    assert_eq!(d.allocations_on_this_thread() - before, 4);
    d.axpy(1.0, &y, &mut x);
    d.copy_from_host(&mut x, &[0.0; 4]).unwrap();
    let mut host = [0.0; 4];
    d.to_host(&y, &mut host).unwrap();
    assert_eq!(d.allocations_on_this_thread() - before, 4);
    // another thread's allocations are its own
    std::thread::spawn(|| {
        let _ = Cpu.zeros(3).unwrap();
    })
    .join()
    .unwrap();
    assert_eq!(d.allocations_on_this_thread() - before, 4);
}
