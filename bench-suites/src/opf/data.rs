//! The per-unit network data of the AC polar OPF model (bench-problems.md, PGLIB-OPF).
//!
//! From a [`MatpowerCase`]: drop type-4 (isolated) buses and every generator or branch
//! touching one, drop status-0 generators and branches, renumber buses `0..nbus` in file
//! order, convert powers to per unit (÷ baseMVA) and angles to radians, and precompute
//! the branch coefficients `c1..c8`, the reference buses, the arcs and the per-bus
//! generator and arc lists.

use std::collections::HashMap;
use std::path::Path;

use super::matpower::{MatpowerCase, MatpowerError, Row, read_case};

/// Largest magnitude accepted for a data entry the model computes with (loads, shunts,
/// impedances, tap ratios, phase shifts, cost coefficients, in the file's units), and for
/// the per-unit coefficients derived from them: Ipopt's `nlp_upper_bound_inf`, the
/// magnitude it reads as infinite. NaN, ±∞ or `1e300` there is an input error reported with
/// file, line and column, not a number to hand to a solver.
pub const MAX_DATA_MAGNITUDE: f64 = 1e19;

/// MATPOWER's column names of `mpc.bus`, `mpc.gen` and `mpc.branch` (for messages).
const BUS_COLUMNS: [&str; 13] = [
    "BUS_I", "BUS_TYPE", "PD", "QD", "GS", "BS", "BUS_AREA", "VM", "VA", "BASE_KV", "ZONE", "VMAX",
    "VMIN",
];
const GEN_COLUMNS: [&str; 10] = [
    "GEN_BUS",
    "PG",
    "QG",
    "QMAX",
    "QMIN",
    "VG",
    "MBASE",
    "GEN_STATUS",
    "PMAX",
    "PMIN",
];
const BRANCH_COLUMNS: [&str; 13] = [
    "F_BUS",
    "T_BUS",
    "BR_R",
    "BR_X",
    "BR_B",
    "RATE_A",
    "RATE_B",
    "RATE_C",
    "TAP",
    "SHIFT",
    "BR_STATUS",
    "ANGMIN",
    "ANGMAX",
];

/// Checks of one case's rows, each error naming the file, the row's line, the `mpc` field
/// and the column.
struct RowCheck<'a> {
    file: &'a Path,
}

impl RowCheck<'_> {
    fn invalid(&self, line: usize, field: &'static str, what: String) -> MatpowerError {
        MatpowerError::InvalidValue {
            file: self.file.to_path_buf(),
            line,
            field,
            what,
        }
    }

    /// Column `col` (named `name`) of `row`: a finite number below [`MAX_DATA_MAGNITUDE`].
    fn data(
        &self,
        row: &Row,
        field: &'static str,
        col: usize,
        name: &str,
    ) -> Result<f64, MatpowerError> {
        let v = row.vals[col];
        if v.is_finite() && v.abs() < MAX_DATA_MAGNITUDE {
            Ok(v)
        } else {
            Err(self.invalid(
                row.line,
                field,
                format!(
                    "{name} = {v}: not a finite number below {MAX_DATA_MAGNITUDE:e} in magnitude"
                ),
            ))
        }
    }

    /// A pair of bound columns: neither NaN, `lower ≤ upper`, `lower < +∞`, `upper > −∞`.
    fn bounds(
        &self,
        row: &Row,
        field: &'static str,
        (lo_col, lo_name): (usize, &str),
        (hi_col, hi_name): (usize, &str),
    ) -> Result<(f64, f64), MatpowerError> {
        let (lo, hi) = (row.vals[lo_col], row.vals[hi_col]);
        if lo <= hi && lo < f64::INFINITY && hi > f64::NEG_INFINITY {
            Ok((lo, hi))
        } else {
            Err(self.invalid(
                row.line,
                field,
                format!("{lo_name} = {lo}, {hi_name} = {hi}: need {lo_name} <= {hi_name} (neither NaN, {lo_name} < Inf, {hi_name} > -Inf)"),
            ))
        }
    }

    /// A status column: any number but NaN (in service when positive).
    fn in_service(
        &self,
        row: &Row,
        field: &'static str,
        col: usize,
        name: &str,
    ) -> Result<bool, MatpowerError> {
        let v = row.vals[col];
        if v.is_nan() {
            return Err(self.invalid(row.line, field, format!("{name} is NaN")));
        }
        Ok(v > 0.0)
    }

    /// Values derived from a row (per-unit costs, flow coefficients) must stay below
    /// [`MAX_DATA_MAGNITUDE`] too.
    fn derived(
        &self,
        row: &Row,
        field: &'static str,
        what: &str,
        values: &[f64],
    ) -> Result<(), MatpowerError> {
        match values.iter().find(|v| !(v.is_finite() && v.abs() < MAX_DATA_MAGNITUDE)) {
            None => Ok(()),
            Some(v) => Err(self.invalid(
                row.line,
                field,
                format!("{what} {values:?} include {v}, not a finite number below {MAX_DATA_MAGNITUDE:e} in magnitude"),
            )),
        }
    }
}

