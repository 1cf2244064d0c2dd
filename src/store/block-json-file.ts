import { readFile, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { decodeRecords, encodeRecord, LogAppender, replay } from './commit-log.js';
import type { Row } from './types.js';
import { sharedBytes, WriterThread, type DiskStats, type FileWrite } from './writer-thread.js';

/** The database as lowdb holds it in memory: every table's rows, in insertion order. */
export interface DbData {
  version: 1;
  tables: Record<string, Row[]>;
}

/**
 * `db.json` on disk: which block files make up each table, in order. Each block file is a
 * JSON array of up to `BLOCK_ROWS` consecutive rows. (Version 1 kept the rows inline in
 * db.json; it is still read, and rewritten in this form at the first write.)
 */
interface Manifest {
  version: 2;
  format: 'blocks';
  /** Number of the last write; block file names carry it, so a name is never reused. */
  gen: number;
  tables: Record<string, string[]>;
  /**
   * The commit log (in the blocks directory) holding the commits made since these blocks were
   * written; replayed over them at open. Absent in files written before the log existed.
   */
  log?: string;
}

/** Rows per block file: small enough that rewriting the blocks a commit touched is cheap. */
export const BLOCK_ROWS = 128;

/** Bytes of commit log after which the next commit writes blocks again (a checkpoint). */
export const LOG_BYTES = 4 * 1024 * 1024;

interface Block {
  /** The row objects the file holds (compared by identity to find what changed). */
  rows: Row[];
  file: string;
  /** JSON of each row, reused when the block is rewritten around a changed or new row. */
  json?: string[];
}

/** Rows written since the last durable write, per table (see `changed`). */
interface Dirty {
  blocks: Set<number>;
  /** Every block from this row position on (a removal moved the rows after it). */
  from: number;
}

/**
 * lowdb adapter that stores the database as a manifest (`db.json`) over block files
 * (`db.json.blocks/`) and a commit log, and makes every write durable and atomic.
 *
 * Most commits append one record (the rows they wrote) to the commit log the manifest names
 * and fdatasync it: one write, one fdatasync, no new name (docs/store.md, "Commit log").
 * Now and then (the log past `logBytes`, a removal, the first commit, a failed append) a
 * commit is a checkpoint instead:
 *
 * 1. every block whose rows changed since the last checkpoint is written to a new file (a
 *    name never used before, so no temp file and rename: until step 3 no manifest refers to
 *    it), fdatasynced; so is a new, empty commit log;
 * 2. the blocks directory is fsynced;
 * 3. the manifest naming the new set of blocks and the new log is written: temp file,
 *    fdatasync, rename over `db.json`, fsync of its directory. This rename is the commit: a
 *    reader sees the old manifest with the old blocks and log or the new one with the new
 *    blocks and an empty log, never a mix;
 * 4. only then are the blocks and the log nobody references any more removed.
 *
 * Writes run one at a time, in call order, each reading `data` when its turn comes.
 */
export class BlockJSONFile implements Adapter<DbData> {
  private readonly dir: string;
  private readonly blocksDir: string;
  private gen = 0;
  /** Blocks of the last durable manifest, per table. */
  private blocks = new Map<string, Block[]>();
  /** Each table's list of block files as manifest JSON, kept while the table's blocks stay the same. */
  private listJson = new Map<string, { blocks: Block[]; json: string }>();
  private writer: WriterThread | undefined;
  private last: Promise<unknown> = Promise.resolve();
  /** True when the file on disk is not (yet) in the block format. */
  private legacy = false;
  /** Blocks changed since the last durable write, per table. */
  private dirty = new Map<string, Dirty>();
  /** Row positions changed since the last durable write, per table (what a log record holds). */
  private dirtyRows = new Map<string, Set<number>>();
  /** Blocks changed by the logged commits since the last checkpoint (the next one rewrites them). */
  private sinceCheckpoint = new Map<string, Dirty>();
  /** The commit log the durable manifest names (in the blocks directory), and its valid bytes. */
  private log: string | undefined;
  private logSize = 0;
  /** The next write must be a checkpoint: an append failed, or the open replayed a log. */
  private needCheckpoint = false;
  /** Appends to `log` (from this thread); appends made to logs before it, for `diskStats`. */
  private appender: LogAppender | undefined;
  private appendsBefore = 0;
  /** JSON of rows written to the log, so the checkpoint that writes their block reuses it. */
  private readonly rowJson = new WeakMap<Row, string>();

  constructor(
    private readonly file: string,
    private readonly blockRows = BLOCK_ROWS,
    private readonly logBytes = LOG_BYTES,
  ) {
    this.dir = path.dirname(file);
    this.blocksDir = `${file}.blocks`;
  }

  /** Whether the next write converts an older file format or folds a replayed log into blocks (the store does it at open). */
  get needsRewrite(): boolean {
    return this.legacy || this.needCheckpoint;
  }

  /** fdatasync/fsync calls and files written or appended to by the writer thread it runs now. */
  get diskStats(): DiskStats {
    const thread = this.writer?.stats ?? { syncs: 0, files: 0 };
    const appends = this.appendsBefore + (this.appender?.appends ?? 0);
    return { syncs: thread.syncs + appends, files: thread.files + appends };
  }

  async read(): Promise<DbData | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    const parsed = JSON.parse(text) as Manifest | DbData;
    this.blocks = new Map();
    this.dirty = new Map();
    this.dirtyRows = new Map();
    this.sinceCheckpoint = new Map();
    if (!('format' in parsed) || parsed.format !== 'blocks') {
      this.legacy = true;
      return parsed as DbData;
    }
    this.legacy = false;
    this.gen = parsed.gen;
    const tables: Record<string, Row[]> = {};
    for (const [name, files] of Object.entries(parsed.tables)) {
      const rows: Row[] = [];
      const blocks: Block[] = [];
      for (const f of files) {
        let part: Row[];
        try {
          part = JSON.parse(await readFile(path.join(this.blocksDir, f), 'utf8')) as Row[];
        } catch (e) {
          throw new Error(`${this.file} names block ${f} of table ${name}, which cannot be read (${(e as Error).message})`);
        }
        blocks.push({ rows: part, file: f });
        for (const r of part) rows.push(r);
      }
      tables[name] = rows;
      this.blocks.set(name, blocks);
    }
    this.log = parsed.log;
    this.logSize = 0;
    if (this.log) await this.replayLog(tables);
    await this.removeStrays();
    return { version: 1, tables };
  }

  /**
   * The store reports each row it writes (by position in its table), so a write looks only
   * at the blocks that changed instead of comparing every row. `shifted`: the rows after
   * `pos` moved (a removal), so every later block changed too.
   */
  changed(table: string, pos: number, shifted = false): void {
    markBlock(this.dirty, table, Math.floor(pos / this.blockRows), shifted ? pos : Infinity);
    if (shifted) return;
    let rows = this.dirtyRows.get(table);
    if (!rows) this.dirtyRows.set(table, (rows = new Set()));
    rows.add(pos);
  }

  write(data: DbData): Promise<void> {
    const previous = this.last;
    const done = previous.then(() => this.commit(data));
    // A failed write must not stop later ones (they start again from the durable state).
    this.last = done.catch(() => undefined);
    return done;
  }

  /** Waits for the write in flight and stops the writer thread. */
  async close(): Promise<void> {
    await this.last;
    await this.dropAppender();
    await this.writer?.close();
    this.writer = undefined;
  }

  private async commit(data: DbData): Promise<void> {
    const dirty = this.dirty;
    const rows = this.dirtyRows;
    this.dirty = new Map();
    this.dirtyRows = new Map();
    const checkpoint = this.needCheckpoint || this.legacy || this.log === undefined || this.logSize >= this.logBytes || [...dirty.values()].some((d) => d.from !== Infinity);
    try {
      if (checkpoint) await this.checkpoint(data, merged(this.sinceCheckpoint, dirty));
      else await this.append(data, rows, dirty);
    } catch (e) {
      // Nothing of this write counts: its changes are still to be written next time.
      for (const [table, d] of dirty) {
        for (const b of d.blocks) markBlock(this.dirty, table, b, Infinity);
        if (d.from !== Infinity) markBlock(this.dirty, table, Math.floor(d.from / this.blockRows), d.from);
      }
      for (const [table, set] of rows) for (const pos of set) this.changed(table, pos);
      // A failed append may have left part of its record: nothing more goes after it.
      if (!checkpoint) this.needCheckpoint = true;
      throw e;
    }
  }

  /** One record with every row written since the last durable write, one fdatasync. */
  private async append(data: DbData, dirtyRows: Map<string, Set<number>>, dirty: Map<string, Dirty>): Promise<void> {
    const entries: string[] = [];
    for (const [name, set] of dirtyRows) {
      const rows = data.tables[name] ?? [];
      const parts: string[] = [];
      for (const pos of set) {
        const row = rows[pos];
        if (row === undefined) continue;
        const json = JSON.stringify(row);
        this.rowJson.set(row, json);
        parts.push(`[${pos},${json}]`);
      }
      entries.push(`{"t":${JSON.stringify(name)},"n":${rows.length},"r":[${parts.join(',')}]}`);
    }
    const record = encodeRecord(`[${entries.join(',')}]`);
    this.appender ??= new LogAppender(path.join(this.blocksDir, this.log!));
    try {
      await this.appender.append(record);
    } catch (e) {
      // Part of the record may be in the file: nothing more goes to it (commit() asks for a checkpoint).
      await this.dropAppender();
      throw e;
    }
    this.logSize += record.byteLength;
    for (const [table, d] of dirty) for (const b of d.blocks) markBlock(this.sinceCheckpoint, table, b, Infinity);
  }

  private async checkpoint(data: DbData, dirty: Map<string, Dirty>): Promise<void> {
    const gen = ++this.gen;
    const writes: FileWrite[] = [];
    const nextBlocks = new Map<string, Block[]>();
    // The manifest is written on every checkpoint; a table whose blocks did not change reuses
    // its list's JSON (at 100,000 payments the lists are most of the manifest).
    const tableLists: string[] = [];
    const nextListJson = new Map<string, { blocks: Block[]; json: string }>();
    const referenced = new Set<string>();
    for (const [name, rows] of Object.entries(data.tables)) {
      const old = this.blocks.get(name) ?? [];
      const d = dirty.get(name);
      const firstShifted = d ? Math.floor(d.from / this.blockRows) : Infinity;
      const out: Block[] = [];
      const count = Math.ceil(rows.length / this.blockRows);
      for (let b = 0; b < count; b++) {
        const start = b * this.blockRows;
        const end = Math.min(start + this.blockRows, rows.length);
        let block = old[b];
        if (!block || (d && (b >= firstShifted || d.blocks.has(b))) || !sameEnds(block, rows, start, end)) {
          const slice = rows.slice(start, end);
          const prev = block;
          const json = slice.map((r, i) => (prev?.json && prev.rows[i] === r ? prev.json[i]! : (this.rowJson.get(r) ?? JSON.stringify(r))));
          const file = `${encodeURIComponent(name)}.${b}.${gen}.json`;
          const full = path.join(this.blocksDir, file);
          // Written under its final name: new, and referenced by no manifest until this commit's.
          writes.push({ file: full, chunks: [sharedBytes(`[${json.join(',')}]`)] });
          block = { rows: slice, file, json };
        }
        out.push(block);
        referenced.add(block.file);
      }
      nextBlocks.set(name, out);
      const cached = this.listJson.get(name);
      const list = cached && cached.blocks.length === out.length && cached.blocks.every((bl, i) => bl === out[i]) ? cached : { blocks: out, json: JSON.stringify(out.map((bl) => bl.file)) };
      nextListJson.set(name, list);
      tableLists.push(`${JSON.stringify(name)}:${list.json}`);
    }
    // A new, empty log: created (and its name made durable) with the blocks, before the
    // manifest naming it; appends then need only their own fdatasync.
    const log = `commits.${gen}.log`;
    writes.push({ file: path.join(this.blocksDir, log), chunks: [] });
    const manifestJson = `{"version":2,"format":"blocks","gen":${gen},"log":${JSON.stringify(log)},"tables":{${tableLists.join(',')}}}`;
    const obsolete = [...blockFiles(this.blocks)].filter((f) => !referenced.has(f));
    if (this.log) obsolete.push(this.log);
    await this.thread().commit({
      blocks: writes,
      blocksDir: this.blocksDir,
      manifest: { tmp: `${this.file}.${process.pid}.${gen}.tmp`, file: this.file, chunks: [manifestJson] },
      dir: this.dir,
      obsolete: obsolete.map((f) => path.join(this.blocksDir, f)),
    });
    // Only a durable manifest becomes the base the next write compares against.
    await this.dropAppender();
    this.blocks = nextBlocks;
    this.listJson = nextListJson;
    this.legacy = false;
    this.log = log;
    this.logSize = 0;
    this.needCheckpoint = false;
    this.sinceCheckpoint = new Map();
  }

  /** Applies the log's records over the blocks; a torn tail is left for the next checkpoint to drop. */
  private async replayLog(tables: Record<string, Row[]>): Promise<void> {
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(this.blocksDir, this.log!));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      bytes = Buffer.alloc(0);
    }
    const { records, valid } = decodeRecords(bytes);
    for (const [table, positions] of replay(tables, records)) for (const pos of positions) markBlock(this.sinceCheckpoint, table, Math.floor(pos / this.blockRows), Infinity);
    this.logSize = valid;
    // Rows replayed, or a torn record at the end: fold them into blocks and start a new log
    // before anything is appended after the torn bytes.
    if (bytes.length > 0) this.needCheckpoint = true;
  }

  /** Removes block, log and temp files no manifest references (left by a crash or a failed write). */
  private async removeStrays(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.blocksDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    const referenced = blockFiles(this.blocks);
    if (this.log) referenced.add(this.log);
    await Promise.all(names.filter((n) => !referenced.has(n)).map((n) => unlink(path.join(this.blocksDir, n)).catch(() => undefined)));
    const base = path.basename(this.file);
    const temps = (await readdir(this.dir)).filter((n) => n.startsWith(`${base}.`) && n.endsWith('.tmp'));
    await Promise.all(temps.map((n) => unlink(path.join(this.dir, n)).catch(() => undefined)));
  }

  private async dropAppender(): Promise<void> {
    if (!this.appender) return;
    this.appendsBefore += this.appender.appends;
    const a = this.appender;
    this.appender = undefined;
    await a.close();
  }

  private thread(): WriterThread {
    if (!this.writer?.running) this.writer = new WriterThread();
    return this.writer;
  }
}

