// Every usable-memory rule the core states (core/src/hardware/device.cpp usable_memory) is a code
// with its numbers, worded by the page in each language (web/i18n/main/*.js rule_code_*), with a
// place for every number; the result carries no English sentence beside it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { api, root } from './helpers.mjs';

const { STRINGS } = await import(path.join(root, 'dist', 'i18n.js'));

test('each usable-memory rule of each device kind and override is a code worded in en, es, fr and zh', async () => {
  const base = { model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M' };
  const asks = [
    { hardware: 'nvidia-rtx-4090' }, { hardware: 'nvidia-rtx-4090', display: true },
    { hardware: 'apple-m1-7c-gpu-8gb' }, { hardware: 'apple-m3-ultra-80c-gpu-512gb' },
    { hardware: 'apple-m3-ultra-80c-gpu-512gb', wired_limit_mib: 400000 },
    { hardware: 'amd-ryzen-ai-max-plus-395-128gb' }, { hardware: 'amd-ryzen-9-7950x' },
  ];
  /** @type {Map<string, Record<string, number>>} */
  const rules = new Map();
  for (const a of asks) {
    const r = await api.estimate({ ...base, ...a });
    assert.equal(r.memory.usable_rule, undefined, 'no English rule beside the code');
    rules.set(r.memory.usable_rule_code.code, r.memory.usable_rule_code.params);
  }
  assert.equal(rules.size, 7, [...rules.keys()].join(' | '));
  for (const [code, params] of rules)
    for (const lang of ['en', 'es', 'fr', 'zh']) {
      // A discrete device's rule has a second wording for an NPU or AI accelerator (device memory, not VRAM).
      for (const key of [`rule_code_${code}`, ...(code.startsWith('gpu_') ? [`rule_code_${code}_accel`] : [])]) {
        const s = STRINGS[lang][key];
        assert.ok(typeof s === 'string' && s.length > 0, `${lang}: ${key} has no words`);
        for (const k of Object.keys(params)) assert.ok(s.includes(`{${k}}`), `${lang}: ${key} does not show ${k}`);
        for (const m of s.matchAll(/\{(\w+)\}/g)) assert.ok(m[1] in params, `${lang}: ${key} names ${m[1]}, which the core does not give`);
        if (key.endsWith('_accel')) assert.ok(!/VRAM|显存/.test(s), `${lang}: ${key} calls an accelerator's memory VRAM`);
      }
    }
});