/// A bus in per unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Bus {
    /// The bus id in the file.
    pub id: i64,
    /// MATPOWER bus type (1 PQ, 2 PV, 3 reference).
    pub kind: u8,
    /// Active load (p.u.).
    pub pd: f64,
    /// Reactive load (p.u.).
    pub qd: f64,
    /// Shunt conductance (p.u. at 1 p.u. voltage).
    pub gs: f64,
    /// Shunt susceptance (p.u. at 1 p.u. voltage).
    pub bs: f64,
    /// Voltage magnitude lower bound (p.u.).
    pub vmin: f64,
    /// Voltage magnitude upper bound (p.u.).
    pub vmax: f64,
}

/// An in-service generator in per unit, with its polynomial cost in per-unit power:
/// `cost(pg) = c2·pg² + c1·pg + c0` ($/h, `pg` in p.u.).
#[derive(Clone, Debug, PartialEq)]
pub struct Generator {
    /// Index of its bus (`0..nbus`).
    pub bus: usize,
    /// Active power bounds (p.u.).
    pub pmin: f64,
    /// Active power upper bound (p.u.).
    pub pmax: f64,
    /// Reactive power lower bound (p.u.).
    pub qmin: f64,
    /// Reactive power upper bound (p.u.).
    pub qmax: f64,
    /// Quadratic cost coefficient (already × baseMVA²).
    pub c2: f64,
    /// Linear cost coefficient (already × baseMVA).
    pub c1: f64,
    /// Constant cost.
    pub c0: f64,
}

/// An in-service branch with the coefficients of the polar flow equations.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    /// From bus (`0..nbus`).
    pub f: usize,
    /// To bus (`0..nbus`).
    pub t: usize,
    /// Flow coefficients `c1..c8` of bench-problems.md (`c[0]` is c1).
    pub c: [f64; 8],
    /// Apparent power limit (p.u.); `+∞` when the file gives 0 (unlimited).
    pub rate_a: f64,
    /// Angle difference lower bound `va_f − va_t` (radians).
    pub angmin: f64,
    /// Angle difference upper bound (radians).
    pub angmax: f64,
}

/// One side of a branch: arc `l` is the from side of branch `l`, arc `nbranch + l` its
/// to side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arc {
    /// The branch.
    pub branch: usize,
    /// The bus at this end.
    pub bus: usize,
    /// The bus at the other end.
    pub other: usize,
}

/// Per-unit OPF network ready for the AC polar model.
#[derive(Clone, Debug, PartialEq)]
pub struct OpfData {
    /// Case name (file stem).
    pub name: String,
    /// System base (MVA).
    pub base_mva: f64,
    /// Buses in file order, renumbered `0..nbus`.
    pub buses: Vec<Bus>,
    /// In-service generators in file order.
    pub gens: Vec<Generator>,
    /// In-service branches in file order.
    pub branches: Vec<Branch>,
    /// Indices of the reference (type 3) buses.
    pub ref_buses: Vec<usize>,
    /// The `2·nbranch` arcs.
    pub arcs: Vec<Arc>,
    /// CSR pointers of generators per bus: bus `b` has `bus_gens[bus_gen_ptr[b]..bus_gen_ptr[b+1]]`.
    pub bus_gen_ptr: Vec<usize>,
    /// Generator indices grouped by bus.
    pub bus_gens: Vec<usize>,
    /// CSR pointers of arcs per bus.
    pub bus_arc_ptr: Vec<usize>,
    /// Arc indices grouped by bus (the arcs whose `bus` is `b`).
    pub bus_arcs: Vec<usize>,
}

