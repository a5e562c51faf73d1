// The prerendered pages (scripts/prerender.mjs, built into dist/ by scripts/assemble.mjs): a
// sample of them read as a search engine or a browser without JavaScript would, and their figures
// compared with what the module computes now for the state each page names.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { parseHTML } from 'linkedom';

import { FIRST_LAYOUT } from '../../scripts/prerender.mjs';
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
    // No stylesheet in the head: the first frame's rules and the bars' widths are inline there
    // (one block), so the answer's bar never paints without its widths and the first paint
    // waits for no request.
    assert.deepEqual(sheets.filter((l) => l.parentElement === doc.head).map((l) => l.getAttribute('href')), [], `${p}: no stylesheet link in the head`);
    const styles = [...doc.querySelectorAll('style')];
    assert.equal(styles.length, 1, `${p}: one inline style block`);
    assert.equal(styles[0].parentElement, doc.head, p);
    assert.match(styles[0].textContent || '', /\.verdict\{/, `${p}: the block styles the verdict`);
    assert.match(styles[0].textContent || '', /#seg-weights\{width:[\d.]+%\}/, `${p}: the block holds the bars' widths`);
    assert.ok(!fs.existsSync(path.join(dist, p, 'page.css')), `${p}: no page.css`);
    // The chart's stylesheet, then the app's, come where a desktop window's first screen ends:
    // in the answer after its bar, before the table of where the memory goes. A stylesheet in the
    // body pauses the parser there, so the first frame is the header and the answer down to the
    // bar, and the table and the sections below it are parsed with the whole stylesheet.
    const table = doc.querySelector('#result > table.terms');
    assert.ok(table, `${p}: the answer has its breakdown table`);
    const first = table?.previousElementSibling?.previousElementSibling;
    const second = table?.previousElementSibling;
    assert.equal(first?.tagName, 'LINK', `${p}: the parser pauses before the breakdown table, at a stylesheet`);
    assert.match(first?.getAttribute('href') || '', /vendor\/uPlot\.min\.css$/, p);
    assert.equal(second?.tagName, 'LINK', `${p}: then the app's stylesheet`);
    // Right before them, the one-line script that asks for the first frame's layout as soon as
    // the parser gets there, and no other inline script in the page (its JSON-LD is data).
    const kick = first?.previousElementSibling;
    assert.equal(kick?.tagName, 'SCRIPT', `${p}: a script right before the pause`);
    assert.equal(kick?.textContent, FIRST_LAYOUT, `${p}: it asks for the layout and does nothing else`);
    assert.ok(kick && !kick.hasAttribute('src') && !kick.hasAttribute('type'), `${p}: a classic inline script`);
    assert.equal([...doc.querySelectorAll('script:not([src]):not([type="application/ld+json"])')].length, 1, `${p}: the only inline script`);
    assert.match(second?.getAttribute('href') || '', /^(\.\.\/)+styles\.css$/, p);
    assert.equal(hrefs.filter((h) => /uPlot\.min\.css$/.test(h)).length, 1, `${p}: the chart's stylesheet once`);
    assert.equal(hrefs.filter((h) => /styles\.css$/.test(h)).length, 1, `${p}: the app's stylesheet once`);
    // Neither asked for from the head: a preloaded styles.css could arrive before the parser
    // reaches its link, and the parser would not pause there (the first frame would be the whole
    // page). The preload scanner asks early only for the body's first stylesheet (the chart's).
    const preloads = [...doc.querySelectorAll('link[rel="preload"]')].map((l) => l.getAttribute('href'));
    assert.deepEqual(preloads, [], `${p}: no stylesheet preloaded`);
    // The verdict, the key figures and the bar are above that point, in the markup; the
    // sections below the answer after it.
    // (Document order by index: linkedom's compareDocumentPosition gets nested elements wrong.)
    const order = [...doc.querySelectorAll('*')];
    const at = (/** @type {Element | null | undefined} */ e) => (e ? order.indexOf(e) : -1);
    for (const id of ['verdict', 'c-total', 'c-usable', 'c-margin', 'bar', 'usable-rule']) {
      const e = doc.getElementById(id);
      assert.ok(e && at(e) < at(first), `${p}: #${id} comes before the pause`);
    }
    assert.ok(at(doc.querySelector('#view-main > .wide')) > at(first), `${p}: the sections below the answer come after the pause`);
    // The module script is asked for after the pause, not while the first frame is made.
    const entry = doc.querySelector('script[type="module"]');
    assert.ok(entry && entry.parentElement === doc.body && at(entry) > at(first), `${p}: the module script comes after the pause, in the body`);
    assert.notEqual(doc.getElementById('c-total')?.textContent, '—', `${p}: the required memory is in the markup`);
  }
});

