// Issue 16, "a page a person trusts": a device's name carries its size as the vendor sells it
// (GB) on every surface, while every figure is GiB, no list of devices offers one the chosen engine does not run on, and a format with no
// kernel on the device's backend says so in the page's language.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

test('a device\'s name carries its size as the vendor sells it (GB) on every surface; the figures are GiB', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-h20-141gb&ctx=8192&lang=en`);
  await page.waitForSelector('#devices-table table');
  // The per-device table: the catalog has a 96 GB H20 too, so the name keeps its size, in the
  // vendor's GB like every device name ("NVIDIA H20 · 141 GB"), and no two rows read alike.
  const first = await page.textContent('#devices-table tbody tr th, #devices-table tbody tr td');
  assert.equal(first.trim(), 'NVIDIA H20 · 141\u00a0GB');
  // The select, the crumb, the nav tab: the same name with the same size, said once.
  const option = await page.evaluate(() => document.querySelector('#hardware option[value="nvidia-h20-141gb"]')?.textContent);
  assert.match(option, /^NVIDIA H20 · 141\sGB$/);
  assert.match(await page.textContent('#crumbs'), /NVIDIA H20 · 141\sGB/);
  assert.doesNotMatch(await page.textContent('#crumbs'), /141GB|141\sGiB/);
  // The core gives the short name: nothing is cut out of the name in the page's code.
  const listed = core('estimate', { model: 'meta-llama/Llama-3.1-8B-Instruct', quant: 'Q4_K_M', hardware: 'nvidia-h20-141gb' });
  assert.equal(listed.hardware.name_base, 'NVIDIA H20');
  assert.equal(listed.hardware.name, 'NVIDIA H20 141GB');
  // French: the same, with the language's unit.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-a100-80gb-sxm&ctx=8192&lang=fr`);
  await page.waitForSelector('#devices-table table');
  const frName = await page.textContent('#devices-table tbody tr th, #devices-table tbody tr td');
  assert.doesNotMatch(frName, /Gio|GiB/, frName);
  assert.match(await page.evaluate(() => document.querySelector('#hardware option[value="nvidia-a100-80gb-sxm"]')?.textContent), /^NVIDIA A100 SXM4 · 80\sGo$/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('issue 16: one device, one size in one unit on the nav, the summary line, the picker, the crumb, tables and the model page', async () => {
  const page = await env.page();
  /** Every "name · N unit" a surface shows, as its unit. @param {string} text */
  const units = (text) => [...text.matchAll(/512\s(GiB|GB)(?![A-Za-z])/g)].map((m) => m[1]);
  const hw = 'apple-m3-ultra-80c-gpu-512gb';
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=${hw}&ctx=32768&lang=en`);
  await page.waitForSelector('#devices-table table');
  await page.waitForFunction(() => (document.getElementById('setup-line')?.textContent || '').includes('Mac Studio'));
  const surfaces = {
    nav: await page.textContent('#tab-device'),
    summary: await page.textContent('#setup-line'),
    picker: await page.evaluate((id) => document.querySelector(`#hardware option[value="${id}"]`)?.textContent || '', hw),
    crumb: await page.textContent('#crumbs'),
    table: await page.textContent('#devices-table tbody'),
  };
  await open(page, `${env.url}?view=model&model=zai-org/GLM-4.5-Air&lang=en`);
  await page.waitForSelector('#mp-macs table tbody tr');
  surfaces.modelMacs = await page.$$eval('#mp-macs tbody tr', (rows) => rows.map((r) => r.querySelector('th, td')?.textContent || '').filter((t) => t.includes('M3 Ultra 80-core')).join(' | '));
  for (const [where, text] of Object.entries(surfaces)) {
    const u = units(text || '');
    assert.ok(u.length > 0, `${where} names the device with its size: ${text}`);
    assert.deepEqual([...new Set(u)], ['GB'], `${where}: ${text}`);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the model page\'s GPU list names devices without a vendor GB beside its GiB column', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=model&model=meta-llama/Llama-3.1-8B-Instruct&lang=en`);
  await page.waitForSelector('#mp-gpus table');
  const names = await page.$$eval('#mp-gpus tbody tr', (rows) => rows.map((r) => r.querySelector('th, td')?.textContent || ''));
  assert.ok(names.length > 10, `${names.length} rows`);
  assert.deepEqual(names.filter((n) => /\b\d+\s?GB\b/.test(n) && !/·/.test(n)), [], 'a name with a GB figure that is not a product label');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('under vLLM the "on other devices" links offer only devices vLLM runs on: no Mac', async () => {
  const page = await env.page();
  for (const [engine, macs] of [['vllm', false], ['sglang', false], ['llama.cpp', true]]) {
    await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=nvidia-rtx-4090&ctx=8192&engine=${engine}&lang=en`);
    await page.waitForFunction(() => document.querySelectorAll('#links-devices li').length > 0);
    const ids = await page.$$eval('#links-devices a', (as) => as.map((a) => new URL(a.href).searchParams.get('hw')));
    const info = await page.evaluate(async (list) => {
      const catalog = await import('./catalog.js');
      return list.map((id) => ({ id, kind: catalog.deviceInfo(id)?.kind, engines: catalog.deviceInfo(id)?.engines_run }));
    }, ids);
    assert.ok(info.length > 5, `${engine}: ${info.length} links`);
    for (const d of info) assert.ok(Array.isArray(d.engines) && d.engines.includes(engine), `${engine}: ${d.id} (${JSON.stringify(d.engines)})`);
    assert.equal(info.some((d) => d.kind === 'apple'), macs, `${engine}: Macs ${macs ? 'listed' : 'left out'}`);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// Under vLLM the format table lists the formats with a checkpoint to serve (server_formats); one
// the device has no kernel for stays in it, marked with the core's code in the page's language.
test('FP8 under vLLM on an Intel Arc stays in the format table marked as having no kernel, in en and es', async () => {
  const page = await env.page();
  for (const [lang, words] of [['en', /no kernel on this backend/], ['es', /sin kernel en esta plataforma/]]) {
    await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=intel-arc-a770-16gb&engine=vllm&ctx=8192&lang=${lang}`);
    await page.waitForSelector('#matrix [data-applicability="backend_no_kernel"]');
    const row = await page.$eval('#matrix [data-applicability="backend_no_kernel"]', (e) => e.closest('tr')?.textContent || '');
    assert.match(row, /FP8/);
    assert.match(row, words);
  }
  // On an RDNA3 Radeon (no FP8 math) vLLM's ROCm platform has no FP8 path: its own code.
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&hw=amd-rx-7900-xtx&engine=vllm&ctx=8192&lang=en`);
  await page.waitForSelector('#matrix [data-applicability="fp8_no_kernel"]');
  assert.match(await page.textContent('#matrix [data-applicability="fp8_no_kernel"]'), /no FP8 kernel on this GPU/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a pasted config that is not JSON is said in the page\'s language; the parser\'s English only as a tooltip', async () => {
  const page = await env.page();
  for (const [lang, words] of [['fr', /^Ce n’est pas du JSON valide\.$/], ['zh', /^这不是有效的 JSON。$/], ['en', /^This is not valid JSON\.$/]]) {
    await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=${lang}`);
    await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
    await page.fill('#cfg-text', '{"hidden_size": 4096,');
    await page.click('#cfg-go');
    await page.waitForFunction(() => (document.getElementById('cfg-msg')?.textContent || '').length > 0);
    assert.match((await page.textContent('#cfg-msg')).trim(), words);
    assert.ok(((await page.getAttribute('#cfg-msg', 'title')) || '').length > 0, 'the parser message kept as a tooltip');
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('issue 16: backends named as their projects write them, and Chinese percentages with no space before %', async () => {
  const page = await env.page();
  await open(page, `${env.url}?model=deepseek-ai/DeepSeek-V3-0324&hw=nvidia-h200-sxm&count=8&engine=vllm&ctx=32768&lang=en`);
  await page.waitForFunction(() => /backend on other devices/.test(document.body.innerText));
  const en = await page.evaluate(() => document.body.innerText);
  assert.match(en, /the CUDA backend on other devices/);
  assert.doesNotMatch(en, /\b(cuda|rocm|sycl) backend/);
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=zh`);
  await page.waitForSelector('#matrix tbody tr');
  await page.waitForFunction(() => /PPL/.test(document.getElementById('matrix')?.textContent || ''));
  const zh = await page.textContent('#matrix');
  assert.match(zh, /\d%/);
  assert.doesNotMatch(zh, /\d[\s\u00a0\u202f]%/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
