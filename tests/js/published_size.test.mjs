// The estimate names a published GGUF file of the same format when the catalog lists one
// (data/models/*.json `gguf`), so the page can show it beside the computed size; and the markets
// carry store searches the page can fill with a device name.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { api, cli, root } from './helpers.mjs';

const glm = JSON.parse(fs.readFileSync(path.join(root, 'data', 'models', 'zai-org', 'glm-4.5-air.json'), 'utf8'));

test('a published GGUF of the estimated format comes back with its size and repo, close to ours', async () => {
  const pub = glm.gguf.find((g) => g.quant === 'Q8_0');
  assert.ok(pub, 'the catalog lists a Q8_0 file for GLM-4.5-Air');
  const r = await api.estimate({ model: 'zai-org/GLM-4.5-Air', quant: 'Q8_0', hardware: 'nvidia-rtx-4090' });
  assert.equal(r.gguf_file_published_bytes, pub.bytes);
  assert.equal(r.gguf_file_published_repo, pub.repo);
  // Our computed file and the published one describe the same tensors: within 3 %.
  assert.ok(Math.abs(r.gguf_file_bytes - pub.bytes) / pub.bytes < 0.03, `${r.gguf_file_bytes} vs ${pub.bytes}`);
  // The page shows the core's signed difference, never its own.
  assert.ok(Math.abs(r.gguf_file_published_diff_pct - 100 * (r.gguf_file_bytes - pub.bytes) / pub.bytes) < 1e-9, String(r.gguf_file_published_diff_pct));
  const c = cli('estimate', '--model', 'zai-org/GLM-4.5-Air', '--quant', 'Q8_0', '--hardware', 'nvidia-rtx-4090', '--json');
  assert.equal(c.json.gguf_file_published_bytes, pub.bytes);
});

test('a format with no published file, or a model given by its own config, has no published size', async () => {
  const listed = new Set(glm.gguf.map((g) => g.quant));
  const q = ['IQ1_S', 'Q2_K', 'Q3_K_S'].find((x) => !listed.has(x));
  const r = await api.estimate({ model: 'zai-org/GLM-4.5-Air', quant: q, hardware: 'nvidia-rtx-4090' });
  assert.equal(r.gguf_file_published_bytes, undefined);
  const own = await api.estimate({ model: { config: glm.config, name: 'mine' }, quant: 'Q8_0', hardware: 'nvidia-rtx-4090' });
  assert.equal(own.gguf_file_published_bytes, undefined);
});

// Issue 16: under vLLM / SGLang the formats come with the checkpoint each is served from (the
// catalog's `checkpoints`), in the wasm module's and the CLI's documents alike.
const llama8 = JSON.parse(fs.readFileSync(path.join(root, 'data', 'models', 'meta-llama', 'llama-3.1-8b-instruct.json'), 'utf8'));

test('vLLM offers a model its published quantized checkpoints and serves the chosen one by its repo', async () => {
  const req = { model: 'meta-llama/Llama-3.1-8B-Instruct', engine: 'vllm', hardware: 'nvidia-rtx-3090', context: 8192 };
  const r = await api.estimate({ ...req, quant: 'GPTQ-4bit' });
  const byId = Object.fromEntries(r.server_formats.map((f) => [f.id, f]));
  for (const c of llama8.checkpoints) {
    assert.equal(byId[c.quant]?.repo, c.repo, c.quant);
    assert.equal(byId[c.quant].code, 'published');
  }
  assert.equal(byId['SAFETENSORS-BF16'].code, 'publisher');
  const gptq = llama8.checkpoints.find((c) => c.quant === 'GPTQ-4bit');
  assert.deepEqual([r.checkpoint.repo, r.checkpoint.bits, r.checkpoint.group_size, r.checkpoint.zero_point, r.checkpoint.source],
    [gptq.repo, 4, 128, false, gptq.source]);
  assert.match(r.commands.vllm, new RegExp(`^vllm serve ${gptq.repo.replace(/[.]/g, '\\.')} `));
  assert.doesNotMatch(r.commands.vllm, /--quantization/);
  assert.match(r.commands.sglang, new RegExp(`--model-path ${gptq.repo.replace(/[.]/g, '\\.')} `));
  // The FP8 checkpoint on an Ampere card: listed, with the weight-only code, never dropped.
  const fp8 = await api.estimate({ ...req, quant: 'FP8' });
  assert.equal(fp8.quant.applicability.code, 'fp8_weight_only');
  // The CLI gives the same document.
  const c = cli('estimate', '--model', 'meta-llama/Llama-3.1-8B-Instruct', '--engine', 'vllm', '--quant', 'GPTQ-4bit', '--hardware', 'nvidia-rtx-3090', '--context', '8192', '--json');
  assert.deepEqual(c.json.server_formats, r.server_formats);
  assert.deepEqual(c.json.checkpoint, r.checkpoint);
  assert.equal(c.json.checkpoint_bytes, r.checkpoint_bytes);
  // llama.cpp has no server formats.
  const gguf = await api.estimate({ model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-rtx-3090' });
  assert.equal(gguf.server_formats, undefined);
  assert.equal(gguf.checkpoint, undefined);
});

test('every market lists https store searches with a {q} slot', async () => {
  const markets = await api.list('markets');
  for (const id of ['US', 'EU', 'UK', 'CN']) {
    const m = markets.find((x) => x.id === id);
    assert.ok(m && Array.isArray(m.stores) && m.stores.length >= 2, id);
    for (const s of m.stores) {
      assert.match(s.search_url, /^https:\/\/[^\s"<>]+$/);
      assert.ok(s.search_url.includes('{q}'), s.search_url);
      assert.ok(typeof s.name === 'string' && s.name.length > 0);
    }
  }
});
