//! Host↔device byte counts per device and per calling thread.
//!
//! A device shared by a process (the solver keeps one [`crate::Emu`] and one
//! [`crate::Cuda`]) serves several solves at once when they run on different threads. The
//! per-device total then mixes their traffic, so each device also counts what the calling
//! thread moved: a solve issues its copies and reductions from its own thread, and the
//! difference of [`Device::transferred_bytes_on_this_thread`] before and after it is its
//! traffic alone.
//!
//! [`Device::transferred_bytes_on_this_thread`]: crate::Device::transferred_bytes_on_this_thread

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    /// Bytes the current thread moved through any device of this process.
    static ON_THIS_THREAD: Cell<u64> = const { Cell::new(0) };
}

/// A device's byte counter: the device's total and the calling thread's share.
#[derive(Debug, Default)]
pub(crate) struct TransferCount {
    total: AtomicU64,
}

impl TransferCount {
    /// Adds `bytes` to the device's total and to the calling thread's count.
    pub(crate) fn add(&self, bytes: usize) {
        let bytes = bytes as u64;
        self.total.fetch_add(bytes, Ordering::Relaxed);
        ON_THIS_THREAD.with(|count| count.set(count.get().wrapping_add(bytes)));
    }

    /// Bytes moved through this device by every thread since it was created.
    pub(crate) fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }
}

/// Bytes the calling thread moved through the devices of this process since it started
/// (every device counted together: a thread drives one solve at a time).
pub(crate) fn on_this_thread() -> u64 {
    ON_THIS_THREAD.with(Cell::get)
}
