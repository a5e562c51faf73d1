// @ts-check
// How the page names a device: by the products people know it as, with the chip configuration
// and memory still visible ("Mac Studio · M3 Ultra 80-core GPU · 512 GB", "Framework Desktop /
// GMKtec EVO-X2 · Ryzen AI Max+ 395 · 128 GB"), from the core's `product_lines`, `chip`,
// `gpu_cores` and `memory_gib` (list hardware, the estimate's `hardware`); a device the catalog
// names no product for keeps its own name.
// One rule on every surface: a device's NAME carries its memory as the vendor sells it, in GB
// ("NVIDIA H200 SXM · 141 GB", "Mac Studio · M3 Ultra 80-core GPU · 512 GB"), in the picker, the
// nav, the summary line, tables, cards and the widget alike; every memory FIGURE the core
// computed (required, usable, per GPU) is GiB and labelled so. A saved device's memory is the
// GiB the person typed (the form's "Memory (GiB)"), so its name says GiB.
import { gbOf, gib } from './format.js';
import { aside, dots, t } from './i18n.js';

/**
 * @typedef {{id?: string, name: string, name_base?: string, kind?: string, memory_gib: number, memory_sold_gb?: number, product_lines?: string[],
 *   chip?: string|null, gpu_cores?: number|null, cpu_cores?: number|null}} Named
 */

/**
 * The product label, or null when the device has no product in the catalog.
 * @param {Named} d @param {string} lang
 * @param {Named[]} [all] the catalog's devices: a chip sold in two CPU bins with the same GPU
 *   (M1 Pro 8- and 10-core CPU, 14-core GPU) names its CPU cores too, so no two labels are alike
 */
export function productLabel(d, lang, all = []) {
  const lines = Array.isArray(d.product_lines) ? d.product_lines : [];
  if (!lines.length || !d.chip) return null;
  let chip = d.chip;
  if (d.kind === 'apple' && d.gpu_cores) {
    const twin = all.some((o) => o.id !== d.id && o.chip === d.chip && o.gpu_cores === d.gpu_cores &&
      o.memory_gib === d.memory_gib && o.cpu_cores !== d.cpu_cores);
    chip = `${d.chip} ${twin && d.cpu_cores ? t(lang, 'dev_cpu_gpu_cores', { cpu: String(d.cpu_cores), gpu: String(d.gpu_cores) }) : t(lang, 'dev_gpu_cores', { 0: String(d.gpu_cores) })}`;
  }
  // The memory option as the product is sold ("· 64 GB"), the same on every surface.
  return `${lines.join(' / ')} · ${chip} · ${gbOf(soldGb(d), lang)}`;
}

/**
 * The chip and memory of a device with a product label, without the products ("M4 Max 40-core
 * GPU · 128 GB"): where a line has no room for the products (the hardware select, whose closed
 * box cannot wrap, and a table header), with the products said beside it; the device label
 * (deviceLabel) otherwise. @param {Named} d @param {string} lang @param {Named[]} [all]
 */
export function chipLabel(d, lang, all = []) {
  const product = productLabel(d, lang, all);
  if (!product) return deviceLabel(d, lang, all);
  const lines = /** @type {string[]} */ (d.product_lines);
  return product.slice(lines.join(' / ').length + ' · '.length);
}

/**
 * The catalog's name, with what part of a product the entry is in the page's language (the core's
 * `name_scope` code: "NVIDIA GB200 (per GPU)"); the product name itself is never translated.
 * @param {Named & {name_scope?: string|null}} d @param {string} lang
 */
export function scopedName(d, lang) {
  // The scope in the language's parentheses (full-width in Chinese: "NVIDIA GB200（单块 GPU）").
  return d.name_scope ? aside(lang, d.name, t(lang, `dev_scope_${d.name_scope}`)) : d.name;
}

/**
 * The size a device's name carries: the vendor's GB for a catalog device ("141 GB"), the GiB typed
 * for a saved one. @param {Named & {custom?: boolean}} d @param {string} lang
 */
export function nameSize(d, lang) {
  if (!(typeof d.memory_gib === 'number' && d.memory_gib > 0)) return '';
  return d.custom ? gib(d.memory_gib * 1024 ** 3, lang, 0) : gbOf(soldGb(d), lang);
}

/**
 * The size a catalog device is sold as: the core's `memory_sold_gb` where the vendor's figure is
 * not the GiB the device holds (B200: "180 GB", 179.06 GiB), else `memory_gib`. @param {Named} d
 */
function soldGb(d) {
  return typeof d.memory_sold_gb === 'number' && d.memory_sold_gb > 0 ? d.memory_sold_gb : d.memory_gib;
}

/**
 * The device's name with its size, as every surface shows it: the product label, else "NVIDIA
 * H200 SXM · 141 GB" (the name without the size it states, `name_base`, so it is said once).
 * @param {Named & {name_scope?: string|null, custom?: boolean}} d @param {string} lang @param {Named[]} [all]
 */
export function deviceLabel(d, lang, all = []) {
  const product = productLabel(d, lang, all);
  if (product) return product;
  const name = scopedName({ ...d, name: d.name_base || d.name }, lang);
  const size = nameSize(d, lang);
  return dots(lang, [name, size]);
}

/**
 * The name in a table whose memory columns give the figures: without a size (the core's
 * `name_base`: "NVIDIA H20" for "NVIDIA H20 141GB"), unless two catalog devices differ only in
 * memory (H20 96GB and 141GB, A100 40GB and 80GB): those keep their size as the vendor states it,
 * like every other device name ("NVIDIA H20 · 96 GB"). A product label stays as it is.
 * @param {Named & {name_scope?: string|null}} d @param {string} lang @param {Named[]} [all]
 */
export function tableName(d, lang, all = []) {
  const product = productLabel(d, lang, all);
  if (product) return product;
  const base = scopedName({ ...d, name: d.name_base || d.name }, lang);
  const twin = all.some((o) => o.id !== d.id && o.kind === d.kind && scopedName({ ...o, name: o.name_base || o.name }, lang) === base);
  return twin ? deviceLabel(d, lang, all) : base;
}

/**
 * A device named with its size in a table: the same label as everywhere (deviceLabel).
 * @param {Named & {name_scope?: string|null}} d @param {string} lang @param {Named[]} [all]
 */
export function tableLabel(d, lang, all = []) {
  return deviceLabel(d, lang, all);
}

/**
 * Is the device an NPU or an AI accelerator (the core's `device_type`), named as its vendor names it
 * rather than as a GPU? @param {string|null|undefined} deviceType
 */
export function isAccelerator(deviceType) {
  return deviceType === 'npu' || deviceType === 'accelerator';
}

/**
 * The i18n key of the word for what a device is: the vendor's (the core's `device_type`: "NPU",
 * "AI accelerator") for a discrete device that is not a GPU, else its kind ("GPU", "Apple
 * silicon", "unified memory", "CPU"). @param {{kind?: string, device_type?: string|null}} d
 */
export function kindKey(d) {
  return isAccelerator(d.device_type) ? `kind_${d.device_type}` : `kind_${d.kind}`;
}
