//! Reference data: zones, neighbours, emission and water factors, AWARE water-scarcity factors and zone
//! polygons, shipped inside the binary from `data/reference/` (wattnet-data, CSIC, CC BY 4.0).
//!
//! The files are parsed once at start-up into typed values. A malformed file is an error that names the
//! file and the entry, so an operator who overrides the files (`--reference-dir`) sees what to fix.
//! This module does no I/O itself: callers hand it file contents ([`ReferenceFiles`]).

use crate::production::{N_TYPES, ProductionType};
use crate::zone::{Provider, Zone, ZoneCode, ZoneIdx, Zones};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// Which zone list to use: the 52 zones in use (default) or the full 60-zone set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ZoneSet {
    #[default]
    Selected2026,
    Full,
}

impl ZoneSet {
    pub fn parse(s: &str) -> Option<ZoneSet> {
        match s.trim().to_ascii_lowercase().as_str() {
            "selected" | "selected-2026" | "default" | "52" => Some(ZoneSet::Selected2026),
            "full" | "all" | "60" => Some(ZoneSet::Full),
            _ => None,
        }
    }
    /// File names of the zone and crossborder files for this set.
    pub fn file_names(self) -> (&'static str, &'static str) {
        match self {
            ZoneSet::Selected2026 => (
                "entsoe_selected_zones_2026.yaml",
                "entsoe_selected_crossborders_2026.yaml",
            ),
            ZoneSet::Full => ("entsoe_full_zones.yaml", "entsoe_full_crossborders.yaml"),
        }
    }
}

/// Kind of footprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FootprintType {
    Carbon,
    Water,
}

impl FootprintType {
    pub const ALL: [FootprintType; 2] = [FootprintType::Carbon, FootprintType::Water];
    pub fn as_str(self) -> &'static str {
        match self {
            FootprintType::Carbon => "carbon",
            FootprintType::Water => "water",
        }
    }
    pub fn parse(s: &str) -> Option<FootprintType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "carbon" => Some(FootprintType::Carbon),
            "water" => Some(FootprintType::Water),
            _ => None,
        }
    }
    /// Unit of the footprint values.
    pub fn unit(self) -> &'static str {
        match self {
            FootprintType::Carbon => "gCO2/kWh",
            FootprintType::Water => "l/kWh",
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Accounting scope of a footprint or factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Scope {
    #[serde(rename = "life-cycle")]
    LifeCycle,
    #[serde(rename = "operational")]
    Operational,
}

impl Scope {
    pub const ALL: [Scope; 2] = [Scope::LifeCycle, Scope::Operational];
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::LifeCycle => "life-cycle",
            Scope::Operational => "operational",
        }
    }
    /// Case-insensitive; accepts `life-cycle`, `lifecycle`, `life_cycle`, `operational`.
    pub fn parse(s: &str) -> Option<Scope> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "life-cycle" | "lifecycle" => Some(Scope::LifeCycle),
            "operational" => Some(Scope::Operational),
            _ => None,
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One emission/consumption factor with its provenance, as the `/factors` endpoint reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Factor {
    pub factor_type: FootprintType,
    pub production_type: ProductionType,
    pub scope: Scope,
    pub value: f64,
    pub unit: String,
    pub source: String,
    /// Year of the source; `None` where the reference file gives none (e.g. averaged values).
    pub year: Option<i32>,
    pub source_link: Option<String>,
}

/// Factor values by (footprint type, scope, production type), plus the metadata list.
#[derive(Debug, Clone)]
pub struct FactorTable {
    values: [[[f64; N_TYPES]; 2]; 2],
    list: Vec<Factor>,
}

impl FactorTable {
    /// Factor value for a type; 0 for a type without a factor (pumped storage, which never counts in
    /// generation totals).
    pub fn value(&self, ft: FootprintType, scope: Scope, pt: ProductionType) -> f64 {
        self.values[ft.index()][scope.index()][pt.index()]
    }
    /// Values per production type for one footprint type and scope.
    pub fn table(&self, ft: FootprintType, scope: Scope) -> &[f64; N_TYPES] {
        &self.values[ft.index()][scope.index()]
    }
    /// All factors with metadata, ordered by factor type, production type, scope.
    pub fn list(&self) -> &[Factor] {
        &self.list
    }
}

