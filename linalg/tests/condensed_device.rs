//! The condensed KKT system on a device ([`DeviceCondensedKkt`]) against the host code:
//! assembly bitwise equal to [`CondensedKkt::assemble`] on the `Cpu` and the emulated
//! CUDA device; with δc = 0 the reduced right-hand side and the expanded steps bitwise
//! equal to the host formulas of the CPU backend; with δc > 0 the expanded solution solves
//! the augmented system (residual against a dense elimination).

#![allow(clippy::needless_range_loop)] // dense reference algebra reads best with indices

use simdnlp_device::{Cpu, Device, Emu, HostBuffers};
use simdnlp_linalg::{CondensedKkt, CondensedValues, DeviceCondensedKkt, LinalgError};

/// A deterministic pseudo-random sequence in [-1, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    fn below(&mut self, k: usize) -> usize {
        ((self.next() + 1.0) * 0.5 * k as f64) as usize % k
    }
}

/// A small system: Hessian lower COO (each pair once, diagonal included), a Jacobian COO
/// with a repeated entry, and random values.
struct Problem {
    n: usize,
    m: usize,
    hrows: Vec<usize>,
    hcols: Vec<usize>,
    jrows: Vec<usize>,
    jcols: Vec<usize>,
    hvals: Vec<f64>,
    jvals: Vec<f64>,
    sigma_x: Vec<f64>,
    sigma_s: Vec<f64>,
}

fn problem(seed: u64) -> Problem {
    let (n, m) = (9, 5);
    let mut rng = Lcg(seed);
    let (mut hrows, mut hcols) = (Vec::new(), Vec::new());
    for i in 0..n {
        hrows.push(i);
        hcols.push(i);
        for j in 0..i {
            if rng.next() > 0.5 {
                hrows.push(i);
                hcols.push(j);
            }
        }
    }
    let (mut jrows, mut jcols) = (Vec::new(), Vec::new());
    for r in 0..m {
        for _ in 0..3 {
            jrows.push(r);
            jcols.push(rng.below(n));
        }
    }
    // a duplicate entry (summed)
    jrows.push(0);
    jcols.push(jcols[0]);
    let hvals = hrows
        .iter()
        .zip(&hcols)
        .map(|(r, c)| {
            if r == c {
                4.0 + rng.next()
            } else {
                0.3 * rng.next()
            }
        })
        .collect();
    let jvals = jrows.iter().map(|_| rng.next()).collect();
    let sigma_x = (0..n).map(|_| 1.0 + rng.next().abs()).collect();
    let sigma_s = (0..m).map(|_| 0.5 + rng.next().abs()).collect();
    Problem {
        n,
        m,
        hrows,
        hcols,
        jrows,
        jcols,
        hvals,
        jvals,
        sigma_x,
        sigma_s,
    }
}

fn emu() -> Option<Emu> {
    if std::env::var_os("SIMDNLP_SKIP_GXX").is_some() {
        eprintln!("skipped: SIMDNLP_SKIP_GXX is set (no Emu)");
        return None;
    }
    Some(Emu::new().expect("the emulated device needs g++"))
}

fn upload<D: Device>(device: &D, v: &[f64]) -> D::Vector {
    device.vector_from_host(v).unwrap()
}

