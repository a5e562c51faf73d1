// A separate draft model on the page in Chromium: the select offers the catalog models the core
// lists as compatible (draft_candidates), and choosing one adds its row to the breakdown, its
// column to the per-device plan, its flags to the llama-server command and the speedup range
// by workload to the speed section, each figure the core's as format.js writes it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, plain, root, setup } from './helpers.mjs';

const api = await import(path.join(root, 'dist', 'api.js'));
const { gib, num, tps } = await import(path.join(root, 'web', 'format.js'));

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
  assert.equal((await page.textContent('#t-draft')).trim(), gib(core.speculative.counted_bytes, 'en'));
  const why = await page.textContent('#w-draft');
  assert.ok(why.includes(gib(core.speculative.kv_bytes, 'en')), why);
  assert.match(why, /F16 KV cache/);
  assert.match(await page.textContent('#devices-table'), /Draft model/);
  assert.match(await page.textContent('#commands'), /--spec-type draft-simple --spec-draft-n-max 3/);
  const spec = await page.textContent('#spec-line');
  const code = core.speculative.workloads.find((w) => w.workload === 'code');
  assert.ok(spec.includes(`×${num(code.speedup_low, 'en', 2)}–\u2060${num(code.speedup_high, 'en', 2)}`), spec);
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
  const spec = plain(await page.textContent('#spec-line'));
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

// Issue 16: Llama 3.3 70B on 2× RTX 3090 with a 1B draft. The decode card, the simulator and the
// cost section all read the core's one decode figure, the speculative range for the stated
// workload (prose by default), and the draft's row, the note and the per-device column state the
// same memory: what the GPUs hold, with the embedding table in system RAM named apart.
test('a draft model: one decode figure on the card, the simulator and the cost; one draft memory figure', async () => {
  const req = { model: 'meta-llama/Llama-3.3-70B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-3090', count: 2, context: 8192,
    draft_model: 'meta-llama/Llama-3.2-1B-Instruct' };
  const core = await api.estimate(req);
  const plain = await api.estimate({ ...req, draft_model: undefined });
  const prose = core.speculative.workloads.find((w) => w.workload === 'prose');
  assert.ok(core.speed.decode_tps > plain.speed.decode_tps);
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct&lang=en`);
  await page.waitForSelector('#k-decode');
  // The card: the prose range, the workload named, the plain figure beside it.
  assert.equal(Number(await page.getAttribute('#k-decode', 'data-v')), prose.decode_tps);
  assert.equal(Number(await page.getAttribute('#k-decode', 'data-lo')), prose.decode_tps_low);
  const card = await page.$eval('#k-decode', (e) => (e.closest('.card') || e).textContent);
  assert.ok(card.includes('with the draft model, on prose'), card);
  assert.ok(card.includes(tps(plain.speed.decode_tps, 'en')), card);
  // Memory: the row, the note and the per-device column agree; Required counts that part.
  const dev = core.memory.devices.reduce((s, d) => s + d.draft_bytes, 0);
  assert.equal(core.speculative.counted_bytes, dev);
  assert.equal((await page.textContent('#t-draft')).trim(), gib(dev, 'en'));
  const spec = await page.textContent('#spec-line');
  assert.ok(spec.includes(`+${gib(dev, 'en')}`), spec);
  assert.ok(!spec.includes(gib(core.speculative.extra_bytes, 'en')), spec);
  assert.ok((await page.textContent('#w-draft')).includes(gib(core.speculative.host_bytes, 'en')));
  // The simulator's rate is the core's for its prompt, with the draft on.
  await page.waitForSelector('#sim-target[data-tps]');
  const simPrompt = Number(await page.inputValue('#sim-prompt').catch(() => '4096')) || 4096;
  const sim = await api.estimate({ ...req, prompt: simPrompt });
  assert.equal(Number(await page.getAttribute('#sim-target', 'data-tps')), sim.speed.decode_tps);
  assert.ok(sim.speed.decode_speculative && sim.speed.decode_tps > sim.speed.decode_speculative.plain_decode_tps);
  // The cost section prices the owned setup at the card's figure.
  await page.waitForFunction(() => document.querySelector('#cost-out')?.textContent?.includes('tok/s'));
  const cost = await page.textContent('#cost-out');
  assert.ok(cost.includes(tps(core.speed.decode_tps, 'en')), cost);
  assert.ok(!cost.includes(tps(plain.speed.decode_tps, 'en')), cost);
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN|Infinity/);
  assert.deepEqual(page.problems, []);
});

test('on vLLM the speculative line prices a drafted token by vLLM\'s draft pass, in its words', async () => {
  const q = { model: 'zai-org/GLM-4.5-Air', hardware: 'nvidia-h100-sxm', count: 4, engine: 'vllm', context: 32768, mtp: true };
  const core = await api.estimate(q);
  assert.equal(core.speculative.overhead_code, 'vllm_draft_pass');
  const { pct } = await import(path.join(root, 'web', 'format.js'));
  const share = pct(core.speculative.overhead_per_draft_token, 'en');
  const page = await env.page();
  await open(page, `${env.url}?model=${q.model}&hw=${q.hardware}&count=4&engine=vllm&ctx=32768&mtp=1&lang=en`);
  await page.waitForFunction(() => /vLLM/.test(document.querySelector('#spec-line')?.textContent || ''));
  const spec = await page.textContent('#spec-line');
  assert.ok(spec.includes(`On vLLM the verify reads the weights once for all drafted tokens; each drafted token costs one pass of the draft, at least ${share} of a decode step.`), spec);
  assert.doesNotMatch(spec, /Metal/);
  const code = core.speculative.workloads.find((w) => w.workload === 'code');
  assert.ok(spec.includes(`×${num(code.speedup_low, 'en', 2)}–\u2060${num(code.speedup_high, 'en', 2)}`), spec);
  assert.deepEqual(page.problems, []);
});
