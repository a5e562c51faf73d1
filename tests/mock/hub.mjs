// A local stand-in for the Hugging Face Hub, for tests only (node:http on 127.0.0.1, two origins).
// The Hub origin answers /api/models/{repo}[/revision/{rev}] (?blobs=true adds sizes) and
// /api/models/{repo}/tree/{rev} in the Hub's shapes (siblings [{rfilename, size, blobId, lfs{sha256,
// size, pointerSize}}]; tree [{type, oid, size, path, lfs{oid, size, pointerSize}}]; sha, gated,
// lastModified…), and /{repo}/resolve/{rev}/{file}: small files directly, LFS files by a 302 to the
// second origin, the file host, which answers `Range: bytes=a-b` with 206 and the CORS headers
// the Hub's file host sends. Errors as the Hub gives them: 401 + X-Error-Code RepoNotFound for an
// unknown repo without a token, 401/403 + GatedRepo for a gated one, 429 + Retry-After.
// Every request is logged (method, path, Range, whether Authorization was sent) for the tests.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const GOOD_TOKEN = 'hf_mock_accepted_token';
export const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

/** A GGUF header from `willitfit gguf-synth`: {header, size} (size: the real file's bytes). */
function synth(/** @type {string} */ model, /** @type {string} */ quant, /** @type {string[]} */ flags = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-mockhub-'));
  const out = path.join(dir, 'x.gguf');
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['gguf-synth', '--model', model, '--quant', quant, '--out', out, '--json', ...flags], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gguf-synth: ${r.stdout}${r.stderr}`);
  const info = JSON.parse(r.stdout);
  const header = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  return { header, size: info.file_bytes };
}

/** A vision projector's mmproj header from `willitfit gguf-synth --mmproj` (clip.* keys and the tensors llama.cpp's converter writes): {header, size, info}. */
function synthMmproj(/** @type {string} */ model, /** @type {string} */ type) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-mockhub-'));
  const out = path.join(dir, 'mmproj.gguf');
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['gguf-synth', '--mmproj', '--model', model, '--quant', type, '--out', out, '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gguf-synth --mmproj: ${r.stdout}${r.stderr}`);
  const info = JSON.parse(r.stdout);
  const header = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  return { header, size: info.file_bytes, info };
}

/** gguf-split's shard headers ({header, size} each, in order). */
function synthSplit(/** @type {string} */ model, /** @type {string} */ quant, /** @type {number} */ n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-mockhub-'));
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), ['gguf-synth', '--model', model, '--quant', quant, '--out', path.join(dir, 'x.gguf'), '--split', String(n), '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gguf-synth: ${r.stdout}${r.stderr}`);
  const shards = JSON.parse(r.stdout).files.map((/** @type {{path: string, file_bytes: number}} */ f) => ({ header: fs.readFileSync(f.path), size: f.file_bytes }));
  fs.rmSync(dir, { recursive: true, force: true });
  return shards;
}

/** A safetensors file's first bytes for [name, dtype, shape, bits] tensors: {header, size}. */
export function safetensors(/** @type {[string, string, number[], number][]} */ tensors) {
  /** @type {Record<string, any>} */
  const h = { __metadata__: { format: 'pt' } };
  let off = 0;
  for (const [name, dtype, shape, bits] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    const b = Math.ceil((n * bits) / 8);
    h[name] = { dtype, shape, data_offsets: [off, off + b] };
    off += b;
  }
  const json = Buffer.from(JSON.stringify(h));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  const header = Buffer.concat([len, json]);
  return { header, size: header.length + off };
}

const llamaConfig = () => JSON.parse(fs.readFileSync(path.join(root, 'tests', 'golden', 'configs', 'llama-3.1-8b.json'), 'utf8'));

