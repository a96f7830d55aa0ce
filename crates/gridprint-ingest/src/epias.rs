//! Türkiye's generation and consumption from the EPIAS Transparency Platform 2.0
//! ("electricity-service", JSON, a free account needed). Which endpoints are read, how their fields
//! map to production types and how the account is used: docs/providers.md, "EPIAS (Türkiye)".
//!
//! **Authentication.** A login (`POST {auth_url}/cas/v1/tickets`) answers a ticket-granting ticket
//! (TGT) that every data request carries in a `TGT` header. The client caches one per process
//! (clones share it), renews it after [`EpiasConfig::tgt_renew_after`] and once more when a data
//! request is answered 401. A login answered 400/401/403 means wrong credentials: the client
//! remembers that and sends no further login (the platform locks accounts after repeated failures),
//! so every later request fails at once with the same clear error. Credentials and TGTs are never
//! logged and `Debug` prints `***` for them.
//!
//! **Data.** Pages of hourly items, each dated in local time with its own UTC offset (parsed per
//! item, never assumed), are read until one comes back empty; each value fills the four 15-minute
//! slots of its hour, and points outside the requested range are dropped. Generation fields map
//! through [`FIELD_MAP`]. An absent or `null` field is not a zero (counted in
//! [`EpiasDocument::skipped`] as `missing-field:<name>`). Points carry [`DATASOURCE_EPIAS`].
//! Retries and the request budget are [`crate::http`]'s; answers are read up to [`MAX_PAGE_BODY`]
//! (64 kB from the login service), at most [`MAX_PAGES`] pages per request, spanning at most
//! [`crate::request::EPIAS_MAX_SPAN_SLOTS`].

use crate::http::{
    Answer, FetchError, FetchRetry, RequestBudget, body_head, http_client, parsed_points,
    send_with_retries,
};
use crate::request::{DataKind, FetchRequest, Target};
use crate::skip;
use crate::time_grid::{generation_points, push_official};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::secret::Secret;
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The data service's address.
pub const DEFAULT_BASE_URL: &str = "https://seffaflik.epias.com.tr/electricity-service";
/// The login service's address (CAS).
pub const DEFAULT_AUTH_URL: &str = "https://giris.epias.com.tr";
/// The datasource of EPIAS points (as `Provider::Epias` spells it).
pub const DATASOURCE_EPIAS: &str = "EPIAS";
/// EPIAS publishes no limit; we stay polite.
pub const DEFAULT_REQUESTS_PER_MINUTE: u32 = 60;
/// A TGT lasts about two hours; it is renewed well before.
pub const DEFAULT_TGT_RENEW_AFTER: Duration = Duration::from_secs(100 * 60);
/// Items asked for per page (hourly: about three weeks).
pub const DEFAULT_PAGE_SIZE: u32 = 500;
/// Pages read at most per request before giving up (bounds a server that never stops paging).
pub const MAX_PAGES: u32 = 200;
/// Longest TGT accepted from the login service.
const MAX_TGT_LEN: usize = 1024;
/// Largest answer read from the login service (a ticket, or an error page).
const MAX_LOGIN_BODY: usize = 64 * 1024;
/// Largest data page read: a page of 500 hourly items is about 300 kB.
pub const MAX_PAGE_BODY: usize = 16 * 1024 * 1024;

/// The generation fields EPIAS publishes (spelled as the platform spells them) and the production
/// type each one adds to. `total` and `importExport` are not generation.
pub const FIELD_MAP: [(&str, ProductionType); 17] = [
    ("naturalGas", ProductionType::Gas),
    ("lng", ProductionType::Gas),
    ("dammedHydro", ProductionType::HydroReservoir),
    ("river", ProductionType::HydroRiver),
    ("lignite", ProductionType::Coal),
    ("importCoal", ProductionType::Coal),
    ("blackCoal", ProductionType::Coal),
    ("asphaltiteCoal", ProductionType::Coal),
    ("fueloil", ProductionType::Oil),
    ("gasOil", ProductionType::Oil),
    ("naphta", ProductionType::Oil),
    ("wind", ProductionType::WindOnshore),
    ("sun", ProductionType::Solar),
    ("geothermal", ProductionType::Geothermal),
    ("biomass", ProductionType::Biomass),
    ("wasteheat", ProductionType::Other),
    ("nucklear", ProductionType::Nuclear),
];

