// Issue 16, the page on a phone (390 px) as reviewers read it: devices the core placed alike are
// one row (one card), not eight equal ones.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Each visible row (card) of a table: its text, the text of the row before it. @param {any} page @param {string} sel */
const rowsOf = (page, sel) => page.$$eval(`${sel} tbody tr`, (trs) => trs.map((tr) => ({
  text: (tr.textContent || '').trim(), height: tr.getBoundingClientRect().height, count: tr.querySelector('[data-count]')?.getAttribute('data-count') || '' })));

test('eight H200 the core places alike are one card ("8× … (each)"), at 390 and 1280 px; an offload plan keeps its GPU and RAM apart', async () => {
  const DSV3 = { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 32768 };
  const r = core('estimate', DSV3);
  // The test needs the core to place the eight devices alike.
  assert.equal(r.memory.devices.length, 8);
  assert.ok(r.memory.devices.every((/** @type {any} */ d) => JSON.stringify(d) === JSON.stringify(r.memory.devices[0])));
  for (const [lang, opts, each] of [['en', PHONE, /^8×\s?NVIDIA H200 SXM \(each\)/], ['fr', {}, /^8\u00a0×\sNVIDIA H200 SXM \(chacun\)/], ['zh', PHONE, /^8×\s?NVIDIA H200 SXM（每个）/]]) {
    const page = await env.page(opts);
    await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=${lang}`);
    await page.waitForSelector('#devices-table tbody tr');
    const rows = await rowsOf(page, '#devices-table');
    assert.equal(rows.length, 1, `${lang}: ${rows.map((x) => x.text).join(' / ')}`);
    assert.equal(rows[0].count, '8');
    assert.match(rows[0].text, each);
    // The one card holds the per-device figures (each GPU's, not eight GPUs' together).
    const cells = await page.$$eval('#devices-table tbody td', (tds) => tds.map((td) => td.textContent));
    const gibText = (/** @type {number} */ b) => (b / 2 ** 30).toFixed(2);
    assert.ok(cells.some((c) => (c || '').replace(',', '.').startsWith(gibText(r.memory.devices[0].weights_bytes))), cells.join(' | '));
    if (opts === PHONE) {
      // On a phone that card is well under a screen high (eight were two and a half).
      assert.ok(rows[0].height < 420, `${rows[0].height}px`);
      // Its verdict tag keeps its own width beside its label (it was stretched across the card).
      const tag = await page.$eval('#devices-table tbody [data-verdict]', (t) => [t.getBoundingClientRect().width, /** @type {HTMLElement} */ (t.closest('td')).getBoundingClientRect().width]);
      assert.ok(tag[0] < tag[1] / 2, tag.join(' of '));
    }
    assert.deepEqual(page.problems, []);
  }
  // An offload plan: the GPU and system RAM hold different parts, two rows.
  const page = await env.page(PHONE);
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=en`);
  await page.waitForSelector('#devices-table tbody tr');
  const rows = await rowsOf(page, '#devices-table');
  assert.equal(rows.length, 2);
  assert.notEqual(rows[0].text, rows[1].text);
  assert.equal(rows[0].count, '');
  // Two RTX 3090 with a layer split hold different layers: two rows, no "(each)".
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&lang=en`);
  await page.waitForSelector('#devices-table tbody tr');
  const split = await rowsOf(page, '#devices-table');
  assert.equal(split.length, 2);
  assert.doesNotMatch(split.map((x) => x.text).join(' '), /\(each\)/);
});
