//! Keys of [`ParsedDocument::skipped`](crate::ParsedDocument::skipped): why values of a document
//! were not turned into points, and for which area.
//!
//! Every key is `reason:detail`. The detail is the provider's own identifier (an EIC code, a psrType,
//! a File Library production type name), so an operator can search the file for it. Counts are source
//! values: decoded positions of a TimeSeries (after A03 runs are expanded, before hourly values are
//! spread over 15-minute slots) or rows of a File Library extract. For flows the area detail is
//! `OUT->IN`.
//!
//! | key | meaning |
//! |---|---|
//! | `not-a-zone:<EIC>` | the area is not a gridprint zone (German control areas, IT/NO/SE/DK country totals…) |
//! | `consumption:<EIC>` | an A75 consumption series (`outBiddingZone_Domain`), e.g. pumping |
//! | `psr-type:<code>` | a psrType gridprint does not report (B25 energy storage…) |
//! | `production-type:<name>` | a File Library production type name gridprint does not know |
//! | `area-type:<code>` | a File Library AreaTypeCode other than BZN, CTY or CTA |
//! | `superseded-<TYPE>:<area>` | File Library rows of a less preferred area type (BZN > CTY > CTA) for a zone or border that has better rows in the same file |
//! | `empty-value:<area>` | a File Library row without a value |
//! | `negative-value:<area>` | a negative generation or load value (negative flows are an error) |
//! | `internal-flow:<area>` | a flow whose both ends are the same zone |
//! | `duplicate:<area>` | a second value for the same series and slot (the later value is kept) |

/// The area is not one of our zones.
pub fn not_a_zone(eic: &str) -> String {
    format!("not-a-zone:{eic}")
}

/// A consumption series in a generation-per-type document.
pub fn consumption(eic: &str) -> String {
    format!("consumption:{eic}")
}

/// An ENTSO-E psrType that maps to no production type we report.
pub fn psr_type(code: &str) -> String {
    format!("psr-type:{code}")
}

/// A File Library production type name we do not know.
pub fn production_type(name: &str) -> String {
    format!("production-type:{name}")
}

/// A File Library area type we do not read.
pub fn area_type(code: &str) -> String {
    format!("area-type:{code}")
}

/// Rows of a less preferred area type (`CTA`, or `CTY` when `BZN` rows exist).
pub fn superseded(area_type: &str, area: &str) -> String {
    format!("superseded-{area_type}:{area}")
}

/// A row without a value.
pub fn empty_value(area: &str) -> String {
    format!("empty-value:{area}")
}

/// A negative generation or load value.
pub fn negative_value(area: &str) -> String {
    format!("negative-value:{area}")
}

/// A flow from a zone to itself.
pub fn internal_flow(area: &str) -> String {
    format!("internal-flow:{area}")
}

/// A second value for the same series and slot.
pub fn duplicate(area: &str) -> String {
    format!("duplicate:{area}")
}

/// The area detail of a flow key: `OUT->IN`.
pub fn flow_area(out_eic: &str, in_eic: &str) -> String {
    format!("{out_eic}->{in_eic}")
}
