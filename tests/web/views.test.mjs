// The model page, the device page, the accuracy page and the inputs around the main view, driven
// in Chromium the way a person uses them; axe-core on every page; screenshots at desktop and
// phone width into test-results/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { axeProblems, open, root, scrollsSideways, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const shots = path.join(root, 'test-results');
fs.mkdirSync(shots, { recursive: true });
const qwen3 = JSON.parse(fs.readFileSync(path.join(root, 'data/models/qwen/qwen3-8b.json'), 'utf8')).config;
const gib = (s) => Number(String(s).replace(/[^\d.]/g, ''));

test('the model page shows the spec card, the quantization table, GPU tiers, Macs and unified-memory PCs, and links into the main view', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=zai-org/GLM-4.5-Air&lang=en`);
  await page.waitForSelector('#mp-spec dl');
  assert.equal(await page.getAttribute('body', 'data-engine'), 'worker', 'estimates run in a Worker');
  assert.match(await page.textContent('#mp-title'), /GLM-4.5 Air/);
  const spec = await page.textContent('#mp-spec');
  assert.match(spec, /Z\.ai/);
  assert.match(spec, /46/);            // layers
  assert.match(spec, /4,096/);         // hidden size
  assert.match(spec, /151,552/);       // vocabulary
  assert.match(spec, /MIT/);
  await page.waitForSelector('#mp-quants table tbody tr');
  const q4 = await page.textContent('#mp-quants tbody tr:has-text("Q4_K_M")');
  assert.ok(gib(q4.match(/([\d.,]+)\sGiB/)[1]) > 60, q4);
  await page.waitForSelector('#mp-gpus table tbody tr');
  await page.waitForSelector('#mp-macs table tbody tr');
  assert.match(await page.textContent('#mp-macs'), /M3 Ultra/);
  // Unified-memory PCs have their own heading and table, from the same core tiers.
  await page.waitForSelector('#mp-unified table tbody tr');
  assert.match(await page.textContent('#mp-unified table:first-of-type tbody'), /DGX Spark/);
  // A product label says its memory as it is sold, in GB, in a table as everywhere (issue 16: a
  // device's name in one unit on every surface); the table's figures are GiB.
  assert.match(await page.textContent('#mp-unified table:first-of-type tbody'), /Ryzen AI Max\+ 395 · 128\sGB/);
  assert.doesNotMatch(await page.textContent('#mp-unified table:first-of-type tbody'), /Ryzen AI Max\+ 395 · 128\sGiB/);
  assert.doesNotMatch(await page.textContent('#mp-macs'), /DGX Spark|Ryzen/);
  assert.match(await page.textContent('section:has(#mp-unified) h2'), /Unified-memory PCs/);
  assert.ok(await page.$('#mp-unified details summary'), 'the 32 and 64 GB machines folded under "too little memory"');
  await page.waitForSelector('#mp-faq details');
  assert.match(await page.textContent('#mp-limits'), /mixture of experts/);
  assert.doesNotMatch(await page.textContent('#view-model'), /undefined|NaN|Infinity/);
  await page.screenshot({ path: path.join(shots, 'model-desktop.png') });
  // Following a GPU link opens the main view for that pair; back returns to the model page.
  await page.click('#mp-gpus tbody tr:first-child a');
  await page.waitForFunction(() => !document.querySelector('#view-main').hidden && document.querySelector('#verdict').dataset.verdict !== 'pending');
  assert.equal(new URL(page.url()).searchParams.get('view'), null);
  await page.goBack();
  await page.waitForFunction(() => !document.querySelector('#view-model').hidden);
  assert.equal(new URL(page.url()).searchParams.get('view'), 'model');
  assert.deepEqual(page.problems, []);
});

test('the device page explains usable memory and lists what runs on it, best first', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&ram=0&lang=en`);
  await page.waitForSelector('#dp-usable .big');
  assert.match(await page.textContent('#dp-usable'), /usable of 24\sGiB physical/);
  await page.waitForSelector('#dp-runs table tbody tr');
  const first = await page.textContent('#dp-runs tbody tr:first-child');
  assert.match(first, /Q\d_K|BF16/);
  assert.match(first, /fits|tight/);
  const rows = await page.$$eval('#dp-runs table:first-of-type tbody tr', (r) => r.length);
  assert.ok(rows > 10, `${rows} models run on a 4090`);
  assert.doesNotMatch(await page.textContent('#view-device'), /undefined|NaN|Infinity/);
  await page.screenshot({ path: path.join(shots, 'device-desktop.png') });
  await page.selectOption('#dp-device', 'apple-m3-ultra-80c-gpu-512gb');
  await page.waitForFunction(() => /M3 Ultra/.test(document.querySelector('#dp-title').textContent));
  assert.match(page.url(), /hw=apple-m3-ultra-80c-gpu-512gb/);
  await page.waitForFunction(() => /Metal/.test(document.querySelector('#dp-usable').textContent));
});

