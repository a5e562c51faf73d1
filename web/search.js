// @ts-check
// Type-ahead over the catalog for an <input role="combobox">: matches name, organisation, id and
// keywords (a device's chip and product names; every word of the query must appear), arrow keys move, Enter picks, Escape closes. The list
// floats over the page so typing never shifts the layout.
import { h } from './dom.js';

/** @typedef {{id: string, name: string, org?: string, hint?: string, keywords?: string}} Item */

/**
 * @param {HTMLInputElement} input
 * @param {() => Item[]} items  read on every keystroke (custom models come and go)
 * @param {(id: string) => void} onPick
 */
export function attachSearch(input, items, onPick) {
  const listId = `${input.id}-options`;
  const box = h('ul', { id: listId, role: 'listbox', class: 'typeahead', hidden: true });
  input.after(box);
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-controls', listId);
  /** @type {Item[]} */
  let shown = [];
  let active = -1;

  const close = () => {
    box.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  };
  /** @param {string} id */
  const pick = (id) => {
    input.value = id;
    close();
    onPick(id);
  };
  const render = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    const all = items();
    shown = (words.length ? all.filter((it) => {
      const hay = `${it.name} ${it.org || ''} ${it.id} ${it.keywords || ''}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    }) : all).slice(0, 12);
    box.replaceChildren(...shown.map((it, i) => h('li', {
      id: `${listId}-${i}`, role: 'option', 'aria-selected': i === active ? 'true' : 'false',
      on: { mousedown: (/** @type {Event} */ e) => { e.preventDefault(); pick(it.id); } },
    }, h('span', { class: 'opt-name' }, it.name), h('span', { class: 'opt-meta' }, [it.org, it.hint].filter(Boolean).join(' · ')))));
    box.hidden = shown.length === 0;
    input.setAttribute('aria-expanded', String(!box.hidden));
    if (active >= 0) input.setAttribute('aria-activedescendant', `${listId}-${active}`);
    else input.removeAttribute('aria-activedescendant');
  };
  input.addEventListener('input', () => { active = -1; render(); });
  input.addEventListener('focus', () => { if (input.value === '') render(); });
  input.addEventListener('blur', () => setTimeout(close, 100));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (box.hidden) render();
      if (!shown.length) return;
      e.preventDefault();
      active = (active + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
      render();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (!box.hidden && active >= 0 && shown[active]) pick(shown[active].id);
      else if (!box.hidden && shown.length === 1) pick(shown[0].id);
      else { close(); onPick(input.value.trim()); }
    } else if (e.key === 'Escape') {
      close();
    }
  });
}
