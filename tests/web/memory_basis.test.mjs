// A device whose memory size is the vendor's own figure (the core's hardware.memory_basis
// vendor_figure: no public page shows its driver's total) is not shown as exact: the result and
// the device page mark the figure and say, in the page's language, that the driver may report up
// to the core's less_share less (its low_gib), with the core's numbers; a driver's total is not marked.
// The same mark stands in the model page's GPU list, the cloud table and the embed card; an offer
// that holds the model only tight says so, and the cost card names a cheaper tight offer beside
// the core's cheapest offer with room to spare.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { core, coreMany, open, plain, root, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

// A GiB figure as the page writes it: up to two decimals, in the language's digits.
const two = (x, lang) => new Intl.NumberFormat(lang, { maximumFractionDigits: 2 }).format(x);
const ready = (page) => page.waitForFunction(() => document.querySelector('#verdict').dataset.verdict !== 'pending');

test('the result on a vendor’s memory figure marks it and says the driver may report less, in English and in French on a phone', async () => {
  const req = { model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M', hardware: 'moorethreads-mtt-s4000', context: 8192 };
  const r = core('estimate', req);
  assert.equal(r.hardware.memory_basis.code, 'vendor_figure');
  const { low_gib: low, less_share: less } = r.hardware.memory_basis.values;
  const url = (lang) => `${env.url}?model=${req.model}&quant=${req.quant}&hw=${req.hardware}&ctx=8192&count=1&ram=0&lang=${lang}`;

  const page = await env.page();
  await open(page, url('en'));
  await ready(page);
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), r.verdict);
  // The mark beside the usable memory, and the sentence under the bar with the core's numbers.
  assert.equal(plain(await page.textContent('#c-usable-unc [data-basis="vendor_figure"]')).startsWith('vendor figure'), true);
  const rule = plain(await page.textContent('#usable-rule'));
  const fig = `${r.hardware.memory_gib} GiB`;
  assert.ok(rule.includes(`${fig} is the vendor’s figure: the driver may report up to ${Math.round(less * 100)}% less (${two(low, 'en')} GiB).`), rule);
  assert.match(rule, /^Usable on device: .+\. 48 GiB is the vendor’s figure/);

  const phone = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await open(phone, url('fr'));
  await ready(phone);
  const fr = await phone.textContent('#usable-rule');
  // French: decimal comma, and a no-break space before the colon and inside the guillemets.
  assert.ok(fr.includes(`est le chiffre du fabricant\u00a0: le pilote peut indiquer jusqu’à`), fr);
  assert.ok(plain(fr).includes(`(${plain(two(low, 'fr'))} Gio)`), fr);
  assert.ok(fr.includes('«\u00a0Tient avec de la marge\u00a0»'), fr);
  assert.equal(plain(await phone.textContent('#c-usable-unc [data-basis]')).startsWith('chiffre du fabricant'), true);
  // The mark stays inside the card on a phone's width.
  const box = await phone.$eval('#c-usable-unc [data-basis]', (el) => {
    const a = el.getBoundingClientRect(), c = /** @type {HTMLElement} */ (el.closest('.card')).getBoundingClientRect();
    return { inside: a.left >= c.left - 0.5 && a.right <= c.right + 0.5 };
  });
  assert.ok(box.inside, 'the mark overflows its card');
  assert.deepEqual(page.problems, []);
  assert.deepEqual(phone.problems, []);
});

