// @ts-check
// The accuracy page ("How accurate is this?"): the core's accuracyReport() as it is, no figure
// of its own. A summary per group (decode / prefill; in-sample, held-out, multi-GPU, offloaded),
// a log-log plot of predicted against measured with the y = x line and the report's error band
// (band_pct), and every row as a table (one plot point per table row; rows that look the same
// name what sets them apart: the report's `distinct` fields of each row's `setup`).
import { call, has } from '../client.js';
import { deviceInfo } from '../catalog.js';
import { scatterChart } from '../chart.js';
import { byId, commandTokens, fill, h, setText, slashBreaks } from '../dom.js';
import { backendName, gbOf, gib, num, pct, percentOf, range, signedPct, times as countTimes, tps } from '../format.js';
import { aside, commas, dots, errorText, gap, sentenceCase, t } from '../i18n.js';
import { appPath, state } from '../state.js';
import { setPageMeta, shownName, stackTable } from './shared.js';
import { engineName } from './main.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);
const SPLITS = ['in_sample', 'held_out', 'multi_gpu', 'offloaded'];
const KIND = { tg: 'acc_decode', pp: 'acc_prefill' };

/** @param {number} x */
const pctText = (x) => percentOf(x, state.lang, 1);

/** Filter the rows table to one group and bring it into view. @param {Event} ev @param {string} kind @param {string} split */
function showGroup(ev, kind, split) {
  ev.preventDefault();
  history.replaceState(history.state, '', `${location.pathname}${location.search}#acc-${kind}-${split}`);
  for (const [id, v] of [['acc-kind', kind], ['acc-split', split]]) {
    const sel = /** @type {HTMLSelectElement | null} */ (document.getElementById(id));
    if (sel) { sel.value = v; sel.dispatchEvent(new Event('change')); }
  }
  document.getElementById('acc-rows-sec')?.scrollIntoView();
}

/** The report's error band as the language writes a percentage ("25%", "25 %"). @param {any} rep */
const bandText = (rep) => pct(Number(rep && rep.band_pct) / 100, state.lang);

/**
 * What sets a row apart from the rows that look the same (same model, device, quant, test,
 * backend class and placement): each field the core lists in `distinct`, worded from the row's
 * `setup` ("Vulkan RADV, flash attention off", "build b6761"); nothing for a row without twins.
 * @param {any} p
 */
function distinctText(p) {
  const L = state.lang;
  const d = Array.isArray(p.distinct) ? p.distinct : [];
  const s = p.setup || {};
  const words = d.map((/** @type {string} */ f) => {
    if (f === 'backend') return s.backend || T('acc_backend_none');
    if (f === 'flash_attn') return T(s.flash_attn === true ? 'acc_fa_on' : s.flash_attn === false ? 'acc_fa_off' : 'acc_fa_none');
    if (f === 'build') return s.build ? T('acc_build', { 0: s.build }) : T('acc_build_none');
    // Each flag whole with its value, wrapping inside itself only when longer than the cell.
    // The device cell already shows the run's settings ("-ngl 99 --n-cpu-moe 48"): here only the
    // published flags beyond them ("-fa 1"), so no flag is said twice in a row.
    if (f === 'flags') {
      if (!s.flags) return T('acc_flags_none');
      const more = extraFlags(s.flags, p.settings);
      return h('span', { dataset: { flags: more } }, commandTokens(more));
    }
    if (f === 'source') return T('acc_other_source');
    if (f === 'row_id') return T('acc_row', { 0: p.row_id });
    return '';
  }).filter(Boolean);
  if (!words.length) return null;
  const sep = L === 'zh' ? '，' : ', ';
  return h('span', { class: 'note distinct', title: T('acc_distinct'), dataset: { distinct: d.join(' ') } },
    words.flatMap((/** @type {any} */ w, /** @type {number} */ i) => (i ? [sep, w] : [w])));
}

/**
 * llama.cpp's other names of a flag (common/arg.cpp, each option's list of names) and the one the
 * page writes in a command, as the launch commands do ("-ngl", "--n-cpu-moe"): a published run's
 * "--n-gpu-layers 99" is the same setting as the "-ngl 99" beside it, and is written so.
 */