impl OpfData {
    /// Number of buses.
    pub fn nbus(&self) -> usize {
        self.buses.len()
    }
    /// Number of in-service generators.
    pub fn ngen(&self) -> usize {
        self.gens.len()
    }
    /// Number of in-service branches.
    pub fn nbranch(&self) -> usize {
        self.branches.len()
    }
    /// Number of reference buses.
    pub fn nref(&self) -> usize {
        self.ref_buses.len()
    }
    /// Variables of the AC polar model: `2·nbus + 2·ngen + 4·nbranch`.
    pub fn nvar(&self) -> usize {
        2 * self.nbus() + 2 * self.ngen() + 4 * self.nbranch()
    }
    /// Constraint rows of the AC polar model: `nref + 2·nbus + 7·nbranch`.
    pub fn ncon(&self) -> usize {
        self.nref() + 2 * self.nbus() + 7 * self.nbranch()
    }
    /// Generators at bus `b`.
    pub fn gens_at(&self, b: usize) -> &[usize] {
        &self.bus_gens[self.bus_gen_ptr[b]..self.bus_gen_ptr[b + 1]]
    }
    /// Arcs at bus `b`.
    pub fn arcs_at(&self, b: usize) -> &[usize] {
        &self.bus_arcs[self.bus_arc_ptr[b]..self.bus_arc_ptr[b + 1]]
    }

