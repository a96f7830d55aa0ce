//! `gridprint ingest entsoe|elexon|epias`: backfill a provider's history into the store, with a progress
//! bar, resumably, then compute the range.
//!
//! The plan skips every (series, day) already fully present as official data, so a rerun after a
//! crash, a Ctrl-C or failed requests fetches only what is still missing. Each answer is stored in
//! its own transaction as it arrives. The range is computed only when every request succeeded: slots
//! older than four hours are final once computed, and computing a half-fetched range would freeze
//! it incomplete. The provider options ([`ProviderArgs`]) are shared with `gridprint worker`.

use crate::open::ServerArgs;
use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{Slot, SlotRange, parse_timestamp};
use gridprint_core::zone::{Provider, ZoneCode};
use gridprint_ingest::elexon::{self, ElexonClient, ElexonConfig};
use gridprint_ingest::entsoe_api::{self, EntsoeClient, EntsoeConfig, EntsoeToken};
use gridprint_ingest::epias::{self, EpiasClient, EpiasConfig, EpiasCredentials, EpiasSecret};
use gridprint_ingest::fetch::Fetcher;
use gridprint_ingest::http::FetchRetry;
use gridprint_ingest::request::{DataKind, ForecastData};
use gridprint_pipeline::backfill::{self, BackfillOptions};
use gridprint_pipeline::tso_fetch;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Parses a duration flag of the command line: `90s`, `15m`, `1h`, `3d` or a plain number of seconds
/// (unlike the API's `duration`, where a plain number is minutes:
/// `gridprint_core::best_window::parse_api_duration`).
pub fn parse_flag_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s
        .find(|c: char| !c.is_ascii_digit())
        .map_or((s, "s"), |i| (&s[..i], s[i..].trim()));
    let n: u64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a duration such as 30s, 15m, 1h or 3d"))?;
    let secs = match unit {
        "s" | "sec" | "secs" => n,
        "m" | "min" | "mins" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => return Err(format!("'{s}': unknown unit '{unit}' (use s, m, h or d)")),
    };
    if secs == 0 {
        return Err("a duration must be positive".into());
    }
    Ok(Duration::from_secs(secs))
}

/// Provider endpoints and request behaviour (shared by `ingest` and `worker`).
#[derive(Debug, Args, Clone)]
pub struct ProviderArgs {
    /// ENTSO-E Transparency Platform REST API address.
    #[arg(long, env = "GRIDPRINT_ENTSOE_URL", default_value = entsoe_api::DEFAULT_BASE_URL)]
    pub entsoe_url: String,
    /// ENTSO-E security token (free: ask the Transparency Platform by email). Prefer the environment
    /// variable; the value is never printed or logged.
    #[arg(long, env = "GRIDPRINT_ENTSOE_TOKEN", hide_env_values = true)]
    pub entsoe_token: Option<EntsoeToken>,
    /// ENTSO-E requests per minute, shared by every request of this process (ENTSO-E allows 400).
    #[arg(long, env = "GRIDPRINT_ENTSOE_REQUESTS_PER_MINUTE", default_value_t = entsoe_api::DEFAULT_REQUESTS_PER_MINUTE)]
    pub entsoe_requests_per_minute: u32,
    /// Elexon Insights Solution API address (Great Britain; no key needed).
    #[arg(long, env = "GRIDPRINT_ELEXON_URL", default_value = elexon::DEFAULT_BASE_URL)]
    pub elexon_url: String,
    /// EPIAS Transparency Platform data service address (Türkiye).
    #[arg(long, env = "GRIDPRINT_EPIAS_URL", default_value = epias::DEFAULT_BASE_URL)]
    pub epias_url: String,
    /// EPIAS login service address (`/cas/v1/tickets` is appended).
    #[arg(long, env = "GRIDPRINT_EPIAS_AUTH_URL", default_value = epias::DEFAULT_AUTH_URL)]
    pub epias_auth_url: String,
    /// EPIAS account user name (free account on the Transparency Platform). Prefer the environment
    /// variable; never printed or logged.
    #[arg(long, env = "GRIDPRINT_EPIAS_USERNAME", hide_env_values = true)]
    pub epias_username: Option<EpiasSecret>,
    /// EPIAS account password. Use the environment variable (a flag shows in the process list);
    /// never printed or logged.
    #[arg(long, env = "GRIDPRINT_EPIAS_PASSWORD", hide_env_values = true)]
    pub epias_password: Option<EpiasSecret>,
    /// EPIAS requests per minute, logins included (EPIAS publishes no limit).
    #[arg(long, env = "GRIDPRINT_EPIAS_REQUESTS_PER_MINUTE", default_value_t = epias::DEFAULT_REQUESTS_PER_MINUTE)]
    pub epias_requests_per_minute: u32,
    /// Requests under way at once.
    #[arg(long, env = "GRIDPRINT_CONCURRENCY", default_value_t = 4)]
    pub concurrency: usize,
    /// Timeout of one request attempt (e.g. 60s).
    #[arg(long, env = "GRIDPRINT_HTTP_TIMEOUT", default_value = "60s", value_parser = parse_flag_duration)]
    pub http_timeout: Duration,
    /// Retries of a request after a timeout, a 5xx or a 429.
    #[arg(long, env = "GRIDPRINT_HTTP_RETRIES", default_value_t = 5)]
    pub http_retries: usize,
}

