// @ts-check
// Where to buy the chosen device in the chosen market: the store searches data/markets.json lists
// for that market (`stores`: name and a search URL with {q}), filled with the catalog device's
// name. Only catalog devices get links (a saved custom device's name is the person's own text,
// and it is never put into a URL); the URL templates come from data and must be https.
import { deviceInfo } from '../catalog.js';
import { byId, fill, h, text } from '../dom.js';
import { marketName, money } from '../format.js';
import { punctSpacing, t } from '../i18n.js';
import { state } from '../state.js';
import { shownName } from './shared.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/**
 * The store links for a device name in a market.
 * @param {any} mk a markets.json entry @param {string} name
 * @returns {{store: string, href: string}[]}
 */
export function storeLinks(mk, name) {
  const stores = mk && Array.isArray(mk.stores) ? mk.stores : [];
  return stores
    .filter((/** @type {any} */ s) => typeof s.search_url === 'string' && /^https:\/\/[^\s"<>]+$/.test(s.search_url) && s.search_url.includes('{q}'))
    .map((/** @type {any} */ s) => ({ store: String(s.name), href: s.search_url.split('{q}').join(encodeURIComponent(name)) }));
}

/** On the model × device view. @param {any} _r the estimate @param {any} mk the market entry */
export function renderBuy(_r, mk) {
  renderBuyInto({ sec: 'plug-buy', title: 'buy-title', out: 'buy-out' }, mk);
}

/**
 * Fill a "where to buy" section (the main view's or the device page's) for the chosen device.
 * @param {{sec: string, title: string, out: string}} ids @param {any} mk the market entry
 */
export function renderBuyInto(ids, mk) {
  const sec = byId(ids.sec);
  const d = deviceInfo(state.hw);
  // Cloud-only accelerators (no retail price) and saved custom devices get no store links.
  if (!d || d.custom || !(d.price_usd > 0)) { sec.hidden = true; return; }
  sec.hidden = false;
  text(ids.title, T('buy_title', { 0: shownName(d, state.lang) }));
  const links = storeLinks(mk, d.name);
  fill(ids.out,
    h('p', { class: 'note' }, T('buy_intro', { market: mk ? marketName(mk, state.lang) : state.market, price: money(d.price_usd, mk, state.lang, 0) })),
    links.length
      ? h('ul', { class: 'linklist stores' }, links.map((l) => h('li', null,
        h('a', { href: l.href, rel: 'noopener noreferrer', target: '_blank' }, T('buy_search', { 0: l.store }), h('span', { class: 'sr' }, punctSpacing(state.lang, ` ${T('new_tab')}`))))))
      : h('p', { class: 'note' }, T('buy_none')));
}
