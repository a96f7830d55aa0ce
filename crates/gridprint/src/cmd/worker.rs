//! `gridprint worker`: the live ingestion loop. Every interval it fetches the last day from ENTSO-E,
//! Elexon and EPIAS, estimates gaps, extends the forecast 96 hours ahead and recomputes every slot that is
//! not final, logging one line per cycle ([`gridprint_pipeline::worker`] does the work).
//!
//! Provider outages never stop it (the affected zones show `preview` or `missing` until data comes),
//! a failed cycle is retried at the next interval, SIGTERM or Ctrl-C stop it cleanly, and only one
//! worker per database runs cycles (the store's leader lease; others stand by). Without an ENTSO-E
//! token the ENTSO-E zones get estimates and forecasts only; without an EPIAS account (said once at start)
//! TR does. `--once` runs a single cycle and exits.

use crate::cmd::ingest::{ProviderArgs, parse_flag_duration, parse_zones, shutdown_signal};
use crate::open::ServerArgs;
use anyhow::Context;
use clap::Args;
use gridprint_core::slot::{Clock, FixedClock, SLOT_SECONDS, SystemClock};
use gridprint_pipeline::forecast::ForecastConfig;
use gridprint_pipeline::worker::{Worker, WorkerConfig};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// Time between cycles (e.g. 15m, 5m, 1h).
    #[arg(long, env = "GRIDPRINT_WORKER_INTERVAL", default_value = "15m", value_parser = parse_flag_duration)]
    pub interval: Duration,
    /// Recent data fetched each cycle.
    #[arg(long, env = "GRIDPRINT_WORKER_WINDOW", default_value = "24h", value_parser = parse_flag_duration)]
    pub window: Duration,
    /// How far ahead inputs are forecast (at least 72h).
    #[arg(long, env = "GRIDPRINT_FORECAST_HORIZON", default_value = "96h", value_parser = parse_flag_duration)]
    pub horizon: Duration,
    /// Only these zones (comma-separated codes; their generation, load and borders). Default: all.
    #[arg(long, env = "GRIDPRINT_ZONES", value_delimiter = ',')]
    pub zones: Vec<String>,
    /// Do not ask ENTSO-E.
    #[arg(long, env = "GRIDPRINT_NO_ENTSOE")]
    pub no_entsoe: bool,
    /// Do not ask Elexon.
    #[arg(long, env = "GRIDPRINT_NO_ELEXON")]
    pub no_elexon: bool,
    /// Do not ask EPIAS (Türkiye).
    #[arg(long, env = "GRIDPRINT_NO_EPIAS")]
    pub no_epias: bool,
    /// Days each issued forecast is kept in the forecast archive (one per hour; it answers
    /// `/v3/forecast/historical` and the published accuracy, `/v1/forecast-accuracy`, is measured
    /// on it). 0: nothing is archived.
    #[arg(long, env = "GRIDPRINT_FORECAST_ARCHIVE_DAYS", default_value_t = 30)]
    pub forecast_archive_days: u32,
    /// Run one cycle and exit (cron, tests).
    #[arg(long, env = "GRIDPRINT_WORKER_ONCE")]
    pub once: bool,
    #[command(flatten)]
    pub providers: ProviderArgs,
    /// Pretend the current time is this instant (with --once: replays, tests).
    #[arg(long, env = "GRIDPRINT_NOW", hide = true)]
    pub now: Option<String>,
}

fn slots(d: Duration) -> i64 {
    (d.as_secs() as i64 / SLOT_SECONDS).max(1)
}

pub fn run(g: &ServerArgs, args: &WorkerArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let clock: Arc<dyn Clock> = match &args.now {
        Some(t) => Arc::new(FixedClock(crate::cmd::compute::now_from(Some(t))?)),
        None => Arc::new(SystemClock),
    };
    let entsoe = !args.no_entsoe;
    if entsoe && args.providers.entsoe_token.is_none() {
        tracing::warn!(
            "no ENTSO-E token (GRIDPRINT_ENTSOE_TOKEN): ENTSO-E zones get estimates and forecasts only"
        );
    }
    let epias = !args.no_epias;
    if epias && args.providers.epias_credentials().is_none() {
        tracing::warn!(
            "no EPIAS account (GRIDPRINT_EPIAS_USERNAME, GRIDPRINT_EPIAS_PASSWORD): TR gets estimates and forecasts only"
        );
    }
    if args.horizon < Duration::from_secs(72 * 3600) {
        tracing::warn!(
            horizon_hours = args.horizon.as_secs() / 3600,
            "forecast horizon shorter than 72 h"
        );
    }
    let fetcher = args
        .providers
        .fetcher(&reference, entsoe, !args.no_elexon, epias)?;
    let config = WorkerConfig {
        window_slots: slots(args.window),
        forecast: ForecastConfig {
            horizon_slots: slots(args.horizon) as usize,
            ..ForecastConfig::default()
        },
        concurrency: args.providers.concurrency,
        zones: parse_zones(&reference, &args.zones)?,
        archive_days: i64::from(args.forecast_archive_days),
        ..WorkerConfig::default()
    };
    let worker = Worker::new(store.clone(), reference, fetcher, config);
    let runtime = crate::open::runtime(tokio::runtime::Builder::new_multi_thread())?;
    runtime.block_on(async {
        if args.once {
            let lease = tokio::task::spawn_blocking(move || store.try_lead())
                .await
                .context("taking the worker lease")??;
            anyhow::ensure!(
                lease.is_some(),
                "another worker leads this database; not running a cycle"
            );
            let report = worker.run_cycle(clock.now()).await?;
            tracing::info!("{report}");
            return Ok(());
        }
        let shutdown = CancellationToken::new();
        let on_signal = shutdown.clone();
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("stopping the worker");
            on_signal.cancel();
        });
        tracing::info!(interval_s = args.interval.as_secs(), "worker started");
        worker.run(clock, args.interval, shutdown).await;
        Ok(())
    })
}
