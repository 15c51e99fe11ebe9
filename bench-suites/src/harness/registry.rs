//! The instance registry: which problems a suite has, at which sizes, with which
//! reference objective, and how to build each as a `Box<dyn NlpModel>`.
//!
//! A [`Problem`] is one model family of a suite for one [`ModelSource`] (e.g. LV rosenbrock,
//! hand-coded). It lists preset sizes per [`SizeClass`] and builds a model for any size
//! parameter it accepts. [`Registry::select`] turns the CLI's `--suite/--size/--instance`
//! into concrete [`Instance`]s.
//!
//! **Where the modeling layer plugs in:** [`register_modeling_layer`] is the one place to
//! add the `simdnlp-modeling` builders (all 18 LV, 18 COPS and the OPF pattern model) as
//! [`ModelSource::Cpu`] problems; nothing else in the harness changes.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;
use simdnlp_modeling::NlpModel;

use super::BenchError;
use crate::handcoded::{AcopfModel, RosenbrockModel};
use crate::opf::{self, BaselineEntry, OpfData, PGLIB_PREFIX};

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
    /// whatever [`register_modeling_layer`] adds.
    pub fn with_defaults(pglib_dir: Option<PathBuf>) -> Self {
        let mut r = Self::new();
        register_handcoded_lv(&mut r);
        match opf::PglibDirs::locate(pglib_dir).and_then(|dirs| {
            register_handcoded_opf(&mut r, &dirs)?;
            register_modeling_opf(&mut r, &dirs);
            Ok(())
        }) {
            Ok(()) => {}
            Err(e) => {
                r.unavailable.insert(Suite::Opf, e.to_string());
            }
        }
        register_modeling_layer(&mut r);
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

/// Registers the hand-coded LV rosenbrock at the LV presets (any `N ≥ 3` on request).
pub fn register_handcoded_lv(r: &mut Registry) {
    r.add(Problem {
        suite: Suite::Lv,
        name: "rosenbrock".to_string(),
        backend: ModelSource::Handcoded,
        param_kind: ParamKind::Scalar,
        presets: LV_PRESETS
            .iter()
            .map(|&(c, n)| (c, SizeParam::N(n)))
            .collect(),
        reference: Arc::new(|_| None),
        build: Arc::new(|p| match *p {
            SizeParam::N(n) => RosenbrockModel::new(n)
                .map(|m| Box::new(m) as DynModel)
                .map_err(|e| BenchError::Model {
                    instance: format!("rosenbrock:{n}"),
                    msg: e.to_string(),
                }),
            _ => Err(BenchError::BadSize {
                instance: "rosenbrock".to_string(),
                why: "takes N".to_string(),
            }),
        }),
    });
}

/// Nominal class of an OPF case from `BASELINE.md`'s node and edge counts
/// (`nnzj ≈ 30·edges + 2·nodes`, which dominates `nnzh`).
pub fn opf_nominal_class(e: &BaselineEntry) -> SizeClass {
    SizeClass::of_nnz(30 * e.edges + 2 * e.nodes)
}

/// Registers one hand-coded AC OPF problem per case file of `dirs`, with the reference
/// objective of `BASELINE.md`; cases missing from it get their class from a parse.
pub fn register_handcoded_opf(
    r: &mut Registry,
    dirs: &opf::PglibDirs,
) -> Result<(), opf::MatpowerError> {
    let baseline = dirs.baseline().unwrap_or_default();
    for (name, path) in dirs.list_cases()? {
        let entry = baseline.get(&format!("{PGLIB_PREFIX}{name}"));
        let class = match entry {
            Some(e) => opf_nominal_class(e),
            None => match OpfData::read(&path) {
                Ok(d) => SizeClass::of_nnz(30 * d.nbranch() + 2 * d.nbus()),
                Err(_) => SizeClass::Large,
            },
        };
        let reference = entry.and_then(|e| e.ac);
        let label = name.clone();
        r.add(Problem {
            suite: Suite::Opf,
            name,
            backend: ModelSource::Handcoded,
            param_kind: ParamKind::Fixed,
            presets: vec![(class, SizeParam::Fixed)],
            reference: Arc::new(move |_| reference),
            build: Arc::new(move |_| {
                let d = OpfData::read(&path).map_err(|e| BenchError::Model {
                    instance: label.clone(),
                    msg: e.to_string(),
                })?;
                Ok(Box::new(AcopfModel::new(d)) as DynModel)
            }),
        });
    }
    Ok(())
}

/// Registers the pattern-based AC OPF ([`crate::opf::model::acopf`], [`ModelSource::Cpu`])
/// for every hand-coded OPF case already registered from `dirs`: same names, presets and
/// reference objectives, so `--backend cpu|handcoded` compares like with like.
pub fn register_modeling_opf(r: &mut Registry, dirs: &opf::PglibDirs) {
    let mut cpu = Vec::new();
    for p in &r.problems {
        if p.suite != Suite::Opf || p.backend != ModelSource::Handcoded {
            continue;
        }
        let Ok(path) = dirs.case_path(&p.name) else {
            continue;
        };
        let label = p.name.clone();
        let build: BuildFn = Arc::new(move |_| {
            let bad = |msg: String| BenchError::Model {
                instance: label.clone(),
                msg,
            };
            let d = OpfData::read(&path).map_err(|e| bad(e.to_string()))?;
            let m = crate::opf::model::acopf(&d).map_err(|e| bad(e.to_string()))?;
            Ok(Box::new(m) as DynModel)
        });
        cpu.push(Problem {
            backend: ModelSource::Cpu,
            build,
            ..p.clone()
        });
    }
    r.problems.extend(cpu);
}

/// The place where the modeling-layer builders (`ModelSource::Cpu`) are registered: every
/// LV problem ([`crate::lv`]) at the LV presets (any `N` on request) and every COPS problem
/// ([`crate::cops::ALL`]) at its table presets (any size on request). The pattern OPF is
/// registered per case by [`register_modeling_opf`].
pub fn register_modeling_layer(r: &mut Registry) {
    for &name in crate::lv::LV_PROBLEMS {
        r.add(Problem {
            suite: Suite::Lv,
            name: name.to_string(),
            backend: ModelSource::Cpu,
            param_kind: ParamKind::Scalar,
            presets: LV_PRESETS
                .iter()
                .map(|&(c, n)| (c, SizeParam::N(n)))
                .collect(),
            reference: Arc::new(|_| None),
            build: Arc::new(move |p| match *p {
                SizeParam::N(n) => crate::lv::build(name, n)
                    .map(|m| Box::new(m) as DynModel)
                    .map_err(|e| BenchError::Model {
                        instance: format!("{name}:{n}"),
                        msg: e.to_string(),
                    }),
                _ => Err(BenchError::BadSize {
                    instance: name.to_string(),
                    why: "takes N".to_string(),
                }),
            }),
        });
    }
    for p in crate::cops::ALL {
        r.add(Problem {
            suite: Suite::Cops,
            name: p.name.to_string(),
            backend: ModelSource::Cpu,
            param_kind: if p.is_grid() {
                ParamKind::Grid
            } else {
                ParamKind::Scalar
            },
            presets: SizeClass::ALL
                .into_iter()
                .zip(p.presets().map(SizeParam::from))
                .collect(),
            reference: Arc::new(move |s| s.cops_size().and_then(|s| p.reference_at(s))),
            build: Arc::new(move |s| {
                let size = s.cops_size().ok_or_else(|| BenchError::BadSize {
                    instance: p.name.to_string(),
                    why: "takes a size".to_string(),
                })?;
                p.build_at(size)
                    .map(|m| Box::new(m) as DynModel)
                    .map_err(|e| BenchError::Model {
                        instance: format!("{}:{size}", p.name),
                        msg: e.to_string(),
                    })
            }),
        });
    }
}

impl From<crate::cops::CopsSize> for SizeParam {
    fn from(s: crate::cops::CopsSize) -> Self {
        match s {
            crate::cops::CopsSize::N(n) => SizeParam::N(n),
            crate::cops::CopsSize::Grid(a, b) => SizeParam::Grid(a, b),
        }
    }
}

impl SizeParam {
    /// The COPS builder argument this size stands for (`None` for [`SizeParam::Fixed`]).
    pub fn cops_size(&self) -> Option<crate::cops::CopsSize> {
        match *self {
            SizeParam::N(n) => Some(crate::cops::CopsSize::N(n)),
            SizeParam::Grid(a, b) => Some(crate::cops::CopsSize::Grid(a, b)),
            SizeParam::Fixed => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counterpart_finds_the_other_backend() {
        let mut r = Registry::new();
        register_handcoded_lv(&mut r);
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
