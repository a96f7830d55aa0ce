//! What to ask a provider for: one kind of data (generation per type, load, physical flows) for one
//! zone or one border direction over a range of slots ([`FetchRequest`]), or one of the TSOs'
//! forecasts for one zone ([`ForecastRequest`], [`ForecastData`]).
//!
//! [`FetchRequest`] is provider-neutral; the ENTSO-E and Elexon clients turn it into their own query
//! parameters. [`targets`] lists every series a provider is responsible for, following the reference
//! data: ENTSO-E publishes generation and load of the zones whose provider is ENTSO-E and the physical
//! flows of every border in the crossborder reference (GB and TR borders included, ENTSO-E has them
//! from the continental side); Elexon publishes generation and demand of the zones whose provider is
//! Elexon (GB); EPIAS publishes generation and consumption of the zones whose provider is EPIAS (TR),
//! whose borders (TR–BG, TR–GR, TR–GE) keep coming from ENTSO-E A11.

use crate::http::FetchError;
use gridprint_core::inputs::{InputKey, InputPoint};
use gridprint_core::slot::{SLOTS_PER_DAY, Slot, SlotRange};
use gridprint_core::tso_forecast::TsoForecastPoint;
use gridprint_core::zone::{Provider, ZoneCode, Zones};
use std::fmt;

/// The kind of data a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataKind {
    /// Actual generation per production type (ENTSO-E A75, Elexon FUELHH).
    Generation,
    /// Actual total load (ENTSO-E A65, Elexon initial national demand outturn).
    Load,
    /// Cross-border physical flows (ENTSO-E A11).
    Flows,
}

impl DataKind {
    pub const ALL: [DataKind; 3] = [DataKind::Generation, DataKind::Load, DataKind::Flows];

    /// The ENTSO-E document type: A75, A65, A11.
    pub fn entsoe_document_type(self) -> &'static str {
        match self {
            DataKind::Generation => "A75",
            DataKind::Load => "A65",
            DataKind::Flows => "A11",
        }
    }

    /// Accepts `generation`/`A75`, `load`/`A65`, `flows`/`A11` (case-insensitive).
    pub fn parse(s: &str) -> Option<DataKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "generation" | "a75" => Some(DataKind::Generation),
            "load" | "a65" | "demand" => Some(DataKind::Load),
            "flows" | "flow" | "a11" => Some(DataKind::Flows),
            _ => None,
        }
    }
}

/// The series a request is about: a zone, or one direction of a border.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Zone(ZoneCode),
    Border { from: ZoneCode, to: ZoneCode },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Zone(z) => write!(f, "{z}"),
            Target::Border { from, to } => write!(f, "{from}->{to}"),
        }
    }
}

/// The series (kind and target) a stored point belongs to.
pub fn series_of(key: &gridprint_core::inputs::InputKey) -> (DataKind, Target) {
    use gridprint_core::inputs::InputKey;
    match key {
        InputKey::Generation { zone, .. } => (DataKind::Generation, Target::Zone(zone.clone())),
        InputKey::Load { zone } => (DataKind::Load, Target::Zone(zone.clone())),
        InputKey::Flow { from, to } => (
            DataKind::Flows,
            Target::Border {
                from: from.clone(),
                to: to.clone(),
            },
        ),
    }
}

/// One request to one provider.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FetchRequest {
    pub provider: Provider,
    pub kind: DataKind,
    pub target: Target,
    /// Slots asked for; points outside are dropped.
    pub range: SlotRange,
}

/// ENTSO-E answers at most one year per query; 365 days is never more than a year.
pub const ENTSOE_MAX_SPAN_SLOTS: i64 = 365 * SLOTS_PER_DAY;
/// Elexon's dataset endpoints are asked for at most 7 settlement days at a time.
pub const ELEXON_MAX_SPAN_SLOTS: i64 = 7 * SLOTS_PER_DAY;
/// The longest span of one EPIAS request (it is then paged).
pub const EPIAS_MAX_SPAN_SLOTS: i64 = 31 * SLOTS_PER_DAY;

