// @ts-check
// Number formatting for people: GiB for memory (GB beside it where vendors speak GB), tokens/s,
// ms; always through Intl for the chosen language. Never prints NaN or Infinity.

import { aside, WJ } from './i18n.js';

const GiB = 1024 ** 3;
/** Between a number and its unit: a no-break space, so "1 464 ms" never breaks before "ms". */
const U = '\u00a0';

/** @param {string} lang @param {number} digits */
function nf(lang, digits) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** @param {number} x */
const ok = (x) => typeof x === 'number' && Number.isFinite(x);

/**
 * Memory units as each language writes them: French writes octets (Gio, Go, Kio, Mio), the others
 * GiB/GB/KiB/MiB. One register per language, used by every view.
 */
const UNITS = /** @type {Record<string, {gib: string, gb: string, kib: string, mib: string}>} */ ({
  fr: { gib: 'Gio', gb: 'Go', kib: 'Kio', mib: 'Mio' },
});
/** @param {string} lang */
export function units(lang) {
  return UNITS[lang] || { gib: 'GiB', gb: 'GB', kib: 'KiB', mib: 'MiB' };
}

/** @param {number} bytes @param {string} lang */
export function gib(bytes, lang, digits = 2) {
  if (!ok(bytes)) return '—';
  // A part too small to show at this precision is said as below the smallest step ("< 0.01 GiB"),
  // never as a zero it is not; an exact zero stays 0.
  const step = 10 ** -digits;
  if (bytes > 0 && bytes / GiB < step / 2) return `<${U}${nf(lang, digits).format(step)}${U}${units(lang).gib}`;
  return `${nf(lang, digits).format(bytes / GiB)}${U}${units(lang).gib}`;
}

/**
 * A device's memory as the catalog states it: whole GiB as whole ("24 GiB"), a driver's total to
 * the hundredth ("93.58 GiB", the "94 GB" H100 NVL), never rounded onto the vendor's round figure.
 * @param {number} bytes @param {string} lang
 */
export function gibExact(bytes, lang) {
  if (!ok(bytes)) return '—';
  const f = new Intl.NumberFormat(lang, { minimumFractionDigits: 0, maximumFractionDigits: 2 });
  return `${f.format(bytes / GiB)}${U}${units(lang).gib}`;
}

/** @param {number} bytes @param {string} lang */
export function gb(bytes, lang, digits = 2) {
  return ok(bytes) ? `${nf(lang, digits).format(bytes / 1e9)}${U}${units(lang).gb}` : '—';
}

/** Whole or decimal GB as a vendor states them ("24 GB", "24 Go"). @param {number} x @param {string} lang */
export function gbOf(x, lang) {
  return ok(x) ? `${num(x, lang, Number.isInteger(x) ? 0 : 1)}${U}${units(lang).gb}` : '—';
}

/** @param {number} x @param {string} lang */
export function num(x, lang, digits = 0) {
  return ok(x) ? nf(lang, digits).format(x) : '—';
}

/**
 * Hours as a person typed them: "8" for 8 (not "8.0", beside an input that says 8), "7.5" for 7.5.
 * @param {number} x @param {string} lang
 */
export function hours(x, lang) {
  return num(x, lang, ok(x) && !Number.isInteger(x) ? 1 : 0);
}

/** @param {number} ratio @param {string} lang */
export function pct(ratio, lang, digits = 0) {
  return ok(ratio)
    ? new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: digits }).format(ratio)
    : '—';
}

/** The minus sign (U+2212) in place of the hyphen-minus Intl writes for negative figures. @param {string} s */
const minus = (s) => s.replace(/-/g, '\u2212');

/**
 * A signed figure with a fixed number of decimals: "+1.2", "−0.4" (the minus sign U+2212, never a
 * hyphen-minus), and "0.0" for a value that rounds to zero (no sign). Its unit goes after it with
 * a no-break space (`${signed(x, lang)}\u00a0%`).
 * @param {number} x @param {string} lang @param {number} [digits]
 */
