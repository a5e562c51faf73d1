// The page with models from the Hugging Face Hub, against the local mock Hub (tests/mock/hub.mjs).
// The page is served from 127.0.0.1 with its real CSP, widened for this test only by the mock's two
// origins; the test sets globalThis.__WILLITFIT_HUB_BASE__ before load, which the page honours only
// when it is itself served from 127.0.0.1 / localhost (web/views/hub.js hubBase()).
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/server.mjs';
import { GOOD_TOKEN, SHA, startMockHub } from '../mock/hub.mjs';
import { root } from './helpers.mjs';

const api = await import(path.join(root, 'dist', 'api.js'));
const { gib } = await import(path.join(root, 'web', 'format.js'));

/** @type {any} */ let mock;
/** @type {any} */ let site;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  mock = await startMockHub();
  site = await startServer({ port: 0, connect: [mock.hubUrl, mock.filesUrl] });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
});
after(async () => {
  await browser.close();
  await new Promise((r) => site.server.close(r));
  await mock.close();
});

async function page(/** @type {any} */ ctx) {
  const p = await ctx.newPage();
  p.setDefaultTimeout(180000);
  /** @type {string[]} */
  const problems = [];
  p.on('pageerror', (/** @type {any} */ e) => problems.push(String(e)));
  await p.exposeFunction('__cspViolation', (/** @type {string} */ v) => problems.push(`CSP ${v}`));
  await p.addInitScript((base) => {
    /** @type {any} */ (globalThis).__WILLITFIT_HUB_BASE__ = base;
    document.addEventListener('securitypolicyviolation', (e) => /** @type {any} */ (window).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  }, mock.hubUrl);
  return Object.assign(p, { problems });
}

const settled = (/** @type {any} */ p) => p.waitForSelector('#hub-panel[data-state="done"], #hub-panel[data-state="error"]');

test('?hf= lists the repo quants with published size, our memory, fit and speed, the launch command and the revision', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await page(ctx);
  await p.goto(`${site.url}?hf=mock/Llama-3.1-8B-GGUF&hw=nvidia-rtx-4090&lang=en`);
  await settled(p);
  assert.equal(await p.getAttribute('#hub-panel', 'data-state'), 'done');
  const labels = await p.$$eval('#hub-quants tbody tr', (rs) => rs.map((r) => /** @type {HTMLElement} */ (r).dataset.label));
  assert.deepEqual(new Set(labels), new Set(['BF16', 'Q8_0', 'UD-Q4_K_XL', 'Q4_K_M']));
  const q4 = await p.$eval('#hub-quants tr[data-label="Q4_K_M"]', (r) => ({ verdict: /** @type {HTMLElement} */ (r).dataset.verdict, text: r.textContent }));
  assert.equal(q4.verdict, 'fits');
  assert.match(String(q4.text), /GB/);
  assert.match(String(q4.text), /GiB/);
  // Issue 16: the file size in GiB like the Required column, the listed GB beside it, never GB alone.
  assert.match(String(q4.text), /[\d.]+\sGiB \([\d.]+\sGB\)/);
  assert.equal(await p.textContent('#hub-command'), 'llama-server -hf mock/Llama-3.1-8B-GGUF:Q4_K_M');
  assert.match(String(await p.textContent('#hub-badge')), new RegExp(SHA.slice(0, 12)));
  // The BF16 split is estimated too (its plan computed from the architecture in shard 1).
  assert.ok(await p.$eval('#hub-quants tr[data-label="BF16"]', (r) => /** @type {HTMLElement} */ (r).dataset.verdict !== ''));
  // Use it: it becomes the page's model and the main verdict answers for it.
  await p.click('#hub-quants tr[data-label="Q4_K_M"] button');
  await p.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('model')).value.toLowerCase().includes('q4_k_m'));
  await p.waitForFunction(() => /Llama 3\.1 8B/.test(document.getElementById('result')?.textContent || '') &&
    document.querySelector('#verdict')?.getAttribute('data-verdict') !== 'pending');
  assert.equal(await p.getAttribute('#verdict', 'data-verdict'), 'fits');
  // "Embed this" names the repo and quant (the widget reads them itself), not this browser's model key.
  await p.click('#embed-open');
  const snippet = await p.inputValue('#embed-widget');
  assert.match(snippet, /<will-it-fit hf="mock\/Llama-3\.1-8B-GGUF" hardware="nvidia-rtx-4090" quant="Q4_K_M"/);
  assert.doesNotMatch(snippet, / model="/);
  assert.match(await p.inputValue('#embed-iframe'), /embed\.html\?hf=mock%2FLlama-3\.1-8B-GGUF&amp;hw=nvidia-rtx-4090&amp;quant=Q4_K_M&amp;/);
  await p.click('#embed-close');
  assert.deepEqual(p.problems, []);

  // Shared link again with the mock unreachable: answered from IndexedDB, saying when it was read.
  await ctx.route(`${mock.hubUrl}/**`, (r) => r.abort());
  const p2 = await page(ctx);
  await p2.goto(`${site.url}?hf=mock/Llama-3.1-8B-GGUF&hw=nvidia-rtx-4090&lang=en`);
  await settled(p2);
  assert.equal(await p2.getAttribute('#hub-panel', 'data-state'), 'done');
  assert.equal(await p2.getAttribute('#hub-panel', 'data-cached'), 'true');
  assert.match(String(await p2.textContent('#hub-badge')), /Read /);
  await ctx.close();
});

