// @ts-check
// Interface strings per language (one file each under i18n/). Numbers, dates and currencies are
// formatted by Intl in format.js, never here.
import { setText } from './dom.js';
import en from './i18n/en.js';
import es from './i18n/es.js';
import fr from './i18n/fr.js';
import zh from './i18n/zh.js';
import moneyEn from './i18n/money/en.js';
import moneyEs from './i18n/money/es.js';
import moneyFr from './i18n/money/fr.js';
import moneyZh from './i18n/money/zh.js';
import mainEn, { devices as devicesEn } from './i18n/main/en.js';
import mainEs, { devices as devicesEs } from './i18n/main/es.js';
import mainFr, { devices as devicesFr } from './i18n/main/fr.js';
import mainZh, { devices as devicesZh } from './i18n/main/zh.js';

/**
 * A word joiner: no line break at it, nothing drawn. Chinese has a break opportunity between a
 * digit and a Han character (UAX #14), so "80.3亿" could part as "80.3" / "亿" without it; a range
 * keeps its dash with what follows. The one definition (format.js imports it).
 */
export const WJ = '\u2060';

/** @type {Record<string, Record<string, string>>} */
// The money / simulator / fine-tuning strings live in their own files (i18n/money/) so that
// sections can grow without every change touching the main tables.
export const STRINGS = { en: { ...en, ...moneyEn, ...mainEn }, es: { ...es, ...moneyEs, ...mainEs }, fr: { ...fr, ...moneyFr, ...mainFr }, zh: { ...zh, ...moneyZh, ...mainZh } };

/**
 * What each language calls a device of each kind (the core's `device_type`: gpu, npu,
 * accelerator; apple, unified or cpu for the others), in the forms its sentences need: `kind`,
 * `kinds` (plural), `the_kind` (with its article, plural when `count` > 1), `kind_mem` (its memory)
 * and, where a language agrees words with the noun, the article or pronoun that goes with it
 * (Spanish `una`/`las`, French `de`). Passed to t() as placeholders, so "on each GPU" reads "on
 * each NPU" for an Ascend 910B and "on each accelerator" for a Gaudi 3.
 * @type {Record<string, Record<string, Record<string, string>>>}
 */
export const DEVICE_WORDS = { en: devicesEn, es: devicesEs, fr: devicesFr, zh: devicesZh };

/**
 * The device placeholders for a device of the core's `device_type` (an unknown type reads as a GPU).
 * @param {string} lang @param {string|null|undefined} deviceType @param {number} [count]
 * @returns {Record<string, string>}
 */
export function deviceWords(lang, deviceType, count = 1) {
  const table = (Object.hasOwn(DEVICE_WORDS, lang) && DEVICE_WORDS[lang]) || DEVICE_WORDS.en;
  const w = (deviceType && Object.hasOwn(table, deviceType) && table[deviceType]) || table.gpu;
  const { the_one: one, the_many: many, ...rest } = w;
  return { ...rest, the_kind: count > 1 ? many : one };
}

/** @param {string} lang @param {string} key @param {Record<string, string>} [vars] */
export function t(lang, key, vars) {
  const table = (Object.hasOwn(STRINGS, lang) && STRINGS[lang]) || STRINGS.en;
  // A range between two placeholders ("{lo}–{hi}") is one unit: a word joiner keeps the line from
  // breaking after its dash (format.js range).
  let s = String(table[key] ?? STRINGS.en[key] ?? key).replace(/\}–\{/g, `}–${WJ}{`);
  if (vars) for (const [k, v] of Object.entries(vars)) {
    s = s.split(`{${k}}`).join(v);
  }
  return lang === 'zh' ? zhSpacing(s) : s;
}

/**
 * Chinese typography for text the page composes: a space between a Han character and a Latin
 * letter on either side ("在 Apple 芯片 Mac 上", "tok/s 和 pp512"), and after the conjunctions
 * 和/或/与 before a figure ("和 4 张"). A figure stays against the Han unit after it ("80.3亿",
 * "2025年6月"). @param {string} s
 */
export function zhSpacing(s) {
  return s.replace(/(\p{Script=Han})(?=[A-Za-z])/gu, '$1 ').replace(/([A-Za-z])(?=\p{Script=Han})/gu, '$1 ')
    .replace(/(和|或|与)(?=\d)/gu, '$1 ').replace(FW_SPACE, '');
}

/**
 * An ASCII space beside a Chinese full-width mark （）。，：；、: the mark carries its own space, so
 * "（31%） · 8K" reads "（31%）· 8K" and "RTX 3090（最低报价） 以" reads "RTX 3090（最低报价）以".
 */
const FW_SPACE = / +(?=[（）。，：；、])|(?<=[（）。，：；、]) +/gu;

/**
 * A text the page composes from parts, with the spaces the language's punctuation takes: in
 * Chinese none beside a full-width mark (t() does the same for its own strings).
 * @param {string} lang @param {string} s
 */
export function punctSpacing(lang, s) {
  return lang === 'zh' ? s.replace(FW_SPACE, '') : s;
}

