import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service as plain JavaScript for the tests that run it as child processes (the crash,
 * instance and process tests: `src/main.ts` started and killed again and again). Under
 * `node --import tsx` every start sends each of the service's ~370 modules through tsx's
 * loader hooks: 11-15 s and 4 s of CPU per start on the loaded 2-core machine, against
 * 4-6 s and 1.5 s for the same source transpiled once per run (docs/testing.md). The build
 * is what `npm run build` makes (one .js per .ts, assets copied beside them), made with
 * esbuild (tsx's own transpiler, installed with it) in a second or two instead of tsc's
 * half-minute; it sits beside src/ so the sources' `../../data/...` and node_modules paths
 * resolve exactly as they do from src/ and dist/.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN_TS = path.join(ROOT, 'src', 'main.ts');
/** Set by the global setup below for the run's workers; its `main.js` is the built entry. */
export const BUILD_ENV = 'SP_TEST_SERVICE_BUILD';

/**
 * The arguments after `node` that start the service: the run's build when there is one, else
 * the sources through tsx (a single file run by hand, the benches).
 */
export function serviceArgs(): string[] {
  const dir = process.env[BUILD_ENV];
  if (dir && existsSync(path.join(dir, 'main.js'))) return [path.join(dir, 'main.js')];
  return ['--import', 'tsx', MAIN_TS];
}

/** Transpiles src/ into `out` (one .js per .ts) and copies the other files (pages' assets, SQL). */
export async function buildService(out: string): Promise<void> {
  const { build } = await import('esbuild');
  const src = path.join(ROOT, 'src');
  const entries = await readdir(src, { recursive: true, withFileTypes: true });
  const ts = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name));
  await build({ entryPoints: ts, outdir: out, outbase: src, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
  for (const e of entries) {
    if (!e.isFile() || e.name.endsWith('.ts')) continue;
    const from = path.join(e.parentPath, e.name);
    const to = path.join(out, path.relative(src, from));
    await mkdir(path.dirname(to), { recursive: true });
    await cp(from, to);
  }
}

/**
 * Vitest global setup (vitest.config.ts): one build per run, in a directory of this run's
 * own (two runs in one checkout do not share one), removed at the end. Projects that list it
 * share the first one's build.
 */
export default async function setup(): Promise<(() => Promise<void>) | void> {
  if (process.env[BUILD_ENV]) return;
  const out = path.join(ROOT, `.test-dist-${process.pid}`);
  await buildService(out);
  process.env[BUILD_ENV] = out;
  return async () => {
    delete process.env[BUILD_ENV];
    await rm(out, { recursive: true, force: true });
  };
}
