// The model, device and accuracy pages as a new user meets them, at desktop and phone width:
// every column of their tables visible, prose that states numbers stating the core's numbers,
// floors on what "runs", no llama.cpp figure where llama.cpp does not run, the memory claim on
// the accuracy page, titles that name the model or device in the page's language, one unit per
// language, and axe-core clean. Numbers are compared with the module's own documents.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { axeProblems, open, plain, root, scrollsSideways, setup } from './helpers.mjs';

const api = await import(path.join(root, 'dist', 'api.js'));
const { gib, tps } = await import(path.join(root, 'dist', 'format.js'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const GiB = 1024 ** 3;

/** Every table in `sel`: each header and cell box lies inside the viewport and its table box does not scroll. */
async function columnsVisible(page, sel) {
  return page.$$eval(`${sel} table.stack`, (tables) => tables.map((t) => {
    const wrap = t.closest('.table-wrap');
    const vw = document.documentElement.clientWidth;
    const cells = [...t.querySelectorAll('tbody tr:first-child > *')];
    const out = cells.filter((c) => { const r = c.getBoundingClientRect(); return r.width < 1 || r.right > vw + 1 || r.left < -1; });
    return { scrolls: wrap.scrollWidth > wrap.clientWidth + 1, hidden: out.map((c) => c.dataset.label), n: cells.length, rows: t.tBodies[0].rows.length };
  }).filter((x) => x.rows > 0));
}

for (const width of [1280, 390]) {
  test(`model page at ${width} px: every column of the quantization and GPU tables is visible, Verdict and Decode included`, async () => {
    const page = await env.page({ viewport: { width, height: 900 } });
    await open(page, `${env.url}?view=model&model=zai-org/GLM-4.5-Air&lang=en`);
    await page.waitForSelector('#mp-gpus table tbody tr');
    await page.waitForSelector('#mp-quant-table tbody tr');
    const heads = await page.$$eval('#mp-gpus table.stack thead th', (ths) => ths.map((x) => x.textContent));
    assert.ok(heads.includes('Verdict') && heads.includes('Decode'), heads.join('|'));
    for (const sel of ['#mp-gpus', '#mp-quants', '#mp-macs']) {
      const res = await columnsVisible(page, sel);
      assert.ok(res.length > 0, sel);
      for (const r of res) {
        assert.equal(r.scrolls, false, `${sel} scrolls inside its box`);
        assert.deepEqual(r.hidden, [], `${sel}: hidden columns`);
      }
    }
    if (width === 390) {
      // Cards: each cell carries its column name.
      const label = await page.$eval('#mp-gpus table.stack tbody tr td:nth-of-type(3)', (td) => getComputedStyle(td, '::before').content);
      assert.match(label, /Verdict/);
    }
    assert.equal(await scrollsSideways(page), false);
    await page.context().close();
  });
}

test('the quant-choice advice states the file sizes the core computes for this model, and no fixed ratio', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=meta-llama/Llama-3.1-8B-Instruct&lang=en`);
  await page.waitForSelector('#mp-choose li');
  const advice = await page.textContent('#mp-choose');
  assert.doesNotMatch(advice, /a third to a half/);
  const base = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-rtx-4090', context: 8192, kv_type: 'f16', count: 1, ram_gib: 0 };
  for (const q of ['Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'BF16']) {
    const r = await api.estimate({ ...base, quant: q });
    const want = gib(r.gguf_file_bytes ?? r.checkpoint_bytes, 'en', 1);
    assert.ok(advice.includes(want), `${q}: ${want} in "${advice}"`);
    // The table shows the same figure in the same unit.
    assert.ok((await page.textContent(`#mp-quant-table tr[data-quant="${q}"]`)).includes(want), q);
  }
  await page.context().close();
});

