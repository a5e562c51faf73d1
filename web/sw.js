// The service worker: precaches the app shell, the wasm module and its glue on install, answers
// from the cache first, and deletes caches of other versions on activate. scripts/assemble.mjs
// writes VERSION (a hash of the assembled files), FILES (what to precache) and HASHES (the
// SHA-256 of each precached file, base64) into dist/sw.js, so a new build is a new cache and an
// old one is dropped once the new worker takes over.
//
// Integrity: a file is put in the cache only when its bytes have the hash of this version, and a
// cached file is checked against it each time it is served. A cached file that is
// wrong (a damaged disk cache, a tampered entry) is deleted and fetched again from the network;
// when the network copy is wrong too (an older or newer build is being served) the cache is
// dropped whole and the network answers, so the app never runs from bytes it cannot vouch for.
const VERSION = '__WIF_VERSION__';
const FILES = ['./'];   // replaced by the build with every file the app needs
/** @type {Record<string, string>} */
const HASHES = {};      // replaced by the build: file (relative to this worker) -> sha256 base64
const CACHE = `willitfit-${VERSION}`;
/** The worker's global scope (typed loosely: the page's type check uses the DOM library). */
const sw = /** @type {any} */ (self);

/** The HASHES key of a request URL ('./' and navigations are index.html), or '' when not listed. @param {string} url */
function fileOf(url) {
  const u = new URL(url);
  const base = new URL('./', self.location.href);
  if (u.origin !== base.origin || !u.pathname.startsWith(base.pathname)) return '';
  const rel = u.pathname.slice(base.pathname.length) || 'index.html';
  return Object.hasOwn(HASHES, rel) ? rel : '';
}

/** @param {Response} res */
async function sha256(res) {
  const digest = await crypto.subtle.digest('SHA-256', await res.clone().arrayBuffer());
  let s = '';
  for (const b of new Uint8Array(digest)) s += String.fromCharCode(b);
  return btoa(s);
}

/** Is this response the file the build listed? Unlisted files pass. @param {string} file @param {Response} res */
async function intact(file, res) {
  return !file || (await sha256(res)) === HASHES[file];
}

/** Fetched files that match their hashes go in the cache; a wrong one is refused. @param {Cache} cache @param {string} url */
async function fetchChecked(cache, url) {
  const res = await fetch(url, { cache: 'reload' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  if (!(await intact(fileOf(res.url || url), res))) throw new Error(`${url}: not the file of version ${VERSION}`);
  await cache.put(url, res.clone());
  return res;
}

self.addEventListener('install', (/** @type {any} */ event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(FILES.map((f) => fetchChecked(cache, new URL(f, self.location.href).href)));
    await sw.skipWaiting();
  })());
});

self.addEventListener('activate', (/** @type {any} */ event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key.startsWith('willitfit-') && key !== CACHE) await caches.delete(key);
    await sw.clients.claim();
  })());
});

self.addEventListener('fetch', (/** @type {any} */ event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // Every view of the app is index.html with a query string.
    const navigate = req.mode === 'navigate';
    const hit = await cache.match(req, { ignoreSearch: navigate });
    const file = fileOf(navigate ? new URL('./', self.location.href).href : req.url);
    // Checked on every use (hashing the whole app is a few milliseconds): a copy damaged while
    // this worker runs is caught on the next load, not on the next worker.
    if (hit && (await intact(file, hit))) return hit;
    if (hit) {
      // A damaged copy: drop it and take the network's, checked the same way.
      await cache.delete(req, { ignoreSearch: navigate });
      try {
        const res = await fetchChecked(cache, navigate ? new URL('./', self.location.href).href : req.url);
        return navigate ? fetch(req) : res;
      } catch {
        await caches.delete(CACHE);   // clean reinstall on the next visit
        return fetch(req);
      }
    }
    const res = await fetch(req);
    if (res.ok && res.type === 'basic' && (await intact(file, res))) cache.put(req, res.clone());
    return res;
  })());
});
