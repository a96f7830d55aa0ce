//! The arguments of `gridprint query` (clap): the endpoint, its location, window and parameters, the
//! output format, the server and the credentials, each with its `GRIDPRINT_*` variable where it has
//! one. The endpoint list of the help comes from the query service's endpoint table ([`endpoints`]).
//!
//! What the arguments become on the wire is in [`super::request`]; the config file that fills in the
//! server and credentials is [`super::config`]; `run` in [`super`] ties them together.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// The status paths under `/v1` (answered by the HTTP layer, outside the endpoint table).
const STATUS_PATHS: &[&str] = &[
    "status",
    "status/storage",
    "status/entso-e",
    "status/elexon",
    "status/epias",
];

/// The endpoints under `/v1`: every data path the server routes, then the status paths.
pub fn endpoints() -> Vec<String> {
    gridprint_api::data_paths()
        .into_iter()
        .chain(STATUS_PATHS.iter().map(|p| p.to_string()))
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
  GRIDPRINT_EMAIL=ada@example.org GRIDPRINT_PASSWORD=... gridprint query --save-config --register --code XXXX-...")]
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
    /// access by an operator), with the registration code of the grant (`--code`).
    #[arg(long)]
    pub register: bool,
    /// The registration code the operator sent with the grant (`code: …` of `access grant`), for
    /// `--register`.
    #[arg(
        long,
        env = "GRIDPRINT_REGISTRATION_CODE",
        hide_env_values = true,
        requires = "register"
    )]
    pub code: Option<String>,
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
