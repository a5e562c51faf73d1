// @ts-check
// The model × device view: verdict, memory cards, the stacked bar and the breakdown (from one
// estimate), then the sections that need many estimates (memory over context, the quantization
// matrix, diagnostics and "make it fit", FAQ, links), filled a moment later from the Worker.
// Sections for fields other parts of the core add (speed, commands, per-device memory, cost,
// fine-tuning) stay hidden until the result carries them.
import { call, many, solve } from '../client.js';
import { accelerators, defaults, deviceInfo, engines, ggufQuants, modelInfo, models, request, serverQuants } from '../catalog.js';
import { lineChart } from '../chart.js';
import { isAccelerator } from '../device-name.js';
import { byId, commandTokens, fill, h, link, setText, table, text } from '../dom.js';
import { backendName, gb, gib, gibExact, list, ms, num, params as paramsCount, pct, range, signed, signedPct, times, tokens, tps, units } from '../format.js';
import { aside, commas, dots, gap, sentence, sentenceCase, sentences, t, tn } from '../i18n.js';
import { state, urlFor } from '../state.js';
import { renderCost } from './cost.js';
import { renderFinetune } from './finetune.js';
import { fixKey, renderMakeItFit, renderPicks } from './picks.js';
import { basisMark, cardValue, commandsOf, deviceFigure, hwLabel, kindWords, qualityReference, rowName, ruleFromCode, segmentMark, shownName, smallestDevices, tableNameWithMemory, tightMark, topologyText, speedOf, spreadText, ttftNote, uncertainFields, uncertainMark, uncertainWhy, vendorFigure } from './shared.js';
import { renderSimulator } from './simulator.js';
import { announceEngines, renderEngines } from './engines.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** @param {any} r */
export function hwName(r) {
  return hwLabel(r, state.lang);
}

/** True for the serving engines (vLLM, SGLang), whose KV cache is a preallocated pool. @param {any} r */
export function isServer(r) {
  return !!r.settings && (r.settings.engine === 'vllm' || r.settings.engine === 'sglang');
}

/** The server's own block of the document (`vllm`, or `sglang` once the core writes it there). @param {any} r */
export function serverOf(r) {
  return r.sglang || r.vllm || null;
}

/**
 * No result (the core refused the request): the sections below would only show figures of an
 * earlier request or wait forever, so they are put away; the error box says why, once.
 */
export function clearExtras() {
  byId('view-main').dataset.failed = 'true';
  for (const id of ['plug-speed', 'serve-cards', 'plan', 'verdict-fix']) byId(id).hidden = true;
  delete byId('verdict-fix').dataset.for;
  // The folded form's line still says what was asked (there is no result to name it).
  const mi = modelInfo(state.model), d = deviceInfo(state.hw);
  const hw = d ? hwName({ hardware: { ...d, count: state.count } }) : state.hw;
  const asked = state.model.length > 80 ? `${state.model.slice(0, 79)}…` : state.model;   // a link may carry kilobytes
  text('setup-line', dots(state.lang, [mi ? mi.name : asked, state.quant, state.ctx > 0 ? tokens(state.ctx, state.lang) : '', hw]));
}

