//! The dashboard page and its static files, compiled into the binary.
//!
//! `/` is the page (the mode written into a `<meta>` tag: the page never runs inline script, under a
//! strict Content-Security-Policy that allows only same-origin scripts, styles and fetches, plus the
//! `blob:` worker MapLibre starts), and `<link rel=preload>` tags for the answers it reads first: `meta`,
//! the polygons and, in public mode, the day it will show (the URL's `date`, else the opening slot's
//! day, see [`crate::data::opening_slot`]). `/dashboard/static/…` serves our modules and stylesheet and the
//! vendored MapLibre GL JS and uPlot builds with their licenses; `/dashboard/zones.geojson` is the
//! reference zone polygons. Static files carry a strong `ETag` and `Cache-Control: no-cache`, so a
//! browser revalidates them (304) instead of fetching them again. They are gzip-compressed once (in a
//! background thread when the routes are built) and served compressed to clients that accept gzip,
//! so no request pays for compressing MapLibre's megabyte again. In debug builds,
//! `GRIDPRINT_DASHBOARD_ASSETS_DIR=crates/gridprint-dashboard/assets` serves our own files from disk,
//! to iterate on the page without rebuilding.

use crate::DashboardMode;
use crate::data::{self, Dash};
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use gridprint_api::AppState;
use gridprint_api::kept::response_cache::{etag_of, matches_if_none_match};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// Content-Security-Policy of the page.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data: blob:; connect-src 'self'; worker-src 'self' blob:; child-src 'self' blob:; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const INDEX_HTML: &str = include_str!("../assets/index.html");

/// Static files: name under `/dashboard/static/`, media type, content.
const FILES: &[(&str, &str, &[u8])] = &[
    ("app.js", JS, include_bytes!("../assets/app.js")),
    ("map.js", JS, include_bytes!("../assets/map.js")),
    ("panel.js", JS, include_bytes!("../assets/panel.js")),
    ("data.js", JS, include_bytes!("../assets/data.js")),
    ("app.css", CSS, include_bytes!("../assets/app.css")),
    (
        "favicon.svg",
        "image/svg+xml",
        include_bytes!("../assets/favicon.svg"),
    ),
    (
        "vendor/maplibre-gl/maplibre-gl.mjs",
        JS,
        include_bytes!("../assets/vendor/maplibre-gl/maplibre-gl.mjs"),
    ),
    (
        "vendor/maplibre-gl/maplibre-gl-worker.mjs",
        JS,
        include_bytes!("../assets/vendor/maplibre-gl/maplibre-gl-worker.mjs"),
    ),
    (
        "vendor/maplibre-gl/maplibre-gl.css",
        CSS,
        include_bytes!("../assets/vendor/maplibre-gl/maplibre-gl.css"),
    ),
    (
        "vendor/maplibre-gl/LICENSE.txt",
        TEXT,
        include_bytes!("../assets/vendor/maplibre-gl/LICENSE.txt"),
    ),
    (
        "vendor/uplot/uPlot.iife.min.js",
        JS,
        include_bytes!("../assets/vendor/uplot/uPlot.iife.min.js"),
    ),
    (
        "vendor/uplot/uPlot.min.css",
        CSS,
        include_bytes!("../assets/vendor/uplot/uPlot.min.css"),
    ),
    (
        "vendor/uplot/LICENSE",
        TEXT,
        include_bytes!("../assets/vendor/uplot/LICENSE"),
    ),
];

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

/// The page and static routes of `mode`.
pub(crate) fn routes(mode: DashboardMode, dash: Arc<Dash>) -> Router<AppState> {
    std::thread::spawn(|| {
        for i in 0..FILES.len() {
            gzipped(i);
        }
    });
    Router::new()
        .route(
            "/",
            get(
                move |State(state): State<AppState>, RawQuery(q): RawQuery, h: HeaderMap| async move {
                    let hints = preload_hints(mode, &state, &dash, q.as_deref()).await;
                    page(mode, &hints, &h)
                },
            ),
        )
        .route("/dashboard/static/{*file}", get(file))
        .route("/dashboard/zones.geojson", get(geojson))
}

