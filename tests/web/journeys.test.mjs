// Journeys a person takes through the model × device view, each checked against the CLI: for
// every journey the page's key figures (required, usable, margin or RAM, decode, prefill, time to
// first token, and for vLLM/SGLang the KV pool and the concurrency) must read exactly what the
// page's own formatters make of the CLI's document for the same request, in the page's language.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { canonicalText } from '../golden/canonical.mjs';
import { journeys } from '../../scripts/golden.mjs';
import { axeProblems, open, root, setup } from './helpers.mjs';

const cli = path.join(root, 'build', 'cli', 'willitfit');
const qwen3 = JSON.parse(fs.readFileSync(path.join(root, 'data/models/qwen/qwen3-8b.json'), 'utf8')).config;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-journeys-'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); fs.rmSync(tmp, { recursive: true, force: true }); });

/** The CLI's document for a request given as flags. @param {string[]} args */
function cliDoc(args) {
  const r = spawnSync(cli, ['estimate', ...args, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}

/** What the page shows in its key figures: text of each card value, by id. @param {any} page */
async function shown(page) {
  return page.evaluate(() => {
    /** @type {Record<string, string>} */
    const out = {};
    for (const id of ['c-total', 'c-usable', 'c-margin', 'c-util', 'k-decode', 'k-prefill', 'k-ttft', 'k-kv-tokens', 'k-concurrency', 'plan-total']) {
      const el = document.getElementById(id);
      if (el && el.offsetParent !== null) out[id] = el.textContent || '';
    }
    out.ttft_note = document.getElementById('k-ttft')?.nextElementSibling?.textContent || '';
    return out;
  });
}

/** The same figures made by the page's own formatters from the CLI's document. @param {any} page @param {any} doc */
async function expected(page, doc) {
  return page.evaluate(async (d) => {
    const f = await import('./format.js');
    const sh = await import('./views/shared.js');
    const { gap, t, tn } = await import('./i18n.js');
    const L = document.documentElement.lang;
    const m = d.memory;
    /** @type {Record<string, string>} */
    const sv = d.sglang || d.vllm || null;
    const dem = sv ? sv.demand : null;
    // vLLM / SGLang: the need, what the engine sets aside, and the pool's room in sequences.
    const out = { 'c-total': f.gib(m.total_bytes, L), 'c-usable': f.gib(dem ? m.reserved_bytes : m.usable_bytes, L) };
    if (d.verdict === 'offload' && m.host && m.host.total_bytes > 0) out['c-margin'] = f.gib(m.host.total_bytes, L);
    else {
      out['c-margin'] = (m.margin_bytes >= 0 ? '+' : '−') + f.gib(Math.abs(m.margin_bytes), L);
      out['c-util'] = dem
        ? (dem.room_sequences > 0 ? tn(L, 'pool_room_note', dem.room_sequences, { n: f.num(dem.room_sequences, L), ctx: f.tokens(dem.context, L) })
          : dem.room_sequences === 0 ? t(L, 'pool_room_none', { ctx: f.tokens(dem.context, L) })
          : dem.pool_sequences === 0 ? t(L, 'pool_room_short', { ctx: f.tokens(dem.context, L) })
          : t(L, 'pool_room_over', { pool: f.num(dem.pool_sequences, L), asked: f.num(dem.sequences, L), ctx: f.tokens(dem.context, L) }))
        : t(L, m.margin_bytes >= 0 ? 'utilization' : 'utilization_over', { 0: f.pct(m.utilization, L) });
    }
    // An offload plan states its total in RAM and on the device, and why it exceeds c-total.
    const p = d.placement;
    if (d.verdict === 'offload' && m.host && m.host.total_bytes > 0) {
      // The device named by its kind and count (the core's device_type: "on the GPU", "on the NPUs").
      const kw = sh.kindWords(d, L);
      out['plan-total'] = `${t(L, 'plan_total', { ...kw, total: f.gib(p.total_bytes, L), gpu: f.gib(p.devices_bytes, L), ram: f.gib(p.host_bytes, L), over: f.gib(p.over_full_bytes, L), full: f.gib(m.total_bytes, L) })}${gap(L)}${
        t(L, p.op_offload_bytes > 0 ? 'plan_over_buf' : 'plan_over', { ...kw, emb: f.gib(m.host_weights_bytes, L), buf: f.gib(p.op_offload_bytes, L) })}`;
    }
    const sp = sh.speedOf(d);
    if (sp && sp.decode) out['k-decode'] = sh.spreadText(sp.decode, L);
    if (sp && sp.prefill) out['k-prefill'] = sh.spreadText(sp.prefill, L);
    if (sp && sp.ttft) { out['k-ttft'] = sh.spreadText(sp.ttft, L, 'ms'); out.ttft_note = t(L, 'ttft_note', { 0: f.num(d.speed.prompt, L) }); }
    if (sv) {
      out['k-kv-tokens'] = `${f.num(sv.kv_tokens, L)}\u00a0${t(L, 'tokens_word')}`;
      out['k-concurrency'] = f.num(dem.sequences_at_once, L);
    }
    return out;
  }, doc);
}

/** Wait for the key figures of a result, then compare them with the CLI's. @param {any} page @param {any} doc */
async function sameAsCli(page, doc) {
  await page.waitForFunction(() => !['pending', ''].includes(document.querySelector('#verdict').dataset.verdict) && document.querySelector('#c-total').textContent !== '—');
  // A setup that does not run has no speed: the speed cards stay hidden (checked below), so there
  // is nothing to wait for.
  // A setup with no speed estimate (the engine's speed model has no backend there: speed_unavailable)
  // shows none either.
  const runs = doc.verdict !== 'no_fit' && !!doc.speed;
  if (runs) await page.waitForFunction(() => !document.querySelector('#plug-speed').hidden);
  const want = await expected(page, doc);
  // The view may still be on the previous request (an import re-renders a moment later).
  await page.waitForFunction((w) => document.querySelector('#c-total').textContent === w, want['c-total'], { timeout: 60000 }).catch(() => {});
  if (runs) await page.waitForFunction(() => !document.querySelector('#plug-speed').hidden);
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), doc.verdict);
  const got = await shown(page);
  for (const [k, v] of Object.entries(want)) assert.equal(got[k], v, `${k}: page "${got[k]}", CLI "${v}"`);
  // The range is the core's: decode always carries one; a setup that does not run shows no speed.
  if (runs) assert.match(got['k-decode'], /[(（].+–.+[)）]/);
  else assert.equal(await page.locator('#plug-speed').isVisible(), false, 'no speed cards for a setup that does not run or has no speed estimate');
  assert.doesNotMatch(await page.textContent('#result'), /undefined|NaN|Infinity/);
  return got;
}

