// The zone panel: production mix (stacked), footprint over past days + forecast, marked by what
// each value rests on (provider data, estimated, forecast: data.KINDS), the forecast's typical
// error (a band on the carbon forecast, the figures of /v1/forecast-accuracy in plain words),
// imports/exports by neighbour, mix-share, the lowest-footprint window, CSV downloads.
import { METRICS } from './map.js';

const TYPE_COLOURS = {
  nuclear: '#a05fd1', hydro_river: '#3f8fd6', hydro_reservoir: '#2563a8', hydro_pumped_storage: '#7aa9d8',
  wind_onshore: '#5fc5c0', wind_offshore: '#2a9d9a', solar: '#f4c542', biomass: '#6a9b3d', geothermal: '#b46b3a',
  marine: '#1f6f8b', other_renewable: '#8fbf6a', waste: '#8d7b68', gas: '#e48f53', coal: '#4b4b4b', oil: '#8b3a3a', other: '#a8a8a8',
};
const STACK_ORDER = ['nuclear', 'hydro_river', 'hydro_reservoir', 'hydro_pumped_storage', 'geothermal', 'biomass', 'other_renewable',
  'marine', 'wind_offshore', 'wind_onshore', 'solar', 'waste', 'other', 'gas', 'oil', 'coal'];
