// npm test, after setup and build: runs the three levels of tests and ends with one line
// "N passed, N failed". Exits non-zero if anything failed or if a level ran no test.
//  1. Catch2 on the core, through CTest (one CTest test per TEST_CASE)
//  2. node --test on the built wasm module and the CLI  (tests/js)
//     then the type check: tsc --noEmit -p . over web/ and tests/js, one result per file
//  3. node --test driving the real page in Chromium     (tests/web)
//  4. the core's Catch2 tests and fuzz-corpus replays again under ASan+UBSan (build-asan/, clang)
//  5. a short libFuzzer run of each target in tests/fuzz (build-fuzz/; scripts/fuzz.mjs)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

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

function ctestCounts(out) {
  const m = out.match(/(\d+)% tests passed, (\d+) tests failed out of (\d+)/);
  if (!m) return { passed: 0, failed: 0 };
  const total = Number(m[3]);
  const failed = Number(m[2]);
  return { passed: total - failed, failed };
}

function nodeCounts(out) {
  const pass = [...out.matchAll(/^# pass (\d+)/gm)].map((x) => Number(x[1]));
  const fail = [...out.matchAll(/^# fail (\d+)/gm)].map((x) => Number(x[1]));
  return { passed: pass.reduce((a, b) => a + b, 0), failed: fail.reduce((a, b) => a + b, 0) };
}

const files = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join(dir, f));

run('core (Catch2 via CTest)', 'ctest', ['--test-dir', 'build', '--output-on-failure', '-j2'], ctestCounts);
run('wasm module and CLI (node --test)', process.execPath, ['--test', '--test-reporter=tap', ...files('tests/js')], nodeCounts);
// The include graph of core/: no cycle and no include up the folders' layer order (one check).
run('include graph of core/ (scripts/check-includes.mjs)', process.execPath, ['scripts/check-includes.mjs'],
  (out) => (/check-includes: no cycle, no include up the layer order/.test(out) ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 }));
run('type check (tsc --checkJs over web/ and tests/js)', process.execPath, ['scripts/typecheck.mjs'], nodeCounts);
run('page in Chromium (Playwright)', process.execPath,
  ['--test', '--test-reporter=tap', '--test-concurrency=1', ...files('tests/web')], nodeCounts);

// Sanitizers: only the test binary and the corpus replays, to keep the added time to minutes.
const t0 = Date.now();
const cxx = spawnSync('clang++', ['--version']).status === 0 ? { CC: 'clang', CXX: 'clang++' } : {};
const asanCfg = spawnSync('cmake', ['-S', '.', '-B', 'build-asan', '-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_CXX_FLAGS_RELEASE=-O1', '-DWIF_SANITIZE=ON'],
  { stdio: 'inherit', env: { ...process.env, ...cxx } });
const replays = fs.readdirSync('tests/fuzz').filter((f) => /^fuzz_\w+\.cpp$/.test(f)).map((f) => `replay_${f.slice(5, -4)}`);
const asanBuild = asanCfg.status === 0 && spawnSync('cmake', ['--build', 'build-asan', '-j2', '--target', 'willitfit_tests', ...replays],
  { stdio: 'inherit' }).status === 0;
if (asanBuild) {
  run('core under ASan+UBSan (CTest in build-asan)', 'ctest', ['--test-dir', 'build-asan', '--output-on-failure', '-j2'], ctestCounts,
    { ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=1', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' });
} else {
  levels.push({ name: 'core under ASan+UBSan (build failed)', passed: 0, failed: 1, ran: true });
}
console.log(`(sanitizer level took ${((Date.now() - t0) / 1000).toFixed(0)} s)`);

function fuzzCounts(out) {
  return { passed: (out.match(/^ok \w+ \d+ execs/gm) || []).length, failed: (out.match(/^not ok /gm) || []).length };
}
run('short fuzzing (libFuzzer, ASan+UBSan)', process.execPath, ['scripts/fuzz.mjs', '--seconds', process.env.WIF_FUZZ_SECONDS || '25'], fuzzCounts);

console.log('\n=== summary');
let passed = 0, failed = 0;
for (const l of levels) {
  console.log(`${l.name}: ${l.passed} passed, ${l.failed} failed${l.ran ? '' : ' (ran no test)'}`);
  passed += l.passed;
  failed += l.failed + (l.ran ? 0 : 1);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
