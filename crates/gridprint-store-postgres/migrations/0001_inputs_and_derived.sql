-- Raw inputs: one row per series point. kind: 0 generation, 1 load, 2 flow; data_state: 0 official,
-- 1 estimated, 2 missing (forecast). The primary key leads with the slot, so time ranges are index scans.
CREATE TABLE input_point (
    slot        BIGINT           NOT NULL,
    kind        SMALLINT         NOT NULL,
    zone        TEXT             NOT NULL,
    other       TEXT             NOT NULL,
    mw          DOUBLE PRECISION NOT NULL,
    data_state  SMALLINT         NOT NULL,
    datasource  TEXT             NOT NULL,
    updated_at  BIGINT           NOT NULL,
    PRIMARY KEY (slot, kind, zone, other)
);

-- Derived outputs: one row per zone and UTC day (columnar payload, gridprint_core::derived).
CREATE TABLE derived_day (
    day         BIGINT NOT NULL,
    zone        TEXT   NOT NULL,
    payload     BYTEA  NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (day, zone)
);

CREATE TABLE derived_stage (
    run         BIGINT NOT NULL,
    day         BIGINT NOT NULL,
    zone        TEXT   NOT NULL,
    payload     BYTEA,
    staged_at   BIGINT NOT NULL,
    PRIMARY KEY (run, day, zone)
);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('data_version', 0);
