// What a person sees, checked on the rendered page: on a phone no strip is cut at the edge
// without a cue (the tabs wrap; the popular setups fade the edge where more lies), at 1280 px no
// table cell breaks a word in the middle and long source links end in "…" with the whole URL in
// their title, signed figures carry the minus sign (U+2212) rather than a hyphen-minus, and the
// error's copy button is named for what it copies.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { axeProblems, core, open, setup } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

for (const lang of ['en', 'fr', 'zh']) {
  test(`at 390 px (${lang}) every tab is in view and the popular setups show there is more to scroll to`, async () => {
    const page = await env.page(PHONE);
    // The home page with a model and a device picked: the two tabs then carry their names.
    await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&hw=apple-m4-max-40c-gpu-128gb&lang=${lang}`);
    const tabs = await page.$$eval('#tabs a', (as) => {
      const vw = document.documentElement.clientWidth;
      const nav = /** @type {HTMLElement} */ (document.getElementById('tabs'));
      return { navScrolls: nav.scrollWidth > nav.clientWidth + 1, out: as.map((a) => ({ text: a.textContent, r: a.getBoundingClientRect(), cut: a.scrollWidth > a.clientWidth + 1, title: a.title }))
        .filter((x) => x.r.left < -1 || x.r.right > vw + 1 || x.r.width < 1 || x.cut).map((x) => x.text) };
    });
    assert.deepEqual(tabs, { navScrolls: false, out: [] });
  });
}

test('at 390 px the popular setups scroll sideways with a faded edge where more lies, by touch or keyboard', async () => {
  const page = await env.page(PHONE);
  await open(page, `${env.url}?lang=fr`);
  await page.waitForSelector('#examples li');
  const cue = () => page.$eval('#examples', (ul) => ({ more: ul.dataset.more, scrolls: ul.scrollWidth > ul.clientWidth + 1, mask: getComputedStyle(ul).maskImage || getComputedStyle(ul).webkitMaskImage }));
  const start = await cue();
  assert.equal(start.scrolls, true, 'the setups do not fit a phone: the test needs the strip to scroll');
  assert.equal(start.more, 'end');
  assert.match(start.mask, /gradient/);
  // The second setup, partly shown, comes into view when the keyboard reaches it (its start, and
  // its end too unless it is wider than the strip).
  await page.focus('#examples li:first-child a');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => {
    const ul = /** @type {HTMLElement} */ (document.getElementById('examples')).getBoundingClientRect();
    const a = /** @type {HTMLElement} */ (document.activeElement).getBoundingClientRect();
    return a.left >= ul.left && (a.right <= ul.right || a.width > ul.width - 40) && a.left < ul.right - 40;
  });
  // The last setup, reached by the keyboard, scrolls into view; the strip then fades its start only.
  const n = await page.$$eval('#examples a', (as) => as.length);
  // The setups are the core's (defaults.welcome: one of each kind), the first the one the page opens on.
  const welcome = core('defaults', {}).welcome;
  assert.equal(n, welcome.examples.length);
  assert.equal(await page.$eval('#model', (e) => /** @type {HTMLInputElement} */ (e).value), welcome.model);
  await page.focus('#examples li:first-child a');
  for (let i = 1; i < n; i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('li') === document.querySelector('#examples li:last-child')), true);
  await page.waitForFunction(() => document.getElementById('examples')?.dataset.more === 'start');
  assert.match((await cue()).mask, /gradient/);
  // A strip with nothing beyond its edges has no fade (a wide screen wraps the setups).
  const wide = await env.page();
  await open(wide, `${env.url}?lang=fr`);
  await wide.waitForSelector('#examples li');
  assert.equal(await wide.$eval('#examples', (ul) => [ul.dataset.more, getComputedStyle(ul).maskImage].join('|')), '|none');
});

/**
 * Cells of the tables under `sel` whose text a line break splits inside a word (a letter or digit
 * on both sides of the break), as "cell text: …before|after…".
 * @param {any} page @param {string} sel
 */
async function midWordBreaks(page, sel) {
  return page.$$eval(`${sel} table td, ${sel} table tbody th`, (cells) => {
    const word = /[\p{L}\p{N}]/u;
    const bad = [];
    const range = document.createRange();
    for (const cell of cells) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      /** @type {{ch: string, top: number, h: number} | null} */
      let prev = null;
      let before = '';
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const t = n.textContent || '';
        for (let i = 0; i < t.length; i++) {
          if (/\s/.test(t[i])) { prev = null; before += t[i]; continue; }
          range.setStart(n, i); range.setEnd(n, i + 1);
          const r = range.getClientRects()[0];
          if (!r) continue;
          if (prev && r.top > prev.top + prev.h / 2 && word.test(prev.ch) && word.test(t[i])) {
            bad.push(`${cell.textContent}: …${before.slice(-8)}|${t.slice(i, i + 8)}…`);
          }
          prev = { ch: t[i], top: r.top, h: r.height };
          before += t[i];
        }
      }
    }
    return bad;
  });
}

for (const lang of ['en', 'fr']) {
  test(`accuracy page at 1280 px (${lang}): no cell breaks a word, the tables stay inside their panel, long links end in "…" with the URL in their title`, async () => {
    const page = await env.page();
    await open(page, `${env.url}?view=accuracy&lang=${lang}`);
    await page.waitForSelector('#acc-rows tbody tr');
    await page.$eval('#acc-sizes details', (d) => { /** @type {HTMLDetailsElement} */ (d).open = true; });
    assert.deepEqual(await midWordBreaks(page, '#acc-body'), []);
    const overflow = await page.$$eval('#acc-body table', (ts) => ts.filter((t) => t.getBoundingClientRect().right > /** @type {HTMLElement} */ (t.closest('.panel, main')).getBoundingClientRect().right + 1).map((t) => t.id));
    assert.deepEqual(overflow, []);
    const links = await page.$$eval('#acc-rows a.src', (as) => as.map((a) => ({ text: a.textContent || '', href: a.getAttribute('href'), title: a.title })));
    assert.ok(links.length > 50, `${links.length} source links`);
    for (const l of links) assert.equal(l.title, l.href, l.text);
    const short = links.filter((l) => l.text.includes('…'));
    assert.ok(short.length > 0, 'some source URLs are long enough to be shortened');
    // A label is the whole address (site and path) when short, else it carries the "…".
    for (const l of links) {
      const whole = String(l.href).replace(/^https?:\/\/(www\.)?/, '').replace(/\/$/, '');
      assert.ok(l.text === whole || (l.text.includes('…') && l.text.length < whole.length), `${l.text} for ${l.href}`);
      assert.ok(l.text.length <= 60, `${l.text} is not shortened`);
    }
  });
}

/**
 * The page's shown text nodes outside command lines and code, each on its own (a cell's text
 * starts a node, so "-60.1 %" in a cell is caught though the cell before ends without a space).
 * @param {any} page @returns {Promise<string[]>}
 */
const shownText = (page) => page.evaluate(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('pre, code, .mono, script, style, textarea, [hidden]') || !el.getClientRects().length) continue;
    out.push(n.textContent || '');
  }
  return out;
});

for (const [name, url, ready] of [
  ['accuracy', '?view=accuracy', '#acc-rows tbody tr'],
  ['model', '?view=model&model=zai-org/GLM-4.5-Air', '#mp-quant-table tbody tr'],
  ['device', '?view=device&hw=nvidia-rtx-4090', '#dp-runs table'],
  ['main', '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64', '#matrix tbody tr'],
]) {
  test(`the ${name} page writes negative figures with the minus sign, never a hyphen-minus, in every language`, async () => {
    for (const lang of ['en', 'es', 'fr', 'zh']) {
      const page = await env.page();
      await open(page, `${env.url}${url}&lang=${lang}`);
      await page.waitForSelector(ready);
      await page.waitForFunction(() => ![...document.querySelectorAll('[data-pending="true"]')].some((e) => /** @type {HTMLElement} */ (e).offsetParent));
      const nodes = await shownText(page);
      const hyphen = nodes.flatMap((t) => t.match(/(?:^|[\s(（:：≈~+×])-\d[\d.,\u00a0\u202f]*\s?%?/g) || []);
      assert.deepEqual(hyphen, [], `${name} ${lang}`);
      if (name === 'accuracy') assert.ok(nodes.some((t) => /^\u2212\d/.test(t)), 'the accuracy page has negative errors: they carry U+2212');
      await page.context().close();
    }
  });
}

test('the error box copies a link to the error under a name of its own, in four languages, and passes axe in the dark', async () => {
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    const page = await env.page({ permissions: ['clipboard-read', 'clipboard-write'], bypassCSP: true, colorScheme: 'dark' });
    await open(page, `${env.url}?model=nobody/no-such-model&quant=Q4_K_M&hw=nvidia-rtx-4090&lang=${lang}`);
    await page.waitForSelector('#err-share');
    const [mine, share] = [await page.textContent('#err-share'), await page.textContent('#share')];
    assert.notEqual(mine, share, lang);
    // The sentence that sends a person to the share button names it as the button is named.
    assert.ok((await page.textContent('#error p')).includes(share), lang);
    await page.click('#err-share');
    await page.waitForFunction(() => document.querySelector('#error [role="status"]')?.textContent);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());
    if (lang === 'en') assert.deepEqual(await axeProblems(page), []);
    await page.context().close();
  }
});

test('the copy buttons beside the launch commands are named for the command each copies, in four languages', async () => {
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    const page = await env.page();
    await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=${lang}`);
    await page.waitForSelector('#commands button');
    const names = await page.$$eval('#commands .cmd', (cmds) => cmds.map((c) => ({
      label: c.querySelector('button')?.getAttribute('aria-label') || '', text: c.querySelector('button')?.textContent || '', head: c.querySelector('strong')?.textContent || '' })));
    assert.ok(names.length >= 2, `${lang}: ${names.length} commands`);
    assert.equal(new Set(names.map((n) => n.label)).size, names.length, `${lang}: ${JSON.stringify(names)}`);
    // The name starts with the visible word (a speech-input user says what they see) and names the command.
    for (const n of names) assert.ok(n.label.startsWith(n.text) && n.label.includes(n.head), `${lang}: ${JSON.stringify(n)}`);
    await page.context().close();
  }
});

