//! Dirichlet (COPS 3.1, Todd Munson): a transition state (mountain pass) of the
//! Lane–Emden–Fowler energy `E(u) = ∫ a/2 |∇u|² + u²/2 − u⁴/4` on the unit disk with
//! `u = 0` on its boundary (`a = 0.01`), with piecewise-linear finite elements on a fixed
//! 531-node triangulation (`dirichlet_mesh.txt`).
//!
//! A path of `nh + 2` states `u[b, ·]` joins `U_S = 0` to a state `U_E` of negative
//! energy; the model minimizes the highest energy `z` along the path, with the distance
//! between consecutive states at most `H = 2/(nh + 1) ‖U_E − U_S‖`.
//!
//! `dirichlet(nh)` follows COPSBenchmark.jl (`transition_state_model` on the circle
//! domain): variables `u[b, n]` (`b ∈ 1..=nh+2`, `n ∈ 1..=531`), the element energies
//! `integral[b, e]` (`e ∈ 1..=978`) and `z`; `n_var = 1509 (nh + 2) + 1`,
//! `m = (nh + 2) + (nh + 1) + 978 (nh + 2) + 82 nh + 2 · 531`. The starting path and the
//! end point come from the same procedure as COPSBenchmark.jl's `_initial_position!`
//! (computed from the mesh file's `U_E`, without the Julia version's mutation of its
//! global mesh data). Reference: `0.0171464` at `nh = 20`.

use std::sync::OnceLock;

use simdnlp_modeling::{Expr, Model, ModelBuilder, ModelError};

use super::{CopsBuild, CopsProblem, CopsSize, at_least, bad_size};

/// Registry descriptor (sizes from `bench-problems.md`).
pub const PROBLEM: CopsProblem = CopsProblem {
    name: "dirichlet",
    small: CopsSize::N(5),
    medium: CopsSize::N(20),
    large: CopsSize::N(100),
    reference_size: CopsSize::N(20),
    reference_objective: Some(0.0171464),
    maximize: false,
    build: CopsBuild::N(dirichlet),
};

/// Diffusion coefficient `a`.
const A: f64 = 0.01;
/// Exponent `p` of the nonlinear term `c u^{p+1} / (p + 1)` (`p = 3`).
const P: i32 = 3;
/// Iterations of the start-path search (COPSBenchmark.jl's `niter`).
const NITER: usize = 10;
/// Path-length factor `α` of the distance bound.
const ALPHA: f64 = 2.0;

/// The triangulated unit disk of COPS (`dirichlet_mesh.txt`).
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Node coordinates.
    pub coords: Vec<[f64; 2]>,
    /// Triangles as 0-based node indices, counter-clockwise.
    pub triangles: Vec<[usize; 3]>,
    /// The path end point `U_E` given with the mesh, one value per node.
    pub end_point: Vec<f64>,
    /// `true` for the nodes on the boundary (nodes of edges of a single triangle).
    pub boundary: Vec<bool>,
}

impl Mesh {
    /// Parses the mesh file format (see the file's header). Errors name the line.
    pub fn parse(text: &str) -> Result<Mesh, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        let mut section = |name: &str| -> Result<Vec<(usize, Vec<f64>)>, String> {
            let (k, head) = lines
                .next()
                .ok_or_else(|| format!("missing section {name}"))?;
            let count = head
                .strip_prefix(name)
                .and_then(|c| c.trim().parse::<usize>().ok())
                .ok_or_else(|| format!("line {}: expected \"{name} COUNT\"", k + 1))?;
            (0..count)
                .map(|_| {
                    let (k, l) = lines
                        .next()
                        .ok_or_else(|| format!("section {name}: too few lines"))?;
                    let vals = l
                        .split_whitespace()
                        .map(|v| v.parse::<f64>().map_err(|e| format!("line {}: {e}", k + 1)))
                        .collect::<Result<Vec<f64>, String>>()?;
                    Ok((k + 1, vals))
                })
                .collect()
        };
        let nodes = section("nodes")?;
        let tris = section("triangles")?;
        let end = section("end_point")?;
        let n = nodes.len();
        let mut coords = Vec::with_capacity(n);
        for (line, v) in &nodes {
            match v[..] {
                [x, y] if x.is_finite() && y.is_finite() => coords.push([x, y]),
                _ => return Err(format!("line {line}: expected two finite coordinates")),
            }
        }
        let mut triangles = Vec::with_capacity(tris.len());
        for (line, v) in &tris {
            let idx = |x: f64| -> Result<usize, String> {
                if x.fract() == 0.0 && x >= 1.0 && x <= n as f64 {
                    Ok(x as usize - 1)
                } else {
                    Err(format!("line {line}: node index {x} is not in 1..={n}"))
                }
            };
            match v[..] {
                [a, b, c] => triangles.push([idx(a)?, idx(b)?, idx(c)?]),
                _ => return Err(format!("line {line}: expected three node indices")),
            }
        }
        if end.len() != n {
            return Err(format!("end_point has {} values for {n} nodes", end.len()));
        }
        let mut end_point = Vec::with_capacity(n);
        for (line, v) in &end {
            match v[..] {
                [x] if x.is_finite() => end_point.push(x),
                _ => return Err(format!("line {line}: expected one finite value")),
            }
        }
        // boundary: nodes of the edges that belong to exactly one triangle
        let mut edges: Vec<(usize, usize)> = triangles
            .iter()
            .flat_map(|t| (0..3).map(move |k| (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]))))
            .collect();
        edges.sort_unstable();
        let mut boundary = vec![false; n];
        let mut k = 0;
        while k < edges.len() {
            let mut j = k + 1;
            while j < edges.len() && edges[j] == edges[k] {
                j += 1;
            }
            if j - k == 1 {
                boundary[edges[k].0] = true;
                boundary[edges[k].1] = true;
            }
            k = j;
        }
        Ok(Mesh {
            coords,
            triangles,
            end_point,
            boundary,
        })
    }

    /// The COPS circle mesh, parsed once.
    pub fn circle() -> Result<&'static Mesh, ModelError> {
        static MESH: OnceLock<Result<Mesh, String>> = OnceLock::new();
        MESH.get_or_init(|| Mesh::parse(include_str!("dirichlet_mesh.txt")))
            .as_ref()
            .map_err(|e| bad_size("dirichlet", format!("mesh data: {e}")))
    }
}

