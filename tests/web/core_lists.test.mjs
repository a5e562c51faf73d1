// Issue 16 in Chromium: the last lists and devices the page chose itself now come from the core
// (the RAM choices, the model page's reference device, the order of devices), the engine's own
// per-token cache under vLLM, the published checkpoint as a server default, a long device name
// whole in the closed hardware select on a phone, and the Required card's two lines apart.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const nb = (/** @type {string} */ s) => s.replace(/[\u00a0\u202f\u2060]/g, ' ');

test('the RAM selects offer the core\'s choices, and the model page sizes its formats on the core\'s reference device', async () => {
  const d = core('defaults', {});
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  assert.deepEqual(await page.$$eval('#ram option', (os) => os.map((o) => Number(o.value))), d.ram_input.choices);
  assert.deepEqual(await page.$$eval('#dp-ram option', (os) => os.map((o) => Number(o.value))), d.ram_input.device_page);
  // A size a link states outside the choices is offered too: the form shows what was computed.
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&ram=48&lang=en`);
  assert.equal(await page.inputValue('#ram'), '48');
  // The model page: its format table's caption names the reference device the core gives.
  await open(page, `${env.url}?view=model&model=Qwen/Qwen3-8B&lang=en`);
  await page.waitForSelector('#mp-quant-table tbody tr');
  // The device as the hardware select names it, without the size ("GeForce RTX 4090").
  const label = nb(await page.$eval(`#hardware option[value="${d.reference_device.id}"]`, (o) => o.textContent || '')).split(' · ')[0];
  assert.ok(label, d.reference_device.id);
  const caption = nb(await page.$eval('#mp-quants', (e) => e.textContent || ''));
  assert.ok(caption.includes(label), `${label} in ${caption.slice(0, 200)}`);
  // Its limits name the core's formats (defaults.limit_formats), not ones the page chose.
  assert.match(await page.textContent('#mp-limits'), new RegExp(d.limit_formats.smallest));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('under vLLM with an fp8 cache the per-token card is the engine\'s own figure and says its cache type', async () => {
  const req = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-h100-sxm', engine: 'vllm', context: 8192, kv_cache_dtype: 'fp8' };
  const doc = core('estimate', req);
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-h100-sxm&engine=vllm&ctx=8192&kv=fp8&lang=en`);
  await page.waitForFunction(() => /** @type {HTMLElement} */ (document.getElementById('c-kvtok')).dataset.bytes);
  const bytes = Number(await page.getAttribute('#c-kvtok', 'data-bytes'));
  // The form offers vLLM's cache dtypes and holds fp8; the card is the core's figure for it,
  // half of the bf16 cache's.
  assert.deepEqual(await page.$$eval('#kv option', (os) => os.map((o) => o.value)), core('defaults', {}).engines.vllm.kv_cache_dtypes);
  assert.equal(await page.inputValue('#kv'), 'fp8');
  const sent = doc;
  assert.equal(bytes, sent.memory.kv.bytes_per_token);
  assert.equal(bytes * 2, core('estimate', { ...req, kv_cache_dtype: 'auto' }).memory.kv.bytes_per_token);
  assert.match(await page.textContent('#c-topology'), new RegExp(sent.memory.kv.cache_type));
  // The card agrees with the KV row: per token × context × sequences is the sequences' need.
  const dem = sent.vllm.demand;
  assert.ok(Math.abs(bytes * dem.context * dem.sequences - sent.memory.kv_cache_bytes) <= 0.01 * sent.memory.kv_cache_bytes);
  // A sliding-window model says the figure covers the layers that grow.
  await open(page, `${env.url}?model=openai/gpt-oss-20b&hw=nvidia-h100-sxm&engine=vllm&ctx=8192&lang=en`);
  await page.waitForFunction(() => /** @type {HTMLElement} */ (document.getElementById('c-kvtok')).dataset.bytes);
  assert.match(await page.textContent('#c-topology'), /layers that grow with the context/);
  // gpt-oss's server default is its published MXFP4 checkpoint.
  assert.equal(await page.inputValue('#quant'), core('defaults', { model: 'openai/gpt-oss-20b' }).engines.vllm.quant);
  assert.equal(await page.inputValue('#quant'), 'BF16-MXFP4-MOE');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('at 390 px the closed hardware select shows a long device name whole, and the picker still chooses', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 } });
  for (const lang of ['en', 'fr']) {
    await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-pro-6000-blackwell-max-q&ctx=8192&lang=${lang}`);
    await page.click('#setup-summary');
    const face = await page.$eval('#hw-face', (e) => {
      const sel = /** @type {HTMLSelectElement} */ (document.getElementById('hardware'));
      const f = /** @type {HTMLElement} */ (e);
      const r = f.getBoundingClientRect(), s = sel.getBoundingClientRect();
      return { text: f.textContent || '', option: sel.selectedOptions[0].textContent || '', over: f.scrollWidth - f.clientWidth, lines: Math.round(r.height / parseFloat(getComputedStyle(f).lineHeight)),
        covered: Math.abs(r.top - s.top) < 1 && Math.abs(r.height - s.height) < 1 };
    });
    assert.equal(face.text, face.option, lang);
    assert.match(face.text, /Max-Q/);
    assert.ok(face.over <= 0, `${lang}: the face is cut by ${face.over} px`);
    assert.ok(face.lines >= 2, `${lang}: a long name wraps (${face.lines} lines)`);
    assert.ok(face.covered, `${lang}: the select covers its face, so a tap opens it`);
  }
  // The select still takes the choice, and the face follows it.
  await page.selectOption('#hardware', 'nvidia-rtx-3090');
  await page.waitForFunction(() => /3090/.test(document.getElementById('hw-face')?.textContent || ''));
  // The search picks a device and the face shows it.
  await page.fill('#hw-search', 'rtx pro 6000 workstation');
  await page.waitForSelector('#hw-search-options li');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /RTX PRO 6000/.test(document.getElementById('hw-face')?.textContent || ''));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the Required card\'s two sub-lines stand apart, and B200\'s vendor GB is named as the vendor\'s beside its GiB', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#c-total-gb .s-line + .s-line');
  const gap = await page.$eval('#c-total-gb', (e) => {
    const [a, b] = [...e.querySelectorAll('.s-line')].map((x) => x.getBoundingClientRect());
    return b.top - a.bottom;
  });
  assert.ok(gap >= 4, `the lines are ${gap} px apart`);
  await open(page, `${env.url}?view=device&hw=nvidia-b200&ram=0&lang=en`);
  await page.waitForSelector('#dp-facts dd');
  const facts = nb(await page.textContent('#dp-facts'));
  // The catalog's size to the hundredth (179.06 GiB), the vendor's 180 GB named beside it.
  assert.match(facts, /179\.06 GiB \(sold as 180 GB\)/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
