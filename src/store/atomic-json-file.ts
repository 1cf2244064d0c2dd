import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Adapter } from 'lowdb';

export interface AtomicJSONFileOptions<T> {
  /**
   * JSON of `data` as chunks written in order (default: one JSON.stringify). Byte chunks
   * backed by a SharedArrayBuffer reach the writer threads without a copy; short pieces can
   * be strings.
   */
  serialize?: (data: T) => Array<Uint8Array | string>;
  /** Writer threads, i.e. how many writes may be on their way to disk at once (default 2). */
  writers?: number;
}

/**
 * A writer thread. A write is two messages: `prepare` (temp file, write, fdatasync) and
 * `commit` (rename over the file, fsync of the directory). Each runs synchronously here: on
 * the main thread the same chain would be seven awaits, each waiting for a turn of a busy
 * event loop. Plain JS (evaluated), so it runs the same under tsx, vitest and plain node.
 */
const WRITER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
let dirFd;
const prepared = new Map();
function writeAll(fd, chunks) {
  let rest = chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)).filter((c) => c.byteLength > 0);
  while (rest.length > 0) {
    const batch = rest.slice(0, 512);
    let written = fs.writevSync(fd, batch);
    const next = [];
    for (const c of batch) {
      if (written >= c.byteLength) written -= c.byteLength;
      else { next.push(written > 0 ? c.subarray(written) : c); written = 0; }
    }
    rest = next.concat(rest.slice(batch.length));
  }
}
parentPort.on('message', (m) => {
  try {
    if (m.type === 'prepare') {
      if (dirFd === undefined) {
        fs.mkdirSync(m.dir, { recursive: true });
        dirFd = fs.openSync(m.dir, 'r');
      }
      const fd = fs.openSync(m.tmp, 'w', 0o600);
      try {
        writeAll(fd, m.chunks);
        fs.fdatasyncSync(fd);
      } catch (e) {
        fs.closeSync(fd);
        try { fs.unlinkSync(m.tmp); } catch {}
        throw e;
      }
      prepared.set(m.tmp, fd);
      parentPort.postMessage({ id: m.id, ok: true });
    } else if (m.type === 'commit') {
      const fd = prepared.get(m.tmp);
      prepared.delete(m.tmp);
      try {
        fs.renameSync(m.tmp, m.file);
      } catch (e) {
        if (fd !== undefined) fs.closeSync(fd);
        try { fs.unlinkSync(m.tmp); } catch {}
        throw e;
      }
      fs.fsyncSync(dirFd);
      // The new file stays open (its fd goes back to the main thread): the next rename then
      // only drops a name, and its blocks are freed by a later asynchronous close.
      parentPort.postMessage({ id: m.id, ok: true, fd });
    } else if (m.type === 'abandon') {
      const fd = prepared.get(m.tmp);
      prepared.delete(m.tmp);
      if (fd !== undefined) fs.closeSync(fd);
      try { fs.unlinkSync(m.tmp); } catch {}
      parentPort.postMessage({ id: m.id, ok: true });
    } else if (m.type === 'release') {
      fs.close(m.fd, () => {});
      parentPort.postMessage({ id: m.id, ok: true });
    } else if (m.type === 'close') {
      for (const fd of prepared.values()) fs.closeSync(fd);
      prepared.clear();
      if (m.fd !== undefined) fs.closeSync(m.fd);
      if (dirFd !== undefined) fs.closeSync(dirFd);
      dirFd = undefined;
      parentPort.postMessage({ id: m.id, ok: true });
    }
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, message: String((e && e.message) || e), code: e && e.code });
  }
});
`;

interface Reply {
  id: number;
  ok: boolean;
  fd?: number;
  message?: string;
  code?: string;
}
type Pending = { resolve: (r: Reply) => void; reject: (e: Error) => void };

/** One writer thread and the replies it owes. */
class Writer {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  dead = false;

  constructor() {
    this.worker = new Worker(WRITER_SOURCE, { eval: true });
    const failAll = (e: Error) => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      // Only an unanswered request keeps the process alive.
      if (this.pending.size === 0) this.worker.unref();
      if (m.ok) p.resolve(m);
      else p.reject(Object.assign(new Error(m.message ?? 'write failed'), { code: m.code }));
    });
    this.worker.on('error', failAll);
    this.worker.on('exit', (code) => failAll(new Error(`store writer thread exited (${code})`)));
    this.worker.unref();
  }

  send(message: Record<string, unknown>): Promise<Reply> {
    if (this.dead) return Promise.reject(new Error('store writer thread is not running'));
    const id = ++this.seq;
    this.worker.ref();
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

/**
 * lowdb adapter that makes every write durable and atomic: write a temp file, fdatasync,
 * rename over the file, fsync the directory. lowdb's stock JSONFile renames without any
 * fsync, so a crash can lose an acknowledged write. A reader sees the old or the new file,
 * never a mix.
 *
 * Writes may overlap (the store keeps up to `writers` in flight): each is prepared on its
 * own writer thread, and the renames happen strictly in the order the writes were called,
 * so the file never goes back to an older snapshot.
 */
export class AtomicJSONFile<T> implements Adapter<T> {
  private seq = 0;
  private readonly serialize: (data: T) => Array<Uint8Array | string>;
  private readonly writerCount: number;
  private writers: Writer[] = [];
  /** Resolves when the most recent write's rename is done (or it failed). */
  private lastCommit: Promise<unknown> = Promise.resolve();
  /** The current file, held open so replacing it does not free its blocks inline. */
  private current: { fd: number; writer: Writer } | undefined;

  constructor(
    private readonly file: string,
    opts: AtomicJSONFileOptions<T> = {},
  ) {
    this.serialize = opts.serialize ?? ((data) => [JSON.stringify(data)]);
    this.writerCount = Math.max(1, opts.writers ?? 2);
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
    // Serialise before anything else: the snapshot is the data as of this call.
    const chunks = this.serialize(data);
    const n = ++this.seq;
    const tmp = `${this.file}.${process.pid}.${n}.tmp`;
    const writer = this.writer(n);
    const previous = this.lastCommit;
    const committed = (async () => {
      const prepared = writer.send({ type: 'prepare', tmp, chunks, dir: path.dirname(this.file) });
      // Renames in call order: never let an older snapshot replace a newer one.
      await previous;
      await prepared;
      const { fd } = await writer.send({ type: 'commit', tmp, file: this.file });
      const old = this.current;
      this.current = fd === undefined ? undefined : { fd, writer };
      // Closed by the thread that opened it (node tracks a worker's descriptors).
      if (old) old.writer.send({ type: 'release', fd: old.fd }).catch(() => undefined);
    })();
    // A failed write must not stop later ones from committing.
    this.lastCommit = committed.catch(() => writer.send({ type: 'abandon', tmp }).catch(() => undefined));
    await committed;
  }

  /** Waits for writes in flight, closes the file handles and stops the writer threads. */
  async close(): Promise<void> {
    await this.lastCommit;
    const writers = this.writers.filter((w): w is Writer => w !== undefined);
    this.writers = [];
    for (const w of writers) {
      if (w.dead) continue;
      const fd = this.current?.writer === w ? this.current.fd : undefined;
      await w.send({ type: 'close', fd }).catch(() => undefined);
    }
    this.current = undefined;
    await Promise.all(writers.map((w) => w.terminate()));
  }

  private writer(n: number): Writer {
    const i = n % this.writerCount;
    let w = this.writers[i];
    if (!w || w.dead) {
      w = new Writer();
      this.writers[i] = w;
    }
    return w;
  }
}

/** Bytes of `text` in shared memory, so a writer thread reads them without a copy. */
export function sharedBytes(text: string): Uint8Array {
  const length = Buffer.byteLength(text);
  const bytes = new Uint8Array(new SharedArrayBuffer(length));
  Buffer.from(bytes.buffer, 0, length).write(text);
  return bytes;
}
