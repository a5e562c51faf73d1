// The simulator, the cloud table, rent vs buy, the fine-tuning table, where to buy and the
// published GGUF sizes, driven in Chromium for GLM-4.5-Air Q4_K_M at 8K on an RTX 4090 with
// 64 GB of system RAM (the offload case of issue 7).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { axeProblems, core, open, root, scrollsSideways, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const shots = path.join(root, 'test-results');
fs.mkdirSync(shots, { recursive: true });
const PAGE = '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&kv=f16&count=1&ram=64';


/** Read the simulator's counters with the page's own clock. */
const sample = (page) => page.evaluate(() => ({ now: performance.now(), tokens: Number(document.querySelector('#sim-body').dataset.tokens || 0), text: document.querySelector('#sim-out').textContent.length }));

test('the simulator waits about the time to first token, then streams at the estimated rate', async () => {
  const page = await env.page();
  await open(page, `${env.url}${PAGE}&lang=en`);
  await page.waitForSelector('#sim-start:not([disabled])');
  // The prompt lengths and the first choice are the core's for this context; the figures its
  // estimate with that prompt.
  const sim = core('defaults', { context: 8192 }).simulator;
  assert.deepEqual(await page.$$eval('#sim-prompt option', (os) => os.map((o) => Number(o.value))), sim.prompts);
  assert.equal(Number(await page.inputValue('#sim-prompt')), sim.prompt);
  const request = { model: 'zai-org/GLM-4.5-Air', quant: 'Q4_K_M', hardware: 'nvidia-rtx-4090', context: 8192, kv_type: 'f16', count: 1, ram_gib: 64 };
  const target = async () => [Number(await page.getAttribute('#sim-target', 'data-ttft')), Number(await page.getAttribute('#sim-target', 'data-tps'))];
  let [ttft, rate] = await target();
  let want = core('estimate', { ...request, prompt: sim.prompt }).speed;
  assert.ok(ttft > 0 && rate > 0, `ttft ${ttft} ms, ${rate} tok/s`);
  assert.equal(ttft, want.ttft_ms);
  assert.equal(rate, want.decode_tps);
  // The run below uses the shortest prompt offered: the same wait and stream, in less time than
  // the default prompt's first token (about 18 s offloaded here).
  const shortest = Math.min(...sim.prompts);
  await page.selectOption('#sim-prompt', String(shortest));
  want = core('estimate', { ...request, prompt: shortest }).speed;
  await page.waitForFunction((t) => Number(document.querySelector('#sim-target')?.getAttribute('data-ttft')) === t && !document.querySelector('#sim-start').disabled, want.ttft_ms);
  [ttft, rate] = await target();
  assert.equal(ttft, want.ttft_ms);
  assert.equal(rate, want.decode_tps);
  const t0 = await page.evaluate(() => { document.querySelector('#sim-start').click(); return performance.now(); });
  // Nothing before the first token is due.
  await page.waitForTimeout(Math.min(1000, ttft * 0.5));
  assert.equal((await sample(page)).text, 0);
  await page.waitForFunction(() => document.querySelector('#sim-out').textContent.length > 0, null, { timeout: ttft * 2 + 10000, polling: 20 });
  const first = (await sample(page)).now - t0;
  assert.ok(Math.abs(first - ttft) <= 0.15 * ttft + 300, `first token after ${first} ms, estimate ${ttft} ms`);
  // Over about two seconds the tokens arrive at the estimated rate (within 20 %).
  const a = await sample(page);
  await page.waitForTimeout(2200);
  const b = await sample(page);
  const measured = ((b.tokens - a.tokens) * 1000) / (b.now - a.now);
  assert.ok(Math.abs(measured - rate) <= 0.2 * rate, `measured ${measured} tok/s, estimate ${rate} tok/s`);
  assert.match(await page.textContent('#sim-rate'), /tok\/s/);
  // Stop freezes the count; restart begins again from zero.
  await page.click('#sim-stop');
  const stopped = (await sample(page)).tokens;
  await page.waitForTimeout(400);
  assert.equal((await sample(page)).tokens, stopped);
  await page.click('#sim-start');
  assert.ok((await sample(page)).tokens < stopped);
  assert.deepEqual(page.problems, []);
});

