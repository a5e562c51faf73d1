// "Save page as" of the hosted app, emulated: the DOM as rendered (page.content(), what a browser
// serializes) written to a file and opened from file:// with the network cut off. The app
// cannot start there; the saved result must stand as it was, with the notice that says what the
// file is and links back to the live view and to the one-file offline page.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

let env;
let dir;
before(async () => {
  env = await setup();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-saved-'));
});
after(async () => {
  await env.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const VIEW = '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=es';

/** Load the view live and return what a save would keep, with the live figures to compare. */
async function saveLive() {
  const page = await env.page();
  await open(page, env.url + VIEW);
  // The later sections too (the chart's table sits in a closed <details>).
  await page.waitForSelector('#chart-table table', { state: 'attached' });
  await page.waitForSelector('#matrix table');
  const live = {
    url: page.url(),
    verdict: await page.textContent('#verdict-text'),
    kind: await page.getAttribute('#verdict', 'data-verdict'),
    total: await page.textContent('#c-total'),
    speed: await page.textContent('#speed-cards'),
    commands: await page.textContent('#commands'),
    // The notice is in the live DOM but not shown: the app defines <wif-snapshot>.
    noticeShown: await page.isVisible('#snapshot'),
  };
  const html = await page.content();
  await page.context().close();
  return { html, live };
}

/** Open a saved file with every request that is not that file (or a sibling file) refused. */
async function openSaved(file) {
  const page = await env.page();
  const network = [];
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.context().route('**', (r) => {
    if (r.request().url().startsWith('file:')) return r.continue();
    network.push(r.request().url());
    return r.abort();
  });
  page.on('request', (r) => { if (!/^(file|data|blob):/.test(r.url())) network.push(r.url()); });
  await page.goto(pathToFileURL(file).href);
  await page.waitForLoadState('load');
  await page.waitForTimeout(500);   // give any script that could start the time to do damage
  return { page, network, errors };
}

test('a saved copy of a view opened from file:// shows its verdict, its figures and the snapshot notice', async () => {
  const { html, live } = await saveLive();
  assert.equal(live.noticeShown, false, 'the live app does not show the saved-copy notice');
  assert.match(live.verdict, /\S/);
  const file = path.join(dir, 'willitfit.html');
  fs.writeFileSync(file, html);
  const { page, network, errors } = await openSaved(file);

  // The result stands as static content, exactly as it was rendered.
  assert.equal(await page.textContent('#verdict-text'), live.verdict);
  assert.equal(await page.textContent('#c-total'), live.total);
  assert.equal(await page.textContent('#speed-cards'), live.speed);
  assert.equal(await page.textContent('#commands'), live.commands);
  assert.ok(await page.isVisible('#verdict-text'));
  assert.ok((await page.$$('#chart-table table tbody tr')).length > 2, 'the chart keeps its data as a table');

  // The notice, in the language of the view, with its date and both links.
  assert.ok(await page.isVisible('#snapshot'));
  const notice = await page.textContent('#snapshot');
  assert.match(notice, /Copia guardada/);
  assert.match(notice, /instantánea/);
  const iso = await page.getAttribute('#snapshot time', 'datetime');
  assert.ok(Math.abs(Date.parse(iso) - Date.now()) < 10 * 60 * 1000, `the snapshot is dated when it was computed (${iso})`);
  const links = await page.$$eval('#snapshot a', (as) => as.map((a) => ({ href: a.href, text: a.textContent })));
  assert.equal(links.length, 2);
  assert.equal(links[0].href, live.url, 'the first link is the hosted URL of this exact view');
  assert.equal(links[0].text, 'Abrir esta vista en la aplicación');
  assert.equal(links[1].href, `${env.url}willitfit-offline.html`);

  assert.deepEqual(network, []);
  assert.deepEqual(errors, []);
});

test('a "complete" save (the page with the site files beside it) keeps the notice and its styles, and the app does not overwrite the result', async () => {
  const { html, live } = await saveLive();
  // Everything the browser would save beside the page, and more: the whole site.
  const site = path.join(dir, 'complete');
  fs.cpSync(path.join(root, 'dist'), site, { recursive: true });
  const file = path.join(site, 'saved.html');
  fs.writeFileSync(file, html);
  const { page, network, errors } = await openSaved(file);
  assert.equal(await page.textContent('#verdict-text'), live.verdict);
  assert.ok(await page.isVisible('#snapshot'));
  // styles.css applied: the notice is a block with the accent border, and the dead controls are put away.
  assert.equal(await page.$eval('#snapshot', (el) => getComputedStyle(el).display), 'block');
  assert.equal(await page.isVisible('#detect'), false);
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), live.kind);
  assert.notEqual(live.kind, 'pending');
  assert.deepEqual(network, []);
  assert.deepEqual(errors, []);
});

test('with scripts off the page says that it needs JavaScript, in the language of the view', async () => {
  const { html } = await saveLive();
  const file = path.join(dir, 'noscript.html');
  fs.writeFileSync(file, html);
  const ctx = await env.browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(pathToFileURL(file).href);
  assert.match(await page.textContent('main'), /necesita JavaScript y WebAssembly/);
  assert.ok(await page.isVisible('#snapshot'));
  assert.match(await page.textContent('#verdict-text'), /\S/);
  await ctx.close();
});

test('a saved copy of a prerendered page (scripts/prerender.mjs) after the app took it over is a complete document', async () => {
  const PAGE = 'es/glm-4.5-air/mac-studio-m3-ultra-512gb/';
  const page = await env.page();
  await open(page, env.url + PAGE);
  await page.waitForSelector('#matrix table');
  const live = {
    url: page.url(),
    title: await page.title(),
    verdict: await page.textContent('#verdict-text'),
    total: await page.textContent('#c-total'),
    faq: await page.textContent('#faq-main'),
  };
  // The app took the page over in place: same address, the state the page names.
  assert.equal(live.url, env.url + PAGE);
  assert.match(live.title, /GLM-4\.5 Air/);
  const html = await page.content();
  await page.context().close();
  const file = path.join(dir, 'prerendered.html');
  fs.writeFileSync(file, html);
  const saved = await openSaved(file);
  assert.equal(await saved.page.title(), live.title);
  assert.equal(await saved.page.textContent('#verdict-text'), live.verdict);
  assert.equal(await saved.page.textContent('#c-total'), live.total);
  assert.equal(await saved.page.textContent('#faq-main'), live.faq);
  assert.ok(await saved.page.isVisible('#snapshot'));
  assert.equal(await saved.page.$eval('#snapshot a', (a) => a.href), live.url, 'the notice links back to the page');
  assert.equal(await saved.page.getAttribute('link[rel="canonical"]', 'href'), await saved.page.$eval('link[hreflang="es"]', (l) => l.getAttribute('href')));
  assert.deepEqual(saved.network, []);
  assert.deepEqual(saved.errors, []);
});
