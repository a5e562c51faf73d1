// @ts-check
// The view state and the URL that carries it. Every view is addressable:
//   ?model=…&quant=…&hw=…&ctx=…&kv=…&count=…&ram=…&par=…&engine=…&market=…&lang=…   the model × device view
//   ?view=model&model=…   ?view=device&hw=…   ?view=accuracy
// so a shared link, a reload, back and forward all restore the exact view. Values from the URL
// are only ever compared, sent to the core as JSON, or shown as text.

export const LANGS = ['en', 'es', 'fr', 'zh'];
export const VIEWS = ['main', 'model', 'device', 'accuracy'];
/** The engines the core models (the keys of its defaults' `engines`), known once the core answered. */
export let ENGINES = /** @type {string[]} */ ([]);
/** Markets for prices, electricity and store links (the core's `list markets` ids). */
export let MARKETS = /** @type {string[]} */ ([]);

export const state = {
  view: 'main',
  lang: 'en',
  // None holds a value of its own: setDefaults fills them from the core's defaults at start,
  // before any view runs (the empty values here are never sent); the model and the device are
  // the welcome's (the core's welcome: its first example).
  model: '',
  hw: '',
  quant: '',
  ctx: 0,
  kv: '',
  count: 0,
  ram: 0,
  par: 0,
  engine: '',
  market: '',
  /** Speculative decoding on the model's own MTP layers (request field mtp). */
  mtp: false,
  /** A separate draft model's catalog id (request field draft_model); '' = none. */
  draft: '',
  /** Images per prompt (request field images; 0 = text only, the vision projector not loaded). */
  images: 0,
  /** Seconds of audio per prompt (request field audio_seconds; 0 = none, the audio encoder not loaded). */
  audio: 0,
  /** True on a first visit, before any setup is in the URL. */
  home: false,
};

/** What a URL without a key means: the welcome's model and device, the rest the core's defaults. */
const DEFAULTS = { ...state };

/**
 * Take the core's defaults (api.js defaults(): core/include/willitfit/estimate/defaults.hpp) as what a
 * missing URL key means, so the page never holds its own copy of them.
 * @param {any} d @param {any[]} [markets] the core's market list
 */
