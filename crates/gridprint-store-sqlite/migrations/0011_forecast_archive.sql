-- Issue #46, items 4 and 5. (0010 and 0012 are other branches' migrations; each store applies its
-- files in the order of its MIGRATIONS list.)
--
-- forecast_archive: what the worker forecast, one row per zone and origin (the slot the forecast was
-- issued in, at most one per hour), kept for `--forecast-archive-days` (default 30) and pruned by
-- the worker. `known_until` is the first slot the zone's own data was not known at the origin
-- (persistence counts from it), `footprints` holds the carbon footprint (global, life-cycle) from the origin on and
-- `inputs` the zone's forecast input series, packed by gridprint_store::forecast (values rounded to
-- 0.01 g/kWh and 0.1 MW, written as variable-length differences).
CREATE TABLE forecast_archive (
    origin      INTEGER NOT NULL,
    zone        TEXT    NOT NULL,
    issued_at   INTEGER NOT NULL,
    known_until INTEGER NOT NULL,
    footprints  BLOB    NOT NULL,
    inputs      BLOB    NOT NULL,
    PRIMARY KEY (origin, zone)
);
-- forecast_accuracy: the accuracy the worker computed from the archive and the actuals, per zone,
-- window (7 or 30 days of origins) and horizon band, beside persistence; replaced as a whole.
-- NULL: nothing to measure.
CREATE TABLE forecast_accuracy (
    zone                  TEXT    NOT NULL,
    window_days           INTEGER NOT NULL,
    band_from_h           INTEGER NOT NULL,
    band_to_h             INTEGER NOT NULL,
    computed_at           INTEGER NOT NULL,
    first_origin          INTEGER,
    last_origin           INTEGER,
    forecasts             INTEGER NOT NULL,
    points                INTEGER NOT NULL,
    ranked                INTEGER NOT NULL,
    mape                  REAL,
    mae                   REAL,
    rank_correlation      REAL,
    regret                REAL,
    persistence_mape      REAL,
    persistence_mae       REAL,
    persistence_rank      REAL,
    persistence_regret    REAL,
    PRIMARY KEY (zone, window_days, band_from_h)
);
