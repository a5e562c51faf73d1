// @ts-check
// A model from the Hugging Face Hub on the page: the model box (or ?hf=owner/repo&file=…) takes a
// repo id, any Hub link or owner/repo:QUANT; web/hub.js reads the repo (the core says what), and
// this panel lists the repo's quants with their published file size and our memory, verdict and
// speed on the chosen hardware, the launch command for exactly that repo and file, and the
// revision the figures come from. Choosing a quant makes it the page's model, so everything else
// (picks, tiers, cost, share) works as for any model. Everything from the Hub goes in as text
// (dom.js h() / textContent), never as markup. What was read is kept in IndexedDB by repo and
// revision. An access token, if given, stays in this browser (localStorage) and goes only to the
// Hub's origin; one click forgets it.
import * as catalog from '../catalog.js';
import { call, many } from '../client.js';
import { commandTokens, h } from '../dom.js';
import { gb, gib, list, tps } from '../format.js';
import { hubBase, hubErrorKey, hubModels, modelFor } from '../hub.js';
import { aside, t } from '../i18n.js';
import { state } from '../state.js';
import * as store from '../store.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);
const TOKEN_KEY = 'willitfit.hf_token';

/** A catalog id or name stays the catalog's; anything shaped like a Hub reference goes to the Hub. @param {string} s */
export function isHubText(s) {
  const v = s.trim();
  if (!v) return false;
  if (catalog.searchItems().some((m) => m.id === v || m.name.toLowerCase() === v.toLowerCase())) return false;
  return /^(hf:|https?:\/\/|(www\.)?(huggingface\.co|hf\.co)\/)/i.test(v) || /^[\w.-]+\/[\w.-]+(:[\w.-]+)?$/.test(v);
}

// ---------------------------------------------------------------- the panel

/** @type {{useModel: (id: string) => void}} */
let hooks;
/** The lookup on screen: a newer one replaces it (and cancels it in the worker). @type {{aborted: boolean}|null} */
let running = null;
/** @type {any} */
let found = null;

/** @param {{useModel: (id: string) => void}} hk */
export function initHub(hk) {
  hooks = hk;
  const p = new URLSearchParams(location.search);
  const hf = p.get('hf');
  if (hf) openHub(hf, p.get('file') || undefined);
}

function panel() {
  let el = document.getElementById('hub-panel');
  if (!el) {
    el = h('section', { id: 'hub-panel', class: 'hub', 'aria-live': 'polite' });
    document.getElementById('model')?.closest('.field')?.after(el);
  }
  el.hidden = false;
  return el;
}

/** The plain message for a coded failure (hub.js hubErrorKey, shared with the widget). @param {any} e */
function message(e) {
  const { key, values, code } = hubErrorKey(e);
  const s = T(key, values);
  return s === key ? `${T('hub_err_other')} [${code}]` : s;
}

/**
 * Look up `text` on the Hub; a new call cancels the one before.
 * @param {string} text @param {string} [file]
 */
export async function openHub(text, file) {
  if (running) running.aborted = true;
  const ctl = { aborted: false };
  running = ctl;
  const el = panel();
  el.dataset.state = 'reading';
  el.replaceChildren(h('p', { class: 'note' }, T('hub_reading')));
  if (document.documentElement.dataset.offline === 'true') {
    el.dataset.state = 'error';
    el.dataset.code = 'hub_needs_network';
    el.replaceChildren(h('p', { class: 'warn' }, T('hub_err_hub_needs_network')));
    return;
  }
  let token = '';
  try { token = localStorage.getItem(TOKEN_KEY) || ''; } catch { /* storage off */ }
  try {
    // The worker reads the repo and keeps the headers parsed under handles (api.js hubLookup);
    // a newer lookup with the same id cancels this one there.
    const next = await call('hubLookup', text, { id: 'panel', base: hubBase(), token, timeoutMs: 20000, file });
    if (ctl.aborted) return;
    found = next;
    await render(el, ctl);
  } catch (e) {
    if (ctl.aborted) return;
    el.dataset.state = 'error';
    el.dataset.code = String(/** @type {any} */ (e).code || '');
    el.replaceChildren(h('p', { class: 'warn', id: 'hub-error' }, message(e)), tokenBox(el, text));
  }
}

