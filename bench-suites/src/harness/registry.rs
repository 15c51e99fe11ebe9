//! The instance registry: which problems a suite has, at which sizes, with which
//! reference objective, and how to build each as a `Box<dyn NlpModel>`.
//!
//! A [`Problem`] is one model family of a suite for one [`ModelSource`] (e.g. LV rosenbrock,
//! hand-coded). It lists preset sizes per [`SizeClass`] and builds a model for any size
//! parameter it accepts. [`Registry::select`] turns the CLI's `--suite/--size/--instance`
//! into concrete [`Instance`]s.
//!
//! Each suite registers its own problems: `crate::lv::register` (the hand-coded rosenbrock
//! and the 18 LV builders), `crate::cops::register` (the 18 COPS builders) and
//! `crate::opf::register` (one hand-coded and one pattern-based AC OPF per case);
//! [`Registry::with_defaults`] calls the three.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;
use simdnlp_modeling::NlpModel;

use super::BenchError;
use crate::opf;

/// A benchmark suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Suite {
    /// Lukšan–Vlček (18 equality-constrained problems).
    Lv,
    /// COPS 3.0 (18 problems).
    Cops,
    /// PGLIB-OPF, AC polar formulation.
    Opf,
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Suite::Lv => "lv",
            Suite::Cops => "cops",
            Suite::Opf => "opf",
        })
    }
}

/// The paper's size classes by `nnz = max(nnzj, nnzh)`: small `< 1e3 ≤` medium `< 1e5 ≤`
/// large.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SizeClass {
    /// `nnz < 1e3`.
    Small,
    /// `1e3 ≤ nnz < 1e5`.
    Medium,
    /// `nnz ≥ 1e5`.
    Large,
}

impl SizeClass {
    /// All classes, smallest first.
    pub const ALL: [SizeClass; 3] = [SizeClass::Small, SizeClass::Medium, SizeClass::Large];

    /// The class of a model with `nnz = max(nnzj, nnzh)` nonzeros.
    pub fn of_nnz(nnz: usize) -> Self {
        if nnz < 1_000 {
            SizeClass::Small
        } else if nnz < 100_000 {
            SizeClass::Medium
        } else {
            SizeClass::Large
        }
    }

    /// Lower-case name (`small`, `medium`, `large`).
    pub fn as_str(self) -> &'static str {
        match self {
            SizeClass::Small => "small",
            SizeClass::Medium => "medium",
            SizeClass::Large => "large",
        }
    }
}

impl fmt::Display for SizeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `--size` selection: one class or all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SizeSel {
    /// Small presets.
    Small,
    /// Medium presets.
    Medium,
    /// Large presets.
    Large,
    /// Every preset.
    All,
}

impl SizeSel {
    /// The classes selected.
    pub fn classes(self) -> Vec<SizeClass> {
        match self {
            SizeSel::Small => vec![SizeClass::Small],
            SizeSel::Medium => vec![SizeClass::Medium],
            SizeSel::Large => vec![SizeClass::Large],
            SizeSel::All => SizeClass::ALL.to_vec(),
        }
    }
}

/// Which implementation evaluates the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ModelSource {
    /// The modeling layer (`simdnlp-modeling`) on the CPU.
    Cpu,
    /// Hand-written models with hand-derived derivatives ([`crate::handcoded`]).
    Handcoded,
}

impl fmt::Display for ModelSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModelSource::Cpu => "cpu",
            ModelSource::Handcoded => "handcoded",
        })
    }
}

/// The `--backend` selection; `auto` takes the modeling layer where a problem has it and
/// the hand-coded model otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModelSourceSel {
    /// Prefer `cpu`, fall back to `handcoded`.
    Auto,
    /// Only the modeling layer.
    Cpu,
    /// Only hand-coded models.
    Handcoded,
}

/// Size parameter of an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SizeParam {
    /// The size is fixed by the data (OPF cases).
    Fixed,
    /// One integer (`N`, `nh`, `np`, ...).
    N(usize),
    /// A grid (`nx × ny`).
    Grid(usize, usize),
}

