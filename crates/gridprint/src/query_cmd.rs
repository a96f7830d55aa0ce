//! `gridprint query`: ask a gridprint server (or any server of the same interface) for data from the
//! command line, through `gridprint-client` (tokens, retries, typed errors).
//!
//! Settings come from flags, then `GRIDPRINT_URL` / `GRIDPRINT_EMAIL` / `GRIDPRINT_PASSWORD`, then the
//! config file (`$XDG_CONFIG_HOME/gridprint/config.toml` or `~/.config/gridprint/config.toml`, or
//! `--config`), which `--save-config` writes with permissions 0600. Tokens are cached on disk (0600,
//! under the user's cache directory, one file per server and email) so repeated commands reuse one
//! token for its day. Output: a readable table (one row per point with its flags), the server's CSV
//! verbatim (`--format csv`) or its JSON verbatim (`--format json`).

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use gridprint_client::token::{create_private_dir, user_config_dir, write_private_file};
use gridprint_client::{Client, Error, FileTokenStore, Format};
use gridprint_core::best_window::parse_api_duration;
use gridprint_core::slot::format_timestamp;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use time::OffsetDateTime;

/// Server used when neither `--url`, `GRIDPRINT_URL` nor the config file names one.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8000";

/// The status paths under `/v1` (answered by the HTTP layer, outside the endpoint table).
const STATUS_PATHS: &[&str] = &[
    "status",
    "status/storage",
    "status/entso-e",
    "status/elexon",
    "status/epias",
];

/// The endpoints under `/v1`: every path of the query service's endpoint table, then the status
/// paths.
fn endpoints() -> Vec<&'static str> {
    gridprint_query::Endpoint::ALL
        .iter()
        .flat_map(|e| e.paths().iter().copied())
        .chain(STATUS_PATHS.iter().copied())
        .collect()
}

/// The help of the endpoint argument: every endpoint of the table.
fn endpoint_help() -> String {
    format!("Endpoint: {}.", endpoints().join(", "))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Aligned columns, one row per point with its flags.
    Table,
    /// The server's long-format CSV, verbatim.
    Csv,
    /// The server's JSON, verbatim.
    Json,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gridprint query footprints --zone DE --start 2024-06-15T00:00Z --end 2024-06-15T02:00Z
  gridprint query mix-share --zone CH --param origin_zone=FR --start 2017-02-01 --end 2017-02-02 --format csv
  gridprint query footprints --zone DE --start 2024-06-15 --end 2024-06-16 --param aggregate=true
  gridprint query best-window --zone DE,FR,DK --duration 2h --within 24h
  gridprint query availability --zone DE
  GRIDPRINT_EMAIL=ada@example.org GRIDPRINT_PASSWORD=... gridprint query --save-config --register")]
pub struct QueryArgs {
    /// The endpoint (its list, from the endpoint table, is the help text).
    #[arg(required_unless_present_any = ["save_config", "register"], help = endpoint_help())]
    pub endpoint: Option<String>,
    /// Zone code, or several separated by commas (`ES,FR,DE`); omitted: every zone.
    #[arg(long)]
    pub zone: Option<String>,
    /// Latitude of a point (with --lon) instead of --zone.
    #[arg(long, requires = "lon", allow_negative_numbers = true)]
    pub lat: Option<String>,
    /// Longitude of a point (with --lat).
    #[arg(long, requires = "lat", allow_negative_numbers = true)]
    pub lon: Option<String>,
    /// Start of the window, ISO 8601 (`2024-06-15T00:00Z`, `2024-06-15`); with --end. Omitted: the
    /// current 15-minute slot.
    #[arg(long, requires = "end")]
    pub start: Option<String>,
    /// End of the window (with --start).
    #[arg(long, requires = "start")]
    pub end: Option<String>,
    /// best-window: the job's length, `2h`, `90m`, `1h30m`, whole minutes (`90`) or ISO 8601
    /// (`PT2H`); the server rounds it up to whole 15-minute slots.
    #[arg(long, env = "GRIDPRINT_QUERY_DURATION")]
    pub duration: Option<String>,
    /// best-window: the job must end within this long from now (`24h`, same forms as --duration);
    /// sent as `end` (the server's default start is the current slot). Omitted: the forecast's end.
    #[arg(long, env = "GRIDPRINT_QUERY_WITHIN", conflicts_with = "end")]
    pub within: Option<String>,
    /// Any other query parameter, repeatable: `--param footprint_type=carbon --param aggregate=true`.
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE", value_parser = parse_pair)]
    pub params: Vec<(String, String)>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Server URL (`http(s)://HOST[:PORT]`). Default: the config file's, else http://127.0.0.1:8000.
    #[arg(long, env = "GRIDPRINT_URL")]
    pub url: Option<String>,
    /// Email registered with the token service.
    #[arg(long, env = "GRIDPRINT_EMAIL")]
    pub email: Option<String>,
    /// Password (prefer the environment variable or the config file: arguments are visible to
    /// other users of the machine).
    #[arg(long, env = "GRIDPRINT_PASSWORD", hide_env_values = true)]
    pub password: Option<String>,
    /// Config file. Default: $XDG_CONFIG_HOME/gridprint/config.toml or ~/.config/gridprint/config.toml.
    #[arg(long, env = "GRIDPRINT_CONFIG")]
    pub config: Option<PathBuf>,
    /// Save the URL, email and password in effect to the config file (permissions 0600).
    #[arg(long)]
    pub save_config: bool,
    /// Register the email and password with the token service (the email must have been granted
    /// access by an operator).
    #[arg(long)]
    pub register: bool,
    /// Neither read nor write the on-disk token cache.
    #[arg(long)]
    pub no_token_cache: bool,
    /// Retries after a 429, a 5xx or a connection error.
    #[arg(long, default_value_t = 3)]
    pub retries: usize,
}

fn parse_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("expected KEY=VALUE, got '{s}'")),
    }
}

