// @ts-check
// The device page: what the device is (from the catalog), how much of its memory a model may use
// and why (the core's usable-memory rule), and every catalog model ranked by what runs on it:
// the core's runs-on list (best format that runs at the default context, best first).
import { estimate, runsOn } from '../client.js';
import { deviceInfo, modelInfo, quants, request } from '../catalog.js';
import { fill, h, link, setText, text } from '../dom.js';
import { backendName, gbOf, gib, gibExact, list, num, signedPct, tokens, usd } from '../format.js';
import { aside, errorText, t } from '../i18n.js';
import { defaultOf, state, urlFor } from '../state.js';
import { devicePageName, paramsText, ruleFromCode, setPageMeta, shownName, spreadText, stackTable, uncertainFields, uncertainMark, uncertainWhy, vendorFigure } from './shared.js';
import { kindKey } from '../device-name.js';
import { renderBuyInto } from './buy.js';
import { engineName, qualityText } from './main.js';
import { market } from './cost.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);
const GiB = 1024 ** 3;
/** Engine ids as people write them. */

/**
 * A device page's tab title and meta description (og:title and og:description copy them), named
 * by the one rule (devicePageName): the app's title setter and the page draw the same words.
 * @param {any} d @param {string} L
 */
export function devicePageMeta(d, L) {
  const name = devicePageName(d, L);
  return { title: t(L, 'dp_doc_title', { device: name }), description: t(L, 'dp_doc_desc', { device: name, memory: gibExact(d.memory_gib * GiB, L) }) };
}

