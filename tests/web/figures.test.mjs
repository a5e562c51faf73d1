// Figures that must not contradict each other on screen (issue 16): each view quotes the figure of
// the setup it names, an unknown is said plainly (never a total missing its price), rent vs buy
// states its basis, the offload plan leaves llama.cpp's --fit margin, and data qualifiers are
// worded in the page's language.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GiB, core, open, pageSuite } from './helpers.mjs';

const env = pageSuite();

test('the picks quote the weights of one device and say so, beside the 8-GPU breakdown of another figure', async () => {
  const page = await env.at('?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=en');
  await page.waitForSelector('#picks-missing [data-pick="best_single_gpu"][data-missing="no_single_card_fits"]', { state: 'attached' });
  // The 8 H200s chosen run it: the picks fold as other hardware under that line; open them.
  if (await page.$('#picks-fold')) await page.click('#picks-fold summary');
  const picks = core('solve', { model: 'deepseek-ai/DeepSeek-V3-0324', engine: 'vllm', context: 32768, solve: 'picks' });
  const miss = picks.missing.best_single_gpu;
  assert.equal(miss.weights_devices, 1);
  // Issue 16: three cards had no answer and each said the same weights figure. Now no empty card
  // is drawn; one line names each card's reason, and the weights figure is said once.
  const section = await page.textContent('#picks-section');
  const figure = `${(miss.weights_bytes / GiB).toFixed(1)}\u00a0GiB`;
  const said = section.split(figure).length - 1 + section.split(figure.replace('\u00a0', ' ')).length - 1;
  assert.equal(said, 1, section);
  const text = await page.textContent('#picks-missing');
  assert.match(text, new RegExp(`^On one device the weights alone take ${(miss.weights_bytes / GiB).toFixed(1)}\\sGiB\\.`));
  for (const k of Object.keys(picks.missing)) {
    assert.equal(await page.$(`.card[data-pick="${k}"]:not([data-missing="engine_not_on_cloud"])`), null, k);
    assert.equal(await page.getAttribute(`#picks-missing [data-pick="${k}"]`, 'data-missing'), picks.missing[k].code);
  }
  assert.match(text, /Best single GPU: none, the largest priced consumer or workstation card has 96\sGiB\./);
  // The main result is 8 GPUs: its weights are more (replicated per rank), and the picks never
  // quote that figure as if it were theirs.
  const est = core('estimate', { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 32768 });
  assert.ok(est.memory.weights_bytes > miss.weights_bytes);
  assert.doesNotMatch(text, new RegExp(`${(est.memory.weights_bytes / GiB).toFixed(1)}\\sGiB`));
  assert.deepEqual(page.problems, []);
});

