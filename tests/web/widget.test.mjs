import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { startMockHub } from '../mock/hub.mjs';
import { axeProblems, core, otherOrigin, root, setup } from './helpers.mjs';

let env;
let host;   // a blog on another origin
let hostUrl;
/** @type {Map<string, string>} */
let pages;

before(async () => {
  env = await setup();
  host = await otherOrigin();
  hostUrl = host.url;
  pages = host.pages;
});
after(async () => {
  await env.close();
  await host.close();
});

test('a blog on another origin embeds two widgets that share one wasm instance and show verdicts', async () => {
  pages.set('/post.html', `<!doctype html><html><head><style>p { color: rgb(255, 0, 0); }</style></head><body>
    <p id="own">The blog's own text.</p>
    <will-it-fit id="a" model="zai-org/GLM-4.5-Air" hardware="apple-m3-ultra-80c-gpu-512gb" quant="Q4_K_M" context="8192">GLM-4.5-Air fits a 512 GB Mac Studio.</will-it-fit>
    <will-it-fit id="b" model="meta-llama/Llama-3.1-8B-Instruct" hardware="nvidia-rtx-4090" quant="Q4_K_M" lang="es">Llama 3.1 8B.</will-it-fit>
    <script type="module" src="${env.url}widget.js"></script></body></html>`);
  const page = await env.page();
  const wasmLoads = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasmLoads.push(r.url()); });
  const before = await page.goto(`${hostUrl}/post.html`).then(() => page.evaluate(() => Object.keys(window).length));
  await page.waitForFunction(() => document.querySelector('#a')?.dataset.verdict && document.querySelector('#b')?.dataset.verdict);
  assert.equal(await page.getAttribute('#a', 'data-verdict'), 'fits');
  assert.equal(await page.getAttribute('#b', 'data-verdict'), 'fits');
  const es = await page.evaluate(() => document.querySelector('#b').shadowRoot.querySelector('.verdict').textContent);
  assert.equal(es, 'Cabe con margen');
  // The speed carries the core's range, as on the page.
  assert.match(await page.evaluate(() => document.querySelector('#a').shadowRoot.querySelector('.foot span').textContent), /^~[\d.]+\u00a0tok\/s \([\d.]+–\u2060[\d.]+\)$/);
  assert.equal(wasmLoads.length, 1, 'one module for both widgets');
  // No style leaks either way, no new globals.
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('#own')).color), 'rgb(255, 0, 0)');
  const title = await page.evaluate(() => getComputedStyle(document.querySelector('#a').shadowRoot.querySelector('.title')).color);
  assert.notEqual(title, 'rgb(255, 0, 0)');
  assert.equal(await page.evaluate(() => Object.keys(window).length), before);
  // Attributes change it live.
  await page.evaluate(() => document.querySelector('#a').setAttribute('hardware', 'nvidia-rtx-4090'));
  await page.waitForFunction(() => document.querySelector('#a').dataset.verdict === 'no_fit');
  await page.evaluate(() => document.querySelector('#a').setAttribute('ram', '64'));
  await page.waitForFunction(() => document.querySelector('#a').dataset.verdict === 'offload');
  // Its "full details" link opens the same setup (the RAM too), not a "does not fit".
  assert.match(await page.evaluate(() => document.querySelector('#a').shadowRoot.querySelector('.foot a').href), /[?&]ram=64(&|$)/);
  await page.screenshot({ path: path.join(root, 'test-results', 'widget.png') });
  assert.deepEqual(page.problems, []);
});

