// Issue 16, the page on a phone (390 px) as reviewers read it: devices the core placed alike are
// one row (one card), not eight equal ones; ids, repository names, flags and file names never end
// a line at one of their hyphens when they fit on a line; on the accuracy page the legend draws the
// band dashed as the plot does in every language, a phone card's label carries no sort arrow, a
// row's flags are said once, and the log axes start at a round value.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Each visible row (card) of a table: its text, the text of the row before it. @param {any} page @param {string} sel */
const rowsOf = (page, sel) => page.$$eval(`${sel} tbody tr`, (trs) => trs.map((tr) => ({
  text: (tr.textContent || '').trim(), height: tr.getBoundingClientRect().height, count: tr.querySelector('[data-count]')?.getAttribute('data-count') || '' })));

test('eight H200 the core places alike are one card ("8× … (each)"), at 390 and 1280 px; an offload plan keeps its GPU and RAM apart', async () => {
  const DSV3 = { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 32768 };
  const r = core('estimate', DSV3);
  // The test needs the core to place the eight devices alike.
  assert.equal(r.memory.devices.length, 8);
  assert.ok(r.memory.devices.every((/** @type {any} */ d) => JSON.stringify(d) === JSON.stringify(r.memory.devices[0])));
  for (const [lang, opts, each] of [['en', PHONE, /^8×\s?NVIDIA H200 SXM \(each\)/], ['fr', {}, /^8\u00a0×\sNVIDIA H200 SXM \(chacun\)/], ['zh', PHONE, /^8×\s?NVIDIA H200 SXM（每个）/]]) {
    const page = await env.page(opts);
    await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=${lang}`);
    await page.waitForSelector('#devices-table tbody tr');
    const rows = await rowsOf(page, '#devices-table');
    assert.equal(rows.length, 1, `${lang}: ${rows.map((x) => x.text).join(' / ')}`);
    assert.equal(rows[0].count, '8');
    assert.match(rows[0].text, each);
    // The one card holds the per-device figures (each GPU's, not eight GPUs' together).
    const cells = await page.$$eval('#devices-table tbody td', (tds) => tds.map((td) => td.textContent));
    const gibText = (/** @type {number} */ b) => (b / 2 ** 30).toFixed(2);
    assert.ok(cells.some((c) => (c || '').replace(',', '.').startsWith(gibText(r.memory.devices[0].weights_bytes))), cells.join(' | '));
    if (opts === PHONE) {
      // On a phone that card is well under a screen high (eight were two and a half).
      assert.ok(rows[0].height < 420, `${rows[0].height}px`);
      // Its verdict tag keeps its own width beside its label (it was stretched across the card).
      const tag = await page.$eval('#devices-table tbody [data-verdict]', (t) => [t.getBoundingClientRect().width, /** @type {HTMLElement} */ (t.closest('td')).getBoundingClientRect().width]);
      assert.ok(tag[0] < tag[1] / 2, tag.join(' of '));
    }
    assert.deepEqual(page.problems, []);
  }
  // An offload plan: the GPU and system RAM hold different parts, two rows.
  const page = await env.page(PHONE);
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=en`);
  await page.waitForSelector('#devices-table tbody tr');
  const rows = await rowsOf(page, '#devices-table');
  assert.equal(rows.length, 2);
  assert.notEqual(rows[0].text, rows[1].text);
  assert.equal(rows[0].count, '');
  // Two RTX 3090 with a layer split hold different layers: two rows, no "(each)".
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&lang=en`);
  await page.waitForSelector('#devices-table tbody tr');
  const split = await rowsOf(page, '#devices-table');
  assert.equal(split.length, 2);
  assert.doesNotMatch(split.map((x) => x.text).join(' '), /\(each\)/);
});

/**
 * Lines that end at a hyphen or dash inside a piece of text with no space (an id, a file name, a
 * flag; a piece ends at a space, after a slash and at a CJK ideograph) although the whole piece
 * fits the width of the box it sits in: "Llama-3.1-8B-" / "Instruct", "（-" / "fitt）".
 * @param {any} page @param {string} sel
 */
function badBreaks(page, sel) {
  return page.evaluate((/** @type {string} */ s) => {
    const STOP = /[\s\u2E80-\u2FFF\u3001\u3002\u3040-\u9FFF\uFF0C\uFF1A\uFF1B]/;
    /** @type {string[]} */
    const out = [];
    for (const root of document.querySelectorAll(s)) {
      /** @type {{ch: string, r: DOMRect | null, el: Element}[]} */
      const cs = [];
      const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = tw.nextNode(); n; n = tw.nextNode()) {
        const el = /** @type {Element} */ (n.parentElement);
        if (!el.getClientRects().length || el.closest('.sr, thead')) continue;
        const t = /** @type {Text} */ (n).data;
        for (let i = 0; i < t.length; i++) {
          const rg = document.createRange();
          rg.setStart(n, i); rg.setEnd(n, i + 1);
          cs.push({ ch: t[i], r: rg.getClientRects()[0] || null, el });
        }
      }
      for (let k = 1; k < cs.length; k++) {
        const a = cs[k - 1], b = cs[k];
        if (!a.r || !b.r || !/[-\u2010\u2013]/.test(a.ch) || STOP.test(b.ch) || b.r.top < a.r.bottom - 2) continue;
        let i = k - 1, j = k;
        while (i > 0 && !STOP.test(cs[i - 1].ch) && cs[i - 1].ch !== '/') i--;
        while (j + 1 < cs.length && !STOP.test(cs[j + 1].ch) && cs[j].ch !== '/') j++;
        const piece = cs.slice(i, j + 1);
        const width = piece.reduce((w, c) => w + (c.r ? c.r.width : 0), 0);
        // The box the piece sits in: its nearest block's content width.
        let box = a.el;
        while (box.parentElement && /^inline/.test(getComputedStyle(box).display)) box = box.parentElement;
        const st = getComputedStyle(box);
        const room = box.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
        if (width <= room) out.push(`${piece.slice(0, k - i).map((c) => c.ch).join('')}|${piece.slice(k - i).map((c) => c.ch).join('')} (${Math.round(width)} of ${Math.round(room)} px)`);
      }
    }
    return out;
  }, sel);
}

test('at 390 px ids, repository names, quantizations, flags and file names end no line at a hyphen when they fit a line (en, zh)', async () => {
  const page = await env.page(PHONE);
  // SGLang in Chinese: the summary names SAFETENSORS-BF16, a card quotes --max-running-requests,
  // the commands name meta-llama/Llama-3.1-8B-Instruct.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192&lang=zh`);
  await page.waitForSelector('#commands pre');
  assert.match(await page.textContent('#summary'), /SAFETENSORS-BF16/);
  assert.deepEqual(await badBreaks(page, '#summary, #serve-cards, #commands, #faq-main'), []);
  // The flag in the card's note is on one line (half a phone was narrower than it).
  const flag = await page.$eval('#serve-cards code.flag', (c) => ({ text: c.textContent, lines: c.getClientRects().length, h: c.getBoundingClientRect().height, lh: parseFloat(getComputedStyle(c).lineHeight) || 16 }));
  assert.match(flag.text, /^--max-running-requests \d+$/);
  assert.ok(flag.lines === 1 && flag.h < 1.6 * flag.lh, JSON.stringify(flag));
  // The offload plan in Chinese: "（--fit-target）" stays whole.
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=zh`);
  await page.waitForSelector('#plan:not([hidden]) li[data-layers]');
  assert.match(await page.textContent('#plan'), /（--fit-target）/);
  assert.deepEqual(await badBreaks(page, '#plan, #summary, #commands'), []);
  // English: an Ollama tag in a command ("meta-llama-3-8b-q4_K_M") stays whole.
  await open(page, `${env.url}?model=meta-llama/Meta-Llama-3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#commands pre');
  assert.deepEqual(await badBreaks(page, '#commands, #summary, #plug-speed'), []);
  // The text is the text: the command copies as written.
  assert.match(await page.textContent('#commands'), /ollama run meta-llama-3-8b/i);
  assert.deepEqual(page.problems, []);
});