test('a link naming a Hub repo the catalog does not know offers to read it from the Hub, and doing so answers', async () => {
  const ctx = await browser.newContext();
  const p = await page(ctx);
  await p.goto(`${site.url}?model=mock/Llama-3.1-8B-GGUF&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  await p.waitForSelector('#error:not([hidden]) #err-hub');
  assert.equal(await p.getAttribute('#verdict', 'data-verdict'), 'error');
  assert.match(String(await p.textContent('#err-hub')), /mock\/Llama-3\.1-8B-GGUF/);
  await p.click('#err-hub');
  await settled(p);
  assert.equal(await p.getAttribute('#hub-panel', 'data-state'), 'done');
  assert.equal(await p.textContent('#hub-command'), 'llama-server -hf mock/Llama-3.1-8B-GGUF:Q4_K_M');
  // A catalog-style id with no Hub shape gets no such offer.
  await p.goto(`${site.url}?model=not-a-repo&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  await p.waitForSelector('#error:not([hidden])');
  assert.equal(await p.$('#err-hub'), null);
  assert.deepEqual(p.problems, []);
  await ctx.close();
});

test('the model box takes Hub links and tags; failures are coded with plain messages and the page keeps working', async () => {
  const ctx = await browser.newContext();
  const p = await page(ctx);
  await p.goto(`${site.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  await p.waitForSelector('body[data-ready="true"]');
  const ask = async (/** @type {string} */ text) => {
    await p.evaluate(() => { const el = document.getElementById('hub-panel'); if (el) el.dataset.state = ''; });
    await p.fill('#model', text);
    await p.press('#model', 'Enter');
    await settled(p);
    return { code: await p.getAttribute('#hub-panel', 'data-code'), state: await p.getAttribute('#hub-panel', 'data-state'), text: await p.textContent('#hub-panel') };
  };
  assert.equal((await ask('https://huggingface.co/datasets/mock/d')).code, 'hub_not_model');
  assert.equal((await ask('https://example.com/mock/x')).code, 'hub_other_site');
  assert.equal((await ask('mock/No-Such')).code, 'hub_not_found');
  assert.equal((await ask('mock/No-Model')).code, 'hub_no_model_files');
  const un = await ask('mock/Unsupported-Arch');
  assert.equal(un.code, 'unsupported_model_type');
  assert.match(String(un.text), /mamba9/);
  const rl = await ask('mock/Rate-Limited');
  assert.equal(rl.code, 'hub_rate_limited');
  assert.match(String(rl.text), /7 seconds/);
  // the GGUF reader's bound on array elements refuses the claim before any larger read
  assert.equal((await ask('mock/Hostile-GGUF')).code, 'gguf_too_large');
  assert.equal((await ask('mock/Truncated-GGUF')).code, 'gguf_truncated');
  const link = await ask(`https://huggingface.co/mock/Llama-3.1-8B-GGUF/blob/main/Llama-3.1-8B-Q8_0.gguf?download=true`);
  assert.equal(link.state, 'done');
  assert.match(String(await p.textContent('#hub-command')), /:Q8_0$/);
  // The catalog model's verdict is still there.
  assert.notEqual(await p.getAttribute('#verdict', 'data-verdict'), 'pending');

  // Gated: the message, then a token that opens it, sent to the Hub only; forgotten in one click.
  const g = await ask('mock/Gated-GGUF');
  assert.equal(g.code, 'hub_gated');
  const k = mock.log.length;
  await p.fill('#hub-token', GOOD_TOKEN);
  await p.click('#hub-token-save');
  await p.waitForSelector('#hub-panel[data-state="done"]');
  const seen = mock.log.slice(k);
  assert.ok(seen.some((/** @type {any} */ x) => x.server === 'hub' && x.auth));
  assert.ok(seen.filter((/** @type {any} */ x) => x.server === 'files').every((/** @type {any} */ x) => !x.auth));
  assert.equal(await p.evaluate(() => localStorage.getItem('willitfit.hf_token')), GOOD_TOKEN);
  await p.click('#hub-token-forget');
  await settled(p);
  assert.equal(await p.evaluate(() => localStorage.getItem('willitfit.hf_token')), null);
  assert.deepEqual(p.problems, []);
  await ctx.close();
});

test('a multimodal GGUF repo with images per prompt: the projector read from its mmproj file, like a catalog model', async () => {
  const cat = await api.estimate({ model: 'google/gemma-3-4b-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, images: 2 });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await page(ctx);
  await p.goto(`${site.url}?hf=mock/gemma-3-4b-it-GGUF&hw=nvidia-rtx-4090&ctx=8192&img=2&lang=en`);
  await settled(p);
  assert.equal(await p.getAttribute('#hub-panel', 'data-state'), 'done');
  assert.match(String(await p.textContent('#hub-projector')), /Vision projector read from mmproj-F16\.gguf/);
  assert.doesNotMatch(await p.innerText('#hub-panel'), /\bnull\b|undefined/);
  await p.click('#hub-quants tr[data-label="Q4_K_M"] button');
  await p.waitForFunction(() => /Gemma/i.test(document.getElementById('result')?.textContent || '') &&
    document.querySelector('#verdict')?.getAttribute('data-verdict') !== 'pending' && !document.getElementById('r-projector')?.hidden);
  assert.equal(await p.isVisible('#images-field'), true);
  assert.equal((await p.textContent('#t-projector'))?.trim(), gib(cat.projector.resident_bytes, 'en'));
  const why = String(await p.textContent('#w-projector'));
  assert.match(why, /Read from the repo’s projector file mmproj-F16\.gguf/);
  assert.match(why, new RegExp(`takes ${cat.projector.tokens_per_image} tokens`));
  assert.match(String(await p.textContent('#commands')), /--mmproj mmproj-F16\.gguf/);
  // The text model the page showed before (images=2 on it is no_projector) leaves no error in view.
  assert.equal(await p.isHidden('#error'), true);
  assert.doesNotMatch(await p.innerText('main'), /no_projector|undefined|NaN/);
  assert.deepEqual(p.problems, []);
  await ctx.close();
});

test('the one-file offline page says Hub lookups need the network', async () => {
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  p.setDefaultTimeout(180000);
  await ctx.route('**', (r) => (/^(file|blob|data):/.test(r.request().url()) ? r.continue() : r.abort()));
  await p.goto(`${pathToFileURL(path.join(root, 'dist', 'willitfit-offline.html')).href}?hf=mock/Llama-3.1-8B-GGUF&lang=en`);
  await p.waitForSelector('#hub-panel[data-state="error"]');
  assert.equal(await p.getAttribute('#hub-panel', 'data-code'), 'hub_needs_network');
  await ctx.close();
});
