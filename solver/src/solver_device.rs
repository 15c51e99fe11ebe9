//! The devices a [`crate::Solver`] runs on, and the KKT backends each one uses.
//!
//! [`SolverDevice`] is implemented for `simdnlp_device::Cpu`, `simdnlp_device::Emu` and
//! (feature `cuda`) `simdnlp_device::Cuda`. It is sealed: what a device needs from the
//! solver (its backends and their caches) is private to this crate.

use crate::device_kkt::DeviceKktBackend;
use crate::evaluate::{DeviceNlp, HostNlp, KernelNlp};
use crate::host_kkt::{FactorizationChoice, HostKktBackend, make_solver};
use crate::options::{DeviceKind, KktKind};
use crate::result::{SolveResult, SolverError};
use crate::solve::{Cache, Run};
use simdnlp_device::{Cpu, Device, Emu};
use simdnlp_linalg::HostFactorization;
use std::sync::Arc;

/// A device a [`crate::Solver`] can run on: `Cpu` (the default), `Emu` and, with
/// feature `cuda`, `Cuda`. [`SolverDevice::KIND`] is the [`crate::Options::device`]
/// value that names it; a solver's options must name its device.
pub trait SolverDevice: Device + Sized + 'static + sealed::DeviceSolve {
    /// The value of [`crate::Options::device`] that names this device.
    const KIND: DeviceKind;
}

pub(crate) mod sealed {
    use super::{Arc, Run, SolveResult, SolverError};

    /// What the solver does on a device: which KKT backends it makes there and keeps
    /// between solves (hidden: the types are the solver's own).
    pub trait DeviceSolve: Sized {
        /// The KKT backends of the solves on this device, kept for re-solves (one per KKT
        /// backend the device uses).
        type Caches: Default;

        /// One solve of `run` on `device`, reusing the cached backend (symbolic analysis)
        /// when the structure and options allow.
        fn solve_on(
            device: &Arc<Self>,
            run: &mut Run<'_, '_>,
            caches: &mut Self::Caches,
        ) -> Result<SolveResult, SolverError>;
    }
}

impl SolverDevice for Cpu {
    const KIND: DeviceKind = DeviceKind::Cpu;
}

/// `Cpu`: the model's callbacks on the host, the augmented or condensed KKT system on faer.
impl sealed::DeviceSolve for Cpu {
    type Caches = Option<Cache<HostKktBackend<Cpu>>>;

    fn solve_on(
        device: &Arc<Self>,
        run: &mut Run<'_, '_>,
        caches: &mut Self::Caches,
    ) -> Result<SolveResult, SolverError> {
        let evaluator = HostNlp::new(&**device, run.user_model);
        let o = run.o;
        run.solve(device, &evaluator, caches, |device, model, lay| {
            HostKktBackend::new(device, model, lay, o)
        })
    }
}

/// The condensed or hybrid KKT system on the emulated device, faer behind the
/// factorization seam.
type EmuCondensed = DeviceKktBackend<Emu, HostFactorization<Emu>>;

/// The backends of the solves on an emulated device: the host KKT backend (augmented)
/// and the device one (condensed or hybrid; its cache key tells the two apart).
#[derive(Default)]
pub struct EmuCaches {
    augmented: Option<Cache<HostKktBackend<Emu>>>,
    on_device: Option<Cache<EmuCondensed>>,
}

impl SolverDevice for Emu {
    const KIND: DeviceKind = DeviceKind::Emu;
}

/// `Emu`: a pattern-based model's emitted kernels (any other model's callbacks on the host
/// slices of the device's vectors); `kkt = condensed` assembles, reduces and expands the
/// condensed system on the device with faer behind the factorization seam (`kkt = hybrid`
/// the hybrid form's, with its conjugate gradients on device vectors), `kkt = augmented`
/// the host KKT backend over the device's vectors.
impl sealed::DeviceSolve for Emu {
    type Caches = EmuCaches;

