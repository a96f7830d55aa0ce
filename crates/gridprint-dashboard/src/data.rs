//! The dashboard's public data routes (mode `public`): exactly what the page shows, nothing more.
//!
//! - `GET /dashboard/api/meta`: the zones (the `/v1/zones` answer), the slot the page opens on
//!   (now when the server holds data for now), the best-covered slot before the present days, "now",
//!   the demo's replay (`/v1/status`'s `demo`; `null` but with `serve --demo`), the mode and the
//!   [`DAY_PARTS`]/[`ZONE_PARTS`] tables, so that in `login` mode the page asks `/v1` for the same
//!   answers itself.
//! - `GET /dashboard/api/day?date=YYYY-MM-DD`: every zone's footprints (carbon and water, global
//!   and local, life-cycle and operational), water impacts, scores and border flows of that UTC
//!   day, in one answer, so scrubbing the day never waits on the network.
//! - `GET /dashboard/api/zone?zone=Z&date=D`: one zone's generation, imports, exports, mix-share,
//!   footprints from 6 days before to 4 days after (the forecast) and the forecast's accuracy.
//! - `GET /dashboard/api/csv?zone=Z&date=D&part=P`: one zone series as `/v1`'s CSV, byte for byte.
//!
//! Each part is the `/v1` answer ([`QueryService::ask`](gridprint_query::QueryService::ask)) to
//! the typed query a `/v1` client would send (gridprint-responses' `query`), embedded verbatim; anything else is 400 (docs/api.md).
//! Each client address is rate-limited ([`client_of`]; 429 with `Retry-After`). Answers are built
//! on the API's bounded pool and kept in its [`ResponseCache`] by data version through its one way
//! of keeping answers ([`kept`]: final ones until evicted, others for the refresh interval; `ETag`
//! and 304; gzip for a client that takes it; counted against the response memory budget).

use crate::DashboardConfig;
use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use axum::routing::get;
use gridprint_api::kept::response_cache::etag_of;
use gridprint_api::kept::{self, Finality};
use gridprint_api::{ApiError, AppState, ClientAddr};
use gridprint_core::reference::{FootprintType, Scope};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, format_timestamp};
use gridprint_query::endpoints::{
    ExportsEndpoint, FootprintsEndpoint, ForecastAccuracyEndpoint, GenerationEndpoint,
    GreenScoreEndpoint, ImpactsEndpoint, ImportsEndpoint, MixShareEndpoint, ZonesEndpoint,
};
use gridprint_query::responses::query::{
    ExportsQuery, FootprintsQuery, ForecastAccuracyQuery, GenerationQuery, ImpactsQuery,
    ImportsQuery, Location, MixShareQuery, Period, ScoreQuery, WireQuery, ZonesQuery,
};
use gridprint_query::{EndpointDef, QueryError, QueryResponse, QueryService};
use gridprint_ratelimit::Quota;
use std::collections::{BTreeMap, HashSet};
use std::net::IpAddr;
use std::sync::Arc;
use time::{Date, Duration, OffsetDateTime};

/// The window a part covers around the chosen day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Days before the chosen day.
    pub days_before: i64,
    /// Days after the chosen day's start (1: the day itself).
    pub days_after: i64,
}

/// The chosen UTC day.
pub const DAY: Window = Window {
    days_before: 0,
    days_after: 1,
};
/// The zone's footprint history: 6 days before, the day, and 4 days of forecast after it.
pub const HISTORY: Window = Window {
    days_before: 6,
    days_after: 5,
};

/// How a part is answered: its endpoint's typed query for a zone (`""`: every zone) over a
/// period, answered by [`QueryService::ask`].
pub type PartQuery =
    fn(&QueryService, &str, Period, OffsetDateTime) -> Result<QueryResponse, QueryError>;

/// A part's own `/v1` parameters (its zone and window left out), as the page sends them.
pub type PartParams = fn() -> Vec<(String, String)>;

/// One `/v1` answer the page reads: the path under `/v1/` (shown on the page), how it is answered,
/// its own parameters, the window.
#[derive(Debug, Clone, Copy)]
pub struct Part {
    pub name: &'static str,
    pub path: &'static str,
    pub query: PartQuery,
    pub params: PartParams,
    pub window: Window,
}