test('a speed range sits in the language\'s parentheses: full-width in Chinese, plain elsewhere', async () => {
  const page = await env.page();
  for (const [lang, re] of /** @type {const} */ ([['zh', /~[^()（）]+（[\d.,]+–\u2060[\d.,]+）/], ['en', /~[^()（）]+ \([\d.,]+–\u2060[\d.,]+\)/]])) {
    await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=${lang}`);
    await page.waitForSelector('#k-decode');
    const text = await page.$eval('#k-decode', (e) => (e.textContent || '').replace(/\s+/g, ' '));
    assert.match(text, re, `${lang}: ${text}`);
    if (lang === 'zh') assert.doesNotMatch(text, /\(/, `a half-width parenthesis in: ${text}`);
  }
});

test('the cost section\'s list of inputs parts its clauses with the language\'s semicolon', async () => {
  const page = await env.page();
  for (const lang of ['fr', 'zh', 'en']) {
    await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=${lang}`);
    await page.waitForSelector('#cost-inputs-used');
    await page.waitForFunction(() => ((document.getElementById('cost-inputs-used') || {}).textContent || '').length > 20);
    const text = await page.$eval('#cost-inputs-used', (e) => e.textContent || '');
    if (lang === 'fr') assert.match(text, /\u00a0; /, text);
    if (lang === 'fr') assert.doesNotMatch(text, /[^\u00a0];/, text);
    if (lang === 'zh') { assert.match(text, /；/, text); assert.doesNotMatch(text, /;/, text); }
    if (lang === 'en') assert.match(text, /[^\s]; /, text);
  }
});