impl fmt::Display for SizeParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeParam::Fixed => Ok(()),
            SizeParam::N(n) => write!(f, "{n}"),
            SizeParam::Grid(a, b) => write!(f, "{a}x{b}"),
        }
    }
}

/// The size part of `--instance NAME:SIZE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeSpec {
    /// A preset class (`rosenbrock:medium`).
    Class(SizeClass),
    /// An explicit parameter (`rocket:400`, `bearing:50x50`).
    Param(SizeParam),
}

/// One `--instance NAME[:SIZE]` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceSpec {
    /// Problem name (`rocket`, `case118_ieee`, `pglib_opf_case118_ieee`).
    pub name: String,
    /// Optional size.
    pub size: Option<SizeSpec>,
}

impl FromStr for InstanceSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (name, size) = match s.split_once(':') {
            Some((n, z)) => (n, Some(z)),
            None => (s, None),
        };
        if name.is_empty() {
            return Err(format!("empty instance name in {s:?}"));
        }
        let size = match size {
            None => None,
            Some(z) => Some(parse_size(z).ok_or_else(|| {
                format!(
                    "bad size {z:?} in {s:?}: expected small|medium|large, an integer (400) \
                     or a grid (50x50)"
                )
            })?),
        };
        Ok(Self {
            name: name.to_string(),
            size,
        })
    }
}

fn parse_size(z: &str) -> Option<SizeSpec> {
    match z {
        "small" => return Some(SizeSpec::Class(SizeClass::Small)),
        "medium" => return Some(SizeSpec::Class(SizeClass::Medium)),
        "large" => return Some(SizeSpec::Class(SizeClass::Large)),
        _ => {}
    }
    if let Some((a, b)) = z.split_once(['x', 'X', ',']) {
        let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        return Some(SizeSpec::Param(SizeParam::Grid(a, b)));
    }
    z.trim()
        .parse()
        .ok()
        .map(|n| SizeSpec::Param(SizeParam::N(n)))
}

/// Kind of size parameter a problem takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// None: the data fixes the size.
    Fixed,
    /// One integer.
    Scalar,
    /// Two integers.
    Grid,
}

impl ParamKind {
    fn accepts(self, p: &SizeParam) -> bool {
        matches!(
            (self, p),
            (ParamKind::Fixed, SizeParam::Fixed)
                | (ParamKind::Scalar, SizeParam::N(_))
                | (ParamKind::Grid, SizeParam::Grid(..))
        )
    }
}

/// A built model, shareable with the evaluation thread pool.
pub type DynModel = Box<dyn NlpModel<f64> + Send + Sync>;

/// Builds a model for a size parameter.
pub type BuildFn = Arc<dyn Fn(&SizeParam) -> Result<DynModel, BenchError> + Send + Sync>;

/// Reference objective for a size parameter (`None` when unknown).
pub type ReferenceFn = Arc<dyn Fn(&SizeParam) -> Option<f64> + Send + Sync>;

/// One model family of a suite for one backend.
#[derive(Clone)]
pub struct Problem {
    /// The suite.
    pub suite: Suite,
    /// Name used on the command line and in reports (`rosenbrock`, `case118_ieee`).
    pub name: String,
    /// Implementation.
    pub backend: ModelSource,
    /// Size parameter kind.
    pub param_kind: ParamKind,
    /// Preset sizes: nominal class and parameter.
    pub presets: Vec<(SizeClass, SizeParam)>,
    /// Reference objective.
    pub reference: ReferenceFn,
    /// Constructor.
    pub build: BuildFn,
}

/// A concrete instance: a problem at one size.
#[derive(Clone)]
pub struct Instance {
    /// The suite.
    pub suite: Suite,
    /// Problem name.
    pub name: String,
    /// Implementation.
    pub backend: ModelSource,
    /// Nominal class of the preset, `None` for an explicit parameter (the reported class
    /// always comes from the built model's nonzeros).
    pub nominal: Option<SizeClass>,
    /// Size parameter.
    pub param: SizeParam,
    /// Reference objective, if known.
    pub reference: Option<f64>,
    build: BuildFn,
}

