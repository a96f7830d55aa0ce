//! `/factors`: the emission and consumption factors of the reference data.

use super::*;

/// `/factors`: emission/consumption factors of the reference data, filtered.
pub fn factors(reference: &ReferenceData, req: &FactorsRequest) -> Factors {
    let list = reference.factors.list().iter().filter(|f| {
        req.factor_types.contains(&f.factor_type)
            && req.scope.is_none_or(|s| s == f.scope)
            && req.production_type.is_none_or(|p| p == f.production_type)
    });
    if req.aggregate && req.window.requested.is_some() {
        let (start, end) = requested_strings(&req.window);
        return Factors::Aggregate(
            list.map(|f| FactorAggregate {
                factor_type: f.factor_type,
                production_type: f.production_type,
                scope: f.scope,
                unit: f.unit.clone(),
                source: f.source.clone(),
                year: f.year,
                source_link: f.source_link.clone(),
                start: start.clone(),
                end: end.clone(),
                value: f.value,
                valid: true,
                zone_status: ZoneStatus::Complete,
                aggregation_method: TIME_WEIGHTED_AVERAGE,
            })
            .collect(),
        );
    }
    let slot = req.window.range.start;
    Factors::Series(
        list.map(|f| FactorResult {
            factor_type: f.factor_type,
            production_type: f.production_type,
            scope: f.scope,
            unit: f.unit.clone(),
            source: f.source.clone(),
            year: f.year,
            source_link: f.source_link.clone(),
            series: vec![PlainSeries {
                values: Values(vec![Point {
                    slot,
                    value: f.value,
                }]),
            }],
        })
        .collect(),
    )
}

/// `/factors`: no location; `factor_type`, `scope`, `production_type` (pumped storage accepted),
/// `aggregate`, optional start and end (same rules, no range limit: factors are constant).
pub struct FactorsEndpoint;

impl EndpointDef for FactorsEndpoint {
    type Request = FactorsRequest;
    type Response = Factors;

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<FactorsRequest, QueryError> {
        check_types(p, &["start", "end", "aggregate"])?;
        let window = match dates(p)? {
            Some((s, e)) => TimeWindow {
                range: SlotRange::from_window(s, e),
                requested: Some((s, e)),
                now: ctx.now,
            },
            None => TimeWindow::current(ctx.now),
        };
        let factor_types = footprint_types(p, "factor_type")?;
        let scope = scope_any(p)?;
        let production_type = production_type(p, true)?;
        let aggregate = boolean(p, "aggregate", false)?;
        Ok(FactorsRequest {
            factor_types,
            scope,
            production_type,
            aggregate,
            window,
        })
    }

    fn answer(cache: &DataCache, req: &FactorsRequest) -> Factors {
        factors(cache.reference(), req)
    }
}
