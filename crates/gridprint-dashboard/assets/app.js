// The dashboard: state (kept in the URL), controls, the map and the zone panel.
import * as data from './data.js';
import { ZoneMap, METRICS, renderLegend, colourOf } from './map.js';

const $ = (s) => document.querySelector(s);
// Measurements read by the browser test: navigation → painted map, and per slider step, from the
// input event (its timeStamp: queueing before the handler included) to the first frame drawn with
// the new slot (frameTimes), until the map is idle (stepTimes) and, under the browser test, until
// the drawing is in the canvas's pixels (pixelTimes: MapLibre's events come when the drawing is
// issued; with software WebGL it is carried out later, and that is what a person waits for).
// marks: milestones of the first visit (ms from navigation), printed by tests/browser/paint.mjs.
const perf = (window.__gridprint = { stepTimes: [], frameTimes: [], pixelTimes: [], painted: null, errors: [], marks: {} });
const milestone = (k) => { perf.marks[k] = performance.now(); };
milestone('app-start');

const state = { date: null, slot: 0, metric: 'carbon', coverage: 'global', scope: 'life-cycle', flows: true, zone: null, theme: 'auto' };
let meta = null, day = null, zmap = null, panel = null, zoneNames = new Map(), playing = null;

function readUrl() {
  const q = new URLSearchParams(location.search);
  if (/^\d{4}-\d{2}-\d{2}$/.test(q.get('date') ?? '')) state.date = q.get('date');
  const s = Number(q.get('slot'));
  if (Number.isInteger(s) && s >= 0 && s < 96 && q.has('slot')) state.slot = s;
  if (METRICS[q.get('metric')]) state.metric = q.get('metric');
  if (['global', 'local'].includes(q.get('coverage'))) state.coverage = q.get('coverage');
  if (['life-cycle', 'operational'].includes(q.get('scope'))) state.scope = q.get('scope');
  if (q.has('flows')) state.flows = q.get('flows') !== '0';
  if (q.get('zone')) state.zone = q.get('zone').toUpperCase();
  if (['auto', 'light', 'dark', 'contrast'].includes(q.get('theme'))) state.theme = q.get('theme');
  return q.has('date');
}

function writeUrl() {
  const q = new URLSearchParams({ date: state.date, slot: state.slot, metric: state.metric, coverage: state.coverage, scope: state.scope });
  if (!state.flows) q.set('flows', '0');
  if (state.zone) q.set('zone', state.zone);
  if (state.theme !== 'auto') q.set('theme', state.theme);
  history.replaceState(null, '', `?${q}`);
}

/** The grid key of the current metric (impact and score are operational only). */
export function metricKey(s = state) {
  if (s.metric === 'impact') return `impact:${s.coverage}`;
  if (s.metric === 'score') return `score:${s.coverage}`;
  return `${s.metric}:${s.coverage}:${s.scope}`;
}

const slotTime = (i) => data.dayStart(state.date) + i * data.SLOT_MS;
const hhmm = (ms) => new Date(ms).toISOString().slice(11, 16);
const nowMs = () => Date.parse(meta.now) + (performance.now() - meta.loadedAt);
const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
/** A badge naming a kind of data (data.KINDS) with its explanation on hover. */
const kindBadge = (kind, extra = '') => `<span class="badge k-${kind}" data-kind="${kind}" title="${esc(data.KINDS[kind].title + extra)}">${data.KINDS[kind].label}</span>`;
/** The current slot's kind as a whole, from the data of the metric shown. */
function slotSummary(i) {
  const { kind, counts } = data.slotKind(day?.grids.get(metricKey()), i);
  const parts = ['provider', 'estimated', 'forecast'].filter((k) => counts[k]).map((k) => `${counts[k]} ${data.KINDS[k].label.toLowerCase()}`);
  return { kind, detail: parts.length ? ` Zones at this time: ${parts.join(', ')}.` : '' };
}

function setStatus(msg, kind = '') { const el = $('#status'); el.textContent = msg; el.className = `status ${kind}`; el.hidden = !msg; }

function applyTheme() {
  const t = state.theme === 'auto' ? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light') : state.theme;
  document.documentElement.dataset.theme = t;
  zmap?.applyTheme();
}

function fmt(v, metric = state.metric) {
  if (v === undefined || Number.isNaN(v)) return '–';
  return v.toLocaleString('en-GB', { maximumFractionDigits: METRICS[metric].digits, minimumFractionDigits: METRICS[metric].digits });
}

