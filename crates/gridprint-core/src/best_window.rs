//! When and where to run: the best placements of a job of fixed length over several zones' series.
//!
//! A job of `len` whole 15-minute slots may start at any slot of the window whose next `len` slots all
//! hold a point (a job never spans a slot without data). Its value is the time-weighted mean of the
//! step series over those slots — each slot counts for its full 15 minutes, so the mean is the plain
//! mean of the slot values. The answer is the best `n` jobs over all zones together, best first, where
//! a job never overlaps an earlier answer in the same zone (jobs in different zones may overlap: they
//! are alternatives, not a schedule). Ties go to the earliest start, then to the zone listed first.
//!
//! Sums are taken over prefix sums of the slot values in `f64`; the API's values are `f32`, whose sums
//! over a few hundred slots are exact in `f64`, so equal means compare equal and ties are decided by the
//! rule above, not by rounding noise.

use crate::quality::ZoneStatus;

/// One slot of one zone's series as the search sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotPoint {
    pub value: f64,
    pub valid: bool,
    pub zone_status: ZoneStatus,
    /// The slot lies after the last provider data (its inputs are forecast).
    pub forecast: bool,
}

/// Whether smaller values are better (footprints, impacts) or larger ones (scores).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    Minimise,
    Maximise,
}

/// One placement of the job: in `series[zone]`, over slots `start .. start + len`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub zone: usize,
    pub start: usize,
    /// Mean of the slot values over the job.
    pub mean: f64,
    /// Every slot of the job is valid.
    pub valid: bool,
    /// Worst status of the job's slots.
    pub zone_status: ZoneStatus,
    /// Any slot of the job is a forecast.
    pub forecast: bool,
}

/// The placement of a job of `len` slots starting at `start` in one series, or `None` when it runs past
/// the series or over a slot without data.
pub fn placement_at(
    series: &[Option<SlotPoint>],
    zone: usize,
    start: usize,
    len: usize,
) -> Option<Placement> {
    if len == 0 || start + len > series.len() {
        return None;
    }
    let mut sum = 0.0;
    let mut valid = true;
    let mut zone_status = ZoneStatus::Complete;
    let mut forecast = false;
    for point in &series[start..start + len] {
        let p = (*point)?;
        sum += p.value;
        valid &= p.valid;
        zone_status = zone_status.min(p.zone_status);
        forecast |= p.forecast;
    }
    Some(Placement {
        zone,
        start,
        mean: sum / len as f64,
        valid,
        zone_status,
        forecast,
    })
}

/// The best `n` placements of a job of `len` slots over all `series` (one per zone, index 0 = the
/// window's first slot), best first, non-overlapping within a zone. Fewer than `n` when the series do
/// not hold that many; none when `len` is 0.
pub fn best_windows(
    series: &[Vec<Option<SlotPoint>>],
    len: usize,
    n: usize,
    goal: Goal,
) -> Vec<Placement> {
    if len == 0 || n == 0 {
        return Vec::new();
    }
    // Every feasible start of every zone, with its sum; ranked once, then taken greedily.
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for (zone, points) in series.iter().enumerate() {
        let mut prefix = Vec::with_capacity(points.len() + 1);
        let mut run_start = Vec::with_capacity(points.len());
        prefix.push(0.0);
        let mut acc = 0.0;
        let mut run = 0;
        for (i, p) in points.iter().enumerate() {
            match p {
                Some(p) => acc += p.value,
                None => run = i + 1,
            }
            prefix.push(acc);
            run_start.push(run);
        }
        for end in len..=points.len() {
            let start = end - len;
            // the slots start..end hold data when the last hole before `end` lies before `start`
            if points[end - 1].is_some() && run_start[end - 1] <= start {
                candidates.push((prefix[end] - prefix[start], zone, start));
            }
        }
    }
    let order = |a: &(f64, usize, usize), b: &(f64, usize, usize)| {
        let by_value = match goal {
            Goal::Minimise => a.0.total_cmp(&b.0),
            Goal::Maximise => b.0.total_cmp(&a.0),
        };
        by_value.then(a.2.cmp(&b.2)).then(a.1.cmp(&b.1))
    };
    // A taken job rules out at most 2·len − 1 starts of its zone (itself included), so the n-th pick
    // lies among the best (n − 1)(2·len − 1) + 1 candidates: select those in linear time, sort only them.
    let keep = (n - 1)
        .saturating_mul(2 * len - 1)
        .saturating_add(1)
        .min(candidates.len());
    if keep > 0 && keep < candidates.len() {
        candidates.select_nth_unstable_by(keep - 1, order);
        candidates.truncate(keep);
    }
    candidates.sort_by(order);
    let mut taken: Vec<Placement> = Vec::with_capacity(n);
    for (_, zone, start) in candidates {
        if taken.len() == n {
            break;
        }
        let overlaps = taken
            .iter()
            .any(|t| t.zone == zone && start < t.start + len && t.start < start + len);
        if !overlaps && let Some(p) = placement_at(&series[zone], zone, start, len) {
            taken.push(p);
        }
    }
    taken
}

