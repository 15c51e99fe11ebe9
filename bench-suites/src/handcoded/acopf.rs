//! Hand-written AC polar OPF model (bench-problems.md, the 15 patterns) with hand-derived
//! first and second derivatives.
//!
//! Variable layout (0-based): `va` (nbus), `vm` (nbus), `pg` (ngen), `qg` (ngen), `p`
//! (2·nbranch arcs), `q` (2·nbranch arcs). Row layout: reference angles (nref), from-side
//! active and reactive flows, to-side active and reactive flows, angle differences (each
//! nbranch), active then reactive balance (each nbus), from-side then to-side thermal
//! limits (each nbranch).
//!
//! Every flow row has the form `z + a·vm_i² + vm_i·vm_j·(α cos θ + β sin θ)` with
//! `θ = va_i − va_j`, `i` the arc's own bus, `j` the other end:
//! `(a, α, β)` is `(−c5, −c3, −c4)` for (3), `(c6, c4, −c3)` for (4), `(−c7, −c1, −c2)`
//! for (5) and `(c8, c2, −c1)` for (6). The Lagrangian Hessian is compressed by hand: one
//! entry per generator (`pg²`), one per bus (`vm²` of the shunts), ten per branch (the
//! lower triangle over `va_f, va_t, vm_f, vm_t`, all four flow rows summed) and two per
//! arc (`p²`, `q²` of the thermal limit) — the tightest a hand-coded model gets, which
//! is the point of the baseline.

use super::coo::{self, CooVisit};
use simdnlp_modeling::{NlpMeta, NlpModel};

use crate::opf::OpfData;

/// The hand-coded AC polar OPF [`NlpModel`] of one network.
#[derive(Clone, Debug)]
pub struct AcopfModel {
    data: OpfData,
    meta: NlpMeta<f64>,
    /// Variable block offsets: va, vm, pg, qg, p, q.
    va: usize,
    vm: usize,
    pg: usize,
    qg: usize,
    p: usize,
    q: usize,
}

/// Coefficients `(a, α, β)` of the four flow rows of a branch (see the module docs).
fn flow_coefs(c: &[f64; 8]) -> [(f64, f64, f64); 4] {
    let [c1, c2, c3, c4, c5, c6, c7, c8] = *c;
    [
        (-c5, -c3, -c4),
        (c6, c4, -c3),
        (-c7, -c1, -c2),
        (c8, c2, -c1),
    ]
}

/// Index of the local lower-triangle slot `(a, b)` of a 4×4 symmetric block.
const fn slot(a: usize, b: usize) -> usize {
    if a >= b {
        a * (a + 1) / 2 + b
    } else {
        b * (b + 1) / 2 + a
    }
}

impl AcopfModel {
    /// Builds the model of `data`: bounds, start (`va = 0`, `vm = 1`, the rest 0) and
    /// sizes `nvar = 2·nbus + 2·ngen + 4·nbranch`, `ncon = nref + 2·nbus + 7·nbranch`.
    pub fn new(data: OpfData) -> Self {
        let (nb, ng, nl) = (data.nbus(), data.ngen(), data.nbranch());
        let na = 2 * nl;
        let va = 0;
        let vm = nb;
        let pg = 2 * nb;
        let qg = pg + ng;
        let p = qg + ng;
        let q = p + na;
        let mut meta = NlpMeta::<f64>::new(data.nvar(), data.ncon());
        meta.name = format!("acopf/{}", crate::opf::short_name(&data.name));
        for (b, bus) in data.buses.iter().enumerate() {
            meta.lvar[vm + b] = bus.vmin;
            meta.uvar[vm + b] = bus.vmax;
            meta.x0[vm + b] = 1.0;
        }
        for (g, gen_) in data.gens.iter().enumerate() {
            meta.lvar[pg + g] = gen_.pmin;
            meta.uvar[pg + g] = gen_.pmax;
            meta.lvar[qg + g] = gen_.qmin;
            meta.uvar[qg + g] = gen_.qmax;
        }
        for (a, arc) in data.arcs.iter().enumerate() {
            let r = data.branches[arc.branch].rate_a;
            for off in [p, q] {
                meta.lvar[off + a] = -r;
                meta.uvar[off + a] = r;
            }
        }
        let nref = data.nref();
        let r7 = nref + 4 * nl;
        let r14 = nref + 5 * nl + 2 * nb;
        for (l, br) in data.branches.iter().enumerate() {
            meta.lcon[r7 + l] = br.angmin;
            meta.ucon[r7 + l] = br.angmax;
            for side in 0..2 {
                meta.lcon[r14 + side * nl + l] = f64::NEG_INFINITY;
                meta.ucon[r14 + side * nl + l] = br.rate_a * br.rate_a;
            }
        }
        let mut model = Self {
            data,
            meta,
            va,
            vm,
            pg,
            qg,
            p,
            q,
        };
        let x0 = model.meta.x0.clone();
        let mut nnzj = 0;
        model.jac_visit(&x0, |_, _, _| nnzj += 1);
        let y0 = vec![0.0; model.meta.ncon];
        let mut nnzh = 0;
        model.hess_visit(&x0, &y0, 0.0, |_, _, _| nnzh += 1);
        model.meta.nnzj = nnzj;
        model.meta.nnzh = nnzh;
        model
    }

