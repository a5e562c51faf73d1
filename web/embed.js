// @ts-check
// The iframe embed: embed.html?model=…&hw=…&quant=…&ctx=…&lang=… (or hf=owner/repo&quant=… for a
// model on the Hub) renders one card and tells its
// parent how tall it is, so the host's embed-host.js can size the iframe. URL values only ever
// become attributes (text), never markup.
import './widget.js';

const p = new URLSearchParams(location.search);
const card = /** @type {HTMLElement} */ (document.getElementById('card'));
const map = { model: 'model', hf: 'hf', file: 'file', hw: 'hardware', quant: 'quant', ctx: 'context', lang: 'lang', ram: 'ram', kv: 'kv-type', count: 'count', theme: 'theme', draft: 'draft', mtp: 'mtp' };
for (const [param, attr] of Object.entries(map)) {
  const v = p.get(param);
  if (v !== null) card.setAttribute(attr, v.slice(0, 200));
}

// The frame's own document follows its card: the language the card is written in (English where
// the asked one has no strings) and a title naming the setup once it is drawn, for a reader who
// opens the frame on its own and for a screen reader announcing the frame's document.
const follow = () => {
  document.documentElement.lang = card.dataset.langFallback ? 'en' : (card.getAttribute('lang') || 'en');
  const title = card.shadowRoot?.querySelector('.title')?.textContent?.trim();
  if (title && !('loading' in card.dataset)) document.title = `${title} — willitfit`;
};
new MutationObserver(follow).observe(card, { attributes: true, attributeFilter: ['lang', 'data-verdict', 'data-loading', 'data-lang-fallback'] });
follow();

let last = 0;
const report = () => {
  const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (h !== last && window.parent !== window) {
    last = h;
    // The height is not a secret; the host checks our origin before acting on it.
    window.parent.postMessage({ type: 'willitfit:height', height: h }, '*');
  }
};
new ResizeObserver(report).observe(document.documentElement);
report();
