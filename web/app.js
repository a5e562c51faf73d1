// @ts-check
// The page: builds a request from the form, asks the wasm core, renders the answer. It holds no
// formula of its own. State lives in the URL (?model=…&quant=…&hw=…&ctx=…), so a shared link or
// back/forward restores the exact view. Everything user-supplied is written with textContent.
import { estimate, list, WillitfitError } from './api.js';
import { gib, gb, num, pct, tokens } from './format.js';
import { applyStrings, t } from './i18n.js';

const CONTEXTS = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576];
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

const state = {
  lang: 'en',
  model: 'zai-org/GLM-4.5-Air',
  quant: 'Q4_K_M',
  hw: 'nvidia-rtx-4090',
  ctx: 8192,
  kv: 'f16',
  count: 1,
  ram: 0,
};

/** @type {any[]} */ let models = [];
/** @type {any[]} */ let hardware = [];

function readUrl() {
  const p = new URLSearchParams(location.search);
  const s = (/** @type {string} */ k) => p.get(k) ?? undefined;
  state.lang = ['en', 'es', 'fr', 'zh'].includes(s('lang') || '') ? /** @type {string} */ (s('lang')) : guessLang();
  if (s('model')) state.model = /** @type {string} */ (s('model'));
  if (s('quant')) state.quant = /** @type {string} */ (s('quant'));
  if (s('hw')) state.hw = /** @type {string} */ (s('hw'));
  if (s('kv')) state.kv = /** @type {string} */ (s('kv'));
  const ctx = Number(s('ctx'));
  if (Number.isInteger(ctx) && ctx > 0) state.ctx = ctx;
  const count = Number(s('count'));
  if (Number.isInteger(count) && count >= 1 && count <= 16) state.count = count;
  const ram = Number(s('ram'));
  if (Number.isFinite(ram) && ram >= 0) state.ram = ram;
}

function guessLang() {
  const l = (navigator.language || 'en').slice(0, 2);
  return ['en', 'es', 'fr', 'zh'].includes(l) ? l : 'en';
}