/**
 * Runs of ink along the middle row of an element as drawn (a solid line is one run, a dashed one
 * several): the pixels of a screenshot of its box and a little around it, read in a blank page.
 * @param {any} page @param {string} sel @param {number} nth
 */
async function inkRuns(page, sel, nth) {
  const el = page.locator(sel).nth(nth);
  await el.scrollIntoViewIfNeeded();
  const b = await el.boundingBox();
  const png = await page.screenshot({ clip: { x: b.x - 3, y: b.y - 3, width: b.width + 6, height: b.height + 6 } });
  const blank = await page.context().newPage();
  const runs = await blank.evaluate(async (/** @type {string} */ b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const x = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    x.drawImage(img, 0, 0);
    const d = x.getImageData(0, 0, c.width, c.height).data;
    const px = (/** @type {number} */ i, /** @type {number} */ j) => [0, 1, 2].map((k) => d[(j * c.width + i) * 4 + k]);
    const bg = px(0, 0);
    const y = Math.floor(c.height / 2);
    let n = 0, ink = false;
    for (let i = 0; i < c.width; i++) {
      const p = px(i, y);
      const on = Math.abs(p[0] - bg[0]) + Math.abs(p[1] - bg[1]) + Math.abs(p[2] - bg[2]) > 60;
      if (on && !ink) n++;
      ink = on;
    }
    return n;
  }, png.toString('base64'));
  await blank.close();
  return runs;
}

