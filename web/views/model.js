// @ts-check
// The model page: spec card, the quantization table at 8K, how to choose a format, the GPUs that
// run it with 32/64/128 GB of system RAM (tiered), the Macs and the unified-memory PCs that run
// it, its limits in plain words and a FAQ, every number from core estimates.
import { estimate, many, solve, tiers } from '../client.js';
import { defaults, deviceInfo, hardware, modelInfo, quants, request } from '../catalog.js';
import { byId, fill, h, link, text } from '../dom.js';
import { gib, gibExact, list as joinList, monthYear, num, range, signedPct, times, tokens, tps } from '../format.js';
import { aside, errorText, gap, sentences, t } from '../i18n.js';
import { defaultOf, state, urlFor } from '../state.js';
import { fileGap, qualityText } from './main.js';
import { basisMark, paramsText, qualityReference, rowName, segmentMark, shownName, setPageMeta, smallestDevices, spreadText, stackTable, tableNameWithMemory, tightMark, topologyText, vendorFigure } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);
/**
 * The device the page sizes the model's formats on (its quantization table, the gap note, the
 * cheapest-setup solve and the cache outlook): the core's defaults.reference_device, whose code
 * says why (a discrete consumer GPU, where llama.cpp keeps token_embd in RAM).
 */
const refGpu = () => String(defaults.reference_device.id);
const GiB = 1024 ** 3;

/**
 * Why the memory column can be below the file size, for the page's format (main.js fileGap); null
 * when nothing of the file is off the GPU.
 * @param {any} r @param {string} L
 */
function gapNote(r, L) {
  const why = fileGap(r, L);
  return why ? h('p', { class: 'note', id: 'mp-quants-gap' }, sentences(L, [T('mp_gap', { quant: r.quant.id, file: gib(r.gguf_file_bytes ?? r.checkpoint_bytes, L), gpu: deviceName(refGpu()) }), why])) : null;
}

