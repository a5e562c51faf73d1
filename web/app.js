// @ts-check
// The page shell: reads the view and its settings from the URL, routes between the four views,
// wires the form, and asks the core (in a Worker) for every number. It holds no formula of its
// own. Links marked data-nav are followed in place with history.pushState, so back/forward and
// shared links restore the exact view. Everything user-supplied is written with textContent.
import * as catalog from './catalog.js';
import { call, cancel, estimate, where, WillitfitError } from './client.js';
import { byId, fill, h, keepWhole, scrollCue, setText } from './dom.js';
import { gib, num, times, tokens } from './format.js';
import { applyStrings, aside, clauses, gap, labelled, t, tn } from './i18n.js';
import { asideReason, initInputs, refreshSaved } from './inputs.js';
import { attachSearch } from './search.js';
import { chipLabel, deviceLabel, kindKey, nameSize, productLabel } from './device-name.js';
import { initHub, isHubText, openHub } from './views/hub.js';
import { registerServiceWorker } from './pwa.js';
import { copyLink, initShare, unpackConfig } from './share.js';
import { defineSnapshot, isSavedCopy, writeSnapshot } from './snapshot.js';
import { appPath, defaultOf, pageFor, queryFor, readUrl, setPages, state, urlFor, writeUrl } from './state.js';
import * as store from './store.js';
import { redrawAccuracyChart, renderAccuracy } from './views/accuracy.js';
import { devicePageMeta, renderDevice } from './views/device.js';
import { clearExtras, hwName, renderExtras, renderMain } from './views/main.js';
import { renderModel } from './views/model.js';
import { costDrawn, resetElectricity } from './views/cost.js';
import { finetuneDrawn } from './views/finetune.js';

/** The context slider's steps and the presets beside it: the core's defaults (context_input). @returns {number[]} */
const contexts = () => catalog.defaults?.context_input?.steps ?? [defaultOf('ctx')];
const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** @param {HTMLSelectElement} sel @param {{value: string, label: string, group?: string}[]} items */
function fillSelect(sel, items) {
  const keep = sel.value;
  sel.replaceChildren();
  /** @type {Map<string, HTMLElement>} */
  const groups = new Map();
  for (const it of items) {
    const opt = h('option', { value: it.value }, it.label);
    if (!it.group) { sel.append(opt); continue; }
    let g = groups.get(it.group);
    if (!g) { g = h('optgroup', { label: it.group }); groups.set(it.group, g); sel.append(g); }
    g.append(opt);
  }
  if (keep) sel.value = keep;
}

/**
 * The hardware search: catalog devices by product label ("Mac Studio · M3 Ultra 80-core GPU ·
 * 512 GB"), chip name and every product they ship in (the core's `products`), and saved ones.
 */
function hardwareItems() {
  const custom = Object.entries(store.devices()).map(([id, d]) => ({ id, name: d.name, org: T('saved_group'), hint: nameSize({ ...d, custom: true }, state.lang) }));
  return [...custom, ...catalog.hardware.map((d) => {
    const product = productLabel(d, state.lang, catalog.hardware);
    return {
      id: d.id, name: product ?? d.name, org: d.vendor, hint: product ? d.name : nameSize(d, state.lang),
      keywords: [d.name, ...(Array.isArray(d.products) ? d.products : [])].join(' '),
    };
  })];
}

/** A catalog device's option text: its product label, else "name · memory". @param {any} d */
function hardwareOption(d) {
  // A name that states its size (the core's name_base) is not followed by it twice; the size is
  // the vendor's GB on every surface (device-name.js). A device sold in named products shows its
  // chip and memory in the select (the box cannot wrap, and "MacBook Pro / Mac Studio · M4 Max…"
  // was cut at its edge), with the products written under it (hardwareFull).
  return chipLabel(d, state.lang, catalog.hardware);
}

function fillHardware() {
  const custom = Object.entries(store.devices()).map(([id, d]) => ({ value: id, label: deviceLabel({ ...d, custom: true }, state.lang), group: T('saved_group') }));
  const cat = catalog.hardware.map((d) => ({ value: d.id, label: hardwareOption(d), group: aside(state.lang, d.vendor, T(kindKey(d))) }));
  fillSelect(byId('hardware'), [...custom, ...cat]);
  fillSelect(byId('dp-device'), cat);
}

