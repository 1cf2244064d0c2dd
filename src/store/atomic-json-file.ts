import { open, rename, readFile, mkdir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

export interface AtomicJSONFileOptions<T> {
  /** JSON of `data` as byte chunks written in order (default: one JSON.stringify). */
  serialize?: (data: T) => Buffer[];
}

/**
 * lowdb adapter that makes every write durable and atomic: write a temp file, fdatasync,
 * rename over the file, fsync the directory. lowdb's stock JSONFile renames without any
 * fsync, so a crash can lose an acknowledged write. A reader sees the old or the new file,
 * never a mix.
 */
export class AtomicJSONFile<T> implements Adapter<T> {
  private seq = 0;
  private readonly serialize: (data: T) => Buffer[];
  private dir: FileHandle | undefined;
  /**
   * An open handle on the file being replaced: the rename then only drops a name, and the
   * old file's blocks are freed when this handle is closed, after the write has been
   * acknowledged (freeing tens of MB inside rename() would otherwise delay every commit).
   */
  private current: FileHandle | undefined;

  constructor(
    private readonly file: string,
    opts: AtomicJSONFileOptions<T> = {},
  ) {
    this.serialize = opts.serialize ?? ((data) => [Buffer.from(JSON.stringify(data))]);
  }

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.file, 'utf8')) as T;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async write(data: T): Promise<void> {
    // Serialise before the first await: the snapshot is the data as of this call.
    const chunks = this.serialize(data);
    const dirPath = path.dirname(this.file);
    if (!this.dir) {
      await mkdir(dirPath, { recursive: true });
      this.dir = await open(dirPath, 'r');
      this.current = await open(this.file, 'r').catch(() => undefined);
    }
    const tmp = `${this.file}.${process.pid}.${++this.seq}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await writeAll(fh, chunks);
      await fh.datasync();
    } catch (e) {
      await fh.close();
      throw e;
    }
    // The new file's handle stays open: it keeps the next rename from freeing it inline.
    await rename(tmp, this.file);
    await this.dir.sync();
    const old = this.current;
    this.current = fh;
    // Freed in the background; nothing waits for it.
    old?.close().catch(() => undefined);
  }

  /** Releases the directory and file handles (the store calls this when it closes). */
  async close(): Promise<void> {
    await this.current?.close().catch(() => undefined);
    await this.dir?.close().catch(() => undefined);
    this.current = undefined;
    this.dir = undefined;
  }
}

/** writev until every byte is written (a regular file may still take a short write). */
async function writeAll(fh: FileHandle, chunks: Buffer[]): Promise<void> {
  let rest = chunks.filter((c) => c.length > 0);
  while (rest.length > 0) {
    let { bytesWritten } = await fh.writev(rest);
    const next: Buffer[] = [];
    for (const c of rest) {
      if (bytesWritten >= c.length) bytesWritten -= c.length;
      else {
        next.push(bytesWritten > 0 ? c.subarray(bytesWritten) : c);
        bytesWritten = 0;
      }
    }
    rest = next;
  }
}
