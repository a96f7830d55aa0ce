//! `/green-score` and `/environmental-score`: the 0–100 score, series or aggregates.

use super::*;

/// `/green-score` and `/environmental-score`: the score (operational) per zone.
pub fn score(cache: &DataCache, req: &ImpactsRequest) -> Scores {
    let column = |()| SeriesKey::Score {
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
        |zone, (), series| ScoreResult {
            scope: Scope::Operational,
            zone,
            coverage: req.coverage,
            series,
        },
        |zone, (), w| ScoreAggregate {
            scope: Scope::Operational,
            zone,
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
    answer.map_or_else(Scores::Aggregate, Scores::Series)
}

/// `/green-score` and `/environmental-score`: location, time, `scope` (operational), `aggregate`,
/// `use_global`.
pub struct Score;

impl EndpointDef for Score {
    type Request = ScoreRequest;
    type Response = Scores;
    const DOCS: &'static [&'static str] = &[
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/environmental-score`.",
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/green-score`.",
    ];

    fn parameters() -> Vec<Parameter> {
        [
            params_of::<LocationParams>(),
            params_of::<TimeParams>(),
            params_of::<ScoreParams>(),
        ]
        .concat()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ScoreRequest, QueryError> {
        check_types(p, LOCATION_WINDOW_AGGREGATE)?;
        let (zones, window) = zones_and_window(p, ctx)?;
        let countries = countries(p, ctx)?;
        scope_operational(p, "the score")?;
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

    fn answer(cache: &DataCache, req: &ScoreRequest) -> Scores {
        score(cache, req)
    }
}

/// `/green-score` and `/environmental-score`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ScoreParams {
    /// Only `operational` (default); `life-cycle` → 400.
    pub scope: Option<schema::OperationalScope>,
    /// `true`: time-weighted average over `[start, end]` (start and end required).
    pub aggregate: Option<bool>,
    /// `true` (default): the score of the global values; `false`: of the local values.
    pub use_global: Option<bool>,
}
