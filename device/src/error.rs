//! The typed errors of the device seam.

use thiserror::Error;

/// Why a device operation failed. Every variant names the device (`"cpu"`, `"emu"`,
/// `"cuda"`) and says what was asked for.
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum DeviceError {
    /// An allocation failed.
    #[error("{device}: cannot allocate {bytes} bytes for {what}")]
    OutOfMemory {
        /// Device name.
        device: &'static str,
        /// Bytes requested.
        bytes: usize,
        /// What the buffer was for (`"vector"`, `"index list"`, ...).
        what: &'static str,
    },
    /// A host transfer got a buffer of the wrong length.
    #[error("{device}: {what}: expected length {expected}, got {got}")]
    LengthMismatch {
        /// Device name.
        device: &'static str,
        /// Which transfer.
        what: &'static str,
        /// Length of the device buffer.
        expected: usize,
        /// Length of the host buffer.
        got: usize,
    },
    /// An index does not fit the device's index type.
    #[error("{device}: index {index} does not fit the device's index type (max {max})")]
    IndexTooLarge {
        /// Device name.
        device: &'static str,
        /// The offending index.
        index: usize,
        /// Largest representable index.
        max: usize,
    },
    /// A host transfer failed.
    #[error("{device}: transfer of {bytes} bytes failed: {reason}")]
    Transfer {
        /// Device name.
        device: &'static str,
        /// Bytes of the transfer.
        bytes: usize,
        /// The driver's or runtime's message.
        reason: String,
    },
    /// The device cannot be used on this machine (no driver, no compiler, no GPU, or the
    /// device is not built yet).
    #[error("device {device} is not available: {reason}")]
    Unavailable {
        /// Device name.
        device: &'static str,
        /// What is missing.
        reason: String,
    },
    /// Compiling a kernel module failed.
    #[error("{device}: compiling a kernel module failed: {log}")]
    Compile {
        /// Device name.
        device: &'static str,
        /// The compiler's log.
        log: String,
    },
    /// A module has no kernel of that name.
    #[error("{device}: no kernel `{kernel}` in the module")]
    UnknownKernel {
        /// Device name.
        device: &'static str,
        /// Kernel name asked for.
        kernel: String,
    },
    /// A kernel launch was refused or the kernel failed.
    #[error("{device}: kernel `{kernel}` failed: {reason}")]
    Launch {
        /// Device name.
        device: &'static str,
        /// Kernel name.
        kernel: String,
        /// The driver's or runtime's message.
        reason: String,
    },
    /// A segment plan was built from inconsistent host data.
    #[error("segment plan: {what}: entry {entry} has index {index}, limit {limit}")]
    BadPlan {
        /// Which list.
        what: &'static str,
        /// Position of the offending entry.
        entry: usize,
        /// Its value.
        index: usize,
        /// Exclusive upper limit it broke.
        limit: usize,
    },
}