/** The part drawn from the one estimate. @param {any} r */
export function renderMain(r) {
  const L = state.lang;
  const m = r.memory;
  byId('error').hidden = true;
  delete byId('view-main').dataset.failed;
  byId('verdict').dataset.verdict = r.verdict;
  // A server engine's KV pool fills what its share leaves: "room to spare" would contradict the margin.
  text('verdict-text', T(isServer(r) && r.verdict === 'fits' ? 'verdict_fits_server' : `verdict_${r.verdict}`));
  const server = isServer(r) ? serverOf(r) : null;
  // Does the setup run (a server engine starts, llama.cpp loads it)? The words for its device
  // (kindWords): worked out once per render and passed to the sections.
  const runs = r.verdict !== 'no_fit';
  const kw = kindWords(r, L);
  // vLLM / SGLang: what the stated sequences need (the core's memory.total_bytes) against what
  // the engine sets aside (memory.reserved_bytes) and how many such sequences its pool holds.
  const dem = server && server.demand ? server.demand : null;
  const seqs = dem ? tn(L, 'seq_count', dem.sequences, { n: num(dem.sequences, L) }) : '';
  // The engine's share that reads as all of the usable memory (the core's reserved_code): "all of".
  text('summary', T(dem ? (m.reserved_code === 'all_usable' ? 'summary_server_all' : 'summary_server') : 'summary', {
    model: r.model.name, quant: r.quant.id, ctx: tokens(server ? r.settings.context : r.settings.context_requested, L),
    total: gib(m.total_bytes, L), hw: hwName(r), usable: gib(m.usable_bytes, L),
    ...(dem ? { seqs, engine: engineName(r.settings.engine), reserved: gib(m.reserved_bytes, L), pool: num(dem.pool_sequences, L) } : {}),
  }));
  // An architecture the core does not model exactly, estimated as a standard decoder: say so.
  // Filled by "make it fit" (picks.js) for this request only: kept while the request is the one
  // it was drawn for (a prerendered page the app takes over: the same box, nothing moves).
  if (byId('verdict-fix').dataset.for !== fixKey()) fill('verdict-fix').hidden = true;
  const approx = byId('approx-note');
  approx.hidden = !r.model.approximate;
  setText(approx, r.model.approximate ? T(`approx_note${r.model.approximate_code && r.model.approximate_code !== 'unsupported_model_type' ? `_${r.model.approximate_code}` : ''}`, { 0: String(r.model.model_type || '?') }) : '');
  // …and the verdict itself says it is approximate, so no one reads it as the exact answer.
  const badge = byId('verdict-approx');
  badge.hidden = !r.model.approximate;
  setText(badge, r.model.approximate ? T('approx_badge') : '');
  text('setup-line', dots(L, [r.model.name, r.quant.id, tokens(r.settings.context_requested, L), hwName(r),
    r.speculative && r.speculative.draft ? T('setup_draft', { 0: String(r.speculative.draft.name || r.speculative.draft.id) }) : '']));
  text('c-total', gib(m.total_bytes, L));
  // The upper figure only when the core's upper bound differs from the estimate.
  // The figure in decimal GB on one line, said to be GB and why (disks and downloads count in
  // 10⁹ bytes), the core's upper bound (GiB) on its own line, so neither reads as the other's twin.
  fill('c-total-gb', h('span', { class: 's-line' }, T('in_gb', { 0: gb(m.total_bytes, L) })),
    m.total_high_bytes > m.total_bytes ? h('span', { class: 's-line' }, T('upper', { 0: gib(m.total_high_bytes, L) })) : null);
  // A preallocating engine: the second card is what it sets aside, out of the usable memory.
  const usableLabel = byId('c-usable-label');
  usableLabel.dataset.i18n = dem ? 'reserved' : 'usable';
  setText(usableLabel, T(usableLabel.dataset.i18n));
  text('c-usable', gib(dem ? m.reserved_bytes : m.usable_bytes, L));
  // A memory size public sources do not settle: marked on the card it feeds.
  // A size that is the vendor's own figure: marked there too, said in full under the bar.
  const vf = vendorFigure(r.hardware.memory_basis, r.hardware.memory_gib * 1024 ** 3, L);
  fill('c-usable-unc', uncertainMark(r.hardware.uncertain, 'memory_gib', L), vf ? vf.mark : null);
  // A share that reads as all of the usable memory (the core's reserved_code) is said so, not "X of X".
  text('c-physical', dem ? T(m.reserved_code === 'all_usable' ? 'reserved_note_all' : 'reserved_note', { 0: gib(m.usable_bytes, L) }) : T('physical', { 0: gibExact(m.physical_bytes, L) }));
  const host = m.host && m.host.total_bytes > 0 ? m.host : null;
  const card3 = byId('c-margin').parentElement;
  if (r.verdict === 'offload' && host) {
    // The plan runs: what the GPUs hold and what system RAM holds, not a negative margin.
    setText(/** @type {HTMLElement} */ (card3.querySelector('.k')), T('in_ram'));
    text('c-margin', gib(host.total_bytes, L));
    text('c-util', T('of_ram', { 0: gib(host.ram_usable_bytes, L) }));
  } else if (dem) {
    // The pool's room beyond the sequences asked (the core's demand.room_bytes), in sequences
    // of the same length.
    setText(/** @type {HTMLElement} */ (card3.querySelector('.k')), T('pool_room'));
    const margin = m.margin_bytes;
    text('c-margin', (margin >= 0 ? '+' : '−') + gib(Math.abs(margin), L));
    const ctx = tokens(dem.context, L);
    text('c-util', dem.room_sequences > 0 ? tn(L, 'pool_room_note', dem.room_sequences, { n: num(dem.room_sequences, L), ctx })
      : dem.room_sequences === 0 ? T('pool_room_none', { ctx })
      : dem.pool_sequences === 0 ? T('pool_room_short', { ctx })
      : T('pool_room_over', { pool: num(dem.pool_sequences, L), asked: num(dem.sequences, L), ctx }));
  } else {
    setText(/** @type {HTMLElement} */ (card3.querySelector('.k')), T('margin'));
    const margin = m.margin_bytes;
    text('c-margin', (margin >= 0 ? '+' : '−') + gib(Math.abs(margin), L));
    text('c-util', T(margin >= 0 ? 'utilization' : 'utilization_over', { 0: pct(m.utilization, L) }));
  }
  // The engine's own figure at its cache type (the core's memory.kv: llama.cpp's kv_type, vLLM's
  // or SGLang's kv_cache_dtype), over the layers it names: on a sliding-window or hybrid model
  // the layers that grow with the context, the others holding a window or a state.
  text('c-kvtok', `${num(m.kv.bytes_per_token / 1024, L, 1)}\u00a0${units(L).kib}`);
  byId('c-kvtok').dataset.bytes = String(m.kv.bytes_per_token);
  text('c-topology', dots(L, [topologyText(r.model.topology_code, L), m.kv.cache_type, m.kv.bytes_per_token_covers === 'growing_layers' ? T('kv_tok_growing') : '']));
  const rule = m.usable_rule_code && m.usable_rule_code.code ? ruleFromCode(m.usable_rule_code, L, r.hardware.device_type) : '';
  const ruleLine = rule ? T('usable_line', { 0: T('usable'), 1: rule }) : '';
  text('usable-rule', vf ? sentences(L, [sentence(L, ruleLine), vf.text]) : ruleLine);
  // What the core changed or read differently in the request (a format that does not apply to
  // the engine, an alias), each a code with its values.
  fill('notes', (Array.isArray(r.notes) ? r.notes : []).map((/** @type {any} */ n) => h('span', { class: 'core-note', dataset: { code: n.code } },
    T(`note_${n.code}`, Object.fromEntries(Object.entries(n.values || {}).map(([k, v]) => [k, k === 'engine' ? engineName(String(v)) : typeof v === 'number' ? num(v, L) : String(v)]))), ' ')));

  const scale = Math.max(m.total_bytes, m.usable_bytes) || 1;
  const seg = (/** @type {string} */ id, /** @type {number} */ b) => { byId(id).style.width = `${(100 * b) / scale}%`; };
  seg('seg-weights', m.weights_bytes);
  seg('seg-kv', m.kv_cache_bytes);
  // The rest of a server engine's pool, set aside beside what the sequences asked need.
  const poolRest = dem ? Math.max(0, (m.kv_pool_bytes || 0) - m.kv_cache_bytes) : 0;
  seg('seg-pool', poolRest);
  seg('seg-compute', m.compute_bytes);
  seg('seg-overhead', m.overhead_bytes);
  seg('seg-projector', m.projector_bytes || 0);
  seg('seg-draft', m.draft_bytes || 0);
  byId('bar-limit').style.left = `${(100 * m.usable_bytes) / scale}%`;
  byId('bar').setAttribute('aria-label', `${T('required')} ${gib(m.total_bytes, L)} / ${T('usable')} ${gib(m.usable_bytes, L)}`);

  text('t-weights', gib(m.weights_bytes, L));
  text('t-kv', gib(m.kv_cache_bytes, L));
  // The rest of the pool is a row of its own while the engine starts; when it does not (the core's
  // no_fit) there is no pool to describe ("0 blocks of 16 tokens"), as for the serving cards.
  const poolRow = !!dem && runs;
  byId('r-pool').hidden = !poolRow;
  text('t-pool', poolRow ? gib(poolRest, L) : '');
  text('t-compute', gib(m.compute_bytes, L));
  text('t-overhead', gib(m.overhead_bytes, L));
  const file = r.gguf_file_bytes ?? r.checkpoint_bytes;
  const why = sentences(L, [
    T('why_weights', { n: params(r.model.params_total, L), bpw: num(r.quant.bits_per_weight, L, 2), file: aside(L, gib(file, L), gb(file, L)) }),
    m.host_weights_bytes > 0 ? hostText(m, L, kw) : '',
    // A multi-token-prediction layer shipped in the file but not loaded (the core's mtp block).
    // llama.cpp keeps some models' MTP layer unused (GLM-5): the core's mtp.drafts says which note.
    r.mtp && r.mtp.file_bytes > 0 && !r.mtp.loaded && typeof r.gguf_file_unloaded_bytes === 'number'
      ? T(r.mtp.drafts ? 'mtp_note' : 'mtp_note_unused', { ...kw, 0: gib(r.mtp.file_bytes, L), 1: gib(r.gguf_file_unloaded_bytes, L) }) : '',
    // A server engine: the checkpoint's MTP layer it leaves unloaded (the core's checkpoint_unloaded_bytes).
    server && r.mtp && r.mtp.file_bytes > 0 && !r.mtp.loaded && r.checkpoint_unloaded_bytes > 0
      ? T('mtp_note_server', { 0: gib(r.mtp.file_bytes, L), engine: engineName(r.settings.engine) }) : '',
    r.mtp && r.mtp.loaded ? T('mtp_note_on', { 0: gib(r.mtp.resident_bytes, L) }) : '',
    server ? weightsOverGpus(server, m, L, kw) : '',
  ]);
  // The MTP switch is offered only for a model that ships MTP layers and an engine that drafts
  // with them (the core's mtp block); the engines that do go along for a change of engine.
  byId('mtp-field').hidden = !(r.mtp && r.mtp.layers > 0 && r.mtp.drafts);
  byId('mtp-field').dataset.engines = r.mtp && r.mtp.draft_engines ? r.mtp.draft_engines.join(' ') : '';
  renderDraft(r);
  text('w-weights', why);
  if (server) {
    // vLLM and SGLang preallocate the cache: what is left of their memory share after weights
    // and activations becomes a pool of KV blocks, whatever the context asked for.
    // The core's pool_code says how it is counted: SGLang's single tokens ("blocks of 1 token" says
    // nothing), blocks of block_size tokens, or blocks that several page groups share (DeepSeek V4
    // under vLLM, where a block covers a different number of tokens in each group).
    const poolKey = { tokens: 'why_kv_pool_tokens', shared_blocks: 'why_kv_pool_shared' }[server.pool_code] || 'why_kv_pool';
    const pool = T(poolKey, {
      tokens: num(server.kv_tokens, L), blocks: num(server.num_blocks, L), block: num(server.settings?.block_size, L),
      groups: num((server.kv_groups || []).length, L), per: num(server.blocks_per_request, L), ctx: tokens(server.settings?.max_model_len ?? r.settings.context, L),
    });
    // The same tokens' cache on several GPUs (MLA's one latent head, or fewer KV heads than
    // GPUs): the core's kv_copies and its code say why the pool is per GPU, not split. A setup the
    // engine does not start has no pool: "0.00 GiB per GPU" would contradict the cache it needs.
    const copies = runs && server.kv_copies > 1 && server.kv_copies_code ? T(`why_kv_copies_${server.kv_copies_code}`, {
      ...kw, engine: engineName(r.settings.engine), n: num(server.settings?.tensor_parallel, L), copies: num(server.kv_copies, L),
      per: gib(Math.max(0, server.per_gpu?.kv_available_bytes ?? 0), L), all: gib(m.kv_pool_bytes ?? m.kv_cache_bytes, L),
    }) : '';
    // The cache row is what the stated sequences need of the pool; the pool itself is described
    // on the row of its rest.
    const need = dem ? T('why_kv_need', { seqs, ctx: tokens(dem.context, L), need: gib(m.kv_cache_bytes, L) }) : '';
    // DeepSeek sparse attention (the core's sparse_attention split of the per-token cache).
    const sp = server.sparse_attention;
    const kib = (/** @type {number} */ b) => `${num(b / 1024, L, 2)}\u00a0${units(L).kib}`;
    // DeepSeek V4's compressed attention (kind dsv4) splits differently from V3.2's (dsa).
    const sparse = sp ? T(sp.kind === 'dsv4' ? 'why_kv_sparse_dsv4' : 'why_kv_sparse', {
      engine: engineName(r.settings.engine), latent: kib(sp.latent_bytes_per_token), indexer: kib(sp.indexer_bytes_per_token), top_k: num(sp.top_k, L),
      entries: num(sp.top_entries, L), window: num(sp.window_tokens, L),
    }) : '';
    text('w-kv', sentences(L, dem ? [need, sparse, copies] : [pool, sparse, copies]));
    text('w-pool', poolRow ? sentences(L, [pool, T('why_pool_rest')]) : '');
  } else {
    // A recurrent group (Mamba, delta-rule, short-conv layers) holds a fixed state, not cells per token.
    const g = m.kv.groups.map((/** @type {any} */ x) => x.kind === 'recurrent'
      ? T('why_kv_state', { layers: num(x.layers, L), size: gib(x.bytes, L) })
      // mlx-lm's DeepSeek V4 compressors: the tokens not yet pooled, fewer than a block a layer.
      : x.kind === 'pending' ? T('why_kv_pending', { layers: num(x.layers, L), size: gib(x.bytes, L) })
      // DeepSeek V3.2's lightning-indexer keys, cached beside the MLA latent (memory.kv group "indexer");
      // MLA layers whose every head's keys and values mlx-lm caches, not the latent (the core's mlx.mla_cache).
      : T(x.kind === 'indexer' ? 'why_kv_indexer' : x.kind === 'mla' && r.mlx?.mla_cache === 'per_head' ? 'why_kv_heads' : 'why_kv', {
        layers: num(x.layers, L), per_token: `${num(x.bytes_per_token / x.layers / 1024, L, 2)}\u00a0${units(L).kib}`, cells: num(x.cells, L),
      }));
    // One sentence: the groups joined with "+", the full stop once at the end.
    const end = L === 'zh' ? '。' : '.';
    text('w-kv', g.length ? `${g.map((x) => x.replace(/[.。]\s*$/, '')).join(' + ')}${end}` : T('why_kv_none'));
  }
  // llama.cpp: its compute buffer; vLLM / SGLang: the peak activations of the engine's profiling
  // run (per GPU), which is what memory.compute_bytes holds for them.
  const act = server && server.per_gpu ? server.per_gpu.activation_bytes : null;
  text('w-compute', r.mlx
    // MLX: one prefill chunk's activations (the core's mlx.prefill_step tokens).
    ? T('why_compute_mlx', { n: num(r.mlx.prefill_step, L), act: gib(m.compute_bytes, L) })
    : typeof act === 'number'
    ? T('why_compute_server', { ...kw, engine: engineName(r.settings.engine), act: gib(act, L) })
    // With FlashAttention the core counts no attention scratch (0 bytes): the sentence leaves
    // that term out rather than showing "(0.00 GiB)".
    // Pipeline parallelism keeps copies of each device's input beside that scratch (the core's
    // figure), a sentence of its own joined as the language joins sentences.
    : sentences(L, [T(`${(m.devices || []).length > 1 ? 'why_compute_multi' : 'why_compute'}${m.compute.attention_bytes === 0 ? '_fa' : ''}`, {
      logits: gib(m.compute.logits_bytes, L), attn: gib(m.compute.attention_bytes, L), ffn: gib(m.compute.ffn_bytes, L),
      ...kw, n: num((m.devices || []).length, L) }),
    m.compute.pipeline_copies_bytes > 0 ? T('why_compute_copies', { ...kw, copies: gib(m.compute.pipeline_copies_bytes, L) }) : '',
    // llama.cpp's MTP context: a compute buffer of its own, part of the figure (speculative.compute_bytes).
    r.speculative && r.speculative.kind === 'mtp' && r.speculative.compute_bytes > 0 ? T('why_compute_mtp', { 0: gib(r.speculative.compute_bytes, L) }) : '']));
  text('w-overhead', T(r.hardware.count > 1 ? 'why_overhead_each' : 'why_overhead', { ...kw, backend: backendName(r.hardware.backend) }));
  renderProjector(r);
  renderAudio(r);
  // Parallel sequences: llama.cpp's -np, and for vLLM / SGLang the sequences the core sizes the
  // need and the pool's room for (its request's parallel, read as concurrency).
  crumbs(r);
  renderPlugins(r, kw, runs);
  announceEngines(r);   // a Mac: the side-by-side section, pending until renderExtras fills it
}

