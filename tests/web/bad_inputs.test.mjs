// The bad-input table through the page's URL route: each case the URL parameters can express
// shows the structured error ([code @ path]) as text, and nothing injected ever runs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { table, urlOf } from '../js/bad_inputs.mjs';
import { open, setup } from './helpers.mjs';

let env, page;
before(async () => { env = await setup(); page = await env.page(); page.setDefaultTimeout(20000); });
after(async () => { await env.close(); });

const routed = table.cases.map((c) => [c, urlOf(c)]).filter(([, u]) => u);

test('at least 15 bad inputs can be given to the page through its URL', () => {
  assert.ok(routed.length >= 15, `${routed.length}`);
});

for (const [c, query] of routed) {
  test(`page shows ${c.code} @ ${c.path} for ${c.id}`, async () => {
    await open(page, `${env.url}${query}`);
    await page.waitForSelector('#error:not([hidden])');
    const text = await page.textContent('#error');
    assert.ok(text.includes(`[${c.code} @ ${c.path}]`), text);
    assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'error');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    // The page's own plain message, its folded details and (for an id shaped like a Hub repo) its
    // own button to read the repo, its button copying a link to the error and that button's status
    // line, the page's own wrapper that keeps a hyphenated piece on one line (span.whole, text only),
    // and nothing from the input as markup.
    assert.equal(await page.evaluate(() => document.querySelectorAll('#error :not(p, details, summary, button#err-hub, button#err-share, span#err-share-msg, span.whole, span.kw)').length), 0);
    assert.equal(await page.evaluate(() => document.querySelectorAll('#error :is(span.whole, span.kw) :not(span.whole)').length), 0);
  });
}
