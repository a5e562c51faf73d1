// The accuracy page ("How accurate is this?") in Chromium: it renders the core's accuracyReport
// as it is: the per-group summary equals the module's figures, the log-log plot has one point per
// table row, every row links its source, the page passes axe, and it reads in all four languages.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { axeProblems, open, plain, root, scrollsSideways, setup } from './helpers.mjs';

const i18n = await import(path.join(root, 'dist', 'i18n.js'));

let env;
let report;
before(async () => {
  env = await setup();
  // The module's report as the build wrote it (tests/js/accuracy.test.mjs checks it is the module's).
  report = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'accuracy.json'), 'utf8')).accuracy;
});
after(async () => { await env.close(); });

const shots = path.join(root, 'test-results');
fs.mkdirSync(shots, { recursive: true });
const number = (s) => Number(String(s).replace(/[^\d.]/g, ''));

test('the accuracy page shows the summary, a plot with one point per row, and the full table', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=accuracy&lang=en`);
  await page.waitForSelector('#acc-rows tbody tr');
  await page.waitForSelector('#acc-chart canvas');
  assert.equal(await page.getAttribute('#acc-body', 'data-source'), 'build', 'the served app reads the report the build wrote');
  const rows = await page.$$eval('#acc-rows tbody tr', (r) => r.length);
  assert.equal(rows, report.points.length);
  assert.equal(Number(await page.getAttribute('#acc-chart', 'data-points')), rows, 'one plot point per table row');
  // Every visible legend entry is named (the band's lower edge has none and is not listed).
  const legend = await page.$$eval('#acc-chart .u-legend .u-series:not([hidden])', (els) => els.map((e) => e.textContent.trim()));
  assert.ok(legend.length >= 3 && !legend.some((x) => /^Value/.test(x) || x === ''), legend.join(' | '));
  // Summary: every group of the module, with its figures as printed (one decimal).
  for (const g of report.groups) {
    const sel = `#acc-summary tr[data-group="${g.kind}-${g.split}"]`;
    assert.equal(number(await page.textContent(`${sel} td[data-field="rows"]`)), g.rows, sel);
    if (!g.rows) continue;
    assert.equal(number(await page.textContent(`${sel} td[data-field="median_ape_pct"]`)), Math.round(g.median_ape_pct * 10) / 10, sel);
    assert.equal(number(await page.textContent(`${sel} td[data-field="within_25_pct"]`)), Math.round(g.within_25_pct * 10) / 10, sel);
    // The range each speed of the group is shown with, and the share of runs inside it.
    assert.equal(await page.textContent(`${sel} td[data-field="range"]`), `×${g.range_low.toFixed(2)}–\u2060×${g.range_high.toFixed(2)}`, sel);
    if (g.coverage_rows > 0) {
      assert.equal(number(await page.textContent(`${sel} td[data-field="coverage_pct"] .pct`)), Math.round(g.coverage_pct * 10) / 10, sel);
      // The coverage names its own rows and basis: "5 of 7 rows on held-out devices" beside a
      // group of 9 rows never reads as a contradiction, nor (issue 16) as "held-out rows" beside
      // the note that several-GPU rows are never fitted: it is their devices that were held out.
      const cov = plain(await page.textContent(`${sel} td[data-field="coverage_pct"] .cov-rows`));
      assert.match(cov, new RegExp(`\\b${g.coverage_inside_rows} of ${g.coverage_rows} rows${g.coverage_basis === 'held_out' ? ' on held-out devices' : ''}\\)`), sel);
      assert.doesNotMatch(cov, /held-out rows/, sel);
    }
  }
  // Rows: measured and predicted as the module has them; sources are links.
  const first = report.points[0];
  const text = await page.textContent(`#acc-rows tr[data-row="${first.row_id}"]`);
  assert.match(text, new RegExp(first.model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.ok(await page.$('#acc-rows a[href^="https://"]'));
  const multi = await page.$$eval('#acc-rows tr[data-group="multi_gpu"]', (r) => r.length);
  assert.equal(multi, report.points.filter((p) => p.group === 'multi_gpu').length);
  assert.doesNotMatch(await page.textContent('#view-accuracy'), /undefined|NaN|Infinity/);
  await page.screenshot({ path: path.join(shots, 'accuracy-desktop.png') });
  assert.deepEqual(page.problems, []);
});

