// The core's Catch2 binary run as a few processes instead of one per case (CTest's way): each
// process loads the catalog once, which under ASan+UBSan was about a quarter of the tests' CPU.
// The cases tagged [report] (the accuracy report, made once per process) run in a process of
// their own; the others are dealt out by source file (Catch2's -# gives each case the tag
// [#<file>]) to `--shards` processes of about the same number of cases. At most `--jobs`
// processes run at once.
//
// Every case is counted from Catch2's own summary line ("test cases: 12 | 11 passed | 1 failed",
// or "All tests passed (… assertions in 12 test cases)"). A process that dies before its summary
// (a sanitizer report aborts it) counts each of its cases as failed; a process that ran another
// number of cases than its spec lists, or cases that no process was given, fail too: a case is
// never lost silently. The last line is "catch2: N passed, N failed" (scripts/test-counts.mjs).
//
//   node scripts/catch2-shards.mjs <willitfit_tests binary> [--shards 2] [--jobs 2]
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

/** How many cases a test spec selects (Catch2 lists one name a line). @param {string} bin @param {string[]} spec */
function count(bin, spec) {
  const r = spawnSync(bin, ['-#', '--list-test-names-only', ...spec], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status === null) throw new Error(`${bin} --list-test-names-only: ${r.signal}`);
  return r.stdout.split('\n').filter((s) => s.trim()).length;
}

/** The source files' tags with their case counts ("  29  [#catalog_test]"). @param {string} bin */
function fileTags(bin) {
  const r = spawnSync(bin, ['-#', '--list-tags'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return [...r.stdout.matchAll(/^\s*(\d+)\s+\[#([\w.-]+)\]\s*$/gm)].map((m) => ({ file: m[2], n: Number(m[1]) }));
}

/** Catch2's summary of one run: its cases passed and failed, or null when it printed none. @param {string} out */
export function catch2Summary(out) {
  const all = out.match(/All tests passed \(\d+ assertions? in (\d+) test cases?\)/);
  if (all) return { passed: Number(all[1]), failed: 0 };
  const some = out.match(/test cases: +(\d+) \| +(\d+) passed \| +(\d+) failed/);
  if (some) return { passed: Number(some[2]), failed: Number(some[3]) };
  const none = out.match(/test cases: +(\d+) \| +(\d+) failed/);  // every case failed
  if (none) return { passed: 0, failed: Number(none[2]) };
  return null;
}

/** @param {string} bin @param {string[]} args @param {number} expected @param {string} label */
function runOne(bin, args, expected, label) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn(bin, args, { cwd: path.dirname(bin), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    p.on('close', (code, signal) => {
      const s = catch2Summary(out);
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      let r;
      if (!s) r = { passed: 0, failed: expected, note: `died before its summary (exit ${code}, ${signal || 'no signal'})` };
      else if (s.passed + s.failed !== expected) r = { passed: s.passed, failed: s.failed + 1, note: `ran ${s.passed + s.failed} of its ${expected} cases` };
      else if (code !== 0 && s.failed === 0) r = { passed: s.passed, failed: 1, note: `exit ${code} with every case passed` };
      else r = { ...s, note: '' };
      const ok = r.failed === 0;
      // Catch2's console reporter prints the failing cases in full and nothing for passing ones.
      if (!ok) process.stdout.write(out);
      console.log(`${ok ? 'ok' : 'not ok'} ${label}: ${expected} case${expected === 1 ? '' : 's'}, ${r.passed} passed, ${r.failed} failed in ${secs} s${r.note ? ` (${r.note})` : ''}`);
      resolve(r);
    });
  });
}

/** @param {string} bin @param {{shards?: number, jobs?: number}} [o] */
export async function runShards(bin, { shards = 2, jobs = 2 } = {}) {
  const total = count(bin, []);
  const groups = Array.from({ length: shards }, () => ({ files: [], n: 0 }));
  for (const t of fileTags(bin).sort((a, b) => b.n - a.n || a.file.localeCompare(b.file))) {
    const g = groups.reduce((a, b) => (b.n < a.n ? b : a));
    g.files.push(t.file);
    g.n += t.n;
  }
  const work = [];
  const report = ['[report]'];
  work.push({ args: ['-#', ...report], expected: count(bin, report), label: 'the [report] cases' });
  groups.filter((g) => g.files.length).forEach((g, i) => {
    const spec = [g.files.map((f) => `[#${f}]~[report]`).join(',')];
    work.push({ args: ['-#', ...spec], expected: count(bin, spec), label: `shard ${i + 1} (${g.files.length} files)` });
  });
  const given = work.reduce((a, w) => a + w.expected, 0);
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < work.length) {
      const w = work[next++];
      results.push(await runOne(bin, w.args, w.expected, w.label));
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, work.length) }, worker));
  const passed = results.reduce((a, r) => a + r.passed, 0);
  let failed = results.reduce((a, r) => a + r.failed, 0);
  if (total === 0 || given !== total) {
    console.log(`not ok the shards were given ${given} of the binary's ${total} cases`);
    failed += Math.max(1, total - given);
  }
  console.log(`catch2: ${passed} passed, ${failed} failed`);
  return { passed, failed };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const argv = process.argv.slice(2);
  const opt = (k, d) => { const i = argv.indexOf(k); return i >= 0 ? Number(argv[i + 1]) : d; };
  const bin = path.resolve(argv[0] || 'build/tests/willitfit_tests');
  const { failed } = await runShards(bin, { shards: opt('--shards', 2), jobs: opt('--jobs', 2) });
  process.exit(failed === 0 ? 0 : 1);
}