test('a driver’s memory total is shown without the vendor-figure mark', async () => {
  const r = core('estimate', { model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M', hardware: 'nvidia-b300', context: 8192 });
  assert.equal(r.hardware.memory_basis.code, 'driver_reported');
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-0.6B&quant=Q4_K_M&hw=nvidia-b300&ctx=8192&count=1&ram=0&lang=en`);
  await ready(page);
  assert.equal(await page.$('#c-usable-unc [data-basis]'), null);
  assert.doesNotMatch(await page.textContent('#usable-rule'), /vendor’s figure/);
});

test('the device page of a vendor’s memory figure marks the size and says what the driver may report', async () => {
  const r = core('estimate', { model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M', hardware: 'cambricon-mlu590' });
  assert.equal(r.hardware.memory_basis.code, 'vendor_figure');
  const low = r.hardware.memory_basis.values.low_gib;
  const page = await env.page();
  await open(page, `${env.url}?view=device&hw=cambricon-mlu590&ram=0&lang=zh`);
  await page.waitForSelector('#dp-basis');
  const note = await page.textContent('#dp-basis');
  assert.ok(note.includes(`${r.hardware.memory_gib}\u00a0GiB 为厂商标称值`), note);
  assert.ok(plain(note).includes(`（${two(low, 'zh')} GiB）`), note);
  assert.equal(plain(await page.textContent('#dp-facts [data-basis="vendor_figure"]')).startsWith('厂商标称值'), true);
  assert.deepEqual(page.problems, []);
});

test('a cloud offer carries the vendor-figure mark in its memory cell exactly when its GPU is sold by the vendor’s figure', async () => {
  const offers = JSON.parse(fs.readFileSync(path.join(root, 'data', 'clouds.json'), 'utf8')).offers;
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  await page.waitForSelector('#cloud-table');
  await page.click('#cloud-all');
  const rows = await page.$$eval('#cloud-table tbody tr[data-offer]', (trs) => trs.map((tr) => ({
    id: tr.dataset.offer, marks: tr.querySelectorAll('[data-basis="vendor_figure"]').length, inCell: tr.querySelectorAll('[data-vram] [data-basis]').length })));
  assert.ok(rows.length > 10, `${rows.length} rows`);
  const devs = [...new Set(rows.map((row) => offers.find((/** @type {any} */ o) => o.id === row.id)?.device))];
  assert.ok(devs.every(Boolean), 'every offer names its device');
  /** @type {Map<string, string>} the core's memory basis of each offer's device */
  const basis = new Map(coreMany(devs.map((dev) => ({ model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M', hardware: dev })))
    .map((r, i) => [devs[i], r.hardware.memory_basis.code]));
  let vendor = 0;
  for (const row of rows) {
    const dev = offers.find((o) => o.id === row.id)?.device;
    const v = basis.get(dev) === 'vendor_figure';
    vendor += v ? 1 : 0;
    assert.equal(row.marks, v ? 1 : 0, `${row.id} (${dev}, ${basis.get(dev)})`);
    assert.equal(row.inCell, row.marks, `${row.id}: the mark sits in the memory cell`);
  }
  // No offer's GPU is on a vendor's figure since the A100 80GB PCIe holds its driver's total
  // (session 26): every cell is then checked unmarked, and the marked path is checked again as
  // soon as an offer on such a GPU is in the catalog.
  assert.ok(vendor < rows.length, `${vendor} of ${rows.length} offers on a vendor's figure`);
  assert.deepEqual(page.problems, []);
});

test('the model page marks a vendor’s memory figure in its GPU list’s memory column, by the core’s basis of each device; a driver’s total unmarked', async () => {
  const model = 'Qwen/Qwen3-0.6B';
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=${model}&lang=en`);
  // A long list folds its rows after the first ones: the row is there, folded or not.
  await page.waitForSelector('#mp-gpus tr[data-device="moorethreads-mtt-s4000"]', { state: 'attached' });
  // The list the page drew: each row's device, its memory cell's mark and its verdict cell.
  const rows = await page.$$eval('#mp-gpus tbody tr[data-device]', (trs) => trs.map((tr) => {
    const cells = [...tr.querySelectorAll('th, td')];
    return { id: tr.dataset.device, tier: tr.dataset.tier, marks: tr.querySelectorAll('[data-basis]').length,
      inMemory: cells[1]?.querySelectorAll('[data-basis="vendor_figure"]').length ?? 0, verdict: (cells[3]?.textContent || '').trim() };
  }));
  assert.ok(rows.length > 10, `${rows.length} rows`);
  const ids = [...new Set(rows.map((row) => row.id))];
  /** @type {Map<string, string>} */
  const basis = new Map(coreMany(ids.map((id) => ({ model, quant: 'Q4_K_M', hardware: id })))
    .map((r, i) => [ids[i], r.hardware?.memory_basis?.code ?? '']));
  for (const row of rows) {
    const v = basis.get(row.id) === 'vendor_figure';
    assert.equal(row.marks, v ? 1 : 0, `${row.id} (${basis.get(row.id)})`);
    assert.equal(row.inMemory, row.marks, `${row.id}: the mark sits in the memory cell`);
  }
  const s4000 = rows.find((x) => x.id === 'moorethreads-mtt-s4000');
  assert.ok(s4000 && s4000.inMemory === 1, JSON.stringify(s4000));
  assert.ok(rows.some((x) => basis.get(x.id) === 'driver_reported' && x.marks === 0), 'a driver total in the list, unmarked');
  // The mark's text is the core's low end of the figure.
  const r = core('estimate', { model, quant: 'Q4_K_M', hardware: 'moorethreads-mtt-s4000' });
  const mark = plain(await page.textContent('#mp-gpus tr[data-device="moorethreads-mtt-s4000"] [data-basis]'));
  assert.ok(mark.startsWith('vendor figure') && mark.includes(`(${two(r.hardware.memory_basis.values.low_gib, 'en')} GiB)`), mark);
  assert.deepEqual(page.problems, []);
});

test('the cloud table says “tight” beside the memory of an instance that holds the model without room to spare, by the core’s verdict on each instance', async () => {
  // Llama 3.1 70B at Q6_K: the first context at which one A100 80GB PCIe holds it only tight.
  const base = { model: 'meta-llama/Llama-3.1-70B-Instruct', quant: 'Q6_K', ram_gib: 0 };
  const contexts = Array.from({ length: 16 }, (_, i) => 4096 * (i + 1));
  const ctx = contexts[coreMany(contexts.map((c) => ({ ...base, context: c, hardware: 'nvidia-a100-80gb-pcie' }))).findIndex((r) => r.verdict === 'tight')] ?? 0;
  assert.ok(ctx > 0, 'a context where one A100 80GB PCIe holds it only tight');
  const offers = JSON.parse(fs.readFileSync(path.join(root, 'data', 'clouds.json'), 'utf8')).offers;
  const page = await env.page();
  await open(page, `${env.url}?model=${base.model}&quant=Q6_K&hw=nvidia-h200-sxm&ctx=${ctx}&ram=0&lang=en`);
  await page.waitForSelector('#cloud-table');
  await page.click('#cloud-all');
  const rows = await page.$$eval('#cloud-table tbody tr[data-offer]', (trs) => trs.map((tr) => ({
    id: tr.dataset.offer, tight: tr.querySelectorAll('[data-vram] [data-tight]').length, text: tr.querySelector('[data-vram]')?.textContent || '' })));
  const shapes = [...new Set(rows.map((row) => {
    const o = offers.find((/** @type {any} */ x) => x.id === row.id);
    assert.ok(o, row.id);
    return `${o.device}#${o.gpu_count}`;
  }))];
  /** @type {Map<string, string>} the core's verdict on each instance shape */
  const verdicts = new Map(coreMany(shapes.map((key) => {
    const [device, n] = key.split('#');
    return { ...base, context: ctx, hardware: device, count: Number(n) };
  })).map((r, i) => [shapes[i], r.verdict]));
  let tight = 0;
  for (const row of rows) {
    const o = offers.find((/** @type {any} */ x) => x.id === row.id);
    const key = `${o.device}#${o.gpu_count}`;
    const v = verdicts.get(key) === 'tight';
    tight += v ? 1 : 0;
    assert.equal(row.tight, v ? 1 : 0, `${row.id} (${key}: ${verdicts.get(key)}): ${row.text}`);
  }
  assert.ok(rows.some((x) => x.id.includes('a100-80gb-pcie') && x.tight === 1), rows.map((x) => x.id).join(' '));
  assert.ok(tight < rows.length, 'offers with room are not marked');
  assert.deepEqual(page.problems, []);
});