/// Per-element data of the energy: edge vectors `E_k = P_{k+1} − P_k` and the area
/// `(E_1 × E_2) / 2` (positive for counter-clockwise triangles).
#[derive(Clone, Copy, Debug)]
struct Element {
    nodes: [usize; 3],
    /// Coefficients of `u_1², u_2², u_3², u_1 u_2, u_1 u_3, u_2 u_3` in the element's
    /// Dirichlet energy `area · a/(8 area²) · |Σ u_k ∇φ_k|² · 4` (COPS's form).
    quad: [f64; 6],
    /// Weight `area / 3` of the nodal terms.
    weight: f64,
}

fn elements(mesh: &Mesh) -> Vec<Element> {
    mesh.triangles
        .iter()
        .map(|&t| {
            let p = |k: usize| mesh.coords[t[k]];
            let e = |k: usize| {
                let (a, b) = (p(k), p((k + 1) % 3));
                [b[0] - a[0], b[1] - a[1]]
            };
            let (e1, e2, e3) = (e(0), e(1), e(2));
            let area = (e1[0] * e2[1] - e1[1] * e2[0]) / 2.0;
            let dot = |u: [f64; 2], v: [f64; 2]| u[0] * v[0] + u[1] * v[1];
            let s = A / (8.0 * area);
            Element {
                nodes: t,
                quad: [
                    s * dot(e2, e2),
                    s * dot(e3, e3),
                    s * dot(e1, e1),
                    s * 2.0 * dot(e2, e3),
                    s * 2.0 * dot(e2, e1),
                    s * 2.0 * dot(e1, e3),
                ],
                weight: area / 3.0,
            }
        })
        .collect()
}

/// Energy of the nodal term `u²/2 − u^{p+1}/(p + 1)` (`b = c = 1`, `d = 0`).
fn nodal(u: f64) -> f64 {
    u * u / 2.0 - u.powi(P + 1) / f64::from(P + 1)
}

/// Discrete energy of the state `u` (one value per node).
fn energy(elems: &[Element], u: &[f64]) -> f64 {
    elems
        .iter()
        .map(|el| {
            let [a, b, c] = el.nodes.map(|k| u[k]);
            let q = el.quad;
            q[0] * a * a
                + q[1] * b * b
                + q[2] * c * c
                + q[3] * a * b
                + q[4] * a * c
                + q[5] * b * c
                + el.weight * (nodal(a) + nodal(b) + nodal(c))
        })
        .sum()
}

