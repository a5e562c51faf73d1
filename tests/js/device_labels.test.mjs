// The catalog check on device names: every name the page shows for a device (web/device-name.js,
// from the core's catalog listing) is unique among the catalog's accelerators, in every language,
// so no two rows, options or links read alike (two "NVIDIA H20" rows, one of 96 and one of 141 GiB).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { api } from './helpers.mjs';
import { deviceLabel, productLabel, scopedName, tableLabel, tableName } from '../../web/device-name.js';

const hardware = /** @type {any[]} */ (await api.list('hardware')).filter((d) => d.kind !== 'cpu');

/** The labels of one kind that are shared by more than one device. @param {(d: any) => string} f */
function duplicates(f) {
  /** @type {Map<string, string[]>} */
  const seen = new Map();
  for (const d of hardware) {
    const k = f(d);
    seen.set(k, [...(seen.get(k) || []), d.id]);
  }
  return [...seen].filter(([, ids]) => ids.length > 1);
}

for (const lang of ['en', 'es', 'fr', 'zh']) {
  test(`no two catalog devices share a display label (${lang})`, () => {
    assert.ok(hardware.length > 100, `${hardware.length} devices`);
    const kinds = {
      // The select, headings and lists: the product label or "name (N GiB)".
      deviceLabel: (/** @type {any} */ d) => deviceLabel(d, lang, hardware),
      // A table whose figures are GiB: the name without the vendor's size, unless a twin needs it.
      tableName: (/** @type {any} */ d) => tableName(d, lang, hardware),
      tableLabel: (/** @type {any} */ d) => tableLabel(d, lang, hardware),
      // The product label, else the catalog name with its scope.
      shown: (/** @type {any} */ d) => productLabel(d, lang, hardware) ?? scopedName(d, lang),
    };
    for (const [kind, f] of Object.entries(kinds)) assert.deepEqual(duplicates(f), [], `${kind} labels shared by several devices`);
  });
}

test('twins that differ only in memory keep their size in a table; every name says its size in the vendor\'s GB', () => {
  const byId = (/** @type {string} */ id) => hardware.find((d) => d.id === id);
  const h96 = byId('nvidia-h20-96gb'), h141 = byId('nvidia-h20-141gb');
  assert.ok(h96 && h141);
  // The core gives both the same base name: the table name tells them apart by the vendor's size.
  assert.equal(h96.name_base, h141.name_base);
  assert.equal(tableName(h96, 'en', hardware), 'NVIDIA H20 · 96\u00a0GB');
  assert.equal(tableName(h141, 'en', hardware), 'NVIDIA H20 · 141\u00a0GB');
  // A device with no twin keeps the short name in a table.
  assert.equal(tableName(byId('nvidia-h200-sxm'), 'en', hardware), 'NVIDIA H200 SXM');
  assert.equal(deviceLabel(byId('nvidia-h200-sxm'), 'en', hardware), 'NVIDIA H200 SXM · 141\u00a0GB');
  // A product label reads the same in a table as in the picker (issue 16: "128 GB" in the nav,
  // "128 GiB" in a table was one device in two units).
  const jetson = byId('nvidia-jetson-agx-orin-64gb');
  assert.match(tableLabel(jetson, 'en', hardware), /· 64\u00a0GB$/);
  assert.equal(tableLabel(jetson, 'en', hardware), deviceLabel(jetson, 'en', hardware));
  // A device sold under another figure than the GiB it holds: the name says the vendor's (B200:
  // "180 GB", the core's memory_sold_gb), every figure the GiB (179.06).
  const b200 = byId('nvidia-b200');
  assert.equal(b200.memory_gib, 179.06);
  assert.equal(b200.memory_sold_gb, 180);
  assert.match(deviceLabel(b200, 'en', hardware), /· 180\u00a0GB$/);
  assert.match(deviceLabel(b200, 'fr', hardware), /· 180\u00a0Go$/);
  // A saved device's size is the GiB the person typed, and says so.
  assert.equal(deviceLabel({ id: 'mine', name: 'My card', memory_gib: 20, custom: true }, 'en'), 'My card · 20\u00a0GiB');
});

for (const lang of ['en', 'es', 'fr', 'zh']) {
  test(`every surface names a device's size in one unit, the vendor's GB (${lang})`, () => {
    const gbUnit = lang === 'fr' ? 'Go' : 'GB';
    const sized = new RegExp(`\\d\\u00a0(GiB|Gio|GB|Go)`, 'gu');
    const labels = (/** @type {any} */ d) => [deviceLabel(d, lang, hardware), tableName(d, lang, hardware), tableLabel(d, lang, hardware), productLabel(d, lang, hardware) ?? ''];
    let seen = 0;
    for (const d of hardware) {
      for (const s of labels(d)) {
        for (const m of s.matchAll(sized)) { seen++; assert.equal(m[1], gbUnit, `${d.id}: ${s}`); }
      }
    }
    assert.ok(seen > hardware.length, `${seen} sizes read`);
    // The scope of a part in the language's parentheses (full-width in Chinese).
    const gb200 = hardware.find((d) => d.name_scope);
    if (gb200 && lang === 'zh') assert.match(scopedName(gb200, lang), /（.+）$/);
  });
}
