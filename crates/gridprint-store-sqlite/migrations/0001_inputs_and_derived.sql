-- Raw inputs: one row per series point. kind: 0 generation, 1 load, 2 flow.
-- zone: the zone (exporting zone for flows); other: production type (generation), '' (load),
-- importing zone (flows). data_state: 0 official, 1 estimated, 2 missing (forecast).
CREATE TABLE input_point (
    slot        INTEGER NOT NULL,
    kind        INTEGER NOT NULL,
    zone        TEXT    NOT NULL,
    other       TEXT    NOT NULL,
    mw          REAL    NOT NULL,
    data_state  INTEGER NOT NULL,
    datasource  TEXT    NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (slot, kind, zone, other)
) WITHOUT ROWID;

-- Derived outputs: one row per zone and UTC day, columnar payload (gridprint_core::derived).
CREATE TABLE derived_day (
    day         INTEGER NOT NULL,
    zone        TEXT    NOT NULL,
    payload     BLOB    NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (day, zone)
) WITHOUT ROWID;

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('data_version', 0);

-- Staging for long computations: published atomically by commit_staged.
CREATE TABLE derived_stage (
    run         INTEGER NOT NULL,
    day         INTEGER NOT NULL,
    zone        TEXT    NOT NULL,
    payload     BLOB,
    staged_at   INTEGER NOT NULL,
    PRIMARY KEY (run, day, zone)
) WITHOUT ROWID;
