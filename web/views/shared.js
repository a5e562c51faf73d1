// @ts-check
// Questions the views share, each answered by the core (the page adds no formula): the smallest
// device a request fits on (the core's smallest_device solver; the tier lists and the device
// page's list come from the core's `tiers` and `runsOn`). Plus renderers for result sections
// (speed, commands, per-device memory, costs): each shows nothing while its field is absent.
import { solve } from '../client.js';
import { defaults, deviceInfo, hardware, request } from '../catalog.js';
import { deviceLabel, isAccelerator, productLabel, scopedName, tableLabel, tableName } from '../device-name.js';
import { h } from '../dom.js';
import { byKey, gbOf, gib, gibExact, num, params as paramsCount, pct, spreadText, times, units } from '../format.js';
import { aside, clauses, commas, deviceWords, dots, t, tn } from '../i18n.js';

/**
 * For each request, the smallest catalog device (least memory, then price) on which it runs
 * fully: the core's `smallest_device` solver (core/include/willitfit/questions/solve.hpp).
 * @param {Record<string, any>[]} overs  request overrides, one per question
 * @returns {Promise<(any|null)[]>} the catalog device entry with the count that holds it, or null
 */
export async function smallestDevices(overs) {
  return Promise.all(overs.map(async (o) => {
    try {
      // The count of the request is the basis (the core's: that many of the device), one by default.
      const r = /** @type {any} */ (await solve({ ...request({ ...o, count: o.count ?? 1, ram: 0 }), solve: 'smallest_device' }));
      // The core's verdict on it too: a device the request only just fits is said "tight" beside
      // its name (the core answers with one only where no larger device fits comfortably).
      // Whether the core had to leave the person's segment (desktop or data centre) to find one.
      // What its memory figure stands on (a vendor's figure is marked beside its name).
      return r.found ? { ...(deviceInfo(r.device.id) || r.device), count: r.device.count ?? 1, verdict: r.device.verdict,
        memory_basis: r.device.memory_basis, segment: r.device.segment, segmentLeft: !!(r.segment && r.segment.left) } : null;
    } catch {
      return null;
    }
  }));
}

/**
 * A card's figure with the core's range: "~5,881 tok/s (4,531–9,735)" becomes the figure and,
 * on its own line under it (styles.css .v-range), the range, never broken in its middle (the
 * text stays the same). Chinese writes the range in full-width parentheses with no space before.
 * @param {any} v
 */
export function cardValue(v) {
  const zh = typeof v === 'string' ? v.indexOf('（') : -1;
  const cut = zh > 0 ? zh : typeof v === 'string' ? v.indexOf(' (') : -1;
  return cut > 0 ? [h('span', { class: 'v-main' }, v.slice(0, cut)), zh > 0 ? '' : ' ', h('span', { class: 'v-range' }, v.slice(zh > 0 ? cut : cut + 1))] : v;
}

/** "tight" beside a smallest device the request only just fits (the core's verdict). @param {any} d @param {string} L */
export function tightMark(d, L) {
  return d && d.verdict === 'tight' ? h('span', { class: 'tag tight', dataset: { tight: 'true' } }, t(L, 'short_tight')) : null;
}

/** "data-centre card" (or "desktop") beside a smallest device from outside the person's segment (the core's segment.left). @param {any} d @param {string} L */
export function segmentMark(d, L) {
  return d && d.segmentLeft && (d.segment === 'datacenter' || d.segment === 'desktop')
    ? h('span', { class: 'tag segment-left', dataset: { segment: d.segment } }, t(L, `seg_left_${d.segment}`)) : null;
}

/** A speed-like field as {v, lo, hi} whatever its shape (number or {value, low, high}). @param {any} x */
export function spread(x) {
  if (typeof x === 'number') return { v: x, lo: NaN, hi: NaN };
  if (!x || typeof x !== 'object') return null;
  const v = x.value ?? x.mid ?? x.tps ?? x.tokens_per_s ?? x.ms ?? x.estimate;
  if (typeof v !== 'number') return null;
  return { v, lo: x.low ?? x.lo ?? x.min ?? NaN, hi: x.high ?? x.hi ?? x.max ?? NaN };
}

