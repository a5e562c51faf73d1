// @ts-check
// The main view's sections that come from the core's solvers (core/include/willitfit/questions/solve.hpp):
// "Make it fit" (one make_it_fit call: each single change with memory saved, new total, speed
// before → after and quality cost) and "Hardware picks" (one picks call: four cards). The page
// only renders; every figure and the ranking come from the core.
import { solve } from '../client.js';
import { defaults, request } from '../catalog.js';
import { basisMark, kindWords, shownName } from './shared.js';
import { byId, fill, h, link, setText } from '../dom.js';
import { gib, list as joinList, num, signed, times, tokens, tps, usd } from '../format.js';
import { aside, dots, gap, sentence, sentences, t } from '../i18n.js';
import { state, urlFor } from '../state.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** The page state a change maps to (for a link that applies it), or null. @param {any} it */
function stateOf(it) {
  const v = it.change.value;
  switch (it.change.field) {
    case 'context': return { ctx: v };
    case 'kv_type': return { kv: v };
    case 'quant': return { quant: v };
    case 'count': return { count: v };
    case 'parallel': return { par: v };
    case 'n_cpu_moe': case 'ngl': return { ram: it.request.ram_gib };
    default: return null;
  }
}

/**
 * One change in words, naming the device by its kind (shared.js kindWords of the estimate).
 * @param {any} it @param {string} L @param {Record<string, string>} kw
 */
function changeText(it, L, kw) {
  const v = it.change.value;
  switch (it.change.field) {
    case 'context': return T('fix_context', { ctx: tokens(v, L) });
    case 'kv_type': return T('fix_kv', { t: String(v) });
    case 'flash_attn': return T('fix_fa');
    case 'quant': return T('fix_quant', { q: String(v) });
    case 'n_cpu_moe': return T('fix_cpu_moe', { n: num(v, L), ram: gib(it.request.ram_gib * 1024 ** 3, L, 0) });
    case 'ngl': return T('fix_ngl', { ...kw, n: num(v, L), ram: gib(it.request.ram_gib * 1024 ** 3, L, 0) });
    case 'parallel': return T('fix_parallel', { n: num(v, L) });
    case 'count': return it.extra_price_usd > 0 ? T('fix_count_price', { n: num(v, L), price: usd(it.extra_price_usd, L) }) : T('fix_count', { n: num(v, L) });
    default: return `${it.change.field} = ${v}`;
  }
}

/**
 * The figures of one change, what it achieves first (the core's `outcome`: runs, runs with part
 * in system RAM, or still too slow to use), then what the setup does now (the core's
 * `state_now` and `decode_tps_now`; `speed_code` when the speed reads the same), then memory
 * saved, the new total, the verdict and the quality cost.
 * @param {any} it @param {number} now @param {string} L @param {any} res the make_it_fit answer
 */
function detailText(it, now, L, res) {
  const parts = [];
  if (it.decode_tps_after > 0) parts.push(T(`fix_outcome_${it.outcome}`, { tps: tps(it.decode_tps_after, L), floor: tps(res.min_decode_tps, L) }));
  parts.push(it.speed_code === 'unchanged_as_shown' ? T('fix_now_same')
    : now > 0 ? T('fix_now_tps', { 0: tps(now, L) }) : T(res.state_now === 'runs_offloaded' ? 'fit_now_offloaded' : 'fit_now_none'));
  if (it.saved_bytes > 0) parts.push(T('fix_saved', { 0: gib(it.saved_bytes, L) }));
  parts.push(T('fix_total', { total: gib(it.total_bytes, L), usable: gib(it.usable_bytes, L) }));
  parts.push(T(`short_${it.verdict}`));
  if (typeof it.ppl_delta_pct === 'number') parts.push(T('fix_quality', { 0: signed(it.ppl_delta_pct, L, it.ppl_delta_pct < 1 ? 2 : 1) }));
  return dots(L, parts);
}

/** What the line under the verdict was drawn for: the request and the language. */
export const fixKey = () => `${state.lang} ${JSON.stringify(request())}`;