/** @param {() => boolean} alive */
export async function renderModel(alive) {
  const L = state.lang;
  const info = modelInfo(state.model);
  // The model on its own at the core's defaults (context, format, cache, engine), not the form's.
  const ctx = defaultOf('ctx'), quant = defaultOf('quant');
  const base = { model: state.model, ctx, kv: defaultOf('kv'), par: defaultOf('par'), engine: defaultOf('engine'), count: defaultOf('count'), ram: defaultOf('ram') };
  let r;
  try {
    r = await estimate(request({ ...base, quant, hw: refGpu() }));
  } catch (e) {
    if (!alive()) return;
    text('mp-title', T('unknown_model'));
    fill('mp-lead', errorText(state.lang, e));
    for (const id of ['mp-spec', 'mp-quants', 'mp-gpus', 'mp-macs', 'mp-unified', 'mp-limits', 'mp-faq']) fill(id);
    return;
  }
  if (!alive()) return;
  const m = r.model;
  const s = m.shape || {};
  text('mp-title', T('mp_title', { 0: m.name }));
  // The format and context of these figures: the result's own (the core's defaults).
  const at = { quant: r.quant.id, ctx: tokens(r.settings.context_requested, L) };
  setPageMeta(T('mp_doc_title', { model: m.name }), T('mp_doc_desc', { ...at, model: m.name, total: gib(r.memory.total_bytes, L) }));
  text('mp-lead', T('mp_lead', { ...at, model: m.name, total: gib(r.memory.total_bytes, L) }));
  const dash = (/** @type {any} */ v) => (typeof v === 'number' && v > 0 ? num(v, L) : '—');
  const spec = [
    [T('org'), m.org || info?.org || '—'],
    [T('architecture'), `${m.model_type} · ${topologyText(m.topology_code, L)}`],
    [T('release'), info && info.release ? monthYear(info.release, L) : '—'],
    [T('layers'), dash(m.layers)],
    [T('hidden'), dash(s.hidden_size)],
    [T('heads'), dash(s.n_head)],
    [T('kv_heads'), s.mla_kv_lora_rank > 0 ? aside(L, 'MLA', `${T('latent')} ${num(s.mla_kv_lora_rank, L)}`) : dash(s.n_head_kv)],
    [T('head_dim'), dash(s.head_dim)],
    [T('vocab'), dash(s.vocab_size)],
    [T('kv_per_1k'), kvPer1k(r, L)],
    [T('max_context'), m.max_context > 0 ? aside(L, tokens(m.max_context, L), num(m.max_context, L)) : '—'],
    [T('license'), m.license || info?.license || '—'],
    [T('params_total'), paramsTotal(r, L)],
    [T('params_active'), m.params_active_published_b ? aside(L, paramsText(m.params_active, L), `${T('published')} ${paramsText(m.params_active_published_b * 1e9, L)}`) : paramsText(m.params_active, L)],
    ...(s.n_expert > 1 ? [[T('experts'), `${num(s.n_expert, L)} / ${num(s.n_expert_used, L)}\u00a0${T('per_token')}`]] : []),
  ];
  const repo = info && !info.custom ? h('a', { href: `https://huggingface.co/${info.id.split('/').map(encodeURIComponent).join('/')}`, rel: 'noopener', target: '_blank' }, info.id) : '—';
  fill('mp-spec', h('dl', { class: 'facts spec' }, spec.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v))), h('div', { class: 'repo' }, h('dt', null, T('repo')), h('dd', null, repo))),
    h('p', { class: 'note' }, T('spec_note')),
    link(urlFor({ view: 'main', quant, ctx }), T('open_compare', { 0: m.name }), 'button-link'));

  // Quantization table at the default context on the reference GPU.
  // The formats most repos publish for the engine (the core's defaults: common_formats).
  const common = /** @type {string[]} */ (defaults.engines[base.engine]?.common_formats ?? []);
  const qs = common.map((id) => quants.find((q) => q.id === id)).filter(Boolean);
  const rs = await many(qs.map((q) => request({ ...base, quant: q.id, hw: refGpu() })));
  if (!alive()) return;
  const okq = qs.map((q, i) => ({ q, x: rs[i] })).filter((e) => !e.x.error);
  const smallest = await smallestDevices(okq.map((e) => ({ ...base, quant: e.q.id })));
  if (!alive()) return;
  // One unit in the table (GiB, the unit llama.cpp prints), every column visible at any width.
  fill('mp-quants', stackTable(T('mp_quants_caption', { 0: deviceName(refGpu()), ctx: tokens(ctx, L) }),
    [T('format'), T('file_size'), T('mem_8k', { ctx: tokens(ctx, L) }), T('smallest_device'), T('quality_ref')],
    okq.map((e, i) => [
      e.q.id === quant ? h('span', null, e.q.id, ' ', h('span', { class: 'tag fits' }, T('most_used'))) : e.q.id,
      gib(e.x.gguf_file_bytes ?? e.x.checkpoint_bytes, L, 1),
      gib(e.x.memory.total_bytes, L, 1),
      smallest[i] ? h('span', null, link(urlFor({ view: 'main', quant: e.q.id, hw: smallest[i].id, ctx, count: base.count, ram: base.ram }), tableNameWithMemory(smallest[i], L)), ...[basisMark(smallest[i], L), tightMark(smallest[i], L), segmentMark(smallest[i], L)].flatMap((x) => (x ? [' ', x] : []))) : h('span', { class: 'note', dataset: { none: 'true' } }, T('smallest_none')),
      bandText(e.x.quant && e.x.quant.quality, e.q, L),
    ]), { id: 'mp-quant-table', numeric: [1, 2], rowProps: (k) => ({ dataset: { quant: okq[k].q.id } }) }),
  h('p', { class: 'note' }, sentences(L, [T('mp_quants_note'), smallest.some((d, i) => !d && okq[i]) ? T('smallest_none_note') : ''])),
  qualityRefNote(okq.map((e) => e.q), L),
  // Memory below the file size: what of the file is not on the GPU, by its parts (the core's
  // host_weights_parts and the MTP layer llama.cpp does not load), for the format the page is at.
  gapNote(r, L));
  fill('mp-choose', chooseAdvice(okq.map((e) => ({ q: e.q, bytes: e.x.gguf_file_bytes ?? e.x.checkpoint_bytes }))));

  // GPUs alone and with 32/64/128 GB RAM, tiered, and Macs: one call, the core tiers and sorts.
  const tq = /** @type {Record<string, any>} */ (request({ ...base, quant }));
  for (const k of ['hardware', 'count', 'ram_gib', 'engine']) delete tq[k];
  let tl;
  try {
    tl = await tiers(tq);
  } catch (e) {
    if (!alive()) return;
    fill('mp-gpus', errorText(state.lang, e));
    fill('mp-macs');
    fill('mp-unified');
    tl = null;
  }
  if (!alive()) return;
  // The section's heading and note name the tiers' own format, context and RAM sizes (the core's).
  const ramTier = (/** @type {number} */ g) => gib(g * 1024 ** 3, L, 0);
  text('mp-gpus-title', T('gpus_run', { quant: tl ? tl.quant : quant, ctx: tokens(tl ? tl.context : ctx, L) }));
  const tierAt = { quant: tl ? tl.quant : quant, ctx: tokens(tl ? tl.context : ctx, L) };
  text('mp-macs-title', T('macs_run', tierAt));
  text('mp-unified-title', T('unified_run', tierAt));
  text('mp-gpus-note', tl ? T('gpus_note', { tiers: joinList(tl.ram_tiers_gib.map(ramTier), L, 'disjunction') }) : '');
  const mostRam = tl && tl.ram_tiers_gib.length ? ramTier(tl.ram_tiers_gib[tl.ram_tiers_gib.length - 1]) : '—';
  const gt = tl ? tl.gpus : [];
  const mt = tl ? tl.macs : [];
  const ut = tl ? tl.unified : [];
  const hasSpeed = [...gt, ...mt, ...ut].some((e) => e.speed);
  const row = (/** @type {any} */ e) => {
    // A size that is the vendor's own figure (the core's device.memory_basis): marked beside it,
    // its sentence (the low end the driver may report) in the mark; the verdict beside is the
    // core's, judged on that low end.
    const mark = basisMark(e.device, L);
    const cells = [
      link(urlFor({ view: 'main', hw: e.device.id, quant, ctx, count: base.count, ram: e.ram_gib }), rowName(e.device, L)),
      mark ? h('span', null, gibExact(e.device.memory_gib * GiB, L), ' ', mark) : gibExact(e.device.memory_gib * GiB, L),
      e.memory ? gib(e.memory.total_bytes, L, 1) : '—',
      // A device that holds it with no room to spare says "tight", as its own page does (the core's verdict);
      // a Mac or other unified-memory machine holds it in its unified memory, not in GPU memory.
      e.tier === 'offload' ? T('with_ram', { 0: gib(e.ram_gib * 1024 ** 3, L, 0) }) : T(e.tier === 'fits' && e.verdict === 'tight' ? 'tier_tight' : e.tier === 'fits' && (e.device.kind === 'apple' || e.device.kind === 'unified') ? 'tier_fits_unified' : `tier_${e.tier}`),
    ];
    if (hasSpeed) cells.push(e.speed ? spreadText({ v: e.speed.decode_tps, lo: e.speed.decode_tps_low, hi: e.speed.decode_tps_high }, L) : '—');
    return cells;
  };
  const head = [T('hardware'), T('memory'), T('required'), T('verdict'), ...(hasSpeed ? [T('decode')] : [])];
  const numeric = [1, 2, 4];
  const one = (/** @type {string} */ caption, /** @type {any[]} */ list) => stackTable(caption, head, list.map(row),
    { numeric, rowProps: (k) => ({ dataset: { device: list[k].device.id, tier: list[k].tier } }) });
  // A long list shows its first rows and folds the rest (the fastest come first).
  const SHOW = 12;
  const tbl = (/** @type {string} */ caption, /** @type {any[]} */ list) => (list.length <= SHOW + 3 ? one(caption, list)
    : h('div', null, one(caption, list.slice(0, SHOW)),
      details(T('show_all_rows', { 0: num(list.length, state.lang) }), one(caption, list.slice(SHOW)))));
  const group = (/** @type {any[]} */ list, /** @type {string} */ tier, /** @type {number} */ max) => list.filter((e) => e.tier === tier).slice(0, max);
  // Devices llama.cpp has no backend for (the core's tier "no_engine") get no figures: named once.
  const noEngine = (/** @type {any[]} */ list) => {
    const ne = list.filter((e) => e.tier === 'no_engine');
    return ne.length ? h('p', { class: 'note', dataset: { noEngine: String(ne.length) } },
      T('no_engine_list', { 0: joinList(ne.map((e) => e.device.name), state.lang) })) : null;
  };
  // Each reason once: a tier with no device is one line, not a heading over "none"; when no GPU
  // runs it at all, one line says so (or the setups box below does, naming what does instead)
  // and the list of GPUs that do not folds under a plain summary.
  const gFits = group(gt, 'fits', 999), gOff = group(gt, 'offload', 999), gNo = group(gt, 'no_fit', 999);
  const gpusRun = gFits.length + gOff.length > 0;
  const noSingle = !!(tl && tl.smallest_fit && !tl.smallest_fit.gpus && !tl.smallest_fit.macs && !tl.smallest_fit.unified);
  if (tl) fill('mp-gpus',
    gFits.length ? tbl(T('tier_title_fits'), gFits) : gOff.length ? h('p', { class: 'note', id: 'mp-gpus-none-fit' }, T('tier_none_fit')) : null,
    gOff.length ? tbl(T('tier_title_offload'), gOff) : null,
    !gpusRun && !noSingle ? h('p', { id: 'mp-gpus-none' }, T('gpus_none_run', { ram: mostRam })) : null,
    gNo.length ? details(gpusRun ? T('tier_title_no_fit', { ram: mostRam, 0: String(gNo.length) }) : T('tier_each_gpu', { 0: num(gNo.length, L) }), tbl(T('tier_title_no_fit_short'), gNo)) : null,
    noEngine(gt));
  // A model no single device holds: the least costly real setups from the core's cheapest solver
  // (several GPUs holding it in their memory, or GPUs with the tiers' system RAM), said first, at
  // no slower than the speed floor the page uses for "runs" (the core's runs_on default).
  if (tl && tl.smallest_fit && !tl.smallest_fit.gpus && !tl.smallest_fit.macs && !tl.smallest_fit.unified) {
    const sv = await solve({ ...request({ ...base, quant, hw: refGpu() }), solve: 'cheapest', ram_tiers_gib: defaults.ram_input.device_page, min_decode_tps: defaults.runs_on.min_decode_tps }).catch(() => null);
    if (!alive()) return;
    // The core names the setups (cheapest in device memory, cheapest with system RAM), each with its code.
    /** @type {import('../willitfit').CheapestSetup[]} */
    const setups = sv && Array.isArray(sv.setups) ? sv.setups : [];
    const item = (/** @type {import('../willitfit').CheapestSetup} */ o) => h('li', { dataset: { device: o.id, count: String(o.count), ram: String(o.ram_gib), verdict: o.verdict, code: o.code } },
      link(urlFor({ view: 'main', hw: o.id, quant, ctx, count: o.count, ram: o.ram_gib }), `${times(o.count, L)} ${shownName(deviceInfo(o.id) || o, L)}`), ' ',
      T(o.code === 'with_system_ram' ? 'mp_setup_offload' : 'mp_setup_gpus', { total: gib(o.total_bytes, L), ram: gib(o.ram_gib * 1024 ** 3, L, 0), tps: tps(o.decode_tps, L), verdict: T(`short_${o.verdict}`) }));
    const box = h('div', { id: 'mp-setups' }, h('p', null, T(setups.length ? 'mp_no_single' : 'mp_no_setup', { model: m.name, quant: tl.quant, ctx: tokens(tl.context, L) })),
      setups.length ? h('ul', { class: 'plain' }, setups.map(item)) : null);
    byId('mp-gpus').prepend(box);
  }
  // Macs and unified-memory PCs: what runs, then the ones with too little memory folded away.
  // None runs it: the heading names the kind without "that run it", one line says none does,
  // and the machines fold under a plain summary (the reason said once, not as a heading).
  const shared = (/** @type {string} */ id, /** @type {any[]} */ list, /** @type {string} */ caption, /** @type {string} */ noFit, /** @type {string} */ kind) => {
    const runs = list.filter((e) => e.tier === 'fits' || e.tier === 'offload');
    const not = list.filter((e) => e.tier === 'no_fit');
    text(`${id}-title`, T(runs.length ? `${kind}_run` : `${kind}_title_none`, tierAt));
    fill(id, runs.length ? tbl(T(caption), runs) : h('p', { dataset: { none: 'true' } }, T(`${kind}_none_run`)),
      not.length ? details(runs.length ? T(noFit, { 0: String(not.length) }) : T(`${kind}_each`, { 0: num(not.length, L) }), tbl(T(caption), not)) : null, noEngine(list));
  };
  if (tl) {
    shared('mp-macs', mt, 'macs_caption', 'macs_no_fit', 'macs');
    shared('mp-unified', ut, 'unified_caption', 'unified_no_fit', 'unified');
    const why = requiredDiffers([...gt, ...mt, ...ut].filter((e) => e.memory && (e.tier === 'fits' || e.tier === 'offload')), L);
    if (why) byId('mp-gpus').append(why);
  }

  // Limits and FAQ.
  const lf = /** @type {{ high: string, smallest: string }} */ (defaults.limit_formats);
  const [[q8, small], outlook] = await Promise.all([
    // The formats the core states a model's limits with (defaults.limit_formats).
    many([request({ ...base, quant: lf.high, hw: refGpu() }), request({ ...base, quant: lf.smallest, hw: refGpu() })]),
    solve({ ...request({ ...base, quant, hw: refGpu() }), solve: 'kv_outlook' }).catch(() => null),
  ]);
  if (!alive()) return;
  // The cache at the core's long-document context (its kv_outlook), when the model reaches it.
  const long = outlook && outlook.applies ? { to: tokens(outlook.to_context, L), kv32: gib(outlook.to.kv_cache_bytes, L) } : null;
  const limits = [];
  if (s.n_expert > 1)
    limits.push(T('limit_moe', { model: m.name, total: paramsText(m.params_total, L), active: paramsText(m.params_active, L) }));
  if (long) limits.push(T('limit_ctx', { ...long, ctx: tokens(ctx, L), kv8: gib(r.memory.kv_cache_bytes, L) }));
  if (!small.error) limits.push(T('limit_small', { small: lf.smallest, total: gib(small.memory.total_bytes, L) }));
  fill('mp-limits', limits.map((x) => h('li', null, x)));
  // The smallest device that runs it fully: the core's pick per list (tiers smallest_fit).
  const smallestFit = (/** @type {any[]} */ list, /** @type {'gpus' | 'macs'} */ key) => {
    const id = tl && tl.smallest_fit ? tl.smallest_fit[key] : null;
    return id ? list.find((e) => e.device.id === id) : undefined;
  };
  const firstMac = smallestFit(mt, 'macs');
  const qa = [[T('faq_mem_q', { model: m.name }), sentences(L, [T('faq_mem_a', { quant, ctx: tokens(ctx, L), total: gib(r.memory.total_bytes, L), high: lf.high, q8: q8.error ? '—' : gib(q8.memory.total_bytes, L) }), long ? T('faq_mem_long', long) : ''])],
    [T('faq_mac_q', { model: m.name }), firstMac ? T('faq_mac_yes', { quant, mac: shownName(firstMac.device, L), total: gib(firstMac.memory.total_bytes, L), usable: gib(firstMac.memory.usable_bytes, L), mem: gib(firstMac.device.memory_gib * 1024 ** 3, L, 0) }) : T('faq_mac_no', { quant, ctx: tokens(ctx, L) })]];
  const firstGpu = smallestFit(gt, 'gpus');
  // Where its size is the vendor's figure (the core's memory_basis), the answer says so in full:
  // what the driver may report, and that "fits" is judged on that lower figure.
  const gpuBasis = firstGpu ? vendorFigure(firstGpu.device.memory_basis, firstGpu.device.memory_gib * GiB, L) : null;
  qa.push([T('faq_gpu_q', { model: m.name }), firstGpu ? sentences(L, [T('faq_gpu_yes', { quant, gpu: shownName(firstGpu.device, L), mem: gib(firstGpu.device.memory_gib * 1024 ** 3, L, 0) }), gpuBasis ? gpuBasis.text : '']) : T('faq_gpu_no')]);
  fill('mp-faq', qa.map(([q, a]) => h('details', null, h('summary', null, q), h('p', null, a))));
}

