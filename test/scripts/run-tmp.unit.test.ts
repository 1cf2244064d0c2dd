import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnWithOwnTmp } from '../../scripts/run-tmp.mjs';

/**
 * `npm test` runs vitest through spawnWithOwnTmp: what the run's tests leave in their temporary
 * folder (a store, a service's data dir, a fixture, each made with os.tmpdir() and not removed) is
 * gone when the run ends; before, ~100 folders a run stayed in /tmp.
 */
let outer: string;
afterEach(() => rm(outer, { recursive: true, force: true }));

/** A child that leaves a folder and a file in its os.tmpdir(), prints where, and exits with `code`. */
const leaver = (code: number) => [
  '-e',
  `const fs=require('fs'),os=require('os'),p=require('path');const d=fs.mkdtempSync(p.join(os.tmpdir(),'sp-agent-'));fs.writeFileSync(p.join(d,'db.json'),'{}');console.log(os.tmpdir());process.exit(${code})`,
];

async function run(code: number): Promise<{ exit: number; childTmp: string; dir: string }> {
  outer = await mkdtemp(path.join(os.tmpdir(), 'run-tmp-test-'));
  const { child, dir, exited } = spawnWithOwnTmp(process.execPath, leaver(code), { env: { ...process.env, TMPDIR: outer }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const exit = await exited;
  return { exit, childTmp: out.trim(), dir };
}

describe('a test run with a temporary folder of its own', () => {
  it("the run's temporary files are inside its own folder, and none is left when it ends", async () => {
    const { exit, childTmp, dir } = await run(0);
    expect(exit).toBe(0);
    expect(childTmp).toBe(dir);
    expect(path.dirname(dir)).toBe(outer);
    expect(await readdir(outer)).toEqual([]);
  });
  it('a failed run is cleaned up too and keeps its exit code', async () => {
    const { exit } = await run(3);
    expect(exit).toBe(3);
    expect(await readdir(outer)).toEqual([]);
  });
});
