// @ts-check
// The less common inputs: a custom device form, importing a Hugging Face config.json (paste,
// drop or choose a file; estimated through the core's `model: {config}`; nothing is uploaded),
// the saved list with export/import as a file, and "detect my hardware". Names and file
// contents are only ever shown with textContent.
import * as catalog from './catalog.js';
import { call, estimate } from './client.js';
import { propose, readClues } from './detect.js';
import { byId, fill, h, setText } from './dom.js';
import { gbOf, gib, num, params as paramsCount } from './format.js';
import { aside, errorText, labelled, t } from './i18n.js';
import { state } from './state.js';
import * as store from './store.js';

const T = (/** @type {string} */ k, /** @type {Record<string, string>} */ v = {}) => t(state.lang, k, v);

/** @typedef {{useModel: (id: string) => void, useDevice: (id: string) => void, refresh: () => void}} Hooks */
/** @type {Hooks} */
let hooks;

/**
 * Why a saved entry was set aside (store.js's code and its figures), in the page's language; an
 * entry from an older page that has no code is only said to be unreadable.
 * @param {string} lang @param {{code?: string, params?: Record<string, number|string>}} x
 */
export function asideReason(lang, x) {
  /** @type {Record<string, string>} */
  const vars = {};
  for (const [k, v] of Object.entries(x.params || {})) vars[k] = typeof v === 'number' ? num(v, lang) : String(v);
  const said = x.code ? t(lang, `aside_${x.code}`, vars) : '';
  return said && said !== `aside_${x.code}` ? said : t(lang, 'aside_other');
}

/** @param {Hooks} hk */
export function initInputs(hk) {
  hooks = hk;
  byId('cd-add').addEventListener('click', addDevice);
  byId('cfg-go').addEventListener('click', () => importConfig(byId('cfg-text').value, ''));
  const drop = byId('cfg-drop');
  const file = byId('cfg-file');
  drop.addEventListener('click', () => file.click());
  drop.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); file.click(); } });
  drop.addEventListener('dragover', (/** @type {DragEvent} */ e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (/** @type {DragEvent} */ e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const f = e.dataTransfer?.files?.[0];
    if (f) await readConfigFile(f);
  });
  file.addEventListener('change', async () => { if (file.files[0]) await readConfigFile(file.files[0]); file.value = ''; });
  byId('saved-export').addEventListener('click', () => store.download(store.exportDoc(), 'willitfit-custom.json'));
  const sf = byId('saved-file');
  byId('saved-import').addEventListener('click', () => sf.click());
  sf.addEventListener('change', async () => {
    const f = sf.files[0];
    sf.value = '';
    if (!f) return;
    const before = store.problems.length;
    let n = 0;
    try { n = store.merge(JSON.parse(await f.text())); store.save(); }
    catch { setText(byId('saved-msg'), T('import_bad_file')); return; }
    const bad = store.problems.length - before;
    setText(byId('saved-msg'), T('import_done', { 0: String(n) }) + (bad ? ` ${T('import_aside', { 0: String(bad) })}` : '') +
      (store.storageFull() ? ` ${T('storage_full')}` : ''));
    refreshSaved();
    hooks.refresh();
  });
  byId('detect').addEventListener('click', detect);
}

/** @param {File} f */
async function readConfigFile(f) {
  if (/\.gguf$/i.test(f.name)) { await importGguf(f); return; }
  if (f.size > 5e6) { setText(byId('cfg-msg'), T('cfg_too_big')); return; }
  const txt = await f.text();
  byId('cfg-text').value = txt;
  await importConfig(txt, f.name.replace(/\.json$/i, ''));
}

/** Check the config with the core first; save and use it only if the core accepts it. @param {string} txt @param {string} fileName */
export async function importConfig(txt, fileName) {
  const msg = byId('cfg-msg');
  /** @type {any} */
  let config;
  // The browser's parser message is in its own language, not the page's: a tooltip only.
  try { config = JSON.parse(txt); } catch (e) { setText(msg, T('cfg_not_json')); msg.title = String(/** @type {any} */ (e).message || ''); return; }
  if (!config || typeof config !== 'object' || Array.isArray(config)) { setText(msg, T('cfg_not_object')); return; }
  let name = byId('cfg-name').value.trim() || (typeof config._name_or_path === 'string' && config._name_or_path) ||
    (fileName && fileName !== 'config' ? fileName : '');
  try {
    const r = await estimate({ ...catalog.request(), model: { name: name || 'config.json', config } });
    // No name given: the architecture the config names and the parameter count the core found.
    if (!name) {
      const arch = Array.isArray(config.architectures) && typeof config.architectures[0] === 'string' ? config.architectures[0] : String(r.model.model_type || 'config.json');
      name = T('imported_name', { arch: arch.replace(/ForCausalLM$|ForConditionalGeneration$/, ''), params: paramsCount(r.model.params_total, state.lang) });
    }
  } catch (e) {
    const err = /** @type {any} */ (e);
    setText(msg, labelled(state.lang, T('error'), errorText(state.lang, err)));
    msg.title = String(err.message || '');
    return;
  }
  const key = store.addModel({ name, config });
  setText(msg, T('cfg_saved', { 0: name }) + (store.storageFull() ? ` ${T('storage_full')}` : ''));
  refreshSaved();
  hooks.useModel(key);
}

