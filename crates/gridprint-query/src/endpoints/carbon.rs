//! `/carbon`: a demonstration endpoint (the carbon footprint alone), added to show that an endpoint
//! is one module and one line of the endpoint table; removed again in the next commit.

use super::*;

/// `/carbon`: location, time, `scope`, `aggregate`, `use_global`; the footprint type is carbon.
pub struct Carbon;

impl EndpointDef for Carbon {
    type Request = FootprintsRequest;
    type Response = Footprints;
    const DOCS: &'static [&'static str] =
        &["Carbon footprint (gCO2/kWh) of consumed electricity: `/footprints` for carbon alone."];

    fn parameters() -> Vec<Parameter> {
        location_time_and::<CarbonParams>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FootprintsRequest, QueryError> {
        let (base, scope) = derived_params(p, ctx, || {
            Ok(scope_any(p)?.unwrap_or(Scope::LifeCycle))
        })?;
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

    fn answer(cache: &DataCache, req: &FootprintsRequest) -> Footprints {
        footprints(cache, req)
    }
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
