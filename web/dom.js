// @ts-check
// Small DOM helpers. Text always goes in with textContent (never innerHTML), so nothing a user,
// a URL or an imported file supplies can become markup.

/**
 * Create an element. `props` sets attributes (class, href, …), `dataset` and event handlers
 * (on: {click: fn}); children are nodes or strings (strings become text nodes).
 * @param {string} tag
 * @param {Record<string, any> | null} [props]
 * @param {...(Node | string | number | null | undefined | false | (Node|string)[])} children
 * @returns {HTMLElement}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'text') el.textContent = String(v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

/** @param {Element} el @param {any[]} children */
function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (typeof c === 'string' || typeof c === 'number') el.append(textFor(el, String(c)));
    else el.append(c);
  }
}

/**
 * A text as a node for `el`: its ids and code-like pieces kept whole on a line (keepWhole), done
 * as the text is drawn rather than by watching the page for it.
 * @param {Element} el @param {string} s @returns {Node}
 */
function textFor(el, s) {
  // A page drawn at build time (scripts/prerender.mjs) carries the same spans: written as bare
  // text, its lines broke inside a dashed name ("GMKtec EVO-" / "X2") that the app then kept whole
  // on the next line, and a picks card grew by a line (23 px at 390 px) as the app took over.
  return ((DASHED.test(s) || PAIRED.test(s)) && !el.closest(SKIP) && wholeNode(s)) || document.createTextNode(s);
}

/**
 * A text as a node with its ids, code-like pieces and names kept whole on a line (keepWhole), for
 * a tree the views' helpers do not draw (the widget's shadow root, whose styles give `whole` the
 * same box). @param {string} s @returns {Node}
 */
export function wholeText(s) {
  return ((DASHED.test(s) || PAIRED.test(s)) && wholeNode(s)) || document.createTextNode(s);
}

/**
 * Set an element's text (as textContent does), its ids and code-like pieces kept whole on a line
 * (keepWhole). @param {Element} el @param {string} s
 */
export function setText(el, s) {
  const node = textFor(el, String(s));
  if (node.nodeType === 3) el.textContent = String(s);
  else el.replaceChildren(node);
}

/**
 * Text with a line-break opportunity after each slash (a <wbr>), so a repo id or a URL wraps
 * between its parts rather than inside a word; its textContent stays the text.
 * @param {string} text @returns {(string | HTMLElement)[]}
 */
export function slashBreaks(text) {
  return String(text).split('/').flatMap((part, i, all) => (i < all.length - 1 ? [`${part}/`, h('wbr', null)] : [part]));
}

/**
 * A command line in whole pieces: the program, then each flag with its value ("-ngl 47",
 * "--n-cpu-moe 36", "-m GLM-4.5-Air-Q4_K_M.gguf"), each in a `tok` span the styles keep on one
 * line (an inline block: a flag never parts at its hyphens nor from its value; only a piece longer
 * than the whole line wraps inside itself). The spaces between pieces stay text, so the line
 * breaks between them and the textContent is the command as given. A class, not an inline style:
 * the site's policy allows no style attributes.
 * @param {string} text @returns {(string | HTMLElement)[]}
 */
