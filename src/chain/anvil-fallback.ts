/**
 * The embedded chain's fallback state (DATA_DIR/chain/anvil-state.json.bak): the state a start
 * loaded, written before the relay journal is replayed, so that a later start whose dump was
 * cut short or torn by a crash can go back to it and replay the journal on top.
 *
 * The journal sweep forgets an entry written before this start once its nonce is mined and it
 * was not replayed (relay-journal-recovery.ts): it relies on this file holding every
 * transaction the node knew when the replay began. So the file must exist from the very first
 * start, and must be exactly what the node holds, never a copy of anvil's state file taken
 * while anvil rewrites it (anvil truncates and rewrites that file every `--state-interval`).
 */
import { gunzipSync } from 'node:zlib';
import { copyFile, readFile } from 'node:fs/promises';
import type { Hex } from 'viem';
import { writeFileDurably } from '../lib/durable-file.js';
import type { NodeClient } from './node-reads.js';

/**
 * Asks anvil for its whole state (`anvil_dumpState`: gzipped JSON in the format of its
 * `--state` file) and replaces `file` with it atomically.
 */
export async function saveFallbackState(client: Pick<NodeClient, 'request'>, file: string): Promise<void> {
  const hex = (await client.request({ method: 'anvil_dumpState' as never, params: [] as never })) as Hex;
  const bytes = Buffer.from(hex.slice(2), 'hex');
  // gzip's magic number; an anvil that answers plain JSON is taken as it is.
  const json = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  await writeFileDurably(file, json);
}

/**
 * Puts the fallback in place of an unusable state file, which is kept as `aside` (none when
 * the state file is missing). The state file is replaced by a rename, so a crash in between
 * leaves one or the other, never no state file (anvil would start an empty chain) nor half a copy.
 */
export async function restoreFallbackState(fallback: string, stateFile: string, aside?: string): Promise<void> {
  if (aside) await copyFile(stateFile, aside);
  await writeFileDurably(stateFile, await readFile(fallback));
}
