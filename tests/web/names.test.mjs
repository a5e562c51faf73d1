// A name and its spacing as a person reads them on a phone: a device's or a model's name never
// parts between its series and its number ("GeForce RTX" / "4090", "M3" / "Ultra") in the widget's
// title, a pair page's heading or a device page's title, in English and Chinese, with nothing
// scrolling sideways; and Chinese text never sets an ASCII space beside a full-width mark
// （）。，：；、 (the home page's answer, a pair page, the widget and a model page).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { open, scrollsSideways, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/**
 * In the page: each match of `pattern` in the text of the elements `sel` (in a widget's shadow
 * root too), with the number of lines its characters are drawn on (a Range over the text nodes,
 * measured by getClientRects).
 * @param {{sel: string, pattern: string}} arg
 */
function linesOfNames({ sel, pattern }) {
  const roots = [document, ...[...document.querySelectorAll('will-it-fit')].map((w) => w.shadowRoot).filter(Boolean)];
  const out = [];
  for (const root of roots) {
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(sel))) {
      if (!el.getClientRects().length) continue;
      /** @type {Text[]} */
      const nodes = [];
      const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = w.nextNode(); n; n = w.nextNode()) nodes.push(/** @type {Text} */ (n));
      const text = nodes.map((n) => n.data).join('');
      /** The text node and offset of a character of the element's text. @param {number} i */
      const at = (i) => {
        for (const n of nodes) { if (i <= n.data.length) return /** @type {[Text, number]} */ ([n, i]); i -= n.data.length; }
        throw new Error('past the end');
      };
      for (const m of text.matchAll(new RegExp(pattern, 'g'))) {
        const r = document.createRange();
        r.setStart(...at(/** @type {number} */ (m.index)));
        r.setEnd(...at(/** @type {number} */ (m.index) + m[0].length));
        const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
        out.push({ name: m[0], lines: tops.size, in: el.id || el.className });
      }
    }
  }
  return out;
}

// The series word and the number (or tier) after it, as the catalog's names have them.
const NAMES = 'RTX 4090|M3 Ultra|M4 Max|H200 SXM|Llama 3\\.1 (?:8|70)B|GLM-4\\.5 Air';

