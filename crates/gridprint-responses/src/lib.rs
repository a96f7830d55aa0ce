//! gridprint-responses: the queries and answers of the `/v1` API as Rust types, shared by the
//! server (`gridprint-query` reads the queries and builds the answers, `gridprint-api` publishes
//! their schemas) and the client (`gridprint-client` writes the queries and reads answers back).
//! It depends on the core types, serde, time and utoipa only: no cache, store, polygon index or
//! CSV writer.
//!
//! - [`items`]: the response structs (serde + `ToSchema`), one per item of an answer;
//! - [`aggregate`]: the aggregates of derived series, a descriptive head and the shared tail;
//! - [`values`]: points and their compact `[[timestamp, number], …]` form;
//! - [`rows`]: the row-walking trait [`Rows`] (CSV columns and rows, point counts, finality) and
//!   [`Answer`], any endpoint's whole answer;
//! - [`body`]: [`BodySchema`], an answer type as an OpenAPI response body; [`Format`]: JSON or CSV
//!   ([`FormatParam`]: the `format` parameter);
//! - [`query`]: the `/v1` queries, one typed struct per endpoint, read by the server, written by
//!   the client and listed by the OpenAPI document;
//! - [`json`]: the fast JSON writer of answers; [`schema`]: OpenAPI schemas the structs point to;
//!   `stamp`: slot timestamps without allocation; `number`: rounding and writing numbers; `sink`:
//!   the buffer an answer is written into.
//!
//! The rules the queries and answers follow are in the project's API reference, `docs/api.md`.

#![forbid(unsafe_code)]

pub mod aggregate;
pub mod body;
mod format;
pub mod items;
pub mod json;
mod number;
pub mod query;
pub mod rows;
pub mod schema;
mod sink;
pub mod stamp;
pub mod values;

pub use aggregate::{
    AggregateHead, AggregateTail, DerivedAggregate, FootprintAggregate, FootprintHead,
    ImpactAggregate, ImpactHead, ScoreAggregate, ScoreHead,
};
pub use body::{BodySchema, NamedSchemas};
pub use format::{Format, FormatParam};
pub use items::{
    AnswerSchema, AvailabilityResult, BestWindow, DemoRecording, DemoStatus, DerivedItem,
    DestinationBlock, ExportBlock, ExportsEntry, ExportsResult, FactorAggregate, FactorResult,
    Factors, FlagEntry, FlagSeries, FlowShareEntry, FlowShareResult, FootprintResult,
    FootprintShareResult, Footprints, ForecastAccuracy, GenerationEntry, GenerationResult,
    ImpactResult, ImpactShareResult, Impacts, ImportBlock, ImportsEntry, ImportsResult,
    InputAvailability, InputRun, LoadEntry, LoadResult, MixResult, MixShareEntry, MixShareResult,
    OriginBlock, OutputRun, PlainSeries, ProductionBlock, ScoreResult, Scores, SeriesOrAggregates,
    SourceBlock, SourceEntry, StateBlock, StatusResponse, ZoneInfo, ZoneSeries,
};
pub use rows::{Answer, Entry, RowSink, Rows};
pub use values::{Point, StaticStr, TIME_WEIGHTED_AVERAGE, Values, round2, static_str};
