// Builds dist/willitfit-offline.html: the whole app in one file that works when opened from
// file:// with no network. Our ES modules are not rewritten into one scope (that needs a real
// parser); instead every module's source is stored in a JSON data block, and one small inline
// loader turns them into blob: URLs in dependency order, pointing each relative import at the
// blob URL of its target. Module semantics (live bindings, import.meta, dynamic import) stay
// exactly as in the hosted app. The wasm is the SINGLE_FILE build (base64 inside its glue), so
// nothing is fetched; the Worker cannot start from a blob module, and client.js falls back to
// the main thread. The file carries its own CSP (hashes computed here): scripts only from the
// hashed loader and blob: modules, no network at all.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// Relative specifiers in static imports, re-exports, side-effect imports and import('…').
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]+)\2/g;
// What api.js computes as the core's URL when it is a sibling file; here it is a module key.
const CORE_URL = "new URL('./willitfit.js', import.meta.url).href";

/**
 * Collect the module graph from an entry, keyed by path relative to `dir`.
 * @param {string} dir @param {string} entry @param {Record<string, string>} replace key -> file that stands in for it
 * @returns {{order: string[], src: Record<string, string>}}
 */
export function collectModules(dir, entry, replace = {}) {
  /** @type {Record<string, string>} */
  const src = {};
  /** @type {string[]} */
  const order = [];
  /** @type {Set<string>} */
  const visiting = new Set();
  /** @param {string} key */
  const visit = (key) => {
    if (src[key] !== undefined) return;
    if (visiting.has(key)) throw new Error(`offline bundle: import cycle through ${key}`);
    visiting.add(key);
    const file = path.join(dir, replace[key] || key);
    let text = fs.readFileSync(file, 'utf8');
    if (key === 'api.js') {
      if (!text.includes(CORE_URL)) throw new Error('offline bundle: api.js no longer names the core as expected');
      text = text.replace(CORE_URL, "'@@wif/willitfit.js@@'");
      visit('willitfit.js');
    }
    text = text.replace(SPECIFIER, (_m, head, q, spec) => {
      const dep = path.posix.normalize(path.posix.join(path.posix.dirname(key), spec));
      if (dep.startsWith('..')) throw new Error(`offline bundle: ${key} imports ${spec} outside the site`);
      visit(dep);
      return `${head}${q}@@wif/${dep}@@${q}`;
    });
    visiting.delete(key);
    src[key] = text;
    order.push(key);
  };
  visit(entry);
  return { order, src };
}

// The loader: the only inline script. Kept small and free of build-specific text so its hash is
// stable; it is also what the CSP's script-src names.
const LOADER = `
const data = JSON.parse(document.getElementById('wif-modules').textContent);
const urls = {};
for (const key of data.order) {
  const text = data.src[key].replace(/@@wif\\/([^@]+)@@/g, (m, k) => urls[k]);
  urls[key] = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}
import(urls[data.entry]);
`;

const sha256 = (/** @type {string} */ s) => `'sha256-${crypto.createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** Text safe inside a <script> or <style> element (no end tag can appear in it). @param {string} s */
const rawSafe = (s) => s.replace(/<\/(script|style)/gi, '<\\/$1');

/**
 * Write the one-file page from an assembled dist/ (which must hold willitfit-single.js).
 * @param {string} dist
 * @returns {{file: string, bytes: number}}
 */
export function buildOffline(dist) {
  let html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const mods = collectModules(dist, 'app.js', { 'willitfit.js': 'willitfit-single.js' });
  const json = JSON.stringify({ entry: 'app.js', order: mods.order, src: mods.src }).replace(/</g, '\\u003c');

  /** @type {string[]} */
  const styles = [];
  html = html.replace(/<link rel="stylesheet" href="([^"]+)">/g, (_m, href) => {
    const css = fs.readFileSync(path.join(dist, href), 'utf8');
    styles.push(rawSafe(css));
    return `<style>${rawSafe(css)}</style>`;
  });
  const svg = fs.readFileSync(path.join(dist, 'favicon.svg'), 'utf8');
  html = html.replace(/<link rel="icon" href="favicon\.svg"[^>]*>/,
    `<link rel="icon" href="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" type="image/svg+xml">`);
  html = html.replace(/<link rel="manifest"[^>]*>\s*/, '');
  // connect-src data: because the SINGLE_FILE glue fetch()es the wasm from its own data: URL.
  const csp = ["default-src 'none'", `script-src ${sha256(LOADER)} blob: 'wasm-unsafe-eval'`,
    `style-src ${styles.map(sha256).join(' ')}`, 'img-src data: blob:', "connect-src data:",
    "object-src 'none'", "base-uri 'none'", "form-action 'none'"].join('; ');
  // The policy comes first in <head> so it governs everything after it.
  html = html.replace('<meta charset="utf-8">', () => `<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="${csp}">`);
  const scripts = `<script type="application/json" id="wif-modules">${json}</script>\n  ` +
    `<script type="module">${LOADER}</script>`;
  const tag = '<script type="module" src="app.js"></script>';
  if (!html.includes(tag)) throw new Error('offline bundle: index.html no longer loads app.js as expected');
  html = html.replace(tag, () => scripts);
  // Marks the page as the offline copy: app.js hides what needs a server (download, embed).
  html = html.replace('<html lang="en">', '<html lang="en" data-offline="true">');
  const file = path.join(dist, 'willitfit-offline.html');
  fs.writeFileSync(file, html);
  return { file, bytes: Buffer.byteLength(html) };
}
