// Screenshots of the served build for looking at, not for tests: every view of a set of journeys
// at 1280 and 390 px, light and dark, in each language, cut into screen-high slices so each
// picture stays readable.
//   node scripts/screenshots.mjs OUT_DIR                  every journey, width, theme and language
//   node scripts/screenshots.mjs OUT_DIR --only offload   journeys whose name contains "offload"
//   node scripts/screenshots.mjs OUT_DIR --lang en --theme light --width 390 --slices 3
// Needs dist/ (npm run build) and Chromium (/usr/bin/chromium, or CHROMIUM=path).
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { startServer } from './server.mjs';

const argv = process.argv.slice(2);
const out = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'screenshots';
const opt = (/** @type {string} */ k, /** @type {string} */ d) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : d; };
const only = opt('--only', '');
const langs = opt('--lang', 'en,es,fr,zh').split(',');
const themes = opt('--theme', 'light,dark').split(',');
const widths = opt('--width', '1280,390').split(',').map(Number);
const maxSlices = Number(opt('--slices', '6'));

/** The journeys: one URL each (the query of the app's own shareable links). */
const JOURNEYS = {
  home: '',
  'fits-4090': '?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192',
  'measured-llama3-4090': '?model=meta-llama/Meta-Llama-3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192',
  'offload-air-4090': '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64',
  // A Grace Hopper superchip offloading to its Grace CPU's LPDDR5X over NVLink-C2C (issue 19).
  'offload-gh200-qwen235b': '?model=Qwen/Qwen3-235B-A22B-Instruct-2507&quant=Q4_K_M&hw=nvidia-gh200-96gb&ctx=16384&ram=480',
  'multi-3090x2': '?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192',
  'mac-air-m3ultra': '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768',
  'mlx-qwen3-30b-m4max': '?model=Qwen/Qwen3-30B-A3B&hw=apple-m4-max-40c-gpu-128gb&engine=mlx&ctx=32768',
  'vllm-tp4-llama70b-h100x4': '?model=meta-llama/Llama-3.1-70B-Instruct&hw=nvidia-h100-sxm&count=4&engine=vllm&ctx=8192',
  'vllm-dsv3-h200x8': '?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768',
  // DeepSeek V3.2's sparse attention under vLLM: the latent and the indexer keys in one cache figure.
  'vllm-dsv32-h200x8': '?model=deepseek-ai/DeepSeek-V3.2&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768',
  'vllm-measured-llama3-h100x4': '?model=meta-llama/Meta-Llama-3-8B&quant=SAFETENSORS-BF16&hw=nvidia-h100-sxm&count=4&engine=vllm&ctx=8192',
  'sglang-llama8b-4090': '?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&engine=sglang&ctx=8192',
  'nofit-70b-4060': '?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4060&ctx=8192',
  'error-unknown-model': '?model=nobody/no-such-model&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192',
  'images-gemma3-27b-4090': '?model=google/gemma-3-27b-it&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&img=2',
  // Five minutes of audio per prompt through Voxtral's Whisper encoder (issue 19, audio projectors).
  'audio-voxtral-4090': '?model=mistralai/Voxtral-Mini-3B-2507&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&aud=300',
  // Qwen2.5-Omni 7B's thinker with 30 s of audio: its one mmproj file brings the vision tower too.
  'audio-omni-4090': '?model=Qwen/Qwen2.5-Omni-7B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&aud=30',
  'draft-llama70b-3090x2': '?model=meta-llama/Llama-3.3-70B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-3090&count=2&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct',
  'model-air': '?view=model&model=zai-org/GLM-4.5-Air',
  'model-kimi-k25': '?view=model&model=moonshotai/Kimi-K2.5',
  'model-dsv3': '?view=model&model=deepseek-ai/DeepSeek-V3-0324',
  'finetune-llama8b-4090': '?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192',
  'finetune-llama70b-mac128': '?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=apple-m4-max-40c-gpu-128gb&ctx=8192',
  'model-gemma4-26b': '?view=model&model=google/gemma-4-26B-A4B-it',
  'model-nemotron-super': '?view=model&model=nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16',
  'model-step35-flash': '?view=model&model=stepfun-ai/Step-3.5-Flash',
  'model-gemma3n': '?view=model&model=google/gemma-3n-E4B-it',
  'model-dsv4-flash': '?view=model&model=deepseek-ai/DeepSeek-V4-Flash',
  'dsv4-flash-h100x2': '?model=deepseek-ai/DeepSeek-V4-Flash&quant=MXFP4_MOE&hw=nvidia-h100-sxm&count=2&ctx=131072',
  // DeepSeek V4 Flash and Kimi K3 under the servers (their caches as vLLM and SGLang lay them out),
  // and refused under MLX.
  'dsv4-flash-vllm-h100x4': '?model=deepseek-ai/DeepSeek-V4-Flash&hw=nvidia-h100-sxm&count=4&engine=vllm&ctx=32768',
  'dsv4-flash-sglang-h200x4': '?model=deepseek-ai/DeepSeek-V4-Flash&hw=nvidia-h200-sxm&count=4&engine=sglang&ctx=65536',
  'dsv4-flash-mlx-refused': '?model=deepseek-ai/DeepSeek-V4-Flash&hw=apple-m3-ultra-80c-gpu-512gb&engine=mlx&ctx=32768',
  'kimi-k3-mlx-m3ultra': '?model=moonshotai/Kimi-K3&hw=apple-m3-ultra-80c-gpu-512gb&engine=mlx&ctx=32768',
  'kimi-k3-vllm-b200x8': '?model=moonshotai/Kimi-K3&hw=nvidia-b200&count=8&engine=vllm&ctx=131072',
  'kimi-k3-sglang-h200x8': '?model=moonshotai/Kimi-K3&hw=nvidia-h200-sxm&count=8&engine=sglang&ctx=131072',
  // DeepSeek V3.2 in llama.cpp: the DSA cache (latent + indexer keys), the MTP block in the file,
  // drafting with it on the 8x H200 pair, a Mac Studio with 512 GB, and vLLM refused.
  'model-dsv32': '?view=model&model=deepseek-ai/DeepSeek-V3.2',
  'dsv32-h200x8-mtp': '?model=deepseek-ai/DeepSeek-V3.2&quant=Q4_K_M&hw=nvidia-h200-sxm&count=8&ctx=131072&mtp=1',
  'dsv32-m3ultra-512': '?model=deepseek-ai/DeepSeek-V3.2&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768',
  'dsv32-vllm-h200x8': '?model=deepseek-ai/DeepSeek-V3.2&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768',
  // GLM-5 under vLLM and SGLang: the lightning indexer's FP8 keys beside the latent (the split and the pool).
  'glm5-vllm-h200x8': '?model=zai-org/GLM-5&quant=FP8&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768',
  'glm5-sglang-b200x8': '?model=zai-org/GLM-5&quant=FP8&hw=nvidia-b200&count=8&engine=sglang&ctx=32768',
  // GLM-5's MTP block under llama.cpp: in the file, kept unused, no MTP switch; and its model page.
  'glm5-llamacpp-h200x8': '?model=zai-org/GLM-5&quant=Q4_K_M&hw=nvidia-h200-sxm&count=8&ctx=8192',
  'model-glm5': '?view=model&model=zai-org/GLM-5',
  'model-kimi-k3': '?view=model&model=moonshotai/Kimi-K3',
  'kimi-k3-h200x8': '?model=moonshotai/Kimi-K3&quant=Q2_K&hw=nvidia-h200-sxm&count=8&ctx=131072',
  'kimi-k3-vllm-refused': '?model=moonshotai/Kimi-K3&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768',
  'device-4090': '?view=device&hw=nvidia-rtx-4090&ram=0',
  // A device sold by the vendor's memory figure (memory_basis vendor_figure): the figure marked, what
  // the driver may report said under the bar, and a setup that fits only above that low end (tight).
  'vendor-figure-llama70b-s4000': '?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=moorethreads-mtt-s4000&ctx=16384',
  'device-vendor-figure-s4000': '?view=device&hw=moorethreads-mtt-s4000&ram=0',
  // A driver's total further from the sold figure than the decimal reading (memory_sold_differs):
  // the Atlas 300I Duo's 87973 MiB against 96 GB, on its device page.
  'device-sold-differs-atlas': '?view=device&hw=huawei-atlas-300i-duo&ram=0',
  // The same mark in a model page's GPU list and smallest-device column and on the embed card; the
  // cloud table with "tight" beside an offer that holds the model without room to spare.
  'model-vendor-figure-llama70b': '?view=model&model=meta-llama/Llama-3.1-70B-Instruct',
  'vendor-figure-cloud-llama70b-q6k-h200': '?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q6_K&hw=nvidia-h200-sxm&ctx=28672&ram=0',
  'widget-vendor-figure-s4000': 'embed.html?model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&hw=moorethreads-mtt-s4000&ctx=16384',
  // Devices whose figures public sources do not settle (catalog `uncertain`): the marks, and a
  // decode range widened by the bandwidth's low and high.
  'device-uncertain-c500': '?view=device&hw=metax-c500&ram=0',
  'device-uncertain-910b': '?view=device&hw=huawei-ascend-910b&ram=0',
  'vllm-uncertain-qwen3-8b-c500': '?model=Qwen/Qwen3-8B&hw=metax-c500&engine=vllm&ctx=8192',
  'uncertain-910b-qwen3-8b': '?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=huawei-ascend-910b&ctx=8192',
  // A device llama.cpp does not run on: its list under vLLM, and a vLLM result with its speed from
  // the device's own figures and the cost of a token.
  'device-server-gaudi3': '?view=device&hw=intel-gaudi-3&ram=0',
  'vllm-device-figures-llama8b-gaudi3': '?model=meta-llama/Llama-3.1-8B-Instruct&hw=intel-gaudi-3&engine=vllm&ctx=8192',
  accuracy: '?view=accuracy',
  // vLLM's own price of a drafted token (its draft pass) under the speculative line.
  'vllm-mtp-air-h100x4': '?model=zai-org/GLM-4.5-Air&hw=nvidia-h100-sxm&count=4&engine=vllm&ctx=32768&mtp=1',
  // A device sold as "180 GB" that holds 179.06 GiB: the name says the one, the figures the other.
  'device-b200': '?view=device&hw=nvidia-b200&ram=0',
  // A GPU without tensor cores (Maxwell): FP32 compute stated, no FP16 rate; its llama-bench rows.
  'device-m40': '?view=device&hw=nvidia-tesla-m40-24gb&ram=0',
  // The driver's total under a vendor's round size ("94 GB" H100 NVL, 93.58 GiB), a Turing card's
  // INT8 rate, and the 300 W RTX PRO 6000 with its launch price.
  'device-h100-nvl': '?view=device&hw=nvidia-h100-nvl&ram=0',
  // nvidia-smi's 46068 MiB (44.99 GiB) under NVIDIA's 48 GB, the sold figure beside it.
  'device-a40': '?view=device&hw=nvidia-a40&ram=0',
  'device-quadro-rtx-6000': '?view=device&hw=nvidia-quadro-rtx-6000&ram=0',
  'device-max-q': '?view=device&hw=nvidia-rtx-pro-6000-blackwell-max-q&ram=0',
  // The embeddable card (embed.html renders one <will-it-fit>), with a draft model's segment.
  'widget-draft-llama8b-4090': 'embed.html?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&draft=meta-llama/Llama-3.2-1B-Instruct',
};

