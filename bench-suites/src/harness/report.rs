//! Benchmark records (one JSON object per instance), stdout tables and size-class
//! summaries.

use std::fmt::Write as _;

use serde::Serialize;

use super::registry::SizeClass;
use super::solve::{SolveCounts, SolveTimes};
use super::stats::{CallbackWeights, SGM_SHIFT_S, composite, sgm};

/// One instance of callbacks mode. Times are seconds per call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallbackRecord {
    /// Suite (`lv`, `cops`, `opf`).
    pub suite: String,
    /// Problem name (`rosenbrock`, `case118_ieee`).
    pub instance: String,
    /// Size parameter as given (`2000`, `50x50`; empty for OPF).
    pub param: String,
    /// Size class from `max(nnzj, nnzh)`.
    pub size: SizeClass,
    /// `cpu` or `handcoded`.
    pub backend: String,
    /// Worker threads (`--threads`).
    pub threads: usize,
    /// Variables.
    pub nvar: usize,
    /// Constraint rows.
    pub ncon: usize,
    /// Jacobian COO entries.
    pub nnzj: usize,
    /// Lower-triangle Hessian COO entries.
    pub nnzh: usize,
    /// Model construction time (s), data reading included.
    pub build_s: f64,
    /// `obj` time per call (s).
    pub obj_s: f64,
    /// `cons` time per call (s).
    pub cons_s: f64,
    /// `grad` time per call (s).
    pub grad_s: f64,
    /// `jac_coord` time per call (s).
    pub jac_s: f64,
    /// `hess_coord` time per call (s).
    pub hess_s: f64,
    /// Composite cost (s): 115 obj + 115 cons + 114 grad + 114 jac + 113 hess.
    pub composite_s: f64,
    /// CPU evaluator of the modeling layer's patterns (`--evaluator`: `jit` or `interp`;
    /// empty for hand-coded models).
    pub evaluator: String,
    /// Patterns JIT-compiled while building the model (0 with the interpreter).
    pub jit_patterns: u64,
    /// Mean JIT compile time per pattern (ms; 0 with the interpreter).
    pub jit_ms_per_pattern: f64,
    /// Where the callbacks ran (`--device`): `cpu`, `emu` or `cuda`.
    pub device: String,
    /// The device's own name (the GPU's, e.g. `NVIDIA H100 80GB HBM3`, with its driver's
    /// CUDA version; empty on the CPU).
    pub device_name: String,
}

impl CallbackRecord {
    /// The five callback times.
    pub fn times(&self) -> CallbackWeights {
        CallbackWeights {
            obj: self.obj_s,
            cons: self.cons_s,
            grad: self.grad_s,
            jac: self.jac_s,
            hess: self.hess_s,
        }
    }

    /// Sets the five times and the composite from `t`.
    pub fn set_times(&mut self, t: &CallbackWeights) {
        self.obj_s = t.obj;
        self.cons_s = t.cons;
        self.grad_s = t.grad;
        self.jac_s = t.jac;
        self.hess_s = t.hess;
        self.composite_s = composite(t);
    }
}

