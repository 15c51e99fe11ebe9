//! Shared checks: every callback against finite differences and the assembled matrices.
#![allow(dead_code)]

use simdnlp_modeling::{Model, NlpModel};
use std::collections::BTreeSet;

/// A small deterministic generator (xorshift), so the tests need no seeding crate.
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

pub fn dense_jac(model: &Model, x: &[f64]) -> Vec<Vec<f64>> {
    let m = model.meta();
    let (mut r, mut c, mut v) = (vec![0; m.nnzj], vec![0; m.nnzj], vec![0.0; m.nnzj]);
    model.jac_structure(&mut r, &mut c);
    model.jac_coord(x, &mut v);
    let mut d = vec![vec![0.0; m.nvar]; m.ncon];
    for k in 0..m.nnzj {
        d[r[k]][c[k]] += v[k];
    }
    d
}

/// Full symmetric Lagrangian Hessian assembled from the lower-triangle COO.
pub fn dense_hess(model: &Model, x: &[f64], y: &[f64], sigma: f64) -> Vec<Vec<f64>> {
    let m = model.meta();
    let (mut r, mut c, mut v) = (vec![0; m.nnzh], vec![0; m.nnzh], vec![0.0; m.nnzh]);
    model.hess_structure(&mut r, &mut c);
    model.hess_coord(x, y, sigma, &mut v);
    let mut d = vec![vec![0.0; m.nvar]; m.nvar];
    for k in 0..m.nnzh {
        assert!(
            r[k] >= c[k],
            "Hessian entry {k} is not in the lower triangle: ({}, {})",
            r[k],
            c[k]
        );
        d[r[k]][c[k]] += v[k];
        if r[k] != c[k] {
            d[c[k]][r[k]] += v[k];
        }
    }
    d
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// ∇L = σ∇f + Jᵀy through grad and jtprod.
fn lag_grad(model: &Model, x: &[f64], y: &[f64], sigma: f64) -> Vec<f64> {
    let n = model.meta().nvar;
    let mut g = vec![0.0; n];
    model.grad(x, &mut g);
    let mut jty = vec![0.0; n];
    model.jtprod(x, y, &mut jty);
    g.iter().zip(&jty).map(|(a, b)| sigma * a + b).collect()
}

/// Checks every callback of `model` at `x` (and random `y`, `σ`, directions):
/// gradient and Jacobian against central differences of obj/cons, Hessian against central
/// differences of the (checked) Lagrangian gradient, structures against the dense nonzero
/// patterns, and jprod/jtprod/hprod against products with the assembled matrices.
pub fn check_callbacks(model: &Model, x: &[f64], rng: &mut Rng) {
    let m = model.meta().clone();
    let (n, mc) = (m.nvar, m.ncon);
    let y: Vec<f64> = (0..mc).map(|_| rng.uniform(-2.0, 2.0)).collect();
    let sigma = rng.uniform(0.5, 2.0);
    let step = |xi: f64| 1e-6 * (1.0 + xi.abs());

    // gradient vs FD of obj
    let mut g = vec![0.0; n];
    model.grad(x, &mut g);
    for j in 0..n {
        let h = step(x[j]);
        let mut xp = x.to_vec();
        xp[j] += h;
        let mut xm = x.to_vec();
        xm[j] -= h;
        let fd = (model.obj(&xp) - model.obj(&xm)) / (2.0 * h);
        assert!(close(g[j], fd, 1e-5), "grad[{j}] = {} but FD = {fd}", g[j]);
    }

    // Jacobian vs FD of cons
    let jd = dense_jac(model, x);
    let mut cp = vec![0.0; mc];
    let mut cm = vec![0.0; mc];
    let mut fdj = vec![vec![0.0; n]; mc];
    for j in 0..n {
        let h = step(x[j]);
        let mut xp = x.to_vec();
        xp[j] += h;
        let mut xm = x.to_vec();
        xm[j] -= h;
        model.cons(&xp, &mut cp);
        model.cons(&xm, &mut cm);
        for i in 0..mc {
            fdj[i][j] = (cp[i] - cm[i]) / (2.0 * h);
            assert!(
                close(jd[i][j], fdj[i][j], 1e-5),
                "J[{i}][{j}] = {} but FD = {}",
                jd[i][j],
                fdj[i][j]
            );
        }
    }

    // Jacobian structure = dense nonzero pattern (after summing duplicates)
    let (mut r, mut c) = (vec![0; m.nnzj], vec![0; m.nnzj]);
    model.jac_structure(&mut r, &mut c);
    let sj: BTreeSet<(usize, usize)> = r.iter().copied().zip(c.iter().copied()).collect();
    for i in 0..mc {
        for j in 0..n {
            let nz = fdj[i][j].abs() > 1e-7;
            if nz {
                assert!(
                    sj.contains(&(i, j)),
                    "J[{i}][{j}] = {} is nonzero but not in the structure",
                    fdj[i][j]
                );
            }
            if sj.contains(&(i, j)) {
                assert!(
                    jd[i][j] != 0.0,
                    "structural J[{i}][{j}] is zero at a random point"
                );
            }
        }
    }

    // Hessian vs FD of the Lagrangian gradient
    let hd = dense_hess(model, x, &y, sigma);
    let mut fdh = vec![vec![0.0; n]; n];
    for j in 0..n {
        let h = step(x[j]);
        let mut xp = x.to_vec();
        xp[j] += h;
        let mut xm = x.to_vec();
        xm[j] -= h;
        let (gp, gm) = (
            lag_grad(model, &xp, &y, sigma),
            lag_grad(model, &xm, &y, sigma),
        );
        for i in 0..n {
            fdh[i][j] = (gp[i] - gm[i]) / (2.0 * h);
        }
    }
    for i in 0..n {
        for j in 0..n {
            assert!(
                close(hd[i][j], fdh[i][j], 1e-4),
                "H[{i}][{j}] = {} but FD = {}",
                hd[i][j],
                fdh[i][j]
            );
        }
    }
    let (mut r, mut c) = (vec![0; m.nnzh], vec![0; m.nnzh]);
    model.hess_structure(&mut r, &mut c);
    let sh: BTreeSet<(usize, usize)> = r.iter().copied().zip(c.iter().copied()).collect();
    for i in 0..n {
        for j in 0..=i {
            if fdh[i][j].abs() > 1e-5 {
                assert!(
                    sh.contains(&(i, j)),
                    "H[{i}][{j}] = {} is nonzero but not in the structure",
                    fdh[i][j]
                );
            }
            if sh.contains(&(i, j)) {
                assert!(
                    hd[i][j] != 0.0,
                    "structural H[{i}][{j}] is zero at a random point"
                );
            }
        }
    }

    // products vs the assembled matrices
    let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let w: Vec<f64> = (0..mc).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let mut jv = vec![0.0; mc];
    model.jprod(x, &v, &mut jv);
    for i in 0..mc {
        let e: f64 = (0..n).map(|j| jd[i][j] * v[j]).sum();
        assert!(
            close(jv[i], e, 1e-12),
            "jprod[{i}] = {} but J v = {e}",
            jv[i]
        );
    }
    let mut jtw = vec![0.0; n];
    model.jtprod(x, &w, &mut jtw);
    for j in 0..n {
        let e: f64 = (0..mc).map(|i| jd[i][j] * w[i]).sum();
        assert!(
            close(jtw[j], e, 1e-12),
            "jtprod[{j}] = {} but Jᵀ w = {e}",
            jtw[j]
        );
    }
    let mut hv = vec![0.0; n];
    model.hprod(x, &y, sigma, &v, &mut hv);
    for i in 0..n {
        let e: f64 = (0..n).map(|j| hd[i][j] * v[j]).sum();
        assert!(
            close(hv[i], e, 1e-12),
            "hprod[{i}] = {} but H v = {e}",
            hv[i]
        );
    }

    // the CSC exports agree with the dense assembly
    let jcsc = model.jacobian_csc(x);
    for (i, j, val) in jcsc.triplet_iter() {
        assert!(close(*val, jd[i][j], 1e-12));
    }
    assert_eq!(jcsc.nnz(), sj.len());
    let hcsc = model.hessian_csc(x, &y, sigma);
    for (i, j, val) in hcsc.triplet_iter() {
        assert!(close(*val, hd[i][j], 1e-12));
    }
}

/// A random point inside the variable bounds (near the start when bounds are infinite).
pub fn random_point(model: &Model, rng: &mut Rng) -> Vec<f64> {
    let m = model.meta();
    (0..m.nvar)
        .map(|j| {
            let (lo, hi) = (m.lvar[j], m.uvar[j]);
            if lo.is_finite() && hi.is_finite() {
                lo + (hi - lo) * rng.uniform(0.1, 0.9)
            } else if lo.is_finite() {
                lo + rng.uniform(0.1, 1.0)
            } else if hi.is_finite() {
                hi - rng.uniform(0.1, 1.0)
            } else {
                m.x0[j] + rng.uniform(-0.5, 0.5)
            }
        })
        .collect()
}
