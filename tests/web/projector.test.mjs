// The vision projector on the page in Chromium: the images field for a model with a vision
// tower (and none for a text-only model), the projector's row in the breakdown and its column in
// the per-device plan, with the core's figures as format.js writes them.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

const api = await import(path.join(root, 'dist', 'api.js'));
const { gib } = await import(path.join(root, 'web', 'format.js'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const base = 'model=google/gemma-3-27b-it&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en';
const request = { model: 'google/gemma-3-27b-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 };

test('two images per prompt on Gemma 3 27B: the projector in the breakdown, the plan and the total', async () => {
  const core = await api.estimate({ ...request, images: 2 });
  const page = await env.page();
  await open(page, `${env.url}?${base}&img=2`);
  assert.equal(await page.isVisible('#images-field'), true);
  assert.equal(await page.inputValue('#images'), '2');
  assert.equal(await page.isVisible('#r-projector'), true);
  assert.equal((await page.textContent('#t-projector')).trim(), gib(core.projector.resident_bytes, 'en'));
  assert.equal((await page.textContent('#c-total')).trim(), gib(core.memory.total_bytes, 'en'));
  const why = await page.textContent('#w-projector');
  assert.match(why, /--mmproj/);
  assert.match(why, new RegExp(`takes ${core.projector.tokens_per_image} tokens`));
  assert.match(why, new RegExp(`take ${core.projector.image_tokens} tokens`));
  assert.match(await page.textContent('#devices-table'), /Vision projector/);
  // A published Q4_K_M (unsloth/gemma-3-27b-it-GGUF): llama-server's -hf fetches the projector with it.
  assert.match(await page.textContent('#commands'), / -hf unsloth\/gemma-3-27b-it-GGUF:Q4_K_M /);
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN|Infinity/);

  // Back to text only: the projector is stated but not loaded, the total drops by its share.
  const text = await api.estimate(request);
  await page.fill('#images', '0');
  await page.dispatchEvent('#images', 'change');
  await page.waitForFunction(() => !/img=/.test(location.search + location.pathname));
  await page.waitForFunction((t) => document.querySelector('#c-total')?.textContent?.trim() === t, gib(text.memory.total_bytes, 'en'));
  assert.equal((await page.textContent('#t-projector')).trim(), 'not loaded');
  assert.match(await page.textContent('#w-projector'), /Not loaded: no images per prompt/);
  assert.doesNotMatch(await page.textContent('#devices-table'), /Vision projector/);
  assert.deepEqual(page.problems, []);
});

test('a text-only model has no images field and no projector row', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  assert.equal(await page.isVisible('#images-field'), false);
  assert.equal(await page.isVisible('#r-projector'), false);
  assert.deepEqual(page.problems, []);
});
