// The prerendered pages (scripts/prerender.mjs, built into dist/ by scripts/assemble.mjs): a
// sample of them read as a search engine or a browser without JavaScript would, and their figures
// compared with what the module computes now for the state each page names.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { parseHTML } from 'linkedom';

import { api, root } from './helpers.mjs';

const dist = path.join(root, 'dist');
const pagesDoc = JSON.parse(fs.readFileSync(path.join(dist, 'pages.json'), 'utf8'));
const { gib } = await import(path.join(dist, 'format.js'));
const defaults = await api.defaults({});
const LANGS = ['en', 'es', 'fr', 'zh'];

/** Every prerendered page, as its path under dist/ ('es/glm-4.5-air/…/'). */
function allPages() {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ rel) => {
    for (const e of fs.readdirSync(path.join(dist, rel), { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${rel}${e.name}/`);
      else if (e.name === 'index.html' && rel) out.push(rel);
    }
  };
  for (const l of LANGS) walk(`${l}/`);
  return out.sort();
}
const pages = allPages();
const pairPages = pages.filter((p) => p.split('/').filter(Boolean).length === 3);
/** The reference page's pair in every language, and every 40th other page. */
const sample = [...new Set([...LANGS.map((l) => `${l}/glm-4.5-air/mac-studio-m3-ultra-512gb/`), ...pages.filter((_, i) => i % 40 === 0)])];

/** @param {string} p */
function read(p) {
  return parseHTML(fs.readFileSync(path.join(dist, p, 'index.html'), 'utf8')).document;
}

test('there is a page per model, per device and per listed pair, in each language', () => {
  const n = Object.keys(pagesDoc.models).length + Object.keys(pagesDoc.devices).length + pagesDoc.pairs.length;
  assert.equal(pages.length, n * LANGS.length);
  assert.ok(pagesDoc.pairs.includes('glm-4.5-air/mac-studio-m3-ultra-512gb'), 'the reference pair has a page');
  assert.ok(pairPages.length >= LANGS.length * 3, 'the reference pages\' pairs at least');
  // Every pair page's model and device have their own pages (the map lists them).
  for (const p of pagesDoc.pairs) {
    const [m, d] = p.split('/');
    assert.ok(Object.values(pagesDoc.models).includes(m) && Object.values(pagesDoc.devices).includes(d), p);
  }
});

test('sampled pages: own title and description naming the page, canonical, hreflang, FAQ data as shown', () => {
  /** @type {Set<string>} */ const titles = new Set();
  /** @type {Set<string>} */ const descs = new Set();
  const site = new URL(read(sample[0]).querySelector('link[rel="canonical"]')?.getAttribute('href') || 'x:').origin;
  for (const p of sample) {
    const doc = read(p);
    const lang = p.slice(0, 2);
    assert.equal(doc.documentElement.getAttribute('lang'), lang, p);
    const title = doc.title;
    const desc = doc.querySelector('meta[name="description"]')?.getAttribute('content') || '';
    assert.ok(title && !titles.has(title), `${p}: unique title (${title})`);
    assert.ok(desc && !descs.has(desc), `${p}: unique description`);
    titles.add(title);
    descs.add(desc);
    assert.equal(doc.querySelectorAll('link[rel="canonical"]').length, 1, p);
    assert.equal(doc.querySelector('link[rel="canonical"]')?.getAttribute('href'), `${site}/${p}`, p);
    const alt = [...doc.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => `${l.getAttribute('hreflang')} ${l.getAttribute('href')}`);
    assert.deepEqual(alt, [...LANGS.map((l) => `${l} ${site}/${l}/${p.slice(3)}`), `x-default ${site}/en/${p.slice(3)}`], p);
    assert.equal(doc.querySelectorAll('[style]').length, 0, `${p}: no style attribute (the CSP forbids them)`);
    // The page's state names the model and device the title names.
    const q = new URLSearchParams(doc.documentElement.dataset.query);
    const view = q.get('view') || 'main';
    if (view !== 'device') {
      const model = pagesDoc.models[q.get('model') || ''];
      assert.ok(model && p.includes(`/${model}/`), `${p}: its state's model`);
    }
    if (view !== 'model') assert.ok(p.endsWith(`/${pagesDoc.devices[q.get('hw') || '']}/`), `${p}: its state's device`);
    // FAQ structured data: valid JSON, the same questions and answers as the visible FAQ.
    const ld = doc.querySelector('script[type="application/ld+json"]');
    const visible = [...doc.querySelectorAll('.view:not([hidden]) .faq details')];
    if (view === 'device') { assert.equal(ld, null, p); continue; }
    assert.ok(ld, `${p}: FAQ structured data`);
    const data = JSON.parse(ld.textContent || '');
    assert.equal(data['@type'], 'FAQPage');
    assert.equal(data.mainEntity.length, visible.length, p);
    assert.ok(visible.length >= 2, `${p}: a visible FAQ`);
    data.mainEntity.forEach((/** @type {any} */ e, /** @type {number} */ i) => {
      assert.equal(e.name, visible[i].querySelector('summary')?.textContent?.trim(), p);
      assert.ok(e.acceptedAnswer.text.length > 20 && visible[i].textContent?.includes(e.acceptedAnswer.text), p);
    });
  }
});

