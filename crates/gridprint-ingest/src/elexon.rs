//! Great Britain's data from Elexon's Insights Solution API (BMRS, JSON, no key needed).
//!
//! Two half-hourly datasets, each value holding for the two 15-minute slots of its settlement period
//! (its UTC `startTime`); settlement dates are UK local days, so a UTC range is asked for up to the
//! settlement day after its last UTC date, rows kept by `startTime`, the latest `publishTime` winning:
//!
//! - generation per fuel type, `GET {base}/datasets/FUELHH?settlementDateFrom=…&settlementDateTo=…`
//!   (`fuelType`, `generation`), mapped by [`fuel_type`] (interconnectors and unknown fuel types
//!   skipped and counted);
//! - demand, `GET {base}/demand/outturn?…` (`initialDemandOutturn`): the load is the initial national
//!   demand outturn (INDO: transmission losses included, station load, pumping and interconnector
//!   exports excluded).
//!
//! And two forecasts ([`ElexonClient::fetch_forecasts`], [`parse_forecast`]) asked for by
//! publication time (`GET {base}/datasets/{WINDFOR|NDF}?publishDateTimeFrom=…&publishDateTimeTo=…`):
//! WINDFOR, wind generation (`generation`, hourly), and NDF, national demand comparable to INDO
//! (`boundary`, `demand`, half-hourly); each value dated by its `publishTime`.
use crate::http::{
    FetchError, FetchRetry, RequestBudget, body_head, get_with_retries, http_client, parsed_points,
};
use crate::request::{DataKind, FetchRequest, ForecastRequest, Target, split_range};
use crate::skip;
use crate::time_grid::{generation_points, push_official};
use gridprint_core::inputs::{DATASOURCE_ELEXON, InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange, format_timestamp, parse_timestamp};
use gridprint_core::tso_forecast::{
    PublishedForecast, TsoForecastKind, TsoForecastPoint, TsoForecastSeries,
};
use gridprint_core::zone::ZoneCode;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The public API's address.
pub const DEFAULT_BASE_URL: &str = "https://data.elexon.co.uk/bmrs/api/v1";

/// What a FUELHH fuel type is for gridprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuelType {
    Generation(ProductionType),
    /// An interconnector (`INT…`): a flow, skipped.
    Interconnector,
    Unknown,
}

/// Maps a FUELHH fuel type (case-insensitive). FUELHH does not split onshore from offshore wind:
/// its WIND is the transmission-metered wind fleet, largely offshore, reported as `wind_onshore`.
pub fn fuel_type(code: &str) -> FuelType {
    use ProductionType as P;
    let c = code.trim().to_ascii_uppercase();
    match c.as_str() {
        "CCGT" | "OCGT" => FuelType::Generation(P::Gas),
        "COAL" => FuelType::Generation(P::Coal),
        "NUCLEAR" => FuelType::Generation(P::Nuclear),
        "WIND" => FuelType::Generation(P::WindOnshore),
        "NPSHYD" => FuelType::Generation(P::HydroRiver),
        "PS" => FuelType::Generation(P::HydroPumpedStorage),
        "BIOMASS" => FuelType::Generation(P::Biomass),
        "OIL" => FuelType::Generation(P::Oil),
        "OTHER" => FuelType::Generation(P::Other),
        _ if c.starts_with("INT") => FuelType::Interconnector,
        _ => FuelType::Unknown,
    }
}

/// Points of one Elexon answer plus what was skipped and why (`interconnector:INTFR`,
/// `fuel-type:XYZ`, `negative-value:CCGT`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ElexonDocument {
    pub points: Vec<InputPoint>,
    pub skipped: BTreeMap<String, usize>,
}

/// Why an Elexon answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Elexon {dataset}: {message}")]
pub struct ElexonParseError {
    pub dataset: &'static str,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Rows<T> {
    Wrapped { data: Vec<T> },
    Bare(Vec<T>),
}

