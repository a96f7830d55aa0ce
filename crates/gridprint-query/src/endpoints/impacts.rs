//! `/impacts`: the water impact, series or aggregates.

use super::EndpointDef;
use super::common::{WATER, WATER_IMPACT_UNIT};
use super::derived::{DerivedRequest, derived_answer, derived_request};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::ParseContext;
use gridprint_core::derived::SeriesKey;
use gridprint_core::reference::Scope;
use gridprint_responses::query::ImpactsQuery;
use gridprint_responses::{ImpactResult, Impacts};

/// `/impacts`: water impact (operational) per zone (series or aggregate).
pub fn impacts(cache: &DataCache, req: &DerivedRequest) -> Impacts {
    let column = |()| SeriesKey::Impact {
        coverage: req.coverage,
    };
    let item = |zone, ()| ImpactResult {
        impact_type: WATER,
        scope: Scope::Operational,
        zone,
        unit: WATER_IMPACT_UNIT,
        coverage: req.coverage,
        series: Vec::new(),
    };
    derived_answer(cache, req, &[()], column, item).into()
}

/// `/impacts`: location, time, `impact_type` (water), `scope` (operational), `aggregate`,
/// `use_global`.
pub struct ImpactsEndpoint;

impl EndpointDef for ImpactsEndpoint {
    type Query = ImpactsQuery;
    type Request = DerivedRequest;
    type Response = Impacts;
    const DOCS: &'static str =
        "Water impact (stress-l/kWh): operational water footprint × AWARE 2.0 factor of the month.";

    /// The impact type and scope have one value each: the query only checked them.
    fn request(q: ImpactsQuery, ctx: &ParseContext<'_>) -> Result<DerivedRequest, QueryError> {
        derived_request(&q.location, q.window, q.aggregate, q.use_global, ctx)
    }

    fn answer(cache: &DataCache, req: &DerivedRequest) -> Result<Impacts, QueryError> {
        Ok(impacts(cache, req))
    }
}
