-- Issue #31: flows assumed 0 MW (a border with no value in a slot a compute took as 0 MW) are kept
-- one row per border and UTC day, bit i of the mask (slots_lo: slots 0-63, slots_hi: 64-95) being
-- the day's slot i, instead of one input_point row per slot: those rows fell between the provider
-- rows of every slot and made a publication rewrite its days' input pages. A row of input_point at
-- the same key hides the bit (gridprint_store::assumed). Rows stored in input_point before this
-- migration stay there and read as before.
CREATE TABLE assumed_flow (
    day         BIGINT  NOT NULL,
    zone        TEXT    NOT NULL,
    other       TEXT    NOT NULL,
    slots_lo    BIGINT  NOT NULL,
    slots_hi    BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL,
    PRIMARY KEY (day, zone, other)
);
