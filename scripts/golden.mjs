// Golden journeys: every tests/golden/journeys/<name>.json ({about, api, request}) run through
// the native CLI (`willitfit api <api> <file>`); the answer is compared with <name>.expected.json
// after canonical formatting (tests/golden/canonical.mjs). With --update the expected files are
// (re)written instead; review the diff by eye before committing it.
//   node scripts/golden.mjs [--update]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { canonicalText, expectedFileText } from '../tests/golden/canonical.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = path.join(root, 'tests', 'golden', 'journeys');
const cli = path.join(root, 'build', 'cli', 'willitfit');
const update = process.argv.includes('--update');

/** The journeys, sorted by name. */
export function journeys() {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json')).sort()
    .map((f) => ({ name: f.slice(0, -5), file: path.join(dir, f), doc: JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) }));
}

/** The CLI's answer to one journey, parsed. @param {{file: string, doc: any}} j */
export function runCli(j) {
  const tmp = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'golden-')), 'request.json');
  fs.writeFileSync(tmp, JSON.stringify(j.doc.request));
  const r = spawnSync(cli, ['api', j.doc.api, tmp], { encoding: 'utf8', maxBuffer: 256 << 20 });
  fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
  if (r.error) throw r.error;
  return JSON.parse(r.stdout);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let bad = 0;
  for (const j of journeys()) {
    const got = runCli(j);
    const out = path.join(dir, `${j.name}.expected.json`);
    if (update) {
      fs.writeFileSync(out, expectedFileText(got));
      console.log(`wrote ${path.relative(root, out)}`);
      continue;
    }
    const want = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')).result : null;
    if (!want || canonicalText(want) !== canonicalText(got)) {
      bad++;
      console.log(`differs: ${j.name}`);
    }
  }
  if (!update) console.log(bad ? `${bad} journeys differ` : 'all journeys match');
  process.exit(bad ? 1 : 0);
}
