//! Zones: the bidding zones gridprint reports on, their codes, EIC identifiers, providers and
//! interconnector neighbours.
//!
//! A [`ZoneCode`] is always upper case (`pt` → `PT`). [`Zones`] is the loaded set with dense indices
//! (`0..len`) that the engine and the in-memory caches use instead of strings.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// A zone code such as `DE`, `IT_NORTH` or `NO2`, upper case. At most [`ZoneCode::MAX_LEN`] bytes,
/// kept inline: cloning or dropping one allocates nothing (a compute makes one or two per stored
/// point, about two million for 14 days). It orders, serializes and prints like its string.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ZoneCode {
    /// The code's bytes, then zeros (so arrays order as the strings do).
    bytes: [u8; ZoneCode::MAX_LEN],
    len: u8,
}

impl ZoneCode {
    /// The longest code, in bytes.
    pub const MAX_LEN: usize = 16;

    /// Normalises user input: trims and upper-cases. Returns `None` for strings that cannot be a zone
    /// code (empty, longer than 16, or characters other than letters, digits, `_` and `-`).
    pub fn parse(s: &str) -> Option<ZoneCode> {
        let s = s.trim();
        if s.is_empty()
            || !s
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return None;
        }
        let mut code = ZoneCode::verbatim(s)?;
        code.bytes.make_ascii_uppercase();
        Some(code)
    }

    /// `s` as it is, if it fits.
    fn verbatim(s: &str) -> Option<ZoneCode> {
        let mut bytes = [0u8; ZoneCode::MAX_LEN];
        bytes.get_mut(..s.len())?.copy_from_slice(s.as_bytes());
        Some(ZoneCode {
            bytes,
            len: s.len() as u8,
        })
    }

    pub fn as_str(&self) -> &str {
        // Built from a whole `&str` only (`verbatim`), and upper-casing keeps ASCII ASCII.
        std::str::from_utf8(&self.bytes[..self.len as usize]).expect("a zone code is UTF-8")
    }
}

impl fmt::Display for ZoneCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for ZoneCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ZoneCode").field(&self.as_str()).finish()
    }
}

impl Serialize for ZoneCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A stored or received code is taken as it is (as the former `String` was), if it fits.
impl<'de> Deserialize<'de> for ZoneCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ZoneCode, D::Error> {
        struct CodeVisitor;
        impl serde::de::Visitor<'_> for CodeVisitor {
            type Value = ZoneCode;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a zone code of at most {} bytes", ZoneCode::MAX_LEN)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ZoneCode, E> {
                ZoneCode::verbatim(s)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(s), &self))
            }
        }
        deserializer.deserialize_str(CodeVisitor)
    }
}

/// Who publishes a zone's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Provider {
    #[serde(rename = "ENTSO-E")]
    Entsoe,
    #[serde(rename = "Elexon")]
    Elexon,
    #[serde(rename = "EPIAS")]
    Epias,
}

impl Provider {
    /// The API spelling (`ENTSO-E`, `Elexon`, `EPIAS`).
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Entsoe => "ENTSO-E",
            Provider::Elexon => "Elexon",
            Provider::Epias => "EPIAS",
        }
    }
}

/// One zone's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    pub code: ZoneCode,
    pub full_name: String,
    pub eic_code: String,
    pub country_code: String,
    pub country_name: String,
    pub provider: Provider,
    /// Neighbours in the set, sorted (what the engine's index lists are built from).
    pub neighbours: Vec<ZoneCode>,
    /// Neighbours as the crossborders file lists them: file order, zones outside the set included
    /// (what `/zones` answers, as the reference does).
    #[serde(default)]
    pub listed_neighbours: Vec<ZoneCode>,
}

/// Dense index of a zone within a [`Zones`] set.
pub type ZoneIdx = usize;

/// Extra EIC codes that denote one of our zones: the DE-LU bidding zone (and the former DE-AT-LU one)
/// and the UK country code (Great Britain)
/// are Germany for gridprint.
const EIC_ALIASES: &[(&str, &str)] = &[
    ("10Y1001A1001A82H", "DE"),
    ("10Y1001A1001A63L", "DE"),
    // The United Kingdom country code as the File Library uses it (Northern Ireland is its own zone, NIE).
    ("10Y1001A1001A92E", "GB"),
];

