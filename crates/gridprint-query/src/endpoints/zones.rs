//! `/zones`: every zone of the reference data (no parameters).

use super::EndpointDef;
use crate::cache::DataCache;
use crate::error::QueryError;
use crate::params::ParseContext;
use gridprint_core::reference::ReferenceData;
use gridprint_responses::ZoneInfo;
use gridprint_responses::query::ZonesQuery;

/// `/zones`: every zone of the reference data, sorted by code; each zone's neighbours as the
/// crossborders file lists them (its order, zones outside the set included), as the reference does.
pub fn zones(reference: &ReferenceData) -> Vec<ZoneInfo> {
    let mut out: Vec<ZoneInfo> = reference
        .zones
        .iter()
        .map(|z| ZoneInfo {
            zone: z.code.clone(),
            full_name: z.full_name.clone(),
            eic_code: z.eic_code.clone(),
            country_code: z.country_code.clone(),
            country_name: z.country_name.clone(),
            provider: z.provider.as_str(),
            neighbours: z.listed_neighbours.clone(),
        })
        .collect();
    out.sort_by(|a, b| a.zone.cmp(&b.zone));
    out
}

/// `/zones`: no parameters.
pub struct ZonesEndpoint;

impl EndpointDef for ZonesEndpoint {
    type Query = ZonesQuery;
    type Request = ();
    type Response = Vec<ZoneInfo>;
    const DOCS: &'static str =
        "Every zone: code, names, EIC code, provider and neighbours, sorted by zone.";
    const FROM_REFERENCE: bool = true;

    fn request(_: ZonesQuery, _: &ParseContext<'_>) -> Result<(), QueryError> {
        Ok(())
    }

    fn answer(cache: &DataCache, _: &()) -> Result<Vec<ZoneInfo>, QueryError> {
        Ok(zones(cache.reference()))
    }
}
