// The tier lists and the batch entry through the module the page uses, and `willitfit tiers`
// and `willitfit serve --engine sglang` on the command line.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api, cli } from './helpers.mjs';

const GLM = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', context: 8192 };

test('tiers puts an RTX 4090 with 64 GB RAM in offload and a 512 GB M3 Ultra in fits, as a direct estimate says', async () => {
  const t0 = performance.now();
  const t = await api.tiers(GLM);
  const ms = performance.now() - t0;
  console.log(`  tiers GLM-4.5-Air in wasm: ${ms.toFixed(0)} ms (first call includes loading the module)`);
  const g = t.gpus.find((e) => e.device.id === 'nvidia-rtx-4090');
  assert.equal(g.tier, 'offload');
  assert.ok(g.ram_gib <= 64);
  assert.ok(g.speed.decode_tps > 0 && Number.isFinite(g.speed.decode_tps));
  const mac = t.macs.find((e) => e.device.id === 'apple-m3-ultra-80c-gpu-512gb');
  assert.equal(mac.tier, 'fits');
  for (const e of [g, mac]) {
    const r = await api.estimate(e.request);
    assert.equal(r.verdict, e.verdict);
    assert.equal(r.memory.total_bytes, e.memory.total_bytes);
    assert.equal(r.speed.decode_tps, e.speed.decode_tps);
  }
  assert.equal(r5090(t).tier, 'offload');
  const t1 = performance.now();
  await api.tiers(GLM);
  console.log(`  tiers GLM-4.5-Air in wasm, module loaded: ${(performance.now() - t1).toFixed(0)} ms`);
});

const r5090 = (/** @type {any} */ t) => t.gpus.find((/** @type {any} */ e) => e.device.id === 'nvidia-rtx-5090');

test('tiers rejects a request that names hardware, with the field', async () => {
  await assert.rejects(api.tiers({ ...GLM, hardware: 'nvidia-rtx-4090' }), (/** @type {any} */ e) => e.code === 'bad_value' && e.path === 'hardware');
});