export function signed(x, lang, digits = 1) {
  return ok(x)
    ? minus(new Intl.NumberFormat(lang, { signDisplay: 'exceptZero', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x))
    : '—';
}

/**
 * A percentage with a fixed number of decimals, written as the language writes it ("4.8%",
 * "4,8 %", "4,8 %", "4.8%"). @param {number} percent already in percent
 */
export function percentOf(percent, lang, digits = 1) {
  return ok(percent)
    ? new Intl.NumberFormat(lang, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(percent / 100)
    : '—';
}

/**
 * A signed percentage with a fixed number of decimals: "+1.2 %", "−0.4 %", and "0.0 %" for a
 * value that rounds to zero (no sign). @param {number} percent already in percent
 * @param {string} lang @param {number} [digits]
 */
export function signedPct(percent, lang, digits = 1) {
  return ok(percent)
    ? minus(new Intl.NumberFormat(lang, { style: 'percent', signDisplay: 'exceptZero', minimumFractionDigits: digits, maximumFractionDigits: digits })
      .format(percent / 100))
    : '—';
}

/**
 * Names in a sentence, joined as the language joins them ("a, b, and c", "a, b y c", "a、b和c").
 * @param {string[]} items @param {string} lang @param {'conjunction' | 'disjunction'} [type] "a, b and c" or "a, b or c"
 */
export function list(items, lang, type = 'conjunction') {
  let s;
  try { s = new Intl.ListFormat(lang, { style: 'long', type }).format(items); } catch { s = items.join(', '); }
  // Chinese sets a space between a Latin letter or digit and the 和/或 that joins it ("64 GB 或
  // 128 GB", "Gaudi 2 和 Intel"), as the page's own sentences do ("在 {0} 上"); after an ASCII
  // bracket too, but not after a full-width one ("）"), whose glyph carries its own space.
  return lang === 'zh' ? s.replace(/([\p{Script=Latin}\p{N})\]%])(和|或)/gu, '$1 $2').replace(/(和|或)([\p{Script=Latin}\p{N}])/gu, '$1 $2') : s;
}

/** @param {number} n @param {string} lang  e.g. 8192 -> "8K" */
export function tokens(n, lang) {
  if (!ok(n)) return '—';
  if (n >= 1024 && n % 1024 === 0) return `${num(n / 1024, lang)}K`;
  return num(n, lang);
}

/** @param {number} x @param {string} lang  US dollars, as catalog prices are */
export function usd(x, lang, digits = 0) {
  return ok(x) ? new Intl.NumberFormat(lang, { style: 'currency', currency: 'USD', maximumFractionDigits: digits, minimumFractionDigits: digits }).format(x) : '—';
}

/** @param {number} x @param {string} lang  tokens per second */
export function tps(x, lang) {
  return ok(x) ? `${num(x, lang, x < 100 ? 1 : 0)}${U}tok/s` : '—';
}

/**
 * A low–high range as one unit: a word joiner after the en dash, so "81–147" never parts there (a
 * line may break after an en dash, UAX #14 class BA; never before it); a narrow cell wraps before
 * the range instead. @param {string} lo @param {string} hi
 */
export function range(lo, hi) {
  return `${lo}–${WJ}${hi}`;
}

/**
 * A speed (or a time) with the core's range: "~49.9 tok/s (34.6–53.2)", "~179 tok/s (107–247)",
 * the range in the language's parentheses (full-width in Chinese). The page's cards and the
 * embeddable card both write it with this. @param {{v:number, lo:number, hi:number}|null} x
 * @param {string} lang @param {'tps'|'ms'} unit
 */
export function spreadText(x, lang, unit = 'tps') {
  if (!x) return '';
  const f = unit === 'ms' ? ms : tps;
  const d = unit === 'ms' || x.hi >= 100 ? 0 : 1;
  const value = `~${f(x.v, lang)}`;
  return Number.isFinite(x.lo) && Number.isFinite(x.hi) ? aside(lang, value, range(num(x.lo, lang, d), num(x.hi, lang, d))) : value;
}

/**
 * One user's cost per million tokens with the core's range (cost.hpp per_million: single_low /
 * single_high, from the decode estimate's range, the fast end being the cheap end),
 * "~$0.589 ($0.487–$0.886)"; a figure without one (a speed stated, not estimated) alone.
 * @param {any} pm an owned or offer per_million_tokens_usd @param {any} mk the market @param {string} L
 */