/// AWARE 2.0 water-scarcity factors per zone: annual and monthly.
#[derive(Debug, Clone, Default)]
pub struct Aware {
    monthly: Vec<Option<[f64; 12]>>,
}

impl Aware {
    /// Monthly factor for a zone index and month (1..=12); `None` when the zone has no AWARE entry.
    pub fn monthly(&self, zone: ZoneIdx, month: u8) -> Option<f64> {
        self.monthly
            .get(zone)?
            .as_ref()
            .map(|m| m[(month.clamp(1, 12) - 1) as usize])
    }
}

/// The raw text of every reference file, with the names used in error messages.
#[derive(Debug, Clone)]
pub struct ReferenceFiles {
    pub zone_set: ZoneSet,
    pub zones: (String, String),
    pub crossborders: (String, String),
    pub carbon: (String, String),
    pub water: (String, String),
    pub aware: (String, String),
    pub geojson: (String, String),
}

impl ReferenceFiles {
    /// The files of `data/reference` compiled into the binary, each with its path under
    /// `data/reference` (the name used in error messages).
    pub fn embedded(zone_set: ZoneSet) -> ReferenceFiles {
        let (zf, cf) = zone_set.file_names();
        let (zones, cross) = match zone_set {
            ZoneSet::Selected2026 => (
                include_str!("../../../data/reference/zones/entsoe_selected_zones_2026.yaml"),
                include_str!(
                    "../../../data/reference/zones/entsoe_selected_crossborders_2026.yaml"
                ),
            ),
            ZoneSet::Full => (
                include_str!("../../../data/reference/zones/entsoe_full_zones.yaml"),
                include_str!("../../../data/reference/zones/entsoe_full_crossborders.yaml"),
            ),
        };
        let file = |path: &str, text: &str| (path.to_string(), text.to_string());
        ReferenceFiles {
            zone_set,
            zones: file(&format!("zones/{zf}"), zones),
            crossborders: file(&format!("zones/{cf}"), cross),
            carbon: file(
                "footprint/Carbon.yaml",
                include_str!("../../../data/reference/footprint/Carbon.yaml"),
            ),
            water: file(
                "footprint/Water.yaml",
                include_str!("../../../data/reference/footprint/Water.yaml"),
            ),
            aware: file(
                "impact/AWARE2.0.yaml",
                include_str!("../../../data/reference/impact/AWARE2.0.yaml"),
            ),
            geojson: file(
                "geojson/zones.geojson",
                include_str!("../../../data/reference/geojson/zones.geojson"),
            ),
        }
    }
}

/// A problem in a reference file, naming the file and the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("reference data {file}: {entry}: {message}")]
pub struct ReferenceError {
    pub file: String,
    pub entry: String,
    pub message: String,
}

fn rerr(file: &str, entry: impl fmt::Display, message: impl fmt::Display) -> ReferenceError {
    ReferenceError {
        file: file.to_string(),
        entry: entry.to_string(),
        message: message.to_string(),
    }
}

#[derive(Deserialize)]
struct RawZone {
    zone_id: String,
    full_name: String,
    eic_code: String,
    country_code: String,
    country_name: String,
    provider: String,
}

#[derive(Deserialize)]
struct RawCross {
    zone_id: String,
    #[serde(default)]
    neighbours: Vec<String>,
}

#[derive(Deserialize)]
struct RawFactor {
    factor_type: String,
    production_type: String,
    scope: String,
    value: f64,
    unit: String,
    source: String,
    year: Option<i32>,
    source_link: Option<String>,
}

#[derive(Deserialize)]
struct RawAware {
    zone_id: String,
    #[allow(dead_code)]
    annual_factor: f64,
    monthly_factors: Vec<f64>,
}

