// Issue 16 in Chromium: the page words the core's decisions about what to recommend: picks only on
// devices the engine runs on, make-it-fit changes below the speed floor flagged (and never the
// first fix), the fine-tuning advice (own device first, per-GPU bytes, what would do instead),
// formats that are no real choice left out of the format table, and a break-even point past the
// hardware's written-off life.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

test('vLLM picks name no Mac and say that Apple silicon Macs are left out', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&hw=nvidia-rtx-4090&engine=vllm&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForSelector('#picks-cards .card.pick', { timeout: 300000 });
  await page.waitForSelector('#picks-caps:not([hidden])');
  const cards = await page.$$eval('#picks-cards .card.pick', (els) => els.map((e) => ({ key: e.dataset.pick, id: e.dataset.id || '', text: e.textContent })));
  for (const c of cards) assert.doesNotMatch(c.id, /^apple-/, JSON.stringify(c));
  const unified = cards.find((c) => c.key === 'unified_memory')?.text ?? await page.textContent('#picks-missing [data-pick="unified_memory"]');
  // The reason's figure is a machine vLLM runs on (128 GiB at most), never a 512 GiB Mac.
  assert.doesNotMatch(unified, /512/);
  assert.match(await page.textContent('#picks-caps'), /vLLM does not run on Apple silicon Macs/);
});

test('make it fit flags a change below the speed floor and words the present state by its code', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&count=1&ram=64&lang=en`);
  await page.waitForSelector('#fit-list li.fix');
  const fixes = await page.$$eval('#fit-list li.fix', (els) => els.map((e) => ({ field: e.dataset.field, slow: e.dataset.tooSlow, text: e.textContent })));
  // Offloaded into 64 GiB it runs now, slowly: "does not run now" would be false.
  for (const f of fixes) assert.doesNotMatch(f.text, /does not run now/, f.text);
  const gpus = fixes.find((f) => f.field === 'count');
  assert.ok(gpus, JSON.stringify(fixes));
  // What the change achieves first, then what the setup does now (offloaded, with its speed).
  assert.match(gpus.text, /runs at [\d.,]+\stok\/s · now [\d.,]+\stok\/s offloaded/);
  assert.equal(gpus.slow, '0');

  // Without RAM it does not run; the offload change is listed but flagged too slow, after the
  // usable ones, and the fix under the verdict is a usable one.
  await open(page, `${env.url}?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForSelector('#fit-list li.fix');
  const none = await page.$$eval('#fit-list li.fix', (els) => els.map((e) => ({ field: e.dataset.field, slow: e.dataset.tooSlow, text: e.textContent })));
  const slow = none.filter((f) => f.slow === '1');
  assert.ok(slow.length >= 1, JSON.stringify(none));
  // Too slow said first, with the floor.
  for (const f of slow) assert.match(f.text, /still too slow: [\d.,]+\stok\/s, below the 3(\.0)?\stok\/s it takes to use · does not run now/);
  assert.ok(none.findIndex((f) => f.slow === '1') > none.findIndex((f) => f.slow === '0'));
  await page.waitForSelector('#verdict-fix:not([hidden])');
  assert.doesNotMatch(await page.textContent('#verdict-fix'), /too slow/);
});

test('the fine-tuning table advises the person\'s own device with what each GPU holds', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForSelector('#ft-table tbody tr[data-method="lora"]');
  const rows = await page.$$eval('#ft-table tbody tr', (trs) => trs.map((tr) => ({
    m: tr.dataset.method, advice: tr.querySelector('[data-advice]')?.dataset.advice, needed: tr.querySelector('[data-count]')?.textContent,
    count: tr.querySelector('[data-count]')?.dataset.count, text: tr.textContent,
  })));
  const lora = rows.find((r) => r.m === 'lora');
  assert.equal(lora.advice, 'own_device', JSON.stringify(lora));
  assert.match(lora.text, /Your own: .*GeForce RTX 4090/);
  assert.doesNotMatch(lora.text, /Arc/);
  if (Number(lora.count) > 1) assert.match(lora.needed, /ZeRO-3\), [\d.,]+\sGiB each/);
  for (const r of rows) assert.doesNotMatch(r.text, /more than 64/);
});

