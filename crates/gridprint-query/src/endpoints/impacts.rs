//! `/impacts`: the water impact, series or aggregates.

use super::*;

/// `/impacts`: water impact (operational) per zone (series or aggregate).
pub fn impacts(cache: &DataCache, req: &ImpactsRequest) -> Impacts {
    let zones = zones_of(cache, &req.zones);
    let key = SeriesKey::Impact {
        coverage: req.coverage,
    };
    if req.aggregate {
        let (start, end) = requested_strings(&req.window);
        let out = zones
            .into_iter()
            .filter_map(|(z, code)| {
                let a = aggregate_derived(cache.derived(z), &key, &req.window)?;
                Some(ImpactAggregate {
                    impact_type: WATER,
                    scope: Scope::Operational,
                    zone: code,
                    unit: WATER_IMPACT_UNIT,
                    coverage: req.coverage,
                    start: start.clone(),
                    end: end.clone(),
                    value: a.value,
                    valid: a.valid,
                    zone_status: a.zone_status,
                    aggregation_method: TIME_WEIGHTED_AVERAGE,
                })
            })
            .collect();
        return Impacts::Aggregate(out);
    }
    Impacts::Series(
        zones
            .into_iter()
            .filter_map(|(z, code)| {
                let series = flag_series(cache.derived(z), &key, &req.window);
                (!series.is_empty()).then_some(ImpactResult {
                    impact_type: WATER,
                    scope: Scope::Operational,
                    zone: code,
                    unit: WATER_IMPACT_UNIT,
                    coverage: req.coverage,
                    series,
                })
            })
            .collect(),
    )
}

/// `/impacts`: location, time, `impact_type` (water), `scope` (operational), `aggregate`, `use_global`.
pub struct ImpactsEndpoint;

impl EndpointDef for ImpactsEndpoint {
    type Request = ImpactsRequest;
    type Response = Impacts;

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ImpactsRequest, QueryError> {
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
