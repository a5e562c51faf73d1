// @ts-check
// Number formatting for people: GiB for memory (GB beside it where vendors speak GB), tokens/s,
// ms; always through Intl for the chosen language. Never prints NaN or Infinity.

const GiB = 1024 ** 3;

/** @param {string} lang @param {number} digits */
function nf(lang, digits) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** @param {number} x */
const ok = (x) => typeof x === 'number' && Number.isFinite(x);

/** @param {number} bytes @param {string} lang */
export function gib(bytes, lang, digits = 2) {
  return ok(bytes) ? `${nf(lang, digits).format(bytes / GiB)} GiB` : '—';
}

/** @param {number} bytes @param {string} lang */
export function gb(bytes, lang, digits = 2) {
  return ok(bytes) ? `${nf(lang, digits).format(bytes / 1e9)} GB` : '—';
}

/** @param {number} x @param {string} lang */
export function num(x, lang, digits = 0) {
  return ok(x) ? nf(lang, digits).format(x) : '—';
}

/** @param {number} ratio @param {string} lang */
export function pct(ratio, lang, digits = 0) {
  return ok(ratio)
    ? new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: digits }).format(ratio)
    : '—';
}

/** @param {number} n @param {string} lang  e.g. 8192 -> "8K" */
export function tokens(n, lang) {
  if (!ok(n)) return '—';
  if (n >= 1024 && n % 1024 === 0) return `${num(n / 1024, lang)}K`;
  return num(n, lang);
}