/** @param {HTMLElement} el @param {{aborted: boolean}} ctl */
async function render(el, ctl) {
  const repo = found.repo;
  const fmt = repo.format;
  const rows = repo.quants;
  const reqs = rows.map((/** @type {any} */ row) => {
    const m = modelFor(found, row);
    if (!m) return null;
    /** @type {Record<string, any>} */
    const r = { ...catalog.request(), model: m, detail: 'summary', ...(fmt === 'safetensors' ? { engine: 'vllm' } : {}) };
    if (row.quant) r.quant = row.quant;   // else the person's choice, or the engine's default
    return r;
  });
  const answers = await many(reqs.filter(Boolean));
  if (ctl.aborted) return;
  let k = 0;
  const results = reqs.map((r) => (r ? answers[k++] : null));
  const revision = String(repo.revision).slice(0, 12);
  const when = new Date(found.readAt).toLocaleString(state.lang);
  const chosen = rows[repo.chosen];
  el.dataset.state = 'done';
  el.dataset.revision = repo.revision;
  el.dataset.cached = String(found.fromCache);
  el.replaceChildren(
    h('p', { class: 'badge', id: 'hub-badge' }, T('hub_badge', { 0: found.ref.repo, 1: revision }),
      found.fromCache ? ` ${T('hub_cached', { 0: when })}` : ''),
    h('div', { class: 'hub-scroll' }, h('table', { class: 'hub-quants', id: 'hub-quants' },
      h('thead', null, h('tr', null, h('th', null, T('quant')), h('th', null, T('hub_file_size')), h('th', null, T('required')),
        h('th', null, T('hub_fit')), h('th', null, T('hub_speed')), h('th', null, ''))),
      h('tbody', null, rows.map((/** @type {any} */ row, /** @type {number} */ i) => {
        const r = results[i];
        const ok = r && !r.error;
        return h('tr', { dataset: { label: row.label, verdict: ok ? r.verdict : '' }, class: i === repo.chosen ? 'chosen' : '' },
          h('td', { class: 'mono' }, row.label, row.split > 1 ? ` (${row.split})` : ''),
          // The file in GiB like the Required column beside it, with the GB Hugging Face lists it in.
          h('td', null, row.bytes ? aside(state.lang, gib(row.bytes, state.lang), gb(row.bytes, state.lang)) : '—'),
          h('td', null, ok ? gib(r.memory.total_bytes, state.lang) : '—'),
          h('td', null, ok ? T(`verdict_${r.verdict}`) : (r && r.error ? `[${r.error.code}]` : T('hub_not_read'))),
          h('td', null, ok && r.speed ? tps(r.speed.decode_tps, state.lang) : '—'),
          h('td', null, h('button', { type: 'button', class: 'small', on: { click: () => use(row) } }, ok ? T('use') : T('hub_read'))));
      })))),
    // replaceChildren writes null as text: absent parts are empty lists.
    ...(repo.mmproj.length ? [h('p', { class: 'note' }, T('hub_mmproj', { 0: list(repo.mmproj.map((/** @type {any} */ m) => m.path), state.lang) }))] : []),
    // The projector file the core read (hub_repo.hpp): its weights, or why it could not be read.
    ...(repo.projector ? [h('p', { class: 'note', id: 'hub-projector' }, T('hub_mmproj_read', { 0: repo.projector.path, 1: gib(repo.projector.tensor_bytes, state.lang) }))] : []),
    ...(repo.mmproj_error ? [h('p', { class: 'warn', id: 'hub-projector-error' }, T('hub_mmproj_bad', { 0: repo.mmproj[repo.mmproj_chosen ?? 0]?.path || '?', 1: mmprojReason(String(repo.mmproj_error.code)) }))] : []),
    h('p', null, T('hub_launch'), ' ', h('code', { id: 'hub-command', class: 'mono' }, chosen ? commandTokens(chosen.command) : '')),
    tokenBox(el, found.ref.repo));
}

/** Make a row the page's model (reading its own header first when the planner has no plan for it). @param {any} row */
async function use(row) {
  let m = modelFor(found, row);
  if (!m) { await openHub(`${found.ref.repo}:${row.label}`); row = found?.repo.quants[found.repo.chosen]; m = row && modelFor(found, row); }
  if (!m) return;
  if (row.quant) state.quant = row.quant;
  if (found.repo.format === 'safetensors') state.engine = 'vllm';
  const key = store.addSessionModel({ name: m.name || found.ref.repo, ...m });
  // What the "Embed this" dialog writes for it: the repo and quant, which the widget looks up itself.
  hubModels.set(key, { hf: found.ref.repo, quant: row.label });
  hooks.useModel(key);
}

/** Token field: kept in this browser only, sent to the Hub only, forgotten in one click. @param {HTMLElement} el @param {string} again */
function tokenBox(el, again) {
  let has = false;
  try { has = !!localStorage.getItem(TOKEN_KEY); } catch { /* storage off */ }
  const input = /** @type {HTMLInputElement} */ (h('input', { id: 'hub-token', type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: 'hf_…' }));
  return h('details', { class: 'hub-token', open: el.dataset.code === 'hub_gated' ? true : undefined },
    h('summary', null, T('hub_token')),
    h('p', { class: 'note' }, T('hub_token_note')),
    h('label', { for: 'hub-token', class: 'sr' }, T('hub_token')), input, ' ',
    h('button', { type: 'button', class: 'small', id: 'hub-token-save', on: { click: () => {
      try { localStorage.setItem(TOKEN_KEY, input.value.trim()); } catch { /* storage off */ }
      openHub(again);
    } } }, T('hub_token_save')), ' ',
    has ? h('button', { type: 'button', class: 'small', id: 'hub-token-forget', on: { click: () => {
      try { localStorage.removeItem(TOKEN_KEY); } catch { /* storage off */ }
      openHub(again);
    } } }, T('hub_token_forget')) : null);
}

/** Why a projector file could not be read, in the language's words (the Hub's or the reader's code). @param {string} code */
function mmprojReason(code) {
  const L = state.lang;
  for (const key of [`hub_err_${code}`, `err_${code}`]) {
    const s = t(L, key);
    if (s !== key) return s.replace(/[.。]$/, '');
  }
  return code;
}
