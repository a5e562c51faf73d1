// One unit and one register in every language (issue 16): a scan of every interface string for the
// forms reviewers found, and the formatters' output for the words they build. Each check reads the
// strings as the page merges them (web/i18n.js STRINGS), so a string moved between files is still read.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { root } from './helpers.mjs';

const { STRINGS } = await import(path.join(root, 'web', 'i18n.js'));
const { backendName, params } = await import(path.join(root, 'web', 'format.js'));

/** The strings of a language whose text matches a pattern, as "key: text". @param {string} lang @param {RegExp} re */
const hits = (lang, re) => Object.entries(STRINGS[lang]).filter(([, v]) => re.test(String(v))).map(([k, v]) => `${k}: ${v}`);

test('every language has the same keys, and a string is read in all four', () => {
  const keys = Object.keys(STRINGS.en).sort();
  assert.ok(keys.length > 500, `${keys.length} keys`);
  for (const lang of ['es', 'fr', 'zh']) assert.deepEqual(Object.keys(STRINGS[lang]).sort(), keys, lang);
});

test('no memory figure in a string is a bare GB: a placeholder carries its own unit, GB is said with why', () => {
  // "{ram} GB of RAM", "({0} GB)": a number filled in and labelled GB by the sentence (the figures
  // are GiB, formatted with their unit by format.js). Only a rate (GB/s) or a string that says
  // the GB are decimal may name GB.
  const placeholderGB = /\}\s?(GB|Go|千兆)(?!\/s)/u;
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    assert.deepEqual(hits(lang, placeholderGB), [], lang);
    const gb = hits(lang, /\b(GB|Go)\b(?!\/s)|千兆/u).filter((s) => !/decimal|décimaux|十进制/.test(s));
    assert.deepEqual(gb, [], `${lang}: a GB without saying it is decimal`);
  }
});

test('French says "location" for rented GPUs, never "cloud" in running text', () => {
  // The placeholder {cloud} is a figure, not a word.
  const cloud = hits('fr', /\bcloud\b/iu).filter((s) => /(?<!\{)\bcloud\b(?!\})/iu.test(s.replace(/\{cloud\}/g, '')));
  assert.deepEqual(cloud, []);
  assert.match(STRINGS.fr.cost_cloud_best_one_user, /^Location/);
  assert.match(STRINGS.fr.cost_cloud_best_stated_sequences, /^Location/);
});

test('Chinese: no space before %, full-width parentheses, one term for your own hardware, 内存 for unified memory', () => {
  assert.deepEqual(hits('zh', /[\s\u00a0\u202f]%/u), []);
  assert.deepEqual(hits('zh', /[()]/u).filter((s) => !/\(\?|\(-|--[a-z-]+ |\(e\.g\./u.test(s) && /[\u4e00-\u9fff]\s?\(|\)[\u4e00-\u9fff]/u.test(s)), []);
  assert.deepEqual(hits('zh', /自有硬件/u), []);
  assert.deepEqual(hits('zh', /展望/u), []);
  assert.match(STRINGS.zh.tier_fits_unified, /^内存/);
  assert.doesNotMatch(STRINGS.zh.bound_weights, /显存/);
});

test('English: no "billed as it bills", no "make the same tokens"; backends as their projects write them', () => {
  assert.deepEqual(hits('en', /billed as it bills|make the same tokens/iu), []);
  for (const lang of ['en', 'es', 'fr', 'zh']) assert.deepEqual(hits(lang, /(?<!\{)\b(cuda|rocm|sycl)\b(?!\})/u), [], lang);
  assert.deepEqual(['cuda', 'cuda-blackwell', 'rocm', 'metal', 'vulkan', 'sycl', 'cpu'].map(backendName), ['CUDA', 'CUDA', 'ROCm', 'Metal', 'Vulkan', 'SYCL', 'CPU']);
  assert.equal(backendName(undefined), '—');
});

test('Spanish parameter counts: millions below 10⁹, "mil M" from 10⁹ (three significant digits, never a run of zeros), billones from 10¹² on', () => {
  const counts = [0.494e9, 1.5e9, 8.03e9, 30.53e9, 70.55e9, 235e9, 685e9, 1.026e12];
  const es = counts.map((n) => params(n, 'es'));
  assert.equal(es[0], '494\u00a0M');
  for (const s of es.slice(1, 7)) {
    assert.match(s, /^\d{1,3}(,\d{1,2})?\u00a0mil\u00a0M$/u, s);
    assert.doesNotMatch(s, /\d\.\d{3}/u, s);
  }
  assert.deepEqual(es.slice(2, 4), ['8,03\u00a0mil\u00a0M', '30,5\u00a0mil\u00a0M']);
  assert.equal(es[6], '685\u00a0mil\u00a0M');
  assert.equal(es[7], '1,03\u00a0billones');
});

test('Chinese: the Required card\'s upper line is the estimate\'s upper end (上限), not "at most" (最多)', () => {
  assert.match(STRINGS.zh.upper, /上限/u);
  assert.doesNotMatch(STRINGS.zh.upper, /最多/u);
  // Each language's line names the estimate and carries the figure.
  for (const lang of ['en', 'es', 'fr', 'zh']) assert.match(STRINGS[lang].upper, /\{0\}/u, lang);
});

test('llama.cpp flags in prose by their long names (--n-gpu-layers, --parallel, --flash-attn, --fit-target), never the short ones a command uses', () => {
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    assert.deepEqual(hits(lang, /(?<![\w-])-(ngl|np|fa|fitt|ncmoe|ctk|ctv|ub|ts|sm|ot)\b/u), [], lang);
    assert.match(STRINGS[lang].fix_ngl, /--n-gpu-layers \{n\}/u, lang);
    assert.match(STRINGS[lang].fix_parallel, /--parallel \{n\}/u, lang);
  }
});

test('a parameter count before its noun takes "de" in Spanish and French ("2,78 billones de parámetros", "685 Md de paramètres")', () => {
  // Every count params() writes there ends in a scale word or its abbreviation (M, billones, Md,
  // billion…), a noun that takes "de" before another noun; a string that puts a placeholder right
  // before the noun leaves it out.
  for (const [lang, noun] of [['es', 'parámetros'], ['fr', 'paramètres']]) {
    assert.deepEqual(hits(lang, new RegExp(`\\}\\s${noun}`)), [], `${lang}: a count straight before "${noun}"`);
    // The formatter's words are such nouns at every scale a model has.
    for (const n of [8.03e9, 685e9, 2.78e12]) assert.match(params(n, lang), /(M|Md|billones|billón|billions?)$/, `${lang} ${n}`);
  }
});

test('English and Chinese strings write a percentage with no space before the sign ("1%"), as their formatters do', () => {
  for (const lang of ['en', 'zh']) assert.deepEqual(hits(lang, /\d[\s\u00a0\u202f]%/), [], lang);
});