/**
 * "Make it fit": the core's ranked list of single changes for the current request.
 * @param {any} r the current estimate @param {() => boolean} alive
 */
export async function renderMakeItFit(r, alive) {
  const L = state.lang;
  let res;
  try {
    res = await solve({ ...request(), solve: 'make_it_fit' });
  } catch {
    res = null;  // e.g. vLLM (make_it_fit plans llama.cpp settings): say nothing rather than guess
  }
  if (!alive()) return;
  // The line under the verdict is this request's (renderMain keeps it while the request is the
  // same: a prerendered page taken over keeps its box, with no shift); put away here and shown
  // again below in the same task where it applies, so nothing moves in between.
  const fix = byId('verdict-fix');
  fix.hidden = true;
  fix.dataset.for = fixKey();
  // A setup that already fits has nothing to change: the section is not shown (the verdict above
  // says it fits), rather than a heading over "nothing to change".
  const fits = r.verdict === 'fits' || r.verdict === 'tight';
  const nothing = res ? !!res.already_fits : fits;
  byId('fit-title').hidden = nothing;
  byId('fit-list').hidden = nothing;
  if (nothing) { fill('fit-list'); return; }
  // A server engine: make_it_fit plans llama.cpp settings.
  if (!res) { fill('fit-list', r.settings && r.settings.engine !== 'llama.cpp' ? h('li', null, T(r.settings.engine === 'mlx' ? 'fit_mlx' : 'fit_server', kindWords(r, L))) : null); return; }
  const items = res.items;
  // More cards than a machine of the card's segment holds are not offered (the core's count_caps).
  const caps = (res.count_caps || []).map((/** @type {import('../willitfit').CountCap} */ c) =>
    h('li', { class: 'note', 'data-cap': c.segment }, T(`fit_cap_${c.segment}`, { n: num(c.segment_max_count, L) })));
  // No change on this device runs it at the speed floor (the core's on_device code): the smallest
  // device that does, as one more entry of the list (its figures from the core's smallest_device).
  const dev = res.on_device === 'nothing_runs' && res.smallest_device ? res.smallest_device : null;
  const devItem = dev ? h('li', { class: 'fix', 'data-field': 'device', 'data-too-slow': '0', dataset: { device: dev.id } },
    // A comfortable fit is named as one: the core passes a smaller device the request only just
    // fits (tight) when a larger one holds it with room to spare (solve_hardware.cpp).
    link(urlFor({ hw: dev.id, count: dev.count, ram: 0 }), T(dev.verdict === 'fits' ? 'fix_device_fits' : 'fix_device', { dev: deviceText(dev, L) })),
    // Its size marked where it is the vendor's figure (the core's memory_basis; the verdict is judged on its low end).
    ...(basisMark(dev, L) ? [' ', basisMark(dev, L)] : []), h('br'),
    // What it achieves first, as for a change (the core's smallest_device holds it whole at the floor).
    h('span', { class: 'note' }, dots(L, [...(dev.decode_tps > 0 ? [T('fix_outcome_runs', { tps: tps(dev.decode_tps, L) })] : []),
      T('fix_total', { total: gib(dev.total_bytes, L), usable: gib(dev.usable_bytes, L) }), T(`short_${dev.verdict}`)]))) : null;
  // A setup that does not run: the core's first usable change goes under the verdict too, where
  // the person is looking, with a link to the whole list (a change below the speed floor is no fix).
  const first = items.find((/** @type {any} */ it) => !it.below_speed_floor);
  const toAll = () => h('a', { href: '#diag-section', on: { click: (/** @type {Event} */ e) => { e.preventDefault(); byId('diag-section').scrollIntoView(); } } }, T('fit_all'));
  if (r.verdict === 'no_fit' && first) {
    const s0 = stateOf(first);
    const el = fill('verdict-fix', `${T('fit_first')}${gap(L)}`, s0 ? link(urlFor(s0), changeText(first, L, kindWords(r, L))) : h('strong', null, changeText(first, L, kindWords(r, L))),
      sentence(L, aside(L, '', detailText(first, res.decode_tps_now, L, res))) + gap(L), toAll());
    el.hidden = false;
  } else if (r.verdict === 'no_fit' && (items.length || dev)) {
    // Nothing on this device is usable: said here once; the list under "Make it fit" offers the
    // smallest device that runs it when the core found one.
    const el = fill('verdict-fix', `${T(dev ? 'fit_nothing_here' : 'fit_only_slow', { 0: tps(res.min_decode_tps, L), hw: shownName(r.hardware, L) })}${gap(L)}`, toAll());
    el.hidden = false;
  }
  if (!items.length) { fill('fit-list', dev ? null : h('li', null, T('fit_none')), devItem, ...caps); return; }
  fill('fit-list', ...items.map((/** @type {any} */ it) => {
    const s = stateOf(it);
    const label = changeText(it, L, kindWords(r, L));
    return h('li', { class: it.below_speed_floor ? 'fix too-slow' : 'fix', 'data-field': it.change.field, 'data-too-slow': it.below_speed_floor ? '1' : '0' },
      s ? link(urlFor(s), label) : h('strong', null, label), h('br'), h('span', { class: 'note' }, detailText(it, res.decode_tps_now, L, res)));
  }), devItem, ...caps);
}

