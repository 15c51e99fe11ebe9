//! How the host-side work of a solve uses threads: one type for the model's callbacks
//! (simdnlp-ad's evaluators) and the sparse factorization (simdnlp-linalg's faer backend).

/// How the host-side work uses rayon's global thread pool.
///
/// The one parallelism setting of the workspace (re-exported as `simdnlp_ad::Parallelism`,
/// `simdnlp_linalg::Parallelism` and `simdnlp_modeling::Parallelism`). Each user reads the
/// field that concerns it:
/// - the model's callbacks (pattern evaluators, `Model::set_threads`) split each pattern's
///   data points into tasks of at least `min_batch` points;
/// - the sparse factorization and solves (`FaerLdlt::new` and its twins) use at most
///   `threads` threads.
///
/// Measured for the factorization (linalg's `benches/kkt.rs`, 2D-grid KKT with 2.5e5
/// rows, shared 2-core machine): two threads gave no speed-up for LLᵀ/LDLᵀ and made the
/// LBLᵀ numeric factorization about 15× slower (faer parallelizes the small dense
/// per-supernode Bunch–Kaufman kernels). Keep `Sequential` there unless a measurement on
/// the target machine says otherwise.
///
/// ```
/// use simdnlp_device::Parallelism;
/// // callbacks: tasks of at least 4096 data points; factorization: rayon's threads
/// let par = Parallelism::rayon_batches(4096);
/// assert_eq!(par, Parallelism::Rayon { threads: 0, min_batch: 4096 });
/// assert_eq!(Parallelism::rayon_threads(2), Parallelism::Rayon { threads: 2, min_batch: 0 });
/// assert_eq!(Parallelism::default(), Parallelism::Sequential);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Parallelism {
    /// One thread, in order (the default).
    #[default]
    Sequential,
    /// Tasks on rayon's global pool.
    Rayon {
        /// Most threads of the factorization and solves; `0` means rayon's current number
        /// of threads. (The callbacks use the whole pool.)
        threads: usize,
        /// Fewest data points per callback task, rounded up to whole batches of the
        /// evaluators' lane count (`0`: one batch). (The factorization ignores it.)
        min_batch: usize,
    },
}

impl Parallelism {
    /// Callbacks split into tasks of at least `min_batch` data points, the factorization on
    /// all of rayon's threads.
    pub const fn rayon_batches(min_batch: usize) -> Self {
        Self::Rayon {
            threads: 0,
            min_batch,
        }
    }

    /// The factorization on at most `threads` threads (`0`: rayon's current number), the
    /// callbacks in tasks of one batch of points.
    pub const fn rayon_threads(threads: usize) -> Self {
        Self::Rayon {
            threads,
            min_batch: 0,
        }
    }
}
