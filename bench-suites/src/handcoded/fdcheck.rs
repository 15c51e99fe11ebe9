//! Test support: every callback of an [`NlpModel`] against central finite differences,
//! and the matrix-free products against the COO matrices.

use simdnlp_modeling::NlpModel;

/// Deterministic pseudo-random numbers in [-1, 1) (64-bit LCG; no dependency needed).
pub(crate) struct Lcg(u64);

impl Lcg {
    pub(crate) fn new(seed: u64) -> Self {
        Self(
            seed.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        )
    }
    pub(crate) fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// Checks gradient, Jacobian and Hessian against central differences, and `jprod`,
/// `jtprod`, `hprod` against the COO matrices, at `x0` perturbed by up to `±scale`
/// (a random point, so that symmetric starts do not hide errors).
pub(crate) fn check_all(m: &dyn NlpModel<f64>, scale: f64, seed: u64) {
    let meta = m.meta();
    let (n, mc) = (meta.nvar, meta.ncon);
    let mut rng = Lcg::new(seed);
    let x: Vec<f64> = meta.x0.iter().map(|&v| v + scale * rng.next()).collect();
    let y: Vec<f64> = (0..mc).map(|_| rng.next()).collect();
    let sigma = 0.7;
    let h = 1e-6;
    let tol = 1e-5;

    // gradient
    let mut g = vec![0.0; n];
    m.grad(&x, &mut g);
    let mut xp = x.clone();
    for i in 0..n {
        xp[i] = x[i] + h;
        let fp = m.obj(&xp);
        xp[i] = x[i] - h;
        let fm = m.obj(&xp);
        xp[i] = x[i];
        let fd = (fp - fm) / (2.0 * h);
        assert!(close(g[i], fd, tol), "grad[{i}]: {} vs fd {fd}", g[i]);
    }

    // Jacobian (dense from COO, duplicates summed)
    let nnzj = meta.nnzj;
    let (mut jr, mut jc, mut jv) = (vec![0; nnzj], vec![0; nnzj], vec![0.0; nnzj]);
    m.jac_structure(&mut jr, &mut jc);
    m.jac_coord(&x, &mut jv);
    let mut jd = vec![0.0; mc * n];
    for k in 0..nnzj {
        assert!(jr[k] < mc && jc[k] < n, "jac entry {k} out of range");
        jd[jr[k] * n + jc[k]] += jv[k];
    }
    let (mut cp, mut cm) = (vec![0.0; mc], vec![0.0; mc]);
    for j in 0..n {
        xp[j] = x[j] + h;
        m.cons(&xp, &mut cp);
        xp[j] = x[j] - h;
        m.cons(&xp, &mut cm);
        xp[j] = x[j];
        for i in 0..mc {
            let fd = (cp[i] - cm[i]) / (2.0 * h);
            assert!(
                close(jd[i * n + j], fd, tol),
                "jac[{i},{j}]: {} vs fd {fd}",
                jd[i * n + j]
            );
        }
    }

    // Hessian of the Lagrangian: differences of σ∇f + Jᵀy
    let nnzh = meta.nnzh;
    let (mut hr, mut hc, mut hv) = (vec![0; nnzh], vec![0; nnzh], vec![0.0; nnzh]);
    m.hess_structure(&mut hr, &mut hc);
    m.hess_coord(&x, &y, sigma, &mut hv);
    let mut hd = vec![0.0; n * n];
    for k in 0..nnzh {
        assert!(
            hr[k] < n && hc[k] <= hr[k],
            "hess entry {k} not lower triangle"
        );
        hd[hr[k] * n + hc[k]] += hv[k];
        if hr[k] != hc[k] {
            hd[hc[k] * n + hr[k]] += hv[k];
        }
    }
    let lag_grad = |xx: &[f64], out: &mut [f64]| {
        let mut gg = vec![0.0; n];
        m.grad(xx, &mut gg);
        m.jtprod(xx, &y, out);
        for i in 0..n {
            out[i] += sigma * gg[i];
        }
    };
    let (mut gp, mut gm) = (vec![0.0; n], vec![0.0; n]);
    for j in 0..n {
        xp[j] = x[j] + h;
        lag_grad(&xp, &mut gp);
        xp[j] = x[j] - h;
        lag_grad(&xp, &mut gm);
        xp[j] = x[j];
        for i in 0..n {
            let fd = (gp[i] - gm[i]) / (2.0 * h);
            assert!(
                close(hd[i * n + j], fd, tol),
                "hess[{i},{j}]: {} vs fd {fd}",
                hd[i * n + j]
            );
        }
    }

    // products against the dense matrices
    let v: Vec<f64> = (0..n).map(|_| rng.next()).collect();
    let w: Vec<f64> = (0..mc).map(|_| rng.next()).collect();
    let mut out = vec![0.0; mc];
    m.jprod(&x, &v, &mut out);
    for i in 0..mc {
        let want: f64 = (0..n).map(|j| jd[i * n + j] * v[j]).sum();
        assert!(close(out[i], want, 1e-12), "jprod[{i}]");
    }
    let mut out = vec![0.0; n];
    m.jtprod(&x, &w, &mut out);
    for j in 0..n {
        let want: f64 = (0..mc).map(|i| jd[i * n + j] * w[i]).sum();
        assert!(close(out[j], want, 1e-12), "jtprod[{j}]");
    }
    m.hprod(&x, &y, sigma, &v, &mut out);
    for i in 0..n {
        let want: f64 = (0..n).map(|j| hd[i * n + j] * v[j]).sum();
        assert!(close(out[i], want, 1e-12), "hprod[{i}]");
    }
}
