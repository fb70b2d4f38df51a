// Browser tests of the explorer (/) and the API reference (/api/public/docs).
//
// Starts `flagpole serve --demo` on a fresh SQLite file and a free port (go
// run from the repository root), reads the printed key, then drives Debian's
// chromium (/usr/bin/chromium, never a downloaded browser) headless through
// playwright-core: welcome, key, list with every filter and paging, search
// in Turkish, a flag with its trend chart, the language switch, the 401 and
// 429 messages, and the docs page with every endpoint and a "try it". Every
// step writes screenshots/NN-step.png. Any console error, page error, failed
// asset or request to another host fails the run. Exit status 0 when all
// passed.
//
//   cd httpapi/ui/e2e && npm ci && node run.mjs
//
// Environment: CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1 keeps the
// temporary directory, E2E_HEADED=1 shows the browser.
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, mkdir, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const shotDir = path.join(here, 'screenshots');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ENDPOINTS = [
  '/api/public/flags',
  '/api/public/flag/{slug}',
  '/api/public/flag/{slug}/trend',
  '/api/public/categories',
  '/api/public/regions',
  '/api/public/stats',
  '/api/public/search',
];

const log = (...a) => console.log('[e2e]', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Failure extends Error {}
function check(cond, msg) {
  if (!cond) throw new Failure(msg);
}

async function waitFor(what, f, timeoutMs, everyMs = 250) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Failure(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(everyMs);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// ---------- the server ----------

// cleanEnv is this process's environment without FLAGPOLE_* settings, so
// the server runs with the defaults whatever the shell has set.
function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FLAGPOLE_')));
}

async function startServer(tmp) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const db = `sqlite:${path.join(tmp, 'e2e.db')}`;
  log(`starting: go run ./cmd/flagpole serve --demo --db ${db} --addr 127.0.0.1:${port}`);
  const child = spawn('go', ['run', './cmd/flagpole', 'serve', '--demo', '--db', db, '--addr', `127.0.0.1:${port}`], {
    cwd: repo, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv(),
  });
  const srv = { child, base, db, out: '', err: '', exited: null };
  child.stdout.on('data', (d) => { srv.out += d; });
  child.stderr.on('data', (d) => { srv.err += d; });
  child.on('exit', (code, sig) => { srv.exited = sig || String(code); });
  srv.stop = async () => {
    if (srv.exited !== null) return;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
    for (let i = 0; i < 50 && srv.exited === null; i++) await sleep(100);
    if (srv.exited === null) try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  };
  const fail = () => {
    if (srv.exited !== null) throw new Failure(`server exited (${srv.exited}):\n${srv.err.slice(-2000)}`);
  };
  srv.key = await waitFor('the demo key on standard output', () => {
    fail();
    return srv.out.match(/\bgrf_[A-Za-z0-9]{32}\b/)?.[0];
  }, 300_000);
  await waitFor('/readyz to answer 200', async () => {
    fail();
    try { return (await fetch(base + '/readyz')).ok; } catch { return false; }
  }, 60_000);
  log(`server ready at ${base}`);
  return srv;
}

// newKey makes a key with its own per-minute limit and waits until the
// server knows it (one counted request).
async function newKey(srv, name, limit) {
  const { stdout } = await promisify(execFile)('go',
    ['run', './cmd/flagpole', 'keys', 'create', '--db', srv.db, '--name', name, '--limit', String(limit)],
    { cwd: repo, env: cleanEnv() });
  const key = stdout.trim().split('\n').pop().trim();
  check(/^grf_[A-Za-z0-9]{32}$/.test(key), `keys create printed ${JSON.stringify(stdout)}`);
  await waitFor(`key ${name} to be loaded`, async () => {
    const r = await fetch(srv.base + '/api/public/categories', { headers: { Authorization: 'Bearer ' + key } });
    return r.status !== 401;
  }, 30_000, 500);
  return key;
}

// ---------- the run ----------