test('the cost card and the picks’ cheapest cloud card name a cheaper offer that holds the model only tight beside the core’s cheapest offer with room to spare', async () => {
  // GLM-4.5-Air at Q4_K_M: an 80 GB A100 holds it only tight (no room to spare), so the core's
  // cheapest offer per token is one with room, and its tight_cheaper names the A100 offer.
  const req = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-h200-sxm', context: 8192 };
  const c = core('cost', req);
  const tc = c.cheapest_offer.tight_cheaper;
  assert.ok(tc, JSON.stringify(c.cheapest_offer));
  const tight = c.clouds.find((/** @type {any} */ o) => o.id === tc.id);
  assert.equal(tight.estimate.verdict, 'tight');
  assert.notEqual(c.clouds.find((/** @type {any} */ o) => o.id === c.cheapest_offer.id).estimate.verdict, 'tight');
  const page = await env.page();
  await open(page, `${env.url}?model=${req.model}&quant=${req.quant}&hw=${req.hardware}&ctx=8192&lang=en`);
  await page.waitForSelector('#cost-cloud-mtok');
  assert.equal(await page.getAttribute('#cost-cloud-mtok', 'data-offer'), c.cheapest_offer.id);
  assert.equal(await page.getAttribute('#cost-cloud-tight', 'data-offer'), tc.id);
  const note = plain(await page.textContent('#cost-cloud-tight'));
  assert.ok(note.startsWith(`${tight.provider} `) && note.includes('but holds the model only tight'), note);
  // The picks' cheapest cloud card (per hour) does the same: the core's cheapest offer with room,
  // and under it the cheaper offer that holds the model only tight, at the core's price.
  const picks = core('solve', { model: req.model, quant: req.quant, context: 8192, solve: 'picks' });
  const pc = picks.cheapest_cloud;
  assert.ok(pc && pc.verdict === 'fits' && pc.tight_cheaper, JSON.stringify(pc));
  const card = '[data-pick="cheapest_cloud"]';
  await page.waitForSelector(`${card} [data-tight-cheaper]`, { state: 'attached' });
  assert.equal(await page.getAttribute(`${card} [data-tight-cheaper]`, 'data-tight-cheaper'), pc.tight_cheaper.id);
  const pick = plain(await page.textContent(`${card} [data-tight-cheaper]`));
  const price = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(pc.tight_cheaper.price_hour_usd);
  assert.ok(pick.startsWith(`${pc.tight_cheaper.provider} `) && pick.includes(price) && pick.includes('only tight'), `${pick} (${price})`);
  assert.ok(pc.tight_cheaper.price_hour_usd < pc.price_hour_usd);
  assert.deepEqual(page.problems, []);
});