for (const lang of ['en', 'zh']) {
  test(`at 390 px (${lang}) a device's name keeps its series and number on one line in the widget, a pair page's heading and a device page's title`, async () => {
    const page = await env.page(PHONE);
    /** @type {{name: string, lines: number, in: string, where: string}[]} */
    const seen = [];
    const look = async (/** @type {string} */ where, /** @type {string} */ sel) => {
      for (const x of await page.evaluate(linesOfNames, { sel, pattern: NAMES })) seen.push({ ...x, where });
      assert.equal(await scrollsSideways(page), false, `${where}: nothing scrolls sideways`);
    };
    // The widget's title: "Llama 3.1 8B Instruct · Q4_K_M · GeForce RTX 4090" parted "RTX" / "4090"
    // at 390 px, with a draft model or without; a Mac Studio's product label; two RTX 4090s; eight H200s.
    for (const q of ['model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&quant=Q4_K_M&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct',
      'model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&quant=Q4_K_M&ctx=8192',
      'model=meta-llama/Llama-3.1-70B-Instruct&hw=apple-m3-ultra-80c-gpu-512gb&quant=Q4_K_M&ctx=32768&draft=meta-llama/Llama-3.2-1B-Instruct',
      'model=zai-org/GLM-4.5-Air&hw=nvidia-rtx-4090&quant=Q4_K_M&ctx=8192&ram=64',
      'model=meta-llama/Llama-3.1-70B-Instruct&hw=nvidia-rtx-4090&count=2&quant=Q4_K_M&ctx=8192',
      'model=meta-llama/Llama-3.1-70B-Instruct&hw=nvidia-h200-sxm&count=8&quant=Q4_K_M&ctx=8192']) {
      await page.goto(`${env.url}embed.html?${q}&lang=${lang}`);
      await page.waitForFunction(() => /** @type {HTMLElement | null} */ (document.querySelector('#card'))?.dataset.verdict === 'fits'
        || ['tight', 'offload'].includes(/** @type {HTMLElement} */ (document.querySelector('#card'))?.dataset.verdict || ''), null, { timeout: 120000 });
      await look(`widget ${q}`, '.title');
    }
    // A pair page as it is served, then as the app draws it; a device page.
    await page.goto(`${env.url}${lang}/glm-4.5-air/mac-studio-m3-ultra-512gb/`);
    await look('pair page, served', 'h1, #setup-line');
    await page.waitForSelector('body[data-ready="true"]', { timeout: 180000 });
    await look('pair page', 'h1, #setup-line, #tab-device');
    await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&ram=0&lang=${lang}`);
    await page.waitForSelector('#dp-title:not(:empty)');
    await look('device page', '#dp-title, #dp-buy-title');
    // Every page above named a device, and the widget named each one it was given.
    for (const n of ['M3 Ultra', 'RTX 4090', 'H200 SXM', 'GLM-4.5 Air']) assert.ok(seen.some((x) => x.name === n && x.where.startsWith('widget')), `${lang}: the widget names ${n}`);
    assert.ok(seen.some((x) => x.where === 'device page' && x.name === 'RTX 4090'), `${lang}: the device page names the RTX 4090`);
    assert.ok(seen.some((x) => x.where === 'pair page' && x.name === 'M3 Ultra'), `${lang}: the pair page names the M3 Ultra`);
    assert.deepEqual(seen.filter((x) => x.lines !== 1), [], `${lang}: no name parts across lines`);
    await page.context().close();
  });
}

/**
 * In the page: each ASCII space beside a full-width mark in the text of `sel` (and of every widget's
 * shadow root), as the text is drawn: the text nodes of one block run together, white space
 * collapsed as the page lays it out. @param {string} sel
 */
function spacesByFullWidth(sel) {
  /** @type {(Element | ShadowRoot)[]} */
  const roots = [...document.querySelectorAll(sel), ...[...document.querySelectorAll('will-it-fit')].map((w) => w.shadowRoot).filter((r) => r !== null)];
  /** @type {Map<Element, string>} */
  const blocks = new Map();
  /** The box a text runs in: its nearest ancestor that is not inline. @param {Text} n */
  const blockOf = (n) => {
    for (let e = n.parentElement; e; e = e.parentElement) {
      const d = getComputedStyle(e).display;
      if (!d.startsWith('inline') && d !== 'contents') return e;
    }
    return null;
  };
  let texts = 0;
  for (const root of roots) {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      const t = /** @type {Text} */ (n);
      if (t.parentElement?.closest('script, style, template')) continue;
      const b = blockOf(t);
      if (!b) continue;
      texts++;
      blocks.set(b, (blocks.get(b) || '') + t.data);
    }
  }
  const bad = [];
  for (const [b, s] of blocks) {
    const drawn = s.replace(/[\t\n\r ]+/g, ' ');
    for (const m of drawn.matchAll(/.{0,16}(?: [（）。，：；、]|[（）。，：；、] ).{0,16}/gu)) bad.push(`${b.tagName.toLowerCase()}${b.id ? `#${b.id}` : ''}: «${m[0]}»`);
  }
  return { bad, texts };
}

test('Chinese text sets no ASCII space beside a full-width mark: the home page\'s answer, a pair page, the widget and a model page', async () => {
  const page = await env.page(PHONE);
  const pending = () => page.waitForFunction(() => ![...document.querySelectorAll('[data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent), null, { timeout: 180000 });
  /** @type {string[]} */
  const bad = [];
  const look = async (/** @type {string} */ where, /** @type {string} */ sel) => {
    // Closed disclosures are opened first: what they hold is read as well.
    await page.evaluate(() => document.querySelectorAll('details:not([open])').forEach((d) => d.setAttribute('open', '')));
    const r = await page.evaluate(spacesByFullWidth, sel);
    assert.ok(r.texts > 20, `${where}: the text was read (${r.texts} texts)`);
    bad.push(...r.bad.map((x) => `${where} ${x}`));
  };
  // An answer with the most to say: offloaded to RAM (the plan, its hardware picks, rent or buy,
  // fine-tuning), then one that fits.
  for (const q of ['?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64', '?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192']) {
    await open(page, `${env.url}${q}&lang=zh`);
    await pending();
    await look(`home ${q}`, '#content');
  }
  await open(page, `${env.url}zh/glm-4.5-air/nvidia-rtx-4090/`);
  await pending();
  await look('pair page', '#content');
  await open(page, `${env.url}?view=model&model=zai-org/GLM-4.5-Air&lang=zh`);
  await pending();
  await look('model page', '#content');
  // The widget with a draft model and a device whose name carries a scope in full-width
  // parentheses ("NVIDIA GB200（单块 GPU）"), and with its cost line.
  for (const q of ['model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct',
    'model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-gb200-gpu&ctx=8192']) {
    await page.goto(`${env.url}embed.html?${q}&lang=zh`);
    await page.waitForFunction(() => /** @type {HTMLElement | null} */ (document.querySelector('#card'))?.dataset.verdict, null, { timeout: 120000 });
    const r = await page.evaluate(spacesByFullWidth, 'body');
    assert.match(r.bad.join('') + await page.evaluate(() => document.querySelector('will-it-fit')?.shadowRoot?.textContent || ''), /（/, 'the widget says something in full-width parentheses');
    bad.push(...r.bad.map((x) => `widget ${q} ${x}`));
  }
  assert.deepEqual(bad, []);
  await page.context().close();
});
