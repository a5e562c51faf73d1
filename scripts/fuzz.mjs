// Builds the libFuzzer targets (build-fuzz/, clang, ASan+UBSan) and runs each one.
//   node scripts/fuzz.mjs                 short run: 25 s per target (npm test runs 15 s each)
//   node scripts/fuzz.mjs --seconds 900 --save  long run (npm run fuzz:long: 4 targets x 15 min = 1 h,
//                                               then the corpus is minimised into tests/fuzz/corpus/)
//   node scripts/fuzz.mjs --save          afterwards, minimise the corpus into tests/fuzz/corpus/
//   node scripts/fuzz.mjs --only api_estimate     (--no-build: reuse the built fuzzers)
//   node scripts/fuzz.mjs --jobs 2                two targets at a time (--timeout S: hang limit, 10 s)
//   node scripts/fuzz.mjs --build-dir build-asan --no-build   the fuzzers of the sanitizer build
//                                               (clang, WIF_SANITIZE=ON builds them too; npm test)
// Seeds are written fresh each run into build-fuzz/seeds/<target>/ from the test data: the
// golden configs, every catalog model's config, the bad-input table and the data files. New
// inputs found go to build-fuzz/corpus/<target>/; crashes to build-fuzz/crashes/ (copy them to
// tests/fuzz/regressions/<target>/ so CTest replays them). Prints one TAP-like line per target:
//   "ok <target> <execs> execs" or "not ok <target> ..." and exits non-zero on any finding.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { requestOf, table, textOf } from '../tests/js/bad_inputs.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const argv = process.argv.slice(2);
const opt = (k, d) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : d; };
const seconds = Number(opt('--seconds', '25'));
const only = opt('--only', '');
const jobs = Number(opt('--jobs', '1'));
// Seconds one input may take before libFuzzer calls it a hang (wall clock: on a machine busy with
// other work a long run may need more than the default to tell starvation from a hang).
const timeout = Number(opt('--timeout', '10'));
const save = argv.includes('--save');
const noBuild = argv.includes('--no-build');  // reuse the fuzzers already in build-fuzz/
const B = opt('--build-dir', 'build-fuzz');

function sh(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) { console.log(`not ok fuzz-build ${cmd} ${args.join(' ')}`); process.exit(1); }
}

if (!noBuild && !fs.existsSync(path.join(B, 'CMakeCache.txt')))
  sh('cmake', ['-S', '.', '-B', B, '-DCMAKE_BUILD_TYPE=RelWithDebInfo', '-DWIF_FUZZ=ON'], { CC: 'clang', CXX: 'clang++' });
if (!noBuild) sh('cmake', ['--build', B, '-j2', '--target', 'wif_fuzzers']);

// ---- seeds from the tests' own data ----
const walk = (d) => fs.readdirSync(d, { withFileTypes: true })
  .flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
const seedDir = (t) => { const d = path.join(B, 'seeds', t); fs.rmSync(d, { recursive: true, force: true }); fs.mkdirSync(d, { recursive: true }); return d; };
const write = (d, name, data) => fs.writeFileSync(path.join(d, name.replace(/[^\w.-]/g, '_')), data);

const badCases = table.cases;
const modelFiles = walk('data/models').filter((f) => f.endsWith('.json'));
const seeds = {
  hf_config(d) {
    for (const f of walk('tests/golden/configs')) write(d, path.basename(f), fs.readFileSync(f));
    for (const f of modelFiles) write(d, path.basename(f), JSON.stringify(JSON.parse(fs.readFileSync(f, 'utf8')).config));
    for (const c of badCases) {
      const r = requestOf(c);
      if (r && r.model && typeof r.model === 'object' && r.model.config) write(d, `bad-${c.id}`, JSON.stringify(r.model.config));
    }
  },
  api_estimate(d) {
    for (const c of badCases) if (textOf(c) !== null) write(d, `bad-${c.id}`, textOf(c));
    for (const f of modelFiles.slice(0, 40)) {
      const m = JSON.parse(fs.readFileSync(f, 'utf8'));
      write(d, path.basename(f), JSON.stringify({ model: m.id, quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 32768 }));
    }
  },
  gguf(d) {
    // Small valid headers written by our own writer (gguf-synth) from tiny configs.
    const cli = path.join('build', 'cli', 'willitfit');
    if (!fs.existsSync(cli)) return;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-gguf-'));
    const tiny = [
      { model_type: 'llama', hidden_size: 64, intermediate_size: 128, num_attention_heads: 4, num_key_value_heads: 2, num_hidden_layers: 2, vocab_size: 32 },
      { model_type: 'qwen3_moe', hidden_size: 64, intermediate_size: 128, moe_intermediate_size: 32, num_experts: 4, num_experts_per_tok: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16, num_hidden_layers: 2, vocab_size: 32 },
      { model_type: 'gpt_oss', hidden_size: 64, intermediate_size: 64, num_local_experts: 4, experts_per_token: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16, num_hidden_layers: 2, vocab_size: 32, sliding_window: 8, layer_types: ['sliding_attention', 'full_attention'] },
      // GLM-5's glm-dsa: MLA, the lightning indexer's keys and a shared indexer layer (attention.indexer.types);
      // small enough (3,872 bytes at Q8_0) to stay whole under the merge's -max_len=4096.
      { model_type: 'glm_moe_dsa', hidden_size: 64, intermediate_size: 128, moe_intermediate_size: 32, n_routed_experts: 2, n_shared_experts: 0, num_experts_per_tok: 1, first_k_dense_replace: 1, num_attention_heads: 4, num_key_value_heads: 4, q_lora_rank: 32, kv_lora_rank: 16, qk_nope_head_dim: 8, qk_rope_head_dim: 8, v_head_dim: 8, index_n_heads: 2, index_head_dim: 16, index_topk: 8, indexer_types: ['full', 'shared'], num_hidden_layers: 2, max_position_embeddings: 256, vocab_size: 8 },
    ];
    tiny.forEach((cfg, i) => {
      const c = path.join(tmp, `c${i}.json`);
      fs.writeFileSync(c, JSON.stringify(cfg));
      for (const q of ['Q4_K_M', 'Q8_0', 'F16']) {
        const out = path.join(d, `tiny${i}-${q}.gguf`);
        spawnSync(cli, ['gguf-synth', '--model', c, '--quant', q, '--out', out], { stdio: 'ignore' });
      }
    });
    // Vision projector (mmproj) headers with the clip.* keys (gguf-synth --mmproj): the reader
    // tries every input as a projector too (fuzz_gguf.cpp).
    for (const m of ['google/gemma-3-4b-it', 'Qwen/Qwen3.5-4B', 'mistralai/Ministral-3-3B-Reasoning-2512'])
      spawnSync(cli, ['gguf-synth', '--mmproj', '--model', m, '--out', path.join(d, `mmproj-${m.replace('/', '_')}.gguf`)], { stdio: 'ignore' });
    fs.rmSync(tmp, { recursive: true, force: true });
  },
  catalog(d) {
    const kinds = /** @type {[string, number][]} */ ([['models/', 0], ['hardware/', 1], ['quants.json', 2], ['clouds.json', 3], ['backends.json', 4], ['measurements/', 5]]);
    for (const f of walk('data')) {
      const rel = path.relative('data', f);
      const k = kinds.find(([p]) => rel.startsWith(p));
      if (!k || !/\.jsonl?$/.test(rel)) continue;
      const text = fs.readFileSync(f);
      if (text.length > 64 * 1024) continue;
      write(d, rel, Buffer.concat([Buffer.from([k[1]]), text]));
    }
  },
};

