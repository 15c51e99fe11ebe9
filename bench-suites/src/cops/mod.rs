//! The COPS 3.0 suite (Dolan, Moré, Munson) as pattern-based `simdnlp-modeling` builders.
//!
//! Every problem is a module with one builder, `pub fn NAME(size args) -> Result<Model,
//! ModelError>`, whose size arguments follow MadNLP's COPSBenchmark.jl argument
//! conventions exactly (`rocket(nh)`, `minsurf(nx, ny)`, `polygon(n)` with `n` vertices,
//! …), so that sizes and reference objectives can be compared with published tables.
//! Each model is a handful of *patterns*, one per algebraic form over a data iterator
//! (ranges, grids, slices of observation rows) — never one pattern per scalar term.
//!
//! Each module also exports `pub const PROBLEM: CopsProblem`, the descriptor the benchmark
//! harness registers (name, preset sizes, reference size and objective, constructor);
//! [`ALL`] lists all 18 descriptors.
//!
//! Bad size arguments (e.g. `nh = 0`) are reported as [`ModelError::BadShape`] naming the
//! problem and the argument, never a panic.

use simdnlp_modeling::{Expr, Ix2, Ix3, Model, ModelBuilder, ModelError, Var};

pub mod bearing;
pub mod camshape;
pub mod catmix;
pub mod chain;
pub mod channel;
pub mod dirichlet;
pub mod elec;
pub mod gasoil;
pub mod glider;
pub mod marine;
pub mod methanol;
pub mod minsurf;
pub mod pinene;
pub mod polygon;
pub mod robot;
pub mod rocket;
pub mod steering;
pub mod torsion;

mod register;

pub use register::register;

/// Size argument of a COPS builder: one integer (`nh`, `n`, `np`) or a grid (`nx`, `ny`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopsSize {
    /// One integer argument, in the builder's own convention (see its docs).
    N(usize),
    /// Two integer arguments `(nx, ny)`.
    Grid(usize, usize),
}

impl std::fmt::Display for CopsSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CopsSize::N(n) => write!(f, "{n}"),
            CopsSize::Grid(a, b) => write!(f, "{a}x{b}"),
        }
    }
}

/// A COPS builder function, by the kind of size argument it takes.
#[derive(Clone, Copy, Debug)]
pub enum CopsBuild {
    /// `fn(n)`.
    N(fn(usize) -> Result<Model, ModelError>),
    /// `fn(nx, ny)`.
    Grid(fn(usize, usize) -> Result<Model, ModelError>),
}

/// Descriptor of one COPS problem for the harness registry.
///
/// Invariant: `small`, `medium`, `large` and `reference_size` are of the kind `build`
/// takes ([`CopsSize::N`] for [`CopsBuild::N`], [`CopsSize::Grid`] for
/// [`CopsBuild::Grid`]).
#[derive(Clone, Copy, Debug)]
pub struct CopsProblem {
    /// Problem name as on the command line (`rocket`).
    pub name: &'static str,
    /// Small preset (`bench-problems.md` table).
    pub small: CopsSize,
    /// Medium preset.
    pub medium: CopsSize,
    /// Large preset.
    pub large: CopsSize,
    /// The size at which the reference objective is known.
    pub reference_size: CopsSize,
    /// Objective value `f(x*)` at `reference_size`, as the model's `obj` callback returns
    /// it (for a maximized problem: the maximum itself, not negated). `None` where the
    /// problem has no meaningful objective (a feasibility problem whose objective is a
    /// constant still gets its constant).
    pub reference_objective: Option<f64>,
    /// `true` when the model maximizes its objective.
    pub maximize: bool,
    /// The builder.
    pub build: CopsBuild,
}

impl CopsProblem {
    /// The three presets, smallest first.
    pub fn presets(&self) -> [CopsSize; 3] {
        [self.small, self.medium, self.large]
    }

    /// `true` when the builder takes two size arguments.
    pub fn is_grid(&self) -> bool {
        matches!(self.build, CopsBuild::Grid(_))
    }

    /// Builds the model at `size`; a size of the wrong kind is a [`ModelError::BadShape`].
    pub fn build_at(&self, size: CopsSize) -> Result<Model, ModelError> {
        match (self.build, size) {
            (CopsBuild::N(f), CopsSize::N(n)) => f(n),
            (CopsBuild::Grid(f), CopsSize::Grid(nx, ny)) => f(nx, ny),
            (CopsBuild::N(_), s) => Err(bad_size(self.name, format!("takes one integer, got {s}"))),
            (CopsBuild::Grid(_), s) => {
                Err(bad_size(self.name, format!("takes a grid NXxNY, got {s}")))
            }
        }
    }

    /// The reference objective when `size` is the reference size, else `None`.
    pub fn reference_at(&self, size: CopsSize) -> Option<f64> {
        if size == self.reference_size {
            self.reference_objective
        } else {
            None
        }
    }
}

