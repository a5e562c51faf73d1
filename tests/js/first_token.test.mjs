// The first token of the whole prompt (speed.first_token): the text prompt plus the images and the
// audio the request sends, through the CLI (--images, --audio-seconds) and the wasm module, which
// must agree; engines that load their own towers say so with a code.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';

import { api, cli, root } from './helpers.mjs';

const validResult = new Ajv2020({ allErrors: true, strict: false })
  .compile(JSON.parse(fs.readFileSync(path.join(root, 'core', 'schema', 'result.schema.json'), 'utf8')));

const gemma = ['--model', 'google/gemma-3-27b-it', '--quant', 'Q4_K_M', '--hardware', 'nvidia-rtx-4090', '--context', '8192'];

test('CLI and module: two images add their tokens at the prefill rate to the text prompt\'s first token', async () => {
  const c = cli('estimate', ...gemma, '--images', '2', '--prompt', '1024', '--json');
  assert.equal(c.code, 0, c.stdout);
  const s = c.json.speed;
  const f = s.first_token;
  assert.equal(f.code, 'includes_media');
  assert.equal(f.prompt_tokens, 1024);
  assert.equal(f.image_tokens, c.json.projector.image_tokens);
  assert.equal(f.image_encode, 'not_modelled');  // the encoder's own run: said to be left out
  assert.equal(f.tokens, 1024 + f.image_tokens);
  assert.equal(f.text_ms, s.ttft_ms);
  assert.ok(Math.abs(f.image_ms - 1000 * f.image_tokens / s.prefill_tps) < 1e-9 * f.image_ms);
  assert.ok(Math.abs(f.ms - (s.ttft_ms + f.image_ms)) < 1e-9 * f.ms);
  assert.ok(f.ms_low < f.ms && f.ms < f.ms_high);
  // The module gives the same document.
  const w = await api.estimate({ model: 'google/gemma-3-27b-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, images: 2, prompt: 1024 });
  assert.deepEqual(w.speed.first_token, f);
  // The text output (no --json) carries it too, as does `plan`'s.
  const text = cli('estimate', ...gemma, '--images', '2', '--prompt', '1024');
  assert.deepEqual(JSON.parse(text.stdout).speed.first_token, f);
  const plan = cli('plan', ...gemma, '--images', '2', '--prompt', '1024');
  assert.deepEqual(JSON.parse(plan.stdout).first_token, f);
  // Without images: the text prompt's figure, said to be that.
  const off = cli('estimate', ...gemma, '--prompt', '1024', '--json').json.speed;
  assert.equal(off.first_token.code, 'text_only');
  assert.equal(off.first_token.ms, off.ttft_ms);
  assert.equal(off.first_token.ms_high, off.ttft_ms_high);
});

test('CLI: audio seconds add the audio section\'s prefill; vLLM answers with a code and no figure', () => {
  const voxtral = ['estimate', '--model', 'mistralai/Voxtral-Mini-3B-2507', '--quant', 'Q4_K_M', '--hardware', 'nvidia-rtx-4090', '--context', '8192'];
  const r = cli(...voxtral, '--audio-seconds', '60', '--json');
  assert.equal(r.code, 0, r.stdout);
  const f = r.json.speed.first_token;
  assert.equal(f.code, 'includes_media');
  assert.equal(f.audio_tokens, r.json.audio.tokens);
  assert.ok(Math.abs(f.audio_ms - 1000 * r.json.audio.prefill_seconds) < 1e-9 * f.audio_ms);
  assert.ok(f.audio_ms > 1000 * r.json.audio.token_prefill_seconds, 'the encode is part of it');
  assert.ok(Math.abs(f.ms - (r.json.speed.ttft_ms + f.audio_ms)) < 1e-9 * f.ms);
  const v = cli('estimate', '--model', 'google/gemma-3-27b-it', '--hardware', 'nvidia-h100-sxm', '--engine', 'vllm', '--context', '8192', '--images', '2', '--json');
  assert.equal(v.code, 0, v.stdout);
  const vf = v.json.speed.first_token;
  assert.equal(vf.code, 'media_not_modelled');
  assert.deepEqual(vf.media_codes, { images: 'engine_not_modelled' });
  assert.equal(vf.engine, 'vllm');
  assert.equal(vf.ms, undefined);
  assert.equal(vf.text_ms, v.json.speed.ttft_ms);
  // The schema holds each shape: a figure with its tokens, or a code without a figure.
  for (const doc of [r.json, v.json]) assert.ok(validResult(doc), JSON.stringify(validResult.errors));
  assert.equal(validResult({ ...v.json, speed: { ...v.json.speed, first_token: { ...vf, ms: 1 } } }), false);
  assert.equal(validResult({ ...r.json, speed: { ...r.json.speed, first_token: { ...f, ms: undefined } } }), false);
});
