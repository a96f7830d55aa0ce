//! `/imports` and `/exports`: physical flows into and out of a zone, per partner zone; and what every
//! endpoint of a zone and its partner zones shares ([`PartnerRequest`], [`PartnerEndpointDef`]).

use super::common::{MW, entries, raw_groups, zone_series};
use super::{EndpointDef, RequestedWindow};
use crate::cache::{DataCache, ZoneInputs};
use crate::error::QueryError;
use crate::params::{
    ParseContext, PartnerFilter, TimeWindow, ZoneSelection, partner_filter, selection, time_window,
};
use gridprint_core::quality::DataState;
use gridprint_core::zone::ZoneCode;
use gridprint_responses::query::partners::PartnerParts;
use gridprint_responses::query::{ExportsQuery, ImportsQuery, WireQuery};
use gridprint_responses::{
    Answer, BodySchema, ExportBlock, ExportsResult, FlagEntry, ImportBlock, ImportsResult, Values,
    ZoneSeries,
};
use time::OffsetDateTime;

/// The flow and share endpoints (`/imports`, `/exports`, `/flow-share`, `/mix-share`,
/// `/impact-share`): the zones, the window and the partner zones (sources, destinations or
/// origins).
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct PartnerRequest {
    pub zones: ZoneSelection,
    pub window: TimeWindow,
    pub partners: PartnerFilter,
}

impl RequestedWindow for PartnerRequest {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        self.window.requested
    }
}

/// The request of a partner endpoint from its query's parts (`prefix`: the partner location's).
pub(super) fn partner_request(
    (location, partner, window): PartnerParts,
    prefix: &str,
    ctx: &ParseContext<'_>,
) -> Result<PartnerRequest, QueryError> {
    Ok(PartnerRequest {
        zones: selection(&location, ctx)?,
        window: time_window(window, ctx),
        partners: partner_filter(&partner, ctx, prefix)?,
    })
}

/// One `zone, unit, series` item per zone of the flows `side` picks (imports or exports), each
/// block made by `block(partner, data state, datasource, points)`.
fn flow_answer<R: ZoneSeries>(
    cache: &DataCache,
    req: &PartnerRequest,
    side: fn(&ZoneInputs) -> &[(ZoneCode, u32)],
    block: fn(ZoneCode, DataState, String, Values) -> <R::Entry as FlagEntry>::Block,
) -> Vec<R>
where
    R::Entry: FlagEntry,
{
    let group = |z| {
        let flows = side(cache.inputs(z));
        // Partners are sorted by code, so their position orders them.
        let accepted = (0u32..)
            .zip(flows)
            .filter(|(_, (p, _))| req.partners.accepts(p));
        let series = accepted.map(|(k, &(_, id))| (k, id));
        entries(
            raw_groups(cache, z, &req.window, series),
            |_, (k, state, ds), values| {
                let partner = flows[k as usize].0.clone();
                block(partner, state, cache.datasource(ds).to_string(), values)
            },
        )
    };
    zone_series(cache, &req.zones, MW, group)
}

/// An endpoint of the zones and their partner zones on one side (`/imports`, `/exports`,
/// `/flow-share`, `/mix-share`): its query names the location, the partner location and the
/// window, resolved alike ([`partner_request`]), so it gives only its query, its OpenAPI text and
/// its answer; [`EndpointDef`] follows.
pub trait PartnerEndpointDef {
    /// As [`EndpointDef::Query`].
    type Query: WireQuery;
    /// The partner location's prefix (`source_`, `destination_` or `origin_`).
    const PREFIX: &'static str;
    /// The query's location, partner location and window.
    fn parts(query: Self::Query) -> PartnerParts;
    /// As [`EndpointDef::DOCS`].
    const DOCS: &'static str;
    /// As [`EndpointDef::Response`].
    type Response: Answer + BodySchema + Send + 'static;
    /// The answer (these endpoints never refuse a request they could read).
    fn answer(cache: &DataCache, req: &PartnerRequest) -> Self::Response;
}

impl<E: PartnerEndpointDef> EndpointDef for E {
    type Query = <E as PartnerEndpointDef>::Query;
    type Request = PartnerRequest;
    type Response = <E as PartnerEndpointDef>::Response;
    const DOCS: &'static str = <E as PartnerEndpointDef>::DOCS;

    fn request(query: Self::Query, ctx: &ParseContext<'_>) -> Result<PartnerRequest, QueryError> {
        partner_request(E::parts(query), E::PREFIX, ctx)
    }

    fn answer(
        cache: &DataCache,
        req: &PartnerRequest,
    ) -> Result<<E as PartnerEndpointDef>::Response, QueryError> {
        Ok(<E as PartnerEndpointDef>::answer(cache, req))
    }
}

/// `/imports`: location, `source_*` location, time.
pub struct ImportsEndpoint;

impl PartnerEndpointDef for ImportsEndpoint {
    type Query = ImportsQuery;
    const PREFIX: &'static str = "source_";
    fn parts(q: ImportsQuery) -> PartnerParts {
        (q.location, q.source, q.window)
    }
    const DOCS: &'static str = "Physical flows into the zone (MW), per source zone.";
    type Response = Vec<ImportsResult>;

    /// The flows into the zone, by source.
    fn answer(cache: &DataCache, req: &PartnerRequest) -> Vec<ImportsResult> {
        flow_answer(cache, req, |i| &i.imports, ImportBlock::new)
    }
}

/// `/exports`: location, `destination_*` location, time.
pub struct ExportsEndpoint;

impl PartnerEndpointDef for ExportsEndpoint {
    type Query = ExportsQuery;
    const PREFIX: &'static str = "destination_";
    fn parts(q: ExportsQuery) -> PartnerParts {
        (q.location, q.destination, q.window)
    }
    const DOCS: &'static str = "Physical flows out of the zone (MW), per destination zone.";
    type Response = Vec<ExportsResult>;

    /// The flows out of the zone, by destination.
    fn answer(cache: &DataCache, req: &PartnerRequest) -> Vec<ExportsResult> {
        flow_answer(cache, req, |i| &i.exports, ExportBlock::new)
    }
}
