-- Issue #30: estimated and forecast points are named `wattnet-hybrid-estimation:gridprint-<method>`
-- (gridprint_core::inputs::DATASOURCE_ESTIMATION_PREFIX), since the reference's response models accept
-- for `datasource` only ENTSO-E, Elexon, EPIAS or ^wattnet-hybrid-estimation:.*$. The stored names are
-- rewritten here, rather than mapped when answering, so that the API, the CLI and every export read
-- one name, and the worker's new points and the old ones compare equal.
UPDATE input_point
    SET datasource = 'wattnet-hybrid-estimation:gridprint-' || substr(datasource, 22)
    WHERE datasource LIKE 'gridprint-estimation:%';
UPDATE input_point
    SET datasource = 'wattnet-hybrid-estimation:gridprint-' || substr(datasource, 20)
    WHERE datasource LIKE 'gridprint-forecast:%';
