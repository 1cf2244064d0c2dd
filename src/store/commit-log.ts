import { close, constants, open, write } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Row } from './types.js';

/**
 * The embedded store's commit log (docs/store.md, "Commit log"): between two block writes
 * (checkpoints), each commit appends one record to one file and fdatasyncs it once.
 *
 * A record is `HHHHHHHH CCCCCCCC\n<payload>\n`: the payload's byte length and CRC-32 in
 * hex, then the payload, a JSON array of table entries `{"t": table, "n": row count after the
 * commit, "r": [[position, row], ...]}` (every row the commit wrote, at its position; rows are
 * only ever appended or replaced in place in a logged commit, a removal goes to a checkpoint).
 * Reading stops at the first record that is cut short or does not match its checksum: that
 * one, and anything after it, was never acknowledged (a commit is answered only after its
 * record's fdatasync, and nothing is appended after a failed one).
 */
export const HEADER_BYTES = 18;

export interface LogEntry {
  t: string;
  n: number;
  r: Array<[number, Row]>;
}

/** One record's bytes. */
export function encodeRecord(payload: string): Buffer {
  const length = Buffer.byteLength(payload);
  const buf = Buffer.allocUnsafe(HEADER_BYTES + length + 1);
  buf.write(payload, HEADER_BYTES);
  const sum = crc32(buf.subarray(HEADER_BYTES, HEADER_BYTES + length));
  buf.write(`${hex8(length)} ${hex8(sum)}\n`, 0, 'latin1');
  buf[HEADER_BYTES + length] = 0x0a;
  return buf;
}

/**
 * The open commit log, appended to from the main thread: opened `O_APPEND | O_DSYNC`, so one
 * `write` (one request to libuv's pool, no message to the writer thread) returns once the
 * record and the file size are on disk, as a write and an fdatasync would.
 */
export class LogAppender {
  /** Appends made (each one synchronised write). */
  appends = 0;
  private fd: Promise<number> | undefined;
  constructor(readonly file: string) {}

  async append(record: Buffer): Promise<void> {
    this.fd ??= new Promise<number>((resolve, reject) =>
      open(this.file, constants.O_WRONLY | constants.O_APPEND | constants.O_DSYNC, 0o600, (e, fd) => (e ? reject(e) : resolve(fd))),
    );
    let fd: number;
    try {
      fd = await this.fd;
    } catch (e) {
      this.fd = undefined;
      throw e;
    }
    for (let at = 0; at < record.length; ) {
      const n = await new Promise<number>((resolve, reject) => write(fd, record, at, record.length - at, null, (e, written) => (e ? reject(e) : resolve(written))));
      at += n;
    }
    this.appends++;
  }

  /** Closes the file (the next append, if any, opens it again). */
  async close(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd) await fd.then((d) => new Promise<void>((r) => close(d, () => r()))).catch(() => undefined);
  }
}

/** The records of a log file, in order, up to the first one that is torn; `valid` = bytes they span. */
export function decodeRecords(file: Buffer): { records: LogEntry[][]; valid: number } {
  const records: LogEntry[][] = [];
  let at = 0;
  while (at + HEADER_BYTES <= file.length) {
    const header = file.toString('latin1', at, at + HEADER_BYTES);
    if (!/^[0-9a-f]{8} [0-9a-f]{8}\n$/.test(header)) break;
    const length = parseInt(header.slice(0, 8), 16);
    const end = at + HEADER_BYTES + length;
    if (end + 1 > file.length || file[end] !== 0x0a) break;
    const payload = file.subarray(at + HEADER_BYTES, end);
    if (crc32(payload) !== parseInt(header.slice(9, 17), 16)) break;
    records.push(JSON.parse(payload.toString('utf8')) as LogEntry[]);
    at = end + 1;
  }
  return { records, valid: at };
}

/**
 * Applies records to the tables read from the blocks, in order. Returns each table's
 * positions it wrote (so the next checkpoint rewrites their blocks).
 */
export function replay(tables: Record<string, Row[]>, records: LogEntry[][]): Map<string, Set<number>> {
  const touched = new Map<string, Set<number>>();
  for (const record of records) {
    for (const { t, n, r } of record) {
      const rows = (tables[t] ??= []);
      if (n < rows.length) throw new Error(`commit log: table ${t} shrinks from ${rows.length} to ${n} rows in a logged commit`);
      const from = rows.length;
      let set = touched.get(t);
      if (!set) touched.set(t, (set = new Set()));
      for (const [pos, row] of r) {
        rows[pos] = row;
        set.add(pos);
      }
      for (let i = from; i < n; i++) if (rows[i] === undefined) throw new Error(`commit log: row ${i} of table ${t} is missing`);
      if (rows.length !== n) throw new Error(`commit log: table ${t} has ${rows.length} rows, its record says ${n}`);
    }
  }
  return touched;
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