test('a device without a purchase price has no owned total: "—" with the reason, and a price typed in makes one', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-a5000&ctx=8192&lang=en');
  await page.waitForSelector('#cost-owned-mtok[data-unknown]');
  assert.equal((await page.textContent('#cost-owned-mtok')).trim(), '—');
  // The reason, said once, on the card it empties (it opens the card's note: a capital).
  assert.match(await page.textContent('#cost-out'), /No price for this device in the catalog; enter one in “Purchase price”/);
  // Electricity alone is known and shown as electricity.
  assert.ok(Number(await page.getAttribute('#cost-elec-mtok', 'data-usd')) > 0);
  // Rent vs buy: no break-even, no chart, the reason.
  await page.waitForSelector('#rvb-unknown');
  assert.equal(await page.$('#rvb-chart'), null);
  assert.equal(await page.$('#rvb-break-even'), null);
  await page.fill('#cost-purchase', '2000');
  await page.dispatchEvent('#cost-purchase', 'change');
  await page.waitForSelector('#cost-owned-mtok[data-usd]');
  await page.waitForSelector('#rvb-break-even');
  const want = core('cost', { model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-a5000', context: 8192, market: 'US', purchase_usd: 2000, months: 'auto' });
  assert.equal(Number(await page.getAttribute('#cost-owned-mtok', 'data-usd')), want.owned.per_million_tokens_usd.single);
  assert.deepEqual(page.problems, []);
});

test('rent vs buy states its basis: the same tokens a month at each setup\'s own speed', async () => {
  const page = await env.at('?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=en');
  await page.waitForSelector('#rvb-basis');
  const c = core('cost', { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 16384, ram_gib: 64, market: 'US', months: 'auto' });
  const b = c.rent_vs_buy;
  assert.equal(b.basis, 'same_tokens');
  assert.equal(await page.getAttribute('#rvb-basis', 'data-basis'), 'same_tokens');
  const text = await page.textContent('#rvb-basis');
  assert.match(text, /Compared on equal output/);
  assert.doesNotMatch(text, /billed as it bills/);
  assert.ok(text.includes(`${b.cloud_decode_tps.toFixed(1)}\u00a0tok/s`) || text.includes(`${Math.round(b.cloud_decode_tps)}\u00a0tok/s`), text);
  assert.ok(b.cloud_hours_per_day < b.hours_per_day, 'the faster instance is rented fewer hours a day');
  if (await page.$('#rvb-cloud')) assert.equal(Number(await page.getAttribute('#rvb-cloud', 'data-usd')), b.cloud_monthly_usd);
});

test('the offload plan leaves llama.cpp\'s --fit margin free on the GPU and says so', async () => {
  const page = await env.at('?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=en');
  await page.waitForSelector('#plan-margin');
  assert.equal(Number(await page.getAttribute('#plan-margin', 'data-margin')), GiB);
  assert.match(await page.textContent('#plan-margin'), /Each GPU keeps 1\.00\sGiB free/);
  const e = core('estimate', { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 16384, ram_gib: 64 });
  for (const d of e.memory.devices) assert.ok(d.total_bytes + GiB <= d.usable_bytes, `${d.total_bytes} of ${d.usable_bytes}`);
});

test('price qualifiers and part-of-product names are worded in the page\'s language, the product names kept', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=fr');
  await page.waitForSelector('#cloud-table tbody tr');
  await page.click('#cloud-all');
  const cells = await page.$$eval('#cloud-table tbody td[data-basis]', (tds) => tds.map((td) => ({ basis: td.dataset.basis, text: td.textContent })));
  assert.ok(cells.length >= 3, `${cells.length} qualified offers`);
  for (const c of cells) {
    assert.doesNotMatch(c.text, /cheapest|starting at|per GPU|verified hosts|prepaid|Spot\)/, c.text);
    assert.match(c.text, /\((offre la moins chère|médiane des hôtes vérifiés|prix de départ|par GPU|spot, interruptible|36 mois prépayés)\)$/, c.text);
  }
  assert.ok(cells.some((c) => c.basis === 'cheapest_offer' && /^1\u00a0× RTX 4090 \(offre la moins chère\)$/.test(c.text)));
  // A catalog entry that is one GPU of a product: the product name as is, the scope in French.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-gb200-gpu&ctx=8192&lang=fr`);
  await page.waitForSelector('#summary');
  assert.match(await page.textContent('body'), /NVIDIA GB200 \(par GPU\)/);
  assert.doesNotMatch(await page.textContent('body'), /per Blackwell GPU/);
  assert.deepEqual(page.problems, []);
});

