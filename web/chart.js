// @ts-check
// Line charts with uPlot (loaded on first use from ./vendor/uPlot.esm.js), fed columnar arrays
// as uPlot expects. The same numbers are always also given as a table by the caller. Colours come
// from the page's CSS custom properties so the chart follows the light/dark theme.

/** @type {Promise<any> | null} */
let uplotPromise = null;
const loadUplot = () => (uplotPromise ??= import('./vendor/uPlot.esm.js').then((m) => m.default));

/** @param {string} name */
const cssVar = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

/**
 * Room for the y axis's tick labels: the widest label as drawn plus the ticks and their gap, so a
 * long label ("6 000 $US") never runs into the axis title beside it.
 * @param {any} u @param {string[] | null} values
 */
function tickRoom(u, values) {
  if (!values || !values.length) return 48;
  const c = u.ctx;
  c.save();
  c.font = `${Math.round(12 * (window.devicePixelRatio || 1))}px system-ui, sans-serif`;
  const w = Math.max(...values.map((v) => c.measureText(String(v)).width)) / (window.devicePixelRatio || 1);
  c.restore();
  return Math.ceil(w) + 22;
}

/**
 * A legend row's mark drawn as its series' line (styles.css .line-mark): solid or dashed, in the
 * line's colour (a custom property set through the CSSOM, as uPlot sets its own marks' colours).
 * @param {Element | undefined} item @param {'solid' | 'dashed'} style @param {string} color
 */
function lineMark(item, style, color) {
  const mark = /** @type {HTMLElement | null | undefined} */ (item?.querySelector('.u-marker'));
  if (!mark) return;
  mark.classList.add('line-mark');
  mark.dataset.line = style;
  mark.style.setProperty('--mark', color);
}

/** @type {WeakMap<HTMLElement, {plot: any, ro: ResizeObserver}>} */
const live = new WeakMap();

