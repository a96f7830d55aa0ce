// Drives the dashboard of running `gridprint serve` processes (demo data) in real headless Chromium:
// the map, tooltip, switches, slider, zone panel, CSV download, keyboard, themes and widths; the
// docs page; `--dashboard login` and `off`; the public routes' limits. Saves screenshots and prints
// measured figures (painted map on a cold cache, bytes of a first visit, time per slider step).
//
// Usage: node dashboard.mjs PUBLIC_URL LOGIN_URL OFF_URL EMAIL PASSWORD
// The email must be registered with that password on the servers' database.
// Env: CHROMIUM (default /usr/bin/chromium), SCREENSHOT_DIR (default ./out).

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const [pub, login, off, email, password] = process.argv.slice(2).map((s) => s?.replace(/\/+$/, ''));
if (![pub, login, off].every((u) => /^https?:\/\//.test(u ?? '')) || !email || !password) {
  console.error('usage: node dashboard.mjs PUBLIC_URL LOGIN_URL OFF_URL EMAIL PASSWORD');
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

const token = await (async () => {
  const r = await fetch(`${pub}/token-request/get_token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) });
  assert.equal(r.status, 200, 'token for the API comparisons');
  return (await r.json()).access_token;
})();
const v1 = async (path, csv = false) => {
  const r = await fetch(`${pub}/v1/${path}${csv ? '&format=csv' : ''}`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(r.status, 200, path);
  return csv ? r.text() : r.json();
};
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
  {
    step('first visit on a cold cache: opens on the most recent well-covered slot, paints the map');
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
    // On the demo data that is 2017-02-02 00:00 UTC: the 2017 file library extract holds 2017-02-01
    // for 5 zones only, and most zones only at its last timestamp, 2017-02-02T00:00Z.
    const zonesAt = new Map();
    for (const r of await v1('footprints?zone=&footprint_type=carbon&start=2017-01-31T00:00:00Z&end=2017-02-03T00:00:00Z')) {
      for (const s of r.series) for (const [t] of s.values) zonesAt.set(t, (zonesAt.get(t) ?? 0) + 1);
    }
    const best = Math.max(...zonesAt.values());
    assert.equal(zonesAt.get(meta.opening_slot), best, 'no slot of the 2017 demo days has more zones than the opening one');
    assert.equal(meta.opening_slot, '2017-02-02T00:00:00Z');
    assert.equal(st.date, '2017-02-02');
    assert.equal(st.slot, '0');
    console.log(`  opened on ${meta.opening_slot} (${st.date} slot ${st.slot}, ${best} zones; 2017-02-01 23:45 has ${zonesAt.get('2017-02-01T23:45:00Z')})`);

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
      assert.equal(await tip.locator('[data-status]').innerText(), s.zone_status);
      assert.equal(await tip.locator('[data-valid]').innerText(), String(s.valid));
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
    await page.evaluate(() => { window.__gridprint.stepTimes.length = 0; window.__gridprint.frameTimes.length = 0; });
    const labels = new Set();
    for (let i = 0; i < 24; i++) {
      await page.keyboard.press('ArrowRight');
      await idle(page);
      labels.add(await page.locator('#slot-label').innerText());
    }
    assert.equal(Number(params(page).slot), 24, 'slot 24 after 24 steps');
    assert.equal(labels.size, 24, 'the time label changes every step');
    const sorted = (a) => a.slice().sort((x, y) => x - y);
    const times = sorted(await page.evaluate(() => window.__gridprint.stepTimes));
    const frames = sorted(await page.evaluate(() => window.__gridprint.frameTimes));
    assert.equal(times.length, 24, 'every step measured');
    figures.stepMedianMs = times[Math.floor(times.length / 2)];
    figures.stepP90Ms = times[Math.floor(times.length * 0.9)];
    figures.stepFrameMedianMs = frames[Math.floor(frames.length / 2)];
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

  console.log(`MEASURED painted_map_ms=${figures.paintedMs.toFixed(0)} first_visit_bytes=${figures.firstVisitBytes} first_visit_requests=${figures.firstVisitRequests} cdp_page_bytes=${figures.firstVisitBytesCdpPageOnly} slider_step_median_ms=${figures.stepMedianMs.toFixed(1)} slider_step_p90_ms=${figures.stepP90Ms.toFixed(1)} slider_step_first_frame_median_ms=${figures.stepFrameMedianMs.toFixed(1)}`);
  writeFileSync(join(shots, 'dashboard-figures.json'), JSON.stringify(figures, null, 2));
  console.log('dashboard test passed');
} catch (e) {
  failed = true;
  console.error('dashboard test FAILED:', e?.stack ?? e);
}
process.exit(failed ? 1 : 0);
