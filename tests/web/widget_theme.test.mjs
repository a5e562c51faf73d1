// The embed card's colour theme is the host's choice: light by default (a dark card on a light
// host page, seen in the widget demo, when it followed the system), theme=dark pins dark,
// theme=auto follows the reader's system; the verdict colours stay the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const Q = 'embed.html?model=zai-org/GLM-4.5-Air&hw=nvidia-rtx-4090&quant=Q4_K_M&ctx=8192&ram=64';
/** Card background and verdict colour once the card has its verdict. @param {any} page */
const colours = (page) => page.evaluate(() => {
  const root = /** @type {any} */ (document.getElementById('card')).shadowRoot;
  return { bg: getComputedStyle(root.querySelector('.card')).backgroundColor, verdict: getComputedStyle(root.querySelector('.verdict')).backgroundColor };
});
const dark = (/** @type {string} */ rgb) => rgb.match(/\d+/g).slice(0, 3).map(Number).reduce((a, b) => a + b, 0) < 200;

test('the embed is light by default whatever the system, follows the system with theme=auto, and theme=light or theme=dark pins it', async () => {
  for (const [query, scheme, wantDark] of [['', 'dark', false], ['', 'light', false], ['&theme=dark', 'light', true], ['&theme=light', 'dark', false],
    ['&theme=auto', 'dark', true], ['&theme=auto', 'light', false]]) {
    const page = await env.page({ colorScheme: scheme });
    await page.goto(`${env.url}${Q}${query}`);
    await page.waitForFunction(() => document.getElementById('card')?.dataset.verdict === 'offload');
    const c = await colours(page);
    assert.equal(dark(c.bg), wantDark, `${query || 'default'} under ${scheme}: ${c.bg}`);
    assert.equal(c.verdict, 'rgb(180, 84, 26)', 'the offload colour does not change with the theme');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }
});