impl FetchRequest {
    /// Whether a point belongs to the series this request asks for. Providers sometimes answer with
    /// more (a neighbouring area, a consumption series); only the asked-for series is kept.
    pub fn covers(&self, key: &InputKey) -> bool {
        match (&self.kind, &self.target, key) {
            (DataKind::Generation, Target::Zone(z), InputKey::Generation { zone, .. }) => zone == z,
            (DataKind::Load, Target::Zone(z), InputKey::Load { zone }) => zone == z,
            (DataKind::Flows, Target::Border { from, to }, InputKey::Flow { from: f, to: t }) => {
                f == from && t == to
            }
            _ => false,
        }
    }

    /// The longest span one request of this provider may cover.
    pub fn max_span_slots(&self) -> i64 {
        match self.provider {
            Provider::Entsoe => ENTSOE_MAX_SPAN_SLOTS,
            Provider::Elexon => ELEXON_MAX_SPAN_SLOTS,
            Provider::Epias => EPIAS_MAX_SPAN_SLOTS,
        }
    }

    /// Fetches the request in parts of at most [`Self::max_span_slots`] slots ([`Self::split`]),
    /// one after the other, with `fetch_one`, and returns all their points; the first error ends it.
    pub async fn fetch_in_parts<Fut>(
        &self,
        mut fetch_one: impl FnMut(FetchRequest) -> Fut,
    ) -> Result<Vec<InputPoint>, FetchError>
    where
        Fut: Future<Output = Result<Vec<InputPoint>, FetchError>>,
    {
        let mut out = Vec::new();
        for part in self.split(self.max_span_slots()) {
            out.extend(fetch_one(part).await?);
        }
        Ok(out)
    }

    /// Splits the request so that none spans more than `max_slots` slots.
    pub fn split(&self, max_slots: i64) -> Vec<FetchRequest> {
        split_range(self.range, max_slots)
            .into_iter()
            .map(|range| FetchRequest {
                range,
                ..self.clone()
            })
            .collect()
    }

    /// A short description without secrets, for logs and errors: `ENTSO-E A75 NL
    /// 2024-09-02T00:00:00Z..2024-09-03T00:00:00Z`.
    pub fn describe(&self) -> String {
        let kind = match self.provider {
            Provider::Entsoe => self.kind.entsoe_document_type().to_string(),
            _ => format!("{:?}", self.kind).to_ascii_lowercase(),
        };
        format!(
            "{} {kind} {} {}..{}",
            self.provider.as_str(),
            self.target,
            self.range.start,
            self.range.end
        )
    }
}

/// `range` in consecutive pieces of at most `max_slots` slots.
pub fn split_range(range: SlotRange, max_slots: i64) -> Vec<SlotRange> {
    let max_slots = max_slots.max(1);
    let mut out = Vec::new();
    let mut s = range.start;
    while s < range.end {
        let e = Slot(s.0.saturating_add(max_slots)).min(range.end);
        out.push(SlotRange::new(s, e));
        s = e;
    }
    out
}

/// A TSO forecast a provider publishes, as `ingest --kinds` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ForecastData {
    /// Wind and solar generation, day-ahead: ENTSO-E A69 processType A01; Elexon WINDFOR (wind).
    WindSolarDayAhead,
    /// Wind and solar generation, intraday: ENTSO-E A69 processType A40.
    WindSolarIntraday,
    /// Total load, day-ahead: ENTSO-E A65 processType A01; Elexon NDF (national demand).
    LoadDayAhead,
    /// Scheduled generation (and consumption), day-ahead: ENTSO-E A71 processType A01.
    ScheduledGeneration,
}

impl ForecastData {
    pub const ALL: [ForecastData; 4] = [
        ForecastData::WindSolarDayAhead,
        ForecastData::WindSolarIntraday,
        ForecastData::LoadDayAhead,
        ForecastData::ScheduledGeneration,
    ];

