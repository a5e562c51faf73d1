// Issue 16, "a page a person trusts": what a person sees is laid out whole (no button on a line of
// its own, no cut name, no line that starts with closing punctuation or holds a lone "@", no gap
// in a link's underline), and the decisions a view shows come from the core (the model page's
// setups, the devices to compare, what a change achieves, the format of a refused request).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { core, pageSuite, root } from './helpers.mjs';

const env = pageSuite();
const PHONE = { viewport: { width: 390, height: 844 } };

/**
 * The lines an element's text is laid out on, as the browser placed each character (a new line
 * wherever a character starts at a new top or left of the previous one).
 * @param {import('playwright-core').Page} page @param {string} selector
 * @returns {Promise<string[][]>} for each element matched, its lines
 */
function linesOf(page, selector) {
  return page.$$eval(selector, (els) => els.filter((e) => /** @type {HTMLElement} */ (e).offsetParent).map((el) => {
    /** @type {{top: number, right: number, text: string}[]} */
    const rows = [];
    const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = /** @type {Text | null} */ (w.nextNode()); t; t = /** @type {Text | null} */ (w.nextNode())) {
      for (let i = 0; i < t.data.length; i++) {
        const r = document.createRange();
        r.setStart(t, i);
        r.setEnd(t, i + 1);
        const rc = r.getClientRects()[0];
        if (!rc || rc.width === 0) continue;
        const last = rows[rows.length - 1];
        if (last && Math.abs(last.top - rc.top) < 4 && rc.left >= last.right - 2) { last.text += t.data[i]; last.right = rc.right; }
        else rows.push({ top: rc.top, right: rc.right, text: t.data[i] });
      }
    }
    return rows.map((x) => x.text);
  }));
}

test('on a phone the setup summary keeps "Change" on its row beside the title', async () => {
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    const page = await env.at(`?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4060&ctx=8192&lang=${lang}`, PHONE);
    await page.waitForFunction(() => (document.getElementById('setup-line')?.textContent || '').length > 0);
    const box = await page.evaluate(() => {
      const s = /** @type {HTMLElement} */ (document.getElementById('setup-summary'));
      const h2 = /** @type {HTMLElement} */ (s.querySelector('h2')).getBoundingClientRect();
      const ch = /** @type {HTMLElement} */ (s.querySelector('.setup-change')).getBoundingClientRect();
      return { h2Top: h2.top, h2Bottom: h2.bottom, chTop: ch.top, chRight: ch.right, right: s.getBoundingClientRect().right, w: ch.width };
    });
    assert.ok(box.w > 0, `${lang}: "Change" is shown`);
    assert.ok(box.chTop < box.h2Bottom, `${lang}: "Change" starts below the title (${box.chTop} >= ${box.h2Bottom})`);
    assert.ok(box.chRight <= box.right + 1, `${lang}: "Change" runs past the summary`);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }
});

test('on a phone the simulator\'s Start and Stop stay beside the prompt select, each on one line (es, fr)', async () => {
  for (const lang of ['es', 'fr', 'en']) {
    const page = await env.at(`?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=${lang}`, PHONE);
    await page.waitForSelector('#plug-sim .sim-controls button');
    const rows = await page.$$eval('#plug-sim .sim-controls > *', (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { top: Math.round(r.top), bottom: Math.round(r.bottom), h: r.height, text: e.textContent };
    }));
    assert.equal(new Set(rows.map((r) => r.bottom)).size, 1, `${lang}: the controls sit on one row: ${JSON.stringify(rows)}`);
    for (const lines of await linesOf(page, '#plug-sim .sim-controls button')) assert.equal(lines.length, 1, `${lang}: a button wraps: ${lines.join(' / ')}`);
    await page.context().close();
  }
});

