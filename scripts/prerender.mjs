// Pages that exist before JavaScript runs. For every catalog model, every catalog device and a
// chosen set of model × device pairs, in each language, this draws the app's own view into a
// copy of dist/index.html with the app's own code (web/app.js renderStatic: the same views,
// the same core, run in Node on a small DOM, linkedom), and writes it as
// dist/<lang>/<model>/, dist/<lang>/<device>/, dist/<lang>/<model>/<device>/ with its own
// title and description, canonical and hreflang links, FAQ structured data taken from the
// visible FAQ, plus dist/sitemap.xml, dist/robots.txt and dist/pages.json (the map the live app
// uses to point a query-string URL at its page). The live app takes the page over when it loads.
//
// Which pairs (the rule; the figures below):
//   - the pairs the reference pages name (SEED_PAIRS);
//   - for each model, the smallest GPU and the smallest Mac that hold it whole (the core's tier
//     list at Q4_K_M and 8K, `fits` without system RAM; smallest memory first), the questions
//     people ask most ("does it run on my card / my Mac");
//   - for each device, the first MODELS_PER_DEVICE models of the core's runs-on list that fit.
// WIF_PAGES=more takes PER_TIER=3 devices per tier (GPUs, Macs, unified-memory PCs) and 3 models
// per device. The pages are drawn by one process per core (WIF_JOBS, default: the core count).
// The site's address for canonical links and the sitemap: WIF_SITE_URL (default
// http://127.0.0.1:8080/, what `npm start` serves).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseHTML } from 'linkedom';

import { criticalCss, firstFrameElements, parseRules } from './critical-css.mjs';
import { cspWith } from './server.mjs';

/** The inline script at a pair page's pause: it asks for the first frame's layout (see below). */
export const FIRST_LAYOUT = 'document.body.offsetWidth';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const MORE = process.env.WIF_PAGES === 'more';
/** Devices per model from each tier list (GPUs, Macs; with WIF_PAGES=more also unified-memory PCs). */
const PER_TIER = MORE ? 3 : 1;
const TIERS = MORE ? ['gpus', 'macs', 'unified'] : ['gpus', 'macs'];
const MODELS_PER_DEVICE = MORE ? 3 : 1;
const LANGS = ['en', 'es', 'fr', 'zh'];
/** Named by the reference pages (a model × device page and a model page's examples). */
const SEED_PAIRS = [
  ['zai-org/GLM-4.5-Air', 'apple-m3-ultra-80c-gpu-512gb'],
  ['zai-org/GLM-4.5-Air', 'nvidia-rtx-4090'],
  ['zai-org/GLM-4.5-Air', 'apple-m4-max-40c-gpu-128gb'],
];

/** A path segment from a name: lower case, letters, digits, dots and single dashes. @param {string} s */
export function slugOf(s) {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
}

/** The model's segment: its repository name (zai-org/GLM-4.5-Air → glm-4.5-air). @param {any} m */
export function modelSlug(m) {
  return slugOf(String(m.id).split('/').pop() || m.id);
}

/**
 * The device's segment: for a Mac its product name, chip and memory (mac-studio-m3-ultra-512gb),
 * otherwise its catalog id.
 * @param {any} d
 */
export function deviceSlug(d) {
  if (d.kind === 'apple' && Array.isArray(d.products) && d.products.length) {
    const product = String(d.products[0]).replace(/\(.*?\)/g, '');
    const chip = /\b(M\d+(?: (?:Pro|Max|Ultra))?)\b/.exec(d.name);
    return slugOf(`${product} ${chip ? chip[1] : ''} ${Math.round(d.memory_gib)}gb`);
  }
  return slugOf(d.id);
}

/**
 * Install the globals the app's modules use (document, window, location, history …) for one
 * document parsed from the template, at `url`.
 * @param {string} html @param {string} url
 */
