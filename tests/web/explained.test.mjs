// A figure beside another that seems to contradict it says why, from the core's parts (issue 16):
// MLA's cache kept whole on every GPU, the weights over the GPUs above the checkpoint, memory below
// the file, what limits a tensor-parallel step, the estimate beside a measured run, a cloud's
// memory in one unit, the Modelfile without the projector, and no empty cost inputs on a no-fit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const GiB = 1024 ** 3;
/** "79.29 GiB" as the page prints it in English (a narrow no-break space before the unit). @param {number} b */
const gibRe = (b, d = 2) => `${(b / GiB).toFixed(d).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}\\sGiB`;

test('DeepSeek-V3 on 8 H200 (vLLM): the cache kept whole on every GPU and the weights above the checkpoint, said with the core\'s figures', async () => {
  const page = await env.page();
  // The model's whole context (163,840): the pool holds 4 requests, each capped at one user's speed.
  await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=163840&lang=en`);
  const est = core('estimate', { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 163840 });
  const v = est.vllm;
  assert.equal(v.kv_copies, 8);
  const kv = await page.textContent('#w-kv');
  assert.match(kv, /MLA caches one latent vector per token/);
  assert.match(kv, new RegExp(`each of the 8 GPUs holds every token’s cache in a pool of its own, ${gibRe(v.per_gpu.kv_available_bytes)} per GPU and ${gibRe(est.memory.kv_pool_bytes)} in all`));
  // The pool card says per GPU and in all too.
  assert.match(await page.textContent('.card:has(#k-kv-tokens)'), new RegExp(`${gibRe(v.per_gpu.kv_available_bytes)} per GPU, ${gibRe(est.memory.kv_pool_bytes)} on the 8 GPUs`));
  // The weights: per GPU, what each keeps whole (MLA down-projections first), and the extra copies.
  const w = await page.textContent('#w-weights');
  assert.match(w, new RegExp(`Each of the 8 GPUs holds ${gibRe(v.per_gpu.weights_bytes)}`));
  assert.match(w, new RegExp(`plus ${gibRe(v.per_gpu.replicated_weights_bytes)} it keeps whole, as every GPU does \\(MLA down-projections ${gibRe(v.weights.replicated_parts.mla_down)}`));
  assert.match(w, new RegExp(`${gibRe(v.weights.extra_copies_bytes)} more than the ${gibRe(v.weights.loaded_bytes)} of the checkpoint`));
  assert.ok(v.weights.extra_copies_bytes / GiB > 7 && v.weights.extra_copies_bytes / GiB < 8);
  // Batched users never decode faster than one user alone: the card says the cap.
  assert.ok(v.throughput.single_user_cap_tps > 0 && v.throughput.capped === true);
  assert.match(await page.textContent('.card:has(#k-aggregate)'), /each: capped at the one-user estimate above/);
  // At 32K the pool holds 20 requests, each slower than one alone: no cap is said.
  const e32 = core('estimate', { model: 'deepseek-ai/DeepSeek-V3-0324', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 32768 });
  assert.equal(e32.vllm.throughput.capped, false);
  await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=en`);
  await page.waitForSelector('#k-aggregate');
  assert.doesNotMatch(await page.textContent('.card:has(#k-aggregate)'), /capped/);
  assert.deepEqual(page.problems, []);
});

