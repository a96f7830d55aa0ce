//! `/footprints`: carbon and water footprints, series or aggregates.

use super::*;

/// `/footprints`: one result per zone and footprint type (series or aggregate).
pub fn footprints(cache: &DataCache, req: &FootprintsRequest) -> Footprints {
    let column = |footprint_type| SeriesKey::Footprint {
        footprint_type,
        scope: req.scope,
        coverage: req.coverage,
    };
    let item = |zone, ft: FootprintType| FootprintResult {
        footprint_type: ft,
        scope: req.scope,
        zone,
        unit: ft.unit(),
        coverage: req.coverage,
        series: Vec::new(),
    };
    derived_answer(cache, req.into(), &req.footprint_types, column, item).into()
}

endpoint! {
    /// `/footprints`: location, time, `footprint_type` (default both), `scope` (default life-cycle),
    /// `aggregate`, `use_global`.
    FootprintsEndpoint(FootprintParams) -> Footprints = footprints,
    docs: ["Carbon (gCO2/kWh) and water (l/kWh) footprints of consumed electricity.\n\nGlobal (traced through imports, default) or local; life-cycle (default) or operational scope."];
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

impl RequestParams for FootprintParams {
    type Request = FootprintsRequest;

    fn parameters() -> Vec<Parameter> {
        location_time_and::<Self>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FootprintsRequest, QueryError> {
        let (base, (footprint_types, scope)) = derived_params(p, ctx, || {
            let types = footprint_types(p, "footprint_type")?;
            Ok((types, scope_any(p)?.unwrap_or(Scope::LifeCycle)))
        })?;
        Ok(FootprintsRequest {
            zones: base.zones,
            countries: base.countries,
            window: base.window,
            footprint_types,
            scope,
            aggregate: base.aggregate,
            coverage: base.coverage,
        })
    }
}
