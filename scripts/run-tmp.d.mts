import type { ChildProcess, SpawnOptions } from 'node:child_process';

/** scripts/run-tmp.mjs: a command run with a TMPDIR of its own, removed when it exits. */
export function spawnWithOwnTmp(command: string, args: string[], options?: SpawnOptions): { child: ChildProcess; dir: string; exited: Promise<number> };
