// @ts-check
// The cloud comparison table: every catalog offer with enough GPU memory for the model at the
// current settings (the core's `cost` answer), with its hourly price, the month at the chosen
// hours per day as the provider bills it, our tokens/s on that instance and the cost per million
// tokens. Sortable by price per hour or by cost per million tokens. Offer links come from
// data/clouds.json only (https URLs), never from anything a person typed.
import { defaults } from '../catalog.js';
import { byId, fill, h } from '../dom.js';
import { day, gbOf, gib, hours, list, money, num, perMillionSpeed, perMillionText, times, tokens, tps } from '../format.js';
import { aside, labelled, punctSpacing, t } from '../i18n.js';
import { state } from '../state.js';
import { cardValue, tightMark, vendorFigure } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** @type {'price' | 'mtok'} */
let sortKey = 'price';
/** @type {{r: any, c: any, mk: any} | null} */
let last = null;
/** The table shows the first FEW offers until the person asks for all of them. */
const FEW = 12;
let showAll = false;

/** An engine id in the engine's own spelling (the core's defaults: engines[id].name). @param {string} [id] */
const engineName = (id) => String((id && defaults?.engines?.[id]?.name) ?? id ?? '');

/** The vendor's-figure mark of an offer's memory per GPU, or null. @param {any} o @param {string} L */
const vendorMark = (o, L) => {
  const vf = typeof o.memory_per_gpu_bytes === 'number' ? vendorFigure(o.memory_basis, o.memory_per_gpu_bytes, L) : null;
  return vf ? [' ', vf.mark] : null;
};

/** An offer's cost per million tokens on the core's basis (cloud_basis). @param {any} o */
const perM = (o) => (o.per_million_tokens_usd ? o.per_million_tokens_usd.basis_usd : Infinity);

/**
 * Offers in the chosen order (unknown $/Mtok last, then by price): by cost per million tokens,
 * the core's basis_usd, the figure its cheapest_offer is the lowest of. @param {any[]} offers
 */
export function sortOffers(offers, key = sortKey) {
  return [...offers].sort((a, b) => (key === 'mtok' ? perM(a) - perM(b) || a.price_hour_usd - b.price_hour_usd
    : a.price_hour_usd - b.price_hour_usd || perM(a) - perM(b)));
}

/**
 * @param {any} r the estimate @param {any} c the cost answer (each offer with the core's estimate
 * of the model on that instance) @param {any} mk the market
 */
