//! `/footprints`: carbon and water footprints, series or aggregates; and the request shape of both
//! footprint endpoints ([`FootprintRequest`]: a base request, the footprint types and the scope,
//! which `/footprint-share` reads over the sources' request).

use super::derived::{DerivedRequest, derived_answer, derived_request};
use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::ParseContext;
use gridprint_core::derived::SeriesKey;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_responses::query::FootprintsQuery;
use gridprint_responses::{FootprintResult, Footprints};
use time::OffsetDateTime;

/// A request of the footprint endpoints: the endpoint's base request (`/footprints`: the
/// [`DerivedRequest`]; `/footprint-share`: the sources' `PartnerRequest`), the footprint types
/// (carbon, water or both, in that order) and the scope.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct FootprintRequest<R> {
    pub base: R,
    pub footprint_types: Vec<FootprintType>,
    pub scope: Scope,
}

impl<R: RequestedWindow> RequestedWindow for FootprintRequest<R> {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        self.base.requested_window()
    }
}

impl<R> FootprintRequest<R> {
    /// `base` with the `footprint_type` and `scope` that [`footprint_choice`] read.
    pub(super) fn new(base: R, (footprint_types, scope): (Vec<FootprintType>, Scope)) -> Self {
        FootprintRequest {
            base,
            footprint_types,
            scope,
        }
    }
}

/// `footprint_type` (`None`: both) and `scope` (`None`: life-cycle), as the footprint endpoints
/// take them.
pub(super) fn footprint_choice(
    footprint_type: Option<FootprintType>,
    scope: Option<Scope>,
) -> (Vec<FootprintType>, Scope) {
    let types = footprint_type.map_or(FootprintType::ALL.to_vec(), |t| vec![t]);
    (types, scope.unwrap_or(Scope::LifeCycle))
}

/// `/footprints`: one result per zone and footprint type (series or aggregate).
pub fn footprints(cache: &DataCache, req: &FootprintRequest<DerivedRequest>) -> Footprints {
    let column = |footprint_type| SeriesKey::Footprint {
        footprint_type,
        scope: req.scope,
        coverage: req.base.coverage,
    };
    let item = |zone, ft: FootprintType| FootprintResult {
        footprint_type: ft,
        scope: req.scope,
        zone,
        unit: ft.unit(),
        coverage: req.base.coverage,
        series: Vec::new(),
    };
    derived_answer(cache, &req.base, &req.footprint_types, column, item).into()
}

/// `/footprints`: location, time, `footprint_type` (default both), `scope` (default life-cycle),
/// `aggregate`, `use_global`.
pub struct FootprintsEndpoint;

impl EndpointDef for FootprintsEndpoint {
    type Query = FootprintsQuery;
    type Request = FootprintRequest<DerivedRequest>;
    type Response = Footprints;
    const DOCS: &'static str = "Carbon (gCO2/kWh) and water (l/kWh) footprints of consumed electricity.\n\nGlobal (traced through imports, default) or local; life-cycle (default) or operational scope.";

    fn request(
        q: FootprintsQuery,
        ctx: &ParseContext<'_>,
    ) -> Result<FootprintRequest<DerivedRequest>, QueryError> {
        let base = derived_request(&q.location, q.window, q.aggregate, q.use_global, ctx)?;
        Ok(FootprintRequest::new(
            base,
            footprint_choice(q.footprint_type, q.scope),
        ))
    }

    fn answer(
        cache: &DataCache,
        req: &FootprintRequest<DerivedRequest>,
    ) -> Result<Footprints, QueryError> {
        Ok(footprints(cache, req))
    }
}
