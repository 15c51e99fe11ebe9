//! The OPF suite's problems in the benchmark registry.

use std::sync::Arc;

use super::{BaselineEntry, MatpowerError, OpfData, PGLIB_PREFIX, PglibDirs};
use crate::handcoded::AcopfModel;
use crate::harness::BenchError;
use crate::harness::registry::{
    BuildFn, DynModel, ModelSource, ParamKind, Problem, Registry, SizeClass, SizeParam, Suite,
};

/// Registers the OPF suite from the case files of `dirs`: one hand-coded problem per case
/// ([`register_handcoded`]) and its pattern-based twin ([`register_modeling`]).
///
/// # Errors
/// [`MatpowerError`] when the case directory cannot be listed.
pub fn register(r: &mut Registry, dirs: &PglibDirs) -> Result<(), MatpowerError> {
    register_handcoded(r, dirs)?;
    register_modeling(r, dirs);
    Ok(())
}

/// Nominal class of an OPF case from `BASELINE.md`'s node and edge counts
/// (`nnzj ≈ 30·edges + 2·nodes`, which dominates `nnzh`).
pub fn opf_nominal_class(e: &BaselineEntry) -> SizeClass {
    SizeClass::of_nnz(30 * e.edges + 2 * e.nodes)
}

/// Registers one hand-coded AC OPF problem per case file of `dirs`, with the reference
/// objective of `BASELINE.md`; cases missing from it get their class from a parse.
pub fn register_handcoded(r: &mut Registry, dirs: &PglibDirs) -> Result<(), MatpowerError> {
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
pub fn register_modeling(r: &mut Registry, dirs: &PglibDirs) {
    let mut cpu = Vec::new();
    for p in r.problems() {
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
    for p in cpu {
        r.add(p);
    }
}
