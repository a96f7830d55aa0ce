// The map: zone polygons on a plain background (no tile server), coloured through feature state,
// and the net cross-border flows as arrows on each border (only between zones with data), with a
// legend of their sizes.
import * as maplibregl from './vendor/maplibre-gl/maplibre-gl.mjs';

// Start fetching and starting the map's worker now, while the data requests are in flight.
maplibregl.prewarm();

/** Colour ramps per metric: [value, colour] stops; score is "higher is better". */
export const METRICS = {
  carbon: { label: 'Carbon footprint', unit: 'gCO₂eq/kWh', digits: 0,
    stops: [[0, '#2a9d5c'], [100, '#8cc63f'], [250, '#f2d43d'], [400, '#f39c34'], [600, '#d9442b'], [800, '#7b1e3a']] },
  water: { label: 'Water footprint', unit: 'l/kWh', digits: 2,
    stops: [[0, '#e3f4fb'], [2, '#9fd4ec'], [5, '#4fa9d8'], [10, '#2473b5'], [20, '#173f8a'], [30, '#1a1450']] },
  impact: { label: 'Water impact', unit: 'stress-l/kWh', digits: 2,
    stops: [[0, '#f4f1e1'], [0.5, '#e9d58a'], [1, '#d9a441'], [2.5, '#b86a2b'], [5, '#8a3b22'], [15, '#4a1c17']] },
  score: { label: 'Green score', unit: '0–100, higher is better', digits: 0,
    stops: [[30, '#b2182b'], [50, '#ef8a62'], [65, '#f7e07a'], [80, '#91cf60'], [100, '#1a9850']] },
};

const cssVar = (n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim();

function centroid(geom) {
  // Area-weighted centroid of the largest polygon (lon/lat plane; good enough for label anchors).
  const polys = geom.type === 'Polygon' ? [geom.coordinates] : geom.coordinates;
  let best = null;
  for (const p of polys) {
    const ring = p[0];
    let a = 0, cx = 0, cy = 0;
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const f = ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
      a += f; cx += (ring[j][0] + ring[i][0]) * f; cy += (ring[j][1] + ring[i][1]) * f;
    }
    if (a !== 0 && (!best || Math.abs(a) > best.a)) best = { a: Math.abs(a), c: [cx / (3 * a), cy / (3 * a)] };
  }
  return best?.c ?? [0, 0];
}

/** The vertices of a zone's polygons (all rings). */
function vertices(geom) {
  const polys = geom.type === 'Polygon' ? [geom.coordinates] : geom.coordinates;
  return polys.flat(1).flat(1);
}

/** Where the arrow of a flow from `va` to `vb` (their vertices) goes: the middle of the border the
 * two polygons share (their common vertices; the served polygons are rounded, so shared borders
 * share vertices); with no shared border (a sea cable), on the receiving zone's coast where it is
 * closest to the sending zone, not in the middle of the sea. */
function borderPoint(va, vb) {
  const keys = new Set(va.map(([x, y]) => `${x},${y}`));
  const shared = vb.filter(([x, y]) => keys.has(`${x},${y}`));
  if (shared.length) {
    const mx = shared.reduce((n, p) => n + p[0], 0) / shared.length, my = shared.reduce((n, p) => n + p[1], 0) / shared.length;
    let best = shared[0], d = Infinity;
    for (const p of shared) { const e = (p[0] - mx) ** 2 + (p[1] - my) ** 2; if (e < d) { d = e; best = p; } }
    return best;
  }
  let best = null, d = Infinity;
  for (const a of va) for (const b of vb) {
    const e = (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2;
    if (e < d) { d = e; best = b; }
  }
  return best;
}

/** Upper bounds (MW) of the arrow width classes 0…6; class 7 is above the last. */
const FLOW_CLASSES = [100, 250, 500, 1000, 2000, 3500, 6000];

/** Tiling of the zone polygons: one tile for the whole world (zoom 0, overscaled beyond), so the
 * map's worker cuts one tile and the first view is drawn in one frame once it is back (9 tiles at
 * the default tiling, each arriving with its own frame: 100–300 ms apiece in software rendering).
 * Vertices snap to 1/8192 of the world: under 1 px at the first view, ≤ 4 px at the maximum zoom,
 * finer than the reference polygons' own detail; a low simplification tolerance keeps their shape. */
const TILING = { maxzoom: 0, tolerance: 0.05 };

const mercY = (lat) => Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));

