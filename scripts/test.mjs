// npm test, after setup and build: runs the three levels of tests and ends with one line
// "N passed, N failed". Exits non-zero if anything failed or if a level ran no test.
//  1. node --test on the built wasm module and the CLI  (tests/js)
//  2. the include graph of core/, and the type check: tsc --noEmit -p . over web/, tests/js and
//     scripts/, one result per file
//  3. node --test driving the real page in Chromium     (tests/web)
//  4. Catch2 on the core in four processes (scripts/catch2-shards.mjs) with the fuzz-corpus
//     replays, built and run once under ASan+UBSan (build-asan/, clang)
//  5. a short libFuzzer run of each target in tests/fuzz (the fuzzers of build-asan/)
//  Levels 4 and 5 (scripts/test-sanitizers.mjs) build and run in the background from the start:
//  on two cores the browser level leaves little idle, so the order matters less than doing each
//  compile and each run once.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { nodeCounts, sanitizerLevels } from './test-counts.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const levels = [];

function run(name, cmd, args, parse, env = {}) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 28 });
  const out = (r.stdout || '') + (r.stderr || '');
  process.stdout.write(out);
  const { passed, failed } = parse(out);
  const bad = r.status !== 0 && failed === 0 ? 1 : 0;  // a crash counts as a failure
  levels.push({ name, passed, failed: failed + bad, ran: passed + failed > 0 });
}

const files = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join(dir, f));

fs.mkdirSync('build', { recursive: true });
const sanLog = path.join('build', 'test-sanitizers.log');
const sanFd = fs.openSync(sanLog, 'w');
const sanStart = Date.now();
const sanitizers = spawn('nice', ['-n', '10', process.execPath, 'scripts/test-sanitizers.mjs'], { stdio: ['ignore', sanFd, sanFd] });
const sanDone = new Promise((resolve) => sanitizers.on('exit', (code) => resolve(code)));

run('wasm module and CLI (node --test)', process.execPath, ['--test', '--test-reporter=tap', ...files('tests/js')], nodeCounts);
// The include graph of core/: no cycle and no include up the folders' layer order (one check).
run('include graph of core/ (scripts/check-includes.mjs)', process.execPath, ['scripts/check-includes.mjs'],
  (out) => (/check-includes: no cycle, no include up the layer order/.test(out) ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 }));
run('type check (tsc --checkJs over web/ and tests/js)', process.execPath, ['scripts/typecheck.mjs'], nodeCounts);
run('page in Chromium (Playwright)', process.execPath,
  ['--test', '--test-reporter=tap', '--test-concurrency=1', ...files('tests/web')], nodeCounts);


// The sanitizer chain: wait for it, print its output, count its two levels.
const sanCode = await sanDone;
fs.closeSync(sanFd);
const sanOut = fs.readFileSync(sanLog, 'utf8');
console.log(`\n=== sanitizer chain (background since the start, finished ${((Date.now() - sanStart) / 1000).toFixed(0)} s after it, exit ${sanCode})`);
process.stdout.write(sanOut);
levels.push(...sanitizerLevels(sanOut));

console.log('\n=== summary');
let passed = 0, failed = 0;
for (const l of levels) {
  console.log(`${l.name}: ${l.passed} passed, ${l.failed} failed${l.ran ? '' : ' (ran no test)'}`);
  passed += l.passed;
  failed += l.failed + (l.ran ? 0 : 1);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