test('a tensor-parallel step says what takes most of it, and a measured run of the setup is named beside our estimate', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Meta-Llama-3-8B&quant=SAFETENSORS-BF16&hw=nvidia-h100-sxm&count=4&engine=vllm&lang=en`);
  await page.waitForSelector('#k-decode');
  const est = core('estimate', { model: 'meta-llama/Meta-Llama-3-8B', quant: 'SAFETENSORS-BF16', hardware: 'nvidia-h100-sxm', count: 4, engine: 'vllm' });
  const dm = est.speed.decode_measured;
  assert.equal(dm.measured_tps, 260.4);
  const card = await page.textContent('.card:has(#k-decode)');
  const pct = Math.round(100 * dm.difference);
  assert.match(card, new RegExp(`Our estimate, one user; a published run of this setup measured 260\\stok/s \\(ours \\+${pct}%\\)`));
  const basis = await page.textContent('#speed-basis');
  const st = est.speed.basis.tensor_parallel.step;
  const words = { weights: 'reading the weights from memory', overhead: 'the fixed per-layer costs, not the reads', allreduce: 'the communication between the GPUs', kv: 'reading the KV cache', compute: 'the arithmetic' };
  assert.match(basis, new RegExp(`the largest part is ${words[st.bound]}`));
  assert.match(basis, new RegExp(`64 all-reduces between the GPUs [\\d.]+\\sms \\(${Math.round(100 * st.share.allreduce)}%\\)`));
  // 8 GPUs: the launches, not the reads, take most of the step, and the sentence says so.
  const e8 = core('estimate', { model: 'meta-llama/Meta-Llama-3-8B', quant: 'SAFETENSORS-BF16', hardware: 'nvidia-h100-sxm', count: 8, engine: 'vllm' });
  assert.equal(e8.speed.basis.tensor_parallel.step.bound, 'overhead');
  await open(page, `${env.url}?model=meta-llama/Meta-Llama-3-8B&quant=SAFETENSORS-BF16&hw=nvidia-h100-sxm&count=8&engine=vllm&lang=en`);
  await page.waitForSelector('#k-decode');
  assert.match(await page.textContent('#speed-basis'), /the largest part is the fixed per-layer costs, not the reads/);
  assert.deepEqual(page.problems, []);
});

test('memory below the file size is explained by its parts: Gemma 3n\'s embeddings in system RAM', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=google/gemma-3n-E4B-it&lang=en`);
  await page.waitForSelector('#mp-quants-gap');
  const est = core('estimate', { model: 'google/gemma-3n-E4B-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192 });
  const p = est.memory.host_weights_parts;
  assert.ok(p.per_layer_token_embd > 0 && p.token_embd > 0);
  assert.ok(est.memory.total_bytes < est.gguf_file_bytes);
  const gap = await page.textContent('#mp-quants-gap');
  assert.match(gap, new RegExp(`the per-layer embedding table \\(${gibRe(p.per_layer_token_embd)}\\), ${gibRe(est.memory.host_weights_bytes)} in all, stay in system RAM`));
  // The main result's weights line names the same parts.
  await open(page, `${env.url}?model=google/gemma-3n-E4B-it&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  assert.match(await page.textContent('#w-weights'), new RegExp(`the per-layer embedding table \\(${gibRe(p.per_layer_token_embd)}\\)`));
  assert.deepEqual(page.problems, []);
});

test('cloud memory per GPU in one unit, a provider\'s decimal GB named beside it', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  await page.waitForSelector('#cloud-table');
  await page.click('#cloud-all');
  const hs = await page.textContent('[data-offer="hyperstack-b200-1"] [data-vram]');
  // The B200 holds 179.06 GiB (nvidia-smi's 183359 MiB), sold as "180 GB": the figure is the GiB.
  assert.match(hs, /1 × 179\sGiB \(listed as 192\sGB\)/);
  const rp = await page.textContent('[data-offer="runpod-b200-1"] [data-vram]');
  assert.match(rp, /^1 × 179\sGiB$/);
  // Issue 16: an instance whose name states its GB ("A100 SXM 80GB") has that figure named as the
  // provider's beside the GiB one, so the name's "80GB" never stands unexplained.
  // The cell's figures, without the mark a vendor's own memory figure carries (memory_basis.test.mjs).
  const a100 = await page.$eval('[data-offer="runpod-a100-80gb-sxm-1"] [data-vram]', (td) => {
    const c = /** @type {HTMLElement} */ (td.cloneNode(true));
    c.querySelectorAll('[data-basis]').forEach((m) => m.remove());
    return c.textContent.trim();
  });
  assert.match(a100, /^1 × 80\sGiB \(listed as 80\sGB\)$/);
  assert.deepEqual(page.problems, []);
});

test('the Ollama Modelfile of a model read with images says it loads the text model only', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=google/gemma-3-27b-it&quant=Q4_K_M&hw=nvidia-rtx-4090&img=1&lang=en`);
  const est = core('estimate', { model: 'google/gemma-3-27b-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', images: 1 });
  assert.match(est.commands.llama_server, /--mmproj|-hf /);
  // The Modelfile's own note (the catalog names no published GGUF of this model, so the
  // conversion steps carry a note of their own, tool gguf_convert).
  const ollamaNotes = (/** @type {any[]} */ n) => (n || []).filter((x) => x.tool === 'ollama');
  assert.deepEqual(ollamaNotes(est.commands.notes), [{ tool: 'ollama', code: 'ollama_projector_not_split' }]);
  await page.waitForSelector('#commands [data-code="ollama_projector_not_split"]');
  assert.match(await page.textContent('#commands'), /The Ollama Modelfile loads the text model only/);
  // Text only: no note.
  const txt = core('estimate', { model: 'google/gemma-3-27b-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090' });
  assert.deepEqual(ollamaNotes(txt.commands.notes), []);
  assert.deepEqual(page.problems, []);
});

