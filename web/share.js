// @ts-check
// Ways to take the estimate elsewhere: the "Embed this" dialog, which writes both embed snippets
// (the <will-it-fit> widget and the self-resizing iframe) for the current view with absolute
// URLs from this page's location, and the "Download for offline use" link to the one-file page.
// Both need a server, so the offline copy (file://) hides them. Snippets go into textareas as
// values: whatever the state holds is text here, and attribute values are escaped in the snippet.
import { byId, setText } from './dom.js';
import { hubModels } from './hub.js';
import { t } from './i18n.js';
import { defaultOf, state } from './state.js';

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
  // A model read from the Hub is named by its repo and quant (the widget reads the repo itself);
  // its model key is known to this browser only.
  const hub = hubModels.get(s.model);
  /** @type {[string, string][]} */
  const attrs = [hub ? ['hf', hub.hf] : ['model', s.model], ['hardware', s.hw], ['quant', hub ? hub.quant : s.quant],
    ['context', String(s.ctx)], ['lang', s.lang]];
  if (s.ram) attrs.push(['ram', String(s.ram)]);
  if (s.kv !== defaultOf('kv')) attrs.push(['kv-type', s.kv]);
  if (s.count !== 1) attrs.push(['count', String(s.count)]);
  if (s.draft) attrs.push(['draft', s.draft]);   // the widget books the draft model's memory too
  if (s.mtp) attrs.push(['mtp', '1']);   // and the MTP layers' speed, as the page shows it
  const widget = `<script type="module" src="${attr(new URL('widget.js', dir).href)}"></script>\n` +
    `<will-it-fit ${attrs.map(([k, v]) => `${k}="${attr(v)}"`).join(' ')}>${attr(`${hub ? hub.hf : s.model} · ${hub ? hub.quant : s.quant} · ${s.hw}`)}</will-it-fit>`;
  const q = new URLSearchParams(hub ? { hf: hub.hf, hw: s.hw, quant: hub.quant, ctx: String(s.ctx), lang: s.lang }
    : { model: s.model, hw: s.hw, quant: s.quant, ctx: String(s.ctx), lang: s.lang });
  if (s.ram) q.set('ram', String(s.ram));
  if (s.kv !== defaultOf('kv')) q.set('kv', s.kv);
  if (s.count !== 1) q.set('count', String(s.count));
  if (s.draft) q.set('draft', s.draft);
  if (s.mtp) q.set('mtp', '1');
  const iframe = `<iframe src="${attr(`${new URL('embed.html', dir).href}?${q}`)}" title="${attr(`willitfit: ${hub ? hub.hf : s.model}`)}" ` +
    'width="480" height="200" style="max-width:100%;border:0" loading="lazy"></iframe>\n' +
    `<script type="module" src="${attr(new URL('embed-host.js', dir).href)}"></script>`;
  return { widget, iframe };
}

/** Fill the dialog for the current state and open it. */
function openDialog() {
  const { widget, iframe } = snippets(state, location.href);
  byId('embed-widget').value = widget;
  byId('embed-iframe').value = iframe;
  setText(byId('embed-msg'), '');
  /** @type {HTMLDialogElement} */ (byId('embed-dialog')).showModal();
}

/** @param {string} id textarea to copy */
async function copy(id) {
  const box = byId(id);
  const msg = byId('embed-msg');
  try {
    await navigator.clipboard.writeText(box.value);
    setText(msg, t(state.lang, 'copied'));
  } catch {
    box.focus();
    box.select();
    setText(msg, t(state.lang, 'copy_failed'));
  }
}

/** Wire the embed dialog and the offline link (hidden where there is no server). */
export function initShare() {
  const on = served();
  byId('embed-open').hidden = !on;
  byId('embed-open').classList.remove('until-app');
  byId('offline').hidden = !on;
  if (!on) return;
  byId('embed-open').addEventListener('click', openDialog);
  byId('embed-close').addEventListener('click', () => /** @type {HTMLDialogElement} */ (byId('embed-dialog')).close());
  for (const b of byId('embed-dialog').querySelectorAll('button[data-copy]')) {
    b.addEventListener('click', () => copy(/** @type {HTMLElement} */ (b).dataset.copy || ''));
  }
}

/** base64url of bytes. @param {Uint8Array} b */
function b64url(b) {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** @param {string} s */
function unb64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** @param {Uint8Array} bytes @param {CompressionStream | DecompressionStream} stream */
async function through(bytes, stream) {
  const res = new Response(new Blob([/** @type {BlobPart} */ (bytes)]).stream().pipeThrough(stream));
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * An imported config.json as a link parameter: `{name, config}` as JSON, deflated, base64url.
 * A config is a few KB of JSON, a few hundred bytes deflated, so the whole model travels in the link.
 * @param {{name: string, config: any}} m
 */
export async function packConfig(m) {
  const json = new TextEncoder().encode(JSON.stringify({ name: m.name, config: m.config }));
  return b64url(await through(json, new CompressionStream('deflate-raw')));
}

/** The inverse of packConfig; null when the text is not one. @param {string} s */
export async function unpackConfig(s) {
  try {
    const doc = JSON.parse(new TextDecoder().decode(await through(unb64url(s), new DecompressionStream('deflate-raw'))));
    return doc && typeof doc.name === 'string' && doc.config && typeof doc.config === 'object' ? doc : null;
  } catch {
    return null;
  }
}

/**
 * Copy a link to the current view. An imported config.json travels inside the link (`cfg=`), so
 * the link works in a browser that never saw it; a GGUF header is too large for a link, and the
 * caller says so.
 * @param {{name: string, config?: any} | null} custom the saved model of the view, if any
 * @returns {Promise<boolean>}
 */
export async function copyLink(custom = null) {
  const url = new URL(location.href);
  if (custom && custom.config) url.searchParams.set('cfg', await packConfig(/** @type {any} */ (custom)));
  try {
    await navigator.clipboard.writeText(url.href);
    return true;
  } catch {
    return false;
  }
}