    /// Reads a MATPOWER file and converts it.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, MatpowerError> {
        Self::from_case(&read_case(path)?)
    }

    /// Converts a parsed case (see the module documentation).
    ///
    /// Errors (file, line, field and column): a bus id that is not a positive integer, an
    /// unknown or duplicate bus, a NaN or out-of-order bound pair (VMIN/VMAX, PMIN/PMAX,
    /// QMIN/QMAX, ANGMIN/ANGMAX, RATE_A NaN), a data entry of an in-service element that is
    /// not finite or beyond [`MAX_DATA_MAGNITUDE`] (PD, QD, GS, BS, BR_R, BR_X, BR_B, TAP,
    /// SHIFT, cost coefficients, and the per-unit values derived from them), zero
    /// impedance; and a case without a reference bus.
    pub fn from_case(case: &MatpowerCase) -> Result<Self, MatpowerError> {
        let check = RowCheck { file: &case.file };
        let file = || case.file.clone();
        let base = case.base_mva;
        let deg = std::f64::consts::PI / 180.0;
        let invalid =
            |line: usize, field: &'static str, what: String| MatpowerError::InvalidValue {
                file: file(),
                line,
                field,
                what,
            };
        let as_id = |v: f64, line: usize, field: &'static str| -> Result<i64, MatpowerError> {
            if v.fract() != 0.0 || !(1.0..=1e15).contains(&v) {
                return Err(invalid(
                    line,
                    field,
                    format!("bus id {v} is not a positive integer"),
                ));
            }
            Ok(v as i64)
        };

        // Buses: id → new index; type-4 buses map to None.
        let mut index: HashMap<i64, Option<usize>> = HashMap::with_capacity(case.bus.len());
        let mut buses = Vec::with_capacity(case.bus.len());
        let mut ref_buses = Vec::new();
        for r in &case.bus {
            let v = &r.vals;
            let id = as_id(v[0], r.line, "bus")?;
            let kind = v[1];
            if ![1.0, 2.0, 3.0, 4.0].contains(&kind) {
                return Err(invalid(
                    r.line,
                    "bus",
                    format!("bus type {kind} not in 1..=4"),
                ));
            }
            let (vmin, vmax) = check.bounds(r, "bus", (12, "VMIN"), (11, "VMAX"))?;
            let slot = if kind == 4.0 { None } else { Some(buses.len()) };
            if index.insert(id, slot).is_some() {
                return Err(MatpowerError::DuplicateBus {
                    file: file(),
                    line: r.line,
                    bus: id,
                });
            }
            if let Some(b) = slot {
                if kind == 3.0 {
                    ref_buses.push(b);
                }
                let [pd, qd, gs, bs] =
                    [2, 3, 4, 5].map(|c| check.data(r, "bus", c, BUS_COLUMNS[c]));
                let bus = Bus {
                    id,
                    kind: kind as u8,
                    pd: pd? / base,
                    qd: qd? / base,
                    gs: gs? / base,
                    bs: bs? / base,
                    vmin,
                    vmax,
                };
                check.derived(
                    r,
                    "bus",
                    "per-unit PD, QD, GS, BS",
                    &[bus.pd, bus.qd, bus.gs, bus.bs],
                )?;
                buses.push(bus);
            }
        }
        if ref_buses.is_empty() {
            return Err(MatpowerError::NoReferenceBus { file: file() });
        }
        let lookup =
            |v: f64, line: usize, field: &'static str| -> Result<Option<usize>, MatpowerError> {
                let id = as_id(v, line, field)?;
                match index.get(&id) {
                    Some(slot) => Ok(*slot),
                    None => Err(MatpowerError::UnknownBus {
                        file: file(),
                        line,
                        field,
                        bus: id,
                    }),
                }
            };

        let mut gens = Vec::with_capacity(case.gen_rows.len());
        for (r, cost) in case.gen_rows.iter().zip(&case.gencost) {
            let v = &r.vals;
            let bus = lookup(v[0], r.line, "gen")?;
            let on = check.in_service(r, "gen", 7, GEN_COLUMNS[7])?;
            let (Some(bus), true) = (bus, on) else {
                continue;
            };
            let (pmin, pmax) = check.bounds(r, "gen", (9, "PMIN"), (8, "PMAX"))?;
            let (qmin, qmax) = check.bounds(r, "gen", (4, "QMIN"), (3, "QMAX"))?;
            let cv = &cost.vals;
            let ncost = cv[3] as usize;
            for c in 4..4 + ncost {
                check.data(cost, "gencost", c, &format!("COST column {}", c + 1))?;
            }
            let coef = |k: usize| -> f64 {
                // k = power of pg; stored highest power first.
                if k < ncost {
                    cv[4 + ncost - 1 - k]
                } else {
                    0.0
                }
            };
            let generator = Generator {
                bus,
                pmin: pmin / base,
                pmax: pmax / base,
                qmin: qmin / base,
                qmax: qmax / base,
                c2: coef(2) * base * base,
                c1: coef(1) * base,
                c0: coef(0),
            };
            let costs = [generator.c2, generator.c1, generator.c0];
            check.derived(cost, "gencost", "per-unit cost coefficients", &costs)?;
            gens.push(generator);
        }

        let mut branches = Vec::with_capacity(case.branch.len());
        for r in &case.branch {
            let v = &r.vals;
            let fb = lookup(v[0], r.line, "branch")?;
            let tb = lookup(v[1], r.line, "branch")?;
            let on = check.in_service(r, "branch", 10, BRANCH_COLUMNS[10])?;
            let (Some(f), Some(t), true) = (fb, tb, on) else {
                continue;
            };
            let [rr, xx, bb, tap, shift] =
                [2, 3, 4, 8, 9].map(|c| check.data(r, "branch", c, BRANCH_COLUMNS[c]));
            let (rr, xx, bb) = (rr?, xx?, bb?);
            let (tap, shift) = (tap?, shift?);
            if v[5].is_nan() {
                return Err(invalid(r.line, "branch", "RATE_A is NaN".to_string()));
            }
            let z2 = rr * rr + xx * xx;
            if !(z2 > 0.0 && z2.is_finite()) {
                return Err(invalid(
                    r.line,
                    "branch",
                    format!("impedance r = {rr}, x = {xx} is zero or not finite"),
                ));
            }
            let g = rr / z2;
            let b = -xx / z2;
            let tap = if tap == 0.0 { 1.0 } else { tap };
            let shift = shift * deg;
            let tr = tap * shift.cos();
            let ti = tap * shift.sin();
            let ttm = tr * tr + ti * ti;
            let (g_fr, g_to) = (0.0, 0.0);
            let (b_fr, b_to) = (bb / 2.0, bb / 2.0);
            let c = [
                (-g * tr - b * ti) / ttm,
                (-b * tr + g * ti) / ttm,
                (-g * tr + b * ti) / ttm,
                (-b * tr - g * ti) / ttm,
                (g + g_fr) / ttm,
                (b + b_fr) / ttm,
                g + g_to,
                b + b_to,
            ];
            check.derived(r, "branch", "flow coefficients c1..c8", &c)?;
            let rate = v[5] / base;
            let (angmin, angmax) = check.bounds(r, "branch", (11, "ANGMIN"), (12, "ANGMAX"))?;
            let (angmin, angmax) = (angmin * deg, angmax * deg);
            branches.push(Branch {
                f,
                t,
                c,
                rate_a: if rate == 0.0 {
                    f64::INFINITY
                } else {
                    rate.abs()
                },
                angmin,
                angmax,
            });
        }

        let nl = branches.len();
        let mut arcs = Vec::with_capacity(2 * nl);
        for (l, br) in branches.iter().enumerate() {
            arcs.push(Arc {
                branch: l,
                bus: br.f,
                other: br.t,
            });
        }
        for (l, br) in branches.iter().enumerate() {
            arcs.push(Arc {
                branch: l,
                bus: br.t,
                other: br.f,
            });
        }
        let nb = buses.len();
        let (bus_gen_ptr, bus_gens) = group(nb, gens.iter().map(|g| g.bus));
        let (bus_arc_ptr, bus_arcs) = group(nb, arcs.iter().map(|a| a.bus));
        Ok(Self {
            name: case.name.clone(),
            base_mva: base,
            buses,
            gens,
            branches,
            ref_buses,
            arcs,
            bus_gen_ptr,
            bus_gens,
            bus_arc_ptr,
            bus_arcs,
        })
    }
}

