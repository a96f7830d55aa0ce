//! How an answer becomes rows: the one row-walking trait [`Rows`], implemented by every item type
//! (the elements of an answer's top-level array), gives the CSV columns and rows, the number of
//! points and whether every point is final; [`Answer`] lifts it to a whole answer (a list of items,
//! or series-or-aggregates) and is what the server holds as "any endpoint's answer".
//!
//! Rows are long format (docs/api.md, "CSV"): one row per point, the item's descriptive fields, the
//! entry's flags and the block's fields repeated as columns, then `timestamp,value`. Aggregates give
//! one row: the descriptive fields, then `start,end,value,valid,zone_status,aggregation_method`. The
//! writer itself (the `csv` crate) lives with the server; a [`RowSink`] receives the fields.

use crate::items::*;
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
macro_rules! either_answer {
    ($($name:ident),*) => {$(
        impl Answer for $name {
            fn as_list(&self) -> &dyn Answer {
                match self {
                    $name::Series(v) => v,
                    $name::Aggregate(v) => v,
                }
            }

            fn to_json(&self) -> Vec<u8> {
                crate::json::to_json(self, self.points())
            }
        }
    )*};
}

either_answer!(Footprints, Impacts, Scores, Factors);

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

/// The one row of an aggregate: `head`, then the aggregate's own columns.
fn aggregate_row(
    out: &mut dyn RowSink,
    head: &[&str],
    (start, end, value, valid, status, method): (&str, &str, f64, bool, ZoneStatus, &str),
) {
    let value = round2(value).to_string();
    let mut fields = head.to_vec();
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

/// Implements [`Entry`] for an entry type: its list of blocks and the fields of a block.
macro_rules! entry {
    ($entry:ty, $field:ident, |$b:ident| $fields:expr) => {
        impl Entry for $entry {
            fn flags(&self) -> (bool, ZoneStatus) {
                (self.valid, self.zone_status)
            }
            fn blocks(&self, f: &mut dyn FnMut(&[&str], &Values)) {
                for $b in &self.$field {
                    f(&$fields, &$b.values);
                }
            }
        }
    };
}

entry! {
    GenerationEntry,
    production,
    |b| [b.production_type.as_str(), b.data_state.as_str(), b.datasource.as_str()]
}
entry! {
    LoadEntry,
    blocks,
    |b| [b.data_state.as_str(), b.datasource.as_str()]
}
entry! {
    ImportsEntry,
    imports,
    |b| [b.source.as_str(), b.data_state.as_str(), b.datasource.as_str()]
}
entry! {
    ExportsEntry,
    exports,
    |b| [b.destination.as_str(), b.data_state.as_str(), b.datasource.as_str()]
}
entry! {
    FlowShareEntry,
    flows,
    |b| [b.destination.as_str()]
}
entry! {
    MixShareEntry,
    shares,
    |b| [b.origin.as_str()]
}
entry! {
    SourceEntry,
    blocks,
    |b| [b.source.as_str()]
}

/// Implements [`Rows`] for an item with series: the item's head columns (`$head`, their fields from
/// `$fields`), then every entry's `valid,zone_status`, its blocks' columns (`$block`) and
/// `timestamp,value`.
macro_rules! series_item {
    ($item:ty, zone_unit + [$($block:literal),*]) => {
        series_item! { $item, ["zone", "unit"] + [$($block),*], |r| [r.zone.as_str(), r.unit] }
    };
    ($item:ty, [$($head:literal),*] + [$($block:literal),*], |$r:ident| $fields:expr) => {
        impl Rows for $item {
            const COLUMNS: &'static [&'static str] =
                &[$($head,)* "valid", "zone_status", $($block,)* "timestamp", "value"];
            fn rows(&self, out: &mut dyn RowSink) {
                let $r = self;
                series_rows(&$fields, &self.series, out)
            }
            fn points(&self) -> usize {
                series_points(&self.series)
            }
            fn is_final(&self) -> bool {
                series_final(&self.series)
            }
        }
    };
}

