//! Fallible allocation of model-sized buffers: a model too large for the machine is a
//! [`ModelError::OutOfMemory`] naming the buffer and the bytes requested, not an aborted
//! process.

use crate::error::ModelError;

/// Bytes of `len` values of `T`, saturated at `u64::MAX`.
fn bytes_of<T>(len: usize) -> u64 {
    (len as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

/// An empty vector with room for exactly `len` values, or the error naming `what`.
pub(crate) fn try_with_capacity<T>(
    len: usize,
    what: impl FnOnce() -> String,
) -> Result<Vec<T>, ModelError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| ModelError::OutOfMemory {
            what: what(),
            bytes: bytes_of::<T>(len),
        })?;
    Ok(v)
}

/// `len` copies of `value`, or the error naming `what`.
pub(crate) fn try_filled<T: Clone>(
    len: usize,
    value: T,
    what: impl FnOnce() -> String,
) -> Result<Vec<T>, ModelError> {
    let mut v = try_with_capacity(len, what)?;
    v.resize(len, value);
    Ok(v)
}