/** Draws one flow arrow on a 2D context: a white arrow with a dark outline, pointing along
 * `bearing` (degrees clockwise from north), `size` px long. */
function drawArrow(g, x, y, bearing, size) {
  const k = size / 40;
  g.setTransform(k, 0, 0, k, x, y);
  g.rotate((bearing * Math.PI) / 180);
  g.translate(-20, -20);
  g.beginPath();
  g.moveTo(20, 4); g.lineTo(31, 20); g.lineTo(25, 20); g.lineTo(25, 35);
  g.lineTo(15, 35); g.lineTo(15, 20); g.lineTo(9, 20); g.closePath();
  g.stroke(); g.fill();
}

/** Arrow length (CSS px) of width class `cls` at `zoom`: square-root-ish in MW so that small flows
 * stay visible, smaller when zoomed out. */
function arrowSize(cls, zoom) {
  const lerp = (stops, x) => {
    for (let i = 1; i < stops.length; i++) {
      if (x <= stops[i][0]) return stops[i - 1][1] + ((x - stops[i - 1][0]) / (stops[i][0] - stops[i - 1][0])) * (stops[i][1] - stops[i - 1][1]);
    }
    return stops[stops.length - 1][1];
  };
  const out = lerp([[0, 0.3], [3, 0.5], [5, 0.75], [7, 1.05]], cls), close = lerp([[0, 0.5], [3, 0.8], [5, 1.15], [7, 1.65]], cls);
  const t = Math.max(0, Math.min(1, (zoom - 2) / 2));
  return 20 * (out + t * (close - out));
}