const targets = fs.readdirSync('tests/fuzz').filter((f) => /^fuzz_\w+\.cpp$/.test(f))
  .map((f) => f.slice(5, -4)).filter((t) => !only || t === only);
let bad = 0;

/** Run a command to its end, its output collected. @param {string} cmd @param {string[]} args */
function runCollect(cmd, args) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    const keep = (/** @type {Buffer} */ b) => { if (size < (1 << 26)) { chunks.push(b); size += b.length; } };
    p.stdout.on('data', keep);
    p.stderr.on('data', keep);
    p.on('close', (status) => resolve({ status, out: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** One target: seed, fuzz for the given time, report, and with --save minimise its corpus. @param {string} t */
async function fuzzOne(t) {
  const sd = seedDir(t);
  if (seeds[t]) seeds[t](sd);
  const corpus = path.join(B, 'corpus', t);
  const crashes = path.join(B, 'crashes');
  fs.mkdirSync(corpus, { recursive: true });
  fs.mkdirSync(crashes, { recursive: true });
  const dirs = [corpus, path.join('tests/fuzz/corpus', t), path.join('tests/fuzz/regressions', t), sd].filter((x) => fs.existsSync(x));
  const t0 = Date.now();
  const r = /** @type {{status: number | null, out: string}} */ (await runCollect(path.join(B, 'tests/fuzz', `fuzz_${t}`),
    [`-max_total_time=${seconds}`, `-timeout=${timeout}`, '-rss_limit_mb=2048', '-max_len=65536', '-print_final_stats=1',
      `-artifact_prefix=${crashes}/${t}-`, ...dirs]));
  const execs = Number((r.out.match(/stat::number_of_executed_(?:runs|units):\s*(\d+)/) || [])[1] || 0);
  const secs = ((Date.now() - t0) / 1000).toFixed(0);
  // libFuzzer runs every input of the folders it is given before it mutates any ("INITED" once
  // they have all run), however short -max_total_time is: this run is also the replay of the
  // committed corpus and regressions (npm test builds no replay_<target> under clang).
  const committed = dirs.filter((d) => d.startsWith('tests/fuzz/')).reduce((n, d) => n + fs.readdirSync(d).length, 0);
  const inited = /^#\d+\s+INITED/m.test(r.out);
  if (r.status === 0 && execs > 0 && inited) {
    console.log(`ok ${t} ${execs} execs in ${secs} s (the ${committed} committed corpus and regression inputs ran first)`);
  } else {
    bad++;
    console.log(r.out.split('\n').filter((l) => !/^#\d+/.test(l)).slice(-60).join('\n'));
    console.log(`not ok ${t} exit ${r.status} after ${execs} execs in ${secs} s${inited ? '' : ', before its initial inputs had all run'} (artifacts in ${crashes})`);
  }
  if (save && r.status === 0) {
    const keep = path.join('tests/fuzz/corpus', t);
    const tmp = path.join(B, 'merged', t);
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    spawnSync(path.join(B, 'tests/fuzz', `fuzz_${t}`), ['-merge=1', '-max_len=4096', tmp, keep, corpus], { stdio: 'ignore' });
    fs.rmSync(keep, { recursive: true, force: true });
    fs.cpSync(tmp, keep, { recursive: true });
    console.log(`saved ${fs.readdirSync(keep).length} inputs to ${keep}`);
  }
}

// --jobs N: N targets at a time (npm test's short run uses the machine's two cores).
const queue = [...targets];
await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, targets.length)) }, async () => {
  for (let t = queue.shift(); t; t = queue.shift()) await fuzzOne(t);
}));
console.log(`fuzz: ${targets.length - bad} passed, ${bad} failed`);
process.exit(bad ? 1 : 0);
