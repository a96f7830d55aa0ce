//! The body shared by the endpoints of derived series with aggregates (`/footprints`, `/impacts`,
//! the score endpoints): their common request ([`DerivedRequest`], resolved by [`derived_request`]
//! from the parts their wire queries share), and one answer per zone or country and key, as series entries or, with
//! `aggregate=true`, as the time-weighted aggregate of docs/api.md §3 ([`derived_answer`]). Each
//! endpoint only names its keys, the derived column of a key and its item's descriptive fields.

use super::RequestedWindow;
use super::common::{flag_series, keep_non_negative, sources};
use crate::cache::DataCache;
use crate::country::{Source, ValueSource, countries};
use crate::error::QueryError;
use crate::params::{Country, ParseContext, TimeWindow, ZoneSelection, selection, time_window};
use gridprint_core::derived::{Coverage, SeriesKey};
use gridprint_core::quality::ZoneStatus;
use gridprint_core::slot::format_timestamp;
use gridprint_core::zone::ZoneCode;
use gridprint_responses::query::{Location, Period};
use gridprint_responses::{
    AggregateTail, DerivedAggregate, DerivedItem, TIME_WEIGHTED_AVERAGE, round2,
};
use time::OffsetDateTime;

/// What the derived endpoints share in their requests: the zones and countries, the window,
/// `aggregate` and the coverage (`use_global`).
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct DerivedRequest {
    pub zones: ZoneSelection,
    /// Country codes among `zone` (docs/methodology.md §5).
    pub countries: Vec<Country>,
    pub window: TimeWindow,
    pub aggregate: bool,
    pub coverage: Coverage,
}

impl RequestedWindow for DerivedRequest {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        self.window.requested
    }
}

/// The request of a derived endpoint from its query's location, window, `aggregate` (default
/// false) and `use_global` (default true).
pub(super) fn derived_request(
    location: &Option<Location>,
    window: Option<Period>,
    aggregate: Option<bool>,
    use_global: Option<bool>,
    ctx: &ParseContext<'_>,
) -> Result<DerivedRequest, QueryError> {
    Ok(DerivedRequest {
        zones: selection(location, ctx)?,
        countries: countries(location, ctx),
        window: time_window(window, ctx),
        aggregate: aggregate.unwrap_or(false),
        coverage: coverage(use_global),
    })
}

/// `use_global`: global values (default) or local ones.
pub(super) fn coverage(use_global: Option<bool>) -> Coverage {
    if use_global.unwrap_or(true) {
        Coverage::Global
    } else {
        Coverage::Local
    }
}

/// An aggregate before it gets its descriptive fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aggregated {
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
    /// Slots of the window with a value.
    pub points: usize,
    /// Slots in the window.
    pub slots: usize,
}

fn micros(t: OffsetDateTime) -> i128 {
    t.unix_timestamp_nanos() / 1000
}

/// The time-weighted average of the values a series answer serves (docs/api.md §3), computed as
/// the reference computes it: each point (`(unix seconds, value)`, in time order) holds until the
/// next, the last until `end`, every span clipped to `[start, end]` (microseconds); the values are
/// taken at the two decimals they are served with, the mean is exact and rounded half-to-even to
/// the largest number of decimals among them (1 or 2: `230.0` has one). A window of no length
/// answers its first value. `None` without points.
pub fn time_weighted_mean(
    points: &[(i64, f64)],
    start: OffsetDateTime,
    end: OffsetDateTime,
) -> Option<f64> {
    let first = points.first()?;
    let cents: Vec<i128> = points
        .iter()
        .map(|&(_, v)| (round2(v) * 100.0).round() as i128)
        .collect();
    let decimals: u32 = if cents.iter().any(|c| c % 10 != 0) {
        2
    } else {
        1
    };
    let (start, end) = (micros(start), micros(end));
    let (mut sum, mut weight) = (0i128, 0i128);
    for (k, &(t, _)) in points.iter().enumerate() {
        let until = points
            .get(k + 1)
            .map_or(end, |n| i128::from(n.0) * 1_000_000)
            .min(end);
        let d = until - (i128::from(t) * 1_000_000).max(start);
        if d > 0 {
            sum += cents[k] * d;
            weight += d;
        }
    }
    if weight == 0 {
        return Some(round2(first.1));
    }
    // mean = sum / (100 * weight), rounded half-to-even to `decimals` places, in integers.
    let scale = 10i128.pow(decimals);
    let (num, den) = (sum * scale, 100 * weight);
    let (mut q, r) = (num.div_euclid(den), num.rem_euclid(den));
    if 2 * r > den || (2 * r == den && q % 2 != 0) {
        q += 1;
    }
    Some(q as f64 / scale as f64)
}

fn aggregate_derived(
    derived: &impl ValueSource,
    series: &SeriesKey,
    window: &TimeWindow,
) -> Option<Aggregated> {
    let (start, end) = window.requested?;
    let mut pts = Vec::new();
    let (mut valid, mut status) = (true, ZoneStatus::Complete);
    derived.for_each_value(series, window.range, |slot, fl, v| {
        if keep_non_negative(v) {
            pts.push((slot.unix(), v as f64));
            valid &= fl.valid();
            status = status.min(fl.status());
        }
    });
    let value = time_weighted_mean(&pts, start, end)?;
    let (points, slots) = (pts.len(), window.range.len());
    if points < slots {
        // A slot without a point counts as missing: an aggregate never looks complete over a hole.
        valid = false;
        status = ZoneStatus::Missing;
    }
    Some(Aggregated {
        value,
        valid,
        zone_status: status,
        points,
        slots,
    })
}