/** Colours the map, flows, list, labels for the current slot. */
function paint() {
  const grid = day?.grids.get(metricKey()) ?? new Map();
  const values = new Map();
  for (const [z, s] of grid) values.set(z, s.v[state.slot]);
  zmap.setValues(values);
  // Arrows only between zones that both have a value at this slot.
  zmap.setFlowSlot(state.slot, state.flows, new Set([...values].filter(([, v]) => !Number.isNaN(v)).map(([z]) => z)));
  const t = slotTime(state.slot);
  const { kind, detail } = slotSummary(state.slot);
  $('#slot-label').innerHTML = `${new Date(t).toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })} · <b>${hhmm(t)}</b> ${kindBadge(kind, detail)}`;
  $('#slider').setAttribute('aria-valuetext', `${state.date} ${hhmm(t)} UTC, ${data.KINDS[kind].label.toLowerCase()}`);
  renderRank(values);
  panel?.setSlot(state.slot);
  refreshTooltip();
}

/** Net flow per border pair and slot: [{slot, from, to, mw}] with mw ≥ 1 MW, from → to. */
function netFlows(flows) {
  const out = [];
  for (let slot = 0; slot < 96; slot++) {
    const net = new Map();
    for (const f of flows) {
      const mw = f.mw[slot];
      if (Number.isNaN(mw)) continue;
      const [a, b] = [f.from, f.to].sort();
      const k = `${a}|${b}`;
      net.set(k, (net.get(k) ?? 0) + (f.from === a ? mw : -mw));
    }
    for (const [k, mw] of net) {
      const [a, b] = k.split('|');
      if (Math.abs(mw) >= 1) out.push(mw > 0 ? { slot, from: a, to: b, mw } : { slot, from: b, to: a, mw: -mw });
    }
  }
  return out;
}

function renderRank(values) {
  const withData = [...values].filter(([, v]) => !Number.isNaN(v));
  const better = state.metric === 'score' ? -1 : 1;
  withData.sort((a, b) => better * (a[1] - b[1]));
  $('#rank-sub').textContent = `${withData.length} of ${zoneNames.size} with data · ${state.metric === 'score' ? 'best' : 'lowest'} first`;
  const ol = $('#rank');
  ol.replaceChildren(...withData.map(([z, v]) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button'; b.dataset.zone = z;
    b.innerHTML = `<i class="sw"></i><span class="z">${z}</span><span class="n">${zoneNames.get(z) ?? ''}</span><span class="v">${fmt(v)}</span>`;
    b.querySelector('.sw').style.background = colourOf(state.metric, v);
    li.append(b); return li;
  }));
}

let tipZone = null, tipPoint = null;
function showTooltip(zone, point) { tipZone = zone; tipPoint = point; refreshTooltip(); }
function refreshTooltip() {
  const el = $('#tooltip');
  if (!tipZone || !day || !zoneNames.has(tipZone)) { el.hidden = true; return; }
  const s = day.grids.get(metricKey())?.get(tipZone);
  const i = state.slot, m = METRICS[state.metric];
  const v = s?.v[i];
  const none = v === undefined || Number.isNaN(v);
  const kind = data.kindOf(s, i), fin = data.finality(s, i);
  // The map's tooltip cannot itself be hovered: the explanation is written out.
  el.innerHTML = `<div class="tt-name">${zoneNames.get(tipZone)} <span class="muted">${tipZone}</span></div>
    <div class="tt-val"><b data-value>${none ? '–' : v}</b> ${none ? '' : m.unit}</div>
    <div class="tt-flags">${kindBadge(kind)}${fin ? ` · <span data-final title="${esc(fin.title)}">${fin.label}</span>` : ''}</div>
    <div class="tt-why muted">${data.KINDS[kind].title}</div>`;
  el.hidden = false;
  const r = $('#map').getBoundingClientRect();
  // Kept clear of the zone panel where it lies over the map's right side.
  const p = $('#panel'), beside = !p.hidden && p.offsetLeft > r.width / 3;
  const right = beside ? p.offsetLeft : r.width;
  const x = Math.min(tipPoint.x + 14, right - el.offsetWidth - 8), y = Math.min(tipPoint.y + 14, r.height - el.offsetHeight - 8);
  el.style.transform = `translate(${Math.max(4, x)}px, ${Math.max(4, y)}px)`;
}

function drawStrip() {
  const strip = $('#strip');
  const cells = [];
  const grid = day?.grids.get(metricKey());
  for (let i = 0; i < 96; i++) {
    const c = document.createElement('i');
    c.className = `k-${data.slotKind(grid, i).kind}`;
    cells.push(c);
  }
  const n = nowMs(), t0 = data.dayStart(state.date);
  if (n >= t0 && n < t0 + data.DAY_MS) {
    const mark = document.createElement('b');
    mark.className = 'now'; mark.style.left = `${((n - t0) / data.DAY_MS) * 100}%`; mark.title = 'now';
    cells.push(mark);
  }
  strip.replaceChildren(...cells);
}