/** Marks block `b` of `table` changed; `from` < Infinity: every block from that row on too. */
function markBlock(map: Map<string, Dirty>, table: string, b: number, from: number): void {
  let d = map.get(table);
  if (!d) map.set(table, (d = { blocks: new Set(), from: Infinity }));
  if (from !== Infinity) d.from = Math.min(d.from, from);
  else d.blocks.add(b);
}

/** The union of two sets of changed blocks (neither is changed). */
function merged(a: Map<string, Dirty>, b: Map<string, Dirty>): Map<string, Dirty> {
  const out = new Map<string, Dirty>();
  for (const m of [a, b]) {
    for (const [table, d] of m) {
      for (const blk of d.blocks) markBlock(out, table, blk, Infinity);
      if (d.from !== Infinity) markBlock(out, table, 0, d.from);
    }
  }
  return out;
}

/**
 * A cheap guard behind the change reports: a block still holds rows[start, end) only if its
 * size and its first and last rows (by identity) are the same.
 */
function sameEnds(block: Block, rows: Row[], start: number, end: number): boolean {
  return block.rows.length === end - start && block.rows[0] === rows[start] && block.rows[end - start - 1] === rows[end - 1];
}

/** The block files a set of tables' blocks live in. */
function blockFiles(blocks: Map<string, Block[]>): Set<string> {
  const files = new Set<string>();
  for (const list of blocks.values()) for (const b of list) files.add(b.file);
  return files;
}
