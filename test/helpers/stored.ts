import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * What the store has on disk under `dataDir`, read with plain fs and JSON.parse, independent
 * of the store's own code: `db.json` names each table's block files (JSON arrays of rows,
 * in order) under `db.json.blocks/`.
 */
export function storedTables<R = Record<string, unknown>>(dataDir: string, file = 'db.json'): Promise<{ version: number; tables: Record<string, R[]> }> {
  return againIfReplaced(async () => {
    const manifest = JSON.parse(await readFile(path.join(dataDir, file), 'utf8')) as { version: number; format: string; tables: Record<string, string[]> };
    if (manifest.format !== 'blocks') throw new Error(`${file} is not in the block format`);
    const tables: Record<string, R[]> = {};
    for (const [name, files] of Object.entries(manifest.tables)) {
      tables[name] = [];
      for (const f of files) tables[name]!.push(...(JSON.parse(await readFile(path.join(dataDir, `${file}.blocks`, f), 'utf8')) as R[]));
    }
    return { version: manifest.version, tables };
  });
}

/** The raw text of every file the store keeps (manifest and blocks), for "never stored" checks. */
export function storedText(dataDir: string, file = 'db.json'): Promise<string> {
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
