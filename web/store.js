// @ts-check
// Custom models (imported config.json) and custom devices, kept in localStorage so they survive a
// reload, with export to and import from a JSON file. A saved entry that does not parse or lacks
// its fields is never dropped silently: it moves to a "set aside" list that the page reports and
// that can be downloaded, and the rest keeps working.

const KEY = 'willitfit.custom.v1';
const ASIDE = 'willitfit.aside.v1';

/** @typedef {{name: string, config: object, saved?: string}} CustomModel */
/** @typedef {{name: string, kind: string, memory_gib: number, bandwidth_gbs: number, fp16_tflops?: number, backend?: string}} CustomDevice */
/**
 * Why an entry could not be read, as a code the page words in its language (i18n `aside_<code>`,
 * with `params`); `detail` is the browser's own text where there is one (the exception's name or
 * message), kept as it came and never shown as the sentence.
 * @typedef {{code: string, params?: Record<string, number|string>, detail?: string}} Why
 */
/** @typedef {{kind: 'model'|'device'|'file'|'storage', key: string, code: string, params?: Record<string, number|string>, detail?: string, raw: string}} AsideEntry */

// Bounds on what is read back (storage holds text written by anyone with devtools or an
// extension): the whole saved text (2 MiB, as the core's saved.hpp kMaxSavedBytes), one entry
// (256 KiB: a config.json is a few KB), nesting (64 levels, as the core's json_util.hpp
// kMaxJsonDepth), keys (200 characters) and entries per kind (256). What passes a bound is set
// aside as its first 4096 characters with its full length, so setting it aside cannot fill the
// storage it came from.
const MAX_TEXT = 2 * 1024 * 1024;
const MAX_ENTRY = 256 * 1024;
const MAX_DEPTH = 64;
const MAX_KEY = 200;
const MAX_ENTRIES = 256;
const ASIDE_CHARS = 4096;

/** A map with no prototype, so keys like "__proto__", "toString" or "constructor" are plain keys. */
const dict = () => /** @type {Record<string, any>} */ (Object.create(null));

/** @type {{models: Record<string, CustomModel>, devices: Record<string, CustomDevice>}} */
let data = { models: dict(), devices: dict() };
/** @type {AsideEntry[]} */
let aside = [];
/** Entries set aside during this page load (what the notice reports). */
/** @type {AsideEntry[]} */
export const problems = [];

/** Nesting depth of JSON text without parsing it (brackets inside strings do not count). @param {string} text */
export function jsonDepth(text) {
  let depth = 0, max = 0, inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inStr) {
      if (c === 92) i++;            // backslash: skip the escaped character
      else if (c === 34) inStr = false;
    } else if (c === 34) inStr = true;
    else if (c === 91 || c === 123) { if (++depth > max) max = depth; if (max > MAX_DEPTH) return max; }
    else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return max;
}

/** The start of a long text, for the set-aside list. @param {string} raw */
const clip = (raw) => (raw.length > ASIDE_CHARS ? raw.slice(0, ASIDE_CHARS) : raw);

/** Why a stored text cannot be read, or null when it can. @param {string} raw @param {number} limit @returns {Why|null} */
function unreadable(raw, limit) {
  if (raw.length > limit) return { code: 'too_large', params: { chars: raw.length, limit } };
  if (jsonDepth(raw) > MAX_DEPTH) return { code: 'too_deep', params: { limit: MAX_DEPTH } };
  return null;
}

/** JSON text of a value, or '' when it has none (cyclic, BigInt). @param {any} v */
function text(v) {
  try { return JSON.stringify(v) ?? ''; } catch { return ''; }
}

/** What is wrong with a saved model, as a code (i18n `aside_<code>`), or '' when nothing is. @param {any} m */
export function validModel(m) {
  if (!m || typeof m !== 'object') return 'not_object';
  if (typeof m.name !== 'string' || !m.name) return 'no_name';
  if (!m.config || typeof m.config !== 'object' || Array.isArray(m.config)) return 'no_config';
  return '';
}

