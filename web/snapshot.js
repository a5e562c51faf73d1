// @ts-check
// "Save page as" of the hosted app keeps the DOM as rendered, so the verdict, cards, tables and
// commands stand in the saved file as static content; but the saved copy cannot start the app
// (module scripts, the worker and the wasm do not load from file://). So after every render the
// page keeps, in <wif-snapshot id="snapshot">, a notice of what a saved copy is: a snapshot of
// this view, computed on this date, with links back to the live view and to the one-file
// offline page. The live app defines the element and styles.css hides a *defined* wif-snapshot;
// a custom element's definition is never saved with the DOM, so in a saved copy (HTML only,
// "complete" or MHTML, with or without its stylesheet) the notice shows without any script.
import { byId, h } from './dom.js';
import { gap, t } from './i18n.js';
import { state } from './state.js';

/** Hides the notice in the live app (see styles.css: wif-snapshot:defined). */
export function defineSnapshot() {
  if (!customElements.get('wif-snapshot')) customElements.define('wif-snapshot', class extends HTMLElement {});
}

/**
 * True when this document is a saved copy of the hosted app opened as a file: it already holds
 * a notice from a render, it is not the one-file offline page, and nothing here could fetch the
 * core. The app then leaves the saved result alone instead of replacing it with an error.
 */
export function isSavedCopy() {
  const el = document.getElementById('snapshot');
  return location.protocol === 'file:' && document.documentElement.dataset.offline !== 'true' &&
    !!el && el.childElementCount > 0;
}

/** Write the notice for the view just rendered (the URL already names it). */
export function writeSnapshot() {
  // Only a served app has a live URL to point back to; the offline page is its own copy.
  if (!/^https?:$/.test(location.protocol) || document.documentElement.dataset.offline === 'true') return;
  const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);
  const now = new Date();
  const date = new Intl.DateTimeFormat(state.lang, { dateStyle: 'long', timeStyle: 'short' }).format(now);
  const when = h('time', { datetime: now.toISOString() }, date);
  const [before, after] = T('snapshot_text').split('{0}');
  byId('snapshot').replaceChildren(
    h('strong', null, T('snapshot_title')), gap(state.lang),
    h('span', null, before ?? '', when, after ?? ''), gap(state.lang),
    h('a', { href: location.href, rel: 'noopener' }, T('snapshot_live')), ' · ',
    h('a', { href: new URL('willitfit-offline.html', location.href).href, download: 'willitfit-offline.html' }, T('snapshot_offline')));
}
