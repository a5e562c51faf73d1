// Golden journeys (tests/golden/journeys): the native CLI and the wasm module each give the
// expected document byte for byte after canonical formatting, and every document validates
// against core/schema/result.schema.json (requests against request.schema.json).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';

import { canonicalText } from '../golden/canonical.mjs';
import { api, root } from './helpers.mjs';
import { journeys, runCli } from '../../scripts/golden.mjs';

const schema = (n) => JSON.parse(fs.readFileSync(path.join(root, 'core', 'schema', n), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validResult = ajv.compile(schema('result.schema.json'));
const validRequest = ajv.compile(schema('request.schema.json'));
const core = await api.loadCore();
const wasmFn = { estimate: 'estimate', solve: 'solve', train: 'train', cost: 'cost', tiers: 'tiers', runs_on: 'runsOn', defaults: 'defaults' };
const all = journeys();

test('there are at least 20 journeys over every engine, training, cost, solvers and tiers', () => {
  assert.ok(all.length >= 20, String(all.length));
  const engines = new Set(all.map((j) => j.doc.request.engine || 'llama.cpp'));
  for (const e of ['llama.cpp', 'vllm', 'sglang']) assert.ok(engines.has(e), e);
  const apis = new Set(all.map((j) => j.doc.api));
  for (const a of ['estimate', 'solve', 'train', 'cost', 'tiers']) assert.ok(apis.has(a), a);
});

for (const j of all) {
  test(`journey ${j.name}: CLI and wasm give the expected document, which validates`, () => {
    assert.ok(validRequest(j.doc.request), JSON.stringify(validRequest.errors));
    const expectedFile = path.join(root, 'tests', 'golden', 'journeys', `${j.name}.expected.json`);
    const text = fs.readFileSync(expectedFile, 'utf8');
    assert.match(text.split('\n')[0], /generated_by.*scripts\/golden\.mjs/);
    const want = JSON.parse(text).result;
    assert.ok(validResult(want), JSON.stringify(validResult.errors?.slice(0, 5)));
    const fromCli = runCli(j);
    assert.equal(canonicalText(fromCli), canonicalText(want), 'CLI');
    const fromWasm = JSON.parse(core[wasmFn[j.doc.api]](JSON.stringify(j.doc.request)));
    assert.equal(canonicalText(fromWasm), canonicalText(want), 'wasm');
  });
}