/// The starting path (COPSBenchmark.jl's `_initial_position!`): scale the end point until
/// its energy is negative, then move the path's ends to the last states before and after
/// the energy turns negative, `niter` times; returns the straight path's states and the
/// final end point. Errors when no state of negative energy is found.
fn start_path(
    elems: &[Element],
    start: &[f64],
    end: &[f64],
    states: usize,
) -> Result<(Vec<Vec<f64>>, Vec<f64>), ModelError> {
    let path = |from: &[f64], to: &[f64]| -> Vec<Vec<f64>> {
        (0..states)
            .map(|b| {
                let t = b as f64 / (states - 1) as f64;
                from.iter()
                    .zip(to)
                    .map(|(f, e)| (1.0 - t) * f + t * e)
                    .collect()
            })
            .collect()
    };
    let mut end = end.to_vec();
    for _ in 0..NITER {
        if energy(elems, &end) < 0.0 {
            break;
        }
        end.iter_mut().for_each(|v| *v *= 2.0);
    }
    let mut bar = start.to_vec();
    for _ in 0..NITER {
        let u = path(&bar, &end);
        let e: Vec<f64> = u.iter().map(|s| energy(elems, s)).collect();
        let ebar = e
            .iter()
            .copied()
            .filter(|&v| v < 0.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let Some(b) = e.iter().position(|&v| v == ebar).filter(|&b| b > 0) else {
            return Err(bad_size(
                "dirichlet",
                "start path: no state of negative energy after the start",
            ));
        };
        bar = u[b - 1].clone();
        end = u[b].clone();
    }
    Ok((path(start, &end), end))
}

/// The Dirichlet transition-state problem with `nh ≥ 1` interior path states.
pub fn dirichlet(nh: usize) -> Result<Model, ModelError> {
    let nh = at_least("dirichlet", "nh", nh, 1)?;
    let mesh = Mesh::circle()?;
    let elems = elements(mesh);
    let (nn, ne, states) = (mesh.coords.len(), elems.len(), nh + 2);
    let start = vec![0.0; nn];
    let (u0, end) = start_path(&elems, &start, &mesh.end_point, states)?;
    let z0 = u0
        .iter()
        .map(|s| energy(&elems, s))
        .fold(f64::NEG_INFINITY, f64::max);
    let dist2: f64 = start.iter().zip(&end).map(|(s, e)| (s - e).powi(2)).sum();
    let h_max = ALPHA / (nh + 1) as f64 * dist2.sqrt();

    // element rows: (e, nodes, quadratic coefficients, nodal weight), 1-based indices
    type Row = (i64, (i64, i64, i64), (f64, f64, f64), (f64, f64, f64), f64);
    let rows: Vec<Row> = elems
        .iter()
        .enumerate()
        .map(|(e, el)| {
            let [a, b, c] = el.nodes.map(|k| k as i64 + 1);
            let q = el.quad;
            (
                e as i64 + 1,
                (a, b, c),
                (q[0], q[1], q[2]),
                (q[3], q[4], q[5]),
                el.weight,
            )
        })
        .collect();
    let boundary: Vec<i64> = (0..nn)
        .filter(|&k| mesh.boundary[k])
        .map(|k| k as i64 + 1)
        .collect();
    let start_rows: Vec<(i64, f64)> = start
        .iter()
        .enumerate()
        .map(|(k, &v)| (k as i64 + 1, v))
        .collect();
    let end_rows: Vec<(i64, f64)> = end
        .iter()
        .enumerate()
        .map(|(k, &v)| (k as i64 + 1, v))
        .collect();
    let (nb, nn, ne) = (states as i64, nn as i64, ne as i64);

    let mut b = ModelBuilder::new();
    b.set_name("dirichlet");
    let u = b
        .var((1..=nb, 1..=nn))
        .start_with(|(s, n)| u0[s as usize - 1][n as usize - 1])
        .named("u");
    let integral = b.var((1..=nb, 1..=ne)).start(0.0).named("integral");
    let z = b.var(()).start(z0).named("z");

    b.minimize((), |_| z.at(())).named("highest_energy");

    // every state's energy is at most z
    let level = b
        .constraint(1..=nb, |_| -z.at(()))
        .bounds(f64::NEG_INFINITY, 0.0)
        .named("energy_level");
    b.augment(&level, (1..=nb, 1..=ne), |(s, e)| (s, integral.at((s, e))))
        .named("energy_sum");
    // consecutive states are at most H apart
    let step = b
        .constraint(1..nb, |_| Expr::constant(0.0))
        .bounds(f64::NEG_INFINITY, h_max * h_max)
        .named("step_length");
    b.augment(&step, (1..nb, 1..=nn), |(s, n)| {
        (s, (u.at((s + 1, n)) - u.at((s, n))).powi(2))
    })
    .named("step_terms");
    // element energies
    b.constraint(
        (1..=nb, &rows),
        |(s, (e, (t1, t2, t3), (q11, q22, q33), (q12, q13, q23), w))| {
            let (a, bb, c) = (u.at((s, t1)), u.at((s, t2)), u.at((s, t3)));
            let node = |v: &Expr| v.powi(2) / 2.0 - v.powi(P + 1) / f64::from(P + 1);
            q11 * a.powi(2)
                + q22 * bb.powi(2)
                + q33 * c.powi(2)
                + q12 * (&a * &bb)
                + q13 * (&a * &c)
                + q23 * (&bb * &c)
                + w * (node(&a) + node(&bb) + node(&c))
                - integral.at((s, e))
        },
    )
    .named("element_energy");
    b.constraint((2..nb, &boundary), |(s, n)| u.at((s, n)))
        .named("boundary");
    b.constraint(&start_rows, |(n, v)| u.at((1, n)) - v)
        .named("start_point");
    b.constraint(&end_rows, |(n, v)| u.at((nb, n)) - v)
        .named("end_point");
    b.build()
}
