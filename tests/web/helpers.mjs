// Browser test harness: the real dist/ served with its CSP, and Debian's Chromium driven by
// playwright-core (no browser download). One browser per test file.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/server.mjs';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/** The native CLI's document for an api function and request (`willitfit api FN -`), to compare
 * the page with. @param {string} fn @param {object} req */
export function core(fn, req) {
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['api', fn, '-'], { input: JSON.stringify(req), encoding: 'utf8' });
  return JSON.parse(r.stdout);
}

export async function setup() {
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  return {
    url, browser,
    /**
     * A fresh page that records console errors and CSP violations. Its context blocks service
     * workers unless `serviceWorkers: 'allow'` is passed: a worker's precache of every file, on
     * every fresh context, was a fifth of the CPU a page load costs here; the tests of the worker
     * itself allow it.
     */
    async page(opts = {}) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block', ...opts });
      const page = await ctx.newPage();
      // Listing views run hundreds of estimates; on a loaded machine that takes a while.
      page.setDefaultTimeout(180000);
      page.problems = [];
      page.on('console', (m) => { if (m.type() === 'error') page.problems.push(m.text()); });
      page.on('pageerror', (e) => page.problems.push(String(e)));
      return page;
    },
    async close() {
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
  await page.addScriptTag({ path: path.join(root, 'node_modules', 'axe-core', 'axe.min.js') });
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
