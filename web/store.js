// @ts-check
// Custom models (imported config.json) and custom devices, kept in localStorage so they survive a
// reload, with export to and import from a JSON file. A saved entry that does not parse or lacks
// its fields is never dropped silently: it moves to a "set aside" list that the page reports and
// that can be downloaded, and the rest keeps working.

const KEY = 'willitfit.custom.v1';
const ASIDE = 'willitfit.aside.v1';

/** @typedef {{name: string, config: object, saved?: string}} CustomModel */
/** @typedef {{name: string, kind: string, memory_gib: number, bandwidth_gbs: number, fp16_tflops?: number, backend?: string}} CustomDevice */
/** @typedef {{kind: 'model'|'device'|'file', key: string, reason: string, raw: string}} AsideEntry */

/** @type {{models: Record<string, CustomModel>, devices: Record<string, CustomDevice>}} */
let data = { models: {}, devices: {} };
/** @type {AsideEntry[]} */
let aside = [];
/** Entries set aside during this page load (what the notice reports). */
/** @type {AsideEntry[]} */
export const problems = [];

/** @param {any} m */
export function validModel(m) {
  if (!m || typeof m !== 'object') return 'not an object';
  if (typeof m.name !== 'string' || !m.name) return 'no name';
  if (!m.config || typeof m.config !== 'object' || Array.isArray(m.config)) return 'no config object';
  return '';
}

/** @param {any} d */
export function validDevice(d) {
  if (!d || typeof d !== 'object') return 'not an object';
  if (typeof d.name !== 'string' || !d.name) return 'no name';
  if (!['gpu', 'apple', 'unified', 'cpu'].includes(d.kind)) return 'bad kind';
  if (!(typeof d.memory_gib === 'number' && d.memory_gib > 0 && d.memory_gib < 1e5)) return 'bad memory_gib';
  if (!(typeof d.bandwidth_gbs === 'number' && d.bandwidth_gbs > 0 && d.bandwidth_gbs < 1e6)) return 'bad bandwidth_gbs';
  return '';
}

function storage() {
  try { return window.localStorage; } catch { return null; }
}

/** Load saved entries; anything broken is moved aside and reported. */
export function load() {
  const ls = storage();
  data = { models: {}, devices: {} };
  if (!ls) return;
  try { aside = JSON.parse(ls.getItem(ASIDE) || '[]'); if (!Array.isArray(aside)) aside = []; } catch { aside = []; }
  const raw = ls.getItem(KEY);
  if (!raw) return;
  /** @type {any} */
  let doc;
  try {
    doc = JSON.parse(raw);
  } catch {
    setAside({ kind: 'file', key: KEY, reason: 'not valid JSON', raw });
    save();
    return;
  }
  const before = problems.length;
  merge(doc);
  if (problems.length !== before) save();
}

/** @param {AsideEntry} e */
function setAside(e) {
  aside.push(e);
  problems.push(e);
  storage()?.setItem(ASIDE, JSON.stringify(aside));
}

/** Merge a document {models, devices}; returns how many entries were accepted. @param {any} doc */
export function merge(doc) {
  let n = 0;
  if (!doc || typeof doc !== 'object') {
    setAside({ kind: 'file', key: '', reason: 'not an object', raw: JSON.stringify(doc) });
    return 0;
  }
  for (const [k, m] of Object.entries(doc.models || {})) {
    const why = validModel(m);
    if (why) setAside({ kind: 'model', key: k, reason: why, raw: JSON.stringify(m) });
    else { data.models[k] = m; n++; }
  }
  for (const [k, d] of Object.entries(doc.devices || {})) {
    const why = validDevice(d);
    if (why) setAside({ kind: 'device', key: k, reason: why, raw: JSON.stringify(d) });
    else { data.devices[k] = d; n++; }
  }
  return n;
}

export function save() {
  storage()?.setItem(KEY, JSON.stringify(data));
}

export const models = () => data.models;
export const devices = () => data.devices;
export const setAsideEntries = () => aside.slice();

/** A key from a name: "custom:" + slug, unique among existing keys. @param {string} name @param {Record<string, any>} taken */
function keyFor(name, taken) {
  const base = `custom:${name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'item'}`;
  let k = base;
  for (let i = 2; taken[k]; i++) k = `${base}-${i}`;
  return k;
}

// Models read from a local .gguf header live only for this visit: headers run to megabytes
// (the tokenizer), too large for localStorage.
/** @type {Record<string, {name: string, gguf_header_base64: string}>} */
const session = {};

/** @param {{name: string, gguf_header_base64: string}} m @returns {string} the key ("gguf:…") */
export function addSessionModel(m) {
  const k = keyFor(m.name, { ...data.models, ...session }).replace(/^custom:/, 'gguf:');
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
  storage()?.removeItem(ASIDE);
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
  const g = session[id];
  if (g) return { ...g, id };   // a GGUF header, or a Hub model's own reference (views/hub.js)
  const m = data.models[id];
  return m ? { id, name: m.name, config: m.config } : id;
}

/** @param {string} id */
export function deviceRef(id) {
  const d = data.devices[id];
  return d ? { id, ...d } : id;
}
