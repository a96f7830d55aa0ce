//! `/mix`: the flow-traced consumed mix.

use super::*;

/// `/mix`: flow-traced consumption per production type (datasource `flow_tracing`).
pub fn mix(cache: &DataCache, req: &MixRequest) -> Vec<MixResult> {
    let group = |z| {
        let derived = cache.derived(z);
        let mut g = Grouper::new();
        for pt in ProductionType::ALL {
            if req.production_type.is_none_or(|f| f == pt) {
                let key = SeriesKey::Mix(pt);
                push_derived(&mut g, derived, &key, &req.window, keep_non_negative, pt);
            }
        }
        entries(
            g.finish(|a, b| a.cmp(b)),
            |(_, status), production_type, values| ProductionBlock {
                production_type,
                data_state: state_of_status(status),
                datasource: FLOW_TRACING.to_string(),
                values,
            },
            |valid, zone_status, production| GenerationEntry {
                valid,
                zone_status,
                production,
            },
        )
    };
    per_zone(cache, &req.zones, group, |zone, series| GenerationResult {
        zone,
        unit: MW,
        series,
    })
}

/// `/mix`: location, time, `production_type` (pumped storage rejected).
pub struct Mix;

impl EndpointDef for Mix {
    type Request = MixRequest;
    type Response = Vec<MixResult>;
    const DOCS: &'static [&'static str] = &[
        "The consumed mix (MW of each production type consumed in the zone after flow tracing).\n\nSame shape as `/generation`, datasource `flow_tracing`.",
    ];

    fn parameters() -> Vec<Parameter> {
        [
            params_of::<LocationParams>(),
            params_of::<TimeParams>(),
            params_of::<ProductionFilter>(),
        ]
        .concat()
    }

    fn parse(p: &QueryParams<'_>, ctx: &ParseContext<'_>) -> Result<MixRequest, QueryError> {
        let (zones, window) = zones_and_window(p, ctx)?;
        Ok(MixRequest {
            zones,
            window,
            production_type: production_type(p, false)?,
        })
    }

    fn answer(cache: &DataCache, req: &MixRequest) -> Vec<MixResult> {
        mix(cache, req)
    }
}
