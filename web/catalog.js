// @ts-check
// The catalog as the page sees it: the core's listings (loaded once) plus the person's saved
// custom models and devices, and the request document for a state. No numbers are derived here.
import { call, list } from './client.js';
import { params as paramsCount } from './format.js';
import { defaultOf, setDefaults, state } from './state.js';
import * as store from './store.js';

/** @type {any[]} */ export let models = [];
/** @type {any[]} */ export let hardware = [];
/** @type {any[]} */ export let quants = [];
/** The engines and the backends they run on (data/engines.json rows, with the engine's own spelling). @type {any[]} */ export let engines = [];
/** The markets of data/markets.json (id, currency, electricity price, stores). @type {any[]} */ export let markets = [];

/** The core's defaults (api.js defaults()), loaded with the listings. @type {any} */
export let defaults = null;

export async function load() {
  [models, hardware, quants, markets, engines, defaults] = await Promise.all([list('models'), list('hardware'), list('quants'), list('markets'), list('engines'), call('defaults', {})]);
  setDefaults(defaults, markets);
}

/** The formats an engine loads (the core's defaults.engines[engine].formats), or null for an engine it does not list. @param {string} engine */
export function engineFormats(engine) {
  const e = defaults.engines[engine];
  return e && Array.isArray(e.formats) ? e.formats : null;
}

/** GGUF formats in quality order (best first), as the core ranks them. */
export function ggufQuants() {
  return quants.filter((q) => q.gguf).sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99));
}

/** Checkpoint formats a serving engine (vLLM, SGLang) loads: the core's safetensors containers. */
export function serverQuants() {
  const f = engineFormats(state.engine);
  return f ? quants.filter((q) => f.some((x) => (typeof x === 'string' ? x : x.id) === q.id)) : quants.filter((q) => q.container === 'safetensors');
}

/** @param {string} id */
export function modelInfo(id) {
  const c = store.models()[id];
  if (c) return { id, name: c.name, org: '', custom: true };
  return models.find((m) => m.id === id) || null;
}

/** @param {string} id */
export function deviceInfo(id) {
  const c = store.devices()[id];
  if (c) return { id, vendor: '', custom: true, ...c };
  return hardware.find((d) => d.id === id) || null;
}

/** All models for search: catalog + saved custom ones (each with the count an estimate computes). */
export function searchItems() {
  const custom = Object.entries(store.models()).map(([id, m]) => ({ id, name: m.name, org: '', hint: 'config.json' }));
  return [...custom, ...models.map((m) => ({ id: m.id, name: m.name, org: m.org, hint: paramsCount(m.params_total, state.lang) }))];
}

/**
 * The request document for the current state with some fields replaced.
 * @param {Record<string, any>} [over]
 */
export function request(over = {}) {
  const v = { ...state, ...over };
  /** @type {Record<string, any>} */
  const r = {
    model: store.modelRef(v.model), quant: v.quant, hardware: store.deviceRef(v.hw), context: v.ctx,
    kv_type: v.kv, count: v.count, ram_gib: v.ram,
  };
  // A format the engine does not load (a GGUF type under vLLM) is sent as chosen: the core
  // answers with the engine's own and a quant_replaced note.
  // No format chosen (a link to a server engine without one): the core picks the engine's default.
  if (!r.quant) delete r.quant;
  // vLLM and SGLang take their own cache dtype (kv_cache_dtype: auto, fp8); llama.cpp's kv_type
  // means nothing to them, and one of theirs is no llama.cpp type.
  const server = v.engine === 'vllm' || v.engine === 'sglang';
  if (server) {
    delete r.kv_type;
    if (kvChoices(v.engine).includes(v.kv) && v.kv !== defaults.engines[v.engine]?.kv_cache_dtype) r.kv_cache_dtype = v.kv;
  } else if (v.engine === 'mlx') {
    // mlx-lm's cache is --kv-bits, not a llama.cpp type: the core's type → kv_bits table.
    delete r.kv_type;
    const bits = defaults?.engines?.mlx?.kv_bits_by_type?.[v.kv];
    if (typeof bits === 'number' && bits > 0) r.kv_bits = bits;
  } else if (!kvChoices(v.engine).includes(v.kv) && ['vllm', 'sglang', 'mlx'].some((e) => kvChoices(e).includes(v.kv))) {
    // Another engine's cache type (llama.cpp beside MLX's q8_g64): this engine's default.
    delete r.kv_type;
  }
  if (v.par !== defaultOf('par')) r.parallel = v.par;
  if (v.engine !== defaultOf('engine')) r.engine = v.engine;
  if (v.mtp) r.mtp = true;
  if (v.draft) r.draft_model = v.draft;
  if (v.images && v.images !== defaultOf('images')) r.images = v.images;
  if (v.audio && v.audio !== defaultOf('audio')) r.audio_seconds = v.audio;
  return r;
}

/**
 * The cache types a page offers for an engine (the core's defaults: a server's kv_cache_dtypes,
 * its default first; llama.cpp's kv_types for the others).
 * @param {string} engine @returns {string[]}
 */
export function kvChoices(engine) {
  const e = defaults?.engines?.[engine];
  const list = e?.kv_cache_dtypes ?? e?.kv_types ?? defaults?.engines?.['llama.cpp']?.kv_types;
  return Array.isArray(list) ? list.map(String) : [];
}

/**
 * Devices a person would run a model on (not bare CPUs) in the core's order (the hardware list's
 * `order`: smallest memory first, then the cheaper, unknown prices last).
 */
export function accelerators() {
  return hardware.filter((d) => typeof d.order === 'number').sort((a, b) => a.order - b.order);
}
