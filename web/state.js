// @ts-check
// The view state and the URL that carries it. Every view is addressable:
//   ?model=…&quant=…&hw=…&ctx=…&kv=…&count=…&ram=…&par=…&engine=…&market=…&lang=…   the model × device view
//   ?view=model&model=…   ?view=device&hw=…   ?view=accuracy
// so a shared link, a reload, back and forward all restore the exact view. Values from the URL
// are only ever compared, sent to the core as JSON, or shown as text.

export const LANGS = ['en', 'es', 'fr', 'zh'];
export const VIEWS = ['main', 'model', 'device', 'accuracy'];
export const ENGINES = ['llama.cpp', 'vllm', 'sglang'];
/** Markets for prices, electricity and store links (data/markets.json ids). */
export const MARKETS = ['US', 'EU', 'UK', 'CN'];

export const state = {
  view: 'main',
  lang: 'en',
  model: 'Qwen/Qwen3-30B-A3B',
  quant: 'Q4_K_M',
  hw: 'nvidia-rtx-4090',
  ctx: 8192,
  kv: 'f16',
  count: 1,
  ram: 0,
  par: 1,
  engine: 'llama.cpp',
  market: 'US',
  /** Speculative decoding on the model's own MTP layers (request field mtp). */
  mtp: false,
  /** True on a first visit, before any setup is in the URL. */
  home: false,
};

/** What a URL without a key means. The welcome's model and device are the page's own choice; the
 * rest are replaced at start by the core's defaults (setDefaults). */
const DEFAULTS = { ...state };

/**
 * Take the core's defaults (api.js defaults(): core/include/willitfit/estimate/defaults.hpp) as what a
 * missing URL key means, so the page never holds its own copy of them.
 * @param {any} d
 */
export function setDefaults(d) {
  const llama = d && d.engines && d.engines['llama.cpp'];
  if (!d || !d.estimate || !llama) return;
  Object.assign(DEFAULTS, {
    quant: llama.quant, kv: llama.kv_type, par: llama.parallel,
    ctx: d.estimate.context, count: d.estimate.count, ram: d.estimate.ram_gib, engine: d.estimate.engine,
    market: d.cost && d.cost.market ? d.cost.market : DEFAULTS.market,
  });
}

/** The default of one state key. @template {keyof typeof state} K @param {K} k @returns {(typeof state)[K]} */
export function defaultOf(k) {
  return DEFAULTS[k];
}

export function guessLang() {
  const l = (navigator.language || 'en').slice(0, 2);
  return LANGS.includes(l) ? l : 'en';
}

/** Read the state from the current URL (missing keys take their defaults). */
export function readUrl() {
  const p = new URLSearchParams(location.search);
  // No id is longer than a few KB (the core refuses ids past 4096 bytes): a 200,000-character
  // model= is cut here, so search and rendering never work on it; the core still refuses it.
  const s = (/** @type {string} */ k) => (p.get(k) ?? '').slice(0, 4097);
  Object.assign(state, DEFAULTS);
  // A first visit (no setup in the link) opens on the welcome and an example that runs.
  state.home = !['model', 'hw', 'view'].some((k) => p.has(k));
  state.view = VIEWS.includes(s('view')) ? s('view') : 'main';
  state.lang = LANGS.includes(s('lang')) ? s('lang') : guessLang();
  if (s('model')) state.model = s('model');
  if (s('quant')) state.quant = s('quant');
  if (s('hw')) state.hw = s('hw');
  if (s('kv')) state.kv = s('kv');
  if (ENGINES.includes(s('engine'))) state.engine = s('engine');
  if (MARKETS.includes(s('market'))) state.market = s('market');
  state.mtp = s('mtp') === '1';
  const int = (/** @type {string} */ k, /** @type {number} */ lo, /** @type {number} */ hi) => {
    const n = Number(s(k));
    return s(k) !== '' && Number.isInteger(n) && n >= lo && n <= hi ? n : undefined;
  };
  // Numbers from a URL go to the core as given (whole numbers, finite): out-of-range values come
  // back as its structured error instead of being silently replaced by a default.
  state.ctx = int('ctx', -Infinity, Infinity) ?? state.ctx;
  state.count = int('count', -Infinity, Infinity) ?? state.count;
  state.par = int('par', -Infinity, Infinity) ?? state.par;
  const ram = Number(s('ram'));
  if (s('ram') !== '' && Number.isFinite(ram)) state.ram = ram;
}

/** The URL for a state (only the keys that view needs). @param {Partial<typeof state>} [over] */
export function urlFor(over = {}) {
  const v = { ...state, ...over };
  /** @type {Record<string, string>} */
  let q;
  if (v.view === 'model') q = { view: 'model', model: v.model };
  else if (v.view === 'device') q = { view: 'device', hw: v.hw, ram: String(v.ram) };
  else if (v.view === 'accuracy') q = { view: 'accuracy' };
  else {
    q = { model: v.model, quant: v.quant, hw: v.hw, ctx: String(v.ctx), kv: v.kv, count: String(v.count), ram: String(v.ram) };
    if (v.par !== DEFAULTS.par) q.par = String(v.par);
    if (v.engine !== DEFAULTS.engine) q.engine = v.engine;
    if (v.mtp) q.mtp = '1';
  }
  if (v.market !== DEFAULTS.market && v.view !== 'accuracy') q.market = v.market;
  q.lang = v.lang;
  return `${location.pathname}?${new URLSearchParams(q)}`;
}

/** Put the state in the address bar; push a history entry for a deliberate change. */
export function writeUrl(push = false) {
  const url = urlFor();
  if (url === location.pathname + location.search) return;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}
