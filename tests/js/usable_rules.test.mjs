// Every usable-memory rule the core states (core/src/hardware/device.cpp usable_memory) has a translation
// in the page's languages (web/i18n.js ruleText), so no English sentence shows on an es/fr/zh page.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { api, root } from './helpers.mjs';

const { ruleText } = await import(path.join(root, 'dist', 'i18n.js'));

test('each usable-memory rule of each device kind and override is translated in es, fr and zh', async () => {
  const base = { model: 'Qwen/Qwen3-0.6B', quant: 'Q4_K_M' };
  const asks = [
    { hardware: 'nvidia-rtx-4090' }, { hardware: 'nvidia-rtx-4090', display_attached: true },
    { hardware: 'apple-m1-7c-gpu-8gb' }, { hardware: 'apple-m3-ultra-80c-gpu-512gb' },
    { hardware: 'apple-m3-ultra-80c-gpu-512gb', wired_limit_mib: 400000 },
    { hardware: 'amd-ryzen-ai-max-plus-395-128gb' }, { hardware: 'amd-ryzen-9-7950x' },
  ];
  const rules = new Set();
  for (const a of asks) {
    const r = await api.estimate({ ...base, ...a }).catch(() => null);
    if (r) rules.add(r.memory.usable_rule);
  }
  assert.ok(rules.size >= 5, [...rules].join(' | '));
  for (const rule of rules)
    for (const lang of ['es', 'fr', 'zh']) {
      const x = ruleText(lang, rule);
      assert.notEqual(x, rule, `${lang}: "${rule}" is not translated`);
      assert.ok(x.length > 0);
    }
  assert.equal(ruleText('en', 'VRAM less 0.35 GiB the driver keeps'), 'VRAM less 0.35 GiB the driver keeps');
});