/// One part's `/v1` query with its zone and window to fill in: written once, answered here and
/// sent to the page (login mode) as its parameters.
trait PartSpec {
    type Endpoint: EndpointDef;
    fn query(
        location: Option<Location>,
        window: Option<Period>,
    ) -> <Self::Endpoint as EndpointDef>::Query;
}

fn ask<P: PartSpec>(
    svc: &QueryService,
    zone: &str,
    window: Period,
    now: OffsetDateTime,
) -> Result<QueryResponse, QueryError> {
    let location = (!zone.is_empty()).then(|| Location::zone(zone));
    svc.ask::<P::Endpoint>(P::query(location, Some(window)), now)
}

fn own_params<P: PartSpec>() -> Vec<(String, String)> {
    P::query(None, None).to_pairs()
}

const fn part<P: PartSpec>(name: &'static str, path: &'static str, window: Window) -> Part {
    Part {
        name,
        path,
        query: ask::<P>,
        params: own_params::<P>,
        window,
    }
}

/// `/footprints`, global or local, life-cycle or operational.
struct FootprintsPart<const GLOBAL: bool, const OPERATIONAL: bool>;

impl<const GLOBAL: bool, const OPERATIONAL: bool> PartSpec for FootprintsPart<GLOBAL, OPERATIONAL> {
    type Endpoint = FootprintsEndpoint;
    fn query(location: Option<Location>, window: Option<Period>) -> FootprintsQuery {
        let scope = if OPERATIONAL {
            Scope::Operational
        } else {
            Scope::LifeCycle
        };
        FootprintsQuery {
            location,
            window,
            scope: Some(scope),
            use_global: Some(GLOBAL),
            ..FootprintsQuery::default()
        }
    }
}

/// `/impacts`, global or local.
struct ImpactsPart<const GLOBAL: bool>;

impl<const GLOBAL: bool> PartSpec for ImpactsPart<GLOBAL> {
    type Endpoint = ImpactsEndpoint;
    fn query(location: Option<Location>, window: Option<Period>) -> ImpactsQuery {
        ImpactsQuery {
            location,
            window,
            use_global: Some(GLOBAL),
            ..ImpactsQuery::default()
        }
    }
}

/// `/green-score`, global or local.
struct ScorePart<const GLOBAL: bool>;

impl<const GLOBAL: bool> PartSpec for ScorePart<GLOBAL> {
    type Endpoint = GreenScoreEndpoint;
    fn query(location: Option<Location>, window: Option<Period>) -> ScoreQuery {
        ScoreQuery {
            location,
            window,
            use_global: Some(GLOBAL),
            ..ScoreQuery::default()
        }
    }
}

/// `/generation`, every production type.
struct GenerationPart;

impl PartSpec for GenerationPart {
    type Endpoint = GenerationEndpoint;
    fn query(location: Option<Location>, window: Option<Period>) -> GenerationQuery {
        GenerationQuery {
            location,
            window,
            production_type: None,
        }
    }
}

/// `/imports`, every source.
struct ImportsPart;

impl PartSpec for ImportsPart {
    type Endpoint = ImportsEndpoint;
    fn query(location: Option<Location>, window: Option<Period>) -> ImportsQuery {
        ImportsQuery {
            location,
            source: None,
            window,
        }
    }
}

/// `/exports`, every destination.
struct ExportsPart;

impl PartSpec for ExportsPart {
    type Endpoint = ExportsEndpoint;
    fn query(location: Option<Location>, window: Option<Period>) -> ExportsQuery {
        ExportsQuery {
            location,
            destination: None,
            window,
        }
    }
}

/// `/mix-share`, every origin.
struct MixSharePart;

impl PartSpec for MixSharePart {
    type Endpoint = MixShareEndpoint;
    fn query(location: Option<Location>, window: Option<Period>) -> MixShareQuery {
        MixShareQuery {
            location,
            origin: None,
            window,
        }
    }
}

/// `/forecast-accuracy` (it takes no window).
struct ForecastAccuracyPart;