/// The production type of an EPIAS generation field, `None` for anything else (`total`,
/// `importExport`, `date`…).
pub fn production_type(field: &str) -> Option<ProductionType> {
    FIELD_MAP
        .iter()
        .find(|(f, _)| *f == field)
        .map(|(_, pt)| *pt)
}

/// One part of an EPIAS account as given on the command line or in the environment. Never printed:
/// `Debug` shows `EpiasSecret(<redacted>)`, and there is no `Display`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EpiasSecret(Secret);

impl std::str::FromStr for EpiasSecret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(EpiasSecret(Secret::new(s.to_string())))
    }
}

/// An EPIAS account (`GRIDPRINT_EPIAS_USERNAME`, `GRIDPRINT_EPIAS_PASSWORD`). Never printed: `Debug`
/// shows `***` for both.
#[derive(Clone, PartialEq, Eq)]
pub struct EpiasCredentials {
    username: String,
    password: String,
}

impl EpiasCredentials {
    /// `None` when either part is blank.
    pub fn new(username: impl Into<String>, password: impl Into<String>) -> Option<Self> {
        let username = username.into().trim().to_string();
        let password = password.into();
        (!username.is_empty() && !password.trim().is_empty())
            .then_some(EpiasCredentials { username, password })
    }

    /// From the two command-line values; `None` when either is missing or blank.
    pub fn from_secrets(
        username: Option<&EpiasSecret>,
        password: Option<&EpiasSecret>,
    ) -> Option<Self> {
        EpiasCredentials::new(username?.0.expose(), password?.0.expose())
    }
}

impl fmt::Debug for EpiasCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EpiasCredentials(***)")
    }
}

/// A ticket-granting ticket. Never printed: `Debug` shows `Tgt(<redacted>)`.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Tgt(Secret);

/// Points of one EPIAS answer, what was skipped and why (`missing-field:nucklear`,
/// `negative-value:sun`, `duplicate-hour`), and the hours whose `total` disagreed with the sum of
/// the mapped fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EpiasDocument {
    pub points: Vec<InputPoint>,
    pub skipped: BTreeMap<String, usize>,
    /// Start of every hour whose `total` differs from the mapped sum by more than rounding.
    pub total_mismatches: Vec<OffsetDateTime>,
}

/// Why an EPIAS answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("EPIAS {endpoint}: {message}")]
pub struct EpiasParseError {
    pub endpoint: &'static str,
    pub message: String,
}

/// One page of an answer: the items, each a JSON object.
#[derive(Deserialize)]
struct Page {
    items: Vec<serde_json::Map<String, serde_json::Value>>,
}

/// Reads one page; `Ok(items)`, empty when the pages have run out.
fn parse_page(
    endpoint: &'static str,
    body: &[u8],
) -> Result<Vec<serde_json::Map<String, serde_json::Value>>, EpiasParseError> {
    serde_json::from_slice::<Page>(body)
        .map(|p| p.items)
        .map_err(|e| EpiasParseError {
            endpoint,
            message: format!("not the documented JSON shape ({{\"items\": [...]}}): {e}"),
        })
}

