// @ts-check
// <will-it-fit>: the embeddable card. A custom element with its own shadow DOM (styles cannot
// leak in or out), themable through CSS custom properties (--wif-*) and ::part(). It computes
// through the same wasm core as the app; every widget on a page shares one module instance.
// Attribute changes are batched into one render per microtask. Attributes: model, hardware, quant,
// context, ram, kv-type, count, lang, draft (a catalog draft model for speculative decoding: its
// memory is the bar's own segment, memory.draft_bytes); show="cost" adds the cost per million tokens on that
// hardware (the core's `cost`, as the page and `willitfit cost` compute it) in market="US|EU|UK|CN";
// mtp="1" (speculative decoding on the model's own MTP layers, the page's switch);
// the colours are the host page's choice: light unless theme="dark" asks for dark, or
// theme="auto" for the reader's system (prefers-color-scheme); CSS only. A card that followed the
// system by default drew a dark card on a light host page.
// A model on the Hugging Face Hub: hf="owner/repo" (or any Hub link, or owner/repo:QUANT) with
// quant="Q4_K_M" or file="path/in/repo.gguf" in place of model; the widget reads the repo as the
// page does (web/hub.js: one API call and bounded Range reads of the headers the core asks for)
// and fails with the page's coded messages (hub.js hubErrorKey).
import { cost, estimate, hubLookup as readHub, list, WillitfitError } from './api.js';
import { gib, gibExact, perMillionText, pct, spreadText, times, tokens, tps } from './format.js';
import { deviceLabel, productLabel, scopedName } from './device-name.js';
import { wholeText } from './dom.js';
import { hubBase, hubErrorKey, modelFor } from './hub.js';
import { aside, dots, punctSpacing, STRINGS, t } from './i18n.js';

/**
 * Lookups shared by every widget on the page, by reference, quant and file: changing another
 * attribute (hardware, context) does not read the repo again.
 * @type {Map<string, Promise<any>>}
 */
const lookups = new Map();

/** The repo read for (hf, quant, file), once per page. @param {string} hf @param {string} quant @param {string} file */
function hubLookup(hf, quant, file) {
  const key = JSON.stringify([hf, quant, file]);
  let p = lookups.get(key);
  if (!p) {
    // Read beside the module: the headers are registered there and the estimates carry handles.
    p = readHub(hf, { base: hubBase(), quant: quant || undefined, file: file || undefined, timeoutMs: 20000 });
    p.catch(() => lookups.delete(key));   // a failure is tried again on the next render
    lookups.set(key, p);
  }
  return p;
}

const CSS = `
:host { display: block; max-width: 460px; margin: 10px 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --wif-bg: #ffffff; --wif-fg: #1c1d1f; --wif-muted: #5c6066; --wif-line: #dfe1e4; --wif-accent: #2457c5;
  --wif-fits: #1f7a3d; --wif-tight: #9a6700; --wif-offload: #b4541a; --wif-nofit: #b3261e;
  --wif-weights: #3b6fd8; --wif-kv: #1f9d8a; --wif-other: #9aa0a6; --wif-draft: #c0508a; }
:host([theme="dark"]) { --wif-bg: #1c1e21; --wif-fg: #e8e9ea; --wif-muted: #a3a8ad; --wif-line: #33363a; --wif-accent: #7aa2ff; }
@media (prefers-color-scheme: dark) {
  :host([theme="auto"]) { --wif-bg: #1c1e21; --wif-fg: #e8e9ea; --wif-muted: #a3a8ad; --wif-line: #33363a; --wif-accent: #7aa2ff; }
}
.card { background: var(--wif-bg); color: var(--wif-fg); border: 1px solid var(--wif-line); border-radius: 10px; padding: 12px 14px; }
.title { font-weight: 650; margin: 0 0 6px; overflow-wrap: anywhere; }
.whole { display: inline-block; max-width: 100%; }
.verdict { display: inline-block; color: #fff; border-radius: 6px; padding: 3px 9px; font-weight: 650; background: var(--wif-muted); }
.verdict:empty { display: none; }
.verdict[data-v="fits"] { background: var(--wif-fits); } .verdict[data-v="tight"] { background: var(--wif-tight); }
.verdict[data-v="offload"] { background: var(--wif-offload); } .verdict[data-v="no_fit"], .verdict[data-v="error"] { background: var(--wif-nofit); }
.approx { font-size: 12px; font-weight: 650; border: 1px dashed var(--wif-tight); border-radius: 999px; padding: 1px 8px; }
.approx[hidden] { display: none; }
.line { color: var(--wif-muted); margin: 8px 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.bar { position: relative; display: flex; height: 12px; border-radius: 4px; background: var(--wif-line); overflow: hidden; }
.seg { height: 100%; } .w { background: var(--wif-weights); } .k { background: var(--wif-kv); } .o { background: var(--wif-other); }
.d { background: var(--wif-draft); }
.limit { position: absolute; top: 0; bottom: 0; border-left: 2px solid var(--wif-fg); }
a { color: var(--wif-accent); }
.foot { margin-top: 8px; font-size: 12px; display: flex; justify-content: space-between; gap: 8px; }
`;