/// The config file: every key optional.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct ConfigFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    password: Option<String>,
}

/// The default config file path.
pub fn default_config_path() -> Option<PathBuf> {
    user_config_dir().map(|d| d.join("gridprint").join("config.toml"))
}

fn read_config(path: &Path) -> anyhow::Result<ConfigFile> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ConfigFile::default()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(m) = std::fs::metadata(path)
            && m.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "warning: {} is readable by other users; run `chmod 600 {}`",
                path.display(),
                path.display()
            );
        }
    }
    toml::from_str(&text).with_context(|| format!("reading {}", path.display()))
}

fn save_config(path: &Path, cfg: &ConfigFile) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let text = toml::to_string(cfg).context("writing the config")?;
    write_private_file(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

/// The endpoint path under `/v1`, normalised (`green_score` → `green-score`, `/v1/zones` → `zones`).
fn endpoint_path(name: &str) -> anyhow::Result<String> {
    let n = name.trim().trim_matches('/').to_ascii_lowercase();
    let n = n.strip_prefix("v1/").unwrap_or(&n).replace('_', "-");
    let known = endpoints();
    if known.contains(&n.as_str()) {
        Ok(n)
    } else {
        bail!(
            "unknown endpoint '{name}'; expected one of: {}",
            known.join(", ")
        )
    }
}

pub fn run(args: &QueryArgs) -> anyhow::Result<()> {
    let config_path = args.config.clone().or_else(default_config_path);
    let file = match &config_path {
        Some(p) => read_config(p)?,
        None => ConfigFile::default(),
    };
    let url = args
        .url
        .clone()
        .or(file.url)
        .unwrap_or_else(|| DEFAULT_URL.to_string());
    let email = args.email.clone().or(file.email);
    let password = args.password.clone().or(file.password);

    if args.save_config {
        let Some(path) = &config_path else {
            bail!("no config directory: set XDG_CONFIG_HOME or HOME, or give --config");
        };
        save_config(
            path,
            &ConfigFile {
                url: Some(url.clone()),
                email: email.clone(),
                password: password.clone(),
            },
        )?;
        eprintln!("saved {} (permissions 0600)", path.display());
    }

    let mut builder = Client::builder().base_url(&url).retries(args.retries);
    if let (Some(e), Some(p)) = (&email, &password) {
        builder = builder.credentials(e, p);
    }
    if !args.no_token_cache
        && let Some(store) = FileTokenStore::in_user_cache()
    {
        builder = builder.token_store(Arc::new(store));
    }
    let client = builder.build()?;
    let endpoint = args.endpoint.as_deref().map(endpoint_path).transpose()?;
    let needs_credentials = args.register
        || endpoint
            .as_deref()
            .is_some_and(|e| !e.starts_with("status"));
    if needs_credentials && (email.is_none() || password.is_none()) {
        bail!(
            "no credentials: set GRIDPRINT_EMAIL and GRIDPRINT_PASSWORD (or --email/--password), or \
             store them with `gridprint query --save-config`"
        );
    }

    let runtime = crate::open::runtime(tokio::runtime::Builder::new_current_thread())?;
    runtime.block_on(async {
        if args.register {
            match client.register().await {
                Ok(()) => eprintln!("registered {}", email.as_deref().unwrap_or_default()),
                Err(Error::Api { status: 409, .. }) => {
                    eprintln!(
                        "{} is already registered",
                        email.as_deref().unwrap_or_default()
                    )
                }
                Err(e) => return Err(anyhow::Error::new(e).context("registering")),
            }
        }
        let Some(endpoint) = endpoint else {
            return Ok(());
        };
        let pairs = query_pairs(args, OffsetDateTime::now_utc())?;
        let format = match args.format {
            OutputFormat::Csv => Format::Csv,
            OutputFormat::Json | OutputFormat::Table => Format::Json,
        };
        let body = client
            .get_raw(&endpoint, &pairs, format)
            .await
            .with_context(|| format!("querying {}v1/{endpoint}", client.base_url()))?;
        let mut out = std::io::stdout().lock();
        match args.format {
            OutputFormat::Csv => out.write_all(body.as_bytes())?,
            OutputFormat::Json => {
                out.write_all(body.as_bytes())?;
                if !body.ends_with('\n') {
                    out.write_all(b"\n")?;
                }
            }
            OutputFormat::Table => {
                let v: Value = serde_json::from_str(&body).context("the answer is not JSON")?;
                let table = Table::from_json(&v);
                if table.rows.is_empty() {
                    eprintln!("no data for this request");
                } else {
                    out.write_all(table.render().as_bytes())?;
                }
            }
        }
        out.flush()?;
        Ok(())
    })
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
fn query_pairs(args: &QueryArgs, now: OffsetDateTime) -> anyhow::Result<Vec<(String, String)>> {
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

/// Descriptive columns placed first, in this order (the others follow alphabetically).
const HEAD: &[&str] = &[
    "zone",
    "footprint_type",
    "impact_type",
    "factor_type",
    "production_type",
    "scope",
    "coverage",
    "source",
    "destination",
    "origin",
];

/// Columns placed after the descriptive ones, in this order.
const TAIL: &[&str] = &[
    "timestamp",
    "start",
    "end",
    "value",
    "unit",
    "zone_status",
    "valid",
    "data_state",
    "datasource",
    "aggregation_method",
];

/// A JSON answer flattened to one row per point.
#[derive(Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some(String::new()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        Value::Array(a) if a.iter().all(|x| !x.is_array() && !x.is_object()) => {
            Some(a.iter().filter_map(scalar).collect::<Vec<_>>().join(","))
        }
        _ => None,
    }
}

