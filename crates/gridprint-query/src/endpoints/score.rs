//! `/green-score` and `/environmental-score`: the 0–100 score, series or aggregates.

use super::EndpointDef;
use super::derived::{DerivedRequest, derived_answer, derived_params};
use crate::cache::DataCache;
use crate::describe::location_time_and;
use crate::error::QueryError;
use crate::params::{ParseContext, QueryParams, scope_operational};
use gridprint_core::derived::SeriesKey;
use gridprint_core::reference::Scope;
use gridprint_responses::{ScoreResult, Scores, schema};
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

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

/// `/green-score` (`ScoreEndpoint<false>`) and `/environmental-score` (`ScoreEndpoint<true>`): one
/// endpoint under the reference's two names, whose OpenAPI texts differ only by the other name.
/// Location, time, `scope` (operational), `aggregate`, `use_global`.
pub struct ScoreEndpoint<const ENVIRONMENTAL: bool>;

/// `/green-score`.
pub type GreenScoreEndpoint = ScoreEndpoint<false>;

/// `/environmental-score`: the same answers as [`GreenScoreEndpoint`].
pub type EnvironmentalScoreEndpoint = ScoreEndpoint<true>;

impl<const ENVIRONMENTAL: bool> EndpointDef for ScoreEndpoint<ENVIRONMENTAL> {
    type Request = DerivedRequest;
    type Response = Scores;
    const DOCS: &'static str = if ENVIRONMENTAL {
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/green-score`."
    } else {
        "The 0–100 score (higher is better): s = 100·(1 − min(1, 0.7·CF/760 + 0.3·WI/100)).\n\nCF is the operational carbon footprint (gCO2/kWh), WI the water impact (stress-l/kWh).\nSame answer as `/environmental-score`."
    };

    fn parameters() -> Vec<Parameter> {
        location_time_and::<ScoreParams>()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<DerivedRequest, QueryError> {
        Ok(derived_params(p, ctx, || scope_operational(p, "the score"))?.0)
    }

    fn answer(cache: &DataCache, req: &DerivedRequest) -> Result<Scores, QueryError> {
        Ok(score(cache, req))
    }
}
