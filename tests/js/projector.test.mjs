// The vision projector through the CLI (--images and the other flags) and the wasm module (the
// request fields), which must agree; the defaults document names the defaults the page uses.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api, cli } from './helpers.mjs';

const gemma = ['estimate', '--model', 'google/gemma-3-27b-it', '--quant', 'Q4_K_M', '--hardware', 'nvidia-rtx-4090', '--context', '8192'];

test('CLI --images loads the projector on the GPU and counts it in memory and the command', () => {
  const off = cli(...gemma, '--json');
  const on = cli(...gemma, '--images', '2', '--json');
  assert.equal(on.code, 0, on.stdout);
  const p = on.json.projector;
  assert.equal(p.loaded, true);
  assert.equal(p.family, 'gemma3');
  assert.equal(p.tokens_per_image, 256);
  assert.equal(p.image_tokens, 512);
  assert.equal(p.placement, 'device');
  assert.equal(on.json.memory.projector_bytes, p.bytes + p.compute_bytes);
  assert.equal(on.json.memory.total_bytes, off.json.memory.total_bytes + p.resident_bytes);
  // Q4_K_M is published (unsloth/gemma-3-27b-it-GGUF): -hf fetches the projector with the model,
  // and a text-only run says --no-mmproj.
  assert.match(on.json.commands.llama_server, / -hf unsloth\/gemma-3-27b-it-GGUF:Q4_K_M /);
  assert.doesNotMatch(on.json.commands.llama_server, /mmproj/);
  assert.equal(off.json.projector.loaded, false);
  assert.equal(off.json.projector.code, 'no_images');
  assert.match(off.json.commands.llama_server, / --no-mmproj/);
  // A format with no published file is loaded by name, with the projector file beside it.
  const local = gemma.map((a) => (a === 'Q4_K_M' ? 'Q5_K_M' : a));
  assert.match(cli(...local, '--images', '2', '--json').json.commands.llama_server, / --mmproj mmproj-gemma-3-27b-it-f16\.gguf/);
  assert.doesNotMatch(cli(...local, '--json').json.commands.llama_server, /mmproj/);
});

test('CLI projector flags: placement off the GPU, file type, image size, coded errors', () => {
  const cpu = cli(...gemma, '--images', '1', '--mmproj-offload', 'off', '--json');
  assert.equal(cpu.json.projector.placement, 'cpu');
  assert.equal(cpu.json.memory.projector_bytes, 0);
  assert.match(cpu.json.commands.llama_server, /--no-mmproj-offload/);
  const q8 = cli(...gemma, '--images', '1', '--mmproj-type', 'q8_0', '--json');
  assert.equal(q8.json.projector.type, 'q8_0');
  assert.ok(q8.json.projector.bytes < 0.7 * cpu.json.projector.bytes, 'Q8_0 is about half of F16');
  const qwen = ['estimate', '--model', 'Qwen/Qwen3.6-27B', '--quant', 'Q4_K_M', '--hardware', 'nvidia-h100-sxm', '--images', '1'];
  const small = cli(...qwen, '--image-width', '512', '--image-height', '512', '--json');
  const big = cli(...qwen, '--image-width', '1024', '--image-height', '1024', '--json');
  assert.equal(big.json.projector.tokens_per_image, 4 * small.json.projector.tokens_per_image);
  const text = cli('estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', 'nvidia-rtx-4090', '--images', '1', '--json');
  assert.equal(text.code, 2);
  assert.equal(text.json.error.code, 'no_projector');
  assert.equal(text.json.error.path, 'images');
  const bad = cli(...gemma, '--images', '65', '--json');
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.path, 'images');
});

test('the wasm module gives the CLI\'s projector section, and the defaults say text only', async () => {
  const req = { model: 'google/gemma-3-27b-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, images: 2 };
  const w = await api.estimate(req);
  const c = cli(...gemma, '--images', '2', '--json');
  assert.deepEqual(w.projector, c.json.projector);
  assert.equal(w.memory.projector_bytes, c.json.memory.projector_bytes);
  const d = await api.defaults();
  assert.equal(d.estimate.images, 0);
  assert.equal(d.estimate.mmproj_offload, true);
  assert.equal(d.estimate.mmproj_type, 'f16');
  await assert.rejects(api.estimate({ ...req, mmproj_type: 'q4_k' }), (/** @type {any} */ e) => e.code === 'bad_value' && e.path === 'mmproj_type');
});