test('estimateMany answers like estimate, one entry per request, errors in place', async () => {
  const reqs = [
    { model: 'Qwen/Qwen3-8B', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090' },
    { model: 'no/such', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090' },
    { model: 'Qwen/Qwen3-8B', quant: 'Q8_0', hardware: 'apple-m1-8c-gpu-8gb' },
  ];
  const rs = await api.estimateMany(reqs);
  assert.equal(rs.length, 3);
  assert.deepEqual(rs[0], await api.estimate(reqs[0]));
  assert.deepEqual(rs[2], await api.estimate(reqs[2]));
  assert.equal(rs[1].error.code, 'unknown_model');
  assert.deepEqual(await api.estimateMany([]), []);
});

test('estimateMany over a listing batch gives what one estimate call per request gives (timed)', async () => {
  const models = ['Qwen/Qwen3-8B', 'zai-org/GLM-4.5-Air', 'meta-llama/Llama-3.1-8B-Instruct'];
  const quants = ['Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'IQ4_XS', 'Q3_K_M', 'Q2_K'];
  const hw = ['nvidia-rtx-4090', 'nvidia-rtx-3060-12gb', 'apple-m3-ultra-80c-gpu-512gb', 'nvidia-h100-sxm'];
  const reqs = [];
  for (const model of models) for (const quant of quants) for (const hardware of hw) reqs.push({ model, quant, hardware });
  await api.estimateMany(reqs.slice(0, 2));  // warm
  let t = performance.now();
  const each = [];
  for (const r of reqs) each.push(await api.estimate(r).catch((e) => ({ error: { code: e.code, path: e.path, message: e.message } })));
  const one = reqs.length / ((performance.now() - t) / 1000);
  t = performance.now();
  const all = await api.estimateMany(reqs);
  const batch = reqs.length / ((performance.now() - t) / 1000);
  console.log(`  ${reqs.length} estimates: ${one.toFixed(0)}/s one call each, ${batch.toFixed(0)}/s through estimateMany`);
  assert.deepEqual(all, each);
});

test('willitfit tiers prints the lists and serve --engine sglang prints a parseable SGLang command', () => {
  const r = cli('tiers', '--model', 'zai-org/GLM-4.5-Air', '--quant', 'Q4_K_M', '--context', '8192', '--json');
  assert.equal(r.code, 0, r.stdout);
  assert.equal(r.json.gpus.find((/** @type {any} */ e) => e.device.id === 'nvidia-rtx-4090').tier, 'offload');
  const text = cli('tiers', '--model', 'zai-org/GLM-4.5-Air');
  assert.equal(text.code, 0);
  assert.match(text.stdout, /RTX 4090 .*possible but slow with \d+ GB RAM .*tok\/s .*--n-cpu-moe \d+/);
  const bad = cli('tiers', '--model', 'zai-org/GLM-4.5-Air', '--hardware', 'nvidia-rtx-4090', '--json');
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.path, 'hardware');

  const s = cli('serve', '--engine', 'sglang', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', 'nvidia-rtx-4090',
    '--context', '8192', '--concurrency', '8');
  assert.equal(s.code, 0, s.stdout);
  const v = JSON.parse(s.stdout);
  assert.equal(v.sglang.engine, 'sglang');
  assert.equal(v.sglang.throughput.concurrency, 8);
  const words = v.commands.sglang.split(' ');
  assert.deepEqual(words.slice(0, 3), ['python3', '-m', 'sglang.launch_server']);
  const flags = new Map();
  for (let i = 3; i < words.length; i += 2) {
    assert.match(words[i], /^--[a-z-]+$/);
    assert.ok(!flags.has(words[i]), words[i]);
    assert.ok(i + 1 < words.length && !words[i + 1].startsWith('--'), `${words[i]} needs a value`);
    flags.set(words[i], words[i + 1]);
  }
  assert.equal(Number(flags.get('--mem-fraction-static')), v.sglang.settings.mem_fraction_static);
  assert.equal(Number(flags.get('--context-length')), v.sglang.settings.max_model_len);
  assert.equal(Number(flags.get('--chunked-prefill-size')), v.sglang.settings.max_num_batched_tokens);
  assert.equal(Number(flags.get('--tp')), 1);
});

test('willitfit tiers says, on the line of a GPU sold by the vendor’s memory figure, the low end the driver may report, and “no room to spare” where the core says tight', () => {
  // The first context (in steps of 4K) at which the list holds a GPU the core says is tight: which
  // one that is moves as the catalog's memory figures are settled.
  let q = [], r = null;
  for (let ctx = 16384; ctx <= 131072; ctx += 4096) {
    q = ['--model', 'meta-llama/Llama-3.1-70B-Instruct', '--quant', 'Q6_K', '--context', String(ctx)];
    r = cli('tiers', ...q, '--json');
    assert.equal(r.code, 0, r.stdout);
    if (r.json.gpus.some((/** @type {any} */ e) => e.tier === 'fits' && e.verdict === 'tight')) break;
  }
  const text = cli('tiers', ...q);
  assert.equal(text.code, 0);
  const lines = text.stdout.split('\n');
  let vendor = 0, tight = 0;
  for (const e of r.json.gpus) {
    // The name in its 46-character column (longer names run over it).
    const line = lines.find((l) => l.slice(2, 2 + Math.max(46, e.device.name.length)).trimEnd() === e.device.name);
    assert.ok(line, e.device.name);
    const low = e.device.memory_basis.code === 'vendor_figure' ? e.device.memory_basis.values.low_gib : null;
    if (low) assert.ok(line.includes(`(the vendor's figure: the driver may report ${low.toFixed(1)} GiB)`), line);
    else assert.ok(!line.includes('vendor'), line);
    assert.equal(line.includes('no room to spare'), e.tier === 'fits' && e.verdict === 'tight', line);
    vendor += low ? 1 : 0;
    tight += e.tier === 'fits' && e.verdict === 'tight' ? 1 : 0;
  }
  assert.ok(vendor > 0, 'a GPU on the vendor’s figure');
  assert.ok(tight > 0, 'a GPU that holds it tight');
});
