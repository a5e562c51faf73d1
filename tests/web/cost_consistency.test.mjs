// Costs agree across views (issue 9): for the same inputs, the page's cost per million tokens and
// break-even, the cloud table's per-million column and the cheapest-cloud card, the
// <will-it-fit show="cost"> widget's cost line and `willitfit cost --json` give the same numbers,
// each with the core's range. The decode speed they all use is the CLI estimate's own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { open, root, setup } from './helpers.mjs';

const { money, spreadText } = await import(path.join(root, 'dist', 'format.js'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env.close(); });

/** @param {...string} args */
function cli(...args) {
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), [...args, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}

const SETUP = ['--model', 'zai-org/GLM-4.5-Air', '--quant', 'Q4_K_M', '--context', '8192', '--kv-type', 'f16',
  '--hardware', 'nvidia-rtx-4090', '--count', '1', '--ram-gib', '64'];
const PAGE = '?model=zai-org/GLM-4.5-Air&quant=Q4_K_M&hw=nvidia-rtx-4090&ctx=8192&kv=f16&count=1&ram=64&lang=en';

/** The CLI's cost document for a market, with the CLI estimate's decode speed. @param {string} market */
function cliCost(market) {
  // The cost call estimates the model itself, as the page's does: the same decode as the
  // estimate's, with its range.
  const sp = cli('estimate', ...SETUP).speed;
  assert.ok(sp.decode_tps > 0);
  const c = cli('cost', ...SETUP, '--market', market, '--hours-per-day', '8', '--amortization-months', '36');
  same(c.owned.decode_tps, sp.decode_tps, 'the cost call\'s decode');
  same(c.owned.decode_tps_low, sp.decode_tps_low, 'the low end of its range');
  return c;
}

