// Drives the dashboard of running `gridprint serve` processes (demo data) in real headless Chromium:
// the map, tooltip, switches, slider, zone panel, CSV download, keyboard, themes and widths; the
// demo's replay note (`serve --demo`, none without it); the docs page; `--dashboard login` and `off`; the public routes' limits; and, on a server in a live
// state (provider data up to an hour ago, then estimates and the forecast), the plain words for what
// each value rests on (no raw flag names), slot labels from the data, arrows only between zones with
// data, the look of disabled controls. Saves screenshots and prints measured figures (painted map on
// a cold cache, bytes of a first visit, time per slider step).
//
// Usage: node dashboard.mjs PUBLIC_URL LOGIN_URL OFF_URL EMAIL PASSWORD LIVE_URL
// The email must be registered with that password on both databases (demo and live).
// Env: CHROMIUM (default /usr/bin/chromium), SCREENSHOT_DIR (default ./out).

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const [pub, login, off, email, password, live] = process.argv.slice(2).map((s) => s?.replace(/\/+$/, ''));
if (![pub, login, off, live].every((u) => /^https?:\/\//.test(u ?? '')) || !email || !password) {
  console.error('usage: node dashboard.mjs PUBLIC_URL LOGIN_URL OFF_URL EMAIL PASSWORD LIVE_URL');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const shots = process.env.SCREENSHOT_DIR ?? join(here, 'out');
mkdirSync(shots, { recursive: true });
const step = (name) => console.log(`- ${name}`);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

async function browser(viewport = { width: 1280, height: 800 }) {
  const dir = mkdtempSync(join(tmpdir(), 'gridprint-dash-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS, viewport,
    acceptDownloads: true, timeout: 60_000,
  });
  await context.addInitScript(() => { window.__gridprintTest = true; });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith('http://127.0.0.1')) problems.push(`external request: ${r.url()}`); });
  return { context, page, problems, close: async () => { await context.close(); rmSync(dir, { recursive: true, force: true }); } };
}

