// A device and a model are named the same way on every page that names them: a model's parameter
// count is the estimate's on its model page, on a device page that lists it and on the pair page;
// an NPU or AI accelerator is called what its vendor calls it (the core's device_type), never a GPU
// with VRAM; and a device page's title, h1, og:title and description name the device by one rule,
// live and prerendered.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseHTML } from 'linkedom';

import { open, pageSuite, root } from './helpers.mjs';

const dist = path.join(root, 'dist');
const api = await import(path.join(dist, 'api.js'));
const { params } = await import(path.join(dist, 'format.js'));
const { deviceLabel, chipLabel } = await import(path.join(dist, 'device-name.js'));
const { t } = await import(path.join(dist, 'i18n.js'));
const hardware = await api.list('hardware');
const env = pageSuite();

/** The one name of a device page: the catalog's label as the hardware select shows it, with its size. */
const label = (/** @type {string} */ id, /** @type {string} */ lang) => deviceLabel(hardware.find((d) => d.id === id), lang, hardware);

/**
 * The device page's title, h1 and description name the device by the one rule; the select shows the
 * same label (a Mac's select shows its chip and memory, the end of it). @param {any} page
 */
async function checkNames(page, /** @type {string} */ id, /** @type {string} */ lang) {
  const name = label(id, lang);
  const option = await page.$eval(`#dp-device option[value="${id}"]`, (/** @type {any} */ o) => o.textContent);
  assert.equal(option, chipLabel(hardware.find((d) => d.id === id), lang, hardware));
  assert.ok(name.endsWith(option), `${id}: ${name} / ${option}`);
  assert.equal(await page.textContent('#dp-title'), t(lang, 'dp_title', { 0: name }), `${id} ${lang}: h1`);
  assert.equal(await page.title(), t(lang, 'dp_doc_title', { device: name }), `${id} ${lang}: title`);
  assert.ok((await page.getAttribute('meta[name="description"]', 'content'))?.includes(name), `${id} ${lang}: description`);
}

const LLAMA = 'meta-llama/Llama-3.1-70B-Instruct';
const MAC = 'apple-m3-ultra-80c-gpu-512gb';

test('Llama 3.1 70B has one parameter count on its model page, a device page that lists it and the pair page', async () => {
  const est = await api.estimate({ model: LLAMA, hardware: MAC });
  const want = params(est.model.params_total, 'en');
  assert.notEqual(want, params(70e9, 'en'), 'the computed count is not the published round figure');
  const page = await env.at(`?view=model&model=${encodeURIComponent(LLAMA)}&lang=en`);
  assert.ok((await page.textContent('#view-model')).includes(want), `model page shows ${want}`);
  await open(page, `${env.url}?view=device&hw=${MAC}&lang=en`);
  await page.waitForSelector('#dp-runs table tbody tr');
  const row = await page.$$eval('#dp-runs tbody tr', (rows, name) => rows.map((r) => [...r.cells].map((c) => c.textContent.trim())).find((c) => c[0] === name), est.model.name);
  assert.ok(row, 'the device page lists Llama 3.1 70B');
  assert.equal(row[1], want);
  await checkNames(page, MAC, 'en');
  await open(page, `${env.url}?model=${encodeURIComponent(LLAMA)}&hw=${MAC}&lang=en`);
  assert.ok((await page.textContent('#view-main')).includes(want), `pair page shows ${want}`);
  assert.deepEqual(page.problems, []);
});

test('an Ascend 910B is an NPU with device memory, in English and Chinese, as the core says, and its page is named by the one rule', async () => {
  const doc = await api.runsOn({ hardware: 'huawei-ascend-910b' });
  assert.equal(doc.device.device_type, 'npu');
  const page = await env.at('?view=device&hw=huawei-ascend-910b&lang=en');
  await page.waitForSelector('#dp-usable p');
  const facts = await page.textContent('#dp-facts');
  assert.match(facts, /NPU/);
  assert.doesNotMatch(facts, /\bGPU\b/);
  const usable = await page.textContent('#dp-usable');
  assert.match(usable, /Device memory less/);
  assert.doesNotMatch(usable, /VRAM|discrete GPU/);
  // The hardware select groups it under its vendor's word for it.
  const group = await page.$eval('#hardware option[value="huawei-ascend-910b"]', (o) => o.parentElement.label);
  assert.equal(group, 'Huawei (NPU)');
  const gaudi = await page.$eval('#hardware option[value="intel-gaudi-3"]', (o) => o.parentElement.label);
  assert.equal(gaudi, 'Intel (AI accelerator)');
  await open(page, `${env.url}?view=device&hw=huawei-ascend-910b&lang=zh`);
  await page.waitForSelector('#dp-usable p');
  assert.match(await page.textContent('#dp-facts'), /NPU/);
  const zh = await page.textContent('#dp-usable');
  assert.match(zh, /设备内存/);
  assert.doesNotMatch(zh, /显存|独立显卡/);
  await checkNames(page, 'huawei-ascend-910b', 'zh');
  assert.deepEqual(page.problems, []);
});

test('the prerendered device pages name their device by the same rule in title, h1, og:title and description', () => {
  const pagesDoc = JSON.parse(fs.readFileSync(path.join(dist, 'pages.json'), 'utf8'));
  const ids = Object.keys(pagesDoc.devices);
  assert.ok(ids.length >= 1, 'some device pages are built');
  for (const id of ids.slice(0, 4))
    for (const lang of ['en', 'es', 'fr', 'zh']) {
      const file = path.join(dist, lang, pagesDoc.devices[id], 'index.html');
      const { document } = parseHTML(fs.readFileSync(file, 'utf8'));
      const name = label(id, lang);
      assert.equal(document.querySelector('#dp-title')?.textContent, t(lang, 'dp_title', { 0: name }), `${lang} ${id}: h1`);
      assert.equal(document.title, t(lang, 'dp_doc_title', { device: name }), `${lang} ${id}: title`);
      assert.equal(document.querySelector('meta[property="og:title"]')?.getAttribute('content'), document.title, `${lang} ${id}: og:title`);
      assert.ok(document.querySelector('meta[name="description"]')?.getAttribute('content')?.includes(name), `${lang} ${id}: description`);
    }
});