const { server, url } = await startServer({ root: opt('--root', undefined) });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium' });
fs.mkdirSync(out, { recursive: true });
let shots = 0;
try {
  for (const [name, query] of Object.entries(JOURNEYS)) {
    if (only && !name.includes(only)) continue;
    for (const lang of langs) for (const theme of themes) for (const width of widths) {
      const height = width < 600 ? 844 : 900;
      const ctx = await browser.newContext({ viewport: { width, height }, colorScheme: /** @type {'light'|'dark'} */ (theme), serviceWorkers: 'block' });
      const page = await ctx.newPage();
      const sep = query.includes('?') ? '&' : '?';
      await page.goto(`${url}${query}${sep}lang=${lang}`);
      if (query.startsWith('embed.html')) {
        await page.waitForFunction(() => /** @type {HTMLElement | null} */ (document.querySelector('#card'))?.dataset.verdict, null, { timeout: 120000 });
      } else {
        await page.waitForSelector('body[data-ready="true"]', { timeout: 120000 });
        // Sections fill in from the worker after the verdict; wait until no section on screen says it
        // is working (a hidden view's placeholder waits for that view to open).
        await page.waitForFunction(() => ![...document.querySelectorAll('[data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent), null, { timeout: 180000 })
          .catch(() => console.error(`${name} ${lang} ${theme} ${width}: a section still says it is working`));
      }
      await page.waitForTimeout(500);
      const full = await page.evaluate(() => document.documentElement.scrollHeight);
      const n = Math.min(maxSlices, Math.ceil(full / height));
      for (let i = 0; i < n; i++) {
        const file = path.join(out, `${name}-${lang}-${theme}-${width}-${i + 1}.png`);
        // The first slice is the screen as it opens (a full-page capture re-lays the page out at its
        // full height, which resets sideways-scrolled parts such as the phone's tab bar).
        if (i === 0) await page.screenshot({ path: file });
        else await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: i * height, width, height: Math.min(height, full - i * height) } });
        shots++;
      }
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`${shots} screenshots in ${out}`);