/// Descriptors of all 18 COPS problems, in alphabetical order.
pub const ALL: &[CopsProblem] = &[
    bearing::PROBLEM,
    camshape::PROBLEM,
    catmix::PROBLEM,
    chain::PROBLEM,
    channel::PROBLEM,
    dirichlet::PROBLEM,
    elec::PROBLEM,
    gasoil::PROBLEM,
    glider::PROBLEM,
    marine::PROBLEM,
    methanol::PROBLEM,
    minsurf::PROBLEM,
    pinene::PROBLEM,
    polygon::PROBLEM,
    robot::PROBLEM,
    rocket::PROBLEM,
    steering::PROBLEM,
    torsion::PROBLEM,
];

/// The descriptor named `name`, if it is in [`ALL`].
pub fn find(name: &str) -> Option<&'static CopsProblem> {
    ALL.iter().find(|p| p.name == name)
}

/// A [`ModelError::BadShape`] for a bad size argument of problem `problem`.
pub fn bad_size(problem: &str, reason: impl Into<String>) -> ModelError {
    ModelError::BadShape {
        what: format!("COPS {problem} size"),
        reason: reason.into(),
    }
}

/// `Ok(n)` when `n >= min`, else a [`bad_size`] error naming the argument.
pub fn at_least(problem: &str, arg: &str, n: usize, min: usize) -> Result<usize, ModelError> {
    if n >= min {
        Ok(n)
    } else {
        Err(bad_size(
            problem,
            format!("{arg} = {n}, must be at least {min}"),
        ))
    }
}

/// `k!` as a float (small `k` only: collocation orders).
pub fn factorial(k: u32) -> f64 {
    (1..=k).map(f64::from).product()
}

/// The time grid of the COPS collocation problems (marine, methanol, pinene; gasoil has
/// the same layout): `nh` intervals of length `h = τ_last / nh` over `[0, τ_last]`, the
/// interval of each observation time, and the piecewise-constant starting trajectory.
///
/// Indices follow COPSBenchmark.jl's 1-based conventions: interval `i ∈ 1..=nh` starts at
/// `t_i = (i − 1) h`; observation `j` lies in interval `itau_j = min(nh, ⌊τ_j / h⌋ + 1)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Collocation {
    /// Number of intervals (`≥ 1`).
    pub nh: usize,
    /// Number of state components.
    pub ne: usize,
    /// Interval length.
    pub h: f64,
    /// Grid times: `t[i − 1] = (i − 1) h` for `i ∈ 1..=nh+1`.
    pub t: Vec<f64>,
    /// `itau[j − 1]`: interval (1-based) of observation `j`.
    pub itau: Vec<usize>,
    /// Observation times `τ_j` (`τ_last` is the final time).
    pub tau: Vec<f64>,
    /// Observations, row-major `nm × ne`: `z[(j − 1) ne + (s − 1)]`.
    pub z: Vec<f64>,
    /// Starting states, row-major `nh × ne`: `first` on the intervals up to the first
    /// observation, then each observation's values on the intervals up to it, then the
    /// last observation's values.
    pub v0: Vec<f64>,
}

impl Collocation {
    /// The grid for `nh` intervals, observation times `tau` (increasing, last = final
    /// time), observations `z` (row-major `tau.len() × ne`) and the states `first`
    /// used before the first observation. `problem` names the caller in errors.
    pub fn new(
        problem: &str,
        nh: usize,
        tau: &[f64],
        z: &[f64],
        first: &[f64],
    ) -> Result<Self, ModelError> {
        let nh = at_least(problem, "nh", nh, 1)?;
        let ne = first.len();
        let nm = tau.len();
        if nm == 0 || z.len() != nm * ne {
            return Err(bad_size(
                problem,
                format!(
                    "{} observations of {ne} states need {} values, got {}",
                    nm,
                    nm * ne,
                    z.len()
                ),
            ));
        }
        let tf = tau[nm - 1];
        let h = tf / nh as f64;
        let t = (0..=nh).map(|i| i as f64 * h).collect();
        let itau: Vec<usize> = tau
            .iter()
            .map(|&tj| nh.min((tj / h).floor() as usize + 1))
            .collect();
        let mut v0 = vec![0.0; nh * ne];
        let mut fill = |from: usize, to: usize, row: &[f64]| {
            for i in from..=to.min(nh) {
                v0[(i - 1) * ne..i * ne].copy_from_slice(row);
            }
        };
        fill(1, itau[0], first);
        for j in 1..nm {
            fill(itau[j - 1] + 1, itau[j], &z[j * ne..(j + 1) * ne]);
        }
        fill(itau[nm - 1] + 1, nh, &z[(nm - 1) * ne..nm * ne]);
        Ok(Self {
            nh,
            ne,
            h,
            t,
            itau,
            tau: tau.to_vec(),
            z: z.to_vec(),
            v0,
        })
    }

    /// Starting value of state `s` on interval `i` (both 1-based); NaN outside the grid
    /// (which `build()` reports as a non-finite start).
    pub fn v0_at(&self, i: i64, s: i64) -> f64 {
        let inside = (1..=self.nh as i64).contains(&i) && (1..=self.ne as i64).contains(&s);
        if inside {
            self.v0[(i as usize - 1) * self.ne + (s as usize - 1)]
        } else {
            f64::NAN
        }
    }

