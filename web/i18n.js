// @ts-check
// Interface strings per language. Numbers are formatted by Intl in format.js, never here.

/** @type {Record<string, Record<string, string>>} */
export const STRINGS = {
  en: {
    tagline: 'Will this model run on this hardware? Exact memory from tensor shapes, not a rule of thumb.',
    language: 'Language', theme: 'Theme', setup: 'Your setup', model: 'Model', quant: 'Quantization',
    context: 'Context', kv_type: 'KV cache type', hardware: 'Hardware', count: 'How many', ram: 'System RAM',
    required: 'Required', usable: 'Usable on device', margin: 'Margin', kv_per_token: 'KV cache per token',
    breakdown: 'Where the memory goes', weights: 'Weights', kv_cache: 'KV cache', compute: 'Compute buffers',
    overhead: 'Runtime overhead', footer: 'Computed in your browser. Nothing is uploaded.',
    verdict_fits: 'Fits with room to spare', verdict_tight: 'Fits, but tight',
    verdict_offload: 'Runs only with part of the model in system RAM (slow)', verdict_no_fit: 'Does not fit',
    verdict_pending: 'Computing…', physical: '{0} physical', utilization: '{0} of usable memory',
    summary: '{model} at {quant} with a {ctx}-token context needs {total} on {hw} ({usable} usable).',
    why_weights: '{n} parameters at {bpw} bits per weight on average; file {file}.',
    why_kv: '{layers} layers × {per_token} per layer per token × {cells} cells.',
    why_compute: 'Largest of the logits ({logits}) and one layer’s attention and FFN scratch ({layer}).',
    why_overhead: 'Runtime context on each device ({backend}).', unknown_model: 'Unknown model',
    error: 'Cannot estimate', free_suffix: 'free', over_suffix: 'short',
    widget_details: 'Full details',
  },
  es: {
    tagline: '¿Correrá este modelo en este hardware? Memoria exacta a partir de las formas de los tensores.',
    language: 'Idioma', theme: 'Tema', setup: 'Tu configuración', model: 'Modelo', quant: 'Cuantización',
    context: 'Contexto', kv_type: 'Tipo de caché KV', hardware: 'Hardware', count: 'Cantidad', ram: 'RAM del sistema',
    required: 'Necesaria', usable: 'Utilizable en el equipo', margin: 'Margen', kv_per_token: 'Caché KV por token',
    breakdown: 'En qué se va la memoria', weights: 'Pesos', kv_cache: 'Caché KV', compute: 'Búferes de cálculo',
    overhead: 'Sobrecarga del entorno', footer: 'Calculado en tu navegador. No se sube nada.',
    verdict_fits: 'Cabe con margen', verdict_tight: 'Cabe, pero justo',
    verdict_offload: 'Solo funciona con parte del modelo en la RAM del sistema (lento)', verdict_no_fit: 'No cabe',
    verdict_pending: 'Calculando…', physical: '{0} físicos', utilization: '{0} de la memoria utilizable',
    summary: '{model} en {quant} con un contexto de {ctx} tokens necesita {total} en {hw} ({usable} utilizables).',
    why_weights: '{n} parámetros a {bpw} bits por peso de media; archivo {file}.',
    why_kv: '{layers} capas × {per_token} por capa y token × {cells} celdas.',
    why_compute: 'El mayor entre los logits ({logits}) y el espacio de atención y FFN de una capa ({layer}).',
    why_overhead: 'Contexto de ejecución en cada dispositivo ({backend}).', unknown_model: 'Modelo desconocido',
    error: 'No se puede estimar', free_suffix: 'libres', over_suffix: 'faltan',
    widget_details: 'Ver detalles',
  },
  fr: {
    tagline: 'Ce modèle tourne-t-il sur ce matériel ? Mémoire exacte à partir des formes des tenseurs.',
    language: 'Langue', theme: 'Thème', setup: 'Votre configuration', model: 'Modèle', quant: 'Quantification',
    context: 'Contexte', kv_type: 'Type de cache KV', hardware: 'Matériel', count: 'Nombre', ram: 'RAM système',
    required: 'Nécessaire', usable: 'Utilisable sur l’appareil', margin: 'Marge', kv_per_token: 'Cache KV par token',
    breakdown: 'Où part la mémoire', weights: 'Poids', kv_cache: 'Cache KV', compute: 'Tampons de calcul',
    overhead: 'Surcoût d’exécution', footer: 'Calculé dans votre navigateur. Rien n’est envoyé.',
    verdict_fits: 'Tient avec de la marge', verdict_tight: 'Tient, mais de justesse',
    verdict_offload: 'Ne tourne qu’avec une partie du modèle en RAM système (lent)', verdict_no_fit: 'Ne tient pas',
    verdict_pending: 'Calcul…', physical: '{0} physiques', utilization: '{0} de la mémoire utilisable',
    summary: '{model} en {quant} avec un contexte de {ctx} tokens demande {total} sur {hw} ({usable} utilisables).',
    why_weights: '{n} paramètres à {bpw} bits par poids en moyenne ; fichier {file}.',
    why_kv: '{layers} couches × {per_token} par couche et par token × {cells} cellules.',
    why_compute: 'Le plus grand des logits ({logits}) et de l’espace attention + FFN d’une couche ({layer}).',
    why_overhead: 'Contexte d’exécution sur chaque appareil ({backend}).', unknown_model: 'Modèle inconnu',
    error: 'Estimation impossible', free_suffix: 'libres', over_suffix: 'manquants',
    widget_details: 'Tous les détails',
  },
  zh: {
    tagline: '这个模型能在这台硬件上运行吗?根据张量形状精确计算内存,而非经验公式。',
    language: '语言', theme: '主题', setup: '你的配置', model: '模型', quant: '量化',
    context: '上下文', kv_type: 'KV 缓存类型', hardware: '硬件', count: '数量', ram: '系统内存',
    required: '所需', usable: '设备可用', margin: '余量', kv_per_token: '每个 token 的 KV 缓存',
    breakdown: '内存去向', weights: '权重', kv_cache: 'KV 缓存', compute: '计算缓冲区',
    overhead: '运行时开销', footer: '在你的浏览器中计算,不上传任何内容。',
    verdict_fits: '可以运行,余量充足', verdict_tight: '可以运行,但很紧张',
    verdict_offload: '只能把部分模型放在系统内存中运行(较慢)', verdict_no_fit: '无法运行',
    verdict_pending: '计算中…', physical: '物理 {0}', utilization: '占可用内存的 {0}',
    summary: '{model}({quant},{ctx} token 上下文)在 {hw} 上需要 {total}(可用 {usable})。',
    why_weights: '{n} 个参数,平均每个权重 {bpw} 位;文件 {file}。',
    why_kv: '{layers} 层 × 每层每 token {per_token} × {cells} 个单元。',
    why_compute: 'logits({logits})与单层注意力和 FFN 临时空间({layer})中的较大者。',
    why_overhead: '每个设备上的运行时上下文({backend})。', unknown_model: '未知模型',
    error: '无法估算', free_suffix: '剩余', over_suffix: '不足',
    widget_details: '查看详情',
  },
};

/** @param {string} lang @param {string} key @param {Record<string, string>} [vars] */
export function t(lang, key, vars) {
  const table = STRINGS[lang] || STRINGS.en;
  let s = table[key] ?? STRINGS.en[key] ?? key;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(v);
  return s;
}

/** Apply translations to every [data-i18n] element (textContent only, never HTML). */
export function applyStrings(lang, root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    el.textContent = t(lang, /** @type {HTMLElement} */ (el).dataset.i18n || '');
  }
  document.documentElement.lang = lang;
}
