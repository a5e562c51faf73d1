// Issue 16: the cloud table, the cost cards, the hardware picks and the device names, as a person
// reads them. An engine no cloud offer runs (MLX) is said once, with the nearest answer, not as a
// table of blanks; every unknown is said once and what can be computed is; the smallest device
// that runs a model decodes at the floor of "runs"; a table of GiB figures names devices in GiB and
// no two of its rows alike.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const MLX = '?model=Qwen/Qwen3-30B-A3B&hw=apple-m4-max-40c-gpu-128gb&engine=mlx&ctx=32768';
const GiB = 1024 ** 3;

/** How many times `needle` occurs in `hay`. @param {string} hay @param {string} needle */
const count = (hay, needle) => hay.toLowerCase().split(needle.toLowerCase()).length - 1;

for (const lang of ['en', 'es', 'fr', 'zh']) {
  test(`MLX in the cloud: one note with the reason and the llama.cpp offers, never a column of "no estimate" (${lang})`, async () => {
    const page = await env.page();
    await open(page, `${env.url}${MLX}&lang=${lang}`);
    await page.waitForSelector('#cloud-table tbody tr');
    const want = core('cost', { model: 'Qwen/Qwen3-30B-A3B', hardware: 'apple-m4-max-40c-gpu-128gb', engine: 'mlx', context: 32768, market: 'US', months: 'auto' });
    assert.equal(want.cloud_engine.code, 'engine_not_on_cloud');
    assert.equal(await page.$$eval('#cloud-engine', (es) => es.length), 1);
    assert.equal(await page.getAttribute('#cloud-engine', 'data-code'), 'engine_not_on_cloud');
    const note = await page.textContent('#cloud-engine');
    assert.match(note, /MLX/);
    assert.match(note, /llama\.cpp/);
    assert.match(note, new RegExp(want.cloud_engine.shown_quant));
    // Every row has a speed and a cost per million tokens: no row says it has no estimate.
    assert.equal(await page.$$eval('#cloud-table [data-code]', (es) => es.length), 0);
    const usd = await page.$$eval('#cloud-table tbody tr td[data-usd]', (tds) => tds.length);
    assert.ok(usd >= 2 * Math.min(12, want.clouds.length), `${usd} priced cells`);
    assert.match(await page.textContent('#cloud-table caption'), /llama\.cpp/);
    // The cheapest-cloud cost card says its offer is the llama.cpp setup.
    assert.match(await page.textContent('#cost-cloud-mtok + .s, #plug-cost .cards'), /llama\.cpp/);
    // The picks are worked out: the Mac card, the GPU card's reason, the cloud card's nearest answer.
    // The Mac chosen runs it: said first, the picks folded under it as other hardware.
    await page.waitForSelector('#picks-own:not([hidden])');
    assert.equal(await page.$eval('#picks-fold', (e) => /** @type {HTMLDetailsElement} */ (e).open), false);
    await page.click('#picks-fold summary');
    await page.waitForSelector('[data-pick="cheapest_cloud"]');
    assert.equal(await page.$('#picks-failed'), null);
    const picks = core('solve', { model: 'Qwen/Qwen3-30B-A3B', engine: 'mlx', context: 32768, solve: 'picks' });
    const alt = picks.missing.cheapest_cloud.alternative;
    assert.equal(await page.getAttribute('[data-pick="cheapest_cloud"]', 'data-missing'), 'engine_not_on_cloud');
    assert.equal(await page.getAttribute('[data-pick="cheapest_cloud"]', 'data-id'), alt.device);
    assert.match(await page.textContent('[data-pick="cheapest_cloud"]'), new RegExp(alt.provider));
    // The GPU card has no answer: no empty card, its reason in the one line under the picks.
    assert.equal(await page.$('.card[data-pick="best_single_gpu"]'), null);
    assert.equal(await page.getAttribute('#picks-missing [data-pick="best_single_gpu"]', 'data-missing'), 'engine_not_on_gpu');
    assert.equal(await page.getAttribute('[data-pick="unified_memory"]', 'data-id'), picks.unified_memory.id);
    // The footnote does not say again that MLX leaves out graphics cards: the card says it.
    const caps = await page.$eval('#picks-caps', (e) => (e.hidden ? '' : e.textContent || ''));
    if (lang === 'en') assert.doesNotMatch(caps, /graphics cards/, caps);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test('no power figure but a price: the purchase part is computed, labelled "at least", and the unknown said once', async () => {
  const page = await env.page();
  await open(page, `${env.url}${MLX}&lang=en`);
  await page.waitForSelector('#cost-owned-mtok[data-usd-min]');
  const want = core('cost', { model: 'Qwen/Qwen3-30B-A3B', hardware: 'apple-m4-max-40c-gpu-128gb', engine: 'mlx', context: 32768, market: 'US', months: 'auto' });
  assert.deepEqual(want.owned.unknown, ['no_power_figure']);
  assert.equal(Number(await page.getAttribute('#cost-owned-mtok', 'data-usd-min')), want.owned.purchase_only_per_million_tokens_usd.single);
  const owned = (await page.textContent('#cost-owned-mtok')).trim();
  assert.match(owned, /^At least \$\d/);
  // The electricity card would be empty for the same reason: it is left out.
  assert.equal(await page.$('#cost-elec-mtok'), null);
  // Rent vs buy: the least break-even point, from the core.
  await page.waitForSelector('#rvb-break-even[data-months-min]');
  assert.equal(Number(await page.getAttribute('#rvb-break-even', 'data-months-min')), want.rent_vs_buy.break_even_months_at_least);
  // Past the hardware's useful life (the core's break_even_life, 60 months): said as that, with
  // the least figure in the note (issue 16: "At least 312 months" read as advice to wait 26 years).
  const least = Math.round(want.rent_vs_buy.break_even_months_at_least);
  if (want.rent_vs_buy.break_even_life?.code === 'beyond_useful_life') {
    assert.equal(await page.textContent('#rvb-break-even'), 'Past its 60-month life');
    assert.match(await page.$eval('#rvb-break-even', (e) => e.parentElement?.textContent || ''), new RegExp(`At least ${least} months, longer than the 60 months`));
    assert.equal(await page.getAttribute('#rvb-life a', 'href'), want.rent_vs_buy.break_even_life.source);
  } else {
    assert.match(await page.textContent('#rvb-break-even'), /^At least \d+ months$/);
  }
  // The reason is said once across the cost and rent-or-buy sections.
  const text = `${await page.textContent('#plug-cost')} ${await page.textContent('#plug-rvb')}`;
  assert.equal(count(text, 'no power figure for this device'), 1, text);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('no purchase price: the reason once, rent or buy points to it without repeating it', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-a5000&ctx=8192&lang=en`);
  await page.waitForSelector('#rvb-unknown');
  await page.waitForSelector('#cost-owned-mtok[data-unknown]');
  const text = `${await page.textContent('#plug-cost')} ${await page.textContent('#plug-rvb')}`;
  assert.equal(count(text, 'no price for this device in the catalog'), 1, text);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the format table: one unit (GiB), and the smallest device decodes at the floor of "runs"', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4060&ctx=8192&lang=en`);
  await page.waitForSelector('#matrix tbody tr');
  // The smallest-device column fills in after the table.
  await page.waitForFunction(() => ![...document.querySelectorAll('#matrix td span.note')].some((e) => e.textContent === '…'), null, { timeout: 180000 });
  // Device names carry the size the vendor sells them at ("· 64 GB", the unit rule); every figure
  // the table computes is GiB.
  const matrix = await page.$eval('#matrix', (t) => {
    const c = /** @type {HTMLElement} */ (t.cloneNode(true));
    for (const a of c.querySelectorAll('a[href*="hw="]')) a.remove();
    return c.textContent || '';
  });
  assert.doesNotMatch(matrix, /\d\s?GB\b/, 'a GB figure in a table of GiB');
  assert.match(await page.textContent('#matrix'), /· \d+\s?GB/, 'the smallest device is named with its sold size');
  // The row's links: the format's (on this device) and the smallest device's.
  const hws = await page.$$eval('#matrix tbody tr:has(a[href*="quant=Q6_K&"], a[href$="quant=Q6_K"]) a[href*="hw="]', (as) => as.map((a) => new URL(a.href).searchParams.get('hw')));
  const q6 = hws.find((x) => x !== 'nvidia-rtx-4060');
  const sd = core('solve', { model: 'meta-llama/Llama-3.1-70B-Instruct', quant: 'Q6_K', context: 8192, count: 1, ram_gib: 0, solve: 'smallest_device' });
  assert.equal(q6, sd.device.id);
  assert.notEqual(q6, 'nvidia-jetson-agx-orin-64gb');
  // The floor holds on the low end of the answer's range, not on its central figure.
  assert.ok(sd.device.decode_tps_low >= sd.min_decode_tps);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the model page\'s GPU list: no two rows named alike (the two H20s say their memory)', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=meta-llama/Llama-3.1-8B-Instruct&lang=en`);
  await page.waitForSelector('#mp-gpus table');
  const more = await page.$('#mp-gpus button.more-rows, #mp-gpus details summary');
  if (more) await more.click();
  const names = await page.$$eval('#mp-gpus tbody tr', (rows) => rows.map((r) => (r.querySelector('th, td')?.textContent || '').trim()));
  assert.ok(names.length > 10, `${names.length} rows`);
  const dup = names.filter((n, i) => names.indexOf(n) !== i);
  assert.deepEqual(dup, []);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
