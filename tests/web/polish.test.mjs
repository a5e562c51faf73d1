// Issue 16, the page's words and small views as a person sees them: Chinese sentences joined
// without a space after 。 and figures kept on 亿/万, a neutral word for a tight fit; chart
// legends that name their series (no "—"), a simulator without an empty box; the accuracy page's
// band from the core's report and look-alike rows that say what sets them apart; launch commands
// that break between tokens only at 390 px; a format's applicability as a light note; the
// Spanish cloud card's listed-GB note under its figure.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/** Every section drawn (no placeholder still working on screen) and every <details> open. @param {any} page */
async function settled(page) {
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent));
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
}

test('Chinese: no space after 。 inside the text, a figure joined to 亿/万, and no "很紧张"', async () => {
  const page = await env.page();
  for (const q of ['?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct',
    '?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192',
    '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768',
    '?view=device&hw=nvidia-rtx-4090&ram=0', '?view=model&model=zai-org/GLM-4.5-Air']) {
    await open(page, `${env.url}${q}&lang=zh`);
    await settled(page);
    const text = await page.evaluate(() => document.body.innerText);
    // "。 · 下载离线版": the footer's separator before a link, not two sentences.
    const spaced = [...text.matchAll(/。 (?!·)/g)].map((m) => text.slice(Math.max(0, m.index - 20), m.index + 20));
    assert.deepEqual(spaced, [], `${q}: a space after 。`);
    assert.deepEqual(text.match(/\d[\d.,]*\s+[亿万]/g), null, `${q}: a figure apart from its 亿/万`);
    // A parameter count written by the page carries a word joiner before 亿/万 (no line break there).
    assert.deepEqual(text.match(/\d[万亿]/g), null, `${q}: a figure against 亿/万 without the word joiner`);
    assert.ok(!text.includes('很紧张'), `${q}: 很紧张`);
    assert.ok(!/[\u4e00-\u9fff]\. /.test(text), `${q}: an ASCII full stop after Chinese`);
  }
  // The verdict word for a tight fit in the tables (the device page lists some).
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&ram=0&lang=zh`);
  await settled(page);
  assert.ok((await page.evaluate(() => document.body.innerText)).includes('余量小'));
  assert.deepEqual(page.problems, []);
});

test('chart legends name their series without "—", the reference lines are marked as lines, and the simulator shows no empty box', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#rvb-chart .u-legend');
  const legend = await page.$eval('#rvb-chart .u-legend', (l) => [...l.querySelectorAll('.u-series')]
    .filter((s) => /** @type {HTMLElement} */ (s).offsetParent).map((s) => /** @type {HTMLElement} */ (s).innerText.trim()));
  assert.ok(legend.length >= 2, JSON.stringify(legend));
  for (const entry of legend) {
    assert.ok(!entry.includes('—'), `legend entry "${entry}"`);
    assert.ok(!/:\s*$/.test(entry), `legend entry "${entry}" ends in a colon`);
  }
  // Over the plot the values come back.
  await page.locator('#rvb-chart').scrollIntoViewIfNeeded();
  const box = await page.$eval('#rvb-chart .u-over', (o) => { const r = o.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
  await page.mouse.move(box.x - 5, box.y);
  await page.mouse.move(box.x, box.y, { steps: 3 });
  await page.waitForFunction(() => [...document.querySelectorAll('#rvb-chart .u-legend .u-value')].some((v) => v.textContent && v.textContent !== '—'));
  // The simulator: its output box is not on screen before Start, and is once text streams.
  await page.waitForSelector('#sim-start:not([disabled])');
  assert.equal(await page.$eval('#sim-out', (o) => /** @type {HTMLElement} */ (o).offsetParent === null), true, 'an empty output box before Start');
  await page.click('#sim-start');
  await page.waitForFunction(() => (document.getElementById('sim-out')?.textContent || '').length > 0, null, { timeout: 60000 });
  assert.equal(await page.$eval('#sim-out', (o) => /** @type {HTMLElement} */ (o).offsetParent !== null), true);
  assert.ok((await page.getAttribute('#sim-out', 'title'))?.length, 'the box says what it is');
  await page.click('#sim-stop');
  assert.deepEqual(page.problems, []);
});

test('the accuracy page: the band from the report, and rows that look the same say what sets them apart', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=accuracy&lang=en`);
  await page.waitForSelector('#acc-rows tbody tr');
  const rep = await page.evaluate(async () => (await (await fetch('accuracy.json')).json()).accuracy);
  assert.equal(typeof rep.band_pct, 'number');
  const band = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 0 }).format(rep.band_pct / 100);
  assert.match(await page.textContent('#acc-summary thead'), new RegExp(`±${band}`));
  await page.waitForSelector('#acc-chart .u-legend');
  const legend = await page.$$eval('#acc-chart .u-legend .u-series', (s) => s.filter((x) => /** @type {HTMLElement} */ (x).offsetParent).map((x) => x.textContent?.trim()));
  assert.ok(legend.includes(`±${band}`), JSON.stringify(legend));
  assert.equal(await page.$$eval('#acc-chart .u-legend .line-mark', (m) => m.length), 2);
  // Every row the report pairs with look-alikes names the differing fields in its backend cell,
  // and no two such rows read the same.
  const twins = rep.points.filter((/** @type {any} */ p) => p.distinct.length > 0);
  assert.ok(twins.length >= 10, `${twins.length} look-alike rows`);
  const shown = await page.$$eval('#acc-rows tbody tr', (trs) => trs.map((tr) => ({
    row: /** @type {HTMLElement} */ (tr).dataset.row, cells: [...tr.querySelectorAll('td, th')].slice(0, 5).map((c) => /** @type {HTMLElement} */ (c).innerText.replace(/\s+/g, ' ').trim()),
    distinct: tr.querySelector('.distinct')?.textContent || '' })));
  const byRow = new Map(shown.map((s) => [s.row, s]));
  for (const p of twins) {
    const s = byRow.get(p.row_id);
    assert.ok(s && s.distinct, `${p.row_id}: no note of what differs`);
  }
  const seen = new Map();
  for (const s of shown) {
    const key = s.cells.join(' | ');
    assert.ok(!seen.has(key), `rows ${seen.get(key)} and ${s.row} read the same: ${key}`);
    seen.set(key, s.row);
  }
  // GLM-4.5-Air on Strix Halo: two Vulkan drivers, flash attention on and off.
  assert.match(byRow.get('bench-0343').distinct, /Vulkan AMDVLK.*FlashAttention off/);
  assert.match(byRow.get('bench-0347').distinct, /Vulkan RADV/);
  assert.deepEqual(page.problems, []);
});