/// The UTC hour an item is about, from its `date` with the item's own offset.
fn item_hour(
    endpoint: &'static str,
    item: &serde_json::Map<String, serde_json::Value>,
) -> Result<(OffsetDateTime, Slot), EpiasParseError> {
    let err = |m: String| EpiasParseError {
        endpoint,
        message: m,
    };
    let date = item
        .get("date")
        .and_then(|v| v.as_str())
        .ok_or_else(|| err("an item has no date".into()))?;
    let local = OffsetDateTime::parse(date, &Rfc3339).map_err(|e| {
        err(format!(
            "date {date:?} is not an ISO 8601 time with an offset: {e}"
        ))
    })?;
    let slot = Slot::from_unix_exact(local.unix_timestamp())
        .filter(|s| s.0.rem_euclid(4) == 0)
        .ok_or_else(|| err(format!("date {date:?} is not on a whole hour")))?;
    Ok((local, slot))
}

/// The number in `field`, `None` when absent or `null`; an error for anything else.
fn number(
    endpoint: &'static str,
    item: &serde_json::Map<String, serde_json::Value>,
    field: &str,
    date: OffsetDateTime,
) -> Result<Option<f64>, EpiasParseError> {
    match item.get(field) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| {
                let v = v.to_string();
                EpiasParseError {
                    endpoint,
                    message: format!(
                        "{field} at {date}: {} is not a number",
                        v.chars().take(40).collect::<String>()
                    ),
                }
            }),
    }
}

/// The number in `field` when it can be used as MW: a missing field and a negative value are counted
/// in `skipped` (`missing-field:…`, `negative-value:…`) and read as `None`.
fn usable_number(
    endpoint: &'static str,
    item: &serde_json::Map<String, serde_json::Value>,
    field: &str,
    date: OffsetDateTime,
    skipped: &mut BTreeMap<String, usize>,
) -> Result<Option<f64>, EpiasParseError> {
    match number(endpoint, item, field, date)? {
        None => skip::add(skipped, format!("missing-field:{field}"), 1),
        Some(v) if v < 0.0 => skip::add(skipped, skip::negative_value(field), 1),
        Some(v) => return Ok(Some(v)),
    }
    Ok(None)
}

/// Whether `total` matches the sum of the mapped fields within rounding (fields have two decimals).
pub fn total_matches(total: f64, sum: f64) -> bool {
    (total - sum).abs() <= 1.0_f64.max(total.abs() * 1e-4)
}

/// Parses the items of realtime-generation pages into generation points of `zone` within `range`.
pub fn parse_generation(
    items: &[serde_json::Map<String, serde_json::Value>],
    zone: &ZoneCode,
    range: SlotRange,
) -> Result<EpiasDocument, EpiasParseError> {
    const EP: &str = "realtime-generation";
    let mut doc = EpiasDocument::default();
    // hour → production type → MW; a later item for the same hour replaces an earlier one.
    let mut hours: BTreeMap<Slot, BTreeMap<ProductionType, f64>> = BTreeMap::new();
    for item in items {
        let (local, hour) = item_hour(EP, item)?;
        let mut sums: BTreeMap<ProductionType, f64> = BTreeMap::new();
        let mut mapped = 0.0;
        for (field, pt) in FIELD_MAP {
            if let Some(v) = usable_number(EP, item, field, local, &mut doc.skipped)? {
                mapped += v;
                *sums.entry(pt).or_insert(0.0) += v;
            }
        }
        if let Some(total) = number(EP, item, "total", local)?
            && !total_matches(total, mapped)
        {
            tracing::warn!(
                zone = %zone,
                hour = %local,
                total,
                mapped_sum = mapped,
                "EPIAS total differs from the sum of the generation fields"
            );
            doc.total_mismatches.push(local);
        }
        if hours.insert(hour, sums).is_some() {
            skip::add(&mut doc.skipped, "duplicate-hour".into(), 1);
        }
    }
    let sums = hours
        .into_iter()
        .flat_map(|(hour, sums)| sums.into_iter().map(move |(pt, mw)| ((pt, hour), mw)));
    generation_points(&mut doc.points, zone, sums, 4, range, DATASOURCE_EPIAS);
    Ok(doc)
}