/**
 * Draw (or redraw) a chart in `el`.
 * @param {HTMLElement} el
 * @param {{x: number[], series: {label: string, values: number[], color: string, dash?: boolean}[],
 *   xLabel: string, yLabel: string, xFmt: (v: number) => string, yFmt: (v: number, digits?: number) => string, logX?: boolean}} spec
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
    // The x axis spans the data (no empty decade past the last point).
    scales: { x: { time: false, distr: spec.logX ? 3 : 1, log: 2, range: () => [Math.min(...spec.x), Math.max(...spec.x)] }, y: { range: (/** @type {any} */ _u, /** @type {number} */ lo, /** @type {number} */ hi) => [0, hi * 1.08] } },
    axes: [
      // The labels drawn (on the canvas) are kept on the element too (data-x-ticks), so a test
      // can read what a person sees at the axis's end.
      { ...axis, label: spec.xLabel, values: (/** @type {any} */ _u, /** @type {(number|null)[]} */ t) => {
        const labels = t.map((v) => (v == null ? '' : spec.xFmt(v)));
        el.dataset.xTicks = labels.filter(Boolean).join('|');
        return labels;
      },
        // A log x axis is labelled at the data's own points (the core's contexts), so its last
        // label is the end of the range the title names (40K, not the power of two before it).
        // Walking back from the end, a point closer than `gap` px to the one kept after it goes
        // unlabelled (32K beside 40K on a phone); the start is labelled too (the title's other
        // end), in place of the label after it when they are too close, never the end itself.
        ...(spec.logX ? { splits: (/** @type {any} */ u) => {
          const gap = 40;
          const pos = (/** @type {number} */ v) => u.valToPos(v, 'x');
          const xs = [...spec.x].sort((a, b) => a - b);
          /** @type {number[]} */
          const kept = [];
          for (let i = xs.length - 1; i >= 0; i--) {
            if (!kept.length || pos(kept[0]) - pos(xs[i]) >= gap) kept.unshift(xs[i]);
          }
          if (xs.length && kept[0] !== xs[0]) {
            if (kept.length > 1 && pos(kept[0]) - pos(xs[0]) < gap) kept[0] = xs[0];
            else if (kept.length === 1 ? pos(kept[0]) - pos(xs[0]) >= gap : true) kept.unshift(xs[0]);
          }
          return kept;
        },
        // uPlot's own log filter would then drop every other label where an octave is narrower
        // than its spacing (the start among them): the splits above are spaced already.
        filter: (/** @type {any} */ _u, /** @type {number[]} */ splits) => splits } : {}) },
      // One number of decimals for every tick: none when every tick is whole ("0, 20, 40", not "0.0, 20").
      { ...axis, label: spec.yLabel, size: tickRoom, values: (/** @type {any} */ _u, /** @type {number[]} */ t) => {
        const digits = t.every((v) => Number.isInteger(v)) ? 0 : 1;
        return t.map((v) => spec.yFmt(v, digits));
      } },
    ],
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
    series: [
      // Off the plot the legend names the series only: an empty value (no "—"), which the page's
      // CSS hides with its colon, and the x entry (no series of its own) hides altogether.
      { label: spec.xLabel, value: (/** @type {any} */ _u, /** @type {number} */ v) => (v == null ? '' : spec.xFmt(v)) },
      ...spec.series.map((s) => ({
        label: s.label, stroke: cssVar(s.color), width: 2, dash: s.dash ? [6, 4] : undefined,
        // A mark at each point where the points stand apart (the contexts of the memory chart);
        // none where they crowd (240 months of rent or buy drew a beaded line), as uPlot does
        // by default. 12 CSS px between points at the plot's width.
        points: { show: s.dash ? false : (/** @type {any} */ u) => u.over.clientWidth / Math.max(1, spec.x.length - 1) >= 12, size: 5 },
        value: (/** @type {any} */ _u, /** @type {number} */ v) => (v == null ? '' : spec.yFmt(v)),
      })),
    ],
  };
  const plot = new uPlot(opts, [spec.x, ...spec.series.map((s) => s.values)], el);
  // Each series' legend mark is its line, solid or dashed as the plot draws it (uPlot's default is
  // a box with a dashed border, which read as a box beside a dotted line). Series n is row n.
  const items = plot.root.querySelectorAll('.u-legend .u-series');
  spec.series.forEach((s, i) => lineMark(/** @type {Element | undefined} */ (items[i + 1]), s.dash ? 'dashed' : 'solid', cssVar(s.color)));
  // The plot and its legend fill the box the page holds for the chart (.chart's min-height, the
  // same box a prerendered page reserves before the app draws): the plot takes the height its
  // legend leaves, at most 260 px. A legend on two lines (a phone) made the chart 18 px taller
  // than its box when it was drawn, and the page below it moved.
  const fit = () => {
    const w = width();
    if (plot.width !== w) plot.setSize({ width: w, height: plot.height });
    const legend = plot.root.getBoundingClientRect().height - plot.height;
    const box = parseFloat(getComputedStyle(el).minHeight) || 0;
    const h = box > 0 ? Math.floor(Math.min(260, Math.max(160, box - legend))) : 260;
    if (h !== plot.height) plot.setSize({ width: w, height: h });
  };
  fit();
  const ro = new ResizeObserver(fit);
  ro.observe(el);
  live.set(el, { plot, ro });
}

/**
 * A log axis for values from `min` to `max` (both > 0): its ends the nearest round values outside
 * them (1, 2 or 5 × 10^k, a little room kept), its ticks the powers of ten inside and the start
 * when it sits far enough from the next power for both labels to read.
 * @param {number} min @param {number} max
 */
export function logAxis(min, max) {
  const steps = [1, 2, 5, 10];
  const down = (/** @type {number} */ v) => { const p = 10 ** Math.floor(Math.log10(v)); return p * Math.max(...steps.filter((s) => s * p <= v * (1 + 1e-9))); };
  const up = (/** @type {number} */ v) => { const p = 10 ** Math.floor(Math.log10(v)); return p * Math.min(...steps.filter((s) => s * p >= v * (1 - 1e-9))); };
  const lo = down(min / 1.15), hi = up(max * 1.15);
  /** @type {number[]} */
  const ticks = [];
  for (let e = Math.ceil(Math.log10(lo) - 1e-9); 10 ** e <= hi * (1 + 1e-9); e++) ticks.push(10 ** e);
  if (!ticks.length || Math.log10(ticks[0] / lo) >= 0.5) ticks.unshift(lo);
  return { lo, hi, ticks };
}

/**
 * A log-log scatter of predicted against measured values with the y = x line and a ±`band`
 * share band (dashed). Points come in groups (one legend entry each); every point is one row of
 * the caller's table. uPlot needs one sorted x array, so points are merged by x and each group
 * is a points-only series with gaps where other groups sit.
 * @param {HTMLElement} el
 * @param {{groups: {label: string, color: string, points: [number, number][]}[], band: number,
 *   xLabel: string, yLabel: string, fmt: (v: number) => string, lineLabel: string, bandLabel: string}} spec
 */