test('model page GPU lists hold no llama.cpp figure for Gaudi or Cambricon cards, and say so once', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=meta-llama/Llama-3.1-8B-Instruct&lang=en`);
  await page.waitForSelector('#mp-gpus table tbody tr');
  for (const id of ['intel-gaudi-3', 'intel-gaudi-2', 'cambricon-mlu370-x8'])
    assert.equal(await page.$(`#mp-gpus tr[data-device="${id}"]`), null, id);
  const note = await page.textContent('#mp-gpus [data-no-engine]');
  assert.match(note, /Gaudi 3/);
  assert.match(note, /llama\.cpp has no backend/);
  // The RTX 4090 row's decode range is the core's tier entry, formatted.
  const t = await api.tiers({ model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', context: 8192, kv_type: 'f16' });
  const e = t.gpus.find((x) => x.device.id === 'nvidia-rtx-4090');
  const row = await page.textContent('#mp-gpus tr[data-device="nvidia-rtx-4090"]');
  assert.ok(row.includes(`~${tps(e.speed.decode_tps, 'en')}`), row);
  await page.context().close();
});

test('device page: nothing below the quality or speed floor counts as running, and each says what it would need', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&ram=0&lang=en`);
  await page.waitForSelector('#dp-runs-table tbody tr');
  const doc = await api.runsOn({ hardware: 'nvidia-rtx-4090', context: 8192, kv_type: 'f16', count: 1, ram_gib: 0 });
  const runs = doc.models.filter((e) => e.tier === 'fits' || e.tier === 'offload');
  const shown = await page.$$eval('#dp-runs-table tbody tr, #dp-runs-rest tbody tr', (rs) => rs.map((r) => r.dataset.model));
  assert.match(await page.textContent('#dp-lead'), new RegExp(`^${runs.length} catalog models run on it; first in the list: ${runs[0].model.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at ${runs[0].quant}`));
  assert.deepEqual(shown, runs.map((e) => e.model.id));
  for (const e of runs) assert.ok(e.quality === 'high' || e.quality === 'reduced', e.model.id);
  // Llama 4 Scout fits a 24 GB card only at 1-2 bits: listed below the bar with what it needs.
  const scout = doc.models.find((e) => e.model.id === 'meta-llama/Llama-4-Scout-17B-16E-Instruct');
  assert.equal(scout.below_floor, 'quality');
  const row = await page.textContent('#dp-below-table tr[data-model="meta-llama/Llama-4-Scout-17B-16E-Instruct"]');
  assert.match(row, /quality too low/);
  const need = scout.needs.find((n) => n.code === 'more_memory');
  assert.ok(row.includes(gib(need.memory_bytes, 'en')) && row.includes(gib(need.usable_bytes, 'en')) && row.includes(need.quant), row);  // one precision in the sentence
  assert.match(await page.textContent('#dp-floor-note'), new RegExp(`at least ${doc.floors.min_decode_tps.toFixed(1)}\\stok/s`));
  assert.equal(await scrollsSideways(page), false);
  await page.context().close();
});

test('device page with 64 GB of RAM: a 70B model below 3 tok/s is "too slow", with its speed and what it would need', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&ram=64&lang=en`);
  await page.waitForSelector('#dp-below-table tbody tr');
  const doc = await api.runsOn({ hardware: 'nvidia-rtx-4090', context: 8192, kv_type: 'f16', count: 1, ram_gib: 64 });
  const slow = doc.models.filter((e) => e.below_floor === 'speed');
  assert.ok(slow.length > 0);
  for (const e of doc.models.filter((x) => x.tier !== 'no_fit')) assert.ok(!e.speed || e.speed.decode_tps_low >= doc.floors.min_decode_tps, e.model.id);
  const e = slow[0];
  const row = plain(await page.textContent(`#dp-below-table tr[data-model="${e.model.id}"]`));
  assert.match(row, /too slow/);
  assert.match(row, /a faster device/);
  assert.ok(row.includes(`${new Intl.NumberFormat('en', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(e.needs[0].decode_tps)} tok/s`), row);
  await page.context().close();
});

