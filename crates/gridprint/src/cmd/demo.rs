//! The live demo of `serve --demo` and `import --demo`: the bundled documents at their recorded
//! dates, and replayed onto the present ([`gridprint_pipeline::demo::LiveDemo`]): the last days of
//! provider data up to an hour ago, the worker's estimates and 96-hour forecast on top, renewed
//! every quarter-hour while `serve --demo` runs (on a thread of its own, off the request workers).

use crate::open::ServerArgs;
use crate::progress::Bars;
use anyhow::Context;
use gridprint_api::{DemoRecording, DemoStatus};
use gridprint_core::slot::{Clock, SystemClock, format_timestamp};
use gridprint_pipeline::demo::{self, LiveDemo, StepReport};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The recorded dates of the replay in a few words: `2017-02-01, 2022-11-28…2022-12-11, 2024-01-15…21,
/// 2024-06-15 and 2024-09-02…08` (a day or week inside a longer replayed recording is not repeated).
pub fn recorded_dates(live: &LiveDemo) -> String {
    let recorded: Vec<&str> = live
        .replay()
        .recordings()
        .iter()
        .map(|r| r.recorded.as_str())
        .collect();
    let mut shown: Vec<String> = Vec::new();
    for r in &recorded {
        let (first, last) = span(r);
        let inside = recorded.iter().any(|w| {
            let (a, b) = span(w);
            w != r && a <= first && last <= b
        });
        if inside {
            continue;
        }
        let text = match r.split_once('/') {
            // Same year and month: `2024-09-02…08`.
            Some((a, b)) if a[..8] == b[..8] => format!("{a}…{}", &b[8..]),
            Some((a, b)) => format!("{a}…{b}"),
            None => r.to_string(),
        };
        if !shown.contains(&text) {
            shown.push(text);
        }
    }
    match shown.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => shown.join(""),
    }
}

/// A recording's first and last day (the same for a day): `2024-09-02/2024-09-08` → both dates.
fn span(recorded: &str) -> (&str, &str) {
    recorded.split_once('/').unwrap_or((recorded, recorded))
}

/// The plain-words note of the replay (the dashboard shows it; `/v1/status` carries it).
pub fn note(live: &LiveDemo) -> String {
    format!(
        "Demo: recorded provider data of {}, replayed as the last {} days up to an hour ago — not \
         live data",
        recorded_dates(live),
        demo::REPLAY_DAYS + 1
    )
}

/// What `/v1/status` says about the replay.
pub fn status(live: &LiveDemo) -> DemoStatus {
    let replayed = live.replayed();
    DemoStatus {
        mode: "replay".to_string(),
        note: note(live),
        recordings: live
            .replay()
            .recordings()
            .iter()
            .map(|r| DemoRecording {
                recorded: r.recorded.clone(),
                every: r.every.clone(),
                series: r.series.clone(),
            })
            .collect(),
        replayed_from: replayed.map(|r| format_timestamp(r.start.start())),
        provider_data_until: replayed.map(|r| format_timestamp(r.end.start())),
    }
}

/// The start-up lines of the replay: what is replayed onto which days.
pub fn startup_lines(live: &LiveDemo) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(r) = live.replayed() {
        lines.push(format!(
            "demo replay (not live data): provider data from {} to {} (an hour ago), shifted by whole days or weeks; \
             then the worker's estimates and 96 h forecast, renewed every quarter-hour:",
            format_timestamp(r.start.start()),
            format_timestamp(r.end.start())
        ));
    }
    for rec in live.replay().recordings() {
        let every = if rec.every == "day" {
            "every day".to_string()
        } else {
            format!("every {} (same weekday)", rec.every)
        };
        lines.push(format!(
            "  recorded {} replayed {every}: {}",
            rec.recorded,
            rec.series.join("; ")
        ));
    }
    lines
}

/// Runs the first step of the live demo at the system clock's now (one worker cycle), in a runtime of
/// its own; `None` (said on stderr) when another worker leads this database.
pub fn first_step(live: &LiveDemo) -> anyhow::Result<Option<StepReport>> {
    let runtime = crate::open::runtime(tokio::runtime::Builder::new_multi_thread())?;
    runtime.block_on(async {
        if !live.leading().await? {
            eprintln!(
                "another worker leads this database: the demo replay is left to it (no replayed data added)"
            );
            return Ok(None);
        }
        let report = live.step(SystemClock.now()).await?;
        tracing::info!("{report}");
        Ok(Some(report))
    })
}

/// `serve --demo`'s preparation: into an empty database, the bundled documents at their recorded
/// dates; then, on a database that holds them (this one or one an earlier `--demo` filled), the
/// replay up to now and one worker cycle, whose worker keeps issued forecasts `archive_days` days.
/// `None` when the database holds other data: nothing is imported or replayed there.
pub fn prepare(g: &ServerArgs, archive_days: u32) -> anyhow::Result<Option<Arc<LiveDemo>>> {
    let store = crate::open::open_store(g)?;
    let reference = crate::open::load_reference(g)?;
    if store.input_extent()?.is_none() {
        demo::import_demo(
            &*store,
            &reference,
            time::OffsetDateTime::now_utc(),
            &mut Bars::new(false).summary_of_skips(),
        )?;
    } else if !demo::holds_the_demo(&*store, &reference)? {
        eprintln!("database already holds data; demo import and replay skipped");
        return Ok(None);
    }
    let live = Arc::new(LiveDemo::new(store, reference)?.archive_days(i64::from(archive_days)));
    first_step(&live).context("replaying the demo data onto the present")?;
    Ok(Some(live))
}

/// Keeps the replay going while `serve` runs: a thread of its own (with its own runtime, off the
/// server's request workers) runs a step after every quarter-hour until `stop`.
pub fn keep_alive(live: Arc<LiveDemo>, stop: CancellationToken) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name("demo-replay".to_string())
        .spawn(move || {
            let runtime = match crate::open::runtime(tokio::runtime::Builder::new_current_thread())
            {
                Ok(r) => r,
                Err(e) => {
                    tracing::error!(error = %e, "the demo replay cannot start");
                    return;
                }
            };
            runtime.block_on(live.run(Arc::new(SystemClock), stop, |report| {
                tracing::info!("{report}")
            }));
        })
        .context("starting the demo replay thread")?;
    Ok(())
}