/// One instance of solve mode.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolveRecord {
    /// Suite.
    pub suite: String,
    /// Problem name.
    pub instance: String,
    /// Size parameter as given (empty for OPF).
    pub param: String,
    /// Size class from `max(nnzj, nnzh)`.
    pub size: SizeClass,
    /// `cpu` or `handcoded`.
    pub backend: String,
    /// Variables.
    pub nvar: usize,
    /// Constraint rows.
    pub ncon: usize,
    /// Jacobian COO entries.
    pub nnzj: usize,
    /// Hessian COO entries.
    pub nnzh: usize,
    /// Solver status, or `error` when the solver did not run.
    pub status: String,
    /// Converged.
    pub success: bool,
    /// Iterations.
    pub iterations: usize,
    /// Final objective (`null` when the solver did not run).
    pub objective: Option<f64>,
    /// Reference objective (BASELINE.md, COPS report), if known.
    pub reference: Option<f64>,
    /// `|objective − reference| / max(1, |reference|)`.
    pub rel_err: Option<f64>,
    /// Model construction time (s).
    pub build_s: f64,
    /// Opening the device and compiling the kernels the solve needs (s), timed before the
    /// solve and not part of `solve_s`; 0 on the CPU.
    pub compile_s: f64,
    /// Kernel modules compiled before the solve (0 when they were loaded earlier in the
    /// process).
    pub modules_compiled: usize,
    /// Kernel modules read from the on-disk kernel cache before the solve.
    pub modules_from_disk: usize,
    /// Solve wall time (s), without `compile_s`.
    pub solve_s: f64,
    /// Solve time per phase (`callbacks_s`, `factorization_s`, `linsolve_s`, `rest_s` keys
    /// in JSON), when the solver reports it.
    #[serde(flatten)]
    pub times: Option<SolveTimes>,
    /// KKT factorizations and triangular solves with their breakdown (`factorizations`,
    /// `factorizations_inertia`, `factorizations_accuracy`, `factorizations_pivoting`,
    /// `solves`, `solves_refinement`, `solves_soc` keys in JSON), when the solver reports
    /// them.
    #[serde(flatten)]
    pub counts: Option<SolveCounts>,
    /// Host↔device bytes per iteration (`bytes_per_iteration` in JSON, omitted when the
    /// solver does not report it): 0 on the CPU; on `cuda` the reductions' scalars and
    /// cuDSS's verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_iteration: Option<f64>,
    /// Error message when the solver did not run.
    pub error: Option<String>,
    /// The run was interrupted (Ctrl-C) while this instance was solving: the solve
    /// stopped early (status `UserRequestedStop` for simdnlp). Omitted from JSON when
    /// `false`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// `|obj − reference| / max(1, |reference|)`.
pub fn rel_err(objective: f64, reference: f64) -> f64 {
    (objective - reference).abs() / reference.abs().max(1.0)
}

/// A duration in engineering units (`812ns`, `3.41µs`, `12.0ms`, `1.25s`).
pub fn fmt_time(s: f64) -> String {
    if !s.is_finite() {
        return "-".to_string();
    }
    let (v, u) = if s < 1e-6 {
        (s * 1e9, "ns")
    } else if s < 1e-3 {
        (s * 1e6, "µs")
    } else if s < 1.0 {
        (s * 1e3, "ms")
    } else {
        (s, "s")
    };
    if v < 10.0 {
        format!("{v:.2}{u}")
    } else if v < 100.0 {
        format!("{v:.1}{u}")
    } else {
        format!("{v:.0}{u}")
    }
}

fn label(instance: &str, param: &str) -> String {
    if param.is_empty() {
        instance.to_string()
    } else {
        format!("{instance}:{param}")
    }
}

/// The per-instance callbacks table.
pub fn callbacks_table(recs: &[CallbackRecord]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<24} {:<6} {:<9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "instance",
        "size",
        "backend",
        "nvar",
        "ncon",
        "nnzj",
        "nnzh",
        "obj",
        "cons",
        "grad",
        "jac",
        "hess",
        "composite"
    );
    for r in recs {
        let _ = writeln!(
            s,
            "{:<24} {:<6} {:<9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
            label(&r.instance, &r.param),
            r.size.as_str(),
            if r.device.is_empty() || r.device == "cpu" {
                r.backend.clone()
            } else {
                format!("{}@{}", r.backend, r.device)
            },
            r.nvar,
            r.ncon,
            r.nnzj,
            r.nnzh,
            fmt_time(r.obj_s),
            fmt_time(r.cons_s),
            fmt_time(r.grad_s),
            fmt_time(r.jac_s),
            fmt_time(r.hess_s),
            fmt_time(r.composite_s)
        );
    }
    s
}

/// Per size class: the SGM (σ = 10 µs) of each callback's time and of the composite.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSummary {
    /// The class.
    pub size: SizeClass,
    /// Number of instances.
    pub count: usize,
    /// SGM of the callback times (s).
    pub sgm: CallbackWeights,
    /// SGM of the per-instance composite costs (s).
    pub composite_sgm: f64,
}