/// For each selected zone and country (by code) and each of `keys` (in order): the item
/// `item(zone, key)` (built without series) with the entries of the derived column `column(key)`,
/// or with `aggregate` its aggregate with the request's `start` and `end` (docs/api.md §3). Zones
/// and keys without points are left out.
pub(super) fn derived_answer<T: Copy, S: DerivedItem>(
    cache: &DataCache,
    req: &DerivedRequest,
    keys: &[T],
    column: impl Fn(T) -> SeriesKey,
    item: impl Fn(ZoneCode, T) -> S,
) -> Result<Vec<S>, Vec<DerivedAggregate<S::Head>>> {
    let window = &req.window;
    let items: Vec<(Source<'_>, ZoneCode, T)> = sources(cache, &req.zones, &req.countries)
        .into_iter()
        .flat_map(|(src, code)| keys.iter().map(move |&k| (src, code.clone(), k)))
        .collect();
    if req.aggregate {
        let (start, end) = requested_strings(window);
        return Err(items
            .into_iter()
            .filter_map(|(src, code, k)| {
                let a = aggregate_derived(&src, &column(k), window)?;
                let tail = AggregateTail {
                    start: start.clone(),
                    end: end.clone(),
                    value: a.value,
                    valid: a.valid,
                    zone_status: a.zone_status,
                    points: a.points,
                    slots: a.slots,
                    aggregation_method: TIME_WEIGHTED_AVERAGE,
                };
                Some(item(code, k).aggregate(tail))
            })
            .collect());
    }
    Ok(items
        .into_iter()
        .filter_map(|(src, code, k)| {
            let entries = flag_series(&src, &column(k), window);
            (!entries.is_empty()).then(|| item(code, k).with_series(entries))
        })
        .collect())
}

pub(super) fn requested_strings(window: &TimeWindow) -> (String, String) {
    let (s, e) = window.requested.expect("aggregates need start and end");
    (echo_timestamp(s), echo_timestamp(e))
}

/// `start`/`end` of an aggregate as the reference echoes them: UTC, `Z`, microseconds only when
/// there are any (`2024-06-15T05:59:59.999000Z`).
fn echo_timestamp(t: OffsetDateTime) -> String {
    let base = format_timestamp(t);
    match t.microsecond() {
        0 => base,
        us => format!("{}.{us:06}Z", base.trim_end_matches('Z')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean_by_hand() {
        use gridprint_core::slot::parse_timestamp;
        let t = |s: &str| parse_timestamp(s).unwrap();
        let at = |s: &str| t(s).unix_timestamp();
        // 00:00 10, 00:15 20, 00:30 40; window 00:05–00:33:20: spans 600 s, 900 s, 200 s.
        let pts = [
            (at("2024-06-15T00:00Z"), 10.0),
            (at("2024-06-15T00:15Z"), 20.0),
            (at("2024-06-15T00:30Z"), 40.0),
        ];
        let v = time_weighted_mean(&pts, t("2024-06-15T00:05Z"), t("2024-06-15T00:33:20Z"));
        // (6000 + 18000 + 8000) / 1700 = 18.82… → one decimal (every value has one).
        assert_eq!(v, Some(18.8));
        // Two decimals, half-to-even on the exact mean: 0.125 → 0.12, 0.135 → 0.14.
        let half = |a: f64, b: f64| {
            let pts = [(at("2024-06-15T00:00Z"), a), (at("2024-06-15T00:15Z"), b)];
            time_weighted_mean(&pts, t("2024-06-15T00:00Z"), t("2024-06-15T00:30Z"))
        };
        assert_eq!(half(0.12, 0.13), Some(0.12));
        assert_eq!(half(0.13, 0.14), Some(0.14));
        // The values count as served (two decimals): (448.6 + 448.61) / 2 = 448.605 → 448.6 (even).
        assert_eq!(half(448.604, 448.614), Some(448.6));
        // A window of no length: the first value, as served.
        let one = [(at("2024-06-15T00:00Z"), 7.004)];
        let z = t("2024-06-15T00:00Z");
        assert_eq!(time_weighted_mean(&one, z, z), Some(7.0));
        assert_eq!(time_weighted_mean(&[], z, t("2024-06-15T01:00Z")), None);
    }

    #[test]
    fn aggregates_echo_microseconds() {
        use gridprint_core::slot::parse_timestamp;
        let t = |s: &str| parse_timestamp(s).unwrap();
        assert_eq!(
            echo_timestamp(t("2024-06-15T05:59:59.999Z")),
            "2024-06-15T05:59:59.999000Z"
        );
        assert_eq!(
            echo_timestamp(t("2024-06-15T06:00:00Z")),
            "2024-06-15T06:00:00Z"
        );
    }
}
