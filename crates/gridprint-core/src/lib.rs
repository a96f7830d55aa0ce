//! gridprint-core: everything gridprint knows about electricity and footprints, without any I/O.
//!
//! It holds the domain types (slots, zones, production types, data-quality flags), the reference data
//! shipped with the binary (zones, neighbours, emission and water factors, AWARE factors, polygons),
//! and the flow-tracing engine that turns one 15-minute slot of inputs for all zones into every number
//! the API serves. Storage and HTTP live in other crates and depend on this one, never the reverse.
//! `testing` (feature `testing`): a deterministic random number generator for benchmarks and tests.
//! [`secret::Secret`] keeps passwords, tokens and keys out of `Debug` output in every crate above.
//! [`tso_forecast`]: the TSOs' own forecasts, kept apart from the actual inputs, with the deadlines
//! of their publication. [`data_centers`]: the public cloud regions in the served zones.

pub mod best_window;
pub mod data_centers;
pub mod derived;
pub mod engine;
pub mod inputs;
pub mod production;
pub mod quality;
pub mod reference;
pub mod secret;
pub mod slot;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tso_forecast;
pub mod zone;

pub use production::ProductionType;
pub use quality::{DataState, ZoneStatus};
pub use slot::{Slot, SlotRange};
pub use zone::ZoneCode;