/// Implements [`Rows`] for an aggregate item: the head columns and fields, then the aggregate's.
macro_rules! aggregate_item {
    ($item:ty, [$($col:literal),*], |$a:ident| $head:expr) => {
        impl Rows for $item {
            const COLUMNS: &'static [&'static str] = &[
                $($col,)* "start", "end", "value", "valid", "zone_status", "aggregation_method",
            ];
            fn rows(&self, out: &mut dyn RowSink) {
                let $a = self;
                let tail = (
                    self.start.as_str(),
                    self.end.as_str(),
                    self.value,
                    self.valid,
                    self.zone_status,
                    self.aggregation_method,
                );
                aggregate_row(out, &$head, tail)
            }
            fn points(&self) -> usize {
                0
            }
            fn is_final(&self) -> bool {
                self.valid
            }
        }
    };
}

series_item! { GenerationResult, zone_unit + ["production_type", "data_state", "datasource"] }
series_item! { LoadResult, zone_unit + ["data_state", "datasource"] }
series_item! { ImportsResult, zone_unit + ["source", "data_state", "datasource"] }
series_item! { ExportsResult, zone_unit + ["destination", "data_state", "datasource"] }
series_item! {
    FootprintResult,
    ["zone", "footprint_type", "scope", "unit", "coverage"] + [],
    |r| [r.zone.as_str(), r.footprint_type.as_str(), r.scope.as_str(), r.unit, r.coverage.as_str()]
}
series_item! {
    ImpactResult,
    ["zone", "impact_type", "scope", "unit", "coverage"] + [],
    |r| [r.zone.as_str(), r.impact_type, r.scope.as_str(), r.unit, r.coverage.as_str()]
}
series_item! {
    ScoreResult,
    ["zone", "scope", "coverage"] + [],
    |r| [r.zone.as_str(), r.scope.as_str(), r.coverage.as_str()]
}
series_item! { FlowShareResult, zone_unit + ["destination"] }
series_item! { MixShareResult, zone_unit + ["origin"] }
series_item! {
    FootprintShareResult,
    ["zone", "footprint_type", "scope", "unit"] + ["source"],
    |r| [r.zone.as_str(), r.footprint_type.as_str(), r.scope.as_str(), r.unit]
}
series_item! {
    ImpactShareResult,
    ["zone", "impact_type", "scope", "unit"] + ["source"],
    |r| [r.zone.as_str(), r.impact_type, r.scope.as_str(), r.unit]
}

aggregate_item! {
    FootprintAggregate,
    ["zone", "footprint_type", "scope", "unit", "coverage"],
    |a| [a.zone.as_str(), a.footprint_type.as_str(), a.scope.as_str(), a.unit, a.coverage.as_str()]
}
aggregate_item! {
    ImpactAggregate,
    ["zone", "impact_type", "scope", "unit", "coverage"],
    |a| [a.zone.as_str(), a.impact_type, a.scope.as_str(), a.unit, a.coverage.as_str()]
}
aggregate_item! {
    ScoreAggregate,
    ["zone", "scope", "coverage"],
    |a| [a.zone.as_str(), a.scope.as_str(), a.coverage.as_str()]
}

/// The CSV columns of a factor item: its descriptive fields, then `$tail`.
macro_rules! factor_columns {
    ($($tail:literal),*) => {
        &["factor_type", "production_type", "scope", "unit", "source", "year", "source_link", $($tail),*]
    };
}

/// Implements [`Rows`] for a factor item (final: factors come from the reference data): its
/// descriptive fields (`year` and `source_link` empty when unknown) go to `$rows` as `$head`.
macro_rules! factor_rows {
    ($item:ty, [$($tail:literal),*], points: |$p:ident| $points:expr, |$s:ident, $out:ident, $head:ident| $rows:block) => {
        impl Rows for $item {
            const COLUMNS: &'static [&'static str] = factor_columns!($($tail),*);
            fn rows(&self, $out: &mut dyn RowSink) {
                let $s = self;
                let year = $s.year.map(|y| y.to_string()).unwrap_or_default();
                let $head = &[
                    $s.factor_type.as_str(),
                    $s.production_type.as_str(),
                    $s.scope.as_str(),
                    $s.unit.as_str(),
                    $s.source.as_str(),
                    &year,
                    $s.source_link.as_deref().unwrap_or(""),
                ];
                $rows
            }
            fn points(&self) -> usize {
                let $p = self;
                $points
            }
            fn is_final(&self) -> bool {
                true
            }
        }
    };
}