impl PartSpec for ForecastAccuracyPart {
    type Endpoint = ForecastAccuracyEndpoint;
    fn query(location: Option<Location>, _: Option<Period>) -> ForecastAccuracyQuery {
        ForecastAccuracyQuery { location }
    }
}

/// The four footprint series (global and local, life-cycle and operational) over `window`: the
/// map's colours for a day, the zone panel's history.
const fn footprint_parts(window: Window) -> [Part; 4] {
    [
        part::<FootprintsPart<true, false>>("footprints:global:life-cycle", "footprints", window),
        part::<FootprintsPart<true, true>>("footprints:global:operational", "footprints", window),
        part::<FootprintsPart<false, false>>("footprints:local:life-cycle", "footprints", window),
        part::<FootprintsPart<false, true>>("footprints:local:operational", "footprints", window),
    ]
}

/// The day's imports: border flows on the map, the zone panel's imports.
const IMPORTS: Part = part::<ImportsPart>("imports", "imports", DAY);

/// What the map needs for a day, for every zone (no location).
pub const DAY_PARTS: [Part; 9] = {
    let f = footprint_parts(DAY);
    [
        f[0],
        f[1],
        f[2],
        f[3],
        part::<ImpactsPart<true>>("impacts:global", "impacts", DAY),
        part::<ImpactsPart<false>>("impacts:local", "impacts", DAY),
        part::<ScorePart<true>>("score:global", "green-score", DAY),
        part::<ScorePart<false>>("score:local", "green-score", DAY),
        IMPORTS,
    ]
};

/// What the zone panel needs, for one zone: the day's production and flows, the footprint history
/// and forecast, and how far off the forecast has been (`/v1/forecast-accuracy` takes no window).
pub const ZONE_PARTS: [Part; 9] = {
    let f = footprint_parts(HISTORY);
    [
        part::<GenerationPart>("generation", "generation", DAY),
        IMPORTS,
        part::<ExportsPart>("exports", "exports", DAY),
        part::<MixSharePart>("mix-share", "mix-share", DAY),
        f[0],
        f[1],
        f[2],
        f[3],
        part::<ForecastAccuracyPart>("forecast-accuracy", "forecast-accuracy", DAY),
    ]
};

/// Shared by the dashboard's data handlers (and the page, for the day it opens on).
pub(crate) struct Dash {
    /// Per client address, through the API's limiter.
    quota: Quota,
    cache: kept::Store,
    history_days: Option<u32>,
}

impl Dash {
    pub(crate) fn new(config: &DashboardConfig) -> Arc<Dash> {
        Arc::new(Dash {
            quota: Quota::new(config.rate_per_second, config.burst),
            cache: kept::Store::with_max_bytes(config.cache_bytes),
            history_days: config.history_days,
        })
    }
}

/// The data routes (public mode: all four; login mode: `meta` only, the page reads `/v1`).
pub(crate) fn routes(config: DashboardConfig, dash: Arc<Dash>) -> Router<AppState> {
    let mut r = Router::new().route("/dashboard/api/meta", get(meta));
    if config.mode == crate::DashboardMode::Public {
        r = r
            .route("/dashboard/api/day", get(day))
            .route("/dashboard/api/zone", get(zone))
            .route("/dashboard/api/csv", get(csv));
    }
    r.layer(axum::Extension(dash))
}

/// The address a request is limited by: the API's client address (the socket peer, or the one
/// resolved behind trusted proxies), an IPv6 address by its /64 (one subscriber's network).
pub fn client_of(client: ClientAddr) -> IpAddr {
    match client.0 {
        IpAddr::V6(v6) => IpAddr::V6(std::net::Ipv6Addr::from(
            u128::from(v6) & !((1u128 << 64) - 1),
        )),
        v4 => v4,
    }
}

/// A data route's request after the per-address limit admitted it: the service state, the
/// dashboard's limiter and cache, the raw query string and the request headers.
struct Admitted {
    state: AppState,
    dash: Arc<Dash>,
    query: Option<String>,
    headers: HeaderMap,
}