const WINDOWS = [[4, '1 h'], [8, '2 h'], [12, '3 h'], [16, '4 h'], [24, '6 h'], [32, '8 h']];
const cssVar = (n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim();
const hhmm = (ms) => new Date(ms).toISOString().slice(11, 16);
const BANDS = [[0, 24, 'the next 24 h'], [24, 48, '1–2 days ahead'], [48, 96, '2–4 days ahead']];

/** The accuracy items of a zone's /v1/forecast-accuracy answer for the window shown: 30 days when
 * its first band has enough forecasts compared, else 7; `{ window, bands: [item per BANDS] }`. */
function accuracyOf(items) {
  const pick = (w) => BANDS.map(([from]) => items.find((a) => a.window_days === w && a.horizon_from_hours === from));
  for (const w of [30, 7]) {
    const bands = pick(w);
    if (bands[0]?.enough_data) return { window: w, bands };
  }
  return { window: null, bands: pick(7) };
}
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

/** uPlot (a classic script defining the global `uPlot`) and its stylesheet, loaded once. */
let uplot = null;
function loadUPlot() {
  const add = (tag, attrs) => new Promise((resolve, reject) => {
    const el = Object.assign(document.createElement(tag), attrs);
    el.onload = resolve;
    el.onerror = () => reject(new Error('the chart library did not load'));
    document.head.append(el);
  });
  uplot ??= Promise.all([
    add('link', { rel: 'stylesheet', href: '/dashboard/static/vendor/uplot/uPlot.min.css' }),
    add('script', { src: '/dashboard/static/vendor/uplot/uPlot.iife.min.js' }),
  ]).catch((e) => { uplot = null; throw e; });
  return uplot;
}

export class ZonePanel {
  constructor(el, ctx) {
    this.el = el; this.ctx = ctx; this.charts = []; this.bundle = null; this.winLen = 12;
    new ResizeObserver(() => this.resize()).observe(el);
  }

  async open(zone, date) {
    const { data, meta } = this.ctx;
    this.zone = zone; this.date = date;
    this.el.hidden = false;
    this.el.innerHTML = `<div class="p-head"><h2 id="panel-title">${esc(this.ctx.zoneNames.get(zone) ?? zone)} <span class="muted">${zone}</span></h2>
      <button type="button" class="icon close" aria-label="Close the zone panel">✕</button></div><p class="muted">Loading…</p>`;
    this.el.querySelector('.close').onclick = () => this.close();
    this.el.focus();
    try {
      const [b] = await Promise.all([data.loadZone(meta, zone, date), loadUPlot()]);
      if (this.zone !== zone || this.date !== date) return;
      this.bundle = b;
      this.prepare();
      this.render();
    } catch (e) {
      this.el.querySelector('p').textContent = e.status === 429 ? 'Too many requests; wait a few seconds.' : `Could not load: ${e.message}`;
    }
  }

  close() {
    this.el.hidden = true; this.zone = null; this.destroyCharts();
    this.ctx.onClose();
  }

  destroyCharts() { for (const c of this.charts) c.destroy(); this.charts = []; }

  prepare() {
    const { data } = this.ctx;
    const p = this.bundle.parts, t0 = data.dayStart(this.date);
    // Production mix: one series per production type present.
    const gen = new Map();
    for (const r of p.generation) for (const e of r.series) for (const b of e.production) {
      if (!gen.has(b.production_type)) gen.set(b.production_type, data.emptySeries(96));
      data.fillSeries(gen.get(b.production_type), t0, [{ ...e, values: b.values }]);
    }
    this.types = STACK_ORDER.filter((t) => gen.has(t)).concat([...gen.keys()].filter((t) => !STACK_ORDER.includes(t)));
    this.gen = gen;
    this.imports = data.flowsOf(p.imports, t0, 96);
    this.exports = [];
    for (const r of p.exports) for (const e of r.series) for (const b of e.exports) {
      let x = this.exports.find((f) => f.to === b.destination);
      if (!x) { x = { to: b.destination, s: data.emptySeries(96) }; this.exports.push(x); }
      data.fillSeries(x.s, t0, [{ ...e, values: b.values }]);
    }
    this.shares = new Map();
    for (const r of p['mix-share']) for (const e of r.series) for (const b of e.shares) {
      if (!this.shares.has(b.origin)) this.shares.set(b.origin, data.emptySeries(96));
      data.fillSeries(this.shares.get(b.origin), t0, [{ ...e, values: b.values }]);
    }
    // Footprint history: 6 days before … 4 after, per footprint type, coverage and scope.
    const h0 = t0 - 6 * data.DAY_MS, n = 11 * 96;
    this.h0 = h0;
    this.accuracy = accuracyOf(p['forecast-accuracy'] ?? []);
    this.hist = new Map();
    for (const [name, answer] of Object.entries(p)) {
      if (!name.startsWith('footprints:')) continue;
      const [, cov, scope] = name.split(':');
      for (const r of answer) this.hist.set(`${r.footprint_type}:${cov}:${scope}`, data.fillSeries(data.emptySeries(n), h0, r.series));
    }
  }

  histKey() {
    const s = this.ctx.state;
    const type = s.metric === 'water' || s.metric === 'impact' ? 'water' : 'carbon';
    const scope = s.metric === 'impact' || s.metric === 'score' ? 'operational' : s.scope;
    return { key: `${type}:${s.coverage}:${scope}`, type, scope };
  }

  render() {
    this.destroyCharts();
    const z = this.zone, { state } = this.ctx;
    const parts = this.ctx.meta.zone_parts.map((p) => `<option value="${p.name}">${p.name}</option>`).join('');
    this.el.innerHTML = `<div class="p-head"><h2 id="panel-title">${esc(this.ctx.zoneNames.get(z) ?? z)} <span class="muted">${z}</span></h2>
      <button type="button" class="icon close" aria-label="Close the zone panel">✕</button></div>
      <div class="cards" data-cards></div>
      <h3>Production mix <span class="muted">(MW, stacked by type)</span></h3>
      <div class="chart" data-chart="mix"></div>
      <h3 data-hist-title></h3>
      <div class="chart" data-chart="hist"></div>
      <p class="accuracy" data-accuracy aria-live="polite"></p>
      <div class="best">
        <label>Lowest-footprint window of <select data-win>${WINDOWS.map(([n, l]) => `<option value="${n}"${n === this.winLen ? ' selected' : ''}>${l}</option>`).join('')}</select></label>
        <p data-best aria-live="polite"></p>
      </div>
      <div class="two">
        <div><h3>Imports / exports <span class="muted">(MW)</span></h3><div data-flows class="bars"></div></div>
        <div><h3>Where the consumption comes from</h3><div data-share class="bars"></div></div>
      </div>
      <div class="csv"><label>Download as CSV <select data-part>${parts}</select></label>
        <a class="button" data-csv href="#" download>Download</a></div>`;
    this.el.querySelector('.close').onclick = () => this.close();
    this.el.querySelector('[data-win]').onchange = (e) => { this.winLen = Number(e.target.value); this.renderHist(); };
    const csv = this.el.querySelector('[data-csv]'), sel = this.el.querySelector('[data-part]');
    sel.value = `footprints:${state.coverage}:${state.metric === 'impact' || state.metric === 'score' ? 'operational' : state.scope}`;
    const setHref = async () => {
      csv.href = await this.ctx.data.csvHref(this.ctx.meta, z, this.date, sel.value);
      csv.download = `gridprint-${sel.value.replaceAll(':', '-')}-${z}-${this.date}.csv`;
    };
    sel.onchange = setHref; setHref();
    this.renderMix();
    this.renderHist();
    this.setSlot(state.slot);
  }

  width() { return Math.max(260, this.el.clientWidth - 36); }

  renderMix() {
    const el = this.el.querySelector('[data-chart="mix"]');
    const { data } = this.ctx;
    const t0 = data.dayStart(this.date) / 1000;
    const xs = Array.from({ length: 96 }, (_, i) => t0 + i * 900);
    const acc = new Float64Array(96);
    // A slot no type reports stays a gap (not a zero).
    const any = Array.from(acc, (_, i) => this.types.some((t) => !Number.isNaN(this.gen.get(t).v[i])));
    const stacked = this.types.map((t) => {
      const v = this.gen.get(t).v;
      return Array.from(acc, (a, i) => (any[i] ? (acc[i] = a + (Number.isNaN(v[i]) ? 0 : v[i])) : null));
    });
    el.dataset.types = this.types.join(',');
    if (!this.types.length) { el.innerHTML = '<p class="muted">No generation reported for this day.</p>'; return; }
    // Drawn top of the stack first, each filled down to the axis: the visible bands are the types.
    const order = this.types.map((_, i) => i).reverse();
    const raw = (t) => (u, v, si, i) => { const x = this.gen.get(t).v[i]; return Number.isNaN(x) ? '–' : `${Math.round(x)}`; };
    const opts = {
      width: this.width(), height: 170, legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: this.axes(),
      series: [{ value: (u, v) => (v == null ? '' : hhmm(v * 1000)) }, ...order.map((i) => ({
        label: this.types[i].replaceAll('_', ' '), stroke: TYPE_COLOURS[this.types[i]] ?? '#999',
        fill: TYPE_COLOURS[this.types[i]] ?? '#999', width: 0, points: { show: false }, value: raw(this.types[i]),
      }))],
      hooks: { draw: [(u) => this.marker(u)] },
    };
    this.mix = new uPlot(opts, [xs, ...order.map((i) => stacked[i])], el);
    this.charts.push(this.mix);
    el.dataset.seriesCount = String(this.mix.series.length - 1);
    const key = document.createElement('ul');
    key.className = 'key';
    key.setAttribute('aria-label', 'Production types');
    for (const t of this.types) {
      const li = document.createElement('li');
      const sw = document.createElement('i');
      sw.style.background = TYPE_COLOURS[t] ?? '#999';
      li.append(sw, t.replaceAll('_', ' '));
      key.append(li);
    }
    el.append(key);
  }

  renderHist() {
    this.charts = this.charts.filter((c) => (c === this.histChart ? (c.destroy(), false) : true));
    const el = this.el.querySelector('[data-chart="hist"]');
    el.innerHTML = '';
    const { key, type, scope } = this.histKey();
    const s = this.hist.get(key);
    const m = METRICS[type];
    const { state } = this.ctx;
    this.el.querySelector('[data-hist-title]').innerHTML = `${m.label} <span class="muted">(${m.unit}, ${state.coverage}, ${scope}) — past 6 days, the day, forecast</span>`;
    if (!s) { el.innerHTML = '<p class="muted">No footprint for this window.</p>'; this.renderBest(null); return; }
    const now = Date.parse(this.ctx.meta.now) / 1000;
    const xs = Array.from(s.v, (_, i) => this.h0 / 1000 + i * 900);
    // Marked by the data's own kind (never by comparing the time with now).
    const kind = Array.from(s.v, (_, i) => this.ctx.data.kindOf(s, i));
    const measured = Array.from(s.v, (v, i) => (kind[i] === 'provider' || kind[i] === 'estimated' ? v : null));
    const forecast = Array.from(s.v, (v, i) => (kind[i] === 'forecast' ? v : null));
    const estimated = Array.from(s.v, (v, i) => (kind[i] === 'estimated' ? v : null));
    // The typical error (MAE of the horizon band) around the carbon forecast it was measured on.
    const acc = this.accuracy, measuredOn = key === 'carbon:global:life-cycle';
    const maeAt = (i) => {
      const h = (xs[i] - now) / 3600;
      const b = acc.bands[h < 24 ? 0 : h < 48 ? 1 : 2];
      return b?.enough_data && b.mae != null ? b.mae : null;
    };
    const band = measuredOn && acc.window != null;
    const upper = Array.from(s.v, (v, i) => (band && forecast[i] != null && maeAt(i) != null ? v + maeAt(i) : null));
    const lower = Array.from(s.v, (v, i) => (band && forecast[i] != null && maeAt(i) != null ? Math.max(0, v - maeAt(i)) : null));
    this.renderAccuracy(measuredOn);
    this.histData = { xs, s, now };
    // The axis covers the data held (with the chosen day), not empty days around it.
    let first = s.v.findIndex((v) => !Number.isNaN(v)), last = s.v.findLastIndex((v) => !Number.isNaN(v));
    first = Math.min(first < 0 ? 6 * 96 : first, 6 * 96); last = Math.max(last, 7 * 96 - 1);
    const xRange = [xs[first], xs[last] + 900];
    const opts = {
      width: this.width(), height: 170, cursor: { drag: { x: false, y: false } }, legend: { show: false },
      scales: { x: { time: true, range: () => xRange } }, axes: this.axes(true),
      series: [{ value: (u, v) => (v == null ? '' : new Date(v * 1000).toISOString().slice(5, 16).replace('T', ' ')) },
        { label: 'Provider data', stroke: cssVar('--accent'), width: 1.6, points: { show: false }, spanGaps: false },
        { label: 'Estimated', stroke: cssVar('--warn'), width: 0, points: { show: true, size: 3, fill: cssVar('--warn') } },
        { label: 'Forecast', stroke: cssVar('--fc'), width: 1.6, dash: [5, 4], points: { show: false } },
        { label: 'Typical error (upper)', stroke: 'transparent', width: 0, points: { show: false } },
        { label: 'Typical error (lower)', stroke: 'transparent', width: 0, points: { show: false } }],
      bands: [{ series: [4, 5], fill: cssVar('--fc-band') }],
      hooks: { drawClear: [(u) => this.shadeHist(u)], draw: [(u) => this.marker(u, true)] },
    };
    this.histChart = new uPlot(opts, [xs, measured, estimated, forecast, upper, lower], el);
    el.dataset.errorBand = String(upper.filter((v) => v != null).length);
    this.charts.push(this.histChart);
    const legend = document.createElement('ul');
    legend.className = 'key';
    const { KINDS } = this.ctx.data;
    for (const [cls, label, title] of [['k-ok', KINDS.provider.label, KINDS.provider.title], ['k-preview', KINDS.estimated.label, KINDS.estimated.title],
      ['k-fc', KINDS.forecast.label, KINDS.forecast.title], ...(band ? [['k-err', 'Typical error', 'The forecast ± its mean absolute error over the forecasts of the last days (see below)']] : []),
      ['k-best', 'Lowest window', 'The lowest-average window of the chosen length']]) {
      const li = document.createElement('li'); const i = document.createElement('i'); i.className = cls; li.append(i, label); li.title = title; legend.append(li);
    }
    el.append(legend);
    this.renderBest(s);
  }

  /** The forecast's typical error in plain words (from /v1/forecast-accuracy). */
  renderAccuracy(measuredOn) {
    const p = this.el.querySelector('[data-accuracy]');
    const { window, bands } = this.accuracy;
    if (!bands[0]) { p.textContent = ''; return; }
    if (window == null) { p.textContent = `How far off the forecast has been: ${bands[0].note}`; return; }
    const n = (v, d = 1) => (v == null ? '–' : v.toFixed(d));
    const parts = BANDS.map(([, , words], i) => {
      const b = bands[i];
      return b?.enough_data ? `${words} typically ±${n(b.mae)} ${b.unit} (${n(b.mape_percent)} %)` : `${words} not measured yet`;
    });
    const persistence = BANDS.map((_, i) => bands[i]?.persistence_mape_percent).filter((v) => v != null).map((v) => `${n(v)} %`);
    const b0 = bands[0];
    p.innerHTML = `<b>How far off the forecast has been</b> (the ${b0.forecasts} forecasts of the last ${window} days, carbon footprint, global, life-cycle): ${esc(parts.join('; '))}.`
      + (persistence.length ? ` Repeating the last known day would have been off by ${esc(persistence.join(', '))}.` : '')
      + (b0.rank_correlation != null ? ` Within a day it orders the hours as they happened with a rank correlation of ${n(b0.rank_correlation, 2)}, and a 3-hour job placed on it emits ${n(b0.regret_percent)} % more than at the truly best time.` : '')
      + (measuredOn ? ' The shaded band around the forecast is ± that typical error.' : ' (The band is drawn on the carbon footprint, global, life-cycle.)');
  }

  renderBest(s) {
    const p = this.el.querySelector('[data-best]');
    if (!s) { p.textContent = ''; this.best = null; return; }
    const { data } = this.ctx;
    const { xs, now } = this.histData;
    // The forecast ahead when there is one; else the chosen day.
    let from = xs.findIndex((x) => x >= now);
    let where = 'in the forecast';
    const dayFrom = 6 * 96;
    let v = s.v;
    if (from < 0 || from >= xs.length - this.winLen) { from = dayFrom; v = s.v.slice(0, dayFrom + 96); where = 'on this day'; }
    const b = data.bestWindow(v, this.winLen, from);
    this.best = b;
    if (!b) { p.textContent = `No ${this.winLen / 4} h window with a value for every quarter-hour ${where}.`; return; }
    const m = METRICS[this.histKey().type];
    const t = (i) => new Date(xs[i] * 1000).toISOString().slice(0, 16).replace('T', ' ');
    p.innerHTML = `Lowest ${where}: <b>${t(b.start)}–${hhmm(xs[b.start] * 1000 + this.winLen * 900000)} UTC</b>, average <b>${b.mean.toFixed(m.digits || 1)}</b> ${m.unit}`;
    this.histChart?.redraw(false, false);
  }

  shadeHist(u) {
    const { xs, now } = this.histData, ctx = u.ctx;
    const { top, height } = u.bbox;
    const x = (t) => u.valToPos(t, 'x', true);
    ctx.save();
    const nx = x(now);
    if (nx < u.bbox.left + u.bbox.width) {
      ctx.fillStyle = cssVar('--fc-bg');
      const from = Math.max(u.bbox.left, nx);
      ctx.fillRect(from, top, u.bbox.left + u.bbox.width - from, height);
    }
    // The chosen day.
    const d0 = xs[6 * 96];
    ctx.fillStyle = cssVar('--day-bg');
    ctx.fillRect(x(d0), top, x(d0 + 86400) - x(d0), height);
    if (this.best) {
      ctx.fillStyle = cssVar('--best-bg');
      ctx.fillRect(x(xs[this.best.start]), top, x(xs[this.best.start] + this.winLen * 900) - x(xs[this.best.start]), height);
    }
    ctx.restore();
  }

  marker(u, hist = false) {
    const { data, state } = this.ctx;
    const t = data.dayStart(this.date) / 1000 + state.slot * 900;
    const x = u.valToPos(t, 'x', true);
    const ctx = u.ctx;
    ctx.save(); ctx.strokeStyle = cssVar('--fg'); ctx.lineWidth = 1.5 * devicePixelRatio; ctx.setLineDash([]);
    ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
    if (hist) {
      const n = u.valToPos(this.histData.now, 'x', true);
      if (n >= u.bbox.left && n <= u.bbox.left + u.bbox.width) {
        ctx.strokeStyle = cssVar('--now'); ctx.setLineDash([3, 3]);
        ctx.beginPath(); ctx.moveTo(n, u.bbox.top); ctx.lineTo(n, u.bbox.top + u.bbox.height); ctx.stroke();
      }
    }
    ctx.restore();
  }

  axes(days = false) {
    const fg = cssVar('--muted'), grid = cssVar('--grid');
    return [
      // Over days: a tick at midnight names the day ("1 Feb"), others the time; room for either.
      { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, space: days ? 64 : 40, values: days
        ? (u, vals) => vals.map((v) => (hhmm(v * 1000) === '00:00'
          ? new Date(v * 1000).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })
          : hhmm(v * 1000)))
        : (u, vals) => vals.map((v) => hhmm(v * 1000)) },
      { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 50,
        values: (u, vals) => vals.map((v) => (Math.abs(v) >= 1000 ? `${+(v / 1000).toFixed(1)}k` : `${+v.toFixed(2)}`)) },
    ];
  }

  setSlot(i) {
    if (this.el.hidden || !this.bundle) return;
    for (const c of this.charts) c.redraw(false, false);
    const { state } = this.ctx;
    // Cards: the zone's values at this slot for every metric are on the map's day; show the panel's.
    const cards = this.el.querySelector('[data-cards]');
    const { key, type } = this.histKey();
    const s = this.hist.get(key);
    const j = 6 * 96 + i;
    const v = s?.v[j];
    const m = METRICS[type];
    const { KINDS, kindOf, finality } = this.ctx.data;
    const kind = kindOf(s, j), fin = finality(s, j);
    cards.innerHTML = `<div class="card-v"><span class="muted">${m.label}</span><b>${v === undefined || Number.isNaN(v) ? '–' : v.toFixed(m.digits || 1)}</b><span class="muted">${m.unit}</span></div>
      <div class="card-v" data-quality><span class="muted">This value rests on</span><b class="kind k-${kind}" data-kind="${kind}" title="${esc(KINDS[kind].title)}" tabindex="0">${KINDS[kind].label}</b>
      <span class="muted"${fin ? ` data-final title="${esc(fin.title)}" tabindex="0">${fin.label}` : '>'}</span></div>`;
    // Imports (+) and exports (−) by neighbour at this slot.
    const rows = [];
    for (const f of this.imports) if (!Number.isNaN(f.mw[i]) && f.mw[i] > 0) rows.push([f.from, f.mw[i]]);
    for (const f of this.exports) if (!Number.isNaN(f.s.v[i]) && f.s.v[i] > 0) rows.push([f.to, -f.s.v[i]]);
    const max = Math.max(1, ...rows.map((r) => Math.abs(r[1])));
    this.el.querySelector('[data-flows]').innerHTML = rows.length ? rows.sort((a, b) => b[1] - a[1]).map(([z, mw]) =>
      `<div class="bar ${mw >= 0 ? 'in' : 'out'}"><span class="l">${mw >= 0 ? '← from' : '→ to'} ${z}</span><span class="track"><i data-w="${(Math.abs(mw) / max) * 100}"></i></span><span class="r">${Math.round(Math.abs(mw))} MW</span></div>`).join('')
      : '<p class="muted">No flows reported at this time.</p>';
    const shares = [...this.shares].map(([o, s2]) => [o, s2.v[i]]).filter(([, x]) => !Number.isNaN(x) && x > 0.05).sort((a, b) => b[1] - a[1]);
    this.el.querySelector('[data-share]').innerHTML = shares.length ? shares.map(([o, x]) =>
      `<div class="bar share"><span class="l">${o}${o === this.zone ? ' (own)' : ''}</span><span class="track"><i data-w="${x}"></i></span><span class="r">${x.toFixed(1)} %</span></div>`).join('')
      : '<p class="muted">No mix-share at this time.</p>';
    for (const i2 of this.el.querySelectorAll('.bars i[data-w]')) i2.style.width = `${i2.dataset.w}%`;
    void state;
  }

  setMetric() { if (!this.el.hidden && this.bundle) { this.renderHist(); this.setSlot(this.ctx.state.slot); } }

  redraw() { if (!this.el.hidden && this.bundle) this.render(); }

  resize() {
    if (this.el.hidden) return;
    for (const c of this.charts) c.setSize({ width: this.width(), height: c.height });
  }
}