export function perMillionText(pm, mk, L) {
  return pm.single_low > 0 && pm.single_high > 0
    ? aside(L, `~${money(pm.single, mk, L)}`, range(money(pm.single_low, mk, L), money(pm.single_high, mk, L))) : money(pm.single, mk, L);
}

/** A decode speed behind a cost (an offer's or the owned per_million_tokens_usd, or the owned cost itself: the same fields), with the core's range where it estimated one. @param {any} pm @param {string} L */
export function perMillionSpeed(pm, L) {
  return pm.decode_tps_low > 0 && pm.decode_tps_high > 0
    ? spreadText({ v: pm.decode_tps, lo: pm.decode_tps_low, hi: pm.decode_tps_high }, L) : tps(pm.decode_tps, L);
}

/**
 * A duration given in milliseconds: ms below 10 s, seconds from there ("13.7 s", "2 480 s").
 * @param {number} x @param {string} lang @param {number} [digits] decimals of a figure in ms
 */
export function ms(x, lang, digits = 0) {
  if (!ok(x)) return '—';
  return x < 10000 ? `${num(x, lang, digits)}${U}ms` : `${num(x / 1000, lang, x < 100000 ? 1 : 0)}${U}s`;
}

/** A month and year from "2025-07". @param {string} ym @param {string} lang */
export function monthYear(ym, lang) {
  const m = /^(\d{4})-(\d{2})/.exec(ym || '');
  if (!m) return ym || '—';
  return new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', timeZone: 'UTC' })
    .format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)));
}

/** A day ("2026-12-02") in the language's words ("2 December 2026", "2 déc. 2026"…). @param {string} ymd @param {string} lang */
export function day(ymd, lang) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd || '');
  if (!m) return ymd || '—';
  return new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' })
    .format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))));
}

/**
 * A value from a result field whose name says its unit (…_bytes, …_usd, …_tps, …_ms); anything
 * else as a number or text. Used for sections whose fields other parts of the core add.
 * @param {string} key @param {any} v @param {string} lang
 */
export function byKey(key, v, lang) {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? '✓' : '✗';
  if (!ok(v)) return '—';
  if (/bytes$/.test(key)) return gib(v, lang);
  if (/usd/.test(key)) return usd(v, lang, v < 10 ? 2 : 0);
  if (/tps$|tokens_per_s/.test(key)) return tps(v, lang);
  if (/_ms$/.test(key)) return ms(v, lang);
  if (/gib$/.test(key)) return `${num(v, lang, 1)}${U}${units(lang).gib}`;
  if (/(ratio|share|utilization)$/.test(key)) return pct(v, lang);
  return num(v, lang, Number.isInteger(v) ? 0 : 2);
}

/**
 * An amount the core gives in US dollars, shown in a market's currency (data/markets.json:
 * `currency`, and `usd_per_unit` dollars per unit of it). Small amounts keep more digits so a
 * cost per million tokens of $0.042 does not print as $0.
 * @param {number} x_usd @param {{currency?: string, usd_per_unit?: number} | null | undefined} market @param {string} lang
 * @param {number} [digits]
 */
export function money(x_usd, market, lang, digits) {
  const cur = market && market.currency ? market.currency : 'USD';
  const rate = market && market.usd_per_unit > 0 ? market.usd_per_unit : 1;
  if (!ok(x_usd)) return '—';
  const x = cur === 'USD' ? x_usd : x_usd / rate;
  const d = digits ?? (Math.abs(x) < 1 && x !== 0 ? 3 : Math.abs(x) < 100 ? 2 : 0);
  return new Intl.NumberFormat(lang, { style: 'currency', currency: cur, minimumFractionDigits: d, maximumFractionDigits: d }).format(x);
}

/**
 * A market's name in the page's language (Intl's region names; the catalog's English name when
 * the id is not a region Intl knows).
 * @param {any} mk @param {string} L
 */
export function marketName(mk, L) {
  if (!mk) return '';
  const code = mk.id === 'UK' ? 'GB' : String(mk.id || '');
  try {
    const n = new Intl.DisplayNames(L, { type: 'region' }).of(code);
    if (n && n !== code) return n;
  } catch { /* not a region code */ }
  return String(mk.name || mk.id);
}