/** @type {CSSStyleSheet | null} */
let sheet = null;

export class WillItFitElement extends HTMLElement {
  static get observedAttributes() {
    return ['model', 'hardware', 'quant', 'context', 'lang', 'ram', 'kv-type', 'count', 'show', 'market', 'hf', 'file', 'draft', 'mtp'];
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
    const card = el('div', 'card');
    card.setAttribute('part', 'card');
    this.$title = el('p', 'title');
    this.$title.setAttribute('part', 'title');
    this.$verdict = el('span', 'verdict');
    this.$verdict.setAttribute('part', 'verdict');
    this.$approx = el('span', 'approx');
    this.$approx.setAttribute('part', 'approximate');
    this.$approx.hidden = true;
    this.$line = el('p', 'line');
    this.$bar = el('div', 'bar');
    this.$bar.setAttribute('part', 'bar');
    // Weights, cache, then compute buffers, overhead and projector (one colour: 'other'), then a
    // draft model's weights, cache and buffer (memory.draft_bytes) in its own colour.
    this.$segs = [el('div', 'seg w'), el('div', 'seg k'), el('div', 'seg o'), el('div', 'seg o'), el('div', 'seg o'), el('div', 'seg d')];
    this.$segs.forEach((x, i) => x.setAttribute('part', ['seg-weights', 'seg-kv', 'seg-compute', 'seg-overhead', 'seg-projector', 'seg-draft'][i]));
    this.$limit = el('div', 'limit');
    this.$bar.append(...this.$segs, this.$limit);
    const foot = el('div', 'foot');
    this.$link = /** @type {HTMLAnchorElement} */ (el('a', ''));
    this.$link.target = '_blank';
    this.$link.rel = 'noopener';
    this.$speed = el('span', '');
    foot.append(this.$speed, this.$link);
    this.$cost = el('p', 'line');
    this.$cost.setAttribute('part', 'cost');
    this.$cost.hidden = true;
    this.$notice = el('p', 'line');
    this.$notice.setAttribute('part', 'notice');
    this.$notice.hidden = true;
    card.append(this.$title, this.$verdict, ' ', this.$approx, this.$line, this.$bar, this.$cost, this.$notice, foot);
    root.append(card);
    this.pending = false;
    this.seq = 0;
    this.drawn = false;   // an estimate or an error is on the card (until then it says it is loading)
  }

