// The interface strings: Spanish keeps one register (tú) across every table, and no language
// lacks a key that English has.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { root } from './helpers.mjs';

const { STRINGS } = await import(path.join(root, 'web', 'i18n.js'));

test('Spanish addresses the reader as tú everywhere, never as usted', () => {
  // Usted forms a page would use: the pronoun, its possessive for the reader's things, and the
  // formal imperatives of the verbs the interface uses (elija/elige, use/usa, pegue/pega …).
  const usted = /\b(usted|ustedes|elija|seleccione|introduzca|pulse|utilice|pegue|añada|pruebe|reduzca|mantenga|ponga|guarde|copie|escriba|importe|descargue|compruebe|consulte|cambie|acepte|vuelva|indique|intente|revise)\b|\bSu (hardware|equipo|máquina|navegador|dispositivo)\b/i;
  const bad = Object.entries(STRINGS.es).filter(([, v]) => usted.test(String(v)));
  assert.deepEqual(bad, []);
  // And the tú register is really there (the check above is not vacuous).
  assert.ok(Object.values(STRINGS.es).some((v) => /\b(elige|usa|pega|tu)\b/i.test(String(v))));
});

test('every language has every English key', () => {
  for (const lang of ['es', 'fr', 'zh']) {
    const missing = Object.keys(STRINGS.en).filter((k) => !(k in STRINGS[lang]));
    assert.deepEqual(missing, [], lang);
  }
});

test('counts are worded by each language\'s plural rule, never with a "(s)" crutch', async () => {
  const { tn } = await import(path.join(root, 'web', 'i18n.js'));
  assert.equal(tn('en', 'spec_tokens', 1, { k: '1' }), '1 drafted token per step');
  assert.equal(tn('en', 'spec_tokens', 3, { k: '3' }), '3 drafted tokens per step');
  assert.equal(tn('es', 'spec_tokens', 2, { k: '2' }), '2 tokens de borrador por paso');
  // French counts 0 and 1 as singular.
  assert.equal(tn('fr', 'spec_tokens', 1, { k: '1' }), '1 jeton proposé par étape');
  assert.equal(tn('fr', 'spec_tokens', 4, { k: '4' }), '4 jetons proposés par étape');
  assert.match(tn('zh', 'spec_tokens', 1, { k: '1' }), /1 个 token/);
  for (const lang of ['en', 'es', 'fr']) {
    const crutch = Object.entries(STRINGS[lang]).filter(([, v]) => /\w\(s\)|\(e?s\)\b/.test(String(v)));
    assert.deepEqual(crutch, [], lang);
  }
});

test('speeds carry one unit in every language: tok/s, as the figures the page formats', () => {
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    const other = Object.entries(STRINGS[lang]).filter(([, v]) => /\}\s*(jetons|tokens?|token)\s*\/\s*(s|秒)\b/.test(String(v)));
    assert.deepEqual(other, [], lang);
  }
});

/** A string's words, without its placeholders, command-line flags, file names and URLs. @param {unknown} v */
const prose = (v) => String(v).replace(/\{[^}]*\}/g, ' ').replace(/(^|[\s(])--?[\w-]+/g, ' ').replace(/\S+\.(json|gguf|md)\b/g, ' ').replace(/https?:\/\/\S+/g, ' ');

test('Spanish and French say in their own words what English calls an embedding, a backend, a prompt…', () => {
  // Words of the trade each language has its own word for (product names, flags, file formats and
  // units such as llama.cpp, --n-cpu-moe, GGUF, KV stay as they are). French already says "invite".
  const english = /\b(embeddings?|backends?|prompts?|datasets?|hosts?|checkpoint(s|ing)?|all-reduce|config|throughput|speed-?ups?|benchmarks?|default|settings|downloads?|uploads?|feedback|fine-tun\w*|offload(ed|ing)?|overhead|buffers?|layers?|graphs?)\b/i;
  for (const lang of ['es', 'fr']) {
    const bad = Object.entries(STRINGS[lang]).filter(([, v]) => english.test(prose(v))).map(([k, v]) => `${k}: ${v}`);
    assert.deepEqual(bad, [], lang);
  }
  // Chinese: none of these either, and a full-width opening parenthesis closes full-width.
  const zhEnglish = /\b(embeddings?|backends?|prompts?|datasets?|config|graphs?|all-reduce|checkpoint\w*)\b/i;
  assert.deepEqual(Object.entries(STRINGS.zh).filter(([, v]) => zhEnglish.test(prose(v))).map(([k]) => k), []);
  assert.deepEqual(Object.entries(STRINGS.zh).filter(([, v]) => /（[^（）]*\)/.test(String(v))).map(([k]) => k), []);
});

