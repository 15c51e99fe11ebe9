//! Keeping a test's log capture whole while other tests run in parallel.

use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};

/// A dispatcher that records nothing and is, sometimes, interested in every callsite; hold
/// it (create it first) for as long as a test captures the log with a thread-local
/// subscriber (`tracing::subscriber::with_default`).
///
/// Why: `tracing` caches each callsite's interest for the whole process when the callsite
/// is first hit. While exactly one dispatcher is registered (the capture's own), that
/// interest is asked of the *hitting thread's* default only, so a parallel test whose
/// thread has no subscriber caches `never` for a callsite the capture needs, and its events
/// are dropped (seen in CI: a debug line missing from `device.rs`'s capture). With this
/// second dispatcher registered, the interest is the union over all registered dispatchers
/// (at least "sometimes": each event then asks its own thread's subscriber), and the
/// capture's registration rebuilds the interest of every callsite seen before it.
pub fn interest_anchor() -> Dispatch {
    Dispatch::new(Anchor)
}

/// The subscriber of [`interest_anchor`].
struct Anchor;

impl Subscriber for Anchor {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        false
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}