impl Instance {
    /// `name` or `name:param` (`rosenbrock:2000`, `case5_pjm`).
    pub fn label(&self) -> String {
        match self.param {
            SizeParam::Fixed => self.name.clone(),
            p => format!("{}:{p}", self.name),
        }
    }

    /// Builds the model.
    pub fn build(&self) -> Result<DynModel, BenchError> {
        (self.build)(&self.param)
    }
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instance")
            .field("suite", &self.suite)
            .field("name", &self.name)
            .field("backend", &self.backend)
            .field("nominal", &self.nominal)
            .field("param", &self.param)
            .field("reference", &self.reference)
            .finish()
    }
}

/// All registered problems.
#[derive(Clone, Default)]
pub struct Registry {
    problems: Vec<Problem>,
    /// Why a suite has no problems (e.g. the OPF directory is missing).
    unavailable: HashMap<Suite, String>,
}

/// Preset sizes of the Lukšan–Vlček suite: N = 20 / 2000 / 200000.
pub const LV_PRESETS: [(SizeClass, usize); 3] = [
    (SizeClass::Small, 20),
    (SizeClass::Medium, 2000),
    (SizeClass::Large, 200_000),
];

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every built-in problem: the hand-coded models (LV rosenbrock; one OPF problem per
    /// case found by [`opf::PglibDirs::locate`] with `pglib_dir` as its explicit
    /// directory: the bundled cases, plus the rest of the library where it is found) and
    /// the pattern-based models of every suite (each suite's `register`).
    pub fn with_defaults(pglib_dir: Option<PathBuf>) -> Self {
        let mut r = Self::new();
        crate::lv::register(&mut r);
        match opf::PglibDirs::locate(pglib_dir).and_then(|dirs| opf::register(&mut r, &dirs)) {
            Ok(()) => {}
            Err(e) => {
                r.unavailable.insert(Suite::Opf, e.to_string());
            }
        }
        crate::cops::register(&mut r);
        r
    }

    /// Adds a problem.
    pub fn add(&mut self, p: Problem) {
        self.problems.push(p);
    }

    /// Registered problems.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The same problem and size implemented by `backend` (e.g. the hand-coded baseline
    /// of a modeling-layer instance), if registered.
    pub fn counterpart(&self, inst: &Instance, backend: ModelSource) -> Option<Instance> {
        let p = self.problems.iter().find(|p| {
            p.suite == inst.suite
                && p.name == inst.name
                && p.backend == backend
                && p.param_kind.accepts(&inst.param)
        })?;
        Some(Instance {
            suite: inst.suite,
            name: p.name.clone(),
            backend,
            nominal: inst.nominal,
            param: inst.param,
            reference: (p.reference)(&inst.param),
            build: p.build.clone(),
        })
    }

    /// Concrete instances for `suite`: with no `specs`, every preset in `sizes`; else
    /// each spec (a spec without size takes the fixed size of a data-sized problem or the
    /// presets in `sizes`). `backend` picks the implementation per problem.
    pub fn select(
        &self,
        suite: Suite,
        sizes: &[SizeClass],
        specs: &[InstanceSpec],
        backend: ModelSourceSel,
    ) -> Result<Vec<Instance>, BenchError> {
        let candidates: Vec<&Problem> = self.problems.iter().filter(|p| p.suite == suite).collect();
        // problem name → chosen implementation
        let mut names: Vec<&str> = Vec::new();
        for p in &candidates {
            if !names.contains(&p.name.as_str()) {
                names.push(&p.name);
            }
        }
        let pick = |name: &str| -> Option<&Problem> {
            let of = |b: ModelSource| {
                candidates
                    .iter()
                    .copied()
                    .find(|p| p.name == name && p.backend == b)
            };
            match backend {
                ModelSourceSel::Auto => of(ModelSource::Cpu).or_else(|| of(ModelSource::Handcoded)),
                ModelSourceSel::Cpu => of(ModelSource::Cpu),
                ModelSourceSel::Handcoded => of(ModelSource::Handcoded),
            }
        };
        let chosen: Vec<&Problem> = names.iter().filter_map(|n| pick(n)).collect();
        if chosen.is_empty() {
            return Err(BenchError::NoInstances {
                suite,
                backend: format!("{backend:?}").to_lowercase(),
                why: self
                    .unavailable
                    .get(&suite)
                    .cloned()
                    .unwrap_or_else(|| "no problems registered for it yet".to_string()),
            });
        }
        let mut out = Vec::new();
        let inst = |p: &Problem, nominal: Option<SizeClass>, param: SizeParam| Instance {
            suite,
            name: p.name.clone(),
            backend: p.backend,
            nominal,
            param,
            reference: (p.reference)(&param),
            build: p.build.clone(),
        };
        if specs.is_empty() {
            for p in &chosen {
                for &(c, param) in &p.presets {
                    if sizes.contains(&c) {
                        out.push(inst(p, Some(c), param));
                    }
                }
            }
            return Ok(out);
        }
        for spec in specs {
            let key = normalize(suite, &spec.name);
            let Some(p) = chosen.iter().copied().find(|p| p.name == key) else {
                let mut available: Vec<String> = chosen.iter().map(|p| p.name.clone()).collect();
                available.sort();
                return Err(BenchError::UnknownInstance {
                    suite,
                    name: spec.name.clone(),
                    available: available.join(", "),
                });
            };
            match spec.size {
                None if p.param_kind == ParamKind::Fixed => {
                    for &(c, param) in &p.presets {
                        out.push(inst(p, Some(c), param));
                    }
                }
                None => {
                    for &(c, param) in &p.presets {
                        if sizes.contains(&c) {
                            out.push(inst(p, Some(c), param));
                        }
                    }
                }
                Some(SizeSpec::Class(c)) => {
                    let Some(&(_, param)) = p.presets.iter().find(|(pc, _)| *pc == c) else {
                        return Err(BenchError::BadSize {
                            instance: spec.name.clone(),
                            why: format!("no {c} preset"),
                        });
                    };
                    out.push(inst(p, Some(c), param));
                }
                Some(SizeSpec::Param(param)) => {
                    if !p.param_kind.accepts(&param) {
                        return Err(BenchError::BadSize {
                            instance: spec.name.clone(),
                            why: format!("takes a {:?} size parameter", p.param_kind),
                        });
                    }
                    let nominal = p.presets.iter().find(|(_, q)| *q == param).map(|(c, _)| *c);
                    out.push(inst(p, nominal, param));
                }
            }
        }
        Ok(out)
    }
}