function writeUrl(push = false) {
  const p = new URLSearchParams({
    model: state.model, quant: state.quant, hw: state.hw, ctx: String(state.ctx),
    kv: state.kv, count: String(state.count), ram: String(state.ram), lang: state.lang,
  });
  const url = `${location.pathname}?${p}`;
  if (url === location.pathname + location.search) return;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** @param {HTMLSelectElement} sel @param {{value: string, label: string, group?: string}[]} items */
function fillSelect(sel, items) {
  sel.replaceChildren();
  /** @type {Map<string, HTMLElement>} */
  const groups = new Map();
  for (const it of items) {
    const opt = document.createElement('option');
    opt.value = it.value;
    opt.textContent = it.label;
    if (it.group) {
      let g = groups.get(it.group);
      if (!g) {
        g = document.createElement('optgroup');
        /** @type {HTMLOptGroupElement} */ (g).label = it.group;
        groups.set(it.group, g);
        sel.append(g);
      }
      g.append(opt);
    } else {
      sel.append(opt);
    }
  }
}

function syncForm() {
  $('model').value = state.model;
  $('quant').value = state.quant;
  $('hardware').value = state.hw;
  $('kv').value = state.kv;
  $('count').value = String(state.count);
  $('ram').value = String(state.ram);
  $('lang').value = state.lang;
  const i = CONTEXTS.indexOf(state.ctx);
  $('context').value = String(i >= 0 ? i : 3);
  $('context-out').textContent = tokens(state.ctx, state.lang);
}

function readForm() {
  state.model = $('model').value.trim();
  state.quant = $('quant').value;
  state.hw = $('hardware').value;
  state.kv = $('kv').value;
  state.count = Math.min(16, Math.max(1, Math.round(Number($('count').value)) || 1));
  state.ram = Number($('ram').value) || 0;
  state.ctx = CONTEXTS[Number($('context').value)] ?? 8192;
  $('context-out').textContent = tokens(state.ctx, state.lang);
}

let seq = 0;
async function update(push = false) {
  writeUrl(push);
  const mine = ++seq;
  const req = {
    model: state.model, quant: state.quant, hardware: state.hw, context: state.ctx,
    kv_type: state.kv, count: state.count, ram_gib: state.ram,
  };
  try {
    const r = await estimate(req);
    if (mine === seq) render(r);
  } catch (e) {
    if (mine === seq) showError(e);
  }
}

/** @param {unknown} e */
function showError(e) {
  const box = $('error');
  box.hidden = false;
  const msg = e instanceof WillitfitError ? `${t(state.lang, 'error')}: ${e.message} [${e.code}${e.path ? ` @ ${e.path}` : ''}]` : String(e);
  box.textContent = msg;
  $('verdict').dataset.verdict = 'error';
  $('verdict-text').textContent = t(state.lang, 'error');
}

/** @param {any} r */
function render(r) {
  const L = state.lang;
  const m = r.memory;
  $('error').hidden = true;
  $('verdict').dataset.verdict = r.verdict;
  $('verdict-text').textContent = t(L, `verdict_${r.verdict}`);
  $('summary').textContent = t(L, 'summary', {
    model: r.model.name, quant: r.quant.id, ctx: tokens(r.settings.context_requested, L),
    total: gib(m.total_bytes, L), hw: r.hardware.count > 1 ? `${r.hardware.count}× ${r.hardware.name}` : r.hardware.name,
    usable: gib(m.usable_bytes, L),
  });
  $('c-total').textContent = gib(m.total_bytes, L);
  $('c-total-gb').textContent = gb(m.total_bytes, L);
  $('c-usable').textContent = gib(m.usable_bytes, L);
  $('c-physical').textContent = t(L, 'physical', { 0: gib(m.physical_bytes, L, 0) });
  const margin = m.margin_bytes;
  $('c-margin').textContent = (margin >= 0 ? '+' : '−') + gib(Math.abs(margin), L);
  $('c-util').textContent = t(L, 'utilization', { 0: pct(m.utilization, L) });
  $('c-kvtok').textContent = `${num(m.kv.bytes_per_token / 1024, L, 1)} KiB`;
  $('c-topology').textContent = r.model.topology;

  const scale = Math.max(m.total_bytes, m.usable_bytes) || 1;
  const seg = (/** @type {string} */ id, /** @type {number} */ b) => { $(id).style.width = `${(100 * b) / scale}%`; };
  seg('seg-weights', m.weights_bytes);
  seg('seg-kv', m.kv_cache_bytes);
  seg('seg-compute', m.compute_bytes);
  seg('seg-overhead', m.overhead_bytes);
  $('bar-limit').style.left = `${(100 * m.usable_bytes) / scale}%`;
  $('bar').setAttribute('aria-label', `${t(L, 'required')} ${gib(m.total_bytes, L)} / ${t(L, 'usable')} ${gib(m.usable_bytes, L)}`);

  $('t-weights').textContent = gib(m.weights_bytes, L);
  $('t-kv').textContent = gib(m.kv_cache_bytes, L);
  $('t-compute').textContent = gib(m.compute_bytes, L);
  $('t-overhead').textContent = gib(m.overhead_bytes, L);
  const file = r.gguf_file_bytes ?? r.checkpoint_bytes;
  $('w-weights').textContent = t(L, 'why_weights', {
    n: num(r.model.params_total, L), bpw: num(r.quant.bits_per_weight, L, 2), file: `${gib(file, L)} (${gb(file, L)})`,
  }).replace(num(r.model.params_total, L), `${num(r.model.params_total / 1e9, L, 2)}B`);
  const g = m.kv.groups.map((/** @type {any} */ x) => t(L, 'why_kv', {
    layers: num(x.layers, L), per_token: `${num(x.bytes_per_token / x.layers / 1024, L, 2)} KiB`, cells: num(x.cells, L),
  })).join(' + ');
  $('w-kv').textContent = g || '—';
  $('w-compute').textContent = t(L, 'why_compute', {
    logits: gib(m.compute.logits_bytes, L), layer: gib(m.compute.attention_bytes + m.compute.ffn_bytes, L),
  });
  $('w-overhead').textContent = t(L, 'why_overhead', { backend: r.hardware.backend });
}

async function init() {
  readUrl();
  applyStrings(state.lang);
  [models, hardware] = await Promise.all([list('models'), list('hardware')]);
  const quants = await list('quants');
  const dl = $('model-list');
  for (const m of models) {
    const o = document.createElement('option');
    o.value = m.id;
    o.label = `${m.name} · ${m.params_total_b}B`;
    dl.append(o);
  }
  fillSelect($('quant'), quants.map((/** @type {any} */ q) => ({ value: q.id, label: q.id, group: q.gguf ? 'GGUF' : q.container })));
  fillSelect($('hardware'), hardware.map((/** @type {any} */ d) => ({
    value: d.id, label: `${d.name} · ${num(d.memory_gib, state.lang)} GB`, group: `${d.vendor} (${d.kind})`,
  })));
  const presets = $('context-presets');
  for (const [i, c] of CONTEXTS.entries()) {
    if (![4096, 8192, 32768, 131072].includes(c)) continue;
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = tokens(c, state.lang);
    b.addEventListener('click', () => { $('context').value = String(i); readForm(); update(true); });
    presets.append(b);
  }
  syncForm();
  const form = $('form');
  form.addEventListener('change', () => { readForm(); update(true); });
  $('context').addEventListener('input', () => { readForm(); update(false); });
  form.addEventListener('submit', (/** @type {Event} */ e) => e.preventDefault());
  $('lang').addEventListener('change', () => { state.lang = $('lang').value; applyStrings(state.lang); update(true); });
  $('theme').addEventListener('click', () => {
    const root = document.documentElement;
    root.dataset.theme = root.dataset.theme === 'dark' ? 'light' : 'dark';
  });
  window.addEventListener('popstate', () => { readUrl(); applyStrings(state.lang); syncForm(); update(false); });
  await update(false);
  document.body.dataset.ready = 'true';
}

init().catch(showError);
