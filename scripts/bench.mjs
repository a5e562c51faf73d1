// npm run bench: the budgets of issue 8, printed as figures (a benchmark, not a test).
//  (a) bytes: every file the app loads, compressed with gzip and brotli (node:zlib, maximum
//      levels, as a static host would precompress), and the one-file offline page raw and gzipped,
//      against the 500 KB budget;
//  (b) cold start: navigation to the first verdict in headless Chromium vs the same browser
//      loading a blank page from the same server (fresh context each run, median of 5);
//  (c) throughput through the JS API in node (dist/api.js over dist/willitfit.js): estimates per
//      second, and one pass over every model × device × GGUF quant at one context;
//  (d) GGUF header parsing: our reader (wasm ggufSummary, each way of returning the tensors) vs
//      @huggingface/gguf on the same in-memory headers written by `willitfit gguf-synth` for
//      DeepSeek V3: expert stacks (about 1,100 tensors) and one tensor per expert
//      (--split-experts, about 45,000), after checking both read the same tensors;
//  (e) a Hub repo id to the first verdict against the local mock Hub (tests/mock/hub.mjs): the
//      requests made and the bytes read (target: the API call plus one Range read of the header);
//  (f) a prerendered pair page (scripts/prerender.mjs): first contentful paint with the verdict
//      and key figures in the markup, against the first contentful paint of a one-line page served
//      by the same server (target: at most 1.5×; both read after the page's load event, so that no
//      script of the bench runs in a page before its first paint, and with Chromium's own omnibox
//      renderer switched off: NO_TOP_CHROME_WEBUI), then how long until the page reacts to an input
//      (the app has taken it over) and how long one input (another format) takes to show.
//      With --trace, then what the renderer's main thread did before that first paint, from a
//      Chromium trace (separate runs: tracing slows the page): the layout objects of the first
//      layout, the font lookups (a synchronous request to the browser process per font size and
//      weight, per family tried, per character no font in the list has), and the milliseconds of
//      parsing, style, layout (fonts included), paint and script, style again without its font
//      lookups, what the browser itself spent answering the font requests (the rest of their wait
//      is queueing), then the tiles of that frame rasterized (off the main thread, before the frame
//      is shown) and the main thread's work meanwhile; the same for the one-line page.
//      With --against DIR (another build's dist/, e.g. a copy kept from before a change), the same
//      page from that build too, served the same way, its runs alternating with this build's and
//      the one-line page's in the same browser, so both builds meet the same load.
// Needs a build (bash scripts/build.sh). Chromium is Debian's, as in the browser tests.
// WIF_BENCH_RUNS=n: n runs instead of 5 for (b) and (f). WIF_BENCH_VIEWPORT=390x844: (f) in a window
// of that size instead of Playwright's 1280 × 720 (a phone's, for example).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';

import { startServer } from './server.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.join(root, 'dist');
const BUDGET = 500 * 1000;
const RUNS = Number(process.env.WIF_BENCH_RUNS) || 5;
const GRID_SECONDS = Number(process.env.WIF_BENCH_GRID_SECONDS) || 20;
const VIEWPORT = /^(\d+)x(\d+)$/.exec(process.env.WIF_BENCH_VIEWPORT || '');
/** The window of (f): Playwright's default unless WIF_BENCH_VIEWPORT names one. */
const FRAME = VIEWPORT ? { viewport: { width: Number(VIEWPORT[1]), height: Number(VIEWPORT[2]) } } : {};
const APP_QUERY = '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en';

const kb = (/** @type {number} */ b) => `${(b / 1000).toFixed(1)} KB`;
const ms = (/** @type {number} */ t) => `${t.toFixed(0)} ms`;
const gcd = (/** @type {number} */ a, /** @type {number} */ b) => (b ? gcd(b, a % b) : a);
const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/**
 * How far the ratio of two medians could move with other runs of the same machine: 2,000 draws,
 * each resampling both sets of runs with replacement, and the 2.5th and 97.5th percentiles of
 * their ratios (a percentile bootstrap). The draws use a fixed seed, so one set of runs always
 * gives the same interval.
 * @param {number[]} a @param {number[]} b @returns {[number, number]}
 */
