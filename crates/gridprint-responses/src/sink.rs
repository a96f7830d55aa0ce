//! The buffer an answer is written into while [`crate::json::to_json`] runs: one per thread, so that
//! serde_json (through [`SinkWriter`]) and the points of [`Values`](crate::Values) (through
//! [`with_sink`]) append to the same bytes, each byte written once.

use std::cell::RefCell;

std::thread_local! {
    /// The answer being written by [`to_json`] on this thread (`None` outside of it).
    static SINK: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
}

/// Installs a buffer as this thread's [`SINK`] and puts back the previous one when dropped (also
/// on a panic inside serialization).
pub(crate) struct Sink(Option<Vec<u8>>);

impl Sink {
    pub(crate) fn install(buf: Vec<u8>) -> Sink {
        Sink(SINK.with(|s| s.replace(Some(buf))))
    }

    /// The written answer; the previous buffer is back in place.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let prev = self.0.take();
        SINK.with(|s| s.replace(prev)).unwrap_or_default()
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Some(prev) = self.0.take() {
            SINK.with(|s| s.replace(Some(prev)));
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

/// Runs `f` on the buffer of the [`to_json`] running on this thread; `None` outside of one.
pub(crate) fn with_sink<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> Option<R> {
    SINK.with(|s| s.borrow_mut().as_mut().map(f))
}
