// @ts-check
// Reading a model repository from the Hugging Face Hub, in the browser and in Node 20 (global
// fetch, AbortController). This module only moves bytes: the core (hub_repo.hpp, through
// api.js's hubRef / hubRepo) parses the reference, lists the quants and says what to read next;
// here each read is one request with a timeout, cancellable from outside. Files are read by a
// plain GET with one bounded `Range: bytes=0-(n-1)` (no HEAD, no suffix range), following the
// Hub's redirect to its file host. An access token, when given, goes only to the Hub's own
// origin (the browser drops Authorization on the cross-origin redirect, as the fetch standard
// requires). Failures are HubError with a code; the core's are WillitfitError with a code.

/** The Hub. Tests point the layer at a mock on 127.0.0.1 through `base`; people cannot. */
export const HUB = 'https://huggingface.co';

export class HubError extends Error {
  /**
   * @param {string} code hub_not_found | hub_gated | hub_rate_limited | hub_network | hub_timeout |
   *   hub_cancelled | hub_http | hub_offline
   * @param {string} message
   * @param {{status?: number, retryAfterS?: number, url?: string}} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.path = 'ref';
    this.status = extra.status;
    this.retryAfterS = extra.retryAfterS;
    /** the same as data, so it survives the worker's message (worker.js describe) */
    this.values = extra.retryAfterS !== undefined ? { retry_after_s: String(extra.retryAfterS) } : undefined;
    this.url = extra.url;
  }
}

/** @param {Uint8Array} bytes */
export function toBase64(bytes) {
  const g = /** @type {any} */ (globalThis);
  if (g.Buffer) return g.Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); undefined when absent. @param {string|null} v */
function retryAfter(v) {
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.round((t - Date.now()) / 1000));
}

/**
 * One request with its own timeout, aborted too when `signal` aborts.
 * @param {string} url
 * @param {{fetch: typeof fetch, signal?: AbortSignal, timeoutMs: number, headers: Record<string,string>,
 *   log: {url: string, status: number, bytes: number, range?: string}[], kind: 'api'|'file'}} o
 * @param {(r: Response) => Promise<any>} read
 */
async function request(url, o, read) {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, o.timeoutMs);
  const onAbort = () => ctl.abort();
  if (o.signal) {
    if (o.signal.aborted) ctl.abort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
  }
  const entry = { url, status: 0, bytes: 0, range: o.headers.Range };
  o.log.push(entry);
  try {
    const init = /** @type {RequestInit} */ ({ headers: o.headers, signal: ctl.signal, redirect: 'follow', credentials: 'omit', cache: 'no-store' });
    // One retry when the connection drops before an answer (a kept-alive socket the server had
    // just closed); never after a timeout or a cancel.
    const res = await o.fetch(url, init).catch((e) => {
      if (ctl.signal.aborted) throw e;
      return o.fetch(url, init);
    });
    entry.status = res.status;
    if (!res.ok) {
      const xec = res.headers.get('x-error-code') || '';
      const retry = retryAfter(res.headers.get('retry-after'));
      res.body?.cancel().catch(() => {});
      if (res.status === 429)
        throw new HubError('hub_rate_limited', `the Hub asks to wait${retry !== undefined ? ` ${retry} s` : ''} before the next request`, { status: 429, retryAfterS: retry, url });
      if (xec === 'GatedRepo' || (o.kind === 'file' && (res.status === 401 || res.status === 403)))
        throw new HubError('hub_gated', 'this model is gated: accept its licence on the Hub, then give an access token', { status: res.status, url });
      if (xec === 'RepoNotFound' || res.status === 404 || (o.kind === 'api' && res.status === 401))
        throw new HubError('hub_not_found', 'no such model on the Hub (or it is private)', { status: res.status, url });
      throw new HubError('hub_http', `the Hub answered ${res.status}`, { status: res.status, url });
    }
    const out = await read(res);
    entry.bytes = out.byteLength ?? out.length ?? 0;
    return out;
  } catch (e) {
    if (e instanceof HubError) throw e;
    if (timedOut) throw new HubError('hub_timeout', `no answer from the Hub within ${Math.round(o.timeoutMs / 1000)} s`, { url });
    if (o.signal?.aborted) throw new HubError('hub_cancelled', 'the lookup was cancelled', { url });
    throw new HubError('hub_network', 'the Hub cannot be reached (network down or blocked)', { url });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/** The first `n` bytes of the body, stopping the transfer there (a server may ignore Range). @param {Response} res @param {number} n */
async function firstBytes(res, n) {
  if (res.status === 206 || !res.body) return new Uint8Array(await res.arrayBuffer()).subarray(0, n);
  const reader = res.body.getReader();
  const out = new Uint8Array(n);
  let k = 0;
  while (k < n) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = Math.min(value.length, n - k);
    out.set(value.subarray(0, take), k);
    k += take;
  }
  reader.cancel().catch(() => {});
  return out.subarray(0, k);
}