test('a figure and its unit never part at a line end: a no-break space joins them in every language', () => {
  const broken = /\}[ \t](s|ms|GiB|GB|Gio|Go|KiB|Kio|tok\/s|W|kWh|h|%)(?![\p{L}\p{N}])/u;
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    const bad = Object.entries(STRINGS[lang]).filter(([, v]) => broken.test(String(v))).map(([k, v]) => `${k}: ${v}`);
    assert.deepEqual(bad, [], lang);
  }
  // Not vacuous: the strings do put units after figures.
  assert.ok(Object.values(STRINGS.fr).some((v) => /\}\u00a0(Go|s|%)/.test(String(v))));
});

test('French sets a no-break space before : ; ? ! and inside « »', () => {
  const bad = Object.entries(STRINGS.fr).filter(([, v]) => / [:;?!»]|« /.test(String(v).replace(/https?:\/\/\S+/g, ''))).map(([k, v]) => `${k}: ${v}`);
  assert.deepEqual(bad, []);
});

test('the button on an error and the share button have names of their own in every language', () => {
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    const s = STRINGS[lang];
    assert.ok(s.share_error && s.share && s.share_error !== s.share, lang);
    // The error sentence that points to the share button names it by its label.
    assert.match(s.err_unknown_model, /\{share\}/, lang);
  }
});

test('signed figures use the minus sign (U+2212), never a hyphen-minus, in every language', async () => {
  const { signed, signedPct } = await import(path.join(root, 'web', 'format.js'));
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    for (const x of [-60.14, -0.5, -1234.5]) {
      const a = signed(x, lang, 1), b = signedPct(x, lang, 1);
      assert.ok(!a.includes('-') && a.startsWith('\u2212'), `${lang} ${a}`);
      assert.ok(!b.includes('-') && b.startsWith('\u2212'), `${lang} ${b}`);
    }
    assert.match(signed(97.8, lang, 1), /^\+97[.,]8$/);   // "+" straight before the figure, in French too
    assert.doesNotMatch(signed(-0.04, lang, 1), /[−+-]/);  // rounds to zero: no sign
  }
});

test('parameter counts: one precision rule (three significant digits) and each language\'s scale words, 10¹² in the long scale\'s word (billones, billion)', async () => {
  const { params } = await import(path.join(root, 'web', 'format.js'));
  const nb = (/** @type {string} */ s) => s.replace(/[\u00a0\u202f]/g, ' ').replace(/\u2060/g, '');
  // Llama 3 8B (8.03e9), Llama 3.1 70B (70.55e9), a 109B MoE and Kimi K2.5 (1.026e12).
  const want = {
    en: ['8.03B', '70.6B', '109B', '1.03T', '560M'],
    // Spanish counts 10⁹ as "mil millones" (mil M), three significant digits, as English says B and
    // French Md (issue 16: "685.000 M" read as no other language's form); 10¹² is a billón in
    // Spanish and a billion in French (the long scale), never "1.030.000 M" nor "1 026 Md".
    es: ['8,03 mil M', '70,6 mil M', '109 mil M', '1,03 billones', '560 M'],
    fr: ['8,03 Md', '70,6 Md', '109 Md', '1,03 billion', '560 M'],
    zh: ['80.3亿', '706亿', '1092亿', '1.03万亿', '5.6亿'],
  };
  for (const [lang, w] of Object.entries(want)) {
    assert.deepEqual([8.03e9, 70.55e9, 109.23e9, 1.026e12, 560e6].map((n) => nb(params(n, lang))), w, lang);
  }
  // The same precision for every count of a scale: 8.2B is "8.2B", not "8.20B"; a rounding that
  // carries gains no extra digit.
  assert.equal(params(8.2e9, 'en'), '8.2B');
  assert.equal(params(9.996e9, 'en'), '10B');
  // A count that rounds up to the next scale is said in it: never "1,000B" or "1.000.000 M".
  assert.equal(params(999.6e9, 'en'), '1T');
  assert.equal(params(999.6e9, 'es'), '1\u00a0billón');
  assert.equal(params(2.4e12, 'es'), '2,4\u00a0billones');
  // French: singular below 2, plural from 2 on.
  assert.equal(params(1e12, 'fr'), '1\u00a0billion');
  assert.equal(params(2.4e12, 'fr'), '2,4\u00a0billions');
  // Number and scale word never part at a line end.
  assert.match(params(8.03e9, 'es'), /^8,03\u00a0mil\u00a0M$/);
  assert.equal(params(30.53e9, 'es'), '30,5\u00a0mil\u00a0M');
  // Chinese: a word joiner between the figure and 亿/万 (a digit and a Han character are a line
  // break opportunity otherwise), and no space.
  assert.equal(params(8.03e9, 'zh'), '80.3\u2060亿');
  assert.equal(params(1.026e12, 'zh'), '1.03\u2060万\u2060亿');
  assert.equal(params(Number.NaN, 'en'), '—');
  assert.equal(params(0, 'en'), '—');
});