/**
 * The separator after `before` in a line of parts ("Llama 3.1 8B · Q4_K_M · 8K"): " · ", or in
 * Chinese "· " after a full-width mark ("GB200（单块 GPU）· 186 GB").
 * @param {string} lang @param {string} before
 */
export function dot(lang, before) {
  return punctSpacing(lang, `${before.slice(-1)} · `).slice(before.slice(-1).length);
}

/**
 * Parts of a line set apart by a middle dot, in the language's spacing (dot): the parts that are
 * empty are left out. @param {string} lang @param {(string | null | undefined | false)[]} parts
 */
export function dots(lang, parts) {
  const some = /** @type {string[]} */ (parts.filter(Boolean));
  return some.reduce((out, p, i) => (i ? `${out}${dot(lang, out)}${p}` : p), '');
}

/**
 * A string whose wording depends on a count (the language's plural rule: "1 token", "3 tokens"):
 * `key_one`, `key_other` … as Intl.PluralRules names the count's category, else `key_other`.
 * @param {string} lang @param {string} key @param {number} count @param {Record<string, string>} [vars]
 */
export function tn(lang, key, count, vars) {
  const table = (Object.hasOwn(STRINGS, lang) && STRINGS[lang]) || STRINGS.en;
  let cat = 'other';
  try { cat = new Intl.PluralRules(lang).select(count); } catch { /* an unknown language: other */ }
  const k = `${key}_${cat}` in table || `${key}_${cat}` in STRINGS.en ? `${key}_${cat}` : `${key}_other`;
  return t(lang, k, vars);
}

/** "Label: value" in the language's typography (French: no-break space before the colon; Chinese: full-width). @param {string} lang @param {string} label @param {string} value */
export function labelled(lang, label, value) {
  return lang === 'fr' ? `${label}\u00a0: ${value}` : lang === 'zh' ? `${label}：${value}` : `${label}: ${value}`;
}

/** Clauses of one sentence parted by the language's semicolon (French: no-break space before it;
 * Chinese: full-width). @param {string} lang @param {string[]} parts */
export function clauses(lang, parts) {
  return parts.filter(Boolean).join(lang === 'fr' ? '\u00a0; ' : lang === 'zh' ? '；' : '; ');
}

/** Items of a phrase parted by the language's comma (Chinese: full-width，). @param {string} lang @param {string[]} parts */
export function commas(lang, parts) {
  return parts.filter(Boolean).join(lang === 'zh' ? '，' : ', ');
}

/** Sentences run on with a space, except in Chinese: no space after 。, and a part that does not
 * close itself gets its 。 (joined bare, two clauses would run together). @param {string} lang @param {string[]} parts */
export function sentences(lang, parts) {
  const some = parts.filter(Boolean);
  return lang === 'zh' ? some.map((p) => sentence(lang, p)).join('') : some.join(' ');
}

/** The space between two sentences or a sentence and what follows it (a link, a button): none in
 * Chinese, whose 。 closes a sentence without one. @param {string} lang */
export function gap(lang) {
  return lang === 'zh' ? '' : ' ';
}

/** A sentence closed with the language's full stop (Chinese 。), unless it already ends in one
 * (。！？.!?). @param {string} lang @param {string} s */
export function sentence(lang, s) {
  if (!s || /[。！？.!?]$/u.test(s)) return s;
  return `${s}${lang === 'zh' ? '。' : '.'}`;
}

/**
 * A text that stands alone after a label (a card's note, a value in words) in sentence case: its
 * first letter upper-cased as the language does it ("never" -> "Never"). Strings are kept
 * lower-case where they are also joined mid-sentence. @param {string} lang @param {string} s
 */
export function sentenceCase(lang, s) {
  if (typeof s !== 'string' || !s) return s;
  const first = String.fromCodePoint(/** @type {number} */ (s.codePointAt(0)));
  return /\p{Ll}/u.test(first) ? first.toLocaleUpperCase(lang) + s.slice(first.length) : s;
}

/** "value (aside)" with the language's parentheses (full-width in Chinese). @param {string} lang @param {string} value @param {string} aside */
export function aside(lang, value, aside) {
  return lang === 'zh' ? `${value}（${aside}）` : `${value} (${aside})`;
}

/**
 * A core error ({code, path, message}) in the language's words: its code's sentence, else the
 * generic one naming the field. The core's English message is never shown as the text.
 * @param {string} lang @param {any} err
 */
export function errorText(lang, err) {
  const code = err && typeof err.code === 'string' ? err.code : '';
  const path = String((err && err.path) || '');
  const known = code ? t(lang, `err_${code}`, { path }) : '';
  return known && known !== `err_${code}` ? known : t(lang, 'err_other', { path });
}

/**
 * Apply translations to every [data-i18n] element (text only, never HTML), ids and code-like
 * pieces in them kept whole on a line (dom.js setText).
 */
export function applyStrings(lang, root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    setText(el, t(lang, /** @type {HTMLElement} */ (el).dataset.i18n || ''));
  }
  document.documentElement.lang = lang;
}