/// Canonical problem name: OPF names lose the `pglib_opf_` prefix and `.m`.
fn normalize(suite: Suite, name: &str) -> String {
    match suite {
        Suite::Opf => opf::short_name(name).to_string(),
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counterpart_finds_the_other_backend() {
        let mut r = Registry::new();
        crate::lv::register_handcoded(&mut r);
        // a stand-in "cpu" rosenbrock: the hand-coded one under ModelSource::Cpu
        let mut cpu = r.problems()[0].clone();
        cpu.backend = ModelSource::Cpu;
        r.add(cpu);
        let inst = r
            .select(Suite::Lv, &[SizeClass::Medium], &[], ModelSourceSel::Cpu)
            .unwrap();
        assert_eq!(inst.len(), 1);
        let base = r.counterpart(&inst[0], ModelSource::Handcoded).unwrap();
        assert_eq!(base.backend, ModelSource::Handcoded);
        assert_eq!(base.label(), "rosenbrock:2000");
        let mut bad = inst[0].clone();
        bad.name = "nope".into();
        assert!(r.counterpart(&bad, ModelSource::Handcoded).is_none());
    }

    #[test]
    fn size_classes() {
        assert_eq!(SizeClass::of_nnz(0), SizeClass::Small);
        assert_eq!(SizeClass::of_nnz(999), SizeClass::Small);
        assert_eq!(SizeClass::of_nnz(1000), SizeClass::Medium);
        assert_eq!(SizeClass::of_nnz(99_999), SizeClass::Medium);
        assert_eq!(SizeClass::of_nnz(100_000), SizeClass::Large);
    }

    #[test]
    fn instance_specs() {
        let s: InstanceSpec = "rocket:400".parse().unwrap();
        assert_eq!(s.name, "rocket");
        assert_eq!(s.size, Some(SizeSpec::Param(SizeParam::N(400))));
        let s: InstanceSpec = "bearing:50x50".parse().unwrap();
        assert_eq!(s.size, Some(SizeSpec::Param(SizeParam::Grid(50, 50))));
        let s: InstanceSpec = "case118_ieee".parse().unwrap();
        assert_eq!((s.name.as_str(), s.size), ("case118_ieee", None));
        let s: InstanceSpec = "rosenbrock:medium".parse().unwrap();
        assert_eq!(s.size, Some(SizeSpec::Class(SizeClass::Medium)));
        assert!("rocket:abc".parse::<InstanceSpec>().is_err());
        assert!(":400".parse::<InstanceSpec>().is_err());
    }

    #[test]
    fn select_lv_and_opf() {
        let r = Registry::with_defaults(None);
        let all = r
            .select(Suite::Lv, &SizeClass::ALL, &[], ModelSourceSel::Auto)
            .unwrap();
        let labels: Vec<String> = all.iter().map(Instance::label).collect();
        assert_eq!(
            labels[..3],
            ["rosenbrock:20", "rosenbrock:2000", "rosenbrock:200000"]
        );
        assert_eq!(labels.len(), 3 * crate::lv::LV_PROBLEMS.len());
        assert!(all.iter().all(|i| i.backend == ModelSource::Cpu));
        let one = r
            .select(
                Suite::Lv,
                &[SizeClass::Small],
                &["rosenbrock:37".parse().unwrap()],
                ModelSourceSel::Handcoded,
            )
            .unwrap();
        assert_eq!(one[0].build().unwrap().meta().nvar, 37);
        let opf = r
            .select(
                Suite::Opf,
                &[SizeClass::Small],
                &[
                    "case118_ieee".parse().unwrap(),
                    "pglib_opf_case5_pjm".parse().unwrap(),
                ],
                ModelSourceSel::Auto,
            )
            .unwrap();
        assert_eq!(opf[0].reference, Some(9.7214e4));
        assert_eq!(opf[0].nominal, Some(SizeClass::Medium));
        assert_eq!(opf[1].label(), "case5_pjm");
        let small = r
            .select(
                Suite::Opf,
                &[SizeClass::Small],
                &[],
                ModelSourceSel::Handcoded,
            )
            .unwrap();
        let names: Vec<&str> = small.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["case3_lmbd", "case5_pjm", "case14_ieee"]);
        // errors
        assert!(matches!(
            r.select(
                Suite::Lv,
                &[],
                &["nope".parse().unwrap()],
                ModelSourceSel::Auto
            ),
            Err(BenchError::UnknownInstance { .. })
        ));
        assert!(matches!(
            r.select(
                Suite::Lv,
                &[],
                &["rosenbrock:3x3".parse().unwrap()],
                ModelSourceSel::Auto
            ),
            Err(BenchError::BadSize { .. })
        ));
        let cpu = r
            .select(Suite::Opf, &[SizeClass::Small], &[], ModelSourceSel::Cpu)
            .unwrap();
        assert!(cpu.len() == 3 && cpu.iter().all(|i| i.backend == ModelSource::Cpu));
        assert_eq!(cpu[1].build().unwrap().meta().nvar, 44);
        let cops = r
            .select(Suite::Cops, &[SizeClass::Small], &[], ModelSourceSel::Auto)
            .unwrap();
        assert_eq!(cops.len(), crate::cops::ALL.len());
        assert!(cops.iter().all(|i| i.backend == ModelSource::Cpu));
    }
}
