// Measures first visits of the dashboard on a cold browser cache, the way dashboard.mjs measures its
// one: a fresh Chromium profile per visit, the cache disabled, navigation → `window.__gridprint.painted`
// (the map idle with the day's colours drawn). Prints each visit, then the median, and with
// `--detail` each visit's resource timeline (request start → response end, ms from navigation).
//
// Usage: node paint.mjs URL [URL…] [--runs=7] [--detail]   (`gridprint serve --demo` at each URL)
// With several URLs (e.g. two builds of the page) the visits alternate between them, so that a
// change of the machine's load during the measurement affects each alike.
// Env: CHROMIUM (default /usr/bin/chromium).
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const detail = args.includes('--detail');
const urls = args.filter((a) => !a.startsWith('--'));
const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 7);
if (!urls.length || !urls.every((u) => /^https?:\/\//.test(u)) || !(runs > 0)) {
  console.error('usage: node paint.mjs URL [URL…] [--runs=N] [--detail]');
  process.exit(2);
}
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

const median = (a) => { const s = a.slice().sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const painted = urls.map(() => []), bytes = urls.map(() => []);
for (let i = 0; i < runs * urls.length; i++) {
  const u = i % urls.length, url = urls[u];
  const dir = mkdtempSync(join(tmpdir(), 'gridprint-paint-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS,
    viewport: { width: 1280, height: 800 }, timeout: 60_000,
  });
  try {
    await context.addInitScript(() => { window.__gridprintTest = true; });
    const page = context.pages()[0] ?? (await context.newPage());
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(`${url.replace(/\/+$/, '')}/`);
    await page.waitForFunction(() => window.__gridprint?.painted != null, null, { timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    const r = await page.evaluate(() => {
      const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
      return {
        painted: window.__gridprint.painted,
        marks: window.__gridprint.marks ?? {},
        bytes: all.reduce((n, e) => n + e.transferSize, 0),
        count: all.length,
        timeline: all.map((e) => ({ name: e.name.replace(location.origin, ''), start: e.startTime, end: e.responseEnd, size: e.transferSize })),
      };
    });
    painted[u].push(r.painted); bytes[u].push(r.bytes);
    console.log(`${url} visit ${Math.floor(i / urls.length) + 1}: painted ${r.painted.toFixed(0)} ms, ${r.bytes} bytes in ${r.count} requests`);
    if (detail) {
      for (const e of r.timeline) console.log(`  ${e.start.toFixed(0).padStart(5)} → ${e.end.toFixed(0).padStart(5)}  ${String(e.size).padStart(7)}  ${e.name}`);
      for (const [k, v] of Object.entries(r.marks)) console.log(`  mark ${k}: ${v.toFixed(0)}`);
    }
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
urls.forEach((url, u) => console.log(`MEDIAN ${url} painted_map_ms=${median(painted[u]).toFixed(0)} over ${runs} cold visits (min ${Math.min(...painted[u]).toFixed(0)}, max ${Math.max(...painted[u]).toFixed(0)}); first_visit_bytes=${median(bytes[u])}`));
