// @ts-check
// The only place the page talks to the wasm core. One module instance, created on first use
// behind a memoised promise; every call is JSON text in, JSON out. Errors come back from the
// core as {"error": {code, path, message}} and are thrown here as WillitfitError.
//
// Hostile callers. Every public function checks its arguments before the module sees them and
// throws WillitfitError (never embind's BindingError, a TypeError or a RangeError): a request
// must be a plain object whose values are JSON (no BigInt, function, symbol, cycle, NaN or
// Infinity), nested at most MAX_DEPTH deep, at most MAX_REQUEST_BYTES as text; the checks walk
// the value with an explicit stack, so no input can overflow JavaScript's stack either. If the
// module ever traps anyway, the instance is dropped and the next call builds a new one, so one
// bad call never damages the next good one.

import { idbCache, lookup } from './hub.js';

export class WillitfitError extends Error {
  /** @param {{code: string, path: string, message: string, accepted?: string[], needed_bytes?: number, values?: Record<string, string>}} e (willitfit.d.ts ErrorBody) */
  constructor(e) {
    super(e.message);
    this.name = 'WillitfitError';
    this.code = e.code;
    this.path = e.path;
    /** values the field accepts, when the core lists them */
    this.accepted = e.accepted;
    /** gguf_truncated: how many leading bytes of the file to send */
    this.neededBytes = e.needed_bytes;
    /** named values the message quotes (unsupported_model_type: model_type) */
    this.values = e.values;
  }
}

/** Bounds, the same as the core's (core/include/willitfit/base/json_util.hpp, gguf.hpp). */
export const LIMITS = Object.freeze({
  MAX_DEPTH: 64,
  MAX_REQUEST_BYTES: 32 * 1024 * 1024,
  MAX_NODES: 1_000_000,           // values in one request (bounds a DAG that repeats one object)
  MAX_GGUF_HEADER_BYTES: 64 * 1024 * 1024,
  MAX_BATCH: 20_000,              // requests in one estimateMany call
  BATCH_CHUNK: 64,                // requests per call into the module
});

/** @param {string} code @param {string} path @param {string} message */
const fail = (code, path, message) => { throw new WillitfitError({ code, path, message }); };

/** "a.b[2]"-style path of a key under a parent path. @param {string} base @param {string|number} key */
const joinPath = (base, key) => (typeof key === 'number' ? `${base}[${key}]` : base ? `${base}.${key}` : key);

/**
 * Check that `value` is JSON data within the bounds; throws WillitfitError with the path of the
 * first offending value. Iterative (explicit stack), ancestors tracked for cycles.
 * @param {any} value @param {string} [root]
 */
export function checkJson(value, root = '') {
  /** @type {[any, string, number][]} */
  const stack = [[value, root, 0]];
  /** @type {Set<object>} */
  const onPath = new Set();
  /** @type {any[]} */
  const exits = [];
  let nodes = 0;
  const EXIT = {};
  while (stack.length) {
    const [v, path, depth] = /** @type {[any, string, number]} */ (stack.pop());
    if (v === EXIT) { onPath.delete(exits.pop()); continue; }
    if (++nodes > LIMITS.MAX_NODES) fail('json_too_large', root, `the request holds more than ${LIMITS.MAX_NODES} values`);
    const t = typeof v;
    if (v === null || t === 'string' || t === 'boolean') continue;
    if (t === 'number') {
      if (!Number.isFinite(v)) fail('bad_value', path, `'${path}' must be a finite number`);
      continue;
    }
    if (t === 'bigint') fail('bad_type', path, `'${path}' is a BigInt; JSON has no such number`);
    if (t !== 'object') fail('bad_type', path, `'${path}' is a ${t}, which JSON cannot carry`);
    // The path is the document's (as the core reports it); the message says where.
    if (depth >= LIMITS.MAX_DEPTH) fail('json_too_deep', root, `the request nests deeper than ${LIMITS.MAX_DEPTH} levels (at '${path.slice(0, 200)}')`);
    if (onPath.has(v)) fail('bad_type', path, `'${path}' refers back to itself (a cycle)`);
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) fail('bad_type', path, `'${path}' is binary data; send base64 text`);
    if (typeof v.toJSON === 'function' && !(v instanceof Date)) fail('bad_type', path, `'${path}' has a toJSON method`);
    onPath.add(v);
    exits.push(v);
    stack.push([EXIT, '', 0]);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], joinPath(path, i), depth + 1]);
    } else {
      for (const k of Object.keys(v)) {
        const x = v[k];
        if (x === undefined || typeof x === 'function' || typeof x === 'symbol') {
          if (x !== undefined) fail('bad_type', joinPath(path, k), `'${joinPath(path, k)}' is a ${typeof x}, which JSON cannot carry`);
          continue;   // undefined: left out, as JSON.stringify does
        }
        stack.push([x, joinPath(path, k), depth + 1]);
      }
    }
  }
}

