import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import pg from 'pg';
import { databaseUrl } from './pg.js';
import { registeredDatabase } from './pg-target.js';

/**
 * What the store has on disk under `dataDir`, read with plain fs and JSON.parse, independent
 * of the store's own code: `db.json` names each table's block files (JSON arrays of rows,
 * in order) under `db.json.blocks/`, and the commit log there whose records (`<len hex8>
 * <crc32 hex8>\n<JSON>\n`, each `[{t, n, r: [[position, row]]}]`) are applied over them, up
 * to the first torn one.
 */
export function storedTables<R = Record<string, unknown>>(dataDir: string, file = 'db.json'): Promise<{ version: number; tables: Record<string, R[]> }> {
  const db = registeredDatabase(dataDir);
  if (db) return pgTables<R>(db);
  return againIfReplaced(async () => {
    const manifest = JSON.parse(await readFile(path.join(dataDir, file), 'utf8')) as { version: number; format: string; log?: string; tables: Record<string, string[]> };
    if (manifest.format !== 'blocks') throw new Error(`${file} is not in the block format`);
    const tables: Record<string, R[]> = {};
    for (const [name, files] of Object.entries(manifest.tables)) {
      tables[name] = [];
      for (const f of files) tables[name]!.push(...(JSON.parse(await readFile(path.join(dataDir, `${file}.blocks`, f), 'utf8')) as R[]));
    }
    if (manifest.log) {
      const log = await readFile(path.join(dataDir, `${file}.blocks`, manifest.log));
      for (let at = 0; at + 18 <= log.length; ) {
        const [len, sum] = log.toString('latin1', at, at + 17).split(' ').map((h) => parseInt(h, 16));
        const body = log.subarray(at + 18, at + 18 + len!);
        if (body.length !== len || crc32(body) !== sum) break;
        for (const e of JSON.parse(body.toString('utf8')) as Array<{ t: string; r: Array<[number, R]> }>) {
          const rows = (tables[e.t] ??= []);
          for (const [pos, row] of e.r) rows[pos] = row;
        }
        at += 18 + len! + 1;
      }
    }
    return { version: manifest.version, tables };
  });
}

/** The raw text of every file the store keeps (manifest and blocks), for "never stored" checks. */
export async function storedText(dataDir: string, file = 'db.json'): Promise<string> {
  const db = registeredDatabase(dataDir);
  if (db) return JSON.stringify((await pgTables(db)).tables);
  const blocksDir = path.join(dataDir, `${file}.blocks`);
  return againIfReplaced(async () => {
    const parts = [await readFile(path.join(dataDir, file), 'utf8')];
    for (const f of await readdir(blocksDir)) parts.push(await readFile(path.join(blocksDir, f), 'utf8'));
    return parts.join('\n');
  });
}

/** A live store removes the blocks a newer db.json replaced: read everything again then. */
async function againIfReplaced<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 20) throw e;
    }
  }
}

/** The same view of a service that runs on PostgreSQL: every table's rows in insertion order, read with SQL. */
async function pgTables<R>(name: string): Promise<{ version: number; tables: Record<string, R[]> }> {
  const c = new pg.Client({ connectionString: databaseUrl(name) });
  await c.connect();
  try {
    const names = (
      await c.query<{ tablename: string }>(
        // The TableDef tables (id, seq, doc); not schema_migrations, store_leases or store_counters.
        `SELECT table_name AS tablename FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'doc'`,
      )
    ).rows.map((r) => r.tablename);
    const tables: Record<string, R[]> = {};
    for (const t of names) {
      const rows = (await c.query<{ doc: R }>(`SELECT doc FROM "${t}" ORDER BY seq`)).rows.map((r) => r.doc);
      if (rows.length) tables[t] = rows;
    }
    return { version: 2, tables };
  } finally {
    await c.end();
  }
}
