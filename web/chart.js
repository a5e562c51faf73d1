// @ts-check
// Line charts with uPlot (loaded on first use from ./vendor/uPlot.esm.js), fed columnar arrays
// as uPlot expects. The same numbers are always also given as a table by the caller. Colours come
// from the page's CSS custom properties so the chart follows the light/dark theme.

/** @type {Promise<any> | null} */
let uplotPromise = null;
const loadUplot = () => (uplotPromise ??= import('./vendor/uPlot.esm.js').then((m) => m.default));

/** @param {string} name */
const cssVar = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

/** @type {WeakMap<HTMLElement, {plot: any, ro: ResizeObserver}>} */
const live = new WeakMap();

/**
 * Draw (or redraw) a chart in `el`.
 * @param {HTMLElement} el
 * @param {{x: number[], series: {label: string, values: number[], color: string, dash?: boolean}[],
 *   xLabel: string, yLabel: string, xFmt: (v: number) => string, yFmt: (v: number) => string, logX?: boolean}} spec
 */
export async function lineChart(el, spec) {
  const uPlot = await loadUplot();
  const old = live.get(el);
  if (old) { old.ro.disconnect(); old.plot.destroy(); }
  el.replaceChildren();
  const width = () => Math.max(260, el.clientWidth);
  const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--line'), width: 1 }, ticks: { stroke: cssVar('--line') } };
  const opts = {
    width: width(), height: 260,
    scales: { x: { time: false, distr: spec.logX ? 3 : 1, log: 2 }, y: { range: (/** @type {any} */ _u, /** @type {number} */ lo, /** @type {number} */ hi) => [0, hi * 1.08] } },
    axes: [
      { ...axis, label: spec.xLabel, values: (/** @type {any} */ _u, /** @type {(number|null)[]} */ t) => t.map((v) => (v == null ? '' : spec.xFmt(v))) },
      { ...axis, label: spec.yLabel, size: 64, values: (/** @type {any} */ _u, /** @type {number[]} */ t) => t.map(spec.yFmt) },
    ],
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: spec.xLabel, value: (/** @type {any} */ _u, /** @type {number} */ v) => (v == null ? '—' : spec.xFmt(v)) },
      ...spec.series.map((s) => ({
        label: s.label, stroke: cssVar(s.color), width: 2, dash: s.dash ? [6, 4] : undefined,
        points: { show: !s.dash, size: 5 },
        value: (/** @type {any} */ _u, /** @type {number} */ v) => (v == null ? '—' : spec.yFmt(v)),
      })),
    ],
  };
  const plot = new uPlot(opts, [spec.x, ...spec.series.map((s) => s.values)], el);
  const ro = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
  ro.observe(el);
  live.set(el, { plot, ro });
}