/**
 * The total parameter count, with the publisher's figure and, where the file holds an MTP block
 * (counted in the total, loaded only to draft with), that block's own count, both from the core.
 * @param {any} r @param {string} L
 */
function paramsTotal(r, L) {
  const m = r.model;
  const notes = [];
  if (m.params_total_published_b) notes.push(`${T('published')} ${paramsText(m.params_total_published_b * 1e9, L)}`);
  if (r.mtp && r.mtp.params > 0) notes.push(T('params_mtp', { 0: paramsText(r.mtp.params, L) }));
  return notes.length ? aside(L, paramsText(m.params_total, L), notes.join(L === 'zh' ? '，' : ', ')) : paramsText(m.params_total, L);
}

/**
 * The cache per 1K tokens of context, from the core's split of the cache (memory.kv): what grows
 * with the context, and on sliding-window or hybrid models the part that does not (windowed
 * layers, recurrent state), with the total at the page's context, so the figures add up.
 * @param {any} r @param {string} L
 */
function kvPer1k(r, L) {
  const kv = r.memory.kv;
  const per = gib(kv.growing_bytes_per_1k, L);
  if (!(kv.fixed_bytes > 0)) return h('span', { id: 'mp-kv', dataset: { per1k: String(kv.growing_bytes_per_1k), fixed: '0', total: String(r.memory.kv_cache_bytes), cells: String(kv.cells) } }, aside(L, per, String(r.settings.kv_type_k)));
  return h('span', { id: 'mp-kv', dataset: { per1k: String(kv.growing_bytes_per_1k), fixed: String(kv.fixed_bytes), total: String(r.memory.kv_cache_bytes), cells: String(kv.cells) } },
    T('kv_per_1k_fixed', { 0: per, fixed: gib(kv.fixed_bytes, L), kinds: joinList(kv.fixed_kinds.map((/** @type {string} */ k) => T(`kv_kind_${k}`)), L),
      total: gib(r.memory.kv_cache_bytes, L), ctx: tokens(r.settings.context_requested, L) }));
}

