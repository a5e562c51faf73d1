// @ts-check
// The Worker that owns the wasm module: the page posts {id, fn, args} and gets {id, ok, value}
// or {id, ok: false, error}. It loads api.js (which loads the module once) and calls whatever
// that module exports, so functions other helpers add to api.js (accuracyReport …) work here
// without a change. `many` runs a batch of estimates in one round trip (estimateMany calls into
// the module, a chunk at a time); results are memoised by
// request text because the listing views ask the same questions again and again.
import * as api from './api.js';

/** @type {Map<string, any>} */
const memo = new Map();
const MEMO_MAX = 20000;
/** Requests per estimateMany call: big enough to save crossings, small enough to stay responsive. */
const CHUNK = 16;

/** @param {object} req */
async function estimateOnce(req) {
  const key = JSON.stringify(req);
  const hit = memo.get(key);
  if (hit) return hit;
  let out;
  try {
    out = { ok: true, value: await api.estimate(req) };
  } catch (e) {
    out = { ok: false, error: describe(e) };
  }
  remember(key, out);
  return out;
}

/** @param {string} key @param {any} value */
function remember(key, value) {
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(key, value);
}

/** A solver result, memoised like estimates (the picks sweep the whole catalog). @param {object} req */
async function solveOnce(req) {
  const key = `solve:${JSON.stringify(req)}`;
  const hit = memo.get(key);
  if (hit) return hit;
  let out;
  try {
    out = { ok: true, value: await api.solve(req) };
  } catch (e) {
    out = { ok: false, error: describe(e) };
  }
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(key, out);
  return out;
}

/** @param {any} e */
function describe(e) {
  return { name: e && e.name, code: e && e.code, path: e && e.path, message: String(e && e.message || e),
    accepted: e && e.accepted, needed_bytes: e && e.neededBytes, values: e && e.values };
}

// Batches belong to an epoch; `cancel` starts a new one, so a view that was left stops asking.
let epoch = 0;

/** @type {Record<string, (...a: any[]) => Promise<any>>} */
const local = {
  async cancel() {
    epoch++;
  },
  /** Which functions api.js offers (the page shows optional sections only when present). */
  async functions() {
    return Object.keys(api).filter((k) => typeof (/** @type {any} */ (api))[k] === 'function');
  },
  /**
   * Requests not in the memo go to the module in chunks, one estimateMany call each; between
   * chunks the worker yields so a single estimate for what the person just typed can go first,
   * and a cancelled batch stops.
   * @param {object[]} reqs
   */
  async many(reqs) {
    const mine = epoch;
    const keys = reqs.map((r) => JSON.stringify(r));
    /** @type {any[]} */
    const out = keys.map((k) => memo.get(k));
    const todo = out.map((v, i) => (v ? -1 : i)).filter((i) => i >= 0);
    for (let s = 0; s < todo.length; s += CHUNK) {
      const part = todo.slice(s, s + CHUNK);
      if (epoch !== mine) {
        for (const i of part) out[i] = { ok: false, error: { code: 'cancelled', message: 'cancelled' } };
        continue;
      }
      /** @type {any[]} */
      let rs;
      try {
        rs = await api.estimateMany(part.map((i) => reqs[i]));
      } catch (e) {
        rs = part.map(() => ({ error: describe(e) }));
      }
      part.forEach((i, k) => {
        const r = rs[k];
        const v = r && r.error ? { ok: false, error: { name: 'WillitfitError', ...r.error } } : { ok: true, value: r };
        remember(keys[i], v);
        out[i] = v;
      });
      if (s + CHUNK < todo.length) await new Promise((r) => setTimeout(r, 0));
    }
    return out;
  },
  /** A solver (memoised like estimates: the picks sweep the catalog). @param {object} req */
  async solve(req) {
    const r = await solveOnce(req);
    if (!r.ok) throw r.error;
    return r.value;
  },
  /** @param {object} req */
  async estimate(req) {
    const r = await estimateOnce(req);
    if (!r.ok) throw r.error;
    return r.value;
  },
};

self.addEventListener('message', async (ev) => {
  const { id, fn, args } = ev.data || {};
  try {
    const f = local[fn] || (/** @type {any} */ (api))[fn];
    if (typeof f !== 'function') throw { name: 'Error', code: 'no_such_function', message: `api has no ${fn}` };
    const value = await f(...(args || []));
    self.postMessage({ id, ok: true, value });
  } catch (e) {
    self.postMessage({ id, ok: false, error: e && e.message !== undefined && !(e instanceof Error) ? e : describe(e) });
  }
});
