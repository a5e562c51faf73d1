// Hostile callers of the JS module (issues "Unbreakable under hostile input" and "Safe to paste
// and hard to brick"): every public function refuses what is not its argument with a
// WillitfitError (code, path), never embind's BindingError, a TypeError or a RangeError; a
// module that traps is rebuilt; deep nesting never damages the next call; batches are chunked,
// report progress and can be cancelled; GGUF headers at and past the caps are answered fast.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api, cli } from './helpers.mjs';

/** @type {any} */
const VALID = { model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 };
const reference = JSON.stringify(await api.estimate(VALID));
const core = await api.loadCore();

/** @param {Promise<any>|(() => any)} p @param {string} code @param {string} [path] */
async function refuses(p, code, path) {
  await assert.rejects(typeof p === 'function' ? (async () => p())() : p, (/** @type {any} */ e) => {
    assert.equal(e.name, 'WillitfitError', `${e.name}: ${e.message}`);
    assert.equal(e.code, code, e.message);
    if (path !== undefined) assert.equal(e.path, path, e.message);
    return true;
  });
}

// CPU time of this process in ms: the machine running the tests may be shared, so "within a
// second" is measured as work done, not wall time.
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const sameAsBefore = async () => assert.equal(JSON.stringify(await api.estimate(VALID)), reference);

const deep = (/** @type {number} */ n) => { /** @type {any} */ let x = []; for (let i = 0; i < n; i++) x = [x]; return x; };
const cyclic = () => { const o = { ...VALID }; o.self = o; return o; };

const requestFns = ['estimate', 'tiers', 'runsOn', 'solve', 'train', 'cost'];
/** @type {Array<[string, any]>} */
const notRequests = [['undefined', undefined], ['null', null], ['number', 42], ['string', 'meta-llama/Llama-3.1-8B-Instruct'],
  ['array', [VALID]], ['symbol', Symbol('x')], ['function', () => VALID], ['bigint', 5n]];

for (const fn of requestFns) {
  for (const [what, arg] of notRequests) {
    test(`${fn}(${what}) throws WillitfitError bad_type, and the next estimate is unchanged`, async () => {
      await refuses(api[fn](arg), 'bad_type', '');
      await sameAsBefore();
    });
  }
}

/** @type {Array<[string, any, string, string]>} */
const badFields = [
  ['a BigInt field', { ...VALID, context: 8192n }, 'bad_type', 'context'],
  ['a circular object', cyclic(), 'bad_type', 'self'],
  ['NaN', { ...VALID, context: NaN }, 'bad_value', 'context'],
  ['Infinity', { ...VALID, ram_gib: Infinity }, 'bad_value', 'ram_gib'],
  ['-Infinity in a device', { ...VALID, hardware: { name: 'x', kind: 'gpu', memory_gib: -Infinity, bandwidth_gbs: 1 } }, 'bad_value', 'hardware.memory_gib'],
  ['a function field', { ...VALID, quant: () => 'Q4_K_M' }, 'bad_type', 'quant'],
  ['a symbol field', { ...VALID, quant: Symbol('q') }, 'bad_type', 'quant'],
  ['a typed array field', { ...VALID, model: { gguf_header_base64: new Uint8Array(8) } }, 'bad_type', 'model.gguf_header_base64'],
  ['an object with toJSON', { ...VALID, model: { toJSON: () => 'meta-llama/Llama-3.1-8B-Instruct' } }, 'bad_type', 'model'],
  ['10,000 nested arrays in a config field', { ...VALID, model: { config: { model_type: 'llama', x: deep(10000) } } }, 'json_too_deep', ''],
  ['100,000 nested arrays in the model', { ...VALID, model: deep(100000) }, 'json_too_deep', ''],
  ['10,000 nested arrays under a request key', { ...VALID, extra: deep(10000) }, 'json_too_deep', ''],
  ['10,000 nested arrays in a device field', { ...VALID, hardware: { name: 'x', kind: 'gpu', memory_gib: 24, bandwidth_gbs: 1000, x: deep(10000) } }, 'json_too_deep', ''],
];
for (const [what, req, code, path] of badFields) {
  test(`estimate with ${what} gives ${code} @ ${path}, and the next estimate is unchanged`, async () => {
    await refuses(api.estimate(req), code, path);
    await sameAsBefore();
  });
}

