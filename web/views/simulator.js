// @ts-check
// The live speed simulator: press Start, wait the estimated time to first token for the chosen
// prompt length, then watch placeholder tokens arrive at the estimated decode rate, with the
// elapsed time, the token count and the measured rate. Both figures come from one estimate with
// `prompt` set and the view's images and audio (speed.first_token.ms, the whole prompt's first
// token, or speed.ttft_ms where the core does not model the media and says so; speed.decode_tps);
// the page only keeps time and says what the first token includes. With
// prefers-reduced-motion the counters still run but the text does not stream. The prompt lengths
// offered, and the one first chosen, are the core's for the request's context (defaults
// `simulator`): never a prompt the context cannot hold.
import { call, estimate } from '../client.js';
import { request } from '../catalog.js';
import { byId, fill, h, setText } from '../dom.js';
import { ms, num, tokens, tps } from '../format.js';
import { clauses, sentences, t } from '../i18n.js';
import { state } from '../state.js';
import { firstTokenWords, speedOf } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** The prompt the person chose (kept while the core still offers it), or 0 for the core's. */
let chosen = 0;
/** The prompt lengths offered for the current context: {prompts, prompt} from the core. @type {{prompts: number[], prompt: number} | null} */
let offer = null;
/** @type {Map<number, Promise<{prompts: number[], prompt: number}>>} */
const offers = new Map();
/** The core's simulator lengths for a context (asked once per context). @param {number} ctx */
function offerFor(ctx) {
  let p = offers.get(ctx);
  if (!p) {
    p = call('defaults', { context: ctx }).then((/** @type {any} */ d) => d.simulator);
    p.catch(() => offers.delete(ctx));
    offers.set(ctx, p);
  }
  return p;
}
/** The prompt the estimate is asked for: the person's choice if offered, else the core's. */
const prompt = () => (offer && offer.prompts.includes(chosen) ? chosen : offer ? offer.prompt : 0);
/** The figures for the current view and prompt: {ttft_ms, decode_tps, speed} or null. */
let target = /** @type {{ttft_ms: number, decode_tps: number, speed: any} | null} */ (null);
let seq = 0;
/** The estimate the controls belong to (a prompt change asks again for it). @type {any} */
let lastView = null;

// A running simulation: its start time and animation handle.
let started = 0;
let handle = 0;
let shown = 0;
let firstAt = NaN;

/** Placeholder "words" of different widths: clearly not text, and the same in every language. */
const WORDS = ['▆▆▆', '▆▆', '▆▆▆▆▆', '▆', '▆▆▆▆', '▆▆', '▆▆▆▆▆▆', '▆▆▆'];

const reduced = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

/** @param {any} r the estimate of the view */
export function renderSimulator(r) {
  lastView = r;
  const sec = byId('plug-sim');
  if (!r.speed || !(r.speed.decode_tps > 0)) { stop(false); sec.hidden = true; return; }
  sec.hidden = false;
  ensureControls();
  stop(false);
  const mine = ++seq;
  target = null;
  setStatus(T('sim_idle'));
  paintTarget();
  const req = request();
  offerFor(Number(req.context) || 0).then((o) => {
    if (mine !== seq) return null;
    offer = o;
    ensureControls();
    return estimate({ ...req, prompt: prompt() });
  }).then((x) => {
    if (!x || mine !== seq) return;
    const s = x.speed;
    const first = speedOf(x)?.ttft;
    target = s && s.decode_tps > 0 && first && first.v >= 0 ? { ttft_ms: first.v, decode_tps: s.decode_tps, speed: s } : null;
    paintTarget();
  }).catch(() => { if (mine === seq) { target = null; paintTarget(); } });
}

function paintTarget() {
  const L = state.lang;
  const box = byId('sim-target');
  const btn = /** @type {HTMLButtonElement} */ (byId('sim-start'));
  btn.disabled = !target;
  if (!target) { setText(box, '…'); delete box.dataset.tps; delete box.dataset.ttft; delete box.dataset.code; return; }
  const w = firstTokenWords(target.speed, L);
  setText(box, clauses(L, [T('sim_target', { tps: tps(target.decode_tps, L), ttft: ms(target.ttft_ms, L) }), w ? w.clause : '', w ? w.exceeds : '']));
  box.dataset.tps = String(target.decode_tps);
  box.dataset.ttft = String(target.ttft_ms);
  if (w) box.dataset.code = w.code; else delete box.dataset.code;
}

