// npm test's own counting (scripts/test-counts.mjs), fed the shapes its levels really print. A
// level whose output cannot be read must count as a failure, never as silence.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ctestCounts, fuzzCounts, nodeCounts, sanitizerLevels } from '../../scripts/test-counts.mjs';

const sanitizerLog = [
  '=== sanitizer build',
  '[100%] Built target willitfit_tests',
  'sanitizer build: ok in 812 s',
  '=== core under ASan+UBSan (CTest in build-asan)',
  '243/243 Test #243: fuzz corpus and regressions replay cleanly: hf_config ...   Passed    6.19 sec',
  '',
  '97% tests passed, 7 tests failed out of 243',
  '(sanitizer tests took 333 s)',
  '=== short fuzzing (libFuzzer, ASan+UBSan)',
  'ok api_estimate 46553 execs in 26 s',
  'not ok gguf crash-1234',
  'fuzz: 3 passed, 1 failed',
  '(sanitizer chain took 1471 s)',
].join('\n');

test('CTest, node --test and fuzz.mjs summaries are counted as printed', () => {
  assert.deepEqual(ctestCounts('100% tests passed, 0 tests failed out of 243'), { passed: 243, failed: 0 });
  assert.deepEqual(nodeCounts('# pass 600\n# fail 3\n# pass 3\n# fail 0\n'), { passed: 603, failed: 3 });
  assert.deepEqual(fuzzCounts('ok a\nfuzz: 4 passed, 0 failed\n'), { passed: 4, failed: 0 });
  assert.deepEqual(fuzzCounts('not ok fuzz-build cmake --build'), { passed: 0, failed: 1 });
});

test('the sanitizer log gives its two levels, each with its own counts', () => {
  const [asan, fuzz] = sanitizerLevels(sanitizerLog);
  assert.deepEqual([asan.passed, asan.failed, asan.ran], [236, 7, true]);
  assert.deepEqual([fuzz.passed, fuzz.failed, fuzz.ran], [3, 1, true]);
});

test('a failed sanitizer build, or a log cut short, is a failure and not a pass', () => {
  const failedBuild = sanitizerLevels('=== sanitizer build\nsanitizer build: FAILED in 20 s\n');
  assert.equal(failedBuild.length, 1);
  assert.equal(failedBuild[0].failed, 1);
  const cut = sanitizerLevels(sanitizerLog.slice(0, sanitizerLog.indexOf('=== short fuzzing')));
  assert.equal(cut[1].ran, false, 'no fuzz summary means the level ran no test, which test.mjs counts as a failure');
});
