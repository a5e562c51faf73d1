// Shared by the node tests: the built module (through the same wrapper the page uses) and the CLI.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const api = await import(path.join(root, 'dist', 'api.js'));
export const GiB = 1024 ** 3;

/** Run the native CLI; returns {code, json}. */
export function cli(...args) {
  const r = spawnSync(path.join(root, 'build', 'cli', 'willitfit'), args, { encoding: 'utf8' });
  let json = null;
  try { json = JSON.parse(r.stdout); } catch { /* not JSON */ }
  return { code: r.status, json, stdout: r.stdout, stderr: r.stderr };
}
