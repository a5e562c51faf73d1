// The main view's solver sections in Chromium: "Make it fit" from the core's make_it_fit and the
// four hardware picks, for Llama 3.3 70B on one RTX 4090 (which does not fit).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

test('make it fit lists the core\'s changes and the hardware picks show four cards for Llama 3.3 70B on an RTX 4090', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&count=1&ram=0&lang=en`);
  await page.waitForSelector('#fit-list li.fix');
  const fixes = await page.$$eval('#fit-list li.fix', (els) => els.map((e) => ({ field: e.dataset.field, text: e.textContent })));
  const fields = fixes.map((f) => f.field);
  assert.ok(fields.includes('count'), fields.join());
  assert.ok(fields.includes('quant'), fields.join());
  const gpus = fixes.find((f) => f.field === 'count');
  assert.match(gpus.text, /Use \d+ of these devices/);
  assert.match(gpus.text, /GiB/);
  // From what the setup does now (here: it does not run) to what it does after the change.
  assert.match(gpus.text, /runs at [\d.,]+\stok\/s · does not run now/);
  assert.match(fixes.find((f) => f.field === 'quant').text, /% perplexity/);

  await page.waitForSelector('#picks-cards .card.pick', { timeout: 300000 });
  const cards = await page.$$eval('#picks-cards .card.pick', (els) => els.map((e) => ({ key: e.dataset.pick, id: e.dataset.id || '', text: e.textContent })));
  // Every card has an answer; a card with none is not drawn, its reason is in the one line.
  const missing = await page.$$eval('#picks-missing [data-pick]', (els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.pick));
  assert.deepEqual([...cards.map((c) => c.key), ...missing].sort(), ['best_single_gpu', 'best_value', 'cheapest_cloud', 'unified_memory']);
  assert.ok(cards.every((c) => c.id), JSON.stringify(cards));
  assert.ok(cards.length >= 3, JSON.stringify(cards));
  for (const c of cards.filter((x) => x.id)) assert.match(c.text, /tok\/s/);
  assert.match(await page.textContent('#picks-title'), /Llama 3\.3 70B/);
  // The unified-memory card names the machine by its product (a Mac or a mini PC), and the note
  // under the cards says how many cards of a kind a configuration may use (the core's count_caps).
  const unified = cards.find((c) => c.key === 'unified_memory');
  assert.match(unified.text, /(Mac Studio|Mac mini|MacBook Pro|Framework Desktop|DGX Spark|GMKtec)[^·]* · /, unified.text);
  assert.equal(await page.textContent('#picks-caps'), 'Multi-card setups are capped per machine: 4 consumer cards and 4 workstation cards.');
  assert.doesNotMatch(await page.textContent('#diag-section'), /undefined|NaN|Infinity/);
  assert.doesNotMatch(await page.textContent('#picks-section'), /undefined|NaN|Infinity/);
  assert.deepEqual(page.problems, []);
  fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
  await page.locator('#diag-section').screenshot({ path: path.join(root, 'test-results', 'make-it-fit.png') });
  await page.locator('#picks-section').screenshot({ path: path.join(root, 'test-results', 'picks.png') });
});