fn etags() -> &'static Vec<String> {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    TAGS.get_or_init(|| FILES.iter().map(|(_, _, b)| etag_of(b)).collect())
}

/// The gzip encoding of static file `i`, computed once.
fn gzipped(i: usize) -> &'static [u8] {
    static GZ: OnceLock<Vec<OnceLock<Vec<u8>>>> = OnceLock::new();
    let all = GZ.get_or_init(|| FILES.iter().map(|_| OnceLock::new()).collect());
    all[i].get_or_init(|| gzip(FILES[i].2))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|e| {
            let mut parts = e.split(';');
            parts
                .next()
                .is_some_and(|n| n.trim().eq_ignore_ascii_case("gzip"))
                && !parts.any(|p| p.trim().replace(' ', "") == "q=0")
        })
}

fn body_response(
    headers: &HeaderMap,
    content_type: &'static str,
    body: Cow<'static, [u8]>,
    etag: Cow<'_, str>,
) -> Response {
    let mut h = HeaderMap::new();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if matches_if_none_match(headers, &etag) {
        return (StatusCode::NOT_MODIFIED, h).into_response();
    }
    (h, body).into_response()
}

/// [`body_response`] of the gzip-compressed form of a body whose plain form is tagged `plain_tag`:
/// another representation, so another tag (`"…-gz"`), and `Content-Encoding: gzip`.
fn gzip_response(
    headers: &HeaderMap,
    content_type: &'static str,
    gz: &'static [u8],
    plain_tag: &str,
) -> Response {
    let tag = plain_tag.trim_end_matches('"');
    let mut resp = body_response(
        headers,
        content_type,
        Cow::Borrowed(gz),
        Cow::Owned(format!("{tag}-gz\"")),
    );
    resp.headers_mut()
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    resp
}

/// Our own files from `GRIDPRINT_DASHBOARD_ASSETS_DIR` (debug builds only).
fn from_disk(name: &str) -> Option<Vec<u8>> {
    if !cfg!(debug_assertions) || name.starts_with("vendor/") || name.contains("..") {
        return None;
    }
    let dir = std::env::var_os("GRIDPRINT_DASHBOARD_ASSETS_DIR")?;
    std::fs::read(std::path::Path::new(&dir).join(name)).ok()
}

async fn file(
    name: Result<Path<String>, axum::extract::rejection::PathRejection>,
    headers: HeaderMap,
) -> Response {
    // A name that is not UTF-8 once decoded (`%ff`) is no file: problem+json 404, not axum's
    // plain-text 400 (issue #28 item 10).
    let Some(i) = name
        .ok()
        .and_then(|Path(name)| FILES.iter().position(|(n, _, _)| *n == name))
    else {
        return gridprint_api::ApiError::not_found("no such file").into_response();
    };
    let (name, content_type, bytes) = FILES[i];
    if let Some(disk) = from_disk(name) {
        let tag = etag_of(&disk);
        return body_response(&headers, content_type, Cow::Owned(disk), Cow::Owned(tag));
    }
    if accepts_gzip(&headers) {
        return gzip_response(&headers, content_type, gzipped(i), &etags()[i]);
    }
    body_response(
        &headers,
        content_type,
        Cow::Borrowed(bytes),
        Cow::Borrowed(&etags()[i]),
    )
}

/// The zone polygons as served: coordinates rounded to 3 decimals (about 100 m, far below what
/// the map shows), gzip-compressed once, and their tags.
struct Polygons {
    plain: Vec<u8>,
    gz: Vec<u8>,
    tag: String,
}

fn polygons(geojson: &str) -> Polygons {
    fn round(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Array(items) => items.iter_mut().for_each(round),
            serde_json::Value::Number(n) => {
                if let Some(r) = n
                    .as_f64()
                    .filter(|f| f.fract() != 0.0)
                    .and_then(|f| serde_json::Number::from_f64((f * 1000.0).round() / 1000.0))
                {
                    *n = r;
                }
            }
            _ => {}
        }
    }
    let plain = match serde_json::from_str::<serde_json::Value>(geojson) {
        Ok(mut doc) => {
            for f in doc["features"].as_array_mut().into_iter().flatten() {
                round(&mut f["geometry"]["coordinates"]);
            }
            doc.to_string().into_bytes()
        }
        Err(_) => geojson.as_bytes().to_vec(),
    };
    Polygons {
        gz: gzip(&plain),
        tag: etag_of(&plain),
        plain,
    }
}