/** @param {() => boolean} alive */
export async function renderDevice(alive) {
  const L = state.lang;
  const d = deviceInfo(state.hw);
  if (!d) {
    text('dp-title', T('unknown_hardware'));
    fill('dp-facts'); fill('dp-usable'); fill('dp-runs');
    return;
  }
  // One rule for the device's name on its page (title, h1, og:title, description), live and prerendered.
  const name = devicePageName(d, L);
  // In a sentence, the name as other pages' sentences say it (no size beside it).
  const said = shownName(d, L);
  text('dp-title', T('dp_title', { 0: name }));
  text('dp-lead', '');
  const meta = devicePageMeta(d, L);
  setPageMeta(meta.title, meta.description);
  // The device's usable memory, read off an estimate of a small model at the core's defaults.
  const base = { ctx: defaultOf('ctx'), kv: defaultOf('kv'), par: defaultOf('par'), engine: defaultOf('engine'), count: defaultOf('count'), hw: state.hw, ram: state.ram };
  let probe;
  try {
    probe = await estimate(request({ ...base, model: 'Qwen/Qwen3-0.6B', quant: defaultOf('quant') }));
  } catch (e) {
    if (alive()) fill('dp-usable', errorText(state.lang, e));
    return;
  }
  if (!alive()) return;
  // A figure public sources do not settle carries a visible mark and says why (hardware.uncertain).
  const u = probe.hardware.uncertain;
  const marked = (/** @type {string} */ field, /** @type {string} */ v) => {
    const m = uncertainMark(u, field, L);
    const x = uncertainFields(u).find((f) => f.field === field);
    return m && x ? h('span', null, v, ' ', m, h('span', { class: 'unc-why', 'aria-hidden': 'true' }, ` ${uncertainWhy(x, L)}`)) : v;
  };
  // A size that is the vendor's own figure (the core's hardware.memory_basis): a mark beside it,
  // and what the driver may report under the usable memory below.
  const vf = vendorFigure(probe.hardware.memory_basis, probe.hardware.memory_gib * GiB, L);
  const basisMarked = (/** @type {any} */ v) => vf ? h('span', null, v, ' ', vf.mark) : v;
  const facts = [
    [T('vendor'), d.vendor || '—'], [T('kind'), T(kindKey(d))],
    // GiB, the unit of every memory figure here, to the hundredth where the catalog's size is not
    // whole (a driver-reported total); where the vendor sells it as another number of GB (B200:
    // 180 GB, 179 GiB), that figure beside it, named as the vendor's, so the name's "180 GB" and
    // this "179 GiB" read as one size in two units.
    [T('memory'), basisMarked(marked('memory_gib', typeof d.memory_sold_gb === 'number' && d.memory_sold_gb > 0
      ? aside(L, gibExact(d.memory_gib * GiB, L), T('sold_as', { 0: gbOf(d.memory_sold_gb, L) })) : gibExact(d.memory_gib * GiB, L)))], [T('bandwidth'), marked('bandwidth_gbs', `${num(d.bandwidth_gbs, L)}\u00a0${T('unit_gbs')}`)],
    [T('fp16'), marked('fp16_tflops', d.fp16_tflops ? `${num(d.fp16_tflops, L, 1)}\u00a0TFLOPS` : '—')],
    // The FP32 rate where the catalog states it (the rate a GPU without tensor cores computes at).
    ...(d.fp32_tflops ? [[T('fp32'), `${num(d.fp32_tflops, L, 1)}\u00a0TFLOPS`]] : []),
    [T('backend'), backendName(probe.hardware.backend)], [T('price'), d.price_usd ? usd(d.price_usd, L) : '—'],
    [T('engines'), engineList(probe.hardware.engines)],
  ];
  fill('dp-facts', h('dl', { class: 'facts spec' }, facts.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v)))),
    // Which speeds rest on those figures is said once the list below shows some (see below).
    uncertainFields(u).length ? h('p', { class: 'note unc-note', id: 'dp-uncertain' }, T('dp_unc_note_nospeed')) : null);
  market().then((mk) => { if (alive()) renderBuyInto({ sec: 'dp-buy-sec', title: 'dp-buy-title', out: 'dp-buy' }, mk); });
  fill('dp-usable',
    h('p', { class: 'big' }, T('dp_usable', { usable: gib(probe.memory.usable_bytes, L), physical: gibExact(probe.memory.physical_bytes, L) })),
    h('p', null, ruleFromCode(probe.memory.usable_rule_code, L, probe.hardware.device_type)),
    vf ? h('p', { class: 'note unc-note', id: 'dp-basis', dataset: { basis: 'vendor_figure' } }, vf.text) : null,
    h('p', { class: 'note' }, T(kindKey(d) === 'kind_gpu' ? 'dp_usable_gpu' : d.kind === 'gpu' ? 'dp_usable_accel' : d.kind === 'apple' ? 'dp_usable_apple' : 'dp_usable_other')));
  fill('dp-runs', h('p', { class: 'note', dataset: { pending: 'true' } }, T('working')));
  // The list comes from the core in one call (runs_on.hpp): every catalog model at its best
  // quantization, sorted fits, offload (with RAM), no fit.
  let list;
  try {
    list = await runsOn(runsOnRequest(state.hw, state.ram));
  } catch (e) {
    if (alive()) fill('dp-runs', errorText(L, e));
    return;
  }
  if (!alive()) return;
  text('dp-runs-title', T('what_runs', { ctx: tokens(list.context, L) }));
  if (list.engine_runs === false) {
    // llama.cpp has no backend for this device (the core's backends data): no figures at all.
    const others = (list.device.engines || []).filter((/** @type {string} */ x) => x !== 'llama.cpp');
    fill('dp-runs', h('p', { class: 'big', id: 'dp-no-engine' }, T('dp_no_engine', { device: said })),
      h('p', null, others.length ? T('dp_no_engine_others', { 0: engineList(others) }) : T('dp_no_engine_none')));
    return;
  }
  // llama.cpp does not run here but a server engine does: the list is that engine's (the core's
  // runs_on `engine`), each model as its publisher's checkpoint; the page says so above the table.
  const server = list.engine && list.engine !== 'llama.cpp' ? list.engine : '';
  const engineOver = server ? { engine: server, quant: '' } : {};
  const ok = list.models.filter((/** @type {any} */ e) => e.tier === 'fits' || e.tier === 'offload');
  const below = list.models.filter((/** @type {any} */ e) => e.tier === 'no_fit' && e.below_floor);
  const not = list.models.filter((/** @type {any} */ e) => e.tier === 'no_fit' && !e.below_floor);
  const hasSpeed = ok.some((/** @type {any} */ e) => e.speed);
  // The uncertain figures' note names the speeds below only where the core gave some.
  const unc = document.getElementById('dp-uncertain');
  if (unc && hasSpeed) setText(unc, T('dp_unc_note'));
  const head = [T('model'), T('params'), T('best_quant'), T('quality'), T('required'), T('verdict'), ...(hasSpeed ? [T('decode')] : [])];
  const mk = (/** @type {any} */ e) => {
    const m = e.model;
    const cells = [
      link(urlFor({ view: 'main', model: m.id, quant: e.quant, hw: state.hw, ctx: list.context, count: list.count, ram: list.ram_gib, ...engineOver }), m.name),
      // The counts the estimate computes (the core's params_total/params_active), the model page's
      // figures; the active count beside it for a mixture of experts (the core's topology_code).
      modelInfo(m.id)?.topology_code?.ffn === 'moe' ? aside(L, paramsText(m.params_total, L), `${paramsText(m.params_active, L)}${L === 'zh' ? '' : ' '}${T('active')}`) : paramsText(m.params_total, L),
      e.quant,
      qualityCell(e),
      gib(e.memory.total_bytes, L, 1),
      // fits or tight as the estimate says; offload with the RAM it needs
      e.tier === 'offload' ? h('span', { class: 'tag offload', title: T('with_ram', { 0: gib(list.ram_gib * GiB, L, 0) }) }, `${T('short_offload')} · ${gib(list.ram_gib * GiB, L, 0)} RAM`) : h('span', { class: `tag ${e.verdict}` }, T(`short_${e.verdict}`)),
    ];
    if (hasSpeed) cells.push(e.speed ? spreadText({ v: e.speed.decode_tps, lo: e.speed.decode_tps_low, hi: e.speed.decode_tps_high }, L) : '—');
    return cells;
  };
  const rowProps = (/** @type {any[]} */ l) => (/** @type {number} */ k) => ({ dataset: { model: l[k].model.id, quant: l[k].quant, tier: l[k].tier } });
  // Below a floor: what it would run as, and what it would need instead (the core's codes).
  const headBelow = [T('model'), T('params'), T('dp_would_run'), T('verdict'), T('dp_needs')];
  const mkBelow = (/** @type {any} */ e) => [
    link(urlFor({ view: 'main', model: e.model.id, quant: e.quant, hw: state.hw, ctx: list.context, count: list.count, ram: list.ram_gib, ...engineOver }), e.model.name),
    paramsText(e.model.params_total, L),
    h('span', null, `${e.quant} · `, qualityCell(e), e.speed ? ` · ${spreadText({ v: e.speed.decode_tps, lo: e.speed.decode_tps_low, hi: e.speed.decode_tps_high }, L)}` : ''),
    T(e.below_floor === 'speed' ? 'dp_below_speed' : 'dp_below_quality'),
    h('span', null, (e.needs || []).map((/** @type {any} */ n, /** @type {number} */ i) => h('span', { class: 'need', dataset: { code: n.code } }, i ? '; ' : '', needText(n)))),
  ];
  const floors = list.floors || {};
  // The answer first: how many run, and the first of them (the core's order: best first).
  const top = ok[0];
  text('dp-lead', top ? T('dp_lead', { n: num(ok.length, L), model: top.model.name, quant: top.quant,
    speed: top.speed ? spreadText({ v: top.speed.decode_tps, lo: top.speed.decode_tps_low, hi: top.speed.decode_tps_high }, L) : '—' })
    : T('dp_lead_none'));
  // A long list shows its first rows and folds the rest.
  const SHOW = 12;
  const runsTable = stackTable(T('dp_runs_caption', { 0: String(ok.length) }), head, ok.slice(0, ok.length > SHOW + 3 ? SHOW : ok.length).map(mk), { id: 'dp-runs-table', numeric: [4, 6], rowProps: rowProps(ok) });
  const rest = ok.length > SHOW + 3 ? ok.slice(SHOW) : [];
  fill('dp-runs', server ? h('p', { class: 'note', id: 'dp-engine-server', dataset: { engine: server } },
    T('dp_engine_server', { device: said, engine: engineName(server) })) : null, runsTable,
    rest.length ? h('details', { class: 'more', id: 'dp-runs-more' }, h('summary', null, T('show_all_rows', { 0: num(ok.length, L) })),
      stackTable('', head, rest.map(mk), { id: 'dp-runs-rest', numeric: [4, 6], rowProps: (k) => rowProps(rest)(k) })) : null,
    h('p', { class: 'note', id: 'dp-floor-note' }, T('dp_floor_note', { quality: T(`band_${floors.min_quality}`), tps: `${num(floors.min_decode_tps, L, 1)}\u00a0tok/s` })),
    below.length ? h('details', { class: 'more', open: true }, h('summary', null, T('dp_below', { 0: String(below.length) })),
      stackTable(T('dp_below_caption'), headBelow, below.map(mkBelow), { id: 'dp-below-table', rowProps: rowProps(below) })) : null,
    not.length ? h('details', { class: 'more' }, h('summary', null, T('dp_not', { 0: String(not.length) })), stackTable(T('dp_not_caption'), head, not.map(mk), { numeric: [4, 6], rowProps: rowProps(not) })) : null,
    h('p', { class: 'note' }, server ? T('dp_runs_note_server', { ctx: tokens(list.context, L), engine: engineName(server) })
      : T('dp_runs_note', { ctx: tokens(defaultOf('ctx'), L), kv: defaultOf('kv') })));
}

