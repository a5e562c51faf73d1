// The Hub fetch layer (web/hub.js over the core's hubRef/hubRepo) and the CLI's --model hf:…,
// both against the local mock Hub (tests/mock/hub.mjs); nothing here reaches the internet.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { GOOD_TOKEN, SHA, startMockHub } from '../mock/hub.mjs';
import { api, root } from './helpers.mjs';

const hub = await import(path.join(root, 'dist', 'hub.js'));

/** @type {Awaited<ReturnType<typeof startMockHub>>} */
let mock;
before(async () => { mock = await startMockHub(); });
after(() => mock.close());

const look = (/** @type {string} */ text, /** @type {any} */ o = {}) => hub.lookup(text, { core: api, base: mock.hubUrl, ...o });
const since = (/** @type {number} */ k) => mock.log.slice(k);

/** A Map-backed cache with the interface the page's IndexedDB one has. */
function memCache() {
  const m = new Map();
  return { get: async (/** @type {string} */ k) => m.get(k), put: async (/** @type {string} */ k, /** @type {any} */ v) => { m.set(k, structuredClone(v)); }, m };
}

test('a GGUF repo id gives its quants with published sizes from one API call and one bounded Range read', async () => {
  const k = mock.log.length;
  const r = await look('mock/Llama-3.1-8B-GGUF');
  assert.equal(r.repo.format, 'gguf');
  assert.equal(r.repo.revision, SHA);
  const labels = r.repo.quants.map((/** @type {any} */ q) => q.label);
  assert.deepEqual(new Set(labels), new Set(['BF16', 'Q8_0', 'UD-Q4_K_XL', 'Q4_K_M']));
  const files = mock.repos['mock/Llama-3.1-8B-GGUF'].files;
  const bf16 = r.repo.quants.find((/** @type {any} */ q) => q.label === 'BF16');
  const shardSizes = [1, 2, 3].map((k) => files[`BF16/Llama-3.1-8B-BF16-0000${k}-of-00003.gguf`].size);
  assert.equal(bf16.bytes, shardSizes[0] + shardSizes[1] + shardSizes[2]);
  assert.equal(bf16.split, 3);
  const q4 = r.repo.quants[r.repo.chosen];
  assert.equal(q4.label, 'Q4_K_M');
  assert.equal(q4.bytes, files['Llama-3.1-8B-Q4_K_M.gguf'].size);
  assert.deepEqual(r.repo.mmproj, []);   // a text model: no projector file, nothing more read
  assert.equal(r.repo.commands.llama_server, 'llama-server -hf mock/Llama-3.1-8B-GGUF:Q4_K_M');
  // Requests: the API (blobs=true), the resolve (302) and the file host's one 206; no HEAD, no suffix range.
  const reqs = since(k);
  assert.equal(reqs.filter((x) => x.server === 'hub' && x.path.startsWith('/api/')).length, 1);
  const fileReads = reqs.filter((x) => x.server === 'files');
  assert.equal(fileReads.length, 1);
  assert.match(String(fileReads[0].range), /^bytes=0-\d+$/);
  assert.ok(reqs.every((x) => x.method === 'GET'));
  assert.equal(r.requests.length, 2);
  // The estimate of the chosen quant uses the file's own tensors; the others their architecture.
  const e = await api.estimate({ model: hub.modelFor(r, q4), hardware: 'nvidia-rtx-4090', context: 8192 });
  const q8 = r.repo.quants.find((/** @type {any} */ q) => q.label === 'Q8_0');
  const e8 = await api.estimate({ model: hub.modelFor(r, q8), quant: q8.quant, hardware: 'nvidia-rtx-4090', context: 8192 });
  const cat8 = await api.estimate({ model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q8_0', hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.equal(e8.memory.weights_bytes, cat8.memory.weights_bytes);
  assert.ok(e.memory.weights_bytes < e8.memory.weights_bytes);
  assert.equal(e.gguf_file_bytes, files['Llama-3.1-8B-Q4_K_M.gguf'].size);
  // A quant the planner does not know has no model until its own header is read.
  const ud = r.repo.quants.find((/** @type {any} */ q) => q.label === 'UD-Q4_K_XL');
  assert.equal(hub.modelFor(r, ud), null);
  const r2 = await look('mock/Llama-3.1-8B-GGUF:UD-Q4_K_XL');
  assert.ok(hub.modelFor(r2, r2.repo.quants[r2.repo.chosen]));
});

test('links to a file page, with revision and query string, pick that file; a split file is planned from every shard', async () => {
  const k = mock.log.length;
  const r = await look(`https://huggingface.co/mock/Llama-3.1-8B-GGUF/blob/${SHA}/BF16/Llama-3.1-8B-BF16-00002-of-00003.gguf?download=true`);
  const row = r.repo.quants[r.repo.chosen];
  assert.equal(row.label, 'BF16');
  assert.equal(row.from_header, true);
  const reqs = since(k);
  assert.ok(reqs.some((x) => x.path.startsWith(`/api/models/mock/Llama-3.1-8B-GGUF/revision/${SHA}`)));
  // Each shard's header is read once, with one bounded Range, all in the same round.
  for (const n of [1, 2, 3])
    assert.equal(reqs.filter((x) => x.server === 'hub' && x.path.includes(`BF16-0000${n}-of-00003`)).length, 1, `shard ${n}`);
  const fileReads = reqs.filter((x) => x.server === 'files');
  assert.equal(fileReads.length, 3);
  for (const x of fileReads) assert.match(String(x.range), /^bytes=0-\d+$/);
  assert.equal(r.requests.length, 4);   // the API call and one read per shard
  // The plan counts every shard's tensors: the file is exactly the three shards, and its weights
  // are the catalog's BF16 weights (gguf-synth wrote the same tensors); shard 1 alone holds a third.
  const files = mock.repos['mock/Llama-3.1-8B-GGUF'].files;
  const m = hub.modelFor(r, row);
  assert.equal(m.gguf_shards_base64.length, 2);
  const e = await api.estimate({ model: m, hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.equal(e.gguf_file_bytes, row.bytes);
  assert.equal(row.bytes, [1, 2, 3].reduce((s, n) => s + files[`BF16/Llama-3.1-8B-BF16-0000${n}-of-00003.gguf`].size, 0));
  const cat = await api.estimate({ model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'BF16', hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.equal(e.memory.weights_bytes, cat.memory.weights_bytes);
  const { gguf_shards_base64: _, ...first } = m;
  const e1 = await api.estimate({ model: first, hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.ok(e1.memory.weights_bytes < e.memory.weights_bytes / 2);
  // Shards out of order or missing are refused with a code, not planned wrong.
  await assert.rejects(api.estimate({ model: { ...m, gguf_shards_base64: [...m.gguf_shards_base64].reverse() }, hardware: 'nvidia-rtx-4090' }),
    (/** @type {any} */ e) => e.code === 'gguf_split_mismatch' && e.path === 'model.gguf_shards_base64[0]');
  await assert.rejects(api.estimate({ model: { ...m, gguf_shards_base64: m.gguf_shards_base64.slice(0, 1) }, hardware: 'nvidia-rtx-4090' }),
    (/** @type {any} */ e) => e.code === 'gguf_split_mismatch' && e.path === 'model.gguf_header_base64');
});

test('hubLookup registers every header read beside the module: estimates carry a handle and answer as with the bytes', async () => {
  const url = `https://huggingface.co/mock/Llama-3.1-8B-GGUF/blob/${SHA}/BF16/Llama-3.1-8B-BF16-00002-of-00003.gguf`;
  const viaBytes = await look(url);
  const viaHandles = await api.hubLookup(url, { base: mock.hubUrl });
  // No header bytes come back: only the core's repo document and a handle per header read.
  assert.equal(viaHandles.doc, undefined);
  assert.ok(JSON.stringify(viaHandles).length < 200_000, `${JSON.stringify(viaHandles).length} characters`);
  const row = viaHandles.repo.quants[viaHandles.repo.chosen];
  assert.equal(row.label, 'BF16');
  const m = hub.modelFor(viaHandles, row);
  assert.match(m.gguf_handle, /^sha256:[0-9a-f]{64}$/);
  assert.equal(m.gguf_header_base64, undefined);
  assert.equal(m.gguf_shards_base64, undefined);
  // The split file's handle covers all three shards: the same document as the bytes give.
  const req = { hardware: 'nvidia-rtx-4090', context: 8192 };
  const byHandle = await api.estimate({ ...req, model: m });
  const byBytes = await api.estimate({ ...req, model: hub.modelFor(viaBytes, viaBytes.repo.quants[viaBytes.repo.chosen]) });
  assert.equal(byHandle.gguf_file_bytes, row.bytes);
  assert.deepEqual(byHandle.memory, byBytes.memory);
  // Another quant is planned from the architecture of the header that was read: the same handle.
  const q4 = viaHandles.repo.quants.find((/** @type {any} */ q) => q.label === 'Q4_K_M');
  assert.equal(q4.model.header, row.model.header);
  assert.equal(hub.modelFor(viaHandles, q4).gguf_handle, m.gguf_handle);
  // A header the lookup did not register gives no model (read it first), never the wrong one.
  assert.equal(hub.modelFor({ ...viaHandles, handles: {} }, row), null);
  // Bad shard lists are coded errors.
  await assert.rejects(api.registerGgufSplit([]), (/** @type {any} */ e) => e.code === 'bad_type' && e.path === 'shards');
  await assert.rejects(api.registerGgufSplit(['AAAA']), (/** @type {any} */ e) => e.name === 'WillitfitError' && /^gguf_/.test(e.code));
});

test('a safetensors repo reads config.json and every shard header; FP8 weights and their scales are counted', async () => {
  const r = await look('mock/Llama-FP8');
  assert.equal(r.repo.format, 'safetensors');
  assert.equal(r.repo.quantization.format, 'FP8');
  const by = Object.fromEntries(r.repo.safetensors.dtypes.map((/** @type {any} */ d) => [d.dtype, d]));
  assert.equal(by.F8_E4M3.bytes, 1024 * 512);
  assert.equal(by.F32.bytes, 8 * 4 * 4);
  assert.equal(by.BF16.params, 2 * 512 * 256);
  assert.equal(r.repo.commands.vllm, 'vllm serve mock/Llama-FP8');
  const e = await api.estimate({ model: hub.modelFor(r, r.repo.quants[0]), quant: 'FP8', hardware: 'nvidia-h100-sxm', engine: 'vllm' });
  assert.ok(e.memory.total_bytes > 0);
});

test('failures are coded: unknown, gated, rate limited, no model files, unsupported architecture, hostile and cut headers', async () => {
  const code = async (/** @type {string} */ text, /** @type {any} */ o = {}) => {
    try { await look(text, o); } catch (e) { return /** @type {any} */ (e); }
    return { code: 'no error' };
  };
  assert.equal((await code('mock/No-Such-Repo')).code, 'hub_not_found');
  assert.equal((await code('mock/Gated-GGUF')).code, 'hub_gated');
  assert.equal((await code('mock/Gated-GGUF', { token: 'hf_wrong' })).code, 'hub_gated');
  const rl = await code('mock/Rate-Limited');
  assert.equal(rl.code, 'hub_rate_limited');
  assert.equal(rl.retryAfterS, 7);
  assert.equal((await code('mock/No-Model')).code, 'hub_no_model_files');
  const un = await code('mock/Unsupported-Arch');
  assert.equal(un.code, 'unsupported_model_type');
  assert.match(un.message, /mamba9/);
  // the GGUF reader's bound on array elements refuses the claim before any larger read
  assert.equal((await code('mock/Hostile-GGUF')).code, 'gguf_too_large');
  assert.equal((await code('mock/Truncated-GGUF')).code, 'gguf_truncated');
  assert.equal((await code('https://huggingface.co/datasets/mock/d')).code, 'hub_not_model');
  assert.equal((await code('https://example.com/mock/x')).code, 'hub_other_site');
  assert.equal((await code('mock/Slow-GGUF', { timeoutMs: 300 })).code, 'hub_timeout');
  assert.equal((await code('mock/Llama-3.1-8B-GGUF', { base: 'http://127.0.0.1:9' })).code, 'hub_network');
});

test('a token reaches the Hub origin only, never the file host, and opens a gated repo', async () => {
  const k = mock.log.length;
  const r = await look('mock/Gated-GGUF', { token: GOOD_TOKEN });
  assert.equal(r.repo.gated, 'manual');
  const reqs = since(k);
  assert.ok(reqs.filter((x) => x.server === 'hub' && x.method === 'GET').every((x) => x.auth));
  const fileReqs = reqs.filter((x) => x.server === 'files');
  assert.ok(fileReqs.length >= 1);
  assert.ok(fileReqs.every((x) => !x.auth));
});

test('a lookup is cancelled when its signal aborts', async () => {
  const ctl = new AbortController();
  const p = look('mock/Slow-GGUF', { signal: ctl.signal });
  setTimeout(() => ctl.abort(), 50);
  await assert.rejects(p, (/** @type {any} */ e) => e.code === 'hub_cancelled');
});

test('what was read is cached by repo and revision: offline and with the network down it answers, with when it was read', async () => {
  const cache = memCache();
  const first = await look('mock/Llama-3.1-8B-GGUF', { cache });
  assert.equal(first.fromCache, false);
  assert.ok(cache.m.has(`mock/Llama-3.1-8B-GGUF@${SHA}`));
  const k = mock.log.length;
  const again = await look('mock/Llama-3.1-8B-GGUF', { cache });
  assert.equal(since(k).filter((x) => x.server === 'files').length, 0);   // the API is asked, the header is not re-read
  assert.equal(again.fromCache, true);
  const off = await look('mock/Llama-3.1-8B-GGUF', { cache, offline: true });
  assert.equal(off.readAt, first.readAt);
  const down = await look('mock/Llama-3.1-8B-GGUF', { cache, base: 'http://127.0.0.1:9' });
  assert.equal(down.fromCache, true);
  assert.deepEqual(down.repo.quants.map((/** @type {any} */ q) => q.bytes), first.repo.quants.map((/** @type {any} */ q) => q.bytes));
  await assert.rejects(look('mock/Llama-FP8', { cache, offline: true }), (/** @type {any} */ e) => e.code === 'hub_offline');
});

/** The CLI against the mock (WILLITFIT_HUB_URL is for tests; it is not a user setting). */
function cliHub(/** @type {string[]} */ args) {
  return new Promise((resolve) => {
    const p = spawn(path.join(root, 'build', 'cli', 'willitfit'), args, { env: { ...process.env, WILLITFIT_HUB_URL: mock.hubUrl } });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('close', (code) => { let json = null; try { json = JSON.parse(out); } catch { /* not JSON */ } resolve({ code, json, out }); });
  });
}

test('the CLI estimates hf:owner/repo[:QUANT] with the same codes, and --offline reads nothing', async () => {
  const r = /** @type {any} */ (await cliHub(['estimate', '--model', 'hf:mock/Llama-3.1-8B-GGUF:Q4_K_M', '--hardware', 'nvidia-rtx-4090', '--context', '8192', '--json']));
  assert.equal(r.code, 0, r.out);
  const files = mock.repos['mock/Llama-3.1-8B-GGUF'].files;
  assert.equal(r.json.gguf_file_bytes, files['Llama-3.1-8B-Q4_K_M.gguf'].size);
  assert.equal(r.json.hub.revision, SHA);
  assert.equal(r.json.hub.quant.label, 'Q4_K_M');
  const g = /** @type {any} */ (await cliHub(['estimate', '--model', 'hf:mock/Gated-GGUF', '--hardware', 'nvidia-rtx-4090', '--json']));
  assert.equal(g.code, 2);
  assert.equal(g.json.error.code, 'hub_gated');
  const rl = /** @type {any} */ (await cliHub(['estimate', '--model', 'hf:mock/Rate-Limited', '--hardware', 'nvidia-rtx-4090', '--json']));
  assert.equal(rl.json.error.code, 'hub_rate_limited');
  const nf = /** @type {any} */ (await cliHub(['estimate', '--model', 'hf:mock/Nope', '--hardware', 'nvidia-rtx-4090', '--json']));
  assert.equal(nf.json.error.code, 'hub_not_found');
  const un = /** @type {any} */ (await cliHub(['estimate', '--model', 'hf:mock/Unsupported-Arch', '--hardware', 'nvidia-rtx-4090', '--json']));
  assert.equal(un.json.error.code, 'unsupported_model_type');
  const k = mock.log.length;
  const off = /** @type {any} */ (await cliHub(['estimate', '--model', 'hf:mock/Llama-3.1-8B-GGUF', '--offline', '--hardware', 'nvidia-rtx-4090', '--json']));
  assert.equal(off.code, 2);
  assert.equal(off.json.error.code, 'hub_offline');
  assert.equal(mock.log.length, k);
  const st = /** @type {any} */ (await cliHub(['estimate', '--model', 'hf:mock/Llama-FP8', '--quant', 'FP8', '--engine', 'vllm', '--hardware', 'nvidia-h100-sxm', '--json']));
  assert.equal(st.code, 0, st.out);
  assert.equal(st.json.hub.quantization.format, 'FP8');
});

test('a multimodal GGUF repo: the F16 mmproj header is read in the same round, and CLI and wasm give the same projector', async () => {
  const repoId = 'mock/gemma-3-4b-it-GGUF';
  const files = mock.repos[repoId].files;
  const k = mock.log.length;
  const r = await look(repoId);
  assert.equal(r.repo.projector.path, 'mmproj-F16.gguf');
  assert.equal(r.repo.projector.projector_type, 'gemma3');
  assert.equal(r.repo.projector.tensor_bytes, files['mmproj-F16.gguf'].info.tensor_bytes);
  // Two bounded reads (model and projector, one round), the projector's within its first read.
  const fileReads = since(k).filter((x) => x.server === 'files');
  assert.equal(fileReads.length, 2);
  const mmRead = r.requests.find((/** @type {any} */ x) => x.url.endsWith('/mmproj-F16.gguf'));
  assert.equal(mmRead.range, 'bytes=0-131071');
  assert.ok(files['mmproj-F16.gguf'].header.length < 131072);
  const row = r.repo.quants[r.repo.chosen];
  const m = hub.modelFor(r, row);
  assert.equal(typeof m.mmproj_header_base64, 'string');
  assert.equal(m.mmproj_path, 'mmproj-F16.gguf');
  assert.equal(m.mmproj_revision, SHA);
  const req = { hardware: 'nvidia-rtx-4090', context: 8192, images: 2 };
  const viaBytes = await api.estimate({ ...req, model: m });
  const p = viaBytes.projector;
  assert.equal(p.source, 'mmproj_file');
  assert.equal(p.bytes_source, 'file');
  assert.equal(p.file.path, 'mmproj-F16.gguf');
  assert.equal(p.loaded, true);
  // The same figures as the catalog's Gemma 3 4B computed from its config.
  const cat = await api.estimate({ ...req, model: 'google/gemma-3-4b-it', quant: 'Q4_K_M' });
  for (const key of ['bytes', 'compute_bytes', 'tokens_per_image', 'image_tokens', 'params'])
    assert.equal(p[key], cat.projector[key], key);
  assert.equal(viaBytes.memory.projector_bytes, cat.memory.projector_bytes);
  assert.match(viaBytes.commands.llama_server, / --mmproj mmproj-F16\.gguf/);
  // Through the module's own thread: the projector under a handle.
  const viaHandles = await api.hubLookup(repoId, { base: mock.hubUrl });
  const mh = hub.modelFor(viaHandles, viaHandles.repo.quants[viaHandles.repo.chosen]);
  assert.match(mh.mmproj_handle, /^sha256:[0-9a-f]{64}$/);
  assert.equal(mh.mmproj_header_base64, undefined);
  const byHandle = await api.estimate({ ...req, model: mh });
  assert.deepEqual(byHandle.projector, p);
  // The CLI reads the same repo with libcurl: the same projector figures.
  const c = /** @type {any} */ (await cliHub(['estimate', '--model', `hf:${repoId}`, '--hardware', 'nvidia-rtx-4090', '--context', '8192', '--images', '2', '--json']));
  assert.equal(c.code, 0, c.out);
  assert.deepEqual(c.json.projector, p);
  assert.equal(c.json.hub.projector.path, 'mmproj-F16.gguf');
  // The person's choice of file; one not in the repo is a coded error.
  const b = await look(repoId, { mmprojFile: 'mmproj-BF16.gguf' });
  assert.equal(b.repo.projector.path, 'mmproj-BF16.gguf');
  const eb = await api.estimate({ ...req, model: hub.modelFor(b, b.repo.quants[b.repo.chosen]) });
  assert.equal(eb.projector.type, 'bf16');
  assert.equal(eb.projector.bytes, files['mmproj-BF16.gguf'].info.tensor_bytes);
  const cb = /** @type {any} */ (await cliHub(['estimate', '--model', `hf:${repoId}`, '--mmproj-file', 'mmproj-BF16.gguf', '--hardware', 'nvidia-rtx-4090', '--images', '1', '--json']));
  assert.equal(cb.json.projector.type, 'bf16');
  await assert.rejects(look(repoId, { mmprojFile: 'mmproj-Q4.gguf' }), (/** @type {any} */ e) => e.code === 'hub_file_not_found' && e.path === 'mmproj_file');
});

test('a projector file that is not readable leaves the text model: mmproj_error, and images are no_projector', async () => {
  const r = await look('mock/Bad-Mmproj-GGUF');
  assert.equal(r.repo.mmproj_error.code, 'gguf_bad_version');
  assert.equal(r.repo.projector, undefined);
  const m = hub.modelFor(r, r.repo.quants[r.repo.chosen]);
  assert.equal(m.mmproj_header_base64, undefined);
  const e = await api.estimate({ model: m, hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.equal(e.verdict !== undefined, true);
  await assert.rejects(api.estimate({ model: m, hardware: 'nvidia-rtx-4090', context: 8192, images: 1 }), (/** @type {any} */ x) => x.code === 'no_projector');
});