async function main() {
  await mkdir(shotDir, { recursive: true });
  for (const f of await readdir(shotDir)) if (f.endsWith('.png')) await rm(path.join(shotDir, f));
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'flagpole-e2e-'));
  let srv = null;
  let context = null;
  const problems = [];
  let failed = false;
  const cleanup = async () => {
    if (context) await context.close().catch(() => {});
    if (srv) await srv.stop();
    if (!process.env.E2E_KEEP) await rm(tmp, { recursive: true, force: true });
  };
  process.on('SIGINT', () => { cleanup().finally(() => process.exit(130)); });

  try {
    srv = await startServer(tmp);
    const base = srv.base;
    const host = new URL(base).host;
    context = await chromium.launchPersistentContext(path.join(tmp, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: !process.env.E2E_HEADED,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'].filter(
        (a) => a !== '--headless' || !process.env.E2E_HEADED),
      viewport: { width: 1360, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
    });
    log(`browser: ${CHROMIUM} ${context.browser()?.version() ?? ''}`.trim());
    const page = context.pages()[0] || await context.newPage();
    page.setDefaultTimeout(20_000);

    // Everything the page says that is wrong, with the step it happened in.
    let stepName = '';
    let allowed = null; // a RegExp of console errors a step expects (401, 429)
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      if (allowed && allowed.test(msg.text())) return;
      problems.push(`${stepName}: console error: ${msg.text()} (${msg.location()?.url || ''})`);
    });
    page.on('pageerror', (err) => problems.push(`${stepName}: page error: ${err.message}`));
    page.on('request', (req) => {
      const u = new URL(req.url());
      if ((u.protocol === 'http:' || u.protocol === 'https:') && u.host !== host) {
        problems.push(`${stepName}: request to another host: ${req.url()}`);
      }
    });
    page.on('requestfailed', (req) => {
      const why = req.failure()?.errorText || '';
      if (!why.includes('ERR_ABORTED')) problems.push(`${stepName}: request failed: ${req.url()} ${why}`);
    });
    page.on('response', (res) => {
      const u = new URL(res.url());
      if (u.host === host && !u.pathname.startsWith('/api/public/') && res.status() >= 400) {
        problems.push(`${stepName}: ${res.status()} for ${res.url()}`);
      }
    });

    let n = 0;
    const step = async (name, f, opts = {}) => {
      n += 1;
      stepName = `${String(n).padStart(2, '0')}-${name}`;
      allowed = opts.allow || null;
      const before = problems.length;
      const t0 = Date.now();
      try {
        await f();
        await page.screenshot({ path: path.join(shotDir, stepName + '.png'), fullPage: !!opts.fullPage, timeout: 60_000 });
        check(problems.length === before, problems.slice(before).join('\n'));
        log(`ok   ${stepName} (${Date.now() - t0} ms)`);
      } catch (err) {
        await page.screenshot({ path: path.join(shotDir, stepName + '-FAILED.png'), fullPage: true, timeout: 60_000 }).catch(() => {});
        log(`FAIL ${stepName}: ${err.message}`);
        throw err;
      } finally {
        allowed = null;
      }
    };
    const text = (sel) => page.locator(sel).first().innerText();
    const count = (sel) => page.locator(sel).count();
    const settled = () => page.waitForFunction(() => {
      const l = document.querySelector('#flags');
      return l && !l.classList.contains('loading') && l.children.length > 0;
    });
    const api = (part, f) => page.waitForResponse((r) => r.url().includes('/api/public/' + part) && (!f || f(r.url())));
    const items = () => page.$$eval('#flags li.flag', (lis) => lis.map((li) => ({
      slug: li.dataset.slug, dominant: li.dataset.dominant,
      text: li.querySelector('.flag-text').textContent,
      chips: [...li.querySelectorAll('.chip')].map((c) => c.textContent),
    })));

    await step('welcome', async () => {
      await page.goto(base + '/');
      await page.waitForSelector('#notice[data-kind="nokey"]');
      check((await text('#notice')).includes('API key'), 'the missing-key message is shown');
      await page.waitForSelector('.welcome #key-input');
      check(/Red flag or green flag/.test(await text('#welcome-title')), 'the welcome title is shown');
    });

    await step('list', async () => {
      await page.fill('#key-input', srv.key);
      await Promise.all([api('flags'), api('stats'), page.click('#key-submit')]);
      await settled();
      check(await count('#flags li.flag') === 20, 'the first page has 20 flags');
      await page.waitForSelector('#stat-flags');
      const total = Number((await text('#stat-flags')).replace(/\D/g, ''));
      // The demo seeds one approved flag per statement.
      check(total === 640, `the glance shows the 640 demo flags (${total})`);
      check(await count('#categories li') === 8, 'eight categories');
      check(await count('#regions li') >= 5, 'the regions');
      check(await page.evaluate(() => localStorage.getItem('flagpole.key')) === srv.key, 'the key is kept in localStorage');
      check(await page.locator('#notice').isHidden(), 'no notice once the key works');
      check(/\d/.test(await text('#quota')), 'the remaining quota is shown');
      const first = (await items())[0];
      check(first.dominant === 'green', 'the default sort (net asc) starts with a green flag');
    });

    await step('filters', async () => {
      await Promise.all([api('flags', (u) => u.includes('sort=controversial')), page.selectOption('#sort', 'controversial')]);
      await settled();
      check((await text('#summary')).includes('most divided'), 'the sort is named in the summary');
      await Promise.all([api('flags', (u) => u.includes('order=asc')), page.selectOption('#order', 'asc')]);
      await settled();
      await Promise.all([api('flags', (u) => u.includes('sort=net') || !u.includes('sort=')), page.selectOption('#sort', 'net')]);
      await settled();
      await Promise.all([api('flags', (u) => u.includes('order=desc')), page.selectOption('#order', 'desc')]);
      await settled();
      check((await items())[0].dominant === 'red', 'net desc starts with a red flag');
      await Promise.all([api('flags', (u) => u.includes('category=social')), page.selectOption('#category', 'social')]);
      await settled();
      await Promise.all([api('flags', (u) => u.includes('region=tr')), page.selectOption('#region', 'tr')]);
      await settled();
      await Promise.all([api('flags', (u) => u.includes('dominant=red')), page.click('#dominant [data-value="red"]')]);
      await settled();
      const list = await items();
      check(list.length > 0, 'the filtered list has flags');
      for (const it of list) {
        check(it.dominant === 'red', `${it.slug} is red`);
        check(it.chips.some((c) => c === 'Social'), `${it.slug} is in Social: ${it.chips}`);
        check(it.chips.some((c) => c.includes('TR')), `${it.slug} is in TR: ${it.chips}`);
      }
      check(/#\/\?.*category=social/.test(page.url()), 'the filters are in the URL');
      check(await page.locator('#categories .count-row.active').count() === 1, 'the category is marked in the glance panel');
    });

    await step('paging', async () => {
      await Promise.all([api('flags', (u) => u.includes('sort=total')), page.evaluate(() => { location.hash = '#/?sort=total&limit=10'; })]);
      await settled();
      const page1 = await items();
      await Promise.all([api('flags', (u) => u.includes('offset=10')), page.click('#next')]);
      await settled();
      const page2 = await items();
      check(page2.length === 10, 'the second page has 10 flags');
      check(!page2.some((a) => page1.some((b) => b.slug === a.slug)), 'pages do not overlap');
      check(/^11–20 of /.test(await text('#summary')), `the range is 11–20: ${await text('#summary')}`);
      check(await page.locator('#prev').isEnabled(), 'previous is enabled on page 2');
    });

    let searchCalls = 0;
    await step('search', async () => {
      await Promise.all([api('flags'), page.evaluate(() => { location.hash = '#/'; })]);
      await settled();
      const onReq = (req) => { if (req.url().includes('/api/public/search')) searchCalls += 1; };
      page.on('request', onReq);
      await page.click('#q');
      const done = api('search', (u) => decodeURIComponent(u).includes('q=yaşlı'));
      await page.keyboard.type('yaşlı', { delay: 60 });
      await done;
      await page.waitForSelector('#summary[data-mode="search"]');
      await settled();
      page.off('request', onReq);
      check(searchCalls <= 2, `typing is debounced (${searchCalls} search requests for 5 letters)`);
      const list = await items();
      check(list.length > 0, 'the Turkish query finds flags');
      check(list.some((it) => /elderly/i.test(it.text)), 'the results include the flag about the elderly');
      check((await text('#summary')).includes('yaşlı'), 'the summary names the query');
      check(await page.locator('#filters.off').count() === 1, 'filters are marked as not applying to search');
    });

    let titleEn = '';
    await step('flag', async () => {
      await Promise.all([api('flag/', (u) => u.includes('/trend')), page.click('#flags li.flag a')]);
      await page.waitForSelector('#chart canvas');
      await page.waitForFunction(() => Number(document.querySelector('#chart')?.dataset.points) > 0);
      titleEn = await text('#flag-title');
      check(titleEn.length > 0, 'the flag title is shown');
      check(await count('.flag-page .badge') === 1, 'the dominant badge is shown');
      const pts30 = Number(await page.getAttribute('#chart', 'data-points'));
      check(pts30 > 0 && pts30 <= 30, `30 days give 1..30 points (${pts30})`);
      const legend = await page.$$eval('#chart .u-legend .u-series .u-label', (els) => els.map((e) => e.textContent));
      check(['Red', 'Green', 'Net'].every((l) => legend.includes(l)), `the legend names red, green and net: ${legend}`);
      await Promise.all([api('flag/', (u) => u.includes('days=90')), page.click('#days [data-days="90"]')]);
      await page.waitForFunction((n) => Number(document.querySelector('#chart')?.dataset.points) > n, pts30);
      await page.waitForSelector('#chart canvas');
      const box = await page.locator('#chart canvas').boundingBox();
      check(box && box.width > 300 && box.height > 150, 'the chart canvas has a size');
      log(`  chart: ${pts30} points over 30 days, ${await page.getAttribute('#chart', 'data-points')} over 90`);
    });

    await step('language', async () => {
      const backEn = await text('#back');
      await page.click('[data-lang="tr"]');
      await page.waitForFunction((b) => document.querySelector('#back')?.textContent !== b, backEn);
      const titleTr = await text('#flag-title');
      check(titleTr !== titleEn, `the flag text changes language (${titleEn} -> ${titleTr})`);
      check(await page.getAttribute('html', 'lang') === 'tr', 'the page language is tr');
      check((await text('#back')).includes('Listeye'), 'the labels are Turkish');
      const legend = await page.$$eval('#chart .u-legend .u-label', (els) => els.map((e) => e.textContent));
      check(legend.includes('Kırmızı'), `the chart legend is Turkish: ${legend}`);
      check(await page.evaluate(() => localStorage.getItem('flagpole.lang')) === 'tr', 'the language is kept');
    });

    await step('list-tr', async () => {
      await page.click('#back');
      await page.waitForSelector('#summary[data-mode="search"]');
      await settled();
      check((await text('#summary')).includes('sonuç'), 'the search summary is Turkish');
      check((await text('#flags li.flag .flag-text')).includes('Yaşlı'), 'the flags are in Turkish');
    });

    await step('bad-key', async () => {
      await page.click('[data-lang="de"]');
      await page.waitForFunction(() => document.querySelector('#summary')?.textContent.includes('Treffer'));
      await page.click('[data-lang="en"]');
      await page.waitForFunction(() => document.querySelector('#summary')?.textContent.includes('result')); // one or more
      await page.click('#key-change');
      await page.fill('#key-input', 'grf_' + 'x'.repeat(32));
      await Promise.all([api('', (u) => true), page.click('#key-submit')]);
      await page.waitForSelector('#notice[data-kind="badkey"]');
      const msg = await text('#notice');
      check(/401/.test(msg) && /revoked/.test(msg), `the 401 message: ${msg}`);
      check(await page.locator('#key-input').isVisible(), 'the key form is open to fix the key');
    }, { allow: /status of 401/ });

    await step('rate-limited', async () => {
      const small = await newKey(srv, 'e2e-429', 3);
      await page.fill('#key-input', small);
      await page.click('#key-submit');
      await page.waitForSelector('#notice[data-kind="ratelimited"]');
      const msg = await text('#notice');
      const wait = Number(msg.match(/(\d+) s\b/)?.[1]);
      check(/429/.test(msg) && wait >= 1 && wait <= 60, `the 429 message shows the wait: ${msg}`);
      check(/3 requests a minute/.test(msg), `the 429 message names the limit: ${msg}`);
    }, { allow: /status of 429/ });

    await step('key-again', async () => {
      await page.click('#key-change');
      await page.fill('#key-input', srv.key);
      await Promise.all([api('search'), page.click('#key-submit')]);
      await settled();
      check(await page.locator('#notice').isHidden(), 'the notice is gone with a good key');
      check(await count('#flags li.flag') > 0, 'the list is back');
    });

    await step('docs', async () => {
      await page.goto(base + '/api/public/docs');
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('.opblock-summary-path');
      const paths = await page.$$eval('.opblock-summary-path', (els) =>
        els.filter((e) => e.offsetParent !== null).map((e) => e.getAttribute('data-path') || e.textContent.trim()));
      for (const p of ENDPOINTS) check(paths.includes(p), `the docs show ${p} (saw ${paths.join(', ')})`);
      check((await text('.info .title')).includes('flagpole'), 'the title is rendered');
      check(await page.locator('.btn.authorize').count() > 0, 'the Authorize button is there');
    }, { fullPage: true });

    await step('docs-try-it', async () => {
      const op = page.locator('#operations-catalog-listCategories');
      await op.locator('.opblock-summary').first().click();
      const exec = op.locator('.btn.execute');
      await exec.waitFor();
      await Promise.all([api('categories'), exec.click()]);
      const live = op.locator('.live-responses-table');
      await live.waitFor();
      await page.waitForFunction(() => document.querySelector('#operations-catalog-listCategories .live-responses-table tbody .response-col_status')?.textContent.includes('200'));
      const headers = (await op.locator('.live-responses-table tbody .response-col_description').first().innerText()).toLowerCase();
      check(headers.includes('x-ratelimit-limit') && headers.includes('etag'), 'the real response headers are shown');
      check(headers.includes('"enum"'), 'the real response body is shown');
      await op.scrollIntoViewIfNeeded();
      await live.scrollIntoViewIfNeeded();
    });
  } catch (err) {
    failed = true;
    if (!(err instanceof Failure)) console.error(err);
  } finally {
    await cleanup();
  }
  if (problems.length) {
    failed = true;
    log('problems seen in the browser:');
    for (const p of problems) log('  ' + p);
  }
  log(failed ? 'FAILED' : 'all steps passed', `· screenshots in ${path.relative(process.cwd(), shotDir) || '.'}`);
  process.exit(failed ? 1 : 0);
}

main();