/**
 * The format's quality in the same words as the model × device view's matrix ("near lossless
 * (+0.35 % PPL)", the core's band from data/quants.json); the runs-on class (high / reduced) only
 * when the format has no band.
 * @param {any} e
 */
function qualityCell(e) {
  const L = state.lang;
  const listed = quants.find((x) => x.id === e.quant);
  if (listed && listed.quality && listed.quality.band && listed.quality.band !== 'unknown' && typeof (e.ppl_delta_pct ?? listed.ppl_delta_pct) === 'number')
    return qualityText({ ...listed, quality: { ...listed.quality, ppl_delta_pct: e.ppl_delta_pct ?? listed.ppl_delta_pct } }, L);
  const band = T(`band_${e.quality || 'unknown'}`);
  const q = quants.find((x) => x.id === e.quant);
  const d = typeof e.ppl_delta_pct === 'number' ? e.ppl_delta_pct : q?.ppl_delta_pct;
  return typeof d === 'number' ? aside(L, band, `${signedPct(d, L, d < 1 ? 2 : 1)}\u00a0PPL`) : band;
}

/** One of the core's `needs` codes in words. @param {any} n */
function needText(n) {
  const L = state.lang;
  if (n.code === 'more_memory') return T('need_more_memory', { need: gib(n.memory_bytes, L), quant: n.quant, usable: gib(n.usable_bytes, L) });
  // The floor holds on the low end of the core's range (decode_tps_low): the sentence names it.
  if (n.code === 'faster_device') return T('need_faster', { tps: `${num(n.decode_tps, L, 1)}\u00a0tok/s`, low: `${num(n.decode_tps_low ?? n.decode_tps, L, 1)}\u00a0tok/s`, min: `${num(n.min_decode_tps, L, 1)}\u00a0tok/s` });
  return n.code;
}

/** @param {string[] | undefined} engines */
function engineList(engines) {
  return engines && engines.length ? list(engines.map((e) => engineName(e)), state.lang) : T('engines_none');
}

/**
 * The runs-on request for a device and RAM at the core's default context (also used by tests).
 * @param {string} hw @param {number} ram
 */
export function runsOnRequest(hw, ram) {
  /** @type {Record<string, any>} */
  const r = request({ hw, ram, ctx: defaultOf('ctx'), kv: defaultOf('kv'), par: defaultOf('par'), engine: defaultOf('engine'), count: defaultOf('count') });
  delete r.model;
  delete r.quant;
  return r;
}
