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