const FLAG_AS_COMMAND = /** @type {Record<string, string>} */ ({
  '--gpu-layers': '-ngl', '--n-gpu-layers': '-ngl', '-ncmoe': '--n-cpu-moe', '--flash-attn': '-fa',
  '--batch-size': '-b', '--ubatch-size': '-ub', '--parallel': '-np', '--ctx-size': '-c', '--threads': '-t',
  '--cache-type-k': '-ctk', '--cache-type-v': '-ctv', '--split-mode': '-sm', '--tensor-split': '-ts',
  '--main-gpu': '-mg', '--override-tensor': '-ot', '--fit-target': '-fitt',
});

/** A flag with its value in the form a command writes it ("--n-gpu-layers 99" -> "-ngl 99"). @param {string} f */
export function commandFlag(f) {
  const m = /^(-{1,2}[A-Za-z][\w-]*)([ =].*)?$/.exec(f);
  return m && FLAG_AS_COMMAND[m[1]] ? `${FLAG_AS_COMMAND[m[1]]}${m[2] ? ` ${m[2].slice(1).trim()}` : ''}` : f;
}

/**
 * The flags of `flags` that `shown` does not already hold, each flag with its value ("-fa 1") and
 * in the form a command writes it (commandFlag); all of `flags` when every one of them is shown
 * (the note then still says what sets the row apart).
 * @param {string} flags @param {string} [shown]
 */
export function extraFlags(flags, shown) {
  const pieces = (/** @type {string} */ x) => String(x).split(/\s+(?=-)/).map((f) => commandFlag(f.trim())).filter(Boolean);
  const have = new Set(pieces(shown || ''));
  const all = pieces(flags);
  const rest = all.filter((f) => !have.has(f));
  return (rest.length ? rest : all).join(' ');
}

/** @param {any[]} groups @param {string} band */
function summaryTable(groups, band) {
  const row = (/** @type {any} */ g) => h('tr', { dataset: { group: `${g.kind}-${g.split}` } },
    h('th', { scope: 'row', 'data-label': T('acc_group') }, g.rows ? h('a', { href: `#acc-${g.kind}-${g.split}`, on: { click: (/** @type {Event} */ ev) => showGroup(ev, g.kind, g.split) } },
      `${T(KIND[/** @type {'tg'|'pp'} */ (g.kind)])} · ${T(`acc_split_${g.split}`)}`) : `${T(KIND[/** @type {'tg'|'pp'} */ (g.kind)])} · ${T(`acc_split_${g.split}`)}`),
    h('td', { dataset: { field: 'rows' }, 'data-label': T('acc_n_rows'), class: 'n' }, h('span', null, num(g.rows, state.lang))),
    h('td', { dataset: { field: 'median_ape_pct' }, 'data-label': T('acc_median'), class: 'n' }, h('span', null, g.rows ? pctText(g.median_ape_pct) : '—')),
    h('td', { dataset: { field: 'within_25_pct' }, 'data-label': T('acc_within', { band }), class: 'n' }, h('span', null, g.rows ? pctText(g.within_25_pct) : '—')),
    // The range every speed of this group is shown with (factors on the prediction), and how many
    // of the group's measured runs fall inside it.
    h('td', { dataset: { field: 'range' }, 'data-label': T('acc_range'), class: 'n' },
      h('span', null, g.rows && g.range_low > 0 && g.range_high > 0 ? range(`×${num(g.range_low, state.lang, 2)}`, `×${num(g.range_high, state.lang, 2)}`) : '—')),
    // The coverage is over its own rows (held-out ones for several GPUs and offloaded runs), which
    // may be fewer than the group's: the cell names them, "5 of 7 held-out rows".
    h('td', { dataset: { field: 'coverage_pct' }, 'data-label': T('acc_coverage'), class: 'n' },
      h('span', null, h('span', { class: 'pct' }, g.coverage_rows > 0 ? pctText(g.coverage_pct) : '—'),
        g.coverage_rows > 0 ? h('span', { class: 'note cov-rows', dataset: { rows: String(g.coverage_rows), inside: String(g.coverage_inside_rows), basis: g.coverage_basis } },
          aside(state.lang, '', T(`acc_cov_${g.coverage_basis === 'held_out' ? 'held_out' : 'in_sample'}`, { n: num(g.coverage_inside_rows, state.lang), m: num(g.coverage_rows, state.lang) }))) : null)));
  const order = (/** @type {any} */ g) => (g.kind === 'tg' ? 0 : 10) + SPLITS.indexOf(g.split);
  return h('div', { class: 'table-wrap fit' },
    h('table', { class: 'data stack', id: 'acc-summary' }, h('caption', null, T('acc_summary')),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, T('acc_group')), h('th', { scope: 'col' }, T('acc_n_rows')),
        h('th', { scope: 'col' }, T('acc_median')), h('th', { scope: 'col' }, T('acc_within', { band })),
        h('th', { scope: 'col' }, T('acc_range')), h('th', { scope: 'col' }, T('acc_coverage')))),
      h('tbody', null, [...groups].sort((a, b) => order(a) - order(b)).map(row))));
}

