-- Issue #46: the TSOs' own forecasts (day-ahead and intraday wind and solar, day-ahead load,
-- scheduled generation and consumption), kept apart from the actual inputs of input_point so that
-- a forecast is never served as a measurement. One row per series, forecast kind and slot:
-- kind 0 generation (other: production type), 1 load, 2 scheduled generation, 3 scheduled
-- consumption (other ''); forecast 0 day-ahead, 1 intraday, 2 current; published_at: Unix seconds
-- of the publication (the regulation's deadline for the website's exports). A later publication
-- with another value replaces the row; an earlier one only moves published_at back
-- (gridprint_store::tso).
CREATE TABLE tso_forecast (
    slot          INTEGER NOT NULL,
    kind          INTEGER NOT NULL,
    zone          TEXT    NOT NULL,
    other         TEXT    NOT NULL,
    forecast      INTEGER NOT NULL,
    mw            REAL    NOT NULL,
    published_at  INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (slot, kind, zone, other, forecast)
) WITHOUT ROWID;