export async function scatterChart(el, spec) {
  const uPlot = await loadUplot();
  const old = live.get(el);
  if (old) { old.ro.disconnect(); old.plot.destroy(); }
  el.replaceChildren();
  const all = spec.groups.flatMap((g, gi) => g.points.map((p) => ({ gi, x: p[0], y: p[1] }))).sort((a, b) => a.x - b.x);
  const xs = all.map((p) => p.x);
  const vals = [...xs, ...all.map((p) => p.y)].filter((v) => v > 0);
  // Both axes start and end at round values (1, 2 or 5 times a power of ten) just outside the data,
  // ticked at the powers of ten between them and at the start: "2, 10, 100, 1,000", never "1.7"
  // (every tick labelled: uPlot's own filter for log axes would drop the start).
  const { lo, hi, ticks } = logAxis(Math.min(...vals), Math.max(...vals));
  const cols = spec.groups.map((_, gi) => all.map((p) => (p.gi === gi ? p.y : null)));
  const width = () => Math.max(260, el.clientWidth);
  const height = () => Math.min(420, Math.max(260, width() * 0.6));
  const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--line'), width: 1 }, ticks: { stroke: cssVar('--line') } };
  const line = (/** @type {string} */ label, /** @type {number[] | undefined} */ dash = undefined) => ({
    label, stroke: cssVar('--muted'), width: 1, dash, points: { show: false }, value: () => '',
  });
  const noPath = () => null;
  const opts = {
    width: width(), height: height(),
    scales: { x: { time: false, distr: 3, range: () => [lo, hi] }, y: { distr: 3, range: () => [lo, hi] } },
    axes: [
      { ...axis, label: spec.xLabel, splits: () => ticks, filter: (/** @type {any} */ _u, /** @type {number[]} */ t) => t, values: (/** @type {any} */ _u, /** @type {number[]} */ t) => t.map((v) => (v == null ? '' : spec.fmt(v))) },
      { ...axis, label: spec.yLabel, size: 64, splits: () => ticks, filter: (/** @type {any} */ _u, /** @type {number[]} */ t) => t, values: (/** @type {any} */ _u, /** @type {number[]} */ t) => t.map((v) => (v == null ? '' : spec.fmt(v))) },
    ],
    legend: { live: false },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: spec.xLabel },
      line(spec.lineLabel),
      line(spec.bandLabel, [4, 4]),
      line('', [4, 4]),
      ...spec.groups.map((g) => ({
        label: g.label, stroke: cssVar(g.color), fill: cssVar(g.color), width: 0, paths: noPath,
        points: { show: true, size: 6, width: 1, stroke: cssVar(g.color), fill: cssVar(g.color) },
      })),
    ],
  };
  // Reference lines are drawn through every x (they are straight on log-log axes).
  // No band stated (a report without band_pct): no band drawn, none listed.
  const band = spec.band > 0 && Number.isFinite(spec.band) ? spec.band : null;
  const data = [xs, xs.map((x) => x), xs.map((x) => (band ? x * (1 + band) : null)), xs.map((x) => (band ? x * (1 - band) : null)), ...cols];
  const plot = new uPlot(opts, data, el);
  // The band's lower edge shares the ±band legend entry: uPlot would list it as "Value".
  // (Series 3; a legend that is not live leaves the x series out, one entry fewer.)
  const items = plot.root.querySelectorAll('.u-legend .u-series');
  const first = items.length === opts.series.length ? 1 : 0;
  const lower = /** @type {HTMLElement | undefined} */ (items[first + 2]);
  if (lower) lower.hidden = true;
  if (!band && items[first + 1]) /** @type {HTMLElement} */ (items[first + 1]).hidden = true;
  // The reference lines' legend marks are lines (solid y = x, dashed band), not empty boxes.
  lineMark(items[first], 'solid', cssVar('--muted'));
  lineMark(items[first + 1], 'dashed', cssVar('--muted'));
  el.dataset.points = String(all.length);  // what the plot shows, for tests and assistive tech alike
  el.dataset.ticks = ticks.map((v) => spec.fmt(v)).join(' | ');  // the axes' labels as drawn (both axes alike)
  const ro = new ResizeObserver(() => plot.setSize({ width: width(), height: height() }));
  ro.observe(el);
  live.set(el, { plot, ro });
  return plot;
}
