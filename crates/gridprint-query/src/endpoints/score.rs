//! `/green-score` and `/environmental-score`: the 0–100 score, series or aggregates.

use super::*;

/// `/green-score` and `/environmental-score`: the score (operational) per zone.
pub fn score(cache: &DataCache, req: &ImpactsRequest) -> Scores {
    let zones = zones_of(cache, &req.zones);
    let key = SeriesKey::Score {
        coverage: req.coverage,
    };
    if req.aggregate {
        let (start, end) = requested_strings(&req.window);
        let out = zones
            .into_iter()
            .filter_map(|(z, code)| {
                let a = aggregate_derived(cache.derived(z), &key, &req.window)?;
                Some(ScoreAggregate {
                    scope: Scope::Operational,
                    zone: code,
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
        return Scores::Aggregate(out);
    }
    Scores::Series(
        zones
            .into_iter()
            .filter_map(|(z, code)| {
                let series = flag_series(cache.derived(z), &key, &req.window);
                (!series.is_empty()).then_some(ScoreResult {
                    scope: Scope::Operational,
                    zone: code,
                    coverage: req.coverage,
                    series,
                })
            })
            .collect(),
    )
}

/// `/green-score` and `/environmental-score`: location, time, `scope` (operational), `aggregate`,
/// `use_global`.
pub struct Score;

impl EndpointDef for Score {
    type Request = ScoreRequest;
    type Response = Scores;

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ScoreRequest, QueryError> {
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
