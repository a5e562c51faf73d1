// Reviewers' leftovers of issue 16 on the rendered page: words a person reads in their own
// language (a cloud provider's tier), one form of a flag in every view, a sentence said once per
// section, a speed card's figure and range kept together, and a phone's tabs with whole names.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const FITS = '?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192';

test('the cloud table words a provider\'s tier in the page\'s language (RunPod\'s Secure and Community Cloud)', async () => {
  const page = await env.page();
  const want = { en: /Community Cloud/, es: /nube comunitaria/, fr: /hébergement communautaire/, zh: /（社区云）/ };
  for (const [lang, re] of Object.entries(want)) {
    await open(page, `${env.url}${FITS}&lang=${lang}`);
    await page.waitForSelector('#cloud-table tbody tr');
    const cells = await page.$$eval('#cloud-table tbody tr', (trs) => trs.map((tr) => (tr.children[1] || {}).textContent || ''));
    const runpod = await page.$$eval('#cloud-table tbody tr', (trs) => trs.filter((tr) => /RunPod/.test(tr.children[0]?.textContent || '')).length);
    assert.ok(runpod > 0, `${lang}: the test needs a RunPod offer in the table`);
    assert.ok(cells.some((c) => re.test(c)), `${lang}: ${cells.join(' | ')}`);
    if (lang !== 'en') assert.deepEqual(cells.filter((c) => /Secure Cloud|Community Cloud/.test(c)), [], lang);
  }
});

test('a run\'s flags are said once, in the form a command writes them: never "-ngl 99" beside "--n-gpu-layers 99"', async () => {
  const page = await env.page();
  await open(page, `${env.url}?view=accuracy&lang=en`);
  await page.waitForSelector('#acc-rows tbody tr');
  // The runs of GLM-4.5-Air on two RTX 3060 publish their flags in llama.cpp's long names.
  await page.fill('#acc-q', 'glm-4.5-air');
  await page.waitForFunction(() => [...document.querySelectorAll('#acc-rows tbody tr')].some((tr) => /3060/.test(tr.textContent || '') && tr.querySelector('[data-flags]')));
  const rows = await page.$$eval('#acc-rows tbody tr', (trs) => trs.map((tr) => tr.textContent || ''));
  assert.ok(rows.some((t) => /-ngl 99\b/.test(t)), 'the test needs a row with -ngl 99');
  assert.deepEqual(rows.filter((t) => /--n-gpu-layers|--gpu-layers\b|--flash-attn\b|-ncmoe\b/.test(t)), []);
  // A flag with the same value is not said twice in a row.
  const twice = rows.filter((t) => { const f = t.match(/(?<![\w-])--?[a-z][\w-]* \d+/g) || []; return new Set(f).size < f.length; });
  assert.deepEqual(twice, []);
});

