// A prerendered pair page (scripts/prerender.mjs) in Chromium under the real server and its CSP:
// its inline style block (the first frame's rules of styles.css and the bars' widths, named by
// hash in the page's <meta> policy and in the header) is applied with no CSP violation; it
// styles every element of the first frame exactly as the whole stylesheet does; a block whose
// bytes no longer match its hash is refused (so the first check can fail); and the app takes
// the page over with no violation either.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { root, setup } from './helpers.mjs';

const dist = path.join(root, 'dist');
const PAGES = ['en/glm-4.5-air/mac-studio-m3-ultra-512gb/', 'zh/glm-4.5-air/nvidia-rtx-4090/', 'fr/glm-4.5-air/macbook-pro-14-inch-m4-max-128gb/'];

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

/** Collect CSP violations (the event, in the page) from the very start of every document. */
async function watchViolations(page) {
  await page.addInitScript(() => {
    /** @type {any} */ (window).__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      /** @type {any} */ (window).__violations.push(`${e.violatedDirective} ${e.blockedURI || 'inline'} ${e.sample || ''}`);
    });
  });
  page.cspConsole = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) page.cspConsole.push(m.text()); });
}

/**
 * Every element the first frame draws (as scripts/critical-css.mjs firstFrameElements: in
 * document order up to the stylesheet links where the parser pauses, in the answer before the
 * table of where the memory goes, without the content of hidden elements and of closed
 * <details>), with its box and its computed style, and the ::before and ::after of each, laid out
 * as in that frame: what follows is removed first.
 */
function firstFrame() {
  const first = document.body.querySelector('link[rel="stylesheet"]');
  if (!first) throw new Error('no stylesheet in the body (where the parser pauses)');
  let stop = /** @type {Element} */ (first);
  while (stop.nextElementSibling instanceof HTMLLinkElement) stop = stop.nextElementSibling;
  // The document as the first frame has it: nothing after the point where the parser pauses
  // (the stylesheet links there are kept, they are what is compared).
  for (let e = /** @type {Element | null} */ (stop); e && e !== document.documentElement; e = e.parentElement)
    while (e.nextSibling) e.nextSibling.remove();
  const out = [];
  const undrawn = (e) => {
    for (let p = e.parentElement; p; p = p.parentElement) {
      if (p.hasAttribute('hidden')) return true;
      if (p.tagName === 'DETAILS' && !p.hasAttribute('open')) {
        const s = e.closest('summary');
        if (!s || s.parentElement !== p) return true;
      }
    }
    return false;
  };
  const all = [...document.querySelectorAll('*')];
  for (const [i, e] of all.entries()) {
    if (!undrawn(e)) {
      const style = (/** @type {string | null} */ pseudo) => {
        const cs = getComputedStyle(e, pseudo);
        // A ::before or ::after whose content is none or normal is not generated: it draws
        // nothing, so its content is all there is to compare (its other properties, computed
        // afresh on every read for a box that does not exist, were most of this test's time).
        if (pseudo && (cs.content === 'none' || cs.content === 'normal')) return { content: cs.content };
        const o = {};
        for (let k = 0; k < cs.length; k++) o[cs[k]] = cs.getPropertyValue(cs[k]);
        return o;
      };
      const r = e.getBoundingClientRect();
      out.push({ el: `${i} ${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`,
        box: [r.x, r.y, r.width, r.height].map((v) => Math.round(v * 10) / 10), style: style(null), before: style('::before'), after: style('::after') });
    }
    if (e === stop) break;
  }
  return out;
}

/**
 * The first frame's elements of a page as built (the app's module refused, so it does not take
 * the page over; scripts stay on for the violation listener), with `block` (a pattern) refused.
 */
async function staticFrame(url, width, colorScheme, block) {
  const page = await env.page({ viewport: { width, height: 900 }, colorScheme });
  await watchViolations(page);
  await page.route(/\/app\.js$/, (r) => r.abort());
  if (block) await page.route(block, (r) => r.abort());
  await page.goto(url);
  await page.waitForLoadState('load');
  const frame = await page.evaluate(firstFrame);
  const violations = await page.evaluate(() => /** @type {any} */ (window).__violations);
  // The stylesheets that applied (a refused one is still listed, its rules unreadable).
  const sheets = await page.evaluate(() => [...document.styleSheets].filter((s) => { try { return s.cssRules.length > 0; } catch { return false; } })
    .map((s) => s.href || 'inline'));
  assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined, 'the app did not start');
  await page.context().close();
  return { frame, violations, sheets, csp: page.cspConsole };
}