test('the accuracy page renders the report when the core offers one, and says so when not', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=accuracy&lang=en`);
  await page.waitForFunction(() => document.querySelector('#acc-body').textContent.trim().length > 0);
  const body = await page.textContent('#acc-body');
  assert.ok(/appear here/.test(body) || /measure/i.test(body) || (await page.$('#acc-body table')), body.slice(0, 200));
  await page.screenshot({ path: path.join(shots, 'accuracy-desktop.png') });
});

test('a pasted config.json is estimated through the core, saved, and still there after a reload', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.click('#import summary');
  await page.fill('#cfg-name', 'My <b>Qwen</b> fork');
  await page.fill('#cfg-text', JSON.stringify(qwen3));
  await page.click('#cfg-go');
  await page.waitForFunction(() => /My <b>Qwen<\/b> fork/.test(document.querySelector('#summary').textContent));
  assert.equal(await page.evaluate(() => document.querySelectorAll('#summary b, #saved-list b').length), 0);
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'fits');
  const total = await page.textContent('#c-total');
  assert.ok(gib(total) > 4 && gib(total) < 8, `Qwen3-8B-shaped config at Q4_K_M: ${total}`);
  assert.match(page.url(), /model=custom%3A/);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction((t) => document.querySelector('#c-total').textContent === t, total);
  assert.equal(await page.inputValue('#model'), 'My <b>Qwen</b> fork');
  // A config the core cannot read (an unknown architecture without a standard decoder's keys) is
  // reported with the field, and nothing is saved.
  await page.click('#import summary');
  await page.fill('#cfg-name', 'broken');
  const { intermediate_size: _drop, ...noFfn } = qwen3;
  await page.fill('#cfg-text', JSON.stringify({ ...noFfn, model_type: 'no-such-arch' }));
  await page.click('#cfg-go');
  await page.waitForFunction(() => /model_type|no-such-arch/.test(document.querySelector('#cfg-msg').textContent));
  assert.doesNotMatch(await page.textContent('#saved-list'), /broken/);
  // With a standard decoder's keys the core estimates it as an approximation, and the page says so.
  await page.fill('#cfg-name', 'approximate one');
  await page.fill('#cfg-text', JSON.stringify({ ...qwen3, model_type: 'no-such-arch' }));
  await page.click('#cfg-go');
  await page.waitForFunction(() => !document.querySelector('#approx-note').hidden);
  assert.match(await page.textContent('#approx-note'), /no-such-arch/);
  // …and next to the verdict, where a glance lands.
  assert.ok(await page.isVisible('#verdict #verdict-approx'));
  assert.equal(await page.textContent('#verdict-approx'), 'approximate');
});

test('a dropped config.json file is read locally and estimated', async () => {
  const page = await env.page();
  await open(page, `${env.url}?hw=nvidia-rtx-3090&lang=en`);
  await page.click('#import summary');
  await page.setInputFiles('#cfg-file', { name: 'qwen3-8b-config.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(qwen3)) });
  await page.waitForFunction(() => /qwen3-8b-config/.test(document.querySelector('#summary').textContent));
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'fits');
});

test('a custom device is saved, used, exported, and a corrupted saved entry is reported and kept aside', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&lang=en`);
  await page.click('#custom-device summary');
  await page.fill('#cd-name', 'Lab card');
  await page.selectOption('#cd-kind', 'gpu');
  await page.fill('#cd-mem', '10');
  await page.fill('#cd-bw', '500');
  await page.click('#cd-add');
  await page.waitForFunction(() => /Lab card/.test(document.querySelector('#summary').textContent));
  assert.match(await page.textContent('#c-usable'), /GiB/);
  await page.click('#saved summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#saved-export')]);
  const exported = fs.readFileSync(await download.path(), 'utf8');
  const doc = JSON.parse(exported);
  assert.equal(Object.values(doc.devices)[0].name, 'Lab card');

  // A fresh browser (nothing saved) gets the device back from the exported file.
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.doesNotMatch(await page.textContent('#hardware'), /Lab card/);
  await page.click('#saved summary');
  await page.setInputFiles('#saved-file', { name: 'willitfit-custom.json', mimeType: 'application/json', buffer: Buffer.from(exported) });
  await page.waitForFunction(() => /Imported 1/.test(document.querySelector('#saved-msg').textContent));
  assert.match(await page.textContent('#hardware'), /Lab card/);
  assert.match(await page.textContent('#saved-list'), /Lab card/);

  // Break the saved data by hand: one bad device beside the good one.
  await page.evaluate(() => {
    const d = JSON.parse(localStorage.getItem('willitfit.custom.v1'));
    d.devices['custom:bad'] = { name: 'Half a card', kind: 'gpu', memory_gib: 'lots' };
    localStorage.setItem('willitfit.custom.v1', JSON.stringify(d));
  });
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('#store-notice:not([hidden])');
  assert.match(await page.textContent('#store-notice'), /custom:bad/);
  const aside = await page.evaluate(() => JSON.parse(localStorage.getItem('willitfit.aside.v1')));
  assert.equal(aside.length, 1);
  assert.match(aside[0].raw, /Half a card/);
  assert.match(await page.textContent('#hardware'), /Lab card/);
  assert.doesNotMatch(await page.textContent('#hardware'), /Half a card/);
});

