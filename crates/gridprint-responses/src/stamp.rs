//! Fast timestamp formatting for the hot serialization path (JSON and CSV).
//!
//! Every value of every response carries a `YYYY-MM-DDThh:mm:ssZ` timestamp; a one-year, one-zone
//! footprints answer has 35,040 of them. [`SlotStamp`] writes one into a 20-byte stack buffer with
//! integer arithmetic only (the civil-from-days algorithm of Howard Hinnant), so serializing a point
//! allocates nothing. Results equal `gridprint_core::slot::format_timestamp` (checked by a test).

use gridprint_core::slot::{SLOT_SECONDS, Slot, format_timestamp};

/// Year, month, day of a day number (days since 1970-01-01), proleptic Gregorian.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A formatted timestamp held on the stack.
#[derive(Clone, Copy)]
pub struct SlotStamp {
    buf: [u8; 20],
}

fn two(buf: &mut [u8], at: usize, v: u32) {
    buf[at] = b'0' + (v / 10) as u8;
    buf[at + 1] = b'0' + (v % 10) as u8;
}

impl SlotStamp {
    /// Formats an instant given in unix seconds; `None` for years outside 0..=9999.
    pub fn from_unix(secs: i64) -> Option<SlotStamp> {
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400) as u32;
        let (y, m, d) = civil_from_days(days);
        if !(0..=9999).contains(&y) {
            return None;
        }
        let y = y as u32;
        let mut buf = *b"0000-00-00T00:00:00Z";
        two(&mut buf, 0, y / 100);
        two(&mut buf, 2, y % 100);
        two(&mut buf, 5, m);
        two(&mut buf, 8, d);
        two(&mut buf, 11, sod / 3600);
        two(&mut buf, 14, sod % 3600 / 60);
        two(&mut buf, 17, sod % 60);
        Some(SlotStamp { buf })
    }

    /// The text, e.g. `2024-06-15T12:00:00Z`.
    pub fn as_str(&self) -> &str {
        // The buffer holds ASCII digits and separators only.
        std::str::from_utf8(&self.buf).unwrap_or("0000-00-00T00:00:00Z")
    }
}

/// `hh:mm:00Z` of each of the 96 slots of a day.
static SLOT_SUFFIX: [[u8; 9]; 96] = {
    let mut t = [*b"00:00:00Z"; 96];
    let mut i = 0;
    while i < 96 {
        let (h, m) = (i / 4, i % 4 * 15);
        t[i][0] = b'0' + (h / 10) as u8;
        t[i][1] = b'0' + (h % 10) as u8;
        t[i][3] = b'0' + (m / 10) as u8;
        t[i][4] = b'0' + (m % 10) as u8;
        i += 1;
    }
    t
};

/// Writes slot timestamps day by day: the `YYYY-MM-DDT` prefix is formatted once per day and the
/// time of day comes from a table of the 96 slot starts.
pub struct StampWriter {
    day: i64,
    /// `None` for years outside 0..=9999 (written by the core formatter).
    prefix: Option<[u8; 11]>,
}

impl Default for StampWriter {
    fn default() -> Self {
        StampWriter {
            day: i64::MIN,
            prefix: None,
        }
    }
}

impl StampWriter {
    /// Writes the timestamp of the start of `slot` (as [`with_slot_stamp`] formats it) into `dst`;
    /// `false` (nothing written) for years outside 0..=9999.
    pub fn put(&mut self, slot: Slot, dst: &mut [u8; 20]) -> bool {
        let day = slot.0.div_euclid(96);
        if day != self.day {
            self.day = day;
            self.prefix = SlotStamp::from_unix(day * 86_400).map(|s| {
                let mut p = [0u8; 11];
                p.copy_from_slice(&s.buf[..11]);
                p
            });
        }
        let Some(prefix) = &self.prefix else {
            return false;
        };
        dst[..11].copy_from_slice(prefix);
        dst[11..].copy_from_slice(&SLOT_SUFFIX[slot.0.rem_euclid(96) as usize]);
        true
    }

    /// Appends the timestamp of the start of `slot` (as [`with_slot_stamp`] formats it).
    pub fn write(&mut self, out: &mut Vec<u8>, slot: Slot) {
        let mut stamp = [0u8; 20];
        if self.put(slot, &mut stamp) {
            out.extend_from_slice(&stamp);
        } else {
            with_slot_stamp(slot, |s| out.extend_from_slice(s.as_bytes()));
        }
    }
}

/// Calls `f` with the formatted start of a slot, without allocating for years 0..=9999.
pub fn with_slot_stamp<R>(slot: Slot, f: impl FnOnce(&str) -> R) -> R {
    match SlotStamp::from_unix(slot.0 * SLOT_SECONDS) {
        Some(s) => f(s.as_str()),
        None => f(&format_timestamp(slot.start())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_core_formatter() {
        // Every day from 1900 to 2100 at a few times of day, plus leap days.
        let first = Slot::first_of_day(-25_567);
        for d in 0..73_049i64 {
            for idx in [0i64, 1, 47, 95] {
                let s = first.offset(d * 96 + idx);
                with_slot_stamp(s, |t| assert_eq!(t, format_timestamp(s.start())));
            }
        }
    }

    #[test]
    fn stamp_writer_equals_the_core_formatter() {
        let mut w = StampWriter::default();
        let mut out = Vec::new();
        let mut want = Vec::new();
        // Around the edges of the fast range too (year -1 and 10000 fall back).
        for first in [
            Slot::first_of_day(-719_530),
            Slot::first_of_day(-2),
            Slot::first_of_day(19_723),
            Slot::first_of_day(2_932_894),
        ] {
            for k in 0..96 * 3 {
                let s = first.offset(k);
                w.write(&mut out, s);
                want.extend_from_slice(format_timestamp(s.start()).as_bytes());
            }
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }
}
