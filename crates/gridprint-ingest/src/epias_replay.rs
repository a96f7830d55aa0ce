//! A loopback EPIAS platform for tests (wiremock), since no machine here reaches the real one: the
//! login service and the two data endpoints, answering from hand-written day files
//! (`data/fixtures/epias/`) the way the platform documents it.
//!
//! [`EpiasReplay`] holds the items of each endpoint and the credentials it accepts. The login
//! ([`EpiasReplay::login`]) answers `201` with a new TGT (`TGT-<n>-replay`) for the right form body,
//! `401` otherwise. A data request ([`EpiasReplay::answer`]) needs a TGT that is current (issued and
//! not expired with [`EpiasReplay::expire_tickets`]; else `401` with the expired-ticket body), keeps
//! the items dated in `[startDate, endDate)` and returns page `number` of `size` of them — an empty
//! `items` list past the last one. Every request is counted per endpoint and page, so tests can check
//! that a TGT was reused and every page read.

use std::sync::Mutex;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Where the loopback platform answers, relative to its root: the data service and the login.
pub const GENERATION_PATH: &str = "/electricity-service/v1/generation/data/realtime-generation";
pub const CONSUMPTION_PATH: &str = "/electricity-service/v1/consumption/data/realtime-consumption";
pub const TICKETS_PATH: &str = "/cas/v1/tickets";

#[derive(Debug, Default)]
struct State {
    issued: Vec<String>,
    /// Tickets issued before this index are expired.
    valid_from: usize,
    logins: usize,
    /// (path, page number) of every data request answered 200.
    pages: Vec<(String, u64)>,
    refused: usize,
}

/// The loopback platform's content and bookkeeping.
#[derive(Debug)]
pub struct EpiasReplay {
    username: String,
    password: String,
    generation: Vec<serde_json::Value>,
    consumption: Vec<serde_json::Value>,
    expired_body: String,
    state: Mutex<State>,
}

fn items(day_file: &[u8]) -> Result<Vec<serde_json::Value>, String> {
    let v: serde_json::Value = serde_json::from_slice(day_file).map_err(|e| e.to_string())?;
    v.get("items")
        .and_then(|i| i.as_array())
        .cloned()
        .ok_or_else(|| "no items array".to_string())
}

fn date_of(v: &serde_json::Value) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(v.get("date")?.as_str()?, &Rfc3339).ok()
}

impl EpiasReplay {
    /// A platform accepting `username`/`password`, serving the items of the two day files.
    pub fn new(
        username: &str,
        password: &str,
        generation_file: &[u8],
        consumption_file: &[u8],
        expired_body: &str,
    ) -> Result<EpiasReplay, String> {
        Ok(EpiasReplay {
            username: username.into(),
            password: password.into(),
            generation: items(generation_file)?,
            consumption: items(consumption_file)?,
            expired_body: expired_body.into(),
            state: Mutex::default(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Logins answered so far (right or wrong credentials).
    pub fn logins(&self) -> usize {
        self.state().logins
    }

    /// Data requests refused with 401 so far.
    pub fn refused(&self) -> usize {
        self.state().refused
    }

    /// `(path, page number)` of every data request answered 200, in order.
    pub fn pages(&self) -> Vec<(String, u64)> {
        self.state().pages.clone()
    }

    /// Every ticket issued so far stops working (as if two hours had passed).
    pub fn expire_tickets(&self) {
        let mut s = self.state();
        s.valid_from = s.issued.len();
    }

    /// Answers `POST /cas/v1/tickets`: (status, body).
    pub fn login(&self, form_body: &[u8]) -> (u16, String) {
        let mut s = self.state();
        s.logins += 1;
        let form: Vec<(String, String)> =
            serde_urlencoded::from_bytes(form_body).unwrap_or_default();
        let get = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        if get("username") == Some(self.username.as_str())
            && get("password") == Some(self.password.as_str())
        {
            let tgt = format!("TGT-{}-replay", s.issued.len() + 1);
            s.issued.push(tgt.clone());
            (201, tgt)
        } else {
            (401, "error.authentication.credentials.bad".into())
        }
    }

    /// Answers a data request at `path` with the `TGT` header `tgt` and the JSON `body`: (status,
    /// body).
    pub fn answer(&self, path: &str, tgt: Option<&str>, body: &[u8]) -> (u16, String) {
        let mut s = self.state();
        let current = tgt.is_some_and(|t| s.issued[s.valid_from..].iter().any(|i| i == t));
        if !current {
            s.refused += 1;
            return (401, self.expired_body.clone());
        }
        let all = if path.ends_with("realtime-generation") {
            &self.generation
        } else if path.ends_with("realtime-consumption") {
            &self.consumption
        } else {
            return (404, "{}".into());
        };
        let Ok(q) = serde_json::from_slice::<serde_json::Value>(body) else {
            return (
                400,
                r#"{"errors":[{"errorMessage":"invalid body"}]}"#.into(),
            );
        };
        let date = |k: &str| {
            q.get(k)
                .and_then(|v| v.as_str())
                .and_then(|v| OffsetDateTime::parse(v, &Rfc3339).ok())
        };
        let page = &q["page"];
        let (Some(start), Some(end), Some(number), Some(size)) = (
            date("startDate"),
            date("endDate"),
            page["number"].as_u64(),
            page["size"].as_u64(),
        ) else {
            return (
                400,
                r#"{"errors":[{"errorMessage":"missing parameter"}]}"#.into(),
            );
        };
        if number == 0 || size == 0 {
            return (400, r#"{"errors":[{"errorMessage":"bad page"}]}"#.into());
        }
        let chosen: Vec<&serde_json::Value> = all
            .iter()
            .filter(|i| date_of(i).is_some_and(|d| d >= start && d < end))
            .collect();
        let from = ((number - 1) * size) as usize;
        let page_items: Vec<&serde_json::Value> = chosen
            .iter()
            .skip(from)
            .take(size as usize)
            .copied()
            .collect();
        s.pages.push((path.to_string(), number));
        let out = serde_json::json!({
            "items": page_items,
            "page": {"number": number, "size": size, "total": chosen.len(),
                     "sort": {"field": "date", "direction": "ASC"}}
        });
        (200, out.to_string())
    }
}

/// A wiremock responder for every path of an [`EpiasReplay`] (mount it for `POST` on any path).
#[cfg(feature = "testing")]
#[derive(Debug, Clone)]
pub struct EpiasResponder(pub std::sync::Arc<EpiasReplay>);

#[cfg(feature = "testing")]
impl wiremock::Respond for EpiasResponder {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        let path = request.url.path();
        let (status, body, mime) = if path.ends_with(TICKETS_PATH) {
            let (s, b) = self.0.login(&request.body);
            (s, b, "text/plain")
        } else {
            let tgt = request.headers.get("TGT").and_then(|v| v.to_str().ok());
            let (s, b) = self.0.answer(path, tgt, &request.body);
            (s, b, "application/json")
        };
        wiremock::ResponseTemplate::new(status).set_body_raw(body.into_bytes(), mime)
    }
}