// Issue 16 (screenshot review): "Your own: 4× GeForce RTX 3090" for a person with two, and on a
// Mac that holds it "fits, 1" beside "Buy …": the advice counts from the person's cards (the
// core's have/more), and every set it names stays within the card cap the note states.
test('the fine-tuning advice counts from the person\'s cards and never passes the cap it states', async () => {
  const api = await import(path.join(root, 'dist', 'api.js'));
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&ctx=8192&count=2&ram=0&lang=en`);
  await page.waitForSelector('#ft-table tbody tr[data-method="qlora"]');
  const core = await api.train({ model: 'meta-llama/Llama-3.1-70B-Instruct', hardware: 'nvidia-rtx-3090', method: 'qlora', count: 2 });
  const q = await page.textContent('#ft-table tr[data-method="qlora"]');
  assert.equal(core.advice.have, 2);
  if (core.advice.code === 'own_device' && core.advice.more > 0) assert.match(q, new RegExp(`${core.advice.more} more than the 2 you have`));
  else if (core.advice.code === 'own_device') assert.doesNotMatch(q, /more than the/);
  assert.doesNotMatch(q, /of yours/);
  // The cap note names the cap of every set advised to buy, and none passes it.
  const caps = (await page.textContent('#ft-caps').catch(() => '')) || '';
  for (const tr of await page.$$eval('#ft-table tbody tr', (trs) => trs.map((t) => t.textContent))) {
    const m = /Buy (\d+)× /.exec(tr);
    if (!m) continue;
    const n = Number(m[1]);
    const stated = [...caps.matchAll(/(\d+) (?:consumer cards|workstation cards|data-center GPUs)/g)].map((x) => Number(x[1]));
    assert.ok(stated.some((c) => c >= n), `${tr} / ${caps}`);
  }
  // A 512 GB Mac holds GLM-4.5 Air's QLoRA: said, and no set to buy beside it.
  const mac = await env.page();
  await open(mac, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192&lang=en`);
  await mac.waitForSelector('#ft-table tbody tr[data-method="qlora"]');
  const row = await mac.$eval('#ft-table tr[data-method="qlora"]', (tr) => ({ advice: tr.querySelector('[data-advice]')?.dataset.advice, text: tr.textContent }));
  assert.equal(row.advice, 'own_device_unverified');
  assert.match(row.text, /Your own: .*Mac Studio|Your own: .*M3 Ultra/);
  assert.match(row.text, /not verified on your device/);
  assert.doesNotMatch(row.text, /[Bb]uy /);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(mac.problems, []);
});

test('the format table leaves MXFP4_MOE out for a dense model and says why', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForSelector('#matrix table tbody tr');
  const ids = await page.$$eval('#matrix table tbody tr', (trs) => trs.map((tr) => tr.querySelector('th,td')?.textContent || ''));
  assert.ok(ids.some((t) => /Q4_K_M/.test(t)), ids.join());
  assert.ok(!ids.some((t) => /MXFP4/.test(t)), ids.join());
  assert.match(await page.textContent('#matrix-note'), /MXFP4_MOE is left out: it quantizes only the expert tensors/);
});

