// Our GGUF reader and writer against an independent one: the npm package @huggingface/gguf.
// Files are written by `willitfit gguf-synth` (our writer) and by the package's own serializer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { gguf, GGMLQuantizationType, GGUFValueType, serializeGgufMetadata } from '@huggingface/gguf';

import { api, cli } from './helpers.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-gguf-'));
const pad32 = (x) => Math.ceil(x / 32) * 32;

// Small configs: a dense model with GQA and QK-norm, and an MoE with 3-D expert stacks.
const configs = {
  'tiny-qwen3': { model_type: 'qwen3', hidden_size: 256, intermediate_size: 768, num_attention_heads: 4,
    num_key_value_heads: 2, head_dim: 64, num_hidden_layers: 3, vocab_size: 300, max_position_embeddings: 32768 },
  'tiny-qwen3moe': { model_type: 'qwen3_moe', hidden_size: 256, intermediate_size: 768, moe_intermediate_size: 256,
    num_experts: 8, num_experts_per_tok: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 64,
    num_hidden_layers: 2, vocab_size: 320, max_position_embeddings: 40960 },
};

/** Write a header with our CLI; returns its path. */
function synth(name, quant) {
  const cfg = path.join(dir, `${name}.json`);
  fs.writeFileSync(cfg, JSON.stringify(configs[name]));
  const out = path.join(dir, `${name}-${quant}.gguf`);
  const r = cli('gguf-synth', '--model', cfg, '--quant', quant, '--out', out, '--full', '--json');
  assert.equal(r.code, 0, r.stdout);
  assert.equal(fs.statSync(out).size, r.json.file_bytes);   // header + zero-filled tensor data
  return out;
}