    fn solve_on(
        device: &Arc<Self>,
        run: &mut Run<'_, '_>,
        caches: &mut Self::Caches,
    ) -> Result<SolveResult, SolverError> {
        let on_device;
        let on_host;
        let evaluator: &dyn DeviceNlp<Emu> = match run.user_model.as_pattern_model() {
            Some(model) => {
                on_device = KernelNlp::new(&**device, model)?;
                &on_device
            }
            None => {
                on_host = HostNlp::new(&**device, run.user_model);
                &on_host
            }
        };
        let o = run.o;
        if matches!(o.kkt, KktKind::Condensed | KktKind::Hybrid) {
            let choice = FactorizationChoice::of(o);
            run.solve(
                device,
                evaluator,
                &mut caches.on_device,
                |device, model, lay| {
                    let seam_device = Arc::clone(&device);
                    let make = Arc::new(move || {
                        let solver = make_solver(&choice, true, 0, &[])?;
                        Ok(HostFactorization::new(Arc::clone(&seam_device), solver))
                    });
                    DeviceKktBackend::new(device, model, lay, o, make)
                },
            )
        } else {
            run.solve(
                device,
                evaluator,
                &mut caches.augmented,
                |device, model, lay| HostKktBackend::new(device, model, lay, o),
            )
        }
    }
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::{Arc, Cache, DeviceKind, DeviceKktBackend, KernelNlp, Run, SolverDevice, sealed};
    use crate::options::{CudssKind, CudssReorderingKind, KktKind, Options};
    use crate::result::{SolveResult, SolverError};
    use simdnlp_device::Cuda;
    use simdnlp_linalg::FillMethod;
    use simdnlp_linalg::cudss::{CudssFactorization, CudssOnCuda, CudssOptions, CudssReordering};

    /// The condensed KKT system on the GPU, cuDSS behind the factorization seam.
    type CudaCondensed = DeviceKktBackend<Cuda, CudssOnCuda>;

    impl SolverDevice for Cuda {
        const KIND: DeviceKind = DeviceKind::Cuda;
    }

    /// `Cuda`: a pattern-based model's kernels on the GPU and the condensed KKT system on
    /// the device with cuDSS (the process's library, loaded at the first solve): the
    /// hybrid form for `kkt = hybrid`, the condensed one for any other `kkt`.
    impl sealed::DeviceSolve for Cuda {
        type Caches = Option<Cache<CudaCondensed>>;

        fn solve_on(
            device: &Arc<Self>,
            run: &mut Run<'_, '_>,
            caches: &mut Self::Caches,
        ) -> Result<SolveResult, SolverError> {
            let library = crate::solve::cudss_library()?;
            let Some(model) = run.user_model.as_pattern_model() else {
                return Err(SolverError::Device(
                    simdnlp_device::DeviceError::Unavailable {
                        device: "cuda",
                        reason: "only a pattern-based model (simdnlp's `Model`) is evaluated \
                                 on the GPU; solve other models on `cpu` or `emu`"
                            .into(),
                    },
                ));
            };
            let evaluator = KernelNlp::new(&**device, model)?;
            let kkt = match run.o.kkt {
                KktKind::Hybrid => KktKind::Hybrid,
                _ => KktKind::Condensed,
            };
            let o = Options {
                kkt,
                ..run.o.clone()
            };
            let options = cudss_options(&o);
            let mut run = Run {
                user_model: run.user_model,
                o: &o,
                warm: run.warm,
                analyses: &mut *run.analyses,
                hooks: run.hooks.take(),
            };
            run.solve(device, &evaluator, caches, |device, model, lay| {
                let seam_device = Arc::clone(&device);
                let make = Arc::new(move || {
                    Ok(CudssOnCuda::new(
                        Arc::clone(&seam_device),
                        Arc::clone(&library),
                        options,
                    )?)
                });
                DeviceKktBackend::new(device, model, lay, &o, make)
            })
        }
    }

    /// cuDSS's settings from the `cudss_*` options.
    fn cudss_options(o: &Options) -> CudssOptions {
        CudssOptions {
            factorization: match o.cudss_factorization {
                CudssKind::Ldlt => CudssFactorization::Ldlt,
                _ => CudssFactorization::Cholesky,
            },
            pivoting: o.cudss_pivoting,
            pivot_epsilon: (o.cudss_pivot_epsilon > 0.0).then_some(o.cudss_pivot_epsilon),
            reordering: match o.cudss_reordering {
                CudssReorderingKind::Alg1 => CudssReordering::Alg1,
                CudssReorderingKind::Alg2 => CudssReordering::Alg2,
                CudssReorderingKind::Alg3 => CudssReordering::Alg3,
                _ => CudssReordering::Default,
            },
            host_ordering: match o.cudss_reordering {
                CudssReorderingKind::HostAmd => Some(FillMethod::Amd),
                CudssReorderingKind::HostNd => Some(FillMethod::NestedDissection),
                _ => None,
            },
            host_threads: u32::try_from(o.cudss_host_threads).unwrap_or(u32::MAX),
            deterministic: o.cudss_deterministic,
            nd_levels: u32::try_from(o.cudss_nd_levels)
                .ok()
                .filter(|&levels| levels > 0),
            ..CudssOptions::default()
        }
    }
}