/**
 * A URL shortened for a table cell: its site and first two path parts, "…" for the parts between,
 * and its last part (a part over 32 characters, such as a commit hash, cut to its start and "…"):
 * "github.com/ggml-org/llama.cpp/…/15021". The link keeps the full URL (and its title shows it).
 * @param {string} src
 */
function shortUrl(src) {
  let u;
  try { u = new URL(src); } catch { return src; }
  const cut = (/** @type {string} */ s) => (s.length > 32 ? `${s.slice(0, 12)}…` : s);
  const parts = u.pathname.split('/').filter(Boolean).map((p) => { try { return decodeURIComponent(p); } catch { return p; } });
  const kept = parts.length > 3 ? [...parts.slice(0, 2), '…', parts[parts.length - 1]] : parts;
  return [u.hostname.replace(/^www\./, ''), ...kept.map(cut)].join('/');
}

/**
 * A row's source as a link a person can follow: the data's URL, labelled by its site and a
 * shortened path (the full URL in its title). A row whose data names no URL says so (the data's
 * own description stays in the tooltip).
 * @param {string} src
 */
function sourceCell(src) {
  if (/^https?:\/\//.test(src)) return h('a', { href: src, rel: 'noopener noreferrer', target: '_blank', title: src, class: 'src' }, slashBreaks(shortUrl(src)));
  return h('span', { class: 'note', title: src || null }, T('acc_no_link'));
}

/**
 * A run's command-line settings ("-ngl 99 --n-cpu-moe 48") with each flag kept on one line with
 * its value: the line breaks between flags only.
 * @param {string} [settings] @returns {string | (string | HTMLElement)[]}
 */
function flagsText(settings) {
  if (!settings) return '';
  return settings.split(/ (?=-)/).flatMap((f, i) => [i ? ' ' : '', h('span', { class: 'nw' }, f)]);
}

/**
 * A model id as "owner/" and its name, the line breaking only after the slash: a name such as
 * Meta-Llama-3-70B stays whole.
 * @param {string} id
 */
function modelCell(id) {
  const i = String(id).indexOf('/');
  return i < 0 ? h('span', { class: 'nw' }, id) : h('span', null, id.slice(0, i + 1), h('wbr', null), h('span', { class: 'nw' }, id.slice(i + 1)));
}

/** The split a speed row belongs to, as the summary names them. @param {any} p */
const splitOf = (p) => (p.group === 'single' ? (p.held_out ? 'held_out' : 'in_sample') : p.group);

/**
 * Every speed row, sortable by any numeric column and filtered by kind, split and a text match;
 * all columns visible at any width (cards on a phone).
 * @param {any[]} points
 */
function rowsSection(points) {
  const L = state.lang;
  const cols = ['acc_col_model', 'acc_col_device', 'acc_col_backend', 'acc_col_quant', 'acc_col_test', 'acc_col_measured',
    'acc_col_predicted', 'acc_col_error', 'acc_col_source'];
  /** @type {Record<string, (p: any) => number | string>} */
  const keys = { acc_col_model: (p) => p.model, acc_col_device: (p) => p.hardware, acc_col_measured: (p) => p.measured_tps,
    acc_col_predicted: (p) => p.predicted_tps, acc_col_error: (p) => Math.abs(p.error_pct) };
  // A link to one group (e.g. a result's speed linking to the accuracy of that kind of estimate):
  // #acc-tg-held_out opens the rows filtered to decode, held-out devices.
  const firstDir = (/** @type {string} */ k) => (k === 'acc_col_model' || k === 'acc_col_device' ? 1 : -1);
  const hash = /^#acc-(tg|pp)(?:-(in_sample|held_out|multi_gpu|offloaded))?$/.exec(location.hash);
  const view = { kind: hash ? hash[1] : '', split: hash?.[2] || '', q: '', sort: 'acc_col_error', dir: -1 };
  const out = h('div', { id: 'acc-rows-out' });
  const count = h('p', { class: 'note', id: 'acc-shown', 'aria-live': 'polite' });
  const select = (/** @type {string} */ id, /** @type {string} */ label, /** @type {[string, string][]} */ options, /** @type {(v: string) => void} */ set) =>
    h('div', { class: 'field' }, h('label', { for: id }, label),
      h('select', { id, on: { change: (/** @type {Event} */ ev) => { set(/** @type {HTMLSelectElement} */ (ev.target).value); draw(); } } },
        options.map(([v, l]) => h('option', { value: v }, l))));
  const controls = h('div', { class: 'acc-controls' },
    select('acc-kind', T('acc_filter_kind'), [['', T('acc_filter_all')], ['tg', T('acc_decode')], ['pp', T('acc_prefill')]], (v) => { view.kind = v; }),
    select('acc-split', T('acc_filter_split'), [['', T('acc_filter_all')], ...SPLITS.map((x) => /** @type {[string, string]} */ ([x, T(`acc_split_${x}`)]))], (v) => { view.split = v; }),
    // On a phone the table's header (its sort buttons) is out of sight: the order is chosen here,
    // each column in its usual direction (names A to Z, figures largest first).
    h('div', { class: 'field sort-field' }, h('label', { for: 'acc-sort' }, T('acc_sort')),
      h('select', { id: 'acc-sort', on: { change: (/** @type {Event} */ ev) => { const k = /** @type {HTMLSelectElement} */ (ev.target).value; view.sort = k; view.dir = firstDir(k); draw(); } } },
        Object.keys(keys).map((k) => h('option', { value: k }, T(k))))),
    h('div', { class: 'field' }, h('label', { for: 'acc-q' }, T('acc_filter_text')),
      h('input', { id: 'acc-q', type: 'search', spellcheck: 'false', on: { input: (/** @type {Event} */ ev) => { view.q = /** @type {HTMLInputElement} */ (ev.target).value.trim().toLowerCase(); draw(); } } })));
  function draw() {
    const rows = points.filter((p) => (!view.kind || p.kind === view.kind) && (!view.split || splitOf(p) === view.split)
      && (!view.q || `${p.model} ${p.hardware} ${deviceName(p.hardware)} ${p.quant} ${p.device_class} ${p.setup?.backend || ''} ${p.setup?.build || ''}`.toLowerCase().includes(view.q)));
    const key = keys[view.sort];
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), L)) * view.dir;
    });
    setText(count, T('acc_shown', { 0: num(rows.length, L), 1: num(points.length, L) }));
    const head = cols.map((k) => {
      if (!keys[k]) return T(k);
      const on = view.sort === k;
      return h('button', { type: 'button', class: 'sort', dataset: { sort: k, label: T(k) }, 'aria-label': T('acc_sort_by', { 0: T(k) }),
        on: { click: () => { view.dir = on ? -view.dir : firstDir(k); view.sort = k; draw(); } } },
      T(k), on ? (view.dir > 0 ? ' ▲' : ' ▼') : '');
    });
    const body = rows.map((p) => [
      modelCell(p.model),
      h('span', { dataset: { device: p.hardware } }, p.gpu_count > 1 ? `${countTimes(p.gpu_count, L)} ${deviceName(p.hardware)}` : deviceName(p.hardware), p.settings || p.gpu_count > 1 ? h('span', { class: 'note' }, ' ', flagsText(p.settings), p.gpu_count > 1 ? `${p.settings && L !== 'zh' ? ' ' : ''}${T('acc_layer_split')}` : '') : null),
      h('span', null, backendName(p.device_class), Array.isArray(p.distinct) && p.distinct.length ? [' ', distinctText(p)] : null),
      h('span', { class: 'nw' }, p.quant),
      // The kind in words, then llama-bench's test name kept whole ("pp2048 @ d32768": an "@"
      // was left alone on a line).
      h('span', null, `${T(KIND[/** @type {'tg'|'pp'} */ (p.kind)])} `, h('span', { class: 'nw' }, p.test)),
      tps(p.measured_tps, L),
      h('span', null, tps(p.predicted_tps, L), p.predicted_held_out_tps
        ? [' ', h('span', { class: 'note held' }, T('acc_held_pred', { 0: tps(p.predicted_held_out_tps, L) }))] : null),
      signedPct(p.error_pct, L, 1),
      sourceCell(p.source),
    ]);
    out.replaceChildren(stackTable('', /** @type {any} */ (head), body, { id: 'acc-rows', numeric: [5, 6, 7],
      rowProps: (k) => ({ dataset: { row: rows[k].row_id, group: rows[k].group, kind: rows[k].kind, split: splitOf(rows[k]), heldOut: rows[k].held_out ? '1' : '0' } }) }));
    const sortSel = /** @type {HTMLSelectElement | null} */ (controls.querySelector('#acc-sort'));
    if (sortSel) sortSel.value = view.sort;
    const th = out.querySelector(`button[data-sort="${view.sort}"]`)?.closest('th');
    if (th) th.setAttribute('aria-sort', view.dir > 0 ? 'ascending' : 'descending');
  }
  /** @type {HTMLSelectElement} */ (controls.querySelector('#acc-kind')).value = view.kind;
  /** @type {HTMLSelectElement} */ (controls.querySelector('#acc-split')).value = view.split;
  draw();
  return h('section', { 'aria-label': T('acc_rows'), id: 'acc-rows-sec' }, h('h2', null, T('acc_rows')), controls, count, out);
}

