//! Long-format CSV of every response (**\[beyond\]** `format=csv`): one row per point, the descriptive
//! fields and flags repeated as columns, numbers rounded to 2 decimals like the JSON.
//!
//! Columns (a header row is always written, also for an empty answer):
//!
//! | endpoint | columns |
//! |---|---|
//! | zones | `zone,full_name,eic_code,country_code,country_name,provider,neighbours` (neighbours joined by `;`) |
//! | generation, mix | `zone,unit,valid,zone_status,production_type,data_state,datasource,timestamp,value` |
//! | load | `zone,unit,valid,zone_status,data_state,datasource,timestamp,value` |
//! | imports | `zone,unit,valid,zone_status,source,data_state,datasource,timestamp,value` |
//! | exports | `zone,unit,valid,zone_status,destination,data_state,datasource,timestamp,value` |
//! | footprints | `zone,footprint_type,scope,unit,coverage,valid,zone_status,timestamp,value` |
//! | impacts | `zone,impact_type,scope,unit,coverage,valid,zone_status,timestamp,value` |
//! | score | `zone,scope,coverage,valid,zone_status,timestamp,value` |
//! | flow-share | `zone,unit,valid,zone_status,destination,timestamp,value` |
//! | mix-share | `zone,unit,valid,zone_status,origin,timestamp,value` |
//! | footprint-share | `zone,footprint_type,scope,unit,valid,zone_status,source,timestamp,value` |
//! | impact-share | `zone,impact_type,scope,unit,valid,zone_status,source,timestamp,value` |
//! | factors | `factor_type,production_type,scope,unit,source,year,source_link,timestamp,value` |
//!
//! Aggregates replace `timestamp,value` (and the flags) by `start,end,value,valid,zone_status,
//! aggregation_method`, after the same descriptive columns (factors keep `year` and `source_link`
//! empty when unknown).

use crate::responses::*;
use crate::timefmt::with_slot_stamp;
use ::csv::{Writer, WriterBuilder};
use std::fmt::Write as _;

type W = Writer<Vec<u8>>;
type R = ::csv::Result<()>;

/// Reusable number formatting.
struct Num(String);

impl Num {
    fn f(&mut self, v: f64) -> &str {
        self.0.clear();
        let _ = write!(self.0, "{}", round2(v));
        &self.0
    }
}

fn b(v: bool) -> &'static str {
    if v { "true" } else { "false" }
}

fn header(w: &mut W, cols: &[&str]) -> R {
    w.write_record(cols)
}

/// Writes one row per point: the `prefix` fields, then timestamp and value.
fn points(w: &mut W, n: &mut Num, prefix: &[&str], values: &Values) -> R {
    for p in &values.0 {
        for f in prefix {
            w.write_field(f)?;
        }
        with_slot_stamp(p.slot, |s| w.write_field(s))?;
        w.write_field(n.f(p.value))?;
        w.write_record(None::<&[u8]>)?;
    }
    Ok(())
}

/// The aggregate columns of one row.
struct Tail<'a> {
    start: &'a str,
    end: &'a str,
    value: f64,
    valid: bool,
    status: &'a str,
    method: &'a str,
}

fn aggregate_tail(w: &mut W, n: &mut Num, t: Tail<'_>) -> R {
    w.write_field(t.start)?;
    w.write_field(t.end)?;
    w.write_field(n.f(t.value))?;
    w.write_field(b(t.valid))?;
    w.write_field(t.status)?;
    w.write_field(t.method)?;
    w.write_record(None::<&[u8]>)
}

macro_rules! tail_of {
    ($a:expr) => {
        Tail {
            start: &$a.start,
            end: &$a.end,
            value: $a.value,
            valid: $a.valid,
            status: $a.zone_status.as_str(),
            method: $a.aggregation_method,
        }
    };
}

const AGG: [&str; 6] = [
    "start",
    "end",
    "value",
    "valid",
    "zone_status",
    "aggregation_method",
];