/**
 * Decode / prefill / TTFT from `result.speed` (core speed.hpp: `decode_tps` with
 * `decode_tps_low`/`decode_tps_high`, the same for prefill, `ttft_ms`), each with its range. The
 * time to first token is the whole prompt's (`speed.first_token.ms`: the text, the images and the
 * audio of the request) where the core gives it, the text prompt's (`ttft_ms`) where it does not
 * model the media (first_token.code media_not_modelled; firstTokenWords says so).
 * @param {any} r
 */
export function speedOf(r) {
  const s = r && r.speed;
  if (!s || typeof s !== 'object') return null;
  /** @param {string} k */
  const one = (k) => {
    const x = spread(s[k]);
    if (x && typeof s[k] === 'number') { x.lo = s[`${k}_low`] ?? NaN; x.hi = s[`${k}_high`] ?? NaN; }
    return x;
  };
  const decode = one('decode_tps');
  const prefill = s.prefill_available === false ? null : one('prefill_tps');
  const ft = s.first_token;
  const whole = ft && typeof ft.ms === 'number' ? { v: ft.ms, lo: ft.ms_low ?? NaN, hi: ft.ms_high ?? NaN } : null;
  const ttft = s.prefill_available === false ? null : whole || one('ttft_ms');
  return decode || prefill || ttft ? { decode, prefill, ttft } : null;
}

/**
 * What the time to first token includes, in words (result.speed.first_token; core estimate.cpp
 * first_token_json): `clause` names the images and audio it counts with their tokens ("includes 2
 * images (512 tokens), 30 s of audio (187 tokens)"), or, where the core does not model them for the
 * engine or the tower, says the figure is the text's alone and why; `exceeds` when the whole
 * prompt is longer than the context. Empty strings for a text prompt; null without the field.
 * @param {any} s result.speed @param {string} L
 * @returns {{code: string, clause: string, exceeds: string} | null}
 */
export function firstTokenWords(s, L) {
  const ft = s && s.first_token;
  if (!ft || typeof ft !== 'object') return null;
  const counted = ft.code === 'includes_media';
  const media = [];
  if (ft.images > 0)
    media.push(counted ? tn(L, 'ft_images', ft.images, { n: num(ft.images, L), tokens: num(ft.image_tokens, L) })
      : tn(L, 'ft_images_bare', ft.images, { n: num(ft.images, L) }));
  if (ft.audio_seconds > 0)
    media.push(t(L, counted ? 'ft_audio' : 'ft_audio_bare', { secs: num(ft.audio_seconds, L, Number.isInteger(ft.audio_seconds) ? 0 : 1), tokens: num(ft.audio_tokens, L) }));
  let clause = '';
  // The vision encoder's own run is not timed by the core (image_encode not_modelled): said.
  if (counted) clause = clauses(L, [t(L, 'ft_includes', { media: commas(L, media) }), ft.image_encode === 'not_modelled' ? t(L, 'ft_image_encode') : '']);
  else if (ft.code === 'media_not_modelled') {
    const codes = Object.values(ft.media_codes || {});
    const engine = String(defaults?.engines?.[ft.engine]?.name ?? ft.engine ?? '');
    const why = codes.includes('engine_not_modelled') ? t(L, 'ft_why_engine', { engine }) : t(L, 'ft_why_tower');
    clause = t(L, 'ft_without', { media: commas(L, media), why });
  }
  const exceeds = ft.exceeds_context ? t(L, 'ft_exceeds', { 0: num(ft.tokens, L), 1: num(ft.context, L) }) : '';
  return { code: String(ft.code), clause, exceeds };
}