const flags = (/** @type {Record<string, any>} */ q) => Object.entries(q).flatMap(([k, v]) => (Array.isArray(v) ? v.flatMap((x) => [`--${k}`, String(x)]) : [`--${k}`, String(v)]));

/** Catalog journeys: a URL and the same request as CLI flags. */
const JOURNEYS = [
  { name: 'first visit (the example that runs)', url: '?lang=en', q: { model: 'Qwen/Qwen3-30B-A3B', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 } },
  { name: 'a Mac Studio, TTFT for the prompt the core used', url: '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192&lang=en', q: { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 8192 } },
  { name: 'offload to system RAM', url: '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ram=64&lang=en', q: { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, 'ram-gib': 64 } },
  { name: 'two GPUs', url: '?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&lang=en', q: { model: 'meta-llama/Llama-3.3-70B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-3090', count: 2, context: 8192 } },
  { name: 'vLLM from the README link (no quant)', url: '?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&lang=en', q: { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 8192 } },
  { name: 'SGLang', url: '?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-h100-sxm&engine=sglang&lang=en', q: { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'nvidia-h100-sxm', engine: 'sglang', context: 8192 } },
  { name: 'unified memory PC', url: '?model=openai/gpt-oss-120b&quant=MXFP4&hw=amd-ryzen-ai-max-plus-395-128gb&lang=en', q: { model: 'openai/gpt-oss-120b', quant: 'MXFP4', hardware: 'amd-ryzen-ai-max-plus-395-128gb', context: 8192 } },
  // A 32 GB card whose bandwidth and FP16 rate public sources do not settle (hardware.uncertain):
  // the speeds resting on them carry a visible mark, and one line says which figure and why.
  { name: 'long context with a q8_0 cache, on a card whose bandwidth is not settled', url: '?model=Qwen/Qwen3-32B&quant=Q5_K_M&hw=amd-radeon-ai-pro-r9700&ctx=32768&kv=q8_0&lang=en', q: { model: 'Qwen/Qwen3-32B', quant: 'Q5_K_M', hardware: 'amd-radeon-ai-pro-r9700', context: 32768, 'kv-type': 'q8_0' }, opts: { bypassCSP: true },
    extra: async (/** @type {any} */ page, /** @type {any} */ doc) => {
      const u = doc.hardware.uncertain;
      assert.ok(u && u.bandwidth_gbs && u.fp16_tflops, JSON.stringify(u));
      const marks = await page.$$eval('#speed-cards .unc', (xs) => xs.map((x) => `${x.closest('.card').querySelector('.v').id}:${x.dataset.field}:${x.textContent}`));
      assert.deepEqual(marks, ['k-decode:bandwidth_gbs:uncertain: derived from related specifications, not a vendor figure',
        'k-prefill:fp16_tflops:uncertain: derived from related specifications, not a vendor figure',
        'k-ttft:fp16_tflops:uncertain: derived from related specifications, not a vendor figure']);
      const line = await page.textContent('#speed-uncertain');
      assert.ok(await page.isVisible('#speed-uncertain'));
      assert.ok(line.includes(`Memory bandwidth ${doc.hardware.bandwidth_gbs}\u00a0GB/s: derived from related specifications`), line);
      assert.match(line, /FP16 compute [\d.]+\u00a0TFLOPS: derived/);
      assert.deepEqual(await axeProblems(page), []);
    } },
  // Sources disagree 4x on the Ascend 910B's bandwidth (400 GB/s against 1.6 TB/s): the core widens the
  // decode range by the low and high figure (speed.device_uncertain) and the line under the cards says so.
  { name: 'a card whose sources disagree on its bandwidth: the decode range spans both figures', url: '?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=huawei-ascend-910b&ctx=8192&lang=en', q: { model: 'Qwen/Qwen3-8B', quant: 'Q4_K_M', hardware: 'huawei-ascend-910b', context: 8192 }, opts: { bypassCSP: true },
    extra: async (/** @type {any} */ page, /** @type {any} */ doc) => {
      const w = doc.speed.device_uncertain;
      assert.ok(Array.isArray(w) && w.length >= 1, JSON.stringify(doc.speed));
      assert.equal(w[0].field, 'bandwidth_gbs');
      assert.equal(w[0].range, 'decode');
      assert.ok(Math.abs(w[0].low_factor - 400 / 1600) < 1e-9, String(w[0].low_factor));
      // The card shows the core's widened range, whose low end is a quarter of the settled-source one.
      const lo = Number(await page.getAttribute('#k-decode', 'data-lo'));
      assert.ok(Math.abs(lo / doc.speed.decode_tps_low - 1) < 1e-6, `${lo} against ${doc.speed.decode_tps_low}`);
      assert.ok(doc.speed.decode_tps_low < 0.3 * doc.speed.decode_tps);
      const line = await page.textContent('#speed-uncertain');
      assert.match(line, /The decode range spans the bandwidth from 400\sGB\/s to 1[,\u202f\u00a0]?600\sGB\/s\./);
      assert.match(line, /public sources disagree/);
      // Only the figures the speeds rest on: the 910B's disputed TDP is the device page's, not this line's.
      assert.doesNotMatch(line, /tdp_w|—:/);
      // An NPU is named as one (the core's device_type), for the one card: the per-device caption and
      // the weights row, not "on each accelerator" or "discrete GPUs".
      assert.equal(doc.hardware.device_type, 'npu');
      assert.equal(await page.textContent('#devices-table caption'), 'Layers and memory on the NPU');
      assert.match(await page.textContent('#w-weights'), /as llama\.cpp does on a discrete NPU\./);
      // Ollama has no build for Huawei's CANN: llama-server alone, and a note saying why (the core's commands_left_out).
      assert.deepEqual(doc.commands_left_out, [{ engine: 'ollama', code: 'engine_not_on_device' }]);
      assert.equal(doc.commands.ollama, undefined);
      assert.doesNotMatch(await page.textContent('#commands'), /ollama create|num_gpu/);
      assert.match(await page.textContent('#commands-left-out'), /^No Ollama command: nothing in the catalog says Ollama runs on Huawei Ascend 910B/);
      assert.deepEqual(await axeProblems(page), []);
    } },
  // vLLM on a MetaX C500 (no llama.cpp there: the speed comes from the device's own figures): the
  // speeds and the batched throughput rest on a bandwidth no MetaX page states, and the cards carry the mark.
  { name: 'vLLM on a card whose bandwidth is second-hand: the throughput card is marked', url: '?model=Qwen/Qwen3-8B&hw=metax-c500&engine=vllm&ctx=8192&lang=en', q: { model: 'Qwen/Qwen3-8B', hardware: 'metax-c500', engine: 'vllm', context: 8192 }, opts: { bypassCSP: true },
    extra: async (/** @type {any} */ page, /** @type {any} */ doc) => {
      assert.ok(doc.hardware.uncertain.bandwidth_gbs, JSON.stringify(doc.hardware.uncertain));
      assert.ok(!doc.speed_unavailable && doc.speed.decode_label === 'device_figures');
      assert.ok(doc.speed.basis.uncertain.includes('bandwidth_gbs'));
      assert.ok(doc.vllm.throughput.aggregate_tps > 0);
      const marks = await page.$$eval('#serve-cards .unc', (xs) => xs.map((x) => `${x.dataset.field}:${x.firstChild.textContent}`));
      assert.deepEqual(marks, ['bandwidth_gbs:uncertain']);
      assert.deepEqual(await axeProblems(page), []);
    } },
  { name: 'Spanish', url: '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&lang=es', q: { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 8192 } },
  { name: 'French (Gio, decimal comma)', url: '?model=openai/gpt-oss-20b&quant=MXFP4&hw=apple-m4-max-40c-gpu-128gb&lang=fr', q: { model: 'openai/gpt-oss-20b', quant: 'MXFP4', hardware: 'apple-m4-max-40c-gpu-128gb', context: 8192 }, check: /Gio/ },
  { name: 'Chinese, offload', url: '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ram=64&lang=zh', q: { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, 'ram-gib': 64 } },
  // A Mac: MLX's own estimate, and llama.cpp beside it with the format of like size (the core's
  // engine_compare), every figure the CLI's for that engine and format.
  // Its quantized cache (--kv-bits 8): the page sends the core's type as kv_bits and states the
  // type the figures are at, not llama.cpp's f16.
  { name: 'MLX on a Mac with an 8-bit cache, llama.cpp side by side', url: '?model=Qwen/Qwen3-30B-A3B&hw=apple-m4-max-40c-gpu-128gb&engine=mlx&kv=q8_g64&lang=en', q: { model: 'Qwen/Qwen3-30B-A3B', hardware: 'apple-m4-max-40c-gpu-128gb', engine: 'mlx', context: 8192, 'kv-bits': 8 }, opts: { bypassCSP: true },
    extra: async (/** @type {any} */ page, /** @type {any} */ doc) => {
      assert.equal(doc.quant.id, 'MLX-4bit');
      assert.equal(doc.memory.kv.cache_type, 'q8_g64');
      assert.equal(await page.inputValue('#kv'), 'q8_g64');
      assert.match(await page.textContent('#c-topology'), /· q8_g64/);
      assert.equal(await page.getAttribute('#c-kvtok', 'data-bytes'), String(doc.memory.kv.bytes_per_token));
      assert.equal(doc.speed.decode_label, 'mlx_fitted');
      assert.match(await page.textContent('#speed-basis'), /MLX: fitted on \d+ published mlx-lm runs/);
      await page.waitForSelector('#plug-engines:not([hidden]) #engines-table table');
      const ec = doc.engine_compare.quants;
      assert.deepEqual(ec, { 'llama.cpp': 'Q4_K_M', mlx: 'MLX-4bit' });
      const llama = cliDoc(flags({ model: 'Qwen/Qwen3-30B-A3B', quant: ec['llama.cpp'], hardware: 'apple-m4-max-40c-gpu-128gb', context: 8192 }));
      const cells = await page.$$eval('#engines-table tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
      const want = await page.evaluate(async ([a, b]) => {
        const f = await import('./format.js');
        const sh = await import('./views/shared.js');
        const L = document.documentElement.lang;
        return [a, b].map((d) => ({ quant: d.quant.id, total: f.gib(d.memory.total_bytes, L), decode: sh.spreadText(sh.speedOf(d).decode, L), prefill: sh.spreadText(sh.speedOf(d).prefill, L) }));
      }, [llama, doc]);
      const col = (/** @type {number} */ i) => cells.map((r) => r[i]);
      for (const [i, w] of want.entries()) {
        assert.ok(col(i).includes(w.quant), `${w.quant} in ${col(i)}`);
        assert.ok(col(i).includes(w.total), `${w.total} in ${col(i)}`);
        assert.ok(col(i).includes(w.decode), `${w.decode} in ${col(i)}`);
        assert.ok(col(i).includes(w.prefill), `${w.prefill} in ${col(i)}`);
      }
      assert.deepEqual(await page.$$eval('#engines-table thead th', (xs) => xs.map((x) => x.textContent)), ['Engine', 'llama.cpp', 'MLX']);
      // The launch commands lead with MLX's.
      assert.match(await page.textContent('#commands'), /mlx_lm\.convert --hf-path Qwen\/Qwen3-30B-A3B -q --q-bits 4 --q-group-size 64/);
      assert.match(await page.textContent('#commands'), /--kv-bits 8 --kv-group-size 64/);
      assert.deepEqual(await axeProblems(page), []);
    } },
  { name: 'French vLLM', url: '?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&lang=fr', q: { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 8192 } },
];

for (const j of JOURNEYS) {
  test(`journey: ${j.name} shows the CLI's figures`, async () => {
    const page = await env.page(j.opts || {});
    await open(page, `${env.url}${j.url}`);
    const doc = cliDoc(flags(j.q));
    const got = await sameAsCli(page, doc);
    if (j.check) assert.match(Object.values(got).join(' '), j.check);
    if (j.extra) await j.extra(page, doc);
    // A device whose figures are all settled shows no mark.
    else assert.equal(await page.locator('#speed-cards .unc, #c-usable-unc .unc').count(), 0);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test('journey: phone width, the answer and its figures come first and the form folds to one line', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true });
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&lang=en`);
  await sameAsCli(page, cliDoc(flags({ model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 8192 })));
  assert.equal(await page.evaluate(() => document.querySelector('#setup-box').open), false);
  const v = await page.locator('#verdict').boundingBox();
  assert.ok(v && v.y < 500, `the verdict starts ${v && v.y} px down`);
  assert.match(await page.textContent('#setup-line'), /GLM-4\.5 Air · Q4_K_M · 8K/);
  // The line takes the summary's width under its heading (beside it, it had a column a word wide).
  const line = await page.locator('#setup-line').boundingBox(), head = await page.locator('#setup-summary h2').boundingBox();
  assert.ok(line && head && line.y > head.y && line.height < 50, `the setup line is ${JSON.stringify(line)} under the heading at ${JSON.stringify(head)}`);
  await page.click('#setup-summary');
  assert.equal(await page.evaluate(() => document.querySelector('#setup-box').open), true);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1), false);
  await page.context().close();
});

test('journey: an imported config.json shows the CLI figures for that config, and its link carries it', async () => {
  const cfg = path.join(tmp, 'config.json');
  fs.writeFileSync(cfg, JSON.stringify(qwen3));
  const page = await env.page({ permissions: ['clipboard-read', 'clipboard-write'] });
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-3090&lang=en`);
  await page.click('#import summary');
  await page.fill('#cfg-text', JSON.stringify(qwen3));
  await page.click('#cfg-go');
  await page.waitForFunction(() => /imported/.test(document.querySelector('#summary').textContent));
  // Named from its architecture and the core's parameter count, not "qwen3 4096".
  assert.match(await page.textContent('#summary'), /^Qwen3 \(8\.19B parameters, imported\)/);
  await sameAsCli(page, cliDoc(flags({ model: cfg, quant: 'Q4_K_M', hardware: 'nvidia-rtx-3090', context: 8192 })));
  await page.click('#share');
  await page.waitForFunction(() => /copied/i.test(document.querySelector('#share-msg').textContent));
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /[?&]cfg=/);
  // A fresh browser (nothing saved) opens the same answer from the link alone.
  const fresh = await env.page();
  await open(fresh, link);
  await sameAsCli(fresh, cliDoc(flags({ model: cfg, quant: 'Q4_K_M', hardware: 'nvidia-rtx-3090', context: 8192 })));
  await fresh.context().close();
  await page.context().close();
});