/** A request object as JSON text, checked. @param {any} request @param {string} fn */
function requestText(request, fn) {
  if (request === null || typeof request !== 'object' || Array.isArray(request))
    fail('bad_type', '', `${fn} takes a request object, not ${request === null ? 'null' : Array.isArray(request) ? 'an array' : typeof request}`);
  checkJson(request);
  const text = JSON.stringify(request);
  if (text.length > LIMITS.MAX_REQUEST_BYTES)
    fail('json_too_large', '', `the request is ${text.length} characters; the limit is ${LIMITS.MAX_REQUEST_BYTES}`);
  return text;
}

/** @type {Promise<any> | null} */
let modulePromise = null;
/**
 * GGUF headers registered with the module (registerGguf) by handle, oldest first, as many as the
 * core keeps (core/include/willitfit/gguf/handles.hpp kMaxGgufHandles), so that a module rebuilt
 * after a trap gets them again (a split file: the JSON array of its shards' base64).
 * @type {Map<string, Uint8Array | string>}
 */
const ggufHeaders = new Map();
/** Vision projector headers registered (registerMmproj), kept the same way. @type {Map<string, Uint8Array>} */
const mmprojHeaders = new Map();
const MAX_GGUF_HANDLES = 16;
/** The module instance the headers are registered in. @type {any} */
let ggufIn = null;
/** @type {string | undefined} */
let moduleUrlGiven;
/** How many times a trapped instance was replaced (for tests and diagnostics). */
let rebuilds = 0;
export const moduleRebuilds = () => rebuilds;

/** @param {string} [moduleUrl] URL of willitfit.js (defaults to the copy beside this file) */
export function loadCore(moduleUrl) {
  if (moduleUrl !== undefined && typeof moduleUrl !== 'string') fail('bad_type', 'moduleUrl', 'loadCore takes the module URL as a string');
  if (moduleUrl) moduleUrlGiven = moduleUrl;
  if (!modulePromise) {
    const url = moduleUrlGiven || new URL('./willitfit.js', import.meta.url).href;
    const p = import(url).then(async (m) => {
      const g = /** @type {any} */ (globalThis);
      if (typeof g.process === 'object' && g.process.versions && g.process.versions.node) {
        // Node: Emscripten 3.1.6's ES-module glue expects __dirname and would try to fetch the
        // .wasm by file path (Node 20 has fetch), so hand it the bytes instead.
        const fs = await import('node:fs');
        const path = await import('node:path');
        const { fileURLToPath } = await import('node:url');
        const file = fileURLToPath(url);
        g.__dirname ??= path.dirname(file);
        const wasm = file.replace(/\.js$/, '.wasm');
        return m.default(fs.existsSync(wasm) ? { wasmBinary: fs.readFileSync(wasm) } : {});
      }
      return m.default();
    });
    p.catch(() => { if (modulePromise === p) modulePromise = null; });   // a failed load is retried
    modulePromise = p;
  }
  return modulePromise;
}

