//! Point → zone lookup for `lat`/`lon` parameters (and their `source_`, `destination_`, `origin_`
//! variants), from the zone polygons of the reference data.
//!
//! [`ZoneLocator`] is built once at start-up from the GeoJSON text in
//! [`ReferenceData::geojson`](gridprint_core::reference::ReferenceData): one `geo::MultiPolygon` per
//! zone with its bounding box. A lookup tests the bounding boxes (a handful of comparisons per zone)
//! and runs `geo`'s `Contains` only on the few candidates, in zone-code order; a point exactly on a
//! border (not contained by either side) falls back to `Intersects`, so it resolves to the first zone
//! by code. Features whose `zoneName` is not a zone of the loaded set (e.g. `IM`, `IS`, or zones of the
//! full set while the selected set is in use) are ignored: a point there is "in no zone".

use ::geo::{
    BoundingRect, Contains, Coord, Intersects, LineString, MultiPolygon, Point, Polygon, Rect,
};
use gridprint_core::zone::{ZoneIdx, Zones};
use serde_json::Value;

/// The GeoJSON could not be turned into polygons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("zone polygons: {0}")]
pub struct GeoError(pub String);

/// Spatial index of the zone polygons.
#[derive(Debug, Clone, Default)]
pub struct ZoneLocator {
    /// (zone, bounding box, polygons), sorted by zone index (= zone code order).
    shapes: Vec<(ZoneIdx, Rect<f64>, MultiPolygon<f64>)>,
}

fn ring(v: &Value) -> Result<LineString<f64>, GeoError> {
    let pts = v
        .as_array()
        .ok_or_else(|| GeoError("a ring is not an array".into()))?;
    pts.iter()
        .map(|p| match p.as_array().map(|a| a.as_slice()) {
            Some([x, y, ..]) => match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => Ok(Coord { x, y }),
                _ => Err(GeoError("a coordinate is not a number".into())),
            },
            _ => Err(GeoError("a position is not [lon, lat]".into())),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(LineString::new)
}

fn polygon(v: &Value) -> Result<Polygon<f64>, GeoError> {
    let rings = v
        .as_array()
        .ok_or_else(|| GeoError("a polygon is not an array of rings".into()))?;
    let mut rings = rings.iter().map(ring);
    let exterior = rings
        .next()
        .ok_or_else(|| GeoError("a polygon without rings".into()))??;
    Ok(Polygon::new(exterior, rings.collect::<Result<_, _>>()?))
}

fn geometry(g: &Value) -> Result<MultiPolygon<f64>, GeoError> {
    let coords = &g["coordinates"];
    match g["type"].as_str() {
        Some("Polygon") => Ok(MultiPolygon::new(vec![polygon(coords)?])),
        Some("MultiPolygon") => coords
            .as_array()
            .ok_or_else(|| GeoError("MultiPolygon coordinates are not an array".into()))?
            .iter()
            .map(polygon)
            .collect::<Result<Vec<_>, _>>()
            .map(MultiPolygon::new),
        other => Err(GeoError(format!("unsupported geometry type {other:?}"))),
    }
}

impl ZoneLocator {
    /// Builds the index from a GeoJSON FeatureCollection whose features carry `properties.zoneName`.
    /// Several features of one zone are merged.
    pub fn from_geojson(text: &str, zones: &Zones) -> Result<ZoneLocator, GeoError> {
        let doc: Value =
            serde_json::from_str(text).map_err(|e| GeoError(format!("not JSON: {e}")))?;
        let features = doc["features"]
            .as_array()
            .ok_or_else(|| GeoError("no `features` array".into()))?;
        let mut by_zone: Vec<Option<MultiPolygon<f64>>> = vec![None; zones.len()];
        for f in features {
            let Some(idx) = f["properties"]["zoneName"]
                .as_str()
                .and_then(|n| zones.index_of_str(n))
            else {
                continue;
            };
            let name = zones.code(idx).clone();
            let mp = geometry(&f["geometry"]).map_err(|e| GeoError(format!("{name}: {}", e.0)))?;
            match &mut by_zone[idx] {
                Some(existing) => existing.0.extend(mp.0),
                slot @ None => *slot = Some(mp),
            }
        }
        let shapes = by_zone
            .into_iter()
            .enumerate()
            .filter_map(|(i, mp)| {
                let mp = mp?;
                let rect = mp.bounding_rect()?;
                Some((i, rect, mp))
            })
            .collect();
        Ok(ZoneLocator { shapes })
    }

    /// Number of zones with a polygon.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether no zone has a polygon.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// The zone containing the point, if any. Coordinates in degrees (WGS 84).
    pub fn locate(&self, lat: f64, lon: f64) -> Option<ZoneIdx> {
        let p = Point::new(lon, lat);
        let c = Coord { x: lon, y: lat };
        let in_box = |r: &Rect<f64>| {
            c.x >= r.min().x && c.x <= r.max().x && c.y >= r.min().y && c.y <= r.max().y
        };
        let candidates = || self.shapes.iter().filter(|(_, r, _)| in_box(r));
        candidates()
            .find(|(_, _, mp)| mp.contains(&p))
            .or_else(|| candidates().find(|(_, _, mp)| mp.intersects(&p)))
            .map(|(i, _, _)| *i)
    }
}
