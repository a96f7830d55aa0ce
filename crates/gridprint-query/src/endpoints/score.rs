//! `/green-score` and `/environmental-score`: the 0–100 score, series or aggregates.

use super::*;

/// `/green-score` and `/environmental-score`: the score (operational) per zone.
pub fn score(cache: &DataCache, req: &ImpactsRequest) -> Scores {
    let column = |()| SeriesKey::Score {
        coverage: req.coverage,
    };
    let item = |zone, ()| ScoreResult {
        scope: Scope::Operational,
        zone,
        coverage: req.coverage,
        series: Vec::new(),
    };
    derived_answer(cache, req.into(), &[()], column, item).into()
}

endpoint! {
    /// `/green-score` and `/environmental-score`: location, time, `scope` (operational), `aggregate`,
    /// `use_global`.
    Score(ScoreParams) -> Scores = score,
    docs: [
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/environmental-score`.",
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/green-score`.",
    ];
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

impl RequestParams for ScoreParams {
    type Request = ScoreRequest;

    fn parameters() -> Vec<Parameter> {
        location_time_and::<Self>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<ScoreRequest, QueryError> {
        Ok(derived_params(p, ctx, || scope_operational(p, "the score"))?.0)
    }
}
