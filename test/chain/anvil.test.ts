import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AnvilStartError, anvilBinaryPath, startAnvil, type AnvilHandle } from '../../src/chain/anvil.js';
import { tempDir } from './helpers.js';

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startAnvil', () => {
  const handles: AnvilHandle[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.stop()));
    await Promise.all(cleanups.splice(0).map((c) => c()));
  });

  it('resolves the binary from the @foundry-rs/anvil platform package', () => {
    expect(anvilBinaryPath()).toMatch(/@foundry-rs[/\\]anvil-[a-z0-9]+-[a-z0-9]+[/\\]bin[/\\]anvil(\.exe)?$/);
  });

  it('starts on a free loopback port with the requested chain id and stops cleanly', async () => {
    const a = await startAnvil({ chainId: 4242 });
    handles.push(a);
    const b = await startAnvil();
    handles.push(b);
    expect(a.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a.rpcUrl).not.toBe(b.rpcUrl);
    expect(await rpc(a.rpcUrl, 'eth_chainId')).toBe('0x1092');
    expect(await rpc(b.rpcUrl, 'eth_chainId')).toBe('0x7a69');

    await a.stop();
    expect(isAlive(a.pid)).toBe(false);
    await expect(fetch(a.rpcUrl, { method: 'POST' })).rejects.toThrow();
    await a.stop(); // idempotent
  });

  it('dumps state on stop and reloads it on the next start', async () => {
    const { dir, cleanup } = await tempDir('anvil-');
    cleanups.push(cleanup);
    const stateFile = path.join(dir, 'state.json');
    const addr = '0x00000000000000000000000000000000000000aa';

    const first = await startAnvil({ stateFile });
    await rpc(first.rpcUrl, 'anvil_setBalance', [addr, '0x1234']);
    await rpc(first.rpcUrl, 'evm_mine');
    await first.stop();
    expect(existsSync(stateFile)).toBe(true);

    const second = await startAnvil({ stateFile });
    handles.push(second);
    expect(await rpc(second.rpcUrl, 'eth_getBalance', [addr, 'latest'])).toBe('0x1234');
  });

  it('reports why anvil could not start', async () => {
    const { dir, cleanup } = await tempDir('anvil-');
    cleanups.push(cleanup);
    const stateFile = path.join(dir, 'state.json');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(stateFile, '{"block": {"number": ');
    const err = await startAnvil({ stateFile }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnvilStartError);
    expect((err as AnvilStartError).output).toMatch(/failed to parse/);
  });
});

describe('startAnvil orphan guard', () => {
  it('anvil exits when the process that started it is SIGKILLed', async () => {
    const { spawn } = await import('node:child_process');
    const { writeFile } = await import('node:fs/promises');
    const { dir, cleanup } = await tempDir('anvil-orphan-');
    try {
      const script = path.join(dir, 'parent.mts');
      const anvilModule = path.resolve('src/chain/anvil.ts');
      await writeFile(
        script,
        `import { startAnvil } from ${JSON.stringify(anvilModule)};\n` +
          `const a = await startAnvil();\nconsole.log('PID ' + a.pid);\nsetInterval(() => {}, 1000);\n`,
      );
      const parent = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const pid = await new Promise<number>((resolve, reject) => {
        let out = '';
        parent.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /PID (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        parent.once('exit', () => reject(new Error(`parent exited early: ${out}`)));
      });
      expect(isAlive(pid)).toBe(true);
      parent.kill('SIGKILL');
      // Poll until the kernel has delivered the parent-death signal and anvil has exited.
      for (let i = 0; i < 200 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(isAlive(pid)).toBe(false);
    } finally {
      await cleanup();
    }
  });
});
