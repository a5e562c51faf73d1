// A bounded fuzz run of the request API through the JS wrapper (fixed seed, 2,500 iterations):
// valid requests mutated the way a hostile caller would (wrong types, huge and tiny numbers,
// NaN, BigInt, deep nesting, long strings, prototype keys, device lists, cycles). Every call
// must resolve to a document with only finite numbers or reject with a WillitfitError carrying
// a string code and path; every 100 calls a valid request must give the identical result.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api } from './helpers.mjs';

const VALID = { model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 };
const CFG = { model_type: 'llama', hidden_size: 2048, intermediate_size: 8192, num_attention_heads: 16, num_hidden_layers: 16,
  num_key_value_heads: 8, vocab_size: 32000, max_position_embeddings: 8192 };
const DEV = { name: 'x', kind: 'gpu', memory_gib: 24, bandwidth_gbs: 1000 };

// mulberry32: a small seeded generator, so a failure replays exactly.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['model', 'quant', 'hardware', 'context', 'kv_type', 'parallel', 'ubatch', 'engine', 'count', 'ram_gib', 'flash_attn',
  'ngl', 'n_cpu_moe', 'tensor_split', 'gpu_memory_utilization', 'max_num_seqs', 'detail', 'prompt', 'gen', 'depth', 'backend',
  '__proto__', 'constructor', 'toString', 'solve'];

function fuzzValue(r, depth = 0) {
  const pick = Math.floor(r() * 22);
  let x;
  switch (pick) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return Math.floor(r() * 2 ** 31) - 2 ** 30;
    case 3: return [0, -0, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 1e12, -1][Math.floor(r() * 8)];
    case 4: return [NaN, Infinity, -Infinity][Math.floor(r() * 3)];
    case 5: return BigInt(Math.floor(r() * 1000));
    case 6: return 'x'.repeat(Math.floor(r() * 10000));
    case 7: return ['__proto__', 'toString', 'Q4_K_M', 'nvidia-rtx-4090', 'meta-llama/Llama-3.1-8B-Instruct', '', '\u0000', '$(id)', 'é'][Math.floor(r() * 9)];
    case 8: x = []; for (let i = 0; i < 70 + Math.floor(r() * 5000); i++) x = [x]; return x;
    case 9: return depth < 3 ? Array.from({ length: Math.floor(r() * 5) }, () => fuzzValue(r, depth + 1)) : [];
    case 10: return depth < 3 ? { ...DEV, [KEYS[Math.floor(r() * KEYS.length)]]: fuzzValue(r, depth + 1) } : {};
    case 11: return { config: { ...CFG, [Object.keys(CFG)[Math.floor(r() * 8)]]: depth < 3 ? fuzzValue(r, depth + 1) : 0 } };
    case 12: return new Array(1 + Math.floor(r() * 200)).fill('nvidia-rtx-4090');
    case 13: return undefined;
    case 14: return () => 1;
    case 15: return Symbol('s');
    case 16: { const o = { a: 1 }; o.o = o; return o; }
    case 17: return { gguf_header_base64: ['', 'R0dVRg==', '!!!', 'R0dVRgMAAAA='][Math.floor(r() * 4)] };
    default: return Math.floor(r() * 200000);
  }
}

function mutate(r) {
  /** @type {any} */
  const q = { ...VALID };
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const k = KEYS[Math.floor(r() * KEYS.length)];
    if (r() < 0.15) delete q[k];
    else Object.defineProperty(q, k, { value: fuzzValue(r), enumerable: true, writable: true, configurable: true });
  }
  if (r() < 0.1) q.detail = 'summary';
  return q;
}

// CPU time of this process (the module runs on this thread), not wall time: test machines are shared.
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const finiteOnly = (v) => {
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'number') assert.ok(Number.isFinite(x), `non-finite number ${x}`);
    else if (x && typeof x === 'object') stack.push(...Object.values(x));
  }
};

test('2,500 mutated requests: a finite document or a coded WillitfitError each, and the module stays sound', async () => {
  const r = rng(0x5eed2026);
  const reference = JSON.stringify(await api.estimate(VALID));
  // The heaviest call of the mix is a runs-on sweep: every catalog model planned on the device
  // (about 0.75 s of CPU warm, 1.3 s the first time). It is made once, warm, before the loop, and
  // its CPU time in this run is the yardstick: no mutated call may take more than twice it (nor
  // more than 1.5 s where that is higher), whatever the load on the machine.
  await api.runsOn({ hardware: VALID.hardware, context: VALID.context });
  const r0 = cpuMs();
  await api.runsOn({ hardware: VALID.hardware, context: VALID.context });
  const limit = Math.max(1500, 2 * (cpuMs() - r0));
  const codes = new Map();
  const t0 = Date.now();
  let slowest = 0;
  for (let i = 0; i < 2500; i++) {
    const q = mutate(r);
    const fn = r() < 0.05 ? 'runsOn' : r() < 0.05 ? 'solve' : 'estimate';
    if (fn === 'runsOn') { delete q.model; delete q.quant; }
    if (fn === 'solve') q.solve = ['max_context', 'best_quant', 'bogus'][Math.floor(r() * 3)];
    const t = cpuMs();
    try {
      finiteOnly(await api[fn](q));
      codes.set('ok', (codes.get('ok') || 0) + 1);
    } catch (e) {
      assert.equal(e.name, 'WillitfitError', `iteration ${i}: ${e.name} ${e.message}`);
      assert.equal(typeof e.code, 'string');
      assert.equal(typeof e.path, 'string');
      assert.notEqual(e.code, 'internal_error', `iteration ${i}: ${e.message}`);
      codes.set(e.code, (codes.get(e.code) || 0) + 1);
    }
    slowest = Math.max(slowest, cpuMs() - t);
    if (i % 100 === 99) assert.equal(JSON.stringify(await api.estimate(VALID)), reference, `after iteration ${i}`);
  }
  assert.ok(codes.size >= 8, `only ${[...codes.keys()]}`);
  assert.ok(slowest < limit, `slowest call took ${slowest} ms of CPU, limit ${limit} ms`);
  console.log(`fuzz_api: ${Date.now() - t0} ms wall, slowest call ${slowest.toFixed(0)} ms of CPU (limit ${limit.toFixed(0)}), outcomes ${JSON.stringify(Object.fromEntries(codes))}`);
});