test('the model search offers catalog models as you type and picks one with the keyboard', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&hw=nvidia-rtx-4090&lang=en`);
  await page.fill('#model', '');
  await page.type('#model', 'glm air');
  await page.waitForSelector('#model-options:not([hidden]) li');
  assert.match(await page.textContent('#model-options'), /GLM-4.5 Air/);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /GLM-4.5 Air/.test(document.querySelector('#summary').textContent));
  assert.match(page.url(), /model=zai-org%2FGLM-4.5-Air/);
});

test('the main view adds the context chart with its table, the quantization matrix, diagnostics and links', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192&lang=en`);
  await page.waitForSelector('#chart canvas');
  const ctxRows = await page.$$eval('#chart-table tbody tr', (r) => r.map((x) => x.firstElementChild.textContent));
  assert.equal(ctxRows[0], '4K');
  assert.equal(ctxRows[ctxRows.length - 1], '128K');
  await page.waitForFunction(() => document.querySelectorAll('#matrix tbody tr').length > 15);
  assert.match(await page.textContent('#matrix'), /Q4_K_M/);
  assert.match(await page.textContent('#diag-list'), /from 8K\sto 32K/);   // the core's kv_outlook (solve)
  // A setup that fits has nothing to change: no "Make it fit" heading over "already fits".
  await page.waitForFunction(() => /** @type {HTMLElement} */ (document.querySelector('#fit-title')).hidden);
  assert.equal(await page.$eval('#fit-list', (e) => /** @type {HTMLElement} */ (e).hidden), true);
  await page.waitForFunction(() => document.querySelectorAll('#links-models li').length > 20);
  // The speed section renders the core's speed figures; nothing shows "undefined" or NaN.
  await page.waitForSelector('#plug-speed', { state: 'visible' });
  assert.match(await page.textContent('#plug-speed'), /tok\/s/);
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN/);
  await page.waitForFunction(() => !/…/.test(document.querySelector('#matrix tbody').textContent));
  await page.screenshot({ path: path.join(shots, 'main-full-desktop.png') });
});

