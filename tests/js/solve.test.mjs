// The solvers through the wasm module (the page's wrapper) and the CLI: the same answers as the
// core's own tests, and whatever a solver says runs does run when estimated.
import fs from 'node:fs';
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { api, cli, root } from './helpers.mjs';

const llama70 = { model: 'meta-llama/Llama-3.3-70B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 };
const runs = (e) => e.verdict === 'fits' || e.verdict === 'tight';
const finite = (x) => JSON.stringify(x, (k, v) => { if (typeof v === 'number') assert.ok(Number.isFinite(v), k); return v; });

test('module solve make_it_fit ranks changes whose request patches give the promised verdict', async () => {
  const r = await api.solve({ ...llama70, solve: 'make_it_fit' });
  assert.equal(r.already_fits, false);
  const fields = r.items.map((it) => it.change.field);
  assert.ok(fields.includes('quant') && fields.includes('count'), fields.join());
  for (let i = 1; i < r.items.length; i++) assert.ok(r.items[i].harm >= r.items[i - 1].harm);
  for (const it of r.items) {
    const e = await api.estimate({ ...llama70, ...it.request });
    assert.equal(e.verdict, it.verdict, JSON.stringify(it.change));
  }
  finite(r);
});

test('module solve max_context gives a context that runs while 256 more does not', async () => {
  const q = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', ram_gib: 64 };
  const r = await api.solve({ ...q, solve: 'max_context' });
  assert.ok(r.fits_at_min && r.max_context > 0 && r.max_context % 256 === 0, JSON.stringify(r));
  const ok = (c) => api.estimate({ ...q, context: c }).then((e) => e.verdict !== 'no_fit');
  assert.equal(await ok(r.max_context), true);
  assert.equal(await ok(r.max_context + 256), false);
});

test('module solve picks gives four cards, each naming hardware that runs the model', async () => {
  const q = { model: 'meta-llama/Llama-3.3-70B-Instruct', quant: 'Q4_K_M', context: 8192 };
  const r = await api.solve({ ...q, solve: 'picks' });
  for (const k of ['best_single_gpu', 'best_value', 'unified_memory', 'cheapest_cloud']) {
    if (!r[k]) continue;  // absent: nothing of that kind runs it
    const e = await api.estimate({ ...q, hardware: k === 'cheapest_cloud' ? r[k].device : r[k].id, count: r[k].count });
    assert.ok(runs(e), `${k}: ${e.verdict}`);
  }
  assert.ok(r.best_value && r.cheapest_cloud && r.unified_memory);
});

test('module solve refuses an unknown kind with bad_value at solve', async () => {
  await assert.rejects(api.solve({ ...llama70, solve: 'fastest' }), (/** @type {any} */ e) => e.code === 'bad_value' && e.path === 'solve');
});

test('CLI solve takes the estimate flags and --kind, and prints the same document as the module', async () => {
  const r = cli('solve', '--kind', 'best_quant', '--model', llama70.model, '--quant', 'Q4_K_M', '--hardware', 'nvidia-rtx-4090',
    '--context', '8192', '--json');
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const m = await api.solve({ ...llama70, solve: 'best_quant' });
  assert.deepEqual(r.json.best, m.best);
  assert.ok(r.json.quants.length > 20);
  const c = cli('solve', '--kind', 'cheapest', '--model', llama70.model, '--quant', 'Q4_K_M', '--context', '8192',
    '--min-decode-tps', '10', '--max-count', '4', '--json');
  assert.equal(c.code, 0, c.stdout + c.stderr);
  assert.ok(c.json.options.length > 0);
  for (const o of c.json.options) assert.ok(o.decode_tps >= 10 && o.count <= 4);
  const bad = cli('solve', '--kind', 'fastest', '--model', llama70.model, '--hardware', 'nvidia-rtx-4090', '--json');
  assert.equal(bad.code, 2);
  assert.equal(bad.json.error.path, 'solve');
});

test('smallest_device (module and CLI): the device runs the request alone with room to spare, and no accelerator with less memory does', async () => {
  const q = { model: 'meta-llama/Llama-3.3-70B-Instruct', quant: 'Q4_K_M', context: 8192 };
  const r = await api.solve({ ...q, solve: 'smallest_device' });
  assert.equal(r.found, true, JSON.stringify(r));
  assert.ok(runs(await api.estimate({ ...q, hardware: r.device.id, ram_gib: 0 })));
  const hw = await api.list('hardware');
  // The request names no hardware: the search stays among a desktop's devices (every catalog
  // entry whose segment is not "datacenter") and says so; a data-centre card with less memory
  // may hold it, and is not the answer while a desktop device does.
  assert.deepEqual(r.segment, { preferred: 'desktop', basis: 'default', left: false });
  assert.equal(r.device.segment, 'desktop');
  const dc = new Set(fs.readdirSync(path.join(root, 'data', 'hardware')).filter((f) => f.endsWith('.json'))
    .flatMap((f) => JSON.parse(fs.readFileSync(path.join(root, 'data', 'hardware', f), 'utf8')).devices)
    .filter((d) => d.segment === 'datacenter').map((d) => d.id));
  assert.ok(dc.has('amd-mi210'));
  const smaller = hw.filter((d) => d.kind !== 'cpu' && d.memory_gib < r.device.memory_gib && !dc.has(d.id));
  assert.ok(smaller.length > 0);
  const es = await api.estimateMany(smaller.map((d) => ({ ...q, hardware: d.id, ram_gib: 0 })));
  // A comfortable fit first: a smaller device may hold it only "tight" (no room to spare).
  assert.equal(r.device.verdict, 'fits');
  // ... or below the floor of "runs" (a 64 GB Jetson AGX Orin holds it at under 3 tokens/s: run_state too_slow).
  es.forEach((e, i) => assert.ok(e.error || e.verdict !== 'fits' || e.run_state === 'too_slow', `${smaller[i].id} fits it comfortably with less memory`));
  const c = cli('solve', '--kind', 'smallest_device', '--model', q.model, '--quant', q.quant, '--context', '8192', '--json');
  assert.ok(r.evaluations < smaller.length, 'devices below what the weights need are not estimated');
  assert.equal(c.code, 0, c.stdout + c.stderr);
  assert.deepEqual(c.json.device, r.device);
});