/// Class summaries of `recs` (classes without instances are left out).
pub fn summarize(recs: &[CallbackRecord]) -> Vec<ClassSummary> {
    let mut out = Vec::new();
    for c in SizeClass::ALL {
        let rs: Vec<&CallbackRecord> = recs.iter().filter(|r| r.size == c).collect();
        if rs.is_empty() {
            continue;
        }
        let col = |f: fn(&CallbackRecord) -> f64| {
            let v: Vec<f64> = rs.iter().map(|r| f(r)).collect();
            sgm(&v, SGM_SHIFT_S).unwrap_or(f64::NAN)
        };
        out.push(ClassSummary {
            size: c,
            count: rs.len(),
            sgm: CallbackWeights {
                obj: col(|r| r.obj_s),
                cons: col(|r| r.cons_s),
                grad: col(|r| r.grad_s),
                jac: col(|r| r.jac_s),
                hess: col(|r| r.hess_s),
            },
            composite_sgm: col(|r| r.composite_s),
        });
    }
    out
}

/// The class-summary table.
pub fn summary_table(sum: &[ClassSummary]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "SGM (shift 10µs) per size class; composite = SGM over instances of \
         115 obj + 115 cons + 114 grad + 114 jac + 113 hess"
    );
    let _ = writeln!(
        s,
        "{:<7} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "class", "count", "obj", "cons", "grad", "jac", "hess", "composite"
    );
    for c in sum {
        let _ = writeln!(
            s,
            "{:<7} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
            c.size.as_str(),
            c.count,
            fmt_time(c.sgm.obj),
            fmt_time(c.sgm.cons),
            fmt_time(c.sgm.grad),
            fmt_time(c.sgm.jac),
            fmt_time(c.sgm.hess),
            fmt_time(c.composite_sgm)
        );
    }
    s
}

/// Time ratios modeling layer ÷ hand-coded for one instance (> 1: slower than the
/// hand-written baseline).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatioRow {
    /// `name` or `name:param`.
    pub label: String,
    /// Ratios of `obj`, `cons`, `grad`, `jac_coord`, `hess_coord` times.
    pub ratio: CallbackWeights,
    /// Ratio of the composite costs.
    pub composite: f64,
}

/// Pairs every `cpu` record with the `handcoded` record of the same suite, instance and
/// size parameter and returns their time ratios, in record order.
pub fn baseline_ratios(recs: &[CallbackRecord]) -> Vec<RatioRow> {
    let mut out = Vec::new();
    for c in recs.iter().filter(|r| r.backend == "cpu") {
        let Some(h) = recs.iter().find(|h| {
            h.backend == "handcoded"
                && h.suite == c.suite
                && h.instance == c.instance
                && h.param == c.param
        }) else {
            continue;
        };
        out.push(RatioRow {
            label: label(&c.instance, &c.param),
            ratio: CallbackWeights {
                obj: c.obj_s / h.obj_s,
                cons: c.cons_s / h.cons_s,
                grad: c.grad_s / h.grad_s,
                jac: c.jac_s / h.jac_s,
                hess: c.hess_s / h.hess_s,
            },
            composite: c.composite_s / h.composite_s,
        });
    }
    out
}

/// The ratio table with a geometric-mean row.
pub fn ratio_table(rows: &[RatioRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "modeling layer (cpu) / hand-coded: time ratio per callback (>1 = slower than hand-coded)"
    );
    let _ = writeln!(
        s,
        "{:<24} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}",
        "instance", "obj", "cons", "grad", "jac", "hess", "composite"
    );
    let line = |s: &mut String, name: &str, r: &CallbackWeights, c: f64| {
        let _ = writeln!(
            s,
            "{:<24} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>10.2}",
            name, r.obj, r.cons, r.grad, r.jac, r.hess, c
        );
    };
    for r in rows {
        line(&mut s, &r.label, &r.ratio, r.composite);
    }
    if rows.len() > 1 {
        let gm = |f: fn(&RatioRow) -> f64| {
            let v: Vec<f64> = rows.iter().map(f).collect();
            sgm(&v, 0.0).unwrap_or(f64::NAN)
        };
        let g = CallbackWeights {
            obj: gm(|r| r.ratio.obj),
            cons: gm(|r| r.ratio.cons),
            grad: gm(|r| r.ratio.grad),
            jac: gm(|r| r.ratio.jac),
            hess: gm(|r| r.ratio.hess),
        };
        line(&mut s, "geometric mean", &g, gm(|r| r.composite));
    }
    s
}