/// `K`'s values assembled on `device`, then shifted by `shift` on the diagonal.
fn assembled<D: Device + HostBuffers>(device: &D, p: &Problem, d: &[f64], shift: f64) -> Vec<f64> {
    let pattern = CondensedKkt::new(p.n, p.m, &p.hrows, &p.hcols, &p.jrows, &p.jcols).unwrap();
    let kkt = DeviceCondensedKkt::new(device, &pattern, &p.jrows, &p.jcols).unwrap();
    let mut out = device.zeros(pattern.nnz()).unwrap();
    device.fill(&mut out, f64::NAN); // assemble overwrites every entry
    kkt.assemble(
        device,
        &upload(device, &p.hvals),
        &upload(device, &p.sigma_x),
        &upload(device, &p.jvals),
        &upload(device, d),
        &mut out,
    )
    .unwrap();
    kkt.shift_diagonal(device, shift, &mut out).unwrap();
    device.synchronize().unwrap();
    device.host(&out).to_vec()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn assembly_is_bitwise_the_host_assembly() {
    let emu = emu();
    for seed in 1..6 {
        let p = problem(seed);
        let pattern = CondensedKkt::new(p.n, p.m, &p.hrows, &p.hcols, &p.jrows, &p.jcols).unwrap();
        let mut host = vec![0.0; pattern.nnz()];
        pattern
            .assemble(&p.hvals, &p.sigma_x, &p.jvals, &p.sigma_s, &mut host)
            .unwrap();
        let shift = 0.125 * seed as f64;
        for &pos in pattern.diag_positions() {
            host[pos] += shift;
        }
        assert_eq!(bits(&assembled(&Cpu, &p, &p.sigma_s, shift)), bits(&host));
        if let Some(emu) = &emu {
            assert_eq!(bits(&assembled(emu, &p, &p.sigma_s, shift)), bits(&host));
        }
    }
}

/// `(rx, ds, dy)` of a reduce/solve/expand round on `device`, with `dx` given (the
/// factorization is not part of this module) and δc.
fn round<D: Device + HostBuffers>(
    device: &D,
    p: &Problem,
    delta_c: f64,
    rhs: [&[f64]; 3],
    dx: &[f64],
) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let pattern = CondensedKkt::new(p.n, p.m, &p.hrows, &p.hcols, &p.jrows, &p.jcols).unwrap();
    let mut kkt = DeviceCondensedKkt::new(device, &pattern, &p.jrows, &p.jcols).unwrap();
    let (mut q, mut d) = (device.zeros(p.m).unwrap(), device.zeros(p.m).unwrap());
    kkt.weights(device, &upload(device, &p.sigma_s), delta_c, &mut q, &mut d)
        .unwrap();
    let jac = upload(device, &p.jvals);
    let system = CondensedValues {
        jac_vals: &jac,
        d: &d,
        q: &q,
        delta_c,
    };
    let [bx, bs, by] = rhs.map(|v| upload(device, v));
    let mut rx = device.zeros(p.n).unwrap();
    kkt.reduce(device, &system, [&bx, &bs, &by], &mut rx)
        .unwrap();
    let (mut ds, mut dy) = (device.zeros(p.m).unwrap(), device.zeros(p.m).unwrap());
    kkt.expand(
        device,
        &system,
        &upload(device, dx),
        [&bs, &by],
        &mut ds,
        &mut dy,
    )
    .unwrap();
    device.synchronize().unwrap();
    (
        device.host(&rx).to_vec(),
        device.host(&ds).to_vec(),
        device.host(&dy).to_vec(),
        device.host(&d).to_vec(),
    )
}

fn rhs(p: &Problem, seed: u64) -> [Vec<f64>; 4] {
    let mut rng = Lcg(seed ^ 0x9e37);
    [
        (0..p.n).map(|_| rng.next()).collect(),
        (0..p.m).map(|_| rng.next()).collect(),
        (0..p.m).map(|_| rng.next()).collect(),
        (0..p.n).map(|_| rng.next()).collect(),
    ]
}

#[test]
fn without_delta_c_reduce_and_expand_are_the_host_formulas() {
    let emu = emu();
    let p = problem(7);
    let [bx, bs, by, dx] = rhs(&p, 7);
    // the CPU backend's condensed solve, written out
    let d = &p.sigma_s;
    let t: Vec<f64> = (0..p.m).map(|j| d[j] * by[j] + bs[j]).collect();
    let mut rx = bx.clone();
    for k in 0..p.jvals.len() {
        rx[p.jcols[k]] += p.jvals[k] * t[p.jrows[k]];
    }
    let mut jdx = vec![0.0; p.m];
    for k in 0..p.jvals.len() {
        jdx[p.jrows[k]] += p.jvals[k] * dx[p.jcols[k]];
    }
    let ds: Vec<f64> = (0..p.m).map(|j| jdx[j] - by[j]).collect();
    let dy: Vec<f64> = (0..p.m).map(|j| d[j] * ds[j] - bs[j]).collect();
    let got = round(&Cpu, &p, 0.0, [&bx, &bs, &by], &dx);
    assert_eq!(bits(&got.0), bits(&rx));
    assert_eq!(bits(&got.1), bits(&ds));
    assert_eq!(bits(&got.2), bits(&dy));
    assert_eq!(bits(&got.3), bits(d), "D = Σ' when δc = 0");
    if let Some(emu) = &emu {
        let on_emu = round(emu, &p, 0.0, [&bx, &bs, &by], &dx);
        assert_eq!(bits(&on_emu.0), bits(&rx));
        assert_eq!(bits(&on_emu.1), bits(&ds));
        assert_eq!(bits(&on_emu.2), bits(&dy));
    }
}

