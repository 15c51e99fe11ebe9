//! Device allocations per calling thread.
//!
//! The interior-point method allocates its vectors when a problem is set up and none
//! while it iterates. Each device of this crate counts the vectors and index lists it
//! allocates ([`Device::zeros`], [`Device::vector_from_host`],
//! [`Device::index_from_host`]) on the calling thread, so the difference of two readings
//! of [`Device::allocations_on_this_thread`] around a stretch of a solve is the number of
//! allocations it made (on a GPU, each one a `cudaMalloc`).
//!
//! [`Device::zeros`]: crate::Device::zeros
//! [`Device::vector_from_host`]: crate::Device::vector_from_host
//! [`Device::index_from_host`]: crate::Device::index_from_host
//! [`Device::allocations_on_this_thread`]: crate::Device::allocations_on_this_thread

use std::cell::Cell;

thread_local! {
    /// Vectors and index lists the current thread allocated on any device of this crate.
    static ON_THIS_THREAD: Cell<u64> = const { Cell::new(0) };
}

/// Count one allocation of the calling thread.
pub(crate) fn count() {
    ON_THIS_THREAD.with(|count| count.set(count.get().wrapping_add(1)));
}

/// Vectors and index lists the calling thread allocated on the devices of this crate
/// since it started.
pub(crate) fn on_this_thread() -> u64 {
    ON_THIS_THREAD.with(Cell::get)
}