/// Parses the items of realtime-consumption pages into load points of `zone` within `range`.
pub fn parse_consumption(
    items: &[serde_json::Map<String, serde_json::Value>],
    zone: &ZoneCode,
    range: SlotRange,
) -> Result<EpiasDocument, EpiasParseError> {
    const EP: &str = "realtime-consumption";
    let mut doc = EpiasDocument::default();
    let mut hours: BTreeMap<Slot, f64> = BTreeMap::new();
    for item in items {
        let (local, hour) = item_hour(EP, item)?;
        if let Some(v) = usable_number(EP, item, "consumption", local, &mut doc.skipped)?
            && hours.insert(hour, v).is_some()
        {
            skip::add(&mut doc.skipped, "duplicate-hour".into(), 1);
        }
    }
    let key = InputKey::Load { zone: zone.clone() };
    for (hour, mw) in hours {
        push_official(&mut doc.points, &key, hour, 4, mw, range, DATASOURCE_EPIAS);
    }
    Ok(doc)
}

/// `2025-07-28T03:00:00+03:00`: an instant written at Türkiye's present offset, as the platform's
/// documentation writes request dates (any offset designates the same instant).
pub fn date_param(t: OffsetDateTime) -> String {
    gridprint_core::slot::format_at_offset(t, time::macros::offset!(+3), "+03:00")
}

/// The endpoint path (relative to the base URL) of a request.
pub fn endpoint(req: &FetchRequest) -> Result<&'static str, String> {
    match (&req.kind, &req.target) {
        (DataKind::Generation, Target::Zone(_)) => Ok("v1/generation/data/realtime-generation"),
        (DataKind::Load, Target::Zone(_)) => Ok("v1/consumption/data/realtime-consumption"),
        (k, t) => Err(format!("EPIAS has no {k:?} for {t}")),
    }
}

/// The JSON body asking for page `number` of a request.
pub fn request_body(range: SlotRange, number: u32, size: u32) -> serde_json::Value {
    serde_json::json!({
        "startDate": date_param(range.start.start()),
        "endDate": date_param(range.end.start()),
        "page": {
            "number": number,
            "size": size,
            "sort": {"field": "date", "direction": "ASC"}
        }
    })
}

/// Configuration of an [`EpiasClient`].
#[derive(Debug, Clone)]
pub struct EpiasConfig {
    pub base_url: String,
    pub auth_url: String,
    pub credentials: Option<EpiasCredentials>,
    pub retry: FetchRetry,
    pub requests_per_minute: u32,
    /// Age after which a cached TGT is replaced before use.
    pub tgt_renew_after: Duration,
    pub page_size: u32,
}

impl Default for EpiasConfig {
    fn default() -> Self {
        EpiasConfig {
            base_url: DEFAULT_BASE_URL.to_string(),
            auth_url: DEFAULT_AUTH_URL.to_string(),
            credentials: None,
            retry: FetchRetry::default(),
            requests_per_minute: DEFAULT_REQUESTS_PER_MINUTE,
            tgt_renew_after: DEFAULT_TGT_RENEW_AFTER,
            page_size: DEFAULT_PAGE_SIZE,
        }
    }
}

/// The cached login state shared by clones.
#[derive(Default)]
struct Session {
    tgt: Option<(Tgt, Instant)>,
    /// Set once the login service refused the credentials; no login is tried again.
    rejected: Option<FetchError>,
}

/// A client of the Transparency Platform. Clones share the connection pool, the request budget and
/// the TGT.
#[derive(Clone)]
pub struct EpiasClient {
    http: reqwest::Client,
    base: reqwest::Url,
    tickets: reqwest::Url,
    credentials: Option<EpiasCredentials>,
    retry: FetchRetry,
    budget: RequestBudget,
    tgt_renew_after: Duration,
    page_size: u32,
    session: Arc<tokio::sync::Mutex<Session>>,
    logins: Arc<std::sync::atomic::AtomicUsize>,
}

