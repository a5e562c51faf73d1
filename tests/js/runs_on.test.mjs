// "What runs on this device" through the module the page uses (runsOn) and `willitfit runs-on`.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api, cli } from './helpers.mjs';

const tierRank = (/** @type {any} */ e) => ({ fits: 0, offload: 1, no_fit: 2 })[e.tier];

test('runsOn lists every catalog model once, fits before offload before no fit, and entries reproduce through estimate', async () => {
  const models = await api.list('models');
  await api.runsOn({ hardware: 'nvidia-rtx-3060-12gb' });  // warm the module
  const t0 = performance.now();
  const r = await api.runsOn({ hardware: 'nvidia-rtx-4090', ram_gib: 64, context: 8192 });
  console.log(`  runsOn RTX 4090 + 64 GB in wasm: ${(performance.now() - t0).toFixed(0)} ms, ${r.evaluations} estimates`);
  assert.equal(r.models.length + r.counts.skipped, models.length);
  assert.equal(new Set(r.models.map((/** @type {any} */ e) => e.model.id)).size, r.models.length);
  for (let i = 1; i < r.models.length; i++) assert.ok(tierRank(r.models[i - 1]) <= tierRank(r.models[i]), `order at ${i}`);
  assert.ok(r.counts.fits > 5 && r.counts.offload > 0);
  const glm = r.models.find((/** @type {any} */ e) => e.model.id === 'zai-org/GLM-4.5-Air');
  assert.equal(glm.tier, 'offload');
  assert.ok(glm.speed.decode_tps_low < glm.speed.decode_tps && glm.speed.decode_tps < glm.speed.decode_tps_high);
  for (const e of [r.models[0], glm, r.models[r.models.length - 1]]) {
    const d = await api.estimate(e.request);
    assert.equal(d.verdict, e.verdict);
    assert.equal(d.memory.total_bytes, e.memory.total_bytes);
    if (e.speed) assert.equal(d.speed.decode_tps, e.speed.decode_tps);
  }
  assert.ok(r.usable.usable_bytes > 0 && r.usable.usable_bytes < r.usable.physical_bytes && r.usable.rule_code.code.length > 0);
  assert.equal(r.usable.rule, undefined, 'the rule is a code, not an English sentence');
});

test('runsOn refuses an unknown device and a negative context with the field', async () => {
  await assert.rejects(api.runsOn({ hardware: 'no-such-gpu' }), (/** @type {any} */ e) => e.code === 'unknown_hardware' && e.path === 'hardware');
  await assert.rejects(api.runsOn({ hardware: 'nvidia-rtx-4090', context: -8 }), (/** @type {any} */ e) => e.path === 'context');
  await assert.rejects(api.runsOn({ hardware: 'nvidia-rtx-4090', quant: 'Q4_K_M' }), (/** @type {any} */ e) => e.code === 'bad_value' && e.path === 'quant');
});

test('willitfit runs-on gives the module\'s answer as JSON and one line per model as text', async () => {
  const r = cli('runs-on', '--hardware', 'apple-m3-ultra-80c-gpu-512gb', '--context', '8192', '--json');
  assert.equal(r.code, 0, r.stdout);
  const m = await api.runsOn({ hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 8192 });
  assert.deepEqual(r.json.models.map((/** @type {any} */ e) => [e.model.id, e.quant, e.tier]), m.models.map((/** @type {any} */ e) => [e.model.id, e.quant, e.tier]));
  const text = cli('runs-on', '--hardware', 'apple-m3-ultra-80c-gpu-512gb');
  assert.equal(text.code, 0);
  assert.match(text.stdout, /GiB usable/);
  assert.match(text.stdout, /fits +GLM-4\.5[- ]Air .* tok\/s/);
  const bad = cli('runs-on', '--hardware', 'no-such-gpu', '--json');
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.path, 'hardware');
});