/// The per-instance solve table.
pub fn solve_table(recs: &[SolveRecord]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<24} {:<6} {:>9} {:>9} {:<22} {:>5} {:>14} {:>14} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>7}",
        "instance",
        "size",
        "nvar",
        "ncon",
        "status",
        "iter",
        "objective",
        "reference",
        "rel_err",
        "build",
        "compile",
        "solve",
        "callbacks",
        "factor",
        "linsolve",
        "fact",
        "solves"
    );
    let num = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |v| format!("{v:.p$e}"));
    for r in recs {
        let _ = writeln!(
            s,
            "{:<24} {:<6} {:>9} {:>9} {:<22} {:>5} {:>14} {:>14} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>7}",
            label(&r.instance, &r.param),
            r.size.as_str(),
            r.nvar,
            r.ncon,
            r.status,
            r.iterations,
            num(r.objective, 6),
            num(r.reference, 6),
            num(r.rel_err, 1),
            fmt_time(r.build_s),
            fmt_time(r.compile_s),
            fmt_time(r.solve_s),
            fmt_time(r.times.map_or(f64::NAN, |t| t.callbacks_s)),
            fmt_time(r.times.map_or(f64::NAN, |t| t.factorization_s)),
            fmt_time(r.times.map_or(f64::NAN, |t| t.linsolve_s)),
            r.counts
                .map_or("-".to_string(), |c| c.factorizations.to_string()),
            r.counts.map_or("-".to_string(), |c| c.solves.to_string())
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample_callback(size: SizeClass, t: f64) -> CallbackRecord {
        let mut r = CallbackRecord {
            suite: "lv".into(),
            instance: "rosenbrock".into(),
            param: "20".into(),
            size,
            backend: "handcoded".into(),
            threads: 1,
            nvar: 20,
            ncon: 18,
            nnzj: 54,
            nnzh: 39,
            build_s: 1e-6,
            obj_s: 0.0,
            cons_s: 0.0,
            grad_s: 0.0,
            jac_s: 0.0,
            hess_s: 0.0,
            composite_s: 0.0,
            evaluator: String::new(),
            jit_patterns: 0,
            jit_ms_per_pattern: 0.0,
            device: "cpu".into(),
            device_name: String::new(),
        };
        r.set_times(&CallbackWeights {
            obj: t,
            cons: t,
            grad: t,
            jac: t,
            hess: t,
        });
        r
    }

    #[test]
    fn callback_json_keys() {
        let r = sample_callback(SizeClass::Small, 1e-6);
        let v = serde_json::to_value(&r).unwrap();
        for k in [
            "suite",
            "instance",
            "size",
            "backend",
            "nnzj",
            "nnzh",
            "obj_s",
            "cons_s",
            "grad_s",
            "jac_s",
            "hess_s",
            "composite_s",
            "nvar",
            "ncon",
            "threads",
            "build_s",
            "param",
        ] {
            assert!(v.get(k).is_some(), "missing key {k}");
        }
        assert_eq!(v["size"], "small");
        assert!((v["composite_s"].as_f64().unwrap() - 571e-6).abs() < 1e-15);
    }

    #[test]
    fn solve_json_keys() {
        let r = SolveRecord {
            suite: "opf".into(),
            instance: "case5_pjm".into(),
            param: String::new(),
            size: SizeClass::Small,
            backend: "handcoded".into(),
            nvar: 44,
            ncon: 53,
            nnzj: 1,
            nnzh: 1,
            status: "Solve_Succeeded".into(),
            success: true,
            iterations: 10,
            objective: Some(17551.9),
            reference: Some(17552.0),
            rel_err: Some(rel_err(17551.9, 17552.0)),
            build_s: 0.1,
            compile_s: 0.3,
            modules_compiled: 1,
            modules_from_disk: 1,
            solve_s: 0.2,
            times: Some(SolveTimes {
                callbacks_s: 0.01,
                factorization_s: 0.1,
                analysis_s: 0.02,
                linsolve_s: 0.05,
                rest_s: 0.04,
            }),
            counts: Some(SolveCounts {
                factorizations: 12,
                factorizations_inertia: 1,
                solves: 25,
                solves_refinement: 13,
                ..SolveCounts::default()
            }),
            bytes_per_iteration: Some(24.0),
            error: None,
            interrupted: false,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["bytes_per_iteration"], 24.0);
        for k in [
            "suite",
            "instance",
            "size",
            "nvar",
            "ncon",
            "nnzj",
            "nnzh",
            "status",
            "success",
            "iterations",
            "objective",
            "reference",
            "rel_err",
            "build_s",
            "compile_s",
            "modules_compiled",
            "modules_from_disk",
            "solve_s",
            "callbacks_s",
            "factorization_s",
            "analysis_s",
            "linsolve_s",
            "rest_s",
            "factorizations",
            "factorizations_inertia",
            "factorizations_accuracy",
            "factorizations_pivoting",
            "pivoting_switches",
            "paired_repeats",
            "inertia_confirmations",
            "inertia_confirmed",
            "solves",
            "solves_refinement",
            "solves_soc",
            "restorations",
            "analyses",
            "delayed_pivots",
        ] {
            assert!(v.get(k).is_some(), "missing key {k}");
        }
        assert_eq!(v["factorization_s"], 0.1);
        assert_eq!(v["solves"], 25);
        assert!(solve_table(&[r]).contains(" 12 "));
    }

    #[test]
    fn summaries_per_class() {
        let recs = [
            sample_callback(SizeClass::Small, 1e-6),
            sample_callback(SizeClass::Small, 4e-6),
            sample_callback(SizeClass::Large, 1e-3),
        ];
        let s = summarize(&recs);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].size, s[0].count), (SizeClass::Small, 2));
        let want = sgm(&[1e-6, 4e-6], SGM_SHIFT_S).unwrap();
        assert!((s[0].sgm.obj - want).abs() < 1e-18);
        let wc = sgm(&[571e-6, 4.0 * 571e-6], SGM_SHIFT_S).unwrap();
        assert!((s[0].composite_sgm - wc).abs() < 1e-15);
        assert!(summary_table(&s).contains("large"));
        assert!(callbacks_table(&recs).contains("rosenbrock:20"));
    }

    #[test]
    fn ratios_pair_backends() {
        let h = sample_callback(SizeClass::Small, 1e-6);
        let mut c = sample_callback(SizeClass::Small, 4e-6);
        c.backend = "cpu".into();
        let mut other = sample_callback(SizeClass::Small, 1e-3);
        other.backend = "cpu".into();
        other.param = "2000".into();
        let rows = baseline_ratios(&[c, h, other]);
        assert_eq!(rows.len(), 1, "unpaired cpu record must be skipped");
        assert_eq!(rows[0].label, "rosenbrock:20");
        assert!((rows[0].ratio.hess - 4.0).abs() < 1e-12);
        assert!((rows[0].composite - 4.0).abs() < 1e-12);
        assert!(ratio_table(&rows).contains("4.00"));
    }

    #[test]
    fn time_format() {
        assert_eq!(fmt_time(8.12e-7), "812ns");
        assert_eq!(fmt_time(3.414e-6), "3.41µs");
        assert_eq!(fmt_time(0.012), "12.0ms");
        assert_eq!(fmt_time(1.25), "1.25s");
    }
}
