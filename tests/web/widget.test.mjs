import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { otherOrigin, root, setup } from './helpers.mjs';

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
  assert.match(await page.evaluate(() => document.querySelector('#a').shadowRoot.querySelector('.foot span').textContent), /^~[\d.]+ tok\/s \([\d.]+–[\d.]+\)$/);
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
