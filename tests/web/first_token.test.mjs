// The time to first token of the whole prompt on the page in Chromium: with the images or the audio
// the person said they will send, the headline card and the live speed simulator show the core's
// speed.first_token (the text prompt plus the media's prefill), say what it includes, and, on an
// engine whose own encoders the core does not model, say the figure is the text's alone and why.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { core, open, plain, root, setup } from './helpers.mjs';

const { num, spreadText } = await import(path.join(root, 'web', 'format.js'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

/** Equal to a part in a million (the page and the CLI read the same core, through JSON). */
const near = (/** @type {number} */ a, /** @type {number} */ b) => Math.abs(a - b) <= 1e-6 * Math.abs(b);

/** The simulator's figures once it has its estimate for the chosen prompt. @param {any} page */
async function simulator(page) {
  await page.waitForSelector('#sim-start:not([disabled])', { timeout: 120000 });
  return {
    prompt: Number(await page.inputValue('#sim-prompt')),
    ttft: Number(await page.getAttribute('#sim-target', 'data-ttft')),
    code: await page.getAttribute('#sim-target', 'data-code'),
    text: plain(await page.textContent('#sim-target')),
  };
}

test('Gemma 3 27B with two images: the headline and the simulator wait for the images too, and say so', async () => {
  const request = { model: 'google/gemma-3-27b-it', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, images: 2 };
  const s = core('estimate', request).speed;
  const f = s.first_token;
  assert.equal(f.code, 'includes_media');
  assert.ok(f.ms > s.ttft_ms * 1.2, `${f.ms} against ${s.ttft_ms}`);  // 512 image tokens are not a rounding
  const page = await env.page();
  await open(page, `${env.url}?model=google/gemma-3-27b-it&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&img=2&lang=en`);
  // Headline card: the whole prompt's figure with its range, and what it includes.
  assert.ok(near(Number(await page.getAttribute('#k-ttft', 'data-v')), f.ms));
  assert.equal(await page.getAttribute('#k-ttft', 'data-code'), 'includes_media');
  assert.equal((await page.textContent('#k-ttft')).trim(), spreadText({ v: f.ms, lo: f.ms_low, hi: f.ms_high }, 'en', 'ms'));
  const note = plain(await page.$eval('#k-ttft', (e) => e.nextElementSibling?.textContent || ''));
  assert.equal(note, `For a prompt of ${num(s.prompt, 'en')} tokens of text; includes 2 images (${num(f.image_tokens, 'en')} tokens); not counting the vision encoder’s own run`);
  // Simulator: its prompt with the same two images.
  const sim = await simulator(page);
  const want = core('estimate', { ...request, prompt: sim.prompt }).speed.first_token;
  assert.ok(near(sim.ttft, want.ms), `${sim.ttft} against ${want.ms}`);
  assert.ok(sim.ttft > want.text_ms);
  assert.equal(sim.code, 'includes_media');
  assert.match(sim.text, new RegExp(`; includes 2 images \\(${num(want.image_tokens, 'en')} tokens\\)`));
  assert.doesNotMatch(await page.textContent('main'), /undefined|NaN|Infinity/);

  // Back to text only: the text prompt's figure, with the note it always had.
  await page.fill('#images', '0');
  await page.dispatchEvent('#images', 'change');
  const text = core('estimate', { ...request, images: 0 }).speed;
  await page.waitForFunction(() => document.querySelector('#k-ttft')?.getAttribute('data-code') === 'text_only');
  assert.ok(near(Number(await page.getAttribute('#k-ttft', 'data-v')), text.ttft_ms));
  assert.equal(plain(await page.$eval('#k-ttft', (e) => e.nextElementSibling?.textContent || '')), `For a prompt of ${num(text.prompt, 'en')} tokens`);
  await page.waitForFunction(() => document.querySelector('#sim-target')?.getAttribute('data-code') === 'text_only');
  assert.deepEqual(page.problems, []);
});

test('Voxtral Mini 3B 2507 with 60 s of audio, in French at 390 px: the audio in both figures', async () => {
  const request = { model: 'mistralai/Voxtral-Mini-3B-2507', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, audio_seconds: 60 };
  const s = core('estimate', request).speed;
  const f = s.first_token;
  assert.equal(f.code, 'includes_media');
  const page = await env.page({ viewport: { width: 390, height: 900 } });
  await open(page, `${env.url}?model=mistralai/Voxtral-Mini-3B-2507&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&aud=60&lang=fr`);
  assert.ok(near(Number(await page.getAttribute('#k-ttft', 'data-v')), f.ms));
  const note = await page.$eval('#k-ttft', (e) => e.nextElementSibling?.textContent || '');
  assert.equal(plain(note), `Pour une invite de ${plain(num(s.prompt, 'fr'))} jetons de texte ; inclut 60 s d’audio (${plain(num(f.audio_tokens, 'fr'))} jetons)`);
  assert.doesNotMatch(note, / [:;?!]/);  // a no-break space before French high punctuation
  const sim = await simulator(page);
  const want = core('estimate', { ...request, prompt: sim.prompt }).speed.first_token;
  assert.ok(near(sim.ttft, want.ms), `${sim.ttft} against ${want.ms}`);
  assert.match(sim.text, /inclut 60 s d’audio/);
  assert.deepEqual(page.problems, []);
});

test('vLLM with two images: the text prompt\'s figure, said to leave the images out and why', async () => {
  const request = { model: 'google/gemma-3-27b-it', hardware: 'nvidia-h100-sxm', engine: 'vllm', context: 8192, images: 2 };
  const s = core('estimate', request).speed;
  assert.equal(s.first_token.code, 'media_not_modelled');
  const page = await env.page();
  await open(page, `${env.url}?model=google/gemma-3-27b-it&hw=nvidia-h100-sxm&engine=vllm&ctx=8192&img=2&lang=en`);
  assert.equal(await page.getAttribute('#k-ttft', 'data-code'), 'media_not_modelled');
  assert.ok(near(Number(await page.getAttribute('#k-ttft', 'data-v')), s.ttft_ms));
  const note = plain(await page.$eval('#k-ttft', (e) => e.nextElementSibling?.textContent || ''));
  assert.match(note, /tokens of text; not counting 2 images: their encoding under vLLM is not modelled here$/);
  const sim = await simulator(page);
  assert.equal(sim.code, 'media_not_modelled');
  assert.match(sim.text, /; not counting 2 images: their encoding under vLLM/);
  assert.deepEqual(page.problems, []);
});
