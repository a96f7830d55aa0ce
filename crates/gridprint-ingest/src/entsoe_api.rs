//! The ENTSO-E Transparency Platform REST client: asks for A75 (actual generation per type), A65
//! (actual total load) and A11 (physical flows) documents and parses them with [`crate::entsoe_xml`];
//! and for the TSOs' forecasts ([`EntsoeClient::fetch_forecasts`]: A69, A65 A01, A71,
//! [`forecast_query_params`]), dated by the regulation's deadlines or the document's creation.
//!
//! Query parameters are the public API's: `securityToken`, `documentType`, `processType=A16` for A75
//! and A65, the area (`in_Domain` for A75, `outBiddingZone_Domain` for A65, `in_Domain` and
//! `out_Domain` for A11) and `periodStart`/`periodEnd` as `yyyyMMddHHmm` in UTC. Periods are whole
//! hours and never longer than a year ([`FetchRequest::split`]). Every attempt takes a token from a
//! shared [`RequestBudget`] (400 requests per minute by default, ENTSO-E's limit per token) and
//! timeouts, 5xx and 429 are retried with backoff ([`crate::http`]).
//!
//! Answers: a data document gives its points (only those of the asked-for series and period); an
//! acknowledgement "no matching data" — under 200 or 400 — is an empty answer; any other
//! acknowledgement is a refusal; a document we cannot parse is logged with the request (token
//! redacted) and gives an error, so nothing of it is stored. A token the platform refuses (401/403)
//! is remembered by the client and its clones: no further request is sent with it, so a wrong or
//! revoked token costs the platform one refused request, not one per zone and document type.
//!
//! The token lives in an [`EntsoeToken`] (`Debug` prints `***`), written only into the outgoing query.

use crate::document::ParsedDocument;
use crate::error::ParseError;
use crate::http::{
    FetchError, FetchRetry, RequestBudget, body_head, get_with_retries, http_client,
};
use crate::request::{
    DataKind, ENTSOE_MAX_SPAN_SLOTS, FetchRequest, ForecastRequest, Target, split_range,
    whole_hours,
};
use gridprint_core::inputs::InputPoint;
use gridprint_core::secret::Secret;
use gridprint_core::slot::Slot;
use gridprint_core::tso_forecast::{PublicationDeadlines, PublishedForecast};
use gridprint_core::zone::{Provider, Zone, Zones};
use std::fmt;
use std::sync::Arc;

/// The public API's address.
pub const DEFAULT_BASE_URL: &str = "https://web-api.tp.entsoe.eu/api";
/// ENTSO-E's request limit per token and minute.
pub const DEFAULT_REQUESTS_PER_MINUTE: u32 = 400;

/// EIC codes to query instead of a zone's own: Germany's data is published for the DE-LU bidding
/// zone (the parser maps that EIC back to DE).
const QUERY_EIC_OVERRIDES: &[(&str, &str)] = &[("DE", "10Y1001A1001A82H")];

/// The EIC code to put in a query for a zone.
pub fn query_eic(zone: &Zone) -> &str {
    QUERY_EIC_OVERRIDES
        .iter()
        .find(|(code, _)| *code == zone.code.as_str())
        .map(|(_, eic)| *eic)
        .unwrap_or(zone.eic_code.as_str())
}

/// The Transparency Platform security token. Never printed: `Debug` shows
/// `EntsoeToken(<redacted>)`, and there is no `Display`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EntsoeToken(Secret);

impl EntsoeToken {
    /// `None` for an empty or blank token.
    pub fn new(token: impl Into<String>) -> Option<EntsoeToken> {
        let t = token.into().trim().to_string();
        (!t.is_empty()).then(|| EntsoeToken(Secret::new(t)))
    }
    fn expose(&self) -> &str {
        self.0.expose()
    }
}

impl std::str::FromStr for EntsoeToken {
    type Err = String;
    /// For command-line parsers; a blank token is an error.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EntsoeToken::new(s).ok_or_else(|| "the ENTSO-E token is empty".to_string())
    }
}

/// Formats a slot as ENTSO-E's `yyyyMMddHHmm` (UTC).
pub fn period_param(slot: Slot) -> String {
    let t = slot.start();
    format!(
        "{:04}{:02}{:02}{:02}{:02}",
        t.year(),
        t.month() as u8,
        t.day(),
        t.hour(),
        t.minute()
    )
}