test('the simulator never offers a prompt the context cannot hold', async () => {
  const page = await env.page();
  await open(page, `${env.url}${PAGE.replace('ctx=8192', 'ctx=2048')}&lang=en`);
  await page.waitForSelector('#sim-start:not([disabled])');
  const offered = await page.$$eval('#sim-prompt option', (os) => os.map((o) => Number(o.value)));
  assert.deepEqual(offered, core('defaults', { context: 2048 }).simulator.prompts);
  assert.ok(offered.length > 0 && offered.every((n) => n <= 2048), offered.join());
  // The core notes a prompt longer than the context, for the CLI and any other caller.
  const doc = core('estimate', { model: 'zai-org/GLM-4.5-Air', hardware: 'nvidia-rtx-4090', context: 2048, prompt: 4096 });
  assert.ok(doc.notes.some((/** @type {any} */ n) => n.code === 'prompt_beyond_context' && n.values.context === 2048), JSON.stringify(doc.notes));
});

test('with reduced motion the simulator still counts but does not stream text', async () => {
  const page = await env.page({ reducedMotion: 'reduce' });
  await open(page, `${env.url}${PAGE}&lang=en`);
  await page.waitForSelector('#sim-start:not([disabled])');
  await page.selectOption('#sim-prompt', '1024');
  await page.waitForFunction(() => document.querySelector('#sim-target')?.textContent.includes('tok/s') && !document.querySelector('#sim-start').disabled);
  const ttft = Number(await page.getAttribute('#sim-target', 'data-ttft'));
  await page.click('#sim-start');
  await page.waitForFunction(() => Number(document.querySelector('#sim-body').dataset.tokens) > 3, null, { timeout: ttft * 2 + 15000 });
  assert.equal((await sample(page)).text, 0);
  assert.match(await page.textContent('#sim-intro'), /Reduced motion/);
});

test('the cloud table lists offers that hold the model, sorts by price and by cost per million tokens, and links safely', async () => {
  const page = await env.page();
  await open(page, `${env.url}${PAGE}&lang=en`);
  await page.waitForSelector('#cloud-table tbody tr');
  const rows = await page.$$eval('#cloud-table tbody tr', (trs) => trs.map((tr) => ({
    id: tr.dataset.offer, cells: [...tr.children].map((c) => c.textContent),
    // The memory cell's own figure ("2 × 80 GiB"), without the notes and marks beside it.
    mem: tr.children[2].querySelector('.mem')?.firstChild?.textContent || '',
    price: Number(tr.children[3].dataset.usd), mtok: tr.children[7].dataset.usd ? Number(tr.children[7].dataset.usd) : null,
    href: tr.querySelector('a')?.getAttribute('href'), rel: tr.querySelector('a')?.getAttribute('rel'),
  })));
  assert.ok(rows.length >= 5, `${rows.length} offers`);
  // The model needs about 67 GiB: every offer has at least 72 GB of GPU memory.
  for (const r of rows) {
    const [n, gb] = r.mem.split('×').map((x) => Number(x.replace(/[^\d.]/g, '')));
    assert.ok(n * gb >= 72, `${r.id}: ${r.mem}`);
    assert.match(r.href, /^https:\/\//);
    assert.match(r.rel, /noopener/);
  }
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].price <= rows[i].price, 'sorted by price per hour');
  assert.ok(rows.some((r) => r.mtok !== null), 'some offers have a cost per million tokens');
  await page.click('[data-sort="mtok"]');
  const mtok = await page.$$eval('#cloud-table tbody tr', (trs) => trs.map((tr) => tr.children[7].dataset.usd ? Number(tr.children[7].dataset.usd) : Infinity));
  for (let i = 1; i < mtok.length; i++) assert.ok(mtok[i - 1] <= mtok[i], 'sorted by cost per million tokens');
  assert.equal(await page.getAttribute('[data-sort="mtok"]', 'aria-pressed'), 'true');
  // Fewer hours a day lower the monthly cost of per-second offers.
  const monthly = async () => page.$eval('#cloud-table tbody tr td:nth-child(5)', (td) => Number(td.textContent.replace(/[^\d.]/g, '')));
  const before8 = await monthly();
  await page.fill('#cost-hours', '4');
  await page.dispatchEvent('#cost-hours', 'change');
  await page.waitForFunction((b) => Number(document.querySelector('#cloud-table tbody tr td:nth-child(5)').textContent.replace(/[^\d.]/g, '')) < b, before8);
});

