// @ts-check
// Ways to take the estimate elsewhere: the "Embed this" dialog, which writes both embed snippets
// (the <will-it-fit> widget and the self-resizing iframe) for the current view with absolute
// URLs from this page's location, and the "Download for offline use" link to the one-file page.
// Both need a server, so the offline copy (file://) hides them. Snippets go into textareas as
// values: whatever the state holds is text here, and attribute values are escaped in the snippet.
import { byId } from './dom.js';
import { t } from './i18n.js';
import { state } from './state.js';

/** Escape a value for a double-quoted HTML attribute. @param {string} s */
export function attr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** True when this page is served (http/https), not opened as a file. */
export function served() {
  return /^https?:$/.test(location.protocol) && document.documentElement.dataset.offline !== 'true';
}

/**
 * Both snippets for a state, with assets under `base` (the directory of the app, absolute).
 * @param {typeof state} s @param {string} base
 */
export function snippets(s, base) {
  const dir = new URL('.', base);
  /** @type {[string, string][]} */
  const attrs = [['model', s.model], ['hardware', s.hw], ['quant', s.quant], ['context', String(s.ctx)], ['lang', s.lang]];
  if (s.ram) attrs.push(['ram', String(s.ram)]);
  if (s.kv !== 'f16') attrs.push(['kv-type', s.kv]);
  if (s.count !== 1) attrs.push(['count', String(s.count)]);
  const widget = `<script type="module" src="${attr(new URL('widget.js', dir).href)}"></script>\n` +
    `<will-it-fit ${attrs.map(([k, v]) => `${k}="${attr(v)}"`).join(' ')}>${attr(`${s.model} · ${s.quant} · ${s.hw}`)}</will-it-fit>`;
  const q = new URLSearchParams({ model: s.model, hw: s.hw, quant: s.quant, ctx: String(s.ctx), lang: s.lang });
  if (s.ram) q.set('ram', String(s.ram));
  if (s.kv !== 'f16') q.set('kv', s.kv);
  if (s.count !== 1) q.set('count', String(s.count));
  const iframe = `<iframe src="${attr(`${new URL('embed.html', dir).href}?${q}`)}" title="${attr(`willitfit: ${s.model}`)}" ` +
    'width="480" height="200" style="max-width:100%;border:0" loading="lazy"></iframe>\n' +
    `<script type="module" src="${attr(new URL('embed-host.js', dir).href)}"></script>`;
  return { widget, iframe };
}

/** Fill the dialog for the current state and open it. */
function openDialog() {
  const { widget, iframe } = snippets(state, location.href);
  byId('embed-widget').value = widget;
  byId('embed-iframe').value = iframe;
  byId('embed-msg').textContent = '';
  /** @type {HTMLDialogElement} */ (byId('embed-dialog')).showModal();
}

/** @param {string} id textarea to copy */
async function copy(id) {
  const box = byId(id);
  const msg = byId('embed-msg');
  try {
    await navigator.clipboard.writeText(box.value);
    msg.textContent = t(state.lang, 'copied');
  } catch {
    box.focus();
    box.select();
    msg.textContent = t(state.lang, 'copy_failed');
  }
}

/** Wire the embed dialog and the offline link (hidden where there is no server). */
export function initShare() {
  const on = served();
  byId('embed-open').hidden = !on;
  byId('offline').hidden = !on;
  if (!on) return;
  byId('embed-open').addEventListener('click', openDialog);
  byId('embed-close').addEventListener('click', () => /** @type {HTMLDialogElement} */ (byId('embed-dialog')).close());
  for (const b of byId('embed-dialog').querySelectorAll('button[data-copy]')) {
    b.addEventListener('click', () => copy(/** @type {HTMLElement} */ (b).dataset.copy || ''));
  }
}