/** A device of the core's answer as the page names it, with its count. @param {any} d @param {string} L */
function deviceText(d, L) {
  return `${d.count > 1 ? `${times(d.count, L)} ` : ''}${shownName(d, L)}`;
}

/** An engine id in the engine's own spelling (the core's defaults: engines[id].name). @param {string} [id] */
const engineName = (id) => String((id && defaults?.engines?.[id]?.name) ?? id ?? '');

/**
 * Why a card has no answer, from the core's `missing` code and figures, without the weights
 * figure (the line says it once for every card). @param {string} key @param {any} m @param {string} L
 */
function missText(key, m, L) {
  if (!m || !m.code) return sentence(L, T(`pick_none_${key}`));
  return sentence(L, T(`pick_why_${m.code}`, { largest: gib((m.largest_memory_gib || 0) * 1024 ** 3, L, 0), engine: engineName(m.engine),
    name: m.name ? `${m.count > 1 ? `${times(m.count, L)} ` : ''}${shownName({ id: m.id, name: m.name }, L)}` : '', tps: tps(m.decode_tps || 0, L), low: tps(m.decode_tps_low ?? m.decode_tps ?? 0, L), floor: tps(m.min_decode_tps || 0, L) }));
}

/**
 * "Your device already runs it": the core's run_state of the person's own setup ("runs": fits or
 * tight at the speed floor of the picks) with its verdict and decode speed; the picks then fold under it as other hardware, not as advice to buy.
 * @param {any} r the current estimate @param {string} L
 */
function ownRuns(r, L) {
  const own = byId('picks-own');
  // The core's run_state: fully on the device at the floor of "runs" (not below it, not offloaded).
  const runs = !!r && r.run_state === 'runs';
  const cards = byId('picks-cards'), caps = byId('picks-caps'), missing = byId('picks-missing');
  let fold = document.getElementById('picks-fold');
  if (runs) {
    const count = r.hardware?.count > 1 ? `${times(r.hardware.count, L)} ` : '';
    const speed = r.speed && r.speed.decode_tps > 0 ? tps(r.speed.decode_tps, L) : '';
    setText(own, T(speed ? 'picks_own_runs_tps' : 'picks_own_runs', { hw: `${count}${shownName(r.hardware, L)}`, verdict: T(`short_${r.verdict}`), tps: speed }));
    own.hidden = false;
    if (!fold) {
      fold = h('details', { class: 'more', id: 'picks-fold' }, h('summary', { id: 'picks-fold-summary' }, ''));
      own.after(fold);
    }
    setText(byId('picks-fold-summary'), T('picks_others'));
    fold.append(missing, cards, caps);
  } else {
    own.hidden = true;
    setText(own, '');
    if (fold) { fold.before(missing, cards, caps); fold.remove(); }
  }
}