// The accessibility check of the rendered page, plot and table included, light and dark, 1280
// and 390 px: views.test.mjs.

test('the accuracy page in four languages on a phone, and its speculative decoding rows: measured, predicted and the stated range as the report has them', async () => {
  const s = report.speculative;
  const shown = s.rows.filter((r) => typeof r.speedup === 'number' || Array.isArray(r.speedup_range));
  assert.ok(shown.length >= 20, 'the published speculative runs are in the report');
  const page = await env.page({ viewport: { width: 390, height: 844 } });
  // Each language once, on a phone: the page reads in it (the summary's caption, the
  // speculative section's title and rows), writes a percentage as it does ("4.8%" in English and
  // Chinese, "4,8 %" in French), and fits the screen.
  const titles = { en: 'Speculative decoding', fr: 'Génération spéculative', es: 'Generación especulativa', zh: '推测生成' };
  const captions = { en: 'Error per group', fr: 'Erreur par groupe', es: 'Error por grupo', zh: '各组误差' };
  for (const [lang, title] of Object.entries(titles)) {
    await open(page, `${env.url}?view=accuracy&lang=${lang}`);
    await page.waitForSelector('#acc-chart canvas');
    await page.waitForSelector('#acc-spec-rows tbody tr');
    assert.equal((await page.textContent('#acc-summary caption')).trim(), captions[lang], lang);
    assert.ok((await page.textContent('#acc-spec-title')).startsWith(title), lang);
    assert.equal(await page.$$eval('#acc-spec-rows tbody tr', (r) => r.length), shown.length, lang);
    if (lang !== 'es') {
      const body = await page.textContent('main');
      const withSpace = body.match(/\d[\u00a0\u202f ]%/g) || [];
      const without = body.match(/\d%/g) || [];
      if (lang === 'fr') assert.ok(withSpace.length > 20 && without.length === 0, `${lang}: ${withSpace.length} spaced, ${without.length} not`);
      else assert.deepEqual(withSpace, [], `${lang}: a space before % (${withSpace.length})`);
    }
    assert.equal(await scrollsSideways(page), false, lang);
    if (lang === 'en') await page.screenshot({ path: path.join(shots, 'accuracy-phone.png') });
  }
  await open(page, `${env.url}?view=accuracy&lang=en`);
  await page.waitForSelector('#acc-spec-rows tbody tr');
  // The summary carries the report's held-out figures and the stated range's coverage.
  const summary = plain(await page.textContent('#acc-spec-summary'));
  assert.match(summary, new RegExp(`holds ${s.held_out_in_stated_range} of ${s.held_out_stated_rows} held-out runs`));
  assert.match(summary, new RegExp(`off by ${Math.round(s.held_out_median_ape_pct)}% \\(median; at most ${Math.round(s.held_out_max_ape_pct)}%\\)`));
  assert.match(summary, new RegExp(`${Math.round(100 * s.metal_overhead_per_draft_token)}% on Metal`));
  // vLLM's own terms: its floor and its held-out error, with its own price and priced as llama.cpp.
  const v = s.by_engine.vllm;
  const vllm = plain(await page.textContent('#acc-spec-vllm'));
  assert.match(vllm, new RegExp(`at least ${Math.round(100 * s.vllm_min_cost_per_draft_token)}% of a decode step`));
  assert.match(vllm, new RegExp(`On its ${v.held_out_rows} held-out runs the predicted speedup is off by ${Math.round(v.held_out_median_ape_pct)}% \\(median; at most ${Math.round(v.held_out_max_ape_pct)}%\\)`));
  assert.match(vllm, new RegExp(`priced as llama.cpp, it was off by ${Math.round(v.held_out_llama_terms_median_ape_pct)}%`));
  assert.ok(v.held_out_median_ape_pct < v.held_out_llama_terms_median_ape_pct);
  // A vLLM row names its engine beside the backend.
  assert.match(await page.textContent('#acc-spec-rows tr[data-row="spec-0029"]'), /vLLM · CUDA/);
  // Each row as the report has it: a point row's figures, a range row's range, inside or outside.
  for (const r of shown) {
    const sel = `#acc-spec-rows tr[data-row="${r.row_id}"]`;
    const text = await page.textContent(sel);
    if (typeof r.predicted === 'number') assert.ok(text.includes(`×${r.predicted.toFixed(2)}`), `${r.row_id}: ${text}`);
    if (Array.isArray(r.predicted_range)) assert.ok(text.includes(`×${r.predicted_range[0].toFixed(2)}–\u2060${r.predicted_range[1].toFixed(2)}`), `${r.row_id}: ${text}`);
    if (Array.isArray(r.stated_range)) {
      assert.ok(text.includes(`×${r.stated_range[0].toFixed(2)}–\u2060${r.stated_range[1].toFixed(2)} ${r.in_stated_range ? 'inside' : 'outside'}`), `${r.row_id}: ${text}`);
      assert.equal(await page.getAttribute(sel, 'data-inside'), String(r.in_stated_range));
    }
  }
  assert.ok(await page.$('#acc-spec-rows tr[data-split="fitted"]'));
  assert.ok(await page.$('#acc-spec-rows a[href^="https://github.com/sudoingX/qwen38-mtp"]'));
  assert.doesNotMatch(await page.textContent('#acc-spec'), /undefined|NaN|Infinity/);
  await page.locator('#acc-spec').screenshot({ path: path.join(shots, 'accuracy-spec-phone.png') });
  assert.deepEqual(page.problems, []);
});


