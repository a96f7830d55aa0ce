//! The forecast's yardstick on a real slice (BE and FR generation, BE's flows, 2022-10-01..14:
//! data/fixtures/recordings-2022-slice) and on series whose future is known exactly.

use gridprint_core::inputs::InputKey;
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::reference::{ReferenceData, ZoneSet};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::zone::ZoneCode;
use gridprint_pipeline::forecast::ForecastConfig;
use gridprint_pipeline::forecast::eval::{EvalOptions, Truth, ZoneScore, evaluate};
use gridprint_pipeline::series::{Series, group};
use gridprint_pipeline::testing::import_fixtures;
use std::collections::BTreeMap;

mod common;
use common::*;

fn score(
    reference: &ReferenceData,
    series: &BTreeMap<InputKey, Series>,
    origins: &[Slot],
    cfg: &ForecastConfig,
) -> Vec<ZoneScore> {
    let opts = EvalOptions::default();
    let truth = Truth::new(reference, series, origins, &opts);
    evaluate(reference, series, &truth, origins, cfg, &opts, &|| {})
}

#[test]
fn on_real_weeks_the_model_beats_persistence_and_the_last_value_held() {
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let store = store();
    import_fixtures(
        store.as_ref(),
        &reference,
        &[
            "recordings-2022-slice/2022_10_01-14_AggregatedGenerationPerType_16.1.B_C.csv",
            "recordings-2022-slice/2022_10_01-14_PhysicalFlows_12.1.G.csv",
        ],
        0,
        None,
    );
    let range = SlotRange::new(slot("2022-10-01T00:00:00Z"), slot("2022-10-15T00:00:00Z"));
    let stored = store.inputs_in_range(range).unwrap();
    let series = group(stored.iter().map(|s| &s.point), range, |p| {
        p.state == DataState::Official
    });
    // Origins every 7 hours (all hours of the day) from a week in, each with 96 h after it.
    let origins: Vec<Slot> = (slot("2022-10-08T00:00:00Z").0..=slot("2022-10-11T00:00:00Z").0)
        .step_by(28)
        .map(Slot)
        .collect();
    let scores = score(&reference, &series, &origins, &ForecastConfig::default());
    let zones: Vec<&str> = scores.iter().map(|z| z.zone.as_str()).collect();
    // NL has flows but no generation: it has no footprint of its own to score.
    assert_eq!(zones, ["BE", "FR"]);
    for z in &scores {
        assert_eq!(z.origins, origins.len(), "{z:?}");
        assert_eq!(z.model[0].n, origins.len() * 96, "{z:?}");
        assert_eq!(z.model[0].n, z.persistence[0].n);
        assert!(
            z.model[0].mae < z.persistence[0].mae,
            "{}: 0-24 h MAE {} against persistence {}",
            z.zone.as_str(),
            z.model[0].mae,
            z.persistence[0].mae
        );
        assert!(
            z.first_hour.mape <= z.first_hour_held.mape,
            "{}: first hour {} against the last value held {}",
            z.zone.as_str(),
            z.first_hour.mape,
            z.first_hour_held.mape
        );
        assert!(z.rank.0.is_finite() && z.regret.0.is_finite(), "{z:?}");
    }
}

#[test]
fn a_future_equal_to_the_profile_scores_zero_error() {
    // BE with a fixed daily cycle of gas and steady nuclear: a model that follows the profile's
    // whole change knows the future exactly, and so does persistence.
    let reference = ReferenceData::embedded(ZoneSet::Selected2026);
    let range = SlotRange::new(Slot(0), Slot(40 * SLOTS_PER_DAY));
    let be = ZoneCode::parse("BE").unwrap();
    let mut series = BTreeMap::new();
    for (t, f) in [
        (
            ProductionType::Gas,
            (|i: i64| 2000.0 + 10.0 * (i % SLOTS_PER_DAY) as f64) as fn(i64) -> f64,
        ),
        (ProductionType::Nuclear, |_| 4000.0),
    ] {
        let mut s = Series::empty(range);
        for slot in range.iter() {
            s.set(slot, Some(f(slot.0)));
        }
        series.insert(
            InputKey::Generation {
                zone: be.clone(),
                production_type: t,
            },
            s,
        );
    }
    let origins: Vec<Slot> = (30..35).map(|d| Slot(d * SLOTS_PER_DAY + 13 * 4)).collect();
    let mut cfg = ForecastConfig::default();
    for c in &mut cfg.classes {
        c.profile_follow = 1.0;
    }
    let scores = score(&reference, &series, &origins, &cfg);
    assert_eq!(scores.len(), 1);
    let z = &scores[0];
    for b in 0..3 {
        assert!(z.model[b].mae < 1e-6, "{z:?}");
        assert!(z.persistence[b].mae < 1e-6, "{z:?}");
    }
    assert!(z.regret.0.abs() < 1e-9, "{z:?}");
    assert!((z.rank.0 - 1.0).abs() < 1e-9, "{z:?}");
}
