// @ts-check
// Money on the model × device view, all from the core's `cost` function (core money/cost.hpp): the cost
// per million tokens on the person's own hardware (with every input it used, each traceable to
// its source), the cloud offers that hold the model (cloud.js draws that table) and rent versus
// buy with its chart. The page adds no formula: throughput comes from the estimate's speed, the
// cloud offers' throughput from estimates on those devices, and every figure from `cost`.
// Amounts come in US dollars and are shown in the chosen market's currency (format.js money).
import { call } from '../client.js';
import { defaults, request } from '../catalog.js';
import { lineChart } from '../chart.js';
import { byId, fill, h, setText, table, text } from '../dom.js';
import { hours, marketName, money, monthYear, num, perMillionSpeed, perMillionText, tps } from '../format.js';
import { clauses, commas, errorText, gap, labelled, punctSpacing, sentence, sentenceCase, sentences, t } from '../i18n.js';
import { state } from '../state.js';
import { instanceName, renderCloud } from './cloud.js';
import { renderBuy } from './buy.js';
import { cardValue, hwLabel, latestSection } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** Usage inputs kept for the visit (not in the URL: they describe the person, not the view). */
export const usage = {
  /** Hours a day and amortisation months the person typed; null = the core's defaults (defaults.cost). */
  hours: /** @type {number | null} */ (null),
  amort: /** @type {number | null} */ (null),
  /** Electricity price per kWh in the market's currency; null = the market's published price. */
  kwhLocal: /** @type {number | null} */ (null),
  /** Purchase price in the market's currency; null = the catalog's (none for some devices). */
  purchaseLocal: /** @type {number | null} */ (null),
};

/** @type {Promise<any[]> | null} */
let marketsPromise = null;
/** The markets of data/markets.json (currency, electricity price, stores), loaded once. */
export function markets() {
  marketsPromise ??= call('list', 'markets').catch(() => []);
  return marketsPromise;
}

/** The entry for the chosen market. */
export async function market() {
  const ms = await markets();
  return ms.find((m) => m.id === state.market) || ms.find((m) => m.id === defaults.cost.market) || null;
}

/**
 * The cost request for the current setup: the estimate's own request plus the usage inputs. The
 * core estimates the model on the owned hardware (memory need, decode speed) and on every cloud
 * offer's GPUs in the same call: the document `willitfit cost --model …` builds.
 * @param {any} mk
 */
export function costRequest(mk) {
  /** @type {Record<string, any>} */
  const q = { ...request(), market: state.market };
  if (usage.hours !== null) q.hours_per_day = usage.hours;
  if (usage.amort !== null) q.amortization_months = usage.amort;
  if (usage.kwhLocal !== null && mk) q.price_kwh_usd = usage.kwhLocal * mk.usd_per_unit;
  if (usage.purchaseLocal !== null && mk) q.purchase_usd = usage.purchaseLocal * mk.usd_per_unit;
  return q;
}

/** The setup whose figures the money sections show now. */
let paintedKey = '';
let usageFromCore = false;
/** @type {any} */
let lastResult = null;

const sections = latestSection(120);
/** The money sections of the latest estimate, drawn: a prerendered page waits for them (app.js renderStatic). */
export const costDrawn = () => sections.drawn();

/** Render the money sections for an estimate (debounced; a newer call wins). @param {any} r */
export function renderCost(r) {
  lastResult = r;
  sections.schedule((alive) => run(r, alive).catch((e) => {
    if (!alive()) return;
    byId('plug-cost').hidden = false;
    delete byId('plug-cost').dataset.setup;
    fill('cost-out', h('p', { class: 'error', title: String((e && e.message) || '') }, errorText(state.lang, e)));
  }));
}

/** Run again with the last result (an input changed). */
function rerun() { if (lastResult) renderCost(lastResult); }