/** @param {string} p */
const encodePath = (p) => p.split('/').map(encodeURIComponent).join('/');

/**
 * @typedef {{hubRef: (text: string) => Promise<any>, hubRepo: (doc: object) => Promise<any>}} HubCore
 * @typedef {{get: (key: string) => Promise<any>, put: (key: string, value: any) => Promise<void>}} HubCache
 * @typedef {{core: HubCore, base?: string, token?: string, fetch?: typeof fetch, signal?: AbortSignal,
 *   timeoutMs?: number, cache?: HubCache, offline?: boolean, quant?: string, file?: string, mmprojFile?: string}} LookupOptions
 */

/**
 * Read a repository named by `text` (repo id, Hub link, owner/repo:QUANT) until the core has
 * what it needs for the chosen quant. Resolves to {ref, repo, doc, requests, fromCache, readAt}:
 * `repo` is the core's document (hub_repo.hpp), `doc` what was read (kept in the cache keyed by
 * repo and revision), `requests` every request made with its status and body bytes.
 * @param {string} text
 * @param {LookupOptions} opts
 */
export async function lookup(text, opts) {
  const { core } = opts;
  const base = (opts.base || HUB).replace(/\/+$/, '');
  const f = opts.fetch || globalThis.fetch.bind(globalThis);
  const timeoutMs = opts.timeoutMs || 20000;
  /** @type {{url: string, status: number, bytes: number, range?: string}[]} */
  const log = [];
  const ref = await core.hubRef(text);
  if (opts.quant) ref.quant = opts.quant;
  if (opts.file) ref.file = opts.file;
  const mmprojFile = opts.mmprojFile || undefined;
  const apiHeaders = /** @type {Record<string,string>} */ ({ Accept: 'application/json' });
  if (opts.token) apiHeaders.Authorization = `Bearer ${opts.token}`;
  const cache = opts.cache;
  const revKey = `${ref.repo}@${ref.revision || 'main'}`;

  /** @param {any} cached */
  const fromCache = async (cached) => {
    /** @type {any} */
    const doc = { ...cached.doc, quant: ref.quant, file: ref.file, mmproj_file: mmprojFile };
    let repo = await core.hubRepo(doc);
    // A repo cached before its projector header was read: the text model still answers offline,
    // the projector says why it is missing (the core's mmproj_error hub_offline).
    const mm = new Set((repo.mmproj || []).map((/** @type {any} */ x) => x.path));
    if (repo.read.length && repo.read.every((/** @type {any} */ it) => mm.has(it.path))) {
      doc.mmproj_skip = true;
      repo = await core.hubRepo(doc);
    }
    if (repo.read.length) throw new HubError('hub_offline', 'this quant was not read before and the Hub cannot be reached');
    return { ref, repo, doc, requests: log, fromCache: true, readAt: cached.readAt };
  };

  let info;
  if (opts.offline) {
    const cached = cache && (await cache.get(revKey).then((k) => k && cache.get(k)));
    if (!cached) throw new HubError('hub_offline', 'offline, and this repo was not read before');
    return fromCache(cached);
  }
  try {
    const url = ref.revision
      ? `${base}/api/models/${ref.repo}/revision/${encodeURIComponent(ref.revision)}?blobs=true`
      : `${base}/api/models/${ref.repo}?blobs=true`;
    info = await request(url, { fetch: f, signal: opts.signal, timeoutMs, headers: apiHeaders, log, kind: 'api' }, (r) => r.json());
  } catch (e) {
    // Network down: what was read before, if anything, still answers (and says when it was read).
    if (cache && e instanceof HubError && (e.code === 'hub_network' || e.code === 'hub_timeout')) {
      const key = await cache.get(revKey);
      const cached = key && (await cache.get(key));
      if (cached) return fromCache(cached);
    }
    throw e;
  }
  const docKey = `${ref.repo}@${info && info.sha}`;
  const cached = cache && info && info.sha ? await cache.get(docKey) : null;
  /** @type {any} */
  const doc = cached ? { ...cached.doc, info, quant: ref.quant, file: ref.file, mmproj_file: mmprojFile }
    : { repo: ref.repo, info, quant: ref.quant, file: ref.file, mmproj_file: mmprojFile, gguf: {}, safetensors: {} };
  let repo;
  for (let round = 0; ; round++) {
    repo = await core.hubRepo(doc);
    if (!repo.read.length) break;
    if (round >= 12) throw new HubError('hub_http', 'the header kept growing past what was read');
    await Promise.all(repo.read.map(async (/** @type {{kind: string, path: string, bytes: number}} */ it) => {
      const url = `${base}/${ref.repo}/resolve/${repo.revision}/${encodePath(it.path)}`;
      /** @type {Record<string,string>} */
      const headers = {};
      if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
      const o = { fetch: f, signal: opts.signal, timeoutMs, headers, log, kind: /** @type {'file'} */ ('file') };
      if (it.kind === 'config') {
        doc.config = await request(url, o, (r) => r.text());
      } else {
        headers.Range = `bytes=0-${it.bytes - 1}`;
        const bytes = await request(url, o, (r) => firstBytes(r, it.bytes));
        doc[it.kind][it.path] = toBase64(bytes);
      }
    }));
  }
  const readAt = new Date().toISOString();
  if (cache && !cached) {
    await cache.put(docKey, { doc: { ...doc, quant: undefined, file: undefined, mmproj_file: undefined }, readAt });
    await cache.put(revKey, docKey);
  } else if (cache && cached) {
    await cache.put(docKey, { doc: { ...doc, quant: undefined, file: undefined, mmproj_file: undefined }, readAt: cached.readAt });
  }
  return { ref, repo, doc, requests: log, fromCache: !!cached, readAt: cached ? cached.readAt : readAt };
}