/**
 * Call one module function, guarded: a trap (RuntimeError, RangeError, an abort) drops the
 * instance so the next call gets a fresh one, and is reported as internal_error.
 * @param {string} fn @param {any[]} args
 */
async function call(fn, ...args) {
  return callWith(fn, (core) => core[fn](...args));
}

/**
 * As call, with `use` doing the call and taking what it needs from the module synchronously
 * (a view of the module's memory is valid only until the next call into it).
 * @param {string} fn @param {(core: any) => any} use
 */
async function callWith(fn, use) {
  const core = await loadCore();
  try {
    if (ggufIn !== core) {
      // A module rebuilt after a trap starts empty: it gets the registered GGUF headers again.
      for (const [handle, bytes] of ggufHeaders)
        typeof bytes === 'string' ? core.ggufRegisterSplit(handle, bytes) : core.ggufRegister(handle, bytes);
      for (const [handle, bytes] of mmprojHeaders) core.mmprojRegister(handle, bytes);
      ggufIn = core;
    }
    return use(core);
  } catch (e) {
    if (modulePromise && (await modulePromise.catch(() => null)) === core) { modulePromise = null; rebuilds++; }
    const err = /** @type {any} */ (e);
    return fail('internal_error', '', `the module failed in ${fn} (${err && err.name || 'error'}: ${String(err && err.message || err).slice(0, 200)}); it has been restarted`);
  }
}

/** @param {string} text */
function unwrap(text) {
  const doc = JSON.parse(text);
  if (doc && doc.error) throw new WillitfitError(doc.error);
  return doc;
}

/** @param {object} request */
export async function estimate(request) {
  const text = requestText(request, 'estimate');
  return unwrap(await call('estimate', text));
}

/** @param {any} e @returns {{code: string, path: string, message: string}} */
const errorOf = (e) => ({ code: e.code || 'internal_error', path: e.path ?? '', message: String(e.message || e) });

/**
 * Many estimates. Each entry is the result, or {error} for a failed request (a request the
 * wrapper refuses gets its error in place too), in the order given
 * (core/include/willitfit/api/api.hpp api_estimate_many). At most LIMITS.MAX_BATCH requests; they go
 * to the module LIMITS.BATCH_CHUNK (or opts.chunk) at a time, and between chunks `onProgress`
 * hears (done, total) and `signal` (an AbortSignal) can stop the batch, which then rejects with
 * WillitfitError code "cancelled".
 * @param {object[]} requests
 * @param {{chunk?: number, onProgress?: (done: number, total: number) => void, signal?: AbortSignal}} [opts]
 * @returns {Promise<any[]>}
 */
