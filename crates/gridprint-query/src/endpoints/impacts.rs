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

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ImpactsRequest, QueryError> {
        check_types(p, LOCATION_WINDOW_AGGREGATE)?;
        let (zones, window) = zones_and_window(p, ctx)?;
        impact_type(p)?;
        scope_operational(p, "impacts")?;
        let coverage = coverage(p)?;
        let aggregate = aggregate(p, &window)?;
        Ok(ImpactsRequest {
            zones,
            window,
            aggregate,
            coverage,
        })
    }

    fn answer(cache: &DataCache, req: &ImpactsRequest) -> Impacts {
        impacts(cache, req)
    }
}