/**
 * The memory claim: GGUF file sizes computed from each model's config against the published
 * files (the core's size report), its statistics and every file.
 * @param {any} z
 */
function sizesSection(z) {
  const L = state.lang;
  if (!z || !Array.isArray(z.rows) || !z.rows.length) return null;
  const p2 = (/** @type {number} */ x) => percentOf(x, L, 2);
  const rows = [...z.rows].sort((a, b) => Math.abs(b.error_pct) - Math.abs(a.error_pct));
  const repo = (/** @type {any} */ r) => (r.source && /^https?:\/\//.test(r.source)
    ? h('a', { href: r.source, rel: 'noopener noreferrer', target: '_blank', title: r.source, class: 'src' }, slashBreaks(r.repo || shortUrl(r.source))) : (r.repo || '—'));
  return h('section', { id: 'acc-sizes', 'aria-labelledby': 'acc-sizes-title' },
    h('h2', { id: 'acc-sizes-title' }, T('acc_sizes_title')),
    h('p', null, T('acc_sizes_intro')),
    h('p', { class: 'big', id: 'acc-sizes-summary' }, T('acc_sizes_summary', { n: num(z.compared, L), median: p2(z.median_abs_error_pct),
      mean: p2(z.mean_abs_error_pct), p90: p2(z.p90_abs_error_pct), max: p2(z.max_abs_error_pct), within: percentOf(z.within_1_pct, L, 0) })),
    z.flagged ? h('p', { class: 'note' }, T('acc_sizes_flagged', { 0: num(z.flagged, L) })) : null,
    h('details', { class: 'more' }, h('summary', null, T('acc_sizes_rows', { 0: num(rows.length, L) })),
      stackTable(T('acc_sizes_caption'), [T('acc_col_model'), T('acc_col_quant'), T('acc_col_published'), T('acc_col_computed'), T('acc_col_error'), T('acc_col_source')],
        rows.map((r) => [r.name || r.model, r.quant, gib(r.published_bytes, L, 2), gib(r.computed_bytes, L, 2),
          h('span', { title: r.size_differs ? T('acc_sizes_differs') : null }, `${signedPct(r.error_pct, L, 2)}${r.size_differs ? '\u00a0*' : ''}`), repo(r)]),
        { id: 'acc-size-rows', numeric: [2, 3, 4], rowProps: (k) => ({ dataset: { model: rows[k].model, quant: rows[k].quant } }) })));
}

