// Issue 16: a reason is said once, and advice is what a person would follow. A section with
// nothing to offer is one line, not a heading over "none"; fine-tuning counts are the smallest
// that hold it; buying is not advised where the person's own device already does it; the format
// table states one basis for "Required" and "Smallest device"; a break-even point past the
// hardware's life says so; an engine's table carries only that engine's notes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { core, pageSuite } from './helpers.mjs';

const env = pageSuite();

test('a model no Mac and no unified-memory PC runs: one line each, not "Does not run" under "that run it"', async () => {
  const page = await env.at('?view=model&model=moonshotai/Kimi-K2.5&lang=en');
  await page.waitForSelector('#mp-macs [data-none="true"]');
  await page.waitForSelector('#mp-unified [data-none="true"]');
  assert.equal(await page.textContent('#mp-macs-title'), 'Macs (Q4_K_M, 8K)');
  assert.equal(await page.textContent('#mp-unified-title'), 'Unified-memory PCs (Q4_K_M, 8K)');
  assert.equal(await page.textContent('#mp-macs [data-none="true"]'), 'No Mac in the catalog runs it at these settings.');
  // The list of machines folds under a plain summary, not a second "too little memory" heading.
  assert.match(await page.textContent('#mp-macs details summary'), /^Each Mac and what it needs \(\d+\)$/);
  // The GPU section: no heading over "None in the catalog" next to the setups that do run it.
  const gpus = await page.textContent('#mp-gpus');
  assert.doesNotMatch(gpus, /None in the catalog/);
  assert.doesNotMatch(gpus, /Runs entirely in GPU memory/);
  const noes = gpus.match(/No single (device|GPU)|Does not run even/g) || [];
  assert.equal(noes.length, 1, gpus);
  // The format table: no bare dash where no single device holds a format; the reason once below.
  const cells = await page.$$eval('#mp-quant-table tbody tr', (trs) => trs.map((tr) => tr.children[3]?.textContent?.trim()));
  assert.ok(!cells.includes('—'), cells.join(' | '));
  assert.ok(cells.includes('no single device'), cells.join(' | '));
  const notes = await page.textContent('#mp-quants');
  assert.equal(notes.split('“No single device”').length - 1, 1);
  assert.deepEqual(page.problems, []);
});

