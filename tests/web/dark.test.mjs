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