/// `[[timestamp, number], …]`.
fn is_point_list(v: &Value) -> bool {
    matches!(v, Value::Array(a) if a.iter().all(|p| matches!(p, Value::Array(x) if x.len() == 2)))
}

type Row = Vec<(String, String)>;

/// Collects rows: the object's scalar fields are inherited by the rows of its nested objects;
/// `values` produces one row per point; an object with neither is one row.
fn walk(obj: &serde_json::Map<String, Value>, inherited: &Row, out: &mut Vec<Row>) {
    let mut row = inherited.clone();
    for (k, v) in obj {
        if k == "values" && is_point_list(v) {
            continue;
        }
        if let Some(s) = scalar(v) {
            row.push((k.clone(), s));
        }
    }
    let mut produced = false;
    if let Some(Value::Array(points)) = obj.get("values").filter(|v| is_point_list(v)) {
        produced = true;
        for p in points {
            let mut r = row.clone();
            r.push(("timestamp".into(), p[0].as_str().unwrap_or_default().into()));
            r.push(("value".into(), scalar(&p[1]).unwrap_or_default()));
            out.push(r);
        }
    }
    for v in obj.values() {
        if let Value::Array(items) = v
            && !items.is_empty()
            && items.iter().all(Value::is_object)
        {
            produced = true;
            for item in items {
                if let Value::Object(m) = item {
                    walk(m, &row, out);
                }
            }
        }
    }
    // A result whose series (or values) is empty has no point to show.
    if !produced && !obj.contains_key("series") && !obj.contains_key("values") {
        out.push(row);
    }
}

