//! `/impacts`: the water impact, series or aggregates.

use super::*;

/// `/impacts`: water impact (operational) per zone (series or aggregate).
pub fn impacts(cache: &DataCache, req: &ImpactsRequest) -> Impacts {
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
    derived_answer(cache, req.into(), &[()], column, item).into()
}

endpoint! {
    /// `/impacts`: location, time, `impact_type` (water), `scope` (operational), `aggregate`, `use_global`.
    ImpactsEndpoint(ImpactParams) -> Impacts = impacts,
    docs: ["Water impact (stress-l/kWh): operational water footprint × AWARE 2.0 factor of the month."];
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

impl RequestParams for ImpactParams {
    type Request = ImpactsRequest;

    fn parameters() -> Vec<Parameter> {
        location_time_and::<Self>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ImpactsRequest, QueryError> {
        let own = || impact_type(p).and_then(|()| scope_operational(p, "impacts"));
        Ok(derived_params(p, ctx, own)?.0)
    }
}
