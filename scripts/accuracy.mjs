// npm run accuracy: prints the speed accuracy report (predicted against published llama-bench rows)
// as a table, from the native CLI (`willitfit accuracy --json`; build it with `npm run build`).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const cli = new URL('../build/cli/willitfit', import.meta.url).pathname;
if (!existsSync(cli)) {
  console.error(`no CLI at ${cli}; run "npm run build" first`);
  process.exit(1);
}
const doc = JSON.parse(execFileSync(cli, ['accuracy', '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
if (doc.error) {
  console.error(`${doc.error.code}: ${doc.error.message}`);
  process.exit(2);
}
const a = doc.accuracy;
const pct = (x) => `${x.toFixed(1)}%`.padStart(7);
const cell = (s) => `${pct(s.median_ape_pct)} ${pct(s.within_25_pct)}`;
console.log(`Speed accuracy: ${a.rows_used} of ${a.rows_total} llama-bench rows predicted (${a.note}).`);
console.log('Columns: median absolute error, share of rows within 25%.\n');
console.log(`${'test'.padEnd(5)}${'device'.padEnd(8)}${'rows'.padStart(5)}   ${'ours'.padEnd(16)} ${'bw / size'.padEnd(16)} ${'bw / size x const'}`);
const order = { tg: 0, pp: 1 };
for (const t of [...a.table].sort((x, y) => order[x.kind] - order[y.kind] || (x.device_class === 'all' ? -1 : y.device_class === 'all' ? 1 : x.device_class.localeCompare(y.device_class)))) {
  console.log(`${(t.kind === 'tg' ? 'tg' : 'pp').padEnd(5)}${t.device_class.padEnd(8)}${String(t.rows).padStart(5)}   ${cell(t.ours)}  ${cell(t.bandwidth_over_size)}  ${cell(t.bandwidth_over_size_scaled)}`);
}
console.log(`\nBy group (held-out: ${a.held_out_rule}):`);
const splitName = { in_sample: 'in-sample', held_out: 'held-out', multi_gpu: 'multi-GPU', offloaded: 'offloaded' };
console.log(`${''.padEnd(22)}   median  in ±25%   range (low–high)  coverage (rows, basis)`);
for (const g of a.groups) {
  const figures = g.rows ? cell(g) : '     —       —';
  const range = `${g.range_low.toFixed(2)}–${g.range_high.toFixed(2)}`.padStart(12);
  const cov = g.coverage_rows ? `${pct(g.coverage_pct)} (${g.coverage_rows}, ${g.coverage_basis})` : '      —';
  console.log(`${g.kind.padEnd(5)}${splitName[g.split].padEnd(12)}${String(g.rows).padStart(5)}   ${figures}   ${range}      ${cov}`);
}
console.log('\nBy class (single device, shipped fit): rows, median signed error, median absolute error, range coverage:');
for (const c of a.classes) {
  const flag = c.rows >= 5 && Math.abs(c.median_signed_pct) > 15 ? '  <- biased' : '';
  console.log(`${c.kind.padEnd(4)}${c.backend.padEnd(8)}${c.device_kind.padEnd(9)}${(c.moe ? 'moe' : 'dense').padEnd(7)}${String(c.rows).padStart(4)}  ${pct(c.median_signed_pct)} ${pct(c.median_ape_pct)} ${pct(c.coverage_pct)}${flag}`);
}
if (a.speculative && Array.isArray(a.speculative.rows)) {
  const s = a.speculative;
  console.log(`\nSpeculative decoding (${s.source}): overhead per drafted token ${s.overhead_per_draft_token} (CUDA fit), ${s.metal_overhead_per_draft_token} on Metal up to ${s.metal_small_batch_max_draft} drafted tokens.`);
  console.log(`Median error ${s.fitted_median_ape_pct.toFixed(1)}% on ${s.fitted_rows} fitted rows with an acceptance, ${s.held_out_median_ape_pct.toFixed(1)}% (max ${s.held_out_max_ape_pct.toFixed(1)}%) on ${s.held_out_rows} held-out ones; ` +
    `held-out acceptance ranges bracket ${s.held_out_range_covered} of ${s.held_out_range_rows}; the range a result states for the workload holds ${s.held_out_in_stated_range} of ${s.held_out_stated_rows} held-out runs (${s.held_out_stated_coverage_pct.toFixed(0)}%).`);
  const v = s.by_engine && s.by_engine.vllm;
  if (v) {
    console.log(`vLLM: a drafted token costs max(draft cost, ${s.vllm_min_cost_per_draft_token}) (the draft pass's floor, ${v.fitted_rows} fitted row); held out: ${v.held_out_rows} rows, ` +
      `median ${v.held_out_median_ape_pct.toFixed(1)}%, max ${v.held_out_max_ape_pct.toFixed(1)}% (priced as llama.cpp: median ${v.held_out_llama_terms_median_ape_pct.toFixed(1)}%, max ${v.held_out_llama_terms_max_ape_pct.toFixed(1)}%)`);
  }
  for (const [k, v] of Object.entries(s.by_kind || {})) {
    console.log(`  ${k.padEnd(6)} held out: ${v.held_out_rows} rows, median ${v.held_out_median_ape_pct.toFixed(1)}%, max ${v.held_out_max_ape_pct.toFixed(1)}%; in the stated range ${v.held_out_in_stated_range} of ${v.held_out_stated_rows}`);
  }
  const x = (v) => `x${v.toFixed(2)}`;
  const span = (r) => `x${r[0].toFixed(2)}-${r[1].toFixed(2)}`;
  // The row's device as its codes give it: a catalog id, the name its options share, a product
  // outside the catalog, or none named; with the count and the run's own qualifiers.
  const dev = (r) => {
    const name = r.device || r.device_shared_name || r.device_not_in_catalog?.name || 'unnamed';
    const q = [r.variant_unstated && `${r.variant_unstated} unstated`, r.power_limit_w && `${r.power_limit_w} W`, r.overclocked && 'OC'].filter(Boolean);
    return `${r.gpu_count > 1 ? `${r.gpu_count}x ` : ''}${name}${q.length ? ` (${q.join(', ')})` : ''}`;
  };
  for (const r of s.rows) {
    const meas = typeof r.speedup === 'number' ? x(r.speedup) : Array.isArray(r.speedup_range) ? span(r.speedup_range) : '-';
    const pred = typeof r.predicted === 'number' ? `${x(r.predicted)} ${(r.error_pct >= 0 ? '+' : '') + r.error_pct.toFixed(1)}%`
      : Array.isArray(r.predicted_range) ? `${span(r.predicted_range)} ${r.covered ? 'covered' : 'NOT covered'}` : '-';
    const stated = Array.isArray(r.stated_range) ? `${span(r.stated_range)} ${r.in_stated_range ? 'inside' : 'OUTSIDE'}` : '-';
    console.log(`  ${r.row_id.padEnd(10)}${r.kind.padEnd(6)}${r.split.padEnd(14)}k=${String(r.draft_max).padEnd(3)}${(r.backend || '').padEnd(7)}${(r.workload_class || '').padEnd(6)}` +
      `${dev(r).slice(0, 26).padEnd(27)}measured ${meas.padEnd(12)} predicted ${pred.padEnd(22)} stated ${stated}`);
  }
}
console.log('\nLeft out:');
for (const [why, n] of Object.entries(a.excluded)) console.log(`  ${String(n).padStart(4)}  ${why}`);

// MLX (mlx-lm on Apple silicon): the core's own fit on data/measurements/mlx.json, the error on
// the rows kept out of it, and the planned checkpoint sizes against published ones.
const m = a.mlx;
if (m) {
  const c = m.coefficients;
  console.log(`\nMLX (mlx-lm, Apple silicon): fitted on ${m.fitted.tg} decode + ${m.fitted.pp} prefill rows; ` +
    `bandwidth share ${c.bw_eff.toFixed(2)}, ${c.layer_us} us per layer, +${c.moe_layer_us} us per MoE layer, FLOP share ${c.flop_eff.toFixed(2)}.`);
  const h = m.held_out;
  console.log(`Held out: decode ${h.tg} rows, median ${pct(h.tg_median_ape_pct)} (max ${pct(h.tg_max_ape_pct).trim()}); ` +
    `prefill ${h.pp} rows, median ${pct(h.pp_median_ape_pct)} (max ${pct(h.pp_max_ape_pct).trim()}).`);
  console.log(`Range on every MLX figure: decode ${m.range.tg_low.toFixed(2)}–${m.range.tg_high.toFixed(2)}, prefill ${m.range.pp_low.toFixed(2)}–${m.range.pp_high.toFixed(2)} x the estimate.`);
  for (const r of m.rows.filter((x) => x.used)) {
    console.log(`  ${r.row_id} ${(r.kind + r.prompt).padEnd(8)}${r.model.padEnd(36)}${r.device.padEnd(30)}${String(r.tps).padStart(9)} ${r.predicted_tps.toFixed(1).padStart(9)} ${pct(r.error_pct)}  ${r.fitted ? 'fitted' : 'held out'}`);
  }
  console.log('MLX checkpoint sizes (planned against published):');
  for (const s of (m.sizes || []).filter((x) => x.used)) {
    console.log(`  ${s.row_id} ${s.repo.padEnd(50)}${s.quant.padEnd(15)}${(s.bytes / 1e9).toFixed(2).padStart(7)} GB ${(s.ours_bytes / 1e9).toFixed(2).padStart(7)} GB ${pct(s.diff_pct)}`);
  }
}
