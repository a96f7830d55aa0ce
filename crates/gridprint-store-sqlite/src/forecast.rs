//! The forecast archive and the published accuracy on SQLite (`gridprint_store::ForecastStore`;
//! migration 0011): archived forecasts one row per (origin, zone) with their packed columns, the
//! accuracy one row per (zone, window, band).

use crate::{SqliteStore, map_err, query_rows};
use gridprint_core::slot::Slot;
use gridprint_core::zone::ZoneCode;
use gridprint_store::forecast::{
    AccuracyRow, ArchiveQuery, ArchivedForecast, ForecastStore, Measures, pack_footprints,
    pack_inputs, unpack_footprints, unpack_inputs,
};
use gridprint_store::{Result, StoreError};
use rusqlite::params;

fn bad_zone(text: &str) -> StoreError {
    StoreError::Corrupt(format!("bad zone {text:?} in the forecast archive"))
}

fn zone_of(text: &str) -> Result<ZoneCode> {
    ZoneCode::parse(text).ok_or_else(|| bad_zone(text))
}

/// A measure as stored: NULL for none (and for a NaN, which has nothing to say).
fn stored(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite())
}

impl ForecastStore for SqliteStore {
    fn archive_forecasts(&self, forecasts: &[ArchivedForecast]) -> Result<()> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(map_err)?;
        {
            let mut put = tx
                .prepare_cached(
                    "INSERT INTO forecast_archive (origin, zone, issued_at, known_until, footprints,
                       inputs)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (origin, zone) DO UPDATE SET issued_at = excluded.issued_at,
                       known_until = excluded.known_until, footprints = excluded.footprints,
                       inputs = excluded.inputs",
                )
                .map_err(map_err)?;
            for f in forecasts {
                put.execute(params![
                    f.origin.0,
                    f.zone.as_str(),
                    f.issued_at,
                    f.known_until.0,
                    pack_footprints(&f.footprints),
                    pack_inputs(&f.inputs, f.origin),
                ])
                .map_err(map_err)?;
            }
        }
        tx.commit().map_err(map_err)
    }

    fn archived_forecasts(&self, query: &ArchiveQuery) -> Result<Vec<ArchivedForecast>> {
        let zone = query.zone.as_ref().map(|z| z.as_str().to_string());
        let rows = query_rows(
            &self.lock(),
            "SELECT origin, zone, issued_at, known_until, footprints, CASE WHEN ?4 THEN inputs END
             FROM forecast_archive
             WHERE origin >= ?1 AND origin < ?2 AND (?3 IS NULL OR zone = ?3)
             ORDER BY origin, zone",
            params![
                query.origins.start.0,
                query.origins.end.0,
                zone,
                query.inputs
            ],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Vec<u8>>(4)?,
                    r.get::<_, Option<Vec<u8>>>(5)?,
                ))
            },
        )?;
        rows.into_iter()
            .map(
                |(origin, zone, issued_at, known_until, footprints, inputs)| {
                    let zone = zone_of(&zone)?;
                    let origin = Slot(origin);
                    let inputs = match inputs {
                        Some(bytes) => unpack_inputs(&bytes, &zone, origin)?,
                        None => Vec::new(),
                    };
                    Ok(ArchivedForecast {
                        footprints: unpack_footprints(&footprints)?,
                        zone,
                        origin,
                        issued_at,
                        known_until: Slot(known_until),
                        inputs,
                    })
                },
            )
            .collect()
    }

    fn latest_archived_origin(&self) -> Result<Option<Slot>> {
        let origin: Option<i64> = self
            .lock()
            .query_row("SELECT MAX(origin) FROM forecast_archive", [], |r| r.get(0))
            .map_err(map_err)?;
        Ok(origin.map(Slot))
    }

    fn prune_forecast_archive(&self, before: Slot) -> Result<usize> {
        self.lock()
            .execute("DELETE FROM forecast_archive WHERE origin < ?1", [before.0])
            .map_err(map_err)
    }

    fn replace_forecast_accuracy(&self, rows: &[AccuracyRow]) -> Result<()> {
        let mut conn = self.lock();
        let tx = conn.transaction().map_err(map_err)?;
        tx.execute("DELETE FROM forecast_accuracy", [])
            .map_err(map_err)?;
        {
            let mut put = tx
                .prepare_cached(
                    "INSERT INTO forecast_accuracy (zone, window_days, band_from_h, band_to_h,
                       computed_at, first_origin, last_origin, forecasts, points, ranked, mape, mae,
                       rank_correlation, regret, persistence_mape, persistence_mae,
                       persistence_rank, persistence_regret)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                       ?17, ?18)",
                )
                .map_err(map_err)?;
            for a in rows {
                let (m, p) = (&a.model, &a.persistence);
                put.execute(params![
                    a.zone.as_str(),
                    a.window_days,
                    a.band_from_h,
                    a.band_to_h,
                    a.computed_at,
                    a.first_origin.map(|s| s.0),
                    a.last_origin.map(|s| s.0),
                    a.forecasts,
                    a.points,
                    a.ranked,
                    stored(m.mape),
                    stored(m.mae),
                    stored(m.rank),
                    stored(m.regret),
                    stored(p.mape),
                    stored(p.mae),
                    stored(p.rank),
                    stored(p.regret),
                ])
                .map_err(map_err)?;
            }
        }
        tx.execute(
            "UPDATE meta SET value = value + 1 WHERE key = 'data_version'",
            [],
        )
        .map_err(map_err)?;
        tx.commit().map_err(map_err)
    }

    fn forecast_accuracy(&self) -> Result<Vec<AccuracyRow>> {
        let rows = query_rows(
            &self.lock(),
            "SELECT zone, window_days, band_from_h, band_to_h, computed_at, first_origin,
               last_origin, forecasts, points, ranked, mape, mae, rank_correlation, regret,
               persistence_mape, persistence_mae, persistence_rank, persistence_regret
             FROM forecast_accuracy ORDER BY zone, window_days, band_from_h",
            [],
            |r| {
                let measures = |i: usize| -> rusqlite::Result<Measures> {
                    Ok(Measures {
                        mape: r.get(i)?,
                        mae: r.get(i + 1)?,
                        rank: r.get(i + 2)?,
                        regret: r.get(i + 3)?,
                    })
                };
                let text: String = r.get(0)?;
                let Some(zone) = ZoneCode::parse(&text) else {
                    return Ok(Err(text));
                };
                Ok(Ok(AccuracyRow {
                    zone,
                    window_days: r.get(1)?,
                    band_from_h: r.get(2)?,
                    band_to_h: r.get(3)?,
                    computed_at: r.get(4)?,
                    first_origin: r.get::<_, Option<i64>>(5)?.map(Slot),
                    last_origin: r.get::<_, Option<i64>>(6)?.map(Slot),
                    forecasts: r.get(7)?,
                    points: r.get(8)?,
                    ranked: r.get(9)?,
                    model: measures(10)?,
                    persistence: measures(14)?,
                }))
            },
        )?;
        rows.into_iter()
            .map(|row| row.map_err(|text| bad_zone(&text)))
            .collect()
    }
}