/**
 * What stays in system RAM of an all-on-GPU plan (llama.cpp's input layer), by its parts: the
 * token embedding, and Gemma 3n's per-layer embedding table beside it (memory.host_weights_parts).
 * @param {any} m result.memory @param {string} L @param {Record<string, string>} kw the device's words (shared.js kindWords)
 */
export function hostText(m, L, kw) {
  const p = m.host_weights_parts || {};
  return p.per_layer_token_embd > 0
    ? T('why_host_ple', { ...kw, emb: gib(p.token_embd || 0, L), ple: gib(p.per_layer_token_embd, L), all: gib(m.host_weights_bytes, L) })
    : T('why_host', { ...kw, 0: gib(m.host_weights_bytes, L) });
}

/**
 * What of the file is not in the accelerator figures, by its parts: the input embeddings llama.cpp
 * keeps in system RAM on a discrete GPU, and a multi-token-prediction layer it does not load.
 * Empty when neither applies.
 * @param {any} r @param {string} L
 */
export function fileGap(r, L) {
  const host = r.memory.host_weights_bytes > 0 ? hostText(r.memory, L, kindWords(r, L)) : '';
  const mtp = r.mtp && r.mtp.file_bytes > 0 && !r.mtp.loaded ? T(r.mtp.drafts ? 'mp_gap_mtp' : 'mp_gap_mtp_unused', { 0: gib(r.mtp.file_bytes, L) }) : '';
  return sentences(L, [host, mtp]);
}

/**
 * vLLM / SGLang over several GPUs: the weights figure is the per-GPU share times the GPUs, which
 * is more than the file by what every GPU keeps whole; the parts and sizes are the core's
 * (server.per_gpu.replicated_weights_bytes, server.weights).
 * @param {any} sv the server block @param {any} m result.memory @param {string} L @param {Record<string, string>} kw the device's words
 */
function weightsOverGpus(sv, m, L, kw) {
  const n = sv.settings && sv.settings.tensor_parallel;
  const w = sv.weights;
  if (!(n > 1) || !w || !sv.per_gpu) return '';
  const parts = Object.entries(w.replicated_parts || {}).filter(([, b]) => b > 0).sort((a, b) => b[1] - a[1])
    .map(([k, b]) => T('rep_part', { what: T(`rep_part_${k}`, kw), size: gib(b, L, b < 0.01 * 1024 ** 3 ? 3 : 2) }));
  return T(parts.length ? 'why_weights_tp' : 'why_weights_tp_split', {
    ...kw, n: num(n, L), per: gib(sv.per_gpu.weights_bytes, L), rep: gib(sv.per_gpu.replicated_weights_bytes, L),
    parts: list(parts, L), all: gib(m.weights_bytes, L), extra: gib(w.extra_copies_bytes, L), loaded: gib(w.loaded_bytes, L),
  });
}

/**
 * The vision projector of a multimodal model (result.projector): its row in the breakdown, loaded
 * or not, with the image tokens in words, and the images field (shown for a model with a vision
 * tower). Every figure is the core's.
 * @param {any} r
 */
function renderProjector(r) {
  const L = state.lang;
  const p = r.projector;
  byId('images-field').hidden = !p;
  byId('r-projector').hidden = !p;
  if (!p) return;
  if (!p.modelled) {
    text('t-projector', '—');
    text('w-projector', T(p.code === 'vision_config_incomplete' ? 'proj_incomplete' : 'proj_unmodelled', { 0: String(p.missing || p.model_type || '?') }));
    return;
  }
  const file = commas(L, [gib(p.bytes, L), gb(p.bytes, L)]);
  const img = p.image || {};
  const size = T(img.size_dependent ? 'proj_size_at' : 'proj_size_fixed', { w: num(img.width, L), h: num(img.height, L) });
  const parts = [];
  if (p.loaded) {
    text('t-projector', gib(p.resident_bytes, L));
    parts.push(T(p.placement === 'cpu' ? 'proj_on_cpu' : 'proj_on', {
      type: String(p.type).toUpperCase(), file, buf: gib(p.compute_bytes, L), dev: r.memory.devices && r.memory.devices[0] ? r.memory.devices[0].name : hwName(r),
    }));
    parts.push(T('proj_tokens', {
      tokens: num(p.tokens_per_image, L), size, n: num(p.images, L), all: num(p.image_tokens, L),
      share: pct(p.context_share, L, 1), ctx: tokens(r.settings.context, L), kv: gib(p.image_kv_bytes, L),
    }));
    if (typeof p.image_prefill_seconds === 'number') parts.push(T('proj_prefill', { 0: num(p.image_prefill_seconds, L, 2) }));
    if (p.exceeds_context) parts.push(T('proj_exceeds'));
  } else {
    text('t-projector', T('proj_not_loaded'));
    parts.push(T(p.code === 'engine_not_modelled' ? 'proj_off_engine' : 'proj_off', {
      type: String(p.type).toUpperCase(), file, buf: gib(p.compute_bytes, L), tokens: num(p.tokens_per_image, L), size,
    }));
  }
  // Read from the repo's own mmproj file (core gguf/mmproj.hpp), not computed from a config.
  if (p.source === 'mmproj_file' && p.file)
    parts.push(T('proj_file', { 0: String(p.file.path || '?'), 1: String(p.file.revision || '').slice(0, 12) || '?', 2: num(p.file.tensors, L) }));
  text('w-projector', sentences(L, parts));
}

/**
 * The audio encoder of a multimodal model (result.audio): its row in the breakdown, loaded or not,
 * with the audio's 30 s windows, tokens and prefill time in words, and the audio field (shown for
 * a model with an audio tower). Every figure is the core's.
 * @param {any} r
 */
function renderAudio(r) {
  const L = state.lang;
  const a = r.audio;
  byId('audio-field').hidden = !a;
  byId('r-audio').hidden = !a;
  if (!a) return;
  if (!a.modelled) {
    text('t-audio', '—');
    text('w-audio', T(a.code === 'audio_config_incomplete' ? 'aud_incomplete' : 'aud_unmodelled', { 0: String(a.missing || a.model_type || '?') }));
    return;
  }
  const file = commas(L, [gib(a.bytes, L), gb(a.bytes, L)]);
  const parts = [];
  // One mmproj file with both towers (Qwen2.5-Omni): the vision projector's row already holds the
  // whole file and both buffers, so this row says so instead of counting the encoder twice.
  const p = r.projector;
  const shared = !!(p && p.modelled && p.loaded && a.file_bytes === p.bytes);
  if (a.loaded) {
    text('t-audio', shared ? T('aud_in_proj_cell') : gib(a.resident_bytes, L));
    parts.push(T(shared ? 'aud_in_proj' : a.placement === 'cpu' ? 'aud_on_cpu' : 'aud_on', {
      type: String(a.type).toUpperCase(), file, buf: gib(a.compute_bytes, L), dev: r.memory.devices && r.memory.devices[0] ? r.memory.devices[0].name : hwName(r),
    }));
    parts.push(T('aud_tokens', {
      secs: num(a.seconds, L), windows: num(a.windows, L), per: num(a.tokens_per_window, L), all: num(a.tokens, L),
      share: pct(a.context_share, L, 1), ctx: tokens(r.settings.context, L), kv: gib(a.kv_bytes, L),
    }));
    if (typeof a.prefill_seconds === 'number')
      parts.push(T('aud_prefill', { 0: num(a.prefill_seconds, L, 2), 1: num(a.token_prefill_seconds, L, 2), 2: num(a.encode_seconds, L, 2) }));
    if (a.exceeds_context) parts.push(T('aud_exceeds'));
  } else {
    text('t-audio', T('aud_not_loaded'));
    parts.push(T(a.code === 'engine_not_modelled' ? 'aud_off_engine' : 'aud_off', {
      type: String(a.type).toUpperCase(), file, buf: gib(a.compute_bytes, L), per: num(a.tokens_per_window, L),
    }));
  }
  text('w-audio', sentences(L, parts));
}

/** An engine id as it spells itself (the core's defaults: engines[id].name). @param {string} e */
export function engineName(e) {
  const known = (defaults && defaults.engines && defaults.engines[e]) || engines.find((x) => x.engine === e);
  return known && typeof known.name === 'string' ? known.name : e;
}

/** Parameters in the language's words (format.js params: "109B", "109 Md", "1092亿"). @param {number} n @param {string} L */
export function params(n, L) {
  return paramsCount(n, L);
}

/**
 * The speed cards, with the core's low–high range on every figure and the prompt the TTFT is for.
 * @param {any} r @param {Record<string, string>} kw the device's words (kindWords)
 */
