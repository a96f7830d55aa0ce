// Drives the token page of a running `gridprint serve` in real headless Chromium, the way a person
// would: register through the labelled form, get a token by keyboard, read it off the page, then call
// the data API with it. Exits non-zero on any failure.
//
// Usage: node token_page.mjs http://127.0.0.1:PORT [email] [code]
// The email must already be granted (`gridprint access grant EMAIL`, which printed `code`) and not
// yet registered.
// Env: CHROMIUM (default /usr/bin/chromium), SCREENSHOT_DIR (default ./out).

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const base = (process.argv[2] ?? '').replace(/\/+$/, '');
const email = process.argv[3] ?? 'browser@example.org';
const code = process.argv[4] ?? '';
const password = 'a long browser-test password';
if (!/^https?:\/\//.test(base)) {
  console.error('usage: node token_page.mjs http://127.0.0.1:PORT [email] [code]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const shots = process.env.SCREENSHOT_DIR ?? join(here, 'out');
mkdirSync(shots, { recursive: true });

const userDataDir = mkdtempSync(join(tmpdir(), 'gridprint-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
  timeout: 60_000,
});

const problems = [];
let failed = false;
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  // Console errors include CSP violations: the page must work under its own policy.
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(base)) problems.push(`external request: ${r.url()}`);
  });

  const step = (name) => console.log(`- ${name}`);

  step('open the page');
  const resp = await page.goto(`${base}/token-request/`);
  assert.equal(resp.status(), 200);
  const csp = resp.headers()['content-security-policy'] ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.equal(resp.headers()['x-content-type-options'], 'nosniff');
  assert.match(await page.title(), /gridprint API access/);
  await page.getByRole('heading', { level: 1, name: 'gridprint API access' }).waitFor();

  step('register through the labelled form, submitting with Enter');
  const reg = page.getByRole('group', { name: 'Register your email and choose a password' });
  await reg.getByLabel('Email').fill(email);
  await reg.getByLabel('Password').fill(password);
  await reg.getByLabel('Registration code').fill(code);
  await Promise.all([page.waitForURL('**/token-request/register'), reg.getByLabel('Registration code').press('Enter')]);
  const registered = page.getByRole('status').filter({ hasText: 'Registered' });
  await registered.waitFor();
  assert.match(await registered.innerText(), new RegExp(`${email.replace(/[.]/g, '\\.')} is registered`));
  assert.match(await page.title(), /^Registered/);

  step('a wrong password shows a readable error in the alert region');
  const tok = page.getByRole('group', { name: 'Get a token with your email and password' });
  assert.equal(await tok.getByLabel('Email').inputValue(), email, 'email carried over');
  await tok.getByLabel('Password').fill('not the password at all');
  await Promise.all([page.waitForURL('**/token-request/get_token'), tok.getByLabel('Password').press('Enter')]);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /invalid email or password/);
  assert.match(await page.title(), /^Error: /);
  // The script moves focus to the message so keyboard and screen-reader users land on it.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'message');
  assert.equal(await page.getByLabel(/Access token/).count(), 0);

  step('get a token using only the keyboard (Tab to the button, Enter)');
  await tok.getByLabel('Email').fill(email);
  await tok.getByLabel('Password').fill(password);
  await tok.getByLabel('Password').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Get token');
  await Promise.all([page.waitForURL('**/token-request/get_token'), page.keyboard.press('Enter')]);
  await page.getByRole('status').filter({ hasText: 'Token issued' }).waitFor();

  step('read the token from the page');
  const field = page.getByLabel(/Access token/);
  const token = await field.inputValue();
  assert.match(token, /^[0-9a-f]{64}$/, 'token shape');
  assert.equal(await field.getAttribute('readonly'), '');

  step('the copy button (same-origin script under the CSP) copies it');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const copy = page.getByRole('button', { name: 'Copy token' });
  assert.ok(await copy.isVisible(), 'copy button shown by page.js');
  await copy.click();
  const copyStatus = page.locator('#copy-status');
  await page.waitForFunction(() => document.getElementById('copy-status')?.textContent !== '');
  const copied = await copyStatus.innerText();
  if (copied.startsWith('Copied')) {
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
  } else {
    // Clipboard refused in this environment: the fallback selects the field for Ctrl+C.
    assert.match(copied, /selected/);
  }
  await page.screenshot({ path: join(shots, 'token-page.png'), fullPage: true });

  step('call the data API with the token');
  const zones = await fetch(`${base}/v1/zones`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(zones.status, 200);
  const list = await zones.json();
  assert.ok(Array.isArray(list) && list.length > 0, 'non-empty zone list');
  assert.ok(list.every((z) => typeof z.zone === 'string' && Array.isArray(z.neighbours)));
  const anonymous = await fetch(`${base}/v1/zones`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
  console.log(`  /v1/zones answered ${list.length} zones`);

  step('create an API key with the third form, read it off the page, use it');
  const keys = page.getByRole('group', { name: 'Manage your API keys with your email and password' });
  await keys.getByLabel('Email').fill(email);
  await keys.getByLabel('Password').fill(password);
  await keys.getByLabel(/Name of a new key/).fill('browser test');
  await Promise.all([page.waitForURL('**/token-request/api-key'), keys.getByRole('button', { name: 'Create key' }).click()]);
  await page.getByRole('status').filter({ hasText: 'API key created' }).waitFor();
  const keyField = page.getByLabel(/API key \d+ “browser test”/);
  const key = await keyField.inputValue();
  assert.match(key, /^[0-9a-f]{64}$/, 'key shape');
  assert.ok(await page.getByRole('button', { name: 'Copy API key' }).isVisible(), 'copy button for the key');
  await page.screenshot({ path: join(shots, 'token-page-key.png'), fullPage: true });
  const byKey = await fetch(`${base}/v1/zones`, { headers: { Authorization: `Bearer ${key}` } });
  assert.equal(byKey.status, 200, 'the key works as a Bearer token');

  step('list the keys: a table with the name, never the key');
  await keys.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL('**/token-request/api-key'), keys.getByRole('button', { name: 'List my keys' }).click()]);
  const table = page.getByRole('table');
  await table.waitFor();
  const cells = await table.getByRole('cell').allInnerTexts();
  assert.ok(cells.includes('browser test'), `key listed: ${cells}`);
  assert.ok(!(await page.content()).includes(key), 'the list never shows the key');
  const id = cells[0];
  await page.screenshot({ path: join(shots, 'token-page-key-list.png'), fullPage: true });

  step('revoke it by id');
  await keys.getByLabel('Password').fill(password);
  await keys.getByLabel(/Id of the key to revoke/).fill(id);
  await Promise.all([page.waitForURL('**/token-request/api-key'), keys.getByRole('button', { name: 'Revoke key' }).click()]);
  await page.getByRole('status').filter({ hasText: `API key ${id} is revoked` }).waitFor();

  // The deliberate wrong-password post above logs a 401 resource error in the console; anything
  // else (CSP violations, script errors, external requests) is a failure.
  const unexpected = problems.filter(
    (p) => !/status of 401/.test(p) && p !== `HTTP 401: ${base}/token-request/get_token`,
  );
  assert.deepEqual(unexpected, [], 'no console errors, CSP violations or external requests');
  console.log('token page test passed');
} catch (e) {
  failed = true;
  console.error('token page test FAILED:', e?.stack ?? e);
  if (problems.length) console.error('browser problems:\n  ' + problems.join('\n  '));
  try {
    const page = context.pages()[0];
    if (page) await page.screenshot({ path: join(shots, 'failure.png'), fullPage: true });
  } catch { /* best effort */ }
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
