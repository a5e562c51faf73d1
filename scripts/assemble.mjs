// Assembles dist/: the static site served by `npm start`, from web/ and the built module, then
// the app icons, the one-file offline page (scripts/offline.mjs) and the service worker's
// version and precache list (a hash of every assembled file, so each build is a new cache).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { pngIcon } from './icon.mjs';
import { buildOffline } from './offline.mjs';
import { prerender } from './prerender.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.join(root, 'dist');
fs.rmSync(dist, { recursive: true, force: true });
fs.cpSync(path.join(root, 'web'), dist, { recursive: true });
fs.rmSync(path.join(dist, 'willitfit.d.ts'), { force: true });  // types for tsc, not for browsers
for (const f of ['willitfit.js', 'willitfit.wasm'])
  fs.copyFileSync(path.join(root, 'build-wasm', 'wasm', f), path.join(dist, f));
const uplot = path.join(root, 'node_modules', 'uplot', 'dist');
if (fs.existsSync(uplot)) {
  fs.mkdirSync(path.join(dist, 'vendor'), { recursive: true });
  // uPlot's minified build (a 'var uPlot = …' script, its licence comment kept) made a module by
  // exporting that one binding: a third of the bytes of its unminified uPlot.esm.js.
  const min = fs.readFileSync(path.join(uplot, 'uPlot.iife.min.js'), 'utf8');
  if (!/^(\/\*[^]*?\*\/\s*)?var uPlot=/.test(min)) throw new Error('assemble: uPlot.iife.min.js no longer starts with var uPlot=');
  fs.writeFileSync(path.join(dist, 'vendor', 'uPlot.esm.js'), `${min}\nexport default uPlot;\n`);
  fs.copyFileSync(path.join(uplot, 'uPlot.min.css'), path.join(dist, 'vendor', 'uPlot.min.css'));
}
const svg = fs.readFileSync(path.join(dist, 'favicon.svg'), 'utf8');
for (const size of [192, 512]) fs.writeFileSync(path.join(dist, `icon-${size}.png`), pngIcon(svg, size));

const offline = buildOffline(dist);
// The accuracy report (the module's accuracyReport, which refits the speed model and takes seconds)
// computed once here, with the module just built, and served beside the app: the accuracy page
// reads it instead of waiting for the refit on every visit. Not in the one-file offline page,
// which computes it (a built one would be a second copy of the same figures to carry).
{
  const t0 = Date.now();
  const api = await import(path.join(dist, 'api.js'));
  fs.writeFileSync(path.join(dist, 'accuracy.json'), JSON.stringify(await api.accuracyReport()));
  console.log(`accuracy.json: the module's accuracy report, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
// The static pages (scripts/prerender.mjs): after the offline page, which holds only the app.
// WIF_PRERENDER=0 skips them (a quicker build when only the app is needed); WIF_PAGES_LIMIT=k
// draws those of the first k models and devices and of the reference pages only.
const limit = process.env.WIF_PAGES_LIMIT ? Number(process.env.WIF_PAGES_LIMIT) : undefined;
const pre = process.env.WIF_PRERENDER === '0' ? null : await prerender(dist, limit !== undefined ? { limit } : {});
// Without pages an empty map, so the app's request for it is answered (npm start draws them later).
if (!pre) fs.writeFileSync(path.join(dist, 'pages.json'), JSON.stringify({ models: {}, devices: {}, pairs: [] }));

/** Every file under dist/, as paths relative to it with forward slashes, sorted. @param {string} dir */
function files(dir, rel = '') {
  /** @type {string[]} */
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...files(path.join(dir, e.name), r));
    else out.push(r);
  }
  return out.sort();
}
// Precache what the hosted app loads; not the offline page (the hosted app never loads it, and
// it holds everything else again), nor the prerendered pages, their map, the sitemap and
// robots.txt (what a search engine or a first visit reads; the app itself is index.html, and
// works without the map).
const all = files(dist).filter((f) => f !== 'sw.js' && !/^(en|es|fr|zh)\//.test(f) && !['sitemap.xml', 'robots.txt', 'pages.json'].includes(f));
const hash = crypto.createHash('sha256');
for (const f of all) hash.update(f).update('\0').update(fs.readFileSync(path.join(dist, f))).update('\0');
const version = hash.digest('hex').slice(0, 16);
const precache = ['./', ...all.filter((f) => f !== 'willitfit-offline.html')];
const swFile = path.join(dist, 'sw.js');
let sw = fs.readFileSync(swFile, 'utf8');
if (!sw.includes("'__WIF_VERSION__'") || !sw.includes("const FILES = ['./'];")) throw new Error('assemble: sw.js placeholders not found');
// The hash of every precached file: the worker checks what it caches and serves against them.
const hashes = Object.fromEntries(precache.filter((f) => f !== './').map((f) =>
  [f, crypto.createHash('sha256').update(fs.readFileSync(path.join(dist, f))).digest('base64')]));
if (!sw.includes('const HASHES = {};')) throw new Error('assemble: sw.js HASHES placeholder not found');
sw = sw.replace("'__WIF_VERSION__'", JSON.stringify(version)).replace("const FILES = ['./'];", `const FILES = ${JSON.stringify(precache)};`)
  .replace('const HASHES = {};', `const HASHES = ${JSON.stringify(hashes)};`);
fs.writeFileSync(swFile, sw);

console.log(`assembled ${path.relative(process.cwd(), dist) || dist}/ (service worker version ${version}; ` +
  `willitfit-offline.html ${(offline.bytes / 1024).toFixed(0)} KiB${pre ? `; ${pre.pages} static pages, ${(pre.bytes / 1048576).toFixed(1)} MiB, ${pre.seconds.toFixed(0)} s` : ''})`);
