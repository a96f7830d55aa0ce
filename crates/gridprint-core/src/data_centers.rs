//! The public cloud regions (AWS, Azure, Google Cloud) that lie in the zones gridprint serves, each
//! with the zone whose electricity it draws: `data/reference/data-centers/cloud_regions.yaml`,
//! compiled into the binary and parsed once ([`data_centers`]).
//!
//! Clients that locate a job by data centre rather than by zone (Electricity Maps'
//! `dataCenterProvider` + `dataCenterRegion`, its `/v3/data-centers`, the Carbon Aware SDK's location
//! files) are answered from this table; [`find`] resolves a provider and region to an entry. Where
//! every value comes from, and how each zone was chosen: the README beside the YAML file.

use serde::Deserialize;
use std::sync::LazyLock;

/// The table as shipped (its path under `data/reference/` names it in errors).
const CLOUD_REGIONS: &str = include_str!("../../../data/reference/data-centers/cloud_regions.yaml");

/// One cloud region and its zone.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DataCenter {
    /// `aws`, `azure` or `gcp`.
    pub provider: String,
    /// The region's identifier as the provider writes it (`eu-central-1`, `westeurope`, `europe-west1`).
    pub region: String,
    /// The provider's display name of the region; `None` for Google Cloud.
    pub name: Option<String>,
    /// The town, or only the country, the provider's page names.
    pub place: String,
    /// ISO 3166-1 alpha-3 code of the country of `place`.
    pub country_code: String,
    pub latitude: f64,
    pub longitude: f64,
    /// `town`, `capital` or `provider-metadata`: what the point is.
    pub coordinates: String,
    /// The gridprint zone code.
    pub zone: String,
    /// The same zone as an Electricity Maps zone key.
    pub em_zone_key: String,
    /// `operational` or `planned`.
    pub status: String,
    /// `public` or `restricted`.
    pub access: String,
    /// The provider's page that lists the region with its place.
    pub source: String,
    pub coordinates_source: Option<String>,
}

static TABLE: LazyLock<Vec<DataCenter>> = LazyLock::new(|| {
    serde_norway::from_str(CLOUD_REGIONS).unwrap_or_else(|e| {
        panic!("reference data data-centers/cloud_regions.yaml cannot be read: {e}")
    })
});

/// Every region of the table, in its order (provider, then region).
pub fn data_centers() -> &'static [DataCenter] {
    &TABLE
}

/// The entry of `provider`'s `region` (both compared ignoring ASCII case), if the table has it.
pub fn find(provider: &str, region: &str) -> Option<&'static DataCenter> {
    let (provider, region) = (provider.trim(), region.trim());
    data_centers().iter().find(|d| {
        d.provider.eq_ignore_ascii_case(provider) && d.region.eq_ignore_ascii_case(region)
    })
}

/// The providers of the table, in its order, each once.
pub fn providers() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for d in data_centers() {
        if !out.contains(&d.provider.as_str()) {
            out.push(&d.provider);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{ReferenceData, ZoneSet};

    #[test]
    fn the_table_parses_names_served_zones_and_finds_each_region() {
        let all = data_centers();
        assert_eq!(all.len(), 40);
        assert_eq!(providers(), ["aws", "azure", "gcp"]);
        let zones = ReferenceData::embedded(ZoneSet::Selected2026).zones;
        for d in all {
            assert!(
                zones.index_of_str(&d.zone).is_some(),
                "{}: {}",
                d.region,
                d.zone
            );
            assert_eq!(find(&d.provider, &d.region), Some(d));
            assert!(
                (-90.0..=90.0).contains(&d.latitude) && (-180.0..=180.0).contains(&d.longitude)
            );
        }
        assert_eq!(
            find("GCP", "Europe-West1").map(|d| d.zone.as_str()),
            Some("BE")
        );
        assert_eq!(
            find("azure", "swedencentral").map(|d| d.em_zone_key.as_str()),
            Some("SE-SE3")
        );
        assert!(find("aws", "us-east-1").is_none());
    }
}
