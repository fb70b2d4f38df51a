// Browser checks of the API reference (/api/public/docs) beside run.mjs's:
//
//   - samples: an operation's client menu offers exactly curl, JavaScript
//     (fetch), Python (requests) and Go, and each one shows its sample;
//   - menu button: at 390 px, Scalar's menu button is at least 44 px;
//   - sidebar: at 1280x900 every operation of the document is in the
//     sidebar's first screen (the guides follow them), each with its whole
//     title as a tooltip;
//   - axe-core at 1280 and 390 px (serious or critical violations fail).
//
// Like run.mjs it starts its own `flagpole serve --demo` (go run from the
// repository root) and drives Debian's chromium through playwright-core;
// screenshots go to screenshots/docs-checks/. run.mjs calls run() first;
// alone:
//
//   cd httpapi/ui/e2e && node docs.mjs
//
// Environment: CHROMIUM (default /usr/bin/chromium), E2E_HEADED=1.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { check, cleanEnv, Failure, freePort, sleep, waitFor } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const repo = path.resolve(here, '../../..');
const shotDir = path.join(here, 'screenshots', 'docs-checks');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// The samples the reference offers: the client's name in the menu and a
// line of its sample for GET /api/public/flags.
const SAMPLES = [
  { name: 'Curl', lang: 'curl', code: /^curl\s.*\/api\/public\/flags/m },
  { name: 'Fetch', lang: 'javascript', code: /fetch\(['"`][^'"`]*\/api\/public\/flags/ },
  { name: 'Requests', lang: 'python', code: /requests\.get\(/ },
  { name: 'NewRequest', lang: 'go', code: /http\.NewRequest\(/ },
];

const log = (...a) => console.log('[e2e docs]', ...a);

async function startServer(tmp) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = cleanEnv();
  const child = spawn('go', ['run', './cmd/flagpole', 'serve', '--demo', '--db', `sqlite:${path.join(tmp, 'docs.db')}`,
    '--addr', `127.0.0.1:${port}`], { cwd: repo, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  const srv = { base, err: '', exited: null };
  child.stdout.resume();
  child.stderr.on('data', (d) => { srv.err += d; });
  child.on('exit', (code, sig) => { srv.exited = sig || String(code); });
  srv.stop = async () => {
    if (srv.exited !== null) return;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
    for (let i = 0; i < 50 && srv.exited === null; i++) await sleep(100);
    if (srv.exited === null) try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  };
  try {
    await waitFor('/readyz to answer 200', async () => {
      if (srv.exited !== null) throw new Failure(`server exited (${srv.exited}):\n${srv.err.slice(-2000)}`);
      try { return (await fetch(base + '/readyz')).ok; } catch { return false; }
    }, 300_000, 500);
  } catch (err) {
    await srv.stop();
    throw err;
  }
  return srv;
}

// run runs the checks and answers whether they all passed.
export async function run() {
  await mkdir(shotDir, { recursive: true });
  for (const f of await readdir(shotDir)) if (f.endsWith('.png')) await rm(path.join(shotDir, f));
  const axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'flagpole-e2e-docs-'));
  let srv = null;
  let browser = null;
  let failed = false;
  const problems = [];
  try {
    srv = await startServer(tmp);
    const base = srv.base;
    log(`server ready at ${base}`);
    const doc = await (await fetch(base + '/api/public/openapi.json')).json();
    const operations = Object.entries(doc.paths).filter(([, item]) => item.get).map(([p]) => p);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: !process.env.E2E_HEADED,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC', colorScheme: 'light' });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    let stepName = '';
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`${stepName}: console error: ${msg.text()}`); });
    page.on('pageerror', (err) => problems.push(`${stepName}: page error: ${err.message}`));

    const open = async (hash = '') => {
      await page.goto(base + '/api/public/docs' + hash);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('.sidebar-heading-type', { state: 'attached' });
      await sleep(500);
    };
    const axe = async (what) => {
      if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
      const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      const bad = res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      check(bad.length === 0, `axe, ${what}:\n` + bad.map((v) => `  ${v.impact} ${v.id}: ${v.help}: ` +
        v.nodes.slice(0, 4).map((nd) => nd.target.join(' ')).join(', ')).join('\n'));
    };
    const step = async (name, f) => {
      stepName = name;
      const before = problems.length;
      const t0 = Date.now();
      try {
        await f();
        await page.screenshot({ path: path.join(shotDir, name + '.png') });
        check(problems.length === before, problems.slice(before).join('\n'));
        log(`ok   ${name} (${Date.now() - t0} ms)`);
      } catch (err) {
        await page.screenshot({ path: path.join(shotDir, name + '-FAILED.png'), fullPage: true }).catch(() => {});
        log(`FAIL ${name}: ${err.message}`);
        throw err;
      }
    };

    await step('docs-sidebar-1280', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await open();
      // The sidebar's list scrolls between the search box and its footer:
      // its first screen is the part of the list inside both it and the window.
      const seen = await page.evaluate(() => {
        const links = [...document.querySelectorAll('.t-doc__sidebar a[href*="/GET/"]')];
        if (!links.length) return null;
        let box = links[0].parentElement;
        while (box && !/(auto|scroll)/.test(getComputedStyle(box).overflowY)) box = box.parentElement;
        const frame = box ? box.getBoundingClientRect() : { top: 0, bottom: innerHeight };
        const bottom = Math.min(frame.bottom, innerHeight);
        return {
          scrolled: box ? box.scrollTop : 0,
          frame: [Math.round(frame.top), Math.round(bottom)],
          ops: links.map((a) => {
            const r = a.getBoundingClientRect();
            const label = a.querySelector('[class~="group/button-label"]');
            return {
              path: decodeURIComponent(a.getAttribute('href').replace(/^.*\/GET/, '')),
              top: Math.round(r.top), bottom: Math.round(r.bottom), height: Math.round(r.height),
              visible: r.height > 0 && r.top >= frame.top && r.bottom <= bottom,
              text: label ? label.textContent.trim() : '', title: label ? label.title : '',
            };
          }),
          guides: [...document.querySelectorAll('.t-doc__sidebar a[href^="#tag/"]:not([href*="/GET/"])')]
            .map((a) => a.getAttribute('href')),
        };
      });
      check(seen, 'the sidebar lists operations');
      check(seen.scrolled === 0, 'the sidebar is at its top');
      for (const p of operations) {
        const op = seen.ops.find((o) => o.path === p);
        check(op, `the sidebar lists GET ${p}`);
        check(op.visible, `GET ${p} is in the sidebar's first screen at 1280x900 (${op.top}-${op.bottom}, the list shows ${seen.frame.join('-')})`);
        check(op.title && op.title === op.text, `GET ${p} has its whole title as a tooltip: ${JSON.stringify(op.title)}`);
      }
      for (const g of ['#tag/authentication', '#tag/rate-limits', '#tag/errors']) check(seen.guides.includes(g), `the sidebar still has the guide ${g}`);
      log(`  ${operations.length} operations in the first screen (lowest ends at ${Math.max(...seen.ops.map((o) => o.bottom))} px, the list at ${seen.frame[1]} px)`);
      await axe('reference 1280');
    });

    await step('docs-samples', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await open('#tag/flags/GET/api/public/flags');
      const card = page.locator('.request-card', {
        has: page.locator('.operation-path', { hasText: /^\/api\/public\/flags$/ }),
      }).first();
      await card.scrollIntoViewIfNeeded();
      const picker = card.getByTestId('client-picker');
      const code = card.locator('pre code').first();
      const offered = [];
      for (const s of SAMPLES) {
        await picker.click();
        const options = page.getByRole('option');
        await options.first().waitFor();
        const names = (await options.allTextContents()).map((t) => t.trim());
        if (!offered.length) offered.push(...names);
        check(names.length === SAMPLES.length && SAMPLES.every((x) => names.includes(x.name)),
          `the client menu offers exactly ${SAMPLES.map((x) => x.name).join(', ')}: ${names.join(', ')}`);
        await page.getByRole('option', { name: s.name, exact: true }).click();
        await waitFor(`the ${s.name} sample`, async () => {
          const [text, cls] = await Promise.all([code.innerText(), code.getAttribute('class')]);
          return s.code.test(text) && (cls || '').includes('language-' + s.lang);
        }, 10_000);
        log(`  ${s.name}: ${(await code.innerText()).split('\n')[0].trim()}`);
      }
      log(`  the client menu: ${offered.join(', ')}`);
    });

    await step('docs-menu-390', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await open();
      const button = page.locator('.t-doc__header button', { hasText: 'Open Menu' }).first();
      await button.waitFor();
      const box = await button.boundingBox();
      check(box && box.width >= 44 && box.height >= 44, `the menu button is at least 44 px: ${box && `${box.width}x${box.height}`}`);
      const header = await page.locator('.t-doc__header').first().boundingBox();
      check(box.y >= header.y && box.y + box.height <= header.y + header.height, 'the menu button fits in its bar');
      await axe('reference 390');
      await button.click();
      const close = page.locator('.t-doc__header button', { hasText: 'Close Menu' }).first();
      await close.waitFor();
      const cbox = await close.boundingBox();
      check(cbox.width >= 44 && cbox.height >= 44, `the close button is at least 44 px: ${cbox.width}x${cbox.height}`);
      log(`  menu button ${box.width}x${box.height}`);
    });
  } catch (err) {
    failed = true;
    if (!(err instanceof Failure)) console.error(err);
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (srv) await srv.stop();
    await rm(tmp, { recursive: true, force: true });
  }
  if (problems.length) {
    failed = true;
    for (const p of problems) log('  ' + p);
  }
  log(failed ? 'FAILED' : 'all steps passed');
  return !failed;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  run().then((ok) => process.exit(ok ? 0 : 1));
}
