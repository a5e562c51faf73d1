// A separate draft model on the page in Chromium: the select offers the catalog models the core
// lists as compatible (draft_candidates), and choosing one adds its row to the breakdown, its
// column to the per-device plan, its flags to the llama-server command and the speedup range
// by workload to the speed section, each figure the core's as format.js writes it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

const api = await import(path.join(root, 'dist', 'api.js'));
const { gib, num } = await import(path.join(root, 'web', 'format.js'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const base = 'model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192';
const request = { model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 };

test('Llama 3.1 8B with Llama 3.2 1B drafting: the options, the row, the plan, the command and the speedup', async () => {
  const plain = await api.estimate(request);
  const page = await env.page();
  await open(page, `${env.url}?${base}&lang=en`);
  assert.equal(await page.isVisible('#draft-field'), true);
  // The options are the core's list, in its order, after "None".
  const options = await page.$$eval('#draft option', (os) => os.map((o) => o.value));
  assert.deepEqual(options, ['', ...plain.draft_candidates.map((c) => c.id)]);
  assert.ok(options.includes('meta-llama/Llama-3.2-1B-Instruct'));
  assert.equal(await page.isVisible('#r-draft'), false);

  const core = await api.estimate({ ...request, draft_model: 'meta-llama/Llama-3.2-1B-Instruct' });
  await page.selectOption('#draft', 'meta-llama/Llama-3.2-1B-Instruct');
  await page.waitForFunction(() => /draft=meta-llama/.test(decodeURIComponent(location.search)));
  await page.waitForFunction((t) => document.querySelector('#c-total')?.textContent?.trim() === t, gib(core.memory.total_bytes, 'en'));
  assert.equal(await page.isVisible('#r-draft'), true);
  assert.equal((await page.textContent('#t-draft')).trim(), gib(core.speculative.extra_bytes, 'en'));
  const why = await page.textContent('#w-draft');
  assert.ok(why.includes(gib(core.speculative.kv_bytes, 'en')), why);
  assert.match(why, /F16 KV cache/);
  assert.match(await page.textContent('#devices-table'), /Draft model/);
  assert.match(await page.textContent('#commands'), /--spec-type draft-simple --spec-draft-n-max 3/);
  const spec = await page.textContent('#spec-line');
  const code = core.speculative.workloads.find((w) => w.workload === 'code');
  assert.ok(spec.includes(`×${num(code.speedup_low, 'en', 2)}–${num(code.speedup_high, 'en', 2)}`), spec);
  assert.match(spec, /Llama 3\.2 1B|Llama-3\.2-1B/);
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN|Infinity/);

  // The same link in Chinese words it in Chinese.
  const zh = await env.page();
  await open(zh, `${env.url}?${base}&draft=meta-llama/Llama-3.2-1B-Instruct&lang=zh`);
  assert.match(await zh.textContent('#spec-line'), /草稿模型/);
  assert.equal(await zh.inputValue('#draft'), 'meta-llama/Llama-3.2-1B-Instruct');

  // Another model drops the draft (it belongs to its target).
  await page.fill('#model', 'Qwen/Qwen3-8B');
  await page.dispatchEvent('#model', 'change');
  await page.waitForFunction(() => !/draft=/.test(location.search));
  assert.equal(await page.isVisible('#r-draft'), false);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(zh.problems, []);
});

test('a link with a draft of another tokenizer shows the core\'s coded error in the page\'s words', async () => {
  const page = await env.page();
  await open(page, `${env.url}?${base}&draft=deepseek-ai/DeepSeek-R1-Distill-Llama-8B&lang=en`);
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'draft_tokenizer_mismatch');
  assert.match(await page.textContent('#error'), /does not share the model’s tokenizer/);
});

test('on a Mac the speculative line says why Metal gains little, and every result says how often its range held', async () => {
  const mac = { ...request, hardware: 'apple-m4-max-40c-gpu-128gb', draft_model: 'meta-llama/Llama-3.2-1B-Instruct' };
  const core = await api.estimate(mac);
  const cuda = await api.estimate({ ...request, draft_model: 'meta-llama/Llama-3.2-1B-Instruct' });
  assert.equal(core.speculative.overhead_code, 'metal_small_batch');
  assert.equal(cuda.speculative.overhead_code, 'fitted');
  const page = await env.page();
  await open(page, `${env.url}?model=${mac.model}&quant=Q4_K_M&hw=${mac.hardware}&ctx=8192&draft=${mac.draft_model}&lang=en`);
  await page.waitForFunction(() => /Metal/.test(document.querySelector('#spec-line')?.textContent || ''));
  const spec = await page.textContent('#spec-line');
  const { pct } = await import(path.join(root, 'web', 'format.js'));
  assert.ok(spec.includes(`each drafted token costs about ${pct(core.speculative.overhead_per_draft_token, 'en')} of a decode step`), spec);
  const b = core.speculative.basis;
  assert.ok(b.held_out_stated_rows > 0);
  assert.ok(spec.includes(`held ${b.held_out_in_stated_range} of ${b.held_out_stated_rows} held-out runs`), spec);
  const prose = core.speculative.workloads.find((w) => w.workload === 'prose');
  assert.ok(spec.includes(`×${num(prose.speedup_low, 'en', 2)}–${num(prose.speedup_high, 'en', 2)}`), spec);
  // The same setup on a 4090 names no Metal cost.
  const pc = await env.page();
  await open(pc, `${env.url}?${base}&draft=meta-llama/Llama-3.2-1B-Instruct&lang=fr`);
  await pc.waitForFunction(() => (document.querySelector('#spec-line')?.textContent || '').length > 0);
  assert.doesNotMatch(await pc.textContent('#spec-line'), /Metal/);
  assert.match(await pc.textContent('#spec-line'), /mesures mises de côté\./);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(pc.problems, []);
});
