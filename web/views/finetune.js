// @ts-check
// The fine-tuning table: QLoRA (NF4 base), LoRA (bf16 base) and full fine-tuning (AdamW, mixed
// precision) of the current model, each from the core's `train` function (core training/training.hpp):
// memory per GPU by term, the total, the verdict on one of the chosen device, how many of them
// it takes (ZeRO-3 beyond one) and the cheapest catalog set that fits. Inputs: sequence length,
// micro-batch and gradient checkpointing (kept for the visit).
import { call } from '../client.js';
import { defaults, deviceInfo, hardware } from '../catalog.js';
import { chipLabel, productLabel } from '../device-name.js';
import { byId, fill, h, setText } from '../dom.js';
import { gib, list as joinList, num, times, tokens } from '../format.js';
import { dot, errorText, sentences, t } from '../i18n.js';
import { state } from '../state.js';
import * as store from '../store.js';
import { kindWords, latestSection, paramsText, shownName } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** Optimizer names as their libraries write them (the core's settings.optimizer ids). */
const OPTIMIZERS = /** @type {Record<string, string>} */ ({
  adamw: 'AdamW', adamw_8bit: 'AdamW 8-bit', paged_adamw: 'paged AdamW', paged_adamw_8bit: 'paged AdamW 8-bit', adafactor: 'Adafactor', sgd: 'SGD',
});

export const METHODS = /** @type {const} */ (['qlora', 'lora', 'full']);
/**
 * What the person set in the fine-tuning inputs; null = not touched, so the request leaves it out
 * and the core applies its own default (the inputs show the core's defaults.training).
 * @type {{seq: number|null, batch: number|null, checkpointing: boolean|null}}
 */
export const ftInputs = { seq: null, batch: null, checkpointing: null };

/** The train request for a method at the current view. @param {string} method */
export function trainRequest(method) {
  /** @type {Record<string, any>} */
  const q = { model: store.modelRef(state.model), hardware: store.deviceRef(state.hw), method };
  // How many the person has: the core's advice counts from it (how many more a set takes).
  if (state.count > 1) q.count = state.count;
  if (ftInputs.seq !== null) q.seq = ftInputs.seq;
  if (ftInputs.batch !== null) q.batch = ftInputs.batch;
  if (ftInputs.checkpointing !== null) q.checkpointing = ftInputs.checkpointing;
  return q;
}

/** An input's value: the person's, else the core's default. @param {'seq'|'batch'|'checkpointing'} k */
const shown = (k) => (ftInputs[k] ?? defaults.training[k]);

/** @type {any} */
let lastR = null;

const section = latestSection(160);
/** The fine-tuning section of the latest estimate, drawn: a prerendered page waits for it (app.js renderStatic). */
export const finetuneDrawn = () => section.drawn();

/** @param {any} r the estimate (for names) */
export function renderFinetune(r) {
  lastR = r;
  section.schedule((alive) => run(r, alive).catch((e) => {
    if (!alive()) return;
    // The core's error in the page's language (its code), its English message only as a tooltip.
    fill('finetune-out', h('p', { class: 'error', title: String((e && e.message) || '') }, errorText(state.lang, e)));
  }));
}

/** @param {any} r @param {() => boolean} alive */
async function run(r, alive) {
  byId('plug-finetune').hidden = false;
  ensureInputs();
  const rs = await Promise.all(METHODS.map((m) => call('train', trainRequest(m)).catch((e) => ({ error: e }))));
  if (!alive()) return;
  const L = state.lang;
  // A model whose training the core does not model: said once, no table of the same refusal per method.
  const refused = rs.every((/** @type {any} */ x) => x.error && x.error.code === 'training_not_modelled');
  // Its inputs change nothing then: put away with the table.
  byId('finetune-inputs').hidden = refused;
  if (refused) {
    fill('finetune-out', h('p', { class: 'note', dataset: { code: 'training_not_modelled' }, title: String(rs[0].error.message || '') }, errorText(L, rs[0].error)));
    return;
  }
  // The header names the device by chip and memory (a Mac's products made it six lines tall);
  // the products are under the hardware select.
  const di = deviceInfo(state.hw);
  const hw = di && !di.custom && productLabel(di, L, hardware) ? chipLabel(di, L, hardware) : shownName(di || r.hardware, L);
  // The figures are for the core's settings.gpus (one GPU unless a request shards): the header
  // says "on one GPU" then, so the whole-model total never reads as what each of a ZeRO-3 set
  // keeps (that is the "How many needed" column's figure).
  const gpus = rs.find((/** @type {any} */ x) => x && !x.error && x.settings)?.settings?.gpus ?? 1;
  const head = [T('ft_method'), T('ft_weights'), T('ft_grads'), T('ft_opt'), T('ft_act'), T('ft_other'), T(gpus > 1 ? 'ft_total' : 'ft_total_one', kindWords(r, L)), T('ft_on_hw', { 0: hw }), T('ft_needed'), T('ft_advice')];
  // Every column visible at any width; on a phone each method is a card (styles.css table.stack).
  const td = (/** @type {number} */ i, /** @type {any} */ content, /** @type {Record<string, any>} */ props = {}) =>
    h('td', { 'data-label': head[i], ...props }, h('span', null, content));
  // A note one row of the advice column already gives is not said again in the next ones.
  /** @type {Set<string>} */
  const shownNotes = new Set();
  const rows = METHODS.map((m, i) => {
    const x = rs[i];
    const name = h('th', { scope: 'row', 'data-label': head[0] }, h('span', null, T(`ft_${m}`),
      x.error ? null : h('span', { class: 'note' }, `${dot(L, T(`ft_${m}`))}${T('ft_trainable', { 0: paramsText(x.params.trainable, L) })}`)));
    if (x.error) {
      // The core's code in the page's words; its English message stays in the tooltip.
      const err = x.error;
      return h('tr', { dataset: { method: m } }, name, h('td', { colspan: String(head.length - 1), class: 'note', title: String(err.message || err) },
        errorText(L, err)));
    }
    const p = x.memory.per_gpu;
    const n = x.min_count;
    const md = x.min_count_detail;
    return h('tr', { dataset: { method: m, verdict: x.verdict } }, name,
      td(1, weightsText(p, m, L), { class: 'n', dataset: { frozen: String(p.frozen_weights_bytes), trainable: String(p.trainable_weights_bytes) } }),
      td(2, gib(p.gradients_bytes, L), { class: 'n' }),
      td(3, gib(p.optimizer_state_bytes, L), { class: 'n' }),
      td(4, gib(p.activation_total_bytes, L), { class: 'n' }),
      td(5, gib(p.other_bytes, L), { class: 'n' }),
      td(6, h('strong', null, gib(p.total_bytes, L)), { class: 'n', dataset: { bytes: String(p.total_bytes) } }),
      td(7, h('span', { class: `tag ${x.verdict}` }, T(`short_${x.verdict}`))),
      td(8, neededText(n, md, L, kindWords(r, L)), { dataset: { count: n == null ? '' : String(n), withinCap: md ? String(md.within_cap) : 'false' } }),
      td(9, adviceText(x.advice, L, shownNotes), { dataset: { advice: x.advice?.code || '' } }));
  });
  // The sequence and batch the core used (its document's settings), not the inputs' state.
  const used = rs.find((/** @type {any} */ x) => x && !x.error && x.settings)?.settings;
  const caption = T('ft_table', { model: r.model.name, seq: used ? tokens(used.seq, L) : '—', batch: used ? num(used.batch, L) : '—' });
  // The cheapest sets hold no more cards than a machine of their kind does (the core's count_caps).
  /** @type {Map<string, number>} */
  const caps = new Map();
  for (const x of rs) for (const c of (x.error ? [] : x.count_caps || [])) caps.set(c.segment, c.segment_max_count);
  // …the cap the "how many needed" column counts the chosen device against (its segment's)…
  for (const x of rs) if (!x.error && x.min_count_detail && x.min_count_detail.segment) caps.set(x.min_count_detail.segment, x.min_count_detail.max_count);
  // …and the cap of each set it advises buying, so no advice reads past a count the note states.
  for (const x of rs) for (const b of (x.error || !x.advice ? [] : [x.advice])) {
    if (b && b.segment && b.segment_max_count > 0) caps.set(b.segment, b.segment_max_count);
  }
  const capNote = caps.size ? h('p', { class: 'note', id: 'ft-caps' }, T('picks_caps', { 0: joinList([...caps].map(([s, n]) => T(`cap_short_${s}`, { n: num(n, L) })), L) })) : null;
  // What the parameter counts are of, said once where they differ from the model's published total
  // (the core's params_basis: a vision tower or MTP layers left out, or a published figure counted
  // another way).
  const pb = rs.find((/** @type {any} */ x) => x && !x.error && x.params_basis)?.params_basis;
  const basis = pb && pb.code && pb.code !== 'matches_published'
    ? T(`ft_params_${pb.code}`, { counted: paramsText(pb.counted, L), published: paramsText(pb.published, L) }) : '';
  fill('finetune-out',
    used ? h('p', { class: 'note' }, sentences(L, [T(r.model.topology_code && r.model.topology_code.ffn === 'moe' ? 'ft_intro_moe' : 'ft_intro', {
      model: r.model.name, opt: OPTIMIZERS[used.optimizer] || used.optimizer, prec: T(`ft_prec_${used.precision}`), rank: num(used.lora_rank, L),
      scope: used.gpus > 1 ? T('ft_scope_each', { ...kindWords(r, L), n: num(used.gpus, L) }) : T('ft_scope_one'),
    }), basis])) : null,
    h('div', { class: 'table-block' }, h('p', { class: 'table-title', 'aria-hidden': 'true' }, caption),
      h('div', { class: 'table-wrap fit' },
        h('table', { class: 'data stack wrap-head', id: 'ft-table' }, h('caption', { class: 'sr' }, caption),
          h('thead', null, h('tr', null, head.map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', null, rows)))), capNote);
}

/**
 * How many of the chosen device it takes, with what each of them holds (ZeRO-3 shards the states,
 * so it is not the one-GPU total), or that a machine does not hold that many. All from the core.
 * @param {number|null} n @param {any} md the core's min_count_detail @param {string} L @param {Record<string, string>} kw the device's words
 */
function neededText(n, md, L, kw) {
  if (!md) return '—';
  // The core's smallest count (every count, not powers of two); past the cap of the device's
  // machine, named in the caps note under the table (its segment) or one machine (a Mac).
  if (!md.within_cap && typeof n === 'number') return T('ft_beyond_cap', { 0: num(n, L), each: gib(md.per_gpu_bytes, L), max: num(md.max_count, L) });
  // No count holds it: the core's code says why (one machine too small, or what each GPU keeps
  // at any count).
  if (!md.within_cap) return md.code === 'unsharded_exceeds' ? T('ft_unsharded_exceeds', { ...kw, floor: gib(md.floor_bytes, L) }) : T('ft_one_machine_too_small');
  return n > 1 ? T('ft_count_each', { 0: num(n, L), each: gib(md.per_gpu_bytes, L) }) : num(n, L);
}

/**
 * The weights a method holds: for LoRA and QLoRA the frozen base and the trained adapters are
 * said apart (the core's frozen_weights_bytes and trainable_weights_bytes), so the base reads as
 * the same weights full fine-tuning trains (bf16) or their NF4 form, not as more than them.
 * @param {any} p the core's memory.per_gpu @param {string} method @param {string} L
 */
function weightsText(p, method, L) {
  if (method === 'full' || !(p.trainable_weights_bytes > 0)) return gib(p.weights_bytes, L);
  return [gib(p.weights_bytes, L), h('br'), h('span', { class: 'note' }, T('ft_weights_base', { 0: gib(p.frozen_weights_bytes, L) })),
    h('br'), h('span', { class: 'note' }, T('ft_weights_adapters', { 0: gib(p.trainable_weights_bytes, L) }))];
}

/**
 * The core's advice: the person's own device, else the cheapest set, and what would do instead.
 * Device names as the page names them (its product label), the count in the page's own form.
 * @param {any} a @param {string} L @param {Set<string>} said notes earlier rows gave
 */
function adviceText(a, L, said) {
  if (!a) return '—';
  const set = (/** @type {any} */ x) => {
    const name = shownName(deviceInfo(x.id) || x, L);
    return x.count > 1 ? `${times(x.count, L)} ${name}` : name;
  };
  const own = a.code === 'own_device' || a.code === 'own_device_unverified';
  const main = own ? (a.more > 0 ? T('ft_advice_own_more', { 0: set(a), more: num(a.more, L), have: num(a.have, L) }) : T('ft_advice_own', { 0: set(a) }))
    : a.code === 'cheapest_set' ? T('ft_advice_buy', { 0: set(a) })
    // A Mac or a unified-memory PC that no count of it helps: the set is other hardware in its place.
    : a.code === 'cheapest_set_instead' ? T('ft_advice_instead', { 0: set(a) }) : T('ft_advice_none');
  // What would do instead: QLoRA on the person's device. (The core's one_gpu_memory is the row's
  // own "total per GPU" figure, which the table already shows.)
  const instead = (a.instead || []).filter((/** @type {any} */ i) => i.code === 'qlora').map((/** @type {any} */ i) =>
    (i.more > 0 ? T('ft_instead_qlora_more', { 0: num(i.count, L), more: num(i.more, L) }) : T('ft_instead_qlora', { 0: num(i.count, L) })));
  const notes = [a.own_device === 'training_stack_not_verified' ? T('ft_own_not_verified') : '',
    ...instead].filter((x) => x && !said.has(x));
  for (const x of notes) said.add(x);
  return notes.length ? [main, h('br'), h('span', { class: 'note' }, sentences(L, notes))] : main;
}

function ensureInputs() {
  const box = byId('finetune-inputs');
  if (!box.firstChild) {
    // The sequence lengths the core offers (defaults.training.seq_choices).
    const seqs = /** @type {number[]} */ (defaults.training.seq_choices ?? [shown('seq')]);
    const seqSel = h('select', { id: 'ft-seq' }, seqs.map((n) => h('option', { value: String(n) }, tokens(n, state.lang))));
    /** @type {HTMLSelectElement} */ (seqSel).value = String(shown('seq'));
    seqSel.addEventListener('change', () => { ftInputs.seq = Number(/** @type {HTMLSelectElement} */ (seqSel).value); if (lastR) renderFinetune(lastR); });
    const batch = h('input', { id: 'ft-batch', type: 'number', min: '1', max: '256', step: '1', value: String(shown('batch')), inputmode: 'numeric' });
    batch.addEventListener('change', () => {
      const v = Math.round(Number(/** @type {HTMLInputElement} */ (batch).value));
      // As typed: a batch out of the core's range comes back as its coded error in the table.
      if (Number.isFinite(v)) { ftInputs.batch = v; if (lastR) renderFinetune(lastR); }
    });
    const ck = h('input', { id: 'ft-ckpt', type: 'checkbox', checked: !!shown('checkpointing') });
    // The checkbox sits inside its label, so the whole line toggles it.
    ck.addEventListener('change', () => { ftInputs.checkpointing = /** @type {HTMLInputElement} */ (ck).checked; if (lastR) renderFinetune(lastR); });
    box.append(
      h('div', { class: 'field' }, h('label', { for: 'ft-seq', id: 'ft-seq-label' }, T('ft_seq')), seqSel),
      h('div', { class: 'field' }, h('label', { for: 'ft-batch', id: 'ft-batch-label' }, T('ft_batch')), batch),
      h('div', { class: 'field check' }, h('label', { for: 'ft-ckpt' }, ck, h('span', { id: 'ft-ckpt-label' }, T('ft_ckpt')))));
  }
  setText(byId('ft-seq-label'), T('ft_seq'));
  setText(byId('ft-batch-label'), T('ft_batch'));
  setText(byId('ft-ckpt-label'), T('ft_ckpt'));
}
