//! A small lossy power network (DC-like flows with quadratic losses), written with
//! constraint augmentation: the balance at each bus is one base pattern (the demand) plus
//! one augmentation per contribution type (generators, line "from" ends, line "to" ends),
//! so the model has a fixed number of patterns however the network is wired.
//!
//! ```text
//! min Σ_g c2_g pg_g² + c1_g pg_g
//! s.t. pd_b − Σ_{g at b} pg_g + Σ_{l from b} p_l + Σ_{l to b} (−p_l + r_l p_l²) = 0   ∀ b
//!      p_l − (θ_from − θ_to) / x_l = 0,  −rate_l ≤ p_l ≤ rate_l                    ∀ l
//!      θ_0 = 0,  0 ≤ pg_g ≤ pmax_g
//! ```
//!
//! Run: `cargo run --example network`.

use simdnlp_modeling::{Con, DataRow, Model, ModelBuilder, ModelError, NlpModel, Var};

/// A bus: its demand.
#[derive(Clone, Debug, DataRow)]
pub struct Bus {
    /// Active demand.
    pub pd: f64,
}

/// A generator: bus and cost coefficients.
#[derive(Clone, Debug, DataRow)]
pub struct Gen {
    /// Index of the generator (its position in `pg`).
    pub i: usize,
    /// Bus it injects into.
    pub bus: usize,
    /// Linear cost.
    pub c1: f64,
    /// Quadratic cost.
    pub c2: f64,
}

/// A line between two buses.
#[derive(Clone, Debug, DataRow)]
pub struct Line {
    /// Index of the line (its position in `p`).
    pub i: usize,
    /// From bus.
    pub from: usize,
    /// To bus.
    pub to: usize,
    /// Reactance.
    pub x: f64,
    /// Loss coefficient.
    pub r: f64,
}

/// The network data: 4 buses, 2 generators, 5 lines.
pub fn network_data() -> (Vec<Bus>, Vec<Gen>, Vec<Line>) {
    let buses = vec![
        Bus { pd: 0.0 },
        Bus { pd: 1.0 },
        Bus { pd: 0.8 },
        Bus { pd: 0.5 },
    ];
    let gens = vec![
        Gen {
            i: 0,
            bus: 0,
            c1: 1.0,
            c2: 0.5,
        },
        Gen {
            i: 1,
            bus: 2,
            c1: 2.0,
            c2: 0.2,
        },
    ];
    let lines = vec![
        Line {
            i: 0,
            from: 0,
            to: 1,
            x: 0.1,
            r: 0.02,
        },
        Line {
            i: 1,
            from: 1,
            to: 2,
            x: 0.2,
            r: 0.03,
        },
        Line {
            i: 2,
            from: 2,
            to: 3,
            x: 0.1,
            r: 0.01,
        },
        Line {
            i: 3,
            from: 0,
            to: 3,
            x: 0.3,
            r: 0.05,
        },
        Line {
            i: 4,
            from: 1,
            to: 3,
            x: 0.25,
            r: 0.04,
        },
    ];
    (buses, gens, lines)
}

/// Handles of the network model.
#[allow(dead_code)]
pub struct Network {
    /// Generator outputs.
    pub pg: Var,
    /// Line flows (from end).
    pub p: Var,
    /// Bus angles.
    pub theta: Var,
    /// Power balance rows, one per bus.
    pub balance: Con,
    /// Flow definition rows, one per line.
    pub flow: Con,
}

/// Builds the network model from its data.
pub fn network_model(
    buses: &[Bus],
    gens: &[Gen],
    lines: &[Line],
) -> Result<(Model, Network), ModelError> {
    let mut m = ModelBuilder::new();
    m.set_name("network");
    let pg = m.var(gens.len()).bounds(0.0, 3.0).start(0.5).named("pg");
    let p = m.var(lines.len()).bounds(-2.0, 2.0).named("p");
    let theta = m.var(buses.len()).named("theta");

    m.minimize(gens, |g| g.c2 * pg.at(g.i).powi(2) + g.c1 * pg.at(g.i))
        .named("cost");

    // base pattern: the demand of each bus (a constant row), then the augmentations
    let balance = m.constraint(buses, |b| b.pd * 1.0).named("balance");
    m.augment(&balance, gens, |g| (g.bus, -pg.at(g.i)))
        .named("balance_gen");
    m.augment(&balance, lines, |l| (l.from, p.at(l.i)))
        .named("balance_from");
    m.augment(&balance, lines, |l| {
        (l.to, -p.at(l.i) + l.r * p.at(l.i).powi(2))
    })
    .named("balance_to");

    let flow = m
        .constraint(lines, |l| {
            p.at(l.i) - (theta.at(l.from) - theta.at(l.to)) / l.x
        })
        .named("flow");
    m.constraint((), |_| theta.at(0) * 1.0).named("reference");

    let model = m.build()?;
    Ok((
        model,
        Network {
            pg,
            p,
            theta,
            balance,
            flow,
        },
    ))
}

#[allow(dead_code)]
fn main() -> Result<(), ModelError> {
    let (buses, gens, lines) = network_data();
    let (model, net) = network_model(&buses, &gens, &lines)?;
    println!("{model}");
    let meta = model.meta();
    let x0 = meta.x0.clone();
    let mut c = vec![0.0; meta.ncon];
    model.cons(&x0, &mut c);
    println!("cost at the start: {}", model.obj(&x0));
    println!(
        "balance residuals at the start: {}",
        model.constraint_values(&net.balance, &c)?
    );
    println!("nnzj = {}, nnzh = {}", meta.nnzj, meta.nnzh);
    Ok(())
}
