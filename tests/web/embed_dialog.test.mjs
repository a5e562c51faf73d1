// The app's "Embed this" dialog: both snippets for the current view, with absolute URLs, and a
// widget snippet that works when pasted into a blank page on another origin. Also the whole
// app, new pieces included (dialog, service worker, manifest), under the strict CSP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { open, otherOrigin, setup } from './helpers.mjs';

let env;
let host;   // a blog on another origin
let hostUrl;
/** @type {Map<string, string>} */
let pages;

before(async () => {
  env = await setup();
  host = await otherOrigin();
  hostUrl = host.url;
  pages = host.pages;
});
after(async () => {
  await env.close();
  await host.close();
});

/** A page that reports CSP violations into page.violations. */
async function watched(opts) {
  const page = await env.page(opts);
  page.violations = [];
  await page.exposeFunction('__cspViolation', (v) => page.violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return page;
}

test('Embed this writes both snippets for the current view, and the widget snippet works on another origin', async () => {
  const page = await watched();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=es`);
  const verdict = await page.getAttribute('#verdict', 'data-verdict');
  assert.equal(verdict, 'offload');
  assert.equal(await page.textContent('#embed-open'), 'Insertar');
  await page.click('#embed-open');
  assert.equal(await page.isVisible('#embed-dialog'), true);
  assert.equal(await page.textContent('#embed-h'), 'Insertar esta estimación');
  const widget = await page.inputValue('#embed-widget');
  const iframe = await page.inputValue('#embed-iframe');
  // Absolute URLs from the page's own location, and the current state in the attributes.
  assert.ok(widget.includes(`<script type="module" src="${env.url}widget.js"></script>`), widget);
  for (const a of ['model="zai-org/GLM-4.5-Air"', 'hardware="nvidia-rtx-4090"', 'quant="Q4_K_M"', 'context="16384"', 'lang="es"', 'ram="64"'])
    assert.ok(widget.includes(a), `${a} in ${widget}`);
  assert.ok(iframe.includes(`<iframe src="${env.url}embed.html?model=zai-org%2FGLM-4.5-Air&amp;hw=nvidia-rtx-4090&amp;quant=Q4_K_M&amp;ctx=16384&amp;lang=es&amp;ram=64"`), iframe);
  assert.ok(iframe.includes(`<script type="module" src="${env.url}embed-host.js"></script>`), iframe);
  // Copy buttons put the snippet on the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url.replace(/\/$/, '') });
  await page.click('button[data-copy="embed-widget"]');
  await page.waitForFunction(() => document.querySelector('#embed-msg').textContent !== '');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), widget);
  await page.click('#embed-close');
  assert.equal(await page.isVisible('#embed-dialog'), false);
  assert.deepEqual(page.violations, []);
  assert.deepEqual(page.problems, []);

  // Pasted into a blank page elsewhere, each snippet shows the same verdict.
  pages.set('/paste-widget.html', `<!doctype html><html><head><title>post</title></head><body>${widget}</body></html>`);
  pages.set('/paste-iframe.html', `<!doctype html><html><head><title>post</title></head><body>${iframe}</body></html>`);
  const blog = await env.page();
  await blog.goto(`${hostUrl}/paste-widget.html`);
  await blog.waitForFunction(() => document.querySelector('will-it-fit')?.dataset.verdict);
  assert.equal(await blog.getAttribute('will-it-fit', 'data-verdict'), verdict);
  const text = await blog.evaluate(() => document.querySelector('will-it-fit').shadowRoot.querySelector('.verdict').textContent);
  assert.match(text, /RAM/);
  await blog.goto(`${hostUrl}/paste-iframe.html`);
  await blog.waitForFunction(() => parseInt(document.querySelector('iframe').style.height, 10) > 80);
  const frame = blog.frames().find((f) => f.url().includes('embed.html'));
  await frame.waitForFunction(() => document.querySelector('#card').dataset.verdict);
  assert.equal(await frame.getAttribute('#card', 'data-verdict'), verdict);
});

test('markup in the state is escaped in the snippets, so pasting them never adds elements', async () => {
  const page = await env.page();
  const evil = '"><img src=x onerror="window.__pwned=1">';
  await page.goto(`${env.url}?model=${encodeURIComponent(evil)}&hw=nvidia-rtx-4090`);
  await page.waitForSelector('#error:not([hidden])');
  // A refused request shows no "Embed this" (nothing to embed); the dialog is opened from code
  // here, so the snippets' escaping is still checked on the state that carries the markup.
  assert.equal(await page.isVisible('#embed-open'), false);
  await page.$eval('#embed-open', (b) => /** @type {HTMLButtonElement} */ (b).click());
  const widget = await page.inputValue('#embed-widget');
  assert.ok(widget.includes('model="&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;"'), widget);
  pages.set('/paste-evil.html', `<!doctype html><html><body>${widget}${await page.inputValue('#embed-iframe')}</body></html>`);
  const blog = await env.page();
  await blog.goto(`${hostUrl}/paste-evil.html`);
  await blog.waitForFunction(() => document.querySelector('will-it-fit')?.dataset.verdict === 'error');
  assert.equal(await blog.evaluate(() => document.querySelectorAll('img').length), 0);
  assert.equal(await blog.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
});

test('the app, its embed dialog, manifest and service worker run under the strict CSP with no violation', async () => {
  const page = await watched({ serviceWorkers: 'allow' });
  const resp = await page.goto(`${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-3090&ctx=8192`);
  assert.match(resp.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(resp.headers()['content-security-policy'], /'unsafe-inline'|'unsafe-eval'|blob:/);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.evaluate(async () => !!(await navigator.serviceWorker.ready).active), true);
  await page.click('#embed-open');
  await page.click('#embed-close');
  await page.click('#tab-model');
  await page.waitForSelector('#mp-quants table');
  await page.click('#tab-accuracy');
  await page.waitForSelector('#view-accuracy:not([hidden])');
  // The manifest is served and names icons that exist.
  const manifest = await (await page.request.get(`${env.url}manifest.webmanifest`)).json();
  for (const icon of manifest.icons) {
    const r = await page.request.get(new URL(icon.src, env.url).href);
    assert.equal(r.status(), 200, icon.src);
    if (icon.type === 'image/png') assert.deepEqual([...(await r.body()).subarray(1, 4)], [0x50, 0x4e, 0x47]);
  }
  await page.waitForTimeout(500);
  assert.deepEqual(page.violations, []);
  assert.deepEqual(page.problems, []);
});
