//! Stopping a benchmark run cleanly: an [`Interrupt`] flag that Ctrl-C sets
//! ([`Interrupt::on_ctrl_c`]) and that the harness checks before each instance and passes
//! to the running solve (which ends `UserRequestedStop`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A shared "stop now" flag: clones see the same flag.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the flag: the running solve stops at its next iteration and no further
    /// instance starts.
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Interrupt::interrupt`] was called on this flag or a clone.
    pub fn is_interrupted(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// A flag set by Ctrl-C (SIGINT, and SIGTERM/SIGHUP where the platform has them)
    /// for the rest of the process.
    ///
    /// # Errors
    /// The handler could not be installed (one is already installed in this process).
    pub fn on_ctrl_c() -> Result<Self, String> {
        let flag = Self::new();
        let handler = flag.clone();
        ctrlc::set_handler(move || handler.interrupt())
            .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))?;
        Ok(flag)
    }
}

impl PartialEq for Interrupt {
    /// Two interrupts are equal when they are the same flag (clones of each other).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let a = Interrupt::new();
        let b = a.clone();
        assert_eq!(a, b);
        assert_ne!(a, Interrupt::new());
        assert!(!b.is_interrupted());
        std::thread::spawn(move || b.interrupt()).join().unwrap();
        assert!(a.is_interrupted());
    }
}
