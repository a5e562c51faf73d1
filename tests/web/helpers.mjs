// Browser test harness: the real dist/ served with its CSP, and Debian's Chromium driven by
// playwright-core (no browser download). One browser per test file.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/server.mjs';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/** The native CLI's document for an api function and request (`willitfit api FN -`), to compare
 * the page with. @param {string} fn @param {object} req */
export function core(fn, req) {
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['api', fn, '-'], { input: JSON.stringify(req), encoding: 'utf8' });
  return JSON.parse(r.stdout);
}

/** The native CLI's estimate documents for many requests in one process (`willitfit api
 * estimate_many -`), in their order: a test that compares each row of a list with the core asks
 * once, not once a row (each process loads the catalog). @param {object[]} reqs @returns {any[]} */
export function coreMany(reqs) {
  if (!reqs.length) return [];
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['api', 'estimate_many', '-'], { input: JSON.stringify(reqs), encoding: 'utf8', maxBuffer: 1 << 28 });
  const out = JSON.parse(r.stdout);
  if (!Array.isArray(out) || out.length !== reqs.length) throw new Error(`estimate_many gave ${Array.isArray(out) ? out.length : typeof out} documents for ${reqs.length} requests`);
  return out;
}

/**
 * What a test may do to a page it was lent without the page being closed after it: reading,
 * clicking, typing, navigating, evaluating, screenshots. Anything that outlives a navigation (a
 * listener, a route, an init script, an exposed function, a viewport, media or timeout change,
 * fake timers), closing the page, and any use of its context other than close() make the page
 * the test's own: it is closed after the test instead of being lent again.
 */
const KEEPS_STATE = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener', 'route', 'routeFromHAR',
  'routeWebSocket', 'unroute', 'unrouteAll', 'addInitScript', 'exposeFunction', 'exposeBinding', 'setExtraHTTPHeaders',
  'setViewportSize', 'emulateMedia', 'setDefaultTimeout', 'setDefaultNavigationTimeout', 'close', 'clock', 'pause',
  'addLocatorHandler', 'removeLocatorHandler', 'waitForEvent']);

