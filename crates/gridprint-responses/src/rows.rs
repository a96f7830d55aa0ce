//! How an answer becomes rows: the one row-walking trait [`Rows`], implemented by every item type
//! (the elements of an answer's top-level array), gives the CSV columns and rows, the number of
//! points and whether every point is final; [`Answer`] lifts it to a whole answer (a list of items,
//! or series-or-aggregates) and is what the server holds as "any endpoint's answer".
//!
//! Rows are long format (docs/api.md, "CSV"): one row per point, the item's descriptive fields, the
//! entry's flags and the block's fields repeated as columns, then `timestamp,value`. Aggregates give
//! one row: the descriptive fields ([`HeadRow`]), then [`AGGREGATE_TAIL_COLUMNS`]. The
//! writer itself (the `csv` crate) lives with the server; a [`RowSink`] receives the fields.

use crate::aggregate::{DerivedAggregate, FootprintHead, ImpactHead, ScoreHead};
use crate::items::{
    AvailabilityResult, BestWindow, ExportsEntry, ExportsResult, FactorAggregate, FactorResult,
    FlagSeries, FlowShareEntry, FlowShareResult, FootprintResult, FootprintShareResult,
    ForecastAccuracy, GenerationEntry, GenerationResult, ImpactResult, ImpactShareResult,
    ImportsEntry, ImportsResult, LoadEntry, LoadResult, MixShareEntry, MixShareResult, ScoreResult,
    SeriesOrAggregates, SourceEntry, StatusResponse, ZoneInfo,
};
use crate::values::{Values, round2};
use gridprint_core::quality::{DataState, ZoneStatus};
use serde::Serialize;

/// Receives the rows of an answer.
pub trait RowSink {
    /// One row per point of `values`: the `prefix` fields, then the point's timestamp and value.
    fn points(&mut self, prefix: &[&str], values: &Values);
    /// One row of fields.
    fn row(&mut self, fields: &[&str]);
}

/// One item of an answer, walked as rows.
pub trait Rows {
    /// The CSV header.
    const COLUMNS: &'static [&'static str];
    /// Hands every row of the item to `out`.
    fn rows(&self, out: &mut dyn RowSink);
    /// Number of points in the item.
    fn points(&self) -> usize;
    /// Whether every point of the item is final (`valid=true`).
    fn is_final(&self) -> bool;
}

/// Any endpoint's whole answer (its top-level JSON array).
pub trait Answer: std::fmt::Debug + Send + Sync {
    /// The answer as a plain list of items (series-or-aggregates answers pick their variant).
    fn as_list(&self) -> &dyn Answer;
    /// The JSON body (compact, see [`crate::json`]).
    fn to_json(&self) -> Vec<u8>;
    /// The CSV header.
    fn columns(&self) -> &'static [&'static str] {
        self.as_list().columns()
    }
    /// Hands every row to `out`.
    fn rows(&self, out: &mut dyn RowSink) {
        self.as_list().rows(out)
    }
    /// Number of points (to size output buffers).
    fn points(&self) -> usize {
        self.as_list().points()
    }
    /// Number of top-level items.
    fn len(&self) -> usize {
        self.as_list().len()
    }
    /// Whether the answer is `[]`.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether the answer is non-empty and every point in it is final, so it may be served with an
    /// `ETag` and a long `Cache-Control`.
    fn is_final(&self) -> bool {
        self.as_list().is_final()
    }
}

impl<T: Rows + Serialize + std::fmt::Debug + Send + Sync> Answer for Vec<T> {
    fn as_list(&self) -> &dyn Answer {
        self
    }
    fn to_json(&self) -> Vec<u8> {
        crate::json::to_json(self, Answer::points(self))
    }
    fn columns(&self) -> &'static [&'static str] {
        T::COLUMNS
    }
    fn rows(&self, out: &mut dyn RowSink) {
        self.iter().for_each(|item| item.rows(out));
    }
    fn points(&self) -> usize {
        self.iter().map(Rows::points).sum()
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn is_final(&self) -> bool {
        !Vec::is_empty(self) && self.iter().all(Rows::is_final)
    }
}