/// The loaded set of zones, sorted by code, with lookups by code and EIC.
#[derive(Debug, Clone)]
pub struct Zones {
    list: Vec<Zone>,
    /// foldhash rather than the default SipHash: a compute looks up the zone of every stored point
    /// (about two million lookups for 14 days), and SipHash was a tenth of a publication.
    by_code: HashMap<ZoneCode, ZoneIdx, foldhash::fast::RandomState>,
    by_eic: HashMap<String, ZoneIdx>,
    neighbour_idx: Vec<Vec<ZoneIdx>>,
    /// [`Zones::borders`], found once: a compute asks for them in every slot.
    borders: Vec<(ZoneIdx, ZoneIdx)>,
}

impl Zones {
    /// Builds the set; zones are sorted by code, neighbours that are not in the set are dropped from
    /// the index lists (they stay in `Zone::neighbours` only if present in the set).
    pub fn new(mut list: Vec<Zone>) -> Zones {
        list.sort_by(|a, b| a.code.cmp(&b.code));
        let by_code: HashMap<_, _, foldhash::fast::RandomState> = list
            .iter()
            .enumerate()
            .map(|(i, z)| (z.code.clone(), i))
            .collect();
        for z in &mut list {
            z.neighbours.retain(|n| by_code.contains_key(n));
            z.neighbours.sort();
            z.neighbours.dedup();
        }
        let mut by_eic: HashMap<_, _> = list
            .iter()
            .enumerate()
            .map(|(i, z)| (z.eic_code.clone(), i))
            .collect();
        for (eic, code) in EIC_ALIASES {
            if let Some(&i) = ZoneCode::parse(code).and_then(|c| by_code.get(&c)) {
                by_eic.entry(eic.to_string()).or_insert(i);
            }
        }
        let neighbour_idx: Vec<Vec<ZoneIdx>> = list
            .iter()
            .map(|z| z.neighbours.iter().map(|n| by_code[n]).collect())
            .collect();
        let mut borders = Vec::new();
        for (i, neighbours) in neighbour_idx.iter().enumerate() {
            for &j in neighbours {
                borders.push((i, j));
                if !neighbour_idx[j].contains(&i) {
                    borders.push((j, i));
                }
            }
        }
        borders.sort();
        borders.dedup();
        Zones {
            list,
            by_code,
            by_eic,
            neighbour_idx,
            borders,
        }
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Zone> {
        self.list.iter()
    }
    pub fn get(&self, idx: ZoneIdx) -> &Zone {
        &self.list[idx]
    }
    pub fn code(&self, idx: ZoneIdx) -> &ZoneCode {
        &self.list[idx].code
    }
    pub fn index_of(&self, code: &ZoneCode) -> Option<ZoneIdx> {
        self.by_code.get(code).copied()
    }
    /// Looks a zone up by code string (case-insensitive).
    pub fn index_of_str(&self, code: &str) -> Option<ZoneIdx> {
        ZoneCode::parse(code).and_then(|c| self.index_of(&c))
    }
    /// Looks a zone up by EIC code (including the DE-LU alias).
    pub fn index_of_eic(&self, eic: &str) -> Option<ZoneIdx> {
        self.by_eic.get(eic.trim()).copied()
    }
    /// Indices of a zone's interconnector neighbours.
    pub fn neighbours(&self, idx: ZoneIdx) -> &[ZoneIdx] {
        &self.neighbour_idx[idx]
    }
    /// Every (from, to) pair of neighbours, each direction once, in ascending order.
    pub fn borders(&self) -> &[(ZoneIdx, ZoneIdx)] {
        &self.borders
    }
}

/// Countries split into several bidding zones of the zone set, by country code, with their member
/// zones. A request for such a country is answered from its members (consumption- or
/// generation-weighted, see `docs/methodology.md`); a bidding-zone code always wins over a country code
/// (`GB` is the GB zone), and "all zones" never adds countries.
pub const COUNTRIES: &[(&str, &[&str])] = &[
    ("DK", &["DK1", "DK2"]),
    (
        "IT",
        &[
            "IT_CALABRIA",
            "IT_CNORTH",
            "IT_CSOUTH",
            "IT_NORTH",
            "IT_SARDINIA",
            "IT_SICILY",
            "IT_SOUTH",
        ],
    ),
    ("NO", &["NO1", "NO2", "NO3", "NO4", "NO5"]),
    ("SE", &["SE1", "SE2", "SE3", "SE4"]),
];

impl Zones {
    /// The member zones of a country code (see [`COUNTRIES`]) that are in this set, or `None` when
    /// `code` is not such a country or is itself a zone of the set.
    pub fn country_members(&self, code: &ZoneCode) -> Option<Vec<ZoneIdx>> {
        if self.by_code.contains_key(code) {
            return None;
        }
        let (_, members) = COUNTRIES.iter().find(|(c, _)| *c == code.as_str())?;
        let idx: Vec<ZoneIdx> = members
            .iter()
            .filter_map(|m| self.index_of_str(m))
            .collect();
        (!idx.is_empty()).then_some(idx)
    }
}

#[cfg(test)]
mod country_tests {
    use crate::reference::{ReferenceData, ZoneSet};
    use crate::zone::ZoneCode;