/**
 * The time to first token's note: the prompt it is for and what it includes (firstTokenWords), in
 * one line of clauses. @param {any} s result.speed @param {string} L
 */
export function ttftNote(s, L) {
  if (!s || typeof s.prompt !== 'number') return '';
  const w = firstTokenWords(s, L);
  const text = w && w.code !== 'text_only' ? 'ttft_note_text' : 'ttft_note';
  return clauses(L, [t(L, text, { 0: num(s.prompt, L) }), w ? w.clause : '', w ? w.exceeds : '']);
}

/** "~49.9 tok/s (34–53)": format.js's, shared with the embeddable card. */
export { spreadText };

/**
 * Launch commands from `result.commands`, whatever the shape: an array of {engine|label,
 * command|text}, or an object engine -> string | {command}.
 * @param {any} r @returns {{label: string, command: string}[]}
 */
export function commandsOf(r) {
  const c = r && r.commands;
  if (!c) return [];
  const one = (/** @type {string} */ label, /** @type {any} */ v) => {
    const command = typeof v === 'string' ? v : v && (v.command ?? v.text ?? v.cmd ?? (Array.isArray(v.argv) ? v.argv.join(' ') : ''));
    return typeof command === 'string' && command ? { label: (v && (v.label || v.engine)) || label, command } : null;
  };
  const out = Array.isArray(c) ? c.map((v, i) => one(String(i + 1), v)) : Object.entries(c).map(([k, v]) => one(k, v));
  return /** @type {{label: string, command: string}[]} */ (out.filter(Boolean));
}

/**
 * A generic key/value list for a result object whose fields say their units, skipping nested
 * objects and missing values; null when there is nothing to show.
 * @param {any} obj @param {string} lang
 */
export function factList(obj, lang) {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return null;
  const rows = Object.entries(obj).filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object');
  if (!rows.length) return null;
  return h('dl', { class: 'facts' }, rows.map(([k, v]) => h('div', null, h('dt', null, k.replace(/_/g, ' ')), h('dd', null, byKey(k, v, lang)))));
}

/**
 * "Mac Studio · M3 Ultra 80-core GPU · 512 GB" for a device sold in named products, else "RTX
 * 4090 (24 GB)", or the name alone when it already states its memory ("… 128 GB").
 * @param {{id?: string, name: string, memory_gib: number}} d @param {string} lang
 */
export function nameWithMemory(d, lang) {
  return deviceLabel(withProducts(d), lang, hardware);
}

/**
 * A device with its memory in a table whose figures are GiB (device-name.js tableLabel): a product
 * label says its memory in GiB there too. @param {{id?: string, name: string, memory_gib?: number}} d @param {string} lang
 */
export function tableNameWithMemory(d, lang) {
  return tableLabel(withProducts(d), lang, hardware);
}

/**
 * The name a device goes by on the page: its product label (device-name.js) where the catalog
 * names products, else the name it carries. `d` may be a solver's or tier list's device ({id,
 * name}): the catalog entry gives the product fields.
 * @param {{id?: string, name: string, memory_gib?: number}} d @param {string} lang
 */
export function shownName(d, lang) {
  const w = withProducts(d);
  // A name that states its size in the vendor's GB is said with the size in GiB instead
  // (device-name.js deviceLabel: "NVIDIA H20 (141 GiB)"), as every memory figure on the page.
  return productLabel(w, lang, hardware) ?? (w.name_base && w.memory_gib > 0 ? deviceLabel(w, lang, hardware) : scopedName(w, lang));
}

/**
 * A device page's name for its device (the tab title, the h1, og:title and the meta description,
 * live and prerendered alike): the catalog's display label as the hardware select shows it, with
 * the size it is sold as ("GeForce RTX 4090 · 24 GB", "NVIDIA H20 · 141 GB", "Mac Studio · M3
 * Ultra 80-core GPU · 512 GB"), the same rule for every device (device-name.js deviceLabel).
 * @param {any} d a catalog or saved device @param {string} lang
 */