test('the pages under test were built', () => {
  for (const p of PAGES) assert.ok(fs.existsSync(path.join(dist, p, 'index.html')), `${p} (bash scripts/build.sh draws it)`);
});

for (const [width, colorScheme] of /** @type {const} */ ([[1280, 'light'], [390, 'light'], [390, 'dark']])) {
  test(`at ${width} px, ${colorScheme}, the inline block alone styles the first frame exactly as the whole stylesheet does, with no CSP violation`, async () => {
    for (const p of PAGES) {
      // The header the server sends names the block too (the browser applies both policies).
      const res = await fetch(env.url + p);
      const html = await res.text();
      const hash = /style-src 'self' ('sha256-[^']+')/.exec(res.headers.get('content-security-policy') || '')?.[1];
      assert.ok(hash && html.includes(hash), `${p}: the header names the page's block`);

      const whole = await staticFrame(env.url + p, width, colorScheme, null);
      // styles.css and the chart's stylesheet refused: what the first paint has before they load.
      const inline = await staticFrame(env.url + p, width, colorScheme, /(styles|uPlot\.min)\.css$/);
      assert.deepEqual(whole.violations, [], `${p}: no CSP violation`);
      assert.deepEqual(whole.csp, [], p);
      assert.deepEqual(inline.violations, [], p);
      assert.deepEqual(whole.sheets.filter((s) => s !== 'inline').length, 2, `${p}: styles.css and uPlot.min.css loaded`);
      assert.deepEqual(inline.sheets, ['inline'], `${p}: only the inline block`);
      assert.ok(whole.frame.length > 100, `${p}: the first frame draws the header and the answer (${whole.frame.length} elements)`);
      assert.deepEqual(inline.frame.map((x) => x.el), whole.frame.map((x) => x.el), p);
      for (const [i, w] of whole.frame.entries()) {
        const s = inline.frame[i];
        if (JSON.stringify(s) === JSON.stringify(w)) continue;  // the same: no property to name
        assert.deepEqual(s.box, w.box, `${p} ${w.el}: box`);
        for (const part of /** @type {const} */ (['style', 'before', 'after'])) {
          const diff = Object.keys(w[part]).filter((k) => w[part][k] !== s[part][k]).map((k) => `${k}: ${s[part][k]} (inline) vs ${w[part][k]}`);
          assert.deepEqual(diff, [], `${p} ${w.el} ${part}`);
        }
      }
    }
  });
}

test('an inline block whose bytes do not match the hash its page names is refused (one byte changed)', async () => {
  const p = PAGES[0];
  const page = await env.page();
  await watchViolations(page);
  await page.route(/\/app\.js$/, (r) => r.abort());
  await page.route(env.url + p, async (r) => {
    const res = await r.fetch();
    const body = (await res.text()).replace('.verdict{', '.verdict {');
    await r.fulfill({ response: res, body });
  });
  await page.route(/(styles|uPlot\.min)\.css$/, (r) => r.abort());
  await page.goto(env.url + p);
  await page.waitForLoadState('load');
  const violations = await page.evaluate(() => /** @type {any} */ (window).__violations);
  assert.ok(violations.some((v) => /^style-src/.test(v)), `a style-src violation is reported (${violations})`);
  // Nothing of the block applies: the verdict keeps the browser's own look.
  assert.equal(await page.$eval('#verdict', (e) => getComputedStyle(e).backgroundColor), 'rgba(0, 0, 0, 0)');
  await page.context().close();
});