function ensureControls() {
  const box = byId('sim-body');
  if (!box.firstChild) {
    const sel = h('select', { id: 'sim-prompt' });
    sel.addEventListener('change', () => {
      chosen = Number(/** @type {HTMLSelectElement} */ (sel).value);
      const r = lastView;
      if (r) renderSimulator(r);
    });
    box.append(
      h('p', { class: 'note', id: 'sim-intro' }),
      h('div', { class: 'sim-controls' },
        h('div', { class: 'field' }, h('label', { for: 'sim-prompt', id: 'sim-prompt-label' }), sel),
        h('button', { type: 'button', id: 'sim-start', class: 'primary', on: { click: start } }),
        h('button', { type: 'button', id: 'sim-stop', on: { click: () => stop(true) }, disabled: true })),
      h('p', { class: 'note', id: 'sim-target' }),
      h('div', { class: 'cards sim-stats' },
        stat('sim-elapsed', 'sim_elapsed'), stat('sim-tokens', 'sim_tokens'), stat('sim-rate', 'sim_rate')),
      h('p', { id: 'sim-status', class: 'note', role: 'status' }),
      // The stand-in text, shown once it streams (an empty box before Start said nothing; with
      // reduced motion the text does not stream and the box stays away).
      h('div', { id: 'sim-out', class: 'sim-out', 'aria-hidden': 'true', hidden: true, title: T('sim_output') }));
  }
  const sel = /** @type {HTMLSelectElement} */ (byId('sim-prompt'));
  const lengths = offer ? offer.prompts : [];
  sel.replaceChildren(...lengths.map((n) => h('option', { value: String(n) }, tokens(n, state.lang))));
  sel.value = String(prompt());
  setText(byId('sim-intro'), sentences(state.lang, [T('sim_intro'), reduced() ? T('sim_reduced') : '']));
  byId('sim-out').title = T('sim_output');
  setText(byId('sim-prompt-label'), T('sim_prompt'));
  setText(byId('sim-start'), shown > 0 || started ? T('sim_restart') : T('sim_start'));
  setText(byId('sim-stop'), T('sim_stop'));
  for (const [id, key] of [['sim-elapsed', 'sim_elapsed'], ['sim-tokens', 'sim_tokens'], ['sim-rate', 'sim_rate']])
    setText(byId(`${id}-k`), T(key));
}


/** @param {string} id @param {string} key */
function stat(id, key) {
  return h('div', { class: 'card' }, h('div', { class: 'k', id: `${id}-k` }, T(key)), h('div', { class: 'v', id }, '—'));
}

/** @param {string} s */
function setStatus(s) { setText(byId('sim-status'), s); }

function start() {
  if (!target) return;
  stop(false);
  shown = 0;
  firstAt = NaN;
  fill('sim-out');
  byId('sim-out').hidden = reduced();
  started = performance.now();
  byId('sim-stop').disabled = false;
  setText(byId('sim-start'), T('sim_restart'));
  byId('sim-body').dataset.running = 'true';
  setStatus(T('sim_waiting', { 0: ms(target.ttft_ms, state.lang) }));
  tick();
}

/** One frame: how many tokens the estimate says exist by now, and the counters. */
function tick() {
  if (!target || !started) return;
  const L = state.lang;
  const now = performance.now();
  const elapsed = now - started;
  const gen = elapsed - target.ttft_ms;
  // Tokens due by now: the first at TTFT, then one every 1/decode_tps seconds.
  const due = gen < 0 ? 0 : 1 + Math.floor((gen / 1000) * target.decode_tps);
  if (due > 0 && shown === 0) { firstAt = elapsed; setStatus(T('sim_generating')); }
  if (due > shown) {
    if (!reduced()) {
      const out = byId('sim-out');
      let s = '';
      for (let i = shown; i < due; i++) s += `${WORDS[i % WORDS.length]} `;
      out.append(s);
      // Keep the box short: drop old text once it grows.
      if (out.childNodes.length > 400) out.replaceChildren(out.textContent.slice(-1500));
    }
    shown = due;
  }
  const body = byId('sim-body');
  body.dataset.tokens = String(shown);
  body.dataset.elapsed = String(elapsed);
  if (Number.isFinite(firstAt)) body.dataset.firstToken = String(firstAt);
  setText(byId('sim-elapsed'), `${num(elapsed / 1000, L, 1)}\u00a0s`);
  setText(byId('sim-tokens'), num(shown, L));
  // Measured rate after the first token: tokens beyond the first over the time since it came.
  const since = elapsed - firstAt;
  const rate = shown > 1 && since > 0 ? ((shown - 1) * 1000) / since : NaN;
  setText(byId('sim-rate'), Number.isFinite(rate) ? tps(rate, L) : '—');
  // With reduced motion the counters move four times a second instead of every frame.
  handle = reduced() ? window.setTimeout(tick, 250) : requestAnimationFrame(tick);
}

/** @param {boolean} byPerson */
function stop(byPerson) {
  if (handle) { cancelAnimationFrame(handle); clearTimeout(handle); handle = 0; }
  const was = started;
  started = 0;
  const stopBtn = document.getElementById('sim-stop');
  if (stopBtn) /** @type {HTMLButtonElement} */ (stopBtn).disabled = true;
  const body = document.getElementById('sim-body');
  if (body) body.dataset.running = 'false';
  if (byPerson && was) setStatus(T('sim_stopped'));
}