test('a setup that does not fit shows no cost inputs (no figure would use them), only why there is no cost', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3-0324&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=en`);
  await page.waitForSelector('#plug-cost:not([hidden]) #cost-out p');
  assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'no_fit');
  assert.equal(await page.isVisible('#cost-purchase'), false);
  assert.equal(await page.isVisible('#cost-inputs'), false);
  assert.match(await page.textContent('#cost-none'), /This setup does not fit, so it has no speed and no cost per token/);
  assert.deepEqual(page.problems, []);
});

test('the compute buffer\'s sentence names only the parts the core counts: no "(0.00 GiB)" attention scratch under FlashAttention', async () => {
  const page = await env.page();
  const q = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 16384, ram_gib: 64 };
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=en`);
  const est = core('estimate', q);
  const c = est.memory.compute;
  const text = await page.textContent('#w-compute');
  assert.ok(!/0\.00\sGiB/.test(text), text);
  if (c.attention_bytes === 0) {
    assert.match(text, /with FlashAttention, attention keeps no scratch matrix of its own/);
    assert.doesNotMatch(text, /attention scratch/);
  } else {
    assert.match(text, new RegExp(`attention scratch \\(${gibRe(c.attention_bytes)}\\)`));
  }
  assert.match(text, new RegExp(`FFN scratch \\(${gibRe(c.ffn_bytes)}\\)`));
  await page.close();
});

