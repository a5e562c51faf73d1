// npm test, after setup: builds (scripts/build.sh), runs the levels of tests and ends with one
// line "N passed, N failed". Exits non-zero if anything failed or if a level ran no test.
//  1. node --test on the built wasm module and the CLI  (tests/js)
//  2. the include graph of core/, and the type check: tsc --noEmit -p . over web/, tests/js and
//     scripts/, one result per file
//  3. node --test driving the real page in Chromium     (tests/web)
//  4. Catch2 on the core in four processes (scripts/catch2-shards.mjs) with the fuzz-corpus
//     replays, built and run once under ASan+UBSan (build-asan/, clang)
//  5. a short libFuzzer run of each target in tests/fuzz (the fuzzers of build-asan/)
//  Levels 4 and 5 (scripts/test-sanitizers.mjs) build and run in the background from the start,
//  before the native and wasm builds: on two cores those and the browser level leave little idle
//  (the links, the configure steps and the site's assembly are single-threaded; the chain fills
//  those gaps), so the order matters less than doing each compile and each run once.
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
// In a process group of its own, so that the whole chain (cmake, the compilers, the test
// processes) can be stopped with it: when the build fails, and when npm test is interrupted.
const sanitizers = spawn('nice', ['-n', '10', process.execPath, 'scripts/test-sanitizers.mjs'], { stdio: ['ignore', sanFd, sanFd], detached: true });
const sanDone = new Promise((resolve) => sanitizers.on('exit', (code) => resolve(code)));
let sanEnded = false;
sanDone.then(() => { sanEnded = true; });
const stopSanitizers = () => { if (!sanEnded) try { process.kill(-(/** @type {number} */ (sanitizers.pid)), 'SIGTERM'); } catch { /* already gone */ } };
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(sig, () => { stopSanitizers(); process.exit(130); });

console.log('\n=== build (scripts/build.sh: the native CLI, the wasm module, the site)');
const build = spawnSync('bash', ['scripts/build.sh'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.log('build failed: no test ran');
  stopSanitizers();
  process.exit(1);
}

run('wasm module and CLI (node --test)', process.execPath, ['--test', '--test-reporter=tap', ...files('tests/js')], nodeCounts);
// The include graph of core/: no cycle and no include up the folders' layer order (one check).
run('include graph of core/ (scripts/check-includes.mjs)', process.execPath, ['scripts/check-includes.mjs'],
  (out) => (/check-includes: no cycle, no include up the layer order/.test(out) ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 }));
run('type check (tsc --checkJs over web/ and tests/js)', process.execPath, ['scripts/typecheck.mjs'], nodeCounts);
// Two test files at a time: one file's Chromium left part of the two cores idle (its waits, its
// single-threaded steps), which the niced sanitizer chain filled while it ran; on the clean clone
// of 2026-12-07 the chain ended 583 s before the page level, which ran those 583 s one file at a
// time. Each file has its own server and browser on ports of their own.
run('page in Chromium (Playwright)', process.execPath,
  ['--test', '--test-reporter=tap', '--test-concurrency=2', ...files('tests/web')], nodeCounts);


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
