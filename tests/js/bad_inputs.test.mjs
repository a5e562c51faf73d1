// Every case of tests/golden/bad_inputs.json through the wasm module (raw text and the JS
// wrapper) and through the CLI: the structured error with the expected code and path, never a
// crash, and the CLI exits 2 with the error document on stdout.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { cliOf, requestOf, table, textOf } from './bad_inputs.mjs';
import { api, cli } from './helpers.mjs';

const core = await api.loadCore();
const expected = (c) => `${c.code} @ ${c.path}`;
// One bad request must never damage the next good one: after every case, this request gives
// exactly the document it gave before any.
const validText = JSON.stringify(table.base);
const reference = core.estimate(validText);

test('the bad-input table holds at least 200 cases, each with a code and a path', () => {
  assert.ok(table.cases.length >= 200, `${table.cases.length} cases`);
  const ids = new Set();
  for (const c of table.cases) {
    assert.ok(c.id && !ids.has(c.id), `duplicate or empty id ${c.id}`);
    ids.add(c.id);
    assert.equal(typeof c.code, 'string');
    assert.equal(typeof c.path, 'string');
  }
});

for (const c of table.cases) {
  const text = textOf(c);
  if (text !== null) {
    test(`module refuses ${c.id} with ${expected(c)}`, async () => {
      const fn = c.api || 'estimate';  // "api": "solve" cases go to the solvers
      const doc = JSON.parse(core[fn](text));
      assert.ok(doc.error, `no error for ${c.id}: ${JSON.stringify(doc).slice(0, 200)}`);
      assert.equal(`${doc.error.code} @ ${doc.error.path}`, expected(c), doc.error.message);
      assert.ok(doc.error.message.length > 0);
      const r = requestOf(c);
      if (r !== null)
        await assert.rejects(api[fn](r), (/** @type {any} */ e) => e.name === 'WillitfitError' && e.code === c.code && e.path === c.path);
      assert.equal((await api.loadCore()).estimate(validText), reference, `a valid request after ${c.id}`);
    });
  }
  const route = cliOf(c);
  if (route) {
    test(`CLI refuses ${c.id} with ${expected(c)}`, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-bad-'));
      for (const [name, body] of Object.entries(route.files)) fs.writeFileSync(path.join(dir, name), body);
      const [cmd, ...rest] = route.args.map((a) => a.replace('{dir}', dir));
      // --json after the command, so a flag left without value stays so; no command at all is
      // run bare (and a case may ask for `willitfit --json` by giving just that).
      const r = cmd === undefined ? cli() : cmd === '--json' ? cli('--json') : cli(cmd, '--json', ...rest);
      fs.rmSync(dir, { recursive: true, force: true });
      assert.equal(r.code, 2, `exit ${r.code}: ${r.stdout}${r.stderr}`);
      assert.ok(r.json && r.json.error, r.stdout);
      assert.equal(`${r.json.error.code} @ ${r.json.error.path}`, expected(c), r.json.error.message);
    });
  }
}
