// The ways to use the app away from its server: the one-file page opened from file:// with the
// network cut off, and the installed service worker answering after the server has gone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const offlineFile = path.join(root, 'dist', 'willitfit-offline.html');

test('the one-file page opened from file:// with every network request blocked shows a verdict', async () => {
  assert.ok(fs.existsSync(offlineFile), 'the build writes dist/willitfit-offline.html');
  const page = await env.page();
  const attempted = [];
  // Anything that is not the file itself or an in-memory blob/data URL would be the network.
  const local = (/** @type {string} */ u) => /^(file|blob|data):/.test(u);
  await page.context().route('**', (r) => (local(r.request().url()) ? r.continue() : (attempted.push(r.request().url()), r.abort())));
  page.on('request', (r) => { if (!local(r.url())) attempted.push(r.url()); });
  const violations = [];
  await page.exposeFunction('__cspViolation', (v) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const url = `${pathToFileURL(offlineFile).href}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192&lang=fr`;
  await open(page, url);
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'fits');
  assert.match(await page.textContent('#verdict-text'), /marge/);   // the French strings are inside too
  assert.equal(await page.getAttribute('body', 'data-engine'), 'main');
  // The sections that run many estimates and draw the chart (uPlot, inlined) work too.
  await page.waitForSelector('#chart canvas');
  await page.waitForSelector('#matrix table');
  // Nothing that needs a server is offered in the offline copy.
  assert.equal(await page.isVisible('#embed-open'), false);
  assert.equal(await page.isVisible('#offline-link'), false);
  assert.deepEqual(attempted, []);
  assert.deepEqual(violations, []);
  assert.deepEqual(page.problems, []);
});

test('the hosted app offers the offline page as a download, and the file it links is the one-file page', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&hw=nvidia-rtx-4090&lang=es`);
  const link = page.locator('#offline-link');
  assert.equal(await link.isVisible(), true);
  assert.equal(await link.textContent(), 'Descargar para usar sin conexión');
  assert.equal(await link.getAttribute('download'), 'willitfit-offline.html');
  const hint = await page.textContent(`#${await link.getAttribute('aria-describedby')}`);
  assert.match(hint, /HTML/);
  const res = await page.request.get(new URL(await link.getAttribute('href'), page.url()).href);
  assert.equal(res.status(), 200);
  const body = await res.text();
  assert.match(body, /<script type="module">/);
  assert.doesNotMatch(body, /<script[^>]+src=/, 'no script is loaded from a file beside it');
  assert.doesNotMatch(body, /<link[^>]+stylesheet/, 'no stylesheet is loaded from a file beside it');
});

test('the service worker installs, and the app reloads and answers with the network gone', async () => {
  const page = await env.page({ serviceWorkers: 'allow' });
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192`);
  const version = await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    const keys = await caches.keys();
    return { active: !!reg.active, keys };
  });
  assert.equal(version.active, true);
  assert.equal(version.keys.length, 1);
  assert.match(version.keys[0], /^willitfit-[0-9a-f]{16}$/);
  // The cache name is the build's hash of the assembled files, as written into sw.js.
  const sw = fs.readFileSync(path.join(root, 'dist', 'sw.js'), 'utf8');
  assert.ok(sw.includes(JSON.stringify(version.keys[0].slice('willitfit-'.length))));
  await page.context().setOffline(true);
  // Another view than the first one (index.html is cached once, whatever its query string).
  await page.goto(`${env.url}?model=Qwen/Qwen3-8B&quant=Q8_0&hw=nvidia-rtx-3090&ctx=4096`);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'fits');
  assert.equal(await page.evaluate(() => navigator.onLine), false);
  await page.context().setOffline(false);
});

test('an old cache is deleted when a new version of the service worker activates', async () => {
  const page = await env.page({ serviceWorkers: 'allow' });
  // A page of the same origin that registers no worker leaves a cache from an "older build".
  await page.goto(`${env.url}embed.html`);
  await page.evaluate(async () => { await caches.open('willitfit-0000000000000000'); });
  assert.deepEqual(await page.evaluate(() => caches.keys()), ['willitfit-0000000000000000']);
  await open(page, `${env.url}?model=Qwen/Qwen3-8B`);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(async () => !(await caches.keys()).includes('willitfit-0000000000000000'));
  const keys = await page.evaluate(() => caches.keys());
  assert.equal(keys.length, 1);
  assert.match(keys[0], /^willitfit-[0-9a-f]{16}$/);
});