test('memory over context with vLLM: what "fits" means for a serving engine is said once under the table, not on every row', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  for (const lang of ['en', 'zh']) {
    await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&hw=nvidia-h100-sxm&count=4&engine=vllm&ctx=8192&lang=${lang}`);
    await page.waitForSelector('#chart-table tbody tr', { state: 'attached' });
    const { cells, notes, sentence } = await page.evaluate(() => {
      const box = /** @type {HTMLElement} */ (document.getElementById('chart-table'));
      const rows = [...box.querySelectorAll('tbody tr')];
      return {
        cells: rows.map((tr) => (tr.lastElementChild || {}).textContent || ''),
        notes: [...box.querySelectorAll('#chart-fits-server')].map((p) => p.textContent || ''),
        sentence: (document.getElementById('verdict-text') || {}).textContent || '',
      };
    });
    assert.ok(cells.length > 3, `${lang}: the sweep has rows`);
    // The page's own verdict for this setup is the serving engine's sentence.
    assert.ok(sentence.length > 20, sentence);
    assert.deepEqual(cells.filter((c) => c === sentence), [], `${lang}: ${cells.join(' | ')}`);
    assert.equal(new Set(cells).size < cells.length, true, 'rows of the same verdict share one short word');
    assert.ok(cells.every((c) => c.length < 20), cells.join(' | '));
    assert.deepEqual(notes, [sentence], lang);
  }
});

test('the speed cards: each figure with its unit on one line, its range on the line under it in every card (1280 and 390 px)', async () => {
  for (const opts of [{}, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }]) {
    const page = await env.page(opts);
    for (const lang of ['es', 'zh']) {
      await open(page, `${env.url}${FITS}&lang=${lang}`);
      await page.waitForSelector('#k-prefill .v-range');
      const cards = await page.$$eval('#speed-cards .card .v', (vs) => vs.map((v) => {
        const main = /** @type {HTMLElement} */ (v.querySelector('.v-main'));
        const range = /** @type {HTMLElement} */ (v.querySelector('.v-range'));
        const m = main.getBoundingClientRect(), r = range.getBoundingClientRect();
        return { id: v.id, text: v.textContent, mainLines: main.getClientRects().length, mainH: m.height, rangeLines: range.getClientRects().length,
          lh: parseFloat(getComputedStyle(main).lineHeight) || 1.3 * parseFloat(getComputedStyle(main).fontSize), below: r.top >= m.bottom - 1, left: Math.round(r.left - m.left) };
      }));
      assert.equal(cards.length, 3, `${lang}: decode, prefill and time to first token`);
      for (const c of cards) {
        assert.ok(c.mainLines === 1 && c.mainH < 1.6 * c.lh, `${lang} ${opts.viewport ? 390 : 1280}: "${c.text}" figure parts (${c.mainH}px)`);
        assert.equal(c.rangeLines, 1, c.text);
        assert.ok(c.below, `${lang}: the range of "${c.text}" is on its own line in every card`);
        // A Chinese range's full-width parenthesis does not indent it past the figure.
        assert.ok(Math.abs(c.left) <= 2, `${lang}: "${c.text}" range starts ${c.left}px from its figure`);
      }
    }
  }
});

test('at 390 px a tab named after a long device shows the whole name (it wraps), never cut at an ellipsis', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  for (const lang of ['fr', 'es', 'en', 'zh']) {
    await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768&lang=${lang}`);
    const tab = await page.$eval('#tab-device', (a) => {
      const r = a.getBoundingClientRect();
      const cs = getComputedStyle(a);
      return { text: a.textContent || '', cut: a.scrollWidth > a.clientWidth + 1 || (cs.textOverflow === 'ellipsis' && cs.overflow !== 'visible' && cs.whiteSpace === 'nowrap'),
        inView: r.left >= -1 && r.right <= document.documentElement.clientWidth + 1, lines: Math.round(r.height / (parseFloat(cs.lineHeight) || 1.3 * parseFloat(cs.fontSize))) };
    });
    assert.match(tab.text, /M3 Ultra/, lang);
    assert.match(tab.text, /512/, `${lang}: the name to its end`);
    assert.equal(tab.cut, false, `${lang}: ${tab.text}`);
    assert.equal(tab.inView, true, lang);
  }
});

test('ids stay whole as the views draw them, with no watcher over the page (a MutationObserver cost the take-over time)', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=en`);
  await page.waitForSelector('#commands pre');
  // What the views drew: a speed range and a program's name in whole pieces, the command's flags
  // in their own pieces (not wrapped twice).
  const drawn = await page.evaluate(() => ({
    whole: [...document.querySelectorAll('#content .whole')].map((e) => e.textContent),
    nested: document.querySelectorAll('#content .whole .whole, #content .tok .whole, #content code .whole').length,
  }));
  assert.ok(drawn.whole.some((t) => /^\(\d[\d,.]*–\u2060[\d,.]+\)$/.test(t || '')), `a speed range: ${drawn.whole.slice(0, 20).join(' | ')}`);
  assert.ok(drawn.whole.some((t) => /^llama-(server|bench)$/.test(t || '')), `a program's name: ${drawn.whole.slice(0, 20).join(' | ')}`);
  assert.equal(drawn.nested, 0);
  // Text put into the page by anything but the views' own helpers is left as it is: nothing
  // watches the page and rewrites it.
  const wrapped = await page.evaluate(async () => {
    const p = document.createElement('p');
    p.id = 'probe';
    p.textContent = 'Llama-3.1-8B-Instruct';
    document.getElementById('content')?.append(p);
    await new Promise((r) => setTimeout(r, 50));
    const n = p.querySelectorAll('span').length;
    p.remove();
    return n;
  });
  assert.equal(wrapped, 0);
  assert.deepEqual(page.problems, []);
});

test('Chinese: a full-width opening parenthesis stays with the flag after it (no line ends at "（")', async () => {
  const page = await env.page({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=zh`);
  await page.waitForSelector('#plan:not([hidden]) li[data-layers]');
  const pieces = await page.$$eval('#plan .whole', (ws) => ws.map((w) => w.textContent || ''));
  // (closing full-width punctuation after the flag joins the piece too: "（--fit-target）。")
  assert.ok(pieces.some((p) => p.startsWith('（--fit-target')), pieces.join(' | '));
  assert.ok(!pieces.some((p) => /^[）。，；]/.test(p)), pieces.join(' | '));
  assert.ok(pieces.some((p) => p.startsWith('（--n-gpu-layers')), pieces.join(' | '));
});