test('a DAG that repeats one object 2^30 times is refused by its size, not expanded', async () => {
  /** @type {any} */ let x = [1];
  for (let i = 0; i < 30; i++) x = [x, x];
  await refuses(api.estimate({ ...VALID, extra: x }), 'json_too_large', '');
  await sameAsBefore();
});

test('30 deeply nested requests straight into the module, then a valid one: identical result', async () => {
  const text = `{"model": ${'['.repeat(100000)}${']'.repeat(100000)}, "hardware": "nvidia-rtx-4090"}`;
  for (let i = 0; i < 30; i++) {
    const doc = JSON.parse(core.estimate(text));
    assert.equal(doc.error.code, 'json_too_deep');
    assert.match(doc.error.message, /64/);
  }
  for (let i = 0; i < 30; i++) await refuses(api.estimate({ ...VALID, model: { config: deep(20000) } }), 'json_too_deep', '');
  await sameAsBefore();
});

test('list, ggufSummary, readGgufHeader, bytesToBase64, estimateMany and loadCore refuse what is not their argument', async () => {
  for (const w of [null, 42, {}, undefined]) await refuses(api.list(w), 'bad_type', 'what');
  for (const w of ['bogus', '__proto__', 'toString']) await refuses(api.list(w), 'bad_value', 'what');
  for (const b of [null, 42, {}, new Int32Array(4), [71, 71, 85, 70]]) await refuses(api.ggufSummary(b), 'bad_type', 'gguf');
  for (const b of [null, 'GGUF', {}, 42]) await refuses(api.readGgufHeader(b), 'bad_type', 'file');
  for (const b of [null, undefined, 'abc', [1, 2], 7]) await refuses(() => api.bytesToBase64(b), 'bad_type', 'bytes');
  for (const r of [null, VALID, 'x', 3]) await refuses(api.estimateMany(r), 'bad_type', '');
  await refuses(api.estimateMany([VALID], { chunk: 0 }), 'bad_value', 'opts.chunk');
  await refuses(api.estimateMany([VALID], { onProgress: 5 }), 'bad_type', 'opts.onProgress');
  await refuses(api.estimateMany(new Array(api.LIMITS.MAX_BATCH + 1).fill(VALID)), 'too_many_requests', '');
  await refuses(() => api.loadCore(42), 'bad_type', 'moduleUrl');
  assert.equal(api.bytesToBase64(new Uint8Array([71, 71, 85, 70])), 'R0dVRg==');
  await sameAsBefore();
});

test('a module that traps is rebuilt: the failing call is internal_error, the next call works', async () => {
  const before = api.moduleRebuilds();
  const live = await api.loadCore();
  const real = live.estimate;
  live.estimate = () => { throw new WebAssembly.RuntimeError('memory access out of bounds'); };
  await refuses(api.estimate(VALID), 'internal_error', '');
  live.estimate = real;
  assert.equal(api.moduleRebuilds(), before + 1);
  assert.notEqual(await api.loadCore(), live, 'a new instance after the trap');
  await sameAsBefore();
});

test('estimateMany: failed entries in place, chunks with progress, cancel between chunks', async () => {
  const reqs = Array.from({ length: 40 }, (_, i) => ({ ...VALID, context: 1024 * (1 + (i % 8)), detail: 'summary' }));
  reqs[3] = { ...VALID, context: NaN };
  reqs[7] = null;
  reqs[9] = { ...VALID, hardware: 'no-such-gpu' };
  const progress = [];
  const out = await api.estimateMany(reqs, { chunk: 16, onProgress: (d, n) => progress.push([d, n]) });
  assert.deepEqual(progress, [[16, 40], [32, 40], [40, 40]]);
  assert.equal(out.length, 40);
  assert.equal(out[3].error.code, 'bad_value');
  assert.equal(out[7].error.code, 'bad_type');
  assert.equal(out[9].error.code, 'unknown_hardware');
  assert.ok(out[0].memory && out[39].memory);
  const ctl = new AbortController();
  await refuses(api.estimateMany(reqs, { chunk: 8, signal: ctl.signal, onProgress: () => ctl.abort() }), 'cancelled', '');
  // Requests of megabytes each (GGUF headers) go to the module in runs under its request bound:
  // each gets its own answer instead of the chunk failing as one json_too_large.
  const big = { ...VALID, model: { gguf_header_base64: 'A'.repeat(10 * 1024 * 1024) } };
  const mixed = await api.estimateMany([VALID, big, big, VALID]);
  assert.deepEqual(mixed.map((x) => (x.error ? x.error.code : x.verdict)), ['fits', 'gguf_bad_magic', 'gguf_bad_magic', 'fits']);
  // Straight into the module: more than 1024 in one call is refused by the core itself.
  const doc = JSON.parse(core.estimateMany(JSON.stringify(new Array(1025).fill(VALID))));
  assert.equal(doc.error.code, 'too_many_requests');
});

