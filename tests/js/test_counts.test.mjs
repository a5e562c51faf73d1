// npm test's own counting (scripts/test-counts.mjs), fed the shapes its levels really print. A
// level whose output cannot be read must count as a failure, never as silence.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { catch2Summary } from '../../scripts/catch2-shards.mjs';
import { catch2Counts, ctestCounts, fuzzCounts, nodeCounts, sanitizerLevels } from '../../scripts/test-counts.mjs';

const sanitizerLog = [
  '=== sanitizer build',
  '[100%] Built target willitfit_tests',
  'sanitizer build: ok in 812 s',
  '=== core under ASan+UBSan (Catch2 in build-asan, then the corpus replays through CTest)',
  'ok the [report] cases: 12 cases, 12 passed, 0 failed in 36.0 s',
  'test cases: 220 | 215 passed | 5 failed',
  'not ok shard 1 (16 files): 220 cases, 215 passed, 5 failed in 60.2 s',
  'ok shard 2 (15 files): 221 cases, 221 passed, 0 failed in 58.9 s',
  'catch2: 448 passed, 5 failed',
  '4/4 Test #4: fuzz corpus and regressions replay cleanly: hf_config ...   Passed    6.19 sec',
  '',
  '50% tests passed, 2 tests failed out of 4',
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
  assert.deepEqual(catch2Counts('ok shard 1\ncatch2: 453 passed, 0 failed\n'), { passed: 453, failed: 0 });
  assert.deepEqual(catch2Counts('ok shard 1 (12 files): 200 cases'), { passed: 0, failed: 1 }, 'no total line is a failure');
});

test("Catch2's own summaries are read in each of their shapes, and a missing one is null", () => {
  assert.deepEqual(catch2Summary('===\nAll tests passed (17690 assertions in 133 test cases)\n'), { passed: 133, failed: 0 });
  assert.deepEqual(catch2Summary('All tests passed (1 assertion in 1 test case)'), { passed: 1, failed: 0 });
  assert.deepEqual(catch2Summary('test cases:  220 |  215 passed | 5 failed\nassertions: 9 | 4 passed | 5 failed'), { passed: 215, failed: 5 });
  assert.deepEqual(catch2Summary('test cases: 3 | 3 failed\nassertions: 3 | 3 failed'), { passed: 0, failed: 3 });
  assert.equal(catch2Summary('==123==ERROR: AddressSanitizer: heap-use-after-free'), null);
});

test('the sanitizer log gives its two levels, each with its own counts', () => {
  const [asan, fuzz] = sanitizerLevels(sanitizerLog);
  assert.deepEqual([asan.passed, asan.failed, asan.ran], [450, 7, true], 'the Catch2 cases and the replays');
  assert.deepEqual([fuzz.passed, fuzz.failed, fuzz.ran], [3, 1, true]);
});

test('a failed sanitizer build, or a log cut short, is a failure and not a pass', () => {
  const failedBuild = sanitizerLevels('=== sanitizer build\nsanitizer build: FAILED in 20 s\n');
  assert.equal(failedBuild.length, 1);
  assert.equal(failedBuild[0].failed, 1);
  const noCatch2 = sanitizerLevels(sanitizerLog.replace(/^catch2: .*$/m, ''));
  assert.deepEqual([noCatch2[0].passed, noCatch2[0].failed], [2, 3], 'Catch2 cases that did not all report are a failure');
  const noReplays = sanitizerLevels(sanitizerLog.replace(/^50% tests passed.*$/m, ''));
  assert.deepEqual([noReplays[0].passed, noReplays[0].failed], [448, 6], 'replays that did not report are a failure');
  // Under clang CTest replays nothing: the short fuzzing runs the committed inputs first, and the
  // chain says so; a log that neither says so nor has CTest's summary is still a failure.
  const clangLog = sanitizerLog.replace(/^\d+% tests passed.*$/m, 'corpus replays: in the short fuzzing (libFuzzer runs the committed inputs first)');
  const [clangAsan] = sanitizerLevels(clangLog);
  assert.deepEqual([clangAsan.passed, clangAsan.failed], [448, 5], 'the Catch2 cases alone, no replay missing');
  assert.doesNotMatch(clangAsan.name, /replays/);
  const cut = sanitizerLevels(sanitizerLog.slice(0, sanitizerLog.indexOf('=== short fuzzing')));
  assert.equal(cut[1].ran, false, 'no fuzz summary means the level ran no test, which test.mjs counts as a failure');
});