test('the embed card marks a vendor’s memory figure on its memory line, with the core’s low end in its tooltip', async () => {
  const req = { model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M', hardware: 'moorethreads-mtt-s4000', context: 8192 };
  const r = core('estimate', req);
  const page = await env.page();
  const line = async (/** @type {string} */ hw) => {
    await page.goto(`${env.url}embed.html?model=${req.model}&quant=${req.quant}&hw=${hw}&ctx=8192&lang=en`);
    await page.waitForFunction(() => /** @type {HTMLElement | null} */ (document.querySelector('#card'))?.dataset.verdict);
    return page.evaluate(() => {
      const l = /** @type {HTMLElement} */ (document.querySelector('#card')?.shadowRoot?.querySelector('.line'));
      return { text: l.textContent || '', title: l.title, basis: l.dataset.basis };
    });
  };
  const v = await line('moorethreads-mtt-s4000');
  assert.equal(v.basis, 'vendor_figure');
  assert.match(plain(v.text), / · vendor figure · /);
  assert.ok(plain(v.title).includes(`(${two(r.hardware.memory_basis.values.low_gib, 'en')} GiB)`), v.title);
  const d = await line('nvidia-b300');
  assert.equal(d.basis, '');
  assert.doesNotMatch(d.text, /vendor figure/);
  assert.deepEqual(page.problems, []);
});