impl axum::extract::FromRequestParts<AppState> for Admitted {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &AppState,
    ) -> Result<Admitted, ApiError> {
        let dash = parts
            .extensions
            .get::<Arc<Dash>>()
            .cloned()
            .ok_or_else(|| ApiError::internal("the dashboard routes lost their state"))?;
        admit(state, &dash, ClientAddr::of(&parts.extensions)).await?;
        Ok(Admitted {
            state: state.clone(),
            dash,
            query: parts.uri.query().map(str::to_owned),
            headers: parts.headers.clone(),
        })
    }
}

impl Admitted {
    /// The query parameters (each at most once, all among `allowed`), once the data is loaded.
    fn params(&self, allowed: &[&str]) -> Result<BTreeMap<String, String>, ApiError> {
        ready(&self.state)?;
        params(self.query.as_deref(), allowed)
    }

    /// The answer kept under `key` (and the data version) in the dashboard's store, as a response
    /// to this request ([`kept::serve_kept`]: `If-None-Match`, `Accept-Encoding`); on a miss built
    /// by `build` on the bounded pool (the body and whether every point is final) and kept with
    /// `content_type`, a strong tag of the body and [`finality`]'s `Cache-Control`
    /// ([`kept::keep_and_serve`]: a large body compressed for a client that takes gzip, counted
    /// against the API's response memory budget).
    async fn respond_cached(
        &self,
        key: String,
        content_type: &'static str,
        build: impl FnOnce(AppState) -> Result<(Vec<u8>, bool), ApiError> + Send + 'static,
    ) -> Result<Response, ApiError> {
        let key = format!("{}|{key}", self.state.query().cache().data_version());
        if let Some(resp) = kept::serve_kept(&self.dash.cache, &key, &self.headers, false) {
            return Ok(resp);
        }
        let (s, dash, headers) = (self.state.clone(), self.dash.clone(), self.headers.clone());
        self.state
            .on_bounded_pool(move || -> Result<Response, ApiError> {
                if let Some(resp) = kept::serve_kept(&dash.cache, &key, &headers, true) {
                    return Ok(resp);
                }
                let (body, is_final) = build(s.clone())?;
                let finality = finality(&s, &body, is_final, content_type);
                kept::keep_and_serve(
                    &dash.cache,
                    s.response_memory(),
                    key,
                    Bytes::from(body),
                    finality,
                    &headers,
                )
            })
            .await?
    }
}

async fn admit(state: &AppState, dash: &Dash, client: ClientAddr) -> Result<(), ApiError> {
    let ip = client_of(client);
    let d = state
        .rate_limit()
        .check_quota(&format!("dash:{ip}"), dash.quota)
        .await;
    if d.allowed {
        Ok(())
    } else {
        Err(ApiError::too_many_requests(
            "too many dashboard requests from this address; slow down",
            d.retry_after_secs,
        ))
    }
}

/// The query parameters, each named at most once and all among `allowed`.
fn params(query: Option<&str>, allowed: &[&str]) -> Result<BTreeMap<String, String>, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or(""))
        .map_err(|e| ApiError::bad_request(format!("unreadable query string: {e}")))?;
    let mut out = BTreeMap::new();
    for (k, v) in pairs {
        if !allowed.contains(&k.as_str()) {
            return Err(ApiError::bad_request(format!(
                "parameter '{}' is not accepted here: the dashboard routes take only {}; use /v1 with a token for other queries",
                k.chars().take(40).collect::<String>(),
                allowed.join(", ")
            )));
        }
        if out.insert(k.clone(), v).is_some() {
            return Err(ApiError::bad_request(format!(
                "parameter '{k}' given twice"
            )));
        }
    }
    for name in allowed {
        if !out.contains_key(*name) {
            return Err(ApiError::bad_request(format!(
                "parameter '{name}' is required"
            )));
        }
    }
    Ok(out)
}

