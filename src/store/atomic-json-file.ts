import { open, rename, readFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

/**
 * lowdb adapter that makes every write durable: temp file, fsync, rename, fsync of the
 * directory. lowdb's stock JSONFile renames without fsync, so a crash can lose an
 * acknowledged write.
 */
export class AtomicJSONFile<T> implements Adapter<T> {
  private seq = 0;
  constructor(private readonly file: string) {}

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.file, 'utf8')) as T;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async write(data: T): Promise<void> {
    const dir = path.dirname(this.file);
    await mkdir(dir, { recursive: true });
    const tmp = `${this.file}.${process.pid}.${++this.seq}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(JSON.stringify(data));
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