/** Relative closeness for numbers that went through JSON on both sides. */
function same(a, b, what) {
  assert.ok(Number.isFinite(a) && Number.isFinite(b), `${what}: ${a} vs ${b}`);
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: page/widget ${a} vs CLI ${b}`);
}

test('the page and the CLI give the same cost per million tokens and break-even, in US dollars and in euros', async () => {
  const page = await env.page();
  await open(page, env.url + PAGE);
  for (const market of ['US', 'EU']) {
    const c = cliCost(market);
    const mk = cli('list', 'markets').markets.find((m) => m.id === market);
    if (market !== 'US') await page.selectOption('#market', market);
    const want = String(c.owned.per_million_tokens_usd.single);
    // Wait until the page shows the figures for this market (its cost request re-runs on a change).
    await page.waitForFunction(([w, cur]) => {
      const el = document.querySelector('#cost-owned-mtok');
      return el && el.dataset.usd && el.textContent.includes(cur === 'EUR' ? '€' : '$') && Math.abs(Number(el.dataset.usd) - Number(w)) < 1e-6 * Number(w);
    }, [want, mk.currency]);
    const got = await page.evaluate(() => ({
      mtok: Number(document.querySelector('#cost-owned-mtok').dataset.usd),
      mtokText: document.querySelector('#cost-owned-mtok').textContent,
      elec: Number(document.querySelector('#cost-elec-mtok').dataset.usd),
      months: document.querySelector('#rvb-break-even').dataset.months,
      elecMonth: Number(document.querySelector('#rvb-elec').dataset.usd),
    }));
    same(got.mtok, c.owned.per_million_tokens_usd.single, `${market} owned $/Mtok`);
    same(got.elec, c.owned.electricity_only_per_million_tokens_usd.single, `${market} electricity-only $/Mtok`);
    same(got.elecMonth, c.owned.electricity_per_month_usd, `${market} electricity per month`);
    // Rent vs buy serves the same tokens a month (the core's basis): an offloaded GLM-4.5-Air at
    // about 10 tok/s is matched by a faster instance rented an hour or two a day, so buying may
    // never pay off; the page says what the core says either way.
    assert.equal(c.rent_vs_buy.basis, 'same_tokens');
    if (c.rent_vs_buy.break_even_months === null) assert.equal(got.months, 'never', `${market} break-even`);
    else same(Number(got.months), c.rent_vs_buy.break_even_months, `${market} break-even months`);
    // What a person reads is the CLI's number in the market's currency, with the CLI's range
    // (from the decode estimate's: the fast end is the cheap end).
    const pm = c.owned.per_million_tokens_usd;
    assert.ok(pm.single_low > 0 && pm.single_low < pm.single && pm.single < pm.single_high, JSON.stringify(pm));
    assert.equal(got.mtokText, `~${money(pm.single, mk, 'en')} (${money(pm.single_low, mk, 'en')}–\u2060${money(pm.single_high, mk, 'en')})`);
    // The cloud table's per-million column and the cheapest-cloud card say the CLI's figure of
    // each offer with its range (the decode estimate on that instance), and the card's sentence
    // the offer's speed with its range.
    const range = (/** @type {any} */ x) => `~${money(x.single, mk, 'en')} (${money(x.single_low, mk, 'en')}–\u2060${money(x.single_high, mk, 'en')})`;
    const byOffer = new Map(c.clouds.map((o) => [o.id, o]));
    const cells = await page.$$eval('#cloud-table tbody tr', (trs) => trs.map((tr) => ({ id: tr.dataset.offer, usd: tr.children[7].dataset.usd, text: tr.children[7].textContent })));
    assert.ok(cells.length >= 3, `${cells.length} offers`);
    let ranged = 0;
    for (const cell of cells) {
      const o = byOffer.get(cell.id);
      assert.ok(o, cell.id);
      if (!o.per_million_tokens_usd) { assert.equal(cell.usd, undefined, cell.id); continue; }
      const opm = o.per_million_tokens_usd;
      same(Number(cell.usd), opm.basis_usd, `${market} ${cell.id} $/Mtok`);
      assert.equal(opm.basis_usd, opm.single, 'one user is the basis here');
      assert.ok(opm.single_low < opm.single && opm.single < opm.single_high, JSON.stringify(opm));
      assert.equal(cell.text, range(opm), `${market} ${cell.id}`);
      ranged++;
    }
    assert.ok(ranged >= 3, `${ranged} offers with a range`);
    const best = byOffer.get(c.cheapest_offer.id);
    assert.equal(await page.getAttribute('#cost-cloud-mtok', 'data-offer'), c.cheapest_offer.id);
    assert.equal(await page.textContent('#cost-cloud-mtok'), range(best.per_million_tokens_usd));
    const bp = best.per_million_tokens_usd;
    const note = await page.textContent('#cost-cloud-mtok + .s');
    assert.ok(note.includes(` and ${spreadText({ v: bp.decode_tps, lo: bp.decode_tps_low, hi: bp.decode_tps_high }, 'en')}.`), note);
  }
  assert.deepEqual(page.problems, []);
});

test('the widget with show="cost" gives the CLI\'s cost per million tokens', async (t) => {
  const c = cliCost('US');
  // A blog page on another origin embeds the widget, as a person would.
  const html = `<!doctype html><html><body>
    <will-it-fit id="w" model="zai-org/GLM-4.5-Air" hardware="nvidia-rtx-4090" quant="Q4_K_M" context="8192" kv-type="f16" count="1" ram="64" show="cost">GLM-4.5-Air on an RTX 4090</will-it-fit>
    <script type="module" src="${env.url}widget.js"></script></body></html>`;
  const host = http.createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }); res.end(html); });
  await new Promise((r) => host.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => host.close(r)));
  const page = await env.page();
  await page.goto(`http://localhost:${host.address().port}/post.html`);
  await page.waitForFunction(() => document.querySelector('#w')?.dataset.costUsd);
  const usd = Number(await page.getAttribute('#w', 'data-cost-usd'));
  same(usd, c.owned.per_million_tokens_usd.single, 'widget owned $/Mtok');
  const line = await page.evaluate(() => document.querySelector('#w').shadowRoot.querySelector('[part="cost"]').textContent);
  // With the core's range, as the page's card writes it.
  const pm = c.owned.per_million_tokens_usd, usd1 = { currency: 'USD', usd_per_unit: 1 };
  assert.ok(line.startsWith(`~${money(pm.single, usd1, 'en')} (${money(pm.single_low, usd1, 'en')}–\u2060${money(pm.single_high, usd1, 'en')}) `), line);
});
