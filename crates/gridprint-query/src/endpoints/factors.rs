//! `/factors`: the emission and consumption factors of the reference data.
//!
//! Factors are constant, but the reference serves them as a time series: with a window, one point
//! per slot; without, the current slot. `source_link` is a string (empty when unknown), aggregates
//! carry no validity flags, and `hydro_pumped_storage` is no factor's production type (400).

use super::derived::requested_strings;
use super::{EndpointDef, RequestedWindow};
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::{ParseContext, TimeWindow, time_window};
use gridprint_core::production::ProductionType;
use gridprint_core::reference::{Factor, FootprintType, ReferenceData, Scope};
use gridprint_core::slot::Slot;
use gridprint_responses::query::FactorsQuery;
use gridprint_responses::{FactorResult, Factors, PlainSeries, Point, Values};
use time::OffsetDateTime;

/// `/factors`.
#[derive(Debug, Clone, PartialEq, Hash)]
pub struct FactorsRequest {
    /// Carbon, water or both (default).
    pub factor_types: Vec<FootprintType>,
    /// `None`: both scopes.
    pub scope: Option<Scope>,
    /// `None`: every production type (pumped storage is accepted as a filter here).
    pub production_type: Option<ProductionType>,
    /// Only honoured with start and end (without them factors answer as series).
    pub aggregate: bool,
    /// The window when start and end were given, else the current slot (requested = None).
    pub window: TimeWindow,
}

impl RequestedWindow for FactorsRequest {
    fn requested_window(&self) -> Option<(OffsetDateTime, OffsetDateTime)> {
        self.window.requested
    }
}

/// `/factors`: emission/consumption factors of the reference data, filtered.
pub fn factors(reference: &ReferenceData, req: &FactorsRequest) -> Factors {
    let list = reference.factors.list().iter().filter(|f| {
        req.factor_types.contains(&f.factor_type)
            && req.scope.is_none_or(|s| s == f.scope)
            && req.production_type.is_none_or(|p| p == f.production_type)
    });
    // One point per slot of the window, as the reference's storage holds factors (a time series).
    let item = |f: &Factor, slots: &[Slot]| FactorResult {
        factor_type: f.factor_type,
        production_type: f.production_type,
        scope: f.scope,
        unit: f.unit.clone(),
        source: f.source.clone(),
        year: f.year,
        source_link: Some(f.source_link.clone().unwrap_or_default()),
        series: vec![PlainSeries {
            values: Values(
                slots
                    .iter()
                    .map(|&slot| Point {
                        slot,
                        value: f.value,
                    })
                    .collect(),
            ),
        }],
    };
    if req.aggregate && req.window.requested.is_some() {
        let (start, end) = requested_strings(&req.window);
        let aggregate =
            |f: &Factor| item(f, &[]).into_aggregate(start.clone(), end.clone(), f.value);
        return Factors::Aggregate(list.map(aggregate).collect());
    }
    let slots: Vec<_> = req.window.range.iter().collect();
    Factors::Series(list.map(|f| item(f, &slots)).collect())
}

/// `/factors`: no location; `factor_type`, `scope`, `production_type` (not pumped storage),
/// `aggregate`, optional start and end (same rules; a series at most 366 days).
pub struct FactorsEndpoint;

impl EndpointDef for FactorsEndpoint {
    type Query = FactorsQuery;
    type Request = FactorsRequest;
    type Response = Factors;
    const DOCS: &'static str =
        "Carbon and water factors per production type and scope (constant; no location).";
    const FROM_REFERENCE: bool = true;

    fn request(q: FactorsQuery, ctx: &ParseContext<'_>) -> Result<FactorsRequest, QueryError> {
        Ok(FactorsRequest {
            factor_types: q
                .factor_type
                .map_or(FootprintType::ALL.to_vec(), |t| vec![t]),
            scope: q.scope,
            production_type: q.production_type,
            aggregate: q.aggregate.unwrap_or(false),
            window: time_window(q.window, ctx),
        })
    }

    fn answer(cache: &DataCache, req: &FactorsRequest) -> Result<Factors, QueryError> {
        Ok(factors(cache.reference(), req))
    }
}
