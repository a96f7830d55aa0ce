-- Which zone-days each publication changed: the data version of the last publication that wrote or
-- deleted a zone-day (a deleted day keeps its row, so caches see the deletion). Serving replicas
-- reload only the days changed since their version, and ETags follow the versions of the days an
-- answer covers. Rows of days published before this migration get the data version of the moment
-- of migration, which also becomes the floor of the log (`derived_change_floor`): a cache older than
-- the floor reloads everything.
CREATE TABLE derived_change (
    day      BIGINT  NOT NULL,
    zone     TEXT    NOT NULL,
    version  BIGINT  NOT NULL,
    PRIMARY KEY (day, zone)
);
CREATE INDEX derived_change_version ON derived_change (version);
INSERT INTO derived_change (day, zone, version)
    SELECT day, zone, (SELECT value FROM meta WHERE key = 'data_version') FROM derived_day;
INSERT INTO meta (key, value)
    SELECT 'derived_change_floor', value FROM meta WHERE key = 'data_version';