fn with_agg(prefix: &[&'static str]) -> Vec<&'static str> {
    prefix.iter().copied().chain(AGG).collect()
}

fn write(resp: &QueryResponse, w: &mut W) -> R {
    let mut n = Num(String::with_capacity(24));
    let n = &mut n;
    match resp {
        QueryResponse::Zones(v) => {
            header(
                w,
                &[
                    "zone",
                    "full_name",
                    "eic_code",
                    "country_code",
                    "country_name",
                    "provider",
                    "neighbours",
                ],
            )?;
            for z in v {
                let ns: Vec<&str> = z.neighbours.iter().map(|c| c.as_str()).collect();
                let ns = ns.join(";");
                w.write_record([
                    z.zone.as_str(),
                    &z.full_name,
                    &z.eic_code,
                    &z.country_code,
                    &z.country_name,
                    z.provider,
                    &ns,
                ])?;
            }
        }
        QueryResponse::Generation(v) | QueryResponse::Mix(v) => {
            header(
                w,
                &[
                    "zone",
                    "unit",
                    "valid",
                    "zone_status",
                    "production_type",
                    "data_state",
                    "datasource",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.production {
                        let pre = [
                            r.zone.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.production_type.as_str(),
                            blk.data_state.as_str(),
                            &blk.datasource,
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::Load(v) => {
            header(
                w,
                &[
                    "zone",
                    "unit",
                    "valid",
                    "zone_status",
                    "data_state",
                    "datasource",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.blocks {
                        let pre = [
                            r.zone.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.data_state.as_str(),
                            &blk.datasource,
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::Imports(v) => {
            header(
                w,
                &[
                    "zone",
                    "unit",
                    "valid",
                    "zone_status",
                    "source",
                    "data_state",
                    "datasource",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.imports {
                        let pre = [
                            r.zone.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.source.as_str(),
                            blk.data_state.as_str(),
                            &blk.datasource,
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::Exports(v) => {
            header(
                w,
                &[
                    "zone",
                    "unit",
                    "valid",
                    "zone_status",
                    "destination",
                    "data_state",
                    "datasource",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.exports {
                        let pre = [
                            r.zone.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.destination.as_str(),
                            blk.data_state.as_str(),
                            &blk.datasource,
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::Footprints(Footprints::Series(v)) => {
            header(
                w,
                &[
                    "zone",
                    "footprint_type",
                    "scope",
                    "unit",
                    "coverage",
                    "valid",
                    "zone_status",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    let pre = [
                        r.zone.as_str(),
                        r.footprint_type.as_str(),
                        r.scope.as_str(),
                        r.unit,
                        r.coverage.as_str(),
                        b(e.valid),
                        e.zone_status.as_str(),
                    ];
                    points(w, n, &pre, &e.values)?;
                }
            }
        }
        QueryResponse::Footprints(Footprints::Aggregate(v)) => {
            header(
                w,
                &with_agg(&["zone", "footprint_type", "scope", "unit", "coverage"]),
            )?;
            for a in v {
                for f in [
                    a.zone.as_str(),
                    a.footprint_type.as_str(),
                    a.scope.as_str(),
                    a.unit,
                    a.coverage.as_str(),
                ] {
                    w.write_field(f)?;
                }
                aggregate_tail(w, n, tail_of!(a))?;
            }
        }
        QueryResponse::Impacts(Impacts::Series(v)) => {
            header(
                w,
                &[
                    "zone",
                    "impact_type",
                    "scope",
                    "unit",
                    "coverage",
                    "valid",
                    "zone_status",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    let pre = [
                        r.zone.as_str(),
                        r.impact_type,
                        r.scope.as_str(),
                        r.unit,
                        r.coverage.as_str(),
                        b(e.valid),
                        e.zone_status.as_str(),
                    ];
                    points(w, n, &pre, &e.values)?;
                }
            }
        }
        QueryResponse::Impacts(Impacts::Aggregate(v)) => {
            header(
                w,
                &with_agg(&["zone", "impact_type", "scope", "unit", "coverage"]),
            )?;
            for a in v {
                for f in [
                    a.zone.as_str(),
                    a.impact_type,
                    a.scope.as_str(),
                    a.unit,
                    a.coverage.as_str(),
                ] {
                    w.write_field(f)?;
                }
                aggregate_tail(w, n, tail_of!(a))?;
            }
        }
        QueryResponse::Score(Scores::Series(v)) => {
            header(
                w,
                &[
                    "zone",
                    "scope",
                    "coverage",
                    "valid",
                    "zone_status",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    let pre = [
                        r.zone.as_str(),
                        r.scope.as_str(),
                        r.coverage.as_str(),
                        b(e.valid),
                        e.zone_status.as_str(),
                    ];
                    points(w, n, &pre, &e.values)?;
                }
            }
        }
        QueryResponse::Score(Scores::Aggregate(v)) => {
            header(w, &with_agg(&["zone", "scope", "coverage"]))?;
            for a in v {
                for f in [a.zone.as_str(), a.scope.as_str(), a.coverage.as_str()] {
                    w.write_field(f)?;
                }
                aggregate_tail(w, n, tail_of!(a))?;
            }
        }
        QueryResponse::FlowShare(v) => {
            header(
                w,
                &[
                    "zone",
                    "unit",
                    "valid",
                    "zone_status",
                    "destination",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.flows {
                        let pre = [
                            r.zone.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.destination.as_str(),
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::MixShare(v) => {
            header(
                w,
                &[
                    "zone",
                    "unit",
                    "valid",
                    "zone_status",
                    "origin",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.shares {
                        let pre = [
                            r.zone.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.origin.as_str(),
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::FootprintShare(v) => {
            header(
                w,
                &[
                    "zone",
                    "footprint_type",
                    "scope",
                    "unit",
                    "valid",
                    "zone_status",
                    "source",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.blocks {
                        let pre = [
                            r.zone.as_str(),
                            r.footprint_type.as_str(),
                            r.scope.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.source.as_str(),
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::ImpactShare(v) => {
            header(
                w,
                &[
                    "zone",
                    "impact_type",
                    "scope",
                    "unit",
                    "valid",
                    "zone_status",
                    "source",
                    "timestamp",
                    "value",
                ],
            )?;
            for r in v {
                for e in &r.series {
                    for blk in &e.blocks {
                        let pre = [
                            r.zone.as_str(),
                            r.impact_type,
                            r.scope.as_str(),
                            r.unit,
                            b(e.valid),
                            e.zone_status.as_str(),
                            blk.source.as_str(),
                        ];
                        points(w, n, &pre, &blk.values)?;
                    }
                }
            }
        }
        QueryResponse::Factors(Factors::Series(v)) => {
            header(
                w,
                &[
                    "factor_type",
                    "production_type",
                    "scope",
                    "unit",
                    "source",
                    "year",
                    "source_link",
                    "timestamp",
                    "value",
                ],
            )?;
            for f in v {
                let year = f.year.map(|y| y.to_string()).unwrap_or_default();
                let pre = [
                    f.factor_type.as_str(),
                    f.production_type.as_str(),
                    f.scope.as_str(),
                    &f.unit,
                    &f.source,
                    &year,
                    f.source_link.as_deref().unwrap_or(""),
                ];
                for s in &f.series {
                    points(w, n, &pre, &s.values)?;
                }
            }
        }
        QueryResponse::Factors(Factors::Aggregate(v)) => {
            header(
                w,
                &with_agg(&[
                    "factor_type",
                    "production_type",
                    "scope",
                    "unit",
                    "source",
                    "year",
                    "source_link",
                ]),
            )?;
            for f in v {
                let year = f.year.map(|y| y.to_string()).unwrap_or_default();
                for x in [
                    f.factor_type.as_str(),
                    f.production_type.as_str(),
                    f.scope.as_str(),
                    &f.unit,
                    &f.source,
                    &year,
                    f.source_link.as_deref().unwrap_or(""),
                ] {
                    w.write_field(x)?;
                }
                aggregate_tail(w, n, tail_of!(f))?;
            }
        }
    }
    Ok(())
}

/// The CSV body of a response (UTF-8, `\n` line ends, header row first).
pub fn to_csv(resp: &QueryResponse) -> Vec<u8> {
    let mut w = WriterBuilder::new()
        .flexible(false)
        .from_writer(Vec::with_capacity(4096));
    // Writing into a Vec cannot fail except on a column-count mismatch, which the code rules out.
    let _ = write(resp, &mut w);
    w.into_inner().unwrap_or_default()
}

/// The CSV body of a `/status` answer: `storage,entso-e,elexon,epias` and one row.
pub fn status_csv(s: &StatusResponse) -> Vec<u8> {
    let mut w = WriterBuilder::new().from_writer(Vec::new());
    let _ = w.write_record(["storage", "entso-e", "elexon", "epias"]);
    let _ = w.write_record([s.storage, &s.entsoe, &s.elexon, &s.epias]);
    w.into_inner().unwrap_or_default()
}