export function renderCloud(r, c, mk) {
  last = { r, c, mk };
  const L = state.lang;
  const sec = byId('plug-cloud');
  sec.hidden = false;
  // The request's engine runs on no rented GPU (MLX): the core says so once (cloud_engine) and
  // estimates the offers for the nearest setup a rented GPU runs (llama.cpp at the GGUF type of the
  // same quality), which the note and the caption name.
  const ce = c.cloud_engine;
  const other = ce && ce.shown_engine ? ce : null;
  const need = gib(other && typeof ce.memory_need_bytes === 'number' ? ce.memory_need_bytes : c.memory_need_bytes, L);
  const engineNote = ce ? h('p', { class: 'note', id: 'cloud-engine', dataset: { code: ce.code, engine: ce.engine } },
    other ? T('cloud_engine_other', { engine: engineName(ce.engine), other: engineName(ce.shown_engine), quant: String(ce.shown_quant) })
      : T('cloud_engine_none', { engine: engineName(ce.engine) })) : null;
  const offers = c.clouds;
  if (!offers.length) {
    fill('cloud-out', engineNote, other || !ce ? h('p', { class: 'note' }, T('cloud_none', { total: need })) : null);
    return;
  }
  const m = (/** @type {number} */ x, /** @type {number | undefined} */ d = undefined) => money(x, mk, L, d);
  const sortBtn = (/** @type {'price' | 'mtok'} */ key, /** @type {string} */ label) => h('button', {
    type: 'button', class: 'small', 'aria-pressed': String(sortKey === key), dataset: { sort: key },
    on: { click: () => { sortKey = key; if (last) renderCloud(last.r, last.c, last.mk); } },
  }, label);
  const head = [T('col_provider'), T('col_instance'), T('col_gpus'), T('col_price_hour'), T('col_monthly'), T('col_billing'), T('col_tps'), T('col_per_mtok'), T('col_offer')];
  const sorted = sortOffers(offers);
  const rows = (showAll ? sorted : sorted.slice(0, FEW)).map((o) => {
    const pm = o.per_million_tokens_usd;
    const safe = typeof o.url === 'string' && /^https:\/\/[^\s"<>]+$/.test(o.url);
    return h('tr', { dataset: { offer: o.id } },
      h('th', { scope: 'row' }, o.provider),
      h('td', { class: 'wrap', 'data-label': head[1], ...(o.price_basis ? { dataset: { basis: o.price_basis } } : {}) }, h('span', null, instanceName(o))),
      // Memory per GPU in GiB as the estimate used it (the core's memory_per_gpu_bytes); what the
      // provider lists in GB is named beside it, whether it is decimal GB (vram_code decimal_gb:
      // B200 as 192 GB) or, where the instance's name states it ("A100 SXM 80GB"), the GiB figure
      // called GB (gib_figure), so the GB in a name never stands unexplained beside a GiB figure.
      // One value in the cell (the figure with the listed GB under it): on a phone's card it sits
      // right-aligned beside its label as a whole, not as two flex items apart.
      h('td', { 'data-label': head[2], dataset: { vram: o.vram_code || '' } }, h('span', { class: 'mem' }, `${num(o.gpu_count, L)} × ${typeof o.memory_per_gpu_bytes === 'number' ? gib(o.memory_per_gpu_bytes, L, 0) : gbOf(o.vram_per_gpu_gb, L)}`,
        (o.vram_code === 'decimal_gb' || (o.vram_code === 'gib_figure' && typeof o.name_gb === 'number')) && typeof o.memory_per_gpu_bytes === 'number' ? h('span', { class: 'note listed' }, punctSpacing(L, ` ${aside(L, '', T('cloud_listed', { 0: gbOf(o.vram_per_gpu_gb, L) })).trim()}`)) : null,
        // A GPU whose size is the vendor's own figure (the core's memory_basis): marked, its
        // sentence in the mark's text.
        vendorMark(o, L),
        // An instance that holds the model with no room to spare (the core's verdict on it, judged
        // on the low end of a vendor's figure) says "tight" beside its memory.
        o.estimate && tightMark(o.estimate, L) ? [' ', tightMark(o.estimate, L)] : null)),
      h('td', { 'data-label': head[3], dataset: { usd: String(o.price_hour_usd) } }, m(o.price_hour_usd)),
      h('td', { 'data-label': head[4] }, m(o.monthly_usd, 0)),
      h('td', { 'data-label': head[5] }, T(`billing_${o.billing}`)),
      h('td', { 'data-label': head[6] }, pm ? tps(pm.decode_tps, L) : noSpeed(o.estimate)),
      // vLLM / SGLang: beside one user's figure, the same hour over the aggregate of the requests
      // the instance's pool holds at once (the core's batched figure).
      // The figure on the core's basis first (the one the table sorts by): one user's with the
      // batched one under it, or, where the request states several sequences, theirs with one
      // user's under it.
      // One value in the cell (the figure with its notes under it), so a phone's card keeps it
      // whole beside its label.
      // One user's figure carries the core's range (single_low/single_high, from the decode
      // estimate's), under the figure as on the cards; the aggregate of several has none.
      h('td', { 'data-label': head[7], ...(pm ? { dataset: { usd: String(pm.basis_usd), single: String(pm.single), ...(pm.batched ? { batched: String(pm.batched) } : {}) } } : {}) }, pm ? h('span', { class: 'mtok' },
        pm.basis_sequences > 1 ? m(pm.basis_usd) : cardValue(perMillionText(pm, mk, L)),
        pm.basis_sequences > 1 ? [h('span', { class: 'note batched' }, T('cloud_batched_basis', { n: num(pm.concurrency, L), tps: tps(pm.batched_tps, L) })),
          h('span', { class: 'note batched single' }, T('cloud_single', { 0: perMillionText(pm, mk, L), tps: perMillionSpeed(pm, L) }))]
          : pm.batched ? h('span', { class: 'note batched' }, T('cloud_batched', { 0: m(pm.batched), n: num(pm.concurrency, L), tps: tps(pm.batched_tps, L) })) : null) : '—'),
      h('td', { class: 'offer', 'data-label': head[8] }, safe ? h('a', { href: o.url, rel: 'noopener noreferrer', target: '_blank' },
        T('open_offer', { 0: o.provider }), h('span', { class: 'sr' }, punctSpacing(L, ` ${T('new_tab')}`))) : '—'));
  });
  const caption = other ? T('cloud_table_engine', { model: r.model.name, quant: String(ce.shown_quant), ctx: tokens(r.settings.context_requested, L), engine: engineName(ce.shown_engine) })
    : T('cloud_table', { model: r.model.name, quant: r.quant.id, ctx: tokens(r.settings.context_requested, L) });
  const dates = [...new Set(offers.map((/** @type {any} */ o) => o.checked).filter(Boolean))].sort();
  fill('cloud-out', engineNote,
    h('p', { class: 'note' }, T('cloud_intro', { total: need, hours: hours(c.usage.hours_per_day, L) })),
    h('div', { class: 'sortbar', role: 'group', 'aria-label': T('sort_by') }, h('span', { class: 'note' }, labelled(state.lang, T('sort_by'), '')),
      sortBtn('price', T('sort_price')), sortBtn('mtok', c.cloud_basis && c.cloud_basis.code === 'stated_sequences'
        ? T('sort_mtok_stated', { n: num(c.cloud_basis.sequences, L) }) : T('sort_mtok'))),
    h('div', { class: 'table-block' }, h('p', { class: 'table-title', 'aria-hidden': 'true' }, caption),
      h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
        h('table', { class: 'data wrap-head', id: 'cloud-table' }, h('caption', { class: 'sr' }, caption),
          h('thead', null, h('tr', null, head.map((x, i) => h('th', {
            scope: 'col', 'aria-sort': (i === 3 && sortKey === 'price') || (i === 7 && sortKey === 'mtok') ? 'ascending' : null,
          }, x)))),
          h('tbody', null, rows)))),
    sorted.length > FEW ? h('button', {
      type: 'button', class: 'small more-rows', id: 'cloud-all', 'aria-expanded': String(showAll),
      on: { click: () => { showAll = !showAll; if (last) renderCloud(last.r, last.c, last.mk); } },
    }, showAll ? T('cloud_fewer', { 0: num(FEW, L) }) : T('cloud_all', { 0: num(sorted.length, L) })) : null,
    h('p', { class: 'note' }, T('cloud_note', { date: list(dates.map((x) => day(x, state.lang)), state.lang), cur: mk ? mk.currency : 'USD' })));
}

