// @ts-check
// The device page: what the device is (from the catalog), how much of its memory a model may use
// and why (the core's usable-memory rule), and every catalog model ranked by what runs on it:
// the best format that fits at 8K, best first.
import { estimate } from '../client.js';
import { deviceInfo, models, request } from '../catalog.js';
import { fill, h, link, table, text } from '../dom.js';
import { gib, num, usd } from '../format.js';
import { t } from '../i18n.js';
import { state, urlFor } from '../state.js';
import { bestQuants, speedOf, spreadText } from './shared.js';
import { LADDER } from '../catalog.js';
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
    [T('memory'), `${num(d.memory_gib, L)} GB`], [T('bandwidth'), `${num(d.bandwidth_gbs, L)} GB/s`],
    [T('fp16'), d.fp16_tflops ? `${num(d.fp16_tflops, L, 1)} TFLOPS` : '—'],
    [T('backend'), probe.hardware.backend || '—'], [T('price'), d.price_usd ? usd(d.price_usd, L) : '—'],
  ];
  fill('dp-facts', h('dl', { class: 'facts spec' }, facts.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v)))));
  market().then((mk) => { if (alive()) renderBuyInto({ sec: 'dp-buy-sec', title: 'dp-buy-title', out: 'dp-buy' }, mk); });
  fill('dp-usable',
    h('p', { class: 'big' }, T('dp_usable', { usable: gib(probe.memory.usable_bytes, L), physical: gib(probe.memory.physical_bytes, L, 0) })),
    h('p', null, probe.memory.usable_rule || ''),
    h('p', { class: 'note' }, T(d.kind === 'gpu' ? 'dp_usable_gpu' : d.kind === 'apple' ? 'dp_usable_apple' : 'dp_usable_other')));
  fill('dp-runs', h('p', { class: 'note' }, T('working')));
  const ms = models.slice();
  const best = await bestQuants(ms.map((m) => ({ ...base, model: m.id })));
  if (!alive()) return;
  const rows = ms.map((m, i) => ({ m, b: best[i] }));
  const rank = (/** @type {any} */ e) => (e.b ? LADDER.indexOf(e.b.quant) : 99);
  rows.sort((a, b) => rank(a) - rank(b) || b.m.params_total_b - a.m.params_total_b);
  const hasSpeed = rows.some((e) => e.b && speedOf(e.b.r)?.decode);
  const head = [T('model'), T('params'), T('best_quant'), T('required'), T('verdict'), ...(hasSpeed ? [T('decode')] : [])];
  const mk = (/** @type {any} */ e) => {
    const sp = e.b && speedOf(e.b.r);
    const cells = [
      link(urlFor({ view: 'main', model: e.m.id, quant: e.b ? e.b.quant : 'Q4_K_M', hw: state.hw, ctx: 8192, count: 1 }), e.m.name),
      `${num(e.m.params_total_b, L, e.m.params_total_b < 10 ? 1 : 0)}B${e.m.params_active_b && e.m.params_active_b < e.m.params_total_b ? ` (${num(e.m.params_active_b, L)}B ${T('active')})` : ''}`,
      e.b ? e.b.quant : '—',
      e.b ? gib(e.b.r.memory.total_bytes, L, 1) : '—',
      e.b ? h('span', { class: `tag ${e.b.r.verdict}` }, T(`short_${e.b.r.verdict}`)) : h('span', { class: 'tag no_fit' }, T('short_no_fit')),
    ];
    if (hasSpeed) cells.push(sp && sp.decode ? spreadText(sp.decode, L) : '—');
    return cells;
  };
  const runs = rows.filter((e) => e.b);
  const not = rows.filter((e) => !e.b);
  fill('dp-runs', table(T('dp_runs_caption', { 0: String(runs.length) }), head, runs.map(mk)),
    not.length ? h('details', { class: 'more' }, h('summary', null, T('dp_not', { 0: String(not.length) })), table(T('dp_not_caption'), head, not.map(mk))) : null,
    h('p', { class: 'note' }, T('dp_runs_note')));
}