test('estimateMany of 20,000 summary requests reports progress and stops between chunks when cancelled', async () => {
  const reqs = Array.from({ length: 20000 }, () => ({ ...VALID, detail: 'summary' }));
  const ctl = new AbortController();
  const t0 = Date.now();
  let seen = 0;
  const p = api.estimateMany(reqs, { signal: ctl.signal, onProgress: (d) => { seen = d; } });
  setTimeout(() => ctl.abort(), 300);
  await refuses(p, 'cancelled', '');
  assert.ok(Date.now() - t0 < 10000, `${Date.now() - t0} ms`);
  assert.ok(seen > 0 && seen < 20000, `${seen}`);
});

// --- GGUF headers built by hand: at the caps, past them.
function gguf({ nTensors = 0, kv = [] }) {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { const b = Buffer.isBuffer(s) ? s : Buffer.from(s); u64(b.length); parts.push(b); };
  parts.push(Buffer.from('GGUF'));
  u32(3);
  u64(nTensors);
  u64(kv.length);
  for (const [k, v] of kv) { str(k); u32(8); str(v); }
  for (let i = 0; i < nTensors; i++) { str(`t.${i}`); u32(1); u64(32); u32(0); u64(i * 128); }
  return new Uint8Array(Buffer.concat(parts));
}

test('a GGUF header with 100,000 tensors (the cap) is read in time linear in its tensors; 100,001 is gguf_too_large', async () => {
  // Against a tenth of the table read just before, in the same process: a reader linear in the
  // tensors takes about ten times as long, a quadratic one a hundred. (An absolute bound, one
  // second and a half of CPU, failed on a loaded 2-core machine at 1.7 s with the reader unchanged.)
  const small = gguf({ nTensors: 10000 });
  await api.ggufSummary(small);   // the reader's code compiled before either is timed
  const t0 = cpuMs();
  assert.equal((await api.ggufSummary(small)).gguf.n_tensors, 10000);
  const tenth = cpuMs() - t0;
  const bytes = gguf({ nTensors: 100000 });
  const t1 = cpuMs();
  const s = await api.ggufSummary(bytes);
  assert.equal(s.gguf.n_tensors, 100000);
  const whole = cpuMs() - t1;
  assert.ok(whole < 30 * Math.max(tenth, 5), `100,000 tensors took ${whole.toFixed(0)} ms of CPU, 10,000 took ${tenth.toFixed(0)} ms`);
  await refuses(api.ggufSummary(gguf({ nTensors: 100001 })), 'gguf_too_large', 'gguf');
  // The tensor table has the reader's bounds: the cap, a truncated prefix (with needed_bytes),
  // a header past 64 MiB, and base64 text (the table takes bytes only).
  assert.equal((await api.ggufSummary(bytes, { tensors: 'table' })).tensor_table.count, 100000);
  await refuses(api.ggufSummary(gguf({ nTensors: 100001 }), { tensors: 'table' }), 'gguf_too_large', 'gguf');
  await assert.rejects(api.ggufSummary(bytes.subarray(0, 1000), { tensors: 'table' }),
    (/** @type {any} */ e) => e.code === 'gguf_truncated' && e.neededBytes > 1000);
  await refuses(api.ggufSummary(new Uint8Array((64 << 20) + 1), { tensors: 'table' }), 'gguf_too_large', 'gguf');
  await refuses(api.ggufSummary(api.bytesToBase64(bytes.subarray(0, 64)), { tensors: 'table' }), 'bad_type', 'gguf');
  await sameAsBefore();
});

