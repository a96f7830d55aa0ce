//! The queries of the endpoints of a zone and its partner zones: `/imports` (by source),
//! `/exports` and `/flow-share` (by destination), `/mix-share` (by origin), `/footprint-share`
//! and `/impact-share` (by source, with their own choices). A partner location has the primary
//! location's parameters under its prefix (`source_zone` XOR `source_lat` + `source_lon`).

use super::parts::{ImpactType, Location, PairWriter, Period};
use super::read::{
    check_types, footprint_type, impact_type, location, operational_scope, requested_zones, scope,
    window,
};
use super::{QueryContext, QueryError, QueryParams, WireQuery};
use crate::schema;
use gridprint_core::reference::{FootprintType, Scope};
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

/// What a partner endpoint's query names: the location, the partner location and the window.
pub type PartnerParts = (Option<Location>, Option<Location>, Option<Period>);

/// The primary location, the partner location under `prefix` and the window, read in that order
/// after the types of all of them.
fn read_partners(
    p: &QueryParams<'_>,
    ctx: &dyn QueryContext,
    prefix: &str,
) -> Result<PartnerParts, QueryError> {
    let (plat, plon) = (format!("{prefix}lat"), format!("{prefix}lon"));
    check_types(p, &["lat", "lon", &plat, &plon, "start", "end"])?;
    let primary = location(p, ctx, "")?;
    let partner = location(p, ctx, prefix)?;
    let window = window(p, requested_zones(&primary))?;
    Ok((primary, partner, window))
}

/// The document's parameters of a partner endpoint: location, partner location, window.
fn partner_parameters(prefix: &str) -> Vec<Parameter> {
    [
        Location::parameters(""),
        Location::parameters(prefix),
        Period::parameters(),
    ]
    .concat()
}

/// The pairs of a partner endpoint's location, partner location and window.
fn partner_pairs(
    location: &Option<Location>,
    prefix: &str,
    partner: &Option<Location>,
    window: &Option<Period>,
) -> PairWriter {
    PairWriter::default()
        .location("", location)
        .location(prefix, partner)
        .period(window)
}

/// `/imports`: MW received per source zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportsQuery {
    pub location: Option<Location>,
    /// Only these sources (`source_zone` / `source_lat` + `source_lon`).
    pub source: Option<Location>,
    pub window: Option<Period>,
}

impl WireQuery for ImportsQuery {
    fn parameters() -> Vec<Parameter> {
        partner_parameters("source_")
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        partner_pairs(&self.location, "source_", &self.source, &self.window).finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, source, window) = read_partners(p, ctx, "source_")?;
        Ok(ImportsQuery {
            location,
            source,
            window,
        })
    }
}

/// `/exports`: MW sent per destination zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportsQuery {
    pub location: Option<Location>,
    /// Only these destinations (`destination_zone` / `destination_lat` + `destination_lon`).
    pub destination: Option<Location>,
    pub window: Option<Period>,
}

impl WireQuery for ExportsQuery {
    fn parameters() -> Vec<Parameter> {
        partner_parameters("destination_")
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        partner_pairs(
            &self.location,
            "destination_",
            &self.destination,
            &self.window,
        )
        .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, destination, window) = read_partners(p, ctx, "destination_")?;
        Ok(ExportsQuery {
            location,
            destination,
            window,
        })
    }
}

/// `/flow-share`: % of generation consumed per destination.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowShareQuery {
    pub location: Option<Location>,
    pub destination: Option<Location>,
    pub window: Option<Period>,
}

impl WireQuery for FlowShareQuery {
    fn parameters() -> Vec<Parameter> {
        partner_parameters("destination_")
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        partner_pairs(
            &self.location,
            "destination_",
            &self.destination,
            &self.window,
        )
        .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, destination, window) = read_partners(p, ctx, "destination_")?;
        Ok(FlowShareQuery {
            location,
            destination,
            window,
        })
    }
}

/// `/mix-share`: % of consumption per origin.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MixShareQuery {
    pub location: Option<Location>,
    pub origin: Option<Location>,
    pub window: Option<Period>,
}

impl WireQuery for MixShareQuery {
    fn parameters() -> Vec<Parameter> {
        partner_parameters("origin_")
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        partner_pairs(&self.location, "origin_", &self.origin, &self.window).finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, origin, window) = read_partners(p, ctx, "origin_")?;
        Ok(MixShareQuery {
            location,
            origin,
            window,
        })
    }
}

/// `/footprint-share`: footprint parts per source zone.
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FootprintShareQuery {
    #[param(ignore)]
    pub location: Option<Location>,
    #[param(ignore)]
    pub source: Option<Location>,
    #[param(ignore)]
    pub window: Option<Period>,
    /// `carbon` or `water`; default both.
    #[param(value_type = Option<schema::FootprintType>)]
    pub footprint_type: Option<FootprintType>,
    /// `life-cycle` (default) or `operational`.
    #[param(value_type = Option<schema::Scope>)]
    pub scope: Option<Scope>,
}

impl WireQuery for FootprintShareQuery {
    fn parameters() -> Vec<Parameter> {
        [partner_parameters("source_"), Self::into_params(|| None)].concat()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        partner_pairs(&self.location, "source_", &self.source, &self.window)
            .text(
                "footprint_type",
                self.footprint_type.map(FootprintType::as_str),
            )
            .text("scope", self.scope.map(Scope::as_str))
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, source, window) = read_partners(p, ctx, "source_")?;
        Ok(FootprintShareQuery {
            location,
            source,
            window,
            footprint_type: footprint_type(p, "footprint_type")?,
            scope: scope(p)?,
        })
    }
}

/// `/impact-share`: water-impact parts per source zone.
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImpactShareQuery {
    #[param(ignore)]
    pub location: Option<Location>,
    #[param(ignore)]
    pub source: Option<Location>,
    #[param(ignore)]
    pub window: Option<Period>,
    /// Only `water` (default); `carbon` → 400.
    #[param(value_type = Option<schema::ImpactType>)]
    pub impact_type: Option<ImpactType>,
    /// Only `operational` (default); `life-cycle` → 400.
    #[param(value_type = Option<schema::OperationalScope>)]
    pub scope: Option<Scope>,
}

impl WireQuery for ImpactShareQuery {
    fn parameters() -> Vec<Parameter> {
        [partner_parameters("source_"), Self::into_params(|| None)].concat()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        partner_pairs(&self.location, "source_", &self.source, &self.window)
            .text("impact_type", self.impact_type.map(ImpactType::as_str))
            .text("scope", self.scope.map(Scope::as_str))
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let (location, source, window) = read_partners(p, ctx, "source_")?;
        Ok(ImpactShareQuery {
            location,
            source,
            window,
            impact_type: impact_type(p)?,
            scope: operational_scope(p, "impact shares")?,
        })
    }
}
