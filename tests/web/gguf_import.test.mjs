import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

test('a local .gguf is read by its header only and estimated like the catalog model it was written from', async () => {
  // Our own writer makes the header a Qwen3-8B Q4_K_M file would have (nothing is downloaded).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-gguf-'));
  const file = path.join(dir, 'qwen3-8b-Q4_K_M.gguf');
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'),
    ['gguf-synth', '--model', 'Qwen/Qwen3-8B', '--quant', 'Q4_K_M', '--out', file, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);

  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-3090&ctx=8192&lang=en`);
  const fromCatalogKv = await page.textContent('#t-kv');
  await page.click('#import summary');
  await page.fill('#cfg-name', '<img src=x onerror="window.__pwned=1"> my file');
  await page.setInputFiles('#cfg-file', file);
  await page.waitForFunction(() => /my file/.test(document.querySelector('#summary').textContent));
  assert.match(await page.textContent('#cfg-msg'), /tensors/);
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'fits');
  assert.equal(await page.textContent('#t-kv'), fromCatalogKv);   // same architecture read back
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.evaluate(() => document.querySelectorAll('main img').length), 0);
  fs.rmSync(dir, { recursive: true, force: true });
});