/** @param {any} r @param {() => boolean} alive */
async function run(r, alive) {
  const mk = await market();
  renderBuy(r, mk);
  ensureInputs(mk);
  const hasSpeed = r.speed && typeof r.speed.decode_tps === 'number' && r.speed.decode_tps > 0;
  byId('plug-cost').hidden = false;
  // Hours, electricity, amortization and purchase price feed only the cost per token: without a
  // speed (the setup does not fit, or has no speed model) no figure uses them, so they go with it.
  byId('cost-inputs').hidden = !hasSpeed;
  if (!hasSpeed) {
    // A serving engine's throughput with no one-user speed (llama.cpp, whose measurements that speed
    // rests on, does not run on the device: the core's speed_unavailable code) says why, so the
    // throughput card above does not read as contradicted.
    const serverOnly = r.verdict !== 'no_fit' && r.vllm && r.speed_unavailable && r.speed_unavailable.code === 'engine_not_supported';
    fill('cost-out', h('p', { class: 'note', id: 'cost-none', dataset: serverOnly ? { code: 'engine_not_supported' } : {} },
      serverOnly ? T('cost_no_speed_server', { hw: hwLabel(r, state.lang), engine: engineName(r.settings.engine) })
        : T(r.verdict === 'no_fit' ? 'cost_no_fit' : 'cost_no_speed')));
    byId('plug-cloud').hidden = true;
    byId('plug-rvb').hidden = true;
    delete byId('plug-cost').dataset.setup;
    return;
  }
  const base = { ...costRequest(mk), months: 'auto' };
  // Another model or device: the figures on screen are the previous setup's, so they go while
  // the new ones are computed (an input change keeps them, to avoid a flicker).
  /** @type {Record<string, any>} */
  const setup = { ...base };
  for (const k of ['hours_per_day', 'amortization_months', 'price_kwh_usd', 'purchase_usd']) delete setup[k];
  const key = JSON.stringify(setup);
  // A prerendered page the app takes over shows this setup's figures already (the section's
  // data-setup, written with them): they stay until the new ones replace them.
  const sec = byId('plug-cost');
  if (key !== paintedKey && sec.dataset.setup !== `${state.lang} ${key}`) {
    for (const id of ['cost-out', 'cloud-out', 'rvb-out']) fill(id, h('p', { class: 'note', dataset: { pending: 'true' } }, T('working')));
  }
  // One call: the owned cost, every offer with the model estimated on it, and rent vs buy over
  // a horizon a little past the break-even point (the core's months "auto").
  const c = await call('cost', base);
  if (!alive()) return;
  paintCard(r, c, mk);
  renderCloud(r, c, mk);
  paintRentVsBuy(r, c, mk);
  paintedKey = key;
  sec.dataset.setup = `${state.lang} ${key}`;
}


/** A figure as typed in the page's language (no grouping, its decimal mark). @param {number} v */
function localNumber(v) {
  return Number.isFinite(v) ? new Intl.NumberFormat(state.lang, { useGrouping: false, maximumFractionDigits: 4 }).format(v) : '';
}

/** The usage inputs, made once so typing in them never loses focus. @param {any} mk */
function ensureInputs(mk) {
  const box = byId('cost-inputs');
  const unit = mk ? mk.currency : 'USD';
  if (!box.firstChild) {
    const field = (/** @type {string} */ id, /** @type {string} */ key, /** @type {Record<string, any>} */ attrs, /** @type {(v: number) => void} */ set) => {
      // A text field, so the number reads in the page's language ("0,19" in French); a comma or a
      // point is accepted as the decimal mark. What was typed stays; one out of range is marked.
      const { value } = attrs;
      const input = h('input', { id, type: 'text', inputmode: 'decimal', autocomplete: 'off', value: value === undefined ? undefined : localNumber(Number(value)) });
      input.addEventListener('change', () => {
        const el = /** @type {HTMLInputElement} */ (input);
        const v = Number(el.value.trim().replace(/\s/g, '').replace(',', '.'));
        // Any finite figure goes to the core, which answers one out of its range with a coded error.
        const ok = el.value.trim() !== '' && Number.isFinite(v);
        el.setAttribute('aria-invalid', String(!ok));
        if (ok) { set(v); rerun(); }
      });
      return h('div', { class: 'field' }, h('label', { for: id, id: `${id}-label` }, T(key, { 0: unit })), input);
    };
    box.append(
      field('cost-hours', 'hours_day', { value: String(usage.hours ?? defaults.cost.hours_per_day) }, (v) => { usage.hours = v; }),
      field('cost-kwh', 'elec_price', {}, (v) => { usage.kwhLocal = v; }),
      field('cost-amort', 'amort_months', { value: String(usage.amort ?? defaults.cost.amortization_months) }, (v) => { usage.amort = v; }),
      // Empty = the catalog's price; a device without one asks for it (the core's `unknown`).
      field('cost-purchase', 'cost_purchase_label', {}, (v) => { usage.purchaseLocal = v; }));
  }
  // Labels follow the language and the market; the price follows the market until one is typed.
  text('cost-hours-label', T('hours_day'));
  text('cost-kwh-label', T('elec_price', { 0: unit }));
  text('cost-amort-label', T('amort_months'));
  text('cost-purchase-label', T('cost_purchase_label', { 0: unit }));
  const kwh = /** @type {HTMLInputElement} */ (byId('cost-kwh'));
  if (usage.kwhLocal === null && mk && document.activeElement !== kwh) kwh.value = localNumber(mk.price_kwh_local);
}