impl ProviderArgs {
    fn retry(&self) -> FetchRetry {
        FetchRetry {
            max_retries: self.http_retries,
            timeout: self.http_timeout,
            ..FetchRetry::default()
        }
    }

    /// The EPIAS account, when both variables are set and not blank.
    pub fn epias_credentials(&self) -> Option<EpiasCredentials> {
        EpiasCredentials::from_secrets(self.epias_username.as_ref(), self.epias_password.as_ref())
    }

    /// Builds the clients of the providers asked for.
    pub fn fetcher(
        &self,
        reference: &ReferenceData,
        entsoe: bool,
        elexon: bool,
        epias: bool,
    ) -> anyhow::Result<Fetcher> {
        let mut f = Fetcher::default();
        if entsoe {
            let cfg = EntsoeConfig {
                base_url: self.entsoe_url.clone(),
                token: self.entsoe_token.clone(),
                retry: self.retry(),
                requests_per_minute: self.entsoe_requests_per_minute,
            };
            f.entsoe = Some(
                EntsoeClient::new(cfg, Arc::new(reference.zones.clone()))
                    .map_err(anyhow::Error::msg)?,
            );
        }
        if elexon {
            let cfg = ElexonConfig {
                base_url: self.elexon_url.clone(),
                retry: self.retry(),
                ..ElexonConfig::default()
            };
            f.elexon = Some(ElexonClient::new(cfg).map_err(anyhow::Error::msg)?);
        }
        if epias {
            let cfg = EpiasConfig {
                base_url: self.epias_url.clone(),
                auth_url: self.epias_auth_url.clone(),
                credentials: self.epias_credentials(),
                retry: self.retry(),
                requests_per_minute: self.epias_requests_per_minute,
                ..EpiasConfig::default()
            };
            f.epias = Some(EpiasClient::new(cfg).map_err(anyhow::Error::msg)?);
        }
        Ok(f)
    }
}

