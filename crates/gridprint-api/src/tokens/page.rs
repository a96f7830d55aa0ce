//! The browser page of the token service at `/token-request/`: register and get a token by hand.
//! A pure view: it renders what [`crate::tokens::token`] hands it (`View`) and knows nothing of tokens,
//! stores or limits.
//!
//! The page is plain HTML forms posting `application/x-www-form-urlencoded` to `register` and
//! `get_token` and `api-key` (relative URLs, so it works behind a path prefix), so it works without
//! JavaScript; the answer to a form post is this same page with the outcome in a live region at the
//! top and a new token or API key in a read-only field (or the caller's keys as a table). The only
//! script, `/token-request/page.js`, adds a "Copy" button. Accessibility: every field has a `<label>`, each form a `<fieldset>` and
//! `<legend>`, the outcome is announced (`role="alert"` for errors, `role="status"` otherwise) and
//! repeated in the `<title>`, focus outlines are visible, and everything is reachable by keyboard.
//!
//! No external assets. Every page response carries a strict Content-Security-Policy (only same-origin
//! script and style, forms only to the same origin, no framing), `X-Content-Type-Options: nosniff`
//! and `Referrer-Policy: no-referrer`; the token service adds `Cache-Control: no-store`, so a token
//! shown on the page is never cached.

use crate::http::error::ApiError;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use std::fmt::Write as _;

/// The Content-Security-Policy of the page.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
     connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SCRIPT: &str = include_str!("../../assets/page.js");
const STYLE: &str = include_str!("../../assets/page.css");
const ICON: &str = include_str!("../../assets/favicon.svg");

/// `GET /token-request` → the page's canonical address with a trailing slash.
pub(crate) async fn redirect() -> Redirect {
    Redirect::permanent("/token-request/")
}

/// `GET /token-request/`.
pub(crate) async fn index() -> Response {
    html(StatusCode::OK, render(None))
}

/// `GET /token-request/page.js`.
pub(crate) async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

/// `GET /token-request/page.css`.
pub(crate) async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

