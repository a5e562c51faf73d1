// Builds dist/willitfit-offline.html: the whole app in one file that works when opened from
// file:// with no network. Our ES modules are not rewritten into one scope (that needs a real
// parser); instead every module's source is stored in a JSON document, and one small inline
// loader turns them into blob: URLs in dependency order, pointing each relative import at the
// blob URL of its target. Module semantics (live bindings, import.meta, dynamic import) stay
// exactly as in the hosted app. Size: the JSON and the wasm are each gzipped here at level 9 and
// stored as base64 in data blocks; the page inflates them with the browser's DecompressionStream
// (base64 of gzip costs 4/3 raw but nothing more once the file itself is gzipped, while base64
// of the raw wasm gzips poorly). The core is the hosted build's glue handed the inflated bytes
// as wasmBinary, so nothing is fetched; the Worker cannot start from a blob module, and
// client.js falls back to the main thread. The file carries its own CSP (hashes computed here):
// scripts only from the hashed loader and blob: modules, no network at all.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

// Relative specifiers in static imports, re-exports, side-effect imports and import('…').
// Only module files (…\.js): a JSDoc type import such as import('./willitfit') names a .d.ts, not a module.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]+\.m?js)\2/g;
// What api.js computes as the core's URL when it is a sibling file; here it is a module key.
const CORE_URL = "new URL('./willitfit.js', import.meta.url).href";

/**
 * Collect the module graph from an entry, keyed by path relative to `dir`.
 * @param {string} dir @param {string} entry @param {Record<string, string>} replace key -> file that stands in for it
 * @param {Record<string, string>} virtual key -> module source written here (no file)
 * @returns {{order: string[], src: Record<string, string>}}
 */
export function collectModules(dir, entry, replace = {}, virtual = {}) {
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
    let text = virtual[key] ?? fs.readFileSync(path.join(dir, replace[key] || key), 'utf8');
    if (key === 'api.js') {
      if (!text.includes(CORE_URL)) throw new Error('offline bundle: api.js no longer names the core as expected');
      text = text.replace(CORE_URL, "'@@wif/willitfit.js@@'");
      visit('willitfit.js');
    }
    text = text.replace(SPECIFIER, (_m, head, q, spec) => {
      // A type-only reference in a JSDoc comment (import('./willitfit') for web/willitfit.d.ts)
      // names no module file: leave it as it is.
      if (!/\.m?js$/.test(spec)) return _m;
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

// Inflate a gzip+base64 data block (shared by the loader and the core's stand-in module).
const UNPACK = `const unpack = (id) => new Response(new Blob([Uint8Array.from(atob(document.getElementById(id).textContent),
  (c) => c.charCodeAt(0))]).stream().pipeThrough(new DecompressionStream('gzip')));`;

// The loader: the only inline script. Kept small and free of build-specific text so its hash is
// stable; it is also what the CSP's script-src names.
const LOADER = `
${UNPACK}
const data = await unpack('wif-modules').json();
const urls = {};
for (const key of data.order) {
  const text = data.src[key].replace(/@@wif\\/([^@]+)@@/g, (m, k) => urls[k]);
  urls[key] = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}
import(urls[data.entry]);
`;

// Stands in for willitfit.js: the hosted glue (willitfit-glue.js here), given the wasm bytes
// inflated from the page instead of fetching willitfit.wasm beside it (there is no beside).
// Inflating starts when the module is first imported, i.e. on the first call into the core.
const CORE_STANDIN = `import factory from './willitfit-glue.js';
${UNPACK}
const wasm = unpack('wif-wasm').arrayBuffer();
// locateFile: without it the glue resolves new URL('willitfit.wasm', import.meta.url), which
// throws for a blob: module; with wasmBinary given, the name it returns is never fetched.
export default async (opts = {}) => factory({ ...opts, wasmBinary: await wasm, locateFile: (f) => f });
`;

const sha256 = (/** @type {string} */ s) => `'sha256-${crypto.createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** Text safe inside a <script> or <style> element (no end tag can appear in it). @param {string} s */
const rawSafe = (s) => s.replace(/<\/(script|style)/gi, '<\\/$1');

/**
 * Our modules without their whole-line comments (a tenth of the page once compressed; the hosted
 * app keeps them). Line-based, no parser: a line is dropped only when it starts with // or lies
 * in a block comment that starts a line, and never inside a template literal (tracked by the
 * parity of backticks on the lines kept, so a miscount only ever keeps more).
 * @param {string} text
 */
export function stripComments(text) {
  const out = [];
  let inTemplate = false, inBlock = false;
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (inBlock) {
      const end = line.indexOf('*/');
      if (end < 0) continue;
      inBlock = false;
      if (!line.slice(end + 2).trim()) continue;
      out.push(line.slice(end + 2));   // code after the comment on its last line
      continue;
    }
    if (!inTemplate && t.startsWith('//')) continue;
    if (!inTemplate && t.startsWith('/*')) {
      const end = t.indexOf('*/', 2);
      if (end < 0) { inBlock = true; continue; }
      if (end === t.length - 2) continue;
    }
    out.push(line);
    if ((line.split('`').length - 1) % 2 === 1) inTemplate = !inTemplate;
  }
  return out.join('\n');
}

/** gzip at the highest level, then base64 (only A-Z a-z 0-9 + / =: safe in any element). @param {Buffer | string} b */
const packed = (b) => zlib.gzipSync(b, { level: 9, memLevel: 9 }).toString('base64');

/**
 * Write the one-file page from an assembled dist/ (which must hold willitfit.js and willitfit.wasm).
 * @param {string} dist
 * @returns {{file: string, bytes: number}}
 */
export function buildOffline(dist) {
  let html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const mods = collectModules(dist, 'app.js', { 'willitfit-glue.js': 'willitfit.js' }, { 'willitfit.js': CORE_STANDIN });
  for (const key of mods.order)
    if (!key.startsWith('vendor/') && key !== 'willitfit-glue.js') mods.src[key] = stripComments(mods.src[key]);
  const json = JSON.stringify({ entry: 'app.js', order: mods.order, src: mods.src });

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
  // No connect-src: the wasm bytes come from the page itself, never through fetch().
  const csp = ["default-src 'none'", `script-src ${sha256(LOADER)} blob: 'wasm-unsafe-eval'`,
    `style-src ${styles.map(sha256).join(' ')}`, 'img-src data: blob:',
    "object-src 'none'", "base-uri 'none'", "form-action 'none'"].join('; ');
  // The policy comes first in <head> so it governs everything after it.
  html = html.replace('<meta charset="utf-8">', () => `<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="${csp}">`);
  // Data blocks (a type the browser does not run): the CSP does not apply to them.
  const scripts = `<script type="application/octet-stream" id="wif-modules">${packed(json)}</script>\n  ` +
    `<script type="application/octet-stream" id="wif-wasm">${packed(fs.readFileSync(path.join(dist, 'willitfit.wasm')))}</script>\n  ` +
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