test('one term per concept: Spanish offload is never "descarga" (the download button\'s word), decode one word per language, no English "Hardware" or "flash attention" in es/fr/zh', () => {
  const es = Object.entries(STRINGS.es).filter(([k]) => /offload|with_ram|plan_title|faq_gpu_no/.test(k) || /offload/i.test(String(STRINGS.en[k])));
  assert.deepEqual(es.filter(([, v]) => /descarg/i.test(String(v))), []);
  assert.ok(es.some(([, v]) => /volcado/.test(String(v))));
  // Decode: the card's word everywhere the concept is named.
  const decode = { es: /decodific(?!ador)/i, fr: /décodage/i, zh: /解码/ };
  for (const [lang, re] of Object.entries(decode)) {
    assert.deepEqual(Object.entries(STRINGS[lang]).filter(([, v]) => re.test(String(v))).map(([k]) => k), [], lang);
  }
  assert.deepEqual(Object.entries(STRINGS.es).filter(([, v]) => /\bhardware\b/i.test(String(v))).map(([k]) => k), []);
  // The French word is feminine: a term swapped in keeps its agreement ("génération spéculative").
  assert.deepEqual(Object.entries(STRINGS.fr).filter(([, v]) => /génération spéculatif\b/i.test(String(v))).map(([k]) => k), []);
  for (const lang of ['es', 'fr', 'zh']) {
    assert.deepEqual(Object.entries(STRINGS[lang]).filter(([, v]) => /flash attention/i.test(String(v))).map(([k]) => k), [], lang);
  }
});

test('a note or value standing alone under a label starts as a sentence, in the language\'s own case rules', async () => {
  const { sentenceCase, t } = await import(path.join(root, 'web', 'i18n.js'));
  for (const lang of ['en', 'es', 'fr']) {
    const s = sentenceCase(lang, t(lang, 'never_note'));
    assert.match(s, /^\p{Lu}/u, `${lang}: ${s}`);
    assert.match(sentenceCase(lang, t(lang, 'cost_unknown_no_power_figure')), /^\p{Lu}/u, lang);
  }
  assert.equal(sentenceCase('en', 'never'), 'Never');
  assert.equal(sentenceCase('zh', '从不'), '从不');
  assert.equal(sentenceCase('en', '—'), '—');
});

test('a count of devices carries the multiplication sign with the language\'s spacing, never a letter x', async () => {
  const { times } = await import(path.join(root, 'web', 'format.js'));
  assert.equal(times(8, 'en'), '8×');
  assert.equal(times(8, 'fr'), '8\u00a0×');
  assert.equal(times(4, 'zh'), '4×');
});

test('French writes every memory unit in octets (Gio, Go, Kio, Mio); the other languages in bytes', async () => {
  const { units } = await import(path.join(root, 'web', 'format.js'));
  assert.deepEqual(units('fr'), { gib: 'Gio', gb: 'Go', kib: 'Kio', mib: 'Mio' });
  for (const lang of ['en', 'es', 'zh']) assert.deepEqual(units(lang), { gib: 'GiB', gb: 'GB', kib: 'KiB', mib: 'MiB' }, lang);
});

