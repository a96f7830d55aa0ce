//! The providers behind one interface: a [`Fetcher`] holds the configured clients and sends each
//! [`FetchRequest`] to the right one, many at a time, and each TSO forecast [`ForecastRequest`]
//! ([`Fetcher::fetch_forecasts`]).
//!
//! A provider that is not configured (no ENTSO-E token, no EPIAS account, Elexon switched off) answers every request
//! with [`FetchError::NotConfigured`], so the worker and the backfill treat it like an outage: the
//! affected zones lack provider data and the estimator and the forecast take over.

use crate::elexon::ElexonClient;
use crate::entsoe_api::EntsoeClient;
use crate::epias::EpiasClient;
use crate::http::FetchError;
use crate::request::{FetchRequest, ForecastRequest};
use futures_util::StreamExt as _;
use gridprint_core::inputs::InputPoint;
use gridprint_core::tso_forecast::PublishedForecast;
use gridprint_core::zone::Provider;
use tokio_util::sync::CancellationToken;

/// The configured provider clients.
#[derive(Debug, Clone, Default)]
pub struct Fetcher {
    pub entsoe: Option<EntsoeClient>,
    pub elexon: Option<ElexonClient>,
    pub epias: Option<EpiasClient>,
}

impl Fetcher {
    /// Whether requests to `provider` can be sent at all.
    pub fn serves(&self, provider: Provider) -> bool {
        match provider {
            Provider::Entsoe => self.entsoe.as_ref().is_some_and(|c| c.has_token()),
            Provider::Elexon => self.elexon.is_some(),
            Provider::Epias => self.epias.as_ref().is_some_and(|c| c.has_credentials()),
        }
    }

    /// Fetches one request from its provider.
    pub async fn fetch(&self, req: &FetchRequest) -> Result<Vec<InputPoint>, FetchError> {
        let not_configured = |what: &str| FetchError::NotConfigured {
            request: req.describe(),
            message: format!("{what} is not configured"),
        };
        match req.provider {
            Provider::Entsoe => match &self.entsoe {
                Some(c) => c.fetch(req).await,
                None => Err(not_configured("the ENTSO-E client")),
            },
            Provider::Elexon => match &self.elexon {
                Some(c) => c.fetch(req).await,
                None => Err(not_configured("the Elexon client")),
            },
            Provider::Epias => match &self.epias {
                Some(c) => c.fetch(req).await,
                None => Err(not_configured("the EPIAS client")),
            },
        }
    }

    /// Fetches one TSO forecast request from its provider (ENTSO-E or Elexon).
    pub async fn fetch_forecasts(
        &self,
        req: &ForecastRequest,
    ) -> Result<Vec<PublishedForecast>, FetchError> {
        let not_configured = |what: &str| FetchError::NotConfigured {
            request: req.describe(),
            message: format!("{what} is not configured"),
        };
        match req.provider {
            Provider::Entsoe => match &self.entsoe {
                Some(c) => c.fetch_forecasts(req).await,
                None => Err(not_configured("the ENTSO-E client")),
            },
            Provider::Elexon => match &self.elexon {
                Some(c) => c.fetch_forecasts(req).await,
                None => Err(not_configured("the Elexon client")),
            },
            Provider::Epias => Err(not_configured("a TSO forecast of EPIAS")),
        }
    }

    /// Fetches many requests, at most `concurrency` at a time, yielding each result as it completes
    /// (in completion order). Once `cancel` fires no new request starts and requests under way are
    /// dropped with [`FetchError::Cancelled`].
    pub fn fetch_stream<'a>(
        &'a self,
        requests: Vec<FetchRequest>,
        concurrency: usize,
        cancel: &'a CancellationToken,
    ) -> impl futures_util::Stream<Item = (FetchRequest, Result<Vec<InputPoint>, FetchError>)> + 'a
    {
        futures_util::stream::iter(requests.into_iter().map(move |req| async move {
            if cancel.is_cancelled() {
                let e = FetchError::Cancelled {
                    request: req.describe(),
                };
                return (req, Err(e));
            }
            let r = tokio::select! {
                r = self.fetch(&req) => r,
                () = cancel.cancelled() => Err(FetchError::Cancelled { request: req.describe() }),
            };
            (req, r)
        }))
        .buffer_unordered(concurrency.max(1))
    }
}