/// The query parameters of a request, without the token, in the order they are sent.
pub fn query_params(
    req: &FetchRequest,
    zones: &Zones,
) -> Result<Vec<(&'static str, String)>, String> {
    let zone = |code| {
        zones
            .index_of(code)
            .map(|i| zones.get(i))
            .ok_or_else(|| format!("zone {code} is not in the reference data"))
    };
    let mut q: Vec<(&'static str, String)> =
        vec![("documentType", req.kind.entsoe_document_type().to_string())];
    match (&req.kind, &req.target) {
        (DataKind::Generation, Target::Zone(z)) => {
            q.push(("processType", "A16".into()));
            q.push(("in_Domain", query_eic(zone(z)?).to_string()));
        }
        (DataKind::Load, Target::Zone(z)) => {
            q.push(("processType", "A16".into()));
            q.push(("outBiddingZone_Domain", query_eic(zone(z)?).to_string()));
        }
        (DataKind::Flows, Target::Border { from, to }) => {
            q.push(("in_Domain", query_eic(zone(to)?).to_string()));
            q.push(("out_Domain", query_eic(zone(from)?).to_string()));
        }
        (k, t) => return Err(format!("{k:?} cannot be asked for {t}")),
    }
    q.push(("periodStart", period_param(req.range.start)));
    q.push(("periodEnd", period_param(req.range.end)));
    Ok(q)
}

/// The query parameters of a TSO forecast request, without the token, in the order they are sent:
/// `documentType` and `processType` ([`ForecastData::entsoe_document`]), the area (`in_Domain` for
/// A69 and A71, `outBiddingZone_Domain` for A65), `periodStart`/`periodEnd` (the range in whole
/// hours).
pub fn forecast_query_params(
    req: &ForecastRequest,
    zones: &Zones,
) -> Result<Vec<(&'static str, String)>, String> {
    let zone = zones
        .index_of(&req.zone)
        .map(|i| zones.get(i))
        .ok_or_else(|| format!("zone {} is not in the reference data", req.zone))?;
    let (document, process) = req.data.entsoe_document();
    let area = match document {
        "A65" => "outBiddingZone_Domain",
        _ => "in_Domain",
    };
    let range = whole_hours(req.range);
    Ok(vec![
        ("documentType", document.to_string()),
        ("processType", process.to_string()),
        (area, query_eic(zone).to_string()),
        ("periodStart", period_param(range.start)),
        ("periodEnd", period_param(range.end)),
    ])
}

/// Configuration of an [`EntsoeClient`].
#[derive(Debug, Clone)]
pub struct EntsoeConfig {
    pub base_url: String,
    pub token: Option<EntsoeToken>,
    pub retry: FetchRetry,
    pub requests_per_minute: u32,
}

impl Default for EntsoeConfig {
    fn default() -> Self {
        EntsoeConfig {
            base_url: DEFAULT_BASE_URL.to_string(),
            token: None,
            retry: FetchRetry::default(),
            requests_per_minute: DEFAULT_REQUESTS_PER_MINUTE,
        }
    }
}

/// A client of the Transparency Platform API. Clones share the HTTP connection pool and the request
/// budget.
#[derive(Clone)]
pub struct EntsoeClient {
    http: reqwest::Client,
    base: reqwest::Url,
    token: Option<EntsoeToken>,
    retry: FetchRetry,
    budget: RequestBudget,
    zones: Arc<Zones>,
    /// The status of the platform's refusal of the token (401 or 403), once it came: every later
    /// request fails with it unsent, as EPIAS's rejected login does.
    rejected: Arc<std::sync::OnceLock<u16>>,
}

impl fmt::Debug for EntsoeClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntsoeClient")
            .field("base", &self.base.as_str())
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("budget", &self.budget)
            .finish()
    }
}

impl EntsoeClient {
    /// Builds a client. Fails on an unparsable base URL.
    pub fn new(config: EntsoeConfig, zones: Arc<Zones>) -> Result<EntsoeClient, String> {
        let base = reqwest::Url::parse(config.base_url.trim())
            .map_err(|e| format!("invalid ENTSO-E URL '{}': {e}", config.base_url))?;
        Ok(EntsoeClient {
            http: http_client(config.retry.timeout)?,
            base,
            token: config.token,
            retry: config.retry,
            budget: RequestBudget::per_minute(config.requests_per_minute),
            zones,
            rejected: Arc::default(),
        })
    }

    /// Whether a token is configured (without one every request fails with `NotConfigured`).
    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// The base URL (no secret in it).
    pub fn base_url(&self) -> &reqwest::Url {
        &self.base
    }

