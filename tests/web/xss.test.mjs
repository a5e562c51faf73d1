// Names that come from files stay text: a config.json whose own name field is markup, and a
// GGUF header whose general.name is markup (the URL-parameter case is in app.test.mjs and
// widget.test.mjs, the typed-name case in views.test.mjs and gguf_import.test.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

const EVIL = '<img src=x onerror="window.__pwned=1">';
let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

/** After an import: the name is on the page as text, and no element or handler came of it. */
async function shownAsText(page) {
  await page.waitForFunction((e) => document.querySelector('#summary').textContent.includes(e), EVIL);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await page.click('#saved summary').catch(() => {});
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
}

test('a config.json whose _name_or_path is markup is shown as text', async () => {
  const qwen3 = JSON.parse(fs.readFileSync(path.join(root, 'data/models/qwen/qwen3-8b.json'), 'utf8')).config;
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-3090&ctx=8192&lang=en`);
  await page.click('#import summary');
  await page.setInputFiles('#cfg-file', { name: 'config.json', mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ ...qwen3, _name_or_path: EVIL })) });
  await shownAsText(page);
  assert.equal(await page.inputValue('#model'), EVIL);
});

/**
 * Replace the general.name string of a GGUF header. A GGUF string is a u64 length and the bytes;
 * tensor offsets count from the aligned start of the data section, so a header-only file stays
 * valid when the header grows.
 * @param {Buffer} buf @param {string} name
 */
function renameGguf(buf, name) {
  const key = Buffer.from('general.name');
  const at = buf.indexOf(key);
  assert.ok(at > 0, 'general.name in the synthetic header');
  const typeAt = at + key.length;
  assert.equal(buf.readUInt32LE(typeAt), 8, 'general.name is a string');
  const lenAt = typeAt + 4;
  const oldLen = Number(buf.readBigUInt64LE(lenAt));
  const bytes = Buffer.from(name, 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(bytes.length));
  return Buffer.concat([buf.subarray(0, lenAt), len, bytes, buf.subarray(lenAt + 8 + oldLen)]);
}

test('a GGUF header whose general.name is markup is shown as text', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-xss-'));
  const file = path.join(dir, 'synth.gguf');
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'),
    ['gguf-synth', '--model', 'Qwen/Qwen3-8B', '--quant', 'Q4_K_M', '--out', file, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const evilFile = path.join(dir, 'model.gguf');
  fs.writeFileSync(evilFile, renameGguf(fs.readFileSync(file), EVIL));
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-3090&ctx=8192&lang=en`);
  await page.click('#import summary');
  await page.setInputFiles('#cfg-file', evilFile);
  await shownAsText(page);
  assert.match(await page.textContent('#cfg-msg'), /tensors/);
  assert.ok((await page.textContent('#cfg-msg')).includes(EVIL));
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'fits');
  fs.rmSync(dir, { recursive: true, force: true });
});