/** @type {Promise<IDBDatabase|null>|null} */
let dbp = null;
/** @type {HubCache|null|undefined} */
let idb;
/**
 * What was read from the Hub, kept in IndexedDB ("willitfit-hub", store "reads") keyed by repo
 * and revision: the page's worker and the main thread share it. null where there is no
 * IndexedDB (Node, some private modes): lookups then read the network every time.
 * @returns {HubCache|null}
 */
export function idbCache() {
  if (idb !== undefined) return idb;
  if (typeof indexedDB === 'undefined') return (idb = null);
  /** @returns {Promise<IDBDatabase|null>} */
  const open = () => new Promise((resolve) => {
    try {
      const r = indexedDB.open('willitfit-hub', 1);
      r.onupgradeneeded = () => r.result.createObjectStore('reads');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => resolve(null);
    } catch { resolve(null); }
  });
  idb = {
    async get(key) {
      const db = await (dbp ||= open());
      if (!db) return undefined;
      return new Promise((resolve) => {
        const r = db.transaction('reads').objectStore('reads').get(key);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => resolve(undefined);
      });
    },
    async put(key, value) {
      const db = await (dbp ||= open());
      if (!db) return;
      await new Promise((resolve) => {
        const tx = db.transaction('reads', 'readwrite');
        tx.objectStore('reads').put(value, key);
        tx.oncomplete = tx.onerror = () => resolve(undefined);
      });
    },
  };
  return idb;
}