export function devicePageName(d, lang) {
  return deviceLabel(withProducts(d), lang, hardware);
}

/**
 * A device's name in a table whose columns give its memory in GiB: without the size a vendor's
 * name states (device-name.js tableName). @param {{id?: string, name: string, memory_gib?: number}} d @param {string} lang
 */
export function rowName(d, lang) {
  return tableName(withProducts(d), lang, hardware);
}

/** A result's hardware as the page names it: "2× name" for several. @param {any} r an estimate @param {string} lang */
export function hwLabel(r, lang) {
  const name = shownName(r.hardware, lang);
  return r.hardware.count > 1 ? `${times(r.hardware.count, lang)} ${name}` : name;
}

/** @param {any} d */
function withProducts(d) {
  const info = d && d.id ? deviceInfo(d.id) : null;
  return info && !Array.isArray(d.product_lines) ? { ...info, ...d, product_lines: info.product_lines, chip: info.chip, gpu_cores: info.gpu_cores, cpu_cores: info.cpu_cores, name_scope: info.name_scope, name_base: info.name_base } : d;
}

/**
 * A table that fits its box: at any width every column shows (text cells wrap, numbers do not),
 * and on a phone each row becomes a card with the column names beside the values, so no column
 * (least of all the key one) is ever scrolled out of sight.
 * @param {string} caption  visible title and accessible name ('' for none)
 * @param {string[]} head  column names
 * @param {any[][]} rows  cells: strings or nodes
 * @param {{numeric?: number[], id?: string, rowProps?: (i: number) => Record<string, any>}} [opts]
 */
export function stackTable(caption, head, rows, opts = {}) {
  const numeric = new Set(opts.numeric || []);
  const cell = (/** @type {any} */ c, /** @type {number} */ i) => {
    // A heading may be an element (a sort button): the card label is the column's name it carries
    // (data-label), else its text; a sort arrow belongs to the header, not to every card.
    const hd = /** @type {any} */ (head[i]);
    const label = typeof hd === 'string' ? hd : String(hd?.dataset?.label ?? hd?.textContent ?? '');
    const props = { 'data-label': label, class: numeric.has(i) ? 'n' : null };
    const inner = h('span', null, c);
    return i === 0 ? h('th', { ...props, scope: 'row' }, inner) : h('td', props, inner);
  };
  return h('div', { class: 'table-block' }, caption ? h('p', { class: 'table-title', 'aria-hidden': 'true' }, caption) : null,
    h('div', { class: 'table-wrap fit' },
      h('table', { class: 'data stack', id: opts.id || null },
        caption ? h('caption', { class: 'sr' }, caption) : null,
        h('thead', null, h('tr', null, head.map((c, i) => h('th', { scope: 'col', class: numeric.has(i) ? 'n' : null }, c)))),
        h('tbody', null, rows.map((r, k) => h('tr', opts.rowProps ? opts.rowProps(k) : null, r.map(cell)))))));
}

/**
 * A parameter count for people, in the language's own scale words (format.js params): 109B,
 * 109 Md, 109.000 M, 1092亿.
 * @param {number} count  parameters (not billions) @param {string} lang
 */
export function paramsText(count, lang) {
  return paramsCount(count, lang);
}

/** Set the tab title and the meta description (both in the page's language). @param {string} title @param {string} description */
export function setPageMeta(title, description) {
  document.title = title;
  let m = /** @type {HTMLMetaElement|null} */ (document.querySelector('meta[name="description"]'));
  if (!m) {
    m = document.createElement('meta');
    m.name = 'description';
    document.head.append(m);
  }
  m.content = description;
}

/**
 * The core's usable-memory rule ({code, params}) in the page's language; each parameter is
 * formatted by what its name says (…_gib, …_gb, …_mib, fractions and shares as percentages).
 * On an NPU or AI accelerator (the core's `device_type`), a discrete device's rule names its memory
 * "device memory", not VRAM (the `_accel` wording of the same code).
 * @param {{code: string, params: Record<string, number>}} rc @param {string} L
 * @param {string|null} [deviceType] the core's device_type of the device the rule is for
 */
