// @ts-check
// The only place the page talks to the wasm core. One module instance, created on first use
// behind a memoised promise; every call is JSON text in, JSON out. Errors come back from the
// core as {"error": {code, path, message}} and are thrown here as WillitfitError.

export class WillitfitError extends Error {
  /** @param {{code: string, path: string, message: string}} e */
  constructor(e) {
    super(e.message);
    this.name = 'WillitfitError';
    this.code = e.code;
    this.path = e.path;
  }
}

/** @type {Promise<any> | null} */
let modulePromise = null;

/** @param {string} [moduleUrl] URL of willitfit.js (defaults to the copy beside this file) */
export function loadCore(moduleUrl) {
  if (!modulePromise) {
    const url = moduleUrl || new URL('./willitfit.js', import.meta.url).href;
    modulePromise = import(url).then(async (m) => {
      const g = /** @type {any} */ (globalThis);
      if (typeof g.process === 'object' && g.process.versions && g.process.versions.node) {
        // Node: Emscripten 3.1.6's ES-module glue expects __dirname and would try to fetch the
        // .wasm by file path (Node 20 has fetch), so hand it the bytes instead.
        const fs = await import('node:fs');
        const path = await import('node:path');
        const { fileURLToPath } = await import('node:url');
        const file = fileURLToPath(url);
        g.__dirname ??= path.dirname(file);
        const wasm = file.replace(/\.js$/, '.wasm');
        return m.default(fs.existsSync(wasm) ? { wasmBinary: fs.readFileSync(wasm) } : {});
      }
      return m.default();
    });
  }
  return modulePromise;
}

/** @param {string} text */
function unwrap(text) {
  const doc = JSON.parse(text);
  if (doc && doc.error) throw new WillitfitError(doc.error);
  return doc;
}

/** @param {object} request */
export async function estimate(request) {
  const core = await loadCore();
  return unwrap(core.estimate(JSON.stringify(request)));
}

/** Training memory per GPU (see core/include/willitfit/training.hpp). @param {object} request */
export async function train(request) {
  const core = await loadCore();
  return unwrap(core.train(JSON.stringify(request)));
}

/** Cost per million tokens, cloud offers, rent vs buy (core/include/willitfit/cost.hpp). @param {object} request */
export async function cost(request) {
  const core = await loadCore();
  return unwrap(core.cost(JSON.stringify(request)));
}

/** @param {'models'|'hardware'|'quants'|'clouds'|'markets'} what */
export async function list(what) {
  const core = await loadCore();
  return unwrap(core.list(what))[what];
}