async fn geojson(State(state): State<AppState>, headers: HeaderMap) -> Response {
    static POLYGONS: OnceLock<Polygons> = OnceLock::new();
    let p = POLYGONS.get_or_init(|| polygons(&state.reference().geojson));
    if accepts_gzip(&headers) {
        return gzip_response(&headers, "application/geo+json", &p.gz, &p.tag);
    }
    body_response(
        &headers,
        "application/geo+json",
        Cow::Owned(p.plain.clone()),
        Cow::Borrowed(&p.tag),
    )
}

/// `<link rel=preload>` tags for the data the page reads first, so the browser asks for it while
/// it parses the page rather than once the scripts run: `meta`, the polygons and (public mode) the
/// day the page will show — the URL's `date` if the day route serves it, else the opening slot's
/// day. (The page's own `fetch` calls then take the preloaded answers.)
async fn preload_hints(
    mode: DashboardMode,
    state: &AppState,
    dash: &Dash,
    query: Option<&str>,
) -> String {
    let mut urls = vec![
        "/dashboard/api/meta".to_string(),
        "/dashboard/zones.geojson".to_string(),
    ];
    if mode == DashboardMode::Public {
        let day = match data::url_day(state, dash, query) {
            Some(d) => Some(d),
            None => data::opening_day(state, dash).await,
        };
        // `day` is a validated YYYY-MM-DD: nothing to escape.
        urls.extend(day.map(|d| format!("/dashboard/api/day?date={d}")));
    }
    urls.iter()
        .map(|u| format!("<link rel=\"preload\" href=\"{u}\" as=\"fetch\" crossorigin>\n"))
        .collect()
}

fn page(mode: DashboardMode, hints: &str, headers: &HeaderMap) -> Response {
    let html = from_disk("index.html")
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| INDEX_HTML.to_string())
        .replace("{{MODE}}", mode.as_str())
        .replace("{{PRELOAD}}\n", hints);
    let tag = etag_of(html.as_bytes());
    let mut resp = body_response(
        headers,
        "text/html; charset=utf-8",
        Cow::Owned(html.into_bytes()),
        Cow::Owned(tag),
    );
    gridprint_api::tokens::page::page_headers(&mut resp, CSP);
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_negotiated_and_round_trips() {
        let mut h = HeaderMap::new();
        assert!(!accepts_gzip(&h));
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("br, gzip;q=0.8"),
        );
        assert!(accepts_gzip(&h));
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("gzip;q=0, br"),
        );
        assert!(!accepts_gzip(&h));
        let i = FILES.iter().position(|f| f.0 == "app.js").unwrap();
        let mut out = Vec::new();
        use std::io::Read as _;
        flate2::read::GzDecoder::new(gzipped(i))
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, FILES[i].2);
    }

    #[test]
    fn polygons_are_rounded_and_keep_every_zone() {
        let reference = gridprint_core::reference::ReferenceData::embedded(
            gridprint_core::reference::ZoneSet::Selected2026,
        );
        let p = polygons(&reference.geojson);
        assert!(p.plain.len() < reference.geojson.len(), "smaller");
        let doc: serde_json::Value = serde_json::from_slice(&p.plain).unwrap();
        let names: Vec<&str> = doc["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["properties"]["zoneName"].as_str())
            .collect();
        for z in reference.zones.iter() {
            assert!(names.contains(&z.code.as_str()), "{}", z.code);
        }
        let first = &doc["features"][0]["geometry"]["coordinates"][0][0][0][0];
        let x = first.as_f64().unwrap();
        assert_eq!((x * 1000.0).round() / 1000.0, x);
    }

    #[test]
    fn every_vendored_library_ships_its_license() {
        for lib in ["maplibre-gl", "uplot"] {
            assert!(
                FILES
                    .iter()
                    .any(|f| f.0.starts_with(&format!("vendor/{lib}/LICENSE"))),
                "{lib}"
            );
        }
    }
}
