//! `gridprint forecast-eval`: the forecast's yardstick on stored history. For origins every
//! `--every` over `--from`..`--to`, each forecast is made from only the official values published
//! before `origin − --lag`, and the flow-traced carbon footprint (life-cycle) it gives is scored
//! against the one traced from what happened, beside persistence, per zone and horizon band
//! (`gridprint_pipeline::forecast::eval` has the measures). `--fit` instead searches each class's
//! parameters on the range (`gridprint_pipeline::forecast::fit`) and prints them. Results and the
//! benchmark that runs both: docs/forecast.md, `scripts/forecast-bench.sh`.

use crate::cmd::compute::RangeArgs;
use crate::cmd::ingest::{parse_flag_duration, parse_zones};
use crate::open::ServerArgs;
use anyhow::{bail, ensure};
use clap::Args;
use gridprint_core::inputs::InputKey;
use gridprint_core::quality::DataState;
use gridprint_core::reference::ReferenceData;
use gridprint_core::slot::{SLOT_SECONDS, SLOTS_PER_DAY, Slot, SlotRange, format_timestamp};
use gridprint_pipeline::forecast::eval::{
    BANDS, EvalOptions, Footprint, Truth, TsoInputs, ZoneScore, evaluate, evaluate_with,
};
use gridprint_pipeline::forecast::fit::{PARAMETERS, descend, fit_class};
use gridprint_pipeline::forecast::tso::{
    BlendWeights, LEAD_BUCKETS, Published, PublishedInputs, WeightSamples, blend_key,
    collect_samples, fit_weights, scheduled_zone,
};
use gridprint_pipeline::forecast::{ForecastConfig, SeriesClass};
use gridprint_pipeline::series::Series;
use gridprint_store::Store;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Longest range scored in one run (the series are held in memory: about 1 MB per series-year).
const MAX_DAYS: i64 = 400;
/// Slots each fitted forecast is scored over (48 h, the bands the targets name).
const FIT_HORIZON_SLOTS: usize = 192;

#[derive(Debug, Args)]
pub struct ForecastEvalArgs {
    // The origins' range: each origin is in it, and so is its whole horizon (96 h).
    #[command(flatten)]
    pub range: RangeArgs,
    /// Only these zones' series (comma-separated; flows count for both ends). Footprints are
    /// traced from them alone.
    #[arg(long, env = "GRIDPRINT_ZONES", value_delimiter = ',')]
    pub zones: Vec<String>,
    /// Time between two forecast origins (not a whole number of days, so that origins fall at
    /// every hour of the day).
    #[arg(long, env = "GRIDPRINT_EVAL_EVERY", default_value = "31h", value_parser = parse_flag_duration)]
    pub every: Duration,
    /// Provider lag: the data of the last `--lag` before an origin is not published yet there.
    #[arg(long, env = "GRIDPRINT_EVAL_LAG", default_value = "1h", value_parser = parse_flag_duration)]
    pub lag: Duration,
    /// Search each class's parameters on the range instead of scoring (prints them); with
    /// `--tso`, measure the blend's weights instead (and the TSO's thermal forecast, reported only).
    #[arg(long, env = "GRIDPRINT_EVAL_FIT")]
    pub fit: bool,
    /// Blend in the stored TSO day-ahead forecasts (each origin uses the values published before
    /// it) and score the forecast with them against the same model without them and persistence.
    #[arg(long, env = "GRIDPRINT_EVAL_TSO")]
    pub tso: bool,
    /// Score the local carbon footprint (the zone's own generation) instead of the flow-traced
    /// one: for data without flows.
    #[arg(long, env = "GRIDPRINT_EVAL_LOCAL")]
    pub local: bool,
}

fn slots(d: Duration) -> i64 {
    d.as_secs() as i64 / SLOT_SECONDS
}