    /// The network this model was built from.
    pub fn data(&self) -> &OpfData {
        &self.data
    }

    /// `(vm_f, vm_t, cos θ, sin θ)` of branch `l` at `x`, `θ = va_f − va_t`.
    #[inline]
    fn branch_state(&self, x: &[f64], l: usize) -> (f64, f64, f64, f64) {
        let br = &self.data.branches[l];
        let th = x[self.va + br.f] - x[self.va + br.t];
        let (s, c) = th.sin_cos();
        (x[self.vm + br.f], x[self.vm + br.t], c, s)
    }
}

impl CooVisit for AcopfModel {
    /// Calls `emit(row, col, value)` for every Jacobian entry, in structure order.
    #[inline]
    fn jac_visit(&self, x: &[f64], mut emit: impl FnMut(usize, usize, f64)) {
        let d = &self.data;
        let (nb, nl) = (d.nbus(), d.nbranch());
        let nref = d.nref();
        for (k, &b) in d.ref_buses.iter().enumerate() {
            emit(k, self.va + b, 1.0);
        }
        // Flow rows (3)-(6): [z, vm_i, vm_j, va_i, va_j] each.
        for (l, br) in d.branches.iter().enumerate() {
            let (vf, vt, c, s) = self.branch_state(x, l);
            let coefs = flow_coefs(&br.c);
            for (r, &(a, al, be)) in coefs.iter().enumerate() {
                let row = nref + r * nl + l;
                let from = r < 2;
                let (i, j, vi, vj, si) = if from {
                    (br.f, br.t, vf, vt, s)
                } else {
                    (br.t, br.f, vt, vf, -s)
                };
                let z = if r % 2 == 0 { self.p } else { self.q } + if from { l } else { nl + l };
                let g = al * c + be * si;
                let gp = -al * si + be * c;
                emit(row, z, 1.0);
                emit(row, self.vm + i, 2.0 * a * vi + vj * g);
                emit(row, self.vm + j, vi * g);
                emit(row, self.va + i, vi * vj * gp);
                emit(row, self.va + j, -vi * vj * gp);
            }
        }
        let r7 = nref + 4 * nl;
        for (l, br) in d.branches.iter().enumerate() {
            emit(r7 + l, self.va + br.f, 1.0);
            emit(r7 + l, self.va + br.t, -1.0);
        }
        let r8 = nref + 5 * nl;
        for (b, bus) in d.buses.iter().enumerate() {
            let v = x[self.vm + b];
            emit(r8 + b, self.vm + b, 2.0 * bus.gs * v);
            for &a in d.arcs_at(b) {
                emit(r8 + b, self.p + a, 1.0);
            }
            for &g in d.gens_at(b) {
                emit(r8 + b, self.pg + g, -1.0);
            }
        }
        let r9 = r8 + nb;
        for (b, bus) in d.buses.iter().enumerate() {
            let v = x[self.vm + b];
            emit(r9 + b, self.vm + b, -2.0 * bus.bs * v);
            for &a in d.arcs_at(b) {
                emit(r9 + b, self.q + a, 1.0);
            }
            for &g in d.gens_at(b) {
                emit(r9 + b, self.qg + g, -1.0);
            }
        }
        let r14 = r9 + nb;
        for a in 0..2 * nl {
            emit(r14 + a, self.p + a, 2.0 * x[self.p + a]);
            emit(r14 + a, self.q + a, 2.0 * x[self.q + a]);
        }
    }