test('GGUF strings: a 2 MiB general.name and 9 MiB of strings in all are gguf_too_large, with the bound in the message', async () => {
  const t0 = cpuMs();
  await assert.rejects(api.ggufSummary(gguf({ kv: [['general.name', Buffer.alloc(2 << 20, 65)]] })),
    (/** @type {any} */ e) => e.code === 'gguf_too_large' && /1048576/.test(e.message));
  const many = Array.from({ length: 9 }, (_, i) => [`k.${i}`, Buffer.alloc(1 << 20, 66)]);
  await assert.rejects(api.ggufSummary(gguf({ kv: many })), (/** @type {any} */ e) => e.code === 'gguf_too_large' && /8388608/.test(e.message));
  await refuses(api.ggufSummary('A'.repeat(90 * 1024 * 1024)), 'gguf_too_large', 'gguf');
  assert.ok(cpuMs() - t0 < 3000, `${cpuMs() - t0} ms of CPU`);
  await sameAsBefore();
});

test('readGgufHeader stops growing its read at 64 MiB: a header that needs more is gguf_too_large', async () => {
  const arrayKv = (key) => {
    const b = Buffer.alloc(8 + key.length + 4 + 4 + 8);
    b.writeBigUInt64LE(BigInt(key.length), 0);
    b.write(key, 8);
    b.writeUInt32LE(9, 8 + key.length);            // array
    b.writeUInt32LE(10, 12 + key.length);           // of u64
    b.writeBigUInt64LE(1n << 22n, 16 + key.length); // 4,194,304 elements: 32 MiB
    return b;
  };
  const head = Buffer.alloc(24);
  head.write('GGUF', 0);
  head.writeUInt32LE(3, 4);
  head.writeBigUInt64LE(0n, 8);
  head.writeBigUInt64LE(3n, 16);
  const blob = new Blob([head, arrayKv('a'), new Uint8Array(32 << 20), arrayKv('b'), new Uint8Array(32 << 20), arrayKv('c'), new Uint8Array(1 << 16)]);
  const t0 = cpuMs();
  await refuses(api.readGgufHeader(blob), 'gguf_too_large', 'gguf');
  assert.ok(cpuMs() - t0 < 3000, `${cpuMs() - t0} ms of CPU`);
});

// --- documented results (not errors)
const TWO = ['nvidia-rtx-4090', 'nvidia-rtx-4090'];
test('--tensor-split 1e308,1e308 is the even split 1,1 (shares are relative and rescaled)', () => {
  const a = cli('estimate', '--json', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', TWO[0], '--hardware', TWO[1], '--tensor-split', '1e308,1e308');
  const b = cli('estimate', '--json', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', TWO[0], '--hardware', TWO[1], '--tensor-split', '1,1');
  assert.equal(a.code, 0, a.stdout);
  assert.deepEqual(a.json.memory.devices, b.json.memory.devices);
  assert.match(a.json.commands.llama_server, / -ts 1,1 /);
});

test('--ngl -1 means every layer and the output on the GPU (llama.cpp\'s "all"), the same as -ngl n_layer+1', () => {
  const all = cli('plan', '--json', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', 'nvidia-rtx-4090', '--ngl', '-1');
  const top = cli('plan', '--json', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', 'nvidia-rtx-4090', '--ngl', '33');
  assert.equal(all.code, 0, all.stdout);
  assert.equal(all.json.placement.ngl, 33);
  assert.deepEqual(all.json.memory, top.json.memory);
});

test('a device with fp16_tflops 0 is a device whose compute is not stated: the same result as leaving it out', async () => {
  const dev = { name: 'x', kind: 'gpu', memory_gib: 24, bandwidth_gbs: 1000, backend: 'cuda' };
  const a = await api.estimate({ ...VALID, hardware: { ...dev, fp16_tflops: 0 } });
  const b = await api.estimate({ ...VALID, hardware: dev });
  assert.deepEqual(a.memory, b.memory);
  assert.deepEqual(a.speed, b.speed);
  assert.ok(!JSON.stringify(a).match(/NaN|Infinity/));
});

test('every number in the CLI output is finite: NaN and Infinity flags are refused without being echoed', () => {
  for (const [flag, v] of [['--context', 'NaN'], ['--ram-gib', 'inf'], ['--gpu-memory-utilization', 'nan']]) {
    const r = cli('estimate', '--json', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--hardware', 'nvidia-rtx-4090', flag, v);
    assert.equal(r.code, 2);
    assert.doesNotMatch(r.stdout, /nan|inf/i);
  }
  const c = cli('cost', '--json', '--hardware', 'nvidia-rtx-4090', '--decode-tps', 'nan');
  assert.equal(c.json.error.code, 'bad_value');
  assert.doesNotMatch(c.stdout, /nan/i);
});