// The page of a setup that does not fit (GLM-4.5 Air on one RTX 4090): the take-over draws the
// same boxes the markup has, so nothing on the screen moves (the layout shifts Chromium reports,
// summed: the tabs named for the model and the device, and the line under the verdict of what
// makes it run, were put away and drawn again: 0.008 and 0.050 in this window, 1.05 for the
// English page at 1280 × 720).
test('the app takes a pair page over with no CSP violation and no layout shift, and the page keeps its stylesheets', async () => {
  const page = await env.page();
  await watchViolations(page);
  await page.addInitScript(() => {
    /** @type {any} */ (window).__shifts = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) /** @type {any} */ (window).__shifts.push(/** @type {any} */ (e).value); })
      .observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(env.url + PAGES[1]);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 180000 });
  await page.waitForSelector('#matrix table');
  // "Make it fit" has been drawn again by the app (its list), the line under the verdict with it.
  await page.waitForSelector('#fit-list li');
  assert.equal(await page.$eval('#verdict', (e) => /** @type {HTMLElement} */ (e).dataset.verdict), 'no_fit');
  assert.equal(await page.$eval('#verdict-fix', (e) => /** @type {HTMLElement} */ (e).hidden), false);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const shift = await page.evaluate(() => /** @type {any} */ (window).__shifts.reduce((a, v) => a + v, 0));
  assert.ok(shift < 0.001, `the take-over moves what is on the screen: cumulative layout shift ${shift}`);
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__violations), []);
  assert.deepEqual(page.cspConsole, []);
  assert.deepEqual(page.problems, []);
  assert.equal((await page.evaluate(() => [...document.styleSheets].filter((s) => s.href && /styles\.css$/.test(s.href)).length)), 1);
  // Another format recomputes and the page stays styled (the stylesheets are not replaced).
  const before = await page.textContent('#c-total');
  await page.selectOption('#quant', 'Q8_0');
  await page.waitForFunction((b) => document.querySelector('#c-total')?.textContent !== b, before);
  assert.notEqual(await page.$eval('#verdict', (e) => getComputedStyle(e).backgroundColor), 'rgba(0, 0, 0, 0)');
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__violations), []);
  await page.context().close();
});

// Every font size and weight the first screen draws is a font strike Chromium must look up (a
// synchronous request from the renderer to the browser process on Linux) and rasterize glyphs
// for before its first paint: the type scale (web/styles.css) keeps the first screen of a pair
// page, at desktop and phone width, in every language, to four strikes (size × bold or not).
test('the first screen of a pair page draws its text in at most four font strikes', async () => {
  for (const p of PAGES) for (const width of [1280, 390]) {
    const page = await env.page();
    await page.setViewportSize({ width, height: width === 1280 ? 720 : 844 });
    await page.route(/\/(boot|app)\.js$/, (r) => r.abort());
    await page.goto(env.url + p);
    await page.waitForLoadState('load');
    const strikes = await page.evaluate(() => {
      const out = new Map();
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const el = n.parentElement;
        if (!el || !n.textContent?.trim()) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.bottom <= 0 || r.top >= innerHeight || el.closest('.sr')) continue;
        const cs = getComputedStyle(el);
        const key = `${cs.fontSize} ${Number(cs.fontWeight) >= 600 ? 'bold' : 'normal'}`;
        if (!out.has(key)) out.set(key, `${el.tagName.toLowerCase()}.${el.className} "${n.textContent.trim().slice(0, 20)}"`);
      }
      return [...out].map(([k, v]) => `${k}: ${v}`);
    });
    assert.ok(strikes.length >= 2, `${p} at ${width}: the check sees text (${strikes})`);
    assert.ok(strikes.length <= 4, `${p} at ${width} px: ${strikes.length} strikes on the first screen:\n${strikes.join('\n')}`);
    await page.context().close();
  }
});

