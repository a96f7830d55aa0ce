//! The layer in front of the router: the client's address, path aliases, trailing slashes and the
//! favicon — request rewrites that must happen before routing, so they hold for every route the
//! route table declares, including future ones.
//!
//! * **Client address.** The socket peer, unless the peer is one of the configured trusted proxies
//!   (`--trusted-proxies CIDR,...`): then the address a proxy forwarded in the one header it sets
//!   (`--client-ip-header`: `X-Forwarded-For`, the default, or `Forwarded`, RFC 7239 `for=`; the
//!   other header is ignored, so a client cannot add one the proxy passes through untouched), read
//!   from the right: the first address that is not a trusted proxy is the client (an unreadable or
//!   obfuscated entry stops the walk at the last trusted hop), so entries a client wrote in front of
//!   the proxy's are never reached. The result is put on the request as a [`ClientAddr`] extension,
//!   which the brute-force guard, the rate limits and any other code read; the per-address limits
//!   count an IPv6 client by its /64 ([`address_key`]), the block one subscriber usually holds.
//! * **Aliases** of the reference service's framework (`/latest/…`, `/openapi.json`, `/docs`,
//!   `/redoc`, `/v1/token-request/…`; the list in docs/api.md §1), query string kept.
//! * **Trailing slash.** A path ending in `/` that no route declares → 307 to the path without it,
//!   with a *relative* `Location` that keeps the query string (same origin, `Authorization` kept).
//! * **`/favicon.ico`**: a 16×16 icon.

use crate::http::error::Unrouted;
use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;

const FAVICON: &[u8] = include_bytes!("../../assets/favicon.ico");

/// The client's address as this module resolved it: the socket peer when served with
/// [`serve`](crate::serve) (or the forwarded address when the peer is a trusted proxy), `0.0.0.0` in
/// in-process tests without `ConnectInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    /// The address of a request (see the type's documentation).
    pub fn of(extensions: &axum::http::Extensions) -> ClientAddr {
        if let Some(resolved) = extensions.get::<ClientAddr>() {
            return *resolved; // resolved by `front` (trusted proxies)
        }
        ClientAddr(
            extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip())
                .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        )
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<ClientAddr, Infallible> {
        Ok(ClientAddr::of(&parts.extensions))
    }
}

/// The proxies whose forwarded client address is believed (`--trusted-proxies`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Arc<Vec<ipnet::IpNet>>);

impl TrustedProxies {
    /// Whether `ip` is one of them (IPv4-mapped IPv6 addresses count as their IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// Whether none is configured.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromStr for TrustedProxies {
    type Err = String;

    /// Comma-separated CIDR blocks or single addresses (`10.0.0.0/8,192.0.2.7,::1`); empty: none.
    fn from_str(s: &str) -> Result<TrustedProxies, String> {
        let mut nets = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let net = match ipnet::IpNet::from_str(part) {
                Ok(n) => n,
                Err(_) => IpAddr::from_str(part)
                    .map(ipnet::IpNet::from)
                    .map_err(|_| format!("'{part}' is neither an address nor a CIDR block"))?,
            };
            nets.push(net.trunc());
        }
        Ok(TrustedProxies(Arc::new(nets)))
    }
}

/// The header a trusted proxy writes the client's address in (`--client-ip-header`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ClientIpHeader {
    /// `X-Forwarded-For: client, proxy1, …` (nginx's `$proxy_add_x_forwarded_for`, most balancers).
    #[default]
    XForwardedFor,
    /// RFC 7239 `Forwarded: for=client, for=proxy1`.
    Forwarded,
}

impl FromStr for ClientIpHeader {
    type Err = String;

    fn from_str(s: &str) -> Result<ClientIpHeader, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ClientIpHeader::XForwardedFor),
            "forwarded" => Ok(ClientIpHeader::Forwarded),
            other => Err(format!(
                "'{other}' is not a client address header: use x-forwarded-for or forwarded"
            )),
        }
    }
}

/// Where the client's address comes from behind proxies: the trusted proxies and their header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forwarding {
    pub trusted: TrustedProxies,
    pub header: ClientIpHeader,
}

/// The key the per-address limits count a client under: an IPv4 address as is, an IPv6 address by
/// its /64 (`2001:db8:1:2::/64`), since one subscriber usually holds a whole /64.
pub fn address_key(ip: IpAddr) -> String {
    match canonical(ip) {
        IpAddr::V6(v6) => {
            let net = ipnet::Ipv6Net::new(v6, 64).map(|n| n.trunc());
            net.map(|n| n.to_string())
                .unwrap_or_else(|_| v6.to_string())
        }
        v4 => v4.to_string(),
    }
}

fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// The front layer (module documentation), outermost of the stack `crate::router_with_home` builds.
pub(crate) async fn front(
    State(forwarding): State<Forwarding>,
    mut req: Request,
    next: Next,
) -> Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| canonical(c.0.ip()))
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let client = client_address(peer, req.headers(), &forwarding);
    req.extensions_mut().insert(ClientAddr(client));

    let original = req.uri().clone();
    let path = original.path();
    if path == "/favicon.ico" && matches!(*req.method(), Method::GET | Method::HEAD) {
        return (
            [
                (header::CONTENT_TYPE, "image/x-icon"),
                (header::CACHE_CONTROL, "public, max-age=86400"),
            ],
            FAVICON,
        )
            .into_response();
    }
    if let Some(target) = alias(path)
        && let Some(uri) = with_path(&original, &target)
    {
        *req.uri_mut() = uri;
    }
    let resp = next.run(req).await;
    if resp.extensions().get::<Unrouted>().is_some()
        && let Some(location) = without_trailing_slash(&original)
    {
        let mut r = StatusCode::TEMPORARY_REDIRECT.into_response();
        if let Ok(v) = HeaderValue::from_str(&location) {
            r.headers_mut().insert(header::LOCATION, v);
            r.headers_mut().insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            return r;
        }
    }
    resp
}

/// The path a request for `path` is served from, if it is an alias.
fn alias(path: &str) -> Option<String> {
    let mut p = path.to_string();
    let mut changed = false;
    if let Some(rest) = strip_segment(&p, "/latest") {
        p = format!("/v1{rest}");
        changed = true;
    }
    if let Some(rest) = strip_segment(&p, "/v1/token-request") {
        p = format!("/token-request{rest}");
        changed = true;
    }
    if p == "/openapi.json" || p == "/redoc" || p == "/v1/redoc" {
        p = if p != "/openapi.json" {
            "/v1/docs".into()
        } else {
            "/v1/openapi.json".into()
        };
        changed = true;
    } else if let Some(rest) = strip_segment(&p, "/docs") {
        p = format!("/v1/docs{rest}");
        changed = true;
    }
    changed.then_some(p)
}

/// `path` without the leading segment `prefix` (`/latest/x` → `/x`, `/latest` → ``), if it starts
/// with that whole segment.
fn strip_segment<'a>(path: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = path.strip_prefix(prefix)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

fn with_path(uri: &Uri, path: &str) -> Option<Uri> {
    let pq = match uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(pq.parse().ok()?);
    Uri::from_parts(parts).ok()
}

/// The relative `Location` of a path with trailing slashes (`/v1/footprints/?zone=DE` →
/// `../footprints?zone=DE`), or `None` when there is nothing to strip.
fn without_trailing_slash(uri: &Uri) -> Option<String> {
    let path = uri.path();
    let trimmed = path.trim_end_matches('/');
    let slashes = path.len() - trimmed.len();
    let last = trimmed.rsplit('/').next().unwrap_or("");
    if slashes == 0 || last.is_empty() {
        return None;
    }
    let mut location = "../".repeat(slashes);
    location.push_str(last);
    if let Some(q) = uri.query() {
        location.push('?');
        location.push_str(q);
    }
    Some(location)
}

/// The client's address: the peer, or the forwarded address when the peer is a trusted proxy.
pub fn client_address(peer: IpAddr, headers: &HeaderMap, forwarding: &Forwarding) -> IpAddr {
    let trusted = &forwarding.trusted;
    if trusted.is_empty() || !trusted.contains(peer) {
        return peer;
    }
    let hops = forwarded_hops(headers, forwarding.header);
    let mut client = peer;
    for hop in hops.iter().rev() {
        match hop {
            Some(ip) if trusted.contains(*ip) => client = *ip,
            Some(ip) => return canonical(*ip),
            None => break,
        }
    }
    client
}

/// The forwarded chain of `header`, client first (every line of the header, in order). `None` for an
/// entry that is not an address (`unknown`, obfuscated names).
fn forwarded_hops(headers: &HeaderMap, header: ClientIpHeader) -> Vec<Option<IpAddr>> {
    let joined = |name: header::HeaderName| -> Option<String> {
        let values: Vec<&str> = headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        (!values.is_empty()).then(|| values.join(","))
    };
    if header == ClientIpHeader::Forwarded {
        let Some(fwd) = joined(header::FORWARDED) else {
            return Vec::new();
        };
        return fwd
            .split(',')
            .filter_map(|element| {
                element.split(';').find_map(|pair| {
                    let (k, v) = pair.split_once('=')?;
                    k.trim()
                        .eq_ignore_ascii_case("for")
                        .then(|| parse_node(v.trim().trim_matches('"')))
                })
            })
            .collect();
    }
    joined(header::HeaderName::from_static("x-forwarded-for"))
        .map(|x| x.split(',').map(|v| parse_node(v.trim())).collect())
        .unwrap_or_default()
}