/** The day's answers as per-slot grids ({day}), or the error ({error}). */
async function fetchDay() {
  try {
    return { day: data.dayGrids(await data.loadDay(meta, state.date)) };
  } catch (error) {
    return { error };
  }
}

/** Shows a fetched day (flowsSent: its flows are already on the map). */
function showDay({ day: d, error }, flowsSent = false) {
  day = d ?? null;
  if (!flowsSent) zmap.setFlowsDay(day ? netFlows(day.flows) : []);
  setStatus('');
  if (error) {
    setStatus(error.status === 429 ? 'Too many requests from your address; wait a few seconds.' : `Could not load ${state.date}: ${error.message}`, 'error');
    if (error.status === 401 && data.loginMode) showLogin();
  } else if (!(day.grids.get(metricKey())?.size)) setStatus(`No data for ${state.date}.`, 'warn');
  drawStrip();
  paint();
  if (state.zone) openZone(state.zone);
}

async function loadDay() {
  setStatus('Loading…');
  showDay(await fetchDay());
}

function setSlot(i, how = 'set', since = performance.now()) {
  state.slot = Math.max(0, Math.min(95, i));
  $('#slider').value = state.slot;
  const t0 = since;
  paint();
  writeUrl();
  if (how === 'step') zmap.map.once('render', () => perf.frameTimes.push(performance.now() - t0));
  zmap.idle().then(() => {
    if (how !== 'step') return;
    perf.stepTimes.push(performance.now() - t0);
    if (window.__gridprintTest) { zmap.finishDrawing(); perf.pixelTimes.push(performance.now() - t0); }
  });
}

// Goes to day `d`; with `slot`, to that quarter-hour of it, so that the address never names the
// new day with the old day's slot.
async function setDate(d, slot) {
  if (d && d !== state.date) {
    state.date = d; $('#date').value = d;
    if (slot !== undefined) { state.slot = Math.max(0, Math.min(95, slot)); $('#slider').value = state.slot; }
    writeUrl();
    await loadDay();
  }
  if (slot !== undefined) setSlot(slot);
}

const shiftDate = (d, n) => new Date(data.dayStart(d) + n * data.DAY_MS).toISOString().slice(0, 10);

function togglePlay(on = !playing) {
  clearInterval(playing); playing = null;
  if (on) playing = setInterval(() => setSlot(state.slot >= 95 ? 0 : state.slot + 1, 'step'), 400);
  $('#play').setAttribute('aria-pressed', String(!!playing));
  $('#play').innerHTML = playing
    ? '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z"/></svg> Pause'
    : '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 2v12l11-6z"/></svg> Play';
}

function syncControls() {
  for (const n of ['metric', 'coverage', 'scope']) document.querySelector(`input[name=${n}][value="${state[n]}"]`).checked = true;
  const opOnly = state.metric === 'impact' || state.metric === 'score';
  for (const r of document.querySelectorAll('input[name=scope]')) r.disabled = opOnly;
  $('#scope-set').title = opOnly ? 'Water impact and the score are operational by definition' : '';
  $('#flows').checked = state.flows;
  $('#theme').value = state.theme;
  renderLegend($('#legend'), state.metric);
  zmap?.drawFlowLegend();
}

function bind() {
  $('#slider').addEventListener('input', (e) => setSlot(Number(e.target.value), 'step', e.timeStamp));
  $('#step-back').onclick = (e) => setSlot(state.slot - 1, 'step', e.timeStamp);
  $('#step-fwd').onclick = (e) => setSlot(state.slot + 1, 'step', e.timeStamp);
  $('#play').onclick = () => togglePlay();
  $('#date').addEventListener('change', (e) => setDate(e.target.value));
  $('#prev-day').onclick = () => setDate(shiftDate(state.date, -1));
  $('#next-day').onclick = () => setDate(shiftDate(state.date, 1));
  // The best-covered slot before the recent days (on the demo its recorded 2017 day), one click away.
  const best = meta.earlier_slot;
  if (best) {
    $('#best-btn').hidden = false;
    $('#best-btn').textContent = `Earlier data: ${best.slice(0, 10)} ${best.slice(11, 16)}`;
    $('#best-btn').title = 'The best-covered quarter-hour before the recent days';
    $('#best-btn').onclick = async () => {
      const day = best.slice(0, 10);
      await setDate(day, Math.floor((Date.parse(best) - data.dayStart(day)) / data.SLOT_MS));
    };
  }
  $('#now-btn').onclick = async () => {
    const n = nowMs();
    const day = new Date(n).toISOString().slice(0, 10);
    await setDate(day, Math.floor((n - data.dayStart(day)) / data.SLOT_MS));
  };
  for (const n of ['metric', 'coverage', 'scope']) {
    for (const r of document.querySelectorAll(`input[name=${n}]`)) r.addEventListener('change', () => {
      state[n] = r.value; syncControls(); zmap.setMetric(state.metric); drawStrip(); paint(); writeUrl();
      panel?.setMetric(state);
    });
  }
  $('#flows').addEventListener('change', (e) => { state.flows = e.target.checked; paint(); writeUrl(); });
  $('#theme').addEventListener('change', (e) => { state.theme = e.target.value; applyTheme(); panel?.redraw(); writeUrl(); });
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', applyTheme);
  const rank = $('#rank');
  rank.addEventListener('click', (e) => { const z = e.target.closest('button')?.dataset.zone; if (z) openZone(z); });
  rank.addEventListener('focusin', (e) => {
    const z = e.target.closest('button')?.dataset.zone;
    if (z) { zmap.hover(z); showTooltip(z, zmap.point(z)); }
  });
  rank.addEventListener('focusout', () => { zmap.hover(null); showTooltip(null); });
  document.addEventListener('keydown', (e) => {
    if (e.target.matches('input, select, textarea')) return;
    if (e.key === ' ' && e.target === document.body) { e.preventDefault(); togglePlay(); }
    if (e.key === 'Escape' && state.zone) panel?.close();
  });
}

