// The audio encoder through the CLI (--audio-seconds) and the wasm module (audio_seconds), which
// must agree; the defaults document says no audio; an audio-only mmproj header registers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { api, cli, root } from './helpers.mjs';

const voxtral = ['estimate', '--model', 'mistralai/Voxtral-Mini-3B-2507', '--quant', 'Q4_K_M', '--hardware', 'nvidia-rtx-4090', '--context', '8192'];

test('CLI --audio-seconds loads Voxtral\'s audio tower and counts its windows and tokens', () => {
  const off = cli(...voxtral, '--json');
  const on = cli(...voxtral, '--audio-seconds', '300', '--json');
  assert.equal(on.code, 0, on.stdout);
  const a = on.json.audio;
  assert.equal(a.loaded, true);
  assert.equal(a.family, 'voxtral');
  assert.equal(a.windows, 11);
  assert.equal(a.tokens_per_window, 187);
  assert.equal(a.tokens, 2057);
  assert.equal(on.json.memory.projector_bytes, a.bytes + a.compute_bytes);
  assert.equal(on.json.memory.total_bytes, off.json.memory.total_bytes + a.resident_bytes);
  assert.ok(a.prefill_seconds > a.token_prefill_seconds, 'the encode adds to the tokens\' prefill');
  assert.equal(off.json.audio.loaded, false);
  assert.equal(off.json.audio.code, 'no_audio');
  assert.match(off.json.commands.llama_server, / --no-mmproj/);
  assert.doesNotMatch(on.json.commands.llama_server, /mmproj/);
  const text = cli('estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', 'nvidia-rtx-4090', '--audio-seconds', '30', '--json');
  assert.equal(text.code, 2);
  assert.equal(text.json.error.code, 'no_audio_tower');
  assert.equal(text.json.error.path, 'audio_seconds');
  for (const bad of ['-1', '20000']) {
    const r = cli(...voxtral, '--audio-seconds', bad, '--json');
    assert.equal(r.code, 2, bad);
    assert.equal(r.json.error.path, 'audio_seconds');
  }
});

test('the wasm module gives the CLI\'s audio section, and the defaults say no audio', async () => {
  const req = { model: 'mistralai/Voxtral-Mini-3B-2507', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, audio_seconds: 45 };
  const w = await api.estimate(req);
  const c = cli(...voxtral, '--audio-seconds', '45', '--json');
  assert.deepEqual(w.audio, c.json.audio);
  assert.equal(w.memory.projector_bytes, c.json.memory.projector_bytes);
  assert.equal((await api.defaults()).estimate.audio_seconds, 0);
  await assert.rejects(api.estimate({ ...req, audio_seconds: -5 }), (/** @type {any} */ e) => e.code === 'bad_value' && e.path === 'audio_seconds');
  await assert.rejects(api.estimate({ ...req, audio_seconds: 'long' }), (/** @type {any} */ e) => e.path === 'audio_seconds');
});

test('an audio-only mmproj header (gguf-synth) registers and replaces the computed tower', async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wif-audio-')), 'mmproj-voxtral-q8_0.gguf');
  const made = cli('gguf-synth', '--mmproj', '--model', 'mistralai/Voxtral-Mini-3B-2507', '--quant', 'q8_0', '--out', out);
  assert.equal(made.code, 0, made.stdout + made.stderr);
  assert.equal(made.json.projector_type, 'voxtral');
  const reg = await api.registerMmproj(fs.readFileSync(out));
  assert.equal(reg.audio.family, 'voxtral');
  assert.equal(reg.audio.tensor_bytes, 715685888);
  const entry = JSON.parse(fs.readFileSync(path.join(root, 'data', 'models', 'mistralai', 'voxtral-mini-3b-2507.json'), 'utf8'));
  const r = await api.estimate({ model: { config: entry.config, mmproj_handle: reg.handle }, quant: 'Q4_K_M',
    hardware: 'nvidia-rtx-4090', context: 8192, audio_seconds: 30 });
  assert.equal(r.audio.source, 'mmproj_file');
  assert.equal(r.audio.bytes, 715685888);
  assert.equal(r.audio.tokens, 374);
});