/** What is wrong with a saved device, as a code (i18n `aside_<code>`), or '' when nothing is. @param {any} d */
export function validDevice(d) {
  if (!d || typeof d !== 'object') return 'not_object';
  if (typeof d.name !== 'string' || !d.name) return 'no_name';
  if (!['gpu', 'apple', 'unified', 'cpu'].includes(d.kind)) return 'bad_kind';
  if (!(typeof d.memory_gib === 'number' && d.memory_gib > 0 && d.memory_gib < 1e5)) return 'bad_memory';
  if (!(typeof d.bandwidth_gbs === 'number' && d.bandwidth_gbs > 0 && d.bandwidth_gbs < 1e6)) return 'bad_bandwidth';
  return '';
}

function storage() {
  try { return window.localStorage; } catch { return null; }
}

let lastWriteFailed = false;
/** Did the last write to storage fail (full, disabled)? The page then says the entry lives for this visit only. */
export const storageFull = () => lastWriteFailed;

/** Write one key; false (and a reported problem) when the storage refuses (full, disabled). @param {string} key @param {string} value */
function write(key, value) {
  const ls = storage();
  if (!ls) return false;
  try {
    ls.setItem(key, value);
    lastWriteFailed = false;
    return true;
  } catch (e) {
    lastWriteFailed = true;
    const detail = String(/** @type {any} */ (e)?.name || 'Error');
    if (!problems.some((p) => p.kind === 'storage' && p.key === key)) problems.push({ kind: 'storage', key, code: 'storage_refused', detail, raw: '' });
    return false;
  }
}

/** Load saved entries; anything broken is moved aside and reported. */
export function load() {
  const ls = storage();
  data = { models: dict(), devices: dict() };
  if (!ls) return;
  /** @type {string | null} */
  let raw = null;
  try {
    const a = ls.getItem(ASIDE) || '[]';
    aside = unreadable(a, MAX_TEXT) ? [] : JSON.parse(a);
    if (!Array.isArray(aside)) aside = [];
    aside = aside.filter((e) => e && typeof e === 'object').slice(-MAX_ENTRIES);
  } catch { aside = []; }
  try { raw = ls.getItem(KEY); } catch { raw = null; }
  if (!raw) return;
  /** @type {any} */
  let doc;
  const why = unreadable(raw, MAX_TEXT);
  try {
    if (why) throw new Error(why.code);
    doc = JSON.parse(raw);
  } catch (e) {
    setAside({ kind: 'file', key: KEY, ...(why || { code: 'not_json', detail: String(/** @type {any} */ (e)?.message || '') }), raw: clip(raw) });
    // The unreadable text is replaced by what survived (nothing): its start is in the aside list.
    save();
    return;
  }
  const before = problems.length;
  merge(doc);
  if (problems.length !== before) save();
}

/** @param {AsideEntry} e */
function setAside(e) {
  const entry = { ...e, raw: clip(e.raw || '') };
  aside.push(entry);
  if (aside.length > MAX_ENTRIES) aside = aside.slice(-MAX_ENTRIES);
  problems.push(entry);
  if (!write(ASIDE, JSON.stringify(aside))) {
    // No room even for the list: keep the newest few, then give up quietly (reported above).
    aside = aside.slice(-8);
    write(ASIDE, JSON.stringify(aside));
  }
}

/** Entries of a stored list: an object's own keys (never its prototype's), or nothing. @param {any} o */
function entriesOf(o) {
  return o && typeof o === 'object' && !Array.isArray(o) ? Object.entries(o) : [];
}