export async function estimateMany(requests, opts = {}) {
  if (!Array.isArray(requests)) fail('bad_type', '', 'estimateMany takes an array of request objects');
  if (requests.length > LIMITS.MAX_BATCH)
    fail('too_many_requests', '', `estimateMany takes at most ${LIMITS.MAX_BATCH} requests, not ${requests.length}`);
  if (opts === null || typeof opts !== 'object') fail('bad_type', 'opts', 'the options are an object');
  const chunk = opts.chunk ?? LIMITS.BATCH_CHUNK;
  if (!Number.isInteger(chunk) || chunk < 1 || chunk > 1024) fail('bad_value', 'opts.chunk', 'chunk is a whole number 1..1024');
  if (opts.onProgress !== undefined && typeof opts.onProgress !== 'function') fail('bad_type', 'opts.onProgress', 'onProgress is a function');
  const signal = opts.signal;
  /** @type {any[]} */
  const out = new Array(requests.length);
  for (let start = 0; start < requests.length; start += chunk) {
    if (signal && signal.aborted) fail('cancelled', '', `estimateMany was cancelled after ${start} of ${requests.length}`);
    /** @type {string[]} */
    const texts = [];
    /** @type {number[]} */
    const where = [];
    for (let i = start; i < Math.min(start + chunk, requests.length); i++) {
      try {
        texts.push(requestText(requests[i], 'estimateMany'));
        where.push(i);
      } catch (e) {
        out[i] = { error: errorOf(e) };
      }
    }
    // One module call per run of requests whose text stays under the core's request bound
    // (requests with GGUF headers are megabytes each); a single big one goes alone.
    for (let a = 0; a < texts.length;) {
      let b = a, size = 2;
      while (b < texts.length && (b === a || size + texts[b].length + 1 <= LIMITS.MAX_REQUEST_BYTES / 2)) size += texts[b++].length + 1;
      const doc = JSON.parse(await call('estimateMany', `[${texts.slice(a, b).join(',')}]`));
      if (doc && !Array.isArray(doc) && doc.error) {
        for (let k = a; k < b; k++) out[where[k]] = { error: doc.error };
      } else {
        for (let k = a; k < b; k++) out[where[k]] = doc[k - a];
      }
      a = b;
    }
    const done = Math.min(start + chunk, requests.length);
    if (opts.onProgress) opts.onProgress(done, requests.length);
    if (done < requests.length) await new Promise((r) => setTimeout(r, 0));   // let a cancel arrive
  }
  return out;
}

/**
 * Tier lists for a model, quant and context: every GPU alone and with 32/64/128 GB of RAM,
 * every Mac and unified-memory PC (core/include/willitfit/questions/tiers.hpp).
 * @param {object} request estimate fields without hardware, count or ram_gib
 */
export async function tiers(request) {
  return unwrap(await call('tiers', requestText(request, 'tiers')));
}

/**
 * Every catalog model at its best quantization on one device, best first: fits, then offload
 * (only with ram_gib), then no_fit (core/include/willitfit/questions/runs_on.hpp).
 * @param {object} request estimate fields without model or quant: hardware, count, ram_gib, context …
 */
export async function runsOn(request) {
  return unwrap(await call('runsOn', requestText(request, 'runsOn')));
}

/**
 * A solver over the estimate (core/include/willitfit/questions/solve.hpp): an estimate request plus
 * `solve`: 'max_context' | 'best_quant' | 'make_it_fit' | 'cheapest' | 'picks' | 'smallest_device'.
 * @param {object} request
 */
export async function solve(request) {
  return unwrap(await call('solve', requestText(request, 'solve')));
}

/** Training memory per GPU (see core/include/willitfit/training/training.hpp). @param {object} request */
export async function train(request) {
  return unwrap(await call('train', requestText(request, 'train')));
}

/** Cost per million tokens, cloud offers, rent vs buy (core/include/willitfit/money/cost.hpp). @param {object} request */
export async function cost(request) {
  return unwrap(await call('cost', requestText(request, 'cost')));
}

const LISTS = ['models', 'hardware', 'quants', 'clouds', 'markets', 'engines'];

/**
 * Every default the core applies to a request (core/include/willitfit/estimate/defaults.hpp), per engine
 * and for cost, training and the solvers. With {model} the server engines' default format is that
 * model's native checkpoint.
 * @param {{model?: string|object}} [request]
 * @returns {Promise<any>} willitfit.d.ts DefaultsDocument
 */
export async function defaults(request = {}) {
  return unwrap(await call('defaults', requestText(request, 'defaults')));
}

/** @param {'models'|'hardware'|'quants'|'clouds'|'markets'} what */
export async function list(what) {
  if (typeof what !== 'string' || !LISTS.includes(what))
    fail(typeof what === 'string' ? 'bad_value' : 'bad_type', 'what', `list takes one of ${LISTS.join(', ')}`);
  return unwrap(await call('list', what))[what];
}