impl fmt::Debug for EpiasClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EpiasClient")
            .field("base", &self.base.as_str())
            .field("auth", &self.tickets.as_str())
            .field("credentials", &self.credentials.as_ref().map(|_| "***"))
            .field("budget", &self.budget)
            .finish()
    }
}

/// `url` parsed with a trailing `/`, so relative paths join below it.
fn base_url(what: &str, url: &str) -> Result<reqwest::Url, String> {
    let mut u =
        reqwest::Url::parse(url.trim()).map_err(|e| format!("invalid {what} URL '{url}': {e}"))?;
    if !u.path().ends_with('/') {
        let p = format!("{}/", u.path());
        u.set_path(&p);
    }
    Ok(u)
}

/// The login endpoint below an auth URL: `{auth_url}/cas/v1/tickets`.
pub fn tickets_url(auth_url: &str) -> Result<reqwest::Url, String> {
    base_url("EPIAS auth", auth_url)?
        .join("cas/v1/tickets")
        .map_err(|e| e.to_string())
}

impl EpiasClient {
    /// Builds a client. Fails on an unparsable URL.
    pub fn new(config: EpiasConfig) -> Result<EpiasClient, String> {
        Ok(EpiasClient {
            http: http_client(config.retry.timeout)?,
            base: base_url("EPIAS", &config.base_url)?,
            tickets: tickets_url(&config.auth_url)?,
            credentials: config.credentials,
            retry: config.retry,
            budget: RequestBudget::per_minute(config.requests_per_minute),
            tgt_renew_after: config.tgt_renew_after,
            page_size: config.page_size.clamp(1, 10_000),
            session: Arc::default(),
            logins: Arc::default(),
        })
    }

    /// Whether credentials are configured (without them every request fails with `NotConfigured`).
    pub fn has_credentials(&self) -> bool {
        self.credentials.is_some()
    }

    /// The data service's base URL (no secret in it).
    pub fn base_url(&self) -> &reqwest::Url {
        &self.base
    }