/** The repos the mock serves. Each file: {header: Buffer (its first bytes; the rest reads as zeros), size, lfs}. */
function makeRepos() {
  const llama = 'meta-llama/Llama-3.1-8B-Instruct';
  const q4 = synth(llama, 'Q4_K_M');
  const q8 = synth(llama, 'Q8_0');
  const bf16 = synthSplit(llama, 'BF16', 3);   // gguf-split's three shards, each with its own tensors
  // A multimodal repo as llama.cpp's converter publishes it: the text model and its vision
  // projector (mmproj) in F16 and BF16.
  const gemma = 'google/gemma-3-4b-it';
  const gq4 = synth(gemma, 'Q4_K_M');
  const mmF16 = synthMmproj(gemma, 'f16');
  const mmBF16 = synthMmproj(gemma, 'bf16');
  const small = (/** @type {string} */ s) => ({ header: Buffer.from(s), size: Buffer.byteLength(s), lfs: false });
  const big = (/** @type {{header: Buffer, size: number}} */ f) => ({ ...f, lfs: true });
  const fp8Config = { ...llamaConfig(), quantization_config: { quant_method: 'fp8', fmt: 'e4m3', weight_block_size: [128, 128], activation_scheme: 'dynamic' } };
  const st1 = safetensors([['model.layers.0.mlp.up_proj.weight', 'F8_E4M3', [1024, 512], 8], ['model.layers.0.mlp.up_proj.weight_scale_inv', 'F32', [8, 4], 32]]);
  const st2 = safetensors([['model.embed_tokens.weight', 'BF16', [512, 256], 16], ['lm_head.weight', 'BF16', [512, 256], 16]]);
  // A header whose one string array claims 2^26 elements: 512 MiB at least, past any read limit.
  const hostile = Buffer.alloc(41);
  hostile.write('GGUF', 0); hostile.writeUInt32LE(3, 4); hostile.writeBigInt64LE(0n, 8); hostile.writeBigInt64LE(1n, 16);
  hostile.writeBigUInt64LE(1n, 24); hostile.write('a', 32); hostile.writeUInt32LE(9, 33); hostile.writeUInt32LE(8, 37);
  const hostileFull = Buffer.concat([hostile, Buffer.from(new BigUint64Array([1n << 26n]).buffer)]);
  /** @type {Record<string, {gated?: string|false, files: Record<string, any>, slowMs?: number, rate?: number}>} */
  const repos = {
    'mock/Llama-3.1-8B-GGUF': {
      files: {
        'README.md': small('# mock\n'), '.gitattributes': small('*.gguf filter=lfs\n'),
        'Llama-3.1-8B-Q4_K_M.gguf': big(q4), 'Llama-3.1-8B-Q8_0.gguf': big(q8),
        'Llama-3.1-8B-UD-Q4_K_XL.gguf': big({ header: q4.header, size: q4.size + 123456789 }),
        'BF16/Llama-3.1-8B-BF16-00001-of-00003.gguf': big(bf16[0]),
        'BF16/Llama-3.1-8B-BF16-00002-of-00003.gguf': big(bf16[1]),
        'BF16/Llama-3.1-8B-BF16-00003-of-00003.gguf': big(bf16[2]),
      },
    },
    'mock/gemma-3-4b-it-GGUF': {
      files: {
        'README.md': small('# mock gemma\n'),
        'gemma-3-4b-it-Q4_K_M.gguf': big(gq4),
        'mmproj-BF16.gguf': big(mmBF16),
        'mmproj-F16.gguf': big(mmF16),
      },
    },
    // A repo whose projector file is no GGUF header at all (4 bytes, then zeros).
    'mock/Bad-Mmproj-GGUF': {
      files: { 'x-Q4_K_M.gguf': big(q4), 'mmproj-F16.gguf': big({ header: Buffer.from('GGUF'), size: 600_000_000 }) },
    },
    'mock/Gated-GGUF': { gated: 'manual', files: { 'README.md': small('gated\n'), 'Gated-Q4_K_M.gguf': big(q4) } },
    'mock/Rate-Limited': { rate: 7, files: { 'x-Q4_K_M.gguf': big(q4) } },
    'mock/Slow-GGUF': { slowMs: 4000, files: { 'x-Q4_K_M.gguf': big(q4) } },
    'mock/Llama-FP8': {
      files: {
        'config.json': small(JSON.stringify(fp8Config)),
        'model-00001-of-00002.safetensors': big(st1), 'model-00002-of-00002.safetensors': big(st2),
        'generation_config.json': small('{}'),
      },
    },
    'mock/No-Model': { files: { 'README.md': small('# nothing here\n'), 'data.csv': small('a,b\n') } },
    'mock/Unsupported-Arch': { files: { 'config.json': small(JSON.stringify({ model_type: 'mamba9', hidden_size: 64 })) } },
    'mock/Hostile-GGUF': { files: { 'h-Q4_K_M.gguf': big({ header: hostileFull, size: 2 ** 40 }) } },
    'mock/Truncated-GGUF': { files: { 't-Q4_K_M.gguf': big({ header: q4.header.subarray(0, 5000), size: 5000 }) } },
  };
  return repos;
}