test('a hybrid model explains its KV cache as per-token cells on attention layers plus a fixed recurrent state', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=ibm-granite/granite-4.0-h-small&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=32768&lang=en`);
  const kv = await page.textContent('#w-kv');
  // 4 attention layers of 8 KV heads of 128 (f16 K and V), and 36 Mamba-2 layers whose state does not grow.
  assert.match(kv, /^4\slayers × 4\.00\u00a0KiB per layer per token × 32,768\scells \+ 36\slayers × a fixed recurrent state/);
  assert.match(kv, /36\slayers × a fixed recurrent state: 0\.14\sGiB in all, whatever the context\./);
  assert.doesNotMatch(kv, /× 0 cells/);
  await open(page, `${env.url}?model=ibm-granite/granite-4.0-h-small&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=32768&lang=fr`);
  assert.match(await page.textContent('#w-kv'), /36 couches × un état récurrent fixe\s:\s0,14\sGio au total/);
});

test('"detect my hardware" reports what the browser says and never changes the device by itself', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&hw=nvidia-rtx-4090&lang=en`);
  await page.click('#detect');
  await page.waitForFunction(() => document.querySelector('#detect-out').textContent.length > 5 && !/Asking/.test(document.querySelector('#detect-out').textContent));
  assert.equal(await page.inputValue('#hardware'), 'nvidia-rtx-4090');
});