  connectedCallback() { this.schedule(); }
  attributeChangedCallback() { this.schedule(); }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => { this.pending = false; this.render(); });
  }

  /**
   * The request this element's attributes describe; with hf, the model read from the Hub (the
   * chosen file's own header) and its quant.
   */
  async hubRequest() {
    const req = this.request();
    const hf = this.getAttribute('hf');
    if (!hf) return req;
    const found = await hubLookup(hf.slice(0, 400), this.getAttribute('quant') || '', this.getAttribute('file') || '');
    const row = found.repo.quants[found.repo.chosen];
    const m = modelFor(found, row);
    if (!m) throw new WillitfitError({ code: 'hub_no_plan', path: 'hf', message: `no plan for ${row ? row.label : hf}` });
    req.model = m;
    if (row.quant) req.quant = row.quant;
    else delete req.quant;
    if (found.repo.format === 'safetensors') req.engine = 'vllm';
    return req;
  }

  /** The request this element's attributes describe (hubRequest adds the Hub's model). */
  request() {
    const a = (/** @type {string} */ k) => this.getAttribute(k);
    /** @type {Record<string, unknown>} */
    const req = { model: a('model') || '', hardware: a('hardware') || '' };
    if (a('quant')) req.quant = a('quant');   // else the core's default for the engine
    const n = (/** @type {string | null} */ v) => (v === null || v === '' ? undefined : Number(v));
    if (a('context') !== null) req.context = n(a('context'));
    if (a('ram') !== null) req.ram_gib = n(a('ram'));
    if (a('count') !== null) req.count = n(a('count'));
    if (a('kv-type')) req.kv_type = a('kv-type');
    if (a('draft')) req.draft_model = a('draft');   // a draft model for speculative decoding (catalog id)
    if (a('mtp') === '1' || a('mtp') === 'true') req.mtp = true;   // the model's own MTP layers draft
    return req;
  }

  async render() {
    // A language the widget has no strings for (or that Intl cannot format, "xx-INVALID!!") falls
    // back to English, and the card says so instead of failing.
    const asked = this.getAttribute('lang') || 'en';
    const lang = Object.hasOwn(STRINGS, asked) ? asked : 'en';
    this.$notice.hidden = lang === asked;
    this.$notice.textContent = lang === asked ? '' : t('en', 'widget_lang_fallback', { 0: asked.slice(0, 40) });
    if (lang === asked) delete this.dataset.langFallback;
    else this.dataset.langFallback = asked.slice(0, 40);
    const base = this.request();
    const mine = ++this.seq;
    const hf = this.getAttribute('hf');
    const page = new URL('./index.html', import.meta.url);
    if (hf) {
      // The page reads the same repo: owner/repo:QUANT when a quant is asked for, else the file.
      const q = this.getAttribute('quant');
      page.searchParams.set('hf', q && /^[\w.-]+\/[\w.-]+$/.test(hf) ? `${hf}:${q}` : hf);
      const file = this.getAttribute('file');
      if (file) page.searchParams.set('file', file);
    } else {
      page.searchParams.set('model', String(base.model));
      if (base.quant) page.searchParams.set('quant', String(base.quant));
    }
    page.searchParams.set('hw', String(base.hardware));
    if (base.context) page.searchParams.set('ctx', String(base.context));
    // The same setup on the page: RAM, count and cache type too, or an offload card would open on
    // "does not fit".
    if (base.ram_gib) page.searchParams.set('ram', String(base.ram_gib));
    if (base.count) page.searchParams.set('count', String(base.count));
    if (base.kv_type) page.searchParams.set('kv', String(base.kv_type));
    if (base.draft_model) page.searchParams.set('draft', String(base.draft_model));
    if (base.mtp) page.searchParams.set('mtp', '1');
    page.searchParams.set('lang', lang);
    this.$link.href = page.href;
    this.$link.textContent = t(lang, 'widget_details');
    // Until the first estimate is drawn, the card says it is coming in the reader's language (the
    // host's fallback text is hidden once the element is defined).
    if (!this.drawn) {
      this.$title.textContent = t(lang, 'widget_loading');
      this.dataset.loading = '';
    }
    try {
      const req = await this.hubRequest();
      if (mine !== this.seq) return;
      const r = await estimate(req);
      if (mine !== this.seq) return;
      const m = r.memory;
      this.$line.removeAttribute('title');
      delete this.dataset.code;
      // A draft model is named in the title (the bar's pink part is its memory), as on the page's setup line.
      const draft = r.speculative && r.speculative.draft ? t(lang, 'setup_draft', { 0: String(r.speculative.draft.name || r.speculative.draft.id) }) : '';
      // The device named as the page's setup line names it (views/shared.js shownName): the product
      // label, else the name with the vendor's size said once ("NVIDIA H20 · 141 GB").
      const hw = productLabel(r.hardware, lang) ?? (r.hardware.name_base ? deviceLabel(r.hardware, lang) : scopedName(r.hardware, lang));
      // A name never parts between its series and its number ("RTX" / "4090"): those pieces are whole.
      this.$title.replaceChildren(wholeText(dots(lang, [r.model.name, r.quant.id, `${r.hardware.count > 1 ? `${times(r.hardware.count, lang)} ` : ''}${hw}`, draft])));
      this.$verdict.dataset.v = r.verdict;
      this.$verdict.textContent = t(lang, `verdict_${r.verdict}`);
      // A device whose size is the vendor's own figure (the core's hardware.memory_basis): the page's
      // tag beside the memory, its sentence (the low end the driver may report, on which the verdict
      // above is judged) in the line's tooltip; every number the core's.
      const basis = r.hardware.memory_basis && r.hardware.memory_basis.code === 'vendor_figure' && r.hardware.memory_basis.values ? r.hardware.memory_basis.values : null;
      this.$line.textContent = dots(lang, [aside(lang, `${gib(m.total_bytes, lang)} / ${gib(m.usable_bytes, lang)}`, pct(m.utilization, lang)), basis ? t(lang, 'basis_mark') : '', t(lang, 'w_context', { 0: tokens(r.settings.context_requested, lang) })]);
      if (basis) this.$line.title = t(lang, 'basis_vendor_figure', { figure: gibExact(r.hardware.memory_gib * 1024 ** 3, lang), less: pct(basis.less_share, lang), low: gibExact(basis.low_gib * 1024 ** 3, lang) });
      this.$line.dataset.basis = basis ? 'vendor_figure' : '';
      const scale = Math.max(m.total_bytes, m.usable_bytes) || 1;
      const parts = [m.weights_bytes, m.kv_cache_bytes, m.compute_bytes, m.overhead_bytes, m.projector_bytes || 0, m.draft_bytes || 0];
      parts.forEach((b, i) => { this.$segs[i].style.width = `${(100 * b) / scale}%`; });
      this.$limit.style.left = `${(100 * m.usable_bytes) / scale}%`;
      // The page's decode card: the same field (speed.decode_tps, the speculative figure when a
      // draft model or MTP is on) and its range, written by the same function.
      const sp = r.speed;
      // A bandwidth public sources do not settle (hardware.uncertain) is said beside the speed.
      const unsure = r.hardware.uncertain && r.hardware.uncertain.bandwidth_gbs ? t(lang, 'unc_mark') : '';
      this.$speed.textContent = sp && Number.isFinite(sp.decode_tps)
        ? dots(lang, [spreadText({ v: sp.decode_tps, lo: sp.decode_tps_low ?? NaN, hi: sp.decode_tps_high ?? NaN }, lang), unsure]) : '';
      this.$speed.dataset.v = sp && Number.isFinite(sp.decode_tps) ? String(sp.decode_tps) : '';
      // Speculative decoding on: the core's workload and the plain figure, as the page's note says.
      const ds = sp && sp.decode_speculative;
      this.$speed.title = ds && ds.plain_decode_tps > 0 ? t(lang, 'decode_note_spec', { how: t(lang, ds.kind === 'draft' ? 'decode_how_draft' : 'decode_how_mtp'),
        workload: t(lang, `workload_${ds.workload}`), plain: tps(ds.plain_decode_tps, lang) }) : '';
      this.$approx.hidden = !r.model.approximate;
      this.$approx.textContent = r.model.approximate ? t(lang, 'approx_badge') : '';
      await this.renderCost(r, req, lang, mine);
      delete this.dataset.code;
      this.dataset.verdict = r.verdict;
      this.drawn = true;
      delete this.dataset.loading;
    } catch (e) {
      if (mine !== this.seq) return;
      this.drawn = true;
      delete this.dataset.loading;
      // The reader sees what went wrong in their language (the page's err_* strings); the core's
      // code stays in data-code and its English message in the tooltip, for the blog's author.
      const code = e instanceof WillitfitError ? e.code : '';
      const path = e instanceof WillitfitError ? String(e.path || '') : '';
      const known = code ? t(lang, `err_${code}`, { path }) : '';
      this.$title.textContent = t(lang, 'error');
      this.$verdict.dataset.v = 'error';
      const err = /** @type {any} */ (e);
      const coded = e instanceof WillitfitError || (err && err.name === 'HubError');
      this.$verdict.textContent = t(lang, 'error');
      // A Hub lookup's failure reads as on the page (hub_err_* in the reader's language).
      const hk = hf && coded ? hubErrorKey(err) : null;
      const said = hk ? t(lang, hk.key, hk.values) : '';
      this.$line.textContent = hk && said !== hk.key ? said : known && known !== `err_${code}` ? known : t(lang, 'err_other', { path });
      this.$line.title = e instanceof Error ? e.message : String(e);
      this.$line.dataset.basis = '';
      this.dataset.code = coded ? String(err.code) : 'error';
      this.$speed.textContent = '';
      this.$approx.hidden = true;
      this.$cost.hidden = true;
      this.dataset.verdict = 'error';
    }
  }

  /**
   * With show="cost": the cost per million tokens on this hardware, from the core's `cost` of the
   * same request (the core estimates the decode speed itself): the request the page and
   * `willitfit cost --model …` make (the core's default hours a day and amortisation, the
   * market's electricity price).
   * @param {any} r @param {Record<string, unknown>} req @param {string} lang @param {number} mine
   */
  async renderCost(r, req, lang, mine) {
    const want = (this.getAttribute('show') || '').split(/[\s,]+/).includes('cost');
    const decode = r.speed && r.speed.decode_tps;
    if (!want || !(decode > 0)) { this.$cost.hidden = true; delete this.dataset.costUsd; return; }
    /** @type {Record<string, unknown>} */
    const q = { ...req };
    if (this.getAttribute('market')) q.market = this.getAttribute('market');   // else the core's default
    const [c, markets] = await Promise.all([cost(q), list('markets')]);
    if (mine !== this.seq) return;
    const mk = markets.find((/** @type {any} */ m) => m.id === c.electricity.market) || null;
    // No purchase price or power figure: the core has no owned cost (null), and none is shown.
    if (!c.owned.per_million_tokens_usd) { this.$cost.hidden = true; delete this.dataset.costUsd; return; }
    const usd = c.owned.per_million_tokens_usd.single;
    // With the core's range where it estimated the speed, as the page's cost card writes it.
    this.$cost.textContent = dots(lang, [punctSpacing(lang, `${perMillionText(c.owned.per_million_tokens_usd, mk, lang)} ${t(lang, 'cost_per_mtok')}`), t(lang, 'cost_owned')]);
    this.$cost.hidden = false;
    this.dataset.costUsd = String(usd);
  }
}

/** @param {string} tag @param {string} cls */
function el(tag, cls) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}
