//! `gridprint query`: ask a gridprint server (or any server of the same interface) for data from the
//! command line, through `gridprint-client` (tokens, retries, typed errors).
//!
//! Settings come from flags, then `GRIDPRINT_URL` / `GRIDPRINT_EMAIL` / `GRIDPRINT_PASSWORD`, then the
//! config file (`$XDG_CONFIG_HOME/gridprint/config.toml` or `~/.config/gridprint/config.toml`, or
//! `--config`), which `--save-config` writes with permissions 0600. Tokens are cached on disk (0600,
//! under the user's cache directory, one file per server and email) so repeated commands reuse one
//! token for its day. Output: a readable table (one row per point with its flags), the server's CSV
//! verbatim (`--format csv`) or its JSON verbatim (`--format json`).
//!
//! Files: [`args`] (the clap arguments), [`request`] (the endpoint path and query parameters they
//! make), [`config`] (the config file) and [`render`] (the table); this file resolves the settings,
//! builds the client and prints the answer.

mod args;
mod config;
mod render;
mod request;

pub use args::QueryArgs;

use anyhow::{Context, bail};
use args::OutputFormat;
use config::{ConfigFile, default_config_path, read_config, save_config};
use gridprint_client::{Client, Error, FileTokenStore, Format};
use render::Table;
use request::{endpoint_path, query_pairs};
use serde_json::Value;
use std::io::Write;
use std::sync::Arc;
use time::OffsetDateTime;

/// Server used when neither `--url`, `GRIDPRINT_URL` nor the config file names one.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8000";

/// Resolves the settings, saves the config or registers if asked, then asks the endpoint and prints
/// the answer in the chosen format.
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
            match client.register(args.code.as_deref()).await {
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
        if let Some(zones) = args
            .zone
            .as_deref()
            .filter(|_| !endpoint.starts_with("status"))
        {
            check_zones(&client, zones).await?;
        }
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

/// Fails on a `--zone` code the server does not serve: neither a zone of `/v1/zones` nor the
/// country code of some (`DK` for `DK1`, `DK2`, which some endpoints accept). The API answers such a
/// code with `200 []`, which on the command line would look like a zone without data.
async fn check_zones(client: &Client, zones: &str) -> anyhow::Result<()> {
    let body = client
        .get_raw("zones", &[], Format::Json)
        .await
        .with_context(|| format!("listing the zones of {}", client.base_url()))?;
    let served: Vec<Value> = serde_json::from_str(&body).context("the zone list is not JSON")?;
    let codes: Vec<String> = served
        .iter()
        .filter_map(|z| z["zone"].as_str().map(str::to_ascii_uppercase))
        .collect();
    let known = |code: &str| {
        let code = code.to_ascii_uppercase();
        codes.iter().any(|z| {
            z == &code
                || z.strip_prefix(&code)
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
        })
    };
    let unknown: Vec<&str> = zones
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty() && !known(c))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "unknown zone {}: this server serves none of that name (`gridprint query zones` lists \
             the zones)",
            unknown.join(", ")
        );
    }
    Ok(())
}