/** BigInts (the package's u64/i64) as Numbers, recursively, for comparison with JSON. */
function plain(v) {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

for (const [name, quant] of [['tiny-qwen3', 'Q4_K_M'], ['tiny-qwen3', 'Q8_0'], ['tiny-qwen3moe', 'Q4_K_M']]) {
  test(`${name} ${quant}: our summary agrees with @huggingface/gguf on tensors and metadata`, async () => {
    const file = synth(name, quant);
    const ours = cli('gguf', file, '--json');   // reads only the header
    assert.equal(ours.code, 0, ours.stdout);
    const s = ours.json;
    const ref = await gguf(file, { allowLocalFile: true, computeParametersCount: true });
    assert.equal(ref.littleEndian, true);
    assert.equal(s.gguf.big_endian, false);
    assert.equal(Number(ref.tensorDataOffset), s.gguf.data_offset);
    assert.equal(ref.tensorInfos.length, s.gguf.n_tensors);
    assert.equal(ref.parameterCount, s.params);
    ref.tensorInfos.forEach((t, i) => {
      const o = s.tensors[i];
      assert.equal(o.name, t.name);
      assert.deepEqual(o.shape, t.shape.map(Number), t.name);
      assert.equal(o.type, GGMLQuantizationType[t.dtype], t.name);
      assert.equal(o.offset, Number(t.offset), t.name);
      // Our byte size of each tensor fills exactly the gap to the next offset.
      if (i + 1 < ref.tensorInfos.length) assert.equal(pad32(o.bytes), Number(ref.tensorInfos[i + 1].offset) - o.offset, t.name);
    });
    const { version, tensor_count, kv_count, ...meta } = ref.metadata;
    assert.equal(version, s.gguf.version);
    assert.equal(Number(tensor_count), s.gguf.n_tensors);
    assert.equal(Number(kv_count), s.gguf.n_kv);
    assert.deepEqual(Object.keys(meta).sort(), Object.keys(s.metadata).sort());
    for (const [k, v] of Object.entries(meta)) assert.deepEqual(s.metadata[k], plain(v), k);
    // The KV-relevant hyperparameters the estimator uses come from these same keys.
    const c = configs[name];
    assert.equal(s.hyperparameters.n_layer, c.num_hidden_layers);
    assert.equal(s.hyperparameters.n_head_kv, c.num_key_value_heads);
    assert.equal(s.hyperparameters.head_dim_k, c.head_dim);
    assert.equal(s.hyperparameters.n_vocab, c.vocab_size);
    assert.equal(s.hyperparameters.kv_bytes_per_token_f16, c.num_hidden_layers * 2 * c.num_key_value_heads * c.head_dim * 2);
    assert.equal(s.file_type.name, quant);
    // The tensor table (typed arrays across the wasm boundary) holds the same tensors, and the
    // rest of its summary is the list's without the list.
    const head = new Uint8Array(fs.readFileSync(file).subarray(0, s.gguf.header_bytes));
    const w = await api.ggufSummary(head, { tensors: 'table' });
    const tt = w.tensor_table;
    assert.equal(tt.count, ref.tensorInfos.length);
    ref.tensorInfos.forEach((t, i) => {
      assert.equal(tt.name[i], t.name);
      assert.equal(tt.n_dims[i], t.n_dims, t.name);
      assert.deepEqual(Array.from(tt.ne.subarray(4 * i, 4 * i + t.n_dims)), t.shape.map(Number), t.name);
      assert.equal(tt.type_names[tt.type[i]], GGMLQuantizationType[t.dtype], t.name);
      assert.equal(tt.offset[i], Number(t.offset), t.name);
      assert.equal(tt.bytes[i], s.tensors[i].bytes, t.name);
    });
    const { tensor_table: _t, ...restW } = w;
    const { tensors: _l, ...restS } = s;
    assert.deepEqual(restW, restS);
  });
}

test('the tensor table keeps names that are not ASCII (2-, 3- and 4-byte UTF-8, invalid bytes as U+FFFD) in place', async () => {
  const parts = [];
  const u32 = (/** @type {number} */ v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (/** @type {number} */ v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const names = [Buffer.from('é.weight'), Buffer.from('😀.q'), Buffer.from([0x61, 0xff, 0x62]), Buffer.from('中文.k'), Buffer.from('plain')];
  parts.push(Buffer.from('GGUF')); u32(3); u64(names.length); u64(0);
  names.forEach((n, i) => { u64(n.length); parts.push(n); u32(2); u64(32); u64(2); u32(0); u64(i * 256); });
  const bytes = new Uint8Array(Buffer.concat(parts));
  const list = await api.ggufSummary(bytes);
  const t = (await api.ggufSummary(bytes, { tensors: 'table' })).tensor_table;
  assert.deepEqual(t.name, ['é.weight', '😀.q', 'a\uFFFDb', '中文.k', 'plain']);
  assert.deepEqual(t.name, list.tensors.map((/** @type {any} */ x) => x.name));
  assert.deepEqual(Array.from(t.bytes), list.tensors.map((/** @type {any} */ x) => x.bytes));
  assert.deepEqual(Array.from(t.offset), [0, 256, 512, 768, 1024]);
});

test('a file written by @huggingface/gguf reads back with the same metadata', () => {
  const typed = {
    version: { value: 3, type: GGUFValueType.UINT32 },
    tensor_count: { value: 0n, type: GGUFValueType.UINT64 },
    kv_count: { value: 7n, type: GGUFValueType.UINT64 },
    'general.architecture': { value: 'llama', type: GGUFValueType.STRING },
    'general.name': { value: 'Référence ✓', type: GGUFValueType.STRING },
    'llama.block_count': { value: 4, type: GGUFValueType.UINT32 },
    'llama.embedding_length': { value: 512, type: GGUFValueType.UINT32 },
    'llama.attention.head_count': { value: 8, type: GGUFValueType.UINT32 },
    'llama.rope.freq_base': { value: 10000, type: GGUFValueType.FLOAT32 },
    'tokenizer.ggml.tokens': { value: ['a', 'bé', 'c'], type: GGUFValueType.ARRAY, subType: GGUFValueType.STRING },
  };
  const bytes = serializeGgufMetadata(/** @type {any} */ (typed));
  const r = cli('gguf', writeTmp('ref.gguf', bytes), '--json');
  assert.equal(r.code, 0, r.stdout);
  assert.equal(r.json.name, 'Référence ✓');
  assert.equal(r.json.gguf.n_kv, 7);
  assert.equal(r.json.metadata['llama.rope.freq_base'], 10000);
  assert.deepEqual(r.json.metadata['tokenizer.ggml.tokens'], ['a', 'bé', 'c']);
  assert.equal(r.json.hyperparameters.head_dim_k, 64);
  assert.equal(r.json.hyperparameters.n_vocab, 3);
});

function writeTmp(name, bytes) {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return p;
}

test('a large header (Llama 3.1 8B, 128k-token vocabulary) parses the same in both readers', async () => {
  const out = path.join(dir, 'llama8b.gguf');
  const w = cli('gguf-synth', '--model', 'meta-llama/Llama-3.1-8B', '--quant', 'Q4_K_M', '--out', out, '--json');
  assert.equal(w.code, 0, w.stdout);
  const s = cli('gguf', out, '--json').json;
  const ref = await gguf(out, { allowLocalFile: true });
  assert.equal(Number(ref.tensorDataOffset), s.gguf.data_offset);
  assert.equal(ref.metadata['tokenizer.ggml.tokens'].length, 128256);
  assert.deepEqual(s.metadata['tokenizer.ggml.tokens'], { array: 'string', count: 128256 });
  assert.equal(s.gguf.file_bytes, w.json.file_bytes);
  assert.equal(s.weights_bytes, w.json.weights_bytes);
  // The same file through `estimate --model file.gguf` gives the catalog model's weights.
  const a = cli('estimate', '--model', out, '--hardware', 'nvidia-rtx-4090', '--context', '8192', '--json');
  const b = cli('estimate', '--model', 'meta-llama/Llama-3.1-8B', '--quant', 'Q4_K_M', '--hardware', 'nvidia-rtx-4090', '--context', '8192', '--json');
  assert.equal(a.code, 0, a.stdout);
  assert.equal(a.json.memory.weights_bytes, b.json.memory.weights_bytes);
  assert.equal(a.json.memory.kv_cache_bytes, b.json.memory.kv_cache_bytes);
});

test('gguf-synth --split-experts writes one tensor per routed expert; both readers agree and the estimate is the stacked one', async () => {
  const stacked = path.join(dir, 'mixtral.gguf');
  const split = path.join(dir, 'mixtral-split.gguf');
  const model = 'mistralai/Mixtral-8x7B-Instruct-v0.1';
  const a = cli('gguf-synth', '--model', model, '--quant', 'Q4_K_M', '--out', stacked, '--json');
  const b = cli('gguf-synth', '--model', model, '--quant', 'Q4_K_M', '--out', split, '--split-experts', '--json');
  assert.equal(b.code, 0, b.stdout);
  assert.equal(b.json.tensors, a.json.tensors + 32 * 3 * 7);   // 32 layers, 3 stacks of 8 experts each
  assert.equal(b.json.weights_bytes, a.json.weights_bytes);
  const ref = await gguf(split, { allowLocalFile: true });
  const names = ref.tensorInfos.map((t) => t.name);
  assert.equal(names.length, b.json.tensors);
  assert.ok(names.includes('blk.0.ffn_gate.0.weight') && names.includes('blk.31.ffn_down.7.weight'));
  assert.ok(!names.some((n) => n.includes('_exps')));
  const s = cli('gguf', split, '--json').json;
  assert.deepEqual(s.tensors.map((t) => t.name), names);
  assert.equal(s.hyperparameters.moe.n_expert, 8);
  const est = (f) => cli('estimate', '--model', f, '--hardware', 'nvidia-rtx-4090', '--ram-gib', '64', '--context', '8192', '--json');
  const ea = est(stacked), eb = est(split);
  assert.equal(eb.code, 0, eb.stdout);
  assert.ok(ea.json.speed && ea.json.placement.n_cpu_moe > 0, 'experts are offloaded, so their role matters');
  assert.deepEqual(eb.json.memory, ea.json.memory);
  assert.deepEqual(eb.json.placement, ea.json.placement);
  assert.deepEqual(eb.json.speed, ea.json.speed);
});

test('the wasm module summarises bytes and base64 alike, and reads a Blob header by growing', async () => {
  const file = synth('tiny-qwen3moe', 'Q4_K_M');
  const bytes = new Uint8Array(fs.readFileSync(file));
  const fromCli = cli('gguf', file, '--json').json;
  assert.deepEqual(await api.ggufSummary(bytes), fromCli);
  assert.deepEqual(await api.ggufSummary(api.bytesToBase64(bytes)), fromCli);
  await assert.rejects(api.ggufSummary(bytes.subarray(0, 200)),
    (/** @type {any} */ e) => e.code === 'gguf_truncated' && Number.isInteger(e.neededBytes) && e.neededBytes > 200);
  await assert.rejects(api.ggufSummary(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), (/** @type {any} */ e) => e.code === 'bad_base64' || e.code === 'gguf_bad_magic');
  // A big header behind a Blob: read in a few growing slices.
  const big = path.join(dir, 'glm.gguf');
  assert.equal(cli('gguf-synth', '--model', 'zai-org/GLM-4.5-Air', '--quant', 'Q4_K_M', '--out', big, '--json').code, 0);
  const blob = new Blob([fs.readFileSync(big)]);
  const { bytes: head, summary } = await api.readGgufHeader(blob);
  assert.ok(head.length >= summary.gguf.header_bytes);
  assert.ok(head.length < 2 * summary.gguf.header_bytes + 65536);
  assert.equal(summary.architecture, 'glm4moe');
  const est = await api.estimate({ model: { gguf_header_base64: api.bytesToBase64(head) }, hardware: 'nvidia-rtx-4090', context: 8192 });
  assert.equal(est.memory.kv_cache_bytes, 188416 * 8192);
});

test('a GGUF header registered once is named by its handle: the same estimate as its bytes, one handle per content', async () => {
  const file = path.join(dir, 'qwen3-8b-handle.gguf');
  assert.equal(cli('gguf-synth', '--model', 'Qwen/Qwen3-8B', '--quant', 'Q5_K_M', '--out', file, '--json').code, 0);
  const imported = await api.importGguf(new Blob([fs.readFileSync(file)]));
  assert.match(imported.handle, /^sha256:[0-9a-f]{64}$/);
  assert.equal(imported.architecture, 'qwen3');
  const { bytes } = await api.readGgufHeader(new Blob([fs.readFileSync(file)]));
  const again = await api.registerGguf(bytes);
  assert.equal(again.handle, imported.handle, 'the same bytes give the same handle');
  const base = { hardware: 'nvidia-rtx-4090', context: 8192 };
  const byHandle = await api.estimate({ ...base, model: { gguf_handle: imported.handle, name: 'mine' } });
  const byBytes = await api.estimate({ ...base, model: { gguf_header_base64: api.bytesToBase64(bytes), name: 'mine' } });
  assert.deepEqual(byHandle, byBytes);
  assert.equal(byHandle.quant.id, 'Q5_K_M');
  // A handle the module does not hold is a coded error at its path, never a guess.
  await assert.rejects(api.estimate({ ...base, model: { gguf_handle: 'sha256:00' } }),
    (/** @type {any} */ e) => e.code === 'unknown_gguf_handle' && e.path === 'model.gguf_handle');
  await assert.rejects(api.registerGguf(new Uint8Array([1, 2, 3])), (/** @type {any} */ e) => e.code !== undefined);
});