/**
 * The report as the build wrote it beside the app (scripts/assemble.mjs: the same module's
 * accuracyReport, run once at build time, so a visit does not wait seconds for the refit), when the
 * app is served; null where there is none (the one-file offline page, a build without it), and the
 * worker computes it then.
 * @returns {Promise<any>}
 */
async function builtReport() {
  if (!/^https?:$/.test(location.protocol) || document.documentElement.dataset.offline === 'true') return null;
  try {
    const res = await fetch(new URL(`${appPath().replace(/[^/]*$/, '')}accuracy.json`, location.href));
    if (!res.ok) return null;
    const doc = await res.json();
    return doc && doc.accuracy && Array.isArray(doc.accuracy.points) ? doc.accuracy : null;
  } catch {
    return null;
  }
}

/** @param {() => boolean} alive */
export async function renderAccuracy(alive) {
  if (!(await has('accuracyReport'))) {
    if (alive()) fill('acc-body', h('p', { class: 'note' }, T('acc_pending')));
    return;
  }
  let rep;
  try {
    const built = await builtReport();
    rep = built || (await call('accuracyReport')).accuracy;
    byId('acc-body').dataset.source = built ? 'build' : 'module';
  } catch (e) {
    if (alive()) fill('acc-body', h('p', { class: 'error' }, errorText(state.lang, e)));
    return;
  }
  if (!alive()) return;
  setPageMeta(T('acc_doc_title'), T('acc_doc_desc'));
  const points = Array.isArray(rep && rep.points) ? rep.points : [];
  if (!points.length) { fill('acc-body', h('p', { class: 'note' }, T('acc_empty'))); return; }
  const excluded = Object.values(rep.excluded || {}).reduce((a, b) => a + Number(b), 0);
  fill('acc-body',
    h('p', { id: 'acc-counts' }, T('acc_counts', { 0: num(rep.rows_used, state.lang), 1: num(rep.rows_total, state.lang), 2: num(excluded, state.lang) })),
    summaryTable(rep.groups || [], bandText(rep)),
    h('p', { class: 'note' }, T('acc_split_note')),
    h('p', { class: 'note', id: 'acc-range-note' }, T('acc_range_note')),
    // Speed together (groups, the plot, the rows), then the memory claim: the plot no longer sits
    // under the memory heading.
    h('h2', null, T('acc_plot')),
    h('div', { class: 'chart', id: 'acc-chart', role: 'img', 'aria-label': T('acc_plot_alt', { 0: num(points.length, state.lang), band: bandText(rep) }) }),
    rowsSection(points),
    sizesSection(rep.sizes),
    mlxSection(rep.mlx),
    specSection(rep.speculative));
  // The legend's entries stand alone, each in sentence case ("Several GPUs" beside "Decode"): the
  // group names are lower-case where they are also joined mid-sentence.
  const label = { single_tg: T('acc_decode'), single_pp: T('acc_prefill'), multi_gpu: sentenceCase(state.lang, T('acc_split_multi_gpu')), offloaded: sentenceCase(state.lang, T('acc_split_offloaded')) };
  // Marks on the panel: the red is --nofit-text, the one that reads on the dark theme's panel too.
  const color = { single_tg: '--accent', single_pp: '--tight', multi_gpu: '--fits', offloaded: '--nofit-text' };
  /** @type {Record<string, [number, number][]>} */
  const by = {};
  for (const p of points) {
    const k = p.group === 'single' ? `single_${p.kind}` : p.group;
    (by[k] ||= []).push([p.measured_tps, p.predicted_tps]);
  }
  const groups = Object.entries(by).map(([k, pts]) => ({
    label: /** @type {any} */ (label)[k] || k, color: /** @type {any} */ (color)[k] || '--muted', points: pts,
  }));
  lastPlot = {
    groups, band: Number(rep.band_pct) / 100, xLabel: T('acc_measured_axis'), yLabel: T('acc_predicted_axis'),
    fmt: (v) => num(v, state.lang, Number.isInteger(v) ? 0 : 1), lineLabel: T('acc_line'), bandLabel: T('acc_band', { band: bandText(rep) }),
  };
  await scatterChart(byId('acc-chart'), lastPlot);
}