function fillPresets() {
  const presets = byId('context-presets');
  presets.querySelectorAll('button').forEach((/** @type {Element} */ b) => b.remove());
  /** @type {number[]} */
  const presetList = catalog.defaults?.context_input?.presets ?? [];
  for (const [i, c] of contexts().entries()) {
    if (!presetList.includes(c)) continue;
    presets.append(h('button', { type: 'button', on: { click: () => { byId('context').value = String(i); readForm(); update(true); } } }, tokens(c, state.lang)));
  }
}

/** What the format select showed before the person touched it (their pick, or the result's). */
let shownQuant = '';

/**
 * A hardware select as the state has it. A device the select does not list (a link's unknown id,
 * a custom device saved in another browser) is kept as an option of its own, named as given and
 * marked unknown: the select never goes blank and what the link said is not lost; the core's
 * error (unknown_hardware) says what to do. @param {string} id the select
 */
function syncHardware(id) {
  const sel = /** @type {HTMLSelectElement} */ (byId(id));
  sel.querySelectorAll('option[data-unknown]').forEach((o) => o.remove());
  if (state.hw && ![...sel.options].some((o) => o.value === state.hw)) {
    sel.prepend(h('option', { value: state.hw, dataset: { unknown: 'true' } }, aside(state.lang, state.hw, T('hw_unknown'))));
  }
  sel.value = state.hw;
}

/** The draft-model select as the state has it (its options are the core's draft_candidates, filled by the main view). */
function syncDraft() {
  const sel = /** @type {HTMLSelectElement} */ (byId('draft'));
  if (state.draft && ![...sel.options].some((o) => o.value === state.draft)) sel.append(h('option', { value: state.draft }, state.draft));
  sel.value = state.draft || '';
}

function syncForm() {
  const mi = catalog.modelInfo(state.model);
  byId('model').value = mi && mi.custom ? mi.name : state.model;
  if (state.quant) byId('quant').value = state.quant;
  shownQuant = byId('quant').value;
  syncHardware('hardware');
  // The cache types the engine takes (the core's defaults: llama.cpp's kv_types, a server's
  // kv_cache_dtypes); a type the engine does not offer shows as its default.
  // A llama.cpp type a link states beyond those (q5_1) is offered too: the form shows what was computed.
  const offered = catalog.kvChoices(state.engine);
  const server = state.engine === 'vllm' || state.engine === 'sglang';
  const kvs = offered.includes(state.kv) || server || state.engine === 'mlx' || !state.kv || ['vllm', 'sglang'].some((e) => catalog.kvChoices(e).includes(state.kv)) ? offered : [...offered, state.kv];
  fillSelect(byId('kv'), kvs.map((k) => ({ value: k, label: k })));
  byId('kv').value = kvs.includes(state.kv) ? state.kv : kvs[0];
  byId('count').value = String(state.count);
  byId('par').value = String(state.par);
  byId('engine').value = state.engine;
  byId('mtp').checked = !!state.mtp;
  syncDraft();
  byId('images').value = String(state.images || 0);
  byId('audio').value = String(state.audio || 0);
  fillRam();
  byId('ram').value = String(state.ram);
  byId('lang').value = state.lang;
  byId('market').value = state.market;
  syncHardware('dp-device');
  // The device page offers the core's RAM tiers (defaults.ram_input.device_page); another size
  // reads as none there.
  byId('dp-ram').value = ramChoices('device_page').includes(state.ram) ? String(state.ram) : '0';
  // The step of the context, else the first above it, else the default's step.
  const steps = contexts();
  byId('context').max = String(steps.length - 1);
  const i = steps.indexOf(state.ctx);
  const above = steps.findIndex((c) => c >= state.ctx);
  byId('context').value = String(i >= 0 ? i : above >= 0 ? above : Math.max(0, steps.indexOf(defaultOf('ctx'))));
  setText(byId('context-out'), tokens(state.ctx, state.lang));
  byId('context').setAttribute('aria-valuetext', tokens(state.ctx, state.lang));
  hardwareFull();
}

/**
 * A closed select cuts its text at its edge with no cue ("NVIDIA RTX PRO 6000 Blackwell Max-Q W"):
 * the hardware select's face (#hw-face) shows the chosen label whole, wrapping; a device sold in
 * products (a Mac's chip) has the products written under it.
 */
