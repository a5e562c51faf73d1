// How scripts/test.mjs counts each level's tests from what the level printed. Kept apart so that
// tests/js/test_counts.test.mjs can feed it the real shapes of CTest, node --test and fuzz.mjs output.

// CTest's last line: "100% tests passed, 0 tests failed out of 243".
export function ctestCounts(out) {
  const m = out.match(/(\d+)% tests passed, (\d+) tests failed out of (\d+)/);
  if (!m) return { passed: 0, failed: 0 };
  const total = Number(m[3]);
  const failed = Number(m[2]);
  return { passed: total - failed, failed };
}

// node --test with the TAP reporter: "# pass N" and "# fail N", once per run.
export function nodeCounts(out) {
  const pass = [...out.matchAll(/^# pass (\d+)/gm)].map((x) => Number(x[1]));
  const fail = [...out.matchAll(/^# fail (\d+)/gm)].map((x) => Number(x[1]));
  return { passed: pass.reduce((a, b) => a + b, 0), failed: fail.reduce((a, b) => a + b, 0) };
}

// scripts/catch2-shards.mjs ends with "catch2: N passed, N failed"; without that line the Catch2
// cases did not all report, which counts as one failure.
export function catch2Counts(out) {
  const m = out.match(/^catch2: (\d+) passed, (\d+) failed/m);
  if (!m) return { passed: 0, failed: 1 };
  return { passed: Number(m[1]), failed: Number(m[2]) };
}

// scripts/fuzz.mjs ends with "fuzz: N passed, N failed"; a build it could not make prints
// "not ok fuzz-build".
export function fuzzCounts(out) {
  const m = out.match(/^fuzz: (\d+) passed, (\d+) failed/m);
  if (!m) return { passed: 0, failed: /not ok fuzz-build/.test(out) ? 1 : 0 };
  return { passed: Number(m[1]), failed: Number(m[2]) };
}

// The two levels of scripts/test-sanitizers.mjs's log, whose parts start with "=== <title>".
export function sanitizerLevels(log) {
  const part = (title) => {
    const i = log.indexOf(`=== ${title}`);
    if (i < 0) return '';
    const j = log.indexOf('\n=== ', i + 4);
    return log.slice(i, j < 0 ? undefined : j);
  };
  if (!/sanitizer build: ok/.test(log)) return [{ name: 'core: Catch2 under ASan+UBSan (build failed)', passed: 0, failed: 1, ran: true }];
  const core = part('core under ASan+UBSan');
  const cases = catch2Counts(core);
  const replays = ctestCounts(core);
  const fz = fuzzCounts(part('short fuzzing'));
  // Under clang the short fuzzing replays the committed inputs (each target's "ok" says they all
  // ran first), and CTest runs none; otherwise replays that did not report are a failure.
  const inFuzzing = /^corpus replays: in the short fuzzing/m.test(core);
  const missing = replays.passed + replays.failed || inFuzzing ? 0 : 1;
  const asan = { passed: cases.passed + replays.passed, failed: cases.failed + replays.failed + missing };
  return [
    { name: `core: Catch2${inFuzzing ? '' : ' and the corpus replays'} under ASan+UBSan (build-asan)`, ...asan, ran: asan.passed + asan.failed > 0 },
    { name: 'short fuzzing (libFuzzer, ASan+UBSan)', ...fz, ran: fz.passed + fz.failed > 0 },
  ];
}
