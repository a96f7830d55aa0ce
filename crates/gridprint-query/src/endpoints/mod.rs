//! One function per `/v1` endpoint: a typed request and the cache in, the response structs out.
//!
//! Rules applied here (docs/api.md §2–§3), with the choices the contract leaves open:
//!
//! - Results are ordered by zone code, then by type (carbon before water); blocks inside a series
//!   entry by their key (production type, then data state official < estimated < missing, then
//!   datasource name; partner zones by code). A result without any point in the window is left out,
//!   so an unknown zone, an empty store or a filter matching nothing all give `[]`.
//! - Points that are NaN (no value) are never returned; negative values are dropped except on the
//!   share endpoints (flow-share, mix-share, footprint-share, impact-share), which return every finite
//!   value, zeros included.
//! - Flags of derived series come from the zone's stored [`SlotFlags`] (as written by the compute; a
//!   slot without computed flags has no derived value). Raw inputs (generation, load, imports,
//!   exports) take the flags of their zone's slot from the derived flags too; where the zone has no
//!   computed flags for the slot they fall back to the point's own data state (official → complete,
//!   estimated → preview, missing → missing) and `valid` by the rule of docs/api.md §6 at the request's "now"
//!   ([`valid_flag`]: final when older than `floor15(now) − 4 h`, else only when complete).
//! - Shares are computed at query time from the stored exchanges (row i of X: `Exchange { origin }`
//!   in zone i's days) and the zones' `Generation` and `Consumption` (docs/api.md §5): mix-share
//!   100·X\[i\]\[j\]/L_i, flow-share 100·X\[i\]\[j\]/G_j (read from every destination's exchange naming the
//!   zone), footprint-share X\[i\]\[j\]/L_i × local footprint of j, impact-share X\[i\]\[j\]/L_i × local
//!   impact of j (the origin's local value is read whether or not it has flags: external sources keep
//!   local values without flags). Flags are those of the result's zone. Share columns stored under the
//!   older keys (`MixShare`, `FlowShare`, `FootprintShare`, `ImpactShare`) are not read.
//! - `/mix` reports the flow-traced mix with datasource `flow_tracing` and a data state derived from
//!   the slot's zone status: complete → official, preview → estimated, missing → missing.
//! - Aggregates: the time-weighted mean of the step function of the returned points (each holds until
//!   the next, the last until `end`, clipped to [start, end]); when that covers no time (start == end)
//!   the plain mean of the points. `valid` is true only if every point is valid, `zone_status` is the
//!   worst present. A zone without points in the window gets no aggregate.
//! - `/factors`: factors are constant in time. Without dates the series is one point at the current
//!   slot; with dates one point at the window's first slot; with dates and `aggregate=true` the
//!   aggregate shape with the factor as value, `valid` true and `zone_status` complete.
//! - Country codes (`DK`, `IT`, `NO`, `SE`) on footprints, impacts and scores read their values through
//!   [`crate::country`] (weighted means of the members) and are ordered among the zones by code.
//! - `/best-window` ranks placements of a job with `gridprint_core::best_window`; its window may
//!   leave `start` or `end` open, and a job longer than the window is refused when answering
//!   ([`EndpointDef::try_answer`]) since the default end depends on the data.
//!
//! Each endpoint is one module here with a unit struct implementing [`EndpointDef`] (which
//! parameters it reads and how it answers); its parameters are a [`RequestParams`] implementation,
//! mostly on the module's `IntoParams` struct, shared where endpoints read the same parameters (the
//! flow and share endpoints: [`Partners`]; `/generation` and `/mix`). The endpoint table
//! ([`gridprint_responses::endpoint_table`], shared with the client) names each endpoint once, with
//! its unit struct here; [`crate::service`] derives `Endpoint` and the dispatch from it.

