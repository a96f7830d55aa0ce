// Data access of the dashboard: the public dashboard routes, or /v1 with a token (login mode).
// Both give the same verbatim /v1 answers; this module turns them into per-slot arrays.

export const SLOT_MS = 15 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

const mode = document.querySelector('meta[name="gridprint-dashboard"]')?.content ?? 'public';
export const loginMode = mode === 'login';

let token = sessionStorage.getItem('gridprint-token');
export const hasToken = () => !!token;
export function setToken(t) { token = t; if (t) sessionStorage.setItem('gridprint-token', t); else sessionStorage.removeItem('gridprint-token'); }

export class HttpError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

async function getJson(url, opts = {}) {
  const r = await fetch(url, opts);
  if (!r.ok) {
    let detail = `${r.status} ${r.statusText}`;
    try { const b = await r.json(); if (typeof b.detail === 'string') detail = b.detail; } catch { /* not JSON */ }
    if (r.status === 401 && loginMode) setToken(null);
    throw new HttpError(r.status, detail);
  }
  return r.json();
}

/** Signs in through the token service (login mode). */
export async function signIn(email, password) {
  const r = await getJson('/token-request/get_token', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  setToken(r.access_token);
}

export const dayStart = (date) => Date.parse(`${date}T00:00:00Z`);
export const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

function v1Url(part, zone, date, format) {
  const t0 = dayStart(date);
  const q = new URLSearchParams(part.params);
  q.set('zone', zone);
  q.set('start', iso(t0 - part.days_before * DAY_MS));
  q.set('end', iso(t0 + part.days_after * DAY_MS));
  if (format) q.set('format', format);
  return `/v1/${part.path}?${q}`;
}

async function viaV1(parts, zone, date) {
  const headers = { Authorization: `Bearer ${token}` };
  const answers = await Promise.all(parts.map((p) => getJson(v1Url(p, zone, date), { headers })));
  return { date, zone, parts: Object.fromEntries(parts.map((p, i) => [p.name, answers[i]])) };
}

// The page names these in <link rel=preload> tags (the day it opens on included), so the first
// calls take answers the browser has been fetching since it read the page.
export const loadMeta = () => getJson('/dashboard/api/meta');
export const loadGeojson = () => getJson('/dashboard/zones.geojson');

export async function loadDay(meta, date) {
  if (loginMode) return viaV1(meta.day_parts, '', date);
  return getJson(`/dashboard/api/day?date=${date}`);
}

export function loadZone(meta, zone, date) {
  if (loginMode) return viaV1(meta.zone_parts, zone, date);
  return getJson(`/dashboard/api/zone?${new URLSearchParams({ zone, date })}`);
}

/** The CSV of one zone part: a URL to download (public) or a blob URL (login). */
export async function csvHref(meta, zone, date, partName) {
  if (!loginMode) return `/dashboard/api/csv?${new URLSearchParams({ zone, date, part: partName })}`;
  const part = meta.zone_parts.find((p) => p.name === partName);
  const r = await fetch(v1Url(part, zone, date, 'csv'), { headers: { Authorization: `Bearer ${token}` } });
  if (!r.ok) throw new HttpError(r.status, 'CSV download refused');
  return URL.createObjectURL(await r.blob());
}

/** What a slot's value rests on, in plain words: the API's `zone_status` of the slot (and whether it
 * has a value at all) read as one of four kinds, each with a one-line explanation for hover. The
 * dashboard names these kinds only, never the raw flags; they follow whatever flags the API gives. */
export const KINDS = {
  provider: { label: 'Provider data', title: 'Computed from the figures the grid operators published for this quarter-hour.' },
  estimated: { label: 'Estimated', title: 'Some inputs (generation, load or a border flow) were not published and were estimated by gridprint.' },
  forecast: { label: 'Forecast', title: 'No published figures for this quarter-hour (yet): the value comes from gridprint\'s forecast.' },
  none: { label: 'No data', title: 'Nothing is known for this zone at this quarter-hour.' },
};

/** The kind of slot `i` of a series (see [`KINDS`]): by its zone_status; a value with a status this
 * page does not know is counted as estimated (never as provider data). */
export function kindOf(s, i) {
  if (!s || Number.isNaN(s.v[i])) return 'none';
  const st = s.status[i];
  return st === 'complete' ? 'provider' : st === 'missing' ? 'forecast' : 'estimated';
}

/** Whether a slot's value is final (the API's `valid`), in plain words with a hover explanation. */
export function finality(s, i) {
  if (!s || Number.isNaN(s.v[i]) || s.valid[i] == null) return null;
  return s.valid[i]
    ? { label: 'Final', title: 'This value is settled: it will not be recomputed.' }
    : { label: 'May still change', title: 'Recomputed as more figures are published; the value can still move.' };
}

/** The kind most zones of a grid (zone → series) have at slot `i` (ties: the less certain kind),
 * with the count per kind: the label of a slot as a whole, from its data alone. */
export function slotKind(grid, i) {
  const counts = { provider: 0, estimated: 0, forecast: 0 };
  for (const s of grid?.values() ?? []) { const k = kindOf(s, i); if (k !== 'none') counts[k] += 1; }
  let kind = 'none', n = 0;
  for (const k of ['provider', 'estimated', 'forecast']) if (counts[k] > 0 && counts[k] >= n) { kind = k; n = counts[k]; }
  return { kind, counts };
}

/** One per-slot series over [t0, t0 + n slots): values (NaN = none), zone_status, valid. */
export function emptySeries(n) {
  return { v: new Float64Array(n).fill(NaN), status: new Array(n).fill(null), valid: new Array(n).fill(null) };
}

/** Reads the `series` of one /v1 result into `s` (values from `pick(entry)`). */
export function fillSeries(s, t0, series, pick = (e) => e.values) {
  const n = s.v.length;
  for (const e of series) {
    for (const [t, v] of pick(e) ?? []) {
      const i = Math.round((Date.parse(t) - t0) / SLOT_MS);
      if (i < 0 || i >= n) continue;
      s.v[i] = v; s.status[i] = e.zone_status; s.valid[i] = e.valid;
    }
  }
  return s;
}

/** Day answers → metric key → zone → series of 96 slots. */
export function dayGrids(bundle) {
  const t0 = dayStart(bundle.date);
  const grids = new Map();
  const put = (key, zone, series) => {
    if (!grids.has(key)) grids.set(key, new Map());
    grids.get(key).set(zone, fillSeries(emptySeries(96), t0, series));
  };
  for (const [name, answer] of Object.entries(bundle.parts)) {
    const [kind, coverage, scope] = name.split(':');
    if (kind === 'footprints') for (const r of answer) put(`${r.footprint_type}:${coverage}:${scope}`, r.zone, r.series);
    else if (kind === 'impacts') for (const r of answer) put(`impact:${coverage}`, r.zone, r.series);
    else if (kind === 'score') for (const r of answer) put(`score:${coverage}`, r.zone, r.series);
  }
  return { t0, grids, flows: flowsOf(bundle.parts.imports ?? [], t0, 96) };
}

/** Imports answers → list of {to, from, mw: Float64Array(n)}. */
export function flowsOf(imports, t0, n) {
  const out = [];
  for (const r of imports) {
    const bySource = new Map();
    for (const e of r.series) for (const b of e.imports) {
      if (!bySource.has(b.source)) bySource.set(b.source, emptySeries(n));
      fillSeries(bySource.get(b.source), t0, [{ ...e, values: b.values }]);
    }
    for (const [from, s] of bySource) out.push({ to: r.zone, from, mw: s.v });
  }
  return out;
}

/** Lowest-average window of `len` consecutive slots among `v` (NaN excluded) starting at index ≥ from. */
export function bestWindow(v, len, from = 0) {
  let best = null;
  for (let i = Math.max(0, from); i + len <= v.length; i++) {
    let sum = 0, ok = true;
    for (let j = i; j < i + len; j++) { if (Number.isNaN(v[j])) { ok = false; break; } sum += v[j]; }
    if (ok && (best === null || sum / len < best.mean)) best = { start: i, mean: sum / len };
  }
  return best;
}
