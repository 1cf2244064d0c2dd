import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// `npm start` as a newcomer runs it (src/main.ts), here with PORT=0 on an empty DATA_DIR.
let child: ChildProcess;
let stdout = '';
let dataDir: string;

beforeAll(async () => {
  dataDir = await tempDir('sp-main-');
  child = spawn('npx', ['tsx', 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npx does not pass SIGTERM on, so afterAll signals the whole group.
    detached: true,
  });
  child.stdout!.on('data', (d) => (stdout += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 50 s: ${stdout}`)), 50_000);
    child.stdout!.on('data', () => {
      if (/running at/.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stdout}`)));
  });
});

afterAll(async () => {
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGTERM'); // npx, tsx and the service (anvil follows its parent)
    } catch {
      /* already gone */
    }
    // The service logs nothing here (LOG_LEVEL=silent); wait until it has shut down and exited.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && groupAlive(child.pid)) await new Promise((r) => setTimeout(r, 100));
  }
  await rm(dataDir, { recursive: true, force: true });
});

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start with PORT=0', () => {
  it('prints the address it really listens on, and that address serves the API', async () => {
    const m = /running at (http:\/\/localhost:(\d+)) /.exec(stdout);
    expect(m, stdout).not.toBeNull();
    expect(Number(m![2])).toBeGreaterThan(0);
    const res = await fetch(`${m![1]}/healthz`);
    expect(res.status).toBe(200);
  });

  it('prints the demo login with the full sign-in URL', () => {
    const url = /running at (http:\/\/localhost:\d+) /.exec(stdout)![1];
    expect(stdout).toContain(`Sign in at ${url}/app,`);
  });

  it('prints the embedded chain\'s JSON-RPC URL (issue 27), and a wallet pointed there reaches that chain', async () => {
    const m = /Embedded test chain: JSON-RPC (http:\/\/127\.0\.0\.1:\d+) \(chain id (\d+)\)/.exec(stdout);
    expect(m, stdout).not.toBeNull();
    const rpc = await fetch(m![1]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
    expect(Number(((await rpc.json()) as { result: string }).result)).toBe(Number(m![2]));
  });
});
