// npm start: serve dist/ on localhost and print the URL; then, unless dist/ has them already (or
// WIF_PRERENDER=0), draw the static pages (scripts/prerender.mjs) in child processes while the
// app is already served: each page is there as soon as it is written.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { startServer } from './server.mjs';

const port = Number(process.env.PORT) || 8080;
const { url } = await startServer({ port, host: '127.0.0.1' });
console.log(`willitfit is running at ${url}`);
console.log('Press Ctrl+C to stop.');
const dist = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'dist');
/** Does dist/ hold pages already (a map that lists some)? */
function drawn() {
  try { return JSON.parse(fs.readFileSync(path.join(dist, 'pages.json'), 'utf8')).pairs.length > 0; } catch { return false; }
}
if (process.env.WIF_PRERENDER !== '0' && !drawn()) {
  console.log('Drawing the static pages (one per model, device and chosen pair, in four languages) in the background…');
  const t0 = Date.now();
  const child = spawn(process.execPath, [path.join(path.dirname(new URL(import.meta.url).pathname), 'prerender.mjs'), '--dist', dist],
    { stdio: 'inherit', env: { ...process.env, WIF_SITE_URL: process.env.WIF_SITE_URL || url } });
  child.on('exit', (code) => console.log(code === 0 ? `static pages ready after ${((Date.now() - t0) / 1000).toFixed(0)} s: ${url}en/glm-4.5-air/mac-studio-m3-ultra-512gb/`
    : `static pages failed (exit ${code}); the app at ${url} is unaffected`));
}
