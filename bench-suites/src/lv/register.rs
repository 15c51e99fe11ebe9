//! The LV suite's problems in the benchmark registry.

use std::sync::Arc;

use crate::handcoded::RosenbrockModel;
use crate::harness::BenchError;
use crate::harness::registry::{
    DynModel, LV_PRESETS, ModelSource, ParamKind, Problem, Registry, SizeParam, Suite,
};
use simdnlp_modeling::NlpModel;

/// Registers the LV suite: the hand-coded rosenbrock ([`register_handcoded`]) and every
/// LV problem of the modeling layer ([`crate::lv::LV_PROBLEMS`], [`ModelSource::Cpu`]), at
/// the LV presets (any `N` on request).
pub fn register(r: &mut Registry) {
    register_handcoded(r);
    for &name in crate::lv::LV_PROBLEMS {
        r.add(lv_problem(name, ModelSource::Cpu, move |n| {
            crate::lv::build(name, n)
        }));
    }
}

/// Registers the hand-coded LV rosenbrock at the LV presets (any `N ≥ 3` on request).
pub fn register_handcoded(r: &mut Registry) {
    r.add(lv_problem(
        "rosenbrock",
        ModelSource::Handcoded,
        RosenbrockModel::new,
    ));
}

/// The LV problem `name` of `backend` at the LV presets (any `N` on request), built by
/// `build(N)`.
fn lv_problem<M, E>(
    name: &'static str,
    backend: ModelSource,
    build: impl Fn(usize) -> Result<M, E> + Send + Sync + 'static,
) -> Problem
where
    M: NlpModel + Send + Sync + 'static,
    E: std::fmt::Display,
{
    Problem {
        suite: Suite::Lv,
        name: name.to_string(),
        backend,
        param_kind: ParamKind::Scalar,
        presets: LV_PRESETS
            .iter()
            .map(|&(c, n)| (c, SizeParam::N(n)))
            .collect(),
        reference: Arc::new(|_| None),
        build: Arc::new(move |p| match *p {
            SizeParam::N(n) => {
                build(n)
                    .map(|m| Box::new(m) as DynModel)
                    .map_err(|e| BenchError::Model {
                        instance: format!("{name}:{n}"),
                        msg: e.to_string(),
                    })
            }
            _ => Err(BenchError::BadSize {
                instance: name.to_string(),
                why: "takes N".to_string(),
            }),
        }),
    }
}
