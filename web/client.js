// @ts-check
// The page's door to the core: the same interface as api.js (estimate, list, WillitfitError),
// served by one Worker created on first use behind a memoised promise, so many estimates never
// block typing. If a Worker cannot start (old browser, file://), calls fall back to api.js on
// the main thread. Extra: `many` (a batch in one message, one estimateMany call per chunk in the
// worker), `tiers`, and `call`/`has` for API functions
// that may or may not exist yet (accuracyReport …).
import * as direct from './api.js';

export const WillitfitError = direct.WillitfitError;

/** Thrown by `many` when its batch was cancelled because the view changed. */
export class CancelledError extends Error {
  constructor() { super('cancelled'); this.name = 'CancelledError'; }
}

/** @typedef {{ call: (fn: string, args: any[]) => Promise<any>, where: 'worker' | 'main' }} Port */
/** @type {Promise<Port> | null} */
let portPromise = null;

/**
 * The page never sends a field the core does not read: a result that carries the core's
 * `warnings` (unknown_field, with its path) is a defect of the page, said on the console, where
 * every page test fails on it. @param {any} v a result, or a batch's [{ok, value}]
 */
function reportWarnings(v) {
  const docs = Array.isArray(v) ? v.map((x) => (x && x.ok ? x.value : x)) : [v];
  for (const d of docs) {
    if (d && Array.isArray(d.warnings) && d.warnings.length) console.error(`willitfit: the core did not read ${d.warnings.map((/** @type {any} */ w) => `${w.code} ${w.path}`).join(', ')}`);
  }
  return v;
}

/** @returns {Promise<Port>} */
function port() {
  if (!portPromise) {
    portPromise = startWorker().catch(() => mainThreadPort()).then((p) => ({
      where: p.where, call: (/** @type {string} */ fn, /** @type {any[]} */ args) => p.call(fn, args).then(reportWarnings),
    }));
  }
  return portPromise;
}

/** @returns {Promise<Port>} */
function startWorker() {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'willitfit' });
    let next = 1;
    /** @type {Map<number, {resolve: (v: any) => void, reject: (e: any) => void}>} */
    const waiting = new Map();
    w.addEventListener('message', (ev) => {
      const { id, ok, value, error } = ev.data;
      const p = waiting.get(id);
      if (!p) return;
      waiting.delete(id);
      if (ok) p.resolve(value);
      else p.reject(error && error.code ? new WillitfitError(error) : new Error(error && error.message));
    });
    w.addEventListener('error', (e) => { e.preventDefault(); reject(new Error('worker failed')); });
    /** @type {Port} */
    const P = {
      where: 'worker',
      call(fn, args) {
        return new Promise((res, rej) => {
          const id = next++;
          waiting.set(id, { resolve: res, reject: rej });
          w.postMessage({ id, fn, args });
        });
      },
    };
    // The first answer proves the module loaded inside the worker.
    P.call('functions', []).then(() => resolve(P), reject);
  });
}

/** @returns {Port} */
function mainThreadPort() {
  const api = /** @type {any} */ (direct);
  return {
    where: 'main',
    async call(fn, args) {
      if (fn === 'cancel') return undefined;
      if (fn === 'functions') return Object.keys(api).filter((k) => typeof api[k] === 'function');
      if (fn === 'many') {
        // One call into the module for the whole batch (api_estimate_many); errors per entry.
        const rs = await api.estimateMany(args[0]);
        return rs.map((/** @type {any} */ r) => (r && r.error ? { ok: false, error: { name: 'WillitfitError', ...r.error } } : { ok: true, value: r }));
      }
      if (typeof api[fn] !== 'function') throw new Error(`api has no ${fn}`);
      return api[fn](...args);
    },
  };
}

/** @param {object} request */
export async function estimate(request) {
  return (await port()).call('estimate', [request]);
}

/**
 * Tier lists for a model (every GPU alone / with 32, 64, 128 GB of RAM, every Mac and unified
 * PC), computed and sorted by the core in one call.
 * @param {object} request estimate fields without hardware, count or ram_gib
 */
export async function tiers(request) {
  return (await port()).call('tiers', [request]);
}

/** Every catalog model at its best quantization on one device, best first (see api.js). @param {object} request */
export async function runsOn(request) {
  return (await port()).call('runsOn', [request]);
}

/** A solver over the estimate (make_it_fit, picks …; see api.js). @param {object} request */
export async function solve(request) {
  return (await port()).call('solve', [request]);
}

/** @param {string} what */
export async function list(what) {
  return (await port()).call('list', [what]);
}

/**
 * Many estimates in one round trip. Each entry is the result, or {error} for a failed request,
 * so one unknown combination never hides the others. Listings read memory, verdict and speed
 * only, so the core is asked for summaries (no commands, loads, terms or curve: measured natively,
 * a quarter fewer instructions and 35-40% fewer bytes) unless a request says `detail` itself.
 * @param {object[]} requests
 * @returns {Promise<any[]>}
 */
export async function many(requests) {
  const asks = requests.map((q) => ('detail' in q ? q : { ...q, detail: 'summary' }));
  const out = await (await port()).call('many', [asks]);
  // A cancelled batch belongs to a view that is gone: stop its caller instead of feeding it.
  if (out.some((/** @type {any} */ r) => !r.ok && r.error && r.error.code === 'cancelled')) throw new CancelledError();
  return out.map((/** @type {any} */ r) => (r.ok ? r.value : { error: r.error }));
}

/** @type {Promise<string[]> | null} */
let fnsPromise = null;
/** Does the core offer this function? (optional features show only when it does) @param {string} fn */
export async function has(fn) {
  if (!fnsPromise) fnsPromise = port().then((p) => p.call('functions', [])).catch(() => []);
  return (await fnsPromise).includes(fn);
}

/** Call an API function by name. @param {string} fn @param {...any} args */
export async function call(fn, ...args) {
  return (await port()).call(fn, args);
}

/** Where estimates run: 'worker', or 'main' when no Worker could start. */
export async function where() {
  return (await port()).where;
}

/** Abandon batches already queued (the view they were for has changed). */
export function cancel() {
  if (portPromise) portPromise.then((p) => p.call('cancel', [])).catch(() => {});
}