/**
 * Summary of a GGUF header (name, architecture, tensor types with bytes, hyperparameters).
 * @param {Uint8Array|ArrayBuffer|string} bytesOrBase64 the first bytes of a .gguf file, or their base64
 * @param {{tensors?: 'list'|'columns'|'none'|'table'}} [options] the per-tensor part: an array of
 *   objects (default), columnar JSON arrays in `tensor_columns`, none, or `tensor_table`: typed
 *   arrays that cross the wasm boundary as one block of bytes (the cheapest for tens of thousands
 *   of tensors; bytes only, not base64): {count, type_names, name (strings), type (Uint8Array,
 *   index into type_names), n_dims (Uint8Array), ne (Float64Array, 4 per tensor), bytes and
 *   offset (Float64Array)}
 */
export async function ggufSummary(bytesOrBase64, options) {
  let arg = bytesOrBase64;
  if (arg instanceof ArrayBuffer) arg = new Uint8Array(arg);
  if (typeof arg === 'string') {
    if (arg.length > LIMITS.MAX_GGUF_HEADER_BYTES / 3 * 4 + 4)
      fail('gguf_too_large', 'gguf', `the header text is ${arg.length} characters; the limit is ${LIMITS.MAX_GGUF_HEADER_BYTES} bytes`);
  } else if (arg instanceof Uint8Array) {
    if (arg.length > LIMITS.MAX_GGUF_HEADER_BYTES)
      fail('gguf_too_large', 'gguf', `the header is ${arg.length} bytes; the limit is ${LIMITS.MAX_GGUF_HEADER_BYTES}`);
  } else {
    fail('bad_type', 'gguf', 'ggufSummary takes the file\'s first bytes (Uint8Array or ArrayBuffer) or their base64 text');
  }
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
    fail('bad_type', 'options', 'ggufSummary options must be an object such as {tensors: "columns"}');
  if (options && /** @type {any} */ (options).tensors === 'table') {
    if (typeof arg === 'string') fail('bad_type', 'gguf', 'ggufSummary with {tensors: "table"} takes the bytes (Uint8Array or ArrayBuffer), not base64');
    return summaryWithTable(/** @type {Uint8Array} */ (arg));
  }
  return unwrap(await call('ggufSummary', arg, options ? requestText(options, 'options') : ''));
}

/**
 * The core's summary and its tensor columns (api.hpp api_gguf_summary_table, gguf.hpp
 * GgufTensorTable for the layout). The table is a view of the module's memory until the next
 * call into it, so it is copied here, before anything else can run.
 * @param {Uint8Array} bytes
 */
async function summaryWithTable(bytes) {
  /** @type {{json: string, table: Uint8Array}} */
  const r = await callWith('ggufSummaryTable', (core) => {
    const v = core.ggufSummaryTable(bytes);
    return { json: v.json, table: v.table.slice() };
  });
  const doc = unwrap(r.json);
  const { count: n, type_names: typeNames, names_bytes: namesBytes, columns: c } = doc.tensor_table;
  const buf = r.table.buffer;
  const names = new TextDecoder().decode(r.table.subarray(c.names, c.names + namesBytes));
  const nameEnd = new Uint32Array(buf, c.name_end, n);
  /** @type {string[]} */
  const name = new Array(n);
  for (let i = 0, at = 0; i < n; i++) { name[i] = names.slice(at, nameEnd[i]); at = nameEnd[i]; }
  doc.tensor_table = {
    count: n, type_names: typeNames, name,
    type: new Uint8Array(buf, c.type, n), n_dims: new Uint8Array(buf, c.n_dims, n),
    ne: new Float64Array(buf, c.ne, 4 * n), bytes: new Float64Array(buf, c.bytes, n), offset: new Float64Array(buf, c.offset, n),
  };
  return doc;
}

