//! The buffer an answer is written into while [`crate::json::to_json`] runs: one per thread, so that
//! serde_json (through [`SinkWriter`]) and the points of [`Values`](crate::Values) (through
//! [`with_sink`]) append to the same bytes, each byte written once.

use std::cell::RefCell;

std::thread_local! {
    /// The answer being written by [`crate::json::to_json`] on this thread (`None` outside of it).
    static SINK: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
}

/// Installs a buffer as this thread's [`SINK`] and puts back what was there before (usually
/// nothing) when finished or dropped, also on a panic inside serialization.
pub(crate) struct Sink {
    prev: Option<Vec<u8>>,
    restored: bool,
}

impl Sink {
    pub(crate) fn install(buf: Vec<u8>) -> Sink {
        Sink {
            prev: SINK.with(|s| s.replace(Some(buf))),
            restored: false,
        }
    }

    /// The written answer; what was there before is back in place.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.restored = true;
        SINK.with(|s| s.replace(self.prev.take()))
            .unwrap_or_default()
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if !self.restored {
            SINK.with(|s| s.replace(self.prev.take()));
        }
    }
}

/// `io::Write` into this thread's [`SINK`].
pub(crate) struct SinkWriter;

impl std::io::Write for SinkWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf).map(|()| buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        with_sink(|out| out.extend_from_slice(buf))
            .ok_or_else(|| std::io::Error::other("no JSON sink"))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `f` on the buffer of the [`crate::json::to_json`] running on this thread; `None` outside of one.
pub(crate) fn with_sink<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> Option<R> {
    SINK.with(|s| s.borrow_mut().as_mut().map(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sink_is_removed_after_a_panic_and_restored_when_nested() {
        let caught = std::panic::catch_unwind(|| {
            let _sink = Sink::install(b"partial".to_vec());
            panic!("serialization failed");
        });
        assert!(caught.is_err());
        assert_eq!(with_sink(|_| ()), None, "no sink left behind by the panic");

        let outer = Sink::install(b"outer".to_vec());
        let inner = Sink::install(Vec::new());
        with_sink(|b| b.extend_from_slice(b"inner"));
        assert_eq!(inner.finish(), b"inner");
        assert_eq!(outer.finish(), b"outer");
        assert_eq!(with_sink(|_| ()), None);
    }
}