/// An address with an optional port: `192.0.2.1`, `192.0.2.1:80`, `[2001:db8::1]:80`, `2001:db8::1`.
fn parse_node(v: &str) -> Option<IpAddr> {
    if let Some(rest) = v.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    v.parse().ok().or_else(|| {
        let (host, port) = v.rsplit_once(':')?;
        port.parse::<u16>().ok()?;
        host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                header::HeaderName::from_str(k).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn forwarded_addresses_count_only_from_trusted_peers() {
        let xff = Forwarding {
            trusted: "10.0.0.0/8, 192.0.2.7".parse().unwrap(),
            header: ClientIpHeader::XForwardedFor,
        };
        let fwd_header = Forwarding {
            header: ClientIpHeader::Forwarded,
            ..xff.clone()
        };
        let peer: IpAddr = "10.1.2.3".parse().unwrap();
        let client =
            |pairs: &[(&str, &str)]| client_address(peer, &headers(pairs), &xff).to_string();
        let client_fwd =
            |pairs: &[(&str, &str)]| client_address(peer, &headers(pairs), &fwd_header).to_string();
        let xff = [("x-forwarded-for", "203.0.113.9, 10.9.9.9")];
        assert_eq!(client(&xff), "203.0.113.9");
        // A spoofed leftmost entry is ignored: the rightmost untrusted one is the client.
        assert_eq!(
            client(&[("x-forwarded-for", "1.1.1.1, 203.0.113.9")]),
            "203.0.113.9"
        );
        // Untrusted peer: headers ignored.
        let other: IpAddr = "198.51.100.1".parse().unwrap();
        assert_eq!(
            client_address(other, &headers(&xff), &Forwarding::default()),
            other
        );
        // Only the configured header counts. Behind a proxy appending
        // X-Forwarded-For, a client's own `Forwarded` is ignored...
        let both = [
            (
                "forwarded",
                r#"for="[2001:db8::17]:4711";proto=https, for=192.0.2.7"#,
            ),
            ("x-forwarded-for", "203.0.113.9"),
        ];
        assert_eq!(client(&both), "203.0.113.9");
        // ...and with `--client-ip-header forwarded`, X-Forwarded-For is (IPv6 with port).
        assert_eq!(client_fwd(&both), "2001:db8::17");
        assert_eq!(
            client_fwd(&[("x-forwarded-for", "203.0.113.9")]),
            peer.to_string()
        );
        // A client's own X-Forwarded-For line comes before the proxy's: never reached.
        assert_eq!(
            client(&[
                ("x-forwarded-for", "1.2.3.4, 5.6.7.8"),
                ("x-forwarded-for", "203.0.113.9")
            ]),
            "203.0.113.9"
        );
        // Obfuscated entry: stop at the last trusted hop.
        assert_eq!(
            client_fwd(&[("forwarded", "for=unknown, for=192.0.2.7")]),
            "192.0.2.7"
        );
        assert!("Forwarded".parse::<ClientIpHeader>().is_ok());
        assert!("x-real-ip".parse::<ClientIpHeader>().is_err());
        assert!("nonsense".parse::<TrustedProxies>().is_err());
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let key = |s: &str| address_key(s.parse().unwrap());
        assert_eq!(key("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
        assert_ne!(key("2001:db8:1:3::1"), key("2001:db8:1:2::1"));
        assert_eq!(key("203.0.113.9"), "203.0.113.9");
        assert_eq!(key("::ffff:203.0.113.9"), "203.0.113.9");
    }

    #[test]
    fn aliases_and_relative_redirects() {
        for (path, want) in [
            ("/latest/footprints", Some("/v1/footprints")),
            ("/latestx", None),
            (
                "/v1/token-request/get_token",
                Some("/token-request/get_token"),
            ),
            ("/docs/docs.js", Some("/v1/docs/docs.js")),
            ("/redoc", Some("/v1/docs")),
            ("/v1/redoc", Some("/v1/docs")),
            ("/latest/redoc", Some("/v1/docs")),
            ("/v1/footprints", None),
        ] {
            assert_eq!(alias(path).as_deref(), want, "{path}");
        }
        for (uri, want) in [
            ("/v1/footprints/?zone=DE", Some("../footprints?zone=DE")),
            ("/v1/footprints//", Some("../../footprints")),
            ("/", None),
            ("/v1/zones", None),
        ] {
            let uri: Uri = uri.parse().unwrap();
            assert_eq!(without_trailing_slash(&uri).as_deref(), want, "{uri}");
        }
    }
}
