// The Mac's "llama.cpp and MLX" section (web/views/engines.js) is part of the page as soon as the
// result is: shown and marked pending with the verdict, then filled with the two estimates. A
// review's captures of one journey showed it in some languages and themes and not in others (the
// section stayed hidden, with no pending mark, until two more estimates came back, so a capture
// that waited for no pending section could be taken before it). Loaded several times, in several
// languages and themes, it is always there, with the CLI's figures for each engine's format.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const Q = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 32768 };
const URL_Q = '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768';

for (const [lang, theme] of [['es', 'light'], ['es', 'dark'], ['en', 'dark'], ['fr', 'dark'], ['zh', 'light']]) {
  test(`the Mac's engine comparison is on the page, pending then filled (${lang}, ${theme})`, async () => {
    const page = await env.page({ colorScheme: /** @type {'light'|'dark'} */ (theme), viewport: { width: 390, height: 844 } });
    await open(page, `${env.url}${URL_Q}&lang=${lang}`);
    // With the verdict on screen, the section is already there: filled, or saying it is working.
    const at = await page.evaluate(() => {
      const box = /** @type {HTMLElement} */ (document.getElementById('plug-engines'));
      return { hidden: box.hidden, pending: !!box.querySelector('[data-pending="true"]'), table: !!box.querySelector('table') };
    });
    assert.equal(at.hidden, false, 'the section is shown with the result');
    assert.ok(at.pending || at.table, 'the section is pending or filled');
    // Once no section on screen is pending, the table is there.
    await page.waitForFunction(() => ![...document.querySelectorAll('[data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent));
    assert.equal(await page.isVisible('#plug-engines #engines-table table'), true);
    const doc = core('estimate', Q);
    const ec = doc.engine_compare;
    assert.deepEqual(ec.engines, ['llama.cpp', 'mlx']);
    const docs = ec.engines.map((/** @type {string} */ e) => core('estimate', { ...Q, engine: e, quant: ec.quants[e] }));
    const cells = await page.$$eval('#engines-table tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
    const want = await page.evaluate(async (ds) => {
      const f = await import('./format.js');
      const sh = await import('./views/shared.js');
      const L = document.documentElement.lang;
      return ds.map((/** @type {any} */ d) => ({ quant: d.quant.id, weights: f.gib(d.memory.weights_bytes, L), total: f.gib(d.memory.total_bytes, L), decode: sh.spreadText(sh.speedOf(d).decode, L) }));
    }, docs);
    assert.equal(want[0].quant, 'Q4_K_M');
    assert.equal(want[1].quant, 'MLX-4bit');
    for (const [i, w] of want.entries()) {
      const col = cells.map((r) => r[i]);
      for (const v of Object.values(w)) assert.ok(col.includes(v), `${v} in ${JSON.stringify(col)}`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test('with MTP on, the MLX column is estimated without it (the core\'s request_overrides) and the note says so', async () => {
  const page = await env.page({ viewport: { width: 1280, height: 900 } });
  const q = { ...Q, context: 8192, mtp: true };
  const doc = core('estimate', q);
  assert.deepEqual(doc.engine_compare.request_overrides, { mlx: { mtp: false } });
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192&mtp=1&lang=en`);
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent));
  const mlx = core('estimate', { ...Q, context: 8192, engine: 'mlx', quant: doc.engine_compare.quants.mlx });
  const cells = await page.$$eval('#engines-table tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
  const want = await page.evaluate(async (d) => (await import('./format.js')).gib(d.memory.total_bytes, 'en'), mlx);
  assert.ok(cells.map((r) => r[1]).includes(want), `${want} in ${JSON.stringify(cells.map((r) => r[1]))}`);
  assert.match(await page.textContent('#engines-note'), /MLX does not draft with the model’s multi-token-prediction layer: its column is estimated without it\./);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
