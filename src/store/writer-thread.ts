import { Worker } from 'node:worker_threads';

/**
 * One file of a commit: written to `tmp`, fdatasynced, then renamed to `file`; without `tmp`,
 * written and fdatasynced under `file` itself (a block: its name is new, and nothing refers to
 * it until the manifest naming it is renamed into place).
 */
export interface FileWrite {
  tmp?: string;
  file: string;
  /** Written in order. Byte chunks in shared memory reach the thread without a copy. */
  chunks: Array<Uint8Array | string>;
}

/** What one durable commit puts on disk, in this order (see WRITER_SOURCE). */
export interface CommitRequest {
  /** New block files; none of them is referenced until `manifest` is renamed into place. */
  blocks: FileWrite[];
  blocksDir: string;
  /** The file that says which blocks make up the database (the atomic switch). */
  manifest: FileWrite;
  dir: string;
  /** Files the new manifest no longer references: removed once it is durable (small, cheap). */
  obsolete: string[];
}

/**
 * The writer thread. A commit runs synchronously here: each block file is written under its
 * own new name and fdatasynced (no temp name and rename: a block file is never rewritten, and
 * one a crash cut short is referenced by no manifest, so the next open removes it as a stray);
 * the blocks directory is fsynced (so the new names survive a crash); then the manifest is
 * written to a temp name, fdatasynced, renamed over the old one, and its directory fsynced.
 * Only then are the files it replaced removed (a crash before that leaves strays the next open
 * removes), and the commit answered.
 * On the main thread the same chain would be a dozen awaits, each waiting for a turn of a
 * busy event loop. Plain JS (evaluated), so it runs the same under tsx, vitest and node.
 */
const WRITER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const dirFds = new Map();
// What this thread did, for the store's counts (LowdbStore.diskStats).
const stats = { syncs: 0, files: 0 };
function dirFd(dir) {
  let fd = dirFds.get(dir);
  if (fd === undefined) {
    fs.mkdirSync(dir, { recursive: true });
    fd = fs.openSync(dir, 'r');
    dirFds.set(dir, fd);
  }
  return fd;
}
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
function writeFile(w) {
  const fd = fs.openSync(w.tmp || w.file, 'w', 0o600);
  stats.files++;
  try {
    writeAll(fd, w.chunks);
    fs.fdatasyncSync(fd);
    stats.syncs++;
  } finally {
    fs.closeSync(fd);
  }
  if (w.tmp) fs.renameSync(w.tmp, w.file);
}
parentPort.on('message', (m) => {
  try {
    if (m.type === 'commit') {
      const c = m.commit;
      let renamed = false;
      try {
        if (c.blocks.length > 0) {
          const bfd = dirFd(c.blocksDir);
          for (const b of c.blocks) writeFile(b);
          fs.fsyncSync(bfd);
          stats.syncs++;
        }
        const mfd = dirFd(c.dir);
        writeFile(c.manifest);
        renamed = true;
        fs.fsyncSync(mfd);
        stats.syncs++;
      } catch (e) {
        // Temp files go; new blocks too, unless the manifest naming them is already in place.
        for (const w of c.blocks.concat([c.manifest])) {
          if (w.tmp || !renamed) { try { fs.unlinkSync(w.tmp || w.file); } catch {} }
        }
        throw e;
      }
      for (const f of c.obsolete) { try { fs.unlinkSync(f); } catch {} }
      parentPort.postMessage({ id: m.id, ok: true, stats });
    } else if (m.type === 'close') {
      for (const fd of dirFds.values()) fs.closeSync(fd);
      dirFds.clear();
      parentPort.postMessage({ id: m.id, ok: true });
    }
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, message: String((e && e.message) || e), code: e && e.code });
  }
});
`;

/** What the writer thread did since it started: fdatasync/fsync calls, files written or appended to. */
export interface DiskStats {
  syncs: number;
  files: number;
}

interface Reply {
  id: number;
  ok: boolean;
  stats?: DiskStats;
  message?: string;
  code?: string;
}
type Pending = { resolve: () => void; reject: (e: Error) => void };

/** The writer thread and the replies it owes; it keeps the process alive only while busy. */
export class WriterThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private dead = false;
  /** The thread's counts as of its last answer. */
  stats: DiskStats = { syncs: 0, files: 0 };

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
      if (this.pending.size === 0) this.worker.unref();
      if (m.stats) this.stats = m.stats;
      if (m.ok) p.resolve();
      else p.reject(Object.assign(new Error(m.message ?? 'write failed'), { code: m.code }));
    });
    this.worker.on('error', failAll);
    this.worker.on('exit', (code) => failAll(new Error(`store writer thread exited (${code})`)));
    this.worker.unref();
  }

  get running(): boolean {
    return !this.dead;
  }

  commit(commit: CommitRequest): Promise<void> {
    return this.send({ type: 'commit', commit });
  }

  async close(): Promise<void> {
    if (!this.dead) await this.send({ type: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private send(message: Record<string, unknown>): Promise<void> {
    if (this.dead) return Promise.reject(new Error('store writer thread is not running'));
    const id = ++this.seq;
    this.worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }
}

/** Bytes of `text` in shared memory, so the writer thread reads them without a copy. */
export function sharedBytes(text: string): Uint8Array {
  const length = Buffer.byteLength(text);
  const bytes = new Uint8Array(new SharedArrayBuffer(length));
  Buffer.from(bytes.buffer, 0, length).write(text);
  return bytes;
}
