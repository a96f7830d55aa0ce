//! Fuzz target: timestamp parsing and the time-window rule never panic, and every accepted window
//! is a non-empty, slot-aligned range containing its start.
#![no_main]

use gridprint_core::slot::{SlotRange, parse_timestamp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut parts = text.splitn(2, '|');
    let (a, b) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (Ok(start), Ok(end)) = (parse_timestamp(a), parse_timestamp(b)) else { return };
    if start > end {
        return;
    }
    // Keep to the range the API accepts (time's limits are far beyond what a slot needs).
    if start.year() < 1900 || end.year() > 2200 {
        return;
    }
    let w = SlotRange::from_window(start, end);
    assert!(!w.is_empty());
    assert!(w.start.start() <= start);
    assert!(w.end.start() >= end || w.len() == 1);
});