/** @type {Parameters<typeof scatterChart>[1] | null} the plot as last drawn */
let lastPlot = null;

/**
 * Draw the plot again in the colours of the theme now on (the table, its sort and filters stay).
 */
export async function redrawAccuracyChart() {
  const el = document.getElementById('acc-chart');
  if (lastPlot && el) await scatterChart(el, lastPlot);
}

/**
 * MLX (mlx-lm on Apple silicon): the core's three fitted coefficients, its held-out error, every
 * published run with the core's prediction, and the planned checkpoint sizes against published
 * ones (the report's `mlx` block).
 * @param {any} m
 */
function mlxSection(m) {
  const L = state.lang;
  if (!m || !Array.isArray(m.rows) || !m.rows.length) return null;
  const p0 = (/** @type {number} */ x) => percentOf(x, L, 0);
  const src = (/** @type {any} */ r) => (r.source && /^https?:\/\//.test(r.source)
    ? h('a', { href: r.source, rel: 'noopener noreferrer', target: '_blank' }, r.date || r.source) : '—');
  const rows = m.rows.filter((/** @type {any} */ r) => r.used);
  const sizes = Array.isArray(m.sizes) ? m.sizes.filter((/** @type {any} */ r) => r.used) : [];
  return h('section', { id: 'acc-mlx', 'aria-labelledby': 'acc-mlx-title' },
    h('h2', { id: 'acc-mlx-title' }, T('acc_mlx_title')),
    h('p', { id: 'acc-mlx-summary' }, T('acc_mlx_summary', {
      fit: num(m.fitted.tg + m.fitted.pp, L), held: num(m.held_out.tg + m.held_out.pp, L),
      tg: p0(m.held_out.tg_median_ape_pct), tgmax: p0(m.held_out.tg_max_ape_pct),
      pp: p0(m.held_out.pp_median_ape_pct), ppmax: p0(m.held_out.pp_max_ape_pct),
      bw: p0(100 * m.coefficients.bw_eff), us: num(m.coefficients.layer_us, L, 0), moe: num(m.coefficients.moe_layer_us, L, 0), fl: p0(100 * m.coefficients.flop_eff) })),
    stackTable(T('acc_mlx_caption'), [T('acc_col_model'), T('acc_col_device'), T('acc_col_quant'), T('acc_col_test'), T('acc_col_measured'),
      T('acc_col_predicted'), T('acc_col_error'), T('acc_mlx_col_split'), T('acc_col_source')],
    rows.map((/** @type {any} */ r) => [r.model, deviceName(r.device), r.quant, `${r.kind}${r.prompt}`, tps(r.tps, L), tps(r.predicted_tps, L),
      signedPct(Math.round(r.error_pct) || 0, L, 0), T(r.fitted ? 'acc_mlx_fitted' : 'acc_mlx_held'), src(r)]),
    { id: 'acc-mlx-rows', numeric: [4, 5, 6], rowProps: (k) => ({ dataset: { row: rows[k].row_id, fitted: String(!!rows[k].fitted) } }) }),
    sizes.length ? stackTable(T('acc_mlx_sizes_caption'), [T('acc_col_model'), T('acc_col_quant'), T('acc_col_published'), T('acc_col_computed'), T('acc_col_error'), T('acc_col_source')],
      sizes.map((/** @type {any} */ r) => [r.repo, r.quant, gib(r.bytes, L, 2), gib(r.ours_bytes, L, 2), signedPct(r.diff_pct, L, 2), src(r)]),
      { id: 'acc-mlx-sizes', numeric: [2, 3, 4] }) : null);
}