function openZone(z) {
  state.zone = z; writeUrl(); zmap.frame(true);
  zonePanel().then((p) => { if (state.zone === z) { p.open(z, state.date); refreshTooltip(); } });
}

/** The zone panel, loaded (with its chart library) the first time a zone is opened: a first visit
 * neither downloads nor runs it before the map is painted. */
let panelLoading = null;
function zonePanel() {
  panelLoading ??= import('./panel.js').then(({ ZonePanel }) => (panel = new ZonePanel($('#panel'), {
    meta, zoneNames, state, data, onClose: () => { state.zone = null; writeUrl(); zmap.frame(false); },
  })));
  return panelLoading;
}

function showLogin() {
  const f = $('#login');
  f.hidden = false;
  f.querySelector('input[name=email]').focus();
}

async function start() {
  readUrl();
  applyTheme();
  try {
    const [m, geojson] = await Promise.all([data.loadMeta(), data.loadGeojson()]);
    milestone('meta+geojson'); meta = m; meta.loadedAt = performance.now();
    for (const z of meta.zones) zoneNames.set(z.zone, z.full_name);
    // `serve --demo`: recorded provider data replayed as the recent days, said in plain words.
    if (meta.demo) { $('#demo-note').textContent = meta.demo.note; $('#demo-note').hidden = false; }
    if (!state.date) {
      const open = meta.opening_slot ?? meta.now;
      state.date = open.slice(0, 10);
      state.slot = Math.floor((Date.parse(open) - data.dayStart(state.date)) / data.SLOT_MS);
    }
    $('#date').value = state.date;
    $('#date').max = shiftDate(meta.now.slice(0, 10), 4);
    $('#slider').value = state.slot;
    syncControls();
    writeUrl();
    const signIn = data.loginMode && !data.hasToken();
    // The first day is in the map's initial style with the polygons: one pass of its worker.
    const first = signIn ? { day: null } : await fetchDay();
    milestone('day');
    zmap = new ZoneMap($('#map'), {
      geojson, codes: meta.zones.map((z) => z.zone), metric: state.metric,
      flows: first.day ? netFlows(first.day.flows) : [], legendEl: $('#legend'),
    }, { onHover: (z, p) => showTooltip(z, p), onClick: (z) => openZone(z) });
    zmap.drawFlowLegend();
    milestone('map-created');
    bind();
    await zmap.ready;
    milestone('style-loaded');
    perf.map = zmap.map;
    perf.point = (z) => zmap.point(z);
    perf.arrowsDrawn = () => zmap.arrowsDrawn;
    perf.arrowsList = () => zmap.arrowsList;
    if (signIn) {
      showLogin();
      setStatus('Sign in to see the data.');
      $('#login').addEventListener('submit', async (e) => {
        e.preventDefault();
        const fd = new FormData(e.target);
        try {
          await data.signIn(fd.get('email'), fd.get('password'));
          e.target.hidden = true;
          await loadDay();
        } catch (err) { $('#login-msg').textContent = err.message; }
      });
      drawStrip();
    } else {
      showDay(first, true);
    }
    milestone('day-shown');
    await zmap.idle();
    perf.painted = performance.now();
  } catch (e) {
    perf.errors.push(String(e?.stack ?? e));
    setStatus(`The dashboard could not start: ${e.message}`, 'error');
  }
}

start();