/// Declares endpoints answered from the cache by one function: for each, its unit struct and its
/// [`EndpointDef`]. `Name(Params) -> Response = answer` reads as the definition does: the endpoint
/// reads the [`RequestParams`] `Params` (their request is its request) and answers `Response` with
/// `answer(cache, &request)`; `docs` holds each path's OpenAPI text. Endpoints that answer otherwise
/// (from the reference data, or refusing a request) implement the trait themselves.
macro_rules! endpoint {
    ($(
        $(#[$attr:meta])*
        $name:ident($params:ty) -> $response:ty = $answer:path,
        docs: [$($docs:literal),+ $(,)?];
    )+) => {$(
        $(#[$attr])*
        pub struct $name;

        impl EndpointDef for $name {
            type Request = <$params as RequestParams>::Request;
            type Params = $params;
            type Response = $response;
            const DOCS: &'static [&'static str] = &[$($docs),+];

            fn answer(cache: &DataCache, req: &Self::Request) -> $response {
                $answer(cache, req)
            }
        }
    )+};
}

mod availability;
mod best_window;
mod derived;
mod factors;
mod flows;
mod footprints;
mod generation;
mod impacts;
mod load;
mod mix;
mod score;
mod shares;
pub mod status;
mod zones;

pub use availability::{Availability, AvailabilityRequest, AvailabilityWindow, availability};
pub use best_window::{
    BestWindowEndpoint, BestWindowParams, BestWindowRequest, Metric, best_window,
};
pub use derived::{Aggregated, time_weighted_mean};
use derived::{coverage, derived_answer, derived_params, requested_strings};
pub use factors::{FactorParams, FactorsEndpoint, factors};
pub use flows::{Exports, Imports, exports, imports};
pub use footprints::{FootprintParams, FootprintsEndpoint, footprints};
pub use generation::{Generation, generation};
pub use impacts::{ImpactParams, ImpactsEndpoint, impacts};
pub use load::{Load, load};
pub use mix::{Mix, mix};
pub use score::{Score, ScoreParams, score};
pub use shares::{
    FlowShare, FootprintShare, FootprintShareParams, ImpactShare, ImpactShareParams, MixShare,
    flow_share, footprint_share, impact_share, mix_share,
};
pub use status::{ProviderStates, status, status_component};
pub use zones::{Zones, zones};

use crate::cache::{ABSENT, DataCache, DerivedZone, day_spans};
use crate::country::{Source, ValueSource, countries};
use crate::describe::*;
use crate::error::QueryError;
use crate::group::{FlagPair, GroupEntry, Grouper};
use crate::params::*;
use gridprint_core::derived::{Coverage, SeriesKey, SlotFlags};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::{DataState, ZoneStatus, valid_flag};
use gridprint_core::reference::{FootprintType, ReferenceData, Scope};
use gridprint_core::slot::{Slot, SlotRange, format_timestamp};
use gridprint_core::zone::{ZoneCode, ZoneIdx};
use gridprint_responses::*;
use time::OffsetDateTime;
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

/// The query parameters of one or more endpoints: how the OpenAPI document lists them and how they
/// are read into a typed request. Mostly implemented by the endpoint's own `IntoParams` struct;
/// endpoints with the same parameters name the same implementation (see [`Partners`]).
pub trait RequestParams {
    /// The typed request they are read into.
    type Request;
    /// The query parameters in the OpenAPI document, in order (`IntoParams` structs of
    /// [`crate::describe`] or of the module, through [`params_of`]; `format` is added for all).
    fn parameters() -> Vec<Parameter>;
    /// Reads the request by the rules of [`crate::params`] (the first problem found is reported).
    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<Self::Request, QueryError>;
}

/// No parameters (`/zones`).
impl RequestParams for () {
    type Request = ();

    fn parameters() -> Vec<Parameter> {
        Vec::new()
    }

    fn parse(_: &QueryParams<'_>, _: &ParseContext<'_>) -> Result<(), QueryError> {
        Ok(())
    }
}

/// The parameters of the flow and share endpoints: location, the partner location `P` (sources,
/// destinations or origins, read under its prefix), time.
pub struct Partners<P>(std::marker::PhantomData<P>);

impl<P: PartnerParams> RequestParams for Partners<P> {
    type Request = FlowsRequest;

    fn parameters() -> Vec<Parameter> {
        location_partner_time::<P>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FlowsRequest, QueryError> {
        with_partners(p, ctx, P::PREFIX)
    }
}

/// One `/v1` data endpoint: which query parameters it reads and how it answers from the cache.
/// Implemented once per endpoint module; [`crate::service::Endpoint`] lists them.
pub trait EndpointDef {
    /// The typed request.
    type Request;
    /// The query parameters, read into [`Self::Request`].
    type Params: RequestParams<Request = Self::Request>;
    /// The answer (a response type of `gridprint-responses`).
    type Response: Answer + BodySchema + 'static;
    /// Per path of the endpoint (in the table's order), its OpenAPI summary (first paragraph) and
    /// description (the rest).
    const DOCS: &'static [&'static str];
    /// The endpoint's query parameters in the OpenAPI document, in order (`format` is added for all).
    fn parameters() -> Vec<Parameter> {
        Self::Params::parameters()
    }
    /// Reads the request by the rules of [`crate::params`] (the first problem found is reported).
    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<Self::Request, QueryError> {
        Self::Params::parse(p, ctx)
    }
    /// Answers the request from a cache snapshot.
    fn answer(cache: &DataCache, req: &Self::Request) -> Self::Response;
    /// Answers, or refuses a request that can only be judged against the data (best-window: a job
    /// longer than a window that ends where the data ends). Most endpoints never refuse here.
    fn try_answer(cache: &DataCache, req: &Self::Request) -> Result<Self::Response, QueryError> {
        Ok(Self::answer(cache, req))
    }
}

/// Datasource of the flow-traced mix.
pub const FLOW_TRACING: &str = "flow_tracing";
/// Unit of power series.
pub const MW: &str = "MW";
/// Unit of shares.
pub const PERCENT: &str = "%";
/// Unit of water impacts.
pub const WATER_IMPACT_UNIT: &str = "stress-l/kWh";
/// The only impact type.
pub const WATER: &str = "water";

fn status_of_state(s: DataState) -> ZoneStatus {
    match s {
        DataState::Official => ZoneStatus::Complete,
        DataState::Estimated => ZoneStatus::Preview,
        DataState::Missing => ZoneStatus::Missing,
    }
}

fn state_of_status(s: ZoneStatus) -> DataState {
    match s {
        ZoneStatus::Complete => DataState::Official,
        ZoneStatus::Preview => DataState::Estimated,
        ZoneStatus::Missing => DataState::Missing,
    }
}

fn pair(f: SlotFlags) -> FlagPair {
    (f.valid(), f.status())
}

fn keep_non_negative(v: f32) -> bool {
    v >= 0.0
}

/// A point of a stored `f32` value.
fn point(slot: Slot, v: f32) -> Point {
    Point {
        slot,
        value: v as f64,
    }
}

/// One result per selected zone whose entries are not empty (docs/api.md §3: a result without any
/// point in the window is left out): `entries(zone)` groups its points, `result` wraps them.
fn per_zone<E, R>(
    cache: &DataCache,
    sel: &ZoneSelection,
    mut entries: impl FnMut(ZoneIdx) -> Vec<E>,
    mut result: impl FnMut(ZoneCode, Vec<E>) -> R,
) -> Vec<R> {
    zones_of(cache, sel)
        .into_iter()
        .filter_map(|(z, code)| {
            let series = entries(z);
            (!series.is_empty()).then(|| result(code, series))
        })
        .collect()
}

/// [`per_zone`] for the `zone, unit, series` items.
fn zone_series<R: ZoneSeries>(
    cache: &DataCache,
    sel: &ZoneSelection,
    unit: StaticStr,
    entries: impl FnMut(ZoneIdx) -> Vec<R::Entry>,
) -> Vec<R> {
    per_zone(cache, sel, entries, |zone, series| {
        R::new(zone, unit, series)
    })
}

/// Series entries from grouped points: each group's flags make an entry of its blocks (`block`,
/// from the group's flags, the block key and its points).
fn entries<K, E: FlagEntry>(
    groups: Vec<GroupEntry<K>>,
    mut block: impl FnMut(FlagPair, K, Values) -> E::Block,
) -> Vec<E> {
    groups
        .into_iter()
        .map(|g| {
            let blocks = g
                .leaves
                .into_iter()
                .map(|(k, pts)| block(g.pair, k, Values(pts)))
                .collect();
            E::new(g.pair.0, g.pair.1, blocks)
        })
        .collect()
}

/// Calls `f(flags, slot, value, state, datasource)` for each non-negative point of a raw series in the
/// window, with the flags of zone's slot (derived, or the fallback documented above).
fn raw_points(
    cache: &DataCache,
    derived: &DerivedZone,
    series: u32,
    window: &TimeWindow,
    mut f: impl FnMut(FlagPair, Slot, f32, DataState, u16),
) {
    let s = cache.input_series(series);
    for span in day_spans(s.days(), window.range) {
        let d = s.day(span.pos);
        let flags = derived.flags_of_day(span.day);
        for i in span.lo..span.hi {
            if d.states[i] == ABSENT {
                continue;
            }
            let v = d.values[i];
            if !(v.is_finite() && v >= 0.0) {
                continue;
            }
            let state = DataState::from_u8(d.states[i]).unwrap_or(DataState::Missing);
            let slot = span.slot(i);
            let p = match flags.map(|fl| fl[i]) {
                Some(fl) if fl.present() => pair(fl),
                _ => {
                    let st = status_of_state(state);
                    (valid_flag(slot, st, window.now), st)
                }
            };
            f(p, slot, v, state, d.sources[i]);
        }
    }
}

/// Pushes every kept value of a derived series into a grouper under `key`.
fn push_derived<K: Copy + PartialEq>(
    g: &mut Grouper<K>,
    derived: &impl ValueSource,
    series: &SeriesKey,
    window: &TimeWindow,
    keep: fn(f32) -> bool,
    key: K,
) {
    derived.for_each_value(series, window.range, |slot, fl, v| {
        if keep(v) {
            g.push(
                pair(fl),
                key,
                Point {
                    slot,
                    value: v as f64,
                },
            );
        }
    });
}

/// The flag entries of one derived series (one block per entry).
fn flag_series(
    derived: &impl ValueSource,
    series: &SeriesKey,
    window: &TimeWindow,
) -> Vec<FlagSeries> {
    let mut g = Grouper::new();
    push_derived(&mut g, derived, series, window, keep_non_negative, ());
    g.finish(|_, _| std::cmp::Ordering::Equal)
        .into_iter()
        .map(|e| FlagSeries {
            valid: e.pair.0,
            zone_status: e.pair.1,
            values: Values(e.leaves.into_iter().next().map(|l| l.1).unwrap_or_default()),
        })
        .collect()
}

/// The selected zones and the requested countries as value sources, by code.
fn sources<'a>(
    cache: &'a DataCache,
    sel: &ZoneSelection,
    countries: &'a [Country],
) -> Vec<(Source<'a>, ZoneCode)> {
    let mut out: Vec<(Source<'a>, ZoneCode)> = zones_of(cache, sel)
        .into_iter()
        .map(|(z, code)| (Source::Zone(cache.derived(z)), code))
        .chain(
            countries
                .iter()
                .map(|c| (Source::Country(cache, c), c.code.clone())),
        )
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

fn zones_of(cache: &DataCache, sel: &crate::params::ZoneSelection) -> Vec<(ZoneIdx, ZoneCode)> {
    let zones = &cache.reference().zones;
    sel.indices(zones)
        .into_iter()
        .map(|i| (i, zones.code(i).clone()))
        .collect()
}

fn ds_cmp<'c>(
    cache: &'c DataCache,
) -> impl Fn(DataState, u16, DataState, u16) -> std::cmp::Ordering + 'c {
    move |sa, da, sb, db| {
        sa.cmp(&sb)
            .then_with(|| cache.datasource(da).cmp(cache.datasource(db)))
    }
}
