// Issue 16 (a reviewer's read of the served page): figures inside one view agree with each other.
// The offload plan's layers and its -ngl, the compute buffers in the breakdown and in the
// per-device table, each device's tag and the headline's rule, the fine-tuning table's weights
// and its notes, the spec card's cache per 1K tokens on sliding-window and hybrid models, and a
// model page for a model no single device holds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const AIR = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 16384, ram_gib: 64 };

test('the offload plan, its flags and the per-device table give one set of figures', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=en`);
  await page.waitForSelector('#plan:not([hidden]) li[data-layers]');
  await page.waitForSelector('#devices-table table');
  const r = core('estimate', AIR);
  const gpu = r.memory.devices[0];
  // "-ngl 48" beside "46 layers": the plan says the GPU holds the output layer too, and llama.cpp's
  // -ngl also counts the file's NextN block (r.mtp.layers, one for GLM-4.5-Air), which holds no weights.
  const li = await page.$eval('#plan li[data-layers]', (e) => ({ text: e.textContent, layers: e.dataset.layers, output: e.dataset.output }));
  assert.equal(Number(li.layers), gpu.n_layers);
  assert.equal(li.output, 'true');
  assert.match(li.text, new RegExp(`: ${gpu.n_layers} layers and the output layer`));
  const flags = await page.textContent('#plan code');
  assert.equal(r.mtp.layers, 1);
  assert.match(flags, new RegExp(`-ngl ${gpu.n_layers + 1 + r.mtp.layers}\\b`));
  const cmd = await page.textContent('#commands');
  assert.match(cmd, new RegExp(`-ngl ${r.placement.ngl}\\b`));
  assert.match(await page.textContent('#plan-nextn'), new RegExp(`-ngl ${r.placement.ngl}\\b`));
  // The compute column is the breakdown's compute figure; the offload buffer has its own column.
  const head = await page.$$eval('#devices-table thead th', (ths) => ths.map((t) => t.textContent));
  const row = await page.$$eval('#devices-table tbody tr:first-child td, #devices-table tbody tr:first-child th', (cs) => cs.map((c) => c.textContent));
  const ci = head.indexOf('Compute buffers');
  const oi = head.indexOf('Buffer for RAM weights');
  assert.ok(ci > 0 && oi === ci + 1, head.join(' | '));
  assert.equal(row[ci], await page.textContent('#t-compute'));
  assert.match(row[oi], /^0\.73\sGiB$/);
  // The tags: the core's per-device code on the headline's rule (an offload plan fills the GPU
  // to --fit's margin: tight), system RAM its own.
  const tags = await page.$$eval('#devices-table tbody [data-verdict]', (ts) => ts.map((t) => t.dataset.verdict));
  assert.deepEqual(tags, [gpu.verdict, r.memory.host.verdict]);
  assert.equal(tags[0], 'tight');
  assert.deepEqual(page.problems, []);
});

// Issue 19: llama.cpp offloads the output layer first (PR 18148), so a GPU that holds only the
// last layers of a dense model holds the output too, and the plan's -ngl is its layers plus one.
test('a partly offloaded dense model: the GPU holds its last layers and the output, and -ngl counts both', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&ram=64&lang=en`);
  await page.waitForSelector('#plan:not([hidden]) li[data-layers]');
  const r = core('estimate', { model: 'meta-llama/Llama-3.3-70B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, ram_gib: 64 });
  assert.equal(r.verdict, 'offload');
  const gpu = r.memory.devices[0];
  assert.ok(gpu.n_layers > 0 && gpu.n_layers < r.placement.n_layer, JSON.stringify(gpu));
  assert.equal(gpu.has_output, true);
  assert.equal(gpu.first_layer + gpu.n_layers, r.placement.n_layer);  // the last layers
  const li = await page.$eval('#plan li[data-layers]', (e) => ({ text: e.textContent, layers: e.dataset.layers, output: e.dataset.output }));
  assert.equal(Number(li.layers), gpu.n_layers);
  assert.equal(li.output, 'true');
  assert.match(li.text, new RegExp(`: ${gpu.n_layers} layers and the output layer`));
  assert.doesNotMatch(li.text, /\ball\b/);
  assert.equal(r.placement.ngl, gpu.n_layers + 1);
  assert.match(await page.textContent('#plan code'), new RegExp(`-ngl ${gpu.n_layers + 1}\\b`));
  assert.deepEqual(page.problems, []);
});

