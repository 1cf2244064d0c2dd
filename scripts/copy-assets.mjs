// Copies every non-TypeScript file under src/ (page assets, SQL, JSON) next to the compiled
// JavaScript in dist/, so `node dist/main.js` finds them where the sources look for them.
import { cp, readdir } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

for (const entry of await readdir(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const from = path.join(entry.parentPath, entry.name);
  await cp(from, path.join(dist, path.relative(src, from)));
}