/**
 * The estimate's model for a row of repo.quants (null when the core has no plan for it yet:
 * a quant the planner does not know, whose own header has not been read).
 * @param {any} found lookup()'s result @param {any} row one of found.repo.quants
 */
export function modelFor(found, row) {
  if (!row || !row.model) return null;
  const { header, shards, mmproj, ...m } = row.model;
  // Read in the module's own thread (api.js hubLookup): the header is registered there and
  // the model names its handle; a split file's handle covers every shard. The repo's vision
  // projector (mmproj: the path of the file read) goes the same way.
  if (header && found.handles) {
    if (!found.handles[header]) return null;
    m.gguf_handle = found.handles[header];
    if (mmproj && found.handles[mmproj]) m.mmproj_handle = found.handles[mmproj];
    return m;
  }
  if (header) m.gguf_header_base64 = found.doc.gguf[header];
  if (mmproj && typeof found.doc.gguf[mmproj] === 'string') m.mmproj_header_base64 = found.doc.gguf[mmproj];
  // A split file: every other shard's first bytes, in order (the core read them all).
  if (Array.isArray(shards)) m.gguf_shards_base64 = shards.map((/** @type {string} */ p) => found.doc.gguf[p]);
  return m;
}

/**
 * The Hub's base. Tests may point the page and the widget at a mock by setting
 * globalThis.__WILLITFIT_HUB_BASE__ before they load (Playwright's addInitScript), honoured only
 * when the document itself is served from this machine (127.0.0.1 / localhost): anywhere else
 * the lookups go to huggingface.co.
 */
export function hubBase() {
  const g = /** @type {any} */ (globalThis);
  const host = typeof location === 'undefined' ? '' : location.hostname;
  const local = host === '127.0.0.1' || host === 'localhost';
  return local && typeof g.__WILLITFIT_HUB_BASE__ === 'string' ? g.__WILLITFIT_HUB_BASE__ : HUB;
}

/**
 * The i18n key (hub_err_*) and its values for a failed lookup (HubError or the core's
 * WillitfitError), the same on the page and in the widget: a hostile or unreadable header is
 * one message, a short one another; a code with no message of its own gets hub_err_other.
 * @param {any} e @returns {{key: string, values: Record<string, string>, code: string}}
 */
export function hubErrorKey(e) {
  const code = String(e && e.code || 'hub_http');
  /** @type {Record<string, string>} */
  const values = { 0: '' };
  if (code === 'hub_rate_limited') {
    const after = e.retryAfterS !== undefined ? e.retryAfterS : e.values && e.values.retry_after_s;
    values[0] = after !== undefined ? String(after) : '?';
  }
  if (code === 'unsupported_model_type') values[0] = (e.values && e.values.model_type) || '?';
  const bad = /^(gguf|safetensors)_/.test(code) && code !== 'gguf_truncated' && code !== 'safetensors_truncated';
  const key = bad ? 'hub_err_bad_header' : `hub_err_${code.replace(/^safetensors_truncated$/, 'gguf_truncated')}`;
  return { key, values, code };
}

/**
 * Session models the page made from a Hub repo (views/hub.js), by their model key: the
 * reference they came from, so that an embed snippet names the repo rather than a key only this
 * browser knows.
 * @type {Map<string, {hf: string, quant: string}>}
 */
export const hubModels = new Map();

/** The data-free total of requests and bytes a lookup made. @param {{status: number, bytes: number}[]} log */
export function traffic(log) {
  return { requests: log.length, bytes: log.reduce((s, r) => s + r.bytes, 0) };
}