/// A `YYYY-MM-DD` day within [2000-01-01, today + 5 days), and no more than `history_days`
/// before today when bounded.
fn day_of(value: &str, now: OffsetDateTime, history_days: Option<u32>) -> Result<Date, ApiError> {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    let date = Date::parse(value.trim(), &fmt).map_err(|_| {
        ApiError::bad_request("date must be one UTC day written YYYY-MM-DD (one day at a time)")
    })?;
    let first = Date::from_calendar_date(2000, time::Month::January, 1).expect("valid date");
    if date < first || date >= now.date() + Duration::days(5) {
        return Err(ApiError::bad_request(
            "date must lie between 2000-01-01 and the end of the forecast (today + 4 days)",
        ));
    }
    if let Some(days) = history_days
        && date < now.date() - Duration::days(i64::from(days))
    {
        return Err(ApiError::bad_request(format!(
            "the public dashboard shows the last {days} days; older days need an account (the dashboard's login mode, or /v1 with a token)"
        )));
    }
    Ok(date)
}

/// One zone code of the reference zones (no lists).
fn zone_of(state: &AppState, value: &str) -> Result<String, ApiError> {
    let code = value.trim().to_ascii_uppercase();
    if state
        .reference()
        .zones
        .iter()
        .any(|z| z.code.as_str() == code)
    {
        Ok(code)
    } else {
        Err(ApiError::bad_request(
            "zone must be one zone code (see /dashboard/api/meta)",
        ))
    }
}

/// The period a part covers around day `date`.
pub fn part_period(part: &Part, date: Date) -> Period {
    let midnight = date.midnight().assume_utc();
    Period::new(
        midnight - Duration::days(part.window.days_before),
        midnight + Duration::days(part.window.days_after),
    )
}

fn ready(state: &AppState) -> Result<(), ApiError> {
    if state.is_loaded() {
        Ok(())
    } else {
        Err(ApiError::unavailable(
            "the data is still loading; please retry",
            5,
        ))
    }
}

/// Answers `parts` for `zone` and `date` as one JSON object `{"date", "zone", "parts": {name: answer}}`
/// and whether every point is final.
fn bundle(
    state: &AppState,
    parts: &[Part],
    zone: &str,
    date: Date,
) -> Result<(Vec<u8>, bool), ApiError> {
    let now = state.now();
    let mut body = format!(
        "{{\"date\":\"{date}\",\"zone\":{},\"parts\":{{",
        serde_json::Value::from(zone)
    )
    .into_bytes();
    let mut all_final = true;
    for (i, p) in parts.iter().enumerate() {
        let answer = (p.query)(state.query(), zone, part_period(p, date), now)?;
        all_final &= answer.is_final();
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(format!("\"{}\":", p.name).as_bytes());
        body.extend_from_slice(&answer.to_json());
    }
    body.extend_from_slice(b"}}");
    Ok((body, all_final))
}

/// How a dashboard answer goes out and is kept: a strong tag of its body, `public` (the answers
/// are the public dashboard's), an hour for a final one, the refresh interval for one that can
/// still change (and kept as long).
fn finality(state: &AppState, body: &[u8], is_final: bool, content_type: &'static str) -> Finality {
    let changing = crate::changing_ttl(state);
    let cache_control = if is_final {
        HeaderValue::from_static("public, max-age=3600")
    } else {
        HeaderValue::from_str(&format!("public, max-age={}", changing.as_secs().max(1)))
            .unwrap_or(HeaderValue::from_static("no-cache"))
    };
    Finality {
        etag: Some(etag_of(body)),
        cache_control,
        vary: None,
        content_type: HeaderValue::from_static(content_type),
        ttl: (!is_final).then_some(changing),
    }
}

const JSON: &str = "application/json";

async fn day(req: Admitted) -> Result<Response, ApiError> {
    let p = req.params(&["date"])?;
    let date = day_of(&p["date"], req.state.now(), req.dash.history_days)?;
    req.respond_cached(format!("day|{date}"), JSON, move |s| {
        bundle(&s, &DAY_PARTS, "", date)
    })
    .await
}

async fn zone(req: Admitted) -> Result<Response, ApiError> {
    let p = req.params(&["date", "zone"])?;
    let date = day_of(&p["date"], req.state.now(), req.dash.history_days)?;
    let zone = zone_of(&req.state, &p["zone"])?;
    let key = format!("zone|{zone}|{date}");
    req.respond_cached(key, JSON, move |s| bundle(&s, &ZONE_PARTS, &zone, date))
        .await
}

