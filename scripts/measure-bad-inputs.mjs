// Time and memory of every case of the bad-input table (tests/golden/bad_inputs.json) through the
// native CLI, each in its own process under /usr/bin/time -v: the case's own CLI arguments where
// it has them, else its request text given to `willitfit api <api> FILE`. Prints the ten slowest
// (CPU) and the ten largest (peak resident memory) and the limits they are held to (1 s, 300 MB).
//   node scripts/measure-bad-inputs.mjs        (needs build/cli/willitfit: bash scripts/build.sh)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { cliOf, table, textOf } from '../tests/js/bad_inputs.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = path.join(root, 'build', 'cli', 'willitfit');
if (!fs.existsSync(cli)) { console.error('measure-bad-inputs: build the CLI first (bash scripts/build.sh)'); process.exit(1); }

/** @param {string[]} args */
function timed(args) {
  const r = spawnSync('/usr/bin/time', ['-v', cli, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const f = (/** @type {RegExp} */ re) => { const m = re.exec(r.stderr); return m ? m[1] : ''; };
  const wall = f(/Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/).split(':').reduce((s, x) => s * 60 + Number(x), 0);
  return {
    cpu: Number(f(/User time \(seconds\): ([\d.]+)/)) + Number(f(/System time \(seconds\): ([\d.]+)/)),
    wall, rssMb: Number(f(/Maximum resident set size \(kbytes\): (\d+)/)) / 1024, exit: r.status,
  };
}

const rows = [];
for (const c of table.cases) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-measure-'));
  try {
    const route = cliOf(c);
    let args;
    if (route) {
      for (const [name, body] of Object.entries(route.files)) fs.writeFileSync(path.join(dir, name), body);
      args = route.args.map((a) => a.replace('{dir}', dir));
      if (args.length && args[0] !== '--json') args.splice(1, 0, '--json');
    } else {
      const text = textOf(c);
      if (text === null) continue;
      fs.writeFileSync(path.join(dir, 'request.json'), text);
      args = ['api', c.api || 'estimate', path.join(dir, 'request.json')];
    }
    rows.push({ id: c.id, ...timed(args) });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
const fmt = (/** @type {any} */ r) => `${r.id} ${r.cpu.toFixed(2)} s CPU, ${r.wall.toFixed(2)} s wall, ${r.rssMb.toFixed(1)} MB`;
console.log(`${rows.length} of ${table.cases.length} cases measured (load ${os.loadavg()[0].toFixed(1)})`);
console.log('slowest ten (CPU):');
for (const r of [...rows].sort((a, b) => b.cpu - a.cpu).slice(0, 10)) console.log(`  ${fmt(r)}`);
console.log('largest ten (peak resident memory):');
for (const r of [...rows].sort((a, b) => b.rssMb - a.rssMb).slice(0, 10)) console.log(`  ${fmt(r)}`);
const over = rows.filter((r) => r.cpu > 1 || r.rssMb > 300);
console.log(over.length ? `over 1 s of CPU or 300 MB: ${over.map(fmt).join('; ')}` : 'none over 1 s of CPU or 300 MB');
process.exit(over.length ? 1 : 0);