const oid = (/** @type {string} */ s) => crypto.createHash('sha1').update(s).digest('hex');
const sha256 = (/** @type {string} */ s) => crypto.createHash('sha256').update(s).digest('hex');

/** The Hub's /api/models/{repo} document. */
function modelInfo(/** @type {string} */ id, /** @type {any} */ repo, /** @type {boolean} */ blobs) {
  return {
    _id: oid(id).slice(0, 24), id, modelId: id, author: id.split('/')[0], sha: SHA,
    lastModified: '2026-11-30T08:00:00.000Z', createdAt: '2026-11-29T08:00:00.000Z', private: false, disabled: false,
    gated: repo.gated || false, downloads: 0, likes: 0, library_name: 'gguf', tags: ['gguf'],
    siblings: Object.entries(repo.files).map(([name, f]) => blobs
      ? { rfilename: name, size: f.size, blobId: oid(name), ...(f.lfs ? { lfs: { sha256: sha256(name), size: f.size, pointerSize: 134 } } : {}) }
      : { rfilename: name }),
    spaces: [], usedStorage: Object.values(repo.files).reduce((s, f) => s + f.size, 0),
  };
}

function treeOf(/** @type {any} */ repo) {
  return Object.entries(repo.files).map(([name, f]) => ({
    type: 'file', oid: oid(name), size: f.lfs ? 134 : f.size, path: name,
    ...(f.lfs ? { lfs: { oid: sha256(name), size: f.size, pointerSize: 134 } } : {}),
  }));
}

/** Bytes a..b (inclusive) of a file whose first bytes are `header` and the rest zeros. */
function slice(/** @type {any} */ f, /** @type {number} */ a, /** @type {number} */ b) {
  const out = Buffer.alloc(b - a + 1);
  if (a < f.header.length) f.header.copy(out, 0, a, Math.min(f.header.length, b + 1));
  return out;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges, ETag, X-Error-Code, X-Error-Message, Retry-After, X-Repo-Commit, X-Linked-Size',
};

/**
 * Start the mock. Resolves to {hubUrl, filesUrl, log, close}.
 * @param {{slowMs?: number}} [opts]
 */