    #[test]
    fn countries_map_to_their_zones_and_zone_codes_win() {
        let z = ReferenceData::embedded(ZoneSet::Selected2026).zones;
        let names = |c: &str| {
            z.country_members(&ZoneCode::parse(c).unwrap()).map(|v| {
                v.into_iter()
                    .map(|i| z.code(i).as_str().to_string())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(names("DK").unwrap(), ["DK1", "DK2"]);
        assert_eq!(names("NO").unwrap().len(), 5);
        assert_eq!(names("SE").unwrap(), ["SE1", "SE2", "SE3", "SE4"]);
        assert_eq!(names("IT").unwrap().len(), 7);
        assert_eq!(names("GB"), None, "a bidding-zone code always wins");
        assert_eq!(names("DE"), None);
        assert_eq!(names("XX"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::ZoneCode;

    /// Kept inline, a code still orders, prints and goes through serde as the string it is.
    #[test]
    fn a_zone_code_behaves_as_its_string() {
        let codes = ["DE", "DE_LU", "D", "IT_CNOR", "NO2", "NO_1", "A-B", "Z"];
        let mut parsed: Vec<ZoneCode> = codes.iter().map(|c| ZoneCode::parse(c).unwrap()).collect();
        let mut strings: Vec<&str> = codes.to_vec();
        parsed.sort();
        strings.sort();
        let back: Vec<&str> = parsed.iter().map(ZoneCode::as_str).collect();
        assert_eq!(back, strings);

        let code = ZoneCode::parse(" it_north ").unwrap();
        assert_eq!(code.as_str(), "IT_NORTH");
        assert_eq!(code.to_string(), "IT_NORTH");
        assert_eq!(format!("{code:?}"), r#"ZoneCode("IT_NORTH")"#);
        assert_eq!(serde_json::to_string(&code).unwrap(), r#""IT_NORTH""#);
        let again: ZoneCode = serde_json::from_str(r#""IT_NORTH""#).unwrap();
        assert_eq!(again, code);
        let bytes = postcard::to_allocvec(&code).unwrap();
        assert_eq!(bytes, postcard::to_allocvec("IT_NORTH").unwrap());
        assert_eq!(postcard::from_bytes::<ZoneCode>(&bytes).unwrap(), code);

        let longest = "ABCDEFGHIJKLMNOP";
        assert_eq!(ZoneCode::parse(longest).unwrap().as_str(), longest);
        assert!(ZoneCode::parse("ABCDEFGHIJKLMNOPQ").is_none());
        assert!(ZoneCode::parse("").is_none());
        assert!(ZoneCode::parse("DE LU").is_none());
        let err = serde_json::from_str::<ZoneCode>(r#""ABCDEFGHIJKLMNOPQ""#).unwrap_err();
        assert!(err.to_string().contains("at most 16 bytes"), "{err}");
    }
}
