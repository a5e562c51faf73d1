// @ts-check
// The only place the page talks to the wasm core. One module instance, created on first use
// behind a memoised promise; every call is JSON text in, JSON out. Errors come back from the
// core as {"error": {code, path, message}} and are thrown here as WillitfitError.

export class WillitfitError extends Error {
  /** @param {import('./willitfit').ErrorBody} e */
  constructor(e) {
    super(e.message);
    this.name = 'WillitfitError';
    this.code = e.code;
    this.path = e.path;
    /** values the field accepts, when the core lists them */
    this.accepted = e.accepted;
    /** gguf_truncated: how many leading bytes of the file to send */
    this.neededBytes = e.needed_bytes;
  }
}

/** @type {Promise<any> | null} */
let modulePromise = null;

/** @param {string} [moduleUrl] URL of willitfit.js (defaults to the copy beside this file) */
export function loadCore(moduleUrl) {
  if (!modulePromise) {
    const url = moduleUrl || new URL('./willitfit.js', import.meta.url).href;
    modulePromise = import(url).then(async (m) => {
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
  }
  return modulePromise;
}

/** @param {string} text */
function unwrap(text) {
  const doc = JSON.parse(text);
  if (doc && doc.error) throw new WillitfitError(doc.error);
  return doc;
}

/** @param {object} request */
export async function estimate(request) {
  const core = await loadCore();
  return unwrap(core.estimate(JSON.stringify(request)));
}

/**
 * Many estimates in one call into the module. Each entry is the result, or {error} for a failed
 * request, in the order given (core/include/willitfit/api.hpp api_estimate_many).
 * @param {object[]} requests
 * @returns {Promise<any[]>}
 */
export async function estimateMany(requests) {
  const core = await loadCore();
  const doc = JSON.parse(core.estimateMany(JSON.stringify(requests)));
  if (doc && !Array.isArray(doc) && doc.error) throw new WillitfitError(doc.error);
  return doc;
}

/**
 * Tier lists for a model, quant and context: every GPU alone and with 32/64/128 GB of RAM,
 * every Mac and unified-memory PC (core/include/willitfit/tiers.hpp).
 * @param {object} request estimate fields without hardware, count or ram_gib
 */
export async function tiers(request) {
  const core = await loadCore();
  return unwrap(core.tiers(JSON.stringify(request)));
}

/**
 * Every catalog model at its best quantization on one device, best first: fits, then offload
 * (only with ram_gib), then no_fit (core/include/willitfit/runs_on.hpp).
 * @param {object} request estimate fields without model or quant: hardware, count, ram_gib, context …
 */
export async function runsOn(request) {
  const core = await loadCore();
  return unwrap(core.runsOn(JSON.stringify(request)));
}

/**
 * A solver over the estimate (core/include/willitfit/solve.hpp): an estimate request plus
 * `solve`: 'max_context' | 'best_quant' | 'make_it_fit' | 'cheapest' | 'picks'.
 * @param {object} request
 */
export async function solve(request) {
  const core = await loadCore();
  return unwrap(core.solve(JSON.stringify(request)));
}

/** Training memory per GPU (see core/include/willitfit/training.hpp). @param {object} request */
export async function train(request) {
  const core = await loadCore();
  return unwrap(core.train(JSON.stringify(request)));
}

/** Cost per million tokens, cloud offers, rent vs buy (core/include/willitfit/cost.hpp). @param {object} request */
export async function cost(request) {
  const core = await loadCore();
  return unwrap(core.cost(JSON.stringify(request)));
}

/**
 * Every default the core applies to a request (core/include/willitfit/defaults.hpp), per engine
 * and for cost, training and the solvers. With {model} the server engines' default format is that
 * model's native checkpoint.
 * @param {{model?: string|object}} [request]
 * @returns {Promise<import('./willitfit').DefaultsDocument>}
 */
export async function defaults(request = {}) {
  const core = await loadCore();
  return unwrap(core.defaults(JSON.stringify(request)));
}

/** @param {'models'|'hardware'|'quants'|'clouds'|'markets'} what */
export async function list(what) {
  const core = await loadCore();
  return unwrap(core.list(what))[what];
}

/**
 * Summary of a GGUF header (name, architecture, tensor types with bytes, hyperparameters).
 * @param {Uint8Array|string} bytesOrBase64 the first bytes of a .gguf file, or their base64
 */
export async function ggufSummary(bytesOrBase64) {
  const core = await loadCore();
  return unwrap(core.ggufSummary(bytesOrBase64));
}

/** @param {Uint8Array} bytes */
export function bytesToBase64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * Read just the header of a local .gguf (a File or Blob): start with 64 KiB and grow the read
 * to what the core says it needs (gguf_truncated's needed_bytes) or twice the last read.
 * Resolves to the header bytes and their summary; an estimate request can then carry
 * {model: {gguf_header_base64: bytesToBase64(bytes)}}.
 * @param {Blob} blob
 */
export async function readGgufHeader(blob) {
  let want = 1 << 16;
  for (;;) {
    const bytes = new Uint8Array(await blob.slice(0, Math.min(want, blob.size)).arrayBuffer());
    try {
      return { bytes, summary: await ggufSummary(bytes) };
    } catch (e) {
      if (!(e instanceof WillitfitError) || e.code !== 'gguf_truncated' || bytes.length >= blob.size) throw e;
      want = Math.max(typeof e.neededBytes === 'number' ? e.neededBytes : 0, 2 * bytes.length);
      if (want > 2 ** 30) throw e;
    }
  }
}

/** The speed accuracy report: predictions against the shipped llama-bench rows (bench.hpp). */
export async function accuracyReport() {
  const core = await loadCore();
  return unwrap(core.accuracyReport());
}
