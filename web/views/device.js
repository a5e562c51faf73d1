// @ts-check
// The device page: what the device is (from the catalog), how much of its memory a model may use
// and why (the core's usable-memory rule), and every catalog model ranked by what runs on it:
// the core's runs-on list (best format that runs at 8K, best first).
import { estimate, runsOn } from '../client.js';
import { deviceInfo, quants, request } from '../catalog.js';
import { fill, h, link, table, text } from '../dom.js';
import { gib, num, usd } from '../format.js';
import { ruleText, t } from '../i18n.js';
import { state, urlFor } from '../state.js';
import { spreadText } from './shared.js';
import { qualityText } from './main.js';
import { renderBuyInto } from './buy.js';
import { market } from './cost.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** @param {() => boolean} alive */
export async function renderDevice(alive) {
  const L = state.lang;
  const d = deviceInfo(state.hw);
  if (!d) {
    text('dp-title', T('unknown_hardware'));
    fill('dp-facts'); fill('dp-usable'); fill('dp-runs');
    return;
  }
  text('dp-title', T('dp_title', { 0: d.name }));
  const base = { ctx: 8192, kv: 'f16', par: 1, engine: 'llama.cpp', count: 1, hw: state.hw, ram: state.ram };
  let probe;
  try {
    probe = await estimate(request({ ...base, model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M' }));
  } catch (e) {
    if (alive()) fill('dp-usable', String(/** @type {any} */ (e).message || e));
    return;
  }
  if (!alive()) return;
  const facts = [
    [T('vendor'), d.vendor || '—'], [T('kind'), T(`kind_${d.kind}`)],
    [T('memory'), `${num(d.memory_gib, L)} GiB`], [T('bandwidth'), `${num(d.bandwidth_gbs, L)} GB/s`],
    [T('fp16'), d.fp16_tflops ? `${num(d.fp16_tflops, L, 1)} TFLOPS` : '—'],
    [T('backend'), probe.hardware.backend || '—'], [T('price'), d.price_usd ? usd(d.price_usd, L) : '—'],
  ];
  fill('dp-facts', h('dl', { class: 'facts spec' }, facts.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v)))));
  market().then((mk) => { if (alive()) renderBuyInto({ sec: 'dp-buy-sec', title: 'dp-buy-title', out: 'dp-buy' }, mk); });
  fill('dp-usable',
    h('p', { class: 'big' }, T('dp_usable', { usable: gib(probe.memory.usable_bytes, L), physical: gib(probe.memory.physical_bytes, L, 0) })),
    h('p', null, ruleText(L, probe.memory.usable_rule || '')),
    h('p', { class: 'note' }, T(d.kind === 'gpu' ? 'dp_usable_gpu' : d.kind === 'apple' ? 'dp_usable_apple' : 'dp_usable_other')));
  fill('dp-runs', h('p', { class: 'note' }, T('working')));
  // The list comes from the core in one call (runs_on.hpp): every catalog model at its best
  // quantization, sorted fits, offload (with RAM), no fit.
  let list;
  try {
    list = await runsOn(runsOnRequest(state.hw, state.ram));
  } catch (e) {
    if (alive()) fill('dp-runs', String(/** @type {any} */ (e).message || e));
    return;
  }
  if (!alive()) return;
  const ok = list.models.filter((/** @type {any} */ e) => e.tier !== 'no_fit');
  const not = list.models.filter((/** @type {any} */ e) => e.tier === 'no_fit');
  const hasSpeed = ok.some((/** @type {any} */ e) => e.speed);
  const head = [T('model'), T('params'), T('best_quant'), T('quality'), T('required'), T('verdict'), ...(hasSpeed ? [T('decode')] : [])];
  const mk = (/** @type {any} */ e) => {
    const m = e.model;
    const q = quants.find((x) => x.id === e.quant);
    const cells = [
      link(urlFor({ view: 'main', model: m.id, quant: e.quant, hw: state.hw, ctx: list.context, count: list.count, ram: list.ram_gib }), m.name),
      `${num(m.params_total_b, L, m.params_total_b < 10 ? 1 : 0)}B${m.params_active_b && m.params_active_b < m.params_total_b ? ` (${num(m.params_active_b, L, m.params_active_b < 10 ? 1 : 0)}B ${T('active')})` : ''}`,
      e.quant,
      q ? qualityText(q, L) : T('quality_unknown'),
      gib(e.memory.total_bytes, L, 1),
      // fits or tight as the estimate says; offload with the RAM it needs
      e.tier === 'offload' ? h('span', { class: 'tag offload', title: T('with_ram', { 0: num(list.ram_gib, L) }) }, `${T('short_offload')} · ${num(list.ram_gib, L)} GB RAM`) : h('span', { class: `tag ${e.verdict}` }, T(`short_${e.verdict}`)),
    ];
    if (hasSpeed) cells.push(e.speed ? spreadText({ v: e.speed.decode_tps, lo: e.speed.decode_tps_low, hi: e.speed.decode_tps_high }, L) : '—');
    return cells;
  };
  fill('dp-runs', table(T('dp_runs_caption', { 0: String(ok.length) }), head, ok.map(mk)),
    not.length ? h('details', { class: 'more' }, h('summary', null, T('dp_not', { 0: String(not.length) })), table(T('dp_not_caption'), head, not.map(mk))) : null,
    h('p', { class: 'note' }, T('dp_runs_note')));
}

/**
 * The runs-on request for a device and RAM at the device page's 8K context (also used by tests).
 * @param {string} hw @param {number} ram
 */
export function runsOnRequest(hw, ram) {
  /** @type {Record<string, any>} */
  const r = request({ hw, ram, ctx: 8192, kv: 'f16', par: 1, engine: 'llama.cpp', count: 1 });
  delete r.model;
  delete r.quant;
  return r;
}
