//! The solver's log on stderr when the program installed no `tracing` subscriber.
//!
//! The solver logs through `tracing` (see the crate docs). A program that installed no
//! subscriber would see nothing, which at the default [`PrintLevel::Iterations`] looks
//! broken; so for the duration of a solve that asks for output, and only on the solving
//! thread, [`fallback`] installs a minimal subscriber that writes each event of the
//! `simdnlp*` crates as one plain line (the message, then any other fields as
//! `name=value`) to stderr. A program with its own subscriber (`tracing_subscriber::fmt`,
//! a test's `with_default`, ...) gets its events there instead, filtered its way. The
//! library never installs a global subscriber.
//!
//! Writing an event allocates nothing: the fields are formatted straight into the locked
//! stderr handle (unbuffered).

use std::fmt;
use std::io::Write as _;

use tracing::dispatcher::{self, DefaultGuard, Dispatch};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::NoSubscriber;
use tracing::{Event, Level, Metadata, Subscriber};

use crate::options::PrintLevel;

/// When `level` asks for output and no subscriber is installed (neither globally nor for
/// this thread), installs the stderr writer as this thread's default until the returned
/// guard is dropped.
pub(crate) fn fallback(level: PrintLevel) -> Option<DefaultGuard> {
    let max = match level {
        PrintLevel::None => return None,
        PrintLevel::Summary | PrintLevel::Iterations => Level::INFO,
        PrintLevel::Debug => Level::DEBUG,
    };
    let absent = dispatcher::get_default(|d| d.is::<NoSubscriber>());
    absent.then(|| dispatcher::set_default(&Dispatch::new(StderrLog { max })))
}

/// Writes the events of the `simdnlp*` crates up to level `max` to stderr, one line each.
struct StderrLog {
    max: Level,
}

impl Subscriber for StderrLog {
    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        // tracing orders levels by verbosity: TRACE > DEBUG > INFO
        *meta.level() <= self.max && meta.target().starts_with("simdnlp")
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::from_level(self.max))
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        // spans are not printed; every span gets the same id
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut err = std::io::stderr().lock();
        write_line(event, IoFmt(&mut err));
        // a failed write to stderr has nowhere to be reported
        let _ = writeln!(err);
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// `fmt::Write` over an `io::Write` (write errors are dropped, see [`StderrLog::event`]).
struct IoFmt<'a, W: std::io::Write>(&'a mut W);

impl<W: std::io::Write> fmt::Write for IoFmt<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write_all(s.as_bytes()).map_err(|_| fmt::Error)
    }
}

/// Writes `event` as one line (without the newline): the message, then ` name=value` for
/// each other field.
fn write_line(event: &Event<'_>, out: impl fmt::Write) {
    let mut line = Line { out, message: true };
    event.record(&mut line);
    line.message = false;
    event.record(&mut line);
}

/// Field visitor of one line: the pass with `message` set writes the message, the other
/// pass appends the remaining fields as ` name=value`.
struct Line<W: fmt::Write> {
    out: W,
    message: bool,
}

impl<W: fmt::Write> Visit for Line<W> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let is_message = field.name() == "message";
        let _ = match (self.message, is_message) {
            (true, true) => write!(self.out, "{value:?}"),
            (false, false) => write!(self.out, " {}={value:?}", field.name()),
            _ => Ok(()),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Collects the lines [`write_line`] makes of the events it receives.
    struct Capture {
        lines: Arc<Mutex<Vec<String>>>,
        inner: StderrLog,
    }

    impl Subscriber for Capture {
        fn enabled(&self, meta: &Metadata<'_>) -> bool {
            self.inner.enabled(meta)
        }
        fn new_span(&self, span: &Attributes<'_>) -> Id {
            self.inner.new_span(span)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut s = String::new();
            write_line(event, &mut s);
            self.lines.lock().unwrap().push(s);
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    #[test]
    fn one_line_per_event_message_first() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let capture = Capture {
            lines: lines.clone(),
            inner: StderrLog { max: Level::INFO },
        };
        dispatcher::with_default(&Dispatch::new(capture), || {
            tracing::info!(a = 1, b = 2.5, "inertia {}", "correction");
            tracing::info!("{:4} {:8.2e}", 3, 0.5);
            tracing::debug!("above INFO: dropped");
            tracing::info!(target: "other_crate", "not ours: dropped");
        });
        assert_eq!(
            *lines.lock().unwrap(),
            ["inertia correction a=1 b=2.5", "   3  5.00e-1"]
        );
    }

    #[test]
    fn installed_only_without_a_subscriber() {
        assert!(fallback(PrintLevel::None).is_none());
        {
            let _ours = fallback(PrintLevel::Iterations).expect("no subscriber in unit tests");
            // ours is now the thread's default: a second solve does not stack another
            assert!(dispatcher::get_default(|d| d.is::<StderrLog>()));
            assert!(fallback(PrintLevel::Iterations).is_none());
        }
        assert!(dispatcher::get_default(|d| d.is::<NoSubscriber>()));
        let theirs = Dispatch::new(StderrLog { max: Level::ERROR });
        dispatcher::with_default(&theirs, || {
            assert!(fallback(PrintLevel::Debug).is_none());
        });
    }
}
