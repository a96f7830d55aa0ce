//! The forecast: every zone's inputs (generation per type, load, flows) after the provider's last
//! value — the hours it has not published yet and the days ahead — so that every endpoint answers
//! for the current slot and the next four days.
//!
//! [`model`] is the method ("anchored profile", datasource [`DATASOURCE`]): a seasonal profile per
//! class of series, anchored on the last published value, whose anomaly fades at a fitted rate.
//! The worker stores its values before the current slot as estimates ([`DataState::Estimated`]) and
//! from the current slot on as forecasts ([`DataState::Missing`]: they stand in for data that does
//! not exist yet) — [`to_points`]. [`eval`] is the yardstick on the footprint itself (what
//! `gridprint forecast-eval` prints), [`fit`] the per-series backtest and the parameter search,
//! [`errors`] the measures both use, [`accuracy`] the published accuracy of the forecasts the
//! worker issued (archived by `crate::worker`), scored with the yardstick's measures. [`tso`]
//! blends the TSOs' own day-ahead forecasts in where they cover a slot.
//! docs/forecast.md has the measured accuracy, docs/methodology.md the method.

pub mod accuracy;
pub mod errors;
pub mod eval;
pub mod fit;
pub mod model;
pub mod tso;

pub use model::{DEFAULT_HORIZON_SLOTS, ForecastConfig, SeriesClass, forecast_series};

use gridprint_core::inputs::{InputKey, InputPoint, is_estimation_datasource};
use gridprint_core::quality::DataState;
use gridprint_core::slot::Slot;

/// The method name in the datasource.
pub const METHOD: &str = "anchored-profile";
/// Datasource of the model's points (estimates of the unpublished hours and forecasts alike).
pub const DATASOURCE: &str = "wattnet-hybrid-estimation:gridprint-anchored-profile";
const _: () = assert!(is_estimation_datasource(DATASOURCE));

/// The model's values of `key` as input points: estimated before `current`, forecast (state
/// missing) from it on.
pub fn to_points(key: &InputKey, values: &[(Slot, f64)], current: Slot) -> Vec<InputPoint> {
    values
        .iter()
        .map(|(s, mw)| InputPoint {
            key: key.clone(),
            slot: *s,
            mw: *mw,
            state: if *s < current {
                DataState::Estimated
            } else {
                DataState::Missing
            },
            datasource: DATASOURCE.to_string(),
        })
        .collect()
}