async fn csv(req: Admitted) -> Result<Response, ApiError> {
    let p = req.params(&["date", "part", "zone"])?;
    let date = day_of(&p["date"], req.state.now(), req.dash.history_days)?;
    let zone = zone_of(&req.state, &p["zone"])?;
    let part = *ZONE_PARTS
        .iter()
        .find(|z| z.name == p["part"])
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "part must be one of {}",
                ZONE_PARTS.map(|z| z.name).join(", ")
            ))
        })?;
    let key = format!("csv|{zone}|{date}|{}", part.name);
    let z = zone.clone();
    let mut resp = req
        .respond_cached(key, "text/csv; charset=utf-8", move |s| {
            let answer = (part.query)(s.query(), &z, part_period(&part, date), s.now())?;
            Ok((answer.to_csv(), answer.is_final()))
        })
        .await?;
    let name = format!(
        "attachment; filename=\"gridprint-{}-{zone}-{date}.csv\"",
        part.name.replace(':', "-")
    );
    if let Ok(v) = HeaderValue::from_str(&name) {
        resp.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}

fn parts_json(parts: &[Part]) -> serde_json::Value {
    parts
        .iter()
        .map(|p| {
            serde_json::json!({
                "name": p.name,
                "path": p.path,
                "params": serde_urlencoded::to_string((p.params)()).unwrap_or_default(),
                "days_before": p.window.days_before,
                "days_after": p.window.days_after,
            })
        })
        .collect()
}

/// The slot the page opens on. When the server holds data for now (a zone has a carbon footprint
/// at the current slot): the freshest provider data ([`freshest_complete_slot`]), else the current
/// slot. Otherwise the most recent slot at which most zones have data ([`best_covered_slot`]).
/// `None` without data.
pub fn opening_slot(state: &AppState) -> Result<Option<Slot>, ApiError> {
    let current = Slot::containing(state.now());
    let last_day = zones_per_slot(state, current.offset(1 - SLOTS_PER_DAY), current)?;
    if last_day.get(&current.0).is_some_and(|z| z.with_value > 0) {
        return Ok(Some(freshest_complete_slot(&last_day).unwrap_or(current)));
    }
    best_covered_slot(state)
}

/// Among the slots of `per_slot`, the latest at which at least 90 % as many zones read `complete`
/// as at the slot where most do; `None` when no zone reads `complete`.
fn freshest_complete_slot(per_slot: &BTreeMap<i64, SlotZones>) -> Option<Slot> {
    let best = per_slot.values().map(|z| z.complete).max().unwrap_or(0);
    if best == 0 {
        return None;
    }
    per_slot
        .iter()
        .rev()
        .find(|(_, z)| z.complete * 10 >= best * 9)
        .map(|(s, _)| Slot(*s))
}

/// The most recent slot, not after `now`, at which most zones have data: among the days (up to
/// today) held for at least 90 % as many zones as the best-covered day, the latest; within it and the
/// day before, the latest slot at which at least 90 % as many zones have a carbon footprint as at the
/// best-covered slot. `None` without data.
pub fn best_covered_slot(state: &AppState) -> Result<Option<Slot>, ApiError> {
    let today = Slot::containing(state.now()).day();
    best_covered_slot_of(state, &zones_per_day(state, today))
}

/// The best-covered slot ([`best_covered_slot`]'s rule) of the days before the present stretch (the
/// run of days with data that ends today): the page's "Earlier data" button, on the demo its
/// recorded 2017 day. `None` when the data run without a gap up to today or there is none.
pub fn earlier_slot(state: &AppState) -> Result<Option<Slot>, ApiError> {
    let today = Slot::containing(state.now()).day();
    let days = zones_per_day(state, today);
    if !days.contains_key(&today) {
        return Ok(None);
    }
    let mut first = today;
    while days.contains_key(&(first - 1)) {
        first -= 1;
    }
    best_covered_slot_of(state, &zones_per_day(state, first - 1))
}

/// How many zones hold derived data on each day up to `last`.
fn zones_per_day(state: &AppState, last: i64) -> BTreeMap<i64, usize> {
    let cache = state.query().cache();
    let mut zones_per_day: BTreeMap<i64, usize> = BTreeMap::new();
    for z in 0..state.reference().zones.len() {
        for d in cache.derived(z).days().iter().filter(|d| **d <= last) {
            *zones_per_day.entry(*d).or_default() += 1;
        }
    }
    zones_per_day
}

