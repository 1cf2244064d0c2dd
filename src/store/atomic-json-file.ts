import { open, rename, readFile, mkdir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

export interface AtomicJSONFileOptions<T> {
  /** JSON of `data` as byte chunks written in order (default: one JSON.stringify). */
  serialize?: (data: T) => Buffer[];
}

/**
 * lowdb adapter that makes every write durable: temp file, fsync, rename, fsync of the
 * directory. lowdb's stock JSONFile renames without fsync, so a crash can lose an
 * acknowledged write. A reader therefore sees either the old or the new file, never a mix.
 */
export class AtomicJSONFile<T> implements Adapter<T> {
  private seq = 0;
  private dirReady = false;
  private readonly serialize: (data: T) => Buffer[];

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
    const dir = path.dirname(this.file);
    if (!this.dirReady) {
      await mkdir(dir, { recursive: true });
      this.dirReady = true;
    }
    const tmp = `${this.file}.${process.pid}.${++this.seq}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await writeAll(fh, chunks);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.file);
    const dh = await open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
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