test('rent vs buy shows the break-even, electricity per month, a chart and the same data as a table', async () => {
  const page = await env.page();
  // A card that runs the model whole: the instance that makes the same tokens costs more a month
  // than its electricity, so buying pays off (the offloaded GLM-4.5-Air never does: a faster
  // instance makes its tokens in an hour or two a day).
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#rvb-break-even[data-months]');
  const months = Number(await page.getAttribute('#rvb-break-even', 'data-months'));
  assert.ok(months > 0 && months < 240, `break-even ${months}`);
  // Within the hardware's useful life the figure is a count of months; past it, the life is named instead.
  assert.match(await page.textContent('#rvb-break-even'), months <= 60 ? /months/ : /60-month life/);
  await page.waitForSelector('#rvb-chart canvas');
  const n = await page.$$eval('#rvb-out table tbody tr', (trs) => trs.length);
  assert.ok(n >= 25, `${n} rows`);
  // A higher electricity price costs more per month and pays off later.
  const elec = Number(await page.getAttribute('#rvb-elec', 'data-usd'));
  await page.fill('#cost-kwh', '0.60');
  await page.dispatchEvent('#cost-kwh', 'change');
  await page.waitForFunction((e) => Number(document.querySelector('#rvb-elec')?.dataset.usd) > e * 2, elec);
  const later = await page.getAttribute('#rvb-break-even', 'data-months');
  assert.ok(later === 'never' || Number(later) > months, `break-even ${later} after ${months}`);
  assert.match(await page.textContent('#cost-inputs-used'), /0\.600/);
});

test('the fine-tuning table gives QLoRA < LoRA < full per GPU, none on one RTX 4090, and follows the sequence length', async () => {
  const page = await env.page();
  await open(page, `${env.url}${PAGE}&lang=en`);
  await page.waitForSelector('#ft-table tbody tr[data-method="full"]');
  const read = () => page.$$eval('#ft-table tbody tr', (trs) => trs.map((tr) => ({
    m: tr.dataset.method, v: tr.dataset.verdict, total: Number(tr.querySelector('[data-bytes]').dataset.bytes),
    count: tr.querySelector('[data-count]').dataset.count,
  })));
  const rows = await read();
  assert.deepEqual(rows.map((r) => r.m), ['qlora', 'lora', 'full']);
  assert.ok(rows[0].total < rows[1].total && rows[1].total < rows[2].total, JSON.stringify(rows));
  for (const r of rows) assert.equal(r.v, 'no_fit');
  assert.ok(Number(rows[0].count) >= 2);
  // GLM-4.5-Air has about 106.9B parameters: full fine-tuning needs over 16 bytes each in total.
  assert.ok(rows[2].total >= 16 * 106e9, `full: ${rows[2].total} bytes on one GPU`);
  await page.selectOption('#ft-seq', '8192');
  await page.waitForFunction((q) => Number(document.querySelector('#ft-table tr[data-method="qlora"] [data-bytes]')?.dataset.bytes) > q, rows[0].total);
  assert.match(await page.textContent('#ft-table caption'), /8K/);
});

test('where to buy follows the market, which is kept in the URL', async () => {
  const page = await env.page();
  await open(page, `${env.url}${PAGE}&lang=en`);
  await page.waitForSelector('#buy-out a');
  let hrefs = await page.$$eval('#buy-out a', (as) => as.map((a) => a.href));
  assert.ok(hrefs.some((h) => h.startsWith('https://www.amazon.com/') && h.includes('RTX%204090')), hrefs.join(' '));
  await page.selectOption('#market', 'UK');
  await page.waitForFunction(() => [...document.querySelectorAll('#buy-out a')].some((a) => a.href.includes('amazon.co.uk')));
  assert.match(page.url(), /market=UK/);
  hrefs = await page.$$eval('#buy-out a', (as) => as.map((a) => a.getAttribute('rel')));
  for (const rel of hrefs) assert.match(rel, /noopener/);
  await page.waitForFunction(() => document.querySelector('#cost-owned-mtok')?.textContent.includes('£'));
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.inputValue('#market'), 'UK');
  // The device page has the same store searches, for the market in its URL.
  await open(page, `${env.url}?view=device&hw=nvidia-rtx-4090&market=EU&lang=en`);
  await page.waitForSelector('#dp-buy a');
  hrefs = await page.$$eval('#dp-buy a', (as) => as.map((a) => a.href));
  assert.ok(hrefs.some((h) => h.startsWith('https://www.amazon.de/') && h.includes('RTX%204090')), hrefs.join(' '));
  assert.match(await page.textContent('#dp-buy-title'), /GeForce RTX 4090/);
});

