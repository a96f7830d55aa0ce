//! What a parser returns: the input points of one provider document, what kind of document it was,
//! and how many of its values were skipped and why; and the TSO forecast values a forecast parser
//! collects ([`ForecastValues`]).
//!
//! Points are sorted by series and slot and hold at most one value per (series, slot); values of
//! provider codes that fold into one production type (lignite + hard coal + peat → coal) are already
//! summed. Documents read separately (the morning and afternoon File Library extracts, one API
//! response per border) are combined with [`ParsedDocument::merge`].

use crate::skip;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::slot::Slot;
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastPoint, TsoForecastSeries};
use std::collections::BTreeMap;

/// Which data a document carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    /// Actual generation per production type (API A75, File Library AggregatedGenerationPerType).
    GenerationPerType,
    /// Actual total load (API A65).
    ActualTotalLoad,
    /// Cross-border physical flows (API A11, File Library PhysicalFlows).
    PhysicalFlows,
    /// ENTSO-E answered "no matching data": a valid answer without points.
    Acknowledgement,
    /// Several documents of different kinds merged together.
    Mixed,
}

/// The points of one document (or of several merged ones).
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedDocument {
    pub kind: DocumentKind,
    /// Sorted by (key, slot), unique per (key, slot), state official, datasource `ENTSO-E`.
    pub points: Vec<InputPoint>,
    /// Skipped source values by reason and area; keys are described in [`crate::skip`].
    pub skipped: BTreeMap<String, usize>,
}

impl ParsedDocument {
    /// A document without points or skips.
    pub fn empty(kind: DocumentKind) -> ParsedDocument {
        ParsedDocument {
            kind,
            points: Vec::new(),
            skipped: BTreeMap::new(),
        }
    }

    /// Total number of skipped source values.
    pub fn skipped_total(&self) -> usize {
        self.skipped.values().sum()
    }

    /// Adds another document's points and skip counts to this one.
    ///
    /// Where both hold a value for the same series and slot, `other`'s wins: pass documents oldest
    /// first (the File Library's morning and afternoon extracts both carry the noon hour, with the
    /// same values). Skip counts add up. The kind stays when both agree, an acknowledgement adopts
    /// the other kind, and different data kinds give [`DocumentKind::Mixed`].
    pub fn merge(&mut self, other: ParsedDocument) {
        self.kind = match (self.kind, other.kind) {
            (a, b) if a == b => a,
            (DocumentKind::Acknowledgement, b) => b,
            (a, DocumentKind::Acknowledgement) => a,
            _ => DocumentKind::Mixed,
        };
        for (key, n) in other.skipped {
            skip::add(&mut self.skipped, key, n);
        }
        if other.points.is_empty() {
            return;
        }
        let mut by_key: BTreeMap<(InputKey, Slot), InputPoint> = std::mem::take(&mut self.points)
            .into_iter()
            .map(|p| ((p.key.clone(), p.slot), p))
            .collect();
        for p in other.points {
            by_key.insert((p.key.clone(), p.slot), p);
        }
        self.points = by_key.into_values().collect();
    }
}

/// The TSO forecast values of one document as they are read: one per (series, kind, slot), a value
/// covering several slots (an hourly MTU) put in each. Both forecast parsers (the website export's
/// and the API's) collect into it.
#[derive(Debug, Default)]
pub(crate) struct ForecastValues(BTreeMap<(TsoForecastSeries, TsoForecastKind, Slot), f64>);

impl ForecastValues {
    /// Records `mw` for the `n_slots` slots from `first`; whether it replaced a value (a duplicate).
    pub(crate) fn put(
        &mut self,
        series: &TsoForecastSeries,
        kind: TsoForecastKind,
        first: Slot,
        n_slots: i64,
        mw: f64,
    ) -> bool {
        let mut replaced = false;
        for i in 0..n_slots {
            replaced |= self
                .0
                .insert((series.clone(), kind, first.offset(i)), mw)
                .is_some();
        }
        replaced
    }

    /// The values, sorted by series, kind and slot.
    pub(crate) fn finish(self) -> Vec<TsoForecastPoint> {
        self.0
            .into_iter()
            .map(|((series, kind, slot), mw)| TsoForecastPoint {
                series,
                kind,
                slot,
                mw,
            })
            .collect()
    }
}