/// CSR grouping of items `0..` by their key in `0..nkeys` (stable: item order kept).
fn group(nkeys: usize, keys: impl Iterator<Item = usize> + Clone) -> (Vec<usize>, Vec<usize>) {
    let mut ptr = vec![0usize; nkeys + 1];
    for k in keys.clone() {
        ptr[k + 1] += 1;
    }
    for i in 0..nkeys {
        ptr[i + 1] += ptr[i];
    }
    let mut next = ptr.clone();
    let mut items = vec![0usize; ptr[nkeys]];
    for (i, k) in keys.enumerate() {
        items[next[k]] = i;
        next[k] += 1;
    }
    (ptr, items)
}

#[cfg(test)]
mod tests {
    use super::super::matpower::parse_case;
    use super::*;

    const CASE: &str = "mpc.baseMVA = 100;\n\
mpc.bus = [\n\
 10 3 100 50 5 10 1 1 0 230 1 1.1 0.9;\n\
 20 1 0 0 0 0 1 1 0 230 1 1.05 0.95;\n\
 30 4 0 0 0 0 1 1 0 230 1 1.1 0.9;\n\
 40 2 0 0 0 0 1 1 0 230 1 1.1 0.9;\n\
];\n\
mpc.gen = [\n\
 10 0 0 30 -30 1 100 1 200 10;\n\
 40 0 0 30 -30 1 100 0 200 10;\n\
 40 0 0 20 -20 1 100 1 100 0;\n\
];\n\
mpc.gencost = [\n 2 0 0 3 0.01 10 5;\n 2 0 0 3 1 1 1;\n 2 0 0 2 20 3;\n];\n\
mpc.branch = [\n\
 10 20 0.01 0.1 0.2 100 0 0 0 0 1 -30 30;\n\
 20 40 0.0 0.2 0.0 0 0 0 1.1 10 1 -60 60;\n\
 20 30 0.01 0.1 0.0 100 0 0 0 0 1 -30 30;\n\
 10 40 0.01 0.1 0.0 100 0 0 0 0 0 -30 30;\n\
];\n";

    fn data(s: &str) -> Result<OpfData, MatpowerError> {
        OpfData::from_case(&parse_case(s, Path::new("t.m"))?)
    }

