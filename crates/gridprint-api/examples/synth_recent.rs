//! Writes synthetic provider data (official, datasource `ENTSO-E`: 7 production types and a load per
//! zone, a flow on every border) for every zone of the selected set into a SQLite database, for the
//! `--days` days before `--until` (default: one hour before now, on a slot boundary), as ENTSO-E would
//! have delivered it with its usual lag. Nothing is computed: run `gridprint worker --once
//! --no-entsoe --no-elexon` afterwards to estimate the gap up to now, forecast and compute, as a live
//! deployment would. The CATS compatibility test (`tests/cats/run.sh`) starts from this state.
//! `--zone DE --from T` writes only the points of one zone (its generation and load, the flows of
//! its borders) from `T`: provider data of some inputs reaching further than the others.
//! `--archive-hours N` also archives, for every zone, a forecast issued at each hour of the `N`
//! hours before `--until` whose every footprint is the one traced from these inputs plus 10 %: a
//! forecast archive whose error is known (MAPE 10 %), which the worker's next cycle measures.
//!
//! ```sh
//! cargo run -p gridprint-api --example synth_recent -- --database /tmp/recent.db [--days 9] [--until 2026-11-26T06:00Z] [--zone DE --from 2026-11-26T05:00Z] [--archive-hours 48]
//! ```

use gridprint_compute::synthetic::inputs_of_slot;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{Slot, parse_timestamp};
use gridprint_core::zone::ZoneCode;
use gridprint_store::InputStore as _;
use gridprint_store_sqlite::SqliteStore;
use time::OffsetDateTime;

fn main() {
    let mut database = None;
    let mut days: i64 = 9;
    let mut until = None;
    let mut from = None;
    let mut only: Option<ZoneCode> = None;
    let mut archive_hours: i64 = 0;
    let mut it = std::env::args().skip(1);
    let usage = "usage: synth_recent --database PATH [--days N] [--until TIMESTAMP] [--zone CODE] [--from TIMESTAMP] [--archive-hours N]";
    while let Some(a) = it.next() {
        match a.as_str() {
            "--database" => database = it.next(),
            "--days" => days = it.next().and_then(|v| v.parse().ok()).expect(usage),
            "--until" => until = Some(parse_timestamp(&it.next().expect(usage)).expect("--until")),
            "--from" => from = Some(parse_timestamp(&it.next().expect(usage)).expect("--from")),
            "--zone" => only = Some(ZoneCode::parse(&it.next().expect(usage)).expect("--zone")),
            "--archive-hours" => {
                archive_hours = it.next().and_then(|v| v.parse().ok()).expect(usage)
            }
            _ => {
                eprintln!("{usage}");
                std::process::exit(2);
            }
        }
    }
    let database = database.expect(usage);
    let now = OffsetDateTime::now_utc();
    let end = Slot::containing(until.unwrap_or(now - time::Duration::hours(1)));
    let start = from.map_or(end.offset(-days * 96), Slot::containing);
    let wanted = |p: &InputPoint| match (&only, &p.key) {
        (None, _) => true,
        (Some(z), InputKey::Flow { from, to }) => from == z || to == z,
        (Some(z), k) => k.zone() == z,
    };
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let store = SqliteStore::open(std::path::Path::new(
        database.trim_start_matches("sqlite://"),
    ))
    .expect("open the database");
    let mut n = 0usize;
    let mut day_start = start;
    while day_start < end {
        let day_end = day_start.offset(96).min(end);
        let points: Vec<InputPoint> = (day_start.0..day_end.0)
            .flat_map(|s| inputs_of_slot(&reference, Slot(s), true))
            .filter(|p| wanted(p))
            .collect();
        n += points.len();
        store
            .upsert_inputs(&points, now.unix_timestamp())
            .expect("store inputs");
        day_start = day_end;
    }
    eprintln!(
        "stored {n} synthetic input points for {} zones, slots {} to {} (exclusive)",
        reference.zones.len(),
        start.start(),
        end.start()
    );
    if archive_hours > 0 {
        archive(&store, &reference, end, archive_hours, now.unix_timestamp());
    }
}

/// Archives a forecast of every zone issued at each hour of the `hours` before `end`: the footprints
/// traced from the synthetic inputs (the same function, so the worker publishes the same values)
/// over 96 hours from the issue, plus 10 %.
fn archive(store: &SqliteStore, reference: &ReferenceData, end: Slot, hours: i64, now: i64) {
    use gridprint_store::ForecastStore as _;
    use gridprint_store::{ArchivedForecast, StoredInput};
    let first = end.offset(-4 * hours);
    let range = gridprint_core::slot::SlotRange::new(first, end.offset(384));
    let points: Vec<StoredInput> = range
        .iter()
        .flat_map(|s| inputs_of_slot(reference, s, true))
        .map(|point| StoredInput {
            point,
            updated_at: now,
        })
        .collect();
    let traced = gridprint_pipeline::forecast::eval::traced_footprints(reference, range, &points);
    let mut forecasts = Vec::new();
    for h in 0..hours {
        let origin = first.offset(4 * h);
        let at = (origin.0 - first.0) as usize;
        for (z, zone) in reference.zones.iter().enumerate() {
            forecasts.push(ArchivedForecast {
                zone: zone.code.clone(),
                origin,
                issued_at: origin.unix(),
                known_until: origin.offset(-4),
                footprints: (0..384).map(|i| traced[at + i][z] * 1.1).collect(),
                inputs: Vec::new(),
            });
        }
    }
    store.archive_forecasts(&forecasts).expect("archive");
    eprintln!(
        "archived {} forecasts ({} zones, one an hour from {})",
        forecasts.len(),
        reference.zones.len(),
        first.start()
    );
}