/**
 * A parameter count in the language's own scale words, with one rule of precision everywhere:
 * three significant digits, and never fewer than the whole part ("8.03B", "70.6B", "109B",
 * "1.03T"; "8,03 Md", "109 Md"; "80.3亿", "1.03万亿"). Spanish counts below 10¹² in millions, as
 * Spanish technical and press writing does ("70.000 millones de parámetros"), abbreviated M:
 * "8030 M", "30.500 M". From 10¹² on, Spanish and French name the long scale's word for 10¹²
 * ("1,03 billones", "1,03 billion"; French takes the plural from 2 on), never a run of zeros
 * ("1.030.000 M") nor a figure in thousands of the scale below ("1 026 Md"); Chinese 万亿.
 * Trailing zeros are dropped ("1T", not "1.00T"). A number and its scale word never part.
 * @param {number} count  parameters (not billions) @param {string} lang
 */
export function params(count, lang) {
  if (!(ok(count) && count > 0)) return '—';
  /** @type {Array<[number, string]>} scale and its word, largest first */
  const scales = lang === 'zh' ? [[1e12, `${WJ}万${WJ}亿`], [1e8, `${WJ}亿`], [1e4, `${WJ}万`]]
    // Spanish: 10⁹ is "mil millones" ("685 mil M", as English says 685B and French 685 Md).
    : lang === 'es' ? [[1e12, `${U}billones`], [1e9, `${U}mil${U}M`], [1e6, `${U}M`], [1e3, `${U}mil`]]
      : lang === 'fr' ? [[1e12, `${U}billions`], [1e9, `${U}Md`], [1e6, `${U}M`], [1e3, `${U}k`]]
        : [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'K']];
  // The scale of the count as shown (three significant digits): 999.6 × 10⁹ is "1T", not "1,000B".
  const shownCount = Number(count.toPrecision(3));
  let [scale, word] = scales.find(([s]) => shownCount >= s) || [1, ''];
  const x = count / scale;
  const whole = Math.max(1, Math.floor(Math.log10(x)) + 1);
  const digits = Math.max(0, 3 - whole);
  // Rounding may carry into a new whole digit (9.996 -> 10.0): drop a decimal then.
  const r = Number(x.toFixed(digits));
  const d = r >= 10 ** whole ? Math.max(0, digits - 1) : digits;
  // Chinese writes 1092亿 ungrouped; Spanish groups from five digits (1026, 10 260), as the RAE's
  // rule and Chromium's locale data do.
  const grouping = /** @type {any} */ (lang === 'zh' ? false : lang === 'es' ? 'min2' : 'auto');
  // One 10¹² is singular: "1 billón" in Spanish, and in French below 2 ("1,03 billion").
  const shown = Number(r.toFixed(d));
  if (scale === 1e12 && lang === 'es' && shown === 1) word = `${U}billón`;
  if (scale === 1e12 && lang === 'fr' && shown < 2) word = `${U}billion`;
  return `${new Intl.NumberFormat(lang, { maximumFractionDigits: d, minimumFractionDigits: 0, useGrouping: grouping }).format(x)}${word}`;
}

/**
 * A count of devices before their name, with the multiplication sign (never a letter x) as the
 * language spaces it: "2×" in English, Spanish and Chinese, "2 ×" with a no-break space in French.
 * @param {number} n @param {string} lang
 */
export function times(n, lang) {
  return ok(n) ? `${num(n, lang)}${lang === 'fr' ? U : ''}×` : '—';
}

/**
 * A compute backend's name as its project writes it ("CUDA", "ROCm", "Metal", "Vulkan", "SYCL"),
 * from the core's backend code (data/backends.json ids: "cuda", "rocm"...); a code not listed
 * here is shown as it is. Names of projects, not words: the same in every language.
 * @param {string|null|undefined} code
 */
export function backendName(code) {
  if (typeof code !== 'string' || !code) return '—';
  return BACKENDS[code] || code;
}
const BACKENDS = /** @type {Record<string, string>} */ ({
  cuda: 'CUDA', 'cuda-blackwell': 'CUDA', rocm: 'ROCm', vulkan: 'Vulkan', sycl: 'SYCL', metal: 'Metal',
  cann: 'CANN', 'cann-a3': 'CANN', musa: 'MUSA', synapseai: 'SynapseAI', neuware: 'Neuware', maca: 'MACA',
  kunlun: 'Kunlun XPU', dtk: 'DTK', cpu: 'CPU',
});
