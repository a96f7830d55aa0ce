//! Production types: the 16 kinds of generation the API reports, and how provider codes map to them.
//!
//! ENTSO-E names generation by psrType code (B01…B20) in its API and by long names in the File Library;
//! gridprint folds them into its own types (coal = lignite + hard coal + peat, gas = coal-derived gas +
//! fossil gas, oil = oil + oil shale). Pumped storage is reported as generation but is excluded from a
//! zone's total generation in the flow tracing, and is not accepted as a filter.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A kind of generation, in the API's spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum ProductionType {
    Biomass = 0,
    Coal,
    Gas,
    Geothermal,
    HydroPumpedStorage,
    HydroReservoir,
    HydroRiver,
    Marine,
    Nuclear,
    Oil,
    Other,
    OtherRenewable,
    Solar,
    Waste,
    WindOffshore,
    WindOnshore,
}

/// Number of production types.
pub const N_TYPES: usize = 16;

impl ProductionType {
    /// All types in API (alphabetical) order; `ALL[t as usize] == t`.
    pub const ALL: [ProductionType; N_TYPES] = [
        Self::Biomass,
        Self::Coal,
        Self::Gas,
        Self::Geothermal,
        Self::HydroPumpedStorage,
        Self::HydroReservoir,
        Self::HydroRiver,
        Self::Marine,
        Self::Nuclear,
        Self::Oil,
        Self::Other,
        Self::OtherRenewable,
        Self::Solar,
        Self::Waste,
        Self::WindOffshore,
        Self::WindOnshore,
    ];

    /// Index into per-type arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The type at an array index.
    pub fn from_index(i: usize) -> Option<ProductionType> {
        Self::ALL.get(i).copied()
    }

    /// API spelling, e.g. `wind_onshore`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Biomass => "biomass",
            Self::Coal => "coal",
            Self::Gas => "gas",
            Self::Geothermal => "geothermal",
            Self::HydroPumpedStorage => "hydro_pumped_storage",
            Self::HydroReservoir => "hydro_reservoir",
            Self::HydroRiver => "hydro_river",
            Self::Marine => "marine",
            Self::Nuclear => "nuclear",
            Self::Oil => "oil",
            Self::Other => "other",
            Self::OtherRenewable => "other_renewable",
            Self::Solar => "solar",
            Self::Waste => "waste",
            Self::WindOffshore => "wind_offshore",
            Self::WindOnshore => "wind_onshore",
        }
    }

    /// Parses the API spelling, case-insensitively (`Wind_Onshore` works; `wind onshore` and
    /// `wind-onshore` too).
    pub fn parse_api(s: &str) -> Option<ProductionType> {
        let norm: String = s
            .trim()
            .chars()
            .map(|c| {
                if c == ' ' || c == '-' {
                    '_'
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        Self::ALL.into_iter().find(|t| t.as_str() == norm)
    }

    /// Maps an ENTSO-E psrType code (B01…B20). `None` for codes that are not generation types we
    /// report (e.g. B25 energy storage).
    pub fn from_psr_type(code: &str) -> Option<ProductionType> {
        let code = code.trim();
        psr_type_where(|(c, _, _)| *c == code)
    }

    /// Maps an ENTSO-E File Library production type name (e.g. `Fossil Brown coal/Lignite`).
    pub fn from_file_library_name(name: &str) -> Option<ProductionType> {
        let name = name.trim();
        psr_type_where(|(_, n, _)| *n == name)
    }

    /// Maps the names used in the reference factor files (`Hydro River`, `Other renewable`, …).
    pub fn from_reference_name(name: &str) -> Option<ProductionType> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "biomass" => Self::Biomass,
            "coal" => Self::Coal,
            "gas" => Self::Gas,
            "geothermal" => Self::Geothermal,
            "hydro pumped storage" => Self::HydroPumpedStorage,
            "hydro reservoir" => Self::HydroReservoir,
            "hydro river" => Self::HydroRiver,
            "marine" => Self::Marine,
            "nuclear" => Self::Nuclear,
            "oil" => Self::Oil,
            "other" => Self::Other,
            "other renewable" => Self::OtherRenewable,
            "solar" => Self::Solar,
            "waste" => Self::Waste,
            "wind offshore" => Self::WindOffshore,
            "wind onshore" => Self::WindOnshore,
            _ => return None,
        })
    }

    /// Whether this type counts in a zone's total generation G (pumped storage does not).
    pub fn counts_in_total(self) -> bool {
        self != Self::HydroPumpedStorage
    }
}

/// ENTSO-E's generation psrTypes: the code (A75 documents), the name the File Library writes, and
/// the production type it counts as.
const PSR_TYPES: [(&str, &str, ProductionType); 20] = {
    use ProductionType::*;
    [
        ("B01", "Biomass", Biomass),
        ("B02", "Fossil Brown coal/Lignite", Coal),
        ("B03", "Fossil Coal-derived gas", Gas),
        ("B04", "Fossil Gas", Gas),
        ("B05", "Fossil Hard coal", Coal),
        ("B06", "Fossil Oil", Oil),
        ("B07", "Fossil Oil shale", Oil),
        ("B08", "Fossil Peat", Coal),
        ("B09", "Geothermal", Geothermal),
        ("B10", "Hydro Pumped Storage", HydroPumpedStorage),
        ("B11", "Hydro Run-of-river and poundage", HydroRiver),
        ("B12", "Hydro Water Reservoir", HydroReservoir),
        ("B13", "Marine", Marine),
        ("B14", "Nuclear", Nuclear),
        ("B15", "Other renewable", OtherRenewable),
        ("B16", "Solar", Solar),
        ("B17", "Waste", Waste),
        ("B18", "Wind Offshore", WindOffshore),
        ("B19", "Wind Onshore", WindOnshore),
        ("B20", "Other", Other),
    ]
};

/// The production type of the first row of [`PSR_TYPES`] that `row` accepts.
fn psr_type_where(row: impl Fn(&(&str, &str, ProductionType)) -> bool) -> Option<ProductionType> {
    PSR_TYPES.iter().find(|r| row(r)).map(|(_, _, t)| *t)
}

impl fmt::Display for ProductionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_roundtrip_and_spelling() {
        for (i, t) in ProductionType::ALL.iter().enumerate() {
            assert_eq!(t.index(), i);
            assert_eq!(ProductionType::parse_api(t.as_str()), Some(*t));
            assert_eq!(
                ProductionType::parse_api(&t.as_str().to_uppercase()),
                Some(*t)
            );
        }
        assert_eq!(ProductionType::parse_api("nope"), None);
    }

    #[test]
    fn folds_provider_codes() {
        use ProductionType::{Coal, Gas, Oil};
        let codes = [
            ("B02", Some(Coal)),
            ("B08", Some(Coal)),
            ("B03", Some(Gas)),
            ("B07", Some(Oil)),
            ("B25", None),
        ];
        for (code, expected) in codes {
            assert_eq!(ProductionType::from_psr_type(code), expected, "{code}");
        }
        assert_eq!(
            ProductionType::from_file_library_name("Fossil Peat"),
            Some(Coal)
        );
    }
}