test('a memory part too small for two decimals is said as below 0.01 GiB, never as a zero it is not', async () => {
  const { gib } = await import(path.join(root, 'web', 'format.js'));
  assert.match(gib(1_000_000, 'en'), /^<\s0\.01\sGiB$/u);
  assert.match(gib(1_000_000, 'fr'), /^<\s0,01\sGio$/u);
  assert.match(gib(0, 'en'), /^0\.00\sGiB$/u);
  assert.match(gib(5_368_710, 'en'), /^0\.01\sGiB$/u);
  assert.match(gib(1_073_741_824, 'es'), /^1,00\sGiB$/u);
  assert.equal(gib(Number.NaN, 'en'), '—');
});

test('Chinese sentences join without a space after 。 and each closes itself; other languages keep theirs', async () => {
  const { gap, sentence, sentences, t } = await import(path.join(root, 'web', 'i18n.js'));
  assert.equal(sentences('zh', ['用 QLoRA 即可。', '单块 GPU 需要 10 GiB', '']), '用 QLoRA 即可。单块 GPU 需要 10 GiB。');
  assert.equal(sentences('en', ['One.', 'Two.']), 'One. Two.');
  assert.equal(sentence('zh', '可以运行，但余量很小'), '可以运行，但余量很小。');
  assert.equal(sentence('en', 'Fits, but tight'), 'Fits, but tight.');
  assert.equal(sentence('en', 'Done.'), 'Done.');
  assert.equal(gap('zh'), '');
  assert.equal(gap('fr'), ' ');
  // The tight verdict in Chinese is said as what it is (little headroom), not as "very tense".
  assert.deepEqual(Object.entries(STRINGS.zh).filter(([, v]) => /紧张/.test(String(v))).map(([k]) => k), []);
  assert.match(t('zh', 'verdict_tight'), /余量/);
  // No string of a language carries a sentence joined after 。 with a space.
  assert.deepEqual(Object.entries(STRINGS.zh).filter(([, v]) => /。 /.test(String(v))).map(([k]) => k), []);
});

test('a device is named by its kind in every language: each placeholder a string uses has a form for every device_type', async () => {
  const { DEVICE_WORDS, deviceWords, t } = await import(path.join(root, 'web', 'i18n.js'));
  const types = ['gpu', 'npu', 'accelerator', 'apple', 'unified', 'cpu'];
  for (const lang of ['en', 'es', 'fr', 'zh']) {
    assert.deepEqual(Object.keys(DEVICE_WORDS[lang]).sort(), [...types].sort(), lang);
    // The forms a language's strings use (its own agreement words included) exist for every kind.
    const used = new Set(Object.values(STRINGS[lang]).flatMap((v) => [...String(v).matchAll(/\{(kind|kinds|the_kind|kind_mem|una|las|de)\}/g)].map((m) => m[1])));
    for (const type of types) {
      const w = deviceWords(lang, type, 2);
      for (const form of used) assert.equal(typeof w[form], 'string', `${lang} ${type} ${form}`);
    }
  }
  // Not vacuous: the words differ by kind and by count, and an unknown kind reads as a GPU.
  assert.equal(t('en', 'diag_weights_exceed_budget', deviceWords('en', 'npu')), 'The weights alone exceed the engine’s memory share on each NPU.');
  assert.equal(t('en', 'per_device_caption_one', deviceWords('en', 'gpu', 1)), 'Layers and memory on the GPU');
  assert.equal(t('es', 'kv_pool_note_tp', { ...deviceWords('es', 'accelerator', 2), per: 'A', all: 'B', n: '2' }), 'A por acelerador, B en los 2 aceleradores, asignados al arrancar');
  assert.equal(t('fr', 'fix_ngl', { ...deviceWords('fr', 'accelerator', 1), n: '3', ram: 'R' }), 'Mettez 3 couches sur l’accélérateur (--n-gpu-layers 3), le reste dans R de RAM');
  assert.equal(t('zh', 'per_device_caption_each', deviceWords('zh', 'accelerator', 2)), '每块加速卡上的层与内存');
  assert.equal(t('zh', 'per_device_caption_each', deviceWords('zh', 'npu', 2)), '每块 NPU 上的层与内存');
  assert.equal(deviceWords('en', 'something_else').kind, 'GPU');
});