/// How much better `value` is than `now` in percent of `now` (positive = better): for a footprint or
/// impact the relative reduction, for a score the relative gain. `None` when `now` is 0.
pub fn saving_percent(value: f64, now: f64, goal: Goal) -> Option<f64> {
    if now == 0.0 {
        return None;
    }
    Some(match goal {
        Goal::Minimise => (now - value) / now * 100.0,
        Goal::Maximise => (value - now) / now * 100.0,
    })
}

/// A duration as the API writes it (best-window's `duration`, the job length; `gridprint query`
/// converts its `--within` to it): whole minutes (`90`) or an ISO 8601 duration (`PT2H`,
/// `PT1H30M`, `P1D`, `PT40M`; parsed by the `iso8601` crate). Years and months (no fixed length)
/// and zero are refused. The answer is in seconds. (The command line's own duration flags, where a
/// plain number is seconds, use the binary's `parse_flag_duration`.)
pub fn parse_api_duration(s: &str) -> Result<u64, String> {
    let s = s.trim();
    if let Ok(minutes) = s.parse::<u64>() {
        return match minutes {
            0 => Err("duration must be longer than 0 minutes".into()),
            m => m
                .checked_mul(60)
                .ok_or_else(|| format!("duration {m} minutes is too long")),
        };
    }
    let upper = s.to_ascii_uppercase();
    let d = iso8601::duration(&upper)
        .ok()
        // the parser stops at the first character it cannot read: refuse trailing text
        .filter(|_| reparses(&upper))
        .ok_or_else(|| {
            format!("duration must be whole minutes (90) or an ISO 8601 duration (PT2H), got '{s}'")
        })?;
    if let iso8601::Duration::YMDHMS { year, month, .. } = d
        && (year != 0 || month != 0)
    {
        return Err(
            "duration in years or months has no fixed length: use days, hours or minutes".into(),
        );
    }
    let secs = std::time::Duration::from(d).as_secs_f64().ceil() as u64;
    if secs == 0 {
        return Err("duration must be longer than 0 minutes".into());
    }
    Ok(secs)
}

/// Whether an ISO 8601 duration is read whole: every designator the text holds is one the parser
/// accepted, and nothing follows the last one.
fn reparses(s: &str) -> bool {
    s.starts_with('P')
        && s.len() > 1
        && s[1..].chars().all(|c| {
            c.is_ascii_digit() || matches!(c, 'Y' | 'M' | 'W' | 'D' | 'T' | 'H' | 'S' | '.' | ',')
        })
        && s.ends_with(|c: char| c.is_ascii_alphabetic())
}

/// Whole 15-minute slots of a job of `seconds`, rounded up (40 min → 3 slots).
pub fn slots_for(seconds: u64) -> usize {
    seconds.div_ceil(crate::slot::SLOT_SECONDS as u64) as usize
}

#[cfg(test)]
mod duration_tests {
    use super::*;