/// Series-or-aggregates answers are the list of their variant.
impl<S, A> Answer for SeriesOrAggregates<S, A>
where
    S: Rows + Serialize + std::fmt::Debug + Send + Sync,
    A: Rows + Serialize + std::fmt::Debug + Send + Sync,
{
    fn as_list(&self) -> &dyn Answer {
        match self {
            SeriesOrAggregates::Series(v) => v,
            SeriesOrAggregates::Aggregate(v) => v,
        }
    }

    fn to_json(&self) -> Vec<u8> {
        crate::json::to_json(self, self.points())
    }
}

/// A series entry: its flags, and blocks of points each with its own descriptive fields.
pub trait Entry {
    /// `valid` and `zone_status`.
    fn flags(&self) -> (bool, ZoneStatus);
    /// Calls `f(block fields, points)` for every block.
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values));
}

fn bool_str(v: bool) -> &'static str {
    if v { "true" } else { "false" }
}

/// The rows of the entries of one item: `head`, the flags, the block's fields, then each point.
fn series_rows<E: Entry>(head: &[&str], series: &[E], out: &mut dyn RowSink) {
    for e in series {
        let (valid, status) = e.flags();
        e.blocks(&mut |fields, values| {
            let mut prefix = Vec::with_capacity(head.len() + 2 + fields.len());
            prefix.extend_from_slice(head);
            prefix.push(bool_str(valid));
            prefix.push(status.as_str());
            prefix.extend_from_slice(fields);
            out.points(&prefix, values);
        });
    }
}

fn series_points<E: Entry>(series: &[E]) -> usize {
    let mut n = 0;
    for e in series {
        e.blocks(&mut |_, values| n += values.0.len());
    }
    n
}

fn series_final<E: Entry>(series: &[E]) -> bool {
    series.iter().all(|e| e.flags().0)
}

/// The CSV columns every aggregate ends with (those of [`aggregate_row`]'s tail); `points` and
/// `slots` are JSON only (the CSV keeps the reference's columns).
pub const AGGREGATE_TAIL_COLUMNS: [&str; 6] = [
    "start",
    "end",
    "value",
    "valid",
    "zone_status",
    "aggregation_method",
];

/// An aggregate's CSV header: `head`, then [`AGGREGATE_TAIL_COLUMNS`]; `N` is their total (checked
/// when the constant is compiled).
const fn with_aggregate_tail<const H: usize, const N: usize>(
    head: [&'static str; H],
) -> [&'static str; N] {
    assert!(
        N == H + AGGREGATE_TAIL_COLUMNS.len(),
        "N is the head's columns + 6"
    );
    let mut columns = [""; N];
    let mut i = 0;
    while i < N {
        columns[i] = if i < H {
            head[i]
        } else {
            AGGREGATE_TAIL_COLUMNS[i - H]
        };
        i += 1;
    }
    columns
}

/// The one row of an aggregate: the `head` fields, then the tail's ([`AGGREGATE_TAIL_COLUMNS`]).
fn aggregate_row(
    out: &mut dyn RowSink,
    head: Vec<&str>,
    (start, end, value, valid, status, method): (&str, &str, f64, bool, ZoneStatus, &str),
) {
    let value = round2(value).to_string();
    let mut fields = head;
    fields.extend_from_slice(&[start, end, &value, bool_str(valid), status.as_str(), method]);
    out.row(&fields);
}

impl Entry for FlagSeries {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        f(&[], &self.values)
    }
}

impl Entry for GenerationEntry {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        for b in &self.production {
            let fields = [
                b.production_type.as_str(),
                b.data_state.as_str(),
                b.datasource.as_str(),
            ];
            f(&fields, &b.values);
        }
    }
}

impl Entry for LoadEntry {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        for b in &self.blocks {
            f(&[b.data_state.as_str(), b.datasource.as_str()], &b.values);
        }
    }
}

impl Entry for ImportsEntry {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        for b in &self.imports {
            f(
                &[
                    b.source.as_str(),
                    b.data_state.as_str(),
                    b.datasource.as_str(),
                ],
                &b.values,
            );
        }
    }
}

impl Entry for ExportsEntry {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        for b in &self.exports {
            f(
                &[
                    b.destination.as_str(),
                    b.data_state.as_str(),
                    b.datasource.as_str(),
                ],
                &b.values,
            );
        }
    }
}

impl Entry for FlowShareEntry {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        for b in &self.flows {
            f(&[b.destination.as_str()], &b.values);
        }
    }
}

