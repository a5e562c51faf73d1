import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api, cli, GiB } from './helpers.mjs';

test('GLM-4.5-Air KV cache at 8K is 1.4375 GiB through the wasm module', async () => {
  const r = await api.estimate({ model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.equal(r.memory.kv_cache_bytes, 188416 * 8192);
  assert.equal(r.memory.kv_cache_bytes / GiB, 1.4375);
});

test('the module and the CLI give identical documents for the same request', async () => {
  const args = ['--model', 'meta-llama/Llama-3.1-8B-Instruct', '--quant', 'Q5_K_M', '--hardware', 'nvidia-rtx-3090', '--context', '32768', '--kv-type', 'q8_0'];
  const c = cli('estimate', ...args, '--json');
  assert.equal(c.code, 0);
  const w = await api.estimate({ model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q5_K_M', hardware: 'nvidia-rtx-3090', context: 32768, kv_type: 'q8_0' });
  assert.deepEqual(w, c.json);
});

test('a bad model id is a WillitfitError with code and path, not a crash', async () => {
  await assert.rejects(api.estimate({ model: 'nobody/nothing', hardware: 'nvidia-rtx-4090' }),
    (e) => e.name === 'WillitfitError' && e.code === 'unknown_model' && e.path === 'model');
});

test('malformed values are rejected with the offending field', async () => {
  const base = { model: 'zai-org/GLM-4.5-Air', hardware: 'nvidia-rtx-4090' };
  const cases = [
    [{ context: -1 }, 'bad_value', 'context'],
    [{ context: 1e12 }, 'bad_value', 'context'],
    [{ context: '8K' }, 'bad_type', 'context'],
    [{ quant: 'Q9' }, 'unknown_quant', 'quant'],
    [{ hardware: 'gpu-from-mars' }, 'unknown_hardware', 'hardware'],
    [{ hardware: { name: 'x', kind: 'gpu', memory_gib: -4, bandwidth_gbs: 1 } }, 'bad_value', 'hardware.memory_gib'],
    [{ kv_type: 'q2_k' }, 'bad_value', 'kv_type'],
    [{ model: { config: { model_type: 'llama' } } }, 'missing_field', 'model.config.hidden_size'],
  ];
  for (const [patch, code, path] of cases) {
    await assert.rejects(api.estimate({ ...base, ...patch }), (e) => e.code === code && e.path === path,
      `${JSON.stringify(patch)} should give ${code} at ${path}`);
  }
});

test('the catalog loads inside the module without errors and lists models and devices', async () => {
  const core = await api.loadCore();
  assert.deepEqual(JSON.parse(core.catalogErrors()), { schema_version: 1, errors: [] });
  const models = await api.list('models');
  const hw = await api.list('hardware');
  assert.ok(models.length >= 70, `only ${models.length} models`);
  assert.ok(hw.length >= 90, `only ${hw.length} devices`);
  assert.ok(hw.every((d) => d.id && d.name && d.memory_gib > 0 && d.bandwidth_gbs > 0));
});

test('a custom config.json estimates like the catalog entry it copies', async () => {
  const fromId = await api.estimate({ model: 'meta-llama/Llama-3.1-8B', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090' });
  const cfg = { model_type: 'llama', hidden_size: 4096, intermediate_size: 14336, num_attention_heads: 32,
    num_hidden_layers: 32, num_key_value_heads: 8, vocab_size: 128256, max_position_embeddings: 131072, tie_word_embeddings: false };
  const custom = await api.estimate({ model: { config: cfg, name: 'mine' }, quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090' });
  assert.equal(custom.memory.total_bytes, fromId.memory.total_bytes);
  assert.equal(custom.model.name, 'mine');
});
