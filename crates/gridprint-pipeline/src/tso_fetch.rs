//! The TSOs' forecasts fetched into the store: the requests of every configured provider for the
//! zones asked ([`requests`]), sent a few at a time, and what came back stored with its
//! publication time in `tso_forecast`, apart from the actual inputs ([`fetch_and_store`]).
//!
//! The worker calls it every cycle for a bounded look-ahead ([`LOOK_AHEAD_SLOTS`] from the current
//! slot: a day-ahead forecast covers the next delivery day at most); `gridprint ingest … --kinds`
//! backfills a range with it. A failed request stores nothing of it and is returned, never an
//! error: the forecast then falls back to the model (`crate::worker` logs that once). The values'
//! publication times come from the clients (`gridprint_ingest::entsoe_api`, `elexon`).

use futures_util::StreamExt as _;
use gridprint_core::slot::{SLOTS_PER_DAY, SlotRange};
use gridprint_core::tso_forecast::PublishedForecast;
use gridprint_core::zone::{Provider, ZoneCode, Zones};
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::http::FetchError;
use gridprint_ingest::request::{ForecastData, ForecastRequest, forecast_requests};
use gridprint_store::{SharedStore, StoreError, UpsertSummary};
use tokio_util::sync::CancellationToken;

/// How far ahead of the current slot the worker asks for TSO forecasts: two days.
pub const LOOK_AHEAD_SLOTS: i64 = 2 * SLOTS_PER_DAY;

/// What [`fetch_and_store`] did.
#[derive(Debug, Default)]
pub struct TsoFetchReport {
    pub requests: usize,
    /// Each request with the number of values it brought (0: none published), or its error.
    pub answers: Vec<(ForecastRequest, Result<usize, FetchError>)>,
    /// Values fetched.
    pub fetched: usize,
    pub stored: UpsertSummary,
}

impl TsoFetchReport {
    /// The requests that failed.
    pub fn failed(&self) -> impl Iterator<Item = (&ForecastRequest, &FetchError)> {
        self.answers
            .iter()
            .filter_map(|(r, a)| a.as_ref().err().map(|e| (r, e)))
    }
}

/// The TSO forecast requests of every provider `fetcher` serves, for `data` over `range` (widened
/// to whole hours), restricted to `only` when given.
pub fn requests(
    fetcher: &Fetcher,
    zones: &Zones,
    data: &[ForecastData],
    only: Option<&[ZoneCode]>,
    range: SlotRange,
) -> Vec<ForecastRequest> {
    let range = gridprint_ingest::request::whole_hours(range);
    [Provider::Entsoe, Provider::Elexon]
        .into_iter()
        .filter(|p| fetcher.serves(*p))
        .flat_map(|p| forecast_requests(zones, p, data, only, range))
        .collect()
}

/// Sends `requests`, `concurrency` at a time, and stores every value that came back in one
/// transaction stamped `updated_at`. Fails only when the store does; once `cancel` fires no new
/// request starts.
pub async fn fetch_and_store(
    fetcher: &Fetcher,
    store: SharedStore,
    requests: Vec<ForecastRequest>,
    concurrency: usize,
    updated_at: i64,
    cancel: &CancellationToken,
) -> Result<TsoFetchReport, StoreError> {
    let mut report = TsoFetchReport {
        requests: requests.len(),
        ..TsoFetchReport::default()
    };
    let mut values: Vec<PublishedForecast> = Vec::new();
    let mut answers = futures_util::stream::iter(requests.into_iter().map(|req| async move {
        let answer = if cancel.is_cancelled() {
            Err(FetchError::Cancelled {
                request: req.describe(),
            })
        } else {
            fetcher.fetch_forecasts(&req).await
        };
        (req, answer)
    }))
    .buffer_unordered(concurrency.max(1));
    while let Some((req, answer)) = answers.next().await {
        let counted = answer.map(|v| {
            let n = v.len();
            values.extend(v);
            n
        });
        report.answers.push((req, counted));
    }
    report.fetched = values.len();
    if !values.is_empty() {
        report.stored =
            tokio::task::spawn_blocking(move || store.upsert_tso_forecasts(&values, updated_at))
                .await
                .map_err(|e| StoreError::Other(format!("storing TSO forecasts: {e}")))??;
    }
    Ok(report)
}
