/**
 * A test run's temporary files in a folder of its own (`npm test`, `npm run test:ci`): the run's
 * TMPDIR is a fresh `sp-test-run-*` folder, removed when the run exits. The tests' stores, services'
 * data dirs, anvil states, Chromium profiles and fixtures are made with `os.tmpdir()` and not each
 * removed by its test: a run used to leave ~100 folders in /tmp (sixteenth round).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs `command args` with TMPDIR set to a new folder inside the caller's temporary folder (the
 * `env`'s TMPDIR, else this process's), and removes that folder when the command exits, whatever
 * its outcome. Resolves with its exit code (1 when a signal ended it).
 */
export function spawnWithOwnTmp(command, args, options = {}) {
  const env = options.env ?? process.env;
  const dir = mkdtempSync(path.join(env.TMPDIR || os.tmpdir(), 'sp-test-run-'));
  const child = spawn(command, args, { stdio: 'inherit', ...options, env: { ...env, TMPDIR: dir } });
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      rmSync(dir, { recursive: true, force: true });
      resolve(code ?? (signal ? 1 : 0));
    }),
  );
  return { child, dir, exited };
}