function renderSpeed(r, kw) {
  const L = state.lang;
  const sp = speedOf(r);
  const box = byId('plug-speed');
  box.hidden = !sp;
  if (!sp) return;
  const s = r.speed;
  const offload = r.verdict === 'offload';
  // Decode reads memory (bandwidth), prefill computes (FP16 rate): a figure of the device that
  // public sources do not settle is marked on the speed that rests on it.
  const u = r.hardware.uncertain;
  const bw = uncertainMark(u, 'bandwidth_gbs', L);
  const fl = uncertainMark(u, 'fp16_tflops', L);
  fill('speed-cards',
    sp.decode ? card([T('decode'), bw ? ' ' : '', bw], spreadText(sp.decode, L), decodeNote(s, offload, L), { id: 'k-decode', dataset: { v: String(sp.decode.v), lo: String(sp.decode.lo), hi: String(sp.decode.hi) } }) : null,
    sp.prefill ? card([T('prefill'), fl ? ' ' : '', fl], spreadText(sp.prefill, L), typeof s.prompt === 'number' ? T('prefill_note', { 0: num(s.prompt, L) }) : '', { id: 'k-prefill', dataset: { v: String(sp.prefill.v), lo: String(sp.prefill.lo), hi: String(sp.prefill.hi) } }) : null,
    // The whole prompt's first token (speed.first_token: text, images, audio), and what it includes.
    sp.ttft ? card([T('ttft'), fl ? ' ' : '', uncertainMark(u, 'fp16_tflops', L)], spreadText(sp.ttft, L, 'ms'), ttftNote(s, L),
      { id: 'k-ttft', dataset: { v: String(sp.ttft.v), ...(s.first_token ? { code: String(s.first_token.code) } : {}) } }) : null);
  renderUncertain(r);
  renderSpeedBasis(s, kw);
  renderSpeculative(r);
  // The host link and memory the core used (memory.host.link, memory.host.ram_bandwidth): a
  // superchip's own link (NVLink-C2C) and memory type are named with their figures; PCIe is not.
  const host = offload ? r.memory.host : null;
  const hl = host && host.link, hm = host && host.ram_bandwidth;
  const gbs = (/** @type {number} */ x) => `${num(x, L)}\u00a0${T('unit_gbs')}`;
  const words = host ? { ...kw, ram: gib(host.read_per_token_bytes, L, 1), gpu: gib(host.devices_read_per_token_bytes, L, 1) } : {};
  text('speed-note', !host ? ''
    : hl && hl.kind !== 'pcie' && hm && typeof hm.memory_type === 'string'
      ? T('speed_offload_limit_link', { ...words, mem: hm.memory_type, mem_bw: gbs(hm.gbs), link: T(`link_${String(hl.kind).replace(/-/g, '_')}`), link_bw: gbs(hl.gbs) })
      : T('speed_offload_limit', words));
}

/**
 * A separate draft model: the select offers the catalog models the core found compatible
 * (result.draft_candidates), and the memory table gets the draft's row (result.speculative).
 * @param {any} r
 */
function renderDraft(r) {
  const L = state.lang;
  const list = Array.isArray(r.draft_candidates) ? r.draft_candidates : [];
  const sel = /** @type {HTMLSelectElement} */ (byId('draft'));
  sel.replaceChildren(h('option', { value: '' }, T('draft_none')),
    ...list.map((/** @type {any} */ c) => h('option', { value: String(c.id) }, String(c.name || c.id))));
  if (state.draft && !list.some((/** @type {any} */ c) => c.id === state.draft)) sel.append(h('option', { value: state.draft }, state.draft));
  sel.value = state.draft || '';
  byId('draft-field').hidden = !(list.length > 0 || state.draft);
  const sp = r.speculative;
  const on = !!(sp && sp.kind === 'draft' && sp.draft);
  byId('r-draft').hidden = !on;
  if (!on) return;
  text('t-draft', gib(sp.counted_bytes, L));  // the part counted in Required; the RAM part is named in the row
  const d = sp.draft;
  // Where the core booked it: system RAM, one device, or split over several (hwLabel words the set).
  const holders = Array.isArray(r.memory.devices) ? r.memory.devices.filter((/** @type {any} */ x) => x.draft_bytes > 0) : [];
  const where = sp.placement === 'cpu' ? T('system_ram') : holders.length === 1 ? holders[0].name : hwName(r);
  text('w-draft', sentences(L, [
    T('draft_why', { name: String(d.name || d.id), quant: String(d.quant), w: gib(sp.weights_bytes, L), kv: gib(sp.kv_bytes, L),
      kvt: String(d.kv_type).toUpperCase(), ctx: tokens(d.context, L), dev: where }),
    typeof sp.compute_bytes === 'number' ? T('draft_why_buffers', { cmp: gib(sp.compute_bytes, L), host: gib(sp.host_bytes || 0, L) }) : '',
  ]));
}

/**
 * The decode card's line: a published run of this exact setup makes the card say the figure is
 * our estimate, what the run measured and how far apart they are (the core's speed.decode_measured).
 * @param {any} s result.speed @param {boolean} offload @param {string} L
 */
function decodeNote(s, offload, L) {
  const dm = s && s.decode_measured;
  // Speculative decoding on: the figure is the core's speculative range for the stated workload;
  // the note names the workload and the plain figure (speed.decode_speculative).
  const ds = s && s.decode_speculative;
  if (ds && ds.plain_decode_tps > 0) return T('decode_note_spec', { how: T(ds.kind === 'draft' ? 'decode_how_draft' : 'decode_how_mtp'),
    workload: T(`workload_${ds.workload}`), plain: tps(ds.plain_decode_tps, L) });
  if (dm && dm.measured_tps > 0) return T(dm.difference_code === 'same_as_shown' ? 'decode_note_measured_same' : 'decode_note_measured', { m: tps(dm.measured_tps, L), d: signedPct(100 * dm.difference, L, 0) });
  return T(offload ? 'decode_note_offload' : 'decode_note');
}

/**
 * Speculative decoding on the model's MTP layers or a draft model: what it adds to memory and,
 * per workload, the decode range and speedup the core computed (result.speculative).
 * @param {any} r
 */
function renderSpeculative(r) {
  const L = state.lang;
  const sp = r.speculative;
  if (!sp || !Array.isArray(sp.workloads)) { text('spec-line', ''); return; }
  const w = (/** @type {string} */ k) => sp.workloads.find((/** @type {any} */ x) => x.workload === k);
  const code = w('code'), prose = w('prose');
  const range = (/** @type {any} */ x) => x && x.decode_tps_low > 0
    ? T('spec_range', { lo: num(x.decode_tps_low, L, 1), hi: num(x.decode_tps_high, L, 1), slo: num(x.speedup_low, L, 2), shi: num(x.speedup_high, L, 2) })
    : x ? T('spec_range_x', { slo: num(x.speedup_low, L, 2), shi: num(x.speedup_high, L, 2) }) : '';
  text('spec-line', sentences(L, [T(sp.kind === 'draft' ? 'spec_line_draft' : 'spec_line', {
    tokens: tn(L, 'spec_tokens', sp.draft_max, { k: num(sp.draft_max, L) }), mem: gib(sp.kind === 'draft' ? sp.counted_bytes : sp.extra_bytes, L), w: gib(sp.weights_bytes, L), kv: gib(sp.kv_bytes, L),
    code: range(code), prose: range(prose), name: sp.draft ? String(sp.draft.name || sp.draft.id) : '',
    dc: pct(sp.draft_cost, L, 1),
  }), sp.overhead_code === 'metal_small_batch' ? T('spec_metal', { share: pct(sp.overhead_per_draft_token, L) })
    : sp.overhead_code === 'vllm_draft_pass' ? T('spec_vllm', { share: pct(sp.overhead_per_draft_token, L) }) : '',
  sp.basis && sp.basis.held_out_rows > 0
    ? T('spec_basis', { n: num(sp.basis.held_out_rows, L), max: pct(sp.basis.held_out_max_ape_pct / 100, L) }) : '',
  sp.basis && sp.basis.held_out_stated_rows > 0
    ? T('spec_basis_cover', { inside: num(sp.basis.held_out_in_stated_range, L), stated: num(sp.basis.held_out_stated_rows, L) }) : '']));
}

/**
 * vLLM / SGLang over several GPUs: the core's tensor-parallel step, what one token's step is made
 * of and its largest part (basis.tensor_parallel.step), and the public runs behind it.
 * @param {any} tpb basis.tensor_parallel @param {string} L @param {Record<string, string>} kw the device's words
 */
function tpSentence(tpb, L, kw) {
  const st = tpb.step;
  const steps = st && st.ms ? Object.keys(st.ms).filter((k) => st.ms[k] > 0).map((k) => T('step_part', {
    what: T(`step_${k}`, { ...kw, ar: num(tpb.allreduces_per_token, L) }), ms: ms(st.ms[k], L, st.ms[k] < 10 ? 2 : 1), share: pct(st.share[k], L),
  })) : [];
  return T(steps.length ? 'speed_label_tp_step' : 'speed_label_tp', {
    ...kw, link: T(tpb.link === 'nvlink' ? 'tp_link_nvlink' : 'tp_link_pcie'), tp: num(tpb.size, L),
    ar: num(tpb.allreduces_per_token, L), rows: num(tpb.rows, L), err: pct(tpb.held_out_max_error, L),
    parts: list(steps, L), bound: steps.length ? T(`bound_${st.bound}`, kw) : '',
  });
}

/**
 * How sure the speed is, as the core labels it (measured / calibrated / extrapolated, with the
 * published runs behind it), and a link to the accuracy report's group for this kind of estimate.
 * @param {any} s the result's speed object @param {Record<string, string>} kw the device's words (shared.js kindWords)
 */