/// Which provider to backfill from.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ProviderName {
    /// ENTSO-E Transparency Platform: generation (A75) and load (A65) of ENTSO-E zones, physical flows
    /// (A11) of every border.
    Entsoe,
    /// Elexon (Great Britain): generation per fuel type (FUELHH) and demand outturn.
    Elexon,
    /// EPIAS Transparency Platform (Türkiye): real-time generation and consumption (TR's border
    /// flows come from ENTSO-E).
    Epias,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Provider to fetch from.
    #[arg(value_enum)]
    pub provider: ProviderName,
    /// Start of the range (ISO 8601, e.g. 2024-09-01).
    #[arg(long, env = "GRIDPRINT_FROM")]
    pub from: String,
    /// End of the range, exclusive (ISO 8601; default: now).
    #[arg(long, env = "GRIDPRINT_TO")]
    pub to: Option<String>,
    /// Only these zones (comma-separated codes; their generation, load and borders). Default: all.
    #[arg(long, env = "GRIDPRINT_ZONES", value_delimiter = ',')]
    pub zones: Vec<String>,
    /// Kinds of data (comma-separated): actual values `generation`, `load`, `flows`; the TSOs'
    /// forecasts `wind-solar-day-ahead` (ENTSO-E A69 A01, Elexon WINDFOR), `wind-solar-intraday`
    /// (A69 A40), `load-day-ahead` (A65 A01, Elexon NDF), `scheduled-generation` (A71), stored
    /// apart from the actual values with their publication time.
    #[arg(
        long,
        env = "GRIDPRINT_KINDS",
        value_delimiter = ',',
        default_value = "generation,load,flows"
    )]
    pub kinds: Vec<String>,
    /// Longest request in days (ENTSO-E requests never span more than a year; Elexon's at most 7 days;
    /// EPIAS's at most 31, each paged).
    #[arg(long, env = "GRIDPRINT_CHUNK_DAYS", default_value_t = 31)]
    pub chunk_days: i64,
    /// Do not compute the range afterwards.
    #[arg(long, env = "GRIDPRINT_NO_COMPUTE")]
    pub no_compute: bool,
    #[command(flatten)]
    pub providers: ProviderArgs,
    /// Pretend the current time is this instant (tests, replays).
    #[arg(long, env = "GRIDPRINT_NOW", hide = true)]
    pub now: Option<String>,
}

/// Parses `--zones` against the reference data.
pub fn parse_zones(
    reference: &ReferenceData,
    zones: &[String],
) -> anyhow::Result<Option<Vec<ZoneCode>>> {
    let zones: Vec<&String> = zones.iter().filter(|z| !z.trim().is_empty()).collect();
    if zones.is_empty() {
        return Ok(None);
    }
    zones
        .into_iter()
        .map(|z| {
            let idx = reference
                .zones
                .index_of_str(z)
                .with_context(|| format!("unknown zone '{}'", z.trim()))?;
            Ok(reference.zones.code(idx).clone())
        })
        .collect::<anyhow::Result<Vec<_>>>()
        .map(Some)
}

/// Resolves when Ctrl-C or SIGTERM arrives (a signal that cannot be listened for is logged and
/// never arrives).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