/**
 * An offer's instance as the provider names it, with its tier and what its price is in the page's
 * language (the catalog's tier, and the data's `price_basis` code: cheapest offer, starting
 * price, per GPU, spot…), in the language's parentheses.
 * @param {{instance: string, price_basis?: string, tier?: string}} o
 */
export function instanceName(o) {
  // The catalog writes a count as "RTX 3090, 1x": the page writes "1× RTX 3090" (multiplication sign).
  const L = state.lang;
  const raw = String(o.instance || '');
  // The provider's tier (the data's `tier` code: RunPod's secure or community cloud).
  const tier = o.tier ? T(`cloud_tier_${o.tier}`) : '';
  const m = /^(.*?)(?:,\s*|\s+\()(\d+)x\)?$/.exec(raw);
  const lead = /^(\d+)x\s+(.+)$/.exec(raw);
  const inst = m ? `${times(Number(m[2]), L)} ${m[1]}` : lead ? `${times(Number(lead[1]), L)} ${lead[2]}` : raw;
  const notes = [tier, o.price_basis ? T(`cloud_basis_${o.price_basis}`) : ''].filter(Boolean);
  return notes.length ? aside(L, inst, notes.join(L === 'zh' ? '，' : ', ')) : inst;
}

/**
 * An offer without a speed: the core's estimate on its GPUs gave none (the engine refuses that
 * GPU count, or has no speed model there). Offers the model does not fit are not listed.
 * @param {any} est the offer's `estimate`
 */
function noSpeed(est) {
  return h('span', { class: 'note', dataset: { code: est && (est.error || est.speed_unavailable_code) || '' } }, T('cloud_no_estimate'));
}