/**
 * Why "Required" is not the same on every device at the same format and context: the parts of
 * the core's total (tiers memory) that differ between the rows, each with its range. Weights
 * differ where a discrete GPU leaves the token embedding in system RAM and unified memory counts
 * it; compute buffers and runtime overhead are each backend's own (CUDA, ROCm, Metal, Vulkan).
 * @param {any[]} rows tier entries with figures @param {string} L
 */
function requiredDiffers(rows, L) {
  const parts = /** @type {const} */ ([['weights_bytes', 'part_weights'], ['compute_bytes', 'part_compute'], ['overhead_bytes', 'part_overhead'], ['kv_cache_bytes', 'part_kv']]);
  const said = [];
  for (const [k, key] of parts) {
    const vs = rows.map((e) => e.memory[k]).filter((v) => typeof v === 'number');
    if (!vs.length) continue;
    const lo = gib(Math.min(...vs), L), hi = gib(Math.max(...vs), L);
    if (lo !== hi) said.push(T(key, { 0: range(lo, hi) }));
  }
  return said.length ? h('p', { class: 'note', id: 'mp-required-why' }, T('required_differs', { 0: joinList(said, L) })) : null;
}

/**
 * What the quality column is: one reference model's measured perplexity change per format, the
 * same on every model's page, with a link to where it was measured (the catalog's source).
 * @param {any[]} qs the formats in the table @param {string} L
 */