export function ruleFromCode(rc, L, deviceType = null) {
  /** @type {Record<string, string>} */
  const v = {};
  for (const [k, x] of Object.entries(rc.params || {})) {
    v[k] = /_gib$/.test(k) ? `${num(x, L, Number.isInteger(x) ? 0 : 2)}\u00a0${units(L).gib}` : /_gb$/.test(k) ? `${num(x, L)}\u00a0${units(L).gb}`
      : /_mib$/.test(k) ? `${num(x, L)}\u00a0${units(L).mib}` : /fraction|share/.test(k) ? pct(x, L) : num(x, L, 2);
  }
  const accel = isAccelerator(deviceType) && /^gpu_/.test(rc.code);
  return t(L, accel ? `rule_code_${rc.code}_accel` : `rule_code_${rc.code}`, v);
}

/**
 * A model's topology (the core's `topology_code`) in the page's language: dense or MoE with its
 * experts, the attention kind, and sliding-window layers if any.
 * @param {{ffn: string, experts?: number, experts_used?: number, attention: string, window: string} | undefined} c @param {string} L
 */
export function topologyText(c, L) {
  if (!c) return '';
  const parts = [c.ffn === 'moe' ? t(L, 'topo_moe', { 0: num(c.experts ?? 0, L), 1: num(c.experts_used ?? 0, L) }) : t(L, 'topo_dense'),
    t(L, `topo_att_${c.attention}`)];
  if (c.window !== 'none') parts.push(t(L, `topo_win_${c.window}`));
  return dots(L, parts);
}

/**
 * The device figures public sources do not settle (the core's `hardware.uncertain`, from the
 * catalog entry's `uncertain`), as a list of {field, why, low, high}; [] when every figure is settled.
 * @param {any} u
 * @returns {{field: string, why: string, low: number|null, high: number|null}[]}
 */
export function uncertainFields(u) {
  if (!u || typeof u !== 'object' || Array.isArray(u)) return [];
  return Object.entries(u).filter(([, v]) => v && typeof v === 'object').map(([field, v]) => ({
    field, why: typeof v.why === 'string' ? v.why : 'unverified',
    low: typeof v.low === 'number' ? v.low : null, high: typeof v.high === 'number' ? v.high : null,
  }));
}

/** A device figure as people read it, by the field's name (GB/s, TFLOPS, GiB). @param {string} field @param {number} v @param {string} L */
export function deviceFigure(field, v, L) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  if (field === 'bandwidth_gbs') return `${num(v, L)}\u00a0${t(L, 'unit_gbs')}`;
  if (/tflops$/.test(field)) return `${num(v, L, 1)}\u00a0TFLOPS`;
  if (field === 'memory_gib') return `${num(v, L)}\u00a0${units(L).gib}`;
  return num(v, L, 1);
}

/**
 * Why a figure is not settled, in words: "derived from related specifications", "public sources
 * disagree: 400–1,600 GB/s", "not checked against the vendor".
 * @param {{field: string, why: string, low: number|null, high: number|null}} x @param {string} L
 */
export function uncertainWhy(x, L) {
  const key = { derived: 'unc_derived', sources_disagree: 'unc_sources_disagree', unverified: 'unc_unverified' }[x.why] || 'unc_unverified';
  // The range in the language's parentheses (full-width in Chinese).
  return x.low !== null && x.high !== null
    ? aside(L, t(L, key), t(L, 'unc_range', { 0: deviceFigure(x.field, x.low, L), 1: deviceFigure(x.field, x.high, L) })) : t(L, key);
}

