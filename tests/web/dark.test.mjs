// The dark theme in Spanish and French on a phone: text, tags and badges read against what they
// sit on (axe's colour-contrast rule over the whole page), and nothing scrolls sideways.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, scrollsSideways, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

/** axe's colour-contrast findings on the page as it is: the element and its two colours. @param {any} page */
async function contrast(page) {
  await page.addScriptTag({ path: path.join(root, 'node_modules', 'axe-core', 'axe.min.js') });
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { runOnly: ['color-contrast'], resultTypes: ['violations'] });
    return r.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.any[0]?.message || ''}`));
  });
}

// Two RTX 3090s (a grey tag says which segment of card is left out of a count), an offloaded MoE
// (the plan, its picks and cloud offers), and a device page (its list of models and their tags).
const PAGES = [
  '?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192',
  '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64',
  '?view=device&hw=nvidia-rtx-4090&ram=0',
];

for (const lang of ['es', 'fr']) {
  test(`dark theme at 390 px (${lang}): every text, tag and badge passes colour contrast`, async () => {
    const page = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark', bypassCSP: true });
    /** @type {string[]} */
    const bad = [];
    let grey = 0;
    for (const q of PAGES) {
      await open(page, `${env.url}${q}&lang=${lang}`);
      await page.waitForFunction(() => ![...document.querySelectorAll('[data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent), null, { timeout: 180000 });
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(19, 20, 22)', `${q}: the dark theme is on`);
      grey += await page.$$eval('.tag.segment-left', (xs) => xs.filter((x) => /** @type {HTMLElement} */ (x).offsetParent).length);
      bad.push(...(await contrast(page)).map((x) => `${q} ${x}`));
      assert.equal(await scrollsSideways(page), false, q);
    }
    assert.ok(grey > 0, 'a grey tag was on screen');
    assert.deepEqual(bad, []);
    await page.context().close();
  });
}

/**
 * In the page: each chart legend's mark in `sel` with its colour's contrast against the panel
 * (WCAG's ratio of relative luminances); a mark drawn as a line or a box takes its series' colour.
 * @param {string} sel
 */
function legendContrast(sel) {
  /** @param {string} c an rgb() colour @returns {number} */
  const lum = (c) => {
    const [r, g, b] = (c.match(/[\d.]+/g) || []).slice(0, 3).map((x) => Number(x) / 255).map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  /** The colour an element is drawn on: its own background or its nearest ancestor's. @param {Element | null} el */
  const drawnOn = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
    }
    return 'rgb(255, 255, 255)';
  };
  const panel = lum(drawnOn(document.querySelector(sel)));
  return [...document.querySelectorAll(`${sel} .u-legend .u-series`)].filter((s) => !(/** @type {HTMLElement} */ (s).hidden) && s.querySelector('.u-marker')).map((s) => {
    const m = /** @type {HTMLElement} */ (s.querySelector('.u-marker'));
    const cs = getComputedStyle(m);
    const line = m.classList.contains('line-mark');
    const color = line ? cs.getPropertyValue('--mark').trim() : cs.borderTopColor;
    const probe = document.createElement('i');
    probe.style.color = color;
    document.body.append(probe);
    const rgb = getComputedStyle(probe).color;
    probe.remove();
    const [a, b] = [lum(rgb), panel].sort((x, y) => y - x);
    return { label: s.textContent?.trim() || '', color: rgb, ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100 };
  });
}

test('dark theme (fr): every chart\'s lines and marks stand out from the panel at 3:1 or more (memory by context, rent or buy, accuracy)', async () => {
  const page = await env.page({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
  /** @type {{label: string, color: string, ratio: number, where: string}[]} */
  const marks = [];
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=fr`);
  await page.waitForSelector('#chart .u-legend .u-series', { state: 'attached' });
  await page.waitForSelector('#rvb-chart .u-legend .u-series', { state: 'attached' });
  marks.push(...(await page.evaluate(legendContrast, '#chart')).map((x) => ({ ...x, where: 'memory' })));
  marks.push(...(await page.evaluate(legendContrast, '#rvb-chart')).map((x) => ({ ...x, where: 'rent or buy' })));
  await open(page, `${env.url}?view=accuracy&lang=fr`);
  await page.waitForSelector('#acc-chart .u-legend .u-series', { state: 'attached' });
  marks.push(...(await page.evaluate(legendContrast, '#acc-chart')).map((x) => ({ ...x, where: 'accuracy' })));
  for (const w of ['memory', 'rent or buy', 'accuracy']) assert.ok(marks.filter((x) => x.where === w).length >= 2, `${w}: ${JSON.stringify(marks)}`);
  assert.deepEqual(marks.filter((x) => !(x.ratio >= 3)), []);
  await page.context().close();
});

/**
 * Poll until every legend mark in `sel` stands out from its panel at 3:1 or more, or time out; the
 * marks as last read. @param {any} page @param {string} sel
 */
async function marksReadable(page, sel) {
  /** @type {{label: string, color: string, ratio: number}[]} */
  let marks = [];
  for (let i = 0; i < 40; i++) {
    marks = await page.evaluate(legendContrast, sel);
    if (marks.length >= 2 && marks.every((x) => x.ratio >= 3)) break;
    await page.waitForTimeout(250);
  }
  return marks;
}

test('the theme changing while a page is open (the system\'s, or the button on the accuracy page): the charts are drawn again in its colours', async () => {
  const page = await env.page({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&lang=es`);
  await page.waitForSelector('#chart .u-legend .u-series', { state: 'attached' });
  assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'false');
  // An OS that turns dark at sunset: no theme was chosen on the page, so the page follows it.
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(19, 20, 22)', 'the dark theme is on');
  const memory = await marksReadable(page, '#chart');
  assert.ok(memory.length >= 3, JSON.stringify(memory));
  assert.deepEqual(memory.filter((x) => !(x.ratio >= 3)), [], 'the memory chart\'s lines after the system turned dark');
  assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'true', 'the theme button says the dark theme is on');

  // The accuracy page, switched with its button: the plot is drawn again, the table stays.
  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, `${env.url}?view=accuracy&lang=es`);
  await page.waitForSelector('#acc-chart .u-legend .u-series', { state: 'attached' });
  const rows = await page.$$eval('#acc-body tr', (xs) => xs.length);
  await page.click('#theme');
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(19, 20, 22)', 'the button turned the dark theme on');
  const acc = await marksReadable(page, '#acc-chart');
  assert.deepEqual(acc.filter((x) => !(x.ratio >= 3)), [], 'the accuracy plot after the button');
  assert.equal(await page.$$eval('#acc-body tr', (xs) => xs.length), rows, 'the accuracy tables are as they were');
  await page.context().close();
});
