// The rules of a stylesheet that the first frame of a prerendered page needs: those whose
// selectors match an element drawn in that frame (scripts/prerender.mjs inlines them in the page,
// so its first paint waits for no stylesheet). No CSS library: styles.css is plain rules and
// @media blocks, split here by braces; a selector is tested on the page's own DOM (linkedom).
//
// The test is generous, never strict: pseudo-classes and pseudo-elements are dropped before
// matching (`.tabs a:hover` is kept when a `.tabs a` is drawn, `.view:not([hidden])` when a
// `.view` is), a selector that cannot be tested keeps its rule, and a kept rule keeps all its
// selectors and declarations. Every kept rule is copied from the stylesheet byte for byte and in
// its order, so once the whole stylesheet has loaded (after the inline copy) each element's
// cascade is the stylesheet's own: the copies lose every tie to their originals.

/** @typedef {{sel: string, body: string} | {at: string, inner: Rule[]}} Rule */

/** Rules and @-blocks of a stylesheet, comments removed. @param {string} css @returns {Rule[]} */
export function parseRules(css) {
  css = css.replace(/\/\*[^]*?\*\//g, '');
  /** @type {Rule[]} */
  const out = [];
  let i = 0;
  while (i < css.length) {
    const open = css.indexOf('{', i);
    if (open < 0) break;
    const head = css.slice(i, open).trim();
    if (head.startsWith('@')) {
      let depth = 1, j = open + 1;
      for (; depth && j < css.length; j++) {
        if (css[j] === '{') depth++;
        else if (css[j] === '}') depth--;
      }
      if (depth) throw new Error(`critical-css: unclosed block after ${head}`);
      out.push({ at: head, inner: parseRules(css.slice(open + 1, j - 1)) });
      i = j;
    } else {
      const close = css.indexOf('}', open);
      if (close < 0) throw new Error(`critical-css: unclosed rule ${head}`);
      const body = css.slice(open + 1, close);
      if (body.includes('{')) throw new Error(`critical-css: nested rule in ${head} (not handled)`);
      out.push({ sel: head, body: body.trim() });
      i = close + 1;
    }
  }
  return out;
}

/** A selector list split at its top-level commas. @param {string} s */
function selectors(s) {
  const out = [];
  let depth = 0, cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    else if (c === ')') depth--;
    if (c === ',' && !depth) { out.push(cur.trim()); cur = ''; } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

/** The selector without pseudo-classes and pseudo-elements (a looser one). @param {string} sel */
function loosen(sel) {
  let s = sel, prev;
  do { prev = s; s = s.replace(/::?[a-z-]+\([^()]*\)/gi, ''); } while (s !== prev);
  s = s.replace(/::?[a-z-]+/gi, '').trim().replace(/\s*[>+~]\s*$/, '').trim();
  return s || '*';
}

/**
 * The elements a first frame draws: those before `stop` in the document (and `stop` itself: the
 * parser has opened it when it pauses inside it), without the content of hidden elements and of
 * closed <details> (their summary is drawn).
 * @param {Document} document @param {Element | null} stop null: the whole document
 */
export function firstFrameElements(document, stop) {
  /** @type {Set<Element>} */
  const out = new Set();
  const undrawn = (/** @type {Element} */ e) => {
    for (let p = e.parentElement; p; p = p.parentElement) {
      if (p.hasAttribute('hidden')) return true;
      if (p.tagName === 'DETAILS' && !p.hasAttribute('open')) {
        const summary = e.closest('summary');
        if (!summary || summary.parentElement !== p) return true;
      }
    }
    return false;
  };
  // In document order: what comes after `stop` (its content, then the rest) is not drawn.
  for (const e of document.querySelectorAll('*')) {
    if (!undrawn(e)) out.add(e);
    if (e === stop) break;
  }
  return out;
}

/**
 * The rules of `rules` (parseRules) that apply to some element of `drawn`, as CSS text.
 * @param {Rule[]} rules @param {Set<Element>} drawn
 */
export function criticalCss(rules, drawn) {
  // Matching every selector against every drawn element with linkedom took 0.1-0.5 s a page, so
  // only the elements that have the tag, id and classes of the selector's last compound are
  // matched in full (those are necessary; attribute tests are left to the full match).
  const list = [...drawn].map((e) => ({ e, tag: e.tagName.toLowerCase(), id: e.id, cls: new Set(e.classList) }));
  /** @type {Map<string, boolean>} */
  const memo = new Map();
  const applies = (/** @type {string} */ sel) => {
    const s = loosen(sel);
    let hit = memo.get(s);
    if (hit === undefined) {
      const last = s.replace(/\[[^\]]*\]/g, '[]').split(/\s*[>+~]\s*|\s+/).pop() || '';
      const tag = /^[a-z][a-z0-9-]*/i.exec(last)?.[0].toLowerCase();
      const ids = [...last.matchAll(/#([\w-]+)/g)].map((m) => m[1]);
      const classes = [...last.matchAll(/\.([\w-]+)/g)].map((m) => m[1]);
      const maybe = list.filter((x) => (!tag || x.tag === tag) && ids.every((i) => x.id === i) && classes.every((c) => x.cls.has(c)));
      try { hit = maybe.some((x) => x.e.matches(s)); } catch { hit = true; }
      memo.set(s, hit);
    }
    return hit;
  };
  /** @param {Rule[]} rs @returns {string} */
  const emit = (rs) => rs.map((r) => {
    if ('at' in r) {
      const inner = emit(r.inner);
      return inner ? `${r.at}{${inner}}` : '';
    }
    return selectors(r.sel).some(applies) ? `${r.sel}{${r.body}}` : '';
  }).filter(Boolean).join('\n');
  return emit(rules);
}