/**
 * Speculative decoding (a draft model or a model's own MTP layers): the speedup the core predicts
 * for each published run against the measured one, the range a result states for the run's
 * workload, and the held-out summary (the report's `speculative` block).
 * @param {any} s
 */
function specSection(s) {
  const L = state.lang;
  if (!s || !Array.isArray(s.rows) || !s.rows.length) return null;
  const p0 = (/** @type {number} */ x) => percentOf(x, L, 0);
  const times = (/** @type {number} */ x) => `×${num(x, L, 2)}`;
  const span = (/** @type {number[]} */ r) => range(`×${num(r[0], L, 2)}`, num(r[1], L, 2));
  const src = (/** @type {any} */ r) => (r.source && /^https?:\/\//.test(r.source)
    ? h('a', { href: r.source, rel: 'noopener noreferrer', target: '_blank', title: r.source, class: r.date ? 'src date' : 'src' }, r.date || slashBreaks(shortUrl(r.source))) : '—');
  const rows = s.rows.filter((/** @type {any} */ r) => typeof r.speedup === 'number' || Array.isArray(r.speedup_range));
  const fit = rows.filter((/** @type {any} */ r) => r.split === 'fitted').length;
  const acceptance = (/** @type {any} */ r) => (typeof r.acceptance_rate === 'number' ? p0(100 * r.acceptance_rate)
    : Array.isArray(r.acceptance_rate_range) ? range(num(100 * r.acceptance_rate_range[0], L, 0), p0(100 * r.acceptance_rate_range[1])) : '—');
  // vLLM's own terms (the report's by_engine.vllm: its runs with vLLM's price of a drafted token,
  // and the same runs priced as llama.cpp).
  const vllm = s.by_engine && s.by_engine.vllm;
  const split = (/** @type {any} */ r) => T(r.split === 'fitted' ? 'acc_mlx_fitted' : r.split === 'held_out' ? 'acc_mlx_held' : 'acc_spec_outside_model');
  return h('section', { id: 'acc-spec', 'aria-labelledby': 'acc-spec-title' },
    h('h2', { id: 'acc-spec-title' }, T('acc_spec_title')),
    h('p', { id: 'acc-spec-summary' }, T('acc_spec_summary', {
      cuda: p0(100 * s.overhead_per_draft_token), metal: p0(100 * s.metal_overhead_per_draft_token), fit: num(fit, L),
      held: num(s.held_out_rows, L), med: p0(s.held_out_median_ape_pct), max: p0(s.held_out_max_ape_pct),
      inside: num(s.held_out_in_stated_range, L), stated: num(s.held_out_stated_rows, L) })),
    vllm && vllm.held_out_rows > 0 ? h('p', { id: 'acc-spec-vllm' }, T('acc_spec_vllm', {
      vllm: p0(100 * s.vllm_min_cost_per_draft_token), fit: num(vllm.fitted_rows, L), held: num(vllm.held_out_rows, L),
      med: p0(vllm.held_out_median_ape_pct), max: p0(vllm.held_out_max_ape_pct),
      bmed: p0(vllm.held_out_llama_terms_median_ape_pct), bmax: p0(vllm.held_out_llama_terms_max_ape_pct) })) : null,
    stackTable(T('acc_spec_caption'), [T('acc_col_model'), T('acc_col_device'), T('acc_spec_col_k'), T('acc_spec_col_workload'),
      T('acc_spec_col_acceptance'), T('acc_col_measured'), T('acc_col_predicted'), T('acc_col_error'), T('acc_spec_col_stated'), T('acc_mlx_col_split'), T('acc_col_source')],
    rows.map((/** @type {any} */ r) => [
      h('span', null, modelCell(r.model), ' ', h('span', { class: 'note' }, r.draft_model ? T('acc_spec_draft', { 0: r.draft_model }) : T('acc_spec_mtp'))),
      h('span', { class: 'spec-dev', dataset: { device: r.device || (r.device_options || []).join(' ') } }, specDevice(r), ' ',
        h('span', { class: 'note' }, r.engine ? `${engineName(r.engine)} · ${backendName(r.backend)}` : backendName(r.backend))), num(r.draft_max, L), T(`acc_spec_w_${r.workload_class}`), acceptance(r),
      typeof r.speedup === 'number' ? times(r.speedup) : span(r.speedup_range),
      typeof r.predicted === 'number' ? times(r.predicted) : Array.isArray(r.predicted_range) ? span(r.predicted_range) : '—',
      typeof r.error_pct === 'number' ? signedPct(Math.round(r.error_pct) || 0, L, 0) : '—',
      Array.isArray(r.stated_range) ? h('span', null, span(r.stated_range), ' ', h('span', { class: 'note' }, T(r.in_stated_range ? 'acc_spec_inside' : 'acc_spec_outside'))) : '—',
      split(r), src(r)]),
    { id: 'acc-spec-rows', numeric: [2, 5, 6, 7], rowProps: (k) => ({ dataset: { row: rows[k].row_id, split: rows[k].split, inside: String(!!rows[k].in_stated_range) } }) }));
}