test('at 390 px a launch command breaks between its flags only (each with its value), its text the command', async () => {
  const page = await env.page(PHONE);
  for (const lang of ['en', 'fr']) {
    await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=${lang}`);
    await page.waitForSelector('#commands pre');
    const cmds = await page.$$eval('#commands pre', (pres) => pres.map((pre) => {
      const w = pre.clientWidth;
      const lh = parseFloat(getComputedStyle(pre).lineHeight) || 16;
      const toks = [...pre.querySelectorAll('.tok')].map((t) => ({ text: t.textContent, h: t.getBoundingClientRect().height, w: t.getBoundingClientRect().width }));
      return { text: pre.textContent, w, lh, toks };
    }));
    assert.ok(cmds.length > 0);
    for (const c of cmds) {
      assert.ok(c.toks.length > 3, c.text);
      assert.equal(c.toks.map((t) => t.text).join(' '), c.text.trim().split(/\s+/).join(' '));
      // One line each (a token as wide as the box may wrap inside itself; none is here).
      for (const t of c.toks) assert.ok(t.h < 1.6 * c.lh, `"${t.text}" spans ${t.h}px at a line height of ${c.lh}px`);
    }
    // A flag stays with its value: '--n-cpu-moe 36' and '-ngl 47' are whole pieces.
    assert.ok(cmds.some((c) => c.toks.some((t) => /^--n-cpu-moe \d+$/.test(t.text))), 'the offload flag with its value');
    // Every piece is a flag with its value, a shell operator with the command it starts ("&& python"),
    // or one word (the program, a subcommand, a positional argument): none runs a flag's value into
    // the next command of a chain ("--local-dir X && python …" were once one piece).
    for (const c of cmds)
      for (const t of c.toks)
        assert.ok(/^-\S*( \S+)?$/.test(t.text) || /^(&&|\|\|?|;) \S+$/.test(t.text) || /^\S+$/.test(t.text), `"${t.text}" in ${c.text}`);
  }
  assert.deepEqual(page.problems, []);
});

test('a format\'s applicability is a short note under its name (French, 1280 and 390 px); the Spanish cloud card\'s listed GB sits under its figure', async () => {
  for (const opts of [{}, PHONE]) {
    const page = await env.page(opts);
    // Llama 3.3 70B: NVIDIA's NVFP4 checkpoint puts the format in the vLLM table (weight-only on H100).
    await open(page, `${env.url}?model=meta-llama/Llama-3.3-70B-Instruct&hw=nvidia-h100-sxm&count=4&engine=vllm&ctx=8192&lang=fr`);
    await page.waitForSelector('#matrix [data-applicability]');
    const a = await page.$eval('#matrix [data-applicability]', (el) => {
      const cs = getComputedStyle(el);
      return { radius: parseFloat(cs.borderTopRightRadius), lines: Math.round(el.getBoundingClientRect().height / parseFloat(cs.lineHeight)), text: el.textContent };
    });
    assert.match(a.text, /FP4/);
    assert.ok(a.radius < 8, `a pill (radius ${a.radius}px)`);
    assert.ok(a.lines <= 3, `${a.lines} lines`);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }
  const page = await env.page(PHONE);
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=es`);
  await page.waitForSelector('#cloud-table .listed');
  const cell = await page.$eval('#cloud-table .listed', (n) => {
    const td = /** @type {HTMLElement} */ (n.closest('td'));
    const value = /** @type {HTMLElement} */ (n.parentElement);
    const r = (/** @type {Element} */ e) => e.getBoundingClientRect();
    // The figure itself: the text before the note.
    const range = document.createRange();
    range.setStart(value, 0);
    range.setEndBefore(n);
    const fig = range.getBoundingClientRect();
    return { children: td.children.length, figRight: fig.right, noteRight: r(n).right, figBottom: fig.bottom, noteTop: r(n).top, textAlign: getComputedStyle(n).textAlign };
  });
  assert.equal(cell.children, 1, 'one value beside the label');
  assert.ok(Math.abs(cell.figRight - cell.noteRight) < 2, `figure ends at ${cell.figRight}, note at ${cell.noteRight}`);
  assert.ok(cell.noteTop >= cell.figBottom - 1, 'the note under the figure');
  assert.deepEqual(page.problems, []);
});