function ratioInterval(a, b) {
  let seed = 0x9e3779b9;
  const random = () => {   // xorshift32
    seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
    return seed / 2 ** 32;
  };
  const draw = (/** @type {number[]} */ xs) => xs.map(() => xs[Math.floor(random() * xs.length)]);
  const ratios = Array.from({ length: 2000 }, () => median(draw(a)) / median(draw(b))).sort((x, y) => x - y);
  return [ratios[Math.floor(0.025 * ratios.length)], ratios[Math.floor(0.975 * ratios.length)]];
}
const gz = (/** @type {Buffer} */ b) => zlib.gzipSync(b, { level: 9 }).length;
const br = (/** @type {Buffer} */ b) => zlib.brotliCompressSync(b, {
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;

if (!fs.existsSync(path.join(dist, 'willitfit-offline.html'))) {
  console.error('bench: dist/ is not built (run bash scripts/build.sh)');
  process.exit(1);
}

// ---------------------------------------------------------------- (a) and (b): in the browser
async function browserFigures() {
  const { chromium } = await import('playwright-core');
  const { server, url } = await startServer({ port: 0 });
  const blankDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-bench-'));
  fs.writeFileSync(path.join(blankDir, 'blank.html'), '<!doctype html><html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>');
  const blank = await startServer({ port: 0, root: blankDir });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  /** @type {Set<string>} */
  const loaded = new Set();
  const appTimes = [];
  const blankTimes = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      // Fresh context: empty HTTP cache, no service worker (it would serve the second run).
      const ctx = await browser.newContext({ serviceWorkers: 'block' });
      const page = await ctx.newPage();
      page.on('request', (r) => { if (r.url().startsWith(url)) loaded.add(new URL(r.url()).pathname); });
      const t0 = performance.now();
      await page.goto(url + APP_QUERY);
      await page.waitForFunction(() => {
        const v = document.querySelector('#verdict')?.getAttribute('data-verdict');
        return v && v !== 'pending';
      }, null, { timeout: 120000, polling: 5 });
      appTimes.push(performance.now() - t0);
      if (i === 0) await page.waitForLoadState('networkidle');   // lazily loaded parts count as loaded
      await ctx.close();

      const bctx = await browser.newContext();
      const bpage = await bctx.newPage();
      const b0 = performance.now();
      await bpage.goto(`${blank.url}blank.html`, { waitUntil: 'load' });
      blankTimes.push(performance.now() - b0);
      await bctx.close();
    }
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
    await new Promise((r) => blank.server.close(r));
    fs.rmSync(blankDir, { recursive: true, force: true });
  }
  return { loaded, appTimes, blankTimes };
}

function bytesFigures(/** @type {Set<string>} */ loaded) {
  console.log('\n(a) Bytes the app loads (gzip -9 / brotli q11, via node:zlib)');
  let raw = 0, g = 0, b = 0;
  const rows = [];
  for (const p of [...loaded].sort()) {
    const file = path.join(dist, p === '/' ? 'index.html' : decodeURIComponent(p.slice(1)));
    if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) continue;
    const buf = fs.readFileSync(file);
    const row = { file: path.relative(dist, file), raw: buf.length, gzip: gz(buf), brotli: br(buf) };
    raw += row.raw; g += row.gzip; b += row.brotli;
    rows.push(row);
  }
  rows.sort((x, y) => y.brotli - x.brotli);
  for (const r of rows) console.log(`  ${r.file.padEnd(26)} ${kb(r.raw).padStart(10)} raw ${kb(r.gzip).padStart(10)} gzip ${kb(r.brotli).padStart(10)} brotli`);
  console.log(`  ${`total, ${rows.length} files`.padEnd(26)} ${kb(raw).padStart(10)} raw ${kb(g).padStart(10)} gzip ${kb(b).padStart(10)} brotli`);
  console.log(`  budget ${kb(BUDGET)} compressed: gzip ${(100 * g / BUDGET).toFixed(0)} %, brotli ${(100 * b / BUDGET).toFixed(0)} % of it`);
  const one = fs.readFileSync(path.join(dist, 'willitfit-offline.html'));
  console.log(`  willitfit-offline.html    ${kb(one.length).padStart(10)} raw ${kb(gz(one)).padStart(10)} gzip ${kb(br(one)).padStart(10)} brotli` +
    ` (${(100 * gz(one) / BUDGET).toFixed(0)} % of the budget gzipped)`);
}