/// [`best_covered_slot`]'s rule over the days of `zones_per_day`.
fn best_covered_slot_of(
    state: &AppState,
    zones_per_day: &BTreeMap<i64, usize>,
) -> Result<Option<Slot>, ApiError> {
    let most = zones_per_day.values().copied().max().unwrap_or(0);
    let Some(day) = zones_per_day
        .iter()
        .rev()
        .find(|(_, n)| **n * 10 >= most * 9)
        .map(|(d, _)| *d)
    else {
        return Ok(None);
    };
    let counts = zones_per_slot(
        state,
        Slot::first_of_day(day - 1),
        Slot::first_of_day(day + 1).offset(-1),
    )?;
    let best = counts.values().map(|z| z.with_value).max().unwrap_or(0);
    Ok(counts
        .iter()
        .rev()
        .find(|(_, z)| z.with_value * 10 >= best * 9)
        .map(|(s, _)| Slot(*s)))
}

/// How many zones have a carbon footprint at a slot, and how many of them read `complete`.
#[derive(Debug, Clone, Copy, Default)]
struct SlotZones {
    with_value: usize,
    complete: usize,
}

/// [`SlotZones`] of every slot from `first` to `last` (both included, none after now) that holds a
/// carbon footprint, read from the `/v1/footprints` answer for every zone.
fn zones_per_slot(
    state: &AppState,
    first: Slot,
    last: Slot,
) -> Result<BTreeMap<i64, SlotZones>, ApiError> {
    let now = state.now();
    let query = FootprintsQuery {
        footprint_type: Some(FootprintType::Carbon),
        window: Some(Period::new(first.start(), last.offset(1).start())),
        ..FootprintsQuery::default()
    };
    let answer = state.query().ask::<FootprintsEndpoint>(query, now)?;
    let parsed: serde_json::Value =
        serde_json::from_slice(&answer.to_json()).map_err(ApiError::internal)?;
    // Zones with a value, and those reading complete, per slot (each zone's series hold each slot
    // at most once).
    let mut zones: BTreeMap<i64, (HashSet<&str>, HashSet<&str>)> = BTreeMap::new();
    for result in parsed.as_array().into_iter().flatten() {
        let zone = result["zone"].as_str().unwrap_or("");
        for series in result["series"].as_array().into_iter().flatten() {
            let complete = series["zone_status"] == "complete";
            for point in series["values"].as_array().into_iter().flatten() {
                let Some(t) = point[0]
                    .as_str()
                    .and_then(|t| gridprint_core::slot::parse_timestamp(t).ok())
                else {
                    continue;
                };
                let slot = Slot::containing(t);
                if t <= now && slot >= first && slot <= last {
                    let entry = zones.entry(slot.0).or_default();
                    entry.0.insert(zone);
                    if complete {
                        entry.1.insert(zone);
                    }
                }
            }
        }
    }
    Ok(zones
        .into_iter()
        .map(|(s, (with_value, complete))| {
            (
                s,
                SlotZones {
                    with_value: with_value.len(),
                    complete: complete.len(),
                },
            )
        })
        .collect())
}

/// The day the page opens on without a date in its URL: the opening slot's (see [`meta`]), kept like
/// `meta` per data version and current slot. `None` without data or while the data loads.
pub(crate) async fn opening_day(state: &AppState, dash: &Dash) -> Option<String> {
    if !state.is_loaded() {
        return None;
    }
    let key = format!(
        "{}|opening|{}",
        state.query().cache().data_version(),
        Slot::containing(state.now()).0
    );
    let body = match kept::kept_body(&dash.cache, &key) {
        Some(body) => body,
        None => {
            let s = state.clone();
            let day = state
                .on_bounded_pool(move || -> Result<String, ApiError> {
                    Ok(opening_slot(&s)?
                        .map(|o| format_timestamp(o.start())[..10].to_string())
                        .unwrap_or_default())
                })
                .await
                .ok()?
                .ok()?;
            let body = Bytes::from(day);
            let finality = finality(state, &body, true, "text/plain");
            kept::keep(&dash.cache, key, body.clone(), finality);
            body
        }
    };
    let day = String::from_utf8(body.to_vec()).ok()?;
    (!day.is_empty()).then_some(day)
}