/**
 * A speculative run's device from the report's codes, never the source's wording: the catalog's
 * name ("2× GeForce RTX 5090"), the name its possible catalog devices share with what the source
 * leaves unstated ("NVIDIA H100 (form factor not stated)"), a product outside the catalog, or none
 * named; the run's power limit and overclock in the page's language.
 * @param {any} r
 */
function specDevice(r) {
  const L = state.lang;
  const outside = r.device_not_in_catalog;
  /** @type {string} */
  let name;
  if (r.device) name = deviceName(r.device);
  else if (r.device_shared_name) name = dots(L, [r.device_shared_name, typeof r.device_shared_memory_gib === 'number' ? gbOf(r.device_shared_memory_gib, L) : '']);
  else if (outside && outside.name) name = dots(L, [outside.name, typeof outside.memory_gb === 'number' ? gbOf(outside.memory_gb, L) : '']);
  else return h('span', { class: 'note' }, aside(L, '—', T('acc_spec_dev_unnamed')));
  const quals = [
    r.variant_unstated ? T(`acc_spec_unstated_${r.variant_unstated}`) : '',
    outside ? T('acc_spec_not_in_catalog') : '',
    typeof r.power_limit_w === 'number' ? T('acc_spec_power_limit', { 0: num(r.power_limit_w, L) }) : '',
    r.overclocked ? T('acc_spec_overclocked') : '',
  ].filter(Boolean);
  const shown = r.gpu_count > 1 ? `${countTimes(r.gpu_count, L)} ${name}` : name;
  return quals.length ? h('span', null, shown, gap(L), h('span', { class: 'note' }, aside(L, '', commas(L, quals)).trim())) : shown;
}

/** A catalog device by the name people know it by (the row keeps the id in data-device). @param {string} id */
function deviceName(id) {
  const d = deviceInfo(id);
  return d && d.name ? shownName(d, state.lang) : id;
}