export function qualityRefNote(qs, L) {
  const ref = qualityReference(qs);
  return ref ? h('p', { class: 'note', id: 'quality-ref' }, T('quality_ref_note'), gap(L), h('a', { href: ref, rel: 'noopener', target: '_blank' }, T('quality_ref_source'))) : null;
}

/** The core's quality band for a format (data/quants.json quality_bands), with its figure. */
const BAND_KEYS = /** @type {Record<string, string>} */ ({ lossless: 'q_lossless', near_lossless: 'q_near', good: 'q_good', noticeable: 'q_noticeable', heavy: 'q_heavy' });
/** @param {any} quality @param {any} q @param {string} L */
function bandText(quality, q, L) {
  if (!quality || !BAND_KEYS[quality.band]) return qualityText(q, L);
  const d = quality.ppl_delta_pct;
  return typeof d === 'number' ? aside(L, T(BAND_KEYS[quality.band]), `${signedPct(d, L, d < 1 ? 2 : 1)}\u00a0PPL`) : T(BAND_KEYS[quality.band]);
}

/**
 * "Q4, Q5 or Q8: how to choose", worded around this model's own file sizes (the core's) and the
 * catalog's measured perplexity change per format (data/quants.json), never a fixed ratio.
 * @param {{q: any, bytes: number}[]} rows
 */
