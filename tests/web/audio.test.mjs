// The audio encoder on the page in Chromium: the audio field for a model with an audio tower (and
// none for a vision or text model), the encoder's row in the breakdown with the core's windows,
// tokens and prefill time as format.js writes them, the statement in French at 390 px, and a file
// with both towers (Qwen2.5-Omni) counted once.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

const api = await import(path.join(root, 'dist', 'api.js'));
const { gib, num } = await import(path.join(root, 'web', 'format.js'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const base = 'model=mistralai/Voxtral-Mini-3B-2507&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192';
const request = { model: 'mistralai/Voxtral-Mini-3B-2507', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 };

test('five minutes of audio per prompt on Voxtral Mini 3B: the encoder in the breakdown and the total', async () => {
  const core = await api.estimate({ ...request, audio_seconds: 300 });
  assert.equal(core.audio.loaded, true);
  const page = await env.page();
  await open(page, `${env.url}?${base}&aud=300&lang=en`);
  assert.equal(await page.isVisible('#audio-field'), true);
  assert.equal(await page.inputValue('#audio'), '300');
  assert.equal(await page.isVisible('#images-field'), false);  // no vision tower
  assert.equal(await page.isVisible('#r-audio'), true);
  assert.equal((await page.textContent('#t-audio')).trim(), gib(core.audio.resident_bytes, 'en'));
  assert.equal((await page.textContent('#c-total')).trim(), gib(core.memory.total_bytes, 'en'));
  const why = await page.textContent('#w-audio');
  assert.match(why, /--mmproj/);
  assert.match(why, new RegExp(`encoded as ${core.audio.windows} windows of 30\\ss`));
  assert.match(why, new RegExp(`${core.audio.tokens_per_window} tokens each: ${num(core.audio.tokens, 'en')} tokens`));
  assert.match(why, new RegExp(`about ${num(core.audio.prefill_seconds, 'en', 2).replace('.', '\\.')}\\ss of prompt processing`));
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN|Infinity/);
  // The per-device table's projector column is named for what the file loaded holds: audio only.
  const heads = await page.$$eval('#devices-table thead th', (ths) => ths.map((t) => (t.textContent || '').trim()));
  assert.ok(heads.includes('Audio encoder'), heads.join(' | '));
  assert.ok(!heads.includes('Vision projector'), heads.join(' | '));

  // No audio: the encoder is stated but not loaded, the total drops by its share.
  const none = await api.estimate(request);
  await page.fill('#audio', '0');
  await page.dispatchEvent('#audio', 'change');
  await page.waitForFunction(() => !/aud=/.test(location.search + location.pathname));
  await page.waitForFunction((t) => document.querySelector('#c-total')?.textContent?.trim() === t, gib(none.memory.total_bytes, 'en'));
  assert.equal((await page.textContent('#t-audio')).trim(), 'not loaded');
  assert.match(await page.textContent('#w-audio'), /Not loaded: no audio per prompt/);
  assert.deepEqual(page.problems, []);
});

test('the audio statement in French at 390 px, and no audio field for a vision model', async () => {
  const core = await api.estimate({ ...request, audio_seconds: 30 });
  const page = await env.page({ viewport: { width: 390, height: 900 } });
  await open(page, `${env.url}?${base}&aud=30&lang=fr`);
  assert.equal(await page.isVisible('#r-audio'), true);
  const why = await page.textContent('#w-audio');
  assert.match(why, new RegExp(`encodées en ${core.audio.windows} fenêtres de 30\\ss`));
  assert.match(why, /Encodeur audio|encodeur audio/);
  assert.doesNotMatch(why, / [:;?!]/);  // a no-break space before French high punctuation
  const gemma = await env.page();
  await open(gemma, `${env.url}?model=google/gemma-3-27b-it&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  assert.equal(await gemma.isVisible('#audio-field'), false);
  assert.equal(await gemma.isVisible('#r-audio'), false);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(gemma.problems, []);
});

test('Qwen2.5-Omni 7B with 30 s of audio: one mmproj file with both towers, counted once in the breakdown', async () => {
  const req = { model: 'Qwen/Qwen2.5-Omni-7B', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, audio_seconds: 30 };
  const core = await api.estimate(req);
  // The core: audio alone loads the file, and the file holds both towers.
  assert.equal(core.audio.loaded, true);
  assert.equal(core.projector.loaded, true);
  assert.equal(core.audio.file_bytes, core.projector.bytes);
  const page = await env.page();
  await open(page, `${env.url}?model=${req.model}&quant=${req.quant}&hw=${req.hardware}&ctx=8192&aud=30&lang=en`);
  assert.equal(await page.isVisible('#images-field'), true);
  assert.equal(await page.isVisible('#audio-field'), true);
  assert.equal((await page.textContent('#t-projector')).trim(), gib(core.projector.resident_bytes, 'en'));
  assert.equal((await page.textContent('#t-audio')).trim(), 'in the row above');
  assert.match(await page.textContent('#w-audio'), /same mmproj file as the vision projector, counted in its row above\./);
  assert.equal((await page.textContent('#c-total')).trim(), gib(core.memory.total_bytes, 'en'));
  const heads = await page.$$eval('#devices-table thead th', (ths) => ths.map((t) => (t.textContent || '').trim()));
  assert.ok(heads.includes('Vision and audio encoders'), heads.join(' | '));
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN|Infinity/);
  // The same row in Chinese.
  const zh = await env.page();
  await open(zh, `${env.url}?model=${req.model}&quant=${req.quant}&hw=${req.hardware}&ctx=8192&aud=30&lang=zh`);
  assert.equal((await zh.textContent('#t-audio')).trim(), '已计入上一行');
  assert.deepEqual(page.problems, []);
  assert.deepEqual(zh.problems, []);
});