test('the breakdown names the device by its kind and count, and with MTP on says the MTP context\'s own compute buffer', async () => {
  const page = await env.page();
  // Two GeForce cards: the compute row sums "the 2 GPUs", the runtime context is "on each GPU".
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&lang=en`);
  await page.waitForSelector('#w-compute:not(:empty)');
  assert.match(await page.textContent('#w-compute'), /^Summed over the 2 GPUs /);
  assert.match(await page.textContent('#w-compute'), /Each GPU also holds /);
  assert.equal(await page.textContent('#w-overhead'), 'Runtime context on each GPU (CUDA).');
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&lang=es`);
  await page.waitForSelector('#w-compute:not(:empty)');
  assert.match(await page.textContent('#w-compute'), /^Suma de las 2 GPU /);
  assert.equal(await page.textContent('#w-overhead'), 'Contexto de ejecución en cada GPU (CUDA).');
  // One GPU: no "each".
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=fr`);
  await page.waitForSelector('#w-overhead:not(:empty)');
  assert.equal(await page.textContent('#w-overhead'), 'Contexte d’exécution sur le GPU (CUDA).');
  // MTP on under llama.cpp: the core's second buffer, said with its figure.
  const q = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'apple-m3-ultra-80c-gpu-512gb', context: 8192, mtp: true };
  const est = core('estimate', q);
  assert.ok(est.speculative.compute_bytes > 0);
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=8192&mtp=1&lang=en`);
  await page.waitForSelector('#w-compute:not(:empty)');
  assert.match(await page.textContent('#w-compute'), new RegExp(`MTP context llama\\.cpp opens beside the main one reserves a buffer of its own \\(${gibRe(est.speculative.compute_bytes)}\\)`));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('DeepSeek-V3.2 in llama.cpp: the cache sentence names the indexer keys beside the latent, the spec names the MTP block in the total, vLLM sizes its sparse-attention cache', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3.2&quant=Q4_K_M&hw=nvidia-h200-sxm&count=8&ctx=131072&lang=en`);
  const est = core('estimate', { model: 'deepseek-ai/DeepSeek-V3.2', quant: 'Q4_K_M', hardware: 'nvidia-h200-sxm', count: 8, context: 131072 });
  const [latent, idx] = est.memory.kv.groups;
  assert.equal(latent.kind, 'mla');
  assert.equal(idx.kind, 'indexer');
  // 128 indexer key values at f16: 256 bytes per layer per token, 0.25 KiB.
  assert.equal(idx.bytes_per_token / idx.layers, 256);
  const kv = await page.textContent('#w-kv');
  assert.match(kv, /^61 layers × 1\.13\sKiB per layer per token × 131,072 cells \+ indexer keys: 61 layers × 0\.25\sKiB per layer per token × 131,072 cells\.$/);
  // The file's MTP block is said, not loaded (the core's mtp figures).
  assert.equal(est.mtp.loaded, false);
  assert.ok(est.mtp.file_bytes > 0);
  // The model page: the total with the publisher's figure and the MTP block it counts.
  assert.equal(est.mtp.params, 13477385728);
  await open(page, `${env.url}?view=model&model=deepseek-ai/DeepSeek-V3.2&lang=en`);
  await page.waitForSelector('#mp-spec dl');
  assert.match(await page.textContent('#mp-spec'), /685B \(published 671B, MTP block 13\.5B\)/);
  // vLLM's DSA cache: the latent and the indexer keys of the core's sparse_attention split, in
  // KiB per token over all layers, and the top-k the decode reads.
  await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3.2&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=en`);
  await page.waitForSelector('#w-kv:not(:empty)');
  const sv = core('estimate', { model: 'deepseek-ai/DeepSeek-V3.2', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 32768 }).vllm;
  assert.equal(sv.sparse_attention.top_k, 2048);
  // bf16 latent 61 x 1,152 = 70,272 bytes = 68.63 KiB; indexer keys 61 x 132 = 8,052 bytes = 7.86 KiB.
  assert.equal(sv.sparse_attention.latent_bytes_per_token, 61 * 1152);
  const kvText = await page.textContent('#w-kv');
  assert.match(kvText, /DeepSeek sparse attention: per token vLLM keeps 68\.63\u00a0KiB of MLA latent and 7\.86\u00a0KiB of lightning-indexer keys/);
  assert.match(kvText, /at most 2,048 latent entries per layer/);
  assert.ok(await page.isHidden('#error'));
  assert.deepEqual(page.problems, []);
});