test('SGLang: the parallel sequences field states how many sequences the need and the pool\'s room are for', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192&par=3&lang=en');
  await page.waitForSelector('#k-concurrency');
  assert.equal(await page.isVisible('#par'), true, 'the field is there for a server engine');
  const est = core('estimate', { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-4090', engine: 'sglang', context: 8192, parallel: 3 });
  const one = core('estimate', { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-4090', engine: 'sglang', context: 8192 });
  assert.equal(est.sglang.demand.sequences, 3);
  assert.ok(est.memory.total_bytes > one.memory.total_bytes);
  assert.equal(await page.textContent('#c-total'), `${(est.memory.total_bytes / GiB).toFixed(2)}\u00a0GiB`);
  assert.equal(await page.textContent('#c-margin'), `+${(est.memory.margin_bytes / GiB).toFixed(2)}\u00a0GiB`);
  assert.match(await page.textContent('#summary'), /for 3 sequences of 8K tokens/);
  assert.deepEqual(page.problems, []);
});

test('SGLang: Required is what one sequence needs, against what the engine sets aside, with the pool\'s room as the margin', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192&lang=en');
  await page.waitForSelector('#k-concurrency');
  const est = core('estimate', { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-4090', engine: 'sglang', context: 8192 });
  const m = est.memory, d = est.sglang.demand;
  // The need is below the engine's share (SGLang's share is all of usable memory), and the
  // page says which is which.
  assert.ok(m.total_bytes < m.reserved_bytes && m.reserved_bytes <= m.usable_bytes);
  assert.equal(await page.textContent('#c-usable-label'), 'Set aside by the engine');
  assert.equal(await page.textContent('#c-total'), `${(m.total_bytes / GiB).toFixed(2)}\u00a0GiB`);
  assert.equal(await page.textContent('#c-usable'), `${(m.reserved_bytes / GiB).toFixed(2)}\u00a0GiB`);
  // SGLang's share reads as all of the usable memory (the core's reserved_code): said so, not "X of X".
  assert.equal(m.reserved_code, 'all_usable');
  assert.equal(await page.textContent('#c-physical'), 'all of the usable memory on the device');
  // The margin is the pool's room beyond the one sequence: gigabytes and sequences, never +0.00.
  const margin = await page.textContent('#c-margin');
  assert.equal(margin, `+${(m.margin_bytes / GiB).toFixed(2)}\u00a0GiB`);
  assert.ok(m.margin_bytes > 3 * GiB);
  assert.equal(await page.textContent('#c-util'), `room for ${d.room_sequences} more sequences of 8K tokens`);
  assert.match(await page.textContent('#summary'), /needs [\d.]+\sGiB for one sequence of 8K tokens .*SGLang sets aside all [\d.]+\sGiB usable; its KV pool holds 4 such sequences at once/);
  // Sequences at once and the command's cap: the same figures, each named.
  assert.equal(await page.textContent('#k-concurrency'), '4');
  const capNote = await page.textContent('#k-concurrency + .s');
  assert.match(capNote, new RegExp(`the command’s --max-running-requests ${d.engine_cap} is the engine’s cap`));
  assert.match(await page.textContent('#commands'), new RegExp(`--max-running-requests ${d.engine_cap}\\b`));
  // The rest of the pool has its own row beside the cache the sequence needs.
  assert.equal(await page.isVisible('#r-pool'), true);
  assert.equal(await page.textContent('#t-kv'), `${(m.kv_cache_bytes / GiB).toFixed(2)}\u00a0GiB`);
  // Memory over context: the need grows against a fixed share, and fails where it passes the pool.
  await page.waitForFunction(() => document.querySelectorAll('#chart-table tbody tr').length >= 5);
  const rows = await page.$$eval('#chart-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const head = await page.$$eval('#chart-table thead th', (ths) => ths.map((c) => c.textContent));
  assert.deepEqual(head, ['Context', 'Weights', 'KV cache', 'KV cache pool', 'Required', 'Verdict']);
  const kv = rows.map((r) => parseFloat(r[2]));
  for (let i = 1; i < kv.length; i++) assert.ok(kv[i] > kv[i - 1], `KV need grows with context: ${kv}`);
  assert.deepEqual([...new Set(rows.map((r) => r[3]))], [`${(m.kv_pool_bytes / GiB).toFixed(2)}\u00a0GiB`], 'the pool is the same at every context');
  // What "fits" means for a serving engine is said once under the table, each row the short word.
  assert.deepEqual(rows.find((r) => r[0] === '32K')?.[5], 'Fits');
  assert.equal(await page.textContent('#chart-fits-server'), 'Fits: the engine starts, its KV cache pool filling the rest');
  assert.deepEqual(rows.find((r) => r[0] === '64K')?.[5], 'Does not fit');
  assert.ok(parseFloat(rows.find((r) => r[0] === '64K')[2]) > parseFloat(rows[0][3]), 'at 64K one sequence needs more than the pool');
  assert.doesNotMatch(await page.textContent('#diag-list'), /context and KV-type comparisons apply to llama\.cpp only/);
  // Cost: one user's decode and the aggregate at the pool's concurrency, both from the core.
  await page.waitForSelector('#cost-owned-all-mtok');
  const one = Number(await page.getAttribute('#cost-owned-mtok', 'data-usd'));
  const all = Number(await page.getAttribute('#cost-owned-all-mtok', 'data-usd'));
  const c = core('cost', { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-4090', engine: 'sglang', context: 8192, market: 'US', months: 'auto' });
  assert.equal(one, c.owned.per_million_tokens_usd.single);
  assert.equal(all, c.owned.per_million_tokens_usd.batched);
  assert.ok(all < one);
  assert.match(await page.textContent('#cost-inputs-used'), /for one user and [\d,.]+\stok\/s for 4 users at once/);
  assert.deepEqual(page.problems, []);
});

test('the serving view in French: the engine\'s share and the pool\'s room are worded, not left in English', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192&lang=fr');
  await page.waitForSelector('#k-concurrency');
  assert.equal(await page.textContent('#c-usable-label'), 'Mis de côté par le moteur');
  assert.match(await page.textContent('#c-util'), /^place pour 3 autres séquences de 8K jetons$/);
  assert.match(await page.textContent('#k-concurrency + .s'), /le --max-running-requests [\d\u202f\u00a0]+ de la commande est le plafond du moteur/);
  assert.deepEqual(page.problems, []);
});

test('rent vs buy without a purchase price says it cannot compare, and states no basis for a comparison it did not make', async () => {
  const page = await env.at('?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=en');
  await page.waitForSelector('#rvb-unknown');
  const c = core('cost', { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 32768, market: 'US', months: 'auto' });
  assert.ok(Array.isArray(c.rent_vs_buy.unknown) && typeof c.rent_vs_buy.break_even_months_at_least !== 'number');
  assert.equal(await page.$('#rvb-basis'), null);
  assert.deepEqual(page.problems, []);
});

test('memory over context: the x axis is labelled up to the end the title names, and the pool has its own legend colour', async () => {
  // Qwen3-8B's maximum context is 40,960 tokens: the core's chart contexts end at 40K, not 32K.
  for (const [lang, theme] of /** @type {const} */ ([['en', 'light'], ['fr', 'dark']])) {
    const page = await env.at(`?model=Qwen/Qwen3-8B&hw=nvidia-rtx-4090&engine=vllm&ctx=8192&lang=${lang}`, { colorScheme: theme, viewport: { width: 390, height: 844 } });
    await page.waitForFunction(() => (document.querySelector('#chart')?.dataset.xTicks || '').length > 0);
    const steps = core('defaults', { model: 'Qwen/Qwen3-8B' }).context_steps;
    assert.equal(steps[steps.length - 1], 40960);
    const ticks = (await page.getAttribute('#chart', 'data-x-ticks')).split('|');
    const title = await page.textContent('#chart-title');
    assert.equal(ticks[ticks.length - 1], '40K', `${lang}: ${ticks}`);
    assert.ok(title.includes('40K') && !title.includes('32K'), title);
    assert.equal(ticks[0], '4K');
    // The KV cache and the pool: two legend entries, two colours.
    const markers = await page.$$eval('#chart .u-legend .u-series', (rows) => rows.map((r) => ({
      label: r.querySelector('.u-label')?.textContent, colour: getComputedStyle(r.querySelector('.u-marker')).borderColor })));
    const kv = markers.find((m) => /^(KV cache|Cache KV)$/.test(String(m.label)));
    const pool = markers.find((m) => /^(KV cache pool|Réserve de cache KV)$/.test(String(m.label)));
    assert.ok(kv && pool, JSON.stringify(markers));
    assert.notEqual(kv.colour, pool.colour, `${theme}: ${JSON.stringify(markers)}`);
    assert.deepEqual(page.problems, []);
    await page.close();
  }
  // Llama 3.1 8B to 128K on a phone: octaves narrower than uPlot's own label spacing still keep
  // both ends (its log filter dropped every other label, the start among them).
  const page = await env.at('?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192&lang=fr', { colorScheme: 'dark', viewport: { width: 390, height: 844 } });
  await page.waitForFunction(() => (document.querySelector('#chart')?.dataset.xTicks || '').length > 0);
  const ticks = (await page.getAttribute('#chart', 'data-x-ticks')).split('|');
  assert.equal(ticks[0], '4K', String(ticks));
  assert.equal(ticks[ticks.length - 1], '128K', String(ticks));
  assert.match(await page.textContent('#chart-title'), /de 4K à 128K/);
  await page.close();
});

test('vLLM: the cheapest cloud card and the table\'s order read the per-token figure on the basis the request states', async () => {
  const base = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-4090', engine: 'vllm', context: 8192, market: 'US', months: 'auto' };
  for (const par of [1, 4]) {
    const page = await env.at(`?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=vllm&ctx=8192&par=${par}&lang=en`);
    await page.waitForSelector('#cost-cloud-mtok');
    const c = core('cost', par > 1 ? { ...base, parallel: par } : base);
    const stated = par > 1;
    assert.equal(c.cloud_basis.code, stated ? 'stated_sequences' : 'one_user');
    assert.equal(await page.getAttribute('#cost-cloud-mtok', 'data-basis'), c.cloud_basis.code);
    assert.equal(Number(await page.getAttribute('#cost-cloud-mtok', 'data-usd')), c.cheapest_offer.usd);
    assert.equal(await page.getAttribute('#cost-cloud-mtok', 'data-offer'), c.cheapest_offer.id);
    const label = await page.textContent('#cost-cloud-mtok >> xpath=preceding-sibling::div[@class="k"]');
    assert.equal(label, stated ? `Cheapest cloud, ${par} users at once` : 'Cheapest cloud, one user');
    // The table sorted by cost per million tokens: the same basis, lowest first, the card's offer on top.
    const btn = await page.textContent('[data-sort="mtok"]');
    assert.equal(btn, stated ? `Cost per million tokens, ${par} users at once` : 'Cost per million tokens');
    await page.click('[data-sort="mtok"]');
    const rows = await page.$$eval('#cloud-table tbody tr', (trs) => trs.map((tr) => ({ id: tr.dataset.offer, usd: tr.children[7].dataset.usd ? Number(tr.children[7].dataset.usd) : Infinity })));
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].usd <= rows[i].usd, 'sorted on the basis');
    assert.equal(rows[0].usd, c.cheapest_offer.usd);
    const byId = new Map(c.clouds.map((o) => [o.id, o]));
    for (const r of rows) if (Number.isFinite(r.usd)) assert.equal(r.usd, byId.get(r.id).per_million_tokens_usd.basis_usd);
    await page.click('[data-sort="price"]');
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});