// Issue 16: a speculative run's device cell is worded from the report's codes, never the source's
// English ("RTX 3090 24GB (250 W cap)", "— (one GPU, not named)"): the catalog's name with the
// count ("2× GeForce RTX 5090"), a power limit, an overclock, a variant the source leaves unstated
// and a device it does not name, each in the page's language.
test('the speculative rows name their device from the report\'s codes in four languages, with no English left in es, fr and zh', async () => {
  const rows = report.speculative.rows.filter((r) => typeof r.speedup === 'number' || Array.isArray(r.speedup_range));
  const byId = Object.fromEntries(rows.map((r) => [r.row_id, r]));
  for (const id of ['spec-0001', 'spec-0013', 'spec-0014', 'spec-0026', 'spec-0034']) assert.ok(byId[id], id);
  assert.ok(rows.every((r) => !('hardware' in r)), 'the report carries no published wording');
  const page = await env.page({ viewport: { width: 390, height: 844 } });
  const cell = (id) => page.textContent(`#acc-spec-rows tr[data-row="${id}"] .spec-dev`).then(plain);
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    await open(page, `${env.url}?view=accuracy&lang=${lang}`);
    await page.waitForSelector('#acc-spec-rows tbody tr');
    const t = async (k, v = {}) => plain(i18n.t(lang, k, v));
    const two = await cell('spec-0001');
    assert.match(two, lang === 'fr' ? /^2 × GeForce RTX 5090\b/ : /^2× GeForce RTX 5090\b/, `${lang}: ${two}`);
    assert.equal(await page.getAttribute('#acc-spec-rows tr[data-row="spec-0001"] .spec-dev', 'data-device'), 'nvidia-rtx-5090');
    assert.ok((await cell('spec-0013')).includes(await t('acc_spec_power_limit', { 0: '250' })), lang);
    assert.ok((await cell('spec-0014')).includes(await t('acc_spec_overclocked')), lang);
    assert.ok((await cell('spec-0026')).includes(await t('acc_spec_dev_unnamed')), lang);
    const h100 = await cell('spec-0034');
    assert.ok(h100.startsWith('NVIDIA H100') && h100.includes(await t('acc_spec_unstated_form_factor')), `${lang}: ${h100}`);
    const mac = await cell('spec-0021');
    assert.match(mac, /^Apple M3 Ultra · 96 (GB|Go)/, `${lang}: ${mac}`);
    if (lang === 'en') continue;
    const cells = await page.$$eval('#acc-spec-rows .spec-dev', (els) => els.map((e) => e.textContent || ''));
    assert.equal(cells.length, rows.length, lang);
    for (const c of cells) assert.doesNotMatch(c, /not named|overclocked|\bcap\b|GPU, not|Laptop 24GB|\(Mac Studio/i, `${lang}: ${c}`);
    assert.equal(await scrollsSideways(page), false, lang);
  }
  assert.deepEqual(page.problems, []);
});