pub fn run(g: &ServerArgs, args: &IngestArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let now = crate::cmd::compute::now_from(args.now.as_deref())?;
    let from = Slot::containing(parse_timestamp(&args.from).context("--from")?);
    let to = match &args.to {
        Some(t) => {
            let t = parse_timestamp(t).context("--to")?;
            Slot::from_unix_exact(t.unix_timestamp()).unwrap_or(Slot::containing(t).offset(1))
        }
        None => Slot::containing(now),
    };
    anyhow::ensure!(to > from, "--to must be after --from");
    let (kinds, forecasts) = parse_kinds(&args.kinds)?;
    let (provider, entsoe, elexon, epias) = match args.provider {
        ProviderName::Entsoe => (Provider::Entsoe, true, false, false),
        ProviderName::Elexon => (Provider::Elexon, false, true, false),
        ProviderName::Epias => (Provider::Epias, false, false, true),
    };
    if entsoe && args.providers.entsoe_token.is_none() {
        bail!(
            "no ENTSO-E security token: set GRIDPRINT_ENTSOE_TOKEN (free, requested by email from the Transparency Platform)"
        );
    }
    if epias && args.providers.epias_credentials().is_none() {
        bail!(
            "no EPIAS account: set GRIDPRINT_EPIAS_USERNAME and GRIDPRINT_EPIAS_PASSWORD (a free account of the \
             EPIAS Transparency Platform, see docs/providers.md)"
        );
    }
    let zones = parse_zones(&reference, &args.zones)?;
    let range = SlotRange::new(from, to);
    let fetcher = args.providers.fetcher(&reference, entsoe, elexon, epias)?;
    let runtime = crate::open::runtime(tokio::runtime::Builder::new_multi_thread())?;
    if !kinds.is_empty() {
        backfill_actuals(
            args,
            &store,
            &reference,
            &fetcher,
            &runtime,
            provider,
            kinds,
            zones.clone(),
            range,
        )?;
    }
    if !forecasts.is_empty() {
        backfill_forecasts(
            args, &store, &reference, &fetcher, &runtime, &forecasts, zones, range,
        )?;
    }
    // The forecasts change no published day: only actual values are computed.
    if !args.no_compute && args.kinds.iter().any(|k| DataKind::parse(k).is_some()) {
        crate::cmd::compute::compute_with_progress(
            &*store,
            &reference,
            &[range.whole_days()],
            now,
        )?;
    }
    Ok(())
}

/// Backfills the actual values of `kinds` over `range` (resumable: the plan skips what is stored).
#[allow(clippy::too_many_arguments)]
fn backfill_actuals(
    args: &IngestArgs,
    store: &gridprint_store::SharedStore,
    reference: &ReferenceData,
    fetcher: &Fetcher,
    runtime: &tokio::runtime::Runtime,
    provider: Provider,
    kinds: Vec<DataKind>,
    zones: Option<Vec<ZoneCode>>,
    range: SlotRange,
) -> anyhow::Result<()> {
    let opts = BackfillOptions {
        provider,
        kinds,
        zones,
        range,
        chunk_days: args.chunk_days.clamp(1, 365),
    };
    let plan = backfill::plan(&**store, &reference.zones, &opts)?;
    eprintln!(
        "{} series over {} days: {} series-days already present, {} to fetch in {} requests",
        plan.series,
        opts.range.days().count(),
        plan.days_present,
        plan.days_missing,
        plan.requests.len()
    );
    // A wrong EPIAS password is one clear error before anything is fetched or stored.
    if let Some(c) = &fetcher.epias
        && !plan.requests.is_empty()
    {
        runtime
            .block_on(c.check_login())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let report = runtime.block_on(async {
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            shutdown_signal().await;
            eprintln!("stopping: requests under way are dropped; rerun the same command to resume");
            on_signal.cancel();
        });
        let bar = ProgressBar::new(plan.requests.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("fetching {bar:40} {pos}/{len} requests ({eta} left)")
                .expect("valid template"),
        );
        let updated_at = time::OffsetDateTime::now_utc().unix_timestamp();
        let r = backfill::run(
            fetcher,
            store.clone(),
            plan,
            args.providers.concurrency,
            updated_at,
            &cancel,
            |done, _| bar.set_position(done),
        )
        .await;
        bar.finish_and_clear();
        r
    })?;
    eprintln!(
        "{} requests: {} answered, {} failed{}; {} points ({} new, {} changed, {} unchanged)",
        report.requests,
        report.succeeded,
        report.failed.len(),
        if report.cancelled {
            ", stopped early"
        } else {
            ""
        },
        report.points,
        report.stored.inserted,
        report.stored.updated,
        report.stored.unchanged
    );
    for e in report.failed.iter().take(10) {
        eprintln!("  {e}");
    }
    if report.failed.len() > 10 {
        eprintln!("  … and {} more", report.failed.len() - 10);
    }
    if report.cancelled || !report.failed.is_empty() {
        bail!(
            "backfill incomplete: rerun the same command to fetch what is missing (nothing was computed, so no \
             half-fetched slot was frozen; `gridprint compute` computes anyway)"
        );
    }
    Ok(())
}