/// The day a page URL's `date` names, if the day route would serve it (a preload hint is not sent
/// for a day the route refuses).
pub(crate) fn url_day(state: &AppState, dash: &Dash, query: Option<&str>) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query?).ok()?;
    let value = pairs.iter().find(|(k, _)| k == "date").map(|(_, v)| v)?;
    day_of(value, state.now(), dash.history_days)
        .ok()
        .map(|d| d.to_string())
}

async fn meta(req: Admitted) -> Result<Response, ApiError> {
    let now = req.state.now();
    let key = format!("meta|{}", Slot::containing(now).0);
    let mut resp = req
        .respond_cached(key, JSON, move |s| {
            let (opening, earlier) = if s.is_loaded() {
                (opening_slot(&s)?, earlier_slot(&s)?)
            } else {
                (None, None)
            };
            let zones = s
                .query()
                .ask::<ZonesEndpoint>(ZonesQuery, s.now())?
                .to_json();
            let zones: serde_json::Value =
                serde_json::from_slice(&zones).map_err(ApiError::internal)?;
            let body = serde_json::json!({
                "now": format_timestamp(s.now()),
                "demo": s.demo(),
                "opening_slot": opening.map(|o| format_timestamp(o.start())),
                "earlier_slot": earlier.map(|o| format_timestamp(o.start())),
                "slots_per_day": SLOTS_PER_DAY,
                "refresh_seconds": crate::changing_ttl(&s).as_secs_f64(),
                "zones": zones,
                "day_parts": parts_json(&DAY_PARTS),
                "zone_parts": parts_json(&ZONE_PARTS),
            });
            // Its key names the data version and the current slot, so it is kept as long as both hold;
            // browsers revalidate it (below).
            Ok((body.to_string().into_bytes(), true))
        })
        .await?;
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    #[test]
    fn only_the_page_parameters_are_accepted() {
        assert!(params(Some("date=2017-02-01"), &["date"]).is_ok());
        for bad in [
            "date=2017-02-01&end=2017-03-01",
            "date=2017-02-01&date=2017-02-02",
            "date=2017-02-01&format=csv",
            "",
        ] {
            let e = params(Some(bad), &["date"]).unwrap_err();
            assert_eq!(e.status(), StatusCode::BAD_REQUEST, "{bad}");
        }
    }

    #[test]
    fn one_day_within_the_forecast_horizon() {
        let now = time::macros::datetime!(2026-11-26 07:00 UTC);
        assert!(day_of("2017-02-01", now, None).is_ok());
        assert!(day_of("2026-11-30", now, None).is_ok());
        assert!(day_of("2026-10-26", now, Some(31)).is_ok());
        let old = day_of("2026-10-25", now, Some(31)).unwrap_err();
        assert_eq!(old.status(), StatusCode::BAD_REQUEST);
        for bad in [
            "2026-12-01",
            "1999-12-31",
            "2017-02-01/2017-03-01",
            "2017-02",
            "2017-02-01T00:00Z",
        ] {
            assert!(day_of(bad, now, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn parts_ask_v1_for_one_day_or_the_history() {
        let d = time::macros::date!(2017 - 02 - 01);
        let day = part_period(&DAY_PARTS[1], d);
        assert_eq!(format_timestamp(day.start), "2017-02-01T00:00:00Z");
        assert_eq!(format_timestamp(day.end), "2017-02-02T00:00:00Z");
        let own = (DAY_PARTS[1].params)();
        assert!(
            own.contains(&("scope".into(), "operational".into())),
            "{own:?}"
        );
        assert!(
            own.iter().all(|(k, _)| k != "zone" && k != "start"),
            "{own:?}"
        );
        let h = part_period(&ZONE_PARTS[4], d);
        assert_eq!(format_timestamp(h.start), "2017-01-26T00:00:00Z");
        assert_eq!(format_timestamp(h.end), "2017-02-06T00:00:00Z");
    }
}