factor_rows! { FactorResult, ["timestamp", "value"],
points: |f| f.series.iter().map(|s| s.values.0.len()).sum(),
|f, out, head| { f.series.iter().for_each(|s| out.points(head, &s.values)) } }

factor_rows! { FactorAggregate, ["start", "end", "value", "valid", "zone_status", "aggregation_method"],
points: |_f| 0,
|f, out, head| {
    let tail = (f.start.as_str(), f.end.as_str(), f.value, true, ZoneStatus::Complete, f.aggregation_method);
    aggregate_row(out, head, tail)
} }

/// Implements [`Rows`] for an item written as rows of its own fields (`$rows` hands them to `$out`):
/// it has no points, and is final or not whatever it holds (`$final`).
macro_rules! plain_rows {
    ($item:ty, final: $final:expr, [$($col:literal),* $(,)?], |$s:ident, $out:ident| $rows:block) => {
        impl Rows for $item {
            const COLUMNS: &'static [&'static str] = &[$($col),*];
            fn rows(&self, $out: &mut dyn RowSink) {
                let $s = self;
                $rows
            }
            fn points(&self) -> usize {
                0
            }
            fn is_final(&self) -> bool {
                $final
            }
        }
    };
}

// A best-window answer depends on "now" (the default start): never final.
plain_rows!(
    BestWindow,
    final: false,
    [
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
    ],
    |s, out| {
        let opt = |v: Option<f64>| v.map(|v| round2(v).to_string()).unwrap_or_default();
        out.row(&[
            s.zone.as_str(),
            s.metric,
            &s.start,
            &s.end,
            &round2(s.value).to_string(),
            s.unit,
            &opt(s.now_value),
            &opt(s.saving_percent),
            bool_str(s.valid),
            s.zone_status.as_str(),
            bool_str(s.forecast),
            &s.duration_minutes.to_string(),
            bool_str(s.duration_rounded_up),
        ]);
    }
);

// Zones come from the reference data and are final.
plain_rows!(
    ZoneInfo,
    final: true,
    [
        "zone",
        "full_name",
        "eic_code",
        "country_code",
        "country_name",
        "provider",
        "neighbours",
    ],
    |s, out| {
        let ns: Vec<&str> = s.neighbours.iter().map(|c| c.as_str()).collect();
        out.row(&[
            s.zone.as_str(),
            &s.full_name,
            &s.eic_code,
            &s.country_code,
            &s.country_name,
            s.provider,
            &ns.join(";"),
        ]);
    }
);

plain_rows!(
    StatusResponse,
    final: false,
    ["storage", "entso-e", "elexon", "epias"],
    |s, out| {
        out.row(&[s.storage, &s.entsoe, &s.elexon, &s.epias]);
    }
);

// One row per run: inputs (`generation`, `load`, `flow` with `from`/`to`), then `output` runs, then
// a `forecast` row whose `end` is the forecast's end. What is held changes with every import: never
// final.
plain_rows!(
    AvailabilityResult,
    final: false,
    ["zone", "series", "from", "to", "start", "end", "state"],
    |s, out| {
        let zone = s.zone.as_str();
        for i in &s.inputs {
            let from = i.from.as_ref().map_or("", |c| c.as_str());
            let to = i.to.as_ref().map_or("", |c| c.as_str());
            for r in &i.runs {
                out.row(&[zone, i.input, from, to, &r.start, &r.end, r.state.as_str()]);
            }
        }
        for r in &s.outputs {
            out.row(&[zone, "output", "", "", &r.start, &r.end, r.state.as_str()]);
        }
        if let Some(end) = &s.forecast_end {
            out.row(&[
                zone,
                "forecast",
                "",
                "",
                "",
                end,
                DataState::Missing.as_str(),
            ]);
        }
    }
);
