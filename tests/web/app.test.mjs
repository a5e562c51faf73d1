import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const shots = path.join(root, 'test-results');
fs.mkdirSync(shots, { recursive: true });

test('a person picks GLM-4.5-Air Q4_K_M at 8K on a Mac Studio M3 Ultra 512 GB and reads "fits" with about 70 GiB', async () => {
  const page = await env.page();
  await open(page, env.url);
  await page.fill('#model', 'zai-org/GLM-4.5-Air');
  await page.dispatchEvent('#model', 'change');
  await page.selectOption('#quant', 'Q4_K_M');
  await page.click('#context-presets button:has-text("8K")');
  await page.selectOption('#hardware', 'apple-m3-ultra-80c-gpu-512gb');
  // The start page's own setup may also fit this Mac: wait for the answer to the person's request
  // (its summary names the model, the format and the Mac), not only for a "fits".
  await page.waitForFunction(() => document.querySelector('#verdict')?.getAttribute('data-verdict') === 'fits' &&
    /GLM-4\.5.Air/.test(document.querySelector('#summary')?.textContent || '') &&
    /Q4_K_M/.test(document.querySelector('#summary')?.textContent || '') &&
    /M3 Ultra/.test(document.querySelector('#summary')?.textContent || '') &&
    /8K|8,192/.test(document.querySelector('#summary')?.textContent || ''));
  assert.match(await page.textContent('#verdict-text'), /Fits/);
  const total = await page.textContent('#c-total');
  const gib = Number(total.replace(/[^\d.]/g, ''));
  assert.ok(gib > 64 && gib < 76, `required ${total}`);
  assert.match(await page.textContent('#c-usable'), /384/);
  await page.screenshot({ path: path.join(shots, 'main-desktop.png') });
  assert.deepEqual(page.problems, []);
});

test('switching to an RTX 4090 with 64 GB of RAM gives the offload verdict', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192`);
  await page.selectOption('#hardware', 'nvidia-rtx-4090');
  await page.selectOption('#ram', '64');
  await page.waitForFunction(() => document.querySelector('#verdict')?.getAttribute('data-verdict') === 'offload');
  assert.match(await page.textContent('#verdict-text'), /system RAM/);
  await page.selectOption('#ram', '0');
  await page.waitForFunction(() => document.querySelector('#verdict')?.getAttribute('data-verdict') === 'no_fit');
});

test('a server engine without a chosen format runs on its own default, with no "does not apply" note', async () => {
  const page = await env.page();
  // A link to SGLang that names no format: the core picks the model's own checkpoint.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192&lang=en`);
  await page.waitForFunction(() => document.querySelector('#verdict')?.getAttribute('data-verdict') === 'fits');
  assert.equal(await page.inputValue('#quant'), 'SAFETENSORS-BF16');
  assert.equal((await page.textContent('#notes')).trim(), '');
  assert.doesNotMatch(page.url(), /quant=/);
  // Switching the engine in the form from llama.cpp (Q4_K_M) to vLLM: vLLM's default, no note.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.selectOption('#engine', 'vllm');
  await page.waitForFunction(() => document.querySelector('#quant').value === 'SAFETENSORS-BF16');
  assert.equal((await page.textContent('#notes')).trim(), '');
  // A format picked by the person under vLLM is kept, and one vLLM does not load says so.
  await page.selectOption('#quant', 'FP8');
  await page.waitForFunction(() => /quant=FP8/.test(location.search));
  await page.selectOption('#quant', 'Q8_0');
  await page.waitForFunction(() => /Q8_0/.test(document.querySelector('#notes').textContent || ''));
  assert.deepEqual(page.problems, []);
});

test('a speed with a published run of the same model, quant and device says so, with one decode and one prefill figure and the source', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Meta-Llama-3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#speed-basis a[href^="https://github.com/XiongjieDai/"]');
  const text = await page.textContent('#speed-basis');
  // The rows shipped in data/measurements/llamacpp_bench.jsonl for this device (tg512, pp512).
  assert.match(text, /^Measured:/);
  assert.match(text, /131\stok\/s in tg512/);
  assert.match(text, /7,139\stok\/s in pp512/);   // as the speed cards round: no decimal past 100
  assert.ok(await page.$('#speed-basis a[href*="view=accuracy"]'), 'links to the accuracy of this kind of estimate');
  assert.deepEqual(page.problems, []);
});

