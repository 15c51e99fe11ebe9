//! The AC polar OPF model in pattern form: the 15 patterns of `spec/bench-problems.md`
//! (PGLIB-OPF section), built with the modeling layer from an [`OpfData`].
//!
//! Variable layout (the same as [`crate::handcoded::AcopfModel`]): `va` (nbus, free,
//! start 0), `vm` (nbus, `[vmin, vmax]`, start 1), `pg`, `qg` (ngen, bounds, start 0),
//! `p`, `q` (2·nbranch arcs: arc `l` is the from side of branch `l`, arc `nbranch + l`
//! its to side; `[−rate_a, rate_a]`, start 0).
//!
//! Row layout (also the hand-coded one): (2) reference angles, (3) from-side active and
//! (4) reactive flows, (5) to-side active and (6) reactive flows, (7) angle differences,
//! (8) active and (9) reactive balances, (14) from-side and (15) to-side thermal limits.
//! The balances are base patterns over the buses (`pd + gs·vm²`, `qd − bs·vm²`) augmented
//! by (10) `+p_a`, (11) `+q_a` over the arcs and (12) `−pg_g`, (13) `−qg_g` over the
//! generators, so the model has 15 patterns whatever the network.

use simdnlp_modeling::{DataRow, Model, ModelBuilder, ModelError, Scalar, Var};

use super::OpfData;

/// A generator as pattern data.
#[derive(Clone, Debug, DataRow)]
struct GenRow {
    /// Generator index (position in `pg`, `qg`).
    g: usize,
    /// Its bus.
    bus: usize,
    /// Quadratic cost ($/h per p.u.²).
    c2: f64,
    /// Linear cost ($/h per p.u.).
    c1: f64,
    /// Constant cost ($/h).
    c0: f64,
}

/// A branch as pattern data: its index, end buses and flow coefficients.
#[derive(Clone, Debug, DataRow)]
struct BranchRow {
    /// Branch index `l` (from arc `l`, to arc `nbranch + l`).
    l: usize,
    /// To-side arc index `nbranch + l`.
    lt: usize,
    /// From bus.
    f: usize,
    /// To bus.
    t: usize,
    c1: f64,
    c2: f64,
    c3: f64,
    c4: f64,
    c5: f64,
    c6: f64,
    c7: f64,
    c8: f64,
}

/// A bus as pattern data: index, load and shunt (p.u.).
#[derive(Clone, Debug, DataRow)]
struct BusRow {
    b: usize,
    pd: f64,
    qd: f64,
    gs: f64,
    bs: f64,
}

/// An arc as pattern data: its index and the bus at its end.
#[derive(Clone, Debug, DataRow)]
struct ArcRow {
    a: usize,
    bus: usize,
}

/// Handles of the blocks of an [`acopf_with`] model (to read solutions and multipliers).
#[derive(Clone, Debug)]
pub struct AcopfHandles {
    /// Bus voltage angles (rad).
    pub va: Var,
    /// Bus voltage magnitudes (p.u.).
    pub vm: Var,
    /// Generator active power (p.u.).
    pub pg: Var,
    /// Generator reactive power (p.u.).
    pub qg: Var,
    /// Arc active power flows (p.u.).
    pub p: Var,
    /// Arc reactive power flows (p.u.).
    pub q: Var,
}

/// The AC polar OPF model of `data` in `f64` (see the module docs).
pub fn acopf(data: &OpfData) -> Result<Model, ModelError> {
    acopf_with::<f64>(data).map(|(m, _)| m)
}

