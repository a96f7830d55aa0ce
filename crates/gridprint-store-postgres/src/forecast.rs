//! The forecast archive and the published accuracy on PostgreSQL (`gridprint_store::ForecastStore`;
//! migration 0011): archived forecasts one row per (origin, zone) with their packed columns, the
//! accuracy one row per (zone, window, band).

use crate::{PgStore, map_err};
use gridprint_core::slot::Slot;
use gridprint_core::zone::ZoneCode;
use gridprint_store::forecast::{
    AccuracyRow, ArchiveQuery, ArchivedForecast, ForecastStore, Measures, pack_footprints,
    pack_inputs, unpack_footprints, unpack_inputs,
};
use gridprint_store::{Result, StoreError};

fn zone_of(text: &str) -> Result<ZoneCode> {
    ZoneCode::parse(text)
        .ok_or_else(|| StoreError::Corrupt(format!("bad zone {text:?} in the forecast archive")))
}

fn measures(r: &postgres::Row, i: usize) -> Measures {
    Measures {
        mape: r.get(i),
        mae: r.get(i + 1),
        rank: r.get(i + 2),
        regret: r.get(i + 3),
    }
}

/// A measure as stored: NULL for none (and for a NaN, which has nothing to say).
fn stored(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite())
}

impl ForecastStore for PgStore {
    fn archive_forecasts(&self, forecasts: &[ArchivedForecast]) -> Result<()> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(map_err)?;
        let put = tx
            .prepare(
                "INSERT INTO forecast_archive (origin, zone, issued_at, known_until, footprints,
                   inputs)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (origin, zone) DO UPDATE SET issued_at = excluded.issued_at,
                   known_until = excluded.known_until, footprints = excluded.footprints,
                   inputs = excluded.inputs",
            )
            .map_err(map_err)?;
        for f in forecasts {
            tx.execute(
                &put,
                &[
                    &f.origin.0,
                    &f.zone.as_str(),
                    &f.issued_at,
                    &f.known_until.0,
                    &pack_footprints(&f.footprints),
                    &pack_inputs(&f.inputs, f.origin),
                ],
            )
            .map_err(map_err)?;
        }
        tx.commit().map_err(map_err)
    }

    fn archived_forecasts(&self, query: &ArchiveQuery) -> Result<Vec<ArchivedForecast>> {
        let zone = query.zone.as_ref().map(|z| z.as_str().to_string());
        let rows = self.rows(
            "SELECT origin, zone, issued_at, known_until, footprints, CASE WHEN $4 THEN inputs END
             FROM forecast_archive
             WHERE origin >= $1 AND origin < $2 AND ($3::TEXT IS NULL OR zone = $3)
             ORDER BY origin, zone",
            &[
                &query.origins.start.0,
                &query.origins.end.0,
                &zone,
                &query.inputs,
            ],
        )?;
        rows.iter()
            .map(|r| {
                let zone = zone_of(r.get(1))?;
                let origin = Slot(r.get(0));
                let inputs = match r.get::<_, Option<&[u8]>>(5) {
                    Some(bytes) => unpack_inputs(bytes, &zone, origin)?,
                    None => Vec::new(),
                };
                Ok(ArchivedForecast {
                    footprints: unpack_footprints(r.get(4))?,
                    zone,
                    origin,
                    issued_at: r.get(2),
                    known_until: Slot(r.get(3)),
                    inputs,
                })
            })
            .collect()
    }

    fn latest_archived_origin(&self) -> Result<Option<Slot>> {
        let rows = self.rows("SELECT MAX(origin) FROM forecast_archive", &[])?;
        Ok(rows[0].get::<_, Option<i64>>(0).map(Slot))
    }

    fn prune_forecast_archive(&self, before: Slot) -> Result<usize> {
        let n = self
            .conn()?
            .execute(
                "DELETE FROM forecast_archive WHERE origin < $1",
                &[&before.0],
            )
            .map_err(map_err)?;
        Ok(n as usize)
    }

    fn replace_forecast_accuracy(&self, rows: &[AccuracyRow]) -> Result<()> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(map_err)?;
        tx.execute("DELETE FROM forecast_accuracy", &[])
            .map_err(map_err)?;
        let put = tx
            .prepare(
                "INSERT INTO forecast_accuracy (zone, window_days, band_from_h, band_to_h,
                   computed_at, first_origin, last_origin, forecasts, points, ranked, mape, mae,
                   rank_correlation, regret, persistence_mape, persistence_mae, persistence_rank,
                   persistence_regret)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                   $17, $18)",
            )
            .map_err(map_err)?;
        for a in rows {
            let (m, p) = (&a.model, &a.persistence);
            tx.execute(
                &put,
                &[
                    &a.zone.as_str(),
                    &a.window_days,
                    &a.band_from_h,
                    &a.band_to_h,
                    &a.computed_at,
                    &a.first_origin.map(|s| s.0),
                    &a.last_origin.map(|s| s.0),
                    &a.forecasts,
                    &a.points,
                    &a.ranked,
                    &stored(m.mape),
                    &stored(m.mae),
                    &stored(m.rank),
                    &stored(m.regret),
                    &stored(p.mape),
                    &stored(p.mae),
                    &stored(p.rank),
                    &stored(p.regret),
                ],
            )
            .map_err(map_err)?;
        }
        tx.execute(
            "UPDATE meta SET value = value + 1 WHERE key = 'data_version'",
            &[],
        )
        .map_err(map_err)?;
        tx.execute("NOTIFY gridprint_data", &[]).map_err(map_err)?;
        tx.commit().map_err(map_err)
    }

    fn forecast_accuracy(&self) -> Result<Vec<AccuracyRow>> {
        let rows = self.rows(
            "SELECT zone, window_days, band_from_h, band_to_h, computed_at, first_origin,
               last_origin, forecasts, points, ranked, mape, mae, rank_correlation, regret,
               persistence_mape, persistence_mae, persistence_rank, persistence_regret
             FROM forecast_accuracy ORDER BY zone, window_days, band_from_h",
            &[],
        )?;
        rows.iter()
            .map(|r| {
                Ok(AccuracyRow {
                    zone: zone_of(r.get(0))?,
                    window_days: r.get(1),
                    band_from_h: r.get(2),
                    band_to_h: r.get(3),
                    computed_at: r.get(4),
                    first_origin: r.get::<_, Option<i64>>(5).map(Slot),
                    last_origin: r.get::<_, Option<i64>>(6).map(Slot),
                    forecasts: r.get(7),
                    points: r.get(8),
                    ranked: r.get(9),
                    model: measures(r, 10),
                    persistence: measures(r, 14),
                })
            })
            .collect()
    }
}