    /// The name `--kinds` takes.
    pub fn name(self) -> &'static str {
        match self {
            ForecastData::WindSolarDayAhead => "wind-solar-day-ahead",
            ForecastData::WindSolarIntraday => "wind-solar-intraday",
            ForecastData::LoadDayAhead => "load-day-ahead",
            ForecastData::ScheduledGeneration => "scheduled-generation",
        }
    }

    /// The inverse of [`ForecastData::name`] (case-insensitive).
    pub fn parse(s: &str) -> Option<ForecastData> {
        let s = s.trim().to_ascii_lowercase();
        ForecastData::ALL.into_iter().find(|d| d.name() == s)
    }

    /// ENTSO-E's `documentType` and `processType` of it.
    pub fn entsoe_document(self) -> (&'static str, &'static str) {
        match self {
            ForecastData::WindSolarDayAhead => ("A69", "A01"),
            ForecastData::WindSolarIntraday => ("A69", "A40"),
            ForecastData::LoadDayAhead => ("A65", "A01"),
            ForecastData::ScheduledGeneration => ("A71", "A01"),
        }
    }

    /// Elexon's dataset of it, if Elexon publishes one.
    pub fn elexon_dataset(self) -> Option<&'static str> {
        match self {
            ForecastData::WindSolarDayAhead => Some("WINDFOR"),
            ForecastData::LoadDayAhead => Some("NDF"),
            ForecastData::WindSolarIntraday | ForecastData::ScheduledGeneration => None,
        }
    }

    /// Whether `provider` publishes it.
    pub fn published_by(self, provider: Provider) -> bool {
        match provider {
            Provider::Entsoe => true,
            Provider::Elexon => self.elexon_dataset().is_some(),
            Provider::Epias => false,
        }
    }
}

/// One request for a TSO forecast of one zone over the slots it forecasts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ForecastRequest {
    pub provider: Provider,
    pub data: ForecastData,
    pub zone: ZoneCode,
    /// Slots whose forecasts are asked for; values outside are dropped.
    pub range: SlotRange,
}

impl ForecastRequest {
    /// For logs and errors: `ENTSO-E A69/A01 DK1 2023-03-25T00:00:00Z..2023-03-26T00:00:00Z`.
    pub fn describe(&self) -> String {
        let what = match self.provider {
            Provider::Entsoe => {
                let (d, p) = self.data.entsoe_document();
                format!("{d}/{p}")
            }
            _ => self.data.elexon_dataset().unwrap_or("-").to_string(),
        };
        format!(
            "{} {what} {} {}..{}",
            self.provider.as_str(),
            self.zone,
            self.range.start,
            self.range.end
        )
    }

    /// Whether a value belongs to what this request asks for (zone and slot; a provider may answer
    /// with a neighbour too).
    pub fn keeps(&self, point: &TsoForecastPoint) -> bool {
        point.series.zone() == &self.zone && self.range.contains(point.slot)
    }
}

/// The TSO forecast requests of `provider` for `data` over `range`: one per zone it publishes them
/// for (restricted to `only` when given) and kind of data.
pub fn forecast_requests(
    zones: &Zones,
    provider: Provider,
    data: &[ForecastData],
    only: Option<&[ZoneCode]>,
    range: SlotRange,
) -> Vec<ForecastRequest> {
    let mut out = Vec::new();
    for d in data.iter().filter(|d| d.published_by(provider)) {
        for z in zones.iter() {
            if z.provider == provider && only.is_none_or(|o| o.contains(&z.code)) {
                out.push(ForecastRequest {
                    provider,
                    data: *d,
                    zone: z.code.clone(),
                    range,
                });
            }
        }
    }
    out
}