/// Splits `--kinds` into kinds of actual values and TSO forecasts; an unknown name is an error
/// that lists the known ones.
fn parse_kinds(names: &[String]) -> anyhow::Result<(Vec<DataKind>, Vec<ForecastData>)> {
    let (mut kinds, mut forecasts) = (Vec::new(), Vec::new());
    for k in names.iter().filter(|k| !k.trim().is_empty()) {
        match (DataKind::parse(k), ForecastData::parse(k)) {
            (Some(d), _) => kinds.push(d),
            (None, Some(f)) => forecasts.push(f),
            (None, None) => {
                let known: Vec<&str> = ["generation", "load", "flows"]
                    .into_iter()
                    .chain(ForecastData::ALL.map(ForecastData::name))
                    .collect();
                bail!("unknown kind '{k}' (use {})", known.join(", "))
            }
        }
    }
    Ok((kinds, forecasts))
}

/// Backfills the TSOs' forecasts of `range` (no plan: a value already stored is written again
/// unchanged).
#[allow(clippy::too_many_arguments)]
fn backfill_forecasts(
    args: &IngestArgs,
    store: &gridprint_store::SharedStore,
    reference: &ReferenceData,
    fetcher: &Fetcher,
    runtime: &tokio::runtime::Runtime,
    forecasts: &[ForecastData],
    zones: Option<Vec<ZoneCode>>,
    range: SlotRange,
) -> anyhow::Result<()> {
    let requests = tso_fetch::requests(
        fetcher,
        &reference.zones,
        forecasts,
        zones.as_deref(),
        range,
    );
    eprintln!("TSO forecasts: {} requests", requests.len());
    let report = runtime.block_on(async {
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            shutdown_signal().await;
            on_signal.cancel();
        });
        let updated_at = time::OffsetDateTime::now_utc().unix_timestamp();
        tso_fetch::fetch_and_store(
            fetcher,
            store.clone(),
            requests,
            args.providers.concurrency,
            updated_at,
            &cancel,
        )
        .await
    })?;
    let failed: Vec<String> = report.failed().map(|(_, e)| e.to_string()).collect();
    eprintln!(
        "{} TSO forecast requests: {} failed; {} values ({} new, {} changed, {} unchanged)",
        report.requests,
        failed.len(),
        report.fetched,
        report.stored.inserted,
        report.stored.updated,
        report.stored.unchanged
    );
    for e in failed.iter().take(10) {
        eprintln!("  {e}");
    }
    if !failed.is_empty() {
        bail!("TSO forecast backfill incomplete: rerun the same command");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_flag_duration;
    use clap::Parser as _;
    use std::time::Duration;

    #[test]
    fn epias_credentials_never_show_in_debug() {
        let cli = crate::cli::Cli::try_parse_from([
            "gridprint",
            "ingest",
            "epias",
            "--from",
            "2025-07-28",
            "--epias-username",
            "user-7d1@example.org",
            "--epias-password",
            "pw-93kd-secret",
        ])
        .unwrap();
        let text = format!("{cli:?}");
        assert!(!text.contains("pw-93kd-secret"), "{text}");
        assert!(!text.contains("user-7d1@example.org"), "{text}");
        let crate::cli::Command::Ingest(args) = &cli.command else {
            panic!("not ingest")
        };
        assert!(args.args.providers.epias_credentials().is_some());
    }

    #[test]
    fn durations() {
        assert_eq!(
            parse_flag_duration("15m").unwrap(),
            Duration::from_secs(900)
        );
        assert_eq!(parse_flag_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(
            parse_flag_duration("73h").unwrap(),
            Duration::from_secs(73 * 3600)
        );
        assert!(parse_flag_duration("0s").is_err());
        assert!(parse_flag_duration("5 weeks").is_err());
    }
}