test('a per-device tag never reads fits where the headline says tight', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&ram=0&lang=en`);
  await page.waitForSelector('#devices-table tbody [data-verdict]');
  const r = core('estimate', { model: 'meta-llama/Llama-3.1-70B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-3090', count: 2, context: 8192 });
  const tags = await page.$$eval('#devices-table tbody [data-verdict]', (ts) => ts.map((t) => t.dataset.verdict));
  assert.deepEqual(tags, r.memory.devices.map((d) => d.verdict));
  if (r.verdict === 'tight') assert.ok(tags.includes('tight'), tags.join());
  if (r.verdict === 'fits') assert.ok(tags.every((t) => t === 'fits'), tags.join());
});

test('the fine-tuning table: LoRA\'s frozen base apart from its adapters, caps and notes said once, names localized', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=en`);
  await page.waitForSelector('#ft-table tbody tr[data-method="full"] [data-frozen]');
  const rows = await page.$$eval('#ft-table tbody tr', (trs) => trs.map((tr) => {
    const w = /** @type {HTMLElement} */ (tr.querySelector('[data-frozen]'));
    return { m: tr.dataset.method, frozen: Number(w?.dataset.frozen), trainable: Number(w?.dataset.trainable), weights: w?.textContent || '', advice: tr.querySelector('[data-advice]')?.textContent || '', needed: tr.querySelector('[data-count]')?.textContent || '' };
  }));
  const by = Object.fromEntries(rows.map((r) => [r.m, r]));
  const full = core('train', { model: 'zai-org/GLM-4.5-Air', hardware: 'nvidia-rtx-4090', method: 'full' });
  // LoRA's frozen base is never more than full fine-tuning's weights, and the cell says which is which.
  assert.ok(by.lora.frozen <= full.memory.per_gpu.weights_bytes, JSON.stringify(by.lora));
  assert.match(by.lora.weights, /frozen base [\d.,]+\sGiB\s*\+ adapters [\d.,]+\sGiB/);
  assert.equal(by.full.frozen, 0);
  assert.doesNotMatch(by.full.weights, /frozen base/);
  // The count's cap is stated in the note, with the segment it belongs to.
  const caps = await page.textContent('#ft-caps');
  for (const r of rows) {
    const m = /more than a machine holds \((\d+)\)/.exec(r.needed);
    if (m) assert.match(caps, new RegExp(`${m[1]} consumer cards`), caps);
  }
  // No advice note repeats one an earlier row gave, and none repeats the row's own total.
  const notes = rows.flatMap((r) => r.advice.split(/(?<=\.)\s*/).filter((s) => /QLoRA fits|One GPU would need/.test(s)));
  assert.equal(new Set(notes).size, notes.length, notes.join(' / '));
  for (const r of rows) assert.doesNotMatch(r.advice, /One GPU would need/);
  // In French a Mac in the advice is named as the page names it in the column head (its product
  // label), not by the catalog's English name.
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192&lang=fr`);
  await page.waitForSelector('#ft-table tbody tr[data-method="qlora"] [data-advice]');
  const fr = await page.$eval('#ft-table tbody tr[data-method="qlora"] [data-advice]', (e) => e.textContent || '');
  const onHw = (await page.$$eval('#ft-table thead th', (ths) => ths.map((t) => t.textContent || '')))[7].replace(/^Sur /, '');
  const mac = core('estimate', { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 8192 });
  assert.ok(fr.includes(onHw), `${fr} / ${onHw}`);
  assert.ok(!fr.includes(mac.hardware.name), `${fr} / ${mac.hardware.name}`);
  assert.deepEqual(page.problems, []);
});

test('the spec card\'s cache per 1K tokens adds up to the cache total on sliding-window and hybrid models', async () => {
  const page = await env.page();
  for (const model of ['google/gemma-3-27b-it', 'google/gemma-4-26B-A4B-it', 'stepfun-ai/Step-3.5-Flash', 'deepseek-ai/DeepSeek-V4-Flash', 'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16', 'zai-org/GLM-4.5-Air']) {
    await open(page, `${env.url}?view=model&model=${model}&lang=en`);
    await page.waitForSelector('#mp-kv');
    const d = await page.$eval('#mp-kv', (e) => ({ ...e.dataset, text: e.textContent }));
    assert.equal(Number(d.per1k) * Number(d.cells) / 1024 + Number(d.fixed), Number(d.total), `${model} ${JSON.stringify(d)}`);
    assert.doesNotMatch(d.text, /kv_kind_|\b0\.00\s/, `${model} ${d.text}`);  // no raw key, no zero rate
    if (model.startsWith('zai-org')) assert.equal(d.fixed, '0');
    else assert.match(d.text, /plus [\d.,]+\sGiB that does not grow \(.+\): [\d.,]+\sGiB at 8K/, `${model} ${d.text}`);
  }
  assert.deepEqual(page.problems, []);
});

test('a model no single device holds gets its least costly real setup, and the quality column says whose figure it is', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=moonshotai/Kimi-K2.5&lang=en`);
  await page.waitForSelector('#mp-setups');
  const text = await page.textContent('#mp-setups');
  assert.match(text, /No single device in the catalog holds Kimi K2\.5/);
  const items = await page.$$eval('#mp-setups li', (lis) => lis.map((l) => ({ count: Number(l.dataset.count), verdict: l.dataset.verdict, text: l.textContent })));
  assert.ok(items.length >= 1, text);
  for (const it of items) if (it.verdict !== 'offload') assert.ok(it.count > 1, JSON.stringify(it));
  assert.match(await page.textContent('#mp-quant-table'), /Quality \(reference model\)/);
  assert.match(await page.textContent('#quality-ref'), /measured once on a reference model/);
  assert.match(await page.$eval('#quality-ref a', (a) => a.getAttribute('href') || ''), /^https:\/\/github\.com\/ggml-org\/llama\.cpp\/.*perplexity/);
  assert.deepEqual(page.problems, []);
});
