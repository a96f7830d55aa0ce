//! Wire queries → internal requests: what a `/v1` query names, resolved against the server's zone
//! set, polygon index and "now" — the zones as indices in code order ([`ZoneSelection`]), partner
//! filters, countries ([`Country`]) and the window in slots ([`TimeWindow`]). The queries themselves
//! and the rules that read them (formats, limits, error order; docs/api.md §2) are in
//! gridprint-responses' `query`; each endpoint module in [`crate::endpoints`] resolves its query
//! with these functions.

use crate::error::QueryError;
use crate::geo::ZoneLocator;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::{ZoneCode, ZoneIdx, Zones};
use gridprint_responses::query::read::not_located;
use gridprint_responses::query::{Location, Period, QueryContext};
use std::hash::{Hash, Hasher};
use time::OffsetDateTime;

/// What reading and resolving a query needs besides its pairs: the zone set, the polygon index
/// and the time "now".
#[derive(Debug, Clone, Copy)]
pub struct ParseContext<'a> {
    pub zones: &'a Zones,
    pub locator: &'a ZoneLocator,
    pub now: OffsetDateTime,
}

impl QueryContext for ParseContext<'_> {
    fn locates(&self, lat: f64, lon: f64) -> bool {
        self.locator.locate(lat, lon).is_some()
    }
    fn now(&self) -> OffsetDateTime {
        self.now
    }
}

impl ParseContext<'_> {
    /// The zone containing a point of a location under `prefix`, or the 404 its reading reports.
    fn locate(&self, prefix: &str, lat: f64, lon: f64) -> Result<ZoneIdx, QueryError> {
        (self.locator.locate(lat, lon)).ok_or_else(|| not_located(prefix, lat, lon))
    }
}

/// Which zones a request is about (primary location), resolved to indices in code order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ZoneSelection {
    /// No zone given: every zone.
    All,
    /// The known zones among those named (possibly none: the answer is then `[]`).
    Zones(Vec<ZoneIdx>),
}

impl ZoneSelection {
    /// The selected zone indices, ascending (= by zone code).
    pub fn indices(&self, zones: &Zones) -> Vec<ZoneIdx> {
        match self {
            ZoneSelection::All => (0..zones.len()).collect(),
            ZoneSelection::Zones(v) => v.clone(),
        }
    }
}

/// A requested country code split into several bidding zones (`DK`, `IT`, `NO`, `SE`) and its member
/// zones of the set; read by [`crate::country`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Country {
    pub code: ZoneCode,
    pub members: Vec<ZoneIdx>,
}

/// A filter on partner zones (sources, destinations, origins).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PartnerFilter {
    /// No filter.
    Any,
    /// Only these codes (possibly none known: then nothing matches).
    Only(Vec<ZoneCode>),
}

impl PartnerFilter {
    pub fn accepts(&self, code: &ZoneCode) -> bool {
        match self {
            PartnerFilter::Any => true,
            PartnerFilter::Only(v) => v.contains(code),
        }
    }
}

/// The resolved time window of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    /// Slots to answer for.
    pub range: SlotRange,
    /// `start` and `end` as given (in UTC), if given; aggregates report them.
    pub requested: Option<(OffsetDateTime, OffsetDateTime)>,
    /// "Now" of the request (flags of raw inputs without derived flags use it).
    pub now: OffsetDateTime,
}

/// A window's identity for the response cache and the `ETag`: its slots and the `start` and `end`
/// given. "Now" is left out: a window without `start` and `end` is the current slot, which its
/// range names, and an answer whose every point is final (the only ones cached) does not change
/// with "now".
impl Hash for TimeWindow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.range.hash(state);
        self.requested.hash(state);
    }
}

impl TimeWindow {
    /// The current slot `[floor15(now), +15 min)`.
    pub fn current(now: OffsetDateTime) -> TimeWindow {
        let s = Slot::containing(now);
        TimeWindow {
            range: SlotRange::new(s, s.offset(1)),
            requested: None,
            now,
        }
    }
}

/// The zone codes of a location's list (an unreadable code names no zone).
pub(crate) fn codes(list: &[String]) -> impl Iterator<Item = ZoneCode> + '_ {
    list.iter().filter_map(|c| ZoneCode::parse(c))
}

/// The zones a primary location selects (every zone without one).
pub(crate) fn selection(
    location: &Option<Location>,
    ctx: &ParseContext<'_>,
) -> Result<ZoneSelection, QueryError> {
    Ok(match location {
        None => ZoneSelection::All,
        Some(Location::LatLon { lat, lon }) => {
            ZoneSelection::Zones(vec![ctx.locate("", *lat, *lon)?])
        }
        Some(Location::Zones(list)) => {
            let mut idx: Vec<ZoneIdx> =
                codes(list).filter_map(|c| ctx.zones.index_of(&c)).collect();
            idx.sort_unstable();
            idx.dedup();
            ZoneSelection::Zones(idx)
        }
    })
}

/// The filter a partner location under `prefix` stands for (any partner without one).
pub(crate) fn partner_filter(
    location: &Option<Location>,
    ctx: &ParseContext<'_>,
    prefix: &str,
) -> Result<PartnerFilter, QueryError> {
    Ok(match location {
        None => PartnerFilter::Any,
        Some(Location::LatLon { lat, lon }) => PartnerFilter::Only(vec![
            ctx.zones.code(ctx.locate(prefix, *lat, *lon)?).clone(),
        ]),
        Some(Location::Zones(list)) => PartnerFilter::Only(codes(list).collect()),
    })
}

/// The window of a period (the current slot without one).
pub(crate) fn time_window(period: Option<Period>, ctx: &ParseContext<'_>) -> TimeWindow {
    match period {
        None => TimeWindow::current(ctx.now),
        Some(p) => TimeWindow {
            range: SlotRange::from_window(p.start, p.end),
            requested: Some((p.start, p.end)),
            now: ctx.now,
        },
    }
}
