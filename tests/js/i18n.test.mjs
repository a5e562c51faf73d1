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