const tokenOf = async (server) => {
  const r = await fetch(`${server}/token-request/get_token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) });
  assert.equal(r.status, 200, `token for the API comparisons (${server})`);
  return (await r.json()).access_token;
};
const tokens = { [pub]: await tokenOf(pub), [live]: await tokenOf(live) };
const v1 = async (path, csv = false, server = pub) => {
  const r = await fetch(`${server}/v1/${path}${csv ? '&format=csv' : ''}`, { headers: { Authorization: `Bearer ${tokens[server]}` } });
  assert.equal(r.status, 200, path);
  return csv ? r.text() : r.json();
};

// What a value rests on, as the page must name it, from the API's flags (whatever they are).
const KIND_LABEL = { provider: 'Provider data', estimated: 'Estimated', forecast: 'Forecast', none: 'No data' };
const kindOfStatus = (st) => (st === 'complete' ? 'provider' : st === 'missing' ? 'forecast' : 'estimated');
const finalLabel = (valid) => (valid ? 'Final' : 'May still change');
/** The raw flag names a person must never read on the page. */
const RAW_FLAGS = /\b(zone_status|valid|missing|preview|complete)\b/i;
/** Everything a person reads in the elements matching `selectors`: visible text, hover texts
 * (title), accessible names and values. */
const readable = (page, selectors) => page.evaluate((sels) => sels.flatMap((sel) => [...document.querySelectorAll(sel)].flatMap((el) => [
  el.innerText, el.title, el.getAttribute('aria-label'), el.getAttribute('aria-valuetext'),
  ...[...el.querySelectorAll('[title], [aria-label], [aria-valuetext]')].flatMap((x) => [x.title, x.getAttribute('aria-label'), x.getAttribute('aria-valuetext')]),
])).filter(Boolean).join('\n'), selectors);
const assertNoRawFlags = async (page, selectors, where) => {
  const text = await readable(page, selectors);
  assert.ok(text.length > 0, `${where}: text to read`);
  const m = text.match(RAW_FLAGS);
  assert.equal(m, null, `${where}: raw flag name "${m?.[0]}" in: ${text.slice(Math.max(0, (m?.index ?? 0) - 80), (m?.index ?? 0) + 80)}`);
};
/** Per timestamp, zone → {v, status, valid} of the carbon footprint (global, life-cycle) in [start, end]. */
async function footprintsAt(server, start, end) {
  const at = new Map();
  for (const r of await v1(`footprints?zone=&footprint_type=carbon&use_global=true&scope=life-cycle&start=${start}&end=${end}`, false, server)) {
    for (const s of r.series) for (const [t, v] of s.values) {
      if (!at.has(t)) at.set(t, new Map());
      at.get(t).set(r.zone, { v, status: s.zone_status, valid: s.valid });
    }
  }
  return at;
}
/** The slot's kind as a whole: the kind most zones have (ties: the less certain one). */
function dominantKind(zones) {
  const n = { provider: 0, estimated: 0, forecast: 0 };
  for (const z of zones?.values() ?? []) n[kindOfStatus(z.status)] += 1;
  let kind = 'none', best = 0;
  for (const k of ['provider', 'estimated', 'forecast']) if (n[k] > 0 && n[k] >= best) { kind = k; best = n[k]; }
  return kind;
}
/** The arrows the map must show at slot time `t`: the net flow (≥ 1 MW) of each border pair whose
 * two zones both have data (`zones`), one per pair; and the pairs left out for lack of data. */
async function expectedArrows(server, t, zones, polygons) {
  const net = new Map();
  for (const r of await v1(`imports?zone=&start=${t}&end=${t}`, false, server)) {
    for (const s of r.series) for (const b of s.imports) for (const [ts, mw] of b.values) {
      if (ts !== t || mw == null) continue;
      const [a, c] = [b.source, r.zone].sort();
      net.set(`${a}|${c}`, (net.get(`${a}|${c}`) ?? 0) + (b.source === a ? mw : -mw));
    }
  }
  const want = [], without = [];
  for (const [k, mw] of net) {
    if (Math.abs(mw) < 1) continue;
    const [a, c] = k.split('|');
    if (!polygons.has(a) || !polygons.has(c)) continue;
    const pair = mw > 0 ? `${a}>${c}` : `${c}>${a}`;
    (zones.has(a) && zones.has(c) ? want : without).push(pair);
  }
  return { want: want.sort(), without };
}
const drawnArrows = (page) => page.evaluate(() => window.__gridprint.arrowsList().map((a) => `${a.from}>${a.to}`).sort());
const waitPainted = (page) => page.waitForFunction(() => window.__gridprint?.painted != null, null, { timeout: 30_000 });
const idle = (page) => page.evaluate(() => new Promise((r) => { const m = window.__gridprint.map; if (m.loaded() && !m.isMoving() && m.areTilesLoaded()) { m.once('idle', r); m.triggerRepaint(); } else m.once('idle', r); }));
/** RGB drawn at a zone's centroid (read back from the WebGL canvas). */
const pixel = (page, zone) => page.evaluate((z) => {
  const g = window.__gridprint, c = g.map.getCanvas(), p = g.point(z);
  const cv = document.createElement('canvas'); cv.width = c.width; cv.height = c.height;
  const ctx = cv.getContext('2d'); ctx.drawImage(c, 0, 0);
  const k = c.width / c.clientWidth;
  return Array.from(ctx.getImageData(Math.round(p.x * k), Math.round(p.y * k), 1, 1).data.slice(0, 3));
}, zone);
const params = (page) => Object.fromEntries(new URL(page.url()).searchParams);

const figures = {};
let failed = false;
try {
  // ---------------------------------------------------------------- public mode, cold cache
  const zonesList = (await v1('zones?')).map((z) => z.zone);
  assert.equal(zonesList.length, 52);
  const polygons = new Set((await (await fetch(`${pub}/dashboard/zones.geojson`)).json()).features.map((f) => f.properties.zoneName));
  {
    step('first visit on a cold cache: opens at now (the freshest provider data), paints the map');
    const b = await browser();
    const { page, problems } = b;
    const cdp = await b.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    let bytes = 0, requests = 0;
    cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; requests += 1; });
    const resp = await page.goto(`${pub}/`);
    assert.equal(resp.status(), 200);
    assert.match(resp.headers()['content-security-policy'] ?? '', /default-src 'none'/);
    await waitPainted(page);
    figures.paintedMs = await page.evaluate(() => window.__gridprint.painted);
    await page.waitForLoadState('networkidle');
    // Bytes on the wire (headers and compressed bodies): the page's resource timing, which also sees
    // the map worker's script (fetched by the worker, outside this CDP session), cross-checked by CDP.
    const rt = await page.evaluate(() => {
      const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
      return { bytes: all.reduce((n, e) => n + e.transferSize, 0), count: all.length };
    });
    figures.firstVisitBytes = rt.bytes; figures.firstVisitRequests = rt.count;
    figures.firstVisitBytesCdpPageOnly = bytes;
    assert.ok(rt.bytes >= bytes * 0.9, `resource timing ${rt.bytes} vs CDP ${bytes}`);
    const st = params(page);
    const meta = await (await fetch(`${pub}/dashboard/api/meta`)).json();
    assert.ok(meta.opening_slot, 'an opening slot exists on the demo data');
    const open = new Date(meta.opening_slot);
    assert.equal(st.date, meta.opening_slot.slice(0, 10), 'URL date is the opening slot\'s day');
    assert.equal(Number(st.slot), (open.getUTCHours() * 4) + open.getUTCMinutes() / 15);
    // The demo holds data for now: the page opens at now, on the last quarter of provider data (an
    // hour or so ago), where the zones whose borders are all recorded read complete ("Provider data").
    const status = await (await fetch(`${pub}/v1/status`)).json();
    const until = Date.parse(status.demo.provider_data_until);
    assert.ok([until - 900000, until].includes(open.getTime()), `opened on ${meta.opening_slot}, provider data until ${status.demo.provider_data_until}`);
    const atOpening = (await footprintsAt(pub, meta.opening_slot, meta.opening_slot)).get(meta.opening_slot);
    const complete = [...atOpening].filter(([, s]) => s.status === 'complete').map(([z]) => z).sort();
    assert.ok(atOpening.size >= 20, `zones with data at the opening slot: ${atOpening.size}`);
    assert.deepEqual(complete, ['CZ', 'EE', 'ES', 'LV', 'PT', 'SK'], 'provider data where every border is recorded');
    await page.screenshot({ path: join(shots, 'dashboard-now.png') });
    console.log(`  opened at now: ${meta.opening_slot} (${atOpening.size} zones with data, ${complete.join(' ')} provider data)`);

    step('the 2017 day is one click away: "Earlier data" goes to the best-covered recorded slot');
    // The 2017 file library extract holds 2017-02-01 for 5 zones only, and most zones only at its
    // last timestamp, 2017-02-02T00:00Z.
    const zonesAt = new Map();
    for (const r of await v1('footprints?zone=&footprint_type=carbon&start=2017-01-31T00:00:00Z&end=2017-02-03T00:00:00Z')) {
      for (const s of r.series) for (const [t] of s.values) zonesAt.set(t, (zonesAt.get(t) ?? 0) + 1);
    }
    const best = Math.max(...zonesAt.values());
    assert.equal(meta.earlier_slot, '2017-02-02T00:00:00Z');
    assert.equal(zonesAt.get(meta.earlier_slot), best, 'no slot of the 2017 demo days has more zones than the one "Earlier data" names');
    await page.locator('#best-btn').click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('date') === '2017-02-02');
    await waitPainted(page);
    assert.equal(params(page).slot, '0');
    await idle(page);
    await page.screenshot({ path: join(shots, 'dashboard-2017.png') });
    console.log(`  "Earlier data" → 2017-02-02 slot 0 (${best} zones; 2017-02-01 23:45 has ${zonesAt.get('2017-02-01T23:45:00Z')})`);
    await page.goto(`${pub}/`);
    await waitPainted(page);

    step('serve --demo: the replay is said on the page (recorded data shown as the last days)');
    const note = page.locator('#demo-note');
    assert.ok(await note.isVisible(), 'the demo note is shown');
    const noteText = await note.textContent();
    assert.equal(noteText, meta.demo.note, 'the note is /v1/status\'s demo note');
    assert.equal(noteText, (await (await fetch(`${pub}/v1/status`)).json()).demo.note);
    assert.match(noteText, /^Demo: recorded provider data of 2017-02-01, .* replayed as the last 8 days up to an hour ago — not live data$/);
    console.log(`  "${noteText}"`);

    step('the map draws all 52 zones');
    const drawn = await page.evaluate(() => [...new Set(window.__gridprint.map.queryRenderedFeatures({ layers: ['zones-fill'] }).map((f) => f.properties.zoneName))]);
    const missing = zonesList.filter((z) => !drawn.includes(z));
    assert.deepEqual(missing, [], 'every zone has a rendered polygon');

    step('the cross-border flows are drawn as arrows');
    const arrows = await page.evaluate(() => {
      const c = document.querySelector('canvas.flow-arrows');
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let opaque = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 200) opaque += 1;
      return { drawn: window.__gridprint.arrowsDrawn(), opaque };
    });
    assert.ok(arrows.drawn >= 10, `arrows drawn at the opening slot: ${arrows.drawn}`);
    assert.ok(arrows.opaque >= arrows.drawn * 20, `arrow pixels on the overlay: ${arrows.opaque}`);
    {
      const t = meta.opening_slot;
      const zones = (await footprintsAt(pub, t, t)).get(t);
      const { want, without } = await expectedArrows(pub, t, zones, polygons);
      assert.deepEqual(await drawnArrows(page), want, `${t}: one arrow per net flow between zones that both have data`);
      console.log(`  ${t}: ${want.length} arrows between zones with data, ${without.length} flows left out (a zone without data)`);
    }
    step('the arrow sizes have a legend');
    assert.equal(await page.locator('#legend [data-flow-legend] canvas').count(), 4, 'four arrow sizes in the legend');
    assert.match(await page.locator('#legend [data-flow-legend]').innerText(), /MW[\s\S]*GW/);

    step('a zone\'s tooltip value equals the API\'s value for that slot');
    const slotStart = meta.opening_slot;
    const api = await v1(`footprints?zone=&start=${slotStart}&end=${slotStart}&use_global=true&scope=life-cycle&footprint_type=carbon`);
    const values = new Map(api.map((r) => [r.zone, r.series[0]]));
    assert.ok(values.size >= 10, `zones with data at the opening slot: ${values.size}`);
    const mapBox = await page.locator('#map').boundingBox();
    let checked = null;
    for (const z of ['FR', 'DE', 'ES', 'PL', 'IT_NORTH', 'AT', 'CZ', ...values.keys()]) {
      if (!values.has(z)) continue;
      const p = await page.evaluate((zz) => window.__gridprint.point(zz), z);
      await page.mouse.move(mapBox.x + p.x, mapBox.y + p.y);
      const tip = page.locator('#tooltip');
      await tip.waitFor({ state: 'visible' });
      if (!(await tip.innerText()).includes(z)) continue; // centroid in a neighbour (odd shapes)
      const shown = Number(await tip.locator('[data-value]').innerText());
      const s = values.get(z);
      assert.equal(shown, s.values[0][1], `${z} tooltip value`);
      assert.equal(await tip.locator('[data-kind]').innerText(), KIND_LABEL[kindOfStatus(s.zone_status)]);
      assert.equal(await tip.locator('[data-final]').innerText(), finalLabel(s.valid));
      checked = z; break;
    }
    assert.ok(checked, 'a zone was hovered');
    console.log(`  ${checked}: tooltip ${values.get(checked).values[0][1]} gCO2/kWh = API`);
    await page.screenshot({ path: join(shots, 'dashboard-tooltip.png') });
    await page.mouse.move(mapBox.x + 5, mapBox.y + mapBox.height - 200);

    step('switching metric, scope and coverage recolours the map');
    const ranked = [...values].sort((a, b) => a[1].values[0][1] - b[1].values[0][1]).map(([z]) => z);
    const [lo, hi] = [ranked[0], ranked[ranked.length - 1]];
    const colours = {};
    for (const [label, sel] of [['carbon', null], ['water', 'input[name=metric][value=water]'], ['water-operational', 'input[name=scope][value=operational]'],
      ['water-operational-local', 'input[name=coverage][value=local]'], ['impact', 'input[name=metric][value=impact]'], ['score', 'input[name=metric][value=score]']]) {
      if (sel) await page.locator(sel).check({ force: true });
      await idle(page);
      colours[label] = [await pixel(page, lo), await pixel(page, hi)];
      assert.notDeepEqual(colours[label][0], colours[label][1], `${label}: ${lo} and ${hi} differ in colour`);
      if (label === 'water') await page.screenshot({ path: join(shots, 'dashboard-water.png') });
    }
    step('disabled controls look disabled: the scope buttons for the green score, the checked one not highlighted');
    {
      const look = (sel) => page.locator(sel).evaluate((el) => {
        const cs = getComputedStyle(el.nextElementSibling);
        return { disabled: el.disabled, checked: el.checked, bg: cs.backgroundColor, img: cs.backgroundImage, border: cs.borderColor, colour: cs.color, weight: cs.fontWeight, cursor: getComputedStyle(el).cursor };
      });
      const lc = await look('input[name=scope][value=life-cycle]'), op = await look('input[name=scope][value=operational]');
      const active = await look('input[name=metric][value=score]');
      assert.ok(lc.disabled && op.disabled, 'scope buttons disabled for the score');
      assert.ok(lc.checked || op.checked, 'one scope button is the checked one');
      const strip = ({ disabled, checked, ...rest }) => rest;
      assert.deepEqual(strip(lc), strip(op), 'the checked disabled button looks like the unchecked disabled one (not highlighted)');
      assert.match(lc.img, /repeating-linear-gradient/, 'disabled buttons are hatched');
      assert.equal(lc.cursor, 'not-allowed');
      assert.notEqual(lc.border, active.border, 'a disabled button has not the highlight border of an enabled checked one');
      assert.notEqual(lc.bg, active.bg, 'nor its highlight background');
      await page.locator('#scope-set').screenshot({ path: join(shots, 'dashboard-scope-disabled.png') });
    }
    const all = Object.values(colours).map((c) => JSON.stringify(c));
    assert.ok(new Set(all).size >= 4, `switches recolour: ${all.join(' ')}`);
    assert.equal(params(page).metric, 'score');
    assert.equal(params(page).coverage, 'local');
    await page.locator('input[name=metric][value=carbon]').check({ force: true });
    await page.locator('input[name=coverage][value=global]').check({ force: true });
    await page.locator('input[name=scope][value=life-cycle]').check({ force: true });
    await idle(page);

    step('the slider moves through the day (keyboard), time per step');
    await page.locator('#slider').focus();
    await page.keyboard.press('Home');
    await idle(page);
    await page.evaluate(() => { for (const k of ['stepTimes', 'frameTimes', 'pixelTimes']) window.__gridprint[k].length = 0; });
    const labels = new Set();
    const wall = [];
    for (let i = 0; i < 24; i++) {
      const w0 = performance.now();
      await page.keyboard.press('ArrowRight');
      await idle(page);
      wall.push(performance.now() - w0);
      labels.add(await page.locator('#slot-label').innerText());
    }
    assert.equal(Number(params(page).slot), 24, 'slot 24 after 24 steps');
    assert.equal(labels.size, 24, 'the time label changes every step');
    assert.ok([...labels].every((l) => Object.values(KIND_LABEL).some((k) => l.endsWith(k))), `every slot label names its data: ${[...labels].join(' | ')}`);
    const sorted = (a) => a.slice().sort((x, y) => x - y);
    const times = sorted(await page.evaluate(() => window.__gridprint.stepTimes));
    const frames = sorted(await page.evaluate(() => window.__gridprint.frameTimes));
    assert.equal(times.length, 24, 'every step measured');
    figures.stepMedianMs = times[Math.floor(times.length / 2)];
    figures.stepP90Ms = times[Math.floor(times.length * 0.9)];
    figures.stepFrameMedianMs = frames[Math.floor(frames.length / 2)];
    const pixels = sorted(await page.evaluate(() => window.__gridprint.pixelTimes));
    assert.equal(pixels.length, 24, 'every step measured until its pixels');
    figures.stepPixelsMedianMs = pixels[12];
    figures.stepPixelsP90Ms = pixels[Math.floor(pixels.length * 0.9)];
    // Seen from the test driver: key press sent → the map idle, CDP round trips included.
    figures.stepDriverMedianMs = sorted(wall)[Math.floor(wall.length / 2)];
    await page.locator('#slider').fill(String(st.slot));
    await idle(page);

    step('clicking a zone opens the panel with one series per production type present');
    const zone = 'FR';
    const p = await page.evaluate((zz) => window.__gridprint.point(zz), zone);
    await page.mouse.click(mapBox.x + p.x, mapBox.y + p.y);
    const panel = page.locator('#panel');
    await panel.locator('[data-chart="mix"]').waitFor();
    await page.waitForFunction(() => document.querySelector('[data-chart="mix"]')?.dataset.seriesCount != null);
    const date = params(page).date;
    const end = new Date(Date.parse(`${date}T00:00:00Z`) + 86400000).toISOString().replace('.000Z', 'Z');
    const gen = await v1(`generation?zone=${zone}&start=${date}T00:00:00Z&end=${end}`);
    const types = new Set(gen.flatMap((r) => r.series.flatMap((s) => s.production.map((b) => b.production_type))));
    assert.ok(types.size > 0, 'the API reports generation types');
    const mix = panel.locator('[data-chart="mix"]');
    assert.equal(Number(await mix.getAttribute('data-series-count')), types.size);
    assert.deepEqual(new Set((await mix.getAttribute('data-types')).split(',')), types);
    assert.equal(await mix.locator('.key li').count(), types.size, 'one key entry per type');
    assert.equal(params(page).zone, zone);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(shots, 'dashboard-panel.png') });
    step('slider steps with the zone panel open (its charts and cards follow the slot), time per step until its pixels');
    await page.locator('#slider').focus();
    await page.evaluate(() => { window.__gridprint.pixelTimes.length = 0; });
    for (let i = 0; i < 12; i++) { await page.keyboard.press('ArrowRight'); await idle(page); }
    const panelTimes = sorted(await page.evaluate(() => window.__gridprint.pixelTimes));
    assert.equal(panelTimes.length, 12, 'every step with the panel measured');
    figures.stepPanelMedianMs = panelTimes[6];
    figures.stepPanelP90Ms = panelTimes[10];
    await page.locator('#slider').fill(String(st.slot));
    await idle(page);

    step('the CSV download equals the API\'s CSV for the same window');
    await panel.locator('[data-part]').selectOption('footprints:global:life-cycle');
    await page.waitForFunction(() => /part=footprints%3Aglobal%3Alife-cycle/.test(document.querySelector('[data-csv]')?.href ?? ''));
    const [download] = await Promise.all([page.waitForEvent('download'), panel.locator('[data-csv]').click()]);
    const got = readFileSync(await download.path(), 'utf8');
    const d0 = new Date(Date.parse(`${date}T00:00:00Z`) - 6 * 86400000).toISOString().replace('.000Z', 'Z');
    const d1 = new Date(Date.parse(`${date}T00:00:00Z`) + 5 * 86400000).toISOString().replace('.000Z', 'Z');
    const want = await v1(`footprints?zone=${zone}&use_global=true&scope=life-cycle&start=${d0}&end=${d1}`, true);
    assert.ok(want.split('\n').length > 10, 'the API CSV has rows');
    assert.equal(got, want, 'downloaded CSV = /v1 CSV');
    await panel.locator('[data-part]').selectOption('generation');
    await page.waitForFunction(() => /part=generation/.test(document.querySelector('[data-csv]')?.href ?? ''));
    const [dl2] = await Promise.all([page.waitForEvent('download'), panel.locator('[data-csv]').click()]);
    assert.equal(readFileSync(await dl2.path(), 'utf8'), await v1(`generation?zone=${zone}&start=${date}T00:00:00Z&end=${end}`, true));

    step('keyboard: Escape closes the panel, a zone opens from the list with Enter');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    const first = page.locator('#rank button').first();
    await first.focus();
    await page.locator('#tooltip').waitFor({ state: 'visible' });
    const z1 = await first.getAttribute('data-zone');
    await page.keyboard.press('Enter');
    await panel.locator('[data-chart="mix"]').waitFor();
    assert.equal(params(page).zone, z1);
    await page.keyboard.press('Escape');

    step('a day with few zones: no arrow touches a zone without data');
    await page.goto(`${pub}/?date=2017-02-01&slot=40`);
    await waitPainted(page); await idle(page);
    {
      const t = '2017-02-01T10:00:00Z';
      const zones = (await footprintsAt(pub, t, t)).get(t);
      const { want, without } = await expectedArrows(pub, t, zones, polygons);
      assert.ok(without.length > 0, `${t}: flows with a zone without data exist (${without.join(' ')})`);
      const drawn = await drawnArrows(page);
      assert.deepEqual(drawn, want, `${t}: only arrows between zones with data`);
      for (const a of drawn) for (const z of a.split('>')) assert.ok(zones.has(z), `${a}: ${z} has data`);
      console.log(`  ${t}: ${zones.size} zones with data, ${drawn.length} arrows, ${without.length} flows left out`);
      await page.screenshot({ path: join(shots, 'dashboard-few-zones.png') });
    }

    step('state in the URL: a shared link reopens the same view');
    const shared = `${pub}/?date=2017-02-01&slot=40&metric=water&coverage=local&scope=operational&zone=DE&theme=dark`;
    await page.goto(shared);
    await waitPainted(page);
    await panel.locator('[data-chart="hist"]').waitFor();
    assert.equal(await page.locator('input[name=metric]:checked').getAttribute('value'), 'water');
    assert.equal(await page.locator('#slider').inputValue(), '40');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await idle(page);
    await page.screenshot({ path: join(shots, 'dashboard-dark-panel.png') });

    await page.goto(`${pub}/?date=2017-02-01&slot=40&zone=DE&theme=dark`);
    await waitPainted(page);
    await panel.locator('[data-chart="hist"]').waitFor();
    await idle(page);
    await page.screenshot({ path: join(shots, 'dashboard-readme.png') });

    step('themes and widths: screenshots');
    await page.goto(`${pub}/`);
    await waitPainted(page); await idle(page);
    await page.screenshot({ path: join(shots, 'dashboard.png') });
    await page.goto(`${pub}/?theme=dark`); await waitPainted(page); await idle(page);
    await page.screenshot({ path: join(shots, 'dashboard-dark.png') });
    await page.goto(`${pub}/?theme=contrast`); await waitPainted(page); await idle(page);
    await page.screenshot({ path: join(shots, 'dashboard-contrast.png') });
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(`${pub}/`); await waitPainted(page); await idle(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling at 375 px (overflow ${overflow})`);
    await page.screenshot({ path: join(shots, 'dashboard-375.png'), fullPage: true });

    step('the docs page lists every endpoint after its script ran; the token page opens');
    await page.setViewportSize({ width: 1280, height: 800 });
    const spec = await (await fetch(`${pub}/v1/openapi.json`)).json();
    await page.goto(`${pub}/v1/docs`);
    await page.locator('details.op').first().waitFor();
    const listed = await page.locator('details.op summary code').allInnerTexts();
    const paths = Object.keys(spec.paths);
    assert.ok(paths.length >= 15, `${paths.length} paths`);
    assert.deepEqual(paths.filter((pth) => !listed.includes(pth)), [], 'every path of openapi.json is listed');
    await page.screenshot({ path: join(shots, 'docs-page.png') });
    await page.goto(`${pub}/token-request/`);
    await page.getByRole('heading', { level: 1, name: 'gridprint API access' }).waitFor();
    await page.screenshot({ path: join(shots, 'token-request-page.png') });

    assert.deepEqual(problems, [], 'no console errors, CSP violations or external requests');
    await b.close();
  }

  // ---------------------------------------------------------------- a live state, in plain words
  {
    step('live state: provider data, estimates, now and the forecast named in plain words, no raw flag names');
    const b = await browser();
    const { page, problems } = b;
    const meta = await (await fetch(`${live}/dashboard/api/meta`)).json();
    const nowMs = Date.parse(meta.now);
    const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');
    const q = (ms) => Math.floor(ms / 900000) * 900000;
    const [lo, hi] = [q(nowMs) - 24 * 3600000, q(nowMs) + 24 * 3600000];
    const at = await footprintsAt(live, iso(lo), iso(hi));
    const times = [...at.keys()].sort();
    // A (zone, slot) of each kind, from the API's flags as they are: the latest provider data, the
    // latest estimate before now, and a forecast slot ahead; plus the slot "Now" goes to.
    const pick = (kind, pred) => {
      for (const t of pred === 'latest' ? times.filter((x) => Date.parse(x) <= nowMs).reverse() : times.filter((x) => Date.parse(x) > nowMs + 3 * 3600000)) {
        const zs = [...at.get(t)].filter(([, v]) => kindOfStatus(v.status) === kind).map(([z]) => z);
        const z = ['FR', 'DE', 'ES', 'PL', 'AT', 'CZ'].find((c) => zs.includes(c)) ?? zs[0];
        if (z) return { kind, t, zone: z };
      }
      return null;
    };
    const cases = [pick('provider', 'latest'), pick('estimated', 'latest'), pick('forecast', 'ahead')];
    assert.ok(cases.every(Boolean), `the live state holds provider data, estimates and a forecast: ${JSON.stringify(cases)}`);
    const slotOf = (t) => ({ date: t.slice(0, 10), slot: (Date.parse(t) - Date.parse(`${t.slice(0, 10)}T00:00:00Z`)) / 900000 });
    const PAGE_TEXT = ['#controls', '#legend', '#tooltip', '#panel', '#rank', '.legend-key'];
    const check = async (c, label) => {
      // The tooltip (the zone focused in the list) and the zone panel name the kind and finality.
      const z = at.get(c.t).get(c.zone);
      const btn = page.locator(`#rank button[data-zone="${c.zone}"]`);
      await btn.focus();
      const tip = page.locator('#tooltip');
      await tip.waitFor({ state: 'visible' });
      assert.equal(Number(await tip.locator('[data-value]').innerText()), z.v, `${label}: tooltip value`);
      assert.equal(await tip.locator('[data-kind]').innerText(), KIND_LABEL[c.kind], `${label}: tooltip kind`);
      assert.equal(await tip.locator('[data-final]').innerText(), finalLabel(z.valid), `${label}: tooltip finality`);
      assert.ok((await tip.locator('[data-kind]').getAttribute('title')).length > 20, `${label}: the kind explained on hover`);
      await assertNoRawFlags(page, ['#tooltip'], `${label} tooltip`);
      await btn.click();
      const card = page.locator('#panel [data-quality]');
      await card.waitFor();
      assert.equal(await card.locator('[data-kind]').innerText(), KIND_LABEL[c.kind], `${label}: panel kind`);
      assert.ok((await card.locator('[data-kind]').getAttribute('title')).length > 20, `${label}: the panel explains the kind on hover`);
      assert.equal(await card.locator('[data-final]').innerText(), finalLabel(z.valid), `${label}: panel finality`);
      assert.ok((await card.locator('[data-final]').getAttribute('title')).length > 20, `${label}: finality explained on hover`);
      await page.locator('#panel [data-chart="hist"] canvas').first().waitFor();
      await assertNoRawFlags(page, PAGE_TEXT, `${label} page (panel, tooltip, slot label, legend)`);
      await page.screenshot({ path: join(shots, `dashboard-live-${label}.png`) });
      await page.keyboard.press('Escape');
      await page.locator('#panel').waitFor({ state: 'hidden' });
    };
    /** The slot label and the timeline strip name what the data of each slot is (not its time). */
    const checkLabels = async (date, label) => {
      const day = Date.parse(`${date}T00:00:00Z`);
      const want = Array.from({ length: 96 }, (_, i) => dominantKind(at.get(iso(day + i * 900000))));
      const strip = await page.evaluate(() => [...document.querySelectorAll('#strip i')].map((c) => c.className.replace('k-', '')));
      assert.equal(strip.length, 96);
      // Compared over the slots of the window read from the API above.
      const inWindow = (_, i) => day + i * 900000 >= lo && day + i * 900000 < hi;
      assert.deepEqual(strip.filter(inWindow), want.filter(inWindow), `${label}: the strip marks each slot by its data`);
      const slot = Number(params(page).slot);
      const badge = page.locator('#slot-label [data-kind]');
      assert.equal(await badge.count(), 1, `${label}: one label for the slot`);
      assert.equal(await badge.getAttribute('data-kind'), want[slot], `${label}: the slot label from the slot's data`);
      assert.ok((await badge.getAttribute('title')).length > 20, `${label}: the slot label explained on hover`);
      return { slot, want };
    };
    for (const c of cases) {
      const { date, slot } = slotOf(c.t);
      await page.goto(`${live}/?date=${date}&slot=${slot}`);
      await waitPainted(page); await idle(page);
      await checkLabels(date, c.kind);
      await check(c, c.kind);
    }
    step('live state: "Now", and the slots around it labelled by their data');
    await page.locator('#now-btn').click();
    await page.waitForFunction((d) => new URLSearchParams(location.search).get('date') === d, meta.now.slice(0, 10));
    await idle(page);
    const nowDate = params(page).date;
    const { slot: nowSlot } = await checkLabels(nowDate, 'now');
    const nowT = iso(Date.parse(`${nowDate}T00:00:00Z`) + nowSlot * 900000);
    const nowZones = at.get(nowT);
    assert.ok(nowZones?.size, `data at the slot "Now" goes to (${nowT})`);
    const nowZone = ['FR', 'DE', 'ES', 'PL'].find((z) => nowZones.has(z)) ?? [...nowZones.keys()][0];
    await check({ kind: kindOfStatus(nowZones.get(nowZone).status), t: nowT, zone: nowZone }, 'now');
    {
      step('live state: the forecast\'s typical error, a band on the forecast and the figures in plain words');
      // The archive synth_recent wrote is 10 % high: the worker measured a MAPE of 10 % wherever
      // its final slots are complete (the truth; the synthetic state repairs the others' flows).
      const all = await (await fetch(`${live}/v1/forecast-accuracy`, { headers: { Authorization: `Bearer ${tokens[live]}` } })).json();
      const measured = all.filter((a) => a.window_days === 30 && a.horizon_from_hours === 0 && a.enough_data);
      assert.ok(measured.length > 0, 'some zone has enough forecasts compared');
      for (const a of measured) assert.ok(Math.abs(a.mape_percent - 10) < 0.05, `the known error comes out in ${a.zone}: ${a.mape_percent}`);
      const day = measured[0];
      const accZone = day.zone;
      await page.locator(`#rank button[data-zone="${accZone}"]`).click();
      const words = page.locator('#panel [data-accuracy]');
      await words.waitFor();
      await page.locator('#panel [data-chart="hist"] canvas').first().waitFor();
      const text = await words.innerText();
      assert.match(text, /^How far off the forecast has been \(the \d+ forecasts of the last 30 days/, text);
      assert.ok(text.includes(`the next 24 h typically ±${day.mae.toFixed(1)} gCO2/kWh (${day.mape_percent.toFixed(1)} %)`), text);
      assert.ok(text.includes('shaded band'), text);
      const banded = Number(await page.locator('#panel [data-chart="hist"]').getAttribute('data-error-band'));
      assert.ok(banded > 0, `the band covers forecast slots: ${banded}`);
      await assertNoRawFlags(page, PAGE_TEXT, 'accuracy');
      await page.screenshot({ path: join(shots, 'dashboard-live-accuracy.png') });
      console.log(`  ${accZone}: ${text}`);
      await page.keyboard.press('Escape');
      await page.locator('#panel').waitFor({ state: 'hidden' });
    }
    const seen = new Set();
    await page.locator('#slider').focus();
    for (let i = Math.max(0, nowSlot - 4); i <= Math.min(95, nowSlot + 4); i++) {
      await page.locator('#slider').fill(String(i));
      await idle(page);
      seen.add((await checkLabels(nowDate, `slot ${i}`)).want[i]);
      await assertNoRawFlags(page, ['#controls', '#legend'], `slot ${i}`);
    }
    console.log(`  slots around now (${nowT}) labelled: ${[...seen].join(', ')}`);
    {
      const zones = new Map([...nowZones].filter(([, v]) => v.v != null));
      const { want, without } = await expectedArrows(live, nowT, zones, polygons);
      await page.locator('#slider').fill(String(nowSlot));
      await idle(page);
      assert.deepEqual(await drawnArrows(page), want, `${nowT}: one arrow per net flow between zones with data`);
      console.log(`  ${nowT}: ${want.length} arrows, ${without.length} flows left out (a zone without data)`);
    }
    await page.screenshot({ path: join(shots, 'dashboard-live-now.png') });
    assert.deepEqual(problems, [], 'no console errors in the live state');
    await b.close();
  }

  // ---------------------------------------------------------------- login mode
  {
    step('--dashboard login: asks for email and password, then reads /v1 with the token');
    const b = await browser();
    const { page, problems } = b;
    const v1Calls = [];
    page.on('response', (r) => { if (r.url().includes('/v1/')) v1Calls.push(r.status()); });
    await page.goto(`${login}/`);
    const form = page.locator('#login');
    await form.waitFor();
    assert.equal((await fetch(`${login}/dashboard/api/day?date=2017-02-01`)).status, 404, 'no public data routes in login mode');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill(password);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await form.waitFor({ state: 'hidden' });
    await page.waitForFunction(() => document.querySelectorAll('#rank button').length > 0);
    assert.ok(v1Calls.length >= 9 && v1Calls.every((s) => s === 200), `the page read /v1 (${v1Calls.length} answers)`);
    await idle(page);
    await page.screenshot({ path: join(shots, 'dashboard-login.png') });
    // A plain `serve` of the demo's database is no replaying demo: no note.
    assert.ok(!(await page.locator('#demo-note').isVisible()), 'no demo note without serve --demo');
    assert.deepEqual(problems, [], 'no console errors in login mode');
    await b.close();
  }

  // ---------------------------------------------------------------- off mode
  {
    step('--dashboard off: / is the links page, no dashboard routes');
    const r = await fetch(`${off}/`);
    assert.equal(r.status, 200);
    const html = await r.text();
    assert.match(html, /href="\/v1\/docs"/);
    assert.doesNotMatch(html, /gridprint-dashboard/);
    for (const p of ['/dashboard/api/meta', '/dashboard/api/day?date=2017-02-01', '/dashboard/static/app.js']) {
      assert.equal((await fetch(`${off}${p}`)).status, 404, p);
    }
  }

  // ---------------------------------------------------------------- limits of the public routes
  {
    step('public routes refuse wider windows and other parameters');
    for (const q of ['day?date=2017-02-01&end=2017-03-01', 'day?date=2017-02-01&format=csv', 'day?start=2017-01-01&end=2017-02-01',
      'zone?zone=FR,DE&date=2017-02-01', 'zone?zone=&date=2017-02-01', 'csv?zone=FR&date=2017-02-01&part=footprints:global:life-cycle&days=30',
      'day?date=2017-02-01&date=2017-02-02', 'day?date=2017-02']) {
      const r = await fetch(`${pub}/dashboard/api/${q}`);
      assert.equal(r.status, 400, q);
      assert.ok((await r.json()).detail, `${q}: a detail`);
    }
    step('public routes answer 429 past the per-address limit');
    let first429 = null;
    for (let i = 0; i < 200 && first429 === null; i++) {
      const r = await fetch(`${pub}/dashboard/api/day?date=2017-02-01`);
      if (r.status === 429) first429 = { i, retry: r.headers.get('retry-after') };
      else assert.equal(r.status, 200);
    }
    assert.ok(first429, 'a 429 within 200 requests');
    assert.ok(Number(first429.retry) >= 1, 'Retry-After');
    console.log(`  429 after ${first429.i} quick requests (Retry-After ${first429.retry} s)`);
  }

  console.log(`MEASURED painted_map_ms=${figures.paintedMs.toFixed(0)} first_visit_bytes=${figures.firstVisitBytes} first_visit_requests=${figures.firstVisitRequests} cdp_page_bytes=${figures.firstVisitBytesCdpPageOnly} slider_step_median_ms=${figures.stepMedianMs.toFixed(1)} slider_step_p90_ms=${figures.stepP90Ms.toFixed(1)} slider_step_first_frame_median_ms=${figures.stepFrameMedianMs.toFixed(1)} slider_step_pixels_median_ms=${figures.stepPixelsMedianMs.toFixed(1)} slider_step_pixels_p90_ms=${figures.stepPixelsP90Ms.toFixed(1)} slider_step_driver_median_ms=${figures.stepDriverMedianMs.toFixed(1)} slider_step_panel_open_median_ms=${figures.stepPanelMedianMs.toFixed(1)} slider_step_panel_open_p90_ms=${figures.stepPanelP90Ms.toFixed(1)}`);
  writeFileSync(join(shots, 'dashboard-figures.json'), JSON.stringify(figures, null, 2));
  console.log('dashboard test passed');
} catch (e) {
  failed = true;
  console.error('dashboard test FAILED:', e?.stack ?? e);
}
process.exit(failed ? 1 : 0);