/**
 * A memory size that is the vendor's own figure (the core's memory_basis vendor_figure, on an
 * estimate's hardware or a cloud offer): the sentence saying the driver may report up to the
 * core's less_share less (its low_gib), and a short tag beside the figure whose text is that
 * sentence; null for a driver's total or a size as stated. Every number is the core's, formatted here.
 * @param {any} basis the core's memory_basis @param {number} bytes the figure it is about @param {string} L
 * @returns {{text: string, mark: HTMLElement} | null}
 */
export function vendorFigure(basis, bytes, L) {
  const b = basis;
  if (!b || b.code !== 'vendor_figure' || !b.values) return null;
  const text = t(L, 'basis_vendor_figure', { figure: gibExact(bytes, L), less: pct(b.values.less_share, L), low: gibExact(b.values.low_gib * 1024 ** 3, L) });
  // Drawn as the uncertain-figure tag is, under a class of its own (the uncertain marks are counted apart).
  return { text, mark: h('span', { class: 'basis-mark', title: text, dataset: { basis: b.code } }, t(L, 'basis_mark'), h('span', { class: 'sr' }, `: ${text}`)) };
}

/**
 * The vendor's-figure mark beside a device a list names with its size (a solver's or a tier list's
 * device, with the core's memory_basis and memory_gib); null for a driver's total or a size as stated.
 * @param {any} d @param {string} L
 */
export function basisMark(d, L) {
  const vf = d && typeof d.memory_gib === 'number' ? vendorFigure(d.memory_basis, d.memory_gib * 1024 ** 3, L) : null;
  return vf ? vf.mark : null;
}

/**
 * A visible mark beside a figure public sources do not settle: a short tag ("uncertain") whose
 * text says why; null when the field is settled.
 * @param {any} u the core's hardware.uncertain @param {string} field @param {string} L
 */
export function uncertainMark(u, field, L) {
  const x = uncertainFields(u).find((f) => f.field === field);
  if (!x) return null;
  const why = uncertainWhy(x, L);
  return h('span', { class: 'unc', title: why, dataset: { field, why: x.why } }, t(L, 'unc_mark'), h('span', { class: 'sr' }, `: ${why}`));
}

/**
 * Where most of the table's perplexity figures were measured (the formats' `source` in the
 * catalog, data/quants.json: one reference model's run, the same for every model).
 * @param {any[]} qs
 */
export function qualityReference(qs) {
  /** @type {Map<string, number>} */
  const n = new Map();
  for (const q of qs) if (typeof q.ppl_delta_pct === 'number' && q.source) n.set(q.source, (n.get(q.source) || 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1])[0]?.[0] || '';
}

/**
 * A section drawn a moment after the answer, the newest call winning: `schedule(work)` drops a
 * pending call and runs `work(alive)` after `delay` ms (`alive()` turns false once a newer call
 * came); `drawn()` resolves when the newest call's work has ended, or a newer call replaced it (a
 * prerendered page the app takes over waits for it, app.js renderStatic).
 * @param {number} delay
 */
export function latestSection(delay) {
  let seq = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let settle = () => {};
  let drawn = Promise.resolve();
  return {
    drawn: () => drawn,
    /** @param {(alive: () => boolean) => Promise<unknown>} work */
    schedule(work) {
      clearTimeout(timer);
      settle();
      const mine = ++seq;
      drawn = new Promise((resolve) => {
        settle = () => resolve(undefined);
        timer = setTimeout(() => { work(() => mine === seq).finally(() => resolve(undefined)); }, delay);
      });
    },
  };
}

/**
 * The words for the result's device in the page's language, by the core's `device_type` and
 * count (i18n.js deviceWords): "on each GPU", "on each NPU" (Ascend), "on each accelerator"
 * (Gaudi), "on the GPU" for one card. @param {any} r an estimate @param {string} L
 */
export function kindWords(r, L) {
  const hw = (r && r.hardware) || {};
  return deviceWords(L, hw.device_type, typeof hw.count === 'number' ? hw.count : 1);
}