    #[test]
    fn filters_and_remaps() {
        let d = data(CASE).unwrap();
        assert_eq!(d.nbus(), 3);
        assert_eq!(d.buses[2].id, 40);
        assert_eq!(d.ref_buses, vec![0]);
        assert_eq!(d.ngen(), 2);
        assert_eq!(d.gens[1].bus, 2);
        assert_eq!(d.nbranch(), 2);
        assert_eq!((d.branches[1].f, d.branches[1].t), (1, 2));
        // per unit
        assert_eq!(d.buses[0].pd, 1.0);
        assert_eq!(d.buses[0].bs, 0.1);
        assert_eq!(d.gens[0].pmax, 2.0);
        assert_eq!(d.gens[0].pmin, 0.1);
        // cost scaling: 0.01·100² , 10·100, 5; NCOST 2 → c1 = 20·100, c0 = 3
        assert_eq!(
            (d.gens[0].c2, d.gens[0].c1, d.gens[0].c0),
            (100.0, 1000.0, 5.0)
        );
        assert_eq!(
            (d.gens[1].c2, d.gens[1].c1, d.gens[1].c0),
            (0.0, 2000.0, 3.0)
        );
        assert_eq!(d.branches[1].rate_a, f64::INFINITY);
        assert!((d.branches[1].angmax - std::f64::consts::PI / 3.0).abs() < 1e-15);
        // arcs and groupings
        assert_eq!(d.arcs.len(), 4);
        assert_eq!(
            d.arcs[3],
            Arc {
                branch: 1,
                bus: 2,
                other: 1
            }
        );
        assert_eq!(d.arcs_at(1), &[1, 2]);
        assert_eq!(d.gens_at(2), &[1]);
        assert_eq!(d.gens_at(1), &[] as &[usize]);
        assert_eq!(
            (d.nvar(), d.ncon()),
            (2 * 3 + 2 * 2 + 4 * 2, 1 + 2 * 3 + 7 * 2)
        );
    }

    #[test]
    fn branch_coefficients_match_formulas() {
        let d = data(CASE).unwrap();
        // Branch 2 (20→40): r = 0, x = 0.2, tap 1.1, shift 10°.
        let br = &d.branches[1];
        let (g, b) = (0.0, -5.0);
        let s = 10f64.to_radians();
        let (tr, ti) = (1.1 * s.cos(), 1.1 * s.sin());
        let ttm = 1.21;
        let want = [
            (-g * tr - b * ti) / ttm,
            (-b * tr + g * ti) / ttm,
            (-g * tr + b * ti) / ttm,
            (-b * tr - g * ti) / ttm,
            g / ttm,
            b / ttm,
            g,
            b,
        ];
        for (k, (have, want)) in br.c.iter().zip(want).enumerate() {
            assert!((have - want).abs() < 1e-12, "c{}", k + 1);
        }
        // Branch 1: untapped, with charging b = 0.2 → b_fr = b_to = 0.1.
        let br = &d.branches[0];
        let z2 = 0.01f64 * 0.01 + 0.1 * 0.1;
        let (g, b) = (0.01 / z2, -0.1 / z2);
        assert!((br.c[0] + g).abs() < 1e-12);
        assert!((br.c[1] + b).abs() < 1e-12);
        assert!((br.c[5] - (b + 0.1)).abs() < 1e-12);
        assert!((br.c[7] - (b + 0.1)).abs() < 1e-12);
    }

    #[test]
    fn error_unknown_bus() {
        let s = CASE.replace("10 40 0.01", "10 41 0.01");
        match data(&s).unwrap_err() {
            MatpowerError::UnknownBus {
                line, field, bus, ..
            } => assert_eq!((line, field, bus), (22, "branch", 41)),
            e => panic!("wrong error {e}"),
        }
    }

    #[test]
    fn error_duplicate_bus() {
        let s = CASE.replace("40 2 0 0", "20 2 0 0");
        assert!(matches!(
            data(&s).unwrap_err(),
            MatpowerError::DuplicateBus {
                line: 6,
                bus: 20,
                ..
            }
        ));
    }

    #[test]
    fn error_invalid_values() {
        let s = CASE.replace("20 40 0.0 0.2", "20 40 0.0 0.0");
        assert!(matches!(
            data(&s).unwrap_err(),
            MatpowerError::InvalidValue {
                line: 20,
                field: "branch",
                ..
            }
        ));
        let s = CASE.replace("20 1 0 0", "20 7 0 0");
        assert!(matches!(
            data(&s).unwrap_err(),
            MatpowerError::InvalidValue {
                line: 4,
                field: "bus",
                ..
            }
        ));
        let s = CASE.replace("20 1 0 0", "20.5 1 0 0");
        assert!(matches!(
            data(&s).unwrap_err(),
            MatpowerError::InvalidValue { line: 4, .. }
        ));
    }

