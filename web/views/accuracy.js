// @ts-check
// The accuracy page ("How accurate is this?"): the core's accuracyReport() as it is, no figure
// of its own. A summary per group (decode / prefill; in-sample, held-out, multi-GPU, offloaded),
// a log-log plot of predicted against measured with the y = x line and the ±25% band, and every
// row as a table (one plot point per table row).
import { call, has } from '../client.js';
import { scatterChart } from '../chart.js';
import { byId, fill, h } from '../dom.js';
import { num, tps } from '../format.js';
import { t } from '../i18n.js';
import { state } from '../state.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);
const SPLITS = ['in_sample', 'held_out', 'multi_gpu', 'offloaded'];
const KIND = { tg: 'acc_decode', pp: 'acc_prefill' };

/** @param {number} x */
const pctText = (x) => `${num(x, state.lang, 1)} %`;

/** @param {any[]} groups */
function summaryTable(groups) {
  const row = (/** @type {any} */ g) => h('tr', { dataset: { group: `${g.kind}-${g.split}` } },
    h('th', { scope: 'row' }, `${T(KIND[/** @type {'tg'|'pp'} */ (g.kind)])} · ${T(`acc_split_${g.split}`)}`),
    h('td', { dataset: { field: 'rows' } }, num(g.rows, state.lang)),
    h('td', { dataset: { field: 'median_ape_pct' } }, g.rows ? pctText(g.median_ape_pct) : '—'),
    h('td', { dataset: { field: 'within_25_pct' } }, g.rows ? pctText(g.within_25_pct) : '—'));
  const order = (/** @type {any} */ g) => (g.kind === 'tg' ? 0 : 10) + SPLITS.indexOf(g.split);
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': T('acc_summary') },
    h('table', { class: 'data', id: 'acc-summary' }, h('caption', null, T('acc_summary')),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, T('acc_group')), h('th', { scope: 'col' }, T('acc_n_rows')),
        h('th', { scope: 'col' }, T('acc_median')), h('th', { scope: 'col' }, T('acc_within')))),
      h('tbody', null, [...groups].sort((a, b) => order(a) - order(b)).map(row))));
}

/** @param {string} src */
function sourceCell(src) {
  if (/^https?:\/\//.test(src)) {
    let label = src;
    try { const u = new URL(src); label = u.hostname.replace(/^www\./, '') + u.pathname.replace(/\/$/, '').slice(0, 40); } catch { /* keep */ }
    return h('a', { href: src, rel: 'noopener noreferrer', target: '_blank' }, label);
  }
  return src || '—';
}

/** @param {any[]} points */
function rowsTable(points) {
  const cols = ['acc_col_model', 'acc_col_device', 'acc_col_backend', 'acc_col_quant', 'acc_col_test', 'acc_col_measured',
    'acc_col_predicted', 'acc_col_error', 'acc_col_source'];
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': T('acc_rows') },
    h('table', { class: 'data', id: 'acc-rows' }, h('caption', null, T('acc_rows')),
      h('thead', null, h('tr', null, cols.map((k) => h('th', { scope: 'col' }, T(k))))),
      h('tbody', null, points.map((p) => h('tr', { dataset: { row: p.row_id, group: p.group, heldOut: p.held_out ? '1' : '0' } },
        h('td', null, p.model),
        h('td', null, p.gpu_count > 1 ? `${p.hardware} × ${p.gpu_count}` : p.hardware, p.settings ? h('div', { class: 'note' }, p.settings) : null),
        h('td', null, p.device_class),
        h('td', null, p.quant),
        h('td', null, `${T(KIND[/** @type {'tg'|'pp'} */ (p.kind)])} ${p.test}`),
        h('td', null, tps(p.measured_tps, state.lang)),
        h('td', null, tps(p.predicted_tps, state.lang), p.predicted_held_out_tps
          ? h('div', { class: 'note' }, T('acc_held_pred', { 0: tps(p.predicted_held_out_tps, state.lang) })) : null),
        h('td', null, `${p.error_pct > 0 ? '+' : ''}${num(p.error_pct, state.lang, 1)} %`),
        h('td', null, sourceCell(p.source)))))));
}

/** @param {() => boolean} alive */
export async function renderAccuracy(alive) {
  if (!(await has('accuracyReport'))) {
    if (alive()) fill('acc-body', h('p', { class: 'note' }, T('acc_pending')));
    return;
  }
  let rep;
  try {
    rep = (await call('accuracyReport')).accuracy;
  } catch (e) {
    if (alive()) fill('acc-body', h('p', { class: 'error' }, String(/** @type {any} */ (e).message || e)));
    return;
  }
  if (!alive()) return;
  const points = Array.isArray(rep && rep.points) ? rep.points : [];
  if (!points.length) { fill('acc-body', h('p', { class: 'note' }, T('acc_empty'))); return; }
  const excluded = Object.values(rep.excluded || {}).reduce((a, b) => a + Number(b), 0);
  fill('acc-body',
    h('p', { id: 'acc-counts' }, T('acc_counts', { 0: num(rep.rows_used, state.lang), 1: num(rep.rows_total, state.lang), 2: num(excluded, state.lang) })),
    summaryTable(rep.groups || []),
    h('p', { class: 'note' }, T('acc_split_note')),
    h('h2', null, T('acc_plot')),
    h('div', { class: 'chart', id: 'acc-chart', role: 'img', 'aria-label': T('acc_plot_alt', { 0: num(points.length, state.lang) }) }),
    rowsTable(points));
  const label = { single_tg: T('acc_decode'), single_pp: T('acc_prefill'), multi_gpu: T('acc_split_multi_gpu'), offloaded: T('acc_split_offloaded') };
  const color = { single_tg: '--accent', single_pp: '--tight', multi_gpu: '--fits', offloaded: '--nofit' };
  /** @type {Record<string, [number, number][]>} */
  const by = {};
  for (const p of points) {
    const k = p.group === 'single' ? `single_${p.kind}` : p.group;
    (by[k] ||= []).push([p.measured_tps, p.predicted_tps]);
  }
  const groups = Object.entries(by).map(([k, pts]) => ({
    label: /** @type {any} */ (label)[k] || k, color: /** @type {any} */ (color)[k] || '--muted', points: pts,
  }));
  await scatterChart(byId('acc-chart'), {
    groups, band: 0.25, xLabel: T('acc_measured_axis'), yLabel: T('acc_predicted_axis'),
    fmt: (v) => num(v, state.lang, v < 10 ? 1 : 0), lineLabel: T('acc_line'), bandLabel: T('acc_band'),
  });
}