// ---------------------------------------------------------------- (c) throughput in node
async function throughput() {
  const api = await import(path.join(dist, 'api.js'));
  const req = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 };
  await api.estimate(req);   // load and warm up the module
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) { await api.estimate(req); n++; }
  const rate = n / ((performance.now() - t0) / 1000);
  const [models, hardware, quants] = await Promise.all([api.list('models'), api.list('hardware'), api.list('quants')]);
  const gguf = quants.filter((/** @type {any} */ q) => q.gguf);
  // A listing page asks, for one model x quant, about every device: that is the unit timed here
  // (one estimateMany of summary estimates over all devices, as the page's listings ask).
  // Blocks are taken spread evenly over the model x quant pairs (a stride coprime with their
  // number) until the time is up; the full grid is the mean block time x the number of blocks.
  const pairs = [];
  for (const m of models) for (const q of gguf) pairs.push([m.id, q.id]);
  const N = pairs.length * hardware.length;
  let stride = 37;
  while (gcd(stride, pairs.length) !== 1) stride += 2;
  let ok = 0, failed = 0, blocks = 0;
  const t1 = performance.now();
  for (; blocks < pairs.length && performance.now() - t1 < GRID_SECONDS * 1000; blocks++) {
    const [model, quant] = pairs[(blocks * stride) % pairs.length];
    const answers = await api.estimateMany(hardware.map((/** @type {any} */ d) => ({ model, hardware: d.id, quant, context: 8192, detail: 'summary' })));
    for (const a of answers) { if (a && a.error) failed++; else ok++; }
  }
  const spent = performance.now() - t1;
  const i = ok + failed;
  const full = (spent / blocks) * pairs.length;
  console.log('\n(c) Throughput through the JS API in node (dist/api.js, wasm)');
  console.log(`  ${rate.toFixed(1)} estimates/s (one request repeated for 2 s)`);
  console.log(`  every model × device × GGUF quant at 8K: ${models.length} × ${hardware.length} × ${gguf.length} = ${N} estimates`);
  console.log(`  ran ${blocks} of the ${pairs.length} model × quant blocks (all ${hardware.length} devices each, one estimateMany per block), ` +
    `${i} estimates (${failed} answered with an error) in ${ms(spent)}: ${(i / (spent / 1000)).toFixed(1)}/s,`);
  console.log(`  so the whole grid ${blocks === pairs.length ? 'took' : 'would take'} ${(full / 1000).toFixed(0)} s (${(full / 60000).toFixed(1)} min)`);
  return api;
}

