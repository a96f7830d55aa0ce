-- Issue #31: which UTC days changed since their outputs were last published final. Every upsert
-- that changes a point advances the input revision (meta key 'input_revision') and gives it to the
-- days it changed; a compute that saw every write settles the final days it covered at the
-- revision it saw. A day whose revision is not above its settled one is skipped by the next
-- compute (nothing read, nothing republished). Days stored before this migration have no row:
-- they count as unsettled until a compute settles them.
CREATE TABLE input_day (
    day       BIGINT  PRIMARY KEY,
    revision  BIGINT  NOT NULL,
    settled   BIGINT
);
INSERT INTO meta (key, value) VALUES ('input_revision', 0);