test('journey: an imported GGUF drives every section; the quant select shows the file\'s format', async () => {
  const file = path.join(tmp, 'glm-air-Q3_K_M.gguf');
  const r = spawnSync(cli, ['gguf-synth', '--model', 'zai-org/GLM-4.5-Air', '--quant', 'Q3_K_M', '--out', file, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&lang=en`);
  await page.click('#import summary');
  await page.setInputFiles('#cfg-file', file);
  await page.waitForFunction(() => /tensors/.test(document.querySelector('#cfg-msg').textContent));
  const doc = cliDoc(flags({ model: file, hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 8192 }));
  await sameAsCli(page, doc);
  assert.equal(await page.inputValue('#quant'), doc.quant.id);
  assert.equal(await page.evaluate(() => document.querySelector('#quant').disabled), true);
  // No link left over from the model before the import.
  assert.doesNotMatch(await page.textContent('#crumbs'), /Qwen3 8B/);
  // The cost card is computed from this model's speed, not the previous one's.
  const tpsText = await page.evaluate(async (x) => (await import('./format.js')).tps(x, 'en'), doc.speed.decode_tps);
  await page.waitForFunction((want) => document.querySelector('#cost-inputs-used')?.textContent.includes(want), tpsText, { timeout: 120000 });
  await page.waitForFunction((want) => [...document.querySelectorAll('#cloud-table tbody tr')].length > 0, null, { timeout: 120000 });
  await page.context().close();
});

test('journey: a setup that does not fit shows no launch command, says why once, and "make it fit" starts from now', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  await sameAsCli(page, cliDoc(flags({ model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 })));
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'no_fit');
  assert.equal(await page.locator('#commands .cmd').count(), 0);
  assert.match(await page.textContent('#commands-note'), /does not fit/);
  await page.waitForFunction(() => document.querySelectorAll('#fit-list li.fix').length > 0);
  const fit = await page.textContent('#fit-list');
  assert.match(fit, /runs at [\d.,]+\stok\/s[^·]* · does not run now/);
  assert.doesNotMatch(fit, /→/);
  // The core's first change is also under the verdict, the same words as the list's first item.
  await page.waitForSelector('#verdict-fix:not([hidden])');
  const firstFix = await page.textContent('#fit-list li.fix:first-child a, #fit-list li.fix:first-child strong');
  assert.match(await page.textContent('#verdict-fix'), /^What makes it run: /);
  assert.ok((await page.textContent('#verdict-fix')).includes(firstFix), firstFix);
  await page.context().close();
});

test('journey: the title and description name the model and the device in the page\'s language', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&lang=fr`);
  await page.waitForFunction(() => /GLM-4\.5 Air/.test(document.title));
  // The Mac by its product, with its chip configuration and memory in French ("Go", "GPU 80 cœurs").
  assert.match(await page.title(), /GLM-4\.5 Air sur Mac Studio · M3 Ultra GPU 80\scœurs · 512\sGo/);
  assert.match(await page.getAttribute('meta[name="description"]', 'content'), /GLM-4\.5 Air.*Mac Studio · M3 Ultra/);
  await page.context().close();
});

test('journey: the hardware search finds a Mac by its product name', async () => {
  const page = await env.page();
  await open(page, `${env.url}?lang=en`);
  await page.fill('#hw-search', 'mac studio m3 ultra 512');
  await page.waitForSelector('#hw-search-options li');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /M3 Ultra/.test(document.querySelector('#summary').textContent));
  assert.equal(await page.inputValue('#hardware'), 'apple-m3-ultra-80c-gpu-512gb');
  // The summary and the device page name it by product, chip configuration and memory; the select,
  // whose closed box cannot wrap, by chip and memory with the products written under it.
  const label = 'Mac Studio · M3 Ultra 80-core GPU · 512\u00a0GB';
  assert.equal((await page.textContent('#hardware option[value="apple-m3-ultra-80c-gpu-512gb"]')).trim(), 'M3 Ultra 80-core GPU · 512\u00a0GB');
  assert.equal((await page.textContent('#hw-full')).trim(), label);
  assert.ok((await page.textContent('#summary')).includes(label), await page.textContent('#summary'));
  // A chip that ships in several products names them all, and the search finds it by either.
  await page.fill('#hw-search', 'macbook pro m4 max 128');
  await page.waitForSelector('#hw-search-options li');
  const options = await page.$$eval('#hw-search-options li .opt-name', (els) => els.map((e) => e.textContent));
  assert.ok(options.includes('MacBook Pro / Mac Studio · M4 Max 40-core GPU · 128\u00a0GB'), options.join(' | '));
  await page.fill('#hw-search', 'framework desktop 128');
  await page.waitForSelector('#hw-search-options li');
  assert.match(await page.textContent('#hw-search-options li .opt-name'), /Framework Desktop .*Ryzen AI Max\+ 395 · 128\sGB/);
  await open(page, `${env.url}?view=device&hw=apple-m4-pro-20c-gpu-48gb&lang=zh`);
  await page.waitForFunction(() => /Mac mini/.test(document.querySelector('#dp-title').textContent));
  assert.match(await page.textContent('#dp-title'), /Mac mini \/ MacBook Pro · M4 Pro 20\s核 GPU · 48\sGB/);
  await page.context().close();
});

