/**
 * Runs the anvil binary shipped in the `@foundry-rs/anvil` npm package as the embedded chain.
 * State persists through `--state` (loaded at start, dumped on SIGTERM) plus `--state-interval`
 * so a crash loses at most a few seconds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface AnvilOptions {
  /** Loaded at start when it exists, dumped on stop and every `stateIntervalSeconds`. */
  stateFile?: string;
  /** Loopback port; default: any free one (anvil binds port 0 and reports it). */
  port?: number;
  chainId?: number;
  /** Periodic state dump interval; only with `stateFile`. Default 2. */
  stateIntervalSeconds?: number;
  /** How long to wait for the RPC to answer. Default 20 s. */
  startTimeoutMs?: number;
  /** Path to the anvil binary; default: resolved from node_modules. */
  binary?: string;
  /** Mine a block every this many seconds instead of at once per transaction (a real chain's window). */
  blockTimeSeconds?: number;
}

export interface AnvilHandle {
  rpcUrl: string;
  chainId: number;
  pid: number;
  /** SIGTERM, then waits for the exit (anvil dumps its state on the way out). Idempotent. */
  stop(): Promise<void>;
}

export class AnvilStartError extends Error {
  constructor(
    message: string,
    /** The tail of anvil's output, e.g. "failed to parse json file" for a corrupt state file. */
    readonly output: string,
    readonly exitCode: number | null = null,
  ) {
    super(output ? `${message}\n${output}` : message);
    this.name = 'AnvilStartError';
  }
}

const STOP_GRACE_MS = 10_000;
const OUTPUT_TAIL_CHARS = 4_000;

/** Locates the platform binary of `@foundry-rs/anvil`, falling back to node_modules/.bin. */
export function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch];
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  if (arch) {
    try {
      return require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${exe}`);
    } catch {
      // not installed for this platform; try the wrapper below
    }
  }
  const candidates = [path.resolve('node_modules', '.bin', exe)];
  try {
    candidates.push(path.join(path.dirname(require.resolve('@foundry-rs/anvil/package.json')), '..', '..', '.bin', exe));
  } catch {
    // package missing entirely
  }
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new AnvilStartError('anvil binary not found: is @foundry-rs/anvil installed?', '');
  return found;
}

// Every anvil this process started, so none outlives it on a normal exit.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGTERM');
    });
  }
}

function hasSetpriv(): boolean {
  return process.platform === 'linux' && existsSync('/usr/bin/setpriv');
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilHandle> {
  const chainId = opts.chainId ?? 31337;
  const binary = opts.binary ?? anvilBinaryPath();
  const args = ['--host', '127.0.0.1', '--port', String(opts.port ?? 0), '--chain-id', String(chainId)];
  if (opts.stateFile) {
    args.push('--state', opts.stateFile, '--state-interval', String(opts.stateIntervalSeconds ?? 2));
  }
  if (opts.blockTimeSeconds) args.push('--block-time', String(opts.blockTimeSeconds));
  // On Linux, setpriv sets PR_SET_PDEATHSIG before exec'ing anvil: if this process dies
  // without running exit hooks (SIGKILL, unhandled SIGTERM), anvil still gets SIGTERM,
  // dumps its state and exits instead of lingering as an orphan.
  const [cmd, cmdArgs] = hasSetpriv()
    ? ['/usr/bin/setpriv', ['--pdeathsig', 'SIGTERM', '--', binary, ...args]]
    : [binary, args];
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(child);

  let output = '';
  const remember = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  // Drain both pipes for the whole life of the process: anvil logs every RPC call, and a
  // full pipe would block it. Its banner lists the well-known dev keys; it is never logged.
  child.stdout!.on('data', remember);
  child.stderr!.on('data', remember);

  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const stop = async (): Promise<void> => {
    if (hasExited || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new AnvilStartError(`anvil did not start within ${opts.startTimeoutMs ?? 20_000} ms`, output)),
        opts.startTimeoutMs ?? 20_000,
      );
      const onData = () => {
        const m = /Listening on [^\s:]+:(\d+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          resolve(Number(m[1]));
        }
      };
      child.stdout!.on('data', onData);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(new AnvilStartError(`could not run ${binary}: ${e.message}`, output));
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new AnvilStartError(`anvil exited during start (code ${code})`, output.trim(), code));
      });
    });
    const rpcUrl = `http://127.0.0.1:${port}`;
    await waitForRpc(rpcUrl, chainId, opts.startTimeoutMs ?? 20_000, () => hasExited);
    return { rpcUrl, chainId, pid: child.pid!, stop };
  } catch (e) {
    await stop();
    throw e instanceof AnvilStartError ? e : new AnvilStartError((e as Error).message, output);
  }
}

async function waitForRpc(rpcUrl: string, chainId: number, timeoutMs: number, dead: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (dead()) throw new Error('anvil exited before its RPC answered');
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(1_000),
      });
      const body = (await res.json()) as { result?: string };
      if (body.result !== undefined) {
        if (Number(body.result) !== chainId) throw new Error(`anvil reports chain id ${body.result}, expected ${chainId}`);
        return;
      }
    } catch (e) {
      if ((e as Error).message.startsWith('anvil reports')) throw e;
    }
    if (Date.now() > deadline) throw new Error(`anvil RPC at ${rpcUrl} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