function renderSpeedBasis(s, kw) {
  const L = state.lang;
  const basis = s && s.basis;
  const label = s && s.decode_label;
  if (!basis || !label) { fill('speed-basis'); return; }
  /** @type {any[]} */
  const parts = [];
  // Between sentences: a space, none after a Chinese 。.
  const sp = L === 'zh' ? '' : ' ';
  if (label === 'measured' && Array.isArray(basis.measured) && basis.measured.length) {
    // One published run of each kind (decode, then prefill), not two of the same.
    const first = ['tg', 'pp'].map((k) => basis.measured.find((/** @type {any} */ x) => x.kind === k)).filter(Boolean);
    const runs = first.map((/** @type {any} */ x) => T('speed_measured_run', { 0: tps(x.tps, L), 1: x.test }));
    parts.push(T('speed_label_measured', { 0: list(runs, L) }), sp);
    const src = basis.measured[0].source;
    if (typeof src === 'string' && /^https:\/\//.test(src)) {
      let host = src;
      try { host = new URL(src).host; } catch { /* keep the text */ }
      parts.push(h('a', { href: src, rel: 'noopener' }, host + (basis.measured[0].date ? (L === 'zh' ? '，' : ', ') + basis.measured[0].date : '')), sp);
    }
    // A tensor-parallel estimate checked against the run: what its step is made of, too.
    if (basis.tensor_parallel) parts.push(tpSentence(basis.tensor_parallel, L, kw), sp);
  } else if (label === 'tensor_parallel' && basis.tensor_parallel) {
    parts.push(tpSentence(basis.tensor_parallel, L, kw), sp);
  } else if (label === 'mlx_fitted' && basis.mlx) {
    // MLX: the core's own fit on public mlx-lm runs, with its held-out error.
    parts.push(T('speed_label_mlx', { rows: num(basis.mlx.fitted_rows, L), held: num(basis.mlx.held_out_rows, L),
      err: pct((basis.mlx.held_out_median_error_pct) / 100, L, 0), perr: pct((basis.mlx.held_out_prefill_median_error_pct) / 100, L, 0) }), sp);
  } else if (label === 'device_figures') {
    // vLLM / SGLang where llama.cpp does not run: the device's own figures at the calibrated
    // backends' efficiencies (the core's basis.from_backends), with the range over all of them.
    const from = Array.isArray(basis.from_backends) ? basis.from_backends.map((/** @type {any} */ x) => backendName(x.id)) : [];
    parts.push(T('speed_label_device_figures', { engine: engineName(basis.engine), backends: list(from, L) }), sp);
  } else if (label === 'calibrated') {
    parts.push(T('speed_label_calibrated', { 0: num(basis.device_rows, L) }), sp);
  } else {
    parts.push(T('speed_label_extrapolated', { 0: backendName(basis.backend) }), sp);
  }
  const g = basis.accuracy_group;
  if (g && g.report_group) parts.push(link(`${urlFor({ view: 'accuracy' })}${g.report_group === 'mlx' ? '#acc-mlx' : `#acc-tg-${g.report_group}`}`, T('speed_accuracy_link')));
  fill('speed-basis', ...parts);
}

/**
 * The device figures public sources do not settle, said once under the speed cards: which
 * figure, its value and why it is uncertain (the core's hardware.uncertain).
 * @param {any} r
 */
function renderUncertain(r) {
  const L = state.lang;
  // The figures the speeds and the fit rest on; others (a TDP, an INT8 rate) are the device page's.
  const xs = uncertainFields(r.hardware.uncertain).filter((x) => ['bandwidth_gbs', 'fp16_tflops', 'memory_gib'].includes(x.field));
  const el = byId('speed-uncertain');
  el.hidden = !xs.length;
  if (!xs.length) { setText(el, ''); return; }
  const di = deviceInfo(r.hardware.id);
  const value = (/** @type {string} */ f) => (typeof r.hardware[f] === 'number' ? r.hardware[f] : di && typeof di[f] === 'number' ? di[f] : NaN);
  const label = (/** @type {string} */ f) => T({ bandwidth_gbs: 'bandwidth', fp16_tflops: 'fp16', memory_gib: 'memory' }[f] || f);
  // Where the core widened a speed range by an unsettled figure's low and high (speed.device_uncertain),
  // say which range and over which figures.
  const widened = (Array.isArray(r.speed?.device_uncertain) ? r.speed.device_uncertain : [])
    .map((/** @type {any} */ w) => xs.find((x) => x.field === w.field && x.low !== null && x.high !== null && (w.range === 'decode' || w.range === 'prefill')) ? w : null)
    .filter(Boolean)
    .map((/** @type {any} */ w) => {
      const x = /** @type {{field: string, low: number, high: number}} */ (xs.find((f) => f.field === w.field));
      return T(w.range === 'decode' ? 'unc_widened_decode' : 'unc_widened_prefill', { low: deviceFigure(x.field, x.low, L), high: deviceFigure(x.field, x.high, L) });
    });
  setText(el, [T('unc_speed_note', {
    device: shownName(r.hardware, L),
    list: xs.map((x) => T('unc_item', { label: label(x.field), value: deviceFigure(x.field, value(x.field), L), why: uncertainWhy(x, L) })).join(T('unc_sep')),
  }), ...widened].join(L === 'zh' ? '' : ' '));
}


/**
 * vLLM / SGLang: how many sequences the KV pool holds, and its size in tokens.
 * @param {any} r @param {Record<string, string>} kw the device's words (kindWords) @param {boolean} runs the engine starts
 */
function renderServe(r, kw, runs) {
  const L = state.lang;
  // A setup the engine does not start (the core's verdict no_fit: its weights exceed the memory
  // share, its graphs the headroom) has no pool to describe: "0 tokens", "0 sequences at once"
  // and the command's cap "only shorter requests reach" would read as a running server. The
  // diagnostics say why it does not start, once.
  const sv = isServer(r) && runs ? serverOf(r) : null;
  const box = byId('serve-cards');
  box.hidden = !sv;
  if (!sv) { fill('serve-cards'); return; }
  const tp = sv.throughput || null;
  // The batched throughput rests on the bandwidth (or, compute-bound, on the FP16 rate): a figure
  // public sources do not settle is marked on it too, as on the speed cards.
  const tpMark = tp ? uncertainMark(r.hardware.uncertain, tp.compute_bound ? 'fp16_tflops' : 'bandwidth_gbs', L) : null;
  fill('serve-cards',
    card(T('kv_pool'), `${num(sv.kv_tokens, L)}\u00a0${T('tokens_word')}`, sv.settings?.tensor_parallel > 1
      ? T('kv_pool_note_tp', { ...kw, per: gib(Math.max(0, sv.per_gpu?.kv_available_bytes ?? 0), L), n: num(sv.settings.tensor_parallel, L), all: gib(r.memory.kv_pool_bytes ?? r.memory.kv_cache_bytes, L) })
      : T('kv_pool_note', { 0: gib(r.memory.kv_pool_bytes ?? r.memory.kv_cache_bytes, L) }), { id: 'k-kv-tokens', dataset: { v: String(sv.kv_tokens) } }),
    // How many sequences of the context run at once: what the pool holds or the engine's cap in
    // the command, whichever is smaller (the core's demand), and what each figure is.
    sv.demand ? card(T('concurrency_server'), num(sv.demand.sequences_at_once, L),
      capNote(sv.demand, L), { id: 'k-concurrency', dataset: { v: String(sv.demand.sequences_at_once), cap: String(sv.demand.engine_cap) } })
    : card(T('concurrency'), num(Math.floor(sv.max_concurrency), L), T('concurrency_note', { 0: tokens(sv.settings?.max_model_len ?? r.settings.context, L) }), { id: 'k-concurrency', dataset: { v: String(sv.max_concurrency) } }),
    tp && tp.aggregate_tps > 0 ? card([T('aggregate'), tpMark ? ' ' : '', tpMark], tps(tp.aggregate_tps, L), T(tp.capped ? 'aggregate_note_capped' : 'aggregate_note', { n: num(tp.concurrency, L), per: tps(tp.per_user_tps, L) }), { id: 'k-aggregate', dataset: { v: String(tp.aggregate_tps) } }) : null);
}

/**
 * How many sequences run at once and what caps them: the pool, or the engine's running-request
 * cap, quoted as the launch command writes it (flag and figure, unbroken).
 * @param {any} d the server's demand block @param {string} L
 */
function capNote(d, L) {
  const mark = '\u0000';
  const s = T(d.limit_code === 'engine_cap' ? 'concurrency_note_cap' : 'concurrency_note_pool', {
    ctx: tokens(d.context, L), flag: mark, cap: '', pool: num(d.pool_sequences, L) });
  const [a, b] = s.split(mark);
  return h('span', null, a, h('code', { class: 'flag' }, `${d.engine_cap_flag} ${d.engine_cap}`), (b ?? '').replace(/^ +/, ' '));
}

/**
 * Offload: what each GPU holds, what system RAM holds, the flags and what limits the speed.
 * @param {any} r @param {Record<string, string>} kw the device's words (kindWords)
 */
function renderPlan(r, kw) {
  const L = state.lang;
  const host = r.memory.host;
  const box = byId('plan');
  const p = r.placement;
  const show = r.verdict === 'offload' && host && host.total_bytes > 0 && p;
  box.hidden = !show;
  if (!show) return;
  const flags = [`-ngl ${p.ngl}`, p.n_cpu_moe > 0 ? `--n-cpu-moe ${p.n_cpu_moe}` : ''].filter(Boolean).join(' ');
  // A GPU that holds the output layer too says so: -ngl counts it as one layer more than the
  // repeating layers it offloads (llama.cpp's llama-model.cpp offloads the output first, PR 18148),
  // so "-ngl 47" and "46 layers" name the same plan (the core's -ngl also counts a GLM file's
  // NextN block, which holds no weights: "-ngl 48" for GLM-4.5-Air's 46).
  const items = (r.memory.devices || []).map((/** @type {any} */ d) => h('li', { dataset: { layers: String(d.n_layers), output: String(!!d.has_output) } }, T(d.has_output ? 'plan_gpu_output' : 'plan_gpu', {
    name: d.id ? shownName(d, L) : d.name, layers: num(d.n_layers, L), total: gib(d.total_bytes, L), usable: gib(d.usable_bytes, L),
  })));
  // The file's NextN (MTP) layers, which -ngl counts (the core's placement.ngl includes them).
  const nextn = r.mtp && typeof r.mtp.layers === 'number' ? r.mtp.layers : 0;
  if (nextn > 0 && p.ngl > 0) items.push(h('li', { id: 'plan-nextn' }, T('plan_nextn', { n: num(nextn, L), flag: `-ngl ${p.ngl}` })));
  items.push(h('li', null, p.n_cpu_moe > 0
    ? T('plan_ram_experts', { n: num(p.n_cpu_moe, L), total: gib(host.total_bytes, L), usable: gib(host.ram_usable_bytes, L) })
    : T('plan_ram_layers', { n: num(p.cpu_layers, L), total: gib(host.total_bytes, L), usable: gib(host.ram_usable_bytes, L) })));
  // What each GPU keeps free: llama.cpp's --fit margin, or none when only a plan without it fits.
  items.push(h('li', { id: 'plan-margin', dataset: { margin: String(p.fit_margin_bytes || 0) } },
    p.fit_margin_bytes > 0 ? T('plan_margin', { ...kw, 0: gib(p.fit_margin_bytes, L) }) : T('plan_margin_none', kw)));
  // The plan in all, and why it holds more than the all-on-GPU figure the cards show.
  const over = { ...kw, emb: gib(r.memory.host_weights_bytes, L), buf: gib(p.op_offload_bytes, L) };
  const total = h('p', { id: 'plan-total', dataset: { total: String(p.total_bytes), over: String(p.over_full_bytes) } },
    T('plan_total', { ...kw, total: gib(p.total_bytes, L), gpu: gib(p.devices_bytes, L), ram: gib(p.host_bytes, L), over: gib(p.over_full_bytes, L), full: gib(r.memory.total_bytes, L) }),
    gap(L), T(p.op_offload_bytes > 0 ? 'plan_over_buf' : 'plan_over', over));
  fill('plan', h('h3', null, T('plan_title')), h('ul', { class: 'plain' }, items), total,
    h('p', { class: 'note' }, T('plan_flags'), gap(L), h('code', null, commandTokens(flags))));
}

/**
 * Sections for result fields other helpers add; hidden while absent.
 * @param {any} r @param {Record<string, string>} kw the device's words (kindWords) @param {boolean} runs the setup runs (not no_fit)
 */
function renderPlugins(r, kw, runs) {
  const L = state.lang;
  renderSpeed(r, kw);
  renderServe(r, kw, runs);
  renderPlan(r, kw);
  // The chosen engine's command first (the core lists every engine's).
  const mine = r.settings && r.settings.engine !== 'llama.cpp' ? r.settings.engine : '';
  const cmds = commandsOf(r).map((c, i) => ({ c, i })).sort((a, b) => Number(b.c.label === mine) - Number(a.c.label === mine) || a.i - b.i).map((x) => x.c);
  // Launch commands only for a setup that runs; for an offload plan they are labelled as such.
  byId('plug-commands').hidden = cmds.length === 0;
  const note = byId('commands-note');
  note.hidden = runs && r.verdict !== 'offload';
  setText(note, !runs ? T('commands_no_fit') : r.verdict === 'offload' ? T('commands_offload') : '');
  const left = Array.isArray(r.commands_left_out) ? r.commands_left_out : [];
  if (cmds.length && runs) {
    // What a command leaves out and why (the core's commands.notes, codes).
    const cnotes = r.commands && Array.isArray(r.commands.notes) ? r.commands.notes : [];
    fill('commands', cmds.map((c) => h('div', { class: 'cmd' },
      h('div', { class: 'cmd-head' }, h('strong', null, cmdLabel(c.label)),
        // Named for what it copies ("Copy llama-server"): the buttons beside each command differ.
        h('button', { type: 'button', class: 'small', 'aria-label': T('copy_named', { 0: cmdLabel(c.label) }), on: { click: (/** @type {Event} */ e) => copy(c.command, /** @type {HTMLElement} */ (e.currentTarget)) } }, T('copy'))),
      h('pre', null, h('code', null, commandTokens(c.command))))),
    cnotes.map((/** @type {any} */ n) => h('p', { class: 'note', dataset: { code: String(n.code) } }, T(`cmd_note_${n.code}`, { quant: String(n.quant ?? '') }))),
    // An engine with no support evidence on this device (a server engine, or Ollama where none of
    // its builds runs) has no command: why, once (the core's commands_left_out).
    left.length ? h('p', { class: 'note', id: 'commands-left-out', dataset: { code: 'engine_not_on_device' } },
      T('cmd_left_out_engine', { 0: list(left.map((/** @type {any} */ x) => CMD_LABELS[x.engine] ?? engineName(x.engine)), L), hw: hwName(r) })) : null);
  } else fill('commands');
  const devs = r.memory && Array.isArray(r.memory.devices) ? r.memory.devices : null;
  byId('plug-devices').hidden = !devs || !devs.length;
  // System RAM gets a row when it is part of the setup (RAM given), not for a lone embedding.
  const host = r.memory.host && r.memory.host.total_bytes > 0 && r.memory.host.ram_usable_bytes > 0 ? r.memory.host : null;
  // The projector column is named for the towers the core loaded (result.projector, result.audio).
  const towers = [r.projector && r.projector.loaded, r.audio && r.audio.loaded];
  const projCol = towers[0] && towers[1] ? T('mm_encoders_col') : towers[1] ? T('aud_row') : T('projector');
  // Each device's usable memory marked where its size is the vendor's figure (the core's
  // hardware.memory_basis: every device of the setup is that device); its verdict is judged on the low end.
  const basis = () => vendorFigure(r.hardware.memory_basis, r.hardware.memory_gib * 1024 ** 3, L)?.mark ?? null;
  if (devs && devs.length) fill('devices-table', devicesTable(devs, host, L, kw, projCol, basis));
  // Money, fine-tuning and the simulator ask the core more questions (cost, train, estimate
  // with a prompt length); each module keeps its own inputs and drops stale answers.
  renderSimulator(r);
  renderCost(r);
  renderFinetune(r);
}

/** A command's heading: the tool's own spelling, or what the steps do (gguf_convert) in the page's language. @param {string} k */
const cmdLabel = (k) => (k === 'gguf_convert' ? T('cmd_gguf_convert') : CMD_LABELS[k] || k);

/** Launch command keys (core estimate/launch_commands.hpp) as their tools spell themselves. */
const CMD_LABELS = /** @type {Record<string, string>} */ ({
  llama_server: 'llama-server', llama_cli: 'llama-cli', llama_bench: 'llama-bench', ollama: 'Ollama',
  ollama_modelfile: 'Ollama Modelfile', vllm: 'vLLM', sglang: 'SGLang', lm_studio: 'LM Studio',
  mlx: 'mlx_lm.server', mlx_generate: 'mlx_lm.generate',
});

/**
 * The placement per accelerator (result.memory.devices), and system RAM when it holds part of
 * the model: which layers each holds and its memory by term against what it may use.
 * @param {any[]} devs @param {any} host @param {string} L @param {Record<string, string>} kw the device's words (shared.js kindWords)
 * @param {string} projCol the projector column's heading (the towers the file loaded holds)
 * @param {() => HTMLElement | null} basis a new vendor's-figure mark for a device's usable memory, or null
 */
function devicesTable(devs, host, L, kw, projCol, basis) {
  const layers = (/** @type {any} */ d) => (typeof d.n_layers === 'number'
    ? (d.n_layers > 0 && typeof d.first_layer === 'number' ? aside(L, num(d.n_layers, L), range(num(d.first_layer, L), num(d.first_layer + d.n_layers - 1, L))) : num(d.n_layers, L)) : '—');
  // The projector (vision, audio or both) gets its column only where some device (or system RAM) holds it.
  const proj = devs.some((d) => d.projector_bytes > 0) || !!(host && host.projector_bytes > 0);
  // A draft model gets its column the same way.
  const draft = devs.some((d) => d.draft_bytes > 0) || !!(host && host.draft_bytes > 0);
  const pj = (/** @type {any} */ d) => [...(proj ? [gib(d.projector_bytes || 0, L)] : []), ...(draft ? [gib(d.draft_bytes || 0, L)] : [])];
  // llama.cpp's buffer for running weights held in RAM on the GPU gets its own column where a
  // device keeps one, so the compute column is the same graph figure the memory breakdown shows.
  const opo = devs.some((d) => d.op_offload_bytes > 0);
  const cmp = (/** @type {any} */ d) => (opo ? [gib(d.compute_graph_bytes, L), gib(d.op_offload_bytes || 0, L)] : [gib(d.compute_bytes, L)]);
  // Each row's tag is the core's verdict code for that device, on the headline's rule.
  const tag = (/** @type {any} */ d) => (typeof d.verdict === 'string' ? h('span', { class: `tag ${d.verdict}`, dataset: { verdict: d.verdict } }, T(`short_${d.verdict}`)) : '—');
  // Devices the core placed alike (every field of its entry the same: a tensor-parallel group, a
  // pipeline with no layers named) are one row, "8× NVIDIA H200 SXM (each)", not eight equal rows
  // (eight equal cards on a phone); a device that holds something else keeps its own row.
  /** @type {{d: any, n: number}[]} */
  const groups = [];
  for (const d of devs) {
    const last = groups[groups.length - 1];
    if (last && JSON.stringify(last.d) === JSON.stringify(d)) last.n++;
    else groups.push({ d, n: 1 });
  }
  const name = (/** @type {any} */ d) => (d.id ? rowName(d, L) : d.name || '—');
  const usable = (/** @type {any} */ d) => {
    const mark = basis();
    return mark ? h('span', { class: 'usable-basis' }, gib(d.usable_bytes, L), ' ', mark) : gib(d.usable_bytes, L);
  };
  const rows = groups.map(({ d, n }) => [n > 1 ? h('span', { dataset: { count: String(n) } }, T('devices_each', { n: times(n, L), name: name(d) })) : name(d),
    layers(d), gib(d.weights_bytes, L), gib(d.kv_bytes, L), ...cmp(d),
    gib(d.overhead_bytes, L), ...pj(d), gib(d.total_bytes, L), usable(d), tag(d)]);
  if (host) rows.push([T('system_ram'), host.expert_weights_bytes > 0 ? T('experts_only') : num(host.n_layers, L), gib(host.weights_bytes, L), gib(host.kv_bytes, L),
    ...cmp(host), gib(host.overhead_bytes, L), ...pj(host), gib(host.total_bytes, L), gib(host.ram_usable_bytes, L), tag(host)]);
  // The caption names the device's kind and count ("on the GPU", "on each NPU") and system RAM when it holds part.
  return table(T(`per_device_caption_${devs.length > 1 ? 'each' : 'one'}${host ? '_ram' : ''}`, kw),
    [T('hardware'), T('layers'), T('weights'), T('kv_cache'), T('compute'), ...(opo ? [T('op_offload_col')] : []), T('overhead'), ...(proj ? [projCol] : []), ...(draft ? [T('draft_row')] : []), T('required'), T('usable'), T('verdict')], rows);
}

/** @param {string|any[]} k the label (text, or text and a mark) @param {string} v @param {string|Node} s @param {Record<string, any>} [attrs] on the value */
function card(k, v, s, attrs) {
  const value = cardValue(v);
  return h('div', { class: 'card' }, h('div', { class: 'k' }, k), h('div', { class: 'v', ...(attrs || {}) }, value), h('div', { class: 's' }, s));
}

/** @param {string} textToCopy @param {HTMLElement} btn */
async function copy(textToCopy, btn) {
  try {
    await navigator.clipboard.writeText(textToCopy);
    setText(btn, T('copied'));
  } catch {
    setText(btn, T('copy_failed'));
  }
  setTimeout(() => { setText(btn, T('copy')); }, 1500);
}

/**
 * The sections built from many estimates. `alive()` turns false when a newer render started,
 * so a stale batch never paints over a fresh one.
 * @param {any} r @param {() => boolean} alive
 */
export async function renderExtras(r, alive) {
  const L = state.lang;
  await renderEngines(r, alive);  // a Mac: llama.cpp and MLX side by side (engines.js)
  if (!alive()) return;
  // Memory over context.
  // The core's chart contexts for this model (4K doubling to its maximum).
  let steps;
  try {
    steps = /** @type {number[]} */ ((await call('defaults', { model: request().model })).context_steps);
  } catch { steps = []; }
  if (!alive()) return;
  const sweep = await many(steps.map((c) => request({ ctx: c })));
  if (!alive()) return;
  const okSteps = steps.filter((_, i) => !sweep[i].error);
  const okRes = sweep.filter((x) => !x.error);
  const G = 1024 ** 3;
  const series = [
    { label: T('weights'), values: okRes.map((x) => x.memory.weights_bytes / G), color: '--weights' },
    { label: T('kv_cache'), values: okRes.map((x) => x.memory.kv_cache_bytes / G), color: '--kv' },
    { label: T('required'), values: okRes.map((x) => x.memory.total_bytes / G), color: '--fg' },
    // vLLM / SGLang: the pool the engine preallocates, the same at every context, against which
    // the cache one sequence needs grows (the need passes the usable line where it passes the pool).
    ...(isServer(r) ? [{ label: T('kv_pool'), values: okRes.map((x) => (x.memory.kv_pool_bytes ?? 0) / G), color: '--pool', dash: true }] : []),
    // The red a line on the panel takes (styles.css --nofit-text: the dark theme's --nofit reads at 2.6:1 there).
    { label: T('usable'), values: okRes.map((x) => x.memory.usable_bytes / G), color: '--nofit-text', dash: true },
  ];
  text('chart-title', T('chart_title', { model: r.model.name, quant: r.quant.id, min: okSteps.length ? tokens(okSteps[0], L) : '—', max: okSteps.length ? tokens(okSteps[okSteps.length - 1], L) : '—' }));
  lineChart(byId('chart'), {
    x: okSteps, series, xLabel: T('context'), yLabel: units(L).gib, logX: true,
    xFmt: (v) => tokens(v, L), yFmt: (v, d) => num(v, L, d ?? (v < 10 ? 1 : 0)),
  }).catch(() => { setText(byId('chart'), T('chart_failed')); });
  const srv = isServer(r);
  // vLLM / SGLang: what "fits" means for a serving engine (it starts, its pool filling the rest) is
  // said once under the table, not on every row (a phone's card per context repeated it).
  const serverFits = srv && okRes.some((x) => x.verdict === 'fits');
  fill('chart-table', table(T('chart_table'), [T('context'), T('weights'), T('kv_cache'), ...(srv ? [T('kv_pool')] : []), T('required'), T('verdict')],
    okRes.map((x, i) => [tokens(okSteps[i], L), gib(x.memory.weights_bytes, L), gib(x.memory.kv_cache_bytes, L),
      ...(srv ? [gib(x.memory.kv_pool_bytes ?? 0, L)] : []), gib(x.memory.total_bytes, L), srv && x.verdict === 'fits' ? sentenceCase(L, T('short_fits')) : T(`verdict_${x.verdict}`)])),
  serverFits ? h('p', { class: 'note', id: 'chart-fits-server' }, T('verdict_fits_server')) : null);

  // Diagnostics. A serving engine preallocates its pool whatever the context: its own codes and
  // one line saying why. For llama.cpp, the core's cache outlook (solve kv_outlook): how the cache grows from its default context to
  // a long-document one and what a q8_0 cache saves there, or why that says nothing here.
  let outlook = null;
  if (isServer(r)) {
    const sv = serverOf(r);
    const codes = sv && Array.isArray(sv.diagnostics) ? sv.diagnostics : [];
    // On an NPU or AI accelerator (the core's device_type) the engine's graphs are not CUDA graphs.
    const accel = isAccelerator(r.hardware.device_type);
    fill('diag-list', ...codes.map((/** @type {any} */ d) => h('li', { dataset: { code: d.code } }, T(`diag_${d.code}${accel && d.code === 'graphs_exceed_headroom' ? '_accel' : ''}`, {
      ...kindWords(r, L), len: tokens(d.values?.max_model_len, L), fit: tokens(d.values?.max_model_len_fit, L) }))), h('li', null, T('diag_server')));
  } else {
    try {
      outlook = await solve({ ...request(), solve: 'kv_outlook' });
    } catch { outlook = null; }
    if (!alive()) return;
    const diag = [];
    if (outlook && outlook.applies) {
      const span = { from: tokens(outlook.from_context, L), to: tokens(outlook.to_context, L) };
      diag.push(T('diag_kv', { ...span, model: r.model.name, topo: topologyText(r.model.topology_code, L), a: gib(outlook.from.kv_cache_bytes, L), b: gib(outlook.to.kv_cache_bytes, L), total: gib(outlook.to.total_bytes, L) }));
      if (outlook.q8_0) diag.push(T('diag_q8', { ...span, save: gib(outlook.q8_0.saves_bytes, L), total: gib(outlook.q8_0.total_bytes, L) }));
    }
    fill('diag-list', diag.map((d) => h('li', { dataset: { code: 'kv_outlook' } }, d)));
  }
  faq(r, outlook);
  links(r);
  await renderMakeItFit(r, alive);  // the core's make_it_fit solver (picks.js)
  if (!alive()) return;
  await quantMatrix(r, alive);
  if (!alive()) return;
  await renderPicks(r, alive);
}

/** The core's applicability codes of a format that is left out of the format table (estimate.hpp format_applicability). */
const NO_CHOICE = ['moe_only_format', 'fp4_no_kernel', 'backend_no_kernel'];

/** Every GGUF format at the current settings. @param {any} r @param {() => boolean} alive */
async function quantMatrix(r, alive) {
  const L = state.lang;
  // A GGUF file has one format: every row would be the same file, so the section says so once.
  const ref = /** @type {any} */ (request().model);
  if (ref && typeof ref === 'object' && (ref.gguf_handle || ref.gguf_header_base64)) {
    fill('matrix', h('p', { class: 'note' }, T('quant_from_file', { 0: r.quant.id })));
    text('matrix-note', '');
    return;
  }
  // llama.cpp: every GGUF type; vLLM / SGLang: the formats the core offers this model
  // (server_formats, each with the checkpoint it is served from); MLX: the formats it loads.
  const srvFormats = isServer(r) && Array.isArray(r.server_formats) ? r.server_formats : null;
  const qs = srvFormats ? srvFormats.map((/** @type {any} */ f) => serverQuants().find((q) => q.id === f.id) || { id: f.id })
    : r.settings && r.settings.engine !== 'llama.cpp' ? serverQuants() : ggufQuants();
  const rs = await many(qs.map((q) => request({ quant: q.id })));
  if (!alive()) return;
  const all = qs.map((q, i) => ({ q, x: rs[i] })).filter((e) => !e.x.error);
  // Formats that are no real choice here (the core's quant.applicability: MXFP4_MOE on a dense
  // model, NVFP4 with no kernel on the device) are left out and named in the note below.
  // Under a serving engine a format with no kernel on the device stays in the table with its
  // code: the person sees which checkpoint exists and why this device cannot serve it.
  const noChoice = all.filter((e) => (srvFormats ? ['moe_only_format'] : NO_CHOICE).includes(e.x.quant.applicability?.code));
  const ok = all.filter((e) => !noChoice.includes(e));
  const hasSpeed = ok.some((e) => speedOf(e.x)?.decode);
  // Several devices: "Required" is the whole setup's total, so the smallest device is the one of
  // which as many hold it (the core's smallest_device at the request's count); both say so.
  const n = state.count > 1 ? num(state.count, L) : '';
  // No row with a measured quality change (MLX's formats: no published perplexity measurement of
  // them in the catalog): no column of "not measured", one note says so.
  const measured = (/** @type {any} */ e) => typeof (e.x.quant.quality?.ppl_delta_pct ?? e.q.ppl_delta_pct) === 'number';
  const anyQuality = ok.some(measured);
  const head = [T('format'), T('bpw'), T('weights'), T('kv_cache'), n ? T('required_all', { n }) : T('required'), ...(hasSpeed ? [T('decode')] : []), T('on_device_short'), n ? T('smallest_device_n', { n }) : T('smallest_device'), T('size_source'), ...(srvFormats ? [T('ckpt_col')] : []), ...(anyQuality ? [T('quality_ref')] : [])];
  // The smallest-device column needs more estimates: they are made before the table is drawn, so
  // the table replaces the one on screen (a prerendered page's, the previous setup's) once, whole,
  // rather than with a column of "…" that then widens its rows.
  const smallest = await smallestDevices(ok.map((e) => ({ quant: e.q.id, count: state.count })));
  if (!alive()) return;
  const cells = ok.map(() => h('span', { class: 'note' }, '…'));
  smallest.forEach((d, i) => {
    // Beside the name and size: the vendor's-figure mark (the core's memory_basis), the core's
    // "tight" and the segment it had to leave.
    const marks = [basisMark(d, L), tightMark(d, L), segmentMark(d, L)].flatMap((x) => (x ? [' ', x] : []));
    cells[i].replaceChildren(...(d ? [link(urlFor({ quant: ok[i].q.id, hw: d.id, count: d.count, ram: 0 }), `${d.count > 1 ? `${times(d.count, L)} ` : ''}${tableNameWithMemory(d, L)}`), ...marks] : [T('smallest_none')]));
    cells[i].className = d ? '' : 'note';
    if (!d) cells[i].dataset.none = 'true';
  });
  const rows = ok.map((e, i) => {
    const x = e.x;
    const sp = speedOf(x);
    const published = x.gguf_file_published_bytes;
    const how = x.quant.applicability?.code;
    return [
      // How a format applies here is a sentence ("FP4 sur les poids seulement : pas de cœurs
      // tensoriels FP4"), not a pill: a note under the format's name, marked in the caution colour.
      how ? h('span', null, link(urlFor({ quant: e.q.id }), e.q.id), ' ', h('span', { class: 'applic', 'data-applicability': how }, applicText(x.quant.applicability, L))) : link(urlFor({ quant: e.q.id }), e.q.id),
      num(x.quant.bits_per_weight, L, 2),
      nw(gib(x.memory.weights_bytes, L)), nw(gib(x.memory.kv_cache_bytes, L)),
      nw(gib(x.memory.total_bytes, L)),
      ...(hasSpeed ? [sp && sp.decode ? nw(spreadText(sp.decode, L)) : '—'] : []),
      h('span', { class: `tag ${x.verdict}` }, T(`short_${x.verdict}`)),
      cells[i],
      publishedCell(x, published, L),
      ...(srvFormats ? [checkpointCell(x)] : []),
      ...(anyQuality ? [qualityText(e.q, L)] : []),
    ];
  });
  fill('matrix', table(`${T(isServer(r) ? 'matrix_title_server' : r.settings.engine === 'mlx' ? 'matrix_title_mlx' : 'matrix_title', { model: r.model.name, ctx: tokens(state.ctx, L) })} · ${T('on_device', { 0: hwName(r) })}`, head, rows, { class: srvFormats ? 'data wrap-head has-repo' : 'data wrap-head' }));
  const skipped = qs.length - all.length;
  const why = noChoice.map((e) => T(`fmt_left_${e.x.quant.applicability.code}`, { 0: e.q.id }));
  // The weights column is what the device holds: below the file by what stays in RAM or is not
  // loaded, said for the format on screen (the core's parts).
  const gap = fileGap(r, L);
  // Decode speed by kernel family (the core's speed.quant_family): where the table holds more
  // than one, speeds are not in the order of the bits, and the note says why.
  // The note describes llama.cpp's kernel families: said for llama.cpp only, never under another
  // engine's table.
  const families = r.settings?.engine !== 'llama.cpp' ? [] : [...new Set(ok.map((e) => speedOf(e.x)?.decode ? e.x.speed?.quant_family : null).filter(Boolean))];
  const qualityRef = qualityReference(ok.map((e) => e.q));
  text('matrix-note', sentences(L, [skipped > 0 ? T('matrix_skipped', { 0: String(skipped) }) : '', ...why,
    gap ? sentences(L, [T('matrix_gap', { quant: r.quant.id, file: gib(r.gguf_file_bytes ?? r.checkpoint_bytes, L) }), gap]) : '',
    families.length > 1 ? T('speed_family_note', { 0: list(families.map((f) => T(`family_${f}`)), L) }) : '',
    qualityRef ? T('quality_ref_note') : '', anyQuality ? '' : T(r.settings?.engine === 'mlx' ? 'quality_none_mlx' : 'quality_none'),
    srvFormats ? T('ckpt_note') : '']));
  // Where no device holds a format, why in words, once under the table.
  if (smallest.some((d) => !d)) {
    const note = byId('matrix-note');
    setText(note, sentences(L, [note.textContent || '', T(n ? 'smallest_none_note_n' : 'smallest_none_note', { n })]));
  }
}

/**
 * A format's applicability code in words, with the compute capabilities behind a cc_no_kernel.
 * @param {any} a @param {string} L
 */
function applicText(a, L) {
  const v = a?.values || {};
  return T(`fmt_${a.code}`, { cc: typeof v.cuda_compute_capability === 'number' ? num(v.cuda_compute_capability, L, 1) : '—',
    min: typeof v.min_cuda_compute_capability === 'number' ? num(v.min_cuda_compute_capability, L, 1) : '—' });
}

/**
 * The checkpoint a server engine serves a format from (the core's checkpoint.repo and code): its
 * Hub repo as a link, marked when it is the publisher's own; "none published" otherwise.
 * @param {any} x
 */
function checkpointCell(x) {
  const c = x.checkpoint;
  if (!c || typeof c.repo !== 'string') return h('span', { class: 'note', dataset: { checkpoint: 'none' } }, T('ckpt_none'));
  const a = h('a', { href: `https://huggingface.co/${c.repo}`, rel: 'noopener', class: 'repo', dataset: { checkpoint: c.repo, code: String(c.code) } }, c.repo);
  const mark = state.lang === 'zh' ? `（${T('ckpt_publisher')}）` : ` (${T('ckpt_publisher')})`;
  return c.code === 'publisher' ? h('span', null, a, h('span', { class: 'note' }, mark)) : a;
}

/**
 * A figure that may wrap only before its bracket ("30.06 GiB" / "(32.3 GB)"), never inside a
 * number or between a number and its unit.
 * @param {string} v
 */
function nw(v) {
  // Chinese: the bracket is full-width with no space before it.
  const zh = v.indexOf('（');
  const cut = zh > 0 ? zh : v.indexOf(' (');
  // One element: on a phone card each child of a cell is a flex item, so the value and its range
  // as two children sat at the card's opposite edges; as one they wrap, the range under its value.
  return cut > 0 ? h('span', { class: 'fig' }, h('span', { class: 'nw' }, v.slice(0, cut)), zh > 0 ? '' : ' ', h('span', { class: 'nw' }, v.slice(zh > 0 ? cut : cut + 1))) : h('span', { class: 'nw' }, v);
}

/**
 * Beside a published file its size and how far ours is from it; else the computed size, marked computed.
 * @param {any} x @param {any} published @param {string} L
 */
function publishedCell(x, published, L) {
  // No published file: the size the core computed for the file, marked as computed.
  if (typeof published !== 'number' || !(published > 0)) {
    const computed = typeof x.gguf_file_bytes === 'number' ? x.gguf_file_bytes : x.checkpoint_bytes;
    return typeof computed === 'number' && computed > 0
      ? h('span', { class: 'pubsize', dataset: { computed: String(computed) } }, nw(aside(L, gib(computed, L), T('size_computed'))))
      : '—';
  }
  const ours = x.gguf_file_bytes;
  // One short line (the table is wide already); the repo it was read from is in the tooltip.
  return h('span', { class: 'pubsize', title: String(x.gguf_file_published_repo || ''), dataset: { published: String(published), ours: String(ours), repo: String(x.gguf_file_published_repo || '') } },
    // A difference that reads as 0.0 % (the core's gguf_file_published_diff_code): "matches".
    `${T('size_published')} `, x.gguf_file_published_diff_code === 'same_as_shown' ? T('size_same', { pub: gib(published, L) })
      : T('size_vs', { pub: gib(published, L), diff: signedPct(x.gguf_file_published_diff_pct, L, 1) }));
}

/**
 * The quality of a format in words: the core's band (quants.json "quality_bands", quant.quality
 * or the listing's quality), with the perplexity figure beside it.
 * @param {any} q a listing entry or a result's quant @param {string} L
 */
export function qualityText(q, L) {
  const band = q && q.quality && q.quality.band;
  const d = q && q.quality && typeof q.quality.ppl_delta_pct === 'number' ? q.quality.ppl_delta_pct : q && q.ppl_delta_pct;
  if (typeof d !== 'number') return T('quality_unknown');
  if (!band || band === 'unknown') return `${signedPct(d, L, d < 1 ? 2 : 1)}\u00a0PPL`;
  const word = { lossless: 'q_lossless', near_lossless: 'q_near', good: 'q_good', noticeable: 'q_noticeable', heavy: 'q_heavy' }[/** @type {string} */ (band)] || 'quality_unknown';
  return aside(L, T(word), `${signedPct(d, L, d < 1 ? 2 : 1)}\u00a0PPL`);
}

/** @param {any} r @param {any} outlook the core's kv_outlook answer, or null */
function faq(r, outlook) {
  const L = state.lang;
  const qa = [
    [T('faq_run_q', { hw: hwName(r), model: r.model.name }),
      sentences(L, [sentence(L, T(`verdict_${r.verdict}`)), T('faq_run_a', { quant: r.quant.id, ctx: tokens(state.ctx, L), total: gib(r.memory.total_bytes, L), w: gib(r.memory.weights_bytes, L), kv: gib(r.memory.kv_cache_bytes, L), usable: gib(r.memory.usable_bytes, L) })])],
  ];
  if (outlook && outlook.applies) qa.push([T('faq_32k_q', { model: r.model.name, to: tokens(outlook.to_context, L) }), T('faq_32k_a', { kv: gib(outlook.to.kv_cache_bytes, L), total: gib(outlook.to.total_bytes, L), gb: gb(outlook.to.total_bytes, L) })]);
  fill('faq-main', qa.map(([q, a]) => h('details', null, h('summary', null, q), h('p', null, a))));
}

/** @param {any} r */
function links(r) {
  const L = state.lang;
  // Only devices the chosen engine runs on (the core's engines_run for each device): under vLLM
  // or SGLang no Mac is offered.
  const engine = r.settings.engine;
  // The core's listing says which devices are offered to compare on (compare, with its code).
  fill('links-devices', accelerators().filter((d) => d.id !== state.hw && d.compare === true &&
    Array.isArray(d.engines_run) && d.engines_run.includes(engine)).slice(-48).reverse()
    .map((d) => h('li', null, link(urlFor({ hw: d.id, count: 1 }), tableNameWithMemory(d, L)), ...(basisMark(d, L) ? [' ', basisMark(d, L)] : []))));
  fill('links-models', models.filter((m) => m.id !== state.model)
    .map((m) => h('li', null, link(urlFor({ model: m.id }), m.name))));
  text('links-devices-title', T('links_devices', { model: r.model.name }));
  text('links-models-title', T('links_models', { hw: shownName(r.hardware, L) }));
  crumbs(r);
}

/**
 * Links to the model's and the device's pages. Drawn with the verdict (not after the slow
 * sections), so an imported file never keeps the previous model's link.
 * @param {any} r
 */
function crumbs(r) {
  const mi = modelInfo(state.model);
  const di = deviceInfo(state.hw);
  fill('crumbs', mi && !mi.custom ? link(urlFor({ view: 'model' }), T('open_model_page', { 0: r.model.name })) : null,
    di && !di.custom ? link(urlFor({ view: 'device' }), T('open_device_page', { 0: shownName(r.hardware, state.lang) })) : null);
}
