//! Zone keys of the Electricity Maps API (`DE`, `DK-DK1`, `SE-SE4`, …) and gridprint's zone codes:
//! the one table [`KEYS`] (listed in docs/compatibility.md), read in both directions.
//!
//! A request names a zone by its Electricity Maps key or by gridprint's code (either case); the
//! answer always names it by its Electricity Maps key. Zones absent from the table have the same key
//! as their code (`DE`, `FR`, `GB`, …), and so do the country codes gridprint answers for (`DK`,
//! `IT`, `NO`, `SE`: docs/methodology.md §5).

/// gridprint's zone code and the Electricity Maps key, where they differ.
pub const KEYS: &[(&str, &str)] = &[
    ("DK1", "DK-DK1"),
    ("DK2", "DK-DK2"),
    ("IT_CNORTH", "IT-CNO"),
    ("IT_CSOUTH", "IT-CSO"),
    ("IT_NORTH", "IT-NO"),
    ("IT_SARDINIA", "IT-SAR"),
    ("IT_SICILY", "IT-SIC"),
    ("IT_SOUTH", "IT-SO"),
    ("NIE", "GB-NIR"),
    ("NO1", "NO-NO1"),
    ("NO2", "NO-NO2"),
    ("NO3", "NO-NO3"),
    ("NO4", "NO-NO4"),
    ("NO5", "NO-NO5"),
    ("RU_KGD", "RU-KGD"),
    ("SE1", "SE-SE1"),
    ("SE2", "SE-SE2"),
    ("SE3", "SE-SE3"),
    ("SE4", "SE-SE4"),
];

/// The Electricity Maps key of a gridprint zone or country code.
pub fn key_of(code: &str) -> &str {
    KEYS.iter()
        .find(|(c, _)| *c == code)
        .map_or(code, |(_, k)| k)
}

/// The gridprint code a requested key names: an Electricity Maps key of the table, else the key
/// itself upper-cased (a gridprint code, or a key equal to its code). Whether the code is served is
/// for the caller to check.
pub fn code_of(key: &str) -> String {
    let key = key.trim();
    KEYS.iter()
        .find(|(_, k)| k.eq_ignore_ascii_case(key))
        .map_or_else(|| key.to_ascii_uppercase(), |(c, _)| (*c).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::reference::{ReferenceData, ZoneSet};

    #[test]
    fn keys_map_both_ways_and_name_served_zones() {
        assert_eq!(code_of("dk-dk1"), "DK1");
        assert_eq!(code_of("DK1"), "DK1");
        assert_eq!(code_of("IT-NO"), "IT_NORTH");
        assert_eq!(code_of("it_north"), "IT_NORTH");
        assert_eq!(key_of("SE4"), "SE-SE4");
        assert_eq!(key_of("DE"), "DE");
        let zones = ReferenceData::embedded(ZoneSet::Full).zones;
        for (code, key) in KEYS {
            assert!(zones.index_of_str(code).is_some(), "{code} is a zone");
            assert_eq!(code_of(key), *code);
            assert_eq!(key_of(code), *key);
        }
    }
}