    /// Logins sent so far (each one answered or not), for tests and logs.
    #[cfg(any(test, feature = "testing"))]
    pub fn logins(&self) -> usize {
        self.logins.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Logs in (or reuses the cached TGT) and reports whether the credentials work: the clear error
    /// of a wrong username or password, before anything is fetched.
    pub async fn check_login(&self) -> Result<(), FetchError> {
        self.tgt(None).await.map(|_| ())
    }

    /// The TGT to use: the cached one unless it is older than `tgt_renew_after` or is `stale` (it
    /// was just refused), else a new one. Concurrent callers wait for one login.
    async fn tgt(&self, stale: Option<&Tgt>) -> Result<Tgt, FetchError> {
        let label = "EPIAS login";
        let Some(creds) = &self.credentials else {
            return Err(FetchError::NotConfigured {
                request: label.into(),
                message:
                    "no EPIAS account: set GRIDPRINT_EPIAS_USERNAME and GRIDPRINT_EPIAS_PASSWORD"
                        .into(),
            });
        };
        let mut session = self.session.lock().await;
        if let Some(e) = &session.rejected {
            return Err(e.clone());
        }
        if let Some((tgt, at)) = &session.tgt
            && at.elapsed() < self.tgt_renew_after
            && stale != Some(tgt)
        {
            return Ok(tgt.clone());
        }
        session.tgt = None;
        self.logins
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let form = serde_urlencoded::to_string([
            ("username", creds.username.as_str()),
            ("password", creds.password.as_str()),
        ])
        .map_err(|e| FetchError::NotConfigured {
            request: label.into(),
            message: format!("cannot encode the login form: {e}"),
        })?;
        let types = ("application/x-www-form-urlencoded", "text/plain");
        let answer = self
            .send_post(
                &self.tickets,
                types,
                None,
                form.as_bytes(),
                label,
                MAX_LOGIN_BODY,
            )
            .await?;
        match answer.status {
            200 | 201 => {
                let text = String::from_utf8_lossy(&answer.body);
                let text = text.trim();
                let valid = text.starts_with("TGT-")
                    && text.len() <= MAX_TGT_LEN
                    && text.bytes().all(|b| b.is_ascii_graphic());
                if !valid {
                    return Err(FetchError::Malformed {
                        request: label.into(),
                        message: format!(
                            "the login service did not answer a ticket (TGT-…); is --epias-auth-url right? ({} bytes)",
                            answer.body.len()
                        ),
                    });
                }
                let tgt = Tgt(Secret::new(text.to_string()));
                session.tgt = Some((tgt.clone(), Instant::now()));
                tracing::debug!("EPIAS ticket-granting ticket obtained");
                Ok(tgt)
            }
            400 | 401 | 403 => {
                let e = FetchError::Refused {
                    request: label.into(),
                    status: answer.status,
                    message: "EPIAS rejected the username or password: check GRIDPRINT_EPIAS_USERNAME and \
                              GRIDPRINT_EPIAS_PASSWORD (no further login is tried by this process)"
                        .into(),
                };
                session.rejected = Some(e.clone());
                Err(e)
            }
            status => Err(FetchError::Refused {
                request: label.into(),
                status,
                message: body_head(&answer.body, 200),
            }),
        }
    }

    /// POSTs `body` to `url` (`types`: its content type and the accepted one; with the `TGT` header
    /// when given) within the request budget and with retries, reading at most `max_body` bytes.
    async fn send_post(
        &self,
        url: &reqwest::Url,
        (content_type, accept): (&str, &str),
        tgt: Option<&reqwest::header::HeaderValue>,
        body: &[u8],
        label: &str,
        max_body: usize,
    ) -> Result<Answer, FetchError> {
        let build = || {
            let request = self
                .http
                .post(url.clone())
                .header(reqwest::header::CONTENT_TYPE, content_type)
                .header(reqwest::header::ACCEPT, accept);
            match tgt {
                Some(t) => request.header("TGT", t.clone()),
                None => request,
            }
            .body(body.to_vec())
        };
        send_with_retries(
            build,
            Some(&self.budget),
            &self.retry,
            label,
            Some(max_body),
        )
        .await
    }

    /// POSTs a JSON body with the TGT; a 401 renews the TGT once and tries again.
    async fn post(
        &self,
        url: &reqwest::Url,
        body: &[u8],
        label: &str,
    ) -> Result<Answer, FetchError> {
        let mut tgt = self.tgt(None).await?;
        for renewed in [false, true] {
            // Marked sensitive: reqwest and hyper never print it.
            let mut header =
                reqwest::header::HeaderValue::from_str(tgt.0.expose()).map_err(|_| {
                    FetchError::Malformed {
                        request: label.into(),
                        message: "the ticket is not a valid header value".into(),
                    }
                })?;
            header.set_sensitive(true);
            let json = ("application/json", "application/json");
            let answer = self
                .send_post(url, json, Some(&header), body, label, MAX_PAGE_BODY)
                .await?;
            if answer.status == 401 && !renewed {
                tracing::info!(
                    request = label,
                    "EPIAS refused the ticket (401): renewing it"
                );
                tgt = self.tgt(Some(&tgt)).await?;
                continue;
            }
            return Ok(answer);
        }
        unreachable!("the loop returns on its second pass")
    }

    /// Fetches one request (split into pieces of at most 31 days, each paged) and returns its points.
    pub async fn fetch(&self, req: &FetchRequest) -> Result<Vec<InputPoint>, FetchError> {
        req.fetch_in_parts(|part| async move { self.fetch_one(&part).await })
            .await
    }

    async fn fetch_one(&self, req: &FetchRequest) -> Result<Vec<InputPoint>, FetchError> {
        let label = req.describe();
        let path = endpoint(req).map_err(FetchError::not_configured(&label))?;
        let url = self
            .base
            .join(path)
            .map_err(FetchError::not_configured(&label))?;
        let Target::Zone(zone) = &req.target else {
            unreachable!("checked by endpoint")
        };
        let name = if req.kind == DataKind::Generation {
            "realtime-generation"
        } else {
            "realtime-consumption"
        };
        let malformed = |message: String| FetchError::Malformed {
            request: label.clone(),
            message,
        };
        let mut items = Vec::new();
        for number in 1..=MAX_PAGES + 1 {
            if number > MAX_PAGES {
                return Err(malformed(format!(
                    "still items after {MAX_PAGES} pages of {}",
                    self.page_size
                )));
            }
            let body = serde_json::to_vec(&request_body(req.range, number, self.page_size))
                .map_err(|e| malformed(e.to_string()))?;
            let answer = self.post(&url, &body, &label).await?;
            if !(200..300).contains(&answer.status) {
                return Err(FetchError::Refused {
                    request: label,
                    status: answer.status,
                    message: body_head(&answer.body, 200),
                });
            }
            let page = parse_page(name, &answer.body).map_err(|e| {
                tracing::warn!(request = %label, page = number, error = %e, body = %body_head(&answer.body, 200), "malformed EPIAS response: nothing stored");
                malformed(e.to_string())
            })?;
            if page.is_empty() {
                break;
            }
            items.extend(page);
        }
        let parsed = match req.kind {
            DataKind::Generation => parse_generation(&items, zone, req.range),
            _ => parse_consumption(&items, zone, req.range),
        };
        let parsed = parsed.map(|doc| (doc.points, doc.skipped));
        parsed_points("EPIAS", label.clone(), parsed, |e| {
            tracing::warn!(request = %label, error = %e, "malformed EPIAS response: nothing stored");
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::slot::parse_timestamp;

    #[test]
    fn every_field_maps_as_the_issue_says() {
        use ProductionType as P;
        let expect = [
            ("naturalGas", P::Gas),
            ("lng", P::Gas),
            ("dammedHydro", P::HydroReservoir),
            ("river", P::HydroRiver),
            ("lignite", P::Coal),
            ("importCoal", P::Coal),
            ("blackCoal", P::Coal),
            ("asphaltiteCoal", P::Coal),
            ("fueloil", P::Oil),
            ("gasOil", P::Oil),
            ("naphta", P::Oil),
            ("wind", P::WindOnshore),
            ("sun", P::Solar),
            ("geothermal", P::Geothermal),
            ("biomass", P::Biomass),
            ("wasteheat", P::Other),
            ("nucklear", P::Nuclear),
        ];
        for (f, pt) in expect {
            assert_eq!(production_type(f), Some(pt), "{f}");
        }
        for f in ["total", "importExport", "date", "hour", "nuclear"] {
            assert_eq!(production_type(f), None, "{f}");
        }
    }

    #[test]
    fn request_dates_are_written_at_plus_three() {
        let t = parse_timestamp("2025-07-27T21:00:00Z").unwrap();
        assert_eq!(date_param(t), "2025-07-28T00:00:00+03:00");
    }

    #[test]
    fn credentials_never_show_in_debug() {
        let c = EpiasCredentials::new("someone@example.org", "s3cr3t-pw").unwrap();
        let client = EpiasClient::new(EpiasConfig {
            credentials: Some(c.clone()),
            ..EpiasConfig::default()
        })
        .unwrap();
        for text in [format!("{c:?}"), format!("{client:?}")] {
            assert!(!text.contains("s3cr3t-pw"), "{text}");
            assert!(!text.contains("someone@example.org"), "{text}");
        }
        assert_eq!(
            format!("{:?}", Tgt(Secret::new("TGT-abc".into()))),
            "Tgt(<redacted>)"
        );
        assert!(EpiasCredentials::new("", "x").is_none());
        assert!(EpiasCredentials::new("u", "  ").is_none());
    }
}
