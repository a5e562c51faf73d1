// @ts-check
// "Detect my hardware": reads what the browser is willing to say (WebGPU adapter info, the WebGL
// renderer string, navigator.deviceMemory) and proposes the catalog device whose name appears in
// it. Browsers often blur these strings (privacy), so the result is only ever a proposal: the
// person confirms it or picks another device by hand.

/** @typedef {{webgpu: string, webgl: string, deviceMemoryGb: number | null, cores: number | null}} Clues */

/** @returns {Promise<Clues>} */
export async function readClues() {
  const nav = /** @type {any} */ (navigator);
  /** @type {Clues} */
  const c = { webgpu: '', webgl: '', deviceMemoryGb: typeof nav.deviceMemory === 'number' ? nav.deviceMemory : null,
    cores: typeof nav.hardwareConcurrency === 'number' ? nav.hardwareConcurrency : null };
  try {
    if (nav.gpu) {
      const adapter = await Promise.race([nav.gpu.requestAdapter(), new Promise((r) => setTimeout(() => r(null), 1500))]);
      const info = adapter && (adapter.info || (adapter.requestAdapterInfo && await adapter.requestAdapterInfo()));
      if (info) c.webgpu = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
    }
  } catch { /* WebGPU unavailable */ }
  try {
    const canvas = document.createElement('canvas');
    const gl = /** @type {WebGLRenderingContext | null} */ (canvas.getContext('webgl'));
    if (gl) {
      const ext = gl.getExtension('WEBGL_debug_renderer_info');
      c.webgl = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER) || '');
    }
  } catch { /* WebGL unavailable */ }
  return c;
}

/** @param {string} s */
const norm = (s) => s.toLowerCase().replace(/\(tm\)|\(r\)|nvidia|geforce|amd|radeon|intel|graphics|apple/g, ' ')
  .replace(/[^a-z0-9]+/g, ' ').trim();

/**
 * The catalog device best matching the clues: the longest device name (minus vendor words) found
 * in the renderer strings; for Apple chips, the one with the most memory not above what the
 * browser reports is unknown, so the smallest memory variant of that chip is proposed.
 * @param {Clues} c
 * @param {{id: string, name: string, kind: string, memory_gib: number}[]} devices
 */
export function propose(c, devices) {
  const hay = ` ${norm(`${c.webgpu} ${c.webgl}`)} `;
  if (hay.trim() === '') return null;
  let best = null;
  let bestLen = 0;
  for (const d of devices) {
    if (d.kind === 'cpu') continue;
    // Apple names carry core counts and memory ("Apple M3 Max (16-core CPU, 40-core GPU) 64GB");
    // the browser says only "Apple M3 Max", so compare the chip part.
    const name = d.kind === 'apple' ? d.name.replace(/\s*\(.*$/, '') : d.name;
    const n = norm(name);
    if (n.length < 2 || !hay.includes(` ${n} `)) continue;
    if (n.length > bestLen || (n.length === bestLen && best && d.memory_gib < best.memory_gib)) {
      best = d;
      bestLen = n.length;
    }
  }
  return best;
}