test('every select of a page has its options and one of them chosen before the app runs (the header\'s market list was empty)', () => {
  for (const p of [...new Set([...pairPages, ...sample])]) {
    const doc = read(p);
    for (const sel of doc.querySelectorAll('select')) {
      if (sel.closest('[hidden]')) continue;   // not drawn (e.g. the form of the main view on a device page)
      const opts = [...sel.querySelectorAll('option')];
      assert.ok(opts.length > 0, `${p}: #${sel.id} has no option`);
      assert.ok(opts.filter((o) => o.hasAttribute('selected')).length <= 1, `${p}: #${sel.id} has one chosen option at most`);
    }
  }
});

test('every page asks for the app only after its first frame: its module script is boot.js, which imports app.js', () => {
  for (const p of [...new Set([...pairPages, ...sample])]) {
    const doc = read(p);
    const scripts = [...doc.querySelectorAll('script[type="module"]')].map((s) => s.getAttribute('src') || '');
    assert.equal(scripts.length, 1, `${p}: one module script`);
    assert.match(scripts[0], /^(\.\.\/)+boot\.js$/, `${p}: the module script is boot.js`);
    assert.ok(fs.existsSync(path.join(dist, p, scripts[0])), `${p}: ${scripts[0]} resolves to a file`);
  }
  const boot = fs.readFileSync(path.join(dist, 'boot.js'), 'utf8');
  assert.match(boot, /import\('\.\/app\.js'\)/, 'boot.js imports the app');
  assert.match(boot, /requestAnimationFrame/, 'after a frame');
  assert.doesNotMatch(boot, /^import /m, 'boot.js imports nothing up front');
});

test('a shard of the page drawing hands a large answer to its parent whole (npm start draws every page)', async () => {
  const { fork } = await import('node:child_process');
  const os = await import('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-shard-'));
  const child = path.join(dir, 'child.mjs');
  // About 6 MB, as the index of every page a shard draws: the size that was lost before.
  fs.writeFileSync(child, `import { answerParent } from ${JSON.stringify(new URL('../../scripts/prerender.mjs', import.meta.url).href)};\n` +
    'await new Promise((r) => process.once(\'message\', r));\n' +
    'await answerParent({ index: Array.from({ length: 20000 }, (_, i) => ({ path: `en/m${i}/`, title: \'t\'.repeat(120), description: \'d\'.repeat(180) })) });\n');
  try {
    const c = fork(child, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    /** @type {any} */
    let got = null;
    c.on('message', (m) => { got = m; });
    c.send({ go: true });
    const code = await new Promise((r) => c.on('exit', r));
    assert.equal(code, 0);
    assert.equal(got?.index?.length, 20000, 'the whole answer arrived');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every inline style block is named by its hash in the page\'s own CSP and in the header the server sends with it', async () => {
  const { cspWith, pageStyleHashes, pageScriptHashes } = await import(path.join(root, 'scripts', 'server.mjs'));
  let blocks = 0;
  for (const p of pages) {
    const html = fs.readFileSync(path.join(dist, p, 'index.html'), 'utf8');
    // The bytes the browser hashes: a <style> element's text as written (raw text, no entities).
    const inline = [...html.matchAll(/<style>([^]*?)<\/style>/g)].map((m) => `'sha256-${crypto.createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
    const metas = [...html.matchAll(/<meta\s[^>]*http-equiv="Content-Security-Policy"[^>]*>/g)];
    if (!inline.length) { assert.equal(metas.length, 0, `${p}: a policy of its own only with inline styles`); continue; }
    blocks += inline.length;
    assert.equal(metas.length, 1, `${p}: one policy of its own`);
    // First in the head after the charset: a <meta> policy governs only what follows it.
    const doc = read(p);
    const meta = doc.head.querySelector('meta[http-equiv="Content-Security-Policy"]');
    assert.equal(meta?.previousElementSibling?.getAttribute('charset'), 'utf-8', `${p}: the policy right after the charset`);
    assert.equal(doc.head.firstElementChild?.getAttribute('charset'), 'utf-8', p);
    const hashes = pageStyleHashes(html);
    assert.deepEqual(hashes, inline, `${p}: the policy names each inline block by the hash of its bytes`);
    // The same for the inline script (a pair page's, at the pause): a plain <script> element.
    const scripts = [...html.matchAll(/<script>([^]*?)<\/script>/g)].map((m) => `'sha256-${crypto.createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
    assert.deepEqual(pageScriptHashes(html), scripts, `${p}: the policy names each inline script by the hash of its bytes`);
    // The rest of the policy is the server's, word for word (less frame-ancestors, which only a header sets).
    assert.equal(meta?.getAttribute('content'), cspWith({ styles: inline, scripts, meta: true }), p);
    assert.doesNotMatch(meta?.getAttribute('content') || '', /unsafe-inline|frame-ancestors/, p);
  }
  assert.ok(blocks >= pairPages.length, 'every pair page has its block');
});
