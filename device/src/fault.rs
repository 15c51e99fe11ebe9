//! Fault injection for the error paths of kernel launches.
//!
//! A kernel that fails on a GPU (an illegal address, a launch the driver refuses) must end
//! a solve with a typed [`DeviceError`], and the device must stay usable for the next
//! solve. Real failures cannot be provoked on demand, so [`Emu`](crate::Emu) and `Cuda`
//! check a per-thread countdown before every launch: after
//! [`fail_launch_on_this_thread`]`(k)`, the `k + 1`-th launch issued from the calling
//! thread is refused with [`DeviceError::Launch`] (reason `injected failure`) and the
//! countdown is cleared. Per thread, so that other solves running at the same time on a
//! shared device are not affected. [`Cpu`](crate::Cpu) has no launches and ignores it.

use std::cell::Cell;

thread_local! {
    /// Launches still to succeed on this thread before the injected failure, if armed.
    static LAUNCHES_BEFORE_FAILURE: Cell<Option<u64>> = const { Cell::new(None) };
    /// Kernel launches (with threads) issued from this thread, refused ones included.
    static LAUNCHES: Cell<u64> = const { Cell::new(0) };
}

/// Kernel launches with at least one thread that the calling thread issued to the
/// launching devices of this process ([`Emu`](crate::Emu), `Cuda`) since it started,
/// refused ones included: read it around a solve to place an injected failure.
pub fn launches_on_this_thread() -> u64 {
    LAUNCHES.with(Cell::get)
}

/// The reason of an injected [`DeviceError::Launch`].
///
/// [`DeviceError::Launch`]: crate::DeviceError::Launch
pub const INJECTED_FAILURE: &str = "injected failure";

/// Arms the calling thread's countdown: the next `successful_launches` kernel launches
/// from this thread run, the one after is refused with [`crate::DeviceError::Launch`]
/// (reason [`INJECTED_FAILURE`]), and later launches run again. Replaces an armed
/// countdown. For tests of the error paths; launches with zero threads are not counted.
pub fn fail_launch_on_this_thread(successful_launches: u64) {
    LAUNCHES_BEFORE_FAILURE.with(|slot| slot.set(Some(successful_launches)));
}

/// Disarms the calling thread's countdown (a no-op when none is armed).
pub fn clear_launch_failure_on_this_thread() {
    LAUNCHES_BEFORE_FAILURE.with(|slot| slot.set(None));
}

/// Counts one launch against the calling thread's countdown: `true` when this launch is
/// the one to refuse (the countdown is then disarmed).
pub(crate) fn launch_is_refused() -> bool {
    LAUNCHES.with(|count| count.set(count.get().wrapping_add(1)));
    LAUNCHES_BEFORE_FAILURE.with(|slot| match slot.get() {
        None => false,
        Some(0) => {
            slot.set(None);
            true
        }
        Some(left) => {
            slot.set(Some(left - 1));
            false
        }
    })
}

/// The first kernel failure per thread since that thread's last
/// [`Device::synchronize`](crate::Device::synchronize).
///
/// Launches are refused (bad arguments, an injected failure) on the thread that issued
/// them, and the solve running on that thread must hear of it — not another solve that
/// shares the process-wide device and happens to synchronize first. (An asynchronous
/// fault on a GPU is sticky in its CUDA context: the driver reports it to every thread's
/// next wait, through [`crate::Device::synchronize`]'s own wait.)
#[derive(Debug, Default)]
pub(crate) struct FailureSlots {
    by_thread: std::sync::Mutex<Vec<(std::thread::ThreadId, crate::DeviceError)>>,
}

impl FailureSlots {
    /// Keeps `error` for the calling thread unless it already has one.
    pub(crate) fn record(&self, error: crate::DeviceError) {
        let thread = std::thread::current().id();
        let mut slots = self
            .by_thread
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !slots.iter().any(|(t, _)| *t == thread) {
            slots.push((thread, error));
        }
    }

    /// Takes the calling thread's failure, if any.
    pub(crate) fn take(&self) -> Option<crate::DeviceError> {
        let thread = std::thread::current().id();
        let mut slots = self
            .by_thread
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let at = slots.iter().position(|(t, _)| *t == thread)?;
        Some(slots.swap_remove(at).1)
    }
}
