// The service worker: precaches the app shell, the wasm module and its glue on install, answers
// from the cache first, and deletes caches of other versions on activate. scripts/assemble.mjs
// writes VERSION (a hash of the assembled files) and FILES (what to precache) into dist/sw.js,
// so a new build is a new cache and an old one is dropped once the new worker takes over.
const VERSION = '__WIF_VERSION__';
const FILES = ['./'];   // replaced by the build with every file the app needs
const CACHE = `willitfit-${VERSION}`;
/** The worker's global scope (typed loosely: the page's type check uses the DOM library). */
const sw = /** @type {any} */ (self);

self.addEventListener('install', (/** @type {any} */ event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => sw.skipWaiting()));
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
    const hit = await cache.match(req, { ignoreSearch: req.mode === 'navigate' });
    if (hit) return hit;
    const res = await fetch(req);
    if (res.ok && res.type === 'basic') cache.put(req, res.clone());
    return res;
  })());
});