test('sampled pair pages show the figures the module computes for their state', async () => {
  const llama = defaults.engines['llama.cpp'];
  const checked = pairPages.filter((p, i) => sample.includes(p) || i % 60 === 0);
  assert.ok(checked.length >= LANGS.length, 'the reference pair in every language at least');
  for (const p of checked) {
    const doc = read(p);
    const lang = p.slice(0, 2);
    const q = new URLSearchParams(doc.documentElement.dataset.query);
    const r = await api.estimate({ model: q.get('model'), quant: q.get('quant') || llama.quant, hardware: q.get('hw'), context: Number(q.get('ctx')),
      kv_type: q.get('kv'), count: Number(q.get('count')), ram_gib: Number(q.get('ram')) });
    assert.equal(doc.getElementById('verdict')?.dataset.verdict, r.verdict, p);
    assert.equal(doc.getElementById('c-total')?.textContent, gib(r.memory.total_bytes, lang), `${p}: required memory`);
    assert.equal(doc.getElementById('c-usable')?.textContent, gib(r.memory.usable_bytes, lang), `${p}: usable memory`);
    assert.equal(doc.getElementById('t-weights')?.textContent, gib(r.memory.weights_bytes, lang), `${p}: weights`);
    const decode = doc.getElementById('k-decode');
    if (r.speed && r.speed.decode_tps > 0) assert.equal(Number(decode?.dataset.v), r.speed.decode_tps, `${p}: decode speed`);
    // The FAQ's first answer carries the same total.
    assert.ok(doc.querySelector('#faq-main details p')?.textContent?.includes(gib(r.memory.total_bytes, lang)), `${p}: FAQ total`);
  }
});

test('every link on every page leads somewhere: a file under dist/, or the app root with a query', () => {
  const bad = [];
  let n = 0;
  for (const p of pages) {
    const doc = read(p);
    for (const el of doc.querySelectorAll('a[href], link[href], script[src]')) {
      const v = el.getAttribute('href') ?? el.getAttribute('src') ?? '';
      if (/^(https?:|mailto:|#)/.test(v)) continue;
      n++;
      // Relative to the page's own folder, as a browser resolves it; never from the host's root
      // (the site may live under a sub-path) and never a doubled page path.
      const u = new URL(v, `http://site/${p}`);
      const file = decodeURIComponent(u.pathname).replace(/\/$/, '/index.html').slice(1);
      if (v.startsWith('/') || !fs.existsSync(path.join(dist, file))) bad.push(`${p}: ${v}`);
    }
  }
  assert.ok(n > pages.length * 10, `only ${n} links`);
  assert.deepEqual(bad.slice(0, 10), []);
});

test('sitemap lists every page; robots.txt points to it', () => {
  const xml = fs.readFileSync(path.join(dist, 'sitemap.xml'), 'utf8');
  const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
  assert.equal(locs.length, pages.length + 1);
  for (const p of sample) assert.ok(locs.some((l) => l.endsWith(`/${p}`)), p);
  assert.match(fs.readFileSync(path.join(dist, 'robots.txt'), 'utf8'), /^Sitemap: https?:\/\/\S+\/sitemap\.xml$/m);
});

test('pair pages come in two parts: the answer paints before the sections below it are parsed', () => {
  assert.ok(pairPages.length > 0);
  for (const p of pairPages) {
    const doc = read(p);
    const sheets = [...doc.querySelectorAll('link[rel="stylesheet"]')];
    const hrefs = sheets.map((l) => l.getAttribute('href') || '');
    // The page's stylesheet and the bars' widths block the first paint (in the head), so the
    // answer's bar never paints without its widths.
    const inHead = sheets.filter((l) => l.parentElement === doc.head).map((l) => l.getAttribute('href') || '');
    assert.ok(inHead.some((h) => /(^|\/)styles\.css$/.test(h)), `${p}: styles.css in the head`);
    if (fs.existsSync(path.join(dist, p, 'page.css'))) assert.ok(inHead.includes('page.css'), `${p}: page.css in the head`);
    // The chart's stylesheet opens the sections below the answer: a stylesheet in the body pauses
    // the parser there, so the first frame is the header and the answer.
    const below = doc.querySelector('#view-main > .wide');
    const first = below?.firstElementChild;
    assert.equal(first?.tagName, 'LINK', `${p}: the sections below the answer open with a stylesheet`);
    assert.match(first?.getAttribute('href') || '', /vendor\/uPlot\.min\.css$/, p);
    assert.equal(hrefs.filter((h) => /uPlot\.min\.css$/.test(h)).length, 1, `${p}: the chart's stylesheet once`);
    // The answer itself is above that point, in the markup.
    const result = doc.getElementById('result');
    assert.ok(result && result.compareDocumentPosition(first) & 4, `${p}: the answer comes before the pause`);
    assert.notEqual(doc.getElementById('c-total')?.textContent, '—', `${p}: the required memory is in the markup`);
  }
});