test('shared URLs of the model and device pages reload to the same view, in the chosen language', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=Qwen/Qwen3-8B&lang=fr`);
  await page.waitForSelector('#mp-spec dl');
  assert.equal(await page.textContent('#view-model h2 >> nth=0'), 'Caractéristiques');
  assert.match(await page.textContent('#mp-spec'), /4\u202f096|4 096/);   // French digit grouping
  const title = await page.textContent('#mp-title');
  await page.reload();
  await page.waitForSelector('#mp-spec dl');
  assert.equal(await page.textContent('#mp-title'), title);
  await page.selectOption('#lang', 'zh');
  await page.waitForFunction(() => document.documentElement.lang === 'zh');
  assert.equal(await page.textContent('#view-model h2 >> nth=0'), '规格');
  assert.match(page.url(), /view=model/);
});

// The one accessibility check of each view (axe-core, serious and critical): light and dark at
// 1280 px, and on a phone, where the page must not scroll sideways either. The accuracy page's
// plot is drawn before axe runs (its ready selector), so the check covers plot and table.
for (const [name, url, ready] of [
  ['main', '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&ram=64', ['#matrix tbody tr']],
  ['model', '?view=model&model=zai-org/GLM-4.5-Air', ['#mp-gpus table', '#mp-faq details']],
  ['device', '?view=device&hw=nvidia-rtx-4090&ram=64', ['#dp-runs table']],
  ['accuracy', '?view=accuracy', ['#acc-rows tbody tr', '#acc-chart canvas']],
]) {
  /** @param {any} page */
  const whenReady = async (page) => { for (const sel of ready) await page.waitForSelector(sel); };
  test(`the ${name} page has no serious accessibility violation, light or dark, and fits a phone screen`, async () => {
    // Light, then the system turning dark with the page open (the page follows it, charts
    // redrawn): one load for both themes.
    const page = await env.page({ bypassCSP: true, colorScheme: 'light' });
    await open(page, `${env.url}${url}&lang=en`);
    await whenReady(page);
    for (const theme of /** @type {const} */ (['light', 'dark'])) {
      if (theme === 'dark') {
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.waitForFunction(() => matchMedia('(prefers-color-scheme: dark)').matches);
        await whenReady(page);
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      }
      const v = await axeProblems(page);
      assert.deepEqual(v, [], `${theme}: ${JSON.stringify(v, null, 1)}`);
      assert.deepEqual(page.problems, [], theme);
    }
    await page.context().close();
    const phone = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, bypassCSP: true });
    await open(phone, `${env.url}${url}&lang=en`);
    await whenReady(phone);
    assert.equal(await scrollsSideways(phone), false, 'the page scrolls sideways on a phone');
    const v = await axeProblems(phone);
    assert.deepEqual(v, [], `390 px: ${JSON.stringify(v, null, 1)}`);
    assert.deepEqual(phone.problems, [], '390 px');
    await phone.screenshot({ path: path.join(shots, `${name}-phone.png`) });
    await phone.context().close();
  });
}

test('speed, launch commands and per-device memory appear when the result carries them, and copy works', async () => {
  // Stand in for the parts of the core other work adds: the Worker is served with its results
  // extended by fixed speed, commands and per-device figures.
  const page = await env.page({ permissions: ['clipboard-read', 'clipboard-write'] });
  await page.route('**/worker.js', async (route) => {
    const res = await route.fetch();
    const body = (await res.text()).replace('out = { ok: true, value: await api.estimate(req) };',
      `out = { ok: true, value: { ...(await api.estimate(req)), speed: { decode_tps: 42.5, decode_tps_low: 30, decode_tps_high: 50, prefill_tps: 900, ttft_ms: 4200, prompt: 512 },
        commands: { 'llama.cpp': 'llama-server -hf x:Q4_K_M -c 8192' } } };
      out.value.memory = { ...out.value.memory, devices: [{ name: 'GPU 0', weights_bytes: 2 ** 33, total_bytes: 2 ** 34 }] };`);
    await route.fulfill({ response: res, body });
  });
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#plug-speed:not([hidden])');
  assert.match(await page.textContent('#speed-cards'), /42\.5\stok\/s \(30\.0–\u206050\.0\)/);
  assert.match(await page.textContent('#speed-cards'), /4,200\sms/);
  assert.match(await page.textContent('#commands'), /llama-server -hf x:Q4_K_M -c 8192/);
  assert.match(await page.textContent('#devices-table'), /GPU 0/);
  await page.click('#commands button');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'llama-server -hf x:Q4_K_M -c 8192');
  await page.waitForFunction(() => document.querySelectorAll('#matrix thead th').length === 10);   // decode column joins
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN/);
});

test('a GPU without tensor cores shows its FP32 rate from the catalog and no FP16 rate; a tensor-core GPU shows no FP32 row it does not state', async () => {
  const page = await env.page();
  const m40 = JSON.parse(fs.readFileSync(path.join(root, 'data/hardware/nvidia-datacenter.json'), 'utf8'))
    .devices.find((d) => d.id === 'nvidia-tesla-m40-24gb');
  await open(page, `${env.url}?view=device&hw=nvidia-tesla-m40-24gb&ram=0&lang=en`);
  await page.waitForSelector('#dp-facts dl');
  const facts = await page.$$eval('#dp-facts dl > div', (ds) => ds.map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]));
  const get = (k) => (facts.find(([dt]) => dt === k) || [])[1];
  assert.equal(get('FP32 compute'), `${m40.fp32_tflops.toFixed(1)}\u00a0TFLOPS`);
  assert.equal(get('FP16 compute'), '—');
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&ram=0&lang=en`);
  await page.waitForSelector('#dp-facts dl');
  const labels = await page.$$eval('#dp-facts dt', (ds) => ds.map((d) => d.textContent));
  assert.ok(labels.includes('FP16 compute'));
  assert.ok(!labels.includes('FP32 compute'), 'the 4090 entry states no FP32 rate');
});