export function setDefaults(d, markets = /** @type {any[]} */ ([])) {
  ENGINES = Object.keys(d.engines);
  MARKETS = markets.map((m) => m.id);
  const llama = d.engines['llama.cpp'];
  Object.assign(DEFAULTS, {
    model: d.welcome.model, hw: d.welcome.hardware,
    quant: llama.quant, kv: llama.kv_type, par: llama.parallel,
    ctx: d.estimate.context, count: d.estimate.count, ram: d.estimate.ram_gib, engine: d.estimate.engine,
    market: d.cost.market, images: d.estimate.images, audio: d.estimate.audio_seconds,
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
  // A prerendered page (scripts/prerender.mjs) names its state on <html data-query>; a query
  // string in the address wins.
  const p = new URLSearchParams(location.search || pathQuery() || document.documentElement.dataset.query || '');
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
  // No quant in a link to a server engine means that engine's own default for the model (the core
  // chooses it); the llama.cpp default is a GGUF type those engines do not load.
  if (!s('quant') && state.engine !== DEFAULTS.engine) state.quant = '';
  if (MARKETS.includes(s('market'))) state.market = s('market');
  state.mtp = s('mtp') === '1';
  // The draft model goes to the core as given; it refuses an unknown or incompatible one with its code.
  state.draft = s('draft').slice(0, 200);
  // Images per prompt go to the core as given (it refuses what is out of range, with the field).
  state.images = /^\d{1,2}$/.test(s('img')) ? Number(s('img')) : DEFAULTS.images;
  // Seconds of audio per prompt, likewise (the core refuses what is out of range).
  state.audio = /^\d{1,5}(\.\d{1,3})?$/.test(s('aud')) ? Number(s('aud')) : DEFAULTS.audio;
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

/**
 * The prerendered pages (dist/pages.json, written by scripts/prerender.mjs): each catalog model's
 * and device's path segment, and the model × device pairs that have a page.
 * @type {{models: Record<string, string>, devices: Record<string, string>, pairs: Set<string>} | null}
 */
let pages = null;

/** @param {{models: Record<string, string>, devices: Record<string, string>, pairs: string[]} | null} doc */
export function setPages(doc) {
  pages = doc && doc.models && doc.devices && Array.isArray(doc.pairs) ? { models: doc.models, devices: doc.devices, pairs: new Set(doc.pairs) } : null;
}

/** The state a prerendered page's path stands for, as a query string ('' when it names none). */
function pathQuery() {
  if (!pages) return '';
  const base = appPath().replace(/[^/]*$/, '');
  if (!location.pathname.startsWith(base)) return '';
  const [lang, a, b, ...rest] = location.pathname.slice(base.length).split('/').filter(Boolean);
  if (!LANGS.includes(lang) || !a || rest.length) return '';
  const key = (/** @type {Record<string, string>} */ map, /** @type {string} */ slug) => Object.keys(map).find((k) => map[k] === slug);
  const model = key(pages.models, a);
  const hw = key(pages.devices, b || a);
  if (b) return model && hw ? queryFor({ ...DEFAULTS, view: 'main', model, hw, lang }) : '';
  if (model) return queryFor({ ...DEFAULTS, view: 'model', model, lang });
  return hw ? queryFor({ ...DEFAULTS, view: 'device', hw, ram: 0, lang }) : '';
}

/** The state as a whole (every key at its default). */
export function defaultState() {
  return { ...DEFAULTS };
}

/** @type {WeakMap<Document, string>} */
const roots = new WeakMap();
/** The app's root folder: a prerendered page sits below it (<html data-root="../../">), read
 * against the address the page was loaded at, so in-app navigation keeps it. */
export function appPath() {
  // Drawing a static page (scripts/prerender.mjs): links are written relative to the app's root
  // ("en/glm-4.5-air/", "?model=…"), and the build prefixes each with the page's way up to it, so
  // they work wherever the site is hosted and in a saved copy. (Reading the address here would
  // take the path of the page being drawn, where the app has already put it, and double it.)
  if (document.documentElement.dataset.build === 'static') return '';
  const up = document.documentElement.dataset.root;
  if (!up) return location.pathname;
  let r = roots.get(document);
  if (!r) roots.set(document, r = new URL(up, location.href).pathname);
  return r;
}

/**
 * The prerendered page for a state, as a path under the app's root, or null: the model page,
 * the device page without system RAM, and a listed pair at every other setting's default.
 * @param {typeof state} v
 */
export function pageFor(v) {
  if (!pages || v.market !== DEFAULTS.market) return null;
  const m = pages.models[v.model];
  const d = pages.devices[v.hw];
  if (v.view === 'model') return m ? `${v.lang}/${m}/` : null;
  if (v.view === 'device') return d && v.ram === 0 ? `${v.lang}/${d}/` : null;
  if (v.view !== 'main' || !m || !d || !pages.pairs.has(`${m}/${d}`)) return null;
  const same = /** @type {(keyof typeof state)[]} */ (['quant', 'ctx', 'kv', 'count', 'ram', 'par', 'engine']).every((k) => v[k] === DEFAULTS[k]);
  return same ? `${v.lang}/${m}/${d}/` : null;
}

/** The query string for a state (only the keys that view needs). @param {Partial<typeof state>} [over] */
export function queryFor(over = {}) {
  const v = { ...state, ...over };
  /** @type {Record<string, string>} */
  let q;
  if (v.view === 'model') q = { view: 'model', model: v.model };
  else if (v.view === 'device') q = { view: 'device', hw: v.hw, ram: String(v.ram) };
  else if (v.view === 'accuracy') q = { view: 'accuracy' };
  else {
    q = { model: v.model, quant: v.quant, hw: v.hw, ctx: String(v.ctx), kv: v.kv, count: String(v.count), ram: String(v.ram) };
    if (!v.quant) delete q.quant;   // the engine's default
    if (v.par !== DEFAULTS.par) q.par = String(v.par);
    if (v.engine !== DEFAULTS.engine) q.engine = v.engine;
    if (v.mtp) q.mtp = '1';
    if (v.draft) q.draft = v.draft;
    if (v.images && v.images !== DEFAULTS.images) q.img = String(v.images);
    if (v.audio && v.audio !== DEFAULTS.audio) q.aud = String(v.audio);
  }
  if (v.market !== DEFAULTS.market && v.view !== 'accuracy') q.market = v.market;
  q.lang = v.lang;
  return String(new URLSearchParams(q));
}

/** The URL for a state: its prerendered page when there is one, else the app's query string. @param {Partial<typeof state>} [over] */
export function urlFor(over = {}) {
  const v = { ...state, ...over };
  // Links name prerendered pages from a prerendered page (and while building one); the app at
  // its root keeps query-string links.
  const d = document.documentElement.dataset;
  const page = d.query || d.build === 'static' ? pageFor(v) : null;
  return page ? appPath().replace(/[^/]*$/, '') + page : `${appPath()}?${queryFor(over)}`;
}

/** Put the state in the address bar; push a history entry for a deliberate change. */
export function writeUrl(push = false) {
  // On the prerendered page of this very state the address stays as it is.
  if (!location.search && (pathQuery() || document.documentElement.dataset.query) === queryFor()) return;
  const url = urlFor();
  if (url === location.pathname + location.search) return;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}
