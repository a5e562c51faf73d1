// @ts-check
// How the page names a device: by the products people know it as, with the chip configuration
// and memory still visible ("Mac Studio · M3 Ultra 80-core GPU · 512 GB", "Framework Desktop /
// GMKtec EVO-X2 · Ryzen AI Max+ 395 · 128 GB"), from the core's `product_lines`, `chip`,
// `gpu_cores` and `memory_gib` (list hardware, the estimate's `hardware`); a device the catalog
// names no product for keeps its own name.
import { gbOf, gib } from './format.js';
import { t } from './i18n.js';

/**
 * @typedef {{id?: string, name: string, name_base?: string, kind?: string, memory_gib: number, product_lines?: string[],
 *   chip?: string|null, gpu_cores?: number|null, cpu_cores?: number|null}} Named
 */

/**
 * The product label, or null when the device has no product in the catalog.
 * @param {Named} d @param {string} lang
 * @param {Named[]} [all] the catalog's devices: a chip sold in two CPU bins with the same GPU
 *   (M1 Pro 8- and 10-core CPU, 14-core GPU) names its CPU cores too, so no two labels are alike
 */
export function productLabel(d, lang, all = [], unit = 'gb') {
  const lines = Array.isArray(d.product_lines) ? d.product_lines : [];
  if (!lines.length || !d.chip) return null;
  let chip = d.chip;
  if (d.kind === 'apple' && d.gpu_cores) {
    const twin = all.some((o) => o.id !== d.id && o.chip === d.chip && o.gpu_cores === d.gpu_cores &&
      o.memory_gib === d.memory_gib && o.cpu_cores !== d.cpu_cores);
    chip = `${d.chip} ${twin && d.cpu_cores ? t(lang, 'dev_cpu_gpu_cores', { cpu: String(d.cpu_cores), gpu: String(d.gpu_cores) }) : t(lang, 'dev_gpu_cores', { 0: String(d.gpu_cores) })}`;
  }
  // The memory option as the product is sold ("· 64 GB"), or, in a table whose figures are GiB,
  // the same memory in GiB ("· 64 GiB"), so one table reads in one unit.
  return `${lines.join(' / ')} · ${chip} · ${unit === 'gib' ? gib(d.memory_gib * 1024 ** 3, lang, 0) : gbOf(d.memory_gib, lang)}`;
}

/**
 * The catalog's name, with what part of a product the entry is in the page's language (the core's
 * `name_scope` code: "NVIDIA GB200 (per GPU)"); the product name itself is never translated.
 * @param {Named & {name_scope?: string|null}} d @param {string} lang
 */
export function scopedName(d, lang) {
  return d.name_scope ? `${d.name} (${t(lang, `dev_scope_${d.name_scope}`)})` : d.name;
}

/**
 * The name without the memory size a vendor's name states (the core's `name_base`: "NVIDIA H20"
 * for "NVIDIA H20 141GB"), with its scope: what a table whose memory column gives the size in GiB
 * shows, so no vendor GB figure stands beside a GiB one. A product label stays as it is.
 * @param {Named & {name_scope?: string|null}} d @param {string} lang @param {Named[]} [all]
 */
export function tableName(d, lang, all = []) {
  const product = productLabel(d, lang, all, 'gib');
  if (product) return product;
  // Two catalog devices that differ only in memory share a base name (NVIDIA H20 96GB and 141GB,
  // A100 40GB and 80GB): each keeps its size, in GiB like the table's figures, so no two rows read alike.
  const base = scopedName({ ...d, name: d.name_base || d.name }, lang);
  const twin = all.some((o) => o.id !== d.id && o.kind === d.kind && scopedName({ ...o, name: o.name_base || o.name }, lang) === base);
  return twin && d.memory_gib > 0 ? `${base} (${gib(d.memory_gib * 1024 ** 3, lang, 0)})` : base;
}

/**
 * A device named in a table whose figures are GiB, with its memory: the product label with the
 * memory in GiB, else "RTX 4090 (24 GiB)" (deviceLabel).
 * @param {Named & {name_scope?: string|null}} d @param {string} lang @param {Named[]} [all]
 */
export function tableLabel(d, lang, all = []) {
  return productLabel(d, lang, all, 'gib') ?? deviceLabel(d, lang, all);
}

/**
 * The device's name as the page shows it: the product label, else "RTX 4090 (24 GiB)" — the memory
 * in GiB like every requirement it is read against ("80 GiB" next to "needs 78.3 GiB"); a name
 * that states its own size in the vendor's GB is shown without it (`name_base`), so it is said once.
 * @param {Named} d @param {string} lang @param {Named[]} [all]
 */
export function deviceLabel(d, lang, all = []) {
  const name = scopedName({ ...d, name: d.name_base || d.name }, lang);
  return productLabel(d, lang, all) ?? `${name} (${d.memory_gib > 0 ? gib(d.memory_gib * 1024 ** 3, lang, 0) : "—"})`;
}
