// Assembles dist/: the static site served by `npm start`, from web/ and the built module.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.join(root, 'dist');
fs.rmSync(dist, { recursive: true, force: true });
fs.cpSync(path.join(root, 'web'), dist, { recursive: true });
for (const f of ['willitfit.js', 'willitfit.wasm', 'willitfit-single.js'])
  fs.copyFileSync(path.join(root, 'build-wasm', 'wasm', f), path.join(dist, f));
const uplot = path.join(root, 'node_modules', 'uplot', 'dist');
if (fs.existsSync(uplot)) {
  fs.mkdirSync(path.join(dist, 'vendor'), { recursive: true });
  fs.copyFileSync(path.join(uplot, 'uPlot.esm.js'), path.join(dist, 'vendor', 'uPlot.esm.js'));
  fs.copyFileSync(path.join(uplot, 'uPlot.min.css'), path.join(dist, 'vendor', 'uPlot.min.css'));
}
console.log(`assembled ${path.relative(process.cwd(), dist) || dist}/`);