impl Entry for MixShareEntry {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        for b in &self.shares {
            f(&[b.origin.as_str()], &b.values);
        }
    }
}

impl Entry for SourceEntry {
    fn flags(&self) -> (bool, ZoneStatus) {
        (self.valid, self.zone_status)
    }
    fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
        for b in &self.blocks {
            f(&[b.source.as_str()], &b.values);
        }
    }
}

// Items with series: the item's head columns, then every entry's `valid,zone_status`, its blocks'
// columns and `timestamp,value` (one row per point, see `series_rows`).

impl Rows for GenerationResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "unit",
        "valid",
        "zone_status",
        "production_type",
        "data_state",
        "datasource",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        series_rows(&[self.zone.as_str(), self.unit], &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for LoadResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "unit",
        "valid",
        "zone_status",
        "data_state",
        "datasource",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        series_rows(&[self.zone.as_str(), self.unit], &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for ImportsResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "unit",
        "valid",
        "zone_status",
        "source",
        "data_state",
        "datasource",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        series_rows(&[self.zone.as_str(), self.unit], &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for ExportsResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "unit",
        "valid",
        "zone_status",
        "destination",
        "data_state",
        "datasource",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        series_rows(&[self.zone.as_str(), self.unit], &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for FootprintResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "footprint_type",
        "scope",
        "unit",
        "coverage",
        "valid",
        "zone_status",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let head = [
            self.zone.as_str(),
            self.footprint_type.as_str(),
            self.scope.as_str(),
            self.unit,
            self.coverage.as_str(),
        ];
        series_rows(&head, &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for ImpactResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "impact_type",
        "scope",
        "unit",
        "coverage",
        "valid",
        "zone_status",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let head = [
            self.zone.as_str(),
            self.impact_type,
            self.scope.as_str(),
            self.unit,
            self.coverage.as_str(),
        ];
        series_rows(&head, &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for ScoreResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "scope",
        "coverage",
        "valid",
        "zone_status",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let head = [
            self.zone.as_str(),
            self.scope.as_str(),
            self.coverage.as_str(),
        ];
        series_rows(&head, &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for FlowShareResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "unit",
        "valid",
        "zone_status",
        "destination",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        series_rows(&[self.zone.as_str(), self.unit], &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for MixShareResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "unit",
        "valid",
        "zone_status",
        "origin",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        series_rows(&[self.zone.as_str(), self.unit], &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for FootprintShareResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "footprint_type",
        "scope",
        "unit",
        "valid",
        "zone_status",
        "source",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let head = [
            self.zone.as_str(),
            self.footprint_type.as_str(),
            self.scope.as_str(),
            self.unit,
        ];
        series_rows(&head, &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

impl Rows for ImpactShareResult {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "impact_type",
        "scope",
        "unit",
        "valid",
        "zone_status",
        "source",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let head = [
            self.zone.as_str(),
            self.impact_type,
            self.scope.as_str(),
            self.unit,
        ];
        series_rows(&head, &self.series, out)
    }
    fn points(&self) -> usize {
        series_points(&self.series)
    }
    fn is_final(&self) -> bool {
        series_final(&self.series)
    }
}

// Aggregates: one row, the item's head columns, then the tail's (`aggregate_row`).

/// The descriptive fields of an aggregate as CSV: the aggregate's columns (the head's, then
/// [`AGGREGATE_TAIL_COLUMNS`]) and the head's fields.
pub trait HeadRow {
    /// The CSV header of the aggregate (built by `with_aggregate_tail`).
    const AGGREGATE_COLUMNS: &'static [&'static str];
    /// The head's fields, in the order of its columns.
    fn fields(&self) -> Vec<&str>;
}

impl<H: HeadRow> Rows for DerivedAggregate<H> {
    const COLUMNS: &'static [&'static str] = H::AGGREGATE_COLUMNS;
    fn rows(&self, out: &mut dyn RowSink) {
        let t = &self.tail;
        let tail = (
            t.start.as_str(),
            t.end.as_str(),
            t.value,
            t.valid,
            t.zone_status,
            t.aggregation_method,
        );
        aggregate_row(out, self.head.fields(), tail)
    }
    fn points(&self) -> usize {
        0
    }
    fn is_final(&self) -> bool {
        self.tail.valid
    }
}

impl HeadRow for FootprintHead {
    const AGGREGATE_COLUMNS: &'static [&'static str] =
        &with_aggregate_tail::<5, 11>(["zone", "footprint_type", "scope", "unit", "coverage"]);
    fn fields(&self) -> Vec<&str> {
        vec![
            self.zone.as_str(),
            self.footprint_type.as_str(),
            self.scope.as_str(),
            self.unit,
            self.coverage.as_str(),
        ]
    }
}

impl HeadRow for ImpactHead {
    const AGGREGATE_COLUMNS: &'static [&'static str] =
        &with_aggregate_tail::<5, 11>(["zone", "impact_type", "scope", "unit", "coverage"]);
    fn fields(&self) -> Vec<&str> {
        vec![
            self.zone.as_str(),
            self.impact_type,
            self.scope.as_str(),
            self.unit,
            self.coverage.as_str(),
        ]
    }
}

impl HeadRow for ScoreHead {
    const AGGREGATE_COLUMNS: &'static [&'static str] =
        &with_aggregate_tail::<3, 9>(["zone", "scope", "coverage"]);
    fn fields(&self) -> Vec<&str> {
        vec![
            self.zone.as_str(),
            self.scope.as_str(),
            self.coverage.as_str(),
        ]
    }
}

/// The year of a factor as a CSV field: empty when unknown.
fn year_field(year: Option<i32>) -> String {
    year.map(|y| y.to_string()).unwrap_or_default()
}

// Factors come from the reference data: always final. Their rows start with the factor's
// descriptive fields (`year` and `source_link` empty when unknown).

impl Rows for FactorResult {
    const COLUMNS: &'static [&'static str] = &[
        "factor_type",
        "production_type",
        "scope",
        "unit",
        "source",
        "year",
        "source_link",
        "timestamp",
        "value",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let year = year_field(self.year);
        let head = [
            self.factor_type.as_str(),
            self.production_type.as_str(),
            self.scope.as_str(),
            self.unit.as_str(),
            self.source.as_str(),
            year.as_str(),
            self.source_link.as_deref().unwrap_or(""),
        ];
        for s in &self.series {
            out.points(&head, &s.values);
        }
    }
    fn points(&self) -> usize {
        self.series.iter().map(|s| s.values.0.len()).sum()
    }
    fn is_final(&self) -> bool {
        true
    }
}

impl Rows for FactorAggregate {
    const COLUMNS: &'static [&'static str] = &with_aggregate_tail::<7, 13>([
        "factor_type",
        "production_type",
        "scope",
        "unit",
        "source",
        "year",
        "source_link",
    ]);
    fn rows(&self, out: &mut dyn RowSink) {
        let year = year_field(self.year);
        let head = [
            self.factor_type.as_str(),
            self.production_type.as_str(),
            self.scope.as_str(),
            self.unit.as_str(),
            self.source.as_str(),
            year.as_str(),
            self.source_link.as_deref().unwrap_or(""),
        ];
        let tail = (
            self.start.as_str(),
            self.end.as_str(),
            self.value,
            true,
            ZoneStatus::Complete,
            self.aggregation_method,
        );
        aggregate_row(out, head.to_vec(), tail)
    }
    fn points(&self) -> usize {
        0
    }
    fn is_final(&self) -> bool {
        true
    }
}

// Items written as one row of their own fields (or, for availability, one row per run): no points.

/// A best-window answer depends on "now" (the default start): never final.
impl Rows for BestWindow {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "metric",
        "start",
        "end",
        "value",
        "unit",
        "now_value",
        "saving_percent",
        "valid",
        "zone_status",
        "forecast",
        "duration_minutes",
        "duration_rounded_up",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let opt = |v: Option<f64>| v.map(|v| round2(v).to_string()).unwrap_or_default();
        out.row(&[
            self.zone.as_str(),
            self.metric,
            &self.start,
            &self.end,
            &round2(self.value).to_string(),
            self.unit,
            &opt(self.now_value),
            &opt(self.saving_percent),
            bool_str(self.valid),
            self.zone_status.as_str(),
            bool_str(self.forecast),
            &self.duration_minutes.to_string(),
            bool_str(self.duration_rounded_up),
        ]);
    }
    fn points(&self) -> usize {
        0
    }
    fn is_final(&self) -> bool {
        false
    }
}

/// One row per zone, window and band. The figures change with every hour's computation: never
/// final.
impl Rows for ForecastAccuracy {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "footprint_type",
        "scope",
        "unit",
        "window_days",
        "horizon_from_hours",
        "horizon_to_hours",
        "enough_data",
        "forecasts",
        "points",
        "complete_forecasts",
        "first_forecast",
        "last_forecast",
        "computed_at",
        "mape_percent",
        "mae",
        "rank_correlation",
        "regret_percent",
        "persistence_mape_percent",
        "persistence_mae",
        "persistence_rank_correlation",
        "persistence_regret_percent",
        "note",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let opt = |v: Option<f64>| v.map(|v| round2(v).to_string()).unwrap_or_default();
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        out.row(&[
            self.zone.as_str(),
            self.footprint_type.as_str(),
            self.scope.as_str(),
            self.unit,
            &self.window_days.to_string(),
            &self.horizon_from_hours.to_string(),
            &self.horizon_to_hours.to_string(),
            bool_str(self.enough_data),
            &self.forecasts.to_string(),
            &self.points.to_string(),
            &self.complete_forecasts.to_string(),
            &text(&self.first_forecast),
            &text(&self.last_forecast),
            &text(&self.computed_at),
            &opt(self.mape_percent),
            &opt(self.mae),
            &opt(self.rank_correlation),
            &opt(self.regret_percent),
            &opt(self.persistence_mape_percent),
            &opt(self.persistence_mae),
            &opt(self.persistence_rank_correlation),
            &opt(self.persistence_regret_percent),
            &self.note,
        ]);
    }
    fn points(&self) -> usize {
        0
    }
    fn is_final(&self) -> bool {
        false
    }
}

