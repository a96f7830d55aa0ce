//! Recorded ENTSO-E documents answering API queries, as the Transparency Platform would (feature
//! `testing`): the test support behind the loopback servers (wiremock) that the client, backfill
//! and worker tests run against, since no machine here reaches the real API.
//!
//! [`Replay::add`] reads a recorded A75, A65 or A11 document, or a TSO forecast (A69, A65 A01, A71), and works out which query it answers
//! (document type, area parameters — the same [`crate::entsoe_api::query_params`] the client sends —
//! and the period its points cover). [`Replay::answer`] takes the query parameters of a request and
//! returns the recorded document whose area matches and whose period overlaps the requested one most
//! (one document per answer, as ENTSO-E sends), or ENTSO-E's "no matching data" acknowledgement, or 401 when the security token is not the expected
//! one. Documents are returned whole; the client keeps only the asked-for slots.

use crate::entsoe_api::{forecast_query_params, query_params};
use crate::request::{FetchRequest, ForecastData, ForecastRequest, series_of};
use gridprint_core::slot::{Slot, SlotRange};
use gridprint_core::tso_forecast::{TsoForecastKind, TsoForecastSeries};
use gridprint_core::zone::{Provider, Zones};
use std::collections::HashMap;

/// ENTSO-E's answer when nothing matches (shape of the recorded `ACK_999_no_matching_data.xml`).
pub const NO_MATCHING_DATA: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Acknowledgement_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-1:acknowledgementdocument:7:0">
	<mRID>replay-ack</mRID>
	<createdDateTime>2026-01-01T00:00:00Z</createdDateTime>
	<sender_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</sender_MarketParticipant.mRID>
	<sender_MarketParticipant.marketRole.type>A32</sender_MarketParticipant.marketRole.type>
	<receiver_MarketParticipant.mRID codingScheme="A01">10X1001A1001A450</receiver_MarketParticipant.mRID>
	<receiver_MarketParticipant.marketRole.type>A39</receiver_MarketParticipant.marketRole.type>
	<received_MarketDocument.createdDateTime>2026-01-01T00:00:00Z</received_MarketDocument.createdDateTime>
	<Reason>
		<code>999</code>
		<text>No matching data found for Data item and interval</text>
	</Reason>
</Acknowledgement_MarketDocument>
"#;

#[derive(Debug, Clone)]
struct Recorded {
    /// Area parameters and document type, as the client sends them.
    params: Vec<(&'static str, String)>,
    covers: SlotRange,
    body: Vec<u8>,
}

/// A set of recorded documents answering queries.
#[derive(Debug, Clone)]
pub struct Replay {
    zones: Zones,
    token: String,
    docs: Vec<Recorded>,
}

/// Parses `yyyyMMddHHmm` (UTC).
fn parse_period(s: &str) -> Option<Slot> {
    if s.len() != 12 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = |r: std::ops::Range<usize>| s[r].parse::<u32>().ok();
    let date = time::Date::from_calendar_date(
        n(0..4)? as i32,
        time::Month::try_from(n(4..6)? as u8).ok()?,
        n(6..8)? as u8,
    )
    .ok()?;
    let t = date
        .with_hms(n(8..10)? as u8, n(10..12)? as u8, 0)
        .ok()?
        .assume_utc();
    Some(Slot::containing(t))
}

impl Replay {
    /// An empty replay expecting `token` as `securityToken`.
    pub fn new(zones: Zones, token: &str) -> Replay {
        Replay {
            zones,
            token: token.to_string(),
            docs: Vec::new(),
        }
    }

    /// Adds a recorded document, of actual values or a TSO forecast. Fails when it does not parse
    /// or holds several series kinds.
    pub fn add(&mut self, body: Vec<u8>) -> Result<&mut Replay, String> {
        let doc = match crate::entsoe_xml::parse(&body, &self.zones) {
            Ok(doc) => doc,
            Err(e) => match crate::entsoe_xml::parse_forecast(&body, &self.zones) {
                Ok(forecast) => return self.add_forecast(body, forecast),
                Err(_) => return Err(e.to_string()),
            },
        };
        let first = doc
            .points
            .first()
            .ok_or("a document without points answers nothing")?;
        let (kind, target) = series_of(&first.key);
        let start = doc.points.iter().map(|p| p.slot).min().expect("points");
        let end = doc
            .points
            .iter()
            .map(|p| p.slot)
            .max()
            .expect("points")
            .offset(1);
        let req = FetchRequest {
            provider: Provider::Entsoe,
            kind,
            target,
            range: SlotRange::new(start, end),
        };
        let params = query_params(&req, &self.zones)?
            .into_iter()
            .filter(|(k, _)| *k != "periodStart" && *k != "periodEnd")
            .collect();
        self.docs.push(Recorded {
            params,
            covers: req.range,
            body,
        });
        Ok(self)
    }

