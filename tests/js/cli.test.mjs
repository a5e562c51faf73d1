import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { cli } from './helpers.mjs';

test('estimate prints the contract fields as integers and a verdict', () => {
  const r = cli('estimate', '--model', 'zai-org/GLM-4.5-Air', '--quant', 'Q4_K_M', '--hardware', 'apple-m3-ultra-80c-gpu-512gb', '--context', '8192', '--json');
  assert.equal(r.code, 0, r.stdout);
  for (const k of ['weights_bytes', 'kv_cache_bytes', 'total_bytes', 'usable_bytes', 'compute_bytes', 'overhead_bytes'])
    assert.ok(Number.isInteger(r.json.memory[k]) && r.json.memory[k] > 0, k);
  assert.equal(r.json.verdict, 'fits');
  assert.ok(Number.isInteger(r.json.gguf_file_bytes));
  assert.ok(Number.isInteger(r.json.model.params_total));
});

test('bad input exits 2 with the error document', () => {
  const r = cli('estimate', '--model', 'no/such-model', '--quant', 'Q4_K_M', '--hardware', 'nvidia-rtx-4090', '--json');
  assert.equal(r.code, 2);
  assert.equal(r.json.error.code, 'unknown_model');
  assert.equal(r.json.error.path, 'model');
  const r2 = cli('estimate', '--model', 'zai-org/GLM-4.5-Air', '--hardware', 'nvidia-rtx-4090', '--context', 'many', '--json');
  assert.equal(r2.code, 2);
  assert.equal(r2.json.error.path, 'context');
  const r3 = cli('estimate', '--model', 'zai-org/GLM-4.5-Air', '--hardware', 'nvidia-rtx-4090', '--bogus', '1');
  assert.equal(r3.code, 2);
  assert.equal(r3.json.error.code, 'unknown_flag');
});

test('model and hardware can be JSON files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-'));
  const cfg = path.join(dir, 'config.json');
  const dev = path.join(dir, 'device.json');
  fs.writeFileSync(cfg, JSON.stringify({ model_type: 'qwen3', hidden_size: 4096, intermediate_size: 12288,
    num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8, head_dim: 128, vocab_size: 151936 }));
  fs.writeFileSync(dev, JSON.stringify({ name: 'My card', kind: 'gpu', memory_gib: 16, bandwidth_gbs: 448, fp16_tflops: 40, backend: 'cuda' }));
  const r = cli('estimate', '--model', cfg, '--quant', 'Q4_K_M', '--hardware', dev, '--context', '4096', '--json');
  assert.equal(r.code, 0, r.stdout);
  assert.equal(r.json.memory.kv_cache_bytes, 36 * 8 * 128 * 2 * 2 * 4096);
  fs.writeFileSync(cfg, '{"model_type": "llama",');
  const bad = cli('estimate', '--model', cfg, '--hardware', dev, '--json');
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.code, 'bad_json');
});

test('list prints ids and names; hardware carries memory and bandwidth', () => {
  const m = cli('list', 'models', '--json');
  assert.equal(m.code, 0);
  assert.ok(m.json.models.some((x) => x.id === 'zai-org/GLM-4.5-Air'));
  const h = cli('list', 'hardware', '--json');
  assert.ok(h.json.hardware.every((d) => typeof d.memory_gib === 'number' && typeof d.bandwidth_gbs === 'number'));
  const q = cli('list', 'quants', '--json');
  assert.ok(q.json.quants.some((x) => x.id === 'Q4_K_M'));
  assert.equal(cli('list', 'spaceships', '--json').code, 2);
});
