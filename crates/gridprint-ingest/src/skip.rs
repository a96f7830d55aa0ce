//! Keys of [`ParsedDocument::skipped`](crate::ParsedDocument::skipped): why values of a document
//! were not turned into points, and for which area; [`log`] reports them. Every key is
//! `reason:detail`, the detail being the provider's own identifier (an EIC code, a psrType, a File
//! Library production type name; `OUT->IN` for flows), so an operator can search the file for it.
//! Counts are source values: decoded positions of a TimeSeries (after A03 runs are expanded, before
//! hourly values are spread over 15-minute slots), rows of a File Library extract or value cells of
//! a website export (`transparency_csv`, whose area is written `BZN|DK1`).
//!
//! | key | meaning |
//! |---|---|
//! | `not-a-zone:<EIC>` | the area is not a gridprint zone (German control areas, IT/NO/SE/DK country totals…) |
//! | `consumption:<EIC>` | an A75 consumption series (`outBiddingZone_Domain`), e.g. pumping, or an export's `Actual Consumption` value |
//! | `psr-type:<code>` / `production-type:<name>` | a psrType, or a File Library (or website export) production type name, gridprint does not report (B25 energy storage…) |
//! | `area-type:<code>` | a File Library AreaTypeCode other than BZN, CTY or CTA |
//! | `superseded-<TYPE>:<area>` | File Library rows of a less preferred area type (BZN > CTY > CTA) for a zone or border that has better rows in the same file |
//! | `empty-value:<area>` | a File Library row without a value, an export's `N/A` or empty cell |
//! | `negative-value:<area>` | a negative generation or load value (negative flows are an error) |
//! | `internal-flow:<area>` | a flow whose both ends are the same zone |
//! | `duplicate:<area>` | a second value for the same series and slot (the later value is kept) |
//! | `no-publication-time:<zone>` | a TSO forecast whose publication time is unknown (an export's `Current` forecast: only its last version is exported), not stored |

/// The area is not one of our zones.
pub fn not_a_zone(eic: &str) -> String {
    format!("not-a-zone:{eic}")
}

/// A consumption series in a generation-per-type document.
pub fn consumption(eic: &str) -> String {
    format!("consumption:{eic}")
}

/// An ENTSO-E psrType that maps to no production type we report.
pub fn psr_type(code: &str) -> String {
    format!("psr-type:{code}")
}

/// A File Library production type name we do not know.
pub fn production_type(name: &str) -> String {
    format!("production-type:{name}")
}

/// A File Library area type we do not read.
pub fn area_type(code: &str) -> String {
    format!("area-type:{code}")
}

/// Rows of a less preferred area type (`CTA`, or `CTY` when `BZN` rows exist).
pub fn superseded(area_type: &str, area: &str) -> String {
    format!("superseded-{area_type}:{area}")
}

/// A row without a value.
pub fn empty_value(area: &str) -> String {
    format!("empty-value:{area}")
}

/// A TSO forecast without a known publication time.
pub fn no_publication_time(zone: &str) -> String {
    format!("no-publication-time:{zone}")
}

/// Counts `n` more skipped values under `key`.
pub fn add(skipped: &mut std::collections::BTreeMap<String, usize>, key: String, n: usize) {
    *skipped.entry(key).or_insert(0) += n;
}

/// A negative generation or load value.
pub fn negative_value(area: &str) -> String {
    format!("negative-value:{area}")
}

/// A flow from a zone to itself.
pub fn internal_flow(area: &str) -> String {
    format!("internal-flow:{area}")
}

/// A second value for the same series and slot.
pub fn duplicate(area: &str) -> String {
    format!("duplicate:{area}")
}

/// The area detail of a flow key: `OUT->IN`.
pub fn flow_area(out_eic: &str, in_eic: &str) -> String {
    format!("{out_eic}->{in_eic}")
}

/// Reason of a key: the part before the first `:` (`not-a-zone`, `superseded-CTA`…).
pub fn reason(key: &str) -> &str {
    key.split_once(':').map_or(key, |(r, _)| r)
}

/// One line for a skip list: the total and the count per reason, largest first (`6238 source values
/// skipped: not-a-zone 1558, consumption 2322…`); `None` when nothing was skipped.
pub fn summary(skipped: &std::collections::BTreeMap<String, usize>) -> Option<String> {
    let total: usize = skipped.values().sum();
    if total == 0 {
        return None;
    }
    let mut by_reason: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (key, n) in skipped {
        *by_reason.entry(reason(key)).or_insert(0) += n;
    }
    let mut reasons: Vec<(&str, usize)> = by_reason.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    Some(format!(
        "{total} source values skipped ({}); per area at debug level (GRIDPRINT_LOG=gridprint_ingest=debug)",
        parts.join(", ")
    ))
}

/// Logs a skip list: [`summary`] as one line at info, then each key with its count at debug.
pub fn log(skipped: &std::collections::BTreeMap<String, usize>) {
    let Some(line) = summary(skipped) else {
        return;
    };
    tracing::info!("{line}");
    for (key, n) in skipped {
        tracing::debug!(count = n, "skipped {key}");
    }
}

/// Log capture for this crate's tests.
#[cfg(test)]
pub(crate) mod capture {
    use std::sync::{Arc, Mutex};

    /// Runs `f` with a subscriber at `level` and returns the lines it logged (no colours, no time).
    pub(crate) fn lines(level: tracing::Level, f: impl FnOnce()) -> Vec<String> {
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(level)
            .with_ansi(false)
            .without_time()
            .with_writer(move || Writer(writer.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    struct Writer(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Writer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn demo_like() -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for (k, n) in [
            (not_a_zone("10YIT-GRTN-----B"), 1146),
            (not_a_zone("RU"), 8),
            (consumption("10YNL----------L"), 1920),
            (superseded("CTA", "10YAT-APG------L"), 1274),
            (empty_value("10YBE----------2"), 1),
        ] {
            m.insert(k, n);
        }
        m
    }

    #[test]
    fn summary_is_one_line_with_the_total_and_each_reason() {
        let line = summary(&demo_like()).unwrap();
        assert_eq!(
            line,
            "4349 source values skipped (consumption 1920, superseded-CTA 1274, not-a-zone 1154, \
             empty-value 1); per area at debug level (GRIDPRINT_LOG=gridprint_ingest=debug)"
        );
        assert_eq!(summary(&BTreeMap::new()), None);
    }

    #[test]
    fn one_line_at_info_and_the_details_at_debug() {
        let skipped = demo_like();
        let info = capture::lines(tracing::Level::INFO, || log(&skipped));
        assert_eq!(info.len(), 1, "{info:?}");
        assert!(info[0].contains("4349 source values skipped"), "{info:?}");
        let debug = capture::lines(tracing::Level::DEBUG, || log(&skipped));
        assert_eq!(debug.len(), 1 + skipped.len(), "{debug:?}");
        assert!(
            debug
                .iter()
                .any(|l| l.contains("skipped not-a-zone:RU") && l.contains("count=8")),
            "{debug:?}"
        );
        assert!(capture::lines(tracing::Level::INFO, || log(&BTreeMap::new())).is_empty());
    }
}