/// Solves a dense system by Gaussian elimination with partial pivoting.
fn dense_solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let pivot = (c..n)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        a.swap(c, pivot);
        b.swap(c, pivot);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            for k in c..n {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    x
}

#[test]
fn with_delta_c_the_expanded_step_solves_the_augmented_system() {
    let p = problem(11);
    let (delta_w, delta_c) = (0.1, 0.3);
    let [bx, bs, by, _] = rhs(&p, 11);
    let sigma_s: Vec<f64> = p.sigma_s.iter().map(|s| s + delta_w).collect();
    let p = Problem {
        sigma_s: sigma_s.clone(),
        ..p
    };
    // K with δw on the diagonal, assembled on the device, then densified
    let pattern = CondensedKkt::new(p.n, p.m, &p.hrows, &p.hcols, &p.jrows, &p.jcols).unwrap();
    let d: Vec<f64> = sigma_s.iter().map(|s| s / (1.0 + delta_c * s)).collect();
    let k_vals = assembled(&Cpu, &p, &d, delta_w);
    let mut k = vec![vec![0.0; p.n]; p.n];
    for c in 0..p.n {
        for e in pattern.col_ptr()[c]..pattern.col_ptr()[c + 1] {
            let r = pattern.row_idx()[e];
            k[r][c] = k_vals[e];
            k[c][r] = k_vals[e];
        }
    }
    // reduce on the device, solve on the host, expand on the device
    let (rx, _, _, _) = round(&Cpu, &p, delta_c, [&bx, &bs, &by], &vec![0.0; p.n]);
    let dx = dense_solve(k, rx);
    let (_, ds, dy, _) = round(&Cpu, &p, delta_c, [&bx, &bs, &by], &dx);
    // the augmented rows, with W mirrored and J's duplicates summed
    let mut row_x = bx.iter().map(|b| -b).collect::<Vec<_>>();
    for (k, (&r, &c)) in p.hrows.iter().zip(&p.hcols).enumerate() {
        row_x[r] += p.hvals[k] * dx[c];
        if r != c {
            row_x[c] += p.hvals[k] * dx[r];
        }
    }
    for i in 0..p.n {
        row_x[i] += (p.sigma_x[i] + delta_w) * dx[i];
    }
    let mut row_y: Vec<f64> = (0..p.m).map(|j| -ds[j] - delta_c * dy[j] - by[j]).collect();
    for (k, (&r, &c)) in p.jrows.iter().zip(&p.jcols).enumerate() {
        row_x[c] += p.jvals[k] * dy[r];
        row_y[r] += p.jvals[k] * dx[c];
    }
    let row_s: Vec<f64> = (0..p.m)
        .map(|j| sigma_s[j] * ds[j] - dy[j] - bs[j])
        .collect();
    let worst = row_x
        .iter()
        .chain(&row_s)
        .chain(&row_y)
        .fold(0.0f64, |a, r| a.max(r.abs()));
    assert!(worst < 1e-12, "augmented residual {worst:e}");
}

#[test]
fn wrong_lengths_are_errors() {
    let p = problem(3);
    let pattern = CondensedKkt::new(p.n, p.m, &p.hrows, &p.hcols, &p.jrows, &p.jcols).unwrap();
    let err = DeviceCondensedKkt::new(&Cpu, &pattern, &p.jrows[1..], &p.jcols[1..]).unwrap_err();
    assert!(matches!(err, LinalgError::LengthMismatch { .. }), "{err}");
    let kkt = DeviceCondensedKkt::new(&Cpu, &pattern, &p.jrows, &p.jcols).unwrap();
    let mut out = vec![0.0; pattern.nnz()];
    let err = kkt
        .assemble(
            &Cpu,
            &p.hvals,
            &p.sigma_x[1..].to_vec(),
            &p.jvals,
            &p.sigma_s,
            &mut out,
        )
        .unwrap_err();
    assert!(err.to_string().contains("sigma_x"), "{err}");
    let err = kkt
        .shift_diagonal(&Cpu, 1.0, &mut vec![0.0; 3])
        .unwrap_err();
    assert!(matches!(err, LinalgError::LengthMismatch { .. }), "{err}");
}
