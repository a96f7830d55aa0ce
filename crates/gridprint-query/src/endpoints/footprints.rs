//! `/footprints`: carbon and water footprints, series or aggregates; and the request shape of both
//! footprint endpoints ([`FootprintRequest`]: a base request, the footprint types and the scope,
//! which `/footprint-share` reads over the sources' request).

use super::derived::{DerivedRequest, derived_answer, derived_params};
use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::describe::location_time_and;
use crate::error::QueryError;
use crate::params::{ParseContext, QueryParams, footprint_types, scope_any};
use gridprint_core::derived::SeriesKey;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_responses::{FootprintResult, Footprints, schema};
use time::OffsetDateTime;
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

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

/// `footprint_type` (default both) and `scope` (default life-cycle), as the footprint endpoints
/// read them.
pub(super) fn footprint_choice(
    p: &QueryParams<'_>,
) -> Result<(Vec<FootprintType>, Scope), QueryError> {
    let types = footprint_types(p, "footprint_type")?;
    Ok((types, scope_any(p)?.unwrap_or(Scope::LifeCycle)))
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

/// `/footprints`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FootprintParams {
    /// `carbon` (gCO2/kWh) or `water` (l/kWh); default both.
    pub footprint_type: Option<schema::FootprintType>,
    /// `life-cycle` (default) or `operational`.
    pub scope: Option<schema::Scope>,
    /// `true`: one time-weighted average per zone and type over `[start, end]` instead of series
    /// (start and end required, else 400).
    pub aggregate: Option<bool>,
    /// `true` (default): global values, traced through imports (`coverage: global`); `false`: local
    /// values from the zone's own generation (`coverage: local`).
    pub use_global: Option<bool>,
}

/// `/footprints`: location, time, `footprint_type` (default both), `scope` (default life-cycle),
/// `aggregate`, `use_global`.
pub struct FootprintsEndpoint;

impl EndpointDef for FootprintsEndpoint {
    type Request = FootprintRequest<DerivedRequest>;
    type Response = Footprints;
    const DOCS: &'static str = "Carbon (gCO2/kWh) and water (l/kWh) footprints of consumed electricity.\n\nGlobal (traced through imports, default) or local; life-cycle (default) or operational scope.";

    fn parameters() -> Vec<Parameter> {
        location_time_and::<FootprintParams>()
    }

    fn parse(
        p: &QueryParams<'_>,
        ctx: &ParseContext<'_>,
    ) -> Result<FootprintRequest<DerivedRequest>, QueryError> {
        let (base, choice) = derived_params(p, ctx, || footprint_choice(p))?;
        Ok(FootprintRequest::new(base, choice))
    }

    fn answer(
        cache: &DataCache,
        req: &FootprintRequest<DerivedRequest>,
    ) -> Result<Footprints, QueryError> {
        Ok(footprints(cache, req))
    }
}
