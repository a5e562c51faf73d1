// The core's levels of npm test, as one chain that scripts/test.mjs starts in the background
// (at a lower CPU priority) while the JS and browser levels run, and whose output it reads
// afterwards. The Catch2 tests are built and run once, instrumented, rather than once plain and
// once more under the sanitizers:
//  1. configure and build build-asan/ (clang, -O1, ASan+UBSan; under clang the same objects also
//     make the libFuzzer targets, see tests/fuzz/CMakeLists.txt): the Catch2 binary and the
//     fuzzers, compiled once (without clang: the corpus replays instead of the fuzzers);
//  2. the core's Catch2 tests under the sanitizers, in a few processes (scripts/catch2-shards.mjs:
//     one per case, as CTest runs them, loaded the catalog 450 times);
//  3. a short libFuzzer run of each target, two at a time (scripts/fuzz.mjs --build-dir build-asan).
//     libFuzzer first runs every committed corpus and regression input it is given, so this is
//     also their replay; the replay_<target> programs (tests/fuzz/replay_main.cpp) ran the same
//     inputs through the same instrumented code a second time, and are built and run through
//     CTest only where there is no libFuzzer (no clang).
// Each part starts with a line "=== <part>" so that test.mjs can count each as its own level.
// Run alone (node scripts/test-sanitizers.mjs) it does the same in the foreground.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { runShards } from './catch2-shards.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const B = 'build-asan';
const clang = spawnSync('clang++', ['--version']).status === 0;
const cxx = clang ? { CC: 'clang', CXX: 'clang++' } : {};
const sh = (cmd, args, env = {}) => spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status === 0;

const t0 = Date.now();
console.log('=== sanitizer build');
const replays = fs.readdirSync('tests/fuzz').filter((f) => /^fuzz_\w+\.cpp$/.test(f)).map((f) => `replay_${f.slice(5, -4)}`);
const built = sh('cmake', ['-S', '.', '-B', B, '-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_CXX_FLAGS_RELEASE=-O1', '-DWIF_SANITIZE=ON'], cxx)
  && sh('cmake', ['--build', B, '-j2', '--target', 'willitfit_tests', ...(clang ? ['wif_fuzzers'] : replays)]);
console.log(`sanitizer build: ${built ? 'ok' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
if (!built) process.exit(1);

const t1 = Date.now();
console.log(`=== core under ASan+UBSan (Catch2 in build-asan${clang ? '' : ', then the corpus replays through CTest'})`);
const sanitizerEnv = { ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=1', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' };
Object.assign(process.env, sanitizerEnv);
await runShards(path.resolve(B, 'tests', 'willitfit_tests'), { shards: 3, jobs: 2 });
if (clang) console.log('corpus replays: in the short fuzzing (libFuzzer runs the committed inputs first)');
else sh('ctest', ['--test-dir', B, '--output-on-failure', '-j2', '-R', '^fuzz corpus'], sanitizerEnv);
console.log(`(sanitizer tests took ${((Date.now() - t1) / 1000).toFixed(0)} s)`);

console.log('=== short fuzzing (libFuzzer, ASan+UBSan)');
if (clang) {
  sh(process.execPath, ['scripts/fuzz.mjs', '--build-dir', B, '--no-build', '--jobs', '2', '--seconds', process.env.WIF_FUZZ_SECONDS || '15']);
} else {
  console.log('not ok fuzz-build: libFuzzer needs clang++ (install clang)');
}
console.log(`(sanitizer chain took ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