function hardwareFull() {
  const sel = /** @type {HTMLSelectElement} */ (byId('hardware'));
  const out = document.getElementById('hw-full');
  if (!out) return;
  const opt = sel.selectedOptions && sel.selectedOptions[0];
  const label = opt ? opt.textContent || '' : '';
  const d = catalog.deviceInfo(sel.value);
  const product = d && !d.custom ? productLabel(d, state.lang, catalog.hardware) : null;
  sel.title = product || label;
  // The select's face: the whole chosen label, wrapping where the closed select would cut it.
  const face = document.getElementById('hw-face');
  if (face) setText(face, label);
  // A device with products: its whole label under the select, always (the select shows the chip).
  if (product) { out.hidden = false; out.removeAttribute('aria-hidden'); setText(out, product); return; }
  // Any other choice is whole on the face: nothing to write under it.
  out.setAttribute('aria-hidden', 'true');
  out.hidden = true;
  setText(out, '');
}

function readForm() {
  const typed = byId('model').value.trim();
  const mi = catalog.modelInfo(state.model);
  const before = state.model, engineBefore = state.engine;
  if (!(mi && mi.custom && typed === mi.name) && !isHubText(typed)) state.model = resolveTyped(typed);
  // The format is the person's choice once they pick one in the select; until then it stays ''
  // (the engine's default, which the select shows from the result).
  const quantPicked = byId('quant').value !== shownQuant;
  if (quantPicked) state.quant = byId('quant').value;
  state.hw = byId('hardware').value;
  state.kv = byId('kv').value;
  // Another engine starts on its own default format for the model (the result names it), unless
  // the format was changed in the same step.
  state.engine = byId('engine').value;
  if (state.engine !== engineBefore && !quantPicked) state.quant = '';
  // Another engine offers other cache types: one it does not offer starts on its default.
  if (state.engine !== engineBefore && !catalog.kvChoices(state.engine).includes(state.kv)) state.kv = defaultOf('kv');
  // Another model may ship no MTP layers: the switch starts off again for it.
  // Another engine may keep them unused (llama.cpp for GLM-5): the switch goes off for it too.
  const mtpEngines = (byId('mtp-field').dataset.engines || '').split(' ');
  state.mtp = state.model === before && !byId('mtp-field').hidden && byId('mtp').checked &&
    (state.engine === engineBefore || mtpEngines.includes(state.engine));
  // A draft model belongs to its target: another model starts without one.
  state.draft = state.model === before && !byId('draft-field').hidden ? byId('draft').value : '';
  // Images only for a model with a vision tower (the field shows for one); another model starts
  // text-only again.
  // Numbers go to the core as typed (whole numbers): one out of its range comes back as its coded
  // error naming the field, never silently replaced by a bound written here.
  const whole = (/** @type {string} */ id, /** @type {number} */ fallback) => {
    const raw = byId(id).value.trim();
    const n = Math.round(Number(raw));
    return raw !== '' && Number.isFinite(n) ? n : fallback;
  };
  state.images = state.model === before && !byId('images-field').hidden ? whole('images', defaultOf('images')) : defaultOf('images');
  const secs = Number(byId('audio').value.trim());
  state.audio = state.model === before && !byId('audio-field').hidden && byId('audio').value.trim() !== '' && Number.isFinite(secs)
    ? secs : defaultOf('audio');
  state.count = whole('count', defaultOf('count'));
  state.par = whole('par', defaultOf('par'));
  state.ram = Number(byId('ram').value) || defaultOf('ram');
  state.ctx = contexts()[Number(byId('context').value)] ?? defaultOf('ctx');
  setText(byId('context-out'), tokens(state.ctx, state.lang));
  byId('context').setAttribute('aria-valuetext', tokens(state.ctx, state.lang));
}

/** A typed name or id to a model id (exact id, else exact name, else as typed). @param {string} s */
function resolveTyped(s) {
  const items = catalog.searchItems();
  const hit = items.find((m) => m.id === s) || items.find((m) => m.name.toLowerCase() === s.toLowerCase());
  return hit ? hit.id : s;
}

