//! `gridprint forecast-eval`: backtest the forecast on stored history and print its errors beside the
//! seasonal-naive baseline (the same slot on the last known day).
//!
//! Every stored series (generation per type, load, flows) with official data in the range is
//! replayed from origins every `--every` (default 6 h), starting one day into its data, forecasting
//! `--horizon` ahead (default 24 h) from the official values before the origin only. Both models are
//! scored on the same points: MAE in MW, and MAPE over the points whose actual value is at least
//! 1 MW (flows are often zero, which makes their MAPE large and unstable; read their MAE).

use crate::cmd::compute::RangeArgs;
use crate::cmd::ingest::{parse_flag_duration, parse_zones};
use crate::open::ServerArgs;
use anyhow::bail;
use clap::Args;
use gridprint_core::inputs::InputKey;
use gridprint_core::quality::DataState;
use gridprint_core::slot::{SLOT_SECONDS, SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_pipeline::forecast::{Backtest, ForecastConfig, LevelAdjust, backtest};
use gridprint_pipeline::series::group;
use std::time::Duration;

/// Longest range evaluated in one run (everything is loaded into memory).
const MAX_DAYS: i64 = 92;

#[derive(Debug, Args)]
pub struct ForecastEvalArgs {
    // The history to replay.
    #[command(flatten)]
    pub range: RangeArgs,
    /// Only these zones (comma-separated; flows count for both ends).
    #[arg(long, env = "GRIDPRINT_ZONES", value_delimiter = ',')]
    pub zones: Vec<String>,
    /// How far ahead each forecast is scored.
    #[arg(long, env = "GRIDPRINT_EVAL_HORIZON", default_value = "24h", value_parser = parse_flag_duration)]
    pub horizon: Duration,
    /// Time between two forecast origins.
    #[arg(long, env = "GRIDPRINT_EVAL_EVERY", default_value = "6h", value_parser = parse_flag_duration)]
    pub every: Duration,
}

fn name(key: &InputKey) -> String {
    match key {
        InputKey::Generation {
            zone,
            production_type,
        } => format!("generation {zone} {}", production_type.as_str()),
        InputKey::Load { zone } => format!("load {zone}"),
        InputKey::Flow { from, to } => format!("flow {from}->{to}"),
    }
}

fn pct(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2} %")
    } else {
        "-".into()
    }
}

pub fn run(g: &ServerArgs, args: &ForecastEvalArgs) -> anyhow::Result<()> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let Some(extent) = store.input_extent()? else {
        bail!("no inputs stored: import or ingest history first (e.g. gridprint import --demo)");
    };
    let start = args.range.start()?.unwrap_or(extent.start);
    let end = args.range.end()?.unwrap_or(extent.end);
    anyhow::ensure!(end > start, "--to must be after --from");
    let range = SlotRange::new(start, end);
    let days = range.days().count() as i64;
    if days > MAX_DAYS {
        bail!(
            "{days} days of history to replay; pass --from/--to spanning at most {MAX_DAYS} days"
        );
    }
    let only = parse_zones(&reference, &args.zones)?;
    let horizon = (args.horizon.as_secs() as i64 / SLOT_SECONDS).max(1) as usize;
    let every = (args.every.as_secs() as i64 / SLOT_SECONDS).max(1) as usize;
    let points = store.inputs_in_range(range)?;
    let series = group(points.iter().map(|s| &s.point), range, |p| {
        p.state == DataState::Official
            && match (&only, &p.key) {
                (None, _) => true,
                (Some(o), InputKey::Flow { from, to }) => o.contains(from) || o.contains(to),
                (Some(o), k) => o.contains(k.zone()),
            }
    });
    let cfg = ForecastConfig::default();
    println!(
        "forecast {} vs seasonal naive (same slot, last known day); horizon {} h, origins every {} h",
        gridprint_pipeline::forecast::METHOD,
        horizon as f64 / 4.0,
        every as f64 / 4.0
    );
    println!(
        "{:<40} {:>7} {:>7} {:>11} {:>11} {:>10} {:>10}",
        "series", "origins", "points", "MAE model", "MAE naive", "MAPE model", "MAPE naive"
    );
    let (mut wins, mut scored) = (0, 0);
    let (mut sum_model, mut sum_naive) = (0.0, 0.0);
    for (key, s) in &series {
        let Some(first) = s.values.iter().position(Option::is_some) else {
            continue;
        };
        let first = s.start.offset(first as i64 + SLOTS_PER_DAY);
        let origins = (first.0..end.0).step_by(every).map(Slot);
        let b: Backtest = backtest(s, LevelAdjust::for_key(key), &cfg, origins, horizon);
        if b.model.n == 0 {
            continue;
        }
        scored += 1;
        wins += (b.model.mae < b.naive.mae) as usize;
        sum_model += b.model.mae * b.model.n as f64;
        sum_naive += b.naive.mae * b.naive.n as f64;
        println!(
            "{:<40} {:>7} {:>7} {:>8.1} MW {:>8.1} MW {:>10} {:>10}",
            name(key),
            b.origins,
            b.model.n,
            b.model.mae,
            b.naive.mae,
            pct(b.model.mape),
            pct(b.naive.mape)
        );
    }
    if scored == 0 {
        println!(
            "no series has more than a day of official data in the range: nothing to evaluate"
        );
        return Ok(());
    }
    println!(
        "model beats seasonal naive on {wins} of {scored} series; total absolute error model/naive = {:.3}",
        sum_model / sum_naive
    );
    Ok(())
}