/// The AC polar OPF model of `data` with scalar type `T`, and its variable handles.
///
/// Sizes: `n = 2·nbus + 2·ngen + 4·nbranch`, `m = nref + 2·nbus + 7·nbranch`. Branches
/// without a thermal limit (`rate_a = ∞`) get free flow variables and an inactive limit
/// row (`ucon = ∞`).
pub fn acopf_with<T: Scalar>(data: &OpfData) -> Result<(Model<T>, AcopfHandles), ModelError> {
    let nl = data.nbranch();
    let gens: Vec<GenRow> = data
        .gens
        .iter()
        .enumerate()
        .map(|(g, x)| GenRow {
            g,
            bus: x.bus,
            c2: x.c2,
            c1: x.c1,
            c0: x.c0,
        })
        .collect();
    let branches: Vec<BranchRow> = data
        .branches
        .iter()
        .enumerate()
        .map(|(l, br)| {
            let [c1, c2, c3, c4, c5, c6, c7, c8] = br.c;
            BranchRow {
                l,
                lt: nl + l,
                f: br.f,
                t: br.t,
                c1,
                c2,
                c3,
                c4,
                c5,
                c6,
                c7,
                c8,
            }
        })
        .collect();
    let buses: Vec<BusRow> = data
        .buses
        .iter()
        .enumerate()
        .map(|(b, x)| BusRow {
            b,
            pd: x.pd,
            qd: x.qd,
            gs: x.gs,
            bs: x.bs,
        })
        .collect();
    let arcs: Vec<ArcRow> = data
        .arcs
        .iter()
        .enumerate()
        .map(|(a, x)| ArcRow { a, bus: x.bus })
        .collect();
    let from_arcs: Vec<usize> = (0..nl).collect();
    let to_arcs: Vec<usize> = (nl..2 * nl).collect();
    let rate: Vec<f64> = data
        .arcs
        .iter()
        .map(|a| data.branches[a.branch].rate_a)
        .collect();
    let neg_rate: Vec<f64> = rate.iter().map(|r| -r).collect();
    let rate2: Vec<f64> = data.branches.iter().map(|b| b.rate_a * b.rate_a).collect();

    let mut m = ModelBuilder::<T>::default();
    m.set_name(&format!("acopf/{}", super::short_name(&data.name)));
    let nb = data.nbus();
    let ng = data.ngen();
    let va = m.var(nb).named("va");
    let vm = m
        .var(nb)
        .bounds(
            data.buses.iter().map(|b| b.vmin).collect::<Vec<_>>(),
            data.buses.iter().map(|b| b.vmax).collect::<Vec<_>>(),
        )
        .start(1.0)
        .named("vm");
    let pg = m
        .var(ng)
        .bounds(
            data.gens.iter().map(|g| g.pmin).collect::<Vec<_>>(),
            data.gens.iter().map(|g| g.pmax).collect::<Vec<_>>(),
        )
        .named("pg");
    let qg = m
        .var(ng)
        .bounds(
            data.gens.iter().map(|g| g.qmin).collect::<Vec<_>>(),
            data.gens.iter().map(|g| g.qmax).collect::<Vec<_>>(),
        )
        .named("qg");
    let p = m
        .var(2 * nl)
        .bounds(neg_rate.clone(), rate.clone())
        .named("p");
    let q = m.var(2 * nl).bounds(neg_rate, rate).named("q");

    // (1) generation cost
    m.minimize(&gens, |g| {
        let x = pg.at(g.g);
        g.c2 * x.powi(2) + g.c1 * &x + g.c0
    });
    // (2) reference angles
    m.constraint(&data.ref_buses, |r| va.at(r)).named("ref");
    // (3), (4) from-side flows; θ = va_f − va_t
    m.constraint(&branches, |br| {
        let (vf, vt) = (vm.at(br.f), vm.at(br.t));
        let th = va.at(br.f) - va.at(br.t);
        let vv = &vf * &vt;
        p.at(br.l) - br.c5 * vf.powi(2) - br.c3 * (&vv * th.cos()) - br.c4 * (&vv * th.sin())
    })
    .named("p_from");
    m.constraint(&branches, |br| {
        let (vf, vt) = (vm.at(br.f), vm.at(br.t));
        let th = va.at(br.f) - va.at(br.t);
        let vv = &vf * &vt;
        q.at(br.l) + br.c6 * vf.powi(2) + br.c4 * (&vv * th.cos()) - br.c3 * (&vv * th.sin())
    })
    .named("q_from");
    // (5), (6) to-side flows, written with the from side's θ = va_f − va_t (the to side's
    // angle is −θ: cos(−θ) = cos θ, sin(−θ) = −sin θ), as the hand-coded model does, so
    // that the fused evaluation of the branch patterns computes one sin θ and cos θ
    m.constraint(&branches, |br| {
        let (vf, vt) = (vm.at(br.f), vm.at(br.t));
        let th = va.at(br.f) - va.at(br.t);
        let vv = &vf * &vt;
        p.at(br.lt) - br.c7 * vt.powi(2) - br.c1 * (&vv * th.cos()) + br.c2 * (&vv * th.sin())
    })
    .named("p_to");
    m.constraint(&branches, |br| {
        let (vf, vt) = (vm.at(br.f), vm.at(br.t));
        let th = va.at(br.f) - va.at(br.t);
        let vv = &vf * &vt;
        q.at(br.lt) + br.c8 * vt.powi(2) + br.c2 * (&vv * th.cos()) + br.c1 * (&vv * th.sin())
    })
    .named("q_to");
    // (7) angle difference limits
    m.constraint(&branches, |br| va.at(br.f) - va.at(br.t))
        .bounds(
            data.branches.iter().map(|b| b.angmin).collect::<Vec<_>>(),
            data.branches.iter().map(|b| b.angmax).collect::<Vec<_>>(),
        )
        .named("angle");
    // (8), (9) balances: base patterns …
    let pbal = m
        .constraint(&buses, |b| b.pd + b.gs * vm.at(b.b).powi(2))
        .named("p_balance");
    let qbal = m
        .constraint(&buses, |b| b.qd - b.bs * vm.at(b.b).powi(2))
        .named("q_balance");
    // … augmented by (10), (11) arc flows and (12), (13) generation
    m.augment(&pbal, &arcs, |a| (a.bus, p.at(a.a)));
    m.augment(&qbal, &arcs, |a| (a.bus, q.at(a.a)));
    m.augment(&pbal, &gens, |g| (g.bus, -pg.at(g.g)));
    m.augment(&qbal, &gens, |g| (g.bus, -qg.at(g.g)));
    // (14), (15) thermal limits
    m.constraint(&from_arcs, |a| p.at(a).powi(2) + q.at(a).powi(2))
        .bounds(f64::NEG_INFINITY, rate2.clone())
        .named("s_from");
    m.constraint(&to_arcs, |a| p.at(a).powi(2) + q.at(a).powi(2))
        .bounds(f64::NEG_INFINITY, rate2)
        .named("s_to");
    let model = m.build()?;
    Ok((
        model,
        AcopfHandles {
            va,
            vm,
            pg,
            qg,
            p,
            q,
        },
    ))
}