/// Parses a YAML list, reporting the failing entry by position.
fn parse_list<T: for<'de> Deserialize<'de>>(
    (file, text): &(String, String),
) -> Result<Vec<T>, ReferenceError> {
    let values: Vec<serde_norway::Value> = serde_norway::from_str(text)
        .map_err(|e| rerr(file, "document", format!("not a YAML list: {e}")))?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let label = v
                .get("zone_id")
                .or_else(|| v.get("production_type"))
                .and_then(|x| x.as_str())
                .map(|s| format!("entry {} ({s})", i + 1))
                .unwrap_or_else(|| format!("entry {}", i + 1));
            serde_norway::from_value(v).map_err(|e| rerr(file, label, e))
        })
        .collect()
}

/// Everything loaded from the reference files, ready for the engine and the API.
#[derive(Debug, Clone)]
pub struct ReferenceData {
    pub zone_set: ZoneSet,
    pub zones: Zones,
    pub factors: FactorTable,
    pub aware: Aware,
    /// Zone polygons as GeoJSON text; the API builds its spatial index from it at start-up.
    pub geojson: String,
}

impl ReferenceData {
    /// The embedded reference data for a zone set. Panics only if the files compiled into the binary
    /// are malformed, which a unit test rules out.
    pub fn embedded(zone_set: ZoneSet) -> ReferenceData {
        Self::load(&ReferenceFiles::embedded(zone_set)).expect("embedded reference data is valid")
    }