/** One card of the picks. @param {string} key @param {any} p @param {string} L @param {any} [missing] */
function card(key, p, L, missing) {
  // The engine runs on no rented GPU (MLX): the reason once, and the core's nearest answer, the
  // cheapest offer for the same model with llama.cpp at the GGUF type of the same quality.
  const alt = !p && missing?.code === 'engine_not_on_cloud' ? missing.alternative : null;
  if (alt) {
    const named = `${alt.gpu_count > 1 ? `${times(alt.gpu_count, L)} ` : ''}${shownName({ ...alt, id: alt.device }, L)}`;
    return h('div', { class: 'card pick', 'data-pick': key, 'data-id': alt.device, dataset: { missing: missing.code, engine: alt.engine } },
      h('div', { class: 'k' }, T(`pick_${key}`)),
      h('div', { class: 'v' }, dots(L, [alt.provider, alt.price_basis ? aside(L, named, T(`cloud_basis_${alt.price_basis}`)) : named])),
      h('div', { class: 's' }, dots(L, [T('pick_per_hour', { 0: usd(alt.price_hour_usd, L, 2) }), tps(alt.decode_tps, L), T(`short_${alt.verdict}`)])),
      h('div', { class: 's note' }, T('pick_cloud_other', { engine: engineName(missing.engine), other: engineName(alt.engine), quant: String(alt.quant) })));
  }
  if (!p) return h('div', { class: 'card pick', 'data-pick': key }, h('div', { class: 'k' }, T(`pick_${key}`)), h('div', { class: 's', dataset: { missing: missing?.code || '' } }, missText(key, missing, L)));
  const cloud = key === 'cheapest_cloud';
  const dev = shownName(cloud ? { ...p, id: p.device } : p, L);
  const named = `${p.count > 1 ? `${times(p.count, L)} ` : ''}${dev}`;
  const name = cloud ? dots(L, [p.provider, p.price_basis ? aside(L, named, T(`cloud_basis_${p.price_basis}`)) : named]) : named;
  const price = cloud ? T('pick_per_hour', { 0: usd(p.price_usd, L, 2) }) : aside(L, usd(p.price_usd, L), T(`price_${p.price_kind}`));
  const why = p.why.code === 'lowest_price_per_tps' ? T('why_value', { 0: usd(p.why.usd_per_tps, L, 0) })
    : p.why.code === 'cheapest_unified' ? T('why_unified', { 0: gib(p.why.memory_gib * 1024 ** 3, L, 0) })
    : p.why.code === 'cheapest_cloud_offer' ? T('why_cloud') : T('why_fastest');
  return h('div', { class: 'card pick', 'data-pick': key, 'data-id': cloud ? p.device : p.id },
    h('div', { class: 'k' }, T(`pick_${key}`)),
    h('div', { class: 'v' }, cloud ? name : link(urlFor({ hw: p.id, count: p.count, ram: 0 }), name)),
    h('div', { class: 's' }, dots(L, [price, tps(p.decode_tps, L), T(`short_${p.verdict}`)])),
    h('div', { class: 's note' }, why),
    cloud && p.tight_cheaper ? tightCheaper(p.tight_cheaper, L) : null);
}

/** The core's cheaper cloud offer that holds the model only tight, named under the cheapest with room. @param {any} tc @param {string} L */
function tightCheaper(tc, L) {
  const named = `${tc.gpu_count > 1 ? `${times(tc.gpu_count, L)} ` : ''}${shownName({ ...tc, id: tc.device }, L)}`;
  return h('div', { class: 's note', dataset: { tightCheaper: tc.id } },
    T('pick_cloud_tight_cheaper', { offer: dots(L, [tc.provider, named]), price: T('pick_per_hour', { 0: usd(tc.price_hour_usd, L, 2) }) }));
}

/**
 * "Hardware picks": four cards from the core's picks solver for the current model, quant and
 * context (the chosen hardware does not matter, so it is left out and the answer is reused).
 * @param {any} r @param {() => boolean} alive
 */
