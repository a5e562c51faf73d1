// Canonical form of a result document, so the CLI, the wasm module and the page's worker can be
// compared byte for byte: keys sorted, integral numbers as integers, other numbers rounded to 8
// significant digits (the native and wasm builds may differ in the last bits of a libm call).
// tests/golden_test.cpp applies the same rule in C++.

/** @param {unknown} v @returns {unknown} */
export function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(/** @type {any} */ (v)[k]);
    return out;
  }
  if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) return v;
    return Number(v.toPrecision(8));
  }
  return v;
}

/** The canonical text of a document: two-space indent, one key per line. @param {unknown} v */
export function canonicalText(v) {
  return JSON.stringify(canonical(v), null, 2);
}

export const GENERATED_BY = 'scripts/golden.mjs --update (the native CLI\'s `willitfit api`); reviewed by eye, see tests/golden/journeys/README.md';

/** The text of an expected file: line one says what generated it. @param {unknown} doc */
export function expectedFileText(doc) {
  return `{"generated_by": ${JSON.stringify(GENERATED_BY)},\n"result": ${canonicalText(doc)}}\n`;
}
