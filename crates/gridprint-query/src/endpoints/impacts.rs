//! `/impacts`: the water impact, series or aggregates.

use super::*;

/// `/impacts`: water impact (operational) per zone (series or aggregate).
pub fn impacts(cache: &DataCache, req: &ImpactsRequest) -> Impacts {
    let column = |()| SeriesKey::Impact {
        coverage: req.coverage,
    };
    let answer = derived_answer(
        cache,
        &req.zones,
        &req.countries,
        &req.window,
        req.aggregate,
        &[()],
        column,
        |zone, (), series| ImpactResult {
            impact_type: WATER,
            scope: Scope::Operational,
            zone,
            unit: WATER_IMPACT_UNIT,
            coverage: req.coverage,
            series,
        },
        |zone, (), w| ImpactAggregate {
            impact_type: WATER,
            scope: Scope::Operational,
            zone,
            unit: WATER_IMPACT_UNIT,
            coverage: req.coverage,
            start: w.start.to_string(),
            end: w.end.to_string(),
            value: w.a.value,
            valid: w.a.valid,
            zone_status: w.a.zone_status,
            points: w.a.points,
            slots: w.a.slots,
            aggregation_method: TIME_WEIGHTED_AVERAGE,
        },
    );
    answer.map_or_else(Impacts::Aggregate, Impacts::Series)
}

/// `/impacts`: location, time, `impact_type` (water), `scope` (operational), `aggregate`, `use_global`.
pub struct ImpactsEndpoint;

impl EndpointDef for ImpactsEndpoint {
    type Request = ImpactsRequest;
    type Response = Impacts;
    const DOCS: &'static [&'static str] = &[
        "Water impact (stress-l/kWh): operational water footprint × AWARE 2.0 factor of the month.",
    ];

    fn parameters() -> Vec<Parameter> {
        [
            params_of::<LocationParams>(),
            params_of::<TimeParams>(),
            params_of::<ImpactParams>(),
        ]
        .concat()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ImpactsRequest, QueryError> {
        check_types(p, LOCATION_WINDOW_AGGREGATE)?;
        let (zones, window) = zones_and_window(p, ctx)?;
        let countries = countries(p, ctx)?;
        impact_type(p)?;
        scope_operational(p, "impacts")?;
        let coverage = coverage(p)?;
        let aggregate = aggregate(p, &window)?;
        Ok(ImpactsRequest {
            zones,
            countries,
            window,
            aggregate,
            coverage,
        })
    }

    fn answer(cache: &DataCache, req: &ImpactsRequest) -> Impacts {
        impacts(cache, req)
    }
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
