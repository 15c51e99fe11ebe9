//! The LV suite's problems in the benchmark registry.

use std::sync::Arc;

use crate::handcoded::RosenbrockModel;
use crate::harness::BenchError;
use crate::harness::registry::{
    DynModel, LV_PRESETS, ModelSource, ParamKind, Problem, Registry, SizeParam, Suite,
};

/// Registers the LV suite: the hand-coded rosenbrock ([`register_handcoded`]) and every
/// LV problem of the modeling layer ([`crate::lv::LV_PROBLEMS`], [`ModelSource::Cpu`]), at
/// the LV presets (any `N` on request).
pub fn register(r: &mut Registry) {
    register_handcoded(r);
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
}

/// Registers the hand-coded LV rosenbrock at the LV presets (any `N ≥ 3` on request).
pub fn register_handcoded(r: &mut Registry) {
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
