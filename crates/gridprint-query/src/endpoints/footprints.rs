//! `/footprints`: carbon and water footprints, series or aggregates.

use super::*;

/// `/footprints`: one result per zone and footprint type (series or aggregate).
pub fn footprints(cache: &DataCache, req: &FootprintsRequest) -> Footprints {
    let column = |footprint_type| SeriesKey::Footprint {
        footprint_type,
        scope: req.scope,
        coverage: req.coverage,
    };
    let answer = derived_answer(
        cache,
        &req.zones,
        &req.countries,
        &req.window,
        req.aggregate,
        &req.footprint_types,
        column,
        |zone, ft: FootprintType, series| FootprintResult {
            footprint_type: ft,
            scope: req.scope,
            zone,
            unit: ft.unit(),
            coverage: req.coverage,
            series,
        },
        |zone, ft, w| FootprintAggregate {
            footprint_type: ft,
            scope: req.scope,
            zone,
            unit: ft.unit(),
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
    answer.map_or_else(Footprints::Aggregate, Footprints::Series)
}

/// `/footprints`: location, time, `footprint_type` (default both), `scope` (default life-cycle),
/// `aggregate`, `use_global`.
pub struct FootprintsEndpoint;

impl EndpointDef for FootprintsEndpoint {
    type Request = FootprintsRequest;
    type Response = Footprints;
    const DOCS: &'static [&'static str] = &[
        "Carbon (gCO2/kWh) and water (l/kWh) footprints of consumed electricity.\n\nGlobal (traced through imports, default) or local; life-cycle (default) or operational scope.",
    ];

    fn parameters() -> Vec<Parameter> {
        [
            params_of::<LocationParams>(),
            params_of::<TimeParams>(),
            params_of::<FootprintParams>(),
        ]
        .concat()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FootprintsRequest, QueryError> {
        check_types(p, LOCATION_WINDOW_AGGREGATE)?;
        let (zones, window) = zones_and_window(p, ctx)?;
        let countries = countries(p, ctx)?;
        let footprint_types = footprint_types(p, "footprint_type")?;
        let scope = scope_any(p)?.unwrap_or(Scope::LifeCycle);
        let coverage = coverage(p)?;
        let aggregate = aggregate(p, &window)?;
        Ok(FootprintsRequest {
            zones,
            countries,
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
