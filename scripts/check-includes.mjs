// npm run check:includes: the include graph of core/ against the layer order of its folders.
//
// Reads every #include "..." of core/src and core/include/willitfit (both the "willitfit/..."
// form and the relative form a private header uses), and fails (exit 1, listing the edges) when
//  * an include runs back up the layer order below (a folder includes a folder of a higher layer);
//  * the units form a cycle. A unit is a header together with the .cpp of the same name in the
//    mirrored folder (willitfit/estimate/estimate.hpp + src/estimate/estimate.cpp): a .cpp that
//    includes B's header while B's header includes this .cpp's header is a cycle of the code,
//    though no single file includes itself.
// Prints a table of include counts from folder (rows) to folder (columns) either way.
//
//   node scripts/check-includes.mjs [--quiet]     (--quiet: only the verdict and the problems)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');

// Lowest layer first. A folder may include its own layer and the layers below it. Folders of one
// layer do not depend on each other today; the cycle check covers them if they start to.
export const LAYERS = [
  ['base'],                 // errors as data, typed JSON reads, base64
  ['model', 'hardware'],    // what a model is; what a device is
  ['catalog'],              // the data/ files, read into models and devices
  ['llamacpp', 'servers'],  // how each engine lays out memory (llama.cpp; vLLM, SGLang)
  ['gguf'],                 // GGUF headers; the summary reports llama.cpp's KV bytes per token
  ['hub'],                  // a Hugging Face repo's files, config and headers, read into models
  ['speed'],                // speed on one device, across devices, of a batched server
  ['estimate'],             // one request -> one result document, engine glue, commands
  ['questions', 'money', 'training', 'calibration'],  // loops over the estimate
  ['api'],                  // the JSON entry points
];

const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i])));
const order = LAYERS.flat();

/** Every .cpp/.hpp under dir, as paths relative to the repository root. */
function walk(dir) {
  const out = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = posix.join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) out.push(...walk(rel));
    else if (/\.(cpp|hpp)$/.test(name)) out.push(rel);
  }
  return out;
}

const SRC = 'core/src/';
const INC = 'core/include/willitfit/';
const files = [...walk('core/src'), ...walk('core/include/willitfit')];
const known = new Set(files);

/** The concern folder of a core file ("core/src/gguf/read.cpp" -> "gguf"). */
function folderOf(file) {
  const rest = file.startsWith(INC) ? file.slice(INC.length) : file.slice(SRC.length);
  return rest.includes('/') ? rest.split('/')[0] : '(top)';
}

/** The unit a file belongs to: "estimate/estimate" for both its header and its .cpp. */
function unitOf(file) {
  if (file.startsWith(INC)) return file.slice(INC.length).replace(/\.hpp$/, '');
  const rest = file.slice(SRC.length);
  const twin = INC + rest.replace(/\.cpp$/, '.hpp');
  return known.has(twin) ? rest.replace(/\.cpp$/, '') : rest;
}

const edges = [];  // { from, to, line }
const problems = [];
for (const file of files) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  lines.forEach((text, i) => {
    const m = /^\s*#\s*include\s+"([^"]+)"/.exec(text);
    if (!m) return;
    let target;
    if (m[1].startsWith('willitfit/')) target = 'core/include/' + m[1];
    else target = posix.normalize(posix.join(posix.dirname(file), m[1]));
    if (!known.has(target)) {
      problems.push(`${file}:${i + 1}: includes "${m[1]}", which is not a file of core/`);
      return;
    }
    edges.push({ from: file, to: target, line: i + 1 });
  });
}

// 1. Layers: no include runs back up.
for (const f of files) {
  const folder = folderOf(f);
  if (!layerOf.has(folder)) problems.push(`${f}: folder '${folder}' has no layer in scripts/check-includes.mjs`);
}
for (const e of edges) {
  const a = folderOf(e.from), b = folderOf(e.to);
  if (layerOf.has(a) && layerOf.has(b) && layerOf.get(b) > layerOf.get(a))
    problems.push(`${e.from}:${e.line} -> ${relative(root, join(root, e.to))}: '${a}' (layer ${layerOf.get(a)}) ` +
                  `includes '${b}' (layer ${layerOf.get(b)}), up the order`);
}

// 2. Cycles between units (Tarjan's strongly connected components).
const graph = new Map();
const why = new Map();  // "u|v" -> first include that makes the edge
for (const e of edges) {
  const u = unitOf(e.from), v = unitOf(e.to);
  if (!graph.has(u)) graph.set(u, new Set());
  if (!graph.has(v)) graph.set(v, new Set());
  if (u === v) continue;
  graph.get(u).add(v);
  if (!why.has(`${u}|${v}`)) why.set(`${u}|${v}`, `${e.from}:${e.line} includes ${e.to}`);
}
let counter = 0;
const index = new Map(), low = new Map(), onStack = new Set(), stack = [];
const components = [];
function strong(v) {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const w of [...graph.get(v)].sort()) {
    if (!index.has(w)) {
      strong(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) === index.get(v)) {
    const c = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) components.push(c.sort());
  }
}
for (const v of [...graph.keys()].sort()) if (!index.has(v)) strong(v);
for (const c of components) {
  const inside = new Set(c);
  const list = [];
  for (const u of c) for (const v of graph.get(u)) if (inside.has(v)) list.push(`    ${why.get(`${u}|${v}`)}`);
  problems.push(`cycle between ${c.join(', ')}:\n${list.join('\n')}`);
}

// 3. The table: include counts from folder (row) to folder (column), in layer order.
if (!quiet) {
  const count = new Map();
  for (const e of edges) {
    const k = `${folderOf(e.from)}|${folderOf(e.to)}`;
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const w = Math.max(...order.map((f) => f.length));
  const cols = order.map((_, j) => String(j).padStart(3)).join('');
  console.log(`includes from folder (row) to folder (column), lowest layer first; above the diagonal runs up\n`);
  console.log(`${''.padEnd(w + 5)}${cols}`);
  order.forEach((a, i) => {
    const cells = order.map((b) => String(count.get(`${a}|${b}`) ?? '.').padStart(3)).join('');
    console.log(`${String(i).padStart(2)} ${a.padEnd(w)} L${layerOf.get(a)}${cells}`);
  });
  console.log(`\n${files.length} files, ${edges.length} includes, ${graph.size} units`);
}

if (problems.length) {
  console.error(`\ncheck-includes: ${problems.length} problem(s)`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log('check-includes: no cycle, no include up the layer order');