export class ZoneMap {
  /** The map with everything of the first view in its initial style: the zone polygons and their
   * layers with their final paint, so that the map's worker cuts them once and the first tiles are
   * drawn finished (in software rendering every extra frame costs 100–300 ms); colours come through
   * feature state once `ready`. The day's flow arrows (flows: [{slot, from, to, mw}]) are drawn
   * over the map. */
  constructor(el, { geojson, codes, flows, metric, legendEl }, handlers) {
    this.codes = new Set(codes);
    this.centroids = new Map();
    this.vertices = new Map();
    this.borders = new Map();
    for (const f of geojson.features) {
      this.centroids.set(f.properties.zoneName, centroid(f.geometry));
      this.vertices.set(f.properties.zoneName, vertices(f.geometry));
    }
    this.withData = new Set();
    this.legendEl = legendEl;
    this.hovered = null;
    this.metric = metric;
    this.nodata = cssVar('--nodata');
    this.flowFeatures(flows);
    this.flowsVisible = true;
    this.slot = 0;
    this.map = new maplibregl.Map({
      container: el,
      style: {
        version: 8,
        // No paint transitions: each would repaint the map for 300 ms.
        transition: { duration: 0, delay: 0 },
        sources: { zones: { type: 'geojson', data: geojson, promoteId: 'zoneName', ...TILING } },
        layers: [
          { id: 'bg', type: 'background', paint: { 'background-color': cssVar('--sea') || '#dfe7ef' } },
          // No antialiasing pass of the fills: the border lines are drawn over their edges.
          { id: 'zones-fill', type: 'fill', source: 'zones', paint: { 'fill-color': this.fillColour(), 'fill-antialias': false } },
          { id: 'zones-line', type: 'line', source: 'zones', paint: { 'line-color': cssVar('--border-line') || '#fff', 'line-width': 0.6 } },
          { id: 'zones-hover', type: 'line', source: 'zones', paint: {
            'line-color': cssVar('--fg') || '#000', 'line-width': ['case', ['boolean', ['feature-state', 'hover'], false], 2.5, 0],
          } },
        ],
      },
      bounds: [[-12, 34], [46, 71]],
      fitBoundsOptions: { padding: 12 },
      attributionControl: false,
      // No symbol fade-in: every fading frame is a full repaint.
      fadeDuration: 0,
      dragRotate: false,
      pitchWithRotate: false,
      renderWorldCopies: false,
      maxZoom: 7,
      // Tests read the drawn pixels back (window.__gridprintTest is set before the page's scripts).
      canvasContextAttributes: { preserveDrawingBuffer: !!window.__gridprintTest },
      minZoom: 1.5,
    });
    // The flow arrows: drawn on a 2D canvas over the map at each of its frames (a few dozen paths),
    // rather than as a symbol layer, which costs a worker pass, icon placement and an extra frame.
    this.arrows = document.createElement('canvas');
    this.arrows.className = 'flow-arrows';
    this.arrows.setAttribute('aria-hidden', 'true');
    this.map.getCanvasContainer().append(this.arrows);
    this.map.on('render', () => this.drawArrows());
    this.map.on('resize', () => this.drawArrows());
    this.map.on('zoomend', () => this.drawFlowLegend());
    this.map.touchZoomRotate.disableRotation();
    this.map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'bottom-left');
    this.loaded = false;
    // Ready as soon as the style is in (its sources exist, their tiles are not cut yet): colours set
    // through feature state now are in the first frame that shows the zones.
    this.ready = new Promise((resolve) => this.map.once('style.load', () => {
      this.loaded = true;
      this.applyTheme();
      resolve();
    }));
    const tip = handlers.onHover;
    this.map.on('mousemove', 'zones-fill', (e) => {
      const id = e.features?.[0]?.properties?.zoneName;
      this.hover(id);
      this.map.getCanvas().style.cursor = this.codes.has(id) ? 'pointer' : '';
      tip(id, e.point);
    });
    this.map.on('mouseleave', 'zones-fill', () => { this.hover(null); this.map.getCanvas().style.cursor = ''; tip(null); });
    this.map.on('click', 'zones-fill', (e) => {
      const id = e.features?.[0]?.properties?.zoneName;
      if (this.codes.has(id)) handlers.onClick(id);
    });
  }

  /** Fits Europe beside the zone panel (when open and the window is wide) or in the whole map. */
  frame(panelOpen) {
    const wide = this.map.getContainer().clientWidth > 820;
    const right = panelOpen && wide ? Math.min(470, this.map.getContainer().clientWidth / 2) : 12;
    this.map.fitBounds([[-12, 34], [46, 71]], { padding: { top: 12, bottom: 12, left: 12, right }, duration: 0 });
  }

  hover(id) {
    if (this.hovered === id) return;
    if (this.hovered) this.map.setFeatureState({ source: 'zones', id: this.hovered }, { hover: false });
    this.hovered = id;
    if (id) this.map.setFeatureState({ source: 'zones', id }, { hover: true });
  }

  /** Screen position of a zone's centroid (for keyboard tooltips). */
  point(id) { const c = this.centroids.get(id); return c ? this.map.project(c) : null; }

  applyTheme() {
    this.nodata = cssVar('--nodata');
    if (!this.loaded) return;
    this.map.setPaintProperty('bg', 'background-color', cssVar('--sea'));
    this.map.setPaintProperty('zones-line', 'line-color', cssVar('--border-line'));
    this.map.setPaintProperty('zones-hover', 'line-color', cssVar('--fg'));
    this.setMetric(this.metric);
  }

  /** The fill colour expression of the current metric (the value in feature state `v`, −1: none). */
  fillColour() {
    return ['case', ['<', ['coalesce', ['feature-state', 'v'], -1], 0], this.nodata || '#9aa3ad',
      ['interpolate', ['linear'], ['feature-state', 'v'], ...METRICS[this.metric].stops.flat()]];
  }

  setMetric(metric) {
    this.metric = metric;
    if (this.loaded) this.map.setPaintProperty('zones-fill', 'fill-color', this.fillColour());
  }

  /** values: Map zone → number (NaN: no data). */
  setValues(values) {
    for (const id of this.centroids.keys()) {
      const v = values.get(id);
      this.map.setFeatureState({ source: 'zones', id }, { v: v === undefined || Number.isNaN(v) ? -1 : v });
    }
  }

  /** The day's net flows as arrows, every slot at once: one arrow per border, direction and width
   * class; `flowSlots[slot]` lists the arrows shown at a slot. */
  flowFeatures(flows) {
    const items = [], ids = new Map();
    this.flowSlots = Array.from({ length: 96 }, () => []);
    for (const f of flows) {
      const a = this.centroids.get(f.from), b = this.centroids.get(f.to);
      if (!a || !b) continue;
      const cls = FLOW_CLASSES.findIndex((c) => f.mw < c) === -1 ? FLOW_CLASSES.length : FLOW_CLASSES.findIndex((c) => f.mw < c);
      const key = `${f.from}|${f.to}|${cls}`;
      if (!ids.has(key)) {
        const dx = (b[0] - a[0]) * Math.PI / 180, dy = mercY(b[1]) - mercY(a[1]);
        const pair = `${f.from}|${f.to}`;
        if (!this.borders.has(pair)) this.borders.set(pair, borderPoint(this.vertices.get(f.from), this.vertices.get(f.to)));
        ids.set(key, items.length);
        items.push({ cls, mw: f.mw, bearing: (Math.atan2(dx, dy) * 180) / Math.PI, from: f.from, to: f.to, at: this.borders.get(pair) ?? [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] });
      }
      this.flowSlots[f.slot].push(ids.get(key));
    }
    this.flowItems = items;
  }

  /** Another day's net flows. */
  setFlowsDay(flows) {
    this.flowFeatures(flows);
    this.drawArrows();
  }

  /** The slot shown, whether arrows are on, and the zones with data at the slot (withData: a Set):
   * an arrow is drawn only when both its zones have data. */
  setFlowSlot(slot, visible, withData) {
    this.slot = slot;
    this.withData = withData;
    if (this.flowsVisible !== visible) { this.flowsVisible = visible; this.drawFlowLegend(); }
    this.drawArrows();
  }

  /** The legend of the arrow sizes at the current zoom (hidden while the flows are off). */
  drawFlowLegend() {
    const el = this.legendEl?.querySelector('[data-flow-legend]');
    if (el) renderFlowLegend(el, this.map.getZoom(), this.flowsVisible);
  }

  /** The arrows of the current slot, where the map shows their borders now. */
  drawArrows() {
    const c = this.arrows, m = this.map.getCanvas(), ratio = window.devicePixelRatio || 1;
    const w = m.clientWidth, h = m.clientHeight;
    // Drawn again only when the slot, the arrows or the view changed (not at every map frame).
    const { lng, lat } = this.map.getCenter();
    const key = [this.flowItems, this.slot, this.flowsVisible, this.withData, lng, lat, this.map.getZoom(), w, h, ratio];
    if (this.drawnKey?.every((v, i) => v === key[i])) return;
    this.drawnKey = key;
    if (c.width !== Math.round(w * ratio) || c.height !== Math.round(h * ratio)) {
      c.width = Math.round(w * ratio); c.height = Math.round(h * ratio);
      c.style.width = `${w}px`; c.style.height = `${h}px`;
    }
    const g = c.getContext('2d');
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, c.width, c.height);
    this.arrowsDrawn = 0;
    this.arrowsList = [];
    if (!this.flowsVisible || !this.flowItems) return;
    const zoom = this.map.getZoom();
    g.lineJoin = 'round'; g.lineWidth = 3.5; g.strokeStyle = 'rgba(20, 28, 38, 0.9)'; g.fillStyle = 'rgba(255, 255, 255, 0.95)';
    for (const i of this.flowSlots[this.slot] ?? []) {
      const f = this.flowItems[i];
      if (!this.withData.has(f.from) || !this.withData.has(f.to)) continue;
      const p = this.map.project(f.at);
      if (p.x < -20 || p.y < -20 || p.x > w + 20 || p.y > h + 20) continue;
      drawArrow(g, p.x * ratio, p.y * ratio, f.bearing, arrowSize(f.cls, zoom) * ratio);
      this.arrowsDrawn += 1;
      this.arrowsList.push({ from: f.from, to: f.to, at: f.at });
    }
  }

  /** Waits until the GL drawing issued so far is carried out (reads one pixel back; measurements). */
  finishDrawing() {
    const c = this.map.getCanvas(), gl = c.getContext('webgl2') ?? c.getContext('webgl');
    gl?.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  }

  /** Resolves when the map has drawn everything asked so far. */
  idle() { return new Promise((r) => (this.map.loaded() && !this.map.isMoving() ? this.map.once('idle', r) && this.map.triggerRepaint() : this.map.once('idle', r))); }
}