test('device page for Gaudi 3 and a Cambricon card: what runs under vLLM, the engine named; a Hygon card: no engine', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=device&hw=intel-gaudi-3&lang=en`);
  await page.waitForSelector('#dp-runs-table tbody tr', { timeout: 300000 });
  assert.equal(await page.$('#dp-no-engine'), null);
  assert.equal(await page.getAttribute('#dp-engine-server', 'data-engine'), 'vllm');
  assert.match(await page.textContent('#dp-engine-server'), /llama\.cpp does not run on the Intel Gaudi 3 \(OAM\); vLLM does/);
  // The rows are the core's runs-on list under vLLM, in its order, and each links to a vLLM result.
  const doc = await api.runsOn({ hardware: 'intel-gaudi-3', context: 8192, kv_type: 'f16', count: 1, ram_gib: 0 });
  assert.equal(doc.engine, 'vllm');
  const fits = doc.models.filter((/** @type {any} */ e) => e.tier === 'fits');
  assert.ok(fits.length > 0);
  const rows = await page.$$eval('#dp-runs-table tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-model')));
  assert.deepEqual(rows, fits.slice(0, rows.length).map((/** @type {any} */ e) => e.model.id));
  const href = await page.getAttribute('#dp-runs-table tbody tr a', 'href');
  assert.match(href, /engine=vllm/);
  assert.match(await page.textContent('#dp-runs-table tbody tr'), /tok\/s/);
  // Cambricon runs vLLM through its vllm-mlu plugin: a list under vLLM too.
  await open(page, `${env.url}?view=device&hw=cambricon-mlu370-x8&lang=en`);
  await page.waitForSelector('#dp-engine-server', { timeout: 300000 });
  assert.match(await page.textContent('#dp-engine-server'), /llama\.cpp does not run on the Cambricon MLU370-X8; vLLM does/);
  // Hygon's DTK lists no engine at all.
  await open(page, `${env.url}?view=device&hw=hygon-dcu-k100-ai&lang=en`);
  await page.waitForSelector('#dp-no-engine');
  assert.match(await page.textContent('#dp-runs'), /None of the engines/);
  await page.context().close();
});

test('titles and descriptions name the model or device in the page\'s language', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=zai-org/GLM-4.5-Air&lang=fr`);
  await page.waitForSelector('#mp-spec dl');
  await page.waitForFunction(() => /GLM-4\.5 Air/.test(document.title));
  assert.match(await page.title(), /GLM-4\.5 Air\s:\smémoire, GPU et vitesse/);
  assert.match(await page.getAttribute('meta[name="description"]', 'content'), /GLM-4\.5 Air.*Gio/);
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&lang=es`);
  await page.waitForFunction(() => /RTX 4090/.test(document.title));
  // The device page's one name for its device: the catalog's label with its sold size (device_names.test.mjs).
  assert.match(await page.title(), /GeForce RTX 4090 · 24\sGB: qué LLM se ejecutan en él/);
  assert.match(await page.getAttribute('meta[name="description"]', 'content'), /RTX 4090/);
  // A card whose bandwidth and FP16 rate public sources do not settle: each figure is marked, in Chinese.
  await open(page, `${env.url}?view=device&hw=amd-radeon-ai-pro-r9700&lang=zh`);
  await page.waitForFunction(() => /能运行哪些大模型/.test(document.title));
  await page.waitForSelector('#dp-facts .unc');
  assert.deepEqual(await page.$$eval('#dp-facts .unc', (xs) => xs.map((x) => `${x.dataset.field}:${x.firstChild.textContent}`)), ['bandwidth_gbs:不确定', 'fp16_tflops:不确定']);
  assert.match(await page.textContent('#dp-facts'), /由相近规格推算/);
  assert.ok(await page.isVisible('#dp-uncertain'));
  await page.context().close();
});

test('French model page: one memory unit (Gio) in its tables and parameter counts in milliards', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=meta-llama/Llama-4-Scout-17B-16E-Instruct&lang=fr`);
  await page.waitForSelector('#mp-gpus table tbody tr');
  await page.waitForSelector('#mp-quant-table tbody tr');
  for (const sel of ['#mp-quant-table', '#mp-gpus table']) {
    // Product names keep the vendor's own words ("Jetson AGX Orin 64 GB"); every figure is in Gio.
    const txt = (await page.$$eval(`${sel} tbody td`, (ts) => ts.filter((x) => !x.querySelector('a')).map((x) => x.textContent).join(' ')));
    assert.doesNotMatch(txt, /\bGi?B\b/, sel);
    assert.match(txt, /Gio/, sel);
  }
  const spec = await page.textContent('#mp-spec');
  assert.match(spec, /\d+(,\d)?\s?Md/);
  assert.doesNotMatch(spec, /\d,\dB\b/);
  await page.context().close();
});