/// Zones come from the reference data: final. Neighbours are joined with `;`.
impl Rows for ZoneInfo {
    const COLUMNS: &'static [&'static str] = &[
        "zone",
        "full_name",
        "eic_code",
        "country_code",
        "country_name",
        "provider",
        "neighbours",
    ];
    fn rows(&self, out: &mut dyn RowSink) {
        let ns: Vec<&str> = self.neighbours.iter().map(|c| c.as_str()).collect();
        out.row(&[
            self.zone.as_str(),
            &self.full_name,
            &self.eic_code,
            &self.country_code,
            &self.country_name,
            self.provider,
            &ns.join(";"),
        ]);
    }
    fn points(&self) -> usize {
        0
    }
    fn is_final(&self) -> bool {
        true
    }
}

/// The status changes at any moment: never final.
impl Rows for StatusResponse {
    const COLUMNS: &'static [&'static str] = &["storage", "entso-e", "elexon", "epias"];
    fn rows(&self, out: &mut dyn RowSink) {
        out.row(&[self.storage, &self.entsoe, &self.elexon, &self.epias]);
    }
    fn points(&self) -> usize {
        0
    }
    fn is_final(&self) -> bool {
        false
    }
}

/// One row per run: inputs (`generation`, `load`, `flow` with `from`/`to`), then `output` runs,
/// then a `forecast` row whose `end` is the forecast's end. What is held changes with every import:
/// never final.
impl Rows for AvailabilityResult {
    const COLUMNS: &'static [&'static str] =
        &["zone", "series", "from", "to", "start", "end", "state"];
    fn rows(&self, out: &mut dyn RowSink) {
        let zone = self.zone.as_str();
        for i in &self.inputs {
            let from = i.from.as_ref().map_or("", |c| c.as_str());
            let to = i.to.as_ref().map_or("", |c| c.as_str());
            for r in &i.runs {
                out.row(&[zone, i.input, from, to, &r.start, &r.end, r.state.as_str()]);
            }
        }
        for r in &self.outputs {
            out.row(&[zone, "output", "", "", &r.start, &r.end, r.state.as_str()]);
        }
        if let Some(end) = &self.forecast_end {
            let missing = DataState::Missing.as_str();
            out.row(&[zone, "forecast", "", "", "", end, missing]);
        }
    }
    fn points(&self) -> usize {
        0
    }
    fn is_final(&self) -> bool {
        false
    }
}