test('picks: the person\'s own device already runs it, said first; the picks folded as other hardware', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en');
  await page.waitForSelector('#picks-own:not([hidden])');
  const est = core('estimate', { model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.equal(est.verdict, 'fits');
  assert.match(await page.textContent('#picks-own'), /^Your GeForce RTX 4090 already runs it \(fits, [\d.,]+\stok\/s\): nothing to buy for this\.$/);
  assert.equal(await page.$eval('#picks-fold', (e) => /** @type {HTMLDetailsElement} */ (e).open), false);
  assert.equal(await page.textContent('#picks-fold summary'), 'Other hardware that runs it');
  // "Make it fit" is not shown over "It already fits".
  await page.waitForFunction(() => /** @type {HTMLElement} */ (document.querySelector('#fit-title')).hidden);
  assert.doesNotMatch(await page.textContent('#diag-section'), /already fits/);
  // A setup that does not run: no such line, the cards in the open.
  const no = await env.at('?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4060&ctx=8192&lang=en');
  await no.waitForSelector('#picks-cards .card.pick');
  assert.equal(await no.$eval('#picks-own', (e) => /** @type {HTMLElement} */ (e).hidden), true);
  assert.equal(await no.$('#picks-fold'), null);
  assert.match(await no.textContent('#fit-title'), /Make it fit/);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(no.problems, []);
});

test('fine-tuning: the smallest count that holds it, a count or a reason on every row, no buying beside a Mac that does it', async () => {
  const page = await env.at('?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en');
  await page.waitForSelector('#ft-table tbody tr[data-method="full"]');
  for (const m of ['qlora', 'lora', 'full']) {
    const want = core('train', { model: 'zai-org/GLM-4.5-Air', hardware: 'nvidia-rtx-4090', method: m });
    const cell = await page.$eval(`#ft-table tr[data-method="${m}"] [data-count]`, (e) => ({ count: /** @type {HTMLElement} */ (e).dataset.count, text: e.textContent || '' }));
    assert.notEqual(cell.text.trim(), '—', m);
    if (typeof want.min_count === 'number') {
      assert.equal(cell.count, String(want.min_count), m);
      // One fewer card does not hold it: the count is the least, not the next power of two.
      const less = core('train', { model: 'zai-org/GLM-4.5-Air', hardware: 'nvidia-rtx-4090', method: m, gpus: Math.max(1, want.min_count - 1), zero: want.min_count - 1 > 1 ? 3 : 0 });
      if (want.min_count > 1) assert.ok(less.memory.per_gpu.total_bytes > less.memory.usable_bytes, m);
      if (!want.min_count_detail.within_cap) assert.match(cell.text, new RegExp(`^${want.min_count} \\(ZeRO-3, [\\d.,]+\\sGiB each\\): more than one machine holds \\(4 at most\\)$`));
    } else {
      assert.match(cell.text, /^none: /, m);
    }
  }
  // A 128 GB Mac holds Llama 3.1 8B's LoRA: its own device, nothing to buy.
  const mac = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=apple-m4-max-40c-gpu-128gb&ctx=8192&lang=en');
  await mac.waitForSelector('#ft-table tbody tr[data-method="lora"]');
  const lora = await mac.$eval('#ft-table tr[data-method="lora"]', (tr) => tr.textContent || '');
  assert.match(lora, /Your own: /);
  assert.doesNotMatch(lora, /Buy /);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(mac.problems, []);
});

test('a several-GPU format table: "Required" and "Smallest device" on the same basis, said in the heads', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&lang=en');
  await page.waitForSelector('#matrix tbody tr');
  await page.waitForFunction(() => ![...document.querySelectorAll('#matrix td span.note')].some((e) => e.textContent === '…'), null, { timeout: 180000 });
  const heads = await page.$$eval('#matrix thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(heads.includes('Required (all 2)'), heads.join(' | '));
  assert.ok(heads.includes('Smallest device, 2 of them'), heads.join(' | '));
  const q4 = await page.$$eval('#matrix tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('a[href*="hw="]')].map((a) => a.textContent || '').pop() || ''));
  const sd = core('solve', { model: 'meta-llama/Llama-3.1-70B-Instruct', quant: 'Q4_K_M', context: 8192, count: 2, ram_gib: 0, solve: 'smallest_device' });
  assert.equal(sd.device.count, 2);
  assert.ok(q4.some((t) => /^2× .* · \d+\sGB$/.test(t)), q4.join(' | '));
  assert.deepEqual(page.problems, []);
});

test('the MLX format table carries no llama.cpp note and no column of "not measured"', async () => {
  const page = await env.at('?model=Qwen/Qwen3-30B-A3B&hw=apple-m4-max-40c-gpu-128gb&engine=mlx&ctx=32768&lang=en');
  await page.waitForSelector('#matrix tbody tr');
  const heads = await page.$$eval('#matrix thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(!heads.includes('Quality (reference model)'), heads.join(' | '));
  assert.doesNotMatch(await page.textContent('#matrix'), /not measured/);
  const note = await page.textContent('#matrix-note');
  assert.doesNotMatch(note, /K-quants|legacy quants/);
  assert.equal(note.split('no published perplexity measurement of MLX').length - 1, 1);
  assert.deepEqual(page.problems, []);
});

test('a break-even point past the hardware\'s useful life says so, with the life\'s source', async () => {
  // An RTX PRO 6000 bought to run an 8B model a few hours a day pays off only after decades.
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-pro-6000-blackwell&ctx=8192&lang=en');
  await page.waitForSelector('#rvb-break-even');
  const life = await page.$eval('#rvb-break-even', (e) => /** @type {HTMLElement} */ (e).dataset.life);
  assert.equal(life, 'beyond_useful_life');
  assert.equal(await page.textContent('#rvb-break-even'), 'Past its 60-month life');
  assert.match(await page.$eval('#rvb-break-even', (e) => e.parentElement?.textContent || ''), /longer than the 60 months hardware is commonly counted to last/);
  assert.equal(await page.getAttribute('#rvb-life a', 'href'), 'https://www.irs.gov/publications/p946');
  assert.deepEqual(page.problems, []);
});