impl Table {
    /// Flattens any answer of the interface (an array of result objects, or the status object).
    pub fn from_json(v: &Value) -> Table {
        let mut rows: Vec<Row> = Vec::new();
        match v {
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::Object(m) => walk(m, &Vec::new(), &mut rows),
                        other => {
                            rows.push(vec![("value".into(), scalar(other).unwrap_or_default())])
                        }
                    }
                }
            }
            Value::Object(m) => walk(m, &Vec::new(), &mut rows),
            other => rows.push(vec![("value".into(), scalar(other).unwrap_or_default())]),
        }
        let mut columns: Vec<String> = Vec::new();
        let mut add = |c: &str| {
            if !columns.iter().any(|x| x == c) {
                columns.push(c.to_string());
            }
        };
        for h in HEAD {
            if rows.iter().flatten().any(|(k, _)| k == h) {
                add(h);
            }
        }
        let mut others: Vec<&str> = rows
            .iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .filter(|k| !TAIL.contains(k) && !HEAD.contains(k))
            .collect();
        others.sort_unstable();
        for k in others {
            add(k);
        }
        for t in TAIL {
            if rows.iter().flatten().any(|(k, _)| k == t) {
                add(t);
            }
        }
        let rows = rows
            .into_iter()
            .map(|r| {
                columns
                    .iter()
                    .map(|c| {
                        r.iter()
                            .rev()
                            .find(|(k, _)| k == c)
                            .map(|(_, v)| v.clone())
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect();
        Table { columns, rows }
    }

    /// Aligned columns separated by two spaces; numeric columns right-aligned.
    pub fn render(&self) -> String {
        let n = self.columns.len();
        let mut width: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
        let mut numeric = vec![true; n];
        for r in &self.rows {
            for (i, cell) in r.iter().enumerate() {
                width[i] = width[i].max(cell.chars().count());
                if !cell.is_empty() && cell.parse::<f64>().is_err() {
                    numeric[i] = false;
                }
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                let last = i + 1 == n;
                if i > 0 {
                    s.push_str("  ");
                }
                if numeric[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if !last {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s.push('\n');
            s
        };
        let mut out = line(&self.columns);
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
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

    #[test]
    fn footprints_flatten_to_one_row_per_point() {
        let v: Value = serde_json::from_str(
            r#"[{"footprint_type":"carbon","scope":"life-cycle","zone":"DE","unit":"gCO2/kWh","coverage":"global",
                "series":[{"valid":true,"zone_status":"complete","values":[["2024-06-15T00:00:00Z",301.5],["2024-06-15T00:15:00Z",299.0]]},
                          {"valid":false,"zone_status":"preview","values":[["2024-06-15T00:30:00Z",12.25]]}]}]"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(
            t.columns,
            [
                "zone",
                "footprint_type",
                "scope",
                "coverage",
                "timestamp",
                "value",
                "unit",
                "zone_status",
                "valid"
            ]
        );
        assert_eq!(t.rows.len(), 3);
        assert_eq!(
            t.rows[2],
            [
                "DE",
                "carbon",
                "life-cycle",
                "global",
                "2024-06-15T00:30:00Z",
                "12.25",
                "gCO2/kWh",
                "preview",
                "false"
            ]
        );
        let text = t.render();
        assert!(text.starts_with("zone  footprint_type  scope"), "{text}");
        assert!(text.contains(" 301.5  gCO2/kWh"), "{text}");
    }

    #[test]
    fn nested_blocks_aggregates_and_status() {
        let v: Value = serde_json::from_str(
            r#"[{"zone":"NL","unit":"MW","series":[{"valid":true,"zone_status":"complete","production":[
                {"production_type":"solar","data_state":"official","datasource":"ENTSO-E","values":[["2024-09-02T00:00:00Z",0.0]]}]}]}]"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(t.rows.len(), 1);
        assert!(t.columns.contains(&"data_state".to_string()));
        let v: Value = serde_json::from_str(
            r#"[{"scope":"operational","zone":"DE","coverage":"global","start":"2024-06-15T00:00:00Z","end":"2024-06-16T00:00:00Z",
                "value":55.1,"valid":true,"zone_status":"complete","aggregation_method":"time-weighted-average"}]"#,
        )
        .unwrap();
        assert_eq!(Table::from_json(&v).rows.len(), 1);
        let v: Value = serde_json::from_str(
            r#"{"storage":"up","entso-e":"unknown","elexon":"unknown","epias":"unknown"}"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(t.columns, ["elexon", "entso-e", "epias", "storage"]);
        assert_eq!(t.rows, [["unknown", "unknown", "unknown", "up"]]);
        let v: Value =
            serde_json::from_str(r#"[{"zone":"XX","provider":"ENTSO-E","neighbours":[]}]"#)
                .unwrap();
        assert_eq!(Table::from_json(&v).rows, [["XX", "", "ENTSO-E"]]);
        assert!(Table::from_json(&Value::Array(vec![])).rows.is_empty());
        let v: Value = serde_json::from_str(r#"[{"zone":"XX","unit":"MW","series":[]}]"#).unwrap();
        assert!(Table::from_json(&v).rows.is_empty());
    }

    #[test]
    fn availability_prints_one_row_per_run() {
        let v: Value = serde_json::from_str(
            r#"[{"zone":"DE","inputs":[
                {"input":"generation","runs":[
                    {"start":"2024-06-15T00:00:00Z","end":"2024-06-15T22:00:00Z","state":"official"},
                    {"start":"2024-06-15T22:00:00Z","end":"2024-06-16T00:00:00Z","state":"estimated"}]},
                {"input":"flow","from":"AT","to":"DE","runs":[
                    {"start":"2024-06-15T00:00:00Z","end":"2024-06-16T00:00:00Z","state":"estimated"}]}],
                "outputs":[{"start":"2024-06-15T00:00:00Z","end":"2024-06-16T00:00:00Z","state":"preview"}],
                "forecast_end":null}]"#,
        )
        .unwrap();
        let t = Table::from_json(&v);
        assert_eq!(t.rows.len(), 4, "{}", t.render());
        for c in ["zone", "input", "from", "to", "start", "end", "state"] {
            assert!(t.columns.contains(&c.to_string()), "{c}: {:?}", t.columns);
        }
        let col = |name: &str| t.columns.iter().position(|c| c == name).unwrap();
        let states: Vec<&str> = t.rows.iter().map(|r| r[col("state")].as_str()).collect();
        assert_eq!(states, ["official", "estimated", "estimated", "preview"]);
        assert_eq!(t.rows[2][col("from")], "AT");
    }
}
