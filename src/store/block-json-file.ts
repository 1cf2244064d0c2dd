import { readFile, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import type { Row } from './types.js';
import { sharedBytes, WriterThread, type FileWrite } from './writer-thread.js';

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
}

/** Rows per block file: small enough that rewriting the blocks a commit touched is cheap. */
export const BLOCK_ROWS = 128;

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
 * (`db.json.blocks/`), and makes every write durable and atomic:
 *
 * 1. every block whose rows changed is written to a new file (a name never used before, so no
 *    temp file and rename: until step 3 no manifest refers to it), fdatasynced;
 * 2. the blocks directory is fsynced;
 * 3. the manifest naming the new set of blocks is written: temp file, fdatasync, rename
 *    over `db.json`, fsync of its directory. This rename is the commit: a reader sees the
 *    old manifest with the old blocks or the new one with the new blocks, never a mix;
 * 4. only then are the blocks nobody references any more removed.
 *
 * A write thus costs the blocks it changed (typically the last block of a table or two)
 * plus a small manifest, instead of a rewrite of the whole database. lowdb's stock JSONFile
 * renames without any fsync, so a crash could lose an acknowledged write.
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
  private dirty = new Map<string, Dirty>();

  constructor(
    private readonly file: string,
    private readonly blockRows = BLOCK_ROWS,
  ) {
    this.dir = path.dirname(file);
    this.blocksDir = `${file}.blocks`;
  }

  /** Whether the next write converts an older file format (the store does it at open). */
  get needsRewrite(): boolean {
    return this.legacy;
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
    await this.removeStrays();
    return { version: 1, tables };
  }

  /**
   * The store reports each row it writes (by position in its table), so a write looks only
   * at the blocks that changed instead of comparing every row. `shifted`: the rows after
   * `pos` moved (a removal), so every later block changed too.
   */
  changed(table: string, pos: number, shifted = false): void {
    let d = this.dirty.get(table);
    if (!d) this.dirty.set(table, (d = { blocks: new Set(), from: Infinity }));
    if (shifted) d.from = Math.min(d.from, pos);
    else d.blocks.add(Math.floor(pos / this.blockRows));
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
    await this.writer?.close();
    this.writer = undefined;
  }

  private async commit(data: DbData): Promise<void> {
    const dirty = this.dirty;
    this.dirty = new Map();
    try {
      await this.commitDirty(data, dirty);
    } catch (e) {
      // Nothing of this write counts: its changes are still to be written next time.
      for (const [table, d] of dirty) {
        for (const b of d.blocks) this.changed(table, b * this.blockRows);
        if (d.from !== Infinity) this.changed(table, d.from, true);
      }
      throw e;
    }
  }

  private async commitDirty(data: DbData, dirty: Map<string, Dirty>): Promise<void> {
    const gen = ++this.gen;
    const writes: FileWrite[] = [];
    const nextBlocks = new Map<string, Block[]>();
    // The manifest is written on every commit; a table whose blocks did not change reuses its
    // list's JSON (at 100,000 payments the lists are most of the manifest).
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
          const json = slice.map((r, i) => (prev?.json && prev.rows[i] === r ? prev.json[i]! : JSON.stringify(r)));
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
    const manifestJson = `{"version":2,"format":"blocks","gen":${gen},"tables":{${tableLists.join(',')}}}`;
    const obsolete = [...blockFiles(this.blocks)].filter((f) => !referenced.has(f)).map((f) => path.join(this.blocksDir, f));
    await this.thread().commit({
      blocks: writes,
      blocksDir: this.blocksDir,
      manifest: { tmp: `${this.file}.${process.pid}.${gen}.tmp`, file: this.file, chunks: [manifestJson] },
      dir: this.dir,
      obsolete,
    });
    // Only a durable manifest becomes the base the next write compares against.
    this.blocks = nextBlocks;
    this.listJson = nextListJson;
    this.legacy = false;
  }

  /** Removes block and temp files no manifest references (left by a crash or a failed write). */
  private async removeStrays(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.blocksDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    const referenced = blockFiles(this.blocks);
    await Promise.all(names.filter((n) => !referenced.has(n)).map((n) => unlink(path.join(this.blocksDir, n)).catch(() => undefined)));
    const base = path.basename(this.file);
    const temps = (await readdir(this.dir)).filter((n) => n.startsWith(`${base}.`) && n.endsWith('.tmp'));
    await Promise.all(temps.map((n) => unlink(path.join(this.dir, n)).catch(() => undefined)));
  }

  private thread(): WriterThread {
    if (!this.writer?.running) this.writer = new WriterThread();
    return this.writer;
  }
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