/** Read only the header of a local .gguf (File.slice, in the worker; nothing leaves the browser). @param {File} f */
async function importGguf(f) {
  const msg = byId('cfg-msg');
  setText(msg, T('gguf_reading'));
  try {
    // The worker reads the header and keeps it parsed under a handle: requests carry the handle.
    const { handle, summary } = await call('importGguf', f);
    const name = byId('cfg-name').value.trim() || (typeof summary.name === 'string' && summary.name) || f.name.replace(/\.gguf$/i, '');
    const model = { name, gguf_handle: handle };
    await estimate({ ...catalog.request(), model });
    const key = store.addSessionModel(model);
    setText(msg, T('gguf_loaded', { 0: name, 1: num(Array.isArray(summary.tensors) ? summary.tensors.length : 0, state.lang) }));
    hooks.useModel(key);
  } catch (e) {
    const err = /** @type {any} */ (e);
    setText(msg, labelled(state.lang, T('error'), errorText(state.lang, err)));
    msg.title = String(err.message || '');
  }
}

function addDevice() {
  const msg = byId('cd-msg');
  const d = {
    name: byId('cd-name').value.trim(), kind: byId('cd-kind').value, backend: byId('cd-backend').value,
    memory_gib: Number(byId('cd-mem').value), bandwidth_gbs: Number(byId('cd-bw').value),
  };
  const why = store.validDevice(d);
  if (why) { setText(msg, aside(state.lang, T('cd_invalid'), asideReason(state.lang, { code: why }))); return; }
  const key = store.addDevice(d);
  setText(msg, T('cd_saved', { 0: d.name }) + (store.storageFull() ? ` ${T('storage_full')}` : ''));
  refreshSaved();
  hooks.useDevice(key);
}

/** The saved list with "use" and "remove" buttons. */
export function refreshSaved() {
  const ms = Object.entries(store.models());
  const ds = Object.entries(store.devices());
  const item = (/** @type {'models'|'devices'} */ what, /** @type {string} */ key, /** @type {string} */ label) => h('li', null,
    h('span', { class: 'saved-name' }, label), ' ',
    h('button', { type: 'button', class: 'small', on: { click: () => (what === 'models' ? hooks.useModel(key) : hooks.useDevice(key)) } }, T('use')), ' ',
    h('button', { type: 'button', class: 'small', 'aria-label': `${T('remove')} ${label}`, on: { click: () => { store.remove(what, key); refreshSaved(); hooks.refresh(); } } }, T('remove')));
  fill('saved-list', ms.length + ds.length === 0 ? h('li', { class: 'note' }, T('saved_none')) : null,
    ms.map(([k, m]) => item('models', k, labelled(state.lang, T('model'), m.name))),
    ds.map(([k, d]) => item('devices', k, labelled(state.lang, T('hardware'), aside(state.lang, d.name, gib(d.memory_gib * 1024 ** 3, state.lang, 0))))));
}

async function detect() {
  const out = byId('detect-out');
  setText(out, T('detecting'));
  const c = await readClues();
  const best = propose(c, catalog.hardware);
  const seen = [c.webgpu && `WebGPU: ${c.webgpu}`, c.webgl && `WebGL: ${c.webgl}`,
    c.deviceMemoryGb !== null && labelled(state.lang, T('device_memory'), `≥ ${gbOf(c.deviceMemoryGb, state.lang)}`)].filter(Boolean).join(' · ');
  // The answer first; what the browser said (a renderer string, a clue rather than a product
  // name) folded beneath it.
  fill('detect-out',
    best ? h('p', null, T('detect_propose', { 0: best.name }), ' ',
      h('button', { type: 'button', class: 'small', on: { click: () => hooks.useDevice(best.id) } }, T('use'))) : h('p', null, seen ? T('detect_none') : T('detect_nothing')),
    seen ? h('details', { class: 'note' }, h('summary', null, T('detect_seen_h')), h('p', null, seen)) : null);
}