/** @param {Uint8Array|ArrayBuffer} bytes */
export function bytesToBase64(bytes) {
  const b = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
  if (!(b instanceof Uint8Array)) fail('bad_type', 'bytes', 'bytesToBase64 takes a Uint8Array or ArrayBuffer');
  if (b.length > LIMITS.MAX_GGUF_HEADER_BYTES) fail('gguf_too_large', 'bytes', `more than ${LIMITS.MAX_GGUF_HEADER_BYTES} bytes`);
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * Read just the header of a local .gguf (a File or Blob): start with 64 KiB and grow the read
 * to what the core says it needs (gguf_truncated's needed_bytes) or twice the last read, up
 * to LIMITS.MAX_GGUF_HEADER_BYTES (then gguf_too_large).
 * Resolves to the header bytes and their summary; an estimate request can then carry
 * {model: {gguf_header_base64: bytesToBase64(bytes)}}, or register them once (registerGguf) and
 * carry {model: {gguf_handle}}.
 * @param {Blob} blob
 */
export async function readGgufHeader(blob) {
  if (typeof Blob === 'undefined' || !(blob instanceof Blob)) fail('bad_type', 'file', 'readGgufHeader takes a File or Blob');
  let want = 1 << 16;
  for (;;) {
    const bytes = new Uint8Array(await blob.slice(0, Math.min(want, blob.size)).arrayBuffer());
    try {
      return { bytes, summary: await ggufSummary(bytes) };
    } catch (e) {
      if (!(e instanceof WillitfitError) || e.code !== 'gguf_truncated' || bytes.length >= blob.size) throw e;
      want = Math.max(typeof e.neededBytes === 'number' ? e.neededBytes : 0, 2 * bytes.length);
      if (want > LIMITS.MAX_GGUF_HEADER_BYTES)
        fail('gguf_too_large', 'gguf', `the header claims more than ${LIMITS.MAX_GGUF_HEADER_BYTES} bytes (the limit)`);
    }
  }
}

/**
 * A header's bytes as a Uint8Array, or a coded error: not bytes, or more than the header limit.
 * @param {unknown} bytes @param {string} fn the function asked (named in the message)
 * @returns {Uint8Array}
 */
function headerBytes(bytes, fn) {
  const b = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
  if (!(b instanceof Uint8Array)) return fail('bad_type', 'bytes', `${fn} takes the header bytes (Uint8Array or ArrayBuffer)`);
  if (b.length > LIMITS.MAX_GGUF_HEADER_BYTES) fail('gguf_too_large', 'bytes', `more than ${LIMITS.MAX_GGUF_HEADER_BYTES} bytes`);
  return b;
}

/**
 * Parse a GGUF header once and keep it in the module under a handle, the SHA-256 of the bytes
 * ("sha256:<hex>"); a request then names the model as {gguf_handle: handle} (optionally with
 * name, id) instead of carrying the bytes, and the core does not parse them again. The same
 * bytes give the same handle. Resolves to {schema_version, handle, name, architecture}.
 * @param {Uint8Array|ArrayBuffer} bytes the file's first bytes (readGgufHeader's `bytes`)
 */
export async function registerGguf(bytes) {
  const b = headerBytes(bytes, 'registerGguf');
  const handle = await sha256Handle(b);
  const doc = unwrap(await call('ggufRegister', handle, b));
  keepHeader(handle, b);
  return doc;
}

/**
 * A vision projector's GGUF header (a repo's mmproj file; core gguf/mmproj.hpp) parsed once and
 * kept under a handle, the SHA-256 of the bytes; a request's model then carries
 * {mmproj_handle: handle} beside its gguf_handle. Resolves to {schema_version, handle, name,
 * projector_type, family, modelled, tensors, tensor_bytes}.
 * @param {Uint8Array|ArrayBuffer} bytes the file's first bytes
 */
export async function registerMmproj(bytes) {
  const b = headerBytes(bytes, 'registerMmproj');
  const handle = await sha256Handle(b);
  const doc = unwrap(await call('mmprojRegister', handle, b));
  mmprojHeaders.delete(handle);
  mmprojHeaders.set(handle, b);
  while (mmprojHeaders.size > MAX_GGUF_HANDLES) mmprojHeaders.delete(/** @type {string} */ (mmprojHeaders.keys().next().value));
  return doc;
}

/** SHA-256 of bytes as "sha256:<hex>". @param {Uint8Array} b */
async function sha256Handle(b) {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (b)));
  return `sha256:${Array.from(digest, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

/** Keep a registered header's bytes for a rebuilt module, as many as the core keeps. @param {string} handle @param {Uint8Array|string} v */
function keepHeader(handle, v) {
  ggufHeaders.delete(handle);
  ggufHeaders.set(handle, v);
  while (ggufHeaders.size > MAX_GGUF_HANDLES) ggufHeaders.delete(/** @type {string} */ (ggufHeaders.keys().next().value));
}

/**
 * A split GGUF (gguf-split) registered under one handle: the shards' first bytes as base64, in
 * order, the first holding the metadata. Resolves to {schema_version, handle, name,
 * architecture, shards}; requests then name {gguf_handle: handle}.
 * @param {string[]} shardsBase64
 */
export async function registerGgufSplit(shardsBase64) {
  if (!Array.isArray(shardsBase64) || !shardsBase64.length || shardsBase64.some((x) => typeof x !== 'string'))
    fail('bad_type', 'shards', 'registerGgufSplit takes the shards as a non-empty array of base64 texts');
  const text = JSON.stringify(shardsBase64);
  if (text.length > LIMITS.MAX_REQUEST_BYTES) fail('json_too_large', 'shards', `the shards are ${text.length} characters; the limit is ${LIMITS.MAX_REQUEST_BYTES}`);
  const handle = await sha256Handle(new TextEncoder().encode(text));
  const doc = unwrap(await call('ggufRegisterSplit', handle, text));
  keepHeader(handle, text);
  return doc;
}

/** Lookups running in this module's thread, by the caller's id, so hubCancel can stop one. @type {Map<string, AbortController>} */
const hubRuns = new Map();

/**
 * Read a Hugging Face repo (web/hub.js lookup, in the thread that owns the module: the page's
 * worker) and register every GGUF header read under a handle, so the headers (megabytes with
 * the tokenizer) stay beside the module and requests carry only handles. Resolves to {ref, repo,
 * requests, fromCache, readAt, handles}: `handles` maps a header path (a quant row's
 * model.header) to its handle, the split files' by their first shard's path. What was read is
 * kept in IndexedDB by repo and revision where the thread has IndexedDB.
 * @param {string} text a repo id, Hub link or owner/repo:QUANT
 * A repo's vision projector (the core reads the chosen mmproj file's header with the model's)
 * is registered too (registerMmproj), under its path in `handles`.
 * @param {{id?: string, base?: string, token?: string, quant?: string, file?: string, mmprojFile?: string, offline?: boolean, timeoutMs?: number}} [opts]
 */
export async function hubLookup(text, opts = {}) {
  if (typeof text !== 'string') fail('bad_type', 'ref', 'hubLookup takes a string: a repo id or a Hugging Face link');
  const ctl = new AbortController();
  const id = typeof opts.id === 'string' ? opts.id : '';
  if (id) { hubRuns.get(id)?.abort(); hubRuns.set(id, ctl); }
  try {
    const found = await lookup(text, {
      core: { hubRef, hubRepo }, base: opts.base, token: opts.token, quant: opts.quant, file: opts.file, mmprojFile: opts.mmprojFile,
      offline: opts.offline, timeoutMs: opts.timeoutMs || 20000, signal: ctl.signal, cache: idbCache() || undefined,
    });
    /** @type {Record<string, string>} */
    const handles = {};
    for (const row of found.repo.quants) {
      const m = row && row.model;
      if (!m || !m.header || handles[m.header] || typeof found.doc.gguf[m.header] !== 'string') continue;
      if (Array.isArray(m.shards) && m.shards.length) {
        const all = [found.doc.gguf[m.header], ...m.shards.map((/** @type {string} */ p) => found.doc.gguf[p])];
        if (all.some((x) => typeof x !== 'string')) continue;
        handles[m.header] = (await registerGgufSplit(all)).handle;
      } else {
        handles[m.header] = (await registerGguf(base64ToBytes(found.doc.gguf[m.header]))).handle;
      }
    }
    for (const row of found.repo.quants) {
      const p = row && row.model && row.model.mmproj;
      if (!p || handles[p] || typeof found.doc.gguf[p] !== 'string') continue;
      handles[p] = (await registerMmproj(base64ToBytes(found.doc.gguf[p]))).handle;
    }
    return { ref: found.ref, repo: found.repo, requests: found.requests, fromCache: found.fromCache, readAt: found.readAt, handles };
  } finally {
    if (id && hubRuns.get(id) === ctl) hubRuns.delete(id);
  }
}

/** Stop the lookup started with this id (a newer input replaces it). @param {string} id */
export async function hubCancel(id) {
  hubRuns.get(String(id))?.abort();
  hubRuns.delete(String(id));
}

/** @param {string} b64 */
function base64ToBytes(b64) {
  const g = /** @type {any} */ (globalThis);
  if (g.Buffer) return new Uint8Array(g.Buffer.from(b64, 'base64'));
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/**
 * Import a local .gguf: read its header (readGgufHeader) and register it (registerGguf).
 * Resolves to {handle, name, architecture, summary}; the page's worker runs this, so the bytes
 * stay beside the module and only the handle travels in requests.
 * @param {Blob} blob
 */
export async function importGguf(blob) {
  const { bytes, summary } = await readGgufHeader(blob);
  const reg = await registerGguf(bytes);
  return { handle: reg.handle, name: reg.name, architecture: reg.architecture, summary };
}

/**
 * Pasted llama-bench output (markdown table, -o json or -o jsonl) matched to model, quant and
 * device, predicted against measured (core/include/willitfit/calibration/bench_paste.hpp).
 * @param {{text: string, hardware: string, count?: number, model?: string, quant?: string}} request
 */
export async function benchPaste(request) {
  return unwrap(await call('benchPaste', requestText(request, 'benchPaste')));
}

/** @type {string | undefined} */
let accuracyText;
/**
 * The speed accuracy report: predictions against the shipped llama-bench rows
 * (calibration/llama_bench.hpp). It depends on nothing but the catalog compiled into the module
 * and takes seconds (it refits the speed model without the held-out devices), so the module's
 * answer is kept and each call parses a fresh copy of it.
 */
export async function accuracyReport() {
  if (accuracyText === undefined) {
    const text = await call('accuracyReport');
    const doc = unwrap(text);
    accuracyText = text;
    return doc;
  }
  return unwrap(accuracyText);
}

/**
 * A Hugging Face model reference parsed by the core (hub_repo.hpp hub_parse_ref): a repo id,
 * owner/repo:QUANT, hf:…, or any huggingface.co link. Resolves to {repo, quant?, file?, revision?}.
 * @param {string} text
 */
export async function hubRef(text) {
  if (typeof text !== 'string') fail('bad_type', 'ref', 'hubRef takes a string: a repo id or a Hugging Face link');
  if (text.length > 4096) fail('too_large', 'ref', `the reference is ${text.length} characters; the limit is 4096`);
  return unwrap(await call('hubRef', text));
}

/**
 * A Hub repository from what was read of it (hub_repo.hpp hub_repo): the quants with published
 * sizes, what to read next (`read`), and for each quant the estimate's model. web/hub.js loops.
 * @param {object} doc {repo, info, quant?, file?, config?, gguf?, safetensors?}
 */
export async function hubRepo(doc) {
  return unwrap(await call('hubRepo', requestText(doc, 'hubRepo')));
}
