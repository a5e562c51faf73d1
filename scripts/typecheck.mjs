// The type check of the page's JavaScript and the JS tests: `tsc --noEmit -p .` (tsconfig.json at
// the repository root: checkJs over web/ and tests/js, with the hand-written web/willitfit.d.ts
// where it exists), reported per file in TAP's words so scripts/test.mjs counts it like a test
// level: "ok <file>" when the file has no error, "not ok <file>" with its errors otherwise.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', root, '--pretty', 'false', '--listFiles'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
const out = `${r.stdout || ''}${r.stderr || ''}`;
if (r.error || (r.status !== 0 && !/error TS/.test(out))) {
  console.log(out || String(r.error));
  console.log('not ok tsc did not run\n# pass 0\n# fail 1');
  process.exit(1);
}
const rel = (/** @type {string} */ f) => path.relative(root, path.resolve(root, f));
// Project files: those tsc read from web/ and tests/js (not the libraries' declarations).
const files = out.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('/') && !l.includes('/node_modules/'))
  .map(rel).filter((f) => f.startsWith('web/') || f.startsWith('tests/') || f.startsWith('scripts/'));
/** @type {Map<string, string[]>} */
const errors = new Map();
for (const line of out.split('\n')) {
  const m = /^(.+?)\(\d+,\d+\): error TS\d+/.exec(line);
  if (!m) continue;
  const f = rel(m[1]);
  if (!errors.has(f)) errors.set(f, []);
  errors.get(f)?.push(line);
}
let pass = 0, fail = 0;
for (const f of [...new Set([...files, ...errors.keys()])].sort()) {
  const e = errors.get(f);
  if (e) { fail++; console.log(`not ok ${f}\n${e.map((x) => `  ${x}`).join('\n')}`); } else { pass++; console.log(`ok ${f}`); }
}
console.log(`# pass ${pass}\n# fail ${fail}`);
process.exit(fail === 0 && pass > 0 ? 0 : 1);
