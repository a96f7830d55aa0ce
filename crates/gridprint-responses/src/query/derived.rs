//! The queries of the endpoints with aggregates: `/footprints`, `/impacts`, the score endpoints
//! (one [`ScoreQuery`] for `/green-score` and `/environmental-score`), which share location,
//! window, `aggregate` and `use_global`, and `/factors` (no location). `aggregate=true` needs
//! `start` and `end` (400), except on `/factors`, whose factors then answer as series.

use super::parts::{ImpactType, Location, PairWriter, Period};
use super::read::{
    MAX_DAYS_ONE_ZONE, boolean, check_types, dates, footprint_type, impact_type,
    location_and_window, operational_scope, production_type, scope,
};
use super::{QueryContext, QueryError, QueryParams, WireQuery};
use crate::schema;
use gridprint_core::production::ProductionType;
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{SLOTS_PER_DAY, SlotRange};
use utoipa::IntoParams;
use utoipa::openapi::path::Parameter;

/// What a derived endpoint's query holds besides its own choices (`X`).
struct Derived<X> {
    location: Option<Location>,
    window: Option<Period>,
    own: X,
    aggregate: Option<bool>,
    use_global: Option<bool>,
}

/// Reads a derived endpoint's query in the order its errors are reported: the types, the location
/// and window, the endpoint's own parameters (`own`), then `use_global` and `aggregate`.
fn read_derived<X>(
    p: &QueryParams<'_>,
    ctx: &dyn QueryContext,
    own: impl FnOnce() -> Result<X, QueryError>,
) -> Result<Derived<X>, QueryError> {
    check_types(
        p,
        &["lat", "lon", "start", "end", "aggregate", "use_global"],
    )?;
    let (location, window) = location_and_window(p, ctx)?;
    let own = own()?;
    let use_global = boolean(p, "use_global")?;
    let aggregate = boolean(p, "aggregate")?;
    if aggregate == Some(true) && window.is_none() {
        return Err(QueryError::bad_request(
            "aggregate=true needs start and end",
        ));
    }
    Ok(Derived {
        location,
        window,
        own,
        aggregate,
        use_global,
    })
}

/// The location and window parameters, then those of `Q`'s own fields.
fn located_parameters<Q: IntoParams>() -> Vec<Parameter> {
    [
        Location::parameters(""),
        Period::parameters(),
        Q::into_params(|| None),
    ]
    .concat()
}

/// `/footprints`: carbon and water footprints, series or (`aggregate`) one time-weighted average
/// per zone and type.
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FootprintsQuery {
    #[param(ignore)]
    pub location: Option<Location>,
    #[param(ignore)]
    pub window: Option<Period>,
    /// `carbon` (gCO2/kWh) or `water` (l/kWh); default both.
    #[param(value_type = Option<schema::FootprintType>)]
    pub footprint_type: Option<FootprintType>,
    /// `life-cycle` (default) or `operational`.
    #[param(value_type = Option<schema::Scope>)]
    pub scope: Option<Scope>,
    /// `true`: one time-weighted average per zone and type over `[start, end]` instead of series
    /// (start and end required, else 400).
    pub aggregate: Option<bool>,
    /// `true` (default): global values, traced through imports (`coverage: global`); `false`: local
    /// values from the zone's own generation (`coverage: local`).
    pub use_global: Option<bool>,
}

impl WireQuery for FootprintsQuery {
    fn parameters() -> Vec<Parameter> {
        located_parameters::<Self>()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .location("", &self.location)
            .period(&self.window)
            .text(
                "footprint_type",
                self.footprint_type.map(FootprintType::as_str),
            )
            .text("scope", self.scope.map(Scope::as_str))
            .flag("use_global", self.use_global)
            .flag("aggregate", self.aggregate)
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let d = read_derived(p, ctx, || {
            Ok((footprint_type(p, "footprint_type")?, scope(p)?))
        })?;
        let (footprint_type, scope) = d.own;
        Ok(FootprintsQuery {
            location: d.location,
            window: d.window,
            footprint_type,
            scope,
            aggregate: d.aggregate,
            use_global: d.use_global,
        })
    }
}

/// `/impacts`: the water impact (operational), series or aggregates.
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImpactsQuery {
    #[param(ignore)]
    pub location: Option<Location>,
    #[param(ignore)]
    pub window: Option<Period>,
    /// Only `water` exists (default); `carbon` → 400.
    #[param(value_type = Option<schema::ImpactType>)]
    pub impact_type: Option<ImpactType>,
    /// Only `operational` (default); `life-cycle` → 400.
    #[param(value_type = Option<schema::OperationalScope>)]
    pub scope: Option<Scope>,
    /// `true`: time-weighted average over `[start, end]` (start and end required).
    pub aggregate: Option<bool>,
    /// `true` (default): global values; `false`: local.
    pub use_global: Option<bool>,
}