    #[test]
    fn durations_in_minutes_and_iso_8601_round_up_to_slots() {
        assert_eq!(parse_api_duration("120"), Ok(7200));
        assert_eq!(parse_api_duration("PT2H"), Ok(7200));
        assert_eq!(parse_api_duration("pt1h30m"), Ok(5400));
        assert_eq!(parse_api_duration("P1D"), Ok(86_400));
        assert_eq!(slots_for(parse_api_duration("PT40M").unwrap()), 3);
        assert_eq!(slots_for(parse_api_duration("45").unwrap()), 3);
        assert_eq!(slots_for(parse_api_duration("PT1M").unwrap()), 1);
        for bad in ["0", "PT0M", "P1M", "P1Y", "2h", "PT2Hx", "-5", "", "PT"] {
            assert!(parse_api_duration(bad).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn point(value: f64, forecast: bool) -> Option<SlotPoint> {
        Some(SlotPoint {
            value,
            valid: !forecast,
            zone_status: if forecast {
                ZoneStatus::Missing
            } else {
                ZoneStatus::Complete
            },
            forecast,
        })
    }

    /// Brute force: at each step scan every (zone, start), sum the slots directly, and take the best one
    /// that does not overlap an earlier pick in its zone (ties: earliest start, then first zone).
    fn brute(
        series: &[Vec<Option<SlotPoint>>],
        len: usize,
        n: usize,
        goal: Goal,
    ) -> Vec<Placement> {
        let mut taken: Vec<Placement> = Vec::new();
        while taken.len() < n {
            let mut best: Option<Placement> = None;
            for (zone, points) in series.iter().enumerate() {
                for start in 0..points.len() {
                    let Some(p) = placement_at(points, zone, start, len) else {
                        continue;
                    };
                    if taken
                        .iter()
                        .any(|t| t.zone == zone && start < t.start + len && t.start < start + len)
                    {
                        continue;
                    }
                    let better = match best {
                        None => true,
                        Some(b) => {
                            let (x, y) = (p.mean * len as f64, b.mean * len as f64);
                            let strictly = match goal {
                                Goal::Minimise => x < y,
                                Goal::Maximise => x > y,
                            };
                            strictly || (x == y && (start, zone) < (b.start, b.zone))
                        }
                    };
                    if better {
                        best = Some(p);
                    }
                }
            }
            match best {
                Some(b) => taken.push(b),
                None => break,
            }
        }
        taken
    }

    fn series_strategy() -> impl Strategy<Value = Vec<Vec<Option<SlotPoint>>>> {
        // integer values (exact sums, many ties), ~15 % holes, forecast after a random boundary
        (1usize..4, 0usize..40, 0usize..40).prop_flat_map(|(zones, len, boundary)| {
            proptest::collection::vec(
                proptest::collection::vec(proptest::option::weighted(0.85, 0u32..8), len),
                zones,
            )
            .prop_map(move |raw| {
                raw.into_iter()
                    .map(|zone| {
                        zone.into_iter()
                            .enumerate()
                            .map(|(i, v)| v.and_then(|v| point(v as f64, i >= boundary)))
                            .collect()
                    })
                    .collect()
            })
        })
    }

    proptest! {
        #[test]
        fn greedy_equals_brute_force(series in series_strategy(), len in 1usize..10, n in 1usize..5, max in any::<bool>()) {
            let goal = if max { Goal::Maximise } else { Goal::Minimise };
            prop_assert_eq!(best_windows(&series, len, n, goal), brute(&series, len, n, goal));
        }

        #[test]
        fn answers_never_span_holes_nor_overlap(series in series_strategy(), len in 1usize..10, n in 1usize..6) {
            let got = best_windows(&series, len, n, Goal::Minimise);
            for (i, p) in got.iter().enumerate() {
                prop_assert!(series[p.zone][p.start..p.start + len].iter().all(Option::is_some));
                for q in &got[..i] {
                    prop_assert!(q.zone != p.zone || p.start >= q.start + len || q.start >= p.start + len);
                    prop_assert!(q.mean <= p.mean);
                }
            }
        }
    }

    #[test]
    fn job_longer_than_window_has_no_placement() {
        let s = vec![vec![point(1.0, false); 4]];
        assert!(best_windows(&s, 5, 3, Goal::Minimise).is_empty());
    }

    #[test]
    fn ties_take_the_earliest_start() {
        let s = vec![vec![point(2.0, false); 8], vec![point(2.0, false); 8]];
        let got = best_windows(&s, 2, 3, Goal::Minimise);
        let starts: Vec<_> = got.iter().map(|p| (p.zone, p.start)).collect();
        assert_eq!(starts, vec![(0, 0), (1, 0), (0, 2)]);
    }

    #[test]
    fn flags_across_the_forecast_boundary() {
        // slots 0..4 provider data, 4.. forecast; the cheapest job straddles the boundary
        let values = [9.0, 9.0, 1.0, 1.0, 1.0, 9.0];
        let s = vec![
            values
                .iter()
                .enumerate()
                .map(|(i, v)| point(*v, i >= 4))
                .collect::<Vec<_>>(),
        ];
        let got = best_windows(&s, 3, 1, Goal::Minimise);
        assert_eq!(got[0].start, 2);
        assert!(got[0].forecast);
        assert!(!got[0].valid);
        assert_eq!(got[0].zone_status, ZoneStatus::Missing);
        let past = best_windows(&s, 2, 1, Goal::Minimise);
        assert_eq!(past[0].start, 2);
        assert!(!past[0].forecast && past[0].valid);
        assert_eq!(past[0].zone_status, ZoneStatus::Complete);
    }

    #[test]
    fn saving_is_positive_when_better() {
        assert_eq!(saving_percent(50.0, 100.0, Goal::Minimise), Some(50.0));
        assert_eq!(saving_percent(60.0, 50.0, Goal::Maximise), Some(20.0));
        assert_eq!(saving_percent(1.0, 0.0, Goal::Minimise), None);
    }
}