/** Legend: gradient bar with ticks and units. */
export function renderLegend(el, metric) {
  const m = METRICS[metric];
  const lo = m.stops[0][0], hi = m.stops[m.stops.length - 1][0];
  const grad = m.stops.map(([v, c]) => `${c} ${(((v - lo) / (hi - lo)) * 100).toFixed(1)}%`).join(', ');
  el.innerHTML = `<div class="lg-title">${m.label} <span class="muted">(${m.unit})</span></div>
    <div class="lg-bar" data-grad></div>
    <div class="lg-ticks">${m.stops.map(([v]) => `<span>${v}</span>`).join('')}</div>
    <div class="lg-nodata"><i></i> No data</div>
    <div class="lg-flows" data-flow-legend></div>`;
  el.querySelector('[data-grad]').style.background = `linear-gradient(to right, ${grad})`;
}

/** Arrow sizes of the legend: width class and its range of net flow. */
const FLOW_LEGEND = [[0, '< 100 MW'], [3, '0.5–1 GW'], [5, '2–3.5 GW'], [7, '≥ 6 GW']];

/** The arrow sizes as drawn on the map at `zoom`, each with its range of net flow. */
export function renderFlowLegend(el, zoom, visible) {
  el.hidden = !visible;
  if (!visible) return;
  const ratio = window.devicePixelRatio || 1;
  el.innerHTML = `<div class="lg-sub">Net cross-border flow, arrow on the border</div><div class="lg-arrows"></div>`;
  const row = el.querySelector('.lg-arrows');
  for (const [cls, label] of FLOW_LEGEND) {
    const size = arrowSize(cls, zoom), box = Math.ceil(size + 3);
    const c = document.createElement('canvas');
    c.width = Math.round(box * ratio); c.height = Math.round(box * ratio);
    c.style.width = `${box}px`; c.style.height = `${box}px`;
    const g = c.getContext('2d');
    g.lineJoin = 'round'; g.lineWidth = 3.5; g.strokeStyle = 'rgba(20, 28, 38, 0.9)'; g.fillStyle = 'rgba(255, 255, 255, 0.95)';
    drawArrow(g, (box / 2) * ratio, (box / 2) * ratio, 90, size * ratio);
    const item = document.createElement('span');
    item.className = 'lg-arrow';
    item.append(c, label);
    row.append(item);
  }
}

/** The colour of a value (for swatches in lists), same ramp as the map. */
export function colourOf(metric, v) {
  const s = METRICS[metric].stops;
  if (Number.isNaN(v) || v === undefined) return null;
  if (v <= s[0][0]) return s[0][1];
  for (let i = 1; i < s.length; i++) {
    if (v <= s[i][0]) {
      const t = (v - s[i - 1][0]) / (s[i][0] - s[i - 1][0]);
      const a = hex(s[i - 1][1]), b = hex(s[i][1]);
      return `rgb(${a.map((x, k) => Math.round(x + (b[k] - x) * t)).join(',')})`;
    }
  }
  return s[s.length - 1][1];
}
const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