// Until the app has taken a pair page over, the sections below the answer that are far from the
// screen are not laid out (content-visibility: auto, web/styles.css): the rest of the page that
// is parsed right after the first frame does not take the cores that frame is rasterized and
// shown on. Once the app is there every section is drawn (a full-page screenshot holds them all).
test('before the app takes a pair page over, sections far below the answer are skipped; after, none is', async () => {
  const skipped = () => [...document.querySelectorAll('#view-main > .wide > section.panel:not([hidden]) h2')]
    .map((h) => `${h.textContent} ${h.checkVisibility({ contentVisibilityAuto: true }) ? 'drawn' : 'skipped'}`);
  const page = await env.page();
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.route(/\/(boot|app)\.js$/, (r) => r.abort());
  await page.goto(env.url + PAGES[0]);
  await page.waitForLoadState('load');
  const before = await page.evaluate(skipped);
  assert.ok(before.length >= 5, `the page has its sections (${before})`);
  // "Embed this" holds its place, unseen, until the app runs (it was hidden, and the page below it
  // moved down by its height when the app showed it).
  const embedBox = (/** @type {any} */ p) => p.$eval('#embed-open', (/** @type {HTMLElement} */ e) => ({ h: e.getBoundingClientRect().height, seen: getComputedStyle(e).visibility }));
  const embedHeld = await embedBox(page);
  assert.ok(embedHeld.h > 20 && embedHeld.seen === 'hidden', JSON.stringify(embedHeld));
  assert.ok(before.at(-1)?.endsWith('skipped'), `the last section is not laid out before the app is there:\n${before.join('\n')}`);
  // Near the screen, a section is drawn as usual.
  await page.evaluate(() => document.querySelector('#view-main > .wide > section.panel:not([hidden]):last-of-type')?.scrollIntoView());
  await page.waitForFunction(() => document.querySelector('#view-main > .wide > section.panel:not([hidden]):last-of-type h2')?.checkVisibility({ contentVisibilityAuto: true }));
  // The memory chart's section on a phone as the markup holds it, before the app draws the chart.
  const chartBox = async (/** @type {any} */ p) => {
    await p.setViewportSize({ width: 390, height: 844 });
    await p.evaluate(() => document.querySelector('#chart-section')?.scrollIntoView());
    await p.waitForFunction(() => document.querySelector('#chart-section h2')?.checkVisibility({ contentVisibilityAuto: true }));
    return p.$eval('#chart-section', (/** @type {HTMLElement} */ e) => e.getBoundingClientRect().height);
  };
  const held = await chartBox(page);
  // The picks cards on a phone as the markup holds them: their names wrap as the app's do (a name
  // with a hyphen, "GMKtec EVO-X2", broke at it in the static text and was kept whole by the app:
  // the card grew by a line, 23 px, when the app took over).
  const picksBox = async (/** @type {any} */ p) => {
    await p.evaluate(() => document.querySelector('#picks-section')?.scrollIntoView());
    await p.waitForFunction(() => document.querySelector('#picks-section h2')?.checkVisibility({ contentVisibilityAuto: true }));
    return p.$$eval('#picks-cards > .card', (cs) => cs.map((c) => Math.round(c.getBoundingClientRect().height)));
  };
  const picksHeld = await picksBox(page);
  assert.ok(picksHeld.length >= 2, `the markup has its picks (${picksHeld})`);
  await page.context().close();

  const app = await env.page();
  await app.setViewportSize({ width: 1280, height: 720 });
  await app.goto(env.url + PAGES[0]);
  await app.waitForSelector('body[data-ready="true"]', { timeout: 180000 });
  const after = await app.evaluate(skipped);
  assert.deepEqual(after.filter((s) => s.endsWith('skipped')), [], after.join('\n'));
  const embedShown = await embedBox(app);
  assert.ok(Math.abs(embedShown.h - embedHeld.h) < 1 && embedShown.seen === 'visible', `"Embed this": ${JSON.stringify(embedHeld)} in the markup, ${JSON.stringify(embedShown)} with the app`);
  // Drawn by the app on the phone, the chart and its legend (two lines there) fill the box the
  // markup held: nothing below it moves (it was 18 px taller).
  const drawn = await chartBox(app);
  await app.waitForSelector('#chart canvas');
  await app.waitForFunction(() => (document.querySelector('#chart .u-legend')?.getBoundingClientRect().height ?? 0) > 0);
  const legendRows = await app.$eval('#chart .u-legend', (e) => new Set([...e.querySelectorAll('.u-series')].filter((s) => /** @type {HTMLElement} */ (s).offsetParent).map((s) => Math.round(s.getBoundingClientRect().top))).size);
  assert.ok(legendRows >= 2, `the legend wraps on a phone, the case this checks (${legendRows} line)`);
  const drawnNow = await app.$eval('#chart-section', (/** @type {HTMLElement} */ e) => e.getBoundingClientRect().height);
  assert.ok(Math.abs(drawnNow - held) < 1 && Math.abs(drawn - held) < 1, `the chart's section: ${held} px in the markup, ${drawnNow} px drawn`);
  await app.waitForFunction(() => !document.querySelector('#picks-cards [data-pending="true"]'));
  assert.deepEqual(await picksBox(app), picksHeld, 'the picks cards keep their heights when the app draws them');
  await app.context().close();
});
