//! What the arguments of `gridprint query` become on the wire: the endpoint path under `/v1`
//! (normalised and checked against the endpoint list) and the query parameters, in a stable order,
//! with `--duration` and `--within` in the API's forms.
//!
//! The arguments themselves are in [`super::args`]; `run` in [`super`] sends the request.

use super::args::{QueryArgs, endpoints};
use anyhow::bail;
use gridprint_core::best_window::parse_api_duration;
use gridprint_core::slot::format_timestamp;
use time::OffsetDateTime;

/// The endpoint path under `/v1`, normalised (`green_score` → `green-score`, `/v1/zones` → `zones`).
pub fn endpoint_path(name: &str) -> anyhow::Result<String> {
    let n = name.trim().trim_matches('/').to_ascii_lowercase();
    let n = n.strip_prefix("v1/").unwrap_or(&n).replace('_', "-");
    let known = endpoints();
    if known.contains(&n) {
        Ok(n)
    } else {
        bail!(
            "unknown endpoint '{name}'; expected one of: {}",
            known.join(", ")
        )
    }
}

/// A duration as the CLI takes it (`2h`, `90m`, `1h30m`, `90`, `PT2H`) in the API's form: whole
/// minutes and ISO 8601 pass unchanged, `2h` becomes `PT2H`.
fn api_duration(s: &str) -> String {
    let s = s.trim();
    if s.is_empty() || s.chars().all(|c| c.is_ascii_digit()) || s.starts_with(['P', 'p']) {
        s.to_string()
    } else {
        format!("PT{}", s.to_ascii_uppercase())
    }
}

/// The query parameters from the flags, in a stable order (`--within` is counted from `now`).
pub fn query_pairs(args: &QueryArgs, now: OffsetDateTime) -> anyhow::Result<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    for (k, v) in [
        ("zone", &args.zone),
        ("lat", &args.lat),
        ("lon", &args.lon),
        ("start", &args.start),
        ("end", &args.end),
    ] {
        if let Some(v) = v {
            pairs.push((k.to_string(), v.clone()));
        }
    }
    if let Some(d) = &args.duration {
        pairs.push(("duration".into(), api_duration(d)));
    }
    if let Some(w) = &args.within {
        let secs =
            parse_api_duration(&api_duration(w)).map_err(|e| anyhow::anyhow!("--within: {e}"))?;
        let end = now + time::Duration::seconds(i64::try_from(secs).unwrap_or(i64::MAX / 2));
        pairs.push(("end".into(), format_timestamp(end)));
    }
    pairs.extend(args.params.iter().cloned());
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_window_flags_become_duration_and_end() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            q: QueryArgs,
        }
        let cli = Cli::try_parse_from([
            "q",
            "best-window",
            "--zone",
            "DE,FR",
            "--duration",
            "2h",
            "--within",
            "24h",
        ])
        .unwrap();
        let now = time::macros::datetime!(2024-06-15 10:07 UTC);
        let pairs = query_pairs(&cli.q, now).unwrap();
        let get = |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.as_str());
        assert_eq!(get("duration"), Some("PT2H"));
        assert_eq!(get("end"), Some("2024-06-16T10:07:00Z"));
        assert_eq!(get("zone"), Some("DE,FR"));
        assert_eq!(api_duration("90"), "90");
        assert_eq!(api_duration("1h30m"), "PT1H30M");
        assert_eq!(api_duration("PT45M"), "PT45M");
        let bad = Cli::try_parse_from(["q", "best-window", "--duration", "2h", "--within", "soon"])
            .unwrap();
        assert!(query_pairs(&bad.q, now).is_err());
    }

    #[test]
    fn endpoint_names_are_normalised() {
        assert_eq!(endpoint_path("green_score").unwrap(), "green-score");
        assert_eq!(endpoint_path("/v1/Footprints").unwrap(), "footprints");
        assert_eq!(endpoint_path("status/entso-e").unwrap(), "status/entso-e");
        assert!(endpoint_path("nope").is_err());
    }
}
