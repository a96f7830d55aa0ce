//! `/impacts`: the water impact, series or aggregates.

use super::EndpointDef;
use super::common::{WATER, WATER_IMPACT_UNIT};
use super::derived::{DerivedRequest, derived_answer, derived_params};
use crate::cache::DataCache;
use crate::describe::location_time_and;
use crate::error::QueryError;
use crate::params::{ParseContext, QueryParams, impact_type, scope_operational};
use gridprint_core::derived::SeriesKey;
use gridprint_core::reference::Scope;
use gridprint_responses::{ImpactResult, Impacts, schema};
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

/// `/impacts`: water impact (operational) per zone (series or aggregate).
pub fn impacts(cache: &DataCache, req: &DerivedRequest) -> Impacts {
    let column = |()| SeriesKey::Impact {
        coverage: req.coverage,
    };
    let item = |zone, ()| ImpactResult {
        impact_type: WATER,
        scope: Scope::Operational,
        zone,
        unit: WATER_IMPACT_UNIT,
        coverage: req.coverage,
        series: Vec::new(),
    };
    derived_answer(cache, req, &[()], column, item).into()
}

/// `/impacts`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImpactParams {
    /// Only `water` exists (default); `carbon` → 400.
    pub impact_type: Option<schema::ImpactType>,
    /// Only `operational` (default); `life-cycle` → 400.
    pub scope: Option<schema::OperationalScope>,
    /// `true`: time-weighted average over `[start, end]` (start and end required).
    pub aggregate: Option<bool>,
    /// `true` (default): global values; `false`: local.
    pub use_global: Option<bool>,
}

/// `/impacts`: location, time, `impact_type` (water), `scope` (operational), `aggregate`,
/// `use_global`.
pub struct ImpactsEndpoint;

impl EndpointDef for ImpactsEndpoint {
    type Request = DerivedRequest;
    type Response = Impacts;
    const DOCS: &'static str =
        "Water impact (stress-l/kWh): operational water footprint × AWARE 2.0 factor of the month.";

    fn parameters() -> Vec<Parameter> {
        location_time_and::<ImpactParams>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<DerivedRequest, QueryError> {
        let own = || impact_type(p).and_then(|()| scope_operational(p, "impacts"));
        Ok(derived_params(p, ctx, own)?.0)
    }

    fn answer(cache: &DataCache, req: &DerivedRequest) -> Result<Impacts, QueryError> {
        Ok(impacts(cache, req))
    }
}