/// The range widened to whole hours (ENTSO-E publishes per MTU; hourly zones need whole hours).
pub fn whole_hours(range: SlotRange) -> SlotRange {
    let start = Slot(range.start.0.div_euclid(4) * 4);
    let end = Slot((range.end.0 + 3).div_euclid(4) * 4);
    SlotRange::new(start, end)
}

/// Every (kind, target) a provider publishes, restricted to `kinds` and, when `only` is given, to
/// series touching one of those zones (a zone's generation and load, the borders with it at either
/// end).
pub fn targets(
    zones: &Zones,
    provider: Provider,
    kinds: &[DataKind],
    only: Option<&[ZoneCode]>,
) -> Vec<(DataKind, Target)> {
    let wanted = |z: &ZoneCode| only.is_none_or(|o| o.contains(z));
    let mut out = Vec::new();
    for kind in DataKind::ALL {
        if !kinds.contains(&kind) {
            continue;
        }
        match kind {
            DataKind::Generation | DataKind::Load => {
                for z in zones.iter() {
                    if z.provider == provider && wanted(&z.code) {
                        out.push((kind, Target::Zone(z.code.clone())));
                    }
                }
            }
            DataKind::Flows => {
                if provider != Provider::Entsoe {
                    continue;
                }
                for &(i, j) in zones.borders() {
                    let (from, to) = (zones.code(i).clone(), zones.code(j).clone());
                    if wanted(&from) || wanted(&to) {
                        out.push((kind, Target::Border { from, to }));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gridprint_core::reference::{ReferenceData, ZoneSet};

    fn z(s: &str) -> ZoneCode {
        ZoneCode::parse(s).unwrap()
    }

    #[test]
    fn splits_so_no_request_spans_more_than_a_year() {
        let r = FetchRequest {
            provider: Provider::Entsoe,
            kind: DataKind::Generation,
            target: Target::Zone(z("NL")),
            range: SlotRange::new(Slot(0), Slot(ENTSOE_MAX_SPAN_SLOTS * 2 + 5)),
        };
        let parts = r.split(r.max_span_slots());
        assert_eq!(parts.len(), 3);
        assert!(
            parts
                .iter()
                .all(|p| p.range.len() as i64 <= ENTSOE_MAX_SPAN_SLOTS)
        );
        assert_eq!(parts[0].range.start, r.range.start);
        assert_eq!(parts[2].range.end, r.range.end);
        assert!(parts.windows(2).all(|w| w[0].range.end == w[1].range.start));
    }

    #[test]
    fn targets_follow_the_reference() {
        let r = ReferenceData::embedded(ZoneSet::Selected2026);
        let all = targets(&r.zones, Provider::Entsoe, &DataKind::ALL, None);
        assert!(all.contains(&(DataKind::Generation, Target::Zone(z("NL")))));
        assert!(
            !all.contains(&(DataKind::Generation, Target::Zone(z("GB")))),
            "GB is Elexon's"
        );
        assert!(all.contains(&(
            DataKind::Flows,
            Target::Border {
                from: z("GB"),
                to: z("FR")
            }
        )));
        let flows = all.iter().filter(|(k, _)| *k == DataKind::Flows).count();
        assert_eq!(flows, r.zones.borders().len());
        let nl = targets(&r.zones, Provider::Entsoe, &DataKind::ALL, Some(&[z("NL")]));
        assert!(nl.iter().all(|(_, t)| t.to_string().contains("NL")));
        assert!(nl.contains(&(
            DataKind::Flows,
            Target::Border {
                from: z("DE"),
                to: z("NL")
            }
        )));
        let gb = targets(&r.zones, Provider::Elexon, &DataKind::ALL, None);
        assert_eq!(
            gb,
            vec![
                (DataKind::Generation, Target::Zone(z("GB"))),
                (DataKind::Load, Target::Zone(z("GB")))
            ]
        );
    }

    #[test]
    fn whole_hours_widen() {
        let r = whole_hours(SlotRange::new(Slot(5), Slot(9)));
        assert_eq!(r, SlotRange::new(Slot(4), Slot(12)));
    }
}