    fn url(&self, params: &[(&'static str, String)], token: &str) -> reqwest::Url {
        let mut url = self.base.clone();
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("securityToken", token);
            for (k, v) in params {
                q.append_pair(k, v);
            }
        }
        url
    }

    /// The URL of a request with the token replaced by `***`, for logs.
    pub fn redacted_url(&self, req: &FetchRequest) -> String {
        match query_params(req, &self.zones) {
            Ok(p) => self.url(&p, "***").to_string(),
            Err(e) => e,
        }
    }

    /// Fetches one request (splitting it when it spans more than a year) and returns its points:
    /// official, datasource `ENTSO-E`, only the asked-for series and slots.
    pub async fn fetch(&self, req: &FetchRequest) -> Result<Vec<InputPoint>, FetchError> {
        req.fetch_in_parts(|part| async move { self.fetch_one(&part).await })
            .await
    }

    async fn fetch_one(&self, req: &FetchRequest) -> Result<Vec<InputPoint>, FetchError> {
        debug_assert_eq!(req.provider, Provider::Entsoe);
        let params = query_params(req, &self.zones);
        let doc = self
            .get_document(&req.describe(), params, |body| {
                crate::entsoe_xml::parse(body, &self.zones)
            })
            .await?;
        Ok(keep_requested(req, doc))
    }

    /// Fetches a TSO forecast (split into parts of at most a year) and returns its values of the
    /// asked-for zone and slots, each dated by [`PublicationDeadlines::published_by`] with the
    /// document's `createdDateTime`.
    pub async fn fetch_forecasts(
        &self,
        req: &ForecastRequest,
    ) -> Result<Vec<PublishedForecast>, FetchError> {
        debug_assert_eq!(req.provider, Provider::Entsoe);
        let mut out = Vec::new();
        for range in split_range(req.range, ENTSOE_MAX_SPAN_SLOTS) {
            let part = ForecastRequest {
                range,
                ..req.clone()
            };
            let params = forecast_query_params(&part, &self.zones);
            let doc = self
                .get_document(&part.describe(), params, |body| {
                    crate::entsoe_xml::parse_forecast(body, &self.zones)
                })
                .await?;
            out.extend(
                doc.forecasts
                    .into_iter()
                    .filter(|p| part.keeps(p))
                    .filter_map(|p| PublicationDeadlines::REGULATION.published_by(p, doc.created)),
            );
        }
        Ok(out)
    }

    /// Sends one query (`params`, without the token) and reads the answer with `parse`: the token
    /// checks, the refusals and the logging of an answer that does not parse, for every document.
    async fn get_document<T>(
        &self,
        label: &str,
        params: Result<Vec<(&'static str, String)>, String>,
        parse: impl FnOnce(&[u8]) -> Result<T, ParseError>,
    ) -> Result<T, FetchError> {
        let label = label.to_string();
        let Some(token) = &self.token else {
            return Err(FetchError::NotConfigured {
                request: label,
                message: "no ENTSO-E security token (set GRIDPRINT_ENTSOE_TOKEN)".into(),
            });
        };
        if let Some(&status) = self.rejected.get() {
            return Err(token_refused(label, status));
        }
        let params = params.map_err(FetchError::not_configured(&label))?;
        let url = self.url(&params, token.expose());
        let answer =
            get_with_retries(&self.http, &url, Some(&self.budget), &self.retry, &label).await?;
        let looks_like_xml = answer
            .body
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| *b == b'<' || *b == 0xEF);
        if answer.status == 401 || answer.status == 403 {
            let _ = self.rejected.set(answer.status);
            return Err(token_refused(label, answer.status));
        }
        if !(200..300).contains(&answer.status) && !looks_like_xml {
            return Err(FetchError::Refused {
                request: label,
                status: answer.status,
                message: body_head(&answer.body, 200),
            });
        }
        match parse(&answer.body) {
            Ok(doc) => Ok(doc),
            Err(ParseError::Rejected { code, text }) => Err(FetchError::Refused {
                request: label,
                status: answer.status,
                message: format!("reason {code}: {text}"),
            }),
            Err(e) => {
                tracing::warn!(
                    request = label,
                    url = %self.url(&params, "***"),
                    status = answer.status,
                    error = %e,
                    body = %body_head(&answer.body, 200),
                    "malformed ENTSO-E response: nothing stored"
                );
                Err(FetchError::Malformed {
                    request: label,
                    message: e.to_string(),
                })
            }
        }
    }
}

/// The error of a request when the platform refused the token (`status` 401 or 403).
fn token_refused(request: String, status: u16) -> FetchError {
    FetchError::Refused {
        request,
        status,
        message: "the security token was not accepted: check GRIDPRINT_ENTSOE_TOKEN (no further \
                  ENTSO-E request is sent by this process)"
            .into(),
    }
}

/// Only the points of the asked-for series and period.
fn keep_requested(req: &FetchRequest, doc: ParsedDocument) -> Vec<InputPoint> {
    doc.points
        .into_iter()
        .filter(|p| req.range.contains(p.slot) && req.covers(&p.key))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::reference::{ReferenceData, ZoneSet};
    use gridprint_core::slot::{SlotRange, parse_timestamp};
    use gridprint_core::zone::ZoneCode;

    #[test]
    fn token_is_never_printed() {
        let t = EntsoeToken::new("secret-123").unwrap();
        assert_eq!(format!("{t:?}"), "EntsoeToken(<redacted>)");
        assert!(EntsoeToken::new("  ").is_none());
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        let c = EntsoeClient::new(
            EntsoeConfig {
                token: Some(t),
                ..Default::default()
            },
            Arc::new(r.zones.clone()),
        )
        .unwrap();
        assert!(!format!("{c:?}").contains("secret"));
        let req = FetchRequest {
            provider: Provider::Entsoe,
            kind: DataKind::Generation,
            target: Target::Zone(ZoneCode::parse("NL").unwrap()),
            range: SlotRange::new(Slot(0), Slot(4)),
        };
        let u = c.redacted_url(&req);
        assert!(
            u.contains("securityToken=***") && !u.contains("secret"),
            "{u}"
        );
    }

    #[test]
    fn query_parameters_are_the_public_apis() {
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        let s = |t| Slot::containing(parse_timestamp(t).unwrap());
        let range = SlotRange::new(s("2024-09-01T22:00Z"), s("2024-09-02T22:00Z"));
        let req = |kind, target| FetchRequest {
            provider: Provider::Entsoe,
            kind,
            target,
            range,
        };
        let nl = || ZoneCode::parse("NL").unwrap();
        let de = || ZoneCode::parse("DE").unwrap();
        let q = query_params(&req(DataKind::Generation, Target::Zone(nl())), &r.zones).unwrap();
        assert_eq!(
            q,
            vec![
                ("documentType", "A75".to_string()),
                ("processType", "A16".into()),
                ("in_Domain", "10YNL----------L".into()),
                ("periodStart", "202409012200".into()),
                ("periodEnd", "202409022200".into()),
            ]
        );
        let q = query_params(&req(DataKind::Load, Target::Zone(nl())), &r.zones).unwrap();
        assert!(q.contains(&("outBiddingZone_Domain", "10YNL----------L".into())));
        let q = query_params(
            &req(
                DataKind::Flows,
                Target::Border {
                    from: de(),
                    to: nl(),
                },
            ),
            &r.zones,
        )
        .unwrap();
        assert!(q.contains(&("out_Domain", "10Y1001A1001A82H".into())));
        assert!(q.contains(&("in_Domain", "10YNL----------L".into())));
        assert!(!q.iter().any(|(k, _)| *k == "processType"));
    }

    #[test]
    fn forecast_queries_name_document_process_and_area() {
        use crate::request::{ForecastData, ForecastRequest};
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        let day = SlotRange::new(
            Slot::containing(parse_timestamp("2023-03-24T23:00Z").unwrap()),
            Slot::containing(parse_timestamp("2023-03-25T23:20Z").unwrap()),
        );
        let q = |data, zone: &str| {
            forecast_query_params(
                &ForecastRequest {
                    provider: Provider::Entsoe,
                    data,
                    zone: ZoneCode::parse(zone).unwrap(),
                    range: day,
                },
                &r.zones,
            )
            .unwrap()
        };
        let period = |q: &mut Vec<(&'static str, String)>| {
            q.extend([
                ("periodStart", "202303242300".to_string()),
                ("periodEnd", "202303260000".to_string()),
            ]);
        };
        let mut want = vec![
            ("documentType", "A69".to_string()),
            ("processType", "A01".into()),
            ("in_Domain", "10YDK-1--------W".into()),
        ];
        period(&mut want);
        assert_eq!(q(ForecastData::WindSolarDayAhead, "DK1"), want);
        assert!(q(ForecastData::WindSolarIntraday, "DK1").contains(&("processType", "A40".into())));
        let load = q(ForecastData::LoadDayAhead, "DE");
        assert_eq!(load[0], ("documentType", "A65".into()));
        assert_eq!(load[1], ("processType", "A01".into()));
        assert_eq!(
            load[2],
            ("outBiddingZone_Domain", "10Y1001A1001A82H".into())
        );
        let scheduled = q(ForecastData::ScheduledGeneration, "DK2");
        assert_eq!(scheduled[0], ("documentType", "A71".into()));
        assert_eq!(scheduled[2], ("in_Domain", "10YDK-2--------M".into()));
    }
}