// ---------------------------------------------------------------- (d) GGUF header parsing
/** Write a DeepSeek V3 Q4_K_M header with gguf-synth (extra flags: e.g. --split-experts). @param {string[]} flags */
function synthHeader(/** @type {string} */ model, flags) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-bench-'));
  const file = path.join(dir, 'model.gguf');
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['gguf-synth', '--model', model, '--quant', 'Q4_K_M', '--out', file, '--json', ...flags], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gguf-synth failed: ${r.stdout}${r.stderr}`);
  const bytes = new Uint8Array(fs.readFileSync(file));
  fs.rmSync(dir, { recursive: true, force: true });
  return bytes;
}

async function ggufParsing(/** @type {any} */ api) {
  const { gguf } = await import('@huggingface/gguf');
  const model = 'deepseek-ai/DeepSeek-V3-0324';
  console.log('\n(d) GGUF header parsing (median of 9, header in memory, same process)');
  console.log('  Both sides return the metadata and every tensor\'s name, type, shape and offset. @huggingface/gguf');
  console.log('  (gguf(): its only entry point, reading through fetch, here served from memory) returns them as one');
  console.log('  object per tensor with BigInt shapes and offsets; ours (wasm) also computes per-type bytes and params,');
  console.log('  the hyperparameters and the KV size, and returns the tensors as the table asks:');
  console.log('    table:   typed arrays that cross the wasm boundary as one block of bytes, names as one string');
  console.log('    columns: one JSON array per field;  list: one JSON object per tensor;  none: no per-tensor part');
  // The merged layout (one 3-D tensor per expert stack, today's files) and the older one with a
  // tensor per routed expert (early Mixtral GGUFs; --split-experts), tens of thousands of them.
  for (const [layout, flags] of [['expert stacks', []], ['one tensor per expert', ['--split-experts']]]) {
    const bytes = synthHeader(model, /** @type {string[]} */ (flags));
    // The package reads through fetch with Range requests: serve them from the same bytes.
    /** @type {typeof fetch} */
    const memFetch = async (_u, init) => {
      const range = /bytes=(\d+)-(\d+)/.exec(String(new Headers(init?.headers).get('Range') || ''));
      const [a, b] = range ? [Number(range[1]), Math.min(Number(range[2]) + 1, bytes.length)] : [0, bytes.length];
      return new Response(bytes.slice(a, b), { status: range ? 206 : 200, headers: { 'Content-Length': String(b - a) } });
    };
    const ours = await api.ggufSummary(bytes, { tensors: 'table' });
    const theirs = await gguf('https://bench.invalid/model.gguf', { fetch: memFetch });
    // The same tensors on both sides, checked before anything is timed.
    const t = ours.tensor_table;
    if (t.count !== theirs.tensorInfos.length) throw new Error('the two readers disagree on the tensor count');
    for (let i = 0; i < t.count; i += Math.max(1, Math.floor(t.count / 97))) {
      const o = theirs.tensorInfos[i];
      if (o.name !== t.name[i] || Number(o.offset) !== t.offset[i] || o.shape.some((/** @type {bigint} */ d, /** @type {number} */ k) => Number(d) !== t.ne[4 * i + k]))
        throw new Error(`the two readers disagree on tensor ${i}`);
    }
    const time = async (/** @type {() => Promise<any>} */ f) => {
      const xs = [];
      for (let i = 0; i < 9; i++) { const t0 = performance.now(); await f(); xs.push(performance.now() - t0); }
      return median(xs);
    };
    const tTheirs = await time(() => gguf('https://bench.invalid/model.gguf', { fetch: memFetch }));
    const tTable = await time(() => api.ggufSummary(bytes, { tensors: 'table' }));
    const tList = await time(() => api.ggufSummary(bytes));
    const tCols = await time(() => api.ggufSummary(bytes, { tensors: 'columns' }));
    const tNone = await time(() => api.ggufSummary(bytes, { tensors: 'none' }));
    const x = (/** @type {number} */ tt) => `${ms(tt).padStart(7)}  (theirs / ours ${(tTheirs / tt).toFixed(2)}×)`;
    console.log(`  ${model} Q4_K_M from gguf-synth, ${layout}: ${kb(bytes.length)}, ${t.count} tensors, ${Object.keys(theirs.metadata).length} metadata keys`);
    console.log(`    ours, tensor table ({tensors: 'table'}):    ${x(tTable)}`);
    console.log(`    ours, tensor list (default):               ${x(tList)}`);
    console.log(`    ours, columnar JSON ({tensors: 'columns'}): ${x(tCols)}`);
    console.log(`    ours, no per-tensor part ({tensors: 'none'}): ${x(tNone)}`);
    console.log(`    @huggingface/gguf gguf():                  ${ms(tTheirs).padStart(7)}`);
  }
}

// ---------------------------------------------------------------- (e) Hub repo to first verdict
async function hubFirstVerdict(/** @type {any} */ api) {
  const { startMockHub } = await import('../tests/mock/hub.mjs');
  const hub = await import(path.join(dist, 'hub.js'));
  const mock = await startMockHub();
  console.log('\n(e) A Hub repo id to the first verdict (web/hub.js against the local mock Hub)');
  try {
    // A single GGUF file, a split one (three shards, every header read), and FP8 safetensors.
    for (const id of ['mock/Llama-3.1-8B-GGUF', 'mock/Llama-3.1-8B-GGUF:BF16', 'mock/Llama-FP8']) {
      const k = mock.log.length;
      const t0 = performance.now();
      const r = await hub.lookup(id, { core: api, base: mock.hubUrl });
      const row = r.repo.quants[r.repo.chosen];
      const e = await api.estimate({ model: hub.modelFor(r, row), quant: row.quant || undefined, hardware: 'nvidia-rtx-4090', context: 8192,
        ...(r.repo.format === 'safetensors' ? { engine: 'vllm' } : {}) });
      const t = performance.now() - t0;
      const { requests, bytes } = hub.traffic(r.requests);
      const seen = mock.log.slice(k);
      const api_ = seen.filter((x) => x.server === 'hub' && x.path.startsWith('/api/')).length;
      const ranges = seen.filter((x) => x.server === 'files' && x.range).length;
      const direct = seen.filter((x) => x.server === 'hub' && !x.path.startsWith('/api/')).length;
      console.log(`  ${id} (${r.repo.format}, ${row.label}): ${requests} requests from the page (${api_} API, ${direct} resolve` +
        ` of which the LFS ones redirect, ${ranges} Range reads on the file host), ${kb(bytes)} read, verdict ${e.verdict}, ${ms(t)}`);
    }
  } finally {
    await mock.close();
  }
}

// ---------------------------------------------------------------- (f) prerendered page
/**
 * Chromium (headless, one window per context) sometimes starts a renderer for its own omnibox
 * popup (chrome://omnibox-popup.top-chrome/, preloaded WebUI) while a page loads: 30-40 ms of
 * CPU (a trace, all processes) that fell on one measured load or another at random, so that
 * load's first paint waited for a busy CPU. Switched off for the first-paint figures.
 */
const NO_TOP_CHROME_WEBUI = '--disable-features=PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxAimPopup';

/** Main-thread events named in a first-frame breakdown (Chromium's trace event names). */
const FIRST_FRAME = {
  parse: ['ParseHTML'], style: ['UpdateLayoutTree'], layout: ['Layout'], paint: ['Paint'], script: ['EvaluateScript', 'v8.evaluateModule'],
  'font lookups': ['FontCache::GetFontPlatformData'],
};
const FONT_IPC = {
  'size/weight': 'WebSandboxSupportLinux::GetWebFontRenderStyleForStrike',
  family: 'FontDataManager::onMatchFamilyStyle',
  'fallback for a character': 'WebSandboxSupportLinux::GetFallbackFontForCharacter',
};

/**
 * One traced load of `target` in a fresh context: what the renderer's main thread did from the
 * document's request to the first contentful paint.
 * @param {import('playwright-core').Browser} browser @param {string} target
 */
async function traceFirstFrame(browser, target) {
  const ctx = await browser.newContext({ serviceWorkers: 'block', ...FRAME });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  /** @type {any[]} */
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => { events.push(...e.value); });
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,loading,fonts,disabled-by-default-fonts,cc', transferMode: 'ReportEvents' });
  await page.goto(target, { waitUntil: 'load' });   // no script of ours in the page before (see measure)
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, null, { timeout: 60000, polling: 10 });
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.end');
  await done;
  await ctx.close();
  const parse = events.find((e) => e.name === 'ParseHTML');
  const fcp = events.filter((e) => e.name === 'firstContentfulPaint' && e.pid === parse?.pid).pop();
  const doc = events.find((e) => e.name === 'ResourceSendRequest' && e.args?.data?.url === target);
  if (!parse || !fcp || !doc) return null;
  // Up to the end of the first frame's paint: FCP is reported when that frame is shown, by
  // which time the main thread may have gone on to the second part of the page.
  const onMain = events.filter((e) => e.ph === 'X' && e.pid === parse.pid && e.tid === parse.tid && e.ts >= doc.ts && e.ts <= fcp.ts);
  const firstPaint = onMain.filter((e) => e.name === 'Paint').sort((a, b) => a.ts - b.ts)[0];
  const end = firstPaint ? firstPaint.ts + firstPaint.dur : fcp.ts;
  const main = onMain.filter((e) => e.ts <= end);
  // An event of a name counts once where it runs inside another of the same name: Chromium nests
  // FontCache::GetFontPlatformData in itself (a family, then its strike), and summed as they come
  // the font lookups counted the same milliseconds twice.
  const sum = (/** @type {string[]} */ names) => {
    let total = 0, until = -Infinity;
    for (const e of main.filter((x) => names.includes(x.name)).sort((a, b) => a.ts - b.ts || b.dur - a.dur)) {
      if (e.ts + e.dur <= until) continue;   // inside one already counted (one thread: no partial overlap)
      total += e.dur / 1000;
      until = e.ts + e.dur;
    }
    return total;
  };
  const at = (/** @type {number} */ ts) => (ts - doc.ts) / 1000;
  /** @type {Record<string, number>} */
  const r = { 'to first paint': at(fcp.ts), 'layout objects': main.find((e) => e.name === 'Layout')?.args?.beginData?.totalObjects ?? 0 };
  /** The milliseconds of `names` events that run inside an event of `within` (outermost once). @param {string[]} names @param {string[]} within */
  const inside = (names, within) => {
    let total = 0, until = -Infinity;
    const outer = main.filter((u) => within.includes(u.name));
    for (const e of main.filter((x) => names.includes(x.name) && outer.some((u) => u.ts <= x.ts && x.ts + x.dur <= u.ts + u.dur))
      .sort((a, b) => a.ts - b.ts || b.dur - a.dur)) {
      if (e.ts + e.dur <= until) continue;
      total += e.dur / 1000;
      until = e.ts + e.dur;
    }
    return total;
  };
  for (const [k, names] of Object.entries(FIRST_FRAME)) r[k] = sum(names);
  // Each counted once: a script the parser runs, and a layout that script asks for, are not
  // parsing (a pair page's script at the pause asks for the first frame's layout).
  const work = [...FIRST_FRAME.style, ...FIRST_FRAME.layout, ...FIRST_FRAME.paint];
  r.parse -= inside([...FIRST_FRAME.script, ...work], FIRST_FRAME.parse);
  r.script -= inside(work, FIRST_FRAME.script);
  for (const [k, name] of Object.entries(FONT_IPC)) r[`#${k}`] = main.filter((e) => e.name === name).length;
  // The main thread waiting on those synchronous requests (the browser process answers them).
  r['font requests'] = sum(Object.values(FONT_IPC));
  // Style without the font lookups it makes (the first font a page uses is looked up while its
  // style is computed, so the style figure alone carries the first, slowest font request), and
  // what the browser process itself spent answering those requests: the rest of the wait is the
  // request waiting its turn in the browser (whose own window may be drawing a frame then).
  const fontsInStyle = inside(['FontCache::GetFontPlatformData'], FIRST_FRAME.style);
  r['style without fonts'] = r.style - fontsInStyle;
  r['font answers'] = events.filter((e) => e.ph === 'X' && e.pid !== parse.pid && e.ts >= doc.ts && e.ts <= end &&
    ['FontDataServiceImpl::MatchFamilyName', 'FontServiceApp::FontRenderStyleForStrike'].includes(e.name)).reduce((a, e) => a + e.dur / 1000, 0);
  // The first frame's tiles, rasterized off the main thread after its paint and before it can be
  // shown (a tile of one colour is not rasterized: the one-line page has one tile with text).
  const tiles = events.filter((e) => e.ph === 'X' && e.pid === parse.pid && e.name === 'RasterTask' && e.ts >= end && e.ts <= fcp.ts);
  r['#tiles'] = tiles.length;
  r.raster = tiles.reduce((a, e) => a + e.dur / 1000, 0);
  // Where the time to the first paint goes: the page's compositor can ask for a frame only once
  // the browser has shown the new page to it (ProxyImpl::SetVisibleOnImplThread, a message that
  // waits its turn on the main thread), the frame's paint, the last of its tiles, and its
  // presentation (the first contentful paint).
  const shown = events.find((e) => e.pid === parse.pid && e.name === 'ProxyImpl::SetVisibleOnImplThread' && e.ts >= doc.ts);
  r['@shown'] = shown ? at(shown.ts) : NaN;
  // When the first frame's parsing stopped (a pair page's parser pauses at styles.css) and its
  // first style and layout began: an idle wait between the two would delay the first paint as
  // much as the work itself, since the message that shows the page to its compositor waits for
  // that style and layout to end.
  const firstLayout = main.find((e) => e.name === 'Layout');
  const parsed = firstLayout && main.filter((e) => e.name === 'ParseHTML' && e.ts < firstLayout.ts).pop();
  const styled = firstLayout && main.filter((e) => e.name === 'UpdateLayoutTree' && e.ts < firstLayout.ts).pop();
  r['@parsed'] = parsed ? at(parsed.ts + parsed.dur) : NaN;
  r['@style'] = styled ? at(styled.ts) : NaN;
  r['@paint'] = firstPaint ? at(firstPaint.ts) : NaN;
  r['@tiles done'] = tiles.length ? Math.max(...tiles.map((e) => at(e.ts + e.dur))) : NaN;
  // The main thread's work from the end of the first frame's paint to its first contentful paint
  // (a pair page parses the rest of its document once styles.css has come, while its first
  // frame's tiles rasterize: on two cores the two compete).
  r['main after paint'] = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && e.pid === parse.pid && e.tid === parse.tid &&
    e.ts >= end && e.ts <= fcp.ts).reduce((a, e) => a + Math.min(e.dur, fcp.ts - e.ts) / 1000, 0);
  return r;
}