    /// Adds a TSO forecast document: it answers the query of its document and process type (which
    /// the first value's series and kind give) and zone over the slots its values cover.
    fn add_forecast(
        &mut self,
        body: Vec<u8>,
        doc: crate::entsoe_xml::ForecastDocument,
    ) -> Result<&mut Replay, String> {
        let first = doc
            .forecasts
            .first()
            .ok_or("a document without values answers nothing")?;
        let data = match (&first.series, first.kind) {
            (TsoForecastSeries::Generation { .. }, TsoForecastKind::Intraday) => {
                ForecastData::WindSolarIntraday
            }
            (TsoForecastSeries::Generation { .. }, _) => ForecastData::WindSolarDayAhead,
            (TsoForecastSeries::Load { .. }, _) => ForecastData::LoadDayAhead,
            _ => ForecastData::ScheduledGeneration,
        };
        let start = doc.forecasts.iter().map(|p| p.slot).min().expect("values");
        let end = doc.forecasts.iter().map(|p| p.slot).max().expect("values");
        let req = ForecastRequest {
            provider: Provider::Entsoe,
            data,
            zone: first.series.zone().clone(),
            range: SlotRange::new(start, end.offset(1)),
        };
        let params = forecast_query_params(&req, &self.zones)?
            .into_iter()
            .filter(|(k, _)| *k != "periodStart" && *k != "periodEnd")
            .collect();
        self.docs.push(Recorded {
            params,
            covers: req.range,
            body,
        });
        Ok(self)
    }

    /// Adds a recorded document from a file.
    pub fn add_file(&mut self, path: impl AsRef<std::path::Path>) -> Result<&mut Replay, String> {
        let path = path.as_ref();
        let body = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.add(body)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The answer to a query: `(status, body)`.
    pub fn answer<'a>(
        &self,
        query: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> (u16, Vec<u8>) {
        let q: HashMap<&str, &str> = query.into_iter().collect();
        if q.get("securityToken") != Some(&self.token.as_str()) {
            return (
                401,
                b"<html><body><h1>Unauthorized</h1></body></html>".to_vec(),
            );
        }
        let (Some(start), Some(end)) = (
            q.get("periodStart").and_then(|s| parse_period(s)),
            q.get("periodEnd").and_then(|s| parse_period(s)),
        ) else {
            return (
                400,
                b"periodStart and periodEnd must be yyyyMMddHHmm".to_vec(),
            );
        };
        let asked = SlotRange::new(start, end);
        let overlap = |d: &Recorded| {
            (asked.end.min(d.covers.end).0 - asked.start.max(d.covers.start).0).max(0)
        };
        self.docs
            .iter()
            .filter(|d| {
                d.params.iter().all(|(k, v)| q.get(k) == Some(&v.as_str())) && overlap(d) > 0
            })
            .max_by_key(|d| overlap(d))
            .map(|d| (200, d.body.clone()))
            .unwrap_or_else(|| (200, NO_MATCHING_DATA.as_bytes().to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_parse() {
        let s = parse_period("202409012200").unwrap();
        assert_eq!(s.to_string(), "2024-09-01T22:00:00Z");
        assert!(parse_period("2024090122").is_none());
        assert!(parse_period("202413012200").is_none());
    }
}

/// A wiremock responder answering like the Transparency Platform from a [`Replay`] (for tests that
/// run the real client against a loopback server).
#[derive(Clone)]
pub struct ReplayResponder(pub Replay);

impl wiremock::Respond for ReplayResponder {
    fn respond(&self, req: &wiremock::Request) -> wiremock::ResponseTemplate {
        let pairs: Vec<(String, String)> = req
            .url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let (status, body) = self
            .0
            .answer(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        wiremock::ResponseTemplate::new(status).set_body_raw(body, "application/xml")
    }
}