test('at 360 and 390 px no text runs past its box: the simulator\'s labels and a cloud offer\'s cost per million tokens with its range (es, fr, en)', async () => {
  // One load per language, laid out at 360 px and then at 390 (the page reflows on the resize as
  // on a phone turned or a window narrowed; the boxes are measured after each layout).
  for (const lang of ['es', 'fr', 'en']) {
    const page = await env.at(`?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=${lang}`, { viewport: { width: 360, height: 800 } });
    await page.waitForSelector('#plug-sim .sim-stats .card .k');
    await page.waitForSelector('#cloud-table td .mtok .v-range', { state: 'attached' });
    for (const width of [360, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      // A box whose content is wider than it (a word or a kept-whole range past its edge), and a
      // value's right edge past its card's.
      const over = await page.evaluate(() => {
        /** @type {string[]} */
        const out = [];
        for (const el of document.querySelectorAll('#plug-sim .sim-stats .card .k, #plug-sim .sim-stats .card, #cloud-table td')) {
          const e = /** @type {HTMLElement} */ (el);
          if (e.offsetParent && e.scrollWidth > e.clientWidth + 1) out.push(`${e.className || e.tagName}: ${e.scrollWidth} > ${e.clientWidth} "${e.textContent}"`);
        }
        for (const r of document.querySelectorAll('#cloud-table .mtok .v-range')) {
          const td = /** @type {HTMLElement} */ (r.closest('td'));
          if (td.offsetParent && r.getBoundingClientRect().right > td.getBoundingClientRect().right + 1) out.push(`range past its cell: "${r.textContent}"`);
        }
        return out;
      });
      assert.ok((await page.$$('#cloud-table td .mtok')).length > 0, `${lang} ${width}: the cloud table lists offers`);
      assert.deepEqual(over, [], `${lang} at ${width} px`);
    }
    await page.context().close();
  }
});

test('a checkbox field starts at its field\'s left edge, in Chinese as in English', async () => {
  for (const lang of ['zh', 'en']) {
    for (const opts of [PHONE, undefined]) {
      const page = await env.at(`?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=${lang}`, opts);
      await page.waitForSelector('#ft-ckpt');
      const gap = await page.$eval('#ft-ckpt', (i) => i.getBoundingClientRect().left - /** @type {HTMLElement} */ (i.closest('.field')).getBoundingClientRect().left);
      assert.ok(gap >= 0 && gap < 8, `${lang} ${opts ? 390 : 1280}: the checkbox is ${gap} px from its field's left edge`);
      await page.context().close();
    }
  }
});

test('no Chinese line starts with closing punctuation beside a kept-whole piece (the cost note\'s "2025年6月）；")', async () => {
  for (const opts of [PHONE, undefined]) {
    const page = await env.at('?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=zh', opts);
    await page.waitForSelector('#cost-inputs-used');
    await page.waitForFunction(() => ![...document.querySelectorAll('#content [data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent));
    const bad = [];
    for (const lines of await linesOf(page, '#content p, #content li, #content td, #content th, #content label')) {
      lines.forEach((l, i) => { if (i > 0 && /^[）」』】〕》〉，。、；：！？]/.test(l)) bad.push(`${lines[i - 1].slice(-10)} | ${l.slice(0, 12)}`); });
    }
    assert.deepEqual(bad, [], `${opts ? 390 : 1280}`);
    // The piece and its punctuation are one box; the text is unchanged.
    const used = await page.textContent('#cost-inputs-used');
    assert.match(used, /2025年6月）；/, used);
    await page.context().close();
  }
});

test('a link\'s underline runs through its kept-whole pieces', async () => {
  const page = await env.at('?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4060&ctx=8192&lang=en');
  await page.waitForSelector('#fit-list li.fix a');
  const pieces = await page.$$eval('a .whole', (els) => els.filter((e) => /** @type {HTMLElement} */ (e).offsetParent).map((e) => ({
    link: getComputedStyle(/** @type {Element} */ (e.closest('a'))).textDecorationLine, piece: getComputedStyle(e).textDecorationLine, text: e.textContent,
  })));
  assert.ok(pieces.some((p) => p.text === '(--n-gpu-layers' || /--n-gpu-layers/.test(p.text || '')), JSON.stringify(pieces.map((p) => p.text)));
  assert.deepEqual(pieces.filter((p) => p.link.includes('underline') && !p.piece.includes('underline')), []);
  await page.context().close();
});

test('at 1280 px the accuracy table leaves no "@" alone on a line; every table stays inside its section and a source\'s date on one line, in four languages', async () => {
  const page = await env.at('?view=accuracy&lang=en');
  await page.waitForSelector('#view-accuracy table tbody tr td');
  const lone = (await linesOf(page, '#view-accuracy td')).filter((ls) => ls.length > 1 && ls.some((l) => /^\s*@\s*$/.test(l)));
  assert.deepEqual(lone, []);
  assert.ok(await page.$$eval('#view-accuracy td', (tds) => tds.some((t) => / @ d\d+/.test(t.textContent || ''))), 'a test at depth is in the table');
  // The French speculative-decoding table ran 14 px past its section, and its dates broke at a
  // hyphen ("2026-" / "09-03").
  for (const lang of ['en', 'fr', 'es', 'zh']) {
    if (lang !== 'en') await page.goto(`${env.url}?view=accuracy&lang=${lang}`);
    await page.waitForSelector('#acc-spec-rows tbody tr td');
    const past = await page.$$eval('#view-accuracy table', (ts) => ts.filter((t) => t.getClientRects().length).map((t) => {
      const box = /** @type {HTMLElement} */ (t.closest('section, .panel'));
      return { id: t.closest('[id]')?.id, by: t.getBoundingClientRect().right - box.getBoundingClientRect().right };
    }).filter((x) => x.by > 0.5));
    assert.deepEqual(past, [], `${lang}: tables past their section`);
    const dates = (await linesOf(page, '#acc-spec-rows a.src.date'));
    assert.ok(dates.length > 5, `${lang}: the speculative rows cite their sources by date`);
    assert.deepEqual(dates.filter((ls) => ls.length > 1), [], `${lang}: a date on more than one line`);
  }
  await page.context().close();
});

test('at 1280 px the hardware select shows the whole name it holds, a Mac\'s products written under it, and the fine-tuning header stays short', async () => {
  for (const lang of ['en', 'fr']) {
    const page = await env.at(`?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=apple-m4-max-40c-gpu-128gb&ctx=8192&lang=${lang}`);
    const fit = await page.$eval('#hardware', (s) => {
      const sel = /** @type {HTMLSelectElement} */ (s);
      const cs = getComputedStyle(sel);
      const c = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
      c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      return { text: sel.selectedOptions[0].textContent || '', need: c.measureText(sel.selectedOptions[0].textContent || '').width, room: sel.clientWidth - 40 };
    });
    assert.ok(fit.need <= fit.room, `${lang}: "${fit.text}" needs ${fit.need} px, the select has ${fit.room}`);
    assert.match(fit.text, /M4 Max/);
    const full = await page.$eval('#hw-full', (e) => (/** @type {HTMLElement} */ (e).hidden ? '' : e.textContent || ''));
    assert.match(full, /MacBook Pro \/ Mac Studio · M4 Max/, full);
    await page.waitForSelector('#ft-table thead th');
    const heads = await linesOf(page, '#ft-table thead th');
    assert.ok(Math.max(...heads.map((l) => l.length)) <= 3, `${lang}: a header ${heads.map((l) => l.length)} lines tall: ${heads.map((l) => l.join(' / ')).join(' | ')}`);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }
});

test('a refused request keeps a format in the select: the core\'s default for the engine and model, and says the refusal once', async () => {
  const page = await env.at('?model=deepseek-ai/DeepSeek-V4-Flash&hw=apple-m3-ultra-80c-gpu-512gb&engine=mlx&kv=q8_g64&ctx=32768&lang=en');
  await page.waitForSelector('#error:not([hidden])');
  await page.waitForFunction(() => /** @type {HTMLSelectElement} */ (document.getElementById('quant')).selectedIndex >= 0);
  const want = core('defaults', { model: 'deepseek-ai/DeepSeek-V4-Flash' }).engines.mlx.quant;
  assert.equal(await page.inputValue('#quant'), want);
  const code = await page.getAttribute('#error', 'data-code');
  assert.ok(code, 'the refusal has its code');
  // Stated once: one error box, no second sentence of it elsewhere in the result.
  const said = await page.$$eval('#content p', (ps) => ps.filter((p) => /** @type {HTMLElement} */ (p).offsetParent).map((p) => p.textContent || ''));
  const first = (await page.$eval('#error p', (p) => p.textContent || '')).trim();
  assert.equal(said.filter((t) => t.trim() === first).length, 1, said.join('\n'));
  await page.context().close();
});

test('the model page\'s setups and the devices to compare are the core\'s, by code', async () => {
  const page = await env.at('?view=model&model=moonshotai/Kimi-K2.5&lang=en');
  await page.waitForSelector('#mp-setups li');
  const shown = await page.$$eval('#mp-setups li', (lis) => lis.map((l) => ({ id: l.dataset.device, count: Number(l.dataset.count), code: l.dataset.code })));
  assert.ok(shown.length >= 1);
  assert.equal(shown[0].code, 'in_device_memory');
  for (const s of shown) assert.match(String(s.code), /^(in_device_memory|with_system_ram)$/);
  await page.context().close();
  // The compare links: only devices the core's listing offers (compare), never a CPU or an unpriced one.
  const cli = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['list', 'hardware'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const list = JSON.parse(cli.stdout).hardware;
  const offered = new Set(list.filter((d) => d.compare === true).map((d) => d.id));
  const p2 = await env.at('?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en');
  await p2.waitForFunction(() => document.querySelectorAll('#links-devices li').length > 0);
  const ids = await p2.$$eval('#links-devices a', (as) => as.map((a) => new URL(/** @type {HTMLAnchorElement} */ (a).href).searchParams.get('hw') || ''));
  assert.deepEqual(ids.filter((id) => !offered.has(id)), []);
  await p2.context().close();
});

test('"Make it fit" says first what a change achieves, too slow before anything else, in every language', async () => {
  const words = { en: /^still too slow/, es: /^sigue siendo demasiado lento/, fr: /^toujours trop lent/, zh: /^仍然太慢/ };
  for (const [lang, re] of Object.entries(words)) {
    const page = await env.at(`?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4060&ctx=8192&lang=${lang}`);
    await page.waitForSelector('#fit-list li.fix[data-too-slow="1"] .note');
    const note = await page.$eval('#fit-list li.fix[data-too-slow="1"] .note', (n) => n.textContent || '');
    assert.match(note, re, note);
    assert.doesNotMatch(note, /→/, note);
    await page.context().close();
  }
});