    /// Calls `emit(row, col, value)` for every lower-triangle Hessian entry, in structure
    /// order.
    #[inline]
    fn hess_visit(
        &self,
        x: &[f64],
        y: &[f64],
        sigma: f64,
        mut emit: impl FnMut(usize, usize, f64),
    ) {
        let d = &self.data;
        let (nb, nl) = (d.nbus(), d.nbranch());
        let nref = d.nref();
        for (g, gen_) in d.gens.iter().enumerate() {
            emit(self.pg + g, self.pg + g, sigma * 2.0 * gen_.c2);
        }
        let r8 = nref + 5 * nl;
        let r9 = r8 + nb;
        for (b, bus) in d.buses.iter().enumerate() {
            let h = 2.0 * (y[r8 + b] * bus.gs - y[r9 + b] * bus.bs);
            emit(self.vm + b, self.vm + b, h);
        }
        for (l, br) in d.branches.iter().enumerate() {
            let (vf, vt, c, s) = self.branch_state(x, l);
            let vv = vf * vt;
            let mut h = [0.0f64; 10];
            let coefs = flow_coefs(&br.c);
            for (r, &(a, al, be)) in coefs.iter().enumerate() {
                let w = y[nref + r * nl + l];
                // local order: 0 va_f, 1 va_t, 2 vm_f, 3 vm_t
                let (vi_l, vj_l, ai_l, aj_l, vi, vj, si) = if r < 2 {
                    (2, 3, 0, 1, vf, vt, s)
                } else {
                    (3, 2, 1, 0, vt, vf, -s)
                };
                let g = al * c + be * si;
                let gp = -al * si + be * c;
                h[slot(vi_l, vi_l)] += w * 2.0 * a;
                h[slot(vi_l, vj_l)] += w * g;
                h[slot(vi_l, ai_l)] += w * vj * gp;
                h[slot(vi_l, aj_l)] -= w * vj * gp;
                h[slot(vj_l, ai_l)] += w * vi * gp;
                h[slot(vj_l, aj_l)] -= w * vi * gp;
                h[slot(ai_l, ai_l)] -= w * vv * g;
                h[slot(aj_l, aj_l)] -= w * vv * g;
                h[slot(ai_l, aj_l)] += w * vv * g;
            }
            let gl = [
                self.va + br.f,
                self.va + br.t,
                self.vm + br.f,
                self.vm + br.t,
            ];
            for a in 0..4 {
                for b in 0..=a {
                    let (ga, gb) = (gl[a], gl[b]);
                    emit(ga.max(gb), ga.min(gb), h[slot(a, b)]);
                }
            }
        }
        let r14 = r9 + nb;
        for a in 0..2 * nl {
            let w = 2.0 * y[r14 + a];
            emit(self.p + a, self.p + a, w);
            emit(self.q + a, self.q + a, w);
        }
    }
}

impl NlpModel<f64> for AcopfModel {
    fn meta(&self) -> &NlpMeta<f64> {
        &self.meta
    }

    fn obj(&self, x: &[f64]) -> f64 {
        self.data
            .gens
            .iter()
            .zip(&x[self.pg..self.qg])
            .map(|(g, &pg)| (g.c2 * pg + g.c1) * pg + g.c0)
            .sum()
    }

    fn grad(&self, x: &[f64], g: &mut [f64]) {
        g.fill(0.0);
        for (k, gen_) in self.data.gens.iter().enumerate() {
            g[self.pg + k] = 2.0 * gen_.c2 * x[self.pg + k] + gen_.c1;
        }
    }