test('an iframe embed resizes itself through postMessage, and markup in its URL stays text', async () => {
  const evil = encodeURIComponent('<img src=x onerror="parent.__pwned=1">');
  pages.set('/iframe.html', `<!doctype html><html><body>
    <iframe id="f1" style="width:480px;height:20px;border:0" src="${env.url}embed.html?model=zai-org/GLM-4.5-Air&hw=nvidia-rtx-4090&quant=Q4_K_M&ctx=8192&ram=64"></iframe>
    <iframe id="f2" style="width:480px;height:20px;border:0" src="${env.url}embed.html?model=${evil}&hw=nvidia-rtx-4090"></iframe>
    <script type="module" src="${env.url}embed-host.js"></script></body></html>`);
  const page = await env.page();
  await page.goto(`${hostUrl}/iframe.html`);
  await page.waitForFunction(() => parseInt(document.querySelector('#f1').style.height, 10) > 80);
  const frame = page.frames().find((f) => f.url().includes('ctx=8192'));
  await frame.waitForFunction(() => document.querySelector('#card').dataset.verdict === 'offload');
  const bad = page.frames().find((f) => f.url().includes('img'));
  await bad.waitForFunction(() => document.querySelector('#card').dataset.verdict === 'error');
  // The reader gets the error in words, not the core's code: the code stays in data-code.
  const shownErr = await bad.evaluate(() => { const c = document.querySelector('#card'); return { code: c.dataset.code, v: c.shadowRoot.querySelector('.verdict').textContent, line: c.shadowRoot.querySelector('.line').textContent }; });
  assert.equal(shownErr.v, 'Cannot estimate');
  assert.ok(shownErr.code && shownErr.code !== 'error', JSON.stringify(shownErr));
  assert.ok(!shownErr.line.includes(shownErr.code), JSON.stringify(shownErr));
  assert.equal(await bad.evaluate(() => document.querySelectorAll('img').length), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // A message from any other origin is ignored.
  await page.evaluate(() => window.postMessage({ type: 'willitfit:height', height: 999 }, '*'));
  await page.waitForTimeout(200);
  assert.ok(parseInt(await page.evaluate(() => document.querySelector('#f1').style.height), 10) < 999);
});

test('Hub attributes: hf with quant or file reads the repo (the mock Hub), and failures carry the page\'s codes and messages', async () => {
  const mock = await startMockHub();
  try {
    pages.set('/hub.html', `<!doctype html><html><body>
      <will-it-fit id="q8" hf="mock/Llama-3.1-8B-GGUF" quant="Q8_0" hardware="nvidia-rtx-4090" context="8192"></will-it-fit>
      <script type="module" src="${env.url}widget.js"></script></body></html>`);
    const page = await env.page();
    await page.addInitScript((base) => { /** @type {any} */ (globalThis).__WILLITFIT_HUB_BASE__ = base; }, mock.hubUrl);
    await page.goto(`${hostUrl}/hub.html`);
    await page.waitForFunction(() => document.getElementById('q8')?.dataset.verdict);
    await page.evaluate(() => {
      const w = document.createElement('will-it-fit');
      w.id = 'bf';
      w.setAttribute('hf', 'https://huggingface.co/mock/Llama-3.1-8B-GGUF');
      w.setAttribute('file', 'Llama-3.1-8B-Q4_K_M.gguf');
      w.setAttribute('hardware', 'nvidia-rtx-4090');
      document.body.append(w);
    });
    await page.waitForFunction(() => document.getElementById('bf')?.dataset.verdict);
    // Failures, added once those two have read their files (one lookup at a time is kinder to a loaded machine).
    await page.evaluate(() => {
      for (const [id, hf, quant, lang] of [['gated', 'mock/Gated-GGUF', '', 'en'], ['none', 'mock/No-Such-Repo', '', 'fr'], ['noq', 'mock/Llama-3.1-8B-GGUF', 'Q2_K', 'en']]) {
        const w = document.createElement('will-it-fit');
        w.id = id;
        w.setAttribute('hf', hf);
        if (quant) w.setAttribute('quant', quant);
        w.setAttribute('hardware', 'nvidia-rtx-4090');
        w.setAttribute('lang', lang);
        document.body.append(w);
      }
    });
    await page.waitForFunction(() => ['gated', 'none', 'noq'].every((id) => document.getElementById(id)?.dataset.verdict));
    const card = (/** @type {string} */ id) => page.evaluate((i) => {
      const e = /** @type {HTMLElement} */ (document.getElementById(i));
      const r = /** @type {ShadowRoot} */ (e.shadowRoot);
      return { verdict: e.dataset.verdict, code: e.dataset.code, title: r.querySelector('.title')?.textContent,
        line: r.querySelector('.line')?.textContent, href: /** @type {HTMLAnchorElement} */ (r.querySelector('a')).href };
    }, id);
    const q8 = await card('q8');
    assert.equal(q8.verdict, 'fits');
    assert.match(String(q8.title), /Q8_0/);
    assert.match(q8.href, /[?&]hf=mock%2FLlama-3\.1-8B-GGUF%3AQ8_0(&|$)/);
    // A link with file= picks that file.
    const bf = await card('bf');
    assert.equal(bf.verdict, 'fits', String(bf.line));
    assert.match(String(bf.title), /Q4_K_M/);
    assert.match(bf.href, /[?&]file=Llama-3\.1-8B-Q4_K_M\.gguf(&|$)/);
    // The same codes as the page, in the reader's language.
    const gated = await card('gated');
    assert.equal(gated.verdict, 'error');
    assert.equal(gated.code, 'hub_gated');
    assert.match(String(gated.line), /licen[cs]e/i);
    const none = await card('none');
    assert.equal(none.code, 'hub_not_found');
    assert.match(String(none.line), /Aucun modèle/);   // the page's French message, not the fetch layer's English
    assert.equal((await card('noq')).code, 'hub_quant_not_found');
    // Changing the hardware does not read the repo again.
    const reads = mock.log.length;
    await page.evaluate(() => document.getElementById('q8')?.setAttribute('hardware', 'nvidia-rtx-4060'));
    await page.waitForFunction(() => document.getElementById('q8')?.dataset.verdict !== 'fits');
    assert.equal(mock.log.length, reads);
    // The browser logs the gated repo's 401 and the unknown repo's 404 to the console; nothing else.
    assert.deepEqual(page.problems.filter((/** @type {string} */ m) => !/status of (401|404)/.test(m)), []);
  } finally {
    await mock.close();
  }
});

test('a draft model is its own segment of the bar, sized from the core\'s memory.draft_bytes, and named in the title', async () => {
  const req = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-4090', quant: 'Q4_K_M', context: 8192 };
  const withDraft = core('estimate', { ...req, draft_model: 'meta-llama/Llama-3.2-1B-Instruct' });
  const plain = core('estimate', req);
  assert.ok(withDraft.memory.draft_bytes > 0, 'the core books the draft on the GPU');
  pages.set('/draft.html', `<!doctype html><html><body>
    <will-it-fit id="d" model="${req.model}" hardware="${req.hardware}" quant="Q4_K_M" context="8192" draft="meta-llama/Llama-3.2-1B-Instruct"></will-it-fit>
    <will-it-fit id="p" model="${req.model}" hardware="${req.hardware}" quant="Q4_K_M" context="8192" lang="zh"></will-it-fit>
    <script type="module" src="${env.url}widget.js"></script></body></html>`);
  const page = await env.page();
  await page.goto(`${hostUrl}/draft.html`);
  await page.waitForFunction(() => document.querySelector('#d')?.dataset.verdict && document.querySelector('#p')?.dataset.verdict);
  const read = (/** @type {string} */ id) => page.evaluate((i) => {
    const r = /** @type {ShadowRoot} */ (document.getElementById(i)?.shadowRoot);
    const bar = /** @type {HTMLElement} */ (r.querySelector('.bar')).getBoundingClientRect().width;
    const seg = (/** @type {string} */ p) => /** @type {HTMLElement} */ (r.querySelector(`[part="${p}"]`)).getBoundingClientRect().width / bar;
    return { title: r.querySelector('.title')?.textContent, draft: seg('seg-draft'), weights: seg('seg-weights'),
      color: getComputedStyle(/** @type {HTMLElement} */ (r.querySelector('[part="seg-draft"]'))).backgroundColor,
      href: /** @type {HTMLAnchorElement} */ (r.querySelector('.foot a')).href };
  }, id);
  const d = await read('d');
  const m = withDraft.memory;
  const scale = Math.max(m.total_bytes, m.usable_bytes);
  assert.ok(Math.abs(d.draft - m.draft_bytes / scale) < 0.005, JSON.stringify({ d, draft: m.draft_bytes / scale }));
  assert.ok(Math.abs(d.weights - m.weights_bytes / scale) < 0.005);
  assert.notEqual(d.color, 'rgba(0, 0, 0, 0)');
  assert.match(String(d.title), new RegExp(`draft: ${withDraft.speculative.draft.name.replace(/[.]/g, '\\.')}$`));
  assert.match(d.href, /[?&]draft=meta-llama%2FLlama-3\.2-1B-Instruct(&|$)/);
  // Without a draft the segment is empty and the title names none (in Chinese here).
  const p = await read('p');
  assert.equal(plain.memory.draft_bytes, 0);
  assert.equal(p.draft, 0);
  assert.ok(!String(p.title).includes('草稿'), String(p.title));
  await page.screenshot({ path: path.join(root, 'test-results', 'widget-draft.png') });
  assert.deepEqual(page.problems, []);
});

test('with a draft model or MTP on, the card shows the page\'s decode figure (the speculative one), written the same way', async () => {
  const page = await env.page();
  for (const q of ['model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct',
    'model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768&mtp=1']) {
    for (const lang of ['en', 'zh']) {
      await page.goto(`${env.url}?${q}&lang=${lang}`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('#k-decode');
      const onPage = await page.evaluate(() => { const e = /** @type {HTMLElement} */ (document.getElementById('k-decode')); return { v: e.dataset.v, text: e.textContent }; });
      await page.goto(`${env.url}embed.html?${q}&lang=${lang}`);
      await page.waitForFunction(() => document.getElementById('card')?.dataset.verdict);
      const card = await page.evaluate(() => { const s = document.getElementById('card').shadowRoot.querySelector('.foot span'); return { v: s.dataset.v, text: s.textContent, title: s.title }; });
      assert.equal(card.v, onPage.v, `${q} ${lang}: the same field`);
      assert.equal(card.text, onPage.text, `${q} ${lang}: written the same way`);
      // The plain figure is named beside it (the tooltip), as the page's card note does.
      assert.ok(card.title.length > 0, `${q} ${lang}: the speculative note`);
      // The card's link opens the same setup, speculation on.
      const href = await page.evaluate(() => document.getElementById('card').shadowRoot.querySelector('.foot a').href);
      assert.match(href, q.includes('mtp=1') ? /[?&]mtp=1(&|$)/ : /[?&]draft=/);
    }
  }
  assert.deepEqual(page.problems, []);
});

test('until its first estimate the card says it is loading in its own language, and the embed page shows no English before it', async () => {
  const page = await env.page();
  // Hold the wasm module back so the card is seen while it waits for the core.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(`${env.url}embed.html?model=zai-org/GLM-4.5-Air&hw=nvidia-rtx-4090&quant=Q4_K_M&ctx=8192&ram=64&lang=fr`);
  // The light DOM's fallback, what shows before the element is defined, has no words.
  assert.doesNotMatch(await page.evaluate(() => document.getElementById('card').textContent), /\p{L}/u);
  await page.waitForFunction(() => document.getElementById('card')?.hasAttribute('data-loading'));
  const loading = await page.evaluate(() => document.getElementById('card').shadowRoot.querySelector('.title').textContent);
  assert.equal(loading, 'Chargement de l’estimation…');
  // No empty verdict pill beside it.
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('card').shadowRoot.querySelector('.verdict')).display), 'none');
  release();
  await page.waitForFunction(() => document.getElementById('card')?.dataset.verdict);
  assert.equal(await page.evaluate(() => document.getElementById('card').hasAttribute('data-loading')), false);
  assert.doesNotMatch(await page.evaluate(() => document.getElementById('card').shadowRoot.querySelector('.title').textContent), /Chargement/);
  // The frame's document is French too, and its title names the setup the card names.
  const doc = await page.evaluate(() => ({ lang: document.documentElement.lang, title: document.title, card: document.getElementById('card').shadowRoot.querySelector('.title').textContent }));
  assert.equal(doc.lang, 'fr');
  assert.equal(doc.title, `${doc.card.trim()} — willitfit`);
  assert.match(doc.title, /GLM-4\.5 Air/);
  // A language without strings: the card and its document are English.
  await page.goto(`${env.url}embed.html?model=zai-org/GLM-4.5-Air&hw=nvidia-rtx-4090&quant=Q4_K_M&lang=xx`);
  await page.waitForFunction(() => document.getElementById('card')?.dataset.verdict);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  assert.deepEqual(page.problems, []);
});

// The accessibility check of the embed frame, as views.test.mjs has for the page's views: no serious or
// critical axe-core finding, light and in the dark (theme=dark), on a phone and at 1280 px. (The frame
// is a fragment inside another page: axe's page-level "moderate" rules, one main landmark and one h1,
// are the host page's to meet.)
test('the embed card has no serious accessibility violation, light at 390 px and dark at 1280', async () => {
  for (const [q, opts] of /** @type {const} */ ([
    ['model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct&lang=fr', { viewport: { width: 390, height: 600 } }],
    ['model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ram=64&theme=dark&lang=zh', { viewport: { width: 1280, height: 600 } }],
  ])) {
    const page = await env.page({ ...opts, bypassCSP: true });
    await page.goto(`${env.url}embed.html?${q}`);
    await page.waitForFunction(() => /** @type {HTMLElement | null} */ (document.querySelector('#card'))?.dataset.verdict);
    const v = await axeProblems(page);
    assert.deepEqual(v, [], `${q}: ${JSON.stringify(v, null, 1)}`);
    assert.deepEqual(page.problems, [], q);
    await page.context().close();
  }
});
