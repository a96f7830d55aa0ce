//! `/carbon`: a demonstration endpoint (the carbon footprint alone), added to show what an endpoint
//! costs on the shared endpoint table; removed again in the next commit.

use super::*;

endpoint! {
    /// `/carbon`: location, time, `scope`, `aggregate`, `use_global`; the footprint type is carbon.
    Carbon(CarbonParams) -> Footprints = footprints,
    docs: ["Carbon footprint (gCO2/kWh) of consumed electricity: `/footprints` for carbon alone."];
}

/// `/carbon`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CarbonParams {
    /// `life-cycle` (default) or `operational`.
    pub scope: Option<schema::Scope>,
    /// `true`: one time-weighted average per zone over `[start, end]` instead of series.
    pub aggregate: Option<bool>,
    /// `true` (default): global values; `false`: local.
    pub use_global: Option<bool>,
}

impl RequestParams for CarbonParams {
    type Request = FootprintsRequest;

    fn parameters() -> Vec<Parameter> {
        location_time_and::<Self>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FootprintsRequest, QueryError> {
        let (base, scope) =
            derived_params(p, ctx, || Ok(scope_any(p)?.unwrap_or(Scope::LifeCycle)))?;
        Ok(FootprintsRequest {
            zones: base.zones,
            countries: base.countries,
            window: base.window,
            footprint_types: vec![FootprintType::Carbon],
            scope,
            aggregate: base.aggregate,
            coverage: base.coverage,
        })
    }
}
