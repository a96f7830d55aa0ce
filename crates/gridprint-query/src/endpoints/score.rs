//! `/green-score` and `/environmental-score`: the 0–100 score, series or aggregates.

use super::EndpointDef;
use super::derived::{DerivedRequest, derived_answer, derived_request};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::ParseContext;
use gridprint_core::derived::SeriesKey;
use gridprint_core::reference::Scope;
use gridprint_responses::query::ScoreQuery;
use gridprint_responses::{ScoreResult, Scores};

/// `/green-score` and `/environmental-score`: the score (operational) per zone.
pub fn score(cache: &DataCache, req: &DerivedRequest) -> Scores {
    let column = |()| SeriesKey::Score {
        coverage: req.coverage,
    };
    let item = |zone, ()| ScoreResult {
        scope: Scope::Operational,
        zone,
        coverage: req.coverage,
        series: Vec::new(),
    };
    derived_answer(cache, req, &[()], column, item).into()
}

/// `/green-score` (`ScoreEndpoint<false>`) and `/environmental-score` (`ScoreEndpoint<true>`): one
/// endpoint under the reference's two names, whose OpenAPI texts differ only by the other name.
/// Location, time, `scope` (operational), `aggregate`, `use_global`.
pub struct ScoreEndpoint<const ENVIRONMENTAL: bool>;

/// `/green-score`.
pub type GreenScoreEndpoint = ScoreEndpoint<false>;

/// `/environmental-score`: the same answers as [`GreenScoreEndpoint`].
pub type EnvironmentalScoreEndpoint = ScoreEndpoint<true>;

impl<const ENVIRONMENTAL: bool> EndpointDef for ScoreEndpoint<ENVIRONMENTAL> {
    type Query = ScoreQuery;
    type Request = DerivedRequest;
    type Response = Scores;
    const DOCS: &'static str = if ENVIRONMENTAL {
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/green-score`."
    } else {
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/environmental-score`."
    };

    fn request(q: ScoreQuery, ctx: &ParseContext<'_>) -> Result<DerivedRequest, QueryError> {
        derived_request(&q.location, q.window, q.aggregate, q.use_global, ctx)
    }

    fn answer(cache: &DataCache, req: &DerivedRequest) -> Result<Scores, QueryError> {
        Ok(score(cache, req))
    }
}
