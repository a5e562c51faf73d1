// @ts-check
// The accuracy page: how the estimates compare with measurements. The report comes from the
// core's `accuracyReport()` once that exists; until then the page says so. The renderer accepts
// a summary object, rows of cases and an optional measured-vs-estimated series.
import { call, has } from '../client.js';
import { lineChart } from '../chart.js';
import { byId, fill, h } from '../dom.js';
import { t } from '../i18n.js';
import { state } from '../state.js';
import { factList, objectTable } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** @param {() => boolean} alive */
export async function renderAccuracy(alive) {
  if (!(await has('accuracyReport'))) {
    if (alive()) fill('acc-body', h('p', { class: 'note' }, T('acc_pending')));
    return;
  }
  let rep;
  try {
    rep = await call('accuracyReport');
  } catch (e) {
    if (alive()) fill('acc-body', h('p', { class: 'error' }, String(/** @type {any} */ (e).message || e)));
    return;
  }
  if (!alive()) return;
  const L = state.lang;
  const rows = Array.isArray(rep) ? rep : rep && (rep.rows || rep.cases || rep.items);
  const summary = rep && !Array.isArray(rep) ? factList(rep.summary || rep, L) : null;
  const plot = h('div', { class: 'chart', id: 'acc-chart' });
  fill('acc-body', summary, objectTable(rows, L, T('acc_rows')) || h('p', { class: 'note' }, T('acc_empty')), plot);
  // A measured-vs-estimated plot when the rows carry both numbers.
  const pairs = (Array.isArray(rows) ? rows : []).map((r) => {
    const mk = Object.keys(r || {}).find((k) => /^measured/.test(k) && typeof r[k] === 'number');
    const ek = Object.keys(r || {}).find((k) => /^(estimated|estimate|predicted)/.test(k) && typeof r[k] === 'number');
    return mk && ek ? [r[mk], r[ek]] : null;
  }).filter(Boolean).sort((a, b) => a[0] - b[0]);
  if (pairs.length >= 2) {
    await lineChart(byId('acc-chart'), {
      x: pairs.map((p) => p[0]), xLabel: T('measured'), yLabel: T('estimated'), xFmt: (v) => String(Math.round(v * 100) / 100), yFmt: (v) => String(Math.round(v * 100) / 100),
      series: [{ label: T('estimated'), values: pairs.map((p) => p[1]), color: '--accent' }, { label: T('measured'), values: pairs.map((p) => p[0]), color: '--muted', dash: true }],
    });
  }
}
