// @ts-check
// A Mac runs both llama.cpp and MLX: the two side by side for the result's model, context and
// device, each with its format of like size (the core's engine_compare). Every figure is one of
// the two estimates the core returns for them (one estimate_many call); nothing is computed here.
import { many } from '../client.js';
import { defaults, request } from '../catalog.js';
import { byId, fill, h, link, table } from '../dom.js';
import { gib, num, tokens } from '../format.js';
import { gap, t } from '../i18n.js';
import { state, urlFor } from '../state.js';
import { speedOf, spreadText } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** @param {any} r @returns {any} the result's engine_compare when it has one */
const compareOf = (r) => {
  const ec = r && r.engine_compare;
  return ec && ec.quants && Array.isArray(ec.engines) ? ec : null;
};

/** The setup a drawn table is of: its two requests and the page's language. @param {any} ec */
const setupKey = (ec) => JSON.stringify([state.lang, ...ec.engines.map((/** @type {string} */ e) => request(over(ec, e)))]);

/**
 * One column's request: the engine, its format of like size, and the options the core says that
 * engine is estimated with instead of the page's (request_overrides: MTP off where it does not draft).
 * @param {any} ec @param {string} e
 */
const over = (ec, e) => ({ ...(ec.request_overrides && ec.request_overrides[e]) || {}, engine: e, quant: ec.quants[e] });

/**
 * Drawn with the one estimate (renderMain): the section is shown at once, marked pending, when the
 * result has an engine_compare, and hidden when it has none. The table itself waits for two more
 * estimates (renderEngines); until then the section says it is working, so a reader (or a capture
 * that waits for no pending section) never sees the page as finished without it.
 * @param {any} r the result on screen
 */
export function announceEngines(r) {
  const box = byId('plug-engines');
  const ec = compareOf(r);
  if (!ec) { box.hidden = true; delete box.dataset.setup; fill('engines-table'); fill('engines-note'); return; }
  // The table on screen is already this setup's (a prerendered page the app takes over): it stays
  // until renderEngines redraws it, rather than shrink to "working" and grow back.
  if (!box.hidden && box.dataset.setup === setupKey(ec)) return;
  delete box.dataset.setup;
  fill('engines-table', h('p', { class: 'note', 'data-pending': 'true' }, T('working')));
  fill('engines-note');
  box.hidden = false;
}

/**
 * The side-by-side section, or nothing (hidden) when the result has no engine_compare.
 * @param {any} r the result on screen @param {() => boolean} alive
 */
export async function renderEngines(r, alive) {
  const box = byId('plug-engines');
  const ec = compareOf(r);
  if (!ec) { box.hidden = true; delete box.dataset.setup; fill('engines-table'); return; }
  /** @type {string[]} */
  const ids = ec.engines;
  /** @type {any[]} */
  let rs;
  try {
    rs = await many(ids.map((e) => request(over(ec, e))));
  } catch {
    rs = ids.map(() => null);   // each column says it has no estimate; the section stops working
  }
  if (!alive()) return;
  const L = state.lang;
  const name = (/** @type {string} */ e) => String(defaults?.engines?.[e]?.name ?? e);
  /** @param {(x: any, e: string) => any} f */
  const cells = (f) => rs.map((x, i) => (x && !x.error ? f(x, ids[i]) : T('engines_failed')));
  const label = (/** @type {any} */ x) => {
    const l = x.speed && x.speed.decode_label;
    return l ? T(`engines_label_${l}`) : '';
  };
  const rows = [
    [T('format'), ...cells((x, e) => link(urlFor({ engine: e, quant: x.quant.id }), x.quant.id))],
    [T('bpw'), ...cells((x) => num(x.quant.bits_per_weight, L, 2))],
    [T('weights'), ...cells((x) => gib(x.memory.weights_bytes, L))],
    [T('kv_cache'), ...cells((x) => gib(x.memory.kv_cache_bytes, L))],
    [T('required'), ...cells((x) => gib(x.memory.total_bytes, L))],
    [T('verdict'), ...cells((x) => h('span', { class: `tag ${x.verdict}` }, T(`short_${x.verdict}`)))],
    [T('decode'), ...cells((x) => { const s = speedOf(x); return s && s.decode ? spreadText(s.decode, L) : '—'; })],
    [T('prefill'), ...cells((x) => { const s = speedOf(x); return s && s.prefill ? spreadText(s.prefill, L) : '—'; })],
    [T('engines_basis'), ...cells((x) => label(x) || '—')],
  ];
  fill('engines-table', table(T('engines_caption', { ctx: tokens(r.settings.context_requested, L) }),
    [T('engines_col'), ...ids.map(name)], rows, { class: 'data engines' }));
  const mlx = rs[ids.indexOf('mlx')];
  const warn = mlx && !mlx.error && mlx.mlx && mlx.mlx.slow_warning;
  const withoutMtp = ids.filter((e) => over(ec, e).mtp === false);
  fill('engines-note', T('engines_note'), warn ? [gap(state.lang), T('engines_slow_warning')] : null,
    ...withoutMtp.map((e) => [gap(state.lang), T('engines_note_mtp', { engine: name(e) })]));
  box.hidden = false;
  if (rs.every((x) => x && !x.error)) box.dataset.setup = setupKey(ec); else delete box.dataset.setup;
}