test('journey: make it fit offers no more RTX 4060 cards than a desktop holds, and says why in every language', async () => {
  const page = await env.page();
  const capText = { en: /at most 4 consumer graphics cards/, es: /como máximo 4 tarjetas gráficas de consumo/,
    fr: /au plus 4 cartes graphiques grand public/, zh: /最多容纳 4 张消费级显卡/ };
  for (const [lang, re] of Object.entries(capText)) {
    await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4060&ctx=8192&lang=${lang}`);
    await page.waitForSelector('#fit-list li[data-cap="consumer"]');
    assert.match(await page.textContent('#fit-list li[data-cap="consumer"]'), re);
    // No change adds cards beyond the cap (the core offered seven before the cap).
    const counts = await page.$$eval('#fit-list li.fix[data-field="count"]', (els) => els.map((e) => e.textContent));
    assert.equal(counts.length, 0, counts.join(' | '));
  }
  await page.context().close();
});

test('golden journeys: the page\'s worker gives each expected document, the same as the CLI and the wasm module', async () => {
  // Each journey's request goes through client.js → worker.js → api.js, the path every view uses
  // (the worker's memoised estimate and solve included); errors come back as the page sees them.
  const all = journeys();
  const fnOf = { estimate: 'estimate', solve: 'solve', train: 'train', cost: 'cost', tiers: 'tiers', runs_on: 'runsOn', defaults: 'defaults' };
  const page = await env.page();
  await open(page, `${env.url}?model=Qwen/Qwen3-0.6B&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  const got = await page.evaluate(async (asks) => {
    const client = await import('./client.js');
    const out = [];
    for (const [fn, request] of asks) {
      try {
        out.push(await client.call(fn, request));
      } catch (e) {
        /** @type {Record<string, any>} */
        const err = { code: e.code, path: e.path, message: e.message };
        if (e.accepted !== undefined) err.accepted = e.accepted;
        if (e.neededBytes !== undefined) err.needed_bytes = e.neededBytes;
        if (e.values !== undefined) err.values = e.values;
        out.push({ schema_version: 1, error: err });
      }
    }
    return out;
  }, all.map((j) => [fnOf[j.doc.api], j.doc.request]));
  assert.equal(got.length, all.length);
  all.forEach((j, i) => {
    const want = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'golden', 'journeys', `${j.name}.expected.json`), 'utf8')).result;
    assert.equal(canonicalText(got[i]), canonicalText(want), `journey ${j.name} through the page's worker`);
  });
  assert.deepEqual(page.problems, []);
});