    fn cons(&self, x: &[f64], cv: &mut [f64]) {
        let d = &self.data;
        let (nb, nl) = (d.nbus(), d.nbranch());
        let nref = d.nref();
        for (k, &b) in d.ref_buses.iter().enumerate() {
            cv[k] = x[self.va + b];
        }
        for (l, br) in d.branches.iter().enumerate() {
            let (vf, vt, c, s) = self.branch_state(x, l);
            let vv = vf * vt;
            let coefs = flow_coefs(&br.c);
            for (r, &(a, al, be)) in coefs.iter().enumerate() {
                let from = r < 2;
                let (vi, si) = if from { (vf, s) } else { (vt, -s) };
                let z = if r % 2 == 0 { self.p } else { self.q } + if from { l } else { nl + l };
                cv[nref + r * nl + l] = x[z] + a * vi * vi + vv * (al * c + be * si);
            }
            cv[nref + 4 * nl + l] = x[self.va + br.f] - x[self.va + br.t];
        }
        let r8 = nref + 5 * nl;
        let r9 = r8 + nb;
        for (b, bus) in d.buses.iter().enumerate() {
            let v = x[self.vm + b];
            let mut pb = bus.pd + bus.gs * v * v;
            let mut qb = bus.qd - bus.bs * v * v;
            for &a in d.arcs_at(b) {
                pb += x[self.p + a];
                qb += x[self.q + a];
            }
            for &g in d.gens_at(b) {
                pb -= x[self.pg + g];
                qb -= x[self.qg + g];
            }
            cv[r8 + b] = pb;
            cv[r9 + b] = qb;
        }
        let r14 = r9 + nb;
        for a in 0..2 * nl {
            let (pa, qa) = (x[self.p + a], x[self.q + a]);
            cv[r14 + a] = pa * pa + qa * qa;
        }
    }

    coo::coo_callbacks!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opf::find_case;
    use crate::testing::{FdOptions, check_derivatives};

    fn model(name: &str) -> AcopfModel {
        AcopfModel::new(OpfData::read(find_case(name).unwrap()).unwrap())
    }

    #[test]
    fn sizes_case5() {
        let m = model("case5_pjm");
        let meta = m.meta();
        assert_eq!((meta.nvar, meta.ncon), (44, 53));
        let d = m.data();
        let (nb, ng, nl, nref) = (d.nbus(), d.ngen(), d.nbranch(), d.nref());
        assert_eq!(meta.nnzj, nref + 30 * nl + 2 * nb + 2 * ng);
        assert_eq!(meta.nnzh, ng + nb + 14 * nl);
    }

    #[test]
    fn flat_start_residuals_by_hand() {
        // At vm = 1, va = 0, p = q = 0: from-side active flow residual −c5 − c3 and
        // reactive +c6 + c4; for an untapped line these are 0 and b_fr = B/2.
        let m = model("case5_pjm");
        let meta = m.meta();
        let mut c = vec![0.0; meta.ncon];
        m.cons(&meta.x0, &mut c);
        let d = m.data();
        let nl = d.nbranch();
        let br = &d.branches[0];
        assert!((c[1] - (-br.c[4] - br.c[2])).abs() < 1e-12);
        assert!(c[1].abs() < 1e-9);
        assert!((c[1 + nl] - 0.00712 / 2.0).abs() < 1e-12);
        // active balance at bus 2 (index 1): pd = 3.0 p.u.
        assert!((c[1 + 5 * nl + 1] - 3.0).abs() < 1e-12);
        // objective at pg = 0 is Σ c0 = 0 for case5
        assert_eq!(m.obj(&meta.x0), 0.0);
    }

    #[test]
    fn derivatives_case5_against_finite_differences() {
        let opts = FdOptions {
            seed: 7,
            perturbation: 0.05,
            ..FdOptions::default()
        };
        check_derivatives("case5_pjm", &model("case5_pjm"), &opts);
    }

    #[test]
    fn derivatives_case14_against_finite_differences() {
        let opts = FdOptions {
            seed: 11,
            perturbation: 0.05,
            ..FdOptions::default()
        };
        check_derivatives("case14_ieee", &model("case14_ieee"), &opts);
    }
}