export async function renderPicks(r, alive) {
  const L = state.lang;
  const q = /** @type {Record<string, any>} */ ({ ...request(), solve: 'picks' });
  delete q.hardware; delete q.count; delete q.ram_gib;
  let res = null;
  try { res = await solve(q); } catch { res = null; }
  if (!alive()) return;
  setText(byId('picks-title'), T('picks_title', { model: r.model.name, quant: r.quant.id, ctx: tokens(state.ctx, L) }));
  // No answer is not "nothing qualifies": say the picks could not be worked out for this engine.
  if (!res) { byId('picks-missing').hidden = true; ownRuns(r, L); fill('picks-cards', h('p', { class: 'note', id: 'picks-failed' }, r.settings && r.settings.engine !== 'llama.cpp' ? T('pick_failed_server', { 0: engineName(r.settings.engine) }) : T('pick_failed'))); return; }
  const keys = ['best_single_gpu', 'best_value', 'unified_memory', 'cheapest_cloud'];
  // A card nothing qualifies for is not drawn as if it had an answer: the cards with one, and
  // the others' reasons in one line under them, the weights figure they share said once (the
  // core's `missing`: a code per card, all with the same weights on one device).
  const empty = keys.filter((k) => !res[k] && !(res.missing?.[k]?.code === 'engine_not_on_cloud' && res.missing[k].alternative));
  fill('picks-cards', ...keys.filter((k) => !empty.includes(k)).map((k) => card(k, res[k], L, res.missing?.[k])));
  const missNote = byId('picks-missing');
  const miss = empty.map((k) => ({ k, m: res.missing?.[k] }));
  const withWeights = miss.find((x) => x.m && x.m.code && x.m.code !== 'below_speed_floor' && x.m.weights_bytes > 0);
  fill('picks-missing', withWeights ? `${T(withWeights.m.weights_devices === 1 ? 'picks_weights_once1' : 'picks_weights_once', { weights: gib(withWeights.m.weights_bytes, L, 1) })}${gap(L)}` : null,
    ...miss.map(({ k, m }, i) => h('span', { dataset: { pick: k, missing: m?.code || '' } }, h('strong', null, T('pick_label', { 0: T(`pick_${k}`) })), gap(L), missText(k, m, L), i < miss.length - 1 ? gap(L) : null)));
  missNote.hidden = !miss.length;
  // The person's own hardware already runs it: said first, and the picks (other hardware to buy)
  // folded away under it, not offered as advice.
  ownRuns(r, L);
  // How many cards of a kind a configuration may use (the core's count_caps, data/segments.json).
  const caps = /** @type {import('../willitfit').CountCap[]} */ (res.count_caps || []);
  const capNote = byId('picks-caps');
  // Devices the engine does not run on are left out (the core's engine_left_out, by kind).
  // A kind whose card already says the engine runs on none of them is not named again.
  const said = [res.missing?.best_single_gpu?.code === 'engine_not_on_gpu' ? ['gpu'] : [],
    res.missing?.unified_memory?.code === 'engine_not_on_unified' ? ['apple', 'unified'] : []].flat();
  const left = (res.engine_left_out?.kinds || []).filter((/** @type {any} */ k) => k.devices > 0 && !said.includes(k.kind));
  const leftText = left.length ? T('picks_left_out', { engine: engineName(res.engine_left_out.engine), 0: joinList(left.map((/** @type {any} */ k) => T(`kind_plural_${k.kind}`)), L) }) : '';
  // Card counts mean nothing where the engine runs on no card (MLX: one Mac).
  const capText = caps.length && !said.includes('gpu') ? T('picks_caps', { 0: joinList(caps.map((c) => T(`cap_short_${c.segment}`, { n: num(c.segment_max_count, L) })), L) }) : '';
  const fmt = res.format_left_out;
  const fmtText = fmt && fmt.devices > 0 ? T('picks_format_left_out', { quant: String(fmt.quant), 0: num(fmt.devices, L) }) : '';
  setText(capNote, sentences(L, [capText, leftText, fmtText]));
  capNote.hidden = !capText && !leftText && !fmtText;
}