/** The CLI's answer to an api call. @param {string} fn @param {object} req */
function cliApi(fn, req) {
  const r = spawnSync(cli, ['api', fn, '-'], { encoding: 'utf8', input: JSON.stringify(req) });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}

test('journey: the cache diagnostics, the model page FAQ and the engine and market lists are the core\'s (French)', async () => {
  const page = await env.page();
  const q = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, ram_gib: 64 };
  const o = cliApi('solve', { ...q, solve: 'kv_outlook' });
  assert.equal(o.applies, true);
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&ram=64&lang=fr`);
  await page.waitForFunction(() => document.querySelectorAll('#diag-list li').length >= 2);
  const want = await page.evaluate(async (d) => {
    const f = await import('./format.js');
    return [f.tokens(d.from_context, 'fr'), f.tokens(d.to_context, 'fr'), f.gib(d.from.kv_cache_bytes, 'fr'), f.gib(d.to.kv_cache_bytes, 'fr'),
      f.gib(d.to.total_bytes, 'fr'), f.gib(d.q8_0.saves_bytes, 'fr'), f.gib(d.q8_0.total_bytes, 'fr')];
  }, o);
  const diag = await page.textContent('#diag-list');
  for (const w of want) assert.ok(diag.includes(w), `${w} in ${diag}`);
  // The engine and market selects list what the core lists, in its spelling.
  const engines = cliApi('defaults', {}).engines;
  assert.deepEqual(await page.$$eval('#engine option', (os) => os.map((x) => [x.value, x.textContent])),
    Object.entries(engines).map(([id, e]) => [id, e.name]));
  const lr = spawnSync(cli, ['list', 'markets', '--json'], { encoding: 'utf8' });
  const markets = JSON.parse(lr.stdout);
  assert.deepEqual(await page.$$eval('#market option', (os) => os.map((x) => x.value)), markets.markets.map((m) => m.id));
  // The model page: the format table lists the core's common formats; the FAQ names the core's smallest Mac.
  await open(page, `${env.url}?view=model&model=zai-org/GLM-4.5-Air&lang=fr`);
  await page.waitForSelector('#mp-faq details');
  const rows = await page.$$eval('#mp-quant-table tbody tr', (r) => r.map((x) => /** @type {HTMLElement} */ (x).dataset.quant));
  assert.deepEqual(rows, engines['llama.cpp'].common_formats);
  const tiers = cliApi('tiers', { model: 'zai-org/GLM-4.5-Air', quant: engines['llama.cpp'].quant, context: 8192 });
  const mac = tiers.smallest_fit.macs;
  const label = await page.evaluate(async (id) => {
    const sh = await import('./views/shared.js');
    const c = await import('./catalog.js');
    return sh.shownName(c.hardware.find((d) => d.id === id), 'fr');
  }, mac);
  assert.ok((await page.textContent('#mp-faq')).includes(label), `${label} in the FAQ`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
