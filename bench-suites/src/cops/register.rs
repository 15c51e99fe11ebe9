//! The COPS suite's problems in the benchmark registry.

use std::sync::Arc;

use crate::harness::BenchError;
use crate::harness::registry::{
    DynModel, ModelSource, ParamKind, Problem, Registry, SizeClass, SizeParam, Suite,
};

/// Registers every COPS problem of the modeling layer ([`crate::cops::ALL`],
/// [`ModelSource::Cpu`]) at its table presets (any size on request).
pub fn register(r: &mut Registry) {
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
