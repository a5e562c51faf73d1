// The shared bad-input table (tests/golden/bad_inputs.json) expanded into what each route needs:
// the request text for the module, CLI arguments where flags can say the same thing, and a page
// URL where the page's parameters can. Used by tests/js and tests/web.
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
export const table = JSON.parse(fs.readFileSync(path.join(here, '..', 'golden', 'bad_inputs.json'), 'utf8'));

/** "@nested:N" -> N nested arrays; {"@repeat": N, "of": v} -> N copies of v; the rest unchanged. */
function expand(v) {
  if (typeof v === 'string' && v.startsWith('@nested:')) {
    let x = [];
    for (let i = 1; i < Number(v.slice(8)); i++) x = [x];
    return x;
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && '@repeat' in v) {
    const one = expand(v.of);
    return Array.from({ length: v['@repeat'] }, () => one);
  }
  if (Array.isArray(v)) return v.map(expand);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
  return v;
}

const dropNulls = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

/** The request object of a case (null when the case is raw text or CLI-only). */
export function requestOf(c) {
  if (c.text !== undefined) return null;
  if (c.request) return expand(c.request);
  if (!c.patch && !c.config_patch) return null;
  const r = { ...table.base, ...(c.patch || {}) };
  if (c.config_patch) r.model = { config: dropNulls({ ...table.base_config, ...c.config_patch }) };
  return expand(r);
}

/** Raw-text placeholders: "@brackets:N" (N '[' then N ']'), "@objects:N" (N nested {"a": …}
 * around 1), "@spaces:N" (N spaces), for deep or huge texts that would swell the table. @param {string} s */
export function expandText(s) {
  return s.replace(/@(brackets|objects|spaces):(\d+)/g, (_, kind, n) => {
    const k = Number(n);
    if (kind === 'brackets') return '['.repeat(k) + ']'.repeat(k);
    if (kind === 'spaces') return ' '.repeat(k);
    return '{"a":'.repeat(k) + '1' + '}'.repeat(k);
  });
}

/** The request text the module receives. */
export function textOf(c) {
  if (c.text !== undefined) return expandText(c.text);
  const r = requestOf(c);
  return r === null ? null : JSON.stringify(r);
}

const FLAGS = {
  quant: ['--quant', 's'], context: ['--context', 'i'], kv_type: ['--kv-type', 's'],
  kv_type_k: ['--kv-type-k', 's'], kv_type_v: ['--kv-type-v', 's'], parallel: ['--parallel', 'i'],
  ubatch: ['--ubatch', 'i'], engine: ['--engine', 's'], count: ['--count', 'i'], ram_gib: ['--ram-gib', 'n'],
  flash_attn: ['--flash-attn', 'b'], rules: ['--rules', 's'], wired_limit_mib: ['--wired-limit-mib', 'n'],
  gpu_share: ['--gpu-share', 'n'],
};
const looksLikePath = (s) => s.includes('.json') || s.startsWith('./') || s.startsWith('/');

/** {args, files} for the CLI, or null when flags cannot express the case. */
export function cliOf(c) {
  if (c.cli) {
    // An argument {"@repeat": N, "of": [...]} stands for N copies of those arguments.
    const args = c.cli.args.flatMap((a) => (typeof a === 'object' ? Array.from({ length: a['@repeat'] }, () => a.of).flat() : [a]));
    const files = Object.fromEntries(Object.entries(c.cli.files || {}).map(([k, v]) => [k, expandText(v)]));
    return { args, files };
  }
  if (c.api) return null;  // solver cases name their CLI arguments (`cli`) when they have them
  const r = requestOf(c);
  if (!r) return null;
  const args = ['estimate'];
  const files = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === 'model' || k === 'hardware') {
      if (typeof v === 'string' && !looksLikePath(v)) args.push(`--${k}`, v);
      else if (k === 'model' && v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).join() === 'config') {
        files['config.json'] = JSON.stringify(v.config);
        args.push('--model', '{dir}/config.json');
      } else if (k === 'hardware' && v && typeof v === 'object' && !Array.isArray(v)) {
        files['device.json'] = JSON.stringify(v);
        args.push('--hardware', '{dir}/device.json');
      } else return null;
      continue;
    }
    const f = FLAGS[k];
    if (!f) return null;
    const [flag, kind] = f;
    if (kind === 's' && typeof v === 'string') args.push(flag, v);
    else if ((kind === 'i' || kind === 'n') && typeof v === 'number') args.push(flag, String(v));
    else if (kind === 'b' && typeof v === 'boolean') args.push(flag, v ? 'on' : 'off');
    else return null;
  }
  return { args, files };
}

/** The page's URL query for the case, or null when its parameters cannot express it. The page
 * keeps its own defaults for what the URL leaves out and ignores a context or RAM it cannot use. */
export function urlOf(c) {
  const r = requestOf(c);
  if (!r || c.cli || c.api || typeof r.model !== 'string' || typeof r.hardware !== 'string') return null;
  const map = { model: 'model', quant: 'quant', hardware: 'hw', kv_type: 'kv', context: 'ctx', ram_gib: 'ram', count: 'count', parallel: 'par' };
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(r)) {
    if (!map[k]) return null;
    // An empty parameter is a parameter left out: the page keeps its default.
    if (['model', 'quant', 'hardware', 'kv_type'].includes(k) && (typeof v !== 'string' || v === '')) return null;
    if (['context', 'count', 'parallel'].includes(k) && !Number.isInteger(v)) return null;
    if (k === 'ram_gib' && !Number.isFinite(v)) return null;
    p.set(map[k], String(v));
  }
  return `?${p}`;
}