function installDocument(html, url) {
  const { window, document, customElements, HTMLElement, Node } = parseHTML(html);
  const g = /** @type {any} */ (globalThis);
  // linkedom's <select> has no value setter: choosing an option marks it `selected`, so the
  // choice is in the markup.
  const Select = Object.getPrototypeOf(document.createElement('select'));
  if (!Object.getOwnPropertyDescriptor(Select, 'value')?.set) {
    Object.defineProperty(Select, 'value', {
      configurable: true,
      get() { const o = [...this.options]; const s = o.find((x) => x.hasAttribute('selected')) || o[0]; return s ? s.getAttribute('value') ?? s.textContent : ''; },
      set(v) { for (const o of this.options) { if ((o.getAttribute('value') ?? o.textContent) === String(v)) o.setAttribute('selected', ''); else o.removeAttribute('selected'); } },
    });
  }
  // linkedom's dataset spells `i18n` as data-i-18n; the HTML standard's rule (a dash before each
  // capital letter only) reads data-i18n.
  const Elem = Object.getPrototypeOf(Object.getPrototypeOf(Select));
  const attr = (/** @type {string} */ k) => `data-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const key = (/** @type {string} */ a) => a.slice(5).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  Object.defineProperty(Elem, 'dataset', {
    configurable: true,
    get() {
      const el = this;
      return new Proxy({}, {
        get: (_, k) => (typeof k === 'string' ? el.getAttribute(attr(k)) ?? undefined : undefined),
        set: (_, k, v) => { el.setAttribute(attr(String(k)), String(v)); return true; },
        has: (_, k) => typeof k === 'string' && el.hasAttribute(attr(k)),
        deleteProperty: (_, k) => { el.removeAttribute(attr(String(k))); return true; },
        ownKeys: () => [...el.attributes].map((a) => a.name).filter((n) => n.startsWith('data-')).map(key),
        getOwnPropertyDescriptor: (_, k) => (typeof k === 'string' && el.hasAttribute(attr(k)) ? { value: el.getAttribute(attr(k)), enumerable: true, configurable: true, writable: true } : undefined),
      });
    },
  });
  let loc = new URL(url);
  const history = {
    state: null,
    pushState(/** @type {any} */ _s, /** @type {string} */ _t, /** @type {string} */ u) { loc = new URL(u, loc); },
    replaceState(/** @type {any} */ _s, /** @type {string} */ _t, /** @type {string} */ u) { loc = new URL(u, loc); },
  };
  const storage = new Map();
  Object.assign(g, {
    window, document, customElements, HTMLElement, Node, history,
    localStorage: { getItem: (/** @type {string} */ k) => storage.get(k) ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => storage.set(k, String(v)), removeItem: (/** @type {string} */ k) => storage.delete(k), key: () => null, length: 0, clear: () => storage.clear() },
    matchMedia: () => ({ matches: false, addEventListener() {}, removeEventListener() {} }),
    getComputedStyle: () => ({ getPropertyValue: () => '' }),
    ResizeObserver: class { observe() {} disconnect() {} },
    requestAnimationFrame: (/** @type {() => void} */ f) => setTimeout(f, 0),
    scrollTo() {},
  });
  Object.defineProperty(g, 'location', { configurable: true, get: () => loc });
  Object.defineProperty(g, 'navigator', { configurable: true, value: { language: 'en', userAgent: 'willitfit-prerender' } });
  window.scrollTo = () => {};
  return document;
}

const xmlEscape = (/** @type {string} */ s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Build the pages into `dist`: this process draws every jobs-th page and the others are drawn by
 * child processes (the same script with --shard), all from the same list.
 * @param {string} dist
 * @param {{site?: string, log?: (s: string) => void, limit?: number, shard?: [number, number], pairs?: string[]}} [opts]
 */
export async function prerender(dist, opts = {}) {
  const jobs = opts.shard ? opts.shard[1] : Math.max(1, Number(process.env.WIF_JOBS) || os.cpus().length);
  const shard = opts.shard ? opts.shard[0] : 0;
  const t0 = performance.now();
  const site = new URL(opts.site || process.env.WIF_SITE_URL || 'http://127.0.0.1:8080/');
  if (!site.pathname.endsWith('/')) site.pathname += '/';
  const log = opts.log || ((s) => console.log(s));
  // The core first, before any `window` exists (its loader picks Node by that).
  const api = await import(pathToFileURL(path.join(dist, 'api.js')).href);
  // One page in four languages asks the core the same questions four times: its answers are
  // kept (per page, by the request's text) and given again.
  const core = await api.loadCore();
  /** @type {Map<string, any>} */
  const memo = new Map();
  for (const fn of ['estimate', 'estimateMany', 'tiers', 'runsOn', 'solve', 'train', 'cost']) {
    const f = core[fn];
    if (typeof f !== 'function') continue;
    core[fn] = (/** @type {any[]} */ ...args) => {
      const key = `${fn}\n${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join('\n')}`;
      if (!memo.has(key)) memo.set(key, f.apply(core, args));
      return memo.get(key);
    };
  }
  const [models, hardware] = await Promise.all([api.list('models'), api.list('hardware')]);
  const template = fs.readFileSync(path.join(dist, 'index.html'), 'utf8').replace(/<html lang="en"/, '<html lang="en" data-build="static"');
  installDocument(template, site.href);
  // The app's stylesheet, as rules: a pair page inlines those its first frame needs (finishPage).
  const styleRules = parseRules(fs.readFileSync(path.join(dist, 'styles.css'), 'utf8'));
  const stateMod = await import(pathToFileURL(path.join(dist, 'state.js')).href);
  const app = await import(pathToFileURL(path.join(dist, 'app.js')).href);
  const catalog = await import(pathToFileURL(path.join(dist, 'catalog.js')).href);
  const { runsOnRequest } = await import(pathToFileURL(path.join(dist, 'views', 'device.js')).href);
  await app.renderStatic();   // loads the catalog and the core's defaults once

  // Slugs, unique across models and devices (both sit right under the language).
  /** @type {Record<string, string>} */ const mSlug = {};
  /** @type {Record<string, string>} */ const dSlug = {};
  const taken = new Map();
  const claim = (/** @type {string} */ s, /** @type {string} */ who) => {
    let x = s, n = 2;
    while (taken.has(x) || LANGS.includes(x)) x = `${s}-${n++}`;
    taken.set(x, who);
    return x;
  };
  for (const m of models) mSlug[m.id] = claim(modelSlug(m), m.id);
  // Macs sold with one product name, chip and memory but different core counts (an M1 Pro with
  // 14 or 16 GPU cores) name their GPU cores, then their CPU cores, where that is needed.
  const cores = (/** @type {any} */ d, /** @type {string} */ what) => (/(\d+)-core ([A-Z]+)/g.exec(d.name) ? [...d.name.matchAll(/(\d+)-core ([A-Z]+)/g)] : [])
    .filter((m) => m[2] === what).map((m) => `${m[1]}c-${what.toLowerCase()}`).join('');
  const count = (/** @type {string[]} */ xs) => xs.reduce((m, x) => m.set(x, (m.get(x) || 0) + 1), new Map());
  let ds = hardware.map((d) => deviceSlug(d));
  for (const what of ['GPU', 'CPU']) {
    const n = count(ds);
    ds = ds.map((s, i) => (n.get(s) > 1 && cores(hardware[i], what) ? s.replace(/(-\d+gb)$/, `-${cores(hardware[i], what)}$1`) : s));
  }
  hardware.forEach((d, i) => { dSlug[d.id] = claim(ds[i], d.id); });

  // The pairs, by the rule above.
  /** @type {Set<string>} */
  const pairs = new Set();
  const addPair = (/** @type {string} */ m, /** @type {string} */ d) => { if (mSlug[m] && dSlug[d]) pairs.add(`${m}\n${d}`); };
  for (const [m, d] of SEED_PAIRS) addPair(m, d);
  // The models and devices that get pages: all, or with a limit the first ones and the seeds'.
  const lim = opts.limit ?? Infinity;
  const mList = models.filter((m, i) => i < lim || SEED_PAIRS.some((p) => p[0] === m.id));
  const dList = hardware.filter((d, i) => i < lim || SEED_PAIRS.some((p) => p[1] === d.id));
  // A shard takes the parent's pairs (one choice for all); otherwise they are chosen here.
  if (opts.pairs) for (const p of opts.pairs) pairs.add(p);
  else for (const m of mList) {
    const req = catalog.request({ model: m.id, quant: 'Q4_K_M', ctx: 8192, kv: 'f16', par: 1, engine: 'llama.cpp' });
    for (const k of ['hardware', 'count', 'ram_gib', 'engine']) delete req[k];
    let tl;
    try { tl = await api.tiers(req); } catch { continue; }
    for (const tier of TIERS) {
      const fits = (tl[tier] || []).filter((/** @type {any} */ e) => e.tier === 'fits' && !e.ram_gib && (e.count ?? 1) === 1)
        .sort((/** @type {any} */ a, /** @type {any} */ b) => a.device.memory_gib - b.device.memory_gib || (a.device.price_usd || 1e12) - (b.device.price_usd || 1e12));
      for (const e of fits.slice(0, PER_TIER)) addPair(m.id, e.device.id);
    }
  }
  if (!opts.pairs) for (const d of dList) {
    let list;
    try { list = await api.runsOn(runsOnRequest(d.id, 0)); } catch { continue; }
    // A pair page is the main view at the defaults (llama.cpp): a device whose list is another
    // engine's (runs_on `engine`, vLLM where llama.cpp does not run) gets none from it.
    if (list.engine && list.engine !== 'llama.cpp') continue;
    for (const e of (list.models || []).filter((/** @type {any} */ x) => x.tier === 'fits').slice(0, MODELS_PER_DEVICE)) addPair(e.model?.id ?? e.id, d.id);
  }

  // With a limit (a quick build), only what has a page is in the map.
  const mPages = Object.fromEntries(mList.map((m) => [m.id, mSlug[m.id]]));
  const dPages = Object.fromEntries(dList.map((d) => [d.id, dSlug[d.id]]));
  for (const p of [...pairs]) { const [m, d] = p.split('\n'); if (!mPages[m] || !dPages[d]) pairs.delete(p); }
  const pagesDoc = {
    models: mPages, devices: dPages,
    pairs: [...pairs].map((p) => { const [m, d] = p.split('\n'); return `${mSlug[m]}/${dSlug[d]}`; }).sort(),
  };
  stateMod.setPages(pagesDoc);
  const tSel = performance.now();
  /** @type {Promise<any>[]} */
  const children = [];
  if (!opts.shard) {
    for (let i = 1; i < jobs; i++) {
      children.push(new Promise((resolve, reject) => {
        const c = fork(fileURLToPath(import.meta.url), ['--shard', `${i}/${jobs}`, '--dist', dist, ...(opts.limit !== undefined ? ['--limit', String(opts.limit)] : [])],
          { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        let got = null;
        c.on('message', (m) => { got = m; });
        c.send({ pairs: [...pairs] });
        c.on('exit', (code) => (code === 0 && got ? resolve(got) : reject(new Error(`prerender: shard ${i}/${jobs} failed (exit ${code})`))));
      }));
    }
  }

  /** Each page: [view, model, hw, path under the language]. @type {[string, string, string, string][]} */
  const list = [];
  for (const m of mList) list.push(['model', m.id, '', `${mSlug[m.id]}/`]);
  for (const d of dList) list.push(['device', '', d.id, `${dSlug[d.id]}/`]);
  for (const p of pairs) { const [m, d] = p.split('\n'); list.push(['main', m, d, `${mSlug[m]}/${dSlug[d]}/`]); }

  let bytes = 0;
  let n = 0;
  /** @type {string[]} */
  const urls = [];
  /** @type {{path: string, title: string, description: string}[]} */
  const index = [];
  /** @type {Record<string, number[]>} */
  const spent = { model: [], device: [], main: [] };
  for (const [k, [view, model, hw, rel]] of list.entries()) {
    for (const lang of LANGS) urls.push(new URL(`${lang}/${rel}`, site).href);
    if (k % jobs !== shard) continue;
    memo.clear();
    const tp = performance.now();
    for (const lang of LANGS) {
      const pagePath = `${lang}/${rel}`;
      const depth = pagePath.split('/').filter(Boolean).length;
      const up = '../'.repeat(depth);
      const here = new URL(pagePath, site).href;
      const document = installDocument(template, here);
      // The state the page stands for, as the app's own URL for it.
      const over = view === 'model' ? { view, model } : view === 'device' ? { view, hw, ram: 0 } : { view, model, hw };
      const query = stateMod.queryFor({ ...stateMod.defaultState(), ...over, lang });
      history.replaceState(null, '', `${site.pathname}?${query}`);
      await app.renderStatic();
      history.replaceState(null, '', here);
      const css = finishPage(document, { up, query, site, rel, lang, styleRules });
      const html = `<!doctype html>\n${document.documentElement.outerHTML}\n`;
      fs.mkdirSync(path.join(dist, pagePath), { recursive: true });
      if (css) fs.writeFileSync(path.join(dist, pagePath, 'page.css'), `${css}\n`);
      fs.writeFileSync(path.join(dist, pagePath, 'index.html'), html);
      bytes += Buffer.byteLength(html);
      n++;
      index.push({ path: pagePath, title: document.title, description: document.querySelector('meta[name="description"]')?.getAttribute('content') || '' });
    }
    spent[view].push(performance.now() - tp);
  }
  memo.clear();
  if (opts.shard) return { pages: n, bytes, index, spent };
  for (const c of await Promise.all(children)) {
    n += c.pages;
    bytes += c.bytes;
    index.push(...c.index);
    for (const v of Object.keys(spent)) spent[v].push(...c.spent[v]);
  }
  const mean = (/** @type {number[]} */ xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length / 1000 : 0);
  fs.writeFileSync(path.join(dist, 'pages.json'), JSON.stringify(pagesDoc));
  fs.writeFileSync(path.join(dist, 'sitemap.xml'), '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
    [site.href, ...urls].map((u) => `<url><loc>${xmlEscape(u)}</loc></url>`).join('\n') + '\n</urlset>\n');
  fs.writeFileSync(path.join(dist, 'robots.txt'), `User-agent: *\nAllow: /\nSitemap: ${new URL('sitemap.xml', site).href}\n`);
  const seconds = (performance.now() - t0) / 1000;
  log(`prerendered ${n} pages in ${jobs} process${jobs > 1 ? 'es' : ''} (${models.length} models, ${hardware.length} devices, ${pairs.size} pairs; ${LANGS.length} languages), ` +
    `${(bytes / 1048576).toFixed(1)} MiB, ${seconds.toFixed(1)} s (choosing the pairs ${((tSel - t0) / 1000).toFixed(1)} s; four languages of a model page ${mean(spent.model).toFixed(2)} s, ` +
    `a device page ${mean(spent.device).toFixed(2)} s, a pair page ${mean(spent.main).toFixed(2)} s, each process)`);
  return { pages: n, bytes, seconds, index, pairs: pairs.size };
}

/**
 * What a page needs around the app's markup: paths to the app's files from its folder, the state
 * it stands for (the live app reads it), canonical and hreflang links, FAQ structured data from
 * the visible FAQ, and the bars' widths in a stylesheet of its own (the CSP forbids style attributes);
 * on a pair page, the part of the app's stylesheet its first frame needs and the bars' widths
 * inline, named by hash in the page's own CSP (see below). Returns the page's own stylesheet
 * (page.css), if it has one.
 * @param {Document} document
 * @param {{up: string, query: string, site: URL, rel: string, lang: string, styleRules: import('./critical-css.mjs').Rule[]}} p
 */
function finishPage(document, { up, query, site, rel, lang, styleRules }) {
  const html = document.documentElement;
  html.removeAttribute('data-build');
  html.setAttribute('data-query', query);
  html.setAttribute('data-root', up);
  const isFile = (/** @type {string} */ v) => /^[a-z0-9_][\w.\/-]*$/i.test(v) && !/^[a-z]+:/i.test(v);
  for (const el of document.querySelectorAll('[href], [src]')) {
    for (const a of ['href', 'src']) {
      const v = el.getAttribute(a);
      if (v === null) continue;
      if (v === '?' || v === '') el.setAttribute(a, up || './');
      else if (v.startsWith('?')) el.setAttribute(a, `${up || './'}${v}`);   // the app's own query links
      else if (isFile(v)) el.setAttribute(a, up + v);
    }
  }
  // The app is asked for after the first frame (web/boot.js says why).
  const entry = document.querySelector('script[type="module"][src$="app.js"]');
  if (!entry) throw new Error('prerender: the page no longer loads app.js as a module');
  entry.setAttribute('src', (entry.getAttribute('src') || '').replace(/app\.js$/, 'boot.js'));
  // The long device lists of the form (every catalog device, twice) keep their chosen entry: the
  // live app fills them again when it takes the page over, and without it they change nothing.
  for (const sel of document.querySelectorAll('select')) {
    const opts = [...sel.querySelectorAll('option')];
    if (opts.length <= 40) continue;
    const keep = opts.find((o) => o.hasAttribute('selected')) || opts[0];
    keep.setAttribute('selected', '');
    sel.replaceChildren(keep);
  }
  // The page reads without JavaScript, so the notice that the app needs it goes; the form is
  // folded to its one-line summary, so a phone shows the answer first (the live app opens it on a
  // wide screen).
  for (const el of document.querySelectorAll('noscript')) el.remove();
  document.getElementById('setup-box')?.removeAttribute('open');
  // The chart is drawn on a canvas by the live app; the static page has its table.
  document.getElementById('chart')?.replaceChildren();
  // The saved-copy notice (snapshot.js) is written by the live app when it renders; a page
  // built ahead is not a saved copy.
  document.getElementById('snapshot')?.replaceChildren();
  const head = document.head;
  const add = (/** @type {string} */ tag, /** @type {Record<string, string>} */ attrs) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    head.append(el);
    return el;
  };
  for (const el of document.querySelectorAll('link[rel="canonical"]')) el.remove();
  add('link', { rel: 'canonical', href: new URL(`${lang}/${rel}`, site).href });
  for (const l of LANGS) add('link', { rel: 'alternate', hreflang: l, href: new URL(`${l}/${rel}`, site).href });
  add('link', { rel: 'alternate', hreflang: 'x-default', href: new URL(`en/${rel}`, site).href });
  const desc = document.querySelector('meta[name="description"]')?.getAttribute('content') || '';
  add('meta', { property: 'og:title', content: document.title });
  add('meta', { property: 'og:description', content: desc });
  add('meta', { property: 'og:url', content: new URL(`${lang}/${rel}`, site).href });
  // The FAQ as the page shows it (the visible view's questions and answers, word for word).
  const view = document.querySelector('.view:not([hidden])');
  const qa = view ? [...view.querySelectorAll('.faq details')].map((d) => {
    const q = d.querySelector('summary')?.textContent?.trim() || '';
    const a = [...d.children].filter((c) => c.tagName !== 'SUMMARY').map((c) => c.textContent?.trim()).join(lang === 'zh' ? '' : ' ').trim();  // no space after a Chinese 。
    return { q, a };
  }).filter((x) => x.q && x.a) : [];
  if (qa.length) {
    const ld = document.createElement('script');
    ld.setAttribute('type', 'application/ld+json');
    ld.textContent = JSON.stringify({
      '@context': 'https://schema.org', '@type': 'FAQPage', inLanguage: lang,
      mainEntity: qa.map((x) => ({ '@type': 'Question', name: x.q, acceptedAnswer: { '@type': 'Answer', text: x.a } })),
    }).replace(/</g, '\\u003c');
    head.append(ld);
  }
  // Inline widths (the memory bar) as id rules in the page's own stylesheet.
  const rules = [];
  let k = 0;
  for (const el of document.querySelectorAll('[style]')) {
    const st = el.getAttribute('style');
    el.removeAttribute('style');
    if (!st) continue;
    if (!el.id) el.id = `pr-${k++}`;
    rules.push(`#${el.id}{${st}}`);
  }
  // The first paint holds the header and the answer, not the whole page. A trace of the first
  // frame (Chromium, a pair page) spent most of it on style and layout of ~2,000 layout objects,
  // two thirds of them in the sections below the answer, and on a font lookup per size and weight
  // they use; content-visibility: auto does not spare the first layout. So the page comes in two
  // parts: the chart's stylesheet (uPlot) opens the sections below the answer, and a stylesheet
  // in the body pauses the parser until it has loaded (content above it still paints), so the
  // first frame is the part above it. The bars' widths are part of the answer: they are inline
  // with it (below), so the bar never paints without them. Pages without that section (model,
  // device) load the chart's stylesheet at the end of the body, and the bars' widths (if any) in
  // page.css after the app's stylesheet in the head.
  //
  // The pause comes where the first screen of a desktop window (1280 × 720) ends: after the bar
  // and the line under it, before the table of where the memory goes, which is below that fold
  // (and far below it on a phone). A Chromium trace of the first frame with the table in it: 206
  // layout objects, 63 text runs shaped, 19 tiles rasterized (10 ms, before the frame can be
  // shown); without it 160, 48 and 15 tiles (8 ms): the tiles under the fold that only the table
  // filled are one colour, and those are not rasterized. The table arrives with the sections below
  // (where an answer is short, a no-fit one without speed figures, it is on that first screen and
  // comes a frame later, under everything the first frame drew: nothing moves).
  const chartCss = [...document.querySelectorAll('link[rel="stylesheet"]')].find((l) => /uPlot\.min\.css$/.test(l.getAttribute('href') || ''));
  const below = view?.id === 'view-main' ? view.querySelector(':scope > .wide') : null;
  /** The element the two stylesheets go before: where the parser pauses. */
  const pause = below ? (view?.querySelector('#result > table.terms') || below) : null;
  const putBefore = (/** @type {Element} */ el) => {
    if (pause === below) below?.prepend(el);
    else pause?.before(el);
  };
  if (chartCss) {
    if (pause) putBefore(chartCss);
    else document.body.append(chartCss);
  }
  if (below && pause) {
    // A pair page waits for no stylesheet before its first paint. A Chromium trace of the first
    // frame had it wait for styles.css (requested from the head; 25-50 ms after navigation on
    // an idle machine, more under load) and then for the bars' widths (page.css). So the rules
    // of styles.css that the first frame's elements use, and the bars' widths, are inline in the
    // head (criticalCss: copies in the stylesheet's order, so when styles.css has loaded the
    // cascade is its own), and styles.css itself comes where the parser pauses (above), after
    // the chart's stylesheet: the rest of the page is parsed with the whole stylesheet. The CSP names the block by its hash (style-src 'self' alone
    // refuses inline styles): in a <meta http-equiv> first in the head, for a host that sends no
    // policy, and in the header scripts/server.mjs sends with the page, read from that <meta>.
    const main = [...head.querySelectorAll('link[rel="stylesheet"]')].find((l) => /(^|\/)styles\.css$/.test(l.getAttribute('href') || ''));
    if (!main) throw new Error('prerender: the page has no styles.css in its head');
    const style = document.createElement('style');
    main.before(style);
    // After the chart's stylesheet, as in the head before: where both set a property with the
    // same specificity, styles.css still wins.
    if (chartCss) chartCss.after(main);
    else putBefore(main);
    // The first frame's elements end where the parser pauses: at the first of the two links.
    const css = [criticalCss(styleRules, firstFrameElements(document, chartCss || main)), ...rules].join('\n');
    // The block is written as it is (raw text): the hash below is of these very bytes.
    if (/<\/style/i.test(css)) throw new Error('prerender: the inline stylesheet would end its own element');
    style.textContent = css;
    // The first frame's style and layout start where the parser pauses, not a few ms later.
    // Chromium computes them only when something asks: the compositor's first frame, which it
    // can ask for once the browser has shown it the page, or a task that needs a layout. In
    // traces of this page the first to ask was the focus the browser gives a new page, which
    // came about 2 ms after the parser had paused, while the main thread waited idle; and the
    // page's first font request, made during that style, then met the browser drawing a frame
    // of its own window and waited about 5 ms for its answer. A one-line script at the pause asks
    // for the layout at once (the work is the same, and the first frame needs it anyway). Side
    // by side (npm run bench -- --static --against, 41 runs alternating, twice, the bench at
    // real-time priority on the 2-core machine, load average 7-9): median first paint 48 ms with
    // it against 52 ms without, trimmed means 47.3 against 52.7 and 47.2 against 50.9, the
    // one-line page 32 ms. Without scripts the page is as before. The CSP names the script by its
    // hash, like the style block.
    const kick = document.createElement('script');
    kick.textContent = FIRST_LAYOUT;
    (chartCss || main).before(kick);
    const kickHash = `'sha256-${crypto.createHash('sha256').update(FIRST_LAYOUT, 'utf8').digest('base64')}'`;
    // Neither is preloaded from the head. With both preloaded (an earlier build), styles.css often
    // arrived before the parser reached its link, the parser did not pause, and the first frame
    // was the whole page: Chromium traces of the pair page under load had the first frame lay out
    // every section (about 2,000 layout objects against 202 above the pause), and side by side
    // (npm run bench -- --static --against, 15 runs alternating, a loaded machine) the first paint
    // came at 76 ms with the preloads against 48 ms without, the one-line page at 32. Without
    // them the preload scanner asks early for
    // the first stylesheet of the body (the chart's, small) and for styles.css only when the
    // parser reaches it, so the parser always waits there and the header and the answer are
    // painted first. The cost is one request for styles.css that starts when the parser gets there
    // (a few ms after the document arrives) instead of with the document.
    // The module script (boot.js) comes at the end of the body, after the pause, not in the
    // head: from the head it was asked for while the first frame was being made (the request, and
    // V8 compiling the answer off the main thread, on the same two cores as the font requests,
    // style and layout of that frame). It runs when it did before (a module script runs once the
    // document is parsed) and the app is asked for at the same time (web/boot.js: after the
    // first frame). Side by side (30 runs alternating, a loaded 2-core machine, real-time
    // priority), mean first paint 57.6 ms with it in the head, 56.8 ms at the end of the body.
    document.body.append(entry);
    const hash = `'sha256-${crypto.createHash('sha256').update(css, 'utf8').digest('base64')}'`;
    const meta = document.createElement('meta');
    meta.setAttribute('http-equiv', 'Content-Security-Policy');
    meta.setAttribute('content', cspWith({ styles: [hash], scripts: [kickHash], meta: true }));
    const charset = head.querySelector('meta[charset]');
    if (charset) charset.after(meta);
    else head.prepend(meta);
    return '';
  }
  if (rules.length) {
    const css = document.createElement('link');
    css.setAttribute('rel', 'stylesheet');
    css.setAttribute('href', 'page.css');
    const main = [...head.querySelectorAll('link[rel="stylesheet"]')].pop();
    if (main) main.after(css);
    else head.append(css);
  }
  return rules.join('\n');
}

