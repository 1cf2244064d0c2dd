import { describe, expect, it, vi } from 'vitest';
import { PgTable, type Run } from '../../src/store/pg/pg-table.js';
import { TableSql } from '../../src/store/pg/table-sql.js';
import { defineTable, type Row } from '../../src/store/types.js';

// The UPDATE texts of a table are built and named once per shape (RETURNING and the filter's
// clauses), not per call (issue 23, eleventh round: a settle makes about ten updates). The texts
// are those the store always sent; no database here: the statements are captured.
interface Item extends Row {
  status: string;
  ref?: string;
  n?: number;
  version?: number;
}
const Items = defineTable<Item>({ name: 'items', unique: [['ref']], version: 'version' });

function table() {
  const sql = new TableSql<Item>(Items);
  const prepared = vi.spyOn(sql, 'prepared');
  const sent: Array<{ text: string; values: unknown[]; name?: string }> = [];
  const run = (async (text: string, values: unknown[], name?: string) => {
    sent.push({ text, values, name });
    return { rows: [{ doc: { id: values[0], status: 'b' }, before: { id: values[0], status: 'a', version: 1 } }], rowCount: 1 };
  }) as unknown as Run;
  const later: Array<{ text: string; values: unknown[]; name?: string }> = [];
  const t = new PgTable<Item>(sql, run, true, (text, values, name) => later.push({ text, values, name }));
  return { t, sql, prepared, sent, later };
}

const bump = `jsonb_set((doc - $2::text[]) || $3::jsonb, ARRAY['version'], to_jsonb(COALESCE((doc ->> 'version')::bigint, 0) + 1))`;

describe('PgTable update texts', () => {
  it('spells each shape as before, and names it once', async () => {
    const { t, sql, prepared, sent, later } = table();
    await t.update('i1', { status: 'b', n: undefined });
    await t.update('i2', { status: 'c' });
    await t.update('i3', { status: 'b' }, { status: 'a' });
    await t.update('i4', { status: 'd' }, { status: 'x' });
    const r = await t.updateWithBefore('i5', { status: 'b' }, { status: 'a' });
    t.updateLater('i6', { n: 2 }, { status: 'b' });
    t.updateLater('i7', { n: 3 }, { status: 'c' });
    expect(sent.map((s) => s.text)).toEqual([
      `UPDATE "items" SET doc = ${bump} WHERE id = $1 RETURNING doc`,
      `UPDATE "items" SET doc = ${bump} WHERE id = $1 RETURNING doc`,
      `UPDATE "items" SET doc = ${bump} WHERE id = $1 AND (doc -> 'status') = $4::jsonb RETURNING doc`,
      `UPDATE "items" SET doc = ${bump} WHERE id = $1 AND (doc -> 'status') = $4::jsonb RETURNING doc`,
      `UPDATE "items" SET doc = ${bump} WHERE id = $1 AND (doc -> 'status') = $4::jsonb RETURNING (SELECT o.doc FROM "items" o WHERE o.id = $1) AS before`,
    ]);
    expect(later.map((s) => s.text)).toEqual([
      `UPDATE "items" SET doc = ${bump} WHERE id = $1 AND (doc -> 'status') = $4::jsonb RETURNING 1`,
      `UPDATE "items" SET doc = ${bump} WHERE id = $1 AND (doc -> 'status') = $4::jsonb RETURNING 1`,
    ]);
    expect(sent[0]!.values).toEqual(['i1', ['n'], '{"status":"b"}']);
    expect(sent[3]!.values).toEqual(['i4', [], '{"status":"d"}', '"x"']);
    expect(later[1]!.values).toEqual(['i7', [], '{"n":3}', '"c"']);
    for (const s of [...sent, ...later]) expect(s.name).toBe(sql.prepared(s.text));
    expect(r?.after).toEqual({ id: 'i5', status: 'b', version: 2 });
    prepared.mockClear();
    // Four shapes above (no filter, a status filter, each with RETURNING doc / before / 1): named once each.
    await t.update('i8', { status: 'e' }, { status: 'a' });
    t.updateLater('i9', { n: 4 }, { status: 'a' });
    expect(prepared).not.toHaveBeenCalled();
  });

  it('a filter of another shape (a unique field, a null) is a text of its own', async () => {
    const { t, sent } = table();
    await t.update('i1', { status: 'b' }, { ref: 'r1' });
    await t.update('i2', { status: 'b' }, { ref: null as unknown as string });
    expect(sent.map((s) => s.text.slice(s.text.indexOf('WHERE')))).toEqual([
      `WHERE id = $1 AND (doc -> 'ref') = $4::jsonb AND (doc -> 'ref') <> 'null'::jsonb RETURNING doc`,
      `WHERE id = $1 AND (doc -> 'ref') = $4::jsonb RETURNING doc`,
    ]);
  });
});