test('NVFP4 on an RTX 4090 under vLLM is labelled weight-only, not shown as native', async () => {
  const page = await env.page();
  // Llama 3.3 70B: NVIDIA publishes an NVFP4 checkpoint of it, so the table lists the format.
  await open(page, `${env.url}?model=meta-llama/Llama-3.3-70B-Instruct&hw=nvidia-rtx-4090&engine=vllm&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForSelector('#matrix [data-applicability="fp4_weight_only"]', { timeout: 300000 });
  assert.match(await page.textContent('#matrix [data-applicability="fp4_weight_only"]'), /weight-only FP4: no FP4 tensor cores/);
  // Only NVFP4 carries it: the other formats (FP8 too, on Ada) run natively on the card.
  assert.equal((await page.$$('#matrix [data-applicability]')).length, 1);
  assert.equal(await page.getAttribute('#matrix [data-checkpoint="nvidia/Llama-3.3-70B-Instruct-FP4"]', 'href'), 'https://huggingface.co/nvidia/Llama-3.3-70B-Instruct-FP4');
});

test('the vLLM format table lists BF16, FP8, AWQ and GPTQ with the checkpoint each is served from', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-3090&engine=vllm&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForFunction(() => document.querySelectorAll('#matrix tbody tr').length >= 4 &&
    ![...document.querySelectorAll('#matrix tbody td')].some((td) => td.textContent === '…'), null, { timeout: 300000 });
  const rows = await page.$$eval('#matrix tbody tr', (trs) => trs.map((tr) => ({
    id: tr.querySelector('a')?.textContent || '', repo: tr.querySelector('[data-checkpoint]')?.getAttribute('data-checkpoint') || '',
    applic: tr.querySelector('[data-applicability]')?.getAttribute('data-applicability') || '', text: tr.textContent || '' })));
  assert.deepEqual(rows.map((r) => r.id), ['SAFETENSORS-BF16', 'FP8', 'AWQ-4bit', 'GPTQ-4bit']);
  assert.deepEqual(rows.map((r) => r.repo), ['meta-llama/Llama-3.1-8B-Instruct', 'nvidia/Llama-3.1-8B-Instruct-FP8',
    'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4', 'RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16']);
  // An RTX 3090 (Ampere, 8.6) has no FP8 tensor cores: vLLM runs the FP8 checkpoint weight-only.
  assert.deepEqual(rows.map((r) => r.applic), ['', 'fp8_weight_only', '', '']);
  assert.match(rows[1].text, /weight-only FP8: no FP8 tensor cores/);
  assert.match(rows[0].text, /\(publisher\)/);
  assert.match(await page.textContent('#matrix-note'), /served from the checkpoint named beside it/);
  // Each row's figures are the core's estimate of that format (file size as computed).
  const api = await import(path.join(root, 'dist', 'api.js'));
  for (const [i, q] of ['SAFETENSORS-BF16', 'FP8', 'AWQ-4bit', 'GPTQ-4bit'].entries()) {
    const doc = await api.estimate({ model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-3090', engine: 'vllm', context: 8192, quant: q });
    const shown = await page.$eval(`#matrix tbody tr:nth-child(${i + 1}) [data-computed]`, (el) => Number(el.getAttribute('data-computed')));
    assert.equal(shown, doc.checkpoint_bytes, q);
  }
  // Choosing FP8 gives a vllm serve command with its checkpoint, no --quantization flag.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=FP8&hw=nvidia-rtx-3090&engine=vllm&ctx=8192&count=1&ram=0&lang=es`);
  await page.waitForFunction(() => /vllm serve/.test(document.body.textContent || ''), null, { timeout: 300000 });
  const body = await page.textContent('body');
  assert.match(body, /vllm serve nvidia\/Llama-3\.1-8B-Instruct-FP8/);
  assert.doesNotMatch(body, /vllm serve [^\n]*--quantization/);
  assert.deepEqual(page.problems, []);
});

test('a break-even point past the written-off life says renting is cheaper over it', async () => {
  const page = await env.page();
  // Qwen3-8B on an RTX 4090: the instance that makes the same tokens costs little a month, so the
  // purchase pays off only after about 18 years, far past its 36-month amortisation.
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#rvb-break-even[data-months]', { timeout: 300000 });
  const months = Number(await page.getAttribute('#rvb-break-even', 'data-months'));
  assert.ok(months > 36, String(months));
  assert.equal(await page.getAttribute('#rvb-break-even', 'data-code'), 'beyond_amortisation');
  // Past the hardware's 60-month useful life (data/segments.json) too: that is the one reason
  // given, in the same card under the figure, not the written-off period and the chart's end again.
  assert.ok(months > 60, String(months));
  assert.equal(await page.getAttribute('#rvb-break-even', 'data-life'), 'beyond_useful_life');
  const note = await page.$eval('#rvb-break-even', (el) => el.parentElement?.textContent || '');
  assert.match(note, new RegExp(`About ${Math.round(months)} months, longer than the 60 months hardware is commonly counted to last: buying does not pay off within its useful life\\.`));
  assert.doesNotMatch(note, /written off over|the chart shows/);
});

test('a pick card only a setup below the speed floor would fill says so with that setup\'s speed', async () => {
  const page = await env.page();
  // Llama 3.1 405B at Q4_K_M fits a 512 GB Mac, at about 2.6 tok/s: no unified card.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-405B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForSelector('#picks-cards .card.pick', { timeout: 300000 });
  await page.waitForSelector('#picks-missing:not([hidden])');
  const card = await page.$eval('#picks-missing [data-pick="unified_memory"]', (el) => ({ missing: el.getAttribute('data-missing'), text: el.textContent }));
  assert.equal(card.missing, 'below_speed_floor', JSON.stringify(card));
  // The floor holds on the low end of the range: the sentence names that figure beside the estimate.
  assert.match(card.text, /Unified memory: none usable, only setups too slow to use hold it: .*512.* may decode as slowly as [\d.,]+\stok\/s \(estimate [\d.,]+\stok\/s\), below 3(\.0)?\stok\/s\./);
});