    /// One data row per observation and state: `(itau_j, s, τ_j − t_{itau_j}, z_js)`.
    pub fn observation_rows(&self) -> Vec<(i64, i64, f64, f64)> {
        let mut rows = Vec::with_capacity(self.z.len());
        for (j, &tj) in self.tau.iter().enumerate() {
            let it = self.itau[j];
            for s in 0..self.ne {
                rows.push((
                    it as i64,
                    s as i64 + 1,
                    tj - self.t[it - 1],
                    self.z[j * self.ne + s],
                ));
            }
        }
        rows
    }
}

/// The collocation variables of [`add_collocation`]: states `v[i, s]` at the interval
/// starts, collocation coefficients `w[i, k, s]`, and the state `uc[i, j, s]` and its
/// derivative `Duc[i, j, s]` at collocation point `j` of interval `i` (all 1-based:
/// `i ∈ 1..=nh`, `j, k ∈ 1..=nc`, `s ∈ 1..=ne`).
#[derive(Clone, Debug)]
pub struct CollocationVars {
    /// `v[i, s]`, start [`Collocation::v0`].
    pub v: Var<Ix2>,
    /// `w[i, k, s]`, start 0.
    pub w: Var<Ix3>,
    /// `uc[i, j, s]`, start `v0[i, s]`.
    pub uc: Var<Ix3>,
    /// `Duc[i, j, s]`, start 0.
    pub duc: Var<Ix3>,
}

/// Declares the collocation variables on `grid` with collocation points `rho`
/// (`nc = rho.len()`) and adds the patterns every COPS collocation problem shares:
///
/// - objective `Σ_{j,s} (v[itau_j, s] + Σ_k w[itau_j, k, s] (τ_j − t_{itau_j})^k / (k! h^{k−1}) − z_js)²`
///   (one pattern over the observation rows);
/// - `uc[i, j, s] = v[i, s] + h Σ_k w[i, k, s] ρ_j^k / k!` (one pattern over `i × j × s`);
/// - `Duc[i, j, s] = Σ_k w[i, k, s] ρ_j^{k−1} / (k − 1)!` (one pattern over `i × j × s`);
/// - continuity `v[i, s] + h Σ_k w[i, k, s] / k! = v[i + 1, s]`, `i ∈ 1..nh`.
///
/// The problem adds its parameters, initial conditions and ODE rows
/// (`Duc[i, j, s] = f_s(θ, uc[i, j, ·])`).
pub fn add_collocation(m: &mut ModelBuilder, grid: &Collocation, rho: &[f64]) -> CollocationVars {
    let (nh, ne, nc, h) = (grid.nh as i64, grid.ne as i64, rho.len() as i64, grid.h);
    let v = m
        .var((1..=nh, 1..=ne))
        .start_with(|(i, s)| grid.v0_at(i, s))
        .named("v");
    let w = m.var((1..=nh, 1..=nc, 1..=ne)).start(0.0).named("w");
    let uc = m
        .var((1..=nh, 1..=nc, 1..=ne))
        .start_with(|(i, _, s)| grid.v0_at(i, s))
        .named("uc");
    let duc = m.var((1..=nh, 1..=nc, 1..=ne)).start(0.0).named("Duc");
    let ks = 1..=rho.len() as u32;

    let obs = grid.observation_rows();
    m.minimize(&obs, |(it, s, dt, z)| {
        let fit = ks.clone().fold(v.at((it, s)), |acc, k| {
            acc + w.at((it, k as i64, s)) * Expr::from(dt).powi(k as i32)
                / (factorial(k) * h.powi(k as i32 - 1))
        });
        (fit - z).powi(2)
    })
    .named("least_squares");

    let rho_rows: Vec<(i64, f64)> = rho
        .iter()
        .enumerate()
        .map(|(j, &r)| (j as i64 + 1, r))
        .collect();
    m.constraint((1..=nh, &rho_rows, 1..=ne), |(i, (j, r), s)| {
        let sum = ks.clone().fold(Expr::constant(0.0), |acc, k| {
            acc + w.at((i, k as i64, s)) * Expr::from(r).powi(k as i32) / factorial(k)
        });
        uc.at((i, j, s)) - v.at((i, s)) - h * sum
    })
    .named("uc_def");
    m.constraint((1..=nh, &rho_rows, 1..=ne), |(i, (j, r), s)| {
        let sum = ks.clone().fold(Expr::constant(0.0), |acc, k| {
            acc + w.at((i, k as i64, s)) * Expr::from(r).powi(k as i32 - 1) / factorial(k - 1)
        });
        duc.at((i, j, s)) - sum
    })
    .named("Duc_def");
    m.constraint((1..nh, 1..=ne), |(i, s)| {
        let sum = ks.clone().fold(Expr::constant(0.0), |acc, k| {
            acc + w.at((i, k as i64, s)) * (h / factorial(k))
        });
        v.at((i, s)) + sum - v.at((i + 1, s))
    })
    .named("continuity");
    CollocationVars { v, w, uc, duc }
}