/** Forget a typed electricity price and purchase price (the market changed). */
export function resetElectricity() {
  usage.kwhLocal = null;
  usage.purchaseLocal = null;
  const p = document.getElementById('cost-purchase');
  if (p) /** @type {HTMLInputElement} */ (p).value = '';
}

/** An engine id in the engine's own spelling (the core's defaults: engines[id].name). @param {string} [id] */
const engineName = (id) => String((id && defaults?.engines?.[id]?.name) ?? id ?? '');

/** Why a figure is unknown, from the core's `unknown` codes (no price, no power figure). @param {string[]} codes */
function unknownText(codes) {
  return clauses(state.lang, codes.map((c) => T(`cost_unknown_${c}`)));
}

/** @param {string} k @param {string} v @param {string} s @param {Record<string, string>} [data] */
function card(k, v, s, data) {
  // The value and the note stand alone under the label: each starts as a sentence does.
  const L = state.lang;
  return h('div', { class: 'card' }, h('div', { class: 'k' }, k), h('div', { class: 'v', ...(data || {}) }, cardValue(sentenceCase(L, v))), h('div', { class: 's' }, sentenceCase(L, s)));
}

/** Cost per million tokens on owned hardware, with what it was computed from. @param {any} r @param {any} c @param {any} mk */
function paintCard(r, c, mk) {
  const L = state.lang;
  const o = c.owned;
  const m = (/** @type {number} */ x, /** @type {number | undefined} */ d = undefined) => money(x, mk, L, d);
  // A cost per million tokens with the core's range (from the decode estimate's: the fast end is
  // the cheap end), "~$0.589 ($0.487–$0.886)"; a figure without one (a speed given, not estimated) alone.
  const mr = (/** @type {any} */ pm) => perMillionText(pm, mk, L);
  // The core's cheapest offer per million tokens on its basis (cloud_basis: one user, or the
  // sequences a vLLM / SGLang request states), the same figure the table sorts by.
  const cheapest = c.cheapest_offer;
  const best = cheapest ? c.clouds.find((/** @type {any} */ x) => x.id === cheapest.id) : null;
  const basis = c.cloud_basis && c.cloud_basis.code === 'stated_sequences' ? c.cloud_basis : null;
  // A saved custom device has neither: a cost of zero would read as "free".
  const unknown = /** @type {string[]} */ (Array.isArray(o.unknown) ? o.unknown : []);
  if (unknown.length === 2) {
    fill('cost-out', h('p', { class: 'note' }, T('cost_no_hw')));
    return;
  }
  // What the core could not compute is null: never a total. Each unknown is said once, on the
  // card it empties: a known purchase price with no power figure gives the purchase part alone
  // (the core's purchase_only_per_million_tokens_usd, at least the total), labelled as such, and
  // the electricity card, empty for the same reason, is left out.
  const po = o.purchase_only_per_million_tokens_usd;
  const ce = c.cloud_engine && c.cloud_engine.shown_engine ? c.cloud_engine : null;
  const cards = h('div', { class: 'cards' },
    o.per_million_tokens_usd
      ? card(T('cost_owned'), mr(o.per_million_tokens_usd), `${T('cost_per_mtok')} · ${T('cost_per_hour', { 0: m(o.per_hour_usd.total) })}`,
        { id: 'cost-owned-mtok', 'data-usd': String(o.per_million_tokens_usd.single) })
      : po ? card(T('cost_owned'), T('cost_at_least', { 0: m(po.single) }), `${T('cost_per_mtok')} · ${T('cost_purchase_only', { 0: unknownText(unknown) })}`,
        { id: 'cost-owned-mtok', 'data-usd-min': String(po.single), 'data-unknown': unknown.join(' ') })
        : card(T('cost_owned'), '—', unknownText(unknown), { id: 'cost-owned-mtok', 'data-unknown': unknown.join(' ') }),
    // vLLM / SGLang: the same hour over the aggregate of the requests the pool holds at once
    // (the core's batched figure), beside the one-user figure.
    o.per_million_tokens_usd && o.per_million_tokens_usd.batched
      ? card(T('cost_owned_all'), m(o.per_million_tokens_usd.batched), `${T('cost_per_mtok')} · ${T('cost_all_note', { n: num(o.per_million_tokens_usd.concurrency, L), tps: tps(o.per_million_tokens_usd.batched_tps, L) })}`,
        { id: 'cost-owned-all-mtok', 'data-usd': String(o.per_million_tokens_usd.batched) })
      : null,
    o.electricity_only_per_million_tokens_usd ? card(T('cost_elec_only'), mr(o.electricity_only_per_million_tokens_usd), `${T('cost_per_mtok')} · ${T('cost_per_hour', { 0: m(o.per_hour_usd.electricity) })}${
      // Without a purchase price there is no all-users card: its electricity says the same here.
      !o.per_million_tokens_usd && o.electricity_only_per_million_tokens_usd.batched ? ` · ${T('cloud_batched', { 0: m(o.electricity_only_per_million_tokens_usd.batched), n: num(o.electricity_only_per_million_tokens_usd.concurrency, L), tps: tps(o.electricity_only_per_million_tokens_usd.batched_tps, L) })}` : ''}`,
      { id: 'cost-elec-mtok', 'data-usd': String(o.electricity_only_per_million_tokens_usd.single) }) : null,
    // Offers estimated for another engine (the core's cloud_engine) say which.
    // The label says the basis; the note the offer's own figure behind it (its pool may hold fewer
    // sequences than stated: the core's `sequences` is the offer's).
    best ? card(basis ? T('cost_cloud_best_stated_sequences', { n: num(basis.sequences, L) }) : T('cost_cloud_best_one_user'),
      // On one user's basis (the core's cloud_basis) the figure is the offer's single, with its
      // range; a basis of several sequences has none.
      !basis && !(cheapest.sequences > 1) ? mr(best.per_million_tokens_usd) : m(cheapest.usd),
      `${T('cost_per_mtok')} · ${cheapest.sequences > 1 ? T('cost_cloud_note_seq', {
        offer: `${best.provider} ${instanceName(best)}`, price: m(best.price_hour_usd), tps: tps(best.per_million_tokens_usd.batched_tps, L), n: num(cheapest.sequences, L),
      }) : T(ce ? 'cost_cloud_note_other' : 'cost_cloud_note', {
        offer: `${best.provider} ${instanceName(best)}`, price: m(best.price_hour_usd), tps: perMillionSpeed(best.per_million_tokens_usd, L),
        ...(ce ? { other: engineName(ce.shown_engine), quant: String(ce.shown_quant) } : {}),
      })}`, { id: 'cost-cloud-mtok', 'data-usd': String(cheapest.usd), 'data-basis': basis ? 'stated_sequences' : 'one_user', 'data-offer': String(cheapest.id) }) : null);
  // The purchase field shows the price the figures use (the catalog's) until one is typed.
  const buy = /** @type {HTMLInputElement | null} */ (document.getElementById('cost-purchase'));
  if (buy) buy.placeholder = typeof o.purchase_usd === 'number' ? m(o.purchase_usd, 0) : '—';
  const e = c.electricity;
  const given = e.source === 'given';
  // Only what is known is stated: no "— W" and no "$0" purchase price for a device without one.
  const pm = o.per_million_tokens_usd || o.electricity_only_per_million_tokens_usd;
  const parts = [pm && pm.batched_tps > 0
    ? T('cost_from_tps_batched', { tps: tps(o.decode_tps, L), agg: tps(pm.batched_tps, L), n: num(pm.concurrency, L) })
    : T('cost_from_tps', { tps: perMillionSpeed(o, L) })];
  // An unknown is said on the owned card above, not again here.
  if (typeof o.power_w === 'number') parts.push(T('cost_from_power', {
    power: num(o.power_w, L), price: money(e.price_kwh_usd, mk, L, 3),
    market: mk ? marketName(mk, state.lang) : e.market, period: given ? T('cost_given') : (mk && mk.period ? monthYear(mk.period, state.lang) : ''),
  }));
  if (typeof o.purchase_usd === 'number') parts.push(T('cost_from_purchase', { purchase: m(o.purchase_usd, 0), months: num(o.amortization_months, L), hours: hours(c.usage.hours_per_day, L) }));
  const inputs = h('p', { class: 'note', id: 'cost-inputs-used' }, `${clauses(state.lang, parts)}${state.lang === 'zh' ? '。' : '.'}`);
  // The core's cheapest offer per token holds the model with room to spare; where an offer that
  // holds it only tight costs less (its tight_cheaper), that offer is named, so the card does not
  // read as contradicting the table sorted by that figure.
  const tc = best && cheapest.tight_cheaper ? cheapest.tight_cheaper : null;
  const tcOffer = tc ? c.clouds.find((/** @type {any} */ x) => x.id === tc.id) : null;
  const tightNote = tcOffer ? h('p', { class: 'note', id: 'cost-cloud-tight', dataset: { offer: String(tc.id) } },
    T('cost_cloud_tight_cheaper', { offer: `${tcOffer.provider} ${instanceName(tcOffer)}`, usd: m(tc.usd) })) : null;
  // The citation: the market and period, and the primary publisher by name, linked to its page
  // (data/markets.json `primary`; the pages that only repeat the figure stay in the data for audit).
  // The price's source only where the figures use the price (a device with a power figure).
  const pr = typeof o.power_w === 'number' && !given && mk && mk.primary && typeof mk.primary.url === 'string' && /^https?:\/\/[^\s"<>]+$/.test(mk.primary.url) ? mk.primary : null;
  const who = pr ? (pr.via ? T('cost_source_via', { publisher: pr.publisher, via: pr.via })
    : pr.reported_by ? T('cost_source_reported', { publisher: pr.publisher, by: pr.reported_by }) : String(pr.publisher)) : '';
  const src = pr ? h('p', { class: 'note', id: 'cost-source' }, `${labelled(state.lang, T('cost_source'), commas(state.lang, [marketName(mk, state.lang), monthYear(mk.period, state.lang)]))}${state.lang === 'zh' ? '。' : '. '}`,
    h('a', { href: pr.url, rel: 'noopener noreferrer', target: '_blank', title: pr.url }, who, h('span', { class: 'sr' }, punctSpacing(L, ` ${T('new_tab')}`)))) : null;
  fill('cost-out', cards, tightNote, inputs, src);
}

/**
 * Where the useful life the break-even point is set against comes from (the core's
 * break_even_life.source), said once under the cards when the point is past it.
 * @param {any} b the core's rent_vs_buy @param {string} L
 */
function lifeSource(b, L) {
  const life = b.break_even_life;
  if (!life || life.code !== 'beyond_useful_life' || !life.source) return null;
  return h('p', { class: 'note', id: 'rvb-life' }, T('useful_life_note', { 0: num(life.months, L) }), gap(L), h('a', { href: life.source, rel: 'noopener', target: '_blank' }, T('useful_life_source')));
}

/** Months to break even, electricity per month, and cumulative cost (chart and table). @param {any} r @param {any} c @param {any} mk */
function paintRentVsBuy(r, c, mk) {
  const L = state.lang;
  const b = c.rent_vs_buy;
  const sec = byId('plug-rvb');
  sec.hidden = false;
  if (!b) { fill('rvb-out', h('p', { class: 'note' }, T('rvb_no_offer'))); return; }
  const m = (/** @type {number} */ x, /** @type {number | undefined} */ d = undefined) => money(x, mk, L, d);
  const offer = c.clouds.find((/** @type {any} */ x) => x.id === b.offer);
  const offerName = offer ? `${offer.provider} ${instanceName(offer)}` : b.offer;
  // The basis of the comparison, from the core: the same tokens a month at each setup's own
  // speed, or (no speed for the offer) the same hours a day.
  const basis = b.basis === 'same_tokens'
    ? T('rvb_basis_same_tokens', { tokens: num(b.tokens_per_month, L), own: tps(b.owned_decode_tps, L), hours: hours(b.hours_per_day, L),
      cloud: tps(b.cloud_decode_tps, L), offer: offerName, chours: hours(b.cloud_hours_per_day, L) })
    : T('rvb_basis_same_hours', { hours: hours(b.hours_per_day, L) });
  const basisNote = h('p', { class: 'note', id: 'rvb-basis', dataset: { basis: b.basis } }, basis);
  // Past the hardware's useful life (the core's break_even_life, data/segments.json): a break-even
  // point is said as that, with its figure in the card's note, not as a count of decades of months.
  const pastLife = (/** @type {unknown} */ months) => typeof months === 'number' && b.break_even_life?.code === 'beyond_useful_life';
  const life = b.break_even_life ? num(b.break_even_life.months, L) : '';
  if (Array.isArray(b.unknown)) {
    // The unknown is named on the cost card above. With only the power missing the core gives the
    // least break-even point (the purchase over the offer's month: electricity only delays it).
    const least = b.break_even_months_at_least;
    // The basis only where a figure stands on it (the least break-even point), not under "cannot
    // be compared"; then the card, and the useful life's source under the cards as below (not a
    // cell of the card grid beside the card).
    fill('rvb-out', ...(typeof least === 'number'
      ? [basisNote, h('div', { class: 'cards' }, card(T('break_even'),
        pastLife(least) ? T('break_even_past_life', { 0: life }) : T('cost_at_least', { 0: T('months_n', { 0: num(least, L, least < 10 ? 1 : 0) }) }),
        // Two sentences, each closed (the note alone is a fragment under the figure).
        pastLife(least) ? sentences(L, [T('break_even_past_life_least', { 0: num(least, L, 0), life }), sentence(L, sentenceCase(L, T('rvb_at_least_note', { 0: offerName })))]) : T('rvb_at_least_note', { 0: offerName }),
        { id: 'rvb-break-even', 'data-months-min': String(least), 'data-unknown': b.unknown.join(' '), 'data-life': b.break_even_life?.code || '' })), lifeSource(b, L)]
      : [h('p', { class: 'note', id: 'rvb-unknown', dataset: { unknown: b.unknown.join(' ') } }, T('rvb_unknown_short'))]));
    return;
  }
  const be = b.break_even_months;
  // Past the chart's last month the point is not on it: the card says so rather than leave the
  // chart looking as if buying never pays off.
  const last = Array.isArray(b.series?.months) && b.series.months.length ? b.series.months[b.series.months.length - 1] : Infinity;
  const cards = h('div', { class: 'cards' },
    card(T('break_even'), pastLife(be) ? T('break_even_past_life', { 0: life }) : typeof be === 'number' ? T('months_n', { 0: num(be, L, be < 10 ? 1 : 0) }) : T('never'),
      // Past the period the core writes the purchase off over (its break_even code): over that
      // period renting costs less (not over the useful life, which may still pass the point).
      // Past the useful life that one sentence is the reason (the written-off period and the
      // chart's end are shorter still, so they are not said again).
      typeof be === 'number' ? sentences(L, pastLife(be) ? [T('break_even_past_life_at', { 0: num(be, L, 0), life })]
        : [b.break_even?.code === 'beyond_amortisation' ? T('break_even_beyond_life', { 0: num(b.break_even.amortization_months, L) }) : '',
          be > last ? T('break_even_beyond', { 0: num(last, L) }) : '']) : T('never_note'),
      { id: 'rvb-break-even', 'data-months': typeof be === 'number' ? String(be) : 'never', 'data-code': b.break_even?.code || '', 'data-life': b.break_even_life?.code || '' }),
    card(T('elec_month'), m(b.owned_electricity_monthly_usd), '', { id: 'rvb-elec', 'data-usd': String(b.owned_electricity_monthly_usd) }),
    card(T('cloud_month'), m(b.cloud_monthly_usd), offerName, { id: 'rvb-cloud', 'data-usd': String(b.cloud_monthly_usd) }));
  const s = b.series;
  const chart = h('div', { class: 'chart', id: 'rvb-chart' });
  const rows = s.months.map((/** @type {number} */ mo, /** @type {number} */ i) => [num(mo, L), m(s.owned_usd[i], 0), m(s.cloud_usd[i], 0)]);
  fill('rvb-out',
    h('p', { class: 'note' }, T('rvb_intro_offer', { hw: hwLabel(r, state.lang), price: m(b.purchase_usd, 0), offer: offerName })),
    basisNote, cards, lifeSource(b, L), h('h3', null, T('rvb_chart', { 0: num(s.months.length - 1, L) })), chart,
    h('details', { class: 'more' }, h('summary', null, T('as_table')),
      table(T('rvb_chart', { 0: num(s.months.length - 1, L) }), [T('month'), T('buy_series'), T('rent_series')], rows)));
  const rate = mk && mk.currency !== 'USD' && mk.usd_per_unit > 0 ? mk.usd_per_unit : 1;
  lineChart(chart, {
    x: s.months,
    series: [
      { label: T('buy_series'), values: s.owned_usd.map((/** @type {number} */ v) => v / rate), color: '--weights' },
      { label: T('rent_series'), values: s.cloud_usd.map((/** @type {number} */ v) => v / rate), color: '--offload' },
    ],
    xLabel: T('month'), yLabel: mk ? mk.currency : 'USD',
    xFmt: (v) => num(v, L), yFmt: (v) => money(v * rate, mk, L, 0),
  }).catch(() => { setText(chart, T('chart_failed')); });
}