/** Merge a document {models, devices}; returns how many entries were accepted. @param {any} doc */
export function merge(doc) {
  let n = 0;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    setAside({ kind: 'file', key: '', code: 'not_object', raw: text(doc) });
    return 0;
  }
  for (const [kind, list, valid] of /** @type {const} */ ([['model', 'models', validModel], ['device', 'devices', validDevice]])) {
    const given = doc[list];
    if (given !== undefined && given !== null && entriesOf(given).length === 0 && (typeof given !== 'object' || Array.isArray(given)))
      setAside({ kind, key: list, code: 'not_entries', raw: text(given) });
    let count = 0;
    for (const [k, m] of entriesOf(given)) {
      const raw = text(m);
      /** @type {Why|null} */
      const why = ++count > MAX_ENTRIES ? { code: 'too_many', params: { limit: MAX_ENTRIES } }
        : k.length > MAX_KEY ? { code: 'key_too_long', params: { limit: MAX_KEY } }
        : !raw ? { code: 'no_json' } : unreadable(raw, MAX_ENTRY) || (valid(m) ? { code: valid(m) } : null);
      if (why) setAside({ kind, key: k.slice(0, MAX_KEY), ...why, raw });
      else { /** @type {Record<string, any>} */ (data[list])[k] = m; n++; }
    }
  }
  return n;
}

/** Write the saved entries; false when the storage is full (the entries stay for this visit). */
export function save() {
  return write(KEY, JSON.stringify(data));
}

export const models = () => data.models;
export const devices = () => data.devices;
export const setAsideEntries = () => aside.slice();

/** A key from a name: "custom:" + slug, unique among existing keys. @param {string} name @param {Record<string, any>} taken */
function keyFor(name, taken) {
  const base = `custom:${name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'item'}`;
  let k = base;
  for (let i = 2; Object.hasOwn(taken, k); i++) k = `${base}-${i}`;
  return k;
}

// Models read from a local .gguf header live only for this visit: headers run to megabytes
// (the tokenizer), too large for localStorage.
/** @typedef {{name: string, gguf_handle?: string, gguf_header_base64?: string, [k: string]: unknown}} SessionModel */
/** @type {Record<string, SessionModel>} */
const session = dict();

/** @param {SessionModel} m @returns {string} the key ("gguf:…") */
export function addSessionModel(m) {
  const k = keyFor(m.name, Object.assign(dict(), data.models, session)).replace(/^custom:/, 'gguf:');
  session[k] = m;
  return k;
}

/** @param {CustomModel} m @returns {string} the key */
export function addModel(m) {
  const existing = Object.entries(data.models).find(([, x]) => x.name === m.name && JSON.stringify(x.config) === JSON.stringify(m.config));
  if (existing) return existing[0];
  const k = keyFor(m.name, data.models);
  data.models[k] = { ...m, saved: new Date().toISOString() };
  save();
  return k;
}

/** @param {CustomDevice} d @returns {string} the key */
export function addDevice(d) {
  const k = keyFor(d.name, data.devices);
  data.devices[k] = d;
  save();
  return k;
}

/** @param {'models'|'devices'} what @param {string} key */
export function remove(what, key) {
  delete data[what][key];
  save();
}

export function clearAside() {
  aside = [];
  problems.length = 0;
  try { storage()?.removeItem(ASIDE); } catch { /* storage off */ }
}

/** The export document. */
export function exportDoc() {
  return { willitfit: 'custom', version: 1, exported: new Date().toISOString(), ...data, set_aside: aside };
}

/** Offer a JSON document as a download. @param {any} doc @param {string} filename */
export function download(doc, filename) {
  const blob = new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** What the request's `model` field is for a state value: a catalog id or {config,…}. @param {string} id */
export function modelRef(id) {
  const g = Object.hasOwn(session, id) ? session[id] : undefined;
  if (g) return { ...g, id };   // a GGUF header, or a Hub model's own reference (views/hub.js)
  const m = Object.hasOwn(data.models, id) ? data.models[id] : undefined;
  return m ? { id, name: m.name, config: m.config } : id;
}

/** @param {string} id */
export function deviceRef(id) {
  const d = Object.hasOwn(data.devices, id) ? data.devices[id] : undefined;
  return d ? { id, ...d } : id;
}