/**
 * A shard's answer to the process that forked it, then the channel closed. The answer can be
 * megabytes (every page's title and description): the channel is closed once it has been
 * written. Closed right after send(), a large answer was dropped and the shard ended with exit
 * code 0 and no answer, so drawing every page (npm start) failed while a quick build passed.
 * @param {unknown} r
 */
export async function answerParent(r) {
  const send = process.send?.bind(process);
  if (!send) return;
  await new Promise((resolve, reject) => { send(r, undefined, undefined, (/** @type {Error | null} */ e) => (e ? reject(e) : resolve(null))); });
  process.disconnect?.();
}

// node scripts/prerender.mjs [--dist <dist>] [--limit k]: draw the pages (the first k models and
// devices only, with --limit: a quick build); --shard i/n is one drawing process (see prerender).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (/** @type {string} */ k) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : undefined; };
  const sh = arg('--shard');
  const dist = arg('--dist') || path.join(root, 'dist');
  if (sh) {
    const [i, n] = sh.split('/').map(Number);
    const limit = arg('--limit');
    const { pairs } = await new Promise((resolve) => process.once('message', resolve));
    const r = await prerender(dist, { shard: [i, n], pairs, ...(limit !== undefined ? { limit: Number(limit) } : {}) });
    await answerParent(r);
  } else {
    const limit = arg('--limit');
    await prerender(dist, limit !== undefined ? { limit: Number(limit) } : {});
  }
}