/// The official values of every series over `range`, read a week at a time.
fn load_series(
    store: &dyn Store,
    range: SlotRange,
    keep: impl Fn(&InputKey) -> bool,
) -> anyhow::Result<BTreeMap<InputKey, Series>> {
    let mut out: BTreeMap<InputKey, Series> = BTreeMap::new();
    let bar = ProgressBar::new(range.len() as u64 / SLOTS_PER_DAY as u64);
    bar.set_style(ProgressStyle::with_template(
        "loading {bar:40} {pos}/{len} days",
    )?);
    let mut start = range.start;
    while start < range.end {
        let end = start.offset(7 * SLOTS_PER_DAY).min(range.end);
        for s in store.inputs_in_range(SlotRange::new(start, end))? {
            let p = s.point;
            if p.state != DataState::Official || !p.mw.is_finite() || !keep(&p.key) {
                continue;
            }
            out.entry(p.key)
                .or_insert_with(|| Series::empty(range))
                .set(p.slot, Some(p.mw));
        }
        bar.set_position((end.0 - range.start.0) as u64 / SLOTS_PER_DAY as u64);
        start = end;
    }
    bar.finish_and_clear();
    Ok(out)
}

pub fn run(g: &ServerArgs, args: &ForecastEvalArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    let Some(extent) = store.input_extent()? else {
        bail!("no inputs stored: import or ingest history first (e.g. gridprint import --demo)");
    };
    // History loaded before the first origin: what the model reads (its longest profile).
    let history_days = ForecastConfig::default().history_days();
    let start = args
        .range
        .start()?
        .unwrap_or(extent.start.offset(history_days * SLOTS_PER_DAY));
    let end = args.range.end()?.unwrap_or(extent.end);
    ensure!(end > start, "--to must be after --from");
    let days = (end.0 - start.0) / SLOTS_PER_DAY;
    ensure!(
        days <= MAX_DAYS,
        "{days} days of origins; pass --from/--to spanning at most {MAX_DAYS} days"
    );
    let (every, lag) = (slots(args.every), slots(args.lag));
    ensure!(every >= 1, "--every must be at least 15 minutes");
    ensure!(lag >= 0, "--lag must not be negative");
    let opts = EvalOptions {
        lag_slots: lag,
        footprint: if args.local {
            Footprint::Local
        } else {
            Footprint::Global
        },
        ..EvalOptions::default()
    };
    let horizon = if args.fit && !args.tso {
        FIT_HORIZON_SLOTS as i64
    } else {
        opts.horizon_slots
    };
    // Origins on whole hours, each with its whole horizon inside the range.
    let first = Slot(start.0 + (4 - start.0.rem_euclid(4)) % 4);
    let origins: Vec<Slot> = (first.0..=end.0 - horizon)
        .step_by(every as usize)
        .map(Slot)
        .collect();
    ensure!(
        !origins.is_empty(),
        "the range is shorter than one horizon ({} h): nothing to score",
        horizon / 4
    );
    let only = parse_zones(&reference, &args.zones)?;
    let keep = |k: &InputKey| match (&only, k) {
        (None, _) => true,
        (Some(o), InputKey::Flow { from, to }) => o.contains(from) || o.contains(to),
        (Some(o), k) => o.contains(k.zone()),
    };
    let loaded = SlotRange::new(start.offset(-history_days * SLOTS_PER_DAY), end);
    let series = load_series(store.as_ref(), loaded, keep)?;
    ensure!(!series.is_empty(), "no official inputs stored in the range");
    if args.tso {
        let tso = load_tso(store.as_ref(), loaded, keep)?;
        ensure!(
            !tso.is_empty(),
            "no TSO day-ahead forecasts stored in the range: import the Transparency Platform's exports first"
        );
        if args.fit {
            let samples = collect_samples(
                &series,
                &tso,
                &origins,
                &ForecastConfig::default(),
                lag,
                opts.horizon_slots,
            );
            print_weights(&samples, origins.len(), lag);
        } else {
            let truth = Truth::new(&reference, &series, &origins, &opts);
            let weights = BlendWeights::default();
            let inputs = TsoInputs {
                published: &tso,
                weights: &weights,
            };
            let run = |tso: Option<&TsoInputs<'_>>| {
                evaluate_with(
                    &reference,
                    &series,
                    &truth,
                    &origins,
                    &ForecastConfig::default(),
                    &opts,
                    tso,
                    &|| {},
                )
            };
            let with = run(Some(&inputs));
            let without = run(None);
            print_tso_scores(&with, &without, &origins, lag, args.local);
        }
    } else if args.fit {
        print_fit(&reference, &series, &origins, &opts, lag);
    } else {
        let truth = Truth::new(&reference, &series, &origins, &opts);
        let bar = ProgressBar::new(origins.len() as u64);
        bar.set_style(ProgressStyle::with_template(
            "forecasting {bar:40} {pos}/{len} origins ({eta} left)",
        )?);
        let scores = evaluate(
            &reference,
            &series,
            &truth,
            &origins,
            &ForecastConfig::default(),
            &opts,
            &|| bar.inc(1),
        );
        bar.finish_and_clear();
        print_scores(&scores, &origins, lag);
    }
    eprintln!(
        "forecast-eval took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The stored TSO forecasts the blend reads, with their publication times, over `range`: the
/// wind, solar and load forecasts and each zone's scheduled generation.
fn load_tso(
    store: &dyn Store,
    range: SlotRange,
    keep: impl Fn(&InputKey) -> bool,
) -> anyhow::Result<PublishedInputs> {
    let mut out = PublishedInputs::default();
    let mut start = range.start;
    while start < range.end {
        let end = start.offset(7 * SLOTS_PER_DAY).min(range.end);
        for f in store.tso_forecasts_in_range(SlotRange::new(start, end), i64::MAX)? {
            let p = &f.forecast;
            let published = if let Some(key) = blend_key(&f) {
                if !keep(&key) {
                    continue;
                }
                out.series
                    .entry(key)
                    .or_insert_with(|| Published::empty(range))
            } else if let Some(zone) = scheduled_zone(&f) {
                if !keep(&InputKey::Load { zone: zone.clone() }) {
                    continue;
                }
                out.scheduled
                    .entry(zone)
                    .or_insert_with(|| Published::empty(range))
            } else {
                continue;
            };
            published.set(p.point.slot, p.point.mw, p.published_at);
        }
        start = end;
    }
    Ok(out)
}

/// The blend's measured weights and each bucket's errors, and the weights to put in
/// `BlendWeights::default`.
fn print_weights(samples: &WeightSamples, origins: usize, lag: i64) {
    let (weights, fits) = fit_weights(samples, BlendWeights::default());
    println!(
        "TSO blend weights over {origins} origins, lag {} min: least squares per class and hours after the last known value; MAE in MW",
        lag * 15
    );
    println!();
    println!(
        "| class | hours after the last value | samples | weight of the TSO | MAE model | MAE TSO | MAE blend | mean truth − TSO |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for f in &fits {
        let from = LEAD_BUCKETS[f.bucket] / 4;
        let to = LEAD_BUCKETS
            .get(f.bucket + 1)
            .map_or("…".to_string(), |b| (b / 4).to_string());
        println!(
            "| {} | {from}-{to} | {} | {:.2} | {:.1} | {:.1} | {:.1} | {:+.1} |",
            f.class.as_str(),
            f.n,
            f.weight,
            f.model_mae,
            f.tso_mae,
            f.blend_mae,
            f.tso_bias
        );
    }
    let list = |w: &[f64; 7]| {
        w.iter()
            .map(|v| format!("{v:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!();
    println!(
        "BlendWeights {{ solar: [{}], wind: [{}], load: [{}] }} (thermal: measured, blended nowhere)",
        list(&weights.solar),
        list(&weights.wind),
        list(&weights.load)
    );
    println!();
    for (e, covered) in samples
        .thermal_persistence
        .iter()
        .zip(["covers", "does not cover"])
    {
        let (model, persistence) = (e.0.finish(), e.1.finish());
        println!(
            "thermal total where the TSO's thermal forecast {covered} it ({} slots after the origin): MAE model {:.1} MW, persistence {:.1} MW; MAPE model {:.1} %, persistence {:.1} %",
            model.n, model.mae, persistence.mae, model.mape, persistence.mape
        );
    }
}

/// The scores with the TSO forecasts beside the same model without them and persistence.
fn print_tso_scores(
    with: &[ZoneScore],
    without: &[ZoneScore],
    origins: &[Slot],
    lag: i64,
    local: bool,
) {
    let (first, last) = (origins[0], origins[origins.len() - 1]);
    println!(
        "{} carbon footprint (life-cycle) forecast: {} origins from {} to {}, lag {} min; model {} with the TSOs' day-ahead forecasts published before each origin (the same model without them) (persistence)",
        if local { "local" } else { "flow-traced" },
        origins.len(),
        format_timestamp(first.start()),
        format_timestamp(last.start()),
        lag * 15,
        gridprint_pipeline::forecast::METHOD
    );
    println!();
    println!(
        "| zone | origins | 0-24 h MAPE % | 24-48 h MAPE % | MAE g/kWh 0-24 h | rank corr. 0-24 h | 3 h regret % | first hour MAPE % (held) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let three =
        |a: f64, b: f64, c: f64, d: usize| format!("{} ({}) ({})", num(a, d), num(b, d), num(c, d));
    for (w, o) in with.iter().zip(without) {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} ({}) |",
            w.zone.as_str(),
            w.origins,
            three(w.model[0].mape, o.model[0].mape, w.persistence[0].mape, 1),
            three(w.model[1].mape, o.model[1].mape, w.persistence[1].mape, 1),
            three(w.model[0].mae, o.model[0].mae, w.persistence[0].mae, 1),
            three(w.rank.0, o.rank.0, w.rank.1, 2),
            three(w.regret.0, o.regret.0, w.regret.1, 1),
            num(w.first_hour.mape, 1),
            num(w.first_hour_held.mape, 1),
        );
    }
    let m = |v: &[ZoneScore], f: &dyn Fn(&ZoneScore) -> f64| mean_of(v, f);
    let (mw, mo, mp) = (
        m(with, &|z| z.model[0].mape),
        m(without, &|z| z.model[0].mape),
        m(with, &|z| z.persistence[0].mape),
    );
    println!(
        "| **mean** | | {} | {} | {} | {} | {} | {} ({}) |",
        three(mw, mo, mp, 1),
        three(
            m(with, &|z| z.model[1].mape),
            m(without, &|z| z.model[1].mape),
            m(with, &|z| z.persistence[1].mape),
            1
        ),
        three(
            m(with, &|z| z.model[0].mae),
            m(without, &|z| z.model[0].mae),
            m(with, &|z| z.persistence[0].mae),
            1
        ),
        three(
            m(with, &|z| z.rank.0),
            m(without, &|z| z.rank.0),
            m(with, &|z| z.rank.1),
            2
        ),
        three(
            m(with, &|z| z.regret.0),
            m(without, &|z| z.regret.0),
            m(with, &|z| z.regret.1),
            1
        ),
        num(m(with, &|z| z.first_hour.mape), 1),
        num(m(with, &|z| z.first_hour_held.mape), 1),
    );
    println!();
    println!(
        "0-24 h MAPE with the TSO forecasts {mw:.1} %, without them {mo:.1} % ({:+.0} %), persistence {mp:.1} %",
        100.0 * (mw / mo - 1.0)
    );
}

/// Passes of the footprint descent after the per-series grid.
const DESCENT_PASSES: usize = 2;

/// The fit: first each class's grid on its own series (MW), then the coordinate descent on the
/// footprint from there; prints both and the parameters to put in `ForecastConfig::default`.
fn print_fit(
    reference: &ReferenceData,
    series: &BTreeMap<InputKey, Series>,
    origins: &[Slot],
    opts: &EvalOptions,
    lag: i64,
) {
    println!(
        "fit over {} origins, lag {} min; 1. each class on its own series, scored 0-{} h, MAE in MW per point",
        origins.len(),
        lag * 15,
        FIT_HORIZON_SLOTS / 4
    );
    println!();
    println!(
        "| class | series | days | day decay | other day type | week | half-life (h) | MAE | seasonal-naive MAE |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut cfg = ForecastConfig::default();
    for class in SeriesClass::ALL {
        let of: Vec<&Series> = series
            .iter()
            .filter(|(k, _)| SeriesClass::of(k) == class)
            .map(|(_, s)| s)
            .collect();
        let Some(f) = fit_class(&of, class, origins, lag, FIT_HORIZON_SLOTS) else {
            println!(
                "| {} | {} | - | - | - | - | - | - | - |",
                class.as_str(),
                of.len()
            );
            continue;
        };
        let p = f.params;
        cfg.classes[class.index()] = p;
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |",
            class.as_str(),
            of.len(),
            p.days,
            p.day_decay,
            p.other_day_type_weight,
            p.week_weight,
            p.half_life_slots / 4.0,
            f.mae,
            f.naive_mae
        );
    }
    println!();
    let present = SeriesClass::ALL
        .iter()
        .filter(|c| series.keys().any(|k| SeriesClass::of(k) == **c))
        .count();
    let steps = (DESCENT_PASSES * present * PARAMETERS.len()) as u64;
    let bar = ProgressBar::new(steps);
    bar.set_style(
        ProgressStyle::with_template("descending {bar:40} {pos}/{len} {msg} ({eta} left)")
            .expect("valid template"),
    );
    let (cfg, best) = descend(
        reference,
        series,
        origins,
        opts,
        cfg,
        DESCENT_PASSES,
        &|c, name, o| {
            eprintln!("descent: {} {name}: objective {o:.3}", c.as_str());
            bar.inc(1);
            bar.set_message(format!("{} {name}: {o:.2} %", c.as_str()));
        },
    );
    bar.finish_and_clear();
    println!(
        "2. coordinate descent on the footprint ({DESCENT_PASSES} passes), from the grid's parameters: objective (mean 0-48 h carbon-footprint MAPE, plus 10 x any first-hour excess over the value held) {best:.2}"
    );
    println!();
    println!(
        "| class | days | day decay | other day type | week | half-life (h) | fade shape | profile follow |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for class in SeriesClass::ALL {
        let p = cfg.class(class);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            class.as_str(),
            p.days,
            p.day_decay,
            p.other_day_type_weight,
            p.week_weight,
            p.half_life_slots / 4.0,
            p.fade_shape,
            p.profile_follow
        );
    }
}

fn num(v: f64, digits: usize) -> String {
    if v.is_finite() {
        format!("{v:.digits$}")
    } else {
        "-".into()
    }
}

/// The mean over zones of `f` (finite values only).
fn mean_of(scores: &[ZoneScore], f: impl Fn(&ZoneScore) -> f64) -> f64 {
    let v: Vec<f64> = scores.iter().map(f).filter(|v| v.is_finite()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn print_scores(scores: &[ZoneScore], origins: &[Slot], lag: i64) {
    let (first, last) = (origins[0], origins[origins.len() - 1]);
    println!(
        "carbon footprint (global, life-cycle) forecast: {} origins from {} to {}, lag {} min; model {} against persistence (the same slot on the last known day)",
        origins.len(),
        format_timestamp(first.start()),
        format_timestamp(last.start()),
        lag * 15,
        gridprint_pipeline::forecast::METHOD
    );
    println!();
    let bands: Vec<String> = BANDS
        .iter()
        .map(|b| format!("{} MAPE % (persistence)", b.0))
        .collect();
    println!(
        "| zone | origins | first hour MAPE % (held) | {} | MAE g/kWh 0-24 h (persistence) | rank corr. 0-24 h (persistence) | 3 h regret % (persistence) |",
        bands.join(" | ")
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let row = |name: &str, origins: String, v: [f64; 14]| {
        println!(
            "| {name} | {origins} | {} ({}) | {} ({}) | {} ({}) | {} ({}) | {} ({}) | {} ({}) | {} ({}) |",
            num(v[0], 1),
            num(v[1], 1),
            num(v[2], 1),
            num(v[3], 1),
            num(v[4], 1),
            num(v[5], 1),
            num(v[6], 1),
            num(v[7], 1),
            num(v[8], 1),
            num(v[9], 1),
            num(v[10], 2),
            num(v[11], 2),
            num(v[12], 1),
            num(v[13], 1),
        );
    };
    let values = |z: &ZoneScore| -> [f64; 14] {
        [
            z.first_hour.mape,
            z.first_hour_held.mape,
            z.model[0].mape,
            z.persistence[0].mape,
            z.model[1].mape,
            z.persistence[1].mape,
            z.model[2].mape,
            z.persistence[2].mape,
            z.model[0].mae,
            z.persistence[0].mae,
            z.rank.0,
            z.rank.1,
            z.regret.0,
            z.regret.1,
        ]
    };
    for z in scores {
        row(z.zone.as_str(), z.origins.to_string(), values(z));
    }
    let mut mean = [0.0; 14];
    for (i, m) in mean.iter_mut().enumerate() {
        *m = mean_of(scores, |z| values(z)[i]);
    }
    row("**mean**", String::new(), mean);
    let worse: Vec<&str> = scores
        .iter()
        .filter(|z| z.first_hour.mape > z.first_hour_held.mape)
        .map(|z| z.zone.as_str())
        .collect();
    println!();
    println!(
        "0-24 h MAPE {:.1} % against persistence {:.1} % ({:+.0} %); first hour worse than the last value held in {} of {} zones{}",
        mean[2],
        mean[3],
        100.0 * (mean[2] / mean[3] - 1.0),
        worse.len(),
        scores.len(),
        if worse.is_empty() {
            String::new()
        } else {
            format!(" ({})", worse.join(", "))
        }
    );
}