    /// `(line, field, message)` of an `InvalidValue`.
    fn invalid(s: &str) -> (usize, &'static str, String) {
        match data(s) {
            Err(MatpowerError::InvalidValue {
                line, field, what, ..
            }) => (line, field, what),
            other => panic!("expected InvalidValue, got {other:?}"),
        }
    }

    #[test]
    fn non_finite_or_huge_data_is_rejected_with_line_and_column() {
        for bad in ["NaN", "Inf", "-Inf", "1e300", "-1e19"] {
            // PD of bus 10 (line 3)
            let (line, field, what) =
                invalid(&CASE.replace("10 3 100 50", &format!("10 3 {bad} 50")));
            assert_eq!((line, field), (3, "bus"), "{bad}");
            assert!(what.starts_with("PD = "), "{what}");
            // TAP of branch 20-40 (line 20)
            let (line, field, what) =
                invalid(&CASE.replace("0 0 0 1.1 10 1", &format!("0 0 0 {bad} 10 1")));
            assert_eq!((line, field), (20, "branch"), "{bad}");
            assert!(what.starts_with("TAP = "), "{what}");
            // quadratic cost of generator 1 (line 14)
            let (line, field, what) =
                invalid(&CASE.replace("2 0 0 3 0.01", &format!("2 0 0 3 {bad}")));
            assert_eq!((line, field), (14, "gencost"), "{bad}");
            assert!(what.starts_with("COST column 5 = "), "{what}");
        }
        // finite entries whose per-unit value overflows: c2 · baseMVA²
        let (line, field, what) = invalid(&CASE.replace("2 0 0 3 0.01", "2 0 0 3 1e16"));
        assert_eq!((line, field), (14, "gencost"));
        assert!(what.contains("per-unit cost"), "{what}");
        // a tiny tap ratio makes the flow coefficients overflow
        let (line, _, what) = invalid(&CASE.replace("0 0 0 1.1 10 1", "0 0 0 1e-300 10 1"));
        assert_eq!(line, 20);
        assert!(what.contains("flow coefficients"), "{what}");
        // out-of-service elements are not checked (MATPOWER ignores them too)
        let off = CASE.replace(
            " 40 0 0 30 -30 1 100 0 200 10;",
            " 40 0 0 NaN -30 1 100 0 NaN 10;",
        );
        assert!(data(&off).is_ok());
    }

    #[test]
    fn generator_bounds_are_checked_with_line() {
        // PMIN 300 > PMAX 200 (line 9), PMAX NaN, QMIN > QMAX, lower bound +Inf
        for (from, to, col) in [
            ("1 200 10;", "1 200 300;", "PMIN"),
            ("1 200 10;", "1 NaN 10;", "PMIN"),
            ("10 0 0 30 -30 1", "10 0 0 -40 -30 1", "QMIN"),
            ("1 200 10;", "1 Inf Inf;", "PMIN"),
        ] {
            let (line, field, what) = invalid(&CASE.replacen(from, to, 1));
            assert_eq!((line, field), (9, "gen"), "{to}");
            assert!(what.starts_with(col), "{what}");
        }
    }

    #[test]
    fn bus_ids_must_be_positive() {
        let (line, field, what) = invalid(&CASE.replace("20 1 0 0", "-20 1 0 0"));
        assert_eq!((line, field), (4, "bus"));
        assert!(what.contains("-20 is not a positive integer"), "{what}");
        let (line, ..) = invalid(&CASE.replace("20 1 0 0", "0 1 0 0"));
        assert_eq!(line, 4);
        // a branch referring to a negative id is reported at the branch
        let (line, field, _) = invalid(&CASE.replace("10 20 0.01", "10 -20 0.01"));
        assert_eq!((line, field), (19, "branch"));
    }

    #[test]
    fn a_case_without_reference_bus_is_rejected() {
        let s = CASE.replace("10 3 100 50", "10 2 100 50");
        assert!(matches!(
            data(&s),
            Err(MatpowerError::NoReferenceBus { .. })
        ));
        // an isolated (type 4) bus is no reference either
        let s = CASE.replace("10 3 100 50", "10 4 100 50");
        assert!(matches!(
            data(&s),
            Err(MatpowerError::NoReferenceBus { .. })
        ));
    }
}