    /// Parses and cross-checks all files.
    pub fn load(files: &ReferenceFiles) -> Result<ReferenceData, ReferenceError> {
        let zf = &files.zones.0;
        let raw_zones: Vec<RawZone> = parse_list(&files.zones)?;
        let raw_cross: Vec<RawCross> = parse_list(&files.crossborders)?;
        let mut neighbours: HashMap<String, Vec<ZoneCode>> = HashMap::new();
        for (i, c) in raw_cross.iter().enumerate() {
            let mut ns = Vec::new();
            for n in &c.neighbours {
                ns.push(ZoneCode::parse(n).ok_or_else(|| {
                    rerr(
                        &files.crossborders.0,
                        format!("entry {} ({})", i + 1, c.zone_id),
                        format!("bad neighbour code '{n}'"),
                    )
                })?);
            }
            neighbours.insert(c.zone_id.trim().to_ascii_uppercase(), ns);
        }
        let mut zones = Vec::new();
        for (i, z) in raw_zones.into_iter().enumerate() {
            let entry = format!("entry {} ({})", i + 1, z.zone_id);
            let code = ZoneCode::parse(&z.zone_id)
                .ok_or_else(|| rerr(zf, &entry, format!("bad zone code '{}'", z.zone_id)))?;
            if z.eic_code.trim().len() != 16 {
                return Err(rerr(
                    zf,
                    &entry,
                    format!("EIC code '{}' is not 16 characters", z.eic_code),
                ));
            }
            let provider = match z.provider.trim().to_ascii_lowercase().as_str() {
                "entsoe" | "entso-e" => Provider::Entsoe,
                "elexon" => Provider::Elexon,
                "epias" => Provider::Epias,
                other => return Err(rerr(zf, &entry, format!("unknown provider '{other}'"))),
            };
            zones.push(Zone {
                neighbours: neighbours.get(code.as_str()).cloned().unwrap_or_default(),
                listed_neighbours: neighbours.get(code.as_str()).cloned().unwrap_or_default(),
                code,
                full_name: z.full_name,
                eic_code: z.eic_code.trim().to_string(),
                country_code: z.country_code,
                country_name: z.country_name,
                provider,
            });
        }
        let mut seen = std::collections::HashSet::new();
        for z in &zones {
            if !seen.insert(z.code.clone()) {
                return Err(rerr(zf, &z.code, "zone listed twice"));
            }
        }
        let zones = Zones::new(zones);

        let mut values = [[[0.0; N_TYPES]; 2]; 2];
        let mut list = Vec::new();
        for (want, file) in [
            (FootprintType::Carbon, &files.carbon),
            (FootprintType::Water, &files.water),
        ] {
            let raw: Vec<RawFactor> = parse_list(file)?;
            for (i, f) in raw.into_iter().enumerate() {
                let entry = format!("entry {} ({} {})", i + 1, f.production_type, f.scope);
                let ft = FootprintType::parse(&f.factor_type)
                    .filter(|ft| *ft == want)
                    .ok_or_else(|| {
                        rerr(
                            &file.0,
                            &entry,
                            format!("factor_type '{}' not expected here", f.factor_type),
                        )
                    })?;
                let pt =
                    ProductionType::from_reference_name(&f.production_type).ok_or_else(|| {
                        rerr(
                            &file.0,
                            &entry,
                            format!("unknown production_type '{}'", f.production_type),
                        )
                    })?;
                let scope = Scope::parse(&f.scope)
                    .ok_or_else(|| rerr(&file.0, &entry, format!("unknown scope '{}'", f.scope)))?;
                if !f.value.is_finite() || f.value < 0.0 {
                    return Err(rerr(
                        &file.0,
                        &entry,
                        format!("value {} is not a non-negative number", f.value),
                    ));
                }
                values[ft.index()][scope.index()][pt.index()] = f.value;
                list.push(Factor {
                    factor_type: ft,
                    production_type: pt,
                    scope,
                    value: f.value,
                    unit: f.unit,
                    source: f.source,
                    year: f.year,
                    source_link: f.source_link,
                });
            }
        }
        list.sort_by_key(|f| (f.factor_type, f.production_type, f.scope));

        let raw_aware: Vec<RawAware> = parse_list(&files.aware)?;
        let mut monthly = vec![None; zones.len()];
        for (i, a) in raw_aware.into_iter().enumerate() {
            let entry = format!("entry {} ({})", i + 1, a.zone_id);
            if a.monthly_factors.len() != 12
                || a.monthly_factors.iter().any(|v| !v.is_finite() || *v < 0.0)
            {
                return Err(rerr(
                    &files.aware.0,
                    &entry,
                    "monthly_factors must be 12 non-negative numbers",
                ));
            }
            if let Some(idx) = zones.index_of_str(&a.zone_id) {
                let mut m = [0.0; 12];
                m.copy_from_slice(&a.monthly_factors);
                monthly[idx] = Some(m);
            }
        }
        let _: serde_json::Value = serde_json::from_str(&files.geojson.1)
            .map_err(|e| rerr(&files.geojson.0, "document", format!("not JSON: {e}")))?;

        Ok(ReferenceData {
            zone_set: files.zone_set,
            zones,
            factors: FactorTable { values, list },
            aware: Aware { monthly },
            geojson: files.geojson.1.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_sets_load() {
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        assert_eq!(r.zones.len(), 52);
        let de = r.zones.index_of_str("de").unwrap();
        assert_eq!(r.zones.index_of_eic("10Y1001A1001A82H"), Some(de));
        assert_eq!(r.zones.index_of_eic("10Y1001A1001A83F"), Some(de));
        assert!(
            r.zones
                .neighbours(de)
                .contains(&r.zones.index_of_str("FR").unwrap())
        );
        assert_eq!(
            r.factors.value(
                FootprintType::Carbon,
                Scope::Operational,
                ProductionType::Coal
            ),
            760.0
        );
        assert!(
            r.aware
                .monthly(r.zones.index_of_str("AT").unwrap(), 1)
                .unwrap()
                > 0.0
        );
        assert_eq!(ReferenceData::embedded(ZoneSet::Full).zones.len(), 60);
    }

    #[test]
    fn malformed_file_names_file_and_entry() {
        let mut f = ReferenceFiles::embedded(ZoneSet::Selected2026);
        f.carbon.1 = f.carbon.1.replacen("value: 230", "value: lots", 1);
        let e = ReferenceData::load(&f).unwrap_err();
        assert_eq!(e.file, "footprint/Carbon.yaml");
        assert!(e.entry.contains("entry 1 (Biomass"), "{e}");
        let mut f = ReferenceFiles::embedded(ZoneSet::Selected2026);
        f.zones.1 = f
            .zones
            .1
            .replacen("provider: \"entsoe\"", "provider: \"acme\"", 1);
        let e = ReferenceData::load(&f).unwrap_err();
        assert!(
            e.to_string().contains("entry 1 (AT)") && e.to_string().contains("acme"),
            "{e}"
        );
    }
}