impl WireQuery for ImpactsQuery {
    fn parameters() -> Vec<Parameter> {
        located_parameters::<Self>()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .location("", &self.location)
            .period(&self.window)
            .text("impact_type", self.impact_type.map(ImpactType::as_str))
            .text("scope", self.scope.map(Scope::as_str))
            .flag("use_global", self.use_global)
            .flag("aggregate", self.aggregate)
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let d = read_derived(p, ctx, || {
            Ok((impact_type(p)?, operational_scope(p, "impacts")?))
        })?;
        let (impact_type, scope) = d.own;
        Ok(ImpactsQuery {
            location: d.location,
            window: d.window,
            impact_type,
            scope,
            aggregate: d.aggregate,
            use_global: d.use_global,
        })
    }
}

/// `/green-score` and `/environmental-score` (one answer under two names): the 0–100 score,
/// series or aggregates.
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ScoreQuery {
    #[param(ignore)]
    pub location: Option<Location>,
    #[param(ignore)]
    pub window: Option<Period>,
    /// Only `operational` (default); `life-cycle` → 400.
    #[param(value_type = Option<schema::OperationalScope>)]
    pub scope: Option<Scope>,
    /// `true`: time-weighted average over `[start, end]` (start and end required).
    pub aggregate: Option<bool>,
    /// `true` (default): the score of the global values; `false`: of the local values.
    pub use_global: Option<bool>,
}

impl WireQuery for ScoreQuery {
    fn parameters() -> Vec<Parameter> {
        located_parameters::<Self>()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .location("", &self.location)
            .period(&self.window)
            .text("scope", self.scope.map(Scope::as_str))
            .flag("use_global", self.use_global)
            .flag("aggregate", self.aggregate)
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, ctx: &dyn QueryContext) -> Result<Self, QueryError> {
        let d = read_derived(p, ctx, || operational_scope(p, "the score"))?;
        Ok(ScoreQuery {
            location: d.location,
            window: d.window,
            scope: d.own,
            aggregate: d.aggregate,
            use_global: d.use_global,
        })
    }
}

/// `/factors`: the factors per production type and scope (no location; `start`/`end` optional,
/// a series at most [`MAX_DAYS_ONE_ZONE`] days).
#[derive(Debug, Clone, Default, PartialEq, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FactorsQuery {
    #[param(ignore)]
    pub window: Option<Period>,
    /// `carbon` or `water`; default both.
    #[param(value_type = Option<schema::FootprintType>)]
    pub factor_type: Option<FootprintType>,
    /// `life-cycle` or `operational`; default both.
    #[param(value_type = Option<schema::Scope>)]
    pub scope: Option<Scope>,
    /// Only this production type (not `hydro_pumped_storage`: 400).
    #[param(value_type = Option<schema::ProductionType>)]
    pub production_type: Option<ProductionType>,
    /// `true` with start and end: one time-weighted average per factor over the window; without
    /// start and end the factors are answered as series.
    pub aggregate: Option<bool>,
}

impl WireQuery for FactorsQuery {
    fn parameters() -> Vec<Parameter> {
        [Period::parameters(), Self::into_params(|| None)].concat()
    }
    fn to_pairs(&self) -> Vec<(String, String)> {
        PairWriter::default()
            .period(&self.window)
            .text("factor_type", self.factor_type.map(FootprintType::as_str))
            .text("scope", self.scope.map(Scope::as_str))
            .text(
                "production_type",
                self.production_type.map(ProductionType::as_str),
            )
            .flag("aggregate", self.aggregate)
            .finish()
    }
    fn from_pairs(p: &QueryParams<'_>, _: &dyn QueryContext) -> Result<Self, QueryError> {
        check_types(p, &["start", "end", "aggregate"])?;
        let aggregate = boolean(p, "aggregate")?;
        let window = dates(p)?;
        if let Some(w) = window {
            let range = SlotRange::from_window(w.start, w.end);
            // A series has one point per slot and factor: the one-zone limit bounds it.
            if aggregate != Some(true) && range.len() as i64 > MAX_DAYS_ONE_ZONE * SLOTS_PER_DAY {
                return Err(QueryError::bad_request(format!(
                    "the requested range is too long for a series; at most {MAX_DAYS_ONE_ZONE} days per request are allowed (or ask for aggregate=true)"
                )));
            }
        }
        Ok(FactorsQuery {
            window,
            factor_type: footprint_type(p, "factor_type")?,
            scope: scope(p)?,
            production_type: production_type(p, false)?,
            aggregate,
        })
    }
}