async function prerenderedFigures() {
  const PAGE = 'en/glm-4.5-air/mac-studio-m3-ultra-512gb/';
  if (!fs.existsSync(path.join(dist, PAGE, 'index.html'))) { console.log('\n(f) no prerendered pages in dist/ (WIF_PRERENDER=0?)'); return; }
  const { chromium } = await import('playwright-core');
  const { server, url } = await startServer({ port: 0 });
  const ai = process.argv.indexOf('--against');
  const againstDir = ai > 0 ? path.resolve(process.argv[ai + 1] || '') : null;
  if (againstDir && !fs.existsSync(path.join(againstDir, PAGE, 'index.html'))) throw new Error(`bench: no /${PAGE} in ${againstDir}`);
  const against = againstDir ? await startServer({ port: 0, root: againstDir }) : null;
  const blankDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-bench-'));
  fs.writeFileSync(path.join(blankDir, 'blank.html'), '<!doctype html><html><head><meta charset="utf-8"><title>blank</title></head><body><p>blank</p></body></html>');
  const blank = await startServer({ port: 0, root: blankDir });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic', NO_TOP_CHROME_WEBUI],
  });
  const fcp = () => new Promise((resolve) => {
    const get = () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
    const tick = () => { const v = get(); if (v !== undefined) resolve(v); else setTimeout(tick, 10); };
    tick();
  });
  /** @typedef {{fcp: number[], ready: number[], input: number[], loads: number[], verdict: string}} Runs */
  /** @returns {Runs} */
  const runsOf = () => ({ fcp: [], ready: [], input: [], loads: [], verdict: '' });
  const mine = runsOf(), theirs = runsOf();
  /** @type {number[]} */
  const blankF = [];
  /** @type {{page: Record<string, number>[], blank: Record<string, number>[]}} */
  const traced = { page: [], blank: [] };
  /** One fresh load of the pair page from the server at `base`. @param {string} base @param {Runs} r */
  const measure = async (base, r) => {
    r.loads.push(os.loadavg()[0]);
    const ctx = await browser.newContext({ serviceWorkers: 'block', ...FRAME });
    const page = await ctx.newPage();
    // The first paint is read once the page has loaded: a script run in the page while it loads
    // (Playwright's, for evaluate) would take the main thread from the frame being measured.
    await page.goto(base + PAGE, { waitUntil: 'load' });
    r.fcp.push(/** @type {number} */ (await page.evaluate(fcp)));
    // What the first paint had: the verdict and the required memory are in the markup itself.
    if (!r.verdict) r.verdict = await page.evaluate(() => `${document.querySelector('#verdict-text')?.textContent} · ${document.querySelector('#c-total')?.textContent}`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120000, polling: 10 });
    r.ready.push(await page.evaluate(() => performance.now()));
    const before = await page.textContent('#c-total');
    // In a narrow window the setup form starts closed: opened first and given a second, outside
    // the timing (opening it starts work of its own, about 0.7 s on the 2-core machine, that the
    // input would otherwise wait behind).
    if (!(await page.isVisible('#quant'))) {
      await page.click('#setup-summary');
      await page.waitForTimeout(1000);
    }
    const t0 = await page.evaluate(() => performance.now());
    await page.selectOption('#quant', 'Q8_0');
    await page.waitForFunction((b) => document.querySelector('#c-total')?.textContent !== b, before, { timeout: 60000, polling: 5 });
    r.input.push(await page.evaluate(() => performance.now()) - t0);
    await ctx.close();
  };
  try {
    for (let i = 0; i < RUNS; i++) {
      // With --against, the two builds take turns going first.
      if (against && i % 2) await measure(against.url, theirs);
      await measure(url, mine);
      if (against && !(i % 2)) await measure(against.url, theirs);
      const bctx = await browser.newContext(FRAME);
      const bpage = await bctx.newPage();
      await bpage.goto(`${blank.url}blank.html`, { waitUntil: 'load' });
      blankF.push(/** @type {number} */ (await bpage.evaluate(fcp)));
      await bctx.close();
    }
    if (process.argv.includes('--trace')) {
      for (let i = 0; i < RUNS; i++) {
        const p = await traceFirstFrame(browser, url + PAGE);
        const b = await traceFirstFrame(browser, `${blank.url}blank.html`);
        if (p && b) { traced.page.push(p); traced.blank.push(b); }
      }
    }
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
    await new Promise((r) => blank.server.close(r));
    if (against) await new Promise((r) => against.server.close(r));
    fs.rmSync(blankDir, { recursive: true, force: true });
  }
  const { fcp: pageF, ready, input, verdict: verdictAtFcp } = mine;
  const runs = (/** @type {number[]} */ xs) => xs.map((t) => t.toFixed(0)).join(', ');
  console.log(`\n(f) A prerendered pair page (/${PAGE}) in headless Chromium (fresh context, median of ${RUNS}${VIEWPORT ? `, a ${VIEWPORT[1]} × ${VIEWPORT[2]} window` : ''})`);
  console.log(`  first contentful paint:            ${ms(median(pageF))} (runs: ${runs(pageF)}); on screen then: ${verdictAtFcp}`);
  console.log(`  first contentful paint, one line:  ${ms(median(blankF))} (runs: ${runs(blankF)})`);
  const [lo, hi] = ratioInterval(pageF, blankF);
  console.log(`  ratio: ${(median(pageF) / median(blankF)).toFixed(2)}× (target ≤ 1.5×); 95 % interval from resampling the runs: ${lo.toFixed(2)}–${hi.toFixed(2)}×`);
  // Run by run: each load of the pair page over the one-line page's load right after it, in the
  // same browser (the one-line page's own figure moves by 10-20 ms from one run to the next with
  // the machine's load, and a ratio of two medians moves with it).
  const pairs = pageF.map((f, i) => f / blankF[i]);
  console.log(`  ratio run by run: median ${median(pairs).toFixed(2)}× (runs: ${pairs.map((x) => x.toFixed(2)).join(', ')})`);
  console.log(`  reacts to input (the app has taken over) at ${ms(median(ready))} after navigation (runs: ${runs(ready)})`);
  console.log(`  one input (format → Q8_0) to its figures on screen: ${ms(median(input))} (runs: ${runs(input)})`);
  if (against) {
    const load = (/** @type {number[]} */ xs) => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;
    console.log(`  the same page from ${againstDir} (--against; runs alternating with the above):`);
    console.log(`    first contentful paint:          ${ms(median(theirs.fcp))} (runs: ${runs(theirs.fcp)}); on screen then: ${theirs.verdict}`);
    console.log(`    ratio: ${(median(theirs.fcp) / median(blankF)).toFixed(2)}× to the one-line page (this build: ${(median(pageF) / median(blankF)).toFixed(2)}×)`);
    console.log(`    reacts to input at ${ms(median(theirs.ready))} (runs: ${runs(theirs.ready)}); one input ${ms(median(theirs.input))} (runs: ${runs(theirs.input)})`);
    console.log(`    load average (1 min) during the runs: this build ${load(mine.loads)}, the other ${load(theirs.loads)}`);
  }
  if (traced.page.length) {
    const med = (/** @type {Record<string, number>[]} */ xs, /** @type {string} */ k) => median(xs.map((x) => x[k]));
    console.log(`  traced (${traced.page.length} more runs each; medians): first contentful paint; then the renderer's main thread from the request to the end of the first frame's paint:`);
    for (const [label, xs] of [['pair page', traced.page], ['one line', traced.blank]]) {
      const fig = (/** @type {string} */ k) => med(/** @type {Record<string, number>[]} */ (xs), k);
      console.log(`    ${String(label).padEnd(9)}  ${ms(fig('to first paint'))}; first layout ${fig('layout objects')} objects; ` +
        Object.keys(FIRST_FRAME).map((k) => `${k} ${fig(k).toFixed(1)} ms`).join(', ') +
        `; then ${fig('#tiles')} tiles rasterized, ${fig('raster').toFixed(1)} ms` +
        `; font requests to the browser: ${Object.keys(FONT_IPC).map((k) => `${fig(`#${k}`)} ${k}`).join(', ')}, waited on ${fig('font requests').toFixed(1)} ms` +
        ` (the browser's own work answering them ${fig('font answers').toFixed(1)} ms); style without its font lookups ${fig('style without fonts').toFixed(1)} ms` +
        `; the main thread's work between that paint and the first contentful paint ${fig('main after paint').toFixed(1)} ms` +
        `; after the request: parsed at ${fig('@parsed').toFixed(1)} ms, style and layout from ${fig('@style').toFixed(1)}, shown to the compositor at ${fig('@shown').toFixed(1)}, first paint at ${fig('@paint').toFixed(1)}, its tiles done at ${fig('@tiles done').toFixed(1)}`);
    }
  }
}

console.log(`willitfit bench (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; figures, not pass/fail)`);
if (process.argv.includes('--static')) { await prerenderedFigures(); process.exit(0); }   // --trace: and the first frame's breakdown
const { loaded, appTimes, blankTimes } = await browserFigures();
bytesFigures(loaded);
console.log(`\n(b) Cold start in headless Chromium (fresh context, median of ${RUNS})`);
console.log(`  navigation to first verdict: ${ms(median(appTimes))} (runs: ${appTimes.map((t) => t.toFixed(0)).join(', ')})`);
console.log(`  blank page load:             ${ms(median(blankTimes))} (runs: ${blankTimes.map((t) => t.toFixed(0)).join(', ')})`);
console.log(`  ratio: ${(median(appTimes) / median(blankTimes)).toFixed(1)}×`);
const api = await throughput();
await ggufParsing(api);
await hubFirstVerdict(api);
await prerenderedFigures();
