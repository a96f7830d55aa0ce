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

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ScoreRequest, QueryError> {
        check_types(p, LOCATION_WINDOW_AGGREGATE)?;
        let (zones, window) = zones_and_window(p, ctx)?;
        scope_operational(p, "the score")?;
        let coverage = coverage(p)?;
        let aggregate = aggregate(p, &window)?;
        Ok(ImpactsRequest {
            zones,
            window,
            aggregate,
            coverage,
        })
    }

    fn answer(cache: &DataCache, req: &ScoreRequest) -> Scores {
        score(cache, req)
    }
}
