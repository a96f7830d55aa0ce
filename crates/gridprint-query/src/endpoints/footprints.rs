//! `/footprints`: carbon and water footprints, series or aggregates.

use super::*;

/// `/footprints`: one result per zone and footprint type (series or aggregate).
pub fn footprints(cache: &DataCache, req: &FootprintsRequest) -> Footprints {
    let zones = zones_of(cache, &req.zones);
    let key = |ft| SeriesKey::Footprint {
        footprint_type: ft,
        scope: req.scope,
        coverage: req.coverage,
    };
    if req.aggregate {
        let (start, end) = requested_strings(&req.window);
        let mut out = Vec::new();
        for (z, code) in zones {
            for &ft in &req.footprint_types {
                if let Some(a) = aggregate_derived(cache.derived(z), &key(ft), &req.window) {
                    out.push(FootprintAggregate {
                        footprint_type: ft,
                        scope: req.scope,
                        zone: code.clone(),
                        unit: ft.unit(),
                        coverage: req.coverage,
                        start: start.clone(),
                        end: end.clone(),
                        value: a.value,
                        valid: a.valid,
                        zone_status: a.zone_status,
                        aggregation_method: TIME_WEIGHTED_AVERAGE,
                    });
                }
            }
        }
        return Footprints::Aggregate(out);
    }
    let mut out = Vec::new();
    for (z, code) in zones {
        for &ft in &req.footprint_types {
            let series = flag_series(cache.derived(z), &key(ft), &req.window);
            if !series.is_empty() {
                out.push(FootprintResult {
                    footprint_type: ft,
                    scope: req.scope,
                    zone: code.clone(),
                    unit: ft.unit(),
                    coverage: req.coverage,
                    series,
                });
            }
        }
    }
    Footprints::Series(out)
}

/// `/footprints`: location, time, `footprint_type` (default both), `scope` (default life-cycle),
/// `aggregate`, `use_global`.
pub struct FootprintsEndpoint;

impl EndpointDef for FootprintsEndpoint {
    type Request = FootprintsRequest;
    type Response = Footprints;

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FootprintsRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        let footprint_types = footprint_types(p, "footprint_type")?;
        let scope = scope_any(p)?.unwrap_or(Scope::LifeCycle);
        let coverage = coverage(p)?;
        let aggregate = aggregate(p, &window)?;
        Ok(FootprintsRequest {
            zones,
            window,
            footprint_types,
            scope,
            aggregate,
            coverage,
        })
    }

    fn answer(cache: &DataCache, req: &FootprintsRequest) -> Footprints {
        footprints(cache, req)
    }
}