test('accuracy page: the memory claim with the core\'s figures, real sources, sort and filter, every column visible', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=accuracy&lang=en`);
  await page.waitForSelector('#acc-rows tbody tr');
  const rep = (await api.accuracyReport()).accuracy;
  const z = rep.sizes;
  const summary = await page.textContent('#acc-sizes-summary');
  const p2 = (x) => new Intl.NumberFormat('en', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(x / 100);
  for (const x of [z.median_abs_error_pct, z.mean_abs_error_pct, z.p90_abs_error_pct, z.max_abs_error_pct]) assert.ok(summary.includes(p2(x)), `${p2(x)} in ${summary}`);
  assert.equal(await page.$$eval('#acc-size-rows tbody tr', (r) => r.length), z.rows.length);
  // Sources: a link, or "no public link"; never an index id nobody can follow.
  const body = await page.textContent('#acc-rows');
  assert.doesNotMatch(body, /code index id/);
  assert.ok((await page.$$('#acc-rows tbody a[href^="https://"]')).length > 100);
  // At 1280 every column of the rows table is visible.
  for (const r of await columnsVisible(page, '#acc-rows-out')) { assert.equal(r.scrolls, false); assert.deepEqual(r.hidden, []); }
  // Filter: decode only, then a text match.
  await page.selectOption('#acc-kind', 'tg');
  const kinds = await page.$$eval('#acc-rows tbody tr', (rs) => [...new Set(rs.map((r) => r.dataset.kind))]);
  assert.deepEqual(kinds, ['tg']);
  const nTg = rep.points.filter((p) => p.kind === 'tg').length;
  assert.match(await page.textContent('#acc-shown'), new RegExp(`^${nTg.toLocaleString('en')} of`));
  await page.fill('#acc-q', 'rtx-4090');
  // The filter matches the catalog id; each row names the device as people know it, the id kept in data-device.
  const devs = await page.$$eval('#acc-rows tbody tr', (rs) => rs.map((r) => ({ id: r.querySelector('[data-device]')?.dataset.device || '', text: r.textContent })));
  assert.ok(devs.length > 0 && devs.every((d) => /rtx-4090/.test(d.id) && /GeForce RTX 4090/.test(d.text)), JSON.stringify(devs.slice(0, 3)));
  // Sort: by measured speed, ascending then descending.
  await page.fill('#acc-q', '');
  await page.click('button[data-sort="acc_col_measured"]');
  const m1 = await page.$$eval('#acc-rows tbody tr', (rs) => rs.map((r) => r.dataset.row));
  const byMeasured = rep.points.filter((p) => p.kind === 'tg').sort((a, b) => b.measured_tps - a.measured_tps).map((p) => p.row_id);
  assert.equal(m1[0], byMeasured[0]);
  await page.click('button[data-sort="acc_col_measured"]');
  const m2 = await page.$$eval('#acc-rows tbody tr', (rs) => rs.map((r) => r.dataset.row));
  assert.equal(m2[0], byMeasured[byMeasured.length - 1]);
  assert.equal(await page.getAttribute('#acc-rows th:has(button[data-sort="acc_col_measured"])', 'aria-sort'), 'ascending');
  await page.context().close();
});

test('a link to one accuracy group opens the rows filtered to it, and a summary row filters the same way', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=accuracy&lang=en#acc-tg-held_out`);
  await page.waitForSelector('#acc-rows tbody tr');
  const rep = (await api.accuracyReport()).accuracy;
  const want = rep.points.filter((p) => p.kind === 'tg' && p.group === 'single' && p.held_out).length;
  const got = await page.$$eval('#acc-rows tbody tr', (rs) => rs.map((r) => `${r.dataset.kind}/${r.dataset.split}`));
  assert.equal(got.length, want);
  assert.deepEqual([...new Set(got)], ['tg/held_out']);
  await page.click('#acc-summary tr[data-group="pp-offloaded"] a');
  const off = await page.$$eval('#acc-rows tbody tr', (rs) => [...new Set(rs.map((r) => `${r.dataset.kind}/${r.dataset.split}`))]);
  assert.deepEqual(off, ['pp/offloaded']);
  assert.match(page.url(), /#acc-pp-offloaded$/);
  await page.context().close();
});

// Each view's accessibility check (light, dark, 1280 and 390 px) is in views.test.mjs.
