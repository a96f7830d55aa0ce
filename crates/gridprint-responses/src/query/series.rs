//! The queries of the endpoints of one location's series and holdings: `/zones` (no parameters),
//! `/generation` and `/mix` ([`ProductionQuery`]), `/load`, `/availability`, `/forecast-accuracy`.
//! The endpoints with a partner location are in `partners.rs`, those with aggregates in
//! `derived.rs`.

use super::parts::{Location, PairWriter, Period};
use super::read::{dates, location, location_and_window, production_type};
use super::{QueryContext, QueryError, QueryParams, WireQuery};
use crate::schema;
use gridprint_core::production::ProductionType;
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

/// `/zones`: every zone with its metadata and neighbours, sorted by zone (no parameters).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ZonesQuery;

impl WireQuery for ZonesQuery {
    fn parameters() -> Vec<Parameter> {
        Vec::new()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    fn from_pairs(_: &QueryParams<'_>, _: &dyn QueryContext) -> Result<Self, QueryError> {
        Ok(ZonesQuery)
    }
}

/// `/generation` (`MIX = false`: MW per production type) and `/mix` (`MIX = true`: MW per
/// production type consumed after flow tracing): the same parameters.
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProductionQuery<const MIX: bool> {
    #[param(ignore)]
    pub location: Option<Location>,
    #[param(ignore)]
    pub window: Option<Period>,
    /// Only this production type (case-insensitive). `hydro_pumped_storage` is not accepted as a
    /// filter here (400): pumped storage is not counted as generation in the flow tracing.
    #[param(value_type = Option<schema::ProductionFilterType>)]
    pub production_type: Option<ProductionType>,
}

/// `/generation`.
pub type GenerationQuery = ProductionQuery<false>;
/// `/mix`.
pub type MixQuery = ProductionQuery<true>;

impl<const MIX: bool> WireQuery for ProductionQuery<MIX> {
    fn parameters() -> Vec<Parameter> {
        [
            Location::parameters(""),
            Period::parameters(),
            Self::into_params(|| None),
        ]
        .concat()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .location("", &self.location)
            .period(&self.window)
            .text(
                "production_type",
                self.production_type.map(ProductionType::as_str),
            )
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, window) = location_and_window(p, ctx)?;
        Ok(ProductionQuery {
            location,
            window,
            production_type: production_type(p, false)?,
        })
    }
}

/// `/load`: MW consumed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadQuery {
    pub location: Option<Location>,
    pub window: Option<Period>,
}

impl WireQuery for LoadQuery {
    fn parameters() -> Vec<Parameter> {
        [Location::parameters(""), Period::parameters()].concat()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .location("", &self.location)
            .period(&self.window)
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, window) = location_and_window(p, ctx)?;
        Ok(LoadQuery { location, window })
    }
}

/// `/availability`: which zones and time ranges hold data: the time ranges held per zone, input
/// and for the outputs, as runs of one state, and the forecast's end. Its values are read as they
/// come (no type check ahead of the location), and the window has no length limit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AvailabilityQuery {
    pub location: Option<Location>,
    /// `None`: everything held.
    pub window: Option<Period>,
}

impl WireQuery for AvailabilityQuery {
    fn parameters() -> Vec<Parameter> {
        [Location::parameters(""), Period::held_parameters()].concat()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .location("", &self.location)
            .period(&self.window)
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let location = location(p, ctx, "")?;
        Ok(AvailabilityQuery {
            location,
            window: dates(p)?,
        })
    }
}

/// `/forecast-accuracy`: how far off the forecast has been, per zone, over the forecasts of the
/// last 7 and 30 days, per horizon band, beside persistence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForecastAccuracyQuery {
    /// `None`: every zone.
    pub location: Option<Location>,
}

impl WireQuery for ForecastAccuracyQuery {
    fn parameters() -> Vec<Parameter> {
        Location::parameters("")
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default().location("", &self.location).finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        Ok(ForecastAccuracyQuery {
            location: location(p, ctx, "")?,
        })
    }
}