export function commandTokens(text) {
  /** @type {string[]} */
  const pieces = [];
  // Words, with the spaces between them kept as they are. A flag (a word starting with "-") takes
  // the word after it as its value unless that word is a flag or a shell operator; "&&" and "|"
  // go with the word after them ("&& python"); every other word is a piece of its own, so a chain
  // of commands ("hf download … && python convert_hf_to_gguf.py …") breaks between its words.
  const parts = String(text).split(/(\s+)/);
  const op = (/** @type {string} */ w) => w === '&&' || w === '|' || w === '||' || w === ';';
  for (let i = 0; i < parts.length; i++) {
    const w = parts[i];
    if (w === '') continue;
    if (/^\s+$/.test(w)) { pieces.push(w); continue; }
    const next = parts[i + 2];
    if ((w.startsWith('-') && next && !next.startsWith('-') && !op(next)) || (op(w) && next)) {
      pieces.push(`${w}${parts[i + 1]}${next}`);
      i += 2;
    } else {
      pieces.push(w);
    }
  }
  // Inside a piece a break may come after | = / ( , and after a dot that follows no digit (a <wbr>,
  // no text): a piece longer than its box (a tensor-override rule in a table cell, a tensor split
  // "140.65,140.65,…") wraps there rather than between two letters or inside a number ("140." /
  // "65") or a format name ("Q4_" / "K_M"), and a table's column need not be as wide as the rule.
  const inner = (/** @type {string} */ x) => x.split(/(?<=[|=/(,])|(?<=(?<!\d)\.)/).flatMap((part, i) => (i ? [h('wbr', null), part] : [part]));
  // A piece longer than the line ("&& ollama run meta-llama-3-8b-q4_K_M", "-m owner/name") breaks
  // first at its spaces and after a slash: each word, and each part of "owner/name", is whole on a
  // line of its own (a `tok-w` inline block), so a model name never ends a line at one of its hyphens.
  const words = (/** @type {string} */ x) => x.split(/(\s+)/).flatMap((w) => /** @type {(string | HTMLElement)[]} */ (w === '' ? [] : /^\s+$/.test(w) ? [w]
    : w.split(/(?<=\/)(?=.)/).map((part) => h('span', { class: 'tok-w' }, inner(part)))));
  return pieces.map((x) => (/^\s+$/.test(x) ? x : h('span', { class: 'tok' }, words(x))));
}

/**
 * Mark a sideways-scrolling strip with where more of it lies (`data-more`: "start", "end", both
 * or none), kept up to date as it scrolls, resizes or changes; the styles fade that edge, so a
 * person sees there is more than the screen shows.
 * @param {HTMLElement} el
 */
export function scrollCue(el) {
  const set = () => {
    const max = el.scrollWidth - el.clientWidth;
    const more = max > 4 ? [el.scrollLeft > 4 ? 'start' : '', el.scrollLeft < max - 4 ? 'end' : ''].filter(Boolean).join(' ') : '';
    if (el.dataset.more !== more) el.dataset.more = more;
  };
  el.addEventListener('scroll', set, { passive: true });
  // A link reached by the keyboard comes wholly into view, clear of the faded edge (scroll-padding):
  // the browser's own focus scrolling leaves a partly shown item where it is.
  el.addEventListener('focusin', (e) => { /** @type {HTMLElement} */ (e.target).scrollIntoView?.({ block: 'nearest', inline: 'nearest' }); });
  if (typeof ResizeObserver === 'function') new ResizeObserver(set).observe(el);
  new MutationObserver(set).observe(el, { childList: true, subtree: true, characterData: true });
  set();
}

/** Replace the children of the element with this id. @param {string} id @param {...any} children */
export function fill(id, ...children) {
  const el = byId(id);
  el.replaceChildren();
  append(el, children);
  return el;
}

/** @param {string} id */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing`);
  return /** @type {any} */ (el);
}

/** Set text of an element by id ('' hides nothing: layout stays). @param {string} id @param {string} text */
export function text(id, text) {
  setText(byId(id), text);
}

/**
 * A table with a caption, header cells and rows of cells (strings or nodes). The first cell of
 * each row is a row header for screen readers. Each cell carries its column's name
 * (`data-label`), so a narrow screen can show rows as cards (styles.css).
 * @param {string} caption
 * @param {string[]} head
 * @param {any[][]} rows
 * @param {Record<string, any>} [props]
 */
export function table(caption, head, rows, props) {
  // The caption is repeated as a visible title outside the scrolling box, so on a phone it wraps
  // instead of running off with the table; the <caption> stays for screen readers.
  return h('div', { class: 'table-block' }, caption ? h('p', { class: 'table-title', 'aria-hidden': 'true' }, caption) : null,
    h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h('table', props || { class: 'data wrap-head' },
      caption ? h('caption', { class: 'sr' }, caption) : null,
      h('thead', null, h('tr', null, head.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, rows.map((r) => h('tr', null, r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', { 'data-label': head[i] ?? null }, c)))))))));
}

/** A link inside the app (router intercepts it). @param {string} href @param {string} label */
export function link(href, label, cls = '') {
  return h('a', { href, class: cls || null, dataset: { nav: '1' } }, label);
}

/**
 * Ids, names and code-like pieces in running text stay whole on a line: a repository name
 * ("Llama-3.1-8B-Instruct"), a quantization ("SAFETENSORS-BF16"), a flag ("--max-running-requests"),
 * a date ("2025-06"), a range ("131–227"). Browsers break a line after any hyphen or dash, so a
 * phone's narrow line drew "Llama-3.1-8B-" / "Instruct" and "（--fit-" / "target）". Each run of
 * text with no space that holds a hyphen or dash (with the brackets around it) goes in a `whole`
 * span, an inline block the styles keep on one line: it moves to the next line as a piece, and
 * only a piece longer than the whole line wraps inside itself. A repository id is two pieces, the
 * line may break after its slash. The text is unchanged (textContent, copy and search read the
 * same characters).
 * @param {Node} root
 */
export function keepWhole(root) {
  /** @type {Text[]} */
  const todo = [];
  const visit = (/** @type {Node} */ n) => {
    if (n.nodeType === 3) {
      const p = n.parentElement;
      const data = /** @type {Text} */ (n).data;
      if (p && !p.closest(SKIP) && (DASHED.test(data) || PAIRED.test(data))) todo.push(/** @type {Text} */ (n));
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 11) return;
    if (n.nodeType === 1 && /** @type {Element} */ (n).closest(SKIP)) return;
    const w = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
    for (let t = w.nextNode(); t; t = w.nextNode()) visit(t);
  };
  visit(root);
  for (const t of todo) {
    const node = wholeNode(t.data);
    if (node) t.replaceWith(node);
  }
}

/** Where text is left as it is: code, form controls, screen-reader text, pieces already whole. */
const SKIP = 'script, style, pre, code, textarea, select, option, svg, .sr, .whole, .tok, .tok-w, .tabs, .u-legend, [contenteditable]';

/**
 * A text with each run that holds a hyphen or dash in a `whole` span (see keepWhole), the pieces
 * together in one `kw` span; null when it has no such run. Built from text nodes, not through h(),
 * so its pieces are not looked at again.
 * @param {string} text @returns {Node | null}
 */
function wholeNode(text) {
  /** @type {Node[]} */
  const out = [];
  let last = 0;
  const span = (/** @type {string} */ cls, /** @type {Node[]} */ kids) => { const e = document.createElement('span'); e.className = cls; e.append(...kids); return e; };
  for (const u of units(text)) {
    const named = u.runs > 1;
    if (!named && !DASHED.test(u.text)) continue;
    // A full-width opening parenthesis just before the piece goes with it: a line never ends at
    // "（" with "--fit-target）" on the next (the piece is a box of its own, a break before it).
    const open = u.start > last && text[u.start - 1] === '\uFF08' ? 1 : 0;
    if (u.start - open > last) out.push(document.createTextNode(text.slice(last, u.start - open)));
    // Full-width closing punctuation just after it goes with it too: no line starts at "）；"
    // (a Chinese line never begins with closing punctuation; the piece's box allowed a break).
    const close = (CLOSE.exec(text.slice(u.end)) || [''])[0];
    // A break may come after a slash: each part of "owner/name" is its own piece (not in a rate's
    // unit: "tok/s", "GB/s" stay one piece). A product's name is one piece ("RTX 4090").
    const parts = named ? [u.text] : u.text.split(/(?<=\/)(?!s(?![A-Za-z]))(?=.)/);
    parts.forEach((part, i) => {
      const piece = `${i === 0 && open ? '\uFF08' : ''}${part}${i === parts.length - 1 ? close : ''}`;
      out.push(named || DASHED.test(part) ? span('whole', [document.createTextNode(piece)]) : document.createTextNode(piece));
    });
    last = u.end + close.length;
  }
  if (!out.length) return null;
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  // The pieces stay together in one inline box: in a flex or grid container (a phone card's cell)
  // each text node and span would be an item of its own, spread across the row. (Always, not only
  // there: asking each parent's computed style forced a style pass per text.)
  return out.length > 1 ? span('kw', out) : out[0];
}

/**
 * The text's runs (RUN), a product's or a model's name taken as one unit: the words of a name that
 * part between its series and its number ("RTX 4090", "H100 80GB", "Max+ 395", "M3 Ultra",
 * "GLM-4.5 Air", "Llama 3.1 8B") are joined (nameJoin), so a line never breaks inside the name.
 * @param {string} text @returns {{start: number, end: number, text: string, runs: number}[]}
 */
function units(text) {
  /** @type {{start: number, end: number, text: string, runs: number}[]} */
  const out = [];
  /** @type {{start: number, end: number, text: string, runs: number} | null} */
  let cur = null;
  let joinedLeft = false;
  for (const m of text.matchAll(RUN)) {
    const start = /** @type {number} */ (m.index), end = start + m[0].length;
    if (cur && text.slice(cur.end, start) === ' ' && nameJoin(cur.text.split(' ').pop() || '', m[0], joinedLeft)) {
      cur.end = end;
      cur.text = text.slice(cur.start, end);
      cur.runs++;
      joinedLeft = true;
      continue;
    }
    if (cur) out.push(cur);
    cur = { start, end, text: m[0], runs: 1 };
    joinedLeft = false;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Do two words, one space apart, belong to one name, so no line may part them? A word with a
 * capital and the number after it ("RTX 4090", "H100 80GB", "Ascend 910B", "Max+ 395"); a word
 * that ends in its number and the capitalised word after it ("M3 Ultra", "H100 SXM", "GLM-4.5
 * Air"); and, inside a name already joined, a size after a number ("Llama 3.1 8B") or a capitalised
 * word after a number ("RTX 4090 D"). Prose keeps its breaks: "on 2 GPUs", "24 GB", "in 2025".
 * @param {string} a the word before (with its punctuation) @param {string} b the word after
 * @param {boolean} joinedLeft whether `a` is already joined to the word before it
 */
function nameJoin(a, b, joinedLeft) {
  // Punctuation between the two words parts them ("4090, then", "(RTX 4090) is").
  if (!/[A-Za-z0-9+]$/.test(a) || !/^[A-Za-z0-9]/.test(b)) return false;
  const word = a.replace(/^[^A-Za-z0-9]+/, '');
  // A number, not a count with its unit ("Max 40-core GPU" may part before "40-core").
  if (/^\d/.test(b)) return !/-/.test(b) && (/[A-Z]/.test(word) || (joinedLeft && /[A-Za-z]/.test(b)));
  return /\d$/.test(word) && (/[A-Za-z]/.test(word) || joinedLeft) && /^[A-Z]/.test(b);
}

/**
 * A run of text with no breaking space (a no-break space inside a figure, "65.28 GiB–65.60 GiB",
 * keeps the figure one run), no CJK ideograph or kana and no full-width punctuation (where lines
 * break freely).
 */
const RUN = /[^\t\n\v\f\r \u1680\u2000-\u200a\u2028\u2029\u205f\u3000\ufeff\u2E80-\u2FFF\u3001\u3002\u3040-\u9FFF\uF900-\uFAFF\uFF08\uFF09\uFF0C\uFF1A\uFF1B]+/g;
/** Closing punctuation a line must not start with (full-width parenthesis, comma, stops, colon…). */
const CLOSE = /^[\u3001\u3002\u300D\u300F\u3011\u3015\u3009\u300B\uFF09\uFF0C\uFF1A\uFF1B\uFF01\uFF1F]+/;
/** Two words a name may join (nameJoin): a quick test before the text is looked at word by word. */
const PAIRED = /[A-Z][^\s]* \d|\d\+? [A-Z]/;
/** A hyphen or dash inside a run, or a flag's leading one ("-ngl", "--n-cpu-moe"). */
const DASHED = /[^\s][-\u2010\u2013\u2014][^\s]|(?:^|\s)--?[A-Za-z]/;