function chooseAdvice(rows) {
  const L = state.lang;
  const by = Object.fromEntries(rows.map((x) => [x.q.id, x]));
  const size = (/** @type {string} */ id) => (by[id] ? gib(by[id].bytes, L, 1) : '—');
  const ppl = (/** @type {string} */ id) => {
    const d = by[id]?.q.ppl_delta_pct;
    return typeof d === 'number' ? signedPct(d, L, d < 1 ? 2 : 1) : T('quality_unknown');
  };
  const items = [];
  if (by.Q8_0) items.push(T('choose_q8', { q8: size('Q8_0'), bf16: size('BF16'), ppl: ppl('Q8_0') }));
  if (by.Q6_K && by.Q5_K_M) items.push(T('choose_q56', { q6: size('Q6_K'), q5: size('Q5_K_M'), q8: size('Q8_0'), q6ppl: ppl('Q6_K'), q5ppl: ppl('Q5_K_M') }));
  if (by.Q4_K_M) items.push(T('choose_q4', { q4: size('Q4_K_M'), bf16: size('BF16'), ppl: ppl('Q4_K_M') }));
  if (by.Q3_K_M || by.Q2_K) items.push(T('choose_low', { q3: size('Q3_K_M'), q2: size('Q2_K'), q3ppl: ppl('Q3_K_M'), q2ppl: ppl('Q2_K') }));
  // Whose perplexity figures these are: the quantization table's note says it (qualityRefNote).
  return items.map((x) => h('li', null, x));
}

/** @param {string} summary @param {Node | null} body */
function details(summary, body) {
  return h('details', { class: 'more' }, h('summary', null, summary), body);
}

/** @param {string} id */
function deviceName(id) {
  return hardware.find((d) => d.id === id)?.name || id;
}