test('the quantization matrix shows a published GGUF size next to ours with the difference, or says they match where the core says so', async () => {
  const page = await env.page();
  await open(page, `${env.url}${PAGE}&lang=en`);
  await page.waitForSelector('#matrix [data-published]');
  const cells = await page.$$eval('#matrix [data-published]', (els) => els.map((el) => ({ pub: Number(/** @type {HTMLElement} */ (el).dataset.published), ours: Number(/** @type {HTMLElement} */ (el).dataset.ours), text: el.textContent || '', repo: /** @type {HTMLElement} */ (el).title })));
  let differs = 0;
  for (const cell of cells) {
    assert.ok(cell.pub > 0 && cell.ours > 0);
    assert.match(cell.text, /published/);
    assert.match(cell.repo, /GLM-4\.5-Air-GGUF/);
    if (!cell.text.includes('%')) {
      // The core's same_as_shown: the difference rounds to 0.0 % at the one decimal it is shown with.
      assert.match(cell.text, /our estimate matches it/);
      assert.ok(Math.abs((100 * (cell.ours - cell.pub)) / cell.pub) < 0.05, cell.text);
      continue;
    }
    differs += 1;
    // The difference shown is ours against the published size.
    // (A difference that rounds to zero is shown as 0.0 %, with no sign.)
    const m = cell.text.match(/([+−]?)(\d+(?:\.\d+)?)\s*%/);
    assert.ok(m, cell.text);
    const shown = Number(m[2]) * (m[1] === '−' ? -1 : 1);
    assert.ok(Math.abs(shown - (100 * (cell.ours - cell.pub)) / cell.pub) < 0.06, cell.text);
  }
  assert.ok(differs > 0, cells.map((c) => c.text).join(' | '));
});

test('the new sections are translated, have no serious accessibility problem, and fit a phone screen', async () => {
  // axe-core is injected as an inline script, which the page's CSP would (rightly) refuse.
  const page = await env.page({ bypassCSP: true });
  await open(page, `${env.url}${PAGE}&lang=es`);
  await page.waitForSelector('#ft-table tbody tr[data-method="full"]');
  await page.waitForSelector('#rvb-chart canvas');
  assert.equal((await page.textContent('#plug-rvb h2')).trim(), 'Alquilar o comprar');
  assert.match(await page.textContent('#plug-finetune'), /Estados del optimizador/);
  assert.match(await page.textContent('#sim-start'), /Iniciar/);
  assert.deepEqual(await axeProblems(page), []);
  await page.screenshot({ path: path.join(shots, 'money-desktop.png') });
  const phone = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await open(phone, `${env.url}${PAGE}&lang=en`);
  await phone.waitForSelector('#ft-table tbody tr[data-method="full"]');
  await phone.waitForSelector('#rvb-chart canvas');
  assert.equal(await scrollsSideways(phone), false);
  // A phone widens its layout viewport to fit content that sticks out: it must stay at 390 px.
  assert.equal(await phone.evaluate(() => window.innerWidth), 390);
  await phone.screenshot({ path: path.join(shots, 'money-phone.png') });
  assert.deepEqual(page.problems, []);
  assert.deepEqual(phone.problems, []);
});

// The electricity price is cited to its primary publisher by name (data/markets.json `primary`),
// never to a page that only repeats the figure, in each market.
test('the electricity price names its primary publisher, never a mirror', async () => {
  const page = await env.page();
  await open(page, `${env.url}${PAGE}&lang=en`);
  const want = {
    US: ['U.S. Bureau of Labor Statistics via FRED', 'fred.stlouisfed.org'],
    EU: ['Eurostat', 'ec.europa.eu'],
    UK: ['Ofgem', 'ofgem.gov.uk'],
    CN: ['National Development and Reform Commission, as reported by China Daily', 'europe.chinadaily.com.cn'],
  };
  for (const [m, [name, host]] of Object.entries(want)) {
    if (m !== 'US') await page.selectOption('#market', m);
    await page.waitForFunction((h) => document.querySelector('#cost-source a')?.getAttribute('href')?.includes(h), host);
    const links = await page.$$eval('#cost-source a', (as) => as.map((a) => ({ text: a.firstChild?.textContent, host: new URL(a.href).hostname })));
    assert.deepEqual(links, [{ text: name, host }], m);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a device with no power figure states no electricity price source (its electricity is unknown)', async () => {
  const page = await env.page();
  // The catalog has no power figure for this Mac: the cost card says its electricity is unknown.
  await open(page, `${env.url}?model=Qwen/Qwen3-30B-A3B&hw=apple-m4-max-40c-gpu-128gb&engine=mlx&ctx=32768&lang=en`);
  await page.waitForSelector('#cost-inputs-used');
  const info = core('estimate', { model: 'Qwen/Qwen3-30B-A3B', hardware: 'apple-m4-max-40c-gpu-128gb', engine: 'mlx', context: 32768 });
  assert.ok(info && !info.error, 'the estimate runs');
  assert.equal(await page.$('#cost-source'), null, 'no price source under a cost without electricity');
  // A device with a power figure keeps its source (the check can fail).
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#cost-source a');
  await page.context().close();
});
