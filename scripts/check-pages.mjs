// npm run check:pages: search-engine-style checks of a sample of prerendered pages, in Chromium,
// as the site is served: each page has its own title and description, one canonical link to
// itself, hreflang links to its four languages and x-default, FAQ structured data that parses
// and matches the visible FAQ, no console error while the app takes it over, the same figures
// and address after it did, and no serious or critical axe-core finding. Prints one line per page; exits non-zero on any failure.
// Needs a build with pages (bash scripts/build.sh --site). `node scripts/check-pages.mjs N` checks
// N pages (default 12: the reference pair in every language, then pages spread over the list).
import fs from 'node:fs';
import path from 'node:path';

import { startServer } from './server.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.join(root, 'dist');
const LANGS = ['en', 'es', 'fr', 'zh'];
const want = Number(process.argv[2]) || 12;
const axeSource = fs.readFileSync(path.join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** @type {string[]} */
const all = [];
const walk = (/** @type {string} */ rel) => {
  for (const e of fs.readdirSync(path.join(dist, rel), { withFileTypes: true })) {
    if (e.isDirectory()) walk(`${rel}${e.name}/`);
    else if (e.name === 'index.html' && rel) all.push(rel);
  }
};
for (const l of LANGS) if (fs.existsSync(path.join(dist, l))) walk(`${l}/`);
if (!all.length) { console.error('check-pages: no prerendered pages in dist/ (bash scripts/build.sh --site)'); process.exit(1); }
all.sort();
const sample = [...new Set([...LANGS.map((l) => `${l}/glm-4.5-air/mac-studio-m3-ultra-512gb/`).filter((p) => all.includes(p)),
  ...all.filter((_, i) => i % Math.max(1, Math.floor(all.length / want)) === 0)])].slice(0, Math.max(want, 4));

const { chromium } = await import('playwright-core');
const { server, url } = await startServer({ port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const titles = new Map();
const descs = new Map();
let failed = 0;
try {
  for (const p of sample) {
    const problems = [];
    const ctx = await browser.newContext({ serviceWorkers: 'block' });
    const page = await ctx.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`error: ${e}`));
    await page.goto(url + p);
    // The static markup as served (before the app runs anything).
    const head = await page.evaluate(() => ({
      title: document.title,
      desc: document.querySelector('meta[name="description"]')?.getAttribute('content') || '',
      canon: [...document.querySelectorAll('link[rel="canonical"]')].map((l) => l.getAttribute('href')),
      alt: [...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => `${l.getAttribute('hreflang')} ${l.getAttribute('href')}`),
      ld: [...document.querySelectorAll('script[type="application/ld+json"]')].map((s) => s.textContent || ''),
      faq: [...document.querySelectorAll('.view:not([hidden]) .faq details summary')].map((s) => (s.textContent || '').trim()),
      figures: ['#verdict-text', '#c-total', '#c-usable', '#k-decode', '#mp-title', '#dp-title'].map((s) => document.querySelector(s)?.textContent || ''),
    }));
    await page.waitForSelector('body[data-ready="true"]', { timeout: 180000 });
    await page.waitForTimeout(1000);
    // The take-over: the app's figures are the ones the page was built with, at the same address.
    const after = await page.evaluate(() => ['#verdict-text', '#c-total', '#c-usable', '#k-decode', '#mp-title', '#dp-title'].map((s) => document.querySelector(s)?.textContent || ''));
    if (JSON.stringify(after) !== JSON.stringify(head.figures)) problems.push(`the app changed the figures: ${JSON.stringify(head.figures)} → ${JSON.stringify(after)}`);
    if (page.url() !== url + p) problems.push(`the address changed to ${page.url()}`);
    if (!head.title || titles.has(head.title)) problems.push(`title not unique: ${head.title} (also ${titles.get(head.title)})`);
    if (!head.desc || descs.has(head.desc)) problems.push(`description not unique (also ${descs.get(head.desc)})`);
    titles.set(head.title, p);
    descs.set(head.desc, p);
    const rest = p.slice(3);
    if (head.canon.length !== 1 || !head.canon[0]?.endsWith(`/${p}`)) problems.push(`canonical: ${head.canon.join(', ')}`);
    const alt = LANGS.map((l) => `${l} /${l}/${rest}`).concat(`x-default /en/${rest}`);
    if (head.alt.length !== alt.length || head.alt.some((a, i) => { const [h, u] = a.split(' '); return `${h} ${new URL(u).pathname}` !== alt[i]; }))
      problems.push(`hreflang: ${head.alt.join(', ')}`);
    if (head.faq.length) {
      try {
        const d = JSON.parse(head.ld[0] || '');
        const names = d.mainEntity.map((/** @type {any} */ e) => e.name);
        if (d['@type'] !== 'FAQPage' || JSON.stringify(names) !== JSON.stringify(head.faq)) problems.push('FAQ data does not match the visible FAQ');
      } catch (e) { problems.push(`FAQ data: ${e}`); }
    }
    // Through the DevTools protocol: the site's CSP (which stays on) refuses an injected <script>.
    await page.evaluate(axeSource);
    const axe = await page.evaluate(async () => {
      // eslint-disable-next-line no-undef
      const r = await /** @type {any} */ (window).axe.run(document, { resultTypes: ['violations'] });
      return r.violations.filter((/** @type {any} */ v) => v.impact === 'serious' || v.impact === 'critical')
        .map((/** @type {any} */ v) => `${v.id} (${v.nodes.slice(0, 2).map((/** @type {any} */ n) => n.target.join(' ')).join('; ')})`);
    });
    for (const v of axe) problems.push(`axe: ${v}`);
    await ctx.close();
    if (problems.length) failed++;
    console.log(`${problems.length ? 'FAIL' : 'ok  '} /${p}  ${head.title}${problems.length ? `\n      ${problems.join('\n      ')}` : ''}`);
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`${sample.length - failed} of ${sample.length} pages pass (of ${all.length} prerendered)`);
process.exit(failed ? 1 : 0);