test('vLLM over 4 GPUs says its decode is tensor parallel, over which link, with the public runs behind it; 4 GPUs decode faster than 2', async () => {
  const page = await env.page();
  const q = (/** @type {number} */ n) => `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&hw=nvidia-h100-sxm&count=${n}&engine=vllm&ctx=8192&lang=en`;
  await open(page, q(4));
  await page.waitForFunction(() => /Tensor parallel/.test(document.querySelector('#speed-basis')?.textContent || ''));
  const text = await page.textContent('#speed-basis');
  assert.match(text, /^Tensor parallel over NVLink on 4 GPUs, one request\. Per token: /);
  assert.match(text, /160 all-reduces between the GPUs/);   // 2 per layer x 80 layers, as the core counts them
  // What takes most of the step is the core's (speed.basis.tensor_parallel.step.bound), worded.
  assert.match(text, /the largest part is (reading the weights from memory|the fixed per-layer costs, not the reads|the communication between the GPUs)\./);
  const four = Number(await page.getAttribute('#k-decode', 'data-v'));
  await open(page, q(2));
  await page.waitForFunction(() => /on 2 GPUs, one request/.test(document.querySelector('#speed-basis')?.textContent || ''));
  const two = Number(await page.getAttribute('#k-decode', 'data-v'));
  assert.ok(four > two, `4 GPUs ${four} tok/s, 2 GPUs ${two} tok/s`);
  assert.deepEqual(page.problems, []);
});

test('a shared URL restores the same view, and back returns to the previous one', async () => {
  const page = await env.page();
  const url = `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q8_0&hw=nvidia-rtx-3090&ctx=32768&kv=q8_0&count=1&ram=0&lang=en`;
  await open(page, url);
  const first = await page.textContent('#c-total');
  assert.equal(await page.inputValue('#model'), 'meta-llama/Llama-3.1-8B-Instruct');
  assert.equal(await page.inputValue('#quant'), 'Q8_0');
  assert.equal(await page.inputValue('#kv'), 'q8_0');
  assert.equal(await page.textContent('#context-out'), '32K');
  const again = await env.page();
  await open(again, page.url());
  assert.equal(await again.textContent('#c-total'), first);
  await page.selectOption('#quant', 'Q4_K_M');
  await page.waitForFunction((f) => document.querySelector('#c-total')?.textContent !== f, first);
  await page.goBack();
  await page.waitForFunction((f) => document.querySelector('#c-total')?.textContent === f, first);
  assert.equal(await page.inputValue('#quant'), 'Q8_0');
});

test('switching language translates labels and formats numbers for that language', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192`);
  await page.selectOption('#lang', 'es');
  await page.waitForFunction(() => document.documentElement.lang === 'es');
  assert.equal(await page.textContent('label[for="model"]'), 'Modelo');
  await page.waitForFunction(() => /,\d\d\sGiB/.test(document.querySelector('#c-total')?.textContent || ''));
  await page.selectOption('#lang', 'zh');
  await page.waitForFunction(() => document.documentElement.lang === 'zh');
  assert.equal(await page.textContent('label[for="model"]'), '模型');
});

test('markup in a URL parameter is shown as text and never becomes an element', async () => {
  const page = await env.page();
  const evil = '<img src=x onerror="window.__pwned=1">';
  await page.goto(`${env.url}?model=${encodeURIComponent(evil)}&hw=nvidia-rtx-4090`);
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /unknown_model/);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.inputValue('#model'), evil);
});

test('the page runs under the strict CSP with no violation and works on a phone screen', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true });
  const violations = [];
  await page.exposeFunction('__cspViolation', (v) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const resp = await page.goto(`${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-5090&ctx=32768&ram=64`);
  assert.match(resp.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
  await page.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(violations, []);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
  assert.equal(overflow, false, 'the page scrolls sideways on a phone');
  await page.screenshot({ path: path.join(shots, 'main-phone.png') });
});