let seq = 0;
/** Render the current view; `push` records a history entry. */
export async function update(push = false) {
  writeUrl(push);
  updateTabs();
  const mine = ++seq;
  const alive = () => mine === seq;
  cancel();
  for (const v of ['main', 'model', 'device', 'accuracy']) byId(`view-${v}`).hidden = v !== state.view;
  setTitle();
  try {
    if (state.view === 'model') { byId('mp-search').value = catalog.modelInfo(state.model)?.name || state.model; await renderModel(alive); }
    else if (state.view === 'device') await renderDevice(alive);
    else if (state.view === 'accuracy') await renderAccuracy(alive);
    else {
      byId('hero').hidden = !state.home;
      byId('main-h1').hidden = state.home;
      const r = await estimate(catalog.request());
      if (!alive()) return;
      markField(null);
      // The result says which format it used (a GGUF file's own, or the engine's default).
      if (byId('quant').value !== r.quant.id) byId('quant').value = r.quant.id;
      shownQuant = byId('quant').value;
      // A GGUF file fixes its own format: the select shows it and cannot change it.
      const ref = /** @type {any} */ (store.modelRef(state.model));
      const fromFile = typeof ref === 'object' && ('gguf_handle' in ref || 'gguf_header_base64' in ref);
      /** @type {HTMLSelectElement} */ (byId('quant')).disabled = fromFile;
      byId('quant').title = fromFile ? T('quant_from_file', { 0: r.quant.id }) : '';
      setTitle(r);
      renderMain(r);
      scheduleExtras(r, alive);
    }
    if (alive()) writeSnapshot();
  } catch (e) {
    if (!alive()) return;
    showError(e);
    // No result says which format the core would use: the select shows the core's default format
    // of the engine for this model (its defaults document), never its first option (a refused
    // request showed "F32", a format nobody asked for) and never nothing; none when the core has
    // no default for it (a model it does not know).
    if (state.view === 'main' && !state.quant) {
      const sel = /** @type {HTMLSelectElement} */ (byId('quant'));
      /** @type {any} */
      let d = null;
      try { d = await call('defaults', { model: catalog.request().model }); } catch { d = null; }
      if (!alive()) return;
      const q = d && d.engines && d.engines[state.engine] ? d.engines[state.engine].quant : undefined;
      if (typeof q === 'string' && [...sel.options].some((o) => o.value === q)) sel.value = q; else sel.selectedIndex = -1;
      shownQuant = sel.value;
    }
  }
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let extrasTimer;
/** How long input must settle before the many-estimate sections are drawn (0 at build time). */
let settleMs = 150;
/** Resolves when the latest scheduled many-estimate sections are drawn. */
let extrasDone = Promise.resolve();
/** The many-estimate sections wait until input settles, so dragging the slider stays smooth. @param {any} r @param {() => boolean} alive */
function scheduleExtras(r, alive) {
  clearTimeout(extrasTimer);
  extrasDone = new Promise((resolve) => {
    extrasTimer = setTimeout(() => { renderExtras(r, alive).catch((e) => { if (alive()) showError(e); }).finally(resolve); }, settleMs);
  });
}

/**
 * The tab title and the meta description, naming the model and the device in the page's language.
 * @param {any} [r] the main view's result, when there is one
 */
function setTitle(r) {
  const mi = catalog.modelInfo(state.model);
  const di = catalog.deviceInfo(state.hw);
  const model = r ? r.model.name : mi?.name || state.model;
  const hw = r ? hwName(r) : di ? productLabel(di, state.lang, catalog.hardware) ?? di.name : state.hw;
  const v = { model, hw };
  // A catalog device's page says what the page itself draws (device.js devicePageMeta: one rule
  // for its name), so the title does not change when the page finishes drawing.
  const dp = state.view === 'device' && di ? devicePageMeta(di, state.lang) : null;
  document.title = dp ? dp.title : T(`title_${state.view}_named`, v);
  let meta = document.querySelector('meta[name="description"]');
  if (!meta) { meta = h('meta', { name: 'description' }); document.head.append(meta); }
  meta.setAttribute('content', dp ? dp.description : T(`desc_${state.view}`, v));
  // A query-string address of a state that has a prerendered page names that page as canonical.
  // A prerendered page showing its own state keeps the links it was built with.
  if (document.documentElement.dataset.query === queryFor()) return;
  const page = pageFor(state);
  let canon = document.querySelector('link[rel="canonical"]');
  if (page) {
    if (!canon) { canon = h('link', { rel: 'canonical' }); document.head.append(canon); }
    canon.setAttribute('href', new URL(appPath().replace(/[^/]*$/, '') + page, location.href).href);
  } else canon?.remove();
}

/**
 * The map of prerendered pages (pages.json beside the app), so links and the canonical link name
 * a page where there is one. Only for a served app: the offline page and a saved copy have none.
 */
async function loadPages() {
  if (!/^https?:$/.test(location.protocol) || document.documentElement.dataset.offline === 'true') return;
  try {
    const res = await fetch(new URL(`${appPath().replace(/[^/]*$/, '')}pages.json`, location.href));
    if (res.ok) setPages(await res.json());
  } catch { /* no map: query-string links */ }
}

/**
 * The form field a request field names (an error's path): the select or input the person changes.
 * @type {Record<string, string>}
 */
const FIELD_OF = { kv_bits: 'kv', kv_type: 'kv', kv_cache_dtype: 'kv', quant: 'quant', context: 'context', count: 'count', parallel: 'par',
  mtp: 'mtp', draft_model: 'draft', images: 'images', audio_seconds: 'audio', ram_gib: 'ram', engine: 'engine', hardware: 'hardware', model: 'model' };

/**
 * Mark the form field an error's path names (aria-invalid, described by the error), the value the
 * person chose left as it is; `null` clears the mark. @param {string | null} path
 */
function markField(path) {
  for (const el of document.querySelectorAll('#form [data-error-mark]')) {
    el.removeAttribute('aria-invalid'); el.removeAttribute('data-error-mark'); el.removeAttribute('aria-errormessage');
  }
  const id = path ? FIELD_OF[path.split(/[.[]/)[0]] : undefined;
  const el = id ? document.getElementById(id) : null;
  if (!el || state.view !== 'main') return;
  // A field the last result hid (MTP, images: they show for a model that has them) is shown, so
  // the choice a link carried to this model can be changed where it is.
  const box = el.closest('.field');
  if (box && /** @type {HTMLElement} */ (box).hidden) /** @type {HTMLElement} */ (box).hidden = false;
  el.setAttribute('aria-invalid', 'true');
  el.setAttribute('aria-errormessage', 'error');
  el.dataset.errorMark = '1';
}

/** @param {unknown} e */
function showError(e) {
  if (state.view === 'main') clearExtras();
  const box = byId('error');
  box.hidden = false;
  const err = /** @type {any} */ (e);
  // The core's code says what went wrong in the page's words; the code and the core's own
  // message (English, for developers) are folded under "Technical details".
  if (err instanceof WillitfitError || (err && err.code)) {
    // The sentences that name the share button use its own label ({share}).
    // A cache choice that does not apply to this model names the choice, which stays in the form.
    const known = T(`err_${err.code}`, { path: String(err.path || ''), share: T('share'), kv: String(state.kv || '') });
    box.dataset.code = String(err.code);
    box.dataset.path = String(err.path || '');
    markField(String(err.path || ''));
    // A model id the catalog does not know, shaped like a Hub repo: offer to read it from there.
    const hub = err.code === 'unknown_model' && state.view === 'main' && isHubText(state.model)
      ? h('p', null, h('button', { type: 'button', id: 'err-hub', on: { click: () => openHub(state.model) } }, T('hub_try', { 0: state.model })))
      : null;
    // A link to this error, to send to whoever gave the link or to report it: named for what it
    // copies, unlike the answer's share button (hidden while there is no answer).
    const msg = h('span', { class: 'note', role: 'status', id: 'err-share-msg' });
    const copyErr = h('button', { type: 'button', class: 'small', id: 'err-share', on: { click: async () => {
      setText(msg, T(await copyLink(null) ? 'link_copied' : 'copy_failed'));
    } } }, T('share_error'));
    fill('error', h('p', null, known !== `err_${err.code}` ? known : T('err_other', { path: String(err.path || '') })), hub,
      state.view === 'main' && /^https?:$/.test(location.protocol) ? h('p', { class: 'btns' }, copyErr, msg) : null,
      h('details', { class: 'note' }, h('summary', null, T('tech_details')), h('p', { class: 'mono' }, `[${err.code}${err.path ? ` @ ${err.path}` : ''}] ${err.message || ''}`)));
  } else setText(box, String(err && err.message || err));
  byId('verdict').dataset.verdict = 'error';
  setText(byId('verdict-text'), T('error'));
}

/** The welcome's examples, each a link to its view. */
function fillExamples() {
  const box = byId('examples');
  if (!catalog.models.length) return;
  // The core's examples (defaults.welcome: one setup of each kind), each a link to its view.
  const examples = /** @type {{model: string, quant: string, hardware: string, count: number, ram_gib: number, engine: string}[]} */ (catalog.defaults?.welcome?.examples ?? []);
  fill('examples', examples.map(({ model, quant, hardware: hw, count, ram_gib: ram, engine }) => {
    const mi = catalog.modelInfo(model);
    const di = catalog.deviceInfo(hw);
    if (!mi || !di) return null;
    const label = `${mi.name} · ${count > 1 ? `${times(count, state.lang)} ` : ''}${productLabel(di, state.lang, catalog.hardware) ?? di.name}${ram ? ` + ${gib(ram * 1024 ** 3, state.lang, 0)} RAM` : ''}${engine !== 'llama.cpp' ? ` · ${catalog.defaults?.engines?.[engine]?.name ?? engine}` : ''}`;
    return h('li', null, h('a', { href: urlFor({ view: 'main', model, quant, hw, count, ram, engine }), dataset: { nav: '1' } }, label));
  }));
  box.hidden = false;
}

function updateTabs() {
  for (const v of ['main', 'model', 'device', 'accuracy']) {
    const a = byId(`tab-${v}`);
    a.href = urlFor({ view: v });
    if (v === state.view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  byId('tab-model').textContent = catalog.modelInfo(state.model) && !catalog.modelInfo(state.model)?.custom ? T('tab_named', { tab: T('tab_model'), name: String(catalog.modelInfo(state.model)?.name) }) : T('tab_model');
  byId('tab-device').textContent = catalog.deviceInfo(state.hw) && !catalog.deviceInfo(state.hw)?.custom ? T('tab_named', { tab: T('tab_device'), name: hardwareOption(catalog.deviceInfo(state.hw)) }) : T('tab_device');
}

/**
 * The language the page's fixed strings are in: a prerendered page (data-query) comes with them
 * drawn in its own, and the views' texts drawn over some of them (the tabs named for the model and
 * the device, headings naming the setup). Writing them again on take-over put the generic words
 * back until the views redrew theirs: the header and everything under it moved (a layout shift of
 * about 1.0 at 1280 px). So the take-over leaves them; later changes (another view, another
 * language) write them as before.
 */
let stringsLang = document.documentElement.dataset.query ? document.documentElement.lang : '';
function applyPageStrings() {
  if (state.lang !== stringsLang) applyStrings(state.lang);
}

function applyLang() {
  applyPageStrings();
  for (const el of document.querySelectorAll('[data-i18n-ph]')) el.setAttribute('placeholder', T(/** @type {HTMLElement} */ (el).dataset.i18nPh || ''));
  fillExamples();
  fillRam();
  fillPresets();
  fillHardware();
  syncForm();
}

/** Follow an in-app link without reloading. @param {MouseEvent} e */
function onNav(e) {
  const a = /** @type {HTMLElement} */ (e.target).closest?.('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  history.pushState(null, '', /** @type {HTMLAnchorElement} */ (a).href);
  readUrl();
  applyLang();
  window.scrollTo(0, 0);
  update(false);
  byId('content').focus?.();
}

/** Charts take their colours from the theme when drawn: redraw the views that have them. */
function redrawForTheme() {
  if (state.view === 'main') update(false);
  else if (state.view === 'accuracy') redrawAccuracyChart();
}

function setTheme(/** @type {string | null} */ theme) {
  const root = document.documentElement;
  if (theme) root.dataset.theme = theme; else delete root.dataset.theme;
  const dark = root.dataset.theme === 'dark' || (!root.dataset.theme && matchMedia('(prefers-color-scheme: dark)').matches);
  byId('theme').setAttribute('aria-pressed', String(dark));
}

/**
 * The system RAM choices in GiB, 0 = none (the core's defaults.ram_input: the main form's
 * `choices`, a device page's `device_page`).
 * @param {'choices' | 'device_page'} which @returns {number[]}
 */
const ramChoices = (which) => /** @type {number[]} */ (catalog.defaults?.ram_input?.[which] ?? [defaultOf('ram')]);

/**
 * Fill the RAM selects from the core's choices, labelled in GiB (the unit the core reads it in,
 * ram_gib, and every RAM figure it returns), for the page's language. A size a link states that
 * is not among the main form's choices is offered too, so the form shows what was computed.
 */
function fillRam() {
  const label = (/** @type {number} */ g) => (g > 0 ? gib(g * 1024 ** 3, state.lang, 0) : '—');
  const main = ramChoices('choices');
  const all = main.includes(state.ram) || !(state.ram > 0) ? main : [...main, state.ram].sort((a, b) => a - b);
  fillSelect(byId('ram'), all.map((g) => ({ value: String(g), label: label(g) })));
  fillSelect(byId('dp-ram'), ramChoices('device_page').map((g) => ({ value: String(g), label: label(g) })));
}

/** The selects whose options are the core's lists: formats, engines, markets (a prerendered page has them too). */
function fillCatalogSelects() {
  fillSelect(byId('quant'), catalog.quants.map((q) => ({ value: q.id, label: q.id, group: q.gguf ? 'GGUF' : q.container })));
  // The engines and markets the core knows, in its own spelling (product names, not translated).
  fillSelect(byId('engine'), Object.entries(catalog.defaults.engines).map(([id, e]) => ({ value: id, label: String(e.name ?? id) })));
  fillSelect(byId('market'), catalog.markets.map((m) => ({ value: m.id, label: `${m.id} · ${m.currency}` })));
}

async function init() {
  defineSnapshot();
  readUrl();
  applyPageStrings();
  try { setTheme(localStorage.getItem('willitfit.theme')); } catch { /* storage off */ }
  store.load();
  await Promise.all([catalog.load(), loadPages()]);
  readUrl();   // again: a missing key now means the core's default
  fillCatalogSelects();
  applyLang();
  stringsLang = '';   // taken over: from now on every change writes the strings
  // Ids and code-like pieces stay whole on a line (no "Llama-3.1-8B-" / "Instruct"): the page's
  // own markup once here; what the views and the strings draw, as they draw it (dom.js h, text,
  // setText), with no watching of the page for changes.
  keepWhole(byId('content'));
  scrollCue(byId('examples'));   // on a phone the popular setups scroll sideways: fade the edge with more
  const go = () => { readForm(); update(true); };
  attachSearch(byId('model'), catalog.searchItems, (id) => { if (isHubText(id)) { openHub(id); return; } state.model = resolveTyped(id); syncForm(); update(true); });
  attachSearch(byId('mp-search'), catalog.searchItems, (id) => { state.model = resolveTyped(id); update(true); });
  attachSearch(byId('hw-search'), hardwareItems, (id) => { if (!catalog.deviceInfo(id)) return; state.hw = id; syncForm(); byId('hw-search').value = ''; update(true); });
  // On a phone the form folds into one summary line above the answer.
  // (A prerendered page comes with it folded, so a phone sees the answer first; a wide screen opens it.)
  /** @type {HTMLDetailsElement} */ (byId('setup-box')).open = !matchMedia('(max-width: 760px)').matches;
  byId('share').addEventListener('click', async () => {
    const saved = store.models()[state.model];
    const session = !saved && catalog.modelInfo(state.model)?.custom;
    const ok = await copyLink(saved || null);
    setText(byId('share-msg'), T(ok ? (session ? 'link_copied_gguf' : 'link_copied') : 'copy_failed'));
  });
  const form = byId('form');
  form.addEventListener('change', (/** @type {Event} */ e) => {
    const el = /** @type {HTMLElement} */ (e.target);
    if (el.closest('#custom-device, #import, #saved') || el.id === 'context') return;
    go();
  });
  byId('context').addEventListener('input', () => { readForm(); update(false); });
  byId('context').addEventListener('change', () => { readForm(); update(true); });
  form.addEventListener('submit', (/** @type {Event} */ e) => e.preventDefault());
  window.addEventListener('resize', hardwareFull);
  byId('hardware').addEventListener('change', hardwareFull);
  byId('lang').addEventListener('change', () => { state.lang = byId('lang').value; applyLang(); update(true); });
  byId('market').addEventListener('change', () => { state.market = byId('market').value; resetElectricity(); update(true); });
  byId('dp-device').addEventListener('change', () => { state.hw = byId('dp-device').value; update(true); });
  byId('dp-ram').addEventListener('change', () => { state.ram = Number(byId('dp-ram').value) || 0; update(true); });
  byId('theme').addEventListener('click', () => {
    const dark = document.documentElement.dataset.theme === 'dark' ||
      (!document.documentElement.dataset.theme && matchMedia('(prefers-color-scheme: dark)').matches);
    const next = dark ? 'light' : 'dark';
    setTheme(next);
    try { localStorage.setItem('willitfit.theme', next); } catch { /* storage off */ }
    redrawForTheme();
  });
  // The system's theme changing while the page is open (an OS that turns dark at sunset): with no
  // theme chosen on the page, the button's state and the charts follow it (a chart draws in the
  // colours of the theme it was drawn in: a black line stayed black on the dark panel).
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    if (document.documentElement.dataset.theme) return;
    setTheme(null);
    redrawForTheme();
  });
  document.addEventListener('click', onNav);
  window.addEventListener('popstate', () => { readUrl(); applyLang(); update(false); });
  initInputs({
    useModel: (id) => { state.model = id; syncForm(); update(true); },
    useDevice: (id) => { fillHardware(); state.hw = id; syncForm(); update(true); },
    refresh: () => { fillHardware(); syncForm(); },
  });
  await openSharedConfig();
  initHub({ useModel: (id) => { state.model = id; syncForm(); update(true); } });   // ?hf=owner/repo&file=…
  refreshSaved();
  showStoreProblems();
  initShare();
  await update(false);
  document.body.dataset.engine = await where();
  document.body.dataset.ready = 'true';
  registerServiceWorker();
}

/**
 * A shared link to an imported config.json carries it (`cfg=`): save it here and show it. A link
 * to a model this browser does not know and that carries nothing says what to do instead.
 */
async function openSharedConfig() {
  const p = new URLSearchParams(location.search);
  const packed = p.get('cfg');
  if (!packed) return;
  const doc = await unpackConfig(packed);
  if (!doc) return;
  state.model = store.addModel({ name: doc.name, config: doc.config });
  syncForm();
}

/** Saved entries that could not be read are reported, never dropped silently. */
function showStoreProblems() {
  const p = store.problems;
  const box = byId('store-notice');
  box.hidden = p.length === 0;
  if (!p.length) return;
  // Each entry: what it was, its key, and why in the page's language (store.js codes); the
  // browser's own text (an exception's name or message), where there is one, only as a tooltip.
  const L = state.lang;
  const said = p.map((x) => labelled(L, `${T(`aside_kind_${x.kind}`)}${x.key ? ` ${x.key}` : ''}`, asideReason(L, x)));
  const detail = p.map((x) => x.detail).filter(Boolean).join('\n');
  fill('store-notice', h('span', null, tn(L, 'store_problem', p.length, { 0: num(p.length, L) })), gap(L),
    h('span', { class: 'aside-reasons', dataset: { codes: p.map((x) => x.code).join(' ') }, ...(detail ? { title: detail } : {}) }, clauses(L, said)), ' ',
    h('button', { type: 'button', class: 'small', on: { click: () => store.download({ set_aside: store.setAsideEntries() }, 'willitfit-set-aside.json') } }, T('download_aside')), ' ',
    h('button', { type: 'button', class: 'small', on: { click: () => { store.clearAside(); box.hidden = true; } } }, T('dismiss')));
}

/**
 * Build time (scripts/prerender.mjs): draw the view the current URL names into this document with
 * the same code as the live app, and wait until every section is drawn. Nothing is wired: the
 * live app attaches to the markup when the page loads.
 */
export async function renderStatic() {
  settleMs = 0;
  if (!catalog.models.length) {
    store.load();
    await catalog.load();
  }
  fillCatalogSelects();
  readUrl();
  applyLang();
  await update(false);
  await extrasDone;
  // The money and fine-tuning sections too (each drawn a moment after the answer): a page without
  // them grew by their height when the app took it over, at a moment that varied from load to load.
  if (state.view === 'main') await Promise.all([costDrawn(), finetuneDrawn()]);
  // "Embed this" works only once the app runs (share.js shows it where a server is): the page
  // keeps its place, unseen, so that nothing below it moves by its height when the app takes over.
  const embed = byId('embed-open');
  embed.hidden = false;
  embed.classList.add('until-app');
}

// A saved copy of the page opened as a file keeps the result it was saved with (snapshot.js);
// at build time (a document marked data-build="static") scripts/prerender.mjs calls renderStatic.
// A prerendered page (data-query) is a whole answer before the app runs: it loads this module
// through boot.js, after its first frame is on screen, and the app then takes it over.
if (!isSavedCopy() && document.documentElement.dataset.build !== 'static')
  Promise.resolve().then(init).catch(showError);
