// The accuracy report through the wasm module: its shape, and the same figures as the CLI's
// `willitfit accuracy --json` (one core, two front doors).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';

import { api, cli, root } from './helpers.mjs';

const close = (a, b, tol) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

test('accuracyReport has every group, finite figures and one point per predicted row', async () => {
  const a = (await api.accuracyReport()).accuracy;
  assert.equal(a.groups.length, 8);
  for (const kind of ['tg', 'pp']) {
    for (const split of ['in_sample', 'held_out', 'multi_gpu', 'offloaded']) {
      const g = a.groups.find((x) => x.kind === kind && x.split === split);
      assert.ok(g, `${kind}/${split}`);
      assert.ok(Number.isFinite(g.median_ape_pct) && Number.isFinite(g.within_25_pct));
      const n = a.points.filter((p) => p.kind === kind && (split === 'in_sample' ? p.group === 'single'
        : split === 'held_out' ? p.group === 'single' && p.held_out : p.group === split)).length;
      assert.equal(g.rows, n, `${kind}/${split} rows`);
    }
  }
  assert.equal(a.points.length, a.rows_used);
  for (const p of a.points) {
    assert.ok(p.measured_tps > 0 && p.predicted_tps > 0 && Number.isFinite(p.error_pct), p.row_id);
    assert.ok(['single', 'multi_gpu', 'offloaded'].includes(p.group));
    assert.equal(typeof p.source, 'string');
  }
  assert.ok(a.points.some((p) => p.group === 'multi_gpu' && p.gpu_count > 1));
});

test('the module and the CLI report the same accuracy figures', async () => {
  const w = (await api.accuracyReport()).accuracy;
  const c = cli('accuracy', '--json');
  assert.equal(c.code, 0);
  const n = c.json.accuracy;
  assert.equal(w.rows_total, n.rows_total);
  assert.equal(w.rows_used, n.rows_used);
  assert.deepEqual(w.excluded, n.excluded);
  for (const g of n.groups) {
    const m = w.groups.find((x) => x.kind === g.kind && x.split === g.split);
    assert.equal(m.rows, g.rows);
    // The held-out refit runs in both; libm differences may move a figure in the last digits only.
    assert.ok(close(m.median_ape_pct, g.median_ape_pct, 1e-6), `${g.kind}/${g.split} median`);
    assert.ok(close(m.within_25_pct, g.within_25_pct, 1e-9), `${g.kind}/${g.split} within`);
  }
  assert.equal(w.points.length, n.points.length);
  w.points.forEach((p, i) => {
    assert.equal(p.row_id, n.points[i].row_id);
    assert.ok(close(p.predicted_tps, n.points[i].predicted_tps, 1e-9), p.row_id);
  });
});

test('the report the build serves beside the app (dist/accuracy.json) is the module\'s, and a second call gives the same', async () => {
  const doc = await api.accuracyReport();
  const built = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'accuracy.json'), 'utf8'));
  assert.deepEqual(built, doc);
  const again = await api.accuracyReport();
  assert.deepEqual(again, doc);
  again.accuracy.points.length = 0;   // each call gets its own copy: a caller cannot spoil the next
  assert.equal((await api.accuracyReport()).accuracy.points.length, doc.accuracy.points.length);
});

test('the speculative rows name their device in codes the schema holds, every catalog id known', async () => {
  const a = (await api.accuracyReport()).accuracy;
  const schema = JSON.parse(fs.readFileSync(path.join(root, 'core', 'schema', 'result.schema.json'), 'utf8'));
  const valid = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  assert.ok(valid({ schema_version: 1, accuracy: a }), JSON.stringify(valid.errors?.slice(0, 5)));
  // The schema refuses the published wording and a row named two ways.
  const row = a.speculative.rows.find((r) => r.device);
  assert.equal(valid({ schema_version: 1, accuracy: { speculative: { rows: [{ ...row, hardware: 'RTX 3090 24GB (250 W cap)' }] } } }), false);
  assert.equal(valid({ schema_version: 1, accuracy: { speculative: { rows: [{ ...row, device_unnamed: true }] } } }), false);
  const ids = new Set((await api.list('hardware')).map((d) => d.id));
  const named = a.speculative.rows.flatMap((r) => (r.device ? [r.device] : r.device_options || []));
  assert.ok(named.length >= 25);
  for (const id of named) assert.ok(ids.has(id), id);
  // Two cards, a power limit and an overclock, as codes and numbers.
  const by = Object.fromEntries(a.speculative.rows.map((r) => [r.row_id, r]));
  assert.deepEqual([by['spec-0001'].device, by['spec-0001'].gpu_count], ['nvidia-rtx-5090', 2]);
  assert.equal(by['spec-0013'].power_limit_w, 250);
  assert.equal(by['spec-0014'].overclocked, true);
  assert.ok(a.speculative.rows.filter((r) => r.device_unnamed).length >= 9);
});
