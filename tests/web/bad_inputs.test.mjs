// The bad-input table through the page's URL route: each case the URL parameters can express
// shows the structured error ([code @ path]) as text, and nothing injected ever runs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { table, urlOf } from '../js/bad_inputs.mjs';
import { open, setup } from './helpers.mjs';

let env, page;
before(async () => { env = await setup(); page = await env.page(); page.setDefaultTimeout(20000); });
after(async () => { await env.close(); });

const routed = table.cases.map((c) => [c, urlOf(c)]).filter(([, u]) => u);

test('at least 15 bad inputs can be given to the page through its URL', () => {
  assert.ok(routed.length >= 15, `${routed.length}`);
});

for (const [c, query] of routed) {
  test(`page shows ${c.code} @ ${c.path} for ${c.id}`, async () => {
    await open(page, `${env.url}${query}`);
    await page.waitForSelector('#error:not([hidden])');
    const text = await page.textContent('#error');
    assert.ok(text.includes(`[${c.code} @ ${c.path}]`), text);
    assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'error');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    // The page's own plain message, its folded details and (for an id shaped like a Hub repo) its
    // own button to read the repo, its button copying a link to the error and that button's status
    // line, the page's own wrapper that keeps a hyphenated piece on one line (span.whole, text only),
    // and nothing from the input as markup.
    assert.equal(await page.evaluate(() => document.querySelectorAll('#error :not(p, details, summary, button#err-hub, button#err-share, span#err-share-msg, span.whole, span.kw)').length), 0);
    assert.equal(await page.evaluate(() => document.querySelectorAll('#error :is(span.whole, span.kw) :not(span.whole)').length), 0);
  });
}

// A choice that is valid for another model, carried by a link (or a saved state) to one it does
// not apply to: MLX's quantized cache on a model with sliding-window layers (mlx-lm keeps its cache
// at 16 bits), MTP on a model with no MTP layers, images on a text-only model. Each is the core's
// own code at the field's path, said in the page's words with the choice named, the field marked
// and shown with the choice kept; changing it there gives the answer.
test('a cache, MTP or images choice a link carries to a model it does not apply to: the coded error, the field kept and marked', async () => {
  const mac = 'apple-m3-max-40c-gpu-64gb';
  page.problems.length = 0;
  await open(page, `${env.url}?model=google/gemma-3-27b-it&hw=${mac}&engine=mlx&kv=q8_g64&lang=fr`);
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'kv_not_quantizable');
  assert.equal(await page.getAttribute('#error', 'data-path'), 'kv_bits');
  const fr = await page.textContent('#error p');
  assert.match(fr, /mlx-lm garde le cache KV de ce modèle en 16 bits/);
  assert.ok(fr.includes('le cache q8_g64 que vous avez choisi'), fr);
  assert.ok(fr.includes('\u00a0: le cache'), 'French NBSP before the colon');
  assert.equal(await page.$eval('#kv', (s) => /** @type {HTMLSelectElement} */ (s).value), 'q8_g64', 'the choice stays in the form');
  assert.equal(await page.getAttribute('#kv', 'aria-invalid'), 'true');
  assert.match(page.url(), /kv=q8_g64/);
  // The 16-bit cache there gives the answer, and the mark goes.
  await page.selectOption('#kv', 'f16');
  await page.waitForSelector('#error[hidden]', { state: 'attached' });
  assert.notEqual(await page.getAttribute('#verdict', 'data-verdict'), 'error');
  assert.equal(await page.getAttribute('#kv', 'aria-invalid'), null);

  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&mtp=1&lang=en`);
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'no_mtp_layers');
  assert.match(await page.textContent('#error p'), /holds no multi-token prediction \(MTP\) layers/);
  assert.equal(await page.isVisible('#mtp'), true, 'the switch is shown to turn it off');
  assert.equal(await page.isChecked('#mtp'), true);
  assert.equal(await page.getAttribute('#mtp', 'aria-invalid'), 'true');
  await page.uncheck('#mtp');
  await page.waitForSelector('#error[hidden]', { state: 'attached' });
  assert.notEqual(await page.getAttribute('#verdict', 'data-verdict'), 'error');

  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&img=2&lang=zh`);
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'no_projector');
  assert.match(await page.textContent('#error p'), /这个模型只读文本/);
  assert.equal(await page.$eval('#images', (i) => /** @type {HTMLInputElement} */ (i).value), '2');
  assert.equal(await page.getAttribute('#images', 'aria-invalid'), 'true');
  assert.deepEqual(page.problems, []);
});
