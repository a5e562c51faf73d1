// The static server for dist/ (npm start and the browser tests): serve-handler on node's http,
// with a strict Content-Security-Policy on every response.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import handler from 'serve-handler';

// connect-src: the page itself and the Hugging Face Hub (its API on huggingface.co and the file
// hosts it redirects to: cdn-lfs*.huggingface.co, cas-bridge.xethub.hf.co …), nothing else.
export const HUB_HOSTS = 'https://huggingface.co https://*.huggingface.co https://*.hf.co';
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
  `img-src 'self' data:; connect-src 'self' ${HUB_HOSTS}; object-src 'none'; base-uri 'none'; frame-ancestors *`;

/**
 * The policy with more sources: `styles` and `scripts`, the hashes of a page's inline style and
 * script blocks ('sha256-…'), and `connect` (tests only: a mock Hub on 127.0.0.1). `meta`: as a
 * page states it in a <meta http-equiv> (for hosts that send no header): without
 * frame-ancestors, which a browser only takes from a header.
 * @param {{styles?: string[], scripts?: string[], connect?: string[], meta?: boolean}} more
 */
export function cspWith({ styles = [], scripts = [], connect = [], meta = false } = {}) {
  let p = CSP;
  if (styles.length) p = p.replace("style-src 'self'", `style-src 'self' ${styles.join(' ')}`);
  if (scripts.length) p = p.replace("script-src 'self' 'wasm-unsafe-eval'", `script-src 'self' 'wasm-unsafe-eval' ${scripts.join(' ')}`);
  if (connect.length) p = p.replace(HUB_HOSTS, `${HUB_HOSTS} ${connect.join(' ')}`);
  if (meta) p = p.replace(/; frame-ancestors [^;]*/, '');
  return p;
}

/**
 * The hashes of the inline style blocks a prerendered page names in its own policy (its
 * <meta http-equiv="Content-Security-Policy">, written with the page by scripts/prerender.mjs):
 * the header sent with the page names them too, or the browser, which applies both policies,
 * would refuse the blocks.
 * @param {string} html
 */
export function pageStyleHashes(html) {
  return pagePolicyHashes(html, 'style-src');
}

/** The same for the inline script blocks (script-src). @param {string} html */
export function pageScriptHashes(html) {
  return pagePolicyHashes(html, 'script-src');
}

/** The hashes one directive of the page's own policy names. @param {string} html @param {string} directive */
function pagePolicyHashes(html, directive) {
  const tag = (html.match(/<meta\s[^>]*>/gi) || []).find((t) => /\shttp-equiv="Content-Security-Policy"/i.test(t));
  const content = tag ? /\scontent="([^"]*)"/.exec(tag) : null;
  const src = content ? new RegExp(`(?:^|;)\\s*${directive} ([^;]*)`).exec(content[1]) : null;
  return src ? src[1].split(/\s+/).filter((x) => /^'sha256-[A-Za-z0-9+/]+=*'$/.test(x)) : [];
}

/** Does the URL name a file under root ('/' is index.html)? @param {string} root @param {string} url */
function exists(root, url) {
  let p;
  try { p = decodeURIComponent(new URL(url, 'http://x').pathname); } catch { return false; }
  if (p.endsWith('/')) p += 'index.html';   // '/' and a prerendered page's folder
  const file = path.resolve(root, `.${p}`);
  if (file !== root && !file.startsWith(root + path.sep)) return false;
  try { return fs.statSync(file).isFile(); } catch { return false; }
}

/**
 * The style and script hashes of the prerendered page the URL names (none for any other file).
 * @param {string} root @param {string} url @returns {{styles: string[], scripts: string[]}}
 */
function pageHashes(root, url) {
  const none = { styles: [], scripts: [] };
  let p;
  try { p = decodeURIComponent(new URL(url, 'http://x').pathname); } catch { return none; }
  if (!/^\/(en|es|fr|zh)\/.*(\/|\.html)$/.test(p)) return none;
  if (p.endsWith('/')) p += 'index.html';
  const file = path.resolve(root, `.${p}`);
  if (!file.startsWith(root + path.sep)) return none;
  let head;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(4096);
      head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
    } finally { fs.closeSync(fd); }
  } catch { return none; }
  return { styles: pageStyleHashes(head), scripts: pageScriptHashes(head) };
}

/** A 404 that obeys the CSP: no inline style or script, the app's own stylesheet. @param {http.ServerResponse} res */
function notFound(res) {
  res.statusCode = 404;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title>' +
    '<link rel="stylesheet" href="/styles.css"></head><body><main><h1>Not found</h1>' +
    '<p><a href="/">willitfit</a></p></main></body></html>\n');
}

/**
 * `connect` (tests only): more origins for connect-src, e.g. a mock Hub on 127.0.0.1.
 * @param {{root?: string, port?: number, host?: string, csp?: boolean, connect?: string[]}} opts
 */
export function startServer(opts = {}) {
  const root = opts.root ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'dist');
  // A shared link may carry a long query (an imported config, a long id): Node's default 16 KiB
  // header limit would answer 431 with no body, which the browser shows as its own error page
  // instead of the app and its coded error.
  const server = http.createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    if (opts.csp !== false)
      res.setHeader('Content-Security-Policy', cspWith({ connect: opts.connect, ...pageHashes(root, req.url || '/') }));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The widget and its module may be loaded by pages on other origins.
    res.setHeader('Access-Control-Allow-Origin', '*');
    // Missing files get a page of our own: serve-handler's 404 page carries an inline style,
    // which the CSP above (style-src 'self') forbids.
    if (!exists(root, req.url || '/')) return notFound(res);
    // A prerendered page's folder (/es/glm-4.5-air/) is its index.html.
    const u = new URL(req.url || '/', 'http://x');
    if (u.pathname !== '/' && u.pathname.endsWith('/')) req.url = `${u.pathname}index.html${u.search}`;
    return handler(req, res, {
      public: root, directoryListing: false, cleanUrls: false,
      rewrites: [{ source: '/', destination: '/index.html' }],
      headers: [{ source: '**/*.wasm', headers: [{ key: 'Content-Type', value: 'application/wasm' }] }],
    });
  });
  return new Promise((resolve, reject) => {
    let port = opts.port ?? 0;
    const tryListen = () => {
      server.once('error', (e) => {
        if (/** @type {any} */ (e).code === 'EADDRINUSE' && opts.port && port < opts.port + 20) {
          port += 1;
          tryListen();
        } else reject(e);
      });
      server.listen(port, opts.host ?? '127.0.0.1', () => {
        const a = /** @type {import('node:net').AddressInfo} */ (server.address());
        resolve({ server, url: `http://${opts.host ?? '127.0.0.1'}:${a.port}/` });
      });
    };
    tryListen();
  });
}