/** The options a page was made with, as a key (nested keys sorted); null for options that are not plain data. @param {any} v @returns {string} */
function keyOf(v) {
  if (Array.isArray(v)) return `[${v.map(keyOf).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${keyOf(v[k])}`).join(',')}}`;
  if (typeof v === 'function' || typeof v === 'symbol') throw new Error('not plain data');
  return JSON.stringify(v) ?? 'undefined';
}

/** @type {Set<() => Promise<void>>} the release of each setup() of this file, run after every test */
const releases = new Set();
/** True while a test runs: a page made outside one (in a before hook) is kept by the file. */
let inTest = false;
// Registered at the top level of the test file that imports this module: around each of its tests.
beforeEach(() => { inTest = true; });
afterEach(async () => { inTest = false; for (const release of releases) await release(); });

export async function setup() {
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  // Pages are lent, one test at a time, and reused by a later test of the file that asks for the
  // same options: opening a tab costs Chromium more CPU than the navigation a test then makes
  // (measured with Chromium 156 on the 2-core CI machine: a blank page in a fresh context 0.93 s
  // of CPU, in an open tab 0.16 s; the app's main view 3.4 s against 2.1 s, the tab's process
  // having compiled the module once). Between two tests the page goes to about:blank and every
  // origin it visited loses its storage (local storage, IndexedDB, caches, cookies), and the
  // context its HTTP cache, so that a test starts as a fresh context would, but for the compiled
  // code its process keeps.
  /** @typedef {{ key: string | null, ctx: any, page: any, own: boolean, origins: Set<string>, cdp?: any }} Lent */
  /** @type {Map<string, Lent[]>} */
  const idle = new Map();
  /** @type {Lent[]} */
  let lent = [];
  async function release() {
    const done = lent;
    lent = [];
    for (const e of done) {
      try {
        if (e.own || e.key === null || e.page.isClosed()) throw new Error('not reused');
        await e.page.goto('about:blank');
        e.cdp ||= await e.ctx.newCDPSession(e.page);
        for (const origin of e.origins) await e.cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
        await e.cdp.send('Network.clearBrowserCache');
        await e.ctx.clearCookies();
        e.origins.clear();
        idle.set(e.key, [...(idle.get(e.key) || []), e]);
      } catch {
        await e.ctx.close().catch(() => {});
      }
    }
  }
  releases.add(release);
  /**
   * The page a test is handed: the Playwright page, but for the calls (KEEPS_STATE, context())
   * after which it is not lent again, and a context whose close() gives the page back.
   * @param {Lent} e
   */
  const handle = (e) => new Proxy(e.page, {
    get(target, k) {
      if (k === 'context') {
        return () => new Proxy(e.ctx, {
          get(c, m) {
            if (m === 'close') return async () => { if (e.key === null) await c.close(); };
            e.own = true;
            const v = Reflect.get(c, m, c);
            return typeof v === 'function' ? v.bind(c) : v;
          },
        });
      }
      if (typeof k === 'string' && KEEPS_STATE.has(k)) e.own = true;
      const v = Reflect.get(target, k, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return {
    url, browser,
    /**
     * A fresh page that records console errors and CSP violations. Its context blocks service
     * workers unless `serviceWorkers: 'allow'` is passed: a worker's precache of every file, on
     * every fresh context, was a fifth of the CPU a page load costs here; the tests of the worker
     * itself allow it (and get a context of their own, never lent again).
     */
    async page(opts = {}) {
      /** @type {string | null} */
      let key = null;
      try { key = opts.serviceWorkers === 'allow' || !inTest ? null : keyOf(opts); } catch { key = null; }
      let e = key === null ? undefined : idle.get(key)?.pop();
      if (!e) {
        const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block', ...opts });
        const page = await ctx.newPage();
        /** @type {Lent} */
        const made = { key, ctx, page, own: false, origins: new Set() };
        page.on('console', (/** @type {any} */ m) => { if (m.type() === 'error') page.problems.push(m.text()); });
        page.on('pageerror', (/** @type {any} */ err) => page.problems.push(String(err)));
        page.on('framenavigated', (/** @type {any} */ f) => { const o = new URL(f.url()).origin; if (o !== 'null') made.origins.add(o); });
        e = made;
      }
      // Listing views run hundreds of estimates; on a loaded machine that takes a while.
      e.page.setDefaultTimeout(180000);
      e.page.problems = [];
      if (inTest) lent.push(e);
      return key === null ? e.page : handle(e);
    },
    async close() {
      releases.delete(release);
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A gibibyte, for figures the core gives in bytes. */
export const GiB = 1024 ** 3;

/**
 * Text as a sentence reads when compared with words: the no-break space that keeps a figure with
 * the word after it becomes a space, and the word joiner after a range's dash goes. Tests of
 * where a line may break read the text as it is.
 * @param {string | null} s
 */
export const plain = (s) => String(s ?? '').replace(/\u00a0/g, ' ').replace(/\u2060/g, '');

/**
 * A test file's browser and server (setup), started before its tests and closed after them:
 * `env.url`, `env.page(opts)` as setup's, and `env.at(query, opts)`, a fresh page opened at a
 * query of the app ("?model=…&lang=en") once it has rendered its first answer.
 */
export function pageSuite() {
  /** @type {any} */
  let env;
  before(async () => { env = await setup(); });
  after(async () => { await env.close(); });
  return {
    get url() { return env.url; },
    /** @param {object} [opts] */
    page: (opts) => env.page(opts),
    /** @param {string} query @param {object} [opts] */
    async at(query, opts) {
      const page = await env.page(opts);
      await open(page, `${env.url}${query}`);
      return page;
    },
  };
}

/** Open a view and wait until the page has rendered its first answer. */
export async function open(page, url) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 180000 });
}

/** Inject axe-core and return the serious and critical violations on the page as it is. */
export async function axeProblems(page) {
  // eslint-disable-next-line no-undef
  if (!(await page.evaluate(() => typeof axe !== 'undefined'))) await page.addScriptTag({ path: path.join(root, 'node_modules', 'axe-core', 'axe.min.js') });
  const res = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return res.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** True when the page scrolls sideways at its current viewport width. */
export async function scrollsSideways(page) {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
}

/**
 * A second server standing for a blog on another origin: it serves the HTML put in `pages`
 * (path -> text), 404 otherwise. Its URL uses localhost while the app's uses 127.0.0.1, so the
 * two are different origins.
 * @returns {Promise<{url: string, pages: Map<string, string>, close: () => Promise<void>}>}
 */
export async function otherOrigin() {
  const pages = new Map();
  const server = http.createServer((req, res) => {
    const body = pages.get(new URL(req.url || '/', 'http://x').pathname);
    if (req.url === '/favicon.ico') { res.writeHead(204); res.end(); return; }
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(body || 'not found');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://localhost:${addr.port}`, pages, close: () => new Promise((r) => server.close(() => r(undefined))) };
}
