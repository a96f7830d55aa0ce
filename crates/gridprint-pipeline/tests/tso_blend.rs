//! The worker's forecast with the TSOs' forecasts: a missing or late TSO forecast changes nothing
//! but the fallback (the stored estimates and forecasts are the model's alone, value for value),
//! and one published in time is blended in where it covers a slot.

mod common;

use common::{slot, store};
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{SLOT_SECONDS, Slot, SlotRange};
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastPoint, TsoForecastSeries};
use gridprint_core::zone::ZoneCode;
use gridprint_ingest::fetch::Fetcher;
use gridprint_pipeline::forecast::tso;
use gridprint_pipeline::worker::{Worker, WorkerConfig};
use gridprint_store::{PublishedForecast, SharedStore};
use std::sync::Arc;

fn dk1() -> ZoneCode {
    ZoneCode::parse("DK1").unwrap()
}

const NOW: &str = "2023-09-12T12:07:00Z";

/// Ten days of DK1 generation up to an hour before [`NOW`].
fn history() -> Vec<InputPoint> {
    common::wind_solar_gas_history(&dk1(), slot(NOW).offset(-4))
}

/// A day-ahead onshore-wind forecast of 100 MW over the next two days, published at `published_at`.
fn tso_wind(published_at: i64) -> Vec<PublishedForecast> {
    let now = slot(NOW);
    (now.0 - 8..now.0 + 2 * 96)
        .map(|i| PublishedForecast {
            point: TsoForecastPoint {
                series: TsoForecastSeries::Generation {
                    zone: dk1(),
                    production_type: ProductionType::WindOnshore,
                },
                kind: TsoForecastKind::DayAhead,
                slot: Slot(i),
                mw: 100.0,
            },
            published_at,
        })
        .collect()
}

/// The estimates and forecasts one worker cycle at [`NOW`] stores, with `forecasts` stored before.
async fn cycle(forecasts: &[PublishedForecast]) -> (Vec<InputPoint>, usize) {
    let store: SharedStore = store();
    store.upsert_inputs(&history(), 1).unwrap();
    store.upsert_tso_forecasts(forecasts, 1).unwrap();
    let reference = Arc::new(ReferenceData::embedded(ZoneSet::Selected2026));
    let worker = Worker::new(
        store.clone(),
        reference,
        Fetcher::default(),
        WorkerConfig::default(),
    );
    let now = gridprint_core::slot::parse_timestamp(NOW).unwrap();
    let report = worker.run_cycle(now).await.unwrap();
    let now = slot(NOW);
    let derived = store
        .inputs_in_range(SlotRange::new(now.offset(-96), now.offset(4 * 96)))
        .unwrap()
        .into_iter()
        .map(|s| s.point)
        .filter(|p| p.state != DataState::Official)
        .collect();
    (derived, report.tso_blended)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_late_tso_forecast_changes_nothing_but_the_fallback() {
    let (model_alone, none) = cycle(&[]).await;
    assert_eq!(none, 0);
    assert!(
        model_alone.len() > 3 * 4 * 96,
        "the model forecast three series over the horizon: {}",
        model_alone.len()
    );
    let now_unix = slot(NOW).0 * SLOT_SECONDS + 7 * 60;
    // Late: published a second after the cycle's clock.
    let (late, blended) = cycle(&tso_wind(now_unix + 1)).await;
    assert_eq!(blended, 0);
    assert_eq!(late, model_alone, "a late TSO forecast changes nothing");
    // Missing for the slots ahead: only yesterday's day-ahead values are there.
    let mut past = tso_wind(now_unix - 86_400);
    past.retain(|f| f.point.slot < slot(NOW).offset(-8));
    let (missing, blended) = cycle(&past).await;
    assert_eq!(blended, 0);
    assert_eq!(
        missing, model_alone,
        "a missing TSO forecast changes nothing"
    );

    // Published in time: the onshore wind of the covered slots is blended, nothing else moves.
    let (with, blended) = cycle(&tso_wind(now_unix - 3600)).await;
    assert!(blended > 2 * 96, "{blended}");
    assert_eq!(with.len(), model_alone.len());
    let mut lower = 0;
    for (w, m) in with.iter().zip(&model_alone) {
        assert_eq!((&w.key, w.slot, w.state), (&m.key, m.slot, m.state));
        let wind = matches!(
            w.key,
            InputKey::Generation {
                production_type: ProductionType::WindOnshore,
                ..
            }
        );
        let covered = w.slot < slot(NOW).offset(2 * 96);
        if wind && covered {
            assert_eq!(w.datasource, tso::DATASOURCE);
            assert!(w.mw <= m.mw, "{w:?} against the model's {m:?}");
            lower += (w.mw < m.mw) as usize;
        } else {
            assert_eq!(w, m);
        }
    }
    assert!(
        lower >= 2 * 96,
        "the TSO's 100 MW pulls the wind down: {lower}"
    );
}