/// `GET /token-request/favicon.svg` (so browsers do not ask for a missing `/favicon.ico`).
pub(crate) async fn icon() -> Response {
    asset("image/svg+xml", ICON)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// What a form post produced, as the page shows it.
pub(crate) enum View<'a> {
    /// Registered now (`already`: it was registered before; nothing changed).
    Registered { email: &'a str, already: bool },
    /// A token was issued, valid for `expires_in` seconds (until `expires_at`, UTC).
    Token {
        email: &'a str,
        token: &'a str,
        expires_at: &'a str,
        expires_in: i64,
    },
    /// An API key was created (shown once).
    KeyCreated {
        email: &'a str,
        id: i64,
        key: &'a str,
        name: &'a str,
        expires_at: Option<String>,
    },
    /// The caller's API keys (never the keys themselves).
    KeyList { email: &'a str, keys: Vec<KeyLine> },
    /// The API key with this id was revoked.
    KeyRevoked { email: &'a str, id: i64 },
    /// The operation failed.
    Failed {
        email: Option<&'a str>,
        error: &'a ApiError,
    },
}

/// One API key in the page's list (times in UTC, `YYYY-MM-DDThh:mm:ssZ`).
pub(crate) struct KeyLine {
    pub id: i64,
    pub name: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub expires_at: Option<String>,
}

/// The page answering a form post.
pub(crate) fn outcome_page(view: View<'_>) -> Response {
    let status = match &view {
        View::Failed { error, .. } => error.status(),
        _ => StatusCode::OK,
    };
    let mut resp = html(status, render(Some(&view)));
    if let View::Failed { error, .. } = &view {
        error.add_headers(&mut resp);
    }
    resp
}

/// "24 hours", "90 minutes", "45 seconds": a token's validity for the page.
fn validity(secs: i64) -> String {
    let plural = |n: i64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    if secs >= 3600 && secs % 3600 == 0 {
        plural(secs / 3600, "hour")
    } else if secs >= 60 {
        plural(secs / 60, "minute")
    } else {
        plural(secs.max(0), "second")
    }
}

/// Sets the headers of an HTML page that only loads what `csp` allows and is never framed
/// (Content-Security-Policy, X-Frame-Options).
pub fn page_headers(resp: &mut Response, csp: &'static str) {
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

fn html(status: StatusCode, body: String) -> Response {
    let mut resp = (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        body,
    )
        .into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    resp
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The outcome box at the top of the page.
fn message(kind: &str, heading: &str, text: &str) -> String {
    let role = if kind == "error" {
        r#"role="alert" aria-live="assertive""#
    } else {
        r#"role="status" aria-live="polite""#
    };
    format!(
        r#"<div class="message {kind}" id="message" {role} tabindex="-1"><h2>{heading}</h2><p>{text}</p></div>"#
    )
}

/// A secret shown once (a token or an API key) in a read-only field with a copy button.
fn secret_section(what: &str, label: &str, value: &str, use_text: &str) -> String {
    format!(
        r#"
<section class="token" aria-labelledby="secret-heading">
  <h2 id="secret-heading">Your {what}</h2>
  <p><label for="secret">{label}</label>
  <input id="secret" name="secret" type="text" readonly value="{value}" autocomplete="off" spellcheck="false" aria-describedby="secret-use"></p>
  <p><button type="button" id="copy" hidden>Copy {what}</button> <span id="copy-status" role="status" aria-live="polite"></span></p>
  <p id="secret-use">{use_text}</p>
</section>"#,
        value = escape(value),
    )
}

/// The caller's API keys as a table.
fn key_table(keys: &[KeyLine]) -> String {
    let mut rows = String::new();
    for k in keys {
        let _ = write!(
            rows,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            k.id,
            escape(&k.name),
            escape(&k.created_at),
            escape(k.last_used_at.as_deref().unwrap_or("never")),
            escape(k.expires_at.as_deref().unwrap_or("never")),
        );
    }
    format!(
        r#"
<section class="keys" aria-labelledby="keys-heading">
  <h2 id="keys-heading">Your API keys</h2>
  <table>
  <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Created (UTC)</th><th scope="col">Last used</th><th scope="col">Expires</th></tr></thead>
  <tbody>{rows}</tbody>
  </table>
  <p>To revoke one, enter its id in the API keys form below with your email and password and press “Revoke key”.</p>
</section>"#
    )
}

fn render(view: Option<&View<'_>>) -> String {
    let (title_prefix, message, email, section) = match view {
        None => (String::new(), String::new(), String::new(), String::new()),
        Some(View::Registered { email, already }) => (
            "Registered – ".to_string(),
            message(
                "success",
                "Registered",
                &format!(
                    "{} is {}registered. Now get a token with the second form.",
                    escape(email),
                    if *already { "already " } else { "" }
                ),
            ),
            email.to_string(),
            String::new(),
        ),
        Some(View::Token {
            email,
            token,
            expires_at,
            expires_in,
        }) => (
            "Token issued – ".to_string(),
            message(
                "success",
                "Token issued",
                "Your token is shown below. Copy it now: it is not shown again.",
            ),
            email.to_string(),
            secret_section(
                "token",
                &format!(
                    "Access token (valid for {}, until {} UTC)",
                    validity(*expires_in),
                    escape(expires_at)
                ),
                token,
                &format!(
                    "Send it with every request to the data API as the header <code>Authorization: Bearer &lt;token&gt;</code>. It expires after {} (at {} UTC); get a new one with the form below.",
                    validity(*expires_in),
                    escape(expires_at)
                ),
            ),
        ),
        Some(View::KeyCreated {
            email,
            id,
            key,
            name,
            expires_at,
        }) => (
            "API key created – ".to_string(),
            message(
                "success",
                "API key created",
                "Your new API key is shown below. Copy it now: it is not shown again.",
            ),
            email.to_string(),
            secret_section(
                "API key",
                &format!(
                    "API key {id}{} ({})",
                    if name.is_empty() {
                        String::new()
                    } else {
                        format!(" “{}”", escape(name))
                    },
                    match expires_at {
                        Some(t) => format!("valid until {} UTC", escape(t)),
                        None => "valid until you revoke it".to_string(),
                    }
                ),
                key,
                "Give it to a tool configured once: as <code>Authorization: Bearer &lt;key&gt;</code> on every route, or as the header <code>auth-token: &lt;key&gt;</code> (Electricity Maps and CO2 Signal clients). It counts against your account's limits like your tokens.",
            ),
        ),
        Some(View::KeyList { email, keys }) => (
            "Your API keys – ".to_string(),
            message(
                "success",
                "Your API keys",
                &if keys.is_empty() {
                    "You have no API keys.".to_string()
                } else {
                    format!(
                        "You have {} API key{}, listed below.",
                        keys.len(),
                        if keys.len() == 1 { "" } else { "s" }
                    )
                },
            ),
            email.to_string(),
            if keys.is_empty() {
                String::new()
            } else {
                key_table(keys)
            },
        ),
        Some(View::KeyRevoked { email, id }) => (
            "API key revoked – ".to_string(),
            message(
                "success",
                "API key revoked",
                &format!("API key {id} is revoked: every server refuses it within a minute."),
            ),
            email.to_string(),
            String::new(),
        ),
        Some(View::Failed { email, error }) => (
            format!("Error: {} – ", escape(error.detail())),
            message(
                "error",
                "There is a problem",
                &format!(
                    r#"{} <span class="code">(HTTP {})</span>"#,
                    escape(error.detail()),
                    error.status().as_u16()
                ),
            ),
            email.unwrap_or_default().to_string(),
            String::new(),
        ),
    };
    let email = escape(&email);
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title_prefix}gridprint API access</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="page.css">
<script src="page.js" defer></script>
</head>
<body>
<main>
<h1>gridprint API access</h1>
<p>The gridprint API serves the carbon and water footprint of electricity per European bidding zone.
Access is granted by the operator on request, with a registration code. Once your email has been
granted access, register it once with that code and a password, then get a token (valid for 24 hours)
whenever you need one.</p>
<div id="outcome">{message}</div>
{section}
<section aria-labelledby="register-heading">
<h2 id="register-heading">1. Register (once)</h2>
<form method="post" action="register">
<fieldset>
<legend>Register your email and choose a password</legend>
<p><label for="register-email">Email</label>
<input id="register-email" name="email" type="email" autocomplete="email" required value="{email}"></p>
<p><label for="register-password">Password</label>
<input id="register-password" name="password" type="password" autocomplete="new-password" required minlength="12" aria-describedby="register-password-hint">
<span id="register-password-hint" class="hint">At least 12 characters, not all spaces.</span></p>
<p><label for="register-code">Registration code</label>
<input id="register-code" name="code" type="text" autocomplete="off" spellcheck="false" aria-describedby="register-code-hint">
<span id="register-code-hint" class="hint">The code that came with your access (<code>XXXX-XXXX-…</code>).</span></p>
<p><button type="submit">Register</button></p>
</fieldset>
</form>
</section>
<section aria-labelledby="get-token-heading">
<h2 id="get-token-heading">2. Get a token</h2>
<form method="post" action="get_token">
<fieldset>
<legend>Get a token with your email and password</legend>
<p><label for="get-token-email">Email</label>
<input id="get-token-email" name="email" type="email" autocomplete="email" required value="{email}"></p>
<p><label for="get-token-password">Password</label>
<input id="get-token-password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Get token</button></p>
</fieldset>
</form>
</section>
<section aria-labelledby="keys-form-heading">
<h2 id="keys-form-heading">3. API keys (for tools you configure once)</h2>
<p>An API key works like a token but does not expire after a day: give it to a tool such as
CodeCarbon, Home Assistant or a Kubernetes exporter. Create one, list yours, or revoke one by its id.</p>
<form method="post" action="api-key">
<fieldset>
<legend>Manage your API keys with your email and password</legend>
<p><label for="key-email">Email</label>
<input id="key-email" name="email" type="email" autocomplete="email" required value="{email}"></p>
<p><label for="key-password">Password</label>
<input id="key-password" name="password" type="password" autocomplete="current-password" required></p>
<p><label for="key-name">Name of a new key (optional)</label>
<input id="key-name" name="name" type="text" maxlength="100" autocomplete="off" aria-describedby="key-name-hint">
<span id="key-name-hint" class="hint">To recognise it later, e.g. “laptop CodeCarbon”.</span></p>
<p><label for="key-expires">Days a new key stays valid (optional)</label>
<input id="key-expires" name="expires_days" type="number" min="1" max="36500" inputmode="numeric" aria-describedby="key-expires-hint">
<span id="key-expires-hint" class="hint">Leave empty for a key that is valid until you revoke it.</span></p>
<p><label for="key-id">Id of the key to revoke</label>
<input id="key-id" name="id" type="number" min="1" inputmode="numeric" aria-describedby="key-id-hint">
<span id="key-id-hint" class="hint">Only for “Revoke key”: the id shown by “List my keys”.</span></p>
<p class="buttons"><button type="submit" name="action" value="create">Create key</button>
<button type="submit" name="action" value="list">List my keys</button>
<button type="submit" name="action" value="revoke">Revoke key</button></p>
</fieldset>
</form>
</section>
<section aria-labelledby="help-heading">
<h2 id="help-heading">Help</h2>
<p>Forgot your password, or need access? Contact the operator of this service: passwords are reset
and access is granted outside this page. Programs can use the same service with JSON:
<code>POST register</code> with <code>{{"email": "…", "password": "…", "code": "…"}}</code> and
<code>POST get_token</code> with <code>{{"email": "…", "password": "…"}}</code>;
<code>POST api-key</code> with <code>{{"email": "…", "password": "…", "action": "create"}}</code>
(or <code>"list"</code>, or <code>"revoke"</code> with <code>"id"</code>).</p>
</section>
</main>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn page_has_labelled_fields_and_no_external_assets() {
        let p = render(None);
        for id in [
            "register-email",
            "register-password",
            "register-code",
            "get-token-email",
            "get-token-password",
            "key-email",
            "key-password",
            "key-name",
            "key-expires",
            "key-id",
        ] {
            assert!(p.contains(&format!(r#"<label for="{id}""#)), "{id}");
        }
        assert!(!p.contains("http://") && !p.contains("https://"));
    }
}