impl<T: serde::de::DeserializeOwned> Rows<T> {
    /// Reads the rows of an answer of `dataset` (`shape` names it in the error).
    fn read(body: &[u8], dataset: &'static str, shape: &str) -> Result<Self, ElexonParseError> {
        serde_json::from_slice(body).map_err(|e| ElexonParseError {
            dataset,
            message: format!("not the {shape} JSON shape: {e}"),
        })
    }
}

impl<T> Rows<T> {
    fn into_vec(self) -> Vec<T> {
        match self {
            Rows::Wrapped { data } | Rows::Bare(data) => data,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FuelRow {
    publish_time: Option<String>,
    start_time: String,
    fuel_type: String,
    generation: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DemandRow {
    publish_time: Option<String>,
    start_time: String,
    initial_demand_outturn: Option<f64>,
}

fn half_hour_start(dataset: &'static str, start_time: &str) -> Result<Slot, ElexonParseError> {
    let err = |m: String| ElexonParseError {
        dataset,
        message: m,
    };
    let t = parse_timestamp(start_time).map_err(|e| err(e.to_string()))?;
    Slot::from_unix_exact(t.unix_timestamp())
        .filter(|s| s.0 % 2 == 0)
        .ok_or_else(|| err(format!("startTime {start_time} is not on a half hour")))
}

/// A row of one dataset: the series and period its value belongs to, and when it was published.
trait Reading {
    type Key: Ord;
    /// The series and period (`dataset` names the answer in an error).
    fn key(&self, dataset: &'static str) -> Result<Self::Key, ElexonParseError>;
    /// MW; `None`: the row has no value.
    fn mw(&self) -> Option<f64>;
    fn publish_time(&self) -> &str;
    /// The row, as an error names it.
    fn describe(&self) -> String;
}

impl Reading for FuelRow {
    /// (fuel type, period start).
    type Key = (String, Slot);
    fn key(&self, dataset: &'static str) -> Result<(String, Slot), ElexonParseError> {
        let slot = half_hour_start(dataset, &self.start_time)?;
        Ok((self.fuel_type.trim().to_ascii_uppercase(), slot))
    }
    fn mw(&self) -> Option<f64> {
        self.generation
    }
    fn publish_time(&self) -> &str {
        self.publish_time.as_deref().unwrap_or_default()
    }
    fn describe(&self) -> String {
        format!("{} at {}", self.fuel_type, self.start_time)
    }
}

impl Reading for DemandRow {
    /// The period start.
    type Key = Slot;
    fn key(&self, dataset: &'static str) -> Result<Slot, ElexonParseError> {
        half_hour_start(dataset, &self.start_time)
    }
    fn mw(&self) -> Option<f64> {
        self.initial_demand_outturn
    }
    fn publish_time(&self) -> &str {
        self.publish_time.as_deref().unwrap_or_default()
    }
    fn describe(&self) -> String {
        self.start_time.clone()
    }
}

/// The latest value of each key, in MW. Elexon publishes a period again when it revises it: the
/// latest `publishTime` wins (of equal ones, the later row), and only then is the value judged
/// (a negative latest value is skipped by the caller, never replaced by an older one). A row
/// without a value is passed over; a value that is not a number fails the answer.
fn latest_values<R: Reading>(
    dataset: &'static str,
    rows: Vec<R>,
) -> Result<BTreeMap<R::Key, f64>, ElexonParseError> {
    let mut latest: BTreeMap<R::Key, (&str, f64)> = BTreeMap::new();
    for r in &rows {
        let key = r.key(dataset)?;
        let Some(mw) = r.mw() else { continue };
        if !mw.is_finite() {
            return Err(ElexonParseError {
                dataset,
                message: format!("{}: value is not a number", r.describe()),
            });
        }
        match latest.get(&key) {
            Some((p, _)) if *p > r.publish_time() => {}
            _ => {
                latest.insert(key, (r.publish_time(), mw));
            }
        }
    }
    Ok(latest.into_iter().map(|(k, (_, mw))| (k, mw)).collect())
}

/// Parses a FUELHH answer into generation points of `zone` within `range`.
pub fn parse_fuelhh(
    body: &[u8],
    zone: &ZoneCode,
    range: SlotRange,
) -> Result<ElexonDocument, ElexonParseError> {
    const DS: &str = "FUELHH";
    let rows: Rows<FuelRow> = Rows::read(body, DS, "FUELHH")?;
    let mut doc = ElexonDocument::default();
    let mut sums: BTreeMap<(ProductionType, Slot), f64> = BTreeMap::new();
    for ((fuel, slot), mw) in latest_values(DS, rows.into_vec())? {
        let pt = match fuel_type(&fuel) {
            FuelType::Generation(pt) => pt,
            FuelType::Interconnector => {
                skip::add(&mut doc.skipped, format!("interconnector:{fuel}"), 1);
                continue;
            }
            FuelType::Unknown => {
                skip::add(&mut doc.skipped, format!("fuel-type:{fuel}"), 1);
                continue;
            }
        };
        if mw < 0.0 {
            skip::add(&mut doc.skipped, skip::negative_value(&fuel), 1);
            continue;
        }
        *sums.entry((pt, slot)).or_insert(0.0) += mw;
    }
    generation_points(&mut doc.points, zone, sums, 2, range, DATASOURCE_ELEXON);
    Ok(doc)
}

/// Parses a demand outturn answer into load points of `zone` within `range`.
pub fn parse_demand_outturn(
    body: &[u8],
    zone: &ZoneCode,
    range: SlotRange,
) -> Result<ElexonDocument, ElexonParseError> {
    const DS: &str = "demand/outturn";
    let rows: Rows<DemandRow> = Rows::read(body, DS, "demand outturn")?;
    let mut doc = ElexonDocument::default();
    let key = InputKey::Load { zone: zone.clone() };
    for (slot, mw) in latest_values(DS, rows.into_vec())? {
        if mw < 0.0 {
            skip::add(&mut doc.skipped, skip::negative_value("INDO"), 1);
            continue;
        }
        push_official(&mut doc.points, &key, slot, 2, mw, range, DATASOURCE_ELEXON);
    }
    Ok(doc)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ForecastRow {
    publish_time: String,
    start_time: String,
    /// WINDFOR's value.
    generation: Option<f64>,
    /// NDF's value.
    demand: Option<f64>,
    /// NDF's boundary: `N` is the national demand.
    boundary: Option<String>,
}

/// A forecast dataset of Elexon's: what it forecasts and how many slots one of its values holds
/// at most (until the next value's start).
fn forecast_dataset(dataset: &str, zone: &ZoneCode) -> Option<(TsoForecastSeries, i64)> {
    let zone = zone.clone();
    match dataset {
        // WIND in FUELHH is read as onshore wind (see [`fuel_type`]); its forecast too.
        "WINDFOR" => Some((
            TsoForecastSeries::Generation {
                zone,
                production_type: ProductionType::WindOnshore,
            },
            4,
        )),
        "NDF" => Some((TsoForecastSeries::Load { zone }, 2)),
        _ => None,
    }
}

/// Parses a WINDFOR or NDF answer (`dataset`) into the day-ahead forecasts of `zone` within
/// `range`, each dated by its row's `publishTime`. Both publish many times a day: for each period
/// the latest row published before the period starts is kept (a later one is no forecast), and it
/// holds until the next period's start, for an hour at most (WINDFOR is hourly, NDF half-hourly).
/// NDF rows of another boundary than the national one (`N`) are passed over; negative values are
/// skipped and counted.
pub fn parse_forecast(
    body: &[u8],
    dataset: &'static str,
    zone: &ZoneCode,
    range: SlotRange,
) -> Result<ElexonForecasts, ElexonParseError> {
    let err = |message: String| ElexonParseError { dataset, message };
    let (series, max_slots) =
        forecast_dataset(dataset, zone).ok_or_else(|| err("not a forecast dataset".into()))?;
    let rows: Rows<ForecastRow> = Rows::read(body, dataset, dataset)?;
    let mut out = ElexonForecasts::default();
    // Per period start: (publication, value) of the latest row published before it.
    let mut chosen: BTreeMap<Slot, (i64, f64)> = BTreeMap::new();
    for r in rows.into_vec() {
        if r.boundary.as_deref().is_some_and(|b| b != "N") {
            continue;
        }
        let start = half_hour_start(dataset, &r.start_time)?;
        let published = parse_timestamp(&r.publish_time)
            .map_err(|e| err(format!("publishTime: {e}")))?
            .unix_timestamp();
        let Some(mw) = r.generation.or(r.demand) else {
            continue;
        };
        if !mw.is_finite() {
            return Err(err(format!("{}: value is not a number", r.start_time)));
        }
        if published >= start.start().unix_timestamp() {
            skip::add(&mut out.skipped, format!("published-late:{dataset}"), 1);
            continue;
        }
        match chosen.get(&start) {
            Some((p, _)) if *p > published => {}
            _ => {
                chosen.insert(start, (published, mw));
            }
        }
    }
    let starts: Vec<Slot> = chosen.keys().copied().collect();
    for (i, (start, (published_at, mw))) in chosen.into_iter().enumerate() {
        if mw < 0.0 {
            skip::add(&mut out.skipped, skip::negative_value(dataset), 1);
            continue;
        }
        let until = starts.get(i + 1).map_or(max_slots, |next| next.0 - start.0);
        for k in 0..until.min(max_slots) {
            let slot = start.offset(k);
            if range.contains(slot) {
                out.forecasts.push(PublishedForecast {
                    point: TsoForecastPoint {
                        series: series.clone(),
                        kind: TsoForecastKind::DayAhead,
                        slot,
                        mw,
                    },
                    published_at,
                });
            }
        }
    }
    Ok(out)
}

/// The forecasts of one WINDFOR or NDF answer and what was skipped (`published-late:WINDFOR`,
/// `negative-value:NDF`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ElexonForecasts {
    pub forecasts: Vec<PublishedForecast>,
    pub skipped: BTreeMap<String, usize>,
}

/// The path and query parameters of a forecast request's part: the dataset, asked by publication
/// time (`publishDateTimeFrom`/`To`, at most one day per request as NDF requires).
pub fn forecast_request_path(dataset: &str, published: SlotRange) -> (String, ElexonQuery) {
    (
        format!("datasets/{dataset}"),
        vec![
            (
                "publishDateTimeFrom",
                format_timestamp(published.start.start()),
            ),
            ("publishDateTimeTo", format_timestamp(published.end.start())),
            ("format", "json".into()),
        ],
    )
}

/// Configuration of an [`ElexonClient`].
#[derive(Debug, Clone)]
pub struct ElexonConfig {
    pub base_url: String,
    pub retry: FetchRetry,
    /// Elexon publishes no hard limit; we stay polite.
    pub requests_per_minute: u32,
}

impl Default for ElexonConfig {
    fn default() -> Self {
        ElexonConfig {
            base_url: DEFAULT_BASE_URL.to_string(),
            retry: FetchRetry::default(),
            requests_per_minute: 120,
        }
    }
}

/// A client of the Insights Solution API.
#[derive(Debug, Clone)]
pub struct ElexonClient {
    http: reqwest::Client,
    base: reqwest::Url,
    retry: FetchRetry,
    budget: RequestBudget,
}

/// Query parameters, in the order they are sent.
pub type ElexonQuery = Vec<(&'static str, String)>;

/// `yyyy-MM-dd` of a date.
fn date_param(d: time::Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month() as u8, d.day())
}

/// The path and query parameters of a request: settlement days from the UTC date of the range's
/// first slot to the day after the date of its last slot (UK local days straddle UTC midnight in
/// summer).
pub fn request_path(req: &FetchRequest) -> Result<(&'static str, ElexonQuery), String> {
    let path = match (&req.kind, &req.target) {
        (DataKind::Generation, Target::Zone(_)) => "datasets/FUELHH",
        (DataKind::Load, Target::Zone(_)) => "demand/outturn",
        (k, t) => return Err(format!("Elexon has no {k:?} for {t}")),
    };
    // A UTC instant lies in the settlement day of its UTC date or of the next one (BST), never earlier.
    let first = req.range.start.start().date();
    let last_slot = req.range.end.offset(-1).max(req.range.start);
    let last = last_slot
        .start()
        .date()
        .next_day()
        .unwrap_or(last_slot.start().date());
    Ok((
        path,
        vec![
            ("settlementDateFrom", date_param(first)),
            ("settlementDateTo", date_param(last)),
            ("format", "json".into()),
        ],
    ))
}

impl ElexonClient {
    pub fn new(config: ElexonConfig) -> Result<ElexonClient, String> {
        let mut base = reqwest::Url::parse(config.base_url.trim())
            .map_err(|e| format!("invalid Elexon URL '{}': {e}", config.base_url))?;
        if !base.path().ends_with('/') {
            let p = format!("{}/", base.path());
            base.set_path(&p);
        }
        Ok(ElexonClient {
            http: http_client(config.retry.timeout)?,
            base,
            retry: config.retry,
            budget: RequestBudget::per_minute(config.requests_per_minute),
        })
    }

    pub fn base_url(&self) -> &reqwest::Url {
        &self.base
    }

    /// Fetches one request (split into pieces of at most 7 days) and returns its points.
    pub async fn fetch(&self, req: &FetchRequest) -> Result<Vec<InputPoint>, FetchError> {
        req.fetch_in_parts(|part| async move { self.fetch_one(&part).await })
            .await
    }

    /// Fetches a forecast (WINDFOR or NDF) for the slots of `req`: the publications from a day
    /// before its first slot to its end, one day per request, each period's latest publication
    /// before it starts ([`parse_forecast`]).
    pub async fn fetch_forecasts(
        &self,
        req: &ForecastRequest,
    ) -> Result<Vec<PublishedForecast>, FetchError> {
        let label = req.describe();
        let dataset = req
            .data
            .elexon_dataset()
            .ok_or_else(|| FetchError::NotConfigured {
                request: label.clone(),
                message: "Elexon publishes no such forecast".into(),
            })?;
        let published = SlotRange::new(req.range.start.offset(-SLOTS_PER_DAY), req.range.end);
        let mut latest: BTreeMap<Slot, PublishedForecast> = BTreeMap::new();
        for part in split_range(published, SLOTS_PER_DAY) {
            let (path, params) = forecast_request_path(dataset, part);
            let body = self.get(&label, &path, &params).await?;
            let parsed = parse_forecast(&body, dataset, &req.zone, req.range);
            let forecasts = parsed_points(
                "Elexon",
                label.clone(),
                parsed.map(|d| (d.forecasts, d.skipped)),
                |e| {
                    tracing::warn!(request = %label, error = %e, body = %body_head(&body, 200), "malformed Elexon response: nothing stored");
                },
            )?;
            for f in forecasts {
                match latest.get(&f.point.slot) {
                    Some(held) if held.published_at > f.published_at => {}
                    _ => {
                        latest.insert(f.point.slot, f);
                    }
                }
            }
        }
        Ok(latest.into_values().collect())
    }

    /// GETs `path` with `params` and returns a successful answer's body.
    async fn get(
        &self,
        label: &str,
        path: &str,
        params: &ElexonQuery,
    ) -> Result<Vec<u8>, FetchError> {
        let mut url = self
            .base
            .join(path)
            .map_err(FetchError::not_configured(label))?;
        url.query_pairs_mut()
            .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())));
        let answer =
            get_with_retries(&self.http, &url, Some(&self.budget), &self.retry, label).await?;
        if !(200..300).contains(&answer.status) {
            return Err(FetchError::Refused {
                request: label.to_string(),
                status: answer.status,
                message: body_head(&answer.body, 200),
            });
        }
        Ok(answer.body)
    }

    async fn fetch_one(&self, req: &FetchRequest) -> Result<Vec<InputPoint>, FetchError> {
        let label = req.describe();
        let (path, params) = request_path(req).map_err(FetchError::not_configured(&label))?;
        let body = self.get(&label, path, &params).await?;
        let Target::Zone(zone) = &req.target else {
            unreachable!("checked by request_path")
        };
        let parsed = match req.kind {
            DataKind::Generation => parse_fuelhh(&body, zone, req.range),
            _ => parse_demand_outturn(&body, zone, req.range),
        };
        let parsed = parsed.map(|doc| (doc.points, doc.skipped));
        parsed_points("Elexon", label.clone(), parsed, |e| {
            tracing::warn!(request = %label, path, error = %e, body = %body_head(&body, 200), "malformed Elexon response: nothing stored");
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::zone::Provider;

    #[test]
    fn fuel_types_map_as_documented() {
        assert_eq!(fuel_type("ccgt"), FuelType::Generation(ProductionType::Gas));
        assert_eq!(fuel_type("OCGT"), FuelType::Generation(ProductionType::Gas));
        assert_eq!(
            fuel_type("WIND"),
            FuelType::Generation(ProductionType::WindOnshore)
        );
        assert_eq!(
            fuel_type("PS"),
            FuelType::Generation(ProductionType::HydroPumpedStorage)
        );
        assert_eq!(
            fuel_type("NPSHYD"),
            FuelType::Generation(ProductionType::HydroRiver)
        );
        assert_eq!(fuel_type("INTFR"), FuelType::Interconnector);
        assert_eq!(fuel_type("SOLARX"), FuelType::Unknown);
    }

    fn gb() -> ZoneCode {
        ZoneCode::parse("GB").unwrap()
    }

    fn day() -> SlotRange {
        let s = |t| Slot::containing(parse_timestamp(t).unwrap());
        SlotRange::new(s("2024-09-02T00:00Z"), s("2024-09-03T00:00Z"))
    }

    #[test]
    fn latest_publication_wins_before_its_value_is_judged() {
        // 00:00: revised to a negative value, which is skipped, not replaced by the older 21000.
        // 00:30: the later publication wins though it comes first; of two equal ones, the later row.
        let body = br#"{"data": [
            {"publishTime": "2024-09-02T00:40:00Z", "startTime": "2024-09-02T00:00:00Z", "initialDemandOutturn": 21000},
            {"publishTime": "2024-09-02T01:10:00Z", "startTime": "2024-09-02T00:00:00Z", "initialDemandOutturn": -5},
            {"publishTime": "2024-09-02T01:10:00Z", "startTime": "2024-09-02T00:30:00Z", "initialDemandOutturn": 20500},
            {"publishTime": "2024-09-02T01:00:00Z", "startTime": "2024-09-02T00:30:00Z", "initialDemandOutturn": 19000},
            {"publishTime": "2024-09-02T01:10:00Z", "startTime": "2024-09-02T00:30:00Z", "initialDemandOutturn": 20600},
            {"publishTime": "2024-09-02T01:40:00Z", "startTime": "2024-09-02T01:00:00Z", "initialDemandOutturn": null}
        ]}"#;
        let doc = parse_demand_outturn(body, &gb(), day()).unwrap();
        let values: Vec<(i64, f64)> = doc.points.iter().map(|p| (p.slot.0, p.mw)).collect();
        let half_past = Slot::containing(parse_timestamp("2024-09-02T00:30Z").unwrap()).0;
        assert_eq!(values, vec![(half_past, 20600.0), (half_past + 1, 20600.0)]);
        assert_eq!(doc.skipped.get("negative-value:INDO"), Some(&1));
        assert_eq!(doc.skipped.len(), 1);
    }

    #[test]
    fn fuel_rows_sum_per_production_type_and_skips_are_counted() {
        let row = |fuel: &str, mw: f64| {
            format!(
                r#"{{"publishTime": "2024-09-02T00:35:00Z", "startTime": "2024-09-02T00:00:00Z", "fuelType": "{fuel}", "generation": {mw}}}"#
            )
        };
        let rows = [
            row("CCGT", 7000.0),
            row("OCGT", 50.0),
            row("INTFR", 1500.0),
            row("SOLARX", 1.0),
            row("WIND", -3.0),
        ];
        let body = format!("[{}]", rows.join(","));
        let doc = parse_fuelhh(body.as_bytes(), &gb(), day()).unwrap();
        assert_eq!(doc.points.len(), 2, "gas in the two slots of the period");
        assert!(doc.points.iter().all(|p| p.mw == 7050.0));
        let skipped: Vec<(&str, usize)> =
            doc.skipped.iter().map(|(k, n)| (k.as_str(), *n)).collect();
        assert_eq!(
            skipped,
            vec![
                ("fuel-type:SOLARX", 1),
                ("interconnector:INTFR", 1),
                ("negative-value:WIND", 1)
            ]
        );
    }

    #[test]
    fn settlement_days_cover_uk_local_days() {
        let s = |t| Slot::containing(parse_timestamp(t).unwrap());
        let req = FetchRequest {
            provider: Provider::Elexon,
            kind: DataKind::Generation,
            target: Target::Zone(ZoneCode::parse("GB").unwrap()),
            range: SlotRange::new(s("2024-09-02T00:00Z"), s("2024-09-03T00:00Z")),
        };
        let (path, q) = request_path(&req).unwrap();
        assert_eq!(path, "datasets/FUELHH");
        assert_eq!(q[0], ("settlementDateFrom", "2024-09-02".to_string()));
        assert_eq!(q[1], ("settlementDateTo", "2024-09-03".to_string()));
    }

    #[test]
    fn a_forecast_is_the_latest_publication_before_its_period() {
        let s = |t| Slot::containing(parse_timestamp(t).unwrap());
        let row = |publish: &str, start: &str, mw: f64| {
            format!(r#"{{"publishTime": "{publish}", "startTime": "{start}", "generation": {mw}}}"#)
        };
        let rows = [
            row("2024-09-01T10:00:00Z", "2024-09-02T00:00:00Z", 100.0),
            row("2024-09-01T20:00:00Z", "2024-09-02T00:00:00Z", 200.0),
            // published after the period began: no forecast of it
            row("2024-09-02T00:30:00Z", "2024-09-02T00:00:00Z", 900.0),
            row("2024-09-01T20:00:00Z", "2024-09-02T01:00:00Z", -5.0),
            row("2024-09-01T20:00:00Z", "2024-09-02T02:00:00Z", 300.0),
        ];
        let body = format!("[{}]", rows.join(","));
        let range = SlotRange::new(s("2024-09-02T00:00Z"), s("2024-09-02T02:30Z"));
        let f = parse_forecast(body.as_bytes(), "WINDFOR", &gb(), range).unwrap();
        let got: Vec<(i64, f64, i64)> = f
            .forecasts
            .iter()
            .map(|p| (p.point.slot.0 - range.start.0, p.point.mw, p.published_at))
            .collect();
        let evening = parse_timestamp("2024-09-01T20:00Z")
            .unwrap()
            .unix_timestamp();
        assert_eq!(
            got,
            vec![
                (0, 200.0, evening),
                (1, 200.0, evening),
                (2, 200.0, evening),
                (3, 200.0, evening),
                (8, 300.0, evening),
                (9, 300.0, evening),
            ]
        );
        assert!(
            f.forecasts
                .iter()
                .all(|p| p.point.kind == TsoForecastKind::DayAhead
                    && p.point.series
                        == TsoForecastSeries::Generation {
                            zone: gb(),
                            production_type: ProductionType::WindOnshore
                        })
        );
        assert_eq!(f.skipped.get("published-late:WINDFOR"), Some(&1));
        assert_eq!(f.skipped.get("negative-value:WINDFOR"), Some(&1));
        let (path, q) = forecast_request_path("NDF", range);
        assert_eq!(path, "datasets/NDF");
        assert_eq!(
            q[0],
            ("publishDateTimeFrom", "2024-09-02T00:00:00Z".to_string())
        );
        assert!(parse_forecast(b"{}", "NDF", &gb(), range).is_err());
    }
}
