//! The typed methods of [`Client`]: one per `/v1` data path, plus `…_aggregate` where the endpoint
//! takes `aggregate=true`; each sends its request struct of [`crate::request`] and reads the
//! server's own response type (gridprint-responses). `/status` is in `lib.rs`.

use crate::request::{
    Aggregate, ApiRequest, AvailabilityQuery, BestWindowQuery, ExportsQuery, FactorsQuery,
    FlowShareQuery, FootprintShareQuery, FootprintsQuery, ForecastAccuracyQuery, GenerationQuery,
    ImpactShareQuery, ImpactsQuery, ImportsQuery, LoadQuery, MixQuery, MixShareQuery, ScoreQuery,
    ZonesQuery,
};
use crate::{Client, Result};
use gridprint_responses::{
    AvailabilityResult, BestWindow, ExportsResult, FactorAggregate, FactorResult, FlowShareResult,
    FootprintAggregate, FootprintResult, FootprintShareResult, ForecastAccuracy, GenerationResult,
    ImpactAggregate, ImpactResult, ImpactShareResult, ImportsResult, LoadResult, MixResult,
    MixShareResult, ScoreAggregate, ScoreResult, ZoneInfo,
};

impl Client {
    /// `/zones`: every zone with its metadata and neighbours, sorted by zone.
    pub async fn zones(&self) -> Result<Vec<ZoneInfo>> {
        self.get(&ZonesQuery).await
    }

    /// `/generation`: MW per production type.
    pub async fn generation(&self, r: &GenerationQuery) -> Result<Vec<GenerationResult>> {
        self.get(r).await
    }

    /// `/load`: MW consumed.
    pub async fn load(&self, r: &LoadQuery) -> Result<Vec<LoadResult>> {
        self.get(r).await
    }

    /// `/imports`: MW received per source zone.
    pub async fn imports(&self, r: &ImportsQuery) -> Result<Vec<ImportsResult>> {
        self.get(r).await
    }

    /// `/exports`: MW sent per destination zone.
    pub async fn exports(&self, r: &ExportsQuery) -> Result<Vec<ExportsResult>> {
        self.get(r).await
    }

    /// `/mix`: MW per production type consumed after flow tracing.
    pub async fn mix(&self, r: &MixQuery) -> Result<Vec<MixResult>> {
        self.get(r).await
    }

    /// `/footprints`: carbon and water footprints as series.
    pub async fn footprints(&self, r: &FootprintsQuery) -> Result<Vec<FootprintResult>> {
        self.get(r).await
    }

    /// `/footprints?aggregate=true`: one time-weighted average per item over the window (start and
    /// end required).
    pub async fn footprints_aggregate(
        &self,
        r: &FootprintsQuery,
    ) -> Result<Vec<FootprintAggregate>> {
        self.get(&Aggregate(r)).await
    }

    /// `/impacts`: water impact series.
    pub async fn impacts(&self, r: &ImpactsQuery) -> Result<Vec<ImpactResult>> {
        self.get(r).await
    }

    /// `/impacts?aggregate=true`: one time-weighted average per item over the window (start and
    /// end required).
    pub async fn impacts_aggregate(&self, r: &ImpactsQuery) -> Result<Vec<ImpactAggregate>> {
        self.get(&Aggregate(r)).await
    }

    /// `/green-score` (same answer as `/environmental-score`): 0–100 series.
    pub async fn green_score(&self, r: &ScoreQuery) -> Result<Vec<ScoreResult>> {
        self.get(r).await
    }

    /// `/environmental-score`: the same answer as `/green-score` ([`Client::green_score`]), under its other name.
    pub async fn environmental_score(&self, r: &ScoreQuery) -> Result<Vec<ScoreResult>> {
        self.get_at("environmental-score", &r.query()).await
    }

    /// `/green-score?aggregate=true`: one time-weighted average per item over the window (start and
    /// end required).
    pub async fn green_score_aggregate(&self, r: &ScoreQuery) -> Result<Vec<ScoreAggregate>> {
        self.get(&Aggregate(r)).await
    }

    /// `/flow-share`: % of generation consumed per destination.
    pub async fn flow_share(&self, r: &FlowShareQuery) -> Result<Vec<FlowShareResult>> {
        self.get(r).await
    }

    /// `/mix-share`: % of consumption per origin.
    pub async fn mix_share(&self, r: &MixShareQuery) -> Result<Vec<MixShareResult>> {
        self.get(r).await
    }

    /// `/footprint-share`: footprint parts per source zone.
    pub async fn footprint_share(
        &self,
        r: &FootprintShareQuery,
    ) -> Result<Vec<FootprintShareResult>> {
        self.get(r).await
    }

    /// `/impact-share`: water-impact parts per source zone.
    pub async fn impact_share(&self, r: &ImpactShareQuery) -> Result<Vec<ImpactShareResult>> {
        self.get(r).await
    }

    /// `/factors`: factors per production type and scope.
    pub async fn factors(&self, r: &FactorsQuery) -> Result<Vec<FactorResult>> {
        self.get(r).await
    }

    /// `/factors?aggregate=true`: one time-weighted average per item over the window (start and
    /// end required).
    pub async fn factors_aggregate(&self, r: &FactorsQuery) -> Result<Vec<FactorAggregate>> {
        self.get(&Aggregate(r)).await
    }

    /// `/best-window`: the best placements of a job over zones and the forecast, best
    /// first.
    pub async fn best_window(&self, r: &BestWindowQuery) -> Result<Vec<BestWindow>> {
        self.get(r).await
    }

    /// `/availability`: which zones and time ranges hold data: the time ranges held per
    /// zone, input and for the outputs, as runs of one state, and the forecast's end.
    pub async fn availability(&self, r: &AvailabilityQuery) -> Result<Vec<AvailabilityResult>> {
        self.get(r).await
    }

    /// `/forecast-accuracy`: how far off the forecast has been, per zone, over the forecasts of
    /// the last 7 and 30 days, per horizon band, beside persistence.
    pub async fn forecast_accuracy(
        &self,
        r: &ForecastAccuracyQuery,
    ) -> Result<Vec<ForecastAccuracy>> {
        self.get(r).await
    }
}
