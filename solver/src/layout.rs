//! Host-side problem layout: slacks, relaxed bounds, compressed bound lists.
//!
//! Built once at setup from the model's [`NlpMeta`]; the backend copies what it needs to the
//! device.

use crate::options::{KktKind, Options};
use simdnlp_modeling::NlpMeta;

/// How the model's rows and bounds map onto the interior-point variables `w = (x, s)`.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Number of model variables.
    pub n: usize,
    /// Number of model rows.
    pub m: usize,
    /// Number of slacks (inequality rows).
    pub ns: usize,
    /// Model row of each slack, length `ns`.
    pub slack_rows: Vec<usize>,
    /// Right-hand side `b_j` of each equality row, 0 for rows with a slack (length `m`).
    pub rhs: Vec<f64>,
    /// Lower bounds of `w` after relaxation (`−∞` when absent), length `n + ns`.
    pub lo: Vec<f64>,
    /// Upper bounds of `w` after relaxation (`+∞` when absent), length `n + ns`.
    pub up: Vec<f64>,
    /// Components of `w` with a finite lower bound.
    pub lower_idx: Vec<usize>,
    /// Components of `w` with a finite upper bound.
    pub upper_idx: Vec<usize>,
    /// Per `lower_idx` entry: 1 when the component has no upper bound (κ_d damping).
    pub damp_l: Vec<f64>,
    /// Per `upper_idx` entry: 1 when the component has no lower bound (κ_d damping).
    pub damp_u: Vec<f64>,
}

impl Layout {
    /// Number of primal interior-point variables `n + ns`.
    pub fn nw(&self) -> usize {
        self.n + self.ns
    }

    /// Build the layout. `relax` is the relative bound relaxation; fixed variables
    /// (`lvar == uvar`) are relaxed by at least `1e-8 · max(1, |v|)` so they keep an
    /// interior. With `kkt == Condensed` equality rows get a slack with bounds
    /// `b ∓ equality_relax · max(1, |b|)`.
    pub fn new(meta: &NlpMeta<f64>, opts: &Options) -> Self {
        let relax = opts.bound_relax_factor;
        let condensed = opts.kkt == KktKind::Condensed;
        let (n, m) = (meta.nvar, meta.ncon);
        let mut slack_rows = Vec::new();
        let mut rhs = vec![0.0; m];
        let mut lo: Vec<f64> = Vec::with_capacity(n + m);
        let mut up: Vec<f64> = Vec::with_capacity(n + m);
        let widen = |l: f64, u: f64, r: f64| -> (f64, f64) {
            let l2 = if l.is_finite() {
                l - r * l.abs().max(1.0)
            } else {
                l
            };
            let u2 = if u.is_finite() {
                u + r * u.abs().max(1.0)
            } else {
                u
            };
            (l2, u2)
        };
        for i in 0..n {
            let (l, u) = (meta.lvar[i], meta.uvar[i]);
            let r = if l == u { relax.max(1e-8) } else { relax };
            let (l2, u2) = widen(l, u, r);
            lo.push(l2);
            up.push(u2);
        }
        let mut slo = Vec::new();
        let mut sup = Vec::new();
        for j in 0..m {
            let (l, u) = (meta.lcon[j], meta.ucon[j]);
            if l == u && !condensed {
                rhs[j] = l;
            } else {
                slack_rows.push(j);
                let r = if l == u {
                    opts.equality_relax.max(1e-14)
                } else {
                    relax
                };
                let (l2, u2) = widen(l, u, r);
                slo.push(l2);
                sup.push(u2);
            }
        }
        lo.extend(slo);
        up.extend(sup);
        let ns = slack_rows.len();
        let mut lower_idx = Vec::new();
        let mut upper_idx = Vec::new();
        let mut damp_l = Vec::new();
        let mut damp_u = Vec::new();
        for i in 0..n + ns {
            if lo[i].is_finite() {
                lower_idx.push(i);
                damp_l.push(if up[i].is_finite() { 0.0 } else { 1.0 });
            }
            if up[i].is_finite() {
                upper_idx.push(i);
                damp_u.push(if lo[i].is_finite() { 0.0 } else { 1.0 });
            }
        }
        Self {
            n,
            m,
            ns,
            slack_rows,
            rhs,
            lo,
            up,
            lower_idx,
            upper_idx,
            damp_l,
            damp_u,
        }
    }
}
