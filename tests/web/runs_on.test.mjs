// The device page's "what runs on it" list is the core's runsOn answer, row for row, and a
// person can reach every entry from the keyboard.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, plain, root, setup } from './helpers.mjs';

const api = await import(path.join(root, 'dist', 'api.js'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

test('the device page lists the module\'s runsOn entries in its order, with RAM offload, and opens one from the keyboard', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&ram=64&lang=en`);
  await page.waitForSelector('#dp-runs table tbody tr');
  const rowsOf = (sel) => page.$$eval(`${sel} tbody tr`, (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent.trim())));
  const want = await api.runsOn({ hardware: 'nvidia-rtx-4090', context: 8192, kv_type: 'f16', count: 1, ram_gib: 64 });
  const runs = want.models.filter((e) => e.tier !== 'no_fit');
  const below = want.models.filter((e) => e.tier === 'no_fit' && e.below_floor);
  const not = want.models.filter((e) => e.tier === 'no_fit' && !e.below_floor);
  // Three tables in the core's order: what runs, what runs only below the floors, what does not.
  const shown = await rowsOf('#dp-runs-table tbody tr, #dp-runs-rest');
  assert.equal(shown.length, runs.length);
  runs.forEach((e, i) => {
    assert.equal(shown[i][0], e.model.name, `row ${i}`);
    assert.equal(shown[i][2], e.quant, `row ${i} ${e.model.name}`);
  });
  assert.equal((await rowsOf('#dp-below-table')).length, below.length);
  assert.equal(await page.$$eval('#dp-runs details:last-of-type table tbody tr', (r) => r.length), not.length);
  // GLM-4.5-Air runs with experts in the 64 GB of RAM, shown as such with its speed range.
  const glm = shown.find((r) => r[0] === 'GLM-4.5 Air' || /GLM-4\.5.Air/.test(r[0]));
  assert.ok(glm, 'GLM-4.5-Air row');
  assert.match(glm.join(' '), /offload · 64\sGiB RAM/);
  assert.match(glm.join(' '), /tok\/s \([\d.]+–\u2060[\d.]+\)/);
  assert.match(plain(await page.textContent('#dp-runs caption')), new RegExp(`^${runs.length} catalog models`));
  assert.match(await page.textContent('#dp-usable'), /usable of 24\sGiB physical/);
  // Keyboard: the "does not fit" list opens with Enter, and a model link opens the main view.
  await page.focus('#dp-runs details:last-of-type summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.$eval('#dp-runs details:last-of-type', (d) => d.open), true);
  await page.focus('#dp-runs tbody tr:first-child a');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !document.querySelector('#view-main').hidden && document.querySelector('#verdict').dataset.verdict !== 'pending');
  const u = new URL(page.url());
  assert.equal(u.searchParams.get('model'), want.models[0].model.id);
  assert.equal(u.searchParams.get('quant'), want.models[0].quant);
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), want.models[0].verdict);
  assert.deepEqual(page.problems, []);
});