test('GLM-5: llama.cpp and vLLM draft with its MTP block (the switch loads it); mlx-lm does not, and a link asking for it gets the code', async () => {
  const page = await env.page();
  const q = { model: 'zai-org/GLM-5', quant: 'Q4_K_M', hardware: 'nvidia-h200-sxm', count: 8, context: 8192 };
  const est = core('estimate', q);
  // The core: one MTP layer in the file, not loaded until asked, and llama.cpp among the engines
  // that draft with it (its draft-mtp graph for GLM_DSA).
  assert.equal(est.mtp.layers, 1);
  assert.equal(est.mtp.loaded, false);
  assert.equal(est.mtp.drafts, true);
  assert.deepEqual(est.mtp.draft_engines, ['llama.cpp', 'vllm', 'sglang']);
  await open(page, `${env.url}?model=zai-org/GLM-5&quant=Q4_K_M&hw=nvidia-h200-sxm&count=8&ctx=8192&lang=en`);
  await page.waitForSelector('#w-weights:not(:empty)');
  assert.match(await page.textContent('#w-weights'),
    new RegExp(`multi-token-prediction layer \\(${gibRe(est.mtp.file_bytes)}\\), which llama\\.cpp loads only with multi-token prediction on: that is most of the ${gibRe(est.gguf_file_unloaded_bytes)} of the file`));
  assert.equal(await page.isVisible('#mtp-field'), true);
  await page.check('#mtp');
  const onL = core('estimate', { ...q, mtp: true });
  assert.equal(onL.mtp.resident_bytes, est.mtp.file_bytes);
  await page.waitForFunction(() => /MTP layer/.test(document.querySelector('#w-weights')?.textContent || '') && /is loaded/.test(document.querySelector('#w-weights')?.textContent || ''));
  assert.match(await page.textContent('#w-weights'), new RegExp(`the model’s MTP layer \\(${gibRe(onL.mtp.resident_bytes)}\\) is loaded`));
  // Under mlx-lm there is no switch, and a link that asks for it anyway gets the core's code and its sentence.
  await open(page, `${env.url}?model=zai-org/GLM-5&hw=apple-m3-ultra-80c-gpu-512gb&engine=mlx&ctx=8192&mtp=1&lang=fr`);
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'mtp_not_drafted');
  assert.match(await page.textContent('#error p'), /ne s’en sert pas pour proposer des jetons\u00a0:/);
  // Under vLLM the switch is there and, on, the block is loaded and said.
  await open(page, `${env.url}?model=zai-org/GLM-5&quant=FP8&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=en`);
  await page.waitForSelector('#w-weights:not(:empty)');
  assert.equal(await page.isVisible('#mtp-field'), true);
  await page.check('#mtp');
  const on = core('estimate', { model: 'zai-org/GLM-5', quant: 'FP8', hardware: 'nvidia-h200-sxm', count: 8, engine: 'vllm', context: 32768, mtp: true });
  await page.waitForFunction(() => /MTP layer/.test(document.querySelector('#w-weights')?.textContent || ''));
  assert.match(await page.textContent('#w-weights'), new RegExp(`the model’s MTP layer \\(${gibRe(on.mtp.resident_bytes)}\\) is loaded`));
  assert.ok(await page.isHidden('#error'));
  // The model page: the total with the card's figure and the MTP block it leaves out.
  await open(page, `${env.url}?view=model&model=zai-org/GLM-5&lang=en`);
  await page.waitForSelector('#mp-spec dl');
  assert.match(await page.textContent('#mp-spec'), /754B \(published 744B, MTP block 9\.95B\)/);
  assert.deepEqual(page.problems, []);
});

test('a server setup that does not start (Kimi K3 under SGLang on 8 H200 at 128K) says no per-GPU pool: its cache is what the sequence needs, not "0.00 GiB per GPU"', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=moonshotai/Kimi-K3&hw=nvidia-h200-sxm&count=8&engine=sglang&ctx=131072&lang=en`);
  const est = core('estimate', { model: 'moonshotai/Kimi-K3', hardware: 'nvidia-h200-sxm', count: 8, engine: 'sglang', context: 131072 });
  assert.equal(est.verdict, 'no_fit');
  assert.ok(est.sglang.kv_copies > 1, 'the engine would keep copies of the cache');
  const kv = await page.textContent('#w-kv');
  assert.match(kv, new RegExp(gibRe(est.memory.kv_cache_bytes)), kv);
  assert.doesNotMatch(kv, /in a pool of its own|per GPU/, kv);
  await page.context().close();
});