export async function startMockHub(opts = {}) {
  const repos = makeRepos();
  /** @type {{server: string, method: string, path: string, range?: string, auth: boolean}[]} */
  const log = [];
  let filesUrl = '';
  const send = (/** @type {http.ServerResponse} */ res, /** @type {number} */ status, /** @type {any} */ body, /** @type {Record<string,string>} */ headers = {}) => {
    const b = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { ...CORS, 'Content-Type': typeof body === 'object' && !Buffer.isBuffer(body) ? 'application/json' : 'text/plain', ...headers });
    res.end(b);
  };
  const preflight = (/** @type {http.ServerResponse} */ res) => {
    res.writeHead(204, { ...CORS, 'Access-Control-Allow-Headers': 'authorization, range, accept, content-type', 'Access-Control-Allow-Methods': 'GET, OPTIONS', 'Access-Control-Max-Age': '86400' });
    res.end();
  };

  const hub = http.createServer(async (req, res) => {
    const u = new URL(req.url || '/', 'http://x');
    const p = decodeURIComponent(u.pathname);
    log.push({ server: 'hub', method: req.method || '', path: p + u.search, range: req.headers.range, auth: !!req.headers.authorization });
    if (req.method === 'OPTIONS') return preflight(res);
    if (req.method !== 'GET') return send(res, 405, { error: 'GET only in the mock' });
    const auth = req.headers.authorization || '';
    let m = /^\/api\/models\/([^/]+\/[^/]+)(?:\/(revision|tree)\/([^/]+))?\/?$/.exec(p);
    if (m) {
      const repo = repos[m[1]];
      if (!repo) return send(res, auth ? 404 : 401, { error: 'Repository not found' }, { 'X-Error-Code': 'RepoNotFound' });
      if (repo.rate) return send(res, 429, { error: 'You have exceeded the rate limit' }, { 'Retry-After': String(repo.rate) });
      const delay = repo.slowMs ?? opts.slowMs;
      if (delay) await new Promise((r) => setTimeout(r, delay));
      if (res.destroyed) return undefined;
      if (m[2] === 'tree') return send(res, 200, treeOf(repo));
      return send(res, 200, modelInfo(m[1], repo, u.searchParams.get('blobs') === 'true'));
    }
    m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(p);
    if (m) {
      const repo = repos[m[1]];
      if (!repo) return send(res, 404, 'Repository not found', { 'X-Error-Code': 'RepoNotFound' });
      const f = repo.files[m[3]];
      if (!f) return send(res, 404, 'Entry not found', { 'X-Error-Code': 'EntryNotFound' });
      if (repo.gated && auth !== `Bearer ${GOOD_TOKEN}`)
        return send(res, auth ? 403 : 401, `Access to model ${m[1]} is restricted.`, { 'X-Error-Code': 'GatedRepo' });
      if (!f.lfs) return send(res, 200, f.header, { 'X-Repo-Commit': SHA, ETag: `"${oid(m[3])}"` });
      const loc = `${filesUrl}/repos/${sha256(m[1])}/${sha256(m[3])}?name=${encodeURIComponent(m[1] + '/' + m[3])}&X-Amz-Expires=3600`;
      res.writeHead(302, { ...CORS, Location: loc, 'X-Repo-Commit': SHA, 'X-Linked-Size': String(f.size) });
      return res.end();
    }
    return send(res, 404, { error: 'not a mock route' });
  });

  const files = http.createServer((req, res) => {
    const u = new URL(req.url || '/', 'http://x');
    log.push({ server: 'files', method: req.method || '', path: u.pathname, range: req.headers.range, auth: !!req.headers.authorization });
    if (req.method === 'OPTIONS') return preflight(res);
    if (req.method !== 'GET') return send(res, 405, 'GET only');
    const [repoId, file] = splitName(u.searchParams.get('name') || '');
    const f = repos[repoId]?.files[file];
    if (!f) return send(res, 404, 'no such object');
    const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range || ''));
    if (req.headers.range && !range) return send(res, 416, 'only bounded ranges bytes=a-b in the mock');
    if (!range) {
      res.writeHead(200, { ...CORS, 'Content-Length': String(f.size), 'Accept-Ranges': 'bytes' });
      // Never send gigabytes: the body stops after the header (tests read no further).
      return res.end(slice(f, 0, Math.min(f.size, f.header.length + 1024) - 1));
    }
    const a = Number(range[1]);
    const b = Math.min(Number(range[2]), f.size - 1);
    if (a >= f.size) return send(res, 416, 'range past the end', { 'Content-Range': `bytes */${f.size}` });
    res.writeHead(206, { ...CORS, 'Content-Range': `bytes ${a}-${b}/${f.size}`, 'Content-Length': String(b - a + 1), 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' });
    return res.end(slice(f, a, b));
  });

  const listen = (/** @type {http.Server} */ s) => new Promise((r) => {
    s.keepAliveTimeout = 60000;   // as a CDN keeps connections; node's 5 s default races the client's reuse
    s.listen(0, '127.0.0.1', () => r(/** @type {any} */ (s.address()).port));
  });
  const hubPort = await listen(hub);
  const filesPort = await listen(files);
  filesUrl = `http://127.0.0.1:${filesPort}`;
  return {
    hubUrl: `http://127.0.0.1:${hubPort}`,
    filesUrl,
    log,
    repos,
    close: () => Promise.all([hub, files].map((s) => new Promise((r) => { s.closeAllConnections?.(); s.close(r); }))),
  };
}

/** "owner/name/dir/file" -> ["owner/name", "dir/file"]. @param {string} s */
function splitName(s) {
  const parts = s.split('/');
  return [parts.slice(0, 2).join('/'), parts.slice(2).join('/')];
}

// `node tests/mock/hub.mjs` runs the mock by hand and prints its two origins.
if (import.meta.url === `file://${process.argv[1]}`) {
  const m = await startMockHub();
  console.log(`mock hub at ${m.hubUrl}, file host at ${m.filesUrl}`);
}