test('issue 16: parameter counts, device counts, Chinese punctuation, computed sizes and sentence-case notes as a person reads them', async () => {
  const page = await env.page();
  // Kimi K2.5 (about 1.03 × 10¹² parameters): never "1 B"/"1 Bn", in Spanish's word for 10¹²
  // ("1,03 billones"), never a run of zeros ("1.030.000 M") nor a thousand of a scale ("1026 mil M").
  await open(page, `${env.url}?view=model&model=moonshotai/Kimi-K2.5&lang=es`);
  await page.waitForFunction(() => /\d\u00a0billones\b/.test(document.body.innerText));
  const es = await page.evaluate(() => document.body.innerText);
  assert.match(es, /1,03\u00a0billones/, 'Kimi K2.5 in Spanish');
  assert.doesNotMatch(es, /\d\.\d{3}\.\d{3}\u00a0M\b/, 'no run of zeros in millions');
  assert.doesNotMatch(es, /\d{4}\u00a0mil\u00a0M\b/, 'no thousands of "mil M"');
  assert.doesNotMatch(es, /\d\.\d{3}\u00a0M\b/, 'no thousands of millions ("685.000 M")');
  assert.doesNotMatch(es, /\d\u00a0?B\b/i);
  // French: « billion » is 10¹², « milliards » (Md) 10⁹; never a figure in thousands of Md.
  await open(page, `${env.url}?view=model&model=moonshotai/Kimi-K2.5&lang=fr`);
  await page.waitForFunction(() => /\d\u00a0billion\b/.test(document.body.innerText));
  const fr = await page.evaluate(() => document.body.innerText);
  assert.match(fr, /1,03\u00a0billion\b/, 'Kimi K2.5 in French');
  assert.doesNotMatch(fr, /\d[\u202f\u00a0]\d{3}\u00a0Md\b/, 'no thousands of milliards');
  // The quantization matrix: a size in every File size cell, a computed one marked as such.
  await open(page, `${env.url}?model=Qwen/Qwen3-8B&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&lang=zh`);
  await page.waitForSelector('#matrix tbody tr');
  const sizes = await page.$$eval('#matrix tbody tr', (trs) => trs.map((tr) => (tr.children[tr.children.length - 2] || {}).textContent || ''));
  assert.ok(sizes.length > 5);
  // In GiB, the table's one unit (issue 16): a published size is converted from its bytes.
  for (const s of sizes) assert.match(s, /\d.*GiB/, `a size in: ${s}`);
  assert.ok(sizes.some((s) => /（计算值）/.test(s)), sizes.join(' | '));
  // Chinese composed text: no half-width parenthesis or comma-space inside the speed basis or the cost source.
  await page.waitForSelector('#cost-source');
  const src = await page.$eval('#cost-source', (e) => e.textContent || '');
  assert.doesNotMatch(src, /, /, src);
  const zhText = await page.evaluate(() => document.body.innerText);
  assert.doesNotMatch(zhText, /\dx\b/, 'no letter x as a multiplication sign');
  // French cost cards: a note or a word value under its label starts with a capital letter.
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=16384&ram=64&lang=fr`);
  await page.waitForSelector('#rvb-break-even');
  const notes = await page.$$eval('#plug-cost .card .s, #plug-cost .card .v', (es) => es.map((e) => (e.textContent || '').trim()).filter((t) => /^\p{L}/u.test(t)));
  assert.ok(notes.length > 0);
  assert.deepEqual(notes.filter((t) => /^\p{Ll}/u.test(t)), []);
  // The cost inputs sit on one line whatever their labels' length.
  const tops = await page.$$eval('#cost-inputs input', (is) => is.map((i) => Math.round(i.getBoundingClientRect().top)));
  assert.equal(new Set(tops).size, 1, `input tops: ${tops}`);
});

test('issue 16: at 1280 px the cloud table fits its box in Spanish, and a cut device name is written whole under the select', async () => {
  const page = await env.page({ viewport: { width: 1280, height: 900 } });
  await open(page, `${env.url}?model=meta-llama/Llama-3.1-70B-Instruct&hw=nvidia-h100-sxm&count=4&engine=vllm&ctx=8192&lang=es`);
  await page.waitForSelector('#cloud-table tbody tr');
  const over = await page.$eval('#cloud-table', (t) => { const w = /** @type {HTMLElement} */ (t.parentElement); return w.scrollWidth - w.clientWidth; });
  assert.ok(over <= 1, `the cloud table overflows by ${over} px`);
  await open(page, `${env.url}?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768&lang=fr`);
  await page.waitForSelector('#hw-full:not([hidden])');
  const full = await page.$eval('#hw-full', (e) => e.textContent || '');
  assert.match(full, /M3 Ultra GPU 80\scœurs · 512\sGo/, full);
});

// Issue 16: a core count is one figure with its unit ("GPU 80 cœurs", "GPU de 80 núcleos",
// "80 核 GPU"): on a phone no line ends on the number with the unit on the next line, on the
// Mac's device page (its name in the tab, the h1 and the tables) and on its pair page.
for (const lang of ['es', 'fr', 'zh']) {
  test(`issue 16: at 390 and 320 px (${lang}) a core count never breaks from its unit`, async () => {
    const unit = { es: 'núcleos', fr: 'cœurs', zh: '核' }[lang];
    for (const width of [390, 320]) {
      const page = await env.page({ viewport: { width, height: 844 }, isMobile: true, hasTouch: true });
      for (const q of ['?view=device&hw=apple-m3-ultra-80c-gpu-512gb&ram=0', '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=apple-m3-ultra-80c-gpu-512gb&ctx=32768']) {
        await open(page, `${env.url}${q}&lang=${lang}`);
        const found = await page.evaluate((u) => {
          const re = new RegExp(`(\\d+)(\\s)(${u})`, 'g');
          const out = [];
          const range = document.createRange();
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const el = n.parentElement;
            if (!el || !el.offsetParent || el.closest('option, select, title, script')) continue;
            const t = n.textContent || '';
            for (const m of t.matchAll(re)) {
              range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
              const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
              out.push({ text: m[0], nbsp: m[2] === '\u00a0', lines: tops.size });
            }
          }
          return out;
        }, unit);
        assert.ok(found.length >= 1, `${lang} ${width} ${q}: no core count on the page`);
        for (const f of found) {
          assert.ok(f.nbsp, `${lang} ${width}: "${f.text}" joined by a breaking space`);
          assert.equal(f.lines, 1, `${lang} ${width}: "${f.text}" on ${f.lines} lines`);
        }
      }
      await page.close();
    }
  });
}