test('the accuracy legend draws the ±band dashed and y = x solid, as the plot does, in every language at 390 px and at 1280; the memory chart\'s legend too', async () => {
  // Every language on a phone, where the legend's labels are narrowest; English at 1280 px.
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    for (const opts of lang === 'en' ? [{}, PHONE] : [PHONE]) {
      const page = await env.page(opts);
      await open(page, `${env.url}?view=accuracy&lang=${lang}`);
      await page.waitForSelector('#acc-chart .u-legend .u-series');
      const marks = '#acc-chart .u-legend .u-series:not([hidden]) .u-marker';
      assert.equal(await inkRuns(page, marks, 0), 1, `${lang} ${opts === PHONE ? 390 : 1280}: y = x is one solid line`);
      // The sort menu is for phones only: at 1280 px the header sorts.
      assert.equal(await page.isVisible('#acc-sort'), opts === PHONE);
      assert.ok(await inkRuns(page, marks, 1) >= 2, `${lang} ${opts === PHONE ? 390 : 1280}: the band's mark is dashed`);
      await page.context().close();
    }
  }
  // The memory-over-context chart: "Required" solid, "Usable on device" dashed, as the lines are.
  const page = await env.page(PHONE);
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=es`);
  await page.waitForFunction(() => document.querySelectorAll('#chart .u-legend .u-series').length > 3);
  const names = await page.$$eval('#chart .u-legend .u-series', (s) => s.map((x) => (x.textContent || '').trim()));
  const req = names.findIndex((n) => /^Necesari/.test(n)), use = names.findIndex((n) => /^Utilizable/.test(n));
  assert.ok(req > 0 && use > 0, names.join(' | '));
  assert.equal(await inkRuns(page, '#chart .u-legend .u-series .u-marker', req), 1, 'the required line is solid');
  assert.ok(await inkRuns(page, '#chart .u-legend .u-series .u-marker', use) >= 2, 'the usable line is dashed');
  assert.deepEqual(page.problems, []);
});

test('the accuracy rows on a phone: card labels carry no sort arrow, a row\'s flags are said once, the log axes start at a round value', async () => {
  const page = await env.page(PHONE);
  await open(page, `${env.url}?view=accuracy&lang=en`);
  await page.waitForSelector('#acc-rows tbody tr');
  const rep = await page.evaluate(async () => (await (await fetch('accuracy.json')).json()).accuracy);
  // The header sorts by error (its button says so); the cards' labels are the columns' names.
  const labels = await page.$$eval('#acc-rows tbody tr:first-child :is(td, th)', (cs) => cs.map((c) => c.getAttribute('data-label')));
  assert.ok(labels.includes('Error'), labels.join(' | '));
  assert.ok(labels.every((l) => !/[▲▼]/.test(l || '')), labels.join(' | '));
  assert.match(await page.textContent('#acc-rows thead'), /Error ▼/);
  // The header is out of sight on a phone: a menu sets the order (figures largest first).
  assert.equal(await page.isVisible('#acc-sort'), true);
  assert.equal(await page.$eval('#acc-sort', (s) => /** @type {HTMLSelectElement} */ (s).value), 'acc_col_error');
  await page.selectOption('#acc-sort', 'acc_col_measured');
  const measured = await page.$$eval('#acc-rows tbody tr', (trs) => trs.slice(0, 5).map((tr) => tr.getAttribute('data-row')));
  const byMeasured = [...rep.points].sort((a, b) => b.measured_tps - a.measured_tps).slice(0, 5).map((x) => x.row_id);
  assert.deepEqual(measured, byMeasured);
  await page.selectOption('#acc-sort', 'acc_col_error');
  // Each flag once in a row: the device cell's settings and the backend cell's note share none.
  const flagsOf = (/** @type {string} */ t) => [...t.matchAll(/(?:^|\s)(--?[a-z][\w-]*(?: [^\s-][^\s]*)?)/g)].map((m) => m[1]);
  const rows = await page.$$eval('#acc-rows tbody tr', (trs) => trs.map((tr) => ({
    row: tr.getAttribute('data-row'), device: tr.querySelector('[data-device] .note')?.textContent || '', backend: tr.querySelector('.distinct')?.textContent || '' })));
  const withBoth = rows.filter((r) => r.device && r.backend && flagsOf(r.backend).length);
  assert.ok(withBoth.length >= 4, `${withBoth.length} rows with flags in both cells`);
  for (const r of withBoth) {
    const twice = flagsOf(r.device).filter((f) => flagsOf(r.backend).includes(f));
    assert.deepEqual(twice, [], `${r.row}: "${r.device}" / "${r.backend}"`);
  }
  // Every published flag of such a row is still on it, in one cell or the other.
  const p = rep.points.find((/** @type {any} */ x) => x.row_id === 'bench-0730');
  const r = rows.find((x) => x.row === 'bench-0730');
  assert.ok(p && r);
  for (const f of flagsOf(p.setup.flags)) assert.ok(`${r.device} ${r.backend}`.includes(f), `${f} missing from bench-0730`);
  // The axes: ticks a person reads, from a round start at or below the smallest figure.
  const ticks = String(await page.getAttribute('#acc-chart', 'data-ticks')).split(' | ');
  const values = ticks.map((t) => Number(t.replace(/,/g, '')));
  assert.ok(values.every((v) => Number.isFinite(v) && /^[125]0*$/.test(String(v).replace('.', '').replace(/^0+/, ''))), ticks.join(' | '));
  const all = rep.points.flatMap((/** @type {any} */ x) => [x.measured_tps, x.predicted_tps]);
  assert.ok(values[0] <= Math.min(...all), `${values[0]} above the smallest figure ${Math.min(...all)}`);
  assert.ok(values[0] > Math.min(...all) / 10, `${values[0]}: a decade of nothing`);
  for (let i = 1; i < values.length; i++) assert.ok(values[i] === 10 * values[i - 1] || (i === 1 && values[1] > values[0]), ticks.join(' | '));
  assert.deepEqual(page.problems, []);
});

test('at 390 px nothing runs past the screen or past the box that clips it (the memory-over-context cards\' verdict was cut)', async () => {
  const page = await env.page(PHONE);
  for (const [q, lang, ready] of [
    ['?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768', 'en', '#chart-table tbody tr'],
    ['?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192', 'zh', '#chart-table tbody tr'],
    ['?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64', 'fr', '#chart-table tbody tr'],
    ['?view=accuracy', 'es', '#acc-rows tbody tr'],
  ]) {
    await open(page, `${env.url}${q}&lang=${lang}`);
    await page.waitForSelector(ready, { state: 'attached' });
    const cut = await page.evaluate(() => {
      document.querySelectorAll('#content details').forEach((d) => { /** @type {HTMLDetailsElement} */ (d).open = true; });
      /** @type {string[]} */
      const out = [];
      if (document.documentElement.scrollWidth > innerWidth + 1) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth}px`);
      // Every element, and every run of text (a cell's text is no element of its own).
      /** @type {{el: Element, r: DOMRect, what: string}[]} */
      const boxes = [];
      for (const el of document.querySelectorAll('#content *')) boxes.push({ el, r: el.getBoundingClientRect(), what: (el.textContent || '').trim().slice(0, 40) });
      const tw = document.createTreeWalker(/** @type {Node} */ (document.getElementById('content')), NodeFilter.SHOW_TEXT);
      for (let n = tw.nextNode(); n; n = tw.nextNode()) {
        if (!n.parentElement || !(/** @type {Text} */ (n).data.trim())) continue;
        const rg = document.createRange();
        rg.selectNodeContents(n);
        boxes.push({ el: n.parentElement, r: rg.getBoundingClientRect(), what: `text "${/** @type {Text} */ (n).data.trim().slice(0, 40)}"` });
      }
      for (const { el, r, what } of boxes) {
        if (!el.getClientRects().length || el.closest('.sr, table.stack thead')) continue;
        if (r.width === 0) continue;
        // The nearest box that scrolls (a strip with its own cue) or clips what passes its edges.
        let box = null;
        for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
          const o = getComputedStyle(e).overflowX;
          if (o === 'auto' || o === 'scroll') { box = 'scrolls'; break; }
          if (o === 'hidden' || o === 'clip') { box = e.getBoundingClientRect(); break; }
        }
        if (box === 'scrolls') continue;
        // Nor past the card it is drawn in: a table row shown as a card on a phone, a card, a panel
        // (a details' content clips without saying so in any style a script can read).
        const tr = el.closest('tr');
        const card = tr && getComputedStyle(tr).display === 'block' ? tr : el.closest('.card, .panel');
        const c = card ? card.getBoundingClientRect() : null;
        const right = Math.min(box ? box.right : innerWidth, c ? c.right : innerWidth), left = Math.max(box ? box.left : 0, c ? c.left : 0);
        if (r.right > right + 1 || r.left < left - 1) out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} ${what} ${Math.round(r.left)}–${Math.round(r.right)} past ${Math.round(left)}–${Math.round(right)}`);
      }
      return out;
    });
    assert.deepEqual(cut.slice(0, 10), [], `${q} ${lang}`);
  }
  assert.deepEqual(page.problems, []);
});

// A range is one unit and a figure keeps its word: "81–" / "147 tok/s" and "512" / "tokens" were
// seen parted at 390 px. On a phone's format card the decode figure and its range sit together
// (they were two items of the card's row, at its opposite edges). An unknown device in a link
// stays in the hardware select, marked unknown, instead of blanking it.
test('at 390 px a range never parts at its dash, a figure keeps its word, a format card keeps the range by its value, an unknown device stays in the select', async () => {
  const page = await env.page(PHONE);
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=es`);
  await page.waitForSelector('#matrix tbody tr');
  // "Leyendo una entrada de 512 tokens": the figure and its word on one line.
  const parted = await page.$eval('#k-prefill', (v) => {
    const card = v.closest('.card') || /** @type {Element} */ (v.parentElement);
    const w = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
    let n = w.nextNode();
    while (n && !/\d\stokens/.test(/** @type {Text} */ (n).data)) n = w.nextNode();
    if (!n) return `no figure with its word: ${card.textContent}`;
    const t = /** @type {Text} */ (n).data, i = t.search(/\d\stokens/);
    const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 3);
    return new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))).size;
  });
  assert.equal(parted, 1, '"512 tokens" on one line');
  // The shared formatting, in a box one character wide: every line break it allows shows.
  const lines = await page.evaluate(async () => {
    const f = await import('./format.js');
    const box = document.createElement('div');
    box.style.cssText = 'position:absolute;width:1px;font:16px sans-serif';
    document.body.append(box);
    const out = [f.spreadText({ v: 112, lo: 81, hi: 147 }, 'es'), f.spreadText({ v: 112, lo: 81, hi: 147 }, 'zh')].map((s) => {
      box.textContent = s;
      const n = /** @type {Text} */ (box.firstChild), i = s.indexOf('81');
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, s.indexOf('147') + 3);
      return new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))).size;
    });
    box.remove();
    return out;
  });
  assert.deepEqual(lines, [1, 1], 'the range "81–147" is one piece on a line');
  // The decode card's figure and range: side by side close together, or the range under the value.
  const gaps = await page.$$eval('#matrix tbody tr td .nw', (spans) => spans.filter((s) => /^[(（]/.test(s.textContent || '')).map((range) => {
    const value = /** @type {Element} */ (range.previousElementSibling);
    const a = value.getBoundingClientRect(), b = range.getBoundingClientRect();
    return b.top >= a.bottom - 2 ? 0 : b.left - a.right;
  }));
  assert.ok(gaps.length > 0 && gaps.every((g) => g < 12), `the range beside its value: gaps ${gaps.join(', ')} px`);
  // An unknown device: the select keeps it, marked, and the page says it is unknown (its code).
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=does-not-exist&ctx=8192&lang=fr`);
  const sel = await page.$eval('#hardware', (s) => ({ value: /** @type {HTMLSelectElement} */ (s).value, label: /** @type {HTMLSelectElement} */ (s).selectedOptions[0]?.textContent }));
  assert.equal(sel.value, 'does-not-exist');
  assert.match(sel.label || '', /does-not-exist.*appareil inconnu/);
  assert.equal(await page.$eval('#error', (e) => /** @type {HTMLElement} */ (e).dataset.code), 'unknown_hardware');
  assert.equal(await page.$eval('#error', (e) => /** @type {HTMLElement} */ (e).hidden), false);
});

/**
 * Lines that start inside a word: two letters (or two digits) of Latin, Greek or Cyrillic script on
 * either side of a line's end ("353,408 token" / "s"). Chinese may end a line between any two
 * ideographs, so they are not counted. @param {any} page @param {string} sel
 */
function wordBreaks(page, sel) {
  return page.evaluate((/** @type {string} */ s) => {
    const W = /[A-Za-z0-9\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF]/;
    /** @type {string[]} */
    const out = [];
    for (const root of document.querySelectorAll(s)) {
      const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = tw.nextNode(); n; n = tw.nextNode()) {
        const el = /** @type {Element} */ (n.parentElement);
        if (!el.getClientRects().length || el.closest('.sr')) continue;
        const t = /** @type {Text} */ (n).data;
        /** @type {DOMRect | null} */
        let prev = null;
        for (let i = 0; i < t.length; i++) {
          const rg = document.createRange();
          rg.setStart(n, i); rg.setEnd(n, i + 1);
          const r = rg.getClientRects()[0] || null;
          if (prev && r && i > 0 && W.test(t[i - 1]) && W.test(t[i]) && r.top >= prev.bottom - 2) out.push(`${t.slice(Math.max(0, i - 12), i)}|${t.slice(i, i + 12)}`);
          prev = r;
        }
      }
    }
    return out;
  }, sel);
}

test('at 390 px no word of the engine\'s cards starts a line inside itself ("353,408 token|s"), in en, es, fr and zh', async () => {
  const page = await env.page(PHONE);
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    await open(page, `${env.url}?model=zai-org/GLM-5&quant=FP8&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=${lang}`);
    await page.waitForSelector('#serve-cards:not([hidden]) #k-kv-tokens');
    assert.deepEqual(await wordBreaks(page, '.cards'), [], lang);
  }
  assert.deepEqual(page.problems, []);
});

