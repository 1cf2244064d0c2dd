import { chmod, mkdir, open, rename } from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces `file` with `data` so that a crash at any moment leaves either the old content or
 * the new one: written to a temporary name, fsynced, renamed over `file`, and the directory
 * fsynced so the rename itself survives a power cut. The file gets exactly `mode` (open()'s mode
 * is filtered by the umask: a secrets file must be 0600, whatever the umask).
 */
export async function writeFileDurably(file: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await chmod(tmp, mode);
  await rename(tmp, file);
  const dh = await open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
