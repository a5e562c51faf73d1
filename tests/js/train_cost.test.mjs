import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api, cli } from './helpers.mjs';

test('train: the CLI and the wasm module give identical documents for the same input', async () => {
  const c = cli('train', '--model', 'meta-llama/Llama-3.1-8B', '--method', 'qlora', '--optimizer', 'adamw_8bit',
    '--batch', '2', '--seq', '4096', '--checkpointing', 'on', '--gpus', '2', '--zero', '3', '--hardware', 'nvidia-rtx-4090', '--json');
  assert.equal(c.code, 0, c.stdout);
  const w = await api.train({ model: 'meta-llama/Llama-3.1-8B', method: 'qlora', optimizer: 'adamw_8bit', batch: 2, seq: 4096,
    checkpointing: true, gpus: 2, zero: 3, hardware: 'nvidia-rtx-4090' });
  assert.deepEqual(w, c.json);
  assert.ok(Number.isInteger(w.memory.per_gpu.total_bytes) && w.memory.per_gpu.total_bytes > 0);
  assert.ok(['fits', 'tight', 'no_fit'].includes(w.verdict));
});

test('cost: the CLI and the wasm module give identical documents for the same input', async () => {
  const c = cli('cost', '--hardware', 'nvidia-rtx-4090', '--decode-tps', '120', '--batched-tps', '900', '--concurrency', '16',
    '--market', 'EU', '--hours-per-day', '6', '--model', 'meta-llama/Llama-3.1-8B', '--quant', 'Q4_K_M', '--context', '8192', '--json');
  assert.equal(c.code, 0, c.stdout);
  const w = await api.cost({ hardware: 'nvidia-rtx-4090', decode_tps: 120, batched_tps: 900, concurrency: 16, market: 'EU',
    hours_per_day: 6, model: 'meta-llama/Llama-3.1-8B', quant: 'Q4_K_M', context: 8192 });
  assert.deepEqual(w, c.json);
  assert.ok(w.clouds.length > 0);
  assert.equal(w.rent_vs_buy.series.months.length, w.rent_vs_buy.series.owned_usd.length);
  assert.ok(JSON.stringify(w).indexOf('NaN') < 0 && JSON.stringify(w).indexOf('Infinity') < 0);
});

test('cost with a model and no speed: one call gives the owned decode speed and one per offer, as the CLI does', async () => {
  const req = { hardware: 'nvidia-rtx-4090', model: 'meta-llama/Llama-3.1-8B', quant: 'Q4_K_M', context: 8192, engine: 'llama.cpp' };
  const c = cli('cost', '--hardware', req.hardware, '--model', req.model, '--quant', req.quant, '--context', '8192', '--json');
  assert.equal(c.code, 0, c.stdout);
  const w = await api.cost(req);
  assert.deepEqual(w, c.json);
  const e = await api.estimate(req);
  assert.equal(w.owned.per_million_tokens_usd.decode_tps, e.speed.decode_tps);
  const withSpeed = w.clouds.filter((/** @type {any} */ o) => o.per_million_tokens_usd);
  assert.ok(withSpeed.length >= w.clouds.length / 2, `${withSpeed.length} of ${w.clouds.length} offers have a speed`);
  const o = withSpeed[withSpeed.length - 1];
  const oe = await api.estimate({ ...req, hardware: o.device, count: o.gpu_count, ram_gib: 0 });
  assert.equal(o.estimate.decode_tps, oe.speed.decode_tps);
  assert.equal(o.estimate.verdict, oe.verdict);
});

test('train and cost errors come back as WillitfitError with the field', async () => {
  await assert.rejects(api.train({ model: 'meta-llama/Llama-3.1-8B', hardware: 'nvidia-rtx-4090', method: 'dora' }),
    (/** @type {any} */ e) => e.name === 'WillitfitError' && e.path === 'method');
  await assert.rejects(api.cost({ hardware: 'nvidia-rtx-4090' }), (/** @type {any} */ e) => e.code === 'missing_field' && e.path === 'decode_tps');
  const bad = cli('train', '--model', 'meta-llama/Llama-3.1-8B', '--hardware', 'nvidia-rtx-4090', '--zero', '7', '--json');
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.path, 'zero');
});
